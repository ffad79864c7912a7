//! Commands: the faults and changes a scenario schedules, or a user makes during a run
//! (recorded as interventions so a replay reproduces it).

use serde::{Deserialize, Serialize};

use super::{
    is_false, AckMode, Admission, ArrivalProcess, BreakerSpec, Flavour, Idempotency,
    MemberCrashPoint, Ordering, Overflow, Poison, RateSegment, RetryBudget, RetryPolicy,
    ServiceTime,
};
use crate::ids::{ConsumerId, GroupId, ProducerId};

/// Where, in handling a message, an armed crash strikes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CrashPoint {
    /// At once.
    Now,
    /// Right after the consumer receives its next delivery, before any work.
    AfterReceive,
    /// Right after the effect of its next message commits, before the ack is sent.
    AfterCommitBeforeAck,
}

/// Where a producer service or its relay crashes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProducerCrashPoint {
    Now,
    /// Commit-then-publish: right after the next state commit, before its publish.
    AfterCommitBeforePublish,
    /// Outbox relay: right after the next publish is confirmed, before the row is marked.
    AfterPublishBeforeMark,
}

/// Something that goes wrong (or is repaired) on purpose.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Command {
    /// Crash consumer number `consumer` (0-based, counting replicas) at `point`; it comes
    /// back `restart_after_s` after the crash, or never if absent.
    CrashConsumer {
        consumer: ConsumerId,
        point: CrashPoint,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        restart_after_s: Option<f64>,
    },
    /// Bring a crashed consumer back at once.
    RestartConsumer {
        consumer: ConsumerId,
    },
    /// The consumer's next ack is lost on the way to the broker.
    DropNextAck {
        consumer: ConsumerId,
    },
    /// The consumer works `factor` times slower from now on (1 restores it).
    SlowConsumer {
        consumer: ConsumerId,
        factor: f64,
    },
    /// Crash a producer service (or its outbox relay) at `point`.
    CrashProducer {
        producer: ProducerId,
        point: ProducerCrashPoint,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        restart_after_s: Option<f64>,
    },
    RestartProducer {
        producer: ProducerId,
    },
    /// The broker's next confirm to this producer is lost.
    DropNextConfirm {
        producer: ProducerId,
    },
    /// The producer publishes one poison message now.
    InjectPoison {
        producer: ProducerId,
        poison: Poison,
    },
    /// The broker process dies: non-durable queues and transient messages are gone,
    /// deliveries in flight return to their queues, publishes fail until it is back.
    CrashBroker {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        restart_after_s: Option<f64>,
    },
    RestartBroker,
    /// Move dead-lettered messages of `queue` back into it, `rate_per_s` at a time.
    Redrive {
        queue: String,
        rate_per_s: f64,
    },
    /// Crash member `member` of consumer group `group`; the group rebalances.
    CrashMember {
        group: GroupId,
        member: u32,
        point: MemberCrashPoint,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        restart_after_s: Option<f64>,
    },
    /// A new member joins the group; the group rebalances.
    AddMember {
        group: GroupId,
    },
    /// The group goes back to the earliest retained offset of every partition (replay).
    SeekToEarliest {
        group: GroupId,
    },
    /// How group `group` treats per-key versions from now on (`none` or `ignore_stale`:
    /// a partition's records arrive in order, so there is no gap to wait for).
    SetGroupOrdering {
        group: GroupId,
        ordering: Ordering,
    },
    /// The group moves every partition to `offset` (clamped to what is retained): back to
    /// replay, or forward to skip.
    SeekTo {
        group: GroupId,
        offset: u64,
    },
    /// The dependency of every consumer of `queue` goes down for `for_s` seconds from
    /// now: each attempt that ends in that window fails (transiently).
    DependencyOutage {
        queue: String,
        for_s: f64,
    },

    // Settings changed while running (the page's parameters): each takes effect from the
    // instant it is given; work already under way keeps the setting it started with.
    /// The producer's arrivals from now on: `schedule` is relative to now (its first
    /// segment starts at 0) and replaces whatever remained of the old one.
    SetArrivals {
        producer: ProducerId,
        process: ArrivalProcess,
        schedule: Vec<RateSegment>,
    },
    /// Every consumer of `queue` takes this long per message from its next message on.
    SetServiceTime {
        queue: String,
        service: ServiceTime,
    },
    /// Scale the consumers of `queue` to `count`: new ones join at once; removed ones take
    /// no more deliveries and stop once they have finished what they hold.
    SetConsumerCount {
        queue: String,
        count: u32,
    },
    SetPrefetch {
        queue: String,
        prefetch: u32,
    },
    /// Each consumer of `queue` subscribes again with this ack mode once it holds nothing
    /// (deliveries already held keep the contract they were delivered under).
    SetAckMode {
        queue: String,
        ack: AckMode,
    },
    SetIdempotency {
        queue: String,
        idempotency: Idempotency,
    },
    /// How the consumers of `queue` treat per-key versions from now on: a message whose
    /// handler starts after this instant follows the new policy (one already being
    /// processed finishes under the old one).
    SetOrdering {
        queue: String,
        ordering: Ordering,
    },
    SetRetry {
        queue: String,
        retry: RetryPolicy,
    },
    /// Leases given from now on last this long (leases already given keep theirs).
    SetVisibilityTimeout {
        queue: String,
        seconds: f64,
    },
    /// A RabbitMQ queue's consumer timeout for deliveries made from now on (those already
    /// made keep theirs).
    SetConsumerTimeout {
        queue: String,
        seconds: f64,
    },
    /// The queue's bound and what a full queue does; a lower bound drops nothing already
    /// stored, it only refuses (or holds back) new publishes until there is room.
    SetQueueBound {
        queue: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_length: Option<u64>,
        overflow: Overflow,
    },
    /// Grow log `log` to `partitions` partitions (a log never shrinks). Keys now hash over
    /// more partitions, so a key's new records may land in another partition than its old
    /// ones; every group reading the log rebalances.
    SetPartitions {
        log: String,
        partitions: u32,
    },
    /// Switch `queue` to another broker flavour's rules from now on (deliveries already
    /// made keep the lease they were given).
    SetFlavour {
        queue: String,
        flavour: Flavour,
    },
    /// A fix is deployed to the consumers of `queue`: messages of that poison class are
    /// processable from now on (a redrive of the dead-letter queue can then succeed).
    DeployFix {
        queue: String,
        poison: Poison,
    },

    // Dependencies (each names one by its scenario name).
    /// Every request the dependency starts in the next `for_s` seconds takes `factor`
    /// times longer (the trigger of a retry storm).
    SlowDependency {
        dependency: String,
        factor: f64,
        for_s: f64,
    },
    /// The dependency's slots and service time from now on (requests in service keep
    /// the time they started with).
    SetDependencyCapacity {
        dependency: String,
        concurrency: u32,
        service: ServiceTime,
    },
    /// Calls made from now on give up after this long.
    SetDependencyTimeout {
        dependency: String,
        timeout_s: f64,
    },
    /// The callers' retry budget from now on (none: retry whatever fails); a new budget
    /// starts full.
    SetRetryBudget {
        dependency: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retry_budget: Option<RetryBudget>,
    },
    /// The callers' circuit breaker from now on (none: no breaker); it starts closed.
    SetBreaker {
        dependency: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        breaker: Option<BreakerSpec>,
    },
    /// The dependency's admission control from now on (none: it serves every request it
    /// admitted). Setting it sheds at once what has already waited longer than the limit.
    SetAdmission {
        dependency: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        admission: Option<Admission>,
    },
}

impl Command {
    /// The consumer this command is about, if it names one.
    pub fn consumer(&self) -> Option<ConsumerId> {
        match *self {
            Command::CrashConsumer { consumer, .. }
            | Command::RestartConsumer { consumer }
            | Command::DropNextAck { consumer }
            | Command::SlowConsumer { consumer, .. } => Some(consumer),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduledCommand {
    pub at_s: f64,
    pub command: Command,
    /// A fault sprung without warning (an interview's hidden fault, a game day's surprise):
    /// the narration says it happened, never that it was planned, and says nothing while it
    /// is armed for later (see [`crate::Trigger::Unannounced`]).
    #[serde(default, skip_serializing_if = "is_false")]
    pub unannounced: bool,
}

/// A command given while running, replayed after the same number of steps and at the
/// same simulated instant (the clock may have moved past the last step while playing).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Intervention {
    pub after_step: u64,
    pub at_us: u64,
    pub command: Command,
}
