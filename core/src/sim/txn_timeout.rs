//! Kafka's `transaction.timeout.ms`: a transactional member that crashes with its
//! transaction open does not abort it; nobody can. Its output records stay open, neither
//! visible nor aborted, and a `read_committed` reader of their partition stops before the
//! first of them (the partition's last stable offset), committed records of other members
//! included. The transaction coordinator aborts it once the timeout has run from the
//! transaction's start, or sooner when the member comes back: a producer that starts with
//! the same `transactional.id` (`initTransactions`) fences the old one and aborts what it
//! left open. Without the group's setting the lab aborts the transaction at the crash.

use super::Simulation;
use crate::engine::Event;
use crate::step::{Fact, GroupId, MemberId};
use crate::time::Micros;

impl Simulation {
    /// Whether member `m`, crashing now, leaves its transaction open: the group has a
    /// transaction timeout and the member has output records in an open transaction.
    pub(super) fn transaction_hangs(&self, g: GroupId, m: MemberId) -> bool {
        let group = &self.groups[g.index()];
        group.transaction_timeout_us.is_some() && !group.members[m as usize].txn.is_empty()
    }

    /// The crashed member's transaction stays open until the coordinator's timeout.
    pub(super) fn leave_transaction_open(&mut self, g: GroupId, m: MemberId) {
        let group = &self.groups[g.index()];
        let member = &group.members[m as usize];
        let (Some(timeout), Some(started)) = (group.transaction_timeout_us, member.txn_started_us)
        else {
            return;
        };
        let aborts_at_us = started.saturating_add(timeout).max(self.now_us);
        self.facts.push(Fact::TransactionLeftOpen {
            group: g,
            member: m,
            outputs: member.txn.len() as u32,
            aborts_at_us,
        });
        self.events.schedule(
            aborts_at_us,
            Event::TransactionTimeout {
                group: g,
                member: m,
                started,
            },
        );
    }

    /// The open transaction of a crashed member reached its timeout: the coordinator
    /// aborts it. With the broker (the coordinator) down it waits for the restart
    /// (`abort_timed_out_transactions`).
    pub(super) fn transaction_timed_out(&mut self, g: GroupId, m: MemberId) {
        if !self.broker_up {
            return;
        }
        self.facts.push(Fact::TransactionTimedOut {
            group: g,
            member: m,
        });
        self.end_transaction(g, m, false);
    }

    /// A crashed member is back with the same `transactional.id`: its producer's start
    /// fences the old one and aborts the transaction it left open.
    /// With the broker down the start waits for it, and the transaction aborts at the
    /// broker's restart with the others of members up (`resume_group_after_restart`).
    pub(super) fn fence_open_transaction(&mut self, g: GroupId, m: MemberId) {
        if !self.broker_up || self.groups[g.index()].members[m as usize].txn.is_empty() {
            return;
        }
        self.facts.push(Fact::TransactionFenced {
            group: g,
            member: m,
        });
        self.end_transaction(g, m, false);
    }

    /// The broker is back: the open transaction of a crashed member whose timeout ran out
    /// while it was down is aborted now; the others keep waiting for theirs.
    pub(super) fn abort_timed_out_transactions(&mut self, g: GroupId) {
        let group = &self.groups[g.index()];
        let Some(timeout) = group.transaction_timeout_us else {
            return;
        };
        let now = self.now_us;
        let due: Vec<MemberId> = (0..group.members.len() as MemberId)
            .filter(|&m| {
                let member = &group.members[m as usize];
                !member.up
                    && member
                        .txn_started_us
                        .is_some_and(|t| t.saturating_add(timeout) <= now)
            })
            .collect();
        for m in due {
            self.transaction_timed_out(g, m);
        }
    }

    /// When a crashed member's open transaction will be aborted, if it is open.
    pub(super) fn open_transaction_aborts_at(&self, g: GroupId, m: MemberId) -> Option<Micros> {
        let group = &self.groups[g.index()];
        let member = &group.members[m as usize];
        if member.up || member.txn.is_empty() {
            return None;
        }
        let started = member.txn_started_us?;
        Some(started.saturating_add(group.transaction_timeout_us?))
    }
}
