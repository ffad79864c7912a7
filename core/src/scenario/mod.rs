//! The scenario: one serde value that describes a whole run — seed, topology, rates,
//! policies and fault schedule. It is what a file, a share link or a lesson preset holds,
//! so decoding is strict (unknown fields are errors) and [`Scenario::validate`] bounds
//! every size before a simulation is built from it. Field names carry their unit last
//! (`_s` seconds, `_per_s` rates, `_us` microseconds).

use serde::{Deserialize, Serialize};

pub mod dependency;
mod log_rings;

use crate::ids::{ConsumerId, GroupId, ProducerId};
use crate::time::{secs_to_us, Micros};
pub use dependency::{Admission, BreakerSpec, DependencySpec, RetryBudget, Slowdown};

/// The scenario format version this build writes. Files of earlier versions are
/// migrated on load (see `migrate.rs`): version 1 called the scheduled commands `faults`;
/// in version 2 a bounded queue without `overflow` rejected publishes whatever its
/// flavour; up to version 3 two producers, consumers or consumer groups could have the
/// same name (version 4 refuses it; older files get the later one renamed "C1 (2)").
pub const SCENARIO_VERSION: u32 = 4;

/// Limits on what a scenario may ask for, so untrusted input cannot exhaust memory or time.
pub mod limits {
    pub const PRODUCERS_MAX: usize = 32;
    pub const QUEUES_MAX: usize = 64;
    pub const EXCHANGES_MAX: usize = 16;
    pub const BINDINGS_MAX: usize = 64;
    pub const ROUTING_KEYS_MAX: usize = 64;
    pub const SCRIPT_MAX: usize = 10_000;
    pub const CONSUMERS_MAX: usize = crate::names::CONSUMERS_MAX;
    pub const CONCURRENCY_MAX: u32 = 1_024;
    pub const PREFETCH_MAX: u32 = 100_000;
    pub const SEGMENTS_MAX: usize = 256;
    pub const OUTAGES_MAX: usize = 64;
    pub const FAULTS_MAX: usize = 1_000;
    pub const INTERVENTIONS_MAX: usize = 10_000;
    pub const ATTEMPTS_MAX: u32 = 1_000;
    pub const KEYS_MAX: u32 = 1_000_000;
    /// Sanity bound on a count a field gives (a queue's `max_length`, a log's
    /// `retention_records`): far beyond any run, small enough that sums of a few of them
    /// cannot overflow. It does not bound a run's messages: the work budget below does.
    pub const LENGTH_MAX: u64 = 1_000_000_000_000;
    pub const RATE_PER_S_MAX: f64 = 1_000_000.0;
    /// Ten years of simulated time: far beyond any lesson, still safely inside u64 µs.
    pub const TIME_S_MAX: f64 = 315_360_000.0;
    pub const NAME_LEN_MAX: usize = crate::names::NAME_LEN_MAX;
    pub const TEXT_LEN_MAX: usize = 4_000;
    pub const SAMPLES_MAX: u64 = 20_000;
    pub const AMOUNT_MAX: i64 = 1_000_000_000;
    pub const LOGS_MAX: usize = 16;
    pub const PARTITIONS_MAX: u32 = 256;
    pub const GROUPS_MAX: usize = 16;
    pub const MEMBERS_MAX: u32 = 256;
    /// Most consumers one command may scale a queue to.
    pub const SCALE_MAX: u32 = 64;

    // ----- the work budget -------------------------------------------------------------
    // Every run honours these, whatever its scenario says: the estimate before the run
    // refuses a scenario that would need more, and a run that still gets there stops at
    // the first step boundary past the limit, with `EndReason` saying which.

    /// Most steps a message-by-message run takes, sized for time: the core takes 1.3–4
    /// million steps per second natively (docs/performance.md), so this is 15–40 s of
    /// work. An hour at 3,000 messages per second (10.8 million messages, two steps
    /// each) fits; a run that loops without end (a lease shorter than the work) stops
    /// here. Beyond it, `mode: "auto"` runs the scenario aggregated (the `aggregate` module).
    pub const STEPS_MAX: u64 = 50_000_000;
    /// Most messages a run creates. Finished records are released (memory follows what
    /// is live), and every message costs at least one step, so this is the step budget.
    pub const MESSAGES_MAX: u64 = STEPS_MAX;
    /// Most message copies a run stores: each is at least one step (its delivery, or
    /// its drop), so fanout and publish retries are bounded by the same work.
    pub const COPIES_MAX: u64 = STEPS_MAX;
    /// Most records appended to all logs together (producers' records plus the output
    /// that consumer groups write). Log records stay in memory until retention removes
    /// them (a group may seek back and read them again), about 150 bytes each, so this
    /// bounds memory rather than time: 5 million records are under a gigabyte.
    pub const LOG_RECORDS_MAX: u64 = 5_000_000;
    /// Most copies held at once (waiting, in flight, retrying, dead-lettered): a held
    /// copy and its message cost about 50 bytes once long-lived, packed (200 while whole;
    /// docs/performance.md, "Long-lived records packed"), so this is about 250 MB (a
    /// browser tab can hold that). The
    /// estimate reads the peak off the aggregated model where it applies (`auto` then
    /// runs aggregated); the run itself stops at it otherwise.
    pub const HELD_MAX: u64 = 5_000_000;
    /// A copy in a consumer's hands (delivered, unpacked, with its timers: about 400
    /// bytes) counts this many times against [`HELD_MAX`], so deliveries held at once
    /// stay under about 625,000 (250 MB).
    pub const IN_HAND_WEIGHT: u64 = 8;
    /// Lowest positive arrival rate: one message in about 11.6 days. Slower rates would
    /// put the next arrival beyond any horizon a lesson has; use 0 to stop instead.
    pub const RATE_PER_S_MIN: f64 = 0.000_001;
}

/// The work budget of one run (see the constants of [`limits`] for why each number).
/// [`Budget::default`] is what every run gets; tests may give a smaller one through
/// `Simulation::with_budget`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Budget {
    pub steps_max: u64,
    /// Messages created (published, outbox rows, injected poison).
    pub messages_max: u64,
    pub copies_max: u64,
    pub log_records_max: u64,
    /// Copies held at once (a run past it ends with `CopiesBudget`).
    #[serde(default = "held_max_default")]
    pub held_max: u64,
}

fn held_max_default() -> u64 {
    limits::HELD_MAX
}

impl Default for Budget {
    fn default() -> Self {
        Self {
            steps_max: limits::STEPS_MAX,
            messages_max: limits::MESSAGES_MAX,
            copies_max: limits::COPIES_MAX,
            log_records_max: limits::LOG_RECORDS_MAX,
            held_max: limits::HELD_MAX,
        }
    }
}

/// A whole run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Format version: [`SCENARIO_VERSION`] once loaded (older files are migrated).
    pub version: u32,
    /// Short identifier (`burst`, `mm1`…).
    #[serde(default)]
    pub name: String,
    /// What the scenario shows, in a sentence or two.
    #[serde(default)]
    pub description: String,
    /// Seed of the run's only random generator.
    pub seed: u64,
    pub producers: Vec<ProducerSpec>,
    /// Queues, including the subscriptions of exchanges (queues bound to them).
    #[serde(default)]
    pub queues: Vec<QueueSpec>,
    /// Exchanges (topics) that route one publish to every matching bound queue.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exchanges: Vec<ExchangeSpec>,
    #[serde(default)]
    pub consumers: Vec<ConsumerSpec>,
    /// Partitioned logs (streams): records stay after they are read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub logs: Vec<LogSpec>,
    /// Consumer groups reading logs: one member per partition at a time.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<GroupSpec>,
    #[serde(default, skip_serializing_if = "BrokerSpec::is_default")]
    pub broker: BrokerSpec,
    /// Databases and downstream APIs with a capacity, called by consumers' handlers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dependencies: Vec<DependencySpec>,
    /// Commands (faults and setting changes) that happen at a given simulated time.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<ScheduledCommand>,
    /// Commands a user gave while the run was playing, pinned to the step after which
    /// they were given, so a replay (step back, share link) reproduces the run exactly.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub interventions: Vec<Intervention>,
    /// Interval of simulated time between two metric samples.
    #[serde(default = "default_sample_every_s")]
    pub sample_every_s: f64,
    /// The run stops at this simulated time even if work remains.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_s: Option<f64>,
    /// How the seed's randomness is split between the parts of the model (see
    /// [`RandomStreams`]); compare mode sets `per_producer` on both sides.
    #[serde(default, skip_serializing_if = "RandomStreams::is_shared")]
    pub random_streams: RandomStreams,
    /// Message by message, aggregated (rates), or chosen from the work estimate (the
    /// default, left out of files and links so older ones load and encode unchanged).
    #[serde(default, skip_serializing_if = "RunMode::is_auto")]
    pub mode: RunMode,
}

/// Who draws from which random stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RandomStreams {
    /// One stream for everything, in the order draws happen: how every scenario written
    /// before compare mode runs, so their runs (and checked-in traces) stay the same.
    #[default]
    Shared,
    /// Each producer draws its arrival gaps, keys and poison from a stream of its own, so
    /// its arrivals do not depend on what consumers or retries drew before: two runs that
    /// differ only downstream of the producers see exactly the same arrivals.
    PerProducer,
}

impl RandomStreams {
    fn is_shared(&self) -> bool {
        *self == RandomStreams::Shared
    }
}

/// How a run is computed (see [`Scenario::run_mode`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunMode {
    /// Message by message when the work estimate fits the budget, aggregated otherwise.
    #[default]
    Auto,
    /// Every message simulated ([`crate::Simulation`]); refused beyond the work budget.
    Messages,
    /// Rates and amounts instead of messages (the `aggregate` module): the cost follows
    /// simulated time and the scenario's changes, not the number of messages.
    Aggregated,
}

impl RunMode {
    pub fn is_auto(&self) -> bool {
        *self == RunMode::Auto
    }
}

fn default_sample_every_s() -> f64 {
    1.0
}
fn one() -> u32 {
    1
}
fn yes() -> bool {
    true
}
fn is_one(n: &u32) -> bool {
    *n == 1
}
fn is_true(b: &bool) -> bool {
    *b
}
fn is_false(b: &bool) -> bool {
    !*b
}
fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

// ----- producers -------------------------------------------------------------------------

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
    fn is_default(&self) -> bool {
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
}

fn default_confirm_timeout_s() -> f64 {
    1.0
}
fn default_publish_attempts() -> u32 {
    5
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
        }
    }
}

impl PublishSpec {
    fn is_default(&self) -> bool {
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

// ----- broker ----------------------------------------------------------------------------

/// Broker-wide settings.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BrokerSpec {
    /// One-way network delay between a producer and the broker (publish, confirm).
    #[serde(default)]
    pub network_latency_s: f64,
}

impl BrokerSpec {
    fn is_default(&self) -> bool {
        *self == BrokerSpec::default()
    }
}

/// A queue (or an exchange's subscription).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueSpec {
    pub name: String,
    /// How long a delivered, unacked message stays invisible before the broker offers it
    /// again (visibility timeout / lease).
    pub visibility_timeout_s: f64,
    /// Most messages the queue holds (waiting + in flight + retry-waiting).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// What happens to a publish when the queue is full; absent, the flavour's default
    /// (see [`QueueSpec::effective_overflow`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overflow: Option<Overflow>,
    /// A waiting message older than this (since it entered the queue) expires.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_s: Option<f64>,
    /// Admission control: refuse new publishes while the oldest waiting message is older.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_oldest_age_s: Option<f64>,
    /// A durable queue survives a broker restart (with its persistent messages).
    #[serde(default = "yes")]
    pub durable: bool,
    /// Keep messages that exhaust their retries or are poison in a dead-letter queue.
    #[serde(default = "yes")]
    pub dead_letter: bool,
    /// Which real broker's rules the queue follows (see docs/semantics.md).
    #[serde(default, skip_serializing_if = "Flavour::is_generic")]
    pub flavour: Flavour,
    /// RabbitMQ: a classic or a quorum queue (quorum queues have a delivery limit).
    #[serde(default, skip_serializing_if = "QueueType::is_classic")]
    pub queue_type: QueueType,
    /// RabbitMQ quorum queues: deliveries after which a message is dead-lettered (or
    /// dropped without a dead-letter queue). Default 20, RabbitMQ 4's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivery_limit: Option<u32>,
    /// SQS redrive policy: receives after which the next receive moves the message to
    /// the dead-letter queue instead. Default 10.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_receive_count: Option<u32>,
    /// SQS FIFO: a message id published again within this window is accepted but not
    /// stored again. Default 300 s, the fixed window SQS documents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dedup_window_s: Option<f64>,
    /// SQS standard: probability that a receive leaves a second copy behind (at-least-once
    /// delivery). Default 0.001.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate_p: Option<f64>,
    /// RabbitMQ: how long a delivery may stay unacked before the broker closes the
    /// consumer's channel and requeues it (`consumer_timeout`, or a queue's
    /// `x-consumer-timeout`). RabbitMQ has no visibility timeout; this is its only
    /// deadline on a delivery. Default 1,800 s, RabbitMQ's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consumer_timeout_s: Option<f64>,
}

/// The real broker whose documented rules a queue follows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Flavour {
    /// The teaching broker: leases like SQS, exchanges like RabbitMQ. Lease expiries count
    /// as failed attempts of the consumers' retry policy.
    #[default]
    Generic,
    /// RabbitMQ: no lease; unacked deliveries return at once when the consumer's channel
    /// closes; auto-ack ignores prefetch; max-length counts ready messages; dead-lettering
    /// of dropped and expired messages; quorum queues' delivery limit.
    Rabbitmq,
    /// Amazon SQS standard queue: visibility timeout, redrive after maxReceiveCount, rare
    /// duplicate deliveries.
    Sqs,
    /// Amazon SQS FIFO queue: one message in flight per message group (the key), a
    /// deduplication window on the message id.
    SqsFifo,
}

impl Flavour {
    pub const ALL: [Flavour; 4] = [
        Flavour::Generic,
        Flavour::Rabbitmq,
        Flavour::Sqs,
        Flavour::SqsFifo,
    ];
    fn is_generic(&self) -> bool {
        *self == Flavour::Generic
    }
    /// What a full queue of this flavour does when its `overflow` is not written.
    /// RabbitMQ documents drop-head as its default ("drop or dead-letter messages from
    /// the front of the queue"); the others refuse the publish.
    pub fn default_overflow(self) -> Overflow {
        match self {
            Flavour::Rabbitmq => Overflow::DropOldest,
            Flavour::Generic | Flavour::Sqs | Flavour::SqsFifo => Overflow::Reject,
        }
    }

    /// The name used in scenario files.
    pub fn as_str(self) -> &'static str {
        match self {
            Flavour::Generic => "generic",
            Flavour::Rabbitmq => "rabbitmq",
            Flavour::Sqs => "sqs",
            Flavour::SqsFifo => "sqs_fifo",
        }
    }
}

/// Whether a queue of this flavour and type keeps every message it stored through a
/// broker restart, whatever its `durable` setting and the messages' `persistent` flag: a
/// RabbitMQ quorum queue is always durable and persists every message to disk "regardless
/// of the message delivery mode"; SQS has neither transient messages nor non-durable
/// queues (it stores every message redundantly across availability zones). Classic
/// RabbitMQ queues and the generic broker keep only persistent messages of durable queues.
pub fn keeps_every_message(flavour: Flavour, queue_type: QueueType) -> bool {
    match flavour {
        Flavour::Rabbitmq => queue_type == QueueType::Quorum,
        Flavour::Sqs | Flavour::SqsFifo => true,
        Flavour::Generic => false,
    }
}

/// RabbitMQ queue type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QueueType {
    #[default]
    Classic,
    Quorum,
}

impl QueueType {
    fn is_classic(&self) -> bool {
        *self == QueueType::Classic
    }
}

/// Documented defaults of the flavour settings.
pub mod flavour_defaults {
    /// RabbitMQ 4.x quorum queues: delivery-limit defaults to 20.
    pub const QUORUM_DELIVERY_LIMIT: u32 = 20;
    /// SQS redrive policy: the console proposes a maxReceiveCount of 10.
    pub const MAX_RECEIVE_COUNT: u32 = 10;
    /// SQS FIFO: the deduplication interval is 5 minutes.
    pub const DEDUP_WINDOW_S: f64 = 300.0;
    /// SQS standard: "occasionally" a second copy; the model's default rate.
    pub const DUPLICATE_P: f64 = 0.001;
    /// RabbitMQ: consumer_timeout, 30 minutes by default: a delivery unacked that long
    /// closes the channel and returns it.
    pub const RABBITMQ_CONSUMER_TIMEOUT_S: f64 = 1_800.0;
    /// A wait_for_gap consumer gives up on a gap after this long by default.
    pub const GAP_TIMEOUT_S: f64 = 30.0;
}

impl QueueSpec {
    pub fn new(name: &str, visibility_timeout_s: f64) -> Self {
        Self {
            name: name.into(),
            visibility_timeout_s,
            max_length: None,
            overflow: None,
            ttl_s: None,
            max_oldest_age_s: None,
            durable: true,
            dead_letter: true,
            flavour: Flavour::Generic,
            queue_type: QueueType::Classic,
            delivery_limit: None,
            max_receive_count: None,
            dedup_window_s: None,
            duplicate_p: None,
            consumer_timeout_s: None,
        }
    }

    /// What a full queue does with a publish: the `overflow` written, or else the
    /// flavour's default.
    pub fn effective_overflow(&self) -> Overflow {
        self.overflow
            .unwrap_or_else(|| self.flavour.default_overflow())
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Overflow {
    /// Refuse the new publish; the producer is told only with publisher confirms (a nack).
    #[default]
    Reject,
    /// Accept it and drop the oldest waiting message.
    DropOldest,
    /// Hold the producer back until there is room (backpressure).
    Throttle,
}

/// An exchange: routes each publish to the queues whose binding matches its routing key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExchangeSpec {
    pub name: String,
    pub kind: ExchangeKind,
    pub bindings: Vec<Binding>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExchangeKind {
    /// Binding key equals the routing key.
    Direct,
    /// Every bound queue gets a copy.
    Fanout,
    /// Dot-separated words; `*` matches one word, `#` zero or more.
    Topic,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Binding {
    pub queue: String,
    #[serde(default)]
    pub key: String,
}

// ----- consumers -------------------------------------------------------------------------

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
    fn is_none(&self) -> bool {
        *self == Idempotency::None
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
    fn is_none(&self) -> bool {
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
    fn is_default(&self) -> bool {
        *self == Failures::default()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Outage {
    pub from_s: f64,
    pub until_s: f64,
}

/// What happens after a failed attempt.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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
    fn is_default(&self) -> bool {
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

// ----- logs ------------------------------------------------------------------------------

/// A partitioned log: records are appended to a partition chosen by key, kept for the
/// retention period, and read by consumer groups at their own offsets.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogSpec {
    pub name: String,
    pub partitions: u32,
    /// Records older than this expire, read or not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retention_s: Option<f64>,
    /// Most records kept per partition; older ones expire first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retention_records: Option<u64>,
    /// What the partitioner hashes: the record's key (its aggregate, e.g. an account),
    /// or the message id (spreads load, but one key's records land in several partitions).
    #[serde(default, skip_serializing_if = "PartitionKey::is_key")]
    pub partition_by: PartitionKey,
}

/// What a log's partitioner hashes to choose a record's partition.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PartitionKey {
    /// The record's key: one key, one partition, one order.
    #[default]
    Key,
    /// The message id: records of one key spread over partitions and lose their order.
    MessageId,
}

impl PartitionKey {
    fn is_key(&self) -> bool {
        *self == PartitionKey::Key
    }
}

/// How a group hands partitions over when its membership changes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rebalance {
    /// Incremental (Kafka's cooperative sticky assignor, KIP-429): only partitions that
    /// move are revoked, their owner finishes and commits first, the others keep flowing.
    #[default]
    Cooperative,
    /// Stop the world: every partition is revoked at once and work in progress can no
    /// longer commit, so it is done again by the partition's next owner.
    Eager,
}

impl Rebalance {
    fn is_cooperative(&self) -> bool {
        *self == Rebalance::Cooperative
    }
}

/// A consumer group: its members share the log's partitions, one owner per partition.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupSpec {
    pub name: String,
    pub log: String,
    pub members: u32,
    pub service: ServiceTime,
    pub commit: CommitMode,
    #[serde(default)]
    pub assignment: Assignment,
    /// How long partitions pause while the group rebalances.
    #[serde(default = "default_rebalance_s")]
    pub rebalance_s: f64,
    #[serde(default, skip_serializing_if = "Idempotency::is_none")]
    pub idempotency: Idempotency,
    /// Read-process-write: each processed record is written to this log (empty: none).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub output: String,
    /// Output records and input offsets commit in one transaction (exactly-once inside
    /// the log); a crash before the commit aborts the output.
    #[serde(default, skip_serializing_if = "is_false")]
    pub transactional: bool,
    /// The handler also sends an email, outside any transaction.
    #[serde(default, skip_serializing_if = "is_false")]
    pub sends_email: bool,
    /// Whether this group sees output of transactions that are still open or aborted.
    #[serde(default, skip_serializing_if = "Isolation::is_uncommitted")]
    pub isolation: Isolation,
    /// How partitions move when membership changes.
    #[serde(default, skip_serializing_if = "Rebalance::is_cooperative")]
    pub rebalance: Rebalance,
    /// How the handler treats per-key versions (`none` or `ignore_stale` on a log).
    #[serde(default, skip_serializing_if = "Ordering::is_none")]
    pub ordering: Ordering,
    /// How the handler fails, apart from poison records (which always fail).
    #[serde(default, skip_serializing_if = "Failures::is_default")]
    pub failures: Failures,
    /// Attempts in place (the partition waits) before a record is dead-lettered.
    #[serde(default, skip_serializing_if = "RetryPolicy::is_default")]
    pub retry: RetryPolicy,
    /// The log a failed record is sent to (a retry or dead-letter topic another group may
    /// read); empty: the group's own built-in dead-letter topic.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub dead_letter: String,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Isolation {
    /// Reads every record, including output of open and aborted transactions.
    #[default]
    ReadUncommitted,
    /// Waits at an open transaction's records and skips aborted ones.
    ReadCommitted,
}

impl Isolation {
    fn is_uncommitted(&self) -> bool {
        *self == Isolation::ReadUncommitted
    }
}

fn default_rebalance_s() -> f64 {
    1.0
}

/// When a group member commits its offset.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum CommitMode {
    /// Commit, then process: a crash in between skips the record (at-most-once).
    BeforeProcessing,
    /// Process, then commit: a crash in between re-reads it (at-least-once).
    AfterProcessing,
    /// Commit the current position every `every_s` seconds.
    Auto { every_s: f64 },
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Assignment {
    /// Contiguous blocks of partitions per member.
    #[default]
    Range,
    /// Partition p goes to member p mod n.
    RoundRobin,
}

/// Where a group member crashes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemberCrashPoint {
    Now,
    /// After its next record is processed, before the offset is committed.
    AfterProcessBeforeCommit,
}

// ----- faults ----------------------------------------------------------------------------

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

// ----- validation ------------------------------------------------------------------------

/// Why a scenario cannot be run: the field (as a path) and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub field: String,
    pub problem: String,
}

impl std::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.problem)
    }
}

impl std::error::Error for ScenarioError {}

pub(crate) fn err(field: impl Into<String>, problem: impl Into<String>) -> ScenarioError {
    ScenarioError {
        field: field.into(),
        problem: problem.into(),
    }
}

pub(crate) fn check_range(field: &str, v: f64, min: f64, max: f64) -> Result<(), ScenarioError> {
    if !v.is_finite() {
        return Err(err(field, "must be a finite number"));
    }
    if v < min || v > max {
        let (min, max, v) = (quoted(min), quoted(max), quoted(v));
        return Err(err(
            field,
            format!("must be between {min} and {max} (got {v})"),
        ));
    }
    Ok(())
}

/// A number as a refusal quotes it: as written for everyday sizes, in exponent form for
/// huge or tiny ones (`1e308`, not 309 digits running off the page).
fn quoted(v: f64) -> String {
    let a = v.abs();
    if a != 0.0 && !(1e-6..1e15).contains(&a) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

pub(crate) fn check_count(field: &str, v: u64, min: u64, max: u64) -> Result<(), ScenarioError> {
    if v < min || v > max {
        return Err(err(
            field,
            format!("must be between {min} and {max} (got {v})"),
        ));
    }
    Ok(())
}

pub(crate) fn check_text(field: &str, s: &str, max: usize) -> Result<(), ScenarioError> {
    if s.chars().count() > max {
        return Err(err(field, format!("is longer than {max} characters")));
    }
    Ok(())
}

pub(crate) fn check_len<T>(field: &str, v: &[T], max: usize) -> Result<(), ScenarioError> {
    if v.len() > max {
        return Err(err(field, format!("at most {max} entries")));
    }
    Ok(())
}

/// The JSON document a scenario's text holds, in the current version (migrated).
fn document(text: &str) -> Result<serde_json::Value, ScenarioError> {
    let mut doc: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        // serde echoes what it met: show it escaped, on one line.
        let e = crate::text::escape_controls(&e.to_string());
        err("scenario", format!("is not valid scenario JSON: {e}"))
    })?;
    // serde would read a list as a scenario's fields in order and complain about its
    // second item ("expected a string"): say what is wrong instead.
    if !doc.is_object() {
        return Err(err(
            "scenario",
            "is not a scenario: a scenario is a JSON object, written between { and }",
        ));
    }
    crate::migrate::to_current(&mut doc).map_err(|r| err(r.field, r.problem))?;
    Ok(doc)
}

/// A document that is JSON but not a scenario: serde's words about it (`words`), for the
/// field they are about ("seed: invalid type: null, expected u64"), found in the document
/// read again (the refused one was spent decoding); about the whole scenario when the
/// fault is the document itself ("missing field `queues`").
fn undecodable(text: &str, words: String) -> ScenarioError {
    let version_1 = serde_json::from_str::<serde_json::Value>(text)
        .is_ok_and(|doc| doc.get("version").and_then(serde_json::Value::as_u64) == Some(1));
    let path = document(text)
        .map(|doc| crate::decode::failing_path::<Scenario>(&doc, &words))
        .map(|path| match version_1 {
            true => crate::migrate::path_in_version_1(&path),
            false => path,
        })
        .unwrap_or_default();
    if path.is_empty() {
        err("scenario", format!("is not valid scenario JSON: {words}"))
    } else {
        err(path, words)
    }
}

impl Scenario {
    /// Parses JSON text strictly and validates it. Never panics. A value serde cannot
    /// decode is refused for its field (`consumers[0].prefetch`), as the checks refuse.
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        // 1 MiB is far more than any scenario needs; refuse larger input before parsing.
        if text.len() > 1 << 20 {
            return Err(err("scenario", "is larger than 1 MiB"));
        }
        let doc = document(text)?;
        // Decoded the one way every typed document is (see `crate::decode`).
        let scenario: Scenario = crate::decode::decode(doc).map_err(|e| undecodable(text, e))?;
        scenario.validate()?;
        Ok(scenario)
    }

    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).expect("a scenario always serializes")
    }

    /// Total number of consumers once replicas are expanded.
    pub fn consumer_count(&self) -> u32 {
        // Saturating: validation asks for this before it has bounded each replica count.
        self.consumers
            .iter()
            .fold(0u32, |n, c| n.saturating_add(c.replicas))
    }

    /// The spec of consumer `consumer` (replicas expanded), if it exists.
    pub fn consumer_spec(&self, consumer: ConsumerId) -> Option<&ConsumerSpec> {
        let index = consumer.get();
        let mut first = 0u32;
        for spec in &self.consumers {
            let next = first.saturating_add(spec.replicas);
            if index < next {
                return Some(spec);
            }
            first = next;
        }
        None
    }

    pub fn queue_index(&self, name: &str) -> Option<usize> {
        self.queues.iter().position(|q| q.name == name)
    }

    pub fn dependency_index(&self, name: &str) -> Option<usize> {
        self.dependencies.iter().position(|d| d.name == name)
    }

    pub fn log_index(&self, name: &str) -> Option<usize> {
        self.logs.iter().position(|l| l.name == name)
    }

    /// The queue a consumer spec reads.
    pub fn queue_of(&self, spec: &ConsumerSpec) -> usize {
        if spec.queue.is_empty() {
            0
        } else {
            self.queue_index(&spec.queue).unwrap_or(0)
        }
    }

    /// Checks every value and bound; the first problem found is returned.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        use limits::*;
        if self.version != SCENARIO_VERSION {
            return Err(err(
                "version",
                format!(
                    "{} is not supported (this build reads version {SCENARIO_VERSION})",
                    self.version
                ),
            ));
        }
        check_text("name", &self.name, NAME_LEN_MAX)?;
        check_text("description", &self.description, TEXT_LEN_MAX)?;
        check_range("sample_every_s", self.sample_every_s, 0.001, TIME_S_MAX)?;
        if let Some(end) = self.end_s {
            check_range("end_s", end, 0.0, TIME_S_MAX)?;
        }
        check_range(
            "broker.network_latency_s",
            self.broker.network_latency_s,
            0.0,
            3600.0,
        )?;
        self.validate_queues()?;
        if self.producers.is_empty() {
            return Err(err("producers", "needs at least one producer"));
        }
        check_len("producers", &self.producers, PRODUCERS_MAX)?;
        // Commands first: the message estimate below follows their arrival changes.
        check_len("commands", &self.commands, FAULTS_MAX)?;
        for (i, f) in self.commands.iter().enumerate() {
            check_range(&format!("commands[{i}].at_s"), f.at_s, 0.0, TIME_S_MAX)?;
            self.validate_command(&format!("commands[{i}].command"), &f.command)?;
        }
        check_len("interventions", &self.interventions, INTERVENTIONS_MAX)?;
        let mut last = (0, 0);
        for (i, iv) in self.interventions.iter().enumerate() {
            if iv.after_step < last.0 || iv.at_us < last.1 {
                return Err(err(
                    format!("interventions[{i}]"),
                    "after_step and at_us must not decrease",
                ));
            }
            last = (iv.after_step, iv.at_us);
            self.validate_recorded_command(&format!("interventions[{i}].command"), &iv.command)?;
        }
        self.validate_member_growth()?;
        for (i, p) in self.producers.iter().enumerate() {
            self.validate_producer(i, p)?;
        }
        self.validate_producer_names()?;
        self.validate_dependencies()?;
        self.validate_consumers()?;
        self.validate_logs()?;
        // After the groups' own counts, which it starts from.
        self.validate_member_commands()?;
        // Last: the estimate reads names and counts the checks above have bounded.
        self.run_mode().map(|_| ())
    }

    fn validate_dependencies(&self) -> Result<(), ScenarioError> {
        check_len(
            "dependencies",
            &self.dependencies,
            dependency::DEPENDENCIES_MAX,
        )?;
        for (i, d) in self.dependencies.iter().enumerate() {
            let field = format!("dependencies[{i}]");
            dependency::validate(&field, d)?;
            if self.dependencies[..i].iter().any(|o| o.name == d.name) {
                return Err(err(
                    format!("{field}.name"),
                    "another dependency has this name",
                ));
            }
        }
        Ok(())
    }

    /// Members a group may gain by commands: each join rebalances over every member, so
    /// a group never grows past `MEMBERS_MAX`.
    fn validate_member_growth(&self) -> Result<(), ScenarioError> {
        for (g, spec) in self.groups.iter().enumerate() {
            let joins = self
                .commands
                .iter()
                .map(|f| &f.command)
                .chain(self.interventions.iter().map(|iv| &iv.command))
                .filter(|f| matches!(f, Command::AddMember { group } if (*group).index() == g))
                .count() as u64;
            if u64::from(spec.members) + joins > u64::from(limits::MEMBERS_MAX) {
                return Err(err(
                    format!("groups[{g}].members"),
                    format!(
                        "{} members and {joins} joins: at most {} in a group",
                        spec.members,
                        limits::MEMBERS_MAX
                    ),
                ));
            }
        }
        Ok(())
    }

    fn validate_queues(&self) -> Result<(), ScenarioError> {
        use limits::*;
        if self.queues.is_empty() && self.logs.is_empty() {
            return Err(err("queues", "needs at least one queue or log"));
        }
        check_len("queues", &self.queues, QUEUES_MAX)?;
        for (i, q) in self.queues.iter().enumerate() {
            self.validate_queue(i, q)?;
        }
        self.validate_exchanges()
    }

    /// Queue `i`: a unique name, and its timeouts and limits in range.
    fn validate_queue(&self, i: usize, q: &QueueSpec) -> Result<(), ScenarioError> {
        use limits::*;
        let f = |name: &str| format!("queues[{i}].{name}");
        if q.name.is_empty() {
            return Err(err(f("name"), "must not be empty"));
        }
        check_text(&f("name"), &q.name, NAME_LEN_MAX)?;
        if self.queues[..i].iter().any(|o| o.name == q.name) {
            return Err(err(f("name"), format!("{:?} is used twice", q.name)));
        }
        check_range(
            &f("visibility_timeout_s"),
            q.visibility_timeout_s,
            0.000_001,
            TIME_S_MAX,
        )?;
        if let Some(n) = q.max_length {
            check_count(&f("max_length"), n, 1, LENGTH_MAX)?;
        }
        if let Some(t) = q.ttl_s {
            check_range(&f("ttl_s"), t, 0.000_001, TIME_S_MAX)?;
        }
        if let Some(t) = q.max_oldest_age_s {
            check_range(&f("max_oldest_age_s"), t, 0.000_001, TIME_S_MAX)?;
        }
        if let Some(n) = q.delivery_limit {
            check_count(
                &f("delivery_limit"),
                u64::from(n),
                1,
                u64::from(ATTEMPTS_MAX),
            )?;
        }
        if let Some(n) = q.max_receive_count {
            check_count(
                &f("max_receive_count"),
                u64::from(n),
                1,
                u64::from(ATTEMPTS_MAX),
            )?;
        }
        if let Some(t) = q.dedup_window_s {
            check_range(&f("dedup_window_s"), t, 0.0, TIME_S_MAX)?;
        }
        if let Some(p) = q.duplicate_p {
            check_range(&f("duplicate_p"), p, 0.0, 0.5)?;
        }
        if let Some(t) = q.consumer_timeout_s {
            check_range(&f("consumer_timeout_s"), t, 0.000_001, TIME_S_MAX)?;
        }
        Ok(())
    }

    /// Exchanges: unique names (not a queue's either), bindings to queues that exist.
    fn validate_exchanges(&self) -> Result<(), ScenarioError> {
        use limits::*;
        check_len("exchanges", &self.exchanges, EXCHANGES_MAX)?;
        for (i, x) in self.exchanges.iter().enumerate() {
            let f = |name: &str| format!("exchanges[{i}].{name}");
            if x.name.is_empty() {
                return Err(err(f("name"), "must not be empty"));
            }
            check_text(&f("name"), &x.name, NAME_LEN_MAX)?;
            if self.queue_index(&x.name).is_some()
                || self.exchanges[..i].iter().any(|o| o.name == x.name)
            {
                return Err(err(
                    f("name"),
                    format!("{:?} is already the name of a queue or exchange", x.name),
                ));
            }
            check_len(&f("bindings"), &x.bindings, BINDINGS_MAX)?;
            for (k, b) in x.bindings.iter().enumerate() {
                check_text(&f(&format!("bindings[{k}].key")), &b.key, NAME_LEN_MAX * 4)?;
                if self.queue_index(&b.queue).is_none() {
                    return Err(err(
                        f(&format!("bindings[{k}].queue")),
                        format!("there is no queue {:?}", b.queue),
                    ));
                }
            }
        }
        Ok(())
    }

    fn validate_logs(&self) -> Result<(), ScenarioError> {
        use limits::*;
        check_len("logs", &self.logs, LOGS_MAX)?;
        for (i, l) in self.logs.iter().enumerate() {
            let f = |name: &str| format!("logs[{i}].{name}");
            if l.name.is_empty() {
                return Err(err(f("name"), "must not be empty"));
            }
            check_text(&f("name"), &l.name, NAME_LEN_MAX)?;
            if self.queue_index(&l.name).is_some()
                || self.exchanges.iter().any(|x| x.name == l.name)
                || self.logs[..i].iter().any(|o| o.name == l.name)
            {
                return Err(err(
                    f("name"),
                    format!(
                        "{:?} is already the name of a queue, exchange or log",
                        l.name
                    ),
                ));
            }
            check_count(
                &f("partitions"),
                u64::from(l.partitions),
                1,
                u64::from(PARTITIONS_MAX),
            )?;
            if let Some(t) = l.retention_s {
                check_range(&f("retention_s"), t, 0.000_001, TIME_S_MAX)?;
            }
            if let Some(n) = l.retention_records {
                check_count(&f("retention_records"), n, 1, LENGTH_MAX)?;
            }
        }
        check_len("groups", &self.groups, GROUPS_MAX)?;
        for (i, g) in self.groups.iter().enumerate() {
            let f = |name: &str| format!("groups[{i}].{name}");
            check_text(&f("name"), &g.name, NAME_LEN_MAX)?;
            // A group's cards, its members (named after it: "billing-1") and the
            // narration tell groups apart by name (older files: see `migrate.rs`).
            if self.groups[..i].iter().any(|o| o.name == g.name) {
                return Err(err(f("name"), format!("{:?} is used twice", g.name)));
            }
            if self.log_index(&g.log).is_none() {
                return Err(err(f("log"), format!("there is no log {:?}", g.log)));
            }
            check_count(
                &f("members"),
                u64::from(g.members),
                1,
                u64::from(MEMBERS_MAX),
            )?;
            match g.service {
                ServiceTime::Fixed { seconds } => {
                    check_range(&f("service.fixed.seconds"), seconds, 0.0, TIME_S_MAX)?
                }
                ServiceTime::Exponential { mean_s } => check_range(
                    &f("service.exponential.mean_s"),
                    mean_s,
                    0.000_001,
                    TIME_S_MAX,
                )?,
            }
            if let CommitMode::Auto { every_s } = g.commit {
                check_range(&f("commit.auto.every_s"), every_s, 0.001, TIME_S_MAX)?;
            }
            check_range(&f("rebalance_s"), g.rebalance_s, 0.0, TIME_S_MAX)?;
            if !g.output.is_empty() && self.log_index(&g.output).is_none() {
                return Err(err(f("output"), format!("there is no log {:?}", g.output)));
            }
            if g.output == g.log && !g.output.is_empty() {
                return Err(err(f("output"), "a group cannot write to the log it reads"));
            }
            if g.transactional && (g.output.is_empty() || g.commit != CommitMode::AfterProcessing) {
                return Err(err(
                    f("transactional"),
                    "needs an output log and commit after_processing",
                ));
            }
            self.validate_group_failures(i, g)?;
        }
        self.validate_log_rings()
    }

    /// A group's failure model: ordering, failures, retries, dead-letter log.
    fn validate_group_failures(&self, i: usize, g: &GroupSpec) -> Result<(), ScenarioError> {
        use limits::*;
        let f = |name: &str| format!("groups[{i}].{name}");
        if !matches!(g.ordering, Ordering::None | Ordering::IgnoreStale) {
            // A partition already delivers one key in order; a gap means another partition
            // or a lost record, which a blocked partition would wait for without end.
            return Err(err(f("ordering"), "a group supports none or ignore_stale"));
        }
        check_range(&f("failures.transient_p"), g.failures.transient_p, 0.0, 1.0)?;
        check_len(&f("failures.outages"), &g.failures.outages, OUTAGES_MAX)?;
        for (k, o) in g.failures.outages.iter().enumerate() {
            let at = |name: &str| f(&format!("failures.outages[{k}].{name}"));
            check_range(&at("from_s"), o.from_s, 0.0, TIME_S_MAX)?;
            check_range(&at("until_s"), o.until_s, o.from_s, TIME_S_MAX)?;
        }
        validate_retry(&f("retry"), &g.retry)?;
        if !g.dead_letter.is_empty() {
            if self.log_index(&g.dead_letter).is_none() {
                let msg = format!("there is no log {:?}", g.dead_letter);
                return Err(err(f("dead_letter"), msg));
            }
            if g.dead_letter == g.log {
                return Err(err(
                    f("dead_letter"),
                    "a group cannot dead-letter to its own log",
                ));
            }
        }
        Ok(())
    }

    fn validate_consumers(&self) -> Result<(), ScenarioError> {
        use limits::*;
        if self.consumers.is_empty() && self.groups.is_empty() {
            return Err(err(
                "consumers",
                "needs at least one consumer or consumer group",
            ));
        }
        if !self.consumers.is_empty() && self.queues.is_empty() {
            return Err(err("consumers", "consumers read queues, and there is none"));
        }
        for (i, c) in self.consumers.iter().enumerate() {
            self.validate_consumer(i, c)?;
        }
        let total: u64 = self.consumers.iter().map(|c| u64::from(c.replicas)).sum();
        if total > CONSUMERS_MAX as u64 {
            return Err(err(
                "consumers",
                format!("at most {CONSUMERS_MAX} consumers in all (replicas included)"),
            ));
        }
        self.validate_consumer_names()?;
        self.validate_ack_modes()
    }

    /// Every consumer has a name of its own: the page's cards and crash buttons, the
    /// schedule and the narration tell consumers apart by name. Names are compared as
    /// they are shown, replicas and unnamed consumers numbered (`crate::names`), so "C"
    /// with 2 replicas clashes with a "C2" as surely as two "C1" do. Files written before
    /// version 4 could hold such clashes: `migrate.rs` renames them on load, so only a
    /// current file (or an edit on the page) meets this refusal.
    fn validate_consumer_names(&self) -> Result<(), ScenarioError> {
        let names =
            crate::names::consumers(self.consumers.iter().map(|c| (c.name.as_str(), c.replicas)));
        let Some((i, name)) = crate::names::first_clash(&names) else {
            return Ok(());
        };
        // Both written as they are shown (named, one replica each): the plain sentence.
        let written = |c: &ConsumerSpec| c.replicas == 1 && c.name == name;
        let field = format!("consumers[{i}].name");
        if written(&self.consumers[i]) && self.consumers[..i].iter().any(written) {
            Err(err(field, format!("{name:?} is used twice")))
        } else {
            Err(err(
                field,
                format!("{name:?} is used twice (replicas and unnamed consumers are numbered)"),
            ))
        }
    }

    /// Every producer has a name of its own (see [`Self::validate_consumer_names`]; an
    /// unnamed producer is P1, P2… by its place).
    fn validate_producer_names(&self) -> Result<(), ScenarioError> {
        let names: Vec<Vec<String>> = (self.producers.iter().enumerate())
            .map(|(i, p)| vec![crate::names::producer(&p.name, i)])
            .collect();
        let Some((i, name)) = crate::names::first_clash(&names) else {
            return Ok(());
        };
        let written = |p: &ProducerSpec| p.name == name;
        let field = format!("producers[{i}].name");
        if written(&self.producers[i]) && self.producers[..i].iter().any(written) {
            Err(err(field, format!("{name:?} is used twice")))
        } else {
            Err(err(
                field,
                format!("{name:?} is used twice (unnamed producers are numbered P1, P2…)"),
            ))
        }
    }

    /// Consumer `i`: its queue exists; replicas, concurrency, prefetch, batches, service,
    /// failures and retries in range.
    fn validate_consumer(&self, i: usize, c: &ConsumerSpec) -> Result<(), ScenarioError> {
        use limits::*;
        let f = |name: &str| format!("consumers[{i}].{name}");
        check_text(&f("name"), &c.name, NAME_LEN_MAX)?;
        if !c.queue.is_empty() && self.queue_index(&c.queue).is_none() {
            return Err(err(f("queue"), format!("there is no queue {:?}", c.queue)));
        }
        check_count(
            &f("replicas"),
            u64::from(c.replicas),
            1,
            CONSUMERS_MAX as u64,
        )?;
        if let Some(t) = c.gap_timeout_s {
            check_range(&f("gap_timeout_s"), t, 0.000_001, TIME_S_MAX)?;
        }
        check_count(
            &f("concurrency"),
            u64::from(c.concurrency),
            1,
            u64::from(CONCURRENCY_MAX),
        )?;
        check_count(
            &f("prefetch"),
            u64::from(c.prefetch),
            1,
            u64::from(PREFETCH_MAX),
        )?;
        check_count(
            &f("batch_size"),
            u64::from(c.batch_size),
            1,
            u64::from(c.prefetch),
        )?;
        validate_service(&f("service"), &c.service)?;
        check_range(&f("failures.transient_p"), c.failures.transient_p, 0.0, 1.0)?;
        check_len(&f("failures.outages"), &c.failures.outages, OUTAGES_MAX)?;
        for (k, o) in c.failures.outages.iter().enumerate() {
            check_range(
                &f(&format!("failures.outages[{k}].from_s")),
                o.from_s,
                0.0,
                TIME_S_MAX,
            )?;
            check_range(
                &f(&format!("failures.outages[{k}].until_s")),
                o.until_s,
                o.from_s,
                TIME_S_MAX,
            )?;
        }
        validate_retry(&f("retry"), &c.retry)?;
        if !c.calls.is_empty() && self.dependency_index(&c.calls).is_none() {
            return Err(err(
                f("calls"),
                format!("there is no dependency {:?}", c.calls),
            ));
        }
        Ok(())
    }

    /// One ack contract per queue: mixing them would let a leased delivery outlive the
    /// loss of an auto-acked one, a fate no broker reports.
    fn validate_ack_modes(&self) -> Result<(), ScenarioError> {
        for (i, c) in self.consumers.iter().enumerate() {
            let q = self.queue_of(c);
            if self.consumers[..i]
                .iter()
                .any(|o| self.queue_of(o) == q && o.ack != c.ack)
            {
                return Err(err(
                    format!("consumers[{i}].ack"),
                    "all consumers of a queue must use the same ack mode",
                ));
            }
        }
        Ok(())
    }

    /// Validates one producer and returns an upper estimate of the messages it publishes.
    fn validate_producer(&self, i: usize, p: &ProducerSpec) -> Result<u64, ScenarioError> {
        use limits::*;
        let f = |name: &str| format!("producers[{i}].{name}");
        check_text(&f("name"), &p.name, NAME_LEN_MAX)?;
        if !p.target.is_empty()
            && self.queue_index(&p.target).is_none()
            && self.log_index(&p.target).is_none()
            && !self.exchanges.iter().any(|x| x.name == p.target)
        {
            return Err(err(
                f("target"),
                format!("there is no queue, exchange or log {:?}", p.target),
            ));
        }
        check_len(&f("routing_keys"), &p.routing_keys, ROUTING_KEYS_MAX)?;
        for (k, key) in p.routing_keys.iter().enumerate() {
            check_text(&f(&format!("routing_keys[{k}]")), key, NAME_LEN_MAX * 4)?;
        }
        check_count(
            &f("payload.keys"),
            u64::from(p.payload.keys),
            0,
            u64::from(KEYS_MAX),
        )?;
        check_range(
            &f("payload.hot_key_share"),
            p.payload.hot_key_share,
            0.0,
            1.0,
        )?;
        check_range(&f("payload.poison_share"), p.payload.poison_share, 0.0, 1.0)?;
        check_op(&f("payload.op"), p.payload.op)?;
        let pb = &p.publish;
        check_range(
            &f("publish.confirm_timeout_s"),
            pb.confirm_timeout_s,
            0.000_001,
            TIME_S_MAX,
        )?;
        check_count(
            &f("publish.max_attempts"),
            u64::from(pb.max_attempts),
            1,
            u64::from(ATTEMPTS_MAX),
        )?;
        if let Handoff::Outbox { relay_poll_s, .. } = p.handoff {
            check_range(
                &f("handoff.outbox.relay_poll_s"),
                relay_poll_s,
                0.000_001,
                TIME_S_MAX,
            )?;
        }
        validate_script(&f("script"), &p.script)?;
        if !p.script.is_empty() {
            return Ok(p.script.len() as u64);
        }
        validate_schedule(&f("arrivals.schedule"), &p.arrivals.schedule)?;
        let estimate = self.message_bound(i);
        if !estimate.is_finite() {
            return Err(err(
                f("count"),
                "the producer never stops: give it a count, end its schedule with rate 0, or set end_s",
            ));
        }
        Ok(estimate.min(u64::MAX as f64) as u64)
    }

    /// Producer `p`'s rate schedule in absolute time, with the arrival changes among the
    /// interventions applied in order (each replaces what remained from its instant).
    pub fn effective_schedule(&self, p: usize) -> Vec<RateSegment> {
        let mut changes: Vec<(f64, &[RateSegment])> = self
            .commands
            .iter()
            .map(|f| (f.at_s, &f.command))
            .chain(
                self.interventions
                    .iter()
                    .map(|iv| (iv.at_us as f64 / 1e6, &iv.command)),
            )
            .filter_map(|(at_s, fault)| match fault {
                Command::SetArrivals {
                    producer, schedule, ..
                } if (*producer).index() == p => Some((at_s, schedule.as_slice())),
                _ => None,
            })
            .collect();
        // Stable: at the same instant, scheduled changes come before commands.
        changes.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut schedule = self.producers[p].arrivals.schedule.clone();
        for (at_s, new) in changes {
            splice_schedule(&mut schedule, at_s, new);
        }
        schedule
    }

    /// A command naming a group member names one the group has when it runs: its
    /// members, plus those the joins before it add (commands in time order, the earlier
    /// in the list first at the same time, then interventions).
    fn validate_member_commands(&self) -> Result<(), ScenarioError> {
        let mut timeline: Vec<(Micros, u8, usize, &Command)> = self
            .commands
            .iter()
            .enumerate()
            .map(|(i, c)| (secs_to_us(c.at_s), 0, i, &c.command))
            .chain(
                self.interventions
                    .iter()
                    .enumerate()
                    .map(|(i, iv)| (iv.at_us, 1, i, &iv.command)),
            )
            .filter(|e| matches!(e.3, Command::CrashMember { .. } | Command::AddMember { .. }))
            .collect();
        timeline.sort_by_key(|&(at, kind, i, _)| (at, kind, i));
        let mut members: Vec<u32> = self.groups.iter().map(|g| g.members).collect();
        for (_, kind, i, command) in timeline {
            match *command {
                Command::AddMember { group } => members[group.index()] += 1,
                Command::CrashMember { group, member, .. } => {
                    let there = members[group.index()];
                    if member >= there {
                        let list = if kind == 0 {
                            "commands"
                        } else {
                            "interventions"
                        };
                        return Err(err(
                            format!("{list}[{i}].command.member"),
                            format!("there is no member {member} (there are {there})"),
                        ));
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Whether commands may scale consumers (then consumer numbers can go past the
    /// scenario's own count).
    fn scales_consumers(&self) -> bool {
        self.commands
            .iter()
            .map(|f| &f.command)
            .chain(self.interventions.iter().map(|iv| &iv.command))
            .any(|f| matches!(f, Command::SetConsumerCount { .. }))
    }

    /// Checks one command (a scheduled fault or an intervention) against this scenario:
    /// the producer, consumer, queue, group or log it names exists, and its numbers are
    /// in range. `field` is where the command sits, for the error.
    pub(crate) fn validate_command(
        &self,
        field: &str,
        fault: &Command,
    ) -> Result<(), ScenarioError> {
        self.check_command_as(field, fault, false)
    }

    /// Checks a command recorded in an earlier run: its names and ranges only, not
    /// whether it can ever act (see [`CommandCheck::can_ever_act`]).
    fn validate_recorded_command(&self, field: &str, fault: &Command) -> Result<(), ScenarioError> {
        self.check_command_as(field, fault, true)
    }

    fn check_command_as(
        &self,
        field: &str,
        fault: &Command,
        recorded: bool,
    ) -> Result<(), ScenarioError> {
        let check = CommandCheck {
            scenario: self,
            field,
        };
        check.names_and_ranges(fault)?;
        if recorded {
            Ok(())
        } else {
            check.can_ever_act(fault)
        }
    }

    pub(crate) fn sample_every_us(&self) -> Micros {
        secs_to_us(self.sample_every_s).max(1)
    }
}

/// Checks one command against its scenario (see [`Scenario::validate_command`]), one
/// method per family of commands. Errors name fields under `field`.
struct CommandCheck<'a> {
    scenario: &'a Scenario,
    field: &'a str,
}

impl CommandCheck<'_> {
    /// What every command, given or recorded, must have: the producer, consumer, queue,
    /// group, log or dependency it names exists, and its numbers are in range.
    fn names_and_ranges(&self, fault: &Command) -> Result<(), ScenarioError> {
        match fault {
            Command::CrashConsumer { .. }
            | Command::RestartConsumer { .. }
            | Command::DropNextAck { .. }
            | Command::SlowConsumer { .. } => self.consumer_fault(fault),
            Command::CrashProducer { .. }
            | Command::RestartProducer { .. }
            | Command::DropNextConfirm { .. }
            | Command::InjectPoison { .. }
            | Command::SetArrivals { .. } => self.producer_command(fault),
            Command::CrashBroker { restart_after_s } => self.restart(*restart_after_s),
            Command::RestartBroker => Ok(()),
            Command::CrashMember { .. }
            | Command::AddMember { .. }
            | Command::SeekToEarliest { .. }
            | Command::SeekTo { .. }
            | Command::SetGroupOrdering { .. }
            | Command::SetPartitions { .. } => self.log_command(fault),
            Command::DependencyOutage { .. }
            | Command::Redrive { .. }
            | Command::DeployFix { .. }
            | Command::SetVisibilityTimeout { .. }
            | Command::SetConsumerTimeout { .. }
            | Command::SetFlavour { .. }
            | Command::SetQueueBound { .. } => self.queue_command(fault),
            Command::SetServiceTime { .. }
            | Command::SetConsumerCount { .. }
            | Command::SetPrefetch { .. }
            | Command::SetAckMode { .. }
            | Command::SetIdempotency { .. }
            | Command::SetOrdering { .. }
            | Command::SetRetry { .. } => self.consumer_setting(fault),
            Command::SlowDependency { .. }
            | Command::SetDependencyCapacity { .. }
            | Command::SetDependencyTimeout { .. }
            | Command::SetRetryBudget { .. }
            | Command::SetBreaker { .. }
            | Command::SetAdmission { .. } => self.dependency_command(fault),
        }
    }

    /// A command given now (scheduled, or an intervention being made) must also be able
    /// to act some time in the run: what it needs is fixed for the whole run, so one
    /// that finds nothing to act on now never would, and a hidden (interview) fault would
    /// stay armed in silence. A command recorded in an earlier run (a link's or a file's
    /// `interventions`) skips this: it is taken as it was given then, even one refused
    /// since (2026-12-04), so that links and files made before keep opening and replay
    /// step for step as they did; the run says it had nothing to act on.
    fn can_ever_act(&self, fault: &Command) -> Result<(), ScenarioError> {
        match fault {
            Command::CrashProducer {
                producer, point, ..
            } => self.producer_crash_point(*producer, *point),
            Command::DropNextConfirm { producer } => self.confirm_to_lose(*producer),
            // The outage and the fix act on the queue's consumers only, and a queue with
            // none never gets any (scaling needs consumers to copy from).
            Command::DependencyOutage { queue, .. } | Command::DeployFix { queue, .. } => {
                self.consumed_queue(queue)
            }
            Command::Redrive { queue, .. } => self.dead_letter_queue(queue),
            Command::SlowDependency { .. }
            | Command::SetDependencyCapacity { .. }
            | Command::SetDependencyTimeout { .. }
            | Command::SetRetryBudget { .. }
            | Command::SetBreaker { .. }
            | Command::SetAdmission { .. } => self.called(dependency::command_target(fault)),
            _ => Ok(()),
        }
    }

    /// An error about `name`, a field of the command.
    fn err(&self, name: &str, problem: impl Into<String>) -> ScenarioError {
        err(format!("{}.{name}", self.field), problem)
    }

    /// Where the command's field `name` sits, for the shared range checks.
    fn at(&self, name: &str) -> String {
        format!("{}.{name}", self.field)
    }

    fn consumer(&self, c: ConsumerId) -> Result<(), ScenarioError> {
        // Only consumer commands ask whether commands scale consumers: that look goes over
        // every command, and validation runs this for each of up to 10,000 of them.
        let consumers = if self.scenario.scales_consumers() {
            limits::CONSUMERS_MAX as u32
        } else {
            self.scenario.consumer_count()
        };
        if c.get() >= consumers {
            Err(self.err(
                "consumer",
                format!("there is no consumer {c} (there are {consumers})"),
            ))
        } else {
            Ok(())
        }
    }

    fn producer(&self, p: ProducerId) -> Result<(), ScenarioError> {
        let producers = self.scenario.producers.len() as u32;
        if p.get() >= producers {
            Err(self.err(
                "producer",
                format!("there is no producer {p} (there are {producers})"),
            ))
        } else {
            Ok(())
        }
    }

    fn queue(&self, queue: &str) -> Result<(), ScenarioError> {
        match self.scenario.queue_index(queue) {
            Some(_) => Ok(()),
            None => Err(self.err("queue", format!("there is no queue {queue:?}"))),
        }
    }

    /// Commands about a dependency: it exists and the new values are in range.
    fn dependency_command(&self, fault: &Command) -> Result<(), ScenarioError> {
        let d = dependency::command_target(fault);
        if self.scenario.dependency_index(d).is_none() {
            return Err(self.err("dependency", format!("there is no dependency {d:?}")));
        }
        dependency::validate_command(self.field, fault)
    }

    /// Only consumers call a dependency (those scaling adds call what their queue's first
    /// one calls), and no command changes what a consumer calls: a slowdown or a setting
    /// of a dependency nobody calls could never act, as a setting of a queue without
    /// consumers could not.
    fn called(&self, d: &str) -> Result<(), ScenarioError> {
        if self.scenario.consumers.iter().any(|c| c.calls == d) {
            Ok(())
        } else {
            Err(self.err("dependency", format!("no consumer calls dependency {d:?}")))
        }
    }

    /// A queue without a dead-letter queue loses what fails for good, and no command gives
    /// it one: its redrive could never move anything. (One with a dead-letter queue that is
    /// empty when the redrive comes is a moot, said then: it may fill later.)
    fn dead_letter_queue(&self, queue: &str) -> Result<(), ScenarioError> {
        let q = self
            .scenario
            .queue_index(queue)
            .expect("names checked first");
        if self.scenario.queues[q].dead_letter {
            Ok(())
        } else {
            Err(self.err(
                "queue",
                format!("queue {queue:?} has no dead-letter queue: there is nothing to redrive"),
            ))
        }
    }

    /// Settings of a queue's consumers need a queue that has consumers to copy from.
    fn consumed_queue(&self, queue: &str) -> Result<(), ScenarioError> {
        self.queue(queue)?;
        let q = self.scenario.queue_index(queue).expect("checked");
        let s = self.scenario;
        if s.consumers.iter().any(|c| s.queue_of(c) == q) {
            Ok(())
        } else {
            Err(self.err("queue", format!("queue {queue:?} has no consumers")))
        }
    }

    fn group(&self, group: GroupId) -> Result<&GroupSpec, ScenarioError> {
        self.scenario
            .groups
            .get(group.index())
            .ok_or_else(|| self.err("group", format!("there is no consumer group {group}")))
    }

    fn restart(&self, restart_after_s: Option<f64>) -> Result<(), ScenarioError> {
        match restart_after_s {
            Some(r) => check_range(&self.at("restart_after_s"), r, 0.0, limits::TIME_S_MAX),
            None => Ok(()),
        }
    }

    /// Crashing, restarting, slowing a queue consumer, or losing its next ack.
    fn consumer_fault(&self, fault: &Command) -> Result<(), ScenarioError> {
        match fault {
            Command::CrashConsumer {
                consumer,
                restart_after_s,
                ..
            } => {
                self.consumer(*consumer)?;
                self.restart(*restart_after_s)
            }
            Command::RestartConsumer { consumer } | Command::DropNextAck { consumer } => {
                self.consumer(*consumer)
            }
            Command::SlowConsumer { consumer, factor } => {
                self.consumer(*consumer)?;
                check_range(&self.at("factor"), *factor, 0.01, 1000.0)
            }
            _ => unreachable!("validate_command sends only consumer faults here"),
        }
    }

    /// Crashing or restarting a producer, losing its next confirm, making it publish a
    /// poison message, or changing its arrivals.
    fn producer_command(&self, fault: &Command) -> Result<(), ScenarioError> {
        match fault {
            Command::CrashProducer {
                producer,
                restart_after_s,
                ..
            } => {
                self.producer(*producer)?;
                self.restart(*restart_after_s)
            }
            Command::RestartProducer { producer }
            | Command::DropNextConfirm { producer }
            | Command::InjectPoison { producer, .. } => self.producer(*producer),
            Command::SetArrivals {
                producer, schedule, ..
            } => {
                self.producer(*producer)?;
                if !self.scenario.producers[(*producer).index()]
                    .script
                    .is_empty()
                {
                    return Err(self.err(
                        "producer",
                        "this producer follows a script; its arrivals cannot change",
                    ));
                }
                validate_schedule(&self.at("schedule"), schedule)
            }
            _ => unreachable!("validate_command sends only producer commands here"),
        }
    }

    /// A producer crash armed for a point of its work needs a producer whose work has that
    /// point: a crash after a state commit, before its publish, strikes only a producer that
    /// commits then publishes (a direct producer commits nothing first; an outbox producer's
    /// commit holds the row, which its relay publishes later); a crash of the outbox relay,
    /// only a producer with an outbox. No command gives a producer another handoff during a
    /// run, so one armed on a producer without that point could never strike: it would
    /// stay armed in silence (an interview's hidden fault revealed as if it had been there).
    fn producer_crash_point(
        &self,
        producer: ProducerId,
        point: ProducerCrashPoint,
    ) -> Result<(), ScenarioError> {
        let handoff = &self.scenario.producers[producer.index()].handoff;
        match point {
            ProducerCrashPoint::Now => Ok(()),
            ProducerCrashPoint::AfterCommitBeforePublish => {
                if *handoff == Handoff::CommitThenPublish {
                    Ok(())
                } else {
                    Err(self.err(
                        "point",
                        "this producer does not commit then publish: there is no publish after its commit to crash before",
                    ))
                }
            }
            ProducerCrashPoint::AfterPublishBeforeMark => {
                if matches!(handoff, Handoff::Outbox { .. }) {
                    Ok(())
                } else {
                    Err(self.err(
                        "point",
                        "this producer has no outbox: there is no relay to crash",
                    ))
                }
            }
        }
    }

    /// The loss of a producer's next confirm needs a producer that waits for confirms:
    /// one with `publish.confirms`, or with an outbox (its relay always waits). Refused,
    /// not left to the run to find moot: a producer's publish settings and handoff are
    /// fixed for the whole run (no command or setting switches confirms on or off, unlike
    /// a consumer's ack mode, which `set_ack_mode` changes: that is why a lost ack armed
    /// on a consumer that acks on delivery is taken and waits), and compare mode fixes
    /// them per side. So a producer that does not wait for a confirm when the command
    /// strikes never will: the command could never act. Refusing it says so when it is
    /// given, a hidden (interview) one included, which a moot would have kept quiet. Were
    /// a setting ever to switch confirms on, this check would have to count the settings
    /// before the command, as `validate_member_commands` counts joins.
    fn confirm_to_lose(&self, producer: ProducerId) -> Result<(), ScenarioError> {
        let p = &self.scenario.producers[producer.index()];
        if p.publish.confirms || matches!(p.handoff, Handoff::Outbox { .. }) {
            Ok(())
        } else {
            Err(self.err(
                "producer",
                "this producer does not wait for publisher confirms: there is no confirm to lose",
            ))
        }
    }

    /// Commands about logs and their consumer groups: members crashing and joining,
    /// rewinds, more partitions.
    fn log_command(&self, fault: &Command) -> Result<(), ScenarioError> {
        match fault {
            Command::CrashMember {
                group,
                member,
                restart_after_s,
                ..
            } => {
                let g = self.group(*group)?;
                // Members that joined later have higher numbers; allow up to the limit.
                if *member >= limits::MEMBERS_MAX
                    || (*member >= g.members && g.members == limits::MEMBERS_MAX)
                {
                    return Err(self.err("member", format!("there is no member {member}")));
                }
                self.restart(*restart_after_s)
            }
            Command::AddMember { group }
            | Command::SeekToEarliest { group }
            | Command::SeekTo { group, .. } => self.group(*group).map(|_| ()),
            Command::SetGroupOrdering { group, ordering } => {
                self.group(*group)?;
                if matches!(ordering, Ordering::None | Ordering::IgnoreStale) {
                    Ok(())
                } else {
                    Err(self.err("ordering", "a group supports none or ignore_stale"))
                }
            }
            Command::SetPartitions { log, partitions } => {
                if self.scenario.log_index(log).is_none() {
                    return Err(self.err("log", format!("there is no log {log:?}")));
                }
                let max = u64::from(limits::PARTITIONS_MAX);
                check_count(&self.at("partitions"), u64::from(*partitions), 1, max)
            }
            _ => unreachable!("validate_command sends only log commands here"),
        }
    }

    /// Commands about a queue itself, or about its dependency.
    fn queue_command(&self, fault: &Command) -> Result<(), ScenarioError> {
        match fault {
            Command::DependencyOutage { queue, for_s } => {
                self.queue(queue)?;
                check_range(&self.at("for_s"), *for_s, 0.0, limits::TIME_S_MAX)
            }
            Command::Redrive { queue, rate_per_s } => {
                self.queue(queue)?;
                let max = limits::RATE_PER_S_MAX;
                check_range(&self.at("rate_per_s"), *rate_per_s, 0.001, max)
            }
            Command::DeployFix { queue, .. } => self.queue(queue),
            Command::SetVisibilityTimeout { queue, seconds }
            | Command::SetConsumerTimeout { queue, seconds } => {
                self.queue(queue)?;
                let max = limits::TIME_S_MAX;
                check_range(&self.at("seconds"), *seconds, 0.000_001, max)
            }
            Command::SetFlavour { queue, .. } => self.queue(queue),
            Command::SetQueueBound {
                queue, max_length, ..
            } => {
                self.queue(queue)?;
                match max_length {
                    Some(n) => check_count(&self.at("max_length"), *n, 1, limits::LENGTH_MAX),
                    None => Ok(()),
                }
            }
            _ => unreachable!("validate_command sends only queue commands here"),
        }
    }

    /// New settings for every consumer of a queue.
    fn consumer_setting(&self, fault: &Command) -> Result<(), ScenarioError> {
        match fault {
            Command::SetServiceTime { queue, service } => {
                self.consumed_queue(queue)?;
                validate_service(&self.at("service"), service)
            }
            Command::SetConsumerCount { queue, count } => {
                self.consumed_queue(queue)?;
                let max = limits::SCALE_MAX as u64;
                check_count(&self.at("count"), u64::from(*count), 0, max)
            }
            Command::SetPrefetch { queue, prefetch } => {
                self.consumed_queue(queue)?;
                let max = u64::from(limits::PREFETCH_MAX);
                check_count(&self.at("prefetch"), u64::from(*prefetch), 1, max)
            }
            Command::SetAckMode { queue, .. }
            | Command::SetIdempotency { queue, .. }
            | Command::SetOrdering { queue, .. } => self.consumed_queue(queue),
            Command::SetRetry { queue, retry } => {
                self.consumed_queue(queue)?;
                validate_retry(&self.at("retry"), retry)
            }
            _ => unreachable!("validate_command sends only consumer settings here"),
        }
    }
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

/// A rate schedule: 1 to SEGMENTS_MAX segments, the first at 0, starts increasing.
fn validate_schedule(field: &str, schedule: &[RateSegment]) -> Result<(), ScenarioError> {
    use limits::*;
    if schedule.is_empty() || schedule.len() > SEGMENTS_MAX {
        return Err(err(field, format!("needs 1 to {SEGMENTS_MAX} segments")));
    }
    let mut prev = None;
    for (k, seg) in schedule.iter().enumerate() {
        let g = format!("{field}[{k}]");
        check_range(&format!("{g}.from_s"), seg.from_s, 0.0, TIME_S_MAX)?;
        check_range(
            &format!("{g}.rate_per_s"),
            seg.rate_per_s,
            0.0,
            RATE_PER_S_MAX,
        )?;
        if seg.rate_per_s > 0.0 && seg.rate_per_s < RATE_PER_S_MIN {
            return Err(err(
                format!("{g}.rate_per_s"),
                format!("a positive rate must be at least {RATE_PER_S_MIN} (use 0 to stop)"),
            ));
        }
        match prev {
            None if seg.from_s != 0.0 => {
                return Err(err(
                    format!("{g}.from_s"),
                    "the first segment must start at 0",
                ))
            }
            Some(p) if seg.from_s <= p => {
                return Err(err(
                    format!("{g}.from_s"),
                    "segments must start in increasing order",
                ))
            }
            _ => {}
        }
        prev = Some(seg.from_s);
    }
    Ok(())
}

pub(crate) fn validate_service(field: &str, service: &ServiceTime) -> Result<(), ScenarioError> {
    match *service {
        ServiceTime::Fixed { seconds } => check_range(
            &format!("{field}.fixed.seconds"),
            seconds,
            0.0,
            limits::TIME_S_MAX,
        ),
        ServiceTime::Exponential { mean_s } => check_range(
            &format!("{field}.exponential.mean_s"),
            mean_s,
            0.000_001,
            limits::TIME_S_MAX,
        ),
    }
}

fn validate_retry(field: &str, r: &RetryPolicy) -> Result<(), ScenarioError> {
    check_count(
        &format!("{field}.max_attempts"),
        u64::from(r.max_attempts),
        1,
        u64::from(limits::ATTEMPTS_MAX),
    )?;
    check_range(
        &format!("{field}.backoff_base_s"),
        r.backoff_base_s,
        0.0,
        limits::TIME_S_MAX,
    )?;
    check_range(
        &format!("{field}.backoff_cap_s"),
        r.backoff_cap_s,
        r.backoff_base_s,
        limits::TIME_S_MAX,
    )
}

/// A producer's script: at most `SCRIPT_MAX` messages, in time order.
fn validate_script(field: &str, script: &[ScriptedMessage]) -> Result<(), ScenarioError> {
    use limits::*;
    check_len(field, script, SCRIPT_MAX)?;
    for (k, m) in script.iter().enumerate() {
        check_range(&format!("{field}[{k}].at_s"), m.at_s, 0.0, TIME_S_MAX)?;
        check_op(&format!("{field}[{k}].op"), m.op)?;
        check_text(
            &format!("{field}[{k}].routing_key"),
            &m.routing_key,
            NAME_LEN_MAX * 4,
        )?;
        if k > 0 && m.at_s < script[k - 1].at_s {
            return Err(err(
                format!("{field}[{k}].at_s"),
                "script times must not decrease",
            ));
        }
    }
    Ok(())
}

fn check_op(field: &str, op: Op) -> Result<(), ScenarioError> {
    match op {
        Op::Deposit(n) | Op::Withdraw(n) if !(0..=limits::AMOUNT_MAX).contains(&n) => Err(err(
            field,
            format!("amounts must be between 0 and {}", limits::AMOUNT_MAX),
        )),
        _ => Ok(()),
    }
}
