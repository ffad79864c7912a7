//! The callers' protections around a dependency: the circuit breaker (closed, open,
//! half-open with one probe) and the retry budget's tokens. Both are shared by every
//! caller of the dependency and change only on call outcomes, so no timer is needed: an
//! open breaker turns half-open when the first call after its open time comes.

use super::Simulation;
use crate::dependency::BreakerState;
use crate::step::Fact;

impl Simulation {
    /// Whether the breaker lets a call through now: `None` fails it fast, `Some(true)`
    /// lets it through as the half-open probe.
    pub(super) fn breaker_admits(&mut self, d: u32) -> Option<bool> {
        let now = self.now_us;
        let dep = &mut self.deps[d as usize];
        if dep.breaker.is_none() {
            return Some(false);
        }
        match dep.breaker_state {
            BreakerState::Closed => Some(false),
            BreakerState::Open { until_us } if now >= until_us => {
                dep.breaker_state = BreakerState::HalfOpen;
                self.facts.push(Fact::BreakerHalfOpen { dependency: d });
                Some(true)
            }
            BreakerState::Open { .. } | BreakerState::HalfOpen => None,
        }
    }

    /// A call's outcome: tokens of the retry budget, and the breaker's state.
    pub(super) fn call_outcome(&mut self, d: u32, ok: bool, probe: bool) {
        let now = self.now_us;
        let dep = &mut self.deps[d as usize];
        dep.note_outcome(ok);
        let Some(spec) = dep.breaker else {
            return;
        };
        let trips = match dep.breaker_state {
            BreakerState::HalfOpen if probe => !ok,
            BreakerState::Closed => !ok && dep.failures_in_row >= spec.failure_threshold,
            _ => false,
        };
        if probe && ok && dep.breaker_state == BreakerState::HalfOpen {
            dep.breaker_state = BreakerState::Closed;
            self.facts.push(Fact::BreakerClosed { dependency: d });
        } else if trips {
            let until_us = now.saturating_add(crate::time::secs_to_us(spec.open_s));
            dep.breaker_state = BreakerState::Open { until_us };
            self.facts.push(Fact::BreakerOpened {
                dependency: d,
                failures: dep.failures_in_row,
                until_us,
            });
        }
    }

    /// Whether consumer `consumer`'s failed message may be retried: always, unless its
    /// dependency's retry budget has half its tokens or fewer left.
    pub(super) fn retry_allowed(&self, consumer: crate::step::ConsumerId) -> bool {
        self.consumers[consumer.index()]
            .dependency
            .is_none_or(|d| self.deps[d as usize].may_retry())
    }
}
