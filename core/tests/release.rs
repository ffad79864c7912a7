//! Releasing finished messages and copies changes no step: every built-in example, run
//! with nothing kept beyond what is live, takes the same steps as with the default
//! window, and the accounting invariant holds after each of them.

use std::hash::{Hash, Hasher};

use brokerlab_core::{examples, invariants, Scenario, Simulation};

/// Hash of the first `steps` steps (index, time, facts), the summary, and how many
/// messages were released.
fn run_hash(mut sim: Simulation, steps: u64, check: bool) -> (u64, String, u64) {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    while let Some(step) = sim.step() {
        step.index.hash(&mut h);
        step.time_us.hash(&mut h);
        format!("{:?}", step.facts).hash(&mut h);
        if check {
            if let Err(e) = invariants::check(&sim) {
                panic!("after step {}: {e}", sim.steps());
            }
        }
        if sim.steps() >= steps {
            break;
        }
    }
    (
        h.finish(),
        format!("{:?}", sim.summary()),
        sim.retired().messages,
    )
}

#[test]
fn releasing_early_changes_no_step_of_any_example() {
    let mut released = 0;
    for name in examples::message_by_message() {
        let scenario = examples::load(name).unwrap();
        let steps = 20_000;
        let default = run_hash(Simulation::new(scenario.clone()).unwrap(), steps, false);
        let mut eager = Simulation::new(scenario).unwrap();
        eager.set_recent_window(0);
        let (hash, summary, retired) = run_hash(eager, steps, true);
        assert_eq!((hash, summary), (default.0, default.1), "example {name}");
        released += retired;
    }
    assert!(
        released > 10_000,
        "the examples did release records: {released}"
    );
}

/// A copy out for delivery whose lease runs out goes back to its place in line, and
/// its time to live with it: the TTL timer set when it first entered the line is moot
/// while it is out, and live again once it is back. The pruning of moot timers (eager
/// with no recent window) must keep it: it once dropped every TTL timer of a copy not
/// waiting, so a copy requeued by its lease never expired.
#[test]
fn pruning_moot_timers_keeps_the_time_to_live_of_a_copy_out_for_delivery() {
    let scenario = Scenario::from_json(
        r#"{
          "version": 3,
          "name": "ttl-through-a-lost-lease",
          "seed": 3,
          "producers": [
            { "name": "P", "arrivals": { "process": "constant", "schedule": [{ "from_s": 0, "rate_per_s": 10 }] }, "count": 40 }
          ],
          "queues": [{ "name": "q", "visibility_timeout_s": 1, "ttl_s": 2.5 }],
          "consumers": [{ "name": "C", "service": { "fixed": { "seconds": 3 } }, "prefetch": 1, "ack": "after_commit" }],
          "end_s": 60
        }"#,
    )
    .unwrap();
    let mut whole = Simulation::new(scenario.clone()).unwrap();
    whole.run();
    let c = whole.counters();
    // Leases run out, and copies back in line after one expire.
    assert!(c.leases_expired > 0 && c.expired > 0, "{c:?}");
    let default = run_hash(Simulation::new(scenario.clone()).unwrap(), u64::MAX, false);
    let mut eager = Simulation::new(scenario).unwrap();
    eager.set_recent_window(0);
    let (hash, summary, _) = run_hash(eager, u64::MAX, true);
    assert_eq!((hash, summary), (default.0, default.1));
}

/// What the release sweeps visited besides the records (holdings and references
/// gathered) while one slow member drains a log of `records`, appended at 100,000/s and
/// served at 1,000/s, kept to the end (no retention).
fn sweep_visits_of_a_log_drain(records: u64) -> u64 {
    let json = format!(
        r#"{{"version": 2, "name": "slow-group", "seed": 1,
            "producers": [{{"name": "p", "target": "l", "count": {records},
                "arrivals": {{"process": "constant",
                    "schedule": [{{"from_s": 0, "rate_per_s": 100000}}]}}}}],
            "logs": [{{"name": "l", "partitions": 1}}],
            "groups": [{{"name": "g", "log": "l", "members": 1,
                "service": {{"fixed": {{"seconds": 0.001}}}},
                "commit": "after_processing"}}]}}"#
    );
    let mut sim = Simulation::new(Scenario::from_json(&json).unwrap()).unwrap();
    sim.run();
    assert_eq!(sim.counters().effects_applied, records, "drained");
    sim.sweep_visits()
}

/// Each sweep gathers every retained record's message; a drain opens its records one
/// by one, and the walks that pack them again must wait for more openings the more is
/// retained. They did not: a walk each 1,024 deliveries, so four times the records cost
/// nineteen times the visits (and the run's time). Counts visits, not time.
#[test]
fn draining_a_long_log_costs_sweeps_linear_in_its_length() {
    let short = sweep_visits_of_a_log_drain(100_000);
    let long = sweep_visits_of_a_log_drain(400_000);
    // Linear: about 4.9 (the shorter drain is a little cheaper per record).
    assert!(
        long <= 6 * short,
        "4 times the records, {:.1} times the visits ({short} then {long})",
        long as f64 / short as f64
    );
    // A walk of opened records visits at most sixteen per record opened (a drain opens
    // each once), a sweep of the ring four per record pushed: about 17 here, 347 before.
    assert!(long <= 20 * 400_000, "{long} visits for 400,000 records");
}
