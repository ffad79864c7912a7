//! The topology diagram: one card per component of the run in four lanes, each with its
//! controls; the tokens overlay on top. Renders [`Topology`] snapshots from the lab.

use brokerlab_core::lessons::Lang;
use brokerlab_core::{
    Command, ConsumerId, CrashPoint, Poison, ProducerCrashPoint, ProducerId, QueueId,
};
use leptos::prelude::*;

use crate::i18n::{t, t_string, use_i18n};
use crate::model::arrival::Part;
use crate::model::flights::Node;
use crate::model::glossary;
use crate::model::groups::{member_class, member_text};
use crate::model::player::RESTART_AFTER_S;
use crate::model::topology::*;
use crate::state::arrival::Arrival;
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
    let i18n = use_i18n();
    let card = Memo::new(move |_| lab.topology.with(|t| t.producers.get(index).cloned()));
    let read = move |f: fn(&ProducerCard, Lang) -> String| {
        move || {
            let lang = lab.lang.get();
            card.with(|c| c.as_ref().map(|c| f(c, lang)).unwrap_or_default())
        }
    };
    let down = move || card.with(|c| c.as_ref().is_some_and(|c| !c.up));
    let uses_outbox = move || card.with(|c| c.as_ref().is_some_and(|c| c.uses_outbox));
    let rows = move || {
        let lang = lab.lang.get();
        card.with(|c| c.as_ref().map(|c| c.outbox_lines(lang)).unwrap_or_default())
            .into_iter()
            .map(|line| view! { <li>{line}</li> })
            .collect_view()
    };
    view! {
        <li class="node producer" class:down=down class:narrated=narrated(lab, Node::Producer(ProducerId::from_index(index))) data-node=format!("producer-{index}")
            data-testid=format!("producer-{index}")>
            <strong>{read(|c, _| c.name.clone())}</strong>
            <span class="state" data-testid=format!("producer-{index}-state")>{read(ProducerCard::state_text)}</span>
            <span class="state jobs" data-testid=format!("producer-{index}-jobs")
                title=move || t_string!(i18n, stage.topology.jobs_title)>
                {read(|c, lang| jobs_text(&c.jobs, c.requests_refused, lang))}
            </span>
            <Show when=uses_outbox>
                <ul class="outbox" aria-label=move || t_string!(i18n, stage.topology.outbox_label) data-testid=format!("producer-{index}-outbox")>
                    {rows}
                </ul>
            </Show>
            <ProducerActions lab index up=Signal::derive(move || card.with(|c| c.as_ref().is_some_and(|c| c.up)))
                confirms=Signal::derive(move || card.with(|c| c.as_ref().is_some_and(|c| c.waits_for_confirms)))
                name=Signal::derive(read(|c, _| c.name.clone())) />
        </li>
        <Show when=uses_outbox>
            <RelayBox lab index />
        </Show>
    }
}

/// A producer's controls: crash or restart it, lose its next confirm (only for one that
/// waits for confirms: the core refuses it otherwise), publish a poison message.
#[component]
fn ProducerActions(
    lab: Lab,
    index: usize,
    up: Signal<bool>,
    confirms: Signal<bool>,
    #[prop(into)] name: Signal<String>,
) -> impl IntoView {
    let i18n = use_i18n();
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
                title=move || if up.get() {
                    t_string!(i18n, stage.topology.crash_title, s = RESTART_AFTER_S).to_string()
                } else {
                    t_string!(i18n, stage.topology.restart_title).to_string()
                }>
                {move || if up.get() {
                    t_string!(i18n, stage.topology.crash)
                } else {
                    t_string!(i18n, stage.topology.restart)
                }}
            </button>
            <MoreActions testid=format!("producer-{index}-more") of=name>
                <Show when=move || confirms.get()>
                    <button type="button" class="small" data-testid=format!("producer-{index}-drop-confirm")
                        on:click=move |_| lab.command(Command::DropNextConfirm { producer })
                        title=move || t_string!(i18n, stage.topology.drop_confirm_title)>
                        {t!(i18n, stage.topology.drop_confirm)}
                    </button>
                </Show>
                <button type="button" class="small" data-testid=format!("producer-{index}-poison")
                    on:click=move |_| lab.command(Command::InjectPoison { producer, poison: Poison::MalformedPayload })
                    title=move || t_string!(i18n, stage.topology.poison_title)>
                    {t!(i18n, stage.topology.poison)}
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
    let i18n = use_i18n();
    let state = move || {
        let lang = lab.lang.get();
        relay.with(|r| r.as_ref().map(|r| relay_state(r, lang)).unwrap_or_default())
    };
    let up = move || relay.with(|r| r.as_ref().is_some_and(|r| r.up));
    let armed = move || relay.with(|r| r.as_ref().is_some_and(|r| r.armed_after_publish));
    let producer = ProducerId::from_index(index);
    view! {
        <li class="node relay compact" class:down=move || !up() class:armed=armed
            data-node=format!("relay-{index}") data-testid=format!("relay-{index}")>
            <strong>{t!(i18n, stage.topology.relay)}</strong>
            <span class="state" data-testid=format!("relay-{index}-state")>{state}</span>
            <span class="actions">
                <button type="button" class="danger small" data-testid=format!("producer-{index}-crash-after-publish")
                    disabled=move || !up() || armed()
                    on:click=move |_| lab.command(Command::CrashProducer {
                        producer,
                        point: ProducerCrashPoint::AfterPublishBeforeMark,
                        restart_after_s: Some(RELAY_RESTART_AFTER_S),
                    })
                    title=move || t_string!(i18n, stage.topology.crash_after_publish_title)>
                    {t!(i18n, stage.topology.crash_after_publish)}
                </button>
            </span>
        </li>
    }
}

#[component]
fn ExchangeBox(lab: Lab, index: usize) -> impl IntoView {
    let i18n = use_i18n();
    let card = Memo::new(move |_| lab.topology.with(|t| t.exchanges.get(index).cloned()));
    let title = move || {
        let lang = lab.lang.get();
        card.with(|c| {
            c.as_ref()
                .map(|c| {
                    let (name, kind) = (c.name.clone(), exchange_kind(c.kind, lang));
                    t_string!(i18n, stage.topology.exchange_title, name, kind).to_string()
                })
                .unwrap_or_default()
        })
    };
    let bindings = move || {
        let lang = lab.lang.get();
        card.with(|c| {
            c.as_ref().map_or(Vec::new(), |c| {
                c.bindings
                    .iter()
                    .map(|(key, queue)| binding_text(c.kind, key, queue, lang))
                    .collect()
            })
        })
        .into_iter()
        .enumerate()
        .map(|(b, text)| view! { <li data-testid=format!("exchange-{index}-binding-{b}")>{text}</li> })
        .collect_view()
    };
    // A memo: the card changes every frame, its list never.
    let publishers = Memo::new(move |_| {
        card.with(|c| c.as_ref().map(|c| c.publishers.join(", ")))
            .unwrap_or_default()
    });
    view! {
        <li class="node exchange" data-node=format!("exchange-{index}") data-testid=format!("exchange-{index}")>
            <strong data-testid=format!("exchange-{index}-kind")>{title}</strong>
            <Publishers names=publishers testid=format!("exchange-{index}-publishers") />
            <ul class="bindings" aria-label=move || t_string!(i18n, stage.topology.bindings_label)>{bindings}</ul>
        </li>
    }
}

/// Least privilege: the producers allowed to publish to a destination, when the scenario
/// names them (nothing when any producer may).
#[component]
fn Publishers(#[prop(into)] names: Signal<String>, testid: String) -> impl IntoView {
    let i18n = use_i18n();
    move || {
        let names = names.get();
        (!names.is_empty()).then(|| {
            view! {
                <span class="publishers" data-testid=testid.clone()>
                    {t!(i18n, stage.topology.publishers, names)}
                </span>
            }
        })
    }
}

#[component]
fn QueueBox(lab: Lab, index: usize) -> impl IntoView {
    let card = Memo::new(move |_| lab.topology.with(|t| t.queues.get(index).cloned()));
    let name = move || card.with(|c| c.as_ref().map(|c| c.name.clone()).unwrap_or_default());
    let i18n = use_i18n();
    let counts = move || {
        let lang = lab.lang.get();
        card.with(|c| {
            c.as_ref()
                .map(|c| queue_counts(c, lang))
                .unwrap_or_default()
        })
    };
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
                    t_string!(i18n, stage.topology.no_consumer).to_string()
                } else if names.len() > 4 {
                    t_string!(i18n, stage.topology.n_consumers, n = names.len()).to_string()
                } else {
                    format!("→ {}", names.join(", "))
                }
            })
        })
    };
    let has_dlq = move || card.with(|c| c.as_ref().is_some_and(|c| c.dlq.is_some()));
    // A memo: the card changes every frame, its list never.
    let publishers = Memo::new(move |_| {
        card.with(|c| c.as_ref().map(|c| c.publishers.join(", ")))
            .unwrap_or_default()
    });
    let flavour = move || {
        let lang = lab.lang.get();
        card.with(|c| c.as_ref().map_or("", |c| flavour_label(c.flavour, lang)))
    };
    view! {
        <li class="node queue" class:narrated=narrated(lab, Node::Queue(QueueId::from_index(index))) data-node=format!("queue-{index}") data-testid=format!("queue-{index}")>
            <strong>{name}</strong>
            <span class="flavour" data-testid=format!("queue-{index}-flavour")>{flavour}</span>
            <Publishers names=publishers testid=format!("queue-{index}-publishers") />
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
    let i18n = use_i18n();
    view! {
        <li class="node dlq compact" class:held=held class:narrated=narrated(lab, Node::Dlq(QueueId::from_index(index))) data-node=format!("dlq-{index}") data-testid=format!("dlq-{index}")>
            <strong title=move || t_string!(i18n, stage.topology.dead_letters_title, queue = queue())>
                {move || t_string!(i18n, stage.topology.dead_letters, queue = queue())}
            </strong>
            <span class="state" data-testid=format!("dlq-{index}-state")>
                {move || dlq().map(|d| dlq_text(&d, lab.lang.get())).unwrap_or_default()}
                {move || if redriving() { t_string!(i18n, stage.topology.redriving) } else { "" }}
            </span>
            <Show when=held>
                <span class="actions">
                    <button type="button" class="small" data-testid=format!("dlq-{index}-redrive")
                        disabled=redriving
                        on:click=move |_| lab.command(Command::Redrive { queue: queue(), rate_per_s: REDRIVE_RATE_PER_S })
                        title=move || t_string!(i18n, stage.topology.redrive_title, rate = REDRIVE_RATE_PER_S)>
                        {t!(i18n, stage.topology.redrive)}
                    </button>
                </span>
            </Show>
        </li>
    }
}

#[component]
fn LogBox(lab: Lab, index: usize) -> impl IntoView {
    let i18n = use_i18n();
    let text = move || {
        lab.topology.with(|t| {
            t.log_cards
                .get(index)
                .map(|l| {
                    (
                        l.name.clone(),
                        match l.partitions {
                            1 => t_string!(i18n, stage.topology.log_state_one).to_string(),
                            n => t_string!(i18n, stage.topology.log_state, n).to_string(),
                        },
                    )
                })
                .unwrap_or_default()
        })
    };
    // A memo: the card changes every frame, its list never.
    let publishers = Memo::new(move |_| {
        lab.topology
            .with(|t| t.log_cards.get(index).map(|l| l.publishers.join(", ")))
            .unwrap_or_default()
    });
    view! {
        <li class="node log" class:narrated=narrated(lab, Node::Log(index as u32)) data-node=format!("log-{index}") data-testid=format!("log-{index}")>
            <strong>{move || text().0}</strong>
            <Publishers names=publishers testid=format!("log-{index}-publishers") />
            <span class="state">{move || text().1}</span>
        </li>
    }
}

#[component]
fn ConsumerBox(lab: Lab, index: usize) -> impl IntoView {
    let consumer = ConsumerId::from_index(index);
    let card = Memo::new(move |_| lab.topology.with(|t| t.consumers.get(index).cloned()));
    let name = move || card.with(|c| c.as_ref().map(|c| c.name.clone()).unwrap_or_default());
    let i18n = use_i18n();
    let state = move || {
        let lang = lab.lang.get();
        card.with(|c| {
            c.as_ref()
                .map(|c| consumer_state(c, lang))
                .unwrap_or_default()
        })
    };
    let lease = move || {
        let lang = lab.lang.get();
        card.with(|c| c.as_ref().and_then(|c| lease_text(c, lang)))
    };
    let up = move || card.with(|c| c.as_ref().is_some_and(|c| c.up));
    // A consumer stopped by scaling in has left: nothing restarts it but scaling out.
    let stopped = move || card.with(|c| c.as_ref().is_some_and(|c| c.stopped));
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
                    title=move || t_string!(i18n, stage.topology.crash_title, s = RESTART_AFTER_S)>
                    {t!(i18n, stage.topology.crash_now)}
                </button>
                <button type="button" class="small" data-testid=format!("consumer-{index}-restart")
                    disabled=move || up() || stopped() hidden=move || up() || stopped()
                    on:click=move |_| lab.command(Command::RestartConsumer { consumer })>
                    {t!(i18n, stage.topology.restart)}
                </button>
                <MoreActions testid=format!("consumer-{index}-more") of=name>
                    <button type="button" class="danger small" data-testid=format!("consumer-{index}-crash-after-commit")
                        disabled=move || !up() || armed()
                        on:click=move |_| crash(CrashPoint::AfterCommitBeforeAck)
                        title=move || t_string!(i18n, stage.topology.crash_after_commit_title)>
                        {t!(i18n, stage.topology.crash_after_commit)}
                    </button>
                    <button type="button" class="small" data-testid=format!("consumer-{index}-drop-ack")
                        disabled=move || !up() || drop_armed()
                        on:click=move |_| lab.command(Command::DropNextAck { consumer })
                        title=move || t_string!(i18n, stage.topology.drop_ack_title)>
                        {t!(i18n, stage.topology.drop_ack)}
                    </button>
                    <button type="button" class="small" data-testid=format!("consumer-{index}-slow")
                        on:click=move |_| lab.command(Command::SlowConsumer {
                            consumer,
                            factor: if slow() { 1.0 } else { SLOW_FACTOR },
                        })
                        title=move || if slow() {
                            t_string!(i18n, stage.topology.normal_speed_title).to_string()
                        } else {
                            t_string!(i18n, stage.topology.slow_title, f = SLOW_FACTOR).to_string()
                        }>
                        {move || if slow() {
                            t_string!(i18n, stage.topology.normal_speed).to_string()
                        } else {
                            t_string!(i18n, stage.topology.slow, f = SLOW_FACTOR).to_string()
                        }}
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
    let i18n = use_i18n();
    let state = move || {
        let lang = lab.lang.get();
        card.with(|c| {
            c.as_ref()
                .map(|(_, m)| member_text(m, lang))
                .unwrap_or_default()
        })
    };
    let class = move || {
        let kind = card.with(|c| c.as_ref().map_or("up", |(_, m)| member_class(m)));
        format!("node member compact {kind}")
    };
    let group_name = move || {
        card.with(|c| {
            c.as_ref()
                .map(|(g, _)| t_string!(i18n, stage.topology.group, name = g.clone()).to_string())
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
    let i18n = use_i18n();
    view! {
        <details class="more">
            <summary data-testid=testid aria-label=move || t_string!(i18n, stage.topology.more_label, name = of.get())>
                {t!(i18n, stage.topology.more)}
            </summary>
            <span class="actions">{children()}</span>
        </details>
    }
}

/// The summary card of a crowded consumers lane: how many, how many down, what they hold;
/// its button shows or folds the cards.
#[component]
fn ConsumersSummary(lab: Lab, expanded: RwSignal<bool>) -> impl IntoView {
    let i18n = use_i18n();
    let summary = Memo::new(move |_| {
        let lang = lab.lang.get();
        lab.topology.with(|t| t.consumers_summary(lang))
    });
    let down = move || summary.with(|s| s.any_down);
    view! {
        <div class="node summary" class:down=down data-node="consumers" data-testid="consumers-summary">
            <strong>{move || summary.with(|s| s.title.clone())}</strong>
            <span class="state" data-testid="consumers-summary-state">{move || summary.with(|s| s.state.clone())}</span>
            <button type="button" class="small" data-testid="consumers-expand"
                aria-expanded=move || expanded.get().to_string() aria-controls="consumer-cards"
                on:click=move |_| expanded.update(|e| *e = !*e)>
                {move || if expanded.get() {
                    t_string!(i18n, stage.topology.fold)
                } else {
                    t_string!(i18n, stage.topology.show_all)
                }}
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
    let i18n = use_i18n();
    view! {
        <div class="lane broker" class:down=move || !broker_up() class:narrated=narrated(lab, Node::Broker) data-node="broker">
            <h3 class="with-action">
                <span>{t!(i18n, stage.topology.broker)} <span data-testid="broker-state">{move || if broker_up() {
                    t_string!(i18n, stage.card.up)
                } else {
                    t_string!(i18n, stage.card.crashed)
                }}</span></span>
                <button type="button" class="small" class:danger=broker_up data-testid="broker-toggle"
                    on:click=move |_| {
                        if broker_up() {
                            lab.command(Command::CrashBroker { restart_after_s: Some(RESTART_AFTER_S) })
                        } else {
                            lab.command(Command::RestartBroker)
                        }
                    }>
                    {move || if broker_up() {
                        t_string!(i18n, stage.topology.crash_broker)
                    } else {
                        t_string!(i18n, stage.topology.restart_broker)
                    }}
                </button>
            </h3>
            <ul>{exchanges}{queues}{logs}</ul>
        </div>
    }
}

/// The consumers' lane: queue consumers and group members, folded into one summary card
/// when there are many. Folded cards are not on show, so at load they are built in a task
/// of their own after the rest of the page (`Part::Cards`).
#[component]
fn ConsumersLane(lab: Lab, shape: Memo<Shape>, arrival: Option<Arrival>) -> impl IntoView {
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
    // A memo, so the parts arriving before the cards' do not build them again.
    let cards_due = Memo::new(move |_| !many() || arrival.is_none_or(|a| a.has(Part::Cards)));
    let i18n = use_i18n();
    view! {
        <div class="lane consumers" class:many=many>
            <h3>{t!(i18n, stage.topology.consumers)}</h3>
            <Show when=many>
                <ConsumersSummary lab expanded />
            </Show>
            <ul id="consumer-cards" data-testid="consumer-cards"
                hidden=move || many() && !expanded.get()>
                {move || cards_due.get().then(|| view! { {consumers}{members} })}
            </ul>
        </div>
    }
}

/// The diagram: producers → broker → consumers → database. On the first screen it gets
/// the page's `arrival`, and a crowded consumers lane's folded cards come in a later part.
#[component]
pub fn TopologyView(lab: Lab, #[prop(optional)] arrival: Option<Arrival>) -> impl IntoView {
    let shape = Memo::new(move |_| lab.topology.with(Topology::shape));
    let producers = move || {
        (0..shape.with(|s| s.producers))
            .map(|index| view! { <ProducerBox lab index /> })
            .collect_view()
    };
    let database = move || shape.with(|s| database_lane(lab, s.dependencies, s.database));
    let i18n = use_i18n();
    view! {
        <section class="panel topology" aria-labelledby="topology-title" data-testid="topology">
            <h2 id="topology-title">{t!(i18n, stage.topology.title)}</h2>
            <div class="lanes">
                <div class="lane producers">
                    <h3>{t!(i18n, stage.topology.producers)}</h3>
                    <ul>{producers}</ul>
                </div>
                <BrokerLane lab shape />
                <ConsumersLane lab shape arrival />
                <div class="lane database" class:narrated=narrated(lab, Node::Database) data-node="db" data-testid="database">
                    <h3>{t!(i18n, stage.topology.database)}</h3>
                    <ul>{database}</ul>
                </div>
            </div>
            <div class="under-lanes">
                // Counted flights are written here, never over a card.
                <div class="badge-rail" aria-hidden="true"></div>
                <TokenLegend lab />
            </div>
            <TokenOverlay lab />
        </section>
    }
}
