//! What the page shows about a run at one instant, as plain data: the counters and gauges
//! (re-read after every frame; comparing two readouts tells the view whether anything on
//! screen must change) and the latency percentiles.

use brokerlab_core::Simulation;

/// The counters and gauges of a run at one instant.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Readout {
    /// Steps taken so far (the index of the latest step).
    pub step: u64,
    pub time_s: f64,
    pub published: u64,
    pub delivered: u64,
    pub redelivered: u64,
    pub acked: u64,
    /// Finished with no ack reaching the broker (acked on delivery, or forgotten by a
    /// broker crash while processed).
    pub done_without_ack: u64,
    /// Copies held back until their retry delay has passed.
    pub retry_waiting: u64,
    pub lost: u64,
    /// Messages gone before the broker stored them, nobody told (the core's counter).
    pub lost_before_stored: u64,
    pub duplicate_effects: u64,
    pub leases_expired: u64,
    pub backlog: u64,
    pub in_flight: u64,
    pub oldest_age_s: f64,
    pub crashes: u64,
    pub restarts: u64,
    pub broker_crashes: u64,
    pub dead_lettered: u64,
    pub retries_scheduled: u64,
    pub duplicates_skipped: u64,
    pub refused: u64,
    /// Requests that reached a crashed producer and were turned away: never accepted, so
    /// no message, no job and no loss counts them.
    pub requests_refused: u64,
    pub dropped: u64,
    pub expired: u64,
    pub redriven: u64,
    /// Dead letters a broker restart took (transient, or their queue not durable).
    pub dead_letters_lost: u64,
    pub consumers_up: u32,
    pub consumers_total: u32,
    /// Records of logs processed by consumer groups: a log's readers are not delivered
    /// messages one by one, nor ack them, so Delivered and Acked do not count them.
    pub records_processed: u64,
    /// Offsets committed by consumer groups (one per commit of a record's offset).
    pub offsets_committed: u64,
    /// Log records a group will never process: its offset was committed before the work
    /// and the member crashed, or retention deleted the record unread.
    pub records_skipped: u64,
    /// Different messages an inbox keyed by their entity took for duplicates: acked,
    /// their work never done.
    pub taken_for_duplicates: u64,
    /// Events a service committed and never published (a dual write's crash between
    /// the database and the broker): lost before any broker saw them.
    pub never_published: u64,
    /// The run has consumers of queues (Delivered, Acked and Redelivered apply).
    pub queue_consumers: bool,
    /// The run has consumer groups reading logs (Records processed applies).
    pub log_groups: bool,
    /// Nothing is left to happen: the run is over.
    pub finished: bool,
    /// Why the run ended, in plain words, when the work budget stopped it (a scenario
    /// that would go on for ever, or multiply without end, is stopped there).
    pub budget_stop: Option<&'static str>,
    /// The run is over with work left: messages wait that no consumer will ever take
    /// (every one crashed for good). Not "drained", which would hide them.
    pub stalled: bool,
}

impl Readout {
    /// What the Lost tile counts, as the "no message lost" invariant does: copies lost,
    /// messages lost before the broker stored them, log records a group will never
    /// process, and events committed but never published.
    pub fn lost_for_good(&self) -> u64 {
        self.lost
            + self.lost_before_stored
            + self.records_skipped
            + self.never_published
            + self.taken_for_duplicates
    }
}

/// Latency percentiles of the run so far, from the core's summary.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Percentiles {
    /// Copies finished so far (what the end-to-end latencies are over).
    pub done: u64,
    /// End to end, message created → its work done: p50, p95, p99 in seconds.
    pub latency_s: [f64; 3],
    /// Stored in the queue → first delivered: p50, p95, p99 in seconds.
    pub queue_wait_s: [f64; 3],
    /// Log records processed so far by consumer groups (what the record latencies are over).
    pub records: u64,
    /// Log records, message created → a group's member done with it: p50, p95, p99.
    pub record_latency_s: [f64; 3],
}

impl Percentiles {
    pub fn of(sim: &Simulation) -> Self {
        let s = sim.summary();
        Self {
            done: s.counters.done,
            latency_s: [s.latency_p50_s, s.latency_p95_s, s.latency_p99_s],
            queue_wait_s: [s.queue_wait_p50_s, s.queue_wait_p95_s, s.queue_wait_p99_s],
            records: s.counters.records_processed,
            record_latency_s: [
                s.record_latency_p50_s,
                s.record_latency_p95_s,
                s.record_latency_p99_s,
            ],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::examples;

    #[test]
    fn percentiles_come_from_the_run_and_are_ordered() {
        let mut sim = Simulation::new(examples::load("mm1").expect("built in")).expect("valid");
        assert_eq!(Percentiles::of(&sim), Percentiles::default());
        sim.run_until(brokerlab_core::secs_to_us(30.0));
        let p = Percentiles::of(&sim);
        assert!(p.done > 0);
        assert_eq!(p.done, sim.counters().done);
        for v in [p.latency_s, p.queue_wait_s] {
            assert!(v[0] <= v[1] && v[1] <= v[2], "{p:?}");
        }
        assert!(p.latency_s[2] > 0.0);
    }
}
