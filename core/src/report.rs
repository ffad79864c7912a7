//! The headless runner's report: summary and series, as JSON or CSV.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::database::GroupTables;
use crate::producer::JobCounts;

use crate::dependency::{DependencyLoad, DependencySample, DependencyView};
use crate::log::PartitionView;
use crate::metrics::{FlowSample, GroupSample, QueueSample, Sample, Summary};
use crate::queue::QueueView;
use crate::sim::Simulation;

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Always `"messages"` (an aggregated run's report, `aggregate::AggregateRun`, says
    /// `"aggregated"`).
    pub mode: &'static str,
    pub scenario: String,
    pub seed: u64,
    /// Why the run ended (`null` if it was cut short while still running).
    pub end_reason: Option<crate::end_reason::EndReason>,
    /// Steps taken.
    pub steps: u64,
    pub summary: Summary,
    /// Each queue at the end of the run, and its own series (in step with `series`).
    pub queues: Vec<QueueView>,
    pub queue_series: Vec<Vec<QueueSample>>,
    /// Each consumer group of a log at the end: offsets, owners and lag per partition.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<GroupReport>,
    /// Where every accepted request stands at the end (the 202 + job status contract).
    pub jobs: JobCounts,
    /// Each producer's outbox and jobs at the end.
    pub producers: Vec<ProducerReport>,
    /// The database of each consumer group (a queue's consumers, then each log group).
    pub database: Vec<DatabaseReport>,
    pub series: Vec<Sample>,
    /// Goodput (copies finished per second) next to throughput (handler attempts per
    /// second), over the whole run and as a series in step with `series`.
    pub flow: FlowReport,
    /// Each dependency at the end: its state, its load against capacity, its series.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dependencies: Vec<DependencyReport>,
}

#[derive(Clone, Debug, Serialize)]
pub struct FlowReport {
    pub goodput_per_s: f64,
    pub throughput_per_s: f64,
    pub series: Vec<FlowSample>,
}

#[derive(Clone, Debug, Serialize)]
pub struct DependencyReport {
    pub name: String,
    pub end: DependencyView,
    pub load: Option<DependencyLoad>,
    pub series: Vec<DependencySample>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ProducerReport {
    pub name: String,
    /// Outbox rows not yet confirmed by the broker: accepted work not yet published.
    pub outbox_unsent: u64,
    /// Of those, rows whose publish attempts are used up (left for an operator).
    pub outbox_parked: u64,
    pub jobs: JobCounts,
}

#[derive(Clone, Debug, Serialize)]
pub struct DatabaseReport {
    /// The queue (or log group) whose consumers own these tables.
    pub name: String,
    /// Balance per aggregate key (keys an effect touched).
    pub balances: BTreeMap<u32, i64>,
    /// Version of the last message applied, per key.
    pub versions: BTreeMap<u32, u32>,
    pub emails: EmailReport,
}

#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct EmailReport {
    /// Emails sent in all.
    pub count: u64,
    /// Emails beyond the first for the same message.
    pub duplicates: u64,
}

impl DatabaseReport {
    fn of(name: String, t: &GroupTables) -> Self {
        Self {
            name,
            balances: t.aggregates.iter().map(|(&k, a)| (k, a.balance)).collect(),
            versions: t.aggregates.iter().map(|(&k, a)| (k, a.version)).collect(),
            emails: EmailReport {
                count: t.emails.total(),
                duplicates: t.emails.extra(),
            },
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct GroupReport {
    pub name: String,
    pub partitions: Vec<PartitionView>,
    pub series: Vec<GroupSample>,
}

impl Report {
    pub fn of(sim: &Simulation) -> Self {
        Self {
            mode: "messages",
            scenario: sim.scenario().name.clone(),
            seed: sim.scenario().seed,
            end_reason: sim.end_reason(),
            steps: sim.steps(),
            summary: sim.summary(),
            queues: sim.queue_ids().filter_map(|q| sim.queue(q)).collect(),
            queue_series: sim
                .queue_ids()
                .map(|q| sim.queue_series(q).to_vec())
                .collect(),
            groups: sim
                .group_ids()
                .map(|g| GroupReport {
                    name: sim.group_name(g),
                    partitions: sim.group_partitions(g),
                    series: sim.group_series(g).to_vec(),
                })
                .collect(),
            jobs: sim.jobs_of(None),
            producers: sim
                .producer_ids()
                .filter_map(|p| sim.producer_view(p))
                .map(|v| ProducerReport {
                    name: v.name,
                    outbox_unsent: v.outbox_len as u64,
                    outbox_parked: v.parked as u64,
                    jobs: v.jobs,
                })
                .collect(),
            database: Self::database(sim),
            series: sim.series().to_vec(),
            flow: Self::flow(sim),
            dependencies: (0..sim.dependency_count())
                .filter_map(|d| {
                    let end = sim.dependency(d)?;
                    Some(DependencyReport {
                        name: end.name.clone(),
                        end,
                        load: sim.dependency_load(d),
                        series: sim.dependency_series(d).to_vec(),
                    })
                })
                .collect(),
        }
    }

    fn flow(sim: &Simulation) -> FlowReport {
        let elapsed_s = crate::time::us_to_secs(sim.now_us());
        let per_s = |n: u64| {
            if elapsed_s > 0.0 {
                n as f64 / elapsed_s
            } else {
                0.0
            }
        };
        FlowReport {
            goodput_per_s: per_s(sim.counters().done),
            throughput_per_s: per_s(sim.handler_attempts()),
            series: sim.flow_series().to_vec(),
        }
    }

    fn database(sim: &Simulation) -> Vec<DatabaseReport> {
        let queues = sim.queue_ids().filter_map(|q| {
            let name = sim.queue(q)?.name;
            Some(DatabaseReport::of(name, sim.tables(q)?))
        });
        let groups = sim
            .group_ids()
            .filter_map(|g| Some(DatabaseReport::of(sim.group_name(g), sim.group_tables(g)?)));
        queues.chain(groups).collect()
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report always serializes")
    }

    /// The series as CSV; with dependencies, goodput, throughput and each dependency's
    /// figures follow the usual columns.
    pub fn series_csv(&self) -> String {
        let plain = series_csv(&self.series);
        if self.dependencies.is_empty() {
            return plain;
        }
        let mut out = String::new();
        for (i, line) in plain.lines().enumerate() {
            out.push_str(line);
            match i {
                0 => out.push_str(&self.dependency_header()),
                _ => out.push_str(&self.dependency_row(i - 1)),
            }
            out.push('\n');
        }
        out
    }

    fn dependency_header(&self) -> String {
        let mut h = String::from(",goodput_per_s,throughput_per_s");
        for d in &self.dependencies {
            // Names are untrusted text: keep the header one CSV cell per column.
            let n: String = d
                .name
                .chars()
                .map(|c| if c.is_alphanumeric() { c } else { '_' })
                .collect();
            h += &format!(",{n}_in_service,{n}_queued,{n}_oldest_age_s,{n}_calls_per_s,{n}_goodput_per_s,{n}_error_rate,{n}_breaker_open");
        }
        h
    }

    fn dependency_row(&self, i: usize) -> String {
        let f = self.flow.series.get(i).copied().unwrap_or_default();
        let mut row = format!(",{},{}", f.goodput_per_s, f.throughput_per_s);
        for d in &self.dependencies {
            match d.series.get(i) {
                Some(s) => {
                    row += &format!(
                        ",{},{},{},{},{},{},{}",
                        s.in_service,
                        s.queued,
                        s.oldest_age_s,
                        s.calls_per_s,
                        s.goodput_per_s,
                        s.error_rate,
                        u8::from(s.breaker_open)
                    )
                }
                None => row += ",,,,,,,",
            }
        }
        row
    }
}

/// The columns of a run's series as CSV, one row per sample: what `brokerlab run --csv`
/// prints and what the page exports, so the two can be compared line for line.
pub fn series_csv(series: &[Sample]) -> String {
    let mut out = String::from(
        "t_s,backlog,oldest_age_s,in_flight,retry_waiting,dead_lettered,lag,published,delivered,redelivered,acked,lost,duplicate_effects\n",
    );
    for s in series {
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
            s.t_s,
            s.backlog,
            s.oldest_age_s,
            s.in_flight,
            s.retry_waiting,
            s.dead_lettered,
            s.lag,
            s.published,
            s.delivered,
            s.redelivered,
            s.acked,
            s.lost,
            s.duplicate_effects
        ));
    }
    out
}
