//! The **Copy link** button: the address of this exact moment to the clipboard, and a
//! notice that says so and goes away by itself.

use leptos::prelude::*;

use crate::i18n::{t_string, use_i18n};
use crate::state::share::copy_link;
use crate::state::Lab;

#[component]
pub fn ShareButton(lab: Lab) -> impl IntoView {
    let i18n = use_i18n();
    let notice = RwSignal::new(false);
    view! {
        <div class="share">
            <button type="button" data-testid="copy-link" on:click=move |_| copy_link(lab, notice)
                title=move || t_string!(i18n, panels.share.copy_link_title)>
                {move || t_string!(i18n, panels.share.copy_link)}
            </button>
            <span class="share-notice" role="status" data-testid="share-notice">
                {move || notice.get().then(|| t_string!(i18n, panels.share.link_copied))}
            </span>
        </div>
    }
}
