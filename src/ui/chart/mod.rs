//! The backlog chart on two stacked canvases: the frame (grid, labels, legend), redrawn only
//! when the axes or the size change, and the curves above it, redrawn when a sample arrives
//! or the run restarts (see `chart` for why). Each canvas's backing store matches its CSS
//! size times the device pixel ratio, so lines and text stay sharp on high-DPI screens.
//!
//! Around the canvases, as page text: the load factor ρ now, the legend, and a readout of
//! the values at the pointer's time (or at the current time, with the keyboard focus on
//! the chart) beside a line at that time.

use leptos::prelude::*;
use leptos_use::{use_device_pixel_ratio, use_event_listener, use_resize_observer, use_window};
use plotters::prelude::{IntoDrawingArea, RGBColor};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

pub mod draw;

use brokerlab_core::lessons::Lang;

use crate::format::{count, seconds};
use crate::i18n::{locale, t, t_string, td_string, use_i18n};
use crate::model::arrival::Part;
use crate::model::chart_info::{describe, fluid_count, ChartData, CrashMarker, Rho, Values};
use crate::model::concealed::ChartConcealed;
use crate::model::fluid::Load;
use crate::model::glossary;
use crate::model::words::Words;
use crate::state::arrival::Arrival;
use crate::state::Lab;
use crate::ui::term::Term;
use crate::ui::type_scale::type_scale;
use draw::{concealed_lines, shown_lines, Axes, Line, LineStyle, Mark, CRASH_COLOR, LINES};

/// A device pixel ratio, sanitised.
fn sane_ratio(ratio: f64) -> f64 {
    if ratio.is_finite() && ratio > 0.0 {
        ratio
    } else {
        1.0
    }
}

/// Sizes the canvas's backing store to its displayed size (which clears it, if it changes).
/// None when it is not laid out (hidden): nothing to draw on.
fn fit(canvas: &HtmlCanvasElement, css: (f64, f64), ratio: f64) -> Option<(u32, u32)> {
    let width = (css.0 * ratio).round() as u32;
    let height = (css.1 * ratio).round() as u32;
    if width == 0 || height == 0 {
        return None;
    }
    if canvas.width() != width {
        canvas.set_width(width);
    }
    if canvas.height() != height {
        canvas.set_height(height);
    }
    Some((width, height))
}

fn backend(canvas: &HtmlCanvasElement) -> Result<CanvasBackend, String> {
    CanvasBackend::with_canvas_object(canvas.clone())
        .ok_or_else(|| "the canvas has no 2D context".into())
}

fn clear(canvas: &HtmlCanvasElement) -> Result<(), String> {
    let context = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
        .ok_or("the canvas has no 2D context")?;
    context.clear_rect(
        0.0,
        0.0,
        f64::from(canvas.width()),
        f64::from(canvas.height()),
    );
    Ok(())
}

/// What the frame layer shows: when it changes, the frame is redrawn.
/// (axes, crash markers, backing size, drawing scale as bits, language of the labels).
type FrameKey = (Axes, Vec<CrashMarker>, (u32, u32), u64, Lang);

/// What one draw learnt that the page's text around the canvas needs.
#[derive(Clone, Debug, PartialEq)]
struct Drawn {
    frame: FrameKey,
    lines: Vec<Line>,
    fitted: Fitted,
}

/// The canvases as last fitted to their displayed size. Reading a displayed size forces
/// the browser to lay out the page in the middle of the frame's other updates (a visible
/// share of every frame while playing), so it is read again only after a resize or a
/// change of pixel ratio.
#[derive(Clone, Debug, PartialEq)]
struct Fitted {
    /// `Sizing::resized` and the pixel ratio (as bits) when fitted.
    resized: u32,
    ratio: u64,
    /// Backing sizes; `None` while a canvas is not laid out (hidden).
    frame: Option<(u32, u32)>,
    curves: Option<(u32, u32)>,
    /// The curves canvas's CSS size.
    css: (f64, f64),
}

impl Fitted {
    /// `previous` if it still holds for `resized` and `ratio`, else the canvases fitted anew.
    fn of(
        previous: Option<&Fitted>,
        canvases: (&HtmlCanvasElement, &HtmlCanvasElement),
        resized: u32,
        ratio: f64,
    ) -> Fitted {
        match previous {
            Some(f) if f.resized == resized && f.ratio == ratio.to_bits() => f.clone(),
            _ => {
                // Both sizes are read before either canvas is resized: a read after a
                // write would force another layout.
                let css = |c: &HtmlCanvasElement| {
                    (f64::from(c.client_width()), f64::from(c.client_height()))
                };
                let (frame_css, curves_css) = (css(canvases.0), css(canvases.1));
                Fitted {
                    resized,
                    ratio: ratio.to_bits(),
                    frame: fit(canvases.0, frame_css, ratio),
                    curves: fit(canvases.1, curves_css, ratio),
                    css: curves_css,
                }
            }
        }
    }
}

/// The chart's input now: the run's, side B's backlog while comparing, without the
/// lines `hidden` names (a lesson's answer, while the learner predicts it).
fn data_to_draw(lab: Lab, hidden: ChartConcealed) -> ChartData {
    let mut data = lab.chart_data();
    if let Some(b) = lab.variant_lab() {
        data.variant_backlog = b.with_player(|p| p.chart_data().backlog);
    }
    data.conceal(hidden);
    data
}

/// Redraws the curves, and the frame if its key changed.
fn draw(
    data: &ChartData,
    frame: &HtmlCanvasElement,
    curves: &HtmlCanvasElement,
    drawn: Option<Drawn>,
    (ratio, resized): (f64, u32),
    text_scale: f64,
    lang: Lang,
) -> Result<Option<Drawn>, String> {
    let ratio = sane_ratio(ratio);
    // Backing pixels per CSS pixel stay the device's; text, margins and marks also grow
    // with the page's type.
    let scale = ratio * text_scale;
    let axes = Axes::of(data);
    let fitted = Fitted::of(
        drawn.as_ref().map(|d| &d.fitted),
        (frame, curves),
        resized,
        ratio,
    );
    let Some(frame_size) = fitted.frame else {
        return Ok(drawn);
    };
    let key = (
        axes,
        data.crashes.clone(),
        frame_size,
        scale.to_bits(),
        lang,
    );
    if drawn.as_ref().map(|d| &d.frame) != Some(&key) {
        draw::draw_frame(
            &backend(frame)?.into_drawing_area(),
            axes,
            &data.crashes,
            scale,
            lang,
        )
        .map_err(|e| e.to_string())?;
    }
    if fitted.curves.is_some() {
        clear(curves)?;
        draw::draw_curves(&backend(curves)?.into_drawing_area(), data, axes, scale)
            .map_err(|e| e.to_string())?;
    }
    Ok(Some(Drawn {
        frame: key,
        lines: shown_lines(data),
        fitted,
    }))
}

/// `#rrggbb` for a plotters colour.
fn hex(c: RGBColor) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// A small picture of a line as the canvas draws it: colour, dash and mark.
#[component]
fn Swatch(style: &'static LineStyle) -> impl IntoView {
    let color = hex(style.color);
    let dash = style
        .dash
        .map(|(d, g)| format!("{d} {g}"))
        .unwrap_or_default();
    let mark = match style.mark {
        Mark::None => ().into_any(),
        Mark::Triangle => {
            view! { <polygon points="18,2 23,11 13,11" fill=color.clone() /> }.into_any()
        }
        Mark::Square => {
            view! { <rect x="14" y="3" width="8" height="8" fill=color.clone() /> }.into_any()
        }
        Mark::Ring => view! {
            <circle cx="18" cy="7" r="4" fill="none" stroke=color.clone() stroke-width="2" />
        }
        .into_any(),
    };
    view! {
        <svg class="swatch" viewBox="0 0 36 14" width="36" height="14" aria-hidden="true">
            <line x1="1" y1="7" x2="35" y2="7" stroke=color.clone() stroke-width=style.width
                stroke-dasharray=dash />
            {mark}
        </svg>
    }
}

/// The crash marker's swatch: a dashed vertical line with a cross.
#[component]
fn CrashSwatch() -> impl IntoView {
    let color = hex(CRASH_COLOR);
    view! {
        <svg class="swatch" viewBox="0 0 36 14" width="36" height="14" aria-hidden="true">
            <line x1="10" y1="0" x2="10" y2="14" stroke=color.clone() stroke-width="2" stroke-dasharray="4 3" />
            <text x="14" y="11" font-size="11" fill=color>"✕"</text>
        </svg>
    }
}

/// The legend, as text: the lines drawn, the crash marker if any, what is left out while
/// zero, and what a lesson hides until its answer.
#[component]
fn Legend(
    lab: Lab,
    lines: Signal<Vec<Line>>,
    crashes: Signal<usize>,
    concealed: Memo<ChartConcealed>,
) -> impl IntoView {
    let i18n = use_i18n();
    let left_out = move || {
        let shown = lines.get();
        let hidden = concealed.get();
        let lang = lab.lang.get();
        let names: Vec<&str> = LINES
            .iter()
            .filter(|s| s.line.optional() && !s.line.is_rate() && !shown.contains(&s.line))
            .filter(|s| !s.line.concealed_by(&hidden))
            .map(|s| s.line.label(lang))
            .collect();
        (!names.is_empty()).then(|| {
            let names = names.join("; ");
            view! {
                <li class="legend-note" data-testid="chart-legend-note">
                    {t_string!(i18n, stage.chart.not_drawn, names).to_string()}
                </li>
            }
        })
    };
    view! {
        <ul class="chart-legend" data-testid="chart-legend" aria-label=move || t_string!(i18n, stage.chart.legend)>
            {move || {
                lines
                    .get()
                    .into_iter()
                    .map(|line| {
                        let style = line.style();
                        view! {
                            <li data-line=format!("{line:?}")>
                                <Swatch style />
                                {move || line.label(lab.lang.get())}
                            </li>
                        }
                    })
                    .collect_view()
            }}
            {move || {
                (crashes.get() > 0)
                    .then(|| view! { <li data-line="Crash"><CrashSwatch />{t!(i18n, stage.chart.crash_legend)}</li> })
            }}
            {left_out}
            {move || {
                let lang = lab.lang.get();
                let names: Vec<&str> = concealed_lines(&concealed.get())
                    .into_iter()
                    .map(|l| l.label(lang))
                    .collect();
                (!names.is_empty()).then(|| {
                    let names = names.join("; ");
                    view! {
                        <li class="legend-hidden" data-testid="chart-legend-hidden">
                            {t_string!(i18n, stage.chart.hidden_note, names).to_string()}
                        </li>
                    }
                })
            }}
        </ul>
    }
}

/// The load factor now, with what it means.
#[component]
fn RhoNote(lab: Lab, rho: Memo<Rho>, time_s: Signal<f64>) -> impl IntoView {
    let i18n = use_i18n();
    let state = move || match rho.get().load() {
        // ρ says it drains, but a dependency the consumers call is overloaded or failing.
        Some(_) if rho.get().strained() => "strained",
        None => "none",
        Some(Load::Grows) => "over",
        Some(Load::Edge) => "edge",
        Some(Load::Drains | Load::Idle) => "under",
    };
    view! {
        <p class="rho" data-testid="rho" data-state=state>
            <span class="rho-formula">
                <Term term=glossary::Term::Rho /> " = " <Term term=glossary::Term::Lambda /> "/"
                <Term term=glossary::Term::Mu /> " = "
                <strong data-testid="rho-value">{move || rho.get().value_text(lab.lang.get())}</strong>
            </span>
            " "
            <span class="rho-rates" data-testid="rho-rates">
                {move || {
                    let rates = rho.get().rates_text(lab.lang.get());
                    t_string!(i18n, stage.chart.rates_at, rates, t = seconds(time_s.get(), lab.lang.get())).to_string()
                }}
            </span>
            " "
            // Its tooltip is gone too while a lesson hides the verdict (the page's rule
            // covers the text with "?").
            <span class="rho-hint" data-testid="rho-hint"
                title=move || (!lab.verdict_concealed()).then(|| rho.get().hint(lab.lang.get()))>
                {move || rho.get().hint(lab.lang.get())}
            </span>
        </p>
    }
}

/// The hover readout: the values at the pointer's time (or now, with the keyboard focus on
/// the chart), beside a line at that time.
#[component]
fn HoverReadout(
    lab: Lab,
    values: Memo<Option<Values>>,
    place: Memo<Option<Place>>,
) -> impl IntoView {
    let i18n = use_i18n();
    let row = |line: Line,
               testid: &'static str,
               name: fn(Lang) -> &'static str,
               text: Box<dyn Fn(&Values) -> String + Send + Sync>| {
        view! {
            <li>
                <Swatch style=line.style() />
                {move || name(lab.lang.get())}
                " "
                <strong data-testid=testid>
                    {move || values.get().map(|v| text(&v)).unwrap_or_default()}
                </strong>
            </li>
        }
    };
    let box_style = move || {
        place.get().map_or_else(String::new, |p| {
            let side = if p.flip {
                format!("right: calc(100% - {:.1}px + 0.6rem);", p.x)
            } else {
                format!("left: calc({:.1}px + 0.6rem);", p.x)
            };
            // Below the crash labels' first rows, so a label near the line stays readable.
            format!("{side} top: calc({:.1}px + 2.6rem);", p.top)
        })
    };
    let line_style = move || {
        place.get().map_or_else(String::new, |p| {
            format!(
                "left: {:.1}px; top: {:.1}px; height: {:.1}px;",
                p.x,
                p.top,
                (p.bottom - p.top).max(0.0)
            )
        })
    };
    view! {
        <div class="hover-line" aria-hidden="true" data-testid="chart-hover-line"
            hidden=move || values.get().is_none() style=line_style></div>
        <div class="chart-hover" id="chart-hover" data-testid="chart-hover"
            hidden=move || values.get().is_none() style=box_style>
            <p class="chart-hover-time">
                <strong data-testid="hover-time">{move || values.get().map(|v| seconds(v.t_s, lab.lang.get())).unwrap_or_default()}</strong>
                {move || values.get().filter(|v| v.now).map(|_| t_string!(i18n, stage.chart.now))}
            </p>
            <ul>
                {row(Line::Backlog, "hover-backlog", |l| td_string!(locale(l), stage.chart.hover_waiting), Box::new(move |v| count(v.backlog, lab.lang.get())))}
                {row(Line::Prediction, "hover-predicted", |l| td_string!(locale(l), stage.chart.hover_predicted),
                    Box::new(move |v| fluid_count(v.predicted, lab.lang.get())))}
                {row(Line::InFlight, "hover-in-flight", |l| td_string!(locale(l), stage.chart.hover_in_flight), Box::new(move |v| count(v.in_flight, lab.lang.get())))}
                {row(Line::DeadLettered, "hover-dlq", |l| td_string!(locale(l), stage.chart.hover_dlq), Box::new(move |v| count(v.dead_lettered, lab.lang.get())))}
                {row(Line::OldestAge, "hover-oldest", |l| td_string!(locale(l), stage.chart.hover_oldest), Box::new(move |v| seconds(v.oldest_age_s, lab.lang.get())))}
            </ul>
        </div>
    }
}

/// Where the hover line and readout go, in CSS pixels within the plot.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Place {
    x: f64,
    top: f64,
    bottom: f64,
    /// The readout goes left of the line (the line is in the right part of the chart).
    flip: bool,
}

/// The dashed line's value at the current time, rounded (for tests and tools); empty
/// while a lesson hides the line.
fn predicted_now(lab: Lab, concealed: Memo<ChartConcealed>) -> String {
    if concealed.get().prediction {
        return String::new();
    }
    let _ = lab.prediction_key.get();
    let now = lab.readout.with(|r| r.time_s);
    format!("{:.0}", lab.predicted_at(now))
}

/// The goodput line's last value (empty without a dependency), for tests and tools.
fn goodput_now(lab: Lab) -> String {
    let _ = lab.readout.with(|r| r.time_s);
    lab.goodput_now()
        .map(|g| format!("{g:.0}"))
        .unwrap_or_default()
}

/// Side B's backlog now, while comparing (empty otherwise), for tests and tools.
fn variant_backlog_now(lab: Lab) -> String {
    let b = lab.compare.with(|c| c.as_ref().map(|c| c.b));
    b.map(|b| b.readout.with(|r| r.backlog.to_string()))
        .unwrap_or_default()
}

/// What makes the chart redraw besides new data: the plot's size and the device pixel
/// ratio.
#[derive(Clone, Copy)]
struct Sizing {
    /// Bumped when the plot was resized or the window changed size.
    resized: RwSignal<u32>,
    /// The device pixel ratio (a zoom changes it without changing CSS sizes).
    ratio: Signal<f64>,
    /// The plot's CSS size as last drawn.
    size: RwSignal<(f64, f64)>,
    /// The page's type scale as last drawn (large type draws larger text and margins).
    text_scale: RwSignal<f64>,
}

/// Watches the plot's size (ResizeObserver), the window's size and the device pixel
/// ratio. The hooks are removed with the component.
fn watch_size(plot: NodeRef<leptos::html::Div>) -> Sizing {
    let resized = RwSignal::new(0_u32);
    let bump = move || resized.update(|n| *n = n.wrapping_add(1));
    let _ = use_event_listener(use_window(), leptos::ev::resize, move |_| bump());
    // The observer also reports the first layout: redraw only when the size really changed
    // from what was drawn (a redraw is not free, and the page may be playing).
    let size = RwSignal::new((0.0_f64, 0.0_f64));
    use_resize_observer(plot, move |entries, _| {
        let changed = entries.iter().any(|e| {
            let rect = e.content_rect();
            let now = size.get_untracked();
            (rect.width() - now.0).abs() >= 0.5 || (rect.height() - now.1).abs() >= 0.5
        });
        if changed {
            bump();
        }
    });
    Sizing {
        resized,
        ratio: use_device_pixel_ratio(),
        size,
        text_scale: RwSignal::new(1.0),
    }
}

/// What was last drawn, for the legend and the hover: the time axis's span and the lines.
#[derive(Clone, Copy)]
struct Shown {
    x_max: RwSignal<f64>,
    lines: RwSignal<Vec<Line>>,
}

/// The two canvases: the frame below, the curves above.
#[derive(Clone, Copy)]
struct Canvases {
    frame: NodeRef<leptos::html::Canvas>,
    curves: NodeRef<leptos::html::Canvas>,
}

/// Redraws the chart when a sample arrives, the prediction or the crashes change, or the
/// plot is resized; then notes what was drawn in `shown` and `sizing.size`.
fn redraw_on_change(
    lab: Lab,
    canvases: Canvases,
    crashes: Memo<Vec<CrashMarker>>,
    concealed: Memo<ChartConcealed>,
    sizing: Sizing,
    shown: Shown,
    due: Memo<bool>,
) {
    Effect::new(move |drawn: Option<Option<Drawn>>| {
        if !due.get() {
            return None;
        }
        // Read (not just track) the memo, so it is computed and can signal its changes.
        let _samples = lab.chart_key.get();
        // A setting change redraws the prediction at once, even paused.
        let _prediction = lab.prediction_key.get();
        let resized = sizing.resized.get();
        let ratio = sizing.ratio.get();
        let text_scale = type_scale();
        if sizing.text_scale.get_untracked() != text_scale {
            sizing.text_scale.set(text_scale);
        }
        crashes.track();
        // A lesson's step hides lines, or shows them again at its reveal.
        let hidden = concealed.get();
        // Comparing starts or stops: B's line comes or goes.
        lab.compare.track();
        let lang = lab.lang.get();
        let drawn = drawn.flatten();
        let (Some(frame), Some(curves)) = (canvases.frame.get(), canvases.curves.get()) else {
            return drawn;
        };
        let result = draw(
            &data_to_draw(lab, hidden),
            &frame,
            &curves,
            drawn.clone(),
            (ratio, resized),
            text_scale,
            lang,
        )
        .unwrap_or_else(|e| {
            let error = e.to_string();
            lab.error.set(Some(Words::new(move |lang| {
                td_string!(locale(lang), stage.chart.error, error = &error).to_string()
            })));
            drawn
        });
        if let Some(d) = &result {
            let now = d.fitted.css;
            if sizing.size.get_untracked() != now {
                sizing.size.set(now);
            }
            if shown.x_max.get_untracked() != d.frame.0.x_max_s {
                shown.x_max.set(d.frame.0.x_max_s);
            }
            if shown.lines.with_untracked(|l| l != &d.lines) {
                shown.lines.set(d.lines.clone());
            }
        }
        result
    });
}

/// The values the readout shows: at the pointer's time, or now while the chart has the
/// keyboard focus; none otherwise.
fn hover_values(
    lab: Lab,
    pointer_t: RwSignal<Option<f64>>,
    focused: RwSignal<bool>,
) -> Memo<Option<Values>> {
    Memo::new(move |_| {
        lab.readout.track();
        match (pointer_t.get(), focused.get()) {
            (Some(t), _) => Some(lab.chart_values_at(t)),
            (None, true) => Some(lab.chart_values_now()),
            (None, false) => None,
        }
    })
}

/// Where the hover line and readout go for the values shown.
fn hover_place(values: Memo<Option<Values>>, sizing: Sizing, shown: Shown) -> Memo<Option<Place>> {
    Memo::new(move |_| {
        let v = values.get()?;
        let (width, height) = sizing.size.get();
        let scale = sizing.text_scale.get();
        let x = draw::x_of(v.t_s, width, shown.x_max.get(), scale);
        let (_, ys) = draw::plot_area(width.round() as u32, height.round() as u32, scale);
        Some(Place {
            x,
            top: f64::from(ys.start),
            bottom: f64::from(ys.end),
            flip: x > width * 0.55,
        })
    })
}

/// The chart in words, for screen readers: the values now, the lines shown and those a
/// lesson hides.
fn chart_description(
    lab: Lab,
    lines: RwSignal<Vec<Line>>,
    crashes: Memo<Vec<CrashMarker>>,
    concealed: Memo<ChartConcealed>,
) -> impl Fn() -> String + Send + Sync + 'static {
    move || {
        lab.readout.track();
        let lang = lab.lang.get();
        let shown: Vec<String> = lines
            .get()
            .into_iter()
            .map(|l| format!("{}, {}", l.label(lang), l.looks(lang)))
            .collect();
        let shown: Vec<&str> = shown.iter().map(String::as_str).collect();
        let hidden = concealed.get();
        let names: Vec<&str> = concealed_lines(&hidden)
            .into_iter()
            .map(|l| l.label(lang))
            .collect();
        crashes.with(|c| describe(&lab.chart_values_now(), &shown, (&hidden, &names), c, lang))
    }
}

/// The backlog chart. On the first screen it gets the page's `arrival`: the chart is
/// mounted in one part and first drawn in the next (`Part::Drawing`), each a task of its
/// own.
#[component]
pub fn BacklogChart(lab: Lab, #[prop(optional)] arrival: Option<Arrival>) -> impl IntoView {
    let canvases = Canvases {
        frame: NodeRef::new(),
        curves: NodeRef::new(),
    };
    let (frame, curves) = (canvases.frame, canvases.curves);
    let plot = NodeRef::<leptos::html::Div>::new();
    let sizing = watch_size(plot);
    let shown = Shown {
        x_max: RwSignal::new(1.0_f64),
        lines: RwSignal::new(Vec::<Line>::new()),
    };
    let lines = shown.lines;
    let crashes = Memo::new(move |_| {
        lab.readout.track();
        lab.crash_markers()
    });
    let crash_count = Signal::derive(move || crashes.with(Vec::len));
    // What a lesson's step hides while it asks (a line of the run once the run stands
    // at the moment asked about: the readout's time tells).
    let concealed = Memo::new(move |_| {
        lab.readout.track();
        lab.chart_concealed()
    });
    // A memo, so the parts arriving after the drawing's do not redraw the chart.
    let due = Memo::new(move |_| arrival.is_none_or(|a| a.has(Part::Drawing)));
    redraw_on_change(lab, canvases, crashes, concealed, sizing, shown, due);

    // The pointer's time on the axis while it is over the chart; the keyboard focus.
    let pointer_t = RwSignal::new(None::<f64>);
    let focused = RwSignal::new(false);
    let values = hover_values(lab, pointer_t, focused);
    let place = hover_place(values, sizing, shown);
    let point = move |ev: &web_sys::PointerEvent| {
        let width = curves.get_untracked().map_or(0, |c| c.client_width());
        let t = draw::time_at(
            f64::from(ev.offset_x()),
            f64::from(width),
            shown.x_max.get_untracked(),
            sizing.text_scale.get_untracked(),
        );
        pointer_t.set(Some(t));
    };
    let rho = lab.rho;
    let time_s = Signal::derive(move || lab.readout.with(|r| r.time_s));
    let description = chart_description(lab, lines, crashes, concealed);
    let i18n = use_i18n();

    view! {
        <figure class="panel chart">
            <div class="chart-head">
                <h2 id="chart-title">{t!(i18n, stage.chart.title)}</h2>
                <RhoNote lab rho time_s />
            </div>
            <Legend lab lines=lines.into() crashes=crash_count concealed />
            <div class="plot" node_ref=plot tabindex="0" aria-labelledby="chart-title"
                aria-describedby="chart-hover" data-testid="chart-plot"
                on:focus=move |_| focused.set(true)
                on:blur=move |_| focused.set(false)>
                <canvas node_ref=frame data-testid="chart-frame" aria-hidden="true"
                    data-age-axis=move || if concealed.get().age_axis() { "shown" } else { "hidden" }></canvas>
                <canvas node_ref=curves data-testid="chart" role="img" aria-label=description
                    data-drawn=move || (sizing.size.get() != (0.0, 0.0)).to_string()
                    data-crash-markers=move || crash_count.get().to_string()
                    data-text-scale=move || format!("{:.3}", sizing.text_scale.get())
                    data-backlog-now=move || lab.readout.with(|r| r.backlog.to_string())
                    data-predicted-now=move || predicted_now(lab, concealed)
                    data-goodput-now=move || goodput_now(lab)
                    data-variant-backlog-now=move || variant_backlog_now(lab)
                    on:pointermove=move |ev| point(&ev)
                    on:pointerdown=move |ev| point(&ev)
                    // A finger lifting also "leaves": keep its readout until the next touch.
                    on:pointerleave=move |ev| {
                        if ev.pointer_type() != "touch" {
                            pointer_t.set(None);
                        }
                    }
                    on:pointercancel=move |_| pointer_t.set(None)></canvas>
                <HoverReadout lab values place />
            </div>
            // Read by screen readers only (the stage hides it from sight): plain symbols,
            // not focusable terms, or Tab would stop twice on nothing visible. The
            // symbols' definitions are in the ρ note above the chart.
            <figcaption>
                {t!(i18n, stage.chart.caption_dashed)} {move || glossary::Term::Lambda.word(lab.lang.get())}
                {t!(i18n, stage.chart.caption_minus)} {move || glossary::Term::Mu.word(lab.lang.get())} {t!(i18n, stage.chart.caption_each)}
                {t!(i18n, stage.chart.caption_point)}
            </figcaption>
        </figure>
    }
}
