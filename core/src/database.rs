//! The consumers' database: per queue (one consumer group per queue), the effects table
//! (how many times each message's effect really happened), the idempotency marks, the
//! inbox, and the aggregates the effects change.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

use crate::step::{MsgId, ProducerId};

/// State of one aggregate (an account, an order…).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Aggregate {
    /// `count += 1` effects applied.
    pub count: u64,
    /// `status = done` was set.
    pub status_done: bool,
    pub balance: i64,
    /// Version of the last message applied (0 = none yet).
    pub version: u32,
}

/// How many times something happened per message, for the messages still held; a
/// message's count is folded into the totals when the message is released (nothing can
/// happen to it any more), so the totals cover the whole run. A hash map, not an
/// ordered one: every processed message adds and later folds an entry, and the ordered
/// map's search was a visible share of a step; `iter` sorts instead.
#[derive(Clone, Debug, Default)]
pub struct PerMessage {
    counts: HashMap<MsgId, u32, crate::hash::IdHash>,
    /// Of released messages: every occurrence, and those beyond each message's first.
    folded: u64,
    folded_extra: u64,
}

impl PerMessage {
    pub fn get(&self, msg: MsgId) -> u32 {
        self.counts.get(&msg).copied().unwrap_or(0)
    }

    /// One more for `msg`; returns its count now.
    fn add(&mut self, msg: MsgId) -> u32 {
        let n = self.counts.entry(msg).or_insert(0);
        *n += 1;
        *n
    }

    /// Folds `msg`'s count into the totals and forgets it.
    fn fold(&mut self, msg: MsgId) {
        if let Some(n) = self.counts.remove(&msg) {
            self.folded += u64::from(n);
            self.folded_extra += u64::from(n.saturating_sub(1));
        }
    }

    /// Counts of the messages still held, in id order (zeros left out).
    pub fn iter(&self) -> impl Iterator<Item = (MsgId, u32)> + '_ {
        let mut counts: Vec<(MsgId, u32)> = self.counts.iter().map(|(&m, &n)| (m, n)).collect();
        counts.sort_unstable();
        counts.into_iter()
    }

    /// Counts of the messages still held, in no particular order (no sort: for readers
    /// that only add them up or pick a few).
    pub fn iter_unordered(&self) -> impl Iterator<Item = (MsgId, u32)> + '_ {
        self.counts.iter().map(|(&m, &n)| (m, n))
    }

    /// Occurrences over the whole run.
    pub fn total(&self) -> u64 {
        self.folded + self.counts.values().map(|&n| u64::from(n)).sum::<u64>()
    }

    /// Occurrences beyond each message's first, over the whole run.
    pub fn extra(&self) -> u64 {
        self.folded_extra
            + self
                .counts
                .values()
                .map(|&n| u64::from(n.saturating_sub(1)))
                .sum::<u64>()
    }
}

/// One consumer group's tables.
#[derive(Clone, Debug, Default)]
pub struct GroupTables {
    /// Effect applications per message.
    pub applied: PerMessage,
    /// Check-then-insert marks: message ids recorded as processed.
    pub processed: BTreeSet<MsgId>,
    /// Inbox rows, unique on (source producer, message id) within this group.
    pub inbox: BTreeSet<(ProducerId, MsgId)>,
    pub aggregates: BTreeMap<u32, Aggregate>,
    /// External effects (an email) per message: outside every transaction.
    pub emails: PerMessage,
}

impl GroupTables {
    pub fn applied(&self, msg: MsgId) -> u32 {
        self.applied.get(msg)
    }

    /// Records one more application of `msg`'s effect; returns the new count.
    pub fn record_applied(&mut self, msg: MsgId) -> u32 {
        self.applied.add(msg)
    }

    /// Records one more email for `msg`; returns how many were sent.
    pub fn record_email(&mut self, msg: MsgId) -> u32 {
        self.emails.add(msg)
    }

    pub fn emails(&self, msg: MsgId) -> u32 {
        self.emails.get(msg)
    }

    /// `msg` was released: no effect or email of it can happen again.
    pub(crate) fn forget(&mut self, msg: MsgId) {
        self.applied.fold(msg);
        self.emails.fold(msg);
    }

    pub fn aggregate(&self, key: u32) -> Aggregate {
        self.aggregates.get(&key).copied().unwrap_or_default()
    }
}
