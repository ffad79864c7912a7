//! The backlog chart on two stacked canvases: the frame (grid, labels, legend), redrawn only
//! when the axes or the size change, and the curves above it, redrawn when a sample arrives
//! or the run restarts (see `chart` for why). Each canvas's backing store matches its CSS
//! size times the device pixel ratio, so lines and text stay sharp on high-DPI screens.

use leptos::prelude::*;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use crate::chart::{self, Axes};
use crate::lab::Lab;
use crate::readout::{count, seconds};

/// The device pixel ratio, sanitised.
fn pixel_ratio() -> f64 {
    let ratio = window().device_pixel_ratio();
    if ratio.is_finite() && ratio > 0.0 {
        ratio
    } else {
        1.0
    }
}

/// Sizes the canvas's backing store to its displayed size (which clears it, if it changes).
/// None when it is not laid out (hidden): nothing to draw on.
fn fit(canvas: &HtmlCanvasElement, ratio: f64) -> Option<(u32, u32)> {
    let width = (f64::from(canvas.client_width()) * ratio).round() as u32;
    let height = (f64::from(canvas.client_height()) * ratio).round() as u32;
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
type FrameKey = (Axes, (u32, u32));

/// Redraws the curves, and the frame if its key changed. Returns the frame's key.
fn draw(
    lab: Lab,
    frame: &HtmlCanvasElement,
    curves: &HtmlCanvasElement,
    drawn: Option<FrameKey>,
) -> Result<Option<FrameKey>, String> {
    let ratio = pixel_ratio();
    let data = lab.with_player(|p| p.chart_data());
    let axes = Axes::of(&data);
    let Some(frame_size) = fit(frame, ratio) else {
        return Ok(drawn);
    };
    let key = (axes, frame_size);
    if drawn != Some(key) {
        chart::draw_frame(&backend(frame)?.into_drawing_area(), axes, ratio)
            .map_err(|e| e.to_string())?;
    }
    if fit(curves, ratio).is_some() {
        clear(curves)?;
        chart::draw_curves(&backend(curves)?.into_drawing_area(), &data, axes, ratio)
            .map_err(|e| e.to_string())?;
    }
    Ok(Some(key))
}

/// A text equivalent of the chart, for screen readers.
fn describe(lab: Lab) -> String {
    let r = lab.readout.get();
    format!(
        "Backlog over simulated time: {} messages waiting at {}. The dashed line is the fluid prediction.",
        count(r.backlog),
        seconds(r.time_s)
    )
}

/// The dashed line's value at the current time, rounded (for tests and tools).
fn predicted_now(lab: Lab) -> String {
    let _ = lab.prediction_key.get();
    let now = lab.readout.with(|r| r.time_s);
    lab.with_player(|p| format!("{:.0}", p.predicted_at(now)))
}

#[component]
pub fn BacklogChart(lab: Lab) -> impl IntoView {
    let frame = NodeRef::<leptos::html::Canvas>::new();
    let curves = NodeRef::<leptos::html::Canvas>::new();
    let resized = RwSignal::new(0_u32);
    let listener = window_event_listener(leptos::ev::resize, move |_| {
        resized.update(|n| *n = n.wrapping_add(1))
    });
    on_cleanup(move || listener.remove());

    Effect::new(move |drawn: Option<Option<FrameKey>>| {
        // Read (not just track) the memo, so it is computed and can signal its changes.
        let _samples = lab.chart_key.get();
        // A setting change redraws the prediction at once, even paused.
        let _prediction = lab.prediction_key.get();
        resized.track();
        let drawn = drawn.flatten();
        let (Some(frame), Some(curves)) = (frame.get(), curves.get()) else {
            return drawn;
        };
        draw(lab, &frame, &curves, drawn).unwrap_or_else(|e| {
            lab.error
                .set(Some(format!("The chart could not be drawn: {e}")));
            drawn
        })
    });

    view! {
        <figure class="panel chart">
            <h2 id="chart-title">"Backlog"</h2>
            <div class="plot">
                <canvas node_ref=frame data-testid="chart-frame" aria-hidden="true"></canvas>
                <canvas node_ref=curves data-testid="chart" role="img" aria-label=move || describe(lab)
                    data-predicted-now=move || predicted_now(lab)></canvas>
            </div>
            <figcaption>
                "Dashed: the fluid prediction, where the backlog grows by arrivals λ minus capacity μ each second."
            </figcaption>
        </figure>
    }
}
