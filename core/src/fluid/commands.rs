//! Commands in the aggregated run: what each does to rates and amounts. Commands that
//! touch one message (drop the next ack or confirm, inject one poison message) or that
//! only change how a single delivery is handled (idempotency, ordering, retries, a fix
//! deployed) change no rate, so they are accepted and change nothing. Prefetch changes
//! no rate either, but it sizes what a crash of a consumer that acks on delivery loses.
//!
//! A consumer crash at a point (after its next delivery, after its next commit) is armed
//! and strikes once the consumer has received or finished a whole copy since, at its
//! share of the queue's rate ([`ArmedCrash`]); it then holds at least that copy.

use crate::scenario::{splice_schedule, AckMode, Command, CrashPoint, Flavour};

use super::model::{flows, ArmedCrash, ConsumerState};
use super::run::Run;

impl Run<'_> {
    pub(super) fn apply(&mut self, command: &Command) {
        let t = self.t;
        match command {
            Command::CrashConsumer {
                consumer,
                point,
                restart_after_s,
            } => self.arm_consumer_crash(consumer.index(), *point, *restart_after_s),
            Command::RestartConsumer { consumer } => {
                if let Some(c) = self.consumers.get_mut(consumer.index()) {
                    (c.up, c.restart_at, c.slow) = (true, None, 1.0);
                }
            }
            Command::SlowConsumer { consumer, factor } => {
                if let Some(c) = self.consumers.get_mut(consumer.index()) {
                    c.slow = *factor;
                }
            }
            Command::CrashProducer {
                producer,
                restart_after_s,
                ..
            } => {
                if let Some(p) = self.producers.get_mut(producer.index()) {
                    (p.up, p.restart_at) = (false, restart_after_s.map(|d| t + d));
                }
            }
            Command::RestartProducer { producer } => {
                if let Some(p) = self.producers.get_mut(producer.index()) {
                    (p.up, p.restart_at) = (true, None);
                }
            }
            Command::CrashBroker { restart_after_s } => {
                self.crash_broker(restart_after_s.map(|d| t + d));
            }
            Command::RestartBroker => self.restart_broker(),
            Command::SetArrivals {
                producer, schedule, ..
            } => {
                if let Some(p) = self.producers.get_mut(producer.index()) {
                    splice_schedule(&mut p.schedule, t, schedule);
                }
            }
            _ => self.apply_queue_command(command),
        }
    }

    /// Commands that name a queue.
    fn apply_queue_command(&mut self, command: &Command) {
        let t = self.t;
        let Some(q) = command_queue(command).and_then(|name| self.s.queue_index(name)) else {
            return;
        };
        match command {
            Command::SetServiceTime { service, .. } => {
                self.for_consumers_of(q, |c| c.mean_s = service.mean_s());
            }
            Command::SetAckMode { ack, .. } => self.for_consumers_of(q, |c| c.ack = *ack),
            Command::SetPrefetch { prefetch, .. } => {
                self.for_consumers_of(q, |c| c.prefetch = f64::from(*prefetch));
            }
            Command::SetConsumerCount { count, .. } => self.scale(q, *count as usize),
            Command::DependencyOutage { for_s, .. } => {
                let until = &mut self.queues[q].outage_until;
                *until = until.max(t + for_s);
            }
            Command::SetVisibilityTimeout { seconds, .. } => self.queues[q].visibility_s = *seconds,
            Command::SetFlavour { flavour, .. } => self.queues[q].flavour = *flavour,
            Command::SetQueueBound {
                max_length,
                overflow,
                ..
            } => {
                let fluid = &mut self.queues[q].fluid;
                fluid.max_length = max_length.map(|n| n as f64);
                fluid.overflow = *overflow;
            }
            _ => {}
        }
    }

    fn for_consumers_of(&mut self, q: usize, f: impl Fn(&mut ConsumerState)) {
        self.consumers
            .iter_mut()
            .filter(|c| c.queue == q)
            .for_each(f);
    }

    /// Scales queue `q` to `count` active consumers: the newest ones leave first, and
    /// new ones are copies of the queue's first consumer (as the message model does).
    fn scale(&mut self, q: usize, count: usize) {
        let members: Vec<usize> = (0..self.consumers.len())
            .filter(|&i| self.consumers[i].queue == q)
            .collect();
        let Some(&first) = members.first() else {
            return;
        };
        for (k, &i) in members.iter().enumerate() {
            let c = &mut self.consumers[i];
            c.active = k < count;
            if !c.active {
                // A consumer scaled in takes no more deliveries: a crash armed for its
                // next one is called off, as message by message.
                c.armed = None;
            }
        }
        for _ in members.len()..count {
            let mut c = self.consumers[first].clone();
            (c.up, c.active, c.restart_at, c.slow) = (true, true, None, 1.0);
            c.armed = None;
            self.consumers.push(c);
        }
    }

    /// A crash command: "now" strikes a consumer at work at once (one already down or
    /// scaled in has nothing to lose, and keeps its own restart); another point is armed
    /// on a consumer that can still reach it (down or not: it strikes once the consumer
    /// is back and gets there), replacing one armed before.
    fn arm_consumer_crash(&mut self, c: usize, point: CrashPoint, restart_after_s: Option<f64>) {
        let t = self.t;
        let Some(consumer) = self.consumers.get_mut(c) else {
            return;
        };
        if point == CrashPoint::Now {
            if consumer.working() {
                self.crash_consumer(c, point, restart_after_s.map(|d| t + d));
            }
        } else if consumer.active {
            consumer.armed = Some(ArmedCrash {
                point,
                restart_after_s,
                progress: 0.0,
            });
        }
    }

    /// Strikes every armed crash whose consumer has reached its point by now.
    pub(super) fn strike_armed_crashes(&mut self) {
        let t = self.t;
        for c in 0..self.consumers.len() {
            let Some(armed) = self.consumers[c].armed.filter(ArmedCrash::due) else {
                continue;
            };
            self.consumers[c].armed = None;
            if self.consumers[c].working() {
                self.crash_consumer(c, armed.point, armed.restart_after_s.map(|d| t + d));
            }
        }
    }

    /// A consumer crash: the work it had in hand is lost (acked on delivery, with the
    /// copies in its prefetch buffer) or handed back — at once on RabbitMQ (the
    /// connection closes), after the lease elsewhere, counting as in flight until then.
    /// What it had in hand is its share of its queue's copies in service, and at a point
    /// after a delivery or a commit at least the copy that reached it; never more than
    /// the queue has served.
    fn crash_consumer(&mut self, c: usize, point: CrashPoint, restart_at: Option<f64>) {
        let consumer = self.consumers[c].clone();
        let q = consumer.queue;
        let flow = self.flows_now()[q];
        let busy = self.queues[q].fluid.in_service(flow);
        let mut held = if flow.slots > 0.0 {
            busy * consumer.slots / flow.slots
        } else {
            0.0
        };
        if point != CrashPoint::Now {
            held = held.max(1.0);
        }
        let buffered = self.buffered_by(&consumer);
        let queue = &mut self.queues[q];
        if consumer.ack == AckMode::OnDelivery {
            queue.fluid.lose_in_service(held);
            queue.fluid.lose_from_head(buffered);
        } else {
            let held = queue.fluid.abandon(held);
            if queue.flavour == Flavour::Rabbitmq {
                queue.fluid.requeue(held, self.t);
            } else if held > 0.0 {
                self.returns.push((self.t + queue.visibility_s, q, held));
            }
        }
        let consumer = &mut self.consumers[c];
        (consumer.up, consumer.restart_at) = (false, restart_at);
    }

    /// Copies in `consumer`'s prefetch buffer. Every consumer up fills its buffer from
    /// the line before anything is left waiting at the broker, so the line's first
    /// copies, up to the buffers' total, are in buffers, shared out by buffer size.
    fn buffered_by(&self, consumer: &ConsumerState) -> f64 {
        let buffers: f64 = self
            .consumers
            .iter()
            .filter(|k| k.queue == consumer.queue && k.working())
            .map(ConsumerState::buffer)
            .sum();
        if buffers <= 0.0 {
            return 0.0;
        }
        let waiting = self.queues[consumer.queue].fluid.waiting();
        waiting.min(buffers) * consumer.buffer() / buffers
    }

    /// A broker crash: publishes fail and deliveries stop until it restarts; a queue whose
    /// messages survive a restart (durable and persistent, or quorum or SQS) keeps its
    /// copies (those in flight come back), another loses them all.
    fn crash_broker(&mut self, restart_at: Option<f64>) {
        let flows = self.flows_now();
        let t = self.t;
        for (q, queue) in self.queues.iter_mut().enumerate() {
            let busy = queue.fluid.in_service(flows[q]);
            if queue.survives_restart() {
                let busy = queue.fluid.abandon(busy);
                queue.fluid.requeue(busy, t);
            } else {
                queue.fluid.forget_waiting();
                let pending: f64 = self.returns.iter().filter(|r| r.1 == q).map(|r| r.2).sum();
                queue.fluid.totals.lost += pending;
                self.returns.retain(|r| r.1 != q);
            }
        }
        (self.broker_up, self.broker_restart_at) = (false, restart_at);
    }

    fn flows_now(&self) -> Vec<super::queue::Flow> {
        flows(
            self.t,
            self.broker_up,
            &self.producers,
            &self.consumers,
            &self.queues,
        )
    }
}

/// The queue a queue command names.
fn command_queue(command: &Command) -> Option<&str> {
    match command {
        Command::SetServiceTime { queue, .. }
        | Command::SetAckMode { queue, .. }
        | Command::SetPrefetch { queue, .. }
        | Command::SetConsumerCount { queue, .. }
        | Command::DependencyOutage { queue, .. }
        | Command::SetVisibilityTimeout { queue, .. }
        | Command::SetFlavour { queue, .. }
        | Command::SetQueueBound { queue, .. } => Some(queue),
        _ => None,
    }
}
