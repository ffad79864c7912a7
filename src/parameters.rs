//! The parameters panel: the run's settings, editable while it plays — per producer its
//! arrival rate and pattern, per consumed queue its consumers' service time, count,
//! prefetch, ack mode, idempotency and retries, and the queue's lease and bound.
//!
//! Every field shows the setting in force in the simulation now (read from the recorded
//! run, so it follows step back and reset), and a change is sent as a command, recorded
//! like a crash. A value that cannot be used is explained next to its field and nothing
//! changes. [`Settings`] and the parsers are plain functions, tested natively.

use brokerlab_core::scenario::{limits, splice_schedule};
use brokerlab_core::{
    AckMode, ArrivalProcess, Fact, Fault, Flavour, Idempotency, Overflow, RateSegment, RetryPolicy,
    ServiceTime, Setting, Simulation,
};
use leptos::prelude::*;

use crate::lab::Lab;

/// A burst multiplies the current rate by this much…
pub const BURST_FACTOR: f64 = 10.0;
/// …for this long, then returns to the rate it replaced.
pub const BURST_S: f64 = 5.0;

/// Longest service time or lease the panel takes (a day).
const DURATION_MAX_S: f64 = 86_400.0;

/// A producer's settings as the panel shows them.
#[derive(Clone, Debug, PartialEq)]
pub struct ProducerSettings {
    pub index: u32,
    pub name: String,
    pub rate_per_s: f64,
    pub process: ArrivalProcess,
    /// A burst started from the panel is under way.
    pub in_burst: bool,
    /// The slider's top end (the number field takes more).
    pub slider_max: f64,
}

/// A consumed queue's settings (its consumers share them).
#[derive(Clone, Debug, PartialEq)]
pub struct QueueSettings {
    pub name: String,
    pub service: ServiceTime,
    /// Consumers taking deliveries (scaled-in ones finishing their work are not counted).
    pub consumers: u32,
    pub concurrency: u32,
    pub prefetch: u32,
    pub visibility_s: f64,
    pub ack: AckMode,
    pub idempotency: Idempotency,
    pub retry: RetryPolicy,
    pub max_length: Option<u64>,
    pub overflow: Overflow,
    /// Whose rules the queue follows.
    pub flavour: Flavour,
}

/// Everything the panel shows, at one instant of the run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    /// Producers with generated arrivals (scripted ones cannot change).
    pub producers: Vec<ProducerSettings>,
    pub queues: Vec<QueueSettings>,
    /// Total arrival rate now, messages per second.
    pub lambda: f64,
    /// Consumers' capacity now, messages per second.
    pub mu: f64,
}

/// The setting changes in force at the current step, in the order they took effect:
/// scheduled ones that are due, and the user's commands already applied (after stepping
/// back, the recorded commands ahead are not yet in force).
fn applied_changes(sim: &Simulation) -> Vec<(f64, &Fault)> {
    let scenario = sim.scenario();
    let now_us = sim.now_us();
    let mut changes: Vec<(f64, &Fault)> = scenario
        .faults
        .iter()
        .filter(|f| f.at_s * 1e6 <= now_us as f64)
        .map(|f| (f.at_s, &f.fault))
        .chain(
            scenario
                .interventions
                .iter()
                .filter(|iv| iv.after_step < sim.steps())
                .map(|iv| (iv.at_us as f64 / 1e6, &iv.fault)),
        )
        .collect();
    // Stable: at one instant, scheduled changes come before commands (as in the core).
    changes.sort_by(|a, b| a.0.total_cmp(&b.0));
    changes
}

/// Every producer's rate schedule (absolute times) with the arrival changes in force.
pub fn applied_schedules(sim: &Simulation) -> Vec<Vec<RateSegment>> {
    let changes = applied_changes(sim);
    sim.scenario()
        .producers
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut schedule = p.arrivals.schedule.clone();
            for &(at_s, fault) in &changes {
                if let Fault::SetArrivals {
                    producer,
                    schedule: new,
                    ..
                } = fault
                {
                    if *producer as usize == i {
                        splice_schedule(&mut schedule, at_s, new);
                    }
                }
            }
            schedule
        })
        .collect()
}

/// The consumers' capacity now: every consumer that takes deliveries (a crashed one that
/// will restart counts; one scaled in, or down for good, does not).
pub fn live_capacity(sim: &Simulation) -> f64 {
    crate::fluid::capacity_of(
        (0..sim.consumer_count())
            .filter_map(|c| sim.consumer(c))
            .filter(|c| !c.retiring && !c.stopped && (c.up || c.restart_at_us.is_some()))
            .map(|c| (c.concurrency, c.service_mean_s)),
    )
}

/// Facts after which the fluid prediction must be recomputed.
pub fn changes_prediction(fact: &Fact) -> bool {
    matches!(
        fact,
        Fact::SettingChanged {
            setting: Setting::Arrivals { .. }
                | Setting::ServiceTime { .. }
                | Setting::Consumers { .. },
            ..
        } | Fact::ConsumerAdded { .. }
            | Fact::ConsumerStopping { .. }
            | Fact::ConsumerStopped { .. }
    )
}

fn rate_at(schedule: &[RateSegment], t_s: f64) -> f64 {
    schedule
        .iter()
        .rev()
        .find(|s| s.from_s <= t_s)
        .map_or(0.0, |s| s.rate_per_s)
}

/// The slider's top end: a round number well above the rates this run has used.
fn slider_max(peak: f64) -> f64 {
    let v = (peak * 4.0).max(10.0);
    let pow = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * pow)
        .find(|&c| c >= v)
        .unwrap_or(10.0 * pow)
        .min(limits::RATE_PER_S_MAX)
}

impl Settings {
    pub fn of(sim: &Simulation) -> Self {
        let scenario = sim.scenario();
        let now_s = sim.now_us() as f64 / 1e6;
        let changes = applied_changes(sim);
        let schedules = applied_schedules(sim);
        let producers = scenario
            .producers
            .iter()
            .enumerate()
            .filter(|(_, p)| p.script.is_empty())
            .map(|(i, p)| {
                let mut process = p.arrivals.process;
                let mut in_burst = false;
                for &(at_s, fault) in &changes {
                    if let Fault::SetArrivals {
                        producer,
                        process: pr,
                        schedule,
                    } = fault
                    {
                        if *producer as usize == i {
                            process = *pr;
                            in_burst = is_burst(schedule) && now_s < at_s + BURST_S;
                        }
                    }
                }
                let schedule = &schedules[i];
                let peak = schedule
                    .iter()
                    .chain(&p.arrivals.schedule)
                    .map(|s| s.rate_per_s)
                    .fold(0.0, f64::max);
                ProducerSettings {
                    index: i as u32,
                    name: p.name.clone(),
                    rate_per_s: rate_at(schedule, now_s),
                    process,
                    in_burst,
                    slider_max: slider_max(peak),
                }
            })
            .collect();
        let queues = scenario
            .queues
            .iter()
            .enumerate()
            .filter_map(|(q, spec)| {
                let first = scenario
                    .consumers
                    .iter()
                    .find(|c| scenario.queue_of(c) == q)?;
                let mut s = QueueSettings {
                    name: spec.name.clone(),
                    service: first.service,
                    consumers: 0,
                    concurrency: first.concurrency,
                    prefetch: first.prefetch,
                    visibility_s: spec.visibility_timeout_s,
                    ack: first.ack,
                    idempotency: first.idempotency,
                    retry: first.retry.clone(),
                    max_length: spec.max_length,
                    overflow: spec.overflow,
                    flavour: spec.flavour,
                };
                for &(_, fault) in &changes {
                    s.apply(fault);
                }
                s.consumers = sim.queue(q as u32).map_or(0, |v| {
                    v.consumers
                        .iter()
                        .filter_map(|&c| sim.consumer(c))
                        .filter(|c| !c.retiring && !c.stopped)
                        .count() as u32
                });
                Some(s)
            })
            .collect();
        Self {
            producers,
            queues,
            lambda: schedules.iter().map(|s| rate_at(s, now_s)).sum(),
            mu: live_capacity(sim),
        }
    }
}

impl QueueSettings {
    /// Takes a setting change if it is about this queue.
    fn apply(&mut self, fault: &Fault) {
        match fault {
            Fault::SetServiceTime { queue, service } if *queue == self.name => {
                self.service = *service
            }
            Fault::SetPrefetch { queue, prefetch } if *queue == self.name => {
                self.prefetch = *prefetch
            }
            Fault::SetAckMode { queue, ack } if *queue == self.name => self.ack = *ack,
            Fault::SetIdempotency { queue, idempotency } if *queue == self.name => {
                self.idempotency = *idempotency
            }
            Fault::SetRetry { queue, retry } if *queue == self.name => self.retry = retry.clone(),
            Fault::SetVisibilityTimeout { queue, seconds } if *queue == self.name => {
                self.visibility_s = *seconds
            }
            Fault::SetQueueBound {
                queue,
                max_length,
                overflow,
            } if *queue == self.name => {
                self.max_length = *max_length;
                self.overflow = *overflow;
            }
            Fault::SetFlavour { queue, flavour } if *queue == self.name => self.flavour = *flavour,
            _ => {}
        }
    }
}

/// A schedule the burst option made: high, then back to a tenth of it after [`BURST_S`].
fn is_burst(schedule: &[RateSegment]) -> bool {
    matches!(schedule, [high, back, ..]
        if back.from_s == BURST_S && high.rate_per_s == back.rate_per_s * BURST_FACTOR && back.rate_per_s > 0.0)
}

// ----- commands --------------------------------------------------------------------------

/// The rest of an absolute schedule after `after_s`, relative to `now_s`.
fn remainder(schedule: &[RateSegment], now_s: f64, after_s: f64) -> Vec<RateSegment> {
    schedule
        .iter()
        .filter(|s| s.from_s > after_s)
        .map(|s| RateSegment {
            from_s: s.from_s - now_s,
            rate_per_s: s.rate_per_s,
        })
        .collect()
}

/// Arrivals at `rate_per_s` from now on, with `process`; changes the scenario had planned
/// for later (the end of a burst, a stop) still happen.
pub fn arrivals_command(
    sim: &Simulation,
    producer: u32,
    process: ArrivalProcess,
    rate_per_s: f64,
) -> Fault {
    let now_s = sim.now_us() as f64 / 1e6;
    let current = applied_schedules(sim)
        .get(producer as usize)
        .cloned()
        .unwrap_or_default();
    let mut schedule = vec![RateSegment {
        from_s: 0.0,
        rate_per_s,
    }];
    schedule.extend(remainder(&current, now_s, now_s));
    Fault::SetArrivals {
        producer,
        process,
        schedule,
    }
}

/// A burst: [`BURST_FACTOR`] times the current rate for [`BURST_S`], then the rate the
/// schedule had at its end. Refused when the rate is 0 (ten times nothing is nothing).
pub fn burst_command(sim: &Simulation, producer: u32) -> Result<Fault, String> {
    let now_s = sim.now_us() as f64 / 1e6;
    let current = applied_schedules(sim)
        .get(producer as usize)
        .cloned()
        .unwrap_or_default();
    let rate = rate_at(&current, now_s);
    if rate <= 0.0 {
        return Err("The rate is 0 msgs/s: set a rate first, then burst.".into());
    }
    let process =
        sim.scenario()
            .producers
            .get(producer as usize)
            .map_or(ArrivalProcess::Poisson, |p| {
                Settings::of(sim)
                    .producers
                    .iter()
                    .find(|s| s.index == producer)
                    .map_or(p.arrivals.process, |s| s.process)
            });
    let end_s = now_s + BURST_S;
    let mut schedule = vec![
        RateSegment {
            from_s: 0.0,
            rate_per_s: (rate * BURST_FACTOR).min(limits::RATE_PER_S_MAX),
        },
        RateSegment {
            from_s: BURST_S,
            rate_per_s: rate_at(&current, end_s),
        },
    ];
    schedule.extend(remainder(&current, now_s, end_s));
    Ok(Fault::SetArrivals {
        producer,
        process,
        schedule,
    })
}

// ----- parsing and validation ------------------------------------------------------------

/// A number typed by a person: spaces and thousands separators are allowed.
fn parse_number(text: &str, unit: &str) -> Result<f64, String> {
    let cleaned: String = text
        .trim()
        .chars()
        .filter(|c| *c != ',' && *c != '_' && !c.is_whitespace())
        .collect();
    if cleaned.is_empty() {
        return Err(format!("Enter a number ({unit})."));
    }
    match cleaned.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(format!("“{}” is not a number ({unit}).", text.trim())),
    }
}

/// A number from `min` to `max` (with `min` itself excluded when `min_open`).
pub fn parse_range(
    text: &str,
    min: f64,
    min_open: bool,
    max: f64,
    unit: &str,
) -> Result<f64, String> {
    let v = parse_number(text, unit)?;
    let low = if min_open { v <= min } else { v < min };
    if low || v > max {
        let from = if min_open { "more than" } else { "from" };
        return Err(format!(
            "Must be {from} {} to {} {unit}.",
            plain(min),
            plain(max)
        ));
    }
    Ok(v)
}

/// A whole number from `min` to `max`.
pub fn parse_whole(text: &str, min: u64, max: u64, unit: &str) -> Result<u64, String> {
    let v = parse_number(text, unit)?;
    if v.fract() != 0.0 {
        return Err(format!("Must be a whole number ({unit})."));
    }
    if v < min as f64 || v > max as f64 {
        return Err(format!(
            "Must be from {} to {} {unit}.",
            crate::readout::count(min),
            crate::readout::count(max)
        ));
    }
    Ok(v as u64)
}

/// The queue bound: empty means unbounded.
pub fn parse_bound(text: &str) -> Result<Option<u64>, String> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    parse_whole(text, 1, limits::MESSAGES_MAX, "messages").map(Some)
}

/// A number as a field shows it: shortest exact form, thousands separated when whole.
pub fn plain(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        crate::readout::count(v.abs() as u64)
    } else {
        v.to_string()
    }
}

/// A number as a field holds it (no separators, so it can be edited and sent back).
fn field(v: f64) -> String {
    v.to_string()
}

/// One line on the load now: λ against μ and where the backlog is heading.
pub fn forecast(s: &Settings) -> String {
    let per_s = |v: f64| {
        if v.is_infinite() {
            "unlimited".to_string()
        } else {
            format!("{v:.2}")
                .trim_end_matches('0')
                .trim_end_matches('.')
                .to_string()
        }
    };
    let head = format!(
        "Arrivals λ = {} msgs/s, capacity μ = {} msgs/s",
        per_s(s.lambda),
        per_s(s.mu)
    );
    let net = s.lambda - s.mu;
    if s.mu > 0.0 && s.mu.is_finite() {
        let rho = s.lambda / s.mu;
        if net > 0.0 {
            format!(
                "{head} (load ρ = {rho:.2}): the backlog is predicted to grow by about {} per second.",
                per_s(net)
            )
        } else {
            format!("{head} (load ρ = {rho:.2}): the consumers keep up; a backlog drains.")
        }
    } else if s.mu == 0.0 && s.lambda > 0.0 {
        format!("{head}: nothing is consumed; the backlog grows by every arrival.")
    } else {
        format!("{head}.")
    }
}

fn process_value(p: ArrivalProcess) -> &'static str {
    match p {
        ArrivalProcess::Constant => "constant",
        ArrivalProcess::Poisson => "poisson",
    }
}

fn ack_value(a: AckMode) -> &'static str {
    match a {
        AckMode::AfterCommit => "after_commit",
        AckMode::OnDelivery => "on_delivery",
    }
}

fn idempotency_value(i: Idempotency) -> &'static str {
    match i {
        Idempotency::None => "none",
        Idempotency::CheckThenInsert => "check_then_insert",
        Idempotency::Inbox => "inbox",
    }
}

fn overflow_value(o: Overflow) -> &'static str {
    match o {
        Overflow::Reject => "reject",
        Overflow::DropOldest => "drop_oldest",
        Overflow::Throttle => "throttle",
    }
}

/// The flavour a select's value names (the scenario file's names).
pub fn parse_flavour(v: &str) -> Result<Flavour, String> {
    Flavour::ALL
        .into_iter()
        .find(|f| f.as_str() == v)
        .ok_or_else(|| format!("Unknown broker flavour “{v}”."))
}

/// The ack mode a select's value names.
pub fn parse_ack(v: &str) -> Result<AckMode, String> {
    match v {
        "after_commit" => Ok(AckMode::AfterCommit),
        "on_delivery" => Ok(AckMode::OnDelivery),
        _ => Err(format!("Unknown ack mode “{v}”.")),
    }
}

pub fn parse_idempotency(v: &str) -> Result<Idempotency, String> {
    match v {
        "none" => Ok(Idempotency::None),
        "check_then_insert" => Ok(Idempotency::CheckThenInsert),
        "inbox" => Ok(Idempotency::Inbox),
        _ => Err(format!("Unknown idempotency “{v}”.")),
    }
}

pub fn parse_overflow(v: &str) -> Result<Overflow, String> {
    match v {
        "reject" => Ok(Overflow::Reject),
        "drop_oldest" => Ok(Overflow::DropOldest),
        "throttle" => Ok(Overflow::Throttle),
        _ => Err(format!("Unknown overflow policy “{v}”.")),
    }
}

// ----- view ------------------------------------------------------------------------------

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
            <label for=id.clone()>{label} <span class="unit">" (" {unit} ")"</span></label>
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
    options: &'static [(&'static str, &'static str)],
    #[prop(into)] value: Signal<&'static str>,
    apply: Apply,
) -> impl IntoView {
    let error = RwSignal::new(None::<String>);
    let error_id = format!("{id}-error");
    let select = NodeRef::<leptos::html::Select>::new();
    Effect::new(move |_| {
        let v = value.get();
        if let Some(el) = select.get() {
            el.set_value(v);
        }
    });
    let on_change = move |ev: leptos::ev::Event| match apply.run(event_target_value(&ev)) {
        Ok(()) => error.set(None),
        Err(message) => {
            error.set(Some(message));
            // The choice in force stays.
            if let Some(el) = select.get_untracked() {
                el.set_value(value.get_untracked());
            }
        }
    };
    let options = options
        .iter()
        .map(|&(v, text)| view! { <option value=v selected=move || value.get() == v>{text}</option> })
        .collect_view();
    view! {
        <div class="param" class:invalid=move || error.with(Option::is_some)>
            <label for=id.clone()>{label}</label>
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

const PATTERNS: &[(&str, &str)] = &[
    ("constant", "Evenly spaced (constant)"),
    ("poisson", "Random (Poisson)"),
    ("burst", "Burst: 10× for 5 s, then back"),
];
const SERVICE_KINDS: &[(&str, &str)] = &[
    ("fixed", "Fixed (every message the same)"),
    ("exponential", "Random (exponential)"),
];
const ACK_MODES: &[(&str, &str)] = &[
    ("after_commit", "After commit (at least once)"),
    ("on_delivery", "On delivery (at most once)"),
];
const IDEMPOTENCY: &[(&str, &str)] = &[
    ("none", "None"),
    ("check_then_insert", "Check, then insert (racy)"),
    ("inbox", "Inbox table (unique key)"),
];
const FLAVOURS: &[(&str, &str)] = &[
    ("generic", "Generic (leases; expiries count as attempts)"),
    ("rabbitmq", "RabbitMQ (requeue when a consumer dies)"),
    ("sqs", "Amazon SQS (visibility timeout, maxReceiveCount)"),
    ("sqs_fifo", "Amazon SQS FIFO (one in flight per key)"),
];
const OVERFLOW: &[(&str, &str)] = &[
    ("reject", "Reject the new message"),
    ("drop_oldest", "Drop the oldest"),
    ("throttle", "Throttle the producer"),
];

/// Sends a command built from the live simulation; refusals come back as text.
fn send(lab: Lab, build: impl FnOnce(&Simulation) -> Result<Fault, String>) -> Result<(), String> {
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
    let producer = now().map_or(0, |p| p.index);
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
        let process = match v.as_str() {
            "burst" => return send(lab, |sim| burst_command(sim, producer)),
            "constant" => ArrivalProcess::Constant,
            "poisson" => ArrivalProcess::Poisson,
            _ => return Err(format!("Unknown pattern “{v}”.")),
        };
        let rate = now().map_or(0.0, |p| p.rate_per_s);
        send(lab, |sim| {
            Ok(arrivals_command(sim, producer, process, rate))
        })
    });
    let pattern = Signal::derive(move || match get() {
        Some(p) if p.in_burst => "burst",
        Some(p) => process_value(p.process),
        None => "poisson",
    });
    let slider = Signal::derive(move || {
        let max = get().map_or(10.0, |p| p.slider_max);
        (max, max / 1_000.0)
    });
    view! {
        <fieldset class="param-group" data-testid=format!("param-producer-{index}")>
            <legend>"Producer " <strong>{name}</strong></legend>
            <NumberField id=id("rate") label="Arrival rate" unit="msgs/s" value=rate apply=apply_rate
                slider=slider hint="Later changes the scenario plans (a stop, say) still happen." />
            <SelectField id=id("pattern") label="Pattern" options=PATTERNS value=pattern apply=apply_pattern />
        </fieldset>
    }
}

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
    let cmd = move |make: fn(String, &QueueSettings, &str) -> Result<Fault, String>| {
        let queue = queue.clone();
        Callback::new(move |input: String| {
            let current = now().ok_or("This queue is no longer in the run.")?;
            let fault = make(queue.clone(), &current, &input)?;
            lab.try_command(fault)
        })
    };
    let service = cmd(|queue, q, t| {
        let mean_s = parse_range(t, 0.0, true, DURATION_MAX_S, "s")?;
        let service = match q.service {
            ServiceTime::Fixed { .. } => ServiceTime::Fixed { seconds: mean_s },
            ServiceTime::Exponential { .. } => ServiceTime::Exponential { mean_s },
        };
        Ok(Fault::SetServiceTime { queue, service })
    });
    let service_kind = cmd(|queue, q, v| {
        let mean_s = q.service.mean_s();
        let service = match v {
            "fixed" => ServiceTime::Fixed { seconds: mean_s },
            "exponential" => ServiceTime::Exponential { mean_s },
            _ => return Err(format!("Unknown service time “{v}”.")),
        };
        Ok(Fault::SetServiceTime { queue, service })
    });
    let consumers = cmd(|queue, _, t| {
        let count = parse_whole(t, 0, u64::from(limits::SCALE_MAX), "consumers")? as u32;
        Ok(Fault::SetConsumerCount { queue, count })
    });
    let prefetch = cmd(|queue, _, t| {
        let prefetch = parse_whole(t, 1, u64::from(limits::PREFETCH_MAX), "messages")? as u32;
        Ok(Fault::SetPrefetch { queue, prefetch })
    });
    let visibility = cmd(|queue, _, t| {
        let seconds = parse_range(t, 0.0, true, DURATION_MAX_S, "s")?;
        Ok(Fault::SetVisibilityTimeout { queue, seconds })
    });
    let ack = cmd(|queue, _, v| {
        Ok(Fault::SetAckMode {
            queue,
            ack: parse_ack(v)?,
        })
    });
    let idempotency = cmd(|queue, _, v| {
        Ok(Fault::SetIdempotency {
            queue,
            idempotency: parse_idempotency(v)?,
        })
    });
    let attempts = cmd(|queue, q, t| {
        let max_attempts = parse_whole(t, 1, u64::from(limits::ATTEMPTS_MAX), "attempts")? as u32;
        Ok(Fault::SetRetry {
            queue,
            retry: RetryPolicy {
                max_attempts,
                ..q.retry.clone()
            },
        })
    });
    let backoff = cmd(|queue, q, t| {
        let base = parse_range(t, 0.0, false, DURATION_MAX_S, "s")?;
        Ok(Fault::SetRetry {
            queue,
            retry: RetryPolicy {
                backoff_base_s: base,
                // The cap may not be below the base.
                backoff_cap_s: q.retry.backoff_cap_s.max(base),
                ..q.retry.clone()
            },
        })
    });
    let bound = cmd(|queue, q, t| {
        Ok(Fault::SetQueueBound {
            queue,
            max_length: parse_bound(t)?,
            overflow: q.overflow,
        })
    });
    let overflow = cmd(|queue, q, v| {
        Ok(Fault::SetQueueBound {
            queue,
            max_length: q.max_length,
            overflow: parse_overflow(v)?,
        })
    });
    let flavour = cmd(|queue, _, v| {
        Ok(Fault::SetFlavour {
            queue,
            flavour: parse_flavour(v)?,
        })
    });
    let choice = move |f: fn(&QueueSettings) -> &'static str| {
        Signal::derive(move || get().map_or("", |q| f(&q)))
    };
    let name = now().map(|q| q.name).unwrap_or_default();
    view! {
        <fieldset class="param-group" data-testid=format!("param-queue-{index}")>
            <legend>"Queue " <strong>{name}</strong> " and its consumers"</legend>
            <SelectField id=id("flavour") label="Broker" options=FLAVOURS
                value=choice(|q| q.flavour.as_str()) apply=flavour />
            <NumberField id=id("service") label="Service time, mean" unit="s per message"
                value=text(|q| field(q.service.mean_s())) apply=service />
            <SelectField id=id("service-kind") label="Service time varies" options=SERVICE_KINDS
                value=choice(|q| match q.service {
                    ServiceTime::Fixed { .. } => "fixed",
                    ServiceTime::Exponential { .. } => "exponential",
                }) apply=service_kind />
            <NumberField id=id("consumers") label="Consumers" unit="count"
                value=text(|q| q.consumers.to_string()) apply=consumers
                hint="Fewer: the extra ones finish what they hold, then stop." />
            <details class="param-more" data-testid=id("more")>
                <summary>"Delivery, retries and bound"</summary>
                <div class="param-more-fields">
            <NumberField id=id("prefetch") label="Prefetch" unit="messages per consumer"
                value=text(|q| q.prefetch.to_string()) apply=prefetch />
            <NumberField id=id("visibility") label="Visibility timeout" unit="s"
                value=text(|q| field(q.visibility_s)) apply=visibility
                hint="For leases given from now on." />
            <SelectField id=id("ack") label="Ack" options=ACK_MODES
                value=choice(|q| ack_value(q.ack)) apply=ack />
            <SelectField id=id("idempotency") label="Idempotency" options=IDEMPOTENCY
                value=choice(|q| idempotency_value(q.idempotency)) apply=idempotency />
            <NumberField id=id("attempts") label="Retry: max attempts" unit="first one included"
                value=text(|q| q.retry.max_attempts.to_string()) apply=attempts />
            <NumberField id=id("backoff") label="Retry: backoff base" unit="s, doubles each time"
                value=text(|q| field(q.retry.backoff_base_s)) apply=backoff />
            <NumberField id=id("bound") label="Queue bound" unit="messages; empty = unbounded"
                value=text(|q| q.max_length.map(|n| n.to_string()).unwrap_or_default()) apply=bound />
            <SelectField id=id("overflow") label="When full" options=OVERFLOW
                value=choice(|q| overflow_value(q.overflow)) apply=overflow />
                </div>
            </details>
        </fieldset>
    }
}

/// The panel: one group per producer and per consumed queue, and the load they make.
#[component]
pub fn ParametersPanel(lab: Lab) -> impl IntoView {
    // Rows are rebuilt only when the scenario (or its shape) changes.
    let shape = Memo::new(move |_| {
        let name = lab.scenario.with(|s| s.0.clone());
        lab.settings
            .with(|s| (name, s.producers.len(), s.queues.len()))
    });
    let rows = move || {
        let (_, producers, queues) = shape.get();
        let p = (0..producers)
            .map(|index| view! { <ProducerRow lab index /> })
            .collect_view();
        let q = (0..queues)
            .map(|index| view! { <QueueRow lab index /> })
            .collect_view();
        view! { {p} {q} }
    };
    let empty = move || {
        let (_, p, q) = shape.get();
        (p == 0 && q == 0).then(|| {
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

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::{examples, secs_to_us};

    fn mm1() -> Simulation {
        Simulation::new(examples::load("mm1").expect("built in")).expect("valid")
    }

    #[test]
    fn numbers_are_parsed_and_bad_ones_explained() {
        assert_eq!(
            parse_range(" 1,500.5 ", 0.0, false, 1e6, "msgs/s"),
            Ok(1500.5)
        );
        assert_eq!(
            parse_range("abc", 0.0, false, 1e6, "msgs/s"),
            Err("“abc” is not a number (msgs/s).".into())
        );
        assert_eq!(
            parse_range("", 0.0, false, 1e6, "msgs/s"),
            Err("Enter a number (msgs/s).".into())
        );
        assert_eq!(
            parse_range("-5", 0.0, false, 1e6, "msgs/s"),
            Err("Must be from 0 to 1,000,000 msgs/s.".into())
        );
        assert_eq!(
            parse_range("0", 0.0, true, 10.0, "s"),
            Err("Must be more than 0 to 10 s.".into())
        );
        assert!(parse_range("inf", 0.0, false, 1e6, "s").is_err());
        assert!(parse_range("NaN", 0.0, false, 1e6, "s").is_err());
        assert_eq!(parse_whole("3", 0, 64, "consumers"), Ok(3));
        assert_eq!(
            parse_whole("2.5", 0, 64, "consumers"),
            Err("Must be a whole number (consumers).".into())
        );
        assert_eq!(
            parse_whole("65", 0, 64, "consumers"),
            Err("Must be from 0 to 64 consumers.".into())
        );
        assert_eq!(parse_bound("  "), Ok(None));
        assert_eq!(parse_bound("100"), Ok(Some(100)));
        assert!(parse_bound("0").is_err());
        assert_eq!(parse_ack("on_delivery"), Ok(AckMode::OnDelivery));
        assert!(parse_idempotency("maybe").is_err());
        assert_eq!(parse_overflow("throttle"), Ok(Overflow::Throttle));
    }

    #[test]
    fn the_flavour_select_switches_the_queue_and_the_panel_follows() {
        let mut sim = mm1();
        assert_eq!(Settings::of(&sim).queues[0].flavour, Flavour::Generic);
        for (value, _) in FLAVOURS {
            assert_eq!(parse_flavour(value).map(Flavour::as_str), Ok(*value));
        }
        assert!(parse_flavour("kafka").is_err());
        sim.run_until(secs_to_us(2.0));
        sim.command(Fault::SetFlavour {
            queue: "jobs".into(),
            flavour: parse_flavour("sqs_fifo").unwrap(),
        })
        .unwrap();
        assert_eq!(Settings::of(&sim).queues[0].flavour, Flavour::SqsFifo);
        assert_eq!(sim.queue(0).unwrap().flavour, Flavour::SqsFifo);
    }

    #[test]
    fn the_settings_show_the_scenario_then_follow_commands_and_step_back() {
        let mut sim = mm1();
        let s = Settings::of(&sim);
        assert_eq!(s.producers.len(), 1);
        assert_eq!(s.producers[0].rate_per_s, 0.9);
        assert_eq!(s.producers[0].process, ArrivalProcess::Poisson);
        let q = &s.queues[0];
        assert_eq!((q.name.as_str(), q.consumers, q.prefetch), ("jobs", 1, 1));
        assert_eq!(q.service, ServiceTime::Exponential { mean_s: 1.0 });
        assert_eq!((s.lambda, s.mu), (0.9, 1.0));

        sim.run_until(secs_to_us(10.0));
        let steps_before = sim.steps();
        let fault = arrivals_command(&sim, 0, ArrivalProcess::Constant, 3.0);
        sim.command(fault).expect("valid");
        sim.command(Fault::SetConsumerCount {
            queue: "jobs".into(),
            count: 2,
        })
        .expect("valid");
        sim.command(Fault::SetQueueBound {
            queue: "jobs".into(),
            max_length: Some(50),
            overflow: Overflow::DropOldest,
        })
        .expect("valid");
        let s = Settings::of(&sim);
        assert_eq!(s.producers[0].rate_per_s, 3.0);
        assert_eq!(s.producers[0].process, ArrivalProcess::Constant);
        assert_eq!(s.queues[0].consumers, 2);
        assert_eq!(s.queues[0].max_length, Some(50));
        assert_eq!(s.queues[0].overflow, Overflow::DropOldest);
        assert_eq!((s.lambda, s.mu), (3.0, 2.0));

        // Re-simulated to before the commands (as step back does): the old values show,
        // though the commands are still recorded ahead.
        let mut back = Simulation::new(sim.scenario().clone()).expect("valid");
        while back.steps() < steps_before && back.step().is_some() {}
        let s = Settings::of(&back);
        assert_eq!(back.scenario().interventions.len(), 3);
        assert_eq!(s.producers[0].rate_per_s, 0.9);
        assert_eq!(s.queues[0].consumers, 1);
        assert_eq!(s.queues[0].max_length, None);
    }

    #[test]
    fn a_rate_change_keeps_the_planned_stop_and_a_burst_returns_to_the_rate() {
        let mut sim = Simulation::new(examples::load("burst").expect("built in")).expect("valid");
        sim.run_until(secs_to_us(10.0));
        let Fault::SetArrivals { schedule, .. } =
            arrivals_command(&sim, 0, ArrivalProcess::Poisson, 500.0)
        else {
            panic!("arrivals")
        };
        let pairs: Vec<(f64, f64)> = schedule.iter().map(|s| (s.from_s, s.rate_per_s)).collect();
        assert_eq!(pairs, vec![(0.0, 500.0), (50.0, 1_000.0), (170.0, 0.0)]);

        let burst = burst_command(&sim, 0).expect("a rate to multiply");
        sim.command(burst).expect("valid");
        let s = Settings::of(&sim);
        assert!(s.producers[0].in_burst);
        assert_eq!(s.producers[0].rate_per_s, 30_000.0);
        let schedules = applied_schedules(&sim);
        assert_eq!(rate_at(&schedules[0], 15.0), 3_000.0, "back after 5 s");
        assert_eq!(rate_at(&schedules[0], 61.0), 1_000.0, "the plan goes on");
        sim.run_until(secs_to_us(15.5));
        assert!(!Settings::of(&sim).producers[0].in_burst);

        let mut idle = mm1();
        idle.command(arrivals_command(&idle, 0, ArrivalProcess::Poisson, 0.0))
            .expect("valid");
        assert!(burst_command(&idle, 0).is_err());
    }

    #[test]
    fn capacity_leaves_out_scaled_in_consumers() {
        let mut sim = mm1();
        sim.command(Fault::SetConsumerCount {
            queue: "jobs".into(),
            count: 3,
        })
        .expect("valid");
        assert_eq!(live_capacity(&sim), 3.0);
        sim.command(Fault::SetServiceTime {
            queue: "jobs".into(),
            service: ServiceTime::Fixed { seconds: 0.5 },
        })
        .expect("valid");
        assert_eq!(live_capacity(&sim), 6.0);
        sim.command(Fault::SetConsumerCount {
            queue: "jobs".into(),
            count: 1,
        })
        .expect("valid");
        assert_eq!(live_capacity(&sim), 2.0);
        assert_eq!(Settings::of(&sim).queues[0].consumers, 1);
    }

    #[test]
    fn the_forecast_names_the_load_and_the_trend() {
        let s = Settings {
            lambda: 3.0,
            mu: 1.0,
            ..Settings::default()
        };
        assert_eq!(
            forecast(&s),
            "Arrivals λ = 3 msgs/s, capacity μ = 1 msgs/s (load ρ = 3.00): the backlog is predicted to grow by about 2 per second."
        );
        let s = Settings {
            lambda: 0.9,
            mu: 1.0,
            ..Settings::default()
        };
        assert!(forecast(&s).ends_with("the consumers keep up; a backlog drains."));
        assert_eq!(plain(1_000_000.0), "1,000,000");
        assert_eq!(plain(0.25), "0.25");
    }
}
