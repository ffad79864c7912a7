//! The headless runner's report: summary and series, as JSON or CSV.

use serde::Serialize;

use crate::log::PartitionView;
use crate::metrics::{GroupSample, QueueSample, Sample, Summary};
use crate::queue::QueueView;
use crate::sim::Simulation;

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub scenario: String,
    pub seed: u64,
    /// Why the run ended (`null` if it was cut short while still running).
    pub end_reason: Option<crate::sim::EndReason>,
    /// Steps taken.
    pub steps: u64,
    pub summary: Summary,
    /// Each queue at the end of the run, and its own series (in step with `series`).
    pub queues: Vec<QueueView>,
    pub queue_series: Vec<Vec<QueueSample>>,
    /// Each consumer group of a log at the end: offsets, owners and lag per partition.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<GroupReport>,
    pub series: Vec<Sample>,
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
            scenario: sim.scenario().name.clone(),
            seed: sim.scenario().seed,
            end_reason: sim.end_reason(),
            steps: sim.steps(),
            summary: sim.summary(),
            queues: (0..sim.queue_count())
                .filter_map(|q| sim.queue(q))
                .collect(),
            queue_series: (0..sim.queue_count())
                .map(|q| sim.queue_series(q).to_vec())
                .collect(),
            groups: (0..sim.group_count())
                .map(|g| GroupReport {
                    name: sim.group_name(g),
                    partitions: sim.group_partitions(g),
                    series: sim.group_series(g).to_vec(),
                })
                .collect(),
            series: sim.series().to_vec(),
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report always serializes")
    }

    pub fn series_csv(&self) -> String {
        let mut out = String::from(
            "t_s,backlog,oldest_age_s,in_flight,retry_waiting,dead_lettered,lag,published,delivered,redelivered,acked,lost,duplicate_effects\n",
        );
        for s in &self.series {
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
}
