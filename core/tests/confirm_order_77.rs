//! The seeds' worked case, "confirm order 77", as the built-in example of that name: each
//! outcome of the story, asserted from the run's facts and database.

mod common;

use brokerlab_core::lang::Lang;
use brokerlab_core::narration::describe;
use brokerlab_core::step::DuplicateSeen;
use brokerlab_core::{
    Fact, Fate, MsgId, Poison, ProducerCrashPoint, ProducerId, QueueId, Report, Simulation,
};

const INVENTORY: QueueId = QueueId::new(0);
const ORDER_VIEW: QueueId = QueueId::new(1);
const EMAIL: QueueId = QueueId::new(2);
/// Order 77's v11 and v12 (the confirmation, evt-91) are messages #10 and #11.
const V11: MsgId = MsgId::new(10);
const V12: MsgId = MsgId::new(11);

fn run() -> (Simulation, Vec<Fact>) {
    common::run(common::example("confirm-order-77"))
}

#[test]
fn the_events_of_order_77_carry_versions_up_to_12() {
    let (sim, _) = run();
    let m = sim.message(V12).unwrap();
    assert_eq!((m.key, m.version), (Some(77), 12));
    assert_eq!(sim.message(V11).unwrap().version, 11);
}

#[test]
fn the_relay_crashes_after_v12_is_confirmed_and_publishes_it_again() {
    let (sim, facts) = run();
    let crash = facts
        .iter()
        .position(|f| {
            matches!(
                f,
                Fact::ProducerCrashed {
                    point: ProducerCrashPoint::AfterPublishBeforeMark,
                    ..
                }
            )
        })
        .unwrap();
    assert!(matches!(facts[crash - 1], Fact::Confirmed { msg: V12, .. }));
    assert!(facts[crash..].iter().any(|f| matches!(
        f,
        Fact::PublishSent {
            msg: V12,
            attempt: 2,
            ..
        }
    )));
    // One copy per subscription per publish: v12 was stored twice in each queue.
    for q in [INVENTORY, ORDER_VIEW, EMAIL] {
        let copies = sim
            .copies()
            .iter()
            .filter(|c| c.msg == V12 && c.queue == q)
            .count();
        assert_eq!(copies, 2, "queue {q}");
    }
    assert_eq!(
        sim.outbox_len(ProducerId::new(0)),
        0,
        "both rows were finally marked"
    );
}

#[test]
fn the_inventory_inbox_applies_each_event_once() {
    let (sim, facts) = run();
    for msg in [V11, V12] {
        assert_eq!(sim.effect_count_in(INVENTORY, msg), 1);
        assert!(facts.iter().any(|f| matches!(
            f,
            Fact::DuplicateSkipped {
                msg: m,
                seen: DuplicateSeen::InboxConflict,
                ..
            } if *m == msg
        )));
    }
}

#[test]
fn the_email_without_an_idempotency_key_is_sent_twice() {
    let (sim, _) = run();
    assert_eq!(
        sim.effect_count_in(EMAIL, V12),
        2,
        "the confirmation, twice"
    );
    assert_eq!(sim.effect_count_in(EMAIL, V11), 2);
    // v1–v11 count one email each, and v11's went out twice (v12 sets the status).
    assert_eq!(sim.tables(EMAIL).unwrap().aggregate(77).count, 12);
    // The email itself, outside the transaction: v11 and v12 were each sent twice.
    let tables = sim.tables(EMAIL).unwrap();
    assert_eq!((tables.emails(V11), tables.emails(V12)), (2, 2));
    let email = &Report::of(&sim).database[EMAIL.index()];
    assert_eq!((email.emails.count, email.emails.duplicates), (14, 2));
    assert!(Report::of(&sim).database[INVENTORY.index()].emails.count == 0);
}

#[test]
fn v11_arriving_after_v12_is_ignored_as_stale() {
    let (sim, facts) = run();
    assert!(facts.iter().any(|f| matches!(
        f,
        Fact::StaleIgnored {
            msg: V11,
            version: 11,
            current: 12,
            ..
        }
    )));
    let view = sim.tables(ORDER_VIEW).unwrap().aggregate(77);
    assert_eq!(view.version, 12);
    assert!(view.status_done);
    assert_eq!(
        sim.effect_count_in(ORDER_VIEW, V11),
        1,
        "applied once, before v12"
    );
}

#[test]
fn five_schema_failures_are_dead_lettered_then_a_fix_and_a_slow_redrive_succeed() {
    let (sim, facts) = run();
    let poison: Vec<u64> = sim
        .messages()
        .iter()
        .enumerate()
        .filter(|(_, m)| m.poison == Some(Poison::UnknownSchemaVersion))
        .map(|(i, _)| i as u64)
        .collect();
    assert_eq!(poison.len(), 5);
    let dead = facts
        .iter()
        .filter(|f| matches!(f, Fact::DeadLettered { .. }))
        .count();
    assert_eq!(dead, 5, "each dead-lettered once, before the fix");
    let fix = facts
        .iter()
        .position(|f| matches!(f, Fact::FixDeployed { .. }))
        .unwrap();
    let redriven: Vec<usize> = facts
        .iter()
        .enumerate()
        .filter(|(_, f)| matches!(f, Fact::Redriven { .. }))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(redriven.len(), 5);
    assert!(redriven.iter().all(|&i| i > fix));
    for msg in poison {
        assert_eq!(
            sim.effect_count_in(INVENTORY, MsgId::new(msg)),
            1,
            "#{msg} succeeded"
        );
    }
    assert!(sim
        .copies()
        .iter()
        .filter(|c| c.queue == INVENTORY)
        .all(|c| c.fate == Fate::Done));
    let report = Report::of(&sim);
    assert_eq!(report.queues[INVENTORY.index()].dead_lettered, 0);
    // Slow: one message every two seconds, so the redrive takes about eight seconds.
    let times: Vec<u64> = {
        let mut sim = Simulation::new(common::example("confirm-order-77")).unwrap();
        let mut t = Vec::new();
        while let Some(step) = sim.step() {
            if step
                .facts
                .iter()
                .any(|f| matches!(f, Fact::Redriven { .. }))
            {
                t.push(step.time_us);
            }
        }
        t
    };
    assert!(times[4] - times[0] >= 7_000_000, "{times:?}");
    assert_eq!(report.jobs.failed, 0, "{:?}", report.jobs);
    assert_eq!(report.jobs.completed, report.jobs.total());
}

#[test]
fn the_fix_is_narrated() {
    let mut sim = Simulation::new(common::example("confirm-order-77")).unwrap();
    let mut said = None;
    while let Some(step) = sim.step() {
        let facts = step.facts.to_vec();
        for f in &facts {
            if matches!(f, Fact::FixDeployed { .. }) {
                said = Some(describe(&sim, f, Lang::En));
            }
        }
    }
    assert_eq!(
        said.as_deref(),
        Some("A fix was deployed to the consumers of inventory (as scheduled): a message whose schema version is unknown no longer fails.")
    );
}
