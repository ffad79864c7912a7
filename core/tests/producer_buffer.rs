//! A log producer that waits for no confirm (Kafka's `acks=0`) keeps what it cannot send
//! while the broker is down in its buffer, sends it in order when the broker is back, and
//! drops a record still unsent at its delivery timeout; its crash loses the buffer. A
//! queue producer without confirms, and anything already on its way, is still lost.

mod common;
#[path = "common/told.rs"]
mod told;

use brokerlab_core::{Command, Fact, Micros, MsgId, ProducerId, Scenario};
use common::{at, crash_broker, example, run};
use told::{first, run_told, Told};

const S: Micros = 1_000_000;

/// `log-consumer-groups` (accounts publishes 8 records a second to a log, without
/// confirms, until 30 s) with `commands` instead of its own.
fn accounts_with(commands: Vec<brokerlab_core::ScheduledCommand>) -> Scenario {
    let mut s = example("log-consumer-groups");
    assert!(!s.producers[0].publish.confirms);
    s.commands = commands;
    s
}

/// The messages with a fact `is` accepts, in the order of those facts, each with the
/// instant of its step.
fn of_kind(facts: &[Told], is: impl Fn(&Fact) -> bool) -> Vec<(Micros, MsgId)> {
    facts
        .iter()
        .filter(|(_, f, _)| is(f))
        .map(|(t, f, _)| (*t, f.msg().expect("a message's fact")))
        .collect()
}

fn appended(facts: &[Told]) -> Vec<(Micros, MsgId)> {
    of_kind(facts, |f| matches!(f, Fact::Appended { .. }))
}

/// The messages appended at `t` (the broker's restart), in order.
fn appended_at(facts: &[Told], t: Micros) -> Vec<MsgId> {
    appended(facts)
        .into_iter()
        .filter(|&(at, _)| at == t)
        .map(|(_, m)| m)
        .collect()
}

#[test]
fn a_log_producer_without_confirms_sends_what_it_kept_when_the_broker_is_back() {
    let (sim, facts) = run_told(accounts_with(vec![at(10.0, crash_broker(3.0))]));
    let buffered = of_kind(&facts, |f| matches!(f, Fact::Buffered { .. }));
    assert!(buffered.len() > 15, "{}", buffered.len());
    assert!(buffered.iter().all(|&(t, _)| (10 * S..13 * S).contains(&t)));
    // Each is appended at the restart, in the order it was kept, before anything newer.
    let after: Vec<_> = appended(&facts)
        .into_iter()
        .filter(|&(t, _)| t >= 10 * S)
        .collect();
    let kept: Vec<MsgId> = buffered.iter().map(|&(_, m)| m).collect();
    let first_appended: Vec<MsgId> = after.iter().take(kept.len()).map(|&(_, m)| m).collect();
    assert_eq!(first_appended, kept);
    assert!(after[..kept.len()].iter().all(|&(t, _)| t == 13 * S));
    let c = sim.counters();
    assert_eq!(c.buffered, kept.len() as u64);
    assert_eq!(
        (c.lost_before_stored, c.gave_up, c.publish_failed),
        (0, 0, 0)
    );
    assert_eq!(c.appended, c.created);
    let (_, _, text) = first(&facts, |f| matches!(f, Fact::Buffered { .. }));
    assert!(
        text.starts_with("The broker is down: accounts keeps #")
            && text.ends_with("in its buffer and will send it when the broker is back."),
        "{text}"
    );
}

#[test]
fn a_record_still_in_the_buffer_at_its_delivery_timeout_is_dropped_unsent() {
    let mut s = accounts_with(vec![at(10.0, crash_broker(20.0))]);
    s.producers[0].publish.delivery_timeout_s = 5.0;
    let (sim, facts) = run_told(s);
    let buffered = of_kind(&facts, |f| matches!(f, Fact::Buffered { .. }));
    let dropped = of_kind(&facts, |f| {
        matches!(f, Fact::BufferDropped { crashed: false, .. })
    });
    // Dropped five seconds after it was kept, unless the broker was back by then (30 s).
    let expected: Vec<_> = buffered
        .iter()
        .map(|&(t, m)| (t + 5 * S, m))
        .filter(|&(t, _)| t <= 30 * S)
        .collect();
    assert!(expected.len() > 100, "{}", expected.len());
    assert_eq!(dropped, expected);
    let survivors: Vec<MsgId> = buffered
        .iter()
        .skip(dropped.len())
        .map(|&(_, m)| m)
        .collect();
    assert!(!survivors.is_empty());
    let at_restart = appended_at(&facts, 30 * S);
    assert_eq!(at_restart, survivors);
    let c = sim.counters();
    assert_eq!(c.lost_before_stored, dropped.len() as u64);
    assert_eq!(c.gave_up, dropped.len() as u64);
    assert_eq!(c.appended + c.lost_before_stored, c.created);
    let (_, _, text) = first(&facts, |f| matches!(f, Fact::Buffered { .. }));
    assert!(text.contains(", if that is by 15."), "{text}");
    let (_, _, text) = first(&facts, |f| matches!(f, Fact::BufferDropped { .. }));
    assert!(text.contains("its delivery timeout ran out"), "{text}");
}

#[test]
fn a_producer_that_crashes_loses_its_buffer() {
    let crash_producer = at(
        12.0,
        Command::CrashProducer {
            producer: brokerlab_core::ProducerId::new(0),
            point: brokerlab_core::ProducerCrashPoint::Now,
            restart_after_s: Some(0.5),
        },
    );
    let (sim, facts) = run_told(accounts_with(vec![
        at(10.0, crash_broker(3.0)),
        crash_producer,
    ]));
    let buffered = of_kind(&facts, |f| matches!(f, Fact::Buffered { .. }));
    let lost = of_kind(&facts, |f| {
        matches!(f, Fact::BufferDropped { crashed: true, .. })
    });
    let before: Vec<_> = buffered.iter().filter(|&&(t, _)| t < 12 * S).collect();
    assert!(!before.is_empty());
    assert_eq!(lost.len(), before.len());
    assert!(lost.iter().all(|&(t, _)| t == 12 * S));
    // What it created once restarted is kept, and appended when the broker is back.
    let kept_after: Vec<MsgId> = buffered
        .iter()
        .filter(|&&(t, _)| t > 12 * S)
        .map(|&(_, m)| m)
        .collect();
    assert!(!kept_after.is_empty());
    let at_restart = appended_at(&facts, 13 * S);
    assert_eq!(at_restart, kept_after);
    assert_eq!(sim.counters().lost_before_stored, lost.len() as u64);
    let (_, _, text) = first(&facts, |f| matches!(f, Fact::BufferDropped { .. }));
    assert!(
        text.ends_with("still in its buffer: it is gone, never stored."),
        "{text}"
    );
}

#[test]
fn a_record_on_its_way_when_the_broker_crashes_is_lost_without_confirms() {
    let mut s = accounts_with(vec![at(10.0, crash_broker(3.0))]);
    // Half a second on the wire: some publishes are under way at the crash.
    s.broker.network_latency_s = 0.5;
    let (sim, facts) = run_told(s);
    let failed = of_kind(&facts, |f| matches!(f, Fact::PublishFailed { .. }));
    assert!(!failed.is_empty());
    assert!(failed
        .iter()
        .all(|&(t, _)| (10 * S..=10 * S + S / 2).contains(&t)));
    let c = sim.counters();
    assert_eq!(c.lost_before_stored, failed.len() as u64);
    assert!(c.buffered > 0);
    assert_eq!(c.appended + c.lost_before_stored, c.created);
}

#[test]
fn producers_that_wait_for_confirms_or_send_to_a_queue_keep_no_buffer() {
    let mut s = accounts_with(vec![at(10.0, crash_broker(3.0))]);
    s.producers[0].publish.confirms = true;
    let (sim, facts) = run(s);
    assert!(!facts.iter().any(|f| matches!(f, Fact::Buffered { .. })));
    assert!(sim.counters().publish_failed > 0);
    // broker-crash: metrics publishes to a queue without confirms; the broker is down from
    // 10 s to 15 s, and every publish then is lost.
    let (sim, facts) = run(example("broker-crash"));
    assert!(!facts.iter().any(|f| matches!(f, Fact::Buffered { .. })));
    assert!(sim.counters().lost_before_stored >= 90);
}

#[test]
fn the_delivery_timeout_round_trips_and_defaults_to_kafkas() {
    let s = accounts_with(vec![]);
    assert_eq!(s.producers[0].publish.delivery_timeout_s, 120.0);
    let text = serde_json::to_string(&s).unwrap();
    assert!(
        !text.contains("delivery_timeout_s"),
        "the default is left out"
    );
    let mut s = s;
    s.producers[0].publish.delivery_timeout_s = 30.0;
    let text = serde_json::to_string(&s).unwrap();
    let back: Scenario = serde_json::from_str(&text).unwrap();
    assert_eq!(back.producers[0].publish.delivery_timeout_s, 30.0);
    s.producers[0].publish.delivery_timeout_s = 0.0;
    let e = s.validate().unwrap_err();
    assert_eq!(e.field, "producers[0].publish.delivery_timeout_s");
}

/// Buffered records are held for the run's budget as stored copies are: a long outage
/// with a long delivery timeout ends the run at the budget, its reason said, rather than
/// growing memory without bound.
#[test]
fn buffered_records_count_against_the_held_budget() {
    let mut s = accounts_with(vec![at(10.0, crash_broker(20.0))]);
    s.producers[0].publish.delivery_timeout_s = 600.0;
    let budget = brokerlab_core::Budget {
        held_max: 50,
        ..Default::default()
    };
    let mut sim = brokerlab_core::Simulation::with_budget(s, budget).unwrap();
    while sim.step().is_some() {
        brokerlab_core::invariants::check(&sim).unwrap();
    }
    assert_eq!(
        sim.end_reason(),
        Some(brokerlab_core::EndReason::CopiesBudget)
    );
    assert!(sim.now_us() < 30 * S, "ended during the outage");
    assert_eq!(sim.producer_view(ProducerId::new(0)).unwrap().buffered, 51);
}
