//! Which pending events still matter: a timer whose copy was acked, whose attempt was
//! superseded or whose process crashed is moot, and the step loop drops it unseen.

use super::Simulation;
use crate::engine::Event;
use crate::message::{Fate, PublishFate};

impl Simulation {
    /// Whether an event still means something when its time comes.
    pub(super) fn is_live(&self, event: &Event) -> bool {
        match *event {
            Event::LeaseExpired { .. } | Event::RetryDue { .. } | Event::TtlExpired { .. } => {
                self.copy_event_is_live(event)
            }
            Event::Arrival { .. }
            | Event::ConfirmArrives { .. }
            | Event::ConfirmTimeout { .. }
            | Event::RelayPoll { .. }
            | Event::RestartProducer { .. } => self.producer_event_is_live(event),
            Event::ServiceDone {
                consumer,
                incarnation,
                ..
            } => self.consumers[consumer.index()].incarnation == incarnation,
            Event::RestartConsumer {
                consumer,
                incarnation,
            } => {
                let c = &self.consumers[consumer.index()];
                !c.up && c.incarnation == incarnation
            }
            Event::RestartBroker { incarnation } => {
                !self.broker_up && self.broker_incarnation == incarnation
            }
            Event::RecordDone { .. }
            | Event::RebalanceDone { .. }
            | Event::RestartMember { .. }
            | Event::SessionTimeout { .. }
            | Event::PollIntervalExceeded { .. }
            | Event::TransactionTimeout { .. } => self.group_event_is_live(event),
            Event::RetentionDue { log, at } => self.logs[log as usize].retention_due_us == Some(at),
            Event::BufferExpiry { producer, at } => {
                self.producers[producer.index()].buffer_due_us == Some(at)
            }
            Event::AutoCommit { .. }
            | Event::PublishArrives { .. }
            | Event::RedriveTick { .. }
            | Event::ScheduledCommand { .. }
            | Event::DependencyServed { .. } => true,
            Event::CallTimeout { request } => self.call_timeout_is_live(request),
        }
    }

    /// A copy's lease, retry or time to live: live while the copy is still in the state
    /// (and attempt) the event was scheduled for.
    /// A released copy was finished: none of its timers means anything any more.
    pub(super) fn copy_event_is_live(&self, event: &Event) -> bool {
        match *event {
            Event::LeaseExpired { copy, attempt } => {
                self.copies.get(copy as usize).is_some_and(|c| {
                    c.fate == Fate::InFlight && c.attempts == attempt && !c.settled_at_broker
                })
            }
            Event::RetryDue { copy, attempt } => self
                .copies
                .get(copy as usize)
                .is_some_and(|c| c.fate == Fate::RetryWaiting && c.attempts == attempt),
            Event::TtlExpired { copy, line_seq } => self
                .copies
                .get(copy as usize)
                .is_some_and(|c| c.fate == Fate::Waiting && c.line_seq == line_seq),
            _ => unreachable!("is_live sends only copy events here"),
        }
    }

    /// A producer's arrivals, confirms, relay and restart: live while the producer is the
    /// same incarnation (and the message still waits for that confirm).
    pub(super) fn producer_event_is_live(&self, event: &Event) -> bool {
        match *event {
            Event::Arrival { producer, epoch } => {
                self.producers[producer.index()].clock.epoch == epoch
            }
            Event::ConfirmArrives {
                producer,
                incarnation,
                ..
            } => self.producers[producer.index()].incarnation == incarnation,
            Event::ConfirmTimeout {
                producer,
                msg,
                attempt,
                incarnation,
            } => {
                let m = &self.messages[msg.index()];
                self.producers[producer.index()].incarnation == incarnation
                    && !m.confirmed()
                    && !m.held_back()
                    && m.publish_attempts == attempt
                    && m.nacked_attempt != attempt
                    && !m.gave_up_on_nack()
                    && matches!(m.fate, PublishFate::Pending | PublishFate::Stored)
            }
            Event::RelayPoll {
                producer,
                incarnation,
            } => {
                let p = &self.producers[producer.index()];
                p.up && p.incarnation == incarnation
            }
            Event::RestartProducer {
                producer,
                incarnation,
            } => {
                let p = &self.producers[producer.index()];
                !p.up && p.incarnation == incarnation
            }
            _ => unreachable!("is_live sends only producer events here"),
        }
    }

    /// A group member's record, restart or session timeout, or the group's rebalance round.
    pub(super) fn group_event_is_live(&self, event: &Event) -> bool {
        match *event {
            Event::RecordDone {
                group,
                member,
                incarnation,
                ..
            } => self.groups[group.index()].members[member as usize].incarnation == incarnation,
            Event::RebalanceDone { group, generation } => {
                let g = &self.groups[group.index()];
                g.rebalancing && g.round == generation
            }
            Event::RestartMember {
                group,
                member,
                incarnation,
            } => {
                let m = &self.groups[group.index()].members[member as usize];
                !m.up && m.incarnation == incarnation
            }
            Event::SessionTimeout {
                group,
                member,
                incarnation,
                at,
            } => {
                let m = &self.groups[group.index()].members[member as usize];
                // Down, or up but no longer heartbeating (a static member past its poll
                // interval): either way its session is pending until `at`.
                m.incarnation == incarnation && m.session_ends_at_us == Some(at)
            }
            Event::TransactionTimeout {
                group,
                member,
                started,
            } => {
                let m = &self.groups[group.index()].members[member as usize];
                !m.up && !m.txn.is_empty() && m.txn_started_us == Some(started)
            }
            Event::PollIntervalExceeded { group, member, at } => {
                let m = &self.groups[group.index()].members[member as usize];
                m.poll_timer_at == Some(at) && m.poll_due_us.is_some()
            }
            _ => unreachable!("is_live sends only group events here"),
        }
    }
}
