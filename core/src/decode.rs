//! Typed documents from JSON, decoded one way: the text is parsed into a
//! `serde_json::Value` (where an older version is migrated), then the value is decoded
//! into its type.
//!
//! One way on purpose. serde compiles every `Deserialize` impl once per deserializer it
//! is used with, and a scenario's impls are large (each of its commands, queues,
//! consumers…): decoding scenarios from values in one place, link documents from bytes
//! in another and the editor's text directly in a third put two more copies of them in
//! the page's module, 67 KB of its gzipped size (docs/performance.md, "One way to decode
//! JSON"). Every typed document that holds a scenario or a command goes through
//! [`decode`]; parse text into a `Value` first (`serde_json::from_str::<Value>`).

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// `value` as a `T`, or serde's words for what is wrong ("unknown variant `x`, expected
/// …"), on one line: names it echoes come from the document, so they are shown escaped.
pub fn decode<T: DeserializeOwned>(value: Value) -> Result<T, String> {
    serde_json::from_value(value).map_err(|e| crate::text::escape_controls(&e.to_string()))
}

/// The most decodings [`failing_path`] tries before it settles for the path found so far.
const PROBES_MAX: usize = 200;

/// Where in `doc` decoding it as a `T` fails with `error` (what [`decode`] said): the path
/// of the field (`seed`, `consumers[0].prefetch`, `queues[1].retry.max_attempts`), empty
/// when it is the document itself or cannot be told.
///
/// serde says where only when it reads text, and decoding the text itself would put a
/// second copy of every decoder in the page (see the module's note), as would a
/// deserializer that tracks the path (serde_path_to_error: 27 KB gzipped). So the place is
/// found with the one decoder, on edited copies, going down from the top: in an object,
/// an entry that kept alone still fails alike; in an array, the first element that fails
/// alike (both found by halving). Only the way down is kept around the part tried: what
/// is left out was either decoded before the fault (a missing field is noticed only once
/// the object is read) or never reached, so the same fault written again further on
/// cannot pass for this one. Only a refused document pays: a few decodings per level, at
/// most [`PROBES_MAX`], each of a copy of what it keeps only.
///
/// A missing field needs care: serde names the first field missing in declaration order,
/// so the object that lacks it may fail alike with one entry kept, or with an entry that
/// is declared before the field removed. The object that lacks the field is kept as the
/// place unless the entry holds an object, or a list that fails otherwise once emptied.
pub fn failing_path<T: DeserializeOwned>(doc: &Value, error: &str) -> String {
    let mut probe = Probe::<T> {
        doc,
        error,
        left: PROBES_MAX,
        decoded: std::marker::PhantomData,
    };
    let mut path: Vec<Step> = Vec::new();
    while let Some(next) = node(doc, &path).and_then(|n| probe.step_into(n, &path)) {
        path.push(next);
    }
    crate::text::escape_controls(&written(&path))
}

/// Decodings of edited copies of a refused document, compared with its error.
struct Probe<'d, T> {
    doc: &'d Value,
    error: &'d str,
    /// Decodings still allowed.
    left: usize,
    decoded: std::marker::PhantomData<fn() -> T>,
}

impl<T: DeserializeOwned> Probe<'_, T> {
    /// What decoding the document with `edit` made at `path` says; `None` past the budget.
    fn said(&mut self, path: &[Step], edit: Edit) -> Option<Result<(), String>> {
        self.left = self.left.checked_sub(1)?;
        // Only what the probe keeps is copied: a refused file of a megabyte is probed a
        // few dozen times, and copying it whole each time blocked the page for a second.
        Some(decode::<T>(kept(self.doc, path, &edit)).map(|_: T| ()))
    }

    /// Whether the edited document fails as the document does; `None` past the budget.
    fn alike(&mut self, path: &[Step], edit: Edit) -> Option<bool> {
        let said = self.said(path, edit)?;
        Some(said.err().as_deref() == Some(self.error))
    }

    /// The part of `node` (at `path`) that holds the fault, if one does.
    fn step_into(&mut self, node: &Value, path: &[Step]) -> Option<Step> {
        match node {
            Value::Object(map) => self.entry(map, path),
            Value::Array(items) => self.element(items.len(), path),
            _ => None,
        }
    }

    /// In an array: the first element that fails as the document does, found by halving
    /// a window that holds it. An element decodes alone, whatever its neighbours, so the
    /// elements before the window, found not to fail so, are left out of later tries (a
    /// refused list of thousands is not copied whole at every try). Emptied, the list
    /// failing alike means the fault is the list itself.
    fn element(&mut self, len: usize, path: &[Step]) -> Option<Step> {
        if len == 0 || self.alike(path, Edit::Window(0, 0))? {
            return None;
        }
        let (mut from, mut to) = (0, len);
        while to - from > 1 {
            let mid = from + (to - from) / 2;
            if self.alike(path, Edit::Window(from, mid))? {
                to = mid;
            } else {
                from = mid;
            }
        }
        Some(Step::Index(from))
    }

    /// In an object: an entry that, kept alone, still fails as the document does (the
    /// others, decoded before it or never reached, are missed only after it), found by
    /// halving; with the same fault written in two entries, either one.
    fn entry(&mut self, map: &Map<String, Value>, path: &[Step]) -> Option<Step> {
        // Emptied, it fails alike: the fault is the object itself (an object where
        // something else belongs, or a missing field declared first).
        if self.alike(path, Edit::KeepKeys(&[]))? {
            return None;
        }
        let keys: Vec<&String> = map.keys().collect();
        let mut candidates = &keys[..];
        while candidates.len() > 1 {
            let (half, rest) = candidates.split_at(candidates.len() / 2);
            candidates = if self.alike(path, Edit::KeepKeys(half))? {
                half
            } else {
                rest
            };
        }
        let key = *candidates.first()?;
        if !self.alike(path, Edit::KeepKeys(&[key]))? {
            return None;
        }
        let Some(field) = self
            .error
            .strip_prefix("missing field `")
            .and_then(|rest| rest.strip_suffix('`'))
        else {
            return Some(Step::Key(key.clone()));
        };
        // A missing field: serde names the first one missing in declaration order, so
        // in the object that lacks it, keeping one entry alone can leave the same error
        // (the field is declared first). There, removing the entry changes nothing…
        let said = self.said(path, Edit::RemoveKey(key))?.err();
        if said.as_deref() == Some(self.error) {
            return None;
        }
        // …or makes the entry itself the first one missing. It holds the fault only if it
        // holds an object that may lack the field, or a list whose elements do.
        let in_the_way = !map.contains_key(field)
            && said
                == Some(format!(
                    "missing field `{}`",
                    crate::text::escape_controls(key)
                ));
        let holds_fault = !in_the_way
            || match &map[key] {
                Value::Object(_) => true,
                Value::Array(_) => !self.alike(path, Edit::EmptyList(key))?,
                _ => false,
            };
        holds_fault.then(|| Step::Key(key.clone()))
    }
}

/// One step of a path: an object's entry or an array's element.
#[derive(Clone, Debug, PartialEq)]
enum Step {
    Key(String),
    Index(usize),
}

/// The path as the checks write fields: `queues[1].retry.max_attempts`.
fn written(path: &[Step]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// The part of `doc` at `path`.
fn node<'v>(doc: &'v Value, path: &[Step]) -> Option<&'v Value> {
    path.iter().try_fold(doc, |at, step| match step {
        Step::Key(key) => at.get(key),
        Step::Index(i) => at.get(i),
    })
}

/// What a probe keeps of the part at its path.
enum Edit<'a> {
    /// Of an object, these entries only.
    KeepKeys(&'a [&'a String]),
    /// Of an object, every entry but this one.
    RemoveKey(&'a str),
    /// Of an array, the elements from the first index up to the second.
    Window(usize, usize),
    /// Of an object, every entry, the list at this key emptied.
    EmptyList(&'a str),
}

/// A copy of `doc` with only the way down to `path` kept (what is left out around it was
/// either decoded before the fault, and is missed only once the fault is passed, or never
/// reached, and a like fault there cannot pass for this one; of a list, the faulty
/// element alone), and the part at `path` edited.
fn kept(doc: &Value, path: &[Step], edit: &Edit) -> Value {
    match (path.split_first(), doc) {
        (None, part) => edited(part, edit),
        (Some((Step::Key(key), rest)), Value::Object(map)) => {
            let entry = map.get_key_value(key);
            let entry = entry.map(|(k, v)| (k.clone(), kept(v, rest, edit)));
            Value::Object(entry.into_iter().collect())
        }
        (Some((Step::Index(i), rest)), Value::Array(items)) => {
            let at = items.get(*i).map(|v| kept(v, rest, edit));
            Value::Array(at.into_iter().collect())
        }
        (Some(_), part) => part.clone(),
    }
}

/// `part` as `edit` keeps it.
fn edited(part: &Value, edit: &Edit) -> Value {
    let entries = |keep: &dyn Fn(&String) -> bool, map: &Map<String, Value>| {
        let kept = map.iter().filter(|(k, _)| keep(k));
        Value::Object(kept.map(|(k, v)| (k.clone(), v.clone())).collect())
    };
    match (edit, part) {
        (Edit::KeepKeys(keys), Value::Object(map)) => entries(&|k| keys.contains(&k), map),
        (Edit::RemoveKey(key), Value::Object(map)) => entries(&|k| k != key, map),
        (Edit::Window(from, to), Value::Array(items)) => {
            Value::Array(items.get(*from..*to).unwrap_or_default().to_vec())
        }
        (Edit::EmptyList(key), Value::Object(map)) => {
            let mut copy = map.clone();
            if let Some(Value::Array(items)) = copy.get_mut(*key) {
                items.clear();
            }
            Value::Object(copy)
        }
        _ => part.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Item {
        #[allow(dead_code)]
        ack: Ack,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Ack {
        AfterCommit,
    }

    #[test]
    fn a_value_that_fits_decodes_and_one_that_does_not_says_why() {
        assert!(decode::<Item>(json!({"ack": "after_commit"})).is_ok());
        let e = decode::<Item>(json!({"ack": "never"})).unwrap_err();
        assert_eq!(e, "unknown variant `never`, expected `after_commit`");
        assert_eq!(
            decode::<Item>(json!({})).unwrap_err(),
            "missing field `ack`"
        );
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Doc {
        seed: u64,
        #[serde(default)]
        entries: Vec<Entry>,
        #[serde(default)]
        retry: Option<Retry>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Entry {
        name: String,
        steps: Vec<u32>,
        ack: Ack,
        #[serde(default)]
        prefetch: u32,
        #[serde(default)]
        limit: u32,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Retry {
        max_attempts: u32,
    }

    /// The path `failing_path` finds for `doc`, which must be refused.
    fn path_of(doc: Value) -> String {
        let error = decode::<Doc>(doc.clone()).expect_err("refused");
        failing_path::<Doc>(&doc, &error)
    }

    fn entry(name: &str) -> Value {
        json!({"name": name, "steps": [1, 2, 3], "ack": "after_commit", "prefetch": 2})
    }

    #[test]
    fn a_value_of_the_wrong_type_is_found_by_its_path() {
        assert_eq!(path_of(json!({"seed": null})), "seed");
        assert_eq!(path_of(json!({"seed": 1.5, "entries": []})), "seed");
        assert_eq!(path_of(json!({"seed": -1})), "seed");
        let mut doc = json!({"seed": 1, "entries": [entry("a"), entry("b"), entry("c")]});
        doc["entries"][1]["prefetch"] = json!("two");
        assert_eq!(path_of(doc.clone()), "entries[1].prefetch");
        doc["entries"][1]["prefetch"] = json!(2);
        doc["entries"][2]["steps"][2] = json!(null);
        assert_eq!(path_of(doc.clone()), "entries[2].steps[2]");
        doc["entries"][2]["steps"] = json!({"a": 1});
        assert_eq!(path_of(doc.clone()), "entries[2].steps");
        let doc = json!({"seed": 1, "retry": {"max_attempts": true}});
        assert_eq!(path_of(doc), "retry.max_attempts");
        // The same fault twice: the first one decoded.
        let mut doc = json!({"seed": 1, "entries": [entry("a"), entry("b"), entry("c")]});
        doc["entries"][1]["prefetch"] = json!(-3);
        doc["entries"][2]["prefetch"] = json!(-3);
        assert_eq!(path_of(doc), "entries[1].prefetch");
        // …or in one object.
        let mut doc = json!({"seed": 1, "entries": [entry("a")]});
        doc["entries"][0]["prefetch"] = json!(null);
        doc["entries"][0]["limit"] = json!(null);
        let path = path_of(doc);
        assert!(
            path == "entries[0].prefetch" || path == "entries[0].limit",
            "{path}"
        );
    }

    #[test]
    fn an_unknown_field_or_variant_is_found_where_it_is_written() {
        let mut doc = json!({"seed": 1, "entries": [entry("a"), entry("b")]});
        doc["entries"][1]["prefech"] = json!(2);
        assert_eq!(path_of(doc.clone()), "entries[1].prefech");
        doc["entries"][1].as_object_mut().unwrap().remove("prefech");
        doc["entries"][0]["ack"] = json!("sometimes");
        assert_eq!(path_of(doc), "entries[0].ack");
        assert_eq!(path_of(json!({"seed": 1, "colour": "red"})), "colour");
    }

    #[test]
    fn a_missing_field_is_placed_at_the_object_that_lacks_it() {
        // `steps` is required and declared before `ack`: removing it changes the error,
        // yet the fault is the missing `ack`.
        let mut doc = json!({"seed": 1, "entries": [entry("a"), entry("b")]});
        doc["entries"][1].as_object_mut().unwrap().remove("ack");
        assert_eq!(path_of(doc.clone()), "entries[1]");
        doc["entries"][1]["ack"] = json!("after_commit");
        doc["entries"][0].as_object_mut().unwrap().remove("steps");
        assert_eq!(path_of(doc), "entries[0]");
        assert_eq!(path_of(json!({"seed": 1, "retry": {}})), "retry");
        // A required list declared before the missing field is in the way too…
        #[derive(Debug, Deserialize)]
        #[allow(dead_code)]
        struct Listed {
            steps: Vec<u32>,
            inner: Vec<Listed>,
            ack: Ack,
        }
        let listed = |doc: Value| {
            let error = decode::<Listed>(doc.clone()).expect_err("refused");
            failing_path::<Listed>(&doc, &error)
        };
        let doc =
            json!({"steps": [1], "inner": [{"steps": [], "inner": [], "ack": "after_commit"}]});
        assert_eq!(listed(doc), "");
        // …unless it holds the object that lacks it.
        let doc =
            json!({"steps": [1], "inner": [{"steps": [], "inner": []}], "ack": "after_commit"});
        assert_eq!(listed(doc), "inner[0]");
        // The document itself.
        assert_eq!(path_of(json!({"entries": [entry("a")]})), "");
    }

    #[test]
    fn a_name_in_a_path_is_shown_escaped_and_a_large_document_stays_cheap() {
        let doc = json!({"seed": 1, "x\n\u{1b}": 2});
        assert_eq!(path_of(doc), "x\\n\\u{1b}");
        let mut entries: Vec<Value> = (0..5000).map(|i| entry(&i.to_string())).collect();
        entries[4321]["ack"] = json!(7);
        assert_eq!(
            path_of(json!({"seed": 1, "entries": entries})),
            "entries[4321].ack"
        );
    }

    #[test]
    fn an_echoed_name_is_shown_escaped_on_one_line() {
        let e = decode::<Item>(json!({"x\n\u{1b}[2J": 1})).unwrap_err();
        assert!(!e.contains('\n') && !e.contains('\u{1b}'), "{e:?}");
        assert!(e.starts_with("unknown field `x\\n\\u{1b}[2J`"), "{e:?}");
    }
}
