//! Broker Lab's simulation core: a deterministic discrete-event model of asynchronous
//! messaging (producers → broker → consumers → database), with no web dependency.
//!
//! * [`Scenario`] describes a whole run (serde, versioned, validated).
//! * [`Simulation`] runs it: [`Simulation::step`] takes one step and returns its
//!   [`Fact`]s; [`Simulation::run_until`] and [`Simulation::run`] drive it further.
//! * Time is integer microseconds; the only randomness is one seeded generator with a
//!   platform-independent stream, so the same scenario gives the same run everywhere.
//!
//! # Public surface
//!
//! What the page (`src/`), the runner (`core/src/bin/brokerlab.rs`) and the tests use; the
//! rest (engine, queues, logs, producers, consumers, metrics, randomness, hashing,
//! routing) is internal to the crate.
//!
//! * At the root: [`Scenario`] and its parts (specs, [`Command`] commands, limits as
//!   [`scenario::limits`]); [`Simulation`] and its views ([`QueueView`],
//!   [`ConsumerView`], [`ProducerView`], [`MemberView`], [`PartitionView`], [`Message`],
//!   [`MessageCopy`], [`DeadLetter`], [`OutboxRow`], [`JobCounts`]); what it reports
//!   ([`Counters`], [`Sample`], [`Summary`], [`Report`], [`WorkEstimate`], [`EndReason`],
//!   [`fingerprint`]); facts and ids ([`Fact`], [`Step`], [`Setting`], [`Trigger`],
//!   [`MsgId`], [`QueueId`]…); time ([`Micros`], [`secs_to_us`], [`us_to_secs`]).
//! * [`narration::describe`]: a fact in one sentence, in English or Spanish ([`lang::Lang`]).
//! * [`aggregate`]: the aggregated (fluid) mode, for rates beyond what can be simulated
//!   message by message ([`aggregate::run`], [`Scenario::run_mode`]).
//! * [`invariants::check`]: the accounting invariant, recounted from scratch.
//! * [`examples`]: the built-in scenarios by name, with a title, a topic and a description
//!   each, in English and Spanish.
//! * [`lang`]: the two languages, bilingual texts, and numbers written the way each
//!   language writes them.
//! * [`lessons`]: guided lessons over the examples, in English and Spanish (questions,
//!   checkpoints, and figures read from the run).
//! * [`step`]: the reasons facts carry ([`step::LossReason`], [`step::DeadLetterReason`]…).
//! * [`sim::current`]: the settings in force now; [`database`]: the consumers' tables.
//! * [`text`]: untrusted text made safe to print on one line; [`refusal`]: a refused
//!   scenario worded in English or Spanish.
//! * [`compare`]: two runs of one scenario and seed under two configurations, in lockstep.
//! * [`import`]: a RabbitMQ definitions file or a Kafka description as a scenario, with
//!   what was left out or assumed as notes worded in English and Spanish.

pub mod aggregate;
pub mod compare;
pub mod database;
pub mod dependency;
pub mod examples;
pub mod import;
pub mod invariants;
pub mod lang;
pub mod lessons;
pub mod link;
pub mod narration;
pub mod records;
pub mod refusal;
pub mod scenario;
pub mod sim;
pub mod step;
pub mod text;

mod budget;
mod consumer;
mod decode;
mod end_reason;
mod engine;
mod fluid;
mod hash;
mod ids;
mod log;
mod message;
mod metrics;
mod migrate;
mod names;
mod producer;
mod queue;
mod report;
mod rng;
mod routing;
mod time;

pub use budget::WorkEstimate;
pub use consumer::ConsumerView;
pub use dependency::{
    Admission, BreakerSpec, BreakerState, DependencyCounters, DependencyLoad, DependencySample,
    DependencySpec, DependencyView, RetryBudget, Slowdown,
};
pub use log::PartitionView;
pub use message::{
    CopyRare, DeadLetter, Fate, Holder, Message, MessageCopy, PackedOp, PublishFate, Rare,
    RoutingKey, RoutingKeys,
};
pub use metrics::{Counters, FlowSample, GroupSample, QueueSample, Sample, Summary};
pub use producer::{JobCounts, OutboxRow};
pub use queue::QueueView;
pub use report::{series_csv, Report};
pub use scenario::{flavour_defaults, Flavour, GapTimeout, QueueType};
pub use scenario::{
    AckMode, ArrivalProcess, Arrivals, Assignment, Binding, BrokerSpec, Budget, Command,
    CommitMode, ConsumerSpec, CrashPoint, ExchangeKind, ExchangeSpec, Failures, GroupSpec, Handoff,
    Idempotency, InboxKey, Intervention, Isolation, Jitter, LateCommand, LogSpec, MemberCrashPoint,
    Op, Ordering, Outage, Overflow, PayloadSpec, Poison, ProducerCrashPoint, ProducerSpec,
    PublishSpec, QueueSpec, RateSegment, RetryPolicy, RunMode, Scenario, ScenarioError,
    ScheduledCommand, ScriptedMessage, ServiceTime, SCENARIO_VERSION,
};
pub use scenario::{OffsetReset, PartitionKey, RandomStreams, Rebalance};
pub use sim::{fingerprint, EndReason, MemberView, ProducerView, Simulation};
pub use step::{
    Attempt, ConsumerId, CopyId, Fact, GroupId, LogId, MemberId, MsgId, ProducerId, QueueId,
    Setting, Step, Trigger,
};
pub use step::{CallRefusal, DependencyId};
pub use time::{secs_to_us, us_to_secs, Micros, When};
