//! What the page, the runner and the tests read of dependencies: a view of each now, its
//! series, goodput next to throughput, and offered load against capacity.

use super::Simulation;
use crate::dependency::{BreakerState, DependencyLoad, DependencySample, DependencyView};
use crate::metrics::FlowSample;
use crate::time::{us_to_secs, Micros};

impl Simulation {
    /// Handler attempts started so far, retries included.
    pub fn handler_attempts(&self) -> u64 {
        self.handler_attempts
    }

    pub fn dependency_count(&self) -> u32 {
        self.deps.len() as u32
    }

    /// A dependency's state now: settings in force, line, slots, breaker, tokens, totals.
    pub fn dependency(&self, d: u32) -> Option<DependencyView> {
        let dep = self.deps.get(d as usize)?;
        Some(DependencyView {
            name: dep.name.clone(),
            concurrency: dep.concurrency,
            service_mean_s: dep.service.mean_s(),
            timeout_s: us_to_secs(dep.timeout_us),
            in_service: dep.in_service,
            queued: dep.line.len() as u32,
            oldest_age_s: us_to_secs(dep.oldest_age_us(self.now_us)),
            slow_factor: dep.slow_factor(self.now_us),
            breaker: dep.breaker.map(|_| dep.breaker_state),
            breaker_spec: dep.breaker,
            tokens: dep.retry_budget.map(|b| (dep.tokens, b.max_tokens)),
            admission_max_age_s: dep.admission.map(|a| a.max_queue_age_s),
            counters: dep.counters,
        })
    }

    /// Goodput (copies finished per second) next to throughput (handler attempts per
    /// second), in step with [`Simulation::series`].
    pub fn flow_series(&self) -> &[FlowSample] {
        self.series.flow_samples()
    }

    /// A dependency's own series, in step with [`Simulation::series`].
    pub fn dependency_series(&self, d: u32) -> &[DependencySample] {
        self.series.dependency_samples(d as usize)
    }

    /// Offered load (calls per second over the last sample interval, retries included)
    /// against what the dependency can complete now: the page's overload warning.
    pub fn dependency_load(&self, d: u32) -> Option<DependencyLoad> {
        let dep = self.deps.get(d as usize)?;
        let series = self.dependency_series(d);
        let (offered, first) = match series {
            [.., a, b] => {
                let dt = us_to_secs(self.series.every_us()).max(f64::MIN_POSITIVE);
                let rate = |x: u64, y: u64| x.saturating_sub(y) as f64 / dt;
                (
                    rate(b.counters.calls, a.counters.calls),
                    rate(b.counters.first_calls, a.counters.first_calls),
                )
            }
            _ => (0.0, 0.0),
        };
        Some(DependencyLoad::new(
            offered,
            first,
            dep.capacity_per_s(self.now_us),
        ))
    }

    /// How dependency `d`'s speed and availability go on from now, as things stand: its
    /// scenario's slowdown and outage windows and a commanded slowdown's end. Each
    /// `(from_us, slow_factor, out)` holds until the next; the first is now. The page's
    /// capacity μ follows it, so its prediction dips where the dependency slows down.
    pub fn dependency_phases(&self, d: u32) -> Vec<(Micros, f64, bool)> {
        let Some(dep) = self.deps.get(d as usize) else {
            return Vec::new();
        };
        let now = self.now_us;
        let windows = dep.slowdowns.iter().flat_map(|w| [w.from_s, w.until_s]);
        let outages = dep.outages.iter().flat_map(|o| [o.from_s, o.until_s]);
        let mut corners: Vec<Micros> = windows
            .chain(outages)
            .map(crate::time::secs_to_us)
            .chain(dep.slowed.map(|(_, until)| until))
            .filter(|&t| t > now)
            .collect();
        corners.push(now);
        corners.sort_unstable();
        corners.dedup();
        corners
            .into_iter()
            .map(|t| (t, dep.slow_factor(t), dep.is_out(t)))
            .collect()
    }

    /// Dependency `d` sampled now, its rates over the interval since the last sample.
    pub(super) fn dependency_sample(&self, d: usize, age_at: Micros) -> DependencySample {
        let dep = &self.deps[d];
        let c = dep.counters;
        let prev = self.series.dependency_samples(d).last().map(|s| s.counters);
        let prev = prev.unwrap_or_default();
        let dt = us_to_secs(self.series.every_us());
        let rate = |x: u64, y: u64| {
            if dt > 0.0 {
                x.saturating_sub(y) as f64 / dt
            } else {
                0.0
            }
        };
        let failed = |k: &crate::dependency::DependencyCounters| {
            k.timeouts + k.rejected + k.short_circuited + k.shed
        };
        let tried = (c.calls + c.rejected + c.short_circuited)
            .saturating_sub(prev.calls + prev.rejected + prev.short_circuited);
        let errors = failed(&c).saturating_sub(failed(&prev));
        DependencySample {
            in_service: dep.in_service,
            queued: dep.line.len() as u32,
            oldest_age_s: us_to_secs(dep.oldest_age_us(age_at)),
            calls_per_s: rate(c.calls, prev.calls),
            goodput_per_s: rate(c.answered, prev.answered),
            error_rate: if tried == 0 {
                0.0
            } else {
                (errors as f64 / tried as f64).min(1.0)
            },
            breaker_open: matches!(dep.breaker_state, BreakerState::Open { .. }),
            counters: c,
        }
    }

    /// Requests at dependency `d` whose callers still wait, for the invariants.
    pub(crate) fn calls_waiting(&self, d: u32) -> usize {
        self.calls.values().filter(|c| c.dependency == d).count()
    }

    pub(crate) fn dependencies_raw(&self) -> &[crate::dependency::Dependency] {
        &self.deps
    }
}
