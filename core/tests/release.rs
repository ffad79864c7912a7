//! Releasing finished messages and copies changes no step: every built-in example, run
//! with nothing kept beyond what is live, takes the same steps as with the default
//! window, and the accounting invariant holds after each of them.

use std::hash::{Hash, Hasher};

use brokerlab_core::{examples, invariants, Simulation};

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
