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

/// A RabbitMQ consumer timeout shorter than the work closes the channel every time it runs
/// out, and every delivery the channel held goes back and out again in that one step: with
/// a deep prefetch one step tells hundreds of facts, so a budget counting only steps let
/// such a run go on for an hour (100 messages, prefetch 100, 1 ms timeout: about 300
/// facts a step, 50 million steps). The budget also bounds the facts told: eight a step
/// on average (`FACTS_PER_STEP`), so the run stops with `step_budget` after about as much work as the step
/// budget allows.
#[test]
fn a_run_whose_steps_tell_hundreds_of_facts_stops_at_the_work_budget() {
    use brokerlab_core::{sim::FACTS_PER_STEP, Budget, EndReason, Simulation};
    let s = scenario(
        r#"{ "version": 4, "name": "channel-close-loop", "seed": 1,
        "producers": [{ "name": "P", "count": 100,
            "arrivals": { "process": "constant", "schedule": [{ "from_s": 0, "rate_per_s": 1000 }] } }],
        "queues": [{ "name": "q", "visibility_timeout_s": 10, "flavour": "rabbitmq", "consumer_timeout_s": 0.001 }],
        "consumers": [{ "name": "C", "queue": "q", "prefetch": 100, "service": { "fixed": { "seconds": 1 } }, "ack": "after_commit" }],
        "sample_every_s": 1 }"#,
    );
    let budget = Budget {
        steps_max: 10_000,
        ..Budget::default()
    };
    let mut sim = Simulation::with_budget(s, budget).unwrap();
    let (mut facts, mut widest) = (0u64, 0u64);
    while let Some(step) = sim.step() {
        facts += step.facts.len() as u64;
        widest = widest.max(step.facts.len() as u64);
    }
    assert_eq!(sim.end_reason(), Some(EndReason::StepBudget));
    assert!(
        widest > 100,
        "the loop tells hundreds of facts a step: {widest}"
    );
    assert!(
        facts <= FACTS_PER_STEP * budget.steps_max + widest,
        "{facts} facts in {} steps",
        sim.steps()
    );
}
