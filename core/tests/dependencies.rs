//! Dependencies with a capacity, and the failure modes the built-in examples show: a retry
//! storm, backoff spreading it, a retry budget and a circuit breaker stopping it, more
//! consumers lowering goodput, a metastable collapse that outlives its trigger, and
//! admission control (from the start, or applied mid-run) preventing or ending it.
//!
//! Goodput is copies finished per second (the flow series); "calls" are the requests a
//! dependency admitted per second, retries included.

use brokerlab_core::invariants;
use brokerlab_core::{examples, secs_to_us, Admission, Command, Fact, Scenario, Simulation};

fn run(name: &str) -> Simulation {
    let mut sim = Simulation::new(examples::load(name).expect("built in")).expect("valid");
    sim.run();
    sim
}

/// Mean of `value` over the samples taken in (from_s, to_s].
fn mean(sim: &Simulation, from_s: f64, to_s: f64, value: impl Fn(usize) -> f64) -> f64 {
    let picked: Vec<f64> = sim
        .series()
        .iter()
        .enumerate()
        .filter(|(_, s)| s.t_s > from_s && s.t_s <= to_s)
        .map(|(i, _)| value(i))
        .collect();
    assert!(!picked.is_empty(), "no samples in ({from_s}, {to_s}]");
    picked.iter().sum::<f64>() / picked.len() as f64
}

fn goodput(sim: &Simulation, from_s: f64, to_s: f64) -> f64 {
    mean(sim, from_s, to_s, |i| sim.flow_series()[i].goodput_per_s)
}

fn calls(sim: &Simulation, from_s: f64, to_s: f64) -> f64 {
    mean(sim, from_s, to_s, |i| {
        sim.dependency_series(0)[i].calls_per_s
    })
}

/// Whether some step of a fresh run of `scenario` has a fact matching `wanted`.
fn some_fact(scenario: Scenario, wanted: impl Fn(&Fact) -> bool) -> bool {
    let mut sim = Simulation::new(scenario).expect("valid");
    while let Some(step) = sim.step() {
        if step.facts.iter().any(&wanted) {
            return true;
        }
    }
    false
}

#[test]
fn a_retry_storm_multiplies_the_load_and_collapses_goodput() {
    let sim = run("dep-retry-storm");
    // Before the slowdown (10 s–13 s): the arrivals (70/s) are served.
    assert!(goodput(&sim, 3.0, 10.0) > 60.0);
    assert!(calls(&sim, 3.0, 10.0) < 80.0);
    // After it: about 200 calls per second, almost none answered in time.
    assert!(calls(&sim, 15.0, 60.0) > 2.5 * 70.0);
    assert!(goodput(&sim, 15.0, 60.0) < 2.0);
    let db = sim.dependency(0).unwrap();
    assert!(db.counters.wasted > db.counters.answered);
}

#[test]
fn backoff_spreads_the_first_retries_but_does_not_stop_the_storm() {
    let storm = run("dep-retry-storm");
    let backoff = run("dep-backoff");
    // In the slowdown's second second, immediate retries double the calls; spread
    // retries stay near the arrival rate.
    assert!(calls(&storm, 11.0, 12.0) > 1.5 * calls(&backoff, 11.0, 12.0));
    assert!(goodput(&backoff, 11.0, 12.0) > 2.0 * goodput(&storm, 11.0, 12.0));
    // Once first attempts time out too, backoff alone does not bring goodput back.
    assert!(goodput(&backoff, 30.0, 60.0) < 2.0);
}

#[test]
fn a_retry_budget_stops_the_storm_and_dead_letters_instead() {
    let sim = run("dep-retry-budget");
    assert!(goodput(&sim, 3.0, 10.0) > 60.0);
    assert!(goodput(&sim, 20.0, 60.0) > 60.0, "goodput recovers");
    assert!(calls(&sim, 20.0, 60.0) < 80.0, "no storm");
    let db = sim.dependency(0).unwrap();
    assert!(db.counters.budget_denied > 0);
    assert_eq!(
        sim.summary().dead_lettered_end,
        db.counters.budget_denied,
        "every denied retry is a dead letter"
    );
    let scenario = examples::load("dep-retry-budget").unwrap();
    assert!(some_fact(scenario, |f| matches!(
        f,
        Fact::DeadLettered {
            reason: brokerlab_core::step::DeadLetterReason::RetryBudgetExhausted,
            ..
        }
    )));
}

#[test]
fn a_circuit_breaker_opens_fails_fast_and_closes_again() {
    let sim = run("dep-breaker");
    assert!(goodput(&sim, 3.0, 10.0) > 60.0);
    assert!(goodput(&sim, 20.0, 60.0) > 60.0, "goodput recovers");
    let db = sim.dependency(0).unwrap();
    assert!(
        db.counters.short_circuited > 0,
        "calls failed fast while open"
    );
    let scenario = examples::load("dep-breaker").unwrap();
    assert!(some_fact(scenario.clone(), |f| matches!(
        f,
        Fact::BreakerOpened { .. }
    )));
    assert!(some_fact(scenario, |f| matches!(
        f,
        Fact::BreakerClosed { .. }
    )));
}

#[test]
fn more_consumers_on_a_saturated_database_lower_goodput() {
    let sim = run("dep-scale-out");
    // Ten requests in flight: each takes 0.028 s, about 357 answered per second.
    let before = goodput(&sim, 3.0, 20.0);
    assert!(before > 300.0, "{before}");
    // Fifty in flight take 0.108 s each, past the 0.1 s timeout: the database is busier
    // than ever and almost nothing it does is useful.
    let after = goodput(&sim, 25.0, 40.0);
    assert!(after < before / 5.0, "{after}");
    assert!(calls(&sim, 25.0, 40.0) > calls(&sim, 3.0, 20.0));
}

#[test]
fn a_metastable_collapse_outlives_its_trigger() {
    let sim = run("dep-metastable");
    assert!(goodput(&sim, 3.0, 10.0) > 60.0, "before the trigger");
    assert!(goodput(&sim, 11.0, 13.0) < 30.0, "during the slowdown");
    // The slowdown ended at 13 s; goodput stays collapsed to the end.
    assert!(goodput(&sim, 20.0, 60.0) < 1.0, "after the trigger");
    let series = sim.dependency_series(0);
    assert!(
        series[59].queued > series[20].queued,
        "the line keeps growing"
    );
}

#[test]
fn the_load_prediction_warns_when_retries_exceed_capacity() {
    let mut sim = Simulation::new(examples::load("dep-metastable").unwrap()).unwrap();
    sim.run_until(secs_to_us(8.0));
    let calm = sim.dependency_load(0).unwrap();
    assert!((calm.capacity_per_s - 100.0).abs() < 1e-9);
    assert!(!calm.overloaded, "{calm:?}");
    sim.run_until(secs_to_us(30.0));
    let storm = sim.dependency_load(0).unwrap();
    assert!(storm.overloaded, "{storm:?}");
    assert!(storm.offered_per_s > 1.1 * storm.capacity_per_s);
    // Most of the offered load is retries: first attempts alone fit.
    assert!(storm.first_attempts_per_s < storm.capacity_per_s);
}

#[test]
fn admission_control_prevents_the_metastable_failure() {
    let sim = run("dep-admission");
    assert!(goodput(&sim, 3.0, 10.0) > 60.0);
    assert!(
        goodput(&sim, 30.0, 60.0) > 60.0,
        "recovered after the slowdown"
    );
    // Little is wasted: the collapse's wasted work is what admission control sheds.
    let collapsed = run("dep-metastable").dependency(0).unwrap().counters.wasted;
    let wasted = sim.dependency(0).unwrap().counters.wasted;
    assert!(wasted * 10 < collapsed, "{wasted} vs {collapsed}");
}

#[test]
fn shedding_by_a_command_mid_run_ends_the_collapse() {
    let mut sim = Simulation::new(examples::load("dep-metastable").unwrap()).unwrap();
    sim.run_until(secs_to_us(30.0));
    let shed = Command::SetAdmission {
        dependency: "db".into(),
        admission: Some(Admission {
            max_queue_age_s: 0.3,
        }),
    };
    sim.command(shed).expect("a valid command");
    sim.run();
    assert!(
        goodput(&sim, 20.0, 30.0) < 1.0,
        "collapsed until the command"
    );
    assert!(goodput(&sim, 45.0, 60.0) > 60.0, "recovered after it");
    // The recorded command replays: the same run from its scenario.
    let replay = brokerlab_core::fingerprint(sim.scenario()).unwrap();
    assert_eq!(replay, brokerlab_core::fingerprint(sim.scenario()).unwrap());
    let mut again = Simulation::new(sim.scenario().clone()).unwrap();
    again.run();
    assert_eq!(again.flow_series(), sim.flow_series());
}

#[test]
fn accounting_holds_after_every_step_with_dependencies() {
    for name in [
        "dep-metastable",
        "dep-breaker",
        "dep-admission",
        "dep-retry-budget",
    ] {
        let mut scenario = examples::load(name).unwrap();
        scenario.end_s = Some(16.0);
        let mut sim = Simulation::new(scenario).unwrap();
        while sim.step().is_some() {
            if let Err(e) = invariants::check(&sim) {
                panic!("{name}, step {}: {e}", sim.steps());
            }
        }
    }
}

#[test]
fn a_crashed_caller_leaves_its_request_as_wasted_work() {
    let mut scenario = examples::load("dep-metastable").unwrap();
    scenario.end_s = Some(14.0);
    let mut sim = Simulation::new(scenario).unwrap();
    sim.run_until(secs_to_us(12.0));
    let crash = Command::CrashConsumer {
        consumer: brokerlab_core::ConsumerId::new(0),
        point: brokerlab_core::CrashPoint::Now,
        restart_after_s: Some(0.5),
    };
    let wasted_before = sim.dependency(0).unwrap().counters.wasted;
    sim.command(crash).unwrap();
    while sim.step().is_some() {
        invariants::check(&sim).unwrap();
    }
    assert!(sim.dependency(0).unwrap().counters.wasted > wasted_before);
}

#[test]
fn dependency_names_are_checked() {
    let mut scenario = examples::load("dep-metastable").unwrap();
    scenario.consumers[0].calls = "nowhere".into();
    let e = scenario.validate().unwrap_err();
    assert_eq!(e.field, "consumers[0].calls");
    let scenario = examples::load("dep-metastable").unwrap();
    let bad = Command::SlowDependency {
        dependency: "nowhere".into(),
        factor: 2.0,
        for_s: 1.0,
    };
    let mut sim = Simulation::new(scenario).unwrap();
    assert!(sim.command(bad).is_err());
}

#[test]
fn a_slowdown_command_is_recorded_and_replayed() {
    let mut scenario = examples::load("dep-metastable").unwrap();
    scenario.dependencies[0].slowdowns.clear();
    scenario.end_s = Some(30.0);
    let mut sim = Simulation::new(scenario).unwrap();
    sim.run_until(secs_to_us(10.0));
    let slow = Command::SlowDependency {
        dependency: "db".into(),
        factor: 5.0,
        for_s: 3.0,
    };
    sim.command(slow).unwrap();
    sim.run();
    assert!(
        goodput(&sim, 20.0, 30.0) < 1.0,
        "the commanded slowdown triggers it"
    );
    let mut again = Simulation::new(sim.scenario().clone()).unwrap();
    again.run();
    assert_eq!(again.flow_series(), sim.flow_series());
}

#[test]
fn the_work_estimate_counts_dependency_calls() {
    let with = examples::load("dep-metastable").unwrap();
    let mut without = with.clone();
    without.consumers[0].calls.clear();
    let (a, b) = (with.work_estimate().steps, without.work_estimate().steps);
    assert!(a > 2.0 * b - with.work_estimate().messages, "{a} vs {b}");
}

#[test]
fn the_runner_reports_goodput_and_each_dependency() {
    let mut scenario = examples::load("dep-metastable").unwrap();
    scenario.end_s = Some(20.0);
    let mut sim = Simulation::new(scenario).unwrap();
    sim.run();
    let report = brokerlab_core::Report::of(&sim);
    let csv = report.series_csv();
    let header = csv.lines().next().unwrap();
    assert!(
        header.starts_with("t_s,backlog,"),
        "the usual columns first"
    );
    assert!(header.contains(",goodput_per_s,throughput_per_s,db_in_service,db_queued,"));
    let columns = header.split(',').count();
    assert!(csv.lines().all(|l| l.split(',').count() == columns));
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    assert_eq!(json["dependencies"][0]["name"], "db");
    assert!(json["dependencies"][0]["load"]["overloaded"]
        .as_bool()
        .unwrap());
    let goodput = json["flow"]["goodput_per_s"].as_f64().unwrap();
    let throughput = json["flow"]["throughput_per_s"].as_f64().unwrap();
    assert!(
        goodput < throughput,
        "retries are attempts, not completions"
    );
    // Without dependencies, the CSV keeps exactly its columns.
    let mut plain = Simulation::new(examples::load("mm1").unwrap()).unwrap();
    plain.run_until(secs_to_us(5.0));
    let plain = brokerlab_core::Report::of(&plain);
    assert_eq!(
        plain.series_csv(),
        brokerlab_core::series_csv(&plain.series)
    );
}

/// Every combination of the callers' protections, a tiny line, an outage, batches and a
/// crashed caller: the accounting holds after every step and the run ends.
#[test]
fn every_combination_of_protections_keeps_the_accounting() {
    use brokerlab_core::{BreakerSpec, Outage, RetryBudget, ServiceTime};
    for combo in 0..16u32 {
        let bit = |k: u32| combo & (1 << k) != 0;
        let mut s = examples::load("dep-metastable").unwrap();
        s.seed = u64::from(combo);
        // The slowdown starts at 10 s, the crash at 10.5 s; checking every step is costly,
        // so the run stops at 12 s.
        s.end_s = Some(12.0);
        let db = &mut s.dependencies[0];
        db.breaker = bit(0).then_some(BreakerSpec {
            failure_threshold: 3,
            open_s: 0.5,
        });
        db.retry_budget = bit(1).then_some(RetryBudget {
            max_tokens: 5.0,
            token_ratio: 0.2,
        });
        db.admission = bit(2).then_some(Admission {
            max_queue_age_s: 0.2,
        });
        if bit(3) {
            db.queue_max = Some(5);
            db.outages.push(Outage {
                from_s: 11.2,
                until_s: 11.6,
            });
        }
        if combo % 3 == 0 {
            db.contention = 0.1;
            db.service = ServiceTime::Fixed { seconds: 0.05 };
            s.consumers[0].batch_size = 2;
            s.consumers[0].retry.backoff_base_s = 0.05;
            s.consumers[0].retry.backoff_cap_s = 0.5;
        }
        let mut sim = Simulation::new(s).unwrap();
        sim.run_until(secs_to_us(10.5));
        let crash = Command::CrashConsumer {
            consumer: brokerlab_core::ConsumerId::new(combo % 6),
            point: brokerlab_core::CrashPoint::Now,
            restart_after_s: Some(1.0),
        };
        sim.command(crash).unwrap();
        while sim.step().is_some() {
            if let Err(e) = invariants::check(&sim) {
                panic!("combination {combo}, step {}: {e}", sim.steps());
            }
        }
        assert_eq!(sim.end_reason(), Some(brokerlab_core::EndReason::EndTime));
    }
}

#[test]
fn the_phases_ahead_list_planned_windows_and_a_commanded_slowdown_s_end() {
    // dep-metastable: five times slower from 10 s to 13 s. What the page's capacity μ
    // follows: the factor in force from each corner on, now first.
    let mut sim =
        Simulation::new(examples::load("dep-metastable").expect("built in")).expect("valid");
    assert_eq!(
        sim.dependency_phases(0),
        [
            (0, 1.0, false),
            (secs_to_us(10.0), 5.0, false),
            (secs_to_us(13.0), 1.0, false)
        ]
    );
    sim.run_until(secs_to_us(20.0));
    sim.command(Command::SlowDependency {
        dependency: "db".into(),
        factor: 3.0,
        for_s: 2.0,
    })
    .expect("valid");
    let now = sim.now_us();
    assert_eq!(
        sim.dependency_phases(0),
        [(now, 3.0, false), (now + secs_to_us(2.0), 1.0, false)],
        "past windows are left out"
    );
    assert!(sim.dependency_phases(7).is_empty(), "no such dependency");
    let view = sim
        .consumer(brokerlab_core::ConsumerId::new(0))
        .expect("a worker");
    assert_eq!((view.dependency, view.batch_size), (Some(0), 1));
}
