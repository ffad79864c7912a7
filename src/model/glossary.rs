//! The glossary: the terms the page uses as labels (λ, μ, ρ, lease, prefetch, ack, inbox,
//! offset, lag), each with a short definition. One table, so every place that shows a
//! term shows the same words; `ui/term.rs` renders them as plain text.

use brokerlab_core::lang::Lang;

use crate::i18n::{locale, td_string};

/// A term the page defines on hover or focus.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Term {
    Lambda,
    Mu,
    Rho,
    Lease,
    Prefetch,
    Ack,
    Inbox,
    Offset,
    Lag,
}

impl Term {
    /// Every term, in the order the help could list them.
    pub const ALL: [Term; 9] = [
        Term::Lambda,
        Term::Mu,
        Term::Rho,
        Term::Lease,
        Term::Prefetch,
        Term::Ack,
        Term::Inbox,
        Term::Offset,
        Term::Lag,
    ];

    /// A short name for ids and test hooks (letters only).
    pub fn slug(self) -> &'static str {
        match self {
            Term::Lambda => "lambda",
            Term::Mu => "mu",
            Term::Rho => "rho",
            Term::Lease => "lease",
            Term::Prefetch => "prefetch",
            Term::Ack => "ack",
            Term::Inbox => "inbox",
            Term::Offset => "offset",
            Term::Lag => "lag",
        }
    }

    /// How the term is written where the page has no other label for it, in `lang`.
    pub fn word(self, lang: Lang) -> String {
        let l = locale(lang);
        let word = match self {
            // Symbols: the same in every language.
            Term::Lambda => return "λ".into(),
            Term::Mu => return "μ".into(),
            Term::Rho => return "ρ".into(),
            Term::Lease => td_string!(l, story.glossary.lease.word),
            Term::Prefetch => td_string!(l, story.glossary.prefetch.word),
            Term::Ack => td_string!(l, story.glossary.ack.word),
            Term::Inbox => td_string!(l, story.glossary.inbox.word),
            Term::Offset => td_string!(l, story.glossary.offset.word),
            Term::Lag => td_string!(l, story.glossary.lag.word),
        };
        word.to_string()
    }

    /// One or two sentences saying what the term means here, in `lang`. Plain text.
    pub fn definition(self, lang: Lang) -> String {
        let l = locale(lang);
        let text = match self {
            Term::Lambda => td_string!(l, story.glossary.lambda.definition),
            Term::Mu => td_string!(l, story.glossary.mu.definition),
            Term::Rho => td_string!(l, story.glossary.rho.definition),
            Term::Lease => td_string!(l, story.glossary.lease.definition),
            Term::Prefetch => td_string!(l, story.glossary.prefetch.definition),
            Term::Ack => td_string!(l, story.glossary.ack.definition),
            Term::Inbox => td_string!(l, story.glossary.inbox.definition),
            Term::Offset => td_string!(l, story.glossary.offset.definition),
            Term::Lag => td_string!(l, story.glossary.lag.definition),
        };
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_term_has_a_short_plain_definition_and_its_own_slug() {
        let mut slugs: Vec<&str> = Term::ALL.iter().map(|t| t.slug()).collect();
        slugs.sort_unstable();
        slugs.dedup();
        assert_eq!(slugs.len(), Term::ALL.len(), "two terms share a slug");
        for (term, lang) in Term::ALL
            .into_iter()
            .flat_map(|t| Lang::ALL.map(|l| (t, l)))
        {
            let text = term.definition(lang);
            let sentences = text.matches(". ").count() + usize::from(text.ends_with('.'));
            assert!(
                (1..=2).contains(&sentences),
                "{term:?} {lang:?}: {sentences} sentences"
            );
            assert!(
                text.chars().count() <= 200,
                "{term:?} {lang:?}: too long for a tooltip"
            );
            assert!(!text.contains(['<', '>', '&']), "{term:?}: plain text only");
            assert!(term.slug().chars().all(|c| c.is_ascii_lowercase()));
            assert!(!term.word(lang).is_empty());
        }
    }

    #[test]
    fn the_rates_are_defined_in_terms_of_each_other() {
        assert!(Term::Rho.definition(Lang::En).contains("λ/μ"));
        assert!(Term::Lag.definition(Lang::En).contains("offset"));
        assert!(Term::Lease
            .definition(Lang::En)
            .contains("visibility timeout"));
        assert!(Term::Lease
            .definition(Lang::En)
            .contains("RabbitMQ: the consumer timeout"));
    }

    #[test]
    fn the_glossary_speaks_spanish_too() {
        assert!(Term::Rho.definition(Lang::Es).contains("λ/μ"));
        assert!(Term::Lag.definition(Lang::Es).contains("offset"));
        assert!(Term::Lease
            .definition(Lang::Es)
            .contains("tiempo de visibilidad"));
        assert_eq!(Term::Offset.word(Lang::Es), "offset (desplazamiento)");
        assert_eq!(Term::Mu.word(Lang::Es), "μ");
    }
}
