//! Broker Lab's web page: a Leptos (client-side) view over the `brokerlab-core` simulation.
//!
//! Three layers, dependencies pointing one way (ui → state → model → core; see
//! docs/architecture.md): [`model`] is plain data and logic — the [`model::player::Player`]
//! owns the simulation and turns wall-clock frames into simulated time; [`state::Lab`]
//! keeps it outside the reactive graph and publishes memoised snapshots; the [`ui`]
//! components read them and call the lab's commands. [`format`] writes numbers and times.

pub mod format;
pub mod i18n;
pub mod model;
pub mod state;
pub mod ui;

use wasm_bindgen::JsCast;

/// The element the page mounts into (its placeholder content is replaced).
pub const ROOT_ID: &str = "app";

/// Installs the panic panel and mounts the page into `#app` (or the body).
pub fn mount() {
    ui::panic_panel::install();
    let document = leptos::prelude::document();
    let root = document
        .get_element_by_id(ROOT_ID)
        .and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok());
    match root {
        Some(root) => {
            root.set_text_content(None);
            leptos::mount::mount_to(root, ui::app::App).forget();
        }
        None => leptos::mount::mount_to_body(ui::app::App),
    }
}
