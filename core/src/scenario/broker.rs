//! The broker: its queues (flavour, type, bounds, leases, dead-lettering) and exchanges
//! with their bindings.

use serde::{Deserialize, Serialize};

use super::yes;

/// Broker-wide settings.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BrokerSpec {
    /// One-way network delay between a producer and the broker (publish, confirm).
    #[serde(default)]
    pub network_latency_s: f64,
}

impl BrokerSpec {
    pub(super) fn is_default(&self) -> bool {
        *self == BrokerSpec::default()
    }
}

/// A queue (or an exchange's subscription).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueSpec {
    pub name: String,
    /// Producers allowed to publish here, by name; empty: any producer. The broker
    /// refuses a publish from any other and tells its producer (least privilege).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub publishers: Vec<String>,
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
    /// as failed attempts of the consumers' retry policy. Its dead-letter queue holds only
    /// what failed: a message whose TTL runs out expires, and `drop_oldest` drops, even
    /// with dead-lettering on (only the RabbitMQ flavour dead-letters them).
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
            publishers: Vec::new(),
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
    /// Producers allowed to publish here, by name; empty: any producer. The broker
    /// refuses a publish from any other and tells its producer (least privilege).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub publishers: Vec<String>,
}

impl ExchangeSpec {
    /// How many queues a publish with `routing_key` reaches: each queue with a matching
    /// binding, once (as the broker routes it).
    pub fn queues_reached(&self, routing_key: &str) -> usize {
        let mut queues: Vec<&str> = self
            .bindings
            .iter()
            .filter(|b| crate::routing::matches(self.kind, &b.key, routing_key))
            .map(|b| b.queue.as_str())
            .collect();
        queues.sort_unstable();
        queues.dedup();
        queues.len()
    }
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
