//! Memory and speed of the core on the `mm1` example (Poisson arrivals at 0.9/s, one
//! consumer, exponential service of mean 1 s): peak and final heap bytes counted by a
//! global allocator, steps per second of wall time.
//!
//! `cargo run --release -p brokerlab-core --example memory -- MESSAGES [RATE_PER_S] [backlog]`
//! (RATE_PER_S scales arrivals and service together, so the load stays at 90 %). With
//! `backlog`, nothing finishes: the consumer holds its first message for years and the
//! run ends when every message has arrived, so all of them are live at once and
//! `peak_bytes_per_message` is what a live, waiting message costs. With `drain`, the
//! consumer serves half as fast as messages arrive: a backlog of about half the messages
//! builds up, then drains once the last has arrived (the peak is the backlog's, and
//! the drain must not raise it).
//! Prints one line of `key=value` pairs; `.ci/perf-core` reads it.
use brokerlab_core::{examples, Message, MessageCopy, ServiceTime, Simulation};

#[path = "../tests/counting/mod.rs"]
mod counting;

#[global_allocator]
static ALLOCATOR: counting::Counting = counting::Counting;

fn main() {
    let mut args = std::env::args().skip(1);
    let messages: u64 = args
        .next()
        .map_or(1_000_000, |a| a.parse().expect("a count"));
    let rate: f64 = args.next().map_or(0.9, |a| a.parse().expect("a rate"));
    let mode = args.next();
    let backlog = mode.as_deref() == Some("backlog");
    let drain = mode.as_deref() == Some("drain");
    let mut scenario = examples::load("mm1").expect("mm1 exists");
    scenario.producers[0].count = Some(messages);
    let scale = rate / 0.9;
    for seg in &mut scenario.producers[0].arrivals.schedule {
        seg.rate_per_s *= scale;
    }
    scenario.consumers[0].service = ServiceTime::Exponential {
        mean_s: if backlog {
            3e8
        } else if drain {
            2.0 / scale
        } else {
            1.0 / scale
        },
    };
    if backlog {
        // Nothing finishes: every message stays waiting (one is in service all along).
        scenario.queues[0].visibility_timeout_s = 3e8;
        scenario.end_s = Some(1.05 * messages as f64 / rate);
    }
    let start = std::time::Instant::now();
    let (sim, end, peak) = counting::measure(|| {
        let mut sim = Simulation::new(scenario).expect("valid");
        sim.run();
        sim
    });
    let wall_s = start.elapsed().as_secs_f64();
    let summary = sim.summary();
    println!(
        "messages={messages} steps={} wall_s={wall_s:.3} steps_per_s={:.0} peak_bytes={peak} \
         end_bytes={end} peak_bytes_per_message={:.1} mean_wait_s={:.3} p99_latency_s={:.3} \
         message_record_bytes={} copy_record_bytes={} held_messages={}",
        sim.steps(),
        sim.steps() as f64 / wall_s,
        peak as f64 / messages as f64,
        summary.mean_queue_wait_s,
        summary.latency_p99_s,
        // What one live message of this model holds: its record and its one copy's.
        std::mem::size_of::<Option<Message>>(),
        std::mem::size_of::<Option<MessageCopy>>(),
        sim.messages().held(),
    );
}
