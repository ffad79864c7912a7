//! Scenario decoding is strict and validation names the field at fault; nothing panics.

use brokerlab_core::{examples, Scenario, SCENARIO_VERSION};

#[test]
fn every_example_is_valid_and_round_trips() {
    for name in examples::names() {
        let s = examples::load(name).unwrap();
        assert_eq!(s.name, name);
        assert!(!s.description.is_empty(), "{name} explains itself");
        assert_eq!(Scenario::from_json(&s.to_json_pretty()).unwrap(), s);
    }
}

fn problem(mutate: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut v: serde_json::Value = serde_json::from_str(examples::json("burst").unwrap()).unwrap();
    mutate(&mut v);
    Scenario::from_json(&v.to_string()).unwrap_err().to_string()
}

type Mutation = Box<dyn FnOnce(&mut serde_json::Value)>;

#[test]
fn invalid_values_name_their_field() {
    use serde_json::json;
    let cases: Vec<(Mutation, &str)> = vec![
        (
            Box::new(|v| v["producers"][0]["arrivals"]["schedule"][0]["rate_per_s"] = json!(-1.0)),
            "producers[0].arrivals.schedule[0].rate_per_s",
        ),
        (
            Box::new(|v| v["producers"][0]["arrivals"]["schedule"][0]["rate_per_s"] = json!(1e300)),
            "rate_per_s",
        ),
        (
            // A huge number is quoted in exponent form, not as 301 digits.
            Box::new(|v| v["producers"][0]["arrivals"]["schedule"][0]["rate_per_s"] = json!(1e300)),
            "(got 1e300)",
        ),
        (
            Box::new(|v| v["producers"][0]["arrivals"]["schedule"][1]["from_s"] = json!(0.0)),
            "increasing order",
        ),
        (
            Box::new(|v| v["producers"][0]["arrivals"]["schedule"][0]["from_s"] = json!(5.0)),
            "must start at 0",
        ),
        (
            Box::new(|v| v["producers"] = json!([])),
            "at least one producer",
        ),
        (
            Box::new(|v| v["consumers"][0]["replicas"] = json!(0)),
            "consumers[0].replicas",
        ),
        (
            Box::new(|v| v["consumers"][0]["replicas"] = json!(100_000)),
            "consumers[0].replicas: must be between 1 and 256",
        ),
        (
            Box::new(|v| v["consumers"][0]["prefetch"] = json!(0)),
            "prefetch",
        ),
        (
            Box::new(|v| v["consumers"][0]["service"] = json!({"exponential": {"mean_s": 0.0}})),
            "mean_s",
        ),
        (
            Box::new(|v| v["queues"][0]["visibility_timeout_s"] = json!(0.0)),
            "visibility_timeout_s",
        ),
        (
            Box::new(|v| v["sample_every_s"] = json!(0.0)),
            "sample_every_s",
        ),
        (Box::new(|v| v["end_s"] = json!(-1.0)), "end_s"),
        (
            Box::new(
                |v| v["commands"] = json!([{"at_s": 1.0, "command": {"crash_consumer": {"consumer": 99, "point": "now"}}}]),
            ),
            "no consumer 99",
        ),
        (
            Box::new(|v| {
                v["producers"][0]["arrivals"]["schedule"][1]["rate_per_s"] = json!(900_000.0);
                v["mode"] = json!("messages");
            }),
            "the limit is 50000000",
        ),
        (Box::new(|v| v["name"] = json!("x".repeat(100))), "name"),
        (
            Box::new(|v| v["version"] = json!(SCENARIO_VERSION + 1)),
            "version",
        ),
        // A later version's file may lack a field this build needs: the version is what
        // is wrong, not the missing field (it said "missing field `seed`").
        (
            Box::new(|v| {
                v["version"] = json!(SCENARIO_VERSION + 1);
                v.as_object_mut().unwrap().remove("seed");
            }),
            "is not supported (this build reads versions 1 to",
        ),
        (
            Box::new(|v| {
                v["version"] = json!(0);
                v.as_object_mut().unwrap().remove("queues");
            }),
            "version: 0 is not supported",
        ),
        (
            Box::new(|v| v["consumers"][0]["ack"] = json!("sometimes")),
            "unknown variant",
        ),
        (
            Box::new(|v| v["consumers"][0]["colour"] = json!("red")),
            "unknown field",
        ),
    ];
    for (mutate, needle) in cases {
        let msg = problem(mutate);
        assert!(msg.contains(needle), "{msg:?} should mention {needle:?}");
    }
}

#[test]
fn hostile_input_is_refused_without_panicking() {
    for text in [
        "",
        "null",
        "[]",
        "{}",
        "\"x\"",
        "{\"version\":1}",
        &"[".repeat(10_000),
        &" ".repeat(2 << 20),
    ] {
        assert!(Scenario::from_json(text).is_err());
    }
}

#[test]
fn version_1_files_load_as_the_same_scenario() {
    // Every built-in example written back in the version-1 format (`faults` holding
    // `fault`s, interventions with `fault`) loads equal to the current file.
    for name in examples::names() {
        let current = examples::load(name).unwrap();
        let mut v: serde_json::Value = serde_json::from_str(examples::json(name).unwrap()).unwrap();
        v["version"] = serde_json::json!(1);
        if let Some(list) = v.as_object_mut().unwrap().remove("commands") {
            let mut list = list;
            for entry in list.as_array_mut().unwrap() {
                let command = entry.as_object_mut().unwrap().remove("command").unwrap();
                entry["fault"] = command;
            }
            v["faults"] = list;
        }
        let old = Scenario::from_json(&v.to_string()).unwrap();
        assert_eq!(old, current, "{name}");
    }
    // With a recorded command too.
    let v1 = r#"{ "version": 1, "seed": 1,
        "producers": [{ "name": "p", "arrivals": { "process": "constant",
            "schedule": [{ "from_s": 0, "rate_per_s": 1 }] }, "count": 3 }],
        "queues": [{ "name": "q", "visibility_timeout_s": 5 }],
        "consumers": [{ "name": "c", "service": { "fixed": { "seconds": 0.1 } }, "ack": "after_commit" }],
        "faults": [{ "at_s": 1, "fault": "crash_broker_never" }] }"#;
    let e = Scenario::from_json(v1).unwrap_err().to_string();
    assert!(
        e.contains("crash_broker_never"),
        "an unknown command is still refused: {e}"
    );
    let v1 = v1.replace(
        r#""faults": [{ "at_s": 1, "fault": "crash_broker_never" }]"#,
        r#""faults": [{ "at_s": 1, "fault": { "drop_next_ack": { "consumer": 0 } } }],
           "interventions": [{ "after_step": 2, "at_us": 1500000, "fault": "restart_broker" }]"#,
    );
    let s = Scenario::from_json(&v1).unwrap();
    assert_eq!(s.version, SCENARIO_VERSION);
    assert_eq!(s.commands.len(), 1);
    assert_eq!(
        s.interventions[0].command,
        brokerlab_core::Command::RestartBroker
    );
    // Saved again, it is a current file.
    let saved: serde_json::Value = serde_json::from_str(&s.to_json_pretty()).unwrap();
    assert_eq!(saved["version"], serde_json::json!(SCENARIO_VERSION));
    assert!(saved.get("faults").is_none() && saved["commands"][0].get("command").is_some());
}

/// crash-after-commit with its consumer C1 duplicated (what the page's editor shows, then
/// the same at an older version).
fn crash_after_commit_with_two_c1(version: u32) -> String {
    let mut v: serde_json::Value =
        serde_json::from_str(examples::json("crash-after-commit").unwrap()).unwrap();
    v["version"] = serde_json::json!(version);
    if version == 1 {
        // Version 1's scheduled list is `faults` of `fault`s.
        let mut commands = v.as_object_mut().unwrap().remove("commands").unwrap();
        for entry in commands.as_array_mut().unwrap() {
            let e = entry.as_object_mut().unwrap();
            let command = e.remove("command").unwrap();
            e.insert("fault".into(), command);
        }
        v["faults"] = commands;
    }
    let c = v["consumers"][0].clone();
    v["consumers"].as_array_mut().unwrap().push(c);
    v.to_string()
}

#[test]
fn two_consumers_with_one_name_are_refused() {
    let e = Scenario::from_json(&crash_after_commit_with_two_c1(SCENARIO_VERSION)).unwrap_err();
    assert_eq!(e.field, "consumers[1].name");
    assert_eq!(e.problem, r#""C1" is used twice"#);
}

/// Files of earlier versions could name two consumers alike: they still load, the later
/// one renamed, and the run tells them apart; saved again, they are current files.
#[test]
fn older_files_with_clashing_names_load_renamed() {
    for version in 1..SCENARIO_VERSION {
        let s = Scenario::from_json(&crash_after_commit_with_two_c1(version))
            .unwrap_or_else(|e| panic!("version {version}: {e}"));
        let names: Vec<&str> = s.consumers.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["C1", "C1 (2)"], "version {version}");
        let sim = brokerlab_core::Simulation::new(s.clone()).unwrap();
        let shown: Vec<String> = (sim.consumer_ids())
            .map(|c| sim.consumer(c).unwrap().name)
            .collect();
        assert_eq!(shown, ["C1", "C1 (2)"]);
        assert_eq!(Scenario::from_json(&s.to_json_pretty()).unwrap(), s);
    }
}

/// Ids are numbers in JSON, in facts and in commands alike (the wire form the page and
/// the runner read), not objects wrapping a number.
#[test]
fn facts_and_commands_carry_ids_as_bare_numbers_in_json() {
    use brokerlab_core::scenario::Command;
    use brokerlab_core::step::Fact;
    use brokerlab_core::step::{ConsumerId, MsgId, ProducerId, QueueId};
    let stored = Fact::Stored {
        producer: ProducerId::new(0),
        msg: MsgId::new(3),
        copy: 4,
        queue: QueueId::new(1),
    };
    assert_eq!(
        serde_json::to_value(stored).unwrap(),
        serde_json::json!({ "fact": "stored", "producer": 0, "msg": 3, "copy": 4, "queue": 1 })
    );
    let json = serde_json::json!({ "restart_consumer": { "consumer": 2 } });
    let command: Command = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(command.consumer(), Some(ConsumerId::new(2)));
    assert_eq!(serde_json::to_value(&command).unwrap(), json);
}

fn log_problem(mutate: impl FnOnce(&mut serde_json::Value)) -> Result<(), String> {
    let text = examples::json("log-commit-modes").unwrap();
    let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
    mutate(&mut v);
    Scenario::from_json(&v.to_string())
        .map(|_| ())
        .map_err(|e| e.to_string())
}

#[test]
fn a_group_with_no_member_is_refused_as_a_consumer_with_no_replica_is() {
    use serde_json::json;
    let e = log_problem(|v| v["groups"][0]["members"] = json!(0)).unwrap_err();
    assert!(
        e.contains("groups[0].members") && e.contains("must be between 1 and"),
        "{e}"
    );
}

#[test]
fn a_command_naming_a_member_the_group_does_not_have_then_is_refused() {
    use serde_json::json;
    let crash = |at_s: f64, member: u32| json!({"at_s": at_s, "command": {"crash_member": {"group": 0, "member": member, "point": "now"}}});
    let join = |at_s: f64| json!({"at_s": at_s, "command": {"add_member": {"group": 0}}});
    // Two members: member 99, or 2 with nobody joined, is not there.
    let e = log_problem(|v| v["commands"] = json!([crash(5.0, 99)])).unwrap_err();
    assert!(
        e.contains("commands[0].command.member")
            && e.contains("there is no member 99 (there are 2)"),
        "{e}"
    );
    let e = log_problem(|v| v["commands"] = json!([crash(5.0, 2)])).unwrap_err();
    assert!(e.contains("there is no member 2 (there are 2)"), "{e}");
    // A join before the crash makes member 2; a join after it (in time) does not.
    log_problem(|v| v["commands"] = json!([join(4.0), crash(5.0, 2)])).unwrap();
    log_problem(|v| v["commands"] = json!([crash(5.0, 2), join(4.0)])).unwrap();
    let e = log_problem(|v| v["commands"] = json!([join(6.0), crash(5.0, 2)])).unwrap_err();
    assert!(e.contains("commands[1].command.member"), "{e}");
    // At the same instant, the earlier in the list goes first.
    log_problem(|v| v["commands"] = json!([join(5.0), crash(5.0, 2)])).unwrap();
    assert!(log_problem(|v| v["commands"] = json!([crash(5.0, 2), join(5.0)])).is_err());
    // A command given to a run is checked against the members it has now.
    let mut sim =
        brokerlab_core::Simulation::new(examples::load("log-commit-modes").unwrap()).unwrap();
    let e = sim
        .check_command(&brokerlab_core::Command::CrashMember {
            group: brokerlab_core::GroupId::new(0),
            member: 2,
            point: brokerlab_core::MemberCrashPoint::Now,
            restart_after_s: None,
        })
        .unwrap_err();
    assert_eq!(e.field, "command.member");
    sim.command(brokerlab_core::Command::AddMember {
        group: brokerlab_core::GroupId::new(0),
    })
    .unwrap();
    sim.check_command(&brokerlab_core::Command::CrashMember {
        group: brokerlab_core::GroupId::new(0),
        member: 2,
        point: brokerlab_core::MemberCrashPoint::Now,
        restart_after_s: None,
    })
    .unwrap();
}

#[test]
fn a_document_that_is_not_an_object_is_refused_as_not_a_scenario() {
    // serde would read a list as the fields in order and complain about its second item
    // ("expected a string"), which tells the user nothing about what is wrong.
    for text in ["[1, 2, 3]", "\"mm1\"", "42", "null", "true"] {
        let e = brokerlab_core::Scenario::from_json(text).unwrap_err();
        assert_eq!(
            e.problem, "is not a scenario: a scenario is a JSON object, written between { and }",
            "{text}"
        );
        assert_eq!(
            e.problem_in(brokerlab_core::lang::Lang::Es),
            "no es un escenario: un escenario es un objeto JSON, escrito entre { y }"
        );
    }
}

/// `example` with `commands` as its schedule: Ok, or the refusal as text.
fn with_commands(example: &str, commands: serde_json::Value) -> Result<(), String> {
    let mut v: serde_json::Value = serde_json::from_str(examples::json(example).unwrap()).unwrap();
    v["commands"] = commands;
    Scenario::from_json(&v.to_string())
        .map(|_| ())
        .map_err(|e| e.to_string())
}

#[test]
fn a_producer_fault_at_a_point_its_handoff_lacks_is_refused() {
    use serde_json::json;
    let crash = |point: &str| {
        json!([{"at_s": 3.0, "unannounced": true,
            "command": {"crash_producer": {"producer": 0, "point": point, "restart_after_s": 1}}}])
    };
    // mm1 publishes directly: an interview's hidden relay crash at 3 s could never strike.
    // Before, it was accepted ("One fault is hidden"), nothing happened, and Reveal said
    // it was at 3.0 s.
    let e = with_commands("mm1", crash("after_publish_before_mark")).unwrap_err();
    assert!(
        e.contains("commands[0].command.point")
            && e.contains("this producer has no outbox: there is no relay to crash"),
        "{e}"
    );
    let e = with_commands("mm1", crash("after_commit_before_publish")).unwrap_err();
    assert!(
        e.contains("commands[0].command.point")
            && e.contains("this producer does not commit then publish"),
        "{e}"
    );
    // An outbox producer's commit holds the row, which its relay publishes later: no
    // crash between a commit and a publish of its own either.
    assert!(with_commands("outbox-relay-crash", crash("after_commit_before_publish")).is_err());
    // Each point on the producer that has it, and a crash now on any, are taken.
    with_commands("outbox-relay-crash", crash("after_publish_before_mark")).unwrap();
    with_commands("dual-write-crash", crash("after_commit_before_publish")).unwrap();
    with_commands("mm1", crash("now")).unwrap();
}

#[test]
fn a_lost_confirm_for_a_producer_that_waits_for_none_is_refused() {
    use brokerlab_core::{Command, ProducerId, Simulation};
    use serde_json::json;
    let drop = json!([{"at_s": 1.0, "command": {"drop_next_confirm": {"producer": 0}}}]);
    // crash-after-commit's producer publishes without confirms, and no command or setting
    // switches them on: the confirm it would lose never exists. Before, the page's "Drop
    // next confirm" was taken and said "The next confirm to orders will be lost", and
    // nothing ever came of it.
    let e = with_commands("crash-after-commit", drop.clone()).unwrap_err();
    assert!(
        e.contains("commands[0].command.producer")
            && e.contains(
                "this producer does not wait for publisher confirms: there is no confirm to lose"
            ),
        "{e}"
    );
    let sim = Simulation::new(examples::load("crash-after-commit").unwrap()).unwrap();
    let e = sim
        .check_command(&Command::DropNextConfirm {
            producer: ProducerId::new(0),
        })
        .unwrap_err();
    assert_eq!(e.field, "command.producer");
    // A producer with confirms, and an outbox producer (its relay always waits), take it.
    with_commands("lost-confirm", drop.clone()).unwrap();
    with_commands("outbox-relay-crash", drop).unwrap();
}

#[test]
fn a_command_recorded_before_it_was_refused_still_opens_and_replays() {
    // The page offered "Drop next confirm" on every producer until 2026-12-04, so links
    // and files hold it, recorded among their interventions, for producers that wait for
    // no confirm. They keep opening, and replay step for step as they did; only a new
    // command (given now, or scheduled) is refused.
    use brokerlab_core::{Command, ProducerId, Simulation};
    let mut given = Simulation::new(examples::load("crash-after-commit").unwrap()).unwrap();
    given.step();
    let mut recorded = given.scenario().clone();
    recorded.interventions = vec![brokerlab_core::Intervention {
        after_step: 1,
        at_us: given.now_us(),
        command: Command::DropNextConfirm {
            producer: ProducerId::new(0),
        },
    }];
    let text = serde_json::to_string(&recorded).unwrap();
    let opened = Scenario::from_json(&text).expect("a recorded command still opens");
    let mut replay = Simulation::new(opened).unwrap();
    let mut plain = Simulation::new(examples::load("crash-after-commit").unwrap()).unwrap();
    replay.run();
    plain.run();
    assert_eq!(
        replay.steps(),
        plain.steps() + 1,
        "its one step, and the same run after"
    );
    assert_eq!(replay.counters().acked, plain.counters().acked);
    // That step says it had nothing to act on, rather than arming a loss that never comes.
    let mut told = Simulation::new(Scenario::from_json(&text).unwrap()).unwrap();
    let mut moot = false;
    while let Some(step) = told.step() {
        moot |= step.facts.iter().any(|f| {
            matches!(
                f,
                brokerlab_core::Fact::CommandMoot {
                    moot: brokerlab_core::step::Moot::NoConfirmToLose { .. },
                    ..
                }
            )
        });
        assert!(!step
            .facts
            .iter()
            .any(|f| matches!(f, brokerlab_core::Fact::ConfirmDropArmed { .. })));
    }
    assert!(moot);
}

#[test]
fn a_queue_command_on_what_the_queue_lacks_is_refused() {
    use serde_json::json;
    let redrive =
        json!([{"at_s": 60.0, "command": {"redrive": {"queue": "payments", "rate_per_s": 5}}}]);
    let mut v: serde_json::Value =
        serde_json::from_str(examples::json("retries-dlq-redrive").unwrap()).unwrap();
    v["queues"][0]["dead_letter"] = json!(false);
    v["commands"] = redrive.clone();
    let e = Scenario::from_json(&v.to_string()).unwrap_err().to_string();
    assert!(
        e.contains("commands[0].command.queue")
            && e.contains(
                "queue \"payments\" has no dead-letter queue: there is nothing to redrive"
            ),
        "{e}"
    );
    // With a dead-letter queue, a redrive is taken even if it may find it empty then
    // (that is said when it comes: `moot_commands.rs`).
    with_commands("retries-dlq-redrive", redrive).unwrap();
    // An outage of the dependency, or a fix, of a queue without consumers acts on nobody.
    for command in [
        json!({"dependency_outage": {"queue": "idle", "for_s": 5}}),
        json!({"deploy_fix": {"queue": "idle", "poison": "malformed_payload"}}),
    ] {
        let mut v: serde_json::Value =
            serde_json::from_str(examples::json("mm1").unwrap()).unwrap();
        v["queues"]
            .as_array_mut()
            .unwrap()
            .push(json!({"name": "idle", "visibility_timeout_s": 30}));
        v["commands"] = json!([{"at_s": 1.0, "command": command.clone()}]);
        let e = Scenario::from_json(&v.to_string()).unwrap_err().to_string();
        assert!(
            e.contains("commands[0].command.queue")
                && e.contains("queue \"idle\" has no consumers"),
            "{command}: {e}"
        );
        v["commands"][0]["command"] =
            serde_json::from_str(&command.to_string().replace("idle", "jobs")).unwrap();
        Scenario::from_json(&v.to_string()).unwrap();
    }
}

#[test]
fn a_command_on_a_dependency_nobody_calls_is_refused() {
    use serde_json::json;
    let slow = json!([{"at_s": 1.0, "command": {"slow_dependency": {"dependency": "db", "factor": 5, "for_s": 3}}}]);
    with_commands("dep-admission", slow.clone()).unwrap();
    let mut v: serde_json::Value =
        serde_json::from_str(examples::json("dep-admission").unwrap()).unwrap();
    v["consumers"][0].as_object_mut().unwrap().remove("calls");
    v["commands"] = slow;
    let e = Scenario::from_json(&v.to_string()).unwrap_err().to_string();
    assert!(
        e.contains("commands[0].command.dependency")
            && e.contains("no consumer calls dependency \"db\""),
        "{e}"
    );
}

/// The refusal of `burst` changed by `mutate`: (field, problem).
fn refusal(mutate: impl FnOnce(&mut serde_json::Value)) -> (String, String) {
    let mut v: serde_json::Value = serde_json::from_str(examples::json("burst").unwrap()).unwrap();
    mutate(&mut v);
    let e = Scenario::from_json(&serde_json::to_string_pretty(&v).unwrap()).unwrap_err();
    (e.field, e.problem)
}

#[test]
fn a_value_of_the_wrong_type_is_refused_for_its_field() {
    use serde_json::json;
    let cases: Vec<(Mutation, &str, &str)> = vec![
        (
            Box::new(|v| v["seed"] = json!(null)),
            "seed",
            "invalid type: null, expected u64",
        ),
        (
            Box::new(|v| v["seed"] = json!(1.5)),
            "seed",
            "invalid type: floating point `1.5`, expected u64",
        ),
        (
            Box::new(|v| v["consumers"][0]["prefetch"] = json!("two")),
            "consumers[0].prefetch",
            "invalid type: string \"two\"",
        ),
        (
            Box::new(|v| {
                v["producers"][0]["arrivals"]["schedule"][1]["rate_per_s"] = json!("fast")
            }),
            "producers[0].arrivals.schedule[1].rate_per_s",
            "expected f64",
        ),
        (
            Box::new(|v| {
                let second = json!({"name": "b", "visibility_timeout_s": 30, "max_length": true});
                v["queues"].as_array_mut().unwrap().push(second);
            }),
            "queues[1].max_length",
            "invalid type: boolean `true`",
        ),
        (
            Box::new(|v| {
                v["commands"] = json!([
                    {"at_s": 1.0, "command": {"crash_consumer": {"consumer": 0, "point": "now"}}},
                    {"at_s": 2.0, "command": {"crash_consumer": {"consumer": null, "point": "now"}}}
                ])
            }),
            "commands[1].command.crash_consumer.consumer",
            "invalid type: null",
        ),
        // An unknown field or variant is named where it is written.
        (
            Box::new(|v| v["consumers"][0]["colour"] = json!("red")),
            "consumers[0].colour",
            "unknown field `colour`",
        ),
        (
            Box::new(|v| v["consumers"][0]["ack"] = json!("sometimes")),
            "consumers[0].ack",
            "unknown variant `sometimes`",
        ),
        // A missing field: the object that lacks it.
        (
            Box::new(|v| {
                v["queues"][0].as_object_mut().unwrap().remove("name");
            }),
            "queues[0]",
            "missing field `name`",
        ),
        // The scenario itself: as before.
        (
            Box::new(|v| {
                v.as_object_mut().unwrap().remove("producers");
            }),
            "scenario",
            "is not valid scenario JSON: missing field `producers`",
        ),
    ];
    for (mutate, field, words) in cases {
        let (f, problem) = refusal(mutate);
        assert_eq!(f, field, "{problem}");
        assert!(
            problem.contains(words),
            "{field}: {problem:?} should say {words:?}"
        );
    }
}

#[test]
fn a_version_1_file_s_wrong_value_is_named_as_the_file_writes_it() {
    let v1 = r#"{ "version": 1, "seed": 1,
        "producers": [{ "name": "p", "arrivals": { "process": "constant",
            "schedule": [{ "from_s": 0, "rate_per_s": 1 }] }, "count": 3 }],
        "queues": [{ "name": "q", "visibility_timeout_s": 5 }],
        "consumers": [{ "name": "c", "service": { "fixed": { "seconds": 0.1 } }, "ack": "after_commit" }],
        "faults": [{ "at_s": 1, "fault": { "drop_next_ack": { "consumer": "zero" } } }] }"#;
    let e = Scenario::from_json(v1).unwrap_err();
    assert_eq!(e.field, "faults[0].fault.drop_next_ack.consumer", "{e}");
    let v1 = v1
        .replace("\"zero\"", "0")
        .replace("\"seed\": 1", "\"seed\": null");
    assert_eq!(Scenario::from_json(&v1).unwrap_err().field, "seed");
}

/// Names are plain text on one line: a control character or a bidirectional override
/// (which would reverse the text after it on a card, in the picker, in the narration)
/// is refused where it is written. A description may break lines.
#[test]
fn names_refuse_invisible_controls_and_descriptions_keep_their_line_breaks() {
    let refused = |edit: &dyn Fn(&mut Scenario)| {
        let mut s = examples::load("burst").unwrap();
        edit(&mut s);
        s.validate().err().map(|e| e.to_string())
    };
    assert_eq!(
        refused(&|s| s.producers[0].name = "pay\u{202E}yap".into()),
        Some("producers[0].name: contains an invisible control character (U+202E)".into())
    );
    assert_eq!(
        refused(&|s| s.queues[0].name = "orders\0".into()),
        Some("queues[0].name: contains an invisible control character (U+0000)".into())
    );
    assert!(refused(&|s| s.name = "two\nlines".into()).is_some());
    assert!(refused(&|s| s.producers[0].routing_keys = vec!["a\u{2066}b".into()]).is_some());
    assert_eq!(
        refused(&|s| s.description = "One line.\nAnother.\tTabbed.".into()),
        None
    );
    assert_eq!(refused(&|s| s.name = "名前 🚀 ñandú".into()), None);
}

/// A rate set at an instant keeps what the scenario plans after it: the burst's return
/// to 1,000/s at 60 s and its stop at 180 s still happen, so the producer still stops
/// (a steady rate alone "never stops" and was refused).
#[test]
fn a_rate_change_at_an_instant_keeps_the_planned_stop() {
    use brokerlab_core::scenario::steady_from;
    use brokerlab_core::{ArrivalProcess, Command, RateSegment, ScheduledCommand};
    let burst = examples::load("burst").unwrap();
    let pairs = |schedule: &[RateSegment]| -> Vec<(f64, f64)> {
        schedule.iter().map(|s| (s.from_s, s.rate_per_s)).collect()
    };
    let (process, planned) = burst.planned_arrivals(0, 30.0).unwrap();
    assert_eq!(process, ArrivalProcess::Poisson);
    assert_eq!(
        pairs(&planned),
        [(0.0, 3_000.0), (60.0, 1_000.0), (180.0, 0.0)]
    );
    assert_eq!(
        pairs(&steady_from(&planned, 30.0, 500.0)),
        [(0.0, 500.0), (30.0, 1_000.0), (150.0, 0.0)]
    );
    assert_eq!(
        pairs(&steady_from(&planned, 100.0, 6_000.0)),
        [(0.0, 6_000.0), (80.0, 0.0)]
    );
    // Past the stop, nothing is left to keep.
    assert_eq!(pairs(&steady_from(&planned, 200.0, 5.0)), [(0.0, 5.0)]);
    assert_eq!(burst.planned_arrivals(1, 0.0), None, "no second producer");

    let mut scheduled = burst.clone();
    for at_s in [30.0, 100.0] {
        let command = burst.rate_change_at(0, at_s, 6_000.0).unwrap();
        scheduled.commands.push(ScheduledCommand {
            at_s,
            command,
            unannounced: true,
        });
        scheduled
            .validate()
            .unwrap_or_else(|e| panic!("at {at_s} s: {e}"));
        scheduled.commands.clear();
    }
    // A change scheduled earlier is part of the plan (its process too); a later one is not.
    scheduled.commands.push(ScheduledCommand {
        at_s: 20.0,
        command: Command::SetArrivals {
            producer: brokerlab_core::ProducerId::new(0),
            process: ArrivalProcess::Constant,
            schedule: steady_from(&burst.producers[0].arrivals.schedule, 20.0, 2_000.0),
        },
        unannounced: false,
    });
    scheduled.commands.push(ScheduledCommand {
        at_s: 150.0,
        command: burst.rate_change_at(0, 150.0, 7.0).unwrap(),
        unannounced: false,
    });
    let (process, planned) = scheduled.planned_arrivals(0, 40.0).unwrap();
    assert_eq!(process, ArrivalProcess::Constant);
    assert_eq!(
        pairs(&planned),
        [
            (0.0, 3_000.0),
            (20.0, 2_000.0),
            (60.0, 1_000.0),
            (180.0, 0.0)
        ]
    );
}
