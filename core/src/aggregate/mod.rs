//! The aggregated (fluid) mode: for rates beyond what can be simulated message by
//! message, the backlog, the oldest message's age, the throughput and the losses come
//! from rates and amounts instead of messages. Its cost follows simulated time and the
//! scenario's changes, not the rate: a day at a million messages per second takes a few
//! tens of thousands of model steps, like a day at one per second.
//!
//! * [`run`] computes a whole run; [`AggregateRun::series`] is the same [`Sample`] series
//!   a message-by-message run gives (backlog, oldest age, in flight, running totals), so
//!   a chart draws both alike. [`AggregateRun::losses`] adds what overflowed, in step.
//! * [`supports`] says whether the aggregated model covers a scenario (and why not).
//! * [`Scenario::run_mode`](crate::Scenario::run_mode) picks the mode: `auto` goes
//!   aggregated when the work estimate is over the budget.
//!
//! What it models, at the level of rates: producers' rate segments, counts and schedule
//! changes; consumers' capacity (concurrency over mean service time, no prefetch limit),
//! scaled, slowed or crashed and restarted; exchanges' fanout by routing key; a queue's
//! length limit with its overflow (reject, drop the oldest, throttle); broker crashes
//! (durable or not); dependency outages; commands scheduled or recorded (a recorded
//! command strikes at its recorded time). Randomness is averaged out: Poisson arrivals
//! and exponential service times are their means, so the backlog is the fluid one
//! ((λ − μ)·t while arrivals exceed capacity).

mod commands;
mod model;
mod queue;
mod run;

use serde::Serialize;

use crate::metrics::{QueueSample, Sample};
use crate::scenario::{Handoff, Scenario, ScenarioError};
use crate::sim::EndReason;

pub use queue::Totals;

/// Amounts that did not reach a consumer, as running totals at one sample time (in step
/// with [`AggregateRun::series`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Losses {
    /// Dropped by a full queue (overflow `drop_oldest`).
    pub dropped: u64,
    /// Refused by a full queue (overflow `reject`).
    pub refused: u64,
    /// Held back by a full queue (overflow `throttle`).
    pub throttled: u64,
    /// Publishes that reached no queue: the broker was down, or no binding matched.
    pub not_published: u64,
    /// Requests that arrived while their producer was down.
    pub requests_refused: u64,
}

/// A whole aggregated run: what the runner prints and the page charts.
#[derive(Clone, Debug, Serialize)]
pub struct AggregateRun {
    /// Always `"aggregated"`: tells this report from a message-by-message one.
    pub mode: &'static str,
    /// Why the run is aggregated, in one line starting with "aggregated mode:".
    pub note: String,
    pub scenario: String,
    pub seed: u64,
    pub end_reason: EndReason,
    /// Simulated time at the end.
    pub end_s: f64,
    /// Pieces of time the model computed: its cost, independent of the rates.
    pub model_steps: u64,
    /// Totals at the end, as amounts over all queues.
    pub totals: Totals,
    pub series: Vec<Sample>,
    /// Each queue's own series, in step with `series`.
    pub queue_series: Vec<Vec<QueueSample>>,
    pub losses: Vec<Losses>,
    /// Most copies waiting at once, over all queues.
    pub peak_waiting: f64,
}

impl AggregateRun {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report always serializes")
    }

    pub fn series_csv(&self) -> String {
        crate::report::series_csv(&self.series)
    }
}

/// Runs `scenario` aggregated (whatever its `mode` says), after checking it.
pub fn run(scenario: &Scenario) -> Result<AggregateRun, ScenarioError> {
    scenario.validate()?;
    supports(scenario)?;
    Ok(run::Run::new(scenario).run(why_aggregated(scenario)))
}

/// Most copies waiting at once in a run of `scenario`, by the aggregated model with no
/// samples (the waiting amount is piecewise linear, so its peak is at a piece's end):
/// its cost is the number of the scenario's changes. Assumes a validated scenario.
pub fn peak_held(scenario: &Scenario) -> f64 {
    let mut run = run::Run::new(scenario);
    run.sampling = false;
    run.run(String::new()).peak_waiting
}

/// Whether the aggregated model covers `scenario`; if not, the first thing it does not
/// model, in one line. Validation comes first (names resolve, sizes are bounded).
pub fn supports(s: &Scenario) -> Result<(), ScenarioError> {
    let no = |field: String, what: &str| {
        Err(ScenarioError {
            field,
            problem: format!("the aggregated mode does not model {what}"),
        })
    };
    if !s.logs.is_empty() || !s.groups.is_empty() {
        return no("logs".into(), "logs and consumer groups");
    }
    if !s.dependencies.is_empty() {
        // Timeouts, retries and wasted work are the whole point of a dependency.
        return no("dependencies".into(), "dependencies and their timeouts");
    }
    for (i, p) in s.producers.iter().enumerate() {
        if !p.script.is_empty() {
            return no(format!("producers[{i}].script"), "scripted messages");
        }
        if p.handoff != Handoff::Direct {
            return no(format!("producers[{i}].handoff"), "outboxes and relays");
        }
        if s.stores_per_message(i).0 > 1.0 {
            return no(
                format!("producers[{i}].publish"),
                "publish retries that store a message again",
            );
        }
        if p.payload.poison_share > 0.0 {
            return no(format!("producers[{i}].payload"), "poison messages");
        }
    }
    for (i, q) in s.queues.iter().enumerate() {
        if q.ttl_s.is_some() || q.max_oldest_age_s.is_some() {
            return no(format!("queues[{i}]"), "message expiry or age limits");
        }
    }
    for (i, c) in s.consumers.iter().enumerate() {
        if c.failures.transient_p > 0.0 || !c.failures.outages.is_empty() {
            return no(
                format!("consumers[{i}].failures"),
                "handler failures and retries",
            );
        }
        if c.ordering != crate::scenario::Ordering::None {
            return no(format!("consumers[{i}].ordering"), "ordered processing");
        }
    }
    Ok(())
}

/// Why a scenario runs aggregated, in one line starting with "aggregated mode:".
pub fn why_aggregated(s: &Scenario) -> String {
    match s.work_estimate().check() {
        Err(over) => format!(
            "aggregated mode: message by message it {}; rates and amounts instead of messages",
            over.problem
        ),
        Ok(()) => "aggregated mode: chosen by the scenario (mode: aggregated); rates and amounts instead of messages".into(),
    }
}
