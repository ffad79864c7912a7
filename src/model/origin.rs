//! Where the scenario on show comes from: a built-in example as it ships, or one changed
//! under the same name (in the editor, by a file or a link). A changed example keeps the
//! example's name, but its title and description were written for the original: the
//! picker says it was edited, so a student opening a link does not read "one consumer"
//! above three.

use brokerlab_core::lessons::Lang;
use brokerlab_core::{examples, Scenario};

use crate::i18n::{locale, td_string};

/// The name the picker lists a scenario by: its own, or "untitled" for a file that has
/// none (a version-1 file may leave it out), never a blank.
pub fn shown_name(name: &str, lang: Lang) -> String {
    match name.trim() {
        "" => td_string!(locale(lang), stage.picker.untitled).to_string(),
        name => name.to_string(),
    }
}

/// Whether `scenario` carries a built-in example's name but differs from it in anything
/// other than its seed (a new seed is the same scenario run again, which the seed
/// control offers), how that seed's randomness is split (compare mode gives producers
/// streams of their own, and side A keeps them after comparing stops) and its faults
/// hidden for an interview.
pub fn is_edited_example(scenario: &Scenario) -> bool {
    let Some(original) = examples::load(&scenario.name) else {
        return false;
    };
    let mut same_seed = scenario.clone();
    same_seed.seed = original.seed;
    same_seed.random_streams = original.random_streams;
    same_seed.interventions.clear();
    // An interview's hidden fault is no edit to say: the picker would give it away.
    same_seed.commands.retain(|c| !c.unannounced);
    same_seed != original
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scenario_without_a_name_is_listed_as_untitled() {
        // A version-1 file as core/tests/scenario.rs has one: no name.
        let v1 = Scenario::from_json(
            r#"{ "version": 1, "seed": 1,
                "producers": [{ "name": "p", "arrivals": { "process": "constant",
                    "schedule": [{ "from_s": 0, "rate_per_s": 1 }] }, "count": 3 }],
                "queues": [{ "name": "q", "visibility_timeout_s": 5 }],
                "consumers": [{ "name": "c", "service": { "fixed": { "seconds": 0.1 } },
                    "ack": "after_commit" }] }"#,
        )
        .expect("a version-1 file opens");
        assert_eq!(v1.name, "", "the fixture has no name");
        assert_eq!(shown_name(&v1.name, Lang::En), "untitled");
        assert_eq!(shown_name(" ", Lang::Es), "sin título");
        assert_eq!(shown_name("mine", Lang::Es), "mine");
    }

    #[test]
    fn an_example_as_shipped_or_reseeded_is_not_edited() {
        for name in examples::names() {
            let mut s = examples::load(name).expect("built in");
            assert!(!is_edited_example(&s), "{name}");
            s.seed = s.seed.wrapping_add(1);
            assert!(!is_edited_example(&s), "{name} with another seed");
            // Side A after comparing: the same scenario, its randomness split per producer.
            let compared = crate::model::compare::for_comparison(s.clone());
            assert_ne!(compared, s);
            assert!(!is_edited_example(&compared), "{name} after comparing");
        }
    }

    #[test]
    fn a_changed_example_under_its_own_name_is_edited_and_a_renamed_one_is_not_an_example() {
        let mut s = examples::load("mm1").expect("built in");
        s.consumers[0].replicas = 3;
        assert!(is_edited_example(&s));
        s.name = "mine".into();
        assert!(!is_edited_example(&s), "not an example's name at all");
        let mut hidden = examples::load("mm4").expect("built in");
        hidden.commands.push(brokerlab_core::ScheduledCommand {
            at_s: 2.0,
            command: brokerlab_core::Command::CrashConsumer {
                consumer: brokerlab_core::ConsumerId::new(0),
                point: brokerlab_core::CrashPoint::Now,
                restart_after_s: None,
            },
            unannounced: true,
        });
        assert!(
            !is_edited_example(&hidden),
            "a hidden fault is not given away"
        );
        hidden.commands[0].unannounced = false;
        assert!(
            is_edited_example(&hidden),
            "a scheduled crash on show is an edit"
        );
        let mut text = examples::load("mm1").expect("built in");
        text.description = "Another story".into();
        assert!(is_edited_example(&text));
    }
}
