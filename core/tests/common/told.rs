//! A run told fact by fact: each fact with its instant and its English sentence, the
//! invariants checked after every step. Each test file uses what it needs of it.
#![allow(dead_code)]

use brokerlab_core::lang::Lang;
use brokerlab_core::{invariants, narration, Fact, Micros, Scenario, Simulation};

/// A fact, the instant of its step, and its English sentence.
pub type Told = (Micros, Fact, String);

/// Runs to the end, checking the invariants after every step; the simulation at the end
/// and every fact told.
pub fn run_told(s: Scenario) -> (Simulation, Vec<Told>) {
    let mut sim = Simulation::new(s).unwrap();
    let mut facts = Vec::new();
    while let Some(step) = sim.step() {
        let step_facts = step.facts.to_vec();
        invariants::check(&sim).unwrap_or_else(|e| panic!("step {}: {e}", sim.steps()));
        let now = sim.now_us();
        for f in step_facts {
            let text = narration::describe(&sim, &f, Lang::En);
            facts.push((now, f, text));
        }
    }
    (sim, facts)
}

fn find(facts: &[Told], is: impl Fn(&Fact) -> bool) -> Option<&Told> {
    facts.iter().find(|(_, f, _)| is(f))
}

/// The instant of the first fact `is` accepts.
pub fn first_time(facts: &[Told], is: impl Fn(&Fact) -> bool) -> Option<Micros> {
    find(facts, is).map(|(t, _, _)| *t)
}

/// The first fact `is` accepts, told; the test fails if there is none.
#[track_caller]
pub fn first(facts: &[Told], is: impl Fn(&Fact) -> bool) -> &Told {
    find(facts, is).expect("a fact of the kind asked for")
}
