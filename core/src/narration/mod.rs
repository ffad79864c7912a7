//! One sentence per fact, in English or Spanish, for the CLI trace and the page's
//! narration, event log and message lineage. Names come from the simulation (producer,
//! queue, consumer, log, group and member names, never translated); messages are written
//! `#id`.
//!
//! This module says which family a fact belongs to and holds what both languages share
//! (reading the simulation, writing seconds); `en` and `es` word each family.

mod en;
mod es;

use crate::lang::Lang;
use crate::scenario::{Flavour, Handoff};
use crate::sim::Simulation;
use crate::step::{ConsumerId, Fact, ProducerId, QueueId};
use crate::time::{us_to_secs, Micros};

/// Describes a fact in one sentence in `lang`.
pub fn describe(sim: &Simulation, fact: &Fact, lang: Lang) -> String {
    let family = Family::of(fact);
    match lang {
        // A name ending in s takes a bare apostrophe ("payments' dead-letter queue"): the
        // sentences write `{}'s` after a name, and the only other "s's" they could hold is
        // in a name the user typed, where the same spelling is as good.
        Lang::En => en::describe(sim, fact, family).replace("s's ", "s' "),
        Lang::Es => es::describe(sim, fact, family),
    }
}

/// The families of facts; each language words one family in one function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    /// A producer creates, commits and publishes.
    Publishing,
    /// The broker's answer to a producer, and an outbox relay's bookkeeping.
    Confirms,
    /// What the broker does with a publish: store, refuse, route, drop, deduplicate.
    Broker,
    /// Messages that leave their queue for good: dead-lettered or lost.
    DeadLetters,
    /// Deliveries, leases and retries between a queue and its consumers.
    Deliveries,
    /// Acks and what becomes of them.
    Acks,
    /// A queue consumer's handler, its database and its side effects.
    Processing,
    /// Per-key versions: stale versions, gaps and how they close.
    KeyOrder,
    /// An operator's changes: settings, scaling, deploys, outages.
    Operations,
    /// A producer's crash, its restart, a lost confirm.
    ProducerCrashes,
    /// The broker's and the queue consumers' crashes, restarts and slowdowns.
    Crashes,
    /// Log records: appended, expired, processed, committed, skipped.
    Records,
    /// A group member's outputs, transactions and emails.
    Transactions,
    /// A group member's handler failing on a record, and what follows.
    RecordFailures,
    /// Consumer groups handing partitions over.
    Rebalances,
    /// Group members crashing and joining, and groups rewinding.
    Members,
    /// Handlers calling a dependency: calls, answers, timeouts, wasted work, shedding,
    /// the retry budget and the circuit breaker.
    Dependencies,
}

impl Family {
    /// The family of `fact`.
    // Long but flat: it names every fact once and has no `_` arm, so the compiler points
    // here when a fact is added.
    fn of(fact: &Fact) -> Family {
        use Fact::*;
        match fact {
            Created { .. }
            | StateCommitted { .. }
            | PublishSent { .. }
            | Throttled { .. }
            | Buffered { .. }
            | BufferDropped { .. }
            | EventNeverPublished { .. }
            | RequestRefused { .. } => Family::Publishing,
            ConfirmTimedOut { .. }
            | Confirmed { .. }
            | ConfirmLost { .. }
            | OutboxMarked { .. }
            | OutboxRetryScheduled { .. }
            | OutboxRowParked { .. } => Family::Confirms,
            Stored { .. }
            | Deduplicated { .. }
            | Refused { .. }
            | PublishDenied { .. }
            | Unroutable { .. }
            | PublishFailed { .. }
            | OutOfSequence { .. }
            | DroppedOldest { .. }
            | Expired { .. }
            | DuplicateKept { .. }
            | DedupWindowHit { .. }
            | Redriven { .. } => Family::Broker,
            DeadLettered { .. } | MessageLost { .. } => Family::DeadLetters,
            Delivered { .. }
            | LeaseExpired { .. }
            | RetryReady { .. }
            | Requeued { .. }
            | LeaseExtended { .. }
            | RetryScheduled { .. } => Family::Deliveries,
            AckedOnDelivery { .. } | Acked { .. } | AckIgnored { .. } | AckLost { .. } => {
                Family::Acks
            }
            ProcessingStarted { .. }
            | DuplicateSkipped { .. }
            | EffectCommitted { .. }
            | EffectRefused { .. }
            | HandlerFailed { .. }
            | ConsumerEmailSent { .. }
            | TakenForDuplicate { .. }
            | UnauthorizedEffect { .. } => Family::Processing,
            StaleIgnored { .. }
            | GapWait { .. }
            | GapReconciled { .. }
            | GapRecheck { .. }
            | GapSkipped { .. } => Family::KeyOrder,
            SettingChanged { .. }
            | ConsumerAdded { .. }
            | ConsumerStopping { .. }
            | ConsumerStopped { .. }
            | AckModeSwitched { .. }
            | DependencyDown { .. }
            | FixDeployed { .. }
            | RedriveStarted { .. } => Family::Operations,
            ProducerCrashArmed { .. }
            | ProducerCrashed { .. }
            | ProducerRestarted { .. }
            | ConfirmDropArmed { .. } => Family::ProducerCrashes,
            BrokerCrashed { .. }
            | BrokerRestarted { .. }
            | CrashArmed { .. }
            | AckDropArmed { .. }
            | ConsumerFaultCalledOff { .. }
            | CommandMoot { .. }
            | ConsumerCrashed { .. }
            | ConsumerRestarted { .. }
            | ConsumerSlowed { .. } => Family::Crashes,
            Appended { .. }
            | RecordsExpired { .. }
            | RecordStarted { .. }
            | RecordProcessed { .. }
            | RecordUnauthorizedEffect { .. }
            | RecordTakenForDuplicate { .. }
            | OffsetCommitted { .. }
            | RecordsSkipped { .. } => Family::Records,
            OutputWritten { .. }
            | TransactionCommitted { .. }
            | TransactionAborted { .. }
            | TransactionLeftOpen { .. }
            | TransactionTimedOut { .. }
            | TransactionFenced { .. }
            | ControlRecordWritten { .. }
            | AbortedSkipped { .. }
            | EmailSent { .. } => Family::Transactions,
            RecordFailed { .. }
            | RecordRetrying { .. }
            | RecordDeadLettered { .. }
            | RecordEffectRefused { .. }
            | RecordStaleIgnored { .. } => Family::RecordFailures,
            RebalanceStarted { .. }
            | PartitionAssigned { .. }
            | PartitionRevoked { .. }
            | PartitionReleased { .. }
            | StaleWorkInProgress { .. } => Family::Rebalances,
            MemberCrashArmed { .. }
            | MemberCrashed { .. }
            | MemberSessionTimedOut { .. }
            | PollIntervalExceeded { .. }
            | CommitFailed { .. }
            | MemberJoined { .. }
            | GroupRewound { .. }
            | SeekOutOfRange { .. }
            | SkipUndone { .. } => Family::Members,
            DependencyCalled { .. }
            | DependencyAnswered { .. }
            | CallTimedOut { .. }
            | WorkWasted { .. }
            | CallRejected { .. }
            | RequestShed { .. }
            | RetryDenied { .. }
            | BreakerOpened { .. }
            | BreakerHalfOpen { .. }
            | BreakerClosed { .. }
            | DependencySlowed { .. } => Family::Dependencies,
        }
    }
}

/// `number` (already written with a decimal point, as `format!` does) with the decimal
/// separator of `lang`: "1.500" stays in English and becomes "1,500" in Spanish.
fn decimals(number: String, lang: Lang) -> String {
    match lang.decimal() {
        '.' => number,
        sep => number.replace('.', &sep.to_string()),
    }
}

/// An instant or a duration in seconds, to the millisecond and no further than it needs,
/// as the page writes numbers: "1.5 s", "11 s", "86,400 s" ("1,5 s", "11 s", "86.400 s").
/// Trailing zeros are left out so a Spanish "11,000 s" is never read as eleven thousand.
fn secs(t: Micros, lang: Lang) -> String {
    let text = crate::lang::number(us_to_secs(t), 3, lang);
    let text = match text.split_once(lang.decimal()) {
        Some((whole, fraction)) => match fraction.trim_end_matches('0') {
            "" => whole.to_string(),
            fraction => format!("{whole}{}{fraction}", lang.decimal()),
        },
        None => text,
    };
    format!("{text} s")
}

/// `n` things, the noun in the singular for one: "1 delivery", "4 deliveries", "4,977
/// requests" ("1 intento", "3 intentos", "4.977 peticiones").
fn counted(lang: Lang, n: impl Into<u64>, one: &str, many: &str) -> String {
    match n.into() {
        1 => format!("1 {one}"),
        n => format!("{} {many}", whole(lang, n)),
    }
}

/// A count grouped as the page writes it: "4,977" ("4.977"). Ids, offsets and partitions
/// are names, not amounts, and stay as they are.
fn whole(lang: Lang, n: impl Into<u64>) -> String {
    crate::lang::grouped(&n.into().to_string(), lang.thousands())
}

/// `from` up to `to` (excluded) of something numbered, named `one` when it is a single
/// number and `many` otherwise: "offset 4", "offsets 4–6" ("el offset 4", "los offsets
/// 4–6").
fn span(one: &str, many: &str, from: u64, to: u64) -> String {
    let last = to.saturating_sub(1).max(from);
    if last == from {
        format!("{one} {from}")
    } else {
        format!("{many} {from}–{last}")
    }
}

/// The name of consumer `c`; `word` names a consumer in the sentence's language, for an
/// id the simulation does not know.
fn consumer(sim: &Simulation, c: ConsumerId, word: &str) -> String {
    sim.consumer(c)
        .map_or_else(|| format!("{word} {c}"), |v| v.name)
}

/// The name of producer `p` (`word` as for [`consumer`]).
fn producer(sim: &Simulation, p: ProducerId, word: &str) -> String {
    sim.producer_name(p)
        .map_or_else(|| format!("{word} {p}"), str::to_string)
}

/// Where producer `p` publishes: its target's name (by default the first queue, or the
/// first log when there is none).
fn target(sim: &Simulation, p: ProducerId) -> String {
    let s = sim.scenario();
    let given = s
        .producers
        .get(p.index())
        .map_or("", |spec| spec.target.as_str());
    if !given.is_empty() {
        return given.to_string();
    }
    let first = s.queues.first().map(|q| &q.name);
    first
        .or(s.logs.first().map(|l| &l.name))
        .cloned()
        .unwrap_or_default()
}

/// The name of queue `q` (`word` as for [`consumer`]).
fn queue(sim: &Simulation, q: QueueId, word: &str) -> String {
    sim.queue(q)
        .map_or_else(|| format!("{word} {q}"), |v| v.name)
}

/// The name of dependency `d` (`word` as for [`consumer`]).
fn dependency(sim: &Simulation, d: u32, word: &str) -> String {
    sim.dependency(d)
        .map_or_else(|| format!("{word} {d}"), |v| v.name)
}

/// When something a sentence announces is due: within the run, or after its last instant
/// (its end time, or the ten-year limit of a run without one). The run never shows what
/// is due after it, so a sentence must not promise it at a time the run never reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Due {
    At(Micros),
    AfterEnd,
}

/// When `at` is due in `sim`'s run.
fn due(sim: &Simulation, at: Micros) -> Due {
    if at > sim.horizon_us() {
        Due::AfterEnd
    } else {
        Due::At(at)
    }
}

/// Thousandths as a plain number in `lang`: 2500 is "2.5" ("2,5").
fn milli(x: u64, lang: Lang) -> String {
    decimals(format!("{}", x as f64 / 1_000.0), lang)
}

/// Whether producer `p` hands its messages off through an outbox.
fn has_outbox(sim: &Simulation, p: ProducerId) -> bool {
    sim.scenario()
        .producers
        .get(p.index())
        .is_some_and(|s| matches!(s.handoff, Handoff::Outbox { .. }))
}

/// Whether producer `p`'s relay mints a new id for every publish attempt.
fn mints_ids(sim: &Simulation, p: ProducerId) -> bool {
    sim.scenario().producers.get(p.index()).is_some_and(|s| {
        matches!(
            s.handoff,
            Handoff::Outbox {
                stable_ids: false,
                ..
            }
        )
    })
}

/// The flavour of the queue a consumer reads. Asked of the consumer, not the copy: the
/// event log tells facts whose copies the run has since released.
fn flavour_read_by(sim: &Simulation, consumer: ConsumerId) -> Option<Flavour> {
    sim.consumer(consumer)
        .and_then(|c| sim.queue(c.queue))
        .map(|q| q.flavour)
}

/// Whether the consumer reads an SQS queue (standard or FIFO): its ack is a delete, and a
/// received message stays hidden until its visibility timeout whatever the broker does.
fn is_sqs(sim: &Simulation, consumer: ConsumerId) -> bool {
    matches!(
        flavour_read_by(sim, consumer),
        Some(Flavour::Sqs | Flavour::SqsFifo)
    )
}

/// Whether the consumer reads a RabbitMQ queue: its deliveries are held by its channel,
/// not by leases, and go back to the queue the moment the channel closes.
fn reads_rabbitmq(sim: &Simulation, consumer: ConsumerId) -> bool {
    flavour_read_by(sim, consumer) == Some(Flavour::Rabbitmq)
}

/// Whether `copy` waits in a RabbitMQ queue. RabbitMQ has no lease: what a lease does
/// elsewhere, its consumer timeout does.
fn is_rabbitmq(sim: &Simulation, copy: u64) -> bool {
    sim.copy(copy)
        .and_then(|c| sim.queue(c.queue))
        .is_some_and(|q| q.flavour == Flavour::Rabbitmq)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_of_something_is_named_in_the_singular() {
        assert_eq!(
            counted(Lang::En, 1_u32, "delivery", "deliveries"),
            "1 delivery"
        );
        assert_eq!(
            counted(Lang::En, 4_u32, "delivery", "deliveries"),
            "4 deliveries"
        );
        assert_eq!(counted(Lang::Es, 0_u64, "vez", "veces"), "0 veces");
        assert_eq!(
            counted(Lang::En, 4977_u64, "request", "requests"),
            "4,977 requests"
        );
        assert_eq!(
            counted(Lang::Es, 4977_u64, "petición", "peticiones"),
            "4.977 peticiones"
        );
    }

    #[test]
    fn seconds_take_each_language_decimal_separator() {
        assert_eq!(secs(1_500_000, Lang::En), "1.5 s");
        assert_eq!(secs(1_500_000, Lang::Es), "1,5 s");
        assert_eq!(secs(61_000_250, Lang::Es), "61 s");
        assert_eq!(secs(61_012_250, Lang::Es), "61,012 s");
        assert_eq!(secs(10_000_000, Lang::En), "10 s");
        assert_eq!(secs(86_400_100_000, Lang::En), "86,400.1 s");
        assert_eq!(secs(86_400_000_000, Lang::Es), "86.400 s");
        assert_eq!(secs(250, Lang::En), "0 s");
        assert_eq!(secs(1_000, Lang::En), "0.001 s");
        assert_eq!(decimals("2.5".to_string(), Lang::Es), "2,5");
        assert_eq!(decimals("3".to_string(), Lang::Es), "3");
    }
}
