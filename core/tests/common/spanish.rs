//! Checks that a Spanish text is Spanish: no common English word left over from a
//! forgotten translation, and the same numbers as the English it translates.

/// English words that no Spanish sentence of ours needs. Names (queues, consumers,
/// groups) are one token each ("order-service", "ledger-1") and none of them is one of
/// these words.
const ENGLISH: &[&str] = &[
    "the", "is", "was", "after", "its", "it", "of", "and", "to", "has", "not", "with", "from",
    "again", "will", "by", "on", "in", "for", "at", "before", "been", "are", "were", "their",
    "which", "who", "now", "into", "stays", "because", "as",
];

/// The words of `text`: runs of letters, digits, `_` and `-`, lowercased.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// The English words found in `text`, and "'s" for an English possessive.
pub fn english_words(text: &str) -> Vec<String> {
    let mut found: Vec<String> = words(text)
        .filter(|w| ENGLISH.contains(&w.as_str()))
        .collect();
    if text.contains("'s ") {
        found.push("'s".to_string());
    }
    found
}

/// The runs of digits in `text`, sorted: the same for "1,500.25" and "1.500,25", so a
/// translation that writes numbers its own way still names the same ones.
pub fn digit_runs(text: &str) -> Vec<String> {
    let mut runs: Vec<String> = text
        .split(|c: char| !c.is_ascii_digit())
        .filter(|r| !r.is_empty())
        .map(str::to_string)
        .collect();
    runs.sort();
    runs
}
