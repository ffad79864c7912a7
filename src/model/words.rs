//! A message for the page kept as how to word it rather than as text, so a refusal on
//! screen re-words itself when the language is switched instead of staying in the
//! language it was made in.

use std::fmt;
use std::sync::Arc;

use brokerlab_core::lessons::Lang;
use brokerlab_core::ScenarioError;

use crate::i18n::{locale, td_string};

/// A message that can be written in either language.
#[derive(Clone)]
pub struct Words(Arc<dyn Fn(Lang) -> String + Send + Sync>);

impl Words {
    /// A message worded by `word` in whichever language the page shows.
    pub fn new(word: impl Fn(Lang) -> String + Send + Sync + 'static) -> Self {
        Words(Arc::new(word))
    }

    /// The message in `lang`.
    pub fn text(&self, lang: Lang) -> String {
        (self.0)(lang)
    }
}

/// A refusal of something done on the page (a command, a scheduled one, a seed) in `lang`,
/// in plain words: the problem without the scenario's field path (`producers[0].count`),
/// which names nothing the page shows. A producer that would never stop (a rate set after
/// the scenario's planned stop) is said for the page, without the file's fields (`count`,
/// `end_s`) the core's sentence suggests.
pub fn refusal_in(e: &ScenarioError, lang: Lang) -> String {
    if e.problem.starts_with("the producer never stops") {
        return td_string!(locale(lang), common.errors.never_stops).to_string();
    }
    e.problem_in(lang)
}

/// A run of more characters than this without a space is cut in [`shortened`].
const WORD_MAX: usize = 40;
/// How much of such a run is kept.
const WORD_KEPT: usize = 24;
/// A message longer than this (in characters) is cut in [`shortened`].
const TEXT_MAX: usize = 400;

/// `text` with each run of more than [`WORD_MAX`] characters without a space cut to
/// [`WORD_KEPT`] and "…", then the whole to [`TEXT_MAX`]: a refusal that echoes what was
/// typed (20,000 characters, a number of 3,000 digits) stays one short sentence, and no
/// unbroken run is wider than its box.
pub fn shortened(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(TEXT_MAX * 4));
    for piece in text.split_inclusive(char::is_whitespace) {
        let word = piece.trim_end_matches(char::is_whitespace);
        if word.chars().count() > WORD_MAX {
            out.extend(word.chars().take(WORD_KEPT));
            out.push('…');
        } else {
            out.push_str(word);
        }
        out.push_str(&piece[word.len()..]);
    }
    if out.chars().count() > TEXT_MAX {
        out = out.chars().take(TEXT_MAX).collect();
        out.push('…');
    }
    out
}

/// Two messages are the same when they say the same in English (what tests compare).
impl PartialEq for Words {
    fn eq(&self, other: &Self) -> bool {
        self.text(Lang::En) == other.text(Lang::En)
    }
}

impl fmt::Debug for Words {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Words({:?})", self.text(Lang::En))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_of_something_done_on_the_page_names_no_field() {
        let mut burst = brokerlab_core::examples::load("burst").expect("built in");
        // Arrivals that never stop: a steady rate from 0, the planned stop gone.
        burst.producers[0].arrivals.schedule.truncate(1);
        let e = burst.validate().expect_err("never stops");
        assert!(e.text_in(Lang::En).starts_with("producers[0].count: "));
        for lang in Lang::ALL {
            let said = refusal_in(&e, lang);
            assert!(
                !said.contains("producers[") && !said.contains("end_s"),
                "{said}"
            );
        }
        assert!(
            refusal_in(&e, Lang::En).starts_with("from then on a producer would publish for ever")
        );
        assert!(refusal_in(&e, Lang::Es)
            .starts_with("a partir de ahí un productor publicaría para siempre"));
        // Any other refusal: its problem, in the page's language, without the field.
        let mut mm1 = brokerlab_core::examples::load("mm1").expect("built in");
        mm1.queues[0].visibility_timeout_s = -1.0;
        let e = mm1.validate().expect_err("negative");
        assert_eq!(refusal_in(&e, Lang::En), e.problem_in(Lang::En));
        assert!(refusal_in(&e, Lang::Es).starts_with("debe estar entre"));
    }

    #[test]
    fn the_same_message_words_itself_in_each_language() {
        let w = Words::new(|lang| match lang {
            Lang::En => "refused".to_string(),
            Lang::Es => "rechazado".to_string(),
        });
        assert_eq!(w.text(Lang::En), "refused");
        assert_eq!(w.text(Lang::Es), "rechazado");
        assert_eq!(w.clone(), w);
    }

    #[test]
    fn long_runs_and_long_texts_are_cut_short_words_and_spaces_kept() {
        let plain = "variant: \"consumers.0.service.exponential.mean_s\" names no setting";
        assert_eq!(
            shortened(plain),
            plain,
            "a path of 40 characters stays whole"
        );
        let echoed = format!("variant: \"{}\" is not KEY=VALUE", "x".repeat(20_000));
        let cut = shortened(&echoed);
        assert_eq!(
            cut,
            format!("variant: \"{}… is not KEY=VALUE", "x".repeat(23))
        );
        let many = "ab ".repeat(1_000);
        assert_eq!(shortened(&many).chars().count(), TEXT_MAX + 1);
        assert!(shortened(&many).ends_with('…'));
        assert_eq!(shortened("a\n  b"), "a\n  b");
    }
}
