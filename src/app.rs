//! The page: loads the example scenario, lays out the controls, chart, counters and
//! narration, and drives the run from animation frames while playing.

use leptos::prelude::*;
use leptos_use::{use_raf_fn_with_options, utils::Pausable, UseRafFnOptions};

use crate::backlog_chart::BacklogChart;
use crate::controls::{Controls, ScenarioPicker};
use crate::counters::Counters;
use crate::groups::LogsView;
use crate::help::{use_help_shortcut, HelpDialog, ToolButtons, Tools};
use crate::invariants::InvariantsPanel;
use crate::lab::Lab;
use crate::lineage::LineagePanel;
use crate::narration::{EventLog, NarrationPanel};
use crate::parameters::ParametersPanel;
use crate::player::Player;
use crate::timeline::Timeline;
use crate::topology::TopologyView;

/// The scenario the first page plays.
pub const EXAMPLE: &str = "burst";

#[component]
pub fn App() -> impl IntoView {
    let player = brokerlab_core::examples::load(EXAMPLE)
        .ok_or_else(|| format!("the example “{EXAMPLE}” is missing"))
        .and_then(|s| Player::new(s).map_err(|e| e.to_string()));
    match player {
        Ok(player) => view! { <Page player /> }.into_any(),
        Err(message) => view! { <ErrorNote message /> }.into_any(),
    }
}

/// A problem the page can explain and survive.
#[component]
fn ErrorNote(#[prop(into)] message: Signal<String>) -> impl IntoView {
    view! {
        <section class="error-note" role="alert" data-testid="error-note">
            <strong>"Problem: "</strong>
            {message}
        </section>
    }
}

/// Advances the run on every animation frame while `lab.playing` is true (or a seek is
/// under way).
fn use_player_loop(lab: Lab) {
    let Pausable { pause, resume, .. } = use_raf_fn_with_options(
        move |frame| lab.tick(frame.delta),
        UseRafFnOptions::default().immediate(false),
    );
    Effect::new(move |_| {
        if lab.playing.get() || lab.seeking.get().is_some() {
            resume();
        } else {
            pause();
        }
    });
}

/// True when a key press is meant for a form field, not for the page's shortcuts.
pub(crate) fn typing_in_field(ev: &web_sys::KeyboardEvent) -> bool {
    use wasm_bindgen::JsCast;
    ev.target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA"))
}

/// Keyboard shortcuts: space play/pause, → step, ← back, r reset, + / - speed.
fn use_shortcuts(lab: Lab) {
    let handle = window_event_listener(leptos::ev::keydown, move |ev| {
        if ev.ctrl_key() || ev.meta_key() || ev.alt_key() || typing_in_field(&ev) {
            return;
        }
        let handled = match ev.key().as_str() {
            " " => {
                lab.toggle_play();
                true
            }
            "ArrowRight" => {
                lab.step();
                true
            }
            "ArrowLeft" => {
                lab.back();
                true
            }
            "r" | "R" => {
                lab.reset();
                true
            }
            "+" | "=" => {
                lab.nudge_speed(true);
                true
            }
            "-" | "_" => {
                lab.nudge_speed(false);
                true
            }
            _ => false,
        };
        if handled {
            ev.prevent_default();
        }
    });
    on_cleanup(move || handle.remove());
}

#[component]
fn Page(player: Player) -> impl IntoView {
    let lab = Lab::new(player);
    use_player_loop(lab);
    use_shortcuts(lab);
    let tools = Tools::new();
    use_help_shortcut(tools);
    let error = move || {
        lab.error
            .get()
            .map(|message| view! { <ErrorNote message /> })
    };

    view! {
        <header class="top">
            <h1>"Broker Lab"</h1>
            <p class="tagline">"Load a message queue, crash a consumer, and watch what happens to every message."</p>
            <ToolButtons tools />
        </header>
        <main>
            <ScenarioPicker lab />
            <Controls lab />
            <Timeline lab />
            {error}
            <div class="board">
                <div class="stage">
                    <BacklogChart lab />
                    <ParametersPanel lab />
                    <InvariantsPanel statuses=lab.invariants pause_on_breach=lab.pause_on_breach
                        on_msg=Callback::new(move |m| lab.open_lineage(m)) />
                    <NarrationPanel narration=lab.narration />
                    <EventLog narration=lab.narration on_msg=Callback::new(move |m| lab.open_lineage(m)) />
                    <LineagePanel lineage=lab.lineage on_refresh=Callback::new(move |()| lab.refresh_lineage()) />
                </div>
                <Counters readout=lab.readout percentiles=lab.percentiles />
            </div>
            <TopologyView lab />
            <LogsView lab />
        </main>
        <footer>
            "Everything runs in this page: a deterministic simulation compiled from Rust to WebAssembly."
        </footer>
        <HelpDialog tools />
    }
}
