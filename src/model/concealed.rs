//! What a lesson step hides while the learner predicts: the readouts that would give the
//! answer away. A step whose checkpoint is already reached when it opens (the run stands
//! at the previous checkpoint's instant) would otherwise show the figure it asks for —
//! "oldest waiting 19.9 s" beside "how long has the oldest order waited?".
//!
//! Each [`Figure`] names the page elements that show it (a counter, a queue card's counts,
//! a table's card, a dead-letter queue, the log panel's partitions), and each metric the
//! step points at names its counter. The answer is a list of CSS selectors built from
//! fixed test ids and component indices, never from a name a scenario file could hold.

use brokerlab_core::lessons::{Figure, Focus, LessonStep, Table};
use brokerlab_core::Simulation;

use super::lesson::{metric_counter, metric_testid, METRICS};

/// The selectors of every element that shows `step`'s answer in `sim`, without repeats.
pub fn concealed(sim: &Simulation, step: &LessonStep) -> Vec<String> {
    let mut selectors = figure_elements(sim, step.figure);
    let metrics = step.focus.iter().filter_map(|f| match *f {
        Focus::Metric(m) => metric_testid(m).map(testid),
        _ => None,
    });
    selectors.extend(metrics);
    // The lesson card repeats a focused metric's reading beside "Look at:" (its
    // `data-look`): hidden with the counter it repeats.
    let readings: Vec<String> = selectors.iter().filter_map(|s| reading_of(s)).collect();
    selectors.extend(readings);
    let mut seen = std::collections::BTreeSet::new();
    selectors.retain(|s| seen.insert(s.clone()));
    selectors
}

/// The lesson card's reading of the counter `selector` picks, if it is a metric's.
fn reading_of(selector: &str) -> Option<String> {
    METRICS
        .iter()
        .map(|&m| metric_counter(m))
        .find(|&id| selector == testid(id))
        .map(|id| format!("[data-look=\"{id}\"]"))
}

/// The style rule that hides `selectors`' values, each keeping its place, behind a "?"
/// that a screen reader reads as `label` (empty for no selector).
pub fn conceal_rule(selectors: &[String], label: &str) -> String {
    if selectors.is_empty() {
        return String::new();
    }
    let all = selectors.join(", ");
    let label = css_string(label);
    format!(
        ":is({all}) {{ visibility: hidden; position: relative; }}\n\
         :is({all})::before {{ content: \"?\" / {label}; visibility: visible; \
         position: absolute; left: 0; top: 0; font-weight: 700; }}"
    )
}

/// `text` as a quoted CSS string: no character of it can end the string, the rule or
/// the `<style>` element it is in.
fn css_string(text: &str) -> String {
    let escaped: String = text
        .chars()
        .map(|c| match c {
            '"' | '\\' | '<' | '>' | '\n' => format!("\\{:x} ", u32::from(c)),
            c => c.to_string(),
        })
        .collect();
    format!("\"{escaped}\"")
}

fn testid(id: &str) -> String {
    format!("[data-testid=\"{id}\"]")
}

/// The elements that show `figure`. A figure the page shows nowhere (the seconds since an
/// instant: the clock is no answer) has none.
fn figure_elements(sim: &Simulation, figure: Figure) -> Vec<String> {
    use Figure::*;
    let queue = |name| queue_index(sim, name);
    match figure {
        Backlog => vec![testid("backlog"), every_queue_count()],
        Waiting(q) => present([Some(testid("backlog")), queue(q).map(queue_counts)]),
        InFlightIn(q) => present([Some(testid("in-flight")), queue(q).map(queue_counts)]),
        OldestAge | OldestAgeIn(_) => vec![testid("oldest-age")],
        SecondsSince(_) => Vec::new(),
        Duplicates => vec![testid("duplicate-effects"), every_table()],
        DuplicatesSkipped => vec![testid("duplicates-skipped"), every_table()],
        EffectsIn(q) => table_of_queue(sim, q).map(table).unwrap_or_default(),
        EffectsInGroup(g) => table_of_group(sim, g).map(table).unwrap_or_default(),
        Redeliveries => vec![testid("redelivered")],
        Lost => vec![testid("lost")],
        DeadLettered => vec![testid("dead-lettered"), every_dlq()],
        LatestDeadLetterAttempts(q) => present([queue(q).map(dlq_state)]),
        DeadLetteredAgain => vec![every_dlq()],
        Redriven => vec![testid("redriven"), every_dlq()],
        Refused => vec![testid("refused")],
        EffectsRefused | StaleIgnored | EmailsSent => vec![every_table()],
        NeverPublished => vec![
            every_producer_state(),
            testid("never-published"),
            testid("lost"),
        ],
        FailedJobs => vec!["[data-testid^=\"producer-\"][data-testid$=\"-jobs\"]".into()],
        Balance { table: t, .. } => balance_table(sim, t),
        IdleMembers(g) => group_index(sim, g).map(members).unwrap_or_default(),
        BusiestPartitionShare(g) => group_index(sim, g).map(partitions).unwrap_or_default(),
        Lag(g) => {
            let mut all = vec![testid("backlog")];
            all.extend(group_index(sim, g).map(partitions).unwrap_or_default());
            all
        }
    }
}

/// The elements that are there (a name the scenario lacks has none).
fn present<const N: usize>(elements: [Option<String>; N]) -> Vec<String> {
    elements.into_iter().flatten().collect()
}

fn queue_counts(q: usize) -> String {
    testid(&format!("queue-{q}-counts"))
}

fn every_queue_count() -> String {
    "[data-testid^=\"queue-\"][data-testid$=\"-counts\"]".into()
}

fn dlq_state(q: usize) -> String {
    testid(&format!("dlq-{q}-state"))
}

fn every_dlq() -> String {
    "[data-testid^=\"dlq-\"][data-testid$=\"-state\"]".into()
}

fn every_producer_state() -> String {
    "[data-testid^=\"producer-\"][data-testid$=\"-state\"]".into()
}

/// A table card's summary and its cells (the rows' names stay: they are no answer).
fn table(index: usize) -> Vec<String> {
    vec![
        testid(&format!("db-{index}-summary")),
        format!("[data-node=\"db-{index}\"] td"),
    ]
}

fn every_table() -> String {
    "[data-testid^=\"db-\"][data-testid$=\"-summary\"], [data-node^=\"db-\"] td".into()
}

fn balance_table(sim: &Simulation, t: Table) -> Vec<String> {
    let index = match t {
        Table::Queue(q) => table_of_queue(sim, q),
        Table::Group(g) => table_of_group(sim, g),
    };
    index.map(table).unwrap_or_default()
}

/// A group's member cards on the stage and in the logs panel.
fn members(g: usize) -> Vec<String> {
    vec![
        format!("[data-testid^=\"member-{g}-\"][data-testid$=\"-state\"]"),
        format!("[data-testid^=\"group-{g}-member-\"][data-testid$=\"-state\"]"),
        testid(&format!("group-{g}-members")),
    ]
}

/// A group's partitions in the logs panel (their ends, positions and lag).
fn partitions(g: usize) -> Vec<String> {
    vec![format!("[data-testid^=\"group-{g}-partition-\"]")]
}

fn queue_index(sim: &Simulation, name: &str) -> Option<usize> {
    sim.queue_ids()
        .find(|&q| sim.queue(q).is_some_and(|v| v.name == name))
        .map(|q| q.index())
}

fn group_index(sim: &Simulation, name: &str) -> Option<usize> {
    sim.group_ids()
        .find(|&g| sim.group_name(g) == name)
        .map(|g| g.index())
}

/// The database lane's cards come in [`super::database::database_cards`]'s order:
/// queues with consumers and tables first, then log groups with tables.
fn queue_tables(sim: &Simulation) -> impl Iterator<Item = usize> + '_ {
    sim.queue_ids()
        .filter(|&q| {
            sim.queue(q).is_some_and(|v| !v.consumers.is_empty()) && sim.tables(q).is_some()
        })
        .map(|q| q.index())
}

fn table_of_queue(sim: &Simulation, name: &str) -> Option<usize> {
    let q = queue_index(sim, name)?;
    queue_tables(sim).position(|i| i == q)
}

fn table_of_group(sim: &Simulation, name: &str) -> Option<usize> {
    let g = group_index(sim, name)?;
    let with_tables = sim.group_ids().filter(|&g| sim.group_tables(g).is_some());
    let at = with_tables.map(|g| g.index()).position(|i| i == g)?;
    Some(queue_tables(sim).count() + at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::database::{database_cards, Owner};
    use brokerlab_core::{examples, lessons};

    fn concealed_at(lesson: &str, step: usize) -> Vec<String> {
        let lesson = lessons::find(lesson).expect("a lesson");
        concealed(&lesson.simulation(), &lesson.steps[step])
    }

    #[test]
    fn the_oldest_age_is_hidden_while_its_step_asks_for_it() {
        // The counter read 19.9 s, outlined as the focus, beside the question asking it.
        let hidden = concealed_at("backlog-arithmetic", 1);
        assert_eq!(
            hidden,
            vec![
                "[data-testid=\"oldest-age\"]".to_string(),
                "[data-look=\"oldest-age\"]".to_string(),
            ],
            "the counter, and its reading in the lesson card"
        );
    }

    #[test]
    fn a_queues_backlog_hides_the_backlog_counter_and_the_queues_counts() {
        // queue-vs-topic's shipping is its second queue: orders feeds billing, shipping.
        let sim = lessons::find("queue-vs-topic")
            .expect("a lesson")
            .simulation();
        let shipping = queue_index(&sim, "shipping").expect("a queue");
        let hidden = concealed_at("queue-vs-topic", 1);
        assert_eq!(
            hidden,
            vec![
                "[data-testid=\"backlog\"]".to_string(),
                format!("[data-testid=\"queue-{shipping}-counts\"]"),
                "[data-look=\"backlog\"]".to_string(),
            ],
            "the figure's and the focused metric's counter, once, and the card's reading"
        );
    }

    #[test]
    fn a_tables_figure_hides_the_card_of_that_table() {
        // poll-interval step 4 counts archive's effects; the card of mailer stays.
        let lesson = lessons::find("poll-interval").expect("a lesson");
        let sim = lesson.simulation();
        let cards = database_cards(&sim);
        let archive = cards
            .iter()
            .position(|c| c.owner == Owner::Group("archive".into()))
            .expect("archive's table");
        let hidden = concealed(&sim, &lesson.steps[3]);
        assert_eq!(hidden, table(archive));
    }

    #[test]
    fn every_table_a_figure_names_is_the_card_the_database_lane_draws() {
        for lesson in lessons::all() {
            let sim =
                Simulation::new(examples::load(lesson.scenario).expect("built in")).expect("valid");
            let owners: Vec<Owner> = database_cards(&sim).into_iter().map(|c| c.owner).collect();
            for (i, owner) in owners.iter().enumerate() {
                let found = match owner {
                    Owner::Queue(q) => table_of_queue(&sim, q),
                    Owner::Group(g) => table_of_group(&sim, g),
                };
                assert_eq!(found, Some(i), "{}: {owner:?}", lesson.name);
            }
        }
    }

    #[test]
    fn the_rule_replaces_the_values_and_keeps_its_label_a_string() {
        assert_eq!(conceal_rule(&[], "Hidden"), "");
        let rule = conceal_rule(&[testid("lost")], "a \"quote\" </style> \\");
        assert!(
            rule.starts_with(":is([data-testid=\"lost\"]) { visibility: hidden;"),
            "{rule}"
        );
        assert!(
            rule.contains("content: \"?\" / \"a \\22 quote\\22  \\3c /style\\3e  \\5c \";"),
            "{rule}"
        );
    }

    #[test]
    fn every_step_hides_its_answer_unless_the_page_never_shows_it() {
        // The steps the teacher found answered on screen, and every other: only a figure
        // of elapsed seconds has no readout to hide (the clock is no answer).
        for lesson in lessons::all() {
            let sim = lesson.simulation();
            for (i, step) in lesson.steps.iter().enumerate() {
                let hidden = concealed(&sim, step);
                let unshown = matches!(step.figure, Figure::SecondsSince(_));
                assert!(
                    unshown || !hidden.is_empty(),
                    "{} step {}",
                    lesson.name,
                    i + 1
                );
            }
        }
    }
}
