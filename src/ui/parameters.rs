//! The parameters panel: the settings in force, editable while the run plays; each change
//! is sent to the lab as a command, and a refused value is explained next to its field.

use brokerlab_core::scenario::limits;
use brokerlab_core::{
    AckMode, ArrivalProcess, Command, Flavour, GroupId, Idempotency, Ordering, Overflow,
    ProducerId, ServiceTime, Simulation,
};
use leptos::prelude::*;

use crate::format::field;
use crate::i18n::{t, t_string, use_i18n, Locale};
use crate::model::dependencies::DependencyCard;
use crate::model::dependency_commands;
use crate::model::glossary;
use crate::model::settings::*;
use crate::state::Lab;
use crate::ui::term::Term;

/// What a field does with the text (or option) it is given: send a command, or say why not.
type Apply = Callback<String, Result<(), String>>;

/// The page's words, for the option tables.
type I18n = leptos_i18n::I18nContext<Locale>;

/// A select's options: (value, what the option says in the page's language).
type Options = Vec<(String, Signal<String>)>;

/// A text of the panel that follows the page's language.
macro_rules! tr {
    ($i18n:ident, $($key:tt)+) => {
        Signal::derive(move || t_string!($i18n, $($key)+).to_string())
    };
}

/// A field's label: the glossary term it names (hovering or focusing it shows its
/// definition), or plain text.
fn label_view(label: Signal<String>, term: Option<glossary::Term>) -> AnyView {
    match term {
        Some(term) => view! { <Term term>{move || label.get()}</Term> }.into_any(),
        None => (move || label.get()).into_any(),
    }
}

/// A labelled text field for a number, applied on `change` (Enter or leaving the field).
/// A bad value is explained next to it and the field goes back to the value in force.
#[component]
fn NumberField(
    id: String,
    label: Signal<String>,
    unit: Signal<String>,
    #[prop(into)] value: Signal<String>,
    apply: Apply,
    #[prop(optional)] hint: Option<Signal<String>>,
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
    // Whether an entry was refused since the field got the focus (see `on_blur`).
    let refused_since_focus = StoredValue::new(false);
    let run = move |text: String| {
        let outcome = apply.run(text);
        // The field shows the value in force, written the page's way: the previous one
        // after a refusal, and the same after an entry equal to it ("2.5" typed in
        // Spanish, "2,5" in force), which changes nothing the effect below watches and
        // stayed as typed. A new value is written again by the effect.
        if let Some(el) = input.get_untracked() {
            el.set_value(&value.get_untracked());
        }
        refused_since_focus.set_value(outcome.is_err());
        error.set(outcome.err());
    };
    let on_change = move |ev: leptos::ev::Event| run(event_target_value(&ev));
    // Editing takes the refusal away: it was about a text no longer in the field. Without
    // this it stayed beside a valid value typed back, since no `change` event comes for a
    // text equal to the one the field held on focus (the value in force, put back).
    let on_input = move |_| error.set(None);
    // Nor for a field left as it was (an empty bound, no bound, entered again): leaving it
    // with the value in force, nothing refused since it got the focus, is setting it back.
    let on_focus = move |_| refused_since_focus.set_value(false);
    let on_blur = move |_| {
        let kept = input
            .get_untracked()
            .is_some_and(|el| el.value() == value.get_untracked());
        if kept && !refused_since_focus.get_value() {
            error.set(None);
        }
    };
    let slider_ref = NodeRef::<leptos::html::Input>::new();
    // The field (and slider) show the value in force whenever it changes (a command, step
    // back, reset). An effect, not `prop:value`: it runs once the whole change has settled.
    Effect::new(move |_| {
        let v = value.get();
        if let Some(el) = input.get() {
            el.set_value(&v);
        }
        if let Some(el) = slider_ref.get() {
            // A range input reads only a dot as the decimal separator.
            el.set_value(&crate::format::slider_value(&v));
        }
    });
    let i18n = use_i18n();
    let slider_view = slider.map(|range| {
        let slider_label = move || {
            t_string!(
                i18n,
                panels.params.slider,
                label = label.get(),
                unit = unit.get()
            )
        };
        view! {
            <input type="range" min="0" max=move || range.get().0.to_string()
                step=move || range.get().1.to_string() node_ref=slider_ref
                aria-label=slider_label data-testid=format!("{id}-slider")
                on:change=move |ev| run(event_target_value(&ev)) />
        }
    });
    view! {
        <div class="param" class:invalid=move || error.with(Option::is_some)>
            <label for=id.clone()>{label_view(label, term)} <span class="unit">" (" {unit} ")"</span></label>
            <span class="param-input">
                <input type="text" inputmode="decimal" id=id.clone() node_ref=input data-testid=id.clone()
                    on:change=on_change on:input=on_input
                    on:focus=on_focus on:blur=on_blur autocomplete="off" spellcheck="false"
                    aria-invalid=move || if error.with(Option::is_some) { "true" } else { "false" }
                    aria-describedby=error_id.clone() />
                {slider_view}
            </span>
            {hint.map(|hint| view! { <span class="hint">{hint}</span> })}
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
    label: Signal<String>,
    options: Options,
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
            <label for=id.clone()>{label_view(label, term)}</label>
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

/// Options from (choice, text) pairs: the option values are the core's names for them.
fn options<T: serde::Serialize>(table: Vec<(T, Signal<String>)>) -> Options {
    table
        .into_iter()
        .map(|(choice, text)| (choice_value(&choice), text))
        .collect()
}

/// The pattern select's extra option (not an arrival process: a command of the panel).
const BURST: &str = "burst";

/// The pattern select's options: the arrival processes, then a burst.
fn pattern_options(i18n: I18n) -> Options {
    let mut all = options(vec![
        (
            ArrivalProcess::Constant,
            tr!(i18n, panels.params.options.constant),
        ),
        (
            ArrivalProcess::Poisson,
            tr!(i18n, panels.params.options.poisson),
        ),
    ]);
    all.push((BURST.to_string(), tr!(i18n, panels.params.options.burst)));
    all
}

fn service_options(i18n: I18n) -> Options {
    vec![
        (
            "fixed".to_string(),
            tr!(i18n, panels.params.options.service_fixed),
        ),
        (
            "exponential".to_string(),
            tr!(i18n, panels.params.options.service_exponential),
        ),
    ]
}

fn ack_options(i18n: I18n) -> Options {
    options(vec![
        (
            AckMode::AfterCommit,
            tr!(i18n, panels.params.options.ack_after_commit),
        ),
        (
            AckMode::OnDelivery,
            tr!(i18n, panels.params.options.ack_on_delivery),
        ),
    ])
}

fn idempotency_options(i18n: I18n) -> Options {
    options(vec![
        (
            Idempotency::None,
            tr!(i18n, panels.params.options.idempotency_none),
        ),
        (
            Idempotency::CheckThenInsert,
            tr!(i18n, panels.params.options.check_then_insert),
        ),
        (Idempotency::Inbox, tr!(i18n, panels.params.options.inbox)),
    ])
}

fn ordering_options(i18n: I18n) -> Options {
    options(vec![
        (
            Ordering::None,
            tr!(i18n, panels.params.options.ordering_none),
        ),
        (
            Ordering::IgnoreStale,
            tr!(i18n, panels.params.options.ignore_stale),
        ),
        (
            Ordering::WaitForGap,
            tr!(i18n, panels.params.options.wait_for_gap),
        ),
        (
            Ordering::Reconcile,
            tr!(i18n, panels.params.options.reconcile),
        ),
    ])
}

/// A log's records of one key arrive in order within their partition: a group can only
/// skip stale versions, never wait for a gap.
fn group_ordering_options(i18n: I18n) -> Options {
    options(vec![
        (
            Ordering::None,
            tr!(i18n, panels.params.options.group_ordering_none),
        ),
        (
            Ordering::IgnoreStale,
            tr!(i18n, panels.params.options.ignore_stale),
        ),
    ])
}

fn flavour_options(i18n: I18n) -> Options {
    options(vec![
        (Flavour::Generic, tr!(i18n, panels.params.options.generic)),
        (Flavour::Rabbitmq, tr!(i18n, panels.params.options.rabbitmq)),
        (Flavour::Sqs, tr!(i18n, panels.params.options.sqs)),
        (Flavour::SqsFifo, tr!(i18n, panels.params.options.sqs_fifo)),
    ])
}

fn overflow_options(i18n: I18n) -> Options {
    options(vec![
        (Overflow::Reject, tr!(i18n, panels.params.options.reject)),
        (
            Overflow::DropOldest,
            tr!(i18n, panels.params.options.drop_oldest),
        ),
        (
            Overflow::Throttle,
            tr!(i18n, panels.params.options.throttle),
        ),
    ])
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
    let rate = Signal::derive(move || {
        let lang = lab.lang.get();
        get().map(|p| field(p.rate_per_s, lang)).unwrap_or_default()
    });
    let process = move || now().map_or(ArrivalProcess::Poisson, |p| p.process);
    let apply_rate = Callback::new(move |text: String| {
        let lang = lab.lang.get_untracked();
        let unit = crate::i18n::td_string!(crate::i18n::locale(lang), panels.params.rate_unit);
        let rate = parse_range(&text, 0.0, false, limits::RATE_PER_S_MAX, unit, lang)?;
        let process = process();
        send(lab, |sim| {
            Ok(arrivals_command(sim, producer, process, rate))
        })
    });
    let apply_pattern = Callback::new(move |v: String| {
        let lang = lab.lang.get_untracked();
        if v == BURST {
            return send(lab, |sim| burst_command(sim, producer, lang));
        }
        let process: ArrivalProcess = parse_setting(&v, SettingName::Pattern, lang)?;
        let rate = now().map_or(0.0, |p| p.rate_per_s);
        send(lab, |sim| {
            Ok(arrivals_command(sim, producer, process, rate))
        })
    });
    let pattern = Signal::derive(move || match get() {
        Some(p) if p.in_burst => BURST.to_string(),
        Some(p) => choice_value(&p.process),
        None => choice_value(&ArrivalProcess::Poisson),
    });
    let slider = Signal::derive(move || {
        let max = get().map_or(10.0, |p| p.slider_max);
        (max, max / 1_000.0)
    });
    let i18n = use_i18n();
    view! {
        <fieldset class="param-group" data-testid=format!("param-producer-{index}")>
            <legend>{t!(i18n, panels.params.producer)} " " <strong>{name}</strong></legend>
            <NumberField id=id("rate") label=tr!(i18n, panels.params.rate) unit=tr!(i18n, panels.params.rate_unit)
                value=rate apply=apply_rate term=glossary::Term::Lambda
                slider=slider hint=tr!(i18n, panels.params.rate_hint) />
            <SelectField id=id("pattern") label=tr!(i18n, panels.params.pattern) options=pattern_options(i18n)
                value=pattern apply=apply_pattern />
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
    // A field's text is written the way the page's language writes numbers.
    let text = move |f: fn(&QueueSettings, brokerlab_core::lessons::Lang) -> String| {
        Signal::derive(move || {
            let lang = lab.lang.get();
            get().map(|q| f(&q, lang)).unwrap_or_default()
        })
    };
    let i18n = use_i18n();
    // Each field's command, for this queue.
    type Make =
        fn(String, &QueueSettings, &str, brokerlab_core::lessons::Lang) -> Result<Command, String>;
    let cmd = move |make: Make| {
        let queue = queue.clone();
        Callback::new(move |input: String| {
            let lang = lab.lang.get_untracked();
            let current =
                now().ok_or_else(|| t_string!(i18n, panels.params.queue_gone).to_string())?;
            let fault = make(queue.clone(), &current, &input, lang)?;
            lab.try_command(fault)
        })
    };
    let choice = move |f: fn(&QueueSettings) -> String| {
        Signal::derive(move || get().map_or(String::new(), |q| f(&q)))
    };
    // A text that names the queue's deadline: the visibility timeout, or RabbitMQ's
    // consumer timeout.
    let by_flavour = move |lease: Signal<String>, rabbitmq: Signal<String>| {
        Signal::derive(move || match get().map(|q| q.flavour) {
            Some(Flavour::Rabbitmq) => rabbitmq.get(),
            _ => lease.get(),
        })
    };
    let name = now().map(|q| q.name).unwrap_or_default();
    view! {
        <fieldset class="param-group" data-testid=format!("param-queue-{index}")>
            <legend>{t!(i18n, panels.params.queue)} " " <strong>{name}</strong> " " {t!(i18n, panels.params.queue_rest)}</legend>
            // A queue's consumers may differ (a slow one among quick ones): the fields show
            // one of them, so say which, and that a change sets them all.
            <p class="hint" data-testid=id("mixed") hidden=move || get().is_none_or(|q| q.alike)>
                {move || get().map(|q| t_string!(i18n, panels.params.queue_mixed, name = q.shown_from).to_string())}
            </p>
            <SelectField id=id("flavour") label=tr!(i18n, panels.params.broker) options=flavour_options(i18n)
                value=choice(|q| choice_value(&q.flavour)) apply=cmd(queue_commands::flavour) />
            <NumberField id=id("service") label=tr!(i18n, panels.params.service) unit=tr!(i18n, panels.params.service_unit)
                value=text(|q, l| field(q.service.mean_s(), l)) apply=cmd(queue_commands::service) />
            <SelectField id=id("service-kind") label=tr!(i18n, panels.params.service_kind) options=service_options(i18n)
                value=choice(|q| match q.service {
                    ServiceTime::Fixed { .. } => "fixed".to_string(),
                    ServiceTime::Exponential { .. } => "exponential".to_string(),
                }) apply=cmd(queue_commands::service_kind) />
            <NumberField id=id("consumers") label=tr!(i18n, panels.params.consumers) unit=tr!(i18n, panels.params.consumers_unit)
                value=text(|q, _| q.consumers.to_string()) apply=cmd(queue_commands::consumers)
                hint=tr!(i18n, panels.params.consumers_hint) />
            <details class="param-more" data-testid=id("more")>
                <summary>{t!(i18n, panels.params.more)}</summary>
                <div class="param-more-fields">
            <NumberField id=id("prefetch") label=tr!(i18n, panels.params.prefetch) unit=tr!(i18n, panels.params.prefetch_unit)
                term=glossary::Term::Prefetch
                value=text(|q, _| q.prefetch.to_string()) apply=cmd(queue_commands::prefetch) />
            // RabbitMQ has no lease: the same place holds its consumer timeout.
            <NumberField id=id("visibility") label=by_flavour(tr!(i18n, panels.params.visibility), tr!(i18n, panels.params.consumer_timeout))
                unit=Signal::stored("s".to_string()) term=glossary::Term::Lease
                value=text(|q, l| field(q.deadline_s(), l)) apply=cmd(queue_commands::deadline)
                hint=by_flavour(tr!(i18n, panels.params.visibility_hint), tr!(i18n, panels.params.consumer_timeout_hint)) />
            <SelectField id=id("ack") label=tr!(i18n, panels.params.ack) options=ack_options(i18n) term=glossary::Term::Ack
                value=choice(|q| choice_value(&q.ack)) apply=cmd(queue_commands::ack) />
            <SelectField id=id("idempotency") label=tr!(i18n, panels.params.idempotency) options=idempotency_options(i18n)
                value=choice(|q| choice_value(&q.idempotency)) apply=cmd(queue_commands::idempotency) />
            <SelectField id=id("ordering") label=tr!(i18n, panels.params.ordering) options=ordering_options(i18n)
                value=choice(|q| choice_value(&q.ordering)) apply=cmd(queue_commands::ordering) />
            <NumberField id=id("attempts") label=tr!(i18n, panels.params.attempts) unit=tr!(i18n, panels.params.attempts_unit)
                value=text(|q, _| q.retry.max_attempts.to_string()) apply=cmd(queue_commands::attempts) />
            <NumberField id=id("backoff") label=tr!(i18n, panels.params.backoff) unit=tr!(i18n, panels.params.backoff_unit)
                value=text(|q, l| field(q.retry.backoff_base_s, l)) apply=cmd(queue_commands::backoff) />
            <NumberField id=id("bound") label=tr!(i18n, panels.params.bound) unit=tr!(i18n, panels.params.bound_unit)
                value=text(|q, _| q.max_length.map(|n| n.to_string()).unwrap_or_default()) apply=cmd(queue_commands::bound) />
            <SelectField id=id("overflow") label=tr!(i18n, panels.params.overflow) options=overflow_options(i18n)
                value=choice(|q| choice_value(&q.overflow)) apply=cmd(queue_commands::overflow) />
                </div>
            </details>
        </fieldset>
    }
}

/// A dependency's row: its slots, its callers' timeout, and the protections in force.
#[component]
fn DependencyRow(lab: Lab, index: usize) -> impl IntoView {
    let get = move || lab.topology.with(|t| t.dependencies.get(index).cloned());
    let name = get().map(|d| d.view.name).unwrap_or_default();
    let id = |f: &str| format!("param-dep{index}-{f}");
    let text = move |f: fn(&DependencyCard, brokerlab_core::lessons::Lang) -> String| {
        Signal::derive(move || {
            let lang = lab.lang.get();
            get().map(|d| f(&d, lang)).unwrap_or_default()
        })
    };
    let i18n = use_i18n();
    type Make =
        fn(&str, &DependencyCard, &str, brokerlab_core::lessons::Lang) -> Result<Command, String>;
    let cmd = move |make: Make| {
        Callback::new(move |input: String| {
            let lang = lab.lang.get_untracked();
            let current = lab
                .topology
                .with_untracked(|t| t.dependencies.get(index).cloned())
                .ok_or_else(|| t_string!(i18n, panels.params.queue_gone).to_string())?;
            let fault = make(&current.view.name, &current, &input, lang)?;
            lab.try_command(fault)
        })
    };
    let seconds = Signal::derive(move || t_string!(i18n, panels.dep_params.seconds).to_string());
    view! {
        <fieldset class="param-group" data-testid=format!("param-dep-{index}")>
            <legend>{t!(i18n, panels.dep_params.title)} " " <strong>{name}</strong> " " {t!(i18n, panels.dep_params.title_rest)}</legend>
            <NumberField id=id("slots") label=tr!(i18n, panels.dep_params.slots) unit=tr!(i18n, panels.dep_params.slots_unit)
                value=text(|d, _| d.view.concurrency.to_string())
                apply=cmd(|n, d, t, l| dependency_commands::slots(n, d.view.service_mean_s, t, l)) />
            <NumberField id=id("timeout") label=tr!(i18n, panels.dep_params.timeout) unit=seconds
                value=text(|d, l| field(d.view.timeout_s, l))
                apply=cmd(|n, _, t, l| dependency_commands::timeout(n, t, l)) />
            <NumberField id=id("admission") label=tr!(i18n, panels.dep_params.admission) unit=seconds
                value=text(|d, l| d.view.admission_max_age_s.map(|s| field(s, l)).unwrap_or_default())
                apply=cmd(|n, _, t, l| dependency_commands::admission(n, t, l))
                hint=tr!(i18n, panels.dep_params.admission_hint) />
            <NumberField id=id("budget") label=tr!(i18n, panels.dep_params.budget) unit=tr!(i18n, panels.dep_params.tokens_unit)
                value=text(|d, l| d.view.tokens.map(|(_, size)| field(size, l)).unwrap_or_default())
                apply=cmd(|n, _, t, l| dependency_commands::retry_budget(n, t, l))
                hint=tr!(i18n, panels.dep_params.budget_hint) />
            <NumberField id=id("breaker") label=tr!(i18n, panels.dep_params.breaker) unit=tr!(i18n, panels.dep_params.failures_unit)
                value=text(|d, _| d.breaker_threshold().map(|n| n.to_string()).unwrap_or_default())
                apply=cmd(|n, _, t, l| dependency_commands::breaker(n, t, l))
                hint=tr!(i18n, panels.dep_params.breaker_hint) />
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
        let ordering = parse_setting(&v, SettingName::Ordering, lab.lang.get_untracked())?;
        lab.try_command(Command::SetGroupOrdering { group, ordering })
    });
    let i18n = use_i18n();
    view! {
        <fieldset class="param-group" data-testid=format!("param-group-{index}")>
            <legend>{t!(i18n, panels.params.group)} " " <strong>{name}</strong></legend>
            <SelectField id=format!("param-g{index}-ordering") label=tr!(i18n, panels.params.ordering)
                options=group_ordering_options(i18n) value=ordering apply=apply />
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
        let deps = lab.with_player(|p| p.sim().dependency_count() as usize);
        lab.settings
            .with(|s| (name, s.producers.len(), s.queues.len(), groups, deps))
    });
    let rows = move || {
        let (_, producers, queues, groups, deps) = shape.get();
        let p = (0..producers)
            .map(|index| view! { <ProducerRow lab index /> })
            .collect_view();
        let q = (0..queues)
            .map(|index| view! { <QueueRow lab index /> })
            .collect_view();
        let g = (0..groups)
            .map(|index| view! { <GroupRow lab index /> })
            .collect_view();
        let d = (0..deps)
            .map(|index| view! { <DependencyRow lab index /> })
            .collect_view();
        view! { {p} {q} {d} {g} }
    };
    let i18n = use_i18n();
    let empty = move || {
        let (_, p, q, g, _) = shape.get();
        (p == 0 && q == 0 && g == 0).then(|| {
            view! { <p class="hint">{t!(i18n, panels.params.empty)}</p> }
        })
    };
    // An aggregated run is computed once from its scenario: its player is only a shell
    // at rest (rates of 0), so the form would show wrong values and change nothing.
    let aggregated = move || lab.aggregated_on.get();
    let form = move || {
        (!aggregated()).then(|| {
            view! {
                <p class="hint">{t!(i18n, panels.params.intro)}</p>
                <p class="forecast" data-testid="params-forecast" aria-live="polite">
                    {move || {
                        let lang = lab.lang.get();
                        let strain = lab.rho.with(|r| r.strain.clone());
                        lab.settings.with(|s| forecast_with(s, strain.as_ref(), lang))
                    }}
                </p>
                {empty}
                <div class="param-groups">{rows}</div>
            }
        })
    };
    view! {
        <section class="panel parameters" aria-labelledby="parameters-title" data-testid="parameters">
            <h2 id="parameters-title">{t!(i18n, panels.params.title)}</h2>
            <Show when=aggregated>
                <p class="hint" data-testid="params-aggregated">{t!(i18n, panels.params.aggregated)}</p>
            </Show>
            {form}
        </section>
    }
}
