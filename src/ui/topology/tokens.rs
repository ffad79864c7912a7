//! Message tokens drawn over the topology: one canvas above the cards, redrawn on animation
//! frames while anything moves. Each frame drains the flights the player collected, admits
//! them to the [`Sky`] (tokens up to a cap, per-edge counts beyond), and draws tokens from
//! card to card (cards are found by their `data-node` attribute). No DOM node per token;
//! no allocation per token per frame (labels are made once, scratch vectors are reused).
//!
//! The canvas carries what it shows for tests and tools: `data-tokens` (tokens drawn),
//! `data-aggregated` (flights the badges count), `data-kinds` (kinds drawn) and
//! `data-labels` (the latest tokens, "redeliver #0·2, ack #0·2").

use std::cell::RefCell;
use std::f64::consts::TAU;
use std::fmt::Write;
use std::rc::Rc;

use leptos::html::Canvas;
use leptos::prelude::*;
use leptos_use::{use_device_pixel_ratio, use_prefers_reduced_motion, use_raf_fn};
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, Element, HtmlCanvasElement};

use crate::format::count;
use crate::model::flights::{
    mark, Edge, Flight, FlightBuffer, Kind, Node, Paint, Shape, Sky, LABELS_MAX, LINE,
};
use crate::state::Lab;

/// Token radius, CSS pixels.
const RADIUS: f64 = 6.0;
/// How often card positions are read again while tokens move (layout changes as counts
/// change and the window resizes; reading every frame would force a layout every frame).
const ANCHORS_EVERY_MS: f64 = 250.0;
/// Badges with their count written out (the largest ones); the others draw their edge only.
const BADGES_MAX: usize = 12;
/// How far a token that stays in one place (a loss, a dead letter drawn in its queue) rises.
const POP_PX: f64 = 22.0;
const FONT: &str = "600 11px system-ui, sans-serif";
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

/// Where a token leaves and arrives: facing sides of the two cards (or, for one card, its
/// centre and a little above).
fn ends(a: Rect, b: Rect) -> ((f64, f64), (f64, f64)) {
    if a == b {
        return ((a.cx(), a.cy()), (a.cx(), a.cy() - POP_PX));
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
}

impl Overlay {
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
        let Some(section) = canvas.parent_element() else {
            return;
        };
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
            (Some(a), Some(b)) => Some(ends(a, b)),
            (Some(a), None) | (None, Some(a)) => Some(ends(a, a)),
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
        ctx.set_font(FONT);
        ctx.set_text_baseline("middle");
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
        for kind in Kind::ALL {
            if !placed.iter().any(|p| p.kind == kind) {
                continue;
            }
            for &(paint, shape) in mark(kind) {
                ctx.begin_path();
                for p in placed.iter().filter(|p| p.kind == kind) {
                    trace(ctx, shape, p.x, p.y, RADIUS);
                }
                paint_path(ctx, kind, paint, RADIUS);
            }
        }
        if placed.len() <= LABELS_MAX {
            ctx.set_line_width(3.0);
            ctx.set_stroke_style_str(HALO);
            ctx.set_fill_style_str(INK);
            for p in &placed {
                let label = &self.sky.tokens[p.token].label;
                let (x, y) = (p.x + RADIUS + 3.0, p.y - RADIUS - 2.0);
                let _ = ctx.stroke_text(label, x, y);
                let _ = ctx.fill_text(label, x, y);
            }
        }
        self.placed = placed;
    }

    /// Counts of the flights that did not fit, at the middle of their edges ("+312
    /// delivered"), the largest first.
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
        for &i in self.order.iter().take(BADGES_MAX) {
            let (edge, n) = *all[i];
            let Some(((x0, y0), (x1, y1))) = self.edge_ends(edge.from, edge.to) else {
                continue;
            };
            // Flights one way above the edge, the other way below, so the two do not overlap.
            let lift = if x1 >= x0 { -9.0 } else { 9.0 };
            let (x, y) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0 + lift);
            self.scratch.clear();
            let _ = write!(self.scratch, "+{} {}", count(n), edge.kind.past());
            let width = ctx.measure_text(&self.scratch).map_or(60.0, |m| m.width());
            let left = x - (width + 16.0) / 2.0;
            ctx.set_fill_style_str(HALO);
            ctx.fill_rect(left - 2.0, y - 8.0, width + 20.0, 16.0);
            ctx.begin_path();
            for &(_, shape) in mark(edge.kind) {
                trace(ctx, shape, left + 5.0, y, 4.0);
            }
            for &(paint, _) in mark(edge.kind).iter().take(1) {
                paint_path(ctx, edge.kind, paint, 4.0);
            }
            ctx.set_fill_style_str(INK);
            let _ = ctx.fill_text(&self.scratch, left + 12.0, y);
        }
    }

    /// Updates the data attributes when what they say changed.
    fn say(&mut self, canvas: &HtmlCanvasElement) {
        let drawn = if self.blank { 0 } else { self.placed.len() };
        let aggregated = if self.blank {
            0
        } else {
            self.sky.badges().total()
        };
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
                o.frame(lab, &canvas, frame.timestamp);
            }
        }
    });
    view! {
        <canvas class="tokens" node_ref=canvas_ref aria-hidden="true" data-testid="tokens"
            data-tokens="0" data-aggregated="0" data-aggregated-total="0" data-kinds="" data-labels="" />
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
pub fn TokenLegend() -> impl IntoView {
    let items = Kind::ALL
        .iter()
        .map(|&kind| {
            view! {
                <li data-kind=kind.name()>{mark_svg(kind)}<span>{kind.legend()}</span></li>
            }
        })
        .collect_view();
    view! {
        <div class="token-legend" data-testid="token-legend">
            <ul aria-label="Message tokens">{items}</ul>
            <p class="note">
                "Tokens are labelled with the message id and attempt (#77·2) when few are moving. "
                "When too many move to draw, the rest are counted on their path (“+312 delivered” per second). "
                "Outlined cards took part in the step told under the chart."
            </p>
        </div>
    }
}
