//! The backlog chart, as plain functions over any plotters backend: the page draws it on
//! canvases, the native tests draw it to SVG. Sizes are in CSS pixels times `scale` (the
//! device pixel ratio), so a canvas can have one backing pixel per screen pixel.
//!
//! It is drawn in two layers. The frame (background, grid, both axes with their labels, the
//! crash markers with theirs) needs text measured, which in a browser forces a page layout
//! per label, so the page draws it only when the axes, the crashes or the size change. The
//! curves are drawn on a layer above, as often as samples arrive; they measure no text.
//! Both layers place the plot identically, because the label areas have fixed sizes. The
//! legend is on the page (text, beside the canvas), drawn from [`LINES`].
//!
//! Counts (backlog, prediction, in flight, dead-lettered) use the left axis; the oldest
//! message's age, in seconds, uses the right one. Every line differs from the others by
//! colour and by dash or marker shape, so it reads without colour vision too.

use std::ops::Range;

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use brokerlab_core::lessons::Lang;

use crate::format::{axis_seconds, short_count};
use crate::i18n::{locale, td_string};
use crate::model::chart_info::ChartData;
use crate::model::chart_info::{label_rows, CrashMarker};
use crate::model::concealed::ChartConcealed;

/// The simulated backlog: a solid line over a light fill.
pub const BACKLOG_COLOR: RGBColor = RGBColor(29, 78, 216);
/// The fluid prediction: a dashed line.
pub const PREDICTION_COLOR: RGBColor = RGBColor(194, 65, 12);
/// Messages in flight: a thin line with triangles (bluish green).
pub const IN_FLIGHT_COLOR: RGBColor = RGBColor(0, 122, 90);
/// Copies in dead-letter queues: a thin line with squares (reddish purple).
pub const DEAD_LETTER_COLOR: RGBColor = RGBColor(170, 51, 119);
/// The oldest waiting message's age, on the right axis: dotted, with rings (slate).
pub const AGE_COLOR: RGBColor = RGBColor(55, 65, 81);
/// Goodput, useful completions per second: a thick line with rings (sky blue).
pub const GOODPUT_COLOR: RGBColor = RGBColor(2, 132, 199);
/// Throughput, handler attempts per second: a dashed line (amber): above goodput it is
/// wasted work.
pub const THROUGHPUT_COLOR: RGBColor = RGBColor(180, 83, 9);
/// Crash markers: dashed vertical lines labelled "name ✕" (dark red).
/// Compare mode's side B backlog.
pub const VARIANT_COLOR: RGBColor = RGBColor(13, 148, 136);
pub const CRASH_COLOR: RGBColor = RGBColor(185, 28, 28);
const AXIS_COLOR: RGBColor = RGBColor(71, 85, 105);
const GRID_BOLD: RGBColor = RGBColor(203, 213, 225);
const GRID_LIGHT: RGBColor = RGBColor(241, 245, 249);
const NOW_COLOR: RGBColor = RGBColor(100, 116, 139);
const TEXT_COLOR: RGBColor = RGBColor(30, 41, 59);
const FONT: &str = "sans-serif";

// The plot's place in CSS pixels: fixed, so both layers and the hover agree on it.
const MARGIN_TOP: f64 = 14.0;
const MARGIN_RIGHT: f64 = 8.0;
const MARGIN_LEFT: f64 = 8.0;
const MARGIN_BOTTOM: f64 = 6.0;
const X_LABEL_AREA: f64 = 48.0;
const Y_LABEL_AREA: f64 = 72.0;
const RIGHT_LABEL_AREA: f64 = 64.0;
/// Crash labels: font size, and rows they may stack in when crashes are close together.
const CRASH_FONT: f64 = 14.0;
const CRASH_ROWS: usize = 4;
/// About this many markers (triangles, squares, rings) along a line.
const MARKS_PER_LINE: usize = 14;

type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;
type DrawResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// The chart's lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Line {
    Backlog,
    /// Compare mode: side B's backlog (drawn only while comparing).
    VariantBacklog,
    Prediction,
    InFlight,
    DeadLettered,
    OldestAge,
    /// Useful completions per second (scenarios with a dependency).
    Goodput,
    /// Handler attempts per second, retries included (scenarios with a dependency).
    Throughput,
}

/// The shape repeated along a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    None,
    Triangle,
    Square,
    Ring,
}

/// How a line looks: the canvas draws it, the page's legend shows a swatch of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LineStyle {
    pub line: Line,
    pub color: RGBColor,
    /// Stroke width in CSS pixels.
    pub width: f64,
    /// Dash and gap lengths in CSS pixels; `None` is a solid line.
    pub dash: Option<(f64, f64)>,
    pub mark: Mark,
    /// Measured on the right axis (seconds) instead of the left one (messages).
    pub right_axis: bool,
}

/// Every line, in legend order.
pub const LINES: [LineStyle; 8] = [
    LineStyle {
        line: Line::Backlog,
        color: BACKLOG_COLOR,
        width: 3.0,
        dash: None,
        mark: Mark::None,
        right_axis: false,
    },
    LineStyle {
        line: Line::VariantBacklog,
        color: VARIANT_COLOR,
        width: 3.0,
        dash: Some((10.0, 5.0)),
        mark: Mark::None,
        right_axis: false,
    },
    LineStyle {
        line: Line::Prediction,
        color: PREDICTION_COLOR,
        width: 2.0,
        dash: Some((8.0, 6.0)),
        mark: Mark::None,
        right_axis: false,
    },
    LineStyle {
        line: Line::InFlight,
        color: IN_FLIGHT_COLOR,
        width: 2.0,
        dash: None,
        mark: Mark::Triangle,
        right_axis: false,
    },
    LineStyle {
        line: Line::DeadLettered,
        color: DEAD_LETTER_COLOR,
        width: 2.0,
        dash: None,
        mark: Mark::Square,
        right_axis: false,
    },
    LineStyle {
        line: Line::OldestAge,
        color: AGE_COLOR,
        width: 2.0,
        dash: Some((2.0, 4.0)),
        mark: Mark::Ring,
        right_axis: true,
    },
    LineStyle {
        line: Line::Goodput,
        color: GOODPUT_COLOR,
        width: 3.0,
        dash: None,
        mark: Mark::Ring,
        right_axis: false,
    },
    LineStyle {
        line: Line::Throughput,
        color: THROUGHPUT_COLOR,
        width: 2.0,
        dash: Some((4.0, 3.0)),
        mark: Mark::Square,
        right_axis: false,
    },
];

/// The order the curves are drawn in, back to front.
const DRAW_ORDER: [Line; 8] = [
    Line::Throughput,
    Line::Goodput,
    Line::OldestAge,
    Line::DeadLettered,
    Line::InFlight,
    Line::Backlog,
    Line::VariantBacklog,
    Line::Prediction,
];

impl Line {
    pub fn style(self) -> &'static LineStyle {
        LINES.iter().find(|s| s.line == self).unwrap_or(&LINES[0])
    }

    /// Its name in the legend.
    pub fn label(self, lang: Lang) -> &'static str {
        let l = locale(lang);
        match self {
            Line::Backlog => td_string!(l, stage.chart.line_backlog),
            Line::VariantBacklog => td_string!(l, stage.chart.line_variant_backlog),
            Line::Prediction => td_string!(l, stage.chart.line_prediction),
            Line::InFlight => td_string!(l, stage.chart.line_in_flight),
            Line::DeadLettered => td_string!(l, stage.chart.line_dead_lettered),
            Line::OldestAge => td_string!(l, stage.chart.line_oldest_age),
            Line::Goodput => td_string!(l, stage.chart.line_goodput),
            Line::Throughput => td_string!(l, stage.chart.line_throughput),
        }
    }

    /// How to recognise it without seeing colour, for the text description.
    pub fn looks(self, lang: Lang) -> &'static str {
        let l = locale(lang);
        match self {
            Line::Backlog => td_string!(l, stage.chart.looks_backlog),
            Line::VariantBacklog => td_string!(l, stage.chart.looks_variant_backlog),
            Line::Prediction => td_string!(l, stage.chart.looks_prediction),
            Line::InFlight => td_string!(l, stage.chart.looks_in_flight),
            Line::DeadLettered => td_string!(l, stage.chart.looks_dead_lettered),
            Line::OldestAge => td_string!(l, stage.chart.looks_oldest_age),
            Line::Goodput => td_string!(l, stage.chart.looks_goodput),
            Line::Throughput => td_string!(l, stage.chart.looks_throughput),
        }
    }

    pub fn points(self, data: &ChartData) -> &[(f64, f64)] {
        match self {
            Line::Backlog => &data.backlog,
            Line::VariantBacklog => &data.variant_backlog,
            Line::Prediction => &data.prediction,
            Line::InFlight => &data.in_flight,
            Line::DeadLettered => &data.dead_lettered,
            Line::OldestAge => &data.oldest_age_s,
            Line::Goodput => &data.goodput,
            Line::Throughput => &data.throughput,
        }
    }

    /// Left out while it is zero at every sample (see [`shown_lines`]).
    pub fn optional(self) -> bool {
        matches!(
            self,
            Line::InFlight | Line::DeadLettered | Line::Goodput | Line::Throughput
        )
    }

    /// A rate per second, drawn only for scenarios with a dependency (the legend does
    /// not list it as left out elsewhere).
    pub fn is_rate(self) -> bool {
        matches!(self, Line::Goodput | Line::Throughput)
    }

    /// Left out by `hidden`, while a lesson asks what it would read out.
    pub fn concealed_by(self, hidden: &ChartConcealed) -> bool {
        match self {
            Line::Backlog => hidden.backlog,
            Line::Prediction => hidden.prediction,
            Line::InFlight => hidden.in_flight,
            Line::DeadLettered => hidden.dead_lettered,
            Line::OldestAge => hidden.oldest_age,
            Line::VariantBacklog | Line::Goodput | Line::Throughput => false,
        }
    }
}

/// The lines `hidden` leaves out, in legend order.
pub fn concealed_lines(hidden: &ChartConcealed) -> Vec<Line> {
    LINES
        .iter()
        .map(|s| s.line)
        .filter(|l| l.concealed_by(hidden))
        .collect()
}

/// The lines drawn for `data`, in legend order.
///
/// Deliberately left out: the in-flight and dead-letter lines while they are zero at every
/// sample so far (most scenarios never dead-letter anything). A flat line along the axis
/// says nothing and crowds the legend; the legend names what it leaves out, the hover
/// readout still gives their values, and a line appears as soon as it is non-zero.
/// The backlog, the prediction and the age are always drawn: zero is news for them.
/// Not drawn either: the lines a lesson conceals while it asks what they read out.
pub fn shown_lines(data: &ChartData) -> Vec<Line> {
    LINES
        .iter()
        .map(|s| s.line)
        .filter(|l| !l.concealed_by(&data.concealed))
        .filter(|l| match l {
            // Drawn whenever there is a side B, zero or not: its flat line is the news.
            Line::VariantBacklog => !data.variant_backlog.is_empty(),
            l => !l.optional() || l.points(data).iter().any(|&(_, y)| y > 0.0),
        })
        .collect()
}

/// The ranges the chart shows: when they change, the frame must be redrawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Axes {
    pub x_max_s: f64,
    /// Top of the left (count) axis.
    pub y_max: f64,
    /// Top of the right (age, seconds) axis.
    pub age_max_s: f64,
    /// Whether the right axis is drawn (labels, ticks and name): not while the age line
    /// is left out (see [`ChartConcealed::age_axis`]).
    pub age_axis: bool,
}

impl Axes {
    /// The whole run's span, and the highest value of the count lines drawn rounded up with
    /// headroom; the same for the age on its own axis.
    pub fn of(data: &ChartData) -> Self {
        let peak = |lines: &mut dyn Iterator<Item = Line>| {
            lines
                .flat_map(|l| l.points(data).iter())
                .map(|&(_, y)| y)
                .filter(|y| y.is_finite())
                .fold(0.0, f64::max)
        };
        let shown = shown_lines(data);
        let counts = peak(&mut shown.iter().copied().filter(|l| !l.style().right_axis));
        let age = peak(&mut std::iter::once(Line::OldestAge));
        Self {
            x_max_s: data.x_max_s.max(1.0),
            y_max: nice_ceil(counts.max(10.0) * 1.1),
            age_max_s: nice_ceil((age * 1.1).max(1.0)),
            age_axis: data.concealed.age_axis(),
        }
    }
}

/// Rounds up to 1, 2, 2.5 or 5 times a power of ten.
fn nice_ceil(v: f64) -> f64 {
    let pow = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * pow)
        .find(|&c| c >= v)
        .unwrap_or(10.0 * pow)
}

/// Sizes in device pixels for a given scale.
#[derive(Clone, Copy)]
struct Px(f64);

impl Px {
    fn new(scale: f64) -> Self {
        Self(if scale.is_finite() && scale > 0.0 {
            scale
        } else {
            1.0
        })
    }
    fn of(self, css_px: f64) -> u32 {
        (css_px * self.0).round().max(1.0) as u32
    }
    fn text(self, css_px: f64) -> TextStyle<'static> {
        (FONT, css_px * self.0).into_font().color(&TEXT_COLOR)
    }
}

/// The plotting area (inside the axes) of a `width` × `height` drawing at `scale`, in its
/// pixels: what plotters computes from the same margins and label areas.
pub fn plot_area(width: u32, height: u32, scale: f64) -> (Range<i32>, Range<i32>) {
    let px = Px::new(scale);
    let at = |v: u32| i32::try_from(v).unwrap_or(i32::MAX);
    let left = at(px.of(MARGIN_LEFT) + px.of(Y_LABEL_AREA));
    let right = at(width.saturating_sub(px.of(MARGIN_RIGHT) + px.of(RIGHT_LABEL_AREA)));
    let top = at(px.of(MARGIN_TOP));
    let bottom = at(height.saturating_sub(px.of(MARGIN_BOTTOM) + px.of(X_LABEL_AREA)));
    (left..right.max(left), top..bottom.max(top))
}

/// Simulated time at `x` pixels from the left of a drawing `width` pixels wide whose text
/// and margins are drawn at `scale`: the hover's lookup. Clamped to the axis.
pub fn time_at(x: f64, width: f64, x_max_s: f64, scale: f64) -> f64 {
    let (xs, _) = plot_area(width.max(0.0).round() as u32, 1_000, scale);
    let span = f64::from(xs.end - xs.start);
    if span <= 0.0 || !x.is_finite() {
        return 0.0;
    }
    ((x - f64::from(xs.start)) / span).clamp(0.0, 1.0) * x_max_s
}

/// Where time `t_s` is, in pixels from the left of a drawing `width` pixels wide whose text
/// and margins are drawn at `scale`.
pub fn x_of(t_s: f64, width: f64, x_max_s: f64, scale: f64) -> f64 {
    let (xs, _) = plot_area(width.max(0.0).round() as u32, 1_000, scale);
    let share = if x_max_s > 0.0 { t_s / x_max_s } else { 0.0 };
    f64::from(xs.start) + share.clamp(0.0, 1.0) * f64::from(xs.end - xs.start)
}

/// The plot's coordinate system: the same on both layers (no size depends on text).
fn build<'a, DB: DrawingBackend>(
    root: &'a DrawingArea<DB, Shift>,
    axes: Axes,
    px: Px,
) -> Result<Chart<'a, DB>, DrawingAreaErrorKind<DB::ErrorType>> {
    ChartBuilder::on(root)
        .margin_top(px.of(MARGIN_TOP))
        .margin_right(px.of(MARGIN_RIGHT))
        .margin_left(px.of(MARGIN_LEFT))
        .margin_bottom(px.of(MARGIN_BOTTOM))
        .x_label_area_size(px.of(X_LABEL_AREA))
        .y_label_area_size(px.of(Y_LABEL_AREA))
        .right_y_label_area_size(px.of(RIGHT_LABEL_AREA))
        .build_cartesian_2d(0.0..axes.x_max_s, 0.0..axes.y_max)
}

/// The background layer: white, grid, both axes with their labels, and the crash markers.
pub fn draw_frame<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    axes: Axes,
    crashes: &[CrashMarker],
    scale: f64,
    lang: Lang,
) -> DrawResult<DB> {
    let px = Px::new(scale);
    let l = locale(lang);
    root.fill(&WHITE)?;
    // The right axis first: the primary mesh would otherwise label both sides in messages.
    let mut chart =
        build(root, axes, px)?.set_secondary_coord(0.0..axes.x_max_s, 0.0..axes.age_max_s);
    let y_fmt = |v: &f64| short_count(*v, lang);
    let x_max = axes.x_max_s;
    let x_fmt = move |v: &f64| axis_seconds(*v, x_max, lang);
    let (width, height) = root.dim_in_pixel();
    let (xs, ys) = plot_area(width, height, scale);
    chart
        .configure_mesh()
        .x_desc(td_string!(l, stage.chart.axis_time))
        .y_desc(td_string!(l, stage.chart.axis_messages))
        .x_labels(time_labels(xs.end - xs.start, px))
        .y_labels(6)
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .label_style(px.text(15.0))
        .axis_desc_style(px.text(16.0))
        .axis_style(AXIS_COLOR.stroke_width(px.of(1.0)))
        .bold_line_style(GRID_BOLD.stroke_width(px.of(1.0)))
        .light_line_style(GRID_LIGHT.stroke_width(px.of(1.0)))
        .set_all_tick_mark_size(px.of(4.0))
        .draw()?;
    draw_crashes(root, &mut chart, axes, crashes, px, lang)?;
    if !axes.age_axis {
        // The line it measures is left out: no scale of nothing, no name of it.
        return root.present();
    }
    let age_max = axes.age_max_s;
    // Seconds too, written as the time axis writes them.
    let age_fmt = move |v: &f64| axis_seconds(*v, age_max, lang);
    // The axis's name runs along its height: on a short plot (a 720 px screen) the long
    // name would be cut at both ends, so the short one stands (the legend says the rest).
    let long = td_string!(l, stage.chart.axis_age);
    let fits = root
        .estimate_text_size(long, &px.text(16.0))
        .is_ok_and(|(w, _)| i64::from(w) <= i64::from(ys.end - ys.start));
    let age_desc = if fits {
        long
    } else {
        td_string!(l, stage.chart.axis_age_short)
    };
    chart
        .configure_secondary_axes()
        .y_desc(age_desc)
        .y_labels(6)
        .y_label_formatter(&age_fmt)
        .label_style(px.text(15.0))
        .axis_desc_style(px.text(16.0))
        .axis_style(AXIS_COLOR.stroke_width(px.of(1.0)))
        .set_all_tick_mark_size(px.of(4.0))
        .draw()?;
    root.present()
}

/// How many labels the time axis asks for on a plot `plot_width` pixels wide: ten on a
/// wide one, fewer on a narrow one, so that "160" and "180" never touch (about one label
/// per 64 CSS pixels: a four-digit time at the axis's 15 px text, with room between).
fn time_labels(plot_width: i32, px: Px) -> usize {
    let per_label = i64::from(px.of(64.0));
    (i64::from(plot_width.max(0)) / per_label).clamp(2, 10) as usize
}

/// A dashed vertical line at each crash, and its label near the top, to the right of the
/// line (to the left near the right edge), stacked in rows where crashes are close.
fn draw_crashes<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &mut Chart<'_, DB>,
    axes: Axes,
    crashes: &[CrashMarker],
    px: Px,
    lang: Lang,
) -> DrawResult<DB> {
    let style = (FONT, CRASH_FONT * px.0).into_font().color(&CRASH_COLOR);
    let pad = px.of(4.0) as i32;
    let row_height = px.of(CRASH_FONT + 4.0) as i32;
    let (plot_x, _) = chart.plotting_area().get_pixel_range();
    let labels: Vec<String> = crashes.iter().map(|c| c.text(lang)).collect();
    let mut placed = Vec::with_capacity(crashes.len());
    for (c, label) in crashes.iter().zip(&labels) {
        let (x, _) = chart.backend_coord(&(c.t_s, axes.y_max));
        let (w, _) = root.estimate_text_size(label, &style)?;
        let w = w as i32;
        let flip = x + pad + w > plot_x.end;
        let start = if flip { x - pad - w } else { x + pad };
        // A label too long for either side (a long name on a phone) stays inside the
        // plot, across its line, rather than cut off at the canvas's edge.
        let start = start.min(plot_x.end - w).max(plot_x.start);
        placed.push((start - x, f64::from(start), f64::from(w)));
    }
    let spans: Vec<(f64, f64)> = placed.iter().map(|&(_, s, w)| (s, w)).collect();
    let rows = label_rows(&spans, CRASH_ROWS, f64::from(pad));
    for (((c, label), &(dx, _, _)), row) in crashes.iter().zip(labels).zip(&placed).zip(rows) {
        chart.draw_series(DashedLineSeries::new(
            [(c.t_s, 0.0), (c.t_s, axes.y_max)],
            px.of(6.0),
            px.of(4.0),
            CRASH_COLOR.stroke_width(px.of(2.0)),
        ))?;
        let y = pad + row as i32 * row_height;
        let anchor = Pos::new(HPos::Left, VPos::Top);
        chart.draw_series(std::iter::once(
            EmptyElement::at((c.t_s, axes.y_max)) + Text::new(label, (dx, y), style.pos(anchor)),
        ))?;
    }
    Ok(())
}

/// Every `k`-th point, so a line carries about [`MARKS_PER_LINE`] marks.
fn marked(points: &[(f64, f64)]) -> impl Iterator<Item = (f64, f64)> + '_ {
    let every = points.len().div_ceil(MARKS_PER_LINE).max(1);
    points.iter().copied().skip(every / 2).step_by(every)
}

/// One line on the curves layer: its stroke (solid or dashed) and its marks. Values on
/// the right axis are rescaled onto the left one (both layers share one coordinate system).
fn draw_line<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    data: &ChartData,
    line: Line,
    axes: Axes,
    px: Px,
) -> DrawResult<DB> {
    let s = line.style();
    let factor = if s.right_axis {
        axes.y_max / axes.age_max_s
    } else {
        1.0
    };
    let points: Vec<(f64, f64)> = line
        .points(data)
        .iter()
        .map(|&(t, y)| (t, y * factor))
        .collect();
    let stroke = s.color.stroke_width(px.of(s.width));
    match (line, s.dash) {
        (Line::Backlog, _) => {
            chart.draw_series(
                AreaSeries::new(points.iter().copied(), 0.0, s.color.mix(0.12))
                    .border_style(stroke),
            )?;
        }
        (_, Some((dash, gap))) => {
            chart.draw_series(DashedLineSeries::new(
                points.iter().copied(),
                px.of(dash),
                px.of(gap),
                stroke,
            ))?;
        }
        (_, None) => {
            chart.draw_series(LineSeries::new(points.iter().copied(), stroke))?;
        }
    }
    let size = px.of(5.0) as i32;
    let fill = s.color.filled();
    match s.mark {
        Mark::None => {}
        Mark::Triangle => {
            chart.draw_series(marked(&points).map(|p| TriangleMarker::new(p, size, fill)))?;
        }
        Mark::Square => {
            chart.draw_series(marked(&points).map(|p| {
                EmptyElement::at(p)
                    + Rectangle::new([(-size + 1, -size + 1), (size - 1, size - 1)], fill)
            }))?;
        }
        Mark::Ring => {
            chart.draw_series(
                marked(&points).map(|p| Circle::new(p, size - 1, s.color.stroke_width(px.of(2.0)))),
            )?;
        }
    }
    Ok(())
}

/// The curves layer (transparent; clear it first): the time cursor and every line shown.
/// No text.
pub fn draw_curves<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    data: &ChartData,
    axes: Axes,
    scale: f64,
) -> DrawResult<DB> {
    let px = Px::new(scale);
    let mut chart = build(root, axes, px)?;
    if data.now_s > 0.0 && data.now_s < axes.x_max_s {
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(data.now_s, 0.0), (data.now_s, axes.y_max)],
            NOW_COLOR.mix(0.6).stroke_width(px.of(1.0)),
        )))?;
    }
    // Back to front: the secondary lines first, then the backlog, with the prediction on
    // top where the run follows it closely.
    let shown = shown_lines(data);
    for line in DRAW_ORDER.into_iter().filter(|l| shown.contains(l)) {
        draw_line(&mut chart, data, line, axes, px)?;
    }
    root.present()
}

/// Both layers on one area: the whole chart.
pub fn draw_backlog<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    data: &ChartData,
    scale: f64,
    lang: Lang,
) -> DrawResult<DB> {
    let axes = Axes::of(data);
    draw_frame(root, axes, &data.crashes, scale, lang)?;
    draw_curves(root, data, axes, scale)
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::player::Player;
    use brokerlab_core::examples;

    fn svg(data: &ChartData, size: (u32, u32), scale: f64) -> String {
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
            draw_backlog(&root, data, scale, Lang::En).expect("draws");
        }
        out
    }

    fn font_sizes(svg: &str) -> Vec<f64> {
        svg.split("font-size=\"")
            .skip(1)
            .filter_map(|rest| rest.split('"').next()?.parse().ok())
            .collect()
    }

    /// Points in the longest polyline stroked in `color`.
    fn longest_line(svg: &str, color: RGBColor) -> usize {
        let stroke = format!("stroke=\"{}\"", hex(color));
        svg.lines()
            .filter(|l| l.starts_with("<polyline") && l.contains(&stroke))
            .filter_map(|l| l.split("points=\"").nth(1))
            .map(|p| p.split('"').next().unwrap_or("").split_whitespace().count())
            .max()
            .unwrap_or(0)
    }

    fn hex(c: RGBColor) -> String {
        format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
    }

    fn played_burst(frames: u32) -> ChartData {
        let mut p = Player::new(examples::load("burst").expect("built in")).expect("valid");
        for _ in 0..frames {
            p.advance(100.0, 20.0);
        }
        p.chart_data()
    }

    #[test]
    fn nice_bounds_round_up() {
        assert_eq!(nice_ceil(11.0), 20.0);
        assert_eq!(nice_ceil(66_000.0), 100_000.0);
        assert_eq!(nice_ceil(2_400.0), 2_500.0);
        assert_eq!(nice_ceil(5_000.0), 5_000.0);
        let mut data = ChartData {
            prediction: vec![(0.0, 0.0), (60.0, 60_000.0)],
            x_max_s: 180.0,
            ..ChartData::default()
        };
        let axes = Axes::of(&data);
        assert_eq!(axes.y_max, 100_000.0, "the prediction's 60,000 peak fits");
        assert_eq!(axes.x_max_s, 180.0);
        assert_eq!(axes.age_max_s, 1.0, "the age axis shows at least a second");
        data.oldest_age_s = vec![(0.0, 0.0), (1.0, 42.0)];
        data.dead_lettered = vec![(0.0, 0.0), (1.0, 150_000.0)];
        let axes = Axes::of(&data);
        assert_eq!(axes.age_max_s, 50.0, "42 s with headroom");
        assert_eq!(axes.y_max, 200_000.0, "a dead-letter line drawn fits too");
    }

    #[test]
    fn draws_the_curves_and_both_axes() {
        let data = played_burst(40); // 80 simulated seconds
        let out = svg(&data, (800, 450), 1.0);
        assert!(out.starts_with("<svg"), "{}", &out[..80.min(out.len())]);
        for label in [
            "simulated time (s)",
            "messages",
            "oldest message",
            "60k",
            "180",
        ] {
            assert!(out.contains(label), "missing {label:?}");
        }
        // One point per sample (the legend's swatch has two).
        assert_eq!(
            longest_line(&out, BACKLOG_COLOR),
            data.backlog.len(),
            "the backlog curve is drawn"
        );
        assert!(data.backlog.len() > 70);
        assert!(
            longest_line(&out, PREDICTION_COLOR) > 0,
            "the prediction is drawn"
        );
        assert!(
            out.contains(&hex(PREDICTION_COLOR)),
            "the prediction is drawn"
        );
        assert!(!out.contains("NaN"), "no invalid coordinates");
        // In flight is drawn (with its triangles); nothing was dead-lettered, so no line.
        assert_eq!(longest_line(&out, IN_FLIGHT_COLOR), data.in_flight.len());
        assert!(polygons(&out, IN_FLIGHT_COLOR) >= MARKS_PER_LINE - 1);
        assert_eq!(longest_line(&out, DEAD_LETTER_COLOR), 0);
        assert!(!out.contains(&hex(DEAD_LETTER_COLOR)));
        // The age is drawn dotted, as one short segment per dash.
        assert!(lines_in(&out, AGE_COLOR) > 50, "the dotted age line");
        assert!(!out.contains(&hex(CRASH_COLOR)), "no crash, no marker");
    }

    /// Polygons (triangle markers) filled in `color`.
    fn polygons(svg: &str, color: RGBColor) -> usize {
        let fill = format!("fill=\"{}\"", hex(color));
        svg.lines()
            .filter(|l| l.starts_with("<polygon") && l.contains(&fill))
            .count()
    }

    /// Elements stroked in `color`.
    fn lines_in(svg: &str, color: RGBColor) -> usize {
        let stroke = format!("stroke=\"{}\"", hex(color));
        svg.lines().filter(|l| l.contains(&stroke)).count()
    }

    #[test]
    fn side_bs_backlog_is_drawn_only_while_comparing() {
        let mut data = played_burst(5);
        assert!(!shown_lines(&data).contains(&Line::VariantBacklog));
        assert_eq!(longest_line(&svg(&data, (800, 450), 1.0), VARIANT_COLOR), 0);
        data.variant_backlog = data.backlog.iter().map(|&(t, y)| (t, y / 2.0)).collect();
        assert!(shown_lines(&data).contains(&Line::VariantBacklog));
        assert!(longest_line(&svg(&data, (800, 450), 1.0), VARIANT_COLOR) >= 2);
        assert_eq!(
            Line::VariantBacklog.label(Lang::Es),
            "acumulado de B (con el cambio)"
        );
    }

    #[test]
    fn a_line_a_lesson_conceals_is_not_drawn_listed_nor_hinted_at_by_the_axes() {
        // backlog-arithmetic step 1 at 0 s: the dashed line peaked at 60,000 at 60 s.
        let mut data = played_burst(0);
        assert!(lines_in(&svg(&data, (800, 450), 1.0), PREDICTION_COLOR) > 0);
        assert_eq!(
            Axes::of(&data).y_max,
            100_000.0,
            "the prediction's peak fits"
        );
        let hidden = ChartConcealed {
            prediction: true,
            ..ChartConcealed::default()
        };
        data.conceal(hidden);
        assert_eq!(shown_lines(&data), [Line::Backlog, Line::OldestAge]);
        assert_eq!(concealed_lines(&hidden), [Line::Prediction]);
        assert_eq!(lines_in(&svg(&data, (800, 450), 1.0), PREDICTION_COLOR), 0);
        assert_eq!(
            Axes::of(&data).y_max,
            20.0,
            "no room kept for a line not drawn"
        );
        // Step 2 at 60 s: the age line ended at 19.9 s on its own axis.
        let mut p = Player::new(examples::load("burst").expect("built in")).expect("valid");
        while p.sim().now_us() < 60_000_000 && !p.advance(100.0, 20.0).finished {}
        let mut data = p.chart_data();
        assert_eq!(Axes::of(&data).age_max_s, 25.0, "19.9 s with headroom");
        assert!(Axes::of(&data).age_axis);
        let shown = svg(&data, (800, 450), 1.0);
        assert!(shown.contains("oldest message"), "the age axis is named");
        let hidden = ChartConcealed {
            prediction: true,
            oldest_age: true,
            ..ChartConcealed::default()
        };
        data.conceal(hidden);
        assert_eq!(shown_lines(&data), [Line::Backlog, Line::InFlight]);
        assert_eq!(
            concealed_lines(&hidden),
            [Line::Prediction, Line::OldestAge]
        );
        let out = svg(&data, (800, 450), 1.0);
        assert_eq!(
            lines_in(&out, PREDICTION_COLOR) + lines_in(&out, AGE_COLOR),
            0
        );
        // Its right axis, which would read a meaningless 0–1 s, is not drawn either.
        assert!(!Axes::of(&data).age_axis);
        assert!(
            !out.contains("oldest message") && !out.contains("age (s)"),
            "no name of the age axis"
        );
        assert!(!out.contains("\n1.0\n"), "no scale of the age axis");
        assert!(
            longest_line(&out, BACKLOG_COLOR) > 2,
            "the run so far is drawn"
        );
    }

    #[test]
    fn only_non_zero_optional_lines_are_shown() {
        let data = played_burst(0);
        assert_eq!(
            shown_lines(&data),
            [Line::Backlog, Line::Prediction, Line::OldestAge]
        );
        let data = played_burst(5);
        assert_eq!(
            shown_lines(&data),
            [
                Line::Backlog,
                Line::Prediction,
                Line::InFlight,
                Line::OldestAge
            ]
        );
        let mut p =
            Player::new(examples::load("retries-dlq-redrive").expect("built in")).expect("valid");
        while !p.advance(100.0, 20.0).finished {}
        let data = p.chart_data();
        assert!(shown_lines(&data).contains(&Line::DeadLettered), "{data:?}");
        assert!(longest_line(&svg(&data, (800, 450), 1.0), DEAD_LETTER_COLOR) > 1);
        assert!(
            !shown_lines(&data).contains(&Line::Goodput),
            "no dependency, no rates"
        );
        let mut p = Player::new(examples::load("dep-metastable").expect("built in")).expect("ok");
        while p.sim().now_us() < 20_000_000 && !p.advance(100.0, 20.0).finished {}
        let data = p.chart_data();
        let shown = shown_lines(&data);
        assert!(shown.contains(&Line::Goodput) && shown.contains(&Line::Throughput));
        assert!(longest_line(&svg(&data, (800, 450), 1.0), GOODPUT_COLOR) > 1);
        // Every line has its own look: colour and (dash, mark) both differ.
        for (i, a) in LINES.iter().enumerate() {
            assert_eq!(a.line.style(), a);
            for b in &LINES[i + 1..] {
                assert_ne!(a.color, b.color, "{:?} {:?}", a.line, b.line);
                assert_ne!(
                    (a.dash, a.mark),
                    (b.dash, b.mark),
                    "{:?} {:?}",
                    a.line,
                    b.line
                );
            }
        }
    }

    #[test]
    fn crashes_are_marked_with_a_line_and_a_label() {
        let mut p = Player::new(examples::load("burst").expect("built in")).expect("valid");
        p.advance(100.0, 20.0);
        p.crash_next().expect("valid");
        p.crash_next().expect("valid");
        for _ in 0..20 {
            p.advance(100.0, 20.0);
        }
        let data = p.chart_data();
        assert_eq!(data.crashes.len(), 2);
        assert_eq!(data.crashes[0].label, "worker-1 ✕");
        let out = svg(&data, (800, 450), 1.0);
        assert!(out.contains("worker-1 ✕") && out.contains("worker-2 ✕"));
        assert!(lines_in(&out, CRASH_COLOR) >= 2, "dashed vertical lines");
        // Same time: the second label goes on the next row, not on top of the first.
        let lines: Vec<&str> = out.lines().collect();
        let ys: Vec<&str> = lines
            .windows(2)
            .filter(|w| w[0].starts_with("<text") && w[1].starts_with("worker-"))
            .filter_map(|w| w[0].split(" y=\"").nth(1)?.split('"').next())
            .collect();
        assert_eq!(ys.len(), 2);
        assert_ne!(ys[0], ys[1], "stacked labels");
    }

    /// The (x, y) of every `<text>` line whose content satisfies `is`.
    fn text_at(svg: &str, is: impl Fn(&str) -> bool) -> Vec<(i32, i32)> {
        let attr = |line: &str, name: &str| -> Option<i32> {
            line.split(&format!(" {name}=\""))
                .nth(1)?
                .split('"')
                .next()?
                .parse()
                .ok()
        };
        let lines: Vec<&str> = svg.lines().collect();
        lines
            .windows(2)
            .filter(|w| w[0].starts_with("<text") && is(w[1]))
            .filter_map(|w| Some((attr(w[0], "x")?, attr(w[0], "y")?)))
            .collect()
    }

    #[test]
    fn a_phone_wide_chart_keeps_its_time_labels_apart_and_a_long_crash_label_inside() {
        let mut data = played_burst(30);
        let long = "a-consumer-with-a-long-name-of-forty-chars";
        data.crashes = vec![crate::model::chart_info::CrashMarker {
            t_s: data.x_max_s / 2.0,
            label: format!("{long} ✕"),
            who: crate::model::chart_info::Crashed::Named(long.into()),
        }];
        for (width, scale) in [(390, 1.0), (780, 2.0), (1200, 1.0)] {
            let out = svg(&data, (width, 300), scale);
            // Time labels: whole numbers under the plot, at least 40 CSS px apart.
            let (plot, ys) = plot_area(width, 300, scale);
            let mut xs: Vec<i32> = text_at(&out, |t| t.trim().parse::<u32>().is_ok())
                .into_iter()
                .filter(|&(_, y)| y > ys.end)
                .map(|(x, _)| x)
                .collect();
            assert!(xs.len() >= 2, "{width} px: {xs:?}");
            xs.sort_unstable();
            xs.dedup();
            let gaps: Vec<i32> = xs.windows(2).map(|w| w[1] - w[0]).collect();
            let narrowest = gaps.iter().copied().min().unwrap_or(i32::MAX);
            assert!(
                f64::from(narrowest) >= 40.0 * scale,
                "{width} px: labels at {xs:?}"
            );
            let starts = text_at(&out, |t| t.starts_with(long));
            assert_eq!(starts.len(), 1, "{width} px");
            assert!(
                starts[0].0 >= plot.start,
                "{width} px: label at {} < {}",
                starts[0].0,
                plot.start
            );
        }
    }

    #[test]
    fn the_plot_area_is_where_plotters_puts_it_and_hover_maps_into_it() {
        let data = played_burst(3);
        let axes = Axes::of(&data);
        for (size, scale) in [((800, 450), 1.0), ((1200, 500), 1.5), ((1600, 900), 2.0)] {
            let mut out = String::new();
            let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
            let chart = build(&root, axes, Px::new(scale)).expect("builds");
            assert_eq!(
                chart.plotting_area().get_pixel_range(),
                plot_area(size.0, size.1, scale),
                "{size:?} at {scale}"
            );
        }
        for scale in [1.0, 1.5] {
            let (xs, _) = plot_area(800, 450, scale);
            assert_eq!(time_at(f64::from(xs.start), 800.0, 180.0, scale), 0.0);
            assert_eq!(time_at(f64::from(xs.end), 800.0, 180.0, scale), 180.0);
            assert_eq!(time_at(0.0, 800.0, 180.0, scale), 0.0, "clamped");
            assert_eq!(time_at(f64::NAN, 800.0, 180.0, scale), 0.0);
            for t in [0.0, 12.5, 90.0, 180.0] {
                let x = x_of(t, 800.0, 180.0, scale);
                assert!((time_at(x, 800.0, 180.0, scale) - t).abs() < 1e-9, "{t}");
            }
        }
        // Large type: the left label area grows, so a time sits further right.
        assert!(x_of(0.0, 800.0, 180.0, 1.5) > x_of(0.0, 800.0, 180.0, 1.0));
        assert_eq!(time_at(50.0, 10.0, 180.0, 1.0), 0.0, "too narrow to plot");
    }

    #[test]
    fn an_empty_run_still_draws_axes_and_the_prediction() {
        let data = played_burst(0);
        assert!(data.backlog.is_empty());
        let out = svg(&data, (640, 360), 1.0);
        assert!(out.contains("messages"));
        assert_eq!(longest_line(&out, BACKLOG_COLOR), 0, "no sample, no line");
        assert!(out.contains(&hex(PREDICTION_COLOR)));
    }

    #[test]
    fn the_frame_layer_has_the_text_and_the_curves_layer_has_none() {
        let data = played_burst(40);
        let axes = Axes::of(&data);
        let mut frame = String::new();
        let mut curves = String::new();
        {
            let root = SVGBackend::with_string(&mut frame, (800, 450)).into_drawing_area();
            draw_frame(&root, axes, &data.crashes, 1.0, Lang::En).expect("draws");
            let root = SVGBackend::with_string(&mut curves, (800, 450)).into_drawing_area();
            draw_curves(&root, &data, axes, 1.0).expect("draws");
        }
        assert!(frame.contains("messages") && frame.contains("oldest message"));
        assert_eq!(
            longest_line(&frame, BACKLOG_COLOR),
            0,
            "the frame has no curve"
        );
        assert!(
            !curves.contains("<text"),
            "the curves measure and draw no text"
        );
        assert!(
            !curves.contains("fill=\"#FFFFFF\""),
            "the curves layer is transparent"
        );
        assert_eq!(longest_line(&curves, BACKLOG_COLOR), data.backlog.len());
        // Together they are the whole chart.
        let whole = svg(&data, (800, 450), 1.0);
        assert_eq!(longest_line(&whole, BACKLOG_COLOR), data.backlog.len());
    }

    #[test]
    fn scale_enlarges_text_and_lines() {
        let data = played_burst(10);
        let one = svg(&data, (800, 450), 1.0);
        let two = svg(&data, (1600, 900), 2.0);
        let (small, large) = (font_sizes(&one), font_sizes(&two));
        assert!(
            !small.is_empty() && small.len() == large.len(),
            "the same labels at both scales"
        );
        for (a, b) in small.iter().zip(&large) {
            assert!((b / a - 2.0).abs() < 0.01, "text doubles: {a} → {b}");
        }
        assert!(
            one.contains("stroke-width=\"3\""),
            "the backlog line is 3 px at scale 1"
        );
        assert!(two.contains("stroke-width=\"6\""), "and 6 px at scale 2");
        // Nonsense scales fall back to 1.
        assert_eq!(svg(&data, (800, 450), f64::NAN), one);
        assert_eq!(svg(&data, (800, 450), 0.0), one);
    }

    #[test]
    fn the_frame_speaks_spanish() {
        let data = played_burst(10);
        let mut frame = String::new();
        {
            let root = SVGBackend::with_string(&mut frame, (800, 450)).into_drawing_area();
            draw_frame(&root, Axes::of(&data), &data.crashes, 1.0, Lang::Es).expect("draws");
        }
        assert!(frame.contains("tiempo simulado (s)"), "the time axis");
        assert!(frame.contains("mensajes") && frame.contains("espera del mensaje"));
        assert!(!frame.contains("simulated time"), "no English left");
        assert_eq!(Line::Backlog.label(Lang::Es), "acumulado (simulado)");
    }
}
