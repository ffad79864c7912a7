//! How a full queue with overflow `reject` (RabbitMQ's `reject-publish`) answers a
//! publish: "if publisher confirms are enabled, the publisher will be informed of the
//! reject via a basic.nack message", and "if a message is routed to multiple queues and
//! rejected by at least one of them, the channel will inform the publisher via
//! basic.nack" (RabbitMQ docs, queue length limit). Without confirms nobody is told.

use brokerlab_core::lang::Lang;
use brokerlab_core::narration::describe;
use brokerlab_core::*;

fn repro(json: &str) -> Scenario {
    Scenario::from_json(json).unwrap()
}

fn without_confirms() -> Scenario {
    repro(include_str!(
        "repro/semantics/reject-publish-without-confirms.json"
    ))
}

fn fanout() -> Scenario {
    repro(include_str!("repro/semantics/fanout-partial-reject.json"))
}

/// Runs to the end with the accounting invariant checked after every step; returns each
/// fact with its English and Spanish sentences.
fn narrate(s: Scenario) -> (Simulation, Vec<(Fact, String, String)>) {
    let mut sim = Simulation::new(s).unwrap();
    let mut told = Vec::new();
    while let Some(step) = sim.step() {
        let facts = step.facts.to_vec();
        for f in facts {
            let en = describe(&sim, &f, Lang::En);
            let es = describe(&sim, &f, Lang::Es);
            told.push((f, en, es));
        }
        invariants::check(&sim).unwrap_or_else(|e| panic!("step {}: {e}", sim.steps()));
    }
    (sim, told)
}

fn refusals(told: &[(Fact, String, String)]) -> Vec<&(Fact, String, String)> {
    told.iter()
        .filter(|(f, ..)| matches!(f, Fact::Refused { .. }))
        .collect()
}

/// Copies of `msg` the broker stored in `queue`.
fn stored(told: &[(Fact, String, String)], msg: u64, queue: u32) -> usize {
    told.iter()
        .filter(|(f, ..)| {
            matches!(f, Fact::Stored { msg: m, queue: q, .. }
                if m.get() == msg && *q == QueueId::new(queue))
        })
        .count()
}

#[test]
fn a_full_queue_discards_a_publish_without_confirms_and_nobody_is_told() {
    let (sim, told) = narrate(without_confirms());
    let c = sim.counters();
    // 20 published into a queue of 3 ready messages: 14 do not fit.
    assert_eq!((c.created, c.published, c.refused), (20, 6, 14));
    // Gone before any copy was stored, and the producer believes it sent them: lost
    // before stored (and given up), as a publish without confirms to a broker that is
    // down; never a refusal the producer heard of.
    assert_eq!((c.lost_before_stored, c.gave_up), (14, 14));
    let fates = |f: PublishFate| sim.messages().iter().filter(|m| m.fate == f).count();
    assert_eq!(fates(PublishFate::GaveUp), 14);
    assert_eq!(fates(PublishFate::Refused), 0);
    assert_eq!(fates(PublishFate::Stored), 6);
    let jobs = Report::of(&sim).jobs;
    assert_eq!((jobs.completed, jobs.failed), (6, 14), "{jobs:?}");
    // The narration says the broker discarded it and nobody told the producer.
    let refused = refusals(&told);
    assert_eq!(refused.len(), 14);
    let (first, en, es) = refused[0];
    let Fact::Refused { msg, .. } = first else {
        unreachable!()
    };
    assert_eq!(
        en,
        &format!(
            "q is full: the broker discarded #{msg}, and without publisher confirms nobody told p."
        )
    );
    assert_eq!(
        es,
        &format!("q está llena: el broker descartó #{msg} y, sin confirmaciones de publicación, nadie se lo hizo saber a p.")
    );
    assert!(refused
        .iter()
        .all(|(_, en, _)| en.contains("nobody told p") && !en.contains("refused")));

    // With confirms the producer hears a nack for each, and gives up on it: refused,
    // known to the producer, not lost silently.
    let mut s = without_confirms();
    s.producers[0].publish.confirms = true;
    let (sim, told) = narrate(s);
    let c = sim.counters();
    assert_eq!((c.refused, c.lost_before_stored, c.gave_up), (14, 0, 0));
    assert_eq!(
        sim.messages()
            .iter()
            .filter(|m| m.fate == PublishFate::Refused)
            .count(),
        14
    );
    assert!(refusals(&told)
        .iter()
        .all(|(_, en, _)| en.contains("refused") && en.contains("told p (a nack")));
}

#[test]
fn a_publish_refused_by_one_of_its_queues_is_nacked_though_another_stored_it() {
    // small = queue 0, big = queue 1. #0 and #1 fit in both; #2 and #3 find small full.
    let (sim, told) = narrate(fanout());
    let confirmed: Vec<u64> = told
        .iter()
        .filter_map(|(f, ..)| match f {
            Fact::Confirmed { msg, .. } => Some(msg.get()),
            _ => None,
        })
        .collect();
    assert_eq!(
        confirmed,
        [0, 1],
        "only the publishes every queue took are acked"
    );
    let c = sim.counters();
    assert_eq!((c.refused, c.confirms), (2, 2));
    // The copies big stored stay stored and are delivered and processed.
    for msg in [2, 3] {
        assert_eq!(stored(&told, msg, 0), 0, "small never got #{msg}");
        assert_eq!(stored(&told, msg, 1), 1, "big stored #{msg} once");
        assert_eq!(
            sim.effect_count(MsgId::new(msg)),
            1,
            "big's consumer applied #{msg}"
        );
        // Nacked: no confirm is awaited any more (no timeout, no retry): the producer
        // without an outbox gives up on it, as on any nack, and its job fails.
        assert!(!told.iter().any(|(f, ..)| matches!(f,
            Fact::ConfirmTimedOut { msg: m, .. } | Fact::Confirmed { msg: m, .. } if m.get() == msg)));
    }
    assert_eq!(c.publish_attempts, 4);
    let jobs = Report::of(&sim).jobs;
    assert_eq!((jobs.completed, jobs.failed), (2, 2), "{jobs:?}");
    assert!(refusals(&told).iter().all(|(_, en, _)| en
        .starts_with("small is full: the broker refused #")
        && en.ends_with("and told p (a nack for the whole publish).")));

    // An outbox relay keeps the row on a nack and publishes again: each retry stores
    // another copy in big (duplicates, as on a real broker) until small has room.
    let mut s = fanout();
    s.producers[0].handoff = Handoff::Outbox {
        relay_poll_s: 0.5,
        stable_ids: true,
    };
    let (sim, told) = narrate(s);
    for msg in [2, 3] {
        assert_eq!(stored(&told, msg, 0), 1, "small took #{msg} in the end");
        assert!(stored(&told, msg, 1) > 1, "big holds duplicates of #{msg}");
        assert!(told.iter().any(|(f, ..)| matches!(f,
            Fact::OutboxRetryScheduled { msg: m, attempt: 1, .. } if m.get() == msg)));
        let confirms = told
            .iter()
            .filter(|(f, ..)| matches!(f, Fact::Confirmed { msg: m, .. } if m.get() == msg))
            .count();
        assert_eq!(
            confirms, 1,
            "#{msg} is acked once, by the publish small took"
        );
    }
    let jobs = Report::of(&sim).jobs;
    assert_eq!(
        (jobs.completed, jobs.failed, jobs.pending),
        (4, 0, 0),
        "{jobs:?}"
    );
    assert_eq!(sim.outbox_len(ProducerId::new(0)), 0);
}
