//! Message tokens drawn over the topology: one canvas above the cards, redrawn on animation
//! frames while anything moves. Each frame drains the flights the player collected, admits
//! them to the [`Sky`] (tokens up to a cap, per-edge counts beyond), and draws tokens from
//! card to card (cards are found by their `data-node` attribute). No DOM node per token;
//! no allocation per token per frame (labels are made once, scratch vectors are reused).
//!
//! The canvas carries what it shows for tests and tools: `data-tokens` (tokens drawn),
//! `data-aggregated` (flights the badges count), `data-kinds` (kinds drawn) and
//! `data-labels` (the latest tokens, "redeliver #0·2, ack #0·2") and `data-marks` (the
//! boxes of the text and markers drawn, "x,y,w,h;…" from the canvas's top left, refreshed
//! with the card positions) and `data-token-radius` (a token's radius, larger with large
//! type).
//!
//! Nothing written is drawn over a card: counts go to the rail under the lanes (see
//! [`crate::model::rail`]), a token's label is left out where it would cross a card, and a
//! token that stays in place (a loss, a duplicate effect) rises in the gutter beside its card.

use std::cell::RefCell;
use std::f64::consts::TAU;
use std::fmt::Write;
use std::rc::Rc;

use brokerlab_core::lessons::Lang;
use leptos::html::Canvas;
use leptos::prelude::*;
use leptos_use::{use_device_pixel_ratio, use_prefers_reduced_motion, use_raf_fn};
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, Element, HtmlCanvasElement};

use crate::format::count;
use crate::i18n::{t, t_string, use_i18n};
use crate::model::flights::{
    mark, Edge, Flight, FlightBuffer, Kind, Node, Paint, Shape, Sky, LABELS_MAX, LINE,
};
use crate::model::rail::{lay_out, Box2, Wanted};
use crate::state::Lab;
use crate::ui::type_scale::type_scale;

/// Token radius, CSS pixels at the usual type scale (large type draws larger tokens).
const RADIUS: f64 = 6.0;
/// How often card positions are read again while tokens move (layout changes as counts
/// change and the window resizes; reading every frame would force a layout every frame).
const ANCHORS_EVERY_MS: f64 = 250.0;
/// Badges with their count written out (the largest ones); the others draw their edge only.
const BADGES_MAX: usize = 12;
/// How far a token that stays in one place (a loss, a dead letter drawn in its queue) rises.
const POP_PX: f64 = 22.0;
/// Token label and badge text size, CSS pixels at the usual type scale.
const FONT_PX: f64 = 11.0;
/// Height of a row of the badge rail, CSS pixels at the usual type scale.
const RAIL_ROW_PX: f64 = 18.0;
/// Room between a card and a token rising beside it.
const GUTTER_PX: f64 = 4.0;
const INK: &str = "#1e293b";
const HALO: &str = "rgba(255,255,255,0.9)";

/// A card's box, in CSS pixels from the canvas's top left.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Rect {
    x: f64,
    y: f64,
    w: f64,
    h: f64,
}

impl Rect {
    fn cx(self) -> f64 {
        self.x + self.w / 2.0
    }
    fn cy(self) -> f64 {
        self.y + self.h / 2.0
    }
    fn overlaps(self, o: Rect) -> bool {
        self.x < o.x + o.w && o.x < self.x + self.w && self.y < o.y + o.h && o.y < self.y + self.h
    }
    fn union(self, o: Rect) -> Rect {
        let (x, y) = (self.x.min(o.x), self.y.min(o.y));
        let right = (self.x + self.w).max(o.x + o.w);
        let bottom = (self.y + self.h).max(o.y + o.h);
        Rect {
            x,
            y,
            w: right - x,
            h: bottom - y,
        }
    }
}

/// Where a token leaves and arrives: facing sides of the two cards (or, for one card, in
/// the gutter at its right, rising a little, so the marker never covers the card's text).
fn ends(a: Rect, b: Rect, radius: f64) -> ((f64, f64), (f64, f64)) {
    if a == b {
        let x = a.x + a.w + GUTTER_PX + radius;
        return ((x, a.cy()), (x, a.cy() - POP_PX));
    }
    if b.x >= a.x + a.w {
        ((a.x + a.w, a.cy()), (b.x, b.cy()))
    } else if b.x + b.w <= a.x {
        ((a.x, a.cy()), (b.x + b.w, b.cy()))
    } else if b.cy() >= a.cy() {
        ((a.cx(), a.y + a.h), (b.cx(), b.y))
    } else {
        ((a.cx(), a.y), (b.cx(), b.y + b.h))
    }
}

/// A token placed for this frame.
#[derive(Clone, Copy)]
struct Placed {
    kind: Kind,
    x: f64,
    y: f64,
    /// Index into the sky's tokens (for its label).
    token: usize,
}

#[derive(Default)]
struct Overlay {
    sky: Sky,
    batch: FlightBuffer,
    anchors: Vec<(Node, Rect)>,
    anchors_at_ms: Option<f64>,
    /// Canvas size in CSS pixels and the device pixel ratio it was sized for.
    size: (f64, f64, f64),
    /// Tokens appear at their destination without moving (the reader asked for less motion).
    reduced_motion: bool,
    /// The device pixel ratio now.
    dpr: f64,
    run: u32,
    step: u64,
    /// The canvas shows nothing.
    blank: bool,
    /// The settled state is drawn: nothing to do until something changes.
    still: bool,
    placed: Vec<Placed>,
    order: Vec<usize>,
    scratch: String,
    /// What the data attributes say: (tokens drawn, badge counts, flights seen).
    said: (usize, u64, u64),
    /// The rail under the lanes where badges are written.
    rail: Option<Rect>,
    /// The page's type scale (large type writes larger labels and badges).
    scale: f64,
    /// The page's language, for the badges' words.
    lang: Lang,
    /// The canvas font at that scale.
    font: String,
    /// Boxes of the text and markers drawn this frame (for `data-marks`).
    marks: Vec<Rect>,
    /// `data-marks` is due: set after the card positions were read again.
    marks_due: bool,
}

impl Overlay {
    /// A token's radius at the page's type scale.
    fn radius(&self) -> f64 {
        RADIUS * self.scale.max(1.0)
    }

    fn frame(&mut self, lab: Lab, canvas: &HtmlCanvasElement, now: f64) {
        let (run, step) = lab.with_player(|p| (p.run(), p.sim().steps()));
        if run != self.run {
            // A new run: forget the old one's tokens, counts and labels (and say so).
            self.run = run;
            self.sky.clear();
            self.blank = false;
        }
        let stepped = step != self.step;
        self.step = step;
        let playing = lab.playing.get_untracked();
        lab.drain_flights(&mut self.batch);
        if stepped || playing {
            self.sky.release();
        }
        let fresh = !self.batch.is_empty();
        if !fresh && self.sky.is_idle() {
            if !self.blank {
                if let Some(ctx) = context(canvas) {
                    ctx.clear_rect(0.0, 0.0, self.size.0, self.size.1);
                }
                self.blank = true;
                self.marks.clear();
                self.marks_due = true;
                self.say(canvas);
            }
            return;
        }
        if !fresh && !stepped && self.still && self.sky.settled(now) {
            return;
        }
        let stale = self
            .anchors_at_ms
            .is_none_or(|at| self.blank || now - at >= ANCHORS_EVERY_MS);
        if stale {
            self.measure(canvas);
            self.anchors_at_ms = Some(now);
        }
        // A step taken while paused stays on show until the next one.
        self.sky.admit(&self.batch, now, !playing);
        self.batch.clear();
        self.sky.tick(now);
        let Some(ctx) = context(canvas) else {
            return;
        };
        self.draw(&ctx, now);
        self.blank = false;
        self.still = self.sky.settled(now);
        self.say(canvas);
    }

    /// Reads the card positions and sizes the canvas (one backing pixel per screen pixel).
    fn measure(&mut self, canvas: &HtmlCanvasElement) {
        let origin = canvas.get_bounding_client_rect();
        let dpr = self.dpr.max(1.0);
        let size = (origin.width(), origin.height(), dpr);
        if size != self.size {
            self.size = size;
            canvas.set_width((size.0 * dpr).round() as u32);
            canvas.set_height((size.1 * dpr).round() as u32);
        }
        self.anchors.clear();
        let scale = type_scale();
        if scale != self.scale || self.font.is_empty() {
            self.scale = scale;
            self.font = format!("600 {:.1}px system-ui, sans-serif", FONT_PX * scale);
        }
        self.marks_due = true;
        let Some(section) = canvas.parent_element() else {
            return;
        };
        self.rail = section
            .query_selector(".badge-rail")
            .ok()
            .flatten()
            .map(|el| el.get_bounding_client_rect())
            .map(|r| Rect {
                x: r.left() - origin.left(),
                y: r.top() - origin.top(),
                w: r.width(),
                h: r.height(),
            });
        let Ok(cards) = section.query_selector_all("[data-node]") else {
            return;
        };
        for i in 0..cards.length() {
            let Some(el) = cards.item(i).and_then(|n| n.dyn_into::<Element>().ok()) else {
                continue;
            };
            let Some(node) = el.get_attribute("data-node").and_then(|s| Node::parse(&s)) else {
                continue;
            };
            let r = el.get_bounding_client_rect();
            if r.width() > 0.0 {
                let rect = Rect {
                    x: r.left() - origin.left(),
                    y: r.top() - origin.top(),
                    w: r.width(),
                    h: r.height(),
                };
                self.anchors.push((node, rect));
            }
        }
    }

    /// The card drawn for a node (for a merged node, the box around all its cards), or
    /// for its fallback.
    fn rect(&self, node: Node) -> Option<Rect> {
        let mut found: Option<Rect> = None;
        for &(n, r) in &self.anchors {
            if node.covers(n) {
                found = Some(found.map_or(r, |f| f.union(r)));
            }
        }
        found.or_else(|| node.fallback().and_then(|f| self.rect(f)))
    }

    /// Where an edge starts and ends on the canvas.
    fn edge_ends(&self, from: Node, to: Node) -> Option<((f64, f64), (f64, f64))> {
        match (self.rect(from), self.rect(to)) {
            (Some(a), Some(b)) => Some(ends(a, b, self.radius())),
            (Some(a), None) | (None, Some(a)) => Some(ends(a, a, self.radius())),
            (None, None) => None,
        }
    }

    fn place(&self, f: &Flight, p: f64) -> Option<(f64, f64)> {
        let ((x0, y0), (x1, y1)) = self.edge_ends(f.from, f.to)?;
        // No motion wanted: the token shows where it arrived.
        let p = if self.reduced_motion { 1.0 } else { p };
        let e = p * p * (3.0 - 2.0 * p);
        Some((x0 + (x1 - x0) * e, y0 + (y1 - y0) * e))
    }

    fn draw(&mut self, ctx: &CanvasRenderingContext2d, now: f64) {
        let (w, h, dpr) = self.size;
        let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
        ctx.clear_rect(0.0, 0.0, w, h);
        ctx.set_line_cap("round");
        ctx.set_line_join("round");
        ctx.set_font(&self.font);
        ctx.set_text_baseline("middle");
        self.marks.clear();
        self.draw_badges(ctx);

        let mut placed = std::mem::take(&mut self.placed);
        placed.clear();
        for (i, t) in self.sky.tokens.iter().enumerate() {
            if let Some((x, y)) = self.place(&t.flight, t.progress(now)) {
                placed.push(Placed {
                    kind: t.flight.kind,
                    x,
                    y,
                    token: i,
                });
            }
        }
        // One path per kind and part: a few dozen canvas calls whatever the token count.
        let radius = self.radius();
        for kind in Kind::ALL {
            if !placed.iter().any(|p| p.kind == kind) {
                continue;
            }
            for &(paint, shape) in mark(kind) {
                ctx.begin_path();
                for p in placed.iter().filter(|p| p.kind == kind) {
                    trace(ctx, shape, p.x, p.y, radius);
                }
                paint_path(ctx, kind, paint, radius);
            }
        }
        self.mark_pops(&placed);
        if placed.len() <= LABELS_MAX {
            self.draw_labels(ctx, &placed);
        }
        self.placed = placed;
    }

    /// The markers of tokens that stay by their card (a loss, a duplicate effect), for
    /// `data-marks`.
    fn mark_pops(&mut self, placed: &[Placed]) {
        for p in placed {
            let f = &self.sky.tokens[p.token].flight;
            let from = self.rect(f.from);
            if from.is_some() && from == self.rect(f.to) {
                self.marks.push(Rect {
                    x: p.x - self.radius(),
                    y: p.y - self.radius(),
                    w: 2.0 * self.radius(),
                    h: 2.0 * self.radius(),
                });
            }
        }
    }

    /// Each token's label ("#77·2") above and right of it, with a halo; left out where it
    /// would cross a card (the token itself still shows).
    fn draw_labels(&mut self, ctx: &CanvasRenderingContext2d, placed: &[Placed]) {
        ctx.set_line_width(3.0);
        ctx.set_stroke_style_str(HALO);
        ctx.set_fill_style_str(INK);
        let h = FONT_PX * self.scale + 2.0;
        for p in placed {
            let label = &self.sky.tokens[p.token].label;
            let w = ctx.measure_text(label).map_or(40.0, |m| m.width());
            let (x, y) = (p.x + self.radius() + 3.0, p.y - self.radius() - 2.0);
            let rect = Rect {
                x,
                y: y - h / 2.0,
                w,
                h,
            };
            if self.anchors.iter().any(|(_, card)| card.overlaps(rect)) {
                continue;
            }
            let _ = ctx.stroke_text(label, x, y);
            let _ = ctx.fill_text(label, x, y);
            self.marks.push(rect);
        }
    }

    /// Counts of the flights that did not fit ("+312 delivered"), the largest first, in the
    /// rail under the lanes: each near the gap its flights cross, flights to the right in the
    /// first row and flights back in the second.
    fn draw_badges(&mut self, ctx: &CanvasRenderingContext2d) {
        let badges = self.sky.badges();
        if badges.is_empty() {
            return;
        }
        let all: Vec<&(Edge, u64)> = badges.iter().collect();
        self.order.clear();
        self.order.extend(0..all.len());
        self.order
            .sort_unstable_by(|&a, &b| all[b].1.cmp(&all[a].1));
        let Some(rail) = self.rail else {
            return;
        };
        let mut texts = Vec::with_capacity(BADGES_MAX);
        let mut wanted = Vec::with_capacity(BADGES_MAX);
        for &i in self.order.iter().take(BADGES_MAX) {
            let (edge, n) = *all[i];
            let Some(((x0, _), (x1, _))) = self.edge_ends(edge.from, edge.to) else {
                continue;
            };
            let text = format!("+{} {}", count(n, self.lang), edge.kind.past(self.lang));
            let width = ctx.measure_text(&text).map_or(60.0, |m| m.width());
            wanted.push(Wanted {
                x: (x0 + x1) / 2.0,
                w: width + 20.0 * self.scale,
                row: usize::from(x1 < x0),
            });
            texts.push((edge.kind, text));
        }
        let area = Box2 {
            x: rail.x,
            y: rail.y,
            w: rail.w,
            h: rail.h,
        };
        let slots = lay_out(area, RAIL_ROW_PX * self.scale, &wanted);
        for ((kind, text), slot) in texts.iter().zip(slots) {
            let Some(b) = slot else { continue };
            self.draw_badge(ctx, *kind, text, b);
        }
    }

    /// One badge in its slot: a backdrop, the kind's mark, the count.
    fn draw_badge(&mut self, ctx: &CanvasRenderingContext2d, kind: Kind, text: &str, b: Box2) {
        let r = 4.0 * self.scale;
        let y = b.y + b.h / 2.0;
        ctx.set_fill_style_str(HALO);
        ctx.fill_rect(b.x, b.y + 1.0, b.w, b.h - 2.0);
        ctx.begin_path();
        for &(_, shape) in mark(kind) {
            trace(ctx, shape, b.x + r + 3.0, y, r);
        }
        for &(paint, _) in mark(kind).iter().take(1) {
            paint_path(ctx, kind, paint, r);
        }
        ctx.set_fill_style_str(INK);
        let _ = ctx.fill_text(text, b.x + 2.0 * r + 6.0, y);
        self.marks.push(Rect {
            x: b.x,
            y: b.y,
            w: b.w,
            h: b.h,
        });
    }

    /// Updates the data attributes when what they say changed.
    fn say(&mut self, canvas: &HtmlCanvasElement) {
        let drawn = if self.blank { 0 } else { self.placed.len() };
        let aggregated = if self.blank {
            0
        } else {
            self.sky.badges().total()
        };
        if self.marks_due {
            self.marks_due = false;
            self.scratch.clear();
            for m in &self.marks {
                let _ = write!(self.scratch, "{:.0},{:.0},{:.0},{:.0};", m.x, m.y, m.w, m.h);
            }
            let _ = canvas.set_attribute("data-marks", &self.scratch);
            let _ = canvas.set_attribute("data-token-radius", &format!("{:.1}", self.radius()));
        }
        let now = (drawn, aggregated, self.sky.seen);
        if now == self.said {
            return;
        }
        let seen_changed = now.2 != self.said.2;
        self.said = now;
        let _ = canvas.set_attribute("data-tokens", &drawn.to_string());
        let _ = canvas.set_attribute("data-aggregated", &aggregated.to_string());
        let _ = canvas.set_attribute("data-aggregated-total", &self.sky.aggregated.to_string());
        let per_kind = self.sky.per_kind();
        let kinds: Vec<&str> = Kind::ALL
            .iter()
            .zip(per_kind)
            .filter(|&(_, n)| n > 0 && drawn > 0)
            .map(|(k, _)| k.name())
            .collect();
        let _ = canvas.set_attribute("data-kinds", &kinds.join(" "));
        if seen_changed {
            let labels: Vec<&str> = self.sky.recent.iter().map(String::as_str).collect();
            let _ = canvas.set_attribute("data-labels", &labels.join(", "));
        }
    }
}

fn context(canvas: &HtmlCanvasElement) -> Option<CanvasRenderingContext2d> {
    canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into().ok())
}

/// Adds one shape, centred on (x, y) with radius `r`, to the current path.
fn trace(ctx: &CanvasRenderingContext2d, shape: Shape, x: f64, y: f64, r: f64) {
    match shape {
        Shape::Circle(k) => {
            ctx.move_to(x + k * r, y);
            let _ = ctx.arc(x, y, k * r, 0.0, TAU);
        }
        Shape::Poly(points, closed) => {
            for (i, &(px, py)) in points.iter().enumerate() {
                if i == 0 {
                    ctx.move_to(x + px * r, y + py * r);
                } else {
                    ctx.line_to(x + px * r, y + py * r);
                }
            }
            if closed {
                ctx.close_path();
            }
        }
    }
}

fn paint_path(ctx: &CanvasRenderingContext2d, kind: Kind, paint: Paint, r: f64) {
    match paint {
        Paint::Fill => {
            ctx.set_fill_style_str(kind.color());
            ctx.fill();
        }
        Paint::Stroke => {
            ctx.set_line_width(LINE * r);
            ctx.set_stroke_style_str(kind.color());
            ctx.stroke();
        }
        Paint::Ink => {
            ctx.set_line_width(LINE * r * 0.6);
            ctx.set_stroke_style_str(INK);
            ctx.stroke();
        }
    }
}

/// The token canvas: mount it inside the topology section (which must be positioned).
#[component]
pub fn TokenOverlay(lab: Lab) -> impl IntoView {
    let canvas_ref = NodeRef::<Canvas>::new();
    let overlay = Rc::new(RefCell::new(Overlay {
        blank: true,
        ..Overlay::default()
    }));
    let reduced_motion = use_prefers_reduced_motion();
    let dpr = use_device_pixel_ratio();
    // Runs on every animation frame, and returns at once when nothing is to be drawn.
    let _ = use_raf_fn(move |frame| {
        if let Some(canvas) = canvas_ref.get_untracked() {
            if let Ok(mut o) = overlay.try_borrow_mut() {
                o.reduced_motion = reduced_motion.get_untracked();
                o.dpr = dpr.get_untracked();
                let lang = lab.lang.get_untracked();
                if o.lang != lang {
                    // The badges are written again in the new language.
                    o.lang = lang;
                    o.still = false;
                }
                o.frame(lab, &canvas, frame.timestamp);
            }
        }
    });
    view! {
        <canvas class="tokens" node_ref=canvas_ref aria-hidden="true" data-testid="tokens"
            data-tokens="0" data-aggregated="0" data-aggregated-total="0" data-kinds="" data-labels="" data-marks="" />
    }
}

/// A kind's mark as inline SVG (the same shapes the canvas draws).
fn mark_svg(kind: Kind) -> impl IntoView {
    let color = kind.color();
    let parts = mark(kind)
        .iter()
        .map(|&(paint, shape)| {
            let (fill, stroke, width) = match paint {
                Paint::Fill => (color, "none", 0.0),
                Paint::Stroke => ("none", color, LINE),
                Paint::Ink => ("none", INK, LINE * 0.6),
            };
            match shape {
                Shape::Circle(r) => view! {
                    <circle r=r fill=fill stroke=stroke stroke-width=width />
                }
                .into_any(),
                Shape::Poly(points, closed) => {
                    let points = points
                        .iter()
                        .map(|(x, y)| format!("{x},{y}"))
                        .collect::<Vec<_>>()
                        .join(" ");
                    if closed {
                        view! { <polygon points=points fill=fill stroke=stroke stroke-width=width /> }
                            .into_any()
                    } else {
                        view! { <polyline points=points fill=fill stroke=stroke stroke-width=width /> }
                            .into_any()
                    }
                }
            }
        })
        .collect_view();
    view! {
        <svg class="mark" viewBox="-1.5 -1.5 3 3" width="18" height="18" aria-hidden="true"
            stroke-linecap="round" stroke-linejoin="round">
            {parts}
        </svg>
    }
}

/// The legend under the diagram: each kind's mark and name, and what badges and outlines mean.
#[component]
pub fn TokenLegend(lab: Lab) -> impl IntoView {
    let i18n = use_i18n();
    let items = Kind::ALL
        .iter()
        .map(|&kind| {
            view! {
                <li data-kind=kind.name()>{mark_svg(kind)}<span>{move || kind.legend(lab.lang.get())}</span></li>
            }
        })
        .collect_view();
    view! {
        <details class="token-legend" data-testid="token-legend">
            <summary data-testid="token-legend-toggle">{t!(i18n, stage.tokens.summary)}</summary>
            <ul aria-label=move || t_string!(i18n, stage.tokens.list_label)>{items}</ul>
            <p class="note">
                {t!(i18n, stage.tokens.note_labels)}
                {t!(i18n, stage.tokens.note_counted)}
                {t!(i18n, stage.tokens.note_outlined)}
            </p>
        </details>
    }
}
