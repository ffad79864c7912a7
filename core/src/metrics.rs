//! What the run measures: counters, time-weighted averages, latencies and a time series
//! sampled at a fixed interval of simulated time.

use serde::Serialize;

use crate::dependency::DependencySample;
use crate::scenario::limits::SAMPLES_MAX;
use crate::time::{us_to_secs, Micros};

/// Running totals. Every field only grows.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counters {
    /// Messages producers created.
    pub created: u64,
    /// Copies the broker stored (a fan-out stores one per matching queue; an unrecognised
    /// publish retry stores another).
    pub published: u64,
    /// Deliveries, first ones and redeliveries alike.
    pub delivered: u64,
    /// Deliveries with attempt > 1.
    pub redelivered: u64,
    /// Acks the broker accepted (one per copy at most).
    pub acked: u64,
    /// Acks the broker ignored (stale lease or already done).
    pub acks_ignored: u64,
    /// Acks lost on the way.
    pub acks_lost: u64,
    /// Copies lost for good, in all and by reason.
    pub lost: u64,
    pub lost_acked_before_effect: u64,
    pub lost_broker_restart: u64,
    pub lost_without_dead_letter_queue: u64,
    /// Messages gone before the broker stored any copy, with nobody told: published
    /// without confirms while the broker was down, or held back in a producer's memory
    /// when it crashed. Not copies, so not in `lost` (each is in `gave_up` too).
    pub lost_before_stored: u64,
    /// Effect applications, duplicates included.
    pub effects_applied: u64,
    /// Applications beyond the first for the same message in the same consumer group.
    pub duplicate_effects: u64,
    /// Duplicates the handler recognised and skipped.
    pub duplicates_skipped: u64,
    /// Different messages an inbox keyed by their entity took for duplicates and
    /// skipped: acked, and their work never done (lost for good).
    pub taken_for_duplicates: u64,
    /// Effects applied by a handler that trusts the broker for messages whose source had
    /// no authority to ask for them (each is in `effects_applied` too).
    pub unauthorized_effects: u64,
    /// Publishes the broker refused because their producer may not publish to that
    /// destination (each attempt).
    pub publishes_denied: u64,
    pub stale_ignored: u64,
    pub gap_waits: u64,
    pub gaps_reconciled: u64,
    /// Operations a business rule refused (withdrawal over the balance).
    pub effects_refused: u64,
    pub handler_failures: u64,
    pub retries_scheduled: u64,
    pub dead_lettered: u64,
    /// Dead-lettered again after a redrive.
    pub dead_lettered_again: u64,
    pub redriven: u64,
    /// Dead-lettered copies a broker restart took from a dead-letter queue (transient, or
    /// in a non-durable queue's): counted in `lost` too.
    pub dead_letters_lost: u64,
    pub expired: u64,
    pub dropped: u64,
    pub refused: u64,
    pub unroutable: u64,
    pub returned: u64,
    pub deduplicated: u64,
    pub publish_attempts: u64,
    pub confirms: u64,
    pub confirms_lost: u64,
    pub confirm_timeouts: u64,
    pub publish_failed: u64,
    pub gave_up: u64,
    pub never_published: u64,
    pub requests_refused: u64,
    pub throttled: u64,
    /// Records a log producer kept in its buffer while the broker was down.
    pub buffered: u64,
    pub leases_expired: u64,
    /// Consumer crashes.
    pub crashes: u64,
    pub restarts: u64,
    pub producer_crashes: u64,
    pub broker_crashes: u64,
    /// Records appended to logs, expired by retention, processed by groups.
    pub appended: u64,
    /// Control records (transactions' commit and abort markers) appended to logs: each
    /// takes an offset and holds no message. Retention counts them in `records_expired`.
    pub control_records: u64,
    pub records_expired: u64,
    pub records_processed: u64,
    pub offsets_committed: u64,
    /// Records a group will never process (committed before processing, or expired unread).
    pub records_skipped: u64,
    pub rebalances: u64,
    pub member_crashes: u64,
    /// Emails sent by handlers (an effect outside every transaction).
    pub emails_sent: u64,
    /// Copies whose work is finished (effect applied, or skipped for a stated reason) and
    /// that the broker is done with.
    pub done: u64,
    /// Of those, copies finished with no ack reaching the broker: acked on delivery, or
    /// forgotten by a broker crash while being processed (the rest are `acked`).
    pub done_without_ack: u64,
    /// Group records retried in place, and given up on (sent to a dead-letter topic).
    pub record_retries: u64,
    pub records_dead_lettered: u64,
    /// Keyed log effects that reached an aggregate after a newer version of their key.
    pub records_out_of_order: u64,
}

/// One sample of the time series.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Sample {
    pub t_s: f64,
    /// Messages waiting in the queue, visible, not delivered.
    pub backlog: u64,
    /// Age of the oldest waiting message (0 when none waits).
    pub oldest_age_s: f64,
    /// Messages delivered and not yet settled.
    pub in_flight: u64,
    /// Copies waiting out a retry backoff.
    pub retry_waiting: u64,
    /// Copies in dead-letter queues.
    pub dead_lettered: u64,
    /// Log records not yet committed by their consumer groups (total lag).
    pub lag: u64,
    /// Running totals at that instant: differences between samples are rates.
    pub published: u64,
    pub delivered: u64,
    pub redelivered: u64,
    pub acked: u64,
    pub lost: u64,
    pub duplicate_effects: u64,
}

/// One queue at one sample time.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct QueueSample {
    pub waiting: u64,
    pub in_flight: u64,
    pub retry_waiting: u64,
    pub dead_lettered: u64,
    pub oldest_age_s: f64,
}

/// One consumer group of a log at one sample time.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct GroupSample {
    /// Records appended but not committed by the group, over all partitions.
    pub lag: u64,
    pub members_up: u32,
}

/// Useful work against attempts at one sample time: goodput next to throughput.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct FlowSample {
    /// Copies finished so far (effect applied, or skipped for a stated reason).
    pub done: u64,
    /// Handler attempts started so far, retries included.
    pub attempts: u64,
    /// Copies finished per second over the last interval: useful completions.
    pub goodput_per_s: f64,
    /// Handler attempts per second over the last interval, retries included.
    pub throughput_per_s: f64,
}

impl FlowSample {
    /// The sample after `prev`, `dt_s` later, from the running totals.
    pub fn next(prev: Option<&FlowSample>, done: u64, attempts: u64, dt_s: f64) -> Self {
        let rate = |now: u64, before: u64| {
            if dt_s > 0.0 {
                now.saturating_sub(before) as f64 / dt_s
            } else {
                0.0
            }
        };
        let (d0, a0) = prev.map_or((0, 0), |p| (p.done, p.attempts));
        Self {
            done,
            attempts,
            goodput_per_s: rate(done, d0),
            throughput_per_s: rate(attempts, a0),
        }
    }
}

/// Samples at a fixed interval. When it would exceed [`SAMPLES_MAX`], every other sample
/// is dropped and the interval doubles, so memory stays bounded on any run length.
#[derive(Clone, Debug)]
pub struct Series {
    every_us: Micros,
    next_us: Micros,
    samples: Vec<Sample>,
    /// Per entity, in step with `samples`: each queue's and each log group's values.
    queues: Vec<Vec<QueueSample>>,
    groups: Vec<Vec<GroupSample>>,
    /// Goodput and throughput, and each dependency's values.
    flow: Vec<FlowSample>,
    deps: Vec<Vec<DependencySample>>,
}

impl Series {
    pub fn new(every_us: Micros, queues: usize, groups: usize, deps: usize) -> Self {
        Self {
            every_us,
            next_us: 0,
            samples: Vec::new(),
            queues: vec![Vec::new(); queues],
            groups: vec![Vec::new(); groups],
            flow: Vec::new(),
            deps: vec![Vec::new(); deps],
        }
    }

    /// The interval between samples now (it doubles when the series is thinned).
    pub fn every_us(&self) -> Micros {
        self.every_us
    }

    pub fn flow_samples(&self) -> &[FlowSample] {
        &self.flow
    }

    pub fn dependency_samples(&self, d: usize) -> &[DependencySample] {
        self.deps.get(d).map_or(&[], Vec::as_slice)
    }

    /// Records the flow and the dependencies' values of the sample being pushed next.
    pub fn push_flow(&mut self, flow: FlowSample, deps: &[DependencySample]) {
        push_bounded(&mut self.flow, flow);
        for (series, s) in self.deps.iter_mut().zip(deps) {
            push_bounded(series, *s);
        }
    }

    pub fn queue_samples(&self, q: usize) -> &[QueueSample] {
        self.queues.get(q).map_or(&[], Vec::as_slice)
    }

    pub fn group_samples(&self, g: usize) -> &[GroupSample] {
        self.groups.get(g).map_or(&[], Vec::as_slice)
    }

    pub fn samples(&self) -> &[Sample] {
        &self.samples
    }

    /// Sample times due strictly before `now`: the state has been constant since the last
    /// event, so each due sample sees it as `sample_at` gives it.
    pub fn due_before(&self, now: Micros) -> Option<Micros> {
        (self.next_us < now).then_some(self.next_us)
    }

    pub fn push(&mut self, sample: Sample, queues: &[QueueSample], groups: &[GroupSample]) {
        push_bounded(&mut self.samples, sample);
        for (series, s) in self.queues.iter_mut().zip(queues) {
            push_bounded(series, *s);
        }
        for (series, s) in self.groups.iter_mut().zip(groups) {
            push_bounded(series, *s);
        }
        self.next_us = self.next_us.saturating_add(self.every_us);
        if self.samples.len() as u64 >= SAMPLES_MAX {
            // In place: a new vector per halving was copied again as soon as it grew
            // back (see `push_bounded`).
            fn halve<T: Copy>(v: &mut Vec<T>) {
                let mut i = 0;
                v.retain(|_| {
                    i += 1;
                    i % 2 == 1
                });
            }
            halve(&mut self.samples);
            self.queues.iter_mut().for_each(halve);
            self.groups.iter_mut().for_each(halve);
            halve(&mut self.flow);
            self.deps.iter_mut().for_each(halve);
            self.every_us = self.every_us.saturating_mul(2);
            let last = self.samples.last().map_or(0.0, |s| s.t_s);
            self.next_us = crate::time::secs_to_us(last).saturating_add(self.every_us);
        }
    }
}

/// Pushes onto a series, growing it as a vector does but never past [`SAMPLES_MAX`]
/// entries: the series is halved in place there, so its allocation is final and never
/// copied again (and the peak while growing is lower than doubling past the limit).
fn push_bounded<T>(v: &mut Vec<T>, value: T) {
    if v.len() == v.capacity() {
        let target = (v.capacity() * 2).clamp(4, SAMPLES_MAX as usize);
        v.reserve_exact(target.saturating_sub(v.len()).max(1));
    }
    v.push(value);
}

/// Values below this many are kept exactly; above, the histogram takes over.
const EXACT_MAX: usize = 4_096;
/// Sub-buckets per power of two: a bucket is at most 1/128 of its values wide.
const SUB_BITS: u32 = 7;
const SUB: u64 = 1 << SUB_BITS;

/// Latency percentiles in bounded memory. The first [`EXACT_MAX`] values are kept as
/// they are, so short runs get exact percentiles; from then on, a log-linear histogram
/// (values below 128 µs exactly, above in 128 buckets per power of two) holds the counts,
/// and a percentile is its bucket's midpoint, clamped to the smallest and largest value
/// seen: within 1/256 (0.4 %) of the exact nearest-rank value. The histogram grows only
/// up to the largest value's bucket (about 2,700 buckets for a latency of a day).
#[derive(Clone, Debug, Default)]
pub struct Latencies {
    exact: Vec<Micros>,
    buckets: Vec<u64>,
    count: u64,
    sum_us: u128,
    min_us: Micros,
    max_us: Micros,
}

/// The histogram bucket of `v`.
fn bucket_of(v: Micros) -> usize {
    if v < SUB {
        return v as usize;
    }
    let shift = 63 - v.leading_zeros() - SUB_BITS;
    ((u64::from(shift) + 1) * SUB + ((v >> shift) - SUB)) as usize
}

/// The smallest value of bucket `b`, and the bucket's width.
fn bucket_bounds(b: usize) -> (Micros, Micros) {
    let b = b as u64;
    if b < SUB {
        return (b, 1);
    }
    let shift = b / SUB - 1;
    ((SUB + b % SUB) << shift, 1 << shift)
}

impl Latencies {
    pub fn record(&mut self, us: Micros) {
        self.min_us = if self.count == 0 {
            us
        } else {
            self.min_us.min(us)
        };
        self.max_us = self.max_us.max(us);
        self.count += 1;
        self.sum_us += u128::from(us);
        if self.buckets.is_empty() && self.exact.len() < EXACT_MAX {
            self.exact.push(us);
            return;
        }
        for v in std::mem::take(&mut self.exact) {
            self.count_in_bucket(v);
        }
        self.count_in_bucket(us);
    }

    fn count_in_bucket(&mut self, v: Micros) {
        let b = bucket_of(v);
        if self.buckets.len() <= b {
            self.buckets.resize(b + 1, 0);
        }
        self.buckets[b] += 1;
    }

    pub fn mean_s(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            us_to_secs((self.sum_us / u128::from(self.count)) as u64)
        }
    }

    /// Nearest-rank percentile `p` in [0, 100], in seconds (0 when empty).
    pub fn percentile_s(&self, p: f64) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let rank = ((p / 100.0 * self.count as f64).ceil() as u64).clamp(1, self.count);
        if self.buckets.is_empty() {
            let mut v = self.exact.clone();
            let (_, x, _) = v.select_nth_unstable(rank as usize - 1);
            return us_to_secs(*x);
        }
        let mut seen = 0;
        for (b, &n) in self.buckets.iter().enumerate() {
            seen += n;
            if seen >= rank {
                let (lo, width) = bucket_bounds(b);
                let mid = lo + (width - 1) / 2;
                return us_to_secs(mid.clamp(self.min_us, self.max_us));
            }
        }
        us_to_secs(self.max_us)
    }
}

#[cfg(test)]
mod latency_tests {
    use super::*;

    /// The exact nearest-rank percentile, for comparison.
    fn exact(values: &[Micros], p: f64) -> f64 {
        let mut v = values.to_vec();
        v.sort_unstable();
        let rank = ((p / 100.0 * v.len() as f64).ceil() as usize).clamp(1, v.len());
        us_to_secs(v[rank - 1])
    }

    #[test]
    fn buckets_cover_every_value_once_and_in_order() {
        let mut last = 0;
        for v in (0..5_000u64).chain([1 << 20, (1 << 20) + 1, u64::MAX / 2, u64::MAX]) {
            let b = bucket_of(v);
            assert!(b >= last, "bucket order at {v}");
            last = b;
            let (lo, width) = bucket_bounds(b);
            assert!(lo <= v && v - lo < width, "{v} in [{lo}, {lo}+{width})");
            assert!(width == 1 || width * SUB <= lo, "bucket of {v} too wide");
        }
    }

    #[test]
    fn percentiles_are_exact_for_few_values_and_within_0_4_percent_for_many() {
        // A deterministic spread of latencies from 1 µs to about 10 minutes.
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut values = Vec::new();
        let mut lat = Latencies::default();
        for i in 0..200_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = (x % 1_000_000) * (1 + (x >> 40) % 600) + i % 3;
            values.push(v);
            lat.record(v);
            if i + 1 == EXACT_MAX as u64 {
                for p in [0.0, 50.0, 95.0, 99.0, 100.0] {
                    assert_eq!(lat.percentile_s(p), exact(&values, p), "p{p} while exact");
                }
            }
        }
        assert!(lat.exact.is_empty() && !lat.buckets.is_empty());
        for p in [0.1, 1.0, 25.0, 50.0, 90.0, 95.0, 99.0, 99.9, 100.0] {
            let (got, want) = (lat.percentile_s(p), exact(&values, p));
            assert!(
                (got - want).abs() <= want / 256.0 + 1e-6,
                "p{p}: {got} against exact {want}"
            );
        }
        let mean = values.iter().map(|&v| u128::from(v)).sum::<u128>() / values.len() as u128;
        assert_eq!(lat.mean_s(), us_to_secs(mean as u64));
    }
}

/// The report's headline numbers: every counter, plus what is derived from them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// The simulated time the run covers: its last step, or the scenario's `end_s` when
    /// the run went quiet before it (the series and rates count that quiet time).
    pub end_s: f64,
    /// When the run's last step happened: where the page's timeline ends.
    pub last_step_s: f64,
    #[serde(flatten)]
    pub counters: Counters,
    pub backlog_end: u64,
    pub in_flight_end: u64,
    pub retry_waiting_end: u64,
    pub dead_lettered_end: u64,
    /// Messages still with producers (outbox, backpressure, awaiting a confirm).
    pub pending_at_producers_end: u64,
    /// Mean time from storage to first delivery.
    pub mean_queue_wait_s: f64,
    pub queue_wait_p50_s: f64,
    pub queue_wait_p95_s: f64,
    pub queue_wait_p99_s: f64,
    /// Time-average number of waiting copies.
    pub mean_queue_len: f64,
    /// Busy consumer slots over available consumer slots (crashed time excluded).
    pub utilization: f64,
    /// Finished queue copies per second of simulated time.
    pub throughput_per_s: f64,
    /// Log records processed by groups' members per second of simulated time (each
    /// group counts its own, reprocessing after a rebalance included): a run that
    /// reads logs only has throughput here, not in `throughput_per_s`.
    pub record_throughput_per_s: f64,
    /// End-to-end latency (message created → copy done): mean and percentiles.
    pub latency_mean_s: f64,
    pub latency_p50_s: f64,
    pub latency_p95_s: f64,
    pub latency_p99_s: f64,
    /// Log records, message created → a group's member done with the record (once per
    /// group, reprocessing after a rebalance included): percentiles over
    /// `records_processed`.
    pub record_latency_p50_s: f64,
    pub record_latency_p95_s: f64,
    pub record_latency_p99_s: f64,
}
