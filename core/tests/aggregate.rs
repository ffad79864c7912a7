//! The aggregated (fluid) mode against the message-by-message model where both apply,
//! its cost (model steps, never time) against the rate, and how `mode: "auto"` picks it.
//!
//! Tolerances: with constant arrivals and fixed service times the message model is
//! itself nearly a fluid, so the two agree to a few messages plus what one service time
//! and one sample interval hold (consumers finish in steps of 10 ms, samples are taken
//! every second): we allow 1 % of the peak backlog. With Poisson arrivals the message
//! count after t seconds at λ per second has a standard deviation of √(λt) (≈ 424 for
//! the burst's 180,000 arrivals in 60 s); 3 % of 60,000 is about four of those.

use brokerlab_core::aggregate::{self, AggregateRun};
use brokerlab_core::scenario::limits::TIME_S_MAX;
use brokerlab_core::{
    examples, ArrivalProcess, Command, ConsumerId, CrashPoint, EndReason, Overflow, ProducerId,
    RateSegment, RunMode, Sample, Scenario, ScheduledCommand, Simulation,
};
use proptest::prelude::*;
use serde_json::json;

/// `λ` per second for `for_s` seconds, against `consumers` consumers of 10 ms each (100
/// per second each), constant arrivals: the backlog arithmetic of the seeds.
fn steady(lambda: f64, for_s: f64, consumers: u32) -> Scenario {
    let v = json!({
        "version": 2, "name": "fluid", "seed": 3,
        "producers": [{ "arrivals": { "process": "constant", "schedule": [
            { "from_s": 0, "rate_per_s": lambda }, { "from_s": for_s, "rate_per_s": 0 } ] } }],
        "queues": [{ "name": "q", "visibility_timeout_s": 30 }],
        "consumers": [{ "replicas": consumers, "service": { "fixed": { "seconds": 0.01 } },
                        "ack": "after_commit" }],
        "sample_every_s": 1
    });
    Scenario::from_json(&v.to_string()).unwrap()
}

fn both(s: &Scenario) -> (Vec<Sample>, AggregateRun) {
    let mut sim = Simulation::new(s.clone()).unwrap();
    sim.run();
    (sim.series().to_vec(), aggregate::run(s).unwrap())
}

fn at(series: &[Sample], t_s: f64) -> Sample {
    *series
        .iter()
        .find(|s| (s.t_s - t_s).abs() < 1e-9)
        .unwrap_or_else(|| panic!("no sample at {t_s} s"))
}

/// First sample time at or after `from_s` with an empty queue.
fn drained_at(series: &[Sample], from_s: f64) -> f64 {
    series
        .iter()
        .find(|s| s.t_s >= from_s && s.backlog == 0)
        .map_or(f64::INFINITY, |s| s.t_s)
}

fn close(a: u64, b: u64, tolerance: u64, what: &str) {
    assert!(
        a.abs_diff(b) <= tolerance,
        "{what}: {a} vs {b} (± {tolerance})"
    );
}

#[test]
fn the_burst_arithmetic_agrees_then_drains() {
    // 3,000/s against 2,000/s for 60 s: about 60,000 waiting, then empty near 120 s.
    let s = steady(3_000.0, 60.0, 20);
    let (messages, fluid) = both(&s);
    for t in [10.0, 30.0, 60.0, 90.0] {
        close(
            at(&messages, t).backlog,
            at(&fluid.series, t).backlog,
            600,
            "backlog",
        );
    }
    close(
        at(&fluid.series, 60.0).backlog,
        60_000,
        600,
        "fluid backlog at 60 s",
    );
    let age = |series: &[Sample]| at(series, 60.0).oldest_age_s;
    assert!(
        (age(&messages) - age(&fluid.series)).abs() < 0.5,
        "oldest age at 60 s"
    );
    assert!((drained_at(&messages, 61.0) - drained_at(&fluid.series, 61.0)).abs() <= 2.0);
    assert!(
        (drained_at(&fluid.series, 61.0) - 90.0).abs() <= 1.0,
        "3000·60/2000 = 90 s"
    );
    let (m, f) = (messages.last().unwrap(), fluid.series.last().unwrap());
    close(m.published, f.published, 10, "published");
    // Acks lag deliveries by one service time: at most the 20 slots' worth apart.
    close(m.acked, f.acked, 20, "acked");
}

#[test]
fn the_poisson_burst_example_agrees_within_its_noise() {
    let s = examples::load("burst").unwrap();
    let (messages, fluid) = both(&s);
    for t in [30.0, 60.0, 90.0] {
        close(
            at(&messages, t).backlog,
            at(&fluid.series, t).backlog,
            1_800,
            "backlog",
        );
    }
    assert!((drained_at(&messages, 61.0) - drained_at(&fluid.series, 61.0)).abs() <= 5.0);
}

#[test]
fn a_consumer_crash_window_agrees() {
    // 1,500/s against 2,000/s; half the consumers down from 10 s to 30 s: capacity
    // 1,000/s, so the backlog grows by 500/s to 10,000, then drains at 500/s by 50 s.
    let mut s = steady(1_500.0, 80.0, 20);
    for c in 0..10 {
        s.commands.push(ScheduledCommand {
            at_s: 10.0,
            command: Command::CrashConsumer {
                consumer: ConsumerId::new(c),
                point: CrashPoint::Now,
                restart_after_s: Some(20.0),
            },
            unannounced: false,
        });
    }
    let (messages, fluid) = both(&s);
    for t in [20.0, 30.0, 40.0] {
        close(
            at(&messages, t).backlog,
            at(&fluid.series, t).backlog,
            100,
            "backlog",
        );
    }
    close(
        at(&fluid.series, 30.0).backlog,
        10_000,
        100,
        "fluid backlog at 30 s",
    );
    assert!((drained_at(&messages, 31.0) - drained_at(&fluid.series, 31.0)).abs() <= 2.0);
    // The copies in hand come back after the 30 s lease and are redelivered. Message by
    // message that is whoever was mid-work at the instant (0 to 10 of them); the fluid
    // spreads the busy share over the consumers still up after each crash (about 9).
    let redelivered = |series: &[Sample]| series.last().unwrap().redelivered;
    assert!((1..=10).contains(&redelivered(&messages)));
    close(
        redelivered(&messages),
        redelivered(&fluid.series),
        5,
        "redelivered",
    );
}

#[test]
fn a_rate_change_mid_run_agrees() {
    // 1,500/s, then from 20 s (a scheduled command) 2,500/s against 2,000/s.
    let mut s = steady(1_500.0, 60.0, 20);
    s.commands.push(ScheduledCommand {
        at_s: 20.0,
        command: Command::SetArrivals {
            producer: ProducerId::new(0),
            process: ArrivalProcess::Constant,
            schedule: vec![
                RateSegment {
                    from_s: 0.0,
                    rate_per_s: 2_500.0,
                },
                RateSegment {
                    from_s: 20.0,
                    rate_per_s: 0.0,
                },
            ],
        },
        unannounced: false,
    });
    let (messages, fluid) = both(&s);
    close(
        at(&fluid.series, 40.0).backlog,
        10_000,
        100,
        "500/s for 20 s",
    );
    for t in [30.0, 40.0, 45.0] {
        close(
            at(&messages, t).backlog,
            at(&fluid.series, t).backlog,
            100,
            "backlog",
        );
    }
    close(
        messages.last().unwrap().published,
        fluid.series.last().unwrap().published,
        10,
        "published: 20 s at 1,500 then 20 s at 2,500",
    );
}

#[test]
fn a_length_limit_loses_the_excess_in_both() {
    for overflow in [Overflow::Reject, Overflow::DropOldest] {
        let mut s = steady(3_000.0, 60.0, 20);
        s.queues[0].max_length = Some(10_000);
        s.queues[0].overflow = Some(overflow);
        let mut sim = Simulation::new(s.clone()).unwrap();
        sim.run();
        let fluid = aggregate::run(&s).unwrap();
        let lost = fluid.losses.last().unwrap();
        // Full at 10 s, then 1,000/s over capacity for 50 s.
        let (fluid_lost, message_lost) = match overflow {
            Overflow::Reject => (lost.refused, sim.counters().refused),
            _ => (lost.dropped, sim.counters().dropped),
        };
        close(fluid_lost, 50_000, 100, "fluid overflow");
        close(
            fluid_lost,
            message_lost,
            500,
            "overflow against the message model",
        );
        close(
            at(&fluid.series, 40.0).backlog,
            10_000,
            1,
            "held at the limit",
        );
        close(
            at(sim.series(), 40.0).backlog,
            10_000,
            20,
            "held at the limit",
        );
        assert_eq!(fluid.series.len(), fluid.losses.len(), "losses in step");
    }
}

#[test]
fn the_cost_does_not_depend_on_the_rate() {
    let steps = |scale: f64| {
        let mut s = steady(3_000.0 * scale, 60.0, 20);
        s.consumers[0].concurrency = scale as u32;
        s.end_s = Some(3_600.0);
        s.mode = RunMode::Aggregated;
        let run = aggregate::run(&s).unwrap();
        let peak = run.series.iter().map(|x| x.backlog).max().unwrap();
        close(
            peak,
            (60_000.0 * scale) as u64,
            (600.0 * scale) as u64,
            "peak",
        );
        run.model_steps
    };
    let slow = steps(1.0);
    assert_eq!(slow, steps(300.0));
    // A sample per second for an hour, plus a few changes of regime.
    assert!(slow < 3_700, "{slow} model steps");
}

#[test]
fn a_day_at_a_million_per_second_runs_aggregated_by_itself() {
    let v = json!({
        "version": 2, "seed": 1,
        "producers": [{ "arrivals": { "process": "poisson",
            "schedule": [{ "from_s": 0, "rate_per_s": 1e6 }] } }],
        "queues": [{ "name": "q", "visibility_timeout_s": 30 }],
        "consumers": [{ "replicas": 10, "concurrency": 100,
                        "service": { "fixed": { "seconds": 0.0009 } }, "ack": "after_commit" }],
        "end_s": 86400
    });
    let s = Scenario::from_json(&v.to_string()).unwrap();
    assert_eq!(s.mode, RunMode::Auto);
    assert_eq!(s.run_mode().unwrap(), RunMode::Aggregated);
    let e = Simulation::new(s.clone())
        .err()
        .expect("not message by message");
    assert!(e.to_string().contains("aggregated mode"), "{e}");
    let run = aggregate::run(&s).unwrap();
    assert!(run.note.starts_with("aggregated mode:"), "{}", run.note);
    assert_eq!(run.end_s, 86_400.0);
    assert!(run.model_steps < 100_000, "{} model steps", run.model_steps);
    let last = run.series.last().unwrap();
    assert_eq!(last.t_s, 86_400.0);
    close(
        last.published,
        86_400_000_000,
        1_000,
        "a million per second for a day",
    );
    // Capacity 1,000 × (1 / 0.9 ms) ≈ 1.11 M/s: it keeps up, nothing waits.
    assert!(run.series.iter().all(|x| x.backlog == 0));
    // The series stays bounded like a message run's (halved past 20,000 samples).
    assert!(run.series.len() <= 20_000);
}

#[test]
fn an_hour_at_three_thousand_per_second_runs_message_by_message() {
    // 10.8 million messages: once refused by a fixed message limit, now inside the
    // step budget (two steps per message), so `auto` keeps every message.
    let mut s = steady(3_000.0, 3_600.0, 40);
    s.mode = RunMode::Auto;
    assert_eq!(s.run_mode().unwrap(), RunMode::Messages);
    assert!(s.work_estimate().messages > 10_800_000.0);
    assert!(Simulation::new(s).is_ok());
}

#[test]
fn explicit_modes_and_refusals_are_one_line() {
    let day = |mode: &str, extra: serde_json::Value| {
        let mut v = json!({
            "version": 2, "seed": 1, "mode": mode,
            "producers": [{ "arrivals": { "process": "constant",
                "schedule": [{ "from_s": 0, "rate_per_s": 1e6 }] } }],
            "queues": [{ "name": "q", "visibility_timeout_s": 30 }],
            "consumers": [{ "service": { "fixed": { "seconds": 0.001 } }, "ack": "after_commit" }],
            "end_s": 86400
        });
        if let Some(map) = extra.as_object() {
            for (k, value) in map {
                v["consumers"][0][k] = value.clone();
            }
        }
        Scenario::from_json(&v.to_string())
    };
    // Message by message on demand: refused past the budget, naming it.
    let e = day("messages", json!({})).unwrap_err().to_string();
    assert!(
        e.contains("would need about") && e.contains("50000000"),
        "{e}"
    );
    assert_eq!(e.lines().count(), 1);
    // Past the budget with what the aggregated mode does not model: both reasons.
    let e = day("auto", json!({ "failures": { "transient_p": 0.1 } }))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("50000000") && e.contains("does not model"),
        "{e}"
    );
    assert_eq!(e.lines().count(), 1);
    // A small scenario may ask for the aggregated mode.
    let mut small = steady(10.0, 5.0, 1);
    small.mode = RunMode::Aggregated;
    assert_eq!(small.run_mode().unwrap(), RunMode::Aggregated);
    assert!(aggregate::run(&small)
        .unwrap()
        .note
        .contains("chosen by the scenario"));
    // Endless stays refused, whatever the mode.
    let mut v: serde_json::Value =
        serde_json::from_str(&day("auto", json!({})).unwrap().to_json_pretty()).unwrap();
    v.as_object_mut().unwrap().remove("end_s");
    let e = Scenario::from_json(&v.to_string()).unwrap_err().to_string();
    assert!(e.contains("never stops"), "{e}");
}

#[test]
fn old_files_load_unchanged_and_the_mode_round_trips() {
    let s = examples::load("burst").unwrap();
    assert_eq!(s.mode, RunMode::Auto);
    assert!(!s.to_json_pretty().contains("\"mode\""), "auto is left out");
    let mut t = s.clone();
    t.mode = RunMode::Messages;
    let text = t.to_json_pretty();
    assert!(text.contains("\"mode\": \"messages\""));
    assert_eq!(Scenario::from_json(&text).unwrap().mode, RunMode::Messages);
}

#[test]
fn a_broker_crash_agrees_on_what_is_lost_and_what_comes_back() {
    // The example: the broker is down from 10 s to 15 s; the non-durable queue loses its
    // ~100 waiting copies, the producer with confirms publishes again once it is back.
    let s = examples::load("broker-crash").unwrap();
    let (messages, fluid) = both(&s);
    let (m, f) = (messages.last().unwrap(), fluid.series.last().unwrap());
    // One message either way: a publish or a copy caught mid-way at the crash.
    close(m.lost, f.lost, 2, "lost in the crash");
    // The retried publishes: all of them in the fluid, nearly all message by message
    // (an attempt may still be waiting out its confirm timeout at the restart).
    close(m.published, f.published, 5, "published");
    assert!((drained_at(&messages, 16.0) - drained_at(&fluid.series, 16.0)).abs() <= 2.0);
}

#[test]
fn a_broker_crash_loses_transient_messages_of_a_durable_queue_in_both() {
    // Transient messages in a durable classic queue are gone after a restart, message by
    // message; the fluid kept them (0 lost against 49), reading only the queue's
    // durability. A quorum queue keeps them in both. A durable queue fed by persistent and
    // transient producers alike is left to the message model.
    let build = |quorum: bool| {
        let mut s = examples::load("broker-crash").unwrap();
        s.queues[1].durable = true;
        s.consumers[1].service = brokerlab_core::ServiceTime::Fixed { seconds: 0.2 };
        s.producers[1].arrivals.schedule[0].rate_per_s = 10.0;
        if quorum {
            s.queues[1].flavour = brokerlab_core::Flavour::Rabbitmq;
            s.queues[1].queue_type = brokerlab_core::QueueType::Quorum;
        }
        s
    };
    let lost = |series: &[Sample]| series.last().unwrap().lost;
    let (messages, fluid) = both(&build(false));
    assert!((45..=55).contains(&lost(&messages)), "{}", lost(&messages));
    close(
        lost(&messages),
        lost(&fluid.series),
        2,
        "transient copies lost",
    );
    let (messages, fluid) = both(&build(true));
    assert_eq!(
        (lost(&messages), lost(&fluid.series)),
        (0, 0),
        "quorum keeps them"
    );

    let mut mixed = build(false);
    mixed.producers[1].target = "orders".into();
    let why = aggregate::run(&mixed).unwrap_err();
    assert_eq!(why.field, "queues[0].durable");
    // SQS keeps a received message hidden through a restart, its delete still counting:
    // the fluid, which returns what is in flight, leaves that to the message model.
    let mut sqs = build(false);
    sqs.queues[0].flavour = brokerlab_core::Flavour::Sqs;
    let why = aggregate::run(&sqs).unwrap_err();
    assert_eq!(why.field, "queues[0].flavour");
}

#[test]
fn the_measured_files_resolve_to_the_modes_the_docs_say() {
    // docs/performance.md times these two with the release runner.
    let load = |name: &str| {
        let path = format!("{}/tests/repro/scale/{name}", env!("CARGO_MANIFEST_DIR"));
        Scenario::from_json(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    assert_eq!(load("hour.json").run_mode().unwrap(), RunMode::Messages);
    assert_eq!(load("day.json").run_mode().unwrap(), RunMode::Aggregated);
}

/// Every sample of `run` balances exactly, as the README says: published = acked + in
/// flight + waiting + lost (+ dropped by a queue that drops its oldest); each queue's
/// own series adds up to the totals; nothing is in flight before anything was published.
fn balances(run: &AggregateRun, what: &str) {
    assert_eq!(run.series.len(), run.losses.len(), "{what}: losses in step");
    for (i, (x, losses)) in run.series.iter().zip(&run.losses).enumerate() {
        let accounted = x.acked + x.in_flight + x.backlog + x.lost + losses.dropped;
        assert_eq!(x.published, accounted, "{what} at {} s: {x:?}", x.t_s);
        assert!(
            x.delivered >= x.acked + x.in_flight,
            "{what} at {} s: {x:?}",
            x.t_s
        );
        if x.published == 0 {
            assert_eq!(x.in_flight, 0, "{what} at {} s", x.t_s);
        }
        let waiting: u64 = run.queue_series.iter().map(|q| q[i].waiting).sum();
        let in_flight: u64 = run.queue_series.iter().map(|q| q[i].in_flight).sum();
        assert_eq!((waiting, in_flight), (x.backlog, x.in_flight), "{what}");
    }
}

#[test]
fn the_aggregated_counters_add_up_at_every_sample() {
    // What the page shows of a fluid run must balance like a message-by-message run:
    // every copy published is acked, in flight, waiting or lost. Each amount was rounded
    // on its own, so a rate of 1/s served in 0.5 s showed 1 published, 1 acked and 1 in
    // flight at 1 s (half a copy each).
    let mut simple = crash_after_commit(100, 200.0);
    simple.commands.clear();
    let run = aggregate::run(&simple).unwrap();
    let x = at(&run.series, 1.0);
    assert_eq!((x.published, x.acked + x.in_flight), (1, 1), "{x:?}");
    balances(&run, "1/s served in 0.5 s");

    // Every built-in example the aggregated mode takes.
    let mut taken = 0;
    for name in examples::names() {
        let mut s = examples::load(name).unwrap();
        s.mode = RunMode::Aggregated;
        if let Ok(run) = aggregate::run(&s) {
            balances(&run, name);
            taken += 1;
        }
    }
    assert!(taken >= 5, "{taken} examples run aggregated");

    // Crashes (at once, after a commit, after a delivery; acked after commit or on
    // delivery, with a prefetch buffer), rate changes and a full queue dropping its
    // oldest, at rates that leave fractions everywhere.
    let mut crashes = crash_after_commit(1_000, 400.0);
    crashes.producers[0].arrivals.schedule = vec![
        RateSegment {
            from_s: 0.0,
            rate_per_s: 1.3,
        },
        RateSegment {
            from_s: 100.0,
            rate_per_s: 2.7,
        },
        RateSegment {
            from_s: 250.0,
            rate_per_s: 0.35,
        },
    ];
    crashes.consumers[0].replicas = 3;
    crashes.consumers[0].concurrency = 2;
    crashes.consumers[0].service = brokerlab_core::ServiceTime::Exponential { mean_s: 1.7 };
    crashes.queues[0].visibility_timeout_s = 40.0;
    for (at_s, c, point) in [
        (20.5, 1, CrashPoint::Now),
        (60.0, 2, CrashPoint::AfterReceive),
        (130.25, 0, CrashPoint::AfterCommitBeforeAck),
        (131.0, 1, CrashPoint::Now),
    ] {
        crashes.commands.push(ScheduledCommand {
            at_s,
            command: Command::CrashConsumer {
                consumer: ConsumerId::new(c),
                point,
                restart_after_s: Some(17.5),
            },
            unannounced: false,
        });
    }
    crashes.commands.push(ScheduledCommand {
        at_s: 180.0,
        command: Command::SetArrivals {
            producer: ProducerId::new(0),
            process: ArrivalProcess::Constant,
            schedule: vec![RateSegment {
                from_s: 0.0,
                rate_per_s: 4.1,
            }],
        },
        unannounced: false,
    });
    balances(
        &aggregate::run(&crashes).unwrap(),
        "crashes and rate changes",
    );
    let mut rabbit = crashes.clone();
    rabbit.queues[0].flavour = brokerlab_core::Flavour::Rabbitmq;
    balances(&aggregate::run(&rabbit).unwrap(), "on RabbitMQ");
    let mut on_delivery = crashes.clone();
    on_delivery.consumers[0].ack = brokerlab_core::AckMode::OnDelivery;
    on_delivery.consumers[0].prefetch = 7;
    balances(&aggregate::run(&on_delivery).unwrap(), "acked on delivery");
    let mut full = crashes.clone();
    full.queues[0].max_length = Some(40);
    full.queues[0].overflow = Some(Overflow::DropOldest);
    let run = aggregate::run(&full).unwrap();
    assert!(run.losses.last().unwrap().dropped > 0);
    balances(&run, "dropping the oldest");
}

/// A small run (both modes can take it) with a lease of `lease_s`, a consumer of
/// `service` and `prefetch`, on a queue of `flavour`, acking `ack`.
fn held(
    lease_s: f64,
    service: serde_json::Value,
    prefetch: u32,
    flavour: &str,
    ack: &str,
) -> Scenario {
    let v = json!({
        "version": 2, "seed": 1,
        "producers": [{ "arrivals": { "process": "constant", "schedule": [
            { "from_s": 0, "rate_per_s": 100 }, { "from_s": 10, "rate_per_s": 0 } ] } }],
        "queues": [{ "name": "q", "visibility_timeout_s": lease_s, "flavour": flavour }],
        "consumers": [{ "service": service, "prefetch": prefetch, "ack": ack }],
        "end_s": 60
    });
    Scenario::from_json(&v.to_string()).unwrap()
}

#[test]
fn a_lease_shorter_than_the_work_is_left_to_the_message_model() {
    // Work of 1 s under a 0.5 s lease: message by message every copy is delivered again
    // while still under way; the fluid would serve them once and say nothing.
    let fixed = |s: f64| json!({ "fixed": { "seconds": s } });
    let short = held(0.5, fixed(1.0), 1, "sqs", "after_commit");
    let mut sim = Simulation::new(short.clone()).unwrap();
    sim.run();
    let last = sim.series().last().unwrap();
    assert!(
        last.redelivered >= 50 && last.duplicate_effects >= 50,
        "{last:?}"
    );
    let e = aggregate::supports(&short).unwrap_err();
    assert_eq!(e.field, "queues[0].visibility_timeout_s");
    assert!(e.problem.contains("lease that can run out"), "{e}");
    let mut auto = short.clone();
    auto.mode = RunMode::Auto;
    assert_eq!(auto.run_mode().unwrap(), RunMode::Messages);
    // A lease that outlasts the work is modelled: exactly as long is too short (a lease's
    // end is a deadline); ten copies buffered ahead of 0.1 s each hold the last for 1 s.
    assert!(aggregate::supports(&held(1.0, fixed(0.999), 1, "sqs", "after_commit")).is_ok());
    assert!(aggregate::supports(&held(1.0, fixed(1.0), 1, "sqs", "after_commit")).is_err());
    assert!(aggregate::supports(&held(1.0, fixed(0.1), 10, "sqs", "after_commit")).is_err());
    assert!(aggregate::supports(&held(1.1, fixed(0.1), 10, "sqs", "after_commit")).is_ok());
    // An exponential time has a tail: 15 means, a 30 s lease and a 1 s mean are fine.
    let exp = |m: f64| json!({ "exponential": { "mean_s": m } });
    assert!(aggregate::supports(&held(30.0, exp(1.0), 1, "sqs", "after_commit")).is_ok());
    assert!(aggregate::supports(&held(10.0, exp(1.0), 1, "sqs", "after_commit")).is_err());
    // Acked on delivery, or kept by a heartbeat, nothing waits on the lease.
    assert!(aggregate::supports(&held(0.5, fixed(1.0), 1, "sqs", "on_delivery")).is_ok());
    let mut heartbeat = short.clone();
    heartbeat.consumers[0].extend_visibility = true;
    assert!(aggregate::supports(&heartbeat).is_ok());
    // A schedule that shortens the lease or slows the work counts too.
    let mut later = held(2.0, fixed(1.0), 1, "sqs", "after_commit");
    assert!(aggregate::supports(&later).is_ok());
    later.commands.push(ScheduledCommand {
        at_s: 5.0,
        command: Command::SetVisibilityTimeout {
            queue: "q".into(),
            seconds: 0.5,
        },
        unannounced: false,
    });
    assert!(aggregate::supports(&later).is_err());
}

#[test]
fn a_rabbitmq_consumer_timeout_shorter_than_the_work_is_left_to_the_message_model() {
    // RabbitMQ has no lease; its deadline on a delivery is the consumer timeout. Work of
    // 1 s under a 0.5 s visibility timeout is fine there (before, refused all the same);
    // under a 0.5 s consumer timeout every copy is taken back while still under way.
    let fixed = |s: f64| json!({ "fixed": { "seconds": s } });
    let mut s = held(0.5, fixed(1.0), 1, "rabbitmq", "after_commit");
    assert!(aggregate::supports(&s).is_ok());
    s.queues[0].consumer_timeout_s = Some(0.5);
    let e = aggregate::supports(&s).unwrap_err();
    assert_eq!(e.field, "queues[0].consumer_timeout_s");
    let mut sim = Simulation::new(s.clone()).unwrap();
    sim.run();
    assert!(sim.series().last().unwrap().redelivered >= 50);
    // A switch of flavour during the run makes either deadline count.
    let mut switched = held(0.5, fixed(1.0), 1, "rabbitmq", "after_commit");
    switched.commands.push(ScheduledCommand {
        at_s: 5.0,
        command: Command::SetFlavour {
            queue: "q".into(),
            flavour: brokerlab_core::Flavour::Sqs,
        },
        unannounced: false,
    });
    let e = aggregate::supports(&switched).unwrap_err();
    assert_eq!(e.field, "queues[0].visibility_timeout_s");
}

#[test]
fn rabbitmq_automatic_acks_are_left_to_the_message_model() {
    // RabbitMQ pushes a consumer that acks on delivery every waiting message (prefetch
    // does not apply); a crash of that consumer loses them all. The fluid sees a queue.
    let fixed = json!({ "fixed": { "seconds": 0.1 } });
    let mut s = held(1_800.0, fixed, 1, "rabbitmq", "on_delivery");
    s.commands.push(ScheduledCommand {
        at_s: 5.0,
        command: Command::CrashConsumer {
            consumer: ConsumerId::new(0),
            point: CrashPoint::Now,
            restart_after_s: Some(1.0),
        },
        unannounced: false,
    });
    let mut sim = Simulation::new(s.clone()).unwrap();
    sim.run();
    assert!(
        sim.series().last().unwrap().lost > 400,
        "the pushed backlog is lost"
    );
    let e = aggregate::supports(&s).unwrap_err();
    assert_eq!(e.field, "consumers[0].ack");
    let mut after = s.clone();
    after.consumers[0].ack = brokerlab_core::AckMode::AfterCommit;
    assert!(aggregate::supports(&after).is_ok());
}

/// A crash of consumer 0 at `at_s`, back one second later.
fn crash_at(s: &mut Scenario, at_s: f64) {
    s.commands.push(ScheduledCommand {
        at_s,
        command: Command::CrashConsumer {
            consumer: ConsumerId::new(0),
            point: CrashPoint::Now,
            restart_after_s: Some(1.0),
        },
        unannounced: false,
    });
}

#[test]
fn a_crash_of_a_consumer_that_acks_on_delivery_loses_its_prefetch_buffer_in_both() {
    // Two consumers of 100/s that ack on delivery, prefetch 50. At 300/s a line builds,
    // so each holds 50 copies: one under way, 49 buffered, all already acked. Message by
    // message a crash loses all 50; the fluid lost only the one under way (1 against 50).
    let on_delivery = |lambda: f64| {
        let mut s = steady(lambda, 20.0, 2);
        s.consumers[0].ack = brokerlab_core::AckMode::OnDelivery;
        s.consumers[0].prefetch = 50;
        crash_at(&mut s, 10.0);
        s
    };
    let lost = |series: &[Sample]| series.last().unwrap().lost;
    let (messages, fluid) = both(&on_delivery(300.0));
    assert!((48..=50).contains(&lost(&messages)), "{}", lost(&messages));
    close(
        lost(&messages),
        lost(&fluid.series),
        2,
        "lost with the buffer",
    );
    // What the buffer held left the line: the backlogs still agree after the crash.
    for t in [11.0, 15.0, 20.0] {
        close(
            at(&messages, t).backlog,
            at(&fluid.series, t).backlog,
            100,
            "backlog",
        );
    }
    for sample in &fluid.series {
        let accounted = sample.acked + sample.in_flight + sample.backlog + sample.lost;
        close(sample.published, accounted, 3, "the counters add up");
    }
    // Below capacity nothing waits in a buffer: at most the copy under way is lost.
    let (messages, fluid) = both(&on_delivery(150.0));
    assert!(lost(&messages) <= 1, "{}", lost(&messages));
    close(
        lost(&messages),
        lost(&fluid.series),
        1,
        "lost below capacity",
    );
    // A prefetch lowered before the crash holds less.
    let mut lowered = on_delivery(300.0);
    lowered.commands.push(ScheduledCommand {
        at_s: 5.0,
        command: Command::SetPrefetch {
            queue: "q".into(),
            prefetch: 10,
        },
        unannounced: false,
    });
    let (messages, fluid) = both(&lowered);
    assert!((8..=10).contains(&lost(&messages)), "{}", lost(&messages));
    close(
        lost(&messages),
        lost(&fluid.series),
        2,
        "lost with a smaller buffer",
    );
}

#[test]
fn a_command_at_the_end_time_itself_is_taken_in_both() {
    // A run with an end time takes a command at that very instant as its last step; the
    // fluid stopped just before applying it (no loss against 50). The schedule form offers
    // that instant, so both modes must take it.
    let mut s = steady(300.0, 20.0, 2);
    s.consumers[0].ack = brokerlab_core::AckMode::OnDelivery;
    s.consumers[0].prefetch = 50;
    s.end_s = Some(10.0);
    crash_at(&mut s, 10.0);
    let lost = |series: &[Sample]| series.last().unwrap().lost;
    let (messages, fluid) = both(&s);
    assert!((48..=50).contains(&lost(&messages)), "{}", lost(&messages));
    close(lost(&messages), lost(&fluid.series), 2, "lost at the end");
    assert_eq!(fluid.end_reason, EndReason::EndTime);
}

/// `count` requests at `rate` per second from 0, no end time, aggregated, against one
/// consumer of `service_s` per copy that keeps up.
fn counted(count: u64, rate: f64, service_s: f64) -> Scenario {
    let v = json!({
        "version": 4, "name": "agg-min", "seed": 1, "mode": "aggregated",
        "producers": [{ "name": "p", "count": count, "arrivals": { "process": "constant",
            "schedule": [{ "from_s": 0, "rate_per_s": rate }] } }],
        "queues": [{ "name": "q", "visibility_timeout_s": (2.0 * service_s).max(30.0) }],
        "consumers": [{ "name": "C", "service": { "fixed": { "seconds": service_s } },
                        "ack": "after_commit" }]
    });
    Scenario::from_json(&v.to_string()).unwrap()
}

/// A run of a producer with a count and no end time: drained once the count is out
/// (about `count / rate` seconds), every instant finite, everything published.
fn drains_when_the_count_runs_out(s: &Scenario) -> Result<(), TestCaseError> {
    let p = &s.producers[0];
    let (count, rate) = (p.count.unwrap(), p.arrivals.schedule[0].rate_per_s);
    let run = aggregate::run(s).unwrap();
    let what = format!("{count} at {rate}/s");
    prop_assert_eq!(run.end_reason, EndReason::Drained, "{}", what);
    let expected = count as f64 / rate;
    prop_assert!(
        run.end_s.is_finite() && (run.end_s - expected).abs() <= 1e-6 * expected + 1e-6,
        "{}: ends at {} s, not {} s",
        what,
        run.end_s,
        expected
    );
    // Float sums of rate × time: exact below a billion, a billionth off beyond.
    let slack = count / 1_000_000_000;
    let total = run.totals.published;
    prop_assert!(
        (total - count as f64).abs() <= 1e-6 * count as f64,
        "{}: published {}",
        what,
        total
    );
    for x in &run.series {
        // Sample times are whole microseconds: the last may round up past the end.
        prop_assert!(
            x.t_s.is_finite() && x.t_s <= run.end_s + 1e-6,
            "{}: {:?}",
            what,
            x
        );
        prop_assert!(x.published <= count + slack, "{}: {:?}", what, x);
    }
    let last = run.series.last().unwrap().published;
    prop_assert!(last.abs_diff(count) <= slack, "{}: {}", what, last);
    Ok(())
}

#[test]
fn a_count_that_runs_out_drains_the_run_instead_of_jumping_to_infinity() {
    // 10,000 at 3.6/s left about 10^-12 of a request over: its end rounded to now, the
    // clock jumped by the empty queue's infinite horizon and the run "ended" at end_s = ∞
    // with samples at 10^13 s and totals of NaN. Likewise mm4 with counts past the
    // message budget (aggregated by itself).
    drains_when_the_count_runs_out(&counted(10_000, 3.6, 0.2)).unwrap();
    for count in [50_000_001, 70_000_000, 123_456_789, 300_000_000] {
        let mut s = examples::load("mm4").unwrap();
        s.producers[0].count = Some(count);
        assert_eq!(s.run_mode().unwrap(), RunMode::Aggregated);
        drains_when_the_count_runs_out(&s).unwrap();
    }
}

#[test]
fn a_run_without_an_end_stops_at_the_ten_year_limit() {
    let run = aggregate::run(&counted(1_000_000_000_000_000, 3.6, 0.2)).unwrap();
    assert_eq!(run.end_reason, EndReason::TimeLimit);
    assert_eq!(run.end_s, TIME_S_MAX);
    assert!(run.series.iter().all(|x| x.t_s <= TIME_S_MAX));
    let published = run.series.last().unwrap().published as f64;
    assert!(
        (published / (3.6 * TIME_S_MAX) - 1.0).abs() < 1e-9,
        "{published}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    /// Any count at any rate (from a millisecond's worth to three years' worth, at 10^-3
    /// to 10^6 per second) drains when it runs out.
    #[test]
    fn any_count_at_any_rate_drains_when_it_runs_out(
        rate_exp in -3.0f64..6.0,
        duration_exp in -3.0f64..8.0,
        load in 0.01f64..0.99,
    ) {
        let rate = 10f64.powf(rate_exp);
        let count = (rate * 10f64.powf(duration_exp)).round().max(1.0) as u64;
        // One copy at a time, `load` of the consumer's time busy.
        drains_when_the_count_runs_out(&counted(count, rate, load / rate))?;
    }
}

/// The example "crash-after-commit" with `count` messages at 1 per second, sampled every
/// second up to `end_s`: the consumer crashes after its first commit, before the ack.
fn crash_after_commit(count: u64, end_s: f64) -> Scenario {
    let mut s = examples::load("crash-after-commit").unwrap();
    s.producers[0].count = Some(count);
    s.end_s = Some(end_s);
    s.sample_every_s = 1.0;
    s
}

/// What no run can show, whatever its mode: more acked than published, more delivered
/// than published and redelivered, work in flight before anything was published.
fn never_makes_up_messages(run: &AggregateRun) {
    for x in &run.series {
        assert!(x.acked <= x.published, "{x:?}");
        assert!(x.delivered <= x.published + x.redelivered, "{x:?}");
        assert!(x.redelivered <= x.delivered, "{x:?}");
        if x.published == 0 {
            assert_eq!((x.delivered, x.in_flight), (0, 0), "{x:?}");
        }
    }
    let t = &run.totals;
    assert!(t.served <= t.published + t.redelivered + 1e-9, "{t:?}");
}

#[test]
fn a_crash_after_commit_strikes_after_a_commit_and_makes_up_nothing() {
    // A crash armed at 0 s for after the next commit struck at once, on the half copy the
    // flow's steady state said was in flight although nothing had arrived yet: 100
    // published, 101 acked, 100.5 served, and a first sample with 1 delivered and
    // nothing published.
    let s = crash_after_commit(100, 200.0);
    let (messages, fluid) = both(&s);
    never_makes_up_messages(&fluid);
    let (m, f) = (messages.last().unwrap(), fluid.series.last().unwrap());
    assert_eq!(
        (f.published, f.acked, f.delivered, f.redelivered),
        (100, 100, 101, 1),
        "{f:?}"
    );
    assert_eq!(
        (m.published, m.acked, m.delivered, m.redelivered),
        (f.published, f.acked, f.delivered, f.redelivered)
    );
    assert_eq!(fluid.totals.served, 100.0);
    assert_eq!(fluid.totals.abandoned, 1.0);

    // Nothing arrives before 50 s: the crash waits for the first commit, so the
    // consumer is down from about 51 s to 151 s (not from 0 s to 100 s) and the line
    // grows by one a second meanwhile, in both modes.
    let mut late = crash_after_commit(1_000, 300.0);
    late.producers[0].arrivals.schedule = vec![
        RateSegment {
            from_s: 0.0,
            rate_per_s: 0.0,
        },
        RateSegment {
            from_s: 50.0,
            rate_per_s: 1.0,
        },
    ];
    if let Command::CrashConsumer {
        restart_after_s, ..
    } = &mut late.commands[0].command
    {
        *restart_after_s = Some(100.0);
    }
    let (messages, fluid) = both(&late);
    never_makes_up_messages(&fluid);
    for t in [100.0, 140.0] {
        close(
            at(&messages, t).backlog,
            at(&fluid.series, t).backlog,
            2,
            "backlog while the consumer is down",
        );
    }
    close(at(&fluid.series, 140.0).backlog, 89, 1, "down since 51 s");
}

#[test]
fn a_crash_after_receive_strikes_at_a_delivery() {
    // After its next delivery, before any work: the copy it received comes back after
    // the lease and is delivered again, as message by message.
    let mut s = crash_after_commit(100, 200.0);
    if let Command::CrashConsumer { point, .. } = &mut s.commands[0].command {
        *point = CrashPoint::AfterReceive;
    }
    let (messages, fluid) = both(&s);
    never_makes_up_messages(&fluid);
    let (m, f) = (messages.last().unwrap(), fluid.series.last().unwrap());
    assert_eq!(
        (m.published, m.acked, m.delivered, m.redelivered),
        (f.published, f.acked, f.delivered, f.redelivered),
        "{f:?}"
    );
    assert_eq!(f.redelivered, 1);
}

#[test]
fn a_crash_before_anything_arrived_abandons_nothing() {
    // The flow's steady state had half a copy in flight at 0 s, before anything arrived,
    // and the crash abandoned it: a redelivery of a message never published.
    let mut s = crash_after_commit(100, 200.0);
    if let Command::CrashConsumer { point, .. } = &mut s.commands[0].command {
        *point = CrashPoint::Now;
    }
    let (messages, fluid) = both(&s);
    never_makes_up_messages(&fluid);
    assert_eq!(fluid.totals.abandoned, 0.0);
    let (m, f) = (messages.last().unwrap(), fluid.series.last().unwrap());
    assert_eq!((m.redelivered, f.redelivered), (0, 0));
    assert_eq!((f.published, f.acked, f.delivered), (100, 100, 100));
}
