//! Lessons on the page (offered first in the scenario picker): the lesson card above the
//! stage — step k of n, what to look at (outlined on the stage), the prediction asked
//! before the run shows it, the run played to the checkpoint, and the explanation with
//! its figure read from the run. Page Down / Page Up walk the steps (a presenter's remote
//! sends those keys).

use crate::i18n::{t, t_string, use_i18n};
use crate::ui::focus::{refocus_if_lost, scroll_into_its_box};
use crate::ui::units::units_kept;
use brokerlab_core::lessons::{self, Answer, Focus, Metric, Prediction, Unit};
use leptos::prelude::*;
use leptos_use::{use_event_listener, use_window};

use crate::model::concealed::{conceal_rule, concealed};
use crate::model::lesson::{
    focus_target, metric_counter, read_answer, step_reading, unit_label, NumberProblem, Phase,
};
use crate::state::Lab;

/// The lesson on show, above the stage.
#[component]
pub fn LessonCard(lab: Lab) -> impl IntoView {
    use_lesson_keys(lab);
    // Drawn again only when a lesson opens or closes, not at each answer or step.
    let open = Memo::new(move |_| lab.guide.with(Option::is_some));
    move || open.get().then(|| view! { <LessonBody lab /> })
}

#[component]
fn LessonBody(lab: Lab) -> impl IntoView {
    let lang = lab.lang;
    let i18n = use_i18n();
    let read = move |f: &dyn Fn(&crate::model::lesson::Guide) -> String| {
        lab.guide.with(|g| g.as_ref().map(f).unwrap_or_default())
    };
    let title = move || read(&|g| g.lesson.title.get(lang.get()).to_string());
    let progress = move || {
        read(&|g| {
            let (k, n) = g.progress();
            t_string!(i18n, teach.lesson.step_of, k = k, n = n).to_string()
        })
    };
    let question = move || read(&|g| g.step().question.get(lang.get()).to_string());
    let phase = Memo::new(move |_| lab.guide.with(|g| g.as_ref().map(|g| g.phase)));
    // "Play and see" and "Next step" go away as they are pressed: the keyboard's focus
    // moves on to what comes next in the card instead of falling to the page's body.
    let card = NodeRef::<leptos::html::Section>::new();
    // Not when the card opens: a link's lesson leaves the page's shortcuts to the keys.
    Effect::new(move |before: Option<Option<Phase>>| {
        let phase = phase.get();
        let Some(card) = card.get_untracked().filter(|_| before.is_some()) else {
            return phase;
        };
        let next = match phase {
            Some(Phase::Revealed { .. }) => {
                "[data-testid=lesson-next], [data-testid=lesson-previous]"
            }
            Some(Phase::Predict) => ".lesson-choices input, [data-testid=lesson-number]",
            // Playing: the card itself, where the status says so.
            _ => "[data-none]",
        };
        refocus_if_lost(&card, next);
        phase
    });
    view! {
        <section class="lesson" data-testid="lesson" lang=move || lang.get().code() node_ref=card tabindex="-1"
            aria-label=move || t_string!(i18n, teach.lesson.label)>
            <FocusOutline lab />
            <Conceal lab />
            <header class="lesson-head">
                <strong class="lesson-title" data-testid="lesson-title">{title}</strong>
                <span class="lesson-progress" data-testid="lesson-progress">{progress}</span>
                <button type="button" class="small" data-testid="lesson-close"
                    aria-label=move || t_string!(i18n, teach.lesson.close)
                    on:click=move |_| lab.close_lesson() title=move || t_string!(i18n, teach.lesson.close)>"×"</button>
            </header>
            <p class="lesson-look" data-testid="lesson-look">
                <strong>{t!(i18n, teach.lesson.look_at)}</strong> " " {looks(lab)}
            </p>
            <p class="lesson-question" data-testid="lesson-question">
                <strong>{t!(i18n, teach.lesson.predict)}</strong> " " {move || units_kept(&question())}
            </p>
            <PredictionForm lab />
            {move || match phase.get() {
                Some(Phase::Revealed { reached }) => view! { <Reveal lab reached /> }.into_any(),
                Some(Phase::Playing) => view! {
                    <p class="lesson-playing" role="status">{t!(i18n, teach.lesson.playing)}</p>
                }.into_any(),
                _ => view! { <PlayButton lab /> }.into_any(),
            }}
        </section>
    }
}

/// What the step asks to look at: components by name, metrics by their counter's label
/// with its reading beside it (projected, the counters panel is hidden). Drawn again for
/// another step or language; a reading follows the run on its own.
fn looks(lab: Lab) -> impl IntoView {
    let focus = Memo::new(move |_| {
        lab.guide
            .with(|g| g.as_ref().map(|g| g.step().focus.clone()))
            .unwrap_or_default()
    });
    move || {
        let lang = lab.lang.get();
        let items = focus.get().into_iter().enumerate().map(move |(i, f)| {
            let metric = match f {
                Focus::Metric(m) => Some(m),
                _ => None,
            };
            // Whether the step has a reading for the metric, and of which queue, holds for
            // the whole step: only the value follows the run.
            let reading =
                metric.and_then(|m| untrack(|| reading_of(lab, m)).map(|(scope, _)| (m, scope)));
            let scope = reading.and_then(|(_, q)| q).map(|q| format!(" ({q})"));
            let value = reading.map(|(m, _)| {
                let now = move || reading_of(lab, m).map(|r| r.1).unwrap_or_default();
                view! { " " <b class="look-reading" data-look=metric_counter(m)>{now}</b> }
            });
            view! { {(i > 0).then_some(", ")} {f.label(lang)} {scope} {value} }
        });
        items.collect_view()
    }
}

/// The reading beside metric `m` for the step on show, following the run (see
/// [`step_reading`]).
fn reading_of(lab: Lab, m: Metric) -> Option<(Option<&'static str>, String)> {
    let lang = lab.lang.get();
    lab.readout.with(|r| {
        lab.guide.with(|g| {
            let step = g.as_ref()?.step();
            lab.with_player(|p| step_reading(p.sim(), r, step, m, lang))
        })
    })
}

/// Outlines on the stage what the step names: a style rule over the cards' own keys (so
/// it holds while the cards are redrawn). The selectors are made from indices, never
/// from names a scenario file could hold.
#[component]
fn FocusOutline(lab: Lab) -> impl IntoView {
    let targets = Memo::new(move |_| {
        let focus: Vec<Focus> = lab.guide.with(|g| {
            g.as_ref()
                .map(|g| g.step().focus.clone())
                .unwrap_or_default()
        });
        lab.with_player(|p| {
            focus
                .iter()
                .filter_map(|f| focus_target(p.sim(), f))
                .collect::<Vec<String>>()
        })
    });
    // A step that opens shows what it names: presenting, a tall topology scrolls in its
    // own box, and at 1280×720 the cards of a lesson's queue sat below its edge.
    let opened = Memo::new(move |_| {
        lab.guide.with(|g| {
            g.as_ref()
                .map(|g| (g.lesson.name, g.index, g.phase == Phase::Predict))
        })
    });
    Effect::new(move |_| {
        if opened.get().is_some_and(|(_, _, predicting)| predicting) {
            if let Some(first) = targets.get_untracked().first().cloned() {
                request_animation_frame(move || scroll_into_its_box(&first));
            }
        }
    });
    let css = move || {
        let selectors = targets.get();
        if selectors.is_empty() {
            return String::new();
        }
        // A card the narration outlines too keeps the dashed outline and shows the
        // narration's as an inner ring: an element has one outline, and the step's must
        // not go when the step is revealed and the run's last step names that card.
        let targets = selectors.join(", ");
        format!(
            ":is({targets}) {{ outline: 4px dashed var(--look); outline-offset: 2px; }}\n\
             :is({targets}).narrated.narrated {{ outline: 4px dashed var(--look); \
             box-shadow: inset 0 0 0 3px #0072b2; }}"
        )
    };
    view! { <style data-testid="lesson-focus">{css}</style> }
}

/// Hides on the stage what would give the step's answer away while the learner predicts
/// (the run may already stand at the checkpoint): each element keeps its place, its value
/// is replaced by "?", and a screen reader hears that it is hidden until the reveal. A
/// style rule, like the outline, so it holds while the counters and cards are redrawn;
/// its selectors come from [`concealed`], made of test ids and indices only.
#[component]
fn Conceal(lab: Lab) -> impl IntoView {
    let i18n = use_i18n();
    // A memo: the run's time is tracked (a line of the run hides once the run stands at
    // the moment asked about), and the rule is rewritten only when it changes.
    let css = Memo::new(move |_| {
        let step = lab.guide.with(|g| {
            g.as_ref()
                .filter(|g| g.phase == Phase::Predict)
                .map(|g| g.step().clone())
        });
        let Some(step) = step else {
            return String::new();
        };
        lab.readout.track();
        let selectors = lab.with_player(|p| concealed(p.sim(), &step));
        conceal_rule(
            &selectors,
            t_string!(i18n, teach.lesson.hidden_until_reveal),
        )
    });
    view! { <style data-testid="lesson-conceal">{css}</style> }
}

/// The prediction: one choice among several, or a number with its unit. It is locked
/// once the run plays.
#[component]
fn PredictionForm(lab: Lab) -> impl IntoView {
    let locked = move || {
        lab.guide
            .with(|g| g.as_ref().is_some_and(|g| g.phase != Phase::Predict))
    };
    // Drawn again only for another step: an answer typed must not redraw its own field.
    let step = Memo::new(move |_| {
        lab.guide
            .with(|g| g.as_ref().map(|g| (g.lesson.name, g.index)))
    });
    move || {
        // Read, not just tracked: a memo only signals changes once it is computed.
        let _ = step.get();
        let (prediction, kept) = lab.guide.with_untracked(|g| {
            let g = g.as_ref();
            (
                g.map(|g| g.step().prediction.clone()),
                g.and_then(|g| g.answered()),
            )
        });
        match prediction {
            Some(p @ Prediction::Choices { .. }) => choices_field(lab, &p, locked).into_any(),
            Some(Prediction::Number { unit, .. }) => {
                number_field(lab, unit, kept, locked).into_any()
            }
            None => ().into_any(),
        }
    }
}

/// One radio button per option, in the order the question shows them; each keeps its
/// own index (its test hook, the answer a link carries).
fn choices_field(
    lab: Lab,
    prediction: &Prediction,
    locked: impl Fn() -> bool + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let Prediction::Choices { options, .. } = prediction else {
        return ().into_any();
    };
    let chosen = move || {
        lab.guide
            .with(|g| match g.as_ref().and_then(|g| g.answered()) {
                Some(Answer::Choice(i)) => Some(i),
                _ => None,
            })
    };
    let items = prediction
        .shown_order()
        .into_iter()
        .map(|i| (i, options[i]))
        .map(|(i, text)| {
            view! {
                <label class="lesson-choice">
                    <input type="radio" name="lesson-choice" data-testid=format!("lesson-choice-{i}")
                        prop:checked=move || chosen() == Some(i) disabled=locked
                        on:change=move |_| lab.answer_lesson(Answer::Choice(i)) />
                    {move || text.get(lab.lang.get())}
                </label>
            }
        })
        .collect_view();
    view! { <div class="lesson-choices" role="radiogroup">{items}</div> }.into_any()
}

/// A number typed the way the lesson's language writes numbers, with its unit.
fn number_field(
    lab: Lab,
    unit: Unit,
    kept: Option<Answer>,
    locked: impl Fn() -> bool + Copy + Send + Sync + 'static,
) -> impl IntoView {
    // What is wrong with the text typed (the answer is taken back until it is a number).
    let problem = RwSignal::new(None::<NumberProblem>);
    let on_input = move |ev: leptos::ev::Event| {
        let lang = lab.lang.get_untracked();
        let read = read_answer(&event_target_value(&ev), unit, lang);
        match read {
            Ok(Some(x)) => lab.answer_lesson(Answer::Number(x)),
            _ => lab.forget_lesson_answer(),
        }
        problem.set(read.err());
    };
    let typed = match kept {
        Some(Answer::Number(x)) => {
            let decimals = if x.fract() == 0.0 { 0 } else { 2 };
            lessons::number(x, decimals, lab.lang.get_untracked())
        }
        _ => String::new(),
    };
    // The field may be the previous step's, kept by the redraw: its text is set outright
    // to this step's answer.
    let field = NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| {
        if let Some(input) = field.get() {
            input.set_value(&typed);
        }
    });
    view! {
        <label class="lesson-number">
            <input type="text" inputmode="decimal" data-testid="lesson-number" node_ref=field
                disabled=locked on:input=on_input autocomplete="off" />
            <span>{move || unit_label(unit, lab.lang.get())}</span>
        </label>
        <p class="problem" role="alert" data-testid="lesson-number-problem" hidden=move || problem.with(Option::is_none)>
            {move || problem.get().map(|p| p.text(lab.lang.get()))}
        </p>
    }
}

#[component]
fn PlayButton(lab: Lab) -> impl IntoView {
    let answered = move || {
        lab.guide
            .with(|g| g.as_ref().is_some_and(|g| g.answered().is_some()))
    };
    let i18n = use_i18n();
    view! {
        <div class="lesson-actions">
            <StepBack lab />
            <button type="button" class="primary" data-testid="lesson-play"
                disabled=move || !answered() on:click=move |_| lab.play_lesson_step()>
                {t!(i18n, teach.lesson.play)}
            </button>
            <span class="hint" hidden=answered>{t!(i18n, teach.lesson.no_answer)}</span>
        </div>
    }
}

#[component]
fn StepBack(lab: Lab) -> impl IntoView {
    let first = move || lab.guide.with(|g| g.as_ref().is_none_or(|g| g.index == 0));
    let i18n = use_i18n();
    view! {
        <button type="button" data-testid="lesson-previous" disabled=first
            on:click=move |_| lab.previous_lesson_step()>
            {t!(i18n, teach.lesson.previous)}
        </button>
    }
}

/// After the checkpoint: the prediction's verdict and the explanation with its figure.
#[component]
fn Reveal(lab: Lab, reached: bool) -> impl IntoView {
    let lang = lab.lang;
    let i18n = use_i18n();
    let verdict = move || {
        lab.guide
            .with(|g| g.as_ref().map(|g| g.verdict_text(lang.get())))
            .unwrap_or_default()
    };
    let explanation = move || {
        lab.guide.with(|g| {
            g.as_ref()
                .map(|g| g.explanation(lang.get()).to_string())
                .unwrap_or_default()
        })
    };
    let last = move || lab.guide.with(|g| g.as_ref().is_none_or(|g| g.is_last()));
    view! {
        <div class="lesson-reveal" role="status">
            <p class="lesson-verdict" data-testid="lesson-verdict">{move || units_kept(&verdict())}</p>
            {(!reached).then(|| view! { <p class="lesson-ended">{t!(i18n, teach.lesson.ended)}</p> })}
            <p class="lesson-explanation" data-testid="lesson-explanation">{move || units_kept(&explanation())}</p>
            <div class="lesson-actions">
                <StepBack lab />
                <button type="button" class="primary" data-testid="lesson-next" hidden=last
                    on:click=move |_| lab.next_lesson_step()>
                    {t!(i18n, teach.lesson.next)}
                </button>
                <span class="lesson-done" hidden=move || !last()>{t!(i18n, teach.lesson.done)}</span>
            </div>
        </div>
    }
}

/// Page Down: play the step (once answered) or go on to the next; Page Up: the previous
/// step. Only while a lesson is open, and not while typing in a field.
fn use_lesson_keys(lab: Lab) {
    let _ = use_event_listener(use_window(), leptos::ev::keydown, move |ev| {
        let key = ev.key();
        if !matches!(key.as_str(), "PageDown" | "PageUp") {
            return;
        }
        let Some((phase, answered)) = lab
            .guide
            .with_untracked(|g| g.as_ref().map(|g| (g.phase, g.answered().is_some())))
        else {
            return;
        };
        ev.prevent_default();
        match (key.as_str(), phase) {
            ("PageUp", _) => lab.previous_lesson_step(),
            ("PageDown", Phase::Predict) if answered => lab.play_lesson_step(),
            ("PageDown", Phase::Revealed { .. }) => lab.next_lesson_step(),
            _ => {}
        }
    });
}
