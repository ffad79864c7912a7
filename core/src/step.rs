//! What a step reports: past-tense facts, each naming who acted, on which message, copy
//! and attempt, and why. The app animates and narrates from these alone; the CLI prints
//! them; the determinism tests hash them.

use serde::Serialize;

use crate::scenario::{
    AckMode, ArrivalProcess, CrashPoint, Flavour, Idempotency, MemberCrashPoint, OffsetReset,
    Ordering, Overflow, Poison, ProducerCrashPoint,
};
use crate::time::Micros;

pub use crate::ids::{ConsumerId, GroupId, MsgId, ProducerId, QueueId};

/// One stored instance of a message in one queue.
pub type CopyId = u64;
pub type LogId = u32;
pub type MemberId = u32;
/// 1 for the first delivery of a copy, 2 for the first redelivery, and so on.
pub type Attempt = u32;

/// Who caused something that no model rule caused by itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Trigger {
    /// Written in the scenario's fault schedule.
    Scheduled,
    /// Asked for by the user while the run was playing.
    User,
    /// A restart that follows its crash by the crash's `restart_after_s`, whoever
    /// caused the crash.
    AfterCrash,
    /// Written in the schedule as unannounced: it is told when it strikes, with no cause,
    /// and its arming is not told (see [`Fact::arms_unannounced`]).
    Unannounced,
}

impl Trigger {
    /// Whether a fault given this way may be told before it strikes (armed, called off,
    /// shown on its component's card): all but an interview's hidden, unannounced ones.
    pub fn told(self) -> bool {
        self != Trigger::Unannounced
    }
}

/// Why a copy's fate became "lost".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LossReason {
    /// Acked on delivery, and the consumer holding it crashed before the effect committed.
    AckedBeforeEffectThenCrashed,
    /// Acked on delivery, and the handler then failed: nobody will retry it.
    AckedBeforeEffectThenFailed,
    /// The broker restarted and the copy was not persistent in a durable queue.
    BrokerRestartNotDurable,
    /// It failed for good and its queue keeps no dead-letter queue.
    DiscardedWithoutDeadLetterQueue,
}

/// Why a copy went to the dead-letter queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DeadLetterReason {
    /// Failed `attempts` times, the retry policy's whole budget.
    RetriesExhausted,
    /// Can never succeed: skipped the retries.
    Poison(Poison),
    /// The broker's bound on deliveries was reached (generic: lease expiries counted as
    /// failed attempts; RabbitMQ quorum: delivery-limit; SQS: maxReceiveCount).
    DeliveryLimitReached,
    /// A wait_for_gap consumer gave up waiting for the message's predecessor (parked).
    GapTimeout,
    /// RabbitMQ: dropped from the head of a full queue (x-max-length, drop-head) with
    /// dead-lettering on.
    MaxLength,
    /// RabbitMQ: its time to live ran out with dead-lettering on.
    Expired,
    /// Its handler's dependency call failed and the callers' retry budget had too few
    /// tokens left to retry it.
    RetryBudgetExhausted,
    /// Created longer ago than its handler's replay window: skipped the retries.
    TooOld,
}

/// Why an ack changed nothing at the broker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IgnoredAck {
    /// The lease of that delivery had expired (or the broker restarted) and the copy was
    /// offered again; only the newest delivery's ack counts.
    StaleLease,
    /// The copy was already acked by another delivery.
    AlreadyDone,
}

/// Why the broker did not store a publish.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RefusedBecause {
    QueueFull,
    /// Admission control: the oldest waiting message is older than the queue allows.
    OldestTooOld,
}

/// How a handler attempt failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Failure {
    /// A transient error (a timeout, a deadlock…): a retry may succeed.
    Transient,
    /// A dependency was down: a retry after it recovers will succeed.
    DependencyDown,
    /// The message itself is bad: no retry can help.
    Poison(Poison),
    /// Another message of its atomic batch failed: the whole batch rolled back.
    BatchRolledBack,
    /// The handler's call to its dependency took longer than the caller's timeout.
    DependencyTimeout,
    /// The call was refused at once, for the reason given.
    CallRefused(CallRefusal),
    /// The message was created longer ago than the handler's replay window: no retry
    /// can make it younger.
    TooOld,
}

/// Why a call to a dependency failed at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CallRefusal {
    /// Its line was full.
    LineFull,
    /// Admission control: its oldest waiting request had waited longer than allowed.
    OldestTooOld,
    /// It was down (connection refused).
    Outage,
    /// The callers' circuit breaker was open: the call never left.
    CircuitOpen,
}

/// A dependency, numbered in the scenario's order.
pub type DependencyId = u32;

/// How a duplicate was recognised.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DuplicateSeen {
    /// The "already processed?" check found the mark.
    CheckFoundMark,
    /// The inbox insert hit the unique key: the transaction rolled back.
    InboxConflict,
}

/// Why a consumer group will never process some records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// Their offsets were committed before processing, and the member crashed.
    CommittedBeforeProcessing,
    /// Retention removed them before the group read them.
    ExpiredUnread,
    /// Retention removed the record at the member's position, and the group goes on from
    /// the log end (`auto_offset_reset: latest`), past these records still retained.
    ResetToLatest,
    /// A seek's offset lay outside what the partition holds, and the group went on from
    /// the log end (`auto_offset_reset: latest`), past these records it had not read.
    SeekOutOfRange,
}

/// The faults armed on a queue consumer for a moment of its own work: a crash (at its
/// next delivery, or after its next commit before the ack) and the loss of its next ack.
/// Scaling in calls off those its consumer can no longer reach, and says which.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct ArmedFaults {
    pub crash: Option<CrashPoint>,
    pub lost_ack: bool,
}

impl ArmedFaults {
    /// No fault at all.
    pub fn is_empty(&self) -> bool {
        self.crash.is_none() && !self.lost_ack
    }
}

/// A command that found nothing to act on: said, so that a scheduled or replayed command
/// never passes in silence (a restart at 30 s of a consumer that came back by itself at
/// 20 s, a poison message from a producer that is down).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case", tag = "moot")]
pub enum Moot {
    /// A restart of a consumer that is up.
    RestartConsumerUp { consumer: ConsumerId },
    /// A restart of a consumer that scaling in stopped: it does not come back.
    RestartConsumerStopped { consumer: ConsumerId },
    /// A crash, now, of a consumer that is down.
    CrashConsumerDown { consumer: ConsumerId },
    /// A restart of a producer that is up.
    RestartProducerUp { producer: ProducerId },
    /// A crash, now, of a producer that is down.
    CrashProducerDown { producer: ProducerId },
    /// A poison message from a producer that is down: none is sent.
    PoisonProducerDown { producer: ProducerId },
    /// The loss of the next confirm to a producer that waits for no confirm (recorded in
    /// a link made before such a command was refused).
    NoConfirmToLose { producer: ProducerId },
    /// A restart of the broker while it is up.
    RestartBrokerUp,
    /// A crash of the broker while it is down.
    CrashBrokerDown,
    /// A crash, now, of a group member that is down.
    CrashMemberDown { group: GroupId, member: MemberId },
    /// A redrive of a queue whose dead-letter queue is empty.
    RedriveEmpty { queue: QueueId },
    /// A partition count no greater than the log's `has`: a log's partitions only grow.
    PartitionsNotGrown { log: LogId, asked: u32, has: u32 },
    /// The loss of the next ack of a consumer that acks on delivery: the broker counts a
    /// message acked as it hands it over, so no ack travels back to be lost.
    NoAckToLose { consumer: ConsumerId },
    /// A crash after the next commit and before its ack, of a consumer that acks on
    /// delivery: its ack comes before the work, so that moment never comes.
    NoAckAfterCommit { consumer: ConsumerId },
    /// The loss of the next ack of a consumer whose next ack is already to be lost.
    AckDropAlreadyArmed { consumer: ConsumerId },
    /// A crash at a point of a consumer with a crash already armed (at `armed`).
    CrashAlreadyArmed {
        consumer: ConsumerId,
        armed: CrashPoint,
    },
    /// The loss of the next confirm to a producer whose next confirm is already to be lost.
    ConfirmDropAlreadyArmed { producer: ProducerId },
}

/// One thing that happened.
///
/// New variants go at the end: each variant's position is hashed into run fingerprints,
/// which tests pin natively and in the browser.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case", tag = "fact")]
pub enum Fact {
    // --- producers -----------------------------------------------------------------------
    /// A producer created a message (a request arrived, or its script said so).
    Created {
        producer: ProducerId,
        msg: MsgId,
        key: Option<u32>,
        version: u32,
        poison: Option<Poison>,
    },
    /// The producer service committed its own state; with an outbox, the event row
    /// committed in the same transaction (the request is accepted: 202 + job id).
    StateCommitted {
        producer: ProducerId,
        msg: MsgId,
        outbox: bool,
    },
    /// The producer (or its relay) sent the message to the broker.
    PublishSent {
        producer: ProducerId,
        msg: MsgId,
        attempt: Attempt,
    },
    /// The producer is held back: a queue it publishes to is full (backpressure).
    Throttled {
        producer: ProducerId,
        msg: MsgId,
        queue: QueueId,
    },
    /// The producer heard no confirm in time: the outcome is unknown.
    ConfirmTimedOut {
        producer: ProducerId,
        msg: MsgId,
        attempt: Attempt,
        retry: bool,
    },
    /// The broker's confirm reached the producer: the broker took responsibility (it says
    /// nothing about consumers).
    Confirmed {
        producer: ProducerId,
        msg: MsgId,
        attempt: Attempt,
    },
    /// The confirm was lost on the way back.
    ConfirmLost {
        producer: ProducerId,
        msg: MsgId,
        attempt: Attempt,
    },
    /// The outbox relay marked the row as sent.
    OutboxMarked {
        producer: ProducerId,
        msg: MsgId,
    },
    /// The service committed its state and crashed before publishing: no event, ever.
    EventNeverPublished {
        producer: ProducerId,
        msg: MsgId,
    },
    /// A request arrived while the producer service was down and was turned away.
    RequestRefused {
        producer: ProducerId,
    },
    ProducerCrashArmed {
        producer: ProducerId,
        point: ProducerCrashPoint,
        trigger: Trigger,
    },
    ProducerCrashed {
        producer: ProducerId,
        point: ProducerCrashPoint,
        trigger: Trigger,
        restart_at_us: Option<Micros>,
    },
    ProducerRestarted {
        producer: ProducerId,
        trigger: Trigger,
    },
    ConfirmDropArmed {
        producer: ProducerId,
        trigger: Trigger,
    },

    // --- broker --------------------------------------------------------------------------
    /// The broker stored a copy of the message in a queue.
    Stored {
        producer: ProducerId,
        msg: MsgId,
        copy: CopyId,
        queue: QueueId,
    },
    /// An idempotent producer's retry of a message the broker already stored: dropped.
    Deduplicated {
        producer: ProducerId,
        msg: MsgId,
    },
    /// A queue the publish was routed to refused it. `told`: the producer hears of it (a
    /// nack, with publisher confirms; admission control answers at the door). A full
    /// queue's refusal of a publish without confirms is told to nobody: the broker
    /// discards it.
    Refused {
        producer: ProducerId,
        msg: MsgId,
        queue: QueueId,
        because: RefusedBecause,
        told: bool,
    },
    /// The publish matched no binding: returned to the producer (mandatory) or dropped.
    Unroutable {
        producer: ProducerId,
        msg: MsgId,
        returned: bool,
    },
    /// The publish reached a broker that is down: nothing was stored.
    PublishFailed {
        producer: ProducerId,
        msg: MsgId,
        attempt: Attempt,
    },
    /// The queue was full: its oldest waiting copy was dropped to make room.
    DroppedOldest {
        msg: MsgId,
        copy: CopyId,
        queue: QueueId,
    },
    /// A waiting copy outlived its time to live.
    Expired {
        msg: MsgId,
        copy: CopyId,
        queue: QueueId,
    },
    /// The broker handed a copy to a consumer. `attempt > 1` is a redelivery;
    /// `lease_until_us` is when it becomes visible again if not acked (none when the
    /// consumer acks on delivery).
    Delivered {
        msg: MsgId,
        copy: CopyId,
        attempt: Attempt,
        consumer: ConsumerId,
        lease_until_us: Option<Micros>,
    },
    /// A delivery's lease ran out before its ack: the copy is visible again and will be
    /// redelivered. The consumer may still be working on it.
    LeaseExpired {
        msg: MsgId,
        copy: CopyId,
        attempt: Attempt,
        consumer: ConsumerId,
    },
    /// A failed copy finished its backoff and is visible again.
    RetryReady {
        msg: MsgId,
        copy: CopyId,
    },
    DeadLettered {
        msg: MsgId,
        copy: CopyId,
        queue: QueueId,
        reason: DeadLetterReason,
        attempts: Attempt,
    },
    /// A dead-lettered copy went back to its queue (same message id, so dedupe still works).
    Redriven {
        msg: MsgId,
        copy: CopyId,
        queue: QueueId,
    },
    BrokerCrashed {
        trigger: Trigger,
        restart_at_us: Option<Micros>,
    },
    BrokerRestarted {
        trigger: Trigger,
    },
    /// A copy vanished and nobody will retry it.
    MessageLost {
        msg: MsgId,
        copy: CopyId,
        reason: LossReason,
    },

    // --- consumers -----------------------------------------------------------------------
    /// The consumer acked on delivery: the broker forgets the copy before any work.
    AckedOnDelivery {
        msg: MsgId,
        copy: CopyId,
        attempt: Attempt,
        consumer: ConsumerId,
    },
    /// The consumer started working on a delivery; it will finish at `done_at_us`.
    ProcessingStarted {
        msg: MsgId,
        copy: CopyId,
        attempt: Attempt,
        consumer: ConsumerId,
        done_at_us: Micros,
    },
    /// The handler recognised a duplicate and applied nothing.
    DuplicateSkipped {
        msg: MsgId,
        copy: CopyId,
        attempt: Attempt,
        consumer: ConsumerId,
        seen: DuplicateSeen,
    },
    /// The handler skipped an old version: the aggregate is already newer.
    StaleIgnored {
        msg: MsgId,
        copy: CopyId,
        consumer: ConsumerId,
        key: u32,
        version: u32,
        current: u32,
    },
    /// A predecessor has not been applied yet: the copy is put back to wait.
    GapWait {
        msg: MsgId,
        copy: CopyId,
        consumer: ConsumerId,
        key: u32,
        version: u32,
        current: u32,
    },
    /// The effect committed in the database. `applied` counts how many times this
    /// message's effect has now been applied by this queue's consumers: more than 1 is a
    /// duplicate effect.
    EffectCommitted {
        msg: MsgId,
        copy: CopyId,
        attempt: Attempt,
        consumer: ConsumerId,
        applied: u32,
    },
    /// A business rule refused the operation (a withdrawal larger than the balance).
    EffectRefused {
        msg: MsgId,
        copy: CopyId,
        consumer: ConsumerId,
        key: u32,
    },
    /// The handler failed.
    HandlerFailed {
        msg: MsgId,
        copy: CopyId,
        attempt: Attempt,
        consumer: ConsumerId,
        failure: Failure,
    },
    /// The copy will be retried after a backoff.
    RetryScheduled {
        msg: MsgId,
        copy: CopyId,
        failures: u32,
        ready_at_us: Micros,
    },
    /// The broker received the ack and removed the copy for good.
    Acked {
        msg: MsgId,
        copy: CopyId,
        attempt: Attempt,
        consumer: ConsumerId,
        /// SQS at-least-once: the other copy of a duplicate pair is still in the queue
        /// (waiting, in flight or retrying), so the message will be delivered again.
        twin_held: bool,
    },
    /// An ack arrived but changed nothing.
    AckIgnored {
        msg: MsgId,
        copy: CopyId,
        attempt: Attempt,
        consumer: ConsumerId,
        why: IgnoredAck,
    },
    /// The ack was lost on the way (the lease will run out), or the broker was down (it
    /// put the copy back in line when it crashed: delivered again once it is back).
    AckLost {
        msg: MsgId,
        copy: CopyId,
        attempt: Attempt,
        consumer: ConsumerId,
        broker_down: bool,
    },
    /// A crash was armed: it will strike when the consumer reaches `point`.
    CrashArmed {
        consumer: ConsumerId,
        point: CrashPoint,
        trigger: Trigger,
    },
    AckDropArmed {
        consumer: ConsumerId,
        trigger: Trigger,
    },
    /// A consumer process died at `point`, dropping everything it held in memory.
    ConsumerCrashed {
        consumer: ConsumerId,
        point: CrashPoint,
        trigger: Trigger,
        restart_at_us: Option<Micros>,
    },
    /// A crashed consumer came back, empty-handed, and asks for work again.
    ConsumerRestarted {
        consumer: ConsumerId,
        trigger: Trigger,
    },
    /// The consumer now works `factor_pct`% as slow as normal (100 = normal speed).
    ConsumerSlowed {
        consumer: ConsumerId,
        factor_pct: u32,
        trigger: Trigger,
    },

    // --- logs and consumer groups ----------------------------------------------------------
    /// The broker appended the message to a log partition at `offset`.
    Appended {
        producer: ProducerId,
        msg: MsgId,
        log: LogId,
        partition: u32,
        offset: u64,
    },
    /// Retention removed records `from..to` of a partition (read or not).
    RecordsExpired {
        log: LogId,
        partition: u32,
        from: u64,
        to: u64,
    },
    /// A group member started processing the record at `offset`.
    RecordStarted {
        group: GroupId,
        member: MemberId,
        partition: u32,
        offset: u64,
        msg: MsgId,
        done_at_us: Micros,
    },
    /// The member processed the record; `applied` counts this group's applications of the
    /// message's effect (0 when a duplicate was skipped).
    RecordProcessed {
        group: GroupId,
        member: MemberId,
        partition: u32,
        offset: u64,
        msg: MsgId,
        applied: u32,
    },
    /// The group's committed offset of a partition moved to `offset` (next to read).
    OffsetCommitted {
        group: GroupId,
        partition: u32,
        offset: u64,
    },
    /// Records `from..to` of a partition will never be processed by this group.
    RecordsSkipped {
        group: GroupId,
        partition: u32,
        from: u64,
        to: u64,
        why: SkipReason,
        /// The message of record `from`, the first one skipped (always known while the
        /// model holds: the page names it where the "no message lost" property broke, and
        /// its history shows the skip).
        first_msg: Option<MsgId>,
    },
    /// The group stopped to reassign its partitions.
    RebalanceStarted {
        group: GroupId,
        members_up: u32,
    },
    /// After a rebalance: the partition's owner (none: no live member) and where it resumes.
    PartitionAssigned {
        group: GroupId,
        partition: u32,
        member: Option<MemberId>,
        from_offset: u64,
    },
    MemberCrashArmed {
        group: GroupId,
        member: MemberId,
        trigger: Trigger,
    },
    /// `session_ends_at_us`: the member keeps its partitions, unread, until then (the
    /// group's session timeout); none: it left the group at its crash.
    MemberCrashed {
        group: GroupId,
        member: MemberId,
        point: MemberCrashPoint,
        trigger: Trigger,
        restart_at_us: Option<Micros>,
        session_ends_at_us: Option<Micros>,
    },
    /// The coordinator heard nothing from a crashed member for the session timeout and
    /// removed it from the group.
    MemberSessionTimedOut {
        group: GroupId,
        member: MemberId,
    },
    MemberJoined {
        group: GroupId,
        member: MemberId,
        trigger: Trigger,
    },
    /// The member worked on the record at `offset` for the group's poll interval without
    /// polling, and left the group (Kafka's `max.poll.interval.ms`): the group rebalances
    /// its partitions. `again`: the record's offset is not committed, so the partition's
    /// next owner reads it again (committed before processing, nobody does).
    PollIntervalExceeded {
        group: GroupId,
        member: MemberId,
        partition: u32,
        offset: u64,
        msg: MsgId,
        interval_us: Micros,
        again: bool,
        /// A static member (its group has a session timeout) sends no leave: it only stops
        /// heartbeating, keeps its partitions, and is removed when its session ends here.
        session_ends_at_us: Option<Micros>,
    },
    /// A member that had left the group for its poll interval finished the record at
    /// `offset`; its commit failed (`CommitFailedException`) and it rejoins the group.
    /// A static member back within its session (`in_session`) gets its partitions again
    /// without a rebalance, from their committed offsets.
    CommitFailed {
        group: GroupId,
        member: MemberId,
        partition: u32,
        offset: u64,
        msg: MsgId,
        in_session: bool,
    },
    /// The group moved every partition to `to_offset` (the earliest retained record when
    /// none); where that offset lies outside a partition, [`Fact::SeekOutOfRange`]
    /// follows and says where it went instead.
    GroupRewound {
        group: GroupId,
        to_offset: Option<u64>,
        trigger: Trigger,
        /// Partitions no member up held, whose committed offsets were reset at once; the
        /// others' move with their members' next commits.
        reset: u32,
    },
    /// A group member wrote its output record (in an open transaction, or visible at once).
    OutputWritten {
        group: GroupId,
        member: MemberId,
        msg: MsgId,
        log: LogId,
        partition: u32,
        offset: u64,
        open: bool,
    },
    /// The transaction committed: its output records and input offset became visible together.
    TransactionCommitted {
        group: GroupId,
        member: MemberId,
        outputs: u32,
    },
    /// The transaction aborted (the member crashed before committing): its output records
    /// stay in the log, marked aborted, and read_committed readers skip them.
    /// A member crashed with its transaction open and the group has a transaction
    /// timeout: the `outputs` records stay open (read_committed readers stop before them)
    /// until the coordinator aborts it at `aborts_at_us`, or the member is back.
    TransactionLeftOpen {
        group: GroupId,
        member: MemberId,
        outputs: u32,
        aborts_at_us: Micros,
    },
    /// The coordinator aborted a crashed member's transaction at its timeout.
    TransactionTimedOut {
        group: GroupId,
        member: MemberId,
    },
    /// The member is back with the same `transactional.id`: the transaction it left open
    /// is fenced and aborted.
    TransactionFenced {
        group: GroupId,
        member: MemberId,
    },
    TransactionAborted {
        group: GroupId,
        member: MemberId,
        outputs: u32,
    },
    /// The coordinator closed a transaction in a partition it wrote to: a commit or abort
    /// marker took `offset` there. No reader receives it; each steps over it.
    ControlRecordWritten {
        log: u32,
        partition: u32,
        offset: u64,
        commit: bool,
    },
    /// A read_committed group skipped an aborted record.
    AbortedSkipped {
        group: GroupId,
        partition: u32,
        offset: u64,
    },
    /// The handler sent an email: outside any transaction, so a retry sends it again.
    EmailSent {
        group: GroupId,
        member: MemberId,
        msg: MsgId,
        times: u32,
    },
    /// A gap was closed by reading versions `from..=to` of the key from the source of
    /// truth and applying them before this message.
    GapReconciled {
        msg: MsgId,
        copy: CopyId,
        consumer: ConsumerId,
        key: u32,
        from: u32,
        to: u32,
    },
    /// The dependency of a queue's consumers is down until `until_us`.
    DependencyDown {
        queue: QueueId,
        until_us: Micros,
        trigger: Trigger,
    },

    // --- settings changed while running --------------------------------------------------
    /// A setting changed from this instant on.
    SettingChanged {
        setting: Setting,
        trigger: Trigger,
    },
    /// A new consumer joined a queue's consumers (scaling out).
    ConsumerAdded {
        consumer: ConsumerId,
        queue: QueueId,
        trigger: Trigger,
    },
    /// The consumer takes no more deliveries; it stops once it has finished what it holds.
    /// Faults armed on it that it can no longer reach are called off (`called_off`: a crash
    /// at its next delivery, and with nothing left to commit and ack, a crash after its
    /// next commit and the loss of its next ack); those it can still reach, since it
    /// finishes and acks what it holds, stay armed (`still_armed`).
    ConsumerStopping {
        consumer: ConsumerId,
        trigger: Trigger,
        called_off: ArmedFaults,
        still_armed: ArmedFaults,
    },
    /// It stopped (scaling in): it finished what it held, or it was down (it crashed while
    /// leaving, or was scaled in while down: `was_down`), and it does not restart. Faults
    /// still armed on it are called off (`called_off`): it has left.
    ConsumerStopped {
        consumer: ConsumerId,
        was_down: bool,
        called_off: ArmedFaults,
    },
    /// A consumer subscribed again with another ack mode (it held nothing at that moment).
    AckModeSwitched {
        consumer: ConsumerId,
        ack: AckMode,
    },

    // --- broker flavours, delivery limits and gap waits ----------------------------------
    /// RabbitMQ: the consumer's channel closed with this delivery unacked, so the broker
    /// put the copy back in line at once, marked redelivered.
    Requeued {
        msg: MsgId,
        copy: CopyId,
        attempt: Attempt,
        consumer: ConsumerId,
    },
    /// The consumer, still working, extended its lease (a visibility heartbeat).
    LeaseExtended {
        msg: MsgId,
        copy: CopyId,
        attempt: Attempt,
        consumer: ConsumerId,
        lease_until_us: Micros,
    },
    /// SQS standard (at-least-once): the receive left another copy of the message visible,
    /// which a later receive will deliver again.
    DuplicateKept {
        msg: MsgId,
        copy: CopyId,
        twin: CopyId,
        queue: QueueId,
    },
    /// SQS FIFO: the same message id was published again within the deduplication
    /// window; the broker accepted it and did not store it again.
    DedupWindowHit {
        producer: ProducerId,
        msg: MsgId,
        queue: QueueId,
    },
    /// A gap wait: the copy is put back, unfailed, and looked at again at `ready_at_us`;
    /// the consumer gives up on the gap at `gives_up_at_us`.
    GapRecheck {
        msg: MsgId,
        copy: CopyId,
        consumer: ConsumerId,
        ready_at_us: Micros,
        gives_up_at_us: Micros,
    },
    /// The consumer gave up waiting for version `current + 1` and applied this one anyway
    /// (policy "skip"): the missing versions are skipped for good.
    GapSkipped {
        msg: MsgId,
        copy: CopyId,
        consumer: ConsumerId,
        key: u32,
        version: u32,
        current: u32,
    },
    // --- outbox relay retries (appended) -----------------------------------------------
    /// A relay publish was refused or went unconfirmed: the outbox row stays and the relay
    /// publishes it again once `ready_at_us` has passed (exponential backoff).
    OutboxRetryScheduled {
        producer: ProducerId,
        msg: MsgId,
        attempt: Attempt,
        ready_at_us: Micros,
    },
    /// The relay used every publish attempt on this row: it stays in the outbox, unsent
    /// and counted as pending, for an operator.
    OutboxRowParked {
        producer: ProducerId,
        msg: MsgId,
        attempts: Attempt,
    },
    /// A fix reached the consumers of `queue`: the poison class no longer fails.
    FixDeployed {
        queue: QueueId,
        poison: Poison,
        trigger: Trigger,
    },
    /// A queue consumer's handler sent the email for a message, after its effect committed;
    /// `times` counts the emails sent for it by this queue's consumers.
    ConsumerEmailSent {
        msg: MsgId,
        copy: CopyId,
        consumer: ConsumerId,
        times: u32,
    },

    // --- consumer groups: cooperative rebalancing and the failure model ---------------------
    /// Cooperative rebalance: the partition moves, so its owner fetches nothing more from
    /// it; `finishing` is the offset it still processes and will commit before letting go.
    PartitionRevoked {
        group: GroupId,
        partition: u32,
        member: MemberId,
        finishing: Option<u64>,
    },
    /// The old owner let the partition go with `committed` as its committed offset.
    PartitionReleased {
        group: GroupId,
        partition: u32,
        member: MemberId,
        committed: u64,
    },
    /// Eager rebalance: `member` still processes `offset`, fetched before the rebalance; it
    /// can no longer commit it, so the new owner processes it `again` (unless committed
    /// before processing).
    StaleWorkInProgress {
        group: GroupId,
        partition: u32,
        member: MemberId,
        offset: u64,
        again: bool,
    },
    /// Attempt `attempt` of the record's handler failed; nothing of it was applied.
    RecordFailed {
        group: GroupId,
        member: MemberId,
        partition: u32,
        offset: u64,
        msg: MsgId,
        attempt: Attempt,
        failure: Failure,
    },
    /// The record is retried in place: attempt `attempt` starts at `retry_at_us`, and the
    /// partition waits behind it until then.
    RecordRetrying {
        group: GroupId,
        member: MemberId,
        partition: u32,
        offset: u64,
        msg: MsgId,
        attempt: Attempt,
        retry_at_us: Micros,
    },
    /// The group gave up on the record after `attempts` attempts: it went to `log` (a
    /// retry or dead-letter topic), or the group's built-in dead-letter topic when none;
    /// the partition moves on.
    RecordDeadLettered {
        group: GroupId,
        partition: u32,
        offset: u64,
        msg: MsgId,
        attempts: Attempt,
        reason: DeadLetterReason,
        log: Option<LogId>,
    },
    /// A business rule refused the record's effect (a withdrawal larger than the balance).
    RecordEffectRefused {
        group: GroupId,
        member: MemberId,
        partition: u32,
        offset: u64,
        msg: MsgId,
        key: u32,
    },
    /// ignore_stale: the record's version is not newer than the applied one; skipped.
    RecordStaleIgnored {
        group: GroupId,
        member: MemberId,
        msg: MsgId,
        key: u32,
        version: u32,
        current: u32,
    },

    // --- dependencies ----------------------------------------------------------------------
    /// A handler called its dependency for a batch whose first message is `msg`; `ahead`
    /// requests were already waiting in its line.
    DependencyCalled {
        msg: MsgId,
        copy: CopyId,
        consumer: ConsumerId,
        dependency: DependencyId,
        request: u64,
        ahead: u32,
    },
    /// The dependency answered while its caller still waited: useful work.
    DependencyAnswered {
        msg: MsgId,
        consumer: ConsumerId,
        dependency: DependencyId,
        request: u64,
        took_us: Micros,
    },
    /// The caller gave up waiting; the request stays at the dependency all the same.
    CallTimedOut {
        msg: MsgId,
        copy: CopyId,
        consumer: ConsumerId,
        dependency: DependencyId,
        request: u64,
    },
    /// The dependency finished a request whose caller had already gone: wasted work.
    WorkWasted {
        msg: MsgId,
        dependency: DependencyId,
        request: u64,
        late_by_us: Micros,
    },
    /// A call failed at once without being served.
    CallRejected {
        msg: MsgId,
        copy: CopyId,
        consumer: ConsumerId,
        dependency: DependencyId,
        why: CallRefusal,
    },
    /// Admission control dropped a request that had waited too long, instead of serving it.
    RequestShed {
        msg: MsgId,
        dependency: DependencyId,
        request: u64,
        waited_us: Micros,
    },
    /// The retry budget had too few tokens: the failed message is not retried.
    RetryDenied {
        msg: MsgId,
        copy: CopyId,
        consumer: ConsumerId,
        dependency: DependencyId,
        tokens_milli: u64,
    },
    /// The circuit breaker opened after `failures` failed calls in a row.
    BreakerOpened {
        dependency: DependencyId,
        failures: u32,
        until_us: Micros,
    },
    /// The breaker's open time is over: one probe call goes through.
    BreakerHalfOpen {
        dependency: DependencyId,
    },
    /// The probe succeeded: calls go through again.
    BreakerClosed {
        dependency: DependencyId,
    },
    /// Requests the dependency starts until `until_us` take `factor_milli`/1000 times
    /// longer.
    DependencySlowed {
        dependency: DependencyId,
        factor_milli: u64,
        until_us: Micros,
        trigger: Trigger,
    },
    /// A crash or a lost ack scheduled for a consumer that scaling in has retired, and that
    /// it can no longer reach, is called off rather than armed: it has left (`stopped`), or
    /// it is leaving and takes no more deliveries or has no ack left to send.
    ConsumerFaultCalledOff {
        consumer: ConsumerId,
        called_off: ArmedFaults,
        stopped: bool,
        trigger: Trigger,
    },
    /// A command found nothing to act on (see [`Moot`]).
    CommandMoot {
        moot: Moot,
        trigger: Trigger,
    },
    /// The broker refused an idempotent producer's record as out of sequence: `ahead`,
    /// sent earlier to the same partition, is not in the log yet. The producer sends it
    /// again once `ahead` (and whatever else is ahead of it) is stored.
    OutOfSequence {
        producer: ProducerId,
        msg: MsgId,
        attempt: Attempt,
        log: LogId,
        partition: u32,
        ahead: MsgId,
    },
    // New facts go last: a fact's place in this list is hashed into the pinned
    // fingerprint, so one added in the middle would change it for every run.
    /// The broker is down: a producer to a log that waits for no confirm keeps the
    /// record in its buffer and sends it when the broker is back, unless it is still
    /// unsent at `expires_at_us` (its delivery timeout).
    Buffered {
        producer: ProducerId,
        msg: MsgId,
        expires_at_us: Micros,
    },
    /// A buffered record is dropped unsent: its delivery timeout ran out, or the producer
    /// crashed (the buffer is in its memory).
    BufferDropped {
        producer: ProducerId,
        msg: MsgId,
        crashed: bool,
    },
    /// An operator started moving `queue`'s dead letters back to it (`count` of them, at
    /// `milli_per_s` thousandths of a message per second). With the broker down, the move
    /// starts when it is back.
    RedriveStarted {
        queue: QueueId,
        count: u64,
        milli_per_s: u64,
        broker_down: bool,
        trigger: Trigger,
    },
    /// An inbox keyed by the entity already has a row for `key`, taken by `first`, a
    /// different message: the handler takes this one for a duplicate and skips it. It is
    /// acked as handled, and its work is never done.
    TakenForDuplicate {
        msg: MsgId,
        copy: CopyId,
        attempt: Attempt,
        consumer: ConsumerId,
        key: u32,
        first: MsgId,
    },
    /// A handler that trusts the broker applied the effect of a message its source had no
    /// authority to ask for (from an unauthorised tenant): a handler that checks would
    /// have refused it and dead-lettered it. Pushed right after the effect's commit.
    UnauthorizedEffect {
        msg: MsgId,
        copy: CopyId,
        attempt: Attempt,
        consumer: ConsumerId,
        producer: ProducerId,
    },
    /// The broker refused a publish: its producer is not among those allowed to
    /// publish to that destination. Nothing is stored, and the producer is told.
    PublishDenied {
        producer: ProducerId,
        msg: MsgId,
        attempt: Attempt,
    },
    /// A group member that trusts the broker applied the effect of a record its source
    /// had no authority to ask for (as [`Fact::UnauthorizedEffect`] for a queue's
    /// consumer). Pushed right after the record's processing.
    RecordUnauthorizedEffect {
        group: GroupId,
        member: MemberId,
        msg: MsgId,
        producer: ProducerId,
    },
    /// A group's inbox keyed by the entity already has a row for `key`, taken by `first`,
    /// a different message: the member takes this record for a duplicate and skips it
    /// (as [`Fact::TakenForDuplicate`] for a queue's consumer). The partition moves past
    /// it as handled, and its effect is never applied; what the group does outside the
    /// inbox's check for any duplicate (an email, an output record) it does for this one
    /// too. Pushed instead of its `RecordProcessed`.
    RecordTakenForDuplicate {
        group: GroupId,
        member: MemberId,
        partition: u32,
        offset: u64,
        msg: MsgId,
        key: u32,
        first: MsgId,
    },
    /// A seek (`seek_to`) asked for `offset`, which lies outside what some partitions
    /// hold (before their log start, or past their log end). Pushed right after
    /// [`Fact::GroupRewound`].
    SeekOutOfRange {
        group: GroupId,
        offset: u64,
        /// Partitions a member up holds: the member's next fetch there fails
        /// (OFFSET_OUT_OF_RANGE) and the group's `auto_offset_reset` moves it, to the log
        /// start (`earliest`) or the log end (`latest`, the records it had not read
        /// skipped: [`SkipReason::SeekOutOfRange`]).
        by_policy: u32,
        reset: OffsetReset,
        /// Partitions no member up holds: their committed offsets are set to the nearest
        /// offset each holds, as `kafka-consumer-groups --reset-offsets` does.
        clamped: u32,
    },
    /// Records an `auto.offset.reset=latest` counted as skipped ([`Fact::RecordsSkipped`])
    /// are read after all: Kafka's reset moved only the fetch position, and the
    /// partition's position moved back before them (a crash before the next commit
    /// resumed it at the last commit, a rebalance, or a seek back). They no longer count
    /// as skipped. Offsets `from..to`, those still retained.
    SkipUndone {
        group: GroupId,
        partition: u32,
        from: u64,
        to: u64,
    },
}

/// A setting and its new value, in whole units so that facts stay exact and hashable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Setting {
    /// Arrivals of a producer: its rate now (thousandths of a message per second).
    Arrivals {
        producer: ProducerId,
        process: ArrivalProcess,
        rate_milli_per_s: u64,
    },
    ServiceTime {
        queue: QueueId,
        mean_us: Micros,
        exponential: bool,
    },
    Consumers {
        queue: QueueId,
        count: u32,
    },
    Prefetch {
        queue: QueueId,
        prefetch: u32,
    },
    AckMode {
        queue: QueueId,
        ack: AckMode,
    },
    Idempotency {
        queue: QueueId,
        idempotency: Idempotency,
    },
    Ordering {
        queue: QueueId,
        ordering: Ordering,
    },
    GroupOrdering {
        group: GroupId,
        ordering: Ordering,
    },
    Retry {
        queue: QueueId,
        max_attempts: u32,
        backoff_base_us: Micros,
    },
    VisibilityTimeout {
        queue: QueueId,
        lease_us: Micros,
    },
    ConsumerTimeout {
        queue: QueueId,
        timeout_us: Micros,
    },
    QueueBound {
        queue: QueueId,
        max_length: Option<u64>,
        overflow: Overflow,
    },
    Partitions {
        log: LogId,
        partitions: u32,
    },
    Flavour {
        queue: QueueId,
        flavour: Flavour,
    },
    DependencyCapacity {
        dependency: DependencyId,
        concurrency: u32,
        mean_us: Micros,
        exponential: bool,
    },
    DependencyTimeout {
        dependency: DependencyId,
        timeout_us: Micros,
    },
    /// Tokens and token ratio, in thousandths (none: no budget).
    RetryBudget {
        dependency: DependencyId,
        budget_milli: Option<(u64, u64)>,
    },
    /// Failures in a row that open it, and how long it stays open (none: no breaker).
    Breaker {
        dependency: DependencyId,
        breaker: Option<(u32, Micros)>,
    },
    /// The oldest age the dependency admits (none: no admission control).
    Admission {
        dependency: DependencyId,
        max_age_us: Option<Micros>,
    },
}

impl Fact {
    /// An unannounced fault armed to strike later (at a commit, a confirm, an ack): the
    /// page keeps it quiet until it strikes, since telling it would announce the fault.
    /// One called off before it could strike (its consumer was scaled in), or that found
    /// nothing to strike, stays quiet.
    pub fn arms_unannounced(&self) -> bool {
        use Fact::*;
        matches!(
            self,
            ProducerCrashArmed {
                trigger: Trigger::Unannounced,
                ..
            } | ConfirmDropArmed {
                trigger: Trigger::Unannounced,
                ..
            } | CrashArmed {
                trigger: Trigger::Unannounced,
                ..
            } | AckDropArmed {
                trigger: Trigger::Unannounced,
                ..
            } | MemberCrashArmed {
                trigger: Trigger::Unannounced,
                ..
            } | ConsumerFaultCalledOff {
                trigger: Trigger::Unannounced,
                ..
            } | CommandMoot {
                trigger: Trigger::Unannounced,
                ..
            }
        )
    }

    /// The message this fact is about, if any.
    // Long but flat: every fact is listed once, with no `_` arm, so a new fact has to say
    // whether it is about a message.
    pub fn msg(&self) -> Option<MsgId> {
        use Fact::*;
        match *self {
            Created { msg, .. }
            | StateCommitted { msg, .. }
            | PublishSent { msg, .. }
            | Throttled { msg, .. }
            | Buffered { msg, .. }
            | BufferDropped { msg, .. }
            | ConfirmTimedOut { msg, .. }
            | Confirmed { msg, .. }
            | ConfirmLost { msg, .. }
            | OutboxMarked { msg, .. }
            | EventNeverPublished { msg, .. }
            | Stored { msg, .. }
            | Deduplicated { msg, .. }
            | Refused { msg, .. }
            | Unroutable { msg, .. }
            | PublishFailed { msg, .. }
            | OutOfSequence { msg, .. }
            | DroppedOldest { msg, .. }
            | Expired { msg, .. }
            | Delivered { msg, .. }
            | LeaseExpired { msg, .. }
            | RetryReady { msg, .. }
            | DeadLettered { msg, .. }
            | Redriven { msg, .. }
            | MessageLost { msg, .. }
            | AckedOnDelivery { msg, .. }
            | ProcessingStarted { msg, .. }
            | DuplicateSkipped { msg, .. }
            | TakenForDuplicate { msg, .. }
            | UnauthorizedEffect { msg, .. }
            | PublishDenied { msg, .. }
            | RecordUnauthorizedEffect { msg, .. }
            | RecordTakenForDuplicate { msg, .. }
            | StaleIgnored { msg, .. }
            | GapWait { msg, .. }
            | GapReconciled { msg, .. }
            | EffectCommitted { msg, .. }
            | EffectRefused { msg, .. }
            | HandlerFailed { msg, .. }
            | RetryScheduled { msg, .. }
            | Acked { msg, .. }
            | AckIgnored { msg, .. }
            | AckLost { msg, .. }
            | Appended { msg, .. }
            | RecordStarted { msg, .. }
            | RecordProcessed { msg, .. }
            | OutputWritten { msg, .. }
            | EmailSent { msg, .. }
            | Requeued { msg, .. }
            | LeaseExtended { msg, .. }
            | DuplicateKept { msg, .. }
            | DedupWindowHit { msg, .. }
            | GapRecheck { msg, .. }
            | GapSkipped { msg, .. }
            | OutboxRetryScheduled { msg, .. }
            | OutboxRowParked { msg, .. }
            | ConsumerEmailSent { msg, .. }
            | RecordFailed { msg, .. }
            | RecordRetrying { msg, .. }
            | RecordDeadLettered { msg, .. }
            | RecordEffectRefused { msg, .. }
            | RecordStaleIgnored { msg, .. }
            | DependencyCalled { msg, .. }
            | DependencyAnswered { msg, .. }
            | CallTimedOut { msg, .. }
            | WorkWasted { msg, .. }
            | CallRejected { msg, .. }
            | RequestShed { msg, .. }
            | RetryDenied { msg, .. }
            | PollIntervalExceeded { msg, .. }
            | CommitFailed { msg, .. } => Some(msg),
            RecordsSkipped { first_msg, .. } => first_msg,
            RequestRefused { .. }
            | ProducerCrashArmed { .. }
            | ProducerCrashed { .. }
            | ProducerRestarted { .. }
            | ConfirmDropArmed { .. }
            | BrokerCrashed { .. }
            | BrokerRestarted { .. }
            | CrashArmed { .. }
            | AckDropArmed { .. }
            | ConsumerCrashed { .. }
            | ConsumerRestarted { .. }
            | ConsumerSlowed { .. }
            | RecordsExpired { .. }
            | OffsetCommitted { .. }
            | RebalanceStarted { .. }
            | PartitionAssigned { .. }
            | MemberCrashArmed { .. }
            | MemberCrashed { .. }
            | MemberSessionTimedOut { .. }
            | MemberJoined { .. }
            | GroupRewound { .. }
            | SeekOutOfRange { .. }
            | SkipUndone { .. }
            | DependencyDown { .. }
            | TransactionCommitted { .. }
            | TransactionAborted { .. }
            | TransactionLeftOpen { .. }
            | TransactionTimedOut { .. }
            | TransactionFenced { .. }
            | ControlRecordWritten { .. }
            | AbortedSkipped { .. }
            | SettingChanged { .. }
            | ConsumerAdded { .. }
            | ConsumerStopping { .. }
            | ConsumerStopped { .. }
            | ConsumerFaultCalledOff { .. }
            | CommandMoot { .. }
            | AckModeSwitched { .. }
            | FixDeployed { .. }
            | RedriveStarted { .. }
            | PartitionRevoked { .. }
            | PartitionReleased { .. }
            | StaleWorkInProgress { .. }
            | BreakerOpened { .. }
            | BreakerHalfOpen { .. }
            | BreakerClosed { .. }
            | DependencySlowed { .. } => None,
        }
    }
}

/// Everything one step did: the facts it produced, at one instant.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Step<'a> {
    /// 1 for the first step of a run.
    pub index: u64,
    pub time_us: Micros,
    pub facts: &'a [Fact],
}
