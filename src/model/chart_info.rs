//! What the backlog chart tells in words and numbers, as plain functions: the crash markers
//! collected from a run's facts, the values under the pointer (or at the current time),
//! the load factor ρ = λ/μ with its meaning, and the chart's text description. Pure, so it
//! is tested natively; `backlog_chart` puts it on the page.

use brokerlab_core::lessons::Lang;
use brokerlab_core::{Fact, ProducerCrashPoint, Sample, Simulation};

use crate::format::{amount, count, fixed, seconds};
use crate::i18n::{locale, td_string};
use crate::model::capacity::{Limit, Strain};
use crate::model::concealed::ChartConcealed;
use crate::model::fluid::Load;

/// A crash the chart marks with a vertical line and a short label such as "C2 ✕".
#[derive(Clone, Debug, PartialEq)]
pub struct CrashMarker {
    pub t_s: f64,
    /// The label in English (the page shows [`CrashMarker::text`], in its language).
    pub label: String,
    /// Who crashed: what the label names.
    pub who: Crashed,
}

/// Who a crash marker names.
#[derive(Clone, Debug, PartialEq)]
pub enum Crashed {
    /// A consumer, a producer or a group member, by its name.
    Named(String),
    /// The outbox relay of the producer named.
    Relay(String),
    Broker,
}

impl Crashed {
    /// Who crashed, in words: a component's own name is not translated.
    pub fn text(&self, lang: Lang) -> String {
        let l = locale(lang);
        match self {
            Crashed::Named(name) => name.clone(),
            Crashed::Relay(name) => td_string!(l, stage.chart_info.relay, name).to_string(),
            Crashed::Broker => td_string!(l, stage.chart_info.broker).to_string(),
        }
    }
}

impl CrashMarker {
    fn new(t_s: f64, who: Crashed) -> Self {
        Self {
            t_s,
            label: format!("{} ✕", who.text(Lang::En)),
            who,
        }
    }

    /// The label drawn on the chart: "C2 ✕".
    pub fn text(&self, lang: Lang) -> String {
        format!("{} ✕", self.who.text(lang))
    }
}

/// The marker for `fact` at `t_s`, if it is a crash (of a consumer, a producer or its relay,
/// the broker, or a consumer-group member).
pub fn crash_marker(sim: &Simulation, t_s: f64, fact: &Fact) -> Option<CrashMarker> {
    let who = match *fact {
        Fact::ConsumerCrashed { consumer, .. } => Crashed::Named(
            sim.consumer(consumer)
                .map_or_else(|| format!("consumer {consumer}"), |c| c.name),
        ),
        Fact::ProducerCrashed {
            producer, point, ..
        } => {
            let name = sim
                .producer_name(producer)
                .map_or_else(|| format!("producer {producer}"), str::to_string);
            // Its relay crashed between the confirm and marking the row: say whose fault.
            if point == ProducerCrashPoint::AfterPublishBeforeMark {
                Crashed::Relay(name)
            } else {
                Crashed::Named(name)
            }
        }
        Fact::BrokerCrashed { .. } => Crashed::Broker,
        Fact::MemberCrashed { group, member, .. } => Crashed::Named(sim.member_name(group, member)),
        _ => return None,
    };
    Some(CrashMarker::new(t_s, who))
}

/// The run's values at one instant, as the hover readout shows them.
#[derive(Clone, Debug, PartialEq)]
pub struct Values {
    pub t_s: f64,
    pub backlog: u64,
    /// The fluid prediction at `t_s`.
    pub predicted: f64,
    pub in_flight: u64,
    /// Copies sitting in dead-letter queues (not the running total of dead-letterings).
    pub dead_lettered: u64,
    pub oldest_age_s: f64,
    /// These are the live values at the current time, not a sample.
    pub now: bool,
}

/// What waits to be consumed now: copies waiting in queues, and records appended to a
/// log that a consumer group has not yet committed (its lag, summed over the groups:
/// each group reads every record). Log groups take part in the backlog like queues.
pub fn backlog_now(sim: &Simulation) -> u64 {
    let lag: u64 = sim
        .group_ids()
        .flat_map(|g| sim.group_partitions(g))
        .map(|p| p.lag)
        .sum();
    sim.backlog() + lag
}

/// The backlog of one sample, as [`backlog_now`] counts it.
pub fn sample_backlog(s: &Sample) -> u64 {
    s.backlog + s.lag
}

/// The live values of `sim` at its current time.
pub fn live_values(sim: &Simulation, prediction: &[(f64, f64)]) -> Values {
    let t_s = brokerlab_core::us_to_secs(sim.now_us());
    Values {
        t_s,
        backlog: backlog_now(sim),
        predicted: predicted_at(prediction, t_s),
        in_flight: sim.in_flight(),
        dead_lettered: sim
            .queue_ids()
            .filter_map(|q| sim.queue(q))
            .map(|q| q.dead_lettered)
            .sum(),
        oldest_age_s: brokerlab_core::us_to_secs(sim.oldest_age_us()),
        now: true,
    }
}

/// The values nearest to time `t_s`: the closest sample, or the live values when the
/// current time is closer (the pointer is right of the last sample). Samples are in time order.
pub fn values_at(samples: &[Sample], prediction: &[(f64, f64)], live: Values, t_s: f64) -> Values {
    if !t_s.is_finite() {
        return live;
    }
    let after = samples.partition_point(|s| s.t_s < t_s);
    let nearest = [after.checked_sub(1), Some(after)]
        .into_iter()
        .flatten()
        .filter_map(|i| samples.get(i))
        .min_by(|a, b| (a.t_s - t_s).abs().total_cmp(&(b.t_s - t_s).abs()));
    match nearest {
        Some(s) if (s.t_s - t_s).abs() < (live.t_s - t_s).abs() || s.t_s >= live.t_s => Values {
            t_s: s.t_s,
            backlog: sample_backlog(s),
            predicted: predicted_at(prediction, s.t_s),
            in_flight: s.in_flight,
            dead_lettered: s.dead_lettered,
            oldest_age_s: s.oldest_age_s,
            now: false,
        },
        _ => live,
    }
}

/// The piecewise-linear prediction at `t_s` (flat beyond its ends; 0 when empty).
pub fn predicted_at(curve: &[(f64, f64)], t_s: f64) -> f64 {
    let after = curve.partition_point(|&(t, _)| t <= t_s);
    match (
        after.checked_sub(1).and_then(|i| curve.get(i)),
        curve.get(after),
    ) {
        (Some(&(t0, y0)), Some(&(t1, y1))) if t1 > t0 => y0 + (y1 - y0) * (t_s - t0) / (t1 - t0),
        (Some(&(_, y)), _) | (None, Some(&(_, y))) => y,
        (None, None) => 0.0,
    }
}

/// A count from the fluid model (a real number) as the page writes counts.
pub fn fluid_count(v: f64, lang: Lang) -> String {
    if v.is_finite() {
        count(v.max(0.0).round() as u64, lang)
    } else {
        td_string!(locale(lang), stage.chart_info.unbounded).to_string()
    }
}

/// The readout as one line of text (the page shows each number in its own element too).
pub fn values_text(v: &Values, lang: Lang) -> String {
    let l = locale(lang);
    let now = if v.now {
        td_string!(l, stage.chart.now)
    } else {
        ""
    };
    td_string!(
        l,
        stage.chart_info.values,
        t = seconds(v.t_s, lang),
        now,
        backlog = count(v.backlog, lang),
        predicted = fluid_count(v.predicted, lang),
        in_flight = count(v.in_flight, lang),
        dlq = count(v.dead_lettered, lang),
        oldest = seconds(v.oldest_age_s, lang),
    )
    .to_string()
}

/// A rate per second: `2,000/s`, `0.9/s`.
pub fn rate(per_s: f64, lang: Lang) -> String {
    if per_s.is_finite() {
        format!("{}/s", rate_figure(per_s, lang))
    } else {
        td_string!(locale(lang), stage.chart_info.unlimited).to_string()
    }
}

/// A finite rate's number as [`rate`] writes it, without the unit: whole from 100 up,
/// else to two decimals (`0.9`), so every card that gives a rate agrees with the ρ line.
pub fn rate_figure(per_s: f64, lang: Lang) -> String {
    // Adding +0.0 turns -0.0 into 0.0: a rate is never written "-0".
    let per_s = per_s + 0.0;
    if per_s >= 100.0 {
        count(per_s.round() as u64, lang)
    } else {
        amount(per_s, lang)
    }
}

/// The load factor ρ = λ/μ at one instant, and what it means.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rho {
    /// Arrivals per second now (λ).
    pub lambda: f64,
    /// Service capacity per second with every consumer up (μ): the bottleneck, no more
    /// than the dependencies their handlers call can serve.
    pub mu: f64,
    /// Whether anything consumes: queue consumers or log consumer groups.
    pub has_consumers: bool,
    /// What limits μ: the consumers' slots, or a dependency they call.
    pub limit: Limit,
    /// A dependency the consumers call that is overloaded or failing now (retries load
    /// it beyond what ρ counts): the line does not say stable then.
    pub strain: Option<Strain>,
}

impl Rho {
    /// ρ itself: `None` when it does not apply (no queue consumers).
    pub fn value(&self) -> Option<f64> {
        if !self.has_consumers {
            return None;
        }
        Some(if self.lambda <= 0.0 || self.mu.is_infinite() {
            0.0
        } else if self.mu <= 0.0 {
            f64::INFINITY
        } else {
            self.lambda / self.mu
        })
    }

    /// ρ as the page writes it: `1.50`, `0.90` (`1,50` in Spanish), `∞`; "n/a" ("n/d")
    /// when it does not apply.
    pub fn value_text(&self, lang: Lang) -> String {
        match self.value() {
            None => td_string!(locale(lang), stage.chart_info.rho_not_applicable).to_string(),
            Some(r) if r.is_infinite() => "∞".into(),
            Some(r) if r < 10.0 => fixed(r, 2, lang),
            Some(r) if r < 100.0 => fixed(r, 1, lang),
            Some(r) => fixed(r, 0, lang),
        }
    }

    /// What ρ means for the backlog, in plain words (the parameters' forecast says it
    /// with the same [`verdict`]).
    pub fn hint(&self, lang: Lang) -> String {
        match self.load() {
            None => td_string!(locale(lang), stage.chart_info.rho_none).to_string(),
            Some(load) => verdict(load, self.strain.as_ref(), lang),
        }
    }

    /// Where ρ stands: `None` when it does not apply (nothing consumes).
    pub fn load(&self) -> Option<Load> {
        self.has_consumers.then(|| Load::of(self.lambda, self.mu))
    }

    /// ρ says the backlog drains (or stays empty), but a dependency the consumers call is
    /// overloaded or failing now: the line warns instead.
    pub fn strained(&self) -> bool {
        self.strain.is_some() && matches!(self.load(), Some(l) if l != Load::Grows)
    }

    /// λ and μ as they were divided, and what limits μ when it is not the consumers'
    /// slots: "λ = 70/s arriving, μ = 100/s capacity, limited by db".
    pub fn rates_text(&self, lang: Lang) -> String {
        let l = locale(lang);
        let (lambda, mu) = (rate(self.lambda, lang), rate(self.mu, lang));
        match &self.limit {
            Limit::Consumers => td_string!(l, stage.chart_info.rates, lambda, mu).to_string(),
            Limit::Dependency(dep) => {
                td_string!(l, stage.chart_info.rates_dependency, lambda, mu, dep).to_string()
            }
            Limit::TooLate(dep) => {
                td_string!(l, stage.chart_info.rates_too_late, lambda, mu, dep).to_string()
            }
        }
    }
}

/// What a load means for the backlog, in words: [`Load::verdict_in`], unless ρ says the
/// backlog drains while a dependency the consumers call is in trouble now — then what
/// is wrong with it. ρ > 1 says the backlog grows either way.
pub fn verdict(load: Load, strain: Option<&Strain>, lang: Lang) -> String {
    let l = locale(lang);
    let Some(strain) = strain.filter(|_| load != Load::Grows) else {
        return load.verdict_in(lang);
    };
    let dep = strain.name.as_str();
    let errors = count((strain.error_rate * 100.0).round() as u64, lang);
    let trouble = if strain.overloaded {
        let offered = rate(strain.offered_per_s, lang);
        let capacity = rate(strain.capacity_per_s, lang);
        td_string!(l, stage.load.dep_overloaded, dep, offered, capacity, errors).to_string()
    } else {
        td_string!(l, stage.load.dep_failing, dep, errors).to_string()
    };
    td_string!(l, stage.load.but, range = load.range(), trouble).to_string()
}

/// Where the crash labels go: each label takes the first of `rows` rows in which it does
/// not overlap the previous label (positions and widths in the same unit, e.g. pixels);
/// when every row is taken, the one whose last label ends first.
pub fn label_rows(spans: &[(f64, f64)], rows: usize, gap: f64) -> Vec<usize> {
    let rows = rows.max(1);
    let mut ends = vec![f64::NEG_INFINITY; rows];
    spans
        .iter()
        .map(|&(start, width)| {
            let row = ends
                .iter()
                .position(|&end| end + gap <= start)
                .unwrap_or_else(|| {
                    (0..rows)
                        .min_by(|&a, &b| ends[a].total_cmp(&ends[b]))
                        .unwrap_or(0)
                });
            ends[row] = start + width;
            row
        })
        .collect()
}

/// The chart's text equivalent, for screen readers: the values now, which lines are
/// drawn, which a lesson hides until its answer (`hidden` names them; their values read
/// "?"), and the crashes marked.
pub fn describe(
    now: &Values,
    lines: &[&str],
    (concealed, hidden): (&ChartConcealed, &[&str]),
    crashes: &[CrashMarker],
    lang: Lang,
) -> String {
    let l = locale(lang);
    let unless = |hide: bool, text: String| if hide { "?".to_string() } else { text };
    let waiting = match now.backlog {
        _ if concealed.backlog => td_string!(l, stage.chart_info.waiting_many, n = "?").to_string(),
        1 => td_string!(l, stage.chart_info.waiting_one).to_string(),
        n => td_string!(l, stage.chart_info.waiting_many, n = count(n, lang)).to_string(),
    };
    let mut text = td_string!(
        l,
        stage.chart_info.describe,
        t = seconds(now.t_s, lang),
        waiting,
        predicted = unless(concealed.prediction, fluid_count(now.predicted, lang)),
        in_flight = unless(concealed.in_flight, count(now.in_flight, lang)),
        dlq = unless(concealed.dead_lettered, count(now.dead_lettered, lang)),
        oldest = unless(concealed.oldest_age, seconds(now.oldest_age_s, lang)),
    )
    .to_string();
    if !lines.is_empty() {
        let lines = lines.join("; ");
        text.push_str(&td_string!(l, stage.chart_info.lines_drawn, lines).to_string());
    }
    if !hidden.is_empty() {
        let names = hidden.join("; ");
        text.push(' ');
        text.push_str(&td_string!(l, stage.chart.hidden_note, names).to_string());
    }
    let list: Vec<String> = crashes
        .iter()
        .map(|c| {
            let (who, t) = (c.who.text(lang), seconds(c.t_s, lang));
            td_string!(l, stage.chart_info.crash_at, who, t).to_string()
        })
        .collect();
    let list = list.join(", ");
    let crashes = match crashes.len() {
        0 => td_string!(l, stage.chart_info.no_crash).to_string(),
        1 => td_string!(l, stage.chart_info.one_crash, list).to_string(),
        n => td_string!(l, stage.chart_info.crashes, n, list).to_string(),
    };
    text.push_str(&crashes);
    text
}

/// The chart's input, gathered from the run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChartData {
    /// (simulated seconds, messages waiting), one per sample.
    pub backlog: Vec<(f64, f64)>,
    /// Compare mode: side B's backlog, one per sample of B (empty otherwise).
    pub variant_backlog: Vec<(f64, f64)>,
    /// (simulated seconds, value) per sample: messages in flight, copies in dead-letter
    /// queues, and the oldest waiting message's age in seconds.
    pub in_flight: Vec<(f64, f64)>,
    pub dead_lettered: Vec<(f64, f64)>,
    pub oldest_age_s: Vec<(f64, f64)>,
    /// (simulated seconds, per second) per sample, only when the scenario has a
    /// dependency: useful completions (goodput) and handler attempts (throughput).
    pub goodput: Vec<(f64, f64)>,
    pub throughput: Vec<(f64, f64)>,
    /// The run's crashes so far, in time order.
    pub crashes: Vec<CrashMarker>,
    /// The fluid prediction (λ − μ)·t, as corners of a piecewise-linear curve.
    pub prediction: Vec<(f64, f64)>,
    pub x_max_s: f64,
    pub now_s: f64,
    /// The lines left out while a lesson asks what they would read out (their points
    /// are gone too, so the axes do not hint at them either).
    pub concealed: ChartConcealed,
}

impl ChartData {
    /// Leaves out the lines `hidden` names.
    pub fn conceal(&mut self, hidden: ChartConcealed) {
        let lines = [
            (hidden.prediction, &mut self.prediction),
            (hidden.backlog, &mut self.backlog),
            (hidden.oldest_age, &mut self.oldest_age_s),
            (hidden.in_flight, &mut self.in_flight),
            (hidden.dead_lettered, &mut self.dead_lettered),
        ];
        for (hide, points) in lines {
            if hide {
                points.clear();
            }
        }
        self.concealed = hidden;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::{examples, Command, ConsumerId, CrashPoint};

    const NOTHING: ChartConcealed = ChartConcealed {
        prediction: false,
        backlog: false,
        oldest_age: false,
        in_flight: false,
        dead_lettered: false,
    };
    const NONE_HIDDEN: (&ChartConcealed, &[&str]) = (&NOTHING, &[]);

    fn sample(t_s: f64, backlog: u64) -> Sample {
        Sample {
            t_s,
            backlog,
            oldest_age_s: t_s / 2.0,
            in_flight: 3,
            retry_waiting: 0,
            dead_lettered: 1,
            lag: 0,
            published: 0,
            delivered: 0,
            redelivered: 0,
            acked: 0,
            lost: 0,
            duplicate_effects: 0,
        }
    }

    fn live(t_s: f64) -> Values {
        Values {
            t_s,
            backlog: 999,
            predicted: 0.0,
            in_flight: 7,
            dead_lettered: 2,
            oldest_age_s: 4.0,
            now: true,
        }
    }

    #[test]
    fn the_prediction_is_interpolated_between_its_corners() {
        let curve = [(0.0, 0.0), (60.0, 60_000.0), (120.0, 0.0), (180.0, 0.0)];
        assert_eq!(predicted_at(&curve, 0.0), 0.0);
        assert_eq!(predicted_at(&curve, 30.0), 30_000.0);
        assert_eq!(predicted_at(&curve, 60.0), 60_000.0);
        assert_eq!(predicted_at(&curve, 90.0), 30_000.0);
        assert_eq!(predicted_at(&curve, 500.0), 0.0, "flat beyond the end");
        assert_eq!(predicted_at(&[], 5.0), 0.0);
        assert_eq!(predicted_at(&curve, -1.0), 0.0);
    }

    #[test]
    fn hover_picks_the_nearest_sample_or_the_live_values() {
        let samples: Vec<Sample> = (0..=10)
            .map(|i| sample(f64::from(i), 100 * i as u64))
            .collect();
        let curve = [(0.0, 0.0), (100.0, 100_000.0)];
        let v = values_at(&samples, &curve, live(10.4), 3.3);
        assert_eq!((v.t_s, v.backlog, v.now), (3.0, 300, false));
        assert_eq!(v.predicted, 3_000.0, "the prediction at the sample's time");
        assert_eq!((v.in_flight, v.dead_lettered, v.oldest_age_s), (3, 1, 1.5));
        assert_eq!(values_at(&samples, &curve, live(10.4), 3.6).t_s, 4.0);
        assert_eq!(values_at(&samples, &curve, live(10.4), -5.0).t_s, 0.0);
        // Right of the last sample, nearer to now: the live values.
        let now = values_at(&samples, &curve, live(10.4), 10.3);
        assert!(now.now && now.backlog == 999, "{now:?}");
        assert_eq!(values_at(&samples, &curve, live(10.4), 50.0), live(10.4));
        assert_eq!(values_at(&samples, &curve, live(10.4), 10.1).t_s, 10.0);
        // No samples yet, or nonsense: the live values.
        assert_eq!(values_at(&[], &curve, live(0.0), 3.0), live(0.0));
        assert_eq!(
            values_at(&samples, &curve, live(10.4), f64::NAN),
            live(10.4)
        );
    }

    #[test]
    fn live_values_match_the_simulation() {
        let mut sim = Simulation::new(examples::load("burst").expect("built in")).expect("valid");
        sim.run_until(brokerlab_core::secs_to_us(10.0));
        let v = live_values(&sim, &[(0.0, 0.0), (60.0, 60_000.0)]);
        assert_eq!(v.t_s, 10.0);
        assert_eq!(v.backlog, sim.backlog());
        assert_eq!(v.in_flight, sim.in_flight());
        assert_eq!(v.predicted, 10_000.0);
        assert!(v.now && v.backlog > 5_000);
        let text = values_text(&v, Lang::En);
        assert!(text.starts_with("10.0 s (now): "), "{text}");
        assert!(text.contains("(predicted 10,000)"), "{text}");
    }

    #[test]
    fn crashes_of_every_kind_get_a_short_label() {
        let mut sim = Simulation::new(examples::load("burst").expect("built in")).expect("valid");
        let step = sim
            .command(Command::CrashConsumer {
                consumer: ConsumerId::new(1),
                point: CrashPoint::Now,
                restart_after_s: None,
            })
            .expect("valid");
        let facts: Vec<Fact> = step.facts.to_vec();
        let markers: Vec<CrashMarker> = facts
            .iter()
            .filter_map(|f| crash_marker(&sim, 2.5, f))
            .collect();
        assert_eq!(
            markers,
            [CrashMarker {
                t_s: 2.5,
                label: "worker-2 ✕".into(),
                who: Crashed::Named("worker-2".into()),
            }]
        );
        let broker = Fact::BrokerCrashed {
            trigger: brokerlab_core::Trigger::User,
            restart_at_us: None,
        };
        assert_eq!(
            crash_marker(&sim, 1.0, &broker).expect("a crash").label,
            "broker ✕"
        );
        let not_a_crash = Fact::ConsumerRestarted {
            consumer: ConsumerId::new(1),
            trigger: brokerlab_core::Trigger::User,
        };
        assert_eq!(crash_marker(&sim, 1.0, &not_a_crash), None);
    }

    #[test]
    fn rho_reads_as_a_number_and_a_plain_sentence() {
        let burst = Rho {
            lambda: 3_000.0,
            mu: 2_000.0,
            has_consumers: true,
            ..Rho::default()
        };
        assert_eq!(burst.value(), Some(1.5));
        assert_eq!(burst.value_text(Lang::En), "1.50");
        assert_eq!(
            burst.value_text(Lang::Es),
            "1,50",
            "Spanish writes a decimal comma"
        );
        assert!(
            burst.hint(Lang::En).starts_with("ρ > 1:")
                && burst.hint(Lang::En).contains("grows without bound")
        );
        assert_eq!(
            burst.rates_text(Lang::En),
            "λ = 3,000/s arriving, μ = 2,000/s capacity"
        );
        let mm1 = Rho {
            lambda: 0.9,
            mu: 1.0,
            has_consumers: true,
            ..Rho::default()
        };
        assert_eq!(mm1.value_text(Lang::En), "0.90");
        assert!(mm1.hint(Lang::En).starts_with("ρ < 1: stable"));
        assert_eq!(
            mm1.rates_text(Lang::En),
            "λ = 0.9/s arriving, μ = 1/s capacity"
        );
        assert_eq!(rate(-0.0, Lang::En), "0/s", "never -0");
        let edge = Rho {
            lambda: 5.0,
            mu: 5.0,
            has_consumers: true,
            ..Rho::default()
        };
        assert!(edge.hint(Lang::En).starts_with("ρ = 1:"));
        let idle = Rho {
            lambda: 0.0,
            mu: 2_000.0,
            has_consumers: true,
            ..Rho::default()
        };
        assert_eq!(idle.value_text(Lang::En), "0.00");
        assert!(idle.hint(Lang::En).starts_with("ρ = 0:"));
        let none_up = Rho {
            lambda: 3.0,
            mu: 0.0,
            has_consumers: true,
            ..Rho::default()
        };
        assert_eq!(none_up.value_text(Lang::En), "∞");
        assert!(none_up.hint(Lang::En).starts_with("ρ > 1:"));
        let instant = Rho {
            lambda: 3.0,
            mu: f64::INFINITY,
            has_consumers: true,
            ..Rho::default()
        };
        assert_eq!(instant.value(), Some(0.0));
        let log = Rho {
            lambda: 8.0,
            mu: 0.0,
            has_consumers: false,
            ..Rho::default()
        };
        assert_eq!(
            (log.value(), log.value_text(Lang::En).as_str()),
            (None, "n/a")
        );
        assert_eq!(log.value_text(Lang::Es), "n/d");
        assert!(log.hint(Lang::En).contains("does not apply"));
        assert_eq!(
            Rho {
                lambda: 250.0,
                mu: 2.0,
                has_consumers: true,
                ..Rho::default()
            }
            .value_text(Lang::En),
            "125"
        );
        assert_eq!(
            Rho {
                lambda: 25.0,
                mu: 2.0,
                has_consumers: true,
                ..Rho::default()
            }
            .value_text(Lang::En),
            "12.5"
        );
    }

    #[test]
    fn crash_labels_take_free_rows() {
        // Far apart: one row. Close together: stacked. All rows full: the earliest-ending.
        assert_eq!(label_rows(&[(0.0, 50.0), (100.0, 50.0)], 3, 4.0), [0, 0]);
        assert_eq!(
            label_rows(&[(0.0, 50.0), (10.0, 50.0), (20.0, 50.0)], 3, 4.0),
            [0, 1, 2]
        );
        assert_eq!(
            label_rows(
                &[(0.0, 50.0), (10.0, 50.0), (20.0, 50.0), (30.0, 50.0)],
                3,
                4.0
            ),
            [0, 1, 2, 0]
        );
        assert_eq!(
            label_rows(&[(0.0, 50.0), (10.0, 50.0), (60.0, 10.0)], 2, 4.0),
            [0, 1, 0]
        );
        assert_eq!(label_rows(&[(0.0, 5.0)], 0, 0.0), [0], "at least one row");
    }

    #[test]
    fn the_description_names_the_lines_and_the_crashes() {
        let v = Values {
            t_s: 20.0,
            backlog: 12_345,
            predicted: 20_000.0,
            in_flight: 20,
            dead_lettered: 0,
            oldest_age_s: 6.31,
            now: true,
        };
        let crashes = [CrashMarker::new(5.0, Crashed::Named("C2".into()))];
        let text = describe(
            &v,
            &["backlog (solid blue)", "fluid prediction (dashed)"],
            NONE_HIDDEN,
            &crashes,
            Lang::En,
        );
        assert!(text.starts_with("Backlog over simulated time. At 20.0 s: 12,345 messages waiting, the fluid prediction 20,000, 20 in flight, 0 in the dead-letter queue, oldest waiting 6.3 s."), "{text}");
        assert!(text.contains("Lines drawn: backlog (solid blue); fluid prediction (dashed)."));
        assert!(text.ends_with("1 crash marked: C2 at 5.0 s."), "{text}");
        assert!(describe(&v, &[], NONE_HIDDEN, &[], Lang::En).ends_with("No crash so far."));
    }

    #[test]
    fn a_value_a_lesson_hides_reads_as_a_question_mark_and_the_note_says_why() {
        // backlog-arithmetic step 2 at 60 s: the age and the prediction are its answer.
        let v = Values {
            t_s: 60.0,
            backlog: 59_374,
            predicted: 60_000.0,
            oldest_age_s: 19.9,
            ..live(60.0)
        };
        let hidden = ChartConcealed {
            prediction: true,
            oldest_age: true,
            ..NOTHING
        };
        let names = ["fluid prediction", "oldest age"];
        let en = describe(&v, &["backlog"], (&hidden, &names), &[], Lang::En);
        assert!(
            en.starts_with("Backlog over simulated time. At 60.0 s: 59,374 messages waiting, the fluid prediction ?, "),
            "{en}"
        );
        assert!(en.contains("oldest waiting ?."), "{en}");
        assert!(!en.contains("60,000") && !en.contains("19.9"), "{en}");
        assert!(
            en.contains(" Hidden until the answer is revealed: fluid prediction; oldest age."),
            "{en}"
        );
        let backlog = ChartConcealed {
            backlog: true,
            ..NOTHING
        };
        let es = describe(&v, &[], (&backlog, &["acumulado"]), &[], Lang::Es);
        assert!(
            es.contains("En 60,0 s: ? mensajes en espera, la predicción fluida 60.000"),
            "{es}"
        );
        assert!(
            es.contains("Oculto hasta que se revele la respuesta: acumulado."),
            "{es}"
        );
        let shown = describe(&v, &[], NONE_HIDDEN, &[], Lang::En);
        assert!(
            shown.contains("oldest waiting 19.9 s") && !shown.contains("Hidden"),
            "{shown}"
        );
    }

    #[test]
    fn one_message_waiting_is_said_in_the_singular() {
        // It read "1 messages waiting", "1 mensajes en espera".
        let one = Values {
            backlog: 1,
            ..live(5.2)
        };
        let en = describe(&one, &[], NONE_HIDDEN, &[], Lang::En);
        assert!(en.contains("At 5.2 s: 1 message waiting, "), "{en}");
        let es = describe(&one, &[], NONE_HIDDEN, &[], Lang::Es);
        assert!(es.contains("En 5,2 s: 1 mensaje en espera, "), "{es}");
        let none = describe(
            &Values { backlog: 0, ..one },
            &[],
            NONE_HIDDEN,
            &[],
            Lang::Es,
        );
        assert!(none.contains("0 mensajes en espera"), "{none}");
    }

    #[test]
    fn the_chart_speaks_spanish() {
        let broker = CrashMarker::new(3.0, Crashed::Broker);
        assert_eq!(broker.label, "broker ✕");
        let relay = CrashMarker::new(4.0, Crashed::Relay("orders-api".into()));
        assert_eq!(relay.label, "orders-api relay ✕");
        assert_eq!(relay.text(Lang::Es), "relay de orders-api ✕");
        let v = live(10.0);
        let text = describe(&v, &["acumulado"], NONE_HIDDEN, &[relay], Lang::Es);
        assert!(
            text.starts_with(
                "Acumulado a lo largo del tiempo simulado. En 10,0 s: 999 mensajes en espera"
            ),
            "{text}"
        );
        assert!(
            text.ends_with("1 caída marcada: relay de orders-api en 4,0 s."),
            "{text}"
        );
        let rho = Rho {
            lambda: 3.0,
            mu: 1.0,
            has_consumers: true,
            ..Rho::default()
        };
        assert_eq!(
            rho.rates_text(Lang::Es),
            "λ = 3/s de llegadas, μ = 1/s de capacidad"
        );
        assert!(rho.hint(Lang::Es).starts_with("ρ > 1: los mensajes llegan"));
        assert_eq!(fluid_count(f64::INFINITY, Lang::Es), "sin límite");
        assert!(values_text(&v, Lang::Es).starts_with("10,0 s (ahora): 999 en espera"));
    }
}
