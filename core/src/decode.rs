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
use serde_json::Value;

/// `value` as a `T`, or serde's words for what is wrong ("unknown variant `x`, expected
/// …"), on one line: names it echoes come from the document, so they are shown escaped.
pub fn decode<T: DeserializeOwned>(value: Value) -> Result<T, String> {
    serde_json::from_value(value).map_err(|e| crate::text::escape_controls(&e.to_string()))
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

    #[test]
    fn an_echoed_name_is_shown_escaped_on_one_line() {
        let e = decode::<Item>(json!({"x\n\u{1b}[2J": 1})).unwrap_err();
        assert!(!e.contains('\n') && !e.contains('\u{1b}'), "{e:?}");
        assert!(e.starts_with("unknown field `x\\n\\u{1b}[2J`"), "{e:?}");
    }
}
