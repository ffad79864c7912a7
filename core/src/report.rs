//! The headless runner's report: summary and series, as JSON or CSV.

use serde::Serialize;

use crate::metrics::{Sample, Summary};
use crate::sim::Simulation;

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub scenario: String,
    pub seed: u64,
    pub summary: Summary,
    pub series: Vec<Sample>,
}

impl Report {
    pub fn of(sim: &Simulation) -> Self {
        Self {
            scenario: sim.scenario().name.clone(),
            seed: sim.scenario().seed,
            summary: sim.summary(),
            series: sim.series().to_vec(),
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report always serializes")
    }

    pub fn series_csv(&self) -> String {
        let mut out = String::from("t_s,backlog,oldest_age_s,in_flight\n");
        for s in &self.series {
            out.push_str(&format!(
                "{},{},{},{}\n",
                s.t_s, s.backlog, s.oldest_age_s, s.in_flight
            ));
        }
        out
    }
}
