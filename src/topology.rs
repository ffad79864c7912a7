//! The topology view: producers → broker queues → consumers, laid out automatically in three
//! columns (a CSS grid; every label is text). Each consumer card carries its own crash and
//! restart controls, and the broker card its crash/restart control.
//!
//! [`Topology`] is a plain snapshot of the run (tested natively); the components render it
//! and send commands through the [`Lab`].

use brokerlab_core::{
    us_to_secs, CrashPoint, Fault, Handoff, Poison, ProducerCrashPoint, Simulation,
};
use leptos::prelude::*;

use crate::groups::LogsSnapshot;
use crate::lab::Lab;
use crate::player::RESTART_AFTER_S;
use crate::readout::{count, seconds};
use crate::tokens::{TokenLegend, TokenOverlay};

/// A producer as its card shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct ProducerCard {
    pub name: String,
    pub up: bool,
    /// Outbox rows not yet published.
    pub outbox: usize,
    /// Whether it hands its messages off through an outbox (and a relay).
    pub uses_outbox: bool,
}

/// A queue as its card shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueCard {
    pub name: String,
    pub waiting: u64,
    pub in_flight: u64,
    pub retry_waiting: u64,
    pub dead_lettered: u64,
    pub max_length: Option<u64>,
    pub redriving: bool,
    /// Indices of its consumers.
    pub consumers: Vec<u32>,
}

/// A consumer as its card shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct ConsumerCard {
    pub name: String,
    pub up: bool,
    pub busy: u32,
    pub buffered: u32,
    pub concurrency: u32,
    /// A crash armed for a precise point.
    pub armed: Option<CrashPoint>,
    /// Seconds until a crashed consumer restarts, if it will.
    pub restart_in_s: Option<f64>,
    /// How many times slower than normal it works (1 is normal).
    pub slow_factor: f64,
    /// Its next ack will be lost on the way to the broker.
    pub drop_next_ack: bool,
    /// Scaled in: finishing what it holds, then it stops.
    pub retiring: bool,
    /// Stopped after scaling in (it did not crash).
    pub stopped: bool,
}

/// The whole diagram at one instant.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Topology {
    pub broker_up: bool,
    pub producers: Vec<ProducerCard>,
    pub queues: Vec<QueueCard>,
    pub consumers: Vec<ConsumerCard>,
    /// Logs and consumer groups (empty for scenarios without logs).
    pub logs: LogsSnapshot,
}

impl Topology {
    pub fn of(sim: &Simulation) -> Self {
        let now = sim.now_us();
        let producers = (0..sim.producer_count())
            .map(|p| ProducerCard {
                name: sim.producer_name(p).unwrap_or("producer").to_string(),
                up: sim.producer_up(p).unwrap_or(false),
                outbox: sim.outbox_len(p),
                uses_outbox: sim
                    .scenario()
                    .producers
                    .get(p as usize)
                    .is_some_and(|s| matches!(s.handoff, Handoff::Outbox { .. })),
            })
            .collect();
        let queues = (0..sim.queue_count())
            .filter_map(|q| sim.queue(q))
            .map(|v| QueueCard {
                name: v.name,
                waiting: v.waiting,
                in_flight: v.in_flight,
                retry_waiting: v.retry_waiting,
                dead_lettered: v.dead_lettered,
                max_length: v.max_length,
                redriving: v.redriving,
                consumers: v.consumers,
            })
            .collect();
        let consumers = (0..sim.consumer_count())
            .filter_map(|c| sim.consumer(c))
            .map(|v| ConsumerCard {
                restart_in_s: v
                    .restart_at_us
                    .filter(|_| !v.up)
                    .map(|at| us_to_secs(at.saturating_sub(now))),
                name: v.name,
                up: v.up,
                busy: v.busy,
                buffered: v.buffered,
                concurrency: v.concurrency,
                armed: v.armed,
                slow_factor: v.slow_factor,
                drop_next_ack: v.drop_next_ack,
                retiring: v.retiring,
                stopped: v.stopped,
            })
            .collect();
        Self {
            broker_up: sim.broker_up(),
            producers,
            queues,
            consumers,
            logs: LogsSnapshot::of(sim),
        }
    }

    /// How many cards of each kind: the view rebuilds its cards only when this changes.
    pub fn shape(&self) -> (usize, usize, usize) {
        (
            self.producers.len(),
            self.queues.len(),
            self.consumers.len(),
        )
    }
}

/// What a consumer card says about its state.
pub fn consumer_state(c: &ConsumerCard) -> String {
    if c.stopped {
        return "stopped (scaled in)".to_string();
    }
    if !c.up {
        return match c.restart_in_s {
            Some(s) => format!("crashed · restarts in {}", seconds(s)),
            None => "crashed · stays down".to_string(),
        };
    }
    let mut text = if c.busy == 0 && c.buffered == 0 {
        "idle".to_string()
    } else {
        format!(
            "busy {}/{} · buffered {}",
            c.busy, c.concurrency, c.buffered
        )
    };
    match c.armed {
        Some(CrashPoint::AfterCommitBeforeAck) => text.push_str(" · armed: crash after commit"),
        Some(CrashPoint::AfterReceive) => text.push_str(" · armed: crash after receive"),
        Some(CrashPoint::Now) | None => {}
    }
    if c.slow_factor > 1.0 {
        text.push_str(&format!(" · slow ×{}", c.slow_factor));
    }
    if c.drop_next_ack {
        text.push_str(" · next ack will be lost");
    }
    if c.retiring {
        text.push_str(" · finishing, then stops");
    }
    text
}

/// What a queue card says about its contents.
pub fn queue_counts(q: &QueueCard) -> String {
    let bound = q
        .max_length
        .map_or(String::new(), |m| format!(" / {}", count(m)));
    let mut text = format!(
        "waiting {}{bound} · in flight {}",
        count(q.waiting),
        count(q.in_flight)
    );
    if q.retry_waiting > 0 {
        text.push_str(&format!(" · retry {}", count(q.retry_waiting)));
    }
    text.push_str(&format!(" · DLQ {}", count(q.dead_lettered)));
    if q.redriving {
        text.push_str(" (redriving)");
    }
    text
}

#[component]
fn ProducerBox(lab: Lab, index: usize) -> impl IntoView {
    let card = move || lab.topology.with(|t| t.producers.get(index).cloned());
    let name = move || card().map(|c| c.name).unwrap_or_default();
    let state = move || {
        card().map(|c| {
            let up = if c.up { "up" } else { "crashed" };
            if c.outbox > 0 {
                format!("{up} · outbox {}", count(c.outbox as u64))
            } else {
                up.to_string()
            }
        })
    };
    let down = move || card().is_some_and(|c| !c.up);
    let up = move || card().is_some_and(|c| c.up);
    let uses_outbox = move || card().is_some_and(|c| c.uses_outbox);
    let producer = index as u32;
    view! {
        <li class="node producer" class:down=down data-testid=format!("producer-{index}")
            data-node=format!("producer-{index}")>
            <strong>{name}</strong>
            <span class="state" data-testid=format!("producer-{index}-state")>{state}</span>
            <span class="actions">
                <button type="button" class="small" class:danger=up data-testid=format!("producer-{index}-toggle")
                    on:click=move |_| {
                        if up() {
                            lab.command(Fault::CrashProducer {
                                producer,
                                point: ProducerCrashPoint::Now,
                                restart_after_s: Some(RESTART_AFTER_S),
                            })
                        } else {
                            lab.command(Fault::RestartProducer { producer })
                        }
                    }
                    title=move || if up() { format!("Crash now; it restarts {RESTART_AFTER_S} s later") } else { "Restart it now".to_string() }>
                    {move || if up() { "Crash" } else { "Restart" }}
                </button>
                <Show when=uses_outbox>
                    <button type="button" class="danger small" data-testid=format!("producer-{index}-crash-after-publish")
                        disabled=move || !up()
                        on:click=move |_| lab.command(Fault::CrashProducer {
                            producer,
                            point: ProducerCrashPoint::AfterPublishBeforeMark,
                            restart_after_s: Some(RELAY_RESTART_AFTER_S),
                        })
                        title="Crash the outbox relay right after its next publish is confirmed, before the row is marked sent">
                        "Crash after next publish"
                    </button>
                </Show>
                <button type="button" class="small" data-testid=format!("producer-{index}-drop-confirm")
                    on:click=move |_| lab.command(Fault::DropNextConfirm { producer })
                    title="The broker's next confirm to this producer is lost">
                    "Drop next confirm"
                </button>
                <button type="button" class="small" data-testid=format!("producer-{index}-poison")
                    on:click=move |_| lab.command(Fault::InjectPoison { producer, poison: Poison::MalformedPayload })
                    title="Publish one message with a malformed payload now: every handler attempt fails">
                    "Inject poison"
                </button>
            </span>
        </li>
    }
}

#[component]
fn QueueBox(lab: Lab, index: usize) -> impl IntoView {
    let card = move || lab.topology.with(|t| t.queues.get(index).cloned());
    let name = move || card().map(|c| c.name).unwrap_or_default();
    let counts = move || card().map(|c| queue_counts(&c)).unwrap_or_default();
    let consumers = move || {
        lab.topology.with(|t| {
            t.queues.get(index).map_or(String::new(), |q| {
                let names: Vec<&str> = q
                    .consumers
                    .iter()
                    .filter_map(|&c| t.consumers.get(c as usize))
                    .map(|c| c.name.as_str())
                    .collect();
                format!("→ {}", names.join(", "))
            })
        })
    };
    view! {
        <li class="node queue" data-testid=format!("queue-{index}") data-node=format!("queue-{index}")>
            <strong>{name}</strong>
            <span class="state" data-testid=format!("queue-{index}-counts")>{counts}</span>
            <span class="feeds">{consumers}</span>
        </li>
    }
}

#[component]
fn ConsumerBox(lab: Lab, index: usize) -> impl IntoView {
    let consumer = index as u32;
    let card = move || lab.topology.with(|t| t.consumers.get(index).cloned());
    let name = move || card().map(|c| c.name).unwrap_or_default();
    let state = move || card().map(|c| consumer_state(&c)).unwrap_or_default();
    let up = move || card().is_some_and(|c| c.up);
    let armed = move || card().is_some_and(|c| c.armed.is_some());
    let slow = move || card().is_some_and(|c| c.slow_factor > 1.0);
    let drop_armed = move || card().is_some_and(|c| c.drop_next_ack);
    let crash = move |point| {
        lab.command(Fault::CrashConsumer {
            consumer,
            point,
            restart_after_s: Some(RESTART_AFTER_S),
        })
    };
    view! {
        <li class="node consumer" class:down=move || !up() class:armed=armed
            data-testid=format!("consumer-{index}") data-node=format!("consumer-{index}")>
            <strong>{name}</strong>
            <span class="state" data-testid=format!("consumer-{index}-state")>{state}</span>
            <span class="actions">
                <button type="button" class="danger small" data-testid=format!("consumer-{index}-crash")
                    disabled=move || !up() on:click=move |_| crash(CrashPoint::Now)
                    title=format!("Crash now; it restarts {RESTART_AFTER_S} s later")>
                    "Crash now"
                </button>
                <button type="button" class="danger small" data-testid=format!("consumer-{index}-crash-after-commit")
                    disabled=move || !up() || armed()
                    on:click=move |_| crash(CrashPoint::AfterCommitBeforeAck)
                    title="Crash right after its next effect commits, before the ack is sent">
                    "Crash after next commit"
                </button>
                <button type="button" class="small" data-testid=format!("consumer-{index}-restart")
                    disabled=up on:click=move |_| lab.command(Fault::RestartConsumer { consumer })>
                    "Restart"
                </button>
                <button type="button" class="small" data-testid=format!("consumer-{index}-drop-ack")
                    disabled=move || !up() || drop_armed()
                    on:click=move |_| lab.command(Fault::DropNextAck { consumer })
                    title="Its next ack is lost on the way to the broker">
                    "Drop next ack"
                </button>
                <button type="button" class="small" data-testid=format!("consumer-{index}-slow")
                    on:click=move |_| lab.command(Fault::SlowConsumer {
                        consumer,
                        factor: if slow() { 1.0 } else { SLOW_FACTOR },
                    })
                    title=move || if slow() { "Work at normal speed again".to_string() } else { format!("Work {SLOW_FACTOR} times slower from now on") }>
                    {move || if slow() { "Normal speed" } else { "Slow ×4" }}
                </button>
            </span>
        </li>
    }
}

/// Seconds before an outbox relay crashed after a publish comes back.
const RELAY_RESTART_AFTER_S: f64 = 2.0;

/// How many times slower the "Slow" button makes a consumer.
const SLOW_FACTOR: f64 = 4.0;

/// The diagram: producers → broker (its queues) → consumers.
#[component]
pub fn TopologyView(lab: Lab) -> impl IntoView {
    let shape = Memo::new(move |_| lab.topology.with(Topology::shape));
    let producers = move || {
        (0..shape.get().0)
            .map(|index| view! { <ProducerBox lab index /> })
            .collect_view()
    };
    let queues = move || {
        (0..shape.get().1)
            .map(|index| view! { <QueueBox lab index /> })
            .collect_view()
    };
    let consumers = move || {
        (0..shape.get().2)
            .map(|index| view! { <ConsumerBox lab index /> })
            .collect_view()
    };
    let broker_up = move || lab.topology.with(|t| t.broker_up);
    view! {
        <section class="panel topology" aria-labelledby="topology-title" data-testid="topology">
            <h2 id="topology-title">"Topology"</h2>
            <div class="lanes">
                <div class="lane">
                    <h3>"Producers"</h3>
                    <ul>{producers}</ul>
                </div>
                <div class="lane broker" class:down=move || !broker_up() data-node="broker">
                    <h3>
                        "Broker "
                        <span data-testid="broker-state">{move || if broker_up() { "up" } else { "crashed" }}</span>
                    </h3>
                    <ul>{queues}</ul>
                    <button type="button" class="small" class:danger=broker_up data-testid="broker-toggle"
                        on:click=move |_| {
                            if broker_up() {
                                lab.command(Fault::CrashBroker { restart_after_s: Some(RESTART_AFTER_S) })
                            } else {
                                lab.command(Fault::RestartBroker)
                            }
                        }>
                        {move || if broker_up() { "Crash broker" } else { "Restart broker" }}
                    </button>
                </div>
                <div class="lane">
                    <h3>"Consumers"</h3>
                    <ul>{consumers}</ul>
                </div>
            </div>
            <TokenOverlay lab />
            <TokenLegend />
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::examples;

    #[test]
    fn the_snapshot_lists_every_component_of_the_scenario() {
        let sim = Simulation::new(examples::load("fanout-subscriptions").expect("built in"))
            .expect("valid");
        let t = Topology::of(&sim);
        assert!(t.broker_up);
        assert_eq!(t.producers.len() as u32, sim.producer_count());
        assert_eq!(t.queues.len() as u32, sim.queue_count());
        assert!(t.queues.len() > 1, "a fan-out has several subscriptions");
        assert_eq!(t.consumers.len() as u32, sim.consumer_count());
        assert!(t.consumers.iter().all(|c| c.up && c.armed.is_none()));
    }

    #[test]
    fn a_crashed_consumer_shows_its_restart_countdown() {
        let mut sim = Simulation::new(examples::load("mm1").expect("built in")).expect("valid");
        sim.command(Fault::CrashConsumer {
            consumer: 0,
            point: CrashPoint::Now,
            restart_after_s: Some(5.0),
        })
        .expect("valid");
        let c = &Topology::of(&sim).consumers[0];
        assert!(!c.up);
        assert_eq!(c.restart_in_s, Some(5.0));
        assert_eq!(consumer_state(c), "crashed · restarts in 5.0 s");
    }

    #[test]
    fn an_armed_crash_is_shown() {
        let mut sim = Simulation::new(examples::load("mm1").expect("built in")).expect("valid");
        sim.command(Fault::CrashConsumer {
            consumer: 0,
            point: CrashPoint::AfterCommitBeforeAck,
            restart_after_s: None,
        })
        .expect("valid");
        let c = &Topology::of(&sim).consumers[0];
        assert!(c.up);
        assert_eq!(c.armed, Some(CrashPoint::AfterCommitBeforeAck));
        assert!(
            consumer_state(c).ends_with("armed: crash after commit"),
            "{c:?}"
        );
    }

    #[test]
    fn a_slow_consumer_and_a_lost_ack_are_shown() {
        let mut sim = Simulation::new(examples::load("mm1").expect("built in")).expect("valid");
        sim.command(Fault::SlowConsumer {
            consumer: 0,
            factor: SLOW_FACTOR,
        })
        .expect("valid");
        sim.command(Fault::DropNextAck { consumer: 0 })
            .expect("valid");
        let c = &Topology::of(&sim).consumers[0];
        assert_eq!(c.slow_factor, 4.0);
        assert!(c.drop_next_ack);
        let state = consumer_state(c);
        assert!(state.contains(" · slow ×4"), "{state}");
        assert!(state.ends_with(" · next ack will be lost"), "{state}");
        sim.command(Fault::SlowConsumer {
            consumer: 0,
            factor: 1.0,
        })
        .expect("valid");
        assert!(!consumer_state(&Topology::of(&sim).consumers[0]).contains("slow"));
    }

    #[test]
    fn a_scaled_in_consumer_finishes_then_reads_stopped_not_crashed() {
        let mut sim = Simulation::new(examples::load("mm1").expect("built in")).expect("valid");
        let scale = |count| Fault::SetConsumerCount {
            queue: "jobs".into(),
            count,
        };
        sim.command(scale(2)).expect("valid");
        // Both busy, then the newest is scaled in while it works.
        while Topology::of(&sim).consumers.iter().any(|c| c.busy == 0) {
            sim.step().expect("arrivals go on");
        }
        sim.command(scale(1)).expect("valid");
        let c = &Topology::of(&sim).consumers[1];
        assert!(c.retiring && !c.stopped, "{c:?}");
        assert!(
            consumer_state(c).ends_with(" · finishing, then stops"),
            "{}",
            consumer_state(c)
        );
        while Topology::of(&sim).consumers[1].retiring {
            sim.step().expect("it finishes its message");
        }
        let c = &Topology::of(&sim).consumers[1];
        assert!(c.stopped && !c.up);
        assert_eq!(consumer_state(c), "stopped (scaled in)");
        assert!(!consumer_state(&Topology::of(&sim).consumers[0]).contains("stop"));
    }

    #[test]
    fn only_an_outbox_producer_is_marked_as_using_one() {
        let outbox = Simulation::new(examples::load("outbox-relay-crash").expect("built in"))
            .expect("valid");
        assert!(Topology::of(&outbox)
            .producers
            .iter()
            .any(|p| p.uses_outbox));
        let direct = Simulation::new(examples::load("crash-after-commit").expect("built in"))
            .expect("valid");
        assert!(Topology::of(&direct)
            .producers
            .iter()
            .all(|p| !p.uses_outbox));
    }

    #[test]
    fn queue_counts_read_naturally() {
        let q = QueueCard {
            name: "orders".into(),
            waiting: 1_200,
            in_flight: 3,
            retry_waiting: 2,
            dead_lettered: 1,
            max_length: Some(5_000),
            redriving: true,
            consumers: vec![0],
        };
        assert_eq!(
            queue_counts(&q),
            "waiting 1,200 / 5,000 · in flight 3 · retry 2 · DLQ 1 (redriving)"
        );
        let plain = QueueCard {
            retry_waiting: 0,
            max_length: None,
            redriving: false,
            ..q
        };
        assert_eq!(queue_counts(&plain), "waiting 1,200 · in flight 3 · DLQ 1");
    }
}
