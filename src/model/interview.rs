//! Interview mode: the ten-question review of an asynchronous flow, as a checklist the
//! interviewer ticks and annotates beside the scenario, and faults scheduled in secret —
//! part of the run like any scheduled fault, but left out of the schedule's list and the
//! timeline until the interviewer reveals them.

use brokerlab_core::lessons::Lang;
use brokerlab_core::link::InterviewView;
use brokerlab_core::Scenario;

use crate::i18n::{locale, td_string};

/// How many rows the review has (the ten themes, in order: see [`row`]).
pub const QUESTIONS: usize = 10;

/// The longest note a row keeps (a link carries the notes).
pub const NOTE_CHARS_MAX: usize = 600;

/// The interview on show: ticks and notes per question, the hidden faults (indices into
/// the scenario's scheduled commands) and whether they are revealed.
///
/// A hidden fault is a scheduled command marked `unannounced`: the scenario is the one
/// source of truth, and `hidden` only keeps where those are, taken again from the
/// scenario whenever its schedule changes ([`Interview::take_faults`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Interview {
    pub done: [bool; QUESTIONS],
    pub notes: [String; QUESTIONS],
    hidden: Vec<usize>,
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
        // The link's scenario marks its hidden faults unannounced (the core marks those an
        // older link only listed in `view.hidden` when it opens the link).
        interview.hidden = unannounced(scenario);
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

    /// The schedule on show changed (another scenario, a command added or removed): its
    /// unannounced faults are the hidden ones (notes stay). Revealed faults stay revealed
    /// unless a hidden one was added, or none is left.
    pub fn take_faults(&mut self, scenario: &Scenario) {
        let hidden = unannounced(scenario);
        self.revealed = self.revealed && !hidden.is_empty() && hidden.len() <= self.hidden.len();
        self.hidden = hidden;
    }

    /// Where the hidden faults are in the scenario's schedule.
    pub fn hidden(&self) -> &[usize] {
        &self.hidden
    }

    /// The scheduled command at `index` is shown (not hidden, or revealed).
    pub fn shows(&self, index: usize) -> bool {
        self.revealed || !self.hidden.contains(&index)
    }

    /// A hidden fault waits to be revealed: the scenario's text stays out of sight.
    pub fn keeps_secret(&self) -> bool {
        !self.revealed && !self.hidden.is_empty()
    }
}

/// Where the unannounced faults of `scenario`'s schedule are (an interview hides them).
pub fn unannounced(scenario: &Scenario) -> Vec<usize> {
    let commands = scenario.commands.iter().enumerate();
    commands
        .filter(|(_, c)| c.unannounced)
        .map(|(i, _)| i)
        .collect()
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

/// A row's theme and question in `lang` (empty beyond the last row).
pub fn row(index: usize, lang: Lang) -> (&'static str, &'static str) {
    let l = locale(lang);
    match index {
        0 => (
            td_string!(l, teach.interview.questions.semantics.theme),
            td_string!(l, teach.interview.questions.semantics.asks),
        ),
        1 => (
            td_string!(l, teach.interview.questions.identity.theme),
            td_string!(l, teach.interview.questions.identity.asks),
        ),
        2 => (
            td_string!(l, teach.interview.questions.topology.theme),
            td_string!(l, teach.interview.questions.topology.asks),
        ),
        3 => (
            td_string!(l, teach.interview.questions.authority.theme),
            td_string!(l, teach.interview.questions.authority.asks),
        ),
        4 => (
            td_string!(l, teach.interview.questions.confirmation.theme),
            td_string!(l, teach.interview.questions.confirmation.asks),
        ),
        5 => (
            td_string!(l, teach.interview.questions.failure.theme),
            td_string!(l, teach.interview.questions.failure.asks),
        ),
        6 => (
            td_string!(l, teach.interview.questions.duplicates.theme),
            td_string!(l, teach.interview.questions.duplicates.asks),
        ),
        7 => (
            td_string!(l, teach.interview.questions.order.theme),
            td_string!(l, teach.interview.questions.order.asks),
        ),
        8 => (
            td_string!(l, teach.interview.questions.compatibility.theme),
            td_string!(l, teach.interview.questions.compatibility.asks),
        ),
        9 => (
            td_string!(l, teach.interview.questions.operation.theme),
            td_string!(l, teach.interview.questions.operation.asks),
        ),
        _ => ("", ""),
    }
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
                unannounced: false,
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
    fn adding_or_removing_commands_keeps_the_hidden_ones_those_marked_unannounced() {
        let mut base = with_two_faults();
        base.commands[1].unannounced = true;
        let mut i = Interview::default();
        i.take_faults(&base);
        assert_eq!(i.hidden(), [1]);
        i.revealed = true;
        // A command added before it: the same fault, one place further, still revealed.
        let added = ScheduledCommand {
            at_s: 1.0,
            command: Command::RestartBroker,
            unannounced: false,
        };
        base.commands.insert(0, added.clone());
        i.take_faults(&base);
        assert_eq!((i.hidden(), i.revealed), (&[2][..], true));
        // Another hidden fault: both hidden again until the next reveal.
        base.commands.push(ScheduledCommand {
            unannounced: true,
            ..added
        });
        i.take_faults(&base);
        assert_eq!((i.hidden(), i.keeps_secret()), (&[2, 3][..], true));
        // Both removed: nothing left to keep secret.
        base.commands.truncate(2);
        i.take_faults(&base);
        assert_eq!((i.hidden(), i.keeps_secret()), (&[][..], false));
    }

    #[test]
    fn an_interview_round_trips_through_a_link_and_bad_parts_are_dropped() {
        let base = with_two_faults();
        let mut i = Interview::default();
        assert_eq!(i.view(), None, "nothing to keep");
        i.done[3] = true;
        i.set_note(3, &"x".repeat(2_000));
        let mut base = base;
        base.commands[1].unannounced = true;
        i.take_faults(&base);
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
        assert_eq!(back.hidden, vec![1], "only what the scenario marks");
        assert_eq!(
            back.notes[0], "<b>hi</b>",
            "kept as text; the page never renders it as markup"
        );
    }

    #[test]
    fn a_schedules_unannounced_faults_are_the_hidden_ones() {
        let mut base = with_two_faults();
        let mut i = Interview {
            hidden: vec![0],
            revealed: true,
            ..Interview::default()
        };
        // Another scenario with nothing unannounced: nothing hidden.
        i.take_faults(&base);
        assert_eq!((i.hidden.clone(), i.keeps_secret()), (vec![], false));
        // A file whose second fault is unannounced: hidden until revealed.
        base.commands[1].unannounced = true;
        i.take_faults(&base);
        assert_eq!(i.hidden, vec![1]);
        assert!(i.keeps_secret());
        // The revealed text applied again: the same faults, still revealed.
        i.revealed = true;
        i.take_faults(&base);
        assert!(i.revealed && !i.keeps_secret());
        // A link's hidden faults are those its scenario marks (the core marks the ones an
        // older link only listed: `core/src/link.rs`).
        let view = InterviewView {
            hidden: vec![0],
            ..InterviewView::default()
        };
        assert_eq!(Interview::from_view(&view, &base).hidden, vec![1]);
    }

    #[test]
    fn the_ten_questions_are_in_both_languages() {
        assert_eq!(row(0, Lang::En).0, "Semantics");
        assert_eq!(row(0, Lang::Es).0, "Semántica");
        assert!(row(9, Lang::Es).1.starts_with("¿Qué métricas"));
        for i in 0..QUESTIONS {
            for lang in Lang::ALL {
                let (theme, asks) = row(i, lang);
                assert!(!theme.is_empty() && asks.ends_with('?'), "{i} {lang:?}");
            }
        }
    }
}
