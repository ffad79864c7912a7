//! Built-in example scenarios. Each is a JSON file under `core/scenarios/`, compiled in,
//! so the CLI, the page and the tests all read the same text.

use crate::scenario::Scenario;

/// (name, JSON text) of every built-in example.
pub const EXAMPLES: &[(&str, &str)] = &[
    ("mm1", include_str!("../scenarios/mm1.json")),
    ("mm4", include_str!("../scenarios/mm4.json")),
    ("burst", include_str!("../scenarios/burst.json")),
    (
        "crash-after-commit",
        include_str!("../scenarios/crash-after-commit.json"),
    ),
    (
        "ack-before-effect",
        include_str!("../scenarios/ack-before-effect.json"),
    ),
    ("short-lease", include_str!("../scenarios/short-lease.json")),
    (
        "fanout-subscriptions",
        include_str!("../scenarios/fanout-subscriptions.json"),
    ),
    (
        "lost-confirm",
        include_str!("../scenarios/lost-confirm.json"),
    ),
    (
        "outbox-relay-crash",
        include_str!("../scenarios/outbox-relay-crash.json"),
    ),
    (
        "dual-write-crash",
        include_str!("../scenarios/dual-write-crash.json"),
    ),
    (
        "check-then-insert-race",
        include_str!("../scenarios/check-then-insert-race.json"),
    ),
    ("account-42", include_str!("../scenarios/account-42.json")),
    (
        "account-42-log",
        include_str!("../scenarios/account-42-log.json"),
    ),
    (
        "ordering-account",
        include_str!("../scenarios/ordering-account.json"),
    ),
    (
        "retries-dlq-redrive",
        include_str!("../scenarios/retries-dlq-redrive.json"),
    ),
    (
        "backpressure",
        include_str!("../scenarios/backpressure.json"),
    ),
    (
        "broker-crash",
        include_str!("../scenarios/broker-crash.json"),
    ),
    (
        "log-consumer-groups",
        include_str!("../scenarios/log-consumer-groups.json"),
    ),
    (
        "log-commit-modes",
        include_str!("../scenarios/log-commit-modes.json"),
    ),
    (
        "log-retention",
        include_str!("../scenarios/log-retention.json"),
    ),
    (
        "transactional-pipeline",
        include_str!("../scenarios/transactional-pipeline.json"),
    ),
    (
        "batch-atomicity",
        include_str!("../scenarios/batch-atomicity.json"),
    ),
    (
        "confirm-order-77",
        include_str!("../scenarios/confirm-order-77.json"),
    ),
];

pub fn names() -> impl Iterator<Item = &'static str> {
    EXAMPLES.iter().map(|(n, _)| *n)
}

/// The example's JSON text.
pub fn json(name: &str) -> Option<&'static str> {
    EXAMPLES.iter().find(|(n, _)| *n == name).map(|(_, j)| *j)
}

/// The example, parsed. Built-in examples are valid (a test checks every one).
pub fn load(name: &str) -> Option<Scenario> {
    json(name).map(|j| Scenario::from_json(j).expect("built-in examples are valid"))
}
