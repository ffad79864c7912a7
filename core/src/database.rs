//! The consumers' database: per queue (one consumer group per queue), the effects table
//! (how many times each message's effect really happened), the idempotency marks, the
//! inbox, and the aggregates the effects change.

use std::collections::{BTreeMap, BTreeSet};

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

/// One consumer group's tables.
#[derive(Clone, Debug, Default)]
pub struct GroupTables {
    /// Effect applications per message id (indexed by id; grown on demand).
    pub applied: Vec<u32>,
    /// Check-then-insert marks: message ids recorded as processed.
    pub processed: BTreeSet<MsgId>,
    /// Inbox rows, unique on (source producer, message id) within this group.
    pub inbox: BTreeSet<(ProducerId, MsgId)>,
    pub aggregates: BTreeMap<u32, Aggregate>,
    /// External effects (an email) per message id: outside every transaction.
    pub emails: Vec<u32>,
}

impl GroupTables {
    pub fn applied(&self, msg: MsgId) -> u32 {
        self.applied.get(msg.index()).copied().unwrap_or(0)
    }

    /// Records one more application of `msg`'s effect; returns the new count.
    pub fn record_applied(&mut self, msg: MsgId) -> u32 {
        let i = msg.index();
        if self.applied.len() <= i {
            self.applied.resize(i + 1, 0);
        }
        self.applied[i] += 1;
        self.applied[i]
    }

    /// Records one more email for `msg`; returns how many were sent.
    pub fn record_email(&mut self, msg: MsgId) -> u32 {
        let i = msg.index();
        if self.emails.len() <= i {
            self.emails.resize(i + 1, 0);
        }
        self.emails[i] += 1;
        self.emails[i]
    }

    pub fn emails(&self, msg: MsgId) -> u32 {
        self.emails.get(msg.index()).copied().unwrap_or(0)
    }

    pub fn aggregate(&self, key: u32) -> Aggregate {
        self.aggregates.get(&key).copied().unwrap_or_default()
    }
}
