//! A log producer's buffer through a broker outage.
//!
//! A Kafka producer's `send()` only appends the record to the producer's buffer; its
//! sender delivers it once the partition's leader answers again, and drops it if it is
//! still unsent after `delivery.timeout.ms`. So a producer to a log that waits for no
//! confirm (`acks=0`) keeps what it cannot send while the broker is down, and sends it, in
//! order, when the broker is back. What was already on its way when the broker crashed is
//! lost (`publish_arrives`): `acks=0` loses only what a failing connection carried. A
//! producer that waits for confirms retries instead, by its confirm timeout and attempts.

use std::collections::VecDeque;

use super::Simulation;
use crate::engine::Event;
use crate::message::PublishFate;
use crate::producer::Target;
use crate::step::{Fact, MsgId, ProducerId};
use crate::time::{secs_to_us, Micros};

impl Simulation {
    /// Whether `producer` keeps its records in its buffer while the broker is down.
    pub(super) fn buffers_through_outage(&self, producer: ProducerId) -> bool {
        matches!(self.producers[producer.index()].target, Target::Log(_))
            && !self.waits_for_confirm(producer)
    }

    /// Keeps `msg` in the producer's buffer until the broker is back or its delivery
    /// timeout runs out.
    pub(super) fn buffer(&mut self, producer: ProducerId, msg: MsgId) {
        let p = &mut self.producers[producer.index()];
        let expires_at_us = self
            .now_us
            .saturating_add(secs_to_us(p.publish.delivery_timeout_s));
        p.buffered.push_back((msg, expires_at_us));
        self.buffered_total += 1;
        self.counters.buffered += 1;
        self.facts.push(Fact::Buffered {
            producer,
            msg,
            expires_at_us,
        });
        self.arm_buffer_expiry(producer);
    }

    /// Sets the timer for the buffer's oldest record, unless one is set already (it then
    /// fires no later than that record's timeout, and sets the next one).
    fn arm_buffer_expiry(&mut self, producer: ProducerId) {
        let p = &mut self.producers[producer.index()];
        if p.buffer_due_us.is_some() {
            return;
        }
        let Some(&(_, at)) = p.buffered.front() else {
            return;
        };
        p.buffer_due_us = Some(at);
        self.events
            .schedule(at, Event::BufferExpiry { producer, at });
    }

    /// The oldest buffered records reach their delivery timeout: dropped, never stored.
    pub(super) fn buffer_expiry(&mut self, producer: ProducerId) {
        self.producers[producer.index()].buffer_due_us = None;
        loop {
            let p = &mut self.producers[producer.index()];
            match p.buffered.front() {
                Some(&(msg, at)) if at <= self.now_us => {
                    p.buffered.pop_front();
                    self.buffered_total -= 1;
                    self.drop_buffered(producer, msg, false);
                }
                _ => break,
            }
        }
        self.arm_buffer_expiry(producer);
    }

    /// The broker is back: each producer sends what it kept, oldest first.
    pub(super) fn flush_buffers(&mut self) {
        for producer in self.producer_ids() {
            for (msg, _) in self.empty_buffer(producer) {
                self.transmit(producer, msg);
            }
        }
    }

    /// The producer crashed: its buffer was in its memory.
    pub(super) fn lose_buffer(&mut self, producer: ProducerId) {
        for (msg, _) in self.empty_buffer(producer) {
            self.drop_buffered(producer, msg, true);
        }
    }

    /// Takes everything out of the producer's buffer, its timer with it.
    fn empty_buffer(&mut self, producer: ProducerId) -> VecDeque<(MsgId, Micros)> {
        let p = &mut self.producers[producer.index()];
        p.buffer_due_us = None;
        let buffered = std::mem::take(&mut p.buffered);
        self.buffered_total -= buffered.len() as u64;
        buffered
    }

    fn drop_buffered(&mut self, producer: ProducerId, msg: MsgId, crashed: bool) {
        self.set_publish_fate(msg, PublishFate::GaveUp);
        self.counters.gave_up += 1;
        self.counters.lost_before_stored += 1;
        self.facts.push(Fact::BufferDropped {
            producer,
            msg,
            crashed,
        });
    }
}
