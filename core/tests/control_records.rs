//! Transactions' control records: each commit or abort appends a marker to the
//! partitions the transaction wrote to, as Kafka's transaction coordinator does. A marker
//! takes an offset and holds no message; no group receives it, each steps over it, and a
//! group that has read everything ends with no lag. Invariants after every step.

use brokerlab_core::*;

mod common;
use common::{example, run};

const ENRICHER: GroupId = GroupId::new(0);
const BILLING: GroupId = GroupId::new(1);
const AUDIT: GroupId = GroupId::new(2);

/// Where each message record and marker of `facts` went: (partition, offset, what).
fn enriched_offsets(facts: &[Fact]) -> Vec<(u32, u64, String)> {
    facts
        .iter()
        .filter_map(|f| match *f {
            Fact::OutputWritten {
                partition,
                offset,
                msg,
                ..
            } => Some((partition, offset, format!("#{msg}"))),
            Fact::ControlRecordWritten {
                partition,
                offset,
                commit,
                ..
            } => Some((
                partition,
                offset,
                if commit { "commit" } else { "abort" }.into(),
            )),
            _ => None,
        })
        .collect()
}

#[test]
fn each_transaction_ends_with_a_marker_that_takes_an_offset() {
    let (sim, facts) = run(example("transactional-pipeline"));
    let offsets = enriched_offsets(&facts);
    let written: Vec<(u64, &str)> = offsets.iter().map(|(_, o, w)| (*o, w.as_str())).collect();
    // enricher-1 writes #2 and crashes before its commit: the abort marker follows it.
    // enricher-2 writes #2 again and the rest, each in its own transaction.
    assert_eq!(
        written,
        [
            (0, "#0"),
            (1, "commit"),
            (2, "#1"),
            (3, "commit"),
            (4, "#2"),
            (5, "abort"),
            (6, "#2"),
            (7, "commit"),
            (8, "#3"),
            (9, "commit"),
            (10, "#4"),
            (11, "commit"),
        ]
    );
    assert_eq!(sim.counters().control_records, 6);
    // Appended counts messages' records; the log ends after the markers as well.
    let enriched = sim.group_partitions(BILLING);
    assert_eq!((enriched[0].end, enriched[0].markers), (12, 6));
    assert_eq!(sim.counters().appended, 5 + 6);
}

#[test]
fn no_group_ever_receives_a_marker_and_each_ends_with_no_lag() {
    let (sim, facts) = run(example("transactional-pipeline"));
    let markers: Vec<u64> = enriched_offsets(&facts)
        .into_iter()
        .filter(|(_, _, w)| !w.starts_with('#'))
        .map(|(_, o, _)| o)
        .collect();
    let started: Vec<(GroupId, u64)> = facts
        .iter()
        .filter_map(|f| match *f {
            Fact::RecordStarted { group, offset, .. } if group != ENRICHER => Some((group, offset)),
            _ => None,
        })
        .collect();
    // billing (read_committed) reads the five committed records; audit reads the aborted
    // #2 at offset 4 as well; neither fetches a marker's offset.
    let read_by = |g: GroupId| -> Vec<u64> {
        started
            .iter()
            .filter(|(h, _)| *h == g)
            .map(|(_, o)| *o)
            .collect()
    };
    assert_eq!(read_by(BILLING), [0, 2, 6, 8, 10]);
    assert_eq!(read_by(AUDIT), [0, 2, 4, 6, 8, 10]);
    assert!(started.iter().all(|(_, o)| !markers.contains(o)));
    for g in [BILLING, AUDIT] {
        let p = &sim.group_partitions(g)[0];
        assert_eq!(
            (p.committed, p.lag),
            (12, 0),
            "group {g}: past the last marker"
        );
    }
}

#[test]
fn a_group_without_transactions_writes_no_markers() {
    let mut s = example("transactional-pipeline");
    s.groups[0].transactional = false;
    let (sim, facts) = run(s);
    assert_eq!(sim.counters().control_records, 0);
    assert!(!facts
        .iter()
        .any(|f| matches!(f, Fact::ControlRecordWritten { .. })));
    // Six records, #2 twice (enricher-1 wrote it before crashing), at offsets 0 to 5.
    assert_eq!(sim.group_partitions(BILLING)[0].end, 6);
}

#[test]
fn each_marker_closes_its_transaction_in_the_partition_it_wrote_to() {
    let mut s = example("transactional-pipeline");
    s.logs[1].partitions = 3;
    s.producers[0].count = Some(30);
    s.end_s = Some(80.0);
    let (sim, facts) = run(s);
    let mut last_written: Option<(u32, u64)> = None;
    let mut markers = 0;
    for f in &facts {
        match *f {
            Fact::OutputWritten {
                partition, offset, ..
            } => last_written = Some((partition, offset)),
            Fact::ControlRecordWritten {
                partition, offset, ..
            } => {
                // One record per transaction here: its marker follows it in its partition.
                let (p, o) = last_written
                    .take()
                    .expect("a marker closes a written record");
                assert_eq!(partition, p);
                assert!(
                    offset > o,
                    "the marker at {offset} comes after the record at {o}"
                );
                markers += 1;
            }
            _ => {}
        }
    }
    assert_eq!(markers, sim.counters().control_records);
    assert!(markers >= 30);
    for g in [BILLING, AUDIT] {
        assert!(
            sim.group_partitions(g).iter().all(|p| p.lag == 0),
            "group {g}"
        );
    }
}

#[test]
fn markers_that_expire_unread_are_not_counted_as_records_skipped() {
    // billing takes 3 s a record and enriched keeps its last 4 offsets: most records
    // expire before billing reads them, markers among them.
    let mut s = example("transactional-pipeline");
    s.groups[1].service = ServiceTime::Fixed { seconds: 3.0 };
    s.logs[1].retention_records = Some(4);
    s.producers[0].count = Some(12);
    let (sim, facts) = run(s);
    let offsets = enriched_offsets(&facts);
    let is = |o: u64, message: bool| {
        offsets
            .iter()
            .any(|(_, at, w)| *at == o && w.starts_with('#') == message)
    };
    let (mut messages, mut markers) = (0, 0);
    for f in &facts {
        if let Fact::RecordsSkipped {
            group,
            from,
            to,
            first_msg,
            ..
        } = *f
        {
            assert_ne!(group, ENRICHER, "orders keeps everything");
            assert!(
                first_msg.is_some(),
                "a skip names the first message it lost"
            );
            messages += (from..to).filter(|&o| is(o, true)).count() as u64;
            markers += (from..to).filter(|&o| is(o, false)).count() as u64;
        }
    }
    assert!(markers > 0, "markers expired unread");
    // The partition counts only the markers retention kept (the invariant checks each
    // step that the count is the number held).
    let enriched = &sim.group_partitions(BILLING)[0];
    assert!(enriched.markers <= 2 && enriched.end - enriched.start == 4);
    assert_eq!(sim.counters().records_skipped, messages);
}
