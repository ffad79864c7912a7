//! A consumer process: its configuration, what it holds in memory, and whether it is up.

use std::collections::VecDeque;

use serde::Serialize;

use crate::scenario::{
    flavour_defaults, AckMode, ConsumerSpec, CrashPoint, Failures, GapTimeout, Idempotency,
    InboxKey, Ordering, RetryPolicy, ServiceTime,
};
use crate::step::{Attempt, CopyId, QueueId, Trigger};
use crate::time::Micros;

/// A crash waiting for its moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ArmedCrash {
    pub point: CrashPoint,
    pub restart_after_us: Option<Micros>,
    pub trigger: Trigger,
}

/// A delivery the consumer holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Held {
    pub copy: CopyId,
    pub attempt: Attempt,
    /// Check-then-insert: the check found no mark when work started.
    pub checked_clean: bool,
    /// The batch it is processed in (0 while buffered).
    pub batch: u64,
}

#[derive(Clone, Debug)]
pub struct Consumer {
    pub name: String,
    pub queue: QueueId,
    pub service: ServiceTime,
    pub concurrency: u32,
    pub prefetch: u32,
    pub ack: AckMode,
    pub batch_size: u32,
    pub batch_atomic: bool,
    /// Batches in progress (each takes one of `concurrency` slots), and the next batch id.
    pub batches: u32,
    pub next_batch: u64,
    pub idempotency: Idempotency,
    pub inbox_key: InboxKey,
    pub trusts_the_broker: bool,
    /// The replay window: messages created longer ago are refused.
    pub max_message_age_us: Option<Micros>,
    pub ordering: Ordering,
    pub failures: Failures,
    pub retry: RetryPolicy,
    /// Extends its leases while it works (an SQS visibility heartbeat).
    pub extend_visibility: bool,
    /// How long a message may wait for its predecessor, and what giving up does.
    pub gap_timeout_us: Micros,
    pub on_gap_timeout: GapTimeout,
    /// Work takes this many times longer (a slowed consumer).
    pub slow_factor: f64,
    pub up: bool,
    /// Bumped at each crash, so events of the dead process are recognised and dropped.
    pub incarnation: u32,
    /// Delivered, waiting for a free slot.
    pub buffer: VecDeque<Held>,
    /// Being processed now (at most `concurrency` batches), in batch order: batches are
    /// numbered as they start and their items pushed together (see [`Consumer::batch`]).
    pub working: Vec<Held>,
    /// The batch whose work just finished, while each outcome is told to the broker (see
    /// `finish_work`): out of `working`, yet still unacked, so a crash meanwhile (an armed
    /// crash after a commit) hands back what it has not settled. Empty between steps.
    pub settling: Vec<Held>,
    pub armed: Option<ArmedCrash>,
    /// Armed to lose its next ack, and how that was given (an unannounced one stays off
    /// its view and out of the narration until it strikes).
    pub drop_next_ack: Option<Trigger>,
    /// RabbitMQ deliveries whose ack was lost: done here, still unacked at the broker, so
    /// each keeps a prefetch slot until the broker takes it back (see
    /// [`Consumer::unacked`]).
    pub lost_acks: Vec<(CopyId, Attempt)>,
    pub restart_at_us: Option<Micros>,
    /// Scaled in: takes no more deliveries and stops once it holds nothing.
    pub retiring: bool,
    /// Sends an email after each committed effect (outside the transaction).
    pub sends_email: bool,
    /// Stopped for good after retiring (not a crash: nothing was lost).
    pub stopped: bool,
    /// An ack mode to switch to as soon as it holds nothing (a new subscription).
    pub pending_ack: Option<AckMode>,
    /// Deliveries it may still hold above a prefetch that was lowered while it held them
    /// (0 once a delivery is made under the current prefetch).
    pub prefetch_grace: u32,
    /// The dependency its handler calls after its own work, if any.
    pub dependency: Option<u32>,
}

impl Consumer {
    pub fn new(spec: &ConsumerSpec, name: String, queue: QueueId) -> Self {
        Self {
            name,
            queue,
            service: spec.service,
            concurrency: spec.concurrency,
            prefetch: spec.prefetch,
            ack: spec.ack,
            batch_size: spec.batch_size,
            batch_atomic: spec.batch_atomic,
            batches: 0,
            next_batch: 1,
            idempotency: spec.idempotency,
            inbox_key: spec.inbox_key,
            trusts_the_broker: spec.trusts_the_broker,
            max_message_age_us: spec.max_message_age_s.map(crate::time::secs_to_us),
            ordering: spec.ordering,
            failures: spec.failures.clone(),
            retry: spec.retry.clone(),
            extend_visibility: spec.extend_visibility,
            gap_timeout_us: crate::time::secs_to_us(
                spec.gap_timeout_s
                    .unwrap_or(flavour_defaults::GAP_TIMEOUT_S),
            )
            .max(1),
            on_gap_timeout: spec.on_gap_timeout,
            sends_email: spec.sends_email,
            slow_factor: 1.0,
            up: true,
            incarnation: 0,
            buffer: VecDeque::new(),
            working: Vec::new(),
            settling: Vec::new(),
            armed: None,
            drop_next_ack: None,
            lost_acks: Vec::new(),
            restart_at_us: None,
            retiring: false,
            stopped: false,
            pending_ack: None,
            prefetch_grace: 0,
            dependency: None,
        }
    }

    /// A new process with this one's settings (current ones, pending ack mode included)
    /// and none of its state: what scaling out starts.
    pub fn fresh_copy(&self, name: String) -> Self {
        let settings = ConsumerSpec {
            name: String::new(),
            queue: String::new(),
            replicas: 1,
            service: self.service,
            concurrency: self.concurrency,
            prefetch: self.prefetch,
            ack: self.pending_ack.unwrap_or(self.ack),
            batch_size: self.batch_size,
            batch_atomic: self.batch_atomic,
            idempotency: self.idempotency,
            inbox_key: self.inbox_key,
            trusts_the_broker: self.trusts_the_broker,
            max_message_age_s: self.max_message_age_us.map(crate::time::us_to_secs),
            ordering: self.ordering,
            failures: self.failures.clone(),
            retry: self.retry.clone(),
            extend_visibility: self.extend_visibility,
            gap_timeout_s: Some(crate::time::us_to_secs(self.gap_timeout_us)),
            on_gap_timeout: self.on_gap_timeout,
            sends_email: self.sends_email,
            calls: String::new(),
        };
        let mut fresh = Self::new(&settings, name, self.queue);
        fresh.dependency = self.dependency;
        fresh
    }

    /// Where batch `batch`'s items are in `working`: found by halving, since `working` is
    /// in batch order (a consumer with a thousand batches in hand finishes one without
    /// walking the others).
    pub fn batch(&self, batch: u64) -> std::ops::Range<usize> {
        let start = self.working.partition_point(|h| h.batch < batch);
        let end = start + self.working[start..].partition_point(|h| h.batch == batch);
        start..end
    }

    /// The entity the inbox row of a message with `key` is keyed by: its key when the
    /// inbox is keyed by the entity; `None` when the row is keyed by source and id (the
    /// default, and a message without a key).
    pub fn inbox_entity(&self, key: Option<u32>) -> Option<u32> {
        key.filter(|_| self.inbox_key == InboxKey::Entity)
    }

    /// Deliveries held: buffered plus being processed.
    pub fn held(&self) -> u32 {
        (self.buffer.len() + self.working.len()) as u32
    }

    /// Deliveries the broker counts against the prefetch: those held, and those whose ack
    /// was lost on the way (RabbitMQ's `basic.qos` limits unacknowledged deliveries, and
    /// the broker never saw those acks).
    pub fn unacked(&self) -> u32 {
        self.held() + self.lost_acks.len() as u32
    }

    /// Whether it still has an ack to send after a commit: it acks after the effect
    /// commits and holds work it will finish (a retiring consumer still does, so a fault
    /// armed for its next commit or ack can still strike it).
    pub fn can_still_ack(&self) -> bool {
        self.ack == AckMode::AfterCommit && self.held() > 0
    }

    pub fn can_take(&self) -> bool {
        self.up
            && !self.retiring
            && self.unacked() < self.prefetch
            && (self.pending_ack.is_none() || self.held() == 0)
    }
}

/// What the app shows about a consumer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ConsumerView {
    pub name: String,
    pub queue: QueueId,
    pub up: bool,
    pub busy: u32,
    pub buffered: u32,
    pub concurrency: u32,
    pub prefetch: u32,
    pub ack: AckMode,
    pub idempotency: Idempotency,
    pub inbox_key: InboxKey,
    /// Acts on whatever the broker delivers, without checking the source's authority.
    pub trusts_the_broker: bool,
    /// How it handles versions of a key (a refusal moves the version only when it waits
    /// for gaps or reconciles).
    pub ordering: crate::scenario::Ordering,
    /// Faults armed on it that the page may show: an interview's hidden (unannounced)
    /// ones are left out, or the card would give them away before they strike.
    pub armed: Option<CrashPoint>,
    pub drop_next_ack: bool,
    pub slow_factor: f64,
    pub restart_at_us: Option<Micros>,
    /// Scaled in: finishing what it holds, then it stops.
    pub retiring: bool,
    /// Stopped after scaling in (it did not crash).
    pub stopped: bool,
    /// Service time it uses for its next message (mean, seconds).
    pub service_mean_s: f64,
    /// Messages it handles in one go (one dependency call per batch).
    pub batch_size: u32,
    /// The dependency its handler calls after its own work, if any.
    pub dependency: Option<u32>,
    /// Copies being processed now, with their attempt.
    pub working: Vec<(CopyId, Attempt)>,
}
