//! The Scenario tab: the scenario's JSON in an editable text area with line numbers
//! (Apply runs it from its start; a refusal is marked at its line with its sentence, and
//! the run stays), and the schedule of faults at chosen instants. Everything here is text
//! nodes and attributes: names the user typed are never markup.

use brokerlab_core::lessons::Lang;
use brokerlab_core::scenario::limits::TIME_S_MAX;
use brokerlab_core::{Scenario, ScheduledCommand};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::i18n::{t, t_string, use_i18n};
use crate::model::interview;
use crate::model::scenario_text::{self, TextError};
use crate::model::schedule::{self, Choice, Extra, Names, KINDS};
use crate::model::settings::parse_range;
use crate::model::words::Words;
use crate::state::Lab;

/// The editor's line height in `em` (the text area and its gutter share it; the CSS
/// says the same).
const LINE_EM: f64 = 1.4;

/// Byte offsets (in UTF-16 units, as the text area counts) of where line `line` starts
/// and ends in `text`.
fn line_span(text: &str, line: usize) -> (u32, u32) {
    let mut start = 0u32;
    for (i, l) in text.split('\n').enumerate() {
        let len = l.encode_utf16().count() as u32;
        if i + 1 == line {
            return (start, start + len);
        }
        start += len + 1;
    }
    (start, start)
}

/// Selects line `line` of the text area, focuses it and scrolls the line into view.
fn show_line(area: &web_sys::HtmlTextAreaElement, line: usize) {
    let text = area.value();
    let (start, end) = line_span(&text, line);
    let _ = area.focus();
    let _ = area.set_selection_range(start, end);
    let lines = text.split('\n').count().max(1) as f64;
    let per_line = f64::from(area.scroll_height()) / lines;
    let top = (line as f64 - 3.0).max(0.0) * per_line;
    area.set_scroll_top(top as i32);
    // Focusing may have scrolled the side panel to the caret alone: show the whole editor.
    if let Some(editor) = area.parent_element().and_then(|p| p.parent_element()) {
        editor.scroll_into_view_with_bool(true);
    }
}

/// The gutter's numbers, the marked line flagged.
fn gutter(lines: usize, marked: Option<usize>) -> impl IntoView {
    (1..=lines)
        .map(|n| {
            let is = marked == Some(n);
            view! {
                <span class="gutter-line" class:marked=is data-testid=is.then_some("gutter-marked")>
                    {if is { format!("⚠ {n}") } else { n.to_string() }}
                    "\n"
                </span>
            }
        })
        .collect_view()
}

/// What the editor last did, said under its buttons.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Done {
    Applied,
    Reverted,
}

/// A refusal on show: its line, and its sentence in whichever language the page shows.
#[derive(Clone)]
struct Refusal {
    line: usize,
    words: Words,
}

impl Refusal {
    /// `text`'s refusal `e`, re-worded by checking `text` again in the page's language (a
    /// refusal only running it found keeps the sentence it was made with).
    fn of(text: String, e: TextError) -> Self {
        let TextError { line, message } = e;
        let words = Words::new(move |lang| match scenario_text::check(&text, lang) {
            Err(again) => again.message,
            Ok(_) => message.clone(),
        });
        Refusal { line, words }
    }
}

/// What the editor's buttons act on.
#[derive(Clone, Copy)]
struct EditorState {
    area: NodeRef<leptos::html::Textarea>,
    error: RwSignal<Option<Refusal>>,
    status: RwSignal<Option<Done>>,
    lines: RwSignal<usize>,
}

impl EditorState {
    /// Apply: the text runs, or its refusal is marked at its line (the run stays).
    fn apply(self, lab: Lab) {
        let Some(el) = self.area.get_untracked() else {
            return;
        };
        let text = el.value();
        match lab.apply_scenario_text(&text) {
            Ok(()) => {
                // The scenario may be the one already running (the base does not change,
                // so nothing else clears an earlier refusal).
                self.error.set(None);
                self.status.set(Some(Done::Applied));
            }
            Err(e) => {
                let line = e.line;
                self.error.set(Some(Refusal::of(text, e)));
                self.status.set(None);
                let el: &web_sys::HtmlTextAreaElement = el.unchecked_ref();
                show_line(el, line);
            }
        }
    }

    /// Revert: the text of the scenario that is running.
    fn revert(self, lab: Lab) {
        let text = lab.scenario_text();
        if let Some(el) = self.area.get_untracked() {
            el.set_value(&text);
            el.set_scroll_top(0);
        }
        self.lines.set(text.split('\n').count());
        self.error.set(None);
        self.status.set(Some(Done::Reverted));
    }
}

/// The JSON editor: text area, gutter, Apply and Revert, the refusal at its line.
#[component]
fn Editor(lab: Lab) -> impl IntoView {
    let area = NodeRef::<leptos::html::Textarea>::new();
    let gutter_ref = NodeRef::<leptos::html::Pre>::new();
    let error = RwSignal::new(None::<Refusal>);
    let status = RwSignal::new(None::<Done>);
    let lines = RwSignal::new(1usize);
    let scroll = RwSignal::new(0.0f64);
    // The scenario on the page changed (loaded, applied, scheduled, reseeded): show it.
    Effect::new(move |_| {
        let text = lab.base.with(scenario_text::text_of);
        lines.set(text.split('\n').count());
        if let Some(el) = area.get() {
            el.set_value(&text);
        }
        error.set(None);
    });
    let on_input = move |_| {
        if let Some(el) = area.get_untracked() {
            lines.set(el.value().split('\n').count());
        }
        status.set(None);
    };
    let on_scroll = move |_| {
        if let Some(el) = area.get_untracked() {
            let top = el.scroll_top();
            scroll.set(f64::from(top));
            if let Some(g) = gutter_ref.get_untracked() {
                g.set_scroll_top(top);
            }
        }
    };
    let i18n = use_i18n();
    let status_text = move || {
        status.get().map(|done| match done {
            Done::Applied => t_string!(i18n, panels.editor.applied),
            Done::Reverted => t_string!(i18n, panels.editor.reverted),
        })
    };
    let state = EditorState {
        area,
        error,
        status,
        lines,
    };
    let apply = move |_| state.apply(lab);
    let revert = move |_| state.revert(lab);
    let marked = move || error.with(|e| e.as_ref().map(|e| e.line));
    let band_style = move || {
        marked().map_or("display: none".to_string(), |line| {
            let top = (line as f64 - 1.0) * LINE_EM;
            format!("top: calc({top}em + 0.4rem - {}px)", scroll.get())
        })
    };
    view! {
        <div class="editor" class:invalid=move || error.with(Option::is_some)>
            <pre class="gutter" aria-hidden="true" node_ref=gutter_ref data-testid="editor-gutter">
                {move || gutter(lines.get(), marked())}
            </pre>
            <div class="editor-text">
                <div class="editor-band" aria-hidden="true" style=band_style></div>
                <textarea node_ref=area id="scenario-json" data-testid="editor-text" spellcheck="false"
                    autocomplete="off" wrap="off" aria-label=move || t_string!(i18n, panels.editor.text_label)
                    aria-invalid=move || if error.with(Option::is_some) { "true" } else { "false" }
                    aria-describedby="editor-error"
                    on:input=on_input on:scroll=on_scroll></textarea>
            </div>
        </div>
        <p class="editor-error" id="editor-error" role="alert" data-testid="editor-error"
            data-line=move || marked().map(|l| l.to_string())>
            {move || error.get().map(|e| {
                let message = e.words.text(lab.lang.get());
                t_string!(i18n, panels.editor.line_problem, line = e.line, message).to_string()
            })}
        </p>
        <div class="editor-actions">
            <button type="button" data-testid="editor-apply" on:click=apply>{t!(i18n, panels.editor.apply)}</button>
            <button type="button" data-testid="editor-revert" on:click=revert>{t!(i18n, panels.editor.revert)}</button>
            <span class="hint" role="status" data-testid="editor-status">{status_text}</span>
        </div>
    }
}

/// The scheduled commands, each with its Remove button.
#[component]
fn ScheduleList(lab: Lab, names: Memo<Names>, error: RwSignal<Option<Words>>) -> impl IntoView {
    let i18n = use_i18n();
    let items = move || {
        let lang = lab.lang.get();
        let commands = lab.base.with(|base| base.commands.clone());
        let late = lab.base.with(|base| schedule::late_notes(base, lang));
        let names = names.get();
        let shown: Vec<bool> = (0..commands.len())
            .map(|i| lab.interview.with(|iv| iv.shows(i)))
            .collect();
        // A fault hidden for an interview is left out until it is revealed.
        commands
            .into_iter()
            .enumerate()
            .filter(|(i, _)| shown[*i])
            .map(|(i, c)| {
                let remove = move |_| match lab.unschedule(i) {
                    Ok(()) => error.set(None),
                    Err(e) => error.set(Some(Words::new(move |_| e.clone()))),
                };
                let late = late.get(i).cloned().flatten();
                view! {
                    <li data-testid="schedule-item">
                        <span>{schedule::line(&c, &names, lang)}</span>
                        {late.map(|note| view! {
                            " "
                            <span class="schedule-late" data-testid=format!("schedule-late-{i}")>
                                "(" {note} ")"
                            </span>
                        })}
                        " "
                        <button type="button" class="small" data-testid=format!("schedule-remove-{i}")
                            on:click=remove>{t!(i18n, panels.schedule.remove)}</button>
                    </li>
                }
            })
            .collect_view()
    };
    let empty = move || {
        let base = lab.base.get();
        lab.interview
            .with(|i| interview::shown(&base, i).commands.is_empty())
    };
    view! {
        <p class="hint" hidden=move || !empty()>{t!(i18n, panels.schedule.nothing)}</p>
        <ol class="schedule-list" data-testid="schedule-list">{items}</ol>
    }
}

/// A number from a field of the schedule's form; empty is `None`.
fn optional_number(text: &str, unit: &str, lang: Lang) -> Result<Option<f64>, String> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    // The scenario's own bound on a time: a number the form takes, the schedule takes.
    parse_range(text, 0.0, false, TIME_S_MAX, unit, lang).map(Some)
}

/// What the schedule's form holds when its button is pressed.
#[derive(Clone)]
struct FormText {
    kind: schedule::Kind,
    target: usize,
    at: String,
    extra: String,
}

/// The command the form asks for (`hidden`: in secret, for an interview), checked against
/// `base`, or why not, said in `lang`.
fn planned(
    base: &Scenario,
    form: &FormText,
    hidden: bool,
    lang: Lang,
) -> Result<ScheduledCommand, String> {
    let at_s = parse_range(&form.at, 0.0, false, TIME_S_MAX, "s", lang)?;
    if let Some(why) = schedule::past_the_end(base, at_s, lang) {
        return Err(why);
    }
    let unit = match form.kind.extra {
        Extra::None => String::new(),
        Extra::RestartAfter => "s".to_string(),
        Extra::Factor => {
            crate::i18n::td_string!(crate::i18n::locale(lang), panels.schedule.times).to_string()
        }
        Extra::Rate => {
            crate::i18n::td_string!(crate::i18n::locale(lang), panels.params.rate_unit).to_string()
        }
    };
    let value = match form.kind.extra {
        Extra::None => None,
        _ => optional_number(&form.extra, &unit, lang)?,
    };
    let choice = Choice {
        kind: form.kind,
        target: form.target,
        at_s,
        extra: value,
    };
    let mut scheduled = schedule::command_of(&choice, base, lang)?;
    // A hidden fault strikes without warning: the narration must not give it away.
    scheduled.unannounced = hidden;
    schedule::with_added(base, scheduled.clone())
        .validate()
        .map_err(|e| {
            let problem = crate::model::words::refusal_in(&e, lang);
            crate::i18n::td_string!(crate::i18n::locale(lang), panels.schedule.refused, problem)
                .to_string()
        })?;
    Ok(scheduled)
}

/// Schedules what the form says (`hidden`: in secret, for an interview), or says why not
/// in whichever language the page shows (the form is checked again in that language).
fn add_scheduled(lab: Lab, form: &FormText, hidden: bool) -> Result<(), Words> {
    let base = lab.scenario_on_show();
    let reword = {
        let base = base.clone();
        let form = form.clone();
        move |first: String| {
            let base = base.clone();
            let form = form.clone();
            Words::new(move |lang| {
                planned(&base, &form, hidden, lang)
                    .err()
                    .unwrap_or_else(|| first.clone())
            })
        }
    };
    let scheduled = planned(&base, form, hidden, lab.lang.get_untracked()).map_err(&reword)?;
    lab.schedule(scheduled).map_err(&reword)?;
    Ok(())
}

/// The form that adds a scheduled command (`hidden`: for an interview, left out of the
/// schedule's list and the timeline until revealed).
#[component]
pub fn ScheduleForm(
    lab: Lab,
    names: Memo<Names>,
    error: RwSignal<Option<Words>>,
    #[prop(optional)] hidden: bool,
) -> impl IntoView {
    // The same form serves the Interview tab: its hooks are named apart there.
    let id = move |name: &str| {
        if hidden {
            format!("hidden-{name}")
        } else {
            name.to_string()
        }
    };
    let kind = RwSignal::new(KINDS[0]);
    let target = RwSignal::new(0usize);
    let at = RwSignal::new(String::from("10"));
    let extra = RwSignal::new(String::from("5"));
    let i18n = use_i18n();
    // What this scenario can take: the select never offers a kind it would refuse.
    let offered = Memo::new(move |_| {
        lab.base.track();
        let base = lab.scenario_on_show();
        names.with(|n| schedule::offered(&base, n, lab.lang.get()))
    });
    let choose = move |k: schedule::Kind, t: usize| {
        if kind.get_untracked() != k {
            kind.set(k);
            extra.set(k.extra.initial_text().into());
        }
        target.set(t);
    };
    // A refusal is about the scenario it was made on: another one on show takes it away.
    Effect::new(move |_| {
        lab.base.track();
        error.set(None);
    });
    // A scenario that cannot take the chosen kind (or target) moves the form to one it can.
    Effect::new(move |_| {
        let (k, t) = (kind.get_untracked(), target.get_untracked());
        if let Some((k, t)) = offered.with(|o| o.settle(k, t)) {
            choose(k, t);
        }
    });
    let targets = move || offered.with(|o| o.targets(kind.get()));
    let kind_options = move || {
        let kinds: Vec<schedule::Kind> = offered.with(|o| o.kinds().collect());
        kinds
            .into_iter()
            .map(|k| {
                view! {
                    <option value=k.key selected=move || kind.get() == k>
                        {move || k.label(lab.lang.get())}
                    </option>
                }
            })
            .collect_view()
    };
    let on_kind = move |ev: leptos::ev::Event| {
        if let Some(k) = schedule::kind_named(&event_target_value(&ev)) {
            let first = offered.with(|o| o.settle(k, usize::MAX)).map_or(0, |c| c.1);
            choose(k, first);
        }
    };
    let add = move |_| {
        let form = FormText {
            kind: kind.get_untracked(),
            target: target.get_untracked(),
            at: at.get_untracked(),
            extra: extra.get_untracked(),
        };
        error.set(add_scheduled(lab, &form, hidden).err());
    };
    view! {
        <div class="schedule-form">
            <label>{t!(i18n, panels.schedule.what)} " " <select data-testid=id("schedule-kind") on:change=on_kind>{kind_options}</select></label>
            <label hidden=move || kind.get().target == schedule::Target::Broker>
                {t!(i18n, panels.schedule.which)}
                <select data-testid=id("schedule-target")
                    on:change=move |ev| target.set(event_target_value(&ev).parse().unwrap_or(0))>
                    {move || targets().into_iter().map(|(i, name)| {
                        view! { <option value=i.to_string() selected=move || target.get() == i>{name}</option> }
                    }).collect_view()}
                </select>
            </label>
            <label>{t!(i18n, panels.schedule.at)}
                <input type="text" inputmode="decimal" data-testid=id("schedule-at") prop:value=move || at.get()
                    on:input=move |ev| at.set(event_target_value(&ev)) />
            </label>
            <label hidden=move || kind.get().extra == Extra::None>
                {move || kind.get().extra.label(lab.lang.get()).unwrap_or_default()}
                <input type="text" inputmode="decimal" data-testid=id("schedule-extra") prop:value=move || extra.get()
                    on:input=move |ev| extra.set(event_target_value(&ev)) />
            </label>
            <button type="button" data-testid=id("schedule-add") on:click=add>
                {move || if hidden {
                    t_string!(i18n, panels.schedule.add_secret)
                } else {
                    t_string!(i18n, panels.schedule.add)
                }}
            </button>
        </div>
    }
}

/// The schedule: what is planned, and the form to plan more.
#[component]
fn Schedule(lab: Lab) -> impl IntoView {
    let names = Memo::new(move |_| {
        lab.base.track();
        lab.with_player(|p| Names::of(p.sim()))
    });
    let error = RwSignal::new(None::<Words>);
    let i18n = use_i18n();
    view! {
        <section class="schedule" aria-labelledby="schedule-title" data-testid="schedule">
            <h3 id="schedule-title">{t!(i18n, panels.schedule.title)}</h3>
            <p class="hint">{t!(i18n, panels.schedule.intro)}</p>
            <ScheduleList lab names error />
            <ScheduleForm lab names error />
            <p class="param-error" role="alert" data-testid="schedule-error">
                {move || error.get().map(|m| format!("⚠ {}", m.text(lab.lang.get())))}
            </p>
        </section>
    }
}

/// The Scenario tab. While an interview keeps a fault hidden, the scenario's text (which
/// would show it) stays out of sight.
#[component]
pub fn ScenarioPanel(lab: Lab) -> impl IntoView {
    let secret = Memo::new(move |_| lab.interview.with(|i| i.keeps_secret()));
    let i18n = use_i18n();
    view! {
        <p class="hint" data-testid="scenario-secret" hidden=move || !secret.get()>
            {t!(i18n, panels.editor.secret)}
        </p>
        <section class="panel scenario-editor" aria-labelledby="scenario-editor-title" data-testid="scenario-editor"
            hidden=move || secret.get()>
            <h2 id="scenario-editor-title">{t!(i18n, panels.editor.title)}</h2>
            <p class="hint">{t!(i18n, panels.editor.intro)}</p>
            <Editor lab />
            <Schedule lab />
        </section>
    }
}
