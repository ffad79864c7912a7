//! Scheduled commands that come too late: at or after the scenario's `end_s`. A file
//! may hold one (the page's schedule form takes one at the end and refuses one after it;
//! a file written by hand or cut shorter may hold either); the runner and the page say so
//! rather than leave it silent.

use super::{Command, Scenario};

/// A scheduled command at or after the scenario's end time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LateCommand {
    /// Its place in `Scenario::commands`.
    pub index: usize,
    pub at_s: f64,
    /// The scenario's `end_s`.
    pub end_s: f64,
}

impl LateCommand {
    /// Whether it falls after the end, and so never happens. One at the end itself has
    /// nothing after it to show what it does (a run still takes it, as its last step, in
    /// either mode).
    pub fn never_happens(&self) -> bool {
        self.at_s > self.end_s
    }
}

impl Scenario {
    /// The scheduled commands at or after `end_s`, in the order of the list (none when
    /// the scenario has no end time).
    pub fn late_commands(&self) -> Vec<LateCommand> {
        let Some(end_s) = self.end_s else {
            return Vec::new();
        };
        self.commands
            .iter()
            .enumerate()
            .filter(|(_, c)| c.at_s >= end_s)
            .map(|(index, c)| LateCommand {
                index,
                at_s: c.at_s,
                end_s,
            })
            .collect()
    }

    /// A late command in plain English, for the runner's stderr: "commands[3] (crash
    /// consumer C1 at 200 s) is after the run's end at 180 s: it will not happen".
    pub fn late_command_note(&self, late: &LateCommand) -> String {
        let what = self
            .commands
            .get(late.index)
            .map(|c| self.command_words(&c.command))
            .unwrap_or_default();
        let head = format!("commands[{}] ({what} at {} s)", late.index, late.at_s);
        if late.never_happens() {
            format!(
                "{head} is after the run's end at {} s: it will not happen",
                late.end_s
            )
        } else {
            format!("{head} is at the run's very end: nothing after it can show what it does")
        }
    }

    /// A command in a few English words: its kind as the file spells it ("crash
    /// consumer") and what it acts on, by the name the page shows ("C1", "orders").
    pub fn command_words(&self, command: &Command) -> String {
        let value = serde_json::to_value(command).unwrap_or_default();
        let (kind, fields) = match &value {
            serde_json::Value::String(kind) => (kind.as_str(), None),
            serde_json::Value::Object(map) => match map.iter().next() {
                Some((kind, fields)) => (kind.as_str(), fields.as_object()),
                None => ("command", None),
            },
            _ => ("command", None),
        };
        let mut words = kind.replace('_', " ");
        let index = |key: &str| {
            fields
                .and_then(|f| f.get(key))
                .and_then(|v| v.as_u64())
                .and_then(|i| usize::try_from(i).ok())
        };
        let target = if let Some(c) = index("consumer") {
            let names = crate::names::consumers(
                self.consumers.iter().map(|c| (c.name.as_str(), c.replicas)),
            );
            names.into_iter().flatten().nth(c)
        } else if let Some(p) = index("producer") {
            self.producers
                .get(p)
                .map(|spec| crate::names::producer(&spec.name, p))
        } else if let Some(g) = index("group") {
            self.groups.get(g).map(|spec| spec.name.clone())
        } else {
            ["queue", "log", "dependency"].iter().find_map(|key| {
                fields
                    .and_then(|f| f.get(*key))
                    .and_then(|v| v.as_str())
                    .map(str::to_string)
            })
        };
        if let Some(target) = target.filter(|t| !t.is_empty()) {
            words.push(' ');
            words.push_str(&target);
        }
        words
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples;

    fn at(s: &mut Scenario, at_s: f64, json: &str) {
        s.commands.push(super::super::ScheduledCommand {
            at_s,
            command: serde_json::from_str(json).expect("a command"),
            unannounced: false,
        });
    }

    /// Commands at or after `end_s` are found, in list order; one before is not; one at
    /// the end happens (its last instant), one after never does.
    #[test]
    fn commands_at_or_after_the_end_are_found() {
        let mut s = examples::load("short-lease").expect("built in");
        assert_eq!(s.end_s, Some(12.0));
        at(
            &mut s,
            11.9,
            r#"{"crash_consumer": {"consumer": 1, "point": "now"}}"#,
        );
        at(
            &mut s,
            12.0,
            r#"{"crash_consumer": {"consumer": 0, "point": "now"}}"#,
        );
        at(&mut s, 20.0, r#"{"restart_consumer": {"consumer": 1}}"#);
        at(&mut s, 30.0, r#""restart_broker""#);
        let late = s.late_commands();
        assert_eq!(
            late.iter().map(|l| l.index).collect::<Vec<_>>(),
            vec![1, 2, 3]
        );
        assert!(!late[0].never_happens());
        assert!(late[1].never_happens() && late[2].never_happens());
        assert_eq!(
            s.late_command_note(&late[1]),
            "commands[2] (restart consumer C2 at 20 s) is after the run's end at 12 s: it \
             will not happen"
        );
        assert_eq!(
            s.late_command_note(&late[2]),
            "commands[3] (restart broker at 30 s) is after the run's end at 12 s: it will \
             not happen"
        );
        assert_eq!(
            s.late_command_note(&late[0]),
            "commands[1] (crash consumer C1 at 12 s) is at the run's very end: nothing after \
             it can show what it does"
        );
        // Without an end time nothing is late.
        s.end_s = None;
        assert_eq!(s.late_commands(), Vec::new());
    }

    /// The words name what a command acts on as the page shows it.
    #[test]
    fn a_command_in_words_names_its_target() {
        let s = examples::load("log-consumer-groups").expect("built in");
        let group = &s.groups[0].name;
        let cmd: Command =
            serde_json::from_str(r#"{"crash_member": {"group": 0, "member": 0, "point": "now"}}"#)
                .expect("a command");
        assert_eq!(s.command_words(&cmd), format!("crash member {group}"));
        let producer = crate::names::producer(&s.producers[0].name, 0);
        let cmd: Command =
            serde_json::from_str(r#"{"drop_next_confirm": {"producer": 0}}"#).expect("a command");
        assert_eq!(
            s.command_words(&cmd),
            format!("drop next confirm {producer}")
        );
    }
}
