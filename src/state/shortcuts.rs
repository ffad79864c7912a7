//! The page's keyboard shortcuts, in one table: the listener and the help overlay both
//! read it, so a key and its explanation cannot drift apart.

use leptos::prelude::*;
use leptos_use::{use_event_listener, use_window};

use super::{Lab, Tools};
use crate::i18n::{locale, td_string};
use brokerlab_core::lessons::Lang;

/// What a shortcut does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    TogglePlay,
    Step,
    Back,
    Reset,
    Faster,
    Slower,
    OpenHelp,
    CloseHelp,
    Present,
}

/// One row of the help's keyboard list: how it is written, what it does, and the keys
/// (as `KeyboardEvent.key` names them) that do it.
pub struct Shortcut {
    pub label: fn(Lang) -> String,
    pub what: fn(Lang) -> String,
    pub keys: &'static [(&'static str, Action)],
}

/// Every shortcut, in the order the help lists them.
pub const SHORTCUTS: &[Shortcut] = &[
    Shortcut {
        label: |l| td_string!(locale(l), common.keys.space).to_string(),
        what: |l| td_string!(locale(l), common.keys.play).to_string(),
        keys: &[(" ", Action::TogglePlay)],
    },
    Shortcut {
        label: |_| "→".to_string(),
        what: |l| td_string!(locale(l), common.keys.step).to_string(),
        keys: &[("ArrowRight", Action::Step)],
    },
    Shortcut {
        label: |_| "←".to_string(),
        what: |l| td_string!(locale(l), common.keys.back).to_string(),
        keys: &[("ArrowLeft", Action::Back)],
    },
    Shortcut {
        label: |_| "r".to_string(),
        what: |l| td_string!(locale(l), common.keys.reset).to_string(),
        keys: &[("r", Action::Reset), ("R", Action::Reset)],
    },
    Shortcut {
        label: |_| "+ / −".to_string(),
        what: |l| td_string!(locale(l), common.keys.speed).to_string(),
        keys: &[
            ("+", Action::Faster),
            ("=", Action::Faster),
            ("-", Action::Slower),
            ("_", Action::Slower),
        ],
    },
    Shortcut {
        label: |_| "p".to_string(),
        what: |l| td_string!(locale(l), common.keys.present).to_string(),
        keys: &[("p", Action::Present), ("P", Action::Present)],
    },
    Shortcut {
        label: |_| "?".to_string(),
        what: |l| td_string!(locale(l), common.keys.help).to_string(),
        keys: &[("?", Action::OpenHelp)],
    },
    Shortcut {
        label: |_| "Escape".to_string(),
        what: |l| td_string!(locale(l), common.keys.close_help).to_string(),
        keys: &[("Escape", Action::CloseHelp)],
    },
];

/// The action a key does, if any.
pub fn action_for(key: &str) -> Option<Action> {
    SHORTCUTS
        .iter()
        .flat_map(|s| s.keys)
        .find(|(k, _)| *k == key)
        .map(|&(_, action)| action)
}

/// True when a key press is meant for a form field, not for the page's shortcuts.
pub fn typing_in_field(ev: &web_sys::KeyboardEvent) -> bool {
    use wasm_bindgen::JsCast;
    ev.target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA"))
}

/// Does `action` if it applies now; false when the key should do what it normally does.
/// Only Escape works while typing in a field (it closes the help); the help keys work
/// only when they change something.
fn perform(action: Action, typing: bool, lab: Lab, tools: Tools) -> bool {
    let help_open = tools.help_open.get_untracked();
    match action {
        Action::CloseHelp if help_open => tools.close_help(),
        Action::CloseHelp => return false,
        _ if typing => return false,
        Action::OpenHelp if help_open => return false,
        Action::OpenHelp => tools.open_help(),
        Action::TogglePlay => lab.toggle_play(),
        Action::Step => lab.step(),
        Action::Back => lab.back(),
        Action::Reset => lab.reset(),
        Action::Faster => lab.nudge_speed(true),
        Action::Slower => lab.nudge_speed(false),
        Action::Present => tools.toggle_presenting(),
    }
    true
}

/// Listens for the shortcuts on the window (removed with the page).
pub fn use_shortcuts(lab: Lab, tools: Tools) {
    let _ = use_event_listener(use_window(), leptos::ev::keydown, move |ev| {
        if ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
            return;
        }
        let Some(action) = action_for(&ev.key()) else {
            return;
        };
        if perform(action, typing_in_field(&ev), lab, tools) {
            ev.prevent_default();
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_has_one_action_and_the_old_keys_still_work() {
        let mut keys: Vec<&str> = SHORTCUTS.iter().flat_map(|s| s.keys).map(|k| k.0).collect();
        let all = keys.len();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), all, "a key listed twice");
        assert_eq!(action_for(" "), Some(Action::TogglePlay));
        assert_eq!(action_for("R"), Some(Action::Reset));
        assert_eq!(action_for("_"), Some(Action::Slower));
        assert_eq!(action_for("Escape"), Some(Action::CloseHelp));
        assert_eq!(action_for("x"), None);
    }

    #[test]
    fn the_help_lists_every_shortcut_in_both_languages() {
        for s in SHORTCUTS {
            assert!(!(s.what)(Lang::En).is_empty());
            assert_ne!((s.what)(Lang::En), (s.what)(Lang::Es));
        }
        assert_eq!((SHORTCUTS[0].label)(Lang::Es), "espacio");
    }
}
