//! The failure stories of the source chapters, each run and checked step by step.

use brokerlab_core::lang::Lang;
use brokerlab_core::step::ArmedFaults;
use brokerlab_core::{
    examples, invariants, narration, AckMode, Command, ConsumerId, CrashPoint, Fact, Fate, GroupId,
    MemberCrashPoint, MsgId, ProducerCrashPoint, ProducerId, PublishFate, Simulation, Trigger,
};

/// Runs to the end, checking the accounting invariant after every step; returns all facts.
fn run_checked(sim: &mut Simulation) -> Vec<(u64, Fact)> {
    let mut facts = Vec::new();
    while let Some(step) = sim.step() {
        let t = step.time_us;
        facts.extend(step.facts.iter().map(|f| (t, *f)));
        invariants::check(sim).unwrap();
    }
    facts
}

#[test]
fn crash_after_commit_before_ack_means_one_redelivery_and_two_effects() {
    let mut sim = Simulation::new(examples::load("crash-after-commit").unwrap()).unwrap();
    let facts = run_checked(&mut sim);
    let c = sim.counters();
    assert_eq!(
        (c.published, c.delivered, c.redelivered, c.acked),
        (1, 2, 1, 1)
    );
    assert_eq!(
        sim.effect_count(MsgId::new(0)),
        2,
        "no idempotency: the effect happened twice"
    );
    assert_eq!(c.duplicate_effects, 1);
    assert_eq!(sim.copy(0).unwrap().fate, Fate::Done);
    // The order of the story: commit, crash (no ack), lease expiry, redelivery, commit, ack.
    let kinds: Vec<&str> = facts
        .iter()
        .filter_map(|(_, f)| match f {
            Fact::EffectCommitted { .. } => Some("commit"),
            Fact::ConsumerCrashed {
                point: CrashPoint::AfterCommitBeforeAck,
                ..
            } => Some("crash"),
            Fact::LeaseExpired { .. } => Some("lease expired"),
            Fact::Delivered { attempt: 2, .. } => Some("redelivered"),
            Fact::Acked { .. } => Some("ack"),
            _ => None,
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "commit",
            "crash",
            "lease expired",
            "redelivered",
            "commit",
            "ack"
        ]
    );
    // Redelivery waits for the lease: 1 s publish + 5 s lease.
    let redelivered_at = facts
        .iter()
        .find(|(_, f)| matches!(f, Fact::Delivered { attempt: 2, .. }))
        .unwrap()
        .0;
    assert_eq!(redelivered_at, 6_000_000);
}

#[test]
fn ack_before_effect_and_a_crash_lose_the_message() {
    let mut sim = Simulation::new(examples::load("ack-before-effect").unwrap()).unwrap();
    let facts = run_checked(&mut sim);
    let c = sim.counters();
    assert_eq!(
        (c.published, c.delivered, c.redelivered, c.lost),
        (1, 1, 0, 1)
    );
    assert_eq!(
        sim.effect_count(MsgId::new(0)),
        0,
        "the work never happened"
    );
    assert_eq!(sim.copy(0).unwrap().fate, Fate::Lost);
    assert!(facts
        .iter()
        .any(|(_, f)| matches!(f, Fact::MessageLost { msg, .. } if msg.get() == 0)));
    // The same crash with ack after commit loses nothing: the lease brings it back.
    let mut s = examples::load("ack-before-effect").unwrap();
    s.consumers[0].ack = AckMode::AfterCommit;
    let mut safe = Simulation::new(s).unwrap();
    run_checked(&mut safe);
    assert_eq!(
        (
            safe.counters().lost,
            safe.counters().redelivered,
            safe.effect_count(MsgId::new(0))
        ),
        (0, 1, 1)
    );
}

#[test]
fn a_lease_shorter_than_the_work_gives_a_concurrent_second_delivery() {
    let mut sim = Simulation::new(examples::load("short-lease").unwrap()).unwrap();
    let mut concurrent = false;
    while sim.step().is_some() {
        invariants::check(&sim).unwrap();
        let holders = sim
            .consumer_ids()
            .filter(|&c| {
                sim.consumer(c)
                    .unwrap()
                    .working
                    .iter()
                    .any(|&(m, _)| m == 0)
            })
            .count();
        concurrent |= holders == 2;
    }
    assert!(
        concurrent,
        "two consumers processed message 0 at the same time"
    );
    assert!(sim.counters().redelivered >= 1);
    assert!(
        sim.effect_count(MsgId::new(0)) >= 2,
        "both applied the effect"
    );
    assert!(
        sim.counters().acks_ignored >= 1,
        "a late ack counts for nothing"
    );
}

#[test]
fn a_crash_while_working_redelivers_after_the_lease() {
    let mut s = examples::load("crash-after-commit").unwrap();
    s.commands.clear();
    let mut sim = Simulation::new(s).unwrap();
    sim.run_until(1_200_000); // delivered at 1 s, working until 1.5 s
    assert_eq!(sim.consumer(ConsumerId::new(0)).unwrap().busy, 1);
    let step = sim
        .command(Command::CrashConsumer {
            consumer: ConsumerId::new(0),
            point: CrashPoint::Now,
            restart_after_s: Some(0.1),
        })
        .unwrap();
    assert!(matches!(
        step.facts[0],
        Fact::ConsumerCrashed {
            trigger: Trigger::User,
            ..
        }
    ));
    run_checked(&mut sim);
    assert_eq!(
        (
            sim.counters().redelivered,
            sim.effect_count(MsgId::new(0)),
            sim.counters().lost
        ),
        (1, 1, 0)
    );
}

#[test]
fn crash_after_receive_drops_the_delivery_before_any_work() {
    let mut s = examples::load("crash-after-commit").unwrap();
    s.commands[0].command = Command::CrashConsumer {
        consumer: ConsumerId::new(0),
        point: CrashPoint::AfterReceive,
        restart_after_s: Some(1.0),
    };
    let mut sim = Simulation::new(s).unwrap();
    let facts = run_checked(&mut sim);
    assert!(!facts
        .iter()
        .any(|(t, f)| matches!(f, Fact::ProcessingStarted { .. }) && *t < 6_000_000));
    assert_eq!(
        (sim.counters().redelivered, sim.effect_count(MsgId::new(0))),
        (1, 1)
    );
}

#[test]
fn a_consumer_that_never_returns_leaves_work_waiting_not_lost() {
    let mut s = examples::load("crash-after-commit").unwrap();
    s.commands[0].command = Command::CrashConsumer {
        consumer: ConsumerId::new(0),
        point: CrashPoint::AfterReceive,
        restart_after_s: None,
    };
    let mut sim = Simulation::new(s).unwrap();
    run_checked(&mut sim);
    assert_eq!(sim.copy(0).unwrap().fate, Fate::Waiting);
    assert_eq!((sim.backlog(), sim.counters().lost), (1, 0));
}

/// The crash-after-commit story with `scheduled` as its only command, and the user
/// crashing C1 at 1.2 s (halfway through #0, delivered at 1 s), back 0.1 s later.
fn users_crash_after(scheduled: Command) -> (Simulation, Vec<(u64, Fact)>) {
    let mut s = examples::load("crash-after-commit").unwrap();
    s.commands[0].command = scheduled;
    let mut sim = Simulation::new(s).unwrap();
    sim.run_until(1_200_000); // nothing has crashed yet
    let step = sim
        .command(Command::CrashConsumer {
            consumer: ConsumerId::new(0),
            point: CrashPoint::Now,
            restart_after_s: Some(0.1),
        })
        .unwrap();
    let mut facts: Vec<(u64, Fact)> = step.facts.iter().map(|f| (1_200_000, *f)).collect();
    facts.extend(run_checked(&mut sim));
    (sim, facts)
}

#[test]
fn a_scheduled_crash_after_commit_survives_a_users_crash_and_strikes_the_restarted_consumer() {
    // Scheduled faults happen whatever the user does: the user's crash at 1.2 s does not
    // disarm the scheduled "crash after next commit" (before, it did, silently, while the
    // page kept saying C1 would crash after its next commit). #0 comes back when its lease
    // runs out (6 s), its effect commits at 6.5 s, and then C1 crashes as scheduled.
    let (sim, facts) = users_crash_after(Command::CrashConsumer {
        consumer: ConsumerId::new(0),
        point: CrashPoint::AfterCommitBeforeAck,
        restart_after_s: Some(1.0),
    });
    let crashes: Vec<(u64, CrashPoint, Trigger)> = facts
        .iter()
        .filter_map(|&(t, f)| match f {
            Fact::ConsumerCrashed { point, trigger, .. } => Some((t, point, trigger)),
            _ => None,
        })
        .collect();
    assert_eq!(
        crashes,
        vec![
            (1_200_000, CrashPoint::Now, Trigger::User),
            (
                6_500_000,
                CrashPoint::AfterCommitBeforeAck,
                Trigger::Scheduled
            ),
        ]
    );
    // It struck once: the restarted consumer is no longer armed, and #0 ends acked.
    assert_eq!(sim.consumer(ConsumerId::new(0)).unwrap().armed, None);
    assert_eq!(sim.copy(0).unwrap().fate, Fate::Done);
    assert_eq!(sim.effect_count(MsgId::new(0)), 2);
}

#[test]
fn a_scheduled_lost_ack_survives_a_users_crash_and_takes_the_restarted_consumers_next_ack() {
    // The same for "drop next ack" (an interview's hidden fault): the user's crash does
    // not defeat it; the next ack after the restart, #0's at 6.5 s, is the one lost.
    let (sim, facts) = users_crash_after(Command::DropNextAck {
        consumer: ConsumerId::new(0),
    });
    let lost: Vec<u64> = facts
        .iter()
        .filter(|(_, f)| matches!(f, Fact::AckLost { .. }))
        .map(|&(t, _)| t)
        .collect();
    assert_eq!(lost, vec![6_500_000]);
    assert!(!sim.consumer(ConsumerId::new(0)).unwrap().drop_next_ack);
}

/// The story `name` with its first command set to `scheduled` (at `at_s`), run until
/// `user_at_us`, when the user's `crash` strikes; then to the end. All facts, timed.
fn users_crash_in(
    name: &str,
    scheduled: Command,
    at_s: f64,
    user_at_us: u64,
    crash: Command,
) -> (Simulation, Vec<(u64, Fact)>) {
    let mut s = examples::load(name).unwrap();
    s.commands[0].at_s = at_s;
    s.commands[0].command = scheduled;
    let mut sim = Simulation::new(s).unwrap();
    sim.run_until(user_at_us);
    let step = sim.command(crash).unwrap();
    let mut facts: Vec<(u64, Fact)> = step.facts.iter().map(|f| (user_at_us, *f)).collect();
    facts.extend(run_checked(&mut sim));
    (sim, facts)
}

#[test]
fn a_scheduled_producer_crash_after_commit_survives_a_users_crash() {
    // dual-write-crash arms order-service's crash at 1.5 s; the user crashes it at 1.7 s,
    // back 0.1 s later. The scheduled crash still strikes after the next state commit
    // (#1 at 2 s), which is never published; before, the user's crash disarmed it.
    let scheduled = examples::load("dual-write-crash").unwrap().commands[0]
        .command
        .clone();
    let (sim, facts) = users_crash_in(
        "dual-write-crash",
        scheduled,
        1.5,
        1_700_000,
        Command::CrashProducer {
            producer: ProducerId::new(0),
            point: ProducerCrashPoint::Now,
            restart_after_s: Some(0.1),
        },
    );
    let crashes: Vec<(u64, ProducerCrashPoint, Trigger)> = facts
        .iter()
        .filter_map(|&(t, f)| match f {
            Fact::ProducerCrashed { point, trigger, .. } => Some((t, point, trigger)),
            _ => None,
        })
        .collect();
    assert_eq!(
        crashes,
        vec![
            (1_700_000, ProducerCrashPoint::Now, Trigger::User),
            (
                2_000_000,
                ProducerCrashPoint::AfterCommitBeforePublish,
                Trigger::Scheduled
            ),
        ]
    );
    assert_eq!(
        sim.message(MsgId::new(1)).unwrap().fate,
        PublishFate::NeverPublished
    );
    assert_eq!(sim.producer_view(ProducerId::new(0)).unwrap().armed, None);
}

#[test]
fn a_scheduled_lost_confirm_survives_a_users_crash_of_the_producer() {
    // lost-confirm loses #0's confirm (armed at 0 s). The user crashes checkout at 0.5 s,
    // back 0.1 s later, before #0 is even created (1 s): #0's confirm is still the one
    // lost. Before, the crash cleared it and #0 was confirmed at once.
    let scheduled = Command::DropNextConfirm {
        producer: ProducerId::new(0),
    };
    let (_, facts) = users_crash_in(
        "lost-confirm",
        scheduled,
        0.0,
        500_000,
        Command::CrashProducer {
            producer: ProducerId::new(0),
            point: ProducerCrashPoint::Now,
            restart_after_s: Some(0.1),
        },
    );
    let lost: Vec<(u64, MsgId)> = facts
        .iter()
        .filter_map(|&(t, f)| match f {
            Fact::ConfirmLost { msg, .. } => Some((t, msg)),
            _ => None,
        })
        .collect();
    assert_eq!(lost, vec![(1_050_000, MsgId::new(0))]);
}

#[test]
fn a_scheduled_member_crash_after_its_next_record_survives_a_users_crash() {
    // log-commit-modes arms after-1's crash at 3 s, after its next record; the user
    // crashes after-1 at 3.1 s, halfway through #5, back 0.2 s later. When it owns the
    // partition again, its next record still crashes it; before, the user's crash
    // disarmed it. Back at 3.3 s, it is given the partition again after the rebalance
    // and crashes once it has processed its next record (4.1 s).
    let scheduled = examples::load("log-commit-modes").unwrap().commands[0]
        .command
        .clone();
    let (_, facts) = users_crash_in(
        "log-commit-modes",
        scheduled,
        3.0,
        3_100_000,
        Command::CrashMember {
            group: GroupId::new(0),
            member: 0,
            point: MemberCrashPoint::Now,
            restart_after_s: Some(0.2),
        },
    );
    let crashes: Vec<(u64, MemberCrashPoint, Trigger)> = facts
        .iter()
        .filter_map(|&(t, f)| match f {
            Fact::MemberCrashed {
                group,
                member: 0,
                point,
                trigger,
                ..
            } if group == GroupId::new(0) => Some((t, point, trigger)),
            _ => None,
        })
        .collect();
    assert_eq!(
        crashes,
        vec![
            (3_100_000, MemberCrashPoint::Now, Trigger::User),
            (
                4_100_000,
                MemberCrashPoint::AfterProcessBeforeCommit,
                Trigger::Scheduled
            ),
        ]
    );
}

/// The crashes and the armings in `facts`, timed, with their triggers.
fn crash_story(facts: &[(u64, Fact)]) -> Vec<(u64, &'static str, Trigger)> {
    facts
        .iter()
        .filter_map(|&(t, f)| match f {
            Fact::CrashArmed { trigger, .. }
            | Fact::ProducerCrashArmed { trigger, .. }
            | Fact::MemberCrashArmed { trigger, .. } => Some((t, "armed", trigger)),
            Fact::ConsumerCrashed { trigger, .. } | Fact::ProducerCrashed { trigger, .. } => {
                Some((t, "crashed", trigger))
            }
            // Group after's after-1 only (log-commit-modes crashes group before's too).
            Fact::MemberCrashed {
                group,
                member: 0,
                trigger,
                ..
            } if group == GroupId::new(0) => Some((t, "crashed", trigger)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_crash_scheduled_while_the_consumer_is_down_strikes_it_once_it_is_back() {
    // The user crashes C1 at 1.2 s, back at 1.7 s; the crash after its next commit is
    // scheduled at 1.5 s, while C1 is down. It is armed (and said), and strikes after
    // the next commit, #0's at 6.5 s. Before, it was dropped without a word.
    let scheduled = Command::CrashConsumer {
        consumer: ConsumerId::new(0),
        point: CrashPoint::AfterCommitBeforeAck,
        restart_after_s: Some(1.0),
    };
    let user = Command::CrashConsumer {
        consumer: ConsumerId::new(0),
        point: CrashPoint::Now,
        restart_after_s: Some(0.5),
    };
    let (_, facts) = users_crash_in("crash-after-commit", scheduled, 1.5, 1_200_000, user);
    assert_eq!(
        crash_story(&facts),
        vec![
            (1_200_000, "crashed", Trigger::User),
            (1_500_000, "armed", Trigger::Scheduled),
            (6_500_000, "crashed", Trigger::Scheduled),
        ]
    );
}

#[test]
fn a_crash_scheduled_while_the_producer_is_down_strikes_it_once_it_is_back() {
    // order-service is down from 1.2 s to 1.7 s; its crash after the next state commit
    // is scheduled at 1.5 s and strikes at 2 s (#1). Before, it was dropped unsaid.
    let scheduled = examples::load("dual-write-crash").unwrap().commands[0]
        .command
        .clone();
    let user = Command::CrashProducer {
        producer: ProducerId::new(0),
        point: ProducerCrashPoint::Now,
        restart_after_s: Some(0.5),
    };
    let (sim, facts) = users_crash_in("dual-write-crash", scheduled, 1.5, 1_200_000, user);
    assert_eq!(
        crash_story(&facts),
        vec![
            (1_200_000, "crashed", Trigger::User),
            (1_500_000, "armed", Trigger::Scheduled),
            (2_000_000, "crashed", Trigger::Scheduled),
        ]
    );
    assert_eq!(
        sim.message(MsgId::new(1)).unwrap().fate,
        PublishFate::NeverPublished
    );
}

#[test]
fn a_crash_scheduled_while_the_member_is_down_strikes_it_once_it_is_back() {
    // after-1 is down from 2.9 s to 3.1 s (the user's crash); its crash after the next
    // record is scheduled at 3 s, while it is down, and strikes once it has the partition
    // again and has processed a record (3.9 s). Before, it was dropped unsaid.
    let scheduled = examples::load("log-commit-modes").unwrap().commands[0]
        .command
        .clone();
    let user = Command::CrashMember {
        group: GroupId::new(0),
        member: 0,
        point: MemberCrashPoint::Now,
        restart_after_s: Some(0.2),
    };
    let (_, facts) = users_crash_in("log-commit-modes", scheduled, 3.0, 2_900_000, user);
    assert_eq!(
        crash_story(&facts),
        vec![
            (2_900_000, "crashed", Trigger::User),
            (3_000_000, "armed", Trigger::Scheduled),
            (3_900_000, "crashed", Trigger::Scheduled),
        ]
    );
}

#[test]
fn scaling_in_says_it_calls_off_the_crash_armed_on_the_leaving_consumer() {
    // crash-after-commit arms C1's crash after its next commit at 0 s; at 0.5 s the user
    // scales the queue to no consumer, before any delivery. C1 is leaving, so the crash is
    // called off, and the event says so (before, it was cleared without a word); C1 then
    // stops having never crashed.
    let mut sim = Simulation::new(examples::load("crash-after-commit").unwrap()).unwrap();
    sim.run_until(500_000);
    let queue = sim.scenario().queues[0].name.clone();
    let step = sim
        .command(Command::SetConsumerCount { queue, count: 0 })
        .unwrap();
    let stopping = step
        .facts
        .iter()
        .find(|f| matches!(f, Fact::ConsumerStopping { .. }))
        .copied()
        .expect("C1 retires");
    assert_eq!(
        stopping,
        Fact::ConsumerStopping {
            consumer: ConsumerId::new(0),
            trigger: Trigger::User,
            called_off: ArmedFaults {
                crash: Some(CrashPoint::AfterCommitBeforeAck),
                lost_ack: false,
            },
            still_armed: ArmedFaults::default(),
        }
    );
    for (lang, called_off) in [(Lang::En, "is called off"), (Lang::Es, "queda anulada")] {
        let told = narration::describe(&sim, &stopping, lang);
        assert!(told.contains(called_off), "{told}");
    }
    let facts = run_checked(&mut sim);
    assert!(facts
        .iter()
        .all(|(_, f)| !matches!(f, Fact::ConsumerCrashed { .. })));
    assert_eq!(sim.consumer(ConsumerId::new(0)).unwrap().armed, None);
}
