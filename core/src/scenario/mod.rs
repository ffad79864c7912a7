//! The scenario: one serde value that describes a whole run — seed, topology, rates,
//! policies and fault schedule. It is what a file, a share link or a lesson preset holds,
//! so decoding is strict (unknown fields are errors) and [`Scenario::validate`] bounds
//! every size before a simulation is built from it. Field names carry their unit last
//! (`_s` seconds, `_per_s` rates, `_us` microseconds).

use serde::{Deserialize, Serialize};

mod broker;
mod command_check;
mod commands;
mod consumers;
pub mod dependency;
mod error;
mod late_commands;
mod log_rings;
mod logs;
mod producers;
mod validate;

use crate::ids::ConsumerId;
use crate::time::{secs_to_us, Micros};
pub use broker::*;
pub use commands::*;
pub use consumers::*;
pub use dependency::{Admission, BreakerSpec, DependencySpec, RetryBudget, Slowdown};
pub use error::ScenarioError;
pub(crate) use error::{check_count, check_len, check_prose, check_range, check_text, err};
pub use late_commands::LateCommand;
pub use logs::*;
pub use producers::*;
pub(crate) use validate::validate_service;

/// The scenario format version this build writes. Files of earlier versions are
/// migrated on load (see `migrate.rs`): version 1 called the scheduled commands `faults`;
/// in version 2 a bounded queue without `overflow` rejected publishes whatever its
/// flavour; up to version 3 two producers, consumers or consumer groups could have the
/// same name (version 4 refuses it; older files get the later one renamed "C1 (2)").
pub const SCENARIO_VERSION: u32 = 4;

/// Limits on what a scenario may ask for, so untrusted input cannot exhaust memory or time.
pub mod limits {
    pub const PRODUCERS_MAX: usize = 32;
    pub const QUEUES_MAX: usize = 64;
    pub const EXCHANGES_MAX: usize = 16;
    pub const BINDINGS_MAX: usize = 64;
    pub const ROUTING_KEYS_MAX: usize = 64;
    pub const SCRIPT_MAX: usize = 10_000;
    pub const CONSUMERS_MAX: usize = crate::names::CONSUMERS_MAX;
    pub const CONCURRENCY_MAX: u32 = 1_024;
    pub const PREFETCH_MAX: u32 = 100_000;
    pub const SEGMENTS_MAX: usize = 256;
    pub const OUTAGES_MAX: usize = 64;
    pub const FAULTS_MAX: usize = 1_000;
    pub const INTERVENTIONS_MAX: usize = 10_000;
    pub const ATTEMPTS_MAX: u32 = 1_000;
    pub const KEYS_MAX: u32 = 1_000_000;
    /// Sanity bound on a count a field gives (a queue's `max_length`, a log's
    /// `retention_records`): far beyond any run, small enough that sums of a few of them
    /// cannot overflow. It does not bound a run's messages: the work budget below does.
    pub const LENGTH_MAX: u64 = 1_000_000_000_000;
    pub const RATE_PER_S_MAX: f64 = 1_000_000.0;
    /// Ten years of simulated time: far beyond any lesson, still safely inside u64 µs.
    pub const TIME_S_MAX: f64 = 315_360_000.0;
    pub const NAME_LEN_MAX: usize = crate::names::NAME_LEN_MAX;
    pub const TEXT_LEN_MAX: usize = 4_000;
    pub const SAMPLES_MAX: u64 = 20_000;
    pub const AMOUNT_MAX: i64 = 1_000_000_000;
    pub const LOGS_MAX: usize = 16;
    pub const PARTITIONS_MAX: u32 = 256;
    pub const GROUPS_MAX: usize = 16;
    pub const MEMBERS_MAX: u32 = 256;
    /// Most consumers one command may scale a queue to.
    pub const SCALE_MAX: u32 = 64;

    // ----- the work budget -------------------------------------------------------------
    // Every run honours these, whatever its scenario says: the estimate before the run
    // refuses a scenario that would need more, and a run that still gets there stops at
    // the first step boundary past the limit, with `EndReason` saying which.

    /// Most steps a message-by-message run takes, sized for time: the core takes 1.3–4
    /// million steps per second natively (docs/performance.md), so this is 15–40 s of
    /// work. An hour at 3,000 messages per second (10.8 million messages, two steps
    /// each) fits; a run that loops without end (a lease shorter than the work) stops
    /// here. Beyond it, `mode: "auto"` runs the scenario aggregated (the `aggregate` module).
    pub const STEPS_MAX: u64 = 50_000_000;
    /// Most messages a run creates. Finished records are released (memory follows what
    /// is live), and every message costs at least one step, so this is the step budget.
    pub const MESSAGES_MAX: u64 = STEPS_MAX;
    /// Most message copies a run stores: each is at least one step (its delivery, or
    /// its drop), so fanout and publish retries are bounded by the same work.
    pub const COPIES_MAX: u64 = STEPS_MAX;
    /// Most records appended to all logs together (producers' records plus the output
    /// that consumer groups write). Log records stay in memory until retention removes
    /// them (a group may seek back and read them again), about 150 bytes each, so this
    /// bounds memory rather than time: 5 million records are under a gigabyte.
    pub const LOG_RECORDS_MAX: u64 = 5_000_000;
    /// Most copies held at once (waiting, in flight, retrying, dead-lettered): a held
    /// copy and its message cost about 50 bytes once long-lived, packed (200 while whole;
    /// docs/performance.md, "Long-lived records packed"), so this is about 250 MB (a
    /// browser tab can hold that). The
    /// estimate reads the peak off the aggregated model where it applies (`auto` then
    /// runs aggregated); the run itself stops at it otherwise.
    pub const HELD_MAX: u64 = 5_000_000;
    /// A copy in a consumer's hands (delivered, unpacked, with its timers: about 400
    /// bytes) counts this many times against [`HELD_MAX`], so deliveries held at once
    /// stay under about 625,000 (250 MB).
    pub const IN_HAND_WEIGHT: u64 = 8;
    /// Lowest positive arrival rate: one message in about 11.6 days. Slower rates would
    /// put the next arrival beyond any horizon a lesson has; use 0 to stop instead.
    pub const RATE_PER_S_MIN: f64 = 0.000_001;
}

/// The work budget of one run (see the constants of [`limits`] for why each number).
/// [`Budget::default`] is what every run gets; tests may give a smaller one through
/// `Simulation::with_budget`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Budget {
    pub steps_max: u64,
    /// Messages created (published, outbox rows, injected poison).
    pub messages_max: u64,
    pub copies_max: u64,
    pub log_records_max: u64,
    /// Copies held at once (a run past it ends with `CopiesBudget`).
    #[serde(default = "held_max_default")]
    pub held_max: u64,
}

fn held_max_default() -> u64 {
    limits::HELD_MAX
}

impl Default for Budget {
    fn default() -> Self {
        Self {
            steps_max: limits::STEPS_MAX,
            messages_max: limits::MESSAGES_MAX,
            copies_max: limits::COPIES_MAX,
            log_records_max: limits::LOG_RECORDS_MAX,
            held_max: limits::HELD_MAX,
        }
    }
}

/// A whole run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Format version: [`SCENARIO_VERSION`] once loaded (older files are migrated).
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
    /// Queues, including the subscriptions of exchanges (queues bound to them).
    #[serde(default)]
    pub queues: Vec<QueueSpec>,
    /// Exchanges (topics) that route one publish to every matching bound queue.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exchanges: Vec<ExchangeSpec>,
    #[serde(default)]
    pub consumers: Vec<ConsumerSpec>,
    /// Partitioned logs (streams): records stay after they are read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub logs: Vec<LogSpec>,
    /// Consumer groups reading logs: one member per partition at a time.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<GroupSpec>,
    #[serde(default, skip_serializing_if = "BrokerSpec::is_default")]
    pub broker: BrokerSpec,
    /// Databases and downstream APIs with a capacity, called by consumers' handlers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dependencies: Vec<DependencySpec>,
    /// Commands (faults and setting changes) that happen at a given simulated time.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<ScheduledCommand>,
    /// Commands a user gave while the run was playing, pinned to the step after which
    /// they were given, so a replay (step back, share link) reproduces the run exactly.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub interventions: Vec<Intervention>,
    /// Interval of simulated time between two metric samples.
    #[serde(default = "default_sample_every_s")]
    pub sample_every_s: f64,
    /// The run stops at this simulated time even if work remains.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_s: Option<f64>,
    /// How the seed's randomness is split between the parts of the model (see
    /// [`RandomStreams`]); compare mode sets `per_producer` on both sides.
    #[serde(default, skip_serializing_if = "RandomStreams::is_shared")]
    pub random_streams: RandomStreams,
    /// Message by message, aggregated (rates), or chosen from the work estimate (the
    /// default, left out of files and links so older ones load and encode unchanged).
    #[serde(default, skip_serializing_if = "RunMode::is_auto")]
    pub mode: RunMode,
}

/// Who draws from which random stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RandomStreams {
    /// One stream for everything, in the order draws happen: how every scenario written
    /// before compare mode runs, so their runs (and checked-in traces) stay the same.
    #[default]
    Shared,
    /// Each producer draws its arrival gaps, keys and poison from a stream of its own, so
    /// its arrivals do not depend on what consumers or retries drew before: two runs that
    /// differ only downstream of the producers see exactly the same arrivals.
    PerProducer,
}

impl RandomStreams {
    fn is_shared(&self) -> bool {
        *self == RandomStreams::Shared
    }
}

/// How a run is computed (see [`Scenario::run_mode`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunMode {
    /// Message by message when the work estimate fits the budget, aggregated otherwise.
    #[default]
    Auto,
    /// Every message simulated ([`crate::Simulation`]); refused beyond the work budget.
    Messages,
    /// Rates and amounts instead of messages (the `aggregate` module): the cost follows
    /// simulated time and the scenario's changes, not the number of messages.
    Aggregated,
}

impl RunMode {
    pub fn is_auto(&self) -> bool {
        *self == RunMode::Auto
    }
}

fn default_sample_every_s() -> f64 {
    1.0
}
fn one() -> u32 {
    1
}
fn yes() -> bool {
    true
}
fn is_one(n: &u32) -> bool {
    *n == 1
}
fn is_true(b: &bool) -> bool {
    *b
}
fn is_false(b: &bool) -> bool {
    !*b
}
fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// The JSON document a scenario's text holds, in the current version (migrated).
fn document(text: &str) -> Result<serde_json::Value, ScenarioError> {
    let mut doc: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        // serde echoes what it met: show it escaped, on one line.
        let e = crate::text::escape_controls(&e.to_string());
        err("scenario", format!("is not valid scenario JSON: {e}"))
    })?;
    // serde would read a list as a scenario's fields in order and complain about its
    // second item ("expected a string"): say what is wrong instead.
    if !doc.is_object() {
        return Err(err(
            "scenario",
            "is not a scenario: a scenario is a JSON object, written between { and }",
        ));
    }
    // A file from a later (or no real) version may lack fields this build needs: say
    // the version is the problem rather than "missing field `seed`".
    if let Some(version) = doc.get("version").and_then(serde_json::Value::as_u64) {
        if version == 0 || version > u64::from(SCENARIO_VERSION) {
            return Err(unsupported_version(version));
        }
    }
    crate::migrate::to_current(&mut doc).map_err(|r| err(r.field, r.problem))?;
    Ok(doc)
}

/// The refusal of a format version this build neither reads nor migrates.
pub(crate) fn unsupported_version(version: u64) -> ScenarioError {
    err(
        "version",
        format!("{version} is not supported (this build reads versions 1 to {SCENARIO_VERSION})"),
    )
}

/// A document that is JSON but not a scenario: serde's words about it (`words`), for the
/// field they are about ("seed: invalid type: null, expected u64"), found in the document
/// read again (the refused one was spent decoding); about the whole scenario when the
/// fault is the document itself ("missing field `queues`").
fn undecodable(text: &str, words: String) -> ScenarioError {
    let version_1 = serde_json::from_str::<serde_json::Value>(text)
        .is_ok_and(|doc| doc.get("version").and_then(serde_json::Value::as_u64) == Some(1));
    let path = document(text)
        .map(|doc| crate::decode::failing_path::<Scenario>(&doc, &words))
        .map(|path| match version_1 {
            true => crate::migrate::path_in_version_1(&path),
            false => path,
        })
        .unwrap_or_default();
    if path.is_empty() {
        err("scenario", format!("is not valid scenario JSON: {words}"))
    } else {
        err(path, words)
    }
}

impl Scenario {
    /// Parses JSON text strictly and validates it. Never panics. A value serde cannot
    /// decode is refused for its field (`consumers[0].prefetch`), as the checks refuse.
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        // 1 MiB is far more than any scenario needs; refuse larger input before parsing.
        if text.len() > 1 << 20 {
            return Err(err("scenario", "is larger than 1 MiB"));
        }
        let doc = document(text)?;
        // Decoded the one way every typed document is (see `crate::decode`).
        let scenario: Scenario = crate::decode::decode(doc).map_err(|e| undecodable(text, e))?;
        scenario.validate()?;
        Ok(scenario)
    }

    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).expect("a scenario always serializes")
    }

    /// Total number of consumers once replicas are expanded.
    pub fn consumer_count(&self) -> u32 {
        // Saturating: validation asks for this before it has bounded each replica count.
        self.consumers
            .iter()
            .fold(0u32, |n, c| n.saturating_add(c.replicas))
    }

    /// The spec of consumer `consumer` (replicas expanded), if it exists.
    pub fn consumer_spec(&self, consumer: ConsumerId) -> Option<&ConsumerSpec> {
        let index = consumer.get();
        let mut first = 0u32;
        for spec in &self.consumers {
            let next = first.saturating_add(spec.replicas);
            if index < next {
                return Some(spec);
            }
            first = next;
        }
        None
    }

    pub fn queue_index(&self, name: &str) -> Option<usize> {
        self.queues.iter().position(|q| q.name == name)
    }

    pub fn dependency_index(&self, name: &str) -> Option<usize> {
        self.dependencies.iter().position(|d| d.name == name)
    }

    pub fn log_index(&self, name: &str) -> Option<usize> {
        self.logs.iter().position(|l| l.name == name)
    }

    /// Every destination's list of allowed publishers, with where it stands in the file:
    /// (`"queues"`, `"exchanges"` or `"logs"`, its index, the list).
    pub fn publisher_lists(&self) -> impl Iterator<Item = (&'static str, usize, &Vec<String>)> {
        let queues = self.queues.iter().map(|q| &q.publishers).enumerate();
        let exchanges = self.exchanges.iter().map(|x| &x.publishers).enumerate();
        let logs = self.logs.iter().map(|l| &l.publishers).enumerate();
        (queues.map(|(i, p)| ("queues", i, p)))
            .chain(exchanges.map(|(i, p)| ("exchanges", i, p)))
            .chain(logs.map(|(i, p)| ("logs", i, p)))
    }

    /// The queue a consumer spec reads.
    pub fn queue_of(&self, spec: &ConsumerSpec) -> usize {
        if spec.queue.is_empty() {
            0
        } else {
            self.queue_index(&spec.queue).unwrap_or(0)
        }
    }

    /// Producer `p`'s rate schedule in absolute time, with the arrival changes among the
    /// interventions applied in order (each replaces what remained from its instant).
    pub fn effective_schedule(&self, p: usize) -> Vec<RateSegment> {
        let mut changes: Vec<(f64, &[RateSegment])> = self
            .commands
            .iter()
            .map(|f| (f.at_s, &f.command))
            .chain(
                self.interventions
                    .iter()
                    .map(|iv| (iv.at_us as f64 / 1e6, &iv.command)),
            )
            .filter_map(|(at_s, fault)| match fault {
                Command::SetArrivals {
                    producer, schedule, ..
                } if (*producer).index() == p => Some((at_s, schedule.as_slice())),
                _ => None,
            })
            .collect();
        // Stable: at the same instant, scheduled changes come before commands.
        changes.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut schedule = self.producers[p].arrivals.schedule.clone();
        for (at_s, new) in changes {
            splice_schedule(&mut schedule, at_s, new);
        }
        schedule
    }

    /// Producer `p`'s arrivals as the scenario plans them at `at_s`: its process and rate
    /// schedule (absolute time), with the scheduled arrival changes up to `at_s` applied in
    /// time order (not the recorded commands, nor a change scheduled later, which still
    /// strikes at its own time). `None` if there is no producer `p`.
    pub fn planned_arrivals(
        &self,
        p: usize,
        at_s: f64,
    ) -> Option<(ArrivalProcess, Vec<RateSegment>)> {
        let spec = self.producers.get(p)?;
        let mut changes: Vec<(f64, ArrivalProcess, &[RateSegment])> = self
            .commands
            .iter()
            .filter(|f| f.at_s <= at_s)
            .filter_map(|f| match &f.command {
                Command::SetArrivals {
                    producer,
                    process,
                    schedule,
                } if (*producer).index() == p => Some((f.at_s, *process, schedule.as_slice())),
                _ => None,
            })
            .collect();
        changes.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut process = spec.arrivals.process;
        let mut schedule = spec.arrivals.schedule.clone();
        for (at_s, new_process, new) in changes {
            process = new_process;
            splice_schedule(&mut schedule, at_s, new);
        }
        Some((process, schedule))
    }

    /// The scheduled arrival change that sets producer `p` to a steady `rate_per_s` at
    /// `at_s`, keeping its process and whatever the scenario plans after `at_s` (see
    /// [`steady_from`]): what the schedule's "change the producer's rate" adds. `None` if
    /// there is no producer `p`.
    pub fn rate_change_at(&self, p: usize, at_s: f64, rate_per_s: f64) -> Option<Command> {
        let (process, planned) = self.planned_arrivals(p, at_s)?;
        Some(Command::SetArrivals {
            producer: crate::ProducerId::from_index(p),
            process,
            schedule: steady_from(&planned, at_s, rate_per_s),
        })
    }

    pub(crate) fn sample_every_us(&self) -> Micros {
        secs_to_us(self.sample_every_s).max(1)
    }
}
