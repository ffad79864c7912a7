//! Memory and speed of the core on the `mm1` example (Poisson arrivals at 0.9/s, one
//! consumer, exponential service of mean 1 s): peak and final heap bytes counted by a
//! global allocator, steps per second of wall time.
//!
//! `cargo run --release -p brokerlab-core --example memory -- MESSAGES [RATE_PER_S]`
//! (RATE_PER_S scales arrivals and service together, so the load stays at 90 %).
//! Prints one line of `key=value` pairs; `.ci/perf-core` reads it.
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use brokerlab_core::{examples, Message, MessageCopy, ServiceTime, Simulation};

/// The system allocator, counting the bytes held now and at most.
struct Counting;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = NOW.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        NOW.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn main() {
    let mut args = std::env::args().skip(1);
    let messages: u64 = args
        .next()
        .map_or(1_000_000, |a| a.parse().expect("a count"));
    let rate: f64 = args.next().map_or(0.9, |a| a.parse().expect("a rate"));
    let mut scenario = examples::load("mm1").expect("mm1 exists");
    scenario.producers[0].count = Some(messages);
    let scale = rate / 0.9;
    for seg in &mut scenario.producers[0].arrivals.schedule {
        seg.rate_per_s *= scale;
    }
    scenario.consumers[0].service = ServiceTime::Exponential {
        mean_s: 1.0 / scale,
    };
    let before = NOW.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let start = std::time::Instant::now();
    let mut sim = Simulation::new(scenario).expect("valid");
    sim.run();
    let wall_s = start.elapsed().as_secs_f64();
    let peak = PEAK.load(Ordering::Relaxed) - before;
    let end = NOW.load(Ordering::Relaxed) - before;
    let summary = sim.summary();
    println!(
        "messages={messages} steps={} wall_s={wall_s:.3} steps_per_s={:.0} peak_bytes={peak} \
         end_bytes={end} peak_bytes_per_message={:.1} mean_wait_s={:.3} p99_latency_s={:.3} \
         message_record_bytes={} copy_record_bytes={}",
        sim.steps(),
        sim.steps() as f64 / wall_s,
        peak as f64 / messages as f64,
        summary.mean_queue_wait_s,
        summary.latency_p99_s,
        // What one live message of this model holds: its record and its one copy's.
        std::mem::size_of::<Option<Message>>(),
        std::mem::size_of::<Option<MessageCopy>>(),
    );
}
