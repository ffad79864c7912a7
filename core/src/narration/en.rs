//! The narration in English: one plain sentence per fact.

use super::{
    counted, due, has_outbox, is_rabbitmq, is_sqs, mints_ids, reads_rabbitmq, whole, Due, Family,
};
use crate::lang::Lang;
use crate::scenario::{
    AckMode, ArrivalProcess, CrashPoint, Flavour, Idempotency, OffsetReset, Ordering, Overflow,
    Poison, ProducerCrashPoint, Rebalance,
};
use crate::sim::Simulation;
use crate::step::{
    ArmedFaults, CallRefusal, ConsumerId, DeadLetterReason, DuplicateSeen, Fact, Failure,
    IgnoredAck, LossReason, Moot, ProducerId, QueueId, RefusedBecause, Setting, SkipReason,
    Trigger,
};
use crate::time::Micros;

/// Describes `fact`, of `family`, in a sentence.
pub(super) fn describe(sim: &Simulation, fact: &Fact, family: Family) -> String {
    let describe_family = match family {
        Family::Publishing => publishing,
        Family::Confirms => confirms,
        Family::Broker => broker,
        Family::DeadLetters => dead_letters,
        Family::Deliveries => deliveries,
        Family::Acks => acks,
        Family::Processing => processing,
        Family::KeyOrder => key_order,
        Family::Operations => operations,
        Family::ProducerCrashes => producer_crashes,
        Family::Crashes => crashes,
        Family::Records => records,
        Family::Transactions => transactions,
        Family::RecordFailures => record_failures,
        Family::Rebalances => rebalances,
        Family::Members => members,
        Family::Dependencies => dependencies,
    };
    describe_family(sim, fact)
}

fn consumer(sim: &Simulation, c: ConsumerId) -> String {
    super::consumer(sim, c, "consumer")
}

fn producer(sim: &Simulation, p: ProducerId) -> String {
    super::producer(sim, p, "producer")
}

fn queue(sim: &Simulation, q: QueueId) -> String {
    super::queue(sim, q, "queue")
}

fn secs(t: Micros) -> String {
    super::secs(t, Lang::En)
}

fn by(trigger: Trigger) -> &'static str {
    match trigger {
        Trigger::Scheduled => "as scheduled",
        Trigger::User => "on your command",
        Trigger::AfterCrash => "by itself, after its crash",
        Trigger::Unannounced => "unannounced",
    }
}

fn poison_text(p: Poison) -> &'static str {
    match p {
        Poison::MalformedPayload => "its payload is malformed",
        Poison::UnknownSchemaVersion => "its schema version is unknown",
        Poison::UnauthorizedTenant => "its tenant is not authorised",
    }
}

fn failure_text(f: Failure) -> &'static str {
    match f {
        Failure::Transient => "a transient error",
        Failure::DependencyDown => "a dependency is down",
        Failure::Poison(kind) => poison_text(kind),
        Failure::BatchRolledBack => "another message in its batch failed",
        Failure::DependencyTimeout => "its call to a dependency timed out",
        Failure::TooOld => "it was created longer ago than the handler's replay window",
        Failure::CallRefused(why) => refusal_text(why),
    }
}

/// A crashed group member that stays in its group until its session times out.
fn session_text(sim: &Simulation, ends: Option<Micros>) -> String {
    match ends.map(|t| due(sim, t)) {
        None => String::new(),
        Some(Due::At(t)) => format!(
            " Its partitions stay its own, unread, until its session times out at {}.",
            secs(t)
        ),
        Some(Due::AfterEnd) => " Its partitions stay its own, unread, to the end: its session would time out after the run ends.".to_string(),
    }
}

fn restart_text(sim: &Simulation, at: Option<Micros>) -> String {
    match at.map(|t| due(sim, t)) {
        // Nothing restarts it by itself; a command may (scheduled, or the user's).
        None => " It stays down until a restart.".to_string(),
        Some(Due::At(t)) => format!(" It will restart at {}.", secs(t)),
        Some(Due::AfterEnd) => {
            " It stays down to the end: its restart would come after the run ends.".to_string()
        }
    }
}

/// An outbox relay's restart, with its service's.
fn both_restart_text(sim: &Simulation, at: Option<Micros>) -> String {
    match at.map(|t| due(sim, t)) {
        None => " Both stay down until a restart.".to_string(),
        Some(Due::At(t)) => format!(" Both will restart at {}.", secs(t)),
        Some(Due::AfterEnd) => {
            " Both stay down to the end: their restart would come after the run ends.".to_string()
        }
    }
}

fn ack_text(ack: AckMode) -> &'static str {
    match ack {
        AckMode::OnDelivery => "on delivery, before the effect (a crash loses work)",
        AckMode::AfterCommit => "after the effect commits (a crash means a redelivery)",
    }
}

fn idempotency_text(i: Idempotency) -> &'static str {
    match i {
        Idempotency::None => "no duplicate check",
        Idempotency::CheckThenInsert => "check, then insert a processed mark",
        Idempotency::Inbox => "an inbox row with a unique key, in the effect's transaction",
    }
}

fn ordering_text(o: Ordering) -> &'static str {
    match o {
        Ordering::None => "apply each version of a key as its handler finishes, in any order",
        Ordering::IgnoreStale => "skip a version of a key that is not newer than the one applied",
        Ordering::WaitForGap => {
            "hold back a version of a key until its predecessor has been applied"
        }
        Ordering::Reconcile => {
            "on a gap, catch up on the missing versions from the source of truth first"
        }
    }
}

fn flavour_text(f: Flavour) -> &'static str {
    match f {
        Flavour::Generic => {
            "the generic broker's rules (leases, lease expiries counted as failed attempts)"
        }
        Flavour::Rabbitmq => {
            "RabbitMQ's rules (no lease: unacked messages return when a consumer's channel closes)"
        }
        Flavour::Sqs => {
            "SQS standard rules (visibility timeout, maxReceiveCount, at-least-once delivery)"
        }
        Flavour::SqsFifo => {
            "SQS FIFO rules (one message in flight per group, a deduplication window)"
        }
    }
}

fn overflow_text(o: Overflow) -> &'static str {
    match o {
        Overflow::Reject => "refuse new publishes",
        Overflow::DropOldest => "drop the oldest waiting message",
        Overflow::Throttle => "hold producers back",
    }
}

/// What a changed setting now is, as the start of a sentence.
fn setting_text(sim: &Simulation, setting: Setting) -> String {
    match setting {
        Setting::Arrivals {
            producer,
            process,
            rate_milli_per_s,
        } => {
            let how = match process {
                ArrivalProcess::Constant => "evenly spaced",
                ArrivalProcess::Poisson => "at random (Poisson)",
            };
            format!(
                "{} now publishes {} messages per second, {how}",
                sim.producer_name(producer).unwrap_or("the producer"),
                rate_milli_per_s as f64 / 1_000.0
            )
        }
        Setting::GroupOrdering { group, ordering } => format!(
            "Group {} now {}",
            sim.group_name(group),
            ordering_text(ordering)
        ),
        Setting::Partitions { log, partitions } => format!(
            "{} now has {partitions} partitions: keys hash over all of them, so a key's next records may go to another partition than its earlier ones, and its groups rebalance",
            sim.log_name(log)
        ),
        Setting::ServiceTime { .. }
        | Setting::Consumers { .. }
        | Setting::Prefetch { .. }
        | Setting::AckMode { .. }
        | Setting::Idempotency { .. }
        | Setting::Ordering { .. }
        | Setting::Retry { .. } => consumer_setting_text(sim, setting),
        Setting::VisibilityTimeout { .. }
        | Setting::ConsumerTimeout { .. }
        | Setting::QueueBound { .. }
        | Setting::Flavour { .. } => queue_setting_text(sim, setting),
        Setting::DependencyCapacity { .. }
        | Setting::DependencyTimeout { .. }
        | Setting::RetryBudget { .. }
        | Setting::Breaker { .. }
        | Setting::Admission { .. } => dependency_setting_text(sim, setting),
    }
}

/// A changed setting of a queue's consumers, as the start of a sentence.
fn consumer_setting_text(sim: &Simulation, setting: Setting) -> String {
    match setting {
        Setting::ServiceTime {
            queue: q,
            mean_us,
            exponential,
        } => format!(
            "The consumers of {} now take {} per message{}",
            queue(sim, q),
            secs(mean_us),
            if exponential { " on average" } else { "" }
        ),
        Setting::Consumers { queue: q, count } => {
            format!("The consumers of {} are scaled to {count}", queue(sim, q))
        }
        Setting::Prefetch { queue: q, prefetch } => format!(
            "The consumers of {} now hold at most {} unfinished deliveries each (prefetch)",
            queue(sim, q),
            whole(Lang::En, prefetch)
        ),
        Setting::AckMode { queue: q, ack } => format!(
            "The consumers of {} switch to acking {} as soon as they hold nothing",
            queue(sim, q),
            ack_text(ack)
        ),
        Setting::Idempotency {
            queue: q,
            idempotency,
        } => format!(
            "The consumers of {} now guard against duplicates with {}",
            queue(sim, q),
            idempotency_text(idempotency)
        ),
        Setting::Ordering { queue: q, ordering } => format!(
            "The consumers of {} now {}",
            queue(sim, q),
            ordering_text(ordering)
        ),
        Setting::Retry {
            queue: q,
            max_attempts,
            backoff_base_us,
        } => format!(
            "The consumers of {} now try each message at most {}, backing off from {}",
            queue(sim, q),
            counted(Lang::En, max_attempts, "time", "times"),
            secs(backoff_base_us)
        ),
        _ => unreachable!("setting_text sends only consumer settings here, not {setting:?}"),
    }
}

/// A changed setting of a queue itself, as the start of a sentence.
fn queue_setting_text(sim: &Simulation, setting: Setting) -> String {
    match setting {
        Setting::VisibilityTimeout { queue: q, lease_us } => format!(
            "Deliveries from {} now stay invisible for {} before they are offered again",
            queue(sim, q),
            secs(lease_us)
        ),
        Setting::ConsumerTimeout {
            queue: q,
            timeout_us,
        } => format!(
            "{} now takes back a delivery left unacked for {} (its consumer timeout)",
            queue(sim, q),
            secs(timeout_us)
        ),
        Setting::QueueBound {
            queue: q,
            max_length,
            overflow,
        } => match max_length {
            Some(n) => format!(
                "{} now holds at most {} messages; when full it will {}",
                queue(sim, q),
                whole(Lang::En, n),
                overflow_text(overflow)
            ),
            None => format!("{} is now unbounded", queue(sim, q)),
        },
        Setting::Flavour { queue: q, flavour } => {
            format!("{} now follows {}", queue(sim, q), flavour_text(flavour))
        }
        _ => unreachable!("setting_text sends only queue settings here, not {setting:?}"),
    }
}

/// A producer creates, commits and publishes.
fn publishing(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        Created { producer: p, msg, key, version, poison } => {
            let what = match (key, poison) {
                // Well-formed, so only a handler that checks the source's authority
                // can tell: it is poison to that handler, and an effect to one that trusts.
                (Some(k), Some(Poison::UnauthorizedTenant)) => format!(
                    " for key {k} (version {version}) — well-formed, but its tenant is not authorised"
                ),
                (_, Some(kind)) => format!(" — a poison message: {}", poison_text(kind)),
                (Some(k), None) => format!(" for key {k} (version {version})"),
                (None, None) => String::new(),
            };
            format!("{} created message #{msg}{what}.", producer(sim, p))
        }
        StateCommitted { producer: p, msg, outbox: true } => format!(
            "{} committed its state and the outbox row for #{msg} in one transaction: the request is accepted.",
            producer(sim, p)
        ),
        StateCommitted { producer: p, msg, outbox: false } => format!(
            "{} committed its state for #{msg}; publishing the event is a separate step.",
            producer(sim, p)
        ),
        PublishSent { producer: p, msg, attempt: 1 } => format!("{} published #{msg} to the broker.", producer(sim, p)),
        PublishSent { producer: p, msg, attempt } if mints_ids(sim, p) => format!(
            "{} published #{msg} again (attempt {attempt}), under a new id: consumers cannot tell it is the same event.",
            producer(sim, p)
        ),
        PublishSent { producer: p, msg, attempt } => {
            format!("{} published #{msg} again (attempt {attempt}), with the same id.", producer(sim, p))
        }
        Throttled { producer: p, msg, queue: q } => {
            format!("{} holds #{msg} back: {} is full (backpressure).", producer(sim, p), queue(sim, q))
        }
        Buffered { producer: p, msg, expires_at_us } => format!(
            "The broker is down: {} keeps #{msg} in its buffer and will send it when the broker is back{}.",
            producer(sim, p),
            match due(sim, expires_at_us) {
                Due::At(t) => format!(", if that is by {} (its delivery timeout)", secs(t)),
                Due::AfterEnd => String::new(),
            }
        ),
        BufferDropped { producer: p, msg, crashed: false } => format!(
            "{} dropped #{msg} from its buffer: its delivery timeout ran out before the broker was back, so it was never stored.",
            producer(sim, p)
        ),
        BufferDropped { producer: p, msg, crashed: true } => format!(
            "{} crashed with #{msg} still in its buffer: it is gone, never stored.",
            producer(sim, p)
        ),
        EventNeverPublished { producer: p, msg } => format!(
            "{} crashed after committing its state and before publishing #{msg}: the state changed but no event will ever say so.",
            producer(sim, p)
        ),
        RequestRefused { producer: p } => format!("A request reached {} while it was down and was turned away.", producer(sim, p)),
        _ => unreachable!("describe sends only publishing facts here, not {fact:?}"),
    }
}

/// The broker's answer to a producer, and an outbox relay's bookkeeping.
fn confirms(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        ConfirmTimedOut { producer: p, msg, retry: true, .. } => format!(
            "{} heard no confirm for #{msg} in time: it cannot tell whether the broker has it, so it will publish again.",
            producer(sim, p)
        ),
        ConfirmTimedOut { producer: p, msg, retry: false, .. } => {
            format!("{} heard no confirm for #{msg} and has no attempts left.", producer(sim, p))
        }
        Confirmed { producer: p, msg, .. } => format!(
            "The broker confirmed #{msg} to {}: it took responsibility for it (this says nothing about consumers).",
            producer(sim, p)
        ),
        ConfirmLost { producer: p, msg, .. } => {
            format!("The broker stored #{msg}, but its confirm to {} was lost on the way.", producer(sim, p))
        }
        OutboxMarked { producer: p, msg } => format!("{}'s relay marked the outbox row of #{msg} as sent.", producer(sim, p)),
        OutboxRetryScheduled { producer: p, msg, attempt, ready_at_us } => {
            let again = match due(sim, ready_at_us) {
                Due::At(t) => format!("it will publish it again from {}", secs(t)),
                Due::AfterEnd => "it would publish it again after the run ends".to_string(),
            };
            format!(
                "{}'s relay keeps the outbox row of #{msg}: attempt {attempt} was not confirmed, so {again} (backoff).",
                producer(sim, p)
            )
        }
        OutboxRowParked { producer: p, msg, attempts } => format!(
            "{}'s relay has used up its publish attempts on #{msg} ({attempts}): its outbox row stays, unsent, for an operator; the request is still pending, not lost.",
            producer(sim, p)
        ),
        _ => unreachable!("describe sends only confirm facts here, not {fact:?}"),
    }
}

/// What the broker does with a publish: store, refuse, route, drop, deduplicate.
fn broker(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        Stored { msg, queue: q, .. } => format!("The broker stored #{msg} in {}.", queue(sim, q)),
        Deduplicated { producer: p, msg } => format!(
            "The broker already had #{msg} from {} (same producer id and sequence): the retry was dropped, not stored twice.",
            producer(sim, p)
        ),
        Refused { producer: p, msg, queue: q, because: RefusedBecause::QueueFull, told: true } => {
            format!("{} is full: the broker refused #{msg} and told {} (a nack for the whole publish).", queue(sim, q), producer(sim, p))
        }
        Refused { producer: p, msg, queue: q, because: RefusedBecause::QueueFull, told: false } => format!(
            "{} is full: the broker discarded #{msg}, and without publisher confirms nobody told {}.",
            queue(sim, q),
            producer(sim, p)
        ),
        Refused { producer: p, msg, queue: q, because: RefusedBecause::OldestTooOld, .. } => format!(
            "Admission control: the oldest message in {} is too old, so #{msg} from {} was refused.",
            queue(sim, q),
            producer(sim, p)
        ),
        PublishDenied { producer: p, msg, .. } => format!(
            "The broker refused #{msg}: {} may not publish to {} (access refused), so nothing was stored and it was told.",
            producer(sim, p),
            super::target(sim, p)
        ),
        Unroutable { producer: p, msg, returned: true } => {
            format!("#{msg} matched no binding and was returned to {} (mandatory).", producer(sim, p))
        }
        Unroutable { msg, returned: false, .. } => {
            format!("#{msg} matched no binding and was dropped silently, though the broker accepted the publish.")
        }
        PublishFailed { producer: p, msg, .. } => {
            format!("{} published #{msg}, but the broker is down: nothing was stored.", producer(sim, p))
        }
        OutOfSequence { producer: p, msg, log, partition, ahead, .. } => format!(
            "The broker refused #{msg} from {0} as out of sequence: {1} partition {partition} appends a producer's records in the order it sent them, and #{ahead} is not stored yet. {0} will send #{msg} again after it.",
            producer(sim, p),
            sim.log_name(log)
        ),
        DroppedOldest { msg, queue: q, .. } => format!("{} was full: it dropped its oldest message, #{msg}.", queue(sim, q)),
        Expired { msg, queue: q, .. } => format!("#{msg} waited too long in {} and expired unprocessed.", queue(sim, q)),
        Redriven { msg, queue: q, .. } => {
            format!("#{msg} was redriven from the dead-letter queue back into {}, keeping its id.", queue(sim, q))
        }
        DuplicateKept { msg, queue: q, .. } => format!(
            "{} handed out #{msg} but kept another copy of it visible (at-least-once delivery): it will be delivered again.",
            queue(sim, q)
        ),
        DedupWindowHit { producer: p, msg, queue: q } => format!(
            "{} already stored #{msg} within its deduplication window: the publish from {} was accepted and not stored again.",
            queue(sim, q),
            producer(sim, p)
        ),
        _ => unreachable!("describe sends only broker facts here, not {fact:?}"),
    }
}

/// Messages that leave their queue for good: dead-lettered or lost.
fn dead_letters(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        DeadLettered { msg, queue: q, reason: DeadLetterReason::RetriesExhausted, attempts, .. } => format!(
            "#{msg} failed every allowed attempt ({}) and moved to {}'s dead-letter queue, with its history.",
            counted(Lang::En, attempts, "delivery", "deliveries"),
            queue(sim, q)
        ),
        DeadLettered { msg, queue: q, reason: DeadLetterReason::Poison(kind), .. } => format!(
            "#{msg} can never succeed ({}): it skipped the retries and moved to {}'s dead-letter queue.",
            poison_text(kind),
            queue(sim, q)
        ),
        DeadLettered { msg, queue: q, reason: DeadLetterReason::DeliveryLimitReached, attempts, .. } => format!(
            "#{msg} reached its delivery limit after {} without an ack and moved to {}'s dead-letter queue instead of being delivered again.",
            counted(Lang::En, attempts, "delivery", "deliveries"),
            queue(sim, q)
        ),
        DeadLettered { msg, queue: q, reason: DeadLetterReason::GapTimeout, .. } => format!(
            "#{msg} waited too long for its predecessor (gap timeout): it was parked in {}'s dead-letter queue.",
            queue(sim, q)
        ),
        DeadLettered { msg, queue: q, reason: DeadLetterReason::MaxLength, .. } => format!(
            "{} was full: it dropped #{msg} from its head into its dead-letter queue.",
            queue(sim, q)
        ),
        DeadLettered { msg, queue: q, reason: DeadLetterReason::Expired, .. } => format!(
            "#{msg} waited too long in {} and expired into its dead-letter queue.",
            queue(sim, q)
        ),
        DeadLettered { msg, queue: q, reason: DeadLetterReason::TooOld, .. } => format!(
            "#{msg} is older than {}'s consumer accepts (its replay window): waiting would only make it older, so it skipped the retries and moved to the dead-letter queue.",
            queue(sim, q)
        ),
        DeadLettered { msg, queue: q, reason: DeadLetterReason::RetryBudgetExhausted, .. } => format!(
            "#{msg} failed while the retry budget was spent: instead of a retry it moved to {}'s dead-letter queue.",
            queue(sim, q)
        ),
        MessageLost { msg, reason, .. } => format!("#{msg} is lost: {}.", loss_text(reason)),
        _ => unreachable!("describe sends only dead letters facts here, not {fact:?}"),
    }
}

fn loss_text(reason: LossReason) -> &'static str {
    match reason {
        LossReason::AckedBeforeEffectThenCrashed => {
            "it was acked on delivery and its consumer crashed before the effect committed"
        }
        LossReason::AckedBeforeEffectThenFailed => {
            "it was acked on delivery and then its handler failed"
        }
        LossReason::BrokerRestartNotDurable => {
            "the broker crashed without persisting it, so nobody will deliver it again"
        }
        LossReason::DiscardedWithoutDeadLetterQueue => {
            "it failed for good and there is no dead-letter queue"
        }
    }
}

/// Deliveries, leases and retries between a queue and its consumers.
fn deliveries(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        Delivered { msg, attempt: 1, consumer: c, lease_until_us: Some(until), .. } => match due(sim, until) {
            Due::At(until) => format!(
                "The broker delivered #{msg} to {}; it stays hidden until {} unless acked.",
                consumer(sim, c),
                secs(until)
            ),
            Due::AfterEnd => format!(
                "The broker delivered #{msg} to {}; its lease outlasts the run, so unless acked it stays hidden to the end.",
                consumer(sim, c)
            ),
        },
        Delivered { msg, attempt, consumer: c, lease_until_us, .. } => {
            let again = if attempt > 1 { format!(" again (attempt {attempt})") } else { String::new() };
            let lease = match lease_until_us.map(|u| due(sim, u)) {
                None => String::new(),
                Some(Due::At(u)) => format!("; hidden until {}", secs(u)),
                Some(Due::AfterEnd) => "; hidden to the end (its lease outlasts the run)".to_string(),
            };
            format!("The broker delivered #{msg}{again} to {}{lease}.", consumer(sim, c))
        }
        LeaseExpired { msg, copy, attempt, consumer: c } if is_rabbitmq(sim, copy) => format!(
            "{} kept #{msg} (attempt {attempt}) unacked past the consumer timeout: the broker closed its channel and put #{msg} back in line to be redelivered, with every other delivery it held unacked.",
            consumer(sim, c)
        ),
        LeaseExpired { msg, attempt, consumer: c, .. } => format!(
            "The lease of #{msg} (attempt {attempt}, held by {}) ran out with no ack: it is visible again and will be redelivered.",
            consumer(sim, c)
        ),
        RetryReady { msg, .. } => format!("#{msg} is visible again and back in line."),
        RetryScheduled { msg, failures, ready_at_us, .. } => match due(sim, ready_at_us) {
            Due::At(t) => format!("#{msg} will be retried at {} (failure {failures}, exponential backoff).", secs(t)),
            Due::AfterEnd => {
                format!("#{msg} would be retried after the run ends (failure {failures}, exponential backoff).")
            }
        },
        Requeued { msg, attempt, consumer: c, .. } => format!(
            "{}'s channel closed with #{msg} unacked (attempt {attempt}): the broker put it back in line at once, marked redelivered.",
            consumer(sim, c)
        ),
        LeaseExtended { msg, consumer: c, lease_until_us, .. } => {
            let to = match due(sim, lease_until_us) {
                Due::At(t) => format!("to {}", secs(t)),
                Due::AfterEnd => "past the run's end".to_string(),
            };
            format!(
                "{} is still working on #{msg} and extended its lease {to} (a visibility heartbeat).",
                consumer(sim, c)
            )
        }
        _ => unreachable!("describe sends only delivery facts here, not {fact:?}"),
    }
}

/// Acks and what becomes of them.
fn acks(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        AckedOnDelivery { msg, consumer: c, .. } => format!(
            "{} acked #{msg} on receipt: the broker forgot it before any work was done.",
            consumer(sim, c)
        ),
        Acked { msg, consumer: c, twin_held: false, .. } => {
            format!("{} acked #{msg}; the broker removed it for good.", consumer(sim, c))
        }
        Acked { msg, consumer: c, twin_held: true, .. } => format!(
            "{} acked #{msg}; the broker deleted this copy, but another copy of it (an at-least-once duplicate) is still in the queue and will be handled again.",
            consumer(sim, c)
        ),
        AckIgnored { msg, consumer: c, why: IgnoredAck::StaleLease, .. } => format!(
            "{} acked #{msg} too late: the broker had already taken that delivery back, so the ack changed nothing.",
            consumer(sim, c)
        ),
        AckIgnored { msg, consumer: c, why: IgnoredAck::AlreadyDone, .. } => {
            format!("{} acked #{msg}, which another delivery had already settled.", consumer(sim, c))
        }
        AckLost { msg, consumer: c, broker_down: true, .. } if is_sqs(sim, c) => format!(
            "{}'s delete of #{msg} never reached SQS, which is down: #{msg} stays hidden until its visibility timeout runs out, then it is delivered again.",
            consumer(sim, c)
        ),
        AckLost { msg, consumer: c, broker_down: true, .. } => format!(
            "{}'s ack for #{msg} never reached the broker, which is down: it put #{msg} back in line as it went down, to deliver it again once it is back.",
            consumer(sim, c)
        ),
        AckLost { msg, copy, consumer: c, .. } if is_rabbitmq(sim, copy) => format!(
            "{}'s ack for #{msg} never reached the broker: it stays unacked until the consumer's channel closes or its consumer timeout runs out, then it is delivered again.",
            consumer(sim, c)
        ),
        AckLost { msg, consumer: c, .. } => format!(
            "{}'s ack for #{msg} never reached the broker: when the lease runs out it will be delivered again.",
            consumer(sim, c)
        ),
        _ => unreachable!("describe sends only ack facts here, not {fact:?}"),
    }
}

/// A queue consumer's handler, its database and its side effects.
fn processing(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        ProcessingStarted { msg, attempt, consumer: c, done_at_us, .. } => {
            let finish = match due(sim, done_at_us) {
                Due::At(t) => format!("it will finish at {}", secs(t)),
                Due::AfterEnd => "it would finish after the run ends".to_string(),
            };
            format!("{} started processing #{msg} (attempt {attempt}); {finish}.", consumer(sim, c))
        }
        DuplicateSkipped { msg, consumer: c, seen: DuplicateSeen::CheckFoundMark, .. } => {
            format!("{} found #{msg} already marked as processed and skipped it.", consumer(sim, c))
        }
        DuplicateSkipped { msg, consumer: c, seen: DuplicateSeen::InboxConflict, .. } => format!(
            "{} tried to record #{msg} in its inbox, hit the unique key, and rolled back: no second effect.",
            consumer(sim, c)
        ),
        TakenForDuplicate { msg, consumer: c, key, first, .. } => format!(
            "{} tried to record #{msg} in its inbox, which is keyed by the entity: key {key} already has a row, from #{first}, a different message. It rolled back and treats #{msg} as handled: its work is never done (lost).",
            consumer(sim, c)
        ),
        UnauthorizedEffect { msg, consumer: c, producer: p, .. } => format!(
            "{} trusts whatever the broker delivers, so it never checked that {} may ask for #{msg}: its tenant is not authorised, and the effect is in the database anyway (unauthorised effect).",
            consumer(sim, c),
            producer(sim, p)
        ),
        EffectCommitted { msg, consumer: c, applied: 1, .. } => {
            format!("{} committed the effect of #{msg} in the database.", consumer(sim, c))
        }
        EffectCommitted { msg, consumer: c, applied, .. } => format!(
            "{} committed the effect of #{msg} again: it has now been applied {applied} times (duplicate).",
            consumer(sim, c)
        ),
        EffectRefused { msg, consumer: c, key, .. } => format!(
            "{} refused #{msg}: the balance of key {key} is too low for that withdrawal.",
            consumer(sim, c)
        ),
        HandlerFailed { msg, consumer: c, failure, attempt, .. } => {
            let why = match failure {
                Failure::BatchRolledBack => "another message in its batch failed, so the whole batch rolled back",
                other => failure_text(other),
            };
            format!("{}'s handler failed on #{msg} (attempt {attempt}): {why}.", consumer(sim, c))
        }
        ConsumerEmailSent { msg, consumer: c, times: 1, .. } => {
            format!("{} sent the email for #{msg}.", consumer(sim, c))
        }
        ConsumerEmailSent { msg, consumer: c, times, .. } => format!(
            "{} sent the email for #{msg} again ({times} in all): the email is outside the transaction and nothing recognised the duplicate.",
            consumer(sim, c)
        ),
        _ => unreachable!("describe sends only processing facts here, not {fact:?}"),
    }
}

/// Per-key versions at a queue consumer: stale versions, gaps and how they close.
fn key_order(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        StaleIgnored { msg, consumer: c, key, version, current, .. } => format!(
            "{} ignored #{msg}: version {version} of key {key} is not newer than the applied version {current}.",
            consumer(sim, c)
        ),
        GapWait { msg, consumer: c, key, version, current, .. } => format!(
            "{} holds #{msg} back: key {key} is at version {current}, so version {version} must wait for its predecessor.",
            consumer(sim, c)
        ),
        GapReconciled { msg, consumer: c, key, from, to, .. } => format!(
            "{} found a gap before #{msg}: it read {} of key {key} from the source of truth and applied {} first.",
            consumer(sim, c),
            super::span("version", "versions", u64::from(from), u64::from(to) + 1),
            if from == to { "it" } else { "them" }
        ),
        GapRecheck { msg, consumer: c, ready_at_us, gives_up_at_us, .. } => match due(sim, ready_at_us) {
            Due::At(t) => format!(
                "#{msg} waits, unfailed, for its predecessor: {} looks again at {}, and stops waiting at its first look from {} on.",
                consumer(sim, c),
                secs(t),
                secs(gives_up_at_us)
            ),
            Due::AfterEnd => format!(
                "#{msg} waits, unfailed, for its predecessor to the end: {} would look again after the run ends.",
                consumer(sim, c)
            ),
        },
        GapSkipped { msg, consumer: c, key, version, current, .. } => format!(
            "{} gave up waiting for version {} of key {key} and applies #{msg} (version {version}) anyway: the missing versions are skipped.",
            consumer(sim, c),
            current + 1
        ),
        _ => unreachable!("describe sends only key order facts here, not {fact:?}"),
    }
}

/// Changes an operator makes to a running system: settings, scaling, deploys, outages.
fn operations(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        SettingChanged { setting, trigger } => format!("{} ({}).", setting_text(sim, setting), by(trigger)),
        ConsumerAdded { consumer: c, queue: q, trigger } => format!(
            "{} joined the consumers of {} ({}) and asks for work.",
            consumer(sim, c),
            queue(sim, q),
            by(trigger)
        ),
        ConsumerStopping { consumer: c, trigger, called_off, still_armed } => format!(
            "{} takes no more deliveries ({}); it stops once it has finished what it holds.{}{}",
            consumer(sim, c),
            by(trigger),
            called_off_text(called_off, "it is leaving"),
            still_armed_text(still_armed)
        ),
        ConsumerStopped { consumer: c, was_down: false, called_off } => format!(
            "{} finished what it held and stopped; nothing it had was lost.{}",
            consumer(sim, c),
            called_off_text(called_off, "it has left")
        ),
        ConsumerStopped { consumer: c, was_down: true, called_off } => format!(
            "{} was down and leaving, so it does not restart: it has stopped (scaled in).{}",
            consumer(sim, c),
            called_off_text(called_off, "it has left")
        ),
        AckModeSwitched { consumer: c, ack } => format!(
            "{} subscribed again: from now on it acks {}.",
            consumer(sim, c),
            ack_text(ack)
        ),
        DependencyDown { queue: q, until_us, trigger } => format!(
            "The dependency of {}'s consumers is down until {} ({}): attempts that end before then fail.",
            queue(sim, q),
            secs(until_us),
            by(trigger)
        ),
        FixDeployed { queue: q, poison, trigger } => format!(
            "A fix was deployed to the consumers of {} ({}): a message whose {} no longer fails.",
            queue(sim, q),
            by(trigger),
            poison_text(poison).trim_start_matches("its ")
        ),
        RedriveStarted { queue: q, count, milli_per_s, broker_down, trigger } => format!(
            "Redrive of the dead-letter queue of {} ({}): {} to move back at {} per second{}.",
            queue(sim, q),
            by(trigger),
            counted(Lang::En, count, "message", "messages"),
            super::milli(milli_per_s, Lang::En),
            if broker_down { ", once the broker is back (it is down)" } else { "" }
        ),
        _ => unreachable!("describe sends only operations facts here, not {fact:?}"),
    }
}

/// A producer's crash or restart; an outbox producer's relay crash (between the confirm
/// and marking the row) and its restart are told as the relay's.
fn producer_crashes(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        ProducerCrashArmed { producer: p, point, trigger } => {
            let when = match point {
                ProducerCrashPoint::Now => "at once",
                ProducerCrashPoint::AfterCommitBeforePublish => "after its next state commit, before publishing",
                ProducerCrashPoint::AfterPublishBeforeMark => {
                    "after its relay's next confirmed publish, before marking the row"
                }
            };
            format!("{} will crash {when} ({}).", producer(sim, p), by(trigger))
        }
        ProducerCrashed { producer: p, point: ProducerCrashPoint::AfterPublishBeforeMark, trigger, restart_at_us }
            if has_outbox(sim, p) =>
        {
            format!(
                "{}'s outbox relay crashed ({}) after the broker confirmed its publish, before it marked the row as sent: the row stays unsent, so the relay will publish it again. It runs in the service's process, which went down with it; the database, outbox included, is intact.{}",
                producer(sim, p),
                by(trigger),
                both_restart_text(sim, restart_at_us)
            )
        }
        ProducerCrashed { producer: p, trigger, restart_at_us, .. } => format!(
            "{} crashed ({}); its memory is gone, its database{} is not.{}",
            producer(sim, p),
            by(trigger),
            if has_outbox(sim, p) { " (outbox included)" } else { "" },
            restart_text(sim, restart_at_us)
        ),
        ProducerRestarted { producer: p, trigger } if has_outbox(sim, p) => format!(
            "{}'s outbox relay restarted with its service ({}) and publishes again every row not marked as sent.",
            producer(sim, p),
            by(trigger)
        ),
        ProducerRestarted { producer: p, trigger } => format!("{} restarted ({}).", producer(sim, p), by(trigger)),
        ConfirmDropArmed { producer: p, trigger } => {
            format!("The next confirm to {} will be lost ({}).", producer(sim, p), by(trigger))
        }
        _ => unreachable!("describe sends only producer crashes here, not {fact:?}"),
    }
}

/// When an armed crash of a queue consumer strikes.
fn crash_when(point: CrashPoint) -> &'static str {
    match point {
        CrashPoint::Now => "at once",
        CrashPoint::AfterReceive => "right after its next delivery arrives",
        CrashPoint::AfterCommitBeforeAck => "right after its next commit, before the ack",
    }
}

/// Faults armed on a queue consumer, as a sentence's subject, and whether they are two.
fn armed_faults(faults: ArmedFaults) -> (String, bool) {
    let lost_ack = "the loss of its next ack";
    match (faults.crash, faults.lost_ack) {
        (Some(p), true) => (
            format!("Its armed crash ({}) and {lost_ack}", crash_when(p)),
            true,
        ),
        (Some(p), false) => (format!("Its armed crash ({})", crash_when(p)), false),
        (None, _) => ("The loss of its next ack".to_string(), false),
    }
}

/// " Its armed crash (…) is called off: {why}." for the faults scaling in called off on
/// a consumer; nothing if none.
fn called_off_text(faults: ArmedFaults, why: &str) -> String {
    if faults.is_empty() {
        return String::new();
    }
    let (subject, two) = armed_faults(faults);
    let verb = if two { "are" } else { "is" };
    format!(" {subject} {verb} called off: {why}.")
}

/// The faults a retiring consumer can still reach, which stay armed; nothing if none.
fn still_armed_text(faults: ArmedFaults) -> String {
    if faults.is_empty() {
        return String::new();
    }
    let (subject, two) = armed_faults(faults);
    let verb = if two { "still stand" } else { "still stands" };
    format!(" {subject} {verb}: it still finishes what it holds and sends its acks.")
}

/// Crashes, restarts and slowdowns of the broker and queue consumers.
fn crashes(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        BrokerCrashed { trigger, restart_at_us } => format!(
            "The broker crashed ({}): it stores and delivers nothing until it restarts, and whatever it had not persisted is gone.{}",
            by(trigger),
            restart_text(sim, restart_at_us)
        ),
        BrokerRestarted { trigger } => format!("The broker restarted ({}) and delivers again.", by(trigger)),
        CrashArmed { consumer: c, point, trigger } => {
            format!("{} will crash {} ({}).", consumer(sim, c), crash_when(point), by(trigger))
        }
        AckDropArmed { consumer: c, trigger } => format!("{}'s next ack will be lost ({}).", consumer(sim, c), by(trigger)),
        ConsumerFaultCalledOff { consumer: c, called_off, stopped, trigger } => {
            let crash = |p| match p {
                CrashPoint::Now => format!("The crash of {}", consumer(sim, c)),
                p => format!("The crash of {} {}", consumer(sim, c), crash_when(p)),
            };
            let (what, verb) = match (called_off.crash, called_off.lost_ack) {
                (Some(p), true) => (format!("{} and the loss of its next ack", crash(p)), "are"),
                (Some(p), false) => (crash(p), "is"),
                (None, _) => (format!("The loss of {}'s next ack", consumer(sim, c)), "is"),
            };
            let why = if stopped {
                "it has left (scaled in)"
            } else if called_off.crash == Some(CrashPoint::AfterReceive) {
                "it is leaving and takes no more deliveries"
            } else {
                "it is leaving and has no ack left to send"
            };
            format!("{what} ({}) {verb} called off: {why}.", by(trigger))
        }
        ConsumerCrashed { consumer: c, point, trigger, restart_at_us } => {
            let when = match point {
                CrashPoint::Now => "",
                CrashPoint::AfterReceive => " just after receiving a delivery",
                CrashPoint::AfterCommitBeforeAck => " after committing, before sending its ack",
            };
            // On RabbitMQ the channel's closing puts them back at once (said next); leases
            // elsewhere keep them hidden until they run out.
            let unacked = if reads_rabbitmq(sim, c) {
                "its unacked deliveries go back to the broker"
            } else {
                "its unacked deliveries come back when their leases run out"
            };
            format!(
                "{} crashed{when} ({}): its work in progress stops there; {unacked}.{}",
                consumer(sim, c),
                by(trigger),
                restart_text(sim, restart_at_us)
            )
        }
        ConsumerRestarted { consumer: c, trigger } => {
            format!("{} restarted ({}) and asks the broker for work.", consumer(sim, c), by(trigger))
        }
        ConsumerSlowed { consumer: c, factor_pct: 100, trigger } => {
            format!("{} works at normal speed again ({}).", consumer(sim, c), by(trigger))
        }
        ConsumerSlowed { consumer: c, factor_pct, trigger } => format!(
            "{} now takes {:.1}× as long per message ({}).",
            consumer(sim, c),
            f64::from(factor_pct) / 100.0,
            by(trigger)
        ),
        CommandMoot { moot, trigger } => moot_text(sim, moot, trigger),
        _ => unreachable!("describe sends only crashes facts here, not {fact:?}"),
    }
}

/// A command that found nothing to act on.
fn moot_text(sim: &Simulation, moot: Moot, trigger: Trigger) -> String {
    let by = by(trigger);
    // A restart of what is up, a crash of what is down: one sentence for every component.
    let up = |who: String| format!("{who} is already up: the restart ({by}) has nothing to do.");
    let down =
        |who: String| format!("{who} is already down: the crash ({by}) has nothing to strike.");
    match moot {
        Moot::RestartConsumerUp { consumer: c } => up(consumer(sim, c)),
        Moot::CrashConsumerDown { consumer: c } => down(consumer(sim, c)),
        Moot::RestartProducerUp { producer: p } => up(producer(sim, p)),
        Moot::CrashProducerDown { producer: p } => down(producer(sim, p)),
        Moot::RestartBrokerUp => up("The broker".into()),
        Moot::CrashBrokerDown => down("The broker".into()),
        Moot::CrashMemberDown { group, member } => down(sim.member_name(group, member)),
        Moot::RestartConsumerStopped { consumer: c } => format!(
            "{} has left (scaled in): it is not restarted ({by}); scale out to add a consumer.",
            consumer(sim, c)
        ),
        Moot::PoisonProducerDown { producer: p } => {
            format!("{} is down: the poison message ({by}) is not sent.", producer(sim, p))
        }
        Moot::NoConfirmToLose { producer: p } => format!(
            "{} waits for no publisher confirm: the loss of its next confirm ({by}) has nothing to act on.",
            producer(sim, p)
        ),
        Moot::RedriveEmpty { queue: q } => format!(
            "The dead-letter queue of {} is empty: the redrive ({by}) has nothing to move.",
            queue(sim, q)
        ),
        Moot::PartitionsNotGrown { log, asked, has } => format!(
            "{} already has {has} partitions and a log's partitions only grow: the change to {asked} ({by}) does nothing.",
            sim.log_name(log)
        ),
        Moot::NoAckToLose { consumer: c } => format!(
            "{} acks on delivery: the broker counts a message acked as it hands it over, so no ack travels back, and the loss of its next ack ({by}) has nothing to act on.",
            consumer(sim, c)
        ),
        Moot::NoAckAfterCommit { consumer: c } => format!(
            "{} acks on delivery, before its work: no moment comes after its commit and before its ack, so the crash ({by}) has nothing to strike.",
            consumer(sim, c)
        ),
        Moot::AckDropAlreadyArmed { consumer: c } => format!(
            "{}'s next ack is already set to be lost: this loss ({by}) adds nothing.",
            consumer(sim, c)
        ),
        Moot::CrashAlreadyArmed { consumer: c, armed } => format!(
            "A crash of {} is already armed, to strike {}: one crash at a time, so this one ({by}) adds nothing.",
            consumer(sim, c),
            crash_when(armed)
        ),
        Moot::ConfirmDropAlreadyArmed { producer: p } => format!(
            "The next confirm to {} is already set to be lost: this loss ({by}) adds nothing.",
            producer(sim, p)
        ),
    }
}

/// Log records: appended, expired, and what group members do with them.
fn records(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        Appended { producer: p, msg, log, partition, offset } => format!(
            "{} appended #{msg} to {} partition {partition} at offset {offset}.",
            producer(sim, p),
            sim.log_name(log)
        ),
        RecordsExpired { log, partition, from, to } => format!(
            "Retention removed {} of {} partition {partition}, read or not.",
            super::span("offset", "offsets", from, to),
            sim.log_name(log)
        ),
        RecordStarted { group, member, partition, offset, msg, .. } => format!(
            "{} started on #{msg} (partition {partition}, offset {offset}).",
            sim.member_name(group, member)
        ),
        RecordProcessed { group, member, msg, applied: 0, .. } => {
            format!("{} recognised #{msg} as already processed and skipped its effect.", sim.member_name(group, member))
        }
        RecordProcessed { group, member, msg, applied: 1, offset, .. } => {
            format!("{} processed #{msg} (offset {offset}).", sim.member_name(group, member))
        }
        RecordProcessed { group, member, msg, applied, .. } => format!(
            "{} processed #{msg} again: its effect has now been applied {applied} times (duplicate).",
            sim.member_name(group, member)
        ),
        RecordUnauthorizedEffect { group, member, msg, producer: p } => format!(
            "{} trusts whatever its log holds, so it never checked that {} may ask for #{msg}: its tenant is not authorised, and the effect is in the database anyway (unauthorised effect).",
            sim.member_name(group, member),
            producer(sim, p)
        ),
        RecordTakenForDuplicate { group, member, msg, key, first, offset, .. } => format!(
            "{} tried to record #{msg} (offset {offset}) in its inbox, which is keyed by the entity: key {key} already has a row, from #{first}, a different message. It rolled back and moves past #{msg} as handled: its effect is never applied (lost).",
            sim.member_name(group, member)
        ),
        OffsetCommitted { group, partition, offset } => format!(
            "Group {} committed offset {offset} on partition {partition}: after a restart it resumes there.",
            sim.group_name(group)
        ),
        RecordsSkipped { group, partition, from, to, why, .. } => {
            let one = to <= from + 1;
            let why = match (why, one) {
                (SkipReason::CommittedBeforeProcessing, true) => "its offset was committed before it was processed",
                (SkipReason::CommittedBeforeProcessing, false) => "their offsets were committed before they were processed",
                (SkipReason::ExpiredUnread, true) => "retention removed it before the group read it",
                (SkipReason::ExpiredUnread, false) => "retention removed them before the group read them",
                (SkipReason::ResetToLatest, true) => "retention removed the record at its position, and the group resets to the log end (auto.offset.reset=latest), past this one though it is still retained",
                (SkipReason::ResetToLatest, false) => "retention removed the record at its position, and the group resets to the log end (auto.offset.reset=latest), past these though they are still retained",
                (SkipReason::SeekOutOfRange, true) => "the seek's offset was out of range, and auto.offset.reset=latest takes the group to the log end, past this one, which it had not read",
                (SkipReason::SeekOutOfRange, false) => "the seek's offset was out of range, and auto.offset.reset=latest takes the group to the log end, past these, which it had not read",
            };
            format!(
                "Group {} will never process {} of partition {partition}: {why}.",
                sim.group_name(group),
                super::span("offset", "offsets", from, to)
            )
        }
        _ => unreachable!("describe sends only records facts here, not {fact:?}"),
    }
}

/// A group member's outputs, transactions and emails.
fn transactions(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        OutputWritten { group, member, msg, log, partition, offset, open } => format!(
            "{} wrote #{msg} to {} partition {partition} at offset {offset}{}.",
            sim.member_name(group, member),
            sim.log_name(log),
            if open { ", inside its open transaction" } else { "" }
        ),
        TransactionCommitted { group, member, outputs } => format!(
            "{} committed its transaction: {outputs} output record(s) and the input offset became visible together.",
            sim.member_name(group, member)
        ),
        TransactionAborted { group, member, outputs } => format!(
            "{}'s transaction aborted: its {outputs} output record(s) stay in the log, marked aborted; read_committed readers skip them.",
            sim.member_name(group, member)
        ),
        TransactionLeftOpen { group, member, outputs, aborts_at_us } => format!(
            "{}'s transaction stays open with {outputs} output record(s): read_committed readers stop before them, and before whatever follows them in their partitions, until the coordinator aborts it {} or {} is back with the same transactional.id.",
            sim.member_name(group, member),
            match due(sim, aborts_at_us) {
                Due::At(t) => format!("at {} (transaction.timeout.ms)", secs(t)),
                Due::AfterEnd => "at its timeout, after the run ends,".to_string(),
            },
            sim.member_name(group, member)
        ),
        TransactionTimedOut { group, member } => format!(
            "{}'s open transaction reached transaction.timeout.ms: the coordinator aborts it.",
            sim.member_name(group, member)
        ),
        TransactionFenced { group, member } => format!(
            "{} is back with the same transactional.id: starting its producer fences the old one and aborts the transaction it left open.",
            sim.member_name(group, member)
        ),
        ControlRecordWritten { log, partition, offset, commit } => format!(
            "The coordinator wrote {} marker to {} partition {partition} at offset {offset}: a control record that no consumer receives, so that offset holds no message.",
            if commit { "a commit" } else { "an abort" },
            sim.log_name(log)
        ),
        AbortedSkipped { group, partition, offset } => format!(
            "Group {} (read_committed) skipped the aborted record at offset {offset} of partition {partition}.",
            sim.group_name(group)
        ),
        EmailSent { group, member, msg, times: 1 } => {
            format!("{} sent the email for #{msg}.", sim.member_name(group, member))
        }
        EmailSent { group, member, msg, times } => format!(
            "{} sent the email for #{msg} again ({times} in all): the transaction does not cover an email.",
            sim.member_name(group, member)
        ),
        _ => unreachable!("describe sends only transaction facts here, not {fact:?}"),
    }
}

/// A group member's handler failing on a record, and what follows.
fn record_failures(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        RecordFailed { group, member, msg, offset, attempt, failure, .. } => format!(
            "{}'s handler failed on #{msg} (offset {offset}, attempt {attempt}): {}; nothing of it was applied.",
            sim.member_name(group, member),
            failure_text(failure)
        ),
        RecordRetrying { group, member, partition, msg, attempt, retry_at_us, .. } => match due(sim, retry_at_us) {
            Due::At(t) => format!(
                "{} will try #{msg} again in place (attempt {attempt}) at {}: partition {partition} waits behind it.",
                sim.member_name(group, member),
                secs(t)
            ),
            Due::AfterEnd => format!(
                "{} would try #{msg} again in place (attempt {attempt}) after the run ends: partition {partition} waits behind it to the end.",
                sim.member_name(group, member)
            ),
        },
        RecordDeadLettered { group, partition, msg, attempts, reason, log, .. } => {
            let why = match reason {
                DeadLetterReason::Poison(kind) => format!("it can never succeed ({})", poison_text(kind)),
                DeadLetterReason::TooOld => "it is older than the group's replay window, and waiting would only make it older".to_string(),
                // A group only gives up on failed attempts; queue-only reasons never reach here.
                _ => format!("it failed {}", counted(Lang::En, attempts, "attempt", "attempts")),
            };
            let to = log.map_or(format!("{}'s dead-letter topic", sim.group_name(group)), |l| sim.log_name(l));
            format!("Group {} gave up on #{msg}: {why}. It went to {to} and partition {partition} moves on.", sim.group_name(group))
        }
        RecordEffectRefused { group, member, msg, key, .. } => format!(
            "{} refused #{msg}: account {key} has too little balance, so nothing changed.",
            sim.member_name(group, member)
        ),
        RecordStaleIgnored { group, member, msg, key, version, current } => format!(
            "{} ignored #{msg}: version {version} of key {key} is not newer than the applied version {current}.",
            sim.member_name(group, member)
        ),
        _ => unreachable!("describe sends only record failures facts here, not {fact:?}"),
    }
}

/// "1 member up", "3 members up".
fn up_count(up: u32) -> String {
    match up {
        1 => "1 member up".to_string(),
        n => format!("{n} members up"),
    }
}

/// Consumer groups handing partitions over.
fn rebalances(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        RebalanceStarted { group, members_up: 0 } => format!(
            "Group {} is rebalancing with no member up: its partitions are revoked and wait, unread, until a member comes back.",
            sim.group_name(group)
        ),
        RebalanceStarted { group, members_up } if sim.group_rebalance(group) == Rebalance::Eager => format!(
            "Group {} is rebalancing ({}): every partition pauses and is revoked; a member with a record in hand finishes and commits it before it rejoins.",
            sim.group_name(group),
            up_count(members_up)
        ),
        RebalanceStarted { group, members_up } => format!(
            "Group {} is rebalancing cooperatively ({}): only partitions that move are revoked; the others keep flowing.",
            sim.group_name(group),
            up_count(members_up)
        ),
        PartitionAssigned { group, partition, member: Some(m), from_offset } => format!(
            "Partition {partition} now belongs to {}, resuming at offset {from_offset}.",
            sim.member_name(group, m)
        ),
        PartitionAssigned { group, partition, member: None, .. } => {
            format!("Partition {partition} of group {} has no live member to read it.", sim.group_name(group))
        }
        PartitionRevoked { group, partition, member, finishing: Some(offset) }
            if sim.group_rebalance(group) == Rebalance::Eager =>
        {
            format!(
                "Partition {partition} is revoked from {}, with the others: it fetches nothing more there, and lets go and rejoins once it is done with offset {offset}.",
                sim.member_name(group, member)
            )
        }
        PartitionRevoked { group, partition, member, finishing: Some(offset) } => format!(
            "Partition {partition} is moving away from {}: it fetches nothing more there and lets go once it is done with offset {offset}.",
            sim.member_name(group, member)
        ),
        PartitionRevoked { group, partition, member, finishing: None } => format!(
            "Partition {partition} is moving away from {}, which holds no record of it.",
            sim.member_name(group, member)
        ),
        PartitionReleased { group, partition, member, committed } => format!(
            "{} let partition {partition} go with offset {committed} committed: its next owner starts there.",
            sim.member_name(group, member)
        ),
        StaleWorkInProgress { group, partition, member, offset, again: true } => format!(
            "{} is still processing offset {offset} of partition {partition}, fetched before the last rebalance or rewind: it can no longer commit it, so that record will be processed again.",
            sim.member_name(group, member)
        ),
        StaleWorkInProgress { group, partition, member, offset, again: false } => format!(
            "{} is still processing offset {offset} of partition {partition}, fetched before the last rebalance or rewind; its offset was already committed, so nobody processes it again.",
            sim.member_name(group, member)
        ),
        _ => unreachable!("describe sends only rebalance facts here, not {fact:?}"),
    }
}

/// Group members crashing and joining, and groups rewinding.
fn members(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        MemberCrashArmed {
            group,
            member,
            trigger,
        } => format!(
            "{} will crash after its next record, before committing ({}).",
            sim.member_name(group, member),
            by(trigger)
        ),
        MemberCrashed {
            group,
            member,
            trigger,
            restart_at_us,
            session_ends_at_us,
            ..
        } => format!(
            "{} crashed ({}).{}{}",
            sim.member_name(group, member),
            by(trigger),
            session_text(sim, session_ends_at_us),
            restart_text(sim, restart_at_us)
        ),
        PollIntervalExceeded {
            group,
            member,
            partition,
            offset,
            interval_us,
            session_ends_at_us: Some(ends),
            ..
        } => format!(
            "{} has been on offset {offset} of partition {partition} for {} without polling again, its poll interval (max.poll.interval.ms). As a static member it sends no leave: it stops heartbeating, and it can no longer commit.{}",
            sim.member_name(group, member),
            secs(interval_us),
            session_text(sim, Some(ends))
        ),
        PollIntervalExceeded { group, member, partition, offset, interval_us, again, .. } => format!(
            "{} has been on offset {offset} of partition {partition} for {} without polling again, its poll interval (max.poll.interval.ms): it leaves group {}, which rebalances its partitions. It still finishes the record, {}",
            sim.member_name(group, member),
            secs(interval_us),
            sim.group_name(group),
            if again {
                "which its partition's next owner reads again from the last commit."
            } else {
                "whose offset was committed before processing: nobody reads it again."
            }
        ),
        CommitFailed { group, member, partition, offset, in_session: true, .. } => format!(
            "{} finished offset {offset} of partition {partition} after its poll interval passed: its commit fails (CommitFailedException). Its next poll rejoins group {} within its session, as a static member: no rebalance, and it reads its partitions again from their last commit.",
            sim.member_name(group, member),
            sim.group_name(group)
        ),
        CommitFailed { group, member, partition, offset, .. } => format!(
            "{} finished offset {offset} of partition {partition} after leaving its group: its commit fails (CommitFailedException), and its next poll rejoins group {}, which rebalances again.",
            sim.member_name(group, member),
            sim.group_name(group)
        ),
        MemberSessionTimedOut { group, member } => format!(
            "{}'s session timed out: the coordinator removes it from group {}, which rebalances its partitions.",
            sim.member_name(group, member),
            sim.group_name(group)
        ),
        MemberJoined {
            group,
            member,
            trigger,
        } => {
            format!(
                "{} joined group {} ({}).",
                sim.member_name(group, member),
                sim.group_name(group),
                by(trigger)
            )
        }
        GroupRewound {
            group,
            to_offset,
            trigger,
            reset,
        } => format!(
            "{} {}",
            match to_offset {
                None => format!(
                    "Group {} went back to the earliest retained offsets ({}): it will replay the log.",
                    sim.group_name(group),
                    by(trigger)
                ),
                Some(o) => format!(
                    "Group {} seeks offset {o} on every partition ({}).",
                    sim.group_name(group),
                    by(trigger)
                ),
            },
            match reset {
                0 => "Each member seeks the partitions it holds: their committed offsets move with its next commit, and a crash before it resumes them at the last commit.".to_string(),
                n => format!(
                    "Each member up seeks the partitions it holds (their committed offsets move with its next commit); {} no member up holds {} reset at once.",
                    counted(Lang::En, n, "partition", "partitions"),
                    if n == 1 { "has its committed offset" } else { "have their committed offsets" }
                ),
            }
        ),
        SkipUndone { group, partition, from, to } => format!(
            "Group {} reads {} of partition {partition} after all: auto.offset.reset=latest had moved only its fetch position past {}, and its position is back before {}, so {} no longer {} as skipped.",
            sim.group_name(group),
            super::span("offset", "offsets", from, to),
            if to <= from + 1 { "it" } else { "them" },
            if to <= from + 1 { "it" } else { "them" },
            if to <= from + 1 { "it" } else { "they" },
            if to <= from + 1 { "counts" } else { "count" },
        ),
        SeekOutOfRange {
            group,
            offset,
            by_policy,
            reset,
            clamped,
        } => {
            let head = format!(
                "Offset {offset} is out of range on {} of group {} (before the log start or past the log end)",
                counted(Lang::En, by_policy + clamped, "partition", "partitions"),
                sim.group_name(group)
            );
            let it = if by_policy == 1 { "it" } else { "them" };
            let policy = match reset {
                OffsetReset::Earliest => format!("the next fetch there is refused (OFFSET_OUT_OF_RANGE) and auto.offset.reset=earliest takes {it} to the log start, to read from the oldest retained record"),
                OffsetReset::Latest => format!("the next fetch there is refused (OFFSET_OUT_OF_RANGE) and auto.offset.reset=latest takes {it} to the log end, past what the group had not read"),
            };
            let clamp = if clamped == 1 {
                "its committed offset is set to the nearest offset it holds, as kafka-consumer-groups --reset-offsets does"
            } else {
                "their committed offsets are set to the nearest offset each holds, as kafka-consumer-groups --reset-offsets does"
            };
            match (by_policy, clamped) {
                (_, 0) => format!("{head}: {policy}."),
                (0, c) => format!(
                    "{head}: no member up holds {}, so {clamp}.",
                    if c == 1 { "it" } else { "them" }
                ),
                (n, c) => format!(
                    "{head}. On {}, {policy}; on {}, {clamp}.",
                    if n == 1 { "the partition a member holds".to_string() } else { format!("the {n} partitions members hold") },
                    if c == 1 { "the partition no member up holds".to_string() } else { format!("the {c} partitions no member up holds") }
                ),
            }
        }
        _ => unreachable!("describe sends only member facts here, not {fact:?}"),
    }
}

// ----- dependencies ----------------------------------------------------------------------

fn dependency(sim: &Simulation, d: u32) -> String {
    super::dependency(sim, d, "dependency")
}

fn refusal_text(why: CallRefusal) -> &'static str {
    match why {
        CallRefusal::LineFull => "the dependency's line was full",
        CallRefusal::OldestTooOld => {
            "the dependency's oldest waiting request had waited too long (admission control)"
        }
        CallRefusal::Outage => "the dependency was down",
        CallRefusal::CircuitOpen => "the circuit breaker was open",
    }
}

/// A changed setting of a dependency or of its callers, as the start of a sentence.
fn dependency_setting_text(sim: &Simulation, setting: Setting) -> String {
    match setting {
        Setting::DependencyCapacity { dependency: d, concurrency, mean_us, exponential } => format!(
            "{} now serves {concurrency} requests at once, each taking {}{} when alone",
            dependency(sim, d),
            secs(mean_us),
            if exponential { " on average" } else { "" }
        ),
        Setting::DependencyTimeout { dependency: d, timeout_us } => format!(
            "Callers of {} now give up after {}",
            dependency(sim, d),
            secs(timeout_us)
        ),
        Setting::RetryBudget { dependency: d, budget_milli: Some((tokens, ratio)) } => format!(
            "Callers of {} now share a retry budget of {} tokens (a failed call takes one, a success gives back {}); a failed message is retried only while more than half are left",
            dependency(sim, d),
            super::milli(tokens, Lang::En),
            super::milli(ratio, Lang::En)
        ),
        Setting::RetryBudget { dependency: d, budget_milli: None } => {
            format!("Callers of {} now retry with no budget", dependency(sim, d))
        }
        Setting::Breaker { dependency: d, breaker: Some((failures, open_us)) } => format!(
            "Callers of {} now use a circuit breaker: {failures} failed calls in a row open it for {}",
            dependency(sim, d),
            secs(open_us)
        ),
        Setting::Breaker { dependency: d, breaker: None } => {
            format!("Callers of {} no longer use a circuit breaker", dependency(sim, d))
        }
        Setting::Admission { dependency: d, max_age_us: Some(age) } => format!(
            "{} now sheds requests that waited longer than {} and refuses calls while its oldest has (admission control)",
            dependency(sim, d),
            secs(age)
        ),
        Setting::Admission { dependency: d, max_age_us: None } => format!(
            "{} now serves every request it admitted (no admission control)",
            dependency(sim, d)
        ),
        _ => unreachable!("setting_text sends only dependency settings here, not {setting:?}"),
    }
}

/// Handlers calling a dependency, and the callers' protections.
fn dependencies(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        DependencyCalled { msg, consumer: c, dependency: d, request, ahead, .. } => format!(
            "{} called {} for #{msg} (request {request}); {} requests were waiting ahead of it.",
            consumer(sim, c),
            dependency(sim, d),
            whole(Lang::En, ahead)
        ),
        DependencyAnswered { msg, consumer: c, dependency: d, took_us, .. } => format!(
            "{} answered {} about #{msg} after {}, in time: the handler goes on.",
            dependency(sim, d),
            consumer(sim, c),
            secs(took_us)
        ),
        CallTimedOut { msg, consumer: c, dependency: d, .. } => format!(
            "{} gave up waiting for {} on #{msg} (its timeout): the handler fails, but the request stays at {}, which will still do the work.",
            consumer(sim, c),
            dependency(sim, d),
            dependency(sim, d)
        ),
        WorkWasted { msg, dependency: d, late_by_us, .. } => format!(
            "{} finished the request for #{msg} {} after its caller had given up: wasted work.",
            dependency(sim, d),
            secs(late_by_us)
        ),
        CallRejected { msg, consumer: c, dependency: d, why: CallRefusal::CircuitOpen, .. } => format!(
            "The call of {} to {} for #{msg} failed at once: the circuit breaker is open, so it never left.",
            consumer(sim, c),
            dependency(sim, d)
        ),
        CallRejected { msg, consumer: c, dependency: d, why, .. } => format!(
            "{} refused the call of {} for #{msg} at once: {}.",
            dependency(sim, d),
            consumer(sim, c),
            refusal_text(why)
        ),
        RequestShed { msg, dependency: d, waited_us, .. } => format!(
            "{} dropped the request for #{msg} without serving it: it had waited {}, longer than admission control allows.",
            dependency(sim, d),
            secs(waited_us)
        ),
        RetryDenied { msg, dependency: d, tokens_milli, .. } => format!(
            "The retry budget for {} is down to {} tokens: #{msg} will not be retried.",
            dependency(sim, d),
            super::milli(tokens_milli, Lang::En)
        ),
        _ => breaker_and_slowdowns(sim, fact),
    }
}

fn breaker_and_slowdowns(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        BreakerOpened { dependency: d, failures, until_us } => format!(
            "The circuit breaker for {} opened after {failures} failed calls in a row: calls fail at once until {}.",
            dependency(sim, d),
            secs(until_us)
        ),
        BreakerHalfOpen { dependency: d } => format!(
            "The circuit breaker for {} is half-open: one probe call goes through.",
            dependency(sim, d)
        ),
        BreakerClosed { dependency: d } => format!(
            "The probe call to {} succeeded: the circuit breaker closed and calls go through again.",
            dependency(sim, d)
        ),
        DependencySlowed { dependency: d, factor_milli, until_us, trigger } => format!(
            "{} slows down ({}): every request it starts until {} takes {} times as long.",
            dependency(sim, d),
            by(trigger),
            secs(until_us),
            super::milli(factor_milli, Lang::En)
        ),
        _ => unreachable!("describe sends only dependency facts here, not {fact:?}"),
    }
}
