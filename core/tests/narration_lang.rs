//! The narration in English and Spanish.
//!
//! * The English is pinned: `narration/english.txt` was written from the narration as it
//!   was before Spanish was added, and the English output must stay exactly that.
//! * The Spanish is checked over the same facts: every sentence is there, differs from
//!   the English and carries no stray English word.
//!
//! The facts are a catalogue reaching every branch of the narration (`narration/facts.rs`)
//! plus the first steps of every built-in example, with its own seed.

#[path = "narration/facts.rs"]
mod facts;
#[path = "common/spanish.rs"]
mod spanish;

use brokerlab_core::lang::Lang;
use brokerlab_core::narration::describe;
use brokerlab_core::{examples, ConsumerId, Fact, GroupId, Simulation};
use spanish::{digit_runs, english_words};

/// Steps of each example narrated.
const STEPS: u64 = 1_500;
const ENGLISH: &str = include_str!("narration/english.txt");

/// The fact's variant name ("Delivered" for `Delivered { .. }`).
fn variant(fact: &Fact) -> String {
    let debug = format!("{fact:?}");
    debug
        .split([' ', '{', '('])
        .next()
        .unwrap_or_default()
        .to_string()
}

/// FNV-1a, 64 bits: a stable hash of a text, the same on every platform.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Every fact of the first [`STEPS`] steps of example `name`, each with the simulation as
/// it was right after its step (as the runner and the page narrate).
fn narrate_example(name: &str, mut say: impl FnMut(&Simulation, &Fact)) {
    let mut sim = Simulation::new(examples::load(name).expect("built in")).expect("valid");
    while sim.steps() < STEPS {
        let Some(step) = sim.step() else { break };
        let facts = step.facts.to_vec();
        for fact in &facts {
            say(&sim, fact);
        }
    }
}

/// The English narration, summed up: every catalogue sentence, then per example the
/// number of sentences, their hash and the first sentence of each fact variant.
fn english_report() -> String {
    let contexts = facts::contexts();
    let mut out = String::from("# catalogue\n");
    for (sim, fact) in facts::catalogue(&contexts) {
        out += &format!("{}: {}\n", variant(&fact), describe(sim, &fact, Lang::En));
    }
    for name in examples::message_by_message() {
        let (mut all, mut firsts, mut seen) = (String::new(), String::new(), Vec::new());
        narrate_example(name, |sim, fact| {
            let sentence = describe(sim, fact, Lang::En);
            all += &sentence;
            all.push('\n');
            if !seen.contains(&variant(fact)) {
                seen.push(variant(fact));
                firsts += &format!("{}: {sentence}\n", variant(fact));
            }
        });
        let lines = all.lines().count();
        out += &format!(
            "# {name}: {lines} sentences, fnv {:016x}\n{firsts}",
            fnv(&all)
        );
    }
    out
}

#[test]
fn the_english_narration_is_unchanged() {
    let now = english_report();
    if std::env::var_os("BROKERLAB_BLESS").is_some() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/narration/english.txt");
        std::fs::write(path, &now).expect("write the expectation");
        return;
    }
    for (i, (was, is)) in ENGLISH.lines().zip(now.lines()).enumerate() {
        assert_eq!(is, was, "line {} of narration/english.txt", i + 1);
    }
    assert_eq!(now.lines().count(), ENGLISH.lines().count());
}

/// Every variant of [`Fact`], read from its definition, so that a new fact the catalogue
/// does not narrate fails the coverage test.
fn fact_variants() -> Vec<String> {
    let source = include_str!("../src/step.rs");
    let start = source.find("pub enum Fact {").expect("the enum");
    let body = &source[start..];
    let body = &body[..body.find("\n}\n").expect("its end")];
    body.lines()
        .filter_map(|l| l.strip_prefix("    ")?.strip_suffix(" {"))
        .filter(|name| name.chars().all(char::is_alphanumeric))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_catalogue_reaches_every_fact() {
    let variants = fact_variants();
    assert!(variants.len() > 80, "read {} variants", variants.len());
    let contexts = facts::contexts();
    let reached: Vec<String> = facts::catalogue(&contexts)
        .iter()
        .map(|(_, f)| variant(f))
        .collect();
    for v in &variants {
        assert!(reached.contains(v), "the catalogue has no {v}");
    }
}

/// Every name in `sim`, lowercased: names are never translated, and some are English
/// words (log-commit-modes has a group called "before").
fn names(sim: &Simulation) -> Vec<String> {
    let s = sim.scenario();
    let mut names: Vec<String> = s.producers.iter().map(|p| p.name.clone()).collect();
    names.extend(s.queues.iter().map(|q| q.name.clone()));
    names.extend(
        (0..sim.consumer_count()).filter_map(|c| sim.consumer(ConsumerId::new(c)).map(|v| v.name)),
    );
    names.extend((0..sim.log_count()).map(|l| sim.log_name(l)));
    for g in (0..sim.group_count()).map(GroupId::new) {
        names.push(sim.group_name(g));
        let members = (0..).map(|m| sim.member_name(g, m));
        names.extend(members.take_while(|n| !n.starts_with("member ")));
    }
    names.iter().map(|n| n.to_lowercase()).collect()
}

/// Why the Spanish `es` of a fact whose English is `en` is not a translation, if it is not.
fn not_spanish(sim: &Simulation, en: &str, es: &str) -> Option<String> {
    if es.trim().is_empty() {
        return Some("it is empty".into());
    }
    if es == en {
        return Some("it is the English".into());
    }
    let names = names(sim);
    let english: Vec<String> = english_words(es)
        .into_iter()
        .filter(|w| !names.contains(w))
        .collect();
    if !english.is_empty() {
        return Some(format!("it has English words {english:?}"));
    }
    if digit_runs(es) != digit_runs(en) {
        return Some("it does not name the numbers the English does".into());
    }
    if !es.ends_with('.') {
        return Some("it is not a whole sentence".into());
    }
    None
}

#[test]
fn every_fact_of_the_catalogue_is_told_in_spanish() {
    let contexts = facts::contexts();
    let mut seen = std::collections::HashSet::new();
    for (sim, fact) in facts::catalogue(&contexts) {
        let (en, es) = (
            describe(sim, &fact, Lang::En),
            describe(sim, &fact, Lang::Es),
        );
        if let Some(why) = not_spanish(sim, &en, &es) {
            panic!("{fact:?}: {why}\n  en: {en}\n  es: {es}");
        }
        // Different facts of the catalogue say different things in English; so must the
        // Spanish (a branch that fell back on another's sentence would repeat it).
        assert!(
            seen.insert(es.clone()) || en_repeats(&contexts, &en),
            "repeated: {es}"
        );
    }
}

/// Whether the English sentence `en` is said by more than one fact of the catalogue.
fn en_repeats(contexts: &facts::Contexts, en: &str) -> bool {
    let said = facts::catalogue(contexts)
        .iter()
        .filter(|(sim, f)| describe(sim, f, Lang::En) == en)
        .count();
    said > 1
}

#[test]
fn every_example_is_told_in_spanish() {
    let mut told = 0;
    for name in examples::message_by_message() {
        narrate_example(name, |sim, fact| {
            let (en, es) = (describe(sim, fact, Lang::En), describe(sim, fact, Lang::Es));
            if let Some(why) = not_spanish(sim, &en, &es) {
                panic!("{name}: {fact:?}: {why}\n  en: {en}\n  es: {es}");
            }
            told += 1;
        });
    }
    assert!(told > 40_000, "{told} facts told");
}

#[test]
fn one_delivery_is_named_in_the_singular_in_both_languages() {
    let contexts = facts::contexts();
    let mut told = 0;
    for (sim, fact) in facts::catalogue(&contexts) {
        if matches!(fact, Fact::DeadLettered { attempts: 1, .. }) {
            for lang in [Lang::En, Lang::Es] {
                let text = describe(sim, &fact, lang);
                assert!(
                    !text.contains("1 deliveries") && !text.contains("1 entregas"),
                    "{text}"
                );
            }
            let (en, es) = (
                describe(sim, &fact, Lang::En),
                describe(sim, &fact, Lang::Es),
            );
            if en.contains("1 delivery") {
                assert!(es.contains("1 entrega"), "{es}");
                told += 1;
            }
        }
    }
    assert_eq!(
        told, 2,
        "retries used up and the delivery limit, each after one delivery"
    );
}

#[test]
fn spanish_seconds_have_a_decimal_comma() {
    let contexts = facts::contexts();
    let sentences: Vec<(String, String)> = facts::catalogue(&contexts)
        .iter()
        .map(|(sim, f)| (describe(sim, f, Lang::En), describe(sim, f, Lang::Es)))
        .collect();
    let with_seconds = sentences.iter().filter(|(en, _)| en.contains(" s")).count();
    assert!(with_seconds > 10);
    for (en, es) in &sentences {
        for (i, _) in es.match_indices(" s") {
            let before = &es[..i];
            let number: String = before
                .chars()
                .rev()
                .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ',')
                .collect();
            assert!(
                !number.contains('.'),
                "a decimal point in {es:?} (en: {en:?})"
            );
        }
    }
    let retry = sentences
        .iter()
        .find(|(en, _)| en.contains("publish it again from 2.5 s"))
        .expect("the outbox retry");
    assert!(retry.1.contains("a partir de los 2,5 s"), "{}", retry.1);
}

#[test]
fn the_checks_catch_english_and_lost_numbers() {
    assert_eq!(
        english_words("El broker entregó #7 a C1; the lease is over."),
        ["the", "is"]
    );
    assert_eq!(english_words("order-service's relay"), ["'s"]);
    assert!(english_words("order-service publicó #7 en el broker (intento 2).").is_empty());
    assert_eq!(
        digit_runs("a los 1,5 s (intento 2)"),
        digit_runs("at 1.5 s (attempt 2)")
    );
    assert_ne!(
        digit_runs("a los 1,5 s"),
        digit_runs("at 1.5 s (attempt 2)")
    );
}

/// Every sentence of a whole run of `s`, in `lang`, with its fact.
fn told(s: &brokerlab_core::Scenario, lang: Lang) -> Vec<(Fact, String)> {
    let mut sim = Simulation::new(s.clone()).expect("valid");
    let mut out = Vec::new();
    while let Some(step) = sim.step() {
        let facts = step.facts.to_vec();
        out.extend(facts.iter().map(|f| (*f, describe(&sim, f, lang))));
    }
    out
}

#[test]
fn nothing_is_announced_at_a_time_past_the_runs_end() {
    // A broker crash at 5 s restarting 20 s later, in a run that ends at 10 s: the crash
    // sentence named the restart at 25 s, which the run never reaches. And with a lease
    // of ten years and no end time, a delivery named a lease running out (a redelivery)
    // past the ten-year limit where such a run stops.
    let text = r#"{ "version": 3, "seed": 1,
        "producers": [{ "name": "p", "count": 3,
            "arrivals": { "process": "constant", "schedule": [{ "from_s": 0, "rate_per_s": 1 }] } }],
        "queues": [{ "name": "q", "visibility_timeout_s": 315360000 }],
        "consumers": [{ "name": "c", "service": { "fixed": { "seconds": 0.5 } }, "ack": "after_commit" }],
        "commands": [{ "at_s": 5, "command": { "crash_broker": { "restart_after_s": 20 } } }] }"#;
    let endless = brokerlab_core::Scenario::from_json(text).unwrap();
    let mut ends = endless.clone();
    ends.end_s = Some(10.0);
    let sentence = |s: &brokerlab_core::Scenario, lang: Lang, variant: &str| {
        told(s, lang)
            .into_iter()
            .find(|(f, _)| self::variant(f) == variant)
            .map(|(_, text)| text)
            .unwrap_or_else(|| panic!("no {variant}"))
    };
    let crash = sentence(&ends, Lang::En, "BrokerCrashed");
    assert!(!crash.contains("25 s"), "{crash}");
    assert!(crash.ends_with("It stays down to the end: its restart would come after the run ends."));
    let crash = sentence(&ends, Lang::Es, "BrokerCrashed");
    assert!(!crash.contains("25 s"), "{crash}");
    assert!(
        crash.ends_with("su reinicio llegaría después de que termine la ejecución."),
        "{crash}"
    );
    // Without an end time the restart comes within the run, and is named.
    let crash = sentence(&endless, Lang::En, "BrokerCrashed");
    assert!(crash.ends_with("It will restart at 25 s."), "{crash}");
    assert!(sentence(&endless, Lang::Es, "BrokerCrashed").ends_with("Se reiniciará a los 25 s."));
    for lang in [Lang::En, Lang::Es] {
        let delivered = sentence(&endless, lang, "Delivered");
        assert!(!delivered.contains("315"), "{delivered}");
    }
    let delivered = sentence(&endless, Lang::En, "Delivered");
    assert!(
        delivered
            .ends_with("its lease outlasts the run, so unless acked it stays hidden to the end."),
        "{delivered}"
    );
}

#[test]
fn a_rebalance_with_one_member_up_is_told_in_the_singular() {
    // log-commit-modes: each group of two loses a member at 3 s, and rebalances with the
    // one left ("1 members up", "1 miembros activos" before).
    let scenario = examples::load("log-commit-modes").expect("built in");
    for (lang, one, many) in [
        (Lang::En, "(1 member up)", "1 members"),
        (Lang::Es, "(1 miembro activo)", "1 miembros"),
    ] {
        let rebalances: Vec<String> = told(&scenario, lang)
            .into_iter()
            .filter(|(f, _)| matches!(f, Fact::RebalanceStarted { members_up: 1, .. }))
            .map(|(_, text)| text)
            .collect();
        assert!(!rebalances.is_empty());
        for text in rebalances {
            assert!(text.contains(one) && !text.contains(many), "{text}");
        }
    }
}
