//! A term with its definition on hover or keyboard focus: `<Term term=…>` shows the word
//! (or the text given) as a focusable `<dfn>` described by a tooltip holding the
//! glossary's definition, as plain text. Escape hides the tooltip.

use std::sync::atomic::{AtomicUsize, Ordering};

use leptos::prelude::*;

use crate::i18n::{self, use_i18n};
use crate::model::glossary;

/// Makes each tooltip's id unique on the page (a term can appear many times).
static NEXT_ID: AtomicUsize = AtomicUsize::new(0);

#[component]
pub fn Term(
    term: glossary::Term,
    /// What to show instead of the term's own word (e.g. "Acked" for ack).
    #[prop(optional)]
    text: Option<&'static str>,
    /// What to show when it changes (e.g. a card's "lease runs out in 2.0 s").
    #[prop(optional)]
    children: Option<Children>,
) -> impl IntoView {
    let slug = term.slug();
    let tip_id = format!("term-{slug}-{}", NEXT_ID.fetch_add(1, Ordering::Relaxed));
    let open = RwSignal::new(false);
    let i18n = use_i18n();
    let lang = move || i18n::lang_of(i18n);
    view! {
        <span class="term" on:mouseenter=move |_| open.set(true) on:mouseleave=move |_| open.set(false)>
            <dfn tabindex="0" aria-describedby=tip_id.clone() data-term=slug data-testid=format!("term-{slug}")
                on:focus=move |_| open.set(true) on:blur=move |_| open.set(false)
                on:keydown=move |ev| {
                    if ev.key() == "Escape" && open.get_untracked() {
                        // Hide the tooltip; this Escape is not for the page.
                        ev.stop_propagation();
                        open.set(false);
                    }
                }>
                {match children {
                    Some(children) => children(),
                    None => match text {
                        Some(text) => text.into_any(),
                        None => (move || term.word(lang())).into_any(),
                    },
                }}
            </dfn>
            <span class="term-tip" role="tooltip" id=tip_id hidden=move || !open.get()
                data-testid=format!("term-{slug}-tip")>
                {move || term.definition(lang())}
            </span>
        </span>
    }
}

/// A label that names a glossary term: the label's text as that term (with its
/// definition); plain text when it names none.
pub fn label_text(label: &'static str, term: Option<glossary::Term>) -> AnyView {
    match term {
        Some(term) => view! { <Term term text=label /> }.into_any(),
        None => label.into_any(),
    }
}
