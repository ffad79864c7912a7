//! "It comes from our own broker" is not a trust boundary. A producer with stolen
//! credentials publishes messages that are well-formed but that its source has no
//! authority to ask for (an unauthorised tenant). A handler that checks the source's
//! authority refuses them at the first attempt and dead-letters them, since waiting will
//! not authorise them; a handler that trusts the broker applies their effects.

mod common;

use brokerlab_core::lang::Lang;
use brokerlab_core::narration::describe;
use brokerlab_core::step::DeadLetterReason;
use brokerlab_core::{Command, ConsumerId, Fact, Poison, ProducerId, QueueId, Scenario};

fn untrusted() -> Scenario {
    common::example("untrusted-source")
}

#[test]
fn a_trusting_handler_applies_what_a_checking_one_dead_letters() {
    let (sim, facts) = common::run(untrusted());
    let balance = |q: u32, key: u32| sim.tables(QueueId::new(q)).unwrap().aggregate(key).balance;
    assert_eq!((balance(0, 42), balance(0, 7)), (70, 50), "checked");
    assert_eq!((balance(1, 42), balance(1, 7)), (0, 0), "unchecked");
    let unauthorized: Vec<(u32, u64, u32)> = facts
        .iter()
        .filter_map(|f| match *f {
            Fact::UnauthorizedEffect {
                consumer,
                msg,
                producer,
                ..
            } => Some((consumer.get(), msg.get(), producer.get())),
            _ => None,
        })
        .collect();
    assert_eq!(
        unauthorized,
        [(1, 2, 1), (1, 3, 1)],
        "both stolen withdrawals, on 'unchecked' only, from 'partner-api'"
    );
    // On 'checked', each went to the dead-letter queue at its first attempt, as poison.
    let dead: Vec<(u64, u32, DeadLetterReason, u32)> = facts
        .iter()
        .filter_map(|f| match *f {
            Fact::DeadLettered {
                msg,
                queue,
                reason,
                attempts,
                ..
            } => Some((msg.get(), queue.get(), reason, attempts)),
            _ => None,
        })
        .collect();
    let poison = DeadLetterReason::Poison(Poison::UnauthorizedTenant);
    assert_eq!(dead, [(2, 0, poison, 1), (3, 0, poison, 1)]);
    // The real withdrawal of 30 finds account 42 emptied on 'unchecked'.
    let refused: Vec<(u32, u64)> = facts
        .iter()
        .filter_map(|f| match *f {
            Fact::EffectRefused { consumer, msg, .. } => Some((consumer.get(), msg.get())),
            _ => None,
        })
        .collect();
    assert_eq!(refused, [(1, 4)]);
    let c = sim.counters();
    assert_eq!(
        (
            c.unauthorized_effects,
            c.dead_lettered,
            c.effects_refused,
            c.effects_applied
        ),
        (2, 2, 1, 7)
    );
    assert_eq!(sim.consumer(ConsumerId::new(1)).unwrap().name, "unchecked");
    assert!(sim.consumer(ConsumerId::new(1)).unwrap().trusts_the_broker);
    assert!(!sim.consumer(ConsumerId::new(0)).unwrap().trusts_the_broker);
}

#[test]
fn the_unauthorised_effect_is_told_in_both_languages() {
    let (sim, facts) = common::run(untrusted());
    let fact = facts
        .iter()
        .find(|f| matches!(f, Fact::UnauthorizedEffect { .. }))
        .unwrap();
    let en = describe(&sim, fact, Lang::En);
    assert!(
        en.starts_with("unchecked trusts whatever the broker delivers"),
        "{en}"
    );
    assert!(en.contains("partner-api may ask for #2"), "{en}");
    assert!(en.contains("(unauthorised effect)"), "{en}");
    let es = describe(&sim, fact, Lang::Es);
    assert!(es.contains("efecto no autorizado"), "{es}");
    // Its creation says it is well-formed: nothing in its syntax gives it away.
    let created = facts
        .iter()
        .find(|f| matches!(f, Fact::Created { producer, .. } if *producer == ProducerId::new(1)))
        .unwrap();
    let told = describe(&sim, created, Lang::En);
    assert!(
        told.contains("for key 42 (version 1) — well-formed, but its tenant is not authorised"),
        "{told}"
    );
}

/// Trusting the broker skips the authority check only: a payload the handler cannot
/// parse, or a schema version it does not know, still fails it.
#[test]
fn a_trusting_handler_still_fails_on_what_it_cannot_read() {
    for poison in [Poison::MalformedPayload, Poison::UnknownSchemaVersion] {
        let mut s = untrusted();
        for m in &mut s.producers[1].script {
            m.poison = Some(poison);
        }
        let (sim, facts) = common::run(s);
        let c = sim.counters();
        assert_eq!(
            (c.unauthorized_effects, c.dead_lettered),
            (0, 4),
            "{poison:?}"
        );
        assert!(!facts
            .iter()
            .any(|f| matches!(f, Fact::UnauthorizedEffect { .. })));
        let balance = sim.tables(QueueId::new(1)).unwrap().aggregate(42).balance;
        assert_eq!(balance, 70, "{poison:?}");
    }
}

/// A fix deployed for that class (here: the tenant granted authority) makes the
/// messages legitimate for both handlers: their effects are no longer unauthorised.
#[test]
fn once_the_tenant_is_authorised_its_effects_are_not_counted_unauthorised() {
    let mut s = untrusted();
    for queue in ["checked", "unchecked"] {
        s.commands.push(common::at(
            0.0,
            Command::DeployFix {
                queue: queue.into(),
                poison: Poison::UnauthorizedTenant,
            },
        ));
    }
    let (sim, _) = common::run(s);
    let c = sim.counters();
    assert_eq!((c.unauthorized_effects, c.dead_lettered), (0, 0));
    let balance = |q: u32| sim.tables(QueueId::new(q)).unwrap().aggregate(42).balance;
    assert_eq!((balance(0), balance(1)), (0, 0));
}

/// The setting is left out of a file when off, and a file without it checks the source.
#[test]
fn checking_is_the_default_and_the_setting_round_trips() {
    let s = untrusted();
    assert!(!s.consumers[0].trusts_the_broker);
    assert!(s.consumers[1].trusts_the_broker);
    let json = serde_json::to_string(&s).unwrap();
    assert_eq!(json.matches("trusts_the_broker").count(), 1, "{json}");
    let back: Scenario = serde_json::from_str(&json).unwrap();
    assert_eq!(back, s);
}

/// Least privilege at the broker: the exchange lists who may publish to it, and the
/// stolen credentials of 'reports' are not on the list. The broker refuses the publish
/// and says so; nothing is stored, and the job fails where its producer can see it.
#[test]
fn the_broker_refuses_a_producer_its_destination_does_not_list() {
    let (sim, facts) = common::run(untrusted());
    let denied: Vec<(u32, u64)> = facts
        .iter()
        .filter_map(|f| match *f {
            Fact::PublishDenied { producer, msg, .. } => Some((producer.get(), msg.get())),
            _ => None,
        })
        .collect();
    assert_eq!(denied, [(2, 5)], "reports' one withdrawal");
    assert!(
        !facts
            .iter()
            .any(|f| matches!(f, Fact::Stored { msg, .. } if msg.get() == 5)),
        "never stored"
    );
    let c = sim.counters();
    assert_eq!(
        (c.publishes_denied, c.lost, c.lost_before_stored),
        (1, 0, 0)
    );
    let jobs = sim.jobs_of(Some(ProducerId::new(2)));
    assert_eq!((jobs.failed, jobs.completed, jobs.pending), (1, 0, 0));
    // Account 7 on 'checked' keeps the deposit: the third withdrawal never arrived.
    assert_eq!(
        sim.tables(QueueId::new(0)).unwrap().aggregate(7).balance,
        50
    );
    let fact = facts
        .iter()
        .find(|f| matches!(f, Fact::PublishDenied { .. }))
        .unwrap();
    assert_eq!(
        describe(&sim, fact, Lang::En),
        "The broker refused #5: reports may not publish to payments (access refused), so nothing was stored and it was told."
    );
    assert!(describe(&sim, fact, Lang::Es).contains("no tiene permiso para publicar en payments"));
}

/// Without the list, the same stolen credentials reach both subscriptions: the checking
/// handler dead-letters the withdrawal, the trusting one tries it (refused: account 7 is
/// already empty there).
#[test]
fn without_the_list_the_stolen_credentials_reach_the_consumers() {
    let mut s = untrusted();
    s.exchanges[0].publishers.clear();
    let (sim, facts) = common::run(s);
    let c = sim.counters();
    assert_eq!((c.publishes_denied, c.dead_lettered), (0, 3));
    assert!(facts
        .iter()
        .any(|f| matches!(f, Fact::EffectRefused { msg, .. } if msg.get() == 5)));
}

/// A producer whose publishes are refused through an outbox: the relay keeps the row
/// and tries again, in vain, until it parks the row for an operator.
#[test]
fn a_relay_whose_publishes_are_refused_parks_the_row() {
    let mut s = untrusted();
    s.producers[2].handoff = brokerlab_core::Handoff::Outbox {
        relay_poll_s: 0.2,
        stable_ids: true,
    };
    let (sim, facts) = common::run(s);
    let attempts = s_count(&facts, |f| matches!(f, Fact::PublishDenied { .. }));
    assert_eq!(attempts, 5, "the producer's publish attempts, all refused");
    assert!(facts
        .iter()
        .any(|f| matches!(f, Fact::OutboxRowParked { msg, .. } if msg.get() == 5)));
    assert_eq!(sim.counters().publishes_denied, 5);
}

fn s_count(facts: &[Fact], f: impl Fn(&Fact) -> bool) -> usize {
    facts.iter().filter(|x| f(x)).count()
}

/// A destination's list must name producers of the scenario, in either language.
#[test]
fn a_publisher_that_is_no_producer_is_refused() {
    let mut s = untrusted();
    s.exchanges[0].publishers.push("payment-api".into());
    let Err(e) = brokerlab_core::Simulation::new(s) else {
        panic!("a publisher that is no producer was accepted");
    };
    assert_eq!(e.field, "exchanges[0].publishers[2]");
    assert_eq!(e.problem, "there is no producer \"payment-api\"");
    assert_eq!(
        e.text_in(Lang::Es),
        "exchanges[0].publishers[2]: no existe el productor \"payment-api\""
    );
    // A name too long to be a producer's is refused as such, not echoed whole.
    let mut s = untrusted();
    s.exchanges[0].publishers = vec!["x".repeat(10_000)];
    let Err(e) = brokerlab_core::Simulation::new(s) else {
        panic!("a 10,000-character publisher was accepted");
    };
    assert_eq!(e.field, "exchanges[0].publishers[0]");
    assert!(e.problem.starts_with("is longer than"), "{}", e.problem);
}

/// The aggregated mode does not model who may publish where: it says so.
#[test]
fn the_aggregated_mode_refuses_publish_permissions() {
    let mut s = common::example("mm1");
    s.queues[0].publishers = vec!["P1".into()];
    s.mode = brokerlab_core::RunMode::Aggregated;
    let Err(e) = brokerlab_core::aggregate::run(&s) else {
        panic!("the aggregated mode ran a scenario with publish permissions");
    };
    assert_eq!(
        e.problem,
        "the aggregated mode does not model publish permissions"
    );
}

// ----- a replay window ------------------------------------------------------------------

/// Messages created longer ago than a handler's replay window are refused at their first
/// attempt and dead-lettered: legitimate work that waited (here, a redrive of the dead
/// letters of a dependency outage) as well as a replay. The handler without a window
/// applies every redriven payment once.
#[test]
fn a_replay_window_refuses_a_legitimate_redrive() {
    let (sim, facts) = common::run(common::example("replay-window"));
    let outage: Vec<u64> = facts
        .iter()
        .filter_map(|f| match *f {
            Fact::DeadLettered {
                msg,
                queue,
                reason: DeadLetterReason::RetriesExhausted,
                ..
            } if queue.get() == 0 => Some(msg.get()),
            _ => None,
        })
        .collect();
    assert!(outage.len() >= 15, "the outage's payments: {outage:?}");
    let too_old: Vec<u64> = facts
        .iter()
        .filter_map(|f| match *f {
            Fact::DeadLettered {
                msg,
                queue,
                reason: DeadLetterReason::TooOld,
                ..
            } => {
                assert_eq!(queue.get(), 0, "only 'windowed' has a window");
                Some(msg.get())
            }
            _ => None,
        })
        .collect();
    assert_eq!(too_old, outage, "every redriven payment, refused again");
    let c = sim.counters();
    assert_eq!(c.dead_lettered_again, outage.len() as u64);
    assert_eq!(c.redriven, 2 * outage.len() as u64, "both queues redriven");
    let applied = |q: u32| sim.tables(QueueId::new(q)).unwrap().applied.total();
    assert_eq!(
        applied(1),
        60,
        "'open': every payment once, the redriven included"
    );
    assert_eq!(applied(0), 60 - outage.len() as u64);
    assert_eq!(c.duplicate_effects, 0);
    // Refused for its age, not retried: one failure per redriven payment.
    let failed_too_old = facts
        .iter()
        .filter(|f| {
            matches!(
                f,
                Fact::HandlerFailed {
                    failure: brokerlab_core::step::Failure::TooOld,
                    ..
                }
            )
        })
        .count();
    assert_eq!(failed_too_old, outage.len());
    let told = facts
        .iter()
        .find(|f| {
            matches!(
                f,
                Fact::DeadLettered {
                    reason: DeadLetterReason::TooOld,
                    ..
                }
            )
        })
        .unwrap();
    let en = describe(&sim, told, Lang::En);
    assert!(
        en.ends_with("is older than windowed's consumer accepts (its replay window): waiting would only make it older, so it skipped the retries and moved to the dead-letter queue."),
        "{en}"
    );
    assert!(describe(&sim, told, Lang::Es).contains("ventana de repetición"));
}

/// The window is counted from the message's creation, so a message that waited in a
/// backlog is refused too; without a window the same run refuses nothing.
#[test]
fn a_replay_window_counts_from_creation_and_a_backlog_reaches_it() {
    let mut s = common::example("replay-window");
    s.commands.clear();
    for c in &mut s.consumers {
        c.failures = Default::default();
        c.service = brokerlab_core::ServiceTime::Fixed { seconds: 1.0 };
    }
    // Two arrivals a second against one a second: the n-th waits about n/2 seconds.
    let (sim, facts) = common::run(s.clone());
    let refused = facts
        .iter()
        .filter(|f| {
            matches!(
                f,
                Fact::DeadLettered {
                    reason: DeadLetterReason::TooOld,
                    ..
                }
            )
        })
        .count();
    assert!(refused > 0, "the backlog outgrows the 20 s window");
    assert_eq!(sim.counters().dead_lettered, refused as u64);
    s.consumers[0].max_message_age_s = None;
    let (sim, _) = common::run(s);
    assert_eq!(sim.counters().dead_lettered, 0);
}

#[test]
fn a_replay_window_must_be_positive() {
    let mut s = common::example("replay-window");
    s.consumers[0].max_message_age_s = Some(0.0);
    let Err(e) = brokerlab_core::Simulation::new(s) else {
        panic!("a window of 0 s was accepted");
    };
    assert_eq!(e.field, "consumers[0].max_message_age_s");
}

/// A consumer group's replay window: rewound to the earliest offsets at 40 s, 'analytics'
/// refuses every record it reads again that was created more than 30 s before, and
/// dead-letters it to its built-in topic; 'ledger', without a window, refuses nothing.
#[test]
fn a_groups_replay_window_refuses_a_rewind_past_it() {
    let mut s = common::example("log-consumer-groups");
    s.groups[1].max_message_age_s = Some(30.0);
    let mut sim = brokerlab_core::Simulation::new(s).unwrap();
    let mut refused = Vec::new();
    while let Some(step) = sim.step() {
        for f in step.facts {
            if let Fact::RecordDeadLettered {
                reason: DeadLetterReason::TooOld,
                ..
            } = *f
            {
                refused.push((step.time_us, *f));
            }
        }
    }
    assert!(
        !refused.is_empty(),
        "the rewind reaches records older than 30 s"
    );
    for (t, f) in &refused {
        let Fact::RecordDeadLettered { group, .. } = f else {
            unreachable!()
        };
        assert_eq!((group.get(), *t >= 40_000_000), (1, true), "{f:?} at {t}");
    }
    let told = describe(&sim, &refused[0].1, Lang::En);
    assert!(
        told.contains("older than the group's replay window, and waiting would only make it older"),
        "{told}"
    );
    assert!(describe(&sim, &refused[0].1, Lang::Es).contains("ventana de repetición del grupo"));
}

/// The same story on a log: two groups read the payments log, one checking the source's
/// authority, one trusting whatever the log holds.
fn untrusted_log() -> Scenario {
    let mut s = untrusted();
    let json = serde_json::json!({
        "logs": [{ "name": "payments", "partitions": 1, "publishers": ["payments-api", "partner-api"] }],
        "groups": [
            { "name": "checked", "log": "payments", "members": 1,
              "service": { "fixed": { "seconds": 0.5 } }, "commit": "after_processing",
              "idempotency": "inbox" },
            { "name": "unchecked", "log": "payments", "members": 1,
              "service": { "fixed": { "seconds": 0.5 } }, "commit": "after_processing",
              "idempotency": "inbox", "trusts_the_broker": true }
        ]
    });
    s.exchanges.clear();
    s.queues.clear();
    s.consumers.clear();
    s.logs = serde_json::from_value(json["logs"].clone()).unwrap();
    s.groups = serde_json::from_value(json["groups"].clone()).unwrap();
    s
}

#[test]
fn a_trusting_group_applies_what_a_checking_group_dead_letters() {
    let (sim, facts) = common::run(untrusted_log());
    let balance = |g: u32, key: u32| {
        let g = brokerlab_core::GroupId::new(g);
        sim.group_tables(g).unwrap().aggregate(key).balance
    };
    assert_eq!((balance(0, 42), balance(0, 7)), (70, 50), "checked");
    assert_eq!((balance(1, 42), balance(1, 7)), (0, 0), "unchecked");
    let unauthorized: Vec<(u32, u64, u32)> = facts
        .iter()
        .filter_map(|f| match *f {
            Fact::RecordUnauthorizedEffect {
                group,
                msg,
                producer,
                ..
            } => Some((group.get(), msg.get(), producer.get())),
            _ => None,
        })
        .collect();
    assert_eq!(unauthorized, [(1, 2, 1), (1, 3, 1)]);
    let dead: Vec<(u32, u64, DeadLetterReason, u32)> = facts
        .iter()
        .filter_map(|f| match *f {
            Fact::RecordDeadLettered {
                group,
                msg,
                reason,
                attempts,
                ..
            } => Some((group.get(), msg.get(), reason, attempts)),
            _ => None,
        })
        .collect();
    let poison = DeadLetterReason::Poison(Poison::UnauthorizedTenant);
    assert_eq!(dead, [(0, 2, poison, 1), (0, 3, poison, 1)]);
    let c = sim.counters();
    assert_eq!((c.unauthorized_effects, c.publishes_denied), (2, 1));
    let g1 = brokerlab_core::GroupId::new(1);
    assert_eq!(sim.group_tables(g1).unwrap().unauthorized, 2);
    let told = |f: &Fact, lang| describe(&sim, f, lang);
    let first = facts
        .iter()
        .find(|f| matches!(f, Fact::RecordUnauthorizedEffect { .. }))
        .unwrap();
    assert!(
        told(first, Lang::En).contains(
            "trusts whatever its log holds, so it never checked that partner-api may ask for #2"
        ),
        "{}",
        told(first, Lang::En)
    );
    assert!(told(first, Lang::Es).contains("confía en todo lo que contiene su log"));
}

#[test]
fn a_groups_trust_round_trips_and_checking_is_its_default() {
    let s = untrusted_log();
    assert!(!s.groups[0].trusts_the_broker && s.groups[1].trusts_the_broker);
    let json = serde_json::to_string(&s).unwrap();
    assert_eq!(json.matches("trusts_the_broker").count(), 1, "{json}");
    let back: Scenario = serde_json::from_str(&json).unwrap();
    assert_eq!(back, s);
}
