//! The accounting invariant: every published message is in exactly one fate, the
//! structures that hold messages agree with those fates, and the counters agree with
//! both. Recounted from scratch, so it cannot pass by trusting the counters it checks.

use crate::message::Fate;
use crate::sim::Simulation;

/// Returns a description of the first broken property, if any.
pub fn check(sim: &Simulation) -> Result<(), String> {
    let messages = sim.messages();
    let c = sim.counters();
    let (mut waiting, mut in_flight, mut done, mut lost) = (0u64, 0u64, 0u64, 0u64);
    for m in messages {
        match m.fate {
            Fate::Waiting => waiting += 1,
            Fate::InFlight => in_flight += 1,
            Fate::Done => done += 1,
            Fate::Lost => lost += 1,
        }
    }
    let published = messages.len() as u64;
    if c.published != published {
        return Err(format!(
            "published counter {} but {published} message records",
            c.published
        ));
    }
    if waiting + in_flight + done + lost != published {
        return Err(format!(
            "fates {waiting}+{in_flight}+{done}+{lost} do not add up to {published} published"
        ));
    }
    let queue = sim.queue_raw();
    if queue.len() as u64 != waiting {
        return Err(format!(
            "queue holds {} ids but {waiting} messages are waiting",
            queue.len()
        ));
    }
    for (i, &id) in queue.iter().enumerate() {
        if messages[id as usize].fate != Fate::Waiting {
            return Err(format!(
                "message {id} is in the queue but its fate is {:?}",
                messages[id as usize].fate
            ));
        }
        if i > 0 && queue[i - 1] >= id {
            return Err(format!(
                "queue is not in publish order (or holds {id} twice)"
            ));
        }
    }
    if sim.in_flight() != in_flight {
        return Err(format!(
            "in-flight counter {} but {in_flight} messages in flight",
            sim.in_flight()
        ));
    }
    if c.done != done || c.lost != lost {
        return Err(format!(
            "done/lost counters {}/{} but fates say {done}/{lost}",
            c.done, c.lost
        ));
    }
    let effects = sim.effects();
    let applied: u64 = effects.iter().map(|&e| u64::from(e)).sum();
    let duplicates: u64 = effects
        .iter()
        .map(|&e| u64::from(e.saturating_sub(1)))
        .sum();
    if applied != c.effects_applied || duplicates != c.duplicate_effects {
        return Err(format!(
            "effects table says {applied} applied / {duplicates} duplicates, counters say {} / {}",
            c.effects_applied, c.duplicate_effects
        ));
    }
    for (id, m) in messages.iter().enumerate() {
        if m.fate == Fate::Done && effects[id] == 0 {
            return Err(format!(
                "message {id} is done but its effect was never applied"
            ));
        }
        if m.fate == Fate::Lost && !m.settled_at_broker {
            return Err(format!(
                "message {id} is lost although the broker still owned it"
            ));
        }
    }
    if c.redelivered > c.delivered || c.acked > published {
        return Err("more redeliveries than deliveries, or more acks than messages".into());
    }
    for (i, consumer) in sim.consumers_raw().iter().enumerate() {
        if consumer.held() > consumer.prefetch
            || consumer.working.len() as u32 > consumer.concurrency
        {
            return Err(format!(
                "consumer {i} holds more than its prefetch or concurrency allows"
            ));
        }
        if !consumer.up && consumer.held() > 0 {
            return Err(format!("consumer {i} is down but still holds messages"));
        }
        for &(id, _) in consumer.working.iter().chain(consumer.buffer.iter()) {
            let fate = messages[id as usize].fate;
            if fate == Fate::Lost {
                return Err(format!(
                    "consumer {i} holds message {id}, which is counted as lost"
                ));
            }
        }
    }
    Ok(())
}
