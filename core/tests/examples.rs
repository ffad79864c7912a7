//! The catalogue of built-in examples: every scenario file is in it, with a readable,
//! unique title and a topic, and the picker's groups list each example exactly once.

use std::collections::HashSet;

use brokerlab_core::examples::{self, Topic, EXAMPLES};
use brokerlab_core::lang::Lang;

#[path = "common/spanish.rs"]
mod spanish;

use spanish::{digit_runs, english_words};

#[test]
fn every_scenario_file_is_in_the_catalogue_under_its_own_name() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios");
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .expect("the scenarios folder")
        .map(|entry| {
            entry
                .expect("a file")
                .file_name()
                .into_string()
                .expect("utf-8")
        })
        .filter_map(|f| f.strip_suffix(".json").map(str::to_string))
        .collect();
    files.sort();
    let mut listed: Vec<String> = examples::names().map(str::to_string).collect();
    listed.sort();
    assert_eq!(files, listed);
    for e in EXAMPLES {
        let scenario = examples::load(e.name).expect("valid");
        assert_eq!(scenario.name, e.name, "{}: the file's name field", e.name);
    }
}

#[test]
fn every_example_has_a_readable_unique_title() {
    let mut seen = HashSet::new();
    for e in EXAMPLES {
        let title = e.title(Lang::En).trim();
        assert!(!title.is_empty(), "{} has no title", e.name);
        assert_ne!(title, e.name, "{}: the title is just the slug", e.name);
        assert!(title.contains(' '), "{}: “{title}” is not words", e.name);
        assert!(
            title.len() <= 60,
            "{}: “{title}” is too long for a menu",
            e.name
        );
        assert!(
            seen.insert(title.to_lowercase()),
            "two examples are called “{title}”"
        );
    }
}

#[test]
fn the_groups_list_every_example_once_under_its_topic() {
    let groups = examples::by_topic();
    let topics: Vec<Topic> = groups.iter().map(|(t, _)| *t).collect();
    assert_eq!(topics, Topic::ALL, "every topic has an example, in order");
    let mut listed = Vec::new();
    for (topic, of_topic) in &groups {
        assert!(!topic.title(Lang::En).is_empty());
        for e in of_topic {
            assert_eq!(e.topic, *topic, "{} is under the wrong topic", e.name);
            listed.push(e.name);
        }
    }
    listed.sort_unstable();
    let mut all: Vec<&str> = examples::names().collect();
    all.sort_unstable();
    assert_eq!(listed, all);
    assert_eq!(examples::find("burst").map(|e| e.topic), Some(Topic::Load));
    assert!(examples::find("no-such-example").is_none());
}

#[test]
fn every_example_has_a_spanish_title_and_description() {
    let mut titles = HashSet::new();
    for e in EXAMPLES {
        let (en, es) = (e.title(Lang::En), e.title(Lang::Es));
        assert!(!es.trim().is_empty(), "{} has no Spanish title", e.name);
        assert_ne!(es, en, "{}: the Spanish title is the English", e.name);
        assert!(
            es.chars().count() <= 60,
            "{}: “{es}” is too long for a menu",
            e.name
        );
        assert!(
            titles.insert(es.to_lowercase()),
            "two examples are called “{es}”"
        );
        assert_eq!(
            english_words(es),
            Vec::<String>::new(),
            "{}: “{es}”",
            e.name
        );

        let (en, es) = (e.description(Lang::En), e.description(Lang::Es));
        assert!(!en.trim().is_empty(), "{} has no description", e.name);
        assert!(
            !es.trim().is_empty(),
            "{} has no Spanish description",
            e.name
        );
        assert_ne!(es, en, "{}: the Spanish description is the English", e.name);
        assert_eq!(english_words(&es), Vec::<String>::new(), "{}: {es}", e.name);
        // The same figures, written the Spanish way (3.000 for 3,000, 0,9 for 0.9).
        assert_eq!(digit_runs(&es), digit_runs(&en), "{}: {es}", e.name);
    }
}

#[test]
fn every_topic_has_a_spanish_heading() {
    for topic in Topic::ALL {
        let (en, es) = (topic.title(Lang::En), topic.title(Lang::Es));
        assert!(!es.is_empty());
        assert_ne!(es, en, "{topic:?}");
        assert_eq!(english_words(es), Vec::<String>::new(), "{topic:?}: {es}");
    }
}
