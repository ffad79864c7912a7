//! The narration: the latest step in words (on the stage), a short list of notable events,
//! and the event log of the latest steps, filterable by message id (in the side panel).

use brokerlab_core::lessons::Lang;
use brokerlab_core::MsgId;
use leptos::prelude::*;

use crate::format::{count, instant, seconds};
use crate::i18n::{self, locale, t, t_string, td_string, use_i18n};
use crate::model::story::{LogLine, Narration};
use crate::state::Lab;

/// Longest message-id filter accepted (an id has at most 20 digits).
const FILTER_CHARS_MAX: usize = 21;

/// Parses the log's message filter, typed by the user: empty means no filter; otherwise a
/// message id in digits, optionally written `#77`. Anything else is refused with a reason
/// (in `lang`).
pub fn parse_msg_filter(input: &str, lang: Lang) -> Result<Option<MsgId>, String> {
    let l = locale(lang);
    let text = input.trim();
    if text.is_empty() {
        return Ok(None);
    }
    if text.chars().count() > FILTER_CHARS_MAX {
        return Err(td_string!(l, panels.log.filter_too_long).to_string());
    }
    let digits = text.strip_prefix('#').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(td_string!(l, panels.log.filter_not_an_id, text).to_string());
    }
    digits
        .parse::<MsgId>()
        .map(Some)
        .map_err(|_| td_string!(l, panels.log.filter_too_large).to_string())
}

/// The log lines a filter keeps (all of them without a filter).
pub fn filter_log(log: &[LogLine], msg: Option<MsgId>) -> Vec<LogLine> {
    log.iter()
        .filter(|l| msg.is_none_or(|m| l.msg == Some(m)))
        .cloned()
        .collect()
}

/// The event log of the latest steps, newest first, with a message-id filter.
#[component]
pub fn EventLog(
    narration: Memo<Narration>,
    /// Whether its panel is on show: a hidden log keeps the lines it last showed.
    #[prop(into)]
    shown: Signal<bool>,
    /// Called with a message id the user clicked (to show its history).
    #[prop(optional)]
    on_msg: Option<Callback<MsgId>>,
    /// The loaded scenario's name: another scenario's message #56 is another message, so
    /// the filter is cleared when it changes.
    #[prop(into)]
    scenario: Signal<String>,
) -> impl IntoView {
    let i18n = use_i18n();
    // The log's 300 lines would otherwise be rebuilt on every frame of a playing run,
    // panel hidden or not; it catches up the moment its panel is shown again.
    // Hidden, it reads (and so follows) only whether it is shown.
    let log = Memo::new(move |previous: Option<&Vec<LogLine>>| {
        let shown = shown.get();
        match previous {
            Some(kept) if !shown => kept.clone(),
            _ => narration.with(|n| n.log.clone()),
        }
    });
    let input = RwSignal::new(String::new());
    Effect::watch(
        move || scenario.get(),
        move |_, _, _| input.set(String::new()),
        false,
    );
    let filter = Memo::new(move |_| {
        let lang = i18n::lang(i18n.get_locale());
        input.with(|t| parse_msg_filter(t, lang))
    });
    let problem = move || filter.get().err();
    let lines = move || {
        let msg = filter.get().ok().flatten();
        let lines = log.with(|l| filter_log(l, msg));
        if lines.is_empty() {
            let text = if msg.is_some() {
                t_string!(i18n, panels.log.none_about_message)
            } else {
                t_string!(i18n, panels.log.nothing_yet)
            };
            return view! { <li class="none">{text}</li> }.into_any();
        }
        lines
            .into_iter()
            .map(|l| {
                let about = l.msg.map(|m| {
                    view! {
                        <button type="button" class="msg" data-testid="log-msg"
                            title=t_string!(i18n, panels.log.msg_title)
                            on:click=move |_| {
                                input.set(format!("#{m}"));
                                if let Some(open) = on_msg {
                                    open.run(m);
                                }
                            }>
                            {format!("#{m}")}
                        </button>
                    }
                });
                view! {
                    <li>
                        <span class="at">
                            {{
                                let lang = i18n::lang(i18n.get_locale());
                                t_string!(i18n, panels.log.at, step = count(l.step, lang), time = seconds(l.time_s, lang)).to_string()
                            }}
                        </span>
                        <span class="what">{about} " " {l.text}</span>
                    </li>
                }
            })
            .collect_view()
            .into_any()
    };
    view! {
        <section class="panel log" aria-labelledby="log-title">
            <h2 id="log-title">{t!(i18n, panels.log.title)}</h2>
            <label class="filter">
                <span>{t!(i18n, panels.log.filter)}</span>
                <input type="text" inputmode="numeric" maxlength="24"
                    placeholder=move || t_string!(i18n, panels.log.filter_placeholder)
                    data-testid="log-filter" prop:value=move || input.get()
                    on:input=move |ev| input.set(event_target_value(&ev)) />
            </label>
            <p class="problem" role="alert" data-testid="log-filter-error" hidden=move || problem().is_none()>
                {problem}
            </p>
            <ol class="events" data-testid="log" aria-label=move || t_string!(i18n, panels.log.list_label)>
                {lines}
            </ol>
        </section>
    }
}

fn latest_text(n: &Narration, lang: Lang) -> String {
    let l = locale(lang);
    if n.sentences.is_empty() {
        return td_string!(l, panels.narration.press_play).to_string();
    }
    // The step's instant as its sentences write theirs (to the millisecond it needs), so
    // that "at 1.175 s … restart at 6.175 s" adds up: tenths made it "At 1.2 s".
    let at = format!("{} s", instant(n.time_s, lang));
    let said = n.sentences.join(" ");
    match n.more {
        0 => td_string!(l, panels.narration.latest, at, said).to_string(),
        1 => td_string!(l, panels.narration.latest_one_more, at, said).to_string(),
        more => td_string!(l, panels.narration.latest_more, at, said, more).to_string(),
    }
}

/// The latest step in words, on the stage above the topology (read out by screen readers).
#[component]
pub fn LatestLine(narration: Memo<Narration>, lab: Lab) -> impl IntoView {
    let i18n = use_i18n();
    view! {
        <p class="latest" data-testid="narration" aria-live="polite">
            {move || {
                let lang = i18n::lang(i18n.get_locale());
                if lab.aggregated_on.get() {
                    // No steps to tell: the amounts at the cursor instead.
                    let (at, waiting) = lab.readout.with(|r| (seconds(r.time_s, lang), count(r.backlog, lang)));
                    return td_string!(locale(lang), panels.narration.aggregated, at, waiting).to_string();
                }
                let text = narration.with(|n| latest_text(n, lang));
                // While comparing, the stage's story is side A's: B may be elsewhere.
                if lab.compare.with(Option::is_some) {
                    td_string!(locale(lang), panels.compare.narration_side_a, text).to_string()
                } else {
                    text
                }
            }}
        </p>
    }
}

/// The notable events of the run, newest first.
#[component]
pub fn NarrationPanel(narration: Memo<Narration>) -> impl IntoView {
    let i18n = use_i18n();
    let events = move || {
        let events = narration.with(|n| n.events.clone());
        if events.is_empty() {
            return view! { <li class="none">{t!(i18n, panels.narration.none_yet)}</li> }
                .into_any();
        }
        events
            .into_iter()
            .map(|e| {
                view! {
                    <li>
                        <span class="at">{seconds(e.time_s, i18n::lang(i18n.get_locale()))}</span>
                        <span>{e.text}</span>
                    </li>
                }
            })
            .collect_view()
            .into_any()
    };
    view! {
        <section class="panel narration" aria-labelledby="narration-title">
            <h2 id="narration-title">{t!(i18n, panels.narration.title)}</h2>
            <ol class="events" data-testid="events" role="log" aria-label=move || t_string!(i18n, panels.narration.list_label)>
                {events}
            </ol>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::story::Event;

    #[test]
    fn the_filter_takes_ids_and_refuses_anything_else() {
        assert_eq!(parse_msg_filter("", Lang::En), Ok(None));
        assert_eq!(parse_msg_filter("   ", Lang::En), Ok(None));
        assert_eq!(parse_msg_filter("7", Lang::En), Ok(Some(MsgId::new(7))));
        assert_eq!(
            parse_msg_filter(" #42 ", Lang::En),
            Ok(Some(MsgId::new(42)))
        );
        assert_eq!(
            parse_msg_filter("18446744073709551615", Lang::En),
            Ok(Some(MsgId::new(u64::MAX)))
        );
        for bad in [
            "#",
            "-1",
            "1.5",
            "7a",
            "＃7",
            "٣",
            "1 2",
            "<b>1</b>",
            "99999999999999999999",
        ] {
            assert!(
                parse_msg_filter(bad, Lang::En).is_err(),
                "{bad:?} was accepted"
            );
        }
        assert!(parse_msg_filter(&"9".repeat(10_000), Lang::En).is_err());
    }

    #[test]
    fn the_filter_keeps_only_that_message() {
        let line = |step, msg| LogLine {
            step,
            time_s: 0.0,
            msg,
            text: String::new(),
        };
        let log = vec![
            line(3, Some(MsgId::new(1))),
            line(2, None),
            line(1, Some(MsgId::new(0))),
        ];
        assert_eq!(filter_log(&log, None).len(), 3);
        let only = filter_log(&log, Some(MsgId::new(1)));
        assert_eq!(only.len(), 1);
        assert_eq!(only[0].step, 3);
        assert!(filter_log(&log, Some(MsgId::new(9))).is_empty());
    }

    #[test]
    fn the_line_invites_to_play_before_anything_happened() {
        assert_eq!(
            latest_text(&Narration::default(), Lang::En),
            "Press Play to start the run."
        );
    }

    #[test]
    fn the_line_gives_time_sentences_and_what_was_left_out() {
        let n = Narration {
            time_s: 12.345,
            sentences: vec!["A happened.".into(), "B happened.".into()],
            more: 2,
            events: vec![Event {
                time_s: 1.0,
                text: "x".into(),
            }],
            log: Vec::new(),
        };
        assert_eq!(
            latest_text(&n, Lang::En),
            "At 12.345 s: A happened. B happened. (and 2 more things)"
        );
        let one = Narration {
            more: 1,
            ..n.clone()
        };
        assert!(latest_text(&one, Lang::En).ends_with("(and 1 more thing)"));
        assert_eq!(
            latest_text(&n, Lang::Es),
            "A los 12,345 s: A happened. B happened. (y 2 cosas más)"
        );
        assert_eq!(
            parse_msg_filter("x", Lang::Es),
            Err("“x” no es un id de mensaje: escribe un número como 7 o #7.".into())
        );
        let none = Narration { more: 0, ..n };
        assert!(latest_text(&none, Lang::En).ends_with("B happened."));
    }
}
