//! Exchange routing: which bound queues a routing key reaches.

use crate::scenario::ExchangeKind;

/// Whether a binding key matches a routing key for this kind of exchange.
///
/// Topic keys are words separated by dots; in a binding, `*` matches exactly one word
/// and `#` matches zero or more words (`orders.*` matches `orders.created`;
/// `orders.#` also matches `orders` and `orders.eu.created`). Binding keys and routing
/// keys are split alike, the empty key into no word at all, as RabbitMQ splits both
/// (`split_topic_key`): a binding with the empty key takes publishes with the empty
/// routing key.
pub fn matches(kind: ExchangeKind, binding: &str, routing_key: &str) -> bool {
    match kind {
        ExchangeKind::Fanout => true,
        ExchangeKind::Direct => binding == routing_key,
        ExchangeKind::Topic => topic_match(&words(binding), &words(routing_key)),
    }
}

/// A topic key's words: none for the empty key, else what lies between the dots (empty
/// words included: `a..b` is three words).
fn words(key: &str) -> Vec<&str> {
    if key.is_empty() {
        Vec::new()
    } else {
        key.split('.').collect()
    }
}

/// Iterative matcher with one backtrack point for `#`, so a hostile pattern such as
/// `#.#.#.#…` costs O(pattern × words), never exponential time.
fn topic_match(pattern: &[&str], words: &[&str]) -> bool {
    let (mut p, mut w) = (0, 0);
    let mut star: Option<(usize, usize)> = None; // (index of '#', words it swallowed up to)
    while w < words.len() {
        if p < pattern.len() && pattern[p] == "#" {
            star = Some((p, w));
            p += 1;
        } else if p < pattern.len() && (pattern[p] == "*" || pattern[p] == words[w]) {
            p += 1;
            w += 1;
        } else if let Some((sp, sw)) = star {
            // Let the last '#' swallow one more word and retry.
            p = sp + 1;
            w = sw + 1;
            star = Some((sp, sw + 1));
        } else {
            return false;
        }
    }
    while p < pattern.len() && pattern[p] == "#" {
        p += 1;
    }
    p == pattern.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ExchangeKind::*;

    #[test]
    fn topic_patterns() {
        let yes = [
            ("orders.*", "orders.created"),
            ("orders.#", "orders"),
            ("orders.#", "orders.eu.created"),
            ("#", "anything.at.all"),
            ("#", ""),
            ("*.created", "orders.created"),
            ("#.created", "a.b.created"),
            ("a.#.z", "a.z"),
            ("a.#.z", "a.b.c.z"),
            ("", ""),
            ("a.*.b", "a..b"),
        ];
        for (b, k) in yes {
            assert!(matches(Topic, b, k), "{b} should match {k}");
        }
        let no = [
            ("orders.*", "orders"),
            ("orders.*", "orders.eu.created"),
            ("*.created", "created"),
            ("a.#.z", "a.b.c"),
            ("orders.created", "orders.deleted"),
            ("", "orders"),
            ("*", ""),
        ];
        for (b, k) in no {
            assert!(!matches(Topic, b, k), "{b} should not match {k}");
        }
    }

    #[test]
    fn direct_and_fanout() {
        assert!(matches(Direct, "eu", "eu"));
        assert!(!matches(Direct, "eu", "us"));
        assert!(matches(Fanout, "", "whatever"));
    }

    #[test]
    fn hostile_pattern_is_fast() {
        let pattern = vec!["#"; 200].join(".") + ".x";
        let key = vec!["a"; 200].join(".");
        assert!(!matches(Topic, &pattern, &key));
    }
}
