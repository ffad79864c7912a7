//! A lesson on the page: which step is on show, what the learner predicted, and whether
//! the run has reached the step's checkpoint (then the explanation is revealed). The
//! lessons themselves (texts, predictions, checkpoints, figures) are the core's
//! ([`brokerlab_core::lessons`]); this is the page's walk through one.

use brokerlab_core::lessons::{
    self, Answer, Focus, Lang, Lesson, LessonStep, Metric, Prediction, Unit,
};
use brokerlab_core::Simulation;

use crate::format::{compact_count, count, parse_number, seconds};
use crate::i18n::{locale, td_string};
use crate::model::readout::Readout;

/// Where the learner is within a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Look and predict; the run waits before the checkpoint.
    Predict,
    /// The run plays towards the checkpoint.
    Playing,
    /// The run paused at the checkpoint (or ended before it: `reached` is false) and the
    /// explanation is shown.
    Revealed { reached: bool },
}

/// A lesson being walked through on the page.
#[derive(Clone, Debug)]
pub struct Guide {
    pub lesson: Lesson,
    /// The step on show (0-based).
    pub index: usize,
    pub phase: Phase,
    answers: Vec<Option<Answer>>,
    /// The explanation and the right answer in English and Spanish, their figure read
    /// when they were revealed: the run may be rewound or moved on after, and the figure
    /// must stay the checkpoint's.
    explained: Option<Explained>,
}

/// What a step reveals at its checkpoint, in both languages: the explanation, and the
/// right answer as the verdict states it (for a number, the same figure).
#[derive(Clone, Debug)]
struct Explained {
    text: (String, String),
    answer: (String, String),
    /// The run's step count at the reveal: a run moved back before it is before the
    /// checkpoint again.
    at_step: u64,
}

fn in_lang(pair: &(String, String), lang: Lang) -> &str {
    match lang {
        Lang::En => &pair.0,
        Lang::Es => &pair.1,
    }
}

impl Guide {
    /// The lesson called `name`, at its first step.
    pub fn open(name: &str) -> Option<Self> {
        lessons::find(name).map(|lesson| {
            let answers = vec![None; lesson.steps.len()];
            Self {
                lesson,
                index: 0,
                phase: Phase::Predict,
                answers,
                explained: None,
            }
        })
    }

    /// The step on show.
    pub fn step(&self) -> &LessonStep {
        &self.lesson.steps[self.index]
    }

    /// "Step k of n", counted from 1.
    pub fn progress(&self) -> (usize, usize) {
        (self.index + 1, self.lesson.steps.len())
    }

    pub fn is_last(&self) -> bool {
        self.index + 1 >= self.lesson.steps.len()
    }

    /// Whether the scenario's description must keep to its setup: its later sentences
    /// tell what happens, which is what the steps ask the learner to predict. Only once
    /// the last step is revealed has every answer been given.
    pub fn hides_the_outcome(&self) -> bool {
        !(self.is_last() && matches!(self.phase, Phase::Revealed { .. }))
    }

    /// Records the learner's prediction for the step on show (before the reveal only: an
    /// answer given after seeing the result would not be a prediction).
    pub fn answer(&mut self, answer: Answer) {
        if self.phase == Phase::Predict {
            self.answers[self.index] = Some(answer);
        }
    }

    /// The prediction on show is taken back (its field was emptied, or holds no number).
    pub fn forget_answer(&mut self) {
        if self.phase == Phase::Predict {
            self.answers[self.index] = None;
        }
    }

    /// What the learner predicted at the step on show.
    pub fn answered(&self) -> Option<Answer> {
        self.answers[self.index]
    }

    /// Whether the prediction on show was right (`None` before one is given).
    pub fn verdict(&self) -> Option<bool> {
        self.answered().map(|a| self.step().prediction.check(a))
    }

    /// What the card says of the prediction once revealed: that it was right, or the
    /// right answer — a choice quoted as its option is written (it may hold a capital and
    /// a colon of its own), a number with its unit as the run shows it at the checkpoint,
    /// the figure the explanation beside it states (empty before the reveal).
    pub fn verdict_text(&self, lang: Lang) -> String {
        let l = locale(lang);
        let Some(explained) = &self.explained else {
            return String::new();
        };
        if self.verdict() == Some(true) {
            return td_string!(l, teach.lesson.right).to_string();
        }
        let answer = in_lang(&explained.answer, lang);
        // No prediction to call wrong (a link can open a step revealed without one).
        let unanswered = self.verdict().is_none();
        match (&self.step().prediction, unanswered) {
            (Prediction::Choices { .. }, false) => {
                td_string!(l, teach.lesson.wrong_choice, answer = answer).to_string()
            }
            (Prediction::Choices { .. }, true) => {
                td_string!(l, teach.lesson.unanswered_choice, answer = answer).to_string()
            }
            (Prediction::Number { .. }, false) => {
                td_string!(l, teach.lesson.wrong, answer = answer).to_string()
            }
            (Prediction::Number { .. }, true) => {
                td_string!(l, teach.lesson.unanswered, answer = answer).to_string()
            }
        }
    }

    /// The run starts towards the checkpoint.
    pub fn play(&mut self) {
        if self.phase == Phase::Predict {
            self.phase = Phase::Playing;
        }
    }

    /// The run stands at the checkpoint (or ended before it) in `sim`: the explanation's
    /// figure is read there, once.
    pub fn reveal(&mut self, reached: bool, sim: &Simulation) {
        let step = self.step();
        let both = |f: &dyn Fn(Lang) -> String| (f(Lang::En), f(Lang::Es));
        self.explained = Some(Explained {
            text: both(&|lang| step.explain(sim, lang)),
            answer: both(&|lang| step.answer_at(sim, lang)),
            at_step: sim.steps(),
        });
        self.phase = Phase::Revealed { reached };
    }

    /// Whether a run standing at step `steps` is back before the reveal of the step on
    /// show (a seek or a step back moved it there).
    pub fn rewound_before_reveal(&self, steps: u64) -> bool {
        self.explained.as_ref().is_some_and(|e| steps < e.at_step)
    }

    /// The run went back before the checkpoint (see [`Guide::rewound_before_reveal`]): the
    /// step asks its question again, with its prediction kept, rather than explaining a
    /// moment the stage no longer shows.
    pub fn rewind(&mut self, steps: u64) {
        if self.rewound_before_reveal(steps) {
            self.go_to(self.index);
        }
    }

    /// On to the next step, to predict it. False at the last step.
    pub fn next_step(&mut self) -> bool {
        if self.is_last() || !matches!(self.phase, Phase::Revealed { .. }) {
            return false;
        }
        self.index += 1;
        self.phase = Phase::Predict;
        self.explained = None;
        true
    }

    /// Back to step `index`, to predict it again (the page replays the run to the
    /// checkpoint before it). Answers given so far are kept.
    pub fn go_to(&mut self, index: usize) {
        self.index = index.min(self.lesson.steps.len() - 1);
        self.phase = Phase::Predict;
        self.explained = None;
    }

    /// The predictions given so far, as a link keeps them: a choice's index or the
    /// number typed.
    pub fn answers_for_link(&self) -> Vec<Option<f64>> {
        self.answers
            .iter()
            .map(|a| match *a {
                Some(Answer::Choice(i)) => Some(i as f64),
                Some(Answer::Number(x)) => Some(x),
                None => None,
            })
            .collect()
    }

    /// Puts back predictions a link kept; one that does not fit its question (not a
    /// choice it offers, not a finite number) is dropped.
    pub fn restore_answers(&mut self, kept: &[Option<f64>]) {
        for (i, (slot, kept)) in self.answers.iter_mut().zip(kept).enumerate() {
            *slot = kept.and_then(|x| as_answer(&self.lesson.steps[i].prediction, x));
        }
    }

    /// The explanation revealed, with the figure the run had at the checkpoint (empty
    /// before the reveal).
    pub fn explanation(&self, lang: Lang) -> &str {
        self.explained
            .as_ref()
            .map_or("", |e| in_lang(&e.text, lang))
    }
}

fn as_answer(prediction: &Prediction, x: f64) -> Option<Answer> {
    match prediction {
        Prediction::Choices { options, .. } => {
            let whole = x.fract() == 0.0 && x >= 0.0 && x < options.len() as f64;
            whole.then_some(Answer::Choice(x as usize))
        }
        // As a typed answer is read (`read_answer`): no negative count or time.
        Prediction::Number { unit, .. } => {
            (x.is_finite() && (x >= 0.0 || *unit == Unit::Dollars)).then_some(Answer::Number(x))
        }
    }
}

/// A scenario description's first sentence: the setup, before it tells what happens.
/// A sentence ends at a full stop, "!" or "?" followed by a space; "2.5 s" and "(0.1 s
/// each)." end none early.
pub fn setup_sentence(description: &str) -> &str {
    let ends = description.char_indices().zip(description.chars().skip(1));
    ends.filter(|((_, c), next)| matches!(c, '.' | '!' | '?') && next.is_whitespace())
        .map(|((i, c), _)| &description[..i + c.len_utf8()])
        .next()
        .unwrap_or(description)
}

/// How far a box that scrolls (its visible span `view`, top and bottom) must scroll for
/// `target` (top and bottom, in the same coordinates) to be in view: 0 when it already is,
/// up (negative) to its top, or down until its bottom shows, never so far that its top
/// goes out above (a target taller than the view shows from its top).
pub fn scroll_to_show(view: (f64, f64), target: (f64, f64)) -> f64 {
    let ((view_top, view_bottom), (top, bottom)) = (view, target);
    if top < view_top {
        top - view_top
    } else if bottom > view_bottom {
        (bottom - view_bottom).min(top - view_top)
    } else {
        0.0
    }
}

/// Where on the page a focus is, as a CSS selector: the card of the component it names
/// (its `data-node`; a consumer group's member cards), or the counter that shows the
/// metric. `None` when the page has no single place for it (the step's words still name
/// it).
pub fn focus_target(sim: &Simulation, focus: &Focus) -> Option<String> {
    match *focus {
        Focus::Node(name) => node_selector(sim, name),
        Focus::DeadLetters(queue) => {
            queue_index(sim, queue).map(|q| format!("[data-node=\"dlq-{q}\"]"))
        }
        Focus::Metric(metric) => metric_testid(metric).map(|id| format!("[data-testid=\"{id}\"]")),
    }
}

/// The `data-testid` of the counter that shows `metric`, if one is always there to
/// outline (the dead-lettered and refused tiles show only once they count something).
pub fn metric_testid(metric: Metric) -> Option<&'static str> {
    match metric {
        Metric::DeadLettered | Metric::Refused => None,
        always => Some(metric_counter(always)),
    }
}

/// Every metric a step may point at.
pub const METRICS: [Metric; 8] = [
    Metric::Backlog,
    Metric::OldestAge,
    Metric::InFlight,
    Metric::DeadLettered,
    Metric::Duplicates,
    Metric::Lost,
    Metric::Refused,
    Metric::Lag,
];

/// The `data-testid` of the counter tile that counts `metric`.
pub fn metric_counter(metric: Metric) -> &'static str {
    match metric {
        Metric::Backlog | Metric::Lag => "backlog",
        Metric::OldestAge => "oldest-age",
        Metric::InFlight => "in-flight",
        Metric::Duplicates => "duplicate-effects",
        Metric::Lost => "lost",
        Metric::DeadLettered => "dead-lettered",
        Metric::Refused => "refused",
    }
}

/// What the lesson card reads beside a metric `step` points at: `(queue, value)`. The
/// card repeats it beside "Look at:", where it stays in view when the counters are not
/// (presenting hides the side panel; another of its tabs may be open). When the step's
/// figure is that metric in one queue (or group), the reading is its own (`Some(name)`): the
/// run's counter adds every queue, and read "oldest age 20.0 s" beside an explanation
/// of 4.9 s in 'admitted'. A metric of queues the step does not single out has no
/// reading in a run of several; a run-wide count (lost, duplicates…) always has one.
pub fn step_reading(
    sim: &Simulation,
    readout: &Readout,
    step: &LessonStep,
    metric: Metric,
    lang: Lang,
) -> Option<(Option<&'static str>, String)> {
    use lessons::Figure;
    let queue = match (step.figure, metric) {
        (Figure::InFlightIn(q), Metric::InFlight)
        | (Figure::OldestAgeIn(q), Metric::OldestAge)
        | (Figure::Waiting(q), Metric::Backlog)
        | (Figure::Lag(q), Metric::Lag) => Some(q),
        _ => None,
    };
    if let Some(q) = queue {
        let value = step.figure.value(sim);
        let text = match metric {
            Metric::OldestAge => seconds(value, lang),
            _ => count(value.max(0.0) as u64, lang),
        };
        return Some((Some(q), text));
    }
    let of_queues = matches!(
        metric,
        Metric::Backlog | Metric::OldestAge | Metric::InFlight
    );
    let streams = sim.queue_count() + sim.log_count();
    (!of_queues || streams <= 1).then(|| (None, metric_reading(readout, metric, lang)))
}

/// What `metric`'s counter reads in `readout`, written as its tile writes it.
pub fn metric_reading(readout: &Readout, metric: Metric, lang: Lang) -> String {
    let n = |v: u64| compact_count(v, lang).unwrap_or_else(|| count(v, lang));
    match metric {
        Metric::Backlog | Metric::Lag => n(readout.backlog),
        Metric::OldestAge => seconds(readout.oldest_age_s, lang),
        Metric::InFlight => n(readout.in_flight),
        Metric::Duplicates => n(readout.duplicate_effects),
        Metric::Lost => n(readout.lost_for_good()),
        Metric::DeadLettered => n(readout.dead_lettered),
        Metric::Refused => n(readout.refused),
    }
}

fn queue_index(sim: &Simulation, name: &str) -> Option<usize> {
    sim.queue_ids()
        .find(|&q| sim.queue(q).is_some_and(|v| v.name == name))
        .map(|q| q.index())
}

/// The selector of every card named `name` (a queue and its consumer may share a name:
/// both are outlined), by the topology's own `data-node` keys.
fn node_selector(sim: &Simulation, name: &str) -> Option<String> {
    let mut keys: Vec<String> = Vec::new();
    if let Some(g) = sim.group_ids().find(|&g| sim.group_name(g) == name) {
        keys.push(format!("[data-node^=\"member-{}-\"]", g.index()));
    }
    let named = node_keys(sim, name).map(|key| format!("[data-node=\"{key}\"]"));
    keys.extend(named);
    (!keys.is_empty()).then(|| keys.join(", "))
}

/// The `data-node` keys of the cards named `name`.
fn node_keys<'a>(sim: &'a Simulation, name: &'a str) -> impl Iterator<Item = String> + 'a {
    let queues = queue_index(sim, name).map(|q| format!("queue-{q}"));
    let producers = sim
        .producer_ids()
        .filter(move |&p| sim.producer_name(p) == Some(name))
        .map(|p| format!("producer-{}", p.index()));
    let consumers = sim
        .consumer_ids()
        .filter(move |&c| sim.consumer(c).is_some_and(|v| v.name == name))
        .map(|c| format!("consumer-{}", c.index()));
    let exchanges = (sim.scenario().exchanges.iter().enumerate())
        .filter(move |(_, e)| e.name == name)
        .map(|(e, _)| format!("exchange-{e}"));
    let logs = (0..sim.log_count())
        .filter(move |&l| sim.log_name(l) == name)
        .map(|l| format!("log-{l}"));
    queues
        .into_iter()
        .chain(producers)
        .chain(consumers)
        .chain(exchanges)
        .chain(logs)
}

/// What a number typed as a prediction counts, beside its field.
pub fn unit_label(unit: Unit, lang: Lang) -> &'static str {
    let l = locale(lang);
    match unit {
        Unit::Messages => td_string!(l, teach.units.messages),
        Unit::Members => td_string!(l, teach.units.members),
        Unit::Dollars => td_string!(l, teach.units.dollars),
        // Symbols, the same in every language.
        Unit::Seconds => "s",
        Unit::Percent => "%",
        Unit::Count => "",
    }
}

/// Why what was typed in a numeric prediction is not an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumberProblem {
    NotANumber,
    /// Below zero, for a unit that never is (all but an account's balance).
    Negative,
}

impl NumberProblem {
    /// The one sentence the field shows, in `lang`.
    pub fn text(self, lang: Lang) -> &'static str {
        let l = locale(lang);
        match self {
            NumberProblem::NotANumber => td_string!(l, teach.lesson.not_a_number),
            NumberProblem::Negative => td_string!(l, teach.lesson.negative),
        }
    }
}

/// A prediction typed in the field: `Ok(None)` while it is empty, the number when it is
/// one the unit can take.
pub fn read_answer(text: &str, unit: Unit, lang: Lang) -> Result<Option<f64>, NumberProblem> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    let x = parse_number(text, lang).ok_or(NumberProblem::NotANumber)?;
    if x < 0.0 && unit != Unit::Dollars {
        return Err(NumberProblem::Negative);
    }
    Ok(Some(x))
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::examples;

    fn guide(name: &str) -> Guide {
        Guide::open(name).expect("a lesson")
    }

    #[test]
    fn a_target_out_of_view_is_scrolled_just_into_it() {
        let view = (100.0, 400.0);
        assert_eq!(scroll_to_show(view, (150.0, 250.0)), 0.0, "in view");
        assert_eq!(
            scroll_to_show(view, (450.0, 550.0)),
            150.0,
            "below: its bottom shows"
        );
        assert_eq!(
            scroll_to_show(view, (380.0, 420.0)),
            20.0,
            "cut at the foot"
        );
        assert_eq!(
            scroll_to_show(view, (20.0, 80.0)),
            -80.0,
            "above: its top shows"
        );
        assert_eq!(
            scroll_to_show(view, (450.0, 900.0)),
            350.0,
            "taller than the view: from its top"
        );
    }

    #[test]
    fn a_setup_sentence_ends_at_the_first_full_stop_before_a_space() {
        let d = "One slow consumer (2.5 s an order) and two quick ones (0.1 s each). On 'greedy' it hoards. Done!";
        assert_eq!(
            setup_sentence(d),
            "One slow consumer (2.5 s an order) and two quick ones (0.1 s each)."
        );
        assert_eq!(setup_sentence("¿Cuántos? Ninguno."), "¿Cuántos?");
        assert_eq!(setup_sentence("No stop at all"), "No stop at all");
        assert_eq!(setup_sentence("Ends here."), "Ends here.");
        assert_eq!(setup_sentence(""), "");
    }

    /// Every lesson's scenario tells more than its setup, in both languages, so the
    /// header would give away what the steps ask; its first sentence alone tells less.
    #[test]
    fn each_lessons_description_keeps_its_outcome_after_the_first_sentence() {
        for lesson in lessons::all() {
            let example = examples::find(lesson.scenario).expect("its example");
            for lang in [Lang::En, Lang::Es] {
                let whole = example.description(lang);
                let setup = setup_sentence(&whole);
                assert!(setup.len() >= 12, "{} {lang:?}: {setup:?}", lesson.name);
                assert!(setup.len() < whole.len(), "{} {lang:?}", lesson.name);
            }
        }
    }

    /// The description keeps to its setup until the last step's reveal, and again when
    /// that step is rewound before it.
    #[test]
    fn the_outcome_stays_hidden_until_the_last_step_is_revealed() {
        let mut g = guide("prefetch-fairness");
        let mut run = lessons::LessonRun::open("prefetch-fairness").expect("a lesson");
        let steps = g.lesson.steps.len();
        for k in 0..steps {
            assert!(g.hides_the_outcome(), "step {k} predicting");
            g.play();
            run.play_step();
            g.reveal(true, &run.sim);
            assert_eq!(g.hides_the_outcome(), k + 1 < steps, "step {k} revealed");
            if k + 1 < steps {
                assert!(g.next_step());
            }
        }
        g.rewind(0);
        assert!(g.hides_the_outcome(), "rewound before the last reveal");
    }

    /// The lesson card's reading of a metric is its counter tile's: the same count
    /// (the Lost tile's total, the backlog for a group's lag), written the same way.
    #[test]
    fn a_focused_metric_reads_as_its_counter_tile() {
        let r = Readout {
            backlog: 1_234,
            in_flight: 64,
            oldest_age_s: 19.94,
            lost: 1,
            never_published: 2,
            refused: 7,
            ..Readout::default()
        };
        let read = |m, lang| metric_reading(&r, m, lang);
        assert_eq!(read(Metric::InFlight, Lang::En), "64");
        assert_eq!(read(Metric::Backlog, Lang::Es), "1.234");
        assert_eq!(read(Metric::Lag, Lang::En), "1,234");
        assert_eq!(read(Metric::OldestAge, Lang::Es), "19,9 s");
        assert_eq!(
            read(Metric::Lost, Lang::En),
            "3",
            "lost for good, as the tile"
        );
        assert_eq!(read(Metric::Refused, Lang::En), "7");
        assert_eq!(read(Metric::Duplicates, Lang::En), "0");
        for m in METRICS {
            if let Some(outlined) = metric_testid(m) {
                assert_eq!(outlined, metric_counter(m), "{m:?}");
            }
        }
    }

    /// The step's reading at its checkpoint, with `readout` for the run's counters:
    /// `(queue, value)` as the card shows it; and the run there.
    fn reading_at(
        lesson: &str,
        step: usize,
        metric: Metric,
        readout: &Readout,
    ) -> (Option<(Option<&'static str>, String)>, Simulation) {
        let mut run = lessons::LessonRun::open(lesson).expect("a lesson");
        for _ in 0..=step {
            run.play_step();
        }
        let step = &run.lesson.steps[step];
        let reading = step_reading(&run.sim, readout, step, metric, Lang::En);
        (reading, run.sim)
    }

    /// The card read the run's counter, which adds every queue: "oldest age 20.0 s"
    /// beside an explanation of 4.9 s in 'admitted', "in flight 42" beside 40 in
    /// 'lockstep'. A metric the step's figure reads in one queue is that queue's; one of
    /// queues the step does not single out has no reading in a run of several.
    #[test]
    fn a_reading_is_the_queue_the_step_is_about_or_none() {
        let none = Readout::default();
        let (admitted, sim) = reading_at("backpressure", 1, Metric::OldestAge, &none);
        assert_eq!(admitted, Some((Some("admitted"), "4.9 s".to_string())));
        assert!(
            sim.oldest_age_us() > 19_000_000,
            "the counter adds 'unbounded'"
        );
        let (lockstep, _) = reading_at("retry-jitter", 0, Metric::InFlight, &none);
        assert_eq!(lockstep, Some((Some("lockstep"), "40".to_string())));
        let (unscoped, _) = reading_at("visibility-timeout", 0, Metric::InFlight, &none);
        assert_eq!(
            unscoped, None,
            "two queues, and the figure counts redeliveries"
        );
        let lost = Readout {
            lost: 1,
            ..Readout::default()
        };
        let (run_wide, _) = reading_at("ack-before-effect", 1, Metric::Lost, &lost);
        assert_eq!(run_wide, Some((None, "1".to_string())), "the Lost tile's");
    }

    /// "Look at:" names a metric by its counter's label, in both languages: a Spanish
    /// step said "backlog" and "antigüedad del mensaje más antiguo" beside counters
    /// labelled "Acumulado" and "Espera máxima".
    #[test]
    fn a_metric_to_look_at_is_named_as_its_counter_is_labelled() {
        use crate::i18n::{locale, td_string};
        for lang in [Lang::En, Lang::Es] {
            let l = locale(lang);
            let labels = [
                (Metric::Backlog, td_string!(l, stage.counters.backlog)),
                (Metric::OldestAge, td_string!(l, stage.counters.oldest_age)),
                (Metric::InFlight, td_string!(l, stage.counters.in_flight)),
                (
                    Metric::Duplicates,
                    td_string!(l, stage.counters.duplicate_effects),
                ),
                (Metric::Lost, td_string!(l, stage.counters.lost)),
                (
                    Metric::DeadLettered,
                    td_string!(l, stage.counters.dead_lettered),
                ),
                (Metric::Refused, td_string!(l, stage.counters.refused)),
            ];
            for (metric, label) in labels {
                let said = Focus::Metric(metric).label(lang);
                assert_eq!(said.to_lowercase(), label.to_lowercase(), "{metric:?}");
            }
            let lag = Focus::Metric(Metric::Lag).label(lang).to_lowercase();
            assert!(lag.contains(&labels[0].1.to_lowercase()), "{lag}");
        }
    }

    /// The run of `g`'s lesson, at its start.
    fn sim_of(g: &Guide) -> Simulation {
        Simulation::new(examples::load(g.lesson.scenario).expect("built in")).expect("runs")
    }

    #[test]
    fn the_explanation_keeps_the_figure_of_its_checkpoint() {
        // Revealed at the peak of the burst, then rewound to the start: the explanation
        // still says what was waiting at the checkpoint (it said "0 messages wait").
        let mut g = guide("backlog-arithmetic");
        let mut sim = sim_of(&g);
        sim.run_until(brokerlab_core::secs_to_us(60.0));
        g.play();
        g.reveal(true, &sim);
        let at_checkpoint = g.explanation(Lang::En).to_string();
        assert_eq!(at_checkpoint, g.step().explain(&sim, Lang::En));
        assert_ne!(
            at_checkpoint,
            g.step().explain(&sim_of(&g), Lang::En),
            "the figure shows"
        );
        assert_eq!(g.explanation(Lang::Es), g.step().explain(&sim, Lang::Es));
        g.go_to(0);
        assert_eq!(
            g.explanation(Lang::En),
            "",
            "a step predicted again has none yet"
        );
    }

    #[test]
    fn a_run_moved_back_before_the_checkpoint_asks_the_question_again() {
        // retries-and-dlq step 2 still said "67 messages" with the stage at 5 s.
        let mut g = guide("backlog-arithmetic");
        let mut sim = sim_of(&g);
        g.answer(Answer::Number(60_000.0));
        g.play();
        g.step().checkpoint.play(&mut sim);
        g.reveal(true, &sim);
        let at = sim.steps();
        g.rewind(at);
        assert!(
            matches!(g.phase, Phase::Revealed { .. }),
            "still at the checkpoint"
        );
        g.rewind(at + 10);
        assert!(
            matches!(g.phase, Phase::Revealed { .. }),
            "played on past it"
        );
        g.rewind(at - 1);
        assert_eq!((g.index, g.phase), (0, Phase::Predict));
        assert_eq!(g.explanation(Lang::En), "");
        assert_eq!(g.verdict(), Some(true), "the prediction is kept");
    }

    #[test]
    fn a_prediction_counts_only_before_the_reveal() {
        let mut g = guide("backlog-arithmetic");
        assert_eq!(g.progress(), (1, 3));
        assert_eq!(g.verdict(), None);
        g.answer(Answer::Number(60_000.0));
        assert_eq!(g.verdict(), Some(true));
        g.play();
        g.answer(Answer::Number(1.0));
        assert_eq!(
            g.verdict(),
            Some(true),
            "no change of mind once the run plays"
        );
        g.forget_answer();
        assert_eq!(g.verdict(), Some(true), "nor taking it back");
        assert!(!g.next_step(), "not before the reveal");
        g.reveal(true, &sim_of(&g));
        assert!(g.next_step());
        assert_eq!((g.progress(), g.phase), ((2, 3), Phase::Predict));
        assert_eq!(g.verdict(), None);
        g.go_to(0);
        assert_eq!(g.verdict(), Some(true), "answers are kept");
    }

    #[test]
    fn answers_travel_in_a_link_and_misfits_are_dropped() {
        let mut g = guide("ack-after-commit");
        g.answer(Answer::Choice(1));
        let kept = g.answers_for_link();
        let mut back = guide("ack-after-commit");
        back.restore_answers(&kept);
        assert_eq!(back.answered(), Some(Answer::Choice(1)));
        back.restore_answers(&[Some(99.0), Some(f64::NAN), Some(0.5)]);
        assert_eq!(back.answered(), None, "no such choice");
        let mut numbers = guide("backlog-arithmetic");
        numbers.restore_answers(&[Some(59_000.0)]);
        assert_eq!(numbers.answered(), Some(Answer::Number(59_000.0)));
        numbers.restore_answers(&[Some(-5.0)]);
        assert_eq!(
            numbers.answered(),
            None,
            "no negative backlog, as when typed"
        );
    }

    #[test]
    fn a_wrong_choice_is_told_its_answer_quoted_in_either_language() {
        // It read "Not quite: the answer is The transaction aborts: read_committed …".
        let mut g = guide("exactly-once");
        g.answer(Answer::Choice(0));
        g.play();
        g.reveal(true, &sim_of(&g));
        assert_eq!(
            g.verdict_text(Lang::En),
            "Not quite: the answer is \u{201c}The transaction aborts: read_committed readers never see it\u{201d}."
        );
        assert_eq!(
            g.verdict_text(Lang::Es),
            "No exactamente: la respuesta es \u{ab}La transacción aborta: los lectores read_committed nunca la ven\u{bb}."
        );
        let mut right = guide("queue-vs-topic");
        right.go_to(2);
        right.answer(Answer::Choice(1));
        right.play();
        right.reveal(true, &sim_of(&right));
        assert_eq!(right.verdict_text(Lang::En), "Your prediction was right.");
        assert_eq!(right.verdict_text(Lang::Es), "Tu predicción era correcta.");
        right.go_to(2);
        right.answer(Answer::Choice(0));
        right.play();
        right.reveal(true, &sim_of(&right));
        assert_eq!(
            right.verdict_text(Lang::Es),
            "No exactamente: la respuesta es \u{ab}Siguen esperando en shipping hasta que vuelva un consumidor\u{bb}."
        );
    }

    #[test]
    fn a_step_revealed_without_a_prediction_is_not_called_wrong() {
        // A crafted link opened a step revealed with no answer: "Not quite: the answer
        // is …" for a prediction nobody made.
        let mut g = guide("exactly-once");
        g.reveal(true, &sim_of(&g));
        assert_eq!(g.verdict(), None);
        assert_eq!(
            g.verdict_text(Lang::En),
            "The answer is \u{201c}The transaction aborts: read_committed readers never see it\u{201d}."
        );
        assert!(g
            .verdict_text(Lang::Es)
            .starts_with("La respuesta es \u{ab}"));
    }

    /// Walks every step of lesson `name` on one run, as the page does, answering each
    /// wrongly, and gives each step's verdict and explanation in both languages once
    /// revealed at its checkpoint.
    fn told_when_wrong(name: &str) -> Vec<[(String, String); 2]> {
        let mut g = guide(name);
        let mut sim = sim_of(&g);
        let mut told = Vec::new();
        loop {
            let wrong = match g.step().prediction {
                Prediction::Choices { correct, .. } => Answer::Choice(usize::from(correct == 0)),
                Prediction::Number {
                    answer, tolerance, ..
                } => Answer::Number(answer + 2.0 * tolerance + 10.0),
            };
            g.answer(wrong);
            assert_eq!(g.verdict(), Some(false), "{name}");
            g.play();
            let reached = g.step().checkpoint.play(&mut sim);
            g.reveal(reached, &sim);
            told.push(
                [Lang::En, Lang::Es]
                    .map(|lang| (g.verdict_text(lang), g.explanation(lang).to_string())),
            );
            if !g.next_step() {
                return told;
            }
        }
    }

    #[test]
    fn a_wrong_number_is_told_the_figure_its_explanation_states() {
        // The verdict said "73 %" beside "75 % of the records", and "500 messages" beside
        // "Refused: 452 messages": the lesson's expectation, not what the run showed.
        let hot = &told_when_wrong("partitions-and-keys")[4];
        assert_eq!(hot[0].0, "Not quite: the answer is 75 %.");
        assert!(hot[0].1.starts_with("75 % of the records"), "{}", hot[0].1);
        assert_eq!(hot[1].0, "No exactamente: la respuesta es 75 %.");
        assert!(
            hot[1].1.starts_with("El 75 % de los registros"),
            "{}",
            hot[1].1
        );
        let refused = &told_when_wrong("backpressure")[2];
        assert_eq!(refused[0].0, "Not quite: the answer is 452 messages.");
        assert!(
            refused[0].1.starts_with("Refused: 452 messages"),
            "{}",
            refused[0].1
        );
        assert_eq!(
            refused[1].0,
            "No exactamente: la respuesta es 452 mensajes."
        );
        assert!(
            refused[1].1.starts_with("Rechazados: 452 mensajes"),
            "{}",
            refused[1].1
        );
    }

    #[test]
    fn every_wrong_number_is_told_the_figure_its_explanation_states() {
        let prefixes = [
            ("Not quite: the answer is ", Lang::En),
            ("No exactamente: la respuesta es ", Lang::Es),
        ];
        for lesson in lessons::all() {
            let told = told_when_wrong(lesson.name);
            for (i, step) in lesson.steps.iter().enumerate() {
                let Prediction::Number { .. } = step.prediction else {
                    continue;
                };
                for ((verdict, explanation), (prefix, lang)) in told[i].iter().zip(prefixes) {
                    let figure = verdict
                        .strip_prefix(prefix)
                        .and_then(|v| v.strip_suffix('.'))
                        .unwrap_or_else(|| panic!("{} step {}: {verdict}", lesson.name, i + 1));
                    // The explanation states its figure once (core/tests/lessons.rs), so
                    // it states no other.
                    assert!(
                        explanation.contains(figure),
                        "{} step {} ({lang:?}): the verdict says {figure:?}, the explanation: {explanation}",
                        lesson.name,
                        i + 1
                    );
                }
            }
        }
    }

    #[test]
    fn every_option_reads_whole_inside_the_quotes_of_a_verdict() {
        // Quoted mid-sentence and followed by the verdict's full stop: an option ends
        // without punctuation of its own, and holds no quote marks to clash with ours.
        for lesson in lessons::all() {
            for step in &lesson.steps {
                if let Prediction::Choices { options, .. } = &step.prediction {
                    for text in options.iter().flat_map(|o| [o.en, o.es]) {
                        let last = text.chars().last().unwrap_or('.');
                        assert!(
                            last.is_alphanumeric() || last == ')',
                            "{}: {text}",
                            lesson.name
                        );
                        assert!(
                            !text.contains(['“', '”', '«', '»']),
                            "{}: {text}",
                            lesson.name
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn the_last_step_has_no_next() {
        let mut g = guide("outbox");
        g.go_to(99);
        assert!(g.is_last());
        g.reveal(true, &sim_of(&g));
        assert!(!g.next_step());
    }

    #[test]
    fn every_focus_of_every_lesson_finds_its_place_on_the_page() {
        for lesson in lessons::all() {
            let scenario = examples::load(lesson.scenario).expect("built in");
            let sim = Simulation::new(scenario).expect("valid");
            for step in &lesson.steps {
                for focus in &step.focus {
                    let placed = focus_target(&sim, focus).is_some();
                    let unplaced_metric =
                        matches!(focus, Focus::Metric(Metric::DeadLettered | Metric::Refused));
                    assert!(placed || unplaced_metric, "{}: {focus:?}", lesson.name);
                }
            }
        }
    }

    #[test]
    fn a_focus_names_the_card_of_its_component() {
        let sim = Simulation::new(examples::load("burst").expect("built in")).expect("valid");
        let at = |f| focus_target(&sim, &f);
        assert_eq!(
            at(Focus::Node("orders")).as_deref(),
            Some("[data-node=\"queue-0\"]")
        );
        assert_eq!(
            at(Focus::Node("checkout")).as_deref(),
            Some("[data-node=\"producer-0\"]")
        );
        assert_eq!(at(Focus::Node("nobody")), None);
        let lesson = lessons::find("ack-after-commit").expect("a lesson");
        let shared =
            Simulation::new(examples::load(lesson.scenario).expect("built in")).expect("valid");
        let both = focus_target(&shared, &Focus::Node("plain")).expect("named");
        assert!(
            both.contains("queue-") && both.contains("consumer-"),
            "{both}"
        );
        let age = at(Focus::Metric(Metric::OldestAge));
        assert_eq!(age.as_deref(), Some("[data-testid=\"oldest-age\"]"));
        let lesson = lessons::find("partitions-and-keys").expect("a lesson");
        let sim =
            Simulation::new(examples::load(lesson.scenario).expect("built in")).expect("valid");
        let group = focus_target(&sim, &Focus::Node("ledger-group"));
        assert_eq!(
            group.as_deref(),
            Some("[data-node^=\"member-0-\"]"),
            "its members"
        );
    }

    #[test]
    fn numbers_are_read_as_each_language_writes_them() {
        // Reading the number itself: crate::format::parse_number's tests.
        assert_eq!(read_answer("  ", Unit::Messages, Lang::En), Ok(None));
        assert_eq!(
            read_answer("60,000", Unit::Messages, Lang::En),
            Ok(Some(60_000.0))
        );
        let negative = read_answer("-5", Unit::Seconds, Lang::En);
        assert_eq!(negative, Err(NumberProblem::Negative));
        assert_eq!(
            read_answer("-5", Unit::Dollars, Lang::En),
            Ok(Some(-5.0)),
            "an overdraft"
        );
        assert_eq!(
            read_answer("NaN", Unit::Count, Lang::Es),
            Err(NumberProblem::NotANumber)
        );
        assert_eq!(
            NumberProblem::Negative.text(Lang::Es),
            "No puede ser negativo: escribe 0 o más."
        );
        assert_eq!(unit_label(Unit::Messages, Lang::Es), "mensajes");
        assert_eq!(unit_label(Unit::Dollars, Lang::En), "dollars");
        assert_eq!(unit_label(Unit::Percent, Lang::Es), "%");
    }

    #[test]
    fn a_number_question_says_its_unit() {
        let g = guide("backlog-arithmetic");
        assert!(matches!(g.step().prediction, Prediction::Number { .. }));
    }
}
