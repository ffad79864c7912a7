//! What a live message costs when a backlog grows: the bytes the run holds for each
//! message that is waiting, not finished, at its end. A backlog is where memory goes in
//! a real run (a burst beyond capacity, consumers down), and what bounds how many
//! messages a page can hold (`limits::HELD_MAX`).
//!
//! One test in this binary, so the counting allocator sees only these runs (tests of
//! one binary run in parallel threads). It counts bytes, not time.

use brokerlab_core::{examples, ArrivalProcess, ServiceTime, Simulation};

mod counting;

#[global_allocator]
static ALLOCATOR: counting::Counting = counting::Counting;

/// Peak heap bytes of a run in which `messages` arrive and none finishes (the one
/// consumer holds the first for years), with the messages held at its end.
fn backlog_of(messages: u64) -> (usize, usize) {
    let mut s = examples::load("mm1").unwrap();
    s.producers[0].count = Some(messages);
    s.producers[0].arrivals.process = ArrivalProcess::Constant;
    s.producers[0].arrivals.schedule[0].rate_per_s = 1_000.0;
    s.consumers[0].service = ServiceTime::Fixed { seconds: 3e8 };
    s.queues[0].visibility_timeout_s = 3e8;
    s.end_s = Some(messages as f64 / 1_000.0 + 1.0);
    let (held, _end, peak) = counting::measure(|| {
        let mut sim = Simulation::new(s).unwrap();
        sim.run();
        sim.messages().held()
    });
    (peak, held)
}

#[test]
fn a_live_message_in_a_growing_backlog_costs_at_most_60_bytes() {
    let (peak_small, held_small) = backlog_of(50_000);
    let (peak_large, held_large) = backlog_of(250_000);
    // Every message is live at the end: none finished, none was released.
    assert_eq!((held_small, held_large), (50_000, 250_000));
    // What each extra live message adds to the peak (the fixed part of a run, its time
    // series and recent window, cancels out). Measured 2026-12-03: 47.7 bytes — its
    // record and its copy's packed (about 36 bytes together: `core/src/records/pack.rs`),
    // their two slots' start offsets (8) and its place in its queue's line (8); the
    // long-lived store keeps no id for a run of consecutive ones. Before packing: 153
    // (the records whole, 64 + 80); 179 while the ring gathered a quarter of the live
    // records between sweeps; 275 with long-lived records in an ordered map, whose
    // nodes are half full when filled in order (and the records 16 bytes larger).
    let per_message = (peak_large - peak_small) as f64 / (held_large - held_small) as f64;
    assert!(
        per_message <= 60.0,
        "{per_message:.1} bytes per live message"
    );
}
