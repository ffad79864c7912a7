//! The run's time series: a sample of every counter and gauge each `sample_every_s`,
//! taken as the clock passes each instant (and flushed at the end).

use super::Simulation;
use crate::metrics::{FlowSample, GroupSample, QueueSample, Sample};
use crate::step::QueueId;
use crate::time::{us_to_secs, Micros};

impl Simulation {
    pub(super) fn flush_samples(&mut self) {
        while let Some(ts) = self.series.due_before(self.now_us.saturating_add(1)) {
            self.take_sample(ts, self.now_us);
        }
    }

    /// Records the sample due at `ts`, of the state as it is (ages measured at `age_at`).
    pub(super) fn take_sample(&mut self, ts: Micros, age_at: Micros) {
        let sample = Sample {
            t_s: us_to_secs(ts),
            ..self.sample_at(age_at)
        };
        let mut queues = std::mem::take(&mut self.queue_sample_buf);
        queues.clear();
        queues.extend((0..self.queues.len()).map(|q| {
            let queue = &self.queues[q];
            QueueSample {
                waiting: queue.line.len() as u64,
                in_flight: queue.in_flight,
                retry_waiting: queue.retry_waiting,
                dead_lettered: queue.dlq.len() as u64,
                oldest_age_s: us_to_secs(self.queue_oldest_age_us(QueueId::from_index(q), age_at)),
            }
        }));
        let groups: Vec<GroupSample> = self
            .group_ids()
            .map(|g| GroupSample {
                lag: self.group_partitions(g).iter().map(|p| p.lag).sum(),
                members_up: self.group_members(g).0,
            })
            .collect();
        let flow = FlowSample::next(
            self.series.flow_samples().last(),
            self.counters.done,
            self.handler_attempts,
            us_to_secs(self.series.every_us()),
        );
        let deps: Vec<_> = (0..self.deps.len())
            .map(|d| self.dependency_sample(d, age_at))
            .collect();
        self.series.push_flow(flow, &deps);
        self.series.push(sample, &queues, &groups);
        self.queue_sample_buf = queues;
    }

    pub(super) fn sample_at(&self, t_us: Micros) -> Sample {
        Sample {
            t_s: us_to_secs(t_us),
            backlog: self.waiting_total,
            oldest_age_s: us_to_secs(self.oldest_age_us_at(t_us)),
            in_flight: self.in_flight(),
            retry_waiting: self.queues.iter().map(|q| q.retry_waiting).sum(),
            dead_lettered: self.queues.iter().map(|q| q.dlq.len() as u64).sum(),
            lag: self
                .group_ids()
                .flat_map(|g| self.group_partitions(g))
                .map(|p| p.lag)
                .sum(),
            published: self.counters.published + self.counters.appended,
            delivered: self.counters.delivered,
            redelivered: self.counters.redelivered,
            acked: self.counters.acked,
            lost: self.counters.lost,
            duplicate_effects: self.counters.duplicate_effects,
        }
    }
}
