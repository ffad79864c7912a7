//! Importing a real setup on the page: a RabbitMQ definitions file or a Kafka description
//! becomes a run paused at its start, with the importer's notes (what it assumed, what it
//! left out) worded in the page's language. The core does the mapping
//! (`brokerlab_core::import`); this only picks the importer and shapes the result for the
//! page.

use brokerlab_core::import::{kafka, rabbitmq, ImportError, Imported, Note};
use brokerlab_core::lessons::Lang;

use crate::model::player::Player;
use crate::model::words::Words;

/// What kind of file the user says they are importing (the two formats cannot be told
/// apart reliably by their content, so the menu has one choice each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImportKind {
    Rabbitmq,
    Kafka,
}

/// A player for the scenario imported from `bytes`, paused at its start, and the notes of
/// the import. The error is the core's one sentence, re-worded in either language.
pub fn import_file(
    kind: ImportKind,
    bytes: &[u8],
    lang: Lang,
) -> Result<(Player, Vec<Note>), Words> {
    let (imported, description) = match kind {
        ImportKind::Rabbitmq => (rabbitmq::import(bytes), rabbitmq::description(lang)),
        ImportKind::Kafka => (kafka::import(bytes), kafka::description(lang)),
    };
    let Imported {
        mut scenario,
        notes,
    } = imported.map_err(refused)?;
    // Said under the picker in the page's language, as the notes beside it are.
    scenario.description = description.to_string();
    // The core validated the scenario; a player that still cannot start is said the same way.
    let player = Player::new(scenario).map_err(|e| refused(ImportError::Invalid(e)))?;
    Ok((player, notes))
}

fn refused(e: ImportError) -> Words {
    Words::new(move |lang| e.describe(lang))
}

/// One note as the page lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct NoteLine {
    /// Left out of the scenario (rather than assumed to fill a gap).
    pub ignored: bool,
    pub text: String,
}

/// The notes in `lang`, assumptions first (they shape the run), then what was left out,
/// each kind in the importer's order.
pub fn note_lines(notes: &[Note], lang: Lang) -> Vec<NoteLine> {
    let line = |n: &Note| NoteLine {
        ignored: n.is_ignored(),
        text: n.describe(lang),
    };
    let assumed = notes.iter().filter(|n| !n.is_ignored()).map(line);
    let ignored = notes.iter().filter(|n| n.is_ignored()).map(line);
    assumed.chain(ignored).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::Scenario;

    const SUPPORTED: &str = include_str!("../../core/tests/import/rabbitmq-supported.json");
    const SUPPORTED_SCENARIO: &str =
        include_str!("../../core/tests/import/rabbitmq-supported.expected.json");
    const UNSUPPORTED: &str = include_str!("../../core/tests/import/rabbitmq-unsupported.json");
    const KAFKA: &str = include_str!("../../core/tests/import/kafka.json");
    const KAFKA_SCENARIO: &str = include_str!("../../core/tests/import/kafka.expected.json");

    fn imported(kind: ImportKind, text: &str) -> (Player, Vec<Note>) {
        import_file(kind, text.as_bytes(), Lang::En).unwrap_or_else(|e| panic!("{e:?}"))
    }

    #[test]
    fn a_definitions_file_opens_its_scenario_paused_at_the_start() {
        let (player, notes) = imported(ImportKind::Rabbitmq, SUPPORTED);
        let expected = Scenario::from_json(SUPPORTED_SCENARIO).expect("the fixture");
        assert_eq!(player.base(), &expected);
        assert_eq!(player.sim().steps(), 0, "paused at the start");
        // A definitions file has no traffic: the producers and consumers are assumed.
        let lines = note_lines(&notes, Lang::En);
        assert!(lines.iter().any(|l| !l.ignored), "{lines:?}");
        assert!(!lines[0].ignored, "assumptions come first");
    }

    #[test]
    fn an_imported_scenario_is_described_in_the_pages_language() {
        for (kind, text) in [
            (ImportKind::Rabbitmq, SUPPORTED),
            (ImportKind::Kafka, KAFKA),
        ] {
            let (player, _) = import_file(kind, text.as_bytes(), Lang::Es).expect("imports");
            assert!(
                player.base().description.starts_with("Importado de "),
                "{kind:?}"
            );
            let (player, _) = imported(kind, text);
            assert!(
                player.base().description.starts_with("Imported from "),
                "{kind:?}"
            );
        }
    }

    #[test]
    fn a_kafka_description_opens_its_scenario() {
        let (player, notes) = imported(ImportKind::Kafka, KAFKA);
        let expected = Scenario::from_json(KAFKA_SCENARIO).expect("the fixture");
        assert_eq!(player.base(), &expected);
        let lines = note_lines(&notes, Lang::En);
        assert!(
            lines.iter().any(|l| l.ignored && l.text.contains("orders")),
            "the replication of “orders” is left out: {lines:?}"
        );
    }

    #[test]
    fn unsupported_parts_are_listed_by_name_in_both_languages() {
        let (player, notes) = imported(ImportKind::Rabbitmq, UNSUPPORTED);
        assert!(!player.base().queues.is_empty());
        let en = note_lines(&notes, Lang::En);
        let ignored: Vec<&str> = en
            .iter()
            .filter(|l| l.ignored)
            .map(|l| l.text.as_str())
            .collect();
        for item in ["by-header", "events", "staging", "users", "ha-all"] {
            assert!(
                ignored.iter().any(|t| t.contains(item)),
                "{item} is named among {ignored:#?}"
            );
        }
        let es = note_lines(&notes, Lang::Es);
        assert_eq!(es.len(), en.len());
        assert!(es
            .iter()
            .zip(&en)
            .all(|(s, e)| s.text != e.text && s.ignored == e.ignored));
        assert!(es.iter().any(|l| l.text.contains("by-header")));
    }

    #[test]
    fn garbage_is_refused_in_one_sentence_in_both_languages() {
        for kind in [ImportKind::Rabbitmq, ImportKind::Kafka] {
            for junk in ["", "{", "[1,2]", "null", "<b>hi</b>", "{\"queues\": 3}"] {
                let refusal = import_file(kind, junk.as_bytes(), Lang::En)
                    .err()
                    .expect("refused");
                for lang in [Lang::En, Lang::Es] {
                    let text = refusal.text(lang);
                    assert!(!text.contains('\n'), "one line: {text}");
                    assert!(text.ends_with('.'), "a sentence: {text}");
                    assert_eq!(text.matches(". ").count(), 0, "one sentence: {text}");
                }
            }
        }
        let refusal = import_file(ImportKind::Rabbitmq, b"{", Lang::En)
            .err()
            .expect("refused");
        assert!(refusal
            .text(Lang::En)
            .starts_with("The file is not valid JSON"));
        assert!(refusal
            .text(Lang::Es)
            .starts_with("El archivo no es JSON válido"));
        // Valid JSON of the other format has nothing this importer can simulate.
        let refusal = import_file(ImportKind::Kafka, SUPPORTED.as_bytes(), Lang::En).err();
        assert!(
            refusal.is_some(),
            "a definitions file is no Kafka description"
        );
    }
}
