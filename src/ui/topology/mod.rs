//! The topology diagram: one card per component of the run in four lanes, each with its
//! controls; the tokens overlay on top. Renders [`Topology`] snapshots from the lab.

use brokerlab_core::{
    Command, ConsumerId, CrashPoint, Poison, ProducerCrashPoint, ProducerId, QueueId,
};
use leptos::prelude::*;

use crate::model::flights::Node;
use crate::model::glossary;
use crate::model::groups::{member_class, member_text};
use crate::model::player::RESTART_AFTER_S;
use crate::model::topology::*;
use crate::state::Lab;
use crate::ui::term::Term;
use database::database_lane;
use tokens::{TokenLegend, TokenOverlay};

pub mod database;
pub mod tokens;

/// Whether the narrated step involved `node`: its card is outlined (a reactive class, so
/// the outline follows the narration without touching the DOM by hand).
fn narrated(lab: Lab, node: Node) -> impl Fn() -> bool + Copy + Send + Sync + 'static {
    move || lab.highlighted.with(|h| h.contains(&node))
}

#[component]
fn ProducerBox(lab: Lab, index: usize) -> impl IntoView {
    let card = Memo::new(move |_| lab.topology.with(|t| t.producers.get(index).cloned()));
    let read = move |f: fn(&ProducerCard) -> String| {
        move || card.with(|c| c.as_ref().map(f).unwrap_or_default())
    };
    let down = move || card.with(|c| c.as_ref().is_some_and(|c| !c.up));
    let uses_outbox = move || card.with(|c| c.as_ref().is_some_and(|c| c.uses_outbox));
    let rows = move || {
        card.with(|c| {
            c.as_ref()
                .map(ProducerCard::outbox_lines)
                .unwrap_or_default()
        })
        .into_iter()
        .map(|line| view! { <li>{line}</li> })
        .collect_view()
    };
    view! {
        <li class="node producer" class:down=down class:narrated=narrated(lab, Node::Producer(ProducerId::from_index(index))) data-node=format!("producer-{index}")
            data-testid=format!("producer-{index}")>
            <strong>{read(|c| c.name.clone())}</strong>
            <span class="state" data-testid=format!("producer-{index}-state")>{read(ProducerCard::state_text)}</span>
            <span class="state jobs" data-testid=format!("producer-{index}-jobs")
                title="Accepted requests by job status: pending = not yet published; running = published, being processed; completed = its work finished; failed = dead-lettered, lost or refused">
                {read(|c| jobs_text(&c.jobs))}
            </span>
            <Show when=uses_outbox>
                <ul class="outbox" aria-label="Unsent outbox rows" data-testid=format!("producer-{index}-outbox")>
                    {rows}
                </ul>
            </Show>
            <ProducerActions lab index up=Signal::derive(move || card.with(|c| c.as_ref().is_some_and(|c| c.up)))
                name=Signal::derive(read(|c| c.name.clone())) />
        </li>
        <Show when=uses_outbox>
            <RelayBox lab index />
        </Show>
    }
}

/// A producer's controls: crash or restart it, lose its next confirm, publish a poison
/// message.
#[component]
fn ProducerActions(
    lab: Lab,
    index: usize,
    up: Signal<bool>,
    #[prop(into)] name: Signal<String>,
) -> impl IntoView {
    let producer = ProducerId::from_index(index);
    view! {
        <span class="actions">
            <button type="button" class="small" class:danger=up data-testid=format!("producer-{index}-toggle")
                on:click=move |_| {
                    if up.get() {
                        lab.command(Command::CrashProducer {
                            producer,
                            point: ProducerCrashPoint::Now,
                            restart_after_s: Some(RESTART_AFTER_S),
                        })
                    } else {
                        lab.command(Command::RestartProducer { producer })
                    }
                }
                title=move || if up.get() { format!("Crash now; it restarts {RESTART_AFTER_S} s later") } else { "Restart it now".to_string() }>
                {move || if up.get() { "Crash" } else { "Restart" }}
            </button>
            <MoreActions testid=format!("producer-{index}-more") of=name>
                <button type="button" class="small" data-testid=format!("producer-{index}-drop-confirm")
                    on:click=move |_| lab.command(Command::DropNextConfirm { producer })
                    title="The broker's next confirm to this producer is lost">
                    "Drop next confirm"
                </button>
                <button type="button" class="small" data-testid=format!("producer-{index}-poison")
                    on:click=move |_| lab.command(Command::InjectPoison { producer, poison: Poison::MalformedPayload })
                    title="Publish one message with a malformed payload now: every handler attempt fails">
                    "Inject poison"
                </button>
            </MoreActions>
        </span>
    }
}

/// The outbox relay of producer `index`: a small card of its own, with the crash that
/// strikes between a confirmed publish and marking the row sent.
#[component]
fn RelayBox(lab: Lab, index: usize) -> impl IntoView {
    let relay = Memo::new(move |_| {
        lab.topology
            .with(|t| t.producers.get(index).and_then(|p| p.relay.clone()))
    });
    let state = move || relay.with(|r| r.as_ref().map(relay_state).unwrap_or_default());
    let up = move || relay.with(|r| r.as_ref().is_some_and(|r| r.up));
    let armed = move || relay.with(|r| r.as_ref().is_some_and(|r| r.armed_after_publish));
    let producer = ProducerId::from_index(index);
    view! {
        <li class="node relay compact" class:down=move || !up() class:armed=armed
            data-node=format!("relay-{index}") data-testid=format!("relay-{index}")>
            <strong>"Outbox relay"</strong>
            <span class="state" data-testid=format!("relay-{index}-state")>{state}</span>
            <span class="actions">
                <button type="button" class="danger small" data-testid=format!("producer-{index}-crash-after-publish")
                    disabled=move || !up() || armed()
                    on:click=move |_| lab.command(Command::CrashProducer {
                        producer,
                        point: ProducerCrashPoint::AfterPublishBeforeMark,
                        restart_after_s: Some(RELAY_RESTART_AFTER_S),
                    })
                    title="Crash the outbox relay (and its service) right after its next publish is confirmed, before the row is marked sent">
                    "Crash after next publish"
                </button>
            </span>
        </li>
    }
}

#[component]
fn ExchangeBox(lab: Lab, index: usize) -> impl IntoView {
    let card = Memo::new(move |_| lab.topology.with(|t| t.exchanges.get(index).cloned()));
    let title = move || {
        card.with(|c| {
            c.as_ref()
                .map(|c| format!("{} · {} exchange", c.name, exchange_kind(c.kind)))
                .unwrap_or_default()
        })
    };
    let bindings = move || {
        card.with(|c| {
            c.as_ref().map_or(Vec::new(), |c| {
                c.bindings
                    .iter()
                    .map(|(key, queue)| binding_text(c.kind, key, queue))
                    .collect()
            })
        })
        .into_iter()
        .enumerate()
        .map(|(b, text)| view! { <li data-testid=format!("exchange-{index}-binding-{b}")>{text}</li> })
        .collect_view()
    };
    view! {
        <li class="node exchange" data-node=format!("exchange-{index}") data-testid=format!("exchange-{index}")>
            <strong data-testid=format!("exchange-{index}-kind")>{title}</strong>
            <ul class="bindings" aria-label="Bindings: key → queue">{bindings}</ul>
        </li>
    }
}

#[component]
fn QueueBox(lab: Lab, index: usize) -> impl IntoView {
    let card = Memo::new(move |_| lab.topology.with(|t| t.queues.get(index).cloned()));
    let name = move || card.with(|c| c.as_ref().map(|c| c.name.clone()).unwrap_or_default());
    let counts = move || card.with(|c| c.as_ref().map(queue_counts).unwrap_or_default());
    let consumers = move || {
        lab.topology.with(|t| {
            t.queues.get(index).map_or(String::new(), |q| {
                let names: Vec<&str> = q
                    .consumers
                    .iter()
                    .filter_map(|&c| t.consumers.get(c.index()))
                    .map(|c| c.name.as_str())
                    .collect();
                if names.is_empty() {
                    "→ no consumer".to_string()
                } else if names.len() > 4 {
                    format!("→ {} consumers", names.len())
                } else {
                    format!("→ {}", names.join(", "))
                }
            })
        })
    };
    let has_dlq = move || card.with(|c| c.as_ref().is_some_and(|c| c.dlq.is_some()));
    let flavour = move || card.with(|c| c.as_ref().map_or("", |c| flavour_label(c.flavour)));
    view! {
        <li class="node queue" class:narrated=narrated(lab, Node::Queue(QueueId::from_index(index))) data-node=format!("queue-{index}") data-testid=format!("queue-{index}")>
            <strong>{name}</strong>
            <span class="flavour" data-testid=format!("queue-{index}-flavour")>{flavour}</span>
            <span class="state" data-testid=format!("queue-{index}-counts")>{counts}</span>
            <span class="feeds">{consumers}</span>
        </li>
        <Show when=has_dlq>
            <DlqBox lab index card />
        </Show>
    }
}

/// Queue `index`'s dead-letter queue, under its queue.
#[component]
fn DlqBox(lab: Lab, index: usize, card: Memo<Option<QueueCard>>) -> impl IntoView {
    let dlq = move || card.with(|c| c.as_ref().and_then(|c| c.dlq.clone()));
    let held = move || dlq().is_some_and(|d| d.count > 0);
    let redriving = move || card.with(|c| c.as_ref().is_some_and(|c| c.redriving));
    let queue = move || card.with(|c| c.as_ref().map(|c| c.name.clone()).unwrap_or_default());
    view! {
        <li class="node dlq compact" class:held=held class:narrated=narrated(lab, Node::Dlq(QueueId::from_index(index))) data-node=format!("dlq-{index}") data-testid=format!("dlq-{index}")>
            <strong>{move || format!("{} · dead letters", queue())}</strong>
            <span class="state" data-testid=format!("dlq-{index}-state")>
                {move || dlq().map(|d| dlq_text(&d)).unwrap_or_default()}
                {move || if redriving() { " · redriving" } else { "" }}
            </span>
            <Show when=held>
                <span class="actions">
                    <button type="button" class="small" data-testid=format!("dlq-{index}-redrive")
                        disabled=redriving
                        on:click=move |_| lab.command(Command::Redrive { queue: queue(), rate_per_s: REDRIVE_RATE_PER_S })
                        title=format!("Move the dead letters back to the queue, {REDRIVE_RATE_PER_S} per second")>
                        "Redrive"
                    </button>
                </span>
            </Show>
        </li>
    }
}

#[component]
fn LogBox(lab: Lab, index: usize) -> impl IntoView {
    let text = move || {
        lab.topology.with(|t| {
            t.log_cards
                .get(index)
                .map(|l| {
                    (
                        l.name.clone(),
                        format!("partitioned log · {} partitions", l.partitions),
                    )
                })
                .unwrap_or_default()
        })
    };
    view! {
        <li class="node log" class:narrated=narrated(lab, Node::Log(index as u32)) data-node=format!("log-{index}") data-testid=format!("log-{index}")>
            <strong>{move || text().0}</strong>
            <span class="state">{move || text().1}</span>
        </li>
    }
}

#[component]
fn ConsumerBox(lab: Lab, index: usize) -> impl IntoView {
    let consumer = ConsumerId::from_index(index);
    let card = Memo::new(move |_| lab.topology.with(|t| t.consumers.get(index).cloned()));
    let name = move || card.with(|c| c.as_ref().map(|c| c.name.clone()).unwrap_or_default());
    let state = move || card.with(|c| c.as_ref().map(consumer_state).unwrap_or_default());
    let lease = move || card.with(|c| c.as_ref().and_then(lease_text));
    let up = move || card.with(|c| c.as_ref().is_some_and(|c| c.up));
    let armed = move || card.with(|c| c.as_ref().is_some_and(|c| c.armed.is_some()));
    let slow = move || card.with(|c| c.as_ref().is_some_and(|c| c.slow_factor > 1.0));
    let drop_armed = move || card.with(|c| c.as_ref().is_some_and(|c| c.drop_next_ack));
    let crash = move |point| {
        lab.command(Command::CrashConsumer {
            consumer,
            point,
            restart_after_s: Some(RESTART_AFTER_S),
        })
    };
    view! {
        <li class="node consumer" class:down=move || !up() class:armed=armed
            class:narrated=narrated(lab, Node::Consumer(consumer)) data-node=format!("consumer-{index}") data-testid=format!("consumer-{index}")>
            <strong>{name}</strong>
            <span class="state" data-testid=format!("consumer-{index}-state")>{state}</span>
            <span class="state lease" data-testid=format!("consumer-{index}-lease")
                hidden=move || lease().is_none()>
                <Term term=glossary::Term::Lease>{move || lease().unwrap_or_default()}</Term>
            </span>
            <span class="actions">
                <button type="button" class="danger small" data-testid=format!("consumer-{index}-crash")
                    disabled=move || !up() hidden=move || !up() on:click=move |_| crash(CrashPoint::Now)
                    title=format!("Crash now; it restarts {RESTART_AFTER_S} s later")>
                    "Crash now"
                </button>
                <button type="button" class="small" data-testid=format!("consumer-{index}-restart")
                    disabled=up hidden=up on:click=move |_| lab.command(Command::RestartConsumer { consumer })>
                    "Restart"
                </button>
                <MoreActions testid=format!("consumer-{index}-more") of=name>
                    <button type="button" class="danger small" data-testid=format!("consumer-{index}-crash-after-commit")
                        disabled=move || !up() || armed()
                        on:click=move |_| crash(CrashPoint::AfterCommitBeforeAck)
                        title="Crash right after its next effect commits, before the ack is sent">
                        "Crash after next commit"
                    </button>
                    <button type="button" class="small" data-testid=format!("consumer-{index}-drop-ack")
                        disabled=move || !up() || drop_armed()
                        on:click=move |_| lab.command(Command::DropNextAck { consumer })
                        title="Its next ack is lost on the way to the broker">
                        "Drop next ack"
                    </button>
                    <button type="button" class="small" data-testid=format!("consumer-{index}-slow")
                        on:click=move |_| lab.command(Command::SlowConsumer {
                            consumer,
                            factor: if slow() { 1.0 } else { SLOW_FACTOR },
                        })
                        title=move || if slow() { "Work at normal speed again".to_string() } else { format!("Work {SLOW_FACTOR} times slower from now on") }>
                        {move || if slow() { "Normal speed" } else { "Slow ×4" }}
                    </button>
                </MoreActions>
            </span>
        </li>
    }
}

/// Member `member` of log group `group`, in the consumers lane (its controls are in the
/// logs panel).
#[component]
fn MemberBox(lab: Lab, group: usize, member: usize) -> impl IntoView {
    let card = Memo::new(move |_| {
        lab.topology.with(|t| {
            let g = t.logs.groups.get(group)?;
            Some((g.name.clone(), g.members.get(member)?.clone()))
        })
    });
    let name = move || card.with(|c| c.as_ref().map(|(_, m)| m.name.clone()).unwrap_or_default());
    let state = move || card.with(|c| c.as_ref().map(|(_, m)| member_text(m)).unwrap_or_default());
    let class = move || {
        let kind = card.with(|c| c.as_ref().map_or("up", |(_, m)| member_class(m)));
        format!("node member compact {kind}")
    };
    let group_name = move || {
        card.with(|c| {
            c.as_ref()
                .map(|(g, _)| format!("group {g}"))
                .unwrap_or_default()
        })
    };
    view! {
        <li class=class data-node=format!("member-{group}-{member}") data-testid=format!("member-{group}-{member}")>
            <strong>{name}</strong>
            <span class="feeds">{group_name}</span>
            <span class="state" data-testid=format!("member-{group}-{member}-state")>{state}</span>
        </li>
    }
}

/// A card's less frequent controls, folded under "More" so a card stays short enough for
/// the whole topology and the chart to share the first screen.
#[component]
fn MoreActions(
    testid: String,
    /// The card's name, for the button's accessible label.
    #[prop(into)]
    of: Signal<String>,
    children: Children,
) -> impl IntoView {
    view! {
        <details class="more">
            <summary data-testid=testid aria-label=move || format!("More actions for {}", of.get())>"More"</summary>
            <span class="actions">{children()}</span>
        </details>
    }
}

/// The summary card of a crowded consumers lane: how many, how many down, what they hold;
/// its button shows or folds the cards.
#[component]
fn ConsumersSummary(lab: Lab, expanded: RwSignal<bool>) -> impl IntoView {
    let summary = Memo::new(move |_| lab.topology.with(Topology::consumers_summary));
    let down = move || summary.with(|s| s.any_down);
    view! {
        <div class="node summary" class:down=down data-node="consumers" data-testid="consumers-summary">
            <strong>{move || summary.with(|s| s.title.clone())}</strong>
            <span class="state" data-testid="consumers-summary-state">{move || summary.with(|s| s.state.clone())}</span>
            <button type="button" class="small" data-testid="consumers-expand"
                aria-expanded=move || expanded.get().to_string() aria-controls="consumer-cards"
                on:click=move |_| expanded.update(|e| *e = !*e)>
                {move || if expanded.get() { "Fold the cards" } else { "Show every card" }}
            </button>
        </div>
    }
}

/// The broker's lane: its state and crash button, then its exchanges, queues and logs.
#[component]
fn BrokerLane(lab: Lab, shape: Memo<Shape>) -> impl IntoView {
    let exchanges = move || {
        (0..shape.with(|s| s.exchanges))
            .map(|index| view! { <ExchangeBox lab index /> })
            .collect_view()
    };
    let queues = move || {
        (0..shape.with(|s| s.queues))
            .map(|index| view! { <QueueBox lab index /> })
            .collect_view()
    };
    let logs = move || {
        (0..shape.with(|s| s.logs))
            .map(|index| view! { <LogBox lab index /> })
            .collect_view()
    };
    let broker_up = move || lab.topology.with(|t| t.broker_up);
    view! {
        <div class="lane broker" class:down=move || !broker_up() class:narrated=narrated(lab, Node::Broker) data-node="broker">
            <h3 class="with-action">
                <span>"Broker " <span data-testid="broker-state">{move || if broker_up() { "up" } else { "crashed" }}</span></span>
                <button type="button" class="small" class:danger=broker_up data-testid="broker-toggle"
                    on:click=move |_| {
                        if broker_up() {
                            lab.command(Command::CrashBroker { restart_after_s: Some(RESTART_AFTER_S) })
                        } else {
                            lab.command(Command::RestartBroker)
                        }
                    }>
                    {move || if broker_up() { "Crash broker" } else { "Restart broker" }}
                </button>
            </h3>
            <ul>{exchanges}{queues}{logs}</ul>
        </div>
    }
}

/// The consumers' lane: queue consumers and group members, folded into one summary card
/// when there are many.
#[component]
fn ConsumersLane(lab: Lab, shape: Memo<Shape>) -> impl IntoView {
    let consumers = move || {
        (0..shape.with(|s| s.consumers))
            .map(|index| view! { <ConsumerBox lab index /> })
            .collect_view()
    };
    let members = move || {
        shape
            .with(|s| s.members.clone())
            .into_iter()
            .enumerate()
            .flat_map(|(group, n)| (0..n).map(move |member| (group, member)))
            .map(|(group, member)| view! { <MemberBox lab group member /> })
            .collect_view()
    };
    let many = move || shape.with(Shape::many_consumers);
    let expanded = RwSignal::new(false);
    view! {
        <div class="lane consumers" class:many=many>
            <h3>"Consumers"</h3>
            <Show when=many>
                <ConsumersSummary lab expanded />
            </Show>
            <ul id="consumer-cards" data-testid="consumer-cards"
                hidden=move || many() && !expanded.get()>{consumers}{members}</ul>
        </div>
    }
}

/// The diagram: producers → broker → consumers → database.
#[component]
pub fn TopologyView(lab: Lab) -> impl IntoView {
    let shape = Memo::new(move |_| lab.topology.with(Topology::shape));
    let producers = move || {
        (0..shape.with(|s| s.producers))
            .map(|index| view! { <ProducerBox lab index /> })
            .collect_view()
    };
    let database = move || database_lane(lab, shape.with(|s| s.database));
    view! {
        <section class="panel topology" aria-labelledby="topology-title" data-testid="topology">
            <h2 id="topology-title">"Topology"</h2>
            <div class="lanes">
                <div class="lane producers">
                    <h3>"Producers"</h3>
                    <ul>{producers}</ul>
                </div>
                <BrokerLane lab shape />
                <ConsumersLane lab shape />
                <div class="lane database" class:narrated=narrated(lab, Node::Database) data-node="db" data-testid="database">
                    <h3>"Database"</h3>
                    <ul>{database}</ul>
                </div>
            </div>
            <div class="under-lanes">
                // Counted flights are written here, never over a card.
                <div class="badge-rail" aria-hidden="true"></div>
                <TokenLegend />
            </div>
            <TokenOverlay lab />
        </section>
    }
}
