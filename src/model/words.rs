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
}
