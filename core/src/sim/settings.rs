//! Settings changed while the run plays (the page's parameters panel). Each change takes
//! effect from the instant it is given, the way a redeploy or a config push would: work
//! already under way keeps what it started with, so no message changes fate backwards.

use super::Simulation;
use crate::consumer::Consumer;
use crate::scenario::{
    AckMode, ArrivalProcess, Command, Flavour, Overflow, RateSegment, ServiceTime,
};
use crate::step::{ArmedFaults, ConsumerId, Fact, Moot, ProducerId, QueueId, Setting, Trigger};
use crate::time::secs_to_us;

impl Simulation {
    /// Applies a `Set…` command; other faults are not settings and are ignored here. A
    /// command naming a producer, queue or log the run does not have changes nothing.
    pub(super) fn apply_setting(&mut self, fault: &Command, trigger: Trigger) {
        match *fault {
            Command::SetArrivals {
                producer,
                process,
                ref schedule,
            } => self.set_arrivals(producer, process, schedule, trigger),
            Command::SetServiceTime { ref queue, .. }
            | Command::SetConsumerCount { ref queue, .. }
            | Command::SetPrefetch { ref queue, .. }
            | Command::SetAckMode { ref queue, .. }
            | Command::SetIdempotency { ref queue, .. }
            | Command::SetOrdering { ref queue, .. }
            | Command::SetRetry { ref queue, .. } => {
                if let Some(q) = self.queue_named(queue) {
                    self.apply_consumer_setting(q, fault, trigger);
                }
            }
            Command::SetVisibilityTimeout { ref queue, .. }
            | Command::SetConsumerTimeout { ref queue, .. }
            | Command::SetQueueBound { ref queue, .. }
            | Command::SetFlavour { ref queue, .. } => {
                if let Some(q) = self.queue_named(queue) {
                    self.apply_queue_setting(q, fault, trigger);
                }
            }
            Command::SetGroupOrdering { group, ordering } => {
                if let Some(g) = self.groups.get_mut(group.index()) {
                    g.ordering = ordering;
                    self.facts.push(Fact::SettingChanged {
                        setting: Setting::GroupOrdering { group, ordering },
                        trigger,
                    });
                }
            }
            Command::SetPartitions {
                ref log,
                partitions,
            } => {
                if let Some(l) = self.scenario.log_index(log) {
                    self.add_partitions(l, partitions, trigger);
                }
            }
            _ => {}
        }
    }

    /// New arrivals for a producer, from now on.
    fn set_arrivals(
        &mut self,
        producer: ProducerId,
        process: ArrivalProcess,
        schedule: &[RateSegment],
        trigger: Trigger,
    ) {
        let now = self.now_us;
        let Some(p) = self.producers.get_mut(producer.index()) else {
            return;
        };
        p.clock.replace_from(now, process, schedule);
        let rate = p.clock.rate_now(now);
        self.schedule_next_arrival(producer);
        let setting = Setting::Arrivals {
            producer,
            process,
            rate_milli_per_s: (rate * 1_000.0).round() as u64,
        };
        self.facts.push(Fact::SettingChanged { setting, trigger });
    }

    /// A new setting for every consumer of queue `q`.
    fn apply_consumer_setting(&mut self, q: QueueId, fault: &Command, trigger: Trigger) {
        let setting = match *fault {
            Command::SetServiceTime { service, .. } => {
                self.for_consumers_of(q, |c| c.service = service);
                let (mean_s, exponential) = match service {
                    ServiceTime::Fixed { seconds } => (seconds, false),
                    ServiceTime::Exponential { mean_s } => (mean_s, true),
                };
                Setting::ServiceTime {
                    queue: q,
                    mean_us: secs_to_us(mean_s),
                    exponential,
                }
            }
            Command::SetConsumerCount { count, .. } => {
                self.facts.push(Fact::SettingChanged {
                    setting: Setting::Consumers { queue: q, count },
                    trigger,
                });
                self.scale_consumers(q, count, trigger);
                return;
            }
            Command::SetPrefetch { prefetch, .. } => {
                self.for_consumers_of(q, |c| {
                    // Lowered below what it holds: it keeps those and takes no more until
                    // it is under the new limit.
                    c.prefetch_grace = c.prefetch_grace.max(c.unacked());
                    c.prefetch = prefetch;
                });
                Setting::Prefetch { queue: q, prefetch }
            }
            Command::SetAckMode { ack, .. } => {
                self.set_ack_mode(q, ack, trigger);
                return;
            }
            Command::SetIdempotency { idempotency, .. } => {
                self.for_consumers_of(q, |c| c.idempotency = idempotency);
                Setting::Idempotency {
                    queue: q,
                    idempotency,
                }
            }
            Command::SetOrdering { ordering, .. } => {
                self.for_consumers_of(q, |c| c.ordering = ordering);
                Setting::Ordering { queue: q, ordering }
            }
            Command::SetRetry { ref retry, .. } => {
                self.for_consumers_of(q, |c| c.retry = retry.clone());
                Setting::Retry {
                    queue: q,
                    max_attempts: retry.max_attempts,
                    backoff_base_us: secs_to_us(retry.backoff_base_s),
                }
            }
            _ => unreachable!("apply_setting sends only consumer settings here"),
        };
        self.facts.push(Fact::SettingChanged { setting, trigger });
        if let Setting::Prefetch { queue, .. } = setting {
            self.dispatch(queue);
        }
    }

    /// Consumers of queue `q` that hold nothing switch their ack mode now; the others
    /// switch once what they hold, delivered under the old contract, is settled.
    fn set_ack_mode(&mut self, q: QueueId, ack: AckMode, trigger: Trigger) {
        let mut switched = Vec::new();
        for &id in &self.queues[q.index()].consumers {
            let c = &mut self.consumers[id.index()];
            if c.held() == 0 {
                if c.ack != ack {
                    c.ack = ack;
                    switched.push(id);
                }
                c.pending_ack = None;
            } else {
                // What it holds was delivered under the old contract.
                c.pending_ack = (c.ack != ack).then_some(ack);
            }
        }
        self.facts.push(Fact::SettingChanged {
            setting: Setting::AckMode { queue: q, ack },
            trigger,
        });
        for consumer in switched {
            self.facts.push(Fact::AckModeSwitched { consumer, ack });
        }
        self.dispatch(q);
    }

    /// A new setting of queue `q` itself.
    fn apply_queue_setting(&mut self, q: QueueId, fault: &Command, trigger: Trigger) {
        match *fault {
            Command::SetVisibilityTimeout { seconds, .. } => {
                let lease_us = secs_to_us(seconds).max(1);
                self.queues[q.index()].lease_us = lease_us;
                self.facts.push(Fact::SettingChanged {
                    setting: Setting::VisibilityTimeout { queue: q, lease_us },
                    trigger,
                });
            }
            Command::SetConsumerTimeout { seconds, .. } => {
                let timeout_us = secs_to_us(seconds).max(1);
                self.queues[q.index()].consumer_timeout_us = timeout_us;
                self.facts.push(Fact::SettingChanged {
                    setting: Setting::ConsumerTimeout {
                        queue: q,
                        timeout_us,
                    },
                    trigger,
                });
            }
            Command::SetQueueBound {
                max_length,
                overflow,
                ..
            } => self.set_queue_bound(q, max_length, overflow, trigger),
            Command::SetFlavour { flavour, .. } => self.set_flavour(q, flavour, trigger),
            _ => unreachable!("apply_setting sends only queue settings here"),
        }
    }

    /// A new bound: what the queue already holds past it stays and drains down.
    fn set_queue_bound(
        &mut self,
        q: QueueId,
        max_length: Option<u64>,
        overflow: Overflow,
        trigger: Trigger,
    ) {
        let line = &mut self.queues[q.index()];
        line.bound_grace = line.bound_grace.max(line.held);
        line.max_length = max_length;
        line.overflow = overflow;
        self.facts.push(Fact::SettingChanged {
            setting: Setting::QueueBound {
                queue: q,
                max_length,
                overflow,
            },
            trigger,
        });
        self.release_throttled(q);
    }

    /// Switches queue `q` to another flavour's rules. What it already holds stays: a bound
    /// or prefetch that now counts differently drains down instead of dropping anything,
    /// and deliveries already made keep the lease they were given. It keeps its overflow
    /// too: a flavour's default overflow is read when the queue is built, and a switch
    /// changes rules, not settings (so a run recorded before drop-head became RabbitMQ's
    /// default replays alike).
    fn set_flavour(&mut self, q: QueueId, flavour: Flavour, trigger: Trigger) {
        let queue = &mut self.queues[q.index()];
        let was = std::mem::replace(&mut queue.flavour, flavour);
        queue.bound_grace = queue.bound_grace.max(queue.occupancy());
        if flavour == Flavour::SqsFifo && was != Flavour::SqsFifo {
            self.recount_fifo_groups(q);
        }
        self.for_consumers_of(q, |c| {
            c.prefetch_grace = c.prefetch_grace.max(c.unacked());
            if flavour != Flavour::Rabbitmq {
                // Only RabbitMQ counts a delivery whose ack was lost against the prefetch.
                c.lost_acks.clear();
            }
        });
        self.facts.push(Fact::SettingChanged {
            setting: Setting::Flavour { queue: q, flavour },
            trigger,
        });
        self.dispatch(q);
    }

    /// Applies `f` to every consumer of queue `q`, stopped ones included (a consumer that
    /// joins again has the current settings).
    fn for_consumers_of(&mut self, q: QueueId, mut f: impl FnMut(&mut Consumer)) {
        for &id in &self.queues[q.index()].consumers {
            f(&mut self.consumers[id.index()]);
        }
    }

    /// Scales queue `q`'s consumers to `count`: consumers on their way out stay, then
    /// stopped ones come back, then new ones join (up to the limit); scaling in retires
    /// the newest first.
    fn scale_consumers(&mut self, q: QueueId, count: u32, trigger: Trigger) {
        let members = self.queues[q.index()].consumers.clone();
        let active = |sim: &Self| {
            sim.queues[q.index()]
                .consumers
                .iter()
                .filter(|&&id| {
                    let c = &sim.consumers[id.index()];
                    !c.retiring && !c.stopped
                })
                .count() as u32
        };
        // Scale out: un-retire, then bring stopped ones back, then add new ones.
        for &id in &members {
            if active(self) >= count {
                break;
            }
            let c = &mut self.consumers[id.index()];
            if c.retiring && !c.stopped {
                c.retiring = false;
                self.facts.push(Fact::ConsumerAdded {
                    consumer: id,
                    queue: q,
                    trigger,
                });
            }
        }
        for &id in &members {
            if active(self) >= count {
                break;
            }
            if self.consumers[id.index()].stopped {
                let c = &mut self.consumers[id.index()];
                c.stopped = false;
                c.retiring = false;
                c.up = true;
                c.slow_factor = 1.0;
                self.live_slots += u64::from(c.concurrency);
                self.facts.push(Fact::ConsumerAdded {
                    consumer: id,
                    queue: q,
                    trigger,
                });
            }
        }
        while active(self) < count
            && self.consumers.len() < crate::scenario::limits::CONSUMERS_MAX
            && self.add_consumer(q, trigger)
        {}
        // Scale in: the newest active consumers retire.
        let mut excess = active(self).saturating_sub(count);
        let all: Vec<ConsumerId> = self.queues[q.index()].consumers.clone();
        for &id in all.iter().rev() {
            if excess == 0 {
                break;
            }
            let c = &mut self.consumers[id.index()];
            if c.retiring || c.stopped {
                continue;
            }
            excess -= 1;
            c.retiring = true;
            // Faults armed for a moment it can no longer reach are called off, and the
            // event says so; those it can still reach (it finishes and acks what it holds)
            // stay armed until it stops.
            let (called_off, still_armed) = self.call_off_unreachable_faults(id);
            self.facts.push(Fact::ConsumerStopping {
                consumer: id,
                trigger,
                called_off,
                still_armed,
            });
            self.stop_if_retired(id);
        }
        self.dispatch(q);
    }

    /// A new consumer of `q`, configured like the queue's first consumer (with its current
    /// settings). False if the queue has no consumer to copy.
    fn add_consumer(&mut self, q: QueueId, trigger: Trigger) -> bool {
        let Some(&template) = self.queues[q.index()].consumers.first() else {
            return false;
        };
        let id = ConsumerId::from_index(self.consumers.len());
        let base = self
            .scenario
            .consumer_spec(template)
            .map(|s| s.name.clone())
            .unwrap_or_default();
        // Numbered after the queue's consumers (an unnamed one after all consumers), as
        // replicas are; a number whose name another consumer already has (a user's "C3"
        // beside replicas C1, C2) is passed over, so every card and sentence still tells
        // the consumers apart.
        let first = if base.is_empty() {
            id.index() + 1
        } else {
            self.queues[q.index()].consumers.len() + 1
        };
        let name = (first..)
            .map(|n| {
                if base.is_empty() {
                    format!("C{n}")
                } else {
                    crate::names::numbered(&base, n)
                }
            })
            .find(|name| self.consumers.iter().all(|c| c.name != *name))
            .expect("fewer consumers than numbers");
        let consumer = self.consumers[template.index()].fresh_copy(name);
        self.live_slots += u64::from(consumer.concurrency);
        self.consumers.push(consumer);
        self.queues[q.index()].consumers.push(id);
        self.facts.push(Fact::ConsumerAdded {
            consumer: id,
            queue: q,
            trigger,
        });
        true
    }

    /// Grows log `l` to `partitions` (never shrinks it); the groups reading it rebalance.
    fn add_partitions(&mut self, l: usize, partitions: u32, trigger: Trigger) {
        let now = self.logs[l].partitions.len();
        if partitions as usize <= now {
            // As Kafka refuses to lower a topic's partition count: records are placed by
            // their key's hash over the partitions, and removing one would lose its records.
            let moot = Moot::PartitionsNotGrown {
                log: l as u32,
                asked: partitions,
                has: now as u32,
            };
            self.moot(moot, trigger);
            return;
        }
        let new = partitions as usize;
        self.logs[l]
            .partitions
            .resize_with(new, crate::log::Partition::default);
        self.facts.push(Fact::SettingChanged {
            setting: Setting::Partitions {
                log: l as u32,
                partitions,
            },
            trigger,
        });
        for g in self.group_ids() {
            let group = &mut self.groups[g.index()];
            if group.log != l {
                continue;
            }
            group.committed.resize(new, 0);
            group.position.resize(new, 0);
            group.done_upto.resize(new, 0);
            group.settled.resize(new, 0);
            group.sought.resize(new, false);
            group.owner.resize(new, None);
            group.busy.resize(new, false);
            self.start_rebalance(g);
        }
    }

    /// A retiring consumer that holds nothing any more stops: it finished what it held
    /// (it did not crash, and nothing it had is lost), or it is down (it crashed while
    /// leaving, or was scaled in while down) and does not restart. A fault still armed on
    /// it can no longer strike: it is called off, and the event says so.
    pub(super) fn stop_if_retired(&mut self, consumer: ConsumerId) {
        let c = &mut self.consumers[consumer.index()];
        if !c.retiring || c.stopped || c.held() > 0 {
            return;
        }
        c.stopped = true;
        c.restart_at_us = None;
        let was_down = !c.up;
        if c.up {
            c.up = false;
            self.live_slots -= u64::from(c.concurrency);
        }
        // Hidden (unannounced) faults are called off without a word, as they were armed.
        let called_off = ArmedFaults {
            crash: c.armed.take().filter(|a| a.trigger.told()).map(|a| a.point),
            lost_ack: c.drop_next_ack.take().is_some_and(Trigger::told),
        };
        let lost_acks = std::mem::take(&mut c.lost_acks);
        let queue = c.queue;
        self.facts.push(Fact::ConsumerStopped {
            consumer,
            was_down,
            called_off,
        });
        // Its channel closes as it leaves: RabbitMQ requeues at once a delivery whose ack
        // never arrived (the broker still counts it unacked), as when a consumer crashes.
        if !lost_acks.is_empty() && self.close_channel(consumer, lost_acks) {
            self.dispatch(queue);
        }
    }
}
