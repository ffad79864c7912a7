//! Same scenario and seed ⇒ the same run, step for step; another seed ⇒ another run.

use brokerlab_core::{
    examples, fingerprint, Command, ConsumerId, CrashPoint, Scenario, Simulation,
};

/// The fixed scenario whose fingerprint is pinned here and in the browser test
/// (tests/web.rs in the app): the first 5 s of the burst.
fn pinned() -> Scenario {
    let mut s = examples::load("burst").unwrap();
    s.end_s = Some(5.0);
    s
}

/// Pinned fingerprint of `pinned()`. The wasm test in the browser asserts the same value,
/// so a native run and a browser run are proven identical. If a deliberate model change
/// alters it, update both places.
pub const PINNED_FINGERPRINT: u64 = 2_950_573_041_221_419_989;

#[test]
fn same_seed_same_steps() {
    for name in ["burst", "crash-after-commit", "short-lease"] {
        let mut s = examples::load(name).unwrap();
        s.end_s = Some(s.end_s.unwrap_or(20.0).min(20.0));
        assert_eq!(fingerprint(&s).unwrap(), fingerprint(&s).unwrap(), "{name}");
    }
}

#[test]
fn different_seed_different_steps() {
    let a = pinned();
    let mut b = pinned();
    b.seed += 1;
    assert_ne!(fingerprint(&a).unwrap(), fingerprint(&b).unwrap());
}

#[test]
fn pinned_fingerprint_matches_the_browser() {
    assert_eq!(fingerprint(&pinned()).unwrap(), PINNED_FINGERPRINT);
}

#[test]
fn a_recorded_command_replays_exactly() {
    // Play, crash a consumer by command mid-run, continue; then replay the recorded
    // scenario from scratch: every step must be the same.
    let mut live = Simulation::new(pinned()).unwrap();
    live.run_until(2_000_000);
    live.command(Command::CrashConsumer {
        consumer: ConsumerId::new(3),
        point: CrashPoint::Now,
        restart_after_s: Some(0.5),
    })
    .unwrap();
    live.run_until(3_000_000);
    live.command(Command::CrashConsumer {
        consumer: ConsumerId::new(5),
        point: CrashPoint::AfterCommitBeforeAck,
        restart_after_s: None,
    })
    .unwrap();
    live.run();
    let recorded = live.scenario().clone();
    assert_eq!(recorded.interventions.len(), 2);
    assert_eq!(live.counters().crashes, 2);

    let mut replay = Simulation::new(recorded.clone()).unwrap();
    replay.run();
    assert_eq!(replay.counters(), live.counters());
    assert_eq!(replay.steps(), live.steps());
    assert_eq!(replay.summary(), live.summary());
    // And the recorded scenario survives a JSON round trip (a share link or a file).
    let back = Scenario::from_json(&recorded.to_json_pretty()).unwrap();
    assert_eq!(back, recorded);
    assert_eq!(fingerprint(&back).unwrap(), fingerprint(&recorded).unwrap());
}

#[test]
fn stepping_back_is_re_simulation_to_a_step() {
    let scenario = pinned();
    let mut a = Simulation::new(scenario.clone()).unwrap();
    for _ in 0..5_000 {
        a.step();
    }
    let (t, counters) = (a.now_us(), a.counters().clone());
    for _ in 0..100 {
        a.step();
    }
    // "Step back 100": rebuild and run to step 5,000.
    let mut b = Simulation::new(scenario).unwrap();
    while b.steps() < 5_000 {
        b.step();
    }
    assert_eq!((b.now_us(), b.counters()), (t, &counters));
}
