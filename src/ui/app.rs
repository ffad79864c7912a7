//! The page: loads the example scenario, lays out the controls, chart, counters and
//! narration, and drives the run from animation frames while playing.

use leptos::prelude::*;
use leptos_use::{use_raf_fn_with_options, utils::Pausable, UseRafFnOptions};

use crate::model::player::Player;
use crate::state::shortcuts::use_shortcuts;
use crate::state::{Lab, Tools};
use crate::ui::chart::BacklogChart;
use crate::ui::controls::{Controls, ScenarioPicker};
use crate::ui::counters::Counters;
use crate::ui::help::{HelpDialog, ToolButtons};
use crate::ui::invariants::InvariantsPanel;
use crate::ui::lineage::LineagePanel;
use crate::ui::logs::LogsView;
use crate::ui::narration::{EventLog, NarrationPanel};
use crate::ui::parameters::ParametersPanel;
use crate::ui::timeline::Timeline;
use crate::ui::topology::TopologyView;
use crate::ui::tour::TourCard;

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
        if lab.playing.get() || lab.seeking.get().is_some() || lab.building_lineage.get() {
            resume();
        } else {
            pause();
        }
    });
}

#[component]
fn Page(player: Player) -> impl IntoView {
    let lab = Lab::new(player);
    use_player_loop(lab);
    let tools = Tools::new();
    use_shortcuts(lab, tools);
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
        <TourCard tools />
    }
}
