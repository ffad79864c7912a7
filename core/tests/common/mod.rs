//! Helpers shared by the story tests.

use brokerlab_core::{examples, invariants, Fact, Scenario, Simulation};

pub fn example(name: &str) -> Scenario {
    examples::load(name).unwrap_or_else(|| panic!("example {name}"))
}

/// Runs to the end, checking the accounting invariant after every step; returns every fact.
pub fn run(s: Scenario) -> (Simulation, Vec<Fact>) {
    let mut sim = Simulation::new(s).unwrap();
    let mut facts = Vec::new();
    while let Some(step) = sim.step() {
        facts.extend_from_slice(step.facts);
        invariants::check(&sim).unwrap_or_else(|e| panic!("step {}: {e}", sim.steps()));
    }
    (sim, facts)
}
