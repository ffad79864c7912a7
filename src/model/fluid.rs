//! The fluid approximation of a queue: messages flow in at the scenario's arrival rate λ(t)
//! and out at the consumers' full capacity μ, so the backlog changes by (λ − μ) per second
//! while it is above zero. It is what the chart draws as the prediction line: for the burst,
//! (3,000 − 2,000)·t up to 60 s, then draining at 1,000 per second.
//!
//! Randomness, crashes and producer message counts are ignored: it is the straight-line
//! picture a whiteboard gives, and the simulation shows how reality departs from it.

use brokerlab_core::lessons::Lang;
use brokerlab_core::{RateSegment, Scenario};

use crate::i18n::td_string;
pub use crate::model::capacity::capacity_of;
use crate::model::capacity::{self, Server, Slots};

/// What the load factor ρ = λ/μ means for the backlog. The chart's ρ note and the
/// parameters' forecast both say it with [`Load::verdict`], so they never disagree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Load {
    /// Nothing arrives (λ = 0).
    Idle,
    /// ρ < 1.
    Drains,
    /// ρ = 1: no drift, yet random arrivals and service times make the backlog wander
    /// without a pull back to zero.
    Edge,
    /// ρ > 1 (also when nothing is consumed while messages arrive).
    Grows,
}

impl Load {
    /// The load of arrivals λ against capacity μ (both per second). Equal within a
    /// rounding error counts as ρ = 1: a rate set to exactly the capacity is on the edge.
    pub fn of(lambda: f64, mu: f64) -> Self {
        if lambda <= 0.0 {
            Load::Idle
        } else if mu == f64::INFINITY {
            Load::Drains
        } else if (lambda - mu).abs() <= 1e-9 * mu {
            Load::Edge
        } else if lambda > mu {
            Load::Grows
        } else {
            Load::Drains
        }
    }

    /// The verdict in English (see [`Load::verdict_in`]).
    pub fn verdict(self) -> String {
        self.verdict_in(Lang::En)
    }

    /// The range of ρ it covers, written the same in every language: "ρ < 1".
    pub fn range(self) -> &'static str {
        match self {
            Load::Idle => "ρ = 0",
            Load::Drains => "ρ < 1",
            Load::Edge => "ρ = 1",
            Load::Grows => "ρ > 1",
        }
    }

    /// The verdict in words, starting with the range of ρ it covers (the range is written
    /// the same in every language).
    pub fn verdict_in(self, lang: Lang) -> String {
        let locale = crate::i18n::locale(lang);
        let words = match self {
            Load::Idle => td_string!(locale, stage.load.idle),
            Load::Drains => td_string!(locale, stage.load.drains),
            Load::Edge => td_string!(locale, stage.load.edge),
            Load::Grows => td_string!(locale, stage.load.grows),
        };
        format!("{}: {words}", self.range())
    }
}

/// Consumer capacity in messages per second, all consumers up and busy, no more than the
/// dependencies their handlers call can serve (see [`capacity::bottleneck`]), as the
/// scenario starts. Infinite when some consumer takes no time per message.
pub fn capacity_per_s(scenario: &Scenario) -> f64 {
    let consumers: Vec<Slots> = scenario
        .consumers
        .iter()
        .map(|c| Slots {
            slots: c.replicas.saturating_mul(c.concurrency),
            own_s: c.service.mean_s(),
            batch: c.batch_size,
            calls: scenario.dependency_index(&c.calls),
        })
        .collect();
    let servers: Vec<Server> = scenario.dependencies.iter().map(Server::at_start).collect();
    capacity::bottleneck(&consumers, &servers).per_s
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
    let schedules: Vec<Vec<RateSegment>> = scenario
        .producers
        .iter()
        .map(|p| p.arrivals.schedule.clone())
        .collect();
    fluid_curve(
        &total_rate(&schedules),
        &[(0.0, capacity_per_s(scenario))],
        until_s,
    )
}

/// A piecewise-constant quantity over time: `(from_s, value)` corners, ascending; each
/// value holds until the next corner, the last one forever (0 before the first).
pub type StepFn = [(f64, f64)];

/// The value of a step function at `t_s`.
pub fn value_at(steps: &StepFn, t_s: f64) -> f64 {
    steps
        .iter()
        .rev()
        .find(|&&(from, _)| from <= t_s)
        .map_or(0.0, |&(_, v)| v)
}

/// The total arrival rate of several producers' schedules (absolute times), as one step
/// function with a corner wherever any of them changes.
pub fn total_rate(schedules: &[Vec<RateSegment>]) -> Vec<(f64, f64)> {
    let mut times: Vec<f64> = schedules
        .iter()
        .flat_map(|s| s.iter().map(|seg| seg.from_s))
        .chain(std::iter::once(0.0))
        .collect();
    times.sort_by(f64::total_cmp);
    times.dedup();
    times
        .into_iter()
        .map(|t| {
            let rate = schedules
                .iter()
                .map(|s| {
                    s.iter()
                        .rev()
                        .find(|seg| seg.from_s <= t)
                        .map_or(0.0, |seg| seg.rate_per_s)
                })
                .fold(0.0, |a, b| a + b);
            (t, rate)
        })
        .collect()
}

/// The fluid backlog from (0, 0) to `until_s` with arrivals λ(t) and capacity μ(t) both
/// piecewise constant: the backlog changes by λ − μ per second while it is above zero.
/// Corners at every change of either, and wherever the backlog reaches zero.
///
/// The page passes λ with the arrival changes given so far and μ as it was after each
/// setting change: the curve follows the run's history up to now, and from now on the
/// current settings.
pub fn fluid_curve(lambda: &StepFn, mu: &StepFn, until_s: f64) -> Vec<(f64, f64)> {
    let mut points = vec![(0.0, 0.0)];
    if until_s.is_nan() || until_s <= 0.0 {
        return points;
    }
    let mut cuts: Vec<f64> = lambda
        .iter()
        .chain(mu)
        .map(|&(t, _)| t)
        .filter(|&t| t > 0.0 && t < until_s)
        .collect();
    cuts.push(until_s);
    cuts.sort_by(f64::total_cmp);
    cuts.dedup();
    let (mut t, mut q) = (0.0_f64, 0.0_f64);
    for next in cuts {
        let net = value_at(lambda, t) - value_at(mu, t);
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

/// The curve's value at `t_s` (linear between corners; its last value after its end).
pub fn curve_at(curve: &[(f64, f64)], t_s: f64) -> f64 {
    match curve.iter().position(|&(t, _)| t >= t_s) {
        None => curve.last().map_or(0.0, |&(_, q)| q),
        Some(0) => curve[0].1,
        Some(i) => {
            let ((t0, q0), (t1, q1)) = (curve[i - 1], curve[i]);
            if t1 > t0 {
                q0 + (q1 - q0) * (t_s - t0) / (t1 - t0)
            } else {
                q1
            }
        }
    }
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
    fn a_scenario_s_capacity_is_its_bottleneck() {
        // dep-retry-storm: 100 handler slots at 2 ms call a database that serves 10
        // requests at once in 0.1 s: 100/s, not the slots' 50,000/s.
        let s = examples::load("dep-retry-storm").expect("built in");
        assert!(close(capacity_per_s(&s), 100.0), "{}", capacity_per_s(&s));
        let curve = backlog_curve(&s, 60.0);
        assert!(
            curve.iter().all(|&(_, q)| q == 0.0),
            "70/s under 100/s: {curve:?}"
        );
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

    fn seg(from_s: f64, rate_per_s: f64) -> RateSegment {
        RateSegment { from_s, rate_per_s }
    }

    /// Slope of the curve between two times.
    fn slope(curve: &[(f64, f64)], a: f64, b: f64) -> f64 {
        (curve_at(curve, b) - curve_at(curve, a)) / (b - a)
    }

    #[test]
    fn a_rate_raised_above_capacity_grows_the_backlog_at_the_difference_from_then_on() {
        // μ = 10/s; λ = 5/s until 10 s, then 20/s (an arrival change applied at 10 s).
        let lambda = total_rate(&[vec![seg(0.0, 5.0), seg(10.0, 20.0)]]);
        let mu = [(0.0, 10.0)];
        let curve = fluid_curve(&lambda, &mu, 60.0);
        assert_eq!(curve_at(&curve, 10.0), 0.0, "stable before the change");
        assert!(close(slope(&curve, 10.0, 60.0), 20.0 - 10.0), "{curve:?}");
        assert!(close(curve_at(&curve, 30.0), 200.0));
    }

    #[test]
    fn scaling_out_at_a_time_drains_at_the_new_capacity_and_stays_empty() {
        // λ = 15/s against 10/s: +5/s for 20 s (100), then μ = 30/s drains at 15/s.
        let lambda = [(0.0, 15.0)];
        let mu = [(0.0, 10.0), (20.0, 30.0)];
        let curve = fluid_curve(&lambda, &mu, 40.0);
        assert!(close(curve_at(&curve, 20.0), 100.0));
        assert!(close(slope(&curve, 20.0, 25.0), -15.0));
        let empty_at = 20.0 + 100.0 / 15.0;
        assert!(
            curve.iter().any(|&(t, q)| close(t, empty_at) && q == 0.0),
            "empties at {empty_at}: {curve:?}"
        );
        assert_eq!(curve.last(), Some(&(40.0, 0.0)));
    }

    #[test]
    fn total_rate_sums_producers_at_every_change() {
        let rate = total_rate(&[
            vec![seg(0.0, 1.0), seg(5.0, 3.0)],
            vec![seg(0.0, 2.0), seg(8.0, 0.0)],
        ]);
        assert_eq!(rate, vec![(0.0, 3.0), (5.0, 5.0), (8.0, 3.0)]);
        assert_eq!(value_at(&rate, 6.0), 5.0);
        assert_eq!(value_at(&rate, 100.0), 3.0);
        assert_eq!(total_rate(&[]), vec![(0.0, 0.0)]);
    }

    #[test]
    fn capacity_counts_slots_over_service_time() {
        assert!(close(capacity_of([(1, 0.1), (2, 0.5)]), 14.0));
        assert_eq!(capacity_of([(1, 0.0)]), f64::INFINITY);
        assert_eq!(capacity_of([]), 0.0);
        assert!(
            capacity_of([]).is_sign_positive() && capacity_of([(0, 0.0)]) == 0.0,
            "no capacity is +0, never -0 (written \"-0/s\") nor unlimited"
        );
        assert!(total_rate(&[])[0].1.is_sign_positive());
        // Without consumers the backlog grows at the full arrival rate.
        let curve = fluid_curve(&[(0.0, 4.0)], &[(0.0, 0.0)], 10.0);
        assert!(close(curve_at(&curve, 10.0), 40.0));
    }

    #[test]
    fn one_verdict_per_load_and_rho_one_does_not_drain() {
        assert_eq!(Load::of(0.0, 1.0), Load::Idle);
        assert_eq!(Load::of(0.9, 1.0), Load::Drains);
        assert_eq!(Load::of(1.0, 1.0), Load::Edge);
        assert_eq!(Load::of(0.1 + 0.2, 0.3), Load::Edge, "equal up to rounding");
        assert_eq!(Load::of(3.0, 1.0), Load::Grows);
        assert_eq!(Load::of(3.0, 0.0), Load::Grows);
        assert_eq!(Load::of(3.0, f64::INFINITY), Load::Drains);
        let edge = Load::Edge.verdict();
        assert!(
            edge.contains("does not drain") && edge.contains("√t"),
            "{edge}"
        );
        assert!(Load::Drains.verdict().contains("drains"));
        assert!(Load::Grows.verdict().contains("without bound"));
    }

    #[test]
    fn the_verdict_speaks_spanish_with_the_same_range() {
        let es = Load::Grows.verdict_in(Lang::Es);
        assert!(es.starts_with("ρ > 1: "), "{es}");
        assert!(es.contains("crece sin límite"), "{es}");
        assert_eq!(
            Load::Edge.verdict_in(Lang::En),
            Load::Edge.verdict(),
            "English is the default"
        );
    }

    #[test]
    fn the_general_curve_matches_the_scenario_curve_without_changes() {
        let s = burst();
        let schedules = vec![s.producers[0].arrivals.schedule.clone()];
        assert_eq!(
            fluid_curve(&total_rate(&schedules), &[(0.0, capacity_per_s(&s))], 180.0),
            backlog_curve(&s, 180.0)
        );
        assert_eq!(
            fluid_curve(&[(0.0, 1.0)], &[(0.0, 0.0)], f64::NAN),
            vec![(0.0, 0.0)]
        );
    }
}
