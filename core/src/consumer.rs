//! A consumer process: its configuration, what it holds in memory, and whether it is up.

use std::collections::VecDeque;

use serde::Serialize;

use crate::scenario::{AckMode, ConsumerSpec, CrashPoint, ServiceTime};
use crate::step::{Attempt, MsgId, Trigger};
use crate::time::Micros;

/// A crash waiting for its moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ArmedCrash {
    pub point: CrashPoint,
    pub restart_after_us: Option<Micros>,
    pub trigger: Trigger,
}

#[derive(Clone, Debug)]
pub struct Consumer {
    pub name: String,
    pub service: ServiceTime,
    pub concurrency: u32,
    pub prefetch: u32,
    pub ack: AckMode,
    pub up: bool,
    /// Bumped at each crash, so events of the dead process are recognised and dropped.
    pub incarnation: u32,
    /// Delivered, waiting for a free slot.
    pub buffer: VecDeque<(MsgId, Attempt)>,
    /// Being processed now (at most `concurrency`).
    pub working: Vec<(MsgId, Attempt)>,
    pub armed: Option<ArmedCrash>,
    pub restart_at_us: Option<Micros>,
}

impl Consumer {
    pub fn new(spec: &ConsumerSpec, name: String) -> Self {
        Self {
            name,
            service: spec.service,
            concurrency: spec.concurrency,
            prefetch: spec.prefetch,
            ack: spec.ack,
            up: true,
            incarnation: 0,
            buffer: VecDeque::new(),
            working: Vec::new(),
            armed: None,
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
    pub up: bool,
    pub busy: u32,
    pub buffered: u32,
    pub concurrency: u32,
    pub prefetch: u32,
    pub ack: AckMode,
    pub armed: Option<CrashPoint>,
    pub restart_at_us: Option<Micros>,
    /// Messages being processed now, with their attempt.
    pub working: Vec<(MsgId, Attempt)>,
}
