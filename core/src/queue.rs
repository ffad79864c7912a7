//! A queue at the broker: its waiting line, its consumers, its dead-letter queue.

use std::collections::VecDeque;

use crate::message::DeadLetter;
use crate::scenario::{Overflow, QueueSpec};
use crate::step::{ConsumerId, CopyId, ProducerId};
use crate::time::{secs_to_us, Micros};

#[derive(Clone, Debug)]
pub struct Queue {
    pub name: String,
    pub lease_us: Micros,
    pub max_length: Option<u64>,
    pub overflow: Overflow,
    pub ttl_us: Option<Micros>,
    pub max_oldest_age_us: Option<Micros>,
    pub durable: bool,
    pub dead_letter: bool,
    /// Waiting copies in line order (by `line_seq`): the front is the one waiting longest.
    pub line: VecDeque<CopyId>,
    pub next_line_seq: u64,
    /// Copies that count against `max_length`: waiting, in flight, waiting for a retry.
    pub held: u64,
    pub in_flight: u64,
    pub retry_waiting: u64,
    /// Consumers reading this queue, and the next one to offer a copy to (round robin).
    pub consumers: Vec<ConsumerId>,
    pub next_consumer: usize,
    pub dlq: VecDeque<DeadLetter>,
    /// Redrive in progress: copies moved back per second, and how many are left to move
    /// (those in the DLQ when it started: copies that fail again stay for the next one).
    pub redrive_per_s: Option<f64>,
    pub redrive_left: u64,
    pub redrive_pending: bool,
    /// Producers held back because this queue is full.
    pub throttled: Vec<ProducerId>,
    /// What it may still hold above a bound that was lowered below its contents (nothing
    /// stored is thrown away; it drains down). 0 once it is within the bound again.
    pub bound_grace: u64,
}

impl Queue {
    pub fn new(spec: &QueueSpec) -> Self {
        Self {
            name: spec.name.clone(),
            lease_us: secs_to_us(spec.visibility_timeout_s).max(1),
            max_length: spec.max_length,
            overflow: spec.overflow,
            ttl_us: spec.ttl_s.map(|t| secs_to_us(t).max(1)),
            max_oldest_age_us: spec.max_oldest_age_s.map(secs_to_us),
            durable: spec.durable,
            dead_letter: spec.dead_letter,
            line: VecDeque::new(),
            next_line_seq: 0,
            held: 0,
            in_flight: 0,
            retry_waiting: 0,
            consumers: Vec::new(),
            next_consumer: 0,
            dlq: VecDeque::new(),
            redrive_per_s: None,
            redrive_left: 0,
            redrive_pending: false,
            throttled: Vec::new(),
            bound_grace: 0,
        }
    }

    pub fn is_full(&self) -> bool {
        self.max_length.is_some_and(|max| self.held >= max)
    }
}

/// What the app shows about a queue.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct QueueView {
    pub name: String,
    pub waiting: u64,
    pub in_flight: u64,
    pub retry_waiting: u64,
    pub dead_lettered: u64,
    pub oldest_age_us: Micros,
    pub max_length: Option<u64>,
    pub consumers: Vec<ConsumerId>,
    pub redriving: bool,
}
