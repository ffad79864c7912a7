//! Faults scheduled at chosen instants: the scenario's `commands`, which the user edits as
//! a list ("crash C1 after its next commit at 12 s"). Unlike a click on a card, a scheduled
//! fault is part of the scenario: the run starts again with it and a link carries it.
//! Here: what can be scheduled (a table), the command a choice makes, each scheduled
//! command in words, the scenario with one added or removed, and the timeline's markers.

use brokerlab_core::lessons::Lang;
use brokerlab_core::{
    ArrivalProcess, Command, ConsumerId, CrashPoint, GroupId, MemberCrashPoint, Poison,
    ProducerCrashPoint, ProducerId, RateSegment, Scenario, ScheduledCommand, Simulation,
};

use crate::format::{amount, count, seconds};
use crate::i18n::{locale, td_string};

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
    pub fn label(self, lang: Lang) -> Option<String> {
        let l = locale(lang);
        let text = match self {
            Extra::None => return None,
            Extra::RestartAfter => td_string!(l, panels.schedule.extra.restart_after),
            Extra::Factor => td_string!(l, panels.schedule.extra.factor),
            Extra::Rate => td_string!(l, panels.schedule.extra.rate),
        };
        Some(text.to_string())
    }
}

/// One kind of command the schedule offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kind {
    /// A stable name (the select's value, test hooks).
    pub key: &'static str,
    pub target: Target,
    pub extra: Extra,
}

const fn kind(key: &'static str, target: Target, extra: Extra) -> Kind {
    Kind { key, target, extra }
}

impl Kind {
    /// What the option says.
    pub fn label(self, lang: Lang) -> String {
        let l = locale(lang);
        match self.key {
            "crash-consumer" => td_string!(l, panels.schedule.kinds.crash_consumer),
            "crash-consumer-after-receive" => {
                td_string!(l, panels.schedule.kinds.crash_consumer_after_receive)
            }
            "crash-consumer-after-commit" => {
                td_string!(l, panels.schedule.kinds.crash_consumer_after_commit)
            }
            "restart-consumer" => td_string!(l, panels.schedule.kinds.restart_consumer),
            "slow-consumer" => td_string!(l, panels.schedule.kinds.slow_consumer),
            "drop-next-ack" => td_string!(l, panels.schedule.kinds.drop_next_ack),
            "crash-producer" => td_string!(l, panels.schedule.kinds.crash_producer),
            "crash-producer-after-commit" => {
                td_string!(l, panels.schedule.kinds.crash_producer_after_commit)
            }
            "crash-relay-after-publish" => {
                td_string!(l, panels.schedule.kinds.crash_relay_after_publish)
            }
            "restart-producer" => td_string!(l, panels.schedule.kinds.restart_producer),
            "drop-next-confirm" => td_string!(l, panels.schedule.kinds.drop_next_confirm),
            "inject-poison" => td_string!(l, panels.schedule.kinds.inject_poison),
            "rate" => td_string!(l, panels.schedule.kinds.rate),
            "crash-broker" => td_string!(l, panels.schedule.kinds.crash_broker),
            "restart-broker" => td_string!(l, panels.schedule.kinds.restart_broker),
            "crash-member" => td_string!(l, panels.schedule.kinds.crash_member),
            "add-member" => td_string!(l, panels.schedule.kinds.add_member),
            other => other,
        }
        .to_string()
    }
}

/// Everything the schedule offers, in the order of its select.
pub const KINDS: &[Kind] = &[
    kind("crash-consumer", Target::Consumer, Extra::RestartAfter),
    kind(
        "crash-consumer-after-receive",
        Target::Consumer,
        Extra::RestartAfter,
    ),
    kind(
        "crash-consumer-after-commit",
        Target::Consumer,
        Extra::RestartAfter,
    ),
    kind("restart-consumer", Target::Consumer, Extra::None),
    kind("slow-consumer", Target::Consumer, Extra::Factor),
    kind("drop-next-ack", Target::Consumer, Extra::None),
    kind("crash-producer", Target::Producer, Extra::RestartAfter),
    kind(
        "crash-producer-after-commit",
        Target::Producer,
        Extra::RestartAfter,
    ),
    kind(
        "crash-relay-after-publish",
        Target::Producer,
        Extra::RestartAfter,
    ),
    kind("restart-producer", Target::Producer, Extra::None),
    kind("drop-next-confirm", Target::Producer, Extra::None),
    kind("inject-poison", Target::Producer, Extra::None),
    kind("rate", Target::Producer, Extra::Rate),
    kind("crash-broker", Target::Broker, Extra::RestartAfter),
    kind("restart-broker", Target::Broker, Extra::None),
    kind("crash-member", Target::Group, Extra::RestartAfter),
    kind("add-member", Target::Group, Extra::None),
];

impl Extra {
    /// What the extra field holds when its kind is chosen.
    pub fn initial_text(self) -> &'static str {
        match self {
            Extra::Factor => "4",
            Extra::Rate => "10",
            Extra::None | Extra::RestartAfter => "5",
        }
    }

    /// A value the extra field could hold, to ask whether a kind fits a scenario.
    fn example(self) -> Option<f64> {
        match self {
            Extra::None => None,
            Extra::RestartAfter => Some(5.0),
            Extra::Factor => Some(4.0),
            Extra::Rate => Some(10.0),
        }
    }
}

/// What the schedule's form offers for one scenario: the kinds of command it can take,
/// each with the components it can act on (index, name), in the order of [`KINDS`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Offer(Vec<(Kind, Vec<(usize, String)>)>);

impl Offer {
    /// The kinds offered, in the select's order.
    pub fn kinds(&self) -> impl Iterator<Item = Kind> + '_ {
        self.0.iter().map(|(k, _)| *k)
    }

    /// The components offered for `kind` (none when the kind is not offered).
    pub fn targets(&self, kind: Kind) -> Vec<(usize, String)> {
        self.0
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, targets)| targets.clone())
            .unwrap_or_default()
    }

    /// Where the form's choice of `kind` and `target` goes on this offer: unchanged if
    /// offered, else the kind's first component, else the first kind offered (the broker
    /// can always be crashed, so there is one).
    pub fn settle(&self, kind: Kind, target: usize) -> Option<(Kind, usize)> {
        let first_of = |k: Kind| self.targets(k).first().map(|(i, _)| (k, *i));
        match self.targets(kind) {
            ts if ts.iter().any(|(i, _)| *i == target) => Some((kind, target)),
            ts if !ts.is_empty() => first_of(kind),
            _ => self.kinds().next().and_then(first_of),
        }
    }
}

/// The kinds of command `base` can take, each with the components it can act on. A kind
/// with nothing to act on is left out, so that the form never offers what the scenario
/// would refuse: no member crash without a consumer group, no relay crash without an
/// outbox.
pub fn offered(base: &Scenario, names: &Names, lang: Lang) -> Offer {
    let kinds = KINDS.iter().filter_map(|&kind| {
        let targets: Vec<(usize, String)> = names
            .for_target(kind.target, lang)
            .into_iter()
            .filter(|&(target, _)| takes(base, kind, target))
            .collect();
        (!targets.is_empty()).then_some((kind, targets))
    });
    Offer(kinds.collect())
}

/// Whether `base` takes a command of `kind` on component number `target`.
fn takes(base: &Scenario, kind: Kind, target: usize) -> bool {
    let choice = Choice {
        kind,
        target,
        at_s: 0.0,
        extra: kind.extra.example(),
    };
    command_of(&choice, base, Lang::En).is_ok_and(|c| base.accepts_command(&c.command))
}

/// Why an instant past the scenario's end cannot be scheduled (the fault would never
/// strike, and a hidden one would leave the candidate looking for nothing), if it is. One
/// at the end itself is taken: the run takes it as its last step.
pub fn past_the_end(base: &Scenario, at_s: f64, lang: Lang) -> Option<String> {
    let end_s = base.end_s?;
    (at_s > end_s).then(|| {
        td_string!(
            locale(lang),
            panels.schedule.past_end,
            end = seconds(end_s, lang)
        )
        .to_string()
    })
}

/// What the list says beside each scheduled command, by its place in `base.commands`:
/// for one at or after the scenario's end (a file may hold one after it; the form refuses
/// that), after the end it will not happen, at the end nothing after it can show what it
/// does. `None` for a command before the end. Worked out once for the whole list, so a
/// schedule of thousands of commands costs one pass, not one per command.
pub fn late_notes(base: &Scenario, lang: Lang) -> Vec<Option<String>> {
    let mut notes = vec![None; base.commands.len()];
    let l = locale(lang);
    for late in base.late_commands() {
        let note = if late.never_happens() {
            td_string!(
                l,
                panels.schedule.after_end,
                end = seconds(late.end_s, lang)
            )
            .to_string()
        } else {
            td_string!(l, panels.schedule.at_end).to_string()
        };
        if let Some(slot) = notes.get_mut(late.index) {
            *slot = Some(note);
        }
    }
    notes
}

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
                .map(|p| match sim.producer_name(p) {
                    Some(name) => name.to_string(),
                    None => format!("#{}", p.index()),
                })
                .collect(),
            groups: sim.group_ids().map(|g| sim.group_name(g)).collect(),
        }
    }

    /// The components a kind of command can name: (index, name).
    pub fn for_target(&self, target: Target, lang: Lang) -> Vec<(usize, String)> {
        let list = match target {
            Target::Consumer => &self.consumers,
            Target::Producer => &self.producers,
            Target::Group => &self.groups,
            Target::Broker => {
                let broker = td_string!(locale(lang), panels.schedule.the_broker);
                return vec![(0, broker.to_string())];
            }
        };
        list.iter().cloned().enumerate().collect()
    }

    fn consumer(&self, c: ConsumerId, lang: Lang) -> String {
        self.consumers.get(c.index()).cloned().unwrap_or_else(|| {
            td_string!(locale(lang), panels.schedule.consumer_n, n = c).to_string()
        })
    }

    fn producer(&self, p: ProducerId, lang: Lang) -> String {
        self.producers.get(p.index()).cloned().unwrap_or_else(|| {
            td_string!(locale(lang), panels.schedule.producer_n, n = p).to_string()
        })
    }

    fn group(&self, g: GroupId, lang: Lang) -> String {
        self.groups
            .get(g.index())
            .cloned()
            .unwrap_or_else(|| td_string!(locale(lang), panels.schedule.group_n, n = g).to_string())
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

/// The scheduled command a choice makes, or why not (in `lang`). The scenario checks it
/// when it is added.
pub fn command_of(
    choice: &Choice,
    base: &Scenario,
    lang: Lang,
) -> Result<ScheduledCommand, String> {
    let l = locale(lang);
    if !choice.at_s.is_finite() || choice.at_s < 0.0 {
        return Err(td_string!(l, panels.schedule.bad_instant).to_string());
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
            factor: choice
                .extra
                .ok_or_else(|| td_string!(l, panels.schedule.say_factor).to_string())?,
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
        "rate" => rate_change(base, producer, choice.at_s, choice.extra, lang)?,
        "crash-broker" => Command::CrashBroker { restart_after_s },
        "restart-broker" => Command::RestartBroker,
        "crash-member" => Command::CrashMember {
            group,
            member: 0,
            point: MemberCrashPoint::Now,
            restart_after_s,
        },
        "add-member" => Command::AddMember { group },
        other => return Err(td_string!(l, panels.schedule.unknown_kind, kind = other).to_string()),
    };
    Ok(ScheduledCommand {
        at_s: choice.at_s,
        command,
        unannounced: false,
    })
}

/// A steady new rate for a producer from `at_s`, keeping how its arrivals are spaced and
/// what the scenario plans after (a stop, the end of a burst): the same schedule the
/// parameters' rate gives at that moment (both are the core's
/// [`brokerlab_core::scenario::steady_from`]).
fn rate_change(
    base: &Scenario,
    producer: ProducerId,
    at_s: f64,
    rate: Option<f64>,
    lang: Lang,
) -> Result<Command, String> {
    let rate_per_s =
        rate.ok_or_else(|| td_string!(locale(lang), panels.schedule.say_rate).to_string())?;
    // A producer the scenario lacks: the check refuses the command as it refuses others.
    Ok(base
        .rate_change_at(producer.index(), at_s, rate_per_s)
        .unwrap_or(Command::SetArrivals {
            producer,
            process: ArrivalProcess::Constant,
            schedule: vec![RateSegment {
                from_s: 0.0,
                rate_per_s,
            }],
        }))
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

/// "(back 5 s later)", or "(stays down)".
fn comeback(restart_after_s: Option<f64>, lang: Lang) -> String {
    let l = locale(lang);
    match restart_after_s {
        Some(s) => td_string!(l, panels.schedule.back_later, after = seconds(s, lang)).to_string(),
        None => td_string!(l, panels.schedule.stays_down).to_string(),
    }
}

/// A scheduled command in words, without its instant: "crash C1 after its next commit,
/// before the ack (back 5 s later)".
pub fn describe(command: &Command, names: &Names, lang: Lang) -> String {
    let l = locale(lang);
    match command {
        Command::CrashConsumer {
            consumer,
            point,
            restart_after_s,
        } => {
            let name = names.consumer(*consumer, lang);
            let back = comeback(*restart_after_s, lang);
            match point {
                CrashPoint::Now => td_string!(l, panels.schedule.says.crash, name, back),
                CrashPoint::AfterReceive => {
                    td_string!(l, panels.schedule.says.crash_after_receive, name, back)
                }
                CrashPoint::AfterCommitBeforeAck => {
                    td_string!(l, panels.schedule.says.crash_after_commit, name, back)
                }
            }
            .to_string()
        }
        Command::RestartConsumer { consumer } => {
            let name = names.consumer(*consumer, lang);
            td_string!(l, panels.schedule.says.restart, name).to_string()
        }
        Command::SlowConsumer { consumer, factor } => {
            let name = names.consumer(*consumer, lang);
            td_string!(l, panels.schedule.says.slow, name, factor).to_string()
        }
        Command::DropNextAck { consumer } => {
            let name = names.consumer(*consumer, lang);
            td_string!(l, panels.schedule.says.drop_ack, name).to_string()
        }
        Command::CrashProducer {
            producer,
            point,
            restart_after_s,
        } => {
            let name = names.producer(*producer, lang);
            let back = comeback(*restart_after_s, lang);
            match point {
                ProducerCrashPoint::Now => td_string!(l, panels.schedule.says.crash, name, back),
                ProducerCrashPoint::AfterCommitBeforePublish => {
                    td_string!(l, panels.schedule.says.crash_after_state_commit, name, back)
                }
                ProducerCrashPoint::AfterPublishBeforeMark => {
                    td_string!(l, panels.schedule.says.crash_relay, name, back)
                }
            }
            .to_string()
        }
        Command::RestartProducer { producer } => {
            let name = names.producer(*producer, lang);
            td_string!(l, panels.schedule.says.restart, name).to_string()
        }
        Command::DropNextConfirm { producer } => {
            let name = names.producer(*producer, lang);
            td_string!(l, panels.schedule.says.drop_confirm, name).to_string()
        }
        Command::InjectPoison { producer, .. } => {
            let name = names.producer(*producer, lang);
            td_string!(l, panels.schedule.says.poison, name).to_string()
        }
        Command::SetArrivals {
            producer, schedule, ..
        } => {
            let name = names.producer(*producer, lang);
            let rate = schedule.first().map_or(0.0, |s| s.rate_per_s);
            td_string!(l, panels.schedule.says.rate, name, rate).to_string()
        }
        Command::CrashBroker { restart_after_s } => {
            let back = comeback(*restart_after_s, lang);
            td_string!(l, panels.schedule.says.crash_broker, back).to_string()
        }
        Command::RestartBroker => td_string!(l, panels.schedule.says.restart_broker).to_string(),
        Command::CrashMember {
            group,
            member,
            restart_after_s,
            ..
        } => td_string!(
            l,
            panels.schedule.says.crash_member,
            member = member + 1,
            group = names.group(*group, lang),
            back = comeback(*restart_after_s, lang)
        )
        .to_string(),
        Command::AddMember { group } => {
            let group = names.group(*group, lang);
            td_string!(l, panels.schedule.says.add_member, group).to_string()
        }
        other => setting(other, names, lang),
    }
}

/// Any other command (a setting changed, a redrive, a group's seek, a dependency's
/// change), in the page's language with its target and, where it is one number, its
/// value: "8 consumers on requests" ("8 consumidores en requests").
fn setting(command: &Command, names: &Names, lang: Lang) -> String {
    use Command::*;
    let l = locale(lang);
    let n = |v: f64| amount(v, lang);
    match command {
        Redrive { queue: target, .. } => td_string!(l, panels.schedule.says.redrive, target),
        SeekToEarliest { group } => {
            let target = names.group(*group, lang);
            td_string!(l, panels.schedule.says.seek_to_earliest, target)
        }
        SeekTo { group, offset } => {
            let target = names.group(*group, lang);
            let value = count(*offset, lang);
            td_string!(l, panels.schedule.says.seek_to, target, value)
        }
        SetGroupOrdering { group, .. } => {
            let target = names.group(*group, lang);
            td_string!(l, panels.schedule.says.set_group_ordering, target)
        }
        DependencyOutage {
            queue: target,
            for_s,
        } => {
            let value = n(*for_s);
            td_string!(l, panels.schedule.says.dependency_outage, target, value)
        }
        SetServiceTime { queue: target, .. } => {
            td_string!(l, panels.schedule.says.set_service_time, target)
        }
        SetConsumerCount {
            queue: target,
            count: c,
        } => {
            let value = count(u64::from(*c), lang);
            td_string!(l, panels.schedule.says.set_consumer_count, target, value)
        }
        SetPrefetch {
            queue: target,
            prefetch,
        } => {
            let value = count(u64::from(*prefetch), lang);
            td_string!(l, panels.schedule.says.set_prefetch, target, value)
        }
        SetAckMode { queue: target, .. } => {
            td_string!(l, panels.schedule.says.set_ack_mode, target)
        }
        SetIdempotency { queue: target, .. } => {
            td_string!(l, panels.schedule.says.set_idempotency, target)
        }
        SetOrdering { queue: target, .. } => {
            td_string!(l, panels.schedule.says.set_ordering, target)
        }
        SetRetry { queue: target, .. } => td_string!(l, panels.schedule.says.set_retry, target),
        SetVisibilityTimeout {
            queue: target,
            seconds: s,
        } => {
            let value = n(*s);
            td_string!(
                l,
                panels.schedule.says.set_visibility_timeout,
                target,
                value
            )
        }
        SetConsumerTimeout {
            queue: target,
            seconds: s,
        } => {
            let value = n(*s);
            td_string!(l, panels.schedule.says.set_consumer_timeout, target, value)
        }
        SetQueueBound { queue: target, .. } => {
            td_string!(l, panels.schedule.says.set_queue_bound, target)
        }
        SetPartitions {
            log: target,
            partitions,
        } => {
            let value = count(u64::from(*partitions), lang);
            td_string!(l, panels.schedule.says.set_partitions, target, value)
        }
        SetFlavour { queue: target, .. } => td_string!(l, panels.schedule.says.set_flavour, target),
        DeployFix { queue: target, .. } => td_string!(l, panels.schedule.says.deploy_fix, target),
        SlowDependency {
            dependency: target,
            factor,
            ..
        } => {
            let value = n(*factor);
            td_string!(l, panels.schedule.says.slow_dependency, target, value)
        }
        SetDependencyCapacity {
            dependency: target, ..
        } => td_string!(l, panels.schedule.says.set_dependency_capacity, target),
        SetDependencyTimeout {
            dependency: target,
            timeout_s,
        } => {
            let value = n(*timeout_s);
            td_string!(
                l,
                panels.schedule.says.set_dependency_timeout,
                target,
                value
            )
        }
        SetRetryBudget {
            dependency: target, ..
        } => td_string!(l, panels.schedule.says.set_retry_budget, target),
        SetBreaker {
            dependency: target, ..
        } => td_string!(l, panels.schedule.says.set_breaker, target),
        SetAdmission {
            dependency: target, ..
        } => td_string!(l, panels.schedule.says.set_admission, target),
        // Each of these has its own words in `describe`.
        CrashConsumer { .. }
        | RestartConsumer { .. }
        | DropNextAck { .. }
        | SlowConsumer { .. }
        | CrashProducer { .. }
        | RestartProducer { .. }
        | DropNextConfirm { .. }
        | InjectPoison { .. }
        | CrashBroker { .. }
        | RestartBroker
        | CrashMember { .. }
        | AddMember { .. }
        | SetArrivals { .. } => return describe(command, names, lang),
    }
    .to_string()
}

/// "at 12 s: crash C1 after its next commit, before the ack (back 5 s later)".
pub fn line(scheduled: &ScheduledCommand, names: &Names, lang: Lang) -> String {
    td_string!(
        locale(lang),
        panels.schedule.line,
        at = seconds(scheduled.at_s, lang),
        what = describe(&scheduled.command, names, lang)
    )
    .to_string()
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

/// The timeline's markers of the scheduled commands, for a timeline ending at `end_s`,
/// their labels in `lang` (one at or after the scenario's end says so, as the list does).
pub fn markers(base: &Scenario, names: &Names, end_s: f64, now_s: f64, lang: Lang) -> Vec<Marker> {
    let late = late_notes(base, lang);
    base.commands
        .iter()
        .zip(late)
        .map(|(c, late)| Marker {
            at_s: c.at_s,
            percent: if end_s > 0.0 {
                (c.at_s / end_s * 100.0).clamp(0.0, 100.0)
            } else {
                0.0
            },
            label: match late {
                Some(note) => format!("{} ({note})", line(c, names, lang)),
                None => line(c, names, lang),
            },
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

    fn offered_keys(name: &str) -> Vec<&'static str> {
        let (s, names) = base(name);
        offered(&s, &names, Lang::En)
            .kinds()
            .map(|k| k.key)
            .collect()
    }

    /// The form offers what the scenario can take and nothing else: a queue with plain
    /// producers has no group member to crash and no outbox relay; a log with a group has
    /// members, and no queue consumer to crash. Every kind offered is accepted.
    #[test]
    fn the_form_offers_only_what_the_scenario_takes() {
        let mm4 = offered_keys("mm4");
        assert!(mm4.contains(&"crash-consumer") && mm4.contains(&"crash-broker"));
        for absent in ["crash-member", "add-member", "crash-relay-after-publish"] {
            assert!(!mm4.contains(&absent), "{absent} in {mm4:?}");
        }
        let groups = offered_keys("log-consumer-groups");
        assert!(groups.contains(&"crash-member") && groups.contains(&"add-member"));
        assert!(!groups.contains(&"crash-consumer"), "{groups:?}");
        let outbox = offered_keys("outbox-relay-crash");
        assert!(outbox.contains(&"crash-relay-after-publish"), "{outbox:?}");
        for name in [
            "mm4",
            "log-consumer-groups",
            "outbox-relay-crash",
            "lost-confirm",
        ] {
            let (s, names) = base(name);
            let offer = offered(&s, &names, Lang::En);
            for kind in offer.kinds() {
                for (target, _) in offer.targets(kind) {
                    let choice = Choice {
                        kind,
                        target,
                        at_s: 1.0,
                        extra: kind.extra.example(),
                    };
                    let scheduled = command_of(&choice, &s, Lang::En).expect("offered");
                    with_added(&s, scheduled)
                        .validate()
                        .unwrap_or_else(|e| panic!("{name}: {} refused: {e}", kind.key));
                }
            }
        }
    }

    /// A choice the scenario on show cannot take moves: to the kind's first component it
    /// can act on, or to the first kind offered.
    #[test]
    fn a_choice_the_scenario_cannot_take_settles_on_one_it_can() {
        let (s, names) = base("outbox-relay-crash");
        let offer = offered(&s, &names, Lang::En);
        let relay = kind_named("crash-relay-after-publish").expect("a kind");
        let relays: Vec<usize> = offer.targets(relay).iter().map(|t| t.0).collect();
        assert!(!relays.is_empty());
        let first = relays[0];
        assert_eq!(offer.settle(relay, first), Some((relay, first)));
        assert_eq!(offer.settle(relay, 99), Some((relay, first)));
        let (s, names) = base("mm4");
        let offer = offered(&s, &names, Lang::En);
        assert_eq!(offer.targets(relay), Vec::new());
        assert_eq!(
            offer.settle(relay, 0),
            Some((KINDS[0], 0)),
            "crash-consumer, C1"
        );
        assert_eq!(Offer::default().settle(relay, 0), None);
    }

    /// An instant past a scenario's end is refused with the end in the sentence; one at
    /// the end itself is taken (the run takes it as its last step).
    #[test]
    fn an_instant_past_the_runs_end_is_refused_and_one_at_it_taken() {
        let (mut s, _) = base("mm1");
        s.end_s = Some(60.0);
        assert_eq!(past_the_end(&s, 59.9, Lang::En), None);
        assert_eq!(past_the_end(&s, 60.0, Lang::En), None, "at the end: taken");
        let why = past_the_end(&s, 60.1, Lang::En).expect("refused");
        assert_eq!(
            why,
            "The run ends at 60.0 s: schedule it no later than that."
        );
        assert!(past_the_end(&s, 500.0, Lang::Es)
            .expect("refused")
            .contains("60,0 s"));
        s.end_s = None;
        assert_eq!(past_the_end(&s, 1e6, Lang::En), None);
    }

    /// A command a file schedules at or after the end is marked in the list, in both
    /// languages; one before it is not.
    #[test]
    fn a_command_at_or_after_the_end_is_marked() {
        let (mut s, _) = base("short-lease");
        assert_eq!(s.end_s, Some(12.0));
        let crash = |consumer| Command::CrashConsumer {
            consumer: ConsumerId::new(consumer),
            point: CrashPoint::Now,
            restart_after_s: None,
        };
        for (at_s, consumer) in [(5.0, 0), (12.0, 0), (200.0, 1)] {
            s.commands.push(ScheduledCommand {
                at_s,
                command: crash(consumer),
                unannounced: false,
            });
        }
        let at_end = "at the run's very end: nothing after it can show what it does";
        let after_end = "after the run's end at 12.0 s: it will not happen";
        assert_eq!(
            late_notes(&s, Lang::En),
            vec![None, Some(at_end.to_string()), Some(after_end.to_string())]
        );
        assert_eq!(
            late_notes(&s, Lang::Es),
            vec![
                None,
                Some(
                    "justo al final de la ejecución: nada después podrá mostrar lo que hace"
                        .to_string()
                ),
                Some("después del final de la ejecución a los 12,0 s: no ocurrirá".to_string()),
            ]
        );
        // The timeline's marks (the last clamped to its end) say it too, each its own.
        let names = Names::of(&Simulation::new(s.clone()).expect("valid"));
        let m = markers(&s, &names, 12.0, 0.0, Lang::En);
        assert_eq!(m.len(), 3);
        assert!(!m[0].label.contains("run's"), "{}", m[0].label);
        assert!(
            m[1].label.ends_with(&format!("({at_end})")),
            "{}",
            m[1].label
        );
        assert!(
            m[2].label.ends_with(&format!("({after_end})")),
            "{}",
            m[2].label
        );
        assert_eq!(m[2].percent, 100.0);
        s.end_s = None;
        assert_eq!(
            late_notes(&s, Lang::En),
            vec![None, None, None],
            "no end: never late"
        );
        s.commands.clear();
        assert_eq!(late_notes(&s, Lang::En), Vec::<Option<String>>::new());
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
        let scheduled = command_of(&choice, &s, Lang::En).expect("valid");
        assert_eq!(
            scheduled.command,
            Command::CrashConsumer {
                consumer: ConsumerId::new(0),
                point: CrashPoint::AfterCommitBeforeAck,
                restart_after_s: Some(5.0),
            }
        );
        assert_eq!(
            line(&scheduled, &names, Lang::En),
            "at 12.0 s: crash C1 after its next commit, before the ack (back 5.0 s later)"
        );
        assert_eq!(
            line(&scheduled, &names, Lang::Es),
            "en 12,0 s: cae C1 tras su próximo commit, antes del ack (vuelve 5,0 s después)"
        );
        let next = with_added(&s, scheduled.clone());
        next.validate().expect("the scenario takes it");
        assert_eq!(next.commands.last(), Some(&scheduled));
    }

    #[test]
    fn every_kind_makes_a_command_its_target_scenario_accepts() {
        // The crash between a state commit and its publish strikes only a producer that
        // commits then publishes; every other producer kind, the outbox producer.
        let after_commit = |k: &Kind| k.key == "crash-producer-after-commit";
        for (name, target, only) in [
            ("burst", Target::Consumer, None),
            ("outbox-relay-crash", Target::Producer, Some(false)),
            ("dual-write-crash", Target::Producer, Some(true)),
            ("burst", Target::Broker, None),
        ] {
            let (s, _) = base(name);
            let kinds = KINDS
                .iter()
                .filter(|k| k.target == target && only.is_none_or(|o| after_commit(k) == o));
            for kind in kinds {
                let extra = (kind.extra != Extra::None).then_some(2.0);
                let choice = Choice {
                    kind: *kind,
                    target: 0,
                    at_s: 1.0,
                    extra,
                };
                let scheduled = command_of(&choice, &s, Lang::En).expect(kind.key);
                with_added(&s, scheduled)
                    .validate()
                    .unwrap_or_else(|e| panic!("{name} {}: {e}", kind.key));
            }
        }
        // A kind that could never act on the scenario's producer is refused, in a sentence
        // the panel shows: a relay crash hidden on mm1 (no outbox) is no hidden fault.
        let (s, _) = base("mm1");
        for key in [
            "crash-relay-after-publish",
            "crash-producer-after-commit",
            "drop-next-confirm",
        ] {
            let choice = Choice {
                kind: kind_named(key).expect("offered"),
                target: 0,
                at_s: 3.0,
                extra: None,
            };
            let scheduled = command_of(&choice, &s, Lang::En).expect(key);
            assert!(with_added(&s, scheduled).validate().is_err(), "{key}");
        }
        let keys: std::collections::HashSet<_> = KINDS.iter().map(|k| k.key).collect();
        assert_eq!(keys.len(), KINDS.len(), "keys are unique");
        for lang in [Lang::En, Lang::Es] {
            let labels: std::collections::HashSet<_> =
                KINDS.iter().map(|k| k.label(lang)).collect();
            assert_eq!(labels.len(), KINDS.len(), "every kind is named apart");
            assert!(KINDS.iter().all(|k| k.label(lang) != k.key), "{lang:?}");
        }
        assert_eq!(
            kind_named("restart-broker").map(|k| k.label(Lang::Es)),
            Some("Reiniciar el broker".to_string())
        );
    }

    /// A rate changed at an instant keeps what the scenario plans after it (the burst's
    /// stop at 180 s), exactly as the parameters' rate changed at that moment does: both
    /// make their schedule with the core's `steady_from`.
    #[test]
    fn a_scheduled_rate_change_keeps_the_planned_stop_as_the_parameters_do() {
        let (s, _) = base("burst");
        for (at_s, rate) in [(30.0, 500.0), (100.0, 6_000.0)] {
            let choice = Choice {
                kind: kind_named("rate").expect("offered"),
                target: 0,
                at_s,
                extra: Some(rate),
            };
            let mut scheduled = command_of(&choice, &s, Lang::En).expect("a rate");
            let Command::SetArrivals { schedule, .. } = &scheduled.command else {
                panic!("arrivals")
            };
            let pairs: Vec<(f64, f64)> =
                schedule.iter().map(|s| (s.from_s, s.rate_per_s)).collect();
            let mut planned = vec![(0.0, rate)];
            if at_s < 60.0 {
                planned.push((60.0 - at_s, 1_000.0));
            }
            planned.push((180.0 - at_s, 0.0));
            assert_eq!(pairs, planned, "at {at_s} s");
            // Hidden, for an interview, it is the same command.
            scheduled.unannounced = true;
            with_added(&s, scheduled.clone())
                .validate()
                .unwrap_or_else(|e| panic!("at {at_s} s: {e}"));
            // The parameters' rate, changed at that moment of the run, says the same.
            let mut sim = Simulation::new(s.clone()).expect("valid");
            sim.run_until(brokerlab_core::secs_to_us(at_s));
            let now = crate::model::settings::arrivals_command(
                &sim,
                ProducerId::new(0),
                ArrivalProcess::Poisson,
                rate,
            );
            assert_eq!(now, scheduled.command, "at {at_s} s");
        }
        // A change scheduled before it is part of the plan; one after it still strikes at
        // its own time.
        let mut s = s;
        for (at_s, rate) in [(20.0, 2_000.0), (150.0, 7.0)] {
            let choice = Choice {
                kind: kind_named("rate").expect("offered"),
                target: 0,
                at_s,
                extra: Some(rate),
            };
            s = with_added(&s, command_of(&choice, &s, Lang::En).expect("a rate"));
        }
        let choice = Choice {
            kind: kind_named("rate").expect("offered"),
            target: 0,
            at_s: 40.0,
            extra: Some(500.0),
        };
        let Command::SetArrivals { schedule, .. } =
            command_of(&choice, &s, Lang::En).expect("a rate").command
        else {
            panic!("arrivals")
        };
        let pairs: Vec<(f64, f64)> = schedule.iter().map(|s| (s.from_s, s.rate_per_s)).collect();
        assert_eq!(pairs, vec![(0.0, 500.0), (20.0, 1_000.0), (140.0, 0.0)]);
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
        assert!(command_of(&choice, &s, Lang::En).is_err(), "no factor");
        choice.extra = Some(4.0);
        choice.at_s = -1.0;
        assert!(
            command_of(&choice, &s, Lang::En).is_err(),
            "before the start"
        );
        choice.at_s = f64::NAN;
        assert!(command_of(&choice, &s, Lang::En).is_err());
    }

    #[test]
    fn commands_stay_in_time_order_and_remove_takes_the_one_named() {
        let (s, names) = base("burst");
        let at = |at_s| ScheduledCommand {
            at_s,
            command: Command::RestartBroker,
            unannounced: false,
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
        let m = markers(&s, &names, 200.0, 15.0, Lang::En);
        assert_eq!(m.len(), 2);
        assert_eq!((m[0].percent, m[0].past), (5.0, true));
        assert_eq!((m[1].percent, m[1].past), (15.0, false));
        assert_eq!(m[1].label, "at 30.0 s: restart the broker");
    }

    #[test]
    fn other_commands_are_told_in_the_pages_language_with_their_value() {
        // The timeline's marks and the schedule's list wrote these as the file names
        // them, in English whatever the language: "en 20,0 s: set consumer count en
        // requests", "en 40,0 s: seek to earliest" (dep-scale-out, log-consumer-groups).
        let names = Names::default();
        let c = Command::SetPrefetch {
            queue: "jobs".into(),
            prefetch: 3,
        };
        assert_eq!(describe(&c, &names, Lang::En), "prefetch 3 on jobs");
        assert_eq!(describe(&c, &names, Lang::Es), "prefetch de 3 en jobs");
        let c = Command::SetConsumerCount {
            queue: "requests".into(),
            count: 8,
        };
        assert_eq!(describe(&c, &names, Lang::Es), "8 consumidores en requests");
        let (s, names) = base("log-consumer-groups");
        assert!(!s.commands.is_empty());
        for c in &s.commands {
            let (en, es) = (
                describe(&c.command, &names, Lang::En),
                describe(&c.command, &names, Lang::Es),
            );
            assert_ne!(en, es, "told in Spanish");
            assert!(!es.contains("seek") && !es.contains('_'), "{es}");
        }
        assert_eq!(
            describe(
                &Command::DropNextAck {
                    consumer: ConsumerId::new(4)
                },
                &names,
                Lang::En
            ),
            "the next ack of consumer 4 is lost"
        );
    }
}
