//! A seek moves a member's position, as `KafkaConsumer.seek` does: the committed offset
//! moves with the member's next commit (behind the last commit too), and a member that
//! crashes before it resumes at the last commit. A partition no member up holds has its
//! committed offset reset instead (`kafka-consumer-groups --reset-offsets`).
//!
//! `log-consumer-groups`: group 1, analytics, has one member that auto-commits every 2 s;
//! its last commit before 40 s leaves offsets 31, 137, 45 and 36 on partitions 0 to 3.

mod common;
#[path = "common/told.rs"]
mod told;

use brokerlab_core::{Command, Fact, GroupId, Micros, Scenario, ScheduledCommand, Simulation};
use common::{at, crash_broker, crash_member_now, example, run};
use told::{first, run_told, Told};

const ANALYTICS: GroupId = GroupId::new(1);
const LAST_COMMIT: [u64; 4] = [31, 137, 45, 36];
const S: Micros = 1_000_000;

fn seek_at(at_s: f64) -> ScheduledCommand {
    at(at_s, Command::SeekToEarliest { group: ANALYTICS })
}

fn with(commands: Vec<ScheduledCommand>) -> Scenario {
    let mut s = example("log-consumer-groups");
    s.commands = commands;
    s
}

/// Where analytics' partitions resume after the seek at 40 s, in assignment order.
fn resumed_after_the_seek(facts: &[Told]) -> Vec<u64> {
    facts
        .iter()
        .filter_map(|(t, f, _)| match *f {
            Fact::PartitionAssigned {
                group, from_offset, ..
            } if group == ANALYTICS && *t > 40 * S => Some(from_offset),
            _ => None,
        })
        .collect()
}

fn committed(sim: &Simulation) -> Vec<u64> {
    sim.group_partitions(ANALYTICS)
        .iter()
        .map(|p| p.committed)
        .collect()
}

#[test]
fn a_seek_moves_the_positions_and_the_next_commit_moves_the_committed_offsets_back() {
    let mut sim = Simulation::new(with(vec![seek_at(40.0)])).unwrap();
    sim.run_until(40 * S);
    assert_eq!(committed(&sim), LAST_COMMIT);
    assert!(sim
        .group_partitions(ANALYTICS)
        .iter()
        .all(|p| p.position < 10));
    // Its next auto-commit (41.79 s) commits where the replay is: behind the last commit.
    sim.run_until(41 * S);
    assert_eq!(committed(&sim), LAST_COMMIT, "nothing commits before then");
    sim.run_until(42 * S);
    let after = committed(&sim);
    let views = sim.group_partitions(ANALYTICS);
    for (p, view) in views.iter().enumerate() {
        assert!(after[p] < LAST_COMMIT[p], "partition {p}: {after:?}");
        assert_eq!(view.lag, view.end - after[p]);
    }
}

#[test]
fn a_member_that_crashes_after_a_seek_before_committing_resumes_at_the_last_commit() {
    let crash = at(40.3, crash_member_now(1, 0, Some(1.0)));
    let (sim, facts) = run_told(with(vec![seek_at(40.0), crash]));
    assert_eq!(resumed_after_the_seek(&facts), LAST_COMMIT);
    // The replay stops: the records up to the last commit were read before the seek.
    assert!(!facts.iter().any(|(_, f, _)| matches!(
        f,
        Fact::RecordsSkipped { group, .. } if *group == ANALYTICS
    )));
    assert_eq!(sim.counters().records_skipped, 0);
    let (_, _, text) = first(&facts, |f| matches!(f, Fact::GroupRewound { .. }));
    assert!(
        text.ends_with("a crash before it resumes them at the last commit."),
        "{text}"
    );
}

#[test]
fn a_seek_while_the_broker_is_down_commits_nothing_until_it_is_back() {
    let outage = at(39.0, crash_broker(5.0));
    let mut sim = Simulation::new(with(vec![outage, seek_at(40.0)])).unwrap();
    sim.run_until(43 * S);
    assert_eq!(committed(&sim), LAST_COMMIT);
    sim.run_until(47 * S);
    let after = committed(&sim);
    assert!((0..4).all(|p| after[p] < LAST_COMMIT[p]), "{after:?}");
}

#[test]
fn partitions_no_member_up_holds_have_their_committed_offsets_reset_at_once() {
    // analytics' only member is down from 39 s to 45 s: nobody holds its partitions.
    let crash = at(39.0, crash_member_now(1, 0, Some(6.0)));
    let (sim, facts) = run_told(with(vec![crash, seek_at(40.0)]));
    let (t, fact, text) = first(&facts, |f| matches!(f, Fact::GroupRewound { .. }));
    assert_eq!(*t, 40 * S);
    assert!(
        matches!(fact, Fact::GroupRewound { reset: 4, .. }),
        "{fact:?}"
    );
    assert!(
        text.ends_with(
            "4 partitions no member up holds have their committed offsets reset at once."
        ),
        "{text}"
    );
    // Back at 45 s, it replays from the start of each partition.
    assert_eq!(resumed_after_the_seek(&facts), [0, 0, 0, 0]);
    let (_, facts) = run(with(vec![seek_at(40.0)]));
    assert!(facts
        .iter()
        .any(|f| matches!(f, Fact::GroupRewound { reset: 0, .. })));
    assert!(sim.counters().records_processed > 0);
}

/// A group that has committed a whole partition gives retention nothing to wait for; a
/// commit behind it, after a seek, brings the partition back into account with records
/// already past their retention: they expire then, never in the past. (Found by the
/// conservation property test: the expiry was scheduled before the clock.)
#[test]
fn a_commit_behind_after_a_seek_expires_what_retention_passed_meanwhile() {
    let s = Scenario::from_json(
        r#"{
        "version": 4, "name": "seek-retention", "seed": 1,
        "producers": [{ "name": "p", "target": "clicks",
            "arrivals": { "process": "constant",
                "schedule": [{ "from_s": 0, "rate_per_s": 2 }, { "from_s": 4, "rate_per_s": 0 }] } }],
        "logs": [{ "name": "clicks", "partitions": 1, "retention_s": 10 }],
        "groups": [{ "name": "g", "log": "clicks", "members": 1,
            "service": { "fixed": { "seconds": 0.45 } }, "commit": { "auto": { "every_s": 1 } } }],
        "commands": [{ "at_s": 11.05, "command": { "seek_to_earliest": { "group": 0 } } }],
        "end_s": 20
    }"#,
    )
    .unwrap();
    let mut sim = Simulation::new(s).unwrap();
    let mut last = 0;
    let mut expired_at = Vec::new();
    while let Some(step) = sim.step() {
        assert!(
            step.time_us >= last,
            "the clock went back to {}",
            step.time_us
        );
        last = step.time_us;
        for f in step.facts {
            if let Fact::RecordsExpired { .. } = f {
                expired_at.push(step.time_us);
            }
        }
        brokerlab_core::invariants::check(&sim).unwrap();
    }
    // The auto-commit at 12.05 s commits offset 5, behind the end (8): offset 3, due at
    // 11.5 s (appended at 1.5 s), expires then.
    assert!(expired_at.contains(&(12_050_000)), "{expired_at:?}");
}
