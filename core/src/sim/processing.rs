//! Consumers at work: a delivery lands, waits for a slot, is processed, and then the
//! handler's outcome — failure, duplicate, stale or out-of-order version, an effect in the
//! database — decides what the consumer tells the broker.

use super::Simulation;
use crate::consumer::Held;
use crate::database::Aggregate;
use crate::engine::Event;
use crate::message::Fate;
use crate::scenario::{
    AckMode, CrashPoint, Flavour, GapTimeout, Idempotency, Op, Ordering, Poison, ServiceTime,
};
use crate::step::{
    Attempt, ConsumerId, CopyId, DeadLetterReason, DuplicateSeen, Fact, Failure, IgnoredAck,
    LossReason, MsgId, ProducerId,
};
use crate::time::{secs_to_us, Micros};

/// What the handler decided about one delivery.
enum Outcome {
    /// The work is finished (effect applied, refused, or skipped for a stated reason).
    Finished { committed: bool },
    /// A predecessor is missing: put the copy back for a while.
    Wait,
    /// A predecessor is still missing after the gap timeout: dead-letter the copy.
    Park,
}

impl Simulation {
    pub(super) fn consumer_receives(
        &mut self,
        consumer: ConsumerId,
        copy: CopyId,
        attempt: Attempt,
    ) {
        self.consumers[consumer.index()].buffer.push_back(Held {
            copy,
            attempt,
            checked_clean: false,
            batch: 0,
        });
        if self.crash_after_receive_armed(consumer) {
            let armed = self.consumers[consumer.index()]
                .armed
                .take()
                .expect("checked");
            self.crash_consumer(consumer, armed);
            return;
        }
        // A batching consumer waits until the broker has handed it all it can right now
        // (the dispatch loop starts it), so that batches fill up.
        if self.consumers[consumer.index()].batch_size == 1 {
            self.start_work(consumer);
        }
    }

    /// Fills the consumer's free slots from its buffer, a batch per slot.
    pub(super) fn start_work(&mut self, consumer: ConsumerId) {
        loop {
            let c = &self.consumers[consumer.index()];
            if !c.up || c.batches >= c.concurrency || c.buffer.is_empty() {
                return;
            }
            let mut batch = self.take_batch(consumer);
            if batch.is_empty() {
                self.batch_buf = batch;
                continue; // every candidate was a duplicate, settled at once
            }
            let c = &mut self.consumers[consumer.index()];
            let id = c.next_batch;
            c.next_batch += 1;
            c.batches += 1;
            let (service, slow, incarnation) = (c.service, c.slow_factor, c.incarnation);
            let mut took_s = 0.0;
            self.handler_attempts += batch.len() as u64;
            for _ in &batch {
                took_s += match service {
                    ServiceTime::Fixed { seconds } => seconds,
                    ServiceTime::Exponential { mean_s } => self.rng.exponential(mean_s),
                };
            }
            let done_at_us = self.now_us.saturating_add(secs_to_us(took_s * slow));
            self.busy_slots += 1;
            let (copy, attempt) = (batch[0].copy, batch[0].attempt);
            self.events.schedule(
                done_at_us,
                Event::ServiceDone {
                    consumer,
                    incarnation,
                    copy,
                    attempt,
                    batch: id,
                },
            );
            for mut held in batch.drain(..) {
                held.batch = id;
                let msg = self.copies[held.copy as usize].msg;
                let (copy, attempt) = (held.copy, held.attempt);
                self.consumers[consumer.index()].working.push(held);
                self.facts.push(Fact::ProcessingStarted {
                    msg,
                    copy,
                    attempt,
                    consumer,
                    done_at_us,
                });
            }
            self.batch_buf = batch;
        }
    }

    /// Takes up to a batch of deliveries from the buffer. Check-then-insert looks for the
    /// processed mark first: a copy already marked is settled at once, not processed.
    /// The batch reuses the scratch buffer (one batch starts per message: allocating a
    /// vector each time was a visible share of a step); `start_work` hands it back.
    fn take_batch(&mut self, consumer: ConsumerId) -> Vec<Held> {
        let mut batch = std::mem::take(&mut self.batch_buf);
        batch.clear();
        loop {
            let c = &mut self.consumers[consumer.index()];
            if batch.len() as u32 >= c.batch_size {
                return batch;
            }
            let Some(mut held) = c.buffer.pop_front() else {
                return batch;
            };
            let msg = self.copies[held.copy as usize].msg;
            let event_id = self.copies[held.copy as usize].event_id();
            if c.idempotency == Idempotency::CheckThenInsert {
                if self.tables[c.queue.index()].processed.contains(&event_id) {
                    self.counters.duplicates_skipped += 1;
                    self.facts.push(Fact::DuplicateSkipped {
                        msg,
                        copy: held.copy,
                        attempt: held.attempt,
                        consumer,
                        seen: DuplicateSeen::CheckFoundMark,
                    });
                    self.complete(consumer, held.copy, held.attempt, false);
                    if !self.consumers[consumer.index()].up {
                        return batch; // completing crashed it (an armed crash)
                    }
                    continue;
                }
                held.checked_clean = true;
            }
            batch.push(held);
        }
    }

    /// The handler finished a batch: decide each outcome, then tell the broker. An atomic
    /// batch with any failure rolls back as a whole. `call_failed`: the batch's call to
    /// its dependency failed, and so does every message of it. The batch waits in the
    /// consumer's `settling` meanwhile: an armed crash that strikes mid-way takes the rest
    /// with it, unsettled, as it takes everything else the consumer holds.
    pub(super) fn finish_work(
        &mut self,
        consumer: ConsumerId,
        batch: u64,
        call_failed: Option<Failure>,
    ) {
        let c = &mut self.consumers[consumer.index()];
        let range = c.batch(batch);
        c.settling.clear();
        c.settling.extend(c.working.drain(range));
        c.batches -= 1;
        let atomic = c.batch_atomic && c.settling.len() > 1;
        self.busy_slots -= 1;
        if let Some(f) = call_failed {
            self.settle_each(consumer, |sim, _, h| {
                sim.fail(consumer, h.copy, h.attempt, f)
            });
        } else if atomic {
            let n = self.consumers[consumer.index()].settling.len();
            let failures: Vec<Option<Failure>> = (0..n)
                .map(|k| {
                    let h = self.consumers[consumer.index()].settling[k];
                    self.failure_of(consumer, &h)
                })
                .collect();
            if failures.iter().any(Option::is_some) {
                self.settle_each(consumer, |sim, k, h| {
                    let f = failures[k];
                    sim.fail(
                        consumer,
                        h.copy,
                        h.attempt,
                        f.unwrap_or(Failure::BatchRolledBack),
                    )
                });
            } else {
                self.settle_each(consumer, |sim, _, h| sim.handle_and_settle(consumer, h));
            }
        } else {
            self.settle_each(consumer, |sim, _, h| match sim.failure_of(consumer, &h) {
                Some(f) => sim.fail(consumer, h.copy, h.attempt, f),
                None => sim.handle_and_settle(consumer, h),
            });
        }
        self.consumers[consumer.index()].settling.clear();
        let queue = self.consumers[consumer.index()].queue;
        self.start_work(consumer);
        self.stop_if_retired(consumer);
        self.dispatch(queue);
    }

    /// Settles the consumer's `settling` batch one delivery at a time, in order, with its
    /// position in the batch; stops when a crash takes the rest (it empties `settling`).
    fn settle_each(
        &mut self,
        consumer: ConsumerId,
        mut settle: impl FnMut(&mut Self, usize, Held),
    ) {
        let mut k = 0;
        while let Some(&held) = self.consumers[consumer.index()].settling.get(k) {
            settle(self, k, held);
            k += 1;
        }
    }

    fn handle_and_settle(&mut self, consumer: ConsumerId, held: Held) {
        let (copy, attempt) = (held.copy, held.attempt);
        match self.handle_message(consumer, held) {
            Outcome::Finished { committed } => self.complete(consumer, copy, attempt, committed),
            Outcome::Wait => self.wait_for_predecessor(consumer, copy, attempt),
            Outcome::Park => {
                if self.is_current(copy, attempt) {
                    self.dead_letter(copy, DeadLetterReason::GapTimeout);
                }
            }
        }
    }

    /// Whether this attempt fails, and how: poison always; a dependency outage; or a
    /// transient error with the configured probability.
    fn failure_of(&mut self, consumer: ConsumerId, held: &Held) -> Option<Failure> {
        let msg = self.copies[held.copy as usize].msg;
        let c = &self.consumers[consumer.index()];
        if let Some(poison) = self.messages[msg.index()].poison {
            if !self.fixed.contains(&(c.queue, poison)) && !self.acts_unauthorized(consumer, msg) {
                return Some(Failure::Poison(poison));
            }
        }
        if self.beyond_replay_window(msg, c.max_message_age_us) {
            return Some(Failure::TooOld);
        }
        let now_s = self.now_us as f64 / 1e6;
        if c.failures
            .outages
            .iter()
            .any(|o| o.from_s <= now_s && now_s < o.until_s)
        {
            return Some(Failure::DependencyDown);
        }
        if c.failures.transient_p > 0.0 && self.rng.uniform() < c.failures.transient_p {
            return Some(Failure::Transient);
        }
        None
    }

    /// Whether `msg` is older than a handler's replay window (a consumer's or a group's):
    /// its age since it was created, not since it was stored, as a consumer reads a
    /// CloudEvent's `time`.
    pub(super) fn beyond_replay_window(&self, msg: MsgId, window: Option<Micros>) -> bool {
        let created_us = self.messages[msg.index()].created_us;
        window.is_some_and(|max| self.now_us.saturating_sub(created_us) > max)
    }

    /// Whether the consumer will act on `msg` though its source had no authority to ask:
    /// the message is from an unauthorised tenant (and no fix has since authorised it),
    /// and the handler trusts the broker instead of checking. Bad syntax or an unknown
    /// schema still fail a trusting handler: it cannot read them.
    fn acts_unauthorized(&self, consumer: ConsumerId, msg: MsgId) -> bool {
        let c = &self.consumers[consumer.index()];
        let unauthorized = Some(Poison::UnauthorizedTenant);
        c.trusts_the_broker
            && self.messages[msg.index()].poison == unauthorized
            && !self.fixed.contains(&(c.queue, Poison::UnauthorizedTenant))
    }

    /// The handler's logic: fail, skip, wait, or apply the effect in one transaction.
    fn handle_message(&mut self, consumer: ConsumerId, held: Held) -> Outcome {
        let (copy, attempt) = (held.copy, held.attempt);
        let msg = self.copies[copy as usize].msg;
        let m = &self.messages[msg.index()];
        let c = &self.consumers[consumer.index()];
        let q = c.queue.index();
        // Inbox: its unique key (source and id, or the entity) is checked inside the
        // effect's transaction; the row names the message that took it.
        let inbox_key = (m.producer, self.copies[copy as usize].event_id());
        let entity = c.inbox_entity(m.key);
        let row_taken_by = match (c.idempotency, entity) {
            (Idempotency::Inbox, Some(key)) => self.tables[q].inbox_by_entity.get(&key).copied(),
            (Idempotency::Inbox, None) => self.tables[q].inbox.contains(&inbox_key).then_some(msg),
            _ => None,
        };
        // Keyed by the entity, the row may belong to another message: the unique key
        // cannot tell, so that message is skipped as well, and its work is never done.
        if let (Some(first), Some(key)) = (row_taken_by, entity) {
            if first != msg {
                self.counters.taken_for_duplicates += 1;
                self.facts.push(Fact::TakenForDuplicate {
                    msg,
                    copy,
                    attempt,
                    consumer,
                    key,
                    first,
                });
                return Outcome::Finished { committed: false };
            }
        }
        if row_taken_by.is_some() {
            self.counters.duplicates_skipped += 1;
            self.facts.push(Fact::DuplicateSkipped {
                msg,
                copy,
                attempt,
                consumer,
                seen: DuplicateSeen::InboxConflict,
            });
            return Outcome::Finished { committed: false };
        }
        if let Some(outcome) = self.order_by_version(consumer, copy) {
            return outcome;
        }
        self.commit_effect(consumer, copy, attempt, inbox_key)
    }

    /// A consumer that orders by version skips a stale message, closes a gap before it
    /// (reconcile), or waits for its predecessor. `Some` ends the attempt there; `None`
    /// lets the effect go ahead.
    fn order_by_version(&mut self, consumer: ConsumerId, copy: CopyId) -> Option<Outcome> {
        let msg = self.copies[copy as usize].msg;
        let m = &self.messages[msg.index()];
        let c = &self.consumers[consumer.index()];
        let (Some(key), true) = (m.key, c.ordering != Ordering::None) else {
            return None;
        };
        let current = self.tables[c.queue.index()].aggregate(key).version;
        let version = m.version;
        if version <= current {
            self.counters.stale_ignored += 1;
            self.facts.push(Fact::StaleIgnored {
                msg,
                copy,
                consumer,
                key,
                version,
                current,
            });
            return Some(Outcome::Finished { committed: false });
        }
        if c.ordering == Ordering::Reconcile && version > current + 1 {
            self.reconcile(consumer, copy, key, current + 1, version - 1);
        }
        let c = &self.consumers[consumer.index()];
        if c.ordering == Ordering::WaitForGap && version > current + 1 {
            return self.wait_for_gap(consumer, copy, key, version, current);
        }
        None
    }

    /// Version `version` of `key` arrived while the tables are at `current`: wait for the
    /// missing versions until the gap timeout, then park the message or skip the gap.
    fn wait_for_gap(
        &mut self,
        consumer: ConsumerId,
        copy: CopyId,
        key: u32,
        version: u32,
        current: u32,
    ) -> Option<Outcome> {
        let msg = self.copies[copy as usize].msg;
        let c = &self.consumers[consumer.index()];
        let (timeout, policy) = (c.gap_timeout_us, c.on_gap_timeout);
        let since = *self.copies[copy as usize]
            .rare
            .get_mut()
            .gap_since_us
            .get_or_insert(self.now_us);
        if self.now_us - since < timeout {
            self.counters.gap_waits += 1;
            self.facts.push(Fact::GapWait {
                msg,
                copy,
                consumer,
                key,
                version,
                current,
            });
            return Some(Outcome::Wait);
        }
        // The predecessor never came: give up on the gap, visibly.
        if policy == GapTimeout::Park {
            return Some(Outcome::Park);
        }
        self.facts.push(Fact::GapSkipped {
            msg,
            copy,
            consumer,
            key,
            version,
            current,
        });
        None
    }

    /// One transaction: the effect, the inbox row or processed mark, the version. Then the
    /// email, if the consumer sends one (outside the transaction).
    fn commit_effect(
        &mut self,
        consumer: ConsumerId,
        copy: CopyId,
        attempt: Attempt,
        inbox_key: (ProducerId, MsgId),
    ) -> Outcome {
        let msg = self.copies[copy as usize].msg;
        let m = &self.messages[msg.index()];
        let c = &self.consumers[consumer.index()];
        let q = c.queue.index();
        let (op, key, version, ordering, idempotency) =
            (m.op(), m.key, m.version, c.ordering, c.idempotency);
        let entity = c.inbox_entity(key);
        let tables = &mut self.tables[q];
        match idempotency {
            Idempotency::Inbox => tables.take_inbox_row(inbox_key, entity, msg),
            Idempotency::CheckThenInsert => {
                tables.processed.insert(inbox_key.1);
            }
            Idempotency::None => {}
        }
        let mut agg = key.map(|k| tables.aggregate(k)).unwrap_or_default();
        let applied = apply(&mut agg, op);
        if let Some(k) = key {
            agg.version = match ordering {
                // Skipping stale versions compares with the state's version: a refused
                // operation changed nothing, so the state keeps its version.
                Ordering::IgnoreStale if !applied => agg.version,
                // Without ordering it is the last version handled, as it arrived.
                Ordering::None => version,
                // Waiting for gaps tracks the last version handled (refused included), so
                // a refusal does not leave its successors waiting forever.
                _ => agg.version.max(version),
            };
            tables.aggregates.insert(k, agg);
        }
        if !applied {
            self.counters.effects_refused += 1;
            self.facts.push(Fact::EffectRefused {
                msg,
                copy,
                consumer,
                key: key.unwrap_or(0),
            });
            return Outcome::Finished { committed: true };
        }
        let count = self.count_effect(q, msg);
        self.facts.push(Fact::EffectCommitted {
            msg,
            copy,
            attempt,
            consumer,
            applied: count,
        });
        if self.acts_unauthorized(consumer, msg) {
            self.counters.unauthorized_effects += 1;
            self.tables[q].unauthorized += 1;
            self.facts.push(Fact::UnauthorizedEffect {
                msg,
                copy,
                attempt,
                consumer,
                producer: self.messages[msg.index()].producer,
            });
        }
        if self.consumers[consumer.index()].sends_email {
            self.send_consumer_email(consumer, copy, msg);
        }
        Outcome::Finished { committed: true }
    }

    /// The consumer's email for `msg`: outside the transaction, so a duplicate sends it again.
    fn send_consumer_email(&mut self, consumer: ConsumerId, copy: CopyId, msg: MsgId) {
        let q = self.consumers[consumer.index()].queue.index();
        let times = self.tables[q].record_email(msg);
        self.counters.emails_sent += 1;
        self.facts.push(Fact::ConsumerEmailSent {
            msg,
            copy,
            consumer,
            times,
        });
    }

    /// Closes a gap from the source of truth: versions `from..=to` of `key` are applied (in
    /// the consumer's tables, once each) before the message that revealed the gap.
    fn reconcile(&mut self, consumer: ConsumerId, copy: CopyId, key: u32, from: u32, to: u32) {
        let msg = self.copies[copy as usize].msg;
        let producer = self.messages[msg.index()].producer;
        let q = self.consumers[consumer.index()].queue.index();
        for v in from..=to {
            let Some(&pred) = self.by_version.get(&(producer, key, v)) else {
                continue;
            };
            let op = self.messages[pred.index()].op();
            let mut agg = self.tables[q].aggregate(key);
            if apply(&mut agg, op) {
                self.count_effect(q, pred);
            }
            agg.version = agg.version.max(v);
            let entity = self.consumers[consumer.index()].inbox_entity(Some(key));
            let tables = &mut self.tables[q];
            tables.aggregates.insert(key, agg);
            tables.take_inbox_row((producer, pred), entity, pred);
        }
        self.counters.gaps_reconciled += 1;
        self.facts.push(Fact::GapReconciled {
            msg,
            copy,
            consumer,
            key,
            from,
            to,
        });
    }

    /// Whether this delivery is still the copy's current one at the broker.
    fn is_current(&self, copy: CopyId, attempt: Attempt) -> bool {
        let c = &self.copies[copy as usize];
        c.fate == Fate::InFlight && c.attempts == attempt
    }

    /// Work finished: settle with the broker (ack after commit), unless a crash or a lost
    /// ack gets in the way.
    fn complete(&mut self, consumer: ConsumerId, copy: CopyId, attempt: Attempt, committed: bool) {
        let msg = self.copies[copy as usize].msg;
        if self.copies[copy as usize].forgotten_in_crash() {
            // The broker lost it in a crash: nothing to ack, the work is simply finished.
            if self.is_current(copy, attempt) {
                self.counters.done_without_ack += 1;
                self.settle_done(copy);
            }
            return;
        }
        match self.consumers[consumer.index()].ack {
            AckMode::OnDelivery => {
                if self.is_current(copy, attempt) {
                    self.counters.done_without_ack += 1;
                    self.settle_done(copy);
                }
            }
            AckMode::AfterCommit => {
                let c = &mut self.consumers[consumer.index()];
                if committed
                    && c.armed
                        .is_some_and(|a| a.point == CrashPoint::AfterCommitBeforeAck)
                {
                    let armed = c.armed.take().expect("checked");
                    self.crash_consumer(consumer, armed);
                    return;
                }
                if c.drop_next_ack.is_some() || !self.broker_up {
                    c.drop_next_ack = None;
                    self.counters.acks_lost += 1;
                    self.facts.push(Fact::AckLost {
                        msg,
                        copy,
                        attempt,
                        consumer,
                        broker_down: !self.broker_up,
                    });
                    self.keep_prefetch_slot(consumer, copy, attempt);
                    return;
                }
                self.receive_ack(consumer, copy, attempt);
            }
        }
    }

    /// A lost ack on RabbitMQ leaves the delivery unacknowledged at the broker, so it still
    /// counts against the consumer's prefetch (`basic.qos`) until the broker takes it back:
    /// its consumer timeout runs out, the channel closes (a crash) or the broker restarts.
    /// [`Simulation::set_fate`] frees the slot when the copy leaves flight. SQS and the
    /// generic broker have no such window: the copy just waits for its lease.
    fn keep_prefetch_slot(&mut self, consumer: ConsumerId, copy: CopyId, attempt: Attempt) {
        let queue = self.copies[copy as usize].queue;
        if self.queues[queue.index()].flavour == Flavour::Rabbitmq && self.is_current(copy, attempt)
        {
            self.consumers[consumer.index()]
                .lost_acks
                .push((copy, attempt));
        }
    }

    fn receive_ack(&mut self, consumer: ConsumerId, copy: CopyId, attempt: Attempt) {
        let msg = self.copies[copy as usize].msg;
        if self.is_current(copy, attempt) {
            self.counters.acked += 1;
            self.settle_done(copy);
            let twin_held = self.copies[copy as usize]
                .twin()
                .and_then(|t| self.copy(t))
                .is_some_and(|t| super::delivery::is_active(t.fate));
            self.facts.push(Fact::Acked {
                msg,
                copy,
                attempt,
                consumer,
                twin_held,
            });
            return;
        }
        let why = if self.copies[copy as usize].fate == Fate::Done {
            IgnoredAck::AlreadyDone
        } else {
            IgnoredAck::StaleLease
        };
        self.counters.acks_ignored += 1;
        self.facts.push(Fact::AckIgnored {
            msg,
            copy,
            attempt,
            consumer,
            why,
        });
    }

    /// The handler failed: retry after a backoff, dead-letter, or (acked on delivery) lose.
    fn fail(&mut self, consumer: ConsumerId, copy: CopyId, attempt: Attempt, failure: Failure) {
        let msg = self.copies[copy as usize].msg;
        self.counters.handler_failures += 1;
        self.facts.push(Fact::HandlerFailed {
            msg,
            copy,
            attempt,
            consumer,
            failure,
        });
        if !self.is_current(copy, attempt) {
            return; // a stale delivery: the broker has already moved on
        }
        if self.copies[copy as usize].settled_at_broker {
            let reason = self.forgotten_reason(copy, LossReason::AckedBeforeEffectThenFailed);
            self.lose(copy, reason);
            return;
        }
        let c = &mut self.copies[copy as usize];
        c.failures += 1;
        let failures = c.failures;
        let sqs = matches!(
            self.queues[c.queue.index()].flavour,
            Flavour::Sqs | Flavour::SqsFifo
        );
        let policy = &self.consumers[consumer.index()].retry;
        if sqs {
            // SQS has no negative ack: the message is simply not deleted, and comes back
            // after the delay the consumer sets as its visibility timeout (its backoff).
            // Only the queue's redrive policy moves it to the dead-letter queue, once it
            // has been received `max_receive_count` times, poison or not.
            let delay = self.backoff_us(consumer, failures);
            self.schedule_retry(copy, delay);
        } else if let Failure::Poison(kind) = failure {
            self.dead_letter(copy, DeadLetterReason::Poison(kind));
        } else if failure == Failure::TooOld {
            self.dead_letter(copy, DeadLetterReason::TooOld);
        } else if failures >= policy.max_attempts {
            self.dead_letter(copy, DeadLetterReason::RetriesExhausted);
        } else if !self.retry_allowed(consumer) {
            self.deny_retry(consumer, copy);
        } else {
            let delay = self.backoff_us(consumer, failures);
            self.schedule_retry(copy, delay);
        }
    }

    /// The retry budget is spent: the failed message goes to the dead-letter queue.
    fn deny_retry(&mut self, consumer: ConsumerId, copy: CopyId) {
        let d = self.consumers[consumer.index()]
            .dependency
            .expect("only a dependency's budget denies a retry");
        let dep = &mut self.deps[d as usize];
        dep.counters.budget_denied += 1;
        self.facts.push(Fact::RetryDenied {
            msg: self.copies[copy as usize].msg,
            copy,
            consumer,
            dependency: d,
            tokens_milli: (dep.tokens * 1000.0).round() as u64,
        });
        self.dead_letter(copy, DeadLetterReason::RetryBudgetExhausted);
    }

    /// The consumer's retry policy's delay before its next attempt.
    fn backoff_us(&mut self, consumer: ConsumerId, failures: u32) -> Micros {
        super::backoff::delay_us(
            &self.consumers[consumer.index()].retry,
            failures,
            &mut self.rng,
        )
    }

    /// A gap in the versions: the copy goes back, unfailed, and is tried again later.
    fn wait_for_predecessor(&mut self, consumer: ConsumerId, copy: CopyId, attempt: Attempt) {
        if !self.is_current(copy, attempt) || self.copies[copy as usize].settled_at_broker {
            // Nobody can put it back: the broker already forgot it.
            if self.is_current(copy, attempt) {
                let reason = self.forgotten_reason(copy, LossReason::AckedBeforeEffectThenFailed);
                self.lose(copy, reason);
            }
            return;
        }
        // Look again after the retry policy's base delay (not growing: waiting is not
        // failing), but at least a hundredth of the gap timeout, so a tiny base delay
        // cannot turn one wait into thousands of steps.
        let c = &self.consumers[consumer.index()];
        let timeout = c.gap_timeout_us;
        let wait = secs_to_us(c.retry.backoff_base_s)
            .max(timeout / 100)
            .max(1_000);
        let ready_at_us = self.hide_for(copy, wait);
        let since = self.copies[copy as usize]
            .gap_since_us()
            .unwrap_or(self.now_us);
        let msg = self.copies[copy as usize].msg;
        self.facts.push(Fact::GapRecheck {
            msg,
            copy,
            consumer,
            ready_at_us,
            gives_up_at_us: since.saturating_add(timeout),
        });
    }

    /// Why a copy the broker no longer tracks is lost: its crash, or the early ack.
    pub(super) fn forgotten_reason(&self, copy: CopyId, otherwise: LossReason) -> LossReason {
        if self.copies[copy as usize].forgotten_in_crash() {
            LossReason::BrokerRestartNotDurable
        } else {
            otherwise
        }
    }
}

/// Applies an operation to an aggregate; `false` if a business rule refuses it.
pub(super) fn apply(agg: &mut Aggregate, op: Op) -> bool {
    match op {
        Op::Increment => agg.count += 1,
        Op::SetStatus => agg.status_done = true,
        Op::Deposit(n) => agg.balance += n,
        Op::Withdraw(n) if agg.balance >= n => agg.balance -= n,
        Op::Withdraw(_) => return false,
    }
    true
}
