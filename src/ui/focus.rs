//! Moving the keyboard's focus to an element of the page by its id, or back into a part
//! of the page whose button went away under it.

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

/// When the focus was lost (the button that had it went away, and the browser put it on
/// the page's body) or waits on `root` itself, puts it on the first element under `root`
/// that matches `selector` and can take it (not disabled, not hidden), else on `root`
/// itself (which then needs a `tabindex`). A focus anywhere else is left alone.
pub fn refocus_if_lost(root: &web_sys::Element, selector: &str) {
    // The root itself holds the focus only while waiting for something to put it on.
    let lost = document().active_element().is_none_or(|a| {
        a.is_same_node(document().body().as_deref().map(AsRef::as_ref))
            || a.is_same_node(Some(root.as_ref()))
    });
    if !lost {
        return;
    }
    let Ok(found) = root.query_selector_all(selector) else {
        return;
    };
    let usable = (0..found.length())
        .filter_map(|i| found.item(i))
        .filter_map(|n| n.dyn_into::<web_sys::HtmlElement>().ok())
        .find(|el| !el.has_attribute("disabled") && !el.hidden() && el.offset_parent().is_some());
    if let Some(el) = usable.or_else(|| root.clone().dyn_into::<web_sys::HtmlElement>().ok()) {
        let _ = el.focus();
    }
}
