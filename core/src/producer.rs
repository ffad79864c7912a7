//! Producers: when each creates its next message, and the service's own state (up or
//! crashed, its outbox, messages held back by backpressure, per-key versions).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::rng::SimRng;
use crate::scenario::{
    ArrivalProcess, Handoff, PayloadSpec, ProducerCrashPoint, ProducerSpec, PublishSpec,
};
use crate::step::{MsgId, QueueId, Trigger};
use crate::time::{secs_to_us, Micros, US_PER_S};

#[derive(Clone, Debug)]
struct Segment {
    from_us: Micros,
    rate_per_s: f64,
}

/// The arrival process of generated messages.
#[derive(Clone, Debug)]
pub struct ArrivalClock {
    process: ArrivalProcess,
    segments: Vec<Segment>,
    count: Option<u64>,
    pub published: u64,
    /// Index of the segment of the previous arrival.
    segment: usize,
    /// Arrivals so far in that segment (constant spacing is computed from the segment
    /// start, so rounding to microseconds never accumulates).
    k_in_segment: u64,
    /// Time of the previous arrival (or segment start).
    cursor_us: Micros,
    /// Bumped when the schedule is replaced, so the arrival already scheduled is dropped.
    pub epoch: u32,
}

impl ArrivalClock {
    pub fn new(spec: &ProducerSpec) -> Self {
        let segments = spec
            .arrivals
            .schedule
            .iter()
            .map(|s| Segment {
                from_us: secs_to_us(s.from_s),
                rate_per_s: s.rate_per_s,
            })
            .collect();
        Self {
            process: spec.arrivals.process,
            segments,
            count: spec.count,
            published: 0,
            segment: 0,
            k_in_segment: 0,
            cursor_us: 0,
            epoch: 0,
        }
    }

    /// Replaces the rest of the schedule from `now_us` on (`schedule` is relative to now);
    /// the count of messages published so far, and the limit, stay.
    pub fn replace_from(
        &mut self,
        now_us: Micros,
        process: ArrivalProcess,
        schedule: &[crate::scenario::RateSegment],
    ) {
        self.process = process;
        self.segments = schedule
            .iter()
            .map(|s| Segment {
                from_us: now_us.saturating_add(secs_to_us(s.from_s)),
                rate_per_s: s.rate_per_s,
            })
            .collect();
        self.segment = 0;
        self.k_in_segment = 0;
        self.cursor_us = now_us;
        self.epoch += 1;
    }

    /// The rate in force at `now_us` (what the page shows).
    pub fn rate_now(&self, now_us: Micros) -> f64 {
        self.segments
            .iter()
            .take_while(|s| s.from_us <= now_us)
            .last()
            .map_or(0.0, |s| s.rate_per_s)
    }

    /// When the next message is created, or `None` if this producer is finished.
    pub fn next_arrival(&mut self, rng: &mut SimRng) -> Option<Micros> {
        if self.count.is_some_and(|n| self.published >= n) {
            return None;
        }
        loop {
            let seg = &self.segments[self.segment];
            let end = self.segments.get(self.segment + 1).map(|s| s.from_us);
            if seg.rate_per_s > 0.0 {
                let candidate = match self.process {
                    ArrivalProcess::Constant => {
                        let gap_us = US_PER_S / seg.rate_per_s;
                        seg.from_us.saturating_add(
                            ((self.k_in_segment + 1) as f64 * gap_us).round() as Micros,
                        )
                    }
                    // Memoryless: restarting the draw at a segment boundary is exact.
                    ArrivalProcess::Poisson => {
                        let gap_us = rng.exponential(US_PER_S / seg.rate_per_s).round();
                        self.cursor_us.saturating_add(gap_us as Micros)
                    }
                };
                if end.is_none_or(|e| candidate < e) {
                    self.k_in_segment += 1;
                    self.cursor_us = candidate;
                    return Some(candidate);
                }
            }
            // Nothing more in this segment: move to the next one, or stop for good.
            let next = end?;
            self.segment += 1;
            self.k_in_segment = 0;
            self.cursor_us = next;
        }
    }
}

/// Where a producer's publishes go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Queue(QueueId),
    Exchange(usize),
    Log(usize),
}

/// Where the accepted requests (jobs) of a producer stand: the 202 + job status contract.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct JobCounts {
    /// Accepted, not yet published (in the outbox, held back, or awaiting a confirm).
    pub pending: u64,
    /// Published; some copy (or record) is still being processed.
    pub running: u64,
    /// Its work finished everywhere it was delivered (effect committed, or skipped for a
    /// stated reason: duplicate, stale, refused by a business rule).
    pub completed: u64,
    /// Dead-lettered, lost, expired, dropped, refused, unroutable, or never published.
    pub failed: u64,
}

impl JobCounts {
    pub fn total(&self) -> u64 {
        self.pending + self.running + self.completed + self.failed
    }

    pub fn slot(&mut self, s: crate::message::JobStatus) -> &mut u64 {
        use crate::message::JobStatus::*;
        match s {
            Pending => &mut self.pending,
            Running => &mut self.running,
            Completed => &mut self.completed,
            Failed => &mut self.failed,
        }
    }
}

/// A crash waiting for its moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArmedProducerCrash {
    pub point: ProducerCrashPoint,
    pub restart_after_us: Option<Micros>,
    pub trigger: Trigger,
}

/// An outbox row: the event committed with the state, not yet marked sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutboxRow {
    pub msg: MsgId,
    /// The relay sent it and awaits the confirm (kept in the relay's memory only).
    pub sending: bool,
    /// Publishes of this row the broker refused or never confirmed (the backoff exponent).
    pub failures: u32,
    /// The relay skips the row until then (its retry backoff).
    pub not_before_us: Micros,
    /// Every publish attempt is used up: the row stays, unsent, for an operator.
    pub parked: bool,
}

impl OutboxRow {
    pub fn new(msg: MsgId) -> Self {
        Self {
            msg,
            sending: false,
            failures: 0,
            not_before_us: 0,
            parked: false,
        }
    }

    /// Whether the relay should publish it at its poll at `now_us`.
    pub fn due(&self, now_us: Micros) -> bool {
        !self.sending && !self.parked && self.not_before_us <= now_us
    }
}

/// The relay's retry policy: a refused or unconfirmed publish is tried again after
/// `relay_poll_s × 2^(failures−1)`, capped at this many seconds; no jitter (one relay per
/// outbox, so there is no herd to spread).
pub const RELAY_BACKOFF_CAP_S: f64 = 30.0;

#[derive(Clone, Debug)]
pub struct Producer {
    pub name: String,
    pub clock: ArrivalClock,
    /// Next scripted message, when the producer follows a script.
    pub script_next: usize,
    pub target: Target,
    /// Its target lists the producers that may publish there, and not this one: the
    /// broker refuses its every publish.
    pub denied: bool,
    pub routing_keys: Vec<String>,
    pub routing_next: usize,
    pub payload: PayloadSpec,
    pub publish: PublishSpec,
    pub handoff: Handoff,
    pub up: bool,
    pub incarnation: u32,
    pub armed: Option<ArmedProducerCrash>,
    pub restart_at_us: Option<Micros>,
    /// Armed to lose the next confirm, and how that was given.
    pub drop_next_confirm: Option<Trigger>,
    /// Outbox rows in commit order.
    pub outbox: VecDeque<OutboxRow>,
    pub relay_poll_pending: bool,
    /// Messages held back by a full queue (throttle), oldest first, and the queue.
    pub held: VecDeque<MsgId>,
    pub held_for: Option<QueueId>,
    /// Records kept while the broker is down (a producer to a log that waits for no
    /// confirm), oldest first, each with the instant its delivery timeout runs out.
    pub buffered: VecDeque<(MsgId, Micros)>,
    /// When the buffer's pending expiry timer fires, if one is set.
    pub buffer_due_us: Option<Micros>,
    /// Last version given to each key.
    pub versions: BTreeMap<u32, u32>,
    /// An idempotent producer's sequence on each partition of its log (Kafka's producer
    /// id and per-partition sequence numbers): the messages sent there and not yet
    /// stored, in the order first sent. The broker appends only the first of them.
    pub sequences: BTreeMap<u32, VecDeque<MsgId>>,
    /// The partition of each message in `sequences`.
    pub sequenced: BTreeMap<MsgId, u32>,
    /// Messages the broker refused as out of sequence: each is sent again once it is the
    /// first of its partition's sequence.
    pub out_of_sequence: BTreeSet<MsgId>,
    /// Requests that reached it while it was down and were turned away (never accepted,
    /// so in no job status): the page's card counts them beside its jobs.
    pub refused: u64,
}

impl Producer {
    pub fn new(spec: &ProducerSpec, name: String, target: Target) -> Self {
        Self {
            name,
            clock: ArrivalClock::new(spec),
            script_next: 0,
            target,
            denied: false,
            routing_keys: spec.routing_keys.clone(),
            routing_next: 0,
            payload: spec.payload.clone(),
            publish: spec.publish.clone(),
            handoff: spec.handoff.clone(),
            up: true,
            incarnation: 0,
            armed: None,
            restart_at_us: None,
            drop_next_confirm: None,
            outbox: VecDeque::new(),
            relay_poll_pending: false,
            held: VecDeque::new(),
            held_for: None,
            buffered: VecDeque::new(),
            refused: 0,
            buffer_due_us: None,
            versions: BTreeMap::new(),
            sequences: BTreeMap::new(),
            sequenced: BTreeMap::new(),
            out_of_sequence: BTreeSet::new(),
        }
    }

    /// The next version for `key` (1 for its first message).
    pub fn next_version(&mut self, key: u32) -> u32 {
        let v = self.versions.entry(key).or_insert(0);
        *v += 1;
        *v
    }

    /// The routing key for the next generated message (keys used in turn).
    pub fn next_routing_key(&mut self) -> &str {
        if self.routing_keys.is_empty() {
            return "";
        }
        let k = self.routing_next % self.routing_keys.len();
        self.routing_next += 1;
        &self.routing_keys[k]
    }

    /// Draws the aggregate key of a generated message: key 0 with the hot share, the
    /// others evenly.
    pub fn draw_key(&self, rng: &mut SimRng) -> Option<u32> {
        let keys = self.payload.keys;
        if keys == 0 {
            return None;
        }
        if self.payload.hot_key_share > 0.0 && rng.uniform() < self.payload.hot_key_share {
            return Some(0);
        }
        Some(rng.below(u64::from(keys)) as u32)
    }
}
