//! Broker Lab's simulation core: a deterministic discrete-event model of asynchronous
//! messaging (producers → broker → consumers → database), with no web dependency.
//!
//! * [`Scenario`] describes a whole run (serde, versioned, validated).
//! * [`Simulation`] runs it: [`Simulation::step`] takes one step and returns its
//!   [`Fact`]s; [`Simulation::run_until`] and [`Simulation::run`] drive it further.
//! * Time is integer microseconds; the only randomness is one seeded generator with a
//!   platform-independent stream, so the same scenario gives the same run everywhere.

pub mod budget;
pub mod consumer;
pub mod database;
pub mod engine;
pub mod examples;
pub mod hash;
pub mod invariants;
pub mod log;
pub mod message;
pub mod metrics;
pub mod narration;
pub mod producer;
pub mod queue;
pub mod report;
pub mod rng;
pub mod routing;
pub mod scenario;
pub mod sim;
pub mod step;
pub mod text;
pub mod time;

pub use budget::WorkEstimate;
pub use consumer::ConsumerView;
pub use log::PartitionView;
pub use message::{DeadLetter, Fate, Message, MessageCopy, PublishFate};
pub use metrics::{Counters, GroupSample, QueueSample, Sample, Summary};
pub use producer::{JobCounts, OutboxRow};
pub use queue::QueueView;
pub use report::Report;
pub use scenario::{flavour_defaults, Flavour, GapTimeout, QueueType};
pub use scenario::{
    AckMode, ArrivalProcess, Arrivals, Assignment, Binding, BrokerSpec, Budget, CommitMode,
    ConsumerSpec, CrashPoint, ExchangeKind, ExchangeSpec, Failures, Fault, GroupSpec, Handoff,
    Idempotency, Intervention, Isolation, Jitter, LogSpec, MemberCrashPoint, Op, Ordering, Outage,
    Overflow, PayloadSpec, Poison, ProducerCrashPoint, ProducerSpec, PublishSpec, QueueSpec,
    RateSegment, RetryPolicy, Scenario, ScenarioError, ScheduledFault, ScriptedMessage,
    ServiceTime, SCENARIO_VERSION,
};
pub use scenario::{PartitionKey, Rebalance};
pub use sim::{fingerprint, EndReason, MemberView, ProducerView, Simulation};
pub use step::{
    Attempt, ConsumerId, CopyId, Fact, GroupId, LogId, MemberId, MsgId, ProducerId, QueueId,
    Setting, Step, Trigger,
};
pub use time::{secs_to_us, us_to_secs, Micros};
