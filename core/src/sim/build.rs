//! Building a run from its scenario: the producers with their random streams, the
//! consumers bound to their queues, the groups bound to their logs.

use crate::consumer::Consumer;
use crate::log::{Group, Log};
use crate::producer::{Producer, Target};
use crate::queue::Queue;
use crate::rng::SimRng;
use crate::scenario::Scenario;
use crate::step::{ConsumerId, ProducerId, QueueId};

/// The producers' own random streams, when the scenario asks for them.
pub(super) fn producer_streams(scenario: &Scenario) -> Vec<SimRng> {
    match scenario.random_streams {
        crate::scenario::RandomStreams::Shared => Vec::new(),
        crate::scenario::RandomStreams::PerProducer => (0..scenario.producers.len() as u64)
            .map(|p| SimRng::stream(scenario.seed, p))
            .collect(),
    }
}

/// The generator producer `p` draws from: its own stream if it has one, else the run's.
/// (Takes the fields, not `self`, so callers may hold a producer at the same time.)
pub(super) fn producer_rng<'a>(
    rng: &'a mut SimRng,
    streams: &'a mut [SimRng],
    p: ProducerId,
) -> &'a mut SimRng {
    match streams.get_mut(p.index()) {
        Some(own) => own,
        None => rng,
    }
}

/// Every consumer replica of the scenario, each listed in its queue's consumers.
pub(super) fn build_consumers(scenario: &Scenario, queues: &mut [Queue]) -> Vec<Consumer> {
    let mut consumers = Vec::new();
    for spec in &scenario.consumers {
        let queue = QueueId::from_index(scenario.queue_of(spec));
        let before = consumers.len();
        for r in 0..spec.replicas {
            let name = crate::names::replica(&spec.name, spec.replicas, r, before);
            queues[queue.index()]
                .consumers
                .push(ConsumerId::from_index(consumers.len()));
            let mut consumer = Consumer::new(spec, name, queue);
            consumer.dependency = scenario.dependency_index(&spec.calls).map(|d| d as u32);
            consumers.push(consumer);
        }
    }
    consumers
}

/// Every producer, with where it publishes: a queue, a log or an exchange (by default the
/// first queue, or the first log when there are no queues).
pub(super) fn build_producers(scenario: &Scenario) -> Vec<Producer> {
    scenario
        .producers
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            let target = if spec.target.is_empty() {
                if scenario.queues.is_empty() {
                    Target::Log(0)
                } else {
                    Target::Queue(QueueId::new(0))
                }
            } else if let Some(q) = scenario.queue_index(&spec.target) {
                Target::Queue(QueueId::from_index(q))
            } else if let Some(l) = scenario.log_index(&spec.target) {
                Target::Log(l)
            } else {
                let x = scenario
                    .exchanges
                    .iter()
                    .position(|x| x.name == spec.target);
                Target::Exchange(x.expect("validated: the target exists"))
            };
            let name = crate::names::producer(&spec.name, i);
            let publishers = match target {
                Target::Queue(q) => &scenario.queues[q.index()].publishers,
                Target::Exchange(x) => &scenario.exchanges[x].publishers,
                Target::Log(l) => &scenario.logs[l].publishers,
            };
            let denied = !publishers.is_empty() && !publishers.contains(&name);
            let mut producer = Producer::new(spec, name, target);
            producer.denied = denied;
            producer
        })
        .collect()
}

/// Every consumer group, its partitions already assigned.
pub(super) fn build_groups(scenario: &Scenario, logs: &[Log]) -> Vec<Group> {
    scenario
        .groups
        .iter()
        .map(|spec| {
            let l = scenario.log_index(&spec.log).expect("validated");
            let partitions = logs[l].partitions.len();
            let output = (!spec.output.is_empty())
                .then(|| scenario.log_index(&spec.output).expect("validated"));
            let dead_letter = (!spec.dead_letter.is_empty())
                .then(|| scenario.log_index(&spec.dead_letter).expect("validated"));
            let mut g = Group::new(spec, l, partitions, output, dead_letter);
            // The group starts with its partitions already assigned.
            g.owner = g.assign(partitions as u32);
            g
        })
        .collect()
}
