//! Read-only views for the page's topology: a producer's outbox and relay, the members of
//! log groups, and the leases consumers hold. Nothing here changes the run.

use serde::Serialize;

use super::Simulation;
use crate::message::Fate;
use crate::producer::{JobCounts, OutboxRow};
use crate::scenario::ProducerCrashPoint;
use crate::step::{Attempt, ConsumerId, CopyId, GroupId, MemberId, MsgId, ProducerId};
use crate::time::Micros;

/// What the app shows about a producer's service and its outbox relay (one process).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProducerView {
    pub name: String,
    pub up: bool,
    /// A crash waiting for its moment.
    pub armed: Option<ProducerCrashPoint>,
    pub restart_at_us: Option<Micros>,
    /// Unsent outbox rows.
    pub outbox_len: usize,
    /// Rows the relay has published and awaits the confirm for.
    pub sending: usize,
    /// Rows waiting out a retry backoff after a refused or unconfirmed publish.
    pub backing_off: usize,
    /// Rows whose publish attempts are used up: unsent, kept for an operator.
    pub parked: usize,
    /// Records kept in its buffer while the broker is down, to send when it is back.
    pub buffered: usize,
    /// Where this producer's accepted requests stand (pending, running, completed, failed).
    pub jobs: JobCounts,
    /// Requests turned away while it was down (not accepted, so not among its jobs).
    pub requests_refused: u64,
}

/// What the app shows about a member of a log consumer group.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MemberView {
    pub name: String,
    pub up: bool,
    pub restart_at_us: Option<Micros>,
    /// Crashed, but still in the group (its partitions its own, unread) until then.
    pub session_ends_at_us: Option<Micros>,
    /// Left the group for outlasting its poll interval: it finishes the record in hand,
    /// which it can no longer commit, then rejoins.
    pub out_of_group: bool,
    /// Crashed with its transaction open (the group's transaction timeout): read_committed
    /// readers stop before its output records until then.
    pub txn_aborts_at_us: Option<Micros>,
    /// The record it is processing: (partition, offset).
    pub working: Option<(u32, u64)>,
    /// Partitions it owns now (none during an eager rebalance; during a cooperative one it
    /// keeps those that do not move).
    pub partitions: Vec<u32>,
}

impl Simulation {
    pub fn producer_view(&self, id: ProducerId) -> Option<ProducerView> {
        self.producers.get(id.index()).map(|p| ProducerView {
            name: p.name.clone(),
            up: p.up,
            armed: p.armed.filter(|a| a.trigger.told()).map(|a| a.point),
            restart_at_us: p.restart_at_us,
            outbox_len: p.outbox.len(),
            sending: p.outbox.iter().filter(|r| r.sending).count(),
            backing_off: p
                .outbox
                .iter()
                .filter(|r| !r.sending && !r.parked && r.not_before_us > self.now_us)
                .count(),
            parked: p.outbox.iter().filter(|r| r.parked).count(),
            buffered: p.buffered.len(),
            jobs: self.jobs_of(Some(id)),
            requests_refused: p.refused,
        })
    }

    /// Job status of the requests accepted by `producer` (every producer when `None`),
    /// kept up to date as fates change (cheap enough for every frame).
    pub fn jobs_of(&self, producer: Option<ProducerId>) -> JobCounts {
        match producer {
            Some(p) => self.jobs.get(p.index()).copied().unwrap_or_default(),
            None => self
                .jobs
                .iter()
                .fold(JobCounts::default(), |a, j| JobCounts {
                    pending: a.pending + j.pending,
                    running: a.running + j.running,
                    completed: a.completed + j.completed,
                    failed: a.failed + j.failed,
                }),
        }
    }

    /// The same counts recounted from scratch, message by message (for the invariant).
    pub fn jobs_recounted(&self) -> JobCounts {
        // Released messages are counted as they were when released: they cannot move.
        let mut jobs = self.retired.jobs;
        for (id, m) in self.messages.iter_with_ids() {
            *jobs.slot(self.job_status_of(MsgId::from_index(id), &m)) += 1;
        }
        jobs
    }

    /// A producer's unsent outbox rows, in commit order.
    pub fn outbox_rows(&self, id: ProducerId) -> impl Iterator<Item = OutboxRow> + '_ {
        self.producers
            .get(id.index())
            .into_iter()
            .flat_map(|p| p.outbox.iter().copied())
    }

    /// How group `g` rebalances (cooperative when there is no such group).
    pub fn group_rebalance(&self, g: GroupId) -> crate::scenario::Rebalance {
        self.groups
            .get(g.index())
            .map_or(Default::default(), |x| x.rebalance)
    }

    /// How group `g` treats per-key versions now (none when there is no such group).
    pub fn group_ordering(&self, g: GroupId) -> crate::scenario::Ordering {
        self.groups
            .get(g.index())
            .map_or(Default::default(), |x| x.ordering)
    }

    /// The group's built-in dead-letter topic: messages it gave up on, in order.
    pub fn group_dead_letters(&self, g: GroupId) -> &[crate::step::MsgId] {
        self.groups
            .get(g.index())
            .map_or(&[], |x| x.dead_letters.as_slice())
    }

    /// How many records group `g` gave up on (sent to its dead-letter topic or log).
    pub fn group_dead_lettered(&self, g: GroupId) -> u64 {
        self.groups.get(g.index()).map_or(0, |x| x.dead_lettered)
    }

    /// Whether group `g` is rebalancing (eager: all its partitions are paused).
    pub fn group_rebalancing(&self, g: GroupId) -> bool {
        self.groups.get(g.index()).is_some_and(|x| x.rebalancing)
    }

    pub fn group_member(&self, g: GroupId, m: MemberId) -> Option<MemberView> {
        let group = self.groups.get(g.index())?;
        let member = group.members.get(m as usize)?;
        Some(MemberView {
            name: member.name.clone(),
            up: member.up,
            restart_at_us: member.restart_at_us,
            session_ends_at_us: member.session_ends_at_us,
            out_of_group: member.out_of_group,
            txn_aborts_at_us: self.open_transaction_aborts_at(g, m),
            working: member.working.map(|w| (w.partition, w.offset)),
            partitions: (0..group.owner.len() as u32)
                .filter(|&p| group.owner[p as usize] == Some(m))
                .collect(),
        })
    }

    /// When the lease on `copy`'s current delivery runs out: `None` if it is not in flight
    /// under a lease (never delivered, acked on delivery, settled, or back in line).
    pub fn lease_until_us(&self, copy: CopyId) -> Option<Micros> {
        let c = self.copies.get(copy as usize)?;
        (c.fate == Fate::InFlight && !c.settled_at_broker)
            .then(|| c.lease_until_us())
            .flatten()
    }

    /// Deliveries consumer `c` holds (buffered, then being processed): (copy, attempt).
    pub fn held_deliveries(&self, c: ConsumerId) -> impl Iterator<Item = (CopyId, Attempt)> + '_ {
        self.consumers
            .get(c.index())
            .into_iter()
            .flat_map(|c| c.buffer.iter().chain(c.working.iter()))
            .map(|h| (h.copy, h.attempt))
    }
}
