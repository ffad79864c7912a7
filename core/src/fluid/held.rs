//! What the fluid model cannot see: how long a consumer holds a copy it was handed. The
//! model serves a queue at its consumers' rate and never looks at one delivery, so a
//! lease that runs out while the work is still under way (a redelivery, then a
//! duplicate effect) or RabbitMQ pushing a whole backlog to a consumer that acks on
//! delivery (all of it lost if that consumer crashes) would be left out without a word.
//! [`check`] finds those scenarios, so they run message by message.

use crate::scenario::{
    flavour_defaults, AckMode, Command, ConsumerSpec, Flavour, QueueSpec, Scenario, ServiceTime,
};

/// How many mean service times an exponential one may last before the chance of it is
/// negligible: e^-15 ≈ 3 × 10^-7 per delivery, under one redelivery in a million
/// messages. A fixed service time lasts exactly its mean.
const EXPONENTIAL_TAIL: f64 = 15.0;

/// The first thing about holding a copy that the aggregated mode would get wrong in `s`:
/// the field at fault and what it is, in the words of [`super::supports`]' refusal.
pub(super) fn check(s: &Scenario) -> Option<(String, &'static str)> {
    for (i, spec) in s.consumers.iter().enumerate() {
        let q = s.queue_of(spec);
        let queue = &s.queues[q];
        let acks = ack_modes(s, spec, &queue.name);
        if queue.flavour == Flavour::Rabbitmq && acks.contains(&AckMode::OnDelivery) {
            return Some((
                format!("consumers[{i}].ack"),
                "RabbitMQ's automatic acknowledgement, which pushes every waiting message to the consumer at once",
            ));
        }
        let leased = acks.contains(&AckMode::AfterCommit) && !spec.extend_visibility;
        let hold = longest_hold_s(s, spec, &queue.name);
        let Some(field) = deadlines(s, queue).find(|&(_, seconds)| leased && hold >= seconds)
        else {
            continue;
        };
        return Some((
            format!("queues[{q}].{}", field.0),
            "a lease that can run out while the consumer still holds the message (redeliveries of work under way)",
        ));
    }
    None
}

/// The shortest deadline on a delivery `queue` sets over the run, per field: its visibility
/// timeout where it follows a flavour with leases, its consumer timeout where it follows
/// RabbitMQ (both when a command switches its flavour).
fn deadlines<'a>(
    s: &'a Scenario,
    queue: &'a QueueSpec,
) -> impl Iterator<Item = (&'static str, f64)> + 'a {
    let switches = s
        .commands
        .iter()
        .any(|c| matches!(&c.command, Command::SetFlavour { queue: q, .. } if *q == queue.name));
    let rabbitmq = queue.flavour == Flavour::Rabbitmq;
    let lease = (switches || !rabbitmq).then(|| {
        let initial = queue.visibility_timeout_s;
        (
            "visibility_timeout_s",
            shortest(s, &queue.name, initial, false),
        )
    });
    let timeout = (switches || rabbitmq).then(|| {
        let initial = queue
            .consumer_timeout_s
            .unwrap_or(flavour_defaults::RABBITMQ_CONSUMER_TIMEOUT_S);
        (
            "consumer_timeout_s",
            shortest(s, &queue.name, initial, true),
        )
    });
    lease.into_iter().chain(timeout)
}

/// Every ack mode `spec`'s consumers use over the run (its own, then any the schedule sets).
fn ack_modes(s: &Scenario, spec: &ConsumerSpec, queue: &str) -> Vec<AckMode> {
    let mut modes = vec![spec.ack];
    for c in &s.commands {
        if let Command::SetAckMode { queue: q, ack } = &c.command {
            if q == queue {
                modes.push(*ack);
            }
        }
    }
    modes
}

/// The shortest visibility timeout (or, with `consumer_timeout`, consumer timeout) `queue`
/// has over the run.
fn shortest(s: &Scenario, queue: &str, initial: f64, consumer_timeout: bool) -> f64 {
    s.commands
        .iter()
        .filter_map(|c| match &c.command {
            Command::SetVisibilityTimeout { queue: q, seconds } if !consumer_timeout => {
                (q == queue).then_some(*seconds)
            }
            Command::SetConsumerTimeout { queue: q, seconds } if consumer_timeout => {
                (q == queue).then_some(*seconds)
            }
            _ => None,
        })
        .fold(initial, f64::min)
}

/// About the longest a consumer of `spec` holds a copy, from delivery to ack: the copies
/// ahead of it in its prefetch buffer and its own work, each at the slowest service time
/// the schedule sets (and the largest slow-down), with an exponential time's tail.
fn longest_hold_s(s: &Scenario, spec: &ConsumerSpec, queue: &str) -> f64 {
    let mut services = vec![spec.service];
    let mut prefetch = spec.prefetch;
    let mut slow: f64 = 1.0;
    for c in &s.commands {
        match &c.command {
            Command::SetServiceTime { queue: q, service } if q == queue => services.push(*service),
            Command::SetPrefetch {
                queue: q,
                prefetch: p,
            } if q == queue => prefetch = prefetch.max(*p),
            Command::SlowConsumer { factor, .. } => slow = slow.max(*factor),
            _ => {}
        }
    }
    let per_copy = services.iter().map(tail_s).fold(0.0, f64::max) * slow;
    // `prefetch` copies in hand (buffered and under way), worked on `concurrency` at a
    // time; a batch holds each of its copies for the whole batch.
    let (in_hand, slots) = (f64::from(prefetch), f64::from(spec.concurrency.max(1)));
    let batch = f64::from(spec.batch_size.max(1));
    per_copy * (in_hand / slots).max(batch)
}

/// A service time no delivery exceeds in practice.
fn tail_s(service: &ServiceTime) -> f64 {
    match *service {
        ServiceTime::Fixed { seconds } => seconds,
        ServiceTime::Exponential { mean_s } => EXPONENTIAL_TAIL * mean_s,
    }
}
