//! The page's two languages hold the same words: every key of every namespace exists in
//! both, with the same `{{ arguments }}` and the same markup, and a Spanish text is not
//! the English one left untranslated (a few words are the same in both, listed below).
#![cfg(not(target_arch = "wasm32"))]

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Texts that are rightly the same in both languages (names, abbreviations, symbols).
const SAME_IN_BOTH: &[&str] = &[
    // The stage: the broker keeps its name in Spanish, as does a fanout exchange.
    "Broker ", "broker", "fanout",
    // The help's row for the language switch names both languages.
    "EN / ES", // The side panel's tab for partitioned logs: Spanish says "logs" too.
    "Logs",
    // Spanish-speaking engineers say "offset", as they say "commit" (the narration does).
    "offsets",
];

/// Every leaf of a namespace file, by its dotted key.
fn leaves(value: &Value, prefix: &str, out: &mut BTreeMap<String, String>) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                let path = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                leaves(inner, &path, out);
            }
        }
        Value::String(s) => {
            out.insert(prefix.to_string(), s.clone());
        }
        other => panic!("{prefix}: a translation is text, not {other}"),
    }
}

fn namespace(lang: &str, file: &str) -> BTreeMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("locales")
        .join(lang)
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let value: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let mut out = BTreeMap::new();
    leaves(&value, "", &mut out);
    out
}

fn files(lang: &str) -> BTreeSet<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("locales")
        .join(lang);
    std::fs::read_dir(dir)
        .expect("a folder per language")
        .map(|e| e.expect("entry").file_name().to_string_lossy().to_string())
        .collect()
}

/// The `{{ name }}` arguments and `<tag>` markup a text uses, which both languages must share.
fn holes(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let end = rest[start..]
            .find("}}")
            .map_or(rest.len(), |e| start + e + 2);
        out.insert(rest[start..end].replace(' ', ""));
        rest = &rest[end..];
    }
    let mut rest = text;
    while let Some(start) = rest.find('<') {
        let end = rest[start..]
            .find('>')
            .map_or(rest.len(), |e| start + e + 1);
        out.insert(rest[start..end].to_string());
        rest = &rest[end..];
    }
    out
}

#[test]
fn both_languages_have_the_same_namespaces() {
    assert_eq!(files("en"), files("es"));
    assert!(files("en").len() >= 5, "the page's parts each have a file");
}

#[test]
fn every_key_has_both_languages_with_the_same_arguments() {
    for file in files("en") {
        let (en, es) = (namespace("en", &file), namespace("es", &file));
        let only_en: Vec<_> = en.keys().filter(|k| !es.contains_key(*k)).collect();
        let only_es: Vec<_> = es.keys().filter(|k| !en.contains_key(*k)).collect();
        assert!(only_en.is_empty(), "{file}: not in Spanish: {only_en:?}");
        assert!(only_es.is_empty(), "{file}: not in English: {only_es:?}");
        for (key, english) in &en {
            assert_eq!(
                holes(english),
                holes(&es[key]),
                "{file} {key}: arguments or markup differ"
            );
        }
    }
}

#[test]
fn spanish_is_translated() {
    for file in files("en") {
        let (en, es) = (namespace("en", &file), namespace("es", &file));
        for (key, english) in &en {
            let worded = english.chars().filter(|c| c.is_alphabetic()).count() > 3;
            if worded && !SAME_IN_BOTH.contains(&english.as_str()) {
                assert_ne!(english, &es[key], "{file} {key}: left in English");
            }
        }
    }
}

#[test]
fn spanish_keeps_confirm_for_acks_and_publisher_confirms_not_commits() {
    // "Confirmar" is the ack ("confirmación (ack)") and the publisher's confirm; a commit
    // is "commit", as the narration says it. A lineage that read "efecto confirmado" then
    // "confirmación (ack)" made one word of two steps.
    let mut wrong = Vec::new();
    for file in files("en") {
        let (en, es) = (namespace("en", &file), namespace("es", &file));
        for (key, english) in &en {
            let commit = english.to_lowercase().contains("commit");
            let confirm = english.to_lowercase().contains("confirm");
            let spanish = es[key].to_lowercase();
            if commit && !confirm && spanish.contains("confirm") && !spanish.contains("commit") {
                wrong.push(format!("{file} {key}: {}", es[key]));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "commits said as confirmations:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_check_finds_a_missing_argument() {
    assert_ne!(holes("{{ n }} messages"), holes("mensajes"));
    assert_eq!(holes("{{n}} in <b>q</b>"), holes("<b>q</b>: {{ n }}"));
}
