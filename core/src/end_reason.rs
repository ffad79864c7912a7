//! Why a run ended: its scenario's end, nothing left to do, or a limit of the work
//! budget. Both modes report it (message by message and aggregated), so it sits below
//! either.

use serde::{Deserialize, Serialize};

/// Why a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// Nothing was left to do.
    Drained,
    /// Nothing more can happen, yet work remains: copies wait in a queue or records in a
    /// log that no consumer will ever take (every one crashed for good, or none reads).
    Stalled,
    /// The scenario's `end_s` was reached (work may remain).
    EndTime,
    /// The work budget's step limit was reached.
    StepBudget,
    /// The budget's limit on messages created was reached.
    MessagesBudget,
    /// The budget's limit on message copies held was reached.
    CopiesBudget,
    /// The budget's limit on records appended to logs was reached.
    LogRecordsBudget,
    /// Ten years of simulated time (`limits::TIME_S_MAX`) passed without an end time:
    /// nothing in a run goes beyond, whichever mode computes it.
    TimeLimit,
}

impl EndReason {
    /// Whether the run was stopped by the work budget rather than by its scenario.
    pub fn is_budget(self) -> bool {
        !matches!(
            self,
            EndReason::Drained | EndReason::Stalled | EndReason::EndTime
        )
    }

    /// The reason in plain words, for the runner and the page.
    pub fn describe(self) -> &'static str {
        match self {
            EndReason::Drained => "nothing was left to do",
            EndReason::Stalled => {
                "nothing more can happen, yet messages wait that no consumer will ever take"
            }
            EndReason::EndTime => "the scenario's end time was reached",
            EndReason::StepBudget => "stopped at the work budget: too many steps",
            EndReason::MessagesBudget => "stopped at the work budget: too many messages",
            EndReason::CopiesBudget => "stopped at the work budget: too many message copies",
            EndReason::LogRecordsBudget => "stopped at the work budget: too many log records",
            EndReason::TimeLimit => "stopped at the time limit: ten years of simulated time",
        }
    }
}
