//! Logs and consumer groups: each group's partitions drawn as lanes of offsets (retained
//! range, committed offset, owner, lag), each member's state and partitions, a banner while
//! the group rebalances, per-member crash controls, "Add member" and "Replay from start",
//! and the log counters.

use brokerlab_core::lessons::Lang;
use brokerlab_core::{us_to_secs, Rebalance, Simulation};

use crate::format::seconds;
use crate::i18n::{locale, td_string};

/// One partition as a group sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct PartitionLane {
    pub start: u64,
    pub end: u64,
    pub committed: u64,
    pub lag: u64,
    /// The owning member's name, if any.
    pub owner: Option<String>,
    /// The attempt of a record retried in place: the partition waits behind it.
    pub retrying: Option<u32>,
    /// Its owner gives it up once the record in hand is committed (cooperative).
    pub revoking: bool,
    /// Control records (transactions' markers) among its offsets.
    pub markers: u64,
    /// Where its member reads after a seek not yet committed.
    pub sought_at: Option<u64>,
}

/// Where a group member stands.
#[derive(Clone, Debug, PartialEq)]
pub enum MemberState {
    /// Up and owning partitions; `working` is the record it processes (partition, offset).
    Up { working: Option<(u32, u64)> },
    /// Down; `session_left_s`: how long it stays in the group, its partitions unread
    /// (the group's session timeout), if it has not left; `txn_open_s`: how long the
    /// transaction it left open holds read_committed readers (the transaction timeout).
    Crashed {
        restart_in_s: Option<f64>,
        session_left_s: Option<f64>,
        txn_open_s: Option<f64>,
    },
    /// Up, waiting for the group's rebalance to finish: every partition is paused
    /// (eager), or it owns none yet (cooperative).
    Rebalancing,
    /// Up but given no partition: the group has more members than partitions.
    Idle,
    /// Up, but it left the group for outlasting its poll interval: it finishes the record
    /// in hand (partition, offset), which it can no longer commit, then rejoins. A static
    /// member only stopped heartbeating: `session_left_s` is how long it keeps its
    /// partitions.
    OutOfGroup {
        working: (u32, u64),
        session_left_s: Option<f64>,
    },
}

/// A member of a group as its row shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct MemberCard {
    pub name: String,
    pub state: MemberState,
    /// Partitions it owns.
    pub partitions: Vec<u32>,
}

/// A consumer group as its card shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupCard {
    pub name: String,
    pub members: Vec<MemberCard>,
    pub members_up: u32,
    pub partitions: Vec<PartitionLane>,
    /// A rebalance is in progress: partitions are revoked and paused.
    pub rebalancing: bool,
    /// Eager rebalancing (stop the world) rather than cooperative.
    pub eager: bool,
    /// Records the group gave up on (dead-letter topic).
    pub dead_lettered: u64,
}

/// The log counters and every group, for scenarios with logs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LogsSnapshot {
    pub logs: Vec<String>,
    /// Each log's partition count now (a log may grow while running).
    pub partition_counts: Vec<u32>,
    pub groups: Vec<GroupCard>,
    pub appended: u64,
    pub records_processed: u64,
    pub records_skipped: u64,
    pub rebalances: u64,
}

impl LogsSnapshot {
    pub fn of(sim: &Simulation) -> Self {
        let c = sim.counters();
        let now = sim.now_us();
        let groups = sim
            .group_ids()
            .map(|g| {
                let (members_up, members) = sim.group_members(g);
                let rebalancing = sim.group_rebalancing(g);
                let eager = sim.group_rebalance(g) == Rebalance::Eager;
                GroupCard {
                    name: sim.group_name(g),
                    members: (0..members)
                        .filter_map(|m| sim.group_member(g, m))
                        .map(|v| MemberCard {
                            state: if !v.up {
                                MemberState::Crashed {
                                    restart_in_s: v
                                        .restart_at_us
                                        .map(|at| us_to_secs(at.saturating_sub(now))),
                                    session_left_s: v
                                        .session_ends_at_us
                                        .map(|at| us_to_secs(at.saturating_sub(now))),
                                    txn_open_s: v
                                        .txn_aborts_at_us
                                        .map(|at| us_to_secs(at.saturating_sub(now))),
                                }
                            } else if let Some(w) = v.working.filter(|_| v.out_of_group) {
                                MemberState::OutOfGroup {
                                    working: w,
                                    session_left_s: v
                                        .session_ends_at_us
                                        .map(|at| us_to_secs(at.saturating_sub(now))),
                                }
                            } else if rebalancing
                                && v.working.is_none()
                                && (eager || v.partitions.is_empty())
                            {
                                MemberState::Rebalancing
                            } else if v.partitions.is_empty() {
                                MemberState::Idle
                            } else {
                                MemberState::Up { working: v.working }
                            },
                            name: v.name,
                            partitions: v.partitions,
                        })
                        .collect(),
                    members_up,
                    rebalancing,
                    eager,
                    dead_lettered: sim.group_dead_lettered(g),
                    partitions: sim
                        .group_partitions(g)
                        .into_iter()
                        .map(|p| PartitionLane {
                            start: p.start,
                            end: p.end,
                            committed: p.committed,
                            lag: p.lag,
                            owner: p.owner.map(|m| sim.member_name(g, m)),
                            retrying: p.retrying,
                            revoking: p.revoking,
                            markers: p.markers,
                            sought_at: p.sought.then_some(p.position),
                        })
                        .collect(),
                }
            })
            .collect();
        Self {
            logs: (0..sim.log_count()).map(|l| sim.log_name(l)).collect(),
            partition_counts: (0..sim.log_count())
                .map(|l| sim.log_partition_count(l))
                .collect(),
            groups,
            appended: c.appended,
            records_processed: c.records_processed,
            records_skipped: c.records_skipped,
            rebalances: c.rebalances,
        }
    }
}

/// A crashed component's state (a member, a consumer, a relay): "crashed · restarts in 2.0 s", or "crashed · stays down".
pub fn crashed_text(restart_in_s: Option<f64>, lang: Lang) -> String {
    let l = locale(lang);
    match restart_in_s {
        Some(s) => td_string!(l, stage.card.restarts_in, s = seconds(s, lang)).to_string(),
        None => td_string!(l, stage.card.stays_down).to_string(),
    }
}

/// What a partition lane says.
pub fn partition_text(index: usize, p: &PartitionLane, lang: Lang) -> String {
    let l = locale(lang);
    let owner = match &p.owner {
        Some(owner) => td_string!(l, stage.partition.owned_by, owner).to_string(),
        None => td_string!(l, stage.partition.no_owner).to_string(),
    };
    let mut text = td_string!(
        l,
        stage.partition.text,
        i = index,
        start = p.start,
        end = p.end,
        committed = p.committed,
        owner,
        lag = p.lag,
    )
    .to_string();
    if p.markers > 0 {
        let n = p.markers;
        text.push_str(&td_string!(l, stage.partition.markers, n).to_string());
    }
    if let Some(offset) = p.sought_at {
        text.push_str(&td_string!(l, stage.partition.sought, offset).to_string());
    }
    if let Some(n) = p.retrying {
        text.push_str(&td_string!(l, stage.partition.blocked, n).to_string());
    }
    if p.revoking {
        text.push_str(td_string!(l, stage.partition.moving));
    }
    text
}

/// What a member's row says: its state and the partitions it owns.
pub fn member_text(m: &MemberCard, lang: Lang) -> String {
    let l = locale(lang);
    let state = match &m.state {
        MemberState::Up { working: None } => td_string!(l, stage.member.waiting).to_string(),
        MemberState::Up {
            working: Some((p, o)),
        } => td_string!(l, stage.member.processing, p, o).to_string(),
        MemberState::Crashed {
            restart_in_s,
            session_left_s,
            txn_open_s,
        } => {
            let mut state = crashed_text(*restart_in_s, lang);
            if let Some(left) = session_left_s {
                let s = seconds(*left, lang);
                state = td_string!(l, stage.member.in_session, state, s = s).to_string();
            }
            if let Some(open) = txn_open_s {
                let s = seconds(*open, lang);
                state = td_string!(l, stage.member.txn_open, state, s = s).to_string();
            }
            state
        }
        MemberState::Rebalancing => td_string!(l, stage.member.rebalancing).to_string(),
        MemberState::Idle => td_string!(l, stage.member.idle).to_string(),
        MemberState::OutOfGroup {
            working: (p, o),
            session_left_s: None,
        } => td_string!(l, stage.member.out_of_group, p, o).to_string(),
        MemberState::OutOfGroup {
            working: (p, o),
            session_left_s: Some(left),
        } => {
            let state = td_string!(l, stage.member.not_heartbeating, p, o).to_string();
            let s = seconds(*left, lang);
            td_string!(l, stage.member.in_session, state, s = s).to_string()
        }
    };
    if m.partitions.is_empty() {
        state
    } else {
        let owned: Vec<String> = m.partitions.iter().map(|p| format!("P{p}")).collect();
        let parts = owned.join(", ");
        td_string!(l, stage.member.owns, state, parts).to_string()
    }
}

/// A short word for the member's state, for the CSS class and the icon.
pub fn member_class(m: &MemberCard) -> &'static str {
    match m.state {
        MemberState::Up { .. } => "up",
        MemberState::Crashed { .. } => "down",
        MemberState::Rebalancing => "rebalancing",
        MemberState::Idle => "idle",
        MemberState::OutOfGroup { .. } => "left",
    }
}

/// Where the committed offset sits along the lane, in percent.
pub fn committed_pct(p: &PartitionLane) -> f64 {
    let span = p.end.saturating_sub(p.start);
    if span == 0 {
        return 100.0;
    }
    (p.committed.saturating_sub(p.start) as f64 / span as f64 * 100.0).clamp(0.0, 100.0)
}

/// What the banner of a rebalancing group says: eager rebalances stop the world,
/// cooperative ones only move what must move.
pub fn rebalance_banner(card: &GroupCard, lang: Lang) -> &'static str {
    let l = locale(lang);
    if card.eager {
        td_string!(l, stage.partition.banner_eager)
    } else {
        td_string!(l, stage.partition.banner_cooperative)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::{examples, Command, GroupId, MemberCrashPoint};

    #[test]
    fn a_log_grown_while_running_shows_its_new_partitions() {
        let mut sim = Simulation::new(examples::load("log-consumer-groups").expect("built in"))
            .expect("valid");
        for _ in 0..200 {
            sim.step();
        }
        assert_eq!(LogsSnapshot::of(&sim).partition_counts, vec![4]);
        sim.command(Command::SetPartitions {
            log: "account-events".into(),
            partitions: 5,
        })
        .expect("a log may grow");
        let s = LogsSnapshot::of(&sim);
        assert_eq!(s.partition_counts, vec![5]);
        assert!(s
            .groups
            .iter()
            .all(|g| g.partitions.len() == 5 && g.rebalancing));
    }

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
            retrying: None,
            revoking: false,
            markers: 0,
            sought_at: None,
        };
        assert_eq!(
            partition_text(1, &p, Lang::En),
            "P1 · offsets 0..10 · committed 4 · no owner · lag 6"
        );
        assert_eq!(
            partition_text(1, &p, Lang::Es),
            "P1 · offsets 0..10 · commit 4 · sin dueño · retraso 6"
        );
        assert_eq!(committed_pct(&p), 40.0);
        let sought = PartitionLane {
            sought_at: Some(2),
            ..p.clone()
        };
        assert_eq!(
            partition_text(1, &sought, Lang::En),
            "P1 · offsets 0..10 · committed 4 · no owner · lag 6 · sought: reads at 2, committed with its next commit"
        );
        assert_eq!(
            partition_text(1, &sought, Lang::Es),
            "P1 · offsets 0..10 · commit 4 · sin dueño · retraso 6 · tras un seek: lee en 2; el offset confirmado cambia con su próximo commit"
        );
        let p = PartitionLane { markers: 3, ..p };
        assert_eq!(
            partition_text(1, &p, Lang::En),
            "P1 · offsets 0..10 · committed 4 · no owner · lag 6 · transaction markers among them: 3"
        );
        assert_eq!(
            partition_text(1, &p, Lang::Es),
            "P1 · offsets 0..10 · commit 4 · sin dueño · retraso 6 · marcas de transacción entre ellos: 3"
        );
    }

    #[test]
    fn an_eager_rebalance_pauses_every_member() {
        let mut s = examples::load("log-consumer-groups").expect("built in");
        s.groups[0].rebalance = Rebalance::Eager;
        let mut sim = Simulation::new(s).expect("valid");
        sim.command(Command::AddMember {
            group: GroupId::new(0),
        })
        .expect("valid");
        let ledger = &LogsSnapshot::of(&sim).groups[0];
        assert!(ledger.eager && ledger.rebalancing);
        assert_eq!(ledger.members[1].state, MemberState::Rebalancing);
        assert_eq!(
            member_text(&ledger.members[1], Lang::En),
            "rebalancing · paused"
        );
        assert_eq!(
            member_text(&ledger.members[1], Lang::Es),
            "rebalanceando · en pausa"
        );
        assert!(rebalance_banner(ledger, Lang::Es).starts_with("❚❚ Rebalanceando: "));
        assert!(ledger.partitions.iter().all(|p| p.owner.is_none()));
    }

    /// Crashes member 0 of group 0 for good, at `point`, as a user's command (ledger-1 in
    /// `log-consumer-groups`, enricher-1 in `transactional-pipeline`).
    fn crash_first_member(sim: &mut Simulation, point: MemberCrashPoint) {
        sim.command(Command::CrashMember {
            group: GroupId::new(0),
            member: 0,
            point,
            restart_after_s: None,
        })
        .expect("valid");
    }

    #[test]
    fn a_crashed_member_in_its_session_shows_the_partitions_it_keeps_and_for_how_long() {
        let mut s = examples::load("log-consumer-groups").expect("built in");
        s.groups[0].session_timeout_s = Some(45.0);
        s.commands.clear();
        let mut sim = Simulation::new(s).expect("valid");
        crash_first_member(&mut sim, MemberCrashPoint::Now);
        let ledger = &LogsSnapshot::of(&sim).groups[0];
        assert!(!ledger.rebalancing, "the coordinator waits for the session");
        assert_eq!(
            ledger.members[0].state,
            MemberState::Crashed {
                restart_in_s: None,
                session_left_s: Some(45.0),
                txn_open_s: None
            }
        );
        assert_eq!(
            member_text(&ledger.members[0], Lang::En),
            "crashed · stays down · still in the group for 45.0 s · owns P0, P1"
        );
        assert_eq!(
            member_text(&ledger.members[0], Lang::Es),
            "caído · sigue caído · aún en el grupo durante 45,0 s más · tiene P0, P1"
        );
        let lane = partition_text(0, &ledger.partitions[0], Lang::En);
        assert!(lane.contains("owned by ledger-1"), "{lane}");
    }

    #[test]
    fn a_crashed_member_with_its_transaction_open_says_how_long_it_holds_readers() {
        let mut s = examples::load("transactional-pipeline").expect("built in");
        s.groups[0].transaction_timeout_s = Some(60.0);
        s.commands.clear();
        let mut sim = Simulation::new(s).expect("valid");
        crash_first_member(&mut sim, MemberCrashPoint::AfterProcessBeforeCommit);
        // enricher-1 writes #0 at 1.5 s and crashes before its commit.
        sim.run_until(4_000_000);
        let enricher = &LogsSnapshot::of(&sim).groups[0];
        assert_eq!(
            member_text(&enricher.members[0], Lang::En),
            "crashed · stays down · its transaction holds read_committed readers for up to 57.5 s"
        );
        assert_eq!(
            member_text(&enricher.members[0], Lang::Es),
            "caído · sigue caído · su transacción detiene a los lectores read_committed durante 57,5 s más como máximo"
        );
    }

    /// log-consumer-groups: analytics (one member, auto-commit every 2 s) replays from
    /// 40 s; until its next commit the lane keeps the last commit and says where the member
    /// reads, in both languages.
    #[test]
    fn a_sought_partition_keeps_its_committed_offset_until_the_next_commit() {
        let s = examples::load("log-consumer-groups").expect("built in");
        let mut sim = Simulation::new(s).expect("valid");
        sim.run_until(39_900_000);
        let before = LogsSnapshot::of(&sim).groups[1].partitions[0].committed;
        sim.run_until(40_100_000);
        let lane = &LogsSnapshot::of(&sim).groups[1].partitions[0];
        let reads = lane.sought_at.expect("sought, not committed yet");
        assert!(reads < before, "{lane:?}");
        let text = partition_text(0, lane, Lang::En);
        assert!(
            text.contains(&format!(" · committed {before} · owned by analytics-1 · "))
                && text.ends_with(&format!(
                    " · sought: reads at {reads}, committed with its next commit"
                )),
            "{text}"
        );
        let text = partition_text(0, lane, Lang::Es);
        assert!(
            text.ends_with(&format!(
                " · tras un seek: lee en {reads}; el offset confirmado cambia con su próximo commit"
            )),
            "{text}"
        );
        sim.run_until(42_000_000);
        let lane = &LogsSnapshot::of(&sim).groups[1].partitions[0];
        assert_eq!(lane.sought_at, None);
        assert!(lane.committed < before, "{lane:?}");
    }

    #[test]
    fn a_transactional_partition_says_how_many_of_its_offsets_are_markers() {
        let s = examples::load("transactional-pipeline").expect("built in");
        let mut sim = Simulation::new(s).expect("valid");
        sim.run_until(u64::MAX);
        // billing reads enriched: six records (one aborted), each followed by a marker.
        let billing = &LogsSnapshot::of(&sim).groups[1];
        assert_eq!(
            partition_text(0, &billing.partitions[0], Lang::En),
            "P0 · offsets 0..12 · committed 12 · owned by billing-1 · lag 0 · transaction markers among them: 6"
        );
        // enricher reads orders, which no transaction writes to.
        let enricher = &LogsSnapshot::of(&sim).groups[0];
        assert_eq!(enricher.partitions[0].markers, 0);
    }

    #[test]
    fn a_member_past_its_poll_interval_shows_it_left_the_group_with_its_record() {
        let s = examples::load("member-poll-interval").expect("built in");
        let mut sim = Simulation::new(s).expect("valid");
        // mailer-1 fetched offset 0 of P0 at 5 s; at 10 s it has not polled for 5 s.
        sim.run_until(10_000_000);
        let mailer = &LogsSnapshot::of(&sim).groups[1];
        let first = &mailer.members[0];
        assert_eq!(
            first.state,
            MemberState::OutOfGroup {
                working: (0, 0),
                session_left_s: None
            }
        );
        assert!(first.partitions.is_empty());
        assert_eq!(member_class(first), "left");
        assert_eq!(
            member_text(first, Lang::En),
            "out of the group (poll interval passed) · finishing P0 offset 0, which it can no longer commit"
        );
        assert_eq!(
            member_text(first, Lang::Es),
            "fuera del grupo (pasó su intervalo de poll) · termina P0 offset 0, del que ya no puede hacer commit"
        );
        // Done at 13 s, its commit fails and it rejoins.
        sim.run_until(13_000_000);
        let mailer = &LogsSnapshot::of(&sim).groups[1];
        assert_ne!(member_class(&mailer.members[0]), "left");
    }

    #[test]
    fn a_static_member_past_its_poll_interval_shows_it_keeps_its_partitions_for_its_session() {
        let mut s = examples::load("member-poll-interval").expect("built in");
        s.groups[1].session_timeout_s = Some(45.0);
        let mut sim = Simulation::new(s).expect("valid");
        // At 10 s mailer-1 stops heartbeating: it keeps P0 until 55 s.
        sim.run_until(10_000_000);
        let first = &LogsSnapshot::of(&sim).groups[1].members[0];
        assert_eq!(first.partitions, [0]);
        assert_eq!(
            member_text(first, Lang::En),
            "no heartbeats (poll interval passed) · finishing P0 offset 0, which it can no longer commit · still in the group for 45.0 s · owns P0"
        );
        assert_eq!(
            member_text(first, Lang::Es),
            "sin heartbeats (pasó su intervalo de poll) · termina P0 offset 0, del que ya no puede hacer commit · aún en el grupo durante 45,0 s más · tiene P0"
        );
        // Done at 13 s: it rejoins as itself, on P0 again, with no rebalance.
        sim.run_until(13_000_000);
        let mailer = &LogsSnapshot::of(&sim).groups[1];
        assert!(!mailer.rebalancing);
        assert_eq!(mailer.members[0].partitions, [0]);
        assert_eq!(
            mailer.members[0].state,
            MemberState::Up {
                working: Some((0, 0))
            }
        );
    }

    #[test]
    fn a_partition_shows_its_blocking_retry_and_the_group_its_dead_letters() {
        let mut s = examples::load("account-42-log").expect("built in");
        s.producers[0].script[1].poison = Some(brokerlab_core::Poison::MalformedPayload);
        s.groups[0].failures.outages = vec![brokerlab_core::Outage {
            from_s: 0.0,
            until_s: 2.5,
        }];
        let mut sim = Simulation::new(s).expect("valid");
        let mut blocked = None;
        while sim.step().is_some() {
            let snap = LogsSnapshot::of(&sim);
            if let Some((i, p)) = snap.groups[0]
                .partitions
                .iter()
                .enumerate()
                .find(|(_, p)| p.retrying.is_some())
            {
                blocked.get_or_insert(partition_text(i, p, Lang::En));
            }
        }
        let blocked = blocked.expect("a partition was blocked by a retry");
        assert!(
            blocked.contains("blocked: a record is retried in place (attempt 2)"),
            "{blocked}"
        );
        assert_eq!(
            LogsSnapshot::of(&sim).groups[0].dead_lettered,
            1,
            "the poison record"
        );
    }

    #[test]
    fn members_show_rebalancing_then_their_partitions_and_an_extra_member_idles() {
        let mut sim = Simulation::new(examples::load("log-consumer-groups").expect("built in"))
            .expect("valid");
        let start = LogsSnapshot::of(&sim);
        let ledger = &start.groups[0];
        assert!(!ledger.rebalancing);
        assert_eq!(ledger.members[0].partitions, [0, 1]);
        assert_eq!(ledger.members[1].partitions, [2, 3]);
        assert_eq!(
            member_text(&ledger.members[0], Lang::En),
            "up · waiting for records · owns P0, P1"
        );
        crash_first_member(&mut sim, MemberCrashPoint::Now);
        let during = LogsSnapshot::of(&sim);
        let ledger = &during.groups[0];
        assert!(ledger.rebalancing);
        assert_eq!(
            ledger.members[0].state,
            MemberState::Crashed {
                restart_in_s: None,
                session_left_s: None,
                txn_open_s: None
            }
        );
        // Cooperative: the survivor keeps its own partitions flowing; the crashed
        // member's wait for the rebalance.
        assert!(matches!(ledger.members[1].state, MemberState::Up { .. }));
        assert_eq!(ledger.members[1].partitions, [2, 3]);
        let owned: Vec<bool> = ledger
            .partitions
            .iter()
            .map(|p| p.owner.is_some())
            .collect();
        assert_eq!(owned, [false, false, true, true]);
        assert!(!during.groups[1].rebalancing, "the other group goes on");
        // Once the rebalance is over the survivor owns every partition.
        while LogsSnapshot::of(&sim).groups[0].rebalancing {
            sim.step().expect("the rebalance finishes");
        }
        let after = LogsSnapshot::of(&sim);
        assert_eq!(after.groups[0].members[1].partitions, [0, 1, 2, 3]);
        // Four partitions, then five members: whoever gets nothing idles.
        for _ in 0..4 {
            sim.command(Command::AddMember {
                group: GroupId::new(1),
            })
            .expect("valid");
        }
        while LogsSnapshot::of(&sim).groups[1].rebalancing {
            sim.step().expect("the rebalance finishes");
        }
        let analytics = &LogsSnapshot::of(&sim).groups[1];
        let idle = analytics
            .members
            .iter()
            .filter(|m| m.state == MemberState::Idle)
            .count();
        assert_eq!(idle, 1, "{analytics:?}");
        assert_eq!(member_class(&analytics.members[4]), "idle");
        assert_eq!(
            member_text(&analytics.members[4], Lang::En),
            "idle · no partition left for it"
        );
    }
}
