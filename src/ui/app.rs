//! The page: loads the example scenario, lays out the controls, the stage (topology and
//! chart) and the side panels, and drives the run from animation frames while playing.

use leptos::prelude::*;
use leptos_use::{use_raf_fn_with_options, utils::Pausable, UseRafFnOptions};

use crate::i18n::{t, use_i18n, I18nContextProvider};
use crate::model::arrival::Part;
use crate::model::player::Player;
use crate::model::share::LinkProblem;
use crate::model::words::Words;
use crate::state::arrival::Arrival;
use crate::state::opening::{Opening, Reading};
use crate::state::share;
use crate::state::shortcuts::use_shortcuts;
use crate::state::{Lab, Tools};
use crate::ui::aggregated::{AggregatedBanner, AggregatedStage};
use crate::ui::arrival::Arriving;
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

#[component]
pub fn App() -> impl IntoView {
    // The first screen arrives in parts (`Part`): the address is read in the task after
    // the one that started the module, the example previewed and the run built in the next
    // two, the page's parts in the tasks after that.
    let arrival = Arrival::begin();
    let reading = StoredValue::new_local(None::<Reading>);
    let opening = StoredValue::new_local(None::<Opening>);
    arrival.on(Part::Reading, move || {
        reading.set_value(Some(Reading::from_address()));
    });
    for half in [Part::Preview, Part::PreviewEnd] {
        arrival.on(half, move || {
            reading.update_value(|r| r.as_mut().map_or((), Reading::preview_half));
        });
    }
    arrival.on(Part::Opening, move || {
        let read = reading.try_update_value(Option::take).flatten();
        opening.set_value(read.map(Opening::of));
    });
    let due = Memo::new(move |_| arrival.has(Part::State));
    let page = move || {
        let Some(o) = due
            .get()
            .then(|| opening.try_update_value(Option::take))
            .flatten()
            .flatten()
        else {
            return view! { <p class="loading">{t!(use_i18n(), common.loading)}</p> }.into_any();
        };
        match o.player {
            Ok(player) => view! {
                <Page player view=o.view problem=o.problem compare=o.compare aggregated=o.aggregated arrival />
            }
            .into_any(),
            Err(message) => view! { <ErrorNote message /> }.into_any(),
        }
    };
    view! { <I18nContextProvider>{page}</I18nContextProvider> }
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
    arrival: Arrival,
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
        share::open_lesson_link(lab, &name, false);
    }
    share::follow_in_address(lab);
    if share::embedded() {
        return view! { <EmbeddedStage lab arrival /> }.into_any();
    }
    let tools = Tools::new();
    use_shortcuts(lab, tools);
    let i18n = use_i18n();
    let zone = NodeRef::new();
    let dragging = use_file_drop(lab, zone);

    // The stage (what moves: topology and chart) on the first screen; every other panel in
    // the side area beside it, one tab at a time. The parts arrive one task after another
    // (`Part`), the header and the controls first; `data-ready` says when all are on the
    // page.
    view! {
        <header class="top">
            <Arriving arrival part=Part::Header>
                <div class="brand">
                    <h1>"Broker Lab"</h1>
                    <LangSwitch lab />
                </div>
                <ScenarioPicker lab />
            </Arriving>
            <Arriving arrival part=Part::Tools>
                <ShareButton lab />
                <FileMenu lab />
                <ToolButtons tools />
            </Arriving>
        </header>
        <main node_ref=zone class:dragging=move || dragging.get()
            data-ready=move || arrival.complete().to_string()>
            <Arriving arrival part=Part::Controls>
                <div class="transport">
                    <Controls lab />
                    <Timeline lab />
                </div>
                <Problem lab />
                <ImportNotes lab />
                <LessonCard lab />
                <CompareBar lab />
            </Arriving>
            <div class="workspace">
                <div class="stage" data-testid="stage">
                    <Arriving arrival part=Part::Controls>
                        <LatestLine narration=lab.narration lab />
                        <AggregatedBanner lab />
                    </Arriving>
                    <div class="stage-side stage-a" data-testid="stage-a">
                        <Arriving arrival part=Part::Topology>
                            <SideALabel lab />
                            <Show when=move || !lab.aggregated_on.get() fallback=move || view! { <AggregatedStage lab /> }>
                                <TopologyView lab arrival />
                            </Show>
                        </Arriving>
                    </div>
                    <Arriving arrival part=Part::Topology>
                        <VariantStage lab />
                        <CompareCounters lab />
                    </Arriving>
                    <Arriving arrival part=Part::Chart>
                        <BacklogChart lab arrival />
                    </Arriving>
                </div>
                <Arriving arrival part=Part::Side>
                    <SidePanel lab tools arrival />
                </Arriving>
            </div>
            <p class="drop-hint" aria-hidden="true">{t!(i18n, common.drop_hint)}</p>
        </main>
        <Arriving arrival part=Part::Rest>
            <footer>
                <p class="tagline">{t!(i18n, common.tagline)}</p>
                {t!(i18n, common.footer)}
            </footer>
            <HelpDialog tools />
            <TourCard tools />
        </Arriving>
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
fn EmbeddedStage(lab: Lab, arrival: Arrival) -> impl IntoView {
    // The address is made when the link is about to be followed, not on every frame.
    let full = NodeRef::<leptos::html::A>::new();
    let aim = move || {
        if let Some(a) = full.get_untracked() {
            a.set_href(&share::full_address(lab));
        }
    };
    view! {
        <main class="embedded" data-testid="embedded" data-ready=move || arrival.complete().to_string()>
            <div class="transport">
                <Controls lab />
                <Timeline lab />
            </div>
            <Problem lab />
            <LessonCard lab />
            <div class="stage" data-testid="stage">
                <LatestLine narration=lab.narration lab />
                <AggregatedBanner lab />
                <Arriving arrival part=Part::Topology>
                    <Show when=move || !lab.aggregated_on.get() fallback=move || view! { <AggregatedStage lab /> }>
                        <TopologyView lab arrival />
                    </Show>
                </Arriving>
                <Arriving arrival part=Part::Chart>
                    <BacklogChart lab arrival />
                </Arriving>
            </div>
            <a class="open-full" node_ref=full href="./" target="_blank" rel="noopener"
                data-testid="open-full" on:pointerdown=move |_| aim() on:focus=move |_| aim()>
                {t!(use_i18n(), common.open_full)}
            </a>
        </main>
    }
}
