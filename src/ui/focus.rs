//! Moving the keyboard's focus to an element of the page by its id, or back into a part
//! of the page whose button went away under it; and scrolling an element into view in the
//! box that scrolls it.

use leptos::prelude::document;
use wasm_bindgen::JsCast;

use crate::model::lesson::scroll_to_show;

/// Focuses the element with id `id`, if the page has one that can take the focus.
pub fn focus_id(id: &str) {
    if let Some(el) = document()
        .get_element_by_id(id)
        .and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = el.focus();
    }
}

/// Scrolls the box around the first element matching `selector` (its nearest ancestor
/// that scrolls, up to the page itself, which is left alone) just enough to show it.
/// Presenting, a tall topology scrolls in its own box, and the card a lesson step names
/// could sit below its edge.
pub fn scroll_into_its_box(selector: &str) {
    let Some(target) = document().query_selector(selector).ok().flatten() else {
        return;
    };
    let mut parent = target.parent_element();
    while let Some(el) = parent {
        if el.is_same_node(document().document_element().as_deref().map(AsRef::as_ref)) {
            return;
        }
        if el.scroll_height() > el.client_height() + 1 && scrolls(&el) {
            let (view, at) = (
                el.get_bounding_client_rect(),
                target.get_bounding_client_rect(),
            );
            // What of the box is on screen: presenting at 1280×720 its foot sits below
            // the window's (the page scrolls a little for the chart's).
            let screen = web_sys::window()
                .and_then(|w| w.inner_height().ok())
                .and_then(|h| h.as_f64())
                .unwrap_or(f64::INFINITY);
            let shown = (view.top().max(0.0), view.bottom().min(screen));
            let delta = scroll_to_show(shown, (at.top(), at.bottom()));
            // Whole pixels, away from zero: a card's edges fall between them.
            let delta = if delta > 0.0 {
                delta.ceil()
            } else {
                delta.floor()
            };
            el.set_scroll_top(el.scroll_top() + delta as i32);
            return;
        }
        parent = el.parent_element();
    }
}

/// Whether `el`'s style lets it scroll vertically.
fn scrolls(el: &web_sys::Element) -> bool {
    web_sys::window()
        .and_then(|w| w.get_computed_style(el).ok().flatten())
        .and_then(|s| s.get_property_value("overflow-y").ok())
        .is_some_and(|o| o == "auto" || o == "scroll")
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
