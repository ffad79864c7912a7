//! The "what will happen next?" question of a step, answered before the run plays on.

use super::text::{number, Lang, Text};

/// What a number in a lesson counts, with its word in each language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Messages,
    Seconds,
    /// How many times something happened (deliveries, effects, emails…).
    Times,
    /// Money in an account's balance.
    Dollars,
    Members,
    Percent,
}

impl Unit {
    /// `value` written with this unit, rounded to `decimals`: "60,000 messages",
    /// "30 s", "$50", "40 %".
    pub fn write(self, value: f64, decimals: usize, lang: Lang) -> String {
        let n = number(value, decimals, lang);
        match (self, lang) {
            (Unit::Messages, Lang::En) => format!("{n} messages"),
            (Unit::Messages, Lang::Es) => format!("{n} mensajes"),
            (Unit::Seconds, _) => format!("{n} s"),
            (Unit::Times, Lang::En) => format!("{n} times"),
            (Unit::Times, Lang::Es) => format!("{n} veces"),
            (Unit::Dollars, _) => format!("${n}"),
            (Unit::Members, Lang::En) => format!("{n} members"),
            (Unit::Members, Lang::Es) => format!("{n} miembros"),
            (Unit::Percent, _) => format!("{n} %"),
        }
    }
}

/// The question's answer form.
#[derive(Clone, Debug, PartialEq)]
pub enum Prediction {
    /// Pick one of `options`; `correct` is the index of the right one.
    Choices { options: Vec<Text>, correct: usize },
    /// Type a number: right when within `tolerance` (in `unit`s) of `answer`.
    Number {
        answer: f64,
        tolerance: f64,
        unit: Unit,
    },
}

/// What the learner answered.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Answer {
    Choice(usize),
    Number(f64),
}

impl Prediction {
    /// Whether `answer` is right. An answer of the other form (a number to a choice
    /// question) is wrong, never an error.
    pub fn check(&self, answer: Answer) -> bool {
        match (self, answer) {
            (Prediction::Choices { correct, .. }, Answer::Choice(i)) => i == *correct,
            (
                Prediction::Number {
                    answer, tolerance, ..
                },
                Answer::Number(x),
            ) => x.is_finite() && (x - answer).abs() <= *tolerance,
            _ => false,
        }
    }

    /// The right answer in words: the correct option, or the number with its unit.
    pub fn correct_answer(&self, lang: Lang) -> String {
        match self {
            Prediction::Choices { options, correct } => {
                options.get(*correct).map_or("", |t| t.get(lang)).to_string()
            }
            Prediction::Number { answer, unit, .. } => unit.write(*answer, 1, lang),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_number_is_right_within_its_tolerance_only() {
        let p = Prediction::Number {
            answer: 60_000.0,
            tolerance: 6_000.0,
            unit: Unit::Messages,
        };
        assert!(p.check(Answer::Number(55_000.0)));
        assert!(!p.check(Answer::Number(50_000.0)));
        assert!(!p.check(Answer::Number(f64::NAN)));
        assert!(!p.check(Answer::Choice(0)));
        assert_eq!(p.correct_answer(Lang::Es), "60.000 mensajes");
    }

    #[test]
    fn a_choice_is_right_only_at_its_index() {
        let p = Prediction::Choices {
            options: vec![Text::new("yes", "sí"), Text::new("no", "no")],
            correct: 1,
        };
        assert!(p.check(Answer::Choice(1)));
        assert!(!p.check(Answer::Choice(0)));
        assert!(!p.check(Answer::Number(1.0)));
        assert_eq!(p.correct_answer(Lang::En), "no");
    }
}
