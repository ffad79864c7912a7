//! The timeline scrubber: a slider over the run's simulated time. Moving it seeks the run
//! there exactly (re-simulated with the user's commands), paused.

use leptos::prelude::*;

use crate::format::seconds;
use crate::i18n::{t, t_string, use_i18n};
use crate::model::interview;
use crate::model::schedule::{markers, Names};
use crate::state::Lab;

/// The slider's resolution in simulated seconds (a tenth, as the time is shown).
pub const SCRUB_STEP_S: f64 = 0.1;

/// The scheduled faults' instants, as marks along the slider (what is coming, and what
/// already happened).
#[component]
fn ScheduleMarks(lab: Lab) -> impl IntoView {
    // One memo for what is scheduled and the names it uses: recomputed with the scenario.
    // A fault hidden for an interview is not marked until it is revealed.
    let plan = Memo::new(move |_| {
        let base = lab.base.get();
        let shown = lab.interview.with(|i| interview::shown(&base, i));
        (shown, lab.with_player(|p| Names::of(p.sim())))
    });
    let marks = move || {
        let now = lab.readout.with(|r| r.time_s);
        let end = lab.timeline_end_s.get();
        let lang = lab.lang.get();
        plan.with(|(base, names)| markers(base, names, end, now, lang))
    };
    view! {
        <span class="schedule-marks" aria-hidden="true">
            {move || marks().into_iter().map(|m| view! {
                <span class="schedule-mark" class:past=m.past data-testid="schedule-mark"
                    data-at=m.at_s.to_string() title=m.label style=format!("left: {}%", m.percent)></span>
            }).collect_view()}
        </span>
    }
}

#[component]
pub fn Timeline(lab: Lab) -> impl IntoView {
    let end = lab.timeline_end_s;
    // While a seek is under way the slider stays where it was put.
    let shown = move || {
        lab.seeking
            .get()
            .unwrap_or_else(|| lab.readout.with(|r| r.time_s))
    };
    // At the run's end the end reads as the time does: the range's end is that instant
    // rounded up (180.007 s), and "180.0 s / 180.1 s" would look like more to come.
    let end_shown = move || {
        let over = lab.seeking.get().is_none() && lab.readout.with(|r| r.finished);
        if over {
            shown()
        } else {
            end.get()
        }
    };
    let on_input = move |ev: leptos::ev::Event| {
        if let Ok(t) = event_target_value(&ev).parse::<f64>() {
            lab.seek(t);
        }
    };
    let i18n = use_i18n();
    view! {
        <div class="timeline" data-testid="timeline">
            <label for="scrubber"><strong>{t!(i18n, stage.timeline.title)}</strong></label>
            <span class="scrub-track">
            <input id="scrubber" type="range" data-testid="scrubber" min="0"
                max=move || end.get().to_string() step=SCRUB_STEP_S.to_string()
                prop:value=move || shown().to_string()
                aria-valuetext=move || {
                    let (at, end) = (seconds(shown(), lab.lang.get()), seconds(end_shown(), lab.lang.get()));
                    t_string!(i18n, stage.timeline.value_text, at, end).to_string()
                }
                aria-describedby="scrubber-hint"
                on:input=on_input />
            <ScheduleMarks lab />
            </span>
            <output for="scrubber" data-testid="scrubber-time">
                {move || format!("{} / {}", seconds(shown(), lab.lang.get()), seconds(end_shown(), lab.lang.get()))}
            </output>
            <span class="seeking" role="status" data-testid="seeking">
                {move || lab.seeking.get().map(|t| t_string!(i18n, stage.timeline.seeking, at = seconds(t, lab.lang.get())).to_string())}
            </span>
            <span id="scrubber-hint" class="hint">
                {t!(i18n, stage.timeline.hint)}
            </span>
        </div>
    }
}
