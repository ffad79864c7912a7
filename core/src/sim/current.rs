//! The settings in force now, read from the run itself: the page shows them and predicts
//! from them, and must not rebuild them by replaying the recorded changes on its own.

use super::Simulation;
use crate::consumer::Consumer;
use crate::scenario::{
    splice_schedule, AckMode, ArrivalProcess, Command, Flavour, Idempotency, Ordering, Overflow,
    RateSegment, RetryPolicy, ServiceTime,
};
use crate::step::{ProducerId, QueueId};
use crate::time::us_to_secs;

/// One producer's arrivals as they stand now.
#[derive(Clone, Debug, PartialEq)]
pub struct ProducerSettings {
    pub producer: ProducerId,
    pub name: String,
    /// It follows a script: its arrivals are not generated and cannot change.
    pub scripted: bool,
    pub process: ArrivalProcess,
    /// The whole rate schedule in absolute seconds, with every arrival change in force
    /// spliced in from the instant it was given.
    pub schedule: Vec<RateSegment>,
}

/// A consumed queue's settings: the queue's own, and those its consumers share.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueSettings {
    pub queue: QueueId,
    pub name: String,
    /// Consumers taking deliveries (scaled-in ones finishing their work are not counted).
    pub consumers: u32,
    pub service: ServiceTime,
    pub concurrency: u32,
    pub prefetch: u32,
    /// The ack mode for new deliveries (a consumer still holding older ones switches once
    /// it has settled them).
    pub ack: AckMode,
    pub idempotency: Idempotency,
    /// How the consumers treat per-key versions that arrive out of order.
    pub ordering: Ordering,
    pub retry: RetryPolicy,
    pub visibility_s: f64,
    /// RabbitMQ's deadline on an unacked delivery (its only one: it has no leases).
    pub consumer_timeout_s: f64,
    pub max_length: Option<u64>,
    pub overflow: Overflow,
    /// Whose rules the queue follows now (a switch applies from its instant on).
    pub flavour: Flavour,
    /// The consumer whose settings are shown, and whether every consumer taking
    /// deliveries shares them (a scenario may give a queue a slow consumer among quick
    /// ones; a change from the page sets them all alike).
    pub shown_from: String,
    pub alike: bool,
}

/// Every setting the page can change, at the current step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CurrentSettings {
    pub producers: Vec<ProducerSettings>,
    /// Queues with consumers, in queue order.
    pub queues: Vec<QueueSettings>,
}

impl Simulation {
    /// The settings in force at the current step (after stepping back, the commands
    /// recorded ahead are not in force yet).
    pub fn settings(&self) -> CurrentSettings {
        CurrentSettings {
            producers: self.producer_settings(),
            queues: self
                .queue_ids()
                .filter_map(|q| self.queue_settings(q))
                .collect(),
        }
    }

    /// Arrival changes in force, in the order they took effect, as (seconds, fault).
    fn arrival_changes(&self) -> Vec<(f64, &Command)> {
        let now_us = self.now_us;
        let scheduled = self
            .scenario
            .commands
            .iter()
            .filter(|f| f.at_s * 1e6 <= now_us as f64)
            .map(|f| (f.at_s, &f.command));
        // Commands are applied in order; the next one to apply marks where the run is.
        let given = self.scenario.interventions[..self.next_intervention]
            .iter()
            .map(|iv| (us_to_secs(iv.at_us), &iv.command));
        let mut changes: Vec<(f64, &Command)> = scheduled
            .chain(given)
            .filter(|(_, f)| matches!(f, Command::SetArrivals { .. }))
            .collect();
        // Stable: at one instant, scheduled changes come before commands (as they run).
        changes.sort_by(|a, b| a.0.total_cmp(&b.0));
        changes
    }

    fn producer_settings(&self) -> Vec<ProducerSettings> {
        let changes = self.arrival_changes();
        let specs = self.scenario.producers.iter().enumerate();
        specs
            .map(|(i, spec)| {
                let mut process = spec.arrivals.process;
                let mut schedule = spec.arrivals.schedule.clone();
                for &(at_s, fault) in &changes {
                    if let Command::SetArrivals {
                        producer,
                        process: p,
                        schedule: new,
                    } = fault
                    {
                        if (*producer).index() == i {
                            process = *p;
                            splice_schedule(&mut schedule, at_s, new);
                        }
                    }
                }
                ProducerSettings {
                    producer: ProducerId::from_index(i),
                    name: self.producers[i].name.clone(),
                    scripted: !spec.script.is_empty(),
                    process,
                    schedule,
                }
            })
            .collect()
    }

    fn queue_settings(&self, q: QueueId) -> Option<QueueSettings> {
        let queue = &self.queues[q.index()];
        let members = || queue.consumers.iter().map(|&c| &self.consumers[c.index()]);
        let active = |c: &&Consumer| !c.retiring && !c.stopped;
        // Every consumer of a queue is changed together; one taking deliveries (or, when
        // all are scaled in, any) says what the rest have.
        let first = members().find(active).or_else(|| members().next())?;
        let shared = |c: &Consumer| {
            let ack = c.pending_ack.unwrap_or(c.ack);
            (
                c.service,
                c.concurrency,
                c.prefetch,
                ack,
                c.idempotency,
                c.ordering,
                c.retry.clone(),
            )
        };
        let alike = members().filter(active).all(|c| shared(c) == shared(first));
        Some(QueueSettings {
            shown_from: first.name.clone(),
            alike,
            queue: q,
            name: queue.name.clone(),
            consumers: members().filter(active).count() as u32,
            service: first.service,
            concurrency: first.concurrency,
            prefetch: first.prefetch,
            ack: first.pending_ack.unwrap_or(first.ack),
            idempotency: first.idempotency,
            ordering: first.ordering,
            retry: first.retry.clone(),
            visibility_s: us_to_secs(queue.lease_us),
            consumer_timeout_s: us_to_secs(queue.consumer_timeout_us),
            max_length: queue.max_length,
            overflow: queue.overflow,
            flavour: queue.flavour,
        })
    }
}
