//! A message's record at the broker and its fate.

use serde::Serialize;

use crate::step::{Attempt, ConsumerId, ProducerId};
use crate::time::Micros;

/// Where a message is. Every published message is in exactly one of these at every
/// instant; the accounting invariant checks it after each step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fate {
    /// In the queue, visible, waiting for a consumer.
    Waiting,
    /// Handed to a consumer and not settled yet (leased, or acked on delivery and still
    /// being processed).
    InFlight,
    /// Its effect committed and the broker is finished with it.
    Done,
    /// Gone without its effect, and nobody will retry it.
    Lost,
}

#[derive(Clone, Debug, Serialize)]
pub struct Message {
    pub producer: ProducerId,
    pub published_us: Micros,
    pub fate: Fate,
    /// Deliveries so far; the newest delivery is attempt number `attempts`.
    pub attempts: Attempt,
    /// Consumer of the newest delivery.
    pub holder: Option<ConsumerId>,
    /// The broker already forgot it (acked on delivery): no lease, no redelivery.
    pub settled_at_broker: bool,
    pub first_delivered_us: Option<Micros>,
    pub done_us: Option<Micros>,
}
