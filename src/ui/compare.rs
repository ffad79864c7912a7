//! Compare mode's views: the **Compare…** tool and its form, the bar shown while comparing
//! (where commands go, stop), side B's stage under A's, and both sides' counters side by
//! side with the differences marked.

use leptos::prelude::*;

use brokerlab_core::compare::Side;

use crate::format::count;
use crate::i18n::{t, t_string, use_i18n};
use crate::model::compare::{offered_settings, refused, variant_of};
use crate::state::Lab;
use crate::ui::topology::TopologyView;

/// The header's **Compare…** button, and the form it opens.
#[component]
pub fn CompareTool(lab: Lab, open: RwSignal<bool>) -> impl IntoView {
    view! {
        <div class="compare-tool">
            {move || open.get().then(|| view! { <CompareForm lab open /> })}
        </div>
    }
}

/// Pick a setting and its value for side B (or type any `path=value`), then start.
#[component]
fn CompareForm(lab: Lab, open: RwSignal<bool>) -> impl IntoView {
    let i18n = use_i18n();
    let settings = Memo::new(move |_| {
        let lang = lab.lang.get();
        lab.base.with(|s| offered_settings(s, lang))
    });
    let picked = RwSignal::new(0_usize);
    let value = RwSignal::new(String::new());
    let free = RwSignal::new(String::new());
    // A new pick starts from a value that differs from A's, when there is a list.
    Effect::new(move |_| {
        let i = picked.get();
        let first = settings.with(|s| {
            s.get(i).map(|s| {
                s.choices
                    .iter()
                    .find(|c| **c != s.current)
                    .cloned()
                    .unwrap_or_else(|| s.current.clone())
            })
        });
        value.set(first.unwrap_or_default());
    });
    let start = move || {
        let path = settings.with_untracked(|s| {
            s.get(picked.get_untracked())
                .map(|s| s.path.clone())
                .unwrap_or_default()
        });
        let started = match variant_of(&free.get_untracked(), &path, &value.get_untracked()) {
            Ok(variant) => lab.start_compare(variant),
            Err(e) => {
                lab.error.set(Some(refused(e)));
                false
            }
        };
        if started {
            open.set(false);
        }
    };
    let options = move || {
        settings
            .get()
            .into_iter()
            .enumerate()
            .map(|(i, s)| view! { <option value=i.to_string()>{s.label}</option> })
            .collect_view()
    };
    let value_field = move || {
        let choices = settings.with(|s| {
            s.get(picked.get()).map(|s| {
                s.choices
                    .iter()
                    .cloned()
                    .zip(s.choice_labels.iter().cloned())
                    .collect::<Vec<_>>()
            })
        });
        match choices.filter(|c| !c.is_empty()) {
            Some(choices) => view! {
                <select data-testid="compare-value" prop:value=move || value.get()
                    on:change=move |ev| value.set(event_target_value(&ev))>
                    {choices.into_iter().map(|(c, label)| view! { <option value=c>{label}</option> }).collect_view()}
                </select>
            }
            .into_any(),
            None => view! {
                <input data-testid="compare-value" type="text" prop:value=move || value.get()
                    on:input=move |ev| value.set(event_target_value(&ev)) />
            }
            .into_any(),
        }
    };
    view! {
        <form class="compare-form" data-testid="compare-form"
            on:submit=move |ev| { ev.prevent_default(); start(); }>
            <h2>{t!(i18n, panels.compare.form_title)}</h2>
            <p class="hint">{t!(i18n, panels.compare.form_hint)}</p>
            <label>
                {t!(i18n, panels.compare.setting)}
                <select id="compare-setting" data-testid="compare-setting"
                    on:change=move |ev| picked.set(event_target_value(&ev).parse().unwrap_or(0))>
                    {options}
                </select>
            </label>
            <label>{t!(i18n, panels.compare.value)} {value_field}</label>
            <label>
                {t!(i18n, panels.compare.free)}
                <input type="text" data-testid="compare-free" placeholder="consumers.*.idempotency=inbox"
                    prop:value=move || free.get() on:input=move |ev| free.set(event_target_value(&ev)) />
            </label>
            <div class="compare-actions">
                <button type="submit" data-testid="compare-start">{t!(i18n, panels.compare.start)}</button>
                <button type="button" on:click=move |_| open.set(false)>{t!(i18n, panels.compare.cancel)}</button>
            </div>
        </form>
    }
}

/// While comparing: where the main stage's commands go, and a way out.
#[component]
pub fn CompareBar(lab: Lab) -> impl IntoView {
    let i18n = use_i18n();
    move || {
        let target = lab.compare.with(|c| c.as_ref().map(|c| c.target))?;
        // Each label is `t!`, so it follows a language switch while the bar stays.
        let choice = move |side: Side, testid: &'static str, label: AnyView| {
            view! {
                <label class="compare-choice">
                    <input type="radio" name="compare-target" data-testid=testid
                        prop:checked=move || target.get() == side
                        on:change=move |_| target.set(side) />
                    {label}
                </label>
            }
        };
        Some(view! {
            <div class="compare-bar" data-testid="compare-bar">
                <fieldset class="compare-target" data-testid="compare-target"
                    data-target=move || format!("{:?}", target.get()).to_lowercase()>
                    <legend>{t!(i18n, panels.compare.target)}</legend>
                    {choice(Side::A, "compare-target-a", t!(i18n, panels.compare.target_a).into_any())}
                    {choice(Side::B, "compare-target-b", t!(i18n, panels.compare.target_b).into_any())}
                    {choice(Side::Both, "compare-target-both", t!(i18n, panels.compare.target_both).into_any())}
                </fieldset>
                <button type="button" data-testid="compare-stop" on:click=move |_| lab.stop_compare()>
                    {t!(i18n, panels.compare.stop)}
                </button>
            </div>
        })
    }
}

/// Side A's label, while comparing.
#[component]
pub fn SideALabel(lab: Lab) -> impl IntoView {
    let i18n = use_i18n();
    move || {
        lab.compare.with(Option::is_some).then(|| {
            view! { <h2 class="side-label side-a">{t!(i18n, panels.compare.side_a)}</h2> }
        })
    }
}

/// Side B's stage (its own topology, whose card buttons command B), under A's.
#[component]
pub fn VariantStage(lab: Lab) -> impl IntoView {
    let i18n = use_i18n();
    move || {
        let b = lab.compare.with(|c| c.as_ref().map(|c| c.b))?;
        let change = lab.variant_text().unwrap_or_default();
        Some(view! {
            <div class="stage-side stage-b" data-testid="stage-b">
                <h2 class="side-label side-b">
                    {move || t_string!(i18n, panels.compare.side_b, change = change.clone()).to_string()}
                </h2>
                <TopologyView lab=b />
            </div>
        })
    }
}

/// Both sides' counters, one row each, the differing ones marked.
#[component]
pub fn CompareCounters(lab: Lab) -> impl IntoView {
    let i18n = use_i18n();
    let rows = Memo::new(move |_| lab.compare_rows());
    move || {
        lab.compare.with(Option::is_some).then(|| {
            let body = move || {
                let lang = lab.lang.get();
                rows.get()
                    .into_iter()
                    .map(|r| {
                        let differs = r.differs();
                        view! {
                            <tr class:differs=differs data-counter=r.name.clone()
                                data-differs=differs.to_string()>
                                <th scope="row">{r.label.clone()}</th>
                                <td data-side="a">{count(r.a, lang)}</td>
                                <td data-side="b">{count(r.b, lang)}</td>
                                <td data-side="delta">{r.delta_text()}</td>
                            </tr>
                        }
                    })
                    .collect_view()
            };
            view! {
                <section class="panel compare-counters">
                    <h2>{t!(i18n, panels.compare.counters_title)}</h2>
                    <table data-testid="compare-counters">
                        <thead>
                            <tr>
                                <th scope="col">{t!(i18n, panels.compare.counter)}</th>
                                <th scope="col">"A"</th>
                                <th scope="col">"B"</th>
                                <th scope="col">{t!(i18n, panels.compare.delta)}</th>
                            </tr>
                        </thead>
                        <tbody>{body}</tbody>
                    </table>
                    {move || rows.with(Vec::is_empty).then(|| view! { <p>{t!(i18n, panels.compare.nothing_yet)}</p> })}
                </section>
            }
        })
    }
}
