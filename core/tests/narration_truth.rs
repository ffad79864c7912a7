//! No sentence of the narration contradicts the facts of its step, for every built-in
//! example (each cut at a step bound). The rules are concrete and checkable:
//!
//! 1. a sentence naming a message `#id` names one that some fact of its step carries;
//! 2. "is lost" only in a step with a `MessageLost` fact;
//! 3. "restarted" only in a step with a restart fact (broker, consumer or producer);
//! 4. "outbox" only about a producer that has an outbox;
//! 5. "committed the effect" only in a step with an `EffectCommitted` fact;
//! 6. "crashed" only in a step with a crash fact, or in a loss that explains an earlier
//!    crash ("the broker crashed without persisting it");
//! 7. "again (attempt N)" only for a fact whose attempt is N.

use brokerlab_core::lang::Lang;
use brokerlab_core::narration::describe;
use brokerlab_core::{
    examples, ConsumerId, Fact, Handoff, MsgId, ProducerId, Scenario, Simulation,
};

const STEPS_MAX: u64 = 4_000;

fn ids_in(sentence: &str) -> Vec<MsgId> {
    let mut ids = Vec::new();
    let mut rest = sentence;
    while let Some(i) = rest.find('#') {
        rest = &rest[i + 1..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if let Ok(id) = digits.parse() {
            ids.push(id);
        }
    }
    ids
}

fn producer_of(fact: &Fact) -> Option<u32> {
    let v = serde_json::to_value(fact).ok()?;
    v.get("producer")?.as_u64().map(|p| p as u32)
}

fn attempt_of(fact: &Fact) -> Option<u64> {
    let v = serde_json::to_value(fact).ok()?;
    v.get("attempt")?.as_u64()
}

fn has_outbox(s: &Scenario, p: u32) -> bool {
    matches!(s.producers[p as usize].handoff, Handoff::Outbox { .. })
}

/// Checks one step; returns the broken rule, if any.
fn check_step(sim: &Simulation, facts: &[Fact]) -> Result<(), String> {
    let any = |f: fn(&Fact) -> bool| facts.iter().any(f);
    // The messages the step is about, and the one an inbox row names when a message is
    // taken for its duplicate.
    let named = facts.iter().filter_map(|f| match *f {
        Fact::TakenForDuplicate { first, .. } | Fact::RecordTakenForDuplicate { first, .. } => {
            Some(first)
        }
        _ => None,
    });
    let msgs: Vec<MsgId> = facts.iter().filter_map(Fact::msg).chain(named).collect();
    let lost = any(|f| matches!(f, Fact::MessageLost { .. }));
    let restarted = any(|f| {
        matches!(
            f,
            Fact::BrokerRestarted { .. }
                | Fact::ConsumerRestarted { .. }
                | Fact::ProducerRestarted { .. }
        )
    });
    let effect = any(|f| matches!(f, Fact::EffectCommitted { .. }));
    let crashed = any(|f| {
        matches!(
            f,
            Fact::BrokerCrashed { .. }
                | Fact::ConsumerCrashed { .. }
                | Fact::ProducerCrashed { .. }
                | Fact::MemberCrashed { .. }
        )
    });
    for fact in facts {
        let s = describe(sim, fact, Lang::En);
        check_sentence(
            sim,
            facts,
            fact,
            &s,
            [lost, restarted, effect, crashed],
            &msgs,
        )?;
    }
    Ok(())
}

fn check_sentence(
    sim: &Simulation,
    facts: &[Fact],
    fact: &Fact,
    s: &str,
    [lost, restarted, effect, crashed]: [bool; 4],
    msgs: &[MsgId],
) -> Result<(), String> {
    {
        let fail = |rule: &str| Err(format!("{rule}: {s:?} in step {facts:?}"));
        if ids_in(s).iter().any(|id| !msgs.contains(id)) {
            return fail("names a message its step does not carry");
        }
        if s.contains("is lost") && !lost {
            return fail("says lost without a loss");
        }
        if s.contains("restarted") && !restarted {
            return fail("says restarted without a restart");
        }
        if s.contains("outbox") && !producer_of(fact).is_some_and(|p| has_outbox(sim.scenario(), p))
        {
            return fail("mentions an outbox its producer does not have");
        }
        if s.contains("committed the effect") && !effect {
            return fail("says an effect committed without one");
        }
        if s.contains("crashed") && !crashed && !matches!(fact, Fact::MessageLost { .. }) {
            return fail("says crashed without a crash");
        }
        if let Some(i) = s.find("again (attempt ") {
            let n: String = s[i + 15..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            if attempt_of(fact) != n.parse().ok() {
                return fail("names the wrong attempt");
            }
        }
    }
    Ok(())
}

#[test]
fn no_sentence_contradicts_the_facts_of_its_step_in_any_example() {
    let mut checked = 0;
    for name in examples::message_by_message() {
        let mut sim = Simulation::new(examples::load(name).unwrap()).unwrap();
        while sim.steps() < STEPS_MAX {
            let Some(step) = sim.step() else { break };
            let facts = step.facts.to_vec();
            check_step(&sim, &facts).unwrap_or_else(|e| panic!("{name}: {e}"));
            checked += facts.len();
        }
    }
    assert!(checked > 10_000, "{checked} facts checked");
}

#[test]
fn the_rules_catch_false_sentences() {
    // A rule that cannot fail checks nothing: each rejects a sentence that breaks it.
    let sim = Simulation::new(examples::load("dual-write-crash").unwrap()).unwrap();
    let crash = Fact::BrokerCrashed {
        trigger: brokerlab_core::Trigger::User,
        restart_at_us: None,
    };
    let facts = [crash];
    let only_crash = [false, false, false, true];
    let check = |s: &str| check_sentence(&sim, &facts, &crash, s, only_crash, &[]);
    assert!(check("The broker crashed (on your command).").is_ok());
    assert!(check("The broker restarted.").is_err());
    assert!(check("#3 is lost: the broker restarted.").is_err());
    assert!(check("C1 committed the effect of #0.").is_err());
    // dual-write-crash's producer commits, then publishes: it has no outbox.
    assert!(check_sentence(
        &sim,
        &[Fact::ProducerCrashed {
            producer: ProducerId::new(0),
            point: brokerlab_core::ProducerCrashPoint::Now,
            trigger: brokerlab_core::Trigger::User,
            restart_at_us: None,
        }],
        &Fact::ProducerCrashed {
            producer: ProducerId::new(0),
            point: brokerlab_core::ProducerCrashPoint::Now,
            trigger: brokerlab_core::Trigger::User,
            restart_at_us: None,
        },
        "P crashed; its database (outbox included) is not.",
        only_crash,
        &[],
    )
    .is_err());
    let sent = Fact::PublishSent {
        producer: ProducerId::new(0),
        msg: MsgId::new(7),
        attempt: 2,
    };
    let ok =
        |s: &str| check_sentence(&sim, &[sent], &sent, s, [false; 4], &[MsgId::new(7)]).is_ok();
    assert!(ok("P published #7 again (attempt 2), with the same id."));
    assert!(!ok("P published #7 again (attempt 3), with the same id."));
    assert!(!ok("P published #8 again (attempt 2), with the same id."));
}

#[test]
fn a_restart_that_follows_its_crash_is_not_called_scheduled() {
    // The crash is clicked (a command); its restart comes restart_after_s later by
    // itself: neither "as scheduled" nor "on your command" is true of the restart.
    let mut s = examples::load("crash-after-commit").expect("built in");
    s.commands.clear();
    let mut sim = Simulation::new(s).expect("valid");
    sim.step();
    sim.command(brokerlab_core::Command::CrashConsumer {
        consumer: ConsumerId::new(0),
        point: brokerlab_core::CrashPoint::Now,
        restart_after_s: Some(1.0),
    })
    .expect("valid");
    let mut said = Vec::new();
    while let Some(step) = sim.step() {
        let facts = step.facts.to_vec();
        for fact in facts
            .iter()
            .filter(|f| matches!(f, Fact::ConsumerRestarted { .. }))
        {
            said.push(describe(&sim, fact, Lang::En));
        }
    }
    assert_eq!(
        said,
        ["C1 restarted (by itself, after its crash) and asks the broker for work."]
    );
}

#[test]
fn an_unannounced_fault_is_told_when_it_strikes_never_as_planned() {
    // An interview hides a fault: the same crash, armed at 0 s to strike after the next
    // commit. Marked unannounced, the run is the same step for step; only the cause
    // differs, and the arming is the fact the page keeps quiet.
    let announced = examples::load("crash-after-commit").expect("built in");
    let mut hidden = announced.clone();
    hidden.commands[0].unannounced = true;
    let run = |s: Scenario| {
        let mut sim = Simulation::new(s).expect("valid");
        let mut out = Vec::new();
        while let Some(step) = sim.step() {
            let (t, facts) = (step.time_us, step.facts.to_vec());
            for fact in facts {
                let (en, es) = (
                    describe(&sim, &fact, Lang::En),
                    describe(&sim, &fact, Lang::Es),
                );
                out.push((t, fact, en, es));
            }
            if sim.steps() > 400 {
                break;
            }
        }
        out
    };
    let (before, after) = (run(announced), run(hidden));
    assert_eq!(before.len(), after.len());
    let mut caused = 0;
    for ((t0, f0, en0, _), (t1, f1, en1, es1)) in before.iter().zip(&after) {
        assert_eq!(t0, t1);
        assert!(
            !en1.contains("as scheduled") && !es1.contains("programado"),
            "{en1}"
        );
        if en0.contains("(as scheduled)") {
            caused += 1;
            assert_eq!(en1, &en0.replace("(as scheduled)", "(unannounced)"));
            assert!(es1.contains("(sin aviso)"), "{es1}");
            assert_eq!(
                f1.arms_unannounced(),
                matches!(f0, Fact::CrashArmed { .. }),
                "only the arming is kept quiet: {en1}"
            );
        } else {
            assert_eq!(f0, f1);
            assert!(!f1.arms_unannounced());
        }
    }
    assert_eq!(caused, 2, "the crash armed, then the crash itself");
}
