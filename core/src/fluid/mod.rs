//! The fluid model behind the aggregated mode (the `aggregate` module is its public
//! face): queues as amounts that fill and drain at rates, consumers as capacities,
//! producers as rate segments. [`supports`] says what it covers; [`peak_held`] is what
//! the work estimate reads before a run; `run::Run` computes a whole run.

mod commands;
mod counts;
mod held;
mod model;
mod queue;
mod run;

use serde::Serialize;

use crate::end_reason::EndReason;
use crate::metrics::{QueueSample, Sample};
use crate::scenario::{Command, Flavour, Handoff, Scenario, ScenarioError};

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

/// A whole run of the fluid model, with `note` saying why it runs aggregated. Assumes a
/// validated scenario that the model [`supports`].
pub(crate) fn run(scenario: &Scenario, note: String) -> AggregateRun {
    run::Run::new(scenario).run(note)
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
    if s.publisher_lists().any(|(_, _, p)| !p.is_empty()) {
        return no("publishers".into(), "publish permissions");
    }
    let broker_crashes = s
        .commands
        .iter()
        .map(|c| &c.command)
        .chain(s.interventions.iter().map(|iv| &iv.command))
        .any(|c| matches!(c, Command::CrashBroker { .. }));
    for (i, q) in s.queues.iter().enumerate() {
        if q.ttl_s.is_some() || q.max_oldest_age_s.is_some() {
            return no(format!("queues[{i}]"), "message expiry or age limits");
        }
        if broker_crashes && sqs_at_some_point(s, i) {
            return no(
                format!("queues[{i}].flavour"),
                "a broker restart on SQS, whose received messages stay hidden until their visibility timeout",
            );
        }
        if broker_crashes && model::mixed_persistence(s, i) {
            return no(
                format!("queues[{i}].durable"),
                "a broker restart in a durable queue that both persistent and transient messages reach",
            );
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
        if c.max_message_age_s.is_some() {
            return no(
                format!("consumers[{i}].max_message_age_s"),
                "replay windows",
            );
        }
    }
    if let Some((field, what)) = held::check(s) {
        return no(field, what);
    }
    Ok(())
}

/// Whether queue `q` is an SQS queue at some point of the run: from the start, or by a
/// flavour switch scheduled or recorded.
fn sqs_at_some_point(s: &Scenario, q: usize) -> bool {
    let sqs = |f: Flavour| matches!(f, Flavour::Sqs | Flavour::SqsFifo);
    let name = &s.queues[q].name;
    sqs(s.queues[q].flavour)
        || s.commands
            .iter()
            .map(|c| &c.command)
            .chain(s.interventions.iter().map(|iv| &iv.command))
            .any(|c| matches!(c, Command::SetFlavour { queue, flavour } if queue == name && sqs(*flavour)))
}
