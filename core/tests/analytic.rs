//! The simulation against queueing theory. Tolerances come from the run's own variance:
//! waits are split into batches long compared with the queue's relaxation time (batch
//! means), and an estimate must fall within 4 standard errors of theory (a false alarm
//! about once in 15,000 runs) while that standard error is small enough for the test to
//! catch a model that is off by a few percent.

use brokerlab_core::{examples, Fact, Scenario, Simulation};

/// Mean and standard error of the mean of `x` by `batches` batch means.
fn batch_means(x: &[f64], batches: usize) -> (f64, f64) {
    let size = x.len() / batches;
    let means: Vec<f64> = x
        .chunks_exact(size)
        .map(|c| c.iter().sum::<f64>() / size as f64)
        .collect();
    let k = means.len() as f64;
    let mean = means.iter().sum::<f64>() / k;
    let var = means.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / (k - 1.0);
    (mean, (var / k).sqrt())
}

/// Runs to the end and returns the waits in the queue (stored → first delivery), in
/// arrival order. Read as each first delivery happens: a finished copy is released.
fn run_recording_waits(sim: &mut Simulation) -> Vec<f64> {
    let mut waits = Vec::new();
    while let Some(step) = sim.step() {
        let firsts: Vec<_> = step
            .facts
            .iter()
            .filter_map(|f| match *f {
                Fact::Delivered {
                    copy, attempt: 1, ..
                } => Some(copy),
                _ => None,
            })
            .collect();
        for copy in firsts {
            let c = sim.copy(copy).expect("a copy being delivered is held");
            let first = c.first_delivered_us.expect("just delivered");
            waits.push((copy, (first - c.stored_us) as f64 / 1e6));
        }
    }
    sim.run(); // nothing left but the final samples
    waits.sort_by_key(|&(copy, _)| copy);
    assert_eq!(
        waits.len() as u64,
        sim.counters().published,
        "every copy was delivered"
    );
    waits.into_iter().map(|(_, w)| w).collect()
}

/// Erlang C: probability of waiting in M/M/c, and the mean wait Wq.
fn erlang_c_wq(lambda: f64, mu: f64, c: u32) -> f64 {
    let a = lambda / mu;
    let rho = a / c as f64;
    let mut term = 1.0;
    let mut sum = 0.0;
    for k in 0..c {
        if k > 0 {
            term *= a / k as f64;
        }
        sum += term;
    }
    let last = term * a / c as f64 / (1.0 - rho);
    let p_wait = last / (sum + last);
    p_wait / (c as f64 * mu - lambda)
}

fn check_mmc(scenario: Scenario, lambda: f64, c: u32, wq: f64, lq: f64) {
    let seed = scenario.seed;
    let mut sim = Simulation::new(scenario).unwrap();
    let waits = run_recording_waits(&mut sim);
    let s = sim.summary();
    assert_eq!(s.counters.published, 1_000_000);
    assert_eq!(s.counters.done, 1_000_000, "every message processed once");
    assert_eq!(
        (
            s.counters.redelivered,
            s.counters.lost,
            s.counters.duplicate_effects
        ),
        (0, 0, 0)
    );

    // 50 batches of 20,000 customers; relaxation time at ρ = 0.9 is a few hundred customers.
    let (w, se) = batch_means(&waits, 50);
    assert!(
        (w - s.mean_queue_wait_s).abs() < 1e-6,
        "report and recount agree"
    );
    assert!(
        se < 0.04 * wq,
        "seed {seed}: the estimate is too noisy to test anything (se {se})"
    );
    assert!(
        (w - wq).abs() <= 4.0 * se,
        "seed {seed}: Wq {w:.3} s vs theory {wq:.3} s (se {se:.3})"
    );

    // Lq is a time average; Little's law ties it to Wq through the measured arrival rate.
    let lambda_hat = s.counters.published as f64 / s.end_s;
    assert!(
        (lambda_hat - lambda).abs() < 0.01 * lambda,
        "seed {seed}: λ {lambda_hat}"
    );
    assert!(
        (s.mean_queue_len - lambda_hat * w).abs() < 0.01 * s.mean_queue_len,
        "seed {seed}: Little's law"
    );
    let lq_tol = 4.0 * se / wq * lq + 0.02 * lq;
    assert!(
        (s.mean_queue_len - lq).abs() <= lq_tol,
        "seed {seed}: Lq {} vs {lq}",
        s.mean_queue_len
    );
    assert!(
        (s.utilization - lambda / c as f64).abs() < 0.01,
        "seed {seed}: utilization {}",
        s.utilization
    );
}

#[test]
fn erlang_c_matches_the_textbook_values() {
    assert!((erlang_c_wq(0.9, 1.0, 1) - 9.0).abs() < 1e-9);
    assert!((erlang_c_wq(3.6, 1.0, 4) - 1.969).abs() < 0.001);
    assert!((3.6 * erlang_c_wq(3.6, 1.0, 4) - 7.090).abs() < 0.001);
}

#[test]
fn mm1_at_rho_0_9() {
    for seed in [1, 2] {
        let mut s = examples::load("mm1").unwrap();
        s.seed = seed;
        check_mmc(s, 0.9, 1, 9.0, 8.1);
    }
}

#[test]
fn mm4_at_rho_0_9() {
    let wq = erlang_c_wq(3.6, 1.0, 4);
    for seed in [1, 2] {
        let mut s = examples::load("mm4").unwrap();
        s.seed = seed;
        check_mmc(s, 3.6, 4, wq, 3.6 * wq);
    }
}

fn backlog_at(sim: &Simulation, t_s: f64) -> u64 {
    sim.series()
        .iter()
        .find(|s| (s.t_s - t_s).abs() < 1e-9)
        .expect("sampled every second")
        .backlog
}

#[test]
fn burst_backlog_follows_the_fluid_model() {
    // Arrivals in 60 s at 3,000/s are Poisson: sd ≈ √180,000 ≈ 424. Service is fixed, so
    // the backlog's spread is that of the arrivals: ±2,000 is more than 4 sd.
    for seed in [7, 8] {
        let mut s = examples::load("burst").unwrap();
        s.seed = seed;
        let mut sim = Simulation::new(s).unwrap();
        sim.run();
        for t in [10.0, 30.0, 60.0] {
            let fluid = (3_000.0 - 2_000.0) * t;
            let b = backlog_at(&sim, t) as f64;
            assert!(
                (b - fluid).abs() < 2_000.0,
                "seed {seed}: backlog {b} at {t} s, fluid model {fluid}"
            );
        }
        // Then it drains at 2,000 − 1,000 = 1,000/s: empty again near 120 s.
        let empty_at = sim
            .series()
            .iter()
            .find(|s| s.t_s > 60.0 && s.backlog == 0)
            .map(|s| s.t_s)
            .expect("the backlog drains");
        assert!(
            (empty_at - 120.0).abs() <= 3.0,
            "seed {seed}: empty again at {empty_at} s"
        );
        // By 60 s the consumers have taken 120,000 messages: those published by 40 s. So the
        // oldest waiting message is about 60 − 40 = 20 s old.
        let age60 = sim
            .series()
            .iter()
            .find(|s| s.t_s == 60.0)
            .unwrap()
            .oldest_age_s;
        assert!(
            (age60 - 20.0).abs() < 1.0,
            "seed {seed}: oldest age at 60 s is {age60}"
        );
        assert_eq!(sim.counters().lost, 0);
        assert_eq!(sim.counters().done, sim.counters().published);
    }
}

#[test]
fn overload_grows_backlog_at_lambda_minus_mu() {
    // Constant arrivals at 150/s against 100/s of capacity: after 40 s, 2,000 waiting
    // (deterministic, so within the few in service and one interval of rounding).
    let mut s = examples::load("burst").unwrap();
    s.producers[0].arrivals =
        brokerlab_core::Arrivals::steady(brokerlab_core::ArrivalProcess::Constant, 150.0);
    s.producers[0].count = None;
    s.consumers[0].replicas = 1;
    s.end_s = Some(40.0);
    let mut sim = Simulation::new(s).unwrap();
    sim.run();
    let b = sim.backlog() as f64;
    assert!((b - 50.0 * 40.0).abs() <= 3.0, "backlog {b}");
}

#[test]
fn queue_wait_percentiles_match_the_mm1_distribution() {
    // In M/M/1 the wait is 0 with probability 1 − ρ and otherwise exponential with rate
    // μ − λ: P(Wq > t) = ρ·e^{−(μ−λ)t}. So p50 = ln(ρ/0.5)/(μ−λ) ≈ 5.88 s and
    // p95 = ln(ρ/0.05)/(μ−λ) ≈ 28.9 s. A million customers put both well inside 5 %.
    let mut sim = Simulation::new(examples::load("mm1").unwrap()).unwrap();
    sim.run();
    let s = sim.summary();
    let p = |q: f64| (0.9f64 / (1.0 - q)).ln() / 0.1;
    assert!(
        (s.queue_wait_p50_s - p(0.5)).abs() < 0.05 * p(0.5),
        "p50 {}",
        s.queue_wait_p50_s
    );
    assert!(
        (s.queue_wait_p95_s - p(0.95)).abs() < 0.05 * p(0.95),
        "p95 {}",
        s.queue_wait_p95_s
    );
}

#[test]
fn series_totals_give_the_rates() {
    // Differences of the running totals between samples are rates: in the burst, about
    // 3,000 published per second early on (Poisson: sd ≈ 55 per second, so ±300 is wide)
    // and exactly the capacity, 2,000 delivered per second, while the backlog lasts.
    let mut sim = Simulation::new(examples::load("burst").unwrap()).unwrap();
    sim.run_until(31_000_000);
    let at = |t: f64| {
        *sim.series()
            .iter()
            .find(|s| (s.t_s - t).abs() < 1e-9)
            .unwrap()
    };
    let (a, b) = (at(20.0), at(30.0));
    let published_per_s = (b.published - a.published) as f64 / 10.0;
    let delivered_per_s = (b.delivered - a.delivered) as f64 / 10.0;
    assert!(
        (published_per_s - 3_000.0).abs() < 300.0,
        "published {published_per_s}/s"
    );
    assert!(
        (delivered_per_s - 2_000.0).abs() < 5.0,
        "delivered {delivered_per_s}/s"
    );
    assert_eq!(b.lost + b.duplicate_effects + b.redelivered, 0);
}
