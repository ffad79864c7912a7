//! A catalogue of facts that reaches every branch of the narration: every fact variant,
//! every reason, crash point and setting it words differently, and the cases where the
//! sentence depends on the simulation (an outbox producer, a relay that mints ids, a
//! RabbitMQ queue, an eager group). The runs of the built-in examples reach only some
//! of these, so the narration tests narrate this list as well.

use brokerlab_core::scenario::{Handoff, Rebalance};
use brokerlab_core::step::{
    ArmedFaults, DeadLetterReason as Dl, DuplicateSeen, Failure, IgnoredAck, LossReason, Moot,
    RefusedBecause, SkipReason,
};
use brokerlab_core::{
    examples, AckMode, ArrivalProcess, ConsumerId, CrashPoint, Fact, Flavour, GroupId, Idempotency,
    MemberCrashPoint, MsgId, OffsetReset, Ordering, Overflow, Poison, ProducerCrashPoint,
    ProducerId, QueueId, Setting, Simulation, Trigger,
};

const P: ProducerId = ProducerId::new(0);
const Q: QueueId = QueueId::new(0);
const C: ConsumerId = ConsumerId::new(0);
const G: GroupId = GroupId::new(0);
const M: MsgId = MsgId::new(7);
/// No fault armed.
const NONE: ArmedFaults = ArmedFaults {
    crash: None,
    lost_ack: false,
};
const TRIGGERS: [Trigger; 4] = [
    Trigger::Scheduled,
    Trigger::User,
    Trigger::AfterCrash,
    Trigger::Unannounced,
];
const POISONS: [Poison; 3] = [
    Poison::MalformedPayload,
    Poison::UnknownSchemaVersion,
    Poison::UnauthorizedTenant,
];
const FAILURES: [Failure; 4] = [
    Failure::Transient,
    Failure::DependencyDown,
    Failure::Poison(Poison::UnknownSchemaVersion),
    Failure::BatchRolledBack,
];

/// The simulations the facts are narrated against, each chosen for what it changes in
/// the wording.
pub struct Contexts {
    /// A producer publishing directly to a generic queue with one consumer.
    pub queue: Simulation,
    /// The same with a RabbitMQ queue, run until its first copy is stored.
    pub rabbit: Simulation,
    /// A producer with an outbox whose relay keeps ids stable.
    pub outbox: Simulation,
    /// The same relay minting a new id per attempt.
    pub minted: Simulation,
    /// A log read by consumer groups (cooperative rebalancing).
    pub log: Simulation,
    /// The same groups rebalancing eagerly.
    pub eager: Simulation,
    /// Consumers calling a database (a dependency with a capacity).
    pub dep: Simulation,
}

fn example(name: &str) -> brokerlab_core::Scenario {
    examples::load(name).unwrap_or_else(|| panic!("example {name}"))
}

fn start(s: brokerlab_core::Scenario) -> Simulation {
    Simulation::new(s).expect("a valid scenario")
}

pub fn contexts() -> Contexts {
    let mut rabbit = example("crash-after-commit");
    rabbit.queues[0].flavour = Flavour::Rabbitmq;
    let mut rabbit = start(rabbit);
    while rabbit.copy(0).is_none() {
        rabbit.step().expect("the run stores a copy");
    }
    let mut minted = example("outbox-relay-crash");
    minted.producers[0].handoff = Handoff::Outbox {
        relay_poll_s: 0.2,
        stable_ids: false,
    };
    let mut eager = example("log-consumer-groups");
    for g in &mut eager.groups {
        g.rebalance = Rebalance::Eager;
    }
    Contexts {
        queue: start(example("crash-after-commit")),
        rabbit,
        outbox: start(example("outbox-relay-crash")),
        minted: start(minted),
        log: start(example("log-consumer-groups")),
        eager: start(eager),
        dep: start(example("dep-metastable")),
    }
}

/// Every fact of the catalogue with the simulation to narrate it against.
// The tables below are kept one fact per line (`rustfmt::skip`): a fact spread over
// seven lines would make the list hard to scan for a missing case.
pub fn catalogue(c: &Contexts) -> Vec<(&Simulation, Fact)> {
    let mut all = Vec::new();
    all.extend(publishing(c));
    all.extend(broker(c));
    all.extend(delivery(c));
    all.extend(processing(c));
    all.extend(operations(c));
    all.extend(crashes(c));
    all.extend(records(c));
    all.extend(groups(c));
    all.extend(dependencies(c));
    all.extend(after_the_end(c));
    all
}

/// Past every run's last instant: after any end time and the ten-year limit.
const AFTER_END: u64 = 400_000_000_000_000;

/// Facts announcing something due after the run ends: the sentence says it comes after
/// the run, never at a time the run does not reach.
#[rustfmt::skip]
fn after_the_end(c: &Contexts) -> Vec<(&Simulation, Fact)> {
    use Fact::*;
    let (q, o, l) = (&c.queue, &c.outbox, &c.log);
    let at = Some(AFTER_END);
    let mut out = vec![
        (o, OutboxRetryScheduled { producer: P, msg: M, attempt: 2, ready_at_us: AFTER_END }),
        (q, Delivered { msg: M, copy: 0, attempt: 1, consumer: C, lease_until_us: at }),
        (q, Delivered { msg: M, copy: 0, attempt: 2, consumer: C, lease_until_us: at }),
        (q, RetryScheduled { msg: M, copy: 0, failures: 2, ready_at_us: AFTER_END }),
        (q, LeaseExtended { msg: M, copy: 0, attempt: 1, consumer: C, lease_until_us: AFTER_END }),
        (q, ProcessingStarted { msg: M, copy: 0, attempt: 1, consumer: C, done_at_us: AFTER_END }),
        (q, GapRecheck { msg: M, copy: 0, consumer: C, ready_at_us: AFTER_END, gives_up_at_us: AFTER_END }),
        (q, BrokerCrashed { trigger: Trigger::User, restart_at_us: at }),
        (q, ProducerCrashed { producer: P, point: ProducerCrashPoint::Now, trigger: Trigger::User, restart_at_us: at }),
        (q, ConsumerCrashed { consumer: C, point: CrashPoint::Now, trigger: Trigger::User, restart_at_us: at }),
        (l, RecordRetrying { group: G, member: 0, partition: 2, offset: 15, msg: M, attempt: 2, retry_at_us: AFTER_END }),
        (l, MemberCrashed { group: G, member: 1, point: MemberCrashPoint::Now, trigger: Trigger::User, restart_at_us: at, session_ends_at_us: None }),
        (l, MemberCrashed { group: G, member: 1, point: MemberCrashPoint::Now, trigger: Trigger::User, restart_at_us: None, session_ends_at_us: at }),
    ];
    let relay = ProducerCrashPoint::AfterPublishBeforeMark;
    out.push((o, ProducerCrashed { producer: P, point: relay, trigger: Trigger::User, restart_at_us: at }));
    out
}

/// Handlers calling a dependency, the callers' protections, and their settings.
#[rustfmt::skip]
fn dependencies(c: &Contexts) -> Vec<(&Simulation, Fact)> {
    use brokerlab_core::CallRefusal as R;
    use Fact::*;
    let d = &c.dep;
    let mut out = vec![
        (d, DependencyCalled { msg: M, copy: 0, consumer: C, dependency: 0, request: 12, ahead: 3 }),
        (d, DependencyAnswered { msg: M, consumer: C, dependency: 0, request: 12, took_us: 250_000 }),
        (d, CallTimedOut { msg: M, copy: 0, consumer: C, dependency: 0, request: 12 }),
        (d, WorkWasted { msg: M, dependency: 0, request: 12, late_by_us: 1_200_000 }),
        (d, RequestShed { msg: M, dependency: 0, request: 12, waited_us: 400_000 }),
        (d, RetryDenied { msg: M, copy: 0, consumer: C, dependency: 0, tokens_milli: 4_500 }),
        (d, BreakerOpened { dependency: 0, failures: 5, until_us: 12_000_000 }),
        (d, BreakerHalfOpen { dependency: 0 }),
        (d, BreakerClosed { dependency: 0 }),
        (d, DeadLettered { msg: M, copy: 0, queue: Q, reason: Dl::RetryBudgetExhausted, attempts: 2 }),
        (d, HandlerFailed { msg: M, copy: 0, attempt: 2, consumer: C, failure: Failure::DependencyTimeout }),
        (d, HandlerFailed { msg: M, copy: 0, attempt: 1, consumer: C, failure: Failure::TooOld }),
        (d, DeadLettered { msg: M, copy: 0, queue: Q, reason: Dl::TooOld, attempts: 1 }),
    ];
    for why in [R::LineFull, R::OldestTooOld, R::Outage, R::CircuitOpen] {
        out.push((d, CallRejected { msg: M, copy: 0, consumer: C, dependency: 0, why }));
        out.push((d, HandlerFailed { msg: M, copy: 0, attempt: 1, consumer: C, failure: Failure::CallRefused(why) }));
    }
    for (i, trigger) in TRIGGERS.into_iter().enumerate() {
        let factor_milli = [5_000, 2_500, 1_000, 4_000][i];
        out.push((d, DependencySlowed { dependency: 0, factor_milli, until_us: 13_000_000, trigger }));
    }
    let settings = [
        Setting::DependencyCapacity { dependency: 0, concurrency: 20, mean_us: 100_000, exponential: true },
        Setting::DependencyCapacity { dependency: 0, concurrency: 5, mean_us: 50_000, exponential: false },
        Setting::DependencyTimeout { dependency: 0, timeout_us: 750_000 },
        Setting::RetryBudget { dependency: 0, budget_milli: Some((10_000, 100)) },
        Setting::RetryBudget { dependency: 0, budget_milli: None },
        Setting::Breaker { dependency: 0, breaker: Some((5, 2_000_000)) },
        Setting::Breaker { dependency: 0, breaker: None },
        Setting::Admission { dependency: 0, max_age_us: Some(300_000) },
        Setting::Admission { dependency: 0, max_age_us: None },
    ];
    for (i, setting) in settings.into_iter().enumerate() {
        out.push((d, SettingChanged { setting, trigger: TRIGGERS[i % 3] }));
    }
    out
}

#[rustfmt::skip]
fn publishing(c: &Contexts) -> Vec<(&Simulation, Fact)> {
    use Fact::*;
    let q = &c.queue;
    let mut out = vec![
        (q, Created { producer: P, msg: M, key: None, version: 0, poison: None }),
        (q, Created { producer: P, msg: M, key: Some(42), version: 3, poison: None }),
        (&c.outbox, StateCommitted { producer: P, msg: M, outbox: true }),
        (q, StateCommitted { producer: P, msg: M, outbox: false }),
        (q, PublishSent { producer: P, msg: M, attempt: 1 }),
        (q, PublishSent { producer: P, msg: M, attempt: 2 }),
        (&c.minted, PublishSent { producer: P, msg: M, attempt: 3 }),
        (q, Throttled { producer: P, msg: M, queue: Q }),
        (q, Buffered { producer: P, msg: M, expires_at_us: 130_000_000 }),
        (q, BufferDropped { producer: P, msg: M, crashed: false }),
        (q, BufferDropped { producer: P, msg: M, crashed: true }),
        (q, ConfirmTimedOut { producer: P, msg: M, attempt: 1, retry: true }),
        (q, ConfirmTimedOut { producer: P, msg: M, attempt: 3, retry: false }),
        (q, Confirmed { producer: P, msg: M, attempt: 1 }),
        (q, ConfirmLost { producer: P, msg: M, attempt: 1 }),
        (&c.outbox, OutboxMarked { producer: P, msg: M }),
        (q, EventNeverPublished { producer: P, msg: M }),
        (q, RequestRefused { producer: P }),
        (&c.outbox, OutboxRetryScheduled { producer: P, msg: M, attempt: 2, ready_at_us: 2_500_000 }),
        (&c.outbox, OutboxRowParked { producer: P, msg: M, attempts: 5 }),
    ];
    for poison in POISONS {
        out.push((q, Created { producer: P, msg: M, key: Some(1), version: 1, poison: Some(poison) }));
    }
    out
}

#[rustfmt::skip]
fn broker(c: &Contexts) -> Vec<(&Simulation, Fact)> {
    use Fact::*;
    let q = &c.queue;
    vec![
        (q, Stored { producer: P, msg: M, copy: 0, queue: Q }),
        (q, Deduplicated { producer: P, msg: M }),
        (q, Refused { producer: P, msg: M, queue: Q, because: RefusedBecause::QueueFull, told: true }),
        (q, Refused { producer: P, msg: M, queue: Q, because: RefusedBecause::QueueFull, told: false }),
        (q, Refused { producer: P, msg: M, queue: Q, because: RefusedBecause::OldestTooOld, told: true }),
        (q, Unroutable { producer: P, msg: M, returned: true }),
        (q, Unroutable { producer: P, msg: M, returned: false }),
        (q, PublishFailed { producer: P, msg: M, attempt: 1 }),
        (q, DroppedOldest { msg: M, copy: 0, queue: Q }),
        (q, Expired { msg: M, copy: 0, queue: Q }),
        (q, DuplicateKept { msg: M, copy: 0, twin: 1, queue: Q }),
        (q, DedupWindowHit { producer: P, msg: M, queue: Q }),
        (q, Redriven { msg: M, copy: 0, queue: Q }),
        (q, DeadLettered { msg: M, copy: 0, queue: Q, reason: Dl::RetriesExhausted, attempts: 4 }),
        (q, DeadLettered { msg: M, copy: 0, queue: Q, reason: Dl::RetriesExhausted, attempts: 1 }),
        (q, DeadLettered { msg: M, copy: 0, queue: Q, reason: Dl::DeliveryLimitReached, attempts: 1 }),
        (q, DeadLettered { msg: M, copy: 0, queue: Q, reason: Dl::Poison(Poison::UnauthorizedTenant), attempts: 1 }),
        (q, DeadLettered { msg: M, copy: 0, queue: Q, reason: Dl::DeliveryLimitReached, attempts: 20 }),
        (q, DeadLettered { msg: M, copy: 0, queue: Q, reason: Dl::GapTimeout, attempts: 1 }),
        (q, DeadLettered { msg: M, copy: 0, queue: Q, reason: Dl::MaxLength, attempts: 0 }),
        (q, DeadLettered { msg: M, copy: 0, queue: Q, reason: Dl::Expired, attempts: 0 }),
        (q, MessageLost { msg: M, copy: 0, reason: LossReason::AckedBeforeEffectThenCrashed }),
        (q, MessageLost { msg: M, copy: 0, reason: LossReason::AckedBeforeEffectThenFailed }),
        (q, MessageLost { msg: M, copy: 0, reason: LossReason::BrokerRestartNotDurable }),
        (q, MessageLost { msg: M, copy: 0, reason: LossReason::DiscardedWithoutDeadLetterQueue }),
    ]
}

#[rustfmt::skip]
fn delivery(c: &Contexts) -> Vec<(&Simulation, Fact)> {
    use Fact::*;
    let (q, r) = (&c.queue, &c.rabbit);
    vec![
        (q, Delivered { msg: M, copy: 0, attempt: 1, consumer: C, lease_until_us: Some(5_250_000) }),
        (q, Delivered { msg: M, copy: 0, attempt: 1, consumer: C, lease_until_us: None }),
        (q, Delivered { msg: M, copy: 0, attempt: 2, consumer: C, lease_until_us: Some(11_000_000) }),
        (q, Delivered { msg: M, copy: 0, attempt: 3, consumer: C, lease_until_us: None }),
        (q, LeaseExpired { msg: M, copy: 0, attempt: 1, consumer: C }),
        (r, LeaseExpired { msg: M, copy: 0, attempt: 1, consumer: C }),
        (q, RetryReady { msg: M, copy: 0 }),
        (q, AckedOnDelivery { msg: M, copy: 0, attempt: 1, consumer: C }),
        (q, RetryScheduled { msg: M, copy: 0, failures: 2, ready_at_us: 1_500_000 }),
        (q, Acked { msg: M, copy: 0, attempt: 1, consumer: C, twin_held: false }),
        (q, Acked { msg: M, copy: 0, attempt: 1, consumer: C, twin_held: true }),
        (q, AckIgnored { msg: M, copy: 0, attempt: 1, consumer: C, why: IgnoredAck::StaleLease }),
        (q, AckIgnored { msg: M, copy: 0, attempt: 1, consumer: C, why: IgnoredAck::AlreadyDone }),
        (q, AckLost { msg: M, copy: 0, attempt: 1, consumer: C, broker_down: false }),
        (r, AckLost { msg: M, copy: 0, attempt: 1, consumer: C, broker_down: false }),
        (q, AckLost { msg: M, copy: 0, attempt: 1, consumer: C, broker_down: true }),
        (r, Requeued { msg: M, copy: 0, attempt: 2, consumer: C }),
        (q, LeaseExtended { msg: M, copy: 0, attempt: 1, consumer: C, lease_until_us: 9_000_000 }),
    ]
}

#[rustfmt::skip]
fn processing(c: &Contexts) -> Vec<(&Simulation, Fact)> {
    use Fact::*;
    let q = &c.queue;
    let mut out = vec![
        (q, ProcessingStarted { msg: M, copy: 0, attempt: 1, consumer: C, done_at_us: 1_250_000 }),
        (q, DuplicateSkipped { msg: M, copy: 0, attempt: 2, consumer: C, seen: DuplicateSeen::CheckFoundMark }),
        (q, DuplicateSkipped { msg: M, copy: 0, attempt: 2, consumer: C, seen: DuplicateSeen::InboxConflict }),
        (q, TakenForDuplicate { msg: M, copy: 0, attempt: 1, consumer: C, key: 42, first: MsgId::new(3) }),
        (q, UnauthorizedEffect { msg: M, copy: 0, attempt: 1, consumer: C, producer: P }),
        (q, PublishDenied { producer: P, msg: M, attempt: 1 }),
        (q, StaleIgnored { msg: M, copy: 0, consumer: C, key: 42, version: 2, current: 3 }),
        (q, GapWait { msg: M, copy: 0, consumer: C, key: 42, version: 4, current: 2 }),
        (q, GapReconciled { msg: M, copy: 0, consumer: C, key: 42, from: 3, to: 4 }),
        (q, GapRecheck { msg: M, copy: 0, consumer: C, ready_at_us: 3_000_000, gives_up_at_us: 8_000_000 }),
        (q, GapSkipped { msg: M, copy: 0, consumer: C, key: 42, version: 5, current: 3 }),
        (q, EffectCommitted { msg: M, copy: 0, attempt: 1, consumer: C, applied: 1 }),
        (q, EffectCommitted { msg: M, copy: 0, attempt: 2, consumer: C, applied: 2 }),
        (q, EffectRefused { msg: M, copy: 0, consumer: C, key: 42 }),
        (q, ConsumerEmailSent { msg: M, copy: 0, consumer: C, times: 1 }),
        (q, ConsumerEmailSent { msg: M, copy: 0, consumer: C, times: 3 }),
    ];
    for failure in FAILURES {
        out.push((q, HandlerFailed { msg: M, copy: 0, attempt: 2, consumer: C, failure }));
    }
    for poison in POISONS {
        out.push((q, FixDeployed { queue: Q, poison, trigger: Trigger::User }));
    }
    out
}

#[rustfmt::skip]
fn operations(c: &Contexts) -> Vec<(&Simulation, Fact)> {
    use Fact::*;
    let q = &c.queue;
    let mut out = Vec::new();
    for (i, setting) in settings().into_iter().enumerate() {
        let sim = if matches!(setting, Setting::GroupOrdering { .. } | Setting::Partitions { .. }) {
            &c.log
        } else {
            q
        };
        out.push((sim, SettingChanged { setting, trigger: TRIGGERS[i % 3] }));
    }
    for trigger in TRIGGERS {
        out.push((q, ConsumerAdded { consumer: C, queue: Q, trigger }));
        out.push((q, ConsumerStopping { consumer: C, trigger, called_off: NONE, still_armed: NONE }));
        out.push((q, DependencyDown { queue: Q, until_us: 30_000_000, trigger }));
        out.push((q, RedriveStarted { queue: Q, count: 67, milli_per_s: 10_000, broker_down: false, trigger }));
    }
    out.push((q, RedriveStarted { queue: Q, count: 1, milli_per_s: 2_500, broker_down: true, trigger: Trigger::User }));
    for point in [CrashPoint::AfterReceive, CrashPoint::AfterCommitBeforeAck] {
        let called_off = ArmedFaults { crash: Some(point), lost_ack: false };
        out.push((q, ConsumerStopping { consumer: C, trigger: Trigger::User, called_off, still_armed: NONE }));
    }
    // Scaling in calls off the faults a retiring consumer can no longer reach, keeps those
    // it can (it finishes and acks what it holds), and calls off the rest as it stops.
    let commit = Some(CrashPoint::AfterCommitBeforeAck);
    let lost_ack = ArmedFaults { crash: None, lost_ack: true };
    let both = ArmedFaults { crash: commit, lost_ack: true };
    let receive = ArmedFaults { crash: Some(CrashPoint::AfterReceive), lost_ack: false };
    for (called_off, still_armed) in [(lost_ack, NONE), (both, NONE), (NONE, lost_ack), (NONE, both), (receive, lost_ack)] {
        out.push((q, ConsumerStopping { consumer: C, trigger: Trigger::Scheduled, called_off, still_armed }));
    }
    for was_down in [false, true] {
        for called_off in [NONE, ArmedFaults { crash: commit, lost_ack: false }, lost_ack, both] {
            out.push((q, ConsumerStopped { consumer: C, was_down, called_off }));
        }
    }
    for ack in [AckMode::OnDelivery, AckMode::AfterCommit] {
        out.push((q, AckModeSwitched { consumer: C, ack }));
    }
    out
}

/// Every setting, with every value the narration words differently.
#[rustfmt::skip]
fn settings() -> Vec<Setting> {
    let mut out = vec![
        Setting::Arrivals { producer: P, process: ArrivalProcess::Constant, rate_milli_per_s: 2_500 },
        Setting::Arrivals { producer: P, process: ArrivalProcess::Poisson, rate_milli_per_s: 12_000 },
        Setting::Partitions { log: 0, partitions: 6 },
        Setting::ServiceTime { queue: Q, mean_us: 250_000, exponential: true },
        Setting::ServiceTime { queue: Q, mean_us: 1_500_000, exponential: false },
        Setting::Consumers { queue: Q, count: 4 },
        Setting::Prefetch { queue: Q, prefetch: 10 },
        Setting::Retry { queue: Q, max_attempts: 5, backoff_base_us: 500_000 },
        Setting::VisibilityTimeout { queue: Q, lease_us: 30_000_000 },
        Setting::QueueBound { queue: Q, max_length: None, overflow: Overflow::Reject },
    ];
    for ack in [AckMode::OnDelivery, AckMode::AfterCommit] {
        out.push(Setting::AckMode { queue: Q, ack });
    }
    for idempotency in [Idempotency::None, Idempotency::CheckThenInsert, Idempotency::Inbox] {
        out.push(Setting::Idempotency { queue: Q, idempotency });
    }
    for ordering in [Ordering::None, Ordering::IgnoreStale, Ordering::WaitForGap, Ordering::Reconcile] {
        out.push(Setting::Ordering { queue: Q, ordering });
        out.push(Setting::GroupOrdering { group: G, ordering });
    }
    for overflow in [Overflow::Reject, Overflow::DropOldest, Overflow::Throttle] {
        out.push(Setting::QueueBound { queue: Q, max_length: Some(1_000), overflow });
    }
    for flavour in [Flavour::Generic, Flavour::Rabbitmq, Flavour::Sqs, Flavour::SqsFifo] {
        out.push(Setting::Flavour { queue: Q, flavour });
    }
    out
}

#[rustfmt::skip]
fn crashes(c: &Contexts) -> Vec<(&Simulation, Fact)> {
    use Fact::*;
    let (q, o) = (&c.queue, &c.outbox);
    let mut out = vec![
        (q, BrokerCrashed { trigger: Trigger::User, restart_at_us: Some(4_000_000) }),
        (q, BrokerCrashed { trigger: Trigger::Scheduled, restart_at_us: None }),
        (q, BrokerRestarted { trigger: Trigger::AfterCrash }),
        (q, ConfirmDropArmed { producer: P, trigger: Trigger::User }),
        (q, AckDropArmed { consumer: C, trigger: Trigger::Scheduled }),
        (q, ConsumerFaultCalledOff { consumer: C, called_off: ArmedFaults { crash: None, lost_ack: true }, stopped: true, trigger: Trigger::Scheduled }),
        (q, ConsumerFaultCalledOff { consumer: C, called_off: ArmedFaults { crash: None, lost_ack: true }, stopped: false, trigger: Trigger::User }),
        (q, ProducerRestarted { producer: P, trigger: Trigger::AfterCrash }),
        (o, ProducerRestarted { producer: P, trigger: Trigger::AfterCrash }),
        (q, ConsumerRestarted { consumer: C, trigger: Trigger::AfterCrash }),
        (q, ConsumerSlowed { consumer: C, factor_pct: 100, trigger: Trigger::User }),
        (q, ConsumerSlowed { consumer: C, factor_pct: 250, trigger: Trigger::Scheduled }),
    ];
    let producer_points = [
        ProducerCrashPoint::Now,
        ProducerCrashPoint::AfterCommitBeforePublish,
        ProducerCrashPoint::AfterPublishBeforeMark,
    ];
    for (i, point) in producer_points.into_iter().enumerate() {
        let trigger = TRIGGERS[i];
        out.push((q, ProducerCrashArmed { producer: P, point, trigger }));
        for sim in [q, o] {
            for restart_at_us in [None, Some(2_000_000)] {
                out.push((sim, ProducerCrashed { producer: P, point, trigger, restart_at_us }));
            }
        }
    }
    let consumer_points = [CrashPoint::Now, CrashPoint::AfterReceive, CrashPoint::AfterCommitBeforeAck];
    for (i, point) in consumer_points.into_iter().enumerate() {
        let trigger = TRIGGERS[i];
        out.push((q, CrashArmed { consumer: C, point, trigger }));
        for restart_at_us in [None, Some(1_500_000)] {
            out.push((q, ConsumerCrashed { consumer: C, point, trigger, restart_at_us }));
        }
        // A crash scheduled for a consumer scaled in: gone, or leaving and unable to reach it.
        for stopped in [true, false] {
            let called_off = ArmedFaults { crash: Some(point), lost_ack: false };
            out.push((q, ConsumerFaultCalledOff { consumer: C, called_off, stopped, trigger }));
        }
    }
    // Commands that found nothing to act on.
    let moots = [
        (q, Moot::RestartConsumerUp { consumer: C }),
        (q, Moot::RestartConsumerStopped { consumer: C }),
        (q, Moot::CrashConsumerDown { consumer: C }),
        (q, Moot::RestartProducerUp { producer: P }),
        (q, Moot::CrashProducerDown { producer: P }),
        (q, Moot::PoisonProducerDown { producer: P }),
        (q, Moot::NoConfirmToLose { producer: P }),
        (q, Moot::RestartBrokerUp),
        (q, Moot::CrashBrokerDown),
        (&c.log, Moot::CrashMemberDown { group: G, member: 0 }),
        (q, Moot::RedriveEmpty { queue: Q }),
        (&c.log, Moot::PartitionsNotGrown { log: 0, asked: 2, has: 4 }),
        (q, Moot::NoAckToLose { consumer: C }),
        (q, Moot::NoAckAfterCommit { consumer: C }),
        (q, Moot::AckDropAlreadyArmed { consumer: C }),
        (q, Moot::CrashAlreadyArmed { consumer: C, armed: CrashPoint::AfterCommitBeforeAck }),
        (q, Moot::ConfirmDropAlreadyArmed { producer: P }),
    ];
    for (i, (sim, moot)) in moots.into_iter().enumerate() {
        out.push((sim, CommandMoot { moot, trigger: TRIGGERS[i % 2] }));
    }
    out
}

#[rustfmt::skip]
fn records(c: &Contexts) -> Vec<(&Simulation, Fact)> {
    use Fact::*;
    let l = &c.log;
    let mut out = vec![
        (l, Appended { producer: P, msg: M, log: 0, partition: 2, offset: 15 }),
        (l, OutOfSequence { producer: P, msg: M, attempt: 1, log: 0, partition: 2, ahead: MsgId::new(4) }),
        (l, RecordsExpired { log: 0, partition: 1, from: 10, to: 20 }),
        (l, RecordStarted { group: G, member: 0, partition: 2, offset: 15, msg: M, done_at_us: 1_000_000 }),
        (l, RecordProcessed { group: G, member: 0, partition: 2, offset: 15, msg: M, applied: 0 }),
        (l, RecordProcessed { group: G, member: 0, partition: 2, offset: 15, msg: M, applied: 1 }),
        (l, RecordProcessed { group: G, member: 0, partition: 2, offset: 15, msg: M, applied: 2 }),
        (l, RecordUnauthorizedEffect { group: G, member: 0, msg: M, producer: P }),
        (l, RecordTakenForDuplicate { group: G, member: 0, partition: 2, offset: 15, msg: M, key: 42, first: MsgId::new(3) }),
        (l, OffsetCommitted { group: G, partition: 2, offset: 16 }),
        (l, RecordsSkipped { group: G, partition: 1, from: 3, to: 5, why: SkipReason::CommittedBeforeProcessing, first_msg: Some(M) }),
        (l, RecordsSkipped { group: G, partition: 1, from: 3, to: 5, why: SkipReason::ExpiredUnread, first_msg: Some(M) }),
        (l, RecordsSkipped { group: G, partition: 1, from: 3, to: 5, why: SkipReason::ResetToLatest, first_msg: Some(M) }),
        (l, RecordsSkipped { group: G, partition: 1, from: 3, to: 4, why: SkipReason::ResetToLatest, first_msg: Some(M) }),
        (l, RecordsSkipped { group: G, partition: 1, from: 3, to: 5, why: SkipReason::SeekOutOfRange, first_msg: Some(M) }),
        (l, RecordsSkipped { group: G, partition: 1, from: 3, to: 4, why: SkipReason::SeekOutOfRange, first_msg: Some(M) }),
        (l, SkipUndone { group: G, partition: 1, from: 3, to: 6 }),
        (l, SkipUndone { group: G, partition: 1, from: 3, to: 4 }),
        (l, OutputWritten { group: G, member: 0, msg: M, log: 0, partition: 1, offset: 4, open: true }),
        (l, OutputWritten { group: G, member: 0, msg: M, log: 0, partition: 1, offset: 4, open: false }),
        (l, TransactionCommitted { group: G, member: 0, outputs: 2 }),
        (l, TransactionAborted { group: G, member: 0, outputs: 2 }),
        (l, ControlRecordWritten { log: 0, partition: 1, offset: 5, commit: true }),
        (l, ControlRecordWritten { log: 0, partition: 1, offset: 5, commit: false }),
        (l, AbortedSkipped { group: G, partition: 1, offset: 4 }),
        (l, EmailSent { group: G, member: 0, msg: M, times: 1 }),
        (l, EmailSent { group: G, member: 0, msg: M, times: 2 }),
        (l, RecordRetrying { group: G, member: 0, partition: 2, offset: 15, msg: M, attempt: 2, retry_at_us: 3_200_000 }),
        (l, RecordEffectRefused { group: G, member: 0, partition: 2, offset: 15, msg: M, key: 42 }),
        (l, RecordStaleIgnored { group: G, member: 0, msg: M, key: 42, version: 1, current: 2 }),
    ];
    for failure in FAILURES {
        out.push((l, RecordFailed { group: G, member: 0, partition: 2, offset: 15, msg: M, attempt: 1, failure }));
    }
    for (reason, log) in [(Dl::RetriesExhausted, None), (Dl::Poison(Poison::MalformedPayload), Some(0))] {
        out.push((l, RecordDeadLettered { group: G, partition: 2, offset: 15, msg: M, attempts: 3, reason, log }));
    }
    out
}

#[rustfmt::skip]
fn groups(c: &Contexts) -> Vec<(&Simulation, Fact)> {
    use Fact::*;
    let (l, e) = (&c.log, &c.eager);
    let mut out = vec![
        (l, RebalanceStarted { group: G, members_up: 3 }),
        (e, RebalanceStarted { group: G, members_up: 3 }),
        (l, RebalanceStarted { group: G, members_up: 0 }),
        (l, PartitionAssigned { group: G, partition: 1, member: Some(1), from_offset: 12 }),
        (l, PartitionAssigned { group: G, partition: 1, member: None, from_offset: 12 }),
        (l, GroupRewound { group: G, to_offset: None, trigger: Trigger::Scheduled, reset: 0 }),
        (l, GroupRewound { group: G, to_offset: Some(40), trigger: Trigger::User, reset: 1 }),
        (l, GroupRewound { group: G, to_offset: Some(40), trigger: Trigger::User, reset: 3 }),
        (l, SeekOutOfRange { group: G, offset: 900, by_policy: 4, reset: OffsetReset::Earliest, clamped: 0 }),
        (l, SeekOutOfRange { group: G, offset: 900, by_policy: 1, reset: OffsetReset::Earliest, clamped: 0 }),
        (l, SeekOutOfRange { group: G, offset: 900, by_policy: 3, reset: OffsetReset::Latest, clamped: 1 }),
        (l, SeekOutOfRange { group: G, offset: 900, by_policy: 1, reset: OffsetReset::Latest, clamped: 0 }),
        (l, SeekOutOfRange { group: G, offset: 900, by_policy: 0, reset: OffsetReset::Latest, clamped: 3 }),
        (l, PartitionRevoked { group: G, partition: 1, member: 0, finishing: Some(12) }),
        (l, PartitionRevoked { group: G, partition: 1, member: 0, finishing: None }),
        (e, PartitionRevoked { group: G, partition: 1, member: 0, finishing: Some(12) }),
        (l, PartitionReleased { group: G, partition: 1, member: 0, committed: 13 }),
        (e, StaleWorkInProgress { group: G, partition: 1, member: 0, offset: 12, again: true }),
        (e, StaleWorkInProgress { group: G, partition: 1, member: 0, offset: 12, again: false }),
    ];
    for (i, trigger) in TRIGGERS.into_iter().enumerate() {
        let point = [MemberCrashPoint::Now, MemberCrashPoint::AfterProcessBeforeCommit][i % 2];
        let restart_at_us = [None, Some(6_000_000)][i % 2];
        out.push((l, MemberCrashArmed { group: G, member: 1, trigger }));
        let session_ends_at_us = [None, Some(8_000_000)][i % 2];
        out.push((l, MemberCrashed { group: G, member: 1, point, trigger, restart_at_us, session_ends_at_us }));
        out.push((l, MemberJoined { group: G, member: 2, trigger }));
    }
    out.push((l, MemberSessionTimedOut { group: G, member: 1 }));
    for again in [true, false] {
        out.push((l, PollIntervalExceeded { group: G, member: 1, partition: 2, offset: 9, msg: M, interval_us: 300_000_000, again, session_ends_at_us: None }));
    }
    out.push((l, TransactionLeftOpen { group: G, member: 1, outputs: 2, aborts_at_us: 9_000_000 }));
    out.push((l, TransactionLeftOpen { group: G, member: 1, outputs: 2, aborts_at_us: 90_000_000_000 }));
    out.push((l, TransactionTimedOut { group: G, member: 1 }));
    out.push((l, TransactionFenced { group: G, member: 1 }));
    out.push((l, PollIntervalExceeded { group: G, member: 1, partition: 2, offset: 9, msg: M, interval_us: 300_000_000, again: true, session_ends_at_us: Some(345_000_000) }));
    out.push((l, CommitFailed { group: G, member: 1, partition: 2, offset: 9, msg: M, in_session: false }));
    out.push((l, CommitFailed { group: G, member: 1, partition: 2, offset: 9, msg: M, in_session: true }));
    out
}
