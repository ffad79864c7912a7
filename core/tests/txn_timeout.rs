//! A transactional member that crashes with its transaction open (Kafka's
//! `transaction.timeout.ms` set on its group): nobody aborts the transaction at the
//! crash. Its output records stay open, and a `read_committed` reader of their partition
//! stops before them, committed records of the member that took over included, until the
//! coordinator aborts the transaction at its timeout or the member comes back with the
//! same `transactional.id` and fences it. Without the setting the transaction aborts at
//! the crash (the `transactional-pipeline` example). Invariants after every step.

use brokerlab_core::*;

#[path = "common/told.rs"]
mod told;
use told::{first, first_time, run_told, Told};

const ENRICHER: GroupId = GroupId::new(0);
const BILLING: GroupId = GroupId::new(1);
const S: Micros = 1_000_000;

/// `transactional-pipeline` (enricher-1 crashes at 3.5 s after writing #2, before its
/// commit) with the enricher's transaction timeout and enricher-1's restart delay.
fn pipeline(timeout_s: Option<f64>, restart_after_s: Option<f64>) -> Scenario {
    let mut s = examples::load("transactional-pipeline").expect("the example");
    s.groups[0].transaction_timeout_s = timeout_s;
    let Command::CrashMember {
        restart_after_s: restart,
        ..
    } = &mut s.commands[0].command
    else {
        panic!("the example crashes a member");
    };
    *restart = restart_after_s;
    s.end_s = Some(80.0);
    s
}

/// When billing (read_committed) processed each message, in order.
fn billed(facts: &[Told]) -> Vec<(Micros, MsgId)> {
    facts
        .iter()
        .filter_map(|(t, f, _)| match *f {
            Fact::RecordProcessed { group, msg, .. } if group == BILLING => Some((*t, msg)),
            _ => None,
        })
        .collect()
}

fn aborted(f: &Fact) -> bool {
    matches!(f, Fact::TransactionAborted { group, .. } if *group == ENRICHER)
}

#[test]
fn without_a_transaction_timeout_the_crash_aborts_the_transaction() {
    let (_, facts) = run_told(pipeline(None, Some(5.0)));
    assert_eq!(first_time(&facts, aborted), Some(3_500_000));
    assert!(first_time(&facts, |f| matches!(f, Fact::TransactionLeftOpen { .. })).is_none());
    // billing reads enricher-2's #2 as soon as it is committed, at 4.5 s.
    assert_eq!(billed(&facts)[2], (4_600_000, MsgId::new(2)));
}

#[test]
fn an_open_transaction_holds_read_committed_readers_until_the_member_is_back() {
    let (sim, facts) = run_told(pipeline(Some(60.0), Some(5.0)));
    let left = first(&facts, |f| matches!(f, Fact::TransactionLeftOpen { .. }));
    assert_eq!(left.0, 3_500_000);
    assert!(matches!(
        left.1,
        Fact::TransactionLeftOpen {
            outputs: 1,
            aborts_at_us: 63_500_000,
            ..
        }
    ));
    // enricher-2 writes and commits #2, #3 and #4 by 5.5 s, but billing reads none of
    // them until enricher-1 is back at 8.5 s and fences its old transaction.
    assert_eq!(
        first_time(&facts, |f| matches!(f, Fact::TransactionFenced { .. })),
        Some(8_500_000)
    );
    assert_eq!(first_time(&facts, aborted), Some(8_500_000));
    let billed = billed(&facts);
    assert_eq!(billed.len(), 5, "billing reads each order once: {billed:?}");
    assert!(billed[..2].iter().all(|&(t, _)| t < 3_500_000));
    assert!(billed[2..].iter().all(|&(t, _)| t > 8_500_000));
    // A read_uncommitted reader (audit) read the open record meanwhile, at offset 4 (#0
    // and #1 are at 0 and 2, each followed by its transaction's commit marker).
    assert!(facts.iter().any(|(t, f, _)| (3_500_000..8_500_000).contains(t)
        && matches!(*f, Fact::RecordProcessed { group, offset: 4, .. } if group == GroupId::new(2))));
    let msgs: Vec<MsgId> = billed.iter().map(|&(_, m)| m).collect();
    assert_eq!(msgs, (0..5).map(MsgId::new).collect::<Vec<_>>());
    assert_eq!(sim.counters().records_skipped, 0);
}

#[test]
fn a_member_that_stays_down_leaves_it_open_until_the_timeout() {
    let (_, facts) = run_told(pipeline(Some(60.0), None));
    let timed_out = first_time(&facts, |f| matches!(f, Fact::TransactionTimedOut { .. }));
    assert_eq!(timed_out, Some(63_500_000));
    assert_eq!(first_time(&facts, aborted), Some(63_500_000));
    let billed = billed(&facts);
    assert_eq!(billed.len(), 5);
    assert!(billed[2..].iter().all(|&(t, _)| t > 63 * S));
    let said = &first(&facts, |f| matches!(f, Fact::TransactionLeftOpen { .. })).2;
    assert!(said.contains("until the coordinator aborts it at 63.5 s (transaction.timeout.ms) or enricher-1 is back"), "{said}");
}

/// The coordinator is a broker: a timeout that runs out while it is down aborts the
/// transaction at its restart; a member back meanwhile fences it only then.
#[test]
fn the_coordinator_aborts_at_its_restart_what_timed_out_while_it_was_down() {
    let broker_down = |from_s: f64, for_s: f64| ScheduledCommand {
        at_s: from_s,
        command: Command::CrashBroker {
            restart_after_s: Some(for_s),
        },
        unannounced: false,
    };
    let mut s = pipeline(Some(10.0), None);
    s.commands.push(broker_down(12.0, 5.0));
    let (_, facts) = run_told(s);
    assert_eq!(
        first_time(&facts, |f| matches!(f, Fact::TransactionTimedOut { .. })),
        Some(17 * S)
    );
    assert_eq!(first_time(&facts, aborted), Some(17 * S));

    let mut s = pipeline(Some(60.0), Some(5.0));
    s.commands.push(broker_down(8.0, 4.0));
    let (_, facts) = run_told(s);
    assert!(first_time(&facts, |f| matches!(f, Fact::TransactionFenced { .. })).is_none());
    assert_eq!(first_time(&facts, aborted), Some(12 * S));
}

#[test]
fn a_transaction_timeout_is_checked_and_kept_by_the_scenario_file() {
    let mut s = pipeline(Some(0.0), None);
    let err = Simulation::new(s.clone()).err().expect("0 s is refused");
    assert!(err.to_string().contains("transaction_timeout_s"), "{err}");
    s.groups[0].transaction_timeout_s = Some(60.0);
    let text = s.to_json_pretty();
    assert!(text.contains("\"transaction_timeout_s\": 60"), "{text}");
    let back = Scenario::from_json(&text).unwrap();
    assert_eq!(back.groups[0].transaction_timeout_s, Some(60.0));
    let none = examples::load("transactional-pipeline")
        .unwrap()
        .to_json_pretty();
    assert!(!none.contains("transaction_timeout_s"));
}
