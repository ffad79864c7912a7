//! A group member that crashes without leaving its group (Kafka's `session.timeout.ms`):
//! its partitions stay its own, unread, until the coordinator has heard nothing from it
//! for the session timeout; then the group rebalances them to the members still up.
//! Back in time, it takes them up again from their committed offsets without a
//! rebalance, as a static member (`group.instance.id`, KIP-345) does. Without a session
//! timeout a crashed member leaves at once. The invariants are checked after every step.

use brokerlab_core::lang::Lang;
use brokerlab_core::*;

#[path = "common/told.rs"]
mod told;
use told::{first, first_time, Told};

fn example(name: &str) -> Scenario {
    examples::load(name).unwrap_or_else(|| panic!("example {name}"))
}

const LEDGER: GroupId = GroupId::new(0);

/// `log-consumer-groups` with one command: ledger-2 crashes at 10 s (restarting after
/// `restart_after_s`), its group's session timeout `session_s`.
fn crash_at_10(session_s: Option<f64>, restart_after_s: Option<f64>) -> Scenario {
    let mut s = example("log-consumer-groups");
    s.groups[0].session_timeout_s = session_s;
    s.commands = vec![ScheduledCommand {
        at_s: 10.0,
        command: Command::CrashMember {
            group: LEDGER,
            member: 1,
            point: MemberCrashPoint::Now,
            restart_after_s,
        },
        unannounced: false,
    }];
    s
}

/// What a run with a member crash shows: every fact with its instant and its English
/// sentence, and the partitions member 1 of group 0 (ledger-2 in `log-consumer-groups`)
/// owned just before the first crash. The invariants are checked after every step.
struct Run {
    sim: Simulation,
    facts: Vec<Told>,
    held: Vec<u32>,
}

fn run_timed(s: Scenario) -> Run {
    let mut sim = Simulation::new(s).unwrap();
    let (mut facts, mut held) = (Vec::new(), Vec::new());
    let mut crashed = false;
    loop {
        if !crashed {
            held = sim.group_member(LEDGER, 1).unwrap().partitions;
        }
        let Some(step) = sim.step() else { break };
        let step_facts: Vec<Fact> = step.facts.to_vec();
        invariants::check(&sim).unwrap_or_else(|e| panic!("step {}: {e}", sim.steps()));
        let now = sim.now_us();
        for f in step_facts {
            crashed |= matches!(f, Fact::MemberCrashed { .. });
            let text = narration::describe(&sim, &f, Lang::En);
            facts.push((now, f, text));
        }
    }
    assert!(
        !held.is_empty(),
        "ledger-2 owned partitions before its crash"
    );
    Run { sim, facts, held }
}

/// Ledger records of `partitions` processed in `[from, to)`.
fn processed_between(facts: &[Told], partitions: &[u32], from: Micros, to: Micros) -> usize {
    facts
        .iter()
        .filter(|(t, f, _)| {
            (from..to).contains(t)
                && matches!(*f, Fact::RecordProcessed { group, partition, .. }
                    if group == LEDGER && partitions.contains(&partition))
        })
        .count()
}

/// When partition `p` of ledger first went to ledger-1.
fn assigned_to_ledger_1(facts: &[Told], p: u32) -> Option<Micros> {
    first_time(facts, |f| {
        matches!(*f, Fact::PartitionAssigned { group, partition, member: Some(0), .. }
            if group == LEDGER && partition == p)
    })
}

/// Whether group `g` committed every record of every partition.
fn read_to_the_end(sim: &Simulation, g: GroupId) -> bool {
    sim.group_partitions(g).iter().all(|p| p.committed == p.end)
}

fn rebalance_started_in(facts: &[Told], from: Micros, to: Micros) -> bool {
    facts.iter().any(|(t, f, _)| {
        (from..to).contains(t)
            && matches!(*f, Fact::RebalanceStarted { group, .. } if group == LEDGER)
    })
}

#[test]
fn without_a_session_timeout_a_crashed_member_leaves_at_once() {
    let Run { facts, held, .. } = run_timed(crash_at_10(None, None));
    assert!(rebalance_started_in(&facts, 10_000_000, 10_000_001));
    // The rebalance round takes rebalance_s (1 s): ledger-1 has them at 11 s.
    for &p in &held {
        let assigned = assigned_to_ledger_1(&facts, p);
        assert_eq!(assigned, Some(11_000_000), "partition {p}");
    }
    assert!(processed_between(&facts, &held, 11_000_000, 55_000_000) > 0);
    assert!(!facts
        .iter()
        .any(|(_, f, _)| matches!(f, Fact::MemberSessionTimedOut { .. })));
}

#[test]
fn a_crashed_member_keeps_its_partitions_unread_until_its_session_times_out() {
    let Run { sim, facts, held } = run_timed(crash_at_10(Some(45.0), None));
    let crash = first(&facts, |f| matches!(f, Fact::MemberCrashed { .. }));
    assert_eq!(
        crash.1,
        Fact::MemberCrashed {
            group: LEDGER,
            member: 1,
            point: MemberCrashPoint::Now,
            trigger: Trigger::Scheduled,
            restart_at_us: None,
            session_ends_at_us: Some(55_000_000),
        }
    );
    assert!(
        crash
            .2
            .ends_with("Its partitions stay its own, unread, until its session times out at 55 s. It stays down until a restart."),
        "{}",
        crash.2
    );
    // Nobody reads them for 45 s, and nobody rebalances.
    assert_eq!(processed_between(&facts, &held, 10_000_000, 55_000_000), 0);
    assert!(!rebalance_started_in(&facts, 10_000_000, 55_000_000));
    // The other partitions keep flowing meanwhile.
    let others: Vec<u32> = (0..4).filter(|p| !held.contains(p)).collect();
    assert!(processed_between(&facts, &others, 10_000_000, 55_000_000) > 0);
    // At 55 s the coordinator removes it; after the round (1 s) ledger-1 has them.
    let timed_out = first_time(
        &facts,
        |f| matches!(f, Fact::MemberSessionTimedOut { group, member: 1 } if *group == LEDGER),
    );
    assert_eq!(timed_out, Some(55_000_000));
    assert!(rebalance_started_in(&facts, 55_000_000, 55_000_001));
    for &p in &held {
        let assigned = assigned_to_ledger_1(&facts, p);
        assert!(
            assigned.is_some_and(|t| t >= 56_000_000),
            "partition {p}: {assigned:?}"
        );
    }
    assert!(processed_between(&facts, &held, 56_000_000, 90_000_001) > 0);
    // The lag it left is read in the end: every ledger record is processed.
    assert!(read_to_the_end(&sim, LEDGER));
}

#[test]
fn back_within_its_session_a_member_resumes_its_partitions_without_a_rebalance() {
    let Run { sim, facts, held } = run_timed(crash_at_10(Some(45.0), Some(5.0)));
    assert_eq!(processed_between(&facts, &held, 10_000_000, 15_000_000), 0);
    assert!(!rebalance_started_in(&facts, 10_000_000, 90_000_001));
    // At 15 s each partition comes back to ledger-2 at the offset last committed on it.
    for &p in &held {
        let last_commit = facts
            .iter()
            .filter(|(t, _, _)| *t < 10_000_000)
            .filter_map(|(_, f, _)| match *f {
                Fact::OffsetCommitted {
                    group,
                    partition,
                    offset,
                } if group == LEDGER && partition == p => Some(offset),
                _ => None,
            })
            .next_back()
            .unwrap_or(0);
        let back = facts.iter().find(|(t, f, _)| {
            *t == 15_000_000
                && matches!(*f, Fact::PartitionAssigned { group, partition, member: Some(1), .. }
                    if group == LEDGER && partition == p)
        });
        let Some((_, Fact::PartitionAssigned { from_offset, .. }, _)) = back else {
            panic!("partition {p} did not come back to ledger-2 at 15 s");
        };
        assert_eq!(*from_offset, last_commit, "partition {p}");
    }
    assert!(processed_between(&facts, &held, 15_000_000, 16_000_000) > 0);
    // The session timer set at the crash is moot once it is back.
    assert!(!facts
        .iter()
        .any(|(_, f, _)| matches!(f, Fact::MemberSessionTimedOut { .. })));
    assert!(read_to_the_end(&sim, LEDGER));
}

/// A rebalance for another reason while the crashed member is still in the group (here a
/// member joins at 20 s) moves its partitions to the members up: the crashed member
/// commits nothing, so they resume at its last commit. Its session still ends later.
#[test]
fn a_rebalance_during_the_session_gives_the_crashed_members_partitions_away() {
    let mut s = crash_at_10(Some(45.0), None);
    s.commands.push(ScheduledCommand {
        at_s: 20.0,
        command: Command::AddMember { group: LEDGER },
        unannounced: false,
    });
    let Run { sim, facts, held } = run_timed(s);
    assert_eq!(processed_between(&facts, &held, 10_000_000, 20_000_000), 0);
    assert!(rebalance_started_in(&facts, 20_000_000, 20_000_001));
    let committed_meanwhile = facts.iter().any(|(t, f, _)| {
        (10_000_000..21_000_000).contains(t)
            && matches!(*f, Fact::OffsetCommitted { group, partition, .. }
                if group == LEDGER && held.contains(&partition))
    });
    assert!(!committed_meanwhile, "a crashed member commits nothing");
    assert!(processed_between(&facts, &held, 21_000_000, 55_000_000) > 0);
    assert_eq!(
        first_time(&facts, |f| matches!(f, Fact::MemberSessionTimedOut { .. })),
        Some(55_000_000)
    );
    assert!(read_to_the_end(&sim, LEDGER));
}

#[test]
fn a_session_that_would_end_after_the_run_is_said_so() {
    let Run { facts, .. } = run_timed(crash_at_10(Some(500.0), None));
    let (_, _, text) = first(&facts, |f| matches!(f, Fact::MemberCrashed { .. }));
    assert!(
        text.ends_with("Its partitions stay its own, unread, to the end: its session would time out after the run ends. It stays down until a restart."),
        "{text}"
    );
}

#[test]
fn a_session_timeout_is_checked_and_kept_by_the_scenario_file() {
    let mut s = crash_at_10(Some(0.0), None);
    let refused = s.validate().unwrap_err().to_string();
    assert!(refused.contains("session_timeout_s"), "{refused}");
    s.groups[0].session_timeout_s = Some(45.0);
    let back = Scenario::from_json(&s.to_json_pretty()).unwrap();
    assert_eq!(back.groups[0].session_timeout_s, Some(45.0));
    // A group without one writes no field, so files of earlier builds read the same.
    let none = example("log-consumer-groups").to_json_pretty();
    assert!(!none.contains("session_timeout_s"));
}

/// The `member-session-timeout` example tells the three ways side by side: audit (no
/// session timeout) moves the crashed member's partitions at 11 s, billing (20 s, stays
/// down) leaves them unread until 30 s and moves them at 31 s, ledger (20 s, back at
/// 15 s) takes them up again at 15 s without a rebalance.
#[test]
fn the_example_shows_a_member_leaving_at_once_timing_out_and_coming_back() {
    let s = example("member-session-timeout");
    let (audit, billing, ledger) = (GroupId::new(0), GroupId::new(1), GroupId::new(2));
    let Run { sim, facts, .. } = run_timed(s);
    // When each group's partitions 2 and 3 (the second member's) got an owner after the
    // crash, and who.
    let moved = |g: GroupId| -> Vec<(Micros, Option<MemberId>)> {
        facts
            .iter()
            .filter_map(|&(t, f, _)| match f {
                Fact::PartitionAssigned {
                    group,
                    partition: 2 | 3,
                    member,
                    ..
                } if group == g && t >= 10_000_000 => Some((t, member)),
                _ => None,
            })
            .collect()
    };
    assert_eq!(moved(audit), [(11_000_000, Some(0)); 2]);
    assert_eq!(moved(billing), [(31_000_000, Some(0)); 2]);
    assert_eq!(moved(ledger), [(15_000_000, Some(1)); 2]);
    let rebalances = |g: GroupId| {
        facts
            .iter()
            .filter(|(_, f, _)| matches!(*f, Fact::RebalanceStarted { group, .. } if group == g))
            .map(|(t, _, _)| *t)
            .collect::<Vec<_>>()
    };
    assert_eq!(rebalances(audit), [10_000_000]);
    assert_eq!(rebalances(billing), [30_000_000]);
    assert_eq!(rebalances(ledger), Vec::<Micros>::new());
    let billing_read_meanwhile = facts.iter().any(|&(t, f, _)| {
        (10_000_000..31_000_000).contains(&t)
            && matches!(f, Fact::RecordProcessed { group, partition: 2 | 3, .. } if group == billing)
    });
    assert!(!billing_read_meanwhile);
    // In the end every group has read every record.
    for g in [audit, billing, ledger] {
        assert!(read_to_the_end(&sim, g));
    }
}

/// The group coordinator is a broker: while it is down no session times out, and when it
/// is back each crashed member still in the group gets a whole session again (Kafka's
/// coordinator starts every member's session afresh as it loads the group).
#[test]
fn a_broker_outage_holds_the_session_and_its_restart_starts_it_again() {
    let mut s = crash_at_10(Some(20.0), None);
    s.commands.push(ScheduledCommand {
        at_s: 25.0,
        command: Command::CrashBroker {
            restart_after_s: Some(15.0),
        },
        unannounced: false,
    });
    let Run { sim, facts, held } = run_timed(s);
    let timed_out = first_time(&facts, |f| matches!(f, Fact::MemberSessionTimedOut { .. }));
    assert_eq!(timed_out, Some(60_000_000), "20 s from the restart at 40 s");
    assert_eq!(processed_between(&facts, &held, 10_000_000, 61_000_000), 0);
    assert!(processed_between(&facts, &held, 61_000_000, 90_000_001) > 0);
    assert!(read_to_the_end(&sim, LEDGER));
}
