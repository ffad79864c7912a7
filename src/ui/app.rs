//! The page: loads the example scenario, lays out the controls, the stage (topology and
//! chart) and the side panels, and drives the run from animation frames while playing.

use leptos::prelude::*;
use leptos_use::{use_raf_fn_with_options, utils::Pausable, UseRafFnOptions};

use crate::i18n::{t, use_i18n, I18nContextProvider};
use crate::model::player::Player;
use crate::model::share::LinkProblem;
use crate::model::words::Words;
use crate::state::share;
use crate::state::shortcuts::use_shortcuts;
use crate::state::{Lab, Tools};
use crate::ui::aggregated::{AggregatedBanner, AggregatedStage};
use crate::ui::chart::BacklogChart;
use crate::ui::compare::{CompareBar, CompareCounters, SideALabel, VariantStage};
use crate::ui::controls::{Controls, ScenarioPicker};
use crate::ui::files::{use_file_drop, FileMenu};
use crate::ui::help::{HelpDialog, ToolButtons};
use crate::ui::import_notes::ImportNotes;
use crate::ui::language::{follow_language, LangSwitch};
use crate::ui::lesson::LessonCard;
use crate::ui::narration::LatestLine;
use crate::ui::share::ShareButton;
use crate::ui::side_panel::SidePanel;
use crate::ui::timeline::Timeline;
use crate::ui::topology::TopologyView;
use crate::ui::tour::TourCard;
use brokerlab_core::link::View;
use brokerlab_core::Scenario;

/// The scenario the first page plays.
pub const EXAMPLE: &str = "burst";

#[component]
pub fn App() -> impl IntoView {
    // A share link in the address opens where it says; a bad one opens the example and
    // says why.
    let (opened, problem) = match share::from_address() {
        Ok(opened) => (opened, None),
        Err(problem) => (None, Some(problem)),
    };
    let (player, view, compare, aggregated) = match opened {
        Some(opening) => (
            Ok(opening.player),
            Some(opening.view),
            opening.compare,
            opening.aggregated,
        ),
        None => (
            brokerlab_core::examples::load(EXAMPLE)
                .ok_or_else(|| format!("the example “{EXAMPLE}” is missing"))
                .and_then(|s| Player::new(s).map_err(|e| e.to_string())),
            None,
            None,
            None,
        ),
    };
    match player {
        Ok(player) => view! {
            <I18nContextProvider>
                <Page player view problem compare aggregated />
            </I18nContextProvider>
        }
        .into_any(),
        Err(message) => view! { <ErrorNote message /> }.into_any(),
    }
}

/// A problem the page can explain and survive.
#[component]
fn ErrorNote(#[prop(into)] message: Signal<String>) -> impl IntoView {
    view! {
        <section class="error-note" role="alert" data-testid="error-note">
            <strong>{t!(use_i18n(), common.problem)}" "</strong>
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
fn Page(
    player: Player,
    view: Option<View>,
    problem: Option<LinkProblem>,
    compare: Option<share::CompareOpening>,
    aggregated: Option<Scenario>,
) -> impl IntoView {
    let lab = Lab::new(player);
    let mut problem = problem;
    if let Some(scenario) = aggregated {
        // A link to a scenario that runs as flows: computed here, like a picked example
        // (the Lab already holds its shell player).
        if let Err(e) = lab.show_aggregated_on_shell(scenario) {
            problem = Some(LinkProblem::CannotStart(e.to_string()));
        }
    }
    if let Some(c) = compare {
        lab.attach_compare(c.b, c.variant, c.original);
    }
    follow_language(lab);
    use_player_loop(lab);
    lab.error
        .set(problem.map(|p| Words::new(move |lang| p.message(lang))));
    lab.follow_lessons();
    if let Some(view) = &view {
        share::restore_view(lab, view);
    } else if let Some(name) = share::lesson_in_address() {
        lab.open_lesson(&name);
    }
    share::follow_in_address(lab);
    if share::embedded() {
        return view! { <EmbeddedStage lab /> }.into_any();
    }
    let tools = Tools::new();
    use_shortcuts(lab, tools);
    let i18n = use_i18n();
    let zone = NodeRef::new();
    let dragging = use_file_drop(lab, zone);

    // The stage (what moves: topology and chart) on the first screen; every other panel in
    // the side area beside it, one tab at a time.
    view! {
        <header class="top">
            <div class="brand">
                <h1>"Broker Lab"</h1>
                <LangSwitch lab />
            </div>
            <ScenarioPicker lab />
            <ShareButton lab />
            <FileMenu lab />
            <ToolButtons tools />
        </header>
        <main node_ref=zone class:dragging=move || dragging.get()>
            <div class="transport">
                <Controls lab />
                <Timeline lab />
            </div>
            <Problem lab />
            <ImportNotes lab />
            <LessonCard lab />
            <CompareBar lab />
            <div class="workspace">
                <div class="stage" data-testid="stage">
                    <LatestLine narration=lab.narration />
                    <AggregatedBanner lab />
                    <div class="stage-side stage-a" data-testid="stage-a">
                        <SideALabel lab />
                        <Show when=move || !lab.aggregated_on.get() fallback=move || view! { <AggregatedStage lab /> }>
                            <TopologyView lab />
                        </Show>
                    </div>
                    <VariantStage lab />
                    <CompareCounters lab />
                    <BacklogChart lab />
                </div>
                <SidePanel lab tools />
            </div>
            <p class="drop-hint" aria-hidden="true">{t!(i18n, common.drop_hint)}</p>
        </main>
        <footer>
            <p class="tagline">{t!(i18n, common.tagline)}</p>
            {t!(i18n, common.footer)}
        </footer>
        <HelpDialog tools />
        <TourCard tools />
    }
    .into_any()
}

/// The page's problem of the moment, if any, in one sentence.
#[component]
fn Problem(lab: Lab) -> impl IntoView {
    move || {
        lab.error.get().map(|words| {
            let message = Signal::derive(move || words.text(lab.lang.get()));
            view! { <ErrorNote message /> }
        })
    }
}

/// The page inside another page's `<iframe>` (`?embed`): the controls, the timeline and the
/// stage, filling the frame, and a way out to the full page at the same moment.
#[component]
fn EmbeddedStage(lab: Lab) -> impl IntoView {
    // The address is made when the link is about to be followed, not on every frame.
    let full = NodeRef::<leptos::html::A>::new();
    let aim = move || {
        if let Some(a) = full.get_untracked() {
            a.set_href(&share::full_address(lab));
        }
    };
    view! {
        <main class="embedded" data-testid="embedded">
            <div class="transport">
                <Controls lab />
                <Timeline lab />
            </div>
            <Problem lab />
            <LessonCard lab />
            <div class="stage" data-testid="stage">
                <LatestLine narration=lab.narration />
                <AggregatedBanner lab />
                <Show when=move || !lab.aggregated_on.get() fallback=move || view! { <AggregatedStage lab /> }>
                    <TopologyView lab />
                </Show>
                <BacklogChart lab />
            </div>
            <a class="open-full" node_ref=full href="./" target="_blank" rel="noopener"
                data-testid="open-full" on:pointerdown=move |_| aim() on:focus=move |_| aim()>
                {t!(use_i18n(), common.open_full)}
            </a>
        </main>
    }
}
