//! Producers and the producer ↔ broker hop: requests arrive, services commit state
//! (directly, then publish, or through an outbox and its relay), publishes travel to the
//! broker, get routed and stored (or refused), and confirms travel back.

use super::Simulation;
use crate::engine::Event;
use crate::message::{Message, PackedOp, PublishFate, RoutingKey};
use crate::producer::{OutboxRow, Target, RELAY_BACKOFF_CAP_S};
use crate::routing;
use crate::scenario::{Flavour, Handoff, Op, Overflow, Poison, ProducerCrashPoint};
use crate::step::{Attempt, Fact, MsgId, ProducerId, QueueId, RefusedBecause};
use crate::time::{secs_to_us, Micros};

/// What a producer is about to send.
struct Draft {
    key: Option<u32>,
    op: Op,
    poison: Option<Poison>,
    routing_key: RoutingKey,
}

impl Simulation {
    pub(super) fn schedule_next_arrival(&mut self, producer: ProducerId) {
        let p = &mut self.producers[producer.index()];
        let spec = &self.scenario.producers[producer.index()];
        let at = if spec.script.is_empty() {
            p.clock.next_arrival(super::producer_rng(
                &mut self.rng,
                &mut self.producer_rngs,
                producer,
            ))
        } else {
            spec.script
                .get(p.script_next)
                .map(|m| secs_to_us(m.at_s).max(self.now_us))
        };
        if let Some(at) = at {
            let epoch = p.clock.epoch;
            self.events.schedule(at, Event::Arrival { producer, epoch });
        }
    }

    /// A request reaches the producer service (or its script's next message is due).
    pub(super) fn arrival(&mut self, producer: ProducerId) {
        let draft = self.next_draft(producer);
        self.producers[producer.index()].clock.published += 1;
        self.schedule_next_arrival(producer);
        if !self.producers[producer.index()].up {
            self.counters.requests_refused += 1;
            self.producers[producer.index()].refused += 1;
            self.facts.push(Fact::RequestRefused { producer });
            return;
        }
        self.create(producer, draft);
    }

    fn next_draft(&mut self, producer: ProducerId) -> Draft {
        let spec = &self.scenario.producers[producer.index()];
        let p = &mut self.producers[producer.index()];
        if let Some(m) = spec.script.get(p.script_next) {
            p.script_next += 1;
            return Draft {
                key: m.key,
                op: m.op,
                poison: m.poison,
                routing_key: self.routing_keys.intern(&m.routing_key),
            };
        }
        let rng = super::producer_rng(&mut self.rng, &mut self.producer_rngs, producer);
        let key = p.draw_key(rng);
        let poison = (p.payload.poison_share > 0.0 && rng.uniform() < p.payload.poison_share)
            .then_some(Poison::MalformedPayload);
        let routing_key = self.routing_keys.intern(p.next_routing_key());
        Draft {
            key,
            op: p.payload.op,
            poison,
            routing_key,
        }
    }

    /// The producer publishes one poison message now (outside its arrival schedule).
    pub(super) fn create_poison(&mut self, producer: ProducerId, poison: Poison) {
        let p = &mut self.producers[producer.index()];
        let key = p.draw_key(super::producer_rng(
            &mut self.rng,
            &mut self.producer_rngs,
            producer,
        ));
        let routing_key = self.routing_keys.intern(p.next_routing_key());
        let op = p.payload.op;
        self.create(
            producer,
            Draft {
                key,
                op,
                poison: Some(poison),
                routing_key,
            },
        );
    }

    /// Creates a message and hands it over as the producer's handoff says.
    fn create(&mut self, producer: ProducerId, draft: Draft) {
        let msg = MsgId::from_index(self.messages.len());
        let p = &mut self.producers[producer.index()];
        let version = draft.key.map_or(0, |k| p.next_version(k));
        self.messages.push(Message {
            producer,
            created_us: self.now_us,
            key: draft.key,
            version,
            packed_op: PackedOp::new(draft.op),
            poison: draft.poison,
            routing_key: draft.routing_key,
            fate: PublishFate::Pending,
            publish_attempts: 0,
            records: 0,
            nacked_attempt: 0,
            flags: 0,
            copy_tally: [0; 3],
            held_copies: 0,
        });
        self.jobs[producer.index()].pending += 1;
        if let Some(k) = draft.key {
            self.by_version.insert((producer, k, version), msg);
        }
        self.counters.created += 1;
        self.facts.push(Fact::Created {
            producer,
            msg,
            key: draft.key,
            version,
            poison: draft.poison,
        });
        match self.producers[producer.index()].handoff {
            Handoff::Direct => self.send(producer, msg),
            Handoff::CommitThenPublish => {
                self.facts.push(Fact::StateCommitted {
                    producer,
                    msg,
                    outbox: false,
                });
                let p = &mut self.producers[producer.index()];
                if let Some(armed) = p
                    .armed
                    .filter(|a| a.point == ProducerCrashPoint::AfterCommitBeforePublish)
                {
                    p.armed = None;
                    self.set_publish_fate(msg, PublishFate::NeverPublished);
                    self.counters.never_published += 1;
                    self.facts.push(Fact::EventNeverPublished { producer, msg });
                    self.crash_producer(producer, armed);
                } else {
                    self.send(producer, msg);
                }
            }
            Handoff::Outbox { .. } => {
                self.facts.push(Fact::StateCommitted {
                    producer,
                    msg,
                    outbox: true,
                });
                let p = &mut self.producers[producer.index()];
                p.outbox.push_back(OutboxRow::new(msg));
                self.ensure_relay_poll(producer);
            }
        }
    }

    /// Confirms are awaited by producers that ask for them, and always by outbox relays
    /// (a relay marks a row sent only once the broker has taken it).
    pub(super) fn waits_for_confirm(&self, producer: ProducerId) -> bool {
        let p = &self.producers[producer.index()];
        p.publish.confirms || matches!(p.handoff, Handoff::Outbox { .. })
    }

    /// Sends a message, or queues it behind earlier messages held back by backpressure.
    pub(super) fn send(&mut self, producer: ProducerId, msg: MsgId) {
        let m = &self.messages[msg.index()];
        if m.held_back()
            || m.gave_up_on_nack()
            || !matches!(m.fate, PublishFate::Pending | PublishFate::Stored)
        {
            return; // already waiting in the held line, or its outcome is final
        }
        if !self.broker_up && self.buffers_through_outage(producer) {
            self.buffer(producer, msg);
            return;
        }
        let p = &mut self.producers[producer.index()];
        if !p.held.is_empty() {
            p.held.push_back(msg);
            self.messages[msg.index()].set_held_back(true);
            let queue = p.held_for.expect("held messages wait for a queue");
            self.counters.throttled += 1;
            self.facts.push(Fact::Throttled {
                producer,
                msg,
                queue,
            });
            return;
        }
        self.transmit(producer, msg);
    }

    /// Puts a message on the wire.
    pub(super) fn transmit(&mut self, producer: ProducerId, msg: MsgId) {
        self.take_sequence(producer, msg);
        let m = &mut self.messages[msg.index()];
        m.publish_attempts += 1;
        let attempt = m.publish_attempts;
        self.counters.publish_attempts += 1;
        self.facts.push(Fact::PublishSent {
            producer,
            msg,
            attempt,
        });
        if self.waits_for_confirm(producer) {
            let p = &self.producers[producer.index()];
            let timeout = secs_to_us(p.publish.confirm_timeout_s);
            let incarnation = p.incarnation;
            self.events.schedule(
                self.now_us.saturating_add(timeout),
                Event::ConfirmTimeout {
                    producer,
                    msg,
                    attempt,
                    incarnation,
                },
            );
        }
        if self.latency_us == 0 {
            self.publish_arrives(producer, msg, attempt);
        } else {
            self.events.schedule(
                self.now_us.saturating_add(self.latency_us),
                Event::PublishArrives {
                    producer,
                    msg,
                    attempt,
                },
            );
        }
    }

    /// The broker receives a publish: dedupe, route, admit, store, confirm.
    pub(super) fn publish_arrives(&mut self, producer: ProducerId, msg: MsgId, attempt: Attempt) {
        if !self.broker_up {
            self.counters.publish_failed += 1;
            self.facts.push(Fact::PublishFailed {
                producer,
                msg,
                attempt,
            });
            // Without confirms nobody will ever know: the message is gone. (A producer to
            // a log keeps what it sends once it knows the broker is down: `buffer`.)
            if !self.waits_for_confirm(producer)
                && self.messages[msg.index()].fate == PublishFate::Pending
            {
                self.finish_publish(producer, msg, PublishFate::GaveUp);
                self.counters.gave_up += 1;
                self.counters.lost_before_stored += 1;
            }
            return;
        }
        if self.producers[producer.index()].denied {
            self.deny_publish(producer, msg, attempt);
            return;
        }
        let p = &self.producers[producer.index()];
        let retry_of_stored = p.publish.idempotent && self.messages[msg.index()].broker_remembers();
        if let Target::Log(l) = p.target {
            if retry_of_stored {
                self.deduplicate(producer, msg, attempt);
            } else if let Some(ahead) = self.sequence_ahead(producer, msg) {
                self.refuse_out_of_sequence(producer, msg, attempt, ahead);
            } else {
                // A numbered record goes to the partition it was numbered for (as a
                // Kafka producer's batch does), even if the log has grown since.
                let partition = self.leave_sequence(producer, msg);
                self.append(producer, msg, l, partition);
                self.send_confirm(producer, msg, attempt);
            }
            return;
        }
        // Reuse one buffer for the route: publishing is the hot path.
        let mut routes = std::mem::take(&mut self.route_buf);
        self.route_into(producer, msg, &mut routes);
        if retry_of_stored && self.dedups_by_sequence(&routes) {
            self.deduplicate(producer, msg, attempt);
        } else {
            self.publish_routed(producer, msg, attempt, &routes);
        }
        self.route_buf = routes;
    }

    /// The producer may not publish to its target (least privilege): the broker refuses
    /// the publish and says so at once, confirms or not (RabbitMQ closes the channel with
    /// ACCESS_REFUSED, Kafka answers TopicAuthorizationException, SQS AccessDenied).
    /// Nothing is stored. The producer treats it as a nack: it gives up on the message,
    /// or its outbox relay keeps the row and tries again, in vain, until it parks it.
    fn deny_publish(&mut self, producer: ProducerId, msg: MsgId, attempt: Attempt) {
        self.counters.publishes_denied += 1;
        self.facts.push(Fact::PublishDenied {
            producer,
            msg,
            attempt,
        });
        self.nacked(producer, msg, attempt);
    }

    /// An idempotent producer's retry of a message the broker already stored is
    /// recognised (producer id and sequence) and dropped; its confirm goes back.
    fn deduplicate(&mut self, producer: ProducerId, msg: MsgId, attempt: Attempt) {
        self.counters.deduplicated += 1;
        self.facts.push(Fact::Deduplicated { producer, msg });
        self.send_confirm(producer, msg, attempt);
    }

    /// Whether a broker whose queues are `routes` keeps an idempotent producer's
    /// sequence to drop its retries: the teaching broker does, as Kafka does for a log
    /// (`enable.idempotence`). RabbitMQ and SQS keep no such state: a retry after a lost
    /// confirm is stored again (an SQS FIFO queue drops it by its own deduplication
    /// window on the message id, within five minutes, whatever the producer's setting).
    fn dedups_by_sequence(&self, routes: &[QueueId]) -> bool {
        routes
            .iter()
            .any(|q| self.queues[q.index()].flavour == Flavour::Generic)
    }

    fn publish_routed(
        &mut self,
        producer: ProducerId,
        msg: MsgId,
        attempt: Attempt,
        routes: &[QueueId],
    ) {
        if routes.is_empty() {
            let returned = self.producers[producer.index()].publish.mandatory;
            self.counters.unroutable += 1;
            if returned {
                self.counters.returned += 1;
            }
            self.facts.push(Fact::Unroutable {
                producer,
                msg,
                returned,
            });
            if self.messages[msg.index()].fate == PublishFate::Pending {
                self.finish_publish(producer, msg, PublishFate::Unroutable);
                self.drop_outbox_row(producer, msg);
            }
            // The broker confirms it all the same: a confirm is not a delivery promise.
            self.send_confirm(producer, msg, attempt);
            return;
        }
        // Backpressure: a full throttling queue holds the producer back before anything is stored.
        if let Some(&q) = routes.iter().find(|&&q| {
            let queue = &self.queues[q.index()];
            queue.overflow == Overflow::Throttle && queue.is_full()
        }) {
            self.hold_back(producer, msg, q);
            return;
        }
        // A producer that waits for confirms hears of a refusal (a nack); without confirms
        // a full queue's refusal is told to nobody (RabbitMQ's reject-publish: "if
        // publisher confirms are enabled, the publisher will be informed … via a
        // basic.nack"). Admission control answers at the door either way.
        let confirms = self.waits_for_confirm(producer);
        let mut stored = 0;
        let mut told = false;
        let mut discarded = false;
        for &q in routes {
            if self.dedup_window_hit(producer, msg, q) {
                stored += 1; // accepted: the broker confirms it, and keeps one copy
                continue;
            }
            if let Some(because) = self.admission(q) {
                let tells = confirms || because == RefusedBecause::OldestTooOld;
                told |= tells;
                discarded |= !tells;
                self.counters.refused += 1;
                self.facts.push(Fact::Refused {
                    producer,
                    msg,
                    queue: q,
                    because,
                    told: tells,
                });
                continue;
            }
            self.store(producer, msg, q);
            stored += 1;
        }
        if stored > 0 {
            self.set_publish_fate(msg, PublishFate::Stored);
        }
        if told && confirms {
            // Refused by at least one of its queues: the whole publish is nacked, even if
            // another queue stored a copy (which stays stored and is delivered).
            self.nacked(producer, msg, attempt);
        } else if stored > 0 {
            self.send_confirm(producer, msg, attempt);
        } else if self.messages[msg.index()].fate == PublishFate::Pending {
            if told {
                // Turned away at the door (admission control): the producer gives up on it.
                self.finish_publish(producer, msg, PublishFate::Refused);
            } else if discarded {
                // Discarded without a word, as a publish without confirms to a broker that
                // is down: the producer believes it sent it.
                self.finish_publish(producer, msg, PublishFate::GaveUp);
                self.counters.gave_up += 1;
                self.counters.lost_before_stored += 1;
            }
        }
    }

    /// The broker nacks a publish (a queue it routes to refused it): the producer does
    /// what it does on any nack. An outbox relay keeps the row and tries again later (a
    /// retry stores another copy in a queue that had stored it); a producer without an
    /// outbox gives up on it, and its job fails (the copies stored elsewhere stay, and
    /// are delivered).
    fn nacked(&mut self, producer: ProducerId, msg: MsgId, attempt: Attempt) {
        let m = &mut self.messages[msg.index()];
        if m.confirmed() {
            return; // an earlier attempt's confirm already settled it
        }
        m.nacked_attempt = attempt;
        let fate = m.fate;
        if self.has_outbox(producer) {
            // The request is accepted already, so the row stays and the relay tries again.
            self.relay_failed(producer, msg, attempt);
        } else if fate == PublishFate::Pending {
            self.finish_publish(producer, msg, PublishFate::Refused);
        } else if fate == PublishFate::Stored {
            self.change_job(msg, |m| m.set_gave_up_on_nack(true));
            self.leave_held_line(producer, msg);
        }
    }

    fn has_outbox(&self, producer: ProducerId) -> bool {
        matches!(
            self.producers[producer.index()].handoff,
            Handoff::Outbox { .. }
        )
    }

    /// A relay publish was refused or went unconfirmed: the row stays in the outbox and
    /// is tried again after a backoff, or parked once its attempts are used up.
    fn relay_failed(&mut self, producer: ProducerId, msg: MsgId, attempt: Attempt) {
        let p = &mut self.producers[producer.index()];
        let Handoff::Outbox { relay_poll_s, .. } = p.handoff else {
            return;
        };
        let max = p.publish.max_attempts;
        let Some(row) = p.outbox.iter_mut().find(|r| r.msg == msg) else {
            return;
        };
        row.sending = false;
        row.failures += 1;
        if attempt >= max {
            row.parked = true;
            self.facts.push(Fact::OutboxRowParked {
                producer,
                msg,
                attempts: attempt,
            });
            // A parked row is not sent again: rows refused behind it go now.
            self.leave_sequence(producer, msg);
            self.resend_in_sequence(producer);
            return;
        }
        let exponent = row.failures.saturating_sub(1).min(30) as i32;
        let delay_s = (relay_poll_s * 2f64.powi(exponent)).min(RELAY_BACKOFF_CAP_S);
        let ready_at_us = self.now_us.saturating_add(secs_to_us(delay_s));
        row.not_before_us = ready_at_us;
        self.facts.push(Fact::OutboxRetryScheduled {
            producer,
            msg,
            attempt,
            ready_at_us,
        });
        self.ensure_relay_poll(producer);
    }

    /// A message's outcome at the broker is final (refused, unroutable, given up): it
    /// leaves the producer's held line too, if a retry of it was waiting there.
    fn finish_publish(&mut self, producer: ProducerId, msg: MsgId, fate: PublishFate) {
        self.set_publish_fate(msg, fate);
        self.leave_held_line(producer, msg);
    }

    /// A message the producer no longer publishes leaves its held line, if a retry of it
    /// was waiting there.
    fn leave_held_line(&mut self, producer: ProducerId, msg: MsgId) {
        let m = &mut self.messages[msg.index()];
        let was_held_back = m.held_back();
        m.set_held_back(false);
        if was_held_back {
            let p = &mut self.producers[producer.index()];
            p.held.retain(|&h| h != msg);
            if p.held.is_empty() {
                if let Some(q) = p.held_for.take() {
                    self.queues[q.index()].throttled.retain(|&x| x != producer);
                }
            }
        }
    }

    /// Queues a message reaches: the target queue, or the bindings of the target exchange
    /// that match its routing key (each queue once).
    fn route_into(&self, producer: ProducerId, msg: MsgId, queues: &mut Vec<QueueId>) {
        queues.clear();
        match self.producers[producer.index()].target {
            Target::Queue(q) => queues.push(q),
            Target::Log(_) => {}
            Target::Exchange(x) => {
                let exchange = &self.scenario.exchanges[x];
                let key = self
                    .routing_keys
                    .name(self.messages[msg.index()].routing_key);
                for b in &exchange.bindings {
                    if routing::matches(exchange.kind, &b.key, key) {
                        let q = self.queue_named(&b.queue).expect("validated");
                        if !queues.contains(&q) {
                            queues.push(q);
                        }
                    }
                }
            }
        }
    }

    /// Whether a queue refuses a new copy, and why (after making room if it drops oldest).
    fn admission(&mut self, q: QueueId) -> Option<RefusedBecause> {
        let queue = &self.queues[q.index()];
        if let Some(max_age) = queue.max_oldest_age_us {
            if self.queue_oldest_age_us(q, self.now_us) > max_age {
                return Some(RefusedBecause::OldestTooOld);
            }
        }
        if !queue.is_full() {
            return None;
        }
        match queue.overflow {
            Overflow::DropOldest if !queue.line.is_empty() => {
                self.drop_oldest(q);
                None
            }
            _ => Some(RefusedBecause::QueueFull),
        }
    }

    fn hold_back(&mut self, producer: ProducerId, msg: MsgId, queue: QueueId) {
        self.counters.throttled += 1;
        self.facts.push(Fact::Throttled {
            producer,
            msg,
            queue,
        });
        let m = &self.messages[msg.index()];
        // A retry of it already waits in the held line, or the producer gave up on it.
        if m.held_back() || !matches!(m.fate, PublishFate::Pending | PublishFate::Stored) {
            return;
        }
        let p = &mut self.producers[producer.index()];
        p.held.push_front(msg);
        p.held_for = Some(queue);
        self.messages[msg.index()].set_held_back(true);
        let q = &mut self.queues[queue.index()];
        if !q.throttled.contains(&producer) {
            q.throttled.push(producer);
        }
    }

    /// A throttling queue has room again (or stopped throttling): held-back producers send,
    /// oldest first, as many messages as there is room for.
    pub(super) fn release_throttled(&mut self, queue: QueueId) {
        loop {
            let q = &self.queues[queue.index()];
            // Once the queue no longer throttles (its overflow policy changed), everything
            // held back goes, to be stored, dropped or refused under the new policy.
            if q.is_full() && q.overflow == Overflow::Throttle {
                return;
            }
            let Some(&producer) = q.throttled.first() else {
                return;
            };
            let p = &mut self.producers[producer.index()];
            let next = p.held.pop_front();
            if p.held.is_empty() {
                p.held_for = None;
                self.queues[queue.index()].throttled.remove(0);
            }
            if let Some(msg) = next {
                self.messages[msg.index()].set_held_back(false);
                if !matches!(
                    self.messages[msg.index()].fate,
                    PublishFate::Pending | PublishFate::Stored
                ) {
                    continue;
                }
                self.transmit(producer, msg);
                if self.producers[producer.index()].held.front() == Some(&msg) {
                    return; // held back again (by this queue or another one it routes to)
                }
            }
        }
    }

    fn send_confirm(&mut self, producer: ProducerId, msg: MsgId, attempt: Attempt) {
        if !self.waits_for_confirm(producer) {
            return;
        }
        let p = &mut self.producers[producer.index()];
        if p.drop_next_confirm.take().is_some() {
            self.counters.confirms_lost += 1;
            self.facts.push(Fact::ConfirmLost {
                producer,
                msg,
                attempt,
            });
            return;
        }
        if self.latency_us == 0 {
            self.confirm_arrives(producer, msg, attempt);
        } else {
            let incarnation = p.incarnation;
            self.events.schedule(
                self.now_us.saturating_add(self.latency_us),
                Event::ConfirmArrives {
                    producer,
                    msg,
                    attempt,
                    incarnation,
                },
            );
        }
    }

    pub(super) fn confirm_arrives(&mut self, producer: ProducerId, msg: MsgId, attempt: Attempt) {
        let m = &mut self.messages[msg.index()];
        if m.confirmed() {
            return; // an earlier attempt's confirm already settled it
        }
        m.set_confirmed(true);
        if m.gave_up_on_nack() {
            // A later attempt went through after all: the producer knows it is stored.
            self.change_job(msg, |m| m.set_gave_up_on_nack(false));
        }
        self.counters.confirms += 1;
        self.facts.push(Fact::Confirmed {
            producer,
            msg,
            attempt,
        });
        self.resend_in_sequence(producer);
        if !matches!(
            self.producers[producer.index()].handoff,
            Handoff::Outbox { .. }
        ) {
            return;
        }
        let p = &mut self.producers[producer.index()];
        if let Some(armed) = p
            .armed
            .filter(|a| a.point == ProducerCrashPoint::AfterPublishBeforeMark)
        {
            p.armed = None;
            // The row stays unmarked: after the restart the relay publishes it again.
            self.messages[msg.index()].set_confirmed(false);
            self.crash_producer(producer, armed);
            return;
        }
        self.drop_outbox_row(producer, msg);
        self.facts.push(Fact::OutboxMarked { producer, msg });
    }

    fn drop_outbox_row(&mut self, producer: ProducerId, msg: MsgId) {
        let p = &mut self.producers[producer.index()];
        if let Some(i) = p.outbox.iter().position(|r| r.msg == msg) {
            p.outbox.remove(i);
        }
    }

    /// No confirm in time: the outcome is unknown. Publish again (same message id), or
    /// give up after the last attempt. An outbox relay never gives up on a row: it leaves
    /// it for its next poll (up to the attempt limit).
    pub(super) fn confirm_timeout(&mut self, producer: ProducerId, msg: MsgId, attempt: Attempt) {
        self.publish_timed_out(producer, msg, attempt);
        // A record refused as out of sequence may be first in line by now, behind a
        // record stored whose confirm was lost: it goes again (as a Kafka producer retries
        // a refused batch after its backoff, whatever it heard since).
        self.resend_in_sequence(producer);
    }

    fn publish_timed_out(&mut self, producer: ProducerId, msg: MsgId, attempt: Attempt) {
        self.counters.confirm_timeouts += 1;
        let max = self.producers[producer.index()].publish.max_attempts;
        let retry = attempt < max;
        self.facts.push(Fact::ConfirmTimedOut {
            producer,
            msg,
            attempt,
            retry,
        });
        if self.has_outbox(producer) {
            self.relay_failed(producer, msg, attempt);
            return;
        }
        if retry {
            self.send(producer, msg);
        } else if self.messages[msg.index()].fate == PublishFate::Pending {
            self.finish_publish(producer, msg, PublishFate::GaveUp);
            self.counters.gave_up += 1;
            // No longer ahead of anything: a record refused behind it goes now.
            self.leave_sequence(producer, msg);
            self.resend_in_sequence(producer);
        }
    }

    pub(super) fn ensure_relay_poll(&mut self, producer: ProducerId) {
        let p = &mut self.producers[producer.index()];
        if let Handoff::Outbox { relay_poll_s, .. } = p.handoff {
            if !p.relay_poll_pending && p.up && p.outbox.iter().any(|r| !r.parked) {
                p.relay_poll_pending = true;
                let incarnation = p.incarnation;
                // Polls stay on the relay's period; a row in backoff waits for the first
                // poll after it is due.
                self.events.schedule(
                    self.now_us.saturating_add(secs_to_us(relay_poll_s)),
                    Event::RelayPoll {
                        producer,
                        incarnation,
                    },
                );
            }
        }
    }

    /// The relay publishes every due outbox row, in commit order (rows in backoff and
    /// parked rows stay where they are).
    pub(super) fn relay_poll(&mut self, producer: ProducerId) {
        let now = self.now_us;
        let p = &mut self.producers[producer.index()];
        p.relay_poll_pending = false;
        let to_send: Vec<MsgId> = p
            .outbox
            .iter_mut()
            .filter(|r| r.due(now))
            .map(|r| {
                r.sending = true;
                r.msg
            })
            .collect();
        for msg in to_send {
            self.send(producer, msg);
        }
        // Rows still backing off need a later poll.
        let p = &self.producers[producer.index()];
        if p.outbox.iter().any(|r| !r.sending && !r.parked) {
            self.ensure_relay_poll(producer);
        }
    }

    /// When the next relay poll is due after a restart.
    pub(super) fn relay_restart_delay(&self, producer: ProducerId) -> Option<Micros> {
        match self.producers[producer.index()].handoff {
            Handoff::Outbox { relay_poll_s, .. } => Some(secs_to_us(relay_poll_s)),
            _ => None,
        }
    }
}
