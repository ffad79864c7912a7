//! Jobs of messages published to a log: running while a group reading the log may still
//! read the record, failed once one never will (expired unread, dead-lettered), completed
//! once every group reading it finished it, as a queue's fan-out copies count.

use brokerlab_core::*;

mod common;
use common::{example, run};

fn jobs_at_end(s: Scenario) -> (Simulation, JobCounts) {
    let (sim, _) = run(s);
    let jobs = sim.jobs_of(None);
    (sim, jobs)
}

/// Five records a second live 3 s; the one member takes 1 s each and 30% are poison.
const EXPIRING: &str = r#"{
  "version": 2, "name": "log-expired-jobs", "seed": 2,
  "producers": [
    { "name": "clicks", "target": "clicks", "count": 20,
      "arrivals": { "process": "constant", "schedule": [{ "from_s": 0, "rate_per_s": 5 }] },
      "payload": { "poison_share": 0.3 } }
  ],
  "logs": [{ "name": "clicks", "partitions": 1, "retention_s": 3 }],
  "groups": [
    { "name": "reporting", "log": "clicks", "members": 1,
      "service": { "fixed": { "seconds": 1 } }, "commit": "after_processing" }
  ]
}"#;

#[test]
fn a_record_expired_unread_or_dead_lettered_fails_its_job_and_none_stays_running() {
    let (sim, jobs) = jobs_at_end(Scenario::from_json(EXPIRING).unwrap());
    let c = sim.counters();
    assert!(
        c.records_skipped > 0 && c.records_dead_lettered > 0,
        "{c:?}"
    );
    assert_eq!(jobs.running, 0, "{jobs:?}");
    assert_eq!(
        jobs.failed,
        c.records_skipped + c.records_dead_lettered,
        "{jobs:?}"
    );
    assert_eq!(jobs.completed, c.effects_applied, "{jobs:?}");
}

#[test]
fn the_log_retention_example_ends_with_no_job_running() {
    let (sim, jobs) = jobs_at_end(example("log-retention"));
    assert_eq!(jobs.running, 0, "{jobs:?}");
    assert_eq!(jobs.pending, 0, "{jobs:?}");
    assert!(jobs.failed >= sim.counters().records_skipped, "{jobs:?}");
    assert!(jobs.completed > 0, "{jobs:?}");
}

/// Two groups read one log: `fast` in 0.1 s a record, `slow` in 2 s.
fn two_groups(slow_extra: &str) -> Scenario {
    Scenario::from_json(&format!(
        r#"{{
  "version": 2, "name": "two-groups", "seed": 1,
  "producers": [
    {{ "name": "p", "target": "events", "count": 3,
      "arrivals": {{ "process": "constant", "schedule": [{{ "from_s": 0, "rate_per_s": 1 }}] }} }}
  ],
  "logs": [{{ "name": "events", "partitions": 1 {slow_extra} }}],
  "groups": [
    {{ "name": "fast", "log": "events", "members": 1,
      "service": {{ "fixed": {{ "seconds": 0.1 }} }}, "commit": "after_processing" }},
    {{ "name": "slow", "log": "events", "members": 1,
      "service": {{ "fixed": {{ "seconds": 2 }} }}, "commit": "after_processing" }}
  ]
}}"#
    ))
    .unwrap()
}

#[test]
fn a_job_on_a_log_read_by_two_groups_completes_when_both_have_read_it() {
    let mut sim = Simulation::new(two_groups("")).unwrap();
    let first = MsgId::from_index(0);
    let mut seen_running_after_fast = false;
    while let Some(step) = sim.step() {
        let fast_done = step.facts.iter().any(|f| {
            matches!(f, Fact::RecordProcessed { group, msg, .. }
                if *group == GroupId::new(0) && *msg == first)
        });
        if fast_done {
            // The slow group has not read it yet: no job is completed.
            assert_eq!(sim.jobs_of(None).completed, 0);
            seen_running_after_fast = true;
        }
        invariants::check(&sim).unwrap();
    }
    assert!(seen_running_after_fast);
    let jobs = sim.jobs_of(None);
    assert_eq!((jobs.completed, jobs.running, jobs.failed), (3, 0, 0));
}

#[test]
fn a_job_fails_when_one_of_two_groups_loses_its_record_to_retention() {
    // Retention of 1.5 s: the fast group reads every record, the slow one only the first.
    let (sim, jobs) = jobs_at_end(two_groups(r#", "retention_s": 1.5"#));
    assert!(sim.counters().records_skipped > 0);
    assert_eq!(jobs.running, 0, "{jobs:?}");
    assert!(jobs.failed > 0, "{jobs:?}");
    assert_eq!(jobs.completed + jobs.failed, 3, "{jobs:?}");
}

#[test]
fn a_record_dead_lettered_to_a_log_another_group_reads_completes_there() {
    let s = Scenario::from_json(
        r#"{
  "version": 2, "name": "retry-topic", "seed": 3,
  "producers": [
    { "name": "p", "target": "orders", "count": 10,
      "arrivals": { "process": "constant", "schedule": [{ "from_s": 0, "rate_per_s": 5 }] } }
  ],
  "logs": [{ "name": "orders", "partitions": 1 }, { "name": "orders-retry", "partitions": 1 }],
  "groups": [
    { "name": "main", "log": "orders", "members": 1,
      "service": { "fixed": { "seconds": 0.1 } }, "commit": "after_processing",
      "failures": { "outages": [{ "from_s": 0, "until_s": 1 }] },
      "retry": { "max_attempts": 1, "backoff_base_s": 0.1, "backoff_cap_s": 1, "jitter": "none" }, "dead_letter": "orders-retry" },
    { "name": "retry", "log": "orders-retry", "members": 1,
      "service": { "fixed": { "seconds": 0.1 } }, "commit": "after_processing" }
  ]
}"#,
    )
    .unwrap();
    let (sim, jobs) = jobs_at_end(s);
    assert!(sim.counters().records_dead_lettered > 0);
    assert_eq!((jobs.completed, jobs.running, jobs.failed), (10, 0, 0));
}
