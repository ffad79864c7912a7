//! The fluid approximation of a queue: messages flow in at the scenario's arrival rate λ(t)
//! and out at the consumers' full capacity μ, so the backlog changes by (λ − μ) per second
//! while it is above zero. It is what the chart draws as the prediction line: for the burst,
//! (3,000 − 2,000)·t up to 60 s, then draining at 1,000 per second.
//!
//! Randomness, crashes and producer message counts are ignored: it is the straight-line
//! picture a whiteboard gives, and the simulation shows how reality departs from it.

use brokerlab_core::Scenario;

/// Consumer capacity in messages per second, all consumers up and busy.
/// Infinite when some consumer takes no time per message.
pub fn capacity_per_s(scenario: &Scenario) -> f64 {
    scenario
        .consumers
        .iter()
        .map(|c| {
            let mean_s = c.service.mean_s();
            let slots = f64::from(c.replicas) * f64::from(c.concurrency);
            if mean_s > 0.0 {
                slots / mean_s
            } else {
                f64::INFINITY
            }
        })
        .sum()
}

/// Total arrival rate at time `t_s`, summed over producers.
pub fn arrival_rate_per_s(scenario: &Scenario, t_s: f64) -> f64 {
    scenario
        .producers
        .iter()
        .map(|p| {
            let schedule = &p.arrivals.schedule;
            schedule
                .iter()
                .rev()
                .find(|seg| seg.from_s <= t_s)
                .map_or(0.0, |seg| seg.rate_per_s)
        })
        .sum()
}

/// The times at which some producer's rate changes, ascending, without duplicates.
fn rate_changes_s(scenario: &Scenario) -> Vec<f64> {
    let mut times: Vec<f64> = scenario
        .producers
        .iter()
        .flat_map(|p| p.arrivals.schedule.iter().map(|seg| seg.from_s))
        .collect();
    times.sort_by(f64::total_cmp);
    times.dedup();
    times
}

/// A sensible time span to show for a run: its end if it has one; else until arrivals
/// stop (or a minute, if they never do), and at least until the fluid backlog drains.
pub fn horizon_s(scenario: &Scenario) -> f64 {
    const HORIZON_DEFAULT_S: f64 = 60.0;
    if let Some(end) = scenario.end_s {
        return end.max(1.0);
    }
    let last_change = rate_changes_s(scenario).last().copied().unwrap_or(0.0);
    let base = if arrival_rate_per_s(scenario, last_change) == 0.0 {
        last_change
    } else {
        last_change.max(HORIZON_DEFAULT_S)
    };
    let curve = backlog_curve(scenario, base.max(HORIZON_DEFAULT_S) * 4.0);
    // When the backlog last empties (if it is still growing at the probe's end, ignore it).
    let drained = curve
        .windows(2)
        .rev()
        .find(|w| w[0].1 > 0.0 && w[1].1 == 0.0)
        .map(|w| w[1].0);
    base.max(drained.unwrap_or(0.0)).max(1.0)
}

/// The fluid backlog from 0 to `until_s`, as the corners of a piecewise-linear curve:
/// every rate change and every moment the backlog reaches zero is a point.
pub fn backlog_curve(scenario: &Scenario, until_s: f64) -> Vec<(f64, f64)> {
    let mu = capacity_per_s(scenario);
    let mut points = vec![(0.0, 0.0)];
    let mut cuts: Vec<f64> = rate_changes_s(scenario)
        .into_iter()
        .filter(|&t| t > 0.0 && t < until_s)
        .collect();
    cuts.push(until_s);
    let (mut t, mut q) = (0.0_f64, 0.0_f64);
    for next in cuts {
        let net = arrival_rate_per_s(scenario, t) - mu;
        let dt = next - t;
        if net.is_nan() || net == f64::NEG_INFINITY {
            q = 0.0;
        } else if q + net * dt >= 0.0 {
            q += net * dt;
        } else {
            // Drains part-way through the segment, then stays empty.
            let empty_at = t + q / -net;
            if empty_at > t {
                points.push((empty_at, 0.0));
            }
            q = 0.0;
        }
        t = next;
        points.push((t, q));
    }
    points
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::examples;

    fn burst() -> Scenario {
        examples::load("burst").expect("burst is a built-in example")
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6 * b.abs().max(1.0)
    }

    #[test]
    fn burst_rates_match_its_description() {
        let s = burst();
        assert!(close(capacity_per_s(&s), 2_000.0));
        assert!(close(arrival_rate_per_s(&s, 0.0), 3_000.0));
        assert!(close(arrival_rate_per_s(&s, 59.9), 3_000.0));
        assert!(close(arrival_rate_per_s(&s, 60.0), 1_000.0));
        assert!(close(arrival_rate_per_s(&s, 200.0), 0.0));
    }

    #[test]
    fn burst_backlog_climbs_to_60k_then_drains_by_120_s() {
        let curve = backlog_curve(&burst(), 180.0);
        assert_eq!(curve.first(), Some(&(0.0, 0.0)));
        let peak = curve
            .iter()
            .copied()
            .fold((0.0, 0.0), |a, b| if b.1 > a.1 { b } else { a });
        assert!(
            close(peak.0, 60.0) && close(peak.1, 60_000.0),
            "peak {peak:?}"
        );
        assert!(
            curve.iter().any(|&(t, q)| close(t, 120.0) && q == 0.0),
            "drains at 120 s: {curve:?}"
        );
        assert_eq!(curve.last(), Some(&(180.0, 0.0)));
        assert!(
            curve.iter().all(|&(_, q)| q >= 0.0),
            "a backlog is never negative"
        );
        assert!(
            curve.windows(2).all(|w| w[0].0 <= w[1].0),
            "time goes forward"
        );
    }

    #[test]
    fn burst_horizon_is_the_end_of_arrivals() {
        assert!(close(horizon_s(&burst()), 180.0));
        let mut s = burst();
        s.end_s = Some(5.0);
        assert!(close(horizon_s(&s), 5.0));
    }

    #[test]
    fn an_underloaded_queue_stays_empty() {
        let s = examples::load("mm4").expect("mm4 is a built-in example");
        let curve = backlog_curve(&s, 100.0);
        assert!(curve.iter().all(|&(_, q)| q == 0.0), "{curve:?}");
        assert!(horizon_s(&s) >= 60.0);
    }
}
