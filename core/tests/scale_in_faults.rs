//! Faults on a consumer that scaling in retires. A retiring consumer takes no more
//! deliveries but still finishes and acks what it holds, so a fault armed for its next
//! commit or ack can still strike it, while one armed for its next delivery cannot. What it
//! can no longer reach is called off, and said; a crash of a retiring consumer stops it
//! (it was leaving: it does not restart), and a fault scheduled for a consumer that has
//! already stopped is called off too, not armed for a return that may never come.

use brokerlab_core::lang::Lang;
use brokerlab_core::narration::describe;
use brokerlab_core::step::ArmedFaults;
use brokerlab_core::*;

const C1: ConsumerId = ConsumerId::new(0);
const C2: ConsumerId = ConsumerId::new(1);
const NONE: ArmedFaults = ArmedFaults {
    crash: None,
    lost_ack: false,
};
const COMMIT: Option<CrashPoint> = Some(CrashPoint::AfterCommitBeforeAck);

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
fn a_consumer_scaled_in_with_nothing_to_ack_has_its_lost_ack_called_off_like_its_crash() {
    // Before: the crash armed for C2's next commit was called off and said, while the loss
    // of its next ack stayed armed on the stopped consumer, unsaid.
    let mut sim = Simulation::new(two_consumers("generic")).expect("valid");
    command(&mut sim, crash(C2, CrashPoint::AfterCommitBeforeAck, None));
    command(&mut sim, Command::DropNextAck { consumer: C2 });
    let facts = command(&mut sim, scale(1));
    let stopping = only(&facts, |f| matches!(f, Fact::ConsumerStopping { .. }));
    let both = ArmedFaults {
        crash: COMMIT,
        lost_ack: true,
    };
    assert_eq!(
        stopping,
        Fact::ConsumerStopping {
            consumer: C2,
            trigger: Trigger::User,
            called_off: both,
            still_armed: NONE,
        }
    );
    let (en, es) = told(&sim, &stopping);
    assert!(
        en.ends_with(
            "Its armed crash (right after its next commit, before the ack) and the loss of its \
             next ack are called off: it is leaving."
        ),
        "{en}"
    );
    assert!(
        es.contains("y la pérdida de su próximo ack quedan anuladas: se va."),
        "{es}"
    );
    // It held nothing, so it stopped at once, with nothing left armed.
    let c2 = view(&sim, C2);
    assert!(
        c2.stopped && c2.armed.is_none() && !c2.drop_next_ack,
        "{c2:?}"
    );
    let facts = run_checked_until(&mut sim, 30.0);
    assert!(facts
        .iter()
        .all(|(_, f)| !matches!(f, Fact::ConsumerCrashed { .. } | Fact::AckLost { .. })));
    assert_eq!(sim.counters().acked, 2, "C1 did both");
    assert_replays(&sim);
}

/// C2, armed to crash after its next commit and to lose its next ack, is scaled in while it
/// works on #1: both still stand, since it still commits and acks #1. The crash strikes at
/// its commit (5 s) and stops it for good; the lost ack, which can no longer strike, is
/// called off as it stops. Returns the run's facts after the scaling in.
fn crash_after_commit_strikes_the_retiring_consumer(
    flavour: &str,
) -> (Simulation, Vec<(u64, Fact)>) {
    let armed = [
        crash(C2, CrashPoint::AfterCommitBeforeAck, Some(1.0)),
        Command::DropNextAck { consumer: C2 },
    ];
    let (mut sim, facts) = scaled_in_while_c2_works(flavour, &armed);
    let stopping = only(&facts, |f| matches!(f, Fact::ConsumerStopping { .. }));
    let both = ArmedFaults {
        crash: COMMIT,
        lost_ack: true,
    };
    assert_eq!(
        stopping,
        Fact::ConsumerStopping {
            consumer: C2,
            trigger: Trigger::User,
            called_off: NONE,
            still_armed: both,
        }
    );
    let (en, es) = told(&sim, &stopping);
    assert!(en.contains("still stand: it still finishes"), "{en}");
    assert!(es.contains("siguen en pie"), "{es}");
    let facts = run_checked_until(&mut sim, 30.0);
    let at_5s: Vec<Fact> = facts
        .iter()
        .filter(|(t, _)| *t == 5_000_000)
        .map(|(_, f)| *f)
        .collect();
    // It was leaving: no restart, although the crash asked for one 1 s later.
    let crashed = only(&at_5s, |f| matches!(f, Fact::ConsumerCrashed { .. }));
    assert_eq!(
        crashed,
        Fact::ConsumerCrashed {
            consumer: C2,
            point: CrashPoint::AfterCommitBeforeAck,
            trigger: Trigger::User,
            restart_at_us: None,
        }
    );
    let stopped = only(&at_5s, |f| matches!(f, Fact::ConsumerStopped { .. }));
    let lost_ack = ArmedFaults {
        crash: None,
        lost_ack: true,
    };
    assert_eq!(
        stopped,
        Fact::ConsumerStopped {
            consumer: C2,
            was_down: true,
            called_off: lost_ack,
        }
    );
    let (en, es) = told(&sim, &stopped);
    assert_eq!(
        en,
        "C2 was down and leaving, so it does not restart: it has stopped (scaled in). The \
         loss of its next ack is called off: it has left."
    );
    assert!(
        es.starts_with("C2 estaba caído y se iba, así que no se reinicia"),
        "{es}"
    );
    assert!(es.ends_with("queda anulada: ya se fue."), "{es}");
    assert!(facts
        .iter()
        .all(|(_, f)| !matches!(f, Fact::ConsumerRestarted { .. } | Fact::AckLost { .. })));
    let c2 = view(&sim, C2);
    assert!(
        c2.stopped && !c2.up && !c2.retiring && c2.restart_at_us.is_none(),
        "stopped, not down: {c2:?}"
    );
    assert!(c2.armed.is_none() && !c2.drop_next_ack, "{c2:?}");
    // #1's effect was committed before the crash: C1 applies it again (no idempotency).
    let c = sim.counters();
    assert_eq!((c.crashes, c.restarts), (1, 0));
    assert_eq!((c.acked, c.redelivered, c.duplicate_effects), (2, 1, 1));
    assert_eq!(sim.effect_count(MsgId::new(1)), 2);
    assert_eq!(sim.backlog(), 0);
    assert_replays(&sim);
    (sim, facts)
}

#[test]
fn a_crash_armed_for_the_next_commit_still_strikes_a_consumer_finishing_its_work() {
    // Before: the crash was called off as C2 was scaled in, although C2 still committed
    // #1, while the loss of its next ack, no more and no less reachable, was kept: C2 never
    // crashed, and its restart-less stop hid nothing. Generic queue: #1 comes back when
    // its lease runs out (2 s + 5 s).
    let (_, facts) = crash_after_commit_strikes_the_retiring_consumer("generic");
    let again = facts
        .iter()
        .find(|(_, f)| matches!(f, Fact::Delivered { attempt: 2, .. }))
        .expect("#1 is delivered again");
    assert_eq!(again.0, 7_000_000, "after the lease");
    assert!(matches!(again.1, Fact::Delivered { consumer: C1, .. }));
}

#[test]
fn rabbitmq_requeues_at_once_what_a_retiring_consumer_held_when_it_crashed() {
    // RabbitMQ: C2's channel closes with #1 unacked, so #1 goes back in line at once, and
    // C1 (free since 4 s) takes it at 5 s.
    let (_, facts) = crash_after_commit_strikes_the_retiring_consumer("rabbitmq");
    assert!(facts
        .iter()
        .any(|(t, f)| *t == 5_000_000 && matches!(f, Fact::Requeued { consumer: C2, .. })));
    let again = facts
        .iter()
        .find(|(_, f)| matches!(f, Fact::Delivered { attempt: 2, .. }))
        .expect("#1 is delivered again");
    assert_eq!(again.0, 5_000_000, "at once");
}

#[test]
fn a_lost_ack_armed_on_a_retiring_consumer_still_takes_the_ack_of_what_it_finishes() {
    // C2 still acks #1, so the loss of its next ack still stands and takes that ack; C2
    // then stops having finished its work, and #1 comes back after its lease.
    let (mut sim, facts) =
        scaled_in_while_c2_works("generic", &[Command::DropNextAck { consumer: C2 }]);
    let stopping = only(&facts, |f| matches!(f, Fact::ConsumerStopping { .. }));
    let lost_ack = ArmedFaults {
        crash: None,
        lost_ack: true,
    };
    assert!(matches!(
        stopping,
        Fact::ConsumerStopping { called_off: NONE, still_armed, .. } if still_armed == lost_ack
    ));
    let facts = run_checked_until(&mut sim, 30.0);
    let lost = facts
        .iter()
        .find(|(_, f)| matches!(f, Fact::AckLost { .. }))
        .expect("its ack is lost");
    assert!(matches!(
        lost,
        (5_000_000, Fact::AckLost { consumer: C2, .. })
    ));
    let stopped = Fact::ConsumerStopped {
        consumer: C2,
        was_down: false,
        called_off: NONE,
    };
    assert!(facts.contains(&(5_000_000, stopped)), "{facts:?}");
    let c = sim.counters();
    assert_eq!((c.acks_lost, c.redelivered, c.crashes), (1, 1, 0));
    assert_replays(&sim);
}

#[test]
fn a_crash_armed_for_the_next_delivery_is_called_off_as_its_consumer_retires() {
    // A retiring consumer takes no more deliveries, so that crash can never strike, even
    // though C2 still holds #1.
    let (sim, facts) =
        scaled_in_while_c2_works("generic", &[crash(C2, CrashPoint::AfterReceive, Some(1.0))]);
    let stopping = only(&facts, |f| matches!(f, Fact::ConsumerStopping { .. }));
    let receive = ArmedFaults {
        crash: Some(CrashPoint::AfterReceive),
        lost_ack: false,
    };
    assert!(matches!(
        stopping,
        Fact::ConsumerStopping { called_off, still_armed: NONE, .. } if called_off == receive
    ));
    assert!(view(&sim, C2).armed.is_none());
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
            called_off: NONE,
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
            called_off: NONE,
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

#[test]
fn a_fault_scheduled_for_a_consumer_already_stopped_is_called_off_and_said() {
    // Before: the crash was armed without a word on the stopped C2 ("C2 will crash right
    // after its next commit"), and struck the first message C2 worked on once scaling out
    // brought it back, long after.
    let mut sim = Simulation::new(two_consumers("generic")).expect("valid");
    command(&mut sim, scale(1));
    assert!(view(&sim, C2).stopped);
    let faults = [
        (
            crash(C2, CrashPoint::AfterCommitBeforeAck, Some(1.0)),
            ArmedFaults {
                crash: COMMIT,
                lost_ack: false,
            },
        ),
        (
            crash(C2, CrashPoint::Now, Some(1.0)),
            ArmedFaults {
                crash: Some(CrashPoint::Now),
                lost_ack: false,
            },
        ),
        (
            Command::DropNextAck { consumer: C2 },
            ArmedFaults {
                crash: None,
                lost_ack: true,
            },
        ),
    ];
    for (fault, called_off) in faults {
        let facts = command(&mut sim, fault);
        let expected = Fact::ConsumerFaultCalledOff {
            consumer: C2,
            called_off,
            stopped: true,
            trigger: Trigger::User,
        };
        assert_eq!(facts, [expected]);
        let (en, es) = told(&sim, &expected);
        assert!(
            en.ends_with("is called off: it has left (scaled in)."),
            "{en}"
        );
        assert!(
            es.ends_with("queda anulada: ya se fue (se redujo la escala)."),
            "{es}"
        );
    }
    let c2 = view(&sim, C2);
    assert!(c2.armed.is_none() && !c2.drop_next_ack, "{c2:?}");
    // Brought back, C2 works with no fault pending.
    command(&mut sim, scale(2));
    let facts = run_checked_until(&mut sim, 30.0);
    assert!(facts
        .iter()
        .any(|(_, f)| matches!(f, Fact::Acked { consumer: C2, .. })));
    let c = sim.counters();
    assert_eq!((c.crashes, c.acks_lost, c.acked), (0, 0, 2));
    assert_replays(&sim);
}

#[test]
fn a_scheduled_crash_on_a_stopped_consumer_is_called_off_as_scheduled() {
    // The same from the scenario's schedule: C2 is scaled in at 0 s and its crash comes
    // at 10 s, when it has long stopped.
    let mut s = two_consumers("generic");
    for (at_s, command) in [
        (0.0, scale(1)),
        (10.0, crash(C2, CrashPoint::AfterCommitBeforeAck, None)),
    ] {
        s.commands.push(ScheduledCommand {
            at_s,
            command,
            unannounced: false,
        });
    }
    let mut sim = Simulation::new(s).expect("valid");
    let facts = run_checked_until(&mut sim, 30.0);
    let called_off = Fact::ConsumerFaultCalledOff {
        consumer: C2,
        called_off: ArmedFaults {
            crash: COMMIT,
            lost_ack: false,
        },
        stopped: true,
        trigger: Trigger::Scheduled,
    };
    assert!(facts.contains(&(10_000_000, called_off)), "{facts:?}");
    assert!(facts
        .iter()
        .all(|(_, f)| !matches!(f, Fact::CrashArmed { .. })));
    assert_eq!(
        describe(&sim, &called_off, Lang::En),
        "The crash of C2 right after its next commit, before the ack (as scheduled) is called \
         off: it has left (scaled in)."
    );
    assert!(view(&sim, C2).armed.is_none());
}

#[test]
fn a_crash_at_the_next_delivery_of_a_retiring_consumer_is_called_off_and_said() {
    // C2 still holds #1 but takes no more deliveries: a crash at its next delivery can
    // never strike. A crash after its next commit can (it commits #1), so it is armed.
    let (mut sim, _) = scaled_in_while_c2_works("generic", &[]);
    let facts = command(&mut sim, crash(C2, CrashPoint::AfterReceive, None));
    let expected = Fact::ConsumerFaultCalledOff {
        consumer: C2,
        called_off: ArmedFaults {
            crash: Some(CrashPoint::AfterReceive),
            lost_ack: false,
        },
        stopped: false,
        trigger: Trigger::User,
    };
    assert_eq!(facts, [expected]);
    let (en, es) = told(&sim, &expected);
    assert!(
        en.ends_with("is called off: it is leaving and takes no more deliveries."),
        "{en}"
    );
    assert!(
        es.ends_with("se está yendo y no acepta más entregas."),
        "{es}"
    );
    let facts = command(&mut sim, crash(C2, CrashPoint::AfterCommitBeforeAck, None));
    assert!(matches!(facts[..], [Fact::CrashArmed { consumer: C2, .. }]));
    let facts = run_checked_until(&mut sim, 30.0);
    assert!(facts.iter().any(|(_, f)| matches!(
        f,
        Fact::ConsumerCrashed {
            consumer: C2,
            point: CrashPoint::AfterCommitBeforeAck,
            ..
        }
    )));
    assert!(view(&sim, C2).stopped);
    assert_replays(&sim);
}

#[test]
fn rabbitmq_requeues_at_once_a_delivery_whose_ack_was_lost_when_its_consumer_stops() {
    // As above, C2's ack of #1 is lost at 5 s and C2 stops having finished its work. Its
    // channel closes as it leaves, so RabbitMQ, which still counts #1 unacked, requeues it
    // at once and C1 (idle since 4 s) takes it then. A generic queue waits for the lease
    // (delivered at 2 s, 5 s lease): #1 comes back at 7 s.
    for (flavour, back_at) in [("rabbitmq", 5_000_000), ("generic", 7_000_000)] {
        let (mut sim, _) =
            scaled_in_while_c2_works(flavour, &[Command::DropNextAck { consumer: C2 }]);
        let facts = run_checked_until(&mut sim, 30.0);
        let requeued = facts
            .iter()
            .any(|(_, f)| matches!(f, Fact::Requeued { consumer: C2, .. }));
        assert_eq!(requeued, flavour == "rabbitmq", "{flavour}: {facts:?}");
        let again = facts
            .iter()
            .find(|(_, f)| matches!(f, Fact::Delivered { attempt: 2, .. }))
            .unwrap_or_else(|| panic!("{flavour}: #1 is delivered again"));
        assert!(
            matches!(again, (t, Fact::Delivered { consumer: C1, .. }) if *t == back_at),
            "{flavour}: {again:?}"
        );
        let c = sim.counters();
        assert_eq!(
            (c.acks_lost, c.redelivered, c.crashes),
            (1, 1, 0),
            "{flavour}"
        );
        assert_replays(&sim);
    }
}

/// `two_consumers` with C2 armed at 0.5 s, by its schedule, to crash after its next
/// commit and to lose its next ack: hidden (an interview's unannounced faults) or not.
fn armed_by_schedule(unannounced: bool) -> Simulation {
    let mut scenario = two_consumers("generic");
    for command in [
        crash(C2, CrashPoint::AfterCommitBeforeAck, Some(1.0)),
        Command::DropNextAck { consumer: C2 },
    ] {
        scenario.commands.push(ScheduledCommand {
            at_s: 0.5,
            command,
            unannounced,
        });
    }
    let mut sim = Simulation::new(scenario).expect("valid");
    run_checked_until(&mut sim, 0.6);
    sim
}

#[test]
fn hidden_faults_stay_off_the_consumers_view_and_are_called_off_without_a_word() {
    // Told faults show on C2's view (its card) and are called off, said, as it leaves.
    let mut sim = armed_by_schedule(false);
    let c2 = view(&sim, C2);
    assert_eq!((c2.armed, c2.drop_next_ack), (COMMIT, true));
    let facts = command(&mut sim, scale(1));
    let stopping = only(&facts, |f| matches!(f, Fact::ConsumerStopping { .. }));
    let both = ArmedFaults {
        crash: COMMIT,
        lost_ack: true,
    };
    assert!(matches!(stopping, Fact::ConsumerStopping { called_off, .. } if called_off == both));
    // Hidden ones are armed all the same, yet the view shows nothing (before, the card
    // read "armed: crash after commit" and gave the interview's fault away), and scaling
    // in calls them off with nothing said of them.
    let mut sim = armed_by_schedule(true);
    let c2 = view(&sim, C2);
    assert_eq!((c2.armed, c2.drop_next_ack), (None, false), "{c2:?}");
    let facts = command(&mut sim, scale(1));
    for f in &facts {
        match *f {
            Fact::ConsumerStopping {
                called_off,
                still_armed,
                ..
            } => assert_eq!((called_off, still_armed), (NONE, NONE)),
            Fact::ConsumerStopped { called_off, .. } => assert_eq!(called_off, NONE),
            _ => {}
        }
        let (en, _) = told(&sim, f);
        assert!(!en.contains("called off"), "{en}");
    }
    let c2 = view(&sim, C2);
    assert!(c2.stopped, "{c2:?}");
    let rest = run_checked_until(&mut sim, 30.0);
    assert!(rest
        .iter()
        .all(|(_, f)| !matches!(f, Fact::ConsumerCrashed { .. } | Fact::AckLost { .. })));
    assert_replays(&sim);
}

#[test]
fn a_hidden_crash_armed_on_a_consumer_is_kept_off_its_view_until_it_strikes() {
    // Not scaled in: C2 takes #1 at 2 s, commits at 5 s, and the hidden crash strikes
    // there; until then its view shows no armed fault.
    let mut sim = armed_by_schedule(true);
    run_checked_until(&mut sim, 4.9);
    let c2 = view(&sim, C2);
    assert_eq!((c2.armed, c2.drop_next_ack), (None, false), "{c2:?}");
    let facts = run_checked_until(&mut sim, 5.0);
    assert!(
        facts.iter().any(|(_, f)| matches!(
            f,
            Fact::ConsumerCrashed {
                consumer: C2,
                trigger: Trigger::Unannounced,
                ..
            }
        )),
        "{facts:?}"
    );
}
