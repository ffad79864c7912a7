//! Broker flavours, delivery limits and gap waits: each test shows one documented
//! behaviour of a real broker (quoted in our own words above the test) or one of the
//! reproductions of runs that never ended, which must now end by themselves.

mod common;

use brokerlab_core::lang::Lang;
use brokerlab_core::step::DeadLetterReason;
use brokerlab_core::{
    invariants, narration, AckMode, Command, ConsumerId, CrashPoint, Fact, Flavour, GapTimeout,
    MsgId, Overflow, QueueId, QueueType, Scenario, ScheduledCommand, Simulation, SCENARIO_VERSION,
};

/// Most steps any of these small runs may take: more means it does not end.
const STEP_BOUND: u64 = 20_000;

fn load(path: &str) -> Scenario {
    let text =
        std::fs::read_to_string(format!("{}/tests/repro/{path}", env!("CARGO_MANIFEST_DIR")))
            .unwrap_or_else(|e| panic!("{path}: {e}"));
    Scenario::from_json(&text).unwrap()
}

/// Runs to the end within [`STEP_BOUND`], checking the accounting invariant after every
/// step; returns the simulation and every step's (time, facts).
fn run_bounded(s: Scenario) -> (Simulation, Vec<(u64, Vec<Fact>)>) {
    let mut sim = Simulation::new(s).unwrap();
    let mut steps = Vec::new();
    while let Some(step) = sim.step() {
        steps.push((step.time_us, step.facts.to_vec()));
        assert!(steps.len() as u64 <= STEP_BOUND, "the run does not end");
        invariants::check(&sim).unwrap_or_else(|e| panic!("step {}: {e}", sim.steps()));
    }
    assert!(sim.is_finished());
    (sim, steps)
}

/// Crashes consumer 0 at `at_s` (at once, not at a crash point), back after `restart_after_s`.
fn crash_consumer_0(s: &mut Scenario, at_s: f64, restart_after_s: Option<f64>) {
    s.commands.push(ScheduledCommand {
        at_s,
        command: Command::CrashConsumer {
            consumer: ConsumerId::new(0),
            point: CrashPoint::Now,
            restart_after_s,
        },
        unannounced: false,
    });
}

fn facts(steps: &[(u64, Vec<Fact>)]) -> Vec<Fact> {
    steps.iter().flat_map(|(_, f)| f.iter().copied()).collect()
}

/// The sentences of the first step that has a fact matching `pick`.
fn narration_of(
    sim: &Simulation,
    steps: &[(u64, Vec<Fact>)],
    pick: impl Fn(&Fact) -> bool,
) -> Vec<String> {
    let (_, facts) = steps
        .iter()
        .find(|(_, f)| f.iter().any(&pick))
        .expect("a step with that fact");
    facts
        .iter()
        .map(|f| narration::describe(sim, f, Lang::En))
        .collect()
}

/// (message number, reason, attempts) of every dead-lettered copy.
fn dead_letters(facts: &[Fact]) -> Vec<(u64, DeadLetterReason, u32)> {
    facts
        .iter()
        .filter_map(|f| match *f {
            Fact::DeadLettered {
                msg,
                reason,
                attempts,
                ..
            } => Some((msg.get(), reason, attempts)),
            _ => None,
        })
        .collect()
}

fn scenario(json: &str) -> Scenario {
    Scenario::from_json(json).unwrap_or_else(|e| panic!("{e}"))
}

/// `count` messages of keys 1..=keys, one every `every_s`, into one queue with `flavour`.
fn simple(
    flavour: &str,
    count: u32,
    every_s: f64,
    consumers: u32,
    service_s: f64,
    ack: &str,
) -> Scenario {
    scenario(&format!(
        r#"{{ "version": 1, "seed": 7,
        "producers": [{{ "name": "P", "count": {count},
            "arrivals": {{ "process": "constant", "schedule": [{{ "from_s": 0, "rate_per_s": {rate} }}] }} }}],
        "queues": [{{ "name": "q", "visibility_timeout_s": 30, "flavour": "{flavour}" }}],
        "consumers": [{{ "name": "C", "replicas": {consumers}, "service": {{ "fixed": {{ "seconds": {service_s} }} }},
            "ack": "{ack}" }}] }}"#,
        rate = 1.0 / every_s
    ))
}

#[test]
fn work_that_ends_at_the_very_instant_its_lease_runs_out_is_too_late() {
    // The deadline is the last instant the broker waits: an ack must arrive before it.
    // Work of exactly the lease's length ends at that instant, so the lease runs out
    // first and the ack that follows changes nothing; a microsecond less and it counts.
    for (service_s, acked) in [(30.0, false), (29.999_999, true)] {
        let mut s = simple("generic", 1, 1.0, 1, service_s, "after_commit");
        s.end_s = Some(31.5);
        let (_, steps) = run_bounded(s);
        let all = facts(&steps);
        let expired = all.iter().any(|f| matches!(f, Fact::LeaseExpired { .. }));
        let first_ack = all.iter().find_map(|f| match f {
            Fact::Acked { .. } => Some(true),
            Fact::AckIgnored {
                why: brokerlab_core::step::IgnoredAck::StaleLease,
                ..
            } => Some(false),
            _ => None,
        });
        assert_eq!(
            (expired, first_ack),
            (!acked, Some(acked)),
            "work of {service_s} s"
        );
    }
}

// ----- every run ends: the reproductions ---------------------------------------------------

#[test]
fn lease_shorter_than_work_ends_with_each_message_dead_lettered_at_its_delivery_limit() {
    let s = load("semantics/lease-shorter-than-work.json");
    assert_eq!(
        s.end_s, None,
        "the reproduction has no end_s: it must end by itself"
    );
    assert_eq!(s.queues[0].flavour, Flavour::Generic);
    let (sim, steps) = run_bounded(s);
    let all = facts(&steps);
    // Generic queues count each lease expiry as a failed attempt of the retry policy
    // (max_attempts 3): the third expiry dead-letters the message instead of offering it
    // a fourth time.
    assert_eq!(
        dead_letters(&all),
        vec![
            (0, DeadLetterReason::DeliveryLimitReached, 3),
            (1, DeadLetterReason::DeliveryLimitReached, 3),
            (2, DeadLetterReason::DeliveryLimitReached, 3),
        ]
    );
    assert_eq!(sim.counters().dead_lettered, 3);
    assert_eq!(sim.counters().acked, 0, "no ack ever came in time");
    // The step where #0 reaches its limit, sentence by sentence.
    let step = narration_of(
        &sim,
        &steps,
        |f| matches!(f, Fact::DeadLettered { msg, .. } if msg.get() == 0),
    );
    assert_eq!(
        step,
        vec!["#0 reached its delivery limit after 3 deliveries without an ack and moved to reports' dead-letter queue instead of being delivered again."]
    );
    // The step after: the consumer still holding it finishes, and its ack counts for nothing.
    let after = narration_of(&sim, &steps, |f| {
        matches!(
            f,
            Fact::AckIgnored {
                msg,
                attempt: 3,
                ..
            } if msg.get() == 0
        )
    });
    assert_eq!(
        after,
        vec![
            "C1 committed the effect of #0 again: it has now been applied 3 times (duplicate).",
            "C1 acked #0 too late: the broker had already taken that delivery back, so the ack changed nothing.",
            "The broker delivered #2 to C1; it stays hidden until 12.5 s unless acked.",
            "C1 started processing #2 (attempt 1); it will finish at 13 s.",
        ]
    );
}

#[test]
fn sqs_visibility_heartbeat_keeps_long_work_from_being_delivered_twice() {
    // SQS: a consumer that needs longer than the visibility timeout calls
    // ChangeMessageVisibility while it works, so the message stays hidden until it is
    // deleted and no other consumer receives it meanwhile.
    let mut s = load("semantics/lease-shorter-than-work.json");
    s.queues[0].flavour = Flavour::Sqs;
    s.queues[0].duplicate_p = Some(0.0);
    s.consumers[0].extend_visibility = true;
    let (sim, steps) = run_bounded(s);
    let all = facts(&steps);
    assert!(all.iter().any(|f| matches!(f, Fact::LeaseExtended { .. })));
    assert!(!all.iter().any(|f| matches!(f, Fact::LeaseExpired { .. })));
    assert_eq!(sim.counters().redelivered, 0);
    assert_eq!(sim.counters().acked, 3);
    for m in 0..3 {
        assert_eq!(sim.effect_count(MsgId::new(m)), 1, "#{m} applied once");
    }
    let step = narration_of(
        &sim,
        &steps,
        |f| matches!(f, Fact::LeaseExtended { msg, .. } if msg.get() == 0),
    );
    assert_eq!(
        step,
        vec!["C1 is still working on #0 and extended its lease to 6 s (a visibility heartbeat)."]
    );
}

#[test]
fn sqs_moves_a_message_to_the_dlq_on_the_receive_after_max_receive_count() {
    // SQS redrive policy: when a message's receive count exceeds maxReceiveCount, SQS
    // moves it to the dead-letter queue instead of returning it again.
    let mut s = load("semantics/lease-shorter-than-work.json");
    s.queues[0].flavour = Flavour::Sqs;
    s.queues[0].duplicate_p = Some(0.0);
    s.queues[0].max_receive_count = Some(2);
    // The consumers' retry policy allows more: the broker's limit is what ends it.
    s.consumers[0].retry.max_attempts = 50;
    let (_, steps) = run_bounded(s);
    let all = facts(&steps);
    let dl = dead_letters(&all);
    assert_eq!(dl.len(), 3);
    assert!(dl
        .iter()
        .all(|&(_, r, attempts)| r == DeadLetterReason::DeliveryLimitReached && attempts == 2));
    let most = all
        .iter()
        .filter_map(|f| match f {
            Fact::Delivered { attempt, .. } => Some(*attempt),
            _ => None,
        })
        .max();
    assert_eq!(most, Some(2), "never received a third time");
}

#[test]
fn sqs_redrives_a_failing_message_only_by_its_receive_count_poison_or_not() {
    // SQS has no negative acknowledgement: a consumer whose handler fails leaves the
    // message undeleted (here visible again after its backoff, set with
    // ChangeMessageVisibility), and only the redrive policy moves it to the dead-letter
    // queue, once its receive count reaches maxReceiveCount. The consumer's own retry
    // limit and its shortcut for poison messages are not the broker's to apply.
    for (poison, max_attempts) in [(false, 2), (true, 50)] {
        let mut s = simple("sqs", 1, 1.0, 1, 0.1, "after_commit");
        s.queues[0].duplicate_p = Some(0.0);
        s.queues[0].max_receive_count = Some(4);
        s.consumers[0].retry.max_attempts = max_attempts;
        s.consumers[0].retry.backoff_base_s = 0.01;
        s.consumers[0].retry.backoff_cap_s = 0.01;
        if poison {
            s.producers[0].payload.poison_share = 1.0;
        } else {
            s.consumers[0].failures.transient_p = 1.0;
        }
        let (_, steps) = run_bounded(s);
        let all = facts(&steps);
        let dl = dead_letters(&all);
        assert_eq!(dl.len(), 1, "poison {poison}");
        assert_eq!(
            (dl[0].1, dl[0].2),
            (DeadLetterReason::DeliveryLimitReached, 4),
            "poison {poison}: received four times, then redriven"
        );
    }
}

#[test]
fn a_redriven_message_gets_a_fresh_delivery_limit() {
    // A redrive sends the message back to its queue as a new message: SQS's move task
    // gives it a new receive count (and a new message id and enqueue time, which the
    // lab does not show: its id is the business id), and a RabbitMQ quorum queue counts
    // deliveries of what was moved back from zero. So once the consumer is healthy
    // again, every redriven message is delivered and processed. Counting the deliveries
    // from before the redrive sent each one straight back to the dead-letter queue.
    for queue in [
        r#""flavour": "sqs", "max_receive_count": 2, "duplicate_p": 0"#,
        r#""flavour": "sqs_fifo", "max_receive_count": 2"#,
        r#""flavour": "rabbitmq", "queue_type": "quorum", "delivery_limit": 1, "dead_letter": true"#,
    ] {
        let s = scenario(&format!(
            r#"{{ "version": 2, "seed": 1,
            "producers": [{{ "name": "p", "count": 3,
                "arrivals": {{ "process": "constant", "schedule": [{{ "from_s": 0, "rate_per_s": 1 }}] }} }}],
            "queues": [{{ "name": "q", "visibility_timeout_s": 30, {queue} }}],
            "consumers": [{{ "name": "c", "service": {{ "fixed": {{ "seconds": 0.1 }} }}, "ack": "after_commit",
                "failures": {{ "outages": [{{ "from_s": 0, "until_s": 10 }}] }},
                "retry": {{ "max_attempts": 10, "backoff_base_s": 0.5, "backoff_cap_s": 1, "jitter": "none" }} }}],
            "commands": [{{ "at_s": 20, "command": {{ "redrive": {{ "queue": "q", "rate_per_s": 5 }} }} }}] }}"#
        ));
        let (sim, steps) = run_bounded(s);
        let all = facts(&steps);
        let before: Vec<_> = dead_letters(&all);
        assert_eq!(
            before.len(),
            3,
            "{queue}: the outage dead-letters all three"
        );
        assert!(
            before.iter().all(|&(_, reason, attempts)| reason
                == DeadLetterReason::DeliveryLimitReached
                && attempts == 2),
            "{queue}: {before:?}"
        );
        let c = sim.counters();
        assert_eq!(
            (c.redriven, c.dead_lettered_again, c.acked),
            (3, 0, 3),
            "{queue}: redriven, then delivered and acked"
        );
        for id in 0..3 {
            assert_eq!(sim.effect_count(MsgId::from_index(id)), 1, "{queue}: #{id}");
        }
    }
}

#[test]
fn sqs_default_max_receive_count_is_ten() {
    let mut s = load("semantics/lease-shorter-than-work.json");
    s.queues[0].flavour = Flavour::Sqs;
    s.queues[0].duplicate_p = Some(0.0);
    s.consumers[0].retry.max_attempts = 50;
    let (_, steps) = run_bounded(s);
    let dl = dead_letters(&facts(&steps));
    assert_eq!(dl.len(), 3);
    assert!(dl.iter().all(|&(_, _, attempts)| attempts == 10));
}

#[test]
fn gap_wait_behind_a_dead_lettered_predecessor_is_parked_after_the_gap_timeout() {
    let s = load("semantics/gap-wait-behind-poison.json");
    assert_eq!(s.end_s, None);
    let (sim, steps) = run_bounded(s);
    let all = facts(&steps);
    // v1 (#0) is poison and goes to the DLQ at once; v2 (#1) waits for it, then gives up
    // after the default 30 s gap timeout and is parked with reason "gap timeout".
    assert_eq!(
        dead_letters(&all),
        vec![
            (
                0,
                DeadLetterReason::Poison(brokerlab_core::Poison::UnknownSchemaVersion),
                1
            ),
            (1, DeadLetterReason::GapTimeout, 51),
        ]
    );
    let parked_at = steps
        .iter()
        .find(|(_, f)| {
            f.iter()
                .any(|f| matches!(f, Fact::DeadLettered { msg, .. } if msg.get() == 1))
        })
        .map(|(t, _)| *t)
        .unwrap();
    let first_wait = steps
        .iter()
        .find(|(_, f)| {
            f.iter()
                .any(|f| matches!(f, Fact::GapWait { msg, .. } if msg.get() == 1))
        })
        .map(|(t, _)| *t)
        .unwrap();
    assert!(
        parked_at - first_wait >= 30_000_000,
        "waited the whole timeout"
    );
    assert_eq!(sim.effect_count(MsgId::new(1)), 0, "v2 was not applied");
    // No sentence calls a gap wait a backoff.
    for f in &all {
        let text = narration::describe(&sim, f, Lang::En);
        assert!(!text.contains("backoff"), "{text}");
    }
    let first = narration_of(
        &sim,
        &steps,
        |f| matches!(f, Fact::GapWait { msg, .. } if msg.get() == 1),
    );
    assert_eq!(
        first,
        vec![
            "L holds #1 back: key 1 is at version 0, so version 2 must wait for its predecessor.",
            "#1 waits, unfailed, for its predecessor: L looks again at 1.7 s, and stops waiting at its first look from 31.2 s on.",
        ]
    );
    let last = narration_of(
        &sim,
        &steps,
        |f| matches!(f, Fact::DeadLettered { msg, .. } if msg.get() == 1),
    );
    assert_eq!(
        last,
        vec!["#1 waited too long for its predecessor (gap timeout): it was parked in ledger's dead-letter queue."]
    );
}

#[test]
fn gap_timeout_skip_applies_the_waiting_message_and_moves_on() {
    let mut s = load("semantics/gap-wait-behind-poison.json");
    s.consumers[0].on_gap_timeout = GapTimeout::Skip;
    s.consumers[0].gap_timeout_s = Some(5.0);
    let (sim, steps) = run_bounded(s);
    let all = facts(&steps);
    assert!(all
        .iter()
        .any(|f| matches!(f, Fact::GapSkipped { msg, .. } if msg.get() == 1)));
    assert_eq!(
        sim.effect_count(MsgId::new(1)),
        1,
        "v2 applied after giving up on v1"
    );
    assert_eq!(
        sim.tables(QueueId::new(0)).unwrap().aggregate(1).balance,
        50
    );
    let step = narration_of(&sim, &steps, |f| matches!(f, Fact::GapSkipped { .. }));
    assert_eq!(
        step,
        vec![
            "L gave up waiting for version 1 of key 1 and applies #1 (version 2) anyway: the missing versions are skipped.",
            "L committed the effect of #1 in the database.",
            "L acked #1; the broker removed it for good.",
        ]
    );
}

#[test]
fn gap_wait_behind_a_lost_predecessor_ends_parked() {
    let s = load("limits/gap-wait-lost-predecessor.json");
    assert_eq!(s.end_s, None);
    let (sim, steps) = run_bounded(s);
    let all = facts(&steps);
    let parked: Vec<_> = dead_letters(&all)
        .into_iter()
        .filter(|&(_, r, _)| r == DeadLetterReason::GapTimeout)
        .collect();
    assert_eq!(
        parked.len(),
        1,
        "the successor of the poison message is parked"
    );
    let msg = parked[0].0;
    assert_eq!(sim.message(MsgId::new(msg)).unwrap().key, Some(7));
    assert_eq!(sim.effect_count(MsgId::new(msg)), 0);
}

// ----- RabbitMQ -------------------------------------------------------------------------

#[test]
fn rabbitmq_requeues_unacked_deliveries_at_once_when_a_consumer_dies() {
    // RabbitMQ: when a consumer's channel or connection closes, every delivery it had not
    // acknowledged is requeued immediately and redelivered with the redelivered flag; there
    // is no visibility timeout to wait out.
    let mut s = simple("rabbitmq", 1, 1.0, 2, 5.0, "after_commit");
    crash_consumer_0(&mut s, 1.0, None);
    let (sim, steps) = run_bounded(s);
    let crash = steps
        .iter()
        .find(|(_, f)| f.iter().any(|f| matches!(f, Fact::ConsumerCrashed { .. })))
        .unwrap();
    assert_eq!(crash.0, 1_000_000);
    assert!(crash.1.iter().any(|f| matches!(
        f,
        Fact::Requeued {
            msg,
            attempt: 1,
            ..
        } if msg.get() == 0
    )));
    assert!(crash.1.iter().any(|f| matches!(
        f,
        Fact::Delivered {
            msg,
            attempt: 2,
            consumer,
            lease_until_us: None,
            ..
        } if msg.get() == 0 && *consumer == ConsumerId::new(1)
    )));
    assert!(!facts(&steps)
        .iter()
        .any(|f| matches!(f, Fact::LeaseExpired { .. })));
    assert_eq!(sim.counters().acked, 1);
    let text = narration_of(&sim, &steps, |f| matches!(f, Fact::Requeued { .. }));
    assert_eq!(
        text,
        vec![
            "C1 crashed (as scheduled): its work in progress stops there; its unacked deliveries go back to the broker. It stays down until a restart.",
            "C1's channel closed with #0 unacked (attempt 1): the broker put it back in line at once, marked redelivered.",
            "The broker delivered #0 again (attempt 2) to C2.",
            "C2 started processing #0 (attempt 2); it will finish at 6 s.",
        ]
    );
    // The same crash on a generic queue waits for the lease (30 s from the delivery at 1 s).
    let mut g = simple("generic", 1, 1.0, 2, 5.0, "after_commit");
    g.commands = sim.scenario().commands.clone();
    let (_, gsteps) = run_bounded(g);
    let redelivery = gsteps
        .iter()
        .find(|(_, f)| {
            f.iter()
                .any(|f| matches!(f, Fact::Delivered { attempt: 2, .. }))
        })
        .unwrap();
    assert_eq!(redelivery.0, 31_000_000);
}

/// Three messages for one consumer of a `flavour` queue (prefetch 3, batches of `batch`,
/// 0.5 s per message), armed at 0.6 s to crash after its next commit, and back 1 s after
/// the crash. #0 is done alone at 0.51 s; then, in batches of 3, #1 and #2 start together
/// and the commit of #1 at 1.51 s crashes the consumer before any ack of that batch; one
/// at a time, #1 commits at 1.01 s with #2 in the buffer.
fn crash_between_commit_and_ack(flavour: &str, batch: u32, atomic: bool) -> Scenario {
    scenario(&format!(
        r#"{{ "version": 3, "seed": 7,
        "producers": [{{ "name": "P", "count": 3,
            "arrivals": {{ "process": "constant", "schedule": [{{ "from_s": 0, "rate_per_s": 100 }}] }} }}],
        "queues": [{{ "name": "q", "visibility_timeout_s": 30, "flavour": "{flavour}" }}],
        "consumers": [{{ "name": "C", "prefetch": 3, "batch_size": {batch}, "batch_atomic": {atomic},
            "service": {{ "fixed": {{ "seconds": 0.5 }} }}, "ack": "after_commit" }}],
        "commands": [{{ "at_s": 0.6, "command": {{ "crash_consumer": {{ "consumer": 0,
            "point": "after_commit_before_ack", "restart_after_s": 1 }} }} }}] }}"#
    ))
}

/// (time, message number) of every redelivery (attempt 2).
fn redeliveries(steps: &[(u64, Vec<Fact>)]) -> Vec<(u64, u64)> {
    steps
        .iter()
        .flat_map(|(t, facts)| {
            facts.iter().filter_map(move |f| match f {
                Fact::Delivered {
                    msg, attempt: 2, ..
                } => Some((*t, msg.get())),
                _ => None,
            })
        })
        .collect()
}

#[test]
fn rabbitmq_requeues_at_once_what_a_consumer_crashing_between_commit_and_ack_left_unacked() {
    // RabbitMQ: a channel that closes requeues every delivery it had not acknowledged,
    // whatever the consumer was doing: the one whose effect committed and whose ack never
    // left, and the rest of its batch. Before, the crash missed the batch it was settling
    // (taken out of the consumer's hands before its outcomes were told), and those copies
    // waited for the 30-minute consumer timeout (redelivered at 1,800.02 and 1,800.03 s).
    for (batch, atomic, crash_us) in [
        (1, false, 1_010_000),
        (3, false, 1_510_000),
        (3, true, 1_510_000),
    ] {
        let (sim, steps) = run_bounded(crash_between_commit_and_ack("rabbitmq", batch, atomic));
        let case = format!("batch {batch}, atomic {atomic}");
        let crash = steps
            .iter()
            .find(|(_, f)| f.iter().any(|f| matches!(f, Fact::ConsumerCrashed { .. })))
            .unwrap();
        assert_eq!(crash.0, crash_us, "{case}");
        let requeued: Vec<u64> = crash
            .1
            .iter()
            .filter_map(|f| match f {
                Fact::Requeued {
                    msg, attempt: 1, ..
                } => Some(msg.get()),
                _ => None,
            })
            .collect();
        assert_eq!(requeued, vec![1, 2], "{case}");
        // Both are delivered again as the consumer restarts, 1 s later.
        assert_eq!(
            redeliveries(&steps),
            vec![(crash_us + 1_000_000, 1), (crash_us + 1_000_000, 2)],
            "{case}"
        );
        assert!(
            !facts(&steps)
                .iter()
                .any(|f| matches!(f, Fact::LeaseExpired { .. })),
            "{case}: nothing waits for the consumer timeout"
        );
        assert_eq!(sim.counters().acked, 3, "{case}");
    }
    let (sim, steps) = run_bounded(crash_between_commit_and_ack("rabbitmq", 3, false));
    let text = narration_of(&sim, &steps, |f| matches!(f, Fact::ConsumerCrashed { .. }));
    assert_eq!(
        text,
        vec![
            "C committed the effect of #1 in the database.",
            "C crashed after committing, before sending its ack (as scheduled): its work in progress stops there; its unacked deliveries go back to the broker. It will restart at 2.51 s.",
            "C's channel closed with #1 unacked (attempt 1): the broker put it back in line at once, marked redelivered.",
            "C's channel closed with #2 unacked (attempt 1): the broker put it back in line at once, marked redelivered.",
        ]
    );
    // SQS and the teaching broker keep the lease: the copies come back when it runs out
    // (30 s from their delivery at 0.02 and 0.03 s), not at the crash.
    for flavour in ["generic", "sqs"] {
        let (_, steps) = run_bounded(crash_between_commit_and_ack(flavour, 3, false));
        assert!(
            !facts(&steps)
                .iter()
                .any(|f| matches!(f, Fact::Requeued { .. })),
            "{flavour}"
        );
        assert_eq!(
            redeliveries(&steps),
            vec![(30_020_000, 1), (30_030_000, 2)],
            "{flavour}"
        );
    }
}

#[test]
fn rabbitmq_auto_ack_ignores_prefetch_and_a_crash_loses_everything_pushed() {
    // RabbitMQ: prefetch (basic.qos) limits unacknowledged deliveries only, so it has no
    // effect in automatic acknowledgement mode: the broker pushes as fast as it can, and a
    // consumer that dies loses every message it had been sent.
    let build = |flavour: &str| {
        let mut s = simple(flavour, 20, 0.01, 1, 1.0, "on_delivery");
        crash_consumer_0(&mut s, 0.5, None);
        s
    };
    let (rabbit, _) = run_bounded(build("rabbitmq"));
    assert_eq!(
        rabbit.counters().delivered,
        20,
        "everything ready was pushed"
    );
    assert_eq!(rabbit.counters().lost, 20, "and the crash lost all of it");
    let (generic, _) = run_bounded(build("generic"));
    assert_eq!(
        generic.counters().delivered,
        1,
        "prefetch 1 holds the rest back"
    );
    assert_eq!(generic.counters().lost, 1);
}

#[test]
fn rabbitmq_max_length_counts_ready_messages_only() {
    // RabbitMQ: x-max-length bounds the messages ready for delivery; unacknowledged
    // deliveries do not count.
    let build = |flavour: &str| {
        let mut s = simple(flavour, 6, 0.01, 1, 10.0, "after_commit");
        s.queues[0].max_length = Some(2);
        // Refused publishes show what counts towards the limit.
        s.queues[0].overflow = Some(Overflow::Reject);
        s.consumers[0].prefetch = 3;
        s.consumers[0].concurrency = 3;
        s
    };
    let (rabbit, _) = run_bounded(build("rabbitmq"));
    // 3 in flight + 2 ready fit; the 6th publish is refused.
    assert_eq!(rabbit.counters().refused, 1);
    let (generic, _) = run_bounded(build("generic"));
    // Generic counts everything held: only 2 fit.
    assert_eq!(generic.counters().refused, 4);
}

#[test]
fn rabbitmq_overflow_defaults_to_drop_head_and_version_2_files_keep_rejecting() {
    // RabbitMQ: "The default behaviour for RabbitMQ when a maximum queue length or size
    // is set and the maximum is reached is to drop or dead-letter messages from the
    // front of the queue" (queue length limit). A queue without `overflow` does that;
    // a version-2 file, written when the model rejected by default, is migrated to an
    // explicit reject and runs as it did.
    let mut current = simple("rabbitmq", 5, 0.01, 1, 10.0, "after_commit");
    current.queues[0].max_length = Some(2);
    let text = current.to_json_pretty();
    assert!(!text.contains("overflow"), "the default is not written");
    let current = Scenario::from_json(&text).unwrap();
    assert_eq!(current.queues[0].effective_overflow(), Overflow::DropOldest);
    let (sim, steps) = run_bounded(current);
    // #0 is delivered; #1 and #2 wait; #3 and #4 each push out the oldest waiting one.
    let dropped: Vec<_> = dead_letters(&facts(&steps))
        .iter()
        .map(|&(m, r, _)| (m, r))
        .collect();
    assert_eq!(
        dropped,
        vec![
            (1, DeadLetterReason::MaxLength),
            (2, DeadLetterReason::MaxLength)
        ]
    );
    assert_eq!(sim.counters().refused, 0);

    let current_version = format!("\"version\": {SCENARIO_VERSION}");
    assert!(text.contains(&current_version));
    let old = Scenario::from_json(&text.replace(&current_version, "\"version\": 2")).unwrap();
    assert_eq!(old.queues[0].overflow, Some(Overflow::Reject));
    let (sim, steps) = run_bounded(old);
    assert!(dead_letters(&facts(&steps)).is_empty());
    assert_eq!(sim.counters().refused, 2);
    // The other flavours still refuse by default.
    for f in [Flavour::Generic, Flavour::Sqs, Flavour::SqsFifo] {
        assert_eq!(f.default_overflow(), Overflow::Reject, "{f:?}");
    }
}

#[test]
fn rabbitmq_dead_letters_messages_dropped_from_the_head_and_expired() {
    // RabbitMQ: with a dead-letter exchange, messages dropped from the head by
    // overflow drop-head, and messages whose TTL runs out, are dead-lettered.
    let mut s = simple("rabbitmq", 5, 0.01, 1, 10.0, "after_commit");
    s.queues[0].max_length = Some(2);
    s.queues[0].overflow = Some(Overflow::DropOldest);
    s.queues[0].ttl_s = Some(5.0);
    let (sim, steps) = run_bounded(s.clone());
    let dl = dead_letters(&facts(&steps));
    let reasons: Vec<_> = dl.iter().map(|&(m, r, _)| (m, r)).collect();
    assert_eq!(
        reasons,
        vec![
            (1, DeadLetterReason::MaxLength),
            (2, DeadLetterReason::MaxLength),
            (3, DeadLetterReason::Expired),
            (4, DeadLetterReason::Expired),
        ]
    );
    assert_eq!((sim.counters().dropped, sim.counters().expired), (0, 0));
    let text = narration_of(&sim, &steps, |f| {
        matches!(
            f,
            Fact::DeadLettered {
                reason: DeadLetterReason::MaxLength,
                ..
            }
        )
    });
    assert!(text.contains(
        &"q was full: it dropped #1 from its head into its dead-letter queue.".to_string()
    ));
    // Without dead-lettering they are dropped and expire as before.
    s.queues[0].dead_letter = false;
    let (plain, _) = run_bounded(s);
    assert_eq!((plain.counters().dropped, plain.counters().expired), (2, 2));
    assert_eq!(plain.counters().dead_lettered, 0);
}

#[test]
fn only_rabbitmq_dead_letters_a_message_whose_ttl_runs_out() {
    // RabbitMQ dead-letters a message that expires by TTL in a queue with a dead-letter
    // exchange (reason `expired`: `rabbitmq_dead_letters_messages_dropped_from_the_head_and_expired`).
    // The other flavours do not, with a dead-letter queue or without: SQS has no
    // per-message TTL, only a retention period after which it deletes the message
    // (never moved to the dead-letter queue), and the generic teaching broker keeps its
    // dead-letter queue for messages that failed, which a redrive sends back to be
    // processed; an expired message is counted `expired`.
    for flavour in ["generic", "sqs", "sqs_fifo", "rabbitmq"] {
        let mut s = simple(flavour, 5, 0.01, 1, 10.0, "after_commit");
        s.queues[0].ttl_s = Some(5.0);
        if flavour == "sqs" {
            s.queues[0].duplicate_p = Some(0.0);
        }
        assert!(s.queues[0].dead_letter, "{flavour}: a dead-letter queue");
        let (sim, steps) = run_bounded(s);
        let c = sim.counters();
        let dl = dead_letters(&facts(&steps));
        if flavour == "rabbitmq" {
            assert_eq!(c.expired, 0, "{flavour}");
            assert_eq!(dl.len(), 4, "{flavour}");
            assert!(dl.iter().all(|&(_, r, _)| r == DeadLetterReason::Expired));
        } else {
            assert_eq!((c.expired, c.dead_lettered), (4, 0), "{flavour}");
        }
        assert_eq!(c.acked, 1, "{flavour}: only #0 was processed");
    }
}

#[test]
fn a_message_whose_ttl_ran_out_while_out_for_delivery_expires_when_it_comes_back() {
    // RabbitMQ: a requeued message keeps its original expiry; once past it, it expires
    // (dead-lettered with a dead-letter exchange) instead of being delivered again. The
    // lease of a generic queue returns it the same way. One message, TTL 2 s, its
    // consumer crashes with it at 2.5 s (RabbitMQ: requeued at once to the other
    // replica; generic: returned when its 3 s lease runs out, at 3.1 s).
    let json = |flavour: &str, lease_s: f64, restart: &str| {
        format!(
            r#"{{ "version": 2, "name": "ttl", "seed": 1,
  "producers": [ {{ "name": "p", "arrivals": {{"process":"constant","schedule":[{{"from_s":0,"rate_per_s":0}}]}},
     "script": [ {{"at_s":0.1}} ] }} ],
  "queues": [ {{ "name": "q", "visibility_timeout_s": {lease_s}, "flavour": "{flavour}", "ttl_s": 2 }} ],
  "consumers": [ {{ "name": "C", "replicas": 2, "service": {{"fixed":{{"seconds":3}}}}, "ack": "after_commit" }} ],
  "commands": [ {{"at_s": 2.5, "command": {{"crash_consumer": {{"consumer": 0, "point": "now"{restart}}}}}}} ] }}"#
        )
    };
    for (flavour, lease_s, expired_at_s) in [("rabbitmq", 100.0, 2.5), ("generic", 3.0, 3.1)] {
        let s = Scenario::from_json(&json(flavour, lease_s, ", \"restart_after_s\": 1")).unwrap();
        let (sim, steps) = run_bounded(s);
        let delivered: Vec<u32> = facts(&steps)
            .iter()
            .filter_map(|f| match f {
                Fact::Delivered { attempt, .. } => Some(*attempt),
                _ => None,
            })
            .collect();
        assert_eq!(delivered, [1], "{flavour}: never delivered again");
        let c = sim.counters();
        let expired = if flavour == "rabbitmq" {
            c.dead_lettered
        } else {
            c.expired
        };
        assert_eq!((expired, c.acked), (1, 0), "{flavour}");
        let at = steps
            .iter()
            .find(|(_, f)| {
                f.iter().any(|f| {
                    matches!(f, Fact::Expired { .. })
                        || matches!(
                            f,
                            Fact::DeadLettered {
                                reason: DeadLetterReason::Expired,
                                ..
                            }
                        )
                })
            })
            .map(|(t, _)| *t);
        assert_eq!(at, Some((expired_at_s * 1e6) as u64), "{flavour}");
    }
}

#[test]
fn rabbitmq_quorum_queue_dead_letters_after_its_delivery_limit() {
    // RabbitMQ quorum queues: a message returned more times than delivery-limit is
    // dead-lettered (or dropped without a dead-letter exchange); RabbitMQ 4 sets the
    // limit to 20 by default. Classic queues have no such limit.
    let build = |queue_type: QueueType, limit: Option<u32>| {
        let mut s = simple("rabbitmq", 1, 1.0, 1, 0.1, "after_commit");
        s.queues[0].queue_type = queue_type;
        s.queues[0].delivery_limit = limit;
        s.consumers[0].failures.transient_p = 1.0;
        s.consumers[0].retry.max_attempts = 100;
        s.consumers[0].retry.backoff_base_s = 0.01;
        s.consumers[0].retry.backoff_cap_s = 0.01;
        s
    };
    let (_, steps) = run_bounded(build(QueueType::Quorum, Some(3)));
    assert_eq!(
        dead_letters(&facts(&steps)),
        vec![(0, DeadLetterReason::DeliveryLimitReached, 4)]
    );
    let (_, steps) = run_bounded(build(QueueType::Quorum, None));
    assert_eq!(
        dead_letters(&facts(&steps)),
        vec![(0, DeadLetterReason::DeliveryLimitReached, 21)]
    );
    let (_, steps) = run_bounded(build(QueueType::Classic, Some(3)));
    assert_eq!(
        dead_letters(&facts(&steps)),
        vec![(0, DeadLetterReason::RetriesExhausted, 100)]
    );
    // Without a dead-letter queue the quorum queue drops it.
    let mut s = build(QueueType::Quorum, Some(3));
    s.queues[0].dead_letter = false;
    let (sim, _) = common::run(s);
    assert_eq!(sim.counters().lost_without_dead_letter_queue, 1);
}

#[test]
fn a_quorum_queue_counts_deliveries_a_closed_channel_returned_toward_its_limit() {
    // RabbitMQ 4.0–4.2 quorum queues check delivery-limit against the times a message was
    // acquired, so a delivery returned because its consumer's channel closed counts like
    // a failed one. (4.3 checks a separate delivery-count that only failures raise; the
    // lab follows 4.0–4.2, see docs/semantics.md.) One message in work for 5 s, its
    // consumer crashed at 1 s and 2.5 s and back 0.5 s later each time: with
    // delivery-limit 1 the second return is one too many, and the message is
    // dead-lettered after its two deliveries instead of being delivered again; a classic
    // queue delivers it a third time and it is acked.
    let build = |queue_type: QueueType| {
        let mut s = simple("rabbitmq", 1, 1.0, 1, 5.0, "after_commit");
        s.queues[0].queue_type = queue_type;
        s.queues[0].delivery_limit = Some(1);
        for at_s in [1.0, 2.5] {
            crash_consumer_0(&mut s, at_s, Some(0.5));
        }
        s
    };
    let (sim, steps) = run_bounded(build(QueueType::Quorum));
    assert_eq!(
        dead_letters(&facts(&steps)),
        vec![(0, DeadLetterReason::DeliveryLimitReached, 2)]
    );
    assert_eq!(sim.counters().acked, 0);
    let (sim, steps) = run_bounded(build(QueueType::Classic));
    assert!(dead_letters(&facts(&steps)).is_empty());
    assert_eq!(
        deliveries(&steps)
            .iter()
            .map(|&(_, _, attempt)| attempt)
            .collect::<Vec<_>>(),
        [1, 2, 3]
    );
    assert_eq!(sim.counters().acked, 1);
}

/// The consumer's dependency is down until 0.15 s, so an attempt ending before then fails,
/// and its retry comes 50 ms later (no jitter).
fn fail_first_attempt_retry_after_50ms(s: &mut Scenario) {
    s.consumers[0].failures.outages =
        serde_json::from_str(r#"[{"from_s": 0, "until_s": 0.15}]"#).unwrap();
    s.consumers[0].retry.backoff_base_s = 0.05;
    s.consumers[0].retry.backoff_cap_s = 0.05;
    s.consumers[0].retry.jitter = serde_json::from_str(r#""none""#).unwrap();
}

#[test]
fn a_quorum_queue_returns_a_failed_message_near_the_head_and_counts_it_toward_its_limit() {
    // RabbitMQ 4 quorum queues: a delivery the consumer rejects with requeue is returned,
    // and counts as an unsuccessful delivery toward delivery-limit (20 by default,
    // always set since 4.0); with a limit set, a returned message goes back near the
    // head of the queue, not to its back. So after its backoff the failed #0 is
    // delivered before #2, which was published after it, and its returns count toward
    // the limit (`rabbitmq_quorum_queue_dead_letters_after_its_delivery_limit`). A
    // classic queue (no delivery limit) and the generic broker keep the lab's retry
    // through a delay queue: a republish, at the tail. Before (found 2026-12-04), the
    // quorum queue's retry both went to the tail and counted toward the limit.
    let order = |flavour: &str, queue_type: QueueType| {
        let mut s = simple(flavour, 3, 0.001, 1, 0.1, "after_commit");
        s.queues[0].queue_type = queue_type;
        s.consumers[0].prefetch = 1;
        s.consumers[0].concurrency = 1;
        fail_first_attempt_retry_after_50ms(&mut s);
        let (sim, steps) = run_bounded(s);
        assert_eq!(sim.counters().acked, 3, "{flavour} {queue_type:?}");
        deliveries(&steps)
            .iter()
            .map(|&(_, msg, attempt)| (msg, attempt))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        order("rabbitmq", QueueType::Quorum),
        [(0, 1), (1, 1), (0, 2), (2, 1)],
        "quorum: returned near the head"
    );
    for (flavour, queue_type) in [
        ("rabbitmq", QueueType::Classic),
        ("generic", QueueType::Classic),
    ] {
        assert_eq!(
            order(flavour, queue_type),
            [(0, 1), (1, 1), (2, 1), (0, 2)],
            "{flavour} {queue_type:?}: republished at the tail"
        );
    }
    // A return keeps the message's expiry; a republish is a new stay with a new TTL. With
    // a TTL of 0.12 s, #0 (stored at 1 ms, failed at 0.1 s, back at 0.15 s) has expired by
    // then on the quorum queue (dead-lettered, reason expired), and is processed on the
    // classic one.
    for (queue_type, expired, acked) in [(QueueType::Quorum, 1, 0), (QueueType::Classic, 0, 1)] {
        let mut s = simple("rabbitmq", 1, 0.001, 1, 0.1, "after_commit");
        s.queues[0].queue_type = queue_type;
        s.queues[0].ttl_s = Some(0.12);
        fail_first_attempt_retry_after_50ms(&mut s);
        let (sim, steps) = run_bounded(s);
        let dl = dead_letters(&facts(&steps));
        let gone = dl
            .iter()
            .filter(|&&(_, r, _)| r == DeadLetterReason::Expired)
            .count();
        assert_eq!(
            (gone, sim.counters().acked),
            (expired, acked),
            "{queue_type:?}"
        );
    }
}

#[test]
fn quorum_and_sqs_queues_keep_transient_messages_and_non_durable_settings_through_a_broker_restart()
{
    // RabbitMQ quorum queues are always durable, and "messages published to the source
    // quorum queue are persisted on disk regardless of the message delivery mode"
    // (quorum queues guide); SQS has no transient messages or queues. Only a classic
    // queue (or the generic broker) loses transient messages, or all of a non-durable
    // queue's, in a restart. Five messages, one in work at the crash, four waiting: kept,
    // all five are acked (the one in work redelivered after the restart, its first ack
    // lost while the broker was down); forgotten, the four waiting are lost and the one
    // in work is finished without an ack.
    let build = |flavour: &str, quorum: bool, durable: bool, persistent: bool| {
        let mut s = simple(flavour, 5, 0.1, 1, 1.0, "after_commit");
        if quorum {
            s.queues[0].queue_type = QueueType::Quorum;
        }
        s.queues[0].durable = durable;
        s.producers[0].publish.persistent = persistent;
        s.commands.push(ScheduledCommand {
            at_s: 0.6,
            command: Command::CrashBroker {
                restart_after_s: Some(1.0),
            },
            unannounced: false,
        });
        s
    };
    let lost = |s: Scenario| {
        let (sim, _) = run_bounded(s);
        let c = sim.counters();
        (c.lost_broker_restart, c.acked)
    };
    for (durable, persistent) in [(true, false), (false, true), (false, false)] {
        assert_eq!(
            lost(build("rabbitmq", true, durable, persistent)),
            (0, 5),
            "quorum, durable {durable}, persistent {persistent}: all kept"
        );
        for flavour in ["sqs", "sqs_fifo"] {
            assert_eq!(
                lost(build(flavour, false, durable, persistent)),
                (0, 5),
                "{flavour}, durable {durable}, persistent {persistent}"
            );
        }
        for flavour in ["rabbitmq", "generic"] {
            assert_eq!(
                lost(build(flavour, false, durable, persistent)),
                (4, 0),
                "{flavour} classic, durable {durable}, persistent {persistent}: the waiting four lost"
            );
        }
    }
    assert_eq!(lost(build("rabbitmq", false, true, true)), (0, 5));
}

#[test]
fn an_sqs_message_received_before_a_broker_restart_stays_hidden_and_its_delete_still_counts() {
    // SQS has no connection whose loss returns a received message: it stays invisible
    // until its visibility timeout, and the receipt handle deletes it after an outage.
    // RabbitMQ closes the channels, so its unacked deliveries go back in line. Two
    // messages of 3 s each are under way when the broker is down from 1 s to 1.5 s.
    let build = |flavour: &str| {
        let mut s = simple(flavour, 2, 0.1, 2, 3.0, "after_commit");
        s.queues[0].duplicate_p = Some(0.0);
        s.commands.push(ScheduledCommand {
            at_s: 1.0,
            command: Command::CrashBroker {
                restart_after_s: Some(0.5),
            },
            unannounced: false,
        });
        let (sim, _) = run_bounded(s);
        let c = sim.counters();
        (c.redelivered, c.acks_ignored, c.duplicate_effects)
    };
    for flavour in ["sqs", "sqs_fifo"] {
        assert_eq!(
            build(flavour),
            (0, 0, 0),
            "{flavour}: deleted once, never redelivered"
        );
    }
    assert_eq!(
        build("rabbitmq"),
        (2, 2, 2),
        "rabbitmq: requeued, redelivered"
    );
}

#[test]
fn a_broker_restart_keeps_a_dead_letter_queue_only_as_it_keeps_its_queue() {
    // A dead-lettered message keeps its delivery mode: to survive a restart in the
    // dead-letter queue it must be persistent and that queue durable (quorum queues guide,
    // dead lettering). The lab's dead-letter queue is like its queue. Four poison messages
    // are dead-lettered, then the broker restarts, then an operator redrives.
    let build = |quorum: bool, durable: bool, persistent: bool| {
        let mut s = simple("rabbitmq", 4, 0.1, 1, 0.05, "after_commit");
        if quorum {
            s.queues[0].queue_type = QueueType::Quorum;
        }
        s.queues[0].durable = durable;
        s.producers[0].publish.persistent = persistent;
        s.producers[0].payload.poison_share = 1.0;
        for (at_s, command) in [
            (
                2.0,
                Command::CrashBroker {
                    restart_after_s: Some(1.0),
                },
            ),
            (
                5.0,
                Command::Redrive {
                    queue: "q".into(),
                    rate_per_s: 10.0,
                },
            ),
        ] {
            s.commands.push(ScheduledCommand {
                at_s,
                command,
                unannounced: false,
            });
        }
        let (sim, _) = run_bounded(s);
        let c = sim.counters();
        (c.lost_broker_restart, c.redriven)
    };
    assert_eq!(build(false, true, false), (4, 0), "transient: lost");
    assert_eq!(build(false, false, true), (4, 0), "non-durable: lost");
    assert_eq!(
        build(false, true, true),
        (0, 4),
        "durable and persistent: kept"
    );
    assert_eq!(build(true, true, false), (0, 4), "quorum: kept");
}

// ----- SQS ------------------------------------------------------------------------------

#[test]
fn sqs_standard_queue_now_and_then_delivers_a_message_twice() {
    // SQS standard queues deliver at least once: occasionally a copy of a message is
    // delivered again, so consumers must be idempotent.
    let mut s = simple("sqs", 300, 0.01, 2, 0.001, "after_commit");
    s.queues[0].duplicate_p = Some(0.05);
    let (sim, steps) = run_bounded(s.clone());
    let twins = facts(&steps)
        .iter()
        .filter(|f| matches!(f, Fact::DuplicateKept { .. }))
        .count() as u64;
    assert!(twins > 0);
    assert_eq!(sim.counters().duplicate_effects, twins);
    assert_eq!(sim.counters().published, 300 + twins);
    // An ack says whether the other copy is still in the queue: the first of a pair's
    // two acks does (the message will be handled again), the last one never.
    let mut acks: std::collections::BTreeMap<MsgId, Vec<bool>> = Default::default();
    for f in facts(&steps) {
        if let Fact::Acked { msg, twin_held, .. } = f {
            acks.entry(msg).or_default().push(twin_held);
        }
    }
    let pairs = acks.values().filter(|a| a.len() == 2).count() as u64;
    assert!(pairs > 0 && pairs <= twins);
    for a in acks.values() {
        let expected: &[bool] = if a.len() == 2 {
            &[true, false]
        } else {
            &[false]
        };
        assert_eq!(a, expected);
    }
    // The default rate is small but not zero (documented in docs/semantics.md)...
    assert_eq!(brokerlab_core::flavour_defaults::DUPLICATE_P, 0.001);
    // ...and other flavours never duplicate.
    s.queues[0].flavour = Flavour::Generic;
    let (generic, _) = run_bounded(s);
    assert_eq!(generic.counters().duplicate_effects, 0);
}

#[test]
fn an_sqs_duplicate_shares_its_message_s_receive_count() {
    // SQS: the receive count (ApproximateReceiveCount) belongs to the message, and the
    // redrive policy moves the message to the dead-letter queue once that count reaches
    // maxReceiveCount. A duplicate left by at-least-once delivery is the same message,
    // so a receive of either copy counts: with maxReceiveCount 2, a message that always
    // fails is received twice in all, whether or not a duplicate was left. Before (found
    // 2026-12-04), each copy kept a count of its own, so a duplicated message was
    // received four times.
    let mut s = simple("sqs", 20, 1.0, 1, 0.1, "after_commit");
    s.queues[0].duplicate_p = Some(0.5);
    s.queues[0].max_receive_count = Some(2);
    s.consumers[0].failures.transient_p = 1.0;
    s.consumers[0].retry.backoff_base_s = 0.01;
    s.consumers[0].retry.backoff_cap_s = 0.01;
    let (sim, steps) = run_bounded(s);
    let all = facts(&steps);
    let duplicated: std::collections::BTreeSet<MsgId> = all
        .iter()
        .filter_map(|f| match f {
            Fact::DuplicateKept { msg, .. } => Some(*msg),
            _ => None,
        })
        .collect();
    assert!(duplicated.len() >= 3, "{duplicated:?}");
    let mut receives: std::collections::BTreeMap<MsgId, u32> = Default::default();
    for f in &all {
        if let Fact::Delivered { msg, .. } = f {
            *receives.entry(*msg).or_default() += 1;
        }
    }
    assert_eq!(receives.len(), 20);
    for (msg, n) in &receives {
        let twin = duplicated.contains(msg);
        assert_eq!(
            *n,
            2,
            "#{} (duplicated: {twin}) received {n} times",
            msg.get()
        );
    }
    // Every copy, duplicate or not, ends in the dead-letter queue at the limit, which
    // says how many times the message was received.
    let dl = dead_letters(&all);
    assert_eq!(dl.len(), 20 + duplicated.len());
    assert!(dl
        .iter()
        .all(|&(_, r, n)| r == DeadLetterReason::DeliveryLimitReached && n == 2));
    let text = narration_of(
        &sim,
        &steps,
        |f| matches!(f, Fact::DeadLettered { msg, .. } if duplicated.contains(msg)),
    );
    assert!(
        text.iter()
            .any(|t| t.contains("reached its delivery limit after 2 deliveries")),
        "{text:?}"
    );
    assert_eq!(sim.counters().acked, 0);
}

#[test]
fn sqs_fifo_keeps_one_message_in_flight_per_group_while_other_groups_flow() {
    // SQS FIFO: while a message of a message group is in flight, no later message of that
    // group is returned; messages of other groups can be received meanwhile.
    let s = scenario(
        r#"{ "version": 1, "seed": 3,
        "producers": [{ "name": "P", "arrivals": { "process": "constant", "schedule": [{ "from_s": 0, "rate_per_s": 1 }] },
            "script": [
                { "at_s": 0.0, "key": 1 }, { "at_s": 0.1, "key": 1 }, { "at_s": 0.2, "key": 1 },
                { "at_s": 0.3, "key": 2 }, { "at_s": 0.4, "key": 2 } ] }],
        "queues": [{ "name": "q", "visibility_timeout_s": 30, "flavour": "sqs_fifo" }],
        "consumers": [{ "name": "C", "replicas": 3, "service": { "fixed": { "seconds": 1 } }, "ack": "after_commit" }] }"#,
    );
    let (most, both_groups_at_once, order) = group_run(s.clone());
    assert_eq!(most, 1, "one in flight per group");
    assert!(both_groups_at_once, "the other group flowed meanwhile");
    let key1: Vec<_> = order
        .iter()
        .copied()
        .filter(|&m| m <= MsgId::new(2))
        .collect();
    assert_eq!(key1, [0, 1, 2].map(MsgId::new), "in order within the group");
    // A generic queue hands one group to several consumers at once.
    let mut g = s;
    g.queues[0].flavour = Flavour::Generic;
    let (most, _, _) = group_run(g);
    assert!(most > 1);
}

/// Runs a scenario whose messages have keys 1 and 2: the most copies of one key in flight
/// at once, whether both keys were ever in flight together, and the order of effects.
fn group_run(s: Scenario) -> (u32, bool, Vec<MsgId>) {
    let mut sim = Simulation::new(s).unwrap();
    let (mut most, mut both, mut order) = (0, false, Vec::new());
    while let Some(step) = sim.step() {
        for f in step.facts {
            if let Fact::EffectCommitted { msg, .. } = *f {
                order.push(msg);
            }
        }
        invariants::check(&sim).unwrap();
        let mut out = [0u32; 3];
        for c in sim.copies() {
            if c.fate == brokerlab_core::Fate::InFlight {
                out[sim.message(c.msg).unwrap().key.unwrap() as usize] += 1;
            }
        }
        most = most.max(out[1]).max(out[2]);
        both |= out[1] >= 1 && out[2] >= 1;
    }
    (most, both, order)
}

#[test]
fn sqs_fifo_accepts_a_republish_within_the_dedup_window_without_storing_it_again() {
    // SQS FIFO: a message sent again with the same deduplication id within the 5-minute
    // deduplication interval is accepted and not delivered a second time; after the
    // interval it is a new message.
    let build = |window: Option<f64>| {
        let mut s = scenario(
            r#"{ "version": 1, "seed": 1,
            "producers": [{ "name": "checkout", "count": 1,
                "arrivals": { "process": "constant", "schedule": [{ "from_s": 0, "rate_per_s": 1 }] },
                "publish": { "confirms": true, "confirm_timeout_s": 0.5, "max_attempts": 3 } }],
            "queues": [{ "name": "orders", "visibility_timeout_s": 10, "flavour": "sqs_fifo" }],
            "consumers": [{ "name": "C1", "service": { "fixed": { "seconds": 0.1 } }, "ack": "after_commit" }],
            "broker": { "network_latency_s": 0.05 },
            "faults": [{ "at_s": 0, "fault": { "drop_next_confirm": { "producer": 0 } } }] }"#,
        );
        s.queues[0].dedup_window_s = window;
        s
    };
    let (sim, steps) = run_bounded(build(None));
    assert!(facts(&steps)
        .iter()
        .any(|f| matches!(f, Fact::DedupWindowHit { msg, .. } if msg.get() == 0)));
    assert_eq!(sim.counters().published, 1, "stored once");
    assert_eq!(sim.effect_count(MsgId::new(0)), 1);
    let text = narration_of(&sim, &steps, |f| matches!(f, Fact::DedupWindowHit { .. }));
    assert_eq!(
        text[0],
        "orders already stored #0 within its deduplication window: the publish from checkout was accepted and not stored again."
    );
    assert_eq!(brokerlab_core::flavour_defaults::DEDUP_WINDOW_S, 300.0);
    // A window shorter than the retry delay: the republish is a new message.
    let (late, _) = run_bounded(build(Some(0.1)));
    assert_eq!(late.counters().published, 2);
    assert_eq!(late.effect_count(MsgId::new(0)), 2);
}

// ----- switching flavours ---------------------------------------------------------------

#[test]
fn a_flavour_switch_while_playing_is_recorded_and_replays_exactly() {
    let s = simple("generic", 40, 0.05, 2, 0.3, "after_commit");
    let mut live = Simulation::new(s).unwrap();
    live.run_until(500_000);
    let step = live
        .command(Command::SetFlavour {
            queue: "q".into(),
            flavour: Flavour::Rabbitmq,
        })
        .unwrap();
    let facts = step.facts.to_vec();
    assert!(matches!(
        facts[0],
        Fact::SettingChanged {
            setting: brokerlab_core::Setting::Flavour {
                queue,
                flavour: Flavour::Rabbitmq
            },
            ..
        } if queue == QueueId::new(0)
    ));
    assert_eq!(
        narration::describe(&live, &facts[0], Lang::En),
        "q now follows RabbitMQ's rules (no lease: unacked messages return when a consumer's channel closes) (on your command)."
    );
    assert_eq!(
        live.queue(QueueId::new(0)).unwrap().flavour,
        Flavour::Rabbitmq
    );
    live.command(Command::CrashConsumer {
        consumer: ConsumerId::new(0),
        point: CrashPoint::Now,
        restart_after_s: Some(0.5),
    })
    .unwrap();
    assert!(live
        .last_facts()
        .iter()
        .any(|f| matches!(f, Fact::Requeued { .. })));
    live.run();
    let recorded = live.scenario().clone();
    let text = recorded.to_json_pretty();
    assert!(text.contains("\"set_flavour\""));
    let mut replay = Simulation::new(Scenario::from_json(&text).unwrap()).unwrap();
    replay.run();
    assert_eq!(replay.counters(), live.counters());
    assert_eq!(
        brokerlab_core::fingerprint(&recorded).unwrap(),
        brokerlab_core::fingerprint(&Scenario::from_json(&text).unwrap()).unwrap()
    );
}

#[test]
fn a_switch_to_sqs_fifo_counts_the_groups_already_in_flight() {
    // Three messages of group 1 are in flight on a generic queue when it becomes SQS
    // FIFO (which only then starts counting busy groups): the next message of group 1
    // must wait until all three are done, while group 2 flows.
    let s = scenario(
        r#"{ "version": 1, "seed": 3,
        "producers": [{ "name": "P", "arrivals": { "process": "constant", "schedule": [{ "from_s": 0, "rate_per_s": 1 }] },
            "script": [
                { "at_s": 0.0, "key": 1 }, { "at_s": 0.1, "key": 1 }, { "at_s": 0.2, "key": 1 },
                { "at_s": 0.3, "key": 1 }, { "at_s": 0.35, "key": 2 } ] }],
        "queues": [{ "name": "q", "visibility_timeout_s": 30 }],
        "consumers": [{ "name": "C", "replicas": 3, "service": { "fixed": { "seconds": 1 } }, "ack": "after_commit" }] }"#,
    );
    let mut sim = Simulation::new(s).unwrap();
    sim.run_until(250_000);
    sim.command(Command::SetFlavour {
        queue: "q".into(),
        flavour: Flavour::SqsFifo,
    })
    .unwrap();
    let mut delivered_late = Vec::new();
    while let Some(step) = sim.step() {
        let delivered: Vec<MsgId> = step
            .facts
            .iter()
            .filter_map(|f| match *f {
                Fact::Delivered { msg, .. } => Some(msg),
                _ => None,
            })
            .collect();
        let time_us = step.time_us;
        for msg in delivered {
            let key = sim.message(msg).unwrap().key;
            let busy = sim
                .copies()
                .iter()
                .filter(|c| c.fate == brokerlab_core::Fate::InFlight)
                .filter(|c| sim.message(c.msg).unwrap().key == key)
                .count();
            assert_eq!(busy, 1, "{msg:?} delivered while its group was busy");
            delivered_late.push((msg, time_us));
        }
    }
    let at = |m: u64| {
        delivered_late
            .iter()
            .find(|&&(msg, _)| msg == MsgId::new(m))
            .map(|&(_, t)| t)
    };
    assert_eq!(
        at(3),
        Some(1_200_000),
        "group 1 waits for its last copy in flight"
    );
    assert_eq!(at(4), Some(1_000_000), "group 2 flows meanwhile");
}

#[test]
fn version_1_files_without_flavours_load_as_generic_and_save_unchanged() {
    let s = load("semantics/lease-shorter-than-work.json");
    assert_eq!(s.queues[0].flavour, Flavour::Generic);
    assert_eq!(s.queues[0].queue_type, QueueType::Classic);
    assert!(!s.consumers[0].extend_visibility);
    assert_eq!(s.consumers[0].on_gap_timeout, GapTimeout::Park);
    let text = s.to_json_pretty();
    for field in [
        "flavour",
        "queue_type",
        "delivery_limit",
        "max_receive_count",
        "dedup_window_s",
        "duplicate_p",
        "extend_visibility",
        "gap_timeout_s",
        "on_gap_timeout",
    ] {
        assert!(!text.contains(field), "{field} written for a default");
    }
    // And every flavour name round-trips.
    for f in Flavour::ALL {
        let json = format!("\"{}\"", f.as_str());
        assert_eq!(serde_json::from_str::<Flavour>(&json).unwrap(), f);
    }
    let _ = AckMode::AfterCommit;
}

#[test]
fn the_built_in_examples_still_end_and_keep_their_accounts() {
    for name in brokerlab_core::examples::message_by_message() {
        let mut s = common::example(name);
        s.end_s = Some(s.end_s.unwrap_or(60.0).min(60.0));
        let mut sim = Simulation::new(s).unwrap();
        sim.run();
        assert!(sim.is_finished(), "{name}");
        invariants::check(&sim).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn rabbitmq_takes_back_a_delivery_only_after_its_consumer_timeout() {
    // RabbitMQ: an ack lost on the way leaves the delivery unacked; with no lease, the
    // broker takes it back when the consumer timeout (30 minutes by default) runs out.
    let mut s = simple("rabbitmq", 1, 1.0, 1, 0.1, "after_commit");
    s.commands.push(ScheduledCommand {
        at_s: 0.0,
        command: Command::DropNextAck {
            consumer: ConsumerId::new(0),
        },
        unannounced: false,
    });
    let (sim, steps) = run_bounded(s);
    let back = steps
        .iter()
        .find(|(_, f)| f.iter().any(|f| matches!(f, Fact::LeaseExpired { .. })))
        .unwrap();
    assert_eq!(back.0, 1_000_000 + 1_800_000_000);
    let lost = narration_of(&sim, &steps, |f| matches!(f, Fact::AckLost { .. }));
    assert_eq!(
        lost.last().unwrap(),
        "C's ack for #0 never reached the broker: it stays unacked until the consumer's channel closes or its consumer timeout runs out, then it is delivered again."
    );
    let timeout = narration_of(&sim, &steps, |f| matches!(f, Fact::LeaseExpired { .. }));
    assert_eq!(
        timeout[0],
        "C kept #0 (attempt 1) unacked past the consumer timeout: the broker closed its channel and put #0 back in line to be redelivered, with every other delivery it held unacked."
    );
}

/// Four messages one second apart, 0.1 s of work each, to one consumer with `prefetch`,
/// whose acks are lost at each time in `drops_at_s`; `crash` crashes it then, restarting
/// half a second later.
fn lost_acks(flavour: &str, prefetch: u32, drops_at_s: &[f64], crash: Option<f64>) -> Scenario {
    let mut s = scenario(&format!(
        r#"{{ "version": 2, "seed": 1,
        "producers": [{{ "name": "p", "count": 4,
            "arrivals": {{ "process": "constant", "schedule": [{{ "from_s": 0, "rate_per_s": 1 }}] }} }}],
        "queues": [{{ "name": "q", "visibility_timeout_s": 1800, "flavour": "{flavour}" }}],
        "consumers": [{{ "name": "C", "service": {{ "fixed": {{ "seconds": 0.1 }} }},
            "prefetch": {prefetch}, "ack": "after_commit" }}] }}"#
    ));
    for &at_s in drops_at_s {
        s.commands.push(ScheduledCommand {
            at_s,
            command: Command::DropNextAck {
                consumer: ConsumerId::new(0),
            },
            unannounced: false,
        });
    }
    if let Some(at_s) = crash {
        crash_consumer_0(&mut s, at_s, Some(0.5));
    }
    s
}

/// (time in µs, message number, attempt) of every delivery.
fn deliveries(steps: &[(u64, Vec<Fact>)]) -> Vec<(u64, u64, u32)> {
    steps
        .iter()
        .flat_map(|(t, f)| f.iter().map(move |f| (*t, f)))
        .filter_map(|(t, f)| match *f {
            Fact::Delivered { msg, attempt, .. } => Some((t, msg.get(), attempt)),
            _ => None,
        })
        .collect()
}

/// Messages delivered before the consumer timeout (1,800 s after the first delivery).
fn delivered_before_the_timeout(s: Scenario) -> Vec<u64> {
    let (_, steps) = run_bounded(s);
    deliveries(&steps)
        .into_iter()
        .filter(|&(t, _, _)| t < 1_801_000_000)
        .map(|(_, msg, _)| msg)
        .collect()
}

#[test]
fn rabbitmq_a_delivery_whose_ack_was_lost_keeps_its_prefetch_slot() {
    // RabbitMQ: prefetch (basic.qos) limits the deliveries a consumer has unacknowledged.
    // An ack lost on the way leaves its delivery unacknowledged at the broker, so it takes
    // a slot until the broker takes it back (consumer timeout, or the channel closing).
    // Prefetch 1: nothing more until the consumer timeout requeues #0; then all flows.
    let (_, steps) = run_bounded(lost_acks("rabbitmq", 1, &[0.0], None));
    assert_eq!(
        deliveries(&steps),
        vec![
            (1_000_000, 0, 1),
            (1_801_000_000, 0, 2),
            (1_801_100_000, 1, 1),
            (1_801_200_000, 2, 1),
            (1_801_300_000, 3, 1),
        ]
    );
    // Prefetch 2: one more delivery; a second lost ack fills the window too.
    let two = |drops: &[f64]| delivered_before_the_timeout(lost_acks("rabbitmq", 2, drops, None));
    assert_eq!(two(&[0.0]), vec![0, 1, 2, 3]);
    assert_eq!(two(&[0.0, 1.5]), vec![0, 1]);
    // A crash closes the channel: the delivery whose ack was lost goes back at once with
    // the others, and the restarted consumer gets it again before anything else.
    let (_, steps) = run_bounded(lost_acks("rabbitmq", 1, &[0.0], Some(1.5)));
    assert!(steps.iter().any(|(t, f)| *t == 1_500_000
        && f.iter().any(|f| matches!(
            f,
            Fact::Requeued { msg, attempt: 1, .. } if msg.get() == 0
        ))));
    assert_eq!(
        deliveries(&steps)[..3],
        [(1_000_000, 0, 1), (2_000_000, 0, 2), (2_100_000, 1, 1)]
    );
    assert!(!facts(&steps)
        .iter()
        .any(|f| matches!(f, Fact::LeaseExpired { .. })));
    // SQS has no such window: a lost delete leaves the message in flight until its
    // visibility timeout, and the consumer receives the next ones meanwhile.
    assert_eq!(
        delivered_before_the_timeout(lost_acks("sqs", 1, &[0.0], None)),
        vec![0, 1, 2, 3]
    );
}

/// RabbitMQ's consumer timeout is the queue's own (`consumer_timeout_s`, RabbitMQ's
/// `x-consumer-timeout`), not its visibility timeout, which RabbitMQ does not have: the
/// delivery whose ack was lost comes back when that timeout runs out. A command changes it
/// for deliveries made from then on. Before, it was 30 minutes whatever the queue said.
#[test]
fn rabbitmq_takes_back_an_unacked_delivery_at_the_queues_consumer_timeout() {
    let mut s = lost_acks("rabbitmq", 1, &[0.0], None);
    s.queues[0].consumer_timeout_s = Some(60.0);
    let (_, steps) = run_bounded(s.clone());
    assert_eq!(
        deliveries(&steps)[..3],
        [(1_000_000, 0, 1), (61_000_000, 0, 2), (61_100_000, 1, 1)]
    );
    // The visibility timeout plays no part on RabbitMQ.
    s.queues[0].visibility_timeout_s = 5.0;
    assert_eq!(deliveries(&run_bounded(s.clone()).1)[1], (61_000_000, 0, 2));
    // Changed before the first delivery, the new timeout applies to it; the step says so.
    s.commands.push(ScheduledCommand {
        at_s: 0.5,
        command: Command::SetConsumerTimeout {
            queue: "q".into(),
            seconds: 10.0,
        },
        unannounced: false,
    });
    let (sim, steps) = run_bounded(s);
    assert_eq!(deliveries(&steps)[1], (11_000_000, 0, 2));
    assert_eq!(sim.settings().queues[0].consumer_timeout_s, 10.0);
    let changed = steps
        .iter()
        .find(|(t, _)| *t == 500_000)
        .expect("the change");
    assert!(changed.1.iter().any(|f| matches!(
        f,
        Fact::SettingChanged {
            setting: brokerlab_core::step::Setting::ConsumerTimeout {
                timeout_us: 10_000_000,
                ..
            },
            ..
        }
    )));
}

/// RabbitMQ: a delivery unacked past the consumer timeout closes its consumer's channel,
/// and every delivery outstanding on that channel goes back to the queue with it, not
/// only the late one. Elsewhere a lease is per delivery: the others keep theirs.
#[test]
fn rabbitmq_s_consumer_timeout_closes_the_channel_and_requeues_all_it_held() {
    let three = |flavour: &str| {
        scenario(&format!(
            r#"{{ "version": 4, "seed": 1, "end_s": 30,
            "producers": [{{ "name": "p", "count": 3,
                "arrivals": {{ "process": "constant", "schedule": [{{ "from_s": 0, "rate_per_s": 1 }}] }} }}],
            "queues": [{{ "name": "q", "visibility_timeout_s": 5, "consumer_timeout_s": 5,
                "flavour": "{flavour}", "dead_letter": false }}],
            "consumers": [{{ "name": "C", "service": {{ "fixed": {{ "seconds": 10 }} }},
                "prefetch": 3, "ack": "after_commit" }}] }}"#
        ))
    };
    // #0, #1 and #2 reach C at 1, 2 and 3 s; #0's work would end at 11 s. (Work longer
    // than the timeout never ends on a classic queue, which has no delivery limit: the run
    // stops at 30 s.)
    let at_6s = |steps: &[(u64, Vec<Fact>)]| -> Vec<(u64, bool)> {
        steps
            .iter()
            .filter(|(t, _)| *t == 6_000_000)
            .flat_map(|(_, f)| f.iter())
            .filter_map(|f| match *f {
                Fact::LeaseExpired { msg, .. } => Some((msg.get(), true)),
                Fact::Requeued {
                    msg, attempt: 1, ..
                } => Some((msg.get(), false)),
                _ => None,
            })
            .collect()
    };
    let (_, steps) = run_bounded(three("rabbitmq"));
    // At 6 s #0 times out: its channel closes, and #1 and #2 (buffered) go back with it.
    assert_eq!(at_6s(&steps), [(0, true), (1, false), (2, false)]);
    // The consumer lives on: it takes deliveries again on a new channel at once.
    let again: Vec<(u64, u64, u32)> = deliveries(&steps)
        .into_iter()
        .filter(|&(t, _, _)| t == 6_000_000)
        .collect();
    assert_eq!(again, [(6_000_000, 0, 2), (6_000_000, 1, 2)]);
    // SQS: a lease per delivery; only #0's runs out at 6 s.
    let (_, steps) = run_bounded(three("sqs"));
    assert_eq!(at_6s(&steps), [(0, true)]);
}

/// An idempotent producer's retry after a lost confirm is dropped by producer id and
/// sequence only where the broker keeps that state: the teaching broker (as Kafka does
/// for a log). RabbitMQ and SQS standard keep none, so the retry is stored again and the
/// consumer applies the effect twice; an SQS FIFO queue drops it by its own
/// deduplication window on the message id. Before, every flavour dropped it.
#[test]
fn only_a_broker_that_keeps_the_producers_sequence_drops_its_retry() {
    for (flavour, dropped, duplicated) in [
        (Flavour::Generic, 1, 0),
        (Flavour::Rabbitmq, 0, 1),
        (Flavour::Sqs, 0, 1),
        // Dropped all the same, by the queue's window on the message id.
        (Flavour::SqsFifo, 1, 0),
    ] {
        let mut s = brokerlab_core::examples::load("lost-confirm").expect("built in");
        s.producers[0].publish.idempotent = true;
        s.queues[0].flavour = flavour;
        let mut sim = Simulation::new(s).expect("valid");
        sim.run();
        let c = sim.counters();
        assert_eq!(c.deduplicated, dropped, "{flavour:?}");
        assert_eq!(c.duplicate_effects, duplicated, "{flavour:?}");
    }
}

#[test]
fn rabbitmq_a_slow_consumer_with_a_deep_prefetch_hoards_what_quick_ones_could_take() {
    // RabbitMQ hands messages to a queue's consumers in turn, to each while it has room
    // under its prefetch (basic.qos), whatever its speed: a slow consumer with a deep
    // prefetch gets its share, which waits unacked in its buffer while quicker consumers
    // run out of work. A prefetch of 1 is the tutorials' fair dispatch.
    let at = |prefetch: u32| {
        let mut s = common::example("prefetch-fairness");
        s.commands.clear();
        s.consumers[0].prefetch = prefetch;
        let mut sim = Simulation::new(s).unwrap();
        let (greedy, fair) = (QueueId::new(0), QueueId::new(1));
        let mut seen = Vec::new();
        for t_s in [10, 13] {
            while sim.now_us() < t_s * 1_000_000 && sim.step().is_some() {
                invariants::check(&sim).unwrap_or_else(|e| panic!("step {}: {e}", sim.steps()));
            }
            let slow = sim.consumer(ConsumerId::new(0)).unwrap();
            let quick: Vec<u32> = [1, 2]
                .map(|c| {
                    let v = sim.consumer(ConsumerId::new(c)).unwrap();
                    v.busy + v.buffered
                })
                .to_vec();
            let (g, f) = (sim.queue(greedy).unwrap(), sim.queue(fair).unwrap());
            seen.push((
                slow.busy + slow.buffered,
                quick,
                g.waiting,
                g.in_flight,
                f.waiting + f.in_flight,
            ));
        }
        sim.run();
        (seen, sim.now_us() as f64 / 1e6)
    };

    let (greedy, end_s) = at(100);
    let (slow, quick, waiting, in_flight, fair) = &greedy[0];
    assert_eq!(*waiting, 0, "at 10 s the queue looks empty");
    let held = u64::from(*slow + quick.iter().sum::<u32>());
    assert!(*slow >= 50 && held == *in_flight, "{greedy:?}");
    assert!(quick.iter().all(|&q| q <= 1), "{greedy:?}");
    assert!(*fair <= 3, "'fair' keeps up: {greedy:?}");
    assert_eq!(greedy[1].4, 0, "'fair' is done at 13 s");
    assert!(
        greedy[1].0 >= 50,
        "greedy-slow still holds its hoard: {greedy:?}"
    );
    assert!(end_s > 120.0, "the hoard takes 2 s an order: {end_s}");

    let (fair_dispatch, end_s) = at(1);
    assert!(fair_dispatch[0].0 <= 1, "{fair_dispatch:?}");
    assert_eq!(
        (fair_dispatch[1].2, fair_dispatch[1].3),
        (0, 0),
        "with prefetch 1 'greedy' is done at 13 s too"
    );
    assert!(end_s < 13.0, "{end_s}");
}

#[test]
fn an_sqs_delete_lost_to_an_outage_is_told_as_a_message_hidden_until_its_timeout() {
    // broker-crash with SQS queues: a delete sent while the broker is down is lost, and
    // the message comes back when its visibility timeout runs out, not at the restart.
    let mut s = common::example("broker-crash");
    for q in &mut s.queues {
        q.flavour = brokerlab_core::Flavour::Sqs;
    }
    let (sim, steps) = run_bounded(s);
    let lost = |f: &Fact| {
        matches!(
            f,
            Fact::AckLost {
                broker_down: true,
                ..
            }
        )
    };
    let told = narration_of(&sim, &steps, lost);
    let sentence = told
        .iter()
        .find(|t| t.contains("never reached SQS"))
        .unwrap_or_else(|| panic!("{told:?}"));
    assert!(
        sentence.contains(
            "stays hidden until its visibility timeout runs out, then it is delivered again"
        ),
        "{sentence}"
    );
    let es: Vec<String> = steps
        .iter()
        .flat_map(|(_, f)| f.iter())
        .filter(|f| lost(f))
        .map(|f| narration::describe(&sim, f, Lang::Es))
        .collect();
    assert!(
        es[0].contains("sigue oculto hasta que vence su tiempo de visibilidad"),
        "{es:?}"
    );
}

#[test]
fn a_crash_on_a_leased_queue_says_its_deliveries_come_back_when_their_leases_run_out() {
    // crash-after-commit (the teaching broker): the crash at 1.5 s leaves #0 leased until
    // 6 s; the sentence said they "go back to the broker", as if at once.
    let (sim, steps) = run_bounded(common::example("crash-after-commit"));
    let told = narration_of(&sim, &steps, |f| matches!(f, Fact::ConsumerCrashed { .. }));
    let crash = told.iter().find(|t| t.contains("crashed")).expect("told");
    assert!(
        crash.contains("its unacked deliveries come back when their leases run out"),
        "{crash}"
    );
    let es = steps
        .iter()
        .flat_map(|(_, f)| f.iter())
        .find(|f| matches!(f, Fact::ConsumerCrashed { .. }))
        .map(|f| narration::describe(&sim, f, Lang::Es))
        .expect("a crash");
    assert!(
        es.contains("vuelven cuando venzan sus reservas (leases)"),
        "{es}"
    );
}
