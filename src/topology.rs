//! The topology view: producers → broker queues → consumers, laid out automatically in three
//! columns (a CSS grid; every label is text). Each consumer card carries its own crash and
//! restart controls, and the broker card its crash/restart control.
//!
//! [`Topology`] is a plain snapshot of the run (tested natively); the components render it
//! and send commands through the [`Lab`].

use brokerlab_core::{us_to_secs, CrashPoint, Fault, Simulation};
use leptos::prelude::*;

use crate::groups::LogsSnapshot;
use crate::lab::Lab;
use crate::player::RESTART_AFTER_S;
use crate::readout::{count, seconds};

/// A producer as its card shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct ProducerCard {
    pub name: String,
    pub up: bool,
    /// Outbox rows not yet published.
    pub outbox: usize,
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
    view! {
        <li class="node producer" class:down=down data-testid=format!("producer-{index}")>
            <strong>{name}</strong>
            <span class="state">{state}</span>
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
        <li class="node queue" data-testid=format!("queue-{index}")>
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
    let crash = move |point| {
        lab.command(Fault::CrashConsumer {
            consumer,
            point,
            restart_after_s: Some(RESTART_AFTER_S),
        })
    };
    view! {
        <li class="node consumer" class:down=move || !up() class:armed=armed
            data-testid=format!("consumer-{index}")>
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
            </span>
        </li>
    }
}

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
                <div class="lane broker" class:down=move || !broker_up()>
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
