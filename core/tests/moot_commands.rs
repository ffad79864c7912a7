//! A command that finds nothing to act on is said, not passed over: a scheduled restart
//! of a consumer that came back by itself, a crash of a component already down, a poison
//! message from a producer that is down. Each leaves
//! the run as it was and tells why (`Fact::CommandMoot`).

use brokerlab_core::lang::Lang;
use brokerlab_core::step::Moot;
use brokerlab_core::*;

const C1: ConsumerId = ConsumerId::new(0);
const ORDERS: ProducerId = ProducerId::new(0);

/// `name`'s example with `commands` scheduled as well (at their seconds).
fn with_commands(name: &str, commands: &[(f64, Command)]) -> Scenario {
    let mut scenario = examples::load(name).expect("built in");
    for (at_s, command) in commands {
        scenario.commands.push(ScheduledCommand {
            at_s: *at_s,
            command: command.clone(),
            unannounced: false,
        });
    }
    scenario
}

/// Every fact of the whole run, with its time.
fn run(scenario: Scenario) -> Vec<(Micros, Fact)> {
    let mut sim = Simulation::new(scenario).expect("valid");
    let mut facts = Vec::new();
    while let Some(step) = sim.step() {
        facts.extend(step.facts.iter().map(|f| (step.time_us, *f)));
    }
    facts
}

fn moots(facts: &[(Micros, Fact)]) -> Vec<(Micros, Moot)> {
    facts
        .iter()
        .filter_map(|&(t, f)| match f {
            Fact::CommandMoot { moot, .. } => Some((t, moot)),
            _ => None,
        })
        .collect()
}

fn count(facts: &[(Micros, Fact)], pred: impl Fn(&Fact) -> bool) -> usize {
    facts.iter().filter(|(_, f)| pred(f)).count()
}

#[test]
fn a_scheduled_restart_of_a_consumer_already_back_is_said_and_changes_nothing() {
    // C1 crashes after its commit at 1.5 s and restarts by itself at 2.5 s; the schedule
    // restarts it again at 3 s.
    let plain = run(examples::load("crash-after-commit").expect("built in"));
    let restart = Command::RestartConsumer { consumer: C1 };
    let facts = run(with_commands("crash-after-commit", &[(3.0, restart)]));
    assert_eq!(
        moots(&facts),
        [(3_000_000, Moot::RestartConsumerUp { consumer: C1 })]
    );
    let restarted = |f: &Fact| matches!(f, Fact::ConsumerRestarted { .. });
    assert_eq!(count(&facts, restarted), 1, "restarted once, by itself");
    let others: Vec<_> = facts
        .iter()
        .filter(|(_, f)| !matches!(f, Fact::CommandMoot { .. }))
        .copied()
        .collect();
    assert_eq!(others, plain, "the moot restart changed the run");
    let sim = Simulation::new(examples::load("crash-after-commit").expect("built in"));
    let moot = Fact::CommandMoot {
        moot: Moot::RestartConsumerUp { consumer: C1 },
        trigger: Trigger::Scheduled,
    };
    let narrated = narration::describe(&sim.expect("valid"), &moot, Lang::En);
    assert!(narrated.contains("C1 is already up"), "{narrated}");
}

#[test]
fn a_crash_now_of_a_consumer_already_down_is_said() {
    // Down from 1.5 s (crash after commit) to 2.5 s.
    let crash = Command::CrashConsumer {
        consumer: C1,
        point: CrashPoint::Now,
        restart_after_s: None,
    };
    let facts = run(with_commands("crash-after-commit", &[(2.0, crash)]));
    assert_eq!(
        moots(&facts),
        [(2_000_000, Moot::CrashConsumerDown { consumer: C1 })]
    );
    let crashed = |f: &Fact| matches!(f, Fact::ConsumerCrashed { .. });
    assert_eq!(count(&facts, crashed), 1, "only the crash after the commit");
}

#[test]
fn the_broker_restarted_while_up_or_crashed_while_down_is_said() {
    let facts = run(with_commands(
        "crash-after-commit",
        &[
            (0.2, Command::RestartBroker),
            (
                2.0,
                Command::CrashBroker {
                    restart_after_s: Some(1.0),
                },
            ),
            (
                2.5,
                Command::CrashBroker {
                    restart_after_s: None,
                },
            ),
        ],
    ));
    assert_eq!(
        moots(&facts),
        [
            (200_000, Moot::RestartBrokerUp),
            (2_500_000, Moot::CrashBrokerDown)
        ]
    );
    let restarted = |f: &Fact| matches!(f, Fact::BrokerRestarted { .. });
    assert_eq!(
        count(&facts, restarted),
        1,
        "the restart 1 s after the crash"
    );
}

#[test]
fn a_poison_message_from_a_producer_that_is_down_is_not_sent_and_that_is_said() {
    let facts = run(with_commands(
        "crash-after-commit",
        &[
            (
                0.1,
                Command::CrashProducer {
                    producer: ORDERS,
                    point: ProducerCrashPoint::Now,
                    restart_after_s: None,
                },
            ),
            (
                0.2,
                Command::InjectPoison {
                    producer: ORDERS,
                    poison: Poison::MalformedPayload,
                },
            ),
            (0.3, Command::RestartProducer { producer: ORDERS }),
            (0.4, Command::RestartProducer { producer: ORDERS }),
        ],
    ));
    assert_eq!(
        moots(&facts),
        [
            (200_000, Moot::PoisonProducerDown { producer: ORDERS }),
            (400_000, Moot::RestartProducerUp { producer: ORDERS })
        ]
    );
    let created = |f: &Fact| matches!(f, Fact::Created { .. });
    assert_eq!(
        count(&facts, created),
        1,
        "the example's one message, no poison"
    );
}

#[test]
fn a_crash_now_of_a_member_already_down_is_said() {
    let crash = |at_s| {
        (
            at_s,
            Command::CrashMember {
                group: GroupId::new(0),
                member: 0,
                point: MemberCrashPoint::Now,
                restart_after_s: Some(2.0),
            },
        )
    };
    let mut scenario = with_commands("log-consumer-groups", &[crash(1.0), crash(2.0)]);
    scenario.end_s = Some(4.0);
    let facts = run(scenario);
    let moot = Moot::CrashMemberDown {
        group: GroupId::new(0),
        member: 0,
    };
    assert_eq!(moots(&facts), [(2_000_000, moot)]);
    let crashed = |f: &Fact| matches!(f, Fact::MemberCrashed { .. });
    assert_eq!(count(&facts, crashed), 1);
}

#[test]
fn a_hidden_command_that_finds_nothing_stays_quiet() {
    // An interview's unannounced fault that found its target already down would give the
    // fault away if told: the page leaves it out as it does an unannounced fault armed.
    let hidden = Fact::CommandMoot {
        moot: Moot::CrashConsumerDown { consumer: C1 },
        trigger: Trigger::Unannounced,
    };
    assert!(hidden.arms_unannounced());
    let told = Fact::CommandMoot {
        moot: Moot::CrashConsumerDown { consumer: C1 },
        trigger: Trigger::Scheduled,
    };
    assert!(!told.arms_unannounced());
}

#[test]
fn a_redrive_of_an_empty_dead_letter_queue_is_said() {
    // crash-after-commit's queue never dead-letters anything.
    let redrive = Command::Redrive {
        queue: "orders".into(),
        rate_per_s: 5.0,
    };
    let facts = run(with_commands("crash-after-commit", &[(3.0, redrive)]));
    assert_eq!(
        moots(&facts),
        [(
            3_000_000,
            Moot::RedriveEmpty {
                queue: QueueId::new(0)
            }
        )]
    );
    // The example's own redrive at 60 s finds dead letters: it moves them, unsaid as moot.
    let facts = run(examples::load("retries-dlq-redrive").expect("built in"));
    assert!(moots(&facts).is_empty());
    assert!(count(&facts, |f| matches!(f, Fact::Redriven { .. })) > 0);
}

#[test]
fn a_log_asked_for_no_more_partitions_than_it_has_keeps_them_and_says_so() {
    let log = |partitions| Command::SetPartitions {
        log: "account-events".into(),
        partitions,
    };
    let mut scenario = with_commands("log-consumer-groups", &[(1.0, log(2)), (1.5, log(6))]);
    let has = scenario.logs[0].partitions;
    assert!(has > 2 && has < 6, "the example's log has {has} partitions");
    scenario.end_s = Some(3.0);
    let mut sim = Simulation::new(scenario).expect("valid");
    let mut facts = Vec::new();
    while let Some(step) = sim.step() {
        facts.extend(step.facts.iter().map(|f| (step.time_us, *f)));
        if step.time_us == 1_000_000 {
            assert_eq!(sim.log_partition_count(0), has, "a log never shrinks");
        }
    }
    let moot = Moot::PartitionsNotGrown {
        log: 0,
        asked: 2,
        has,
    };
    assert_eq!(moots(&facts), [(1_000_000, moot)]);
    assert_eq!(sim.log_partition_count(0), 6, "growing still works");
}

/// Every command a user can give is told in the step it makes: what it did, or why it
/// did nothing. (A redrive once made a silent step, and the page's narration line fell
/// back to its "press Play" invitation.)
#[test]
fn every_kind_of_command_is_told_in_the_step_it_makes() {
    let cases: &[(&str, &str)] = &[
        (
            "retries-dlq-redrive",
            r#"{"crash_consumer": {"consumer": 0, "point": "now", "restart_after_s": 2}}"#,
        ),
        (
            "retries-dlq-redrive",
            r#"{"restart_consumer": {"consumer": 0}}"#,
        ),
        (
            "retries-dlq-redrive",
            r#"{"drop_next_ack": {"consumer": 0}}"#,
        ),
        (
            "retries-dlq-redrive",
            r#"{"slow_consumer": {"consumer": 0, "factor": 3}}"#,
        ),
        (
            "retries-dlq-redrive",
            r#"{"crash_producer": {"producer": 0, "point": "now"}}"#,
        ),
        (
            "retries-dlq-redrive",
            r#"{"restart_producer": {"producer": 0}}"#,
        ),
        (
            "retries-dlq-redrive",
            r#"{"inject_poison": {"producer": 0, "poison": "malformed_payload"}}"#,
        ),
        (
            "retries-dlq-redrive",
            r#"{"crash_broker": {"restart_after_s": 3}}"#,
        ),
        ("retries-dlq-redrive", r#"{"restart_broker": null}"#),
        (
            "retries-dlq-redrive",
            r#"{"redrive": {"queue": "payments", "rate_per_s": 10}}"#,
        ),
        (
            "retries-dlq-redrive",
            r#"{"dependency_outage": {"queue": "payments", "for_s": 5}}"#,
        ),
        (
            "retries-dlq-redrive",
            r#"{"set_consumer_count": {"queue": "payments", "count": 3}}"#,
        ),
        (
            "retries-dlq-redrive",
            r#"{"set_prefetch": {"queue": "payments", "prefetch": 4}}"#,
        ),
        (
            "retries-dlq-redrive",
            r#"{"set_visibility_timeout": {"queue": "payments", "seconds": 5}}"#,
        ),
        (
            "retries-dlq-redrive",
            r#"{"deploy_fix": {"queue": "payments", "poison": "malformed_payload"}}"#,
        ),
        ("lost-confirm", r#"{"drop_next_confirm": {"producer": 0}}"#),
        (
            "log-consumer-groups",
            r#"{"crash_member": {"group": 0, "member": 0, "point": "now"}}"#,
        ),
        ("log-consumer-groups", r#"{"add_member": {"group": 0}}"#),
        (
            "log-consumer-groups",
            r#"{"seek_to_earliest": {"group": 1}}"#,
        ),
        (
            "log-consumer-groups",
            r#"{"seek_to": {"group": 1, "offset": 3}}"#,
        ),
        (
            "log-consumer-groups",
            r#"{"set_partitions": {"log": "account-events", "partitions": 8}}"#,
        ),
        (
            "dep-breaker",
            r#"{"slow_dependency": {"dependency": "db", "factor": 4, "for_s": 5}}"#,
        ),
        (
            "dep-breaker",
            r#"{"set_dependency_timeout": {"dependency": "db", "timeout_s": 2}}"#,
        ),
    ];
    for (name, json) in cases {
        let command: Command = serde_json::from_str(json).unwrap_or_else(|e| panic!("{json}: {e}"));
        let mut sim = Simulation::new(examples::load(name).expect("built in")).expect("valid");
        sim.run_until(40_000_000);
        let step = sim
            .command(command)
            .unwrap_or_else(|e| panic!("{json}: {e}"));
        assert!(!step.facts.is_empty(), "{name}: {json} made a silent step");
        for fact in sim.last_facts() {
            assert!(
                !narration::describe(&sim, fact, Lang::En).is_empty(),
                "{json}: {fact:?}"
            );
        }
    }
}

/// crash-after-commit with its consumer acking on delivery, and `commands` added.
fn acking_on_delivery(commands: &[(f64, Command)]) -> Scenario {
    let mut s = with_commands("crash-after-commit", commands);
    s.consumers[0].ack = AckMode::OnDelivery;
    s
}

#[test]
fn a_crash_between_commit_and_ack_of_a_consumer_acking_on_delivery_is_said_to_have_no_moment() {
    // Its ack comes before the work: the crash was announced as armed and never struck.
    let facts = run(acking_on_delivery(&[]));
    assert_eq!(
        moots(&facts),
        [(0, Moot::NoAckAfterCommit { consumer: C1 })]
    );
    assert_eq!(count(&facts, |f| matches!(f, Fact::CrashArmed { .. })), 0);
    assert_eq!(
        count(&facts, |f| matches!(f, Fact::ConsumerCrashed { .. })),
        0
    );
    let sim = Simulation::new(acking_on_delivery(&[])).expect("valid");
    let moot = Fact::CommandMoot {
        moot: Moot::NoAckAfterCommit { consumer: C1 },
        trigger: Trigger::Scheduled,
    };
    let told = narration::describe(&sim, &moot, Lang::En);
    assert!(
        told.contains("C1 acks on delivery, before its work"),
        "{told}"
    );
    assert!(narration::describe(&sim, &moot, Lang::Es).contains("confirma al recibir"));
}

#[test]
fn the_loss_of_an_ack_that_never_travels_is_said_to_have_nothing_to_act_on() {
    let drop = Command::DropNextAck { consumer: C1 };
    let facts = run(acking_on_delivery(&[(0.0, drop)]));
    let found = moots(&facts);
    assert!(
        found.contains(&(0, Moot::NoAckToLose { consumer: C1 })),
        "{found:?}"
    );
    assert_eq!(count(&facts, |f| matches!(f, Fact::AckDropArmed { .. })), 0);
    assert_eq!(count(&facts, |f| matches!(f, Fact::AckLost { .. })), 0);
}

#[test]
fn a_one_shot_fault_armed_twice_strikes_once_and_the_second_is_said_to_add_nothing() {
    // Two losses of the next confirm: one confirm is lost, and the second says so.
    let confirm = Command::DropNextConfirm { producer: ORDERS };
    let facts = run(with_commands("lost-confirm", &[(0.0, confirm)]));
    assert_eq!(
        moots(&facts),
        [(0, Moot::ConfirmDropAlreadyArmed { producer: ORDERS })]
    );
    assert_eq!(
        count(&facts, |f| matches!(f, Fact::ConfirmDropArmed { .. })),
        1
    );
    // Two losses of the next ack.
    let ack = Command::DropNextAck { consumer: C1 };
    let facts = run(with_commands(
        "crash-after-commit",
        &[(0.0, ack.clone()), (0.0, ack)],
    ));
    assert_eq!(
        moots(&facts),
        [(0, Moot::AckDropAlreadyArmed { consumer: C1 })]
    );
    // A second crash while one is armed: the first strikes, once.
    let crash = Command::CrashConsumer {
        consumer: C1,
        point: CrashPoint::AfterReceive,
        restart_after_s: Some(1.0),
    };
    let facts = run(with_commands("crash-after-commit", &[(0.0, crash)]));
    let armed = CrashPoint::AfterCommitBeforeAck;
    assert_eq!(
        moots(&facts),
        [(
            0,
            Moot::CrashAlreadyArmed {
                consumer: C1,
                armed
            }
        )]
    );
    assert_eq!(
        count(&facts, |f| matches!(f, Fact::ConsumerCrashed { .. })),
        1
    );
    let sim = Simulation::new(examples::load("crash-after-commit").expect("built in"));
    let moot = Fact::CommandMoot {
        moot: Moot::CrashAlreadyArmed {
            consumer: C1,
            armed,
        },
        trigger: Trigger::Scheduled,
    };
    let told = narration::describe(&sim.expect("valid"), &moot, Lang::En);
    assert!(
        told.contains(
            "A crash of C1 is already armed, to strike right after its next commit, before the ack"
        ),
        "{told}"
    );
}
