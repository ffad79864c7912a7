//! Kafka's `max.poll.interval.ms`: a member that works on the record it fetched for
//! longer than the group's poll interval, without polling again, leaves the group (its
//! client's heartbeat thread sends the leave). The group rebalances the member's
//! partitions, and their next owner reads the record again from the last commit. The
//! slow member finishes the record all the same, so its effect happens twice unless the
//! handler is idempotent; its commit then fails (`CommitFailedException`), and its next
//! poll rejoins the group, which rebalances again.
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
    /// (nothing is committed for them) and the group rebalances them to the others.
    fn leave_for_poll_interval(&mut self, g: GroupId, m: MemberId) {
        let group = &mut self.groups[g.index()];
        let interval_us = group.max_poll_interval_us.unwrap_or_default();
        let member = &mut group.members[m as usize];
        member.poll_due_us = None;
        let Some(work) = member.working else {
            return;
        };
        member.out_of_group = true;
        let again = group.committed[work.partition as usize] <= work.offset;
        self.facts.push(Fact::PollIntervalExceeded {
            group: g,
            member: m,
            partition: work.partition,
            offset: work.offset,
            msg: work.msg,
            interval_us,
            again,
        });
        self.orphan_partitions(g, m);
        self.start_rebalance(g);
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
        self.facts.push(Fact::CommitFailed {
            group: g,
            member: m,
            partition: work.partition,
            offset: work.offset,
            msg: work.msg,
        });
        self.start_rebalance(g);
    }
}
