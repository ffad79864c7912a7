//! The simulation: producers → broker (queues, exchanges, dead-letter queues) →
//! consumers → database. Each rule is one event handler in the submodules below, and
//! each handler records what happened as [`Fact`]s:
//!
//! * `publishing` — producers, outbox relays, the publish/confirm hop, routing, storage;
//! * `delivery` — waiting lines, dispatch, leases, TTL, retries, dead-lettering, redrive;
//! * `processing` — consumer handlers: failures, ordering, idempotency, effects, acks;
//! * `faults` — crashes, restarts and other deliberate faults;
//! * `logs`, `rebalance`, `log_jobs`, `log_failures`, `poll_interval`, `txn_timeout` —
//!   partitioned logs and their groups;
//! * `dependency` and its siblings — a downstream service's capacity, timeouts, breaker.
//!
//! This file holds the run itself: its state, the step loop and the event dispatch.
//! Around it: `build` (a run from its scenario), `liveness` (which pending timers are
//! moot), `samples` (the time series), `release` (forgetting finished messages),
//! `settings` (commands that change a setting), `inspect` and `views` (what the page and
//! the runner read, nothing changed).

mod backoff;
mod breaker;
mod build;
mod control_records;
pub mod current;
mod delivery;
mod dependency;
mod dependency_settings;
mod dependency_views;
mod faults;
mod inspect;
mod liveness;
mod log_failures;
mod log_jobs;
mod logs;
mod poll_interval;
mod processing;
mod producer_buffer;
mod publishing;
mod rebalance;
mod release;
mod samples;
mod sequences;
mod settings;
mod txn_timeout;
mod views;

pub use crate::end_reason::EndReason;
pub use views::{MemberView, ProducerView};

use build::{build_consumers, build_groups, build_producers, producer_rng, producer_streams};

use std::hash::{Hash, Hasher};

use crate::consumer::Consumer;
use crate::database::GroupTables;
use crate::engine::{Event, EventQueue};
use crate::hash::StableHasher;
use crate::log::{Group, Log};
use crate::message::{Message, MessageCopy, PublishFate};
use crate::metrics::{Counters, Latencies, QueueSample, Series};
use crate::producer::Producer;
use crate::queue::Queue;
use crate::records::Records;
use crate::rng::SimRng;
use crate::scenario::{limits, Budget, Command, Intervention, Scenario, ScenarioError};
use crate::step::{Fact, MsgId, ProducerId, QueueId, Step, Trigger};
use crate::time::{secs_to_us, Micros};

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
    /// Facts told by every step so far: the work budget bounds them too (a step that
    /// closes a channel holding thousands of deliveries tells thousands).
    facts_told: u64,
    /// Facts of the latest step, and its instant.
    facts: Vec<Fact>,
    last_step_us: Micros,
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
    /// Per message: the groups whose read of its record was settled as lost (its job
    /// failed), so that one owed again (`Simulation::undo_reset_skips`) is a read that
    /// group really lost, and the message stays lost while another group's is.
    lost_reads: std::collections::HashMap<MsgId, Vec<crate::step::GroupId>, crate::hash::IdHash>,
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
    /// Records in log producers' buffers while the broker is down: held too, for the
    /// same budget (a long outage with a long delivery timeout keeps them all).
    buffered_total: u64,
    /// Copies whose retry delay ran out while the broker was down, oldest first: the
    /// broker moves them back to their lines when it is back (`retry_due`).
    retries_due_while_down: Vec<crate::step::CopyId>,
    busy_slots: u64,
    live_slots: u64,

    /// Dependencies the handlers call, the calls whose callers still wait (by request
    /// id), the next request id, and handler attempts started (retries included).
    deps: Vec<crate::dependency::Dependency>,
    calls: std::collections::BTreeMap<u64, dependency::Call>,
    next_request: u64,
    handler_attempts: u64,
}

/// Facts a step tells on average, within the step budget: a run may tell this many
/// times `steps_max` facts in all (at 10–20 million facts a second natively, about as
/// long as the step budget's work). Ordinary steps tell one to five (a publish stored
/// and delivered at once tells five; a fanout's publish five per queue, its acks two),
/// so a run of such steps reaches the step limit first; a step that closes a channel
/// holding thousands of deliveries tells thousands.
pub const FACTS_PER_STEP: u64 = 8;

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
                    "this scenario runs in aggregated mode ({}), which has no steps to trace or \
                     compare one by one: `brokerlab run FILE` gives its report",
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
            facts_told: 0,
            facts: Vec::with_capacity(16),
            last_step_us: 0,
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
            lost_reads: Default::default(),
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
            buffered_total: 0,
            retries_due_while_down: Vec::new(),
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
            self.timer_dropped(&event);
        }
    }

    fn finish_step(&mut self) -> Step<'_> {
        self.steps += 1;
        self.facts_told = (self.facts_told).saturating_add(self.facts.len() as u64);
        self.last_step_us = self.now_us;
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
    /// taken (or [`FACTS_PER_STEP`] times as many facts told: a step's work follows the
    /// facts it tells, and one step can tell thousands), or more messages, copies or
    /// records than allowed (the step that went past is the run's last, so a run never
    /// holds more than one step's worth beyond).
    fn budget_reached(&self) -> Option<EndReason> {
        let b = &self.budget;
        if self.steps >= b.steps_max
            || self.facts_told >= b.steps_max.saturating_mul(FACTS_PER_STEP)
        {
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
        self.held_total + self.buffered_total + (limits::IN_HAND_WEIGHT - 1) * in_hand
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

    // ----- rules ---------------------------------------------------------------------

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
            Event::BufferExpiry { producer, .. } => self.buffer_expiry(producer),
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
            Event::SessionTimeout { group, member, .. } => self.session_timed_out(group, member),
            Event::PollIntervalExceeded { group, member, .. } => self.poll_timer_due(group, member),
            Event::TransactionTimeout { group, member, .. } => {
                self.transaction_timed_out(group, member)
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
