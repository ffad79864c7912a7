//! A consumer that scaling in retires and that crashes, or is down, as it leaves: it stops
//! (it was leaving: it does not restart), and what it held follows the crash rules.

use brokerlab_core::lang::Lang;
use brokerlab_core::narration::describe;
use brokerlab_core::*;

const C2: ConsumerId = ConsumerId::new(1);

/// Two messages, at 1 s and 2 s, for two consumers with a 3 s job each, acking after the
/// commit, on a queue of `flavour` with a 5 s lease: C1 takes #0 (1 s to 4 s), C2 takes #1
/// (2 s to 5 s).
fn two_consumers(flavour: &str) -> Scenario {
    let json = format!(
        r#"{{
        "version": 2, "seed": 3,
        "producers": [{{ "name": "P", "arrivals": {{ "process": "constant",
            "schedule": [{{ "from_s": 0, "rate_per_s": 1 }}] }}, "count": 2 }}],
        "queues": [{{ "name": "jobs", "visibility_timeout_s": 5, "flavour": "{flavour}" }}],
        "consumers": [{{ "name": "C", "replicas": 2,
            "service": {{ "fixed": {{ "seconds": 3 }} }}, "ack": "after_commit" }}],
        "end_s": 30
    }}"#
    );
    Scenario::from_json(&json).expect("valid")
}

fn scale(count: u32) -> Command {
    Command::SetConsumerCount {
        queue: "jobs".into(),
        count,
    }
}

fn crash(consumer: ConsumerId, point: CrashPoint, restart_after_s: Option<f64>) -> Command {
    Command::CrashConsumer {
        consumer,
        point,
        restart_after_s,
    }
}

/// Gives a command, checks the accounting, and returns the facts of its step.
fn command(sim: &mut Simulation, fault: Command) -> Vec<Fact> {
    let facts = sim.command(fault).expect("a valid command").facts.to_vec();
    invariants::check(sim).unwrap_or_else(|e| panic!("after a command: {e}"));
    facts
}

/// Steps until `t_s` (or to the end), checking the accounting after every step; returns
/// the facts with their instant.
fn run_checked_until(sim: &mut Simulation, t_s: f64) -> Vec<(u64, Fact)> {
    let until = secs_to_us(t_s);
    let mut facts = Vec::new();
    while sim.next_step_time().is_some_and(|t| t <= until) {
        // An event that changes nothing (the restart of a consumer that has stopped) is
        // no step: the run may end there.
        let Some(step) = sim.step() else { break };
        let t = step.time_us;
        facts.extend(step.facts.iter().map(|f| (t, *f)));
        invariants::check(sim).unwrap_or_else(|e| panic!("step {}: {e}", sim.steps()));
    }
    facts
}

/// The replay of what the run recorded gives the same counters.
fn assert_replays(sim: &Simulation) {
    let mut replay = Simulation::new(sim.scenario().clone()).expect("recorded runs are valid");
    replay.run_until(sim.now_us());
    assert_eq!(replay.counters(), sim.counters());
    assert_eq!(replay.backlog(), sim.backlog());
}

fn view(sim: &Simulation, c: ConsumerId) -> ConsumerView {
    sim.consumer(c).expect("exists")
}

/// The only fact of its kind among `facts`.
fn only(facts: &[Fact], kind: impl Fn(&Fact) -> bool) -> Fact {
    let found: Vec<&Fact> = facts.iter().filter(|f| kind(f)).collect();
    assert_eq!(found.len(), 1, "{facts:?}");
    *found[0]
}

/// The English and Spanish sentences for `fact`.
fn told(sim: &Simulation, fact: &Fact) -> (String, String) {
    (describe(sim, fact, Lang::En), describe(sim, fact, Lang::Es))
}

/// C2 retires at 2.5 s, while it works on #1, right after the commands `before`.
fn scaled_in_while_c2_works(flavour: &str, before: &[Command]) -> (Simulation, Vec<Fact>) {
    let mut sim = Simulation::new(two_consumers(flavour)).expect("valid");
    run_checked_until(&mut sim, 2.5);
    assert_eq!(view(&sim, C2).working.len(), 1, "C2 works on #1");
    for c in before {
        command(&mut sim, c.clone());
    }
    let facts = command(&mut sim, scale(1));
    assert!(view(&sim, C2).retiring);
    (sim, facts)
}

#[test]
fn a_consumer_crashed_while_it_retires_stops_for_good_and_reads_stopped() {
    // Before: C2, crashed on the user's command while it finished #1, restarted 1 s later
    // as a retiring consumer that never stopped (or, without a restart, stayed down for
    // ever): neither stopped nor taking work.
    for flavour in ["generic", "rabbitmq"] {
        let (mut sim, _) = scaled_in_while_c2_works(flavour, &[]);
        let facts = command(&mut sim, crash(C2, CrashPoint::Now, Some(1.0)));
        assert!(facts.contains(&Fact::ConsumerCrashed {
            consumer: C2,
            point: CrashPoint::Now,
            trigger: Trigger::User,
            restart_at_us: None,
        }));
        let stopped = Fact::ConsumerStopped {
            consumer: C2,
            was_down: true,
        };
        assert!(facts.contains(&stopped), "{facts:?}");
        let (en, es) = told(&sim, &stopped);
        assert!(en.contains("does not restart"), "{en}");
        assert!(es.contains("no se reinicia"), "{es}");
        // What it held follows the crash rules: RabbitMQ requeues #1 at once.
        let requeued = facts
            .iter()
            .any(|f| matches!(f, Fact::Requeued { consumer: C2, .. }));
        assert_eq!(requeued, flavour == "rabbitmq", "{flavour}");
        let later = run_checked_until(&mut sim, 30.0);
        assert!(
            later
                .iter()
                .all(|(_, f)| !matches!(f, Fact::ConsumerRestarted { .. })),
            "{flavour}"
        );
        let c2 = view(&sim, C2);
        assert!(c2.stopped && !c2.up && !c2.retiring, "{flavour}: {c2:?}");
        let c = sim.counters();
        assert_eq!((c.acked, c.redelivered, c.lost), (2, 1, 0), "{flavour}");
        // Scaling out brings it back, as any stopped consumer.
        command(&mut sim, scale(2));
        assert!(view(&sim, C2).up && !view(&sim, C2).stopped, "{flavour}");
        assert_replays(&sim);
    }
}

#[test]
fn a_consumer_scaled_in_while_down_says_it_does_not_restart() {
    // C2 crashes at 2.5 s with a restart due at 12.5 s, and is scaled in at 3 s, while
    // down: its restart is dropped, and the event says so rather than "it finished what
    // it held".
    let mut sim = Simulation::new(two_consumers("generic")).expect("valid");
    run_checked_until(&mut sim, 2.5);
    command(&mut sim, crash(C2, CrashPoint::Now, Some(10.0)));
    run_checked_until(&mut sim, 3.0);
    let facts = command(&mut sim, scale(1));
    let stopped = only(&facts, |f| matches!(f, Fact::ConsumerStopped { .. }));
    assert_eq!(
        stopped,
        Fact::ConsumerStopped {
            consumer: C2,
            was_down: true,
        }
    );
    let (en, _) = told(&sim, &stopped);
    assert!(!en.contains("finished what it held"), "{en}");
    let later = run_checked_until(&mut sim, 30.0);
    assert!(later
        .iter()
        .all(|(_, f)| !matches!(f, Fact::ConsumerRestarted { .. })));
    assert!(view(&sim, C2).stopped);
    assert_replays(&sim);
}
