//! Replays a scenario file, checking the accounting invariant after every step:
//! `cargo run -p brokerlab-core --example check_file -- FILE.json`.
use brokerlab_core::{invariants, Scenario, Simulation};

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: check_file FILE.json");
    let text = std::fs::read_to_string(&path).expect("readable file");
    let scenario = Scenario::from_json(&text).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(scenario).unwrap();
    while let Some(step) = sim.step() {
        let index = step.index;
        if let Err(e) = invariants::check(&sim) {
            println!("after step {index} at {} µs: {e}", sim.now_us());
            std::process::exit(1);
        }
    }
    println!("ok: {} steps, {:?}", sim.steps(), sim.counters());
}
