//! A message's lineage: every fact about one message from the first step to the current
//! one, in order, drawn as a sequence diagram: one lifeline per participant that took part
//! (producer, outbox relay, queue / exchange / log, each consumer that got a delivery,
//! the database, the dead-letter queue) and one arrow per fact.
//!
//! The page keeps only the latest facts, so the lineage is rebuilt by re-simulating the
//! recorded run (the scenario plus every user command) up to the current step, keeping
//! only that message's facts. The work is bounded by [`LINEAGE_STEPS_MAX`].

use std::fmt::Display;

use brokerlab_core::lang::Lang;
use brokerlab_core::narration::describe;
use brokerlab_core::step::{
    CallRefusal, DeadLetterReason, Failure as HandlerFailure, IgnoredAck, LossReason,
    RefusedBecause, SkipReason,
};
use brokerlab_core::{
    us_to_secs, ConsumerId, Fact, GroupId, LogId, MemberId, MsgId, ProducerId, QueueId, Simulation,
};

use super::participants::{self, Move, Party};
use crate::i18n::{locale, td_string, Locale};

/// An arrow's label, in the locale `$l`: `say!(l, publish_again, attempt = a)`.
macro_rules! say {
    ($l:expr, $key:ident $(, $arg:ident = $val:expr)* $(,)?) => {
        td_string!($l, story.lineage.arrow.$key $(, $arg = $val)*).to_string()
    };
}

/// A text in both of the page's languages. A history is told in both when it is built (a
/// few hundred rows at most), so a language switch shows it at once, without replaying
/// the run again.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bilingual {
    en: String,
    es: String,
}

impl Bilingual {
    /// The text `tell` gives in each language.
    pub fn new(mut tell: impl FnMut(Lang) -> String) -> Self {
        Self {
            en: tell(Lang::En),
            es: tell(Lang::Es),
        }
    }

    pub fn get(&self, lang: Lang) -> &str {
        match lang {
            Lang::En => &self.en,
            Lang::Es => &self.es,
        }
    }
}

/// Why a history could not be built: the run could not be replayed (`why`, as the
/// simulation words it).
pub fn replay_failed(why: &impl Display) -> Bilingual {
    Bilingual::new(|lang| {
        td_string!(locale(lang), story.lineage.replay_failed, why = why).to_string()
    })
}

/// Most steps re-simulated to build a lineage (about a second of work in the browser).
pub const LINEAGE_STEPS_MAX: u64 = 3_000_000;
/// Most facts a lineage lists; later ones are counted, not listed.
pub const LINEAGE_ROWS_MAX: usize = 400;

/// Where a fact happens, left to right on the diagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    Producer,
    Broker,
    Consumer,
    Database,
}

impl Lane {
    pub const ALL: [Lane; 4] = [Lane::Producer, Lane::Broker, Lane::Consumer, Lane::Database];

    /// The lane's name as the list shows it, in `lang`.
    pub fn name(self, lang: Lang) -> String {
        let l = locale(lang);
        match self {
            Lane::Producer => td_string!(l, story.lineage.lane.producer),
            Lane::Broker => td_string!(l, story.lineage.lane.broker),
            Lane::Consumer => td_string!(l, story.lineage.lane.consumer),
            Lane::Database => td_string!(l, story.lineage.lane.database),
        }
        .to_string()
    }

    /// A fixed name for test hooks (`data-lane`).
    pub fn label(self) -> &'static str {
        match self {
            Lane::Producer => "producer",
            Lane::Broker => "broker",
            Lane::Consumer => "consumer",
            Lane::Database => "database",
        }
    }

    /// The lane of a fact.
    pub fn of(fact: &Fact) -> Lane {
        use Fact::*;
        match fact {
            Created { .. }
            | StateCommitted { .. }
            | PublishSent { .. }
            | Throttled { .. }
            | Buffered { .. }
            | BufferDropped { .. }
            | ConfirmTimedOut { .. }
            | Confirmed { .. }
            | ConfirmLost { .. }
            | OutboxMarked { .. }
            | EventNeverPublished { .. }
            | OutboxRetryScheduled { .. }
            | OutboxRowParked { .. }
            | PublishFailed { .. }
            | OutOfSequence { .. } => Lane::Producer,
            ProcessingStarted { .. }
            | DuplicateSkipped { .. }
            | TakenForDuplicate { .. }
            | UnauthorizedEffect { .. }
            | StaleIgnored { .. }
            | GapWait { .. }
            | HandlerFailed { .. }
            | RetryScheduled { .. }
            | RecordStarted { .. }
            | RecordProcessed { .. }
            | RecordUnauthorizedEffect { .. }
            | RecordTakenForDuplicate { .. }
            | RecordFailed { .. }
            | RecordRetrying { .. }
            | RecordStaleIgnored { .. }
            | PollIntervalExceeded { .. }
            | CommitFailed { .. }
            | ConsumerCrashed { .. }
            | ConsumerEmailSent { .. }
            | EmailSent { .. } => Lane::Consumer,
            EffectCommitted { .. }
            | EffectRefused { .. }
            | RecordEffectRefused { .. }
            | OutputWritten { .. } => Lane::Database,
            _ => Lane::Broker,
        }
    }
}

/// Who takes part in a message's history: one lifeline each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Who {
    Producer(ProducerId),
    /// The producer's outbox relay (it publishes what the service committed).
    Relay(ProducerId),
    /// An exchange routing one publish to several queues, or the broker as a whole when
    /// nothing was stored.
    Broker,
    Queue(QueueId),
    Log(LogId),
    Consumer(ConsumerId),
    Member(GroupId, MemberId),
    Database,
    /// The dead-letter queue of a queue.
    DeadLetters(QueueId),
}

impl Who {
    /// Left-to-right order of the lifelines: the message's path.
    fn rank(self) -> u8 {
        match self {
            Who::Producer(_) => 0,
            Who::Relay(_) => 1,
            Who::Broker => 2,
            Who::Queue(_) | Who::Log(_) => 3,
            Who::Consumer(_) | Who::Member(..) => 4,
            Who::Database => 5,
            Who::DeadLetters(_) => 6,
        }
    }
}

/// One lifeline: its role (small, above) and its name.
#[derive(Clone, Debug, PartialEq)]
pub struct Participant {
    pub who: Who,
    /// The role's fixed name (`producer`, `dead letters`…); [`Participant::role_name`]
    /// says it in a language.
    pub role: &'static str,
    pub name: Bilingual,
}

impl Participant {
    /// The role as the diagram shows it, in `lang`.
    pub fn role_name(&self, lang: Lang) -> String {
        let l = locale(lang);
        match self.who {
            Who::Producer(_) => td_string!(l, story.lineage.role.producer),
            Who::Relay(_) => td_string!(l, story.lineage.role.relay),
            Who::Broker => td_string!(l, story.lineage.role.broker),
            Who::Queue(_) => td_string!(l, story.lineage.role.queue),
            Who::Log(_) => td_string!(l, story.lineage.role.log),
            Who::Consumer(_) => td_string!(l, story.lineage.role.consumer),
            Who::Member(..) => td_string!(l, story.lineage.role.member),
            Who::Database => td_string!(l, story.lineage.role.database),
            Who::DeadLetters(_) => td_string!(l, story.lineage.role.dead_letters),
        }
        .to_string()
    }
}

/// How an arrow is drawn; failure paths look different in dash, colour, end marker and
/// text, so none of them relies on colour alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrowKind {
    /// The message moving on: solid line, filled head.
    Normal,
    /// An answer (confirm, ack): dashed line, open head.
    Reply,
    /// Something went wrong: red, short dashes, a cross at the end, "✗" in the label.
    Failure,
    /// An effect (or email) applied again: thick orange line, diamond head, "⚠" in the label.
    Duplicate,
}

impl ArrowKind {
    pub fn class(self) -> &'static str {
        match self {
            ArrowKind::Normal => "normal",
            ArrowKind::Reply => "reply",
            ArrowKind::Failure => "failure",
            ArrowKind::Duplicate => "duplicate",
        }
    }
}

/// One fact of a lineage: an arrow between two lifelines (the same one for a self-arrow),
/// a short label for the diagram and the full sentence for the list.
#[derive(Clone, Debug, PartialEq)]
pub struct LineageRow {
    pub step: u64,
    pub time_s: f64,
    pub lane: Lane,
    pub text: Bilingual,
    /// Indexes into [`Lineage::participants`].
    pub from: usize,
    pub to: usize,
    pub label: Bilingual,
    pub kind: ArrowKind,
}

/// A message's history up to a step.
#[derive(Clone, Debug, PartialEq)]
pub struct Lineage {
    pub msg: MsgId,
    /// The step the history runs to (the run's current step when it was built).
    pub upto_step: u64,
    /// The lifelines, left to right; only those some row uses.
    pub participants: Vec<Participant>,
    pub rows: Vec<LineageRow>,
    /// Facts about the message beyond [`LINEAGE_ROWS_MAX`], not listed.
    pub more: usize,
}

impl Lineage {
    /// How many decimals every instant of this history is written with: as few as tell
    /// its rows' instants apart exactly (milliseconds at most), and at least one, so one
    /// diagram never writes "1 s" beside "1,5 s".
    pub fn time_decimals(&self) -> usize {
        let needed = |s: f64| {
            let ms = (s * 1_000.0).round() as u64;
            match ms {
                _ if ms.is_multiple_of(100) => 1,
                _ if ms.is_multiple_of(10) => 2,
                _ => 3,
            }
        };
        self.rows
            .iter()
            .map(|r| needed(r.time_s))
            .max()
            .unwrap_or(1)
    }
}

/// A kept fact with what the replay knew when it happened.
struct Kept {
    step: u64,
    time_us: u64,
    fact: Fact,
    /// The consumer holding the message then (a retry is scheduled on its behalf).
    holder: Option<ConsumerId>,
}

/// Rebuilds the lineage of `msg` by re-simulating `sim`'s recorded run from its start up
/// to its current step, in one go (tests; the page goes through [`LineageBuild`]).
pub fn lineage(sim: &Simulation, msg: MsgId) -> Result<Lineage, Bilingual> {
    let start = Simulation::new(sim.scenario().clone()).map_err(|e| replay_failed(&e))?;
    let mut build = LineageBuild::start(start, sim.steps(), msg)?;
    while !build.go_on(|_| true) {}
    Ok(build.finish())
}

/// A lineage being built: the recorded run re-simulated from a state before the message
/// existed (the start, or a snapshot the player kept) up to a target step, a chunk at a
/// time so a long run never blocks the page. Refuses (with sentences for the page) to
/// replay more than [`LINEAGE_STEPS_MAX`] steps.
pub struct LineageBuild {
    msg: MsgId,
    target: u64,
    /// The step the replay started from.
    from_step: u64,
    replay: Simulation,
    kept: Vec<Kept>,
    more: usize,
    /// The consumer holding the message: its crash belongs to the history.
    holder: Option<ConsumerId>,
}

impl LineageBuild {
    /// Starts from `replay`, a state of the recorded run at or before step `target` in
    /// which `msg` was not created yet.
    pub fn start(replay: Simulation, target: u64, msg: MsgId) -> Result<Self, Bilingual> {
        let todo = target.saturating_sub(replay.steps());
        if todo > LINEAGE_STEPS_MAX {
            return Err(Bilingual::new(|lang| {
                let steps = LINEAGE_STEPS_MAX;
                td_string!(
                    locale(lang),
                    story.lineage.too_long,
                    target = target,
                    steps = steps,
                    msg = msg
                )
                .to_string()
            }));
        }
        Ok(Self {
            msg,
            target,
            from_step: replay.steps(),
            replay,
            kept: Vec::new(),
            more: 0,
            holder: None,
        })
    }

    /// The step the replay started from (0 when no snapshot could be used).
    pub fn from_step(&self) -> u64 {
        self.from_step
    }

    /// The message whose history this is.
    pub fn msg(&self) -> MsgId {
        self.msg
    }

    /// Re-simulates on; every [`BUDGET_CHECK_EVERY`] steps asks
    /// `more(steps)` whether it may go on. True once the target step is reached.
    pub fn go_on(&mut self, mut more: impl FnMut(u64) -> bool) -> bool {
        let mut steps = 0_u64;
        while self.replay.steps() < self.target {
            if steps > 0 && steps.is_multiple_of(BUDGET_CHECK_EVERY) && !more(steps) {
                return false;
            }
            let Some(step) = self.replay.step() else {
                break;
            };
            steps += 1;
            let (index, time_us) = (step.index, step.time_us);
            for fact in step.facts {
                keep(
                    self.msg,
                    &mut self.holder,
                    &mut self.kept,
                    &mut self.more,
                    index,
                    time_us,
                    fact,
                );
            }
        }
        true
    }

    /// The history, once [`LineageBuild::go_on`] said it is done.
    pub fn finish(self) -> Lineage {
        let replay = &self.replay;
        let mut cast = Cast::new(replay, &self.kept);
        let drawn: Vec<(Who, Who, Bilingual, ArrowKind)> =
            self.kept.iter().map(|k| cast.arrow(replay, k)).collect();
        let participants = cast.participants(replay, &drawn);
        let at = |who: Who| participants.iter().position(|p| p.who == who).unwrap_or(0);
        let rows = self
            .kept
            .iter()
            .zip(drawn)
            .map(|(k, (from, to, label, kind))| LineageRow {
                step: k.step,
                time_s: us_to_secs(k.time_us),
                lane: Lane::of(&k.fact),
                text: Bilingual::new(|lang| describe(replay, &k.fact, lang)),
                from: at(from),
                to: at(to),
                label,
                kind,
            })
            .collect();
        Lineage {
            msg: self.msg,
            upto_step: replay.steps(),
            participants,
            rows,
            more: self.more,
        }
    }
}

/// How often (in steps) a chunk of a build asks whether it may take more.
const BUDGET_CHECK_EVERY: u64 = 256;

/// Keeps `fact` if it is about `msg` (or about the consumer holding it), tracking the
/// holder as deliveries, acks, expiries and crashes come.
fn keep(
    msg: MsgId,
    holder: &mut Option<ConsumerId>,
    kept: &mut Vec<Kept>,
    more: &mut usize,
    step: u64,
    time_us: u64,
    fact: &Fact,
) {
    let held = *holder;
    let about = match *fact {
        Fact::Delivered {
            msg: m, consumer, ..
        } if m == msg => {
            *holder = Some(consumer);
            true
        }
        Fact::Acked { msg: m, .. } | Fact::LeaseExpired { msg: m, .. } if m == msg => {
            *holder = None;
            true
        }
        Fact::ConsumerCrashed { consumer, .. } if *holder == Some(consumer) => {
            *holder = None;
            true
        }
        _ => fact.msg() == Some(msg),
    };
    if !about {
        return;
    }
    if kept.len() < LINEAGE_ROWS_MAX {
        kept.push(Kept {
            step,
            time_us,
            fact: *fact,
            holder: held,
        });
    } else {
        *more += 1;
    }
}

/// Decides who each fact goes between.
struct Cast {
    /// Where publishes land: the only queue (or log) the message reached, else the broker.
    target: Who,
    /// Who publishes: the outbox relay when the producer uses one.
    publisher: Option<Who>,
    producer: Option<ProducerId>,
    /// The log the message was last appended to (group members read from it).
    log: Option<LogId>,
}

impl Cast {
    fn new(sim: &Simulation, kept: &[Kept]) -> Cast {
        let mut queues: Vec<QueueId> = Vec::new();
        let mut logs: Vec<LogId> = Vec::new();
        let mut producer = None;
        let mut outbox = false;
        for k in kept {
            match k.fact {
                Fact::Stored { queue, .. } | Fact::Refused { queue, .. }
                    if !queues.contains(&queue) =>
                {
                    queues.push(queue)
                }
                Fact::Appended { log, .. } if !logs.contains(&log) => logs.push(log),
                Fact::StateCommitted { outbox: true, .. } | Fact::OutboxMarked { .. } => {
                    outbox = true
                }
                _ => {}
            }
            if let Fact::Created { producer: p, .. } = k.fact {
                producer = Some(p);
            }
        }
        let producer = producer.or_else(|| {
            kept.iter().find_map(|k| match k.fact {
                Fact::PublishSent { producer, .. } | Fact::Stored { producer, .. } => {
                    Some(producer)
                }
                _ => None,
            })
        });
        // Messages never seen created (none in practice) fall back to the message table.
        let producer = producer.or_else(|| {
            kept.first()
                .and_then(|k| k.fact.msg())
                .and_then(|m| sim.message(m).map(|m| m.producer))
        });
        let target = match (queues.as_slice(), logs.as_slice()) {
            ([q], []) => Who::Queue(*q),
            ([], [l]) => Who::Log(*l),
            _ => Who::Broker,
        };
        Cast {
            target,
            publisher: producer.map(|p| {
                if outbox {
                    Who::Relay(p)
                } else {
                    Who::Producer(p)
                }
            }),
            producer,
            log: logs.last().copied(),
        }
    }

    fn producer(&self) -> Who {
        self.producer.map_or(Who::Broker, Who::Producer)
    }

    fn publisher(&self) -> Who {
        self.publisher.unwrap_or_else(|| self.producer())
    }

    fn log(&self) -> Who {
        self.log.map_or(Who::Broker, Who::Log)
    }

    /// The lifeline of a party in this message's story: the relay when the producer
    /// publishes through one, the queue or log the message landed in for the exchange, the
    /// consumer holding the copy then, the log last appended to for the log a group reads.
    fn who(&self, party: Party, k: &Kept) -> Option<Who> {
        Some(match party {
            Party::Producer(p) => Who::Producer(p),
            Party::Publisher(_) => self.publisher(),
            Party::Exchange => self.target,
            Party::Broker => Who::Broker,
            // A group's skip in a message's history happens on the log it was appended to.
            Party::Group(_) => self.log(),
            Party::Queue(q) => Who::Queue(q),
            Party::DeadLetters(q) => Who::DeadLetters(q),
            Party::Log(l) => Who::Log(l),
            Party::ReadLog(_) => self.log(),
            Party::Consumer(c) => Who::Consumer(c),
            Party::Holder => Who::Consumer(k.holder?),
            Party::Member(g, m) => Who::Member(g, m),
            Party::Database => Who::Database,
        })
    }

    /// (from, to, short label, style) of one fact: its parties ([`participants::of`]) as
    /// lifelines, and its label.
    fn arrow(&mut self, sim: &Simulation, k: &Kept) -> (Who, Who, Bilingual, ArrowKind) {
        if let Fact::Appended { log, .. } = k.fact {
            self.log = Some(log);
        }
        let label = Bilingual::new(|lang| self.label(k, locale(lang)));
        let Some(part) = participants::of(sim, &k.fact) else {
            // Facts a history does not draw yet: a note on the broker.
            return (Who::Broker, Who::Broker, label, ArrowKind::Normal);
        };
        let to = self.who(part.to, k).unwrap_or(Who::Broker);
        let from = match part.moves {
            // The publish arrow was drawn when it was sent: the copy is stored (or the
            // record appended) where the publish landed.
            Move::Publish => self.target,
            // The handler failed at the consumer; the nack is the retry scheduled after.
            Move::Nack => {
                let at = self.who(part.from, k).unwrap_or(to);
                return (at, at, label, ArrowKind::Failure);
            }
            _ => self.who(part.from, k).unwrap_or(to),
        };
        (from, to, label, style(part.moves))
    }

    /// The short label of a fact's arrow, in the locale `l`.
    fn label(&self, k: &Kept, l: Locale) -> String {
        producer_label(&k.fact, l)
            .or_else(|| self.publish_label(&k.fact, l))
            .or_else(|| queue_label(k, l))
            .or_else(|| consumer_label(&k.fact, l))
            .or_else(|| group_label(&k.fact, l))
            .unwrap_or_else(|| say!(l, other))
    }

    /// Where the publish landed: stored in its only queue, or routed to one of several.
    fn publish_label(&self, fact: &Fact, l: Locale) -> Option<String> {
        match *fact {
            Fact::Stored { queue, copy, .. } if self.target == Who::Queue(queue) => {
                Some(say!(l, stored, copy = copy))
            }
            Fact::Stored { copy, .. } => Some(say!(l, routed, copy = copy)),
            _ => None,
        }
    }

    /// The lifelines the arrows use, in path order (then order of appearance).
    fn participants(
        &self,
        sim: &Simulation,
        drawn: &[(Who, Who, Bilingual, ArrowKind)],
    ) -> Vec<Participant> {
        let mut seen: Vec<Who> = Vec::new();
        for (from, to, ..) in drawn {
            for who in [*from, *to] {
                if !seen.contains(&who) {
                    seen.push(who);
                }
            }
        }
        // Stable: same rank keeps the order of first appearance.
        seen.sort_by_key(|w| w.rank());
        seen.into_iter()
            .map(|who| {
                let (role, name) = head(sim, who);
                Participant { who, role, name }
            })
            .collect()
    }
}

/// A lifeline's role (its fixed name) and the name on its head: the scenario's name for
/// it, or words for one that has none.
fn head(sim: &Simulation, who: Who) -> (&'static str, Bilingual) {
    let named = |own: Option<String>, other: &dyn Fn(Locale) -> String| {
        Bilingual::new(|lang| own.clone().unwrap_or_else(|| other(locale(lang))))
    };
    let queue = |q: QueueId| {
        named(sim.queue(q).map(|v| v.name), &|l| {
            td_string!(l, story.lineage.name.queue, q = q).to_string()
        })
    };
    let producer = |p: ProducerId| {
        named(sim.producer_name(p).map(str::to_string), &|l| {
            td_string!(l, story.lineage.name.producer, p = p).to_string()
        })
    };
    match who {
        Who::Producer(p) => ("producer", producer(p)),
        Who::Relay(p) => ("outbox relay", producer(p)),
        Who::Broker => (
            "broker",
            named(None, &|l| {
                td_string!(l, story.lineage.name.exchange).to_string()
            }),
        ),
        Who::Queue(q) => ("queue", queue(q)),
        Who::Log(l) => ("log", named(Some(sim.log_name(l)), &|_| String::new())),
        Who::Consumer(c) => (
            "consumer",
            named(sim.consumer(c).map(|v| v.name), &|l| {
                td_string!(l, story.lineage.name.consumer, c = c).to_string()
            }),
        ),
        Who::Member(g, m) => (
            "group member",
            named(Some(sim.member_name(g, m)), &|_| String::new()),
        ),
        Who::Database => (
            "database",
            named(None, &|l| {
                td_string!(l, story.lineage.name.effects).to_string()
            }),
        ),
        Who::DeadLetters(q) => ("dead letters", queue(q)),
    }
}

/// How an arrow is drawn for a kind of move.
fn style(moves: Move) -> ArrowKind {
    match moves {
        Move::Plain | Move::Publish | Move::Deliver | Move::Redrive => ArrowKind::Normal,
        Move::Confirm | Move::Ack | Move::Answer => ArrowKind::Reply,
        Move::Failure | Move::Nack | Move::DeadLetter | Move::Loss => ArrowKind::Failure,
        Move::Duplicate | Move::Resent => ArrowKind::Duplicate,
    }
}

/// An instant or a delay in seconds, as the history's times are written
/// ([`crate::format::instant`]).
fn secs(s: f64, l: Locale) -> String {
    crate::format::instant(s, crate::i18n::lang(l))
}

/// The producer, its publishes and the broker's answers.
fn producer_label(fact: &Fact, l: Locale) -> Option<String> {
    use Fact::*;
    Some(match *fact {
        Created {
            key: Some(key),
            version,
            ..
        } => say!(l, created_key, key = key, version = version),
        Created { .. } => say!(l, created),
        StateCommitted { outbox: true, .. } => say!(l, state_outbox_committed),
        StateCommitted { .. } => say!(l, state_committed),
        PublishSent { attempt: 1, .. } => say!(l, publish),
        PublishSent { attempt, .. } => say!(l, publish_again, attempt = attempt),
        Throttled { .. } => say!(l, throttled),
        Buffered { .. } => say!(l, buffered),
        BufferDropped { crashed: false, .. } => say!(l, buffer_timed_out),
        BufferDropped { .. } => say!(l, buffer_lost),
        ConfirmTimedOut { retry: true, .. } => say!(l, confirm_timeout_retry),
        ConfirmTimedOut { .. } => say!(l, confirm_timeout_give_up),
        Confirmed { .. } => say!(l, confirm),
        ConfirmLost { .. } => say!(l, confirm_lost),
        OutboxMarked { .. } => say!(l, outbox_marked),
        OutboxRetryScheduled {
            attempt,
            ready_at_us,
            ..
        } => {
            let at = secs(us_to_secs(ready_at_us), l);
            say!(l, outbox_retry, attempt = attempt, at = at)
        }
        OutboxRowParked { attempts, .. } => say!(l, outbox_parked, attempts = attempts),
        EventNeverPublished { .. } => say!(l, never_published),
        Deduplicated { .. } => say!(l, deduplicated),
        Refused {
            because: RefusedBecause::QueueFull,
            ..
        } => say!(l, refused_full),
        Refused { .. } => say!(l, refused_too_old),
        PublishDenied { .. } => say!(l, publish_denied),
        Unroutable { returned: true, .. } => say!(l, unroutable_returned),
        Unroutable { .. } => say!(l, unroutable_dropped),
        PublishFailed { .. } => say!(l, publish_failed),
        OutOfSequence { .. } => say!(l, out_of_sequence),
        _ => return None,
    })
}

/// What happens to a copy in its queue.
fn queue_label(k: &Kept, l: Locale) -> Option<String> {
    use Fact::*;
    Some(match k.fact {
        DroppedOldest { .. } => say!(l, dropped_oldest),
        Expired { .. } => say!(l, expired),
        LeaseExpired { attempt, .. } => say!(l, lease_expired, attempt = attempt),
        RetryReady { .. } => say!(l, retry_ready),
        RetryScheduled {
            failures,
            ready_at_us,
            ..
        } => {
            let delay = secs(us_to_secs(ready_at_us.saturating_sub(k.time_us)), l);
            say!(l, nack_retry, delay = delay, failures = failures)
        }
        DeadLettered {
            reason, attempts, ..
        } => dead_letter_label(reason, attempts, l),
        Redriven { .. } => say!(l, redriven),
        MessageLost { reason, .. } => loss_label(reason, l),
        DuplicateKept { twin, .. } => say!(l, duplicate_kept, twin = twin),
        DedupWindowHit { .. } => say!(l, dedup_window_hit),
        _ => return None,
    })
}

fn dead_letter_label(reason: DeadLetterReason, attempts: u32, l: Locale) -> String {
    match reason {
        DeadLetterReason::RetriesExhausted => say!(l, dead_retries, attempts = attempts),
        DeadLetterReason::Poison(_) => say!(l, dead_poison),
        DeadLetterReason::DeliveryLimitReached => say!(l, dead_delivery_limit, attempts = attempts),
        DeadLetterReason::GapTimeout => say!(l, parked_gap_timeout),
        DeadLetterReason::MaxLength => say!(l, dead_max_length),
        DeadLetterReason::Expired => say!(l, dead_expired),
        DeadLetterReason::RetryBudgetExhausted => say!(l, dead_retry_budget),
        DeadLetterReason::TooOld => say!(l, dead_too_old),
    }
}

fn loss_label(reason: LossReason, l: Locale) -> String {
    match reason {
        LossReason::AckedBeforeEffectThenCrashed => say!(l, lost_acked_crashed),
        LossReason::AckedBeforeEffectThenFailed => say!(l, lost_acked_failed),
        LossReason::BrokerRestartNotDurable => say!(l, lost_not_persisted),
        LossReason::DiscardedWithoutDeadLetterQueue => say!(l, lost_no_dlq),
    }
}

fn failure_label(attempt: u32, failure: HandlerFailure, l: Locale) -> String {
    let what = match failure {
        HandlerFailure::Transient => say!(l, failure_transient),
        HandlerFailure::DependencyDown => say!(l, failure_dependency_down),
        HandlerFailure::Poison(_) => say!(l, failure_poison),
        HandlerFailure::BatchRolledBack => say!(l, failure_batch_rolled_back),
        HandlerFailure::DependencyTimeout => say!(l, failure_dependency_timeout),
        HandlerFailure::TooOld => say!(l, failure_too_old),
        HandlerFailure::CallRefused(why) => call_refusal(why, l),
    };
    say!(l, handler_failed, attempt = attempt, what = what)
}

/// Why a call to a dependency failed at once, in words.
fn call_refusal(why: CallRefusal, l: Locale) -> String {
    match why {
        CallRefusal::LineFull => say!(l, failure_line_full),
        CallRefusal::OldestTooOld => say!(l, failure_oldest_too_old),
        CallRefusal::Outage => say!(l, failure_outage),
        CallRefusal::CircuitOpen => say!(l, failure_circuit_open),
    }
}

/// A queue's consumers: deliveries, work, effects and answers.
fn consumer_label(fact: &Fact, l: Locale) -> Option<String> {
    use Fact::*;
    Some(match *fact {
        Delivered { attempt, .. } => say!(l, deliver, attempt = attempt),
        AckedOnDelivery { .. } => say!(l, acked_on_delivery),
        ProcessingStarted { attempt, .. } => say!(l, processing_starts, attempt = attempt),
        DuplicateSkipped { .. } => say!(l, duplicate_skipped),
        TakenForDuplicate { key, first, .. } => {
            say!(l, taken_for_duplicate, key = key, first = first.to_string())
        }
        UnauthorizedEffect { .. } => say!(l, unauthorized_effect),
        StaleIgnored {
            version, current, ..
        } => say!(l, stale_ignored, version = version, current = current),
        GapWait {
            version, current, ..
        } => say!(l, gap_wait, version = version, current = current),
        GapReconciled { from, to, .. } => say!(l, gap_reconciled, from = from, to = to),
        EffectCommitted { applied: 1, .. } => say!(l, effect_committed),
        EffectCommitted { applied, .. } => say!(l, duplicate_effect, applied = applied),
        EffectRefused { .. } => say!(l, refused_by_rule),
        HandlerFailed {
            attempt, failure, ..
        } => failure_label(attempt, failure, l),
        Acked { .. } => say!(l, ack),
        AckIgnored {
            why: IgnoredAck::StaleLease,
            ..
        } => say!(l, ack_ignored_stale),
        AckIgnored { .. } => say!(l, ack_ignored_settled),
        AckLost { .. } => say!(l, ack_lost),
        ConsumerCrashed { .. } => say!(l, consumer_crashed),
        Requeued { .. } => say!(l, requeued),
        LeaseExtended { .. } => say!(l, lease_extended),
        GapRecheck { ready_at_us, .. } => {
            let at = secs(us_to_secs(ready_at_us), l);
            say!(l, gap_recheck, at = at)
        }
        GapSkipped { current, .. } => say!(l, gap_skipped, version = current + 1),
        ConsumerEmailSent { times: 1, .. } => say!(l, email_sent),
        ConsumerEmailSent { times, .. } => say!(l, duplicate_email, times = times),
        DependencyCalled { ahead, .. } => say!(l, dep_called, ahead = ahead),
        DependencyAnswered { .. } => say!(l, dep_answered),
        CallTimedOut { .. } => say!(l, call_timed_out),
        WorkWasted { .. } => say!(l, work_wasted),
        CallRejected { why, .. } => {
            let why = call_refusal(why, l);
            say!(l, call_rejected, why = why)
        }
        RequestShed { .. } => say!(l, request_shed),
        RetryDenied { .. } => say!(l, retry_denied),
        _ => return None,
    })
}

/// Logs and the members of consumer groups.
fn group_label(fact: &Fact, l: Locale) -> Option<String> {
    use Fact::*;
    Some(match *fact {
        Appended {
            partition, offset, ..
        } => say!(l, appended, partition = partition, offset = offset),
        RecordStarted { offset, .. } => say!(l, record_started, offset = offset),
        RecordProcessed { applied: 0, .. } => say!(l, already_processed),
        RecordProcessed { applied: 1, .. } => say!(l, effect_committed),
        RecordProcessed { applied, .. } => say!(l, duplicate_effect, applied = applied),
        OutputWritten { offset, .. } => say!(l, output_written, offset = offset),
        EmailSent { times: 1, .. } => say!(l, email_sent),
        EmailSent { times, .. } => say!(l, duplicate_email, times = times),
        RecordFailed {
            attempt, failure, ..
        } => failure_label(attempt, failure, l),
        RecordRetrying {
            partition, attempt, ..
        } => say!(l, record_retrying, attempt = attempt, partition = partition),
        RecordDeadLettered { attempts, .. } => say!(l, record_dead_lettered, attempts = attempts),
        PollIntervalExceeded {
            interval_us,
            session_ends_at_us,
            ..
        } => {
            let s = secs(us_to_secs(interval_us), l);
            match session_ends_at_us {
                Some(_) => say!(l, poll_interval_passed_static, s = s),
                None => say!(l, poll_interval_passed, s = s),
            }
        }
        CommitFailed {
            in_session: true, ..
        } => say!(l, commit_failed_static),
        CommitFailed { .. } => say!(l, commit_failed),
        RecordEffectRefused { .. } => say!(l, refused_by_rule),
        RecordUnauthorizedEffect { .. } => say!(l, unauthorized_effect),
        // Unlike a queue's consumer, the member still sends its email and writes its
        // output record: only the effect on the database is lost.
        RecordTakenForDuplicate { key, first, .. } => {
            say!(
                l,
                record_taken_for_duplicate,
                key = key,
                first = first.to_string()
            )
        }
        RecordStaleIgnored {
            version, current, ..
        } => say!(l, stale_ignored, version = version, current = current),
        RecordsSkipped {
            why: SkipReason::CommittedBeforeProcessing,
            ..
        } => say!(l, skipped_committed_first),
        RecordsSkipped {
            why: SkipReason::ExpiredUnread,
            ..
        } => say!(l, skipped_expired_unread),
        RecordsSkipped {
            why: SkipReason::ResetToLatest,
            ..
        } => say!(l, skipped_reset_to_latest),
        RecordsSkipped {
            why: SkipReason::SeekOutOfRange,
            ..
        } => say!(l, skipped_seek_out_of_range),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::flights::{flight_of, touched, Node};
    use brokerlab_core::lang::Lang::En;
    use brokerlab_core::{examples, Scenario};

    #[test]
    fn one_history_writes_its_instants_with_one_number_of_decimals() {
        let mut l = lineage(&run_to_end("crash-after-commit"), MsgId::new(0)).expect("short run");
        let at = |l: &mut Lineage, times: &[f64]| {
            for (row, &t) in l.rows.iter_mut().zip(times) {
                row.time_s = t;
            }
            l.rows.truncate(times.len());
            l.time_decimals()
        };
        assert_eq!(at(&mut l, &[1.0, 1.0]), 1);
        assert_eq!(at(&mut l, &[1.0, 1.5]), 1);
        assert_eq!(at(&mut l, &[1.0, 1.25, 1.5]), 2);
        assert_eq!(at(&mut l, &[1.0, 1.2504]), 2);
        assert_eq!(at(&mut l, &[0.001]), 3);
    }

    fn run_to_end(name: &str) -> Simulation {
        let mut sim = Simulation::new(examples::load(name).expect("built in")).expect("valid");
        while sim.step().is_some() {}
        sim
    }

    /// log-retention with `auto_offset_reset: latest`: the first record the reset passes
    /// (#11, still retained) ends its history skipped, in both languages.
    #[test]
    fn a_record_passed_by_a_reset_to_latest_ends_its_history_skipped() {
        let mut s = examples::load("log-retention").expect("built in");
        s.groups[0].auto_offset_reset = brokerlab_core::OffsetReset::Latest;
        let mut sim = Simulation::new(s).expect("valid");
        while sim.step().is_some() {}
        let l = lineage(&sim, MsgId::new(11)).expect("short run");
        let last = l.rows.last().expect("rows");
        assert_eq!(
            last.label.get(En),
            "✗ skipped: the group reset to the log end"
        );
        assert_eq!(
            last.label.get(brokerlab_core::lang::Lang::Es),
            "✗ saltado: el grupo saltó al final del log"
        );
    }

    /// A record a group's inbox keyed by the entity takes for a duplicate: at the member,
    /// as a failure, with a label of its own (not a queue consumer's "work lost"): only
    /// its effect on the database is never applied. With `email` and `output`, the email
    /// and the output record still go out, after it.
    fn taken_by_a_group(email: bool, output: bool) -> Lineage {
        let mut s = examples::load("inbox-key-scope").expect("built in");
        let mut group = serde_json::json!({
            "name": "by-account", "log": "payments", "members": 1,
            "service": { "fixed": { "seconds": 0.5 } }, "commit": "after_processing",
            "idempotency": "inbox", "inbox_key": "entity"
        });
        if email {
            group["sends_email"] = serde_json::json!(true);
        }
        if output {
            group["output"] = serde_json::json!("receipts");
        }
        s.exchanges.clear();
        s.queues.clear();
        s.consumers.clear();
        s.commands.clear();
        s.logs = serde_json::from_value(serde_json::json!([
            { "name": "payments", "partitions": 1 },
            { "name": "receipts", "partitions": 1 }
        ]))
        .expect("logs");
        s.groups = serde_json::from_value(serde_json::json!([group])).expect("groups");
        let mut sim = Simulation::new(s).expect("valid");
        while sim.step().is_some() {}
        lineage(&sim, MsgId::new(1)).expect("short run")
    }

    #[test]
    fn a_record_taken_for_a_duplicate_by_a_group_is_labelled_as_a_lost_effect() {
        let l = taken_by_a_group(false, false);
        let taken = l.rows.last().expect("rows");
        assert!(
            taken.text.get(En).contains("keyed by the entity"),
            "{}",
            taken.text.get(En)
        );
        assert_eq!(taken.lane, Lane::Consumer);
        assert_eq!(
            taken.label.get(En),
            "taken for a duplicate of #0 (same key 42 in the inbox): effect never applied"
        );
        assert_eq!(
            taken.label.get(brokerlab_core::lang::Lang::Es),
            "tomado por duplicado de #0 (la misma clave 42 en el inbox): su efecto nunca se aplica"
        );
        assert!(
            !l.rows.iter().any(|r| r.lane == Lane::Database),
            "never applied"
        );
    }

    /// The email and the output record of a record a group takes for a duplicate still
    /// go out after the label that says only the effect is lost; nothing in the history
    /// calls its work lost.
    #[test]
    fn a_record_a_group_takes_for_a_duplicate_still_sends_its_email_and_output() {
        let l = taken_by_a_group(true, true);
        let labels: Vec<&str> = l.rows.iter().map(|r| r.label.get(En)).collect();
        let at = |prefix: &str| {
            labels
                .iter()
                .position(|x| x.starts_with(prefix))
                .unwrap_or_else(|| panic!("no {prefix:?} in {labels:?}"))
        };
        let taken = at("taken for a duplicate of #0");
        assert!(labels[taken].ends_with(": effect never applied"));
        assert!(at("email sent") > taken, "{labels:?}");
        assert!(at("output written") > taken, "{labels:?}");
        assert!(
            !labels.iter().any(|x| x.contains("work lost")),
            "{labels:?}"
        );
        // The output record sits in the database's lane; no effect does.
        assert!(
            !labels.iter().any(|x| x.contains("effect committed")),
            "never applied: {labels:?}"
        );
    }

    /// A seek past the log end with `auto_offset_reset: latest`: the first record it
    /// passes unread (#3) ends its history skipped, saying why, in both languages.
    #[test]
    fn a_record_passed_by_a_seek_out_of_range_ends_its_history_skipped() {
        let s = Scenario::from_json(
            r#"{
            "version": 4, "name": "seek-range", "seed": 1,
            "producers": [{ "name": "p", "target": "orders", "count": 9,
                "arrivals": { "process": "constant", "schedule": [{ "from_s": 0, "rate_per_s": 2 }] } }],
            "logs": [{ "name": "orders", "partitions": 1 }],
            "groups": [{ "name": "g", "log": "orders", "members": 1, "auto_offset_reset": "latest",
                "service": { "fixed": { "seconds": 1 } }, "commit": "after_processing" }],
            "commands": [{ "at_s": 3.2, "command": { "seek_to": { "group": 0, "offset": 1000 } } }],
            "end_s": 30
        }"#,
        )
        .expect("valid");
        let mut sim = Simulation::new(s).expect("valid");
        while sim.step().is_some() {}
        let l = lineage(&sim, MsgId::new(3)).expect("short run");
        let last = l.rows.last().expect("rows");
        assert_eq!(
            last.label.get(En),
            "✗ skipped: the seek was out of range and the group reset to the log end"
        );
        assert_eq!(
            last.label.get(brokerlab_core::lang::Lang::Es),
            "✗ saltado: el seek estaba fuera de rango y el grupo saltó al final del log"
        );
    }

    #[test]
    fn crash_after_commit_tells_commit_crash_expiry_redelivery_commit_ack() {
        let sim = run_to_end("crash-after-commit");
        let l = lineage(&sim, MsgId::new(0)).expect("short run");
        assert_eq!(l.upto_step, sim.steps());
        let texts: Vec<&str> = l.rows.iter().map(|r| r.text.get(En)).collect();
        let find = |from: usize, pred: &dyn Fn(&LineageRow) -> bool| {
            l.rows[from..]
                .iter()
                .position(pred)
                .map(|i| i + from)
                .unwrap_or_else(|| panic!("missing after {from}: {texts:#?}"))
        };
        let commit = find(0, &|r| r.lane == Lane::Database);
        let crash = find(commit, &|r| r.text.get(En).contains("crash"));
        let expiry = find(crash, &|r| r.text.get(En).contains("lease"));
        let again = find(expiry, &|r| r.text.get(En).contains("attempt 2"));
        let commit2 = find(again, &|r| r.lane == Lane::Database);
        let _ack = find(commit2, &|r| r.text.get(En).contains("ack"));
        assert!(l.rows.windows(2).all(|w| w[0].step <= w[1].step));
    }

    #[test]
    fn crash_after_commit_draws_two_deliveries_and_a_duplicate_effect_between_four_lifelines() {
        let sim = run_to_end("crash-after-commit");
        let l = lineage(&sim, MsgId::new(0)).expect("short run");
        let heads: Vec<(&str, &str)> = l
            .participants
            .iter()
            .map(|p| (p.role, p.name.get(En)))
            .collect();
        assert_eq!(
            heads,
            [
                ("producer", "orders"),
                ("queue", "orders"),
                ("consumer", "C1"),
                ("database", "effects")
            ]
        );
        let (producer, queue, consumer, db) = (0, 1, 2, 3);
        let arrows: Vec<(usize, usize, &str, ArrowKind)> = l
            .rows
            .iter()
            .map(|r| (r.from, r.to, r.label.get(En), r.kind))
            .collect();
        use ArrowKind::*;
        assert_eq!(
            arrows,
            [
                (producer, producer, "created", Normal),
                (producer, queue, "publish", Normal),
                (queue, queue, "stored · copy 0", Normal),
                (queue, consumer, "deliver · attempt 1", Normal),
                (consumer, consumer, "processing starts · attempt 1", Normal),
                (consumer, db, "effect committed", Normal),
                (consumer, consumer, "✗ consumer crashed", Failure),
                (
                    queue,
                    queue,
                    "✗ lease expired (attempt 1): visible again",
                    Failure
                ),
                (queue, consumer, "deliver · attempt 2", Normal),
                (consumer, consumer, "processing starts · attempt 2", Normal),
                (consumer, db, "⚠ DUPLICATE effect: applied 2×", Duplicate),
                (consumer, queue, "ack", Reply),
            ]
        );
        // The list says the same rows in full sentences, in the same order.
        assert!(
            l.rows[10].text.get(En).contains("applied 2 times"),
            "{:?}",
            l.rows[10].text
        );
        assert!(l.rows.windows(2).all(|w| w[0].time_s <= w[1].time_s));
    }

    #[test]
    fn a_history_is_told_in_spanish_too_with_the_same_arrows() {
        use brokerlab_core::lang::Lang::Es;
        let sim = run_to_end("crash-after-commit");
        let l = lineage(&sim, MsgId::new(0)).expect("short run");
        let labels: Vec<&str> = l.rows.iter().map(|r| r.label.get(Es)).collect();
        assert_eq!(labels[1], "publicar", "{labels:?}");
        assert_eq!(labels[10], "⚠ efecto DUPLICADO: aplicado 2×", "{labels:?}");
        assert_eq!(l.participants[3].name.get(Es), "efectos");
        assert_eq!(l.participants[3].role_name(Es), "base de datos");
        assert_eq!(l.participants[2].name.get(Es), "C1", "a name is a name");
        for r in &l.rows {
            assert_ne!(r.text.get(Es), r.text.get(En), "each fact told in Spanish");
        }
        let too_long = LineageBuild::start(
            Simulation::new(sim.scenario().clone()).expect("ok"),
            LINEAGE_STEPS_MAX + 1,
            MsgId::new(0),
        );
        let problem = too_long.err().expect("refused");
        assert!(
            problem.get(Es).starts_with("Esta ejecución va por el paso"),
            "{problem:?}"
        );
    }

    #[test]
    fn a_fanout_publish_goes_through_the_exchange_to_each_queue_and_its_consumer() {
        let sim = run_to_end("fanout-subscriptions");
        let l = lineage(&sim, MsgId::new(0)).expect("short run");
        let roles: Vec<&str> = l.participants.iter().map(|p| p.role).collect();
        assert_eq!(roles[..2], ["producer", "broker"], "{roles:?}");
        let queues = roles.iter().filter(|r| **r == "queue").count();
        let stored: Vec<&LineageRow> = l
            .rows
            .iter()
            .filter(|r| r.label.get(En).starts_with("routed"))
            .collect();
        assert!(queues >= 2, "{roles:?}");
        assert_eq!(stored.len(), queues);
        assert!(stored.iter().all(|r| r.from == 1 && r.to >= 2));
        // Each delivery leaves the queue the copy is in.
        for r in l
            .rows
            .iter()
            .filter(|r| r.label.get(En).starts_with("deliver"))
        {
            assert_eq!(l.participants[r.from].role, "queue");
            assert_eq!(l.participants[r.to].role, "consumer");
        }
    }

    #[test]
    fn retries_dead_letters_and_redrives_use_the_dead_letter_lifeline_and_failure_arrows() {
        let sim = run_to_end("retries-dlq-redrive");
        let dead = (0..sim.messages().len() as u64)
            .find(|&m| {
                let l = lineage(&sim, MsgId::new(m)).expect("short run");
                l.rows.iter().any(|r| {
                    r.label
                        .get(En)
                        .contains("dead-lettered: failed every attempt")
                }) && l.rows.iter().any(|r| r.label.get(En) == "redriven")
            })
            .expect("a message retried, dead-lettered and redriven");
        let l = lineage(&sim, MsgId::new(dead)).expect("short run");
        let dlq = l
            .participants
            .iter()
            .position(|p| p.role == "dead letters")
            .expect("a dead-letter lifeline");
        assert_eq!(dlq, l.participants.len() - 1, "rightmost");
        let to_dlq = l.rows.iter().find(|r| r.to == dlq).expect("an arrow to it");
        assert_eq!(to_dlq.kind, ArrowKind::Failure);
        assert!(l
            .rows
            .iter()
            .any(|r| r.from == dlq && r.label.get(En) == "redriven"));
        let retry = l
            .rows
            .iter()
            .find(|r| r.label.get(En).contains("retry in"))
            .expect("a retry");
        assert_eq!(retry.kind, ArrowKind::Failure);
        assert_eq!(l.participants[retry.from].role, "consumer");
        assert_eq!(l.participants[retry.to].role, "queue");
    }

    #[test]
    fn a_lost_confirm_is_a_failure_arrow_back_to_the_producer_then_a_second_publish() {
        let sim = run_to_end("lost-confirm");
        let l = lineage(&sim, MsgId::new(0)).expect("short run");
        assert_eq!(l.participants[0].role, "producer");
        let lost = l
            .rows
            .iter()
            .position(|r| r.label.get(En) == "✗ confirm lost")
            .expect("a lost confirm");
        assert_eq!((l.rows[lost].from, l.rows[lost].to), (1, 0));
        assert_eq!(l.rows[lost].kind, ArrowKind::Failure);
        let timeout = l.rows[lost..]
            .iter()
            .find(|r| r.label.get(En).starts_with("✗ no confirm in time"))
            .expect("a timeout");
        assert_eq!((timeout.from, timeout.to), (0, 0));
        assert!(l.rows[lost..]
            .iter()
            .any(|r| r.label.get(En) == "publish again · attempt 2" && (r.from, r.to) == (0, 1)));
    }

    #[test]
    fn an_outbox_producer_publishes_through_its_relay_lifeline() {
        let sim = run_to_end("outbox-relay-crash");
        let l = lineage(&sim, MsgId::new(0)).expect("short run");
        let roles: Vec<&str> = l.participants.iter().map(|p| p.role).collect();
        assert_eq!(
            roles[..3],
            ["producer", "outbox relay", "queue"],
            "{roles:?}"
        );
        let publishes: Vec<&LineageRow> = l
            .rows
            .iter()
            .filter(|r| r.label.get(En).starts_with("publish"))
            .collect();
        assert_eq!(publishes.len(), 2);
        assert!(publishes.iter().all(|r| (r.from, r.to) == (1, 2)));
        assert!(l
            .rows
            .iter()
            .any(|r| r.label.get(En) == "outbox row marked sent"));
    }

    /// The card of the diagram a lifeline stands for.
    fn card(who: Who) -> Node {
        match who {
            Who::Producer(p) | Who::Relay(p) => Node::Producer(p),
            Who::Broker => Node::Broker,
            Who::Queue(q) => Node::Queue(q),
            Who::Log(l) => Node::Log(l),
            Who::Consumer(c) => Node::Consumer(c),
            Who::Member(g, _) => Node::Group(g),
            Who::Database => Node::Database,
            Who::DeadLetters(q) => Node::Dlq(q),
        }
    }

    #[test]
    fn tokens_highlights_and_arrows_agree_on_who_took_part_in_every_example() {
        let mut checked = 0;
        for name in examples::message_by_message() {
            let mut sim = Simulation::new(examples::load(name).expect("built in")).expect("ok");
            let mut facts = Vec::new();
            while sim.steps() < 3_000 && sim.step().is_some() {}
            let start = Simulation::new(sim.scenario().clone()).expect("valid");
            for msg in 0..(sim.messages().len() as u64).min(12) {
                let mut build =
                    LineageBuild::start(start.clone(), sim.steps(), MsgId::new(msg)).expect("ok");
                while !build.go_on(|_| true) {}
                let kept: Vec<Fact> = build.kept.iter().map(|k| k.fact).collect();
                let rows = build.finish();
                facts.extend(kept.iter().zip(rows.rows).map(|(f, r)| {
                    let who = |i: usize| rows.participants[i].who;
                    (*f, who(r.to))
                }));
            }
            for (fact, to) in facts {
                let mut touched_cards = Vec::new();
                touched(&sim, &fact, &mut touched_cards);
                let Some(token) = flight_of(&sim, &fact) else {
                    continue;
                };
                // The narrated step outlines the cards its token flies between...
                assert!(
                    touched_cards.contains(&token.from) && touched_cards.contains(&token.to),
                    "{name}: {fact:?} flies {token:?}, outlines {touched_cards:?}"
                );
                // ...and the history's arrow ends at one of them.
                assert!(
                    [token.from, token.to].contains(&card(to)),
                    "{name}: {fact:?} flies {token:?}, drawn to {to:?}"
                );
                checked += 1;
            }
        }
        assert!(checked > 500, "{checked}");
    }

    #[test]
    fn every_fact_in_a_history_has_its_own_arrow_label() {
        // A fact with no label is drawn as "(other)": a history that says nothing.
        for name in examples::message_by_message() {
            let mut sim = Simulation::new(examples::load(name).expect("built in")).expect("ok");
            while sim.steps() < 3_000 && sim.step().is_some() {}
            let start = Simulation::new(sim.scenario().clone()).expect("valid");
            for msg in 0..(sim.messages().len() as u64).min(12) {
                let mut build =
                    LineageBuild::start(start.clone(), sim.steps(), MsgId::new(msg)).expect("ok");
                while !build.go_on(|_| true) {}
                let kept: Vec<Fact> = build.kept.iter().map(|k| k.fact).collect();
                let rows = build.finish();
                for (fact, row) in kept.iter().zip(&rows.rows) {
                    assert_ne!(row.label.get(En), "(other)", "{name}, #{msg}: {fact:?}");
                }
            }
        }
    }

    #[test]
    fn an_outbox_row_that_is_refused_shows_its_retry_in_the_history() {
        let scenario = brokerlab_core::Scenario::from_json(include_str!(
            "../../core/tests/repro/semantics/outbox-publish-refused.json"
        ))
        .expect("valid");
        let mut sim = Simulation::new(scenario).expect("valid");
        while sim.step().is_some() {}
        let start = Simulation::new(sim.scenario().clone()).expect("valid");
        let retried = (0..sim.messages().len() as u64).find_map(|msg| {
            let mut build =
                LineageBuild::start(start.clone(), sim.steps(), MsgId::new(msg)).expect("ok");
            while !build.go_on(|_| true) {}
            let rows = build.finish().rows;
            rows.iter()
                .find(|r| r.label.get(En).contains("row kept"))
                .map(|r| (r.lane, r.kind, r.label.get(En).to_string()))
        });
        let (lane, kind, label) = retried.expect("some row was retried");
        assert_eq!(
            (lane, kind),
            (Lane::Producer, ArrowKind::Failure),
            "{label}"
        );
        assert!(label.starts_with("✗ not confirmed (attempt 1): row kept, again at "));
        assert!(
            label.ends_with("again at 1.533 s"),
            "to the millisecond, as the narration writes it: {label}"
        );
    }

    #[test]
    fn a_lineage_stops_at_the_current_step_and_ignores_other_messages() {
        let mut sim = Simulation::new(examples::load("burst").expect("built in")).expect("valid");
        for _ in 0..200 {
            sim.step();
        }
        let l = lineage(&sim, MsgId::new(3)).expect("short run");
        assert_eq!(l.upto_step, 200);
        assert!(!l.rows.is_empty());
        assert!(l.rows.iter().all(|r| r.step <= 200));
        assert!(l.rows.iter().all(|r| !r.text.get(En).contains("#30")));
        let none = lineage(&sim, MsgId::new(999_999)).expect("short run");
        assert!(none.rows.is_empty());
    }
}
