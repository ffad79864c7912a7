//! Dependencies: a database or downstream API that consumers' handlers call. It has a
//! capacity (requests served at once, a service time that grows with contention), and its
//! callers have a timeout. A caller that gives up does not cancel its request: the
//! dependency still serves it (wasted work), which is what lets a brief slowdown turn
//! into a lasting collapse when retries keep the line long (a metastable failure).
//!
//! This module holds the scenario's part (specs, checked like every scenario field), the
//! dependency's state during a run, and the capacity arithmetic the page uses to warn
//! when offered load, retries included, exceeds what the dependency can serve.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::scenario::{
    check_count, check_len, check_range, check_text, limits, validate_service, Command, Outage,
    ScenarioError, ServiceTime,
};
use crate::step::{ConsumerId, MsgId};
use crate::time::{secs_to_us, Micros};

/// Most requests waiting at one dependency, whatever its `queue_max` says: memory stays
/// bounded even when abandoned requests pile up.
pub const QUEUE_HARD_MAX: u32 = 100_000;
/// Most dependencies in a scenario.
pub const DEPENDENCIES_MAX: usize = 16;

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// A database or downstream API with a capacity, called by consumers' handlers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DependencySpec {
    pub name: String,
    /// Requests served at the same time (connections, worker threads); the rest wait in
    /// line, first come first served.
    pub concurrency: u32,
    /// How long one request takes when it is served alone.
    pub service: ServiceTime,
    /// Each other request in service makes a new one this share slower: 0.1 means ten
    /// at once take 1.9 times as long each (locks, caches, context switches).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub contention: f64,
    /// The caller gives up after this long and the handler fails (the request itself
    /// stays in line or in service: nobody cancels it).
    pub timeout_s: f64,
    /// Requests that may wait for a free slot; beyond, a call is rejected at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_max: Option<u32>,
    /// Windows in which every request takes `factor` times longer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slowdowns: Vec<Slowdown>,
    /// Windows in which the dependency refuses every call at once (connection refused).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outages: Vec<Outage>,
    /// The callers' retry budget (a token bucket, as gRPC's retry throttling).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_budget: Option<RetryBudget>,
    /// The callers' circuit breaker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub breaker: Option<BreakerSpec>,
    /// The dependency's admission control: it sheds what has waited too long.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admission: Option<Admission>,
}

/// A window of slowness: requests started in it take `factor` times longer.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Slowdown {
    pub from_s: f64,
    pub until_s: f64,
    pub factor: f64,
}

/// A token bucket shared by the callers: a failed call takes a token, a successful one
/// gives back `token_ratio`; a failed message is retried only while more than half the
/// tokens are left, otherwise it is dead-lettered at once (gRPC's `retryThrottling`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetryBudget {
    pub max_tokens: f64,
    pub token_ratio: f64,
}

/// A circuit breaker shared by the callers: `failure_threshold` failed calls in a row
/// open it; while open, calls fail at once without reaching the dependency; after
/// `open_s` one probe call goes through (half-open) and its outcome closes or reopens it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BreakerSpec {
    pub failure_threshold: u32,
    pub open_s: f64,
}

/// Admission control at the dependency: while its oldest waiting request is older than
/// `max_queue_age_s`, a new call is rejected at once, and a request that waited longer
/// is dropped when its turn comes instead of being served.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Admission {
    pub max_queue_age_s: f64,
}

impl DependencySpec {
    /// Requests per second it completes when every slot is busy, at a slowdown `factor`.
    pub fn capacity_per_s(&self, factor: f64) -> f64 {
        capacity(
            self.concurrency,
            self.service.mean_s() * factor,
            self.contention,
        )
    }
}

/// Requests per second `n` slots complete when all are busy, each request taking
/// `mean_s` alone and `contention` more per other request in service.
fn capacity(n: u32, mean_s: f64, contention: f64) -> f64 {
    let n = f64::from(n);
    let each_s = mean_s * (1.0 + contention * (n - 1.0));
    if each_s <= 0.0 {
        f64::INFINITY
    } else {
        n / each_s
    }
}

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

// ----- validation ------------------------------------------------------------------------

/// Checks one dependency's values; errors name fields under `field`.
pub(crate) fn validate(field: &str, d: &DependencySpec) -> Result<(), ScenarioError> {
    let f = |name: &str| format!("{field}.{name}");
    check_text(&f("name"), &d.name, limits::NAME_LEN_MAX)?;
    if d.name.is_empty() {
        return Err(crate::scenario::ScenarioError {
            field: f("name"),
            problem: "a dependency needs a name (consumers call it by name)".into(),
        });
    }
    let max_slots = u64::from(limits::CONCURRENCY_MAX);
    check_count(&f("concurrency"), u64::from(d.concurrency), 1, max_slots)?;
    validate_service(&f("service"), &d.service)?;
    check_range(&f("contention"), d.contention, 0.0, 100.0)?;
    check_range(&f("timeout_s"), d.timeout_s, 0.000_001, limits::TIME_S_MAX)?;
    if let Some(n) = d.queue_max {
        check_count(&f("queue_max"), u64::from(n), 0, u64::from(QUEUE_HARD_MAX))?;
    }
    check_len(&f("slowdowns"), &d.slowdowns, limits::OUTAGES_MAX)?;
    for (k, w) in d.slowdowns.iter().enumerate() {
        let g = |name: &str| f(&format!("slowdowns[{k}].{name}"));
        check_range(&g("from_s"), w.from_s, 0.0, limits::TIME_S_MAX)?;
        check_range(&g("until_s"), w.until_s, w.from_s, limits::TIME_S_MAX)?;
        check_range(&g("factor"), w.factor, 0.001, 1_000.0)?;
    }
    check_len(&f("outages"), &d.outages, limits::OUTAGES_MAX)?;
    for (k, o) in d.outages.iter().enumerate() {
        let g = |name: &str| f(&format!("outages[{k}].{name}"));
        check_range(&g("from_s"), o.from_s, 0.0, limits::TIME_S_MAX)?;
        check_range(&g("until_s"), o.until_s, o.from_s, limits::TIME_S_MAX)?;
    }
    validate_policies(field, d.retry_budget, d.breaker, d.admission)
}

/// The callers' retry budget and breaker, and the dependency's admission control.
fn validate_policies(
    field: &str,
    budget: Option<RetryBudget>,
    breaker: Option<BreakerSpec>,
    admission: Option<Admission>,
) -> Result<(), ScenarioError> {
    let f = |name: &str| format!("{field}.{name}");
    if let Some(b) = budget {
        check_range(
            &f("retry_budget.max_tokens"),
            b.max_tokens,
            1.0,
            1_000_000.0,
        )?;
        check_range(
            &f("retry_budget.token_ratio"),
            b.token_ratio,
            0.0,
            1_000_000.0,
        )?;
    }
    if let Some(b) = breaker {
        check_count(
            &f("breaker.failure_threshold"),
            u64::from(b.failure_threshold),
            1,
            1_000_000,
        )?;
        check_range(
            &f("breaker.open_s"),
            b.open_s,
            0.000_001,
            limits::TIME_S_MAX,
        )?;
    }
    if let Some(a) = admission {
        let max = limits::TIME_S_MAX;
        check_range(&f("admission.max_queue_age_s"), a.max_queue_age_s, 0.0, max)?;
    }
    Ok(())
}

/// The dependency a dependency command names.
pub(crate) fn command_target(fault: &Command) -> &str {
    match fault {
        Command::SlowDependency { dependency, .. }
        | Command::SetDependencyCapacity { dependency, .. }
        | Command::SetDependencyTimeout { dependency, .. }
        | Command::SetRetryBudget { dependency, .. }
        | Command::SetBreaker { dependency, .. }
        | Command::SetAdmission { dependency, .. } => dependency,
        _ => unreachable!("only dependency commands are sent here"),
    }
}

/// A dependency command's values (its target is checked by the caller).
pub(crate) fn validate_command(field: &str, fault: &Command) -> Result<(), ScenarioError> {
    let f = |name: &str| format!("{field}.{name}");
    match fault {
        Command::SlowDependency { factor, for_s, .. } => {
            check_range(&f("factor"), *factor, 0.001, 1_000.0)?;
            check_range(&f("for_s"), *for_s, 0.0, limits::TIME_S_MAX)
        }
        Command::SetDependencyCapacity {
            concurrency,
            service,
            ..
        } => {
            let max = u64::from(limits::CONCURRENCY_MAX);
            check_count(&f("concurrency"), u64::from(*concurrency), 1, max)?;
            validate_service(&f("service"), service)
        }
        Command::SetDependencyTimeout { timeout_s, .. } => {
            check_range(&f("timeout_s"), *timeout_s, 0.000_001, limits::TIME_S_MAX)
        }
        Command::SetRetryBudget { retry_budget, .. } => {
            validate_policies(field, *retry_budget, None, None)
        }
        Command::SetBreaker { breaker, .. } => validate_policies(field, None, *breaker, None),
        Command::SetAdmission { admission, .. } => validate_policies(field, None, None, *admission),
        _ => unreachable!("only dependency commands are sent here"),
    }
}
