//! The first-visit tour: a few steps, each pointing at one part of the page, with Next,
//! Back and Skip; whether it opens by itself; and where its card goes so that it never
//! covers what it explains. No Leptos and no DOM: `state/tour.rs` stores the seen flag and
//! `ui/tour.rs` measures the page and draws the card.

use crate::i18n::{locale, td_string};
use brokerlab_core::lessons::Lang;

/// Key of the browser's local storage entry that says the tour was seen (or skipped).
pub const SEEN_KEY: &str = "brokerlab.tour.seen";
/// The value stored under [`SEEN_KEY`].
pub const SEEN_VALUE: &str = "1";

/// One step: what it points at and what it says.
pub struct Step {
    /// CSS selectors of the element the step explains, tried in order (the first on the
    /// page wins); none found, the card is shown on its own.
    pub targets: &'static [&'static str],
    pub title: fn(Lang) -> String,
    pub text: fn(Lang) -> String,
}

/// The steps, in order.
pub const STEPS: &[Step] = &[
    Step {
        targets: &["[role=toolbar][aria-label=Playback]", "[data-testid=play]"],
        title: |l| td_string!(locale(l), common.tour.play.title).to_string(),
        text: |l| td_string!(locale(l), common.tour.play.text).to_string(),
    },
    Step {
        targets: &["[data-testid=topology]"],
        title: |l| td_string!(locale(l), common.tour.topology.title).to_string(),
        text: |l| td_string!(locale(l), common.tour.topology.text).to_string(),
    },
    Step {
        targets: &["figure.chart", "[data-testid=chart-plot]"],
        title: |l| td_string!(locale(l), common.tour.chart.title).to_string(),
        text: |l| td_string!(locale(l), common.tour.chart.text).to_string(),
    },
    Step {
        targets: &["[data-testid=tab-parameters]", "[data-testid=parameters]"],
        title: |l| td_string!(locale(l), common.tour.rates.title).to_string(),
        text: |l| td_string!(locale(l), common.tour.rates.text).to_string(),
    },
    Step {
        targets: &["[data-testid=narration]", "[data-testid=tab-story]"],
        title: |l| td_string!(locale(l), common.tour.story.title).to_string(),
        text: |l| td_string!(locale(l), common.tour.story.text).to_string(),
    },
];

/// Whether the tour opens by itself on load: not when `?tour=off` is in the page's query
/// (for embedding and for tests), nor once it has been seen. `stored` is the seen flag as
/// read from local storage; `None` when there is none or storage is unavailable, so
/// without storage the tour shows once per visit and never blocks the page.
pub fn opens_on_load(query: &str, stored: Option<&str>) -> bool {
    let off = query
        .trim_start_matches('?')
        .split('&')
        .any(|pair| pair == "tour=off");
    !off && stored != Some(SEEN_VALUE)
}

/// The tour's state: closed, or open at a step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tour {
    at: Option<usize>,
}

/// What a button press did: the tour moved on, or it closed (and is now seen).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Moved {
    To(usize),
    Closed,
}

impl Tour {
    /// Open at the first step.
    pub fn started() -> Self {
        Self { at: Some(0) }
    }

    pub fn is_open(&self) -> bool {
        self.at.is_some()
    }

    /// The step shown, if open.
    pub fn step(&self) -> Option<&'static Step> {
        self.at.and_then(|i| STEPS.get(i))
    }

    /// The index of the step shown, if open.
    pub fn index(&self) -> Option<usize> {
        self.at
    }

    /// "2 of 5", for the card.
    pub fn progress(&self, lang: Lang) -> String {
        self.at
            .map(|i| {
                let (k, n) = (i + 1, STEPS.len());
                td_string!(locale(lang), common.tour.progress, k, n).to_string()
            })
            .unwrap_or_default()
    }

    pub fn is_first(&self) -> bool {
        self.at == Some(0)
    }

    pub fn is_last(&self) -> bool {
        self.at == Some(STEPS.len() - 1)
    }

    /// Next step; past the last one, the tour closes.
    pub fn forward(&mut self) -> Moved {
        self.at = self.at.map(|i| i + 1).filter(|&i| i < STEPS.len());
        self.moved()
    }

    /// The step before; on the first, it stays.
    pub fn back(&mut self) -> Moved {
        self.at = self.at.map(|i| i.saturating_sub(1));
        self.moved()
    }

    /// Closes the tour wherever it is.
    pub fn skip(&mut self) -> Moved {
        self.at = None;
        Moved::Closed
    }

    fn moved(&self) -> Moved {
        self.at.map_or(Moved::Closed, Moved::To)
    }
}

/// A rectangle in CSS pixels, in the viewport's coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub left: f64,
    pub top: f64,
    pub width: f64,
    pub height: f64,
}

impl Rect {
    pub fn right(&self) -> f64 {
        self.left + self.width
    }

    pub fn bottom(&self) -> f64 {
        self.top + self.height
    }

    /// Area shared with `other` (0 when they do not meet).
    pub fn overlap(&self, other: &Rect) -> f64 {
        let w = self.right().min(other.right()) - self.left.max(other.left);
        let h = self.bottom().min(other.bottom()) - self.top.max(other.top);
        w.max(0.0) * h.max(0.0)
    }
}

/// Viewports narrower than this get the card as a sheet along the bottom (or top) edge.
pub const NARROW_PX: f64 = 640.0;
/// Space between the card, the element it explains and the viewport's edges.
pub const GAP_PX: f64 = 12.0;

/// Where the card goes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Spot {
    /// At this position (its top left corner, viewport coordinates).
    At { left: f64, top: f64 },
    /// Full width along the viewport's bottom edge.
    BottomSheet,
    /// Full width along the viewport's top edge.
    TopSheet,
}

/// How far to scroll the page (down, in pixels; negative is up) so that the target and
/// the card can both be seen: the target centred when the card fits beside or under it,
/// else its top just below room for the card. On a narrow screen the target goes to the
/// top, above the sheet.
pub fn scroll_for(view: (f64, f64), target: &Rect, card: (f64, f64)) -> f64 {
    let (vw, vh) = view;
    let (cw, ch) = card;
    if vw < NARROW_PX {
        return target.top - GAP_PX;
    }
    let beside = target.left >= cw + 2.0 * GAP_PX || vw - target.right() >= cw + 2.0 * GAP_PX;
    let tall = target.height + ch + 3.0 * GAP_PX > vh;
    if beside || !tall {
        let block = if beside {
            target.height
        } else {
            target.height + GAP_PX + ch
        };
        target.top - ((vh - block) / 2.0).max(GAP_PX)
    } else {
        target.top - (ch + 2.0 * GAP_PX)
    }
}

/// Where the card goes, once the target is scrolled into view: beside it, then under or
/// over it, each only if the card fits in the viewport there; when none does, the place
/// that covers the least of it. Narrow screens get a sheet on the side away from it.
pub fn place(view: (f64, f64), target: Option<&Rect>, card: (f64, f64)) -> Spot {
    let (vw, vh) = view;
    let (cw, ch) = card;
    let Some(t) = target else {
        return Spot::BottomSheet;
    };
    if vw < NARROW_PX {
        let covers_bottom = t.bottom() > vh - ch - GAP_PX;
        let room_on_top = t.top >= ch + GAP_PX;
        return if covers_bottom && room_on_top {
            Spot::TopSheet
        } else {
            Spot::BottomSheet
        };
    }
    let clamp_x = |x: f64| x.min(vw - cw - GAP_PX).max(GAP_PX);
    let clamp_y = |y: f64| y.min(vh - ch - GAP_PX).max(GAP_PX);
    let candidates = [
        (t.right() + GAP_PX, clamp_y(t.top)),
        (t.left - GAP_PX - cw, clamp_y(t.top)),
        (clamp_x(t.left), t.bottom() + GAP_PX),
        (clamp_x(t.left), t.top - GAP_PX - ch),
    ];
    let fits = |&(x, y): &(f64, f64)| {
        x >= GAP_PX - 0.5
            && y >= GAP_PX - 0.5
            && x + cw <= vw - GAP_PX + 0.5
            && y + ch <= vh - GAP_PX + 0.5
    };
    let (left, top) = candidates.iter().copied().find(fits).unwrap_or_else(|| {
        least_covering(candidates.map(|(x, y)| (clamp_x(x), clamp_y(y))), t, card)
    });
    Spot::At { left, top }
}

/// Of the positions given, the one whose card covers the least of the target.
fn least_covering(at: [(f64, f64); 4], target: &Rect, card: (f64, f64)) -> (f64, f64) {
    let covered = |&(left, top): &(f64, f64)| {
        target.overlap(&Rect {
            left,
            top,
            width: card.0,
            height: card.1,
        })
    };
    at.into_iter()
        .min_by(|a, b| covered(a).total_cmp(&covered(b)))
        .unwrap_or((GAP_PX, GAP_PX))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rect(left: f64, top: f64, width: f64, height: f64) -> Rect {
        Rect {
            left,
            top,
            width,
            height,
        }
    }

    fn card_at(spot: Spot, card: (f64, f64)) -> Rect {
        match spot {
            Spot::At { left, top } => rect(left, top, card.0, card.1),
            other => panic!("expected a position, got {other:?}"),
        }
    }

    #[test]
    fn next_and_back_walk_the_steps_and_next_on_the_last_closes() {
        let mut tour = Tour::started();
        assert!(tour.is_open() && tour.is_first() && !tour.is_last());
        assert_eq!(
            tour.progress(Lang::En),
            format!("Tour · 1 of {}", STEPS.len())
        );
        assert_eq!(
            tour.progress(Lang::Es),
            format!("Guía · 1 de {}", STEPS.len())
        );
        assert_eq!(tour.back(), Moved::To(0), "back on the first step stays");
        for i in 1..STEPS.len() {
            assert_eq!(tour.forward(), Moved::To(i));
        }
        assert!(tour.is_last());
        assert_eq!(tour.back(), Moved::To(STEPS.len() - 2));
        assert_eq!(tour.forward(), Moved::To(STEPS.len() - 1));
        assert_eq!(tour.forward(), Moved::Closed);
        assert!(!tour.is_open());
        assert!(tour.step().is_none());
        assert_eq!(tour.progress(Lang::En), "");
    }

    #[test]
    fn skip_closes_from_any_step_and_a_closed_tour_stays_closed() {
        let mut tour = Tour::started();
        tour.forward();
        assert_eq!(tour.skip(), Moved::Closed);
        assert_eq!(tour, Tour::default());
        assert_eq!(tour.forward(), Moved::Closed);
        assert_eq!(tour.back(), Moved::Closed);
        assert!(!tour.is_first() && !tour.is_last());
    }

    #[test]
    fn there_are_four_to_six_short_steps_each_with_a_target() {
        assert!((4..=6).contains(&STEPS.len()));
        for (step, lang) in STEPS.iter().flat_map(|s| Lang::ALL.map(|l| (s, l))) {
            let (title, text) = ((step.title)(lang), (step.text)(lang));
            assert!(!step.targets.is_empty() && !title.is_empty());
            // Spanish runs longer than English: the card grows by a line, not more.
            assert!(text.chars().count() <= 300, "“{title}” is long for a tour");
        }
    }

    #[test]
    fn it_opens_on_a_first_visit_only_and_never_with_tour_off() {
        assert!(opens_on_load("", None));
        assert!(opens_on_load("?seed=3", Some("")));
        assert!(!opens_on_load("", Some(SEEN_VALUE)));
        assert!(!opens_on_load("?tour=off", None));
        assert!(!opens_on_load("?a=1&tour=off", None));
        assert!(
            opens_on_load("?tour=offline", None),
            "only the exact pair turns it off"
        );
    }

    #[test]
    fn the_card_goes_beside_a_narrow_target_without_covering_it() {
        let view = (1280.0, 720.0);
        let card = (320.0, 180.0);
        let target = rect(40.0, 200.0, 600.0, 300.0);
        let spot = place(view, Some(&target), card);
        let at = card_at(spot, card);
        assert_eq!(at.overlap(&target), 0.0);
        assert_eq!(at.left, target.right() + GAP_PX, "to its right");
    }

    #[test]
    fn a_full_width_target_gets_the_card_under_or_over_it() {
        let view = (1280.0, 720.0);
        let card = (320.0, 180.0);
        let short = rect(0.0, 100.0, 1280.0, 60.0);
        let under = card_at(place(view, Some(&short), card), card);
        assert_eq!(under.top, short.bottom() + GAP_PX);
        // Tall: scrolled so its top leaves room for the card above it.
        let tall = rect(0.0, 900.0, 1280.0, 650.0);
        let dy = scroll_for(view, &tall, card);
        let scrolled = rect(0.0, tall.top - dy, 1280.0, 650.0);
        let over = card_at(place(view, Some(&scrolled), card), card);
        assert_eq!(over.overlap(&scrolled), 0.0);
        assert!(over.bottom() <= scrolled.top);
    }

    #[test]
    fn when_nothing_fits_the_card_covers_as_little_as_it_can() {
        let view = (1280.0, 720.0);
        let card = (320.0, 180.0);
        let huge = rect(0.0, 100.0, 1280.0, 900.0);
        let at = card_at(place(view, Some(&huge), card), card);
        assert!(
            at.overlap(&huge) < card.0 * card.1,
            "not wholly over it: {at:?}"
        );
        assert!(at.top >= GAP_PX && at.bottom() <= view.1 - GAP_PX);
    }

    #[test]
    fn narrow_screens_get_a_sheet_away_from_the_target() {
        let view = (390.0, 844.0);
        let card = (390.0, 220.0);
        assert_eq!(
            place(view, Some(&rect(0.0, 12.0, 390.0, 300.0)), card),
            Spot::BottomSheet
        );
        assert_eq!(
            place(view, Some(&rect(0.0, 600.0, 390.0, 200.0)), card),
            Spot::TopSheet
        );
        assert_eq!(place(view, None, card), Spot::BottomSheet);
        assert_eq!(
            scroll_for(view, &rect(0.0, 1000.0, 390.0, 300.0), card),
            1000.0 - GAP_PX
        );
    }
}
