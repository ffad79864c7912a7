//! Broker Lab's web page: a Leptos (client-side) view over the `brokerlab-core` simulation.
//!
//! Data flows one way: the [`player::Player`] owns the simulation and turns wall-clock
//! frames into simulated time; [`lab::Lab`] keeps it outside the reactive graph and
//! publishes snapshots; the components read snapshots and call the lab's commands.

pub mod app;
pub mod backlog_chart;
pub mod chart;
pub mod chart_info;
pub mod controls;
pub mod counters;
pub mod database;
pub mod flights;
pub mod fluid;
pub mod groups;
pub mod help;
pub mod invariants;
pub mod lab;
pub mod lineage;
pub mod narration;
pub mod panic_panel;
pub mod parameters;
pub mod player;
pub mod readout;
pub mod seed;
pub mod timeline;
pub mod tokens;
pub mod topology;

use wasm_bindgen::JsCast;

/// The element the page mounts into (its placeholder content is replaced).
pub const ROOT_ID: &str = "app";

/// Installs the panic panel and mounts the page into `#app` (or the body).
pub fn mount() {
    panic_panel::install();
    let document = leptos::prelude::document();
    let root = document
        .get_element_by_id(ROOT_ID)
        .and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok());
    match root {
        Some(root) => {
            root.set_text_content(None);
            leptos::mount::mount_to(root, app::App).forget();
        }
        None => leptos::mount::mount_to_body(app::App),
    }
}
