//! `brokerlab compare` and `brokerlab import`: what they print, and bad input handled
//! with one line on stderr and exit code 2.

use std::process::{Command, Output};

use brokerlab_core::link;
use brokerlab_core::Scenario;

fn brokerlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_brokerlab"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn assert_bad_input(out: &Output, needle: &str) {
    assert_eq!(out.status.code(), Some(2), "exit code 2");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.contains(needle), "{err:?} should mention {needle:?}");
}

#[test]
fn compare_prints_both_sides_and_what_differs() {
    let out = stdout(&brokerlab(&[
        "compare",
        "--example",
        "inbox-vs-check",
        "--set",
        "consumers.*.idempotency=none",
        "--link",
    ]));
    let row = |name: &str| {
        out.lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no {name} row in {out}"))
            .split_whitespace()
            .skip(1)
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let created = row("created");
    assert_eq!(created.len(), 2, "same on both sides: no difference column");
    assert_eq!(created[0], created[1]);
    let skipped = row("duplicates_skipped");
    assert_eq!(skipped[1], "0");
    assert_eq!(skipped[2], format!("-{}", skipped[0]));
    let differing = out.lines().find(|l| l.starts_with("differing:")).unwrap();
    assert!(differing.contains("duplicate_effects") && !differing.contains("created"));
    let last = out.lines().last().unwrap();
    let shared = link::decode_comparison(last).expect("the printed link opens");
    assert_eq!(shared.example.as_deref(), Some("inbox-vs-check"));
    assert_eq!(shared.variant.changes.len(), 1);
}

#[test]
fn compare_stops_both_sides_at_the_same_instant() {
    let out = stdout(&brokerlab(&[
        "compare",
        "--example",
        "burst",
        "--set",
        "consumers.*.prefetch=5",
        "--until",
        "2.5",
    ]));
    assert!(out.contains("at 2.500 s"), "{out}");
}

#[test]
fn compare_refuses_bad_options_in_one_line() {
    assert_bad_input(&brokerlab(&["compare"]), "--example");
    assert_bad_input(
        &brokerlab(&["compare", "--example", "burst", "--set", "seed=4"]),
        "seed",
    );
    assert_bad_input(
        &brokerlab(&["compare", "--example", "burst", "--set", "nope"]),
        "KEY=VALUE",
    );
    assert_bad_input(
        &brokerlab(&["compare", "--example", "burst", "--until", "soon"]),
        "--until",
    );
}

#[test]
fn import_prints_a_scenario_and_names_what_it_left_out() {
    let out = brokerlab(&[
        "import",
        "rabbitmq",
        "tests/import/rabbitmq-unsupported.json",
    ]);
    let scenario = Scenario::from_json(&stdout(&out)).expect("a valid scenario");
    assert_eq!(scenario.queues.len(), 2);
    let notes = String::from_utf8(out.stderr).unwrap();
    assert!(notes
        .lines()
        .any(|l| l.contains("x-max-priority") && l.contains("jobs")));
    assert!(notes.lines().any(|l| l.contains("headers")));
    let es = brokerlab(&["import", "kafka", "tests/import/kafka.json", "--lang", "es"]);
    Scenario::from_json(&stdout(&es)).expect("a valid scenario");
    let notes = String::from_utf8(es.stderr).unwrap();
    assert!(notes.contains("Se ignoró «replication_factor»"), "{notes}");
}

#[test]
fn import_refuses_bad_input_in_one_line() {
    assert_bad_input(
        &brokerlab(&["import", "rabbitmq", "tests/import/kafka.json"]),
        "nothing to simulate",
    );
    assert_bad_input(
        &brokerlab(&["import", "kafka", "tests/import/rabbitmq-supported.json"]),
        "not in the expected form",
    );
    assert_bad_input(
        &brokerlab(&["import", "sqs", "x.json"]),
        "rabbitmq or kafka",
    );
}
