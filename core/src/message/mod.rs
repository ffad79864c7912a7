//! Messages and their copies.
//!
//! A *message* is what a producer means to send once: it has an id that stays the same
//! across publish retries, outbox re-publishes and redrives (so consumers can recognise a
//! duplicate). A *copy* is one stored instance of it in one queue: a fan-out makes one
//! copy per subscription, and a publish retry the broker cannot recognise makes a second
//! copy in the same queue. Every message and every copy has exactly one fate at every
//! instant; the accounting invariant checks it after each step.

mod pack;

use serde::Serialize;

use crate::scenario::{Op, Poison};
use crate::step::{Attempt, ConsumerId, CopyId, MsgId, ProducerId, QueueId};
use crate::time::{Micros, When};

/// The id a publish of `msg` carries, the message id consumers see: the message id
/// itself when ids are stable, else a fresh one per publish attempt (the first attempt
/// keeps the message id).
pub fn event_id(msg: MsgId, attempt: Attempt, stable: bool) -> MsgId {
    if stable || attempt <= 1 {
        msg
    } else {
        MsgId::new((u64::from(attempt) << 40) | msg.get())
    }
}

/// Where a message stands between its producer and the broker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PublishFate {
    /// Still with the producer: in its outbox, held back by backpressure, on the wire, or
    /// waiting for a confirm or a retry.
    Pending,
    /// The broker stored it (at least one copy exists), whether or not the producer knows.
    Stored,
    /// The broker refused it (queue full, admission control) and the producer gave up.
    Refused,
    /// It matched no binding: dropped, or returned to the producer if mandatory.
    Unroutable,
    /// The producer gave up after its last publish attempt went unconfirmed and was lost.
    GaveUp,
    /// Never published: the service committed its state and crashed before publishing.
    NeverPublished,
}

/// Where a copy is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fate {
    /// In its queue, visible, waiting for a consumer.
    Waiting,
    /// Handed to a consumer and not settled (leased, or acked on delivery and still being
    /// processed).
    InFlight,
    /// Failed, waiting out its backoff before it becomes visible again.
    RetryWaiting,
    /// Its work is finished and the broker is done with it (the effect may have been
    /// skipped as a duplicate, stale, or refused by a business rule: see the facts).
    Done,
    /// In the queue's dead-letter queue: not processed, kept for diagnosis and redrive.
    DeadLettered,
    /// Expired (TTL) before any consumer finished it.
    Expired,
    /// Dropped to make room (overflow: drop oldest).
    Dropped,
    /// Gone without its effect, and nobody will retry it.
    Lost,
}

impl Fate {
    pub const ALL: [Fate; 8] = [
        Fate::Waiting,
        Fate::InFlight,
        Fate::RetryWaiting,
        Fate::Done,
        Fate::DeadLettered,
        Fate::Expired,
        Fate::Dropped,
        Fate::Lost,
    ];

    pub fn index(self) -> usize {
        self as usize
    }

    /// A fate nothing can change any more (a dead-lettered copy can be redriven).
    pub fn is_final(self) -> bool {
        matches!(
            self,
            Fate::Done | Fate::Expired | Fate::Dropped | Fate::Lost
        )
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Message {
    pub producer: ProducerId,
    pub created_us: Micros,
    /// Aggregate key (account, order…), if any.
    pub key: Option<u32>,
    /// Per-key sequence number given by the producer (1, 2, …); 0 without a key.
    pub version: u32,
    /// Its operation, packed in 5 bytes (an `Op` takes 16): read it with [`Message::op`].
    #[serde(rename = "op")]
    pub packed_op: PackedOp,
    pub poison: Option<Poison>,
    /// Its routing key, as a number into the run's table of routing keys (each key is
    /// stored once; a message keeps 4 bytes instead of its own string's 24 plus heap).
    /// Read it with `Simulation::routing_key`.
    pub routing_key: RoutingKey,
    pub fate: PublishFate,
    /// Times the producer sent it to the broker.
    pub publish_attempts: u32,
    /// Records the broker appended to logs.
    pub records: u32,
    /// The publish attempt the broker refused (a nack): its confirm is no longer awaited.
    #[serde(skip)]
    pub nacked_attempt: Attempt,
    /// Six yes-or-no facts in one byte: confirmed, held back, remembered by the broker,
    /// given up after a nack, and, for its log records, read by a group and lost to a
    /// group (read and set them with the methods of the same names).
    #[serde(skip)]
    pub flags: u8,
    /// Its copies by kind of fate: [waiting/in flight/retrying, failed (dead-lettered,
    /// lost, expired, dropped), done]; the job status reads these.
    #[serde(skip)]
    pub copy_tally: [u32; 3],
    /// Its copies not yet released: the message is kept while any is.
    #[serde(skip)]
    pub held_copies: u32,
}

const CONFIRMED: u8 = 1;
const HELD_BACK: u8 = 2;
const BROKER_REMEMBERS: u8 = 4;
const GAVE_UP_ON_NACK: u8 = 8;
const LOG_READ: u8 = 16;
const LOG_LOST: u8 = 32;

impl Message {
    /// Settled with its producer (no longer pending) and without a copy held: nothing in
    /// the record keeps it, so it can be released once nothing else refers to it.
    #[inline]
    pub fn finished(&self) -> bool {
        self.fate != PublishFate::Pending && self.held_copies == 0
    }

    /// The effect it asks its consumer to apply.
    #[inline]
    pub fn op(&self) -> Op {
        self.packed_op.get()
    }

    /// Copies the broker stored in queues (whatever their fate since).
    pub fn copies(&self) -> u32 {
        self.copy_tally.iter().sum()
    }

    /// The broker confirmed a publish of it to its producer.
    #[inline]
    pub fn confirmed(&self) -> bool {
        self.flags & CONFIRMED != 0
    }

    /// Held back by backpressure at its producer (not on the wire, no confirm awaited).
    #[inline]
    pub fn held_back(&self) -> bool {
        self.flags & HELD_BACK != 0
    }

    /// The broker remembers this publish for an idempotent producer's dedup: it stored it,
    /// and no broker crash has since lost every stored copy.
    #[inline]
    pub fn broker_remembers(&self) -> bool {
        self.flags & BROKER_REMEMBERS != 0
    }

    /// Its producer was nacked (a queue it routes to refused it) and gave up on it, though
    /// another queue stored a copy: the copies stay and are delivered, and the job fails.
    #[inline]
    pub fn gave_up_on_nack(&self) -> bool {
        self.flags & GAVE_UP_ON_NACK != 0
    }

    /// A group reading one of its log records finished it (its effect applied, refused, or
    /// skipped as a duplicate or a stale version).
    #[inline]
    pub fn log_read(&self) -> bool {
        self.flags & LOG_READ != 0
    }

    /// A group reading one of its log records will never finish it: the record expired
    /// before the group read it, was skipped (its offset committed before processing), or
    /// was dead-lettered where no group reads.
    #[inline]
    pub fn log_lost(&self) -> bool {
        self.flags & LOG_LOST != 0
    }

    pub fn set_log_read(&mut self) {
        self.set_flag(LOG_READ, true);
    }

    pub fn set_log_lost(&mut self, on: bool) {
        self.set_flag(LOG_LOST, on);
    }

    pub fn set_confirmed(&mut self, on: bool) {
        self.set_flag(CONFIRMED, on);
    }

    pub fn set_held_back(&mut self, on: bool) {
        self.set_flag(HELD_BACK, on);
    }

    pub fn set_broker_remembers(&mut self, on: bool) {
        self.set_flag(BROKER_REMEMBERS, on);
    }

    pub fn set_gave_up_on_nack(&mut self, on: bool) {
        self.set_flag(GAVE_UP_ON_NACK, on);
    }

    fn set_flag(&mut self, flag: u8, on: bool) {
        if on {
            self.flags |= flag;
        } else {
            self.flags &= !flag;
        }
    }
}

/// An [`Op`] in 5 bytes with no alignment (a kind and a 32-bit amount), so that it packs
/// beside the record's other small fields: an `Op` is 16 bytes (an `i64` amount and its
/// tag). Scenario validation keeps amounts within `0..=limits::AMOUNT_MAX` (10^9), which
/// fits an `i32`. Serializes as the `Op` it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PackedOp {
    kind: u8,
    amount: [u8; 4],
}

impl PackedOp {
    /// Packs `op`.
    ///
    /// # Panics
    /// If its amount does not fit 32 bits (validation refuses such scenarios).
    pub fn new(op: Op) -> Self {
        let (kind, amount) = match op {
            Op::Increment => (0, 0),
            Op::SetStatus => (1, 0),
            Op::Deposit(n) => (2, n),
            Op::Withdraw(n) => (3, n),
        };
        let amount = i32::try_from(amount).expect("amounts are validated to fit 32 bits");
        Self {
            kind,
            amount: amount.to_le_bytes(),
        }
    }

    /// The operation.
    #[inline]
    pub fn get(self) -> Op {
        let amount = i64::from(i32::from_le_bytes(self.amount));
        match self.kind {
            0 => Op::Increment,
            1 => Op::SetStatus,
            2 => Op::Deposit(amount),
            _ => Op::Withdraw(amount),
        }
    }
}

impl Serialize for PackedOp {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.get().serialize(s)
    }
}

/// A routing key of the run: its number in the run's [`RoutingKeys`]. The empty key is
/// number 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct RoutingKey(u32);

/// The routing keys a run's messages carried, each stored once (a scenario has a few:
/// its producers' lists and scripts), so that a message record holds a [`RoutingKey`].
#[derive(Clone, Debug)]
pub struct RoutingKeys {
    names: Vec<Box<str>>,
    numbers: std::collections::BTreeMap<Box<str>, u32>,
}

impl Default for RoutingKeys {
    fn default() -> Self {
        Self {
            names: vec!["".into()],
            numbers: std::collections::BTreeMap::new(),
        }
    }
}

impl RoutingKeys {
    /// The number of `key`, given it on first sight.
    pub fn intern(&mut self, key: &str) -> RoutingKey {
        if key.is_empty() {
            return RoutingKey(0);
        }
        if let Some(&n) = self.numbers.get(key) {
            return RoutingKey(n);
        }
        let n = u32::try_from(self.names.len()).expect("fewer routing keys than scripted messages");
        self.names.push(key.into());
        self.numbers.insert(key.into(), n);
        RoutingKey(n)
    }

    /// The key numbered `key` (by this table).
    #[inline]
    pub fn name(&self, key: RoutingKey) -> &str {
        &self.names[key.0 as usize]
    }
}

/// One accepted request's status (the 202 + job status contract).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobStatus {
    Pending,
    Running,
    Completed,
    Failed,
}

impl Fate {
    /// Index into [`Message::copy_tally`].
    pub fn tally_slot(self) -> usize {
        match self {
            Fate::Waiting | Fate::InFlight | Fate::RetryWaiting => 0,
            Fate::DeadLettered | Fate::Lost | Fate::Expired | Fate::Dropped => 1,
            Fate::Done => 2,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct MessageCopy {
    pub msg: MsgId,
    pub queue: QueueId,
    pub fate: Fate,
    /// Deliveries so far; the newest delivery is attempt number `attempts`.
    pub attempts: Attempt,
    /// Failed attempts since it last entered the queue (the retry budget).
    pub failures: u32,
    /// Consumer of the newest delivery: read it with [`MessageCopy::holder`].
    pub holder: Holder,
    /// The broker already forgot it (acked on delivery, or lost in a broker crash while a
    /// consumer was working on it): no lease, no redelivery.
    pub settled_at_broker: bool,
    /// Which id the copy carries on the wire, with its source (the producer): 0 for the
    /// message id, or, when the relay mints a new id per attempt, the publish attempt
    /// whose id it carries. Read the id with [`MessageCopy::event_id`] (4 bytes here
    /// instead of the id's 8).
    #[serde(skip)]
    pub event_attempt: Attempt,
    /// Survives a broker restart (persistent message in a durable queue).
    pub persistent: bool,
    pub stored_us: Micros,
    /// When it last entered the waiting line (for age and TTL), and its place in line.
    pub enqueued_us: Micros,
    pub line_seq: u64,
    /// Its first delivery, if any ([`When`]: an optional instant in 8 bytes).
    pub first_delivered_us: When,
    /// One slot for two instants a copy never needs at once (8 bytes saved per copy):
    /// while it is in flight, when the lease of its newest delivery runs out (never for a
    /// delivery without a lease); once done, when its work finished. Read it with
    /// [`MessageCopy::lease_until_us`] and [`MessageCopy::done_us`], which look at the fate.
    pub lease_or_done_us: When,
    /// What few copies ever need (redrives, gap waits, SQS duplicates, a crash that
    /// forgot it), behind one pointer: see [`CopyRare`] and the accessors.
    #[serde(flatten)]
    pub rare: Rare<CopyRare>,
}

/// Fields of a copy that stay at their defaults for nearly every copy. Kept out of line
/// (one `Option<Box<..>>`, 8 bytes, allocated the first time one is set) so that the
/// record every live copy holds stays small (docs/performance.md, "Bytes per live
/// message").
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CopyRare {
    /// The broker forgot it in a crash (it was not persisted) while a consumer was
    /// processing it: the consumer's outcome decides its fate.
    pub forgotten_in_crash: bool,
    /// Times it was redriven from the dead-letter queue.
    pub redrives: u32,
    /// Deliveries it had had when it was last redriven. A redriven message is a new
    /// message to the queue (SQS gives it a new receive count, a RabbitMQ quorum queue a
    /// new delivery count), so the delivery limit counts the deliveries since then.
    pub deliveries_at_redrive: u32,
    /// When a wait_for_gap consumer first held it back for a missing predecessor (since
    /// it last entered the queue): the gap timeout counts from here.
    pub gap_since_us: Option<Micros>,
    /// SQS at-least-once: the copy whose receive left this one behind.
    pub duplicate_of: Option<CopyId>,
    /// SQS at-least-once: the duplicate this copy's receive left behind (the other side
    /// of `duplicate_of`), so that an ack can tell whether the message is still held.
    pub twin: Option<CopyId>,
    /// SQS at-least-once: receives of the other copy of the pair that count toward this
    /// one's receive count. The receive count (`ApproximateReceiveCount`) is the
    /// message's, not a copy's: a receive of either copy raises it, and the redrive
    /// policy's `maxReceiveCount` compares it. Counted since both were last the same
    /// message (a redrive makes a new one).
    pub twin_receives: u32,
}

/// Rarely set fields of a record, out of line: nothing (a null pointer) while they all
/// hold their defaults, a box once one is set. Reads see the defaults when absent;
/// serialized, it is the fields themselves (defaults when absent).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rare<T>(Option<Box<T>>);

impl<T: Default> Rare<T> {
    /// The fields, if any was ever set (`None`: all at their defaults).
    #[inline]
    pub fn get(&self) -> Option<&T> {
        self.0.as_deref()
    }

    /// The fields to change, allocated (at their defaults) on first use.
    pub fn get_mut(&mut self) -> &mut T {
        self.0.get_or_insert_with(Box::default)
    }

    /// The fields, to change only if they already exist (no allocation to reset one).
    #[inline]
    pub fn existing_mut(&mut self) -> Option<&mut T> {
        self.0.as_deref_mut()
    }
}

impl<T: Default + Serialize> Serialize for Rare<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Some(fields) => fields.serialize(s),
            None => T::default().serialize(s),
        }
    }
}

/// The consumer holding a copy, if any, in 4 bytes (an `Option<ConsumerId>` takes 8):
/// `u32::MAX` for none, a number no consumer has (scenarios have a few dozen).
/// Serializes as the option it stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Holder(u32);

impl Holder {
    pub const NONE: Holder = Holder(u32::MAX);

    /// The consumer.
    ///
    /// # Panics
    /// If its number is `u32::MAX` (validation keeps consumers to a few dozen).
    pub fn of(consumer: ConsumerId) -> Self {
        let n = u32::try_from(consumer.index()).expect("consumers are few");
        assert_ne!(n, u32::MAX, "consumers are few");
        Self(n)
    }

    #[inline]
    pub fn get(self) -> Option<ConsumerId> {
        (self != Self::NONE).then(|| ConsumerId::from_index(self.0 as usize))
    }
}

impl Serialize for Holder {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.get().serialize(s)
    }
}

impl MessageCopy {
    /// Its fate is final: it can be released once no consumer holds it.
    #[inline]
    pub fn finished(&self) -> bool {
        self.fate.is_final()
    }

    /// Consumer of the newest delivery, if it was ever delivered.
    #[inline]
    pub fn holder(&self) -> Option<ConsumerId> {
        self.holder.get()
    }

    /// The id it carries on the wire (see [`event_id`]).
    #[inline]
    pub fn event_id(&self) -> MsgId {
        event_id(self.msg, self.event_attempt, false)
    }

    /// When the lease of its current delivery runs out: `None` unless it is in flight
    /// under a lease (stale leases of earlier deliveries are not kept).
    #[inline]
    pub fn lease_until_us(&self) -> Option<Micros> {
        (self.fate == Fate::InFlight)
            .then(|| self.lease_or_done_us.get())
            .flatten()
    }

    /// When its work finished: `None` unless its fate is `Done`.
    #[inline]
    pub fn done_us(&self) -> Option<Micros> {
        (self.fate == Fate::Done)
            .then(|| self.lease_or_done_us.get())
            .flatten()
    }

    /// The broker forgot it in a crash while a consumer was processing it.
    #[inline]
    pub fn forgotten_in_crash(&self) -> bool {
        self.rare.get().is_some_and(|r| r.forgotten_in_crash)
    }

    /// Times it was redriven from the dead-letter queue.
    #[inline]
    pub fn redrives(&self) -> u32 {
        self.rare.get().map_or(0, |r| r.redrives)
    }

    /// Deliveries since it last entered the queue from outside: all of them, or those
    /// since its last redrive, plus the receives of its SQS duplicate (the receive count
    /// is the message's). The broker's delivery limit counts these.
    pub fn deliveries_toward_limit(&self) -> u32 {
        let (base, twin) = self
            .rare
            .get()
            .map_or((0, 0), |r| (r.deliveries_at_redrive, r.twin_receives));
        self.attempts.saturating_sub(base).saturating_add(twin)
    }

    /// Receives of its SQS duplicate that count as the message's (see
    /// [`CopyRare::twin_receives`]).
    pub fn twin_receives(&self) -> u32 {
        self.rare.get().map_or(0, |r| r.twin_receives)
    }

    /// When a wait_for_gap consumer first held it back (since it last entered the queue).
    #[inline]
    pub fn gap_since_us(&self) -> Option<Micros> {
        self.rare.get().and_then(|r| r.gap_since_us)
    }

    /// SQS at-least-once: the copy whose receive left this one behind.
    #[inline]
    pub fn duplicate_of(&self) -> Option<CopyId> {
        self.rare.get().and_then(|r| r.duplicate_of)
    }

    /// The other copy of an SQS duplicate pair, whichever side this one is.
    pub fn twin(&self) -> Option<CopyId> {
        self.rare.get().and_then(|r| r.duplicate_of.or(r.twin))
    }
}

/// What a dead-letter queue keeps about a copy.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeadLetter {
    pub copy: CopyId,
    pub msg: MsgId,
    pub reason: crate::step::DeadLetterReason,
    pub attempts: Attempt,
    pub first_attempt_us: Option<Micros>,
    pub last_attempt_us: Micros,
    pub source: QueueId,
}
