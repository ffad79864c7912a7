//! Built-in example scenarios. Each is a JSON file under `core/scenarios/`, compiled in,
//! so the CLI, the page and the tests all read the same text. The catalogue also gives
//! each one a readable title and a topic, for the page's picker: the scenario files keep
//! their slug as `name` and say what happens in `description`.

use crate::scenario::Scenario;

/// What an example teaches, for grouping them; in the order the picker lists the groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Topic {
    Load,
    Delivery,
    Failures,
    Ordering,
    Publishing,
    Logs,
}

impl Topic {
    /// Every topic, in the order the picker lists them.
    pub const ALL: [Topic; 6] = [
        Topic::Load,
        Topic::Delivery,
        Topic::Failures,
        Topic::Ordering,
        Topic::Publishing,
        Topic::Logs,
    ];

    /// The group's heading.
    pub fn title(self) -> &'static str {
        match self {
            Topic::Load => "Load and capacity",
            Topic::Delivery => "Delivery guarantees",
            Topic::Failures => "Failures, retries and dead letters",
            Topic::Ordering => "Ordering",
            Topic::Publishing => "Publishing reliably: outbox and dual writes",
            Topic::Logs => "Logs and consumer groups",
        }
    }
}

/// One built-in example: its slug (the CLI's name), a readable title, its topic and its
/// JSON text.
pub struct Example {
    pub name: &'static str,
    pub title: &'static str,
    pub topic: Topic,
    pub json: &'static str,
}

/// Shorthand for one row of [`EXAMPLES`].
macro_rules! example {
    ($name:literal, $topic:ident, $title:literal) => {
        Example {
            name: $name,
            title: $title,
            topic: Topic::$topic,
            json: include_str!(concat!("../scenarios/", $name, ".json")),
        }
    };
}

/// Every built-in example (the CLI lists them in this order).
pub const EXAMPLES: &[Example] = &[
    example!("mm1", Load, "One consumer at 90% load (M/M/1)"),
    example!("mm4", Load, "Four consumers share 90% load (M/M/4)"),
    example!("burst", Load, "A burst larger than capacity"),
    example!(
        "crash-after-commit",
        Delivery,
        "Crash between commit and ack: a duplicate"
    ),
    example!(
        "ack-before-effect",
        Delivery,
        "Ack on delivery: a crash loses the message"
    ),
    example!("short-lease", Delivery, "A lease shorter than the work"),
    example!(
        "fanout-subscriptions",
        Load,
        "One publish, three subscriptions (fan-out)"
    ),
    example!(
        "lost-confirm",
        Delivery,
        "A lost publish confirm stores the message twice"
    ),
    example!(
        "outbox-relay-crash",
        Publishing,
        "The outbox relay crashes after publishing"
    ),
    example!(
        "dual-write-crash",
        Publishing,
        "Dual write without an outbox: an event never sent"
    ),
    example!(
        "check-then-insert-race",
        Delivery,
        "A racy duplicate check, and the inbox that fixes it"
    ),
    example!(
        "account-42",
        Ordering,
        "Withdrawal before deposit on a queue"
    ),
    example!(
        "account-42-log",
        Ordering,
        "Withdrawal before deposit on a partitioned log"
    ),
    example!(
        "ordering-account",
        Ordering,
        "Parallel handlers reorder an account"
    ),
    example!(
        "retries-dlq-redrive",
        Failures,
        "Retries, a dead-letter queue and a redrive"
    ),
    example!(
        "backpressure",
        Load,
        "A bounded queue under overload (backpressure)"
    ),
    example!(
        "broker-crash",
        Failures,
        "The broker crashes and comes back"
    ),
    example!(
        "log-consumer-groups",
        Logs,
        "Two consumer groups on a partitioned log"
    ),
    example!(
        "log-commit-modes",
        Logs,
        "Commit the offset before or after the work"
    ),
    example!(
        "log-retention",
        Logs,
        "Retention deletes records a slow group never read"
    ),
    example!(
        "transactional-pipeline",
        Logs,
        "Read-process-write in one transaction"
    ),
    example!(
        "batch-atomicity",
        Failures,
        "A poison message in an atomic batch"
    ),
    example!(
        "confirm-order-77",
        Publishing,
        "Confirming order 77, end to end"
    ),
    example!(
        "queue-vs-topic",
        Delivery,
        "Competing consumers vs independent subscriptions"
    ),
    example!(
        "ack-after-commit",
        Delivery,
        "Ack after commit: a redelivery, and the inbox"
    ),
    example!(
        "lease-heartbeat",
        Delivery,
        "A lease shorter than the work, and a heartbeat"
    ),
    example!(
        "inbox-vs-check",
        Delivery,
        "Check-then-insert vs a unique inbox key"
    ),
    example!(
        "outbox-vs-dual-write",
        Publishing,
        "Outbox vs dual write, side by side"
    ),
    example!(
        "partitions-and-keys",
        Ordering,
        "Keys, partitions, idle members and a hot key"
    ),
    example!(
        "retry-jitter",
        Failures,
        "Retries in lockstep vs retries with jitter"
    ),
    example!(
        "admission-control",
        Load,
        "An unbounded queue vs admission control"
    ),
];

pub fn names() -> impl Iterator<Item = &'static str> {
    EXAMPLES.iter().map(|e| e.name)
}

/// The example called `name`.
pub fn find(name: &str) -> Option<&'static Example> {
    EXAMPLES.iter().find(|e| e.name == name)
}

/// The example's JSON text.
pub fn json(name: &str) -> Option<&'static str> {
    find(name).map(|e| e.json)
}

/// The example, parsed. Built-in examples are valid (a test checks every one).
pub fn load(name: &str) -> Option<Scenario> {
    json(name).map(|j| Scenario::from_json(j).expect("built-in examples are valid"))
}

/// The examples grouped by topic, the topics in [`Topic::ALL`] order and the examples of
/// each in catalogue order; a topic with no example is left out.
pub fn by_topic() -> Vec<(Topic, Vec<&'static Example>)> {
    Topic::ALL
        .iter()
        .map(|&topic| {
            let of_topic = EXAMPLES.iter().filter(|e| e.topic == topic).collect();
            (topic, of_topic)
        })
        .filter(|(_, examples): &(Topic, Vec<_>)| !examples.is_empty())
        .collect()
}
