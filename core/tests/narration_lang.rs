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

use brokerlab_core::narration::describe;
use brokerlab_core::{examples, Fact, Simulation};

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
        out += &format!("{}: {}\n", variant(&fact), describe(sim, &fact));
    }
    for name in examples::names() {
        let (mut all, mut firsts, mut seen) = (String::new(), String::new(), Vec::new());
        narrate_example(name, |sim, fact| {
            let sentence = describe(sim, fact);
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
