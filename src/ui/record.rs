//! **Record a run** and **a picture of the stage**, from the Files menu. A recording plays
//! the run over the chosen range, one frame every `1/fps` simulated seconds (see
//! [`crate::model::recording`]), draws the stage after each ([`Picture`]) and encodes it at
//! once: one frame per animation frame, so the page stays responsive and shows its
//! progress. At the end the GIF is downloaded and the run goes back where it was, paused.

use brokerlab_core::lessons::Lang;
use leptos::prelude::*;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

use crate::i18n::{locale, t, t_string, td_string, use_i18n};
use crate::model::files::stamped_name;
use crate::model::flights::FLIGHT_MS;
use crate::model::recording::{
    name_seconds, GifWriter, Plan, DEFAULT_LENGTH_S, FPS_DEFAULT, FRAMES_MAX,
};
use crate::model::words::Words;
use crate::state::Lab;
use crate::ui::stage_picture::{Fit, Picture};

/// The form's fields and what a recording in progress shows.
#[derive(Clone, Copy)]
pub struct Recorder {
    pub open: RwSignal<bool>,
    from: RwSignal<String>,
    to: RwSignal<String>,
    fps: RwSignal<String>,
    /// Frame being recorded and frame count, while recording.
    progress: RwSignal<Option<(usize, usize)>>,
    cancel: RwSignal<bool>,
    message: RwSignal<Option<Words>>,
}

impl Recorder {
    pub fn new() -> Self {
        Recorder {
            open: RwSignal::new(false),
            from: RwSignal::new("0".into()),
            to: RwSignal::new(name_seconds(DEFAULT_LENGTH_S)),
            fps: RwSignal::new(FPS_DEFAULT.to_string()),
            progress: RwSignal::new(None),
            cancel: RwSignal::new(false),
            message: RwSignal::new(None),
        }
    }

    /// Opens the form with the default range: the run's start to 20 s (or its end).
    pub fn show(&self, lab: Lab) {
        if self.progress.get_untracked().is_none() {
            let end = lab.timeline_end_s.get_untracked();
            self.from.set("0".into());
            // Written the way the page's language writes a decimal (6,5 in Spanish).
            let to = name_seconds(DEFAULT_LENGTH_S.min(end));
            let decimal = lab.lang.get_untracked().decimal().to_string();
            self.to.set(to.replace('.', &decimal));
            self.message.set(None);
        }
        self.open.set(true);
    }

    /// Closes the form unless a recording is under way (it has its own Cancel); whether
    /// it was open and is closed now.
    pub fn close(&self) -> bool {
        let closing = self.open.get_untracked() && self.progress.get_untracked().is_none();
        if closing {
            self.open.set(false);
        }
        closing
    }

    fn start(&self, lab: Lab) {
        if self.progress.get_untracked().is_some() {
            return;
        }
        let end = lab.timeline_end_s.get_untracked();
        match Plan::from_fields(
            &self.from.get_untracked(),
            &self.to.get_untracked(),
            &self.fps.get_untracked(),
            end,
            lab.lang.get_untracked(),
        ) {
            Ok(plan) => {
                let recorder = *self;
                self.message.set(None);
                self.cancel.set(false);
                self.progress.set(Some((0, plan.frames)));
                leptos::task::spawn_local(async move { recorder.run(lab, plan).await });
            }
            Err(refusal) => self.say(move |lang| refusal.text(lang)),
        }
    }

    fn say(&self, text: impl Fn(Lang) -> String + Send + Sync + 'static) {
        self.message.set(Some(Words::new(text)));
    }

    /// Records, downloads, and puts the run back where it was (paused).
    async fn run(self, lab: Lab, plan: Plan) {
        let was_at = lab.step_now();
        let outcome = self.record(lab, plan).await;
        // Another scenario on show has its own run: `was_at` was a step of the one recorded.
        if !matches!(outcome, Ok(Recorded::Changed)) {
            lab.return_to_step(was_at);
        }
        self.progress.set(None);
        match outcome {
            Ok(Recorded::Saved(name)) => {
                self.say(move |lang| {
                    td_string!(locale(lang), panels.record.done, name = &name).to_string()
                });
            }
            Ok(Recorded::Cancelled) => {
                self.say(|lang| td_string!(locale(lang), panels.record.cancelled).to_string())
            }
            Ok(Recorded::Changed) => {
                self.say(|lang| td_string!(locale(lang), panels.record.changed).to_string())
            }
            Err(_) => self.say(|lang| td_string!(locale(lang), panels.record.failed).to_string()),
        }
    }

    /// The frames of `plan`, encoded one per animation frame, and offered as a file; it
    /// stops if cancelled, or if another scenario (or this one edited) is put on show
    /// meanwhile: the frames would not all be of the same run.
    async fn record(&self, lab: Lab, plan: Plan) -> Result<Recorded, JsValue> {
        let recorded = lab.base.get_untracked();
        let changed = move || lab.base.with_untracked(|now| *now != recorded);
        lab.seek(plan.from_s);
        while lab.seeking.get_untracked().is_some() {
            next_frame().await?;
        }
        next_frame().await?;
        let picture = Picture::of_stage(Fit::Recording)?;
        let size = |v: u32| u16::try_from(v).map_err(|_| JsValue::from_str("too large"));
        let mut gif = GifWriter::new(
            size(picture.width())?,
            size(picture.height())?,
            plan.delay_cs(),
        )
        .map_err(|e| JsValue::from_str(&e.to_string()))?;
        // Tokens are drawn on their way, as the page shows them at one simulated second
        // per second (a flight lasts FLIGHT_MS), not all still at their start.
        let pause_ms = (1_000.0 / f64::from(plan.fps)).min(FLIGHT_MS / 2.0);
        for k in 0..plan.frames {
            if self.cancel.get_untracked() {
                return Ok(Recorded::Cancelled);
            }
            if changed() {
                return Ok(Recorded::Changed);
            }
            self.progress.set(Some((k + 1, plan.frames)));
            if k > 0 {
                lab.play_to(plan.time_of(k));
                wait_ms(pause_ms).await?;
            }
            next_frame().await?;
            if changed() {
                return Ok(Recorded::Changed);
            }
            picture.draw()?;
            gif.add(&picture.rgba()?)
                .map_err(|e| JsValue::from_str(&e.to_string()))?;
        }
        let bytes = gif
            .finish()
            .map_err(|e| JsValue::from_str(&e.to_string()))?;
        let stamp = format!(
            "{}-{}s",
            name_seconds(plan.from_s),
            name_seconds(plan.time_of(plan.frames - 1))
        );
        let name = lab.with_player(|p| stamped_name(p, &stamp, "gif"));
        lab.offer_bytes(&name, "image/gif", &bytes);
        Ok(Recorded::Saved(name))
    }
}

/// How a recording ended.
enum Recorded {
    /// Offered as a file of this name.
    Saved(String),
    Cancelled,
    /// Another scenario was put on show while recording: nothing is offered.
    Changed,
}

impl Default for Recorder {
    fn default() -> Self {
        Self::new()
    }
}

/// Downloads a picture of the whole stage as it is now.
pub fn save_stage_png(lab: Lab) {
    let stamp = format!("{}s", name_seconds(lab.now_s()));
    let name = lab.with_player(|p| stamped_name(p, &stamp, "png"));
    let picture = Picture::of_stage(Fit::Screen);
    match picture.and_then(|p| p.draw().and_then(|()| p.png_url())) {
        Ok(url) => lab.offer_url(&name, &url),
        Err(_) => lab.error.set(Some(Words::new(|lang| {
            td_string!(locale(lang), panels.record.failed).to_string()
        }))),
    }
}

/// Resolves at the next animation frame (after the page has drawn what changed).
async fn next_frame() -> Result<(), JsValue> {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = window().request_animation_frame(&resolve);
    });
    JsFuture::from(promise).await.map(|_| ())
}

/// Resolves after `ms` milliseconds of wall-clock time.
async fn wait_ms(ms: f64) -> Result<(), JsValue> {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = window()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms.round() as i32);
    });
    JsFuture::from(promise).await.map(|_| ())
}

/// The small form that starts a recording, and its progress.
#[component]
pub fn RecordForm(lab: Lab, recorder: Recorder) -> impl IntoView {
    let i18n = use_i18n();
    let busy = move || recorder.progress.get().is_some();
    let field =
        |value: RwSignal<String>| move |ev: leptos::ev::Event| value.set(event_target_value(&ev));
    view! {
        <Show when=move || recorder.open.get()>
        <section class="record-form" data-testid="record-form" role="dialog"
            aria-label=move || t_string!(i18n, panels.record.title)>
            <h2>{t!(i18n, panels.record.title)}</h2>
            <div class="record-fields">
                <label>{t!(i18n, panels.record.from)}
                    <input type="text" inputmode="decimal" autocomplete="off" id="record-from" data-testid="record-from" disabled=busy
                        prop:value=move || recorder.from.get() on:input=field(recorder.from) />
                </label>
                <label>{t!(i18n, panels.record.to)}
                    <input type="text" inputmode="decimal" autocomplete="off" data-testid="record-to" disabled=busy
                        prop:value=move || recorder.to.get() on:input=field(recorder.to) />
                </label>
                <label>{t!(i18n, panels.record.fps)}
                    <input type="text" inputmode="numeric" autocomplete="off" data-testid="record-fps" disabled=busy
                        prop:value=move || recorder.fps.get() on:input=field(recorder.fps) />
                </label>
            </div>
            <p class="hint">{move || t_string!(i18n, panels.record.hint, max = FRAMES_MAX)}</p>
            <div class="record-actions">
                <button type="button" data-testid="record-start" disabled=busy
                    on:click=move |_| recorder.start(lab)>{t!(i18n, panels.record.start)}</button>
                <Show when=busy>
                    <button type="button" data-testid="record-cancel"
                        on:click=move |_| recorder.cancel.set(true)>{t!(i18n, panels.record.cancel)}</button>
                </Show>
                <button type="button" data-testid="record-close" disabled=busy
                    on:click=move |_| recorder.open.set(false)>{t!(i18n, panels.record.close)}</button>
            </div>
            <p role="status" data-testid="record-progress">
                {move || recorder.progress.get().map(|(k, n)| t_string!(i18n, panels.record.progress, k, n))}
            </p>
            <p role="status" data-testid="record-message">
                {move || recorder.message.get().map(|w| w.text(lab.lang.get()))}
            </p>
        </section>
        </Show>
    }
}
