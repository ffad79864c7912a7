//! Built-in example scenarios. Each is a JSON file under `core/scenarios/`, compiled in,
//! so the CLI, the page and the tests all read the same text. The catalogue also gives
//! each one a readable title and a topic, for the page's picker, in English and Spanish:
//! the scenario files keep their slug as `name` and say in English what happens in
//! `description`; the Spanish description lives in the catalogue, so the files stay as
//! they are.

mod catalogue;

pub use catalogue::EXAMPLES;

use crate::lang::{Lang, Text};
use crate::scenario::Scenario;

/// What an example teaches, for grouping them; in the order the picker lists the groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Topic {
    Load,
    Delivery,
    Failures,
    Ordering,
    Publishing,
    Logs,
}

impl Topic {
    /// Every topic, in the order the picker lists them.
    pub const ALL: [Topic; 6] = [
        Topic::Load,
        Topic::Delivery,
        Topic::Failures,
        Topic::Ordering,
        Topic::Publishing,
        Topic::Logs,
    ];

    /// The group's heading in `lang`.
    pub fn title(self, lang: Lang) -> &'static str {
        let text = match self {
            Topic::Load => Text::new("Load and capacity", "Carga y capacidad"),
            Topic::Delivery => Text::new("Delivery guarantees", "Garantías de entrega"),
            Topic::Failures => Text::new(
                "Failures, retries and dead letters",
                "Fallos, reintentos y mensajes muertos",
            ),
            Topic::Ordering => Text::new("Ordering", "Orden"),
            Topic::Publishing => Text::new(
                "Publishing reliably: outbox and dual writes",
                "Publicar de forma fiable: outbox y doble escritura",
            ),
            Topic::Logs => Text::new("Logs and consumer groups", "Logs y grupos de consumidores"),
        };
        text.get(lang)
    }
}

/// One built-in example: its slug (the CLI's name), a readable title, its topic, its
/// JSON text and its description in Spanish.
pub struct Example {
    pub name: &'static str,
    pub topic: Topic,
    pub json: &'static str,
    title: Text,
    /// The Spanish of the scenario file's `description`.
    description_es: &'static str,
}

impl Example {
    /// The example's title in `lang`, for the picker.
    pub fn title(&self, lang: Lang) -> &'static str {
        self.title.get(lang)
    }

    /// What happens in the example, in `lang`: the scenario file's `description` in
    /// English, the catalogue's in Spanish.
    pub fn description(&self, lang: Lang) -> String {
        match lang {
            Lang::En => file_description(self.json),
            Lang::Es => self.description_es.to_string(),
        }
    }
}

/// The `description` of a scenario's JSON text, read alone (without checking the whole
/// scenario), empty when there is none.
fn file_description(json: &str) -> String {
    #[derive(serde::Deserialize)]
    struct Described {
        #[serde(default)]
        description: String,
    }
    serde_json::from_str::<Described>(json)
        .map(|d| d.description)
        .unwrap_or_default()
}

pub fn names() -> impl Iterator<Item = &'static str> {
    EXAMPLES.iter().map(|e| e.name)
}

/// The examples that run message by message (the others are too large for it and run
/// aggregated): what tests that step through every example's messages go over.
pub fn message_by_message() -> impl Iterator<Item = &'static str> {
    names().filter(|name| {
        load(name).is_some_and(|s| s.run_mode() == Ok(crate::scenario::RunMode::Messages))
    })
}

/// The example called `name`.
pub fn find(name: &str) -> Option<&'static Example> {
    EXAMPLES.iter().find(|e| e.name == name)
}

/// The example's JSON text.
pub fn json(name: &str) -> Option<&'static str> {
    find(name).map(|e| e.json)
}

/// The example, parsed. Built-in examples are valid (a test checks every one).
pub fn load(name: &str) -> Option<Scenario> {
    json(name).map(|j| Scenario::from_json(j).expect("built-in examples are valid"))
}

/// The examples grouped by topic, the topics in [`Topic::ALL`] order and the examples of
/// each in catalogue order; a topic with no example is left out.
pub fn by_topic() -> Vec<(Topic, Vec<&'static Example>)> {
    Topic::ALL
        .iter()
        .map(|&topic| {
            let of_topic = EXAMPLES.iter().filter(|e| e.topic == topic).collect();
            (topic, of_topic)
        })
        .filter(|(_, examples): &(Topic, Vec<_>)| !examples.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_english_description_is_the_files() {
        for e in EXAMPLES {
            let scenario = Scenario::from_json(e.json).expect("valid");
            assert_eq!(e.description(Lang::En), scenario.description, "{}", e.name);
        }
        assert_eq!(file_description("{}"), "");
    }
}
