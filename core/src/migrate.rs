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

use serde_json::{Map, Value};

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
                "version": 3,
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
                "version": 3,
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
    fn current_and_unknown_versions_are_left_alone() {
        for v in [
            json!({ "version": 3, "faults": [] }),
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
