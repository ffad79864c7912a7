//! The simulation: producers → broker (queues, exchanges, dead-letter queues) →
//! consumers → database. Each rule is one event handler in the submodules below, and
//! each handler records what happened as [`Fact`]s:
//!
//! * `publishing` — producers, outbox relays, the publish/confirm hop, routing, storage;
//! * `delivery` — waiting lines, dispatch, leases, TTL, retries, dead-lettering, redrive;
//! * `processing` — consumer handlers: failures, ordering, idempotency, effects, acks;
//! * `faults` — crashes, restarts and other deliberate faults.

mod backoff;
mod breaker;
pub mod current;
mod delivery;
mod dependency;
mod dependency_settings;
mod dependency_views;
mod faults;
mod log_failures;
mod log_jobs;
mod logs;
mod processing;
mod publishing;
mod rebalance;
mod release;
mod settings;
mod views;

pub use crate::end_reason::EndReason;
pub use views::{MemberView, ProducerView};

use std::hash::{Hash, Hasher};

use crate::consumer::{Consumer, ConsumerView};
use crate::database::GroupTables;
use crate::engine::{Event, EventQueue};
use crate::hash::StableHasher;
use crate::log::{Group, Log, PartitionView};
use crate::message::{Fate, Message, MessageCopy, PublishFate};
use crate::metrics::{
    Counters, FlowSample, GroupSample, Latencies, QueueSample, Sample, Series, Summary,
};
use crate::producer::{Producer, Target};
use crate::queue::{Queue, QueueView};
use crate::records::Records;
use crate::rng::SimRng;
use crate::scenario::{limits, Budget, Command, Intervention, Scenario, ScenarioError};
use crate::step::{ConsumerId, CopyId, Fact, GroupId, MsgId, ProducerId, QueueId, Step, Trigger};
use crate::time::{secs_to_us, us_to_secs, Micros};

/// FIFO lanes of the event queue: each queue's leases, and each queue's TTLs (fixed
/// durations set in time order, so they fall due in order).
fn lease_lane(queue: QueueId) -> usize {
    2 * queue.index()
}
fn ttl_lane(queue: QueueId) -> usize {
    2 * queue.index() + 1
}

/// No run steps past ten years of simulated time (`limits::TIME_S_MAX`): a scenario
/// without an end time whose next event lies beyond ends there ([`EndReason::TimeLimit`]),
/// as the aggregated model does, instead of reporting an end no one could wait for.
const TIME_LIMIT_US: Micros = limits::TIME_S_MAX as Micros * 1_000_000;

/// Clone is cheap enough for the page to keep a few snapshots of a run (seeking and
/// stepping back restart from the nearest one instead of from the start).
#[derive(Clone)]
pub struct Simulation {
    scenario: Scenario,
    rng: SimRng,
    /// One stream per producer when the scenario splits them (empty: producers draw from
    /// `rng` like everything else).
    producer_rngs: Vec<SimRng>,
    events: EventQueue,
    now_us: Micros,
    /// Steps taken so far (a step is one event that changed something, or one command).
    steps: u64,
    /// Facts of the latest step.
    facts: Vec<Fact>,
    next_intervention: usize,
    /// The scenario's end time, if it has one (a run never steps past
    /// [`TIME_LIMIT_US`] either way).
    end_us: Option<Micros>,
    latency_us: Micros,
    /// Scratch buffer for the queues a publish is routed to.
    route_buf: Vec<QueueId>,
    /// The routing keys messages carry, each once (messages keep their number).
    routing_keys: crate::message::RoutingKeys,
    /// Scratch buffer for the batch a consumer starts (a consumer's `settling` is the one
    /// for the batch it finishes).
    batch_buf: Vec<crate::consumer::Held>,
    /// Scratch buffer for each queue's values in a sample (one sample per simulated
    /// second on most runs: allocating a vector each time showed in the profile).
    queue_sample_buf: Vec<QueueSample>,
    /// The work budget this run honours.
    budget: Budget,

    producers: Vec<Producer>,
    /// Messages by id: the finished ones are released (see `release`).
    messages: Records<Message>,
    /// Job status counts per producer, kept in step with every fate change.
    jobs: Vec<crate::producer::JobCounts>,
    /// Message ids by (producer, key, version): the producers' source of truth that a
    /// reconciling consumer reads.
    by_version: std::collections::BTreeMap<(ProducerId, u32, u32), MsgId>,
    queues: Vec<Queue>,
    copies: Records<MessageCopy>,
    /// Totals of the messages and copies already released, for the invariants.
    retired: release::Retired,
    /// Ids this recent are never released (the page reads the last steps' records).
    recent_window: usize,
    /// What the last sweeps visited besides the records: when the next is due.
    sweep_work: release::SweepWork,
    consumers: Vec<Consumer>,
    logs: Vec<Log>,
    groups: Vec<Group>,
    /// The database: one set of tables per queue's consumers, then one per log group.
    tables: Vec<GroupTables>,
    /// Per message with log records: the reads its jobs still waits for, one per record
    /// and group reading the record's log, until the group finishes the record or will
    /// never read it (see `log_jobs`). Absent: none.
    log_reads: std::collections::HashMap<MsgId, u32, crate::hash::IdHash>,
    broker_up: bool,
    broker_incarnation: u32,
    /// Poison classes the consumers of a queue now process (fixes deployed).
    fixed: Vec<(QueueId, crate::scenario::Poison)>,

    counters: Counters,
    series: Series,
    latencies: Latencies,
    /// Log records, message created → a group's member done with the record: once per
    /// group that processes it (a log's readers are timed apart from queue copies).
    record_latencies: Latencies,
    queue_waits: Latencies,
    queue_wait_sum_us: u128,
    queue_wait_count: u64,
    /// Time integrals since the start: waiting copies, busy slots, slots of live consumers.
    backlog_area: u128,
    busy_area: u128,
    capacity_area: u128,
    waiting_total: u64,
    /// Copies held by all queues (waiting, in flight, retrying, dead-lettered): what the
    /// budget's `held_max` bounds, so memory stays bounded however many messages a run has.
    held_total: u64,
    busy_slots: u64,
    live_slots: u64,

    /// Dependencies the handlers call, the calls whose callers still wait (by request
    /// id), the next request id, and handler attempts started (retries included).
    deps: Vec<crate::dependency::Dependency>,
    calls: std::collections::BTreeMap<u64, dependency::Call>,
    next_request: u64,
    handler_attempts: u64,
}

impl Simulation {
    /// Builds a run from a scenario after validating it, with the default work budget.
    pub fn new(scenario: Scenario) -> Result<Self, ScenarioError> {
        Self::with_budget(scenario, Budget::default())
    }

    /// Builds a run that honours `budget` (tests use a small one to end hostile runs fast).
    pub fn with_budget(scenario: Scenario, budget: Budget) -> Result<Self, ScenarioError> {
        scenario.validate()?;
        if scenario.run_mode()? == crate::scenario::RunMode::Aggregated {
            return Err(ScenarioError {
                field: "mode".into(),
                problem: format!(
                    "this scenario runs in aggregated mode ({}): use aggregate::run",
                    crate::budget::why_aggregated(&scenario)
                ),
            });
        }
        let mut queues: Vec<Queue> = scenario.queues.iter().map(Queue::new).collect();
        let consumers = build_consumers(&scenario, &mut queues);
        let deps = scenario
            .dependencies
            .iter()
            .map(crate::dependency::Dependency::new)
            .collect();
        let producers = build_producers(&scenario);
        let live_slots = consumers.iter().map(|c| u64::from(c.concurrency)).sum();
        let logs: Vec<Log> = scenario.logs.iter().map(Log::new).collect();
        let groups = build_groups(&scenario, &logs);
        let mut sim = Self {
            rng: SimRng::new(scenario.seed),
            producer_rngs: producer_streams(&scenario),
            events: EventQueue::default(),
            now_us: 0,
            steps: 0,
            facts: Vec::with_capacity(16),
            next_intervention: 0,
            end_us: scenario.end_s.map(secs_to_us),
            latency_us: secs_to_us(scenario.broker.network_latency_s),
            route_buf: Vec::new(),
            routing_keys: crate::message::RoutingKeys::default(),
            batch_buf: Vec::new(),
            queue_sample_buf: Vec::new(),
            budget,
            jobs: vec![crate::producer::JobCounts::default(); scenario.producers.len()],
            producers,
            messages: Records::default(),
            by_version: std::collections::BTreeMap::new(),
            tables: vec![GroupTables::default(); queues.len() + groups.len()],
            log_reads: Default::default(),
            queues,
            logs,
            groups,
            copies: Records::default(),
            retired: release::Retired::default(),
            recent_window: release::RECENT_WINDOW,
            sweep_work: release::SweepWork::default(),
            consumers,
            broker_up: true,
            broker_incarnation: 0,
            fixed: Vec::new(),
            counters: Counters::default(),
            series: Series::new(
                scenario.sample_every_us(),
                scenario.queues.len(),
                scenario.groups.len(),
                scenario.dependencies.len(),
            ),
            latencies: Latencies::default(),
            record_latencies: Latencies::default(),
            queue_waits: Latencies::default(),
            queue_wait_sum_us: 0,
            queue_wait_count: 0,
            backlog_area: 0,
            busy_area: 0,
            capacity_area: 0,
            waiting_total: 0,
            held_total: 0,
            busy_slots: 0,
            live_slots,
            deps,
            calls: std::collections::BTreeMap::new(),
            next_request: 0,
            handler_attempts: 0,
            scenario,
        };
        for p in sim.producer_ids() {
            sim.schedule_next_arrival(p);
        }
        for (i, f) in sim.scenario.commands.iter().enumerate() {
            sim.events.schedule(
                secs_to_us(f.at_s),
                Event::ScheduledCommand { index: i as u32 },
            );
        }
        Ok(sim)
    }

    // ----- driving -------------------------------------------------------------------

    /// Takes one step: a pending user command, or the next event that changes something.
    /// Returns `None` when nothing is left to do (or `end_s` is reached).
    pub fn step(&mut self) -> Option<Step<'_>> {
        self.step_within(Micros::MAX)
    }

    /// One step, unless the next one is due after `limit_us` (or after `end_s`).
    fn step_within(&mut self, limit_us: Micros) -> Option<Step<'_>> {
        let limit_us = limit_us.min(self.horizon_us());
        self.facts.clear();
        self.release_finished();
        // Checked between steps, so a run stopped by its budget is as consistent as any.
        if self.budget_reached().is_some() {
            return None;
        }
        if let Some(iv) = self.scenario.interventions.get(self.next_intervention) {
            if iv.after_step <= self.steps {
                let fault = iv.command.clone();
                // Replay at the recorded instant, never past a pending event or the end.
                let ceiling = self.events.peek_time().unwrap_or(Micros::MAX).min(limit_us);
                let at = iv.at_us.min(ceiling).max(self.now_us);
                self.next_intervention += 1;
                self.advance_clock(at);
                self.apply_command(&fault, Trigger::User);
                self.discard_dead_events();
                return Some(self.finish_step());
            }
        }
        while self.facts.is_empty() {
            let (at, event) = self.events.pop_due(limit_us)?;
            self.advance_clock(at);
            self.handle(event);
            self.discard_dead_events();
        }
        Some(self.finish_step())
    }

    /// Drops moot timers at the head of the queue (a lease already acked, work of a
    /// crashed process), so the next pending event is always one that matters and the
    /// clock never moves for nothing.
    fn discard_dead_events(&mut self) {
        while let Some((source, event)) = self.events.peek_with_source() {
            if self.is_live(&event) {
                return;
            }
            self.events.pop_source(source);
        }
    }

    fn finish_step(&mut self) -> Step<'_> {
        self.steps += 1;
        Step {
            index: self.steps,
            time_us: self.now_us,
            facts: &self.facts,
        }
    }

    /// Runs every step due at or before `t_us`, then moves the clock to `t_us` (sampling
    /// the quiet time in between). Returns the number of steps taken.
    pub fn run_until(&mut self, t_us: Micros) -> u64 {
        let t_us = t_us.min(self.horizon_us());
        let start = self.steps;
        while self.step_within(t_us).is_some() {}
        // A run stopped by its budget keeps the clock where its last step left it.
        if t_us > self.now_us && self.budget_reached().is_none() {
            self.advance_clock(t_us);
        }
        self.steps - start
    }

    /// Runs to the end: until no event is left, or `end_s`.
    pub fn run(&mut self) {
        while self.step().is_some() {}
        if let Some(end) = self.end_us.filter(|_| self.budget_reached().is_none()) {
            if end > self.now_us {
                self.advance_clock(end);
            }
        }
        self.flush_samples();
    }

    /// The last instant a step may happen at: the scenario's end time, and never past
    /// [`TIME_LIMIT_US`]. Whatever is due later, the run never shows (the narration
    /// says so rather than name the time).
    pub fn horizon_us(&self) -> Micros {
        self.end_us.unwrap_or(Micros::MAX).min(TIME_LIMIT_US)
    }

    /// When the next step would happen, if any.
    pub fn next_step_time(&self) -> Option<Micros> {
        if self.budget_reached().is_some() {
            return None;
        }
        if self
            .scenario
            .interventions
            .get(self.next_intervention)
            .is_some_and(|iv| iv.after_step <= self.steps)
        {
            return Some(self.now_us);
        }
        self.events
            .peek_time()
            .filter(|&at| at <= self.horizon_us())
    }

    pub fn is_finished(&self) -> bool {
        self.next_step_time().is_none()
    }

    /// Why the run ended, or `None` while it has steps left. Running out of work comes
    /// first: a run whose last step also reached a limit ended because it was done.
    pub fn end_reason(&self) -> Option<EndReason> {
        let intervention_due = self
            .scenario
            .interventions
            .get(self.next_intervention)
            .is_some_and(|iv| iv.after_step <= self.steps);
        match self.events.peek_time() {
            _ if intervention_due => self.budget_reached(),
            None if self.work_left() => Some(EndReason::Stalled),
            None => Some(EndReason::Drained),
            Some(at) if self.end_us.is_some_and(|end| at > end) => Some(EndReason::EndTime),
            Some(at) if at > TIME_LIMIT_US => Some(EndReason::TimeLimit),
            Some(_) => self.budget_reached(),
        }
    }

    /// The budget this run honours.
    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// The first limit of the work budget this run has reached, if any: `steps_max` steps
    /// taken, or more messages, copies or records than allowed (the step that went past
    /// is the run's last, so a run never holds more than one step's worth beyond).
    fn budget_reached(&self) -> Option<EndReason> {
        let b = &self.budget;
        if self.steps >= b.steps_max {
            Some(EndReason::StepBudget)
        } else if self.messages.len() as u64 > b.messages_max {
            Some(EndReason::MessagesBudget)
        } else if self.copies.len() as u64 > b.copies_max || self.held_weight() > b.held_max {
            Some(EndReason::CopiesBudget)
        } else if self.counters.appended > b.log_records_max {
            Some(EndReason::LogRecordsBudget)
        } else {
            None
        }
    }

    /// Copies held, for the held budget: one in a consumer's hands (delivered, kept whole,
    /// with its lease and work timers) costs about eight times what a waiting copy packed
    /// in a long line does, so it counts eight times. Without this, a few hundred
    /// consumers with huge prefetch and concurrency could hold millions of deliveries,
    /// far beyond the memory the budget means to allow. The consumers' holdings are as
    /// the last sweep counted them (a sweep walks them anyway; counting them at every
    /// step would cost a walk of every consumer per step).
    fn held_weight(&self) -> u64 {
        let in_hand = self.sweep_work.holdings() as u64;
        self.held_total + (limits::IN_HAND_WEIGHT - 1) * in_hand
    }

    /// Whether [`Simulation::command`] would take `fault` now (the checks it makes before
    /// applying anything), so a caller giving one command to two runs can check both first.
    pub fn check_command(&self, fault: &Command) -> Result<(), ScenarioError> {
        self.scenario.validate_command("command", fault)?;
        if let Command::SetPartitions {
            ref log,
            partitions,
        } = *fault
        {
            let now = self
                .scenario
                .log_index(log)
                .map_or(0, |l| self.logs[l].partitions.len());
            if partitions as usize <= now {
                return Err(ScenarioError {
                    field: "command.partitions".into(),
                    problem: format!("a log only grows: it has {now} partitions, give more"),
                });
            }
        }
        if let Command::CrashMember { group, member, .. } = *fault {
            let there = self.groups[group.index()].members.len();
            if member as usize >= there {
                return Err(ScenarioError {
                    field: "command.member".into(),
                    problem: format!("there is no member {member} (there are {there})"),
                });
            }
        }
        if let Some(c) = fault.consumer() {
            if c.index() >= self.consumers.len() {
                return Err(ScenarioError {
                    field: "command.consumer".into(),
                    problem: format!(
                        "there is no consumer {c} (there are {})",
                        self.consumers.len()
                    ),
                });
            }
        }
        if let Some(reason) = self.end_reason().filter(|r| r.is_budget()) {
            return Err(ScenarioError {
                field: "command".into(),
                problem: format!("the run has ended ({})", reason.describe()),
            });
        }
        Ok(())
    }

    /// Applies a user command now and records it in the scenario, so a replay of
    /// [`Simulation::scenario`] reproduces this run exactly. Returns the step it made.
    pub fn command(&mut self, fault: Command) -> Result<Step<'_>, ScenarioError> {
        self.check_command(&fault)?;
        // Recorded commands already due run first, in their recorded order.
        while self
            .scenario
            .interventions
            .get(self.next_intervention)
            .is_some_and(|iv| iv.after_step <= self.steps)
        {
            if self.step().is_none() {
                break; // the budget ran out on the way
            }
        }
        // A command given after stepping back starts a new timeline: the recorded future goes.
        self.scenario.interventions.truncate(self.next_intervention);
        if self.scenario.interventions.len() >= crate::scenario::limits::INTERVENTIONS_MAX {
            return Err(ScenarioError {
                field: "interventions".into(),
                problem: "too many commands in one run; reset to start again".into(),
            });
        }
        let intervention = Intervention {
            after_step: self.steps,
            at_us: self.now_us,
            command: fault,
        };
        // The whole run must stay within the scenario limits and the work estimate (new
        // arrivals, joins, injected poison, seeks back all count), so that the recorded
        // run, replayed from its start (step back, a share link), validates the same.
        // This run is message by message: a command may not make it an aggregated one.
        let mut probe = self.scenario.clone();
        probe.interventions.push(intervention.clone());
        probe.mode = crate::scenario::RunMode::Messages;
        probe.validate()?;
        self.scenario.interventions.push(intervention);
        // A recorded command due just before may have spent the last of the budget.
        self.step().ok_or_else(|| ScenarioError {
            field: "command".into(),
            problem: "the run has ended: it reached its work budget".into(),
        })
    }

    /// Moves the clock forward, integrating time averages and emitting due samples.
    fn advance_clock(&mut self, to_us: Micros) {
        debug_assert!(to_us >= self.now_us, "time never goes back");
        while let Some(ts) = self.series.due_before(to_us) {
            self.take_sample(ts, ts.max(self.now_us));
        }
        let dt = u128::from(to_us - self.now_us);
        self.backlog_area += dt * u128::from(self.waiting_total);
        self.busy_area += dt * u128::from(self.busy_slots);
        self.capacity_area += dt * u128::from(self.live_slots);
        self.now_us = to_us;
    }

    fn flush_samples(&mut self) {
        while let Some(ts) = self.series.due_before(self.now_us.saturating_add(1)) {
            self.take_sample(ts, self.now_us);
        }
    }

    /// Records the sample due at `ts`, of the state as it is (ages measured at `age_at`).
    fn take_sample(&mut self, ts: Micros, age_at: Micros) {
        let sample = Sample {
            t_s: us_to_secs(ts),
            ..self.sample_at(age_at)
        };
        let mut queues = std::mem::take(&mut self.queue_sample_buf);
        queues.clear();
        queues.extend((0..self.queues.len()).map(|q| {
            let queue = &self.queues[q];
            QueueSample {
                waiting: queue.line.len() as u64,
                in_flight: queue.in_flight,
                retry_waiting: queue.retry_waiting,
                dead_lettered: queue.dlq.len() as u64,
                oldest_age_s: us_to_secs(self.queue_oldest_age_us(QueueId::from_index(q), age_at)),
            }
        }));
        let groups: Vec<GroupSample> = self
            .group_ids()
            .map(|g| GroupSample {
                lag: self.group_partitions(g).iter().map(|p| p.lag).sum(),
                members_up: self.group_members(g).0,
            })
            .collect();
        let flow = FlowSample::next(
            self.series.flow_samples().last(),
            self.counters.done,
            self.handler_attempts,
            us_to_secs(self.series.every_us()),
        );
        let deps: Vec<_> = (0..self.deps.len())
            .map(|d| self.dependency_sample(d, age_at))
            .collect();
        self.series.push_flow(flow, &deps);
        self.series.push(sample, &queues, &groups);
        self.queue_sample_buf = queues;
    }

    fn sample_at(&self, t_us: Micros) -> Sample {
        Sample {
            t_s: us_to_secs(t_us),
            backlog: self.waiting_total,
            oldest_age_s: us_to_secs(self.oldest_age_us_at(t_us)),
            in_flight: self.in_flight(),
            retry_waiting: self.queues.iter().map(|q| q.retry_waiting).sum(),
            dead_lettered: self.queues.iter().map(|q| q.dlq.len() as u64).sum(),
            lag: self
                .group_ids()
                .flat_map(|g| self.group_partitions(g))
                .map(|p| p.lag)
                .sum(),
            published: self.counters.published + self.counters.appended,
            delivered: self.counters.delivered,
            redelivered: self.counters.redelivered,
            acked: self.counters.acked,
            lost: self.counters.lost,
            duplicate_effects: self.counters.duplicate_effects,
        }
    }

    // ----- rules ---------------------------------------------------------------------

    /// Whether an event still means something when its time comes.
    fn is_live(&self, event: &Event) -> bool {
        match *event {
            Event::LeaseExpired { .. } | Event::RetryDue { .. } | Event::TtlExpired { .. } => {
                self.copy_event_is_live(event)
            }
            Event::Arrival { .. }
            | Event::ConfirmArrives { .. }
            | Event::ConfirmTimeout { .. }
            | Event::RelayPoll { .. }
            | Event::RestartProducer { .. } => self.producer_event_is_live(event),
            Event::ServiceDone {
                consumer,
                incarnation,
                ..
            } => self.consumers[consumer.index()].incarnation == incarnation,
            Event::RestartConsumer {
                consumer,
                incarnation,
            } => {
                let c = &self.consumers[consumer.index()];
                !c.up && c.incarnation == incarnation
            }
            Event::RestartBroker { incarnation } => {
                !self.broker_up && self.broker_incarnation == incarnation
            }
            Event::RecordDone { .. }
            | Event::RebalanceDone { .. }
            | Event::RestartMember { .. } => self.group_event_is_live(event),
            Event::RetentionDue { log, at } => self.logs[log as usize].retention_due_us == Some(at),
            Event::AutoCommit { .. }
            | Event::PublishArrives { .. }
            | Event::RedriveTick { .. }
            | Event::ScheduledCommand { .. }
            | Event::DependencyServed { .. } => true,
            Event::CallTimeout { request } => self.call_timeout_is_live(request),
        }
    }

    /// A copy's lease, retry or time to live: live while the copy is still in the state
    /// (and attempt) the event was scheduled for.
    /// A released copy was finished: none of its timers means anything any more.
    fn copy_event_is_live(&self, event: &Event) -> bool {
        match *event {
            Event::LeaseExpired { copy, attempt } => {
                self.copies.get(copy as usize).is_some_and(|c| {
                    c.fate == Fate::InFlight && c.attempts == attempt && !c.settled_at_broker
                })
            }
            Event::RetryDue { copy, attempt } => self
                .copies
                .get(copy as usize)
                .is_some_and(|c| c.fate == Fate::RetryWaiting && c.attempts == attempt),
            Event::TtlExpired { copy, line_seq } => self
                .copies
                .get(copy as usize)
                .is_some_and(|c| c.fate == Fate::Waiting && c.line_seq == line_seq),
            _ => unreachable!("is_live sends only copy events here"),
        }
    }

    /// A producer's arrivals, confirms, relay and restart: live while the producer is the
    /// same incarnation (and the message still waits for that confirm).
    fn producer_event_is_live(&self, event: &Event) -> bool {
        match *event {
            Event::Arrival { producer, epoch } => {
                self.producers[producer.index()].clock.epoch == epoch
            }
            Event::ConfirmArrives {
                producer,
                incarnation,
                ..
            } => self.producers[producer.index()].incarnation == incarnation,
            Event::ConfirmTimeout {
                producer,
                msg,
                attempt,
                incarnation,
            } => {
                let m = &self.messages[msg.index()];
                self.producers[producer.index()].incarnation == incarnation
                    && !m.confirmed()
                    && !m.held_back()
                    && m.publish_attempts == attempt
                    && m.nacked_attempt != attempt
                    && !m.gave_up_on_nack()
                    && matches!(m.fate, PublishFate::Pending | PublishFate::Stored)
            }
            Event::RelayPoll {
                producer,
                incarnation,
            } => {
                let p = &self.producers[producer.index()];
                p.up && p.incarnation == incarnation
            }
            Event::RestartProducer {
                producer,
                incarnation,
            } => {
                let p = &self.producers[producer.index()];
                !p.up && p.incarnation == incarnation
            }
            _ => unreachable!("is_live sends only producer events here"),
        }
    }

    /// A group member's record, restart, or the group's rebalance round.
    fn group_event_is_live(&self, event: &Event) -> bool {
        match *event {
            Event::RecordDone {
                group,
                member,
                incarnation,
                ..
            } => self.groups[group.index()].members[member as usize].incarnation == incarnation,
            Event::RebalanceDone { group, generation } => {
                let g = &self.groups[group.index()];
                g.rebalancing && g.round == generation
            }
            Event::RestartMember {
                group,
                member,
                incarnation,
            } => {
                let m = &self.groups[group.index()].members[member as usize];
                !m.up && m.incarnation == incarnation
            }
            _ => unreachable!("is_live sends only group events here"),
        }
    }

    fn handle(&mut self, event: Event) {
        match event {
            Event::Arrival { producer, .. } => self.arrival(producer),
            Event::PublishArrives {
                producer,
                msg,
                attempt,
            } => self.publish_arrives(producer, msg, attempt),
            Event::ConfirmArrives {
                producer,
                msg,
                attempt,
                ..
            } => self.confirm_arrives(producer, msg, attempt),
            Event::ConfirmTimeout {
                producer,
                msg,
                attempt,
                ..
            } => self.confirm_timeout(producer, msg, attempt),
            Event::RelayPoll { producer, .. } => self.relay_poll(producer),
            Event::ServiceDone {
                consumer, batch, ..
            } => self.service_done(consumer, batch),
            Event::LeaseExpired { copy, attempt } => self.expire_lease(copy, attempt),
            Event::RetryDue { copy, .. } => self.retry_due(copy),
            Event::TtlExpired { copy, .. } => self.expire_ttl(copy),
            Event::RedriveTick { queue } => self.redrive_tick(queue),
            Event::ScheduledCommand { index } => {
                let scheduled = &self.scenario.commands[index as usize];
                let trigger = if scheduled.unannounced {
                    Trigger::Unannounced
                } else {
                    Trigger::Scheduled
                };
                let fault = scheduled.command.clone();
                self.apply_command(&fault, trigger);
            }
            Event::RestartConsumer { consumer, .. } => {
                self.restart_consumer(consumer, Trigger::AfterCrash)
            }
            Event::RestartProducer { producer, .. } => {
                self.restart_producer(producer, Trigger::AfterCrash)
            }
            Event::RestartBroker { .. } => self.restart_broker(Trigger::AfterCrash),
            Event::RecordDone {
                group,
                member,
                partition,
                offset,
                ..
            } => self.record_done(group, member, partition, offset),
            Event::RebalanceDone { group, .. } => self.rebalance_done(group),
            Event::AutoCommit { group } => self.auto_commit(group),
            Event::RetentionDue { log, .. } => {
                self.logs[log as usize].retention_due_us = None;
                self.log_changed(log as usize);
            }
            Event::RestartMember { group, member, .. } => {
                self.restart_member(group, member, Trigger::AfterCrash)
            }
            Event::DependencyServed {
                dependency,
                request,
                msg,
                sent_us,
            } => self.request_served(dependency, request, msg, sent_us),
            Event::CallTimeout { request } => self.call_timed_out(request),
        }
    }

    /// One more application of `msg`'s effect in table set `table`, counted; returns how
    /// many times it has now been applied there (more than 1: a duplicate effect).
    fn count_effect(&mut self, table: usize, msg: MsgId) -> u32 {
        let n = self.tables[table].record_applied(msg);
        self.counters.effects_applied += 1;
        if n > 1 {
            self.counters.duplicate_effects += 1;
        }
        n
    }

    /// Where message `msg`'s job stands, from its publish fate and its copies' fates.
    pub fn job_status(&self, msg: MsgId) -> crate::message::JobStatus {
        self.job_status_of(msg, &self.messages[msg.index()])
    }

    /// Where message `msg`'s job stands, given its record `m`.
    fn job_status_of(&self, msg: MsgId, m: &Message) -> crate::message::JobStatus {
        job_status_from(m, || self.log_reads.get(&msg).copied().unwrap_or(0))
    }

    /// Changes message `msg`'s record with `change` (its publish fate, its copies' tally),
    /// keeping the job counts in step. One lookup of the record for the whole move: fates
    /// change several times per message, on the hot path.
    fn change_job(&mut self, msg: MsgId, change: impl FnOnce(&mut Message)) {
        let reads = &self.log_reads;
        let owed = || reads.get(&msg).copied().unwrap_or(0);
        let m = &mut self.messages[msg.index()];
        let before = job_status_from(m, owed);
        change(m);
        let after = job_status_from(m, owed);
        if after != before {
            let jobs = &mut self.jobs[m.producer.index()];
            *jobs.slot(before) -= 1;
            *jobs.slot(after) += 1;
        }
    }

    /// Moves `msg`'s job from status `before` to its status now.
    fn job_moved(&mut self, msg: MsgId, before: crate::message::JobStatus) {
        let after = self.job_status(msg);
        if after != before {
            let jobs = &mut self.jobs[self.messages[msg.index()].producer.index()];
            *jobs.slot(before) -= 1;
            *jobs.slot(after) += 1;
        }
    }

    /// Sets a message's publish fate, keeping the job counts in step.
    fn set_publish_fate(&mut self, msg: MsgId, fate: PublishFate) {
        self.change_job(msg, |m| m.fate = fate);
    }

    // ----- reading -------------------------------------------------------------------

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }
    pub fn now_us(&self) -> Micros {
        self.now_us
    }
    pub fn steps(&self) -> u64 {
        self.steps
    }
    /// Facts of the latest step.
    pub fn last_facts(&self) -> &[Fact] {
        &self.facts
    }
    pub fn counters(&self) -> &Counters {
        &self.counters
    }
    /// Whether copies or log records still wait for someone (asked once nothing is
    /// scheduled: then nobody will take them).
    fn work_left(&self) -> bool {
        self.backlog() > 0
            || self.in_flight() > 0
            || self.retry_waiting() > 0
            || (0..self.groups.len()).any(|g| {
                self.group_partitions(GroupId::from_index(g))
                    .iter()
                    .any(|p| p.lag > 0)
            })
    }

    /// Copies waiting in all queues.
    pub fn backlog(&self) -> u64 {
        self.waiting_total
    }
    /// Copies delivered and not settled, in all queues.
    pub fn in_flight(&self) -> u64 {
        self.queues.iter().map(|q| q.in_flight).sum()
    }
    /// Copies held back until their retry delay has passed, in all queues.
    pub fn retry_waiting(&self) -> u64 {
        self.queues.iter().map(|q| q.retry_waiting).sum()
    }
    pub fn broker_up(&self) -> bool {
        self.broker_up
    }
    /// Age of the oldest message still waiting, over everything the backlog counts:
    /// copies waiting in queues and records log groups have not committed.
    pub fn oldest_age_us(&self) -> Micros {
        self.oldest_age_us_at(self.now_us)
    }
    fn oldest_age_us_at(&self, t_us: Micros) -> Micros {
        let queues = self.queue_ids().map(|q| self.queue_oldest_age_us(q, t_us));
        let groups = self.group_ids().map(|g| self.group_oldest_age_us(g, t_us));
        queues.chain(groups).max().unwrap_or(0)
    }
    /// Age of the oldest record group `g` has not committed: per partition, the record at
    /// its committed offset, while retention keeps it. Measured from its append, as a
    /// queue's copy is from when it entered the line. One look per partition, so it is
    /// cheap enough for every sample.
    fn group_oldest_age_us(&self, g: GroupId, t_us: Micros) -> Micros {
        let group = &self.groups[g.index()];
        self.logs[group.log]
            .partitions
            .iter()
            .zip(&group.committed)
            .filter_map(|(part, &committed)| part.get(committed))
            .map(|r| t_us.saturating_sub(r.appended_us))
            .max()
            .unwrap_or(0)
    }
    fn queue_oldest_age_us(&self, queue: QueueId, t_us: Micros) -> Micros {
        self.queues[queue.index()].line.front().map_or(0, |&c| {
            t_us.saturating_sub(self.copies[c as usize].enqueued_us)
        })
    }
    pub fn series(&self) -> &[Sample] {
        self.series.samples()
    }
    /// A queue's own time series, in step with [`Simulation::series`].
    pub fn queue_series(&self, q: QueueId) -> &[QueueSample] {
        self.series.queue_samples(q.index())
    }
    /// A log group's own time series (lag, members up), in step with the main series.
    pub fn group_series(&self, g: GroupId) -> &[GroupSample] {
        self.series.group_samples(g.index())
    }
    /// Messages by id: `len()` is how many were created; the finished ones older than
    /// the recent window are released (`get` gives `None`).
    pub fn messages(&self) -> &Records<Message> {
        &self.messages
    }
    pub fn message(&self, id: MsgId) -> Option<&Message> {
        self.messages.get(id.index())
    }
    /// The routing key message `id` carries (empty without one), unless it was released.
    pub fn routing_key(&self, id: MsgId) -> Option<&str> {
        let m = self.messages.get(id.index())?;
        Some(self.routing_keys.name(m.routing_key))
    }
    /// Copies by id: `len()` is how many were stored; the finished ones older than the
    /// recent window are released (`get` gives `None`).
    pub fn copies(&self) -> &Records<MessageCopy> {
        &self.copies
    }
    pub fn copy(&self, id: CopyId) -> Option<&MessageCopy> {
        self.copies.get(id as usize)
    }
    /// How many times the effect of message `msg` was applied by the consumers of `queue`.
    pub fn effect_count_in(&self, queue: QueueId, msg: MsgId) -> u32 {
        self.tables.get(queue.index()).map_or(0, |t| t.applied(msg))
    }
    /// How many times the effect of message `msg` was applied, over all consumer groups.
    pub fn effect_count(&self, msg: MsgId) -> u32 {
        self.tables.iter().map(|t| t.applied(msg)).sum()
    }
    pub fn tables(&self, queue: QueueId) -> Option<&GroupTables> {
        self.tables.get(queue.index())
    }
    pub fn queue_count(&self) -> u32 {
        self.queues.len() as u32
    }
    /// Every queue's id, in the scenario's order.
    pub fn queue_ids(&self) -> impl Iterator<Item = QueueId> {
        (0..self.queues.len()).map(QueueId::from_index)
    }
    /// The queue named `name`: the scenario names queues, the run numbers them.
    pub(crate) fn queue_named(&self, name: &str) -> Option<QueueId> {
        self.scenario.queue_index(name).map(QueueId::from_index)
    }
    pub fn queue(&self, id: QueueId) -> Option<QueueView> {
        let q = self.queues.get(id.index())?;
        Some(QueueView {
            name: q.name.clone(),
            waiting: q.line.len() as u64,
            in_flight: q.in_flight,
            retry_waiting: q.retry_waiting,
            dead_lettered: q.dlq.len() as u64,
            oldest_age_us: self.queue_oldest_age_us(id, self.now_us),
            max_length: q.max_length,
            consumers: q.consumers.clone(),
            redriving: q.redrive_per_s.is_some() && q.redrive_left > 0,
            flavour: q.flavour,
        })
    }
    /// Waiting copies of a queue, in line order.
    pub fn waiting(&self, queue: QueueId) -> impl Iterator<Item = CopyId> + '_ {
        self.queues
            .get(queue.index())
            .into_iter()
            .flat_map(|q| q.line.iter().copied())
    }
    pub fn dead_letters(
        &self,
        queue: QueueId,
    ) -> impl Iterator<Item = &crate::message::DeadLetter> + '_ {
        self.queues
            .get(queue.index())
            .into_iter()
            .flat_map(|q| q.dlq.iter())
    }
    pub fn consumer_count(&self) -> u32 {
        self.consumers.len() as u32
    }
    /// Every consumer's id, in the order they were numbered (replicas expanded).
    pub fn consumer_ids(&self) -> impl Iterator<Item = ConsumerId> {
        (0..self.consumers.len()).map(ConsumerId::from_index)
    }
    pub fn consumer(&self, id: ConsumerId) -> Option<ConsumerView> {
        self.consumers.get(id.index()).map(|c| ConsumerView {
            name: c.name.clone(),
            queue: c.queue,
            up: c.up,
            busy: c.working.len() as u32,
            buffered: c.buffer.len() as u32,
            concurrency: c.concurrency,
            prefetch: c.prefetch,
            ack: c.ack,
            idempotency: c.idempotency,
            ordering: c.ordering,
            armed: c.armed.filter(|a| a.trigger.told()).map(|a| a.point),
            drop_next_ack: c.drop_next_ack.is_some_and(Trigger::told),
            slow_factor: c.slow_factor,
            restart_at_us: c.restart_at_us,
            retiring: c.retiring && !c.stopped,
            stopped: c.stopped,
            service_mean_s: c.service.mean_s(),
            working: c.working.iter().map(|h| (h.copy, h.attempt)).collect(),
        })
    }
    pub fn producer_count(&self) -> u32 {
        self.producers.len() as u32
    }
    /// Every producer's id, in the scenario's order.
    pub fn producer_ids(&self) -> impl Iterator<Item = ProducerId> {
        (0..self.producers.len()).map(ProducerId::from_index)
    }
    pub fn producer_name(&self, id: ProducerId) -> Option<&str> {
        self.producers.get(id.index()).map(|p| p.name.as_str())
    }
    pub fn producer_up(&self, id: u32) -> Option<bool> {
        self.producers.get(id as usize).map(|p| p.up)
    }
    /// Unsent outbox rows of a producer.
    pub fn outbox_len(&self, id: ProducerId) -> usize {
        self.producers.get(id.index()).map_or(0, |p| p.outbox.len())
    }
    pub(crate) fn logs_raw(&self) -> &[Log] {
        &self.logs
    }
    pub(crate) fn groups_raw(&self) -> &[Group] {
        &self.groups
    }
    pub(crate) fn all_tables(&self) -> &[GroupTables] {
        &self.tables
    }
    pub fn log_name(&self, l: u32) -> String {
        self.logs
            .get(l as usize)
            .map_or_else(|| format!("log {l}"), |x| x.name.clone())
    }
    pub fn group_name(&self, g: GroupId) -> String {
        self.groups
            .get(g.index())
            .map_or_else(|| format!("group {g}"), |x| x.name.clone())
    }
    pub fn member_name(&self, g: GroupId, m: u32) -> String {
        self.groups
            .get(g.index())
            .and_then(|x| x.members.get(m as usize))
            .map_or_else(|| format!("member {m}"), |x| x.name.clone())
    }
    pub fn log_count(&self) -> u32 {
        self.logs.len() as u32
    }
    /// How many partitions log `l` has now (0 if there is no such log).
    pub fn log_partition_count(&self, l: u32) -> u32 {
        self.logs
            .get(l as usize)
            .map_or(0, |log| log.partitions.len() as u32)
    }
    pub fn group_count(&self) -> u32 {
        self.groups.len() as u32
    }
    /// Every consumer group's id, in the scenario's order.
    pub fn group_ids(&self) -> impl Iterator<Item = GroupId> {
        (0..self.groups.len()).map(GroupId::from_index)
    }
    /// A group's view of its log's partitions: offsets, owner, lag.
    pub fn group_partitions(&self, g: GroupId) -> Vec<PartitionView> {
        let Some(group) = self.groups.get(g.index()) else {
            return Vec::new();
        };
        self.logs[group.log]
            .partitions
            .iter()
            .enumerate()
            .map(|(p, part)| PartitionView {
                start: part.start,
                end: part.end(),
                committed: group.committed[p],
                position: group.position[p],
                owner: group.owner[p],
                lag: part.end().saturating_sub(group.committed[p]),
                retrying: group
                    .members
                    .iter()
                    .filter_map(|m| m.working)
                    .find(|w| w.partition as usize == p && w.attempt > 1)
                    .filter(|w| w.generation == group.generation)
                    .map(|w| w.attempt),
                revoking: group.revoking[p],
            })
            .collect()
    }
    /// The database tables of consumer group `g` of a log.
    pub fn group_tables(&self, g: GroupId) -> Option<&GroupTables> {
        self.tables.get(self.queues.len() + g.index())
    }
    /// Members of a group that are up, and in all.
    pub fn group_members(&self, g: GroupId) -> (u32, u32) {
        self.groups.get(g.index()).map_or((0, 0), |group| {
            (
                group.members.iter().filter(|m| m.up).count() as u32,
                group.members.len() as u32,
            )
        })
    }
    pub(crate) fn consumers_raw(&self) -> &[Consumer] {
        &self.consumers
    }
    pub(crate) fn queues_raw(&self) -> &[Queue] {
        &self.queues
    }
    pub(crate) fn producers_raw(&self) -> &[Producer] {
        &self.producers
    }
    pub(crate) fn waiting_total(&self) -> u64 {
        self.waiting_total
    }
    pub fn pending_events(&self) -> usize {
        self.events.len()
    }

    /// The run's headline numbers so far.
    pub fn summary(&self) -> Summary {
        let elapsed_s = us_to_secs(self.now_us);
        let per_time = |area: u128| {
            if self.now_us == 0 {
                0.0
            } else {
                area as f64 / self.now_us as f64
            }
        };
        Summary {
            end_s: elapsed_s,
            counters: self.counters.clone(),
            backlog_end: self.backlog(),
            in_flight_end: self.in_flight(),
            retry_waiting_end: self.queues.iter().map(|q| q.retry_waiting).sum(),
            dead_lettered_end: self.queues.iter().map(|q| q.dlq.len() as u64).sum(),
            pending_at_producers_end: self
                .messages
                .iter()
                .filter(|m| m.fate == PublishFate::Pending)
                .count() as u64,
            mean_queue_wait_s: if self.queue_wait_count == 0 {
                0.0
            } else {
                self.queue_wait_sum_us as f64 / self.queue_wait_count as f64 / 1e6
            },
            queue_wait_p50_s: self.queue_waits.percentile_s(50.0),
            queue_wait_p95_s: self.queue_waits.percentile_s(95.0),
            queue_wait_p99_s: self.queue_waits.percentile_s(99.0),
            mean_queue_len: per_time(self.backlog_area),
            utilization: if self.capacity_area == 0 {
                0.0
            } else {
                self.busy_area as f64 / self.capacity_area as f64
            },
            throughput_per_s: per_second(self.counters.done, elapsed_s),
            record_throughput_per_s: per_second(self.counters.records_processed, elapsed_s),
            latency_mean_s: self.latencies.mean_s(),
            latency_p50_s: self.latencies.percentile_s(50.0),
            latency_p95_s: self.latencies.percentile_s(95.0),
            latency_p99_s: self.latencies.percentile_s(99.0),
            record_latency_p50_s: self.record_latencies.percentile_s(50.0),
            record_latency_p95_s: self.record_latencies.percentile_s(95.0),
            record_latency_p99_s: self.record_latencies.percentile_s(99.0),
        }
    }
}

/// A count over the run's simulated seconds (0 for a run that took no time).
fn per_second(count: u64, elapsed_s: f64) -> f64 {
    if elapsed_s > 0.0 {
        count as f64 / elapsed_s
    } else {
        0.0
    }
}

/// The producers' own random streams, when the scenario asks for them.
fn producer_streams(scenario: &Scenario) -> Vec<SimRng> {
    match scenario.random_streams {
        crate::scenario::RandomStreams::Shared => Vec::new(),
        crate::scenario::RandomStreams::PerProducer => (0..scenario.producers.len() as u64)
            .map(|p| SimRng::stream(scenario.seed, p))
            .collect(),
    }
}

/// The generator producer `p` draws from: its own stream if it has one, else the run's.
/// (Takes the fields, not `self`, so callers may hold a producer at the same time.)
fn producer_rng<'a>(
    rng: &'a mut SimRng,
    streams: &'a mut [SimRng],
    p: ProducerId,
) -> &'a mut SimRng {
    match streams.get_mut(p.index()) {
        Some(own) => own,
        None => rng,
    }
}

/// Every consumer replica of the scenario, each listed in its queue's consumers.
fn build_consumers(scenario: &Scenario, queues: &mut [Queue]) -> Vec<Consumer> {
    let mut consumers = Vec::new();
    for spec in &scenario.consumers {
        let queue = QueueId::from_index(scenario.queue_of(spec));
        let before = consumers.len();
        for r in 0..spec.replicas {
            let name = crate::names::replica(&spec.name, spec.replicas, r, before);
            queues[queue.index()]
                .consumers
                .push(ConsumerId::from_index(consumers.len()));
            let mut consumer = Consumer::new(spec, name, queue);
            consumer.dependency = scenario.dependency_index(&spec.calls).map(|d| d as u32);
            consumers.push(consumer);
        }
    }
    consumers
}

/// Every producer, with where it publishes: a queue, a log or an exchange (by default the
/// first queue, or the first log when there are no queues).
fn build_producers(scenario: &Scenario) -> Vec<Producer> {
    scenario
        .producers
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            let target = if spec.target.is_empty() {
                if scenario.queues.is_empty() {
                    Target::Log(0)
                } else {
                    Target::Queue(QueueId::new(0))
                }
            } else if let Some(q) = scenario.queue_index(&spec.target) {
                Target::Queue(QueueId::from_index(q))
            } else if let Some(l) = scenario.log_index(&spec.target) {
                Target::Log(l)
            } else {
                let x = scenario
                    .exchanges
                    .iter()
                    .position(|x| x.name == spec.target);
                Target::Exchange(x.expect("validated: the target exists"))
            };
            let name = crate::names::producer(&spec.name, i);
            Producer::new(spec, name, target)
        })
        .collect()
}

/// Every consumer group, its partitions already assigned.
fn build_groups(scenario: &Scenario, logs: &[Log]) -> Vec<Group> {
    scenario
        .groups
        .iter()
        .map(|spec| {
            let l = scenario.log_index(&spec.log).expect("validated");
            let partitions = logs[l].partitions.len();
            let output = (!spec.output.is_empty())
                .then(|| scenario.log_index(&spec.output).expect("validated"));
            let dead_letter = (!spec.dead_letter.is_empty())
                .then(|| scenario.log_index(&spec.dead_letter).expect("validated"));
            let mut g = Group::new(spec, l, partitions, output, dead_letter);
            // The group starts with its partitions already assigned.
            g.owner = g.assign(partitions as u32);
            g
        })
        .collect()
}

/// Hashes every step of a whole run (index, time and facts) with a platform-independent
/// hasher: equal fingerprints mean identical runs.
pub fn fingerprint(scenario: &Scenario) -> Result<u64, ScenarioError> {
    let mut sim = Simulation::new(scenario.clone())?;
    let mut h = StableHasher::default();
    while let Some(step) = sim.step() {
        step.index.hash(&mut h);
        step.time_us.hash(&mut h);
        step.facts.hash(&mut h);
    }
    Ok(h.finish())
}

/// Where a message's job stands, from its publish fate and its copies' tally, as a queue
/// copy's fate counts: running while any copy may still be delivered, then failed if any
/// was lost (dead-lettered, expired, dropped), completed when all were done. Log records
/// count the same way, one read per record and group reading its log: `owed_reads` (the
/// reads not yet settled) is asked only for a message with no queue copy.
fn job_status_from(m: &Message, owed_reads: impl Fn() -> u32) -> crate::message::JobStatus {
    use crate::message::JobStatus;
    match m.fate {
        PublishFate::Pending => JobStatus::Pending,
        PublishFate::Refused
        | PublishFate::Unroutable
        | PublishFate::GaveUp
        | PublishFate::NeverPublished => JobStatus::Failed,
        PublishFate::Stored => match m.copy_tally {
            [a, ..] if a > 0 => JobStatus::Running,
            // Nacked (refused by one of its queues) and given up: failed, like a refusal,
            // once the copies another queue stored are finished.
            _ if m.gave_up_on_nack() => JobStatus::Failed,
            [_, f, _] if f > 0 => JobStatus::Failed,
            [_, _, d] if d > 0 => JobStatus::Completed,
            // Only log records: running while a group may still read one of them; then
            // failed if some group never will (expired unread, skipped, dead-lettered),
            // completed once every group reading them finished them.
            _ if owed_reads() > 0 => JobStatus::Running,
            _ if m.log_lost() => JobStatus::Failed,
            _ if m.log_read() => JobStatus::Completed,
            // Records that no group reads: nothing is done with them.
            _ => JobStatus::Running,
        },
    }
}
