//! The tour card: one step at a time beside the part of the page it explains, with Back,
//! Next (Done on the last step) and Skip. It is not modal: the page stays usable. Escape
//! skips it, wherever the focus is. The steps, the rules and the placement are in
//! `model/tour.rs`; this file measures the page and draws.

use leptos::prelude::*;
use leptos_use::{use_event_listener, use_window};
use wasm_bindgen::JsCast;

use crate::i18n::{lang_of, t, t_string, use_i18n};
use crate::model::tour::{place, scroll_for, Rect, Spot, Step};
use crate::state::Tools;

/// Attribute set on the element the shown step explains (the stylesheet outlines it).
const TARGET_ATTR: &str = "data-tour-target";

/// The first element on the page that the step points at and that is shown.
fn target_of(step: &Step) -> Option<web_sys::Element> {
    step.targets.iter().find_map(|selector| {
        let el = document().query_selector(selector).ok().flatten()?;
        let r = el.get_bounding_client_rect();
        (r.width() > 0.0 && r.height() > 0.0).then_some(el)
    })
}

fn rect_of(el: &web_sys::Element) -> Rect {
    let r = el.get_bounding_client_rect();
    Rect {
        left: r.left(),
        top: r.top(),
        width: r.width(),
        height: r.height(),
    }
}

/// The viewport's size in CSS pixels, without the scrollbar.
fn viewport() -> (f64, f64) {
    document().document_element().map_or((0.0, 0.0), |root| {
        (
            f64::from(root.client_width()),
            f64::from(root.client_height()),
        )
    })
}

fn size_of(card: &web_sys::HtmlElement) -> (f64, f64) {
    (
        f64::from(card.offset_width()),
        f64::from(card.offset_height()),
    )
}

/// Moves the outline to `target` (and off whatever had it).
fn mark_target(target: Option<&web_sys::Element>) {
    if let Ok(marked) = document().query_selector_all(&format!("[{TARGET_ATTR}]")) {
        for i in 0..marked.length() {
            if let Some(el) = marked
                .item(i)
                .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
            {
                let _ = el.remove_attribute(TARGET_ATTR);
            }
        }
    }
    if let Some(el) = target {
        let _ = el.set_attribute(TARGET_ATTR, "");
    }
}

/// The card's inline style and class for where it goes.
fn spot_style(spot: Spot) -> (String, &'static str) {
    match spot {
        Spot::At { left, top } => (format!("left: {left:.0}px; top: {top:.0}px;"), "tour-card"),
        Spot::BottomSheet => (String::new(), "tour-card sheet bottom"),
        Spot::TopSheet => (String::new(), "tour-card sheet top"),
    }
}

#[component]
pub fn TourCard(tools: Tools) -> impl IntoView {
    let state = tools.tour;
    let card = NodeRef::<leptos::html::Div>::new();
    let next = NodeRef::<leptos::html::Button>::new();
    let spot = RwSignal::new(Spot::BottomSheet);
    // Places the card beside the step's target as the page is now (no scrolling).
    let reposition = move || {
        let (Some(step), Some(el)) = (
            state.tour.with_untracked(|t| t.step()),
            card.get_untracked(),
        ) else {
            return;
        };
        let target = target_of(step).map(|t| rect_of(&t));
        spot.set(place(viewport(), target.as_ref(), size_of(&el)));
    };
    // A new step: outline its target, scroll it into view, then place the card and keep
    // the focus in the card.
    Effect::new(move |_| {
        let Some(step) = state.tour.with(|t| t.step()) else {
            mark_target(None);
            return;
        };
        request_animation_frame(move || {
            let target = target_of(step);
            mark_target(target.as_ref());
            if let (Some(t), Some(el)) = (&target, card.get_untracked()) {
                let dy = scroll_for(viewport(), &rect_of(t), size_of(&el));
                window().scroll_by_with_x_and_y(0.0, dy);
            }
            reposition();
            focus_into(card, next);
        });
    });
    let _ = use_event_listener(use_window(), leptos::ev::resize, move |_| reposition());
    let _ = use_event_listener(use_window(), leptos::ev::scroll, move |_| reposition());
    // Escape skips the tour wherever the focus is (the help's own Escape comes first).
    let _ = use_event_listener(use_window(), leptos::ev::keydown, move |ev| {
        if ev.key() == "Escape" && !tools.help_open.get_untracked() {
            state.skip();
        }
    });
    let on_keydown = move |ev: web_sys::KeyboardEvent| {
        // Keys pressed in the card are for the card, not for the page's shortcuts.
        ev.stop_propagation();
        if ev.key() == "Escape" {
            ev.prevent_default();
            state.skip();
        }
    };
    let look = Memo::new(move |_| spot_style(spot.get()));
    let step = move || state.tour.with(|t| t.step());
    let i18n = use_i18n();
    view! {
        <Show when=move || state.tour.with(|t| t.is_open())>
            <div class=move || look.get().1 style=move || look.get().0 node_ref=card
                role="dialog" aria-modal="false" aria-labelledby="tour-title" aria-describedby="tour-text"
                tabindex="-1" data-testid="tour"
                data-step=move || state.tour.with(|t| t.index().unwrap_or_default().to_string())
                on:keydown=on_keydown>
                <p class="tour-progress" data-testid="tour-progress">
                    {move || state.tour.with(|t| t.progress(lang_of(i18n)))}
                </p>
                <h2 id="tour-title" data-testid="tour-title">{move || step().map(|s| (s.title)(lang_of(i18n)))}</h2>
                <p id="tour-text">{move || step().map(|s| (s.text)(lang_of(i18n)))}</p>
                <div class="tour-buttons">
                    <button type="button" data-testid="tour-back" on:click=move |_| state.back()
                        disabled=move || state.tour.with(|t| t.is_first())>{t!(i18n, common.tour.back)}</button>
                    <button type="button" class="primary" data-testid="tour-next" node_ref=next
                        on:click=move |_| state.next()>
                        {move || if state.tour.with(|t| t.is_last()) {
                            t_string!(i18n, common.tour.done)
                        } else {
                            t_string!(i18n, common.tour.next)
                        }}
                    </button>
                    <button type="button" data-testid="tour-skip" on:click=move |_| state.skip()>{t!(i18n, common.tour.skip)}</button>
                </div>
            </div>
        </Show>
    }
}

/// Keeps the focus in the card: on Next when it is not already on one of the card's
/// buttons (just opened, or Back went disabled on the first step).
fn focus_into(card: NodeRef<leptos::html::Div>, next: NodeRef<leptos::html::Button>) {
    let inside = card.get_untracked().is_some_and(|c| {
        document()
            .active_element()
            .is_some_and(|a| c.contains(Some(&a)) && !a.is_same_node(Some(&c)) && !is_disabled(&a))
    });
    if !inside {
        if let Some(button) = next.get_untracked() {
            let _ = button.focus();
        }
    }
}

fn is_disabled(el: &web_sys::Element) -> bool {
    el.has_attribute("disabled")
}
