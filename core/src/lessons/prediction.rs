//! The "what will happen next?" question of a step, answered before the run plays on.

use crate::lang::{number, Lang, Text};

/// What a number in a lesson counts, and how it is written in each language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Messages,
    Seconds,
    /// A bare count (deliveries, effects, emails…): the sentence around it says what.
    Count,
    /// Money in an account's balance.
    Dollars,
    Members,
    Percent,
}

impl Unit {
    /// `value` written with this unit, rounded to `decimals`: "60,000 messages",
    /// "1 mensaje", "30 s", "$50", "40 %", "2".
    pub fn write(self, value: f64, decimals: usize, lang: Lang) -> String {
        let n = number(value, decimals, lang);
        let one = n == "1";
        match (self, lang) {
            (Unit::Messages, Lang::En) => format!("{n} message{}", plural_s(one)),
            (Unit::Messages, Lang::Es) => format!("{n} mensaje{}", plural_s(one)),
            (Unit::Members, Lang::En) => format!("{n} member{}", plural_s(one)),
            (Unit::Members, Lang::Es) => format!("{n} miembro{}", plural_s(one)),
            (Unit::Seconds, _) => format!("{n} s"),
            (Unit::Count, _) => n,
            (Unit::Dollars, _) => format!("${n}"),
            (Unit::Percent, _) => format!("{n} %"),
        }
    }
}

/// The plural ending both languages share for these words.
fn plural_s(one: bool) -> &'static str {
    if one {
        ""
    } else {
        "s"
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

    /// The order a choice question's options are shown in, as indices into `options`
    /// (the order they were written in, which answers and links keep). The options turn
    /// round so that the right one sits at a place of its own for each question, taken
    /// from the right option's words: where it was written (always second) a learner would
    /// learn the place instead of the answer. Empty for a number question.
    pub fn shown_order(&self) -> Vec<usize> {
        let Prediction::Choices { options, correct } = self else {
            return Vec::new();
        };
        let n = options.len();
        if n == 0 {
            return Vec::new();
        }
        let mut words = crate::hash::StableHasher::default();
        let right = options.get(*correct).map_or("", |o| o.get(Lang::En));
        std::hash::Hasher::write(&mut words, right.as_bytes());
        let place = (std::hash::Hasher::finish(&words) % n as u64) as usize;
        let turn = (correct + n - place) % n;
        (0..n).map(|k| (k + turn) % n).collect()
    }

    /// The right answer in words: the correct option, or the number with its unit.
    pub fn correct_answer(&self, lang: Lang) -> String {
        match self {
            Prediction::Choices { options, correct } => options
                .get(*correct)
                .map_or("", |t| t.get(lang))
                .to_string(),
            Prediction::Number { answer, unit, .. } => unit.write(*answer, 1, lang),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every lesson's choice questions show their options in an order whose right one
    /// is not always at the same place, and each order holds every option once.
    #[test]
    fn the_right_option_is_not_always_at_the_same_place() {
        let mut places = [0usize; 3];
        for lesson in crate::lessons::all() {
            for step in &lesson.steps {
                let order = step.prediction.shown_order();
                if let Prediction::Choices { options, correct } = &step.prediction {
                    let mut sorted = order.clone();
                    sorted.sort_unstable();
                    assert_eq!(sorted, (0..options.len()).collect::<Vec<_>>());
                    let place = order.iter().position(|i| i == correct).expect("shown");
                    places[place] += 1;
                } else {
                    assert!(order.is_empty());
                }
            }
        }
        let total: usize = places.iter().sum();
        assert!(total >= 15, "{places:?}");
        for (place, n) in places.iter().enumerate() {
            assert!(
                *n * 5 >= total,
                "place {place} holds the answer {n} times of {total}"
            );
        }
    }

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
        assert_eq!(Unit::Messages.write(1.0, 0, Lang::Es), "1 mensaje");
        assert_eq!(Unit::Members.write(2.0, 0, Lang::En), "2 members");
        assert_eq!(Unit::Seconds.write(59.04, 1, Lang::Es), "59 s");
        assert_eq!(Unit::Seconds.write(4.9, 1, Lang::Es), "4,9 s");
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
