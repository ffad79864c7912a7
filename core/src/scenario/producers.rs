//! Producers: where messages come from (a rate schedule or a script), what each carries,
//! and how it is published: directly with confirms and retries, or through an outbox.

use serde::{Deserialize, Serialize};

use super::{is_false, is_true, is_zero, yes};

/// A source of messages: a service that publishes, directly or through an outbox.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProducerSpec {
    #[serde(default)]
    pub name: String,
    pub arrivals: Arrivals,
    /// Stop after publishing this many messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// Name of the queue or exchange it publishes to (default: the first queue).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub target: String,
    /// Routing keys, used in turn, one per message (for exchanges).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub routing_keys: Vec<String>,
    /// What each message carries.
    #[serde(default, skip_serializing_if = "PayloadSpec::is_default")]
    pub payload: PayloadSpec,
    /// Explicit messages instead of generated ones: each is published at its time.
    /// When present, `arrivals` is ignored.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub script: Vec<ScriptedMessage>,
    #[serde(default, skip_serializing_if = "PublishSpec::is_default")]
    pub publish: PublishSpec,
    /// How the service's own state change and the publish relate.
    #[serde(default, skip_serializing_if = "Handoff::is_direct")]
    pub handoff: Handoff,
}

/// When a producer publishes: a rate schedule and how arrivals are spaced within it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Arrivals {
    pub process: ArrivalProcess,
    /// Piecewise-constant rate: each segment starts at `from_s` and lasts until the next
    /// one; the last lasts forever (use a rate of 0 to stop). Must start at 0.
    pub schedule: Vec<RateSegment>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArrivalProcess {
    /// Evenly spaced: one message every 1/rate seconds.
    Constant,
    /// Exponential gaps (memoryless arrivals) with mean 1/rate.
    Poisson,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateSegment {
    pub from_s: f64,
    pub rate_per_s: f64,
}

impl Arrivals {
    pub fn steady(process: ArrivalProcess, rate_per_s: f64) -> Self {
        Self {
            process,
            schedule: vec![RateSegment {
                from_s: 0.0,
                rate_per_s,
            }],
        }
    }
}

/// The content of generated messages.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PayloadSpec {
    /// Number of distinct aggregate keys (accounts, orders…); 0 means no key.
    #[serde(default)]
    pub keys: u32,
    /// Share of messages that carry key 0, the hot key (the rest spread evenly).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub hot_key_share: f64,
    /// Share of messages that are poison: they fail every time, whatever the retries.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub poison_share: f64,
    /// The effect each message asks for.
    #[serde(default)]
    pub op: Op,
}

impl PayloadSpec {
    pub(super) fn is_default(&self) -> bool {
        *self == PayloadSpec::default()
    }
}

/// The effect a message asks its consumer to apply to the database.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// `count += 1` on the aggregate: applying it twice counts twice.
    #[default]
    Increment,
    /// `status = done`: naturally idempotent, applying it twice changes nothing more.
    SetStatus,
    /// `balance += amount`.
    Deposit(i64),
    /// `balance -= amount`, refused if the balance would go below zero.
    Withdraw(i64),
}

/// Why a poison message can never be processed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Poison {
    MalformedPayload,
    UnknownSchemaVersion,
    UnauthorizedTenant,
}

/// One explicit message of a producer's script.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedMessage {
    pub at_s: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<u32>,
    #[serde(default)]
    pub op: Op,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poison: Option<Poison>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub routing_key: String,
}

/// The producer ↔ broker hop.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublishSpec {
    /// Wait for the broker's confirm; without it the producer never knows what happened.
    #[serde(default)]
    pub confirms: bool,
    /// No confirm after this long: the outcome is unknown and the producer publishes again.
    #[serde(default = "default_confirm_timeout_s")]
    pub confirm_timeout_s: f64,
    /// Publish attempts per message, the first included, before giving up.
    #[serde(default = "default_publish_attempts")]
    pub max_attempts: u32,
    /// Producer id + sequence number let the broker drop a publish it already stored.
    #[serde(default, skip_serializing_if = "is_false")]
    pub idempotent: bool,
    /// Persistent messages survive a broker restart in a durable queue.
    #[serde(default = "yes")]
    pub persistent: bool,
    /// A publish that matches no binding is returned to the producer instead of dropped.
    #[serde(default, skip_serializing_if = "is_false")]
    pub mandatory: bool,
    /// A producer to a log that waits for no confirm keeps the records it cannot send
    /// while the broker is down in its buffer, and sends them when the broker is back;
    /// one still unsent after this long is dropped (Kafka's `delivery.timeout.ms`,
    /// 120 s by default).
    #[serde(
        default = "default_delivery_timeout_s",
        skip_serializing_if = "is_default_delivery_timeout"
    )]
    pub delivery_timeout_s: f64,
}

fn default_confirm_timeout_s() -> f64 {
    1.0
}
fn default_publish_attempts() -> u32 {
    5
}
fn default_delivery_timeout_s() -> f64 {
    120.0
}
fn is_default_delivery_timeout(s: &f64) -> bool {
    *s == default_delivery_timeout_s()
}

impl Default for PublishSpec {
    fn default() -> Self {
        Self {
            confirms: false,
            confirm_timeout_s: default_confirm_timeout_s(),
            max_attempts: default_publish_attempts(),
            idempotent: false,
            persistent: true,
            mandatory: false,
            delivery_timeout_s: default_delivery_timeout_s(),
        }
    }
}

impl PublishSpec {
    pub(super) fn is_default(&self) -> bool {
        *self == PublishSpec::default()
    }
}

/// How a service's state change and its event reach the broker.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Handoff {
    /// Just publish (the message is the whole story).
    #[default]
    Direct,
    /// Commit the state, then publish in a second step: a crash in between leaves state
    /// with no event (the dual write).
    CommitThenPublish,
    /// State and an outbox row commit in one local transaction (the request is accepted:
    /// HTTP 202 + job id); a relay publishes unsent rows and marks them sent.
    Outbox {
        /// The relay looks for unsent rows this often.
        relay_poll_s: f64,
        /// The relay publishes a row with the id committed in it, every attempt (the
        /// default). `false` mints a new id per attempt: consumers' inboxes can no longer
        /// recognise a republished row as the same event.
        #[serde(default = "yes", skip_serializing_if = "is_true")]
        stable_ids: bool,
    },
}

impl Handoff {
    fn is_direct(&self) -> bool {
        *self == Handoff::Direct
    }
}

/// A steady `rate_per_s` from `at_s` on, as [`super::Command::SetArrivals`] takes it
/// (relative to `at_s`): the changes `schedule` (absolute) plans after `at_s` — the end of
/// a burst, a stop — still happen. Both ways the page changes a rate make their command
/// with it: now, from the parameters, on the schedule in force; at an instant, from the
/// schedule's form, on the one the scenario plans then ([`super::Scenario::planned_arrivals`]).
pub fn steady_from(schedule: &[RateSegment], at_s: f64, rate_per_s: f64) -> Vec<RateSegment> {
    let now = RateSegment {
        from_s: 0.0,
        rate_per_s,
    };
    let later = schedule
        .iter()
        .filter(|s| s.from_s > at_s)
        .map(|s| RateSegment {
            from_s: s.from_s - at_s,
            rate_per_s: s.rate_per_s,
        });
    std::iter::once(now).chain(later).collect()
}

/// Replaces what remains of `schedule` from `at_s` on by `new` (relative to `at_s`).
pub fn splice_schedule(schedule: &mut Vec<RateSegment>, at_s: f64, new: &[RateSegment]) {
    schedule.retain(|s| s.from_s < at_s);
    if schedule.is_empty() {
        // Only when the change is at 0: the new schedule is the whole schedule.
        schedule.push(RateSegment {
            from_s: 0.0,
            rate_per_s: 0.0,
        });
    }
    schedule.extend(new.iter().map(|s| RateSegment {
        from_s: at_s + s.from_s,
        rate_per_s: s.rate_per_s,
    }));
    // A change at 0 replaces the placeholder first segment.
    if schedule.len() > 1 && schedule[1].from_s <= schedule[0].from_s {
        schedule.remove(0);
    }
}
