//! Files in and out of the page, with no server: the scenario saved as JSON and opened
//! again (from a file picker or dropped on the page), the series as CSV, the chart as PNG.
//! Downloads are made from memory (a `blob:` or `data:` address), so nothing leaves the
//! browser.

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Blob, BlobPropertyBag, HtmlAnchorElement, HtmlCanvasElement, Url};

use crate::i18n::{locale, td_string};
use crate::model::files::{check_size, file_name, open_scenario, scenario_file, series_csv};
use crate::model::import::{import_file, ImportKind};
use crate::model::interview::Interview;
use crate::model::words::Words;
use crate::state::Lab;

impl Lab {
    /// Downloads the scenario with the user's commands, as the runner reads it. Not while
    /// an interview's fault waits to be revealed: the file, JSON in plain text, would show
    /// it to whoever is at the page (a link carries it deflated, out of sight).
    pub fn save_scenario(&self) {
        if self.interview.with_untracked(Interview::keeps_secret) {
            self.error.set(Some(Words::new(|lang| {
                td_string!(locale(lang), panels.files.save_secret).to_string()
            })));
            return;
        }
        let (name, mut text) = self.with_player(|p| (file_name(p, "json"), scenario_file(p)));
        if let Some(scenario) = self.with_aggregated(|a| a.scenario().clone()) {
            // The aggregated run's own scenario (its player only holds the components).
            text = serde_json::to_string_pretty(&scenario).expect("a scenario serializes") + "\n";
        }
        self.report_download(download_text(&name, "application/json", &text));
    }

    /// Downloads the series so far, in the columns of `brokerlab run --csv`.
    pub fn export_csv(&self) {
        let (name, text) = self.with_player(|p| (file_name(p, "csv"), series_csv(p)));
        self.report_download(download_text(&name, "text/csv", &text));
    }

    /// Downloads the chart as it is drawn (its frame and its curves, on white).
    pub fn export_png(&self) {
        let name = self.with_player(|p| file_name(p, "png"));
        self.report_download(chart_png().and_then(|url| download_url(&name, &url)));
    }

    /// Opens a scenario file: checked like a share link; a refusal is said in one sentence
    /// (in the page's language) and the run on show stays.
    pub fn open_file(&self, file: web_sys::File) {
        let lab = *self;
        if let Err(message) = check_size(&file.name(), file.size()) {
            lab.error.set(Some(message));
            return;
        }
        leptos::task::spawn_local(async move {
            let text = wasm_bindgen_futures::JsFuture::from(file.text()).await;
            let opened = text
                .ok()
                .and_then(|t| t.as_string())
                .ok_or_else(|| {
                    let name = file.name();
                    Words::new(move |lang| {
                        td_string!(locale(lang), panels.files.not_text, name = &name).to_string()
                    })
                })
                .and_then(|t| {
                    match brokerlab_core::Scenario::from_json(&t) {
                        Ok(s) if crate::model::aggregated::runs_aggregated(&s) => {
                            // An aggregated run: computed as flows, no player to replay.
                            lab.open_aggregated(s).map(|()| None).map_err(|e| {
                                Words::new(move |lang| {
                                    let problem = e.text_in(lang);
                                    td_string!(locale(lang), panels.files.refused, problem)
                                        .to_string()
                                })
                            })
                        }
                        _ => open_scenario(&t).map(Some),
                    }
                });
            match opened {
                Ok(None) => lab.take_faults(),
                Ok(Some(player)) => {
                    lab.open_player(player);
                    lab.take_faults();
                }
                Err(message) => lab.error.set(Some(message)),
            }
        });
    }

    /// Imports a RabbitMQ definitions file or a Kafka description: the scenario opens
    /// paused at its start with the import's notes beside it; a refusal is said in one
    /// sentence and the run on show stays.
    pub fn import_file(&self, kind: ImportKind, file: web_sys::File) {
        let lab = *self;
        if let Err(message) = check_size(&file.name(), file.size()) {
            lab.error.set(Some(message));
            return;
        }
        leptos::task::spawn_local(async move {
            // Bytes, not text: the importer reads (and refuses) what is not UTF-8 itself.
            let read = wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await;
            let imported = read
                .map(|buffer| js_sys::Uint8Array::new(&buffer).to_vec())
                .map_err(|_| {
                    let name = file.name();
                    Words::new(move |lang| {
                        td_string!(locale(lang), panels.files.unreadable, name = &name).to_string()
                    })
                })
                .and_then(|bytes| import_file(kind, &bytes, lab.lang.get_untracked()));
            match imported {
                Ok((player, notes)) => {
                    lab.open_player(player);
                    lab.take_faults();
                    lab.import_notes.set(Some(notes));
                }
                Err(message) => lab.error.set(Some(message)),
            }
        });
    }

    /// Offers `bytes` as a file named `name` (a picture, a recording made in the page).
    pub fn offer_bytes(&self, name: &str, mime: &str, bytes: &[u8]) {
        self.report_download(download_bytes(name, mime, bytes));
    }

    /// Offers what `url` (a `data:` address) holds as a file named `name`.
    pub fn offer_url(&self, name: &str, url: &str) {
        self.report_download(download_url(name, url));
    }

    fn report_download(&self, done: Result<(), JsValue>) {
        if done.is_err() {
            self.error.set(Some(Words::new(|lang| {
                td_string!(locale(lang), panels.files.download_refused).to_string()
            })));
        }
    }
}

/// Offers `text` as a file named `name`.
fn download_text(name: &str, mime: &str, text: &str) -> Result<(), JsValue> {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let options = BlobPropertyBag::new();
    options.set_type(mime);
    let blob = Blob::new_with_str_sequence_and_options(&parts, &options)?;
    let url = Url::create_object_url_with_blob(&blob)?;
    let done = download_url(name, &url);
    Url::revoke_object_url(&url)?;
    done
}

/// Offers `bytes` as a file named `name`.
fn download_bytes(name: &str, mime: &str, bytes: &[u8]) -> Result<(), JsValue> {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let options = BlobPropertyBag::new();
    options.set_type(mime);
    let blob = Blob::new_with_u8_array_sequence_and_options(&parts, &options)?;
    let url = Url::create_object_url_with_blob(&blob)?;
    let done = download_url(name, &url);
    Url::revoke_object_url(&url)?;
    done
}

/// Offers what `url` (a `blob:` or `data:` address) holds as a file named `name`.
fn download_url(name: &str, url: &str) -> Result<(), JsValue> {
    let document = document();
    let link: HtmlAnchorElement = document.create_element("a")?.unchecked_into();
    link.set_href(url);
    link.set_download(name);
    link.click();
    Ok(())
}

/// The chart's two layers (frame, then curves) drawn on white, as a PNG `data:` address.
fn chart_png() -> Result<String, JsValue> {
    let layer = |id: &str| -> Result<HtmlCanvasElement, JsValue> {
        document()
            .query_selector(&format!("canvas[data-testid={id}]"))?
            .ok_or_else(|| JsValue::from_str("no chart"))
            .map(JsCast::unchecked_into)
    };
    let (frame, curves) = (layer("chart-frame")?, layer("chart")?);
    let canvas: HtmlCanvasElement = document().create_element("canvas")?.unchecked_into();
    canvas.set_width(curves.width());
    canvas.set_height(curves.height());
    let context: web_sys::CanvasRenderingContext2d = canvas
        .get_context("2d")?
        .ok_or_else(|| JsValue::from_str("no 2d context"))?
        .unchecked_into();
    context.set_fill_style_str("#ffffff");
    context.fill_rect(
        0.0,
        0.0,
        f64::from(canvas.width()),
        f64::from(canvas.height()),
    );
    context.draw_image_with_html_canvas_element(&frame, 0.0, 0.0)?;
    context.draw_image_with_html_canvas_element(&curves, 0.0, 0.0)?;
    canvas.to_data_url_with_type("image/png")
}
