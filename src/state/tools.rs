//! Page tools: whether the help overlay is open (and what to give the focus back to), the
//! large-type option for projectors, and the first-visit tour.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::TourState;

/// Class on the root element (`<html>`) that scales type and controls up.
pub const LARGE_TYPE_CLASS: &str = "large-type";
/// The root's class while presenting: the stage alone, in large type.
pub const PRESENTING_CLASS: &str = "presenting";

/// State of the page tools, shared by the buttons, the overlay and the shortcut.
#[derive(Clone, Copy)]
pub struct Tools {
    pub help_open: RwSignal<bool>,
    pub large_type: RwSignal<bool>,
    /// Presenter mode: the stage alone (no side panels), in large type.
    pub presenting: RwSignal<bool>,
    /// What had the focus when help opened: it gets it back on close.
    opener: StoredValue<Option<web_sys::HtmlElement>, LocalStorage>,
    /// Large type as it was before presenting.
    large_before: StoredValue<bool>,
    /// The first-visit tour (its header button restarts it).
    pub tour: TourState,
}

impl Tools {
    /// Makes the tools and keeps the root's class in step with the large-type option
    /// (for this visit only: nothing is stored).
    pub fn new() -> Self {
        let tools = Self {
            help_open: RwSignal::new(false),
            large_type: RwSignal::new(false),
            presenting: RwSignal::new(false),
            opener: StoredValue::new_local(None),
            large_before: StoredValue::new(false),
            tour: TourState::new(),
        };
        let large = tools.large_type;
        Effect::new(move |_| set_root_class(LARGE_TYPE_CLASS, large.get()));
        let presenting = tools.presenting;
        Effect::new(move |_| set_root_class(PRESENTING_CLASS, presenting.get()));
        tools
    }

    /// Presenter mode on or off. Large type comes with it; leaving puts back the type
    /// size the page had before.
    pub fn toggle_presenting(&self) {
        let on = !self.presenting.get_untracked();
        if on {
            self.large_before.set_value(self.large_type.get_untracked());
            self.large_type.set(true);
        } else {
            self.large_type.set(self.large_before.get_value());
        }
        self.presenting.set(on);
    }

    pub fn open_help(&self) {
        if self.help_open.get_untracked() {
            return;
        }
        let active = document()
            .active_element()
            .and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok());
        self.opener.set_value(active);
        self.help_open.set(true);
    }

    pub fn close_help(&self) {
        if !self.help_open.get_untracked() {
            return;
        }
        self.help_open.set(false);
        if let Some(el) = self.opener.get_value() {
            // Back where the reader was (after the overlay is hidden).
            request_animation_frame(move || {
                let _ = el.focus();
            });
        }
    }
}

impl Default for Tools {
    fn default() -> Self {
        Self::new()
    }
}

/// Adds or removes `class` on the document's root element.
fn set_root_class(class: &str, on: bool) {
    let Some(root) = document().document_element() else {
        return;
    };
    let current = root.class_name();
    let mut classes: Vec<&str> = current.split_whitespace().filter(|c| *c != class).collect();
    if on {
        classes.push(class);
    }
    root.set_class_name(&classes.join(" "));
}
