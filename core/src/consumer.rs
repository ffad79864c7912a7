//! A consumer process: its configuration, what it holds in memory, and whether it is up.

use std::collections::VecDeque;

use serde::Serialize;

use crate::scenario::{
    AckMode, ConsumerSpec, CrashPoint, Failures, Idempotency, Ordering, RetryPolicy, ServiceTime,
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
    pub ordering: Ordering,
    pub failures: Failures,
    pub retry: RetryPolicy,
    /// Work takes this many times longer (a slowed consumer).
    pub slow_factor: f64,
    pub up: bool,
    /// Bumped at each crash, so events of the dead process are recognised and dropped.
    pub incarnation: u32,
    /// Delivered, waiting for a free slot.
    pub buffer: VecDeque<Held>,
    /// Being processed now (at most `concurrency`).
    pub working: Vec<Held>,
    pub armed: Option<ArmedCrash>,
    pub drop_next_ack: bool,
    pub restart_at_us: Option<Micros>,
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
            ordering: spec.ordering,
            failures: spec.failures.clone(),
            retry: spec.retry.clone(),
            slow_factor: 1.0,
            up: true,
            incarnation: 0,
            buffer: VecDeque::new(),
            working: Vec::new(),
            armed: None,
            drop_next_ack: false,
            restart_at_us: None,
        }
    }

    /// Deliveries held: buffered plus being processed.
    pub fn held(&self) -> u32 {
        (self.buffer.len() + self.working.len()) as u32
    }

    pub fn can_take(&self) -> bool {
        self.up && self.held() < self.prefetch
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
    pub armed: Option<CrashPoint>,
    pub drop_next_ack: bool,
    pub slow_factor: f64,
    pub restart_at_us: Option<Micros>,
    /// Copies being processed now, with their attempt.
    pub working: Vec<(CopyId, Attempt)>,
}
