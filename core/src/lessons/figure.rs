//! The number an explanation shows, read from the run at the checkpoint. The page and
//! the tests evaluate the same [`Figure`] against the same [`Simulation`], so what the
//! learner reads is what the tests assert.

use std::collections::BTreeSet;

use super::focus::Focus;
use super::prediction::Unit;
use crate::database::GroupTables;
use crate::lang::Lang;
use crate::sim::Simulation;
use crate::step::{GroupId, QueueId};
use crate::time::us_to_secs;

/// Where a balance is kept: the table of a queue's consumers or of a log's group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    Queue(&'static str),
    Group(&'static str),
}

/// A number read from the run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Figure {
    /// Copies waiting in every queue.
    Backlog,
    /// Copies waiting in the queue so named.
    Waiting(&'static str),
    /// Copies delivered and not yet settled in the queue so named (work under way).
    InFlightIn(&'static str),
    /// Age of the oldest waiting copy, over every queue.
    OldestAge,
    /// Age of the oldest waiting copy of the queue so named.
    OldestAgeIn(&'static str),
    /// Simulated seconds since this instant (how long something took).
    SecondsSince(f64),
    /// Effect applications beyond the first, over every table.
    Duplicates,
    /// Duplicates handlers recognised and skipped.
    DuplicatesSkipped,
    /// Effect applications in the table of the queue so named, duplicates included.
    EffectsIn(&'static str),
    /// Effect applications in the table of the log consumer group so named.
    EffectsInGroup(&'static str),
    /// Deliveries with attempt > 1.
    Redeliveries,
    /// Copies lost for good.
    Lost,
    /// Copies moved to a dead-letter queue so far.
    DeadLettered,
    /// The attempts of the latest copy dead-lettered from the queue so named.
    LatestDeadLetterAttempts(&'static str),
    /// Of those, copies dead-lettered again after a redrive.
    DeadLetteredAgain,
    /// Copies moved back from a dead-letter queue.
    Redriven,
    /// Publishes the broker refused.
    Refused,
    /// Operations a business rule refused.
    EffectsRefused,
    /// Versions a handler skipped as older than the aggregate's.
    StaleIgnored,
    /// States committed whose event will never be published.
    NeverPublished,
    /// Emails sent, repeats included.
    EmailsSent,
    /// Jobs (accepted requests) whose status is failed.
    FailedJobs,
    /// The balance of account `key`.
    Balance { table: Table, key: u32 },
    /// Members of the group so named that are up and own no partition.
    IdleMembers(&'static str),
    /// The share of the log's records in its busiest partition, for the group so named.
    BusiestPartitionShare(&'static str),
    /// Records of its log the group so named has not committed (its lag, over every
    /// partition).
    Lag(&'static str),
}

impl Figure {
    /// The figure's unit, which also says how it is written.
    pub fn unit(&self) -> Unit {
        use Figure::*;
        match self {
            Backlog | Waiting(_) | InFlightIn(_) | Lost | DeadLettered | DeadLetteredAgain
            | Redriven | Refused | NeverPublished => Unit::Messages,
            Lag(_) => Unit::Count,
            OldestAge | OldestAgeIn(_) | SecondsSince(_) => Unit::Seconds,
            Duplicates
            | DuplicatesSkipped
            | EffectsIn(_)
            | EffectsInGroup(_)
            | Redeliveries
            | EffectsRefused
            | StaleIgnored
            | EmailsSent
            | FailedJobs
            | LatestDeadLetterAttempts(_) => Unit::Count,
            Balance { .. } => Unit::Dollars,
            IdleMembers(_) => Unit::Members,
            BusiestPartitionShare(_) => Unit::Percent,
        }
    }

    /// The component the figure is read from, when it names one (the page can outline
    /// it with the explanation; the tests check it exists).
    pub fn subject(&self) -> Option<Focus> {
        match *self {
            Figure::Waiting(q)
            | Figure::InFlightIn(q)
            | Figure::OldestAgeIn(q)
            | Figure::EffectsIn(q)
            | Figure::LatestDeadLetterAttempts(q) => Some(Focus::Node(q)),
            Figure::EffectsInGroup(g)
            | Figure::IdleMembers(g)
            | Figure::BusiestPartitionShare(g)
            | Figure::Lag(g) => Some(Focus::Node(g)),
            Figure::Balance {
                table: Table::Queue(name) | Table::Group(name),
                ..
            } => Some(Focus::Node(name)),
            _ => None,
        }
    }

    /// Decimals shown: a tenth of a second for times, whole numbers for counts.
    fn decimals(&self) -> usize {
        match self.unit() {
            Unit::Seconds => 1,
            _ => 0,
        }
    }

    /// The figure's value now. A name the scenario does not have reads as 0 (a test
    /// checks that every lesson names only what exists).
    pub fn value(&self, sim: &Simulation) -> f64 {
        let c = sim.counters();
        let n = |x: u64| x as f64;
        match *self {
            Figure::Backlog => n(sim.backlog()),
            Figure::Waiting(q) => queue_view(sim, q).map_or(0.0, |v| n(v.waiting)),
            Figure::InFlightIn(q) => queue_view(sim, q).map_or(0.0, |v| n(v.in_flight)),
            Figure::OldestAge => us_to_secs(sim.oldest_age_us()),
            Figure::OldestAgeIn(q) => {
                queue_view(sim, q).map_or(0.0, |v| us_to_secs(v.oldest_age_us))
            }
            Figure::SecondsSince(s) => us_to_secs(sim.now_us()) - s,
            Figure::Duplicates => n(c.duplicate_effects),
            Figure::DuplicatesSkipped => n(c.duplicates_skipped),
            Figure::EffectsIn(q) => queue_tables(sim, q).map_or(0.0, applications),
            Figure::EffectsInGroup(g) => group_named(sim, g)
                .and_then(|g| sim.group_tables(g))
                .map_or(0.0, applications),
            Figure::Redeliveries => n(c.redelivered),
            Figure::Lost => n(c.lost),
            Figure::DeadLettered => n(c.dead_lettered),
            Figure::LatestDeadLetterAttempts(q) => queue_named(sim, q)
                .and_then(|q| sim.dead_letters(q).last())
                .map_or(0.0, |d| f64::from(d.attempts)),
            Figure::DeadLetteredAgain => n(c.dead_lettered_again),
            Figure::Redriven => n(c.redriven),
            Figure::Refused => n(c.refused),
            Figure::EffectsRefused => n(c.effects_refused),
            Figure::StaleIgnored => n(c.stale_ignored),
            Figure::NeverPublished => n(c.never_published),
            Figure::EmailsSent => n(c.emails_sent),
            Figure::FailedJobs => n(sim.jobs_of(None).failed),
            Figure::Balance { table, key } => balance(sim, table, key),
            Figure::IdleMembers(g) => group_named(sim, g).map_or(0.0, |g| n(idle_members(sim, g))),
            Figure::BusiestPartitionShare(g) => {
                group_named(sim, g).map_or(0.0, |g| busiest_share(sim, g))
            }
            Figure::Lag(g) => group_named(sim, g).map_or(0.0, |g| {
                n(sim.group_partitions(g).iter().map(|p| p.lag).sum())
            }),
        }
    }

    /// The value written for `lang`, with its unit: "60,000 messages", "30 s".
    pub fn write(&self, sim: &Simulation, lang: Lang) -> String {
        self.unit().write(self.value(sim), self.decimals(), lang)
    }
}

fn queue_named(sim: &Simulation, name: &str) -> Option<QueueId> {
    sim.queue_ids()
        .find(|&q| sim.queue(q).is_some_and(|v| v.name == name))
}

fn queue_view(sim: &Simulation, name: &str) -> Option<crate::QueueView> {
    queue_named(sim, name).and_then(|q| sim.queue(q))
}

fn queue_tables<'a>(sim: &'a Simulation, name: &str) -> Option<&'a GroupTables> {
    queue_named(sim, name).and_then(|q| sim.tables(q))
}

fn group_named(sim: &Simulation, name: &str) -> Option<GroupId> {
    sim.group_ids().find(|&g| sim.group_name(g) == name)
}

/// Every application of every message's effect in one table.
fn applications(tables: &GroupTables) -> f64 {
    tables.applied.total() as f64
}

fn balance(sim: &Simulation, table: Table, key: u32) -> f64 {
    let tables = match table {
        Table::Queue(q) => queue_tables(sim, q),
        Table::Group(g) => group_named(sim, g).and_then(|g| sim.group_tables(g)),
    };
    tables.map_or(0.0, |t| t.aggregate(key).balance as f64)
}

/// Members up minus the members that own a partition: the ones with nothing to read.
fn idle_members(sim: &Simulation, g: GroupId) -> u64 {
    let owners: BTreeSet<_> = sim
        .group_partitions(g)
        .iter()
        .filter_map(|p| p.owner)
        .collect();
    let (up, _) = sim.group_members(g);
    u64::from(up).saturating_sub(owners.len() as u64)
}

/// Percent of the records ever appended that went to the busiest partition.
fn busiest_share(sim: &Simulation, g: GroupId) -> f64 {
    let ends: Vec<u64> = sim.group_partitions(g).iter().map(|p| p.end).collect();
    let total: u64 = ends.iter().sum();
    let most = ends.iter().copied().max().unwrap_or(0);
    if total == 0 {
        0.0
    } else {
        100.0 * most as f64 / total as f64
    }
}
