//! The `brokerlab` command: reports, examples, and bad input handled with exit code 2.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn brokerlab(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_brokerlab"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(text) = stdin {
        // The program may refuse its arguments and exit before reading: a broken pipe
        // here is part of that story, not a failure of the test.
        let _ = child.stdin.take().unwrap().write_all(text.as_bytes());
    }
    drop(child.stdin.take());
    child.wait_with_output().unwrap()
}

fn example(name: &str) -> String {
    let out = brokerlab(&["example", name], None);
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

fn assert_bad_input(out: &Output, needle: &str) {
    assert_eq!(out.status.code(), Some(2), "exit code 2");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "one line on stderr: {err}"
    );
    assert!(
        err.contains(needle),
        "stderr {err:?} should mention {needle:?}"
    );
    assert!(!err.contains("panicked"));
    assert!(out.stdout.is_empty());
}

#[test]
fn lists_and_prints_examples() {
    let out = brokerlab(&["example"], None);
    let list = String::from_utf8(out.stdout).unwrap();
    for name in ["mm1", "mm4", "burst", "crash-after-commit"] {
        assert!(list.lines().any(|l| l == name), "{name} listed");
    }
    let mm1: serde_json::Value = serde_json::from_str(&example("mm1")).unwrap();
    assert_eq!(mm1["producers"][0]["count"], 1_000_000);
    assert_bad_input(&brokerlab(&["example", "nope"], None), "no example named");
}

#[test]
fn run_prints_a_json_report() {
    let out = brokerlab(&["run", "-"], Some(&example("crash-after-commit")));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = &report["summary"];
    for key in [
        "published",
        "delivered",
        "redelivered",
        "acked",
        "lost",
        "duplicate_effects",
        "backlog_end",
        "mean_queue_wait_s",
        "mean_queue_len",
        "utilization",
        "latency_p50_s",
        "latency_p95_s",
        "latency_p99_s",
    ] {
        assert!(s.get(key).is_some(), "summary has {key}");
    }
    assert_eq!(
        (
            s["published"].as_u64(),
            s["redelivered"].as_u64(),
            s["duplicate_effects"].as_u64()
        ),
        (Some(1), Some(1), Some(1))
    );
    let first = &report["series"][0];
    for key in ["t_s", "backlog", "oldest_age_s", "in_flight"] {
        assert!(first.get(key).is_some(), "series sample has {key}");
    }
}

#[test]
fn run_csv_prints_the_series() {
    let dir = std::env::temp_dir().join(format!("brokerlab-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("burst.json");
    let mut s: serde_json::Value = serde_json::from_str(&example("burst")).unwrap();
    s["end_s"] = serde_json::json!(10.0);
    std::fs::write(&file, s.to_string()).unwrap();
    let out = brokerlab(&["run", file.to_str().unwrap(), "--csv"], None);
    assert!(out.status.success());
    let csv = String::from_utf8(out.stdout).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("t_s,backlog,oldest_age_s,in_flight,retry_waiting,dead_lettered,lag,published,delivered,redelivered,acked,lost,duplicate_effects"));
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 11, "samples at 0..=10 s");
    assert!(
        rows[10][1] > 8_000.0 && rows[10][1] < 12_000.0,
        "backlog ≈ 10,000 at 10 s"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn bad_input_is_one_line_and_exit_code_2() {
    assert_bad_input(
        &brokerlab(&["run", "/no/such/file.json"], None),
        "cannot read",
    );
    assert_bad_input(
        &brokerlab(&["run", "-"], Some("{ not json")),
        "not valid scenario JSON",
    );
    assert_bad_input(
        &brokerlab(&["run", "-"], Some("")),
        "not valid scenario JSON",
    );
    let negative = example("mm1").replace("\"rate_per_s\": 0.9", "\"rate_per_s\": -3");
    assert_bad_input(&brokerlab(&["run", "-"], Some(&negative)), "rate_per_s");
    let unknown = example("mm1").replacen("\"seed\"", "\"sneed\": 1, \"seed\"", 1);
    assert_bad_input(&brokerlab(&["run", "-"], Some(&unknown)), "unknown field");
    let endless = example("mm1").replace("\"count\": 1000000", "\"count\": null");
    assert_bad_input(&brokerlab(&["run", "-"], Some(&endless)), "never stops");
    let version = example("mm1").replace("\"version\": 2", "\"version\": 99");
    assert_bad_input(&brokerlab(&["run", "-"], Some(&version)), "version");
    assert_bad_input(&brokerlab(&["frobnicate"], None), "usage");
    assert_bad_input(
        &brokerlab(&["trace", "-", "--max", "x"], Some("{}")),
        "--max",
    );
}

#[test]
fn a_link_runs_to_the_end_or_stops_at_its_moment() {
    let out = brokerlab(&["link", "mm1", "--step", "500"], None);
    assert!(out.status.success());
    let link = String::from_utf8(out.stdout).unwrap();
    let link = link.trim();
    let rows = |args: &[&str]| {
        let out = brokerlab(args, None);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let whole = rows(&["run", "--link", link, "--csv"]);
    let at_moment = rows(&["run", "--link", link, "--moment", "--csv"]);
    assert_eq!(
        at_moment,
        rows(&["run", "--link", link, "--csv", "--moment"]),
        "the options in any order"
    );
    assert!(at_moment.lines().count() < whole.lines().count());
    let report: serde_json::Value =
        serde_json::from_str(&rows(&["run", "--link", link, "--moment"])).unwrap();
    assert_eq!(report["steps"], 500, "stopped at the link's step");
    assert_bad_input(
        &brokerlab(&["run", "--link", link, "--fast"], None),
        "--fast",
    );
}

#[test]
fn trace_speaks_english_or_spanish() {
    let scenario = example("crash-after-commit");
    let lines = |args: &[&str]| {
        let out = brokerlab(args, Some(&scenario));
        assert!(out.status.success(), "{args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let en = lines(&["trace", "-", "--max", "3"]);
    let es = lines(&["trace", "-", "--lang", "es", "--max", "3"]);
    assert_eq!(en, lines(&["trace", "-", "--max", "3", "--lang", "en"]));
    assert!(en.contains("The broker delivered #0 to C1"), "{en}");
    assert!(es.contains("El broker entregó #0 a C1"), "{es}");
    assert!(
        es.contains("1,000000 s") && es.contains("terminará a los 1,5 s"),
        "seconds with a decimal comma, in the column and the sentences: {es}"
    );
    assert!(
        en.contains("1.000000 s") && en.contains("will finish at 1.5 s"),
        "{en}"
    );
    assert_eq!(en.lines().count(), es.lines().count());
    assert_bad_input(
        &brokerlab(&["trace", "-", "--lang", "fr"], Some(&scenario)),
        "--lang",
    );
    assert_bad_input(
        &brokerlab(&["trace", "-", "--lang"], Some(&scenario)),
        "--lang",
    );
    assert_bad_input(
        &brokerlab(&["trace", "-", "--speed", "2"], Some(&scenario)),
        "--speed",
    );
}

/// The trace's last line says why the run ended, in the trace's language: drained,
/// stalled, its end time, the time limit; or, when `--max` cut it first, that the run had
/// not ended.
#[test]
fn trace_ends_with_why_the_run_ended_in_its_language() {
    let last = |scenario: &str, args: &[&str]| {
        let out = brokerlab(args, Some(scenario));
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        text.lines().last().unwrap_or_default().trim().to_string()
    };
    let trace = |name: &str, lang: &str| {
        last(
            &example(name),
            &["trace", "-", "--max", "100000", "--lang", lang],
        )
    };
    assert_eq!(
        trace("crash-after-commit", "en"),
        "The run ended after 6 steps — nothing was left to do"
    );
    assert_eq!(
        trace("crash-after-commit", "es"),
        "La ejecución terminó tras 6 pasos — no quedaba nada por hacer"
    );
    assert_eq!(
        trace("short-lease", "en"),
        "The run ended after 9 steps — the scenario's end time was reached"
    );
    assert_eq!(
        trace("short-lease", "es"),
        "La ejecución terminó tras 9 pasos — se llegó a la hora de fin del escenario"
    );
    assert!(trace("queue-vs-topic", "en")
        .ends_with("— nothing more can happen, yet messages wait that no consumer will ever take"));
    assert!(trace("queue-vs-topic", "es")
        .ends_with("— no puede pasar nada más, pero quedan mensajes que ningún consumidor tomará"));
    // A thousand arrivals 11.6 days apart, no end time: ten years pass first.
    let slow = r#"{"version": 2, "seed": 1,
        "producers": [{"name": "slow", "count": 1000, "arrivals": {"process": "constant",
            "schedule": [{"from_s": 0, "rate_per_s": 0.000001}]}}],
        "queues": [{"name": "slow", "visibility_timeout_s": 30}],
        "consumers": [{"name": "C", "ack": "after_commit",
            "service": {"fixed": {"seconds": 0.001}}}]}"#;
    assert_eq!(
        last(slow, &["trace", "-", "--max", "100000"]),
        "The run ended after 630 steps — stopped at the time limit: ten years of simulated time"
    );
    assert_eq!(
        last(slow, &["trace", "-", "--max", "100000", "--lang", "es"]),
        "La ejecución terminó tras 630 pasos — detenida en el límite de tiempo: diez años de \
         tiempo simulado"
    );
    // Cut by --max: the run goes on, and the line says so (not an end reason).
    let cac = example("crash-after-commit");
    assert_eq!(
        last(&cac, &["trace", "-", "--max", "3"]),
        "The trace was cut after 3 steps (--max 3); the run had not ended"
    );
    assert_eq!(
        last(&cac, &["trace", "-", "--max", "3", "--lang", "es"]),
        "La traza se cortó tras 3 pasos (--max 3); la ejecución no había terminado"
    );
    // Cut at exactly the run's last step: the run did end, and that is what is said.
    assert_eq!(
        last(&cac, &["trace", "-", "--max", "6"]),
        "The run ended after 6 steps — nothing was left to do"
    );
    assert_eq!(
        last(&cac, &["trace", "-", "--max", "1"]),
        "The trace was cut after 1 step (--max 1); the run had not ended"
    );
}

/// A scheduled command at or after the scenario's `end_s` is said on stderr, one line
/// each, by `run` and `trace`: one after the end never happens; one at it has nothing
/// after it to show. The report and the trace are still printed.
#[test]
fn run_and_trace_say_commands_at_or_after_the_end() {
    let mut s: serde_json::Value = serde_json::from_str(&example("short-lease")).unwrap();
    assert_eq!(s["end_s"], 12);
    s["commands"] = serde_json::json!([
        {"at_s": 5, "command": {"drop_next_ack": {"consumer": 0}}},
        {"at_s": 12, "command": {"crash_consumer": {"consumer": 0, "point": "now"}}},
        {"at_s": 200, "command": {"crash_consumer": {"consumer": 1, "point": "now"}}}
    ]);
    let scenario = s.to_string();
    let expected = "brokerlab: commands[1] (crash consumer C1 at 12 s) is at the run's very end: \
                    nothing after it can show what it does\n\
                    brokerlab: commands[2] (crash consumer C2 at 200 s) is after the run's end \
                    at 12 s: it will not happen\n";
    for args in [
        &["run", "-"][..],
        &["run", "-", "--csv"],
        &["trace", "-"],
        &["trace", "-", "--lang", "es"],
    ] {
        let out = brokerlab(args, Some(&scenario));
        assert!(out.status.success(), "{args:?}");
        assert!(!out.stdout.is_empty(), "{args:?}");
        assert_eq!(String::from_utf8(out.stderr).unwrap(), expected, "{args:?}");
    }
    // Without them, nothing is said.
    s["commands"] = serde_json::json!([
        {"at_s": 5, "command": {"drop_next_ack": {"consumer": 0}}}
    ]);
    let out = brokerlab(&["run", "-"], Some(&s.to_string()));
    assert!(out.status.success());
    assert!(out.stderr.is_empty());
}

/// A run that drains before its `end_s` covers the quiet time up to it (`end_s`), and
/// says when its last step happened (`last_step_s`), where the page's timeline ends.
#[test]
fn a_report_gives_the_time_covered_and_the_last_steps_instant() {
    let out = brokerlab(&["run", "-"], Some(&example("log-consumer-groups")));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = &report["summary"];
    assert_eq!(report["end_reason"], "drained");
    assert_eq!(
        (s["end_s"].as_f64(), s["last_step_s"].as_f64()),
        (Some(90.0), Some(54.0))
    );
}

/// `run --link` says a refused link as the page does ("This link could not be opened: …",
/// `panels.share.unreadable`), in English or, with `--lang es`, in Spanish: one line.
#[test]
fn a_refused_link_is_said_as_the_page_says_it() {
    use brokerlab_core::link::{encode, Shared, View};
    let mut scenario = brokerlab_core::examples::load("mm1").unwrap();
    scenario.producers[0].count = None;
    scenario.end_s = None;
    let link = encode(&Shared {
        scenario,
        example: None,
        commands: Vec::new(),
        step: 0,
        at_us: 0,
        view: View::default(),
    });
    let said = |extra: &[&str]| {
        let mut args = vec!["run", "--link", link.as_str()];
        args.extend_from_slice(extra);
        let out = brokerlab(&args, None);
        assert_bad_input(&out, "brokerlab: ");
        String::from_utf8(out.stderr)
            .unwrap()
            .trim_end()
            .to_string()
    };
    let en = said(&[]);
    assert_eq!(
        en,
        "brokerlab: This link could not be opened: The link's scenario is not valid: \
         producers[0].count: the producer never stops: give it a count, end its schedule \
         with rate 0, or set end_s."
    );
    assert_eq!(said(&["--lang", "en", "--csv"]), en);
    let es = said(&["--lang", "es"]);
    assert!(
        es.starts_with("brokerlab: No se pudo abrir este enlace: El escenario del enlace no es válido: producers[0].count: "),
        "{es}"
    );
    assert!(!es.contains("never stops"), "{es}");
    // The page's own sentences, from its locale files, start the same way.
    for (lang, text) in [("en", &en), ("es", &es)] {
        let path = format!(
            "{}/../locales/{lang}/panels.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let panels: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let template = panels["share"]["unreadable"].as_str().unwrap();
        let prefix = template.strip_suffix("{{ problem }}").unwrap();
        assert!(
            text.starts_with(&format!("brokerlab: {prefix}")),
            "{lang}: {text}"
        );
    }
    assert_bad_input(
        &brokerlab(&["run", "--link", &link, "--lang", "fr"], None),
        "--lang is en or es",
    );
}

/// A scenario that runs in the aggregated mode has no steps: `trace` and `compare` refuse
/// it in plain words, pointing at `brokerlab run` (which reports it), and name no
/// internal function; the page's Spanish says the same.
#[test]
fn trace_and_compare_send_an_aggregated_scenario_to_run() {
    let day = example("day-at-a-million");
    let mut burst: serde_json::Value = serde_json::from_str(&example("burst")).unwrap();
    burst["mode"] = serde_json::json!("aggregated");
    let burst = burst.to_string();
    let refusals = [
        brokerlab(&["trace", "-"], Some(&day)),
        brokerlab(&["trace", "-", "--lang", "es"], Some(&burst)),
        brokerlab(
            &["compare", "--example", "burst", "--set", "mode=aggregated"],
            None,
        ),
        brokerlab(
            &[
                "compare",
                "--example",
                "day-at-a-million",
                "--set",
                "consumers.*.replicas=2",
            ],
            None,
        ),
    ];
    for out in &refusals {
        assert_bad_input(out, "runs in aggregated mode (aggregated mode: ");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("which has no steps to trace or compare one by one")
                && err
                    .trim_end()
                    .ends_with("`brokerlab run FILE` gives its report"),
            "{err}"
        );
        assert!(!err.contains("aggregate::run"), "{err}");
    }
    // And `run` does give the report.
    let out = brokerlab(&["run", "-"], Some(&day));
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"aggregated\""));

    let s = brokerlab_core::Scenario::from_json(&burst).unwrap();
    let refused = brokerlab_core::Simulation::new(s)
        .err()
        .expect("refused")
        .problem;
    let es = brokerlab_core::refusal::problem_in(&refused, brokerlab_core::lang::Lang::Es);
    assert_eq!(
        es,
        "este escenario se ejecuta en modo agregado (modo agregado: lo pide el escenario \
         (mode: aggregated); tasas y cantidades en lugar de mensajes), que no tiene pasos que \
         seguir ni comparar uno a uno: `brokerlab run FICHERO` da su informe"
    );
}
