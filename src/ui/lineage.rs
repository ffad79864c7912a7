//! The message history panel: a sequence diagram of one message's [`Lineage`].

use leptos::prelude::*;
use leptos_use::{use_event_listener, use_window};

use crate::format::{count, fixed};
use crate::i18n::{lang_of, t, t_string, use_i18n, I18n};
use crate::model::lineage::*;
use crate::ui::focus::focus_id;

/// The lineage panel: the sequence diagram and the same facts as a list, or why there is
/// none. Escape closes it.
#[component]
pub fn LineagePanel(
    lineage: RwSignal<Option<Result<Lineage, Bilingual>>>,
    /// Rebuilds the open lineage up to the current step.
    on_refresh: Callback<()>,
) -> impl IntoView {
    let _ = use_event_listener(use_window(), leptos::ev::keydown, move |ev| {
        if ev.key() == "Escape" && lineage.with_untracked(Option::is_some) {
            lineage.set(None);
            ev.prevent_default();
        }
    });
    keep_focus(lineage);
    let i18n = use_i18n();
    // The history is held in both languages: a switch re-renders it in the other at once.
    let body = move || {
        let lang = lang_of(i18n);
        lineage.with(|l| match l {
            None => ().into_any(),
            Some(Err(problem)) => {
                let problem = problem.get(lang).to_string();
                view! { <p class="problem" role="alert" data-testid="lineage-problem">{problem}</p> }
                    .into_any()
            }
            Some(Ok(l)) => lineage_view(l, i18n).into_any(),
        })
    };
    let title = move || {
        lineage.with(|l| match l {
            Some(Ok(l)) => {
                let (msg, step) = (l.msg, count(l.upto_step, lang_of(i18n)));
                t_string!(i18n, story.lineage_panel.title, msg = msg, step = step).to_string()
            }
            _ => t_string!(i18n, story.lineage_panel.title_none).to_string(),
        })
    };
    // The side panel is narrow for a diagram of four or five lifelines: enlarged, the
    // history covers the page (for a class to read), until shrunk or closed.
    let wide = RwSignal::new(false);
    Effect::new(move |_| {
        if lineage.with(Option::is_none) {
            wide.set(false);
        }
    });
    view! {
        <section class="panel lineage" aria-labelledby="lineage-title" data-testid="lineage"
            class:wide=move || wide.get()
            hidden=move || lineage.with(Option::is_none)>
            <h2 id="lineage-title" data-testid="lineage-title" tabindex="-1">{title}</h2>
            <div class="lineage-actions">
                <button type="button" data-testid="lineage-refresh"
                    on:click=move |_| on_refresh.run(())>{t!(i18n, story.lineage_panel.refresh)}</button>
                <button type="button" data-testid="lineage-enlarge" aria-pressed=move || wide.get().to_string()
                    on:click=move |_| wide.update(|w| *w = !*w)>
                    {move || if wide.get() {
                        t_string!(i18n, story.lineage_panel.shrink).to_string()
                    } else {
                        t_string!(i18n, story.lineage_panel.enlarge).to_string()
                    }}
                </button>
                <button type="button" data-testid="lineage-close" aria-keyshortcuts="Escape"
                    title=move || t_string!(i18n, story.lineage_panel.close_title)
                    on:click=move |_| lineage.set(None)>{t!(i18n, story.lineage_panel.close)}</button>
            </div>
            {body}
        </section>
    }
}

/// Keeps the keyboard's focus on something the eye can see. A history opened from the
/// event log hides the panel holding the message's link, and closing it hides the
/// history's own buttons: either way the focus fell back to the page's start. It goes to
/// the history's title when it opens, and to the History tab when it closes, unless it is
/// somewhere still on show.
fn keep_focus(lineage: RwSignal<Option<Result<Lineage, Bilingual>>>) {
    Effect::new(move |was_open: Option<bool>| {
        let open = lineage.with(Option::is_some);
        // The panel is mounted only while its tab is on show, so opening a history from
        // another tab mounts it already open: its first run counts as the opening.
        let changed = match was_open {
            None => open,
            Some(was) => was != open,
        };
        if changed {
            // Once the panels' hidden attributes are applied: only then is the link that
            // opened the history (or the button that closed it) out of sight.
            request_animation_frame(move || {
                if focus_lost() {
                    focus_id(if open { "lineage-title" } else { "tab-history" });
                }
            });
        }
        open
    });
}

/// No element has the focus, or the one that has it is no longer laid out (hidden).
fn focus_lost() -> bool {
    match document().active_element() {
        None => true,
        Some(el) => {
            el.tag_name().eq_ignore_ascii_case("body")
                || el.get_client_rects().length() == 0
                || el.closest("[data-testid=lineage]").ok().flatten().is_some()
        }
    }
}

/// Diagram geometry, in SVG user units (the SVG is scaled with the page's rem).
const GUTTER: f64 = 84.0;
const COL_W: f64 = 190.0;
const HEAD_H: f64 = 62.0;
const ROW_H: f64 = 36.0;
/// Room on the right for the labels of self-arrows on the last lifeline.
const RIGHT_PAD: f64 = 230.0;

fn lifeline_x(i: usize) -> f64 {
    GUTTER + COL_W * i as f64 + COL_W / 2.0
}

/// The y of row `i`'s arrow (row 0 sits just below the heads, its label above it).
fn row_y(i: usize) -> f64 {
    HEAD_H + ROW_H * (i as f64 + 0.8)
}

/// The history in the page's language now (the caller re-runs this on a switch).
fn lineage_view(l: &Lineage, i18n: I18n) -> impl IntoView {
    let lang = lang_of(i18n);
    if l.rows.is_empty() {
        return view! { <p class="none" data-testid="lineage-none">{t!(i18n, story.lineage_panel.nothing_yet)}</p> }
            .into_any();
    }
    let more = (l.more > 0).then(|| {
        let n = l.more;
        view! { <p class="more" data-testid="lineage-more">{t_string!(i18n, story.lineage_panel.more, n = n).to_string()}</p> }
    });
    let decimals = l.time_decimals();
    let rows = l
        .rows
        .iter()
        .map(|r| {
            let (step, time) = (count(r.step, lang), fixed(r.time_s, decimals, lang));
            view! {
                <li data-testid="lineage-row" data-lane=r.lane.label() data-kind=r.kind.class()>
                    <span class="at">{t_string!(i18n, story.lineage_panel.at, step = step, time = time).to_string()}</span>
                    " "
                    <span class="what">
                        <span class="lane-name">{r.lane.name(lang)}": "</span>{r.text.get(lang).to_string()}
                    </span>
                </li>
            }
        })
        .collect_view();
    view! {
        <p class="seq-legend" aria-hidden="true">
            <span class="key normal">{t!(i18n, story.lineage_panel.legend.message)}</span>
            <span class="key reply">{t!(i18n, story.lineage_panel.legend.answer)}</span>
            <span class="key failure">{t!(i18n, story.lineage_panel.legend.failure)}</span>
            <span class="key duplicate">{t!(i18n, story.lineage_panel.legend.duplicate)}</span>
        </p>
        <div class="seq-scroll" tabindex="0" role="region"
            aria-label=move || t_string!(i18n, story.lineage_panel.diagram_region)>
            {diagram(l, i18n)}
        </div>
        {more}
        <details class="seq-text">
            <summary>{t!(i18n, story.lineage_panel.as_text)}</summary>
            <ol class="seq-list" data-testid="lineage-rows"
                aria-label=move || t_string!(i18n, story.lineage_panel.rows_label)>{rows}</ol>
        </details>
    }
    .into_any()
}

/// The sequence diagram: lifelines with a head box each, one arrow per row.
fn diagram(l: &Lineage, i18n: I18n) -> impl IntoView {
    let lang = lang_of(i18n);
    let decimals = l.time_decimals();
    let n = l.participants.len().max(1);
    let width = GUTTER + COL_W * n as f64 + RIGHT_PAD;
    let height = row_y(l.rows.len().saturating_sub(1)) + ROW_H * 0.6;
    let heads = l
        .participants
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let x = lifeline_x(i);
            view! {
                <g class="lifeline" data-testid="lineage-lifeline">
                    <line class="life" x1=x y1=HEAD_H - 8.0 x2=x y2=height />
                    <rect class="head" x=x - COL_W / 2.0 + 8.0 y="4" width=COL_W - 16.0 height=HEAD_H - 12.0 rx="6" />
                    <text class="role" x=x y="22" text-anchor="middle">{p.role_name(lang)}</text>
                    <text class="name" x=x y="42" text-anchor="middle">{p.name.get(lang).to_string()}</text>
                </g>
            }
        })
        .collect_view();
    let arrows = l
        .rows
        .iter()
        .enumerate()
        .map(|(i, r)| arrow_view(i, r, decimals, lang))
        .collect_view();
    let (msg, facts, participants) = (l.msg, l.rows.len(), l.participants.len());
    let label = t_string!(
        i18n,
        story.lineage_panel.diagram_label,
        msg = msg,
        facts = facts,
        participants = participants
    )
    .to_string();
    view! {
        <svg class="seq" data-testid="lineage-svg" role="img"
            aria-label=label
            viewBox=format!("0 0 {width} {height}")
            style=format!("width: {:.2}rem", width / 16.0)>
            <defs>
                <marker id="seq-head-normal" class="normal" viewBox="0 0 10 10" refX="10" refY="5"
                    markerWidth="6" markerHeight="6" orient="auto-start-reverse">
                    <path d="M0,0 L10,5 L0,10 z" />
                </marker>
                <marker id="seq-head-reply" class="reply" viewBox="0 0 10 10" refX="10" refY="5"
                    markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                    <path d="M0,0 L10,5 L0,10" fill="none" />
                </marker>
                <marker id="seq-head-failure" class="failure" viewBox="0 0 10 10" refX="5" refY="5"
                    markerWidth="8" markerHeight="8" orient="auto">
                    <path d="M1,1 L9,9 M9,1 L1,9" fill="none" />
                </marker>
                <marker id="seq-head-duplicate" class="duplicate" viewBox="0 0 10 10" refX="10" refY="5"
                    markerWidth="5" markerHeight="5" orient="auto">
                    <path d="M0,5 L5,0 L10,5 L5,10 z" />
                </marker>
            </defs>
            {heads}
            {arrows}
        </svg>
    }
}

/// One row: the time on the left, the arrow (or self-arrow) and its label.
fn arrow_view(
    i: usize,
    r: &LineageRow,
    decimals: usize,
    lang: brokerlab_core::lang::Lang,
) -> impl IntoView {
    let y = row_y(i);
    let kind = r.kind.class();
    let marker = format!("url(#seq-head-{kind})");
    let class = format!("arrow {kind}");
    let time = format!("{} s", fixed(r.time_s, decimals, lang));
    let shape = if r.from == r.to {
        // A small loop on the right of the lifeline, label beside it.
        let x = lifeline_x(r.from);
        let d = format!("M{x},{} h26 v14 h-24", y - 12.0);
        view! {
            <path class=class d=d fill="none" marker-end=marker />
            <text class=format!("label {kind}") x=x + 34.0 y=y + 1.0 text-anchor="start">{r.label.get(lang).to_string()}</text>
        }
        .into_any()
    } else {
        let (x1, x2) = (lifeline_x(r.from), lifeline_x(r.to));
        // Stop short of the lifeline so the head stays visible.
        let x2_end = if x2 > x1 { x2 - 3.0 } else { x2 + 3.0 };
        view! {
            <line class=class x1=x1 y1=y x2=x2_end y2=y marker-end=marker />
            <text class=format!("label {kind}") x=(x1 + x2) / 2.0 y=y - 7.0 text-anchor="middle">{r.label.get(lang).to_string()}</text>
        }
        .into_any()
    };
    view! {
        <g class="row" data-testid="lineage-arrow" data-kind=kind data-from=r.from data-to=r.to>
            <text class="time" x="6" y=y + 4.0>{time}</text>
            {shape}
        </g>
    }
}
