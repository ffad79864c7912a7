//! A short description of a Kafka setup, as a scenario with partitioned logs and
//! consumer groups. The format is Broker Lab's own (Kafka has no single export of
//! topics, groups and producers together), a JSON object:
//!
//! ```json
//! {
//!   "topics": [{ "name": "orders", "partitions": 6, "replication_factor": 3,
//!                "retention_ms": 604800000 }],
//!   "groups": [{ "name": "billing", "topic": "orders", "members": 3,
//!                "commit": "auto", "auto_commit_interval_ms": 5000,
//!                "processing_ms": 20, "assignor": "range", "rebalance": "cooperative" }],
//!   "producers": [{ "topic": "orders", "rate_per_s": 50, "count": 1000,
//!                   "keys": 100, "key_distribution": "hot", "hot_key_share": 0.3,
//!                   "acks": "all", "enable_idempotence": true, "delivery_timeout_ms": 120000 }]
//! }
//! ```
//!
//! `commit` is `auto` (the offset is committed every `auto_commit_interval_ms`, Kafka's
//! default 5,000) or `manual` (after processing). A group's `session_timeout_ms` (Kafka's
//! default 45,000) is how long a member that crashes keeps its partitions, and its
//! `max_poll_interval_ms` (Kafka's default 300,000) how long a member may take over a
//! record before it leaves the group; its `auto_offset_reset` (`earliest` or `latest`,
//! Kafka's default) where a member goes on when retention removed its position.
//! `key_distribution` is `uniform`
//! (default) or `hot` (key 0 takes `hot_key_share` of the records); `keys: 0` sends
//! records without a key, spread over partitions. A producer's `acks` (`all`, Kafka's
//! default, `1` or `0`), `enable_idempotence` (default true with `acks=all`) and
//! `delivery_timeout_ms` (default 120,000) become confirms, idempotence and a send
//! again once a second until the delivery timeout (with `acks=0`, how long the buffer
//! keeps a record through an outage); `acks=1` is noted, replication not
//! being modelled. Replication settings are accepted and noted as not modelled. A topic without a group gets one with a member per partition;
//! a description without producers gets one per topic. Unknown fields are errors.

use std::collections::HashSet;

use serde::Deserialize;

use super::{parse_json, shown, ImportError, Imported, Note, Notes, ShapeProblem};
use crate::scenario::{
    limits, ArrivalProcess, Arrivals, Assignment, CommitMode, GroupSpec, LogSpec, OffsetReset,
    PartitionKey, PayloadSpec, ProducerSpec, PublishSpec, Rebalance, Scenario, ServiceTime,
    SCENARIO_VERSION,
};

/// Kafka's default `auto.commit.interval.ms`.
pub const AUTO_COMMIT_INTERVAL_MS: u64 = 5_000;
/// Kafka's default `session.timeout.ms` since 3.0 (KIP-735): how long a member that
/// dies without leaving keeps its partitions.
pub const SESSION_TIMEOUT_MS: u64 = 45_000;
/// Kafka's default `max.poll.interval.ms`: how long a member may go without polling.
pub const MAX_POLL_INTERVAL_MS: u64 = 300_000;
/// Kafka's default `delivery.timeout.ms`: how long a producer keeps retrying a record.
pub const DELIVERY_TIMEOUT_MS: u64 = 120_000;
/// How often the lab's producer sends a record again while it has no acknowledgement
/// (a Kafka producer's retries back off up to about a second).
const RETRY_EVERY_S: f64 = 1.0;
/// Defaults of what the description leaves out.
pub const PROCESSING_MS: f64 = 10.0;
pub const PRODUCER_RATE_PER_S: f64 = 20.0;
pub const PRODUCER_COUNT: u64 = 500;
pub const PRODUCER_KEYS: u32 = 16;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Description {
    topics: Vec<Topic>,
    #[serde(default)]
    groups: Vec<Group>,
    #[serde(default)]
    producers: Vec<Producer>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Topic {
    name: String,
    partitions: u32,
    #[serde(default)]
    retention_ms: Option<u64>,
    #[serde(default)]
    replication_factor: Option<u32>,
    #[serde(default)]
    min_insync_replicas: Option<u32>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum Commit {
    Auto,
    Manual,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Group {
    name: String,
    topic: String,
    members: u32,
    commit: Commit,
    #[serde(default)]
    auto_commit_interval_ms: Option<u64>,
    #[serde(default)]
    processing_ms: Option<f64>,
    #[serde(default)]
    assignor: Option<Assignment>,
    #[serde(default)]
    rebalance: Option<Rebalance>,
    #[serde(default)]
    session_timeout_ms: Option<u64>,
    #[serde(default)]
    max_poll_interval_ms: Option<u64>,
    #[serde(default)]
    auto_offset_reset: Option<OffsetReset>,
}

#[derive(Deserialize, Default, PartialEq)]
#[serde(rename_all = "snake_case")]
enum KeyDistribution {
    #[default]
    Uniform,
    Hot,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Producer {
    topic: String,
    rate_per_s: f64,
    count: u64,
    #[serde(default)]
    keys: u32,
    #[serde(default)]
    key_distribution: KeyDistribution,
    #[serde(default)]
    hot_key_share: Option<f64>,
    #[serde(default)]
    acks: Option<serde_json::Value>,
    #[serde(default)]
    enable_idempotence: Option<bool>,
    #[serde(default)]
    delivery_timeout_ms: Option<u64>,
}

/// A producer's `acks`: 0 (no acknowledgement), 1 (the leader's) or all (`-1`).
#[derive(Clone, Copy, PartialEq)]
enum Acks {
    Zero,
    One,
    All,
}

impl Acks {
    /// Kafka's default (`all` since 3.0) when left out; `None` for a value Kafka refuses.
    fn of(value: Option<&serde_json::Value>) -> Option<Acks> {
        use serde_json::Value;
        match value {
            None => Some(Acks::All),
            Some(Value::String(s)) => match s.as_str() {
                "0" => Some(Acks::Zero),
                "1" => Some(Acks::One),
                "all" | "-1" => Some(Acks::All),
                _ => None,
            },
            Some(Value::Number(n)) => match n.as_i64() {
                Some(0) => Some(Acks::Zero),
                Some(1) => Some(Acks::One),
                Some(-1) => Some(Acks::All),
                _ => None,
            },
            Some(_) => None,
        }
    }
}

/// The description an imported scenario gets, in `lang` (the page writes it in its own).
pub fn description(lang: crate::lang::Lang) -> &'static str {
    crate::lang::Text::new(
        "Imported from a Kafka description.",
        "Importado de una descripción de Kafka.",
    )
    .get(lang)
}

/// Imports a Kafka description.
pub fn import(bytes: &[u8]) -> Result<Imported, ImportError> {
    let value = parse_json(bytes)?;
    let not_an_object = || ImportError::Shape {
        at: String::new(),
        problem: ShapeProblem::NotAnObject,
    };
    if !value.is_object() {
        // serde would read a list as the description's fields in order ("invalid type:
        // integer `1`, expected a sequence"): a description is an object.
        return Err(not_an_object());
    }
    let d: Description = crate::decode::decode(value.clone()).map_err(|detail| {
        // Where it fails ("topics[0]"), as a scenario file's refusal names its field.
        let at = crate::decode::failing_path::<Description>(&value, &detail);
        ImportError::Shape {
            at,
            problem: ShapeProblem::Invalid { detail },
        }
    })?;
    if d.topics.is_empty() {
        return Err(ImportError::Empty { left_out: vec![] });
    }
    let mut notes = Notes::default();
    let producers = producers(&d, &mut notes);
    let logs = logs(&d, &producers, &mut notes);
    let groups = groups(&d, &mut notes);
    let scenario = Scenario {
        version: SCENARIO_VERSION,
        name: "kafka-import".into(),
        description: description(crate::lang::Lang::En).into(),
        seed: 1,
        producers,
        queues: Vec::new(),
        exchanges: Vec::new(),
        consumers: Vec::new(),
        logs,
        groups,
        broker: Default::default(),
        commands: Vec::new(),
        interventions: Vec::new(),
        sample_every_s: 1.0,
        end_s: None,
        random_streams: Default::default(),
        dependencies: Vec::new(),
        mode: Default::default(),
    };
    scenario.validate().map_err(ImportError::Invalid)?;
    Ok(Imported {
        scenario,
        notes: notes.0,
    })
}

fn logs(d: &Description, producers: &[ProducerSpec], notes: &mut Notes) -> Vec<LogSpec> {
    d.topics
        .iter()
        .map(|t| {
            for (setting, given) in [
                ("replication_factor", t.replication_factor.is_some()),
                ("min_insync_replicas", t.min_insync_replicas.is_some()),
            ] {
                if given {
                    notes.push(Note::ReplicationIgnored {
                        topic: shown(&t.name),
                        setting: setting.into(),
                    });
                }
            }
            // Keyless records are spread over partitions; keyed ones go by key.
            let keyless = producers
                .iter()
                .any(|p| p.target == t.name && p.payload.keys == 0);
            if keyless {
                notes.push(Note::KeylessSpread {
                    topic: shown(&t.name),
                });
            }
            LogSpec {
                name: t.name.clone(),
                publishers: Vec::new(),
                partitions: t.partitions,
                retention_s: t.retention_ms.map(|ms| ms as f64 / 1000.0),
                retention_records: None,
                partition_by: if keyless {
                    PartitionKey::MessageId
                } else {
                    PartitionKey::Key
                },
            }
        })
        .collect()
}

fn groups(d: &Description, notes: &mut Notes) -> Vec<GroupSpec> {
    let mut groups: Vec<GroupSpec> = d.groups.iter().map(group).collect();
    for t in &d.topics {
        if !d.groups.iter().any(|g| g.topic == t.name) && groups.len() < limits::GROUPS_MAX {
            let members = t.partitions.min(limits::MEMBERS_MAX);
            notes.push(Note::GroupAssumed {
                topic: shown(&t.name),
                members,
            });
            groups.push(group(&Group {
                name: format!("{}-readers", t.name),
                topic: t.name.clone(),
                members,
                commit: Commit::Manual,
                auto_commit_interval_ms: None,
                processing_ms: None,
                assignor: None,
                rebalance: None,
                session_timeout_ms: None,
                max_poll_interval_ms: None,
                auto_offset_reset: None,
            }));
        }
    }
    unique_group_names(&mut groups, notes);
    groups
}

/// One Kafka group id may read several topics (and a described group may have the name
/// an assumed one gets): here each is a group of its own, and groups are told apart by
/// name, so a later one with a name already taken is renamed "billing (2)", with a note.
fn unique_group_names(groups: &mut [GroupSpec], notes: &mut Notes) {
    let mut avoid: HashSet<String> = groups.iter().map(|g| g.name.clone()).collect();
    let mut taken = HashSet::new();
    for g in groups.iter_mut() {
        if !taken.insert(g.name.clone()) {
            let name = crate::names::fresh(&g.name, &avoid, |n| vec![n.to_string()]);
            notes.push(Note::GroupRenamed {
                group: shown(&g.name),
                topic: shown(&g.log),
                name: shown(&name),
            });
            avoid.insert(name.clone());
            taken.insert(name.clone());
            g.name = name;
        }
    }
}

fn group(g: &Group) -> GroupSpec {
    let commit = match g.commit {
        Commit::Auto => CommitMode::Auto {
            every_s: g.auto_commit_interval_ms.unwrap_or(AUTO_COMMIT_INTERVAL_MS) as f64 / 1000.0,
        },
        Commit::Manual => CommitMode::AfterProcessing,
    };
    GroupSpec {
        name: g.name.clone(),
        log: g.topic.clone(),
        members: g.members,
        service: ServiceTime::Fixed {
            seconds: g.processing_ms.unwrap_or(PROCESSING_MS) / 1000.0,
        },
        commit,
        assignment: g.assignor.unwrap_or_default(),
        rebalance_s: 1.0,
        session_timeout_s: Some(g.session_timeout_ms.unwrap_or(SESSION_TIMEOUT_MS) as f64 / 1000.0),
        transaction_timeout_s: None,
        max_poll_interval_s: Some(
            g.max_poll_interval_ms.unwrap_or(MAX_POLL_INTERVAL_MS) as f64 / 1000.0,
        ),
        idempotency: Default::default(),
        inbox_key: Default::default(),
        output: String::new(),
        transactional: false,
        sends_email: false,
        isolation: Default::default(),
        rebalance: g.rebalance.unwrap_or_default(),
        ordering: Default::default(),
        failures: Default::default(),
        retry: Default::default(),
        dead_letter: String::new(),
        auto_offset_reset: g.auto_offset_reset.unwrap_or(OffsetReset::Latest),
        max_message_age_s: None,
        trusts_the_broker: false,
    }
}

fn producers(d: &Description, notes: &mut Notes) -> Vec<ProducerSpec> {
    let mut out: Vec<ProducerSpec> = d.producers.iter().map(producer).collect();
    // The acknowledgement is modelled (a confirm); what acks=1 leaves to replication is not.
    for p in &d.producers {
        let topic = shown(&p.topic);
        match (Acks::of(p.acks.as_ref()), &p.acks) {
            (Some(Acks::One), _) => notes.push(Note::LeaderAckOnly { topic }),
            (None, Some(value)) => notes.push(Note::AcksRefused {
                topic,
                value: shown(&value.to_string()),
            }),
            _ => {}
        }
    }
    if out.is_empty() {
        for t in d.topics.iter().take(limits::PRODUCERS_MAX) {
            notes.push(Note::ProducerAssumed {
                target: shown(&t.name),
                rate_per_s: PRODUCER_RATE_PER_S,
                count: PRODUCER_COUNT,
            });
            out.push(producer(&Producer {
                topic: t.name.clone(),
                rate_per_s: PRODUCER_RATE_PER_S,
                count: PRODUCER_COUNT,
                keys: PRODUCER_KEYS,
                key_distribution: KeyDistribution::Uniform,
                hot_key_share: None,
                acks: None,
                enable_idempotence: None,
                delivery_timeout_ms: None,
            }));
        }
    }
    out
}

fn producer(p: &Producer) -> ProducerSpec {
    let hot_key_share = match p.key_distribution {
        KeyDistribution::Hot => p.hot_key_share.unwrap_or(0.5),
        KeyDistribution::Uniform => 0.0,
    };
    ProducerSpec {
        name: String::new(),
        arrivals: Arrivals::steady(ArrivalProcess::Poisson, p.rate_per_s),
        count: Some(p.count),
        target: p.topic.clone(),
        routing_keys: Vec::new(),
        payload: PayloadSpec {
            keys: p.keys,
            hot_key_share,
            ..PayloadSpec::default()
        },
        script: Vec::new(),
        publish: publish(p),
        handoff: Default::default(),
    }
}

/// A Kafka producer waits for its acknowledgement (unless `acks=0`) and sends a record
/// again until `delivery.timeout.ms` runs out, through a broker outage too: the lab's
/// confirms, once a second, for as many attempts. With `acks=0` the producer's buffer
/// keeps what it cannot send, as long as the delivery timeout. Idempotence (Kafka's
/// default with `acks=all`) keeps the records' order and drops the broker's duplicates.
fn publish(p: &Producer) -> PublishSpec {
    let acks = Acks::of(p.acks.as_ref()).unwrap_or(Acks::All);
    let timeout_s = p.delivery_timeout_ms.unwrap_or(DELIVERY_TIMEOUT_MS) as f64 / 1000.0;
    let attempts = (timeout_s / RETRY_EVERY_S)
        .floor()
        .clamp(1.0, f64::from(limits::ATTEMPTS_MAX));
    PublishSpec {
        confirms: acks != Acks::Zero,
        confirm_timeout_s: RETRY_EVERY_S,
        max_attempts: attempts as u32,
        idempotent: acks == Acks::All && p.enable_idempotence.unwrap_or(true),
        delivery_timeout_s: timeout_s.max(0.001),
        ..PublishSpec::default()
    }
}
