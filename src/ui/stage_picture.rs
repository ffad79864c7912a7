//! A picture of the stage, drawn from the page itself onto a canvas of its own: each box
//! with a background or a border (lanes, cards, counters), each visible text where the page
//! laid it out, then the canvases (the chart, the tokens over the cards) at their places.
//! The still PNG and every frame of a recording are made this way — no server, no library.
//!
//! It is a sketch of the page, not a screenshot: rounded corners, shadows and icons drawn by
//! CSS are left out, and text is written in the font and colour the page computed for it.

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{
    CanvasRenderingContext2d, CssStyleDeclaration, DomRect, Element, HtmlCanvasElement, Node,
};

use crate::model::recording::picture_size;

/// `NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT`.
const SHOW_ELEMENTS_AND_TEXT: u32 = 0x1 | 0x4;
/// Text in a box smaller than this (CSS pixels) is for screen readers only.
const TEXT_MIN_PX: f64 = 2.0;

/// An offscreen canvas the stage is drawn on, at a fixed size: every frame of a recording
/// has the size of the first, even if the stage grows meanwhile (what goes beyond is cut).
pub struct Picture {
    canvas: HtmlCanvasElement,
    context: CanvasRenderingContext2d,
    scale: f64,
}

/// How large a picture is made.
#[derive(Clone, Copy)]
pub enum Fit {
    /// As sharp as the screen shows it (at most twice the CSS pixels): the still PNG.
    Screen,
    /// Scaled down to the recording's width limit.
    Recording,
}

impl Picture {
    /// A picture the size of the stage now.
    pub fn of_stage(fit: Fit) -> Result<Picture, JsValue> {
        let rect = stage()?.get_bounding_client_rect();
        let (width, height, scale) = match fit {
            Fit::Screen => {
                let scale = window().device_pixel_ratio().clamp(1.0, 2.0);
                let side = |v: f64| (v * scale).round().max(1.0) as u32;
                (side(rect.width()), side(rect.height()), scale)
            }
            Fit::Recording => {
                let (w, h, scale) = picture_size(rect.width(), rect.height());
                (u32::from(w), u32::from(h), scale)
            }
        };
        let canvas: HtmlCanvasElement = document().create_element("canvas")?.unchecked_into();
        canvas.set_width(width);
        canvas.set_height(height);
        let context: CanvasRenderingContext2d = canvas
            .get_context("2d")?
            .ok_or_else(|| JsValue::from_str("no 2d context"))?
            .unchecked_into();
        Ok(Picture {
            canvas,
            context,
            scale,
        })
    }

    pub fn width(&self) -> u32 {
        self.canvas.width()
    }

    pub fn height(&self) -> u32 {
        self.canvas.height()
    }

    /// Draws the stage as it is now, on white.
    pub fn draw(&self) -> Result<(), JsValue> {
        let ctx = &self.context;
        ctx.set_transform(1.0, 0.0, 0.0, 1.0, 0.0, 0.0)?;
        ctx.set_fill_style_str("#ffffff");
        ctx.fill_rect(0.0, 0.0, f64::from(self.width()), f64::from(self.height()));
        ctx.set_transform(self.scale, 0.0, 0.0, self.scale, 0.0, 0.0)?;
        let root = stage()?;
        let origin = root.get_bounding_client_rect();
        let walker =
            document().create_tree_walker_with_what_to_show(&root, SHOW_ELEMENTS_AND_TEXT)?;
        // Canvases are drawn last, in page order: the tokens lie over the cards.
        let mut canvases = Vec::new();
        while let Some(node) = walker.next_node()? {
            if node.node_type() == Node::TEXT_NODE {
                self.draw_text(&node, &origin)?;
            } else if let Some(canvas) = node.dyn_ref::<HtmlCanvasElement>() {
                canvases.push(canvas.clone());
            } else if let Some(element) = node.dyn_ref::<Element>() {
                self.draw_box(element, &origin)?;
            }
        }
        for canvas in canvases {
            self.draw_canvas(&canvas, &origin)?;
        }
        Ok(())
    }

    /// The picture's pixels, RGBA row by row.
    pub fn rgba(&self) -> Result<Vec<u8>, JsValue> {
        let (w, h) = (f64::from(self.width()), f64::from(self.height()));
        Ok(self.context.get_image_data(0.0, 0.0, w, h)?.data().0)
    }

    /// The picture as a PNG `data:` address.
    pub fn png_url(&self) -> Result<String, JsValue> {
        self.canvas.to_data_url_with_type("image/png")
    }

    /// An element's background and borders, if it has any.
    fn draw_box(&self, element: &Element, origin: &DomRect) -> Result<(), JsValue> {
        let style = computed(element)?;
        let rect = element.get_bounding_client_rect();
        if !shown(&style) || rect.width() <= 0.0 || rect.height() <= 0.0 {
            return Ok(());
        }
        let (x, y) = (rect.left() - origin.left(), rect.top() - origin.top());
        let (w, h) = (rect.width(), rect.height());
        let ctx = &self.context;
        let background = style.get_property_value("background-color")?;
        if painted(&background) {
            ctx.set_fill_style_str(&background);
            ctx.fill_rect(x, y, w, h);
        }
        for side in ["top", "right", "bottom", "left"] {
            let width = px(&style.get_property_value(&format!("border-{side}-width"))?);
            let color = style.get_property_value(&format!("border-{side}-color"))?;
            let line = style.get_property_value(&format!("border-{side}-style"))?;
            if width <= 0.0 || !painted(&color) || line == "none" || line == "hidden" {
                continue;
            }
            ctx.set_fill_style_str(&color);
            match side {
                "top" => ctx.fill_rect(x, y, w, width),
                "bottom" => ctx.fill_rect(x, y + h - width, w, width),
                "left" => ctx.fill_rect(x, y, width, h),
                _ => ctx.fill_rect(x + w - width, y, width, h),
            }
        }
        Ok(())
    }

    /// A text node, line by line where the page wrapped it.
    fn draw_text(&self, node: &Node, origin: &DomRect) -> Result<(), JsValue> {
        let text = node.text_content().unwrap_or_default();
        let Some(parent) = node.parent_element() else {
            return Ok(());
        };
        if text.trim().is_empty() {
            return Ok(());
        }
        let style = computed(&parent)?;
        if !shown(&style) {
            return Ok(());
        }
        let range = document().create_range()?;
        range.select_node_contents(node)?;
        let Some(rects) = range.get_client_rects() else {
            return Ok(());
        };
        let lines: Vec<DomRect> = (0..rects.length())
            .filter_map(|i| rects.get(i))
            .filter(|r| r.width() >= TEXT_MIN_PX && r.height() >= TEXT_MIN_PX)
            .collect();
        if lines.is_empty() {
            return Ok(());
        }
        let ctx = &self.context;
        ctx.set_font(&font(&style)?);
        ctx.set_fill_style_str(&style.get_property_value("color")?);
        ctx.set_text_baseline("middle");
        let mut words = text.split_whitespace().peekable();
        for (i, line) in lines.iter().enumerate() {
            let last = i + 1 == lines.len();
            let mut written = String::new();
            while let Some(word) = words.peek() {
                let wider = format!("{written} {word}");
                let wider = wider.trim_start();
                let fits = ctx.measure_text(wider)?.width() <= line.width() + 1.0;
                if !written.is_empty() && !fits && !last {
                    break;
                }
                written = wider.to_string();
                words.next();
            }
            let (x, y) = (line.left() - origin.left(), line.top() - origin.top());
            ctx.fill_text_with_max_width(&written, x, y + line.height() / 2.0, line.width() + 1.0)?;
        }
        Ok(())
    }

    /// A canvas of the page at its place and CSS size.
    fn draw_canvas(&self, canvas: &HtmlCanvasElement, origin: &DomRect) -> Result<(), JsValue> {
        let rect = canvas.get_bounding_client_rect();
        let empty = canvas.width() == 0 || canvas.height() == 0;
        if empty || rect.width() <= 0.0 || rect.height() <= 0.0 || !shown(&computed(canvas)?) {
            return Ok(());
        }
        let (x, y) = (rect.left() - origin.left(), rect.top() - origin.top());
        self.context
            .draw_image_with_html_canvas_element_and_dw_and_dh(
                canvas,
                x,
                y,
                rect.width(),
                rect.height(),
            )
    }
}

/// The stage element of the page.
fn stage() -> Result<Element, JsValue> {
    document()
        .query_selector("[data-testid=stage]")?
        .ok_or_else(|| JsValue::from_str("no stage"))
}

fn computed(element: &Element) -> Result<CssStyleDeclaration, JsValue> {
    window()
        .get_computed_style(element)?
        .ok_or_else(|| JsValue::from_str("no style"))
}

/// False for what takes room but is not seen.
fn shown(style: &CssStyleDeclaration) -> bool {
    let visibility = style.get_property_value("visibility").unwrap_or_default();
    let opacity = style.get_property_value("opacity").unwrap_or_default();
    visibility != "hidden" && visibility != "collapse" && opacity != "0"
}

/// False for a transparent colour (how computed styles spell "nothing painted").
fn painted(color: &str) -> bool {
    !color.is_empty() && color != "transparent" && !color.ends_with(", 0)")
}

/// A computed length such as "1.5px", in pixels.
fn px(length: &str) -> f64 {
    length.trim_end_matches("px").parse().unwrap_or(0.0)
}

/// The canvas font for a computed style (the `font` shorthand is not always computed).
fn font(style: &CssStyleDeclaration) -> Result<String, JsValue> {
    let part = |name: &str| style.get_property_value(name);
    Ok(format!(
        "{} {} {} {}",
        part("font-style")?,
        part("font-weight")?,
        part("font-size")?,
        part("font-family")?
    ))
}
