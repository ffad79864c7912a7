//! Logs and consumer groups: each group's partitions drawn as lanes of offsets (retained
//! range, committed offset, owner, lag), with per-member crash controls, "Add member" and
//! "Replay from start", and the log counters.

use brokerlab_core::{Fault, MemberCrashPoint, Simulation};
use leptos::prelude::*;

use crate::lab::Lab;
use crate::player::RESTART_AFTER_S;
use crate::readout::count;

/// One partition as a group sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct PartitionLane {
    pub start: u64,
    pub end: u64,
    pub committed: u64,
    pub lag: u64,
    /// The owning member's name, if any.
    pub owner: Option<String>,
}

/// A consumer group as its card shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupCard {
    pub name: String,
    pub members: Vec<String>,
    pub members_up: u32,
    pub partitions: Vec<PartitionLane>,
}

/// The log counters and every group, for scenarios with logs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LogsSnapshot {
    pub logs: Vec<String>,
    pub groups: Vec<GroupCard>,
    pub appended: u64,
    pub records_processed: u64,
    pub records_skipped: u64,
    pub rebalances: u64,
}

impl LogsSnapshot {
    pub fn of(sim: &Simulation) -> Self {
        let c = sim.counters();
        let groups = (0..sim.group_count())
            .map(|g| {
                let (members_up, members) = sim.group_members(g);
                GroupCard {
                    name: sim.group_name(g),
                    members: (0..members).map(|m| sim.member_name(g, m)).collect(),
                    members_up,
                    partitions: sim
                        .group_partitions(g)
                        .into_iter()
                        .map(|p| PartitionLane {
                            start: p.start,
                            end: p.end,
                            committed: p.committed,
                            lag: p.lag,
                            owner: p.owner.map(|m| sim.member_name(g, m)),
                        })
                        .collect(),
                }
            })
            .collect();
        Self {
            logs: (0..sim.log_count()).map(|l| sim.log_name(l)).collect(),
            groups,
            appended: c.appended,
            records_processed: c.records_processed,
            records_skipped: c.records_skipped,
            rebalances: c.rebalances,
        }
    }
}

/// What a partition lane says.
pub fn partition_text(index: usize, p: &PartitionLane) -> String {
    let owner = p
        .owner
        .as_ref()
        .map_or("no owner".to_string(), |o| format!("owned by {o}"));
    format!(
        "P{index} · offsets {}..{} · committed {} · {owner} · lag {}",
        p.start, p.end, p.committed, p.lag
    )
}

/// Where the committed offset sits along the lane, in percent.
fn committed_pct(p: &PartitionLane) -> f64 {
    let span = p.end.saturating_sub(p.start);
    if span == 0 {
        return 100.0;
    }
    (p.committed.saturating_sub(p.start) as f64 / span as f64 * 100.0).clamp(0.0, 100.0)
}

/// The logs panel; nothing for scenarios without logs.
#[component]
pub fn LogsView(lab: Lab) -> impl IntoView {
    let logs = Memo::new(move |_| lab.topology.with(|t| t.logs.clone()));
    let groups = move || {
        logs.with(|l| l.groups.clone())
            .into_iter()
            .enumerate()
            .map(|(g, card)| group_view(lab, g as u32, card))
            .collect_view()
    };
    view! {
        <section class="panel logs" aria-labelledby="logs-title" data-testid="logs"
            hidden=move || logs.with(|l| l.logs.is_empty())>
            <h2 id="logs-title">"Logs and consumer groups"</h2>
            <p class="log-counters">
                "Appended " <strong data-testid="log-appended">{move || count(logs.with(|l| l.appended))}</strong>
                " · processed " <strong data-testid="log-processed">{move || count(logs.with(|l| l.records_processed))}</strong>
                " · skipped " <strong data-testid="log-skipped">{move || count(logs.with(|l| l.records_skipped))}</strong>
                " · rebalances " <strong data-testid="log-rebalances">{move || count(logs.with(|l| l.rebalances))}</strong>
            </p>
            {groups}
        </section>
    }
}

fn group_view(lab: Lab, g: u32, card: GroupCard) -> impl IntoView {
    let lanes = card
        .partitions
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let style = format!("width: {:.1}%", committed_pct(p));
            view! {
                <li data-testid=format!("group-{g}-partition-{i}")>
                    <span class="bar" aria-hidden="true"><span class="committed" style=style></span></span>
                    <span>{partition_text(i, p)}</span>
                </li>
            }
        })
        .collect_view();
    let members = card
        .members
        .iter()
        .enumerate()
        .map(|(m, name)| {
            let m = m as u32;
            view! {
                <button type="button" class="small danger" data-testid=format!("group-{g}-member-{m}-crash")
                    on:click=move |_| lab.command(Fault::CrashMember {
                        group: g,
                        member: m,
                        point: MemberCrashPoint::Now,
                        restart_after_s: Some(RESTART_AFTER_S),
                    })>
                    {format!("Crash {name}")}
                </button>
            }
        })
        .collect_view();
    view! {
        <div class="group" data-testid=format!("group-{g}")>
            <h3>
                {format!("Group {} ", card.name)}
                <span data-testid=format!("group-{g}-members")>
                    {format!("{} / {} members up", card.members_up, card.members.len())}
                </span>
            </h3>
            <ul class="partitions">{lanes}</ul>
            <div class="group-actions">
                {members}
                <button type="button" class="small" data-testid=format!("group-{g}-add-member")
                    on:click=move |_| lab.command(Fault::AddMember { group: g })>"Add member"</button>
                <button type="button" class="small" data-testid=format!("group-{g}-replay")
                    on:click=move |_| lab.command(Fault::SeekToEarliest { group: g })>"Replay from start"</button>
            </div>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::examples;

    #[test]
    fn a_log_scenario_shows_its_groups_partitions_and_counters() {
        for name in ["log-consumer-groups", "log-commit-modes"] {
            let mut sim = Simulation::new(examples::load(name).expect("built in")).expect("valid");
            for _ in 0..400 {
                sim.step();
            }
            let s = LogsSnapshot::of(&sim);
            assert!(!s.logs.is_empty(), "{name}");
            assert!(!s.groups.is_empty(), "{name}");
            assert!(s.appended > 0, "{name}");
            for g in &s.groups {
                assert!(!g.partitions.is_empty(), "{name}");
                for p in &g.partitions {
                    assert!(
                        p.start <= p.committed && p.committed <= p.end,
                        "{name} {p:?}"
                    );
                }
            }
        }
        let burst = Simulation::new(examples::load("burst").expect("built in")).expect("valid");
        assert!(LogsSnapshot::of(&burst).logs.is_empty());
    }

    #[test]
    fn a_partition_lane_says_its_offsets_owner_and_lag() {
        let p = PartitionLane {
            start: 0,
            end: 10,
            committed: 4,
            lag: 6,
            owner: None,
        };
        assert_eq!(
            partition_text(1, &p),
            "P1 · offsets 0..10 · committed 4 · no owner · lag 6"
        );
        assert_eq!(committed_pct(&p), 40.0);
    }
}
