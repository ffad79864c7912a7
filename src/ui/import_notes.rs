//! The notes of an import, beside the scenario it opened: what the importer assumed (the
//! traffic a definitions file does not describe) and what it left out, each naming its
//! item. Names come from the user's file, so they are only ever text nodes.

use leptos::prelude::*;

use crate::i18n::{t, t_string, use_i18n};
use crate::model::import::note_lines;
use crate::state::Lab;

#[component]
pub fn ImportNotes(lab: Lab) -> impl IntoView {
    let i18n = use_i18n();
    // Re-worded when the language changes; empty (and hidden) once dismissed.
    let lines = Memo::new(move |_| {
        let lang = lab.lang.get();
        lab.import_notes
            .with(|notes| notes.as_ref().map(|notes| note_lines(notes, lang)))
    });
    move || {
        lines.get().map(|lines| {
            let none = lines.is_empty();
            let items = lines
                .into_iter()
                .map(|line| {
                    // The core's sentences already begin with what happened ("Assumed…",
                    // "Ignored…"); the class only sets the two kinds apart.
                    let class = if line.ignored { "ignored" } else { "assumed" };
                    view! { <li class=class>{line.text}</li> }
                })
                .collect_view();
            view! {
                <section class="import-notes" role="status" data-testid="import-notes">
                    <header>
                        <strong>{t!(i18n, panels.files.notes_title)}</strong>
                        <button type="button" class="small" data-testid="import-notes-dismiss"
                            title=move || t_string!(i18n, panels.files.notes_dismiss_title)
                            on:click=move |_| lab.import_notes.set(None)>
                            {t!(i18n, panels.files.notes_dismiss)}
                        </button>
                    </header>
                    {none.then(|| view! { <p>{t!(i18n, panels.files.notes_none)}</p> })}
                    <ul>{items}</ul>
                </section>
            }
        })
    }
}
