//! Defects found by probing the runner with hand-written scenarios (2026-12 audit): each
//! test shows what the real broker does and failed before its fix.

mod common;

use brokerlab_core::Scenario;

fn scenario(json: &str) -> Scenario {
    Scenario::from_json(json).unwrap()
}

/// RabbitMQ splits a topic binding key and a routing key the same way, and an empty key is
/// zero words (`split_topic_key(<<>>, [], []) -> []` in `rabbit_db_topic_exchange`): a
/// binding with the empty key matches a publish with the empty routing key, and nothing
/// else. Before, the lab read the empty binding as one empty word, so it matched no
/// publish at all: every message was counted unroutable.
#[test]
fn a_topic_binding_with_the_empty_key_takes_publishes_with_the_empty_routing_key() {
    let s = scenario(
        r#"{ "version": 4, "name": "empty-topic-key", "seed": 1,
        "producers": [
            { "name": "plain", "target": "x", "count": 3,
              "arrivals": { "process": "constant", "schedule": [{ "from_s": 0, "rate_per_s": 1 }] } },
            { "name": "keyed", "target": "x", "count": 2, "routing_keys": ["orders"],
              "arrivals": { "process": "constant", "schedule": [{ "from_s": 0, "rate_per_s": 1 }] } }
        ],
        "queues": [{ "name": "q", "visibility_timeout_s": 10 }],
        "exchanges": [{ "name": "x", "kind": "topic", "bindings": [{ "queue": "q", "key": "" }] }],
        "consumers": [{ "name": "C", "queue": "q", "service": { "fixed": { "seconds": 0.1 } }, "ack": "after_commit" }],
        "sample_every_s": 1 }"#,
    );
    let (sim, _) = common::run(s);
    let c = sim.counters();
    assert_eq!((c.acked, c.unroutable), (3, 2), "{c:?}");
}
