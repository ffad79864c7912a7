//! An aggregated run on the page: a scenario too large to follow message by message is
//! computed once as flows ([`brokerlab_core::aggregate::run`], a fraction of a second
//! even for a day at a million messages per second), and the page then plays a time
//! cursor over the finished run. At any cursor this answers what the page shows: the
//! counters (as a [`Readout`]), each queue's amounts, and the chart's data cut at the
//! cursor, so the chart plays the same way as a message-by-message run's.

use brokerlab_core::aggregate::{self, AggregateRun, Losses};
use brokerlab_core::lessons::Lang;
use brokerlab_core::{QueueSample, RateSegment, RunMode, Sample, Scenario, ScenarioError};

use super::chart_info::{self, ChartData, Rho, Values};
use super::fluid;
use super::player::FRAME_WALL_MS_MAX;
use super::readout::Readout;
use crate::i18n::{locale, td_string};

/// At 1× the whole run plays in about this many wall-clock seconds (a day at 1× would
/// otherwise take a day): each page second stands for `end / PLAY_S` seconds of the run.
pub const PLAY_S: f64 = 180.0;

/// Whether the page opens `scenario` as an aggregated run rather than message by message.
pub fn runs_aggregated(scenario: &Scenario) -> bool {
    scenario.run_mode() == Ok(RunMode::Aggregated)
}

/// The same components with nothing arriving, message by message: the page keeps a
/// player of it beside the aggregated run, so everything that names the components
/// (settings, panels) has them, at rest.
pub fn shell(scenario: &Scenario) -> Scenario {
    let mut s = scenario.clone();
    s.mode = RunMode::Messages;
    s.commands.clear();
    s.interventions.clear();
    for p in &mut s.producers {
        p.arrivals.schedule = vec![RateSegment {
            from_s: 0.0,
            rate_per_s: 0.0,
        }];
    }
    s
}

/// A finished aggregated run and the cursor the page plays over it.
#[derive(Clone, Debug)]
pub struct Aggregated {
    scenario: Scenario,
    run: AggregateRun,
    /// The cursor, in simulated seconds (0 ..= the run's end).
    now_s: f64,
    /// The fluid prediction over the whole run (the chart's dashed line).
    prediction: Vec<(f64, f64)>,
}

/// One queue's amounts at the cursor.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueCard {
    pub name: String,
    pub waiting: u64,
    pub in_flight: u64,
    pub dead_lettered: u64,
    pub oldest_age_s: f64,
}

/// What the stage shows in place of tokens: each component with its amount at the cursor.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cards {
    /// (name, arrival rate per second now).
    pub producers: Vec<(String, f64)>,
    pub queues: Vec<QueueCard>,
    /// (name, replicas, capacity per second with every replica up).
    pub consumers: Vec<(String, u32, f64)>,
}

impl Aggregated {
    /// Computes the whole run of `scenario` as flows (whatever its mode says), cursor at 0.
    pub fn new(scenario: Scenario) -> Result<Self, ScenarioError> {
        let run = aggregate::run(&scenario)?;
        let prediction = fluid::backlog_curve(&scenario, run.end_s.max(1.0));
        Ok(Self {
            scenario,
            run,
            now_s: 0.0,
            prediction,
        })
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// Why the run is aggregated, in `lang` (the core's note, "aggregated mode: …").
    pub fn note(&self, lang: Lang) -> String {
        let note = brokerlab_core::refusal::aggregated_note_in(&self.run.note, lang);
        sentence_case(&grouped_numbers(&note, lang))
    }

    /// The run's end: the timeline's length.
    pub fn end_s(&self) -> f64 {
        self.run
            .end_s
            .max(self.series().last().map_or(0.0, |s| s.t_s))
    }

    pub fn now_s(&self) -> f64 {
        self.now_s
    }

    pub fn is_finished(&self) -> bool {
        self.now_s >= self.end_s()
    }

    /// Simulated seconds a page second stands for at 1×.
    pub fn pace(&self) -> f64 {
        (self.end_s() / PLAY_S).max(1.0)
    }

    fn series(&self) -> &[Sample] {
        &self.run.series
    }

    /// The index of the sample the cursor shows: the last one at or before it.
    pub fn index(&self) -> usize {
        let after = self
            .series()
            .partition_point(|s| s.t_s <= self.now_s + 1e-9);
        after.saturating_sub(1)
    }

    /// Puts the cursor at `t_s`, clamped to the run (0 for nonsense).
    pub fn seek(&mut self, t_s: f64) {
        self.now_s = if t_s.is_finite() {
            t_s.clamp(0.0, self.end_s())
        } else {
            0.0
        };
    }

    /// Plays on by `wall_ms` of page time at `speed`; true once at the end.
    pub fn advance(&mut self, wall_ms: f64, speed: f64) -> bool {
        let wall_s = wall_ms.clamp(0.0, FRAME_WALL_MS_MAX) / 1_000.0;
        self.seek(self.now_s + wall_s * speed * self.pace());
        self.is_finished()
    }

    /// The cursor to the next sample (`forward`) or the previous one.
    pub fn step(&mut self, forward: bool) {
        let i = self.index();
        let to = if forward {
            self.series().get(i + 1).map_or(self.end_s(), |s| s.t_s)
        } else if self.series().get(i).is_some_and(|s| s.t_s < self.now_s) {
            self.series()[i].t_s
        } else {
            i.checked_sub(1)
                .and_then(|j| self.series().get(j))
                .map_or(0.0, |s| s.t_s)
        };
        self.seek(to);
    }

    /// The sample the cursor shows (a run always has its sample at 0; nothing before it).
    fn sample(&self) -> Sample {
        self.series().get(self.index()).copied().unwrap_or(Sample {
            t_s: 0.0,
            backlog: 0,
            oldest_age_s: 0.0,
            in_flight: 0,
            retry_waiting: 0,
            dead_lettered: 0,
            lag: 0,
            published: 0,
            delivered: 0,
            redelivered: 0,
            acked: 0,
            lost: 0,
            duplicate_effects: 0,
        })
    }

    fn losses(&self) -> Losses {
        self.run
            .losses
            .get(self.index())
            .copied()
            .unwrap_or_default()
    }

    /// The counters and gauges at the cursor; `step` is the sample's index.
    pub fn readout(&self) -> Readout {
        let s = self.sample();
        let losses = self.losses();
        let consumers: u32 = self.scenario.consumers.iter().map(|c| c.replicas).sum();
        Readout {
            step: self.index() as u64,
            time_s: self.now_s,
            published: s.published,
            delivered: s.delivered,
            redelivered: s.redelivered,
            acked: s.acked,
            lost: s.lost,
            duplicate_effects: s.duplicate_effects,
            backlog: chart_info::sample_backlog(&s),
            in_flight: s.in_flight,
            oldest_age_s: s.oldest_age_s,
            dead_lettered: s.dead_lettered,
            refused: losses.refused,
            requests_refused: losses.requests_refused,
            dropped: losses.dropped,
            consumers_up: consumers,
            consumers_total: consumers,
            // The aggregated mode runs queues only.
            queue_consumers: true,
            finished: self.is_finished(),
            // Said once the cursor reaches the end, as a message-by-message run says it
            // when it stops there: before, the run on show has not stopped.
            budget_stop: Some(self.run.end_reason)
                .filter(|r| r.is_budget() && self.is_finished())
                .map(|r| r.describe()),
            ..Readout::default()
        }
    }

    /// Each component's amount at the cursor.
    pub fn cards(&self) -> Cards {
        let i = self.index();
        let at = |q: &[QueueSample]| q.get(i).copied();
        Cards {
            producers: self
                .scenario
                .producers
                .iter()
                .map(|p| {
                    let rate = fluid::value_at(
                        &p.arrivals
                            .schedule
                            .iter()
                            .map(|seg| (seg.from_s, seg.rate_per_s))
                            .collect::<Vec<_>>(),
                        self.now_s,
                    );
                    (p.name.clone(), rate)
                })
                .collect(),
            queues: self
                .scenario
                .queues
                .iter()
                .zip(&self.run.queue_series)
                .map(|(spec, series)| {
                    let q = at(series).unwrap_or(QueueSample {
                        waiting: 0,
                        in_flight: 0,
                        retry_waiting: 0,
                        dead_lettered: 0,
                        oldest_age_s: 0.0,
                    });
                    QueueCard {
                        name: spec.name.clone(),
                        waiting: q.waiting,
                        in_flight: q.in_flight,
                        dead_lettered: q.dead_lettered,
                        oldest_age_s: q.oldest_age_s,
                    }
                })
                .collect(),
            consumers: self
                .scenario
                .consumers
                .iter()
                .map(|c| {
                    let one = fluid::capacity_of([(c.concurrency, c.service.mean_s())]);
                    (c.name.clone(), c.replicas, one * f64::from(c.replicas))
                })
                .collect(),
        }
    }

    /// The chart's input with the series up to the cursor: it plays like a live run's.
    pub fn chart_data(&self) -> ChartData {
        let upto = &self.series()[..(self.index() + 1).min(self.series().len())];
        let line = |value: fn(&Sample) -> f64| -> Vec<(f64, f64)> {
            upto.iter().map(|s| (s.t_s, value(s))).collect()
        };
        ChartData {
            backlog: line(|s| chart_info::sample_backlog(s) as f64),
            in_flight: line(|s| s.in_flight as f64),
            dead_lettered: line(|s| s.dead_lettered as f64),
            oldest_age_s: line(|s| s.oldest_age_s),
            prediction: self.prediction.clone(),
            x_max_s: self.end_s(),
            now_s: self.now_s,
            ..ChartData::default()
        }
    }

    /// The chart's values at the cursor.
    pub fn values_now(&self) -> Values {
        let s = self.sample();
        Values {
            t_s: self.now_s,
            backlog: chart_info::sample_backlog(&s),
            predicted: chart_info::predicted_at(&self.prediction, self.now_s),
            in_flight: s.in_flight,
            dead_lettered: s.dead_lettered,
            oldest_age_s: s.oldest_age_s,
            now: true,
        }
    }

    /// The chart's values nearest to `t_s` among the samples shown so far (or the cursor's).
    pub fn values_at(&self, t_s: f64) -> Values {
        let upto = &self.series()[..(self.index() + 1).min(self.series().len())];
        chart_info::values_at(upto, &self.prediction, self.values_now(), t_s)
    }

    /// The dashed line's value at `t_s`.
    pub fn predicted_at(&self, t_s: f64) -> f64 {
        chart_info::predicted_at(&self.prediction, t_s)
    }

    /// The load factor at the cursor, from the scenario's rates and full capacity.
    pub fn rho_now(&self) -> Rho {
        Rho {
            lambda: fluid::arrival_rate_per_s(&self.scenario, self.now_s),
            mu: fluid::capacity_per_s(&self.scenario),
            has_consumers: !self.scenario.consumers.is_empty(),
            // The aggregated mode runs no scenario with a dependency (`supports`).
            ..Rho::default()
        }
    }

    /// "1× = N s of the run per second", in `lang`, for the banner.
    pub fn pace_text(&self, lang: Lang) -> String {
        let pace = crate::format::count(self.pace().round() as u64, lang);
        td_string!(locale(lang), stage.aggregated.pace, pace).to_string()
    }
}

/// `text` with every whole number of five digits or more written as the page writes
/// counts (`60,480,001,000`; `60.480.001.000` in Spanish): the core writes plain numbers,
/// which read back, and a reader needs them grouped.
fn grouped_numbers(text: &str, lang: Lang) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut digits = String::new();
    let flush = |digits: &mut String, out: &mut String| {
        match digits.parse::<u64>() {
            Ok(n) if digits.len() >= 5 => out.push_str(&crate::format::count(n, lang)),
            _ => out.push_str(digits),
        }
        digits.clear();
    };
    for c in text.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
        } else {
            flush(&mut digits, &mut out);
            out.push(c);
        }
    }
    flush(&mut digits, &mut out);
    out
}

/// `text` with its first letter in capitals, as a sentence on the page starts.
fn sentence_case(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::examples;

    /// The burst, aggregated: (3,000 − 2,000)·t to 60,000 at 60 s, then draining at
    /// 1,000 per second to empty at 120 s.
    fn burst() -> Aggregated {
        let mut s = examples::load("burst").expect("built in");
        s.mode = RunMode::Aggregated;
        assert!(runs_aggregated(&s));
        Aggregated::new(s).expect("covered")
    }

    #[test]
    fn the_burst_backlog_at_a_few_times_is_the_cores() {
        let mut a = burst();
        let core = aggregate::run(a.scenario()).expect("covered");
        for (t, expected) in [(0.0, 0), (30.0, 30_000), (60.0, 60_000), (90.0, 30_000)] {
            a.seek(t);
            let r = a.readout();
            let s = core.series.iter().find(|s| s.t_s == t).expect("sampled");
            assert_eq!(r.backlog, s.backlog, "at {t} s");
            assert!(
                r.backlog.abs_diff(expected) <= 10,
                "at {t} s: {}",
                r.backlog
            );
            assert_eq!(r.published, s.published);
            assert_eq!(a.values_now().backlog, r.backlog);
            assert_eq!(a.cards().queues[0].waiting, r.backlog);
        }
        a.seek(150.0);
        assert_eq!(a.readout().backlog, 0, "drained by 120 s");
    }

    #[test]
    fn the_cursor_clamps_to_the_run_and_plays_to_its_end() {
        let mut a = burst();
        let end = a.end_s();
        assert!(end >= 180.0, "{end}");
        a.seek(1e12);
        assert_eq!(a.now_s(), end);
        assert!(a.readout().finished);
        a.seek(f64::NAN);
        assert_eq!(a.now_s(), 0.0);
        assert!(!a.readout().finished);
        a.seek(-5.0);
        assert_eq!(a.now_s(), 0.0);
        // 100 ms of page time at 10×: one page second, `pace` seconds of the run (about
        // one for a run of about 3 minutes).
        assert!(!a.advance(100.0, 10.0));
        assert!((a.now_s() - a.pace()).abs() < 1e-9, "{}", a.now_s());
        assert!(a.pace() < 1.1);
        while !a.advance(100.0, 20.0) {}
        assert_eq!(a.now_s(), end);
    }

    #[test]
    fn step_and_back_move_one_sample() {
        let mut a = burst();
        a.step(true);
        assert_eq!((a.now_s(), a.readout().step), (1.0, 1));
        a.step(true);
        a.seek(2.5);
        a.step(false);
        assert_eq!(a.now_s(), 2.0, "back to the sample shown");
        a.step(false);
        assert_eq!((a.now_s(), a.readout().step), (1.0, 1));
        a.step(false);
        a.step(false);
        assert_eq!((a.now_s(), a.readout().step), (0.0, 0));
    }

    #[test]
    fn the_chart_holds_the_series_up_to_the_cursor_only() {
        let mut a = burst();
        a.seek(42.5);
        let c = a.chart_data();
        assert_eq!(c.backlog.len(), 43, "samples 0..=42");
        assert_eq!(c.backlog.last().map(|p| p.0), Some(42.0));
        assert_eq!(c.in_flight.len(), 43);
        assert_eq!(c.now_s, 42.5);
        assert_eq!(c.x_max_s, a.end_s());
        assert!(c.goodput.is_empty() && c.crashes.is_empty());
        // The fluid prediction applies: it peaks at 60,000 at 60 s.
        assert!((a.predicted_at(60.0) - 60_000.0).abs() < 1.0);
        assert!((a.values_at(10.2).t_s - 10.0).abs() < 1e-9);
        assert!(
            a.values_at(100.0).now,
            "beyond the cursor: the cursor's values"
        );
        let lambda = a.rho_now().lambda;
        assert_eq!(lambda, 3_000.0);
    }

    #[test]
    fn the_day_example_runs_aggregated_with_its_noon_peak() {
        let s = examples::load("day-at-a-million").expect("built in");
        assert!(runs_aggregated(&s));
        let mut a = Aggregated::new(s).expect("covered");
        assert_eq!(a.end_s(), 86_400.0);
        assert_eq!(a.pace(), 480.0);
        a.seek(43_200.0);
        let r = a.readout();
        assert!(r.backlog.abs_diff(2_880_000_000) < 1_000_000, "{r:?}");
        let cards = a.cards();
        assert_eq!(cards.producers[0].1, 600_000.0, "the peak ended at noon");
        assert!((cards.consumers[0].2 - 800_000.0).abs() < 1e-3);
        a.seek(60_000.0);
        assert_eq!(a.readout().backlog, 0, "empty again by 16:00");
    }

    /// mm1 with a count no message-by-message run could hold (the explorer's file): it
    /// opens aggregated and stops at the ten-year time limit.
    fn mm1_for_ten_years() -> Aggregated {
        let mut s = examples::load("mm1").expect("built in");
        s.producers[0].count = Some(1_000_000_000_000_000);
        assert!(runs_aggregated(&s));
        Aggregated::new(s).expect("covered")
    }

    #[test]
    fn a_run_stopped_at_its_limit_says_so_only_once_the_cursor_is_at_the_end() {
        let mut a = mm1_for_ten_years();
        a.step(true);
        a.step(true);
        let r = a.readout();
        assert!(!r.finished && r.time_s > 0.0, "{r:?}");
        assert_eq!(r.budget_stop, None, "at {} s of {} s", r.time_s, a.end_s());
        a.seek(a.end_s());
        let r = a.readout();
        assert!(r.finished);
        assert_eq!(
            r.budget_stop,
            Some(brokerlab_core::EndReason::TimeLimit.describe())
        );
    }

    #[test]
    fn the_producer_card_gives_the_rate_the_rho_line_divides() {
        let a = mm1_for_ten_years();
        let rate = a.cards().producers[0].1;
        assert_eq!(chart_info::rate_figure(rate, Lang::En), "0.9");
        assert_eq!(chart_info::rate_figure(rate, Lang::Es), "0,9");
        assert!(
            a.rho_now().rates_text(Lang::En).contains("0.9/s"),
            "{}",
            a.rho_now().rates_text(Lang::En)
        );
    }

    #[test]
    fn the_shell_builds_a_player_with_the_same_components() {
        let s = examples::load("day-at-a-million").expect("built in");
        let p = crate::model::player::Player::new(shell(&s)).expect("nothing arrives");
        assert_eq!(p.scenario().queues[0].name, "events");
        assert_eq!(p.scenario().consumers[0].replicas, 20);
    }

    #[test]
    fn the_note_and_pace_read_in_both_languages() {
        let a = Aggregated::new(examples::load("day-at-a-million").expect("built in"))
            .expect("covered");
        assert!(a
            .note(Lang::En)
            .starts_with("Aggregated mode: message by message"));
        let es = a.note(Lang::Es);
        assert!(es.starts_with("Modo agregado: mensaje a mensaje"), "{es}");
        assert!(!es.contains("instead"), "{es}");
        assert!(a.pace_text(Lang::En).contains("480"));
        assert_ne!(a.pace_text(Lang::Es), a.pace_text(Lang::En));
    }

    #[test]
    fn the_note_groups_long_numbers_and_starts_with_a_capital() {
        let raw = "aggregated mode: message by message it would need about 60480001000 \
                   message copies; the limit is 50000000 (x); seed 1234";
        let en = sentence_case(&grouped_numbers(raw, Lang::En));
        assert!(en.starts_with("Aggregated mode: "), "{en}");
        assert!(en.contains("about 60,480,001,000 message copies"), "{en}");
        assert!(en.contains("the limit is 50,000,000 (x)"), "{en}");
        assert!(
            en.ends_with("seed 1234"),
            "short numbers stay as they are: {en}"
        );
        let es = grouped_numbers(raw, Lang::Es);
        assert!(es.contains("60.480.001.000"), "{es}");
        assert_eq!(sentence_case(""), "");
    }
}
