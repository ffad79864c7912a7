//! The tour's state in the page: open or closed and at which step, whether it opens by
//! itself (the model decides, from the page's query and the seen flag), and the flag kept
//! in the browser's local storage once the tour is skipped or done. Storage that is
//! missing or refuses (private modes, blocked cookies) is not an error: the tour then
//! simply shows once per visit.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::model::tour::{opens_on_load, Moved, Tour, SEEN_KEY, SEEN_VALUE};

/// The tour's state, shared by the header button and the tour card.
#[derive(Clone, Copy)]
pub struct TourState {
    pub tour: RwSignal<Tour>,
    /// What had the focus when the tour was restarted: it gets it back on close.
    opener: StoredValue<Option<web_sys::HtmlElement>, LocalStorage>,
}

impl TourState {
    /// Open at the first step on a first visit, closed otherwise.
    pub fn new() -> Self {
        let query = window().location().search().unwrap_or_default();
        let open = opens_on_load(&query, read_seen().as_deref());
        Self {
            tour: RwSignal::new(if open {
                Tour::started()
            } else {
                Tour::default()
            }),
            opener: StoredValue::new_local(None),
        }
    }

    /// Starts the tour again from its first step (the header's button).
    pub fn restart(&self) {
        let active = document()
            .active_element()
            .and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok());
        self.opener.set_value(active);
        self.tour.set(Tour::started());
    }

    pub fn next(&self) {
        self.apply(Tour::forward);
    }

    pub fn back(&self) {
        self.apply(Tour::back);
    }

    pub fn skip(&self) {
        if self.tour.with_untracked(Tour::is_open) {
            self.apply(Tour::skip);
        }
    }

    fn apply(&self, go: fn(&mut Tour) -> Moved) {
        let mut moved = Moved::Closed;
        self.tour.update(|t| moved = go(t));
        if moved == Moved::Closed {
            remember_seen();
            // Back where the reader was, once the card is gone; after the first visit's
            // tour (nothing opened it) to the header's Tour button, where it can be had
            // again, rather than to the page's start.
            let back_to = self.opener.get_value().or_else(tour_button);
            if let Some(el) = back_to {
                request_animation_frame(move || {
                    let _ = el.focus();
                });
            }
            self.opener.set_value(None);
        }
    }
}

/// The header's button that starts the tour again.
fn tour_button() -> Option<web_sys::HtmlElement> {
    document()
        .query_selector("[data-testid=tour-button]")
        .ok()
        .flatten()
        .and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok())
}

impl Default for TourState {
    fn default() -> Self {
        Self::new()
    }
}

/// The seen flag, if local storage is there and has one.
fn read_seen() -> Option<String> {
    let storage = window().local_storage().ok().flatten()?;
    storage.get_item(SEEN_KEY).ok().flatten()
}

/// Marks the tour seen; does nothing if local storage is unavailable.
fn remember_seen() {
    if let Some(storage) = window().local_storage().ok().flatten() {
        let _ = storage.set_item(SEEN_KEY, SEEN_VALUE);
    }
}
