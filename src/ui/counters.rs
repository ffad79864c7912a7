//! The counters panel: what the run has done so far and what it holds right now.

use brokerlab_core::lessons::Lang;
use leptos::prelude::*;

use crate::format::{compact_count, count, latency, seconds};
use crate::i18n::{self, locale, t, t_string, td_string, use_i18n};
use crate::model::glossary;
use crate::model::readout::Percentiles;
use crate::model::readout::Readout;
use crate::ui::term::label_text;

/// A counter's words in a language: its label or its hint.
type Words = fn(Lang) -> &'static str;

/// The words of key `stage.counters.$key`, as a [`Words`].
macro_rules! words {
    ($key:ident) => {
        |l: Lang| td_string!(locale(l), stage.counters.$key)
    };
}

/// The page's language, from the i18n context.
fn page_lang() -> impl Fn() -> Lang + Copy + Send + Sync + 'static {
    let i18n = use_i18n();
    move || i18n::lang(i18n.get_locale())
}

/// Latency percentiles: end to end and queue wait, once a message has finished, and a log
/// record's end to end once a group has processed one. An aggregated run has none, and
/// says why (its totals say messages were done).
#[component]
pub fn LatencyPanel(percentiles: Memo<Percentiles>, aggregated: Signal<bool>) -> impl IntoView {
    let i18n = use_i18n();
    let none = move || percentiles.with(|p| p.done == 0 && p.records == 0);
    let no_messages = move || percentiles.with(|p| p.done == 0);
    let no_records = move || percentiles.with(|p| p.records == 0);
    let row = move |name: String,
                    testid: &'static str,
                    hint: String,
                    of: fn(&Percentiles) -> [f64; 3],
                    hidden: fn(&Percentiles) -> bool| {
        let cells = ["p50", "p95", "p99"]
            .into_iter()
            .enumerate()
            .map(|(i, p)| {
                view! {
                    <td data-testid=format!("{testid}-{p}")>
                        {move || percentiles.with(|v| latency(of(v)[i], page_lang()()))}
                    </td>
                }
            })
            .collect_view();
        view! {
            <tr title=hint hidden=move || percentiles.with(hidden)>
                <th scope="row">{name}</th>{cells}
            </tr>
        }
    };
    view! {
        <h3 id="latency-title">{t!(i18n, stage.latency.title)}</h3>
        <p class="latency-none" data-testid="latency-none" hidden=move || !none()>
            {move || if aggregated.get() {
                t_string!(i18n, stage.latency.none_aggregated)
            } else {
                t_string!(i18n, stage.latency.none)
            }}
        </p>
        <table class="latency" data-testid="latency" aria-labelledby="latency-title" hidden=none>
            <caption>{move || {
                let lang = page_lang()();
                let (done, records) = percentiles.with(|p| (p.done, p.records));
                let messages = match done {
                    1 => t_string!(i18n, stage.latency.caption_one).to_string(),
                    done => t_string!(i18n, stage.latency.caption, n = count(done, lang)).to_string(),
                };
                let records_text = match records {
                    1 => t_string!(i18n, stage.latency.caption_record_one).to_string(),
                    r => t_string!(i18n, stage.latency.caption_records, n = count(r, lang)).to_string(),
                };
                match (no_messages(), no_records()) {
                    (false, true) => messages,
                    (true, false) => records_text,
                    _ => t_string!(i18n, stage.latency.caption_both, messages, records = records_text).to_string(),
                }
            }}</caption>
            <thead>
                <tr><th scope="col">{t!(i18n, stage.latency.percentile)}</th><th scope="col">"p50"</th><th scope="col">"p95"</th><th scope="col">"p99"</th></tr>
            </thead>
            <tbody>
                {move || view! {
                    {row(t_string!(i18n, stage.latency.end_to_end).to_string(), "latency",
                        t_string!(i18n, stage.latency.end_to_end_hint).to_string(), |p| p.latency_s,
                        |p| p.done == 0)}
                    {row(t_string!(i18n, stage.latency.queue_wait).to_string(), "queue-wait",
                        t_string!(i18n, stage.latency.queue_wait_hint).to_string(), |p| p.queue_wait_s,
                        |p| p.done == 0)}
                    {row(t_string!(i18n, stage.latency.log_record).to_string(), "record-latency",
                        t_string!(i18n, stage.latency.log_record_hint).to_string(), |p| p.record_latency_s,
                        |p| p.records == 0)}
                }}
            </tbody>
        </table>
    }
}

/// What a counter's tile shows: the text, and the exact count when the text is short for it.
#[derive(Clone, Debug, PartialEq)]
struct Shown {
    text: String,
    exact: Option<String>,
}

impl From<String> for Shown {
    fn from(text: String) -> Self {
        Self { text, exact: None }
    }
}

/// A count as a tile shows it: in full, or written short (an aggregated run's hundreds of
/// millions were cut to "127,711,6…") with the full count on hover.
fn counted(n: u64, lang: Lang) -> Shown {
    match compact_count(n, lang) {
        Some(text) => Shown {
            text,
            exact: Some(count(n, lang)),
        },
        None => count(n, lang).into(),
    }
}

/// One labelled number. The value carries the `data-testid`.
#[component]
fn Counter(
    label: Words,
    testid: &'static str,
    /// What the number means, shown on hover.
    hint: Words,
    /// The glossary term the label names.
    #[prop(optional)]
    term: Option<glossary::Term>,
    #[prop(into)] value: Signal<Shown>,
    /// Highlights the counter (something went wrong, or is going wrong).
    #[prop(into, optional)]
    alert: Signal<bool>,
    /// Hides the counter where it does not apply to the run.
    #[prop(into, optional)]
    hidden: Signal<bool>,
) -> impl IntoView {
    let lang = page_lang();
    view! {
        <div class="counter" class:alert=move || alert.get() title=move || hint(lang())
            hidden=move || hidden.get()>
            <dt>{move || label_text(label(lang()), term)}</dt>
            // Long numbers (an aggregated run's billions) in smaller type, never cut.
            <dd data-testid=testid class:long=move || value.with(|v| v.text.chars().count() > 8)
                class:longer=move || value.with(|v| v.text.chars().count() > 11)
                title=move || value.with(|v| v.exact.clone())>{move || value.with(|v| v.text.clone())}</dd>
        </div>
    }
}

/// A counter of the "More" group: (label, testid, hint, value, highlighted when non-zero).
type More = (Words, &'static str, Words, fn(&Readout) -> u64, bool);

/// Counters that matter only in some scenarios (retries, DLQ, bounded queues, the broker).
const MORE: &[More] = &[
    (
        words!(dead_lettered),
        "dead-lettered",
        words!(dead_lettered_hint),
        |r| r.dead_lettered,
        true,
    ),
    (
        words!(retries),
        "retries",
        words!(retries_hint),
        |r| r.retries_scheduled,
        false,
    ),
    (
        words!(redriven),
        "redriven",
        words!(redriven_hint),
        |r| r.redriven,
        false,
    ),
    (
        words!(duplicates_skipped),
        "duplicates-skipped",
        words!(duplicates_skipped_hint),
        |r| r.duplicates_skipped,
        false,
    ),
    (
        words!(done_without_ack),
        "done-without-ack",
        words!(done_without_ack_hint),
        |r| r.done_without_ack,
        false,
    ),
    (
        words!(retry_waiting),
        "retry-waiting",
        words!(retry_waiting_hint),
        |r| r.retry_waiting,
        false,
    ),
    (
        words!(lost_before_stored),
        "lost-before-stored",
        words!(lost_before_stored_hint),
        |r| r.lost_before_stored,
        true,
    ),
    (
        words!(never_published),
        "never-published",
        words!(never_published_hint),
        |r| r.never_published,
        true,
    ),
    (
        words!(refused),
        "refused",
        words!(refused_hint),
        |r| r.refused,
        true,
    ),
    (
        words!(requests_refused),
        "requests-refused",
        words!(requests_refused_hint),
        |r| r.requests_refused,
        true,
    ),
    (
        words!(dropped),
        "dropped",
        words!(dropped_hint),
        |r| r.dropped,
        true,
    ),
    (
        words!(expired),
        "expired",
        words!(expired_hint),
        |r| r.expired,
        true,
    ),
    (
        words!(leases_expired),
        "leases-expired",
        words!(leases_expired_hint),
        |r| r.leases_expired,
        false,
    ),
    (
        words!(broker_crashes),
        "broker-crashes",
        words!(broker_crashes_hint),
        |r| r.broker_crashes,
        true,
    ),
];

/// The "More" group: each counter appears once it is non-zero, so the panel stays short.
#[component]
fn MoreCounters(readout: Memo<Readout>) -> impl IntoView {
    let shown = Memo::new(move |_| {
        readout.with(|r| {
            MORE.iter()
                .enumerate()
                .filter(|(_, m)| (m.3)(r) > 0)
                .map(|(i, _)| i)
                .collect::<Vec<_>>()
        })
    });
    let counters = move || {
        shown
            .get()
            .into_iter()
            .map(|i| {
                let (label, testid, hint, value, alert) = MORE[i];
                view! {
                    <Counter label testid hint
                        value=Signal::derive(move || readout.with(|r| counted(value(r), page_lang()())))
                        alert=Signal::derive(move || alert) />
                }
            })
            .collect_view()
    };
    let i18n = use_i18n();
    view! {
        <h3 hidden=move || shown.with(Vec::is_empty)>{t!(i18n, stage.counters.more)}</h3>
        <dl data-testid="more-counters">{counters}</dl>
    }
}

/// True when the run has no consumers of queues and none of their counters moved: a run
/// that only reads logs.
fn queues_idle(r: &Readout) -> bool {
    !r.queue_consumers && r.delivered == 0 && r.acked == 0 && r.redelivered == 0
}

/// The run's counters, in three groups: right now, totals, failures.
#[component]
pub fn Counters(
    readout: Memo<Readout>,
    /// Latency percentiles, when the page has them.
    #[prop(optional)]
    percentiles: Option<Memo<Percentiles>>,
    /// True while the run is aggregated (computed as flows): no percentiles, and why.
    #[prop(optional, into)]
    aggregated: Signal<bool>,
) -> impl IntoView {
    let r = move |f: fn(&Readout) -> String| Signal::derive(move || Shown::from(readout.with(f)));
    // A count, written short when it is too wide for its tile.
    let n = move |f: fn(&Readout) -> u64| {
        Signal::derive(move || readout.with(|r| counted(f(r), page_lang()())))
    };
    let flag = move |f: fn(&Readout) -> bool| Signal::derive(move || readout.with(f));
    let i18n = use_i18n();
    view! {
        <section class="panel counters" aria-labelledby="counters-title">
            <h2 id="counters-title">{t!(i18n, stage.counters.title)}</h2>
            <h3>{t!(i18n, stage.counters.right_now)}</h3>
            <dl>
                <Counter label=words!(time) testid="time" hint=words!(time_hint)
                    value=r(|r| seconds(r.time_s, page_lang()())) />
                <Counter label=words!(backlog) testid="backlog" hint=words!(backlog_hint)
                    value=n(|r| r.backlog) alert=flag(|r| r.backlog >= 10_000) />
                <Counter label=words!(in_flight) testid="in-flight" hint=words!(in_flight_hint)
                    value=n(|r| r.in_flight) />
                <Counter label=words!(oldest_age) testid="oldest-age" hint=words!(oldest_age_hint)
                    value=r(|r| seconds(r.oldest_age_s, page_lang()())) alert=flag(|r| r.oldest_age_s >= 10.0) />
            </dl>
            <h3>{t!(i18n, stage.counters.totals)}</h3>
            <dl>
                <Counter label=words!(published) testid="published" hint=words!(published_hint)
                    value=n(|r| r.published) />
                // A run that only reads logs delivers and acks nothing: its groups'
                // records processed and offsets committed say what was done instead.
                <Counter label=words!(delivered) testid="delivered" hint=words!(delivered_hint)
                    value=n(|r| r.delivered) hidden=flag(queues_idle) />
                <Counter label=words!(acked) testid="acked" term=glossary::Term::Ack
                    hint=words!(acked_hint)
                    value=n(|r| r.acked) hidden=flag(queues_idle) />
                <Counter label=words!(redelivered) testid="redelivered" hint=words!(redelivered_hint)
                    value=n(|r| r.redelivered) alert=flag(|r| r.redelivered > 0)
                    hidden=flag(queues_idle) />
                <Counter label=words!(records_processed) testid="records-processed"
                    hint=words!(records_processed_hint)
                    value=n(|r| r.records_processed) hidden=flag(|r| !r.log_groups) />
                <Counter label=words!(offsets_committed) testid="offsets-committed" term=glossary::Term::Offset
                    hint=words!(offsets_committed_hint)
                    value=n(|r| r.offsets_committed) hidden=flag(|r| !r.log_groups) />
            </dl>
            <h3>{t!(i18n, stage.counters.failures)}</h3>
            <dl>
                <Counter label=words!(consumers_up) testid="consumers-up" hint=words!(consumers_up_hint)
                    value=r(|r| format!("{} / {}", r.consumers_up, r.consumers_total))
                    alert=flag(|r| r.consumers_up < r.consumers_total) />
                <Counter label=words!(crashes) testid="crashes" hint=words!(crashes_hint)
                    value=n(|r| r.crashes) alert=flag(|r| r.crashes > 0) />
                // Every message lost for good, stored or not, and every log record a
                // group will never process: "Lost 0" beside a broken "no message lost"
                // invariant (publishes lost to a down broker, records skipped) read as a
                // contradiction.
                <Counter label=words!(lost) testid="lost" hint=words!(lost_hint)
                    value=n(Readout::lost_for_good)
                    alert=flag(|r| r.lost_for_good() > 0) />
                <Counter label=words!(duplicate_effects) testid="duplicate-effects"
                    hint=words!(duplicate_effects_hint)
                    value=n(|r| r.duplicate_effects) alert=flag(|r| r.duplicate_effects > 0) />
            </dl>
            <MoreCounters readout />
            {percentiles.map(|percentiles| view! { <LatencyPanel percentiles aggregated /> })}
        </section>
    }
}
