//! What a step reports: past-tense facts, each naming who acted, on which message and
//! attempt, and why. The app animates and narrates from these alone; the CLI can print
//! them; the determinism tests hash them.

use serde::Serialize;

use crate::scenario::CrashPoint;
use crate::time::Micros;

pub type MsgId = u64;
pub type ProducerId = u32;
pub type ConsumerId = u32;
/// 1 for the first delivery of a message, 2 for the first redelivery, and so on.
pub type Attempt = u32;

/// Who caused something that no model rule caused by itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Trigger {
    /// Written in the scenario's fault schedule.
    Scheduled,
    /// Asked for by the user while the run was playing.
    User,
}

/// Why a message's fate became "lost".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LossReason {
    /// The broker forgot the message when it was delivered (ack on delivery), and the
    /// consumer holding it crashed before the effect committed.
    AckedBeforeEffectThenCrashed,
}

/// Why an ack changed nothing at the broker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IgnoredAck {
    /// The lease of that delivery had expired and the message was offered again; only the
    /// newest delivery's ack counts.
    StaleLease,
    /// The message was already acked by another delivery.
    AlreadyDone,
}

/// One thing that happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case", tag = "fact")]
pub enum Fact {
    /// A producer published a message and the queue stored it.
    Published { producer: ProducerId, msg: MsgId },
    /// The broker handed a message to a consumer. `attempt > 1` is a redelivery;
    /// `lease_until_us` is when it becomes visible again if not acked (none when the
    /// consumer acks on delivery).
    Delivered {
        msg: MsgId,
        attempt: Attempt,
        consumer: ConsumerId,
        lease_until_us: Option<Micros>,
    },
    /// The consumer acked on delivery: the broker forgets the message before any work.
    AckedOnDelivery {
        msg: MsgId,
        attempt: Attempt,
        consumer: ConsumerId,
    },
    /// The consumer started working on a delivery; it will finish at `done_at_us`.
    ProcessingStarted {
        msg: MsgId,
        attempt: Attempt,
        consumer: ConsumerId,
        done_at_us: Micros,
    },
    /// The consumer's effect committed in the database. `applied` counts how many times
    /// this message's effect has now been applied: more than 1 is a duplicate effect.
    EffectCommitted {
        msg: MsgId,
        attempt: Attempt,
        consumer: ConsumerId,
        applied: u32,
    },
    /// The broker received the ack and removed the message for good.
    Acked {
        msg: MsgId,
        attempt: Attempt,
        consumer: ConsumerId,
    },
    /// An ack arrived but changed nothing.
    AckIgnored {
        msg: MsgId,
        attempt: Attempt,
        consumer: ConsumerId,
        why: IgnoredAck,
    },
    /// A delivery's lease ran out before its ack: the message is visible again and will be
    /// redelivered. The consumer may still be working on it.
    LeaseExpired {
        msg: MsgId,
        attempt: Attempt,
        consumer: ConsumerId,
    },
    /// A crash was armed: it will strike when the consumer reaches `point`.
    CrashArmed {
        consumer: ConsumerId,
        point: CrashPoint,
        trigger: Trigger,
    },
    /// A consumer process died at `point`, dropping everything it held in memory.
    ConsumerCrashed {
        consumer: ConsumerId,
        point: CrashPoint,
        trigger: Trigger,
        restart_at_us: Option<Micros>,
    },
    /// A message's work vanished with a crash and nobody will redo it.
    MessageLost {
        msg: MsgId,
        attempt: Attempt,
        consumer: ConsumerId,
        reason: LossReason,
    },
    /// A crashed consumer came back, empty-handed, and asks for work again.
    ConsumerRestarted {
        consumer: ConsumerId,
        trigger: Trigger,
    },
}

impl Fact {
    /// The message this fact is about, if any.
    pub fn msg(&self) -> Option<MsgId> {
        match *self {
            Fact::Published { msg, .. }
            | Fact::Delivered { msg, .. }
            | Fact::AckedOnDelivery { msg, .. }
            | Fact::ProcessingStarted { msg, .. }
            | Fact::EffectCommitted { msg, .. }
            | Fact::Acked { msg, .. }
            | Fact::AckIgnored { msg, .. }
            | Fact::LeaseExpired { msg, .. }
            | Fact::MessageLost { msg, .. } => Some(msg),
            Fact::CrashArmed { .. }
            | Fact::ConsumerCrashed { .. }
            | Fact::ConsumerRestarted { .. } => None,
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
