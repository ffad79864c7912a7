//! Transactions' control records. When a transaction commits or aborts, the coordinator
//! appends a marker to every partition the transaction wrote to, as Kafka does: the
//! marker takes an offset, holds no message, and no reader ever receives it. Readers step
//! over markers (and read_committed readers over aborted records too), so a
//! transactional partition's offsets have gaps that no record fills.

use super::Simulation;
use crate::log::{Record, RecordStatus};
use crate::step::{Fact, GroupId, MemberId};

impl Simulation {
    /// Closes a settled transaction in log `out`: one marker in each partition among
    /// `written` (the transaction's records, as partition and offset).
    pub(super) fn write_markers(&mut self, out: usize, written: &[(u32, u64)], commit: bool) {
        let mut partitions: Vec<u32> = written.iter().map(|&(p, _)| p).collect();
        partitions.sort_unstable();
        partitions.dedup();
        for p in partitions {
            let part = &mut self.logs[out].partitions[p as usize];
            let offset = part.end();
            part.records.push_back(Record::marker(commit, self.now_us));
            part.markers += 1;
            self.counters.control_records += 1;
            self.facts.push(Fact::ControlRecordWritten {
                log: out as u32,
                partition: p,
                offset,
                commit,
            });
        }
    }

    /// Member `m`, about to fetch, steps over what no reader of its group receives at its
    /// partitions' positions: control records, and for a read_committed group aborted
    /// records. Stepping over moves the committed offset too, as a consumer's next commit
    /// of its position would, so a group that has read everything has no lag.
    pub(super) fn step_over(&mut self, g: GroupId, m: MemberId) {
        let group = &self.groups[g.index()];
        let (log, read_committed) = (group.log, group.read_committed);
        for p in 0..group.owner.len() {
            loop {
                let group = &self.groups[g.index()];
                if group.owner[p] != Some(m) || group.busy[p] {
                    break;
                }
                let offset = group.position[p];
                let Some(record) = self.logs[log].partitions[p].get(offset) else {
                    break;
                };
                let aborted = record.status == RecordStatus::Aborted;
                let withheld = record.is_marker() || (aborted && read_committed);
                if !withheld {
                    break;
                }
                self.reads_passed(g, p, offset + 1);
                let group = &mut self.groups[g.index()];
                group.position[p] = offset + 1;
                group.done_upto[p] = group.done_upto[p].max(offset + 1);
                // A seek not yet committed stays so: the next commit is the member's.
                if !group.sought[p] {
                    group.committed[p] = group.committed[p].max(offset + 1);
                }
                if aborted {
                    self.facts.push(Fact::AbortedSkipped {
                        group: g,
                        partition: p as u32,
                        offset,
                    });
                }
            }
        }
    }
}
