//! The aggregated run: producers, consumers and the broker as rates, queues as fluids
//! ([`FluidQueue`]). The clock jumps from one change to the next — a rate segment
//! boundary, a command, a restart, a queue that empties or fills, a sample — so the cost
//! follows the scenario's changes and its simulated time, never the number of messages.

use crate::routing;
use crate::scenario::{
    keeps_every_message, AckMode, CrashPoint, Flavour, QueueType, RateSegment, Scenario,
};

use super::queue::{Flow, FluidQueue, Rates};

/// A queue and the broker settings that decide what a crash does to it.
#[derive(Clone, Debug)]
pub(super) struct QueueState {
    pub fluid: FluidQueue,
    pub flavour: Flavour,
    pub visibility_s: f64,
    pub queue_type: QueueType,
    /// Its messages survive a broker restart by its durability and their persistence: a
    /// durable queue that only persistent producers feed (one fed by persistent and
    /// transient producers alike is left to the message model: see [`mixed_persistence`]).
    /// A quorum or SQS queue keeps them all whatever this says.
    pub durable: bool,
    /// A dependency outage: the consumers make no progress until then.
    pub outage_until: f64,
}

#[derive(Clone, Debug)]
pub(super) struct ProducerState {
    pub schedule: Vec<RateSegment>,
    pub up: bool,
    pub restart_at: Option<f64>,
    /// Requests still to create when the producer has a count.
    pub left: Option<f64>,
    /// What is left of a count below this is a rounding residue, and the count is done.
    pub residue: f64,
    /// Queues one request reaches, with the share of requests that reach each.
    pub targets: Vec<(usize, f64)>,
    /// Share of requests no queue takes (a routing key no binding matches).
    pub unroutable: f64,
    /// Publishes wait for a confirm (and are tried again without one).
    pub confirms: bool,
    /// Requests created while the broker was down, to publish when it is back.
    pub held_back: f64,
}

#[derive(Clone, Debug)]
pub(super) struct ConsumerState {
    pub queue: usize,
    pub slots: f64,
    /// Copies it may hold at once, under way and buffered (its prefetch).
    pub prefetch: f64,
    pub mean_s: f64,
    pub slow: f64,
    pub up: bool,
    /// Scaled in (`set_consumer_count`) or not.
    pub active: bool,
    pub ack: AckMode,
    pub restart_at: Option<f64>,
    /// A crash waiting for its point: after the consumer's next delivery or commit.
    pub armed: Option<ArmedCrash>,
}

/// A consumer crash for a point other than "now". The fluid has no next delivery or
/// commit, only rates: the crash strikes once the consumer has received (after receive)
/// or finished (after commit, while it acks after commit) one whole copy since it was
/// armed, at its share of its queue's service rate.
#[derive(Clone, Copy, Debug)]
pub(super) struct ArmedCrash {
    pub point: CrashPoint,
    pub restart_after_s: Option<f64>,
    /// Copies received or finished since it was armed.
    pub progress: f64,
}

impl ArmedCrash {
    /// Progress this close to a whole copy is one: float rounding, not work.
    const WHOLE: f64 = 1.0 - 1e-9;

    pub fn due(&self) -> bool {
        self.progress >= Self::WHOLE
    }
}

/// A consumer that takes no time still finishes a finite amount per second.
const CAPACITY_MAX: f64 = 1e15;

/// Share of a producer's count that, left over once the clock reaches the instant the
/// count runs out, is float rounding rather than requests (`3.6 × dt` summed over
/// thousands of pieces leaves about 10^-12 of 10,000).
const COUNT_RESIDUE: f64 = 1e-9;

impl ProducerState {
    pub fn new(s: &Scenario, p: usize) -> Self {
        let spec = &s.producers[p];
        Self {
            schedule: spec.arrivals.schedule.clone(),
            up: true,
            restart_at: None,
            left: spec.count.map(|n| n as f64),
            residue: spec
                .count
                .map_or(0.0, |n| COUNT_RESIDUE * (n as f64).max(1.0)),
            targets: targets(s, p),
            unroutable: unroutable_share(s, p),
            confirms: spec.publish.confirms,
            held_back: 0.0,
        }
    }

    /// Requests per second at `t` (created even while down: they are then refused).
    pub fn rate(&self, t: f64) -> f64 {
        if self.left.is_some_and(|n| n <= 0.0) {
            return 0.0;
        }
        self.schedule
            .iter()
            .rev()
            .find(|seg| seg.from_s <= t)
            .map_or(0.0, |seg| seg.rate_per_s)
    }

    /// Ends the count at `t` when what is left of it is a rounding residue: below
    /// [`COUNT_RESIDUE`] of it, or so little at the current rate that the instant it runs
    /// out rounds to `t` itself. Otherwise that instant would be `t` and no time would
    /// pass before it, however often the clock moved on.
    pub fn settle(&mut self, t: f64) {
        let rate = self.rate(t);
        if let Some(n) = &mut self.left {
            if *n <= self.residue || (rate > 0.0 && t + *n / rate <= t) {
                *n = 0.0;
            }
        }
    }

    /// The next instant after `t` at which the rate changes by itself (its count runs out
    /// strictly after `t` once [`Self::settle`] has run at `t`).
    pub fn next_change(&self, t: f64) -> f64 {
        let boundary = self
            .schedule
            .iter()
            .map(|seg| seg.from_s)
            .find(|&from| from > t)
            .unwrap_or(f64::INFINITY);
        let rate = self.rate(t);
        let exhausted = match self.left {
            Some(n) if rate > 0.0 => t + n / rate,
            _ => f64::INFINITY,
        };
        boundary
            .min(exhausted)
            .min(self.restart_at.unwrap_or(f64::INFINITY))
    }
}

impl ConsumerState {
    pub fn from_spec(s: &Scenario, spec: &crate::scenario::ConsumerSpec) -> Self {
        Self {
            queue: s.queue_of(spec),
            slots: f64::from(spec.concurrency),
            prefetch: f64::from(spec.prefetch),
            mean_s: spec.service.mean_s(),
            slow: 1.0,
            up: true,
            active: true,
            ack: spec.ack,
            restart_at: None,
            armed: None,
        }
    }

    /// Copies per second that bring its armed crash closer, given its queue's flow and
    /// rates: its share (by capacity) of what the queue serves, while it works there. A
    /// crash after commit waits while the consumer acks on delivery (there is no ack to
    /// crash before), as message by message.
    pub fn toward_crash(&self, f: &Flow, r: &Rates) -> f64 {
        let Some(armed) = self.armed else {
            return 0.0;
        };
        let counts = match armed.point {
            CrashPoint::Now => false,
            CrashPoint::AfterReceive => true,
            CrashPoint::AfterCommitBeforeAck => self.ack == AckMode::AfterCommit,
        };
        if !counts || !self.working() || f.capacity <= 0.0 {
            return 0.0;
        }
        r.serve * self.capacity() / f.capacity
    }

    pub fn working(&self) -> bool {
        self.up && self.active
    }

    /// Copies its prefetch buffer holds beyond those under way, once a line waits.
    pub fn buffer(&self) -> f64 {
        (self.prefetch - self.slots).max(0.0)
    }

    /// Copies per second this consumer finishes while busy.
    pub fn capacity(&self) -> f64 {
        let per_copy = self.mean_s * self.slow;
        if per_copy > 0.0 {
            (self.slots / per_copy).min(CAPACITY_MAX)
        } else {
            CAPACITY_MAX
        }
    }
}

/// Share of producer `p`'s requests that reach no queue.
impl QueueState {
    /// Whether what the queue holds is still there after a broker restart, as the message
    /// model decides it per copy (`Queue::survives_restart`).
    pub fn survives_restart(&self) -> bool {
        keeps_every_message(self.flavour, self.queue_type) || self.durable
    }
}

/// Whether queue `q`'s messages are persistent by the producers that can reach it: every
/// one of them publishes persistent messages (a queue nobody feeds counts as persistent).
pub(super) fn fed_persistent(s: &Scenario, q: usize) -> bool {
    feeders(s, q).all(|p| s.producers[p].publish.persistent)
}

/// A durable queue (not quorum, not SQS) fed by persistent and transient producers alike:
/// a broker restart keeps one share of it and loses the other, which the fluid queue
/// (one amount) cannot tell apart.
pub(super) fn mixed_persistence(s: &Scenario, q: usize) -> bool {
    let spec = &s.queues[q];
    let persistent = |p: &usize| s.producers[*p].publish.persistent;
    spec.durable
        && !keeps_every_message(spec.flavour, spec.queue_type)
        && feeders(s, q).any(|p| persistent(&p))
        && feeders(s, q).any(|p| !persistent(&p))
}

fn feeders(s: &Scenario, q: usize) -> impl Iterator<Item = usize> + '_ {
    (0..s.producers.len()).filter(move |&p| targets(s, p).iter().any(|&(t, _)| t == q))
}

fn unroutable_share(s: &Scenario, p: usize) -> f64 {
    let spec = &s.producers[p];
    let Some(x) = s.exchanges.iter().find(|x| x.name == spec.target) else {
        return if targets(s, p).is_empty() { 1.0 } else { 0.0 };
    };
    let keys: Vec<&str> = if spec.routing_keys.is_empty() {
        vec![""]
    } else {
        spec.routing_keys.iter().map(String::as_str).collect()
    };
    let lost = keys
        .iter()
        .filter(|key| {
            !x.bindings
                .iter()
                .any(|b| routing::matches(x.kind, &b.key, key) && s.queue_index(&b.queue).is_some())
        })
        .count();
    lost as f64 / keys.len() as f64
}

/// The queues producer `p`'s requests reach, each with its share of them. Routing keys
/// are used in turn, so each key takes an equal share; a key no binding matches is
/// unroutable (its share reaches no queue).
fn targets(s: &Scenario, p: usize) -> Vec<(usize, f64)> {
    let spec = &s.producers[p];
    if spec.target.is_empty() {
        return if s.queues.is_empty() {
            vec![]
        } else {
            vec![(0, 1.0)]
        };
    }
    if let Some(q) = s.queue_index(&spec.target) {
        return vec![(q, 1.0)];
    }
    let Some(x) = s.exchanges.iter().find(|x| x.name == spec.target) else {
        return vec![];
    };
    let keys: Vec<&str> = if spec.routing_keys.is_empty() {
        vec![""]
    } else {
        spec.routing_keys.iter().map(String::as_str).collect()
    };
    let share = 1.0 / keys.len() as f64;
    let mut out: Vec<(usize, f64)> = Vec::new();
    for key in keys {
        let mut queues: Vec<usize> = x
            .bindings
            .iter()
            .filter(|b| routing::matches(x.kind, &b.key, key))
            .filter_map(|b| s.queue_index(&b.queue))
            .collect();
        queues.sort_unstable();
        queues.dedup();
        for q in queues {
            match out.iter_mut().find(|(o, _)| *o == q) {
                Some((_, w)) => *w += share,
                None => out.push((q, share)),
            }
        }
    }
    out
}

/// Every queue's flow at `t`: what the producers send it and what its consumers can take.
pub(super) fn flows(
    t: f64,
    broker_up: bool,
    producers: &[ProducerState],
    consumers: &[ConsumerState],
    queues: &[QueueState],
) -> Vec<Flow> {
    let mut out = vec![Flow::default(); queues.len()];
    if !broker_up {
        return out;
    }
    for p in producers.iter().filter(|p| p.up) {
        let rate = p.rate(t);
        for &(q, share) in &p.targets {
            out[q].arrive += rate * share;
        }
    }
    for c in consumers.iter().filter(|c| c.working()) {
        if queues[c.queue].outage_until <= t {
            out[c.queue].capacity += c.capacity();
            out[c.queue].slots += c.slots;
        }
    }
    out
}

/// Rates of every queue for the piece starting now.
pub(super) fn rates(queues: &[QueueState], flows: &[Flow]) -> Vec<Rates> {
    queues
        .iter()
        .zip(flows)
        .map(|(q, f)| q.fluid.rates(*f))
        .collect()
}
