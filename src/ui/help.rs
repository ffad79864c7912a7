//! Page tools: the help overlay (every control and shortcut, and what each panel shows),
//! opened with "?" or its button; and the large-type option for projectors.

use leptos::prelude::*;

use crate::i18n::{self, t, t_string, use_i18n, I18n};
use crate::model::glossary::Term;
use crate::state::shortcuts::SHORTCUTS;
use crate::state::Tools;

/// The "Help", "Tour" and "Large type" buttons.
#[component]
pub fn ToolButtons(tools: Tools) -> impl IntoView {
    let i18n = use_i18n();
    view! {
        <div class="tools" role="group" aria-label=move || t_string!(i18n, common.tools.group)>
            <button type="button" data-testid="help-button" aria-haspopup="dialog"
                on:click=move |_| tools.open_help() title=move || t_string!(i18n, common.tools.help_title)>
                {t!(i18n, common.tools.help)} " " <kbd>"?"</kbd>
            </button>
            <button type="button" data-testid="tour-button" on:click=move |_| tools.tour.restart()
                title=move || t_string!(i18n, common.tools.tour_title)>
                {t!(i18n, common.tools.tour)}
            </button>
            <button type="button" data-testid="large-type"
                aria-pressed=move || if tools.large_type.get() { "true" } else { "false" }
                on:click=move |_| tools.large_type.update(|on| *on = !*on)
                title=move || t_string!(i18n, common.tools.large_type_title)>
                {t!(i18n, common.tools.large_type)}
            </button>
        </div>
        <button type="button" class="present-exit" data-testid="present-exit" hidden=move || !tools.presenting.get()
            on:click=move |_| tools.toggle_presenting() title=move || t_string!(i18n, common.tools.leave_presenting_title)>
            {t!(i18n, common.tools.leave_presenting)}
        </button>
    }
}

/// One `<dt>`/`<dd>` row of the overlay per key of `common.help.<section>`: what it is
/// (`what`) and what it does (`why`).
macro_rules! rows {
    ($i18n:ident, $section:ident: $($key:ident),+ $(,)?) => {
        view! {
            $(
                <dt>{t!($i18n, common.help.$section.$key.what)}</dt>
                <dd>{t!($i18n, common.help.$section.$key.why)}</dd>
            )+
        }
    };
}

/// The controls of the transport bar and the header.
fn controls(i18n: I18n) -> impl IntoView {
    rows!(i18n, controls: scenario, seed, play, step, back, speed, crash, reset, timeline,
        large_type, present, language, tour)
}

/// The controls on the topology's cards and in the logs panel, as their buttons are labelled.
fn card_controls(i18n: I18n) -> impl IntoView {
    rows!(i18n, cards: producer_crash, drop_confirm, poison, relay, broker, redrive,
        consumer_crash, after_commit, restart, drop_ack, slow, more, fold, partition,
        member_crash, member_add, replay)
}

fn panels(i18n: I18n) -> impl IntoView {
    rows!(i18n, panels: tabs, chart, invariants, latest, events, history, counters, topology,
        logs, scenario, lessons, interview)
}

/// The overlay's reference part: the controls on the cards, the panels, the terms.
fn reference(i18n: I18n) -> impl IntoView {
    let terms = move || {
        let lang = crate::i18n::lang_of(i18n);
        Term::ALL
            .iter()
            .map(|t| view! { <dt>{t.word(lang)}</dt><dd>{t.definition(lang)}</dd> })
            .collect_view()
    };
    view! {
        <h3>{t!(i18n, common.help.cards_heading)}</h3>
        <dl class="help-list" data-testid="help-card-controls">{card_controls(i18n)}</dl>
        <h3>{t!(i18n, common.help.panels_heading)}</h3>
        <dl class="help-list">{panels(i18n)}</dl>
        <h3>{t!(i18n, common.help.terms_heading)}</h3>
        <p class="hint">{t!(i18n, common.help.terms_hint)}</p>
        <dl class="help-list" data-testid="help-terms">{terms}</dl>
    }
}

/// The keyboard list, from the shortcuts' own table.
fn keys(i18n: I18n) -> impl IntoView {
    move || {
        let lang = i18n::lang(i18n.get_locale());
        SHORTCUTS
            .iter()
            .map(|s| view! { <dt><kbd>{(s.label)(lang)}</kbd></dt><dd>{(s.what)(lang)}</dd> })
            .collect_view()
    }
}

/// The help overlay: a modal dialog that keeps the focus inside while open.
#[component]
pub fn HelpDialog(tools: Tools) -> impl IntoView {
    let i18n = use_i18n();
    let dialog = NodeRef::<leptos::html::Div>::new();
    let first = NodeRef::<leptos::html::Button>::new();
    let last = NodeRef::<leptos::html::Button>::new();
    Effect::new(move |_| {
        if tools.help_open.get() {
            // Once the overlay is shown, move the focus into it.
            request_animation_frame(move || {
                if let Some(d) = dialog.get_untracked() {
                    let _ = d.focus();
                }
            });
        }
    });
    let on_keydown = move |ev: web_sys::KeyboardEvent| {
        // Keys pressed inside the dialog are for the dialog, not the page's shortcuts.
        ev.stop_propagation();
        match ev.key().as_str() {
            "Escape" => {
                ev.prevent_default();
                tools.close_help();
            }
            "Tab" => {
                let (Some(first), Some(last)) = (first.get_untracked(), last.get_untracked())
                else {
                    return;
                };
                let active = document().active_element();
                let at = |el: &web_sys::Element| {
                    active.as_ref().is_some_and(|a| a.is_same_node(Some(el)))
                };
                let onto_dialog = dialog.get_untracked().is_some_and(|d| at(&d));
                if ev.shift_key() && (at(&first) || onto_dialog) {
                    ev.prevent_default();
                    let _ = last.focus();
                } else if !ev.shift_key() && at(&last) {
                    ev.prevent_default();
                    let _ = first.focus();
                }
            }
            _ => {}
        }
    };
    view! {
        <div class="help-backdrop" hidden=move || !tools.help_open.get()
            on:click=move |ev| {
                // A click on the dimmed page around the dialog closes it.
                let outside = ev.target().zip(ev.current_target()).is_some_and(|(t, c)| t == c);
                if outside {
                    tools.close_help();
                }
            }>
            <div class="help" role="dialog" aria-modal="true" aria-labelledby="help-title"
                aria-describedby="help-intro" tabindex="-1" data-testid="help" node_ref=dialog
                on:keydown=on_keydown>
                <div class="help-head">
                    <h2 id="help-title">{t!(i18n, common.help.title)}</h2>
                    <button type="button" node_ref=first data-testid="help-close"
                        on:click=move |_| tools.close_help()>{t!(i18n, common.help.close)}</button>
                </div>
                <p id="help-intro">{t!(i18n, common.help.intro)}</p>
                <h3>{t!(i18n, common.help.controls_heading)}</h3>
                <dl class="help-list">{controls(i18n)}</dl>
                <h3>{t!(i18n, common.help.keyboard_heading)}</h3>
                <dl class="help-list keys-list" data-testid="help-keys">{keys(i18n)}</dl>
                <p class="hint">{t!(i18n, common.help.keys_hint)}</p>
                {reference(i18n)}
                <button type="button" class="primary" node_ref=last on:click=move |_| tools.close_help()>
                    {t!(i18n, common.help.close_help)}
                </button>
            </div>
        </div>
    }
}
