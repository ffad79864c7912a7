//! The consumers' database: per queue (one consumer group per queue), the effects table
//! (how many times each message's effect really happened), the idempotency marks, the
//! inbox, and the aggregates the effects change.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

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
/// happen to it any more), so the totals cover the whole run.
///
/// Messages are mostly processed in the order they were created and released in that
/// order too, so the counts are kept in a line sorted by message id: a new count goes at
/// the back, a folded one leaves a zero that is popped once it reaches the front (the
/// line is compacted when zeros are more than half of it), and a lookup halves the line.
/// A hash map did this until 2026-12-04: every processed message inserted an entry at a
/// scattered place and a sweep later removed it, two cache misses each (about 5 % of an
/// M/M/1 run). A count that would go far inside the line (a message processed long
/// after its neighbours, such as a retry after a backoff) waits in a hash map of
/// stragglers instead, so no insertion moves more than [`NEAR_BACK`] counts. A message
/// is in one of the two, never both.
#[derive(Clone, Debug, Default)]
pub struct PerMessage {
    /// (message, count) by message id; a count of 0 was folded.
    line: VecDeque<(MsgId, u32)>,
    /// Counts in `line` that are not 0.
    live: usize,
    stragglers: HashMap<MsgId, u32, crate::hash::IdHash>,
    /// Of released messages: every occurrence, and those beyond each message's first.
    folded: u64,
    folded_extra: u64,
}

/// A count goes into the line only this close to its back (see [`PerMessage`]).
const NEAR_BACK: usize = 64;

impl PerMessage {
    /// Where `msg` is or would go in the line. Ids in the line are distinct and rising,
    /// so `msg` is at most as many places in as it is ids past the front: exactly there
    /// when no id in between is missing (every message processed, as in most runs).
    fn find(&self, msg: MsgId) -> Result<usize, usize> {
        let Some(&(first, _)) = self.line.front() else {
            return Err(0);
        };
        let Some(ahead) = msg.index().checked_sub(first.index()) else {
            return Err(0);
        };
        let guess = ahead.min(self.line.len() - 1);
        if self.line[guess].0 == msg {
            return Ok(guess);
        }
        self.line.binary_search_by_key(&msg, |&(m, _)| m)
    }

    pub fn get(&self, msg: MsgId) -> u32 {
        match self.find(msg) {
            Ok(i) => self.line[i].1,
            Err(_) => self.stragglers.get(&msg).copied().unwrap_or(0),
        }
    }

    /// One more for `msg`; returns its count now.
    fn add(&mut self, msg: MsgId) -> u32 {
        if self.line.back().is_none_or(|&(last, _)| last < msg) {
            // A straggler can be past the back once a compaction took the back's zero.
            if let Some(n) = self.stragglers.get_mut(&msg) {
                *n += 1;
                return *n;
            }
            self.line.push_back((msg, 1));
            self.live += 1;
            return 1;
        }
        match self.find(msg) {
            Ok(i) => {
                let n = &mut self.line[i].1;
                if *n == 0 {
                    self.live += 1;
                }
                *n += 1;
                *n
            }
            Err(i) if self.line.len() - i <= NEAR_BACK && !self.stragglers.contains_key(&msg) => {
                self.line.insert(i, (msg, 1));
                self.live += 1;
                1
            }
            Err(_) => {
                let n = self.stragglers.entry(msg).or_insert(0);
                *n += 1;
                *n
            }
        }
    }

    /// Folds `msg`'s count into the totals and forgets it. Messages are mostly released
    /// in the order their counts were added, so `msg` is usually the line's front, or in
    /// no line at all (a table nothing was counted in, such as the emails of a consumer
    /// that sends none): both are told at once, without a search or a hash (these folds
    /// were 3 % of an M/M/1 run's instructions).
    fn fold(&mut self, msg: MsgId) {
        let n = match self.line.front() {
            Some(&(first, n)) if first == msg => {
                self.line.pop_front();
                if n > 0 {
                    self.live -= 1;
                }
                self.forget_folded();
                n
            }
            None if self.stragglers.is_empty() => return,
            _ => match self.find(msg) {
                Ok(i) => {
                    let n = std::mem::take(&mut self.line[i].1);
                    if n > 0 {
                        self.live -= 1;
                    }
                    self.forget_folded();
                    n
                }
                Err(_) if self.stragglers.is_empty() => 0,
                Err(_) => self.stragglers.remove(&msg).unwrap_or(0),
            },
        };
        self.folded += u64::from(n);
        self.folded_extra += u64::from(n.saturating_sub(1));
    }

    /// Lets the folded counts go: at the front at once, inside once they are half.
    fn forget_folded(&mut self) {
        while self.line.front().is_some_and(|&(_, n)| n == 0) {
            self.line.pop_front();
        }
        if self.line.len() > 2 * self.live + NEAR_BACK {
            self.line.retain(|&(_, n)| n > 0);
        }
    }

    /// Counts of the messages still held, in id order (zeros left out).
    pub fn iter(&self) -> impl Iterator<Item = (MsgId, u32)> + '_ {
        let mut counts: Vec<(MsgId, u32)> = self.iter_unordered().collect();
        if !self.stragglers.is_empty() {
            counts.sort_unstable();
        }
        counts.into_iter()
    }

    /// Counts of the messages still held, in no particular order (no sort: for readers
    /// that only add them up or pick a few). Zeros left out.
    pub fn iter_unordered(&self) -> impl Iterator<Item = (MsgId, u32)> + '_ {
        let stragglers = self.stragglers.iter().map(|(&m, &n)| (m, n));
        self.line
            .iter()
            .copied()
            .chain(stragglers)
            .filter(|&(_, n)| n > 0)
    }

    /// Occurrences over the whole run.
    pub fn total(&self) -> u64 {
        self.folded
            + self
                .iter_unordered()
                .map(|(_, n)| u64::from(n))
                .sum::<u64>()
    }

    /// Occurrences beyond each message's first, over the whole run.
    pub fn extra(&self) -> u64 {
        self.folded_extra
            + self
                .iter_unordered()
                .map(|(_, n)| u64::from(n.saturating_sub(1)))
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
    /// Inbox rows keyed by the entity (an account, an order): the message that took
    /// each key's row first.
    pub inbox_by_entity: BTreeMap<u32, MsgId>,
    pub aggregates: BTreeMap<u32, Aggregate>,
    /// External effects (an email) per message: outside every transaction.
    pub emails: PerMessage,
    /// Effects applied for a source with no authority to ask for them (a handler that
    /// trusts the broker).
    pub unauthorized: u64,
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

    /// Inserts `msg`'s inbox row: on its source and id, or on `entity` when the inbox is
    /// keyed by the entity (the first message on a key keeps its row).
    pub(crate) fn take_inbox_row(
        &mut self,
        id: (ProducerId, MsgId),
        entity: Option<u32>,
        msg: MsgId,
    ) {
        match entity {
            Some(key) => {
                self.inbox_by_entity.entry(key).or_insert(msg);
            }
            None => {
                self.inbox.insert(id);
            }
        }
    }

    pub fn aggregate(&self, key: u32) -> Aggregate {
        self.aggregates.get(&key).copied().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Counts added and folded in any order (mostly rising ids, as a run makes them,
        /// with stragglers and repeats) read back as a plain map's, and the totals add up.
        #[test]
        fn per_message_counts_are_those_of_a_map(
            ops in proptest::collection::vec((0u64..400, 0u8..10), 0..1_500)
        ) {
            let mut counts = PerMessage::default();
            let mut model: BTreeMap<MsgId, u32> = BTreeMap::new();
            let (mut folded, mut folded_extra) = (0u64, 0u64);
            for (k, (id, op)) in ops.into_iter().enumerate() {
                // Rising ids most of the time, anything below now and then.
                let msg = MsgId::from_index(if op < 6 { k } else { id as usize });
                if op < 8 {
                    let n = model.entry(msg).or_insert(0);
                    *n += 1;
                    prop_assert_eq!(counts.add(msg), *n);
                } else {
                    let n = model.remove(&msg).unwrap_or(0);
                    folded += u64::from(n);
                    folded_extra += u64::from(n.saturating_sub(1));
                    counts.fold(msg);
                }
                prop_assert_eq!(counts.get(msg), model.get(&msg).copied().unwrap_or(0));
            }
            let held: Vec<(MsgId, u32)> = model.iter().map(|(&m, &n)| (m, n)).collect();
            prop_assert_eq!(counts.iter().collect::<Vec<_>>(), held);
            let total: u64 = model.values().map(|&n| u64::from(n)).sum();
            let extra: u64 = model.values().map(|&n| u64::from(n - 1)).sum();
            prop_assert_eq!(counts.total(), folded + total);
            prop_assert_eq!(counts.extra(), folded_extra + extra);
        }

        /// Folded mostly in the order the counts were added (the line's front each time,
        /// as a run's sweeps release them), with a few out of order and some never
        /// counted: the counts read back as a plain map's, and the totals add up.
        #[test]
        fn counts_folded_from_the_front_are_those_of_a_map(
            repeats in proptest::collection::vec(0u32..3, 1..300),
            swaps in proptest::collection::vec((0usize..300, 0usize..300), 0..20),
        ) {
            let mut counts = PerMessage::default();
            let mut model: BTreeMap<MsgId, u32> = BTreeMap::new();
            for (i, &r) in repeats.iter().enumerate() {
                let msg = MsgId::from_index(i);
                for _ in 0..r {
                    *model.entry(msg).or_insert(0) += 1;
                    counts.add(msg);
                }
            }
            let mut order: Vec<usize> = (0..repeats.len() + 5).collect();
            for (a, b) in swaps {
                let n = order.len();
                order.swap(a % n, b % n);
            }
            let (mut folded, mut folded_extra) = (0u64, 0u64);
            for i in order {
                let msg = MsgId::from_index(i);
                let n = model.remove(&msg).unwrap_or(0);
                folded += u64::from(n);
                folded_extra += u64::from(n.saturating_sub(1));
                counts.fold(msg);
                prop_assert_eq!(counts.get(msg), 0);
                let held: Vec<(MsgId, u32)> = model.iter().map(|(&m, &n)| (m, n)).collect();
                prop_assert_eq!(counts.iter().collect::<Vec<_>>(), held);
                prop_assert_eq!(counts.total(), folded + model.values().map(|&n| u64::from(n)).sum::<u64>());
            }
            prop_assert_eq!(counts.total(), folded);
            prop_assert_eq!(counts.extra(), folded_extra);
        }
    }
}
