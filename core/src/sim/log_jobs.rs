//! Jobs whose copies are log records. A queue copy is one delivery to settle; a log record
//! is read by every group reading its log, so a message's job waits for one read per
//! record and group. Each read is settled once, in offset order per group and partition
//! (`Group::settled`): finished (the effect applied, refused, or skipped as a duplicate
//! or a stale version), lost (expired before the group read it, skipped because its
//! offset was committed before processing and the member crashed, or dead-lettered where
//! no group reads), or void (an aborted transaction's record a read_committed group
//! steps over; a record dead-lettered to a log that a group reads, whose reads then
//! count instead, as a redriven copy does). A rewind reads records again: that settles
//! nothing more.

use super::Simulation;
use crate::log::{RecordStatus, Work};
use crate::step::{GroupId, MsgId};

/// How one group's read of one record ended, for its message's job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Read {
    Finished,
    Lost,
    Void,
}

impl Simulation {
    /// A record of `msg` was appended to log `l`: each group reading `l` owes it a read.
    pub(super) fn owe_reads(&mut self, l: usize, msg: MsgId) {
        let readers = self.groups.iter().filter(|g| g.log == l).count() as u32;
        if readers == 0 {
            return;
        }
        let before = self.job_status(msg);
        *self.log_reads.entry(msg).or_default() += readers;
        self.job_moved(msg, before);
    }

    /// One read of `msg` is settled with `how`.
    fn settle_read(&mut self, msg: MsgId, how: Read) {
        let before = self.job_status(msg);
        // Every settled read was owed; should a path ever settle one twice, the job keeps
        // its status rather than the run stopping (debug builds and tests still catch it).
        let Some(owed) = self.log_reads.get_mut(&msg).filter(|owed| **owed > 0) else {
            debug_assert!(false, "a read of {msg:?} settled that was not owed");
            return;
        };
        *owed -= 1;
        if *owed == 0 {
            self.log_reads.remove(&msg);
        }
        match how {
            Read::Finished => self.messages[msg.index()].set_log_read(),
            Read::Lost => self.messages[msg.index()].set_log_lost(),
            Read::Void => {}
        }
        self.job_moved(msg, before);
    }

    /// Group `g` finished (or gave up on) the record of `work`: its read is settled, unless
    /// it already was (a record read again after a rewind or a rebalance).
    pub(super) fn read_settled(&mut self, g: GroupId, work: Work, how: Read) {
        let (p, offset) = (work.partition, work.offset);
        let group = &mut self.groups[g.index()];
        if let Some(i) = group
            .spared
            .iter()
            .position(|&(sp, so, _)| (sp, so) == (p, offset))
        {
            group.spared.remove(i);
            self.settle_read(work.msg, how);
        } else if offset >= group.settled[p as usize] {
            self.reads_passed(g, p as usize, offset);
            self.groups[g.index()].settled[p as usize] = offset + 1;
            self.settle_read(work.msg, how);
        }
    }

    /// Group `g` moves past partition `p`'s records below `upto` without reading them
    /// (retention, a skip, a seek, aborted records): the reads still owed there are lost
    /// (void for an aborted record a read_committed group skips); a record a member still
    /// works on is spared until the member is done with it. Call before the records go.
    pub(super) fn reads_passed(&mut self, g: GroupId, p: usize, upto: u64) {
        let group = &self.groups[g.index()];
        let from = group.settled[p];
        if upto <= from {
            return;
        }
        let worked: Vec<u64> = group
            .members
            .iter()
            .filter_map(|m| m.working)
            .filter(|w| w.partition as usize == p)
            .map(|w| w.offset)
            .collect();
        let read_committed = group.read_committed;
        let part = &self.logs[group.log].partitions[p];
        let aborted = |o: u64| {
            part.get(o)
                .is_some_and(|r| r.status == RecordStatus::Aborted)
        };
        let passed: Vec<(u64, MsgId, bool)> = part
            .messages_in(from, upto)
            .map(|(o, msg)| (o, msg, aborted(o)))
            .collect();
        self.groups[g.index()].settled[p] = upto;
        for (offset, msg, aborted) in passed {
            if worked.contains(&offset) {
                self.groups[g.index()].spared.push((p as u32, offset, msg));
            } else if aborted && read_committed {
                self.settle_read(msg, Read::Void);
            } else {
                self.settle_read(msg, Read::Lost);
            }
        }
    }

    /// Spared records no member works on any more (it crashed, or dropped the record):
    /// nobody will read them, so their reads are lost.
    pub(super) fn drop_spared(&mut self, g: GroupId) {
        let group = &self.groups[g.index()];
        if group.spared.is_empty() {
            return;
        }
        let worked = |p: u32, o: u64| {
            group
                .members
                .iter()
                .filter_map(|m| m.working)
                .any(|w| (w.partition, w.offset) == (p, o))
        };
        let (kept, dropped): (Vec<_>, Vec<_>) =
            group.spared.iter().partition(|&&(p, o, _)| worked(p, o));
        self.groups[g.index()].spared = kept;
        for (_, _, msg) in dropped {
            self.settle_read(msg, Read::Lost);
        }
    }

    /// Whether some group reads log `l` (a record dead-lettered there is read again).
    pub(super) fn log_is_read(&self, l: usize) -> bool {
        self.groups.iter().any(|g| g.log == l)
    }
}
