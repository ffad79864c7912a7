//! Settings changed while running: each takes effect from the instant it is given, the
//! run stays accounted for after every step, and a replay of the recorded run is the same.

use brokerlab_core::*;

/// One producer at `rate` per second (evenly spaced), one queue, `consumers` consumers with
/// a fixed `service_s`, acking after commit.
fn line(rate: f64, service_s: f64, consumers: u32) -> Scenario {
    let json = format!(
        r#"{{
        "version": 1, "seed": 7,
        "producers": [{{ "name": "P", "arrivals": {{ "process": "constant",
            "schedule": [{{ "from_s": 0, "rate_per_s": {rate} }}] }}, "count": 100000 }}],
        "queues": [{{ "name": "jobs", "visibility_timeout_s": 30 }}],
        "consumers": [{{ "name": "C", "replicas": {consumers},
            "service": {{ "fixed": {{ "seconds": {service_s} }} }}, "ack": "after_commit" }}],
        "end_s": 200
    }}"#
    );
    Scenario::from_json(&json).expect("valid")
}

/// Steps until `t_s`, checking the accounting after every step.
fn run_checked_until(sim: &mut Simulation, t_s: f64) {
    let until = secs_to_us(t_s);
    while sim.next_step_time().is_some_and(|t| t <= until) {
        sim.step();
        invariants::check(sim).unwrap_or_else(|e| panic!("step {}: {e}", sim.steps()));
    }
    sim.run_until(until);
}

fn command(sim: &mut Simulation, fault: Command) {
    sim.command(fault).expect("a valid command");
    invariants::check(sim).unwrap_or_else(|e| panic!("after a command: {e}"));
}

fn rate(rate_per_s: f64) -> Command {
    Command::SetArrivals {
        producer: ProducerId::new(0),
        process: ArrivalProcess::Constant,
        schedule: vec![RateSegment {
            from_s: 0.0,
            rate_per_s,
        }],
    }
}

/// The replay of what the run recorded gives the same counters.
fn assert_replays(sim: &Simulation) {
    let mut replay = Simulation::new(sim.scenario().clone()).expect("recorded runs are valid");
    replay.run_until(sim.now_us());
    assert_eq!(replay.counters(), sim.counters());
    assert_eq!(replay.backlog(), sim.backlog());
}

#[test]
fn raising_the_arrival_rate_above_the_service_rate_grows_the_backlog_at_their_difference() {
    // μ = 10/s; λ = 5/s is stable, then λ = 20/s from t = 10 s: the fluid model says the
    // backlog grows at 10 per second. Arrivals and service are evenly spaced, so the only
    // slack is the message or two in flight at the instant of measuring.
    let mut sim = Simulation::new(line(5.0, 0.1, 1)).expect("valid");
    run_checked_until(&mut sim, 10.0);
    assert!(sim.backlog() <= 1, "stable before: {}", sim.backlog());
    command(&mut sim, rate(20.0));
    run_checked_until(&mut sim, 30.0);
    let expected = (20.0 - 10.0) * 20.0;
    let backlog = sim.backlog() as f64;
    assert!(
        (backlog - expected).abs() <= 3.0,
        "backlog {backlog}, expected about {expected}"
    );
    // And back below the service rate: it drains at μ − λ = 5 per second.
    command(&mut sim, rate(5.0));
    run_checked_until(&mut sim, 50.0);
    let expected = 200.0 - 5.0 * 20.0;
    let backlog = sim.backlog() as f64;
    assert!(
        (backlog - expected).abs() <= 3.0,
        "backlog {backlog}, expected about {expected}"
    );
    assert_replays(&sim);
}

#[test]
fn a_burst_schedule_given_as_a_command_is_relative_to_its_instant() {
    let mut sim = Simulation::new(line(0.0, 0.1, 1)).expect("valid");
    run_checked_until(&mut sim, 20.0);
    assert_eq!(sim.counters().published, 0);
    command(
        &mut sim,
        Command::SetArrivals {
            producer: ProducerId::new(0),
            process: ArrivalProcess::Constant,
            schedule: vec![
                RateSegment {
                    from_s: 0.0,
                    rate_per_s: 50.0,
                },
                RateSegment {
                    from_s: 2.0,
                    rate_per_s: 0.0,
                },
            ],
        },
    );
    run_checked_until(&mut sim, 40.0);
    // 50/s for 2 s: 100 messages (the last one lands exactly on the boundary and is not sent).
    assert!(
        (99..=100).contains(&sim.counters().published),
        "{}",
        sim.counters().published
    );
    // The schedule the page predicts from agrees.
    let schedule = sim.scenario().effective_schedule(0);
    assert_eq!(schedule.len(), 3, "{schedule:?}");
    assert_eq!((schedule[1].from_s, schedule[1].rate_per_s), (20.0, 50.0));
    assert_eq!((schedule[2].from_s, schedule[2].rate_per_s), (22.0, 0.0));
    assert_replays(&sim);
}

#[test]
fn scaling_out_drains_a_growing_backlog_and_scaling_in_loses_nothing() {
    // λ = 15/s against one consumer at 10/s: the backlog grows at 5/s.
    let mut sim = Simulation::new(line(15.0, 0.1, 1)).expect("valid");
    run_checked_until(&mut sim, 20.0);
    let grown = sim.backlog();
    assert!((95..=105).contains(&grown), "{grown}");
    let scale = |count| Command::SetConsumerCount {
        queue: "jobs".into(),
        count,
    };
    command(&mut sim, scale(3));
    assert_eq!(sim.consumer_count(), 3);
    // Three consumers serve 30/s: the backlog drains at 15/s and is gone within 7 s.
    run_checked_until(&mut sim, 30.0);
    assert!(sim.backlog() <= 1, "{}", sim.backlog());
    // Back to one: the two newest finish what they hold and stop; nothing is redelivered.
    command(&mut sim, scale(1));
    run_checked_until(&mut sim, 31.0);
    let stopped: Vec<bool> = (0..3)
        .map(|c| sim.consumer(ConsumerId::new(c)).expect("exists").stopped)
        .collect();
    assert_eq!(stopped, vec![false, true, true]);
    run_checked_until(&mut sim, 60.0);
    let c = sim.counters();
    assert_eq!(c.redelivered, 0);
    assert_eq!(c.lost, 0);
    assert!(
        sim.backlog() > 100,
        "one consumer again: it grows: {}",
        sim.backlog()
    );
    // Scaling out again brings the stopped consumers back before adding new ones.
    command(&mut sim, scale(2));
    assert_eq!(sim.consumer_count(), 3);
    assert!(sim.consumer(ConsumerId::new(1)).expect("exists").up);
    assert_replays(&sim);
}

#[test]
fn a_new_consumer_can_be_crashed_and_a_replay_reproduces_it() {
    let mut sim = Simulation::new(line(15.0, 0.1, 1)).expect("valid");
    run_checked_until(&mut sim, 5.0);
    command(
        &mut sim,
        Command::SetConsumerCount {
            queue: "jobs".into(),
            count: 2,
        },
    );
    run_checked_until(&mut sim, 6.0);
    command(
        &mut sim,
        Command::CrashConsumer {
            consumer: ConsumerId::new(1),
            point: CrashPoint::AfterCommitBeforeAck,
            restart_after_s: Some(1.0),
        },
    );
    run_checked_until(&mut sim, 60.0);
    assert!(sim.counters().redelivered >= 1, "its message came back");
    assert_replays(&sim);
    // A consumer that does not exist is refused with a message, not a panic.
    let err = sim
        .command(Command::CrashConsumer {
            consumer: ConsumerId::new(9),
            point: CrashPoint::Now,
            restart_after_s: None,
        })
        .expect_err("no consumer 9");
    assert!(err.to_string().contains("no consumer 9"), "{err}");
}

#[test]
fn switching_to_ack_on_delivery_turns_a_crash_into_a_loss() {
    // After commit, a crash means a redelivery; after the switch, the same crash loses the
    // message the consumer was working on (ack-before-commit ⇒ loss).
    let mut sim = Simulation::new(line(2.0, 0.4, 1)).expect("valid");
    run_checked_until(&mut sim, 10.2);
    command(
        &mut sim,
        Command::CrashConsumer {
            consumer: ConsumerId::new(0),
            point: CrashPoint::Now,
            restart_after_s: Some(0.1),
        },
    );
    run_checked_until(&mut sim, 60.0);
    assert_eq!(sim.counters().lost, 0);
    assert!(sim.counters().redelivered >= 1);
    command(
        &mut sim,
        Command::SetAckMode {
            queue: "jobs".into(),
            ack: AckMode::OnDelivery,
        },
    );
    run_checked_until(&mut sim, 70.2);
    assert_eq!(
        sim.consumer(ConsumerId::new(0)).expect("exists").ack,
        AckMode::OnDelivery
    );
    command(
        &mut sim,
        Command::CrashConsumer {
            consumer: ConsumerId::new(0),
            point: CrashPoint::Now,
            restart_after_s: Some(0.1),
        },
    );
    run_checked_until(&mut sim, 80.0);
    assert_eq!(sim.counters().lost, 1);
    assert_replays(&sim);
}

#[test]
fn a_lease_shorter_than_the_work_makes_redeliveries_and_duplicates() {
    // 1 s of work under a 30 s lease: no redelivery. Shorten the lease to 0.5 s: each
    // delivery's lease runs out mid-work, the message is offered again, and with no
    // idempotency its effect is applied twice. An inbox stops the double effect.
    let mut sim = Simulation::new(line(0.5, 1.0, 2)).expect("valid");
    run_checked_until(&mut sim, 20.0);
    assert_eq!(sim.counters().redelivered, 0);
    command(
        &mut sim,
        Command::SetVisibilityTimeout {
            queue: "jobs".into(),
            seconds: 0.5,
        },
    );
    run_checked_until(&mut sim, 40.0);
    let c = sim.counters().clone();
    assert!(c.redelivered > 0, "{c:?}");
    assert!(c.duplicate_effects > 0, "{c:?}");
    command(
        &mut sim,
        Command::SetIdempotency {
            queue: "jobs".into(),
            idempotency: Idempotency::Inbox,
        },
    );
    // Let deliveries that started before the change finish.
    run_checked_until(&mut sim, 45.0);
    let before = sim.counters().duplicate_effects;
    run_checked_until(&mut sim, 80.0);
    assert!(sim.counters().redelivered > c.redelivered);
    assert_eq!(sim.counters().duplicate_effects, before);
    assert_replays(&sim);
}

#[test]
fn lowering_the_bound_refuses_new_publishes_and_keeps_what_is_stored() {
    let mut sim = Simulation::new(line(15.0, 0.1, 1)).expect("valid");
    run_checked_until(&mut sim, 20.0);
    let held = sim.backlog();
    assert!(held > 50);
    command(
        &mut sim,
        Command::SetQueueBound {
            queue: "jobs".into(),
            max_length: Some(20),
            overflow: Overflow::Reject,
        },
    );
    // Nothing stored is thrown away…
    assert_eq!(sim.backlog(), held);
    run_checked_until(&mut sim, 40.0);
    let c = sim.counters();
    assert!(c.refused > 0, "{c:?}");
    assert_eq!(c.lost, 0);
    // …and it drains down to the bound, then stays there.
    assert!(sim.backlog() <= 20, "{}", sim.backlog());
    assert_replays(&sim);
}

#[test]
fn lowering_prefetch_takes_effect_as_the_consumer_works_down() {
    let mut s = line(15.0, 0.1, 1);
    s.consumers[0].prefetch = 10;
    let mut sim = Simulation::new(s).expect("valid");
    run_checked_until(&mut sim, 10.0);
    assert_eq!(
        sim.consumer(ConsumerId::new(0)).expect("exists").buffered,
        9
    );
    command(
        &mut sim,
        Command::SetPrefetch {
            queue: "jobs".into(),
            prefetch: 1,
        },
    );
    run_checked_until(&mut sim, 20.0);
    assert_eq!(
        sim.consumer(ConsumerId::new(0)).expect("exists").buffered,
        0
    );
    assert_replays(&sim);
}

#[test]
fn settings_are_validated_like_the_scenario() {
    let mut s = line(1.0, 0.1, 1);
    s.producers[0].count = None; // bounded by end_s only
    let mut sim = Simulation::new(s).expect("valid");
    let bad = [
        Command::SetServiceTime {
            queue: "nope".into(),
            service: ServiceTime::Fixed { seconds: 1.0 },
        },
        Command::SetConsumerCount {
            queue: "jobs".into(),
            count: 1_000,
        },
        Command::SetArrivals {
            producer: ProducerId::new(0),
            process: ArrivalProcess::Poisson,
            schedule: vec![RateSegment {
                from_s: 1.0,
                rate_per_s: 1.0,
            }],
        },
        Command::SetVisibilityTimeout {
            queue: "jobs".into(),
            seconds: f64::NAN,
        },
        // 1,000,000 per second until end_s would be far more than a run may publish.
        Command::SetArrivals {
            producer: ProducerId::new(0),
            process: ArrivalProcess::Constant,
            schedule: vec![RateSegment {
                from_s: 0.0,
                rate_per_s: 1_000_000.0,
            }],
        },
    ];
    for fault in bad {
        assert!(
            sim.command(fault.clone()).is_err(),
            "{fault:?} was accepted"
        );
    }
    assert!(sim.scenario().interventions.is_empty());
}

#[test]
fn adding_partitions_spreads_keys_anew_and_rebalances_every_group() {
    let mut sim =
        Simulation::new(examples::load("log-consumer-groups").expect("built in")).expect("valid");
    run_checked_until(&mut sim, 10.0);
    let before: Vec<u64> = sim
        .group_partitions(GroupId::new(0))
        .iter()
        .map(|p| p.end)
        .collect();
    assert_eq!(before.len(), 4);
    let grow = |partitions| Command::SetPartitions {
        log: "account-events".into(),
        partitions,
    };
    let step = sim.command(grow(8)).expect("a log may grow");
    let rebalances = step
        .facts
        .iter()
        .filter(|f| matches!(f, Fact::RebalanceStarted { .. }))
        .count();
    assert_eq!(rebalances, 2, "both groups rebalance");
    run_checked_until(&mut sim, 25.0);
    let after = sim.group_partitions(GroupId::new(0));
    assert_eq!(after.len(), 8);
    assert!(
        after[4..].iter().any(|p| p.end > 0),
        "keys now hash to the new partitions too"
    );
    // The group reads the new partitions: their lag goes back to zero once it catches up.
    run_checked_until(&mut sim, 90.0);
    assert!(sim
        .group_partitions(GroupId::new(0))
        .iter()
        .all(|p| p.lag == 0));
    // A log never shrinks.
    let err = sim.command(grow(2)).expect_err("shrinking is refused");
    assert!(err.to_string().contains("only grows"), "{err}");
    assert_replays(&sim);
}

/// The final balance of account 42 in `account-42`'s ledger.
fn balance_42(sim: &Simulation) -> i64 {
    sim.tables(QueueId::new(0))
        .expect("the ledger")
        .aggregate(42)
        .balance
}

fn ordering(ordering: Ordering) -> Command {
    Command::SetOrdering {
        queue: "ledger".into(),
        ordering,
    }
}

#[test]
fn waiting_for_the_gap_set_before_the_messages_fixes_account_42_and_replays() {
    // Without the setting the withdrawal overtakes the deposit and is refused (balance
    // 100); set at 0.5 s, before either message exists, every seed ends at 50.
    let plain = examples::load("account-42").expect("built in");
    let mut sim = Simulation::new(plain.clone()).expect("valid");
    run_checked_until(&mut sim, 60.0);
    assert_eq!(balance_42(&sim), 100, "the example's own run reorders");
    for seed in 1..30 {
        let mut s = plain.clone();
        s.seed = seed;
        let mut sim = Simulation::new(s).expect("valid");
        run_checked_until(&mut sim, 0.5);
        command(&mut sim, ordering(Ordering::WaitForGap));
        assert_eq!(
            sim.settings().queues[0].ordering,
            Ordering::WaitForGap,
            "seed {seed}"
        );
        run_checked_until(&mut sim, 60.0);
        assert_eq!(balance_42(&sim), 50, "seed {seed}");
        assert_eq!(sim.counters().effects_refused, 0, "seed {seed}");
        assert_replays(&sim);
    }
}

#[test]
fn an_ordering_set_after_the_messages_changes_nothing_already_applied() {
    // From that instant on: set once both messages are handled, it does not rewrite history.
    let mut sim = Simulation::new(examples::load("account-42").expect("built in")).expect("ok");
    run_checked_until(&mut sim, 30.0);
    assert_eq!(balance_42(&sim), 100);
    command(&mut sim, ordering(Ordering::WaitForGap));
    run_checked_until(&mut sim, 60.0);
    assert_eq!(balance_42(&sim), 100);
    assert_eq!(sim.counters().effects_refused, 1);
    assert_replays(&sim);
}

#[test]
fn an_ordering_scheduled_in_the_scenario_takes_effect_at_its_instant() {
    let mut s = examples::load("account-42").expect("built in");
    s.commands.push(ScheduledCommand {
        at_s: 0.5,
        command: ordering(Ordering::WaitForGap),
        unannounced: false,
    });
    let mut sim = Simulation::new(s.clone()).expect("valid");
    run_checked_until(&mut sim, 0.4);
    assert_eq!(sim.settings().queues[0].ordering, Ordering::None);
    run_checked_until(&mut sim, 60.0);
    assert_eq!(sim.settings().queues[0].ordering, Ordering::WaitForGap);
    assert_eq!(balance_42(&sim), 50);
    // On a queue without consumers, or a queue that does not exist, it is refused.
    s.commands[0].command = Command::SetOrdering {
        queue: "nowhere".into(),
        ordering: Ordering::IgnoreStale,
    };
    let e = s.validate().expect_err("no such queue");
    assert_eq!(e.field, "commands[0].command.queue");
}

#[test]
fn a_groups_ordering_changes_from_its_instant_and_only_to_what_a_log_supports() {
    let mut sim =
        Simulation::new(examples::load("log-consumer-groups").expect("built in")).expect("ok");
    let group = GroupId::new(0);
    run_checked_until(&mut sim, 2.0);
    assert_eq!(sim.group_ordering(group), Ordering::None);
    let set = |ordering| Command::SetGroupOrdering { group, ordering };
    let step = sim.command(set(Ordering::IgnoreStale)).expect("valid");
    assert!(step.facts.iter().any(|f| matches!(
        f,
        Fact::SettingChanged {
            setting: Setting::GroupOrdering {
                ordering: Ordering::IgnoreStale,
                ..
            },
            ..
        }
    )));
    assert_eq!(sim.group_ordering(group), Ordering::IgnoreStale);
    run_checked_until(&mut sim, 20.0);
    assert_replays(&sim);
    let Err(e) = sim.command(set(Ordering::WaitForGap)) else {
        panic!("a log has no gaps to wait for");
    };
    assert_eq!(e.field, "command.ordering");
    let Err(e) = sim.command(Command::SetGroupOrdering {
        group: GroupId::new(9),
        ordering: Ordering::None,
    }) else {
        panic!("no such group");
    };
    assert!(e.field.ends_with("group"), "{e}");
}

/// Scaling out numbers new consumers after the queue's ones, passing over a name another
/// consumer already has: replicas C1, C2 of one queue beside C3 (unnamed) and "C4" of
/// another, scaled to 4, get C5 and C6, not a second C3 and C4.
#[test]
fn scaling_out_never_repeats_a_consumer_name() {
    let json = r#"{
        "version": 4, "seed": 7,
        "producers": [{ "name": "P", "arrivals": { "process": "constant",
            "schedule": [{ "from_s": 0, "rate_per_s": 10 }] }, "count": 50 }],
        "queues": [{ "name": "jobs", "visibility_timeout_s": 30 },
                   { "name": "other", "visibility_timeout_s": 30 }],
        "consumers": [
            { "name": "C", "replicas": 2, "service": { "fixed": { "seconds": 0.1 } }, "ack": "after_commit" },
            { "queue": "other", "service": { "fixed": { "seconds": 0.1 } }, "ack": "after_commit" },
            { "name": "C4", "queue": "other", "service": { "fixed": { "seconds": 0.1 } }, "ack": "after_commit" }
        ]
    }"#;
    let mut sim = Simulation::new(Scenario::from_json(json).expect("valid")).unwrap();
    let names = |sim: &Simulation| -> Vec<String> {
        (sim.consumer_ids())
            .map(|c| sim.consumer(c).unwrap().name)
            .collect()
    };
    assert_eq!(names(&sim), ["C1", "C2", "C3", "C4"]);
    command(
        &mut sim,
        Command::SetConsumerCount {
            queue: "jobs".into(),
            count: 4,
        },
    );
    assert_eq!(names(&sim), ["C1", "C2", "C3", "C4", "C5", "C6"]);
    command(
        &mut sim,
        Command::SetConsumerCount {
            queue: "other".into(),
            count: 3,
        },
    );
    // An unnamed template numbers by place among all consumers: C7 is free.
    assert_eq!(names(&sim), ["C1", "C2", "C3", "C4", "C5", "C6", "C7"]);
}
