//! Every refusal the checks make is worded in Spanish too: broken scenarios covering the
//! checks are refused, and the Spanish sentence keeps the English one's figures and names
//! but none of its words.

use brokerlab_core::lang::Lang;
use brokerlab_core::{examples, Scenario, ScenarioError};
use serde_json::{json, Value};

type Mutation = fn(&mut Value);

/// Broken versions of built-in examples, each refused by a different check.
const CASES: &[(&str, Mutation)] = &[
    ("burst", |v| {
        v["producers"][0]["arrivals"]["schedule"][0]["rate_per_s"] = json!(-1.0)
    }),
    ("burst", |v| {
        v["producers"][0]["arrivals"]["schedule"][1]["from_s"] = json!(0.0)
    }),
    ("burst", |v| {
        v["producers"][0]["arrivals"]["schedule"][0]["from_s"] = json!(5.0)
    }),
    ("burst", |v| {
        v["producers"][0]["arrivals"]["schedule"] = json!([])
    }),
    ("burst", |v| v["producers"] = json!([])),
    ("burst", |v| v["queues"] = json!([])),
    ("burst", |v| v["consumers"][0]["replicas"] = json!(100_000)),
    ("burst", |v| v["queues"][0]["name"] = json!("")),
    ("burst", |v| v["name"] = json!("x".repeat(100))),
    ("burst", |v| {
        v["producers"][0]["name"] = json!("checkout\u{202e}tuokcehc")
    }),
    ("burst", |v| {
        v["description"] = json!("two lines\nare fine, a NUL \u{0} is not")
    }),
    ("burst", |v| v["version"] = json!(99)),
    ("burst", |v| {
        v["version"] = json!(99);
        v.as_object_mut().unwrap().remove("seed");
    }),
    ("burst", |v| v["consumers"][0]["ack"] = json!("sometimes")),
    ("burst", |v| v["consumers"][0]["colour"] = json!("red")),
    ("burst", |v| v["consumers"][0]["queue"] = json!("nowhere")),
    ("burst", |v| v["producers"][0]["target"] = json!("nowhere")),
    ("burst", |v| v["end_s"] = json!(-1.0)),
    (
        "burst",
        |v| {
            v["commands"] = json!([{"at_s": 1.0, "command": {"crash_consumer": {"consumer": 99, "point": "now"}}}])
        },
    ),
    ("burst", |v| {
        // Message by message: over the budget (in auto mode it would run aggregated).
        v["producers"][0]["arrivals"]["schedule"][1]["rate_per_s"] = json!(900_000.0);
        v["mode"] = json!("messages");
    }),
    ("burst", |v| {
        // Over the budget in auto mode: aggregated, so not message by message.
        v["producers"][0]["arrivals"]["schedule"][1]["rate_per_s"] = json!(900_000.0);
    }),
    ("burst", |v| v["mode"] = json!("aggregated")),
    ("short-lease", |v| v["mode"] = json!("aggregated")),
    ("broker-crash", |v| {
        // A restart of SQS, whose received messages stay hidden through it.
        v["queues"][0]["flavour"] = json!("sqs");
        v["mode"] = json!("aggregated");
    }),
    ("broker-crash", |v| {
        // Persistent and transient messages in one durable queue, through a restart.
        v["producers"][1]["target"] = json!("orders");
        v["mode"] = json!("aggregated");
    }),
    ("mm1", |v| {
        v["consumers"][0]["ack"] = json!("on_delivery");
        v["mode"] = json!("aggregated");
    }),
    ("burst", |v| {
        v["producers"][0]["arrivals"]["schedule"] = json!([{"from_s": 0, "rate_per_s": 5}]);
        v.as_object_mut().unwrap().remove("end_s");
    }),
    ("burst", |v| {
        let q = v["queues"][0].clone();
        v["queues"].as_array_mut().unwrap().push(q);
    }),
    ("log-consumer-groups", |v| {
        v["groups"][0]["log"] = json!("nowhere")
    }),
    ("log-consumer-groups", |v| {
        v["groups"][0]["output"] = json!("account-events")
    }),
    ("log-consumer-groups", |v| {
        v["logs"][0]["partitions"] = json!(0)
    }),
    ("log-consumer-groups", |v| {
        // A ring of dead-letter logs: account-events → retry → account-events.
        v["logs"]
            .as_array_mut()
            .unwrap()
            .push(json!({"name": "retry", "partitions": 1}));
        v["groups"][0]["dead_letter"] = json!("retry");
        v["groups"][1]["log"] = json!("retry");
        v["groups"][1]["dead_letter"] = json!("account-events");
    }),
    (
        "log-consumer-groups",
        |v| v["commands"] = json!([{"at_s": 1.0, "command": {"add_member": {"group": 9}}}]),
    ),
    ("log-consumer-groups", |v| {
        v["groups"][0]["members"] = json!(0)
    }),
    ("log-consumer-groups", |v| {
        v["commands"] = json!([
            {"at_s": 1.0, "command": {"add_member": {"group": 0}}},
            {"at_s": 2.0, "command": {"crash_member": {"group": 0, "member": 99, "point": "now"}}}
        ])
    }),
    ("fanout-subscriptions", |v| {
        v["exchanges"][0]["name"] = v["queues"][0]["name"].clone()
    }),
    // Commands that could never act: the scenario lacks what they act on.
    (
        "mm1",
        |v| v["commands"] = json!([{"at_s": 3.0, "command": {"crash_producer": {"producer": 0, "point": "after_publish_before_mark"}}}]),
    ),
    (
        "mm1",
        |v| v["commands"] = json!([{"at_s": 3.0, "command": {"crash_producer": {"producer": 0, "point": "after_commit_before_publish"}}}]),
    ),
    (
        "crash-after-commit",
        |v| {
            v["commands"] =
                json!([{"at_s": 1.0, "command": {"drop_next_confirm": {"producer": 0}}}])
        },
    ),
    ("retries-dlq-redrive", |v| {
        v["queues"][0]["dead_letter"] = json!(false)
    }),
    ("mm1", |v| {
        v["queues"]
            .as_array_mut()
            .unwrap()
            .push(json!({"name": "idle", "visibility_timeout_s": 30}));
        v["commands"] =
            json!([{"at_s": 1.0, "command": {"dependency_outage": {"queue": "idle", "for_s": 5}}}])
    }),
    // Names the page and the narration tell components apart by (as a version-4 file:
    // older files have clashes renamed on load).
    ("crash-after-commit", |v| {
        v["version"] = json!(4);
        let c = v["consumers"][0].clone();
        v["consumers"].as_array_mut().unwrap().push(c);
    }),
    ("crash-after-commit", |v| {
        v["version"] = json!(4);
        v["consumers"][0]["name"] = json!("C");
        v["consumers"][0]["replicas"] = json!(2);
        let mut c = v["consumers"][0].clone();
        c["name"] = json!("C2");
        c["replicas"] = json!(1);
        v["consumers"].as_array_mut().unwrap().push(c);
    }),
    ("crash-after-commit", |v| {
        v["version"] = json!(4);
        let p = v["producers"][0].clone();
        v["producers"].as_array_mut().unwrap().push(p);
    }),
    ("crash-after-commit", |v| {
        v["version"] = json!(4);
        // The second, unnamed, is P2; the third is named P2.
        let mut p = v["producers"][0].clone();
        p.as_object_mut().unwrap().remove("name");
        v["producers"].as_array_mut().unwrap().push(p.clone());
        p["name"] = json!("P2");
        v["producers"].as_array_mut().unwrap().push(p);
    }),
    ("log-consumer-groups", |v| {
        v["version"] = json!(4);
        v["groups"][1]["name"] = v["groups"][0]["name"].clone();
    }),
    ("dep-admission", |v| {
        v["consumers"][0].as_object_mut().unwrap().remove("calls");
        v["commands"] = json!([{"at_s": 1.0, "command": {"slow_dependency": {"dependency": "db", "factor": 5, "for_s": 3}}}])
    }),
];

fn refusal(example: &str, mutate: Mutation) -> ScenarioError {
    let mut v: Value = serde_json::from_str(examples::json(example).unwrap()).unwrap();
    mutate(&mut v);
    let text = v.to_string();
    match Scenario::from_json(&text) {
        Err(e) => e,
        Ok(s) => brokerlab_core::Simulation::new(s)
            .err()
            .unwrap_or_else(|| panic!("{example}: the broken scenario was accepted: {text}")),
    }
}

/// Words of the English sentences that must not survive in Spanish.
const ENGLISH: &[&str] = &[
    " must ", "there is", " the ", " is ", " at most", "needs", " and ", "would ", "limit",
    " at line", "expected", "unknown", "missing", "invalid", " not ", " has ",
];

#[test]
fn every_refusal_reads_in_spanish_with_the_same_figures() {
    for (i, (example, mutate)) in CASES.iter().enumerate() {
        let e = refusal(example, *mutate);
        let (en, es) = (e.problem_in(Lang::En), e.problem_in(Lang::Es));
        assert_eq!(
            en, e.problem,
            "case {i}: English is the core's own sentence"
        );
        assert_ne!(es, en, "case {i}: {en:?} has no Spanish form");
        let padded = format!(" {es} ");
        for word in ENGLISH {
            assert!(
                !padded.contains(word),
                "case {i}: {word:?} left in {es:?} (from {en:?})"
            );
        }
        let digits = |s: &str| s.chars().filter(char::is_ascii_digit).collect::<String>();
        assert_eq!(
            digits(&es),
            digits(&en),
            "case {i}: the figures are kept: {es:?}"
        );
        assert!(
            e.text_in(Lang::Es).starts_with(&e.field),
            "case {i}: the field leads"
        );
    }
}

/// The page's editor on crash-after-commit, its consumer C1 duplicated: refused, naming
/// the second one's name, in both languages.
#[test]
fn a_duplicated_consumer_name_is_refused_in_both_languages() {
    let e = refusal("crash-after-commit", |v| {
        v["version"] = json!(brokerlab_core::SCENARIO_VERSION);
        let c = v["consumers"][0].clone();
        v["consumers"].as_array_mut().unwrap().push(c);
    });
    assert_eq!(
        e.text_in(Lang::En),
        r#"consumers[1].name: "C1" is used twice"#
    );
    assert_eq!(
        e.text_in(Lang::Es),
        r#"consumers[1].name: "C1" aparece dos veces"#
    );
    // A replica numbered like another consumer: the sentence says why.
    let e = refusal("crash-after-commit", |v| {
        v["version"] = json!(brokerlab_core::SCENARIO_VERSION);
        v["consumers"][0]["replicas"] = json!(2);
        v["consumers"][0]["name"] = json!("C");
        let mut c = v["consumers"][0].clone();
        c.as_object_mut().unwrap().remove("name");
        c["replicas"] = json!(1);
        v["consumers"].as_array_mut().unwrap().insert(0, c);
    });
    assert_eq!(
        e.text_in(Lang::En),
        r#"consumers[1].name: "C1" is used twice (replicas and unnamed consumers are numbered)"#
    );
    assert_eq!(
        e.text_in(Lang::Es),
        r#"consumers[1].name: "C1" aparece dos veces (las réplicas y los consumidores sin nombre se numeran)"#
    );
}

#[test]
fn a_refused_link_reads_in_spanish() {
    use brokerlab_core::link::{self, Shared};
    use brokerlab_core::refusal::link_problem_in;
    let shared = |scenario: Scenario, example: Option<&str>| Shared {
        scenario,
        example: example.map(str::to_string),
        commands: Vec::new(),
        step: 0,
        at_us: 0,
        view: link::View::default(),
    };
    let burst = examples::load("burst").unwrap();
    let good = link::encode(&shared(burst.clone(), Some("burst")));
    let mut empty_name = burst.clone();
    empty_name.queues[0].name.clear();
    let mut broken: Vec<String> = vec![
        String::new(),
        "hello".into(),
        "v9.abc".into(),
        "v1.***".into(),
        good[..good.len() / 2].to_string(),
        "v1.".to_string() + &"A".repeat(link::LINK_CHARS_MAX),
        link::encode(&shared(empty_name, None)),
    ];
    let mut far = shared(burst, Some("burst"));
    far.step = link::LINK_STEP_MAX + 1;
    broken.push(link::encode(&far));
    for text in broken {
        let en = link::decode(&text).expect_err("refused").to_string();
        let es = link_problem_in(&en, Lang::Es);
        assert_ne!(es, en);
        let padded = format!(" {es} ");
        for word in ENGLISH.iter().chain(&[" link ", "The "]) {
            assert!(
                !padded.contains(word),
                "{word:?} left in {es:?} (from {en:?})"
            );
        }
    }
}

/// A whole number larger than its field takes is said to be too large, with the bound,
/// in either language: JSON reads it as a float, whose digits are never shown.
#[test]
fn a_number_too_large_for_its_field_is_said_so() {
    let mut doc: serde_json::Value =
        serde_json::from_str(examples::json("burst").unwrap()).unwrap();
    for seed in [
        "1180591620717411303424",
        "1.1805916207174113e+21",
        "18446744073709551616",
    ] {
        doc["seed"] = serde_json::from_str(seed).unwrap();
        let e = Scenario::from_json(&doc.to_string()).expect_err("too large");
        assert_eq!(
            e.text_in(Lang::En),
            "seed: is too large (at most 18,446,744,073,709,551,615)",
            "{seed}"
        );
        assert_eq!(
            e.text_in(Lang::Es),
            "seed: es demasiado grande (como mucho 18.446.744.073.709.551.615)"
        );
    }
    // The largest it takes is no problem; a negative one is not "too large".
    doc["seed"] = serde_json::json!(u64::MAX);
    assert!(Scenario::from_json(&doc.to_string()).is_ok());
    doc["seed"] = serde_json::json!(-1);
    let e = Scenario::from_json(&doc.to_string()).expect_err("negative");
    assert!(!e.text_in(Lang::En).contains("too large"), "{e}");
}

#[test]
fn broken_json_reads_in_spanish() {
    let good = examples::json("burst").unwrap();
    for text in [
        "{".to_string(),
        "{\"name\" 1}".to_string(),
        "{\"name\": \"x\",}".to_string(),
        "{\"name\": \"x\"} x".to_string(),
        "{1: 2}".to_string(),
        "{\"name\": \"x".to_string(),
        "[1, 2".to_string(),
        good.replacen(",", "", 1),
        good[..good.len() / 2].to_string(),
    ] {
        let e = Scenario::from_json(&text).expect_err("refused");
        let es = e.problem_in(Lang::Es);
        let padded = format!(" {es} ");
        for word in ENGLISH.iter().chain(&["EOF", "while", "trailing"]) {
            assert!(
                !padded.contains(word),
                "{word:?} left in {es:?} (from {})",
                e.problem
            );
        }
    }
}

#[test]
fn a_value_of_the_wrong_type_names_its_field_in_spanish_too() {
    let cases: &[(Mutation, &str, &str, &str)] = &[
        (
            |v| v["seed"] = json!(null),
            "seed",
            "seed: invalid type: null, expected a whole number, 0 or more",
            "seed: tipo no válido: null; se esperaba un número entero, 0 o más",
        ),
        (
            |v| v["seed"] = json!(1.5),
            "seed",
            "seed: invalid type: 1.5, expected a whole number, 0 or more",
            "seed: tipo no válido: 1,5; se esperaba un número entero, 0 o más",
        ),
        (
            |v| v["consumers"][0]["prefetch"] = json!("two"),
            "consumers[0].prefetch",
            "consumers[0].prefetch: invalid type: the text \"two\", expected a whole number, 0 or more",
            "consumers[0].prefetch: tipo no válido: el texto \"two\"; se esperaba un número entero, 0 o más",
        ),
        (
            |v| v["producers"][0]["arrivals"]["schedule"][1]["rate_per_s"] = json!([]),
            "producers[0].arrivals.schedule[1].rate_per_s",
            "producers[0].arrivals.schedule[1].rate_per_s: invalid type: a list, expected a number",
            "producers[0].arrivals.schedule[1].rate_per_s: tipo no válido: una lista; se esperaba un número",
        ),
        (
            |v| v["consumers"][0]["ack"] = json!("sometimes"),
            "consumers[0].ack",
            "consumers[0].ack: unknown variant `sometimes`, expected `on_delivery` or `after_commit`",
            "consumers[0].ack: valor desconocido `sometimes`; se esperaba `on_delivery` o `after_commit`",
        ),
    ];
    for (mutate, field, en, es) in cases {
        let e = refusal("burst", *mutate);
        assert_eq!(&e.field, field);
        assert!(
            e.text_in(Lang::En).starts_with(en),
            "{:?}",
            e.text_in(Lang::En)
        );
        assert!(
            e.text_in(Lang::Es).starts_with(es),
            "{:?}",
            e.text_in(Lang::Es)
        );
        let padded = format!(" {} ", e.problem_in(Lang::Es));
        for word in ENGLISH {
            assert!(!padded.contains(word), "{word:?} left in {padded:?}");
        }
    }
}
