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
use crate::step::{Fact, GroupId, MsgId};

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

    /// Group `g`'s read of `msg` is settled with `how`.
    fn settle_read(&mut self, g: GroupId, msg: MsgId, how: Read) {
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
            Read::Lost => {
                self.lost_reads.entry(msg).or_default().push(g);
                self.messages[msg.index()].set_log_lost(true);
            }
            Read::Void => {}
        }
        self.job_moved(msg, before);
    }

    /// Whether group `g`'s read of `msg` was settled as lost.
    fn read_lost_by(&self, g: GroupId, msg: MsgId) -> bool {
        self.lost_reads.get(&msg).is_some_and(|gs| gs.contains(&g))
    }

    /// Group `g`'s read of `msg`, settled as lost, is owed again: the group reads its
    /// record after all (a reset to the log end it resumed before,
    /// `Simulation::undo_reset_skips`).
    fn unsettle_lost_read(&mut self, g: GroupId, msg: MsgId) {
        let before = self.job_status(msg);
        let Some(groups) = self.lost_reads.get_mut(&msg) else {
            debug_assert!(false, "a lost read of {msg:?} owed again that was not lost");
            return;
        };
        let Some(i) = groups.iter().position(|&h| h == g) else {
            debug_assert!(false, "a lost read of {msg:?} owed again that was not lost");
            return;
        };
        groups.swap_remove(i);
        if groups.is_empty() {
            self.lost_reads.remove(&msg);
            self.messages[msg.index()].set_log_lost(false);
        }
        *self.log_reads.entry(msg).or_default() += 1;
        self.job_moved(msg, before);
    }

    /// Partition `p` of group `g` will be read again from `at` (it resumes at its
    /// committed offset, or a seek moved it there): the records an
    /// `auto.offset.reset=latest` counted as skipped from there on, still retained, are
    /// read after all. They stop counting as skipped (told as [`Fact::SkipUndone`]), and
    /// their reads are owed again.
    pub(super) fn undo_reset_skips(&mut self, g: GroupId, p: usize, at: u64) {
        let group = &mut self.groups[g.index()];
        if group.reset_skips.is_empty() {
            return;
        }
        let log = group.log;
        let start = self.logs[log].partitions[p].start;
        let (undone, kept): (Vec<_>, Vec<_>) = group
            .reset_skips
            .iter()
            .partition(|&&(sp, _, to, _)| sp as usize == p && to > at.max(start));
        group.reset_skips = kept;
        for (_, from, to, reads_from) in undone {
            let lo = from.max(at).max(start);
            let part = &self.logs[log].partitions[p];
            let count = part.messages_in(lo, to).count() as u64;
            if count == 0 {
                continue;
            }
            self.counters.records_skipped -= count;
            self.facts.push(Fact::SkipUndone {
                group: g,
                partition: p as u32,
                from: lo,
                to,
            });
            let group = &self.groups[g.index()];
            let spared = |o: u64| {
                group
                    .spared
                    .iter()
                    .any(|&(sp, so, _)| (sp as usize, so) == (p, o))
            };
            // An aborted record a read_committed group steps over had its read void, not
            // lost: nothing to owe again (`settle_reread` passes it over too).
            let void = |o: u64| {
                group.read_committed
                    && part
                        .get(o)
                        .is_some_and(|r| r.status == RecordStatus::Aborted)
            };
            // Only the reads this group lost are owed again: a record a member had in
            // hand at the reset may have been finished since (its read is done).
            let reads: Vec<(u64, MsgId)> = part
                .messages_in(lo.max(reads_from), to)
                .filter(|&(o, msg)| !spared(o) && !void(o) && self.read_lost_by(g, msg))
                .collect();
            // Owed again in runs of consecutive offsets (`read_settled` looks them up).
            let mut runs: Vec<(u32, u64, u64)> = Vec::new();
            for &(o, _) in &reads {
                match runs.last_mut() {
                    Some(run) if run.2 == o => run.2 = o + 1,
                    _ => runs.push((p as u32, o, o + 1)),
                }
            }
            self.groups[g.index()].reread.extend(runs);
            for (_, msg) in reads {
                self.unsettle_lost_read(g, msg);
            }
        }
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
            self.settle_read(g, work.msg, how);
        } else if let Some(i) = group
            .reread
            .iter()
            .position(|&(rp, lo, hi)| rp == p && (lo..hi).contains(&offset))
        {
            // Read again in offset order: what lies before it there was passed.
            let (_, lo, hi) = group.reread[i];
            group.reread.remove(i);
            if offset + 1 < hi {
                group.reread.push((p, offset + 1, hi));
            }
            self.settle_reread(g, p as usize, lo, offset);
            self.settle_read(g, work.msg, how);
        } else if offset >= group.settled[p as usize] {
            self.reads_passed(g, p as usize, offset);
            self.groups[g.index()].settled[p as usize] = offset + 1;
            self.settle_read(g, work.msg, how);
        }
    }

    /// Group `g` moves past partition `p`'s records below `upto` without reading them
    /// (retention, a skip, a seek, aborted records): the reads still owed there are lost
    /// (void for an aborted record a read_committed group skips); a record a member still
    /// works on is spared until the member is done with it. Call before the records go.
    pub(super) fn reads_passed(&mut self, g: GroupId, p: usize, upto: u64) {
        // Reads owed again below the settled offsets go first.
        let group = &mut self.groups[g.index()];
        if group
            .reread
            .iter()
            .any(|&(rp, lo, _)| rp as usize == p && lo < upto)
        {
            let mut passed = Vec::new();
            group.reread.retain_mut(|(rp, lo, hi)| {
                if *rp as usize != p || *lo >= upto {
                    return true;
                }
                passed.push((*lo, upto.min(*hi)));
                *lo = upto.min(*hi);
                lo < hi
            });
            for (lo, hi) in passed {
                self.settle_reread(g, p, lo, hi);
            }
        }
        let group = &self.groups[g.index()];
        let from = group.settled[p];
        if upto <= from {
            return;
        }
        let read_committed = group.read_committed;
        let (worked, passed) = self.records_passed(g, p, from, upto);
        self.groups[g.index()].settled[p] = upto;
        for (offset, msg, aborted) in passed {
            if worked.contains(&offset) {
                self.groups[g.index()].spared.push((p as u32, offset, msg));
            } else if aborted && read_committed {
                self.settle_read(g, msg, Read::Void);
            } else {
                self.settle_read(g, msg, Read::Lost);
            }
        }
    }

    /// What group `g` passes of partition `p` from `from` to `to`: the offsets its members
    /// have in hand there, and each record still held (offset, message, whether aborted).
    fn records_passed(
        &self,
        g: GroupId,
        p: usize,
        from: u64,
        to: u64,
    ) -> (Vec<u64>, Vec<(u64, MsgId, bool)>) {
        let group = &self.groups[g.index()];
        let in_hand = group
            .members
            .iter()
            .filter_map(|m| m.working)
            .filter(|w| w.partition as usize == p)
            .map(|w| w.offset)
            .collect();
        let part = &self.logs[group.log].partitions[p];
        let records = part
            .messages_in(from, to)
            .map(|(o, msg)| {
                let aborted = part
                    .get(o)
                    .is_some_and(|r| r.status == RecordStatus::Aborted);
                (o, msg, aborted)
            })
            .collect();
        (in_hand, records)
    }

    /// The reads owed again of partition `p`'s records in `from..to` are passed: lost; a
    /// record a member still works on is spared until the member is done with it.
    fn settle_reread(&mut self, g: GroupId, p: usize, from: u64, to: u64) {
        if from >= to {
            return;
        }
        let read_committed = self.groups[g.index()].read_committed;
        let (worked, passed) = self.records_passed(g, p, from, to);
        for (offset, msg, aborted) in passed {
            let group = &self.groups[g.index()];
            // Not owed again: a void read (an aborted record a read_committed group steps
            // over), or a spared one (its member's outcome settles it).
            if (aborted && read_committed)
                || group
                    .spared
                    .iter()
                    .any(|&(sp, so, _)| (sp as usize, so) == (p, offset))
            {
                continue;
            }
            if worked.contains(&offset) {
                self.groups[g.index()].spared.push((p as u32, offset, msg));
            } else {
                self.settle_read(g, msg, Read::Lost);
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
        let start = |p: u32| self.logs[group.log].partitions[p as usize].start;
        // One still retained at or past the committed offset is read again when its
        // partition resumes there (its member crashed): its read is owed still.
        let (again, lost): (Vec<_>, Vec<_>) = dropped
            .into_iter()
            .partition(|&(p, o, _)| o >= group.committed[p as usize] && o >= start(p));
        let group = &mut self.groups[g.index()];
        group.spared = kept;
        group
            .reread
            .extend(again.iter().map(|&(p, o, _)| (p, o, o + 1)));
        for (_, _, msg) in lost {
            self.settle_read(g, msg, Read::Lost);
        }
    }

    /// Whether some group reads log `l` (a record dead-lettered there is read again).
    pub(super) fn log_is_read(&self, l: usize) -> bool {
        self.groups.iter().any(|g| g.log == l)
    }
}
