//! A lesson being played: which step is next, what the learner answered, and the run
//! paused at the latest checkpoint.

use super::prediction::Answer;
use super::{find, Lesson, LessonStep};
use crate::lang::Lang;
use crate::sim::Simulation;

/// A lesson in progress: the run stands at the checkpoint of the last step played.
pub struct LessonRun {
    pub lesson: Lesson,
    pub sim: Simulation,
    /// The step to play next (0-based); equal to the number of steps once all are played.
    next: usize,
    answers: Vec<Option<Answer>>,
}

/// What playing one step gave.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Played {
    /// The step's index (0-based).
    pub index: usize,
    /// Whether the run reached the checkpoint (false: it ended first).
    pub reached: bool,
    /// The figure's value at the pause.
    pub value: f64,
}

impl LessonRun {
    pub fn new(lesson: Lesson) -> Self {
        let sim = lesson.simulation();
        let answers = vec![None; lesson.steps.len()];
        Self {
            lesson,
            sim,
            next: 0,
            answers,
        }
    }

    /// The lesson called `name`, at its first step.
    pub fn open(name: &str) -> Option<Self> {
        find(name).map(Self::new)
    }

    /// "Step k of n": the step to play next, counted from 1, and the number of steps.
    pub fn progress(&self) -> (usize, usize) {
        (self.next + 1, self.lesson.steps.len())
    }

    /// The step to play next, or `None` when the lesson is over.
    pub fn current(&self) -> Option<&LessonStep> {
        self.lesson.steps.get(self.next)
    }

    pub fn is_over(&self) -> bool {
        self.next >= self.lesson.steps.len()
    }

    /// Records the learner's answer to the current step and says whether it is right.
    pub fn answer(&mut self, answer: Answer) -> bool {
        let Some(step) = self.lesson.steps.get(self.next) else {
            return false;
        };
        let right = step.prediction.check(answer);
        self.answers[self.next] = Some(answer);
        right
    }

    /// What the learner answered at step `index`, if anything.
    pub fn answered(&self, index: usize) -> Option<Answer> {
        self.answers.get(index).copied().flatten()
    }

    /// Plays the run to the current step's checkpoint and moves on to the next step.
    pub fn play_step(&mut self) -> Option<Played> {
        let index = self.next;
        let step = self.lesson.steps.get(index)?;
        let reached = step.checkpoint.play(&mut self.sim);
        let value = step.figure.value(&self.sim);
        self.next += 1;
        Some(Played {
            index,
            reached,
            value,
        })
    }

    /// The explanation of step `index` with its figure read from the run as it stands.
    pub fn explain(&self, index: usize, lang: Lang) -> String {
        self.lesson
            .steps
            .get(index)
            .map_or_else(String::new, |s| s.explain(&self.sim, lang))
    }
}
