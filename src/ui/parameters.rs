//! The parameters panel: the settings in force, editable while the run plays; each change
//! is sent to the lab as a command, and a refused value is explained next to its field.

use brokerlab_core::scenario::limits;
use brokerlab_core::{
    AckMode, ArrivalProcess, Command, Flavour, GroupId, Idempotency, Ordering, Overflow,
    ProducerId, ServiceTime, Simulation,
};
use leptos::prelude::*;

use crate::model::glossary;
use crate::model::settings::*;
use crate::state::Lab;
use crate::ui::term::label_text;

/// What a field does with the text (or option) it is given: send a command, or say why not.
type Apply = Callback<String, Result<(), String>>;

/// A labelled text field for a number, applied on `change` (Enter or leaving the field).
/// A bad value is explained next to it and the field goes back to the value in force.
#[component]
fn NumberField(
    id: String,
    label: &'static str,
    unit: &'static str,
    #[prop(into)] value: Signal<String>,
    apply: Apply,
    #[prop(optional)] hint: &'static str,
    /// The glossary term the label names: hovering or focusing it shows its definition.
    #[prop(optional)]
    term: Option<glossary::Term>,
    /// A range slider next to it: (max, step).
    #[prop(optional, into)]
    slider: Option<Signal<(f64, f64)>>,
) -> impl IntoView {
    let error = RwSignal::new(None::<String>);
    let input = NodeRef::<leptos::html::Input>::new();
    let error_id = format!("{id}-error");
    let run = move |text: String| match apply.run(text) {
        Ok(()) => error.set(None),
        Err(message) => {
            error.set(Some(message));
            // The value in force stays: show it again.
            if let Some(el) = input.get_untracked() {
                el.set_value(&value.get_untracked());
            }
        }
    };
    let on_change = move |ev: leptos::ev::Event| run(event_target_value(&ev));
    let slider_ref = NodeRef::<leptos::html::Input>::new();
    // The field (and slider) show the value in force whenever it changes (a command, step
    // back, reset). An effect, not `prop:value`: it runs once the whole change has settled.
    Effect::new(move |_| {
        let v = value.get();
        if let Some(el) = input.get() {
            el.set_value(&v);
        }
        if let Some(el) = slider_ref.get() {
            el.set_value(&v);
        }
    });
    let slider_view = slider.map(|range| {
        let slider_label = format!("{label} ({unit}), slider");
        view! {
            <input type="range" min="0" max=move || range.get().0.to_string()
                step=move || range.get().1.to_string() node_ref=slider_ref
                aria-label=slider_label data-testid=format!("{id}-slider")
                on:change=move |ev| run(event_target_value(&ev)) />
        }
    });
    view! {
        <div class="param" class:invalid=move || error.with(Option::is_some)>
            <label for=id.clone()>{label_text(label, term)} <span class="unit">" (" {unit} ")"</span></label>
            <span class="param-input">
                <input type="text" inputmode="decimal" id=id.clone() node_ref=input data-testid=id.clone()
                    on:change=on_change autocomplete="off" spellcheck="false"
                    aria-invalid=move || if error.with(Option::is_some) { "true" } else { "false" }
                    aria-describedby=error_id.clone() />
                {slider_view}
            </span>
            {(!hint.is_empty()).then(|| view! { <span class="hint">{hint}</span> })}
            <span class="param-error" id=error_id data-testid=format!("{id}-error") aria-live="polite">
                {move || error.get().map(|m| format!("⚠ {m}"))}
            </span>
        </div>
    }
}

/// A labelled choice, applied when the selection changes.
#[component]
fn SelectField(
    id: String,
    label: &'static str,
    options: Vec<(String, &'static str)>,
    #[prop(into)] value: Signal<String>,
    apply: Apply,
    /// The glossary term the label names.
    #[prop(optional)]
    term: Option<glossary::Term>,
) -> impl IntoView {
    let error = RwSignal::new(None::<String>);
    let error_id = format!("{id}-error");
    let select = NodeRef::<leptos::html::Select>::new();
    Effect::new(move |_| {
        let v = value.get();
        if let Some(el) = select.get() {
            el.set_value(&v);
        }
    });
    let on_change = move |ev: leptos::ev::Event| match apply.run(event_target_value(&ev)) {
        Ok(()) => error.set(None),
        Err(message) => {
            error.set(Some(message));
            // The choice in force stays.
            if let Some(el) = select.get_untracked() {
                el.set_value(&value.get_untracked());
            }
        }
    };
    let options = options
        .into_iter()
        .map(|(v, text)| {
            let this = v.clone();
            view! { <option value=v selected=move || value.with(|now| *now == this)>{text}</option> }
        })
        .collect_view();
    view! {
        <div class="param" class:invalid=move || error.with(Option::is_some)>
            <label for=id.clone()>{label_text(label, term)}</label>
            <select id=id.clone() data-testid=id.clone() node_ref=select on:change=on_change
                aria-describedby=error_id.clone()>
                {options}
            </select>
            <span class="param-error" id=error_id data-testid=format!("{id}-error") aria-live="polite">
                {move || error.get().map(|m| format!("⚠ {m}"))}
            </span>
        </div>
    }
}

/// (choice, what the option says): the option values are the core's names for them.
const PROCESSES: &[(ArrivalProcess, &str)] = &[
    (ArrivalProcess::Constant, "Evenly spaced (constant)"),
    (ArrivalProcess::Poisson, "Random (Poisson)"),
];
/// The pattern select's extra option (not an arrival process: a command of the panel).
const BURST: (&str, &str) = ("burst", "Burst: 10× for 5 s, then back");
const SERVICE_KINDS: &[(&str, &str)] = &[
    ("fixed", "Fixed (every message the same)"),
    ("exponential", "Random (exponential)"),
];
const ACK_MODES: &[(AckMode, &str)] = &[
    (AckMode::AfterCommit, "After commit (at least once)"),
    (AckMode::OnDelivery, "On delivery (at most once)"),
];
const IDEMPOTENCY: &[(Idempotency, &str)] = &[
    (Idempotency::None, "None"),
    (Idempotency::CheckThenInsert, "Check, then insert (racy)"),
    (Idempotency::Inbox, "Inbox table (unique key)"),
];
const ORDERINGS: &[(Ordering, &str)] = &[
    (Ordering::None, "None (apply as handlers finish)"),
    (Ordering::IgnoreStale, "Ignore stale versions"),
    (Ordering::WaitForGap, "Wait for the missing version"),
    (Ordering::Reconcile, "Reconcile from the source on a gap"),
];
/// A log's records of one key arrive in order within their partition: a group can only
/// skip stale versions, never wait for a gap.
const GROUP_ORDERINGS: &[(Ordering, &str)] = &[
    (Ordering::None, "None (apply every version)"),
    (Ordering::IgnoreStale, "Ignore stale versions"),
];
const FLAVOURS: &[(Flavour, &str)] = &[
    (
        Flavour::Generic,
        "Generic (leases; expiries count as attempts)",
    ),
    (Flavour::Rabbitmq, "RabbitMQ (requeue when a consumer dies)"),
    (
        Flavour::Sqs,
        "Amazon SQS (visibility timeout, maxReceiveCount)",
    ),
    (Flavour::SqsFifo, "Amazon SQS FIFO (one in flight per key)"),
];
const OVERFLOW: &[(Overflow, &str)] = &[
    (Overflow::Reject, "Reject the new message"),
    (Overflow::DropOldest, "Drop the oldest"),
    (Overflow::Throttle, "Throttle the producer"),
];

/// A select's options from a table of choices.
fn options<T: serde::Serialize>(table: &[(T, &'static str)]) -> Vec<(String, &'static str)> {
    table
        .iter()
        .map(|(choice, text)| (choice_value(choice), *text))
        .collect()
}

/// The pattern select's options: the arrival processes, then a burst.
fn pattern_options() -> Vec<(String, &'static str)> {
    let mut all = options(PROCESSES);
    all.push((BURST.0.to_string(), BURST.1));
    all
}

fn service_options() -> Vec<(String, &'static str)> {
    SERVICE_KINDS
        .iter()
        .map(|&(v, text)| (v.to_string(), text))
        .collect()
}

/// Sends a command built from the live simulation; refusals come back as text.
fn send(
    lab: Lab,
    build: impl FnOnce(&Simulation) -> Result<Command, String>,
) -> Result<(), String> {
    let fault = lab.with_player(|p| build(p.sim()))?;
    lab.try_command(fault)
}

#[component]
fn ProducerRow(lab: Lab, index: usize) -> impl IntoView {
    let get = move || lab.settings.with(|s| s.producers.get(index).cloned());
    // Outside the view (event handlers, setup): read without tracking.
    let now = move || {
        lab.settings
            .with_untracked(|s| s.producers.get(index).cloned())
    };
    let producer = now().map_or(ProducerId::new(0), |p| p.index);
    let name = now().map(|p| p.name).unwrap_or_default();
    let id = |f: &str| format!("param-p{index}-{f}");
    let rate = Signal::derive(move || get().map(|p| field(p.rate_per_s)).unwrap_or_default());
    let process = move || now().map_or(ArrivalProcess::Poisson, |p| p.process);
    let apply_rate = Callback::new(move |text: String| {
        let rate = parse_range(&text, 0.0, false, limits::RATE_PER_S_MAX, "msgs/s")?;
        let process = process();
        send(lab, |sim| {
            Ok(arrivals_command(sim, producer, process, rate))
        })
    });
    let apply_pattern = Callback::new(move |v: String| {
        if v == BURST.0 {
            return send(lab, |sim| burst_command(sim, producer));
        }
        let process: ArrivalProcess = parse_choice(&v, "pattern")?;
        let rate = now().map_or(0.0, |p| p.rate_per_s);
        send(lab, |sim| {
            Ok(arrivals_command(sim, producer, process, rate))
        })
    });
    let pattern = Signal::derive(move || match get() {
        Some(p) if p.in_burst => BURST.0.to_string(),
        Some(p) => choice_value(&p.process),
        None => choice_value(&ArrivalProcess::Poisson),
    });
    let slider = Signal::derive(move || {
        let max = get().map_or(10.0, |p| p.slider_max);
        (max, max / 1_000.0)
    });
    view! {
        <fieldset class="param-group" data-testid=format!("param-producer-{index}")>
            <legend>"Producer " <strong>{name}</strong></legend>
            <NumberField id=id("rate") label="Arrival rate" unit="msgs/s" value=rate apply=apply_rate
                term=glossary::Term::Lambda
                slider=slider hint="Later changes the scenario plans (a stop, say) still happen." />
            <SelectField id=id("pattern") label="Pattern" options=pattern_options() value=pattern apply=apply_pattern />
        </fieldset>
    }
}

/// A queue's row: its fields in the order the panel shows them, each sending its command
/// ([`queue_commands`]) for this queue.
#[component]
fn QueueRow(lab: Lab, index: usize) -> impl IntoView {
    let get = move || lab.settings.with(|s| s.queues.get(index).cloned());
    let now = move || {
        lab.settings
            .with_untracked(|s| s.queues.get(index).cloned())
    };
    let queue = now().map(|q| q.name).unwrap_or_default();
    let id = |f: &str| format!("param-q{index}-{f}");
    let text = move |f: fn(&QueueSettings) -> String| {
        Signal::derive(move || get().map(|q| f(&q)).unwrap_or_default())
    };
    // Each field's command, for this queue.
    let cmd = move |make: fn(String, &QueueSettings, &str) -> Result<Command, String>| {
        let queue = queue.clone();
        Callback::new(move |input: String| {
            let current = now().ok_or("This queue is no longer in the run.")?;
            let fault = make(queue.clone(), &current, &input)?;
            lab.try_command(fault)
        })
    };
    let choice = move |f: fn(&QueueSettings) -> String| {
        Signal::derive(move || get().map_or(String::new(), |q| f(&q)))
    };
    let name = now().map(|q| q.name).unwrap_or_default();
    view! {
        <fieldset class="param-group" data-testid=format!("param-queue-{index}")>
            <legend>"Queue " <strong>{name}</strong> " and its consumers"</legend>
            <SelectField id=id("flavour") label="Broker" options=options(FLAVOURS)
                value=choice(|q| choice_value(&q.flavour)) apply=cmd(queue_commands::flavour) />
            <NumberField id=id("service") label="Service time, mean" unit="s per message"
                value=text(|q| field(q.service.mean_s())) apply=cmd(queue_commands::service) />
            <SelectField id=id("service-kind") label="Service time varies" options=service_options()
                value=choice(|q| match q.service {
                    ServiceTime::Fixed { .. } => "fixed".to_string(),
                    ServiceTime::Exponential { .. } => "exponential".to_string(),
                }) apply=cmd(queue_commands::service_kind) />
            <NumberField id=id("consumers") label="Consumers" unit="count"
                value=text(|q| q.consumers.to_string()) apply=cmd(queue_commands::consumers)
                hint="Fewer: the extra ones finish what they hold, then stop." />
            <details class="param-more" data-testid=id("more")>
                <summary>"Delivery, retries and bound"</summary>
                <div class="param-more-fields">
            <NumberField id=id("prefetch") label="Prefetch" unit="messages per consumer" term=glossary::Term::Prefetch
                value=text(|q| q.prefetch.to_string()) apply=cmd(queue_commands::prefetch) />
            <NumberField id=id("visibility") label="Visibility timeout" unit="s" term=glossary::Term::Lease
                value=text(|q| field(q.visibility_s)) apply=cmd(queue_commands::visibility)
                hint="For leases given from now on." />
            <SelectField id=id("ack") label="Ack" options=options(ACK_MODES) term=glossary::Term::Ack
                value=choice(|q| choice_value(&q.ack)) apply=cmd(queue_commands::ack) />
            <SelectField id=id("idempotency") label="Idempotency" options=options(IDEMPOTENCY)
                value=choice(|q| choice_value(&q.idempotency)) apply=cmd(queue_commands::idempotency) />
            <SelectField id=id("ordering") label="Ordering per key" options=options(ORDERINGS)
                value=choice(|q| choice_value(&q.ordering)) apply=cmd(queue_commands::ordering) />
            <NumberField id=id("attempts") label="Retry: max attempts" unit="first one included"
                value=text(|q| q.retry.max_attempts.to_string()) apply=cmd(queue_commands::attempts) />
            <NumberField id=id("backoff") label="Retry: backoff base" unit="s, doubles each time"
                value=text(|q| field(q.retry.backoff_base_s)) apply=cmd(queue_commands::backoff) />
            <NumberField id=id("bound") label="Queue bound" unit="messages; empty = unbounded"
                value=text(|q| q.max_length.map(|n| n.to_string()).unwrap_or_default()) apply=cmd(queue_commands::bound) />
            <SelectField id=id("overflow") label="When full" options=options(OVERFLOW)
                value=choice(|q| choice_value(&q.overflow)) apply=cmd(queue_commands::overflow) />
                </div>
            </details>
        </fieldset>
    }
}

/// A consumer group's row: the settings of a group the run can change.
#[component]
fn GroupRow(lab: Lab, index: usize) -> impl IntoView {
    let group = GroupId::from_index(index);
    let name = lab.with_player(|p| p.sim().group_name(group));
    let ordering = Signal::derive(move || {
        lab.readout.track();
        lab.with_player(|p| choice_value(&p.sim().group_ordering(group)))
    });
    let apply = Callback::new(move |v: String| {
        let ordering = parse_choice(&v, "ordering policy")?;
        lab.try_command(Command::SetGroupOrdering { group, ordering })
    });
    view! {
        <fieldset class="param-group" data-testid=format!("param-group-{index}")>
            <legend>"Consumer group " <strong>{name}</strong></legend>
            <SelectField id=format!("param-g{index}-ordering") label="Ordering per key"
                options=options(GROUP_ORDERINGS) value=ordering apply=apply />
        </fieldset>
    }
}

/// The panel: one group per producer and per consumed queue, and the load they make.
#[component]
pub fn ParametersPanel(lab: Lab) -> impl IntoView {
    // Rows are rebuilt only when the scenario (or its shape) changes.
    let shape = Memo::new(move |_| {
        let name = lab.scenario.with(|s| s.0.clone());
        let groups = lab.with_player(|p| p.sim().group_ids().count());
        lab.settings
            .with(|s| (name, s.producers.len(), s.queues.len(), groups))
    });
    let rows = move || {
        let (_, producers, queues, groups) = shape.get();
        let p = (0..producers)
            .map(|index| view! { <ProducerRow lab index /> })
            .collect_view();
        let q = (0..queues)
            .map(|index| view! { <QueueRow lab index /> })
            .collect_view();
        let g = (0..groups)
            .map(|index| view! { <GroupRow lab index /> })
            .collect_view();
        view! { {p} {q} {g} }
    };
    let empty = move || {
        let (_, p, q, g) = shape.get();
        (p == 0 && q == 0 && g == 0).then(|| {
            view! { <p class="hint">"This scenario has no producer or queue whose settings can change here."</p> }
        })
    };
    view! {
        <section class="panel parameters" aria-labelledby="parameters-title" data-testid="parameters">
            <h2 id="parameters-title">"Parameters"</h2>
            <p class="hint">
                "Change a value while the run plays: it applies from that instant (press Enter or leave the field). "
                "The chart's dashed prediction is redrawn from now on with the new values."
            </p>
            <p class="forecast" data-testid="params-forecast" aria-live="polite">
                {move || lab.settings.with(forecast)}
            </p>
            {empty}
            <div class="param-groups">{rows}</div>
        </section>
    }
}
