//! The work estimate made before a run: what a scenario can multiply (exchange fanout,
//! publish attempts, group output logs, consumer retry attempts) counted against the
//! work budget of [`crate::scenario::limits`], so a scenario that would need more is
//! refused in one line instead of running out of memory. The estimate is an honest upper
//! bound where one exists (messages, copies, records) and an expected value where only
//! chance decides (retry attempts); the run itself still honours the budget, so whatever
//! the estimate cannot see (lost confirms around a broker crash, leases that expire
//! again and again) ends the run cleanly instead.

use serde::Serialize;

use crate::routing;
use crate::scenario::{limits, Command, Flavour, RateSegment, RunMode, Scenario, ScenarioError};

/// Poisson arrivals can exceed their mean: a generous margin over the schedule's mean.
const POISSON_FACTOR: f64 = 1.05;
const POISSON_EXTRA: f64 = 1_000.0;

/// What a scenario is expected to need, in the budget's units.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct WorkEstimate {
    /// Messages the producers create (infinite if some producer never stops).
    pub messages: f64,
    /// Copies stored in queues: messages × fanout × publish attempts.
    pub copies: f64,
    /// Records appended to logs, the groups' output included.
    pub log_records: f64,
    /// Steps: at least one per message, one per delivery attempt, one per record read.
    pub steps: f64,
    /// Most copies held at once, read off the aggregated model when the copies could
    /// exceed the limit and that model applies (0 otherwise: the run itself guards it).
    pub held: f64,
}

impl WorkEstimate {
    /// Checks the estimate against the budget; the error is one line naming the limit.
    pub fn check(&self) -> Result<(), ScenarioError> {
        let over = |what: &str, n: f64, max: u64, hint: &str| {
            if n > max as f64 {
                Err(ScenarioError {
                    field: "scenario".into(),
                    problem: format!(
                        "would need about {} {what}; the limit is {max} ({hint})",
                        shown(n)
                    ),
                })
            } else {
                Ok(())
            }
        };
        over(
            "message copies",
            self.copies,
            limits::COPIES_MAX,
            "fanout and publish retries multiply each message",
        )?;
        over(
            "log records",
            self.log_records,
            limits::LOG_RECORDS_MAX,
            "each group with an output log writes one per record it reads",
        )?;
        over(
            "steps",
            self.steps,
            limits::STEPS_MAX,
            "every delivery attempt is a step; lower the count or the retries",
        )?;
        over(
            "message copies held at once",
            self.held,
            limits::HELD_MAX,
            "arrivals beyond the consumers' capacity pile up in memory",
        )
    }
}

fn shown(n: f64) -> String {
    if n.is_finite() {
        format!("{}", n.round() as u64)
    } else {
        "endless".into()
    }
}

impl Scenario {
    /// The model that runs this scenario: [`RunMode::Messages`] or
    /// [`RunMode::Aggregated`], never `Auto`. `auto` runs message by message while the
    /// work estimate fits the budget, aggregated beyond it (when the aggregated model
    /// covers the scenario); the error is one line naming the limit either way.
    pub fn run_mode(&self) -> Result<RunMode, ScenarioError> {
        let aggregated = || crate::fluid::supports(self).map(|()| RunMode::Aggregated);
        match self.mode {
            RunMode::Messages => self.work_estimate().check().map(|()| RunMode::Messages),
            RunMode::Aggregated => aggregated(),
            RunMode::Auto => match self.work_estimate().check() {
                Ok(()) => Ok(RunMode::Messages),
                Err(over) => aggregated().map_err(|why| ScenarioError {
                    field: over.field,
                    problem: format!(
                        "{}; the aggregated mode cannot take it either: {}",
                        over.problem, why.problem
                    ),
                }),
            },
        }
    }

    /// Upper bound of the messages producer `p` creates (infinite if it never stops).
    ///
    /// A recorded command (intervention) replays once its step is reached, and that step
    /// may never come, or come at any instant: so its new schedule is never assumed to
    /// cut the old one short. Instead each changed schedule adds what it could produce
    /// over the whole horizon, on top of the schedule of the scheduled faults.
    pub fn message_bound(&self, p: usize) -> f64 {
        let producer = &self.producers[p];
        let injected = self.commands().filter(|f| is_poison_for(f, p)).count() as f64;
        if !producer.script.is_empty() {
            return producer.script.len() as f64 + injected;
        }
        let horizon = self.end_s.unwrap_or(f64::INFINITY);
        let base = self.schedule_with_faults(p);
        let mut mean = integral(&base, horizon);
        let mut peak_per_s = peak(&base);
        for iv in &self.interventions {
            if let Command::SetArrivals {
                producer: q,
                schedule,
                ..
            } = &iv.command
            {
                if (*q).index() == p {
                    mean += integral(schedule, horizon);
                    peak_per_s = peak_per_s.max(peak(schedule));
                }
            }
        }
        // One schedule is in force at a time: never more than the highest rate throughout.
        if horizon.is_finite() {
            mean = mean.min(peak_per_s * horizon);
        }
        let by_schedule = mean * POISSON_FACTOR + POISSON_EXTRA;
        let generated = producer
            .count
            .map_or(by_schedule, |n| (n as f64).min(by_schedule));
        generated + injected
    }

    /// Every fault and command, scheduled or recorded.
    fn commands(&self) -> impl Iterator<Item = &Command> {
        self.commands
            .iter()
            .map(|f| &f.command)
            .chain(self.interventions.iter().map(|iv| &iv.command))
    }

    /// Producer `p`'s schedule with the scheduled faults' changes (which strike at their
    /// time for sure), but not the recorded commands'.
    fn schedule_with_faults(&self, p: usize) -> Vec<RateSegment> {
        let mut changes: Vec<(f64, &[RateSegment])> = self
            .commands
            .iter()
            .filter_map(|f| match &f.command {
                Command::SetArrivals {
                    producer, schedule, ..
                } if (*producer).index() == p => Some((f.at_s, schedule.as_slice())),
                _ => None,
            })
            .collect();
        changes.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut schedule = self.producers[p].arrivals.schedule.clone();
        for (at_s, new) in changes {
            crate::scenario::splice_schedule(&mut schedule, at_s, new);
        }
        schedule
    }

    /// Most queues one publish of producer `p` reaches.
    fn fanout(&self, p: usize) -> f64 {
        let producer = &self.producers[p];
        if producer.target.is_empty() {
            return if self.queues.is_empty() { 0.0 } else { 1.0 };
        }
        if self.queue_index(&producer.target).is_some() {
            return 1.0;
        }
        let Some(x) = self.exchanges.iter().find(|x| x.name == producer.target) else {
            return 0.0; // a log: records, not copies
        };
        let mut keys: Vec<&str> = producer.routing_keys.iter().map(String::as_str).collect();
        keys.extend(producer.script.iter().map(|m| m.routing_key.as_str()));
        keys.push("");
        keys.iter()
            .map(|key| {
                let mut queues: Vec<&str> = x
                    .bindings
                    .iter()
                    .filter(|b| routing::matches(x.kind, &b.key, key))
                    .map(|b| b.queue.as_str())
                    .collect();
                queues.sort_unstable();
                queues.dedup();
                queues.len() as f64
            })
            .fold(0.0, f64::max)
    }

    /// An idempotent producer's retries are dropped only by a broker that keeps its
    /// sequence: a log's, or the teaching broker's (`Simulation::dedups_by_sequence`).
    /// Counted so only when every queue is the teaching broker's and no command switches a
    /// flavour: an estimate may be high, never low.
    fn drops_idempotent_retries(&self, p: usize) -> bool {
        if self.log_index(&self.producers[p].target).is_some() {
            return true;
        }
        let switched = self
            .commands()
            .any(|c| matches!(c, Command::SetFlavour { .. }));
        !switched && self.queues.iter().all(|q| q.flavour == Flavour::Generic)
    }

    /// Publish attempts that each store the message again. Without confirms, or with
    /// idempotent publishing to a broker that drops what it already stored, one. With a
    /// confirm timeout no longer than the round trip, every attempt times out and is
    /// stored again: `max_attempts`. Otherwise one, plus one per confirm dropped on purpose.
    pub(crate) fn stores_per_message(&self, p: usize) -> (f64, f64) {
        let publish = &self.producers[p].publish;
        if !publish.confirms || (publish.idempotent && self.drops_idempotent_retries(p)) {
            return (1.0, 0.0);
        }
        let round_trip_s = 2.0 * self.broker.network_latency_s;
        if publish.confirm_timeout_s <= round_trip_s {
            return (f64::from(publish.max_attempts), 0.0);
        }
        let dropped = self
            .commands()
            .filter(
                |f| matches!(f, Command::DropNextConfirm { producer } if (*producer).index() == p),
            )
            .count() as f64;
        (1.0, dropped)
    }

    /// Expected delivery attempts per copy for the consumers of queue `q`: poison messages
    /// use every attempt, transient failures a geometric share of them.
    fn attempts_per_copy(&self, q: usize) -> f64 {
        let poison_share = self
            .producers
            .iter()
            .map(|p| p.payload.poison_share)
            .fold(0.0, f64::max);
        self.consumers
            .iter()
            .filter(|c| self.queue_of(c) == q)
            .map(|c| {
                let n = f64::from(c.retry.max_attempts);
                let p = c.failures.transient_p.clamp(0.0, 1.0);
                let transient = if p >= 1.0 {
                    n
                } else {
                    (1.0 - p.powf(n)) / (1.0 - p)
                };
                poison_share * n + (1.0 - poison_share) * transient
            })
            .fold(1.0, f64::max)
    }

    /// Steps one delivery attempt takes for the consumers of queue `q`: one, or three
    /// when their handler calls a dependency (the call, its answer or timeout, and the
    /// request served). How many attempts a dependency's timeouts cause depends on the
    /// run, like transient failures: the run's own step budget ends a storm that never
    /// stops.
    fn steps_per_attempt(&self, q: usize) -> f64 {
        let calls = self
            .consumers
            .iter()
            .any(|c| self.queue_of(c) == q && !c.calls.is_empty());
        if calls {
            3.0
        } else {
            1.0
        }
    }

    /// The whole estimate. Assumes a validated scenario (names resolve).
    pub fn work_estimate(&self) -> WorkEstimate {
        let mut est = WorkEstimate::default();
        let mut copies_by_queue = vec![0.0; self.queues.len()];
        let mut records_by_log = vec![0.0; self.logs.len()];
        for p in 0..self.producers.len() {
            let messages = self.message_bound(p);
            let (stores, extra) = self.stores_per_message(p);
            let stored = messages * stores + extra;
            est.messages += messages;
            if let Some(l) = self.log_index(&self.producers[p].target) {
                records_by_log[l] += stored;
            } else {
                let fanout = self.fanout(p);
                est.copies += stored * fanout;
                for q in self.targets(p) {
                    copies_by_queue[q] += stored;
                }
            }
        }
        let (records, reads) = self.group_records(records_by_log);
        est.log_records = records;
        let deliveries: f64 = copies_by_queue
            .iter()
            .enumerate()
            .map(|(q, n)| n * self.attempts_per_copy(q) * self.steps_per_attempt(q))
            .sum();
        est.steps = est.messages + deliveries + reads;
        if est.copies > limits::HELD_MAX as f64 && crate::fluid::supports(self).is_ok() {
            est.held = crate::fluid::peak_held(self);
        }
        est
    }

    /// The queues producer `p`'s publishes may reach (each counted once).
    fn targets(&self, p: usize) -> Vec<usize> {
        let producer = &self.producers[p];
        if producer.target.is_empty() {
            return if self.queues.is_empty() {
                vec![]
            } else {
                vec![0]
            };
        }
        if let Some(q) = self.queue_index(&producer.target) {
            return vec![q];
        }
        let mut out: Vec<usize> = self
            .exchanges
            .iter()
            .filter(|x| x.name == producer.target)
            .flat_map(|x| x.bindings.iter().filter_map(|b| self.queue_index(&b.queue)))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Records in all logs once every group has written its output, and the records the
    /// groups read. A group reads every record of its log (again after each seek back)
    /// and writes one output record per record read; groups whose outputs feed each other
    /// in a loop would write forever (infinite).
    fn group_records(&self, direct: Vec<f64>) -> (f64, f64) {
        let reads_per_record = |g: usize| {
            let seeks = self
                .commands()
                .filter(|f| {
                    matches!(f, Command::SeekToEarliest { group } | Command::SeekTo { group, .. }
                        if (*group).index() == g)
                })
                .count();
            1.0 + seeks as f64
        };
        // Fixed point by rounds: without a loop it settles within one round per log. A
        // validated scenario has no loop (`scenario/log_rings.rs` refuses one); the rounds
        // stay bounded for any other caller, and an unsettled count is endless.
        let mut records = direct.clone();
        let mut settled = false;
        for _ in 0..self.logs.len() + 2 {
            let mut next = direct.clone();
            for (g, spec) in self.groups.iter().enumerate() {
                if let (Some(input), Some(output)) =
                    (self.log_index(&spec.log), self.log_index(&spec.output))
                {
                    next[output] += records[input] * reads_per_record(g);
                }
            }
            settled = next == records;
            records = next;
            if settled {
                break;
            }
        }
        if !settled {
            return (f64::INFINITY, f64::INFINITY);
        }
        let reads = self
            .groups
            .iter()
            .enumerate()
            .filter_map(|(g, spec)| Some(records[self.log_index(&spec.log)?] * reads_per_record(g)))
            .sum();
        (records.iter().sum(), reads)
    }
}

/// Mean messages a schedule produces before `horizon_s` (infinite if the last segment has
/// a positive rate and there is no horizon).
fn integral(schedule: &[RateSegment], horizon_s: f64) -> f64 {
    let mut total = 0.0;
    for (k, seg) in schedule.iter().enumerate() {
        let until = schedule
            .get(k + 1)
            .map_or(horizon_s, |n| n.from_s.min(horizon_s));
        if until > seg.from_s && seg.rate_per_s > 0.0 {
            total += seg.rate_per_s * (until - seg.from_s);
        }
    }
    total
}

fn peak(schedule: &[RateSegment]) -> f64 {
    schedule.iter().map(|s| s.rate_per_s).fold(0.0, f64::max)
}

fn is_poison_for(fault: &Command, p: usize) -> bool {
    matches!(fault, Command::InjectPoison { producer, .. } if (*producer).index() == p)
}

/// Why a scenario runs aggregated, in one line starting with "aggregated mode:".
pub fn why_aggregated(s: &Scenario) -> String {
    match s.work_estimate().check() {
        Err(over) => format!(
            "aggregated mode: message by message it {}; rates and amounts instead of messages",
            over.problem
        ),
        Ok(()) => "aggregated mode: chosen by the scenario (mode: aggregated); rates and amounts instead of messages".into(),
    }
}
