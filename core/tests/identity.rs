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
