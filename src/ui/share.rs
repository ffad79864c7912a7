//! The **Copy link** button: the address of this exact moment to the clipboard, and a
//! notice that says so and goes away by itself.

use leptos::prelude::*;

use crate::state::share::copy_link;
use crate::state::Lab;

#[component]
pub fn ShareButton(lab: Lab) -> impl IntoView {
    let notice = RwSignal::new(None::<&'static str>);
    view! {
        <div class="share">
            <button type="button" data-testid="copy-link" on:click=move |_| copy_link(lab, notice)
                title="Copy a link that opens this scenario at this step, with your crashes and changes">
                "Copy link"
            </button>
            <span class="share-notice" role="status" data-testid="share-notice">{move || notice.get()}</span>
        </div>
    }
}
