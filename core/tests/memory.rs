//! Memory follows what is live, not the length of the run: after a million messages a
//! run holds what it held after a hundred thousand when its backlog is the same.
//!
//! One test in this binary, so the counting allocator sees only this run (tests of one
//! binary run in parallel threads). It counts bytes, not time.

use brokerlab_core::{examples, ArrivalProcess, ServiceTime, Simulation};

mod counting;

#[global_allocator]
static ALLOCATOR: counting::Counting = counting::Counting;

/// Heap bytes a run of `messages` holds at its end and at most while running. Evenly
/// spaced arrivals at 1,000/s and a fixed service of 0.9 ms: the backlog is the same
/// (at most one message) however long the run.
fn heap_of_run(messages: u64) -> (usize, usize, Simulation) {
    let mut s = examples::load("mm1").unwrap();
    s.producers[0].count = Some(messages);
    s.producers[0].arrivals.process = ArrivalProcess::Constant;
    s.producers[0].arrivals.schedule[0].rate_per_s = 1_000.0;
    s.consumers[0].service = ServiceTime::Fixed { seconds: 0.000_9 };
    let (sim, end, peak) = counting::measure(|| {
        let mut sim = Simulation::new(s).unwrap();
        sim.run();
        sim
    });
    (end, peak, sim)
}

#[test]
fn memory_after_a_million_messages_is_that_after_a_hundred_thousand() {
    let (end_small, peak_small, small) = heap_of_run(100_000);
    let (end_large, peak_large, large) = heap_of_run(1_000_000);
    assert_eq!(large.counters().done, 1_000_000, "the whole run happened");
    assert_eq!(small.counters().done, 100_000);
    // Records held: the recent window (4,096 ids, up to twice that between sweeps)
    // and what is live (nothing, at the end), in both runs.
    for sim in [&small, &large] {
        let held = (sim.messages().held(), sim.copies().held());
        assert!(held.0 <= 2 * 4_096 && held.1 <= 2 * 4_096, "{held:?}");
    }
    // Bytes: the large run holds 900,000 more messages' worth of history if anything
    // leaks, so even one byte kept per message would add 900 KB. The two runs may differ
    // only by the time series and histograms, whose length depends on where each run ends
    // in its halving cycle (157,696 bytes measured, whatever the records' size): allow a
    // third of a byte per extra message, 300,000 bytes. A relative bound would tighten as
    // the records shrink, and tell nothing about history.
    let extra_messages = (1_000_000 - 100_000) as f64;
    let near = |a: usize, b: usize| (a as f64 - b as f64).abs() <= extra_messages / 3.0;
    assert!(
        near(end_small, end_large),
        "held {end_small} vs {end_large} bytes"
    );
    assert!(
        near(peak_small, peak_large),
        "peak {peak_small} vs {peak_large} bytes"
    );
    // A few megabytes (mostly the time series, at most 20,000 samples), where keeping
    // every record took about 360 MB for a million messages.
    assert!(peak_large < 8_000_000, "peak {peak_large} bytes");
}
