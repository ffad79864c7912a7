//! The Interview tab: the review's ten questions as a checklist with a note per row, a
//! fault scheduled in secret (the candidate finds it from the metrics), and the button
//! that reveals it. The link carries all of it, so an interviewer prepares the situation
//! and sends it. Notes are text nodes and form values only: never markup.

use leptos::prelude::*;

use crate::i18n::{t, t_string, use_i18n};
use crate::model::interview::{row, NOTE_CHARS_MAX, QUESTIONS};
use crate::model::schedule::{self, Names};
use crate::model::words::Words;
use crate::state::Lab;
use crate::ui::scenario_editor::ScheduleForm;

#[component]
pub fn InterviewPanel(lab: Lab) -> impl IntoView {
    let i18n = use_i18n();
    let rows = (0..QUESTIONS)
        .map(|i| view! { <ReviewRow lab index=i /> })
        .collect_view();
    view! {
        <section class="panel interview" aria-labelledby="interview-title" data-testid="interview">
            <h2 id="interview-title">{t!(i18n, teach.interview.title)}</h2>
            <p class="hint">{t!(i18n, teach.interview.hint)}</p>
            <ol class="review" lang=move || lab.lang.get().code()>{rows}</ol>
            <HiddenFault lab />
        </section>
    }
}

#[component]
fn ReviewRow(lab: Lab, index: usize) -> impl IntoView {
    let lang = lab.lang;
    let i18n = use_i18n();
    let done = move || lab.interview.with(|i| i.done[index]);
    let note = move || lab.interview.with(|i| i.notes[index].clone());
    view! {
        <li class="review-row">
            <label class="review-check">
                <input type="checkbox" data-testid=format!("review-{index}") prop:checked=done
                    on:change=move |ev| {
                        let on = event_target_checked(&ev);
                        lab.interview.update(|i| i.done[index] = on);
                    } />
                <strong>{move || row(index, lang.get()).0}</strong>
            </label>
            <span class="review-asks">{move || row(index, lang.get()).1}</span>
            <textarea rows="2" maxlength=NOTE_CHARS_MAX.to_string() data-testid=format!("review-note-{index}")
                aria-label=move || {
                    let theme = row(index, lang.get()).0;
                    t_string!(i18n, teach.interview.notes_label, theme = theme).to_string()
                }
                prop:value=note
                on:change=move |ev| {
                    let text = event_target_value(&ev);
                    lab.interview.update(|i| i.set_note(index, &text));
                }></textarea>
        </li>
    }
}

/// A fault scheduled in secret, and the reveal.
#[component]
fn HiddenFault(lab: Lab) -> impl IntoView {
    let names = Memo::new(move |_| {
        let _ = lab.base.get();
        lab.with_player(|p| Names::of(p.sim()))
    });
    let i18n = use_i18n();
    let error = RwSignal::new(None::<Words>);
    let count = move || lab.interview.with(|i| i.hidden().len());
    let revealed = move || lab.interview.with(|i| i.revealed);
    let lines = move || {
        let hidden = lab.interview.with(|i| i.hidden().to_vec());
        let commands = lab.base.with(|b| b.commands.clone());
        let names = names.get();
        hidden
            .into_iter()
            .filter_map(|i| {
                commands
                    .get(i)
                    .map(|c| schedule::line(c, &names, lab.lang.get()))
            })
            .map(|line| view! { <li data-testid="hidden-fault">{line}</li> })
            .collect_view()
    };
    view! {
        <section class="hidden-fault" aria-labelledby="hidden-fault-title">
            <h3 id="hidden-fault-title">{t!(i18n, teach.interview.hidden_title)}</h3>
            <p class="hint">{t!(i18n, teach.interview.hidden_hint)}</p>
            <ScheduleForm lab names error hidden=true />
            <p class="param-error" role="alert" data-testid="hidden-error">
                {move || error.get().map(|m| format!("⚠ {}", m.text(lab.lang.get())))}
            </p>
            <p data-testid="hidden-count">
                {move || match count() {
                    0 => t_string!(i18n, teach.interview.hidden_none).to_string(),
                    1 => t_string!(i18n, teach.interview.hidden_one).to_string(),
                    n => t_string!(i18n, teach.interview.hidden_many, n = n).to_string(),
                }}
            </p>
            <button type="button" class="danger" data-testid="reveal-faults"
                disabled=move || count() == 0 || revealed()
                on:click=move |_| lab.interview.update(|i| i.revealed = true)>
                {move || if count() > 1 {
                    t_string!(i18n, teach.interview.reveal_many).to_string()
                } else {
                    t_string!(i18n, teach.interview.reveal).to_string()
                }}
            </button>
            <ol class="schedule-list" data-testid="revealed-faults" hidden=move || !revealed()>{lines}</ol>
        </section>
    }
}
