//! The names components are shown by. The page's cards, its crash buttons, the schedule's
//! list and the narration tell producers, consumers and consumer groups apart by name
//! alone, so within each kind a name must be unique (`Scenario::validate` refuses a clash;
//! `migrate.rs` renames the clashes of files written before that check).
//!
//! A name is not always written in the scenario: an unnamed producer is P1, P2… by its
//! place; a consumer entry stands for `replicas` consumers, numbered from its name (or
//! C1, C2… by their place among all consumers when it has none). This module is the one
//! place those rules live, so the check, the migration and the simulation agree. It
//! needs nothing from the rest of the crate (the migration runs before any scenario is
//! decoded).

use std::collections::HashSet;

/// Longest name a scenario may give a component (`scenario::limits::NAME_LEN_MAX`).
pub const NAME_LEN_MAX: usize = 64;
/// Most consumers in a scenario, replicas included (`scenario::limits::CONSUMERS_MAX`).
pub const CONSUMERS_MAX: usize = 256;

/// The name of replica `r` of a consumer entry named `given` with `replicas` replicas,
/// `before` consumers coming before it: "C" gives C1, C2…; "worker" gives worker-1,
/// worker-2…; an unnamed consumer is named after its place among all consumers.
pub fn replica(given: &str, replicas: u32, r: u32, before: usize) -> String {
    match (given, replicas) {
        ("", _) => format!("C{}", before + r as usize + 1),
        (base, 1) => base.to_string(),
        (base, _) => numbered(base, r as usize + 1),
    }
}

/// The `n`th consumer numbered from `base`: C3 from "C", worker-3 from "worker". Scaling
/// out numbers new consumers the same way.
pub fn numbered(base: &str, n: usize) -> String {
    if base.chars().count() <= 2 {
        format!("{base}{n}")
    } else {
        format!("{base}-{n}")
    }
}

/// Producer `i`'s name: the one it is given, or P1, P2… by its place.
pub fn producer(given: &str, i: usize) -> String {
    if given.is_empty() {
        format!("P{}", i + 1)
    } else {
        given.to_string()
    }
}

/// Every consumer's name, entry by entry (each entry as its given name and replicas).
/// The caller bounds the replicas: this makes one name per consumer.
pub fn consumers<'a>(entries: impl IntoIterator<Item = (&'a str, u32)>) -> Vec<Vec<String>> {
    let mut before = 0;
    entries
        .into_iter()
        .map(|(given, replicas)| {
            let names: Vec<String> = (0..replicas)
                .map(|r| replica(given, replicas, r, before))
                .collect();
            before += names.len();
            names
        })
        .collect()
}

/// The first entry that has a name an earlier entry has, with that name.
pub fn first_clash(entries: &[Vec<String>]) -> Option<(usize, &str)> {
    let mut taken = HashSet::new();
    for (i, names) in entries.iter().enumerate() {
        for name in names {
            if !taken.insert(name.as_str()) {
                return Some((i, name));
            }
        }
    }
    None
}

/// A name for a component called `base` that clashed: "base (2)", else "base (3)"…, the
/// first whose names (`names_of` the candidate: one name, or a consumer entry's
/// replicas) are not in `avoid`. `base` is cut so the candidate stays within
/// [`NAME_LEN_MAX`] characters.
pub fn fresh(
    base: &str,
    avoid: &HashSet<String>,
    names_of: impl Fn(&str) -> Vec<String>,
) -> String {
    (2usize..)
        .map(|k| {
            let suffix = format!(" ({k})");
            let keep = NAME_LEN_MAX.saturating_sub(suffix.chars().count());
            let cut: String = base.chars().take(keep).collect();
            format!("{cut}{suffix}")
        })
        .find(|candidate| names_of(candidate).iter().all(|n| !avoid.contains(n)))
        .expect("some number is free: `avoid` is finite")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replicas_and_unnamed_consumers_are_numbered() {
        let names = consumers([("C", 2), ("", 1), ("worker", 2), ("C1", 1), ("", 2)]);
        assert_eq!(
            names,
            vec![
                vec!["C1", "C2"],
                vec!["C3"],
                vec!["worker-1", "worker-2"],
                vec!["C1"],
                vec!["C7", "C8"],
            ]
        );
        assert_eq!(first_clash(&names), Some((3, "C1")));
        assert_eq!(first_clash(&names[..3]), None);
    }

    #[test]
    fn a_fresh_name_avoids_every_taken_one_and_fits() {
        let avoid: HashSet<String> = ["C1", "C1 (2)"].map(String::from).into();
        assert_eq!(fresh("C1", &avoid, |n| vec![n.to_string()]), "C1 (3)");
        let long = "x".repeat(NAME_LEN_MAX);
        let name = fresh(&long, &HashSet::new(), |n| vec![n.to_string()]);
        assert_eq!(name.chars().count(), NAME_LEN_MAX);
        assert!(name.ends_with(" (2)"));
        // A consumer entry's replicas must all be free.
        let avoid: HashSet<String> = ["C (2)-2"].map(String::from).into();
        let name = fresh("C", &avoid, |n| vec![numbered(n, 1), numbered(n, 2)]);
        assert_eq!(name, "C (3)");
    }
}
