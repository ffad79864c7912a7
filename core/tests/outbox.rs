//! The outbox keeps accepted work: a relay marks a row sent only once the broker has
//! confirmed it, and a refused or unconfirmed publish stays in the outbox to be retried
//! with backoff (the transactional outbox pattern: the row is the durable promise made
//! when the request was answered 202).

mod common;

use brokerlab_core::{Fact, Handoff, ProducerId, PublishFate, Report, Scenario};

fn repro() -> Scenario {
    Scenario::from_json(include_str!("repro/semantics/outbox-publish-refused.json")).unwrap()
}

#[test]
fn a_refused_publish_keeps_its_outbox_row_and_every_accepted_request_is_accounted_for() {
    let (sim, facts) = common::run(repro());
    let accepted = facts
        .iter()
        .filter(|f| matches!(f, Fact::StateCommitted { outbox: true, .. }))
        .count() as u64;
    assert!(
        accepted > 250,
        "the repro accepts ~300 requests: {accepted}"
    );
    let refused = facts
        .iter()
        .filter(|f| matches!(f, Fact::Refused { .. }))
        .count();
    assert!(refused > 0, "the bounded queue refuses some publishes");
    // No accepted message ends refused: the relay never drops a row on a nack.
    assert!(sim
        .messages()
        .iter()
        .all(|m| m.fate == PublishFate::Stored || m.fate == PublishFate::Pending));
    let report = Report::of(&sim);
    let jobs = report.jobs;
    assert_eq!(jobs.total(), accepted, "{jobs:?}");
    assert_eq!(jobs.failed, 0, "{jobs:?}");
    // Pending jobs are exactly the rows still in the outbox, shown in the report.
    assert_eq!(jobs.pending, report.producers[0].outbox_unsent, "{jobs:?}");
    // The consumer keeps up after the burst: everything is published and completed.
    assert_eq!(jobs.completed, accepted, "{jobs:?}");
    assert!(facts
        .iter()
        .any(|f| matches!(f, Fact::OutboxRetryScheduled { .. })));
}

#[test]
fn a_refused_publish_is_retried_after_a_growing_backoff() {
    let (_, facts) = common::run(repro());
    // The first message refused, then its retries: each delay doubles from the poll period.
    let first = facts
        .iter()
        .find_map(|f| match f {
            Fact::Refused { msg, .. } => Some(*msg),
            _ => None,
        })
        .unwrap();
    let mut delays = Vec::new();
    let mut sent_at = Vec::new();
    for f in &facts {
        match *f {
            Fact::OutboxRetryScheduled {
                msg, ready_at_us, ..
            } if msg == first => delays.push(ready_at_us),
            Fact::PublishSent { msg, attempt, .. } if msg == first => sent_at.push(attempt),
            _ => {}
        }
    }
    assert!(!delays.is_empty());
    assert!(delays.windows(2).all(|w| w[0] < w[1]), "{delays:?}");
    assert_eq!(
        sent_at.len(),
        delays.len() + 1,
        "one more attempt per backoff"
    );
}

#[test]
fn rows_that_use_every_attempt_stay_pending_in_the_outbox() {
    // One attempt only: a refused row is parked, never dropped, and still counted pending.
    let mut s = repro();
    s.producers[0].publish.max_attempts = 1;
    let (sim, facts) = common::run(s);
    let parked = facts
        .iter()
        .filter(|f| matches!(f, Fact::OutboxRowParked { .. }))
        .count() as u64;
    assert!(parked > 0);
    let report = Report::of(&sim);
    assert_eq!(report.producers[0].outbox_parked, parked);
    assert_eq!(report.jobs.pending, parked);
    assert_eq!(report.jobs.failed, 0);
    assert_eq!(report.summary.pending_at_producers_end, parked);
}

#[test]
fn a_producer_without_an_outbox_still_gives_up_on_a_refused_publish() {
    let mut s = repro();
    s.producers[0].handoff = Handoff::Direct;
    let (sim, _) = common::run(s);
    let jobs = Report::of(&sim).jobs;
    assert!(jobs.failed > 0, "{jobs:?}");
    assert!(sim
        .messages()
        .iter()
        .any(|m| m.fate == PublishFate::Refused));
}

#[test]
fn a_relay_crash_before_marking_keeps_the_row_until_the_republish_is_confirmed() {
    let mut sim = brokerlab_core::Simulation::new(common::example("outbox-relay-crash")).unwrap();
    let mut pending_while_down = false;
    while let Some(step) = sim.step() {
        let crashed = step
            .facts
            .iter()
            .any(|f| matches!(f, Fact::ProducerCrashed { .. }));
        if crashed {
            // Confirmed but not marked: the row is still there, and the job is running
            // (its copy is stored) while the relay is down.
            assert_eq!(sim.outbox_len(ProducerId::new(0)), 1);
            pending_while_down = true;
        }
    }
    assert!(pending_while_down);
    let report = Report::of(&sim);
    assert_eq!(report.producers[0].outbox_unsent, 0);
    assert_eq!(report.jobs.completed, 1, "{:?}", report.jobs);
}
