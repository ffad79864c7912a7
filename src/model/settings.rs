//! The run's settings as the parameters panel shows them — per producer its arrival rate
//! and pattern, per consumed queue its consumers' service time, count, prefetch, ack mode,
//! idempotency and retries, and the queue's lease and bound — plus the commands that
//! change them and the parsers of the panel's fields.
//!
//! Every setting is the one in force in the simulation now, as the core reports it
//! ([`Simulation::settings`]), so it follows step back and reset; a change is sent as a
//! command, recorded like a crash.

use brokerlab_core::lessons::Lang;
use brokerlab_core::scenario::limits;
use brokerlab_core::scenario::steady_from;
use brokerlab_core::sim::current;
use brokerlab_core::{
    us_to_secs, AckMode, ArrivalProcess, Command, Fact, Flavour, GroupId, Idempotency, Ordering,
    Overflow, ProducerId, ProducerSpec, RateSegment, RetryPolicy, Scenario, ServiceTime, Setting,
    Simulation,
};
use serde::{de::DeserializeOwned, Serialize};

use crate::i18n::{locale, td_string};
use crate::model::capacity::{self, Capacity, Limit, Strain};
use crate::model::chart_info;
use crate::model::fluid::Load;

/// A burst multiplies the current rate by this much…
pub const BURST_FACTOR: f64 = 10.0;
/// …for this long, then returns to the rate it replaced.
pub const BURST_S: f64 = 5.0;

/// Longest service time or lease the panel takes (a day).
pub const DURATION_MAX_S: f64 = 86_400.0;

/// A producer's settings as the panel shows them.
#[derive(Clone, Debug, PartialEq)]
pub struct ProducerSettings {
    pub index: ProducerId,
    pub name: String,
    pub rate_per_s: f64,
    pub process: ArrivalProcess,
    /// A burst started from the panel is under way.
    pub in_burst: bool,
    /// The slider's top end (the number field takes more).
    pub slider_max: f64,
}

/// A consumed queue's settings (its consumers share them).
#[derive(Clone, Debug, PartialEq)]
pub struct QueueSettings {
    pub name: String,
    pub service: ServiceTime,
    /// Consumers taking deliveries (scaled-in ones finishing their work are not counted).
    pub consumers: u32,
    pub concurrency: u32,
    pub prefetch: u32,
    pub visibility_s: f64,
    /// RabbitMQ's deadline on an unacked delivery (shown instead of the visibility timeout).
    pub consumer_timeout_s: f64,
    pub ack: AckMode,
    pub idempotency: Idempotency,
    /// How the consumers treat a key's versions that arrive out of order.
    pub ordering: Ordering,
    pub retry: RetryPolicy,
    pub max_length: Option<u64>,
    pub overflow: Overflow,
    /// Whose rules the queue follows.
    pub flavour: Flavour,
    /// The consumer whose settings the fields show, and whether all of them share those.
    pub shown_from: String,
    pub alike: bool,
}

/// Everything the panel shows, at one instant of the run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    /// Producers with generated arrivals (scripted ones cannot change).
    pub producers: Vec<ProducerSettings>,
    pub queues: Vec<QueueSettings>,
    /// Total arrival rate now, messages per second.
    pub lambda: f64,
    /// Consumers' capacity now, messages per second (no more than the dependencies they
    /// call can serve).
    pub mu: f64,
    /// What limits it: the consumers' slots, or a dependency they call.
    pub limit: Limit,
}

/// Every producer's rate schedule (absolute times) with the arrival changes in force, as
/// the core has them.
pub fn applied_schedules(sim: &Simulation) -> Vec<Vec<RateSegment>> {
    sim.settings()
        .producers
        .into_iter()
        .map(|p| p.schedule)
        .collect()
}

/// The arrival schedules the backlog receives: each producer's schedule once per copy
/// of what it publishes. A queue counts once; an exchange once per queue it routes a
/// publish to (a fanout to two queues twice: ρ read 0.49 where each queue was at 0.98);
/// a log once per consumer group reading it (each group keeps its own lag), and not at
/// all when no group reads it (its records wait for nobody).
pub fn backlog_schedules(sim: &Simulation) -> Vec<Vec<RateSegment>> {
    let scenario = sim.scenario();
    applied_schedules(sim)
        .into_iter()
        .enumerate()
        .map(|(p, schedule)| {
            let copies = scenario
                .producers
                .get(p)
                .map_or(1.0, |spec| copies_per_publish(scenario, spec));
            schedule
                .into_iter()
                .map(|seg| RateSegment {
                    rate_per_s: seg.rate_per_s * copies,
                    ..seg
                })
                .collect()
        })
        .collect()
}

/// Copies one publish of `producer` makes, on average over the routing keys it uses in
/// turn (none: the empty key).
fn copies_per_publish(scenario: &Scenario, producer: &ProducerSpec) -> f64 {
    let target = producer.target.as_str();
    if scenario.logs.iter().any(|l| l.name == target) {
        return scenario.groups.iter().filter(|g| g.log == target).count() as f64;
    }
    let Some(exchange) = scenario.exchanges.iter().find(|x| x.name == target) else {
        return 1.0;
    };
    let keys: Vec<&str> = match producer.routing_keys.as_slice() {
        [] => vec![""],
        keys => keys.iter().map(String::as_str).collect(),
    };
    let reached: usize = keys.iter().map(|k| exchange.queues_reached(k)).sum();
    reached as f64 / keys.len() as f64
}

/// The consumers' capacity now: every consumer that takes deliveries (a crashed one that
/// will restart counts; one scaled in, or down for good, does not), no more than the
/// dependency it calls can serve (see [`capacity::bottleneck`]), and every log group's
/// members the same way.
pub fn live_capacity(sim: &Simulation) -> f64 {
    capacity::now(sim).per_s + group_capacity(sim)
}

/// The capacity from now on, as [`live_capacity`] counts it, with what limits it: a
/// corner now and wherever a dependency's planned slowdown or outage starts or ends.
pub fn capacity_schedule(sim: &Simulation) -> Vec<(f64, Capacity)> {
    let groups = group_capacity(sim);
    capacity::schedule(sim)
        .into_iter()
        .map(|(from_s, c)| {
            let per_s = c.per_s + groups;
            (from_s, Capacity { per_s, ..c })
        })
        .collect()
}

/// What the log groups process per second: per group, its members that are up (or will
/// restart) over its service time, counting at most one member per partition (a member
/// without a partition sits idle).
fn group_capacity(sim: &Simulation) -> f64 {
    let scenario = sim.scenario();
    crate::model::fluid::capacity_of(scenario.groups.iter().enumerate().map(|(g, spec)| {
        let g = GroupId::from_index(g);
        let live = (0..sim.group_members(g).1)
            .filter_map(|m| sim.group_member(g, m))
            .filter(|m| m.up || m.restart_at_us.is_some())
            .count() as u32;
        let partitions = scenario
            .logs
            .iter()
            .position(|l| l.name == spec.log)
            .map_or(0, |l| sim.log_partition_count(l as u32));
        (live.min(partitions), spec.service.mean_s())
    }))
}

/// Facts after which the fluid prediction must be recomputed.
pub fn changes_prediction(fact: &Fact) -> bool {
    matches!(
        fact,
        Fact::SettingChanged {
            setting: Setting::Arrivals { .. }
                | Setting::ServiceTime { .. }
                | Setting::Consumers { .. }
                | Setting::DependencyCapacity { .. }
                | Setting::DependencyTimeout { .. },
            ..
        } | Fact::ConsumerAdded { .. }
            | Fact::ConsumerSlowed { .. }
            | Fact::DependencySlowed { .. }
            | Fact::ConsumerStopping { .. }
            | Fact::ConsumerStopped { .. }
            | Fact::MemberJoined { .. }
    )
}

fn rate_at(schedule: &[RateSegment], t_s: f64) -> f64 {
    schedule
        .iter()
        .rev()
        .find(|s| s.from_s <= t_s)
        .map_or(0.0, |s| s.rate_per_s)
}

/// The slider's top end: a round number well above the rates this run has used.
fn slider_max(peak: f64) -> f64 {
    let v = (peak * 4.0).max(10.0);
    let pow = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * pow)
        .find(|&c| c >= v)
        .unwrap_or(10.0 * pow)
        .min(limits::RATE_PER_S_MAX)
}

impl Settings {
    /// The panel's view of the settings the core has in force now.
    pub fn of(sim: &Simulation) -> Self {
        let now = sim.settings();
        let now_s = us_to_secs(sim.now_us());
        let capacity = capacity::now(sim);
        Self {
            producers: now
                .producers
                .iter()
                .filter(|p| !p.scripted)
                .map(|p| ProducerSettings::of(sim, p, now_s))
                .collect(),
            queues: now.queues.into_iter().map(QueueSettings::from).collect(),
            lambda: backlog_schedules(sim)
                .iter()
                .map(|s| rate_at(s, now_s))
                .fold(0.0, |a, b| a + b),
            mu: capacity.per_s + group_capacity(sim),
            limit: capacity.limit,
        }
    }
}

impl ProducerSettings {
    fn of(sim: &Simulation, p: &current::ProducerSettings, now_s: f64) -> Self {
        let planned = sim
            .scenario()
            .producers
            .get(p.producer.index())
            .map_or(&[][..], |spec| spec.arrivals.schedule.as_slice());
        let peak = p
            .schedule
            .iter()
            .chain(planned)
            .map(|s| s.rate_per_s)
            .fold(0.0, f64::max);
        ProducerSettings {
            index: p.producer,
            name: p.name.clone(),
            rate_per_s: rate_at(&p.schedule, now_s),
            process: p.process,
            in_burst: in_burst(&p.schedule, now_s),
            slider_max: slider_max(peak),
        }
    }
}

impl QueueSettings {
    /// How long a delivery may stay unacked before the broker takes it back: RabbitMQ's
    /// consumer timeout, or the visibility timeout of the other flavours.
    pub fn deadline_s(&self) -> f64 {
        match self.flavour {
            Flavour::Rabbitmq => self.consumer_timeout_s,
            _ => self.visibility_s,
        }
    }
}

impl From<current::QueueSettings> for QueueSettings {
    fn from(q: current::QueueSettings) -> Self {
        QueueSettings {
            name: q.name,
            service: q.service,
            consumers: q.consumers,
            concurrency: q.concurrency,
            prefetch: q.prefetch,
            visibility_s: q.visibility_s,
            consumer_timeout_s: q.consumer_timeout_s,
            ack: q.ack,
            idempotency: q.idempotency,
            ordering: q.ordering,
            retry: q.retry,
            max_length: q.max_length,
            overflow: q.overflow,
            flavour: q.flavour,
            shown_from: q.shown_from,
            alike: q.alike,
        }
    }
}

/// A burst from the panel is under way: the segment in force is [`BURST_FACTOR`] times
/// the one that follows it [`BURST_S`] later (the shape [`burst_command`] gives).
fn in_burst(schedule: &[RateSegment], now_s: f64) -> bool {
    let Some(at) = schedule.iter().rposition(|s| s.from_s <= now_s) else {
        return false;
    };
    matches!(&schedule[at..], [high, back, ..]
        if (back.from_s - high.from_s - BURST_S).abs() < 1e-6
            && high.rate_per_s == back.rate_per_s * BURST_FACTOR
            && back.rate_per_s > 0.0)
}

// ----- commands --------------------------------------------------------------------------

/// The rest of an absolute schedule after `after_s`, relative to `now_s`.
fn remainder(schedule: &[RateSegment], now_s: f64, after_s: f64) -> Vec<RateSegment> {
    schedule
        .iter()
        .filter(|s| s.from_s > after_s)
        .map(|s| RateSegment {
            from_s: s.from_s - now_s,
            rate_per_s: s.rate_per_s,
        })
        .collect()
}

/// Arrivals at `rate_per_s` from now on, with `process`; changes the scenario had planned
/// for later (the end of a burst, a stop) still happen.
pub fn arrivals_command(
    sim: &Simulation,
    producer: ProducerId,
    process: ArrivalProcess,
    rate_per_s: f64,
) -> Command {
    let now_s = sim.now_us() as f64 / 1e6;
    let current = applied_schedules(sim)
        .get(producer.index())
        .cloned()
        .unwrap_or_default();
    Command::SetArrivals {
        producer,
        process,
        schedule: steady_from(&current, now_s, rate_per_s),
    }
}

/// A burst: [`BURST_FACTOR`] times the current rate for [`BURST_S`], then the rate the
/// schedule had at its end. Refused when the rate is 0 (ten times nothing is nothing).
pub fn burst_command(
    sim: &Simulation,
    producer: ProducerId,
    lang: Lang,
) -> Result<Command, String> {
    let now_s = sim.now_us() as f64 / 1e6;
    let current = applied_schedules(sim)
        .get(producer.index())
        .cloned()
        .unwrap_or_default();
    let rate = rate_at(&current, now_s);
    if rate <= 0.0 {
        return Err(td_string!(locale(lang), panels.settings.burst_without_rate).to_string());
    }
    let process =
        sim.scenario()
            .producers
            .get(producer.index())
            .map_or(ArrivalProcess::Poisson, |p| {
                Settings::of(sim)
                    .producers
                    .iter()
                    .find(|s| s.index == producer)
                    .map_or(p.arrivals.process, |s| s.process)
            });
    let end_s = now_s + BURST_S;
    let mut schedule = vec![
        RateSegment {
            from_s: 0.0,
            rate_per_s: (rate * BURST_FACTOR).min(limits::RATE_PER_S_MAX),
        },
        RateSegment {
            from_s: BURST_S,
            rate_per_s: rate_at(&current, end_s),
        },
    ];
    schedule.extend(remainder(&current, now_s, end_s));
    Ok(Command::SetArrivals {
        producer,
        process,
        schedule,
    })
}

// ----- parsing and validation ------------------------------------------------------------

/// A number typed by a person: spaces and thousands separators are allowed.
fn parse_number(text: &str, unit: &str, lang: Lang) -> Result<f64, String> {
    if text.trim().is_empty() {
        return Err(td_string!(locale(lang), panels.settings.enter_number, unit).to_string());
    }
    match crate::format::parse_number(text, lang) {
        Some(v) => Ok(v),
        None => Err(td_string!(
            locale(lang),
            panels.settings.not_a_number,
            text = text.trim(),
            unit
        )
        .to_string()),
    }
}

/// A number from `min` to `max` (with `min` itself excluded when `min_open`).
pub fn parse_range(
    text: &str,
    min: f64,
    min_open: bool,
    max: f64,
    unit: &str,
    lang: Lang,
) -> Result<f64, String> {
    let v = parse_number(text, unit, lang)?;
    let low = if min_open { v <= min } else { v < min };
    if low || v > max {
        let (min, max, l) = (plain(min, lang), plain(max, lang), locale(lang));
        let why = if min_open {
            td_string!(l, panels.settings.range_above, min, max, unit).to_string()
        } else {
            td_string!(l, panels.settings.range, min, max, unit).to_string()
        };
        return Err(why);
    }
    Ok(v)
}

/// A whole number from `min` to `max`.
pub fn parse_whole(text: &str, min: u64, max: u64, unit: &str, lang: Lang) -> Result<u64, String> {
    let v = parse_number(text, unit, lang)?;
    if v.fract() != 0.0 {
        return Err(td_string!(locale(lang), panels.settings.whole, unit).to_string());
    }
    if v < min as f64 || v > max as f64 {
        return Err(td_string!(
            locale(lang),
            panels.settings.range,
            min = crate::format::count(min, lang),
            max = crate::format::count(max, lang),
            unit
        )
        .to_string());
    }
    Ok(v as u64)
}

/// The queue bound: empty means unbounded.
pub fn parse_bound(text: &str, lang: Lang) -> Result<Option<u64>, String> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    let unit = td_string!(locale(lang), panels.settings.units.messages).to_string();
    // No run holds more copies at once than the held-copies limit: a larger bound could
    // never be reached.
    parse_whole(text, 1, limits::HELD_MAX, &unit, lang).map(Some)
}

/// A bound as a refusal names it, in `lang`: thousands separated when whole ("1.000.000"),
/// else its shortest exact form as a field holds it ("0,000001").
pub fn plain(v: f64, lang: Lang) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        crate::format::count(v.abs() as u64, lang)
    } else {
        crate::format::field(v, lang)
    }
}

/// One line on the load now: λ against μ and where the backlog is heading.
pub fn forecast(s: &Settings, lang: Lang) -> String {
    forecast_with(s, None, lang)
}

/// [`forecast`], with a dependency in trouble now (`strain`, as the chart's ρ line has
/// it): both say it with the same [`chart_info::verdict`], so they never disagree.
pub fn forecast_with(s: &Settings, strain: Option<&Strain>, lang: Lang) -> String {
    let l = locale(lang);
    let per_s = |v: f64| {
        if v.is_infinite() {
            td_string!(l, panels.settings.forecast.unlimited).to_string()
        } else {
            crate::format::amount(v, lang)
        }
    };
    let head = td_string!(
        l,
        panels.settings.forecast.head,
        lambda = per_s(s.lambda),
        mu = per_s(s.mu)
    )
    .to_string();
    // What limits μ, as the chart's ρ line names it.
    let head = match &s.limit {
        Limit::Consumers => head,
        Limit::Dependency(dep) => {
            td_string!(l, panels.settings.forecast.limited_by, head, dep).to_string()
        }
        Limit::TooLate(dep) => {
            td_string!(l, panels.settings.forecast.too_late, head, dep).to_string()
        }
    };
    let load = Load::of(s.lambda, s.mu);
    if s.mu > 0.0 && s.mu.is_finite() {
        let rho = crate::format::fixed(s.lambda / s.mu, 2, lang);
        let verdict = chart_info::verdict(load, strain, lang);
        if load == Load::Grows {
            let net = per_s(s.lambda - s.mu);
            td_string!(l, panels.settings.forecast.grows, head, rho, verdict, net).to_string()
        } else {
            td_string!(l, panels.settings.forecast.load, head, rho, verdict).to_string()
        }
    } else if s.mu == 0.0 && s.lambda > 0.0 && s.limit != Limit::Consumers {
        // Consumers there are, but their dependency answers nothing in time (or is out).
        td_string!(l, panels.settings.forecast.nothing_finished, head).to_string()
    } else if s.mu == 0.0 && s.lambda > 0.0 {
        td_string!(l, panels.settings.forecast.nothing_consumed, head).to_string()
    } else {
        format!("{head}.")
    }
}

/// A setting's choice as a select's option value: the name the core gives it in
/// scenario files (its serde spelling, `after_commit`), so no table of names is kept here.
pub fn choice_value<T: Serialize>(choice: &T) -> String {
    match serde_json::to_value(choice) {
        Ok(serde_json::Value::String(name)) => name,
        _ => String::new(),
    }
}

/// The choice an option value names (see [`choice_value`]); `what` names the setting in
/// the sentence that refuses an unknown one (in `lang`).
pub fn parse_choice<T: DeserializeOwned>(value: &str, what: &str, lang: Lang) -> Result<T, String> {
    serde_json::from_value(serde_json::Value::String(value.to_string())).map_err(|_| {
        td_string!(locale(lang), panels.settings.unknown_choice, what, value).to_string()
    })
}

/// The name of a setting, in the sentence that refuses an unknown choice of it.
pub fn setting_name(setting: SettingName, lang: Lang) -> String {
    let l = locale(lang);
    match setting {
        SettingName::AckMode => td_string!(l, panels.settings.names.ack_mode),
        SettingName::Idempotency => td_string!(l, panels.settings.names.idempotency),
        SettingName::Ordering => td_string!(l, panels.settings.names.ordering),
        SettingName::Overflow => td_string!(l, panels.settings.names.overflow),
        SettingName::Flavour => td_string!(l, panels.settings.names.flavour),
        SettingName::Pattern => td_string!(l, panels.settings.names.pattern),
        SettingName::ServiceTime => td_string!(l, panels.settings.names.service_time),
    }
    .to_string()
}

/// The settings a select chooses (named in a refusal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SettingName {
    AckMode,
    Idempotency,
    Ordering,
    Overflow,
    Flavour,
    Pattern,
    ServiceTime,
}

/// A choice of `setting` from its option value, refused in `lang`.
pub fn parse_setting<T: DeserializeOwned>(
    value: &str,
    setting: SettingName,
    lang: Lang,
) -> Result<T, String> {
    parse_choice(value, &setting_name(setting, lang), lang)
}

/// The commands of a queue's fields: each takes the queue's name, its settings in force,
/// the field's text (or option) and the page's language, and makes the command or says
/// why not.
pub mod queue_commands {
    use brokerlab_core::lessons::Lang;
    use brokerlab_core::scenario::limits;
    use brokerlab_core::{Command, Flavour, RetryPolicy, ServiceTime};

    use super::{
        parse_bound, parse_range, parse_setting, parse_whole, setting_name, QueueSettings,
        SettingName, DURATION_MAX_S,
    };
    use crate::i18n::{locale, td_string};

    /// The mean service time, keeping whether it is fixed or exponential.
    pub fn service(
        queue: String,
        q: &QueueSettings,
        t: &str,
        lang: Lang,
    ) -> Result<Command, String> {
        let mean_s = parse_range(t, 0.0, true, DURATION_MAX_S, "s", lang)?;
        let service = match q.service {
            ServiceTime::Fixed { .. } => ServiceTime::Fixed { seconds: mean_s },
            ServiceTime::Exponential { .. } => ServiceTime::Exponential { mean_s },
        };
        Ok(Command::SetServiceTime { queue, service })
    }

    /// Fixed or exponential service times, keeping the mean.
    pub fn service_kind(
        queue: String,
        q: &QueueSettings,
        v: &str,
        lang: Lang,
    ) -> Result<Command, String> {
        let mean_s = q.service.mean_s();
        let service = match v {
            "fixed" => ServiceTime::Fixed { seconds: mean_s },
            "exponential" => ServiceTime::Exponential { mean_s },
            _ => {
                let what = setting_name(SettingName::ServiceTime, lang);
                let value = v;
                return Err(
                    td_string!(locale(lang), panels.settings.unknown_choice, what, value)
                        .to_string(),
                );
            }
        };
        Ok(Command::SetServiceTime { queue, service })
    }

    /// How many consumers the queue has.
    pub fn consumers(
        queue: String,
        _: &QueueSettings,
        t: &str,
        lang: Lang,
    ) -> Result<Command, String> {
        let unit = td_string!(locale(lang), panels.settings.units.consumers).to_string();
        let count = parse_whole(t, 0, u64::from(limits::SCALE_MAX), &unit, lang)? as u32;
        Ok(Command::SetConsumerCount { queue, count })
    }

    /// How many messages a consumer may hold.
    pub fn prefetch(
        queue: String,
        _: &QueueSettings,
        t: &str,
        lang: Lang,
    ) -> Result<Command, String> {
        let unit = td_string!(locale(lang), panels.settings.units.messages).to_string();
        let prefetch = parse_whole(t, 1, u64::from(limits::PREFETCH_MAX), &unit, lang)? as u32;
        Ok(Command::SetPrefetch { queue, prefetch })
    }

    /// The visibility timeout (for leases given from now on).
    pub fn visibility(
        queue: String,
        _: &QueueSettings,
        t: &str,
        lang: Lang,
    ) -> Result<Command, String> {
        let seconds = parse_range(t, 0.0, true, DURATION_MAX_S, "s", lang)?;
        Ok(Command::SetVisibilityTimeout { queue, seconds })
    }

    /// The queue's deadline on a delivery: RabbitMQ's consumer timeout (for deliveries
    /// made from now on), or the visibility timeout of the other flavours.
    pub fn deadline(
        queue: String,
        q: &QueueSettings,
        t: &str,
        lang: Lang,
    ) -> Result<Command, String> {
        if q.flavour != Flavour::Rabbitmq {
            return visibility(queue, q, t, lang);
        }
        let seconds = parse_range(t, 0.0, true, DURATION_MAX_S, "s", lang)?;
        Ok(Command::SetConsumerTimeout { queue, seconds })
    }

    /// When consumers ack.
    pub fn ack(queue: String, _: &QueueSettings, v: &str, lang: Lang) -> Result<Command, String> {
        Ok(Command::SetAckMode {
            queue,
            ack: parse_setting(v, SettingName::AckMode, lang)?,
        })
    }

    /// How consumers recognise duplicates.
    pub fn idempotency(
        queue: String,
        _: &QueueSettings,
        v: &str,
        lang: Lang,
    ) -> Result<Command, String> {
        Ok(Command::SetIdempotency {
            queue,
            idempotency: parse_setting(v, SettingName::Idempotency, lang)?,
        })
    }

    /// How consumers treat a key's versions that arrive out of order.
    pub fn ordering(
        queue: String,
        _: &QueueSettings,
        v: &str,
        lang: Lang,
    ) -> Result<Command, String> {
        Ok(Command::SetOrdering {
            queue,
            ordering: parse_setting(v, SettingName::Ordering, lang)?,
        })
    }

    /// The retry policy's attempts, first one included.
    pub fn attempts(
        queue: String,
        q: &QueueSettings,
        t: &str,
        lang: Lang,
    ) -> Result<Command, String> {
        let unit = td_string!(locale(lang), panels.settings.units.attempts).to_string();
        let max_attempts = parse_whole(t, 1, u64::from(limits::ATTEMPTS_MAX), &unit, lang)? as u32;
        Ok(Command::SetRetry {
            queue,
            retry: RetryPolicy {
                max_attempts,
                ..q.retry.clone()
            },
        })
    }

    /// The retry policy's backoff base (the cap is raised to it if below).
    pub fn backoff(
        queue: String,
        q: &QueueSettings,
        t: &str,
        lang: Lang,
    ) -> Result<Command, String> {
        let base = parse_range(t, 0.0, false, DURATION_MAX_S, "s", lang)?;
        Ok(Command::SetRetry {
            queue,
            retry: RetryPolicy {
                backoff_base_s: base,
                // The cap may not be below the base.
                backoff_cap_s: q.retry.backoff_cap_s.max(base),
                ..q.retry.clone()
            },
        })
    }

    /// The queue's bound (empty text: unbounded), keeping its overflow policy.
    pub fn bound(queue: String, q: &QueueSettings, t: &str, lang: Lang) -> Result<Command, String> {
        Ok(Command::SetQueueBound {
            queue,
            max_length: parse_bound(t, lang)?,
            overflow: q.overflow,
        })
    }

    /// What a full queue does, keeping its bound.
    pub fn overflow(
        queue: String,
        q: &QueueSettings,
        v: &str,
        lang: Lang,
    ) -> Result<Command, String> {
        Ok(Command::SetQueueBound {
            queue,
            max_length: q.max_length,
            overflow: parse_setting(v, SettingName::Overflow, lang)?,
        })
    }

    /// The broker flavour.
    pub fn flavour(
        queue: String,
        _: &QueueSettings,
        v: &str,
        lang: Lang,
    ) -> Result<Command, String> {
        Ok(Command::SetFlavour {
            queue,
            flavour: parse_setting(v, SettingName::Flavour, lang)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::{examples, secs_to_us, QueueId};

    fn mm1() -> Simulation {
        Simulation::new(examples::load("mm1").expect("built in")).expect("valid")
    }

    /// The panel showed greedy-slow's 2 s and prefetch 100 as the whole queue's, beside
    /// two quick consumers at 0.1 s and prefetch 1: it now says whose they are.
    #[test]
    fn a_queue_whose_consumers_differ_says_whose_settings_are_shown() {
        let settings = |name: &str| {
            let sim = Simulation::new(examples::load(name).expect("built in")).expect("valid");
            sim.settings().queues
        };
        let greedy = &settings("prefetch-fairness")[0];
        assert_eq!(
            (greedy.shown_from.as_str(), greedy.alike),
            ("greedy-slow", false)
        );
        assert_eq!(greedy.prefetch, 100);
        let mm4 = &settings("mm4")[0];
        assert!(mm4.alike, "four replicas alike");
    }

    /// Each queue an exchange routes a publish to receives its own copy: prefetch-fairness
    /// fans 20 orders a second out to two queues (ρ read 0.49 where each queue is at
    /// 0.98); fanout-subscriptions' four keys, used in turn, reach 3, 2, 3 and 0 queues.
    #[test]
    fn an_exchange_sends_the_backlog_a_copy_per_queue_it_routes_to() {
        let rate = |name: &str| {
            let sim = Simulation::new(examples::load(name).expect("built in")).expect("valid");
            backlog_schedules(&sim)[0][0].rate_per_s
        };
        assert_eq!(rate("prefetch-fairness"), 40.0);
        assert_eq!(rate("fanout-subscriptions"), 2.0 * 8.0 / 4.0);
        assert_eq!(rate("mm1"), 0.9, "a queue: once");
    }

    #[test]
    fn numbers_are_parsed_and_bad_ones_explained() {
        assert_eq!(
            parse_range(" 1,500.5 ", 0.0, false, 1e6, "msg/s", Lang::En),
            Ok(1500.5)
        );
        assert_eq!(
            parse_range("abc", 0.0, false, 1e6, "msg/s", Lang::En),
            Err("“abc” is not a number (msg/s).".into())
        );
        assert_eq!(
            parse_range("", 0.0, false, 1e6, "msg/s", Lang::En),
            Err("Enter a number (msg/s).".into())
        );
        assert_eq!(
            parse_range("-5", 0.0, false, 1e6, "msg/s", Lang::En),
            Err("Must be from 0 to 1,000,000 msg/s.".into())
        );
        assert_eq!(
            parse_range("0", 0.0, true, 10.0, "s", Lang::En),
            Err("Must be more than 0 and at most 10 s.".into())
        );
        assert!(parse_range("inf", 0.0, false, 1e6, "s", Lang::En).is_err());
        assert!(parse_range("NaN", 0.0, false, 1e6, "s", Lang::En).is_err());
        // A power of ten is a number: in range it is taken, else said out of range.
        assert_eq!(
            parse_range("1e-9", 0.0, false, 1e6, "msg/s", Lang::En),
            Ok(1e-9)
        );
        assert_eq!(
            parse_range("1e7", 0.0, false, 1e6, "msg/s", Lang::En),
            Err("Must be from 0 to 1,000,000 msg/s.".into())
        );
        assert_eq!(
            parse_range("-1e-9", 0.0, true, 10.0, "s", Lang::En),
            Err("Must be more than 0 and at most 10 s.".into())
        );
        assert_eq!(parse_whole("3", 0, 64, "consumers", Lang::En), Ok(3));
        assert_eq!(
            parse_whole("2.5", 0, 64, "consumers", Lang::En),
            Err("Must be a whole number (consumers).".into())
        );
        assert_eq!(
            parse_whole("65", 0, 64, "consumers", Lang::En),
            Err("Must be from 0 to 64 consumers.".into())
        );
        assert_eq!(parse_bound("  ", Lang::En), Ok(None));
        assert_eq!(parse_bound("100", Lang::En), Ok(Some(100)));
        assert!(parse_bound("0", Lang::En).is_err());
        assert_eq!(
            parse_choice("on_delivery", "ack mode", Lang::En),
            Ok(AckMode::OnDelivery)
        );
        assert_eq!(
            parse_choice::<Idempotency>("maybe", "idempotency", Lang::En),
            Err("Unknown idempotency “maybe”.".into())
        );
        assert_eq!(
            parse_choice("throttle", "overflow policy", Lang::En),
            Ok(Overflow::Throttle)
        );
        // Every choice reads back as itself, under the name scenario files give it.
        assert_eq!(
            choice_value(&Idempotency::CheckThenInsert),
            "check_then_insert"
        );
        assert_eq!(choice_value(&ArrivalProcess::Poisson), "poisson");
        for o in [Overflow::Reject, Overflow::DropOldest, Overflow::Throttle] {
            assert_eq!(
                parse_choice(&choice_value(&o), "overflow policy", Lang::En),
                Ok(o)
            );
        }
    }

    #[test]
    fn a_number_in_the_other_language_s_form_is_refused_in_one_sentence() {
        // Spanish 1,000.5 was read as 1,0005 (λ = 1 msg/s), English 1.000,5 as 1.0005.
        let rate = |text, lang| parse_range(text, 0.0, false, 1e6, "msg/s", lang);
        assert_eq!(
            rate("1,000.5", Lang::Es),
            Err("“1,000.5” no es un número (msg/s).".into())
        );
        assert_eq!(
            rate("1.000,5", Lang::En),
            Err("“1.000,5” is not a number (msg/s).".into())
        );
        assert_eq!(
            rate("1,0,0.5", Lang::En),
            Err("“1,0,0.5” is not a number (msg/s).".into())
        );
        assert_eq!(rate("1.000,5", Lang::Es), Ok(1_000.5));
        assert_eq!(rate("1,000.5", Lang::En), Ok(1_000.5));
        assert_eq!(rate("2.000", Lang::Es), Ok(2_000.0));
        assert_eq!(rate("2,000", Lang::En), Ok(2_000.0));
        assert_eq!(
            parse_whole("1.000,0", 0, 64, "consumers", Lang::En),
            Err("“1.000,0” is not a number (consumers).".into())
        );
        // The refusal comes before any command: the setting keeps its value.
        let sim = mm1();
        let queue = Settings::of(&sim).queues[0].clone();
        let refused = queue_commands::service(queue.name.clone(), &queue, "1,000.5", Lang::Es);
        assert_eq!(
            refused.err().as_deref(),
            Some("“1,000.5” no es un número (s).")
        );
    }

    #[test]
    fn refusals_and_the_forecast_are_said_in_spanish() {
        // A Spanish decimal comma is a decimal (0,9 was read as 9 before).
        assert_eq!(
            parse_range("0,9", 0.0, false, 1e6, "mensajes/s", Lang::Es),
            Ok(0.9)
        );
        assert_eq!(
            parse_range("3.000", 0.0, false, 1e6, "mensajes/s", Lang::Es),
            Ok(3_000.0)
        );
        assert_eq!(
            parse_range("abc", 0.0, false, 1e6, "mensajes/s", Lang::Es),
            Err("“abc” no es un número (mensajes/s).".into())
        );
        assert_eq!(
            parse_whole("65", 0, 64, "consumidores", Lang::Es),
            Err("Debe estar entre 0 y 64 consumidores.".into())
        );
        assert_eq!(
            parse_setting::<Idempotency>("maybe", SettingName::Idempotency, Lang::Es),
            Err("Valor desconocido para idempotencia: “maybe”.".into())
        );
        let s = Settings {
            lambda: 0.0,
            mu: 0.0,
            ..Settings::default()
        };
        assert_eq!(
            forecast(&s, Lang::Es),
            "Llegadas λ = 0 mensajes/s, capacidad μ = 0 mensajes/s."
        );
        // The forecast writes its numbers as the chart and the counters do (3.000, 2,5).
        let burst = Settings {
            lambda: 3_000.0,
            mu: 2_000.0,
            ..Settings::default()
        };
        assert!(
            forecast(&burst, Lang::Es)
                .starts_with("Llegadas λ = 3.000 mensajes/s, capacidad μ = 2.000 mensajes/s"),
            "{}",
            forecast(&burst, Lang::Es)
        );
        assert!(forecast(&burst, Lang::En).contains("grow by about 1,000 per second"));
        let slow = Settings {
            lambda: 2.5,
            mu: 0.25,
            ..Settings::default()
        };
        assert!(forecast(&slow, Lang::Es)
            .starts_with("Llegadas λ = 2,5 mensajes/s, capacidad μ = 0,25 mensajes/s"));
        let idle = Settings {
            lambda: 2.0,
            mu: 0.0,
            ..Settings::default()
        };
        assert!(
            forecast(&idle, Lang::Es)
                .ends_with("no se consume nada; el acumulado crece con cada llegada."),
            "{}",
            forecast(&idle, Lang::Es)
        );
        let mut sim = mm1();
        sim.command(arrivals_command(
            &sim,
            ProducerId::new(0),
            ArrivalProcess::Poisson,
            0.0,
        ))
        .expect("valid");
        assert!(burst_command(&sim, ProducerId::new(0), Lang::Es)
            .unwrap_err()
            .starts_with("La tasa es 0 mensajes/s"));
    }

    #[test]
    fn the_flavour_select_switches_the_queue_and_the_panel_follows() {
        let mut sim = mm1();
        assert_eq!(Settings::of(&sim).queues[0].flavour, Flavour::Generic);
        for f in Flavour::ALL {
            assert_eq!(
                parse_choice::<Flavour>(&choice_value(&f), "flavour", Lang::En),
                Ok(f)
            );
        }
        assert!(parse_choice::<Flavour>("kafka", "broker flavour", Lang::En).is_err());
        sim.run_until(secs_to_us(2.0));
        sim.command(Command::SetFlavour {
            queue: "jobs".into(),
            flavour: parse_choice("sqs_fifo", "broker flavour", Lang::En).unwrap(),
        })
        .unwrap();
        assert_eq!(Settings::of(&sim).queues[0].flavour, Flavour::SqsFifo);
        assert_eq!(
            sim.queue(QueueId::new(0)).unwrap().flavour,
            Flavour::SqsFifo
        );
    }

    #[test]
    fn a_rabbitmq_queue_s_deadline_field_is_its_consumer_timeout() {
        let mut sim = mm1();
        let generic = Settings::of(&sim).queues[0].clone();
        assert_eq!(generic.deadline_s(), generic.visibility_s);
        assert_eq!(
            queue_commands::deadline("jobs".into(), &generic, "12", Lang::En),
            Ok(Command::SetVisibilityTimeout {
                queue: "jobs".into(),
                seconds: 12.0
            })
        );
        sim.command(Command::SetFlavour {
            queue: "jobs".into(),
            flavour: Flavour::Rabbitmq,
        })
        .unwrap();
        let rabbitmq = Settings::of(&sim).queues[0].clone();
        // RabbitMQ's default, not the visibility timeout it does not have.
        assert_eq!(rabbitmq.deadline_s(), 1_800.0);
        let set = queue_commands::deadline("jobs".into(), &rabbitmq, "90", Lang::En).unwrap();
        assert_eq!(
            set,
            Command::SetConsumerTimeout {
                queue: "jobs".into(),
                seconds: 90.0
            }
        );
        sim.command(set).unwrap();
        let after = Settings::of(&sim).queues[0].clone();
        assert_eq!(
            (after.deadline_s(), after.visibility_s),
            (90.0, generic.visibility_s)
        );
        assert!(queue_commands::deadline("jobs".into(), &after, "-1", Lang::En).is_err());
    }

    #[test]
    fn the_settings_show_the_scenario_then_follow_commands_and_step_back() {
        let mut sim = mm1();
        let s = Settings::of(&sim);
        assert_eq!(s.producers.len(), 1);
        assert_eq!(s.producers[0].rate_per_s, 0.9);
        assert_eq!(s.producers[0].process, ArrivalProcess::Poisson);
        let q = &s.queues[0];
        assert_eq!((q.name.as_str(), q.consumers, q.prefetch), ("jobs", 1, 1));
        assert_eq!(q.service, ServiceTime::Exponential { mean_s: 1.0 });
        assert_eq!((s.lambda, s.mu), (0.9, 1.0));

        sim.run_until(secs_to_us(10.0));
        let steps_before = sim.steps();
        let fault = arrivals_command(&sim, ProducerId::new(0), ArrivalProcess::Constant, 3.0);
        sim.command(fault).expect("valid");
        sim.command(Command::SetConsumerCount {
            queue: "jobs".into(),
            count: 2,
        })
        .expect("valid");
        sim.command(Command::SetQueueBound {
            queue: "jobs".into(),
            max_length: Some(50),
            overflow: Overflow::DropOldest,
        })
        .expect("valid");
        let s = Settings::of(&sim);
        assert_eq!(s.producers[0].rate_per_s, 3.0);
        assert_eq!(s.producers[0].process, ArrivalProcess::Constant);
        assert_eq!(s.queues[0].consumers, 2);
        assert_eq!(s.queues[0].max_length, Some(50));
        assert_eq!(s.queues[0].overflow, Overflow::DropOldest);
        assert_eq!((s.lambda, s.mu), (3.0, 2.0));

        // Re-simulated to before the commands (as step back does): the old values show,
        // though the commands are still recorded ahead.
        let mut back = Simulation::new(sim.scenario().clone()).expect("valid");
        while back.steps() < steps_before && back.step().is_some() {}
        let s = Settings::of(&back);
        assert_eq!(back.scenario().interventions.len(), 3);
        assert_eq!(s.producers[0].rate_per_s, 0.9);
        assert_eq!(s.queues[0].consumers, 1);
        assert_eq!(s.queues[0].max_length, None);
    }

    #[test]
    fn a_rate_change_keeps_the_planned_stop_and_a_burst_returns_to_the_rate() {
        let mut sim = Simulation::new(examples::load("burst").expect("built in")).expect("valid");
        sim.run_until(secs_to_us(10.0));
        let Command::SetArrivals { schedule, .. } =
            arrivals_command(&sim, ProducerId::new(0), ArrivalProcess::Poisson, 500.0)
        else {
            panic!("arrivals")
        };
        let pairs: Vec<(f64, f64)> = schedule.iter().map(|s| (s.from_s, s.rate_per_s)).collect();
        assert_eq!(pairs, vec![(0.0, 500.0), (50.0, 1_000.0), (170.0, 0.0)]);

        let burst = burst_command(&sim, ProducerId::new(0), Lang::En).expect("a rate to multiply");
        sim.command(burst).expect("valid");
        let s = Settings::of(&sim);
        assert!(s.producers[0].in_burst);
        assert_eq!(s.producers[0].rate_per_s, 30_000.0);
        let schedules = applied_schedules(&sim);
        assert_eq!(rate_at(&schedules[0], 15.0), 3_000.0, "back after 5 s");
        assert_eq!(rate_at(&schedules[0], 61.0), 1_000.0, "the plan goes on");
        sim.run_until(secs_to_us(15.5));
        assert!(!Settings::of(&sim).producers[0].in_burst);

        let mut idle = mm1();
        idle.command(arrivals_command(
            &idle,
            ProducerId::new(0),
            ArrivalProcess::Poisson,
            0.0,
        ))
        .expect("valid");
        assert!(burst_command(&idle, ProducerId::new(0), Lang::En).is_err());
    }

    #[test]
    fn capacity_leaves_out_scaled_in_consumers() {
        let mut sim = mm1();
        sim.command(Command::SetConsumerCount {
            queue: "jobs".into(),
            count: 3,
        })
        .expect("valid");
        assert_eq!(live_capacity(&sim), 3.0);
        sim.command(Command::SetServiceTime {
            queue: "jobs".into(),
            service: ServiceTime::Fixed { seconds: 0.5 },
        })
        .expect("valid");
        assert_eq!(live_capacity(&sim), 6.0);
        sim.command(Command::SetConsumerCount {
            queue: "jobs".into(),
            count: 1,
        })
        .expect("valid");
        assert_eq!(live_capacity(&sim), 2.0);
        assert_eq!(Settings::of(&sim).queues[0].consumers, 1);
    }

    #[test]
    fn the_forecast_names_the_load_and_the_trend() {
        let s = Settings {
            lambda: 3.0,
            mu: 1.0,
            ..Settings::default()
        };
        assert_eq!(
            forecast(&s, Lang::En),
            format!(
                "Arrivals λ = 3 msg/s, capacity μ = 1 msg/s (load ρ = 3.00). {}: the backlog is predicted to grow by about 2 per second.",
                Load::Grows.verdict()
            )
        );
        let s = Settings {
            lambda: 0.9,
            mu: 1.0,
            ..Settings::default()
        };
        assert!(forecast(&s, Lang::En).ends_with("the consumers keep up, so a backlog drains."));
        assert_eq!(plain(1_000_000.0, Lang::En), "1,000,000");
        assert_eq!(plain(1_000_000_000.0, Lang::Es), "1.000.000.000");
        assert_eq!(plain(0.000_001, Lang::Es), "0,000001");
    }

    #[test]
    fn the_forecast_and_the_chart_give_one_verdict_and_rho_one_does_not_drain() {
        use crate::model::chart_info::Rho;
        let cases = [(0.0, 1.0), (0.9, 1.0), (1.0, 1.0), (5.0, 5.0), (3.0, 1.0)];
        for ((lambda, mu), lang) in cases
            .into_iter()
            .flat_map(|c| [(c, Lang::En), (c, Lang::Es)])
        {
            let chart = Rho {
                lambda,
                mu,
                has_consumers: true,
                ..Rho::default()
            }
            .hint(lang);
            let panel = forecast(
                &Settings {
                    lambda,
                    mu,
                    ..Settings::default()
                },
                lang,
            );
            assert!(
                panel.contains(&chart),
                "λ = {lambda}, μ = {mu}: {panel} / {chart}"
            );
        }
        let edge = forecast(
            &Settings {
                lambda: 1.0,
                mu: 1.0,
                ..Settings::default()
            },
            Lang::En,
        );
        assert!(edge.contains("does not drain"), "{edge}");
        assert!(!edge.contains("a backlog drains"), "{edge}");
        assert_eq!(plain(0.25, Lang::En), "0.25");
    }
}
