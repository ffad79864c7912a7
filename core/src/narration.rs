//! One plain-English sentence per fact, for the CLI trace and the page's narration.
//! Names come from the simulation (consumer names), ids are printed as `#id`.

use crate::scenario::CrashPoint;
use crate::sim::Simulation;
use crate::step::{Fact, IgnoredAck, LossReason, Trigger};
use crate::time::us_to_secs;

fn point_text(p: CrashPoint) -> &'static str {
    match p {
        CrashPoint::Now => "at once",
        CrashPoint::AfterReceive => "right after its next delivery arrives",
        CrashPoint::AfterCommitBeforeAck => "right after its next commit, before the ack",
    }
}

fn by(trigger: Trigger) -> &'static str {
    match trigger {
        Trigger::Scheduled => "as scheduled",
        Trigger::User => "on your command",
    }
}

/// Describes a fact in a sentence.
pub fn describe(sim: &Simulation, fact: &Fact) -> String {
    let name = |c: u32| {
        sim.consumer(c)
            .map_or_else(|| format!("consumer {c}"), |v| v.name)
    };
    match *fact {
        Fact::Published { producer, msg } => {
            let p = sim.scenario().producers.get(producer as usize).map(|p| p.name.as_str()).unwrap_or("");
            let p = if p.is_empty() { format!("producer P{}", producer + 1) } else { p.to_string() };
            format!("{p} published message #{msg}; the queue stored it.")
        }
        Fact::Delivered { msg, attempt: 1, consumer, lease_until_us: Some(until) } => format!(
            "The broker delivered #{msg} to {}; it stays hidden until {:.3} s unless acked.",
            name(consumer),
            us_to_secs(until)
        ),
        Fact::Delivered { msg, attempt, consumer, lease_until_us } => {
            let again = if attempt > 1 { format!(" again (attempt {attempt})") } else { String::new() };
            let lease = lease_until_us.map_or(String::new(), |u| format!("; hidden until {:.3} s", us_to_secs(u)));
            format!("The broker delivered #{msg}{again} to {}{lease}.", name(consumer))
        }
        Fact::AckedOnDelivery { msg, consumer, .. } => format!(
            "{} acked #{msg} on receipt: the broker forgot it before any work was done.",
            name(consumer)
        ),
        Fact::ProcessingStarted { msg, attempt, consumer, done_at_us } => format!(
            "{} started processing #{msg} (attempt {attempt}); it will finish at {:.3} s.",
            name(consumer),
            us_to_secs(done_at_us)
        ),
        Fact::EffectCommitted { msg, consumer, applied: 1, .. } => {
            format!("{} committed the effect of #{msg} in the database.", name(consumer))
        }
        Fact::EffectCommitted { msg, consumer, applied, .. } => format!(
            "{} committed the effect of #{msg} again: it has now been applied {applied} times (duplicate).",
            name(consumer)
        ),
        Fact::Acked { msg, consumer, .. } => {
            format!("{} acked #{msg}; the broker removed it for good.", name(consumer))
        }
        Fact::AckIgnored { msg, consumer, why: IgnoredAck::StaleLease, .. } => format!(
            "{} acked #{msg} too late: its lease had expired and the message was offered again, so the ack changed nothing.",
            name(consumer)
        ),
        Fact::AckIgnored { msg, consumer, why: IgnoredAck::AlreadyDone, .. } => format!(
            "{} acked #{msg}, which another delivery had already settled.",
            name(consumer)
        ),
        Fact::LeaseExpired { msg, attempt, consumer } => format!(
            "The lease of #{msg} (attempt {attempt}, held by {}) ran out with no ack: it is visible again and will be redelivered.",
            name(consumer)
        ),
        Fact::CrashArmed { consumer, point, trigger } => {
            format!("{} will crash {} ({}).", name(consumer), point_text(point), by(trigger))
        }
        Fact::ConsumerCrashed { consumer, point, trigger, restart_at_us } => {
            let when = match point {
                CrashPoint::Now => "",
                CrashPoint::AfterReceive => " just after receiving a delivery",
                CrashPoint::AfterCommitBeforeAck => " after committing, before sending its ack",
            };
            let back = restart_at_us.map_or(" It stays down.".to_string(), |t| {
                format!(" It will restart at {:.3} s.", us_to_secs(t))
            });
            format!("{} crashed{when} ({}); what it held in memory is gone.{back}", name(consumer), by(trigger))
        }
        Fact::MessageLost { msg, consumer, reason: LossReason::AckedBeforeEffectThenCrashed, .. } => format!(
            "#{msg} is lost: it was acked on delivery and {} crashed before its effect committed.",
            name(consumer)
        ),
        Fact::ConsumerRestarted { consumer, trigger } => {
            format!("{} restarted ({}) and asks the broker for work.", name(consumer), by(trigger))
        }
    }
}
