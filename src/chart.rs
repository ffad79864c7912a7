//! The backlog chart, as plain functions over any plotters backend: the page draws it on
//! canvases, the native tests draw it to SVG. Sizes are in CSS pixels times `scale` (the
//! device pixel ratio), so a canvas can have one backing pixel per screen pixel.
//!
//! It is drawn in two layers. The frame (background, grid, axis labels, legend) needs text
//! measured, which in a browser forces a page layout per label, so the page draws it only
//! when the axes or the size change. The curves are drawn on a layer above, as often as
//! samples arrive; they measure no text. Both layers place the plot identically, because
//! the label areas have fixed sizes.

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::player::ChartData;
use crate::readout::short_count;

/// The simulated backlog: a solid line over a light fill.
pub const BACKLOG_COLOR: RGBColor = RGBColor(29, 78, 216);
/// The fluid prediction: a dashed line.
pub const PREDICTION_COLOR: RGBColor = RGBColor(194, 65, 12);
const AXIS_COLOR: RGBColor = RGBColor(71, 85, 105);
const GRID_BOLD: RGBColor = RGBColor(203, 213, 225);
const GRID_LIGHT: RGBColor = RGBColor(241, 245, 249);
const NOW_COLOR: RGBColor = RGBColor(100, 116, 139);
const TEXT_COLOR: RGBColor = RGBColor(30, 41, 59);
const FONT: &str = "sans-serif";

pub const BACKLOG_LABEL: &str = "backlog (simulated)";
pub const PREDICTION_LABEL: &str = "fluid prediction (λ − μ)·t";

type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;
type DrawResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// The ranges the chart shows: when they change, the frame must be redrawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Axes {
    pub x_max_s: f64,
    pub y_max: f64,
}

impl Axes {
    /// The whole run's span, and the highest value of either curve rounded up with headroom.
    pub fn of(data: &ChartData) -> Self {
        let peak = data
            .backlog
            .iter()
            .chain(&data.prediction)
            .map(|&(_, y)| y)
            .fold(0.0, f64::max);
        Self {
            x_max_s: data.x_max_s.max(1.0),
            y_max: nice_ceil(peak.max(10.0) * 1.1),
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

/// The plot's coordinate system: the same on both layers (no size depends on text).
fn build<'a, DB: DrawingBackend>(
    root: &'a DrawingArea<DB, Shift>,
    axes: Axes,
    px: Px,
) -> Result<Chart<'a, DB>, DrawingAreaErrorKind<DB::ErrorType>> {
    ChartBuilder::on(root)
        .margin_top(px.of(14.0))
        .margin_right(px.of(22.0))
        .margin_left(px.of(8.0))
        .margin_bottom(px.of(6.0))
        .x_label_area_size(px.of(48.0))
        .y_label_area_size(px.of(72.0))
        .build_cartesian_2d(0.0..axes.x_max_s, 0.0..axes.y_max)
}

fn swatch(
    color: RGBColor,
    width: u32,
    length: u32,
) -> impl Fn((i32, i32)) -> PathElement<(i32, i32)> {
    move |(x, y)| {
        PathElement::new(
            vec![(x, y), (x + length as i32, y)],
            color.stroke_width(width),
        )
    }
}

/// The background layer: white, grid, axes with their labels, and the legend.
pub fn draw_frame<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    axes: Axes,
    scale: f64,
) -> DrawResult<DB> {
    let px = Px::new(scale);
    root.fill(&WHITE)?;
    let mut chart = build(root, axes, px)?;
    let y_fmt = |v: &f64| short_count(*v);
    let x_fmt = |v: &f64| format!("{v:.0}");
    chart
        .configure_mesh()
        .x_desc("simulated time (s)")
        .y_desc("messages waiting")
        .x_labels(10)
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
    // The legend's entries: labels without points (the curves are on the layer above).
    let none = std::iter::empty::<PathElement<(f64, f64)>>;
    chart
        .draw_series(none())?
        .label(BACKLOG_LABEL)
        .legend(swatch(BACKLOG_COLOR, px.of(3.0), px.of(24.0)));
    chart
        .draw_series(none())?
        .label(PREDICTION_LABEL)
        .legend(swatch(PREDICTION_COLOR, px.of(2.0), px.of(24.0)));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .margin(px.of(10.0))
        .legend_area_size(px.of(30.0))
        .label_font(px.text(15.0))
        .background_style(WHITE.mix(0.92))
        .border_style(GRID_BOLD.stroke_width(px.of(1.0)))
        .draw()?;
    root.present()
}

/// The curves layer (transparent; clear it first): the time cursor, the simulated
/// backlog, and the fluid prediction on top where the run follows it closely. No text.
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
    chart.draw_series(
        AreaSeries::new(data.backlog.iter().copied(), 0.0, BACKLOG_COLOR.mix(0.12))
            .border_style(BACKLOG_COLOR.stroke_width(px.of(3.0))),
    )?;
    chart.draw_series(DashedLineSeries::new(
        data.prediction.iter().copied(),
        px.of(8.0),
        px.of(6.0),
        PREDICTION_COLOR.stroke_width(px.of(2.0)),
    ))?;
    root.present()
}

/// Both layers on one area: the whole chart.
pub fn draw_backlog<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    data: &ChartData,
    scale: f64,
) -> DrawResult<DB> {
    let axes = Axes::of(data);
    draw_frame(root, axes, scale)?;
    draw_curves(root, data, axes, scale)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::Player;
    use brokerlab_core::examples;

    fn svg(data: &ChartData, size: (u32, u32), scale: f64) -> String {
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
            draw_backlog(&root, data, scale).expect("draws");
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
        let data = ChartData {
            backlog: vec![],
            prediction: vec![(0.0, 0.0), (60.0, 60_000.0)],
            x_max_s: 180.0,
            now_s: 0.0,
        };
        let axes = Axes::of(&data);
        assert_eq!(axes.y_max, 100_000.0, "the prediction's 60,000 peak fits");
        assert_eq!(axes.x_max_s, 180.0);
    }

    #[test]
    fn draws_both_curves_axes_and_legend() {
        let data = played_burst(40); // 80 simulated seconds
        let out = svg(&data, (800, 450), 1.0);
        assert!(out.starts_with("<svg"), "{}", &out[..80.min(out.len())]);
        for label in [
            "simulated time (s)",
            "messages waiting",
            BACKLOG_LABEL,
            "fluid prediction",
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
    }

    #[test]
    fn an_empty_run_still_draws_axes_and_the_prediction() {
        let data = played_burst(0);
        assert!(data.backlog.is_empty());
        let out = svg(&data, (640, 360), 1.0);
        assert!(out.contains("messages waiting"));
        assert_eq!(
            longest_line(&out, BACKLOG_COLOR),
            2,
            "only the legend's swatch"
        );
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
            draw_frame(&root, axes, 1.0).expect("draws");
            let root = SVGBackend::with_string(&mut curves, (800, 450)).into_drawing_area();
            draw_curves(&root, &data, axes, 1.0).expect("draws");
        }
        assert!(frame.contains("messages waiting") && frame.contains(BACKLOG_LABEL));
        assert_eq!(
            longest_line(&frame, BACKLOG_COLOR),
            2,
            "the frame has only the legend's swatch"
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
}
