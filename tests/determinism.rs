//! The same scenario gives the same run on every platform: this test runs natively
//! (`cargo test`) and in the browser (`cargo test --target wasm32-unknown-unknown`), and
//! both must find the same fingerprint — the one the core's own native test asserts.

use brokerlab_app::model::player::Player;
use brokerlab_core::{examples, fingerprint, Scenario, Simulation};

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

/// `fingerprint` of the burst example cut at 5 s (computed natively on x86-64).
const BURST_5S_FINGERPRINT: u64 = 0x28f2_8a8c_55d8_c3d5;

fn burst_5s() -> Scenario {
    let mut s = examples::load("burst").expect("burst is a built-in example");
    s.end_s = Some(5.0);
    s
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn the_burst_runs_identically_on_every_platform() {
    let scenario = burst_5s();
    assert_eq!(fingerprint(&scenario), Ok(BURST_5S_FINGERPRINT));
    assert_eq!(
        fingerprint(&scenario),
        fingerprint(&scenario.clone()),
        "a run does not depend on the clock"
    );
    let mut other = scenario;
    other.seed += 1;
    assert_ne!(
        fingerprint(&other),
        Ok(BURST_5S_FINGERPRINT),
        "another seed is another run"
    );
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn playing_frame_by_frame_reaches_the_same_state_as_running_at_once() {
    let mut whole = Simulation::new(burst_5s()).expect("valid");
    whole.run();
    let mut player = Player::new(burst_5s()).expect("valid");
    // Uneven frames, as a real display gives them.
    let mut frames = [16.0, 17.0, 33.0, 8.0, 16.7].iter().cycle();
    while !player
        .advance(*frames.next().expect("cycles"), 2.0)
        .finished
    {}
    let sim = player.sim();
    assert_eq!(sim.counters(), whole.counters());
    assert_eq!(sim.steps(), whole.steps());
    assert_eq!(sim.now_us(), whole.now_us());
    assert_eq!(sim.series(), whole.series());
    assert_eq!(sim.backlog(), whole.backlog());
    assert_eq!(sim.in_flight(), whole.in_flight());
}
