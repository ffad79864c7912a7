//! Every scenario ends, in bounded time and memory (issue #9): the work estimate refuses
//! in one line what would exceed the budget, and a run that still reaches a limit stops
//! cleanly with `end_reason` saying which, keeping everything computed so far.

mod common;

use brokerlab_core::scenario::limits;
use brokerlab_core::{
    examples, invariants, secs_to_us, Budget, Command, ConsumerId, EndReason, GroupId, Report,
    RunMode, Scenario, Simulation,
};
use serde_json::{json, Value};

fn repro(name: &str) -> String {
    let path = format!("{}/tests/repro/limits/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn refusal(text: &str) -> String {
    let e = Scenario::from_json(text).expect_err("refused").to_string();
    assert_eq!(e.lines().count(), 1, "one line: {e:?}");
    e
}

fn value(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

/// Steps to the end, checking the accounting invariant after every step; the number of
/// steps can never pass the budget's.
fn run_checked(mut sim: Simulation) -> Simulation {
    let max = sim.budget().steps_max;
    let mut taken = 0u64;
    while let Some(step) = sim.step() {
        let index = step.index;
        invariants::check(&sim).unwrap_or_else(|e| panic!("step {index}: {e}"));
        taken += 1;
        assert!(taken <= max, "the run went past its step budget");
    }
    sim
}

fn small(steps_max: u64) -> Budget {
    Budget {
        steps_max,
        ..Budget::default()
    }
}

// ----- the reproductions ------------------------------------------------------------

#[test]
fn replica_count_overflow_is_refused_not_a_panic() {
    let e = refusal(&repro("replica-count-overflow.json"));
    assert!(e.contains("replicas"), "{e}");
}

#[test]
fn service_time_overflow_runs_to_a_clean_end() {
    // 60 messages of ten years each, batched and slowed a thousand times: the finish
    // time is past what u64 microseconds hold, so it saturates instead of wrapping, and
    // the run stops at the ten-year time limit rather than stepping beyond it.
    let s = Scenario::from_json(&repro("service-time-overflow.json")).unwrap();
    let sim = run_checked(Simulation::new(s).unwrap());
    assert_eq!(sim.end_reason(), Some(EndReason::TimeLimit));
    assert!(sim.now_us() <= secs_to_us(limits::TIME_S_MAX));
    assert!(sim.steps() < 1_000, "{} steps", sim.steps());
    assert_eq!(sim.counters().published, 60);
}

#[test]
fn a_run_without_an_end_time_stops_at_ten_years_in_either_mode() {
    // A count no one could wait for, at 0.9 messages a second: computed as flows, it
    // would have reported an end some 35 million years on.
    let mut s = common::example("mm1");
    s.producers[0].count = Some(1_000_000_000_000_000);
    s.end_s = None;
    s.mode = RunMode::Aggregated;
    let run = brokerlab_core::aggregate::run(&s).expect("runs");
    assert_eq!(run.end_reason, EndReason::TimeLimit);
    assert_eq!(run.end_s, limits::TIME_S_MAX);
    assert!(run.end_reason.is_budget());
}

#[test]
fn fanout_amplification_is_refused_by_the_copy_estimate() {
    // A million messages × 64 subscriptions = 64 million copies: past the copy budget
    // message by message; `auto` (the default) runs it aggregated instead.
    let mut v = value(&repro("fanout-amplification.json"));
    v["producers"][0]["count"] = json!(1_000_000);
    v["mode"] = json!("messages");
    let e = refusal(&v.to_string());
    assert!(e.contains("64000000 message copies"), "{e}");
    assert!(e.contains(&limits::COPIES_MAX.to_string()), "{e}");
    v["mode"] = json!("auto");
    let s = Scenario::from_json(&v.to_string()).unwrap();
    assert_eq!(s.run_mode().unwrap(), RunMode::Aggregated);
    let run = brokerlab_core::aggregate::run(&s).unwrap();
    let published = run.series.last().unwrap().published;
    assert!(
        published.abs_diff(64_000_000) < 10,
        "{published} copies stored"
    );
    // A third of the subscriptions is within the budget, message by message.
    let bindings = v["exchanges"][0]["bindings"].as_array_mut().unwrap();
    bindings.truncate(20);
    let s = Scenario::from_json(&v.to_string()).unwrap();
    assert_eq!(s.run_mode().unwrap(), RunMode::Messages);
}

#[test]
fn a_lease_shorter_than_the_work_stops_at_the_step_budget() {
    // Every delivery's lease runs out before the work is done. Each expiry counts as a
    // failed attempt (issue #8), so the message would be dead-lettered after the
    // thousandth; a budget of 2,000 steps stops the run long before that.
    let mut v = value(&repro("gap-wait-lost-predecessor.json"));
    v["producers"][0]["script"] = json!([{ "at_s": 0 }]);
    v["queues"][0]["visibility_timeout_s"] = json!(0.01);
    v["consumers"][0]["ordering"] = json!("none");
    v["consumers"][0]["retry"] = json!({
        "max_attempts": 1000, "backoff_base_s": 0.01, "backoff_cap_s": 0.01, "jitter": "none"
    });
    let s = Scenario::from_json(&v.to_string()).unwrap();
    let sim = run_checked(Simulation::with_budget(s, small(2_000)).unwrap());
    assert_eq!(sim.end_reason(), Some(EndReason::StepBudget));
    assert!(sim.counters().redelivered > 100);
}

#[test]
fn gap_wait_behind_a_lost_predecessor_ends_cleanly() {
    // The predecessor is poison and dead-lettered; the waiting consumer gives up after
    // its gap timeout (issue #8) and parks the message, so the run drains by itself,
    // far inside the budget.
    let s = Scenario::from_json(&repro("gap-wait-lost-predecessor.json")).unwrap();
    let sim = run_checked(Simulation::with_budget(s, small(20_000)).unwrap());
    assert_eq!(sim.end_reason(), Some(EndReason::Drained));
    assert!(sim.steps() < 20_000, "{} steps", sim.steps());
    invariants::check(&sim).unwrap();
    assert_eq!(Report::of(&sim).end_reason, Some(EndReason::Drained));
}

#[test]
fn a_budget_stop_keeps_the_run_as_it_was() {
    // The burst has work left for minutes: 20,000 steps stop it mid-way.
    let mut sim =
        run_checked(Simulation::with_budget(common::example("burst"), small(20_000)).unwrap());
    assert_eq!(sim.steps(), 20_000);
    assert_eq!(sim.end_reason(), Some(EndReason::StepBudget));
    assert!(sim.is_finished());
    assert_eq!(sim.next_step_time(), None);
    // Everything computed so far stays: the clock does not move on, nothing is lost.
    let (now, published, samples) = (sim.now_us(), sim.counters().published, sim.series().len());
    sim.run();
    sim.run_until(now + 60_000_000);
    assert_eq!((sim.now_us(), sim.counters().published), (now, published));
    assert!(
        sim.series().len() <= samples + 1,
        "at most the final sample"
    );
    assert!(sim.step().is_none());
    // A command on a stopped run is refused, not a panic.
    let e = sim
        .command(Command::DropNextAck {
            consumer: ConsumerId::new(0),
        })
        .unwrap_err();
    assert!(e.to_string().contains("ended"), "{e}");
    let report = Report::of(&sim);
    assert_eq!(report.end_reason, Some(EndReason::StepBudget));
    assert_eq!(report.steps, 20_000);
    assert!(report.to_json().contains("\"end_reason\": \"step_budget\""));
}

#[test]
fn an_intervention_that_may_never_replay_does_not_lift_the_message_limit() {
    let e = refusal(&repro("intervention-bypasses-message-limit.json"));
    assert!(e.contains("never stops"), "{e}");
    // With an end the producer is bounded, but by its own schedule: 10^6/s for 40 s is
    // 40 million messages, whatever the command (never reached) would have set: past
    // the step budget message by message.
    let mut v = value(&repro("intervention-bypasses-message-limit.json"));
    v["end_s"] = json!(40.0);
    v["mode"] = json!("messages");
    let e = refusal(&v.to_string());
    assert!(e.contains("steps"), "{e}");
    // A command may replay at any instant up to the end (its step may come late), so
    // what its schedule can produce counts on top of the schedule it replaces: 15 s at
    // 10^6/s, then 15 s more once the command comes, is past the budget, even though
    // the command recorded at 0 s would replace the first 15 s if it replayed on time.
    let mut v = value(&repro("intervention-bypasses-message-limit.json"));
    let fifteen_seconds =
        json!([{ "from_s": 0, "rate_per_s": 1e6 }, { "from_s": 15, "rate_per_s": 0 }]);
    v["end_s"] = json!(30.0);
    v["mode"] = json!("messages");
    v["producers"][0]["arrivals"]["schedule"] = fifteen_seconds.clone();
    v["interventions"][0]["after_step"] = json!(3);
    v["interventions"][0]["fault"]["set_arrivals"]["schedule"] = fifteen_seconds.clone();
    let e = refusal(&v.to_string());
    assert!(e.contains("would need about"), "{e}");
    // Without the command, 15 million messages fit.
    v.as_object_mut().unwrap().remove("interventions");
    assert_eq!(
        Scenario::from_json(&v.to_string())
            .unwrap()
            .run_mode()
            .unwrap(),
        RunMode::Messages
    );
}

// ----- the estimate -------------------------------------------------------------------

fn queue_scenario() -> Value {
    json!({
        "version": 1, "seed": 1,
        "producers": [{ "arrivals": { "process": "constant",
            "schedule": [{ "from_s": 0, "rate_per_s": 1000 }] }, "count": 10000 }],
        "queues": [{ "name": "q", "visibility_timeout_s": 5 }],
        "consumers": [{ "service": { "fixed": { "seconds": 0.0001 } }, "ack": "after_commit" }]
    })
}

#[test]
fn publish_attempts_multiply_copies_when_the_confirm_cannot_arrive_in_time() {
    // A confirm timeout shorter than the round trip: every attempt times out and is
    // stored again (RabbitMQ stores each publish; only the producer's retry differs).
    let mut v = queue_scenario();
    v["broker"] = json!({ "network_latency_s": 0.01 });
    v["producers"][0]["publish"] =
        json!({ "confirms": true, "confirm_timeout_s": 0.001, "max_attempts": 1000 });
    v["producers"][0]["count"] = json!(100_000);
    let e = refusal(&v.to_string());
    assert!(e.contains("100000000 message copies"), "{e}");
    // The aggregated mode does not model publish retries: refused, saying both.
    assert!(e.contains("does not model"), "{e}");
    // Idempotent publishing: the broker drops what it already stored.
    v["producers"][0]["publish"]["idempotent"] = json!(true);
    assert!(Scenario::from_json(&v.to_string()).is_ok());
    // A timeout longer than the round trip: one copy per message.
    v["producers"][0]["publish"]["idempotent"] = json!(false);
    v["producers"][0]["publish"]["confirm_timeout_s"] = json!(1.0);
    let s = Scenario::from_json(&v.to_string()).unwrap();
    assert_eq!(s.work_estimate().copies, 100_000.0);
}

#[test]
fn retry_attempts_count_as_steps() {
    let mut v = queue_scenario();
    v["producers"][0]["count"] = json!(20_000_000);
    v["producers"][0]["arrivals"]["schedule"][0]["rate_per_s"] = json!(100_000);
    v["consumers"][0]["concurrency"] = json!(20); // 200,000/s: nothing piles up
    let s = Scenario::from_json(&v.to_string()).unwrap();
    assert_eq!(s.run_mode().unwrap(), RunMode::Messages, "20M messages fit");
    // Every message poison: each uses all its attempts before the dead-letter queue,
    // and the aggregated mode does not model poison messages either.
    v["producers"][0]["payload"] = json!({ "poison_share": 1.0 });
    let e = refusal(&v.to_string());
    assert!(e.contains("steps") && e.contains("poison"), "{e}");
}

#[test]
fn copies_piling_up_past_the_held_limit_go_aggregated() {
    // 10^6/s for 10 s against 1,000/s: 10 million copies, nearly all waiting at 10 s.
    let mut v = queue_scenario();
    v["producers"][0]["count"] = json!(10_000_000);
    v["producers"][0]["arrivals"]["schedule"][0]["rate_per_s"] = json!(1_000_000);
    v["consumers"][0]["service"] = json!({ "fixed": { "seconds": 0.001 } });
    let s = Scenario::from_json(&v.to_string()).unwrap();
    let held = s.work_estimate().held;
    assert!((held - 9_990_000.0).abs() < 1_000.0, "{held}");
    assert_eq!(s.run_mode().unwrap(), RunMode::Aggregated);
    v["mode"] = json!("messages");
    let e = refusal(&v.to_string());
    assert!(e.contains("held at once") && e.contains("5000000"), "{e}");
    // With the consumers keeping up, the same 10 million run message by message.
    v["consumers"][0]["service"] = json!({ "fixed": { "seconds": 0.000_000_5 } });
    let s = Scenario::from_json(&v.to_string()).unwrap();
    assert!(s.work_estimate().held < 10.0);
    assert_eq!(s.run_mode().unwrap(), RunMode::Messages);
}

#[test]
fn group_output_logs_count_and_a_loop_of_outputs_is_refused() {
    let group = |name: &str, log: &str, output: &str| {
        json!({ "name": name, "log": log, "members": 1,
                "service": { "fixed": { "seconds": 0.001 } },
                "commit": "after_processing", "output": output })
    };
    let mut v = json!({
        "version": 1, "seed": 1,
        "producers": [{ "target": "a", "arrivals": { "process": "constant",
            "schedule": [{ "from_s": 0, "rate_per_s": 100 }] }, "count": 10 }],
        "logs": [{ "name": "a", "partitions": 1 }, { "name": "b", "partitions": 1 }],
        "groups": [group("g1", "a", "b"), group("g2", "a", "b")]
    });
    let s = Scenario::from_json(&v.to_string()).unwrap();
    assert_eq!(s.work_estimate().log_records, 30.0, "10 in a, 2 × 10 in b");
    let sim = run_checked(Simulation::new(s).unwrap());
    assert_eq!(sim.counters().appended, 30);
    // b feeds a back: every record comes round again, for ever.
    v["groups"][1] = group("g2", "b", "a");
    let e = refusal(&v.to_string());
    assert!(
        e.contains("records would go round the logs a → b → a without end"),
        "{e}"
    );
}

#[test]
fn tiny_positive_rates_are_refused_and_the_lowest_allowed_one_runs() {
    let mut v = queue_scenario();
    v["producers"][0]["arrivals"]["schedule"][0]["rate_per_s"] = json!(1e-300);
    let e = refusal(&v.to_string());
    assert!(e.contains("rate_per_s") && e.contains("at least"), "{e}");
    v["producers"][0]["arrivals"]["schedule"][0]["rate_per_s"] = json!(limits::RATE_PER_S_MIN);
    v["producers"][0]["count"] = json!(2);
    let sim = run_checked(Simulation::new(Scenario::from_json(&v.to_string()).unwrap()).unwrap());
    assert_eq!(sim.counters().published, 2);
    assert_eq!(sim.end_reason(), Some(EndReason::Drained));
}

#[test]
fn every_example_fits_the_budget_and_drains_or_reaches_its_end() {
    for name in examples::names() {
        let s = examples::load(name).unwrap();
        if s.run_mode() == Ok(brokerlab_core::RunMode::Aggregated) {
            // Too large message by message: computed as flows, to its end.
            let run = brokerlab_core::aggregate::run(&s).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(run.end_reason, EndReason::EndTime, "{name}");
            continue;
        }
        s.work_estimate()
            .check()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        if s.work_estimate().steps > 100_000.0 {
            continue; // the big ones are run by the analytic tests
        }
        let sim = common::run(s).0;
        let reason = sim.end_reason().unwrap_or_else(|| panic!("{name} ended"));
        assert!(!reason.is_budget(), "{name}: {reason:?}");
        // Stalled exactly when work is left that nothing will take: the two examples
        // whose only consumer of a queue crashes for good.
        let stuck = ["fanout-subscriptions", "queue-vs-topic"].contains(&name);
        assert_eq!(reason == EndReason::Stalled, stuck, "{name}: {reason:?}");
        if matches!(reason, EndReason::Drained | EndReason::Stalled) {
            assert_eq!(
                reason == EndReason::Stalled,
                sim.backlog() > 0,
                "{name}: {reason:?}"
            );
        }
    }
}

#[test]
fn a_run_whose_last_consumer_crashed_for_good_ends_stalled_not_drained() {
    // queue-vs-topic: a consumer crashes at 4 s with no restart; the messages still
    // coming to its queue wait for ever. "Drained" ("nothing was left to do") hid them.
    let sim = common::run(examples::load("queue-vs-topic").unwrap()).0;
    assert_eq!(sim.end_reason(), Some(EndReason::Stalled));
    assert!(sim.backlog() > 0);
    assert!(sim.is_finished());
    assert_eq!(Report::of(&sim).end_reason, Some(EndReason::Stalled));
    assert!(!EndReason::Stalled.is_budget());
    // Restart that consumer before the end: the same run drains.
    let mut s = examples::load("queue-vs-topic").unwrap();
    for c in &mut s.commands {
        if let Command::CrashConsumer {
            restart_after_s, ..
        } = &mut c.command
        {
            *restart_after_s = Some(1.0);
        }
    }
    let sim = common::run(s).0;
    assert_eq!(sim.end_reason(), Some(EndReason::Drained));
    assert_eq!(sim.backlog(), 0);
}

// ----- the run honours every limit ----------------------------------------------------

#[test]
fn copies_messages_and_records_budgets_stop_the_run_cleanly() {
    let cases = [
        (
            "burst",
            Budget {
                copies_max: 500,
                ..Budget::default()
            },
            EndReason::CopiesBudget,
        ),
        (
            "burst",
            Budget {
                messages_max: 700,
                ..Budget::default()
            },
            EndReason::MessagesBudget,
        ),
        (
            "log-consumer-groups",
            Budget {
                log_records_max: 50,
                ..Budget::default()
            },
            EndReason::LogRecordsBudget,
        ),
    ];
    // Copies held at once: the burst piles up beyond capacity, so 300 waiting copies
    // stop it long before 300 have been created in all would.
    let held = run_checked(
        Simulation::with_budget(
            common::example("burst"),
            Budget {
                held_max: 300,
                ..Budget::default()
            },
        )
        .unwrap(),
    );
    assert_eq!(held.end_reason(), Some(EndReason::CopiesBudget));
    let waiting = held.series().last().map_or(0, |s| s.backlog + s.in_flight);
    assert!(waiting <= 301, "{waiting} held");
    assert!(held.copies().len() > 400, "more were created, and finished");
    for (name, budget, reason) in cases {
        let sim = run_checked(Simulation::with_budget(common::example(name), budget).unwrap());
        assert_eq!(sim.end_reason(), Some(reason), "{name}");
        assert!(reason.is_budget());
        // Stopped at the first step past the limit: at most one step's worth beyond.
        match reason {
            EndReason::CopiesBudget => assert_eq!(sim.copies().len(), 501),
            EndReason::MessagesBudget => assert_eq!(sim.messages().len(), 701),
            _ => assert_eq!(sim.counters().appended, 51),
        }
        assert!(sim.end_reason().unwrap().describe().contains("work budget"));
    }
}

#[test]
fn page_style_playing_stops_at_the_budget_too() {
    // The page calls run_until frame by frame: it must stop advancing as well.
    let mut sim = Simulation::with_budget(common::example("burst"), small(1_000)).unwrap();
    let mut t = 0;
    for _ in 0..1_000 {
        t += 100_000;
        sim.run_until(t);
    }
    assert_eq!(sim.steps(), 1_000);
    assert_eq!(sim.end_reason(), Some(EndReason::StepBudget));
    assert!(sim.now_us() < t, "the clock stays at the last step");
}

#[test]
fn a_group_never_grows_past_the_member_limit() {
    // Each join rebalances over every member: joins are bounded like members.
    let mut s = common::example("log-consumer-groups");
    s.groups[0].members = limits::MEMBERS_MAX - 1;
    s.commands
        .retain(|f| !matches!(f.command, Command::AddMember { .. }));
    let joins = |n: usize| {
        let mut t = s.clone();
        for _ in 0..n {
            t.commands.push(brokerlab_core::ScheduledCommand {
                at_s: 1.0,
                command: Command::AddMember {
                    group: GroupId::new(0),
                },
                unannounced: false,
            });
        }
        t
    };
    assert!(joins(1).validate().is_ok());
    let e = joins(2).validate().unwrap_err().to_string();
    assert!(e.contains("groups[0].members"), "{e}");
    // Commands given while running stop adding members at the limit too.
    let mut sim = Simulation::new(s).unwrap();
    sim.command(Command::AddMember {
        group: GroupId::new(0),
    })
    .unwrap();
    let e = sim
        .command(Command::AddMember {
            group: GroupId::new(0),
        })
        .unwrap_err();
    assert!(e.to_string().contains("at most"), "{e}");
    assert_eq!(sim.group_members(GroupId::new(0)).1, limits::MEMBERS_MAX);
    invariants::check(&sim).unwrap();
    // The recorded run replays: it validates as it was accepted.
    assert!(Simulation::new(sim.scenario().clone()).is_ok());
}

#[test]
fn deliveries_in_consumers_hands_weigh_eight_held_copies() {
    // Four consumers with room for 10,000 deliveries each, working for 100 s on one at a
    // time: nearly every message goes straight into a consumer's hands. A delivery held
    // there is kept whole with its timers (about 400 bytes against 50 for a copy waiting
    // packed in line), so it counts eight times against the held budget: 60,000 is
    // reached by about 7,500 of them, long before the 20,000 messages are all held (counted once each, they would all fit).
    let s: Scenario = serde_json::from_value(json!({
        "version": 4, "name": "in-hand", "seed": 1,
        "producers": [{ "name": "P", "count": 20_000,
            "arrivals": { "process": "constant", "schedule": [{ "from_s": 0, "rate_per_s": 10_000 }] } }],
        "queues": [{ "name": "q", "visibility_timeout_s": 3600 }],
        "consumers": [{ "name": "C", "replicas": 4, "prefetch": 10_000,
            "service": { "fixed": { "seconds": 100 } }, "ack": "after_commit" }]
    }))
    .unwrap();
    let budget = Budget {
        held_max: 60_000,
        ..Budget::default()
    };
    let sim = run_checked(Simulation::with_budget(s.clone(), budget).unwrap());
    assert_eq!(sim.end_reason(), Some(EndReason::CopiesBudget));
    let in_hand: u64 = (0..4)
        .map(|c| sim.consumer(ConsumerId::new(c)).unwrap())
        .map(|v| u64::from(v.busy + v.buffered))
        .sum();
    assert!(
        in_hand * 8 > 60_000 && in_hand < 12_000,
        "{in_hand} in hand"
    );
}
