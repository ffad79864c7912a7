//! The part of a policy's regular expression the importer reads: anchors `^` and `$`,
//! `.`, `.*`, `.+`, escaped characters (`\.`) and plain characters. That covers the
//! patterns policies are usually written with (`^orders$`, `^orders\.`, `.*`); anything
//! else (classes, groups, alternatives) is reported instead of guessed.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token {
    Char(char),
    Any,
    AnyMany { at_least: usize },
}

/// A parsed pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Pattern {
    start: bool,
    end: bool,
    tokens: Vec<Token>,
}

/// Longest pattern read.
const PATTERN_LEN_MAX: usize = 200;
/// Most `.*` / `.+` in one pattern.
const WILDCARDS_MAX: usize = 3;

impl Pattern {
    /// The pattern, if it stays within the supported subset.
    pub(super) fn parse(text: &str) -> Option<Pattern> {
        if text.len() > PATTERN_LEN_MAX {
            return None;
        }
        let mut chars: Vec<char> = text.chars().collect();
        let start = chars.first() == Some(&'^');
        if start {
            chars.remove(0);
        }
        let end = chars.last() == Some(&'$') && !ends_escaped(&chars);
        if end {
            chars.pop();
        }
        let mut tokens = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            let next = chars.get(i + 1).copied();
            match (c, next) {
                ('\\', Some(e)) if !e.is_alphanumeric() => {
                    tokens.push(Token::Char(e));
                    i += 1;
                }
                ('.', Some('*')) => {
                    tokens.push(Token::AnyMany { at_least: 0 });
                    i += 1;
                }
                ('.', Some('+')) => {
                    tokens.push(Token::AnyMany { at_least: 1 });
                    i += 1;
                }
                ('.', _) => tokens.push(Token::Any),
                (c, _) if "\\[](){}|?*+^$".contains(c) => return None,
                (c, _) => tokens.push(Token::Char(c)),
            }
            i += 1;
        }
        // Each `.*` multiplies the matching work by a name's length: a few are plenty.
        let wildcards = tokens
            .iter()
            .filter(|t| matches!(t, Token::AnyMany { .. }))
            .count();
        (wildcards <= WILDCARDS_MAX).then_some(Pattern { start, end, tokens })
    }

    /// Whether `name` matches (anywhere, unless anchored).
    pub(super) fn matches(&self, name: &str) -> bool {
        let name: Vec<char> = name.chars().collect();
        let starts = if self.start { 0..=0 } else { 0..=name.len() };
        starts
            .into_iter()
            .any(|s| self.match_from(&self.tokens, &name[s..]))
    }

    fn match_from(&self, tokens: &[Token], rest: &[char]) -> bool {
        match tokens.split_first() {
            None => !self.end || rest.is_empty(),
            Some((Token::Char(c), more)) => {
                rest.first() == Some(c) && self.match_from(more, &rest[1..])
            }
            Some((Token::Any, more)) => !rest.is_empty() && self.match_from(more, &rest[1..]),
            Some((Token::AnyMany { at_least }, more)) => {
                (*at_least..=rest.len()).any(|skip| self.match_from(more, &rest[skip..]))
            }
        }
    }
}

/// Whether the last character is escaped by an odd run of backslashes.
fn ends_escaped(chars: &[char]) -> bool {
    let slashes = chars[..chars.len() - 1]
        .iter()
        .rev()
        .take_while(|c| **c == '\\')
        .count();
    slashes % 2 == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, name: &str) -> bool {
        Pattern::parse(pattern).expect(pattern).matches(name)
    }

    #[test]
    fn the_usual_policy_patterns_match_as_rabbitmq_would() {
        assert!(m("^orders$", "orders"));
        assert!(!m("^orders$", "orders.dlq"));
        assert!(m("^orders\\.", "orders.dlq"));
        assert!(!m("^orders\\.", "ordersX"));
        assert!(m(".*", "anything"));
        assert!(m("", "anything"));
        assert!(m("dlq", "orders.dlq.1"));
        assert!(m("^a.+z$", "abz"));
        assert!(!m("^a.+z$", "az"));
        assert!(m("\\.dlq$", "orders.dlq"));
    }

    #[test]
    fn anything_richer_is_refused() {
        for p in [
            "^(a|b)$",
            "[abc]",
            "a?",
            "a{2}",
            "x*",
            "\\d+",
            ".*a.*b.*c.*d",
        ] {
            assert_eq!(Pattern::parse(p), None, "{p}");
        }
    }
}
