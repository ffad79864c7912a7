//! A seek moves a member's position, as `KafkaConsumer.seek` does: the committed offset
//! moves with the member's next commit (behind the last commit too), and a member that
//! crashes before it resumes at the last commit. A partition no member up holds has its
//! committed offset reset instead (`kafka-consumer-groups --reset-offsets`).
//!
//! An offset outside what a held partition holds (before its log start, or past its
//! log end; the end itself is valid) is out of range: the group's `auto_offset_reset`
//! takes the member to the log start or the log end, as Kafka's consumer does after
//! OFFSET_OUT_OF_RANGE. A partition no member up holds is clamped instead, as the reset
//! tool does.
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

// ----- offsets out of range ----------------------------------------------------------
//
// `seek-range`: one partition, one member of group g processing each record in 0.1 s.
// Records are appended every 0.5 s from 0.5 s to 4.5 s (offsets 0 to 8: the log end is 9
// from then on), none until 20.5 s, then five more (offsets 9 to 13).

const G: GroupId = GroupId::new(0);

fn seek_range(offset_reset: &str, commands: Vec<ScheduledCommand>) -> Scenario {
    let mut s = Scenario::from_json(&format!(
        r#"{{
        "version": 4, "name": "seek-range", "seed": 1,
        "producers": [{{ "name": "p", "target": "orders", "count": 14,
            "arrivals": {{ "process": "constant", "schedule": [{{ "from_s": 0, "rate_per_s": 2 }},
                {{ "from_s": 5, "rate_per_s": 0 }}, {{ "from_s": 20, "rate_per_s": 2 }}] }} }}],
        "logs": [{{ "name": "orders", "partitions": 1 }}],
        "groups": [{{ "name": "g", "log": "orders", "members": 1, "auto_offset_reset": "{offset_reset}",
            "service": {{ "fixed": {{ "seconds": 0.1 }} }}, "commit": "after_processing" }}],
        "end_s": 30
    }}"#
    ))
    .unwrap();
    s.commands = commands;
    s
}

fn seek_to(at_s: f64, offset: u64) -> ScheduledCommand {
    at(at_s, Command::SeekTo { group: G, offset })
}

/// How many times group `g` applied each message's effect, messages 0 to 13.
fn applied(sim: &Simulation) -> Vec<u32> {
    let t = sim.group_tables(G).unwrap();
    (0..14)
        .map(|m| t.applied(brokerlab_core::MsgId::new(m)))
        .collect()
}

fn out_of_range(facts: &[Told]) -> Vec<&Told> {
    facts
        .iter()
        .filter(|(_, f, _)| matches!(f, Fact::SeekOutOfRange { .. }))
        .collect()
}

/// `KafkaConsumer.seek` past the log end: the next fetch fails with OFFSET_OUT_OF_RANGE,
/// and `auto.offset.reset=earliest` takes the member to the log start: it reads every
/// record retained again, exactly as a seek to the earliest offset does.
#[test]
fn a_seek_past_the_end_with_earliest_reads_again_from_the_log_start() {
    let (sim, facts) = run_told(seek_range("earliest", vec![seek_to(10.0, 1000)]));
    let told = out_of_range(&facts);
    assert_eq!(told.len(), 1);
    let (t, fact, text) = told[0];
    assert_eq!(*t, 10 * S);
    assert_eq!(
        *fact,
        Fact::SeekOutOfRange {
            group: G,
            offset: 1000,
            by_policy: 1,
            reset: brokerlab_core::OffsetReset::Earliest,
            clamped: 0
        }
    );
    assert!(
        text.contains("OFFSET_OUT_OF_RANGE")
            && text.contains("auto.offset.reset=earliest takes it to the log start"),
        "{text}"
    );
    // Offsets 0 to 8 were read twice; the later ones once.
    assert_eq!(applied(&sim), [2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1]);
    assert_eq!(sim.counters().records_skipped, 0);
    // The same run as a seek to the earliest offset.
    let (earliest, _) = run(seek_range(
        "earliest",
        vec![at(10.0, Command::SeekToEarliest { group: G })],
    ));
    assert_eq!(earliest.counters(), sim.counters());
}

/// With `auto.offset.reset=latest` the member goes to the log end instead: the records it
/// had not read it never will, counted as skipped; the one in hand is finished.
#[test]
fn a_seek_past_the_end_with_latest_goes_to_the_end_and_skips_what_was_unread() {
    let mut s = seek_range("latest", vec![seek_to(3.2, 1000)]);
    // Slower than the appends: at 3.2 s offsets 0 to 5 are there, 0 and 1 processed, 2 in
    // hand (3.5 s), 3 to 5 unread.
    s.groups[0].service = brokerlab_core::ServiceTime::Fixed { seconds: 1.0 };
    let (sim, facts) = run_told(s);
    let (_, fact, text) = out_of_range(&facts)[0];
    assert!(
        matches!(
            fact,
            Fact::SeekOutOfRange {
                by_policy: 1,
                reset: brokerlab_core::OffsetReset::Latest,
                clamped: 0,
                ..
            }
        ),
        "{fact:?}"
    );
    assert!(
        text.contains("auto.offset.reset=latest takes it to the log end"),
        "{text}"
    );
    let (t, fact, text) = first(&facts, |f| matches!(f, Fact::RecordsSkipped { .. }));
    assert_eq!(*t, 3_200_000);
    assert!(
        matches!(
            fact,
            Fact::RecordsSkipped {
                from: 3,
                to: 6,
                why: brokerlab_core::step::SkipReason::SeekOutOfRange,
                ..
            }
        ),
        "{fact:?}"
    );
    assert!(
        text.starts_with("Group g will never process offsets 3–5 of partition 0: the seek's offset was out of range"),
        "{text}"
    );
    let c = sim.counters();
    assert_eq!(c.records_skipped, 3);
    assert_eq!(c.records_processed + c.records_skipped, c.appended);
    // #2, in hand at the seek, is finished; #3 to #5 are never read; the rest once.
    assert_eq!(applied(&sim), [1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]);
    let p = &sim.group_partitions(G)[0];
    assert_eq!((p.committed, p.end, p.lag), (14, 14, 0));
}

/// The log end itself is a valid offset (the next record's): a seek there reads nothing
/// until a record is appended, and no reset happens. A seek past the end with `latest`,
/// once everything is read, ends the same way, with nothing skipped.
#[test]
fn a_seek_to_the_log_end_reads_nothing_more_until_new_records() {
    let (sim, facts) = run_told(seek_range("earliest", vec![seek_to(10.0, 9)]));
    assert!(out_of_range(&facts).is_empty());
    let started: Vec<(Micros, u64)> = facts
        .iter()
        .filter_map(|(t, f, _)| match *f {
            Fact::RecordStarted { offset, .. } if *t >= 10 * S => Some((*t, offset)),
            _ => None,
        })
        .collect();
    assert_eq!(started.first(), Some(&(20_500_000, 9)), "{started:?}");
    assert_eq!(applied(&sim), [1; 14]);
    let (latest, facts) = run_told(seek_range("latest", vec![seek_to(10.0, 1000)]));
    assert_eq!(out_of_range(&facts).len(), 1);
    assert_eq!(latest.counters().records_skipped, 0);
    assert_eq!(applied(&latest), [1; 14]);
    assert_eq!(latest.counters(), sim.counters());
}

/// An offset below the log start is out of range too: the same policy applies.
#[test]
fn a_seek_below_the_log_start_applies_the_reset_policy_too() {
    for (reset, expected) in [
        // Retention keeps 5 records: offsets 4 to 8 at 10 s, read again from 4.
        ("earliest", [1, 1, 1, 1, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1]),
        // To the end: nothing read again, nothing unread to skip.
        ("latest", [1; 14]),
    ] {
        let mut s = seek_range(reset, vec![seek_to(10.0, 0)]);
        s.logs[0].retention_records = Some(5);
        let (sim, facts) = run_told(s);
        let told = out_of_range(&facts);
        assert_eq!(told.len(), 1, "{reset}");
        assert_eq!(applied(&sim), expected, "{reset}");
        assert_eq!(sim.counters().records_skipped, 0, "{reset}");
    }
}

/// A partition no member up holds is reset as `kafka-consumer-groups --reset-offsets
/// --to-offset` does: clamped to the nearest offset it holds (the tool's "New offset (X)
/// is higher than latest offset… Value will be set to Y"), whatever the reset policy.
#[test]
fn reset_offsets_for_a_partition_no_member_holds_still_clamps() {
    // g's only member is down from 8 s to 13 s.
    let crash = at(8.0, crash_member_now(0, 0, Some(5.0)));
    for reset in ["earliest", "latest"] {
        let (sim, facts) = run_told(seek_range(reset, vec![crash.clone(), seek_to(10.0, 1000)]));
        let (_, fact, text) = out_of_range(&facts)[0];
        assert!(
            matches!(
                fact,
                Fact::SeekOutOfRange {
                    by_policy: 0,
                    clamped: 1,
                    ..
                }
            ),
            "{fact:?}"
        );
        assert!(
            text.ends_with(
                "no member up holds it, so its committed offset is set to the nearest offset \
                 it holds, as kafka-consumer-groups --reset-offsets does."
            ),
            "{text}"
        );
        // Back at 13 s, it resumes at the log end (9): nothing read again, nothing skipped.
        let resumed: Vec<u64> = facts
            .iter()
            .filter_map(|(t, f, _)| match *f {
                Fact::PartitionAssigned {
                    member: Some(_),
                    from_offset,
                    ..
                } if *t > 10 * S => Some(from_offset),
                _ => None,
            })
            .collect();
        assert_eq!(resumed, [9], "{reset}");
        assert_eq!(applied(&sim), [1; 14], "{reset}");
        assert_eq!(sim.counters().records_skipped, 0, "{reset}");
    }
}

/// `auto.offset.reset=latest` moves only the member's fetch position: its committed
/// offset stays where it was. A member that crashes after the reset, before its next
/// commit, resumes at its last commit and reads the records the reset passed after all:
/// they stop counting as skipped, and their jobs complete.
#[test]
fn a_crash_after_a_reset_to_latest_reads_the_passed_records_and_undoes_their_skip() {
    // As in `a_seek_past_the_end_with_latest_…`: at 3.2 s #0 and #1 are processed and
    // committed (2), #2 is in hand, #3 to #5 unread. The member crashes at 3.3 s, before
    // finishing #2, and is back at 4.3 s.
    let mut s = seek_range(
        "latest",
        vec![
            seek_to(3.2, 1000),
            at(3.3, crash_member_now(0, 0, Some(1.0))),
        ],
    );
    s.groups[0].service = brokerlab_core::ServiceTime::Fixed { seconds: 1.0 };
    let (sim, facts) = run_told(s);
    // The reset said so at the seek…
    let (t, fact, _) = first(&facts, |f| matches!(f, Fact::RecordsSkipped { .. }));
    assert_eq!(*t, 3_200_000);
    assert!(
        matches!(fact, Fact::RecordsSkipped { from: 3, to: 6, .. }),
        "{fact:?}"
    );
    // …and the member, back, resumed at its last commit, reading #2 to #5 after all.
    let resumed: Vec<u64> = facts
        .iter()
        .filter_map(|(t, f, _)| match *f {
            Fact::PartitionAssigned {
                member: Some(_),
                from_offset,
                ..
            } if *t > 3_300_000 => Some(from_offset),
            _ => None,
        })
        .collect();
    assert_eq!(resumed, [2]);
    // The story says the skip is undone, when the member's partition goes back to 2.
    let (t, fact, text) = first(&facts, |f| matches!(f, Fact::SkipUndone { .. }));
    assert!(*t > 3_300_000, "{t}");
    assert!(
        matches!(
            fact,
            Fact::SkipUndone {
                partition: 0,
                from: 3,
                to: 6,
                ..
            }
        ),
        "{fact:?}"
    );
    assert!(
        text.contains("reads offsets 3–5 of partition 0 after all")
            && text.ends_with("no longer count as skipped."),
        "{text}"
    );
    assert_eq!(applied(&sim), [1; 14]);
    // Nothing is counted both skipped and processed: every record was processed once.
    let c = sim.counters();
    assert_eq!(c.records_skipped, 0, "{c:?}");
    assert_eq!(c.records_processed, c.appended);
    // Every job completed: no message is lost.
    let jobs = sim.jobs_of(None);
    assert_eq!((jobs.failed, jobs.completed), (0, 14), "{jobs:?}");
}

/// A seek back after a reset to the log end reads the records it skipped too: they stop
/// counting as skipped. Without the seek back (the test above without its crash) they
/// stay skipped.
#[test]
fn a_seek_back_after_a_reset_to_latest_undoes_the_skip() {
    let mut s = seek_range(
        "latest",
        vec![
            seek_to(3.2, 1000),
            at(10.0, Command::SeekToEarliest { group: G }),
        ],
    );
    s.groups[0].service = brokerlab_core::ServiceTime::Fixed { seconds: 1.0 };
    let (sim, facts) = run_told(s);
    let c = sim.counters();
    assert_eq!(c.records_skipped, 0, "{c:?}");
    let (t, _, _) = first(&facts, |f| {
        matches!(f, Fact::SkipUndone { from: 3, to: 6, .. })
    });
    assert_eq!(*t, 10_000_000, "told at the seek back");
    // #3 to #5 read once, at the replay; the others before it too.
    assert_eq!(applied(&sim), [2, 2, 2, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1]);
    let jobs = sim.jobs_of(None);
    assert_eq!((jobs.failed, jobs.completed), (0, 14), "{jobs:?}");
}
