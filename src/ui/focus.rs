//! Moving the keyboard's focus to an element of the page by its id.

use leptos::prelude::document;
use wasm_bindgen::JsCast;

/// Focuses the element with id `id`, if the page has one that can take the focus.
pub fn focus_id(id: &str) {
    if let Some(el) = document()
        .get_element_by_id(id)
        .and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = el.focus();
    }
}
