//! Where a step's run pauses: a simulated instant, the next fact of a kind, the moment
//! the backlog is empty, or the run's end. The page plays at its own pace and asks
//! [`Checkpoint::met_by`] after each step (capping its play at [`Checkpoint::deadline_us`]);
//! the runner and the tests call [`Checkpoint::play`], which does the same in one go.

use crate::sim::Simulation;
use crate::step::Fact;
use crate::time::{secs_to_us, Micros};

/// A kind of fact a step waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Happening {
    /// A delivery with attempt > 1.
    Redelivery,
    /// A lease ran out before its ack.
    LeaseExpired,
    /// An effect applied a second time (by a queue's consumers or a log's group).
    DuplicateEffect,
    /// A handler recognised a duplicate and applied nothing.
    DuplicateSkipped,
    /// A copy lost for good.
    Loss,
    /// A copy moved to a dead-letter queue.
    DeadLetter,
    /// A business rule refused an operation (a withdrawal over the balance).
    EffectRefused,
    /// A handler skipped a version older than the aggregate's.
    StaleIgnored,
    /// A service committed its state and will never publish the event.
    NeverPublished,
    /// The broker refused a publish (a full queue, or admission control).
    PublishRefused,
    /// A log transaction aborted.
    TransactionAborted,
    /// An email went out for a message that had already sent one.
    EmailRepeated,
    /// A dead-lettered copy went back to its queue.
    Redriven,
    /// A group member worked on a record past its poll interval and left its group.
    LeftGroup,
    /// An inbox keyed by the entity (a consumer's or a group's) took a different message
    /// for a duplicate.
    TakenForDuplicate,
    /// A handler (or group member) that trusts the broker applied an unauthorised
    /// message's effect.
    UnauthorizedEffect,
}

impl Happening {
    pub fn matches(self, fact: &Fact) -> bool {
        match self {
            Happening::Redelivery => matches!(fact, Fact::Delivered { attempt: 2.., .. }),
            Happening::LeaseExpired => matches!(fact, Fact::LeaseExpired { .. }),
            Happening::DuplicateEffect => matches!(
                fact,
                Fact::EffectCommitted { applied: 2.., .. }
                    | Fact::RecordProcessed { applied: 2.., .. }
            ),
            Happening::DuplicateSkipped => matches!(fact, Fact::DuplicateSkipped { .. }),
            Happening::Loss => matches!(fact, Fact::MessageLost { .. }),
            Happening::DeadLetter => matches!(fact, Fact::DeadLettered { .. }),
            Happening::EffectRefused => matches!(
                fact,
                Fact::EffectRefused { .. } | Fact::RecordEffectRefused { .. }
            ),
            Happening::StaleIgnored => matches!(fact, Fact::StaleIgnored { .. }),
            Happening::NeverPublished => matches!(fact, Fact::EventNeverPublished { .. }),
            Happening::PublishRefused => matches!(fact, Fact::Refused { .. }),
            Happening::TransactionAborted => matches!(fact, Fact::TransactionAborted { .. }),
            Happening::EmailRepeated => matches!(fact, Fact::EmailSent { times: 2.., .. }),
            Happening::Redriven => matches!(fact, Fact::Redriven { .. }),
            Happening::LeftGroup => matches!(fact, Fact::PollIntervalExceeded { .. }),
            Happening::TakenForDuplicate => matches!(
                fact,
                Fact::TakenForDuplicate { .. } | Fact::RecordTakenForDuplicate { .. }
            ),
            Happening::UnauthorizedEffect => matches!(
                fact,
                Fact::UnauthorizedEffect { .. } | Fact::RecordUnauthorizedEffect { .. }
            ),
        }
    }
}

/// Where the run pauses for a step's reveal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Checkpoint {
    /// At this simulated instant, in seconds.
    At { s: f64 },
    /// At the step that brings the next fact of this kind.
    Next(Happening),
    /// At the first step after which no copy waits in any queue.
    BacklogEmpty,
    /// When the run has nothing left to do (or reaches its end time).
    End,
}

impl Checkpoint {
    /// The instant play must not pass, for a checkpoint at an instant.
    pub fn deadline_us(&self) -> Option<Micros> {
        match *self {
            Checkpoint::At { s } => Some(secs_to_us(s)),
            _ => None,
        }
    }

    /// Whether the run, having just taken a step with `facts`, stands at this checkpoint.
    pub fn met_by(&self, sim: &Simulation, facts: &[Fact]) -> bool {
        match *self {
            // Met once every step of that instant is taken: the page stops at a step, and
            // a pause between two steps of one instant would show half of it (the runner
            // plays to the instant at once).
            Checkpoint::At { s } => {
                let at = secs_to_us(s);
                sim.now_us() >= at && sim.next_step_time().is_none_or(|next| next > at)
            }
            Checkpoint::Next(kind) => facts.iter().any(|f| kind.matches(f)),
            Checkpoint::BacklogEmpty => sim.backlog() == 0,
            Checkpoint::End => sim.is_finished(),
        }
    }

    /// Plays `sim` forward to this checkpoint. Returns whether it was reached; `false`
    /// means the run ended first (its end time, nothing left to do, or its work budget,
    /// which bounds every run, so this always returns).
    pub fn play(&self, sim: &mut Simulation) -> bool {
        match *self {
            Checkpoint::At { s } => {
                sim.run_until(secs_to_us(s));
                self.met_by(sim, &[])
            }
            Checkpoint::End => {
                sim.run();
                true
            }
            Checkpoint::Next(kind) => loop {
                match sim.step() {
                    None => return false,
                    Some(step) if step.facts.iter().any(|f| kind.matches(f)) => return true,
                    Some(_) => {}
                }
            },
            Checkpoint::BacklogEmpty => loop {
                if sim.step().is_none() {
                    return false;
                }
                if sim.backlog() == 0 {
                    return true;
                }
            },
        }
    }
}
