//! A RabbitMQ definitions file (what `rabbitmqctl export_definitions` and the management
//! API's `GET /api/definitions` write) as a scenario.
//!
//! Mapped: queues (classic and quorum; durable; the arguments `x-max-length`,
//! `x-overflow`, `x-message-ttl`, `x-delivery-limit`, `x-consumer-timeout`,
//! `x-dead-letter-exchange`, `x-dead-letter-routing-key`, `x-queue-type`), the same keys
//! set by simple policies (arguments win over a policy for the dead-letter exchange and
//! the overflow; for a length, a TTL or a delivery limit the lower value applies, as
//! RabbitMQ documents; the importer reads a consumer timeout the same way),
//! exchanges of type direct, fanout and topic, and their bindings to queues. Every queue
//! follows the `rabbitmq` flavour. A definitions file has no traffic, so the importer
//! adds a producer per exchange (or per unbound queue) and a consumer per queue, and says
//! so. Everything else is a [`Note`].

use serde_json::{Map, Value};

use super::pattern::Pattern;
use super::{parse_json, shown, ImportError, Imported, Item, Note, Notes, ShapeProblem};
use crate::scenario::{
    flavour_defaults, limits, AckMode, ArrivalProcess, Arrivals, Binding, ConsumerSpec,
    ExchangeKind, ExchangeSpec, Flavour, Overflow, ProducerSpec, QueueSpec, QueueType, Scenario,
    ServiceTime, SCENARIO_VERSION,
};

/// Defaults of the traffic the importer adds.
pub const PRODUCER_RATE_PER_S: f64 = 5.0;
pub const PRODUCER_COUNT: u64 = 100;
pub const CONSUMER_SERVICE_S: f64 = 0.05;
pub const CONSUMER_PREFETCH: u32 = 10;

/// Sections with no place in the model (accounts, access, runtime parameters).
const IGNORED_SECTIONS: [&str; 7] = [
    "users",
    "vhosts",
    "permissions",
    "topic_permissions",
    "parameters",
    "global_parameters",
    "operator_policies",
];
/// Sections that only describe the export itself.
const METADATA: [&str; 4] = [
    "rabbit_version",
    "rabbitmq_version",
    "product_name",
    "product_version",
];

/// The description an imported scenario gets, in `lang` (the page writes it in its own).
pub fn description(lang: crate::lang::Lang) -> &'static str {
    crate::lang::Text::new(
        "Imported from a RabbitMQ definitions file.",
        "Importado de un archivo de definiciones de RabbitMQ.",
    )
    .get(lang)
}

/// Imports a definitions file.
pub fn import(bytes: &[u8]) -> Result<Imported, ImportError> {
    let doc = parse_json(bytes)?;
    let doc = doc
        .as_object()
        .ok_or_else(|| shape("", ShapeProblem::NotAnObject))?;
    let mut notes = Notes::default();
    note_sections(doc, &mut notes);
    let queues_in = list(doc, "queues")?;
    let vhost = queues_in
        .first()
        .map(vhost_of)
        .unwrap_or_else(|| "/".to_string());
    let policies = read_policies(list(doc, "policies")?, &vhost, &mut notes)?;
    let queues = read_queues(queues_in, &vhost, &policies, &mut notes)?;
    if queues.is_empty() {
        return Err(notes.empty());
    }
    let (exchanges, dlx) = read_exchanges(doc, &vhost, &queues, &mut notes)?;
    let scenario = build(queues, exchanges, &dlx, &mut notes);
    scenario.validate().map_err(ImportError::Invalid)?;
    Ok(Imported {
        scenario,
        notes: notes.0,
    })
}

fn shape(at: &str, problem: ShapeProblem) -> ImportError {
    ImportError::Shape {
        at: shown(at),
        problem,
    }
}

/// `doc[key]` as a list (absent: empty).
fn list<'a>(doc: &'a Map<String, Value>, key: &str) -> Result<&'a [Value], ImportError> {
    match doc.get(key) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(_) => Err(shape(key, ShapeProblem::NotAList)),
    }
}

fn note_sections(doc: &Map<String, Value>, notes: &mut Notes) {
    for (key, value) in doc {
        let known = ["queues", "exchanges", "bindings", "policies"].contains(&key.as_str());
        if known || METADATA.contains(&key.as_str()) {
            continue;
        }
        let count = match value {
            Value::Array(items) => items.len(),
            Value::Object(map) => map.len(),
            _ => 1,
        };
        if count > 0 || !IGNORED_SECTIONS.contains(&key.as_str()) {
            notes.push(Note::SectionIgnored {
                section: shown(key),
                count,
            });
        }
    }
}

fn vhost_of(item: &Value) -> String {
    item.get("vhost")
        .and_then(Value::as_str)
        .unwrap_or("/")
        .to_string()
}

/// `item.name`, required.
fn name_of(item: &Value, what: &str, index: usize) -> Result<String, ImportError> {
    item.get("name")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| shape(&format!("{what}[{index}].name"), ShapeProblem::MissingText))
}

/// Whether `item` belongs to the imported vhost; if not, a note says so.
fn in_vhost(item: &Value, vhost: &str, kind: Item, name: &str, notes: &mut Notes) -> bool {
    let v = vhost_of(item);
    if v != vhost {
        notes.push(Note::OtherVhost {
            item: kind,
            name: shown(name),
            vhost: shown(&v),
        });
    }
    v == vhost
}

/// Whether the model takes `name`'s length (at most `NAME_LEN_MAX` characters, less room
/// for the suffix a renamed exchange gets); if not, a note says so. (An empty queue name
/// is an error of the file, found when the scenario is validated.)
fn name_fits(name: &str, item: Item, notes: &mut Notes) -> bool {
    let room = limits::NAME_LEN_MAX - " (exchange)".len();
    let fits = name.chars().count() <= room;
    if !fits {
        notes.push(Note::NameTooLong {
            item,
            name: shown(name),
        });
    }
    fits
}

// ----- policies --------------------------------------------------------------------------

/// A policy the importer can apply to queues.
struct Policy {
    pattern: Pattern,
    apply_to: String,
    priority: i64,
    settings: Settings,
}

fn read_policies(
    items: &[Value],
    vhost: &str,
    notes: &mut Notes,
) -> Result<Vec<Policy>, ImportError> {
    let mut policies = Vec::new();
    for (i, p) in items.iter().enumerate() {
        let name = name_of(p, "policies", i)?;
        if !in_vhost(p, vhost, Item::Policy, &name, notes) {
            continue;
        }
        let text = |k: &str| p.get(k).and_then(Value::as_str).unwrap_or("");
        let apply_to = if text("apply-to").is_empty() {
            "all".to_string()
        } else {
            text("apply-to").to_string()
        };
        if !["all", "queues", "classic_queues", "quorum_queues"].contains(&apply_to.as_str()) {
            notes.push(Note::PolicyNotForQueues {
                policy: shown(&name),
                apply_to: shown(&apply_to),
            });
            continue;
        }
        let Some(pattern) = Pattern::parse(text("pattern")) else {
            notes.push(Note::PolicyPatternTooComplex {
                policy: shown(&name),
                pattern: shown(text("pattern")),
            });
            continue;
        };
        let definition = p.get("definition").and_then(Value::as_object);
        let mut settings = Settings::default();
        for (key, value) in definition.into_iter().flatten() {
            if !settings.read(key, value, Item::Policy, &name, notes) {
                notes.push(Note::PolicyKeyIgnored {
                    policy: shown(&name),
                    key: shown(key),
                });
            }
        }
        let priority = p.get("priority").and_then(Value::as_i64).unwrap_or(0);
        policies.push(Policy {
            pattern,
            apply_to,
            priority,
            settings,
        });
    }
    Ok(policies)
}

/// The policy RabbitMQ applies to a queue: the matching one of highest priority.
fn policy_for<'a>(policies: &'a [Policy], queue: &str, kind: QueueType) -> Option<&'a Policy> {
    let fits = |p: &&Policy| match p.apply_to.as_str() {
        "classic_queues" => kind == QueueType::Classic,
        "quorum_queues" => kind == QueueType::Quorum,
        _ => true,
    };
    policies
        .iter()
        .filter(fits)
        .filter(|p| p.pattern.matches(queue))
        .max_by_key(|p| p.priority)
}

// ----- queue settings --------------------------------------------------------------------

/// What a queue's arguments or a policy say, in the model's terms.
#[derive(Clone, Debug, Default)]
struct Settings {
    max_length: Option<u64>,
    overflow: Option<String>,
    ttl_ms: Option<u64>,
    delivery_limit: Option<u32>,
    consumer_timeout_ms: Option<u64>,
    dlx: Option<String>,
    dlx_key: Option<String>,
}

impl Settings {
    /// Reads one key (without its `x-` prefix); false if the model has no place for it.
    /// A value the model cannot take is noted and left out.
    fn read(
        &mut self,
        key: &str,
        value: &Value,
        item: Item,
        name: &str,
        notes: &mut Notes,
    ) -> bool {
        let bad = |notes: &mut Notes| {
            notes.push(Note::ValueIgnored {
                item,
                name: shown(name),
                setting: shown(key),
                value: shown(&value.to_string()),
            })
        };
        let count = value.as_u64();
        match key.trim_start_matches("x-") {
            "max-length" => match count.filter(|n| (1..=limits::MESSAGES_MAX).contains(n)) {
                Some(n) => self.max_length = Some(n),
                None => bad(notes),
            },
            "overflow" => match value.as_str() {
                Some(s @ ("drop-head" | "reject-publish" | "reject-publish-dlx")) => {
                    self.overflow = Some(s.to_string())
                }
                _ => bad(notes),
            },
            "message-ttl" => match count.filter(|&n| n >= 1) {
                Some(n) => self.ttl_ms = Some(n.min(limits::TIME_S_MAX as u64 * 1000)),
                None => bad(notes),
            },
            "delivery-limit" => {
                match count.filter(|&n| (1..=u64::from(limits::ATTEMPTS_MAX)).contains(&n)) {
                    Some(n) => self.delivery_limit = Some(n as u32),
                    None => bad(notes),
                }
            }
            "consumer-timeout" => match count.filter(|&n| n >= 1) {
                Some(n) => self.consumer_timeout_ms = Some(n.min(limits::TIME_S_MAX as u64 * 1000)),
                None => bad(notes),
            },
            "dead-letter-exchange" => match value.as_str() {
                Some(s) => self.dlx = Some(s.to_string()),
                None => bad(notes),
            },
            "dead-letter-routing-key" => match value.as_str() {
                Some(s) => self.dlx_key = Some(s.to_string()),
                None => bad(notes),
            },
            _ => return false,
        }
        true
    }

    /// Arguments (`self`) over a policy: the lower bound of the two, the argument's
    /// dead-letter exchange and overflow.
    fn over(self, policy: &Settings) -> Settings {
        let low = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        Settings {
            max_length: low(self.max_length, policy.max_length),
            overflow: self.overflow.or_else(|| policy.overflow.clone()),
            ttl_ms: low(self.ttl_ms, policy.ttl_ms),
            delivery_limit: low(
                self.delivery_limit.map(u64::from),
                policy.delivery_limit.map(u64::from),
            )
            .map(|n| n as u32),
            consumer_timeout_ms: low(self.consumer_timeout_ms, policy.consumer_timeout_ms),
            dlx: self.dlx.or_else(|| policy.dlx.clone()),
            dlx_key: self.dlx_key.or_else(|| policy.dlx_key.clone()),
        }
    }
}

// ----- queues ----------------------------------------------------------------------------

/// Queue arguments that are settings the model has no place for, but are worth naming.
fn queue_type_of(args: Option<&Map<String, Value>>) -> Option<&str> {
    args.and_then(|a| a.get("x-queue-type"))
        .and_then(Value::as_str)
}

fn read_queues(
    items: &[Value],
    vhost: &str,
    policies: &[Policy],
    notes: &mut Notes,
) -> Result<Vec<QueueSpec>, ImportError> {
    let mut queues = Vec::new();
    for (i, q) in items.iter().enumerate() {
        let name = name_of(q, "queues", i)?;
        if !in_vhost(q, vhost, Item::Queue, &name, notes) {
            continue;
        }
        if queues.len() == limits::QUEUES_MAX {
            notes.push(Note::TooMany {
                item: Item::Queue,
                kept: limits::QUEUES_MAX,
                dropped: items.len() - i,
            });
            break;
        }
        if !name_fits(&name, Item::Queue, notes) {
            continue;
        }
        if let Some(spec) = read_queue(q, name, policies, notes) {
            queues.push(spec);
        }
    }
    Ok(queues)
}

/// One queue, or `None` for a stream queue.
fn read_queue(
    q: &Value,
    name: String,
    policies: &[Policy],
    notes: &mut Notes,
) -> Option<QueueSpec> {
    let args = q.get("arguments").and_then(Value::as_object);
    let kind = match queue_type_of(args) {
        Some("quorum") => QueueType::Quorum,
        Some("stream") => {
            notes.push(Note::StreamQueueIgnored {
                queue: shown(&name),
            });
            return None;
        }
        _ => QueueType::Classic,
    };
    let mut own = Settings::default();
    for (key, value) in args.into_iter().flatten() {
        if key != "x-queue-type" && !own.read(key, value, Item::Queue, &name, notes) {
            notes.push(Note::SettingIgnored {
                item: Item::Queue,
                name: shown(&name),
                setting: shown(key),
            });
        }
    }
    for flag in ["auto_delete", "exclusive"] {
        if q.get(flag).and_then(Value::as_bool) == Some(true) {
            notes.push(Note::SettingIgnored {
                item: Item::Queue,
                name: shown(&name),
                setting: flag.into(),
            });
        }
    }
    let settings = match policy_for(policies, &name, kind) {
        Some(p) => own.over(&p.settings),
        None => own,
    };
    let durable = q.get("durable").and_then(Value::as_bool).unwrap_or(true);
    Some(queue_spec(name, kind, durable, settings, notes))
}

fn queue_spec(
    name: String,
    kind: QueueType,
    durable: bool,
    s: Settings,
    notes: &mut Notes,
) -> QueueSpec {
    // RabbitMQ has no lease: a delivery stays with its consumer until its consumer
    // timeout (`consumer_timeout_s`). The visibility timeout, unused while the queue
    // follows RabbitMQ, is written as long, should its flavour be switched.
    let mut q = QueueSpec::new(&name, flavour_defaults::RABBITMQ_CONSUMER_TIMEOUT_S);
    q.flavour = Flavour::Rabbitmq;
    q.queue_type = kind;
    q.durable = durable || kind == QueueType::Quorum;
    q.max_length = s.max_length;
    // drop-head is RabbitMQ's default overflow (the flavour's too), written all the same
    // so the imported file says what the queue does.
    q.overflow = Some(match s.overflow.as_deref() {
        Some("reject-publish") => Overflow::Reject,
        Some("reject-publish-dlx") => {
            notes.push(Note::RejectPublishDlxAsReject {
                queue: shown(&name),
            });
            Overflow::Reject
        }
        _ => Overflow::DropOldest,
    });
    q.ttl_s = s.ttl_ms.map(|ms| ms as f64 / 1000.0);
    q.consumer_timeout_s = s.consumer_timeout_ms.map(|ms| ms as f64 / 1000.0);
    if let Some(limit) = s.delivery_limit {
        if kind == QueueType::Quorum {
            q.delivery_limit = Some(limit);
        } else {
            notes.push(Note::DeliveryLimitOnClassic {
                queue: shown(&name),
            });
        }
    }
    // Without a dead-letter exchange RabbitMQ discards what it would dead-letter.
    q.dead_letter = s.dlx.is_some();
    if let Some(exchange) = s.dlx {
        notes.push(Note::DeadLetterKeptInQueue {
            queue: shown(&name),
            exchange: shown(&exchange),
            routing_key: s.dlx_key.map(|k| shown(&k)),
        });
    }
    q
}

// ----- exchanges and bindings ------------------------------------------------------------

/// Exchanges with their bindings, and the names of exchanges used as dead-letter
/// exchanges (they get no producer: only dead letters would reach them).
fn read_exchanges(
    doc: &Map<String, Value>,
    vhost: &str,
    queues: &[QueueSpec],
    notes: &mut Notes,
) -> Result<(Vec<ExchangeSpec>, Vec<String>), ImportError> {
    let mut exchanges: Vec<(String, ExchangeSpec)> = Vec::new();
    let items = list(doc, "exchanges")?;
    for (i, x) in items.iter().enumerate() {
        let name = name_of(x, "exchanges", i)?;
        if name.is_empty() || !in_vhost(x, vhost, Item::Exchange, &name, notes) {
            continue;
        }
        if exchanges.len() == limits::EXCHANGES_MAX {
            notes.push(Note::TooMany {
                item: Item::Exchange,
                kept: limits::EXCHANGES_MAX,
                dropped: items.len() - i,
            });
            break;
        }
        if !name_fits(&name, Item::Exchange, notes) {
            continue;
        }
        if let Some(spec) = read_exchange(x, &name, queues, notes) {
            exchanges.push((name, spec));
        }
    }
    read_bindings(list(doc, "bindings")?, vhost, &mut exchanges, queues, notes)?;
    // Dead-letter exchanges by the name the model gives them.
    let dlx = dead_letter_exchanges(doc)
        .iter()
        .filter_map(|d| exchanges.iter().find(|(n, _)| n == d))
        .map(|(_, x)| x.name.clone())
        .collect();
    Ok((exchanges.into_iter().map(|(_, x)| x).collect(), dlx))
}

fn read_exchange(
    x: &Value,
    name: &str,
    queues: &[QueueSpec],
    notes: &mut Notes,
) -> Option<ExchangeSpec> {
    let kind_text = x.get("type").and_then(Value::as_str).unwrap_or("direct");
    let kind = match kind_text {
        "direct" => ExchangeKind::Direct,
        "fanout" => ExchangeKind::Fanout,
        "topic" => ExchangeKind::Topic,
        other => {
            notes.push(Note::ExchangeTypeIgnored {
                exchange: shown(name),
                kind: shown(other),
            });
            return None;
        }
    };
    let args = x.get("arguments").and_then(Value::as_object);
    for key in args.into_iter().flatten().map(|(k, _)| k) {
        notes.push(Note::SettingIgnored {
            item: Item::Exchange,
            name: shown(name),
            setting: shown(key),
        });
    }
    for flag in ["auto_delete", "internal"] {
        if x.get(flag).and_then(Value::as_bool) == Some(true) {
            notes.push(Note::SettingIgnored {
                item: Item::Exchange,
                name: shown(name),
                setting: flag.into(),
            });
        }
    }
    let mut model_name = name.to_string();
    if queues.iter().any(|q| q.name == name) {
        model_name = format!("{name} (exchange)");
        notes.push(Note::ExchangeRenamed {
            exchange: shown(name),
            now: shown(&model_name),
        });
    }
    Some(ExchangeSpec {
        name: model_name,
        kind,
        bindings: Vec::new(),
        publishers: Vec::new(),
    })
}

fn read_bindings(
    items: &[Value],
    vhost: &str,
    exchanges: &mut [(String, ExchangeSpec)],
    queues: &[QueueSpec],
    notes: &mut Notes,
) -> Result<(), ImportError> {
    for (i, b) in items.iter().enumerate() {
        let field = |k: &str| b.get(k).and_then(Value::as_str).unwrap_or("");
        let (source, destination) = (field("source"), field("destination"));
        if b.get("destination").and_then(Value::as_str).is_none() {
            return Err(shape(
                &format!("bindings[{i}].destination"),
                ShapeProblem::MissingText,
            ));
        }
        // The default exchange's implicit bindings are not exported; skip any that are.
        if source.is_empty() || !in_vhost(b, vhost, Item::Binding, destination, notes) {
            continue;
        }
        let pair = || (shown(source), shown(destination));
        if field("destination_type") == "exchange" {
            let (source, destination) = pair();
            notes.push(Note::ExchangeBindingIgnored {
                source,
                destination,
            });
            continue;
        }
        let exchange = exchanges.iter_mut().find(|(n, _)| n == source);
        let (Some((_, x)), true) = (exchange, queues.iter().any(|q| q.name == destination)) else {
            let (source, destination) = pair();
            notes.push(Note::BindingIgnored {
                source,
                destination,
            });
            continue;
        };
        if b.get("arguments")
            .and_then(Value::as_object)
            .is_some_and(|a| !a.is_empty())
        {
            let (source, destination) = pair();
            notes.push(Note::BindingArgumentsIgnored {
                source,
                destination,
            });
        }
        if x.bindings.len() == limits::BINDINGS_MAX {
            notes.push(Note::TooMany {
                item: Item::Binding,
                kept: limits::BINDINGS_MAX,
                dropped: 1,
            });
            continue;
        }
        x.bindings.push(Binding {
            queue: destination.to_string(),
            key: field("routing_key")
                .chars()
                .take(limits::NAME_LEN_MAX * 4)
                .collect(),
        });
    }
    Ok(())
}

/// Names of exchanges some queue dead-letters to (by argument or policy).
fn dead_letter_exchanges(doc: &Map<String, Value>) -> Vec<String> {
    let from_queues = doc
        .get("queues")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|q| q.pointer("/arguments/x-dead-letter-exchange"));
    let from_policies = doc
        .get("policies")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| p.pointer("/definition/dead-letter-exchange"));
    from_queues
        .chain(from_policies)
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

// ----- traffic ---------------------------------------------------------------------------

/// The scenario: the imported topology, a producer per exchange that is not a
/// dead-letter exchange (or per queue no such exchange feeds), a consumer per queue.
fn build(
    queues: Vec<QueueSpec>,
    exchanges: Vec<ExchangeSpec>,
    dlx: &[String],
    notes: &mut Notes,
) -> Scenario {
    let mut producers = Vec::new();
    let fed: Vec<&ExchangeSpec> = exchanges
        .iter()
        .filter(|x| !x.bindings.is_empty() && !dlx.contains(&x.name))
        .collect();
    for x in &fed {
        producers.push(producer(&x.name, routing_keys(x)));
    }
    let bound = |q: &QueueSpec| {
        exchanges
            .iter()
            .any(|x| x.bindings.iter().any(|b| b.queue == q.name))
    };
    for q in queues.iter().filter(|q| !bound(q)) {
        producers.push(producer(&q.name, Vec::new()));
    }
    if producers.is_empty() {
        producers.push(producer(&queues[0].name, Vec::new()));
    }
    producers.truncate(limits::PRODUCERS_MAX);
    for p in &producers {
        notes.push(Note::ProducerAssumed {
            target: shown(&p.target),
            rate_per_s: PRODUCER_RATE_PER_S,
            count: PRODUCER_COUNT,
        });
    }
    notes.push(Note::ConsumersAssumed {
        queues: queues.len(),
        service_s: CONSUMER_SERVICE_S,
        prefetch: CONSUMER_PREFETCH,
    });
    let consumers = queues.iter().map(|q| consumer(&q.name)).collect();
    Scenario {
        version: SCENARIO_VERSION,
        name: "rabbitmq-import".into(),
        description: description(crate::lang::Lang::En).into(),
        seed: 1,
        producers,
        queues,
        exchanges,
        consumers,
        logs: Vec::new(),
        groups: Vec::new(),
        broker: Default::default(),
        commands: Vec::new(),
        interventions: Vec::new(),
        sample_every_s: 1.0,
        end_s: None,
        random_streams: Default::default(),
        dependencies: Vec::new(),
        mode: Default::default(),
    }
}

/// Keys a producer uses in turn so every binding gets traffic: binding keys, with topic
/// wildcards replaced by a word.
fn routing_keys(x: &ExchangeSpec) -> Vec<String> {
    if x.kind == ExchangeKind::Fanout {
        return Vec::new();
    }
    let mut keys: Vec<String> = Vec::new();
    for b in &x.bindings {
        let key = b
            .key
            .split('.')
            .map(|w| if w == "*" || w == "#" { "any" } else { w })
            .collect::<Vec<_>>()
            .join(".");
        if !keys.contains(&key) && keys.len() < limits::ROUTING_KEYS_MAX {
            keys.push(key);
        }
    }
    keys
}

fn producer(target: &str, routing_keys: Vec<String>) -> ProducerSpec {
    ProducerSpec {
        name: String::new(),
        arrivals: Arrivals::steady(ArrivalProcess::Constant, PRODUCER_RATE_PER_S),
        count: Some(PRODUCER_COUNT),
        target: target.to_string(),
        routing_keys,
        payload: Default::default(),
        script: Vec::new(),
        publish: Default::default(),
        handoff: Default::default(),
    }
}

fn consumer(queue: &str) -> ConsumerSpec {
    ConsumerSpec {
        name: String::new(),
        calls: String::new(),
        queue: queue.to_string(),
        replicas: 1,
        service: ServiceTime::Fixed {
            seconds: CONSUMER_SERVICE_S,
        },
        concurrency: 1,
        prefetch: CONSUMER_PREFETCH,
        ack: AckMode::AfterCommit,
        batch_size: 1,
        batch_atomic: false,
        idempotency: Default::default(),
        inbox_key: Default::default(),
        trusts_the_broker: false,
        max_message_age_s: None,
        ordering: Default::default(),
        failures: Default::default(),
        retry: Default::default(),
        extend_visibility: false,
        gap_timeout_s: None,
        on_gap_timeout: Default::default(),
        sends_email: false,
    }
}
