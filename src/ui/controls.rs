//! The playback toolbar: play/pause, step back and forward, speed, crash a consumer, reset;
//! and the scenario picker.

use brokerlab_core::lessons::{self, Lang};
use brokerlab_core::{examples, EndReason};

use leptos::prelude::*;

use crate::format::{count, seconds, speed};
use crate::i18n::{locale, t, t_string, td_string, use_i18n};
use crate::model::lesson::{setup_sentence, Guide};
use crate::model::origin;
use crate::model::player::{RESTART_AFTER_S, SPEEDS};
use crate::state::Lab;
use crate::ui::seed::SeedControl;

/// Why the work budget stopped the run, in the page's language. The readout carries the
/// core's English words: they name the budget that was reached.
fn budget_stop_text(english: &str, lang: Lang) -> String {
    let l = locale(lang);
    let reasons = [
        EndReason::StepBudget,
        EndReason::MessagesBudget,
        EndReason::CopiesBudget,
        EndReason::LogRecordsBudget,
        EndReason::TimeLimit,
    ];
    match reasons.into_iter().find(|r| r.describe() == english) {
        Some(EndReason::StepBudget) => td_string!(l, stage.controls.budget_steps).to_string(),
        Some(EndReason::MessagesBudget) => {
            td_string!(l, stage.controls.budget_messages).to_string()
        }
        Some(EndReason::CopiesBudget) => td_string!(l, stage.controls.budget_copies).to_string(),
        Some(EndReason::LogRecordsBudget) => {
            td_string!(l, stage.controls.budget_log_records).to_string()
        }
        Some(EndReason::TimeLimit) => td_string!(l, stage.controls.time_limit).to_string(),
        _ => english.to_string(),
    }
}

#[component]
pub fn Controls(lab: Lab) -> impl IntoView {
    let i18n = use_i18n();
    // Whether the stalled run's whole sentence is shown under its short word.
    let stall_told = RwSignal::new(false);
    let play_label = move || {
        if lab.playing.get() {
            t_string!(i18n, stage.controls.pause)
        } else if lab.readout.with(|r| r.finished) {
            t_string!(i18n, stage.controls.replay)
        } else {
            t_string!(i18n, stage.controls.play)
        }
    };
    let crash_label = move || match lab.crash_target.get() {
        Some(name) => t_string!(i18n, stage.controls.crash, name).to_string(),
        // An aggregated run has no process to crash: its consumers are up all along.
        None if lab.aggregated_on.get() => {
            t_string!(i18n, stage.controls.no_crash_aggregated).to_string()
        }
        None if lab.all_stopped.get() => t_string!(i18n, stage.controls.none_running).to_string(),
        None => t_string!(i18n, stage.controls.all_down).to_string(),
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
                    {move || speed(s, lab.lang.get())}
                </option>
            }
        })
        .collect_view();
    view! {
        <div class="controls" role="toolbar" aria-label=move || t_string!(i18n, stage.controls.toolbar)>
            <button type="button" data-testid="back" on:click=move |_| lab.back()
                disabled=move || lab.readout.with(|r| r.step == 0)
                title=move || t_string!(i18n, stage.controls.back_title)>
                {t!(i18n, stage.controls.back)}
            </button>
            <button type="button" class="primary" data-testid="play" on:click=move |_| lab.toggle_play()
                title=move || t_string!(i18n, stage.controls.play_title)>
                {play_label}
            </button>
            <button type="button" data-testid="step" on:click=move |_| lab.step()
                disabled=move || lab.readout.with(|r| r.finished)
                title=move || t_string!(i18n, stage.controls.step_title)>
                {t!(i18n, stage.controls.step)}
            </button>
            <span class="position" aria-live="off">
                // Two short lines, so the readout hardly widens as the step count grows
                // (on one line it pushed the timeline onto a row of its own mid-run).
                <span class="at-step">{t!(i18n, stage.controls.position_step)} <strong data-testid="step-index">{move || lab.readout.with(|r| count(r.step, lab.lang.get()))}</strong></span>
                <span class="at-time">{t!(i18n, stage.controls.position_at)} <strong data-testid="step-time">{move || lab.readout.with(|r| seconds(r.time_s, lab.lang.get()))}</strong></span>
                <span class="budget-stop" data-testid="budget-stop" role="status"
                    hidden=move || lab.readout.with(|r| r.budget_stop.is_none())>
                    " — " {move || {
                        let lang = lab.lang.get();
                        lab.readout.with(|r| budget_stop_text(r.budget_stop.unwrap_or_default(), lang))
                    }}
                </span>
                // A short word under the time; the whole sentence on hover, for screen
                // readers, and under the word when it is tapped or pressed (a touch screen
                // has no hover). In Spanish the sentence took three lines and made the bar
                // taller.
                <span class="budget-stop stall" data-testid="stalled" role="status"
                    title=move || t_string!(i18n, stage.controls.stalled)
                    hidden=move || lab.readout.with(|r| !r.stalled)>
                    <button type="button" class="stall-word" data-testid="stalled-short"
                        aria-expanded=move || stall_told.get().to_string() aria-controls="stalled-tip"
                        on:click=move |_| stall_told.update(|t| *t = !*t)>
                        {t!(i18n, stage.controls.stalled_short)}
                    </button>
                    <span class="sr-only">{t!(i18n, stage.controls.stalled)}</span>
                    <span class="term-tip" id="stalled-tip" data-testid="stalled-tip" aria-hidden="true"
                        hidden=move || !stall_told.get()>{t!(i18n, stage.controls.stalled)}</span>
                </span>
            </span>
            <label class="speed">
                <span>{t!(i18n, stage.controls.speed)}</span>
                <select data-testid="speed" on:change=on_speed prop:value=move || lab.speed.get().to_string()>
                    {options}
                </select>
                <span class="hint sr-only">{t!(i18n, stage.controls.speed_hint)}</span>
            </label>
            <button type="button" class="danger" data-testid="crash" on:click=move |_| lab.crash()
                disabled=move || lab.crash_target.with(Option::is_none)
                title=move || if lab.aggregated_on.get() {
                    t_string!(i18n, stage.aggregated.disabled).to_string()
                } else {
                    t_string!(i18n, stage.controls.crash_title, s = RESTART_AFTER_S).to_string()
                }>
                {crash_label}
            </button>
            <button type="button" data-testid="reset" on:click=move |_| lab.reset()
                title=move || t_string!(i18n, stage.controls.reset_title)>
                {t!(i18n, stage.controls.reset)}
            </button>
            <p class="keys" data-testid="shortcuts">
                {t!(i18n, stage.controls.keys)} <kbd>{t!(i18n, stage.controls.key_space)}</kbd> {t!(i18n, stage.controls.key_play)}
                <kbd>"→"</kbd> {t!(i18n, stage.controls.key_step)} <kbd>"←"</kbd>
                {t!(i18n, stage.controls.key_back)} <kbd>"r"</kbd> {t!(i18n, stage.controls.key_reset)}
                <kbd>"+"</kbd> " / " <kbd>"-"</kbd> {t!(i18n, stage.controls.key_speed)}
                <kbd>"?"</kbd> {t!(i18n, stage.controls.key_help)}
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
    let i18n = use_i18n();
    let label = move || t_string!(i18n, stage.picker.lessons);
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
    // An example changed under its own name: its title and description no longer fit.
    let edited = Memo::new(move |_| lab.base.with(origin::is_edited_example));
    let i18n = use_i18n();
    // A built-in example's description in the page's language, unless the scenario's own
    // text was changed (then that text, as written); an edited example's says so.
    let description = move || {
        let lang = lab.lang.get();
        lab.scenario.with(|(n, d)| match examples::find(n) {
            // The example's own words over a scenario changed since: said to be the
            // original's.
            Some(e) if *d == e.description(Lang::En) && edited.get() => td_string!(
                locale(lang),
                stage.picker.edited_description,
                description = e.description(lang)
            )
            .to_string(),
            Some(e) if *d == e.description(Lang::En) => e.description(lang),
            _ => d.clone(),
        })
    };
    // During a lesson its later sentences would tell what the steps ask to predict: the
    // header keeps to the setup, with no tooltip, until the last step is revealed.
    let hides_outcome = move || {
        lab.guide
            .with(|g| g.as_ref().is_some_and(Guide::hides_the_outcome))
    };
    let shown = move || {
        let whole = description();
        if hides_outcome() {
            setup_sentence(&whole).to_string()
        } else {
            whole
        }
    };
    let tooltip = move || (!hides_outcome()).then(description);
    // One group per topic, each option titled in words; the value stays the example's name.
    let options = examples::by_topic()
        .into_iter()
        .map(|(topic, of_topic)| {
            let items = of_topic
                .into_iter()
                .map(|e| {
                    let n = e.name;
                    let title = move || {
                        let lang = lab.lang.get();
                        if edited.get() && lab.scenario.with(|s| s.0 == n) {
                            let title = e.title(lang);
                            td_string!(locale(lang), stage.picker.edited, title).to_string()
                        } else {
                            e.title(lang).to_string()
                        }
                    };
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
                let name = origin::shown_name(&n, lab.lang.get());
                let text = t_string!(i18n, stage.picker.yours, name).to_string();
                view! {
                    <optgroup label=move || t_string!(i18n, stage.picker.opened)>
                        <option value=n.clone() selected=true>{text}</option>
                    </optgroup>
                }
            })
        })
    };
    view! {
        <section class="scenario" aria-label=move || t_string!(i18n, stage.picker.scenario)>
            <label class="picker">
                <strong>{t!(i18n, stage.picker.scenario)}</strong>
                <select data-testid="scenario" prop:value=name
                    on:change=move |ev| pick(lab, &event_target_value(&ev))>
                    {own}
                    <LessonOptions lab />
                    {options}
                </select>
            </label>
            <SeedControl lab />
            <p class="description" data-testid="scenario-description" title=tooltip>{shown}</p>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The page and the runner (`brokerlab trace --lang`) say a budget stop in the same
    /// words: the page's texts are the core's `EndReason::describe_in`.
    #[test]
    fn a_budget_stop_reads_as_the_runner_says_it() {
        for reason in [
            EndReason::StepBudget,
            EndReason::MessagesBudget,
            EndReason::CopiesBudget,
            EndReason::LogRecordsBudget,
            EndReason::TimeLimit,
        ] {
            for lang in Lang::ALL {
                assert_eq!(
                    budget_stop_text(reason.describe(), lang),
                    reason.describe_in(lang),
                    "{reason:?} in {lang:?}"
                );
            }
        }
    }
}
