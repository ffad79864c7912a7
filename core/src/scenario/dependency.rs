//! A dependency as the scenario describes it: a database or downstream API with slots,
//! a service time, its callers' timeout and the protections around it (retry budget,
//! circuit breaker, admission control), checked like every scenario field. Its state
//! during a run lives in the `dependency` module, which reads these specs.

use serde::{Deserialize, Serialize};

use super::{
    check_count, check_len, check_range, check_text, limits, validate_service, Command, Outage,
    ScenarioError, ServiceTime,
};

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
pub(crate) fn capacity(n: u32, mean_s: f64, contention: f64) -> f64 {
    let n = f64::from(n);
    let each_s = mean_s * (1.0 + contention * (n - 1.0));
    if each_s <= 0.0 {
        f64::INFINITY
    } else {
        n / each_s
    }
}

/// Checks one dependency's values; errors name fields under `field`.
pub(crate) fn validate(field: &str, d: &DependencySpec) -> Result<(), ScenarioError> {
    let f = |name: &str| format!("{field}.{name}");
    check_text(&f("name"), &d.name, limits::NAME_LEN_MAX)?;
    if d.name.is_empty() {
        return Err(ScenarioError {
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
