//! The logs panel: each partitioned log with its consumer groups, partitions and members.

use brokerlab_core::{Command, GroupId, MemberCrashPoint};
use leptos::prelude::*;

use crate::format::count;
use crate::i18n::{t, t_string, use_i18n};
use crate::model::glossary;
use crate::model::groups::*;
use crate::model::player::RESTART_AFTER_S;
use crate::state::Lab;
use crate::ui::term::Term;

/// The logs panel; nothing for scenarios without logs.
#[component]
pub fn LogsView(lab: Lab) -> impl IntoView {
    let i18n = use_i18n();
    let logs = Memo::new(move |_| lab.topology.with(|t| t.logs.clone()));
    let groups = move || {
        logs.with(|l| l.groups.clone())
            .into_iter()
            .enumerate()
            .map(|(g, card)| group_view(lab, GroupId::from_index(g), card))
            .collect_view()
    };
    // Growing a log: keys hash over more partitions from now on, so a key's next records
    // may land elsewhere than its earlier ones (order per key is only kept per partition).
    let log_sizes = move || {
        logs.with(|l| l.logs.clone().into_iter().zip(l.partition_counts.clone()))
            .enumerate()
            .map(|(i, (name, n))| {
                let grow = name.clone();
                view! {
                    <li data-testid=format!("log-{i}-size")>
                        <span>{move || match n {
                            1 => format!("{} ", t_string!(i18n, panels.logs.partitions_one, name = name.clone())),
                            n => format!("{} ", t_string!(i18n, panels.logs.partitions, name = name.clone(), n)),
                        }}</span>
                        <button type="button" class="small" data-testid=format!("log-{i}-add-partition")
                            title=move || t_string!(i18n, panels.logs.add_partition_title)
                            on:click=move |_| lab.command(Command::SetPartitions { log: grow.clone(), partitions: n + 1 })>
                            {t!(i18n, panels.logs.add_partition)}
                        </button>
                    </li>
                }
            })
            .collect_view()
    };
    view! {
        <section class="panel logs" aria-labelledby="logs-title" data-testid="logs"
            hidden=move || logs.with(|l| l.logs.is_empty())>
            <h2 id="logs-title">{t!(i18n, panels.logs.title)}</h2>
            <p class="log-counters">
                {t!(i18n, panels.logs.appended)} " " <strong data-testid="log-appended">{move || count(logs.with(|l| l.appended), lab.lang.get())}</strong>
                " · " {t!(i18n, panels.logs.processed)} " " <strong data-testid="log-processed">{move || count(logs.with(|l| l.records_processed), lab.lang.get())}</strong>
                " · " {t!(i18n, panels.logs.skipped)} " " <strong data-testid="log-skipped">{move || count(logs.with(|l| l.records_skipped), lab.lang.get())}</strong>
                " · " {t!(i18n, panels.logs.rebalances)} " " <strong data-testid="log-rebalances">{move || count(logs.with(|l| l.rebalances), lab.lang.get())}</strong>
            </p>
            <p class="hint" data-testid="logs-terms">
                {t!(i18n, panels.logs.terms_lane)} " " <Term term=glossary::Term::Offset>{t!(i18n, panels.logs.offsets)}</Term>
                " " {t!(i18n, panels.logs.terms_rest)} " " <Term term=glossary::Term::Lag />
                "."
            </p>
            <ul class="log-sizes">{log_sizes}</ul>
            {groups}
        </section>
    }
}

fn group_view(lab: Lab, g: GroupId, card: GroupCard) -> impl IntoView {
    let i18n = use_i18n();
    let (group_name, up, total) = (card.name.clone(), card.members_up, card.members.len());
    let dead_lettered = count(card.dead_lettered, lab.lang.get());
    let rebalancing = card.rebalancing;
    let lang = lab.lang.get();
    let banner = rebalance_banner(&card, lang);
    let lanes = card
        .partitions
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let style = format!("width: {:.1}%", committed_pct(p));
            view! {
                <li data-testid=format!("group-{g}-partition-{i}") class:blocked=p.retrying.is_some()>
                    <span class="bar" aria-hidden="true"><span class="committed" style=style></span></span>
                    <span>{partition_text(i, p, lang)}</span>
                </li>
            }
        })
        .collect_view();
    let member_rows = card
        .members
        .iter()
        .enumerate()
        .map(|(m, member)| {
            view! {
                <li class=format!("member {}", member_class(member))
                    data-testid=format!("group-{g}-member-{m}-state")>
                    <strong>{member.name.clone()}</strong>{format!(": {}", member_text(member, lang))}
                </li>
            }
        })
        .collect_view();
    let members = card
        .members
        .iter()
        .enumerate()
        .map(|(m, member)| {
            let name = member.name.clone();
            let m = m as u32;
            view! {
                <button type="button" class="small danger" data-testid=format!("group-{g}-member-{m}-crash")
                    on:click=move |_| lab.command(Command::CrashMember {
                        group: g,
                        member: m,
                        point: MemberCrashPoint::Now,
                        restart_after_s: Some(RESTART_AFTER_S),
                    })>
                    {move || t_string!(i18n, panels.logs.crash, name = name.clone()).to_string()}
                </button>
            }
        })
        .collect_view();
    view! {
        <div class="group" class:rebalancing=rebalancing data-testid=format!("group-{g}")>
            <h3>
                {move || format!("{} ", t_string!(i18n, panels.logs.group, name = group_name.clone()))}
                <span data-testid=format!("group-{g}-members")>
                    {move || t_string!(i18n, panels.logs.members_up, up, total).to_string()}
                </span>
                <span class="dead-lettered" data-testid=format!("group-{g}-dead-lettered")>
                    " · " {move || t_string!(i18n, panels.logs.dead_lettered, n = dead_lettered.clone()).to_string()}
                </span>
            </h3>
            <Show when=move || rebalancing>
                <p class="rebalancing" role="status" data-testid=format!("group-{g}-rebalancing")>
                    {banner}
                </p>
            </Show>
            <ul class="members">{member_rows}</ul>
            <ul class="partitions">{lanes}</ul>
            <div class="group-actions">
                {members}
                <button type="button" class="small" data-testid=format!("group-{g}-add-member")
                    on:click=move |_| lab.command(Command::AddMember { group: g })>{t!(i18n, panels.logs.add_member)}</button>
                <button type="button" class="small" data-testid=format!("group-{g}-replay")
                    on:click=move |_| lab.command(Command::SeekToEarliest { group: g })>{t!(i18n, panels.logs.replay)}</button>
            </div>
        </div>
    }
}
