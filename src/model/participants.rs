//! Who took part in a fact, and how: the one table the views share. A fact's message
//! token (`flights`), the cards outlined when it is narrated (`flights::touched`) and its
//! arrow in a message's history (`lineage`) all start from [`of`]; each view only adds
//! what is its own (a token's colour and label, an arrow's text and the lifelines of one
//! message's story).

use brokerlab_core::step::{LossReason, Moot};
use brokerlab_core::{
    ConsumerId, CopyId, Fact, GroupId, LogId, MemberId, ProducerId, QueueId, Simulation,
};

/// A component that takes part in a fact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Party {
    /// The producer service itself (it creates and commits).
    Producer(ProducerId),
    /// Whoever publishes for the producer: the service, or its outbox relay.
    Publisher(ProducerId),
    /// The broker as a publisher meets it: where a publish arrives and where its answer
    /// comes from, before any queue or log is named.
    Exchange,
    /// The broker as a whole (a crash, a copy nobody can place).
    Broker,
    Queue(QueueId),
    /// A queue's dead-letter queue.
    DeadLetters(QueueId),
    Log(LogId),
    /// The log a group reads: the fact does not name it, each view finds it.
    ReadLog(GroupId),
    Consumer(ConsumerId),
    /// The consumer holding the copy when the fact happened: the fact does not name it.
    Holder,
    /// A consumer group as a whole (its offsets, its rebalances).
    Group(GroupId),
    Member(GroupId, MemberId),
    Database,
}

/// What kind of move a fact is. The token kinds ([`Move::flies`]) and the arrow styles
/// both follow from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    /// Something happens, or the message moves on, with nothing to animate.
    Plain,
    /// The message reaches a queue or a log from its producer.
    Publish,
    /// The broker's confirm goes back to the producer.
    Confirm,
    /// A delivery: a copy to a consumer, a record to a group member.
    Deliver,
    Ack,
    /// An answer that is not an ack (a lease extended).
    Answer,
    /// Something went wrong, nothing moves.
    Failure,
    /// A handler failure going back to the broker (to be retried or dead-lettered).
    Nack,
    DeadLetter,
    Redrive,
    /// A copy vanished where it was, and nobody will retry it.
    Loss,
    /// An effect applied again.
    Duplicate,
    /// An email sent again (a duplicate with nothing to animate).
    Resent,
}

impl Move {
    /// Whether a token flies for it.
    pub fn flies(self) -> bool {
        !matches!(
            self,
            Move::Plain | Move::Answer | Move::Failure | Move::Resent
        )
    }
}

/// Who took part in a fact: `from` and `to` (the same party when it happened at one
/// place), and the kind of move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    pub from: Party,
    pub to: Party,
    pub moves: Move,
}

impl Part {
    /// Both ends, `from` first (once when they are the same).
    pub fn parties(&self) -> impl Iterator<Item = Party> {
        let to = (self.to != self.from).then_some(self.to);
        std::iter::once(self.from).chain(to)
    }
}

fn go(from: Party, to: Party, moves: Move) -> Option<Part> {
    Some(Part { from, to, moves })
}

fn at(party: Party, moves: Move) -> Option<Part> {
    go(party, party, moves)
}

/// The queue a copy is stored in (copies are never forgotten; the broker if one were).
fn queue_of(sim: &Simulation, copy: CopyId) -> Party {
    sim.copy(copy)
        .map_or(Party::Broker, |c| Party::Queue(c.queue))
}

/// Who took part in `fact`, and how; `None` for the facts about no component in
/// particular (setting changes, and the few the views do not show yet). `sim` is the
/// simulation at or after the fact: only what never changes is read (a copy's queue).
pub fn of(sim: &Simulation, fact: &Fact) -> Option<Part> {
    producer_side(fact)
        .or_else(|| broker_side(sim, fact))
        .or_else(|| consumer_side(sim, fact))
        .or_else(|| group_side(fact))
        .or_else(|| moot_side(fact))
}

/// The producer and its publishes, up to the broker's answer.
fn producer_side(fact: &Fact) -> Option<Part> {
    use Fact::*;
    use Move::*;
    use Party::*;
    match *fact {
        Created { producer, .. }
        | StateCommitted {
            producer,
            outbox: false,
            ..
        }
        | RequestRefused { producer }
        | ProducerCrashArmed { producer, .. }
        | ProducerCrashed { producer, .. }
        | ProducerRestarted { producer, .. }
        | ConfirmDropArmed { producer, .. } => at(Producer(producer), Plain),
        StateCommitted { producer, .. } => go(Producer(producer), Publisher(producer), Plain),
        EventNeverPublished { producer, .. } => at(Producer(producer), Failure),
        PublishSent { producer, .. } => go(Publisher(producer), Exchange, Plain),
        PublishFailed { producer, .. } | OutOfSequence { producer, .. } => {
            go(Publisher(producer), Exchange, Failure)
        }
        Throttled { producer, .. } | OutboxMarked { producer, .. } | Buffered { producer, .. } => {
            at(Publisher(producer), Plain)
        }
        BufferDropped { producer, .. } => at(Publisher(producer), Failure),
        ConfirmTimedOut { producer, .. }
        | OutboxRetryScheduled { producer, .. }
        | OutboxRowParked { producer, .. } => at(Publisher(producer), Failure),
        Confirmed { producer, .. } => go(Exchange, Publisher(producer), Confirm),
        ConfirmLost { producer, .. }
        | Unroutable {
            producer,
            returned: true,
            ..
        } => go(Exchange, Publisher(producer), Failure),
        Unroutable { .. } => at(Exchange, Failure),
        // Least privilege: refused at the door, and the producer is told.
        PublishDenied { producer, .. } => go(Exchange, Publisher(producer), Failure),
        Deduplicated { .. } => at(Exchange, Plain),
        Refused {
            producer,
            queue,
            told: true,
            ..
        } => go(Queue(queue), Publisher(producer), Failure),
        // Discarded without a word (no publisher confirms): nothing goes back.
        Refused { queue, .. } => at(Queue(queue), Failure),
        Stored {
            producer, queue, ..
        } => go(Publisher(producer), Queue(queue), Publish),
        Appended { producer, log, .. } => go(Publisher(producer), Log(log), Publish),
        _ => None,
    }
}

/// A command that found nothing to act on, at the component it named.
fn moot_side(fact: &Fact) -> Option<Part> {
    use Moot::*;
    use Party::*;
    let Fact::CommandMoot { moot, .. } = *fact else {
        return None;
    };
    let party = match moot {
        RestartConsumerUp { consumer }
        | RestartConsumerStopped { consumer }
        | CrashConsumerDown { consumer }
        | NoAckToLose { consumer }
        | NoAckAfterCommit { consumer }
        | AckDropAlreadyArmed { consumer }
        | CrashAlreadyArmed { consumer, .. } => Consumer(consumer),
        RestartProducerUp { producer }
        | CrashProducerDown { producer }
        | PoisonProducerDown { producer }
        | NoConfirmToLose { producer }
        | ConfirmDropAlreadyArmed { producer } => Producer(producer),
        RestartBrokerUp | CrashBrokerDown => Broker,
        CrashMemberDown { group, member } => Member(group, member),
        RedriveEmpty { queue } => DeadLetters(queue),
        PartitionsNotGrown { log, .. } => Log(log),
    };
    at(party, Move::Plain)
}

/// The broker's queues: storing aside, what happens to a copy in a queue.
fn broker_side(sim: &Simulation, fact: &Fact) -> Option<Part> {
    use Fact::*;
    use Move::*;
    use Party::*;
    match *fact {
        BrokerCrashed { .. } | BrokerRestarted { .. } => at(Broker, Plain),
        DroppedOldest { queue, .. } | Expired { queue, .. } => at(Queue(queue), Failure),
        DependencyDown { queue, .. } => at(Queue(queue), Plain),
        DuplicateKept { queue, .. } | DedupWindowHit { queue, .. } => at(Queue(queue), Plain),
        RetryReady { copy, .. } => at(queue_of(sim, copy), Plain),
        LeaseExpired { copy, .. } => at(queue_of(sim, copy), Failure),
        RetryScheduled { copy, .. } => go(Holder, queue_of(sim, copy), Failure),
        DeadLettered { queue, .. } => go(Queue(queue), DeadLetters(queue), DeadLetter),
        Redriven { queue, .. } => go(DeadLetters(queue), Queue(queue), Redrive),
        MessageLost { copy, reason, .. } => at(lost_at(sim, copy, reason), Loss),
        _ => None,
    }
}

/// Where a copy vanished: at the consumer that had acked it before its effect, else in
/// its queue.
fn lost_at(sim: &Simulation, copy: CopyId, reason: LossReason) -> Party {
    let Some(c) = sim.copy(copy) else {
        return Party::Broker;
    };
    match (reason, c.holder()) {
        (
            LossReason::AckedBeforeEffectThenCrashed | LossReason::AckedBeforeEffectThenFailed,
            Some(consumer),
        ) => Party::Consumer(consumer),
        _ => Party::Queue(c.queue),
    }
}

/// A queue's consumers: deliveries, work, effects and answers.
fn consumer_side(sim: &Simulation, fact: &Fact) -> Option<Part> {
    use Fact::*;
    use Move::*;
    use Party::*;
    match *fact {
        Delivered { copy, consumer, .. } => go(queue_of(sim, copy), Consumer(consumer), Deliver),
        Acked { copy, consumer, .. } | AckedOnDelivery { copy, consumer, .. } => {
            go(Consumer(consumer), queue_of(sim, copy), Ack)
        }
        HandlerFailed { copy, consumer, .. } => go(Consumer(consumer), queue_of(sim, copy), Nack),
        AckIgnored { copy, consumer, .. }
        | AckLost { copy, consumer, .. }
        | Requeued { copy, consumer, .. } => go(Consumer(consumer), queue_of(sim, copy), Failure),
        LeaseExtended { copy, consumer, .. } => go(Consumer(consumer), queue_of(sim, copy), Answer),
        ProcessingStarted { consumer, .. }
        | DuplicateSkipped { consumer, .. }
        | StaleIgnored { consumer, .. }
        | GapWait { consumer, .. }
        | GapRecheck { consumer, .. }
        | GapSkipped { consumer, .. }
        | CrashArmed { consumer, .. }
        | AckDropArmed { consumer, .. }
        | ConsumerFaultCalledOff { consumer, .. }
        | ConsumerRestarted { consumer, .. }
        | ConsumerSlowed { consumer, .. } => at(Consumer(consumer), Plain),
        ConsumerCrashed { consumer, .. }
        | TakenForDuplicate { consumer, .. }
        | UnauthorizedEffect { consumer, .. } => at(Consumer(consumer), Failure),
        ConsumerEmailSent {
            consumer, times, ..
        } => at(Consumer(consumer), if times > 1 { Resent } else { Plain }),
        EffectCommitted {
            consumer, applied, ..
        } => go(Consumer(consumer), Database, again(applied)),
        GapReconciled { consumer, .. } => go(Consumer(consumer), Database, Plain),
        EffectRefused { consumer, .. } => go(Consumer(consumer), Database, Failure),
        _ => None,
    }
}

/// An effect applied more than once is a duplicate.
fn again(applied: u32) -> Move {
    if applied > 1 {
        Move::Duplicate
    } else {
        Move::Plain
    }
}

/// Logs and consumer groups.
fn group_side(fact: &Fact) -> Option<Part> {
    use Fact::*;
    use Move::*;
    use Party::*;
    match *fact {
        RecordsExpired { log, .. } => at(Log(log), Plain),
        RecordStarted { group, member, .. } => go(ReadLog(group), Member(group, member), Deliver),
        RecordProcessed {
            group,
            member,
            applied: 0,
            ..
        } => at(Member(group, member), Plain),
        RecordProcessed {
            group,
            member,
            applied,
            ..
        } => go(Member(group, member), Database, again(applied)),
        RecordEffectRefused { group, member, .. } => go(Member(group, member), Database, Failure),
        RecordUnauthorizedEffect { group, member, .. }
        | RecordTakenForDuplicate { group, member, .. } => at(Member(group, member), Failure),
        OutputWritten {
            group, member, log, ..
        } => go(Member(group, member), Log(log), Plain),
        EmailSent {
            group,
            member,
            times,
            ..
        } => at(
            Member(group, member),
            if times > 1 { Resent } else { Plain },
        ),
        RecordFailed { group, member, .. }
        | PollIntervalExceeded { group, member, .. }
        | CommitFailed { group, member, .. } => at(Member(group, member), Failure),
        RecordDeadLettered { group, log, .. } => {
            go(ReadLog(group), log.map_or(ReadLog(group), Log), Failure)
        }
        RecordRetrying { group, member, .. }
        | RecordStaleIgnored { group, member, .. }
        | MemberCrashArmed { group, member, .. }
        | MemberCrashed { group, member, .. }
        | MemberJoined { group, member, .. }
        | TransactionCommitted { group, member, .. }
        | TransactionAborted { group, member, .. }
        | PartitionRevoked { group, member, .. }
        | PartitionReleased { group, member, .. }
        | StaleWorkInProgress { group, member, .. } => at(Member(group, member), Plain),
        OffsetCommitted { group, .. }
        | RecordsSkipped { group, .. }
        | RebalanceStarted { group, .. }
        | PartitionAssigned { group, .. }
        | GroupRewound { group, .. }
        | SeekOutOfRange { group, .. }
        | SkipUndone { group, .. }
        | AbortedSkipped { group, .. } => at(Group(group), Plain),
        ControlRecordWritten { log, .. } => at(Log(log), Plain),
        _ => None,
    }
}
