//! Hostile input, generated: arbitrary bytes and mutated built-in scenarios (numbers
//! pushed to extremes, `end_s` and `count` dropped, commands that may never replay…)
//! are decoded, and whatever validates runs under a small work budget. Whatever the
//! input: no panic (this runs in the debug profile, with overflow checks), the run ends,
//! and the accounting invariant holds after every step.
//!
//! A longer campaign: `PROPTEST_CASES=20000 cargo test -p brokerlab-core --test fuzz`.

use brokerlab_core::{examples, invariants, Budget, Scenario, Simulation};
use proptest::prelude::*;
use serde_json::{json, Value};

/// Small enough that thousands of cases run in seconds; large enough to get past the
/// first publishes into retries, crashes and rebalances.
const FUZZ_BUDGET: Budget = Budget {
    steps_max: 3_000,
    messages_max: 2_000,
    copies_max: 4_000,
    log_records_max: 4_000,
    held_max: 4_000,
};

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(256)
}

/// Decodes and, if valid, runs with the small budget, checking after every step.
fn decode_and_run(text: &str) -> Result<(), TestCaseError> {
    let Ok(scenario) = Scenario::from_json(text) else {
        return Ok(());
    };
    // The estimate is total: it never panics on a scenario that validated.
    let _ = scenario.work_estimate();
    let Ok(mut sim) = Simulation::with_budget(scenario, FUZZ_BUDGET) else {
        return Ok(());
    };
    let mut taken = 0u64;
    while let Some(step) = sim.step() {
        let index = step.index;
        if let Err(e) = invariants::check(&sim) {
            return Err(TestCaseError::fail(format!("step {index}: {e}")));
        }
        taken += 1;
        prop_assert!(taken <= FUZZ_BUDGET.steps_max, "past the step budget");
        prop_assert_eq!(sim.is_finished(), sim.end_reason().is_some());
    }
    prop_assert!(sim.is_finished());
    prop_assert!(sim.end_reason().is_some(), "a finished run says why");
    // Finishing again changes nothing and does not hang.
    let steps = sim.steps();
    sim.run();
    prop_assert_eq!(sim.steps(), steps);
    Ok(())
}

/// Numbers a hostile file would try.
const EXTREMES: &[f64] = &[
    0.0,
    -1.0,
    1e-300,
    1e-9,
    0.5,
    1.0,
    3.0,
    1e6,
    4e9,
    1.8446744073709552e19,
    1e300,
];

/// Every path to a number in `v`, in document order.
fn number_paths(v: &Value, path: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    match v {
        Value::Number(_) => out.push(path.clone()),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(Step::Index(i));
                number_paths(item, path, out);
                path.pop();
            }
        }
        Value::Object(map) => {
            for (k, item) in map {
                path.push(Step::Key(k.clone()));
                number_paths(item, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

fn at<'a>(v: &'a mut Value, path: &[Step]) -> Option<&'a mut Value> {
    path.iter().try_fold(v, |v, step| match step {
        Step::Key(k) => v.get_mut(k.as_str()),
        Step::Index(i) => v.get_mut(*i),
    })
}

/// One mutation, chosen by `kind`, placed by `pick`.
fn mutate(v: &mut Value, kind: u8, pick: u64, extreme: usize) {
    let x = EXTREMES[extreme % EXTREMES.len()];
    match kind % 8 {
        // A number somewhere becomes an extreme (as an integer when it fits one).
        0..=2 => {
            let mut paths = Vec::new();
            number_paths(v, &mut Vec::new(), &mut paths);
            if paths.is_empty() {
                return;
            }
            let path = &paths[(pick % paths.len() as u64) as usize];
            if let Some(slot) = at(v, path) {
                *slot = if x >= 0.0 && x.fract() == 0.0 && x < 1.8e19 {
                    json!(x as u64)
                } else {
                    json!(x)
                };
            }
        }
        // The bounds go: no end, no counts.
        3 => {
            if let Some(map) = v.as_object_mut() {
                map.remove("end_s");
            }
            if let Some(ps) = v["producers"].as_array_mut() {
                for p in ps {
                    if let Some(p) = p.as_object_mut() {
                        p.remove("count");
                    }
                }
            }
        }
        // A recorded command that may never replay, or replay at once.
        4 => {
            let after_step = if pick.is_multiple_of(2) {
                u64::MAX
            } else {
                pick % 50
            };
            let fault = match pick % 5 {
                0 => json!({ "set_arrivals": { "producer": 0, "process": "poisson",
                    "schedule": [{ "from_s": 0, "rate_per_s": x.abs().min(1e6) }] } }),
                1 => json!({ "crash_broker": { "restart_after_s": x.abs().min(1e8) } }),
                2 => json!({ "slow_consumer": { "consumer": 0, "factor": 1000 } }),
                3 => json!({ "drop_next_confirm": { "producer": 0 } }),
                _ => json!({ "inject_poison": { "producer": 0, "poison": "malformed_payload" } }),
            };
            let ivs = v
                .as_object_mut()
                .map(|m| m.entry("interventions").or_insert(json!([])));
            if let Some(Value::Array(ivs)) = ivs {
                let at_us = ivs.last().map_or(0, |l| l["at_us"].as_u64().unwrap_or(0));
                let after = ivs.last().map_or(after_step, |l| {
                    l["after_step"].as_u64().unwrap_or(0).max(after_step)
                });
                ivs.push(json!({ "after_step": after, "at_us": at_us, "command": fault }));
            }
        }
        // A fault at an extreme time.
        5 => {
            let faults = v
                .as_object_mut()
                .map(|m| m.entry("commands").or_insert(json!([])));
            if let Some(Value::Array(faults)) = faults {
                faults.push(json!({ "at_s": x.abs().min(3e8),
                    "command": { "crash_consumer": { "consumer": 0, "point": "now",
                        "restart_after_s": (pick % 1000) as f64 / 100.0 } } }));
            }
        }
        // Leases, service and timeouts at their smallest: work that never finishes in time.
        6 => {
            if let Some(qs) = v["queues"].as_array_mut() {
                for q in qs {
                    q["visibility_timeout_s"] = json!(0.000_001);
                }
            }
            if let Some(cs) = v["consumers"].as_array_mut() {
                for c in cs {
                    c["ordering"] =
                        json!(["none", "wait_for_gap", "reconcile"][(pick % 3) as usize]);
                }
            }
        }
        // Copy an array element (more bindings, consumers, groups…).
        _ => {
            let mut paths = Vec::new();
            number_paths(v, &mut Vec::new(), &mut paths);
            if let Some(path) = paths.get((pick % paths.len().max(1) as u64) as usize) {
                let cut = path.iter().rposition(|s| matches!(s, Step::Index(_)));
                if let Some(cut) = cut {
                    if let Some(Value::Array(items)) = at(v, &path[..cut]) {
                        if let Some(item) = items.first().cloned() {
                            items.push(item);
                        }
                    }
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let text = String::from_utf8_lossy(&bytes);
        decode_and_run(&text)?;
    }

    #[test]
    fn json_shaped_garbage_never_panics(
        example in 0usize..64,
        cut in 0usize..4_000,
        noise in "[{}\\[\\]\":,0-9a-z_.eE+-]{0,40}",
    ) {
        let names: Vec<&str> = examples::names().collect();
        let text = examples::json(names[example % names.len()]).unwrap();
        let cut = text.char_indices().map(|(i, _)| i).nth(cut).unwrap_or(text.len());
        decode_and_run(&format!("{}{noise}{}", &text[..cut], &text[cut..]))?;
    }

    #[test]
    fn mutated_examples_end_cleanly(
        example in 0usize..64,
        mutations in prop::collection::vec((any::<u8>(), any::<u64>(), 0usize..64), 1..6),
    ) {
        let names: Vec<&str> = examples::names().collect();
        let mut v: Value =
            serde_json::from_str(examples::json(names[example % names.len()]).unwrap()).unwrap();
        for (kind, pick, extreme) in mutations {
            mutate(&mut v, kind, pick, extreme);
        }
        decode_and_run(&v.to_string())?;
    }
}
