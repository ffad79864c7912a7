//! The page's language: English or Spanish, chosen by the browser at first, switched here at
//! once (the page, the narration and the lessons together) and kept in the share link.

use leptos::prelude::*;

use crate::i18n::{self, t_string, use_i18n};
use crate::state::Lab;
use brokerlab_core::lessons::Lang;

/// Makes the page speak `lab.lang`: it starts as the browser's language (unless a link
/// said otherwise, which `share::restore_view` applies afterwards), and the i18n context,
/// hence every text and `<html lang>`, follows it from then on.
pub fn follow_language(lab: Lab) {
    let context = use_i18n();
    lab.lang.set(i18n::lang(context.get_locale_untracked()));
    Effect::new(move |_| context.set_locale(i18n::locale(lab.lang.get())));
}

/// EN | ES, the current one pressed.
#[component]
pub fn LangSwitch(lab: Lab) -> impl IntoView {
    let context = use_i18n();
    let buttons = Lang::ALL
        .into_iter()
        .map(|l| {
            view! {
                <button type="button" class="small" data-testid=format!("lang-{}", l.code())
                    lang=l.code()
                    aria-pressed=move || (lab.lang.get() == l).to_string()
                    on:click=move |_| lab.lang.set(l)>
                    {l.code().to_uppercase()}
                </button>
            }
        })
        .collect_view();
    view! {
        <span class="lang-switch" role="group" aria-label=move || t_string!(context, common.language_label)>
            {buttons}
        </span>
    }
}
