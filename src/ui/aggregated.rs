//! An aggregated run on the stage: a banner that says the run is computed as flows (why,
//! and what is not shown), and the components as cards with their amounts at the cursor,
//! in place of the topology with its tokens.

use leptos::prelude::*;

use crate::format::{count, seconds};
use crate::i18n::{t, t_string, use_i18n};
use crate::model::aggregated::Cards;
use crate::state::Lab;

/// A rate per second as the ρ line writes it (0.9, not a count's rounded 1).
fn rate_text(rate: f64, lang: brokerlab_core::lessons::Lang) -> String {
    crate::model::chart_info::rate_figure(rate, lang)
}

/// The banner over an aggregated run: what it is, why, what the page leaves out.
#[component]
pub fn AggregatedBanner(lab: Lab) -> impl IntoView {
    let i18n = use_i18n();
    // The run is stored, not a signal: the scenario's memo says when another one opened.
    let note = move || {
        lab.scenario.track();
        lab.with_aggregated(|a| a.note(lab.lang.get()))
            .unwrap_or_default()
    };
    let pace = move || {
        lab.scenario.track();
        lab.with_aggregated(|a| a.pace_text(lab.lang.get()))
            .unwrap_or_default()
    };
    view! {
        <Show when=move || lab.aggregated_on.get()>
            <section class="aggregated-banner" role="note" data-testid="aggregated-banner">
                <strong>{t!(i18n, stage.aggregated.banner_title)}</strong>
                <p>{t!(i18n, stage.aggregated.banner_why)}</p>
                // Folded: open, the whole banner pushed the chart (the one live view in
                // this mode) below the fold of a 1280×800 screen.
                <details data-testid="aggregated-details">
                    <summary>{t!(i18n, stage.aggregated.details)}</summary>
                    <p class="aggregated-note" data-testid="aggregated-note">{note}</p>
                    <p>{t!(i18n, stage.aggregated.not_shown)} " " {pace}</p>
                </details>
            </section>
        </Show>
    }
}

/// The components as cards with their amounts at the cursor (no tokens).
#[component]
pub fn AggregatedStage(lab: Lab) -> impl IntoView {
    let i18n = use_i18n();
    let cards = Memo::new(move |_| {
        lab.readout.track();
        lab.scenario.track();
        lab.with_aggregated(|a| a.cards()).unwrap_or_default()
    });
    let producers = move || {
        let lang = lab.lang.get();
        cards.with(|c: &Cards| {
            c.producers
                .iter()
                .enumerate()
                .map(|(i, (name, rate))| {
                    let rate = rate_text(*rate, lang);
                    view! {
                        <li class="node producer" data-testid=format!("aggregated-producer-{i}")>
                            <strong>{name.clone()}</strong>
                            <span class="state">{t_string!(i18n, stage.aggregated.rate, rate).to_string()}</span>
                        </li>
                    }
                })
                .collect_view()
        })
    };
    let queues = move || {
        let lang = lab.lang.get();
        cards.with(|c: &Cards| {
            c.queues
                .iter()
                .enumerate()
                .map(|(i, q)| {
                    let waiting = t_string!(i18n, stage.aggregated.waiting, n = count(q.waiting, lang)).to_string();
                    let in_flight = t_string!(i18n, stage.aggregated.in_flight, n = count(q.in_flight, lang)).to_string();
                    let oldest = t_string!(i18n, stage.aggregated.oldest, age = seconds(q.oldest_age_s, lang)).to_string();
                    let dead = (q.dead_lettered > 0).then(|| {
                        t_string!(i18n, stage.aggregated.dead_lettered, n = count(q.dead_lettered, lang)).to_string()
                    });
                    view! {
                        <li class="node queue" data-testid=format!("aggregated-queue-{i}")>
                            <strong>{q.name.clone()}</strong>
                            <span class="state" data-testid=format!("aggregated-queue-{i}-waiting")>{waiting}</span>
                            <span class="state">{in_flight}</span>
                            <span class="state">{oldest}</span>
                            {dead.map(|d| view! { <span class="state">{d}</span> })}
                        </li>
                    }
                })
                .collect_view()
        })
    };
    let consumers = move || {
        let lang = lab.lang.get();
        cards.with(|c: &Cards| {
            c.consumers
                .iter()
                .enumerate()
                .map(|(i, (name, replicas, rate))| {
                    let rate = rate_text(*rate, lang);
                    let replicas = count(u64::from(*replicas), lang);
                    view! {
                        <li class="node consumer" data-testid=format!("aggregated-consumer-{i}")>
                            <strong>{name.clone()}</strong>
                            <span class="state">{t_string!(i18n, stage.aggregated.capacity, replicas, rate).to_string()}</span>
                        </li>
                    }
                })
                .collect_view()
        })
    };
    view! {
        <section class="panel topology aggregated-stage" data-testid="aggregated-stage"
            aria-label=move || t_string!(i18n, stage.aggregated.stage_label)>
            <div class="lanes">
                <div class="lane producers">
                    <h3>{t!(i18n, stage.aggregated.producers)}</h3>
                    <ul>{producers}</ul>
                </div>
                <div class="lane broker">
                    <h3>{t!(i18n, stage.aggregated.queues)}</h3>
                    <ul>{queues}</ul>
                </div>
                <div class="lane consumers">
                    <h3>{t!(i18n, stage.aggregated.consumers)}</h3>
                    <ul>{consumers}</ul>
                </div>
            </div>
        </section>
    }
}
