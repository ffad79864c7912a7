//! A message for the page kept as how to word it rather than as text, so a refusal on
//! screen re-words itself when the language is switched instead of staying in the
//! language it was made in.

use std::fmt;
use std::sync::Arc;

use brokerlab_core::lessons::Lang;

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
