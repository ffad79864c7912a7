//! The **Files** menu: save the scenario (with the user's commands) and open one, export
//! the series as CSV and the chart as PNG, copy the code that embeds this moment in another
//! page; save a picture of the whole stage, record part of the run as an animated GIF
//! (see [`crate::ui::record`]); import a real setup (a RabbitMQ definitions file, a Kafka description). A
//! scenario file can also be dropped anywhere on the page.

use leptos::html::Main;
use leptos::prelude::*;
use leptos_use::{
    use_drop_zone_with_options, use_event_listener, use_window, UseDropZoneEvent,
    UseDropZoneOptions,
};
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;

use crate::i18n::{t, t_string, use_i18n};
use crate::model::import::ImportKind;
use crate::state::share::copy_embed_code;
use crate::state::Lab;
use crate::ui::compare::CompareTool;
use crate::ui::focus::focus_id;
use crate::ui::record::{save_stage_png, RecordForm, Recorder};

#[component]
pub fn FileMenu(lab: Lab) -> impl IntoView {
    let i18n = use_i18n();
    let notice = RwSignal::new(false);
    let recorder = Recorder::new();
    let comparing = RwSignal::new(false);
    let menu = NodeRef::<leptos::html::Details>::new();
    let button = NodeRef::<leptos::html::Summary>::new();
    // Each choice closes the menu, so it does not stay open over the stage.
    let close = move || {
        if let Some(menu) = menu.get_untracked() {
            menu.set_open(false);
        }
    };
    // Escape closes the menu, or else the form it opened, and gives the focus back to the
    // menu's button, as Escape does for the help (whose dialog keeps its keys to itself).
    let _ = use_event_listener(use_window(), leptos::ev::keydown, move |ev| {
        if ev.key() != "Escape" {
            return;
        }
        let menu_open = menu.get_untracked().is_some_and(|m| m.open());
        if menu_open {
            close();
        } else if comparing.get_untracked() {
            comparing.set(false);
        } else if !recorder.close() {
            return;
        }
        ev.prevent_default();
        if let Some(button) = button.get_untracked() {
            let _ = button.focus();
        }
    });
    let on_pick = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        if let Some(file) = input.files().and_then(|files| files.get(0)) {
            lab.open_file(file);
        }
        // The same file picked again must still count as a choice.
        input.set_value("");
        close();
    };
    let on_import = move |kind: ImportKind| {
        move |ev: leptos::ev::Event| {
            let input: HtmlInputElement = event_target(&ev);
            if let Some(file) = input.files().and_then(|files| files.get(0)) {
                lab.import_file(kind, file);
            }
            input.set_value("");
            close();
        }
    };
    view! {
        <div class="files-wrap">
        <details class="files" node_ref=menu data-testid="files">
            <summary node_ref=button title=move || t_string!(i18n, panels.files.menu_title)>{t!(i18n, panels.files.menu)}</summary>
            <div class="files-menu" role="group" aria-label=move || t_string!(i18n, panels.files.menu)>
                <button type="button" data-testid="save-scenario"
                    on:click=move |_| { lab.save_scenario(); close(); }
                    title=move || t_string!(i18n, panels.files.save_title)>
                    {t!(i18n, panels.files.save)}
                </button>
                <label class="file-pick" title=move || t_string!(i18n, panels.files.open_title)>
                    {t!(i18n, panels.files.open)}
                    <input type="file" accept=".json,application/json" data-testid="open-scenario"
                        class="sr-only" on:change=on_pick />
                </label>
                <label class="file-pick" title=move || t_string!(i18n, panels.files.import_rabbitmq_title)>
                    {t!(i18n, panels.files.import_rabbitmq)}
                    <input type="file" accept=".json,application/json" data-testid="import-rabbitmq"
                        class="sr-only" on:change=on_import(ImportKind::Rabbitmq) />
                </label>
                <label class="file-pick" title=move || t_string!(i18n, panels.files.import_kafka_title)>
                    {t!(i18n, panels.files.import_kafka)}
                    <input type="file" accept=".json,application/json" data-testid="import-kafka"
                        class="sr-only" on:change=on_import(ImportKind::Kafka) />
                </label>
                <button type="button" data-testid="export-csv"
                    on:click=move |_| { lab.export_csv(); close(); }
                    title=move || t_string!(i18n, panels.files.csv_title)>
                    {t!(i18n, panels.files.csv)}
                </button>
                <button type="button" data-testid="export-png"
                    on:click=move |_| { lab.export_png(); close(); }
                    title=move || t_string!(i18n, panels.files.png_title)>
                    {t!(i18n, panels.files.png)}
                </button>
                <button type="button" data-testid="export-stage-png"
                    on:click=move |_| { close(); save_stage_png(lab); }
                    title=move || t_string!(i18n, panels.record.menu_stage_png_title)>
                    {t!(i18n, panels.record.menu_stage_png)}
                </button>
                <button type="button" data-testid="record-open"
                    on:click=move |_| {
                        recorder.show(lab);
                        close();
                        // The menu that held the focus is folded: the form's first field
                        // takes it, once the form is on the page.
                        request_animation_frame(|| focus_id("record-from"));
                    }
                    title=move || t_string!(i18n, panels.record.open_title)>
                    {t!(i18n, panels.record.open)}
                </button>
                <button type="button" data-testid="compare-open"
                    aria-expanded=move || comparing.get().to_string()
                    on:click=move |_| {
                        comparing.update(|o| *o = !*o);
                        close();
                        if comparing.get_untracked() {
                            request_animation_frame(|| focus_id("compare-setting"));
                        }
                    }
                    title=move || t_string!(i18n, panels.compare.open_title)>
                    {t!(i18n, panels.compare.open)}
                </button>
                <button type="button" data-testid="copy-embed"
                    on:click=move |_| { copy_embed_code(lab, notice); close(); }
                    title=move || t_string!(i18n, panels.files.embed_title)>
                    {t!(i18n, panels.files.embed)}
                </button>
            </div>
        </details>
        <RecordForm lab recorder />
        <CompareTool lab open=comparing />
        <span class="share-notice" role="status" data-testid="files-notice">
            {move || notice.get().then(|| t_string!(i18n, panels.files.embed_copied))}
        </span>
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
