//! The database lane of the diagram: one card per consumer group's tables.

use brokerlab_core::Idempotency;
use leptos::prelude::*;

use crate::format::count;
use crate::model::database::*;
use crate::model::glossary;
use crate::state::Lab;
use crate::ui::term::Term;

/// One table card.
#[component]
fn DatabaseBox(lab: Lab, index: usize) -> impl IntoView {
    let card = Memo::new(move |_| lab.topology.with(|t| t.database.get(index).cloned()));
    let name = move || card.with(|c| c.as_ref().map(|c| c.name.clone()).unwrap_or_default());
    let summary = move || card.with(|c| c.as_ref().map(database_summary).unwrap_or_default());
    let uses_inbox = move || {
        card.with(|c| {
            c.as_ref()
                .is_some_and(|c| c.idempotency == Idempotency::Inbox)
        })
    };
    let has_dup = move || card.with(|c| c.as_ref().is_some_and(|c| c.duplicates > 0));
    let rows = move || {
        card.with(|c| c.as_ref().map(|c| c.rows.clone()).unwrap_or_default())
            .into_iter()
            .enumerate()
            .map(|(r, row)| {
                let dup = row.duplicates > 0;
                view! {
                    <tr class:dup=dup data-testid=format!("db-{index}-row-{r}")>
                        <th scope="row">{row.label.clone()}</th>
                        <td>{row.value.clone()}</td>
                        <td>{effects_text(&row)}</td>
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
            <Show when=move || !empty() fallback=|| view! { <span class="state">"no rows yet"</span> }>
                <table class="effects">
                    <thead><tr><th scope="col">"row"</th><th scope="col">"value"</th><th scope="col">"effects"</th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </Show>
            <Show when=move || { more() > 0 }>
                <span class="state more" data-testid=format!("db-{index}-more")>{move || format!("+{} more", count(more() as u64))}</span>
            </Show>
        </li>
    }
}

/// The database lane's cards.
pub fn database_lane(lab: Lab, cards: usize) -> impl IntoView {
    (0..cards)
        .map(|index| view! { <DatabaseBox lab index /> })
        .collect_view()
}
