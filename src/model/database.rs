//! The database lane: one card per consumer group's tables (each queue's consumers, then
//! each log group), with the effects table (a row per aggregate key, or per message when
//! messages carry no key), duplicate effects flagged in words and colour, the idempotency
//! marks or inbox rows, and the emails sent.

use std::collections::BTreeMap;

use brokerlab_core::database::{Aggregate, GroupTables};
use brokerlab_core::records::Records;
use brokerlab_core::{Idempotency, InboxKey, Message, Op, Simulation};

use brokerlab_core::lessons::Lang;

use crate::format::count;
use crate::i18n::{locale, td_string};

/// Rows a table card shows; the rest are summed up in one "+k more" line.
pub const ROWS_SHOWN: usize = 6;

/// What a row of an effects table is about.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RowId {
    /// An aggregate, by its key: "key 3".
    Key(u32),
    /// A message without a key: "#7".
    Msg(usize),
}

/// What a row of an effects table holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RowValue {
    /// The aggregate's state.
    Aggregate(Aggregate),
    /// A key without an aggregate (log groups keep none): "—".
    NoAggregate,
    /// The effect of a keyless message.
    Op(Op),
}

/// Whose tables a card shows.
#[derive(Clone, Debug, PartialEq)]
pub enum Owner {
    /// The consumers of the queue named.
    Queue(String),
    /// The log consumer group named.
    Group(String),
}

impl Owner {
    /// The card's title: "orders consumers", "group enricher".
    pub fn name(&self, lang: Lang) -> String {
        let l = locale(lang);
        match self {
            Owner::Queue(queue) => td_string!(l, stage.db.queue_owner, queue).to_string(),
            Owner::Group(name) => td_string!(l, stage.topology.group, name).to_string(),
        }
    }
}

/// One row of an effects table.
#[derive(Clone, Debug, PartialEq)]
pub struct EffectRow {
    pub row: RowId,
    /// The aggregate's value, or the effect of a keyless message.
    pub value: RowValue,
    /// Effects applied to this row.
    pub effects: u64,
    /// Effects applied more than once for the same message (each extra application).
    pub duplicates: u64,
}

/// One consumer group's tables as its card shows them.
#[derive(Clone, Debug, PartialEq)]
pub struct DatabaseCard {
    /// Whose tables: a queue's consumers or a log group.
    pub owner: Owner,
    /// Rows with a duplicate first, then in key (or message) order; at most [`ROWS_SHOWN`].
    pub rows: Vec<EffectRow>,
    /// Rows not shown.
    pub more: usize,
    pub effects: u64,
    pub duplicates: u64,
    pub idempotency: Idempotency,
    /// Its inbox is keyed by the entity (the account, the order), not the message.
    pub by_entity: bool,
    /// Its handler trusts the broker: it never checks the source's authority.
    pub trusts_the_broker: bool,
    /// Effects applied for a source with no authority to ask for them.
    pub unauthorized: u64,
    /// Check-then-insert marks and inbox rows.
    pub marks: usize,
    pub inbox: usize,
    pub emails: u64,
    /// Emails sent more than once for the same message (each extra one).
    pub duplicate_emails: u64,
}

/// Every consumer group's tables: queues with consumers first, then log groups.
pub fn database_cards(sim: &Simulation) -> Vec<DatabaseCard> {
    let scenario = sim.scenario();
    // Without keys no message needs looking up beyond the rows shown (a long run has
    // hundreds of thousands, and this runs every frame).
    let keyed = scenario
        .producers
        .iter()
        .any(|p| p.payload.keys > 0 || p.script.iter().any(|m| m.key.is_some()));
    let queues = sim.queue_ids().filter_map(|q| {
        let view = sim.queue(q)?;
        let first = view.consumers.first().and_then(|&c| sim.consumer(c))?;
        let tables = sim.tables(q)?;
        let by_entity = first.inbox_key == InboxKey::Entity;
        let mut card = card(
            Owner::Queue(view.name),
            (first.idempotency, by_entity),
            tables,
            sim.messages(),
            keyed,
        );
        card.trusts_the_broker = first.trusts_the_broker;
        Some(card)
    });
    let groups = sim.group_ids().filter_map(|g| {
        let spec = scenario.groups.get(g.index())?;
        let tables = sim.group_tables(g)?;
        let by_entity = spec.inbox_key == InboxKey::Entity;
        let mut card = card(
            Owner::Group(spec.name.clone()),
            (spec.idempotency, by_entity),
            tables,
            sim.messages(),
            keyed,
        );
        card.trusts_the_broker = spec.trusts_the_broker;
        Some(card)
    });
    queues.chain(groups).collect()
}

impl EffectRow {
    /// The row's name: "key 3", or "#7" for a keyless message.
    pub fn label(&self, lang: Lang) -> String {
        match self.row {
            RowId::Key(k) => td_string!(locale(lang), stage.db.key, k).to_string(),
            RowId::Msg(msg) => format!("#{msg}"),
        }
    }

    /// The row's value in words.
    pub fn value_text(&self, lang: Lang) -> String {
        match &self.value {
            RowValue::Aggregate(a) => aggregate_value(a, lang),
            RowValue::NoAggregate => "—".to_string(),
            RowValue::Op(op) => op_text(*op, lang),
        }
    }
}

/// An aggregate's value in words: only what its effects changed.
pub fn aggregate_value(a: &Aggregate, lang: Lang) -> String {
    let l = locale(lang);
    let mut parts = Vec::new();
    if a.count > 0 {
        parts.push(td_string!(l, stage.db.count, n = count(a.count, lang)).to_string());
    }
    // A key handled only by deposits and withdrawals (neither counts nor sets a status)
    // shows its balance at zero too: an account emptied is what the row is about.
    let money_only = a.count == 0 && !a.status_done && a.version > 0;
    if a.balance != 0 || money_only {
        parts.push(td_string!(l, stage.db.balance, n = a.balance).to_string());
    }
    if a.status_done {
        parts.push(td_string!(l, stage.db.status_done).to_string());
    }
    if a.version > 0 {
        parts.push(format!("v{}", a.version));
    }
    if parts.is_empty() {
        td_string!(l, stage.db.unchanged).to_string()
    } else {
        parts.join(" · ")
    }
}

fn op_text(op: Op, lang: Lang) -> String {
    let l = locale(lang);
    match op {
        Op::Increment => td_string!(l, stage.db.op_increment).to_string(),
        Op::SetStatus => td_string!(l, stage.db.op_status).to_string(),
        Op::Deposit(n) => td_string!(l, stage.db.op_deposit, n).to_string(),
        Op::Withdraw(n) => td_string!(l, stage.db.op_withdraw, n).to_string(),
    }
}

/// What one pass over a group's applied messages gathers: effects per key, the first
/// keyless rows (with a duplicate, and without), and the totals.
#[derive(Default)]
struct Tally {
    /// Effects and duplicates per aggregate key.
    by_key: BTreeMap<u32, (u64, u64)>,
    keyless_dup: Vec<EffectRow>,
    keyless_plain: Vec<EffectRow>,
    /// Keyless messages applied (shown or not).
    keyless: usize,
}

impl Tally {
    /// Linear in the messages the group applied, with no list of them: only the keyless
    /// rows that may be shown are looked up and kept in order (this runs on every frame
    /// while playing, over thousands of held messages).
    fn of(tables: &GroupTables, messages: &Records<Message>, keyed: bool) -> Self {
        let mut t = Tally::default();
        let (mut dup, mut plain) = (FirstRows::default(), FirstRows::default());
        // Rows of the messages the run still holds (finished ones are released; the
        // totals below cover them).
        for (msg, n) in tables.applied.iter_unordered() {
            let msg = msg.index();
            if n == 0 {
                continue;
            }
            let (n, extra) = (u64::from(n), u64::from(n - 1));
            // A record lookup is a search once the message is old: only when keys matter.
            // Peeked: a scan of every row opens no long-lived record.
            let key = if keyed {
                messages.peek(msg).and_then(|m| m.key)
            } else {
                None
            };
            match key {
                Some(k) => {
                    let e = t.by_key.entry(k).or_default();
                    e.0 += n;
                    e.1 += extra;
                }
                None => {
                    t.keyless += 1;
                    let rows = if extra > 0 { &mut dup } else { &mut plain };
                    rows.offer(msg, n, extra, messages);
                }
            }
        }
        t.keyless_dup = dup.into_rows().collect();
        t.keyless_plain = plain.into_rows().collect();
        t
    }

    /// The rows shown (duplicates first, keyed before keyless) and how many rows there are.
    fn rows(mut self, tables: &GroupTables) -> (Vec<EffectRow>, usize) {
        // Keys whose every effect was refused or that only hold a version still have a row.
        for &k in tables.aggregates.keys() {
            self.by_key.entry(k).or_default();
        }
        let total = self.by_key.len() + self.keyless;
        let keyed = self.by_key.iter().map(|(&k, &(n, extra))| EffectRow {
            row: RowId::Key(k),
            // Log groups keep no aggregates: only the effects count.
            value: tables
                .aggregates
                .get(&k)
                .map_or(RowValue::NoAggregate, |a| RowValue::Aggregate(*a)),
            effects: n,
            duplicates: extra,
        });
        let (dup, plain): (Vec<_>, Vec<_>) = keyed.partition(|r| r.duplicates > 0);
        let rows = dup
            .into_iter()
            .chain(self.keyless_dup)
            .chain(plain)
            .chain(self.keyless_plain)
            .take(ROWS_SHOWN)
            .collect();
        (rows, total)
    }
}

/// The first [`ROWS_SHOWN`] keyless rows in message id order, gathered one applied message
/// at a time in any order: it keeps only the lowest ids seen so far whose record is still
/// held, and looks a record up only for an id lower than those (a lookup is a search once
/// the message is old, and this runs on every frame over thousands of held messages).
#[derive(Default)]
struct FirstRows {
    /// Each row with its message id, in id order, at most [`ROWS_SHOWN`].
    rows: Vec<(usize, EffectRow)>,
}

impl FirstRows {
    fn offer(&mut self, msg: usize, effects: u64, duplicates: u64, messages: &Records<Message>) {
        let full = self.rows.len() == ROWS_SHOWN;
        if full && self.rows.last().is_some_and(|&(last, _)| last <= msg) {
            return;
        }
        let Some(m) = messages.peek(msg) else {
            return;
        };
        let row = EffectRow {
            row: RowId::Msg(msg),
            value: RowValue::Op(m.op()),
            effects,
            duplicates,
        };
        if full {
            self.rows.pop();
        }
        let at = self.rows.partition_point(|&(id, _)| id < msg);
        self.rows.insert(at, (msg, row));
    }

    fn into_rows(self) -> impl Iterator<Item = EffectRow> {
        self.rows.into_iter().map(|(_, row)| row)
    }
}

/// Builds one card, in one pass over the group's applied messages ([`Tally`]).
fn card(
    owner: Owner,
    (idempotency, by_entity): (Idempotency, bool),
    tables: &GroupTables,
    messages: &Records<Message>,
    keyed: bool,
) -> DatabaseCard {
    let tally = Tally::of(tables, messages, keyed);
    let (effects, duplicates) = (tables.applied.total(), tables.applied.extra());
    let (rows, total) = tally.rows(tables);
    let emails = tables.emails.total();
    let duplicate_emails = tables.emails.extra();
    DatabaseCard {
        owner,
        more: total - rows.len(),
        rows,
        effects,
        duplicates,
        idempotency,
        by_entity,
        trusts_the_broker: false,
        unauthorized: tables.unauthorized,
        marks: tables.processed.len(),
        inbox: tables.inbox.len() + tables.inbox_by_entity.len(),
        emails,
        duplicate_emails,
    }
}

/// The card's one-line summary.
pub fn database_summary(c: &DatabaseCard, lang: Lang) -> String {
    let l = locale(lang);
    let mut text = td_string!(l, stage.db.effects, n = count(c.effects, lang)).to_string();
    if c.duplicates > 0 {
        let n = count(c.duplicates, lang);
        text.push_str(&td_string!(l, stage.db.duplicates, n).to_string());
    } else {
        text.push_str(td_string!(l, stage.db.no_duplicate));
    }
    match c.idempotency {
        Idempotency::Inbox if c.by_entity => {
            let n = count(c.inbox as u64, lang);
            text.push_str(&td_string!(l, stage.db.inbox_rows_by_entity, n).to_string());
        }
        Idempotency::Inbox => {
            let n = count(c.inbox as u64, lang);
            text.push_str(&td_string!(l, stage.db.inbox_rows, n).to_string());
        }
        Idempotency::CheckThenInsert => {
            let n = count(c.marks as u64, lang);
            text.push_str(&td_string!(l, stage.db.marks, n).to_string());
        }
        Idempotency::None => {}
    }
    if c.unauthorized > 0 {
        let n = count(c.unauthorized, lang);
        text.push_str(&td_string!(l, stage.db.unauthorized, n).to_string());
    } else if c.trusts_the_broker {
        text.push_str(td_string!(l, stage.db.source_unchecked));
    }
    if c.emails > 0 {
        let n = count(c.emails, lang);
        text.push_str(&td_string!(l, stage.db.emails, n).to_string());
        if c.duplicate_emails > 0 {
            let n = count(c.duplicate_emails, lang);
            text.push_str(&td_string!(l, stage.db.duplicate_emails, n).to_string());
        }
    }
    text
}

/// What a row says about its effects: duplicates in words, with a warning sign.
pub fn effects_text(r: &EffectRow, lang: Lang) -> String {
    let l = locale(lang);
    let n = count(r.effects, lang);
    if r.duplicates > 0 {
        let d = count(r.duplicates, lang);
        td_string!(l, stage.db.applied_dup, n, d).to_string()
    } else if r.effects == 1 {
        td_string!(l, stage.db.applied_one).to_string()
    } else {
        td_string!(l, stage.db.applied, n).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::examples;

    fn run(name: &str) -> Simulation {
        let mut sim = Simulation::new(examples::load(name).expect("built in")).expect("valid");
        sim.run();
        sim
    }

    #[test]
    fn crash_after_commit_flags_the_duplicate_effect() {
        let sim = run("crash-after-commit");
        let cards = database_cards(&sim);
        assert_eq!(cards.len(), 1);
        let c = &cards[0];
        assert_eq!(c.owner.name(Lang::En), "orders consumers");
        assert_eq!((c.effects, c.duplicates), (2, 1));
        assert_eq!(c.rows.len(), 1);
        assert_eq!(c.rows[0].label(Lang::En), "#0");
        assert_eq!(
            effects_text(&c.rows[0], Lang::En),
            "⚠ 2 applied · 1 duplicate"
        );
        assert!(
            database_summary(c, Lang::En).contains("⚠ duplicates 1"),
            "{c:?}"
        );
    }

    #[test]
    fn an_inbox_stops_the_duplicate_and_counts_its_rows() {
        let sim = run("outbox-relay-crash");
        let c = &database_cards(&sim)[0];
        assert_eq!((c.effects, c.duplicates), (1, 0));
        assert_eq!(c.inbox, 1);
        assert_eq!(
            database_summary(c, Lang::En),
            "effects 1 · no duplicate · inbox rows 1"
        );
    }

    /// Keyed by the account, the inbox holds a row per account, not per message, and
    /// its card says so; the balances show the withdrawals it took for duplicates.
    #[test]
    fn an_inbox_keyed_by_the_entity_says_so_and_counts_a_row_per_key() {
        let sim = run("inbox-key-scope");
        let cards = database_cards(&sim);
        let summary = |i: usize| database_summary(&cards[i], Lang::En);
        assert_eq!(summary(0), "effects 4 · no duplicate · inbox rows 4");
        assert_eq!(
            summary(1),
            "effects 2 · no duplicate · inbox rows 2, keyed by the entity"
        );
        assert!(database_summary(&cards[1], Lang::Es).ends_with("con la entidad como clave"));
        let key_42 = |i: usize| {
            let row = cards[i].rows.iter().find(|r| r.label(Lang::En) == "key 42");
            row.map(|r| r.value_text(Lang::En)).expect("key 42")
        };
        assert_eq!(
            (key_42(0).as_str(), key_42(1).as_str()),
            ("balance 50 · v3", "balance 100 · v1"),
            "the withdrawals, taken for duplicates, changed neither balance nor version"
        );
    }

    /// The card of a handler that trusts the broker says its source's authority is not
    /// checked, and counts the effects nobody entitled asked for once there are some.
    #[test]
    fn a_trusting_handler_s_card_counts_its_unauthorised_effects() {
        let mut sim =
            Simulation::new(examples::load("untrusted-source").expect("built in")).expect("valid");
        sim.run_until(3_000_000);
        let summary =
            |sim: &Simulation, i: usize, lang| database_summary(&database_cards(sim)[i], lang);
        assert_eq!(
            summary(&sim, 1, Lang::En),
            "effects 2 · no duplicate · inbox rows 2 · source's authority not checked"
        );
        sim.run();
        assert_eq!(
            summary(&sim, 0, Lang::En),
            "effects 3 · no duplicate · inbox rows 3",
            "the checking handler's card"
        );
        assert_eq!(
            summary(&sim, 1, Lang::En),
            "effects 4 · no duplicate · inbox rows 5 · ⚠ unauthorised effects 2 (source's authority not checked)",
            "the refused withdrawal took its row too: its refusal is what it committed"
        );
        assert!(summary(&sim, 1, Lang::Es).contains("efectos no autorizados 2"));
        let key_42 = |i: usize| {
            let cards = database_cards(&sim);
            let row = cards[i].rows.iter().find(|r| r.label(Lang::En) == "key 42");
            row.map(|r| r.value_text(Lang::En)).expect("key 42")
        };
        assert_eq!(key_42(0), "balance 70 · v2");
        assert_eq!(key_42(1), "balance 0 · v2");
    }

    #[test]
    fn keyed_rows_show_the_aggregate_and_the_rest_is_counted() {
        for name in examples::message_by_message() {
            let sim = run(name);
            for c in database_cards(&sim) {
                assert!(c.rows.len() <= ROWS_SHOWN, "{name}");
                let flagged = c.rows.iter().filter(|r| r.duplicates > 0).count();
                // Flagged rows come first.
                assert!(c.rows[..flagged].iter().all(|r| r.duplicates > 0), "{name}");
                assert!(c.duplicates <= sim.counters().duplicate_effects, "{name}");
            }
        }
        let sim = run("account-42");
        let cards = database_cards(&sim);
        assert!(
            cards
                .iter()
                .flat_map(|c| &c.rows)
                .any(|r| r.label(Lang::En).starts_with("key ")
                    && r.value_text(Lang::En) != "unchanged"),
            "{cards:?}"
        );
    }

    /// The burst at 60 s: thousands of applied messages held, far more than the rows shown.
    fn mid_burst() -> Simulation {
        let mut sim = Simulation::new(examples::load("burst").expect("built in")).expect("valid");
        sim.run_until(brokerlab_core::secs_to_us(60.0));
        sim
    }

    #[test]
    fn keyless_rows_are_the_lowest_held_message_ids_in_order() {
        let sim = mid_burst();
        let tables = sim
            .tables(sim.queue_ids().next().expect("a queue"))
            .expect("tables");
        assert!(tables.applied.iter().count() > 10 * ROWS_SHOWN);
        // The plain way: every held count in id order, the first with a record.
        let expected: Vec<(usize, u64)> = tables
            .applied
            .iter()
            .filter(|&(m, n)| n > 0 && sim.messages().get(m.index()).is_some())
            .map(|(m, n)| (m.index(), u64::from(n)))
            .take(ROWS_SHOWN)
            .collect();
        let card = &database_cards(&sim)[0];
        let shown: Vec<(usize, u64)> = card
            .rows
            .iter()
            .map(|r| match r.row {
                RowId::Msg(m) => (m, r.effects),
                RowId::Key(k) => panic!("the burst has no keys: {k}"),
            })
            .collect();
        assert_eq!(card.duplicates, 0, "no duplicate in the burst");
        assert_eq!(shown, expected);
        assert_eq!(
            card.more,
            tables.applied.iter().filter(|&(_, n)| n > 0).count() - ROWS_SHOWN
        );
    }

    #[test]
    fn the_first_rows_do_not_depend_on_the_order_the_messages_come_in() {
        let sim = mid_burst();
        let tables = sim
            .tables(sim.queue_ids().next().expect("a queue"))
            .expect("tables");
        let applied: Vec<(usize, u64)> = tables
            .applied
            .iter()
            .filter(|&(_, n)| n > 0)
            .map(|(m, n)| (m.index(), u64::from(n)))
            .collect();
        // Every id from one below the first to past the last: the ones never applied or
        // released have no record and are skipped.
        let (lo, hi) = (
            applied[0].0.saturating_sub(1),
            applied[applied.len() - 1].0 + 2,
        );
        let gather = |ids: &mut dyn Iterator<Item = usize>| {
            let mut first = FirstRows::default();
            for id in ids {
                first.offer(id, 1, 0, sim.messages());
            }
            first.into_rows().map(|r| r.row).collect::<Vec<_>>()
        };
        let rising = gather(&mut (lo..hi));
        let falling = gather(&mut (lo..hi).rev());
        let expected: Vec<RowId> = (lo..hi)
            .filter(|&m| sim.messages().get(m).is_some())
            .take(ROWS_SHOWN)
            .map(RowId::Msg)
            .collect();
        assert_eq!(expected.len(), ROWS_SHOWN);
        assert_eq!(rising, expected);
        assert_eq!(falling, expected);
    }

    #[test]
    fn a_log_group_gets_its_own_tables() {
        let sim = run("transactional-pipeline");
        let cards = database_cards(&sim);
        assert_eq!(
            cards
                .iter()
                .filter(|c| c.owner.name(Lang::En).starts_with("group "))
                .count(),
            sim.group_count() as usize
        );
        // The email is outside the transaction: the order read again gets a second one.
        let enricher = &cards[0];
        assert_eq!(enricher.owner.name(Lang::En), "group enricher");
        assert!(
            database_summary(enricher, Lang::En).ends_with(" · emails sent 6 (⚠ 1 twice or more)"),
            "{enricher:?}"
        );
        let keyed = database_cards(&run("log-consumer-groups"));
        let ledger = &keyed[0];
        assert!(ledger.effects > 0 && !ledger.rows.is_empty(), "{ledger:?}");
        assert!(
            ledger
                .rows
                .iter()
                .all(|r| r.label(Lang::En).starts_with("key ")
                    && r.value_text(Lang::En).starts_with("balance ")),
            "log groups keep balances and versions, like queue consumers: {ledger:?}"
        );
    }

    #[test]
    fn aggregate_values_read_naturally() {
        let a = Aggregate {
            count: 3,
            status_done: true,
            balance: -5,
            version: 2,
        };
        assert_eq!(
            aggregate_value(&a, Lang::En),
            "count 3 · balance -5 · status done · v2"
        );
        assert_eq!(
            aggregate_value(&Aggregate::default(), Lang::En),
            "unchanged"
        );
        assert_eq!(
            aggregate_value(&a, Lang::Es),
            "contador 3 · saldo -5 · estado: hecho · v2"
        );
        // An account its withdrawals emptied reads "balance 0", not just its version.
        let emptied = Aggregate {
            version: 2,
            ..Aggregate::default()
        };
        assert_eq!(aggregate_value(&emptied, Lang::En), "balance 0 · v2");
        let counted = Aggregate {
            count: 1,
            version: 1,
            ..Aggregate::default()
        };
        assert_eq!(aggregate_value(&counted, Lang::En), "count 1 · v1");
    }

    #[test]
    fn the_tables_speak_spanish() {
        let sim = run("crash-after-commit");
        let c = &database_cards(&sim)[0];
        assert_eq!(c.owner.name(Lang::Es), "consumidores de orders");
        assert_eq!(effects_text(&c.rows[0], Lang::Es), "⚠ 2 veces · 1 de más");
        let once = EffectRow {
            effects: 1,
            duplicates: 0,
            ..c.rows[0].clone()
        };
        assert_eq!(effects_text(&once, Lang::Es), "1 vez");
        assert_eq!(effects_text(&once, Lang::En), "1 applied");
        let thrice = EffectRow {
            effects: 3,
            duplicates: 0,
            ..c.rows[0].clone()
        };
        assert_eq!(effects_text(&thrice, Lang::Es), "3 veces");
        assert!(database_summary(c, Lang::Es).starts_with("efectos 2 · ⚠ duplicados 1"));
    }
}
