//! Dependencies: a database or downstream API that consumers' handlers call. It has a
//! capacity (requests served at once, a service time that grows with contention), and its
//! callers have a timeout. A caller that gives up does not cancel its request: the
//! dependency still serves it (wasted work), which is what lets a brief slowdown turn
//! into a lasting collapse when retries keep the line long (a metastable failure).
//!
//! This module holds the dependency's state during a run and the capacity arithmetic the
//! page uses to warn when offered load, retries included, exceeds what the dependency can
//! serve. Its specs (what a scenario says, and their checks) are the scenario's
//! (`scenario::dependency`), re-exported here.

use std::collections::VecDeque;

use serde::Serialize;

use crate::scenario::dependency::{capacity, QUEUE_HARD_MAX};
pub use crate::scenario::dependency::{
    Admission, BreakerSpec, DependencySpec, RetryBudget, Slowdown, DEPENDENCIES_MAX,
};
use crate::scenario::{Outage, ServiceTime};
use crate::step::{ConsumerId, MsgId};
use crate::time::{secs_to_us, Micros};

/// Offered load against capacity: the page's warning, and what tests assert.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct DependencyLoad {
    /// Calls per second over the last sample interval, retries included.
    pub offered_per_s: f64,
    /// Of those, calls that were a message's first attempt.
    pub first_attempts_per_s: f64,
    /// What it completes per second with every slot busy, at its slowdown now.
    pub capacity_per_s: f64,
    /// offered / capacity.
    pub rho: f64,
    /// Offered load (retries included) exceeds capacity: the line grows.
    pub overloaded: bool,
}

impl DependencyLoad {
    pub fn new(offered_per_s: f64, first_attempts_per_s: f64, capacity_per_s: f64) -> Self {
        let rho = if capacity_per_s > 0.0 {
            offered_per_s / capacity_per_s
        } else {
            f64::INFINITY
        };
        Self {
            offered_per_s,
            first_attempts_per_s,
            capacity_per_s,
            rho,
            overloaded: rho > 1.0,
        }
    }
}

/// Running totals of one dependency (every field only grows).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DependencyCounters {
    /// Calls that reached the dependency (admitted into its line).
    pub calls: u64,
    /// Of those, calls that were a message's first attempt.
    pub first_calls: u64,
    /// Requests served while their caller still waited: useful work.
    pub answered: u64,
    /// Requests served after their caller had gone: wasted work.
    pub wasted: u64,
    /// Calls whose caller gave up waiting.
    pub timeouts: u64,
    /// Calls refused at once: line full, admission control, or an outage.
    pub rejected: u64,
    /// Requests dropped by admission control when their turn came.
    pub shed: u64,
    /// Calls the open circuit breaker failed at once (they never reached it).
    pub short_circuited: u64,
    /// Failed messages the retry budget did not let retry.
    pub budget_denied: u64,
}

/// One dependency at one sample time.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct DependencySample {
    pub in_service: u32,
    pub queued: u32,
    /// How long the oldest waiting request has waited.
    pub oldest_age_s: f64,
    /// Calls per second over the last interval (retries included).
    pub calls_per_s: f64,
    /// Requests answered in time per second over the last interval (its goodput).
    pub goodput_per_s: f64,
    /// Failed calls (timeouts, rejections, short circuits) over calls attempted, in the
    /// last interval.
    pub error_rate: f64,
    pub breaker_open: bool,
    pub counters: DependencyCounters,
}

/// Whether callers may reach the dependency.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BreakerState {
    Closed,
    /// Failing fast until then.
    Open {
        until_us: Micros,
    },
    /// One probe call is out; the rest fail fast.
    HalfOpen,
}

/// A request at the dependency: who sent it, for which message, and when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    pub id: u64,
    pub msg: MsgId,
    pub consumer: ConsumerId,
    pub sent_us: Micros,
}

/// A dependency during a run: its settings now, its line and its slots.
#[derive(Clone, Debug)]
pub struct Dependency {
    pub name: String,
    pub concurrency: u32,
    pub service: ServiceTime,
    pub contention: f64,
    pub timeout_us: Micros,
    pub queue_max: u32,
    pub slowdowns: Vec<Slowdown>,
    pub outages: Vec<Outage>,
    pub retry_budget: Option<RetryBudget>,
    pub breaker: Option<BreakerSpec>,
    pub admission: Option<Admission>,
    /// A slowdown given by a command: factor, until when.
    pub slowed: Option<(f64, Micros)>,
    pub line: VecDeque<Request>,
    pub in_service: u32,
    pub tokens: f64,
    pub breaker_state: BreakerState,
    /// Failed calls in a row (for the breaker).
    pub failures_in_row: u32,
    pub counters: DependencyCounters,
}

impl Dependency {
    pub fn new(spec: &DependencySpec) -> Self {
        Self {
            name: spec.name.clone(),
            concurrency: spec.concurrency,
            service: spec.service,
            contention: spec.contention,
            timeout_us: secs_to_us(spec.timeout_s),
            queue_max: spec.queue_max.unwrap_or(QUEUE_HARD_MAX).min(QUEUE_HARD_MAX),
            slowdowns: spec.slowdowns.clone(),
            outages: spec.outages.clone(),
            retry_budget: spec.retry_budget,
            breaker: spec.breaker,
            admission: spec.admission,
            slowed: None,
            line: VecDeque::new(),
            in_service: 0,
            tokens: spec.retry_budget.map_or(0.0, |b| b.max_tokens),
            breaker_state: BreakerState::Closed,
            failures_in_row: 0,
            counters: DependencyCounters::default(),
        }
    }

    /// The slowdown factor in force at `now_us` (windows and commands multiply).
    pub fn slow_factor(&self, now_us: Micros) -> f64 {
        let now_s = now_us as f64 / 1e6;
        let windows: f64 = self
            .slowdowns
            .iter()
            .filter(|w| w.from_s <= now_s && now_s < w.until_s)
            .map(|w| w.factor)
            .product();
        let commanded = self
            .slowed
            .filter(|&(_, until)| now_us < until)
            .map_or(1.0, |(f, _)| f);
        windows * commanded
    }

    pub fn is_out(&self, now_us: Micros) -> bool {
        let now_s = now_us as f64 / 1e6;
        self.outages
            .iter()
            .any(|o| o.from_s <= now_s && now_s < o.until_s)
    }

    /// How long the oldest waiting request has waited at `now_us`.
    pub fn oldest_age_us(&self, now_us: Micros) -> Micros {
        self.line
            .front()
            .map_or(0, |r| now_us.saturating_sub(r.sent_us))
    }

    /// Admission control's limit, if any.
    pub fn max_age_us(&self) -> Option<Micros> {
        self.admission.map(|a| secs_to_us(a.max_queue_age_s))
    }

    /// The spec as it stands now (for capacity arithmetic).
    pub fn capacity_per_s(&self, now_us: Micros) -> f64 {
        let mean_s = self.service.mean_s() * self.slow_factor(now_us);
        capacity(self.concurrency, mean_s, self.contention)
    }

    /// Whether a failed message may be retried (always, without a budget).
    pub fn may_retry(&self) -> bool {
        self.retry_budget
            .is_none_or(|b| self.tokens > b.max_tokens / 2.0)
    }

    /// A call's outcome, for the retry budget and the breaker's count.
    pub fn note_outcome(&mut self, ok: bool) {
        if let Some(b) = self.retry_budget {
            self.tokens = if ok {
                (self.tokens + b.token_ratio).min(b.max_tokens)
            } else {
                (self.tokens - 1.0).max(0.0)
            };
        }
        self.failures_in_row = if ok { 0 } else { self.failures_in_row + 1 };
    }
}

/// What the page shows of a dependency now.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DependencyView {
    pub name: String,
    pub concurrency: u32,
    pub service_mean_s: f64,
    pub timeout_s: f64,
    pub in_service: u32,
    pub queued: u32,
    pub oldest_age_s: f64,
    pub slow_factor: f64,
    pub breaker: Option<BreakerState>,
    /// The breaker's settings in force, when there is one.
    pub breaker_spec: Option<BreakerSpec>,
    /// Tokens left in the retry budget, and its size.
    pub tokens: Option<(f64, f64)>,
    pub admission_max_age_s: Option<f64>,
    pub counters: DependencyCounters,
}
