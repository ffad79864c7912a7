//! Groups move records from the log they read to their output and dead-letter logs. A
//! ring of such moves would carry records round without end — a record that always
//! fails, through dead-letter logs; every record, through outputs — so a scenario with
//! one is refused, as a group writing to the log it reads is.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, VecDeque};

use super::{err, Scenario, ScenarioError};

/// A group's move of records: which group, by which field, from which log to which.
struct Move<'a> {
    group: usize,
    field: &'a str,
    from: usize,
    to: usize,
}

impl Scenario {
    /// Refuses a ring of logs, naming the field that closes it and the logs it goes round.
    pub(super) fn validate_log_rings(&self) -> Result<(), ScenarioError> {
        let moves = self.record_moves();
        for m in &moves {
            // The ring closes here if the move's own log is reached again from its target.
            let Some(path) = path(&moves, m.to, m.from) else {
                continue;
            };
            let names: Vec<&str> = std::iter::once(m.from)
                .chain(path)
                .map(|l| self.logs[l].name.as_str())
                .collect();
            return Err(err(
                format!("groups[{}].{}", m.group, m.field),
                format!(
                    "records would go round the logs {} without end",
                    names.join(" → ")
                ),
            ));
        }
        Ok(())
    }

    /// Every group's moves to its output and dead-letter logs (names that exist).
    fn record_moves(&self) -> Vec<Move<'_>> {
        let mut moves = Vec::new();
        for (group, g) in self.groups.iter().enumerate() {
            let Some(from) = self.log_index(&g.log) else {
                continue;
            };
            for (field, to) in [("output", &g.output), ("dead_letter", &g.dead_letter)] {
                if let Some(to) = self.log_index(to) {
                    moves.push(Move {
                        group,
                        field,
                        from,
                        to,
                    });
                }
            }
        }
        moves
    }
}

/// The logs from `start` to `goal`, both included, along `moves`, if `goal` can be
/// reached (breadth first, so the ring named is a shortest one).
fn path(moves: &[Move<'_>], start: usize, goal: usize) -> Option<Vec<usize>> {
    let mut came_from = BTreeMap::from([(start, start)]);
    let mut next = VecDeque::from([start]);
    while let Some(log) = next.pop_front() {
        if log == goal {
            let mut path = vec![log];
            while path[path.len() - 1] != start {
                path.push(came_from[&path[path.len() - 1]]);
            }
            path.reverse();
            return Some(path);
        }
        for m in moves.iter().filter(|m| m.from == log) {
            if let Entry::Vacant(first_visit) = came_from.entry(m.to) {
                first_visit.insert(log);
                next.push_back(m.to);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::Scenario;

    fn with_groups(groups: &str) -> Scenario {
        serde_json::from_str(&format!(
            r#"{{ "version": 4, "seed": 1,
            "producers": [{{ "name": "P", "target": "a", "arrivals": {{ "process": "constant", "schedule": [{{ "from_s": 0, "rate_per_s": 1 }}] }}, "count": 5 }}],
            "logs": [{{ "name": "a", "partitions": 1 }}, {{ "name": "b", "partitions": 1 }}, {{ "name": "c", "partitions": 1 }}],
            "groups": [{groups}] }}"#
        ))
        .expect("parses")
    }

    fn group(name: &str, log: &str, extra: &str) -> String {
        format!(
            r#"{{ "name": "{name}", "log": "{log}", "members": 1, "service": {{ "fixed": {{ "seconds": 0.1 }} }}, "commit": "after_processing"{extra} }}"#
        )
    }

    #[test]
    fn a_ring_of_dead_letter_or_output_logs_is_refused_naming_it() {
        // a dead-letters to b, b to c, c back to a: a poison record would circle for ever.
        let ring = with_groups(
            &[
                group("ga", "a", r#", "dead_letter": "b""#),
                group("gb", "b", r#", "dead_letter": "c""#),
                group("gc", "c", r#", "dead_letter": "a""#),
            ]
            .join(","),
        );
        let e = ring.validate().expect_err("refused");
        assert_eq!(e.field, "groups[0].dead_letter");
        assert_eq!(
            e.problem,
            "records would go round the logs a → b → c → a without end"
        );
        // A ring through an output: every record would circle.
        let ring = with_groups(
            &[
                group("ga", "a", r#", "output": "b""#),
                group("gb", "b", r#", "dead_letter": "a""#),
            ]
            .join(","),
        );
        let e = ring.validate().expect_err("refused");
        assert_eq!(
            (e.field.as_str(), e.problem.as_str()),
            (
                "groups[0].output",
                "records would go round the logs a → b → a without end"
            )
        );
        // A chain that ends (a → b → c) is fine, and so is a second group reading a.
        let chain = with_groups(
            &[
                group("ga", "a", r#", "dead_letter": "b""#),
                group("gb", "b", r#", "output": "c""#),
                group("ga2", "a", r#", "output": "c""#),
            ]
            .join(","),
        );
        chain.validate().expect("a chain is no ring");
    }
}
