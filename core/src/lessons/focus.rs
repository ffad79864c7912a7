//! What a step asks the learner to look at: a component of the topology (the page
//! outlines its card) or a metric (the page points at its counter or chart line).

use crate::lang::{Lang, Text};
use crate::sim::Simulation;

/// A metric the page shows, named as the page names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    Backlog,
    OldestAge,
    InFlight,
    DeadLettered,
    Duplicates,
    Lost,
    Refused,
    /// Log records a consumer group has not yet committed.
    Lag,
}

/// One thing to look at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    /// A component by its name in the scenario: a producer, an exchange, a queue, a
    /// consumer (replicas by their own names, e.g. `W1`), a log or a consumer group.
    Node(&'static str),
    /// The dead-letter queue of the queue so named.
    DeadLetters(&'static str),
    Metric(Metric),
}

impl Metric {
    /// The metric's name, as the page's counter for it is labelled, so that "Look at:"
    /// names what the learner finds outlined.
    pub fn name(self) -> Text {
        match self {
            Metric::Backlog => Text::new("backlog", "acumulado"),
            Metric::OldestAge => Text::new("oldest age", "espera máxima"),
            Metric::InFlight => Text::new("in flight", "en vuelo"),
            Metric::DeadLettered => Text::new("dead-lettered", "enviados a la DLQ"),
            Metric::Duplicates => Text::new("duplicate effects", "efectos duplicados"),
            Metric::Lost => Text::new("lost", "perdidos"),
            Metric::Refused => Text::new("refused", "rechazados"),
            // A group's lag is counted in the backlog, whose counter is outlined.
            Metric::Lag => Text::new("lag (in the backlog)", "lag (en el acumulado)"),
        }
    }
}

impl Focus {
    /// What the focus names, in words: a component's own name, "the dead-letter queue
    /// of payments", a metric's name.
    pub fn label(&self, lang: Lang) -> String {
        match (*self, lang) {
            (Focus::Node(name), _) => name.to_string(),
            (Focus::DeadLetters(q), Lang::En) => format!("the dead-letter queue of {q}"),
            (Focus::DeadLetters(q), Lang::Es) => format!("la cola de mensajes muertos de {q}"),
            (Focus::Metric(m), _) => m.name().get(lang).to_string(),
        }
    }

    /// Whether what this focus names is in `sim` (a metric always is).
    pub fn exists_in(&self, sim: &Simulation) -> bool {
        match *self {
            Focus::Node(name) => sim.names_a_component(name),
            Focus::DeadLetters(queue) => queue_exists(sim, queue),
            Focus::Metric(_) => true,
        }
    }
}

fn queue_exists(sim: &Simulation, name: &str) -> bool {
    sim.queue_ids()
        .any(|q| sim.queue(q).is_some_and(|v| v.name == name))
}
