//! Accounting that tells the truth: what is counted lost never later takes effect, a
//! broker's dedup memory does not outlive the message it protects, a refused operation
//! does not move the state's version, and crash sentences say only what happened.

mod common;

use brokerlab_core::lang::Lang;
use brokerlab_core::narration::describe;
use brokerlab_core::step::LossReason;
use brokerlab_core::{Fact, Fate, MsgId, QueueId, Report, Scenario, Simulation};

fn scenario(json: &str) -> Scenario {
    Scenario::from_json(json).unwrap()
}

/// The facts of a step and their sentences.
type Narrated = Vec<(Vec<Fact>, Vec<String>)>;

/// Every sentence of every step, with the facts of its step.
fn narrate(s: Scenario) -> (Simulation, Narrated) {
    let mut sim = Simulation::new(s).unwrap();
    let mut steps = Vec::new();
    while let Some(step) = sim.step() {
        let facts = step.facts.to_vec();
        brokerlab_core::invariants::check(&sim).unwrap();
        let sentences = facts.iter().map(|f| describe(&sim, f, Lang::En)).collect();
        steps.push((facts, sentences));
    }
    (sim, steps)
}

/// A transient queue; one message per second from 1 s; a handler that takes 1 s; the
/// broker crashes at 2.5 s, while the consumer is halfway through message #1.
fn transient_crash(transient_p: f64) -> Scenario {
    scenario(&format!(
        r#"{{ "version": 1, "name": "t", "seed": 3,
        "producers": [{{ "name": "p",
            "arrivals": {{ "process": "constant", "schedule": [{{ "from_s": 0, "rate_per_s": 1 }}, {{ "from_s": 3.5, "rate_per_s": 0 }}] }},
            "publish": {{ "persistent": false }} }}],
        "queues": [{{ "name": "q", "visibility_timeout_s": 30, "durable": false }}],
        "consumers": [{{ "name": "W", "service": {{ "fixed": {{ "seconds": 1 }} }}, "ack": "after_commit",
            "failures": {{ "transient_p": {transient_p} }},
            "retry": {{ "max_attempts": 3, "backoff_base_s": 0.1, "backoff_cap_s": 1, "jitter": "none" }} }}],
        "faults": [{{ "at_s": 2.5, "fault": {{ "crash_broker": {{ "restart_after_s": 5 }} }} }}]
    }}"#
    ))
}

#[test]
fn a_message_being_processed_when_the_broker_crashes_is_not_lost_if_its_effect_commits() {
    let (sim, steps) = narrate(transient_crash(0.0));
    let facts: Vec<Fact> = steps.iter().flat_map(|(f, _)| f.clone()).collect();
    let crash = facts
        .iter()
        .position(|f| matches!(f, Fact::BrokerCrashed { .. }))
        .unwrap();
    // #1 was being processed at the crash: the broker forgot it, the consumer did not.
    assert!(facts[..crash]
        .iter()
        .any(|f| matches!(f, Fact::ProcessingStarted { msg, .. } if msg.get() == 1)));
    assert!(!facts
        .iter()
        .any(|f| matches!(f, Fact::MessageLost { msg, .. } if msg.get() == 1)));
    assert!(facts[crash..]
        .iter()
        .any(|f| matches!(f, Fact::EffectCommitted { msg, .. } if msg.get() == 1)));
    assert_eq!(sim.copies()[1].fate, Fate::Done);
    // Whatever is counted lost never has its effect applied, before or after.
    for f in &facts {
        if let Fact::MessageLost { msg, .. } = *f {
            assert_eq!(sim.effect_count(msg), 0, "#{msg} lost but applied");
        }
    }
    // The consumer does not ack a delivery the broker forgot, nor claim a redelivery.
    assert!(!facts.iter().any(|f| matches!(
        f,
        Fact::Acked { msg, .. } | Fact::AckLost { msg, .. } | Fact::AckIgnored { msg, .. } if msg.get() == 1
    )));
}

#[test]
fn a_message_the_broker_forgot_is_lost_when_its_processing_fails_and_never_applied() {
    let (sim, steps) = narrate(transient_crash(1.0));
    let facts: Vec<Fact> = steps.iter().flat_map(|(f, _)| f.clone()).collect();
    let crash = facts
        .iter()
        .position(|f| matches!(f, Fact::BrokerCrashed { .. }))
        .unwrap();
    // #1 fails after the crash: nobody can retry it, so it is lost then, not before.
    let lost = facts
        .iter()
        .position(|f| matches!(f, Fact::MessageLost { msg, .. } if msg.get() == 1))
        .unwrap();
    assert!(lost > crash);
    assert!(matches!(
        facts[lost],
        Fact::MessageLost {
            reason: LossReason::BrokerRestartNotDurable,
            ..
        }
    ));
    assert!(matches!(
        facts[lost - 1],
        Fact::HandlerFailed { msg, .. } if msg.get() == 1
    ));
    assert_eq!(sim.effect_count(MsgId::new(1)), 0);
    assert_eq!(sim.copies()[1].fate, Fate::Lost);
}

#[test]
fn the_crash_step_says_crashed_and_only_the_restart_step_says_restarted() {
    let (_, steps) = narrate(transient_crash(0.0));
    for (facts, sentences) in &steps {
        let restarted = facts
            .iter()
            .any(|f| matches!(f, Fact::BrokerRestarted { .. }));
        for s in sentences {
            assert_eq!(s.contains("restarted"), restarted, "{s}");
        }
        if facts
            .iter()
            .any(|f| matches!(f, Fact::BrokerCrashed { .. }))
        {
            // The crash step: only the crash (#1 is being processed, #2 not yet created).
            assert_eq!(
                sentences,
                &vec![
                    "The broker crashed (as scheduled): it stores and delivers nothing until it restarts, and whatever it had not persisted is gone. It will restart at 7.5 s.".to_string(),
                ]
            );
        }
    }
}

/// One idempotent producer with confirms publishes #0 at 1 s into a transient queue whose
/// only consumer is down; the confirm is lost, so it publishes again after 2 s.
fn idempotent_retry(crash: bool) -> Scenario {
    let faults = if crash {
        r#", { "at_s": 1.5, "fault": { "crash_broker": { "restart_after_s": 0.1 } } }"#
    } else {
        ""
    };
    scenario(&format!(
        r#"{{ "version": 1, "name": "t", "seed": 3,
        "producers": [{{ "name": "p",
            "arrivals": {{ "process": "constant", "schedule": [{{ "from_s": 0, "rate_per_s": 1 }}] }},
            "script": [{{ "at_s": 1 }}],
            "publish": {{ "confirms": true, "confirm_timeout_s": 2, "idempotent": true, "persistent": false }} }}],
        "queues": [{{ "name": "q", "visibility_timeout_s": 30 }}],
        "consumers": [{{ "name": "W", "service": {{ "fixed": {{ "seconds": 0.1 }} }}, "ack": "after_commit" }}],
        "faults": [
            {{ "at_s": 0, "fault": {{ "crash_consumer": {{ "consumer": 0, "point": "now" }} }} }},
            {{ "at_s": 0.5, "fault": {{ "drop_next_confirm": {{ "producer": 0 }} }} }}{faults}
        ]
    }}"#
    ))
}

#[test]
fn an_idempotent_producers_dedup_does_not_outlive_the_message_it_protects() {
    // Without a crash, the broker recognises the retry (Kafka-style producer id + sequence).
    let (_, facts) = common::run(idempotent_retry(false));
    assert!(facts
        .iter()
        .any(|f| matches!(f, Fact::Deduplicated { msg, .. } if msg.get() == 0)));
    // The crash lost the only copy: the retry is stored again, not "already had".
    let (sim, steps) = narrate(idempotent_retry(true));
    let facts: Vec<Fact> = steps.iter().flat_map(|(f, _)| f.clone()).collect();
    assert!(facts.iter().any(|f| matches!(
        f,
        Fact::MessageLost {
            msg,
            reason: LossReason::BrokerRestartNotDurable,
            ..
        } if msg.get() == 0
    )));
    assert!(!facts.iter().any(|f| matches!(f, Fact::Deduplicated { .. })));
    let stored = facts
        .iter()
        .filter(|f| matches!(f, Fact::Stored { msg, .. } if msg.get() == 0))
        .count();
    assert_eq!(stored, 2);
    assert_eq!(sim.copies()[1].fate, Fate::Waiting);
}

#[test]
fn with_ignore_stale_a_refused_withdrawal_does_not_advance_the_version() {
    let s = scenario(
        r#"{ "version": 1, "name": "t", "seed": 1,
        "producers": [{ "name": "accounts",
            "arrivals": { "process": "constant", "schedule": [{ "from_s": 0, "rate_per_s": 1 }] },
            "script": [
                { "at_s": 1, "key": 42, "op": { "deposit": 10 } },
                { "at_s": 2, "key": 42, "op": { "withdraw": 50 } },
                { "at_s": 3, "key": 42, "op": { "deposit": 5 } }
            ] }],
        "queues": [{ "name": "ledger", "visibility_timeout_s": 30 }],
        "consumers": [{ "name": "L", "service": { "fixed": { "seconds": 0.1 } },
            "ack": "after_commit", "idempotency": "inbox", "ordering": "ignore_stale" }]
    }"#,
    );
    let mut sim = Simulation::new(s).unwrap();
    let mut refused_step = None;
    let mut version_after_refusal = None;
    while let Some(step) = sim.step() {
        let facts = step.facts.to_vec();
        if facts
            .iter()
            .any(|f| matches!(f, Fact::EffectRefused { msg, .. } if msg.get() == 1))
        {
            let sentences: Vec<String> =
                facts.iter().map(|f| describe(&sim, f, Lang::En)).collect();
            version_after_refusal =
                Some(sim.tables(QueueId::new(0)).unwrap().aggregate(42).version);
            refused_step = Some(sentences);
        }
    }
    let sentences = refused_step.expect("the withdrawal is refused");
    assert_eq!(version_after_refusal, Some(1));
    assert_eq!(
        sentences,
        vec![
            "L refused #1: the balance of key 42 is too low for that withdrawal.".to_string(),
            "L acked #1; the broker removed it for good.".to_string(),
        ]
    );
    let report = Report::of(&sim);
    assert_eq!(report.database[0].balances[&42], 15);
    assert_eq!(report.database[0].versions[&42], 3);
}

#[test]
fn a_commit_then_publish_crash_mentions_no_outbox() {
    let (_, steps) = narrate(common::example("dual-write-crash"));
    let mut crashes = 0;
    for (facts, sentences) in &steps {
        if facts
            .iter()
            .any(|f| matches!(f, Fact::ProducerCrashed { .. }))
        {
            crashes += 1;
            assert!(
                sentences.iter().all(|s| !s.contains("outbox")),
                "{sentences:?}"
            );
        }
    }
    assert!(crashes > 0);
    // An outbox producer's crash does mention its outbox, which survives.
    let (_, steps) = narrate(common::example("outbox-relay-crash"));
    assert!(steps.iter().any(|(facts, sentences)| facts
        .iter()
        .any(|f| matches!(f, Fact::ProducerCrashed { .. }))
        && sentences.iter().any(|s| s.contains("outbox included"))));
}

#[test]
fn an_outbox_relay_crash_and_its_restart_are_narrated_as_the_relays() {
    let (_, steps) = narrate(common::example("outbox-relay-crash"));
    let said = |wanted: fn(&Fact) -> bool| -> Vec<String> {
        steps
            .iter()
            .filter(|(facts, _)| facts.iter().any(wanted))
            .flat_map(|(_, sentences)| sentences.iter().cloned())
            .collect()
    };
    let crash = said(|f| matches!(f, Fact::ProducerCrashed { .. }));
    assert!(
        crash
            .iter()
            .any(|s| s.starts_with("order-service's outbox relay crashed")
                && s.contains("before it marked the row as sent")),
        "{crash:?}"
    );
    assert!(
        !crash.iter().any(|s| s.starts_with("order-service crashed")),
        "the service is not blamed for its relay's crash: {crash:?}"
    );
    let restart = said(|f| matches!(f, Fact::ProducerRestarted { .. }));
    assert!(
        restart
            .iter()
            .any(|s| s.starts_with("order-service's outbox relay restarted")),
        "{restart:?}"
    );
}
