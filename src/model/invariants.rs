//! Live invariants: properties of the run checked after every step, the step and message
//! where each first broke, and the panel that shows them.

use std::collections::BTreeMap;

use brokerlab_core::lessons::Lang;
use brokerlab_core::{us_to_secs, ConsumerId, Fact, GroupId, Micros, MsgId, QueueId, Simulation};

use crate::format::{count, seconds};
use crate::i18n::{locale, td_string};

/// The properties the panel shows, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Property {
    NoMessageLost,
    EffectOnce,
    /// Effects on a keyed aggregate are applied in version order.
    KeyOrderKept,
    /// Every effect applied was asked for by a source with the authority to ask.
    OnlyAuthorizedEffects,
}

impl Property {
    pub const ALL: [Property; 4] = [
        Property::NoMessageLost,
        Property::EffectOnce,
        Property::KeyOrderKept,
        Property::OnlyAuthorizedEffects,
    ];

    /// Stable key for test ids.
    pub fn key(self) -> &'static str {
        match self {
            Property::NoMessageLost => "no-loss",
            Property::EffectOnce => "effect-once",
            Property::KeyOrderKept => "key-order",
            Property::OnlyAuthorizedEffects => "authorized",
        }
    }

    pub fn title(self, lang: Lang) -> String {
        let l = locale(lang);
        match self {
            Property::NoMessageLost => td_string!(l, panels.invariants.no_loss),
            Property::EffectOnce => td_string!(l, panels.invariants.effect_once),
            Property::KeyOrderKept => td_string!(l, panels.invariants.key_order),
            Property::OnlyAuthorizedEffects => td_string!(l, panels.invariants.authorized),
        }
        .to_string()
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Where a property first broke.
#[derive(Clone, Debug, PartialEq)]
pub struct Breach {
    pub step: u64,
    pub time_s: f64,
    /// The message the breaking fact is about, if any.
    pub msg: Option<MsgId>,
}

/// A keyed effect applied after a newer version of its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfOrder {
    pub key: u32,
    pub version: u32,
    /// The newest version of the key already applied.
    pub newer: u32,
}

/// First breaches of one run, kept as the run steps.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Watch {
    first: [Option<Breach>; Property::ALL.len()],
    /// Per (table, key): the newest version whose handling reached the aggregate (an
    /// effect committed, refused by a business rule, or reconciled from the source).
    newest: BTreeMap<(Table, u32), u32>,
    /// Keyed handlings seen, and those that came after a newer version of their key.
    keyed: u64,
    out_of_order: u64,
    first_out_of_order: Option<OutOfOrder>,
    /// Messages lost before the broker stored them, as of the last step seen: a loss of
    /// that kind has no fact of its own (a failed publish, a producer's crash).
    unstored: u64,
}

impl Watch {
    /// Looks at one step's facts (`sim` is the run just after that step); true if a
    /// property broke for the first time.
    pub fn observe(&mut self, sim: &Simulation, step: u64, at_us: Micros, facts: &[Fact]) -> bool {
        let mut new = false;
        for fact in facts {
            let broke = match *fact {
                Fact::MessageLost { .. } => Some(Property::NoMessageLost),
                Fact::RecordsSkipped { .. } => Some(Property::NoMessageLost),
                Fact::EventNeverPublished { .. } => Some(Property::NoMessageLost),
                Fact::TakenForDuplicate { .. } | Fact::RecordTakenForDuplicate { .. } => {
                    Some(Property::NoMessageLost)
                }
                Fact::EffectCommitted { applied, .. } | Fact::RecordProcessed { applied, .. }
                    if applied > 1 =>
                {
                    Some(Property::EffectOnce)
                }
                Fact::UnauthorizedEffect { .. } | Fact::RecordUnauthorizedEffect { .. } => {
                    Some(Property::OnlyAuthorizedEffects)
                }
                _ => None,
            };
            if self.order_broken(sim, fact) {
                new |= self.note(Property::KeyOrderKept, step, at_us, fact);
            }
            if let Some(property) = broke {
                new |= self.note(property, step, at_us, fact);
            }
        }
        let unstored = sim.counters().lost_before_stored;
        if unstored > self.unstored {
            self.unstored = unstored;
            // The failed publish, the producer's crash or the buffer's timeout that lost it.
            let cause = facts.iter().find(|f| {
                matches!(
                    f,
                    Fact::PublishFailed { .. }
                        | Fact::ProducerCrashed { .. }
                        | Fact::BufferDropped { .. }
                )
            });
            if let Some(fact) = cause.or(facts.first()) {
                new |= self.note(Property::NoMessageLost, step, at_us, fact);
            }
        }
        new
    }

    /// Records where `property` first broke; true if this is the first time.
    fn note(&mut self, property: Property, step: u64, at_us: Micros, fact: &Fact) -> bool {
        let slot = &mut self.first[property.index()];
        if slot.is_some() {
            return false;
        }
        *slot = Some(Breach {
            step,
            time_s: us_to_secs(at_us),
            msg: fact.msg(),
        });
        true
    }

    /// Whether `fact` reaches a keyed aggregate with a version older than one already
    /// applied there. Skipped stale versions and gap waits never reach it, so a consumer
    /// with an ordering policy keeps the property; one without applies whatever finishes.
    fn order_broken(&mut self, sim: &Simulation, fact: &Fact) -> bool {
        let (msg, table, versions) = match *fact {
            Fact::EffectCommitted { msg, consumer, .. } => (msg, queue_of(sim, consumer), None),
            Fact::EffectRefused { msg, consumer, .. } if refusal_moves_version(sim, consumer) => {
                (msg, queue_of(sim, consumer), None)
            }
            Fact::GapReconciled {
                msg,
                consumer,
                from,
                to,
                ..
            } => (msg, queue_of(sim, consumer), Some((from, to))),
            Fact::RecordProcessed {
                msg,
                group,
                applied,
                ..
            } if applied > 0 => (msg, Some(Table::Group(group)), None),
            Fact::RecordEffectRefused { msg, group, .. } => (msg, Some(Table::Group(group)), None),
            _ => return false,
        };
        let Some(m) = sim.message(msg) else {
            return false;
        };
        let Some(key) = m.key else {
            return false;
        };
        let (oldest, newest) = versions.unwrap_or((m.version, m.version));
        let Some(table) = table else {
            return false;
        };
        self.keyed += 1;
        let applied = self.newest.entry((table, key)).or_insert(0);
        let newer = *applied;
        *applied = newer.max(newest);
        // The same version again is a duplicate (the effect-once property), not disorder.
        if oldest >= newer {
            return false;
        }
        self.out_of_order += 1;
        self.first_out_of_order.get_or_insert(OutOfOrder {
            key,
            version: oldest,
            newer,
        });
        true
    }

    pub fn first(&self, property: Property) -> Option<&Breach> {
        self.first[property.index()].as_ref()
    }

    /// The first keyed effect applied after a newer version of its key, if any.
    pub fn first_out_of_order(&self) -> Option<OutOfOrder> {
        self.first_out_of_order
    }
}

/// Whether a refused operation counts as a handling of its version. Under ignore_stale
/// it does not: the refusal changed nothing, version included, so an older version may
/// still apply after it without breaking the order of what was applied.
fn refusal_moves_version(sim: &Simulation, consumer: ConsumerId) -> bool {
    sim.consumer(consumer)
        .is_some_and(|c| c.ordering != brokerlab_core::Ordering::IgnoreStale)
}

/// The tables a consumer's effects go to: its queue's.
fn queue_of(sim: &Simulation, consumer: ConsumerId) -> Option<Table> {
    sim.consumer(consumer).map(|c| Table::Queue(c.queue))
}

/// Whose database tables an effect reaches: the consumers of a queue share one set, and
/// each consumer group of a log has its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Table {
    Queue(QueueId),
    Group(GroupId),
}

/// What the panel says about one property now, before the words (which depend on the
/// page's language).
#[derive(Clone, Debug, PartialEq)]
pub enum Detail {
    Lost {
        lost: u64,
        /// Messages gone before any copy was stored (the core's `lost_before_stored`).
        unstored: u64,
        skipped: u64,
        /// Events committed and never published (a dual write's crash).
        never: u64,
        /// Messages an inbox keyed by the entity took for duplicates.
        taken: u64,
    },
    Duplicates {
        effects: u64,
    },
    OutOfOrder {
        count: u64,
        keyed: u64,
        first: OutOfOrder,
    },
    NoKeyedEffect,
    InOrder {
        keyed: u64,
    },
    /// Effects applied for a source with no authority to ask for them.
    Unauthorized {
        effects: u64,
    },
}

impl Detail {
    fn text(&self, lang: Lang) -> String {
        let l = locale(lang);
        match *self {
            Detail::Lost {
                lost,
                unstored,
                skipped,
                never,
                taken,
            } => {
                // The total first, as the Lost tile counts it: the parts after, and the
                // events never published or messages taken for duplicates only where
                // the run can lose them so.
                let total = lost + unstored + skipped + never + taken;
                let detail = if never == 0 {
                    td_string!(l, panels.invariants.lost, total, lost, unstored, skipped)
                        .to_string()
                } else {
                    let text = td_string!(
                        l,
                        panels.invariants.lost_never,
                        total,
                        lost,
                        unstored,
                        skipped,
                        never
                    );
                    text.to_string()
                };
                if taken == 0 {
                    detail
                } else {
                    td_string!(l, panels.invariants.lost_taken, detail, taken).to_string()
                }
            }
            Detail::Duplicates { effects: 1 } => {
                td_string!(l, panels.invariants.duplicates_one).to_string()
            }
            Detail::Duplicates { effects } => {
                td_string!(l, panels.invariants.duplicates, effects).to_string()
            }
            Detail::OutOfOrder {
                count,
                keyed,
                first,
            } => td_string!(
                l,
                panels.invariants.out_of_order,
                count,
                keyed,
                key = first.key,
                version = first.version,
                newer = first.newer
            )
            .to_string(),
            Detail::NoKeyedEffect => td_string!(l, panels.invariants.no_keyed_effect).to_string(),
            Detail::InOrder { keyed } => {
                td_string!(l, panels.invariants.in_order, keyed).to_string()
            }
            Detail::Unauthorized { effects: 0 } => {
                td_string!(l, panels.invariants.unauthorized_none).to_string()
            }
            Detail::Unauthorized { effects: 1 } => {
                td_string!(l, panels.invariants.unauthorized_one).to_string()
            }
            Detail::Unauthorized { effects } => {
                td_string!(l, panels.invariants.unauthorized, effects).to_string()
            }
        }
    }
}

/// One property as the panel shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Status {
    pub property: Property,
    pub holds: bool,
    pub facts: Detail,
    /// Where it first broke, if it did.
    pub breach: Option<Breach>,
    pub msg: Option<MsgId>,
}

impl Status {
    /// The property's figures in words, and where it first broke.
    pub fn detail(&self, lang: Lang) -> String {
        let detail = self.facts.text(lang);
        match &self.breach {
            Some(b) => td_string!(
                locale(lang),
                panels.invariants.first_broke,
                detail,
                step = count(b.step, lang),
                time = seconds(b.time_s, lang)
            )
            .to_string(),
            None => detail,
        }
    }
}

/// The properties evaluated on the run's current state, with where each first broke.
pub fn statuses(sim: &Simulation, watch: &Watch) -> Vec<Status> {
    let c = sim.counters();
    Property::ALL
        .iter()
        .map(|&property| {
            let breach = watch.first(property).cloned();
            let (holds, facts) = match property {
                Property::NoMessageLost => (
                    c.lost == 0
                        && c.lost_before_stored == 0
                        && c.records_skipped == 0
                        && c.never_published == 0
                        && c.taken_for_duplicates == 0,
                    Detail::Lost {
                        lost: c.lost,
                        unstored: c.lost_before_stored,
                        skipped: c.records_skipped,
                        never: c.never_published,
                        taken: c.taken_for_duplicates,
                    },
                ),
                Property::EffectOnce => (
                    c.duplicate_effects == 0,
                    Detail::Duplicates {
                        effects: c.duplicate_effects,
                    },
                ),
                Property::KeyOrderKept => match watch.first_out_of_order() {
                    Some(first) => (
                        false,
                        Detail::OutOfOrder {
                            count: watch.out_of_order,
                            keyed: watch.keyed,
                            first,
                        },
                    ),
                    None if watch.keyed == 0 => (true, Detail::NoKeyedEffect),
                    None => (true, Detail::InOrder { keyed: watch.keyed }),
                },
                Property::OnlyAuthorizedEffects => (
                    c.unauthorized_effects == 0,
                    Detail::Unauthorized {
                        effects: c.unauthorized_effects,
                    },
                ),
            };
            Status {
                property,
                holds,
                facts,
                msg: breach.as_ref().and_then(|b| b.msg),
                breach,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::examples;

    #[test]
    fn crash_after_commit_breaks_effect_once_at_the_duplicate_on_message_0() {
        let mut sim =
            Simulation::new(examples::load("crash-after-commit").expect("built in")).expect("ok");
        let mut watch = Watch::default();
        let mut broke_at = None;
        while let Some(step) = sim.step() {
            let (index, at, facts) = (step.index, step.time_us, step.facts.to_vec());
            if watch.observe(&sim, index, at, &facts) && broke_at.is_none() {
                broke_at = Some(index);
            }
        }
        assert_eq!(broke_at, Some(6));
        let s = statuses(&sim, &watch);
        let once = &s[Property::EffectOnce.index()];
        assert!(!once.holds);
        assert_eq!(once.msg, Some(MsgId::new(0)));
        assert!(
            once.detail(Lang::En).contains("first broke at step 6"),
            "{}",
            once.detail(Lang::En)
        );
        assert!(
            once.detail(Lang::Es)
                .contains("se rompió por primera vez en el paso 6"),
            "{}",
            once.detail(Lang::Es)
        );
        assert_eq!(
            once.property.title(Lang::Es),
            "Cada efecto aplicado una vez"
        );
        assert!(s[Property::NoMessageLost.index()].holds);
    }

    #[test]
    fn a_duplicate_effect_on_a_log_says_where_it_first_broke() {
        // The panel said "250 duplicate effects" with no step or message for a log's group.
        let (sim, watch, _) = watched(examples::load("log-consumer-groups").expect("built in"));
        let s = statuses(&sim, &watch);
        let once = &s[Property::EffectOnce.index()];
        assert!(!once.holds);
        assert!(once.breach.is_some(), "{once:?}");
        assert!(once.msg.is_some(), "{once:?}");
        assert!(
            once.detail(Lang::En).contains("first broke at step"),
            "{}",
            once.detail(Lang::En)
        );
    }

    /// Runs a scenario to its end, watching; returns the run, the watch and the step of
    /// the first order breach.
    fn watched(scenario: brokerlab_core::Scenario) -> (Simulation, Watch, Option<u64>) {
        let mut sim = Simulation::new(scenario).expect("valid");
        let mut watch = Watch::default();
        let mut broke_at = None;
        while let Some(step) = sim.step() {
            let (index, at, facts) = (step.index, step.time_us, step.facts.to_vec());
            watch.observe(&sim, index, at, &facts);
            if broke_at.is_none() && watch.first(Property::KeyOrderKept).is_some() {
                broke_at = Some(index);
            }
        }
        (sim, watch, broke_at)
    }

    fn with_ordering(name: &str, ordering: Ordering) -> brokerlab_core::Scenario {
        let mut s = examples::load(name).expect("built in");
        for c in &mut s.consumers {
            c.ordering = ordering;
        }
        // A group supports ignore_stale only: a partition already delivers a key in order.
        for g in &mut s.groups {
            g.ordering = Ordering::IgnoreStale;
        }
        s
    }

    use brokerlab_core::Ordering;

    /// The reordering examples as written: (name, key, step of the breach, where it says
    /// it broke, the balance they end with, the balance in version order).
    const REORDERED: [(&str, u32, u64, &str, i64, i64); 2] = [
        (
            "account-42",
            42,
            4,
            "key 42 version 1 after version 2",
            100,
            50,
        ),
        (
            "ordering-account",
            7,
            8,
            "key 7 version 1 after version 4",
            120,
            10,
        ),
    ];

    #[test]
    fn reordered_accounts_break_key_order_at_the_late_deposit() {
        for (name, key, step, says, wrong, _) in REORDERED {
            let (sim, watch, broke_at) = watched(examples::load(name).expect("built in"));
            // A withdrawal with a later version was handled first; the deposit (message #0,
            // version 1) comes after it.
            assert_eq!(broke_at, Some(step), "{name}");
            let s = statuses(&sim, &watch);
            let order = &s[Property::KeyOrderKept.index()];
            assert!(!order.holds, "{name}");
            assert_eq!(order.msg, Some(MsgId::new(0)), "{name}");
            assert_eq!(
                sim.message(MsgId::new(0)).map(|m| (m.key, m.version)),
                Some((Some(key), 1))
            );
            let detail = order.detail(Lang::En);
            assert!(
                detail.contains(says) && detail.contains(&format!("first broke at step {step} ")),
                "{name}: {detail}"
            );
            // The balance ends wrong.
            assert_eq!(
                sim.tables(QueueId::new(0))
                    .expect("queue")
                    .aggregate(key)
                    .balance,
                wrong,
                "{name}"
            );
            // The other properties hold: the order breach is what pauses these runs.
            assert!(s[Property::NoMessageLost.index()].holds, "{name}");
            assert!(s[Property::EffectOnce.index()].holds, "{name}");
        }
    }

    #[test]
    fn reordered_accounts_keep_key_order_under_every_ordering_policy() {
        for (name, key, _, _, _, right) in REORDERED {
            for ordering in [
                Ordering::IgnoreStale,
                Ordering::WaitForGap,
                Ordering::Reconcile,
            ] {
                let (sim, watch, broke_at) = watched(with_ordering(name, ordering));
                assert_eq!(broke_at, None, "{name} {ordering:?}");
                let order = &statuses(&sim, &watch)[Property::KeyOrderKept.index()];
                let detail = order.detail(Lang::En);
                assert!(order.holds, "{name} {ordering:?}: {detail}");
                assert!(detail.contains("in version order"), "{detail}");
                // The policy really met the reordering (it skipped, waited or reconciled).
                // Under ignore_stale a refused early withdrawal keeps the version, so the
                // late deposit still applies: meeting it may be a refusal, not a skip.
                let met = match ordering {
                    Ordering::IgnoreStale => {
                        sim.counters().stale_ignored + sim.counters().effects_refused
                    }
                    Ordering::WaitForGap => sim.counters().gap_waits,
                    _ => sim.counters().gaps_reconciled,
                };
                assert!(met > 0, "{name}: {ordering:?} never met the reordering");
                // Waiting for the gap and reconciling end with the right balance.
                if ordering != Ordering::IgnoreStale {
                    let balance = sim
                        .tables(QueueId::new(0))
                        .expect("queue")
                        .aggregate(key)
                        .balance;
                    assert_eq!(balance, right, "{name} {ordering:?}");
                }
            }
        }
    }

    /// An independent check: every pair of handlings of one key on one queue, in fact
    /// order, must not go down in version.
    fn reordered_pairwise(name: &str, ordering: Option<Ordering>) -> (bool, bool) {
        let scenario = match ordering {
            Some(o) => with_ordering(name, o),
            None => examples::load(name).expect("built in"),
        };
        let (sim, watch, _) = watched(scenario.clone());
        let mut replay = Simulation::new(scenario).expect("valid");
        let mut seen: Vec<(Table, u32, u32)> = Vec::new();
        while let Some(step) = replay.step() {
            for fact in step.facts.iter().copied() {
                let (msg, table) = match fact {
                    Fact::EffectCommitted { msg, consumer, .. } => (
                        msg,
                        Table::Queue(sim.consumer(consumer).expect("exists").queue),
                    ),
                    Fact::EffectRefused { msg, consumer, .. }
                        if super::refusal_moves_version(&sim, consumer) =>
                    {
                        (
                            msg,
                            Table::Queue(sim.consumer(consumer).expect("exists").queue),
                        )
                    }
                    Fact::RecordProcessed {
                        msg,
                        group,
                        applied: 1..,
                        ..
                    }
                    | Fact::RecordEffectRefused { msg, group, .. } => (msg, Table::Group(group)),
                    _ => continue,
                };
                let m = sim.message(msg).expect("exists");
                if let Some(key) = m.key {
                    seen.push((table, key, m.version));
                }
            }
        }
        let broken = seen.iter().enumerate().any(|(i, a)| {
            seen[i + 1..]
                .iter()
                .any(|b| (a.0, a.1) == (b.0, b.1) && b.2 < a.2)
        });
        let holds = statuses(&sim, &watch)[Property::KeyOrderKept.index()].holds;
        (broken, holds)
    }

    #[test]
    fn account_42_on_a_log_breaks_key_order_only_when_keyed_by_message_id() {
        let (sim, watch, _) = watched(examples::load("account-42-log").expect("built in"));
        assert!(statuses(&sim, &watch)[Property::KeyOrderKept.index()].holds);
        let mut s = examples::load("account-42-log").expect("built in");
        s.logs[0].partition_by = brokerlab_core::PartitionKey::MessageId;
        let (sim, watch, _) = watched(s);
        assert!(!statuses(&sim, &watch)[Property::KeyOrderKept.index()].holds);
        let o = watch.first_out_of_order().expect("broke");
        assert_eq!((o.key, o.version, o.newer), (42, 1, 2));
    }

    #[test]
    fn every_example_with_keys_keeps_key_order_iff_its_handlings_never_go_back_in_version() {
        let mut keyed = 0;
        for name in examples::message_by_message() {
            let mut sim = Simulation::new(examples::load(name).expect("built in")).expect("ok");
            sim.run();
            if !sim.messages().iter().any(|m| m.key.is_some()) || sim.messages().len() > 5_000 {
                continue;
            }
            keyed += 1;
            let (broken, holds) = reordered_pairwise(name, None);
            assert_eq!(holds, !broken, "{name} as written");
            for ordering in [
                Ordering::IgnoreStale,
                Ordering::WaitForGap,
                Ordering::Reconcile,
            ] {
                let (broken, holds) = reordered_pairwise(name, Some(ordering));
                assert!(!broken && holds, "{name} with {ordering:?}");
            }
        }
        assert!(keyed >= 1, "some example has keys");
    }

    #[test]
    fn one_duplicate_is_said_in_the_singular_and_more_in_the_plural() {
        let said = |effects, lang| Detail::Duplicates { effects }.text(lang);
        assert_eq!(said(1, Lang::En), "1 duplicate effect");
        assert_eq!(said(1, Lang::Es), "1 efecto duplicado");
        assert_eq!(said(2, Lang::En), "2 duplicate effects");
        assert_eq!(said(2, Lang::Es), "2 efectos duplicados");
    }

    /// A dual write's crash between the commit and the publish loses the event before
    /// any broker sees it: the invariant breaks and says so (the outbox lesson's "never
    /// published" read "Lost 0" beside a holding invariant; the tile: player.rs).
    #[test]
    fn an_event_committed_and_never_published_breaks_no_message_lost() {
        let mut sim =
            Simulation::new(examples::load("outbox-vs-dual-write").expect("built in")).expect("ok");
        let mut watch = Watch::default();
        while let Some(step) = sim.step() {
            let (index, at, facts) = (step.index, step.time_us, step.facts.to_vec());
            watch.observe(&sim, index, at, &facts);
        }
        let never = sim.counters().never_published;
        assert!(never > 0, "the dual write lost an event");
        let s = statuses(&sim, &watch);
        let lost = &s[Property::NoMessageLost.index()];
        assert!(!lost.holds);
        assert!(lost.msg.is_some(), "names the event's message");
        let detail = lost.detail(Lang::En);
        assert!(
            detail.starts_with(&format!(
                "lost: {never} (after the broker stored them: 0; before: 0; records skipped: 0; \
                 committed and never published: {never})"
            )),
            "{detail}"
        );
    }

    #[test]
    fn a_message_lost_before_the_broker_stored_it_breaks_no_message_lost() {
        // broker-crash with its transient queue made durable: no copy is lost, but the
        // fire-and-forget producer publishes into the void while the broker is down.
        let mut scenario = examples::load("broker-crash").expect("built in");
        scenario.queues[1].durable = true;
        scenario.producers[1].publish.persistent = true;
        let mut sim = Simulation::new(scenario).expect("ok");
        let mut watch = Watch::default();
        while let Some(step) = sim.step() {
            let (index, at, facts) = (step.index, step.time_us, step.facts.to_vec());
            watch.observe(&sim, index, at, &facts);
        }
        assert_eq!(sim.counters().lost, 0, "no copy lost");
        let s = statuses(&sim, &watch);
        let lost = &s[Property::NoMessageLost.index()];
        assert!(!lost.holds);
        assert!(lost.msg.is_some(), "names the first message lost");
        let n = sim.counters().lost_before_stored;
        assert!(n > 0);
        assert!(
            lost.detail(Lang::En).starts_with(&format!(
                "lost: {n} (after the broker stored them: 0; before: {n}; "
            )),
            "{}",
            lost.detail(Lang::En)
        );
        assert!(lost.detail(Lang::Es).starts_with(&format!(
            "perdidos: {n} (después de que el broker los guardara: 0; antes: {n}; "
        )));
    }

    #[test]
    fn a_log_record_never_processed_breaks_no_message_lost_naming_its_message() {
        // log-retention: records expire before the group reads them. The property names
        // the first skipped record's message, as it names a lost copy's.
        let (sim, watch, _) = watched(examples::load("log-retention").expect("built in"));
        assert_eq!(sim.counters().lost, 0, "no queue copy lost");
        assert!(sim.counters().records_skipped > 0);
        let s = statuses(&sim, &watch);
        let lost = &s[Property::NoMessageLost.index()];
        assert!(!lost.holds);
        let msg = lost.msg.expect("names the first record skipped");
        let tables = sim
            .group_tables(brokerlab_core::GroupId::new(0))
            .expect("a group");
        assert_eq!(tables.applied(msg), 0, "{msg:?} was never processed");
    }

    #[test]
    fn an_unauthorised_effect_breaks_only_authorised_effects_at_the_stolen_withdrawal() {
        // untrusted-source: 'unchecked' trusts the broker and applies both withdrawals
        // 'partner-api' had no authority to ask for (#2 and #3); 'checked' dead-letters
        // them. Nothing is lost and no effect is applied twice.
        let (sim, watch, _) = watched(examples::load("untrusted-source").expect("built in"));
        let s = statuses(&sim, &watch);
        let authorized = &s[Property::OnlyAuthorizedEffects.index()];
        assert!(!authorized.holds);
        assert_eq!(authorized.msg, Some(brokerlab_core::MsgId::new(2)));
        assert!(
            authorized.detail(Lang::En).starts_with(
                "2 effects applied for sources without the authority to ask for them, by handlers that trust the broker; first broke at step 9"
            ),
            "{}",
            authorized.detail(Lang::En)
        );
        assert!(authorized
            .detail(Lang::Es)
            .starts_with("2 efectos aplicados"));
        assert!(s[Property::NoMessageLost.index()].holds);
        assert!(s[Property::EffectOnce.index()].holds);
        // Any other example holds it, and says there is no such effect.
        let (sim, watch, _) = watched(examples::load("inbox-key-scope").expect("built in"));
        let s = statuses(&sim, &watch);
        let authorized = &s[Property::OnlyAuthorizedEffects.index()];
        assert!(authorized.holds);
        assert_eq!(
            authorized.detail(Lang::En),
            "no effect applied for a source without the authority to ask for it"
        );
    }

    #[test]
    fn a_message_taken_for_a_duplicate_breaks_no_message_lost() {
        // inbox-key-scope: keyed by the account, 'by-account's inbox takes both
        // withdrawals for duplicates of the deposit: acked, never done. No copy is lost,
        // and the property still breaks, at the first one, naming it.
        let (sim, watch, _) = watched(examples::load("inbox-key-scope").expect("built in"));
        let c = sim.counters();
        assert_eq!((c.lost, c.taken_for_duplicates), (0, 2));
        let s = statuses(&sim, &watch);
        let lost = &s[Property::NoMessageLost.index()];
        assert!(!lost.holds);
        assert_eq!(
            lost.msg,
            Some(brokerlab_core::MsgId::new(1)),
            "the first withdrawal"
        );
        assert!(lost.detail(Lang::En).starts_with(
            "lost: 2 (after the broker stored them: 0; before: 0; records skipped: 0); of these, 2 taken for duplicates by an inbox keyed by the entity"
        ), "{}", lost.detail(Lang::En));
        assert!(lost
            .detail(Lang::Es)
            .contains("de ellos, 2 tomados por duplicados"));
        // The true duplicate (the deposit's redelivery) is skipped: no effect twice.
        assert!(s[Property::EffectOnce.index()].holds);
    }
}
