//! The failure model of consumer groups, as Kafka users build it (Spring Kafka's
//! `DefaultErrorHandler` and `DeadLetterPublishingRecoverer`): a failed record is retried
//! in place with backoff while its partition waits behind it; after the attempts, or at
//! once for a poison record, it goes to a dead-letter (or retry) topic and the partition
//! moves on. Nothing of a failed attempt is applied.

use super::Simulation;
use crate::engine::Event;
use crate::log::{RecordStatus, Unsent, Work};
use crate::scenario::ServiceTime;
use crate::step::{DeadLetterReason, Fact, Failure, GroupId, MemberId, MsgId};
use crate::time::{secs_to_us, Micros};

impl Simulation {
    /// Whether this attempt fails: poison always; a dependency outage; or a transient
    /// error with the group's probability.
    pub(super) fn record_failure(&mut self, g: GroupId, msg: MsgId) -> Option<Failure> {
        if let Some(poison) = self.messages[msg.index()].poison {
            if !self.member_acts_unauthorized(g, msg) {
                return Some(Failure::Poison(poison));
            }
        }
        if self.beyond_replay_window(msg, self.groups[g.index()].max_message_age_us) {
            return Some(Failure::TooOld);
        }
        let failures = &self.groups[g.index()].failures;
        let now_s = self.now_us as f64 / 1e6;
        if failures
            .outages
            .iter()
            .any(|o| o.from_s <= now_s && now_s < o.until_s)
        {
            return Some(Failure::DependencyDown);
        }
        let p = failures.transient_p;
        if p > 0.0 && self.rng.uniform() < p {
            return Some(Failure::Transient);
        }
        None
    }

    /// Whether the group's members act on `msg` though its source had no authority to
    /// ask: it is from an unauthorised tenant, and they trust the broker.
    pub(super) fn member_acts_unauthorized(&self, g: GroupId, msg: MsgId) -> bool {
        self.groups[g.index()].trusts_the_broker
            && self.messages[msg.index()].poison
                == Some(crate::scenario::Poison::UnauthorizedTenant)
    }

    /// An attempt failed: dead-letter (poison, or the last attempt), let a partition being
    /// revoked go uncommitted (its next owner tries again), or retry in place.
    pub(super) fn record_failed(
        &mut self,
        g: GroupId,
        m: MemberId,
        work: Work,
        current: bool,
        failure: Failure,
    ) {
        self.counters.handler_failures += 1;
        self.facts.push(Fact::RecordFailed {
            group: g,
            member: m,
            partition: work.partition,
            offset: work.offset,
            msg: work.msg,
            attempt: work.attempt,
            failure,
        });
        if !current {
            return; // fetched before a rebalance or rewind: the group has moved on
        }
        let group = &self.groups[g.index()];
        let reason = match failure {
            Failure::Poison(kind) => Some(DeadLetterReason::Poison(kind)),
            Failure::TooOld => Some(DeadLetterReason::TooOld),
            _ if work.attempt >= group.retry.max_attempts => {
                Some(DeadLetterReason::RetriesExhausted)
            }
            _ => None,
        };
        if let Some(reason) = reason {
            if !self.broker_up {
                // The dead-letter log, or the group's built-in dead-letter topic (Spring's
                // `<topic>.DLT`), is on the broker: the member keeps the record until the
                // broker is back and sends it then (`flush_unsent`).
                self.hold_unsent(g, m, work, Unsent::DeadLetter(reason));
            } else {
                self.give_up_record(g, m, work, reason);
            }
        } else if group.revoking[work.partition as usize] {
            self.release_partition(g, work.partition, m);
        } else {
            self.retry_in_place(g, m, work);
        }
    }

    /// The group gives up on the record: it goes to the dead-letter log or topic, and the
    /// partition moves on.
    pub(super) fn give_up_record(
        &mut self,
        g: GroupId,
        m: MemberId,
        work: Work,
        reason: DeadLetterReason,
    ) {
        self.dead_letter_record(g, work, reason);
        // Dead-lettered to a log some group reads: that group's reads count instead,
        // as a redriven copy's delivery does.
        let how = match self.groups[g.index()].dead_letter {
            Some(l) if self.log_is_read(l) => super::log_jobs::Read::Void,
            _ => super::log_jobs::Read::Lost,
        };
        self.read_settled(g, work, how);
        self.finish_record(g, m, work, true);
    }

    /// The member keeps the record and tries again after a backoff; the partition (and
    /// the member) wait. An auto-commit meanwhile stops at this record (see `auto_commit`).
    fn retry_in_place(&mut self, g: GroupId, m: MemberId, work: Work) {
        let delay_us = self.record_backoff_us(g, work.attempt);
        let retry_at_us = self.now_us.saturating_add(delay_us);
        let group = &mut self.groups[g.index()];
        let next = Work {
            attempt: work.attempt + 1,
            ..work
        };
        let member = &mut group.members[m as usize];
        member.working = Some(next);
        let incarnation = member.incarnation;
        let took_s = match group.service {
            ServiceTime::Fixed { seconds } => seconds,
            ServiceTime::Exponential { mean_s } => self.rng.exponential(mean_s),
        };
        self.events.schedule(
            retry_at_us.saturating_add(secs_to_us(took_s)),
            Event::RecordDone {
                group: g,
                member: m,
                incarnation,
                partition: work.partition,
                offset: work.offset,
            },
        );
        // Each attempt is fetched by a poll of its own (the error handler seeks back to the
        // record), so the poll interval runs from the attempt's start.
        self.arm_poll_interval(g, m, retry_at_us);
        self.counters.record_retries += 1;
        self.facts.push(Fact::RecordRetrying {
            group: g,
            member: m,
            partition: work.partition,
            offset: work.offset,
            msg: work.msg,
            attempt: next.attempt,
            retry_at_us,
        });
    }

    /// The group's retry policy's delay before the record's next attempt.
    fn record_backoff_us(&mut self, g: GroupId, failures: u32) -> Micros {
        super::backoff::delay_us(&self.groups[g.index()].retry, failures, &mut self.rng)
    }

    /// The group gives up on a record: it is appended to the group's dead-letter log (a
    /// topic another group may read, e.g. to retry later), or kept in its built-in one.
    fn dead_letter_record(&mut self, g: GroupId, work: Work, reason: DeadLetterReason) {
        let to = self.groups[g.index()].dead_letter;
        match to {
            Some(l) => {
                self.append_record(l, work.msg, RecordStatus::Committed);
            }
            None => self.groups[g.index()].dead_letters.push(work.msg),
        }
        self.counters.records_dead_lettered += 1;
        self.groups[g.index()].dead_lettered += 1;
        self.facts.push(Fact::RecordDeadLettered {
            group: g,
            partition: work.partition,
            offset: work.offset,
            msg: work.msg,
            attempts: work.attempt,
            reason,
            log: to.map(|l| l as u32),
        });
        if let Some(l) = to {
            self.log_changed(l);
        }
    }
}
