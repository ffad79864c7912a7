//! The **Files** menu: save the scenario (with the user's commands) and open one, export
//! the series as CSV and the chart as PNG, copy the code that embeds this moment in another
//! page. A scenario file can also be dropped anywhere on the page.

use leptos::html::Main;
use leptos::prelude::*;
use leptos_use::{use_drop_zone_with_options, UseDropZoneEvent, UseDropZoneOptions};
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;

use crate::state::share::copy_embed_code;
use crate::state::Lab;

#[component]
pub fn FileMenu(lab: Lab) -> impl IntoView {
    let notice = RwSignal::new(None::<&'static str>);
    let menu = NodeRef::<leptos::html::Details>::new();
    // Each choice closes the menu, so it does not stay open over the stage.
    let close = move || {
        if let Some(menu) = menu.get_untracked() {
            menu.set_open(false);
        }
    };
    let on_pick = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        if let Some(file) = input.files().and_then(|files| files.get(0)) {
            lab.open_file(file);
        }
        // The same file picked again must still count as a choice.
        input.set_value("");
        close();
    };
    view! {
        <div class="files-wrap">
        <details class="files" node_ref=menu data-testid="files">
            <summary title="Save or open a scenario file, export the series or the chart, embed this moment">"Files"</summary>
            <div class="files-menu" role="group" aria-label="Files">
                <button type="button" data-testid="save-scenario"
                    on:click=move |_| { lab.save_scenario(); close(); }
                    title="A JSON scenario file with your crashes and changes: open it here again, or run it with brokerlab run">
                    "Save scenario (.json)"
                </button>
                <label class="file-pick" title="Open a scenario file saved from Broker Lab or written by hand (you can also drop it on the page)">
                    "Open scenario…"
                    <input type="file" accept=".json,application/json" data-testid="open-scenario"
                        class="sr-only" on:change=on_pick />
                </label>
                <button type="button" data-testid="export-csv"
                    on:click=move |_| { lab.export_csv(); close(); }
                    title="The series so far, in the columns of brokerlab run --csv">
                    "Export series (.csv)"
                </button>
                <button type="button" data-testid="export-png"
                    on:click=move |_| { lab.export_png(); close(); }
                    title="The chart as it is drawn now">
                    "Export chart (.png)"
                </button>
                <button type="button" data-testid="copy-embed"
                    on:click=move |_| { copy_embed_code(lab, notice); close(); }
                    title="An iframe that shows only the stage at this moment, for slides or a course page">
                    "Copy embed code"
                </button>
            </div>
        </details>
        <span class="share-notice" role="status" data-testid="files-notice">{move || notice.get()}</span>
        </div>
    }
}

/// Opens a scenario file dropped anywhere on `zone`; says so while one is dragged over it.
pub fn use_file_drop(lab: Lab, zone: NodeRef<Main>) -> Signal<bool> {
    let on_drop = move |dropped: UseDropZoneEvent| {
        if let Some(file) = dropped.files.into_iter().next() {
            lab.open_file(file);
        }
    };
    use_drop_zone_with_options(zone, UseDropZoneOptions::default().on_drop(on_drop))
        .is_over_drop_zone
}

/// The element an event came from, as the type the caller expects.
fn event_target<T: JsCast>(ev: &leptos::ev::Event) -> T {
    ev.target()
        .expect("a change comes from an element")
        .unchecked_into()
}
