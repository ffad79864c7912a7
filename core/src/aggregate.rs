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
//! scaled, slowed or crashed and restarted (a crash after the next delivery or commit
//! strikes once the consumer has received or finished a whole copy since, at its share of
//! the queue's rate, and holds at least that copy); exchanges' fanout by routing key; a queue's
//! length limit with its overflow (reject, drop the oldest, throttle); broker crashes
//! (durable or not); dependency outages; commands scheduled or recorded (a recorded
//! command strikes at its recorded time). Randomness is averaged out: Poisson arrivals
//! and exponential service times are their means, so the backlog is the fluid one
//! ((λ − μ)·t while arrivals exceed capacity).

use crate::scenario::{Scenario, ScenarioError};

pub use crate::budget::why_aggregated;
pub use crate::fluid::{peak_held, supports, AggregateRun, Losses, Totals};

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
    Ok(crate::fluid::run(scenario, why_aggregated(scenario)))
}
