//! What a lesson step hides while the learner predicts: the readouts that would give the
//! answer away. A step whose checkpoint is already reached when it opens (the run stands
//! at the previous checkpoint's instant) would otherwise show the figure it asks for —
//! "oldest waiting 19.9 s" beside "how long has the oldest order waited?".
//!
//! Each [`Figure`] names the page elements that show it (a counter, a queue card's counts,
//! a table's card, a dead-letter queue, the log panel's partitions), and each metric the
//! step points at names its counter. The answer is a list of CSS selectors built from
//! fixed test ids and component indices, never from a name a scenario file could hold.
//!
//! The chart reads answers out too, so what a step asks ([`asked`]: the backlog, the
//! oldest message's age, the copies in flight or in dead-letter queues) also decides
//! what the chart leaves out ([`chart_concealed`]): the dashed fluid prediction, which
//! draws the backlog's whole course, the future included, while the step asks about the
//! backlog or the wait (in a queue served in order of arrival the oldest has waited what
//! is waiting divided by the arrival rate); a line of the run itself only once the run
//! stands at the step's checkpoint, for it is drawn up to now and its end is then the
//! answer. Around the chart: the latency percentiles while the step asks about the wait,
//! and the ρ line's verdict while it asks, as a choice, what the backlog will do.

use std::collections::BTreeSet;

use brokerlab_core::lessons::{Checkpoint, Figure, Focus, LessonStep, Metric, Prediction, Table};
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
    selectors.extend(around_the_chart(sim, step));
    // The lesson card repeats a focused metric's reading beside "Look at:" (its
    // `data-look`): hidden with the counter it repeats.
    let readings: Vec<String> = selectors.iter().filter_map(|s| reading_of(s)).collect();
    selectors.extend(readings);
    let mut seen = std::collections::BTreeSet::new();
    selectors.retain(|s| seen.insert(s.clone()));
    selectors
}

/// A measure the chart draws a line of and a counter shows: what a step can ask about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Measure {
    /// Copies waiting (a log group's lag counts in it), and how long it takes to empty.
    Backlog,
    /// How long the oldest waiting copy has waited.
    OldestAge,
    InFlight,
    /// Copies sitting in dead-letter queues.
    DeadLettered,
}

/// The measures `step` asks about: its figure's, and those of the metrics it points at.
pub fn asked(step: &LessonStep) -> BTreeSet<Measure> {
    let figure = match step.figure {
        Figure::Backlog | Figure::Waiting(_) | Figure::Lag(_) => Some(Measure::Backlog),
        // How long until the backlog is empty: the backlog's course answers it.
        Figure::SecondsSince(_) if matches!(step.checkpoint, Checkpoint::BacklogEmpty) => {
            Some(Measure::Backlog)
        }
        Figure::OldestAge | Figure::OldestAgeIn(_) => Some(Measure::OldestAge),
        Figure::InFlightIn(_) => Some(Measure::InFlight),
        Figure::DeadLettered | Figure::DeadLetteredAgain | Figure::Redriven => {
            Some(Measure::DeadLettered)
        }
        _ => None,
    };
    let metrics = step.focus.iter().filter_map(|f| match *f {
        Focus::Metric(Metric::Backlog | Metric::Lag) => Some(Measure::Backlog),
        Focus::Metric(Metric::OldestAge) => Some(Measure::OldestAge),
        Focus::Metric(Metric::InFlight) => Some(Measure::InFlight),
        Focus::Metric(Metric::DeadLettered) => Some(Measure::DeadLettered),
        _ => None,
    });
    figure.into_iter().chain(metrics).collect()
}

/// What the chart leaves out: each flag a line it does not draw, list in its legend or
/// read in its readout and description.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChartConcealed {
    /// The dashed fluid prediction, over the whole run.
    pub prediction: bool,
    /// The run's own lines, drawn up to now.
    pub backlog: bool,
    pub oldest_age: bool,
    pub in_flight: bool,
    pub dead_lettered: bool,
}

impl ChartConcealed {
    /// Whether anything is left out.
    pub fn any(&self) -> bool {
        *self != Self::default()
    }

    /// Whether the chart shows its right axis, the oldest message's age in seconds: not
    /// while the age line, the one line it measures, is left out (the axis would read a
    /// meaningless 0–1 s, and its scale would hint at the answer as soon as it grew).
    pub fn age_axis(&self) -> bool {
        !self.oldest_age
    }
}

/// What the chart leaves out while `step` asks, with the run standing in `sim`.
pub fn chart_concealed(sim: &Simulation, step: &LessonStep) -> ChartConcealed {
    let asked = asked(step);
    let asks = |m| asked.contains(&m);
    // Drawn up to now, a line of the run reads out the answer once now is the moment
    // asked about (the step opened where the previous one paused, at this checkpoint).
    let now_answers = step.checkpoint.met_by(sim, &[]);
    let run_line = |m| now_answers && asks(m);
    ChartConcealed {
        prediction: asks(Measure::Backlog) || asks(Measure::OldestAge),
        backlog: run_line(Measure::Backlog),
        oldest_age: run_line(Measure::OldestAge),
        in_flight: run_line(Measure::InFlight),
        dead_lettered: run_line(Measure::DeadLettered),
    }
}

/// Around the chart: its readout's values of the lines it leaves out, the latency
/// percentiles (of the waits just finished) while the step asks about the wait, and the
/// verdict on the load (also in the parameters' forecast) while a choice asks what the
/// backlog will do.
fn around_the_chart(sim: &Simulation, step: &LessonStep) -> Vec<String> {
    let hidden = chart_concealed(sim, step);
    let asked = asked(step);
    let readout = [
        (hidden.prediction, "hover-predicted"),
        (hidden.backlog, "hover-backlog"),
        (hidden.oldest_age, "hover-oldest"),
        (hidden.in_flight, "hover-in-flight"),
        (hidden.dead_lettered, "hover-dlq"),
    ];
    let mut all: Vec<String> = readout
        .into_iter()
        .filter(|&(hide, _)| hide)
        .map(|(_, id)| testid(id))
        .collect();
    if asked.contains(&Measure::OldestAge) {
        all.push(format!("{} td", testid("latency")));
    }
    if hides_the_verdict(step) {
        all.extend([testid("rho-hint"), testid("params-forecast")]);
    }
    all
}

/// Whether `step` asks, as a choice, what the backlog will do: the verdict on the load
/// ("the backlog grows", "a backlog drains") would choose for the learner.
pub fn hides_the_verdict(step: &LessonStep) -> bool {
    matches!(step.prediction, Prediction::Choices { .. }) && asked(step).contains(&Measure::Backlog)
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

    /// The lesson's run where step `k` opens (where the step before paused), and the step.
    fn opened(lesson: &str, k: usize) -> (Simulation, LessonStep) {
        let lesson = lessons::find(lesson).expect("a lesson");
        let mut sim = lesson.simulation();
        for step in &lesson.steps[..k] {
            assert!(step.checkpoint.play(&mut sim), "{} reaches it", lesson.name);
        }
        (sim, lesson.steps[k].clone())
    }

    fn chart_at(lesson: &str, k: usize) -> ChartConcealed {
        let (sim, step) = opened(lesson, k);
        chart_concealed(&sim, &step)
    }

    const NOTHING: ChartConcealed = ChartConcealed {
        prediction: false,
        backlog: false,
        oldest_age: false,
        in_flight: false,
        dead_lettered: false,
    };

    #[test]
    fn a_question_on_the_backlog_hides_the_prediction_not_the_backlog_drawn_so_far() {
        // backlog-arithmetic step 1 (at 0 s): the dashed line peaked at 60,000 at 60 s.
        let prediction = ChartConcealed {
            prediction: true,
            ..NOTHING
        };
        assert_eq!(chart_at("backlog-arithmetic", 0), prediction);
        // Step 3 (at 60 s): how long until empty. The dashed line reached 0 at 120 s; the
        // backlog drawn up to 60 s is step 1's answer, already given.
        assert_eq!(chart_at("backlog-arithmetic", 2), prediction);
        let (sim, step) = opened("backlog-arithmetic", 2);
        assert_eq!(asked(&step), BTreeSet::from([Measure::Backlog]));
        let page = concealed(&sim, &step);
        assert!(page.contains(&testid("hover-predicted")), "{page:?}");
        assert!(!page.contains(&testid("hover-backlog")), "{page:?}");
    }

    #[test]
    fn a_question_on_the_wait_asked_at_the_moment_shown_hides_the_age_line_and_latency() {
        // backlog-arithmetic step 2 opens at 60 s, the moment it asks about: the age
        // line's last ring read 19.9 s, the latency block's p99 19.73 s.
        assert_eq!(
            chart_at("backlog-arithmetic", 1),
            ChartConcealed {
                prediction: true,
                oldest_age: true,
                ..NOTHING
            }
        );
        let (sim, step) = opened("backlog-arithmetic", 1);
        assert_eq!(asked(&step), BTreeSet::from([Measure::OldestAge]));
        let page = concealed(&sim, &step);
        for id in ["hover-oldest", "hover-predicted", "oldest-age"] {
            assert!(page.contains(&testid(id)), "{id}: {page:?}");
        }
        assert!(
            page.contains(&format!("{} td", testid("latency"))),
            "{page:?}"
        );
        // The same question at 0 s (backpressure step 1): nothing drawn to hide yet but
        // the prediction (600 waiting at 60 s are the last 20 s of arrivals).
        assert_eq!(
            chart_at("backpressure", 0),
            ChartConcealed {
                prediction: true,
                ..NOTHING
            }
        );
        // Step 2 asks 'admitted's age at 60 s, where step 1 paused.
        assert!(chart_at("backpressure", 1).oldest_age);
    }

    /// The chart's right axis measures the age line alone: gone while the line is left
    /// out (it would read 0–1 s), back as soon as the line is.
    #[test]
    fn the_age_axis_goes_with_the_age_line() {
        assert!(NOTHING.age_axis());
        // backlog-arithmetic step 1 hides only the prediction: the axis stays.
        assert!(chart_at("backlog-arithmetic", 0).age_axis());
        // Step 2, at the moment it asks the wait about: line and axis hidden.
        assert!(!chart_at("backlog-arithmetic", 1).age_axis());
        assert!(!chart_at("backpressure", 1).age_axis());
        // Step 3 asks about the backlog again: the age line, and its axis, are back.
        assert!(chart_at("backlog-arithmetic", 2).age_axis());
        // Any other line left out keeps it.
        let others = ChartConcealed {
            prediction: true,
            backlog: true,
            in_flight: true,
            dead_lettered: true,
            oldest_age: false,
        };
        assert!(others.age_axis());
    }

    #[test]
    fn a_line_of_the_run_is_hidden_only_once_the_run_stands_where_the_step_asks() {
        // retry-jitter step 2 asks how many run at 1.1 s, where step 1 paused: the
        // in-flight line's end read 42, lockstep's 40 and the answer.
        assert_eq!(
            chart_at("retry-jitter", 0),
            NOTHING,
            "at 0 s nothing is drawn"
        );
        assert_eq!(
            chart_at("retry-jitter", 1),
            ChartConcealed {
                in_flight: true,
                ..NOTHING
            }
        );
        // queue-vs-topic step 2 asks shipping's backlog at 12 s, where step 1 paused.
        assert_eq!(
            chart_at("queue-vs-topic", 1),
            ChartConcealed {
                prediction: true,
                backlog: true,
                ..NOTHING
            }
        );
        // Its step 3 asks what waits at the end: nothing is left to happen after 10.3 s,
        // so the run stands at its end already and the backlog drawn to 12 s is it.
        assert_eq!(
            chart_at("queue-vs-topic", 2),
            ChartConcealed {
                prediction: true,
                backlog: true,
                ..NOTHING
            }
        );
        // prefetch-fairness step 4 asks greedy's copies in flight at 60 s; the run opens
        // at 42 s, and the line drawn so far stops there.
        assert_eq!(chart_at("prefetch-fairness", 3), NOTHING);
    }

    #[test]
    fn a_choice_about_the_backlog_hides_the_verdict_on_the_load_and_a_number_does_not() {
        // queue-vs-topic step 3: do shipping's orders keep waiting? ρ's verdict says
        // whether a backlog grows.
        let (sim, step) = opened("queue-vs-topic", 2);
        let page = concealed(&sim, &step);
        for id in ["rho-hint", "params-forecast"] {
            assert!(page.contains(&testid(id)), "{id}: {page:?}");
        }
        assert!(hides_the_verdict(&step));
        // "How many orders wait at 60 s?" gives both rates; the verdict adds nothing.
        let (sim, step) = opened("backlog-arithmetic", 0);
        assert!(!concealed(&sim, &step).contains(&testid("rho-hint")));
        assert!(!hides_the_verdict(&step));
    }

    #[test]
    fn a_question_the_chart_does_not_draw_leaves_the_chart_alone() {
        // Effects, duplicates, balances, attempts: no line of the chart counts them.
        for name in [
            "idempotency",
            "partitions-and-keys",
            "outbox",
            "exactly-once",
        ] {
            let lesson = lessons::find(name).expect("a lesson");
            for k in 0..lesson.steps.len() {
                let (sim, step) = opened(name, k);
                assert_eq!(
                    chart_concealed(&sim, &step),
                    NOTHING,
                    "{name} step {}",
                    k + 1
                );
                let page = concealed(&sim, &step);
                assert!(
                    !page.iter().any(|s| s.contains("hover-")
                        || s.contains("latency")
                        || s.contains("rho-hint")),
                    "{name} step {}: {page:?}",
                    k + 1
                );
            }
        }
    }

    #[test]
    fn every_step_asking_about_a_line_hides_what_reads_it_out_and_only_that() {
        for lesson in lessons::all() {
            for (k, _) in lesson.steps.iter().enumerate() {
                let (sim, step) = opened(lesson.name, k);
                let asks = asked(&step);
                let hidden = chart_concealed(&sim, &step);
                let at = format!("{} step {}", lesson.name, k + 1);
                let about_the_queue =
                    asks.contains(&Measure::Backlog) || asks.contains(&Measure::OldestAge);
                assert_eq!(hidden.prediction, about_the_queue, "{at}");
                let now_answers = step.checkpoint.met_by(&sim, &[]);
                for (line, m) in [
                    (hidden.backlog, Measure::Backlog),
                    (hidden.oldest_age, Measure::OldestAge),
                    (hidden.in_flight, Measure::InFlight),
                    (hidden.dead_lettered, Measure::DeadLettered),
                ] {
                    assert_eq!(line, now_answers && asks.contains(&m), "{at}: {m:?}");
                }
            }
        }
    }

    fn concealed_at(lesson: &str, step: usize) -> Vec<String> {
        let lesson = lessons::find(lesson).expect("a lesson");
        concealed(&lesson.simulation(), &lesson.steps[step])
    }

    #[test]
    fn the_oldest_age_is_hidden_while_its_step_asks_for_it() {
        // The counter read 19.9 s, outlined as the focus, beside the question asking it;
        // the latency block's p99 read 19.73 s, and the chart's readout the prediction.
        let hidden = concealed_at("backlog-arithmetic", 1);
        assert_eq!(
            hidden,
            vec![
                "[data-testid=\"oldest-age\"]".to_string(),
                "[data-testid=\"hover-predicted\"]".to_string(),
                "[data-testid=\"latency\"] td".to_string(),
                "[data-look=\"oldest-age\"]".to_string(),
            ],
            "the counter, the readout's prediction, the latency cells, and the counter's \
             reading in the lesson card"
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
                "[data-testid=\"hover-predicted\"]".to_string(),
                "[data-look=\"backlog\"]".to_string(),
            ],
            "the figure's and the focused metric's counter, once, the chart readout's \
             prediction, and the card's reading"
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
