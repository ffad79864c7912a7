//! The simulation: a durable work queue between producers and competing consumers, with a
//! database that records every applied effect. Each rule below is one event handler; each
//! handler records what happened as [`Fact`]s.

use std::collections::VecDeque;
use std::hash::{Hash, Hasher};

use crate::consumer::{ArmedCrash, Consumer, ConsumerView};
use crate::engine::{Event, EventQueue};
use crate::hash::StableHasher;
use crate::message::{Fate, Message};
use crate::metrics::{Counters, Latencies, Sample, Series, Summary};
use crate::producer::Producer;
use crate::rng::SimRng;
use crate::scenario::{
    AckMode, CrashPoint, Fault, Intervention, Scenario, ScenarioError, ServiceTime,
};
use crate::step::{Attempt, ConsumerId, Fact, IgnoredAck, LossReason, MsgId, Step, Trigger};
use crate::time::{secs_to_us, us_to_secs, Micros};

const LEASE_LANE: usize = 0;

pub struct Simulation {
    scenario: Scenario,
    rng: SimRng,
    events: EventQueue,
    now_us: Micros,
    /// Steps taken so far (a step is one event that changed something, or one command).
    steps: u64,
    /// Facts of the latest step.
    facts: Vec<Fact>,
    next_intervention: usize,
    end_us: Option<Micros>,
    lease_us: Micros,

    producers: Vec<Producer>,
    /// Waiting messages, always sorted by id (= publish order), so the front is the oldest.
    queue: VecDeque<MsgId>,
    messages: Vec<Message>,
    consumers: Vec<Consumer>,
    /// Next consumer to offer a message to (round robin).
    next_consumer: usize,
    /// The database's effects table: how many times each message's effect was applied.
    effects: Vec<u32>,

    counters: Counters,
    in_flight: u64,
    series: Series,
    latencies: Latencies,
    queue_wait_sum_us: u128,
    queue_wait_count: u64,
    /// Time integrals since the start: waiting messages, busy slots, slots of live consumers.
    backlog_area: u128,
    busy_area: u128,
    capacity_area: u128,
    busy_slots: u64,
    live_slots: u64,
}

impl Simulation {
    /// Builds a run from a scenario after validating it.
    pub fn new(scenario: Scenario) -> Result<Self, ScenarioError> {
        scenario.validate()?;
        let mut consumers = Vec::new();
        for spec in &scenario.consumers {
            for r in 0..spec.replicas {
                // Replicas are numbered: "C" gives C1, C2…; "worker" gives worker-1, worker-2…
                let name = match (spec.name.as_str(), spec.replicas) {
                    ("", _) => format!("C{}", consumers.len() + 1),
                    (base, 1) => base.to_string(),
                    (base, _) if base.chars().count() <= 2 => format!("{base}{}", r + 1),
                    (base, _) => format!("{base}-{}", r + 1),
                };
                consumers.push(Consumer::new(spec, name));
            }
        }
        let live_slots = consumers.iter().map(|c| u64::from(c.concurrency)).sum();
        let mut sim = Self {
            rng: SimRng::new(scenario.seed),
            events: EventQueue::default(),
            now_us: 0,
            steps: 0,
            facts: Vec::with_capacity(16),
            next_intervention: 0,
            end_us: scenario.end_s.map(secs_to_us),
            lease_us: secs_to_us(scenario.queue.visibility_timeout_s).max(1),
            producers: scenario.producers.iter().map(Producer::new).collect(),
            queue: VecDeque::new(),
            messages: Vec::new(),
            consumers,
            next_consumer: 0,
            effects: Vec::new(),
            counters: Counters::default(),
            in_flight: 0,
            series: Series::new(scenario.sample_every_us()),
            latencies: Latencies::default(),
            queue_wait_sum_us: 0,
            queue_wait_count: 0,
            backlog_area: 0,
            busy_area: 0,
            capacity_area: 0,
            busy_slots: 0,
            live_slots,
            scenario,
        };
        for p in 0..sim.producers.len() {
            sim.schedule_next_arrival(p as u32);
        }
        for (i, f) in sim.scenario.faults.iter().enumerate() {
            sim.events.schedule(
                secs_to_us(f.at_s),
                Event::ScheduledFault { index: i as u32 },
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
        let limit_us = self.end_us.map_or(limit_us, |end| limit_us.min(end));
        self.facts.clear();
        if let Some(iv) = self.scenario.interventions.get(self.next_intervention) {
            if iv.after_step <= self.steps {
                let fault = iv.fault.clone();
                // Replay at the recorded instant, never past a pending event or the end.
                let ceiling = self.events.peek_time().unwrap_or(Micros::MAX).min(limit_us);
                let at = iv.at_us.min(ceiling).max(self.now_us);
                self.next_intervention += 1;
                self.advance_clock(at);
                self.apply_fault(&fault, Trigger::User);
                self.discard_dead_events();
                return Some(self.finish_step());
            }
        }
        while self.facts.is_empty() {
            if self.events.peek_time()? > limit_us {
                return None;
            }
            let (at, event) = self.events.pop()?;
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
        while let Some((_, event)) = self.events.peek() {
            if self.is_live(&event) {
                return;
            }
            self.events.pop();
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
        let t_us = self.end_us.map_or(t_us, |end| t_us.min(end));
        let start = self.steps;
        while self.step_within(t_us).is_some() {}
        if t_us > self.now_us {
            self.advance_clock(t_us);
        }
        self.steps - start
    }

    /// Runs to the end: until no event is left, or `end_s`.
    pub fn run(&mut self) {
        while self.step().is_some() {}
        if let Some(end) = self.end_us {
            if end > self.now_us {
                self.advance_clock(end);
            }
        }
        self.flush_samples();
    }

    /// When the next step would happen, if any.
    pub fn next_step_time(&self) -> Option<Micros> {
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
            .filter(|&at| self.end_us.is_none_or(|end| at <= end))
    }

    pub fn is_finished(&self) -> bool {
        self.next_step_time().is_none()
    }

    /// Applies a user command now and records it in the scenario, so a replay of
    /// [`Simulation::scenario`] reproduces this run exactly. Returns the step it made.
    pub fn command(&mut self, fault: Fault) -> Result<Step<'_>, ScenarioError> {
        self.scenario.validate_fault("command", &fault)?;
        // Recorded commands already due run first, in their recorded order.
        while self
            .scenario
            .interventions
            .get(self.next_intervention)
            .is_some_and(|iv| iv.after_step <= self.steps)
        {
            self.step();
        }
        // A command given after stepping back starts a new timeline: the recorded future goes.
        self.scenario.interventions.truncate(self.next_intervention);
        if self.scenario.interventions.len() >= crate::scenario::limits::INTERVENTIONS_MAX {
            return Err(ScenarioError {
                field: "interventions".into(),
                problem: "too many commands in one run; reset to start again".into(),
            });
        }
        self.scenario.interventions.push(Intervention {
            after_step: self.steps,
            at_us: self.now_us,
            fault,
        });
        Ok(self.step().expect("a due command always makes a step"))
    }

    /// Moves the clock forward, integrating time averages and emitting due samples.
    fn advance_clock(&mut self, to_us: Micros) {
        debug_assert!(to_us >= self.now_us, "time never goes back");
        while let Some(ts) = self.series.due_before(to_us) {
            let sample = self.sample_at(ts.max(self.now_us));
            self.series.push(Sample {
                t_s: us_to_secs(ts),
                ..sample
            });
        }
        let dt = u128::from(to_us - self.now_us);
        self.backlog_area += dt * self.queue.len() as u128;
        self.busy_area += dt * u128::from(self.busy_slots);
        self.capacity_area += dt * u128::from(self.live_slots);
        self.now_us = to_us;
    }

    fn flush_samples(&mut self) {
        while let Some(ts) = self.series.due_before(self.now_us + 1) {
            let sample = self.sample_at(self.now_us);
            self.series.push(Sample {
                t_s: us_to_secs(ts),
                ..sample
            });
        }
    }

    fn sample_at(&self, t_us: Micros) -> Sample {
        Sample {
            t_s: us_to_secs(t_us),
            backlog: self.queue.len() as u64,
            oldest_age_s: us_to_secs(self.oldest_age_us_at(t_us)),
            in_flight: self.in_flight,
        }
    }

    // ----- rules ---------------------------------------------------------------------

    /// Whether an event still means something when its time comes.
    fn is_live(&self, event: &Event) -> bool {
        match *event {
            Event::ServiceDone {
                consumer,
                incarnation,
                ..
            } => self.consumers[consumer as usize].incarnation == incarnation,
            Event::LeaseExpired { msg, attempt } => {
                let m = &self.messages[msg as usize];
                m.fate == Fate::InFlight && m.attempts == attempt && !m.settled_at_broker
            }
            Event::Restart {
                consumer,
                incarnation,
            } => {
                let c = &self.consumers[consumer as usize];
                !c.up && c.incarnation == incarnation
            }
            Event::Arrival { .. } | Event::ScheduledFault { .. } => true,
        }
    }

    fn handle(&mut self, event: Event) {
        match event {
            Event::Arrival { producer } => self.publish(producer),
            Event::ServiceDone {
                consumer,
                msg,
                attempt,
                ..
            } => self.finish_work(consumer, msg, attempt),
            Event::LeaseExpired { msg, attempt } => self.expire_lease(msg, attempt),
            Event::ScheduledFault { index } => {
                let fault = self.scenario.faults[index as usize].fault.clone();
                self.apply_fault(&fault, Trigger::Scheduled);
            }
            Event::Restart { consumer, .. } => self.restart(consumer, Trigger::Scheduled),
        }
    }

    fn schedule_next_arrival(&mut self, producer: u32) {
        if let Some(at) = self.producers[producer as usize].next_arrival(&mut self.rng) {
            self.events.schedule(at, Event::Arrival { producer });
        }
    }

    fn publish(&mut self, producer: u32) {
        let msg = self.messages.len() as MsgId;
        self.messages.push(Message {
            producer,
            published_us: self.now_us,
            fate: Fate::Waiting,
            attempts: 0,
            holder: None,
            settled_at_broker: false,
            first_delivered_us: None,
            done_us: None,
        });
        self.effects.push(0);
        self.queue.push_back(msg);
        self.counters.published += 1;
        self.producers[producer as usize].published += 1;
        self.facts.push(Fact::Published { producer, msg });
        self.schedule_next_arrival(producer);
        self.dispatch();
    }

    /// Hands waiting messages to consumers with room, round robin, oldest first.
    fn dispatch(&mut self) {
        while !self.queue.is_empty() {
            let Some(consumer) = self.pick_consumer() else {
                return;
            };
            let msg = self.queue.pop_front().expect("queue is not empty");
            self.deliver(msg, consumer);
        }
    }

    fn pick_consumer(&mut self) -> Option<ConsumerId> {
        let n = self.consumers.len();
        for i in 0..n {
            let idx = (self.next_consumer + i) % n;
            if self.consumers[idx].can_take() {
                self.next_consumer = (idx + 1) % n;
                return Some(idx as ConsumerId);
            }
        }
        None
    }

    fn deliver(&mut self, msg: MsgId, consumer: ConsumerId) {
        let now = self.now_us;
        let ack = self.consumers[consumer as usize].ack;
        let m = &mut self.messages[msg as usize];
        debug_assert_eq!(m.fate, Fate::Waiting);
        m.fate = Fate::InFlight;
        m.attempts += 1;
        m.holder = Some(consumer);
        let attempt = m.attempts;
        if m.first_delivered_us.is_none() {
            m.first_delivered_us = Some(now);
            self.queue_wait_sum_us += u128::from(now - m.published_us);
            self.queue_wait_count += 1;
        }
        self.in_flight += 1;
        self.counters.delivered += 1;
        if attempt > 1 {
            self.counters.redelivered += 1;
        }
        match ack {
            AckMode::AfterCommit => {
                let until = now + self.lease_us;
                // All leases have the same length, so their expiries come in order: a FIFO lane.
                self.events.schedule_in_lane(
                    LEASE_LANE,
                    until,
                    Event::LeaseExpired { msg, attempt },
                );
                self.facts.push(Fact::Delivered {
                    msg,
                    attempt,
                    consumer,
                    lease_until_us: Some(until),
                });
            }
            AckMode::OnDelivery => {
                m.settled_at_broker = true;
                self.facts.push(Fact::Delivered {
                    msg,
                    attempt,
                    consumer,
                    lease_until_us: None,
                });
                self.facts.push(Fact::AckedOnDelivery {
                    msg,
                    attempt,
                    consumer,
                });
            }
        }
        let c = &mut self.consumers[consumer as usize];
        c.buffer.push_back((msg, attempt));
        if c.armed.is_some_and(|a| a.point == CrashPoint::AfterReceive) {
            let armed = c.armed.take().expect("checked");
            self.crash(consumer, armed);
            return;
        }
        self.start_work(consumer);
    }

    /// Fills the consumer's free slots from its buffer.
    fn start_work(&mut self, consumer: ConsumerId) {
        loop {
            let c = &mut self.consumers[consumer as usize];
            if !c.up || c.working.len() as u32 >= c.concurrency {
                return;
            }
            let Some((msg, attempt)) = c.buffer.pop_front() else {
                return;
            };
            c.working.push((msg, attempt));
            let service = c.service;
            let incarnation = c.incarnation;
            let took_us = match service {
                ServiceTime::Fixed { seconds } => secs_to_us(seconds),
                ServiceTime::Exponential { mean_s } => secs_to_us(self.rng.exponential(mean_s)),
            };
            let done_at_us = self.now_us + took_us;
            self.busy_slots += 1;
            self.events.schedule(
                done_at_us,
                Event::ServiceDone {
                    consumer,
                    incarnation,
                    msg,
                    attempt,
                },
            );
            self.facts.push(Fact::ProcessingStarted {
                msg,
                attempt,
                consumer,
                done_at_us,
            });
        }
    }

    /// The consumer's handler finished: the effect commits, then (after commit) the ack.
    fn finish_work(&mut self, consumer: ConsumerId, msg: MsgId, attempt: Attempt) {
        let c = &mut self.consumers[consumer as usize];
        if let Some(pos) = c.working.iter().position(|&w| w == (msg, attempt)) {
            c.working.swap_remove(pos);
        }
        self.busy_slots -= 1;
        let applied = {
            let e = &mut self.effects[msg as usize];
            *e += 1;
            *e
        };
        self.counters.effects_applied += 1;
        if applied > 1 {
            self.counters.duplicate_effects += 1;
        }
        self.facts.push(Fact::EffectCommitted {
            msg,
            attempt,
            consumer,
            applied,
        });
        match self.consumers[consumer as usize].ack {
            AckMode::OnDelivery => {
                if self.messages[msg as usize].fate == Fate::InFlight {
                    self.settle_done(msg);
                }
            }
            AckMode::AfterCommit => {
                let c = &mut self.consumers[consumer as usize];
                if c.armed
                    .is_some_and(|a| a.point == CrashPoint::AfterCommitBeforeAck)
                {
                    let armed = c.armed.take().expect("checked");
                    self.crash(consumer, armed);
                    return;
                }
                self.receive_ack(consumer, msg, attempt);
            }
        }
        self.start_work(consumer);
        self.dispatch();
    }

    fn receive_ack(&mut self, consumer: ConsumerId, msg: MsgId, attempt: Attempt) {
        let m = &self.messages[msg as usize];
        let why = match m.fate {
            Fate::InFlight if m.attempts == attempt => {
                self.counters.acked += 1;
                self.settle_done(msg);
                self.facts.push(Fact::Acked {
                    msg,
                    attempt,
                    consumer,
                });
                return;
            }
            Fate::Done => IgnoredAck::AlreadyDone,
            _ => IgnoredAck::StaleLease,
        };
        self.counters.acks_ignored += 1;
        self.facts.push(Fact::AckIgnored {
            msg,
            attempt,
            consumer,
            why,
        });
    }

    fn settle_done(&mut self, msg: MsgId) {
        let now = self.now_us;
        let m = &mut self.messages[msg as usize];
        m.fate = Fate::Done;
        m.done_us = Some(now);
        self.in_flight -= 1;
        self.counters.done += 1;
        self.latencies.record(now - m.published_us);
    }

    fn expire_lease(&mut self, msg: MsgId, attempt: Attempt) {
        let m = &mut self.messages[msg as usize];
        debug_assert!(m.fate == Fate::InFlight && m.attempts == attempt);
        m.fate = Fate::Waiting;
        let consumer = m.holder.expect("an in-flight message has a holder");
        self.in_flight -= 1;
        self.counters.leases_expired += 1;
        // Back in publish order, so the queue stays sorted and its front is the oldest.
        let pos = self.queue.partition_point(|&id| id < msg);
        self.queue.insert(pos, msg);
        self.facts.push(Fact::LeaseExpired {
            msg,
            attempt,
            consumer,
        });
        self.dispatch();
    }

    // ----- faults --------------------------------------------------------------------

    fn apply_fault(&mut self, fault: &Fault, trigger: Trigger) {
        match *fault {
            Fault::CrashConsumer {
                consumer,
                point,
                restart_after_s,
            } => {
                let armed = ArmedCrash {
                    point,
                    restart_after_us: restart_after_s.map(secs_to_us),
                    trigger,
                };
                let c = &mut self.consumers[consumer as usize];
                if !c.up {
                    return;
                }
                if point == CrashPoint::Now {
                    self.crash(consumer, armed);
                } else {
                    c.armed = Some(armed);
                    self.facts.push(Fact::CrashArmed {
                        consumer,
                        point,
                        trigger,
                    });
                }
            }
            Fault::RestartConsumer { consumer } => {
                if !self.consumers[consumer as usize].up {
                    self.restart(consumer, trigger);
                }
            }
        }
    }

    /// The process dies: whatever it held in memory is gone. Messages the broker still
    /// leases will come back when their lease runs out; messages acked on delivery are lost.
    fn crash(&mut self, consumer: ConsumerId, armed: ArmedCrash) {
        let now = self.now_us;
        let c = &mut self.consumers[consumer as usize];
        c.up = false;
        c.incarnation += 1;
        c.armed = None;
        let working = c.working.len() as u64;
        let held: Vec<(MsgId, Attempt)> = c.working.drain(..).chain(c.buffer.drain(..)).collect();
        let restart_at_us = armed.restart_after_us.map(|d| now + d);
        c.restart_at_us = restart_at_us;
        let concurrency = u64::from(c.concurrency);
        self.live_slots -= concurrency;
        self.busy_slots -= working;
        self.counters.crashes += 1;
        self.facts.push(Fact::ConsumerCrashed {
            consumer,
            point: armed.point,
            trigger: armed.trigger,
            restart_at_us,
        });
        for (msg, attempt) in held {
            let m = &mut self.messages[msg as usize];
            if m.settled_at_broker && m.fate == Fate::InFlight && m.attempts == attempt {
                m.fate = Fate::Lost;
                self.in_flight -= 1;
                self.counters.lost += 1;
                self.facts.push(Fact::MessageLost {
                    msg,
                    attempt,
                    consumer,
                    reason: LossReason::AckedBeforeEffectThenCrashed,
                });
            }
        }
        if let Some(at) = restart_at_us {
            let incarnation = self.consumers[consumer as usize].incarnation;
            self.events.schedule(
                at,
                Event::Restart {
                    consumer,
                    incarnation,
                },
            );
        }
    }

    fn restart(&mut self, consumer: ConsumerId, trigger: Trigger) {
        let c = &mut self.consumers[consumer as usize];
        c.up = true;
        c.restart_at_us = None;
        self.live_slots += u64::from(c.concurrency);
        self.counters.restarts += 1;
        self.facts
            .push(Fact::ConsumerRestarted { consumer, trigger });
        self.dispatch();
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
    pub fn counters(&self) -> &Counters {
        &self.counters
    }
    /// Messages waiting in the queue.
    pub fn backlog(&self) -> u64 {
        self.queue.len() as u64
    }
    pub fn in_flight(&self) -> u64 {
        self.in_flight
    }
    /// Waiting message ids, oldest first.
    pub fn waiting(&self) -> impl Iterator<Item = MsgId> + '_ {
        self.queue.iter().copied()
    }
    pub fn oldest_age_us(&self) -> Micros {
        self.oldest_age_us_at(self.now_us)
    }
    fn oldest_age_us_at(&self, t_us: Micros) -> Micros {
        self.queue.front().map_or(0, |&id| {
            t_us.saturating_sub(self.messages[id as usize].published_us)
        })
    }
    pub fn series(&self) -> &[Sample] {
        self.series.samples()
    }
    pub fn message(&self, id: MsgId) -> Option<&Message> {
        self.messages.get(id as usize)
    }
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }
    /// How many times the effect of message `id` was applied.
    pub fn effect_count(&self, id: MsgId) -> u32 {
        self.effects.get(id as usize).copied().unwrap_or(0)
    }
    pub fn effects(&self) -> &[u32] {
        &self.effects
    }
    pub fn consumer_count(&self) -> u32 {
        self.consumers.len() as u32
    }
    pub fn consumer(&self, id: ConsumerId) -> Option<ConsumerView> {
        self.consumers.get(id as usize).map(|c| ConsumerView {
            name: c.name.clone(),
            up: c.up,
            busy: c.working.len() as u32,
            buffered: c.buffer.len() as u32,
            concurrency: c.concurrency,
            prefetch: c.prefetch,
            ack: c.ack,
            armed: c.armed.map(|a| a.point),
            restart_at_us: c.restart_at_us,
            working: c.working.clone(),
        })
    }
    pub(crate) fn consumers_raw(&self) -> &[Consumer] {
        &self.consumers
    }
    pub(crate) fn queue_raw(&self) -> &VecDeque<MsgId> {
        &self.queue
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
            published: self.counters.published,
            delivered: self.counters.delivered,
            redelivered: self.counters.redelivered,
            acked: self.counters.acked,
            lost: self.counters.lost,
            done: self.counters.done,
            effects_applied: self.counters.effects_applied,
            duplicate_effects: self.counters.duplicate_effects,
            leases_expired: self.counters.leases_expired,
            crashes: self.counters.crashes,
            backlog_end: self.backlog(),
            in_flight_end: self.in_flight,
            mean_queue_wait_s: if self.queue_wait_count == 0 {
                0.0
            } else {
                us_to_secs(1) * (self.queue_wait_sum_us as f64 / self.queue_wait_count as f64)
            },
            mean_queue_len: per_time(self.backlog_area),
            utilization: if self.capacity_area == 0 {
                0.0
            } else {
                self.busy_area as f64 / self.capacity_area as f64
            },
            throughput_per_s: if elapsed_s > 0.0 {
                self.counters.done as f64 / elapsed_s
            } else {
                0.0
            },
            latency_mean_s: self.latencies.mean_s(),
            latency_p50_s: self.latencies.percentile_s(50.0),
            latency_p95_s: self.latencies.percentile_s(95.0),
            latency_p99_s: self.latencies.percentile_s(99.0),
        }
    }
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
