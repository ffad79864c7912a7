//! Inside the broker: each queue's waiting line, dispatch to consumers, leases, time to
//! live, retry backoffs, the dead-letter queue and redrive. Every change of a copy's fate
//! goes through [`Simulation::set_fate`], which keeps the per-queue tallies and counters.

use super::{lease_lane, ttl_lane, Simulation};
use crate::engine::Event;
use crate::message::{DeadLetter, Fate, Holder, MessageCopy, Rare};
use crate::queue::FifoGroups;
use crate::scenario::{AckMode, CrashPoint, Flavour, QueueType};
use crate::step::{
    Attempt, ConsumerId, CopyId, DeadLetterReason, Fact, LossReason, MsgId, ProducerId, QueueId,
    Trigger,
};
use crate::time::{secs_to_us, Micros, When};

/// Waiting, in flight or waiting for a retry: a copy the queue still holds.
pub(super) fn is_active(f: Fate) -> bool {
    matches!(f, Fate::Waiting | Fate::InFlight | Fate::RetryWaiting)
}

/// In flight or waiting for a retry: its message group is busy on an SQS FIFO queue.
fn is_busy(f: Fate) -> bool {
    matches!(f, Fate::InFlight | Fate::RetryWaiting)
}

impl Simulation {
    /// Moves a copy to a new fate, keeping every tally in step. Callers handle the line
    /// itself (insertion and removal) and the facts.
    ///
    /// One lookup of the copy for the whole move (a copy changes fate three times or more
    /// per message, on the hot path), and the message's record only when the move changes
    /// its copies' tally: a delivery (waiting → in flight) and its return (in flight or
    /// retrying → waiting) stay in the tally's first slot, so the job's status cannot move.
    pub(super) fn set_fate(&mut self, copy: CopyId, to: Fate) {
        let c = &mut self.copies[copy as usize];
        let (msg, from, queue, holder) = (c.msg, c.fate, c.queue, c.holder);
        c.fate = to;
        if is_busy(from) != is_busy(to) && self.queues[queue.index()].flavour == Flavour::SqsFifo {
            self.track_group(msg, queue, to);
        }
        if from == Fate::InFlight {
            self.free_lost_ack_slot(copy, holder);
        }
        let (from_slot, to_slot) = (from.tally_slot(), to.tally_slot());
        if from_slot != to_slot {
            self.change_job(msg, |m| {
                m.copy_tally[from_slot] -= 1;
                m.copy_tally[to_slot] += 1;
            });
        }
        let q = &mut self.queues[queue.index()];
        match from {
            Fate::Waiting => self.waiting_total -= 1,
            Fate::InFlight => q.in_flight -= 1,
            Fate::RetryWaiting => q.retry_waiting -= 1,
            _ => {}
        }
        if to == Fate::Waiting && q.flavour == Flavour::Rabbitmq {
            // A delivery that returns to the ready line was admitted already: it may stand
            // above x-max-length (which only new publishes must respect) until it drains.
            q.bound_grace = q.bound_grace.max(q.line.len() as u64 + 1);
        }
        match to {
            Fate::Waiting => self.waiting_total += 1,
            Fate::InFlight => q.in_flight += 1,
            Fate::RetryWaiting => q.retry_waiting += 1,
            Fate::Done => self.counters.done += 1,
            Fate::Lost => self.counters.lost += 1,
            Fate::Expired => self.counters.expired += 1,
            Fate::Dropped => self.counters.dropped += 1,
            Fate::DeadLettered => self.counters.dead_lettered += 1,
        }
        match (is_active(from), is_active(to)) {
            (true, false) => {
                q.held -= 1;
                self.held_total -= 1;
                if !q.redrive_pending && q.redrive_per_s.is_some() && !q.dlq.is_empty() {
                    q.redrive_pending = true;
                    self.events
                        .schedule(self.now_us, Event::RedriveTick { queue });
                }
                if !self.queues[queue.index()].throttled.is_empty() {
                    self.release_throttled(queue);
                }
            }
            (false, true) => {
                q.held += 1;
                self.held_total += 1;
            }
            _ => {}
        }
    }

    /// A copy leaving flight is settled at the broker one way or another (requeued, dead-
    /// lettered, lost in a restart): if its holder's ack had been lost, the prefetch slot
    /// it kept is free again (see `keep_prefetch_slot`).
    fn free_lost_ack_slot(&mut self, copy: CopyId, holder: Holder) {
        let Some(holder) = holder.get() else {
            return;
        };
        let lost = &mut self.consumers[holder.index()].lost_acks;
        if !lost.is_empty() {
            lost.retain(|&(c, _)| c != copy);
        }
    }

    /// Keeps the count of copies in flight or waiting for a retry per message group (the
    /// key): SQS FIFO delivers no more of a group while one of its messages is out.
    /// Only SQS FIFO queues keep it (two hash map changes per delivery on every queue
    /// showed in the profile); a queue switched to SQS FIFO counts its copies then
    /// ([`Simulation::recount_fifo_groups`]).
    fn track_group(&mut self, msg: MsgId, queue: QueueId, to: Fate) {
        let key = self.messages[msg.index()].key;
        let groups = &mut self.queues[queue.index()].fifo;
        if is_busy(to) {
            groups.busy_in(key);
        } else {
            groups.busy_out(key);
        }
    }

    /// Keeps an SQS FIFO queue's groups' places in line (see [`FifoGroups`]): `copy`
    /// has just gone in line (`into`) or out of queue `queue`'s line. Every change of a
    /// line calls it; other flavours pay one comparison.
    fn track_line(&mut self, queue: usize, copy: CopyId, into: bool) {
        if self.queues[queue].flavour != Flavour::SqsFifo {
            return;
        }
        let c = self.copies.peek(copy as usize).expect("in line");
        let (msg, seq) = (c.msg, c.line_seq);
        // Peeked: a long-lived message leaving the line stays packed.
        let key = self.messages.peek(msg.index()).expect("held").key;
        let groups = &mut self.queues[queue].fifo;
        if into {
            groups.line_in(key, seq);
        } else {
            groups.line_out(key, seq);
        }
    }

    /// Counts queue `q`'s copies per message group afresh: it has just become an SQS
    /// FIFO queue (the only flavour that keeps the counts).
    pub(super) fn recount_fifo_groups(&mut self, q: QueueId) {
        self.queues[q.index()].fifo = self.fifo_groups_recounted(q);
    }

    /// Queue `q`'s message groups as an SQS FIFO queue keeps them, counted from scratch
    /// (its busy copies, its line): what it keeps must equal this while it is SQS FIFO
    /// (the invariant check compares them).
    pub(crate) fn fifo_groups_recounted(&self, q: QueueId) -> FifoGroups {
        let mut groups = FifoGroups::default();
        let key = |c: &MessageCopy| self.messages.peek(c.msg.index()).expect("held").key;
        for c in self.copies.iter() {
            if c.queue == q && is_busy(c.fate) {
                groups.busy_in(key(&c));
            }
        }
        for &id in &self.queues[q.index()].line {
            let c = self.copies.peek(id as usize).expect("in line");
            groups.line_in(key(&c), c.line_seq);
        }
        groups
    }

    /// SQS FIFO: whether `msg` was stored in `q` within the deduplication window; if so
    /// the publish is accepted and not stored again.
    pub(super) fn dedup_window_hit(
        &mut self,
        producer: ProducerId,
        msg: MsgId,
        q: QueueId,
    ) -> bool {
        let queue = &self.queues[q.index()];
        if queue.flavour != Flavour::SqsFifo {
            return false;
        }
        let window = queue.dedup_window_us;
        let hit = queue
            .stored_at
            .get(&msg)
            .is_some_and(|&at| self.now_us - at < window);
        if hit {
            self.counters.deduplicated += 1;
            self.facts.push(Fact::DedupWindowHit {
                producer,
                msg,
                queue: q,
            });
        }
        hit
    }

    /// The broker stores a new copy of `msg` in queue `q`.
    pub(super) fn store(&mut self, producer: ProducerId, msg: MsgId, q: QueueId) {
        let copy = self.copies.len() as CopyId;
        let p = &self.producers[producer.index()];
        let persistent = p.publish.persistent;
        let stable = !matches!(
            p.handoff,
            crate::scenario::Handoff::Outbox {
                stable_ids: false,
                ..
            }
        );
        // The message id itself unless the relay mints one per publish attempt.
        let event_attempt = if stable {
            0
        } else {
            self.messages[msg.index()].publish_attempts
        };
        self.copies.push(MessageCopy {
            msg,
            queue: q,
            fate: Fate::Dropped, // placeholder: set_fate below makes it Waiting
            attempts: 0,
            failures: 0,
            holder: Holder::NONE,
            settled_at_broker: false,
            event_attempt,
            persistent,
            stored_us: self.now_us,
            enqueued_us: self.now_us,
            line_seq: 0,
            first_delivered_us: When::NEVER,
            lease_or_done_us: When::NEVER,
            rare: Rare::default(),
        });
        self.set_fate_new_waiting(copy);
        let queue = &mut self.queues[q.index()];
        if queue.flavour == Flavour::SqsFifo {
            queue.stored_at.insert(msg, self.now_us);
        }
        if queue.max_length.is_none_or(|max| queue.occupancy() <= max) {
            queue.bound_grace = 0;
        }
        let m = &mut self.messages[msg.index()];
        m.held_copies += 1;
        m.set_broker_remembers(true);
        self.counters.published += 1;
        self.facts.push(Fact::Stored {
            producer,
            msg,
            copy,
            queue: q,
        });
        self.dispatch(q);
    }

    /// A brand-new copy enters its queue: no previous fate to undo.
    fn set_fate_new_waiting(&mut self, copy: CopyId) {
        let msg = self.copies[copy as usize].msg;
        self.change_job(msg, |m| m.copy_tally[Fate::Waiting.tally_slot()] += 1);
        let c = &mut self.copies[copy as usize];
        c.fate = Fate::Waiting;
        self.waiting_total += 1;
        self.queues[c.queue.index()].held += 1;
        self.held_total += 1;
        self.enqueue_at_tail(copy);
    }

    /// Puts a copy at the end of its queue's line (a new stay: new place, new age, new TTL).
    fn enqueue_at_tail(&mut self, copy: CopyId) {
        let c = &mut self.copies[copy as usize];
        let q = &mut self.queues[c.queue.index()];
        c.line_seq = q.next_line_seq;
        c.enqueued_us = self.now_us;
        q.next_line_seq += 1;
        q.line.push_back(copy);
        let (queue, line_seq, ttl) = (c.queue, c.line_seq, q.ttl_us);
        self.track_line(queue.index(), copy, true);
        if let Some(ttl) = ttl {
            self.events.schedule_in_lane(
                ttl_lane(queue),
                self.now_us.saturating_add(ttl),
                Event::TtlExpired { copy, line_seq },
            );
        }
    }

    /// Puts a copy back at its old place in line (its lease ran out: it keeps its age).
    fn reinsert(&mut self, copy: CopyId) {
        let seq = self.copies[copy as usize].line_seq;
        let q = self.copies[copy as usize].queue.index();
        let copies = &self.copies;
        let line = &mut self.queues[q].line;
        let pos = line.partition_point(|&c| copies[c as usize].line_seq < seq);
        line.insert(pos, copy);
        self.track_line(q, copy, true);
    }

    fn remove_from_line(&mut self, copy: CopyId) {
        let seq = self.copies[copy as usize].line_seq;
        let q = self.copies[copy as usize].queue.index();
        let copies = &self.copies;
        let line = &mut self.queues[q].line;
        let pos = line.partition_point(|&c| copies[c as usize].line_seq < seq);
        debug_assert_eq!(line.get(pos), Some(&copy));
        line.remove(pos);
        self.track_line(q, copy, false);
    }

    /// Hands waiting copies to this queue's consumers with room, round robin, in line order.
    pub(super) fn dispatch(&mut self, q: QueueId) {
        if !self.broker_up {
            return;
        }
        while let Some(pos) = self.next_deliverable(q) {
            let Some(consumer) = self.pick_consumer(q) else {
                break;
            };
            let copy = self.queues[q.index()]
                .line
                .remove(pos)
                .expect("a deliverable copy is in line");
            self.track_line(q.index(), copy, false);
            let bound = self.queues[q.index()].delivery_bound();
            if bound.is_some_and(|max| self.copies[copy as usize].deliveries_toward_limit() >= max)
            {
                // The broker's delivery limit (quorum delivery-limit, SQS maxReceiveCount):
                // instead of another delivery, the dead-letter queue.
                self.dead_letter(copy, DeadLetterReason::DeliveryLimitReached);
                continue;
            }
            self.deliver(copy, consumer);
        }
        for i in 0..self.queues[q.index()].consumers.len() {
            let c = self.queues[q.index()].consumers[i];
            if self.consumers[c.index()].batch_size > 1 {
                self.start_work(c);
            }
        }
    }

    /// Where in line the next copy to deliver is: the front, except on SQS FIFO, where
    /// it is the first copy whose message group has nothing in flight.
    fn next_deliverable(&self, q: QueueId) -> Option<usize> {
        let queue = &self.queues[q.index()];
        if queue.line.is_empty() {
            return None;
        }
        if queue.flavour != Flavour::SqsFifo {
            return Some(0);
        }
        // The first copy in line whose group has nothing out, read off the groups' own
        // order (walking the line for it cost a walk of every busy group's copies ahead
        // at each dispatch: quadratic in a backlog behind one busy hot group).
        let seq = queue.fifo.first_free()?;
        let copies = &self.copies;
        let pos = queue
            .line
            .partition_point(|&c| copies.peek(c as usize).expect("in line").line_seq < seq);
        debug_assert!(queue
            .line
            .get(pos)
            .is_some_and(|&c| copies[c as usize].line_seq == seq));
        Some(pos)
    }

    /// Whether a consumer of queue `q` may take another delivery. RabbitMQ ignores
    /// prefetch for consumers in automatic acknowledgement mode: it pushes all it has.
    fn can_take(&self, q: QueueId, consumer: ConsumerId) -> bool {
        let c = &self.consumers[consumer.index()];
        if self.queues[q.index()].flavour == Flavour::Rabbitmq && c.ack == AckMode::OnDelivery {
            return c.up && !c.retiring && c.pending_ack.is_none();
        }
        c.can_take()
    }

    fn pick_consumer(&mut self, q: QueueId) -> Option<ConsumerId> {
        let queue = &self.queues[q.index()];
        let n = queue.consumers.len();
        for i in 0..n {
            let idx = (queue.next_consumer + i) % n;
            let c = queue.consumers[idx];
            if self.can_take(q, c) {
                self.queues[q.index()].next_consumer = (idx + 1) % n;
                return Some(c);
            }
        }
        None
    }

    fn deliver(&mut self, copy: CopyId, consumer: ConsumerId) {
        let now = self.now_us;
        self.set_fate(copy, Fate::InFlight);
        let receiver = &mut self.consumers[consumer.index()];
        receiver.prefetch_grace = 0;
        // It holds nothing now (see `can_take`): the new subscription's ack mode applies.
        if let Some(ack) = receiver.pending_ack.take() {
            receiver.ack = ack;
            self.facts.push(Fact::AckModeSwitched { consumer, ack });
        }
        let ack = self.consumers[consumer.index()].ack;
        let c = &mut self.copies[copy as usize];
        c.attempts += 1;
        c.holder = Holder::of(consumer);
        let (attempt, msg, queue) = (c.attempts, c.msg, c.queue);
        if c.first_delivered_us.is_none() {
            c.first_delivered_us = When::at(now);
            self.queue_wait_sum_us += u128::from(now - c.stored_us);
            self.queue_waits.record(now - c.stored_us);
            self.queue_wait_count += 1;
        }
        self.counters.delivered += 1;
        if attempt > 1 {
            self.counters.redelivered += 1;
        }
        match ack {
            AckMode::AfterCommit => {
                let until = now.saturating_add(self.queues[queue.index()].lease_for_delivery_us());
                // RabbitMQ has no lease: only its consumer timeout, which is not a countdown
                // to a redelivery the way a visibility timeout is.
                let shown =
                    (self.queues[queue.index()].flavour != Flavour::Rabbitmq).then_some(until);
                self.arm_lease(queue, copy, attempt, until, shown);
                self.facts.push(Fact::Delivered {
                    msg,
                    copy,
                    attempt,
                    consumer,
                    lease_until_us: shown,
                });
            }
            AckMode::OnDelivery => {
                c.settled_at_broker = true;
                self.facts.push(Fact::Delivered {
                    msg,
                    copy,
                    attempt,
                    consumer,
                    lease_until_us: None,
                });
                self.facts.push(Fact::AckedOnDelivery {
                    msg,
                    copy,
                    attempt,
                    consumer,
                });
            }
        }
        self.count_receive_on_twin(copy);
        self.maybe_keep_duplicate(copy);
        self.consumer_receives(consumer, copy, attempt);
    }

    /// SQS: a receive of one copy of a duplicate pair raises the receive count of the
    /// message, which the other copy carries too, so the redrive policy counts the
    /// receives of both. Not once a redrive has made either a new message, nor for a
    /// copy already finished (it is never received again).
    fn count_receive_on_twin(&mut self, copy: CopyId) {
        let c = &self.copies[copy as usize];
        let Some(twin) = c.twin() else {
            return;
        };
        if c.redrives() > 0 {
            return;
        }
        if let Some(other) = self.copies.get_mut(twin as usize) {
            if other.redrives() == 0 && !other.fate.is_final() {
                other.rare.get_mut().twin_receives += 1;
            }
        }
    }

    /// SQS standard queues deliver at least once: now and then a receive leaves a copy
    /// on another server, which a later receive hands out again. Drawn from the seeded
    /// generator, only on SQS queues.
    fn maybe_keep_duplicate(&mut self, copy: CopyId) {
        let c = &self.copies[copy as usize];
        let (msg, q, persistent, event_attempt) = (c.msg, c.queue, c.persistent, c.event_attempt);
        let queue = &self.queues[q.index()];
        // Only a stored copy's first receive can leave a duplicate, and a duplicate never
        // leaves another: at most one extra delivery per stored copy, so it stays rare.
        if queue.flavour != Flavour::Sqs
            || queue.duplicate_p <= 0.0
            || c.attempts != 1
            || c.duplicate_of().is_some()
        {
            return;
        }
        let p = queue.duplicate_p;
        if self.rng.uniform() >= p {
            return;
        }
        let twin = self.copies.len() as CopyId;
        let now = self.now_us;
        self.copies.push(MessageCopy {
            msg,
            queue: q,
            fate: Fate::Dropped, // placeholder: set_fate_new_waiting makes it Waiting
            attempts: 0,
            failures: 0,
            holder: Holder::NONE,
            settled_at_broker: false,
            persistent,
            stored_us: now,
            enqueued_us: now,
            line_seq: 0,
            first_delivered_us: When::NEVER,
            lease_or_done_us: When::NEVER,
            rare: Rare::default(),
            // The same message received twice: its id is the original's, so an
            // idempotent consumer recognises the duplicate.
            event_attempt,
        });
        let rare = self.copies[twin as usize].rare.get_mut();
        rare.duplicate_of = Some(copy);
        // The same message: the receive that left it behind is one of its receives.
        rare.twin_receives = 1;
        self.copies[copy as usize].rare.get_mut().twin = Some(twin);
        self.set_fate_new_waiting(twin);
        let queue = &mut self.queues[q.index()];
        // Not a publish: it may stand above the bound until it drains.
        queue.bound_grace = queue.bound_grace.max(queue.held);
        let m = &mut self.messages[msg.index()];
        m.held_copies += 1;
        self.counters.published += 1;
        self.facts.push(Fact::DuplicateKept {
            msg,
            copy,
            twin,
            queue: q,
        });
    }

    /// A consumer still working on this delivery with a visibility heartbeat extends its
    /// lease instead of letting it run out.
    fn extends_lease(&self, copy: CopyId, attempt: Attempt, consumer: ConsumerId) -> bool {
        let c = &self.consumers[consumer.index()];
        let queue = &self.queues[c.queue.index()];
        c.up && c.extend_visibility
            && queue.flavour != Flavour::Rabbitmq
            && c.working
                .iter()
                .chain(c.buffer.iter())
                .any(|h| h.copy == copy && h.attempt == attempt)
    }

    /// The lease of `copy`'s delivery `attempt` runs out at `until`; the copy shows
    /// `shown` as its lease (none where the broker has no countdown to a redelivery).
    fn arm_lease(
        &mut self,
        queue: QueueId,
        copy: CopyId,
        attempt: Attempt,
        until: Micros,
        shown: Option<Micros>,
    ) {
        self.copies[copy as usize].lease_or_done_us = When::from(shown);
        // All leases of a queue have the same length, so they expire in order.
        self.events.schedule_in_lane(
            lease_lane(queue),
            until,
            Event::LeaseExpired { copy, attempt },
        );
    }

    pub(super) fn expire_lease(&mut self, copy: CopyId, attempt: Attempt) {
        let c = &self.copies[copy as usize];
        let (msg, queue) = (c.msg, c.queue);
        let consumer = c.holder().expect("a delivered copy has a holder");
        if self.extends_lease(copy, attempt, consumer) {
            let until = self
                .now_us
                .saturating_add(self.queues[queue.index()].lease_us);
            self.arm_lease(queue, copy, attempt, until, Some(until));
            self.facts.push(Fact::LeaseExtended {
                msg,
                copy,
                attempt,
                consumer,
                lease_until_us: until,
            });
            return;
        }
        if self.queues[queue.index()].flavour == Flavour::Generic {
            // Generic queues bound redelivery through the retry policy: a lease that runs
            // out counts as a failed attempt, so a lease shorter than the work ends in the
            // dead-letter queue instead of looping for ever.
            let max = self.consumers[consumer.index()].retry.max_attempts;
            let c = &mut self.copies[copy as usize];
            c.failures += 1;
            if c.failures >= max {
                self.counters.leases_expired += 1;
                self.dead_letter(copy, DeadLetterReason::DeliveryLimitReached);
                return;
            }
        }
        self.set_fate(copy, Fate::Waiting);
        self.reinsert(copy);
        self.counters.leases_expired += 1;
        self.facts.push(Fact::LeaseExpired {
            msg,
            copy,
            attempt,
            consumer,
        });
        self.expire_if_overdue(copy);
        if self.queues[queue.index()].flavour == Flavour::Rabbitmq {
            self.close_timed_out_channel(consumer);
        }
        self.dispatch(queue);
    }

    /// RabbitMQ's consumer timeout closes the consumer's channel, not only the late
    /// delivery's: every other delivery still unacked on it (buffered, under way, or whose
    /// ack was lost) goes back in line at once too, by the same rule as a crash's closing
    /// channel. The consumer process lives on and opens a new channel: work under way
    /// finishes, and its ack, sent on the closed channel, counts for nothing; the buffered
    /// deliveries are dropped from its memory. (Only a consumer acking after commit has a
    /// timeout to run out, and all it holds is acked so: nothing it holds was settled on
    /// delivery, which a closing channel would count as lost.)
    fn close_timed_out_channel(&mut self, consumer: ConsumerId) {
        let c = &mut self.consumers[consumer.index()];
        let unacked: Vec<(CopyId, Attempt)> = c
            .buffer
            .drain(..)
            .chain(c.working.iter().copied())
            .map(|h| (h.copy, h.attempt))
            .chain(c.lost_acks.drain(..))
            .collect();
        self.close_channel(consumer, unacked);
    }

    /// RabbitMQ: an unacked delivery returns to its place in line at once.
    pub(super) fn requeue(&mut self, copy: CopyId, attempt: Attempt, consumer: ConsumerId) {
        self.set_fate(copy, Fate::Waiting);
        self.reinsert(copy);
        let msg = self.copies[copy as usize].msg;
        self.facts.push(Fact::Requeued {
            msg,
            copy,
            attempt,
            consumer,
        });
        self.expire_if_overdue(copy);
    }

    /// A copy back at its place in line whose time to live ran out while it was out for
    /// delivery expires now, instead of being delivered again: a requeued message keeps
    /// its expiry (RabbitMQ expires or dead-letters it). Its TTL event found it out then,
    /// and was dropped as moot.
    fn expire_if_overdue(&mut self, copy: CopyId) {
        let c = &self.copies[copy as usize];
        let Some(ttl) = self.queues[c.queue.index()].ttl_us else {
            return;
        };
        if c.fate == Fate::Waiting && self.now_us >= c.enqueued_us.saturating_add(ttl) {
            self.expire_ttl(copy);
        }
    }

    /// A failed copy waits out its backoff, invisible, then comes back: at the end of the
    /// line, or at its old place on SQS FIFO and quorum queues (see `retry_due`).
    pub(super) fn schedule_retry(&mut self, copy: CopyId, delay_us: Micros) {
        let ready_at_us = self.hide_for(copy, delay_us);
        let c = &self.copies[copy as usize];
        self.facts.push(Fact::RetryScheduled {
            msg: c.msg,
            copy,
            failures: c.failures,
            ready_at_us,
        });
    }

    /// Hides a copy for `delay_us` (a retry backoff or a gap wait); returns when it is
    /// visible again.
    pub(super) fn hide_for(&mut self, copy: CopyId, delay_us: Micros) -> Micros {
        self.set_fate(copy, Fate::RetryWaiting);
        let attempt = self.copies[copy as usize].attempts;
        let ready_at_us = self.now_us.saturating_add(delay_us);
        self.events
            .schedule(ready_at_us, Event::RetryDue { copy, attempt });
        self.counters.retries_scheduled += 1;
        ready_at_us
    }

    pub(super) fn retry_due(&mut self, copy: CopyId) {
        if !self.broker_up {
            // The retry state is the broker's (a delay queue, a hidden message): nothing
            // there moves while it is down. The copy goes back in line at its restart.
            self.retries_due_while_down.push(copy);
            return;
        }
        self.set_fate(copy, Fate::Waiting);
        let queue = &self.queues[self.copies[copy as usize].queue.index()];
        let returned_near_head = match queue.flavour {
            // FIFO: it keeps its place, ahead of the later messages of its group.
            Flavour::SqsFifo => true,
            // A quorum queue: the failed delivery is returned (a reject with requeue),
            // which counts toward the delivery limit; with a limit set (always, since
            // RabbitMQ 4.0) a returned message goes back near the head of the queue,
            // keeping its age and its expiry.
            Flavour::Rabbitmq => queue.queue_type == QueueType::Quorum,
            Flavour::Generic | Flavour::Sqs => false,
        };
        if returned_near_head {
            self.reinsert(copy);
        } else {
            self.enqueue_at_tail(copy);
        }
        let c = &self.copies[copy as usize];
        let (msg, queue) = (c.msg, c.queue);
        self.facts.push(Fact::RetryReady { msg, copy });
        self.expire_if_overdue(copy);
        self.dispatch(queue);
    }

    /// Whether queue `q` dead-letters what it drops or expires (RabbitMQ with a
    /// dead-letter exchange); the other flavours just lose it.
    fn dead_letters_drops(&self, q: QueueId) -> bool {
        let queue = &self.queues[q.index()];
        queue.flavour == Flavour::Rabbitmq && queue.dead_letter
    }

    pub(super) fn expire_ttl(&mut self, copy: CopyId) {
        self.remove_from_line(copy);
        if self.dead_letters_drops(self.copies[copy as usize].queue) {
            self.dead_letter(copy, DeadLetterReason::Expired);
            return;
        }
        self.set_fate(copy, Fate::Expired);
        let c = &self.copies[copy as usize];
        self.facts.push(Fact::Expired {
            msg: c.msg,
            copy,
            queue: c.queue,
        });
    }

    pub(super) fn drop_oldest(&mut self, q: QueueId) {
        let copy = self.queues[q.index()]
            .line
            .pop_front()
            .expect("caller checked the line");
        self.track_line(q.index(), copy, false);
        if self.dead_letters_drops(q) {
            self.dead_letter(copy, DeadLetterReason::MaxLength);
            return;
        }
        self.set_fate(copy, Fate::Dropped);
        let msg = self.copies[copy as usize].msg;
        self.facts.push(Fact::DroppedOldest {
            msg,
            copy,
            queue: q,
        });
    }

    /// A copy failed for good: into the dead-letter queue, or lost if there is none.
    pub(super) fn dead_letter(&mut self, copy: CopyId, reason: DeadLetterReason) {
        let c = &self.copies[copy as usize];
        // The message's deliveries: an SQS duplicate's receives count as its own.
        let attempts = c.attempts.saturating_add(c.twin_receives());
        let (msg, queue, redrives) = (c.msg, c.queue, c.redrives());
        if !self.queues[queue.index()].dead_letter {
            self.lose(copy, LossReason::DiscardedWithoutDeadLetterQueue);
            return;
        }
        let entry = DeadLetter {
            copy,
            msg,
            reason,
            attempts,
            first_attempt_us: c.first_delivered_us.get(),
            last_attempt_us: self.now_us,
            source: queue,
        };
        self.set_fate(copy, Fate::DeadLettered);
        if redrives > 0 {
            self.counters.dead_lettered_again += 1;
        }
        self.queues[queue.index()].dlq.push_back(entry);
        self.facts.push(Fact::DeadLettered {
            msg,
            copy,
            queue,
            reason,
            attempts,
        });
    }

    pub(super) fn lose(&mut self, copy: CopyId, reason: LossReason) {
        match reason {
            LossReason::AckedBeforeEffectThenCrashed | LossReason::AckedBeforeEffectThenFailed => {
                self.counters.lost_acked_before_effect += 1
            }
            LossReason::BrokerRestartNotDurable => self.counters.lost_broker_restart += 1,
            LossReason::DiscardedWithoutDeadLetterQueue => {
                self.counters.lost_without_dead_letter_queue += 1
            }
        }
        self.set_fate(copy, Fate::Lost);
        let msg = self.copies[copy as usize].msg;
        self.facts.push(Fact::MessageLost { msg, copy, reason });
    }

    pub(super) fn settle_done(&mut self, copy: CopyId) {
        self.set_fate(copy, Fate::Done);
        let now = self.now_us;
        let c = &mut self.copies[copy as usize];
        c.lease_or_done_us = When::at(now);
        let created = self.messages[c.msg.index()].created_us;
        self.latencies.record(now - created);
    }

    /// Starts moving the copies now in `q`'s dead-letter queue back into it, at `rate_per_s`.
    /// At the broker's restart: the retries that became due while it was down go back
    /// to their lines, in the order they became due (those a crash since made the broker
    /// forget are lost already, and stay so).
    pub(super) fn retries_due_at_restart(&mut self) {
        for copy in std::mem::take(&mut self.retries_due_while_down) {
            if self.copies.get(copy as usize).map(|c| c.fate) == Some(Fate::RetryWaiting) {
                self.retry_due(copy);
            }
        }
    }

    pub(super) fn start_redrive(&mut self, q: QueueId, rate_per_s: f64, trigger: Trigger) {
        let queue = &mut self.queues[q.index()];
        queue.redrive_per_s = Some(rate_per_s);
        queue.redrive_left = queue.dlq.len() as u64;
        // Told, so that the step the command takes has a sentence of its own.
        self.facts.push(Fact::RedriveStarted {
            queue: q,
            count: queue.redrive_left,
            milli_per_s: (rate_per_s * 1_000.0).round() as u64,
            broker_down: !self.broker_up,
            trigger,
        });
        self.resume_redrive(q);
    }

    pub(super) fn resume_redrive(&mut self, q: QueueId) {
        let queue = &mut self.queues[q.index()];
        if !queue.redrive_pending && queue.redrive_left > 0 {
            queue.redrive_pending = true;
            self.events
                .schedule(self.now_us, Event::RedriveTick { queue: q });
        }
    }

    pub(super) fn redrive_tick(&mut self, q: QueueId) {
        let queue = &mut self.queues[q.index()];
        queue.redrive_pending = false;
        if queue.redrive_left == 0 {
            return;
        }
        if queue.is_full() || !self.broker_up {
            // Redrive respects the queue's limit: it resumes when a copy leaves the queue
            // (or when the broker is back).
            return;
        }
        let Some(entry) = queue.dlq.pop_front() else {
            queue.redrive_left = 0;
            queue.redrive_per_s = None;
            return;
        };
        queue.redrive_left -= 1;
        let rate = queue.redrive_per_s.unwrap_or(1.0);
        let copy = entry.copy;
        let c = &mut self.copies[copy as usize];
        c.failures = 0;
        let deliveries = c.attempts;
        let rare = c.rare.get_mut();
        rare.gap_since_us = None;
        rare.redrives += 1;
        // Back in the queue as a new message: its delivery limit counts from here.
        rare.deliveries_at_redrive = deliveries;
        rare.twin_receives = 0;
        let msg = c.msg;
        self.set_fate(copy, Fate::Waiting);
        self.enqueue_at_tail(copy);
        self.counters.redriven += 1;
        self.facts.push(Fact::Redriven {
            msg,
            copy,
            queue: q,
        });
        let queue = &mut self.queues[q.index()];
        if queue.redrive_left == 0 || queue.dlq.is_empty() {
            queue.redrive_left = 0;
            queue.redrive_per_s = None;
        } else {
            queue.redrive_pending = true;
            self.events.schedule(
                self.now_us.saturating_add(secs_to_us(1.0 / rate).max(1)),
                Event::RedriveTick { queue: q },
            );
        }
        self.dispatch(q);
    }

    /// The broker restarts from disk: what was persistent in a durable queue, and anything
    /// in a quorum or SQS queue, is still there (deliveries in flight are back in line,
    /// except on SQS, where they stay hidden until their visibility timeout), in the queue
    /// and in its dead-letter queue alike; the rest is gone.
    pub(super) fn broker_forgets(&mut self) {
        // An idempotent producer's dedup entry survives only with a persisted copy.
        // Released messages and copies were finished: a restart changes nothing for them.
        let mut persisted = std::collections::BTreeSet::new();
        for copy in self.copies.ids().into_iter().map(|id| id as CopyId) {
            let c = &self.copies[copy as usize];
            let kept = self.queues[c.queue.index()].survives_restart(c.persistent);
            if kept {
                persisted.insert(c.msg.index());
            }
            // A consumer already working on a copy the broker forgets still finishes it:
            // the broker can no longer redeliver it, so its fate is the consumer's outcome
            // (done, or lost if the work fails), never "lost" while its effect may commit.
            if !kept
                && c.fate == Fate::InFlight
                && !c.settled_at_broker
                && self.being_processed(copy)
            {
                let c = &mut self.copies[copy as usize];
                c.settled_at_broker = true;
                c.rare.get_mut().forgotten_in_crash = true;
                continue;
            }
            match c.fate {
                Fate::Waiting if !kept => {
                    self.remove_from_line(copy);
                    self.lose(copy, LossReason::BrokerRestartNotDurable);
                }
                Fate::RetryWaiting if !kept => self.lose(copy, LossReason::BrokerRestartNotDurable),
                Fate::InFlight if !c.settled_at_broker => {
                    if kept && self.queues[c.queue.index()].keeps_leases_through_restart() {
                        // SQS: a received message stays hidden until its visibility
                        // timeout; its receipt handle still deletes it afterwards.
                        continue;
                    }
                    if kept {
                        self.set_fate(copy, Fate::Waiting);
                        self.reinsert(copy);
                        self.expire_if_overdue(copy);
                    } else {
                        self.lose(copy, LossReason::BrokerRestartNotDurable);
                    }
                }
                _ => {}
            }
        }
        // A dead-letter queue is a queue like its own (same durability, same type), and a
        // dead-lettered message keeps its delivery mode: a transient one, or any in a
        // non-durable classic queue's dead-letter queue, is gone too.
        for q in self.queue_ids() {
            let dlq = std::mem::take(&mut self.queues[q.index()].dlq);
            let (kept, gone): (Vec<_>, Vec<_>) = dlq.into_iter().partition(|e| {
                let persistent = self.copies[e.copy as usize].persistent;
                self.queues[q.index()].survives_restart(persistent)
            });
            let queue = &mut self.queues[q.index()];
            queue.dlq = kept.into();
            queue.redrive_left = queue.redrive_left.min(queue.dlq.len() as u64);
            for e in gone {
                self.counters.dead_letters_lost += 1;
                self.lose(e.copy, LossReason::BrokerRestartNotDurable);
            }
        }
        for (id, m) in self.messages.iter_mut_with_ids() {
            let remembers = m.broker_remembers() && (persisted.contains(&id) || m.records > 0);
            m.set_broker_remembers(remembers);
        }
    }

    /// Whether the copy's holder has started processing its current delivery.
    fn being_processed(&self, copy: CopyId) -> bool {
        let c = &self.copies[copy as usize];
        c.holder().is_some_and(|h| {
            self.consumers[h.index()]
                .working
                .iter()
                .any(|w| w.copy == copy && w.attempt == c.attempts)
        })
    }

    /// An armed "crash after receive" strikes as the delivery lands.
    pub(super) fn crash_after_receive_armed(&self, consumer: ConsumerId) -> bool {
        self.consumers[consumer.index()]
            .armed
            .is_some_and(|a| a.point == CrashPoint::AfterReceive)
    }
}
