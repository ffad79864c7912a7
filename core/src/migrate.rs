//! Scenario files of every earlier format version keep loading: each version's file is
//! rewritten, as JSON, into the next one's until it is current, and only then decoded.
//!
//! - Version 1 → 2: the scheduled list was called `faults` and each entry (and each
//!   recorded intervention) held a `fault`; it holds setting changes too, so version 2
//!   calls them `commands` and `command`. Nothing else changed.
//! - Version 2 → 3: a queue without `overflow` now takes its flavour's default, and
//!   RabbitMQ's is drop-head, where version 2 rejected the publish. A version-2 queue
//!   with a `max_length` and no `overflow` gets `"overflow": "reject"` written, so the
//!   file behaves as it did; whatever its flavour, since a flavour switch (a compare
//!   variant) applied after loading would otherwise pick up the new default. A queue
//!   without a bound needs nothing: a bound set later by a command names its overflow.
//! - Version 3 → 4: version 4 refuses two producers, consumers or consumer groups with
//!   the same name (as shown: replicas and unnamed components numbered, see `names.rs`),
//!   which earlier versions accepted. Such a file is not refused, it is renamed: the
//!   later of two clashing components gets the first free "NAME (2)", "NAME (3)"… (a
//!   consumer entry with replicas is renamed as a whole: "C (2)" gives "C (2)-1",
//!   "C (2)-2"). Renaming changes nothing else: commands, links and lessons point at
//!   components by place, not by name, so the run is the same and only the ambiguous
//!   name changes. Refusing old files instead would break saved files and share links
//!   that worked; refusing only what this version writes keeps the page's editor strict
//!   (what it shows is version 4, so a duplicated "C1" there is refused). No note is
//!   added to the description: it is the author's text, in one language and bounded,
//!   and the new name itself is on every card, sentence and saved file.

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::names;

/// A document no migration can make sense of: the field at fault and what is wrong.
/// (Plain text, so this module needs nothing from the scenario it prepares.)
#[derive(Debug)]
pub(crate) struct Refused {
    pub field: &'static str,
    pub problem: &'static str,
}

/// Brings a decoded JSON document to the current format version, in place. A document
/// without a readable version, or with one this build does not know, is left as it is:
/// decoding and validation then say what is wrong with it.
pub(crate) fn to_current(doc: &mut Value) -> Result<(), Refused> {
    let Some(top) = doc.as_object_mut() else {
        return Ok(());
    };
    if top.get("version").and_then(Value::as_u64) == Some(1) {
        v1_to_v2(top)?;
    }
    if top.get("version").and_then(Value::as_u64) == Some(2) {
        v2_to_v3(top);
    }
    if top.get("version").and_then(Value::as_u64) == Some(3) {
        v3_to_v4(top);
    }
    Ok(())
}

fn v1_to_v2(top: &mut Map<String, Value>) -> Result<(), Refused> {
    if top.contains_key("commands") {
        // `commands` is a version-2 name: in a version-1 file it is an unknown field.
        return Err(Refused {
            field: "commands",
            problem: "is not a field of version 1 (its scheduled list is `faults`)",
        });
    }
    if let Some(faults) = top.remove("faults") {
        top.insert("commands".into(), faults);
    }
    for list in ["commands", "interventions"] {
        if let Some(Value::Array(entries)) = top.get_mut(list) {
            entries.iter_mut().for_each(rename_fault);
        }
    }
    top.insert("version".into(), Value::from(2));
    Ok(())
}

fn v2_to_v3(top: &mut Map<String, Value>) {
    if let Some(Value::Array(queues)) = top.get_mut("queues") {
        queues.iter_mut().for_each(keep_reject);
    }
    top.insert("version".into(), Value::from(3));
}

fn v3_to_v4(top: &mut Map<String, Value>) {
    if let Some(Value::Array(consumers)) = top.get_mut("consumers") {
        rename_clashing_consumers(consumers);
    }
    if let Some(Value::Array(producers)) = top.get_mut("producers") {
        rename_clashing(producers, names::producer);
    }
    if let Some(Value::Array(groups)) = top.get_mut("groups") {
        rename_clashing(groups, |given, _| given.to_string());
    }
    top.insert("version".into(), Value::from(4));
}

/// An entry's `name` when it is text or absent (`Some("")`); `None` for anything else,
/// which decoding refuses anyway.
fn name_of(entry: &Value) -> Option<&str> {
    match entry.get("name") {
        None => Some(""),
        Some(name) => name.as_str(),
    }
}

/// Entries with one name each (`shown` from the given name and the place): a later entry
/// whose name is taken gets a fresh one. A list with a name that is not text is left to
/// decoding to refuse.
fn rename_clashing(entries: &mut [Value], shown: impl Fn(&str, usize) -> String) {
    let Some(given) = (entries.iter()).map(name_of).collect::<Option<Vec<&str>>>() else {
        return;
    };
    let before: Vec<String> = (given.iter().enumerate())
        .map(|(i, g)| shown(g, i))
        .collect();
    // A fresh name avoids every name of the list as it was, so no later entry clashes
    // with it, and every fresh name given so far.
    let mut avoid: HashSet<String> = before.iter().cloned().collect();
    let mut taken = HashSet::new();
    for (entry, name) in entries.iter_mut().zip(before) {
        let name = if taken.contains(&name) {
            let fresh = names::fresh(&name, &avoid, |n| vec![n.to_string()]);
            set_name(entry, &fresh);
            avoid.insert(fresh.clone());
            fresh
        } else {
            name
        };
        taken.insert(name);
    }
}

/// Consumer entries, each standing for its replicas: an entry with a name another
/// consumer has is renamed as a whole, so all its replicas are free. A list whose names
/// or replicas are not plausible is left to decoding and validation to refuse.
fn rename_clashing_consumers(entries: &mut [Value]) {
    let replicas = |entry: &Value| match entry.get("replicas") {
        None => Some(1),
        Some(n) => (n.as_u64())
            .filter(|n| (1..=names::CONSUMERS_MAX as u64).contains(n))
            .map(|n| n as u32),
    };
    let Some(specs) = (entries.iter())
        .map(|e| Some((name_of(e)?.to_string(), replicas(e)?)))
        .collect::<Option<Vec<(String, u32)>>>()
    else {
        return;
    };
    if specs.iter().map(|(_, r)| u64::from(*r)).sum::<u64>() > names::CONSUMERS_MAX as u64 {
        return;
    }
    let shown = names::consumers(specs.iter().map(|(g, r)| (g.as_str(), *r)));
    let mut avoid: HashSet<String> = shown.iter().flatten().cloned().collect();
    let mut taken: HashSet<String> = HashSet::new();
    let mut before = 0;
    for ((entry, (given, replicas)), names) in entries.iter_mut().zip(specs).zip(shown) {
        let names = if names.iter().any(|n| taken.contains(n)) {
            // One consumer: "C1 (2)" from its name as shown (an unnamed one's "C3"
            // too). Replicas: numbered from "C (2)", the name they were numbered from.
            let base = match (given.as_str(), replicas) {
                (_, 1) => names[0].clone(),
                ("", _) => "C".to_string(),
                (g, _) => g.to_string(),
            };
            let of = |n: &str| -> Vec<String> {
                (0..replicas)
                    .map(|r| names::replica(n, replicas, r, before))
                    .collect()
            };
            let fresh = names::fresh(&base, &avoid, of);
            set_name(entry, &fresh);
            let renamed = of(&fresh);
            avoid.extend(renamed.iter().cloned());
            renamed
        } else {
            names
        };
        before += names.len();
        taken.extend(names);
    }
}

fn set_name(entry: &mut Value, name: &str) {
    if let Some(e) = entry.as_object_mut() {
        e.insert("name".into(), Value::from(name));
    }
}

/// A bounded queue that did not say what a full queue does keeps version 2's answer.
fn keep_reject(queue: &mut Value) {
    if let Some(q) = queue.as_object_mut() {
        if q.contains_key("max_length") && !q.contains_key("overflow") {
            q.insert("overflow".into(), Value::from("reject"));
        }
    }
}

/// One entry's `fault` becomes its `command` (an entry that has both keeps both, and
/// decoding refuses the unknown `fault`).
fn rename_fault(entry: &mut Value) {
    if let Some(e) = entry.as_object_mut() {
        if !e.contains_key("command") {
            if let Some(fault) = e.remove("fault") {
                e.insert("command".into(), fault);
            }
        }
    }
}

/// A field path in the current version's names (`commands[2].command.crash_consumer`) as
/// a version-1 file writes it (`faults[2].fault.crash_consumer`), so a refusal names what
/// the file holds.
pub(crate) fn path_in_version_1(path: &str) -> String {
    let path = match path.strip_prefix("commands[") {
        Some(rest) => format!("faults[{rest}"),
        None => path.to_string(),
    };
    if !(path.starts_with("faults[") || path.starts_with("interventions[")) {
        return path;
    }
    let Some(close) = path.find(']') else {
        return path;
    };
    let (entry, rest) = path.split_at(close + 1);
    match rest.strip_prefix(".command") {
        Some(tail) if tail.is_empty() || tail.starts_with('.') => format!("{entry}.fault{tail}"),
        _ => path,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_path_is_named_as_a_version_1_file_writes_it() {
        let cases = [
            (
                "commands[2].command.crash_consumer.consumer",
                "faults[2].fault.crash_consumer.consumer",
            ),
            ("commands[0].command", "faults[0].fault"),
            ("commands[0].at_s", "faults[0].at_s"),
            ("interventions[1].command", "interventions[1].fault"),
            ("interventions[1].commander", "interventions[1].commander"),
            ("queues[0].command", "queues[0].command"),
            ("seed", "seed"),
        ];
        for (current, v1) in cases {
            assert_eq!(path_in_version_1(current), v1);
        }
    }

    #[test]
    fn version_1_faults_and_interventions_become_commands() {
        let mut v = json!({
            "version": 1,
            "faults": [{ "at_s": 1, "fault": { "crash_broker": {} } }],
            "interventions": [{ "after_step": 3, "at_us": 5, "fault": "restart_broker" }]
        });
        to_current(&mut v).unwrap();
        assert_eq!(
            v,
            json!({
                "version": 4,
                "commands": [{ "at_s": 1, "command": { "crash_broker": {} } }],
                "interventions": [{ "after_step": 3, "at_us": 5, "command": "restart_broker" }]
            })
        );
    }

    #[test]
    fn version_2_bounded_queues_without_overflow_keep_rejecting() {
        let mut v = json!({
            "version": 2,
            "queues": [
                { "name": "a", "flavour": "rabbitmq", "max_length": 5 },
                { "name": "b", "flavour": "rabbitmq", "max_length": 5, "overflow": "drop_oldest" },
                { "name": "c", "max_length": 5 },
                { "name": "d", "flavour": "rabbitmq" }
            ]
        });
        to_current(&mut v).unwrap();
        assert_eq!(
            v,
            json!({
                "version": 4,
                "queues": [
                    { "name": "a", "flavour": "rabbitmq", "max_length": 5, "overflow": "reject" },
                    { "name": "b", "flavour": "rabbitmq", "max_length": 5, "overflow": "drop_oldest" },
                    { "name": "c", "max_length": 5, "overflow": "reject" },
                    { "name": "d", "flavour": "rabbitmq" }
                ]
            })
        );
    }

    #[test]
    fn version_3_clashing_consumers_are_renamed() {
        let mut v = json!({
            "version": 3,
            "consumers": [
                { "name": "C1", "ack": "manual" },
                { "name": "C1", "ack": "manual" },
                { "ack": "manual" },
                { "name": "C", "replicas": 2 },
                { "name": "C1 (2)" },
                { "name": "w", "replicas": 2 }
            ]
        });
        to_current(&mut v).unwrap();
        // The second C1 avoids the later "C1 (2)"; the unnamed third is C3 and clashes
        // with nothing; "C" × 2 (C1, C2) clashes with the first and is numbered from
        // "C (2)"; the last ones are left as they were.
        assert_eq!(
            v,
            json!({
                "version": 4,
                "consumers": [
                    { "name": "C1", "ack": "manual" },
                    { "name": "C1 (3)", "ack": "manual" },
                    { "ack": "manual" },
                    { "name": "C (2)", "replicas": 2 },
                    { "name": "C1 (2)" },
                    { "name": "w", "replicas": 2 }
                ]
            })
        );
    }

    #[test]
    fn an_unnamed_consumer_that_clashes_gets_its_shown_name_renamed() {
        // The unnamed one is C2, like the named one before it.
        let mut v = json!({ "version": 3, "consumers": [{ "name": "C2" }, {}] });
        to_current(&mut v).unwrap();
        assert_eq!(
            v["consumers"],
            json!([{ "name": "C2" }, { "name": "C2 (2)" }])
        );
    }

    #[test]
    fn version_3_clashing_producers_and_groups_are_renamed() {
        let mut v = json!({
            "version": 3,
            "producers": [{ "name": "P2" }, {}, { "name": "api" }, { "name": "api" }],
            "groups": [{ "name": "billing" }, { "name": "billing" }, { "name": "billing" }]
        });
        to_current(&mut v).unwrap();
        assert_eq!(
            v["producers"],
            json!([{ "name": "P2" }, { "name": "P2 (2)" }, { "name": "api" }, { "name": "api (2)" }])
        );
        assert_eq!(
            v["groups"],
            json!([{ "name": "billing" }, { "name": "billing (2)" }, { "name": "billing (3)" }])
        );
    }

    #[test]
    fn names_that_are_not_text_are_left_to_decoding() {
        let mut v = json!({
            "version": 3,
            "consumers": [{ "name": 7 }, { "name": "C1" }, { "name": "C1" }],
            "producers": [{ "name": "P" }, { "name": "P", "replicas": "x" }]
        });
        let before = v.clone();
        to_current(&mut v).unwrap();
        assert_eq!(v["consumers"], before["consumers"]);
        assert_eq!(v["producers"][1]["name"], json!("P (2)"));
    }

    #[test]
    fn current_and_unknown_versions_are_left_alone() {
        for v in [
            json!({ "version": 4, "faults": [], "consumers": [{ "name": "C1" }, { "name": "C1" }] }),
            json!({ "version": 9, "faults": [] }),
            json!({ "version": "1" }),
            json!([1, 2]),
        ] {
            let mut w = v.clone();
            to_current(&mut w).unwrap();
            assert_eq!(w, v);
        }
    }

    #[test]
    fn a_version_1_file_with_a_version_2_list_is_refused() {
        let mut v = json!({ "version": 1, "commands": [] });
        assert_eq!(to_current(&mut v).unwrap_err().field, "commands");
    }
}
