//! The accounting invariant: every message and every copy is in exactly one fate, the
//! structures that hold them agree with those fates, and the counters agree with both.
//! Everything held is recounted from scratch, so the check cannot pass by trusting the
//! counters it checks; released (finished) messages and copies count through the totals
//! they left when they were released (`sim::release`).

use std::collections::BTreeSet;

use crate::log::{Group, Partition};
use crate::message::{Fate, MessageCopy, PublishFate};
use crate::queue::Queue;
use crate::records::Records;
use crate::scenario::Flavour;
use crate::sim::Simulation;
use crate::step::QueueId;

fn ensure(ok: bool, what: impl FnOnce() -> String) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(what())
    }
}

/// Returns a description of the first broken property, if any.
pub fn check(sim: &Simulation) -> Result<(), String> {
    check_logs(sim)?;
    check_messages(sim)?;
    check_copies(sim)?;
    check_queues(sim)?;
    check_effects(sim)?;
    check_dependencies(sim)?;
    check_processes(sim)
}

/// Every request a dependency admitted is answered, wasted, shed, in service or in its
/// line; a caller waits only for a request still there.
fn check_dependencies(sim: &Simulation) -> Result<(), String> {
    for (d, dep) in sim.dependencies_raw().iter().enumerate() {
        let c = dep.counters;
        let open = u64::from(dep.in_service) + dep.line.len() as u64;
        ensure(c.calls == c.answered + c.wasted + c.shed + open, || {
            format!(
                "dependency {d}: {} calls but {} answered, {} wasted, {} shed and {open} open",
                c.calls, c.answered, c.wasted, c.shed
            )
        })?;
        let waiting = sim.calls_waiting(d as u32) as u64;
        ensure(waiting <= open, || {
            format!("dependency {d}: {waiting} callers wait for {open} open requests")
        })?;
    }
    Ok(())
}

fn check_messages(sim: &Simulation) -> Result<(), String> {
    let messages = sim.messages();
    let c = sim.counters();
    let retired = sim.retired();
    // Per message: every accepted request has exactly one job status, and the pending
    // ones are exactly the messages still with their producers.
    let jobs = sim.jobs_of(None);
    let recounted = sim.jobs_recounted();
    ensure(jobs == recounted, || {
        format!("job counts {jobs:?} but recounted {recounted:?}")
    })?;
    let pending = messages
        .iter()
        .filter(|m| m.fate == PublishFate::Pending)
        .count() as u64;
    ensure(jobs.total() == c.created && jobs.pending == pending, || {
        format!(
            "jobs {jobs:?} do not account for {} messages ({pending} pending)",
            c.created
        )
    })?;
    let held = messages.iter().count() as u64;
    ensure(
        c.created == messages.len() as u64 && held + retired.messages == c.created,
        || {
            format!(
                "created {} but {} ids, {held} held and {} released",
                c.created,
                messages.len(),
                retired.messages
            )
        },
    )?;
    check_message_copies(sim)?;
    let fates = |f: PublishFate| messages.iter().filter(|m| m.fate == f).count() as u64;
    let gave_up = fates(PublishFate::GaveUp) + retired.gave_up;
    let never = fates(PublishFate::NeverPublished) + retired.never_published;
    // A producer can give up on a message the broker stores after all (a late publish):
    // its fate is then Stored, so the fate count can only be below the event count.
    ensure(gave_up <= c.gave_up && never == c.never_published, || {
        format!(
            "gave up/never published: fates {gave_up}/{never}, counters {}/{}",
            c.gave_up, c.never_published
        )
    })
}

/// Each held message's copy counts agree with its held copies: the live ones exactly
/// (a live copy is never released), the finished ones at least (some may be released).
fn check_message_copies(sim: &Simulation) -> Result<(), String> {
    let mut held_of = std::collections::BTreeMap::<usize, (u32, [u32; 3])>::new();
    for copy in sim.copies().iter() {
        let e = held_of.entry(copy.msg.index()).or_default();
        e.0 += 1;
        e.1[copy.fate.tally_slot()] += 1;
    }
    for (id, m) in sim.messages().iter_with_ids() {
        let (held, tally) = held_of.remove(&id).unwrap_or_default();
        let t = m.copy_tally;
        ensure(
            t[0] == tally[0] && t[1] >= tally[1] && t[2] >= tally[2],
            || format!("message {id}: copy tally {t:?}, its held copies say {tally:?}"),
        )?;
        // Its copies are counted by its tally (every copy stored is in one slot).
        let copies = m.copies();
        ensure(m.held_copies == held && held <= copies, || {
            format!(
                "message {id} says {copies} copies ({} held, tally {t:?}), {held} are held",
                m.held_copies
            )
        })?;
        ensure(
            (m.fate == PublishFate::Stored) == (copies + m.records > 0),
            || {
                format!(
                    "message {id} has fate {:?} with {copies} copies and {} records",
                    m.fate, m.records
                )
            },
        )?;
    }
    ensure(held_of.is_empty(), || {
        format!("copies of released messages are held: {:?}", held_of.keys())
    })
}

fn check_copies(sim: &Simulation) -> Result<(), String> {
    let copies = sim.copies();
    let c = sim.counters();
    ensure(c.published == copies.len() as u64, || {
        format!("published {} but {} copies", c.published, copies.len())
    })?;
    // Released copies count with the fate they had when released.
    let mut by_fate = sim.retired().copies_by_fate;
    for copy in copies.iter() {
        by_fate[copy.fate.index()] += 1;
    }
    ensure(by_fate.iter().sum::<u64>() == copies.len() as u64, || {
        "copy fates do not add up".into()
    })?;
    let n = |f: Fate| by_fate[f.index()];
    ensure(
        c.lost
            == c.lost_acked_before_effect
                + c.lost_broker_restart
                + c.lost_without_dead_letter_queue,
        || "lost copies by reason do not add up to the lost total".to_string(),
    )?;
    // The accounting identity (README, "Accounting"): every copy the broker stored is
    // acked, finished without an ack, lost, dead-lettered, expired, dropped, or still
    // waiting, in flight or retrying.
    let retrying = n(Fate::RetryWaiting);
    let identity = c.acked
        + c.done_without_ack
        + c.lost
        + (c.dead_lettered - c.redriven - c.dead_letters_lost)
        + c.expired
        + c.dropped
        + sim.waiting_total()
        + sim.in_flight()
        + retrying;
    ensure(c.published == identity, || {
        format!(
            "published {} ≠ acked {} + done without ack {} + lost {} + dead-lettered {} + expired {} + dropped {} + waiting {} + in flight {} + retrying {retrying}",
            c.published,
            c.acked,
            c.done_without_ack,
            c.lost,
            c.dead_lettered - c.redriven - c.dead_letters_lost,
            c.expired,
            c.dropped,
            sim.waiting_total(),
            sim.in_flight()
        )
    })?;
    let pairs = [
        ("done", n(Fate::Done), c.done),
        ("lost", n(Fate::Lost), c.lost),
        ("expired", n(Fate::Expired), c.expired),
        ("dropped", n(Fate::Dropped), c.dropped),
        (
            "dead-lettered now",
            n(Fate::DeadLettered),
            c.dead_lettered - c.redriven - c.dead_letters_lost,
        ),
        ("waiting", n(Fate::Waiting), sim.waiting_total()),
        ("in flight", n(Fate::InFlight), sim.in_flight()),
    ];
    for (what, fates, counter) in pairs {
        ensure(fates == counter, || {
            format!("{what}: {fates} copies have that fate, the tally says {counter}")
        })?;
    }
    Ok(())
}

fn check_queues(sim: &Simulation) -> Result<(), String> {
    let copies = sim.copies();
    let queues = sim.queues_raw();
    // Copies per (queue, fate), in one pass.
    let mut counts = vec![[0u64; Fate::ALL.len()]; queues.len()];
    for c in copies.iter() {
        counts[c.queue.index()][c.fate.index()] += 1;
    }
    let mut waiting_seen = 0u64;
    for (qi, q) in queues.iter().enumerate() {
        let of = |f: Fate| counts[qi][f.index()];
        check_line(copies, qi, q, of(Fate::Waiting))?;
        waiting_seen += of(Fate::Waiting);
        check_queue_tallies(q, &counts[qi])?;
        check_dlq(copies, qi, q, of(Fate::DeadLettered))?;
        if q.flavour == Flavour::SqsFifo {
            check_fifo_groups(sim, qi, q)?;
        }
    }
    ensure(waiting_seen == sim.waiting_total(), || {
        "waiting total disagrees with the lines".into()
    })
}

/// Queue `q`'s line holds exactly its `waiting` copies, in order, each once.
fn check_line(
    copies: &Records<MessageCopy>,
    qi: usize,
    q: &Queue,
    waiting: u64,
) -> Result<(), String> {
    ensure(q.line.len() as u64 == waiting, || {
        format!(
            "queue {}: line holds {} but {waiting} copies wait",
            q.name,
            q.line.len()
        )
    })?;
    // Peeked, not opened: a line of long-lived copies stays packed while checked.
    let mut before = None;
    for &id in &q.line {
        let Some(copy) = copies.peek(id as usize) else {
            return Err(format!(
                "queue {}: copy {id} is in line but released",
                q.name
            ));
        };
        ensure(
            copy.fate == Fate::Waiting && copy.queue.index() == qi,
            || {
                format!(
                    "queue {}: copy {id} is in line but is {:?} in queue {}",
                    q.name, copy.fate, copy.queue
                )
            },
        )?;
        ensure(before.is_none_or(|seq| seq < copy.line_seq), || {
            format!(
                "queue {}: line out of order (or a copy twice) at copy {id}",
                q.name
            )
        })?;
        before = Some(copy.line_seq);
    }
    Ok(())
}

/// An SQS FIFO queue's message groups (busy copies, places in line, the first free
/// copy), which a dispatch trusts instead of walking its line, agree with its copies.
fn check_fifo_groups(sim: &Simulation, qi: usize, q: &Queue) -> Result<(), String> {
    let recounted = sim.fifo_groups_recounted(QueueId::from_index(qi));
    ensure(q.fifo == recounted, || {
        format!(
            "queue {}: message groups kept as {:?}, its copies and line say {recounted:?}",
            q.name, q.fifo
        )
    })?;
    // The next copy to deliver, found the plain way (and not through the structure the
    // recount above shares with the kept one): the first in line whose message group has
    // no copy in flight or waiting for a retry.
    let messages = sim.messages();
    let key = |c: &MessageCopy| messages.peek(c.msg.index()).expect("held").key;
    let busy: BTreeSet<Option<u32>> = sim
        .copies()
        .iter()
        .filter(|c| c.queue.index() == qi && matches!(c.fate, Fate::InFlight | Fate::RetryWaiting))
        .map(|c| key(&c))
        .collect();
    let scanned = q.line.iter().find_map(|&id| {
        let c = sim.copies().peek(id as usize).expect("in line");
        (!busy.contains(&key(&c))).then_some(c.line_seq)
    });
    ensure(q.fifo.first_free() == scanned, || {
        format!(
            "queue {}: next deliverable kept at place {:?}, the line says {scanned:?}",
            q.name,
            q.fifo.first_free()
        )
    })
}

/// Queue `q`'s own tallies agree with its copies' fates (`counts`, indexed by fate), and
/// it holds no more than its bound.
fn check_queue_tallies(q: &Queue, counts: &[u64]) -> Result<(), String> {
    let of = |f: Fate| counts[f.index()];
    let (waiting, in_flight, retry) = (
        of(Fate::Waiting),
        of(Fate::InFlight),
        of(Fate::RetryWaiting),
    );
    ensure(q.in_flight == in_flight && q.retry_waiting == retry, || {
        format!(
            "queue {}: tallies {}/{} vs fates {in_flight}/{retry}",
            q.name, q.in_flight, q.retry_waiting
        )
    })?;
    ensure(q.held == waiting + in_flight + retry, || {
        format!("queue {}: held {} is not the sum", q.name, q.held)
    })?;
    if let Some(max) = q.max_length {
        // What counts against the bound depends on the flavour (RabbitMQ: ready only).
        let counted = q.occupancy();
        ensure(counted <= max.max(q.bound_grace), || {
            format!("queue {}: holds {counted} over its limit {max}", q.name)
        })?;
    }
    Ok(())
}

/// Queue `q`'s dead-letter queue holds exactly its `dead` copies.
fn check_dlq(copies: &Records<MessageCopy>, qi: usize, q: &Queue, dead: u64) -> Result<(), String> {
    ensure(q.dlq.len() as u64 == dead, || {
        format!(
            "queue {}: {} DLQ entries, {dead} dead-lettered",
            q.name,
            q.dlq.len()
        )
    })?;
    for e in &q.dlq {
        ensure(
            copies
                .peek(e.copy as usize)
                .is_some_and(|c| c.fate == Fate::DeadLettered)
                && e.source.index() == qi,
            || {
                format!(
                    "queue {}: DLQ entry for copy {} is not dead-lettered here",
                    q.name, e.copy
                )
            },
        )?;
    }
    Ok(())
}

fn check_effects(sim: &Simulation) -> Result<(), String> {
    let c = sim.counters();
    let (mut applied, mut duplicates) = (0u64, 0u64);
    for t in sim.all_tables() {
        // Recounted from the held messages' rows, plus what released messages folded.
        applied += t.applied.total();
        duplicates += t.applied.extra();
    }
    ensure(
        applied == c.effects_applied && duplicates == c.duplicate_effects,
        || {
            format!(
            "effects tables say {applied} applied / {duplicates} duplicates, counters say {} / {}",
            c.effects_applied, c.duplicate_effects
        )
        },
    )
}

fn check_processes(sim: &Simulation) -> Result<(), String> {
    for (i, consumer) in sim.consumers_raw().iter().enumerate() {
        // RabbitMQ ignores prefetch for automatic acknowledgement: no limit to check.
        let unlimited = sim.queues_raw()[consumer.queue.index()].flavour
            == crate::scenario::Flavour::Rabbitmq
            && consumer.ack == crate::scenario::AckMode::OnDelivery;
        ensure(
            (unlimited || consumer.unacked() <= consumer.prefetch.max(consumer.prefetch_grace))
                && consumer.batches <= consumer.concurrency
                && consumer.working.len() as u32 <= consumer.batches * consumer.batch_size,
            || {
                format!(
                    "consumer {i} holds more than its prefetch, concurrency or batch size allows"
                )
            },
        )?;
        let mut batches: Vec<u64> = consumer.working.iter().map(|h| h.batch).collect();
        // Batch order, which finding a batch by halving relies on (`Consumer::batch`).
        ensure(batches.is_sorted(), || {
            format!("consumer {i} works on its batches out of order: {batches:?}")
        })?;
        batches.dedup();
        ensure(batches.len() as u32 == consumer.batches, || {
            format!(
                "consumer {i} counts {} batches but works on {}",
                consumer.batches,
                batches.len()
            )
        })?;
        ensure(consumer.up || consumer.held() == 0, || {
            format!("consumer {i} is down but still holds messages")
        })?;
        for h in consumer.working.iter().chain(consumer.buffer.iter()) {
            ensure(
                sim.copies()
                    .get(h.copy as usize)
                    .is_some_and(|c| c.queue == consumer.queue),
                || format!("consumer {i} holds copy {} of another queue", h.copy),
            )?;
        }
        // A lost ack keeps its prefetch slot only while the delivery is still out.
        for &(copy, attempt) in &consumer.lost_acks {
            ensure(
                sim.copies().get(copy as usize).is_some_and(|c| {
                    c.fate == Fate::InFlight && c.attempts == attempt && c.queue == consumer.queue
                }),
                || format!("consumer {i} keeps a slot for copy {copy}, no longer out"),
            )?;
        }
    }
    let buffered: usize = sim.producers_raw().iter().map(|p| p.buffered.len()).sum();
    ensure(buffered as u64 == sim.buffered_total(), || {
        format!(
            "the held budget counts {} buffered records, the buffers hold {buffered}",
            sim.buffered_total()
        )
    })?;
    for (i, p) in sim.producers_raw().iter().enumerate() {
        // Held back: a first publish (pending) or a retry of one the broker already has.
        for &msg in &p.held {
            let Some(fate) = sim.message(msg).map(|m| m.fate) else {
                return Err(format!("producer {i} holds back released message {msg}"));
            };
            ensure(
                matches!(fate, PublishFate::Pending | PublishFate::Stored),
                || format!("producer {i} holds back message {msg}, which is {fate:?}"),
            )?;
        }
        check_buffer(sim, i, p)?;
        // Nothing accepted disappears: a pending message of an outbox producer has its row.
        if matches!(
            sim.scenario().producers[i].handoff,
            crate::scenario::Handoff::Outbox { .. }
        ) {
            for (id, m) in sim.messages().iter_with_ids() {
                ensure(
                    m.producer.index() != i
                        || m.fate != PublishFate::Pending
                        || p.outbox.iter().any(|r| r.msg.index() == id),
                    || format!("producer {i}: pending message {id} has no outbox row"),
                )?;
            }
        }
        for row in &p.outbox {
            let Some(m) = sim.message(row.msg) else {
                return Err(format!("producer {i}: outbox row {} released", row.msg));
            };
            ensure(
                m.producer.index() == i
                    && matches!(
                        m.fate,
                        PublishFate::Pending | PublishFate::Stored | PublishFate::Unroutable
                    ),
                || format!("producer {i}: outbox row {} is {:?}", row.msg, m.fate),
            )?;
        }
    }
    Ok(())
}

/// A producer's buffer holds its own unsent records, oldest first, only while the broker
/// is down (it sends them all when the broker is back) and only while the producer is up
/// (its crash loses them).
fn check_buffer(sim: &Simulation, i: usize, p: &crate::producer::Producer) -> Result<(), String> {
    ensure(p.buffered.is_empty() || (!sim.broker_up() && p.up), || {
        format!("producer {i} buffers records while it or the broker is up")
    })?;
    // Its timer is set while it holds a record, for no later than the oldest one's timeout.
    let oldest = p.buffered.front().map(|&(_, at)| at);
    ensure(
        p.buffer_due_us.is_some() == oldest.is_some() && p.buffer_due_us <= oldest,
        || format!("producer {i}: its buffer's timer is not its oldest record's"),
    )?;
    for &(msg, _) in &p.buffered {
        let Some(m) = sim.message(msg) else {
            return Err(format!("producer {i} buffers released message {msg}"));
        };
        ensure(
            m.producer.index() == i && m.fate == PublishFate::Pending && m.publish_attempts == 0,
            || format!("producer {i} buffers message {msg}, which is {:?}", m.fate),
        )?;
    }
    Ok(())
}

fn check_logs(sim: &Simulation) -> Result<(), String> {
    check_log_counts(sim)?;
    check_open_records(sim)?;
    check_marker_counts(sim)?;
    check_group_failures(sim)?;
    let logs = sim.logs_raw();
    for g in sim.groups_raw() {
        check_members_out_of_group(g)?;
        for (p, part) in logs[g.log].partitions.iter().enumerate() {
            check_group_partition(g, p, part)?;
        }
    }
    Ok(())
}

/// A member is out of its group only between outlasting its poll interval and being done
/// with the record in hand: it is up, and it has that record.
fn check_members_out_of_group(g: &Group) -> Result<(), String> {
    for m in g.members.iter().filter(|m| m.out_of_group) {
        ensure(m.up && m.working.is_some(), || {
            format!(
                "group {}: {} out of the group with no record in hand",
                g.name, m.name
            )
        })?;
        ensure(m.poll_due_us.is_none(), || {
            format!(
                "group {}: {} out of the group with a poll deadline",
                g.name, m.name
            )
        })?;
    }
    Ok(())
}

/// Records and markers appended, and offsets expired, agree with the partitions' ends
/// and starts.
fn check_log_counts(sim: &Simulation) -> Result<(), String> {
    let c = sim.counters();
    let partitions = || sim.logs_raw().iter().flat_map(|l| l.partitions.iter());
    let ends: u64 = partitions().map(|p| p.end()).sum();
    let starts: u64 = partitions().map(|p| p.start).sum();
    let records: u64 = sim
        .messages()
        .iter()
        .map(|m| u64::from(m.records))
        .sum::<u64>()
        + sim.retired().records;
    ensure(
        ends == c.appended + c.control_records && records == c.appended,
        || {
            format!(
                "appended {} and {} markers but partitions end at {ends} in all and messages count {records}",
                c.appended, c.control_records
            )
        },
    )?;
    ensure(starts == c.records_expired, || {
        format!(
            "expired {} but logs start at {starts} in all",
            c.records_expired
        )
    })
}

/// An open record always belongs to a live transaction of a member writing to that log.
fn check_open_records(sim: &Simulation) -> Result<(), String> {
    let mut open_txns = std::collections::BTreeSet::new();
    for g in sim.groups_raw() {
        if let Some(out) = g.output {
            for m in &g.members {
                open_txns.extend(m.txn.iter().map(|&(p, o)| (out, p, o)));
            }
        }
    }
    for (l, log) in sim.logs_raw().iter().enumerate() {
        for (p, part) in log.partitions.iter().enumerate() {
            for (i, r) in part.records.iter().enumerate() {
                let offset = part.start + i as u64;
                if r.status == crate::log::RecordStatus::Open {
                    ensure(open_txns.contains(&(l, p as u32, offset)), || {
                        format!(
                            "log {}: record {p}/{offset} is open with no transaction holding it",
                            log.name
                        )
                    })?;
                }
            }
        }
    }
    Ok(())
}

/// Each partition's count of control records is the number it holds.
fn check_marker_counts(sim: &Simulation) -> Result<(), String> {
    for log in sim.logs_raw() {
        for (p, part) in log.partitions.iter().enumerate() {
            let held = part.records.iter().filter(|r| r.is_marker()).count() as u64;
            ensure(held == part.markers, || {
                format!(
                    "log {} partition {p} holds {held} markers but counts {}",
                    log.name, part.markers
                )
            })?;
        }
    }
    Ok(())
}

/// Every record given up on is counted once, by the group that gave up on it; a record
/// retried in place never goes past the group's attempts.
fn check_group_failures(sim: &Simulation) -> Result<(), String> {
    let c = sim.counters();
    let dead: u64 = sim.groups_raw().iter().map(|g| g.dead_lettered).sum();
    ensure(dead == c.records_dead_lettered, || {
        format!(
            "groups dead-lettered {dead} records but the counter says {}",
            c.records_dead_lettered
        )
    })?;
    for g in sim.groups_raw() {
        ensure(g.dead_letters.len() as u64 <= g.dead_lettered, || {
            format!("group {}: built-in dead letters exceed its count", g.name)
        })?;
        for m in &g.members {
            if let Some(w) = m.working {
                ensure(
                    w.attempt >= 1 && w.attempt <= g.retry.max_attempts.max(1),
                    || {
                        format!(
                            "group {}: attempt {} past the retry policy",
                            g.name, w.attempt
                        )
                    },
                )?;
            }
        }
    }
    Ok(())
}

/// Group `g`'s view of partition `p`: its offsets lie within the partition, and who
/// owns and works on it is consistent.
fn check_group_partition(g: &Group, p: usize, part: &Partition) -> Result<(), String> {
    let (committed, position) = (g.committed[p], g.position[p]);
    // Both may lie below the log start: retention leaves a group's offsets where they
    // were (its lag counts what it removed) until the group fetches and commits again.
    ensure(committed <= part.end(), || {
        format!(
            "group {}: partition {p} committed {committed} past its end {}",
            g.name,
            part.end()
        )
    })?;
    ensure(position <= part.end(), || {
        format!(
            "group {}: partition {p} position {position} past its end {}",
            g.name,
            part.end()
        )
    })?;
    check_partition_owner(g, p)
}

/// Who owns partition `p` of group `g`, and who works on it.
fn check_partition_owner(g: &Group, p: usize) -> Result<(), String> {
    // Eager stops the world; a cooperative rebalance keeps unmoved partitions owned.
    let eager = g.rebalance == crate::scenario::Rebalance::Eager;
    // Mid-round, an eager group's partition stays with its owner only while it finishes
    // the record in hand.
    ensure(
        !(eager && g.rebalancing) || g.owner[p].is_none() || g.revoking[p],
        || format!("group {}: partition {p} owned mid-rebalance", g.name),
    )?;
    ensure(!g.revoking[p] || g.owner[p].is_some(), || {
        format!("group {}: partition {p} revoked from nobody", g.name)
    })?;
    if let Some(o) = g.owner[p] {
        // A crashed member keeps its partitions only while its session lasts.
        let m = &g.members[o as usize];
        ensure(m.up || m.session_ends_at_us.is_some(), || {
            format!("group {}: partition {p} owned by a dead member", g.name)
        })?;
        // A member that outlasted its poll interval left the group with nothing, unless it
        // is static: it keeps its partitions until its session runs out.
        ensure(!m.out_of_group || m.session_ends_at_us.is_some(), || {
            format!(
                "group {}: partition {p} owned by a member out of the group",
                g.name
            )
        })?;
    }
    // One consumer per partition: at most one member of the group works on it in this
    // generation, and that member is its owner (one that left the group for its poll
    // interval may still be finishing a record there, which it can no longer commit).
    let workers: Vec<usize> = g
        .members
        .iter()
        .enumerate()
        .filter(|&(i, m)| {
            m.working
                .is_some_and(|w| w.partition as usize == p && g.is_current(i as u32, &w))
        })
        .map(|(i, _)| i)
        .collect();
    ensure(workers.len() <= 1, || {
        format!(
            "group {}: partition {p} processed by two members at once",
            g.name
        )
    })?;
    if let Some(&w) = workers.first() {
        ensure(g.owner[p] == Some(w as u32), || {
            format!(
                "group {}: member {w} works on partition {p} it does not own",
                g.name
            )
        })?;
    }
    ensure(g.busy[p] != workers.is_empty(), || {
        format!("group {}: partition {p} busy flag disagrees", g.name)
    })
}
