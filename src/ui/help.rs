//! Page tools: the help overlay (every control and shortcut, and what each panel shows),
//! opened with "?" or its button; and the large-type option for projectors.

use leptos::prelude::*;

use crate::model::glossary::Term;
use crate::state::shortcuts::SHORTCUTS;
use crate::state::Tools;

/// The "Help", "Tour" and "Large type" buttons.
#[component]
pub fn ToolButtons(tools: Tools) -> impl IntoView {
    view! {
        <div class="tools" role="group" aria-label="Page">
            <button type="button" data-testid="help-button" aria-haspopup="dialog"
                on:click=move |_| tools.open_help() title="Every control and shortcut (?)">
                "Help " <kbd>"?"</kbd>
            </button>
            <button type="button" data-testid="tour-button" on:click=move |_| tools.tour.restart()
                title="A short tour of the page, from its first step">
                "Tour"
            </button>
            <button type="button" data-testid="large-type"
                aria-pressed=move || if tools.large_type.get() { "true" } else { "false" }
                on:click=move |_| tools.large_type.update(|on| *on = !*on)
                title="Larger text and controls, for a projector or a shared screen">
                "Large type"
            </button>
        </div>
        <button type="button" class="present-exit" data-testid="present-exit" hidden=move || !tools.presenting.get()
            on:click=move |_| tools.toggle_presenting() title="Back to the whole page (p)">
            "Leave presenting"
        </button>
    }
}

/// (what, explanation) rows of the overlay.
const CONTROLS: &[(&str, &str)] = &[
    ("Scenario", "Loads a built-in example, paused at its start; its description says what to watch for."),
    ("Seed", "The number the run's chance comes from: the same seed gives the same run. Type one and press Enter, or take a new one."),
    ("Play / Pause / Replay", "Runs the simulation in real time at the chosen speed; at the end, starts it again."),
    ("Step ▶", "Takes exactly one event and tells it."),
    ("◀ Back", "Goes one event back: the run is re-simulated, your crashes included."),
    ("Speed", "Simulated seconds per second of your time, 0.1× to 20×."),
    ("Crash", "Crashes the first consumer that is up; it restarts a few seconds later."),
    ("Reset", "Starts the scenario again and forgets your commands."),
    ("Timeline", "Goes to any moment of the run, back or forward; your commands stay in the run."),
    ("Large type", "Larger text and controls for projectors, for this visit."),
    ("Tour", "A short tour of the page; it opens by itself on a first visit. Escape or Skip closes it."),
];

/// (card and button, what it does) rows: the controls on the topology's cards and in the
/// logs panel, as their buttons are labelled.
const CARD_CONTROLS: &[(&str, &str)] = &[
    ("Producer · Crash / Restart", "Crashes the producer now (it restarts a few seconds later), or restarts it at once. Messages it held only in memory are given up; outbox rows survive the crash."),
    ("Producer · Drop next confirm", "The broker stores the next message but its confirm never arrives: the producer cannot tell, and may publish it again."),
    ("Producer · Inject poison", "Publishes one message whose payload no handler can read: every attempt fails until it is dead-lettered."),
    ("Outbox relay · Crash after next publish", "The relay crashes right after the broker confirms its next publish, before it marks the row sent: after the restart it publishes that row again."),
    ("Broker · Crash broker / Restart broker", "Crashes the whole broker (durable queues keep their persistent messages, transient ones lose everything), or brings it back."),
    ("Dead letters · Redrive", "Moves the dead-lettered messages back into their queue, a few per second, for another try."),
    ("Consumer · Crash now", "Crashes the consumer at once; what it held and had not acked is delivered again later. It restarts a few seconds later."),
    ("Consumer · Crash after next commit", "Crashes it right after its next effect commits and before the ack is sent: the message comes back and, without idempotency, its effect is applied twice."),
    ("Consumer · Restart", "Brings a crashed consumer back at once."),
    ("Consumer · Drop next ack", "Its next ack is lost on the way: the broker redelivers that message when the lease runs out."),
    ("Consumer · Slow ×4 / Normal speed", "Makes it work four times slower from now on (or normal again): its leases can run out while it still works."),
    ("Card · More", "Opens a card's less frequent controls: the ones above marked as a consumer's or a producer's, other than Crash and Restart."),
    ("Consumers · Show every card / Fold the cards", "More than eight consumers share one summary card (how many are up, down, and what they hold); this shows or folds their own cards."),
    ("Logs · Add a partition", "Gives the log one more partition: keys spread over it from now on, and every group reading the log rebalances."),
    ("Group · Crash member", "Crashes one member of a consumer group: its partitions move to the others after a rebalance."),
    ("Group · Add member", "Adds a member to the group, which rebalances; members beyond the partitions sit idle."),
    ("Group · Replay from start", "Moves the group back to the earliest offsets: it reads the whole log again."),
];

const PANELS: &[(&str, &str)] = &[
    ("Side tabs", "Beside the stage (or under it on a narrow screen): one panel at a time; the arrow keys move between the tabs."),
    ("Backlog chart", "Messages waiting over simulated time, with the fluid prediction (λ − μ)·t dashed."),
    ("Invariants", "Whether any message was lost, any effect applied twice, any key applied out of order — and where each first broke."),
    ("What just happened", "The latest step in words, above the diagram; the notable events are in the Events tab."),
    ("Event log", "The latest facts; type a message id to follow one message."),
    ("Message history", "Every fact about one message so far, by lane: producer, broker, consumer, database."),
    ("Counters", "What is waiting and in flight now, the run's totals, its failures, and latency percentiles."),
    ("Topology", "Producers, broker, consumers and database, with a crash or restart control on each."),
    ("Logs and consumer groups", "For partitioned logs: each partition's offsets, owner and lag."),
    ("Scenario", "The scenario as JSON: edit it and Apply to run it from its start (a refused value is marked at its line); Revert puts back the one running. Scheduled faults: plan a crash, a restart, a lost ack or a new rate at a chosen instant, marked on the timeline."),
];

fn rows(items: &'static [(&'static str, &'static str)]) -> impl IntoView {
    items
        .iter()
        .map(|&(what, why)| view! { <dt>{what}</dt><dd>{why}</dd> })
        .collect_view()
}

/// The overlay's reference part: the controls on the cards, the panels, the terms.
fn reference() -> impl IntoView {
    let terms = Term::ALL
        .iter()
        .map(|t| view! { <dt>{t.word()}</dt><dd>{t.definition()}</dd> })
        .collect_view();
    view! {
        <h3>"On the cards"</h3>
        <dl class="help-list" data-testid="help-card-controls">{rows(CARD_CONTROLS)}</dl>
        <h3>"Panels"</h3>
        <dl class="help-list">{rows(PANELS)}</dl>
        <h3>"Terms"</h3>
        <p class="hint">"Point at a term with a dotted underline, or focus it with Tab, to read its definition."</p>
        <dl class="help-list" data-testid="help-terms">{terms}</dl>
    }
}

/// The help overlay: a modal dialog that keeps the focus inside while open.
#[component]
pub fn HelpDialog(tools: Tools) -> impl IntoView {
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
                    <h2 id="help-title">"Help"</h2>
                    <button type="button" node_ref=first data-testid="help-close"
                        on:click=move |_| tools.close_help()>"Close"</button>
                </div>
                <p id="help-intro">
                    "Broker Lab simulates messages going from producers through a broker to consumers and a database. Everything runs in this page, and the same scenario and seed always give the same run."
                </p>
                <h3>"Controls"</h3>
                <dl class="help-list">{rows(CONTROLS)}</dl>
                <h3>"Keyboard"</h3>
                <dl class="help-list keys-list" data-testid="help-keys">
                    {SHORTCUTS.iter().map(|s| view! { <dt><kbd>{s.label}</kbd></dt><dd>{s.what}</dd> }).collect_view()}
                </dl>
                <p class="hint">"Shortcuts do nothing while you type in a field."</p>
                {reference()}
                <button type="button" class="primary" node_ref=last on:click=move |_| tools.close_help()>
                    "Close help"
                </button>
            </div>
        </div>
    }
}
