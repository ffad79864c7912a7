//! Kafka's `max.poll.interval.ms`: a member that works on the record it fetched for
//! longer than the group's poll interval, without polling again, leaves the group (its
//! client's heartbeat thread sends the leave). The group rebalances the member's
//! partitions, and their next owner reads the record again from the last commit. The
//! slow member finishes the record all the same, so its effect happens twice unless the
//! handler is idempotent; its commit then fails (`CommitFailedException`), and its next
//! poll rejoins the group, which rebalances again.
//!
//! A static member (the lab's members are static once their group has a session
//! timeout: one restarted within its session resumes without a rebalance) sends no
//! leave: it only stops heartbeating. Its partitions stay its own, unread, until its
//! session runs out, when the coordinator removes it and the group rebalances; if it
//! polls again first, its commit still fails, and it rejoins as itself, without a
//! rebalance, reading its partitions again from their last commit.
//!
//! Each member has at most one timer pending (`Member::poll_timer_at`): a record that
//! starts later moves the deadline (`Member::poll_due_us`), and the timer, when it comes,
//! sets itself again at the new deadline. One timer per record would keep every record's
//! timer in the queue for the whole interval, long after its record was done. With no
//! record in hand the timer is moot and leaves the queue (`timer_dropped`), so an idle
//! member's timer never moves the clock.

use super::Simulation;
use crate::engine::Event;
use crate::log::Work;
use crate::step::{Fact, GroupId, MemberId};
use crate::time::Micros;

impl Simulation {
    /// Member `m` polled (fetched a record, or will retry one at `from_us`): it must poll
    /// again within the group's poll interval from then.
    pub(super) fn arm_poll_interval(&mut self, g: GroupId, m: MemberId, from_us: Micros) {
        let group = &mut self.groups[g.index()];
        let Some(interval) = group.max_poll_interval_us else {
            return;
        };
        let due = from_us.saturating_add(interval);
        let member = &mut group.members[m as usize];
        member.poll_due_us = Some(due);
        if member.poll_timer_at.is_some_and(|t| t <= due) {
            return; // the pending timer moves itself on to `due` when it comes
        }
        self.set_poll_timer(g, m, due);
    }

    /// The member's one pending poll timer, for `due`.
    fn set_poll_timer(&mut self, g: GroupId, m: MemberId, due: Micros) {
        self.groups[g.index()].members[m as usize].poll_timer_at = Some(due);
        let timer = Event::PollIntervalExceeded {
            group: g,
            member: m,
            at: due,
        };
        self.events.schedule(due, timer);
    }

    /// The member's poll timer: past its deadline with the record still in hand, it leaves
    /// the group; with a later deadline (it polled since), the timer waits for that one.
    pub(super) fn poll_timer_due(&mut self, g: GroupId, m: MemberId) {
        let now = self.now_us;
        let member = &mut self.groups[g.index()].members[m as usize];
        member.poll_timer_at = None;
        match member.poll_due_us {
            Some(due) if due > now => self.set_poll_timer(g, m, due),
            Some(_) if member.active() => self.leave_for_poll_interval(g, m),
            _ => {}
        }
    }

    /// A moot timer left the queue: if it was the member's pending one, the member has
    /// none now, and its next poll sets one.
    pub(super) fn timer_dropped(&mut self, event: &Event) {
        if let Event::PollIntervalExceeded { group, member, at } = *event {
            let m = &mut self.groups[group.index()].members[member as usize];
            if m.poll_timer_at == Some(at) {
                m.poll_timer_at = None;
            }
        }
    }

    /// The member leaves the group with its record in hand: its partitions are orphaned
    /// (nothing is committed for them) and the group rebalances them to the others. A
    /// static member only stops heartbeating: its session timeout starts.
    fn leave_for_poll_interval(&mut self, g: GroupId, m: MemberId) {
        let group = &mut self.groups[g.index()];
        let interval_us = group.max_poll_interval_us.unwrap_or_default();
        let member = &mut group.members[m as usize];
        member.poll_due_us = None;
        let Some(work) = member.working else {
            return;
        };
        let current = group.is_current(m, &work);
        group.members[m as usize].out_of_group = true;
        let again = group.committed[work.partition as usize] <= work.offset;
        // A round in progress cannot wait for a member that stopped heartbeating: it
        // leaves at once, as a crash during a round does (`hold_session`).
        let session_ends_at_us = group
            .session_timeout_us
            .filter(|_| !group.rebalancing)
            .map(|timeout| self.now_us.saturating_add(timeout));
        group.members[m as usize].session_ends_at_us = session_ends_at_us;
        self.facts.push(Fact::PollIntervalExceeded {
            group: g,
            member: m,
            partition: work.partition,
            offset: work.offset,
            msg: work.msg,
            interval_us,
            again,
            session_ends_at_us,
        });
        match session_ends_at_us {
            Some(at) => {
                // Its partition is idle for the group: nothing it finishes there counts.
                // (Work fetched before a rebalance is on a partition it may no longer own.)
                if current {
                    self.groups[g.index()].busy[work.partition as usize] = false;
                }
                self.schedule_session_timeout(g, m, at);
            }
            None => {
                self.orphan_partitions(g, m);
                self.start_rebalance(g);
            }
        }
    }

    /// The member is done with the record it had when it left the group (finished, failed
    /// or given up): its commit fails, and its next poll rejoins the group. A member still
    /// in its group, or still holding the record (a write waits for the broker), does
    /// nothing here.
    pub(super) fn rejoin_after_poll_interval(&mut self, g: GroupId, m: MemberId, work: Work) {
        let member = &mut self.groups[g.index()].members[m as usize];
        if !member.out_of_group || member.working.is_some() {
            return;
        }
        member.out_of_group = false;
        let in_session = member.session_ends_at_us.take().is_some();
        // Its partitions may have gone to others meanwhile (a rebalance it took no part
        // in): then, as when it left, joining takes a round.
        let group = &self.groups[g.index()];
        let in_session = in_session && group.owner.contains(&Some(m));
        self.facts.push(Fact::CommitFailed {
            group: g,
            member: m,
            partition: work.partition,
            offset: work.offset,
            msg: work.msg,
            in_session,
        });
        if in_session {
            self.resume_own_partitions(g, m);
        } else {
            self.start_rebalance(g);
        }
    }
}
