//! Commands about a dependency: slow it down for a while, change its capacity or its
//! callers' timeout, and switch the retry budget, the breaker or admission control.
//! Each takes effect from the instant it is given and says so in a fact.

use super::Simulation;
use crate::dependency::BreakerState;
use crate::scenario::{Command, ServiceTime};
use crate::step::{Fact, Setting, Trigger};
use crate::time::{secs_to_us, Micros};

/// Thousandths, for facts (which hold whole numbers).
fn milli(x: f64) -> u64 {
    (x * 1000.0).round() as u64
}

impl Simulation {
    pub(super) fn apply_dependency_command(&mut self, fault: &Command, trigger: Trigger) {
        let name = crate::scenario::dependency::command_target(fault);
        let Some(d) = self.scenario.dependency_index(name) else {
            return; // validated: never happens
        };
        let d = d as u32;
        let setting = match *fault {
            Command::SlowDependency { factor, for_s, .. } => {
                return self.slow_dependency(d, factor, secs_to_us(for_s), trigger);
            }
            Command::SetDependencyCapacity {
                concurrency,
                service,
                ..
            } => self.set_capacity(d, concurrency, service),
            Command::SetDependencyTimeout { timeout_s, .. } => {
                let timeout_us = secs_to_us(timeout_s);
                self.deps[d as usize].timeout_us = timeout_us;
                Setting::DependencyTimeout {
                    dependency: d,
                    timeout_us,
                }
            }
            Command::SetRetryBudget { retry_budget, .. } => {
                let dep = &mut self.deps[d as usize];
                dep.retry_budget = retry_budget;
                dep.tokens = retry_budget.map_or(0.0, |b| b.max_tokens);
                Setting::RetryBudget {
                    dependency: d,
                    budget_milli: retry_budget.map(|b| (milli(b.max_tokens), milli(b.token_ratio))),
                }
            }
            Command::SetBreaker { breaker, .. } => {
                let dep = &mut self.deps[d as usize];
                dep.breaker = breaker;
                dep.breaker_state = BreakerState::Closed;
                dep.failures_in_row = 0;
                Setting::Breaker {
                    dependency: d,
                    breaker: breaker.map(|b| (b.failure_threshold, secs_to_us(b.open_s))),
                }
            }
            Command::SetAdmission { admission, .. } => {
                self.deps[d as usize].admission = admission;
                Setting::Admission {
                    dependency: d,
                    max_age_us: admission.map(|a| secs_to_us(a.max_queue_age_s)),
                }
            }
            _ => unreachable!("only dependency commands are sent here"),
        };
        self.facts.push(Fact::SettingChanged { setting, trigger });
        if matches!(fault, Command::SetAdmission { .. }) {
            self.shed_stale(d);
        }
    }

    fn slow_dependency(&mut self, d: u32, factor: f64, for_us: Micros, trigger: Trigger) {
        let until_us = self.now_us.saturating_add(for_us);
        self.deps[d as usize].slowed = Some((factor, until_us));
        self.facts.push(Fact::DependencySlowed {
            dependency: d,
            factor_milli: milli(factor),
            until_us,
            trigger,
        });
    }

    fn set_capacity(&mut self, d: u32, concurrency: u32, service: ServiceTime) -> Setting {
        let dep = &mut self.deps[d as usize];
        dep.concurrency = concurrency;
        dep.service = service;
        self.start_requests(d);
        Setting::DependencyCapacity {
            dependency: d,
            concurrency,
            mean_us: secs_to_us(service.mean_s()),
            exponential: matches!(service, ServiceTime::Exponential { .. }),
        }
    }

    /// Admission control just switched on: what already waited longer than its limit is
    /// shed now, not when its turn comes.
    fn shed_stale(&mut self, d: u32) {
        let Some(max) = self.deps[d as usize].max_age_us() else {
            return;
        };
        let keep_from = self.deps[d as usize]
            .line
            .iter()
            .position(|r| self.now_us.saturating_sub(r.sent_us) <= max)
            .unwrap_or(self.deps[d as usize].line.len());
        let stale: Vec<_> = self.deps[d as usize].line.drain(..keep_from).collect();
        for req in stale {
            let waited = self.now_us.saturating_sub(req.sent_us);
            self.shed_request(d, req, waited);
        }
    }
}
