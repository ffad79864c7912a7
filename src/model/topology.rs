//! The topology view: every component of the scenario, laid out automatically in four lanes
//! (a CSS grid that wraps on narrow screens; every label is text): producers with their
//! outbox tables and relays → the broker (exchanges with their bindings, queues with their
//! dead-letter queues, logs) → consumers and log group members → the database (one card
//! per consumer group's tables). Each card carries its own controls and a stable
//! `data-node` id that overlays can anchor on.
//!
//! [`Topology`] is a plain snapshot of the run (tested natively); the components render it
//! and send commands through the [`Lab`].

use crate::model::dependencies::{dependency_cards, DependencyCard};
use brokerlab_core::step::DeadLetterReason;
use brokerlab_core::Flavour;
use brokerlab_core::{
    us_to_secs, AckMode, ConsumerId, CrashPoint, ExchangeKind, Fate, Handoff, MsgId, Poison,
    ProducerCrashPoint, Simulation,
};

use brokerlab_core::lessons::Lang;

use crate::format::{count, seconds};
use crate::i18n::{locale, td_string};
use crate::model::database::{database_cards, DatabaseCard};
use crate::model::groups::{crashed_text, LogsSnapshot, MemberState};

/// Outbox rows a producer card lists; the rest are counted.
pub const OUTBOX_ROWS_SHOWN: usize = 4;

/// Copies per second a redrive moves back.
pub const REDRIVE_RATE_PER_S: f64 = 10.0;

/// Seconds before an outbox relay crashed after a publish comes back.
pub const RELAY_RESTART_AFTER_S: f64 = 2.0;

/// How many times slower the "Slow" button makes a consumer.
pub const SLOW_FACTOR: f64 = 4.0;

/// A producer as its card shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct ProducerCard {
    pub name: String,
    pub up: bool,
    /// Outbox rows not yet published.
    pub outbox: usize,
    /// Whether it hands its messages off through an outbox (and a relay).
    pub uses_outbox: bool,
    /// Whether it waits for the broker's confirms (`publish.confirms`, or an outbox relay,
    /// which always does): only then has it a confirm to lose.
    pub waits_for_confirms: bool,
    /// The first unsent outbox rows: (message id, sent and awaiting the confirm).
    pub outbox_rows: Vec<(MsgId, bool)>,
    /// Its outbox relay, if it has one.
    pub relay: Option<RelayCard>,
    /// Records kept in its buffer while the broker is down (a log producer without
    /// confirms), to send when the broker is back.
    pub buffered: usize,
    /// Where its accepted requests stand: pending, running, completed, failed.
    pub jobs: brokerlab_core::JobCounts,
    /// Requests turned away while it was down: never accepted, so in no job status.
    pub requests_refused: u64,
}

impl ProducerCard {
    /// Its state line: up or crashed, and its outbox ("unsent" when it relays from one).
    pub fn state_text(&self, lang: Lang) -> String {
        let l = locale(lang);
        let up = up_word(self.up, lang);
        let n = count(self.outbox as u64, lang);
        let mut text = if self.uses_outbox {
            td_string!(l, stage.card.outbox_unsent, up, n).to_string()
        } else if self.outbox > 0 {
            td_string!(l, stage.card.outbox, up, n).to_string()
        } else {
            up.to_string()
        };
        if self.buffered > 0 {
            let n = count(self.buffered as u64, lang);
            text.push_str(&td_string!(l, stage.card.buffered, n).to_string());
        }
        text
    }

    /// One line per outbox row shown, then "+k more" for the rest.
    pub fn outbox_lines(&self, lang: Lang) -> Vec<String> {
        let l = locale(lang);
        let mut lines: Vec<String> = self
            .outbox_rows
            .iter()
            .map(|&(msg, sending)| {
                if sending {
                    td_string!(l, stage.card.row_sending, msg).to_string()
                } else {
                    td_string!(l, stage.card.row_unsent, msg).to_string()
                }
            })
            .collect();
        if self.outbox > self.outbox_rows.len() {
            lines.push(more_text(self.outbox - self.outbox_rows.len(), lang));
        }
        lines
    }
}

/// "up" or "crashed".
fn up_word(up: bool, lang: Lang) -> &'static str {
    let l = locale(lang);
    if up {
        td_string!(l, stage.card.up)
    } else {
        td_string!(l, stage.card.crashed)
    }
}

/// "+k more": the rows a card does not list.
pub fn more_text(n: usize, lang: Lang) -> String {
    td_string!(
        locale(lang),
        stage.card.more_rows,
        n = count(n as u64, lang)
    )
    .to_string()
}

/// An outbox relay. It runs in the producer's process: it crashes and restarts with it.
#[derive(Clone, Debug, PartialEq)]
pub struct RelayCard {
    pub up: bool,
    /// Rows published and awaiting the broker's confirm.
    pub sending: usize,
    /// Rows waiting out a retry backoff after a refused or unconfirmed publish.
    pub backing_off: usize,
    /// Rows whose publish attempts are used up: kept, unsent, for an operator.
    pub parked: usize,
    /// A crash is armed for right after its next confirmed publish.
    pub armed_after_publish: bool,
    pub restart_in_s: Option<f64>,
}

/// An exchange with its bindings, in the broker lane.
#[derive(Clone, Debug, PartialEq)]
pub struct ExchangeCard {
    pub name: String,
    pub kind: ExchangeKind,
    /// (binding key, queue name).
    pub bindings: Vec<(String, String)>,
    /// The producers allowed to publish to it; empty: any producer.
    pub publishers: Vec<String>,
}

/// A queue's dead-letter queue.
#[derive(Clone, Debug, PartialEq)]
pub struct DlqCard {
    pub count: u64,
    /// Why its oldest entry was dead-lettered, after how many attempts.
    pub oldest_reason: Option<(DeadLetterReason, u32)>,
}

/// A queue as its card shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueCard {
    pub name: String,
    pub waiting: u64,
    pub in_flight: u64,
    /// Of those in flight, the ones acked on delivery (automatic acknowledgement): the
    /// broker forgot them as it sent them, and only the consumer holds them now.
    pub acked_on_delivery: u64,
    pub retry_waiting: u64,
    pub dead_lettered: u64,
    pub max_length: Option<u64>,
    /// What counts against the bound: RabbitMQ counts waiting copies, the others every
    /// copy held (in flight and retrying too).
    pub occupancy: u64,
    pub redriving: bool,
    /// Whose rules it follows (generic, RabbitMQ, SQS, SQS FIFO).
    pub flavour: Flavour,
    /// Indices of its consumers.
    pub consumers: Vec<ConsumerId>,
    /// Its dead-letter queue, when it dead-letters.
    pub dlq: Option<DlqCard>,
    /// The producers allowed to publish to it; empty: any producer.
    pub publishers: Vec<String>,
}

/// A partitioned log, in the broker lane.
#[derive(Clone, Debug, PartialEq)]
pub struct LogCard {
    pub name: String,
    pub partitions: u32,
    /// The producers allowed to publish to it; empty: any producer.
    pub publishers: Vec<String>,
}

/// A consumer as its card shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct ConsumerCard {
    pub name: String,
    pub up: bool,
    pub busy: u32,
    pub buffered: u32,
    pub concurrency: u32,
    /// A crash armed for a precise point.
    pub armed: Option<CrashPoint>,
    /// Seconds until a crashed consumer restarts, if it will.
    pub restart_in_s: Option<f64>,
    /// That restart would come after the run's end time: it stays down to the end.
    pub restart_after_end: bool,
    /// How many times slower than normal it works (1 is normal).
    pub slow_factor: f64,
    /// Its next ack will be lost on the way to the broker.
    pub drop_next_ack: bool,
    /// Scaled in: finishing what it holds, then it stops.
    pub retiring: bool,
    /// Stopped after scaling in (it did not crash).
    pub stopped: bool,
    /// Seconds until the earliest lease on a delivery it holds runs out.
    pub lease_in_s: Option<f64>,
    /// Deliveries it still holds whose lease already ran out (the broker offers them again).
    pub leases_expired: u32,
}

/// The whole diagram at one instant.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Topology {
    pub broker_up: bool,
    pub producers: Vec<ProducerCard>,
    pub exchanges: Vec<ExchangeCard>,
    pub queues: Vec<QueueCard>,
    pub log_cards: Vec<LogCard>,
    pub consumers: Vec<ConsumerCard>,
    /// Logs and consumer groups (empty for scenarios without logs).
    pub logs: LogsSnapshot,
    /// Each consumer group's tables.
    pub database: Vec<DatabaseCard>,
    /// What the handlers call, with a capacity (empty for most scenarios).
    pub dependencies: Vec<DependencyCard>,
    /// What the tables depend on: they are rebuilt only when it changes.
    pub database_key: DatabaseKey,
}

/// The scenario and the counters that move whenever a table changes (an effect, a refusal,
/// a skipped duplicate, an email): equal keys mean equal tables.
pub type DatabaseKey = (String, u64, u64, u64, u64);

fn database_key(sim: &Simulation) -> DatabaseKey {
    let c = sim.counters();
    (
        sim.scenario().name.clone(),
        c.effects_applied,
        c.effects_refused,
        c.duplicates_skipped,
        c.emails_sent,
    )
}

/// Seconds from now until `at_us` (0 once it has passed).
fn secs_until(sim: &Simulation, at_us: u64) -> f64 {
    us_to_secs(at_us.saturating_sub(sim.now_us()))
}

/// Whether `at_us` falls after the run's last instant (its end time, or the ten-year
/// limit of a run without one): nothing then happens in the run.
fn after_end(sim: &Simulation, at_us: u64) -> bool {
    at_us > sim.horizon_us()
}

/// One card per producer, with its outbox relay when it hands off through one.
fn producer_cards(sim: &Simulation) -> Vec<ProducerCard> {
    let scenario = sim.scenario();
    sim.producer_ids()
        .filter_map(|p| sim.producer_view(p).map(|v| (p, v)))
        .map(|(p, v)| {
            let spec = scenario.producers.get(p.index());
            let uses_outbox = spec.is_some_and(|s| matches!(s.handoff, Handoff::Outbox { .. }));
            let waits_for_confirms = uses_outbox || spec.is_some_and(|s| s.publish.confirms);
            ProducerCard {
                relay: uses_outbox.then(|| RelayCard {
                    up: v.up,
                    sending: v.sending,
                    backing_off: v.backing_off,
                    parked: v.parked,
                    armed_after_publish: v.armed
                        == Some(ProducerCrashPoint::AfterPublishBeforeMark),
                    restart_in_s: v
                        .restart_at_us
                        .filter(|_| !v.up)
                        .map(|at| secs_until(sim, at)),
                }),
                outbox_rows: sim
                    .outbox_rows(p)
                    .take(OUTBOX_ROWS_SHOWN)
                    .map(|r| (r.msg, r.sending))
                    .collect(),
                name: v.name,
                up: v.up,
                outbox: v.outbox_len,
                uses_outbox,
                waits_for_confirms,
                buffered: v.buffered,
                jobs: v.jobs,
                requests_refused: v.requests_refused,
            }
        })
        .collect()
}

/// One card per exchange, with its bindings (key, queue).
fn exchange_cards(sim: &Simulation) -> Vec<ExchangeCard> {
    sim.scenario()
        .exchanges
        .iter()
        .map(|x| ExchangeCard {
            name: x.name.clone(),
            kind: x.kind,
            bindings: x
                .bindings
                .iter()
                .map(|b| (b.key.clone(), b.queue.clone()))
                .collect(),
            publishers: x.publishers.clone(),
        })
        .collect()
}

/// One card per queue, with its dead-letter queue when it has one.
fn queue_cards(sim: &Simulation) -> Vec<QueueCard> {
    let scenario = sim.scenario();
    sim.queue_ids()
        .filter_map(|q| sim.queue(q).map(|v| (q, v)))
        .map(|(q, v)| {
            let spec = scenario.queues.get(q.index());
            let dead_letters = spec.is_some_and(|s| s.dead_letter);
            QueueCard {
                publishers: spec.map(|s| s.publishers.clone()).unwrap_or_default(),
                dlq: dead_letters.then(|| DlqCard {
                    count: v.dead_lettered,
                    oldest_reason: sim.dead_letters(q).next().map(|d| (d.reason, d.attempts)),
                }),
                acked_on_delivery: acked_on_delivery(sim, q, &v.consumers),
                name: v.name,
                waiting: v.waiting,
                in_flight: v.in_flight,
                retry_waiting: v.retry_waiting,
                dead_lettered: v.dead_lettered,
                max_length: v.max_length,
                occupancy: v.occupancy,
                redriving: v.redriving,
                flavour: v.flavour,
                consumers: v.consumers,
            }
        })
        .collect()
}

/// Copies of queue `q` in its consumers' hands that were acked as they were delivered
/// (the broker settled them then: in RabbitMQ's terms they are not unacked).
fn acked_on_delivery(
    sim: &Simulation,
    q: brokerlab_core::QueueId,
    consumers: &[ConsumerId],
) -> u64 {
    consumers
        .iter()
        // Only these settle a copy as they receive it: the others' holdings need no walk.
        .filter(|&&c| {
            sim.consumer(c)
                .is_some_and(|v| v.ack == AckMode::OnDelivery)
        })
        .flat_map(|&c| sim.held_deliveries(c))
        .filter(|&(copy, _)| {
            sim.copy(copy).is_some_and(|x| {
                x.queue == q && x.fate == brokerlab_core::Fate::InFlight && x.settled_at_broker
            })
        })
        .count() as u64
}

fn log_cards(sim: &Simulation) -> Vec<LogCard> {
    sim.scenario()
        .logs
        .iter()
        .map(|l| LogCard {
            name: l.name.clone(),
            partitions: l.partitions,
            publishers: l.publishers.clone(),
        })
        .collect()
}

/// The earliest lease among the current deliveries consumer `c` holds, and how many of
/// them have no lease any more: the broker took them back, because the lease ran out, or
/// because the broker went down and put its deliveries back in line on restart (the card
/// says "took it back", not "expired": after a broker crash the lease had time left).
/// Only consumers acking after commit hold leases. A RabbitMQ delivery has none (only a
/// consumer timeout, no countdown to a redelivery): while it is still out it counts as
/// neither (a prefetch of 100 read "63 held deliveries no longer leased").
fn leases(sim: &Simulation, c: ConsumerId, ack: AckMode) -> (Option<u64>, u32) {
    let (mut earliest, mut expired) = (None::<u64>, 0);
    if ack == AckMode::AfterCommit {
        for (copy, attempt) in sim.held_deliveries(c) {
            let still_out = sim
                .copy(copy)
                .is_some_and(|x| x.attempts == attempt && x.fate == Fate::InFlight);
            if !still_out {
                expired += 1;
            } else if let Some(until) = sim.lease_until_us(copy) {
                earliest = Some(earliest.map_or(until, |e| e.min(until)));
            }
        }
    }
    (earliest, expired)
}

/// One card per consumer.
fn consumer_cards(sim: &Simulation) -> Vec<ConsumerCard> {
    sim.consumer_ids()
        .filter_map(|c| sim.consumer(c).map(|v| (c, v)))
        .map(|(c, v)| {
            let (earliest, expired) = leases(sim, c, v.ack);
            ConsumerCard {
                restart_in_s: v
                    .restart_at_us
                    .filter(|_| !v.up)
                    .map(|at| secs_until(sim, at)),
                restart_after_end: v.restart_at_us.is_some_and(|at| after_end(sim, at)),
                lease_in_s: earliest.map(|at| secs_until(sim, at)),
                leases_expired: expired,
                name: v.name,
                up: v.up,
                busy: v.busy,
                buffered: v.buffered,
                concurrency: v.concurrency,
                armed: v.armed,
                slow_factor: v.slow_factor,
                drop_next_ack: v.drop_next_ack,
                retiring: v.retiring,
                stopped: v.stopped,
            }
        })
        .collect()
}

/// Why a copy was dead-lettered, in words.
pub fn dead_letter_reason(reason: DeadLetterReason, attempts: u32, lang: Lang) -> String {
    let l = locale(lang);
    let n = attempts;
    match reason {
        DeadLetterReason::RetriesExhausted => {
            td_string!(l, stage.dead_letter.failed, n).to_string()
        }
        DeadLetterReason::Poison(Poison::MalformedPayload) => {
            td_string!(l, stage.dead_letter.malformed).to_string()
        }
        DeadLetterReason::Poison(Poison::UnknownSchemaVersion) => {
            td_string!(l, stage.dead_letter.unknown_schema).to_string()
        }
        DeadLetterReason::Poison(Poison::UnauthorizedTenant) => {
            td_string!(l, stage.dead_letter.unauthorized).to_string()
        }
        DeadLetterReason::DeliveryLimitReached => {
            td_string!(l, stage.dead_letter.delivery_limit, n).to_string()
        }
        DeadLetterReason::GapTimeout => td_string!(l, stage.dead_letter.gap_timeout).to_string(),
        DeadLetterReason::MaxLength => td_string!(l, stage.dead_letter.max_length).to_string(),
        DeadLetterReason::RetryBudgetExhausted => {
            td_string!(l, stage.dead_letter.retry_budget).to_string()
        }
        DeadLetterReason::Expired => td_string!(l, stage.dead_letter.expired).to_string(),
        DeadLetterReason::TooOld => td_string!(l, stage.dead_letter.too_old).to_string(),
    }
}

/// A queue flavour as its card names it (the products' names are not translated).
pub fn flavour_label(f: Flavour, lang: Lang) -> &'static str {
    match f {
        Flavour::Generic => td_string!(locale(lang), stage.card.flavour_generic),
        Flavour::Rabbitmq => "RabbitMQ",
        Flavour::Sqs => "SQS",
        Flavour::SqsFifo => "SQS FIFO",
    }
}

impl Topology {
    pub fn of(sim: &Simulation) -> Self {
        Self::after(sim, None)
    }

    /// The snapshot, reusing `previous`'s database cards when its tables cannot have
    /// changed (they scan every message applied: too much to redo on every frame).
    pub fn after(sim: &Simulation, previous: Option<&Topology>) -> Self {
        let key = database_key(sim);
        Self {
            broker_up: sim.broker_up(),
            producers: producer_cards(sim),
            exchanges: exchange_cards(sim),
            queues: queue_cards(sim),
            log_cards: log_cards(sim),
            consumers: consumer_cards(sim),
            logs: LogsSnapshot::of(sim),
            database: match previous {
                Some(p) if p.database_key == key => p.database.clone(),
                _ => database_cards(sim),
            },
            database_key: key,
            dependencies: dependency_cards(sim),
        }
    }

    /// How many cards of each kind: the view rebuilds its cards only when this changes.
    pub fn shape(&self) -> Shape {
        Shape {
            producers: self.producers.len(),
            exchanges: self.exchanges.len(),
            queues: self.queues.len(),
            logs: self.log_cards.len(),
            consumers: self.consumers.len(),
            members: self.logs.groups.iter().map(|g| g.members.len()).collect(),
            database: self.database.len(),
            dependencies: self.dependencies.len(),
        }
    }
}

/// How many cards of each kind the diagram has.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Shape {
    pub producers: usize,
    pub exchanges: usize,
    pub queues: usize,
    pub logs: usize,
    pub consumers: usize,
    /// Members per log group.
    pub members: Vec<usize>,
    pub database: usize,
    pub dependencies: usize,
}

/// Consumers (queue consumers and group members together) beyond which the consumers lane
/// shows one summary card, its cards folded away until asked for: twenty cards would push
/// the chart off the first screen, and a phone could not show them at all.
pub const MANY_CONSUMERS: usize = 8;

impl Shape {
    /// Queue consumers and group members: every card of the consumers lane.
    pub fn consumer_cards(&self) -> usize {
        self.consumers + self.members.iter().sum::<usize>()
    }

    /// Whether the consumers lane is summarised (see [`MANY_CONSUMERS`]).
    pub fn many_consumers(&self) -> bool {
        self.consumer_cards() > MANY_CONSUMERS
    }
}

/// The summary card of a crowded consumers lane.
#[derive(Clone, Debug, PartialEq)]
pub struct CrowdSummary {
    /// "20 consumers".
    pub title: String,
    /// "18 up · 2 down · 37 in hand" (deliveries being worked on or waiting in a prefetch
    /// buffer).
    pub state: String,
    /// Some consumer or member is down (the card is marked).
    pub any_down: bool,
}

impl Topology {
    /// The summary card of a crowded consumers lane: queue consumers and group members.
    pub fn consumers_summary(&self, lang: Lang) -> CrowdSummary {
        let l = locale(lang);
        let members = self.logs.groups.iter().flat_map(|g| &g.members);
        let total = self.consumers.len() + members.clone().count();
        let members_up = members
            .filter(|m| !matches!(m.state, MemberState::Crashed { .. }))
            .count();
        let up = self.consumers.iter().filter(|c| c.up).count() + members_up;
        let held: u32 = self.consumers.iter().map(|c| c.busy + c.buffered).sum();
        let title =
            td_string!(l, stage.card.crowd_title, n = count(total as u64, lang)).to_string();
        let mut state = td_string!(l, stage.card.crowd_up, n = count(up as u64, lang)).to_string();
        if up < total {
            let n = count((total - up) as u64, lang);
            state.push_str(&td_string!(l, stage.card.crowd_down, n).to_string());
        }
        if !self.consumers.is_empty() {
            let n = count(u64::from(held), lang);
            state.push_str(&td_string!(l, stage.card.crowd_held, n).to_string());
        }
        CrowdSummary {
            title,
            state,
            any_down: up < total,
        }
    }
}

/// What a relay card says about its state.
pub fn relay_state(r: &RelayCard, lang: Lang) -> String {
    let l = locale(lang);
    if !r.up {
        return crashed_text(r.restart_in_s, lang);
    }
    let mut text = if r.sending > 0 {
        let n = count(r.sending as u64, lang);
        td_string!(l, stage.card.awaiting_confirms, n).to_string()
    } else {
        up_word(true, lang).to_string()
    };
    if r.backing_off > 0 {
        let n = count(r.backing_off as u64, lang);
        text.push_str(&td_string!(l, stage.card.backing_off, n).to_string());
    }
    if r.parked > 0 {
        let n = count(r.parked as u64, lang);
        text.push_str(&td_string!(l, stage.card.parked, n).to_string());
    }
    if r.armed_after_publish {
        text.push_str(td_string!(l, stage.card.armed_publish));
    }
    text
}

/// A producer's accepted requests by job status (the 202 + job status contract), and the
/// requests it turned away while down, once there are any: those were never accepted, so
/// without them "0 failed" hid requests that got an error.
pub fn jobs_text(j: &brokerlab_core::JobCounts, turned_away: u64, lang: Lang) -> String {
    let mut text = td_string!(
        locale(lang),
        stage.card.jobs,
        pending = count(j.pending, lang),
        running = count(j.running, lang),
        completed = count(j.completed, lang),
        failed = count(j.failed, lang),
    )
    .to_string();
    if turned_away > 0 {
        let n = count(turned_away, lang);
        text.push_str(&td_string!(locale(lang), stage.card.jobs_turned_away, n).to_string());
    }
    text
}

/// What a consumer card says about its leases, if it holds leased deliveries.
pub fn lease_text(c: &ConsumerCard, lang: Lang) -> Option<String> {
    let l = locale(lang);
    let next = c
        .lease_in_s
        .map(|s| td_string!(l, stage.card.lease_in, s = seconds(s, lang)).to_string());
    let expired = (c.leases_expired > 0).then(|| match c.leases_expired {
        1 => td_string!(l, stage.card.lease_expired_one).to_string(),
        n => td_string!(l, stage.card.lease_expired_many, n).to_string(),
    });
    match (next, expired) {
        (Some(a), Some(b)) => Some(format!("{a} · {b}")),
        (a, b) => a.or(b),
    }
}

/// An exchange's kind in words.
pub fn exchange_kind(kind: ExchangeKind, lang: Lang) -> &'static str {
    let l = locale(lang);
    match kind {
        ExchangeKind::Direct => td_string!(l, stage.card.kind_direct),
        ExchangeKind::Fanout => td_string!(l, stage.card.kind_fanout),
        ExchangeKind::Topic => td_string!(l, stage.card.kind_topic),
    }
}

/// One binding as its line reads: "orders.* → billing" (a fanout ignores the key).
pub fn binding_text(kind: ExchangeKind, key: &str, queue: &str, lang: Lang) -> String {
    if kind == ExchangeKind::Fanout || key.is_empty() {
        td_string!(locale(lang), stage.card.binding_all, queue).to_string()
    } else {
        format!("{key} → {queue}")
    }
}

/// What a DLQ card says.
pub fn dlq_text(d: &DlqCard, lang: Lang) -> String {
    let l = locale(lang);
    match d.oldest_reason {
        Some((reason, attempts)) if d.count > 0 => {
            let reason = dead_letter_reason(reason, attempts, lang);
            td_string!(l, stage.card.dlq_held, n = count(d.count, lang), reason).to_string()
        }
        _ => td_string!(l, stage.card.dlq_empty).to_string(),
    }
}

/// What a consumer card says about its state.
pub fn consumer_state(c: &ConsumerCard, lang: Lang) -> String {
    let l = locale(lang);
    if c.stopped {
        return td_string!(l, stage.card.stopped).to_string();
    }
    if !c.up {
        return match c.restart_in_s {
            Some(s) if c.restart_after_end => {
                td_string!(l, stage.card.would_restart, s = seconds(s, lang)).to_string()
            }
            other => crashed_text(other, lang),
        };
    }
    let mut text = if c.busy == 0 && c.buffered == 0 {
        td_string!(l, stage.card.idle).to_string()
    } else {
        let (busy, of, buffered) = (c.busy, c.concurrency, c.buffered);
        td_string!(l, stage.card.busy, busy, of, buffered).to_string()
    };
    match c.armed {
        Some(CrashPoint::AfterCommitBeforeAck) => {
            text.push_str(td_string!(l, stage.card.armed_commit))
        }
        Some(CrashPoint::AfterReceive) => text.push_str(td_string!(l, stage.card.armed_receive)),
        Some(CrashPoint::Now) | None => {}
    }
    if c.slow_factor > 1.0 {
        text.push_str(&td_string!(l, stage.card.slow, f = c.slow_factor).to_string());
    }
    if c.drop_next_ack {
        text.push_str(td_string!(l, stage.card.ack_lost));
    }
    if c.retiring {
        text.push_str(td_string!(l, stage.card.retiring));
    }
    text
}

/// What a queue card says about its contents. A bound stands beside what it counts:
/// RabbitMQ's beside the waiting copies, the others' beside every copy held, so that a
/// full queue never reads "waiting 0 / 1".
pub fn queue_counts(q: &QueueCard, lang: Lang) -> String {
    let l = locale(lang);
    let waiting_bound = q.flavour == Flavour::Rabbitmq;
    let bound = match q.max_length {
        Some(m) if waiting_bound => format!(" / {}", count(m, lang)),
        _ => String::new(),
    };
    let (n, f) = (count(q.waiting, lang), count(q.in_flight, lang));
    let mut text = td_string!(l, stage.card.queue_counts, n, bound, f).to_string();
    if let Some(max) = q.max_length.filter(|_| !waiting_bound) {
        let (n, max) = (count(q.occupancy, lang), count(max, lang));
        text.push_str(&td_string!(l, stage.card.queue_held, n, max).to_string());
    }
    if q.acked_on_delivery > 0 {
        let n = count(q.acked_on_delivery, lang);
        text.push_str(&td_string!(l, stage.card.queue_acked_on_delivery, n).to_string());
    }
    if q.retry_waiting > 0 {
        let n = count(q.retry_waiting, lang);
        text.push_str(&td_string!(l, stage.card.queue_retry, n).to_string());
    }
    text.push_str(&format!(" · DLQ {}", count(q.dead_lettered, lang)));
    if q.redriving {
        text.push_str(td_string!(l, stage.card.queue_redriving));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::ConsumerId;
    use brokerlab_core::{examples, Command};

    #[test]
    fn the_snapshot_lists_every_component_of_the_scenario() {
        let sim = Simulation::new(examples::load("fanout-subscriptions").expect("built in"))
            .expect("valid");
        let t = Topology::of(&sim);
        assert!(t.broker_up);
        assert_eq!(t.producers.len() as u32, sim.producer_count());
        assert_eq!(t.queues.len() as u32, sim.queue_count());
        assert!(t.queues.len() > 1, "a fan-out has several subscriptions");
        assert_eq!(t.consumers.len() as u32, sim.consumer_count());
        assert!(t.consumers.iter().all(|c| c.up && c.armed.is_none()));
    }

    #[test]
    fn a_crowded_consumers_lane_is_summarised_with_its_crashes() {
        let mut sim = Simulation::new(examples::load("burst").expect("built in")).expect("valid");
        let t = Topology::of(&sim);
        assert!(
            t.shape().many_consumers(),
            "burst has {} consumers",
            t.consumers.len()
        );
        assert!(!Topology::of(
            &Simulation::new(examples::load("mm4").expect("built in")).expect("valid")
        )
        .shape()
        .many_consumers());
        let n = t.consumers.len();
        assert_eq!(
            t.consumers_summary(Lang::En),
            CrowdSummary {
                title: format!("{n} consumers"),
                state: format!("{n} up · 0 in hand"),
                any_down: false,
            }
        );
        sim.command(Command::CrashConsumer {
            consumer: ConsumerId::new(3),
            point: CrashPoint::Now,
            restart_after_s: None,
        })
        .expect("valid");
        let summary = Topology::of(&sim).consumers_summary(Lang::En);
        assert_eq!(summary.state, format!("{} up · 1 down · 0 in hand", n - 1));
        assert!(summary.any_down);
    }

    #[test]
    fn group_members_count_in_the_summary() {
        let sim = Simulation::new(examples::load("transactional-pipeline").expect("built in"))
            .expect("valid");
        let t = Topology::of(&sim);
        let members: usize = t.logs.groups.iter().map(|g| g.members.len()).sum();
        assert_eq!(t.shape().consumer_cards(), members);
        assert_eq!(
            t.consumers_summary(Lang::En).title,
            format!("{members} consumers")
        );
        assert_eq!(t.consumers_summary(Lang::En).state, format!("{members} up"));
    }

    #[test]
    fn a_crashed_consumer_shows_its_restart_countdown() {
        let mut sim = Simulation::new(examples::load("mm1").expect("built in")).expect("valid");
        sim.command(Command::CrashConsumer {
            consumer: ConsumerId::new(0),
            point: CrashPoint::Now,
            restart_after_s: Some(5.0),
        })
        .expect("valid");
        let c = &Topology::of(&sim).consumers[0];
        assert!(!c.up);
        assert_eq!(c.restart_in_s, Some(5.0));
        assert_eq!(consumer_state(c, Lang::En), "crashed · restarts in 5.0 s");
    }

    #[test]
    fn a_restart_after_the_run_ends_is_said_to_stay_down() {
        let mut scenario = examples::load("mm1").expect("built in");
        scenario.end_s = Some(30.0);
        let mut sim = Simulation::new(scenario).expect("valid");
        sim.run_until(brokerlab_core::secs_to_us(20.0));
        sim.command(Command::CrashConsumer {
            consumer: ConsumerId::new(0),
            point: CrashPoint::Now,
            restart_after_s: Some(15.0),
        })
        .expect("valid");
        let c = &Topology::of(&sim).consumers[0];
        assert!(c.restart_after_end);
        assert_eq!(
            consumer_state(c, Lang::En),
            "crashed · would restart in 15.0 s, after the run ends: stays down"
        );
    }

    #[test]
    fn an_armed_crash_is_shown() {
        let mut sim = Simulation::new(examples::load("mm1").expect("built in")).expect("valid");
        sim.command(Command::CrashConsumer {
            consumer: ConsumerId::new(0),
            point: CrashPoint::AfterCommitBeforeAck,
            restart_after_s: None,
        })
        .expect("valid");
        let c = &Topology::of(&sim).consumers[0];
        assert!(c.up);
        assert_eq!(c.armed, Some(CrashPoint::AfterCommitBeforeAck));
        assert!(
            consumer_state(c, Lang::En).ends_with("armed: crash after commit"),
            "{c:?}"
        );
    }

    #[test]
    fn a_slow_consumer_and_a_lost_ack_are_shown() {
        let mut sim = Simulation::new(examples::load("mm1").expect("built in")).expect("valid");
        sim.command(Command::SlowConsumer {
            consumer: ConsumerId::new(0),
            factor: SLOW_FACTOR,
        })
        .expect("valid");
        sim.command(Command::DropNextAck {
            consumer: ConsumerId::new(0),
        })
        .expect("valid");
        let c = &Topology::of(&sim).consumers[0];
        assert_eq!(c.slow_factor, 4.0);
        assert!(c.drop_next_ack);
        let state = consumer_state(c, Lang::En);
        assert!(state.contains(" · slow ×4"), "{state}");
        assert!(state.ends_with(" · next ack will be lost"), "{state}");
        sim.command(Command::SlowConsumer {
            consumer: ConsumerId::new(0),
            factor: 1.0,
        })
        .expect("valid");
        assert!(!consumer_state(&Topology::of(&sim).consumers[0], Lang::En).contains("slow"));
    }

    /// mm1 with a second consumer; once both are busy, the newest is scaled in while it
    /// works.
    fn second_consumer_scaled_in_while_busy() -> Simulation {
        let mut sim = Simulation::new(examples::load("mm1").expect("built in")).expect("valid");
        let scale = |count| Command::SetConsumerCount {
            queue: "jobs".into(),
            count,
        };
        sim.command(scale(2)).expect("valid");
        while Topology::of(&sim).consumers.iter().any(|c| c.busy == 0) {
            sim.step().expect("arrivals go on");
        }
        sim.command(scale(1)).expect("valid");
        sim
    }

    #[test]
    fn a_scaled_in_consumer_finishes_then_reads_stopped_not_crashed() {
        let mut sim = second_consumer_scaled_in_while_busy();
        let c = &Topology::of(&sim).consumers[1];
        assert!(c.retiring && !c.stopped, "{c:?}");
        assert!(
            consumer_state(c, Lang::En).ends_with(" · finishing, then stops"),
            "{}",
            consumer_state(c, Lang::En)
        );
        while Topology::of(&sim).consumers[1].retiring {
            sim.step().expect("it finishes its message");
        }
        let c = &Topology::of(&sim).consumers[1];
        assert!(c.stopped && !c.up);
        assert_eq!(consumer_state(c, Lang::En), "stopped (scaled in)");
        assert!(!consumer_state(&Topology::of(&sim).consumers[0], Lang::En).contains("stop"));
    }

    #[test]
    fn a_consumer_crashed_while_it_is_scaled_in_reads_stopped_not_down() {
        // Before: crashed while it finished its work, it stayed "down" (or restarted as a
        // consumer on its way out that never stopped).
        let mut sim = second_consumer_scaled_in_while_busy();
        assert!(Topology::of(&sim).consumers[1].retiring);
        sim.command(Command::CrashConsumer {
            consumer: ConsumerId::new(1),
            point: CrashPoint::Now,
            restart_after_s: Some(1.0),
        })
        .expect("valid");
        for _ in 0..50 {
            sim.step().expect("arrivals go on");
        }
        let c = &Topology::of(&sim).consumers[1];
        assert!(c.stopped && !c.up && !c.retiring, "{c:?}");
        assert_eq!(consumer_state(c, Lang::En), "stopped (scaled in)");
    }

    #[test]
    fn only_an_outbox_producer_is_marked_as_using_one() {
        let outbox = Simulation::new(examples::load("outbox-relay-crash").expect("built in"))
            .expect("valid");
        assert!(Topology::of(&outbox)
            .producers
            .iter()
            .any(|p| p.uses_outbox));
        let direct = Simulation::new(examples::load("crash-after-commit").expect("built in"))
            .expect("valid");
        assert!(Topology::of(&direct)
            .producers
            .iter()
            .all(|p| !p.uses_outbox));
    }

    #[test]
    fn only_a_producer_that_waits_for_confirms_offers_to_lose_one() {
        // The core refuses a lost confirm for a producer that waits for none, so its card
        // does not offer one (as it offers a relay crash only with an outbox).
        let waits = |name: &str| {
            let sim = Simulation::new(examples::load(name).expect("built in")).expect("valid");
            Topology::of(&sim).producers[0].waits_for_confirms
        };
        assert!(waits("lost-confirm"), "publish.confirms");
        assert!(waits("outbox-relay-crash"), "its relay waits for confirms");
        assert!(!waits("crash-after-commit"));
    }

    #[test]
    fn a_queue_card_names_its_flavour_and_follows_a_switch() {
        let mut sim = Simulation::new(brokerlab_core::examples::load("mm1").unwrap()).unwrap();
        assert_eq!(
            flavour_label(Topology::of(&sim).queues[0].flavour, Lang::En),
            "generic"
        );
        sim.command(Command::SetFlavour {
            queue: "jobs".into(),
            flavour: Flavour::Rabbitmq,
        })
        .unwrap();
        assert_eq!(
            flavour_label(Topology::of(&sim).queues[0].flavour, Lang::En),
            "RabbitMQ"
        );
    }

    #[test]
    fn queue_counts_read_naturally() {
        let q = QueueCard {
            name: "orders".into(),
            waiting: 1_200,
            in_flight: 3,
            acked_on_delivery: 0,
            retry_waiting: 2,
            dead_lettered: 1,
            max_length: Some(5_000),
            occupancy: 1_205,
            redriving: true,
            flavour: Flavour::Generic,
            consumers: vec![ConsumerId::new(0)],
            dlq: None,
            publishers: Vec::new(),
        };
        assert_eq!(
            queue_counts(&q, Lang::En),
            "waiting 1,200 · in flight 3 · held 1,205 / 5,000 · retry 2 · DLQ 1 (redriving)"
        );
        // RabbitMQ's x-max-length counts ready messages only: the bound is the waiting's.
        let rabbit = QueueCard {
            flavour: Flavour::Rabbitmq,
            occupancy: 1_200,
            ..q.clone()
        };
        assert_eq!(
            queue_counts(&rabbit, Lang::En),
            "waiting 1,200 / 5,000 · in flight 3 · retry 2 · DLQ 1 (redriving)"
        );
        let plain = QueueCard {
            retry_waiting: 0,
            max_length: None,
            redriving: false,
            ..q
        };
        assert_eq!(
            queue_counts(&plain, Lang::En),
            "waiting 1,200 · in flight 3 · DLQ 1"
        );
        let auto = QueueCard {
            acked_on_delivery: 2,
            ..plain
        };
        assert_eq!(
            queue_counts(&auto, Lang::En),
            "waiting 1,200 · in flight 3 (2 acked on delivery: the broker has forgotten them) · DLQ 1"
        );
    }

    /// backpressure's queue refuses publishes while full: the card's bound stands beside
    /// what it counts (every copy held, in flight too), which then reaches the bound.
    #[test]
    fn a_full_queue_shows_its_bound_reached() {
        let mut sim =
            Simulation::new(examples::load("backpressure").expect("built in")).expect("valid");
        let full = |sim: &Simulation| {
            let q = &Topology::of(sim).queues[0];
            q.max_length == Some(q.occupancy)
        };
        while !full(&sim) && sim.step().is_some() {}
        let q = &Topology::of(&sim).queues[0];
        assert_eq!(
            q.occupancy,
            q.waiting + q.in_flight + q.retry_waiting,
            "{q:?}"
        );
        assert!(q.in_flight > 0, "{q:?}");
        let text = queue_counts(q, Lang::En);
        assert!(text.contains(" · held 100 / 100"), "{text}");
        assert!(
            !text.contains(&format!("waiting {} /", q.waiting)),
            "{text}"
        );
    }

    #[test]
    fn a_queue_whose_consumer_acks_on_delivery_says_the_broker_forgot_what_it_sent() {
        // RabbitMQ's automatic acknowledgement: the broker settles a message as it sends
        // it (its unacked count stays 0), and pushes all it has past prefetch.
        let mut scenario = examples::load("burst").expect("built in");
        scenario.queues[0].flavour = Flavour::Rabbitmq;
        scenario.consumers[0].ack = brokerlab_core::AckMode::OnDelivery;
        let mut sim = Simulation::new(scenario).expect("valid");
        for _ in 0..200 {
            sim.step();
        }
        let q = &Topology::of(&sim).queues[0];
        assert!(q.in_flight > 0, "{q:?}");
        assert_eq!(
            q.acked_on_delivery, q.in_flight,
            "every delivery was acked as sent"
        );
        assert!(
            queue_counts(q, Lang::En).contains("acked on delivery: the broker has forgotten them")
        );
    }

    #[test]
    fn exchanges_list_their_kind_and_bindings_before_the_queues() {
        let sim = Simulation::new(examples::load("fanout-subscriptions").expect("built in"))
            .expect("valid");
        let t = Topology::of(&sim);
        assert_eq!(t.exchanges.len(), 1);
        let x = &t.exchanges[0];
        assert_eq!(
            (x.name.as_str(), exchange_kind(x.kind, Lang::En)),
            ("orders", "topic")
        );
        let lines: Vec<String> = x
            .bindings
            .iter()
            .map(|(k, q)| binding_text(x.kind, k, q, Lang::En))
            .collect();
        assert_eq!(
            lines,
            [
                "orders.* → billing",
                "orders.created → shipping",
                "orders.# → audit"
            ]
        );
        assert_eq!(
            binding_text(ExchangeKind::Fanout, "x", "q", Lang::En),
            "all → q"
        );
        let burst = Simulation::new(examples::load("burst").expect("built in")).expect("valid");
        assert!(Topology::of(&burst).exchanges.is_empty());
        // Any producer may publish to it: the card names none.
        assert!(x.publishers.is_empty());
        let untrusted = examples::load("untrusted-source").expect("built in");
        let t = Topology::of(&Simulation::new(untrusted).expect("valid"));
        assert_eq!(t.exchanges[0].publishers, ["payments-api", "partner-api"]);
        assert!(t.queues[0].publishers.is_empty());
        // A queue's and a log's lists reach their cards too.
        let mut s = examples::load("account-42-log").expect("built in");
        s.logs[0].publishers = vec!["accounts".into()];
        let t = Topology::of(&Simulation::new(s).expect("valid"));
        assert_eq!(t.log_cards[0].publishers, ["accounts"]);
        let mut s = examples::load("mm1").expect("built in");
        s.queues[0].publishers = vec!["P1".into()];
        let t = Topology::of(&Simulation::new(s).expect("valid"));
        assert_eq!(t.queues[0].publishers, ["P1"]);
    }

    /// replay-window: the redrive at 40 s sends the outage's payments back, and
    /// 'windowed' refuses each again for its age: its dead-letter queue says why.
    #[test]
    fn a_payment_refused_for_its_age_says_so_in_the_dead_letter_queue() {
        let mut sim =
            Simulation::new(examples::load("replay-window").expect("built in")).expect("valid");
        sim.run();
        let t = Topology::of(&sim);
        let windowed = t.queues[0].dlq.as_ref().expect("dead-letters");
        let (why, attempts) = windowed.oldest_reason.expect("an oldest entry");
        assert_eq!(
            dead_letter_reason(why, attempts, Lang::En),
            "older than the replay window"
        );
        assert_eq!(
            dead_letter_reason(why, attempts, Lang::Es),
            "más antiguo que la ventana de repetición"
        );
        assert_eq!(windowed.count, 18);
        assert_eq!(t.queues[1].dlq.as_ref().expect("dead-letters").count, 0);
    }

    #[test]
    fn a_dead_letter_queue_shows_its_count_and_reason_and_redrive_empties_it() {
        let mut sim = Simulation::new(examples::load("retries-dlq-redrive").expect("built in"))
            .expect("valid");
        let fresh = Topology::of(&sim);
        assert_eq!(
            dlq_text(
                fresh.queues[0].dlq.as_ref().expect("dead-letters"),
                Lang::En
            ),
            "empty"
        );
        sim.run_until(brokerlab_core::secs_to_us(55.0));
        let d = Topology::of(&sim).queues[0]
            .dlq
            .clone()
            .expect("dead-letters");
        assert!(d.count > 0, "{d:?}");
        let (why, attempts) = d.oldest_reason.expect("an oldest entry");
        let reason = dead_letter_reason(why, attempts, Lang::En);
        assert!(
            reason.starts_with("poison: ") || reason.starts_with("failed "),
            "{reason}"
        );
        assert!(dlq_text(&d, Lang::En).starts_with(&format!("{} held · oldest: ", d.count)));
        sim.command(Command::Redrive {
            queue: "payments".into(),
            rate_per_s: REDRIVE_RATE_PER_S,
        })
        .expect("valid");
        assert!(Topology::of(&sim).queues[0].redriving);
        let before = sim.counters().redriven;
        sim.run_until(sim.now_us() + brokerlab_core::secs_to_us(1.0));
        assert!(sim.counters().redriven > before);
        assert!(
            Topology::of(&sim).queues[0]
                .dlq
                .as_ref()
                .expect("dlq")
                .count
                < d.count
        );
    }

    /// log-consumer-groups' producer (to a log, without confirms) through a broker outage
    /// from 10 s to 13 s: its card counts what it keeps, in both languages; the history of
    /// a kept record labels its stay in the buffer, then its publish.
    #[test]
    fn a_log_producer_card_counts_what_it_buffers_while_the_broker_is_down() {
        let mut scenario = examples::load("log-consumer-groups").expect("built in");
        scenario.commands = vec![brokerlab_core::ScheduledCommand {
            at_s: 10.0,
            command: Command::CrashBroker {
                restart_after_s: Some(3.0),
            },
            unannounced: false,
        }];
        let mut sim = Simulation::new(scenario).expect("valid");
        sim.run_until(12_000_000);
        let card = Topology::of(&sim).producers[0].clone();
        let n = card.buffered;
        assert!(n > 5, "{card:?}");
        assert_eq!(
            card.state_text(Lang::En),
            format!("up · buffer: {n} to send when the broker is back")
        );
        assert_eq!(
            card.state_text(Lang::Es),
            format!("activo · búfer: {n} por enviar cuando vuelva el broker")
        );
        sim.run_until(13_000_000);
        assert_eq!(Topology::of(&sim).producers[0].buffered, 0);
        let kept = (0..sim.counters().created)
            .map(MsgId::new)
            .find(|&m| {
                crate::model::lineage::lineage(&sim, m).is_ok_and(|l| {
                    l.rows
                        .iter()
                        .any(|r| r.label.get(Lang::En).contains("buffer"))
                })
            })
            .expect("a kept record");
        let l = crate::model::lineage::lineage(&sim, kept).expect("short run");
        let labels: Vec<&str> = l.rows.iter().map(|r| r.label.get(Lang::En)).collect();
        let at = labels
            .iter()
            .position(|&s| s == "kept in its buffer: broker down")
            .unwrap_or_else(|| panic!("{labels:?}"));
        assert_eq!(labels[at + 1], "publish", "{labels:?}");
    }

    #[test]
    fn a_refused_outbox_publish_shows_as_backing_off_and_pending_jobs() {
        let scenario = brokerlab_core::Scenario::from_json(include_str!(
            "../../core/tests/repro/semantics/outbox-publish-refused.json"
        ))
        .expect("valid");
        let mut sim = Simulation::new(scenario).expect("valid");
        let mut saw_backoff = false;
        while sim.step().is_some() {
            let card = Topology::of(&sim).producers[0].clone();
            let relay = card.relay.expect("a relay");
            if relay.backing_off > 0 && card.jobs.pending > 0 {
                saw_backoff = true;
                assert!(
                    relay_state(&relay, Lang::En).contains("backing off"),
                    "{relay:?}"
                );
            }
        }
        assert!(saw_backoff);
        let jobs = Topology::of(&sim).producers[0].jobs;
        assert_eq!(jobs.completed, jobs.total(), "{jobs:?}");
        assert_eq!(
            jobs_text(&jobs, 0, Lang::En),
            format!(
                "jobs: 0 pending · 0 running · {} completed · 0 failed",
                count(jobs.completed, Lang::En)
            )
        );
    }

    #[test]
    fn requests_a_crashed_producer_turned_away_show_on_its_card_and_in_the_readout() {
        let mut p =
            crate::model::player::Player::new(examples::load("lost-confirm").expect("built in"))
                .expect("valid");
        p.step_once();
        p.step_once();
        p.command(Command::CrashProducer {
            producer: brokerlab_core::ProducerId::new(0),
            point: brokerlab_core::ProducerCrashPoint::Now,
            restart_after_s: Some(5.0),
        })
        .expect("a producer to crash");
        while p.step_once() {}
        let card = Topology::of(p.sim()).producers[0].clone();
        assert_eq!(card.requests_refused, 2, "{card:?}");
        assert_eq!(p.readout().requests_refused, 2);
        assert_eq!(
            jobs_text(&card.jobs, card.requests_refused, Lang::En),
            "jobs: 0 pending · 0 running · 1 completed · 0 failed · 2 turned away while down"
        );
        assert!(jobs_text(&card.jobs, card.requests_refused, Lang::Es)
            .ends_with("rechazadas mientras estaba caído 2"));
    }

    #[test]
    fn an_outbox_producer_has_a_relay_card_and_its_table() {
        let mut sim = Simulation::new(examples::load("outbox-relay-crash").expect("built in"))
            .expect("valid");
        let relay = Topology::of(&sim).producers[0]
            .relay
            .clone()
            .expect("a relay");
        assert_eq!(relay_state(&relay, Lang::En), "up");
        // The scenario arms the crash at 0 s: its first step.
        sim.step();
        let relay = Topology::of(&sim).producers[0]
            .relay
            .clone()
            .expect("a relay");
        assert!(relay.up && relay.armed_after_publish, "{relay:?}");
        assert_eq!(
            relay_state(&relay, Lang::En),
            "up · armed: crash after next publish"
        );
        // Rows on the wire are counted the way Spanish counts them, without a "(s)".
        let sending = RelayCard {
            sending: 1,
            armed_after_publish: false,
            ..relay.clone()
        };
        assert_eq!(relay_state(&sending, Lang::En), "up · confirms pending: 1");
        assert_eq!(
            relay_state(&sending, Lang::Es),
            "activo · confirmaciones pendientes: 1"
        );
        // Until the relay's confirmed publish crashes it, the row stays in the table.
        let mut saw_row = false;
        while let Some(step) = sim.step() {
            let crashed = step
                .facts
                .iter()
                .any(|f| matches!(f, brokerlab_core::Fact::ProducerCrashed { .. }));
            let t = Topology::of(&sim);
            let p = &t.producers[0];
            saw_row |= p.outbox_rows.first() == Some(&(MsgId::new(0), false));
            if crashed {
                let relay = p.relay.clone().expect("a relay");
                assert!(!relay.up);
                assert_eq!(relay_state(&relay, Lang::En), "crashed · restarts in 1.0 s");
                assert_eq!(p.outbox, 1, "the row was never marked sent");
                break;
            }
        }
        assert!(saw_row);
        let direct = Simulation::new(examples::load("mm1").expect("built in")).expect("valid");
        assert!(Topology::of(&direct).producers[0].relay.is_none());
    }

    /// RabbitMQ deliveries have no lease: a consumer holding 60 of them read "⚠ 60 held
    /// deliveries no longer leased: the broker took them back" while it still held them
    /// all. Its crash does take them back, and the next delivery is a new one.
    #[test]
    fn rabbitmq_deliveries_are_neither_leased_nor_taken_back_while_held() {
        let mut sim =
            Simulation::new(examples::load("prefetch-fairness").expect("built in")).expect("valid");
        sim.run_until(10_000_000);
        let slow = Topology::of(&sim).consumers[0].clone();
        assert!(slow.buffered >= 50, "{slow:?}");
        assert_eq!((slow.lease_in_s, slow.leases_expired), (None, 0));
        assert_eq!(lease_text(&slow, Lang::En), None);
        let mut sqs = examples::load("prefetch-fairness").expect("built in");
        sqs.queues[0].flavour = Flavour::Sqs;
        let mut sim = Simulation::new(sqs).expect("valid");
        sim.run_until(10_000_000);
        let slow = Topology::of(&sim).consumers[0].clone();
        assert!(
            slow.lease_in_s.is_some(),
            "an SQS delivery keeps its countdown"
        );
    }

    #[test]
    fn a_consumer_shows_when_its_lease_runs_out() {
        let mut sim = Simulation::new(examples::load("crash-after-commit").expect("built in"))
            .expect("valid");
        let mut seen = None;
        while sim.step().is_some() {
            let c = Topology::of(&sim).consumers[0].clone();
            if c.lease_in_s.is_some() {
                seen = Some(c);
                break;
            }
        }
        let c = seen.expect("a leased delivery");
        // Delivered this very step: the whole 5 s visibility timeout is left.
        assert_eq!(c.lease_in_s, Some(5.0));
        assert_eq!(
            lease_text(&c, Lang::En).as_deref(),
            Some("lease runs out in 5.0 s")
        );
        sim.step();
        let later = Topology::of(&sim).consumers[0].clone();
        if let Some(s) = later.lease_in_s {
            assert!(s < 5.0, "{later:?}");
        }
        let idle = ConsumerCard {
            lease_in_s: None,
            leases_expired: 2,
            ..c
        };
        assert_eq!(
            lease_text(&idle, Lang::En).as_deref(),
            Some("⚠ 2 held deliveries no longer leased: the broker took them back")
        );
    }

    #[test]
    fn the_database_lane_and_logs_have_cards() {
        let sim = Simulation::new(examples::load("log-consumer-groups").expect("built in"))
            .expect("valid");
        let t = Topology::of(&sim);
        assert_eq!(t.log_cards.len(), 1);
        assert_eq!(t.log_cards[0].partitions, 4);
        assert_eq!(t.database.len(), 2, "one set of tables per group");
        assert_eq!(t.shape().members, vec![2, 1]);
    }

    #[test]
    fn database_cards_are_reused_only_while_the_tables_cannot_have_changed() {
        let mut sim = Simulation::new(examples::load("crash-after-commit").expect("built in"))
            .expect("valid");
        let mut t = Topology::of(&sim);
        while sim.step().is_some() {
            let next = Topology::after(&sim, Some(&t));
            assert_eq!(next, Topology::of(&sim), "at step {}", sim.steps());
            t = next;
        }
        assert_eq!(t.database[0].duplicates, 1);
        let other = Simulation::new(examples::load("mm1").expect("built in")).expect("valid");
        assert_eq!(Topology::after(&other, Some(&t)), Topology::of(&other));
    }

    #[test]
    fn cards_speak_spanish() {
        let mut sim = Simulation::new(examples::load("mm1").expect("built in")).expect("valid");
        sim.command(Command::CrashConsumer {
            consumer: ConsumerId::new(0),
            point: CrashPoint::Now,
            restart_after_s: Some(5.0),
        })
        .expect("valid");
        let t = Topology::of(&sim);
        assert_eq!(
            consumer_state(&t.consumers[0], Lang::Es),
            "caído · se reinicia en 5,0 s"
        );
        assert_eq!(t.producers[0].state_text(Lang::Es), "activo");
        assert_eq!(
            queue_counts(&t.queues[0], Lang::Es),
            format!(
                "en espera {} · en vuelo 0 · DLQ 0",
                count(t.queues[0].waiting, Lang::En)
            )
        );
        assert_eq!(
            dead_letter_reason(DeadLetterReason::RetriesExhausted, 3, Lang::Es),
            "agotó sus intentos (3)"
        );
        assert_eq!(exchange_kind(ExchangeKind::Topic, Lang::Es), "por tema");
        assert_eq!(flavour_label(Flavour::Generic, Lang::Es), "genérica");
        let jobs = brokerlab_core::JobCounts::default();
        assert_eq!(
            jobs_text(&jobs, 0, Lang::Es),
            "trabajos: pendientes 0 · en curso 0 · completados 0 · fallidos 0"
        );
    }
}
