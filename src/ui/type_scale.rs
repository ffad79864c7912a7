//! The page's type scale: the root element's font size over the usual 16 px. Large type
//! and big screens raise it; what the canvases draw (chart text and marks, token labels and
//! badges) is multiplied by it, so it grows with the HTML text around it.

/// The root font size in CSS pixels, over 16 (1 when it cannot be read).
pub fn type_scale() -> f64 {
    let px = web_sys::window()
        .and_then(|w| {
            let root = w.document()?.document_element()?;
            w.get_computed_style(&root).ok().flatten()
        })
        .and_then(|style| style.get_property_value("font-size").ok())
        .and_then(|size| parse_px(&size));
    sane(px.map_or(1.0, |px| px / 16.0))
}

/// "22px" → 22.
fn parse_px(text: &str) -> Option<f64> {
    text.trim().strip_suffix("px")?.trim().parse().ok()
}

/// A scale within reason: a broken style sheet must not draw the chart at 0 or 1000×.
fn sane(scale: f64) -> f64 {
    if scale.is_finite() {
        scale.clamp(0.5, 4.0)
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn font_sizes_in_pixels_are_read() {
        assert_eq!(parse_px("22px"), Some(22.0));
        assert_eq!(parse_px(" 16.5px "), Some(16.5));
        assert_eq!(parse_px("1.2em"), None);
        assert_eq!(parse_px(""), None);
    }

    #[test]
    fn the_scale_stays_within_reason() {
        assert_eq!(sane(1.375), 1.375);
        assert_eq!(sane(0.0), 0.5);
        assert_eq!(sane(f64::NAN), 1.0);
        assert_eq!(sane(1e9), 4.0);
    }
}
