//! The database lane of the diagram: one card per consumer group's tables.

use brokerlab_core::Idempotency;
use leptos::prelude::*;

use crate::i18n::{t, use_i18n};
use crate::model::database::*;
use crate::model::dependencies::DependencyCard;
use crate::model::glossary;
use crate::model::topology::more_text;
use crate::state::Lab;
use crate::ui::term::Term;
use brokerlab_core::lessons::Lang;

/// One table card.
#[component]
fn DatabaseBox(lab: Lab, index: usize) -> impl IntoView {
    let i18n = use_i18n();
    let card = Memo::new(move |_| lab.topology.with(|t| t.database.get(index).cloned()));
    let name = move || {
        let lang = lab.lang.get();
        card.with(|c| c.as_ref().map(|c| c.owner.name(lang)).unwrap_or_default())
    };
    let summary = move || {
        let lang = lab.lang.get();
        card.with(|c| {
            c.as_ref()
                .map(|c| database_summary(c, lang))
                .unwrap_or_default()
        })
    };
    let uses_inbox = move || {
        card.with(|c| {
            c.as_ref()
                .is_some_and(|c| c.idempotency == Idempotency::Inbox)
        })
    };
    let has_dup = move || card.with(|c| c.as_ref().is_some_and(|c| c.duplicates > 0));
    let rows = move || {
        let lang = lab.lang.get();
        card.with(|c| c.as_ref().map(|c| c.rows.clone()).unwrap_or_default())
            .into_iter()
            .enumerate()
            .map(|(r, row)| {
                let dup = row.duplicates > 0;
                view! {
                    <tr class:dup=dup data-testid=format!("db-{index}-row-{r}")>
                        <th scope="row">{row.label(lang)}</th>
                        <td>{row.value_text(lang)}</td>
                        <td>{effects_text(&row, lang)}</td>
                    </tr>
                }
            })
            .collect_view()
    };
    let more = move || card.with(|c| c.as_ref().map_or(0, |c| c.more));
    let empty = move || card.with(|c| c.as_ref().is_none_or(|c| c.rows.is_empty()));
    view! {
        <li class="node db" class:dup=has_dup data-node=format!("db-{index}") data-testid=format!("db-{index}")>
            <strong>{name}</strong>
            <span class="state" data-testid=format!("db-{index}-summary")>
                // With an inbox, the summary counts its rows: it defines the inbox on hover.
                <Show when=uses_inbox fallback=move || summary()>
                    <Term term=glossary::Term::Inbox>{summary}</Term>
                </Show>
            </span>
            <Show when=move || !empty() fallback=move || view! { <span class="state">{t!(i18n, stage.db.no_rows)}</span> }>
                <table class="effects">
                    <thead><tr>
                        <th scope="col">{t!(i18n, stage.db.col_row)}</th>
                        <th scope="col">{t!(i18n, stage.db.col_value)}</th>
                        <th scope="col">{t!(i18n, stage.db.col_effects)}</th>
                    </tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </Show>
            <Show when=move || { more() > 0 }>
                <span class="state more" data-testid=format!("db-{index}-more")>{move || more_text(more(), lab.lang.get())}</span>
            </Show>
        </li>
    }
}

/// One dependency's card: its load, line, rates and protections.
#[component]
fn DependencyBox(lab: Lab, index: usize) -> impl IntoView {
    let i18n = use_i18n();
    let card = Memo::new(move |_| lab.topology.with(|t| t.dependencies.get(index).cloned()));
    let text = move |f: fn(&DependencyCard, Lang) -> String| {
        move || {
            let lang = lab.lang.get();
            card.with(|c| c.as_ref().map(|c| f(c, lang)).unwrap_or_default())
        }
    };
    let name = move || card.with(|c| c.as_ref().map(|c| c.view.name.clone()).unwrap_or_default());
    let overloaded = move || card.with(|c| c.as_ref().is_some_and(|c| c.overloaded));
    view! {
        <li class="node dep" class:alert=overloaded data-testid=format!("dep-{index}")>
            <strong>{name}" "<small>{t!(i18n, stage.dep.title)}</small></strong>
            <span class="state" data-testid=format!("dep-{index}-load")>{text(DependencyCard::load_text)}</span>
            <span class="state" data-testid=format!("dep-{index}-rates")>{text(DependencyCard::rates_text)}</span>
            <span class="state" data-testid=format!("dep-{index}-work")>{text(DependencyCard::work_text)}</span>
            <span class="state" data-testid=format!("dep-{index}-protections")>{text(DependencyCard::protections_text)}</span>
            <Show when=overloaded>
                <span class="state warn" data-testid=format!("dep-{index}-overloaded")>{t!(i18n, stage.dep.overloaded)}</span>
            </Show>
        </li>
    }
}

/// The database lane's cards: the dependencies the handlers call, then the tables.
pub fn database_lane(lab: Lab, dependencies: usize, cards: usize) -> impl IntoView {
    let deps = (0..dependencies)
        .map(|index| view! { <DependencyBox lab index /> })
        .collect_view();
    let tables = (0..cards)
        .map(|index| view! { <DatabaseBox lab index /> })
        .collect_view();
    (deps, tables)
}
