//! Partitioned logs and the consumer groups that read them. Unlike a queue, reading does
//! not remove anything: each group keeps its own offsets, and only retention removes
//! records.

use std::collections::{BTreeMap, VecDeque};

use serde::Serialize;

use crate::scenario::{
    Assignment, CommitMode, Failures, GroupSpec, Idempotency, InboxKey, LogSpec, MemberCrashPoint,
    Ordering, PartitionKey, Rebalance, RetryPolicy, ServiceTime,
};
use crate::step::{DeadLetterReason, MemberId, MsgId, Trigger};
use crate::time::{secs_to_us, Micros};

/// One offset of a partition: a message's record, or a transaction's control record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Record {
    /// The message; unused by a control record (read it through [`Record::message`]).
    msg: MsgId,
    pub appended_us: Micros,
    pub status: RecordStatus,
}

impl Record {
    pub fn new(msg: MsgId, appended_us: Micros, status: RecordStatus) -> Self {
        Self {
            msg,
            appended_us,
            status,
        }
    }

    /// A transaction's commit or abort marker, appended at `appended_us`.
    pub fn marker(commit: bool, appended_us: Micros) -> Self {
        let status = if commit {
            RecordStatus::CommitMarker
        } else {
            RecordStatus::AbortMarker
        };
        // The id is never read: `message` answers `None` for a marker.
        Self::new(MsgId::new(u64::MAX), appended_us, status)
    }

    /// The message this record holds; `None` for a control record.
    pub fn message(&self) -> Option<MsgId> {
        (!self.is_marker()).then_some(self.msg)
    }

    pub fn is_marker(&self) -> bool {
        matches!(
            self.status,
            RecordStatus::CommitMarker | RecordStatus::AbortMarker
        )
    }
}

/// Whether a record's transaction is settled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordStatus {
    /// Visible to every reader (plain appends, and committed transactions).
    Committed,
    /// Written by a transaction not yet committed: read_committed readers wait here.
    Open,
    /// Written by a transaction that aborted: read_committed readers skip it.
    Aborted,
    /// A control record: the end of a transaction that committed, or aborted. It takes an
    /// offset, as Kafka's markers do, and no reader ever receives it: each steps over it.
    CommitMarker,
    AbortMarker,
}

#[derive(Clone, Debug, Default)]
pub struct Partition {
    /// Offset of the first retained record (the log start).
    pub start: u64,
    pub records: VecDeque<Record>,
    /// How many of `records` are control records (kept as they come and go, so that a
    /// view need not count them).
    pub markers: u64,
}

impl Partition {
    /// The log-end offset: where the next record goes.
    pub fn end(&self) -> u64 {
        self.start + self.records.len() as u64
    }

    pub fn get(&self, offset: u64) -> Option<&Record> {
        offset
            .checked_sub(self.start)
            .and_then(|i| self.records.get(i as usize))
    }

    /// The message records (control records left out) at offsets `from..to`, with their
    /// offsets.
    pub fn messages_in(&self, from: u64, to: u64) -> impl Iterator<Item = (u64, MsgId)> + '_ {
        (from.max(self.start)..to.min(self.end()))
            .filter_map(|o| self.get(o).and_then(Record::message).map(|m| (o, m)))
    }

    /// The first message record at or after `offset`, if one is retained.
    pub fn first_message_from(&self, offset: u64) -> Option<&Record> {
        let skip = offset.saturating_sub(self.start);
        let skip = usize::try_from(skip).unwrap_or(usize::MAX);
        self.records.iter().skip(skip).find(|r| !r.is_marker())
    }
}

#[derive(Clone, Debug)]
pub struct Log {
    pub name: String,
    pub partitions: Vec<Partition>,
    pub retention_us: Option<Micros>,
    pub retention_records: Option<u64>,
    /// Partition of the next keyless record (round robin).
    pub next_keyless: u32,
    pub partition_by: PartitionKey,
    /// When time-based retention next removes a record some group has not committed
    /// (its `Event::RetentionDue` is pending); none while nothing of the kind is left.
    pub retention_due_us: Option<Micros>,
}

impl Log {
    pub fn new(spec: &LogSpec) -> Self {
        Self {
            name: spec.name.clone(),
            partitions: vec![Partition::default(); spec.partitions as usize],
            retention_us: spec.retention_s.map(secs_to_us),
            retention_records: spec.retention_records,
            next_keyless: 0,
            partition_by: spec.partition_by,
            retention_due_us: None,
        }
    }

    /// Stable key → partition: FNV-1a of the key's bytes, modulo the partition count.
    pub fn partition_of(&self, key: u32) -> u32 {
        self.hash_to_partition(&key.to_le_bytes())
    }

    /// Where a record goes: by key or by message id, as the log is set up; keyless
    /// records go round robin (none here).
    pub fn partition_for(&self, key: Option<u32>, msg: MsgId) -> Option<u32> {
        match self.partition_by {
            PartitionKey::Key => key.map(|k| self.partition_of(k)),
            PartitionKey::MessageId => Some(self.hash_to_partition(&msg.get().to_le_bytes())),
        }
    }

    fn hash_to_partition(&self, bytes: &[u8]) -> u32 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        (h % self.partitions.len() as u64) as u32
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArmedMemberCrash {
    pub point: MemberCrashPoint,
    pub restart_after_us: Option<Micros>,
    pub trigger: Trigger,
}

/// A record a member is processing, and the group generation it was fetched in (work
/// fetched before a rebalance or rewind no longer moves the group's offsets).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Work {
    pub partition: u32,
    pub offset: u64,
    pub msg: MsgId,
    pub generation: u32,
    /// 1 for the first attempt; more while the record is retried in place.
    pub attempt: u32,
}

/// A write to a log that a member's record needs and the broker, down, could not take:
/// the member keeps the record in hand and makes the write when the broker is back (as a
/// client's send retries until then).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unsent {
    /// The output record of a read-process-write group.
    Output,
    /// The record itself, to the group's dead-letter log or its built-in dead-letter topic.
    DeadLetter(DeadLetterReason),
}

#[derive(Clone, Debug)]
pub struct Member {
    pub name: String,
    pub up: bool,
    pub incarnation: u32,
    /// The record being processed.
    pub working: Option<Work>,
    pub armed: Option<ArmedMemberCrash>,
    pub restart_at_us: Option<Micros>,
    /// Crashed but still in the group until then (the group's session timeout): its
    /// partitions stay its own, unread.
    pub session_ends_at_us: Option<Micros>,
    /// When the record in hand outlasts the group's poll interval (Kafka's
    /// `max.poll.interval.ms`): the member has not polled since it fetched the record.
    pub poll_due_us: Option<Micros>,
    /// The member's one pending poll timer (see `sim::poll_interval`).
    pub poll_timer_at: Option<Micros>,
    /// It outlasted the poll interval and left the group: it finishes the record in hand,
    /// whose commit then fails, and rejoins at its next poll.
    pub out_of_group: bool,
    /// Next of its partitions to look at (round robin among them).
    pub next_partition: usize,
    /// Output records of its open transaction: (partition of the output log, offset).
    pub txn: Vec<(u32, u64)>,
    /// When its open transaction began (its first output record).
    pub txn_started_us: Option<Micros>,
    /// The write its record in hand waits to make until the broker is back.
    pub unsent: Option<Unsent>,
}

#[derive(Clone, Debug)]
pub struct Group {
    pub name: String,
    pub log: usize,
    pub service: ServiceTime,
    pub commit: CommitMode,
    pub assignment: Assignment,
    pub rebalance_us: Micros,
    /// How long a crashed member stays in the group (none: it leaves at its crash).
    pub session_timeout_us: Option<Micros>,
    /// How long a member may work on a record without polling before it leaves the group.
    pub max_poll_interval_us: Option<Micros>,
    pub idempotency: Idempotency,
    /// What its inbox rows are keyed by (the message, or the record's entity).
    pub inbox_key: InboxKey,
    /// Read-process-write settings (see `GroupSpec`).
    pub output: Option<usize>,
    pub transactional: bool,
    /// How long a crashed member's open transaction stays open (none: it aborts at once).
    pub transaction_timeout_us: Option<Micros>,
    pub sends_email: bool,
    pub read_committed: bool,
    /// Where a member goes on when retention removed the record at its position.
    pub offset_reset: crate::scenario::OffsetReset,
    pub members: Vec<Member>,
    /// Per partition: the committed offset (where the group resumes after a rebalance).
    pub committed: Vec<u64>,
    /// Per partition: the next offset to process.
    pub position: Vec<u64>,
    /// Per partition: one past the last record processed in order.
    pub done_upto: Vec<u64>,
    /// Per partition: the records below this offset are settled for their jobs (the
    /// group finished each once, or will never read it); rewinds leave it where it is, so
    /// a record read again is not counted again.
    pub settled: Vec<u64>,
    /// Per partition: its member sought (moved its position) since the last commit, so
    /// the next commit sets the committed offset wherever the position is, behind the
    /// last commit too, as a Kafka consumer's commit after `seek` does.
    pub sought: Vec<bool>,
    /// Records (partition, offset, message) settled past while a member still works on
    /// them (they expired or were skipped under it): the member's outcome settles them.
    pub spared: Vec<(u32, u64, MsgId)>,
    /// Ranges (partition, from, to, reads from) an `auto.offset.reset=latest` counted as
    /// skipped, their reads lost from `reads from` on. Kafka's reset moves only the fetch
    /// position: should the partition's position move back below `to` (a crash before
    /// the next commit resumes it at the last commit, a seek back), the group reads them
    /// after all, and the skip is undone.
    pub reset_skips: Vec<(u32, u64, u64, u64)>,
    /// Ranges (partition, from, to) below `settled` whose reads are owed again: records
    /// a reset passed (or a crashed member dropped) that the group reads again.
    pub reread: Vec<(u32, u64, u64)>,
    /// Per partition: its owner, if any (none while rebalancing).
    pub owner: Vec<Option<MemberId>>,
    /// A partition is being processed right now (by its owner).
    pub busy: Vec<bool>,
    pub rebalancing: bool,
    pub generation: u32,
    pub auto_commit_pending: bool,
    pub rebalance: Rebalance,
    /// Counts rebalances: a pending rebalance completion is only valid for its own round.
    pub round: u32,
    /// Eager: the round's time is up but a member still finishes the record in hand; the
    /// round completes when the last such partition is let go.
    pub round_waiting: bool,
    /// Per partition: its owner must give it up once the record in hand is committed.
    pub revoking: Vec<bool>,
    /// Per partition: who gets it when the current cooperative rebalance settles.
    pub target: Vec<Option<MemberId>>,
    pub ordering: Ordering,
    pub failures: Failures,
    pub retry: RetryPolicy,
    /// The replay window: records created longer ago are refused.
    pub max_message_age_us: Option<Micros>,
    /// Members apply a record from an unauthorised tenant instead of refusing it.
    pub trusts_the_broker: bool,
    /// Log that failed records are sent to (none: the built-in dead-letter topic).
    pub dead_letter: Option<usize>,
    /// The built-in dead-letter topic: messages the group gave up on, in order.
    pub dead_letters: Vec<MsgId>,
    /// Records the group gave up on, wherever they went.
    pub dead_lettered: u64,
    /// Per key: the newest version whose effect reached the group's aggregate.
    pub newest_version: BTreeMap<u32, u32>,
}

impl Group {
    pub fn new(
        spec: &GroupSpec,
        log: usize,
        partitions: usize,
        output: Option<usize>,
        dead_letter: Option<usize>,
    ) -> Self {
        let members = (0..spec.members)
            .map(|i| Member::new(&spec.name, i))
            .collect();
        Self {
            name: spec.name.clone(),
            log,
            service: spec.service,
            commit: spec.commit,
            assignment: spec.assignment,
            rebalance_us: secs_to_us(spec.rebalance_s),
            session_timeout_us: spec.session_timeout_s.map(secs_to_us),
            max_poll_interval_us: spec.max_poll_interval_s.map(secs_to_us),
            transaction_timeout_us: spec.transaction_timeout_s.map(secs_to_us),
            idempotency: spec.idempotency,
            inbox_key: spec.inbox_key,
            output,
            transactional: spec.transactional,
            sends_email: spec.sends_email,
            read_committed: spec.isolation == crate::scenario::Isolation::ReadCommitted,
            offset_reset: spec.auto_offset_reset,
            max_message_age_us: spec.max_message_age_s.map(secs_to_us),
            trusts_the_broker: spec.trusts_the_broker,
            members,
            committed: vec![0; partitions],
            position: vec![0; partitions],
            done_upto: vec![0; partitions],
            settled: vec![0; partitions],
            sought: vec![false; partitions],
            spared: Vec::new(),
            reset_skips: Vec::new(),
            reread: Vec::new(),
            owner: vec![None; partitions],
            busy: vec![false; partitions],
            rebalancing: false,
            generation: 0,
            auto_commit_pending: false,
            rebalance: spec.rebalance,
            round: 0,
            round_waiting: false,
            revoking: vec![false; partitions],
            target: vec![None; partitions],
            ordering: spec.ordering,
            failures: spec.failures.clone(),
            retry: spec.retry.clone(),
            dead_letter,
            dead_letters: Vec::new(),
            dead_lettered: 0,
            newest_version: BTreeMap::new(),
        }
    }

    /// Partitions for each live member under the group's strategy.
    pub fn assign(&self, partitions: u32) -> Vec<Option<MemberId>> {
        let live: Vec<MemberId> = self
            .members
            .iter()
            .enumerate()
            .filter(|(_, m)| m.active())
            .map(|(i, _)| i as MemberId)
            .collect();
        let n = live.len() as u32;
        (0..partitions)
            .map(|p| {
                if n == 0 {
                    return None;
                }
                Some(match self.assignment {
                    Assignment::RoundRobin => live[(p % n) as usize],
                    // Range: the first (partitions mod n) members take one extra partition.
                    Assignment::Range => {
                        let (base, extra) = (partitions / n, partitions % n);
                        let big = extra * (base + 1);
                        let idx = if p < big {
                            p / (base + 1)
                        } else {
                            extra + (p - big) / base.max(1)
                        };
                        live[idx.min(n - 1) as usize]
                    }
                })
            })
            .collect()
    }
}

impl Group {
    /// Whether committing `offset` on partition `p` changes its committed offset: it is
    /// ahead, or anywhere else once the member sought since the last commit.
    pub fn commit_moves(&self, p: usize, offset: u64) -> bool {
        offset > self.committed[p] || (self.sought[p] && offset != self.committed[p])
    }

    /// Commits `offset` on partition `p`: never backwards (retention may have moved the
    /// log start past a record finished late), unless the member sought since the last
    /// commit, whose commit goes wherever its position is.
    pub fn commit(&mut self, p: usize, offset: u64) {
        self.committed[p] = if self.sought[p] {
            offset
        } else {
            self.committed[p].max(offset)
        };
        self.sought[p] = false;
    }

    /// The entity the inbox row of a record with `key` is keyed by: its key when the
    /// inbox is keyed by the entity; `None` when the row is keyed by source and id (the
    /// default, and a record without a key), as for a queue's consumer.
    pub fn inbox_entity(&self, key: Option<u32>) -> Option<u32> {
        key.filter(|_| self.inbox_key == InboxKey::Entity)
    }

    /// Whether member `m`'s record in hand may still move the group's offsets: fetched in
    /// this generation, by a member that has not left the group since.
    pub fn is_current(&self, m: MemberId, work: &Work) -> bool {
        work.generation == self.generation && !self.members[m as usize].out_of_group
    }

    /// Cooperative sticky assignment: a live owner keeps its partitions up to its fair
    /// share; orphaned and surplus partitions go to the least loaded live members.
    pub fn sticky_assign(&self) -> Vec<Option<MemberId>> {
        let partitions = self.owner.len();
        let live: Vec<MemberId> = (0..self.members.len() as MemberId)
            .filter(|&m| self.members[m as usize].active())
            .collect();
        if live.is_empty() {
            return vec![None; partitions];
        }
        let n = live.len();
        let (floor, mut big_left) = (partitions / n, partitions % n);
        let mut load: BTreeMap<MemberId, usize> = live.iter().map(|&m| (m, 0)).collect();
        let mut out: Vec<Option<MemberId>> = vec![None; partitions];
        // Keep up to `floor` each, then up to one more for the first members that ask.
        for pass in 0..2 {
            for (slot, owner) in out.iter_mut().zip(&self.owner) {
                let Some(o) = owner.filter(|o| load.contains_key(o)) else {
                    continue;
                };
                if slot.is_some() {
                    continue;
                }
                let l = load[&o];
                let keep = if pass == 0 {
                    l < floor
                } else {
                    l == floor && big_left > 0
                };
                if keep {
                    if pass == 1 {
                        big_left -= 1;
                    }
                    *slot = Some(o);
                    *load.get_mut(&o).expect("live") += 1;
                }
            }
        }
        for slot in out.iter_mut().filter(|s| s.is_none()) {
            let (&m, _) = load
                .iter()
                .min_by_key(|(&m, &l)| (l, m))
                .expect("live is not empty");
            *slot = Some(m);
            *load.get_mut(&m).expect("live") += 1;
        }
        out
    }
}

impl Member {
    pub fn new(group: &str, index: u32) -> Self {
        Self {
            name: format!("{group}-{}", index + 1),
            up: true,
            incarnation: 0,
            working: None,
            armed: None,
            restart_at_us: None,
            session_ends_at_us: None,
            poll_due_us: None,
            poll_timer_at: None,
            out_of_group: false,
            next_partition: 0,
            txn: Vec::new(),
            txn_started_us: None,
            unsent: None,
        }
    }

    /// Up and in its group: it may be given partitions and fetch records.
    pub fn active(&self) -> bool {
        self.up && !self.out_of_group
    }
}

/// What the app shows about a group's partition.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PartitionView {
    pub start: u64,
    pub end: u64,
    pub committed: u64,
    pub position: u64,
    pub owner: Option<MemberId>,
    /// Log end minus committed offset.
    pub lag: u64,
    /// Control records (transactions' markers) among the retained offsets.
    pub markers: u64,
    /// The attempt of a record retried in place: the partition is blocked behind it.
    pub retrying: Option<u32>,
    /// Its owner gives it up once the record in hand is committed (cooperative).
    pub revoking: bool,
    /// Its member sought since the last commit: it reads at `position`, and the committed
    /// offset follows with its next commit.
    pub sought: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{CommitMode, GroupSpec, ServiceTime};

    fn group(members: u32, assignment: Assignment) -> Group {
        let spec = GroupSpec {
            name: "g".into(),
            log: "l".into(),
            members,
            service: ServiceTime::Fixed { seconds: 1.0 },
            commit: CommitMode::AfterProcessing,
            assignment,
            rebalance_s: 1.0,
            session_timeout_s: None,
            max_poll_interval_s: None,
            transaction_timeout_s: None,
            idempotency: Idempotency::None,
            inbox_key: Default::default(),
            output: String::new(),
            transactional: false,
            sends_email: false,
            isolation: Default::default(),
            rebalance: Default::default(),
            ordering: Default::default(),
            failures: Default::default(),
            retry: Default::default(),
            dead_letter: String::new(),
            auto_offset_reset: Default::default(),
            max_message_age_s: None,
            trusts_the_broker: false,
        };
        Group::new(&spec, 0, 4, None, None)
    }

    #[test]
    fn sticky_assignment_moves_only_what_balance_needs() {
        // One member owned all four; a second joins: it takes two, the first keeps two.
        let mut g = group(2, Assignment::Range);
        g.owner = vec![Some(0); 4];
        assert_eq!(g.sticky_assign(), [Some(0), Some(0), Some(1), Some(1)]);
        // Three members, member 1 dies: its partitions go to the least loaded, the
        // others stay where they were.
        let mut g = group(3, Assignment::Range);
        g.owner = vec![Some(0), Some(0), Some(1), Some(2)];
        g.members[1].up = false;
        assert_eq!(g.sticky_assign(), [Some(0), Some(0), Some(2), Some(2)]);
        // Nobody up: nobody owns anything.
        g.members.iter_mut().for_each(|m| m.up = false);
        assert_eq!(g.sticky_assign(), [None; 4]);
    }

    #[test]
    fn range_and_round_robin() {
        assert_eq!(
            group(2, Assignment::Range).assign(4),
            [Some(0), Some(0), Some(1), Some(1)]
        );
        assert_eq!(
            group(3, Assignment::Range).assign(4),
            [Some(0), Some(0), Some(1), Some(2)]
        );
        assert_eq!(
            group(2, Assignment::RoundRobin).assign(4),
            [Some(0), Some(1), Some(0), Some(1)]
        );
        // More members than partitions: some stay idle.
        let six = group(6, Assignment::Range).assign(4);
        assert_eq!(six, [Some(0), Some(1), Some(2), Some(3)]);
        assert_eq!(
            group(0, Assignment::Range).assign(4),
            [None, None, None, None]
        );
    }
}
