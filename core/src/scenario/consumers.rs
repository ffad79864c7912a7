//! Consumers: how fast they work, when they ack, how they guard against duplicates and
//! disorder, how they fail and retry.

use serde::{Deserialize, Serialize};

use super::{is_false, is_one, is_zero, one};

/// A consumer process (one entry may stand for several identical replicas).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConsumerSpec {
    #[serde(default)]
    pub name: String,
    /// The queue it reads (default: the first queue).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub queue: String,
    /// How many identical consumers this entry creates.
    #[serde(default = "one")]
    pub replicas: u32,
    pub service: ServiceTime,
    /// Messages processed at the same time.
    #[serde(default = "one")]
    pub concurrency: u32,
    /// Most unfinished deliveries the broker hands this consumer (buffered + processing).
    #[serde(default = "one")]
    pub prefetch: u32,
    pub ack: AckMode,
    /// Messages handled together in one go (one slot, one service time per message).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub batch_size: u32,
    /// A batch commits as a whole: one failure rolls back and retries every message in it.
    #[serde(default, skip_serializing_if = "is_false")]
    pub batch_atomic: bool,
    /// How the handler avoids applying an effect twice.
    #[serde(default, skip_serializing_if = "Idempotency::is_none")]
    pub idempotency: Idempotency,
    /// What an `inbox` row is keyed by (with other idempotency, nothing).
    #[serde(default, skip_serializing_if = "InboxKey::is_message")]
    pub inbox_key: InboxKey,
    /// The handler acts on whatever the broker delivers ("it comes from our own broker"),
    /// without checking that the message's source may ask for its effect: a message from
    /// an unauthorised tenant has its effect applied instead of being refused.
    #[serde(default, skip_serializing_if = "is_false")]
    pub trusts_the_broker: bool,
    /// A replay window: the handler refuses a message created longer ago than this (a
    /// replayed or stale command), and it goes to the dead-letter queue at once, since
    /// waiting only makes it older. Legitimate work that waited as long is refused too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_message_age_s: Option<f64>,
    /// How the handler treats per-key versions that arrive out of order.
    #[serde(default, skip_serializing_if = "Ordering::is_none")]
    pub ordering: Ordering,
    /// How the handler fails.
    #[serde(default, skip_serializing_if = "Failures::is_default")]
    pub failures: Failures,
    #[serde(default, skip_serializing_if = "RetryPolicy::is_default")]
    pub retry: RetryPolicy,
    /// A heartbeat: while working on a delivery, the consumer extends its lease
    /// (ChangeMessageVisibility) so long work is not delivered twice.
    #[serde(default, skip_serializing_if = "is_false")]
    pub extend_visibility: bool,
    /// With `wait_for_gap`: how long a message may wait for its predecessor before the
    /// consumer gives up on the gap. Default 30 s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gap_timeout_s: Option<f64>,
    /// What giving up on a gap does.
    #[serde(default, skip_serializing_if = "GapTimeout::is_park")]
    pub on_gap_timeout: GapTimeout,
    /// After its effect commits, the handler sends an email: outside the transaction, so a
    /// redelivery the idempotency check does not catch sends it again.
    #[serde(default, skip_serializing_if = "is_false")]
    pub sends_email: bool,
    /// The dependency (by name) the handler calls for each batch, after its own work:
    /// the call's failures and timeouts are the handler's failures.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub calls: String,
}

/// What a `wait_for_gap` consumer does with a message whose predecessor never came.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GapTimeout {
    /// Dead-letter the waiting message (reason "gap timeout") for someone to look at.
    #[default]
    Park,
    /// Apply it anyway and move on: the missing version is skipped.
    Skip,
}

impl GapTimeout {
    fn is_park(&self) -> bool {
        *self == GapTimeout::Park
    }
}

/// How long processing one message takes.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ServiceTime {
    Fixed { seconds: f64 },
    Exponential { mean_s: f64 },
}

impl ServiceTime {
    pub fn mean_s(&self) -> f64 {
        match *self {
            ServiceTime::Fixed { seconds } => seconds,
            ServiceTime::Exponential { mean_s } => mean_s,
        }
    }
}

/// When the consumer tells the broker it may forget a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AckMode {
    /// Acked as soon as it is delivered, before the effect: a crash loses the work
    /// (at-most-once).
    OnDelivery,
    /// Acked after the effect commits: a crash before the ack means a redelivery
    /// (at-least-once).
    AfterCommit,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Idempotency {
    /// Every delivery applies the effect.
    #[default]
    None,
    /// Look up "already processed?" when work starts, insert the mark when the effect
    /// commits: two concurrent deliveries can both pass the check.
    CheckThenInsert,
    /// Insert (consumer group, source queue, message id) into an inbox table with a unique
    /// key, in the same transaction as the effect: a duplicate rolls back.
    Inbox,
}

impl Idempotency {
    pub(super) fn is_none(&self) -> bool {
        *self == Idempotency::None
    }
}

/// What identifies a message in an inbox: what makes two deliveries "the same".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InboxKey {
    /// Its source and id (CloudEvents' `source` + `id`): a redelivery, or a republished
    /// outbox row that kept its id, is recognised; another message never is.
    #[default]
    Message,
    /// The entity it is about (its account or order key), as a correlation or trace id
    /// would be: shared by many messages, so the first one on a key takes the row and
    /// every later, different message on that key is taken for a duplicate and skipped.
    /// A message with no key is keyed by its id.
    Entity,
}

impl InboxKey {
    pub(super) fn is_message(&self) -> bool {
        *self == InboxKey::Message
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ordering {
    /// Apply whatever arrives, in the order handlers finish.
    #[default]
    None,
    /// Skip a message whose version is not newer than the aggregate's current version.
    IgnoreStale,
    /// Also hold back a message whose predecessor has not been applied yet (a gap): it is
    /// put back and tried again later, never silently skipped.
    WaitForGap,
    /// On a gap, read the missing versions from the producer's source of truth and apply
    /// them first (a snapshot catch-up); the late predecessors are then stale.
    Reconcile,
}

impl Ordering {
    pub(super) fn is_none(&self) -> bool {
        *self == Ordering::None
    }
}

/// How a handler fails, apart from poison messages (which always fail).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Failures {
    /// Probability that one attempt fails with a transient error.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub transient_p: f64,
    /// Windows during which a dependency is down: every attempt that ends inside fails.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outages: Vec<Outage>,
}

impl Failures {
    pub(super) fn is_default(&self) -> bool {
        *self == Failures::default()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Outage {
    pub from_s: f64,
    pub until_s: f64,
}

/// What happens after a failed attempt. A field left out keeps its default, so a file
/// (or a comparison's change) may set one alone.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RetryPolicy {
    /// Attempts in all, the first one included; then the message is dead-lettered.
    pub max_attempts: u32,
    /// Delay before the 2nd attempt; it doubles each time, up to `backoff_cap_s`.
    pub backoff_base_s: f64,
    pub backoff_cap_s: f64,
    pub jitter: Jitter,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 5,
            backoff_base_s: 1.0,
            backoff_cap_s: 60.0,
            jitter: Jitter::Full,
        }
    }
}

impl RetryPolicy {
    pub(super) fn is_default(&self) -> bool {
        *self == RetryPolicy::default()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Jitter {
    /// Exactly the exponential delay: failures retry in lockstep.
    None,
    /// Uniform between 0 and the exponential delay.
    Full,
    /// Half the delay plus a uniform share of the other half.
    Equal,
}
