//! The playback toolbar: play/pause, step back and forward, speed, crash a consumer, reset;
//! and the scenario picker.

use brokerlab_core::examples;
use brokerlab_core::lessons::{self, Lang};

use leptos::prelude::*;

use crate::format::{seconds, speed};
use crate::model::player::{RESTART_AFTER_S, SPEEDS};
use crate::state::Lab;
use crate::ui::seed::SeedControl;

#[component]
pub fn Controls(lab: Lab) -> impl IntoView {
    let play_label = move || {
        if lab.playing.get() {
            "Pause"
        } else if lab.readout.with(|r| r.finished) {
            "Replay"
        } else {
            "Play"
        }
    };
    let crash_label = move || match lab.crash_target.get() {
        Some(name) => format!("Crash {name}"),
        None => "All consumers are down".to_string(),
    };
    let on_speed = move |ev: leptos::ev::Event| {
        if let Ok(s) = event_target_value(&ev).parse::<f64>() {
            lab.set_speed(s);
        }
    };
    let options = SPEEDS
        .iter()
        .map(|&s| {
            view! {
                <option value=s.to_string() selected=move || lab.speed.get() == s>
                    {speed(s)}
                </option>
            }
        })
        .collect_view();
    view! {
        <div class="controls" role="toolbar" aria-label="Playback">
            <button type="button" data-testid="back" on:click=move |_| lab.back()
                disabled=move || lab.readout.with(|r| r.step == 0)
                title="One step back (←): the run is re-simulated up to the previous step">
                "◀ Back"
            </button>
            <button type="button" class="primary" data-testid="play" on:click=move |_| lab.toggle_play()
                title="Play or pause (space)">
                {play_label}
            </button>
            <button type="button" data-testid="step" on:click=move |_| lab.step()
                disabled=move || lab.readout.with(|r| r.finished)
                title="One step forward: the next event (→)">
                "Step ▶"
            </button>
            <span class="position" aria-live="off">
                "Step " <strong data-testid="step-index">{move || lab.readout.with(|r| r.step)}</strong>
                " at " <strong data-testid="step-time">{move || lab.readout.with(|r| seconds(r.time_s))}</strong>
                <span class="budget-stop" data-testid="budget-stop" role="status"
                    hidden=move || lab.readout.with(|r| r.budget_stop.is_none())>
                    " — " {move || lab.readout.with(|r| r.budget_stop.unwrap_or_default())}
                </span>
            </span>
            <label class="speed">
                <span>"Speed"</span>
                <select data-testid="speed" on:change=on_speed prop:value=move || lab.speed.get().to_string()>
                    {options}
                </select>
                <span class="hint sr-only">"simulated seconds per second"</span>
            </label>
            <button type="button" class="danger" data-testid="crash" on:click=move |_| lab.crash()
                disabled=move || lab.crash_target.with(Option::is_none)
                title=format!("Crashes the first running consumer (or log group member) now; it restarts {RESTART_AFTER_S} s later")>
                {crash_label}
            </button>
            <button type="button" data-testid="reset" on:click=move |_| lab.reset() title="Back to the start (r)">
                "Reset"
            </button>
            <p class="keys" data-testid="shortcuts">
                "Keys: " <kbd>"space"</kbd> " play/pause · " <kbd>"→"</kbd> " step · " <kbd>"←"</kbd>
                " back · " <kbd>"r"</kbd> " reset · " <kbd>"+"</kbd> " / " <kbd>"-"</kbd> " speed · "
                <kbd>"?"</kbd> " help"
            </p>
        </div>
    }
}

/// The scenario picker: every built-in example; choosing one loads it, paused.
/// A lesson is offered in the picker as `lesson:NAME`; anything else is an example's name.
fn pick(lab: Lab, value: &str) {
    match value.strip_prefix(LESSON_PREFIX) {
        Some(lesson) => lab.open_lesson(lesson),
        None => lab.load(value),
    }
}

const LESSON_PREFIX: &str = "lesson:";

/// The lessons, first in the picker: each opens its scenario with the lesson card.
#[component]
fn LessonOptions(lab: Lab) -> impl IntoView {
    let label = move || match lab.lang.get() {
        Lang::En => "Lessons (guided, with predictions)",
        Lang::Es => "Lecciones (guiadas, con predicciones)",
    };
    let items = move || {
        let lang = lab.lang.get();
        lessons::all()
            .into_iter()
            .enumerate()
            .map(|(i, l)| {
                let value = format!("{LESSON_PREFIX}{}", l.name);
                view! { <option value=value>{format!("{}. {}", i + 1, l.title.get(lang))}</option> }
            })
            .collect_view()
    };
    view! { <optgroup label=label data-testid="lesson-options">{items}</optgroup> }
}

#[component]
pub fn ScenarioPicker(lab: Lab) -> impl IntoView {
    let name = move || lab.scenario.with(|s| s.0.clone());
    // A built-in example's description in the page's language, unless the scenario's own
    // text was changed (then that text, as written).
    let description = move || {
        let lang = lab.lang.get();
        lab.scenario.with(|(n, d)| match examples::find(n) {
            Some(e) if *d == e.description(Lang::En) => e.description(lang),
            _ => d.clone(),
        })
    };
    // One group per topic, each option titled in words; the value stays the example's name.
    let options = examples::by_topic()
        .into_iter()
        .map(|(topic, of_topic)| {
            let items = of_topic
                .into_iter()
                .map(|e| {
                    let n = e.name;
                    let title = move || e.title(lab.lang.get());
                    view! { <option value=n selected=move || lab.scenario.with(|s| s.0 == n)>{title}</option> }
                })
                .collect_view();
            view! { <optgroup label=move || topic.title(lab.lang.get())>{items}</optgroup> }
        })
        .collect_view();
    // A scenario from a file, a link or the editor that is not a built-in one is listed too,
    // so the picker never shows a blank.
    let own = move || {
        lab.scenario.with(|(n, _)| {
            let n = n.clone();
            examples::find(&n).is_none().then(|| {
                view! { <optgroup label="Opened"><option value=n.clone() selected=true>{format!("{n} (your scenario)")}</option></optgroup> }
            })
        })
    };
    view! {
        <section class="scenario" aria-label="Scenario">
            <label class="picker">
                <strong>"Scenario"</strong>
                <select data-testid="scenario" prop:value=name
                    on:change=move |ev| pick(lab, &event_target_value(&ev))>
                    {own}
                    <LessonOptions lab />
                    {options}
                </select>
            </label>
            <SeedControl lab />
            <p class="description" data-testid="scenario-description" title=description>{description}</p>
        </section>
    }
}
