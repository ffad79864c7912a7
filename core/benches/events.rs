//! Events per second of the core on the `mm1` example (Poisson arrivals, exponential
//! service, one consumer at 90% load). Run: `cargo bench -p brokerlab-core`.
//! The figure and the machine are written down in docs/performance.md.

use brokerlab_core::{examples, Simulation};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn mm1(c: &mut Criterion) {
    let mut scenario = examples::load("mm1").expect("mm1 exists");
    scenario.producers[0].count = Some(100_000);
    // Every message makes two steps (publish+deliver, finish+ack): count steps as events.
    let steps = {
        let mut sim = Simulation::new(scenario.clone()).expect("valid");
        sim.run();
        sim.steps()
    };
    let mut group = c.benchmark_group("core");
    group.throughput(Throughput::Elements(steps));
    group.sample_size(20);
    group.bench_function("mm1_100k_messages", |b| {
        b.iter(|| {
            let mut sim = Simulation::new(scenario.clone()).expect("valid");
            sim.run();
            assert_eq!(sim.steps(), steps);
        })
    });
    group.finish();
}

criterion_group!(benches, mm1);
criterion_main!(benches);
