//! The invariants panel: each live property, and where it first broke.

use brokerlab_core::MsgId;
use leptos::prelude::*;

use crate::i18n::{self, t, t_string, use_i18n};
use crate::model::invariants::*;

/// The invariants panel, with the "pause when one breaks" option.
#[component]
pub fn InvariantsPanel(
    statuses: Memo<Vec<Status>>,
    pause_on_breach: RwSignal<bool>,
    /// Opens a message's history.
    on_msg: Callback<MsgId>,
    /// True while comparing: the panel watches side A only, and says so.
    #[prop(into)]
    side_a: Signal<bool>,
) -> impl IntoView {
    let i18n = use_i18n();
    let rows = move || {
        let lang = i18n::lang(i18n.get_locale());
        statuses
            .get()
            .into_iter()
            .map(|s| {
                let key = s.property.key();
                let verdict = if s.holds {
                    t_string!(i18n, panels.invariants.holds)
                } else {
                    t_string!(i18n, panels.invariants.broken)
                };
                let class = if s.holds { "holds" } else { "broken" };
                let msg = s.msg.map(|m| {
                    view! {
                        <button type="button" class="msg" data-testid=format!("invariant-{key}-msg")
                            title=t_string!(i18n, panels.invariants.msg_title)
                            on:click=move |_| on_msg.run(m)>{format!("#{m}")}</button>
                    }
                });
                view! {
                    <li class=class data-testid=format!("invariant-{key}")>
                        <span class="verdict" data-testid=format!("invariant-{key}-verdict")>{verdict}</span>
                        " "<strong>{s.property.title(lang)}</strong>
                        <span class="detail">" — " {s.detail(lang)} " " {msg}</span>
                    </li>
                }
            })
            .collect_view()
    };
    view! {
        <section class="panel invariants" aria-labelledby="invariants-title" data-testid="invariants">
            <h2 id="invariants-title">{t!(i18n, panels.invariants.title)}</h2>
            <p class="hint" data-testid="invariants-side-a" hidden=move || !side_a.get()>
                {t!(i18n, panels.compare.invariants_side_a)}
            </p>
            <label class="option">
                <input type="checkbox" data-testid="invariants-pause"
                    prop:checked=move || pause_on_breach.get()
                    on:change=move |ev| pause_on_breach.set(event_target_checked(&ev)) />
                " " {t!(i18n, panels.invariants.pause)}
            </label>
            <ul>{rows}</ul>
        </section>
    }
}
