//! Importing a real setup: a RabbitMQ definitions file ([`rabbitmq`]) or a short Kafka
//! description ([`kafka`]) becomes a [`Scenario`] that runs as it is.
//!
//! What the model has no place for is not guessed at: each such item comes back as a
//! [`Note`] naming it, and so does each thing the importer had to assume (the producers
//! and consumers a definitions file does not describe). Notes and errors are data; the
//! page words them in its language with [`Note::describe`] and [`ImportError::describe`]
//! (their `Display` is the English wording, for the runner).
//!
//! Input is untrusted: at most [`INPUT_BYTES_MAX`] bytes, parsed without panicking, and
//! the scenario built from it is validated like any scenario file.

pub mod kafka;
mod pattern;
pub mod rabbitmq;
mod words;

use crate::lang::Lang;
use crate::scenario::{Scenario, ScenarioError};

/// Largest input accepted, like a scenario file.
pub const INPUT_BYTES_MAX: usize = 1 << 20;
/// Most notes one import returns (a file with thousands of users gets one note for them;
/// this bounds the rest).
pub const NOTES_MAX: usize = 500;

/// A scenario built from a real setup, and what the import left out or assumed.
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    pub scenario: Scenario,
    pub notes: Vec<Note>,
}

/// The kind of thing a note is about, for its wording.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Item {
    Queue,
    Exchange,
    Binding,
    Policy,
}

/// One thing the import could not carry over, or had to assume.
#[derive(Clone, Debug, PartialEq)]
pub enum Note {
    /// A whole section of the file the model has no place for (users, permissions…).
    SectionIgnored { section: String, count: usize },
    /// An item of another virtual host than the one imported.
    OtherVhost {
        item: Item,
        name: String,
        vhost: String,
    },
    /// An exchange of a type the model does not route (headers, consistent hash…); its
    /// bindings go with it.
    ExchangeTypeIgnored { exchange: String, kind: String },
    /// An exchange that has the name of a queue (RabbitMQ allows it, the model does not):
    /// it is imported under another name.
    ExchangeRenamed { exchange: String, now: String },
    /// A binding whose destination is an exchange (exchange-to-exchange).
    ExchangeBindingIgnored { source: String, destination: String },
    /// A binding to or from something not imported.
    BindingIgnored { source: String, destination: String },
    /// A binding's arguments (headers matching): the binding routes on its key alone.
    BindingArgumentsIgnored { source: String, destination: String },
    /// A queue or exchange setting (an `x-` argument, a flag) the model has no place for.
    SettingIgnored {
        item: Item,
        name: String,
        setting: String,
    },
    /// A setting whose value the model cannot take (a negative length…).
    ValueIgnored {
        item: Item,
        name: String,
        setting: String,
        value: String,
    },
    /// `x-delivery-limit` on a classic queue: RabbitMQ enforces it on quorum queues.
    DeliveryLimitOnClassic { queue: String },
    /// A stream queue: the model's logs are not imported from RabbitMQ.
    StreamQueueIgnored { queue: String },
    /// A dead-letter exchange (and routing key): dead letters stay in the queue's own
    /// dead-letter queue instead of being routed on.
    DeadLetterKeptInQueue {
        queue: String,
        exchange: String,
        routing_key: Option<String>,
    },
    /// `reject-publish-dlx`: publishes are refused as with `reject-publish`; the refused
    /// message is not dead-lettered.
    RejectPublishDlxAsReject { queue: String },
    /// A policy whose pattern is more than the importer reads (`^name$`, prefixes, `.*`).
    PolicyPatternTooComplex { policy: String, pattern: String },
    /// A policy that applies to exchanges or streams only.
    PolicyNotForQueues { policy: String, apply_to: String },
    /// A policy key the model has no place for.
    PolicyKeyIgnored { policy: String, key: String },
    /// A name longer than the model takes (RabbitMQ allows 255 bytes, the model 64
    /// characters): the item is left out.
    NameTooLong { item: Item, name: String },
    /// More items than the model holds: the first ones are kept.
    TooMany {
        item: Item,
        kept: usize,
        dropped: usize,
    },
    /// An assumption: a producer the file does not describe.
    ProducerAssumed {
        target: String,
        rate_per_s: f64,
        count: u64,
    },
    /// An assumption: consumers the file does not describe, one per queue or a group.
    ConsumersAssumed {
        queues: usize,
        service_s: f64,
        prefetch: u32,
    },
    /// Kafka: replication (and the other durability settings) is not modelled.
    ReplicationIgnored { topic: String, setting: String },
    /// Kafka: a producer with `acks=1`. The leader's acknowledgement is its confirm; the
    /// records a leader's crash loses before they are replicated are not modelled.
    LeaderAckOnly { topic: String },
    /// Kafka: a producer's `acks` that Kafka refuses (not 0, 1, all or -1): taken as `all`.
    AcksRefused { topic: String, value: String },
    /// Kafka: a consumer group the description does not give, one member per partition.
    GroupAssumed { topic: String, members: u32 },
    /// Kafka: a consumer group that reads a second topic (or has the name of an assumed
    /// group) is modelled as a group of its own, under a name of its own: the page and
    /// the narration tell groups apart by name.
    GroupRenamed {
        group: String,
        topic: String,
        name: String,
    },
    /// Kafka: records without a key are spread by message id (as the default
    /// partitioner spreads keyless records), so they keep no per-key order.
    KeylessSpread { topic: String },
}

impl Note {
    /// Whether the note says a whole queue was left out: why an import can be empty.
    fn drops_queue(&self) -> bool {
        matches!(
            self,
            Note::NameTooLong {
                item: Item::Queue,
                ..
            } | Note::OtherVhost {
                item: Item::Queue,
                ..
            } | Note::StreamQueueIgnored { .. }
        )
    }

    /// Whether the note is about something left out (rather than an assumption).
    pub fn is_ignored(&self) -> bool {
        !matches!(
            self,
            Note::ProducerAssumed { .. }
                | Note::ConsumersAssumed { .. }
                | Note::GroupAssumed { .. }
                | Note::GroupRenamed { .. }
        )
    }

    /// The note in one sentence in `lang`.
    pub fn describe(&self, lang: Lang) -> String {
        match lang {
            Lang::En => words::note_en(self),
            Lang::Es => words::note_es(self),
        }
    }
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe(Lang::En))
    }
}

/// Why an input could not be imported.
#[derive(Clone, Debug, PartialEq)]
pub enum ImportError {
    /// Larger than [`INPUT_BYTES_MAX`].
    TooLarge { bytes: usize },
    /// Not JSON (serde's message, escaped to one line).
    NotJson { detail: String },
    /// JSON, but not the expected shape: `at` names where, `problem` what.
    Shape { at: String, problem: ShapeProblem },
    /// Nothing to simulate: no queue, or no topic. `left_out` holds the notes that say why
    /// the file's queues were left out (a name too long, another virtual host…), if any.
    Empty { left_out: Vec<Note> },
    /// The scenario built does not validate (a name too long for the model…).
    Invalid(ScenarioError),
}

/// What is wrong with the shape of an input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShapeProblem {
    NotAnObject,
    NotAList,
    MissingText,
    /// serde's own message (English, escaped to one line): a missing or unknown field.
    Invalid {
        detail: String,
    },
}

impl ImportError {
    /// The error in one sentence in `lang`.
    pub fn describe(&self, lang: Lang) -> String {
        match lang {
            Lang::En => words::error_en(self),
            Lang::Es => words::error_es(self),
        }
    }
}

impl std::fmt::Display for ImportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe(Lang::En))
    }
}

impl std::error::Error for ImportError {}

/// Parses untrusted bytes as JSON, within the size limit.
fn parse_json(bytes: &[u8]) -> Result<serde_json::Value, ImportError> {
    if bytes.len() > INPUT_BYTES_MAX {
        return Err(ImportError::TooLarge { bytes: bytes.len() });
    }
    serde_json::from_slice(bytes).map_err(|e| ImportError::NotJson {
        detail: crate::text::escape_controls(&e.to_string()),
    })
}

/// Untrusted text shown in a note: one line, at most 80 characters.
fn shown(s: &str) -> String {
    let mut out: String = crate::text::one_line(s).chars().take(80).collect();
    if s.chars().count() > 80 {
        out.push('…');
    }
    out
}

/// Collects notes up to [`NOTES_MAX`].
#[derive(Default)]
struct Notes(Vec<Note>);

impl Notes {
    fn push(&mut self, note: Note) {
        if self.0.len() < NOTES_MAX {
            self.0.push(note);
        }
    }

    /// The refusal of an import with nothing to simulate, with the notes that say why the
    /// queues were left out (thrown away otherwise, and the reader would not know why).
    fn empty(self) -> ImportError {
        ImportError::Empty {
            left_out: self.0.into_iter().filter(Note::drops_queue).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A definitions file whose only queue has a name of `len` characters.
    fn one_queue_named(len: usize) -> String {
        format!(
            r#"{{"queues": [{{"name": "{}", "vhost": "/"}}]}}"#,
            "q".repeat(len)
        )
    }

    #[test]
    fn an_import_left_empty_says_why_its_queues_were_left_out() {
        let e = rabbitmq::import(one_queue_named(500).as_bytes()).expect_err("nothing to run");
        let ImportError::Empty { left_out } = &e else {
            panic!("{e:?}")
        };
        assert!(matches!(
            left_out[..],
            [Note::NameTooLong {
                item: Item::Queue,
                ..
            }]
        ));
        let en = e.describe(Lang::En);
        assert!(en.starts_with("There is nothing to simulate"), "{en}");
        assert!(
            en.contains("its name is longer than the model's 64 characters"),
            "{en}"
        );
        let es = e.describe(Lang::Es);
        assert!(es.contains("su nombre supera los 64 caracteres"), "{es}");
    }

    #[test]
    fn an_empty_import_quotes_a_few_reasons_and_counts_the_rest() {
        let queues: Vec<String> = (0..5)
            .map(|i| format!(r#"{{"name": "{i}{}"}}"#, "q".repeat(100)))
            .collect();
        let file = format!(r#"{{"queues": [{}], "users": [{{}}]}}"#, queues.join(","));
        let e = rabbitmq::import(file.as_bytes()).expect_err("nothing to run");
        let en = e.describe(Lang::En);
        // The users section is left out too, but it is not why there is no queue.
        assert!(!en.contains("users"), "{en}");
        assert_eq!(en.matches("its name is longer").count(), 3, "{en}");
        assert!(en.ends_with(" 2 more queues were left out too."), "{en}");
        assert!(e
            .describe(Lang::Es)
            .ends_with(" También se dejaron fuera otras 2 colas."));
        // A file with no queue at all says only that.
        let none = rabbitmq::import(b"{}").expect_err("nothing to run");
        assert_eq!(none, ImportError::Empty { left_out: vec![] });
    }
}
