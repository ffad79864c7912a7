//! The glossary: the terms the page uses as labels (λ, μ, ρ, lease, prefetch, ack, inbox,
//! offset, lag), each with a short definition. One table, so every place that shows a
//! term shows the same words; `ui/term.rs` renders them as plain text.

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

    /// How the term is written where the page has no other label for it.
    pub fn word(self) -> &'static str {
        match self {
            Term::Lambda => "λ",
            Term::Mu => "μ",
            Term::Rho => "ρ",
            Term::Lease => "lease",
            Term::Prefetch => "prefetch",
            Term::Ack => "ack",
            Term::Inbox => "inbox",
            Term::Offset => "offset",
            Term::Lag => "lag",
        }
    }

    /// One or two sentences saying what the term means here. Plain text.
    pub fn definition(self) -> &'static str {
        match self {
            Term::Lambda => "λ (lambda), the arrival rate: how many messages the producers publish per second.",
            Term::Mu => "μ (mu), the service rate: how many messages all the consumers together can finish per second.",
            Term::Rho => "ρ (rho) = λ/μ, the load. Below 1 the consumers keep up and a backlog drains; above 1 the backlog can only grow.",
            Term::Lease => "How long a consumer may hold a delivered message without acking it (the visibility timeout). When it runs out, the broker hands the message to someone else.",
            Term::Prefetch => "How many unacked messages the broker gives one consumer at a time. More keeps consumers busy, but a crash returns more messages at once.",
            Term::Ack => "The acknowledgement a consumer sends when it is done with a message; only then does the broker forget it. No ack before the lease ends means a redelivery.",
            Term::Inbox => "A table of the message ids a consumer has already processed, written in the same transaction as the effect, so a redelivered message changes nothing twice.",
            Term::Offset => "A record's position in a partition of a log. A group commits the offset it has read up to; after a crash, reading resumes from there.",
            Term::Lag => "How many records a group still has to read in a partition: the end of the log minus the group's committed offset.",
        }
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
        for term in Term::ALL {
            let text = term.definition();
            let sentences = text.matches(". ").count() + usize::from(text.ends_with('.'));
            assert!(
                (1..=2).contains(&sentences),
                "{term:?}: {sentences} sentences"
            );
            assert!(text.len() <= 200, "{term:?}: too long for a tooltip");
            assert!(!text.contains(['<', '>', '&']), "{term:?}: plain text only");
            assert!(term.slug().chars().all(|c| c.is_ascii_lowercase()));
            assert!(!term.word().is_empty());
        }
    }

    #[test]
    fn the_rates_are_defined_in_terms_of_each_other() {
        assert!(Term::Rho.definition().contains("λ/μ"));
        assert!(Term::Lag.definition().contains("offset"));
        assert!(Term::Lease.definition().contains("visibility timeout"));
    }
}
