//! Lessons: a built-in scenario plus guided steps. Each step names what to look at, asks
//! what will happen next (before the run shows it), plays the run to a checkpoint and
//! explains what happened with a figure read from the run there. Every text is in
//! English and Spanish.
//!
//! * [`Lesson`] and [`LessonStep`]: the data; [`all`] and [`find`]: the catalogue.
//! * [`Focus`]: what a step highlights; [`Prediction`] and [`Answer`]: its question;
//!   [`Checkpoint`]: where play pauses; [`Figure`]: the number its explanation shows.
//! * [`LessonRun`]: a lesson being played (step k of n, answers, checkpoints), for the
//!   page, the runner (`brokerlab lesson NAME`) and the tests alike.

mod catalogue;
mod checkpoint;
mod figure;
mod focus;
mod play;
mod prediction;

pub use checkpoint::{Checkpoint, Happening};
pub use figure::{Figure, Table};
pub use focus::{Focus, Metric};
pub use play::{LessonRun, Played};
pub use prediction::{Answer, Prediction, Unit};
// The languages moved up to the crate (narration and examples use them too); lessons
// keep offering them under their old path.
pub use crate::lang::{number, Lang, Text};

use crate::examples;
use crate::sim::Simulation;

/// Where an explanation shows its figure.
pub const FIGURE_SLOT: &str = "{figure}";

/// One lesson: a built-in scenario and the steps that walk through it.
#[derive(Clone, Debug)]
pub struct Lesson {
    /// The lesson's slug (its link and the runner's name).
    pub name: &'static str,
    pub title: Text,
    /// The built-in example it plays ([`crate::examples`]).
    pub scenario: &'static str,
    pub steps: Vec<LessonStep>,
}

/// One step: look here, predict, play to the checkpoint, read the explanation.
#[derive(Clone, Debug)]
pub struct LessonStep {
    /// What the page highlights while the learner predicts.
    pub focus: Vec<Focus>,
    /// The "what will happen next?" question.
    pub question: Text,
    pub prediction: Prediction,
    pub checkpoint: Checkpoint,
    /// The number the explanation shows, read from the run at the checkpoint.
    pub figure: Figure,
    /// What happened and why, with [`FIGURE_SLOT`] where the figure goes.
    pub explanation: Text,
}

impl LessonStep {
    /// The explanation for `lang` with the figure read from `sim` in its slot.
    pub fn explain(&self, sim: &Simulation, lang: Lang) -> String {
        self.explanation
            .get(lang)
            .replace(FIGURE_SLOT, &self.figure.write(sim, lang))
    }

    /// The right answer as the learner is told it beside the explanation, with the run
    /// standing at the checkpoint in `sim`: the correct option, or for a number the figure
    /// read from the run — the very figure the explanation states. (The prediction's own
    /// number is what the lesson's reasoning expects, the centre of the tolerance a
    /// prediction is judged by; the run it explains can differ from it a little.)
    pub fn answer_at(&self, sim: &Simulation, lang: Lang) -> String {
        match self.prediction {
            Prediction::Number { .. } => self.figure.write(sim, lang),
            Prediction::Choices { .. } => self.prediction.correct_answer(lang),
        }
    }
}

impl Lesson {
    /// A fresh run of the lesson's scenario.
    pub fn simulation(&self) -> Simulation {
        let scenario = examples::load(self.scenario).expect("a lesson plays a built-in example");
        Simulation::new(scenario).expect("built-in examples are valid")
    }
}

/// Every lesson, in the order a lesson list shows them.
pub fn all() -> Vec<Lesson> {
    catalogue::all()
}

/// The lesson called `name`.
pub fn find(name: &str) -> Option<Lesson> {
    all().into_iter().find(|l| l.name == name)
}
