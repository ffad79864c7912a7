//! Broker Lab's simulation core: a deterministic discrete-event model of asynchronous
//! messaging (producers → broker → consumers → database), with no web dependency.
//!
//! * [`Scenario`] describes a whole run (serde, versioned, validated).
//! * [`Simulation`] runs it: [`Simulation::step`] takes one step and returns its
//!   [`Fact`]s; [`Simulation::run_until`] and [`Simulation::run`] drive it further.
//! * Time is integer microseconds; the only randomness is one seeded generator with a
//!   platform-independent stream, so the same scenario gives the same run everywhere.

pub mod consumer;
pub mod engine;
pub mod examples;
pub mod hash;
pub mod invariants;
pub mod message;
pub mod metrics;
pub mod narration;
pub mod producer;
pub mod report;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod step;
pub mod time;

pub use consumer::ConsumerView;
pub use message::{Fate, Message};
pub use metrics::{Counters, Sample, Summary};
pub use report::Report;
pub use scenario::{
    AckMode, ArrivalProcess, Arrivals, ConsumerSpec, CrashPoint, Fault, Intervention, ProducerSpec,
    QueueSpec, RateSegment, Scenario, ScenarioError, ScheduledFault, ServiceTime, SCENARIO_VERSION,
};
pub use sim::{fingerprint, Simulation};
pub use step::{Attempt, ConsumerId, Fact, MsgId, Step, Trigger};
pub use time::{secs_to_us, us_to_secs, Micros};
