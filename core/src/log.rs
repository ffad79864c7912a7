//! Partitioned logs and the consumer groups that read them. Unlike a queue, reading does
//! not remove anything: each group keeps its own offsets, and only retention removes
//! records.

use std::collections::VecDeque;

use serde::Serialize;

use crate::scenario::{
    Assignment, CommitMode, GroupSpec, Idempotency, LogSpec, MemberCrashPoint, ServiceTime,
};
use crate::step::{MemberId, MsgId, Trigger};
use crate::time::{secs_to_us, Micros};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Record {
    pub msg: MsgId,
    pub appended_us: Micros,
    pub status: RecordStatus,
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
}

#[derive(Clone, Debug, Default)]
pub struct Partition {
    /// Offset of the first retained record (the log start).
    pub start: u64,
    pub records: VecDeque<Record>,
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
}

#[derive(Clone, Debug)]
pub struct Log {
    pub name: String,
    pub partitions: Vec<Partition>,
    pub retention_us: Option<Micros>,
    pub retention_records: Option<u64>,
    /// Partition of the next keyless record (round robin).
    pub next_keyless: u32,
}

impl Log {
    pub fn new(spec: &LogSpec) -> Self {
        Self {
            name: spec.name.clone(),
            partitions: vec![Partition::default(); spec.partitions as usize],
            retention_us: spec.retention_s.map(secs_to_us),
            retention_records: spec.retention_records,
            next_keyless: 0,
        }
    }

    /// Stable key → partition: FNV-1a of the key's bytes, modulo the partition count.
    pub fn partition_of(&self, key: u32) -> u32 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in key.to_le_bytes() {
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
    /// Next of its partitions to look at (round robin among them).
    pub next_partition: usize,
    /// Output records of its open transaction: (partition of the output log, offset).
    pub txn: Vec<(u32, u64)>,
}

#[derive(Clone, Debug)]
pub struct Group {
    pub name: String,
    pub log: usize,
    pub service: ServiceTime,
    pub commit: CommitMode,
    pub assignment: Assignment,
    pub rebalance_us: Micros,
    pub idempotency: Idempotency,
    /// Read-process-write settings (see `GroupSpec`).
    pub output: Option<usize>,
    pub transactional: bool,
    pub sends_email: bool,
    pub read_committed: bool,
    pub members: Vec<Member>,
    /// Per partition: the committed offset (where the group resumes after a rebalance).
    pub committed: Vec<u64>,
    /// Per partition: the next offset to process.
    pub position: Vec<u64>,
    /// Per partition: one past the last record processed in order.
    pub done_upto: Vec<u64>,
    /// Per partition: its owner, if any (none while rebalancing).
    pub owner: Vec<Option<MemberId>>,
    /// A partition is being processed right now (by its owner).
    pub busy: Vec<bool>,
    pub rebalancing: bool,
    pub generation: u32,
    pub auto_commit_pending: bool,
}

impl Group {
    pub fn new(spec: &GroupSpec, log: usize, partitions: usize, output: Option<usize>) -> Self {
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
            idempotency: spec.idempotency,
            output,
            transactional: spec.transactional,
            sends_email: spec.sends_email,
            read_committed: spec.isolation == crate::scenario::Isolation::ReadCommitted,
            members,
            committed: vec![0; partitions],
            position: vec![0; partitions],
            done_upto: vec![0; partitions],
            owner: vec![None; partitions],
            busy: vec![false; partitions],
            rebalancing: false,
            generation: 0,
            auto_commit_pending: false,
        }
    }

    /// Partitions for each live member under the group's strategy.
    pub fn assign(&self, partitions: u32) -> Vec<Option<MemberId>> {
        let live: Vec<MemberId> = self
            .members
            .iter()
            .enumerate()
            .filter(|(_, m)| m.up)
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

impl Member {
    pub fn new(group: &str, index: u32) -> Self {
        Self {
            name: format!("{group}-{}", index + 1),
            up: true,
            incarnation: 0,
            working: None,
            armed: None,
            restart_at_us: None,
            next_partition: 0,
            txn: Vec::new(),
        }
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
            idempotency: Idempotency::None,
            output: String::new(),
            transactional: false,
            sends_email: false,
            isolation: Default::default(),
        };
        Group::new(&spec, 0, 4, None)
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
