//! Why a run ended: its scenario's end, nothing left to do, or a limit of the work
//! budget. Both modes report it (message by message and aggregated), so it sits below
//! either.

use serde::{Deserialize, Serialize};

use crate::lang::Lang;

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

    /// The reason in plain words, in English, for the runner and the page.
    pub fn describe(self) -> &'static str {
        self.describe_in(Lang::En)
    }

    /// The reason in plain words, in `lang`. The budget and time-limit reasons are the
    /// page's words for them (its `stage.controls` texts), so the page and the runner say
    /// the same.
    pub fn describe_in(self, lang: Lang) -> &'static str {
        match lang {
            Lang::En => self.english(),
            Lang::Es => self.spanish(),
        }
    }

    fn english(self) -> &'static str {
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

    fn spanish(self) -> &'static str {
        match self {
            EndReason::Drained => "no quedaba nada por hacer",
            EndReason::Stalled => {
                "no puede pasar nada más, pero quedan mensajes que ningún consumidor tomará"
            }
            EndReason::EndTime => "se llegó a la hora de fin del escenario",
            EndReason::StepBudget => "detenida en el límite de trabajo: demasiados pasos",
            EndReason::MessagesBudget => "detenida en el límite de trabajo: demasiados mensajes",
            EndReason::CopiesBudget => {
                "detenida en el límite de trabajo: demasiadas copias de mensajes"
            }
            EndReason::LogRecordsBudget => {
                "detenida en el límite de trabajo: demasiados registros en los logs"
            }
            EndReason::TimeLimit => "detenida en el límite de tiempo: diez años de tiempo simulado",
        }
    }
}
