//! What a run can be asked from outside, without changing it: its clock and counters,
//! backlog and ages, series, records, and each component by id or name; the summary.

use super::Simulation;
use crate::consumer::{Consumer, ConsumerView};
use crate::database::GroupTables;
use crate::log::{Group, Log, PartitionView};
use crate::message::{Message, MessageCopy, PublishFate};
use crate::metrics::{Counters, GroupSample, QueueSample, Sample, Summary};
use crate::producer::Producer;
use crate::queue::{Queue, QueueView};
use crate::records::Records;
use crate::scenario::Scenario;
use crate::step::{ConsumerId, CopyId, Fact, GroupId, MsgId, ProducerId, QueueId, Trigger};
use crate::time::{us_to_secs, Micros};

impl Simulation {
    /// Whether `name` is a component's: a producer, an exchange, a queue, a consumer
    /// (replicas by their own names), a log or a consumer group.
    pub fn names_a_component(&self, name: &str) -> bool {
        self.queue_ids()
            .any(|q| self.queue(q).is_some_and(|v| v.name == name))
            || self
                .producer_ids()
                .any(|p| self.producer_name(p) == Some(name))
            || self
                .consumer_ids()
                .any(|c| self.consumer(c).is_some_and(|v| v.name == name))
            || self.scenario().exchanges.iter().any(|e| e.name == name)
            || (0..self.log_count()).any(|l| self.log_name(l) == name)
            || self.group_ids().any(|g| self.group_name(g) == name)
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    pub fn now_us(&self) -> Micros {
        self.now_us
    }

    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Facts of the latest step.
    pub fn last_facts(&self) -> &[Fact] {
        &self.facts
    }

    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// Whether copies or log records still wait for someone (asked once nothing is
    /// scheduled: then nobody will take them).
    pub(super) fn work_left(&self) -> bool {
        self.backlog() > 0
            || self.in_flight() > 0
            || self.retry_waiting() > 0
            || (0..self.groups.len()).any(|g| {
                self.group_partitions(GroupId::from_index(g))
                    .iter()
                    // Records still there: those retention removed wait for nobody.
                    .any(|p| p.end > p.committed.max(p.start))
            })
    }

    /// Copies waiting in all queues.
    pub fn backlog(&self) -> u64 {
        self.waiting_total
    }

    /// Copies delivered and not settled, in all queues.
    pub fn in_flight(&self) -> u64 {
        self.queues.iter().map(|q| q.in_flight).sum()
    }

    /// Copies held back until their retry delay has passed, in all queues.
    pub fn retry_waiting(&self) -> u64 {
        self.queues.iter().map(|q| q.retry_waiting).sum()
    }

    pub fn broker_up(&self) -> bool {
        self.broker_up
    }

    /// Age of the oldest message still waiting, over everything the backlog counts:
    /// copies waiting in queues and records log groups have not committed.
    pub fn oldest_age_us(&self) -> Micros {
        self.oldest_age_us_at(self.now_us)
    }

    pub(super) fn oldest_age_us_at(&self, t_us: Micros) -> Micros {
        let queues = self.queue_ids().map(|q| self.queue_oldest_age_us(q, t_us));
        let groups = self.group_ids().map(|g| self.group_oldest_age_us(g, t_us));
        queues.chain(groups).max().unwrap_or(0)
    }

    /// Age of the oldest record group `g` has not committed: per partition, the first
    /// message record from its committed offset on (a marker there holds no message), or
    /// the oldest one retention kept if it removed that one. Measured from its append, as a
    /// queue's copy is from when it entered the line. One look per partition, so it is
    /// cheap enough for every sample.
    pub(super) fn group_oldest_age_us(&self, g: GroupId, t_us: Micros) -> Micros {
        let group = &self.groups[g.index()];
        self.logs[group.log]
            .partitions
            .iter()
            .zip(&group.committed)
            .filter_map(|(part, &committed)| part.first_message_from(committed))
            .map(|r| t_us.saturating_sub(r.appended_us))
            .max()
            .unwrap_or(0)
    }

    pub(super) fn queue_oldest_age_us(&self, queue: QueueId, t_us: Micros) -> Micros {
        self.queues[queue.index()].line.front().map_or(0, |&c| {
            t_us.saturating_sub(self.copies[c as usize].enqueued_us)
        })
    }

    pub fn series(&self) -> &[Sample] {
        self.series.samples()
    }

    /// A queue's own time series, in step with [`Simulation::series`].
    pub fn queue_series(&self, q: QueueId) -> &[QueueSample] {
        self.series.queue_samples(q.index())
    }

    /// A log group's own time series (lag, members up), in step with the main series.
    pub fn group_series(&self, g: GroupId) -> &[GroupSample] {
        self.series.group_samples(g.index())
    }

    /// Messages by id: `len()` is how many were created; the finished ones older than
    /// the recent window are released (`get` gives `None`).
    pub fn messages(&self) -> &Records<Message> {
        &self.messages
    }

    pub fn message(&self, id: MsgId) -> Option<&Message> {
        self.messages.get(id.index())
    }

    /// The routing key message `id` carries (empty without one), unless it was released.
    pub fn routing_key(&self, id: MsgId) -> Option<&str> {
        let m = self.messages.get(id.index())?;
        Some(self.routing_keys.name(m.routing_key))
    }

    /// Copies by id: `len()` is how many were stored; the finished ones older than the
    /// recent window are released (`get` gives `None`).
    pub fn copies(&self) -> &Records<MessageCopy> {
        &self.copies
    }

    pub fn copy(&self, id: CopyId) -> Option<&MessageCopy> {
        self.copies.get(id as usize)
    }

    /// How many times the effect of message `msg` was applied by the consumers of `queue`.
    pub fn effect_count_in(&self, queue: QueueId, msg: MsgId) -> u32 {
        self.tables.get(queue.index()).map_or(0, |t| t.applied(msg))
    }

    /// How many times the effect of message `msg` was applied, over all consumer groups.
    pub fn effect_count(&self, msg: MsgId) -> u32 {
        self.tables.iter().map(|t| t.applied(msg)).sum()
    }

    pub fn tables(&self, queue: QueueId) -> Option<&GroupTables> {
        self.tables.get(queue.index())
    }

    pub fn queue_count(&self) -> u32 {
        self.queues.len() as u32
    }

    /// Every queue's id, in the scenario's order.
    pub fn queue_ids(&self) -> impl Iterator<Item = QueueId> {
        (0..self.queues.len()).map(QueueId::from_index)
    }

    /// The queue named `name`: the scenario names queues, the run numbers them.
    pub(crate) fn queue_named(&self, name: &str) -> Option<QueueId> {
        self.scenario.queue_index(name).map(QueueId::from_index)
    }

    pub fn queue(&self, id: QueueId) -> Option<QueueView> {
        let q = self.queues.get(id.index())?;
        Some(QueueView {
            name: q.name.clone(),
            waiting: q.line.len() as u64,
            in_flight: q.in_flight,
            retry_waiting: q.retry_waiting,
            dead_lettered: q.dlq.len() as u64,
            oldest_age_us: self.queue_oldest_age_us(id, self.now_us),
            max_length: q.max_length,
            occupancy: q.occupancy(),
            consumers: q.consumers.clone(),
            redriving: q.redrive_per_s.is_some() && q.redrive_left > 0,
            flavour: q.flavour,
        })
    }

    /// Waiting copies of a queue, in line order.
    pub fn waiting(&self, queue: QueueId) -> impl Iterator<Item = CopyId> + '_ {
        self.queues
            .get(queue.index())
            .into_iter()
            .flat_map(|q| q.line.iter().copied())
    }

    pub fn dead_letters(
        &self,
        queue: QueueId,
    ) -> impl Iterator<Item = &crate::message::DeadLetter> + '_ {
        self.queues
            .get(queue.index())
            .into_iter()
            .flat_map(|q| q.dlq.iter())
    }

    pub fn consumer_count(&self) -> u32 {
        self.consumers.len() as u32
    }

    /// Every consumer's id, in the order they were numbered (replicas expanded).
    pub fn consumer_ids(&self) -> impl Iterator<Item = ConsumerId> {
        (0..self.consumers.len()).map(ConsumerId::from_index)
    }

    pub fn consumer(&self, id: ConsumerId) -> Option<ConsumerView> {
        self.consumers.get(id.index()).map(|c| ConsumerView {
            name: c.name.clone(),
            queue: c.queue,
            up: c.up,
            busy: c.working.len() as u32,
            buffered: c.buffer.len() as u32,
            concurrency: c.concurrency,
            prefetch: c.prefetch,
            ack: c.ack,
            idempotency: c.idempotency,
            inbox_key: c.inbox_key,
            trusts_the_broker: c.trusts_the_broker,
            ordering: c.ordering,
            armed: c.armed.filter(|a| a.trigger.told()).map(|a| a.point),
            drop_next_ack: c.drop_next_ack.is_some_and(Trigger::told),
            slow_factor: c.slow_factor,
            restart_at_us: c.restart_at_us,
            retiring: c.retiring && !c.stopped,
            stopped: c.stopped,
            service_mean_s: c.service.mean_s(),
            batch_size: c.batch_size,
            dependency: c.dependency,
            working: c.working.iter().map(|h| (h.copy, h.attempt)).collect(),
        })
    }

    pub fn producer_count(&self) -> u32 {
        self.producers.len() as u32
    }

    /// Every producer's id, in the scenario's order.
    pub fn producer_ids(&self) -> impl Iterator<Item = ProducerId> {
        (0..self.producers.len()).map(ProducerId::from_index)
    }

    pub fn producer_name(&self, id: ProducerId) -> Option<&str> {
        self.producers.get(id.index()).map(|p| p.name.as_str())
    }

    pub fn producer_up(&self, id: u32) -> Option<bool> {
        self.producers.get(id as usize).map(|p| p.up)
    }

    /// Unsent outbox rows of a producer.
    pub fn outbox_len(&self, id: ProducerId) -> usize {
        self.producers.get(id.index()).map_or(0, |p| p.outbox.len())
    }

    pub(crate) fn logs_raw(&self) -> &[Log] {
        &self.logs
    }

    pub(crate) fn groups_raw(&self) -> &[Group] {
        &self.groups
    }

    pub(crate) fn all_tables(&self) -> &[GroupTables] {
        &self.tables
    }

    pub fn log_name(&self, l: u32) -> String {
        self.logs
            .get(l as usize)
            .map_or_else(|| format!("log {l}"), |x| x.name.clone())
    }

    pub fn group_name(&self, g: GroupId) -> String {
        self.groups
            .get(g.index())
            .map_or_else(|| format!("group {g}"), |x| x.name.clone())
    }

    pub fn member_name(&self, g: GroupId, m: u32) -> String {
        self.groups
            .get(g.index())
            .and_then(|x| x.members.get(m as usize))
            .map_or_else(|| format!("member {m}"), |x| x.name.clone())
    }

    pub fn log_count(&self) -> u32 {
        self.logs.len() as u32
    }

    /// How many partitions log `l` has now (0 if there is no such log).
    pub fn log_partition_count(&self, l: u32) -> u32 {
        self.logs
            .get(l as usize)
            .map_or(0, |log| log.partitions.len() as u32)
    }

    pub fn group_count(&self) -> u32 {
        self.groups.len() as u32
    }

    /// Every consumer group's id, in the scenario's order.
    pub fn group_ids(&self) -> impl Iterator<Item = GroupId> {
        (0..self.groups.len()).map(GroupId::from_index)
    }

    /// A group's view of its log's partitions: offsets, owner, lag.
    pub fn group_partitions(&self, g: GroupId) -> Vec<PartitionView> {
        let Some(group) = self.groups.get(g.index()) else {
            return Vec::new();
        };
        self.logs[group.log]
            .partitions
            .iter()
            .enumerate()
            .map(|(p, part)| PartitionView {
                start: part.start,
                end: part.end(),
                committed: group.committed[p],
                position: group.position[p],
                owner: group.owner[p],
                lag: part.end().saturating_sub(group.committed[p]),
                markers: part.markers,
                retrying: group
                    .members
                    .iter()
                    .filter_map(|m| m.working)
                    .find(|w| w.partition as usize == p && w.attempt > 1)
                    .filter(|w| w.generation == group.generation)
                    .map(|w| w.attempt),
                revoking: group.revoking[p],
                sought: group.sought[p],
            })
            .collect()
    }

    /// The database tables of consumer group `g` of a log.
    pub fn group_tables(&self, g: GroupId) -> Option<&GroupTables> {
        self.tables.get(self.queues.len() + g.index())
    }

    /// Members of a group that are up, and in all.
    pub fn group_members(&self, g: GroupId) -> (u32, u32) {
        self.groups.get(g.index()).map_or((0, 0), |group| {
            (
                group.members.iter().filter(|m| m.up).count() as u32,
                group.members.len() as u32,
            )
        })
    }

    pub(crate) fn consumers_raw(&self) -> &[Consumer] {
        &self.consumers
    }

    pub(crate) fn queues_raw(&self) -> &[Queue] {
        &self.queues
    }

    pub(crate) fn producers_raw(&self) -> &[Producer] {
        &self.producers
    }

    /// Records in log producers' buffers, as the held budget counts them.
    pub(crate) fn buffered_total(&self) -> u64 {
        self.buffered_total
    }

    pub(crate) fn waiting_total(&self) -> u64 {
        self.waiting_total
    }

    pub fn pending_events(&self) -> usize {
        self.events.len()
    }

    /// The run's headline numbers so far.
    pub fn summary(&self) -> Summary {
        let elapsed_s = us_to_secs(self.now_us);
        let per_time = |area: u128| {
            if self.now_us == 0 {
                0.0
            } else {
                area as f64 / self.now_us as f64
            }
        };
        Summary {
            end_s: elapsed_s,
            last_step_s: us_to_secs(self.last_step_us),
            counters: self.counters.clone(),
            backlog_end: self.backlog(),
            in_flight_end: self.in_flight(),
            retry_waiting_end: self.queues.iter().map(|q| q.retry_waiting).sum(),
            dead_lettered_end: self.queues.iter().map(|q| q.dlq.len() as u64).sum(),
            pending_at_producers_end: self
                .messages
                .iter()
                .filter(|m| m.fate == PublishFate::Pending)
                .count() as u64,
            mean_queue_wait_s: if self.queue_wait_count == 0 {
                0.0
            } else {
                self.queue_wait_sum_us as f64 / self.queue_wait_count as f64 / 1e6
            },
            queue_wait_p50_s: self.queue_waits.percentile_s(50.0),
            queue_wait_p95_s: self.queue_waits.percentile_s(95.0),
            queue_wait_p99_s: self.queue_waits.percentile_s(99.0),
            mean_queue_len: per_time(self.backlog_area),
            utilization: if self.capacity_area == 0 {
                0.0
            } else {
                self.busy_area as f64 / self.capacity_area as f64
            },
            throughput_per_s: per_second(self.counters.done, elapsed_s),
            record_throughput_per_s: per_second(self.counters.records_processed, elapsed_s),
            latency_mean_s: self.latencies.mean_s(),
            latency_p50_s: self.latencies.percentile_s(50.0),
            latency_p95_s: self.latencies.percentile_s(95.0),
            latency_p99_s: self.latencies.percentile_s(99.0),
            record_latency_p50_s: self.record_latencies.percentile_s(50.0),
            record_latency_p95_s: self.record_latencies.percentile_s(95.0),
            record_latency_p99_s: self.record_latencies.percentile_s(99.0),
        }
    }
}

/// A count over the run's simulated seconds (0 for a run that took no time).
pub(super) fn per_second(count: u64, elapsed_s: f64) -> f64 {
    if elapsed_s > 0.0 {
        count as f64 / elapsed_s
    } else {
        0.0
    }
}
