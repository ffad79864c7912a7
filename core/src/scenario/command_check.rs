//! Whether a command fits its scenario: the names it uses exist, its values are in range,
//! and it could ever act (a restart of a consumer that can crash, a queue that is consumed).

use super::validate::{validate_retry, validate_schedule, validate_service};
use super::{
    check_count, check_range, dependency, err, limits, Command, GroupSpec, Handoff, Ordering,
    ProducerCrashPoint, Scenario, ScenarioError,
};
use crate::ids::{ConsumerId, GroupId, ProducerId};
use crate::time::{secs_to_us, Micros};

impl Scenario {
    /// A command naming a group member names one the group has when it runs: its
    /// members, plus those the joins before it add (commands in time order, the earlier
    /// in the list first at the same time, then interventions).
    pub(super) fn validate_member_commands(&self) -> Result<(), ScenarioError> {
        let mut timeline: Vec<(Micros, u8, usize, &Command)> = self
            .commands
            .iter()
            .enumerate()
            .map(|(i, c)| (secs_to_us(c.at_s), 0, i, &c.command))
            .chain(
                self.interventions
                    .iter()
                    .enumerate()
                    .map(|(i, iv)| (iv.at_us, 1, i, &iv.command)),
            )
            .filter(|e| matches!(e.3, Command::CrashMember { .. } | Command::AddMember { .. }))
            .collect();
        timeline.sort_by_key(|&(at, kind, i, _)| (at, kind, i));
        let mut members: Vec<u32> = self.groups.iter().map(|g| g.members).collect();
        for (_, kind, i, command) in timeline {
            match *command {
                Command::AddMember { group } => members[group.index()] += 1,
                Command::CrashMember { group, member, .. } => {
                    let there = members[group.index()];
                    if member >= there {
                        let list = if kind == 0 {
                            "commands"
                        } else {
                            "interventions"
                        };
                        return Err(err(
                            format!("{list}[{i}].command.member"),
                            format!("there is no member {member} (there are {there})"),
                        ));
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Whether commands may scale consumers (then consumer numbers can go past the
    /// scenario's own count).
    fn scales_consumers(&self) -> bool {
        self.commands
            .iter()
            .map(|f| &f.command)
            .chain(self.interventions.iter().map(|iv| &iv.command))
            .any(|f| matches!(f, Command::SetConsumerCount { .. }))
    }

    /// Checks one command (a scheduled fault or an intervention) against this scenario:
    /// the producer, consumer, queue, group or log it names exists, and its numbers are
    /// in range. `field` is where the command sits, for the error.
    pub(crate) fn validate_command(
        &self,
        field: &str,
        fault: &Command,
    ) -> Result<(), ScenarioError> {
        self.check_command_as(field, fault, false)
    }

    /// Whether this scenario takes `command` as a scheduled command: what it names
    /// exists, its numbers are in range, and it can act some time in the run. The page's
    /// schedule offers only the kinds of command, and the components, that pass.
    pub fn accepts_command(&self, command: &Command) -> bool {
        self.validate_command("command", command).is_ok()
    }

    /// Checks a command recorded in an earlier run: its names and ranges only, not
    /// whether it can ever act (see [`CommandCheck::can_ever_act`]).
    pub(super) fn validate_recorded_command(
        &self,
        field: &str,
        fault: &Command,
    ) -> Result<(), ScenarioError> {
        self.check_command_as(field, fault, true)
    }

    fn check_command_as(
        &self,
        field: &str,
        fault: &Command,
        recorded: bool,
    ) -> Result<(), ScenarioError> {
        let check = CommandCheck {
            scenario: self,
            field,
        };
        check.names_and_ranges(fault)?;
        if recorded {
            Ok(())
        } else {
            check.can_ever_act(fault)
        }
    }
}

/// Checks one command against its scenario (see [`Scenario::validate_command`]), one
/// method per family of commands. Errors name fields under `field`.
struct CommandCheck<'a> {
    scenario: &'a Scenario,
    field: &'a str,
}

impl CommandCheck<'_> {
    /// What every command, given or recorded, must have: the producer, consumer, queue,
    /// group, log or dependency it names exists, and its numbers are in range.
    fn names_and_ranges(&self, fault: &Command) -> Result<(), ScenarioError> {
        match fault {
            Command::CrashConsumer { .. }
            | Command::RestartConsumer { .. }
            | Command::DropNextAck { .. }
            | Command::SlowConsumer { .. } => self.consumer_fault(fault),
            Command::CrashProducer { .. }
            | Command::RestartProducer { .. }
            | Command::DropNextConfirm { .. }
            | Command::InjectPoison { .. }
            | Command::SetArrivals { .. } => self.producer_command(fault),
            Command::CrashBroker { restart_after_s } => self.restart(*restart_after_s),
            Command::RestartBroker => Ok(()),
            Command::CrashMember { .. }
            | Command::AddMember { .. }
            | Command::SeekToEarliest { .. }
            | Command::SeekTo { .. }
            | Command::SetGroupOrdering { .. }
            | Command::SetPartitions { .. } => self.log_command(fault),
            Command::DependencyOutage { .. }
            | Command::Redrive { .. }
            | Command::DeployFix { .. }
            | Command::SetVisibilityTimeout { .. }
            | Command::SetConsumerTimeout { .. }
            | Command::SetFlavour { .. }
            | Command::SetQueueBound { .. } => self.queue_command(fault),
            Command::SetServiceTime { .. }
            | Command::SetConsumerCount { .. }
            | Command::SetPrefetch { .. }
            | Command::SetAckMode { .. }
            | Command::SetIdempotency { .. }
            | Command::SetOrdering { .. }
            | Command::SetRetry { .. } => self.consumer_setting(fault),
            Command::SlowDependency { .. }
            | Command::SetDependencyCapacity { .. }
            | Command::SetDependencyTimeout { .. }
            | Command::SetRetryBudget { .. }
            | Command::SetBreaker { .. }
            | Command::SetAdmission { .. } => self.dependency_command(fault),
        }
    }

    /// A command given now (scheduled, or an intervention being made) must also be able
    /// to act some time in the run: what it needs is fixed for the whole run, so one
    /// that finds nothing to act on now never would, and a hidden (interview) fault would
    /// stay armed in silence. A command recorded in an earlier run (a link's or a file's
    /// `interventions`) skips this: it is taken as it was given then, even one refused
    /// since (2026-12-04), so that links and files made before keep opening and replay
    /// step for step as they did; the run says it had nothing to act on.
    fn can_ever_act(&self, fault: &Command) -> Result<(), ScenarioError> {
        match fault {
            Command::CrashProducer {
                producer, point, ..
            } => self.producer_crash_point(*producer, *point),
            Command::DropNextConfirm { producer } => self.confirm_to_lose(*producer),
            // The outage and the fix act on the queue's consumers only, and a queue with
            // none never gets any (scaling needs consumers to copy from).
            Command::DependencyOutage { queue, .. } | Command::DeployFix { queue, .. } => {
                self.consumed_queue(queue)
            }
            Command::Redrive { queue, .. } => self.dead_letter_queue(queue),
            Command::SlowDependency { .. }
            | Command::SetDependencyCapacity { .. }
            | Command::SetDependencyTimeout { .. }
            | Command::SetRetryBudget { .. }
            | Command::SetBreaker { .. }
            | Command::SetAdmission { .. } => self.called(dependency::command_target(fault)),
            _ => Ok(()),
        }
    }

    /// An error about `name`, a field of the command.
    fn err(&self, name: &str, problem: impl Into<String>) -> ScenarioError {
        err(format!("{}.{name}", self.field), problem)
    }

    /// Where the command's field `name` sits, for the shared range checks.
    fn at(&self, name: &str) -> String {
        format!("{}.{name}", self.field)
    }

    fn consumer(&self, c: ConsumerId) -> Result<(), ScenarioError> {
        // Only consumer commands ask whether commands scale consumers: that look goes over
        // every command, and validation runs this for each of up to 10,000 of them.
        let consumers = if self.scenario.scales_consumers() {
            limits::CONSUMERS_MAX as u32
        } else {
            self.scenario.consumer_count()
        };
        if c.get() >= consumers {
            Err(self.err(
                "consumer",
                format!("there is no consumer {c} (there are {consumers})"),
            ))
        } else {
            Ok(())
        }
    }

    fn producer(&self, p: ProducerId) -> Result<(), ScenarioError> {
        let producers = self.scenario.producers.len() as u32;
        if p.get() >= producers {
            Err(self.err(
                "producer",
                format!("there is no producer {p} (there are {producers})"),
            ))
        } else {
            Ok(())
        }
    }

    fn queue(&self, queue: &str) -> Result<(), ScenarioError> {
        match self.scenario.queue_index(queue) {
            Some(_) => Ok(()),
            None => Err(self.err("queue", format!("there is no queue {queue:?}"))),
        }
    }

    /// Commands about a dependency: it exists and the new values are in range.
    fn dependency_command(&self, fault: &Command) -> Result<(), ScenarioError> {
        let d = dependency::command_target(fault);
        if self.scenario.dependency_index(d).is_none() {
            return Err(self.err("dependency", format!("there is no dependency {d:?}")));
        }
        dependency::validate_command(self.field, fault)
    }

    /// Only consumers call a dependency (those scaling adds call what their queue's first
    /// one calls), and no command changes what a consumer calls: a slowdown or a setting
    /// of a dependency nobody calls could never act, as a setting of a queue without
    /// consumers could not.
    fn called(&self, d: &str) -> Result<(), ScenarioError> {
        if self.scenario.consumers.iter().any(|c| c.calls == d) {
            Ok(())
        } else {
            Err(self.err("dependency", format!("no consumer calls dependency {d:?}")))
        }
    }

    /// A queue without a dead-letter queue loses what fails for good, and no command gives
    /// it one: its redrive could never move anything. (One with a dead-letter queue that is
    /// empty when the redrive comes is a moot, said then: it may fill later.)
    fn dead_letter_queue(&self, queue: &str) -> Result<(), ScenarioError> {
        let q = self
            .scenario
            .queue_index(queue)
            .expect("names checked first");
        if self.scenario.queues[q].dead_letter {
            Ok(())
        } else {
            Err(self.err(
                "queue",
                format!("queue {queue:?} has no dead-letter queue: there is nothing to redrive"),
            ))
        }
    }

    /// Settings of a queue's consumers need a queue that has consumers to copy from.
    fn consumed_queue(&self, queue: &str) -> Result<(), ScenarioError> {
        self.queue(queue)?;
        let q = self.scenario.queue_index(queue).expect("checked");
        let s = self.scenario;
        if s.consumers.iter().any(|c| s.queue_of(c) == q) {
            Ok(())
        } else {
            Err(self.err("queue", format!("queue {queue:?} has no consumers")))
        }
    }

    fn group(&self, group: GroupId) -> Result<&GroupSpec, ScenarioError> {
        self.scenario
            .groups
            .get(group.index())
            .ok_or_else(|| self.err("group", format!("there is no consumer group {group}")))
    }

    fn restart(&self, restart_after_s: Option<f64>) -> Result<(), ScenarioError> {
        match restart_after_s {
            Some(r) => check_range(&self.at("restart_after_s"), r, 0.0, limits::TIME_S_MAX),
            None => Ok(()),
        }
    }

    /// Crashing, restarting, slowing a queue consumer, or losing its next ack.
    fn consumer_fault(&self, fault: &Command) -> Result<(), ScenarioError> {
        match fault {
            Command::CrashConsumer {
                consumer,
                restart_after_s,
                ..
            } => {
                self.consumer(*consumer)?;
                self.restart(*restart_after_s)
            }
            Command::RestartConsumer { consumer } | Command::DropNextAck { consumer } => {
                self.consumer(*consumer)
            }
            Command::SlowConsumer { consumer, factor } => {
                self.consumer(*consumer)?;
                check_range(&self.at("factor"), *factor, 0.01, 1000.0)
            }
            _ => unreachable!("validate_command sends only consumer faults here"),
        }
    }

    /// Crashing or restarting a producer, losing its next confirm, making it publish a
    /// poison message, or changing its arrivals.
    fn producer_command(&self, fault: &Command) -> Result<(), ScenarioError> {
        match fault {
            Command::CrashProducer {
                producer,
                restart_after_s,
                ..
            } => {
                self.producer(*producer)?;
                self.restart(*restart_after_s)
            }
            Command::RestartProducer { producer }
            | Command::DropNextConfirm { producer }
            | Command::InjectPoison { producer, .. } => self.producer(*producer),
            Command::SetArrivals {
                producer, schedule, ..
            } => {
                self.producer(*producer)?;
                if !self.scenario.producers[(*producer).index()]
                    .script
                    .is_empty()
                {
                    return Err(self.err(
                        "producer",
                        "this producer follows a script; its arrivals cannot change",
                    ));
                }
                validate_schedule(&self.at("schedule"), schedule)
            }
            _ => unreachable!("validate_command sends only producer commands here"),
        }
    }

    /// A producer crash armed for a point of its work needs a producer whose work has that
    /// point: a crash after a state commit, before its publish, strikes only a producer that
    /// commits then publishes (a direct producer commits nothing first; an outbox producer's
    /// commit holds the row, which its relay publishes later); a crash of the outbox relay,
    /// only a producer with an outbox. No command gives a producer another handoff during a
    /// run, so one armed on a producer without that point could never strike: it would
    /// stay armed in silence (an interview's hidden fault revealed as if it had been there).
    fn producer_crash_point(
        &self,
        producer: ProducerId,
        point: ProducerCrashPoint,
    ) -> Result<(), ScenarioError> {
        let handoff = &self.scenario.producers[producer.index()].handoff;
        match point {
            ProducerCrashPoint::Now => Ok(()),
            ProducerCrashPoint::AfterCommitBeforePublish => {
                if *handoff == Handoff::CommitThenPublish {
                    Ok(())
                } else {
                    Err(self.err(
                        "point",
                        "this producer does not commit then publish: there is no publish after its commit to crash before",
                    ))
                }
            }
            ProducerCrashPoint::AfterPublishBeforeMark => {
                if matches!(handoff, Handoff::Outbox { .. }) {
                    Ok(())
                } else {
                    Err(self.err(
                        "point",
                        "this producer has no outbox: there is no relay to crash",
                    ))
                }
            }
        }
    }

    /// The loss of a producer's next confirm needs a producer that waits for confirms:
    /// one with `publish.confirms`, or with an outbox (its relay always waits). Refused,
    /// not left to the run to find moot: a producer's publish settings and handoff are
    /// fixed for the whole run (no command or setting switches confirms on or off, unlike
    /// a consumer's ack mode, which `set_ack_mode` changes: that is why a lost ack armed
    /// on a consumer that acks on delivery is taken and waits), and compare mode fixes
    /// them per side. So a producer that does not wait for a confirm when the command
    /// strikes never will: the command could never act. Refusing it says so when it is
    /// given, a hidden (interview) one included, which a moot would have kept quiet. Were
    /// a setting ever to switch confirms on, this check would have to count the settings
    /// before the command, as `validate_member_commands` counts joins.
    fn confirm_to_lose(&self, producer: ProducerId) -> Result<(), ScenarioError> {
        let p = &self.scenario.producers[producer.index()];
        if p.publish.confirms || matches!(p.handoff, Handoff::Outbox { .. }) {
            Ok(())
        } else {
            Err(self.err(
                "producer",
                "this producer does not wait for publisher confirms: there is no confirm to lose",
            ))
        }
    }

    /// Commands about logs and their consumer groups: members crashing and joining,
    /// rewinds, more partitions.
    fn log_command(&self, fault: &Command) -> Result<(), ScenarioError> {
        match fault {
            Command::CrashMember {
                group,
                member,
                restart_after_s,
                ..
            } => {
                let g = self.group(*group)?;
                // Members that joined later have higher numbers; allow up to the limit.
                if *member >= limits::MEMBERS_MAX
                    || (*member >= g.members && g.members == limits::MEMBERS_MAX)
                {
                    return Err(self.err("member", format!("there is no member {member}")));
                }
                self.restart(*restart_after_s)
            }
            Command::AddMember { group }
            | Command::SeekToEarliest { group }
            | Command::SeekTo { group, .. } => self.group(*group).map(|_| ()),
            Command::SetGroupOrdering { group, ordering } => {
                self.group(*group)?;
                if matches!(ordering, Ordering::None | Ordering::IgnoreStale) {
                    Ok(())
                } else {
                    Err(self.err("ordering", "a group supports none or ignore_stale"))
                }
            }
            Command::SetPartitions { log, partitions } => {
                if self.scenario.log_index(log).is_none() {
                    return Err(self.err("log", format!("there is no log {log:?}")));
                }
                let max = u64::from(limits::PARTITIONS_MAX);
                check_count(&self.at("partitions"), u64::from(*partitions), 1, max)
            }
            _ => unreachable!("validate_command sends only log commands here"),
        }
    }

    /// Commands about a queue itself, or about its dependency.
    fn queue_command(&self, fault: &Command) -> Result<(), ScenarioError> {
        match fault {
            Command::DependencyOutage { queue, for_s } => {
                self.queue(queue)?;
                check_range(&self.at("for_s"), *for_s, 0.0, limits::TIME_S_MAX)
            }
            Command::Redrive { queue, rate_per_s } => {
                self.queue(queue)?;
                let max = limits::RATE_PER_S_MAX;
                check_range(&self.at("rate_per_s"), *rate_per_s, 0.001, max)
            }
            Command::DeployFix { queue, .. } => self.queue(queue),
            Command::SetVisibilityTimeout { queue, seconds }
            | Command::SetConsumerTimeout { queue, seconds } => {
                self.queue(queue)?;
                let max = limits::TIME_S_MAX;
                check_range(&self.at("seconds"), *seconds, 0.000_001, max)
            }
            Command::SetFlavour { queue, .. } => self.queue(queue),
            Command::SetQueueBound {
                queue, max_length, ..
            } => {
                self.queue(queue)?;
                match max_length {
                    Some(n) => check_count(&self.at("max_length"), *n, 1, limits::LENGTH_MAX),
                    None => Ok(()),
                }
            }
            _ => unreachable!("validate_command sends only queue commands here"),
        }
    }

    /// New settings for every consumer of a queue.
    fn consumer_setting(&self, fault: &Command) -> Result<(), ScenarioError> {
        match fault {
            Command::SetServiceTime { queue, service } => {
                self.consumed_queue(queue)?;
                validate_service(&self.at("service"), service)
            }
            Command::SetConsumerCount { queue, count } => {
                self.consumed_queue(queue)?;
                let max = limits::SCALE_MAX as u64;
                check_count(&self.at("count"), u64::from(*count), 0, max)
            }
            Command::SetPrefetch { queue, prefetch } => {
                self.consumed_queue(queue)?;
                let max = u64::from(limits::PREFETCH_MAX);
                check_count(&self.at("prefetch"), u64::from(*prefetch), 1, max)
            }
            Command::SetAckMode { queue, .. }
            | Command::SetIdempotency { queue, .. }
            | Command::SetOrdering { queue, .. } => self.consumed_queue(queue),
            Command::SetRetry { queue, retry } => {
                self.consumed_queue(queue)?;
                validate_retry(&self.at("retry"), retry)
            }
            _ => unreachable!("validate_command sends only consumer settings here"),
        }
    }
}
