//! Letting go of finished messages and copies, so that memory follows what is live
//! rather than the length of the run.
//!
//! A copy is released once its fate is final (done, expired, dropped, lost) and no
//! consumer holds it; a message once its producer is done with it (not pending), none of
//! its copies is held, and nothing refers to it: no publish or confirm on the way, no
//! outbox row, no log record within retention, no group member working on it, no entry
//! of a built-in dead-letter topic, and no entry in a producer's source of truth that a
//! reconciling consumer may read. What the run still needs of them is kept as totals
//! ([`Retired`]): fates, job statuses, records, effects and emails.
//!
//! Releasing changes no step: every rule reads only live records (the `Records` index
//! panics otherwise), and timers of released copies are dead, as they were before.

use std::collections::{BTreeSet, HashSet};

use super::{job_status_from, Simulation};
use crate::engine::Event;
use crate::hash::IdHash;
use crate::message::{Fate, JobStatus, Message, MessageCopy, PublishFate};
use crate::producer::JobCounts;
use crate::step::MsgId;

/// Ids this close to the newest are always kept: the page reads the records named by
/// the last steps' facts. Also the ring's size between sweeps.
pub(crate) const RECENT_WINDOW: usize = 4_096;

/// A FIFO lane this long is pruned of its moot timers at the next sweep (if it also
/// holds twice what the last pruning kept). It was twice the recent window (8,192): a
/// queue whose leases last an hour at a few deliveries per second never got there, so
/// each delivery's lease timer, moot once the copy was acked, waited the whole hour and
/// was then looked at and discarded on its own, between two steps. Pruned in a batch,
/// it costs a fraction of that (measured: mm1, 2026-12-04, docs/performance.md), and the
/// lane holds at most a sweep's worth of deliveries instead of an hour's.
const LANE_PRUNE_MIN: usize = 1_024;

/// What the last sweeps visited besides the records themselves (the consumers'
/// holdings, the heap's events, the messages still referenced): the next sweep waits
/// until the rings have grown by a quarter of it, so a run with much referenced keeps
/// the sweeps' cost at a few visits per record pushed. And what the last prunings of
/// moot timers and deduplication entries kept: each pruning waits until there are twice
/// as many again, so it too costs a few visits per entry added, however many are live
/// (a backlog with a time to live has a timer per waiting copy). The walks of opened
/// long-lived records wait likewise ([`crate::records::Records::opened_walk_due`]).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SweepWork {
    holdings: usize,
    references: usize,
    timers_kept: usize,
    dedup_kept: usize,
    /// Holdings and references visited by all sweeps so far: what tests check grows
    /// linearly with the run.
    visited: u64,
}

impl SweepWork {
    /// Distinct copies the consumers held at the last sweep (buffered or in work).
    pub(crate) fn holdings(&self) -> usize {
        self.holdings
    }
}

/// What the totals keep of a message released by a sweep ([`Simulation::retire_message`]).
struct Retiring {
    msg: MsgId,
    status: JobStatus,
    fate: PublishFate,
    records: u32,
}

/// What released messages and copies leave behind.
#[derive(Clone, Debug, Default)]
pub struct Retired {
    /// Released copies by fate ([`Fate::index`]).
    pub copies_by_fate: [u64; Fate::ALL.len()],
    pub messages: u64,
    /// Released messages by their job status (final: nothing can move it any more).
    pub jobs: JobCounts,
    /// Log records of released messages.
    pub records: u64,
    pub gave_up: u64,
    pub never_published: u64,
}

impl Simulation {
    /// Sets how many recent ids are never released (tests use 0 to release as early as
    /// possible and check that nothing changes).
    #[doc(hidden)]
    pub fn set_recent_window(&mut self, window: usize) {
        self.recent_window = window;
    }

    /// What released messages and copies left behind.
    pub fn retired(&self) -> &Retired {
        &self.retired
    }

    /// Holdings and references the release sweeps have visited so far, besides the
    /// records themselves (tests check that it grows linearly with the run).
    #[doc(hidden)]
    pub fn sweep_visits(&self) -> u64 {
        self.sweep_work.visited
    }

    /// Releases what is finished, when the rings have grown enough to be worth a sweep
    /// (so the sweep's cost, proportional to what is live, is shared by many records),
    /// or when enough long-lived records were opened to pack them again (a backlog
    /// draining with nothing new arriving moves no ring, and opens its oldest records
    /// one by one as they are delivered).
    pub(super) fn release_finished(&mut self) {
        let window = self.recent_window;
        let SweepWork {
            holdings,
            references,
            ..
        } = self.sweep_work;
        let copies_due = self.copies.sweep_due(window, holdings + references);
        let copies_opened = self.copies.opened_walk_due(holdings);
        if copies_due || copies_opened {
            self.release_copies(copies_due, copies_opened);
        }
        let messages_due = self.messages.sweep_due(window, holdings + references);
        let messages_opened = self.messages.opened_walk_due(references);
        if messages_due || messages_opened {
            let referenced = self.release_messages(messages_due, messages_opened);
            self.sweep_work.references = self.events.heap_len() + referenced;
            self.sweep_work.visited += self.sweep_work.references as u64;
        }
        // Also after a walk of opened records alone: a draining backlog moves no ring
        // but leaves a moot lease timer per delivery (for a whole visibility timeout).
        if messages_due || copies_opened {
            self.prune_dead_timers();
            self.prune_dedup_windows();
        }
    }

    /// Walks the long-lived copies if due (the opened ones with `opened`), and with
    /// `advance` moves the ring's front.
    fn release_copies(&mut self, advance: bool, opened: bool) {
        // Asked only whether it holds an id, never walked: a hash set, built in one pass
        // (collecting a `BTreeSet` sorted every holding at every sweep, a fifth of the
        // run's time with a few hundred thousand deliveries held).
        let held: HashSet<usize, IdHash> = self
            .consumers
            .iter()
            .flat_map(|c| c.buffer.iter().chain(c.working.iter()))
            .map(|h| h.copy as usize)
            .collect();
        self.sweep_work.holdings = held.len();
        self.sweep_work.visited += held.len() as u64;
        let releasable = |id: usize, c: &MessageCopy| c.finished() && !held.contains(&id);
        // Only what the totals need of each copy (sized up front: a sweep releases
        // thousands, and growing the vector as it went cost more than the sweep; but
        // not beyond what a sweep of a steady run passes, since a growing backlog
        // releases nothing).
        let keep = self.recent_window;
        let mut gone: Vec<(Fate, MsgId)> =
            Vec::with_capacity(self.copies.ring_len().min(2 * keep.max(1)));
        if self.copies.spill_walk_due() {
            self.copies
                .release_spilled(releasable, |_, c| gone.push((c.fate, c.msg)));
        } else if opened {
            self.copies
                .release_opened(releasable, |_, c| gone.push((c.fate, c.msg)));
        }
        if advance {
            self.copies
                .advance(keep, releasable, |_, c| gone.push((c.fate, c.msg)));
        }
        for (fate, msg) in gone {
            self.retired.copies_by_fate[fate.index()] += 1;
            self.messages[msg.index()].held_copies -= 1;
        }
    }

    /// Releases the finished messages (walking the long-lived ones if due, the opened
    /// ones with `opened`, and with `advance` moving the ring's front); returns how many
    /// ids were referenced.
    fn release_messages(&mut self, advance: bool, opened: bool) -> usize {
        let referenced = self.referenced_messages();
        let releasable = |id: usize, m: &Message| m.finished() && !referenced.contains(&id);
        let keep = self.recent_window;
        // What the totals need of each message, taken as it goes: a sweep releases
        // thousands, and gathering the whole records (72 bytes each, against 12) to
        // read them again afterwards was most of the memory the sweep wrote.
        let mut gone: Vec<Retiring> =
            Vec::with_capacity(self.messages.ring_len().min(2 * keep.max(1)));
        let log_reads = &self.log_reads;
        let mut retiring = |id: usize, m: Message| {
            let msg = MsgId::from_index(id);
            gone.push(Retiring {
                msg,
                status: job_status_from(&m, || log_reads.get(&msg).copied().unwrap_or(0)),
                fate: m.fate,
                records: m.records,
            });
        };
        if self.messages.spill_walk_due() {
            self.messages.release_spilled(releasable, &mut retiring);
        } else if opened {
            self.messages.release_opened(releasable, &mut retiring);
        }
        if advance {
            self.messages.advance(keep, releasable, &mut retiring);
        }
        let references = referenced.len();
        for r in gone {
            self.retire_message(r);
        }
        references
    }

    /// Counts a released message in the totals and folds its rows in the tables.
    fn retire_message(&mut self, r: Retiring) {
        *self.retired.jobs.slot(r.status) += 1;
        self.retired.messages += 1;
        self.retired.records += u64::from(r.records);
        match r.fate {
            PublishFate::GaveUp => self.retired.gave_up += 1,
            PublishFate::NeverPublished => self.retired.never_published += 1,
            _ => {}
        }
        for t in &mut self.tables {
            t.forget(r.msg);
        }
        self.lost_reads.remove(&r.msg);
    }

    /// Messages something still refers to by id (besides their own copies).
    fn referenced_messages(&self) -> BTreeSet<usize> {
        let mut ids = BTreeSet::new();
        // The lanes hold only copies' timers (leases, times to live): a backlog with a
        // time to live has one per waiting copy, none of which names a message.
        for e in self.events.iter_heap() {
            if let Event::PublishArrives { msg, .. }
            | Event::ConfirmArrives { msg, .. }
            | Event::ConfirmTimeout { msg, .. } = *e
            {
                ids.insert(msg.index());
            }
        }
        for p in &self.producers {
            ids.extend(p.outbox.iter().map(|r| r.msg.index()));
            ids.extend(p.held.iter().map(|m| m.index()));
            ids.extend(p.buffered.iter().map(|(m, _)| m.index()));
            ids.extend(p.sequenced.keys().map(|m| m.index()));
        }
        for log in &self.logs {
            for part in &log.partitions {
                ids.extend(
                    part.records
                        .iter()
                        .filter_map(|r| r.message())
                        .map(|m| m.index()),
                );
            }
        }
        for g in &self.groups {
            ids.extend(g.dead_letters.iter().map(|m| m.index()));
            ids.extend(
                g.members
                    .iter()
                    .filter_map(|m| m.working)
                    .map(|w| w.msg.index()),
            );
        }
        // The producers' source of truth, read by reconciling consumers.
        ids.extend(self.by_version.values().map(|m| m.index()));
        ids
    }

    /// Lease, retry and time-to-live timers of copies that moved on wait in their FIFO
    /// lanes until they reach the front; a long lease would keep one per delivery of the
    /// whole lease's span. They can never matter again, so they go now, once a lane is
    /// long ([`LANE_PRUNE_MIN`], or twice the recent window if that is shorter) and the
    /// lanes hold twice what the last pruning kept.
    fn prune_dead_timers(&mut self) {
        let long = (2 * self.recent_window.max(1)).min(LANE_PRUNE_MIN);
        if self.events.longest_lane() < long
            || self.events.lanes_len() < 2 * self.sweep_work.timers_kept
        {
            return;
        }
        let copies = &self.copies;
        self.events.retain_in_lanes(|e| match *e {
            // Peeked, not opened: a backlog's long-lived copies stay packed.
            Event::LeaseExpired { copy, attempt } => copies.peek(copy as usize).is_some_and(|c| {
                c.fate == Fate::InFlight && c.attempts == attempt && !c.settled_at_broker
            }),
            // Not only while waiting: a copy out for delivery (or waiting for a retry)
            // may come back to its place in line with the same `line_seq` (its lease
            // ran out, a RabbitMQ requeue, a FIFO retry), and its time to live is
            // then live again. Only a new stay in line (a new `line_seq`) or a final
            // fate makes it moot for good.
            Event::TtlExpired { copy, line_seq } => copies
                .peek(copy as usize)
                .is_some_and(|c| super::delivery::is_active(c.fate) && c.line_seq == line_seq),
            _ => true,
        });
        self.sweep_work.timers_kept = self.events.lanes_len();
    }

    /// SQS FIFO remembers when each message id was stored, for its deduplication window:
    /// an entry older than the window can never match again (a lookup checks the time
    /// too, so pruning later changes nothing but memory). Pruned once there are twice as
    /// many as the last pruning kept.
    fn prune_dedup_windows(&mut self) {
        if self.dedup_entries() < 2 * self.sweep_work.dedup_kept {
            return;
        }
        let now = self.now_us;
        for q in &mut self.queues {
            let window = q.dedup_window_us;
            q.stored_at.retain(|_, &mut at| now - at < window);
        }
        self.sweep_work.dedup_kept = self.dedup_entries();
    }

    /// The SQS FIFO deduplication entries of every queue.
    fn dedup_entries(&self) -> usize {
        self.queues.iter().map(|q| q.stored_at.len()).sum()
    }
}
