//! The scenario: one serde value that describes a whole run — seed, topology, rates,
//! policies and fault schedule. It is what a file, a share link or a lesson preset holds,
//! so decoding is strict (unknown fields are errors) and [`Scenario::validate`] bounds
//! every size before a simulation is built from it.

use serde::{Deserialize, Serialize};

use crate::time::{secs_to_us, Micros};

/// The only scenario format version this build reads.
pub const SCENARIO_VERSION: u32 = 1;

/// Limits on what a scenario may ask for, so untrusted input cannot exhaust memory or time.
pub mod limits {
    pub const PRODUCERS_MAX: usize = 32;
    pub const CONSUMERS_MAX: usize = 256;
    pub const CONCURRENCY_MAX: u32 = 1_024;
    pub const PREFETCH_MAX: u32 = 100_000;
    pub const SEGMENTS_MAX: usize = 256;
    pub const FAULTS_MAX: usize = 1_000;
    pub const INTERVENTIONS_MAX: usize = 10_000;
    /// Upper bound on the messages a run may publish (summed over producers).
    pub const MESSAGES_MAX: u64 = 5_000_000;
    pub const RATE_PER_S_MAX: f64 = 1_000_000.0;
    /// Ten years of simulated time: far beyond any lesson, still safely inside u64 µs.
    pub const TIME_S_MAX: f64 = 315_360_000.0;
    pub const NAME_LEN_MAX: usize = 64;
    pub const TEXT_LEN_MAX: usize = 4_000;
    pub const SAMPLES_MAX: u64 = 20_000;
}

/// A whole run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Format version; must equal [`SCENARIO_VERSION`].
    pub version: u32,
    /// Short identifier (`burst`, `mm1`…).
    #[serde(default)]
    pub name: String,
    /// What the scenario shows, in a sentence or two.
    #[serde(default)]
    pub description: String,
    /// Seed of the run's only random generator.
    pub seed: u64,
    pub producers: Vec<ProducerSpec>,
    pub queue: QueueSpec,
    pub consumers: Vec<ConsumerSpec>,
    /// Faults that happen at a given simulated time.
    #[serde(default)]
    pub faults: Vec<ScheduledFault>,
    /// Commands a user gave while the run was playing, pinned to the step after which
    /// they were given, so a replay (step back, share link) reproduces the run exactly.
    #[serde(default)]
    pub interventions: Vec<Intervention>,
    /// Interval of simulated time between two metric samples.
    #[serde(default = "default_sample_every_s")]
    pub sample_every_s: f64,
    /// The run stops at this simulated time even if work remains.
    #[serde(default)]
    pub end_s: Option<f64>,
}

fn default_sample_every_s() -> f64 {
    1.0
}

/// A source of messages.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProducerSpec {
    #[serde(default)]
    pub name: String,
    pub arrivals: Arrivals,
    /// Stop after publishing this many messages.
    #[serde(default)]
    pub count: Option<u64>,
}

/// When a producer publishes: a rate schedule and how arrivals are spaced within it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Arrivals {
    pub process: ArrivalProcess,
    /// Piecewise-constant rate: each segment starts at `from_s` and lasts until the next
    /// one; the last lasts forever (use a rate of 0 to stop). Must start at 0.
    pub schedule: Vec<RateSegment>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArrivalProcess {
    /// Evenly spaced: one message every 1/rate seconds.
    Constant,
    /// Exponential gaps (memoryless arrivals) with mean 1/rate.
    Poisson,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateSegment {
    pub from_s: f64,
    pub rate_per_s: f64,
}

impl Arrivals {
    pub fn steady(process: ArrivalProcess, rate_per_s: f64) -> Self {
        Self {
            process,
            schedule: vec![RateSegment {
                from_s: 0.0,
                rate_per_s,
            }],
        }
    }
}

/// The broker's queue.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueSpec {
    #[serde(default = "default_queue_name")]
    pub name: String,
    /// How long a delivered, unacked message stays invisible before the broker offers it
    /// again (visibility timeout / lease).
    pub visibility_timeout_s: f64,
}

fn default_queue_name() -> String {
    "work".into()
}

/// A consumer process (one entry may stand for several identical replicas).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConsumerSpec {
    #[serde(default)]
    pub name: String,
    /// How many identical consumers this entry creates.
    #[serde(default = "one")]
    pub replicas: u32,
    pub service: ServiceTime,
    /// Messages processed at the same time.
    #[serde(default = "one")]
    pub concurrency: u32,
    /// Most unfinished deliveries the broker hands this consumer (buffered + processing).
    #[serde(default = "one")]
    pub prefetch: u32,
    pub ack: AckMode,
}

fn one() -> u32 {
    1
}

/// How long processing one message takes.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ServiceTime {
    Fixed { seconds: f64 },
    Exponential { mean_s: f64 },
}

impl ServiceTime {
    pub fn mean_s(&self) -> f64 {
        match *self {
            ServiceTime::Fixed { seconds } => seconds,
            ServiceTime::Exponential { mean_s } => mean_s,
        }
    }
}

/// When the consumer tells the broker it may forget a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AckMode {
    /// Acked as soon as it is delivered, before the effect: a crash loses the work
    /// (at-most-once).
    OnDelivery,
    /// Acked after the effect commits: a crash before the ack means a redelivery
    /// (at-least-once).
    AfterCommit,
}

/// Where, in handling a message, an armed crash strikes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CrashPoint {
    /// At once.
    Now,
    /// Right after the consumer receives its next delivery, before any work.
    AfterReceive,
    /// Right after the effect of its next message commits, before the ack is sent.
    AfterCommitBeforeAck,
}

/// Something that goes wrong on purpose.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Fault {
    /// Crash consumer number `consumer` (0-based, counting replicas) at `point`; it comes
    /// back `restart_after_s` after the crash, or never if absent.
    CrashConsumer {
        consumer: u32,
        point: CrashPoint,
        #[serde(default)]
        restart_after_s: Option<f64>,
    },
    /// Bring a crashed consumer back at once.
    RestartConsumer { consumer: u32 },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduledFault {
    pub at_s: f64,
    pub fault: Fault,
}

/// A command given while running, replayed after the same number of steps and at the
/// same simulated instant (the clock may have moved past the last step while playing).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Intervention {
    pub after_step: u64,
    pub at_us: u64,
    pub fault: Fault,
}

/// Why a scenario cannot be run: the field (as a path) and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub field: String,
    pub problem: String,
}

impl std::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.problem)
    }
}

impl std::error::Error for ScenarioError {}

fn err(field: impl Into<String>, problem: impl Into<String>) -> ScenarioError {
    ScenarioError {
        field: field.into(),
        problem: problem.into(),
    }
}

fn check_finite(field: &str, v: f64, min: f64, max: f64) -> Result<(), ScenarioError> {
    if !v.is_finite() {
        return Err(err(field, "must be a finite number"));
    }
    if v < min || v > max {
        return Err(err(
            field,
            format!("must be between {min} and {max} (got {v})"),
        ));
    }
    Ok(())
}

fn check_text(field: &str, s: &str, max: usize) -> Result<(), ScenarioError> {
    if s.chars().count() > max {
        return Err(err(field, format!("is longer than {max} characters")));
    }
    Ok(())
}

impl Scenario {
    /// Parses JSON text strictly and validates it. Never panics.
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        // 1 MiB is far more than any scenario needs; refuse larger input before parsing.
        if text.len() > 1 << 20 {
            return Err(err("scenario", "is larger than 1 MiB"));
        }
        let scenario: Scenario = serde_json::from_str(text)
            .map_err(|e| err("scenario", format!("is not valid scenario JSON: {e}")))?;
        scenario.validate()?;
        Ok(scenario)
    }

    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).expect("a scenario always serializes")
    }

    /// Total number of consumers once replicas are expanded.
    pub fn consumer_count(&self) -> u32 {
        self.consumers.iter().map(|c| c.replicas).sum()
    }

    /// The spec of consumer number `index` (replicas expanded), if it exists.
    pub fn consumer_spec(&self, index: u32) -> Option<&ConsumerSpec> {
        let mut first = 0;
        for spec in &self.consumers {
            if index < first + spec.replicas {
                return Some(spec);
            }
            first += spec.replicas;
        }
        None
    }

    /// Checks every value and bound; the first problem found is returned.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        use limits::*;
        if self.version != SCENARIO_VERSION {
            return Err(err(
                "version",
                format!(
                    "{} is not supported (this build reads version {SCENARIO_VERSION})",
                    self.version
                ),
            ));
        }
        check_text("name", &self.name, NAME_LEN_MAX)?;
        check_text("description", &self.description, TEXT_LEN_MAX)?;
        if self.producers.is_empty() {
            return Err(err("producers", "needs at least one producer"));
        }
        if self.producers.len() > PRODUCERS_MAX {
            return Err(err(
                "producers",
                format!("at most {PRODUCERS_MAX} producers"),
            ));
        }
        check_finite("sample_every_s", self.sample_every_s, 0.001, TIME_S_MAX)?;
        if let Some(end) = self.end_s {
            check_finite("end_s", end, 0.0, TIME_S_MAX)?;
        }
        let mut messages = 0u64;
        for (i, p) in self.producers.iter().enumerate() {
            messages = messages.saturating_add(self.validate_producer(i, p)?);
        }
        if messages > MESSAGES_MAX {
            return Err(err(
                "producers",
                format!("would publish about {messages} messages; the limit is {MESSAGES_MAX} (set a count or end_s)"),
            ));
        }
        check_text("queue.name", &self.queue.name, NAME_LEN_MAX)?;
        check_finite(
            "queue.visibility_timeout_s",
            self.queue.visibility_timeout_s,
            0.000_001,
            TIME_S_MAX,
        )?;
        if self.consumers.is_empty() {
            return Err(err("consumers", "needs at least one consumer entry"));
        }
        let mut total = 0u64;
        for (i, c) in self.consumers.iter().enumerate() {
            let f = |name: &str| format!("consumers[{i}].{name}");
            check_text(&f("name"), &c.name, NAME_LEN_MAX)?;
            if c.replicas == 0 {
                return Err(err(f("replicas"), "must be at least 1"));
            }
            total += u64::from(c.replicas);
            if c.concurrency == 0 || c.concurrency > CONCURRENCY_MAX {
                return Err(err(
                    f("concurrency"),
                    format!("must be between 1 and {CONCURRENCY_MAX}"),
                ));
            }
            if c.prefetch == 0 || c.prefetch > PREFETCH_MAX {
                return Err(err(
                    f("prefetch"),
                    format!("must be between 1 and {PREFETCH_MAX}"),
                ));
            }
            match c.service {
                ServiceTime::Fixed { seconds } => {
                    check_finite(&f("service.fixed.seconds"), seconds, 0.0, TIME_S_MAX)?
                }
                ServiceTime::Exponential { mean_s } => check_finite(
                    &f("service.exponential.mean_s"),
                    mean_s,
                    0.000_001,
                    TIME_S_MAX,
                )?,
            }
        }
        // One ack contract per queue: mixing them would let a leased delivery outlive the
        // loss of an auto-acked one, a fate no broker reports.
        if let Some(i) = self
            .consumers
            .iter()
            .position(|c| c.ack != self.consumers[0].ack)
        {
            return Err(err(
                format!("consumers[{i}].ack"),
                "all consumers of a queue must use the same ack mode",
            ));
        }
        if total > CONSUMERS_MAX as u64 {
            return Err(err(
                "consumers",
                format!("at most {CONSUMERS_MAX} consumers in all (replicas included)"),
            ));
        }
        if self.faults.len() > FAULTS_MAX {
            return Err(err(
                "faults",
                format!("at most {FAULTS_MAX} scheduled faults"),
            ));
        }
        for (i, f) in self.faults.iter().enumerate() {
            check_finite(&format!("faults[{i}].at_s"), f.at_s, 0.0, TIME_S_MAX)?;
            self.validate_fault(&format!("faults[{i}].fault"), &f.fault)?;
        }
        if self.interventions.len() > INTERVENTIONS_MAX {
            return Err(err(
                "interventions",
                format!("at most {INTERVENTIONS_MAX} interventions"),
            ));
        }
        let mut last = (0, 0);
        for (i, iv) in self.interventions.iter().enumerate() {
            if iv.after_step < last.0 || iv.at_us < last.1 {
                return Err(err(
                    format!("interventions[{i}]"),
                    "after_step and at_us must not decrease",
                ));
            }
            last = (iv.after_step, iv.at_us);
            self.validate_fault(&format!("interventions[{i}].fault"), &iv.fault)?;
        }
        Ok(())
    }

    /// Validates one producer and returns an upper estimate of the messages it publishes.
    fn validate_producer(&self, i: usize, p: &ProducerSpec) -> Result<u64, ScenarioError> {
        use limits::*;
        let f = |name: &str| format!("producers[{i}].{name}");
        check_text(&f("name"), &p.name, NAME_LEN_MAX)?;
        let schedule = &p.arrivals.schedule;
        if schedule.is_empty() || schedule.len() > SEGMENTS_MAX {
            return Err(err(
                f("arrivals.schedule"),
                format!("needs 1 to {SEGMENTS_MAX} segments"),
            ));
        }
        let mut prev = None;
        for (k, seg) in schedule.iter().enumerate() {
            let g = f(&format!("arrivals.schedule[{k}]"));
            check_finite(&format!("{g}.from_s"), seg.from_s, 0.0, TIME_S_MAX)?;
            check_finite(
                &format!("{g}.rate_per_s"),
                seg.rate_per_s,
                0.0,
                RATE_PER_S_MAX,
            )?;
            match prev {
                None if seg.from_s != 0.0 => {
                    return Err(err(
                        format!("{g}.from_s"),
                        "the first segment must start at 0",
                    ))
                }
                Some(p) if seg.from_s <= p => {
                    return Err(err(
                        format!("{g}.from_s"),
                        "segments must start in increasing order",
                    ))
                }
                _ => {}
            }
            prev = Some(seg.from_s);
        }
        // Messages the schedule can produce before end_s (or forever, if the last rate is > 0).
        let horizon = self.end_s.unwrap_or(f64::INFINITY);
        let mut by_schedule = 0.0;
        for (k, seg) in schedule.iter().enumerate() {
            let until = schedule
                .get(k + 1)
                .map_or(horizon, |n| n.from_s.min(horizon));
            if until > seg.from_s && seg.rate_per_s > 0.0 {
                by_schedule += seg.rate_per_s * (until - seg.from_s);
            }
        }
        // Poisson arrivals can exceed the mean; leave room for a generous excess.
        let by_schedule = by_schedule * 1.05 + 1_000.0;
        let estimate = match p.count {
            Some(n) => (n as f64).min(by_schedule),
            None => by_schedule,
        };
        if !estimate.is_finite() {
            return Err(err(f("count"), "the producer never stops: give it a count, end its schedule with rate 0, or set end_s"));
        }
        Ok(estimate.min(u64::MAX as f64) as u64)
    }

    pub(crate) fn validate_fault(&self, field: &str, fault: &Fault) -> Result<(), ScenarioError> {
        let n = self.consumer_count();
        let (consumer, restart) = match fault {
            Fault::CrashConsumer {
                consumer,
                restart_after_s,
                ..
            } => (*consumer, *restart_after_s),
            Fault::RestartConsumer { consumer } => (*consumer, None),
        };
        if consumer >= n {
            return Err(err(
                format!("{field}.consumer"),
                format!("there is no consumer {consumer} (there are {n})"),
            ));
        }
        if let Some(r) = restart {
            check_finite(
                &format!("{field}.restart_after_s"),
                r,
                0.0,
                limits::TIME_S_MAX,
            )?;
        }
        Ok(())
    }

    pub(crate) fn sample_every_us(&self) -> Micros {
        secs_to_us(self.sample_every_s).max(1)
    }
}
