//! Property: over random scenarios and random crash schedules, after every step each
//! message is in exactly one fate and every structure agrees (see `invariants::check`).
//! A failure prints the scenario as JSON, seed included, so `brokerlab trace` replays it.

use brokerlab_core::{
    invariants, AckMode, ArrivalProcess, Arrivals, ConsumerSpec, CrashPoint, Fault, ProducerSpec,
    QueueSpec, RateSegment, Scenario, ScheduledFault, ServiceTime, Simulation, SCENARIO_VERSION,
};
use proptest::prelude::*;

fn service() -> impl Strategy<Value = ServiceTime> {
    prop_oneof![
        (0.0f64..2.0).prop_map(|seconds| ServiceTime::Fixed { seconds }),
        (0.01f64..2.0).prop_map(|mean_s| ServiceTime::Exponential { mean_s }),
    ]
}

fn consumer() -> impl Strategy<Value = ConsumerSpec> {
    (
        1u32..4,
        service(),
        1u32..4,
        1u32..6,
        prop_oneof![Just(AckMode::OnDelivery), Just(AckMode::AfterCommit)],
    )
        .prop_map(
            |(replicas, service, concurrency, prefetch, ack)| ConsumerSpec {
                name: String::new(),
                replicas,
                service,
                concurrency,
                prefetch,
                ack,
            },
        )
}

fn producer() -> impl Strategy<Value = ProducerSpec> {
    (
        prop_oneof![
            Just(ArrivalProcess::Constant),
            Just(ArrivalProcess::Poisson)
        ],
        prop::collection::vec((0.0f64..20.0, 0.0f64..30.0), 1..4),
        prop::option::of(1u64..200),
    )
        .prop_map(|(process, segs, count)| {
            let mut from = 0.0;
            let schedule = segs
                .into_iter()
                .enumerate()
                .map(|(i, (gap, rate_per_s))| {
                    if i > 0 {
                        from += gap + 0.1;
                    }
                    RateSegment {
                        from_s: from,
                        rate_per_s,
                    }
                })
                .collect();
            ProducerSpec {
                name: String::new(),
                arrivals: Arrivals { process, schedule },
                count,
            }
        })
}

fn crash_point() -> impl Strategy<Value = CrashPoint> {
    prop_oneof![
        Just(CrashPoint::Now),
        Just(CrashPoint::AfterReceive),
        Just(CrashPoint::AfterCommitBeforeAck)
    ]
}

fn scenario() -> impl Strategy<Value = Scenario> {
    (
        any::<u64>(),
        prop::collection::vec(producer(), 1..3),
        prop::collection::vec(consumer(), 1..3),
        0.05f64..5.0,
        prop::collection::vec(
            (
                0.0f64..40.0,
                0u32..12,
                crash_point(),
                prop::option::of(0.0f64..5.0),
            ),
            0..6,
        ),
        prop_oneof![Just(AckMode::OnDelivery), Just(AckMode::AfterCommit)],
    )
        .prop_map(|(seed, producers, mut consumers, lease, faults, ack)| {
            for c in &mut consumers {
                c.ack = ack;
            }
            let n: u32 = consumers.iter().map(|c| c.replicas).sum();
            let faults = faults
                .into_iter()
                .map(|(at_s, c, point, restart_after_s)| ScheduledFault {
                    at_s,
                    fault: Fault::CrashConsumer {
                        consumer: c % n,
                        point,
                        restart_after_s,
                    },
                })
                .collect();
            Scenario {
                version: SCENARIO_VERSION,
                name: "random".into(),
                description: String::new(),
                seed,
                producers,
                queue: QueueSpec {
                    name: "q".into(),
                    visibility_timeout_s: lease,
                },
                consumers,
                faults,
                interventions: vec![],
                sample_every_s: 1.0,
                end_s: Some(60.0),
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3_000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_message_is_accounted_for_after_every_step(
        s in scenario(),
        commands in prop::collection::vec((1u64..400, 0u32..12, crash_point(), prop::option::of(0.0f64..3.0)), 0..4),
    ) {
        let json = s.to_json_pretty();
        let n = s.consumer_count();
        let mut sim = Simulation::new(s).unwrap();
        let mut commands = commands;
        commands.sort_by_key(|c| c.0);
        let mut next = 0;
        while let Some(step) = sim.step() {
            let index = step.index;
            if let Err(e) = invariants::check(&sim) {
                panic!("after step {index}: {e}\nscenario: {}", sim.scenario().to_json_pretty());
            }
            // Crashes by command too, at random steps, like a user pressing the button.
            while next < commands.len() && commands[next].0 <= index {
                let (_, c, point, restart_after_s) = commands[next];
                next += 1;
                sim.command(Fault::CrashConsumer { consumer: c % n, point, restart_after_s }).unwrap();
                if let Err(e) = invariants::check(&sim) {
                    panic!("after a command at step {index}: {e}\nscenario: {}", sim.scenario().to_json_pretty());
                }
            }
        }
        let c = sim.counters();
        // Loss happens only where acking on delivery allowed it.
        if !json.contains("on_delivery") {
            prop_assert_eq!(c.lost, 0);
        }
        prop_assert!(c.effects_applied >= c.done);
    }
}
