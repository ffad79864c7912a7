//! The page's keyboard shortcuts, in one table: the listener and the help overlay both
//! read it, so a key and its explanation cannot drift apart.

use leptos::prelude::*;
use leptos_use::{use_event_listener, use_window};

use super::{Lab, Tools};

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
    pub label: &'static str,
    pub what: &'static str,
    pub keys: &'static [(&'static str, Action)],
}

/// Every shortcut, in the order the help lists them.
pub const SHORTCUTS: &[Shortcut] = &[
    Shortcut {
        label: "space",
        what: "play or pause",
        keys: &[(" ", Action::TogglePlay)],
    },
    Shortcut {
        label: "→",
        what: "one step forward",
        keys: &[("ArrowRight", Action::Step)],
    },
    Shortcut {
        label: "←",
        what: "one step back",
        keys: &[("ArrowLeft", Action::Back)],
    },
    Shortcut {
        label: "r",
        what: "reset",
        keys: &[("r", Action::Reset), ("R", Action::Reset)],
    },
    Shortcut {
        label: "+ / −",
        what: "faster / slower",
        keys: &[
            ("+", Action::Faster),
            ("=", Action::Faster),
            ("-", Action::Slower),
            ("_", Action::Slower),
        ],
    },
    Shortcut {
        label: "p",
        what: "present: the stage alone, in large type (again to leave)",
        keys: &[("p", Action::Present), ("P", Action::Present)],
    },
    Shortcut {
        label: "?",
        what: "this help",
        keys: &[("?", Action::OpenHelp)],
    },
    Shortcut {
        label: "Escape",
        what: "close this help",
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
}
