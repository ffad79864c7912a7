//! Faults on purpose: crashes at precise points, restarts, lost acks and confirms, slow
//! consumers, poison messages, broker restarts and redrives.

use super::Simulation;
use crate::consumer::ArmedCrash;
use crate::engine::Event;
use crate::log::ArmedMemberCrash;
use crate::message::{Fate, PublishFate};
use crate::producer::ArmedProducerCrash;
use crate::scenario::{
    AckMode, Command, CrashPoint, Flavour, MemberCrashPoint, Poison, ProducerCrashPoint,
};
use crate::step::{
    ArmedFaults, Attempt, ConsumerId, CopyId, Fact, GroupId, LossReason, MemberId, Moot,
    ProducerId, QueueId, Trigger,
};
use crate::time::secs_to_us;

impl Simulation {
    /// Applies one command (a scheduled fault or an intervention); each family of
    /// commands has its own function below, settings theirs in `settings.rs`.
    pub(super) fn apply_command(&mut self, fault: &Command, trigger: Trigger) {
        if fault
            .consumer()
            .is_some_and(|c| c.index() >= self.consumers.len())
        {
            return; // a consumer that scaling never created (a hand-written replay)
        }
        match *fault {
            Command::CrashConsumer { .. }
            | Command::RestartConsumer { .. }
            | Command::DropNextAck { .. }
            | Command::SlowConsumer { .. } => self.apply_consumer_fault(fault, trigger),
            Command::CrashProducer { .. }
            | Command::RestartProducer { .. }
            | Command::DropNextConfirm { .. }
            | Command::InjectPoison { .. }
            | Command::CrashBroker { .. }
            | Command::RestartBroker => self.apply_producer_or_broker_fault(fault, trigger),
            Command::CrashMember { .. }
            | Command::AddMember { .. }
            | Command::SeekToEarliest { .. }
            | Command::SeekTo { .. } => self.apply_group_fault(fault, trigger),
            Command::DependencyOutage { .. }
            | Command::Redrive { .. }
            | Command::DeployFix { .. } => self.apply_queue_fault(fault, trigger),
            Command::SetArrivals { .. }
            | Command::SetServiceTime { .. }
            | Command::SetConsumerCount { .. }
            | Command::SetPrefetch { .. }
            | Command::SetAckMode { .. }
            | Command::SetIdempotency { .. }
            | Command::SetOrdering { .. }
            | Command::SetGroupOrdering { .. }
            | Command::SetRetry { .. }
            | Command::SetVisibilityTimeout { .. }
            | Command::SetConsumerTimeout { .. }
            | Command::SetQueueBound { .. }
            | Command::SetPartitions { .. }
            | Command::SetFlavour { .. } => self.apply_setting(fault, trigger),
            Command::SlowDependency { .. }
            | Command::SetDependencyCapacity { .. }
            | Command::SetDependencyTimeout { .. }
            | Command::SetRetryBudget { .. }
            | Command::SetBreaker { .. }
            | Command::SetAdmission { .. } => self.apply_dependency_command(fault, trigger),
        }
    }

    /// Crashing, restarting, slowing a queue consumer, or losing its next ack.
    fn apply_consumer_fault(&mut self, fault: &Command, trigger: Trigger) {
        match *fault {
            Command::CrashConsumer {
                consumer,
                point,
                restart_after_s,
            } => {
                let restart_after_us = restart_after_s.map(secs_to_us);
                self.arm_consumer_crash(
                    consumer,
                    ArmedCrash {
                        point,
                        restart_after_us,
                        trigger,
                    },
                );
            }
            Command::RestartConsumer { consumer } => {
                let c = &self.consumers[consumer.index()];
                if c.stopped {
                    self.moot(Moot::RestartConsumerStopped { consumer }, trigger);
                } else if c.up {
                    self.moot(Moot::RestartConsumerUp { consumer }, trigger);
                } else {
                    self.restart_consumer(consumer, trigger);
                }
            }
            Command::DropNextAck { consumer } => {
                let c = &self.consumers[consumer.index()];
                if c.stopped || (c.retiring && !c.can_still_ack()) {
                    let called_off = ArmedFaults {
                        crash: None,
                        lost_ack: true,
                    };
                    self.call_off(consumer, called_off, trigger);
                    return;
                }
                if c.ack == AckMode::OnDelivery {
                    self.moot(Moot::NoAckToLose { consumer }, trigger);
                    return;
                }
                // A second loss armed over a told one adds nothing, and is said; over a
                // hidden one it is armed as asked, so that the hidden one stays hidden.
                if c.drop_next_ack.is_some_and(Trigger::told) {
                    self.moot(Moot::AckDropAlreadyArmed { consumer }, trigger);
                    return;
                }
                self.consumers[consumer.index()].drop_next_ack = Some(trigger);
                self.facts.push(Fact::AckDropArmed { consumer, trigger });
            }
            Command::SlowConsumer { consumer, factor } => {
                self.slow_consumer(consumer, factor, trigger)
            }
            _ => unreachable!("apply_command sends only consumer faults here"),
        }
    }

    /// An outage of a queue's dependency, a redrive of its dead letters, a deployed fix.
    fn apply_queue_fault(&mut self, fault: &Command, trigger: Trigger) {
        match *fault {
            Command::DependencyOutage { ref queue, for_s } => {
                let q = self.queue_named(queue).expect("validated");
                self.start_dependency_outage(q, for_s, trigger);
            }
            Command::Redrive {
                ref queue,
                rate_per_s,
            } => {
                let q = self.queue_named(queue).expect("validated");
                if self.queues[q.index()].dlq.is_empty() {
                    self.moot(Moot::RedriveEmpty { queue: q }, trigger);
                } else {
                    self.start_redrive(q, rate_per_s, trigger);
                }
            }
            Command::DeployFix { ref queue, poison } => {
                let q = self.queue_named(queue).expect("validated");
                self.deploy_fix(q, poison, trigger);
            }
            _ => unreachable!("apply_command sends only queue faults here"),
        }
    }

    /// Crashes a live consumer now, or arms the crash for its point. A consumer that is
    /// down is armed too (a scheduled fault is never dropped unsaid): the crash strikes
    /// it at that point once it is back, or never if it never returns. Only "crash now"
    /// has nothing to do on a consumer already down. A consumer that scaling in retired is
    /// different: one that has stopped never comes back by itself, and one still leaving
    /// takes no more deliveries, so a crash it can no longer reach is called off, said.
    fn arm_consumer_crash(&mut self, consumer: ConsumerId, armed: ArmedCrash) {
        let c = &mut self.consumers[consumer.index()];
        let reachable = match armed.point {
            CrashPoint::Now => true,
            CrashPoint::AfterReceive => !c.retiring,
            CrashPoint::AfterCommitBeforeAck => !c.retiring || c.can_still_ack(),
        };
        if c.stopped || !reachable {
            let called_off = ArmedFaults {
                crash: Some(armed.point),
                lost_ack: false,
            };
            self.call_off(consumer, called_off, armed.trigger);
            return;
        }
        if armed.point == CrashPoint::Now {
            if c.up {
                self.crash_consumer(consumer, armed);
            } else {
                self.moot(Moot::CrashConsumerDown { consumer }, armed.trigger);
            }
        } else if armed.point == CrashPoint::AfterCommitBeforeAck && c.ack == AckMode::OnDelivery {
            self.moot(Moot::NoAckAfterCommit { consumer }, armed.trigger);
        } else if let Some(earlier) = c.armed.filter(|a| a.trigger.told()) {
            // One crash at a time: the one armed first strikes, and this one adds
            // nothing (over a hidden one it is armed as asked, keeping that one hidden).
            let moot = Moot::CrashAlreadyArmed {
                consumer,
                armed: earlier.point,
            };
            self.moot(moot, armed.trigger);
        } else {
            let (point, trigger) = (armed.point, armed.trigger);
            c.armed = Some(armed);
            self.facts.push(Fact::CrashArmed {
                consumer,
                point,
                trigger,
            });
        }
    }

    /// A command found nothing to act on: said, not passed over.
    pub(super) fn moot(&mut self, moot: Moot, trigger: Trigger) {
        self.facts.push(Fact::CommandMoot { moot, trigger });
    }

    /// A fault scheduled for a consumer that scaling in retired, which it can no longer
    /// reach, is called off rather than armed, and said.
    fn call_off(&mut self, consumer: ConsumerId, called_off: ArmedFaults, trigger: Trigger) {
        let stopped = self.consumers[consumer.index()].stopped;
        self.facts.push(Fact::ConsumerFaultCalledOff {
            consumer,
            called_off,
            stopped,
            trigger,
        });
    }

    /// As consumer `consumer` starts to retire, calls off the faults armed on it that it
    /// can no longer reach: a crash at its next delivery (it takes no more), and, unless it
    /// still holds work it will commit and ack, a crash after its next commit and the loss
    /// of its next ack. Returns those called off and those still armed: a retiring
    /// consumer finishes and acks what it holds, so those can still strike it.
    pub(super) fn call_off_unreachable_faults(
        &mut self,
        consumer: ConsumerId,
    ) -> (ArmedFaults, ArmedFaults) {
        let c = &mut self.consumers[consumer.index()];
        let acks = c.can_still_ack();
        let (mut called_off, mut still_armed) = (ArmedFaults::default(), ArmedFaults::default());
        // Hidden (unannounced) faults are left out of both lists: told of neither when
        // armed, they are told of only when they strike.
        if let Some(a) = c.armed {
            let told = a.trigger.told().then_some(a.point);
            if a.point == CrashPoint::AfterCommitBeforeAck && acks {
                still_armed.crash = told;
            } else {
                called_off.crash = told;
                c.armed = None;
            }
        }
        if let Some(trigger) = c.drop_next_ack {
            if acks {
                still_armed.lost_ack = trigger.told();
            } else {
                called_off.lost_ack = trigger.told();
                c.drop_next_ack = None;
            }
        }
        (called_off, still_armed)
    }

    fn slow_consumer(&mut self, consumer: ConsumerId, factor: f64, trigger: Trigger) {
        self.consumers[consumer.index()].slow_factor = factor;
        let factor_pct = (factor * 100.0).round() as u32;
        self.facts.push(Fact::ConsumerSlowed {
            consumer,
            factor_pct,
            trigger,
        });
    }

    /// Crashes a live producer now, or arms the crash for its point: a producer that is
    /// down is armed too, as a consumer is, and the crash strikes it once it is back.
    fn arm_producer_crash(&mut self, producer: ProducerId, armed: ArmedProducerCrash) {
        let p = &mut self.producers[producer.index()];
        if armed.point == ProducerCrashPoint::Now {
            if p.up {
                self.crash_producer(producer, armed);
            } else {
                self.moot(Moot::CrashProducerDown { producer }, armed.trigger);
            }
        } else {
            let (point, trigger) = (armed.point, armed.trigger);
            p.armed = Some(armed);
            self.facts.push(Fact::ProducerCrashArmed {
                producer,
                point,
                trigger,
            });
        }
    }

    /// Crashing or restarting a producer, losing its next confirm, a poison message; the
    /// broker crashing and restarting.
    fn apply_producer_or_broker_fault(&mut self, fault: &Command, trigger: Trigger) {
        match *fault {
            Command::CrashProducer {
                producer,
                point,
                restart_after_s,
            } => {
                let restart_after_us = restart_after_s.map(secs_to_us);
                self.arm_producer_crash(
                    producer,
                    ArmedProducerCrash {
                        point,
                        restart_after_us,
                        trigger,
                    },
                );
            }
            Command::RestartProducer { producer } => {
                if self.producers[producer.index()].up {
                    self.moot(Moot::RestartProducerUp { producer }, trigger);
                } else {
                    self.restart_producer(producer, trigger);
                }
            }
            Command::DropNextConfirm { producer } => {
                // Validation refuses it for a producer that waits for no confirm (no
                // `publish.confirms`, no outbox): those are fixed for the whole run, so
                // such a producer would never have a confirm to lose, not later either
                // (see `CommandCheck::confirm_to_lose`). Only one recorded before that
                // refusal (a link's interventions) reaches here without one: it is said
                // to have nothing to act on, in a step of its own as before, so the rest
                // of the link replays as it did.
                let armed = self.producers[producer.index()].drop_next_confirm;
                if armed.is_some_and(Trigger::told) {
                    self.moot(Moot::ConfirmDropAlreadyArmed { producer }, trigger);
                } else if self.waits_for_confirm(producer) {
                    self.producers[producer.index()].drop_next_confirm = Some(trigger);
                    self.facts
                        .push(Fact::ConfirmDropArmed { producer, trigger });
                } else {
                    self.moot(Moot::NoConfirmToLose { producer }, trigger);
                }
            }
            Command::InjectPoison { producer, poison } => {
                if self.producers[producer.index()].up {
                    self.create_poison(producer, poison);
                } else {
                    self.moot(Moot::PoisonProducerDown { producer }, trigger);
                }
            }
            Command::CrashBroker { restart_after_s } => {
                if self.broker_up {
                    self.crash_broker(restart_after_s.map(secs_to_us), trigger);
                } else {
                    self.moot(Moot::CrashBrokerDown, trigger);
                }
            }
            Command::RestartBroker => {
                if self.broker_up {
                    self.moot(Moot::RestartBrokerUp, trigger);
                } else {
                    self.restart_broker(trigger);
                }
            }
            _ => unreachable!("apply_command sends only producer and broker faults here"),
        }
    }

    /// A consumer group's members crashing and joining, and the group rewinding.
    fn apply_group_fault(&mut self, fault: &Command, trigger: Trigger) {
        match *fault {
            Command::CrashMember {
                group,
                member,
                point,
                restart_after_s,
            } => {
                let armed = ArmedMemberCrash {
                    point,
                    restart_after_us: restart_after_s.map(secs_to_us),
                    trigger,
                };
                self.arm_member_crash(group, member, armed);
            }
            Command::AddMember { group } => {
                if self.groups[group.index()].members.len()
                    < crate::scenario::limits::MEMBERS_MAX as usize
                {
                    // Validation refuses joins past the limit: only a hand-built
                    // scenario gets here otherwise.
                    self.add_member(group, trigger);
                }
            }
            Command::SeekToEarliest { group } => self.rewind_group(group, None, trigger),
            Command::SeekTo { group, offset } => self.rewind_group(group, Some(offset), trigger),
            _ => unreachable!("apply_command sends only group faults here"),
        }
    }

    /// Crashes a live member now, or arms the crash for its point: a member that is down
    /// is armed too, as a consumer is, and the crash strikes it once it is back (a member
    /// that never joined is left alone: validation refuses a crash of a member the group
    /// will not have by then).
    fn arm_member_crash(&mut self, group: GroupId, member: MemberId, armed: ArmedMemberCrash) {
        let Some(m) = self.groups[group.index()].members.get(member as usize) else {
            return;
        };
        if armed.point == MemberCrashPoint::Now {
            if m.up {
                let (restart, point, trigger) =
                    (armed.restart_after_us, armed.point, armed.trigger);
                self.crash_member(group, member, restart, point, trigger);
            } else {
                self.moot(Moot::CrashMemberDown { group, member }, armed.trigger);
            }
        } else {
            let trigger = armed.trigger;
            self.groups[group.index()].members[member as usize].armed = Some(armed);
            self.facts.push(Fact::MemberCrashArmed {
                group,
                member,
                trigger,
            });
        }
    }

    /// The dependency of every consumer of queue `q` fails for `for_s` seconds from now.
    fn start_dependency_outage(&mut self, q: QueueId, for_s: f64, trigger: Trigger) {
        let from_s = self.now_us as f64 / 1e6;
        let outage = crate::scenario::Outage {
            from_s,
            until_s: from_s + for_s,
        };
        for c in self.consumers.iter_mut().filter(|c| c.queue == q) {
            // Bounded like the scenario's own list: the oldest window makes room.
            if c.failures.outages.len() >= crate::scenario::limits::OUTAGES_MAX {
                c.failures.outages.remove(0);
            }
            c.failures.outages.push(outage);
        }
        let until_us = self.now_us.saturating_add(secs_to_us(for_s));
        self.facts.push(Fact::DependencyDown {
            queue: q,
            until_us,
            trigger,
        });
    }

    /// From now on, the consumers of queue `q` no longer fail on this kind of poison.
    fn deploy_fix(&mut self, q: QueueId, poison: Poison, trigger: Trigger) {
        if !self.fixed.contains(&(q, poison)) {
            self.fixed.push((q, poison));
        }
        self.facts.push(Fact::FixDeployed {
            queue: q,
            poison,
            trigger,
        });
    }

    /// The process dies: whatever it held in memory is gone. On RabbitMQ its channel
    /// closes, and every delivery it had not acked goes back in line at once; elsewhere
    /// copies the broker still leases come back when their lease runs out. Copies acked
    /// on delivery are lost.
    pub(super) fn crash_consumer(&mut self, consumer: ConsumerId, armed: ArmedCrash) {
        let now = self.now_us;
        let c = &mut self.consumers[consumer.index()];
        c.up = false;
        c.incarnation += 1;
        // A consumer that scaling in was retiring does not restart: it was leaving, so it
        // stops (below), once what it held has met the crash's rules.
        let leaving = c.retiring;
        // A fault scheduled for its next commit or ack (`armed`, `drop_next_ack`) stays:
        // scheduled faults happen whatever else happens, so it strikes the restarted
        // process (a leaving one's are called off as it stops). An armed crash that
        // strikes now was taken off before this call, so it strikes once.
        let working = u64::from(std::mem::take(&mut c.batches));
        // What the broker still counts as unacked on its channel: held deliveries (the
        // batch it was settling when an armed crash struck first: the delivery whose ack
        // never left, and the rest of its batch), and on RabbitMQ those whose ack was
        // lost, which the closing channel requeues too. A delivery already settled, or
        // listed twice (a lost ack of the batch), is passed over below: it is no longer
        // the broker's current delivery in flight.
        let held: Vec<(CopyId, Attempt)> = c
            .settling
            .drain(..)
            .chain(c.working.drain(..))
            .chain(c.buffer.drain(..))
            .map(|h| (h.copy, h.attempt))
            .chain(c.lost_acks.drain(..))
            .collect();
        let restart_at_us = armed
            .restart_after_us
            .filter(|_| !leaving)
            .map(|d| now.saturating_add(d));
        c.restart_at_us = restart_at_us;
        self.live_slots -= u64::from(c.concurrency);
        self.busy_slots -= working;
        self.counters.crashes += 1;
        self.facts.push(Fact::ConsumerCrashed {
            consumer,
            point: armed.point,
            trigger: armed.trigger,
            restart_at_us,
        });
        let queue = self.consumers[consumer.index()].queue;
        let requeue = self.close_channel(consumer, held);
        if leaving {
            self.stop_if_retired(consumer);
        }
        if requeue {
            self.dispatch(queue);
        }
        if let Some(at) = restart_at_us {
            let incarnation = self.consumers[consumer.index()].incarnation;
            self.events.schedule(
                at,
                Event::RestartConsumer {
                    consumer,
                    incarnation,
                },
            );
        }
    }

    /// The consumer's channel closed (it crashed, it stopped after scaling in, or RabbitMQ's
    /// consumer timeout ran out on one of its deliveries) with `unacked` deliveries out on
    /// it. One still out (not settled since) that was acked on delivery is lost: its effect
    /// never committed. On RabbitMQ the others go back at once (no lease to wait out),
    /// marked redelivered; elsewhere their lease runs its course.
    /// Returns whether the queue requeues, so the caller dispatches it.
    pub(super) fn close_channel(
        &mut self,
        consumer: ConsumerId,
        unacked: Vec<(CopyId, Attempt)>,
    ) -> bool {
        let queue = self.consumers[consumer.index()].queue;
        let requeue = self.queues[queue.index()].flavour == Flavour::Rabbitmq;
        for (copy, attempt) in unacked {
            let c = &self.copies[copy as usize];
            if c.fate != Fate::InFlight || c.attempts != attempt {
                continue;
            }
            if c.settled_at_broker {
                let reason = self.forgotten_reason(copy, LossReason::AckedBeforeEffectThenCrashed);
                self.lose(copy, reason);
            } else if requeue {
                self.requeue(copy, attempt, consumer);
            }
        }
        requeue
    }

    pub(super) fn restart_consumer(&mut self, consumer: ConsumerId, trigger: Trigger) {
        let c = &mut self.consumers[consumer.index()];
        if c.stopped {
            return; // scaled in while it was down: it stays gone
        }
        c.up = true;
        c.restart_at_us = None;
        self.live_slots += u64::from(c.concurrency);
        self.counters.restarts += 1;
        let queue = c.queue;
        self.facts
            .push(Fact::ConsumerRestarted { consumer, trigger });
        self.dispatch(queue);
    }

    /// A producer service (and its relay) dies: what it held in memory is gone; its
    /// database, outbox included, is not.
    pub(super) fn crash_producer(&mut self, producer: ProducerId, armed: ArmedProducerCrash) {
        let now = self.now_us;
        let p = &mut self.producers[producer.index()];
        p.up = false;
        p.incarnation += 1;
        // A fault scheduled for its next state commit, relay publish or confirm (`armed`,
        // `drop_next_confirm`) stays, as a consumer's does: it strikes the restarted
        // service. An armed crash that strikes now was taken off before this call, so it
        // strikes once.
        p.relay_poll_pending = false;
        for row in p.outbox.iter_mut() {
            row.sending = false;
        }
        let held: Vec<_> = p.held.drain(..).collect();
        self.forget_sequences(producer);
        let p = &mut self.producers[producer.index()];
        if let Some(q) = p.held_for.take() {
            self.queues[q.index()].throttled.retain(|&x| x != producer);
        }
        let has_outbox = self.relay_restart_delay(producer).is_some();
        for msg in held {
            self.messages[msg.index()].set_held_back(false);
            // Held in memory only: gone with the process, unless an outbox row keeps it.
            if !has_outbox && self.messages[msg.index()].fate == PublishFate::Pending {
                self.set_publish_fate(msg, PublishFate::GaveUp);
                self.counters.gave_up += 1;
                self.counters.lost_before_stored += 1;
            }
        }
        let restart_at_us = armed.restart_after_us.map(|d| now.saturating_add(d));
        self.producers[producer.index()].restart_at_us = restart_at_us;
        self.counters.producer_crashes += 1;
        self.facts.push(Fact::ProducerCrashed {
            producer,
            point: armed.point,
            trigger: armed.trigger,
            restart_at_us,
        });
        self.lose_buffer(producer);
        if let Some(at) = restart_at_us {
            let incarnation = self.producers[producer.index()].incarnation;
            self.events.schedule(
                at,
                Event::RestartProducer {
                    producer,
                    incarnation,
                },
            );
        }
    }

    pub(super) fn restart_producer(&mut self, producer: ProducerId, trigger: Trigger) {
        let p = &mut self.producers[producer.index()];
        p.up = true;
        p.restart_at_us = None;
        self.facts
            .push(Fact::ProducerRestarted { producer, trigger });
        // The relay starts again from the outbox: every unmarked row is published again.
        if self.relay_restart_delay(producer).is_some() {
            self.ensure_relay_poll(producer);
        }
    }

    fn crash_broker(&mut self, restart_after_us: Option<u64>, trigger: Trigger) {
        self.broker_up = false;
        self.broker_incarnation += 1;
        self.counters.broker_crashes += 1;
        let restart_at_us = restart_after_us.map(|d| self.now_us.saturating_add(d));
        self.facts.push(Fact::BrokerCrashed {
            trigger,
            restart_at_us,
        });
        self.broker_forgets();
        // Connections drop: consumers discard deliveries they had not started (the broker
        // has them back in line, or forgot them). An SQS consumer keeps what it received:
        // those messages stay hidden for it until their visibility timeout.
        for c in &mut self.consumers {
            if c.ack == AckMode::AfterCommit
                && !self.queues[c.queue.index()].keeps_leases_through_restart()
            {
                c.buffer.clear();
            }
        }
        for c in self.consumer_ids() {
            self.stop_if_retired(c);
        }
        if let Some(at) = restart_at_us {
            let incarnation = self.broker_incarnation;
            self.events
                .schedule(at, Event::RestartBroker { incarnation });
        }
    }

    pub(super) fn restart_broker(&mut self, trigger: Trigger) {
        self.broker_up = true;
        self.facts.push(Fact::BrokerRestarted { trigger });
        self.flush_buffers();
        self.retries_due_at_restart();
        for q in self.queue_ids() {
            self.resume_redrive(q);
            self.dispatch(q);
        }
        for g in self.group_ids() {
            self.flush_unsent(g);
            self.resume_group_after_restart(g);
            self.pump_group(g);
        }
    }
}
