//! Message identity, CloudEvents style: a message carries its source (the producer) and an
//! id; a consumer group's inbox is unique on (source, id). The id must be the one committed
//! in the outbox row: a relay that mints a new id on every publish attempt defeats the
//! inbox, and the republished event takes effect twice.

mod common;

use brokerlab_core::lang::Lang;
use brokerlab_core::narration::describe;
use brokerlab_core::{Fact, Handoff, Idempotency, MsgId, Simulation};

fn with_ids(stable_ids: bool) -> brokerlab_core::Scenario {
    let mut s = common::example("outbox-relay-crash");
    s.producers[0].handoff = Handoff::Outbox {
        relay_poll_s: 0.2,
        stable_ids,
    };
    s
}

#[test]
fn a_stable_id_lets_the_inbox_catch_the_republished_event() {
    let (sim, facts) = common::run(with_ids(true));
    assert_eq!(
        sim.counters().published,
        2,
        "the relay published the row twice"
    );
    let ids: Vec<MsgId> = sim.copies().iter().map(|c| c.event_id()).collect();
    assert_eq!(
        ids,
        vec![MsgId::new(0); 2],
        "both copies carry the id committed in the row"
    );
    assert_eq!(sim.effect_count(MsgId::new(0)), 1);
    assert!(facts
        .iter()
        .any(|f| matches!(f, Fact::DuplicateSkipped { msg, .. } if msg.get() == 0)));
}

#[test]
fn a_new_id_per_attempt_defeats_the_inbox_and_duplicates_the_effect() {
    let (sim, facts) = common::run(with_ids(false));
    assert_eq!(sim.counters().published, 2);
    let ids: Vec<MsgId> = sim.copies().iter().map(|c| c.event_id()).collect();
    assert_eq!(ids.len(), 2);
    assert_ne!(ids[0], ids[1], "each attempt minted its own id");
    assert_eq!(
        sim.effect_count(MsgId::new(0)),
        2,
        "the inbox saw two different ids"
    );
    assert_eq!(sim.counters().duplicate_effects, 1);
    assert!(!facts
        .iter()
        .any(|f| matches!(f, Fact::DuplicateSkipped { .. })));
}

#[test]
fn the_inbox_scope_is_per_consumer_group_and_source() {
    // Same message, stable id: each consumer group (queue) keeps its own inbox, so a
    // fan-out applies the effect once per group, never twice in one.
    let mut s = common::example("fanout-subscriptions");
    for c in &mut s.consumers {
        c.idempotency = Idempotency::Inbox;
    }
    let (sim, _) = common::run(s);
    // A copy finished in a group took effect there exactly once, even when another group
    // already recorded the same (source, id) in its own inbox.
    let mut done = 0;
    for c in sim.copies() {
        if c.fate == brokerlab_core::Fate::Done {
            done += 1;
            assert_eq!(sim.effect_count_in(c.queue, c.msg), 1);
        }
    }
    assert!(
        done > sim.messages().len(),
        "a fan-out: more copies done than messages"
    );
    for q in sim.queue_ids() {
        let tables = sim.tables(q).unwrap();
        // No message's effect applied twice, released messages included.
        assert_eq!(tables.applied.extra(), 0);
        assert!(tables.inbox.iter().all(|&(source, id)| {
            let m = sim.message(MsgId::new(id.get() & ((1 << 40) - 1))).unwrap();
            m.producer == source
        }));
    }
}

#[test]
fn the_republish_says_whether_the_id_is_the_same() {
    for (stable, words) in [(true, "with the same id"), (false, "under a new id")] {
        let mut sim = Simulation::new(with_ids(stable)).unwrap();
        let mut said = false;
        while let Some(step) = sim.step() {
            let facts = step.facts.to_vec();
            for f in &facts {
                if let Fact::PublishSent { attempt: 2, .. } = f {
                    said |= describe(&sim, f, Lang::En).contains(words);
                }
            }
        }
        assert!(said, "stable {stable}");
    }
}

/// The inbox's key must say what a duplicate is. Keyed by the account (as an entity or a
/// correlation id would key it), the first operation on account 42 takes the row, and
/// every later, different operation on it is taken for a duplicate: skipped, acked, and
/// never done. Keyed by the message, only the true redelivery is skipped.
#[test]
fn an_inbox_keyed_by_the_entity_takes_other_messages_for_duplicates() {
    use brokerlab_core::{ConsumerId, QueueId};
    let (sim, facts) = common::run(common::example("inbox-key-scope"));
    let balance = |q: u32, key: u32| sim.tables(QueueId::new(q)).unwrap().aggregate(key).balance;
    assert_eq!((balance(0, 42), balance(0, 7)), (50, 50), "by message");
    assert_eq!((balance(1, 42), balance(1, 7)), (100, 50), "by account");
    let taken: Vec<(u32, u64, u32, u64)> = facts
        .iter()
        .filter_map(|f| match *f {
            Fact::TakenForDuplicate {
                consumer,
                msg,
                key,
                first,
                ..
            } => Some((consumer.get(), msg.get(), key, first.get())),
            _ => None,
        })
        .collect();
    assert_eq!(
        taken,
        [(1, 1, 42, 0), (1, 3, 42, 0)],
        "both withdrawals, on 'by-account' only"
    );
    // The deposit's redelivery is a true duplicate: both inboxes skip it, as a duplicate.
    let skipped: Vec<(u32, u64)> = facts
        .iter()
        .filter_map(|f| match *f {
            Fact::DuplicateSkipped { consumer, msg, .. } => Some((consumer.get(), msg.get())),
            _ => None,
        })
        .collect();
    assert_eq!(skipped, [(0, 0), (1, 0)]);
    let c = sim.counters();
    assert_eq!(
        (
            c.taken_for_duplicates,
            c.duplicates_skipped,
            c.duplicate_effects
        ),
        (2, 2, 0)
    );
    // Taken for duplicates, the withdrawals were acked like any handled message: the
    // broker is done with every copy, and nothing says the work is missing but the books.
    assert_eq!(c.acked, 8);
    assert_eq!(
        sim.tables(QueueId::new(1)).unwrap().inbox_by_entity.len(),
        2,
        "accounts 42 and 7"
    );
    let told = facts
        .iter()
        .find(|f| matches!(f, Fact::TakenForDuplicate { .. }))
        .map(|f| describe(&sim, f, Lang::En))
        .unwrap();
    assert!(
        told.contains("key 42 already has a row, from #0, a different message"),
        "{told}"
    );
    assert!(told.contains("never done"), "{told}");
    assert_eq!(sim.consumer(ConsumerId::new(1)).unwrap().name, "by-account");
}

/// The inbox-key story on a log: the bank's payments (and two keyless records) read by
/// two groups with an inbox, 'by-message' keyed by the message and 'by-account' by the
/// entity. Each group's member crashes after processing its first record, before
/// committing its offset, so the deposit is read again after the restart.
fn inbox_key_log() -> brokerlab_core::Scenario {
    let mut s = common::example("inbox-key-scope");
    let json = serde_json::json!({
        "logs": [{ "name": "payments", "partitions": 1 }],
        "groups": [
            { "name": "by-message", "log": "payments", "members": 1,
              "service": { "fixed": { "seconds": 0.5 } }, "commit": "after_processing",
              "idempotency": "inbox" },
            { "name": "by-account", "log": "payments", "members": 1,
              "service": { "fixed": { "seconds": 0.5 } }, "commit": "after_processing",
              "idempotency": "inbox", "inbox_key": "entity" }
        ],
        "commands": [
            { "at_s": 0, "command": { "crash_member": { "group": 0, "member": 0,
              "point": "after_process_before_commit", "restart_after_s": 1 } } },
            { "at_s": 0, "command": { "crash_member": { "group": 1, "member": 0,
              "point": "after_process_before_commit", "restart_after_s": 1 } } }
        ]
    });
    s.exchanges.clear();
    s.queues.clear();
    s.consumers.clear();
    s.logs = serde_json::from_value(json["logs"].clone()).unwrap();
    s.groups = serde_json::from_value(json["groups"].clone()).unwrap();
    s.commands = serde_json::from_value(json["commands"].clone()).unwrap();
    // Two records with no key: keyed by the entity, their rows fall back to the message.
    let script = &mut s.producers[0].script;
    let keyless: Vec<brokerlab_core::ScriptedMessage> =
        serde_json::from_value(serde_json::json!([{ "at_s": 5.0 }, { "at_s": 6.0 }])).unwrap();
    script.extend(keyless);
    s
}

/// A group's inbox keyed by the entity, as a queue's consumer's: the first record on
/// account 42 takes the row, and the later withdrawals on it are taken for duplicates,
/// skipped, and never applied; keyed by the message, both withdrawals are applied. The
/// deposit read again after the crash is a true duplicate, skipped by both; the keyless
/// records are applied by both.
#[test]
fn a_groups_inbox_keyed_by_the_entity_takes_other_records_for_duplicates() {
    use brokerlab_core::GroupId;
    let (sim, facts) = common::run(inbox_key_log());
    let tables = |g: u32| sim.group_tables(GroupId::new(g)).unwrap();
    let balance = |g: u32, key: u32| tables(g).aggregate(key).balance;
    assert_eq!((balance(0, 42), balance(0, 7)), (50, 50), "by message");
    assert_eq!((balance(1, 42), balance(1, 7)), (100, 50), "by account");
    let taken: Vec<(u32, u64, u32, u64)> = facts
        .iter()
        .filter_map(|f| match *f {
            Fact::RecordTakenForDuplicate {
                group,
                msg,
                key,
                first,
                ..
            } => Some((group.get(), msg.get(), key, first.get())),
            _ => None,
        })
        .collect();
    assert_eq!(
        taken,
        [(1, 1, 42, 0), (1, 3, 42, 0)],
        "both withdrawals, on 'by-account' only"
    );
    assert!(
        !facts
            .iter()
            .any(|f| matches!(f, Fact::TakenForDuplicate { .. })),
        "no queue consumer here"
    );
    // Their work was never done: no effect of theirs in 'by-account's tables.
    for msg in [1, 3] {
        assert_eq!(tables(1).applied(MsgId::new(msg)), 0, "#{msg}");
        assert_eq!(tables(0).applied(MsgId::new(msg)), 1, "#{msg}");
    }
    // The keyless records fall back to their own rows: applied once each, by both.
    for g in [0, 1] {
        for msg in [4, 5] {
            assert_eq!(tables(g).applied(MsgId::new(msg)), 1, "group {g}, #{msg}");
        }
    }
    assert_eq!(tables(1).inbox_by_entity.len(), 2, "accounts 42 and 7");
    assert_eq!(tables(1).inbox.len(), 2, "the keyless records");
    assert_eq!(
        (tables(0).inbox.len(), tables(0).inbox_by_entity.len()),
        (6, 0)
    );
    // The deposit, read again after the crash, is a true duplicate in both groups.
    let again: Vec<(u32, u64)> = facts
        .iter()
        .filter_map(|f| match *f {
            Fact::RecordProcessed {
                group,
                msg,
                applied: 0,
                ..
            } => Some((group.get(), msg.get())),
            _ => None,
        })
        .collect();
    assert_eq!(again, [(0, 0), (1, 0)]);
    let c = sim.counters();
    assert_eq!(
        (
            c.taken_for_duplicates,
            c.duplicates_skipped,
            c.duplicate_effects,
            c.member_crashes
        ),
        (2, 2, 0, 2)
    );
    // Processed but not applied: 12 records processed by the two groups plus the two read
    // again, 10 effects (6 by message, 4 by account).
    assert_eq!((c.records_processed, c.effects_applied), (14, 10));
    // Both groups moved past every record: nothing is left unread or uncommitted.
    for g in [0, 1] {
        let partitions = sim.group_partitions(GroupId::new(g));
        assert_eq!(partitions[0].committed, 6, "group {g}: {partitions:?}");
    }
    let first = facts
        .iter()
        .find(|f| matches!(f, Fact::RecordTakenForDuplicate { .. }))
        .unwrap();
    let told = describe(&sim, first, Lang::En);
    assert!(
        told.starts_with("by-account-1 tried to record #1 (offset 1) in its inbox"),
        "{told}"
    );
    assert!(
        told.contains("key 42 already has a row, from #0, a different message"),
        "{told}"
    );
    assert!(
        told.contains("its effect is never applied (lost)"),
        "{told}"
    );
    let dicho = describe(&sim, first, Lang::Es);
    assert!(
        dicho.contains("la clave 42 ya tiene una fila, de #0"),
        "{dicho}"
    );
}

/// Keyed by the message (the default), a group's inbox never takes a different record
/// for a duplicate: the same run with 'by-account' keyed by the message applies both
/// withdrawals, and skips only the deposit read again.
#[test]
fn a_groups_inbox_keyed_by_the_message_applies_every_different_record() {
    use brokerlab_core::{GroupId, InboxKey};
    let mut s = inbox_key_log();
    s.groups[1].inbox_key = InboxKey::Message;
    let (sim, facts) = common::run(s);
    let tables = sim.group_tables(GroupId::new(1)).unwrap();
    assert_eq!(
        (tables.aggregate(42).balance, tables.aggregate(7).balance),
        (50, 50)
    );
    assert!(!facts
        .iter()
        .any(|f| matches!(f, Fact::RecordTakenForDuplicate { .. })));
    let c = sim.counters();
    assert_eq!(
        (
            c.taken_for_duplicates,
            c.duplicates_skipped,
            c.effects_applied
        ),
        (0, 2, 12)
    );
    assert!(tables.inbox_by_entity.is_empty());
}

#[test]
fn a_groups_inbox_key_round_trips_and_the_message_is_its_default() {
    use brokerlab_core::{InboxKey, Scenario};
    let s = inbox_key_log();
    assert_eq!(
        (s.groups[0].inbox_key, s.groups[1].inbox_key),
        (InboxKey::Message, InboxKey::Entity)
    );
    let json = serde_json::to_string(&s).unwrap();
    assert_eq!(json.matches("inbox_key").count(), 1, "{json}");
    assert!(json.contains(r#""inbox_key":"entity""#), "{json}");
    let back: Scenario = serde_json::from_str(&json).unwrap();
    assert_eq!(back, s);
    // A group written before the field existed loads keyed by the message, and writes
    // itself out as it was.
    let old = r#"{ "name": "g", "log": "payments", "members": 1,
        "service": { "fixed": { "seconds": 0.5 } }, "commit": "after_processing",
        "idempotency": "inbox" }"#;
    let g: brokerlab_core::GroupSpec = serde_json::from_str(old).unwrap();
    assert_eq!(g.inbox_key, InboxKey::Message);
    assert!(!serde_json::to_string(&g).unwrap().contains("inbox_key"));
}
