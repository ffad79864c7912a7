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
