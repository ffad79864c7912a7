//! The counters panel: what the run has done so far and what it holds right now.

use leptos::prelude::*;

use crate::format::{count, latency, seconds};
use crate::model::glossary;
use crate::model::readout::Percentiles;
use crate::model::readout::Readout;
use crate::ui::term::label_text;

/// Latency percentiles: end to end and queue wait, once a message has finished.
#[component]
pub fn LatencyPanel(percentiles: Memo<Percentiles>) -> impl IntoView {
    let none = move || percentiles.with(|p| p.done == 0);
    let row = move |name: &'static str,
                    testid: &'static str,
                    hint: &'static str,
                    of: fn(&Percentiles) -> [f64; 3]| {
        let cells = ["p50", "p95", "p99"]
            .into_iter()
            .enumerate()
            .map(|(i, p)| {
                view! {
                    <td data-testid=format!("{testid}-{p}")>
                        {move || percentiles.with(|v| latency(of(v)[i]))}
                    </td>
                }
            })
            .collect_view();
        view! { <tr title=hint><th scope="row">{name}</th>{cells}</tr> }
    };
    view! {
        <h3 id="latency-title">"Latency"</h3>
        <p class="latency-none" hidden=move || !none()>"No message has finished yet."</p>
        <table class="latency" data-testid="latency" aria-labelledby="latency-title" hidden=none>
            <caption>{move || format!("over {} finished messages", percentiles.with(|p| count(p.done)))}</caption>
            <thead>
                <tr><th scope="col">"Percentile"</th><th scope="col">"p50"</th><th scope="col">"p95"</th><th scope="col">"p99"</th></tr>
            </thead>
            <tbody>
                {row("End to end", "latency", "From the message's creation until its work is done", |p| p.latency_s)}
                {row("Queue wait", "queue-wait", "From storage in the queue until the first delivery", |p| p.queue_wait_s)}
            </tbody>
        </table>
    }
}

/// One labelled number. The value carries the `data-testid`.
#[component]
fn Counter(
    label: &'static str,
    testid: &'static str,
    /// What the number means, shown on hover.
    hint: &'static str,
    /// The glossary term the label names.
    #[prop(optional)]
    term: Option<glossary::Term>,
    #[prop(into)] value: Signal<String>,
    /// Highlights the counter (something went wrong, or is going wrong).
    #[prop(into, optional)]
    alert: Signal<bool>,
) -> impl IntoView {
    view! {
        <div class="counter" class:alert=move || alert.get() title=hint>
            <dt>{label_text(label, term)}</dt>
            <dd data-testid=testid>{value}</dd>
        </div>
    }
}

/// A counter of the "More" group: (label, testid, hint, value, highlighted when non-zero).
type More = (
    &'static str,
    &'static str,
    &'static str,
    fn(&Readout) -> u64,
    bool,
);

/// Counters that matter only in some scenarios (retries, DLQ, bounded queues, the broker).
const MORE: &[More] = &[
    (
        "Dead-lettered",
        "dead-lettered",
        "Messages moved to the dead-letter queue",
        |r| r.dead_lettered,
        true,
    ),
    (
        "Retries",
        "retries",
        "Retries scheduled after a handler failure",
        |r| r.retries_scheduled,
        false,
    ),
    (
        "Redriven",
        "redriven",
        "Dead letters moved back into their queue",
        |r| r.redriven,
        false,
    ),
    (
        "Duplicates skipped",
        "duplicates-skipped",
        "Redeliveries the idempotent handler recognised and skipped",
        |r| r.duplicates_skipped,
        false,
    ),
    (
        "Refused",
        "refused",
        "Publishes a full queue refused",
        |r| r.refused,
        true,
    ),
    (
        "Dropped",
        "dropped",
        "Messages a full queue dropped to make room",
        |r| r.dropped,
        true,
    ),
    (
        "Expired",
        "expired",
        "Messages whose time to live ran out",
        |r| r.expired,
        true,
    ),
    (
        "Leases expired",
        "leases-expired",
        "Deliveries whose lease ran out with no ack",
        |r| r.leases_expired,
        false,
    ),
    (
        "Broker crashes",
        "broker-crashes",
        "Times the broker process died",
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
                        value=Signal::derive(move || readout.with(|r| count(value(r))))
                        alert=Signal::derive(move || alert) />
                }
            })
            .collect_view()
    };
    view! {
        <h3 hidden=move || shown.with(Vec::is_empty)>"More"</h3>
        <dl data-testid="more-counters">{counters}</dl>
    }
}

/// The run's counters, in three groups: right now, totals, failures.
#[component]
pub fn Counters(
    readout: Memo<Readout>,
    /// Latency percentiles, when the page has them.
    #[prop(optional)]
    percentiles: Option<Memo<Percentiles>>,
) -> impl IntoView {
    let r = move |f: fn(&Readout) -> String| Signal::derive(move || readout.with(f));
    let flag = move |f: fn(&Readout) -> bool| Signal::derive(move || readout.with(f));
    view! {
        <section class="panel counters" aria-labelledby="counters-title">
            <h2 id="counters-title">"Counters"</h2>
            <h3>"Right now"</h3>
            <dl>
                <Counter label="Simulated time" testid="time" hint="Simulated seconds since the run began"
                    value=r(|r| seconds(r.time_s)) />
                <Counter label="Backlog" testid="backlog" hint="Messages waiting in queues, not yet delivered, and log records a consumer group has not yet committed (its lag)"
                    value=r(|r| count(r.backlog)) alert=flag(|r| r.backlog >= 10_000) />
                <Counter label="In flight" testid="in-flight" hint="Delivered to a consumer, not yet acked"
                    value=r(|r| count(r.in_flight)) />
                <Counter label="Oldest age" testid="oldest-age" hint="How long the oldest waiting message has waited"
                    value=r(|r| seconds(r.oldest_age_s)) alert=flag(|r| r.oldest_age_s >= 10.0) />
            </dl>
            <h3>"Totals"</h3>
            <dl>
                <Counter label="Published" testid="published" hint="Messages the producers published that a queue stored or a log appended"
                    value=r(|r| count(r.published)) />
                <Counter label="Delivered" testid="delivered" hint="Deliveries to consumers, redeliveries included"
                    value=r(|r| count(r.delivered)) />
                <Counter label="Acked" testid="acked" term=glossary::Term::Ack
                    hint="Messages acked after their effect committed: done for good"
                    value=r(|r| count(r.acked)) />
                <Counter label="Redelivered" testid="redelivered" hint="Deliveries of a message that had been delivered before"
                    value=r(|r| count(r.redelivered)) alert=flag(|r| r.redelivered > 0) />
            </dl>
            <h3>"Failures"</h3>
            <dl>
                <Counter label="Consumers up" testid="consumers-up" hint="Consumer processes running"
                    value=r(|r| format!("{} / {}", r.consumers_up, r.consumers_total))
                    alert=flag(|r| r.consumers_up < r.consumers_total) />
                <Counter label="Crashes" testid="crashes" hint="Crashes so far, each marked on the chart: consumers, group members, producers or their relays, the broker"
                    value=r(|r| count(r.crashes)) alert=flag(|r| r.crashes > 0) />
                <Counter label="Lost" testid="lost" hint="Messages whose work vanished and will never be redone"
                    value=r(|r| count(r.lost)) alert=flag(|r| r.lost > 0) />
                <Counter label="Duplicate effects" testid="duplicate-effects"
                    hint="Effects applied more than once to the database"
                    value=r(|r| count(r.duplicate_effects)) alert=flag(|r| r.duplicate_effects > 0) />
            </dl>
            <MoreCounters readout />
            {percentiles.map(|percentiles| view! { <LatencyPanel percentiles /> })}
        </section>
    }
}
