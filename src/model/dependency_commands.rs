//! What the parameters panel turns a dependency's fields into: the commands that change
//! its slots, its callers' timeout, and the protections (admission control, retry budget,
//! circuit breaker) while the run plays. Each is a recorded command, so a link and a step
//! back replay it. An empty field (or 0) turns a protection off.

use brokerlab_core::dependency::{Admission, BreakerSpec, RetryBudget};
use brokerlab_core::lessons::Lang;
use brokerlab_core::{Command, ServiceTime};

use crate::i18n::{locale, td_string};
use crate::model::settings::{parse_range, parse_whole};

/// Longest timeout or age limit a field accepts, in seconds (an hour: beyond that the
/// protection does nothing a run would show).
const SECONDS_MAX: f64 = 3_600.0;

/// A retry budget switched on from the panel: ten tokens, one earned per ten successes —
/// the shape gRPC and Envoy document (retries stay under about 10 % of the traffic).
pub const BUDGET_ON: RetryBudget = RetryBudget {
    max_tokens: 10.0,
    token_ratio: 0.1,
};

/// A breaker switched on from the panel opens after this many failed calls in a row and
/// stays open for `BREAKER_OPEN_S` before one probe.
pub const BREAKER_OPEN_S: f64 = 5.0;

fn off(text: &str) -> bool {
    let t = text.trim();
    t.is_empty() || t == "0"
}

fn seconds_unit(lang: Lang) -> String {
    td_string!(locale(lang), panels.dep_params.seconds).to_string()
}

/// Admission control: refuse new calls while the oldest waiting one is older than this.
pub fn admission(dependency: &str, text: &str, lang: Lang) -> Result<Command, String> {
    let admission = if off(text) {
        None
    } else {
        let age = parse_range(text, 0.0, true, SECONDS_MAX, &seconds_unit(lang), lang)?;
        Some(Admission {
            max_queue_age_s: age,
        })
    };
    Ok(Command::SetAdmission {
        dependency: dependency.to_string(),
        admission,
    })
}

/// How long callers wait before giving up.
pub fn timeout(dependency: &str, text: &str, lang: Lang) -> Result<Command, String> {
    let timeout_s = parse_range(text, 0.0, true, SECONDS_MAX, &seconds_unit(lang), lang)?;
    Ok(Command::SetDependencyTimeout {
        dependency: dependency.to_string(),
        timeout_s,
    })
}

/// How many requests it serves at once (its service time stays).
pub fn slots(
    dependency: &str,
    service_mean_s: f64,
    text: &str,
    lang: Lang,
) -> Result<Command, String> {
    let unit = td_string!(locale(lang), panels.dep_params.slots_unit).to_string();
    let concurrency = parse_whole(text, 1, 1_000, &unit, lang)? as u32;
    Ok(Command::SetDependencyCapacity {
        dependency: dependency.to_string(),
        concurrency,
        service: ServiceTime::Exponential {
            mean_s: service_mean_s,
        },
    })
}

/// The retry budget's size in tokens (empty: no budget, every failure may retry).
pub fn retry_budget(dependency: &str, text: &str, lang: Lang) -> Result<Command, String> {
    let retry_budget = if off(text) {
        None
    } else {
        let unit = td_string!(locale(lang), panels.dep_params.tokens_unit).to_string();
        let tokens = parse_whole(text, 1, 1_000_000, &unit, lang)?;
        Some(RetryBudget {
            max_tokens: tokens as f64,
            ..BUDGET_ON
        })
    };
    Ok(Command::SetRetryBudget {
        dependency: dependency.to_string(),
        retry_budget,
    })
}

/// The breaker's threshold: failed calls in a row that open it (empty: no breaker).
pub fn breaker(dependency: &str, text: &str, lang: Lang) -> Result<Command, String> {
    let breaker = if off(text) {
        None
    } else {
        let unit = td_string!(locale(lang), panels.dep_params.failures_unit).to_string();
        let failure_threshold = parse_whole(text, 1, 10_000, &unit, lang)? as u32;
        Some(BreakerSpec {
            failure_threshold,
            open_s: BREAKER_OPEN_S,
        })
    };
    Ok(Command::SetBreaker {
        dependency: dependency.to_string(),
        breaker,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_age_limit_turns_admission_control_on_and_empty_turns_it_off() {
        assert_eq!(
            admission("db", "2", Lang::En),
            Ok(Command::SetAdmission {
                dependency: "db".into(),
                admission: Some(Admission {
                    max_queue_age_s: 2.0
                })
            })
        );
        assert_eq!(
            admission("db", " ", Lang::En),
            Ok(Command::SetAdmission {
                dependency: "db".into(),
                admission: None
            })
        );
        assert!(admission("db", "-1", Lang::En).is_err());
        assert!(admission("db", "soon", Lang::Es).is_err());
    }

    #[test]
    fn slots_budget_and_breaker_parse_whole_numbers() {
        assert!(slots("db", 0.01, "2.5", Lang::En).is_err());
        assert!(matches!(
            slots("db", 0.01, "8", Lang::En),
            Ok(Command::SetDependencyCapacity { concurrency: 8, .. })
        ));
        assert!(matches!(
            retry_budget("db", "20", Lang::En),
            Ok(Command::SetRetryBudget { retry_budget: Some(b), .. }) if b.max_tokens == 20.0
        ));
        assert!(matches!(
            breaker("db", "", Lang::En),
            Ok(Command::SetBreaker { breaker: None, .. })
        ));
        assert!(
            timeout("db", "0", Lang::En).is_err(),
            "a timeout is above zero"
        );
    }

    #[test]
    fn admission_from_the_panel_ends_a_metastable_collapse() {
        use brokerlab_core::{examples, secs_to_us, Simulation};
        let mut sim = Simulation::new(examples::load("dep-metastable").unwrap()).unwrap();
        while sim.now_us() < secs_to_us(30.0) && sim.step().is_some() {}
        let goodput = |sim: &Simulation| sim.flow_series().last().unwrap().goodput_per_s;
        let collapsed = goodput(&sim);
        // Below the callers' 0.5 s timeout: what would be abandoned anyway is shed.
        let shed = admission("db", "0.3", Lang::En).unwrap();
        sim.command(shed).unwrap();
        while sim.now_us() < secs_to_us(45.0) && sim.step().is_some() {}
        let recovered = goodput(&sim);
        assert!(collapsed < 1.0, "collapsed before: {collapsed}");
        assert!(recovered > 60.0, "recovered after: {recovered}");
    }
}
