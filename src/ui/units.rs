//! Text whose numbers keep their units on their line: a lesson's "a los 6 s" once broke
//! into "a los 6" and "s," on a phone. The runs come from [`crate::format::unit_runs`];
//! the text itself is unchanged (a space, not a no-break space), so that what is read,
//! copied or searched stays the same.

use leptos::prelude::*;

use crate::format::unit_runs;

/// `text` as text nodes, each number and its unit in a span that does not wrap.
pub fn units_kept(text: &str) -> AnyView {
    unit_runs(text)
        .into_iter()
        .map(|(run, whole)| {
            let run = run.to_string();
            if whole {
                view! { <span class="unit-kept">{run}</span> }.into_any()
            } else {
                run.into_any()
            }
        })
        .collect_view()
        .into_any()
}
