//! Consumer group rebalances. Eager: every partition is revoked and the group pauses;
//! a member rejoins at its next poll, so one with a record in hand finishes and commits it
//! first, and the round waits for it. Cooperative (Kafka's KIP-429, the default): only
//! partitions that move are revoked; their owner finishes and commits the record in hand
//! before letting go, and the others keep flowing.

use super::Simulation;
use crate::engine::Event;
use crate::log::Partition;
use crate::scenario::{CommitMode, Rebalance};
use crate::step::{Fact, GroupId, MemberId, MsgId, SkipReason};
use crate::time::secs_to_us;

impl Simulation {
    /// Membership (or the partition count) changed: the group rebalances.
    pub(super) fn start_rebalance(&mut self, g: GroupId) {
        let group = &self.groups[g.index()];
        if matches!(group.commit, CommitMode::Auto { .. }) {
            // A client with auto-commit commits its positions before it rejoins (Kafka's
            // `ConsumerCoordinator.onJoinPrepare`, under either protocol: every member
            // rejoins, cooperative or eager): what the members still up have fetched is
            // not read again, on the partitions they keep as on those that move. A
            // crashed member's partitions were orphaned before: it commits nothing.
            self.commit_positions(g);
        }
        let group = &mut self.groups[g.index()];
        let partitions = group.owner.len();
        group.revoking.resize(partitions, false);
        group.target.resize(partitions, None);
        group.round += 1;
        group.round_waiting = false;
        group.rebalancing = true;
        let eager = group.rebalance == Rebalance::Eager;
        let members_up = group.members.iter().filter(|m| m.active()).count() as u32;
        let round = group.round;
        let at = self.now_us.saturating_add(group.rebalance_us);
        self.counters.rebalances += 1;
        self.facts.push(Fact::RebalanceStarted {
            group: g,
            members_up,
        });
        if eager {
            self.revoke_all(g);
        } else {
            self.revoke_moving(g);
        }
        self.events.schedule(
            at,
            Event::RebalanceDone {
                group: g,
                generation: round,
            },
        );
    }

    /// Eager: every partition is revoked and nothing more is fetched until the round
    /// completes. A member rejoins at its next poll, so one with a record in hand finishes
    /// and commits it first, and the round waits for it (`round_waiting`); idle
    /// partitions go at once.
    fn revoke_all(&mut self, g: GroupId) {
        for p in 0..self.groups[g.index()].owner.len() {
            let group = &mut self.groups[g.index()];
            let Some(owner) = group.owner[p] else {
                continue;
            };
            let finishing = self.finishing_on(g, p, owner);
            let group = &mut self.groups[g.index()];
            match finishing {
                Some(offset) if !group.revoking[p] => {
                    group.revoking[p] = true;
                    self.facts.push(Fact::PartitionRevoked {
                        group: g,
                        partition: p as u32,
                        member: owner,
                        finishing: Some(offset),
                    });
                }
                Some(_) => {} // already on its way out
                None => {
                    group.owner[p] = None;
                    group.busy[p] = false;
                    group.revoking[p] = false;
                }
            }
        }
    }

    /// The offset member `owner` still works on in partition `p` and will commit, if any:
    /// work of the current generation, by a member in the group (one past its poll
    /// interval can commit nothing).
    fn finishing_on(&self, g: GroupId, p: usize, owner: MemberId) -> Option<u64> {
        let group = &self.groups[g.index()];
        let member = &group.members[owner as usize];
        member
            .working
            .filter(|w| w.partition as usize == p && w.generation == group.generation)
            .filter(|_| member.active())
            .map(|w| w.offset)
    }

    /// Cooperative: the new sticky assignment is decided now; each partition whose owner
    /// changes is revoked (let go at once if idle, after its record otherwise).
    fn revoke_moving(&mut self, g: GroupId) {
        let target = self.groups[g.index()].sticky_assign();
        for (p, &to) in target.iter().enumerate() {
            let group = &mut self.groups[g.index()];
            let Some(owner) = group.owner[p] else {
                continue;
            };
            if to == Some(owner) {
                group.revoking[p] = false;
                continue;
            }
            if group.revoking[p] {
                continue; // already on its way out
            }
            group.revoking[p] = true;
            // A static member past its poll interval cannot commit what it finishes: its
            // partition goes now.
            let finishing = self.finishing_on(g, p, owner);
            self.facts.push(Fact::PartitionRevoked {
                group: g,
                partition: p as u32,
                member: owner,
                finishing,
            });
            if finishing.is_none() {
                self.release_partition(g, p as u32, owner);
            }
        }
        self.groups[g.index()].target = target;
    }

    /// The owner lets a partition go, committing what it finished on it first (as a
    /// `ConsumerRebalanceListener.onPartitionsRevoked` that commits does). After the
    /// rebalance round, the partition goes straight to its new owner.
    pub(super) fn release_partition(&mut self, g: GroupId, p: u32, m: MemberId) {
        let group = &mut self.groups[g.index()];
        let i = p as usize;
        group.revoking[i] = false;
        group.owner[i] = None;
        group.busy[i] = false;
        let done = group.done_upto[i];
        // With the broker down the commit fails, and a member that crashed (its session
        // not yet over) or that passed its poll interval commits nothing: the next owner
        // starts at the last commit.
        if group.commit != CommitMode::BeforeProcessing
            && group.commit_moves(i, done)
            && self.broker_up
            && group.members[m as usize].active()
        {
            group.commit(i, done);
            self.counters.offsets_committed += 1;
            self.facts.push(Fact::OffsetCommitted {
                group: g,
                partition: p,
                offset: done,
            });
        }
        let committed = self.groups[g.index()].committed[i];
        self.facts.push(Fact::PartitionReleased {
            group: g,
            partition: p,
            member: m,
            committed,
        });
        let group = &self.groups[g.index()];
        if !group.rebalancing {
            let to = group.target[i].filter(|&t| group.members[t as usize].active());
            self.resume_partition(g, i, to);
        }
        self.complete_waiting_round(g);
    }

    /// An eager round whose time is up completes once no member still finishes a record
    /// (it let go, crashed or left the group).
    pub(super) fn complete_waiting_round(&mut self, g: GroupId) {
        let group = &self.groups[g.index()];
        if group.rebalancing && group.round_waiting && !group.revoking.iter().any(|&r| r) {
            self.rebalance_done(g);
        }
    }

    /// The rebalance round completes. Eager: every partition goes to its owner under the
    /// group's strategy and resumes from its committed offset (re-reading what was
    /// processed but not committed). Cooperative: partitions already let go go to their
    /// new owners; the ones still being finished follow when their owner lets go.
    pub(super) fn rebalance_done(&mut self, g: GroupId) {
        if !self.broker_up {
            // The group coordinator is a broker: the round completes after the restart
            // (`resume_group_after_restart` starts its clock again).
            return;
        }
        let partitions = self.logs[self.groups[g.index()].log].partitions.len();
        let group = &mut self.groups[g.index()];
        if group.rebalance == Rebalance::Eager && group.revoking.iter().any(|&r| r) {
            // A member still finishes the record in hand: it has not rejoined yet.
            group.round_waiting = true;
            return;
        }
        group.round_waiting = false;
        group.rebalancing = false;
        if group.rebalance == Rebalance::Eager {
            // Work fetched before the round (by a member out of the group) commits nothing.
            group.generation += 1;
        }
        let owners = match group.rebalance {
            Rebalance::Eager => group.assign(partitions as u32),
            Rebalance::Cooperative => group.target.clone(),
        };
        for (p, owner) in owners.into_iter().enumerate() {
            let group = &self.groups[g.index()];
            let eager = group.rebalance == Rebalance::Eager;
            if eager || (group.owner[p].is_none() && !group.revoking[p]) {
                let owner = owner.filter(|&o| group.members[o as usize].active());
                self.resume_partition(g, p, owner);
            }
        }
        self.pump_group(g);
    }

    /// A partition gets its owner (or none) and resumes at its committed offset.
    pub(super) fn resume_partition(&mut self, g: GroupId, p: usize, owner: Option<MemberId>) {
        let group = &mut self.groups[g.index()];
        group.owner[p] = owner;
        let (committed, done) = (group.committed[p], group.done_upto[p]);
        // A record a member still up works on (fetched before an eager rebalance, its
        // offset committed before processing or as the member rejoined) is not skipped:
        // nobody reads it again, but that member finishes it.
        let mut in_hand: Vec<u64> = group
            .members
            .iter()
            .filter_map(|m| m.working)
            .filter(|w| w.partition as usize == p && (done..committed).contains(&w.offset))
            .map(|w| w.offset)
            .collect();
        in_hand.sort_unstable();
        in_hand.dedup();
        // Kafka's reset to the log end moved only the fetch position: what it skipped
        // from the committed offset on is read again now.
        self.undo_reset_skips(g, p, committed);
        self.reads_passed(g, p, committed);
        let group = &self.groups[g.index()];
        // After a seek back, the records up to the last commit were read before it: the
        // replay the seek began stops, and nothing is skipped unread.
        let skipped = if group.sought[p] {
            None
        } else {
            skipped_by_commit(
                &self.logs[group.log].partitions[p],
                done,
                committed,
                &in_hand,
            )
        };
        if let Some((from, first_msg, count)) = skipped {
            self.counters.records_skipped += count;
            self.facts.push(Fact::RecordsSkipped {
                group: g,
                partition: p as u32,
                from,
                to: committed,
                why: SkipReason::CommittedBeforeProcessing,
                first_msg,
            });
        }
        let group = &mut self.groups[g.index()];
        group.position[p] = committed;
        group.done_upto[p] = committed;
        group.sought[p] = false;
        self.facts.push(Fact::PartitionAssigned {
            group: g,
            partition: p as u32,
            member: owner,
            from_offset: committed,
        });
        self.note_stale_work(g, p);
    }

    /// A member still working on a record of partition `p` fetched before the rebalance
    /// (eager) or a rewind is said so, next to the partition's new assignment.
    fn note_stale_work(&mut self, g: GroupId, p: usize) {
        let group = &self.groups[g.index()];
        let stale = group.members.iter().enumerate().find_map(|(i, m)| {
            m.working
                .filter(|w| w.partition as usize == p && w.generation != group.generation)
                .map(|w| (i as MemberId, w.offset))
        });
        if let Some((member, offset)) = stale {
            self.facts.push(Fact::StaleWorkInProgress {
                group: g,
                partition: p as u32,
                member,
                offset,
                again: group.committed[p] <= offset,
            });
        }
    }

    /// Cooperative: a crashed member's partitions are orphaned at once (nobody finishes
    /// them); the rebalance gives them to live members.
    pub(super) fn orphan_partitions(&mut self, g: GroupId, m: MemberId) {
        let group = &mut self.groups[g.index()];
        for p in 0..group.owner.len() {
            if group.owner[p] == Some(m) {
                group.owner[p] = None;
                group.busy[p] = false;
                group.revoking[p] = false;
            }
        }
    }
}

impl Simulation {
    /// The broker is back, and with it the group coordinator: a rebalance round that
    /// could not complete while it was down takes its time again from now, and each
    /// member still up commits what it finished on its partitions meanwhile (a
    /// `commitSync` retried until the broker answers), its transaction with it. A member
    /// that crashed while the broker was down commits nothing: its partitions resume at
    /// their last commit, and what it finished since is read again (so does a partition
    /// that left its member meanwhile, whose transaction then aborts).
    pub(super) fn resume_group_after_restart(&mut self, g: GroupId) {
        self.restart_sessions(g);
        let group = &self.groups[g.index()];
        if group.rebalancing {
            let (at, round) = (self.now_us.saturating_add(group.rebalance_us), group.round);
            self.events.schedule(
                at,
                Event::RebalanceDone {
                    group: g,
                    generation: round,
                },
            );
        }
        let group = &mut self.groups[g.index()];
        if let CommitMode::Auto { every_s } = group.commit {
            let behind = (0..group.owner.len())
                .any(|p| group.owner[p].is_some() && group.commit_moves(p, group.position[p]));
            if behind && !group.auto_commit_pending {
                group.auto_commit_pending = true;
                self.events.schedule(
                    self.now_us.saturating_add(secs_to_us(every_s)),
                    Event::AutoCommit { group: g },
                );
            }
            return;
        }
        if group.commit != CommitMode::AfterProcessing {
            return;
        }
        for p in 0..group.owner.len() {
            let group = &mut self.groups[g.index()];
            let Some(m) = group.owner[p] else {
                continue;
            };
            // A member down, or past its poll interval (static, still owning), commits
            // nothing.
            let done = group.done_upto[p];
            if !group.commit_moves(p, done) || !group.members[m as usize].active() {
                continue;
            }
            group.commit(p, done);
            self.counters.offsets_committed += 1;
            let offset = group.committed[p];
            self.facts.push(Fact::OffsetCommitted {
                group: g,
                partition: p as u32,
                offset,
            });
            self.end_transaction(g, m, true);
        }
        // A transaction still open by a member up belongs to a record whose partition
        // left it while the broker was down (revoked, or every partition under an eager
        // round): its offset cannot commit with it, the next owner reads the record
        // again, so it aborts. One a crashed member left open waits for its timeout.
        for m in 0..self.groups[g.index()].members.len() {
            let member = &self.groups[g.index()].members[m];
            if member.up && !member.txn.is_empty() {
                self.end_transaction(g, m as MemberId, false);
            }
        }
        self.abort_timed_out_transactions(g);
    }
}

/// What a commit to `committed` passed over in `part` from `done`, with no member holding
/// it (`in_hand`): the first such offset, its message if retention kept it, and how many
/// records there are. Offsets retention already removed are counted, not walked (they may
/// be many); of those still there only message records count (a marker holds nothing to
/// read).
fn skipped_by_commit(
    part: &Partition,
    done: u64,
    committed: u64,
    in_hand: &[u64],
) -> Option<(u64, Option<MsgId>, u64)> {
    let gone_to = committed.min(part.start).max(done);
    let gone = gone_to - done - in_hand.iter().filter(|&&o| o < gone_to).count() as u64;
    let gone_first = (done..gone_to).find(|o| !in_hand.contains(o));
    let mut kept = part
        .messages_in(done, committed)
        .filter(|(o, _)| !in_hand.contains(o));
    match gone_first {
        Some(from) => Some((from, None, gone + kept.count() as u64)),
        None => kept
            .next()
            .map(|(from, msg)| (from, Some(msg), 1 + kept.count() as u64)),
    }
}
