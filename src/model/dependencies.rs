//! The dependencies' cards: what a consumer's handler calls (a database, an API) with a
//! capacity. Each card shows its load against its slots, its line of waiting requests and
//! the oldest one's wait, the useful and wasted work, the error rate, and the protections
//! in force (retry budget, circuit breaker, admission control) — enough to see a retry
//! storm build and a metastable collapse persist.

use brokerlab_core::lessons::Lang;
use brokerlab_core::{BreakerState, DependencySample, DependencyView, Simulation};

use crate::format::{count, seconds};
use crate::i18n::{locale, td_string};

/// One dependency now: the core's view of it, its last sample's rates, and whether the
/// load offered to it (retries included) is above its capacity.
#[derive(Clone, Debug, PartialEq)]
pub struct DependencyCard {
    pub view: DependencyView,
    /// Rates over the last sample interval (none before the first sample).
    pub last: Option<DependencySample>,
    pub overloaded: bool,
}

/// Every dependency's card.
pub fn dependency_cards(sim: &Simulation) -> Vec<DependencyCard> {
    (0..sim.dependency_count())
        .filter_map(|d| card(sim, d))
        .collect()
}

fn card(sim: &Simulation, d: u32) -> Option<DependencyCard> {
    Some(DependencyCard {
        view: sim.dependency(d)?,
        last: sim.dependency_series(d).last().copied(),
        overloaded: sim.dependency_load(d).is_some_and(|l| l.overloaded),
    })
}

impl DependencyCard {
    /// Calls per second over the last sample interval.
    pub fn calls_per_s(&self) -> f64 {
        self.last.map_or(0.0, |s| s.calls_per_s)
    }

    /// Useful answers (in time) per second over the last sample interval.
    pub fn goodput_per_s(&self) -> f64 {
        self.last.map_or(0.0, |s| s.goodput_per_s)
    }

    /// Failed calls over calls in the last sample interval (0–1).
    pub fn error_rate(&self) -> f64 {
        self.last.map_or(0.0, |s| s.error_rate)
    }

    /// Failures in a row that open the breaker, when there is one.
    pub fn breaker_threshold(&self) -> Option<u32> {
        self.view.breaker_spec.map(|b| b.failure_threshold)
    }

    /// "12 / 16 slots busy · 340 waiting, oldest 2.1 s".
    pub fn load_text(&self, lang: Lang) -> String {
        let l = locale(lang);
        let (busy, slots) = (
            count(self.view.in_service.into(), lang),
            count(self.view.concurrency.into(), lang),
        );
        let waiting = count(self.view.queued.into(), lang);
        let oldest = seconds(self.view.oldest_age_s, lang);
        td_string!(l, stage.dep.load, busy, slots, waiting, oldest).to_string()
    }

    /// "70 calls/s · 12 useful/s · 83 % errors".
    pub fn rates_text(&self, lang: Lang) -> String {
        let l = locale(lang);
        let calls = count(self.calls_per_s().round() as u64, lang);
        let useful = count(self.goodput_per_s().round() as u64, lang);
        let errors = count((self.error_rate() * 100.0).round() as u64, lang);
        td_string!(l, stage.dep.rates, calls, useful, errors).to_string()
    }

    /// "answered 1,200 in time · 800 too late (wasted)".
    pub fn work_text(&self, lang: Lang) -> String {
        let l = locale(lang);
        let (answered, wasted) = (
            count(self.view.counters.answered, lang),
            count(self.view.counters.wasted, lang),
        );
        td_string!(l, stage.dep.work, answered, wasted).to_string()
    }

    /// The protections in force and the state of each, or that there are none.
    pub fn protections_text(&self, lang: Lang) -> String {
        let l = locale(lang);
        let mut parts = Vec::new();
        if self.view.slow_factor > 1.0 {
            let factor = brokerlab_core::lang::number(self.view.slow_factor, 1, lang);
            parts.push(td_string!(l, stage.dep.slowed, factor).to_string());
        }
        if let Some((left, size)) = self.view.tokens {
            let (left, size) = (count(left.max(0.0) as u64, lang), count(size as u64, lang));
            parts.push(td_string!(l, stage.dep.budget, left, size).to_string());
        }
        match self.view.breaker {
            Some(BreakerState::Closed) => {
                parts.push(td_string!(l, stage.dep.breaker_closed).to_string())
            }
            Some(BreakerState::Open { .. }) => {
                parts.push(td_string!(l, stage.dep.breaker_open).to_string())
            }
            Some(BreakerState::HalfOpen) => {
                parts.push(td_string!(l, stage.dep.breaker_half_open).to_string())
            }
            None => {}
        }
        if let Some(age) = self.view.admission_max_age_s {
            let age = seconds(age, lang);
            parts.push(td_string!(l, stage.dep.admission, age).to_string());
        }
        if parts.is_empty() {
            return td_string!(l, stage.dep.unprotected).to_string();
        }
        parts.join(" · ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::{examples, secs_to_us};

    fn at(name: &str, t_s: f64) -> Simulation {
        let mut sim = Simulation::new(examples::load(name).expect("built in")).expect("valid");
        while sim.now_us() < secs_to_us(t_s) && sim.step().is_some() {}
        sim
    }

    #[test]
    fn a_metastable_collapse_shows_on_the_card() {
        let before = &dependency_cards(&at("dep-metastable", 8.0))[0];
        let after = &dependency_cards(&at("dep-metastable", 40.0))[0];
        assert!(before.goodput_per_s() > 30.0, "{before:?}");
        assert!(
            after.goodput_per_s() < before.goodput_per_s() / 4.0,
            "{after:?}"
        );
        assert!(
            after.view.counters.wasted > before.view.counters.wasted,
            "work is wasted after the trigger"
        );
        assert!(after.overloaded && !before.overloaded);
        assert!(
            after.load_text(Lang::En).contains("slots busy"),
            "{}",
            after.load_text(Lang::En)
        );
        assert!(
            after.load_text(Lang::Es).contains("ocupadas"),
            "{}",
            after.load_text(Lang::Es)
        );
        assert_eq!(after.protections_text(Lang::En), "no protection");
    }

    #[test]
    fn protections_are_named() {
        let card = &dependency_cards(&at("dep-breaker", 20.0))[0];
        let text = card.protections_text(Lang::En);
        assert!(text.contains("breaker"), "{text}");
        let card = &dependency_cards(&at("dep-admission", 20.0))[0];
        let text = card.protections_text(Lang::Es);
        assert!(text.contains("admisión"), "{text}");
    }
}
