//! A queue at the broker: its waiting line, its consumers, its dead-letter queue.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use crate::message::DeadLetter;
use crate::scenario::{flavour_defaults, Flavour, Overflow, QueueSpec, QueueType};
use crate::step::{ConsumerId, CopyId, MsgId, ProducerId};
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
    pub flavour: Flavour,
    pub queue_type: QueueType,
    pub delivery_limit: u32,
    pub max_receive_count: u32,
    pub dedup_window_us: Micros,
    pub duplicate_p: f64,
    /// RabbitMQ: how long a delivery may stay unacked before it is taken back.
    pub consumer_timeout_us: Micros,
    /// SQS FIFO: its copies per message group, busy and in line, and which group's copy
    /// comes first in line among those free to deliver. Kept only while the queue is
    /// SQS FIFO, the only flavour that reads it (stale otherwise: a switch to SQS FIFO
    /// counts it afresh).
    pub(crate) fifo: FifoGroups,
    /// SQS FIFO: when each message id was last stored (the deduplication window).
    pub stored_at: BTreeMap<MsgId, Micros>,
}

impl Queue {
    pub fn new(spec: &QueueSpec) -> Self {
        Self {
            name: spec.name.clone(),
            lease_us: secs_to_us(spec.visibility_timeout_s).max(1),
            max_length: spec.max_length,
            overflow: spec.effective_overflow(),
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
            flavour: spec.flavour,
            queue_type: spec.queue_type,
            delivery_limit: spec
                .delivery_limit
                .unwrap_or(flavour_defaults::QUORUM_DELIVERY_LIMIT),
            max_receive_count: spec
                .max_receive_count
                .unwrap_or(flavour_defaults::MAX_RECEIVE_COUNT),
            dedup_window_us: secs_to_us(
                spec.dedup_window_s
                    .unwrap_or(flavour_defaults::DEDUP_WINDOW_S),
            ),
            duplicate_p: spec.duplicate_p.unwrap_or(flavour_defaults::DUPLICATE_P),
            consumer_timeout_us: secs_to_us(
                spec.consumer_timeout_s
                    .unwrap_or(flavour_defaults::RABBITMQ_CONSUMER_TIMEOUT_S),
            )
            .max(1),
            fifo: FifoGroups::default(),
            stored_at: BTreeMap::new(),
        }
    }

    /// What counts against `max_length`: RabbitMQ counts ready messages only (x-max-length
    /// ignores unacknowledged ones); the others count everything the queue holds.
    pub fn occupancy(&self) -> u64 {
        match self.flavour {
            Flavour::Rabbitmq => self.line.len() as u64,
            _ => self.held,
        }
    }

    pub fn is_full(&self) -> bool {
        self.max_length.is_some_and(|max| self.occupancy() >= max)
    }

    /// The broker's own bound on deliveries of one copy, if its flavour has one: a copy
    /// delivered this many times is dead-lettered instead of delivered again. A quorum
    /// queue drops a message returned more than `delivery_limit` times, so it allows one
    /// delivery more than the limit; SQS moves it on the receive after maxReceiveCount.
    /// (Generic queues bound lease expiries instead, through the retry policy.)
    pub fn delivery_bound(&self) -> Option<u32> {
        match (self.flavour, self.queue_type) {
            (Flavour::Rabbitmq, QueueType::Quorum) => Some(self.delivery_limit.saturating_add(1)),
            (Flavour::Sqs | Flavour::SqsFifo, _) => Some(self.max_receive_count),
            _ => None,
        }
    }

    /// Whether a copy (persistent or not) is still there after a broker restart: always on
    /// a quorum queue or SQS (see [`crate::scenario::keeps_every_message`]), else only a
    /// persistent message in a durable queue.
    pub fn survives_restart(&self, persistent: bool) -> bool {
        crate::scenario::keeps_every_message(self.flavour, self.queue_type)
            || (persistent && self.durable)
    }

    /// Whether a delivery in flight stays in flight through a broker restart: SQS has no
    /// connection whose loss returns a received message; it stays hidden until its
    /// visibility timeout runs out, and its receipt handle still deletes it. RabbitMQ (and
    /// the generic broker) put it back in line, its channel closed.
    pub fn keeps_leases_through_restart(&self) -> bool {
        matches!(self.flavour, Flavour::Sqs | Flavour::SqsFifo)
    }

    /// How long a delivery stays unacked before the broker takes it back: RabbitMQ has no
    /// lease, only its consumer timeout.
    pub fn lease_for_delivery_us(&self) -> Micros {
        match self.flavour {
            Flavour::Rabbitmq => self.consumer_timeout_us,
            _ => self.lease_us,
        }
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
    /// What counts against `max_length` (see [`Queue::occupancy`]): the waiting copies on
    /// RabbitMQ, every copy the queue holds (in flight and retrying too) elsewhere.
    pub occupancy: u64,
    pub consumers: Vec<ConsumerId>,
    pub redriving: bool,
    pub flavour: Flavour,
}

/// An SQS FIFO queue's message groups (the message key; `None` for keyless messages):
/// per group, its copies in flight or waiting for a retry (busy: SQS FIFO delivers no
/// more of a group while one of its messages is out) and the places in line (line
/// sequence numbers, in order) of its copies waiting; and, ordered by place, the first
/// copy in line of every group free to deliver (nothing busy). A dispatch reads the next
/// deliverable copy off that order instead of walking a line of busy groups' copies.
///
/// Hash maps: they change at every store and delivery, and an ordered map allocated and
/// freed a node each time a group went from empty to one entry and back; nothing
/// iterates them. A group with nothing busy and nothing in line is not kept.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FifoGroups {
    groups: HashMap<Option<u32>, FifoGroup, crate::hash::IdHash>,
    /// (place in line of its first copy, key) of each group with copies in line and
    /// none busy.
    free: BTreeSet<(u64, Option<u32>)>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct FifoGroup {
    busy: u32,
    line: VecDeque<u64>,
}

impl FifoGroup {
    /// The place in line of its first copy, if it may be delivered.
    fn free_head(&self) -> Option<u64> {
        if self.busy == 0 {
            self.line.front().copied()
        } else {
            None
        }
    }
}

impl FifoGroups {
    /// The place in line (line sequence number) of the first copy whose group has
    /// nothing busy: the next one SQS FIFO delivers.
    pub fn first_free(&self) -> Option<u64> {
        self.free.first().map(|&(seq, _)| seq)
    }

    /// A copy of group `key` goes in flight or waits for a retry.
    pub fn busy_in(&mut self, key: Option<u32>) {
        self.change(key, |g| g.busy += 1);
    }

    /// A busy copy of group `key` is settled or back in line.
    pub fn busy_out(&mut self, key: Option<u32>) {
        self.change(key, |g| g.busy -= 1);
    }

    /// A copy of group `key` goes in line at place `seq` (at the end, or back at its
    /// old place).
    pub fn line_in(&mut self, key: Option<u32>, seq: u64) {
        self.change(key, |g| {
            if g.line.back().is_none_or(|&last| last < seq) {
                g.line.push_back(seq);
            } else {
                let pos = g.line.partition_point(|&s| s < seq);
                debug_assert_ne!(g.line.get(pos), Some(&seq), "a place in line twice");
                g.line.insert(pos, seq);
            }
        });
    }

    /// The copy of group `key` at place `seq` leaves the line.
    pub fn line_out(&mut self, key: Option<u32>, seq: u64) {
        self.change(key, |g| {
            if g.line.front() == Some(&seq) {
                g.line.pop_front();
            } else {
                let pos = g.line.partition_point(|&s| s < seq);
                debug_assert_eq!(g.line.get(pos), Some(&seq), "not in the group's line");
                g.line.remove(pos);
            }
        });
    }

    fn change(&mut self, key: Option<u32>, f: impl FnOnce(&mut FifoGroup)) {
        let group = self.groups.entry(key).or_default();
        let before = group.free_head();
        f(group);
        let after = group.free_head();
        if group.busy == 0 && group.line.is_empty() {
            self.groups.remove(&key);
        }
        if before != after {
            if let Some(seq) = before {
                self.free.remove(&(seq, key));
            }
            if let Some(seq) = after {
                self.free.insert((seq, key));
            }
        }
    }
}
