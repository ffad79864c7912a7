//! If the page panics, the wasm module is dead: say so on the page instead of leaving it
//! frozen or blank. The panel is built with plain DOM calls (text only, no HTML parsing)
//! because nothing of the app is left to render it.

pub const PANEL_ID: &str = "error-panel";

/// Logs panics to the console and shows them on the page.
pub fn install() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        show(&info.to_string());
    }));
}

/// Shows `message` in an error panel at the top of the page (replacing an earlier one).
#[cfg(target_arch = "wasm32")]
pub fn show(message: &str) {
    // Best effort: a failure here must not panic again.
    let _ = try_show(message);
}

#[cfg(target_arch = "wasm32")]
use crate::i18n::{self, td_string};
#[cfg(target_arch = "wasm32")]
use brokerlab_core::lessons::Lang;

#[cfg(target_arch = "wasm32")]
fn try_show(message: &str) -> Option<()> {
    let document = web_sys::window()?.document()?;
    let body = document.body()?;
    if let Some(old) = document.get_element_by_id(PANEL_ID) {
        old.remove();
    }
    let panel = document.create_element("section").ok()?;
    panel.set_id(PANEL_ID);
    panel.set_class_name("error-panel");
    panel.set_attribute("role", "alert").ok()?;
    panel.set_attribute("data-testid", PANEL_ID).ok()?;
    // The reactive page may be gone: the language is read from what it last set on <html>.
    let lang = document
        .document_element()
        .and_then(|html| html.get_attribute("lang"))
        .and_then(|code| Lang::from_code(&code))
        .unwrap_or_default();
    let title = td_string!(i18n::locale(lang), common.panic.title).to_string();
    let text = td_string!(i18n::locale(lang), common.panic.text).to_string();
    for (tag, text) in [
        ("h2", title.as_str()),
        ("p", text.as_str()),
        ("pre", message),
    ] {
        let el = document.create_element(tag).ok()?;
        el.set_text_content(Some(text));
        panel.append_child(&el).ok()?;
    }
    body.insert_before(&panel, body.first_child().as_ref())
        .ok()?;
    Some(())
}

#[cfg(not(target_arch = "wasm32"))]
pub fn show(message: &str) {
    eprintln!("Broker Lab stopped: {message}");
}
