//! The lessons themselves, one file per topic. Each lesson is a function and each of its
//! steps another, so a lesson reads top to bottom; the numbers a step expects are the
//! ones the documents' reasoning gives, and `core/tests/lessons.rs` checks that the run
//! agrees.

mod delivery;
mod failures;
mod groups;
mod load;
mod ordering;
mod publishing;

use super::{Checkpoint, Figure, Focus, Lesson, LessonStep, Prediction, Text, Unit};

/// Every lesson, in the order the issue lists them (retry jitter follows the lesson on
/// retries and dead letters).
pub fn all() -> Vec<Lesson> {
    vec![
        load::queue_vs_topic(),
        load::backlog_arithmetic(),
        delivery::ack_after_commit(),
        delivery::ack_before_effect(),
        delivery::visibility_timeout(),
        delivery::idempotency(),
        publishing::outbox(),
        ordering::partitions_and_keys(),
        failures::retries_and_dlq(),
        failures::retry_jitter(),
        publishing::confirm_order_77(),
        load::backpressure(),
        publishing::exactly_once(),
        groups::poll_interval(),
        load::prefetch_fairness(),
        delivery::inbox_key(),
        failures::untrusted_source(),
        failures::replay_window(),
    ]
}

/// Shorthand for a text in both languages.
const fn t(en: &'static str, es: &'static str) -> Text {
    Text::new(en, es)
}

/// A choice question whose right option is `correct`.
fn choose(correct: usize, options: [Text; 3]) -> Prediction {
    Prediction::Choices {
        options: options.to_vec(),
        correct,
    }
}

/// A number question: right within `tolerance` of `answer`.
fn about(answer: f64, tolerance: f64, unit: Unit) -> Prediction {
    Prediction::Number {
        answer,
        tolerance,
        unit,
    }
}

/// The parts of a step, in the order the page shows them.
fn step(
    focus: &[Focus],
    question: Text,
    prediction: Prediction,
    checkpoint: Checkpoint,
    figure: Figure,
    explanation: Text,
) -> LessonStep {
    LessonStep {
        focus: focus.to_vec(),
        question,
        prediction,
        checkpoint,
        figure,
        explanation,
    }
}
