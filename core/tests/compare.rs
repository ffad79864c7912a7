//! Compare mode: two configurations of one scenario and seed, in lockstep. Both sides see
//! the same arrivals and the same faults at the same instants; the counters differ only
//! where the configuration does.

use brokerlab_core::compare::{Change, Comparison, Side, Variant};
use brokerlab_core::{
    secs_to_us, Command, ConsumerId, CrashPoint, Fact, Micros, RandomStreams, Scenario, Simulation,
};

/// Random arrivals and keys, random service times, transient failures retried with
/// jitter, and two scheduled crashes (one between commit and ack): every part draws.
fn busy() -> Scenario {
    Scenario::from_json(
        r#"{
          "version": 2, "name": "busy", "seed": 11,
          "producers": [{ "name": "orders", "count": 300, "payload": { "keys": 10 },
            "arrivals": { "process": "poisson", "schedule": [{ "from_s": 0, "rate_per_s": 25 }] } }],
          "queues": [{ "name": "orders", "visibility_timeout_s": 2 }],
          "consumers": [{ "name": "C", "replicas": 2, "prefetch": 4, "concurrency": 2,
            "service": { "exponential": { "mean_s": 0.06 } }, "ack": "after_commit",
            "failures": { "transient_p": 0.1 },
            "retry": { "max_attempts": 4, "backoff_base_s": 0.2, "backoff_cap_s": 2, "jitter": "full" } }],
          "commands": [
            { "at_s": 3, "command": { "crash_consumer": { "consumer": 0, "point": "after_commit_before_ack", "restart_after_s": 1 } } },
            { "at_s": 6, "command": { "crash_consumer": { "consumer": 1, "point": "now", "restart_after_s": 0.5 } } }
          ],
          "sample_every_s": 0.5
        }"#,
    )
    .expect("valid")
}

fn variant(changes: &[&str]) -> Variant {
    Variant {
        changes: changes.iter().map(|c| Change::parse(c).unwrap()).collect(),
    }
}

/// When a side's run creates messages, arms crashes (a crash at a point of the work
/// strikes when that point comes) and crashes consumers, run to the end.
#[derive(Debug, PartialEq)]
struct Instants {
    created: Vec<Micros>,
    armed: Vec<Micros>,
    crashed: Vec<Micros>,
}

fn arrivals_and_crashes(scenario: &Scenario) -> Instants {
    let mut sim = Simulation::new(scenario.clone()).unwrap();
    let mut i = Instants {
        created: Vec::new(),
        armed: Vec::new(),
        crashed: Vec::new(),
    };
    while let Some(step) = sim.step() {
        let t = step.time_us;
        for fact in step.facts {
            match fact {
                Fact::Created { .. } => i.created.push(t),
                Fact::CrashArmed { .. } => i.armed.push(t),
                Fact::ConsumerCrashed { .. } => i.crashed.push(t),
                _ => {}
            }
        }
    }
    i
}

#[test]
fn both_sides_share_arrivals_and_crash_instants_and_differ_in_effects_only() {
    let mut c = Comparison::new(busy(), variant(&["consumers.*.idempotency=inbox"])).unwrap();
    let mut t = 0;
    while !c.is_finished() && t < secs_to_us(60.0) {
        t += secs_to_us(0.25);
        c.advance_to(t);
        let (a, b) = (c.side(Side::A).counters(), c.side(Side::B).counters());
        assert_eq!(a.created, b.created, "created at {t} µs");
        assert_eq!(a.published, b.published, "published at {t} µs");
        assert_eq!(a.crashes, b.crashes, "crashes at {t} µs");
    }
    c.run();
    let (sa, sb) = (c.side(Side::A).series(), c.side(Side::B).series());
    assert_eq!(sa.len(), sb.len());
    for (x, y) in sa.iter().zip(sb) {
        assert_eq!((x.t_s, x.published), (y.t_s, y.published));
    }
    let differences = c.differences();
    let names: Vec<&str> = differences.iter().map(|d| d.name.as_str()).collect();
    // The inbox catches the redelivery after the crash between commit and ack.
    let dup = differences
        .iter()
        .find(|d| d.name == "duplicate_effects")
        .expect("differs");
    assert!(dup.a > 0 && dup.b == 0, "{dup:?}");
    assert!(names.contains(&"effects_applied") && names.contains(&"duplicates_skipped"));
    // Same deliveries: the inbox changes what a delivery does, not when it happens.
    for same in [
        "created",
        "published",
        "delivered",
        "redelivered",
        "acked",
        "crashes",
    ] {
        assert!(!names.contains(&same), "{same} differs: {differences:?}");
    }
    let (ta, tb) = (
        arrivals_and_crashes(c.side(Side::A).scenario()),
        arrivals_and_crashes(c.side(Side::B).scenario()),
    );
    assert_eq!(ta.created.len(), 300);
    assert_eq!((ta.armed.len(), ta.crashed.len()), (1, 2));
    assert_eq!(
        ta, tb,
        "same arrival and crash instants, message by message"
    );
}

#[test]
fn a_variant_that_draws_differently_leaves_arrivals_alone() {
    // No jitter draws nothing where full jitter draws on every retry: on one shared
    // stream that shifts every later arrival; with the producers' own streams it cannot.
    let v = variant(&["consumers.0.retry.jitter=none", "consumers.*.prefetch=1"]);
    let c = Comparison::new(busy(), v.clone()).unwrap();
    let a = arrivals_and_crashes(c.side(Side::A).scenario());
    let b = arrivals_and_crashes(c.side(Side::B).scenario());
    assert_eq!(
        a.created, b.created,
        "the same messages at the same instants"
    );
    assert_eq!(
        a.armed, b.armed,
        "the crash after commit is armed at the same instant"
    );
    // It strikes at the next commit, which comes when each configuration gets there; the
    // crash that strikes at once is at 6 s on both sides.
    assert_eq!(a.crashed[1], b.crashed[1]);
    assert_ne!(a.crashed[0], b.crashed[0]);

    let mut shared_a = busy();
    shared_a.random_streams = RandomStreams::Shared;
    let shared_b = v.apply(&shared_a).unwrap();
    assert_ne!(
        arrivals_and_crashes(&shared_a).created,
        arrivals_and_crashes(&shared_b).created,
        "on one shared stream the arrivals move: this is why compare mode splits them"
    );
}

#[test]
fn a_command_goes_to_one_side_or_both_at_the_same_instant() {
    let mut c = Comparison::new(busy(), variant(&["consumers.*.ack=on_delivery"])).unwrap();
    c.advance_to(secs_to_us(2.0));
    let crash = Command::CrashConsumer {
        consumer: ConsumerId::new(1),
        point: CrashPoint::Now,
        restart_after_s: Some(1.0),
    };
    c.command(Side::Both, crash.clone()).unwrap();
    c.advance_to(secs_to_us(2.5));
    c.command(
        Side::A,
        Command::DropNextAck {
            consumer: ConsumerId::new(0),
        },
    )
    .unwrap();
    let (ca, cb) = c.commands();
    assert_eq!(ca.len(), 2);
    assert_eq!(cb.len(), 1);
    assert_eq!(ca[0].at_us, cb[0].at_us);
    assert_eq!(ca[0].command, crash);
    // A command one side cannot take is applied to neither.
    let bad = Command::RestartConsumer {
        consumer: ConsumerId::new(99),
    };
    assert!(c.command(Side::Both, bad).is_err());
    assert_eq!(c.commands().0.len(), 2);
}

#[test]
fn ack_before_effect_loses_what_ack_after_commit_redelivers() {
    let mut c = Comparison::new(busy(), variant(&["consumers.*.ack=on_delivery"])).unwrap();
    c.run();
    let (a, b) = (c.side(Side::A).counters(), c.side(Side::B).counters());
    assert_eq!(a.created, b.created);
    assert_eq!(a.lost_acked_before_effect, 0);
    assert!(
        b.lost_acked_before_effect > 0,
        "the crash loses the work acked on delivery"
    );
}

#[test]
fn side_b_must_keep_side_a_inputs() {
    for change in ["seed=12", "producers.0.count=10", "commands=[]"] {
        let e = Comparison::new(busy(), variant(&[change])).err();
        assert!(e.is_some(), "{change} accepted");
    }
    let mut other = busy();
    other.consumers[0].replicas = 3;
    assert!(Comparison::of_scenarios(busy(), other).is_ok());
}

/// Run to their ends, a comparison stands at the end of the side that ends last: the
/// runner's header said "at 2.200 s" (where A, acking on delivery, was over) beside B's
/// counters of a redelivery at 6.5 s.
#[test]
fn run_to_the_end_the_shared_clock_is_the_later_side_s_end() {
    let base = brokerlab_core::examples::load("ack-before-effect").expect("built in");
    let mut c = Comparison::new(base, variant(&["consumers.*.ack=after_commit"])).unwrap();
    c.run();
    assert!(c.is_finished());
    let (a, b) = (c.side(Side::A).now_us(), c.side(Side::B).now_us());
    assert!(a < b, "A is over first: {a} {b}");
    assert_eq!(c.now_us(), b);
    // Part way, both go on to the same instant.
    let mut c = Comparison::new(
        brokerlab_core::examples::load("ack-before-effect").expect("built in"),
        variant(&["consumers.*.ack=after_commit"]),
    )
    .unwrap();
    c.advance_to(secs_to_us(1.0));
    assert_eq!(c.now_us(), secs_to_us(1.0));
}

/// A value typed over the one side A already has makes two runs alike step for step:
/// refused in one sentence, where a real change is taken (and a scenario with recorded
/// commands may still be compared with itself: its side B starts without them).
#[test]
fn a_variant_that_changes_nothing_is_refused() {
    let e = Comparison::new(busy(), variant(&["consumers.*.prefetch=4"])).err();
    let e = e.expect("prefetch is 4 already: refused");
    assert_eq!(e.field, "consumers.*.prefetch");
    assert!(e.problem.starts_with("changes nothing"), "{}", e.problem);
    assert!(Comparison::new(busy(), variant(&["consumers.*.prefetch=5"])).is_ok());
    let mut recorded = busy();
    recorded.interventions.push(brokerlab_core::Intervention {
        after_step: 3,
        at_us: 0,
        command: Command::CrashConsumer {
            consumer: ConsumerId::from_index(0),
            point: CrashPoint::Now,
            restart_after_s: Some(1.0),
        },
    });
    assert!(Comparison::new(recorded, variant(&["consumers.*.prefetch=4"])).is_ok());
}

/// A value the scenario cannot take is refused for the field it went to, not for the
/// "variant" (the page said "variant: does not make a valid scenario: …").
#[test]
fn a_value_the_scenario_cannot_take_is_refused_for_its_field() {
    let huge = variant(&["consumers.0.prefetch=99999999999999999999"]);
    let e = Comparison::new(busy(), huge).err().expect("refused");
    assert_eq!(e.field, "consumers[0].prefetch");
    assert!(
        e.problem
            .starts_with("does not make a valid scenario: invalid type"),
        "{}",
        e.problem
    );
    let text = e.text_in(brokerlab_core::lang::Lang::Es);
    assert!(
        text.starts_with("consumers[0].prefetch: no da un escenario válido"),
        "{text}"
    );
}
