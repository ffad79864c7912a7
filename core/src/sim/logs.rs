//! Partitioned logs and consumer groups: appends by key, retention, members processing
//! their partitions in offset order, offset commits (before processing, after, or
//! periodically), rebalances when membership changes, and rewinds for replay.

use super::Simulation;
use crate::engine::Event;
use crate::log::{Member, Record, RecordStatus, Unsent, Work};
use crate::message::PublishFate;
use crate::scenario::{
    CommitMode, Idempotency, MemberCrashPoint, OffsetReset, Ordering, Rebalance, ServiceTime,
};
use crate::step::{Fact, GroupId, MemberId, MsgId, ProducerId, SkipReason, Trigger};
use crate::time::{secs_to_us, Micros};

impl Simulation {
    fn group_table(&self, g: GroupId) -> usize {
        self.queues.len() + g.index()
    }

    /// The broker appends a message to its log, in the partition its key maps to (or the
    /// one its producer numbered it for: `partition`).
    pub(super) fn append(
        &mut self,
        producer: ProducerId,
        msg: MsgId,
        l: usize,
        partition: Option<u32>,
    ) {
        let (partition, offset) = self.append_to(l, msg, RecordStatus::Committed, partition);
        self.facts.push(Fact::Appended {
            producer,
            msg,
            log: l as u32,
            partition,
            offset,
        });
        self.log_changed(l);
    }

    /// Appends one record (key → partition, keyless round robin); returns where it went.
    pub(super) fn append_record(
        &mut self,
        l: usize,
        msg: MsgId,
        status: RecordStatus,
    ) -> (u32, u64) {
        self.append_to(l, msg, status, None)
    }

    /// Appends one record to `partition`, or where its key maps to.
    fn append_to(
        &mut self,
        l: usize,
        msg: MsgId,
        status: RecordStatus,
        partition: Option<u32>,
    ) -> (u32, u64) {
        let key = self.messages[msg.index()].key;
        let log = &mut self.logs[l];
        let partition = match partition.or_else(|| log.partition_for(key, msg)) {
            Some(p) => p,
            None => {
                let p = log.next_keyless % log.partitions.len() as u32;
                log.next_keyless = log.next_keyless.wrapping_add(1);
                p
            }
        };
        let part = &mut log.partitions[partition as usize];
        let offset = part.end();
        part.records
            .push_back(Record::new(msg, self.now_us, status));
        let m = &mut self.messages[msg.index()];
        m.records += 1;
        m.set_broker_remembers(true);
        self.change_job(msg, |m| m.fate = PublishFate::Stored);
        self.owe_reads(l, msg);
        self.counters.appended += 1;
        (partition, offset)
    }

    /// Something changed in log `l`: retention, then every group reading it looks again.
    pub(super) fn log_changed(&mut self, l: usize) {
        self.apply_retention(l);
        for g in self.group_ids() {
            if self.groups[g.index()].log == l {
                self.pump_group(g);
            }
        }
    }

    /// Settles a member's open transaction: its output records become visible, or aborted.
    pub(super) fn end_transaction(&mut self, g: GroupId, m: MemberId, commit: bool) {
        let member = &mut self.groups[g.index()].members[m as usize];
        member.txn_started_us = None;
        let txn = std::mem::take(&mut member.txn);
        let Some(out) = self.groups[g.index()].output else {
            return;
        };
        if txn.is_empty() {
            return;
        }
        let status = if commit {
            RecordStatus::Committed
        } else {
            RecordStatus::Aborted
        };
        for &(p, offset) in &txn {
            let part = &mut self.logs[out].partitions[p as usize];
            if let Some(i) = offset.checked_sub(part.start) {
                if let Some(r) = part.records.get_mut(i as usize) {
                    r.status = status;
                }
            }
        }
        let outputs = txn.len() as u32;
        self.facts.push(if commit {
            Fact::TransactionCommitted {
                group: g,
                member: m,
                outputs,
            }
        } else {
            Fact::TransactionAborted {
                group: g,
                member: m,
                outputs,
            }
        });
        self.write_markers(out, &txn, commit);
        self.log_changed(out);
    }

    /// Retention removes the oldest records (by age or count), read or not; a group whose
    /// position falls behind the new log start skips what it never read, its offsets
    /// left where they were.
    pub(super) fn apply_retention(&mut self, l: usize) {
        let now = self.now_us;
        for p in 0..self.logs[l].partitions.len() {
            let log = &mut self.logs[l];
            let (max_age, max_len) = (log.retention_us, log.retention_records);
            let part = &log.partitions[p];
            let (from, len) = (part.start, part.records.len());
            let gone = part
                .records
                .iter()
                .enumerate()
                .take_while(|&(i, r)| {
                    let too_old =
                        max_age.is_some_and(|age| r.appended_us.saturating_add(age) <= now);
                    let too_many = max_len.is_some_and(|n| (len - i) as u64 > n);
                    too_old || too_many
                })
                .count();
            if gone == 0 {
                continue;
            }
            let to = from + gone as u64;
            // The groups' reads of what goes are settled while its records are there.
            for g in self.group_ids() {
                if self.groups[g.index()].log == l {
                    self.reads_passed(g, p, to);
                }
            }
            self.counters.records_expired += to - from;
            self.facts.push(Fact::RecordsExpired {
                log: l as u32,
                partition: p as u32,
                from,
                to,
            });
            // A group that had not read what goes never will (the records are dropped
            // only after, so each skip can name its first message). Its offsets stay
            // where they are, as Kafka leaves them: its lag counts the removed records
            // until it commits again, and a member fetching from below the new start
            // resets its position to it (`auto.offset.reset=earliest`, in `pump_group`).
            for g in self.group_ids() {
                let group = &self.groups[g.index()];
                if group.log != l {
                    continue;
                }
                // Records below `from` went earlier and were counted then; markers take
                // offsets but hold nothing to read.
                let skipped_from = group.position[p].max(from);
                let mut unread = self.logs[l].partitions[p].messages_in(skipped_from, to);
                if let Some((_, first)) = unread.next() {
                    self.counters.records_skipped += 1 + unread.count() as u64;
                    self.facts.push(Fact::RecordsSkipped {
                        group: g,
                        partition: p as u32,
                        from: skipped_from,
                        to,
                        why: SkipReason::ExpiredUnread,
                        first_msg: Some(first),
                    });
                }
            }
            // What a reset to the log end skipped and retention now removes stays
            // skipped: nobody can read it again.
            for g in self.group_ids() {
                let group = &mut self.groups[g.index()];
                if group.log == l {
                    group
                        .reset_skips
                        .retain(|&(sp, _, end, _)| sp as usize != p || end > to);
                }
            }
            let part = &mut self.logs[l].partitions[p];
            let markers = part.records.drain(..gone).filter(Record::is_marker).count();
            part.markers -= markers as u64;
            part.start = to;
        }
        self.schedule_retention(l);
    }

    /// Time-based retention keeps its own clock, as a broker's periodic retention check
    /// does: while some group reading log `l` has not committed all of a partition, the
    /// log looks again when its oldest record runs out, whether or not anything is
    /// appended or read meanwhile (a group whose members are all down still loses what
    /// expires). A log every group has read to its end waits for its next touch, so a
    /// finished run does not go on to expire what nobody will read.
    fn schedule_retention(&mut self, l: usize) {
        let log = &self.logs[l];
        let Some(age) = log.retention_us else {
            return;
        };
        let groups = &self.groups;
        let due = log
            .partitions
            .iter()
            .enumerate()
            .filter(|(p, part)| {
                groups
                    .iter()
                    .any(|g| g.log == l && g.committed.get(*p).is_some_and(|&c| c < part.end()))
            })
            .filter_map(|(_, part)| part.records.front())
            .map(|r| r.appended_us.saturating_add(age))
            .min();
        if due != log.retention_due_us {
            self.logs[l].retention_due_us = due;
            if let Some(at) = due {
                // Past already when a partition comes back into account (a commit after
                // a seek moved a group's committed offset back): it expires now.
                self.events.schedule(
                    at.max(self.now_us),
                    Event::RetentionDue { log: l as u32, at },
                );
            }
        }
    }

    /// Idle members start on their partitions' next records.
    pub(super) fn pump_group(&mut self, g: GroupId) {
        let group = &self.groups[g.index()];
        // Eager rebalancing stops the world; a cooperative one only stops moving partitions.
        let paused = group.rebalancing && group.rebalance == Rebalance::Eager;
        if paused || !self.broker_up {
            return;
        }
        // Retention is applied whenever the log is touched, so nothing expired is fetched.
        let (log, members) = (group.log, group.members.len());
        self.apply_retention(log);
        for m in 0..members {
            let group = &self.groups[g.index()];
            let member = &group.members[m];
            if !member.active() || member.working.is_some() {
                continue;
            }
            self.reset_positions(g, m as MemberId);
            self.step_over(g, m as MemberId);
            let group = &self.groups[g.index()];
            let member = &group.members[m];
            let log = &self.logs[group.log];
            let n = log.partitions.len();
            let start = member.next_partition;
            // read_committed stops at a record whose transaction is still open. A marker is
            // never fetched (`step_over` has moved past any at the position).
            let visible = |p: usize| {
                let part = &log.partitions[p];
                part.get(group.position[p]).is_some_and(|r| {
                    !r.is_marker() && (!group.read_committed || r.status == RecordStatus::Committed)
                })
            };
            let next = (0..n).map(|i| (start + i) % n).find(|&p| {
                group.owner[p] == Some(m as MemberId)
                    && !group.busy[p]
                    && !group.revoking[p]
                    && visible(p)
            });
            if let Some(p) = next {
                self.groups[g.index()].members[m].next_partition = p + 1;
                self.start_record(g, m as MemberId, p as u32);
            }
        }
        // Commits made here (before processing, aborted records stepped over) may leave
        // nothing for retention to take from the group.
        self.schedule_retention(log);
    }

    /// A member about to fetch from a partition whose position retention removed goes on
    /// as its group's `auto_offset_reset` says ([`Self::reset_offset`]). Its committed
    /// offset moves only when it next commits.
    fn reset_positions(&mut self, g: GroupId, m: MemberId) {
        let group = &self.groups[g.index()];
        let log = &self.logs[group.log];
        let removed: Vec<usize> = (0..group.owner.len())
            .filter(|&p| group.owner[p] == Some(m) && !group.busy[p])
            .filter(|&p| group.position[p] < log.partitions[p].start)
            .collect();
        for p in removed {
            let position = self.groups[g.index()].position[p];
            self.reset_offset(g, p, position, SkipReason::ResetToLatest);
        }
    }

    /// Kafka's `auto.offset.reset`, for partition `p` of group `g` whose position lies
    /// outside what the partition holds (retention removed it, or a seek asked for an
    /// offset before the log start or past the log end: the fetch fails with
    /// OFFSET_OUT_OF_RANGE): the position goes to the log start (`earliest`), or to the
    /// log end (`latest`), and then the records from `unread_from` (the position it had,
    /// or the log start if that is later) that the group had not read it never will:
    /// skipped, as `why`.
    fn reset_offset(&mut self, g: GroupId, p: usize, unread_from: u64, why: SkipReason) {
        let group = &self.groups[g.index()];
        let part = &self.logs[group.log].partitions[p];
        let (start, end) = (part.start, part.end());
        let to = match group.offset_reset {
            OffsetReset::Earliest => start,
            OffsetReset::Latest => {
                let from = unread_from.max(start);
                let (first, count) = {
                    let mut unread = part.messages_in(from, end);
                    (unread.next().map(|(_, m)| m), unread.count() as u64)
                };
                if let Some(first) = first {
                    self.counters.records_skipped += 1 + count;
                    self.facts.push(Fact::RecordsSkipped {
                        group: g,
                        partition: p as u32,
                        from,
                        to: end,
                        why,
                        first_msg: Some(first),
                    });
                    // Only the fetch position moves: should it move back before them
                    // (a crash before the next commit), they are read after all.
                    let group = &mut self.groups[g.index()];
                    let reads_from = group.settled[p].max(from);
                    group.reset_skips.push((p as u32, from, end, reads_from));
                }
                self.reads_passed(g, p, end);
                end
            }
        };
        self.groups[g.index()].position[p] = to;
    }

    fn start_record(&mut self, g: GroupId, m: MemberId, p: u32) {
        let group = &mut self.groups[g.index()];
        let offset = group.position[p as usize];
        let msg = self.logs[group.log].partitions[p as usize]
            .get(offset)
            .and_then(|r| r.message())
            .expect("position is at a retained message record");
        if group.commit == CommitMode::BeforeProcessing {
            group.commit(p as usize, offset + 1);
            self.counters.offsets_committed += 1;
            self.facts.push(Fact::OffsetCommitted {
                group: g,
                partition: p,
                offset: offset + 1,
            });
        }
        let group = &mut self.groups[g.index()];
        group.position[p as usize] = offset + 1;
        group.busy[p as usize] = true;
        let generation = group.generation;
        let service = group.service;
        let member = &mut group.members[m as usize];
        member.working = Some(Work {
            partition: p,
            offset,
            msg,
            generation,
            attempt: 1,
        });
        let incarnation = member.incarnation;
        let took_s = match service {
            ServiceTime::Fixed { seconds } => seconds,
            ServiceTime::Exponential { mean_s } => self.rng.exponential(mean_s),
        };
        let done_at_us = self.now_us.saturating_add(secs_to_us(took_s));
        self.events.schedule(
            done_at_us,
            Event::RecordDone {
                group: g,
                member: m,
                incarnation,
                partition: p,
                offset,
            },
        );
        self.facts.push(Fact::RecordStarted {
            group: g,
            member: m,
            partition: p,
            offset,
            msg,
            done_at_us,
        });
        self.arm_poll_interval(g, m, self.now_us);
        if let CommitMode::Auto { every_s } = self.groups[g.index()].commit {
            let group = &mut self.groups[g.index()];
            if !group.auto_commit_pending {
                group.auto_commit_pending = true;
                self.events.schedule(
                    self.now_us.saturating_add(secs_to_us(every_s)),
                    Event::AutoCommit { group: g },
                );
            }
        }
    }

    /// A member finished an attempt at a record: it failed, or its effect (or a stated
    /// skip) happened; then the partition moves on, unless the record is retried in place.
    pub(super) fn record_done(&mut self, g: GroupId, m: MemberId, _p: u32, _offset: u64) {
        let group = &mut self.groups[g.index()];
        let member = &mut group.members[m as usize];
        let work = member.working.take().expect("a live RecordDone has work");
        member.poll_due_us = None;
        let current = group.is_current(m, &work);
        match self.record_failure(g, work.msg) {
            Some(failure) => self.record_failed(g, m, work, current, failure),
            None => {
                self.handle_record(g, m, work);
                self.send_email(g, m, work.msg);
                if self.writes_output(g, current) && !self.broker_up {
                    // The output record waits for the broker: the member keeps the
                    // record in hand until then (`flush_unsent`).
                    self.hold_unsent(g, m, work, Unsent::Output);
                } else {
                    self.write_output(g, m, work.msg, current);
                    self.read_settled(g, work, super::log_jobs::Read::Finished);
                    self.finish_record(g, m, work, current);
                }
            }
        }
        self.drop_spared(g);
        self.rejoin_after_poll_interval(g, m, work);
        self.pump_group(g);
    }

    /// Member `m` keeps `work` in hand: the write it needs waits for the broker.
    pub(super) fn hold_unsent(&mut self, g: GroupId, m: MemberId, work: Work, unsent: Unsent) {
        let member = &mut self.groups[g.index()].members[m as usize];
        member.working = Some(work);
        member.unsent = Some(unsent);
    }

    /// The broker is back: each member holding a record whose write waited makes it now
    /// (an output record, inside its transaction if it has one; a dead-lettered record),
    /// and the record is finished, its offset committed as the group's mode says.
    pub(super) fn flush_unsent(&mut self, g: GroupId) {
        for m in 0..self.groups[g.index()].members.len() {
            let group = &mut self.groups[g.index()];
            let member = &mut group.members[m];
            let Some(unsent) = member.unsent.take() else {
                continue;
            };
            let Some(work) = member.working.take() else {
                continue;
            };
            let m = m as MemberId;
            let current = group.is_current(m, &work);
            match unsent {
                Unsent::Output => {
                    self.write_output(g, m, work.msg, current);
                    self.read_settled(g, work, super::log_jobs::Read::Finished);
                    self.finish_record(g, m, work, current);
                }
                // The group moved on meanwhile (a rewind, an eager round): as for any
                // failed attempt fetched before it, nothing is dead-lettered.
                Unsent::DeadLetter(_) if !current => {}
                Unsent::DeadLetter(reason) => self.give_up_record(g, m, work, reason),
            }
            self.rejoin_after_poll_interval(g, m, work);
        }
        self.drop_spared(g);
    }

    /// The handler's transaction: duplicate check, stale version, then the effect on the
    /// aggregate (a business rule may refuse it).
    fn handle_record(&mut self, g: GroupId, m: MemberId, work: Work) {
        self.counters.records_processed += 1;
        let created = self.messages[work.msg.index()].created_us;
        self.record_latencies.record(self.now_us - created);
        if !self.record_already_handled(g, m, work) {
            self.commit_record(g, m, work);
        }
    }

    /// Whether the group's tables show the record as a duplicate (a true one, or another
    /// message an inbox keyed by the entity takes for one), or (ignoring stale versions)
    /// as older than what they hold: then it is skipped, and says so.
    fn record_already_handled(&mut self, g: GroupId, m: MemberId, work: Work) -> bool {
        let table = self.group_table(g);
        let group = &self.groups[g.index()];
        let (idempotency, ordering) = (group.idempotency, group.ordering);
        let msg = work.msg;
        let message = &self.messages[msg.index()];
        let (producer, key, version) = (message.producer, message.key, message.version);
        let entity = group.inbox_entity(key);
        let tables = &self.tables[table];
        // The message whose row (or mark) the record hits, if any: itself, or, keyed by
        // the entity, whichever message took the key's row first.
        let row_taken_by = match (idempotency, entity) {
            (Idempotency::None, _) => None,
            (Idempotency::CheckThenInsert, _) => tables.processed.contains(&msg).then_some(msg),
            (Idempotency::Inbox, Some(k)) => tables.inbox_by_entity.get(&k).copied(),
            (Idempotency::Inbox, None) => tables.inbox.contains(&(producer, msg)).then_some(msg),
        };
        // Keyed by the entity, the row may belong to another message: the unique key
        // cannot tell, so this record is skipped as well, and its effect is never applied
        // (the group's email and output record still go out, as for a true duplicate).
        if let (Some(first), Some(k)) = (row_taken_by, entity) {
            if first != msg {
                self.counters.taken_for_duplicates += 1;
                self.facts.push(Fact::RecordTakenForDuplicate {
                    group: g,
                    member: m,
                    partition: work.partition,
                    offset: work.offset,
                    msg,
                    key: k,
                    first,
                });
                return true;
            }
        }
        if row_taken_by.is_some() {
            self.counters.duplicates_skipped += 1;
            self.facts.push(record_processed(g, m, work, 0));
            return true;
        }
        if let (Some(k), Ordering::IgnoreStale) = (key, ordering) {
            let current = tables.aggregate(k).version;
            if version <= current {
                self.counters.stale_ignored += 1;
                self.facts.push(Fact::RecordStaleIgnored {
                    group: g,
                    member: m,
                    msg,
                    key: k,
                    version,
                    current,
                });
                return true;
            }
        }
        false
    }

    /// One transaction: the idempotency mark, the effect and the aggregate's version.
    fn commit_record(&mut self, g: GroupId, m: MemberId, work: Work) {
        let table = self.group_table(g);
        let group = &self.groups[g.index()];
        let (idempotency, ordering) = (group.idempotency, group.ordering);
        let msg = work.msg;
        let message = &self.messages[msg.index()];
        let (producer, op, key, version) =
            (message.producer, message.op(), message.key, message.version);
        let entity = group.inbox_entity(key);
        let tables = &mut self.tables[table];
        match idempotency {
            Idempotency::None => {}
            Idempotency::CheckThenInsert => {
                tables.processed.insert(msg);
            }
            Idempotency::Inbox => tables.take_inbox_row((producer, msg), entity, msg),
        }
        let mut agg = key.map(|k| tables.aggregate(k)).unwrap_or_default();
        let ok = super::processing::apply(&mut agg, op);
        // A refused operation changes nothing, its version included.
        if let (Some(k), true) = (key, ok) {
            agg.version = if ordering == Ordering::None {
                version
            } else {
                agg.version.max(version)
            };
            tables.aggregates.insert(k, agg);
        }
        if let Some(k) = key {
            self.note_key_order(g, k, version);
        }
        if !ok {
            self.counters.effects_refused += 1;
            self.facts.push(Fact::RecordEffectRefused {
                group: g,
                member: m,
                partition: work.partition,
                offset: work.offset,
                msg,
                key: key.unwrap_or(0),
            });
            return;
        }
        let applied = self.count_effect(table, msg);
        self.facts.push(record_processed(g, m, work, applied));
        if self.member_acts_unauthorized(g, msg) {
            self.counters.unauthorized_effects += 1;
            self.tables[table].unauthorized += 1;
            self.facts.push(Fact::RecordUnauthorizedEffect {
                group: g,
                member: m,
                msg,
                producer: self.messages[msg.index()].producer,
            });
        }
    }

    /// Per-key order on a log: an effect reaching a key after a newer version of it.
    fn note_key_order(&mut self, g: GroupId, key: u32, version: u32) {
        let newest = self.groups[g.index()]
            .newest_version
            .entry(key)
            .or_insert(0);
        if version < *newest {
            self.counters.records_out_of_order += 1;
        } else {
            *newest = version;
        }
    }

    /// An effect outside the database: an email.
    fn send_email(&mut self, g: GroupId, m: MemberId, msg: MsgId) {
        let table = self.group_table(g);
        if self.groups[g.index()].sends_email {
            let times = self.tables[table].record_email(msg);
            self.counters.emails_sent += 1;
            self.facts.push(Fact::EmailSent {
                group: g,
                member: m,
                msg,
                times,
            });
        }
    }

    /// Whether the group writes an output record for a record it processed. A
    /// transactional zombie (fetched before a rebalance) is fenced: it writes nothing.
    fn writes_output(&self, g: GroupId, current: bool) -> bool {
        let group = &self.groups[g.index()];
        group.output.is_some() && (current || !group.transactional)
    }

    /// Read-process-write: the output record of a processed record.
    fn write_output(&mut self, g: GroupId, m: MemberId, msg: MsgId, current: bool) {
        let group = &self.groups[g.index()];
        if let Some(out) = group.output.filter(|_| self.writes_output(g, current)) {
            let open = group.transactional;
            let status = if open {
                RecordStatus::Open
            } else {
                RecordStatus::Committed
            };
            let (op, oo) = self.append_record(out, msg, status);
            if open {
                let member = &mut self.groups[g.index()].members[m as usize];
                member.txn_started_us.get_or_insert(self.now_us);
                member.txn.push((op, oo));
            }
            let log = out as u32;
            self.facts.push(Fact::OutputWritten {
                group: g,
                member: m,
                msg,
                log,
                partition: op,
                offset: oo,
                open,
            });
            if !open {
                self.log_changed(out);
            }
        }
    }

    /// The record is finished (done, skipped or dead-lettered): the partition moves on, the
    /// offset is committed as the group's commit mode says, and a partition being revoked
    /// is let go. Work fetched before a rebalance or rewind moves nothing.
    pub(super) fn finish_record(&mut self, g: GroupId, m: MemberId, work: Work, current: bool) {
        if !current {
            return;
        }
        let (p, offset) = (work.partition, work.offset);
        let group = &mut self.groups[g.index()];
        group.busy[p as usize] = false;
        group.position[p as usize] = group.position[p as usize].max(offset + 1);
        group.done_upto[p as usize] = group.done_upto[p as usize].max(offset + 1);
        if let Some(armed) = group.members[m as usize]
            .armed
            .filter(|a| a.point == MemberCrashPoint::AfterProcessBeforeCommit)
        {
            group.members[m as usize].armed = None;
            self.crash_member(g, m, armed.restart_after_us, armed.point, armed.trigger);
            return;
        }
        if group.commit == CommitMode::AfterProcessing && self.broker_up {
            // (With the broker down the commit, and the transaction with it, waits for
            // the restart: `resume_group_after_restart`.)
            group.commit(p as usize, offset + 1);
            self.counters.offsets_committed += 1;
            let offset = group.committed[p as usize];
            self.facts.push(Fact::OffsetCommitted {
                group: g,
                partition: p,
                offset,
            });
            // The output records and this offset commit together.
            self.end_transaction(g, m, true);
        }
        let group = &self.groups[g.index()];
        if group.revoking[p as usize] && group.owner[p as usize] == Some(m) {
            self.release_partition(g, p, m);
        }
    }

    /// Auto-commit: the current position of every partition becomes the committed offset,
    /// including records fetched but not yet processed.
    pub(super) fn auto_commit(&mut self, g: GroupId) {
        let group = &mut self.groups[g.index()];
        group.auto_commit_pending = false;
        let CommitMode::Auto { every_s } = group.commit else {
            return;
        };
        if group.rebalancing && group.rebalance == Rebalance::Eager {
            return;
        }
        // The group coordinator is a broker: with the broker down the commit fails; the
        // timer starts again when the broker is back (`resume_group_after_restart`).
        if !self.broker_up {
            return;
        }
        if self.commit_positions(g) {
            self.groups[g.index()].auto_commit_pending = true;
            self.events.schedule(
                self.now_us.saturating_add(secs_to_us(every_s)),
                Event::AutoCommit { group: g },
            );
        }
    }

    /// Commits the current position of every owned partition (see [`Self::auto_commit`]);
    /// whether any partition is still busy.
    pub(super) fn commit_positions(&mut self, g: GroupId) -> bool {
        if !self.broker_up {
            // No coordinator to commit to (as a rebalance starts, or the timer ticks).
            return self.groups[g.index()].busy.iter().any(|&b| b);
        }
        let group = &mut self.groups[g.index()];
        let mut more = false;
        for p in 0..group.position.len() {
            // A record retried in place was sought back to: the position is that record.
            let retrying = group
                .members
                .iter()
                .filter_map(|m| m.working)
                .find(|w| w.partition as usize == p && w.attempt > 1)
                .filter(|w| w.generation == group.generation)
                .map(|w| w.offset);
            let position = retrying.map_or(group.position[p], |o| {
                if group.sought[p] {
                    o
                } else {
                    o.max(group.committed[p])
                }
            });
            // A crashed member still in the group (its session not over) commits nothing,
            // nor does a static one past its poll interval (its generation is gone).
            let owner_up = group.owner[p].is_some_and(|o| group.members[o as usize].active());
            if owner_up && group.commit_moves(p, position) {
                group.commit(p, position);
                self.counters.offsets_committed += 1;
                self.facts.push(Fact::OffsetCommitted {
                    group: g,
                    partition: p as u32,
                    offset: position,
                });
            }
            more |= group.busy[p];
        }
        let log = self.groups[g.index()].log;
        self.schedule_retention(log);
        more
    }

    pub(super) fn crash_member(
        &mut self,
        g: GroupId,
        m: MemberId,
        restart_after_us: Option<Micros>,
        point: MemberCrashPoint,
        trigger: Trigger,
    ) {
        let down = self.take_member_down(g, m, restart_after_us);
        self.counters.member_crashes += 1;
        self.drop_spared(g);
        // A member that had left the group for its poll interval owns nothing: its crash
        // holds no session and starts no rebalance. A static one, no longer heartbeating,
        // is already in its session, which runs on.
        let stopped_heartbeats = self.groups[g.index()].members[m as usize].session_ends_at_us;
        let session_ends_at_us = match stopped_heartbeats {
            Some(at) if down.had_left => {
                self.hold_session_until(g, m, at);
                Some(at)
            }
            _ if down.had_left => None,
            _ => self.hold_session(g, m),
        };
        if session_ends_at_us.is_none() {
            self.orphan_partitions(g, m);
        }
        let hangs = self.transaction_hangs(g, m);
        if !hangs {
            self.end_transaction(g, m, false);
        }
        self.facts.push(Fact::MemberCrashed {
            group: g,
            member: m,
            point,
            trigger,
            restart_at_us: down.restart_at_us,
            session_ends_at_us,
        });
        if hangs {
            self.leave_transaction_open(g, m);
        }
        if let Some(at) = down.restart_at_us {
            let incarnation = down.incarnation;
            let restart = Event::RestartMember {
                group: g,
                member: m,
                incarnation,
            };
            self.events.schedule(at, restart);
        }
        match session_ends_at_us {
            Some(at) => self.schedule_session_timeout(g, m, at),
            None if down.had_left => {}
            None => self.start_rebalance(g),
        }
    }

    /// The member's process stops: what it had in hand is gone with it.
    fn take_member_down(
        &mut self,
        g: GroupId,
        m: MemberId,
        restart_after_us: Option<Micros>,
    ) -> MemberDown {
        let now = self.now_us;
        let member = &mut self.groups[g.index()].members[m as usize];
        member.up = false;
        member.incarnation += 1;
        member.working = None;
        member.poll_due_us = None;
        // A write waiting for the broker dies with the member: its record is read again.
        member.unsent = None;
        // A crash scheduled for its next record (`armed`) stays, as a consumer's does: it
        // strikes the member when it is back. An armed crash that strikes now was taken off
        // before this call, so it strikes once.
        let restart_at_us = restart_after_us.map(|d| now.saturating_add(d));
        member.restart_at_us = restart_at_us;
        MemberDown {
            had_left: std::mem::take(&mut member.out_of_group),
            restart_at_us,
            incarnation: member.incarnation,
        }
    }

    /// The session's end, `at`, comes as an event; one already past (it ran out while the
    /// broker was down, and waits for its restart) comes now.
    pub(super) fn schedule_session_timeout(&mut self, g: GroupId, m: MemberId, at: Micros) {
        let incarnation = self.groups[g.index()].members[m as usize].incarnation;
        self.events.schedule(
            at.max(self.now_us),
            Event::SessionTimeout {
                group: g,
                member: m,
                incarnation,
                at,
            },
        );
    }

    /// The broker is back, and with it the group coordinator, which knows nothing of the
    /// heartbeats it missed: each crashed member still in the group gets a whole session
    /// timeout again from now (Kafka's coordinator, loading a group, starts every member's
    /// session afresh). While the broker was down no session could time out.
    pub(super) fn restart_sessions(&mut self, g: GroupId) {
        let group = &mut self.groups[g.index()];
        let Some(timeout) = group.session_timeout_us else {
            return;
        };
        let at = self.now_us.saturating_add(timeout);
        let waiting: Vec<MemberId> = (0..group.members.len() as MemberId)
            .filter(|&m| group.members[m as usize].session_ends_at_us.is_some())
            .collect();
        for m in waiting {
            self.groups[g.index()].members[m as usize].session_ends_at_us = Some(at);
            self.schedule_session_timeout(g, m, at);
        }
    }

    /// With a session timeout, a member that crashed is still in the group until it runs
    /// out: the coordinator hears no heartbeat but waits. Its partitions stay its own,
    /// unread, and whatever it had fetched or finished without committing is gone with it.
    /// Returns when the session ends. A crash during a rebalance round leaves at once:
    /// the round cannot complete without it, and the lab does not make it wait.
    fn hold_session(&mut self, g: GroupId, m: MemberId) -> Option<Micros> {
        let group = &self.groups[g.index()];
        let timeout = group.session_timeout_us.filter(|_| !group.rebalancing)?;
        let at = self.now_us.saturating_add(timeout);
        self.hold_session_until(g, m, at);
        Some(at)
    }

    /// The crashed member stays in the group until `at`, its partitions idle.
    fn hold_session_until(&mut self, g: GroupId, m: MemberId, at: Micros) {
        let group = &mut self.groups[g.index()];
        group.members[m as usize].session_ends_at_us = Some(at);
        for p in 0..group.owner.len() {
            if group.owner[p] == Some(m) {
                group.busy[p] = false;
            }
        }
    }

    /// The crashed member's session ran out: the coordinator removes it, and the group
    /// rebalances its partitions to the members still up.
    pub(super) fn session_timed_out(&mut self, g: GroupId, m: MemberId) {
        if !self.broker_up {
            // No coordinator to time it out: its session starts again at the restart.
            return;
        }
        let member = &mut self.groups[g.index()].members[m as usize];
        member.session_ends_at_us = None;
        self.facts.push(Fact::MemberSessionTimedOut {
            group: g,
            member: m,
        });
        self.orphan_partitions(g, m);
        self.start_rebalance(g);
    }

    pub(super) fn add_member(&mut self, g: GroupId, trigger: Trigger) {
        let group = &mut self.groups[g.index()];
        if group.members.len() >= crate::scenario::limits::MEMBERS_MAX as usize {
            // Each rebalance costs members × partitions: the group stops growing here.
            return;
        }
        let m = group.members.len() as MemberId;
        let member = Member::new(&group.name, m);
        group.members.push(member);
        self.facts.push(Fact::MemberJoined {
            group: g,
            member: m,
            trigger,
        });
        self.start_rebalance(g);
    }

    pub(super) fn restart_member(&mut self, g: GroupId, m: MemberId, trigger: Trigger) {
        let member = &mut self.groups[g.index()].members[m as usize];
        member.up = true;
        member.restart_at_us = None;
        let in_session = member.session_ends_at_us.take().is_some();
        self.facts.push(Fact::MemberJoined {
            group: g,
            member: m,
            trigger,
        });
        self.fence_open_transaction(g, m);
        if in_session && self.groups[g.index()].owner.contains(&Some(m)) {
            self.resume_own_partitions(g, m);
        } else {
            self.start_rebalance(g);
        }
    }

    /// Back within its session, a static member (`group.instance.id`, KIP-345) gets its
    /// partitions back without a rebalance, from their committed offsets.
    pub(super) fn resume_own_partitions(&mut self, g: GroupId, m: MemberId) {
        let group = &mut self.groups[g.index()];
        let held: Vec<usize> = (0..group.owner.len())
            .filter(|&p| group.owner[p] == Some(m))
            .collect();
        for p in held {
            // What it had in hand there is done with: it reads from the commit again.
            self.groups[g.index()].busy[p] = false;
            self.resume_partition(g, p, Some(m));
        }
        self.pump_group(g);
    }

    /// Seek: every partition moves to `to` (its earliest retained record when `None`). A
    /// member up in the group seeks the partitions it holds, as `KafkaConsumer.seek` does:
    /// their positions move, and their committed offsets with the member's next commit (a
    /// crash before it resumes them at the last commit). An offset outside what such a
    /// partition holds (before its log start, or past its log end; the end itself is
    /// valid) makes the member's next fetch fail with OFFSET_OUT_OF_RANGE, and the group's
    /// `auto_offset_reset` moves it ([`Self::reset_offset`], applied here rather than at
    /// that fetch: the same unless the log grows to the offset in between). A partition no
    /// such member holds (mid-rebalance, or its member down) has its committed offset
    /// reset instead, as `kafka-consumer-groups --reset-offsets` would, clamped to what the
    /// partition holds, so that it starts there too. Work in progress finishes but no
    /// longer moves the group's offsets.
    pub(super) fn rewind_group(&mut self, g: GroupId, to: Option<u64>, trigger: Trigger) {
        let log = self.groups[g.index()].log;
        let bounds: Vec<(u64, u64)> = self.logs[log]
            .partitions
            .iter()
            .map(|p| (p.start, p.end()))
            .collect();
        let starts: Vec<u64> = bounds
            .iter()
            .map(|&(start, end)| to.map_or(start, |o| o.clamp(start, end)))
            .collect();
        let outside: Vec<bool> = bounds
            .iter()
            .map(|&(start, end)| to.is_some_and(|o| o < start || o > end))
            .collect();
        let group = &self.groups[g.index()];
        let held: Vec<bool> = (0..starts.len())
            .map(|p| group.owner[p].is_some_and(|o| group.members[o as usize].active()))
            .collect();
        // Held partitions the seek put out of range, with the position each had: the
        // records from there on are what the group had not read.
        let out_of_range: Vec<(usize, u64)> = (0..starts.len())
            .filter(|&p| held[p] && outside[p])
            .map(|p| (p, group.position[p]))
            .collect();
        let clamped = (0..starts.len())
            .filter(|&p| !held[p] && outside[p])
            .count() as u32;
        // Records a reset to the log end skipped that the seek moves back before are
        // read after all.
        for (p, &start) in starts.iter().enumerate() {
            self.undo_reset_skips(g, p, start);
        }
        // A reset past records the group has not read: it never will. (Past a member's
        // seek they are settled once it reads on from there: `read_settled`.)
        for (p, &start) in starts.iter().enumerate() {
            if !held[p] {
                self.reads_passed(g, p, start);
            }
        }
        let group = &mut self.groups[g.index()];
        group.generation += 1;
        for (p, start) in starts.into_iter().enumerate() {
            if held[p] {
                group.sought[p] = true;
            } else {
                group.committed[p] = start;
                group.sought[p] = false;
            }
            group.position[p] = start;
            group.done_upto[p] = start;
            group.busy[p] = false;
        }
        self.facts.push(Fact::GroupRewound {
            group: g,
            to_offset: to,
            trigger,
            reset: held.iter().filter(|&&h| !h).count() as u32,
        });
        if let Some(offset) = to.filter(|_| !out_of_range.is_empty() || clamped > 0) {
            self.facts.push(Fact::SeekOutOfRange {
                group: g,
                offset,
                by_policy: out_of_range.len() as u32,
                reset: self.groups[g.index()].offset_reset,
                clamped,
            });
        }
        for (p, position) in out_of_range {
            self.reset_offset(g, p, position, SkipReason::SeekOutOfRange);
            let group = &mut self.groups[g.index()];
            group.done_upto[p] = group.position[p];
        }
        // Work in progress no longer commits, so a partition being revoked goes now.
        for p in 0..self.groups[g.index()].owner.len() {
            let group = &self.groups[g.index()];
            if let (true, Some(owner)) = (group.revoking[p], group.owner[p]) {
                self.release_partition(g, p as u32, owner);
            }
        }
        self.pump_group(g);
    }
}

/// The fact that member `m` of group `g` processed `work`, its effect now applied
/// `applied` times (0: skipped as a duplicate).
/// A crashed member, as its crash left it.
struct MemberDown {
    /// It had left its group (its poll interval passed) before the crash.
    had_left: bool,
    restart_at_us: Option<Micros>,
    incarnation: u32,
}

fn record_processed(g: GroupId, m: MemberId, work: Work, applied: u32) -> Fact {
    Fact::RecordProcessed {
        group: g,
        member: m,
        partition: work.partition,
        offset: work.offset,
        msg: work.msg,
        applied,
    }
}
