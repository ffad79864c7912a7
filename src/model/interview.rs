//! Interview mode: the ten-question review of an asynchronous flow, as a checklist the
//! interviewer ticks and annotates beside the scenario, and faults scheduled in secret —
//! part of the run like any scheduled fault, but left out of the schedule's list and the
//! timeline until the interviewer reveals them.

use brokerlab_core::lessons::{Lang, Text};
use brokerlab_core::link::InterviewView;
use brokerlab_core::Scenario;

/// One row of the review: its theme and what it asks of the design.
pub struct Question {
    pub theme: Text,
    pub asks: Text,
}

/// The ten themes of the review, in order.
pub const QUESTIONS: [Question; 10] = [
    Question {
        theme: Text::new("Semantics", "Semántica"),
        asks: Text::new(
            "Is it a command, an event or a reply? Who owns it, and who may refuse it?",
            "¿Es un comando, un evento o una respuesta? ¿De quién es y quién puede rechazarlo?",
        ),
    },
    Question {
        theme: Text::new("Identity", "Identidad"),
        asks: Text::new(
            "What identifies the message, the event, the operation and the aggregate? Which id survives a retry?",
            "¿Qué identifica al mensaje, al evento, a la operación y al agregado? ¿Qué id sobrevive a un reintento?",
        ),
    },
    Question {
        theme: Text::new("Topology", "Topología"),
        asks: Text::new(
            "Competing consumers, subscriptions, a log, or a mix? What state does each keep?",
            "¿Consumidores que compiten, suscripciones, un log o una mezcla? ¿Qué estado guarda cada uno?",
        ),
    },
    Question {
        theme: Text::new("Authority", "Autoridad"),
        asks: Text::new(
            "Who may publish, consume, redrive and administer? How are tenant and action checked?",
            "¿Quién puede publicar, consumir, reenviar y administrar? ¿Cómo se comprueban inquilino y acción?",
        ),
    },
    Question {
        theme: Text::new("Confirmation", "Confirmación"),
        asks: Text::new(
            "What does a publish confirm prove? When exactly does the consumer ack?",
            "¿Qué demuestra una confirmación de publicación? ¿En qué momento exacto confirma el consumidor?",
        ),
    },
    Question {
        theme: Text::new("Failure", "Fallo"),
        asks: Text::new(
            "What happens before and after each commit? Which states are left unknown?",
            "¿Qué ocurre antes y después de cada commit? ¿Qué estados quedan desconocidos?",
        ),
    },
    Question {
        theme: Text::new("Duplicates", "Duplicados"),
        asks: Text::new(
            "Which constraint or idempotent effect stops a second consequence?",
            "¿Qué restricción o efecto idempotente impide una segunda consecuencia?",
        ),
    },
    Question {
        theme: Text::new("Order", "Orden"),
        asks: Text::new(
            "What is the real scope of order: partition, key, aggregate? How is a stale or missing message noticed?",
            "¿Cuál es el alcance real del orden: partición, clave, agregado? ¿Cómo se nota un mensaje viejo o uno que falta?",
        ),
    },
    Question {
        theme: Text::new("Compatibility", "Compatibilidad"),
        asks: Text::new(
            "How do the type and the schema evolve? What does a consumer do with a version it does not know?",
            "¿Cómo evolucionan el tipo y el esquema? ¿Qué hace un consumidor con una versión que no conoce?",
        ),
    },
    Question {
        theme: Text::new("Operation", "Operación"),
        asks: Text::new(
            "Which metrics, dead-letter queues, backoff, limits and redrive procedure exist?",
            "¿Qué métricas, colas de mensajes muertos, esperas entre reintentos, límites y procedimiento de reenvío existen?",
        ),
    },
];

/// The longest note a row keeps (a link carries the notes).
pub const NOTE_CHARS_MAX: usize = 600;

/// The interview on show: ticks and notes per question, the hidden faults (indices into
/// the scenario's scheduled commands) and whether they are revealed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Interview {
    pub done: [bool; 10],
    pub notes: [String; 10],
    pub hidden: Vec<usize>,
    pub revealed: bool,
}

impl Interview {
    /// The interview a link kept; rows beyond ten and indices that name no scheduled
    /// command of `scenario` are dropped, notes are cut to [`NOTE_CHARS_MAX`].
    pub fn from_view(view: &InterviewView, scenario: &Scenario) -> Self {
        let mut interview = Self::default();
        for (slot, &done) in interview.done.iter_mut().zip(&view.done) {
            *slot = done;
        }
        for (slot, note) in interview.notes.iter_mut().zip(&view.notes) {
            *slot = clip(note);
        }
        interview.hidden = view
            .hidden
            .iter()
            .copied()
            .filter(|&i| i < scenario.commands.len())
            .collect();
        interview.revealed = view.revealed;
        interview
    }

    /// What a link keeps of it (`None` when nothing was noted, ticked or hidden).
    pub fn view(&self) -> Option<InterviewView> {
        if *self == Self::default() {
            return None;
        }
        Some(InterviewView {
            done: self.done.to_vec(),
            notes: self.notes.to_vec(),
            hidden: self.hidden.clone(),
            revealed: self.revealed,
        })
    }

    pub fn set_note(&mut self, row: usize, text: &str) {
        if let Some(slot) = self.notes.get_mut(row) {
            *slot = clip(text);
        }
    }

    /// Another scenario is on show: its schedule has no hidden fault (notes stay).
    pub fn forget_faults(&mut self) {
        self.hidden.clear();
        self.revealed = false;
    }

    /// The scheduled command at `index` is shown (not hidden, or revealed).
    pub fn shows(&self, index: usize) -> bool {
        self.revealed || !self.hidden.contains(&index)
    }

    /// A hidden fault waits to be revealed: the scenario's text stays out of sight.
    pub fn keeps_secret(&self) -> bool {
        !self.revealed && !self.hidden.is_empty()
    }

    /// After a command was scheduled at `index` of the list, the hidden ones from there on
    /// move down one place.
    pub fn inserted(&mut self, index: usize) {
        for i in &mut self.hidden {
            if *i >= index {
                *i += 1;
            }
        }
    }

    /// After the scheduled command at `index` was removed, the hidden ones after it move
    /// up one place (and a removed hidden one is forgotten).
    pub fn removed(&mut self, index: usize) {
        self.hidden.retain(|&i| i != index);
        for i in &mut self.hidden {
            if *i > index {
                *i -= 1;
            }
        }
    }
}

/// The scenario with only the scheduled commands the interview shows.
pub fn shown(base: &Scenario, interview: &Interview) -> Scenario {
    let mut shown = base.clone();
    shown.commands = base
        .commands
        .iter()
        .enumerate()
        .filter(|(i, _)| interview.shows(*i))
        .map(|(_, c)| c.clone())
        .collect();
    shown
}

fn clip(text: &str) -> String {
    text.chars().take(NOTE_CHARS_MAX).collect()
}

/// A row's theme and question in `lang`.
pub fn row(index: usize, lang: Lang) -> (&'static str, &'static str) {
    let q = &QUESTIONS[index];
    (q.theme.get(lang), q.asks.get(lang))
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::examples;
    use brokerlab_core::{Command, ScheduledCommand};

    fn with_two_faults() -> Scenario {
        let mut s = examples::load("mm4").expect("built in");
        for at_s in [5.0, 9.0] {
            s.commands.push(ScheduledCommand {
                at_s,
                command: Command::RestartBroker,
            });
        }
        s
    }

    #[test]
    fn a_hidden_fault_is_left_out_until_revealed() {
        let base = with_two_faults();
        let mut i = Interview {
            hidden: vec![1],
            ..Interview::default()
        };
        assert!(i.keeps_secret());
        assert_eq!(shown(&base, &i).commands.len(), 1);
        assert_eq!(shown(&base, &i).commands[0].at_s, 5.0);
        i.revealed = true;
        assert!(!i.keeps_secret());
        assert_eq!(shown(&base, &i).commands.len(), 2);
    }

    #[test]
    fn removing_a_fault_keeps_the_hidden_ones_pointing_at_theirs() {
        let mut i = Interview {
            hidden: vec![0, 2],
            ..Interview::default()
        };
        i.removed(1);
        assert_eq!(i.hidden, vec![0, 1]);
        i.removed(0);
        assert_eq!(i.hidden, vec![0]);
        i.inserted(0);
        assert_eq!(i.hidden, vec![1]);
        i.inserted(2);
        assert_eq!(i.hidden, vec![1]);
    }

    #[test]
    fn an_interview_round_trips_through_a_link_and_bad_parts_are_dropped() {
        let base = with_two_faults();
        let mut i = Interview::default();
        assert_eq!(i.view(), None, "nothing to keep");
        i.done[3] = true;
        i.set_note(3, &"x".repeat(2_000));
        i.hidden = vec![1];
        let view = i.view().expect("something to keep");
        assert_eq!(Interview::from_view(&view, &base), i);
        assert_eq!(i.notes[3].chars().count(), NOTE_CHARS_MAX);
        let hostile = InterviewView {
            done: vec![true; 40],
            notes: vec!["<b>hi</b>".into(); 40],
            hidden: vec![1, 7, 99],
            revealed: false,
        };
        let back = Interview::from_view(&hostile, &base);
        assert_eq!(back.hidden, vec![1], "only commands that exist");
        assert_eq!(
            back.notes[0], "<b>hi</b>",
            "kept as text; the page never renders it as markup"
        );
    }

    #[test]
    fn the_ten_questions_are_in_both_languages() {
        for i in 0..10 {
            for lang in Lang::ALL {
                let (theme, asks) = row(i, lang);
                assert!(!theme.is_empty() && asks.ends_with('?'), "{i} {lang:?}");
            }
        }
    }
}
