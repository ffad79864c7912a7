//! Faults scheduled at chosen instants: the scenario's `commands`, which the user edits as
//! a list ("crash C1 after its next commit at 12 s"). Unlike a click on a card, a scheduled
//! fault is part of the scenario: the run starts again with it and a link carries it.
//! Here: what can be scheduled (a table), the command a choice makes, each scheduled
//! command in words, the scenario with one added or removed, and the timeline's markers.

use brokerlab_core::{
    ArrivalProcess, Command, ConsumerId, CrashPoint, GroupId, MemberCrashPoint, Poison,
    ProducerCrashPoint, ProducerId, RateSegment, Scenario, ScheduledCommand, Simulation,
};

use crate::format::seconds;

/// What a scheduled command acts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Consumer,
    Producer,
    Broker,
    Group,
}

/// The number a kind of command asks for besides its instant, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extra {
    None,
    /// Seconds until it comes back; empty: it stays down.
    RestartAfter,
    /// How many times slower (1 restores it).
    Factor,
    /// Messages per second from then on.
    Rate,
}

impl Extra {
    /// The extra field's label, if it has one.
    pub fn label(self) -> Option<&'static str> {
        match self {
            Extra::None => None,
            Extra::RestartAfter => Some("Back after (s; empty: stays down)"),
            Extra::Factor => Some("Times slower"),
            Extra::Rate => Some("New rate (msgs/s)"),
        }
    }
}

/// One kind of command the schedule offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kind {
    /// A stable name (the select's value, test hooks).
    pub key: &'static str,
    /// What the option says.
    pub label: &'static str,
    pub target: Target,
    pub extra: Extra,
}

const fn kind(key: &'static str, label: &'static str, target: Target, extra: Extra) -> Kind {
    Kind {
        key,
        label,
        target,
        extra,
    }
}

/// Everything the schedule offers, in the order of its select.
pub const KINDS: &[Kind] = &[
    kind(
        "crash-consumer",
        "Crash consumer now",
        Target::Consumer,
        Extra::RestartAfter,
    ),
    kind(
        "crash-consumer-after-receive",
        "Crash consumer after its next delivery, before any work",
        Target::Consumer,
        Extra::RestartAfter,
    ),
    kind(
        "crash-consumer-after-commit",
        "Crash consumer after its next commit, before the ack",
        Target::Consumer,
        Extra::RestartAfter,
    ),
    kind(
        "restart-consumer",
        "Restart consumer",
        Target::Consumer,
        Extra::None,
    ),
    kind(
        "slow-consumer",
        "Slow consumer down",
        Target::Consumer,
        Extra::Factor,
    ),
    kind(
        "drop-next-ack",
        "Drop consumer's next ack",
        Target::Consumer,
        Extra::None,
    ),
    kind(
        "crash-producer",
        "Crash producer now",
        Target::Producer,
        Extra::RestartAfter,
    ),
    kind(
        "crash-producer-after-commit",
        "Crash producer after its next state commit, before the publish",
        Target::Producer,
        Extra::RestartAfter,
    ),
    kind(
        "crash-relay-after-publish",
        "Crash outbox relay after its next publish, before marking the row",
        Target::Producer,
        Extra::RestartAfter,
    ),
    kind(
        "restart-producer",
        "Restart producer",
        Target::Producer,
        Extra::None,
    ),
    kind(
        "drop-next-confirm",
        "Drop producer's next confirm",
        Target::Producer,
        Extra::None,
    ),
    kind(
        "inject-poison",
        "Publish one poison message",
        Target::Producer,
        Extra::None,
    ),
    kind(
        "rate",
        "Change producer's rate",
        Target::Producer,
        Extra::Rate,
    ),
    kind(
        "crash-broker",
        "Crash the broker",
        Target::Broker,
        Extra::RestartAfter,
    ),
    kind(
        "restart-broker",
        "Restart the broker",
        Target::Broker,
        Extra::None,
    ),
    kind(
        "crash-member",
        "Crash group member 1",
        Target::Group,
        Extra::RestartAfter,
    ),
    kind(
        "add-member",
        "Add a group member",
        Target::Group,
        Extra::None,
    ),
];

/// The kind named `key`.
pub fn kind_named(key: &str) -> Option<Kind> {
    KINDS.iter().copied().find(|k| k.key == key)
}

/// The names of what a scheduled command can act on, numbered as commands number them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Names {
    pub consumers: Vec<String>,
    pub producers: Vec<String>,
    pub groups: Vec<String>,
}

impl Names {
    /// The components of a run at its start (consumers a scale-out adds later are not
    /// there yet, and a schedule cannot count on them).
    pub fn of(sim: &Simulation) -> Self {
        let first = sim.scenario().consumer_count() as usize;
        Self {
            consumers: sim
                .consumer_ids()
                .take(first)
                .filter_map(|c| sim.consumer(c).map(|v| v.name))
                .collect(),
            producers: sim
                .producer_ids()
                .map(|p| sim.producer_name(p).unwrap_or("producer").to_string())
                .collect(),
            groups: sim.group_ids().map(|g| sim.group_name(g)).collect(),
        }
    }

    /// The components a kind of command can name: (index, name).
    pub fn for_target(&self, target: Target) -> Vec<(usize, String)> {
        let list = match target {
            Target::Consumer => &self.consumers,
            Target::Producer => &self.producers,
            Target::Group => &self.groups,
            Target::Broker => return vec![(0, "the broker".to_string())],
        };
        list.iter().cloned().enumerate().collect()
    }

    fn consumer(&self, c: ConsumerId) -> String {
        self.consumers
            .get(c.index())
            .cloned()
            .unwrap_or_else(|| format!("consumer {c}"))
    }

    fn producer(&self, p: ProducerId) -> String {
        self.producers
            .get(p.index())
            .cloned()
            .unwrap_or_else(|| format!("producer {p}"))
    }

    fn group(&self, g: GroupId) -> String {
        self.groups
            .get(g.index())
            .cloned()
            .unwrap_or_else(|| format!("group {g}"))
    }
}

/// What the user chose in the schedule's form.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    pub kind: Kind,
    /// Index among [`Names::for_target`] of the kind's target.
    pub target: usize,
    pub at_s: f64,
    /// The kind's extra number, when it has one and it was given.
    pub extra: Option<f64>,
}

/// The scheduled command a choice makes. The scenario checks it when it is added.
pub fn command_of(choice: &Choice, base: &Scenario) -> Result<ScheduledCommand, String> {
    if !choice.at_s.is_finite() || choice.at_s < 0.0 {
        return Err("The instant must be a number of seconds, 0 or more.".into());
    }
    let consumer = ConsumerId::from_index(choice.target);
    let producer = ProducerId::from_index(choice.target);
    let group = GroupId::from_index(choice.target);
    let restart_after_s = choice.extra;
    let crash = |point| Command::CrashConsumer {
        consumer,
        point,
        restart_after_s,
    };
    let crash_producer = |point| Command::CrashProducer {
        producer,
        point,
        restart_after_s,
    };
    let command = match choice.kind.key {
        "crash-consumer" => crash(CrashPoint::Now),
        "crash-consumer-after-receive" => crash(CrashPoint::AfterReceive),
        "crash-consumer-after-commit" => crash(CrashPoint::AfterCommitBeforeAck),
        "restart-consumer" => Command::RestartConsumer { consumer },
        "slow-consumer" => Command::SlowConsumer {
            consumer,
            factor: choice.extra.ok_or("Say how many times slower.")?,
        },
        "drop-next-ack" => Command::DropNextAck { consumer },
        "crash-producer" => crash_producer(ProducerCrashPoint::Now),
        "crash-producer-after-commit" => {
            crash_producer(ProducerCrashPoint::AfterCommitBeforePublish)
        }
        "crash-relay-after-publish" => crash_producer(ProducerCrashPoint::AfterPublishBeforeMark),
        "restart-producer" => Command::RestartProducer { producer },
        "drop-next-confirm" => Command::DropNextConfirm { producer },
        "inject-poison" => Command::InjectPoison {
            producer,
            poison: Poison::MalformedPayload,
        },
        "rate" => rate_change(base, producer, choice.extra)?,
        "crash-broker" => Command::CrashBroker { restart_after_s },
        "restart-broker" => Command::RestartBroker,
        "crash-member" => Command::CrashMember {
            group,
            member: 0,
            point: MemberCrashPoint::Now,
            restart_after_s,
        },
        "add-member" => Command::AddMember { group },
        other => return Err(format!("Unknown kind of command “{other}”.")),
    };
    Ok(ScheduledCommand {
        at_s: choice.at_s,
        command,
    })
}

/// A steady new rate for a producer, keeping how its arrivals are spaced.
fn rate_change(
    base: &Scenario,
    producer: ProducerId,
    rate: Option<f64>,
) -> Result<Command, String> {
    let rate_per_s = rate.ok_or("Say the new rate.")?;
    let process = base
        .producers
        .get(producer.index())
        .map_or(ArrivalProcess::Constant, |p| p.arrivals.process);
    Ok(Command::SetArrivals {
        producer,
        process,
        schedule: vec![RateSegment {
            from_s: 0.0,
            rate_per_s,
        }],
    })
}

/// The scenario with `scheduled` added, the list kept in time order (a command at the
/// same instant as others goes after them, as it was added last).
pub fn with_added(base: &Scenario, scheduled: ScheduledCommand) -> Scenario {
    let mut next = base.clone();
    next.interventions.clear();
    let at = insert_position(base, scheduled.at_s);
    next.commands.insert(at, scheduled);
    next
}

/// Where [`with_added`] puts a command scheduled at `at_s` in the list.
pub fn insert_position(base: &Scenario, at_s: f64) -> usize {
    base.commands
        .iter()
        .position(|c| c.at_s > at_s)
        .unwrap_or(base.commands.len())
}

/// The scenario without its scheduled command number `index`.
pub fn with_removed(base: &Scenario, index: usize) -> Scenario {
    let mut next = base.clone();
    next.interventions.clear();
    if index < next.commands.len() {
        next.commands.remove(index);
    }
    next
}

/// " (back 5 s later)", or " (stays down)".
fn comeback(restart_after_s: Option<f64>) -> String {
    match restart_after_s {
        Some(s) => format!(" (back {} later)", seconds(s)),
        None => " (stays down)".to_string(),
    }
}

/// A scheduled command in words, without its instant: "crash C1 after its next commit,
/// before the ack (back 5 s later)".
pub fn describe(command: &Command, names: &Names) -> String {
    match command {
        Command::CrashConsumer {
            consumer,
            point,
            restart_after_s,
        } => {
            let when = match point {
                CrashPoint::Now => "",
                CrashPoint::AfterReceive => " after its next delivery, before any work",
                CrashPoint::AfterCommitBeforeAck => " after its next commit, before the ack",
            };
            let name = names.consumer(*consumer);
            format!("crash {name}{when}{}", comeback(*restart_after_s))
        }
        Command::RestartConsumer { consumer } => format!("restart {}", names.consumer(*consumer)),
        Command::SlowConsumer { consumer, factor } => {
            format!("{} works {factor}× slower", names.consumer(*consumer))
        }
        Command::DropNextAck { consumer } => {
            format!("the next ack of {} is lost", names.consumer(*consumer))
        }
        Command::CrashProducer {
            producer,
            point,
            restart_after_s,
        } => {
            let (who, when) = match point {
                ProducerCrashPoint::Now => ("", ""),
                ProducerCrashPoint::AfterCommitBeforePublish => {
                    ("", " after its next state commit, before the publish")
                }
                ProducerCrashPoint::AfterPublishBeforeMark => (
                    "the outbox relay of ",
                    " after its next publish, before marking the row",
                ),
            };
            let name = names.producer(*producer);
            format!("crash {who}{name}{when}{}", comeback(*restart_after_s))
        }
        Command::RestartProducer { producer } => format!("restart {}", names.producer(*producer)),
        Command::DropNextConfirm { producer } => {
            format!("the next confirm to {} is lost", names.producer(*producer))
        }
        Command::InjectPoison { producer, .. } => {
            format!("{} publishes a poison message", names.producer(*producer))
        }
        Command::SetArrivals {
            producer, schedule, ..
        } => {
            let rate = schedule.first().map_or(0.0, |s| s.rate_per_s);
            format!("{} publishes {rate} msgs/s", names.producer(*producer))
        }
        Command::CrashBroker { restart_after_s } => {
            format!("crash the broker{}", comeback(*restart_after_s))
        }
        Command::RestartBroker => "restart the broker".to_string(),
        Command::CrashMember {
            group,
            member,
            restart_after_s,
            ..
        } => format!(
            "crash member {} of {}{}",
            member + 1,
            names.group(*group),
            comeback(*restart_after_s)
        ),
        Command::AddMember { group } => format!("a member joins {}", names.group(*group)),
        other => generic(other),
    }
}

/// Any other command, named as the scenario file names it ("set service time on jobs").
fn generic(command: &Command) -> String {
    let json = serde_json::to_value(command).unwrap_or_default();
    let (name, body) = match &json {
        serde_json::Value::String(name) => (name.clone(), None),
        serde_json::Value::Object(map) => map
            .iter()
            .next()
            .map_or((String::new(), None), |(k, v)| (k.clone(), Some(v))),
        _ => (String::new(), None),
    };
    let words = name.replace('_', " ");
    let on = body
        .and_then(|b| b.get("queue").or_else(|| b.get("log")))
        .and_then(|q| q.as_str())
        .map(|q| format!(" on {q}"))
        .unwrap_or_default();
    format!("{words}{on}")
}

/// "at 12 s: crash C1 after its next commit, before the ack (back 5 s later)".
pub fn line(scheduled: &ScheduledCommand, names: &Names) -> String {
    format!(
        "at {}: {}",
        seconds(scheduled.at_s),
        describe(&scheduled.command, names)
    )
}

/// A scheduled command shown on the timeline.
#[derive(Clone, Debug, PartialEq)]
pub struct Marker {
    pub at_s: f64,
    /// Where along the timeline, 0 to 100 (clamped: one past its end sits at the end).
    pub percent: f64,
    /// What it does, in words, with its instant.
    pub label: String,
    /// Already happened at `now_s`.
    pub past: bool,
}

/// The timeline's markers of the scheduled commands, for a timeline ending at `end_s`.
pub fn markers(base: &Scenario, names: &Names, end_s: f64, now_s: f64) -> Vec<Marker> {
    base.commands
        .iter()
        .map(|c| Marker {
            at_s: c.at_s,
            percent: if end_s > 0.0 {
                (c.at_s / end_s * 100.0).clamp(0.0, 100.0)
            } else {
                0.0
            },
            label: line(c, names),
            past: c.at_s <= now_s,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::examples;

    fn base(name: &str) -> (Scenario, Names) {
        let s = examples::load(name).expect("built in");
        let names = Names::of(&Simulation::new(s.clone()).expect("valid"));
        (s, names)
    }

    #[test]
    fn the_issues_example_crash_c1_after_its_next_commit_at_12_s() {
        let (s, names) = base("crash-after-commit");
        let choice = Choice {
            kind: kind_named("crash-consumer-after-commit").expect("offered"),
            target: 0,
            at_s: 12.0,
            extra: Some(5.0),
        };
        let scheduled = command_of(&choice, &s).expect("valid");
        assert_eq!(
            scheduled.command,
            Command::CrashConsumer {
                consumer: ConsumerId::new(0),
                point: CrashPoint::AfterCommitBeforeAck,
                restart_after_s: Some(5.0),
            }
        );
        assert_eq!(
            line(&scheduled, &names),
            "at 12.0 s: crash C1 after its next commit, before the ack (back 5.0 s later)"
        );
        let next = with_added(&s, scheduled.clone());
        next.validate().expect("the scenario takes it");
        assert_eq!(next.commands.last(), Some(&scheduled));
    }

    #[test]
    fn every_kind_makes_a_command_its_target_scenario_accepts() {
        for (name, target) in [
            ("burst", Target::Consumer),
            ("outbox-relay-crash", Target::Producer),
            ("burst", Target::Broker),
        ] {
            let (s, _) = base(name);
            for kind in KINDS.iter().filter(|k| k.target == target) {
                let extra = (kind.extra != Extra::None).then_some(2.0);
                let choice = Choice {
                    kind: *kind,
                    target: 0,
                    at_s: 1.0,
                    extra,
                };
                let scheduled = command_of(&choice, &s).expect(kind.key);
                with_added(&s, scheduled)
                    .validate()
                    .unwrap_or_else(|e| panic!("{name} {}: {e}", kind.key));
            }
        }
        let keys: std::collections::HashSet<_> = KINDS.iter().map(|k| k.key).collect();
        assert_eq!(keys.len(), KINDS.len(), "keys are unique");
    }

    #[test]
    fn a_bad_instant_or_a_missing_number_is_explained() {
        let (s, _) = base("burst");
        let mut choice = Choice {
            kind: kind_named("slow-consumer").expect("offered"),
            target: 0,
            at_s: 3.0,
            extra: None,
        };
        assert!(command_of(&choice, &s).is_err(), "no factor");
        choice.extra = Some(4.0);
        choice.at_s = -1.0;
        assert!(command_of(&choice, &s).is_err(), "before the start");
        choice.at_s = f64::NAN;
        assert!(command_of(&choice, &s).is_err());
    }

    #[test]
    fn commands_stay_in_time_order_and_remove_takes_the_one_named() {
        let (s, names) = base("burst");
        let at = |at_s| ScheduledCommand {
            at_s,
            command: Command::RestartBroker,
        };
        let s = with_added(&with_added(&with_added(&s, at(30.0)), at(10.0)), at(20.0));
        let times: Vec<f64> = s.commands.iter().map(|c| c.at_s).collect();
        assert_eq!(times, [10.0, 20.0, 30.0]);
        let s = with_removed(&s, 1);
        let times: Vec<f64> = s.commands.iter().map(|c| c.at_s).collect();
        assert_eq!(times, [10.0, 30.0]);
        assert_eq!(
            with_removed(&s, 9).commands.len(),
            2,
            "out of range: nothing"
        );
        let m = markers(&s, &names, 200.0, 15.0);
        assert_eq!(m.len(), 2);
        assert_eq!((m[0].percent, m[0].past), (5.0, true));
        assert_eq!((m[1].percent, m[1].past), (15.0, false));
        assert_eq!(m[1].label, "at 30.0 s: restart the broker");
    }

    #[test]
    fn other_commands_are_named_as_the_file_names_them() {
        let names = Names::default();
        let c = Command::SetPrefetch {
            queue: "jobs".into(),
            prefetch: 3,
        };
        assert_eq!(describe(&c, &names), "set prefetch on jobs");
        assert_eq!(
            describe(
                &Command::DropNextAck {
                    consumer: ConsumerId::new(4)
                },
                &names
            ),
            "the next ack of consumer 4 is lost"
        );
    }
}
