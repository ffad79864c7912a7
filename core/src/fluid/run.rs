//! The aggregated run's clock: from one change to the next, sampling on the way.

use crate::end_reason::EndReason;
use crate::metrics::{QueueSample, Sample, Series};
use crate::scenario::{limits, Command, Scenario};
use crate::time::{secs_to_us, us_to_secs, Micros};

use super::counts::{round, Counts};
use super::model::{flows, rates, ConsumerState, ProducerState, QueueState};
use super::queue::{Flow, FluidQueue, Rates, Totals};
use super::{AggregateRun, Losses};

/// Most pieces a run takes: far more than any scenario's changes and samples need
/// (a day sampled every second is about 40,000), so only a defect could reach it.
pub(super) const PIECES_MAX: u64 = 10_000_000;

pub(super) struct Run<'a> {
    pub s: &'a Scenario,
    pub t: f64,
    pub broker_up: bool,
    pub broker_restart_at: Option<f64>,
    pub producers: Vec<ProducerState>,
    pub consumers: Vec<ConsumerState>,
    pub queues: Vec<QueueState>,
    /// Commands in the order they strike: `(at_s, command)`.
    pub changes: Vec<(f64, Command)>,
    pub next_change: usize,
    /// Copies abandoned by a crash that come back when their lease runs out.
    pub returns: Vec<(f64, usize, f64)>,
    /// Requests created while their producer was down, and publishes while the broker was.
    pub requests_refused: f64,
    pub not_published: f64,
    pub series: Series,
    pub losses: Vec<Losses>,
    pub steps: u64,
    /// Whether to sample (off when only the peak is wanted).
    pub sampling: bool,
    pub peak_waiting: f64,
}

impl<'a> Run<'a> {
    pub fn new(s: &'a Scenario) -> Self {
        let mut changes: Vec<(f64, Command)> = s
            .commands
            .iter()
            .map(|f| (f.at_s, f.command.clone()))
            .chain(
                s.interventions
                    .iter()
                    .map(|iv| (us_to_secs(iv.at_us), iv.command.clone())),
            )
            .collect();
        changes.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut consumers = Vec::new();
        for spec in &s.consumers {
            for _ in 0..spec.replicas {
                consumers.push(ConsumerState::from_spec(s, spec));
            }
        }
        Self {
            s,
            t: 0.0,
            broker_up: true,
            broker_restart_at: None,
            producers: (0..s.producers.len())
                .map(|p| ProducerState::new(s, p))
                .collect(),
            consumers,
            queues: (0..s.queues.len()).map(|q| queue_state(s, q)).collect(),
            changes,
            next_change: 0,
            returns: Vec::new(),
            requests_refused: 0.0,
            not_published: 0.0,
            series: Series::new(secs_to_us(s.sample_every_s), s.queues.len(), 0, 0),
            losses: Vec::new(),
            steps: 0,
            sampling: true,
            peak_waiting: 0.0,
        }
    }

    /// Runs to the end: the scenario's end time, or nothing left that could change.
    pub fn run(mut self, why: String) -> AggregateRun {
        let end = self.s.end_s.unwrap_or(f64::INFINITY);
        let reason = loop {
            // As in the message model, a sample at an instant sees what happened at it, and
            // a command at the end time itself is applied (the message model takes it as
            // its last step).
            if self.t <= end {
                self.apply_due();
            }
            self.take_due_samples();
            if self.t >= end {
                break EndReason::EndTime;
            }
            if self.t >= limits::TIME_S_MAX {
                break EndReason::TimeLimit;
            }
            if self.steps >= PIECES_MAX {
                break EndReason::StepBudget;
            }
            let t = self.t;
            for p in &mut self.producers {
                p.settle(t);
            }
            let flows = flows(
                t,
                self.broker_up,
                &self.producers,
                &self.consumers,
                &self.queues,
            );
            let rates = rates(&self.queues, &flows);
            let (next, forced) = self.next_event(&flows, &rates);
            let next = next.min(end);
            if next.is_infinite() {
                break EndReason::Drained;
            }
            let next = next.min(limits::TIME_S_MAX);
            let sample_at = self.next_sample_s();
            let dt = if next > t {
                next.min(sample_at) - t
            } else if t + forced <= t {
                // A queue empties, fills up or runs out of requeued copies so soon that
                // the instant rounds to now: the queue moves on, the clock stays.
                forced
            } else {
                // Nothing else should round to now; if something does, the clock moves on
                // by the least it can rather than by some unrelated horizon (or by an
                // infinite one when every queue is empty).
                t.next_up() - t
            };
            debug_assert!(dt.is_finite() && dt >= 0.0, "a step of {dt} s at {t} s");
            self.advance(dt, &flows, &rates);
            self.steps += 1;
        };
        self.final_sample();
        self.finish(reason, why)
    }

    /// The next instant something changes, and the smallest queue horizon (used to move
    /// on when that instant rounds to now).
    fn next_event(&self, flows: &[Flow], rates: &[Rates]) -> (f64, f64) {
        let t = self.t;
        let mut next = self
            .changes
            .get(self.next_change)
            .map_or(f64::INFINITY, |c| c.0);
        next = next.min(self.broker_restart_at.unwrap_or(f64::INFINITY));
        for p in &self.producers {
            next = next.min(p.next_change(t));
        }
        for c in &self.consumers {
            next = next.min(c.restart_at.unwrap_or(f64::INFINITY));
            let toward = c.toward_crash(&flows[c.queue], &rates[c.queue]);
            if let Some(armed) = c.armed.filter(|_| toward > 0.0) {
                next = next.min(t + (1.0 - armed.progress).max(0.0) / toward);
            }
        }
        for q in &self.queues {
            if q.outage_until > t {
                next = next.min(q.outage_until);
            }
        }
        for r in &self.returns {
            next = next.min(r.0);
        }
        let mut horizon = f64::INFINITY;
        for (q, r) in self.queues.iter().zip(rates) {
            horizon = horizon.min(q.fluid.horizon(r));
        }
        (next.min(t + horizon), horizon)
    }

    fn next_sample_s(&self) -> f64 {
        if !self.sampling {
            return f64::INFINITY;
        }
        self.series
            .due_before(Micros::MAX)
            .map_or(f64::INFINITY, us_to_secs)
    }

    /// Moves every queue, producer and armed crash `dt` seconds on.
    fn advance(&mut self, dt: f64, flows: &[Flow], rates: &[Rates]) {
        let t = self.t;
        for c in &mut self.consumers {
            let toward = c.toward_crash(&flows[c.queue], &rates[c.queue]);
            if let Some(armed) = &mut c.armed {
                armed.progress += toward * dt;
            }
        }
        for (q, r) in self.queues.iter_mut().zip(rates) {
            q.fluid.advance(t, dt, r);
        }
        let broker_up = self.broker_up;
        for p in &mut self.producers {
            let created = p.rate(t) * dt;
            if let Some(n) = &mut p.left {
                *n = (*n - created).max(0.0);
                if *n <= p.residue {
                    *n = 0.0;
                }
            }
            if !p.up {
                self.requests_refused += created;
            } else if !broker_up && p.confirms {
                // Unconfirmed publishes are tried again: they reach the broker once it is back.
                p.held_back += created;
            } else if !broker_up {
                self.not_published += created;
            } else {
                self.not_published += created * p.unroutable;
            }
        }
        self.t = t + dt;
        let waiting: f64 = self.queues.iter().map(|q| q.fluid.waiting()).sum();
        self.peak_waiting = self.peak_waiting.max(waiting);
    }

    /// Applies every command, restart and return due by now.
    fn apply_due(&mut self) {
        let t = self.t;
        while let Some((at, command)) = self.changes.get(self.next_change).cloned() {
            if at > t {
                break;
            }
            self.next_change += 1;
            self.apply(&command);
        }
        if self.broker_restart_at.is_some_and(|at| at <= t) {
            self.restart_broker();
        }
        for p in &mut self.producers {
            if p.restart_at.is_some_and(|at| at <= t) {
                (p.restart_at, p.up) = (None, true);
            }
        }
        for c in &mut self.consumers {
            if c.restart_at.is_some_and(|at| at <= t) {
                (c.restart_at, c.up) = (None, true);
            }
        }
        self.strike_armed_crashes();
        let (due, later): (Vec<_>, Vec<_>) = self.returns.iter().partition(|r| r.0 <= t);
        self.returns = later;
        for (at, q, amount) in due {
            self.queues[q].fluid.requeue(amount, at);
        }
    }

    /// The broker is back: publishes held back for want of a confirm arrive at once.
    pub(super) fn restart_broker(&mut self) {
        (self.broker_up, self.broker_restart_at) = (true, None);
        let t = self.t;
        for p in &mut self.producers {
            let held = std::mem::take(&mut p.held_back);
            for &(q, share) in &p.targets {
                self.queues[q].fluid.admit_now(held * share, t);
            }
            self.not_published += held * p.unroutable;
        }
    }

    /// Pushes the samples due at or before now: the state is the one they see.
    fn take_due_samples(&mut self) {
        if !self.sampling {
            return;
        }
        let now = secs_to_us(self.t).saturating_add(1);
        while let Some(ts) = self.series.due_before(now) {
            self.push_sample(ts);
        }
    }

    fn final_sample(&mut self) {
        if !self.sampling {
            return;
        }
        let last = self.series.samples().last().map_or(-1.0, |s| s.t_s);
        if last < self.t {
            self.push_sample(secs_to_us(self.t));
        }
    }

    fn push_sample(&mut self, ts: Micros) {
        let flows = flows(
            self.t,
            self.broker_up,
            &self.producers,
            &self.consumers,
            &self.queues,
        );
        let t_s = us_to_secs(ts);
        let returning = self.returning();
        let mut total = Counts::default();
        let mut queues = Vec::with_capacity(self.queues.len());
        for ((q, f), r) in self.queues.iter_mut().zip(&flows).zip(&returning) {
            let c = Counts::of(&q.fluid, *f, *r);
            total = total.plus(c);
            queues.push(QueueSample {
                waiting: c.waiting,
                in_flight: c.in_flight,
                retry_waiting: 0,
                dead_lettered: 0,
                oldest_age_s: q.fluid.oldest_age(t_s),
            });
        }
        let mut sample = Sample {
            t_s,
            backlog: total.waiting,
            oldest_age_s: queues.iter().map(|q| q.oldest_age_s).fold(0.0, f64::max),
            in_flight: total.in_flight,
            retry_waiting: 0,
            dead_lettered: 0,
            lag: 0,
            published: total.published,
            delivered: total.delivered,
            redelivered: total.redelivered,
            acked: total.acked,
            lost: total.lost,
            duplicate_effects: 0,
        };
        if let Some(prev) = self.series.samples().last() {
            // Amounts rounded at each sample: keep the running totals from going back.
            sample.delivered = sample.delivered.max(prev.delivered);
        }
        let before = self.series.samples().len();
        self.series.push(sample, &queues, &[]);
        let mut losses = self.losses_now();
        // In step with the sample, which balances with it.
        losses.dropped = total.dropped;
        self.losses.push(losses);
        if self.series.samples().len() < before + 1 {
            self.losses = self.losses.iter().step_by(2).copied().collect();
        }
    }

    /// Per queue, copies abandoned by a crash that come back when their lease runs out:
    /// still in flight until then, as message by message.
    fn returning(&self) -> Vec<f64> {
        let mut out = vec![0.0; self.queues.len()];
        for &(_, q, amount) in &self.returns {
            out[q] += amount;
        }
        out
    }

    fn losses_now(&self) -> Losses {
        let sum =
            |f: fn(&Totals) -> f64| self.queues.iter().map(|q| f(&q.fluid.totals)).sum::<f64>();
        Losses {
            dropped: round(sum(|t| t.dropped)),
            refused: round(sum(|t| t.refused)),
            throttled: round(sum(|t| t.throttled)),
            not_published: round(self.not_published),
            requests_refused: round(self.requests_refused),
        }
    }

    fn finish(self, reason: EndReason, why: String) -> AggregateRun {
        let queues: Vec<Vec<QueueSample>> = (0..self.queues.len())
            .map(|q| self.series.queue_samples(q).to_vec())
            .collect();
        AggregateRun {
            mode: "aggregated",
            note: why,
            scenario: self.s.name.clone(),
            seed: self.s.seed,
            end_reason: reason,
            end_s: self.t,
            model_steps: self.steps,
            peak_waiting: self.peak_waiting,
            totals: self
                .queues
                .iter()
                .fold(Totals::default(), |a, q| a.plus(&q.fluid.totals)),
            losses: self.losses,
            series: self.series.samples().to_vec(),
            queue_series: queues,
        }
    }
}

fn queue_state(s: &Scenario, q: usize) -> QueueState {
    let spec = &s.queues[q];
    QueueState {
        fluid: FluidQueue::new(spec.max_length, spec.effective_overflow()),
        flavour: spec.flavour,
        visibility_s: spec.visibility_timeout_s,
        queue_type: spec.queue_type,
        durable: spec.durable && super::model::fed_persistent(s, q),
        outage_until: 0.0,
    }
}
