//! A member that works on a record longer than its group's poll interval (Kafka's
//! `max.poll.interval.ms`) leaves the group: the group rebalances, the record's partition
//! goes to another member, which reads the record again from the last commit. The slow
//! member still finishes it (its effect applies, a second time once the other member is
//! done too), its commit fails, and it rejoins, which rebalances again. With every record
//! slower than the interval the group never gets past the first one. The invariants are
//! checked after every step.

use brokerlab_core::*;

mod common;
use common::{at, crash_member_now};
#[path = "common/told.rs"]
mod told;
use told::{first, run_told, Told};

const G: GroupId = GroupId::new(0);
const S: Micros = 1_000_000;

/// One partition, a group of two members that take `service_s` over each record, two
/// records (at 1 s and 2 s), the group's poll interval `interval_s`.
fn slow_group(service_s: f64, interval_s: Option<f64>) -> Scenario {
    let mut s = Scenario::from_json(
        r#"{
          "version": 4, "name": "slow-group", "seed": 1,
          "producers": [{ "name": "p", "target": "jobs",
            "arrivals": { "process": "constant",
              "schedule": [{ "from_s": 0, "rate_per_s": 1 }, { "from_s": 2.5, "rate_per_s": 0 }] },
            "payload": { "keys": 4, "op": { "deposit": 10 } } }],
          "logs": [{ "name": "jobs", "partitions": 1 }],
          "groups": [{ "name": "g", "log": "jobs", "members": 2,
            "service": { "fixed": { "seconds": 1 } }, "commit": "after_processing" }],
          "end_s": 2000
        }"#,
    )
    .expect("the scenario reads");
    s.groups[0].service = ServiceTime::Fixed { seconds: service_s };
    s.groups[0].max_poll_interval_s = interval_s;
    s
}

fn times(facts: &[Told], is: impl Fn(&Fact) -> bool) -> Vec<Micros> {
    facts
        .iter()
        .filter(|(_, f, _)| is(f))
        .map(|(t, _, _)| *t)
        .collect()
}

fn left(f: &Fact) -> Option<MemberId> {
    match *f {
        Fact::PollIntervalExceeded { member, .. } => Some(member),
        _ => None,
    }
}

/// Who processed offset `offset`, in order.
fn processed_by(facts: &[Told], offset: u64) -> Vec<(Micros, MemberId)> {
    facts
        .iter()
        .filter_map(|(t, f, _)| match *f {
            Fact::RecordProcessed {
                member, offset: o, ..
            } if o == offset => Some((*t, member)),
            _ => None,
        })
        .collect()
}

fn committed(sim: &Simulation) -> u64 {
    sim.group_partitions(G)[0].committed
}

#[test]
fn without_a_poll_interval_a_slow_record_keeps_its_partition() {
    let (sim, facts) = run_told(slow_group(400.0, None));
    assert_eq!(processed_by(&facts, 0), vec![(401 * S, 0)]);
    assert_eq!(processed_by(&facts, 1), vec![(801 * S, 0)]);
    assert!(times(&facts, |f| left(f).is_some()).is_empty());
    assert_eq!(committed(&sim), 2);
    assert_eq!(sim.counters().duplicate_effects, 0);
}

#[test]
fn a_record_within_the_poll_interval_keeps_its_partition() {
    let (sim, facts) = run_told(slow_group(400.0, Some(450.0)));
    assert_eq!(processed_by(&facts, 0), vec![(401 * S, 0)]);
    assert!(times(&facts, |f| left(f).is_some()).is_empty());
    assert_eq!(committed(&sim), 2);
}

/// Kafka's documented case: processing outlasts `max.poll.interval.ms`, the member is
/// considered failed and leaves, another member reads the record again from the last
/// commit, and the slow member's own commit fails.
#[test]
fn a_record_slower_than_the_poll_interval_is_processed_again_by_the_next_owner() {
    let (sim, facts) = run_told(slow_group(400.0, Some(300.0)));
    // g-1 fetched #0 at 1 s and has not polled by 301 s: it leaves, the group rebalances.
    let first_leave = first(&facts, |f| left(f).is_some());
    assert_eq!((first_leave.0, left(&first_leave.1)), (301 * S, Some(0)));
    assert!(
        first_leave.2.contains("for 300 s without polling again"),
        "{}",
        first_leave.2
    );
    assert!(facts.iter().any(
        |(t, f, _)| *t == 301 * S && matches!(*f, Fact::RebalanceStarted { members_up: 1, .. })
    ));
    // After the 1 s round, g-2 takes the partition from the last commit (none: offset 0).
    assert!(facts.iter().any(|(t, f, _)| *t == 302 * S
        && matches!(
            *f,
            Fact::PartitionAssigned {
                member: Some(1),
                from_offset: 0,
                ..
            }
        )));
    // g-1 still finishes #0 (its effect applies), its commit fails, it rejoins.
    let processed = processed_by(&facts, 0);
    assert_eq!(processed[..2], [(401 * S, 0), (702 * S, 1)]);
    let failed = times(&facts, |f| {
        matches!(
            *f,
            Fact::CommitFailed {
                member: 0,
                offset: 0,
                ..
            }
        )
    });
    assert_eq!(failed.first(), Some(&(401 * S)));
    assert!(facts.iter().any(
        |(t, f, _)| *t == 401 * S && matches!(*f, Fact::RebalanceStarted { members_up: 2, .. })
    ));
    // Every attempt outlasts the interval: the members take turns leaving, the record
    // is processed again and again, and nothing is ever committed.
    assert_eq!(
        times(&facts, |f| left(f).is_some())[..4],
        [301 * S, 602 * S, 903 * S, 1204 * S]
    );
    assert!(processed_by(&facts, 1).is_empty());
    assert_eq!(committed(&sim), 0);
    assert!(sim.counters().duplicate_effects >= 5);
}

fn rebalances(facts: &[Told]) -> Vec<Micros> {
    times(facts, |f| matches!(*f, Fact::RebalanceStarted { .. }))
}

/// A static member (its group has a session timeout) that passes its poll interval sends
/// no leave: it stops heartbeating and keeps its partitions, which nobody reads meanwhile.
/// Back within its session, its commit still fails, and it rejoins as itself, without a
/// rebalance, reading the record again from the last commit.
#[test]
fn a_static_member_past_its_poll_interval_keeps_its_partition_and_reads_the_record_again() {
    let mut s = slow_group(400.0, Some(300.0));
    s.groups[0].session_timeout_s = Some(450.0);
    let (sim, facts) = run_told(s);
    let first_leave = first(&facts, |f| left(f).is_some());
    assert_eq!(first_leave.0, 301 * S);
    assert!(matches!(
        first_leave.1,
        Fact::PollIntervalExceeded {
            member: 0,
            session_ends_at_us: Some(t),
            ..
        } if t == 751 * S
    ));
    assert!(
        first_leave.2.contains("it stops heartbeating")
            && first_leave
                .2
                .contains("until its session times out at 751 s"),
        "{}",
        first_leave.2
    );
    // No rebalance at any point: the partition stays g-1's, and g-2 never reads it.
    assert!(
        rebalances(&facts).iter().all(|&t| t < 300 * S),
        "{:?}",
        rebalances(&facts)
    );
    let processed = processed_by(&facts, 0);
    assert!(processed.iter().all(|&(_, m)| m == 0), "{processed:?}");
    // At 401 s g-1 finishes #0, its commit fails, and it starts on #0 again at once.
    let failed = first(&facts, |f| matches!(*f, Fact::CommitFailed { .. }));
    assert_eq!(failed.0, 401 * S);
    assert!(matches!(
        failed.1,
        Fact::CommitFailed {
            in_session: true,
            ..
        }
    ));
    assert!(failed.2.contains("no rebalance"), "{}", failed.2);
    assert_eq!(processed[..2], [(401 * S, 0), (801 * S, 0)]);
    // Every attempt outlasts the interval: the group never commits, with no storm of
    // rebalances to show it.
    assert_eq!(committed(&sim), 0);
    assert!(times(&facts, |f| left(f).is_some()).len() >= 4);
    assert!(sim.counters().duplicate_effects >= 3);
}

/// Its session runs out before it polls again: the coordinator removes it, the group
/// rebalances, and the other member reads the record again; the slow member's commit
/// then fails and its rejoin starts another round, as a dynamic member's does.
#[test]
fn a_static_member_whose_session_runs_out_first_loses_its_partition() {
    let mut s = slow_group(400.0, Some(300.0));
    s.groups[0].session_timeout_s = Some(45.0);
    let (_, facts) = run_told(s);
    let timed_out = times(&facts, |f| {
        matches!(*f, Fact::MemberSessionTimedOut { member: 0, .. })
    });
    assert_eq!(timed_out.first(), Some(&(346 * S)));
    let after_start: Vec<Micros> = rebalances(&facts)
        .into_iter()
        .filter(|&t| t > 2 * S)
        .collect();
    assert_eq!(after_start[..2], [346 * S, 401 * S]);
    assert!(facts.iter().any(|(t, f, _)| *t == 347 * S
        && matches!(
            *f,
            Fact::PartitionAssigned {
                member: Some(1),
                from_offset: 0,
                ..
            }
        )));
    assert!(facts.iter().any(|(t, f, _)| *t == 401 * S
        && matches!(
            *f,
            Fact::CommitFailed {
                member: 0,
                in_session: false,
                ..
            }
        )));
}

/// A static member that crashes while it is not heartbeating is already in its session:
/// the crash neither restarts the timeout nor starts a rebalance; back before it runs out,
/// the member resumes its partition without one.
#[test]
fn a_static_member_that_crashes_past_its_poll_interval_keeps_its_session() {
    let mut s = slow_group(400.0, Some(300.0));
    s.groups[0].session_timeout_s = Some(450.0);
    s.commands
        .push(at(350.0, crash_member_now(0, 0, Some(100.0))));
    let (_, facts) = run_told(s);
    let crashed = first(&facts, |f| matches!(*f, Fact::MemberCrashed { .. }));
    assert_eq!(crashed.0, 350 * S);
    assert!(matches!(
        crashed.1,
        Fact::MemberCrashed {
            session_ends_at_us: Some(t),
            ..
        } if t == 751 * S
    ));
    assert!(rebalances(&facts).iter().all(|&t| t < 300 * S));
    // Back at 450 s, within its session: it reads #0 again from the last commit.
    assert!(facts.iter().any(|(t, f, _)| *t == 450 * S
        && matches!(
            *f,
            Fact::PartitionAssigned {
                member: Some(0),
                from_offset: 0,
                ..
            }
        )));
    // The record in hand died with it: no failed commit before it is back, and its
    // session never runs out (it is back, and working, long before 751 s).
    assert!(times(&facts, |f| matches!(*f, Fact::CommitFailed { .. }))
        .iter()
        .all(|&t| t > 450 * S));
    assert!(
        times(&facts, |f| matches!(*f, Fact::MemberSessionTimedOut { .. }))
            .iter()
            .all(|&t| t > 751 * S)
    );
}

/// With the broker (the coordinator) down, a static member's session cannot run out; a
/// crash after its end keeps that session, which waits for the broker as well, and the
/// clock never goes back (found by the conservation property test).
#[test]
fn a_static_member_crashing_after_its_session_ended_with_the_broker_down_keeps_the_clock() {
    let mut s = slow_group(400.0, Some(300.0));
    s.groups[0].session_timeout_s = Some(45.0);
    let broker_down = Command::CrashBroker {
        restart_after_s: None,
    };
    s.commands = vec![
        at(320.0, broker_down),
        at(360.0, crash_member_now(0, 0, None)),
    ];
    let (sim, facts) = run_told(s);
    let instants: Vec<Micros> = facts.iter().map(|(t, _, _)| *t).collect();
    assert!(instants.windows(2).all(|w| w[0] <= w[1]), "time went back");
    assert!(times(&facts, |f| matches!(*f, Fact::MemberSessionTimedOut { .. })).is_empty());
    let crashed = first(&facts, |f| matches!(*f, Fact::MemberCrashed { .. }));
    assert!(matches!(
        crashed.1,
        Fact::MemberCrashed {
            session_ends_at_us: Some(t),
            ..
        } if t == 346 * S
    ));
    assert!(sim.now_us() >= 360 * S);
}

#[test]
fn the_eager_protocol_loses_the_record_the_same_way() {
    let mut s = slow_group(400.0, Some(300.0));
    s.groups[0].rebalance = Rebalance::Eager;
    let (sim, facts) = run_told(s);
    assert_eq!(times(&facts, |f| left(f).is_some())[0], 301 * S);
    assert_eq!(processed_by(&facts, 0)[0], (401 * S, 0));
    assert!(processed_by(&facts, 0).len() >= 5);
    assert!(processed_by(&facts, 1).is_empty());
    assert_eq!(committed(&sim), 0);
}

/// With the offset committed as the record is fetched, the next owner starts past it:
/// the slow member's record is processed once (and lost, had the member crashed).
#[test]
fn a_record_committed_before_processing_is_not_read_again() {
    let mut s = slow_group(400.0, Some(300.0));
    s.groups[0].commit = CommitMode::BeforeProcessing;
    let (_, facts) = run_told(s);
    let leave = first(&facts, |f| left(f).is_some());
    assert!(matches!(
        leave.1,
        Fact::PollIntervalExceeded { again: false, .. }
    ));
    assert!(
        leave
            .2
            .ends_with("whose offset was committed before processing: nobody reads it again."),
        "{}",
        leave.2
    );
    assert_eq!(processed_by(&facts, 0), vec![(401 * S, 0)]);
    assert!(facts.iter().any(|(t, f, _)| *t == 302 * S
        && matches!(
            *f,
            Fact::PartitionAssigned {
                member: Some(1),
                from_offset: 1,
                ..
            }
        )));
}

/// An inbox (the processed records' ids, in the effect's transaction) turns the second
/// processing into a skipped duplicate: the effect applies once.
#[test]
fn an_idempotent_handler_applies_the_record_once() {
    let mut s = slow_group(400.0, Some(300.0));
    s.groups[0].idempotency = Idempotency::Inbox;
    let (sim, _) = run_told(s);
    let summary = sim.counters();
    assert_eq!(summary.duplicate_effects, 0);
    assert!(summary.duplicates_skipped >= 5);
    assert_eq!(sim.effect_count(MsgId::new(0)), 1);
}

/// A (dynamic) member that leaves and then crashes owned nothing: its crash starts no
/// rebalance; back, it joins with a rebalance, as any member does. (A static one keeps
/// its session: `a_static_member_that_crashes_past_its_poll_interval_keeps_its_session`.)
#[test]
fn a_member_that_crashes_after_leaving_starts_no_rebalance() {
    let mut s = slow_group(400.0, Some(300.0));
    s.commands = vec![at(350.0, crash_member_now(0, 0, Some(10.0)))];
    let (_, facts) = run_told(s);
    let crash = first(&facts, |f| matches!(f, Fact::MemberCrashed { .. }));
    assert_eq!(crash.0, 350 * S);
    assert!(matches!(
        crash.1,
        Fact::MemberCrashed {
            member: 0,
            session_ends_at_us: None,
            ..
        }
    ));
    let rebalances = |from: Micros, to: Micros| {
        times(&facts, |f| matches!(f, Fact::RebalanceStarted { .. }))
            .into_iter()
            .filter(|t| (from..to).contains(t))
            .count()
    };
    assert_eq!(rebalances(302 * S, 360 * S), 0);
    assert_eq!(rebalances(360 * S, 361 * S), 1);
    // The record it was finishing died with it: no failed commit, no processing at 401 s.
    assert!(times(&facts, |f| matches!(
        f,
        Fact::CommitFailed { member: 0, .. }
    ))
    .iter()
    .all(|&t| t > 401 * S));
    assert!(!processed_by(&facts, 0).contains(&(401 * S, 0)));
}

/// Each attempt of a record retried in place is fetched by a poll of its own: a record
/// whose attempts each take less than the interval keeps its partition, however long the
/// attempts and their back-offs take together.
#[test]
fn each_retry_in_place_polls_again() {
    let mut s = slow_group(100.0, Some(150.0));
    let g = &mut s.groups[0];
    g.failures.outages = vec![Outage {
        from_s: 0.0,
        until_s: 250.0,
    }];
    g.retry = RetryPolicy {
        max_attempts: 5,
        backoff_base_s: 10.0,
        backoff_cap_s: 60.0,
        jitter: Jitter::None,
    };
    let (sim, facts) = run_told(s);
    // 1 → 101 s fails, 111 → 211 s fails, 231 → 331 s succeeds: 330 s in hand.
    assert_eq!(processed_by(&facts, 0), vec![(331 * S, 0)]);
    assert!(times(&facts, |f| left(f).is_some()).is_empty());
    assert_eq!(committed(&sim), 2);
}

/// A member's timer is one at a time, whatever the number of records it processes, and
/// an idle member's timer leaves the queue instead of moving the clock: the run ends when
/// its last record is done, as it does without the setting.
#[test]
fn the_poll_timer_costs_one_pending_event_per_member() {
    let quick = |interval_s| {
        let mut s = slow_group(0.004, interval_s);
        s.producers[0].arrivals = Arrivals {
            process: ArrivalProcess::Constant,
            schedule: vec![
                RateSegment {
                    from_s: 0.0,
                    rate_per_s: 200.0,
                },
                RateSegment {
                    from_s: 100.0,
                    rate_per_s: 0.0,
                },
            ],
        };
        s
    };
    let most_pending = |interval_s| {
        let mut sim = Simulation::new(quick(interval_s)).unwrap();
        let mut most = 0;
        while sim.step().is_some() {
            most = most.max(sim.pending_events());
        }
        (sim, most)
    };
    let (sim, pending) = most_pending(Some(300.0));
    let (without, pending_without) = most_pending(None);
    assert!(sim.counters().effects_applied > 19_000);
    assert_eq!(
        sim.counters().effects_applied,
        without.counters().effects_applied
    );
    // Two members, so at most two timers more than without the setting.
    assert!(
        pending <= pending_without + 2,
        "{pending} against {pending_without}"
    );
    assert_eq!(sim.now_us(), without.now_us());
    assert_eq!(sim.steps(), without.steps());
}

#[test]
fn the_setting_is_checked_and_kept_by_the_file() {
    let mut s = slow_group(1.0, Some(0.0));
    let err = Simulation::new(s.clone()).err().expect("0 s is refused");
    assert!(err.to_string().contains("max_poll_interval_s"), "{err}");
    s.groups[0].max_poll_interval_s = Some(300.0);
    let text = s.to_json_pretty();
    assert!(text.contains("\"max_poll_interval_s\": 300"), "{text}");
    assert_eq!(
        Scenario::from_json(&text).unwrap().groups[0].max_poll_interval_s,
        Some(300.0)
    );
}

/// The `member-poll-interval` example: three groups take 8 s over each record. exports
/// (no poll interval) and archive (10 s) read everything and commit it; mailer (5 s)
/// loses each record it starts, processes the same records again and again, and never
/// commits.
#[test]
fn the_example_shows_the_setting_three_ways() {
    let s = examples::load("member-poll-interval").expect("the example");
    let (sim, facts) = run_told(s);
    let groups: Vec<String> = sim.group_ids().map(|g| sim.group_name(g)).collect();
    assert_eq!(groups, ["exports", "mailer", "archive"]);
    let left_in = |g: GroupId| {
        facts
            .iter()
            .filter(
                |(_, f, _)| matches!(*f, Fact::PollIntervalExceeded { group, .. } if group == g),
            )
            .count()
    };
    let read_to_the_end = |g: GroupId| sim.group_partitions(g).iter().all(|p| p.committed == p.end);
    let (exports, mailer, archive) = (GroupId::new(0), GroupId::new(1), GroupId::new(2));
    for g in [exports, archive] {
        assert_eq!(left_in(g), 0, "{}", sim.group_name(g));
        assert!(read_to_the_end(g), "{}", sim.group_name(g));
    }
    assert!(left_in(mailer) >= 10);
    assert!(sim
        .group_partitions(mailer)
        .iter()
        .all(|p| p.committed == 0));
    assert!(sim.counters().duplicate_effects >= 10);
}
