//! The run's story: what the page has told about the run so far — the latest step's facts,
//! the notable events, the event log, where each invariant first broke, the crashes the
//! chart marks, and the fluid prediction's inputs. It is plain data that derives `Clone`
//! and `Default`: a snapshot of the page is (simulation, story), and a reset is
//! `Story::default()`. It keeps facts, not words: what the narration shows ([`Told`]) is
//! told in the page's language when it is shown, so a language switch re-tells it at once.

use std::collections::VecDeque;

use brokerlab_core::lang::Lang;
use brokerlab_core::lessons::Happening;
use brokerlab_core::narration::describe;
use brokerlab_core::{us_to_secs, Fact, Micros, MsgId, Simulation};

use super::aftermath::Aftermath;
use super::capacity::Limit;
use super::chart_info::{self, CrashMarker};
use super::fluid;
use super::invariants::Watch;
use super::settings;
use crate::format::seconds;
use crate::i18n::{locale, td_string};

/// Recent notable events kept for the event list: room for a crash's whole story (armed,
/// crashed, restarted, its lease running out, the redelivery, the duplicate) and a command
/// that found nothing to do.
pub const EVENTS_MAX: usize = 8;
/// Facts of the latest steps kept for the event log (and its message filter).
pub const LOG_MAX: usize = 300;
/// Sentences of one step shown in the narration line.
pub const NARRATION_SENTENCES_MAX: usize = 2;

/// A recent fact worth a line of its own (crashes, restarts, redeliveries, losses…).
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub time_s: f64,
    pub text: String,
}

/// The narration shown under the chart: the latest step and recent notable events.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Narration {
    pub time_s: f64,
    pub sentences: Vec<String>,
    /// Facts of that step left out of `sentences`.
    pub more: usize,
    /// Newest first.
    pub events: Vec<Event>,
    /// The event log: the latest [`LOG_MAX`] facts in words, newest first.
    pub log: Vec<LogLine>,
}

/// One narrated fact of the event log.
#[derive(Clone, Debug, PartialEq)]
pub struct LogLine {
    /// The step it happened in (1 is the first).
    pub step: u64,
    pub time_s: f64,
    /// The message it is about, if any.
    pub msg: Option<MsgId>,
    pub text: String,
}

/// A fact as the log keeps it until it is told.
#[derive(Clone, Copy, Debug)]
pub struct Logged {
    pub step: u64,
    pub at_us: Micros,
    pub fact: Fact,
}

/// A notable fact as the story keeps it: when, what, and for a crash what it left for later
/// (read at the crash: the leases it held are gone from the run soon after).
#[derive(Clone, Copy, Debug)]
pub struct Notable {
    pub at_us: Micros,
    pub fact: Fact,
    pub aftermath: Option<Aftermath>,
    /// The same fact again, right after it (requests turned away by a crashed producer):
    /// how many times in all, and the latest's time.
    pub times: u32,
    pub last_us: Micros,
}

impl Notable {
    /// How long the list keeps it: crashes longest (the chart marks each one), then
    /// restarts, then everything else.
    fn keep_rank(&self) -> u8 {
        use Fact::*;
        match self.fact {
            ConsumerCrashed { .. }
            | ProducerCrashed { .. }
            | BrokerCrashed { .. }
            | MemberCrashed { .. } => 2,
            ConsumerRestarted { .. }
            | ProducerRestarted { .. }
            | BrokerRestarted { .. }
            | MemberJoined { .. } => 1,
            _ => 0,
        }
    }
}

/// What recording one step found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct News {
    /// A property broke for the first time.
    pub breached: bool,
    /// A notable event arrived (the narration should show it at once).
    pub notable: bool,
    /// A setting changed: the prediction was redrawn.
    pub prediction_changed: bool,
}

/// Everything told about the run up to its current step (see the module comment).
#[derive(Clone, Debug, Default)]
pub struct Story {
    /// Latest told step's facts and time.
    pub latest: Vec<Fact>,
    pub latest_us: Micros,
    /// The step just taken had nothing to tell (it only armed an unannounced fault).
    quiet: bool,
    /// Notable facts, newest last.
    pub events: VecDeque<Notable>,
    /// The latest facts, newest last.
    pub log: VecDeque<Logged>,
    /// Where each invariant first broke in this run.
    pub watch: Watch,
    /// Crashes seen in this run, for the chart's markers (rebuilt as a re-simulation
    /// replays the run, so stepping back keeps exactly the crashes before that step).
    pub crashes: Vec<CrashMarker>,
    /// The fluid prediction's inputs: total arrival rate λ(t) with the arrival changes
    /// given so far, and capacity μ(t) as it was after each setting change (see
    /// [`fluid::fluid_curve`]). Empty until [`Story::start_prediction`]. μ is the
    /// bottleneck (see [`super::capacity::bottleneck`]), with a corner wherever a
    /// dependency's planned slowdown or outage changes it; `limits` says what limits it
    /// from each corner on (the ρ line names it).
    pub lambda: Vec<(f64, f64)>,
    pub mu: Vec<(f64, f64)>,
    pub limits: Vec<(f64, Limit)>,
}

impl Story {
    /// The prediction for a run at its start: the scenario's arrivals and capacity.
    pub fn start_prediction(&mut self, sim: &Simulation) {
        self.lambda = fluid::total_rate(&settings::backlog_schedules(sim));
        self.mu.clear();
        self.limits.clear();
        self.extend_capacity(sim);
        // The capacity in force now holds from the run's start (as it always did).
        if let (Some(mu), Some(limit)) = (self.mu.first_mut(), self.limits.first_mut()) {
            (mu.0, limit.0) = (0.0, 0.0);
        }
    }

    /// μ and its limits from now on, after the corners before now.
    fn extend_capacity(&mut self, sim: &Simulation) {
        for (from_s, c) in settings::capacity_schedule(sim) {
            self.mu.push((from_s, c.per_s));
            self.limits.push((from_s, c.limit));
        }
    }

    /// What limits μ at `t_s`.
    pub fn limit_at(&self, t_s: f64) -> Limit {
        self.limits
            .iter()
            .rev()
            .find(|(from, _)| *from <= t_s)
            .map_or(Limit::Consumers, |(_, limit)| limit.clone())
    }

    /// Keeps the facts of the step just taken, at `at_us` (then [`Story::record`] tells
    /// them: the simulation is borrowed by its step until the facts are copied here).
    /// An unannounced fault armed for later is not told (an interview's hidden fault
    /// would be given away): a step that only armed one leaves the story as it was.
    pub fn set_latest(&mut self, at_us: Micros, facts: &[Fact]) {
        let told = || facts.iter().filter(|f| !f.arms_unannounced());
        self.quiet = told().next().is_none() && !facts.is_empty();
        if self.quiet {
            return;
        }
        self.latest_us = at_us;
        self.latest.clear();
        self.latest.extend(told());
    }

    /// Records the latest step (see [`Story::set_latest`]) of `sim`.
    pub fn record(&mut self, sim: &Simulation) -> News {
        if self.quiet {
            return News::default();
        }
        let (at_us, facts) = (self.latest_us, &self.latest);
        let step = sim.steps();
        let mut news = News {
            breached: self.watch.observe(sim, step, at_us, facts),
            ..News::default()
        };
        for &fact in facts {
            if self.log.len() == LOG_MAX {
                self.log.pop_front();
            }
            self.log.push_back(Logged { step, at_us, fact });
        }
        let t_s = us_to_secs(at_us);
        let markers = facts
            .iter()
            .filter_map(|f| chart_info::crash_marker(sim, t_s, f));
        self.crashes.extend(markers);
        for &fact in facts.iter().filter(|f| is_notable(f)) {
            news.notable = true;
            // A fact repeating the newest one (a crashed producer turning requests away)
            // is counted on it: a flood of them would push the crash out of the list.
            if let Some(newest) = self.events.back_mut().filter(|n| n.fact == fact) {
                newest.times += 1;
                newest.last_us = at_us;
                continue;
            }
            if self.events.len() == EVENTS_MAX {
                // The oldest of the events kept least long goes: crashes stay while
                // anything else remains, restarts while anything but crashes remains.
                // (`min_by_key` gives the first of equal minima: the oldest.)
                let out = self
                    .events
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, n)| n.keep_rank())
                    .map_or(0, |(i, _)| i);
                self.events.remove(out);
            }
            self.events.push_back(Notable {
                at_us,
                fact,
                aftermath: Aftermath::of(sim, &fact),
                times: 1,
                last_us: at_us,
            });
        }
        news.prediction_changed = self.note_settings(sim);
        news
    }

    /// After a step that changed a setting: λ from now on follows the arrivals as changed,
    /// and μ is the capacity of the consumers now (and as their dependencies' planned
    /// slowdowns and outages will have it). True when it changed.
    fn note_settings(&mut self, sim: &Simulation) -> bool {
        if !self.latest.iter().any(settings::changes_prediction) {
            return false;
        }
        let t = us_to_secs(sim.now_us());
        self.mu.retain(|&(from, _)| from < t);
        self.limits.retain(|&(from, _)| from < t);
        self.extend_capacity(sim);
        self.lambda = fluid::total_rate(&settings::backlog_schedules(sim));
        true
    }

    /// What the narration shows as of now, as facts (see [`Told`]).
    pub fn told(&self) -> Told {
        self.told_with_key(None)
    }

    /// As [`Story::told`], with the facts of the happening `key` said first: a lesson
    /// step that waits for an aborted transaction stops at a step that also processed a
    /// record and crashed a member, and its line must tell the abort it waited for.
    pub fn told_with_key(&self, key: Option<Happening>) -> Told {
        Told {
            latest_us: self.latest_us,
            latest: self.headline(key),
            more: self.latest.len().saturating_sub(NARRATION_SENTENCES_MAX),
            events: self.events.iter().rev().copied().collect(),
            log: self.log.iter().rev().copied().collect(),
        }
    }

    /// The latest step's facts the narration says: all of them when they fit, else the
    /// facts of `key` first, then the notable ones (a failure is never the one left out),
    /// said in the step's order.
    fn headline(&self, key: Option<Happening>) -> Vec<Fact> {
        let keyed = |i: &usize| key.is_some_and(|k| k.matches(&self.latest[*i]));
        let all = 0..self.latest.len();
        let mut said: Vec<usize> = all.clone().filter(keyed).collect();
        let rest = all.clone().filter(|i| is_notable(&self.latest[*i]));
        for i in rest.chain(all) {
            if said.len() >= NARRATION_SENTENCES_MAX.min(self.latest.len()) {
                break;
            }
            if !said.contains(&i) {
                said.push(i);
            }
        }
        said.truncate(NARRATION_SENTENCES_MAX);
        said.sort_unstable();
        said.into_iter().map(|i| self.latest[i]).collect()
    }

    /// The story in words, as of now, in `lang`.
    pub fn narrate(&self, sim: &Simulation, lang: Lang) -> Narration {
        self.told().narrate(sim, lang)
    }
}

/// What the narration shows, kept as facts rather than words: the latest step's first
/// facts, the notable events and the event log as of the narration's latest refresh
/// (newest first). The page tells them in its language when it shows them, so switching
/// the language re-tells what was already narrated at once. Bounded like the story:
/// [`NARRATION_SENTENCES_MAX`] + [`EVENTS_MAX`] + [`LOG_MAX`] facts.
#[derive(Clone, Debug, Default)]
pub struct Told {
    latest_us: Micros,
    latest: Vec<Fact>,
    /// Facts of that step left out of `latest`.
    more: usize,
    events: Vec<Notable>,
    log: Vec<Logged>,
}

impl Told {
    /// Nothing told yet (no step taken since the run started).
    pub fn is_empty(&self) -> bool {
        self.latest.is_empty()
    }

    /// The facts of the latest step the narration line says.
    pub fn said(&self) -> &[Fact] {
        &self.latest
    }

    /// These facts in words, in `lang`.
    pub fn narrate(&self, sim: &Simulation, lang: Lang) -> Narration {
        // The run's last instant: what a crash leaves for after it is never seen.
        let end_us = sim.horizon_us();
        let events = self
            .events
            .iter()
            .map(|n| {
                let mut text = describe(sim, &n.fact, lang);
                if let Some(later) = n.aftermath.and_then(|a| a.text(end_us, lang)) {
                    text = format!("{text} {later}");
                }
                if n.times > 1 {
                    let said = text.strip_suffix('.').unwrap_or(&text);
                    text = format!("{said} {}.", repeated(n, lang));
                }
                Event {
                    time_s: us_to_secs(n.at_us),
                    text,
                }
            })
            .collect();
        let log = self
            .log
            .iter()
            .map(|l| LogLine {
                step: l.step,
                time_s: us_to_secs(l.at_us),
                msg: l.fact.msg(),
                text: describe(sim, &l.fact, lang),
            })
            .collect();
        let mut sentences: Vec<String> =
            self.latest.iter().map(|f| describe(sim, f, lang)).collect();
        if let Some(first) = sentences.first_mut() {
            *first = after_colon(first, sim, lang);
        }
        Narration {
            time_s: us_to_secs(self.latest_us),
            sentences,
            more: self.more,
            events,
            log,
        }
    }
}

/// How often a notable fact came again in a row: "(23 times, the last at 14.2 s)".
fn repeated(n: &Notable, lang: Lang) -> String {
    let (times, last) = (n.times.to_string(), seconds(us_to_secs(n.last_us), lang));
    td_string!(locale(lang), panels.narration.repeated, times, last).to_string()
}

/// The step's first sentence as it reads after "At 6.0 s:". Spanish writes on in lower
/// case after a colon ("A los 6,0 s: la reserva…"); a sentence that starts with a
/// component's name keeps it as written ("A los 6,0 s: C1 hizo…"), and English keeps
/// its capital.
fn after_colon(sentence: &str, sim: &Simulation, lang: Lang) -> String {
    let first_word = sentence.split([' ', ',', ':', ';']).next().unwrap_or("");
    let mut chars = first_word.chars();
    let ordinary = match (chars.next(), chars.next()) {
        (Some(a), Some(b)) => a.is_uppercase() && b.is_lowercase(),
        _ => false,
    };
    if lang != Lang::Es || !ordinary || sim.names_a_component(first_word) {
        return sentence.to_string();
    }
    let mut chars = sentence.chars();
    let head = chars
        .next()
        .map(|c| c.to_lowercase().collect::<String>())
        .unwrap_or_default();
    head + chars.as_str()
}

/// Facts that deserve a line in the event list: failures and their consequences, not the
/// routine flow of publish, deliver, commit, ack.
fn is_notable(fact: &Fact) -> bool {
    match *fact {
        Fact::Delivered { attempt, .. } => attempt > 1,
        Fact::EffectCommitted { applied, .. } => applied > 1,
        Fact::ConsumerEmailSent { times, .. } => times > 1,
        _ => matches!(
            fact,
            Fact::AckIgnored { .. }
                // A publish the broker could not take (it was down).
                | Fact::PublishFailed { .. }
                // A record a log producer keeps through an outage, or drops unsent.
                | Fact::Buffered { .. }
                | Fact::BufferDropped { .. }
                | Fact::LeaseExpired { .. }
                | Fact::CrashArmed { .. }
                // A scheduled crash or lost ack that scaling in called off.
                | Fact::ConsumerFaultCalledOff { .. }
                // A command that found nothing to act on (a restart of a consumer up).
                | Fact::CommandMoot { .. }
                | Fact::ConsumerCrashed { .. }
                // Every crash the chart marks, and its restart.
                | Fact::ProducerCrashed { .. }
                | Fact::ProducerRestarted { .. }
                | Fact::BrokerCrashed { .. }
                | Fact::BrokerRestarted { .. }
                | Fact::MemberCrashed { .. }
                | Fact::MemberJoined { .. }
                | Fact::MessageLost { .. }
                // Work lost behind an ack: an inbox keyed by the entity.
                | Fact::TakenForDuplicate { .. }
                | Fact::RecordTakenForDuplicate { .. }
                // An effect nobody entitled asked for: a handler that trusts the broker.
                | Fact::UnauthorizedEffect { .. }
                | Fact::RecordUnauthorizedEffect { .. }
                // A publish its destination does not allow (least privilege).
                | Fact::PublishDenied { .. }
                | Fact::ConsumerRestarted { .. }
                // A slowdown: why the backlog starts to climb, and when.
                | Fact::ConsumerSlowed { .. }
                | Fact::DependencySlowed { .. }
                | Fact::SettingChanged { .. }
                | Fact::ConsumerAdded { .. }
                | Fact::ConsumerStopped { .. }
                | Fact::DeadLettered { .. }
                | Fact::Requeued { .. }
                | Fact::DuplicateKept { .. }
                | Fact::GapSkipped { .. }
                | Fact::OutboxRowParked { .. }
                | Fact::FixDeployed { .. }
                | Fact::RedriveStarted { .. }
                | Fact::StaleWorkInProgress { .. }
                | Fact::RecordDeadLettered { .. }
                // Refusals: back-pressure reaching the producer, and business rules.
                | Fact::Refused { .. }
                | Fact::RequestRefused { .. }
                | Fact::EffectRefused { .. }
                | Fact::RecordEffectRefused { .. }
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::examples;

    #[test]
    fn spanish_writes_on_in_lower_case_after_the_colon_but_keeps_names_as_written() {
        let mut scenario = examples::load("crash-after-commit").expect("built in");
        scenario.queues[0].name = "Pedidos".into();
        let sim = Simulation::new(scenario).expect("valid");
        let es = |s: &str| after_colon(s, &sim, Lang::Es);
        assert_eq!(es("La reserva se confirmó."), "la reserva se confirmó.");
        assert_eq!(es("Pedidos recibió #3."), "Pedidos recibió #3.");
        assert_eq!(es("C1 hizo commit."), "C1 hizo commit.");
        assert_eq!(es("DLQ vacía."), "DLQ vacía.");
        assert_eq!(es("#3 se perdió."), "#3 se perdió.");
        assert_eq!(
            after_colon("The broker is down.", &sim, Lang::En),
            "The broker is down."
        );
    }

    /// The notable events told while `name` runs to its end.
    fn notable_facts(name: &str) -> Vec<Fact> {
        let mut sim = Simulation::new(examples::load(name).expect("built in")).expect("valid");
        let mut story = Story::default();
        let mut seen = Vec::new();
        while let Some(step) = sim.step() {
            let facts = step.facts.to_vec();
            story.set_latest(sim.now_us(), &facts);
            if story.record(&sim).notable {
                seen.extend(story.events.iter().map(|n| n.fact));
            }
        }
        seen
    }

    /// Every sentence the story tells (latest lines, events, log) while the first
    /// `steps` steps of `scenario` run.
    fn everything_told(scenario: brokerlab_core::Scenario, steps: u64) -> Vec<String> {
        let mut sim = Simulation::new(scenario).expect("valid");
        let mut story = Story::default();
        let mut said = Vec::new();
        while sim.steps() < steps {
            let Some(step) = sim.step() else { break };
            let facts = step.facts.to_vec();
            story.set_latest(sim.now_us(), &facts);
            story.record(&sim);
            let n = story.narrate(&sim, Lang::En);
            said.extend(n.sentences);
            said.extend(n.events.into_iter().map(|e| e.text));
            said.extend(n.log.into_iter().map(|l| l.text));
        }
        said
    }

    #[test]
    fn a_flood_of_turned_away_requests_is_counted_on_one_line_and_never_pushes_a_crash_out() {
        // mm4: the consumer and the broker crash, then P1 stays down for a minute, turning
        // away some two hundred requests; the list kept only the last five of those.
        use brokerlab_core::{Command, ConsumerId, CrashPoint, ProducerCrashPoint, ProducerId};
        let mut scenario = examples::load("mm4").expect("built in");
        let at = |at_s: f64, command: Command| brokerlab_core::ScheduledCommand {
            at_s,
            command,
            unannounced: false,
        };
        scenario.commands = vec![
            at(
                5.0,
                Command::CrashConsumer {
                    consumer: ConsumerId::new(0),
                    point: CrashPoint::Now,
                    restart_after_s: Some(1.0),
                },
            ),
            at(
                10.0,
                Command::CrashBroker {
                    restart_after_s: Some(1.0),
                },
            ),
            at(
                20.0,
                Command::CrashProducer {
                    producer: ProducerId::new(0),
                    point: ProducerCrashPoint::Now,
                    restart_after_s: Some(60.0),
                },
            ),
        ];
        let mut sim = Simulation::new(scenario).expect("valid");
        let mut story = Story::default();
        while sim.now_us() < 70_000_000 {
            let Some(step) = sim.step() else { break };
            let facts = step.facts.to_vec();
            story.set_latest(sim.now_us(), &facts);
            story.record(&sim);
        }
        let events = story.narrate(&sim, Lang::En).events;
        let texts: Vec<&str> = events.iter().map(|e| e.text.as_str()).collect();
        let has = |start: &str| texts.iter().any(|t| t.starts_with(start));
        assert!(has("C1 crashed"), "{texts:#?}");
        assert!(has("The broker crashed"), "{texts:#?}");
        assert!(has("P1 crashed"), "{texts:#?}");
        let turned: Vec<&&str> = texts.iter().filter(|t| t.contains("turned away")).collect();
        assert_eq!(turned.len(), 1, "{texts:#?}");
        let times: u32 = turned[0]
            .split(" (")
            .nth(1)
            .and_then(|t| t.split(' ').next())
            .and_then(|n| n.parse().ok())
            .expect("a count");
        assert!(times > 100, "{}", turned[0]);
        assert!(turned[0].contains(", the last at "), "{}", turned[0]);
        assert!(turned[0].ends_with(" s)."), "{}", turned[0]);
    }

    #[test]
    fn an_unannounced_fault_is_told_when_it_strikes_and_not_when_it_is_armed() {
        // crash-after-commit arms C1's crash at 0 s; it strikes after C1's first commit.
        let announced = examples::load("crash-after-commit").expect("built in");
        let told = everything_told(announced.clone(), 60);
        let armed = "C1 will crash right after its next commit, before the ack (as scheduled).";
        assert!(
            told.iter().any(|s| s == armed),
            "announced, the arming is told"
        );
        assert!(told.iter().any(
            |s| s.starts_with("C1 crashed after committing, before sending its ack (as scheduled)")
        ));

        let mut hidden = announced;
        hidden.commands[0].unannounced = true;
        let told = everything_told(hidden, 60);
        assert!(told
            .iter()
            .all(|s| !s.contains("will crash") && !s.contains("scheduled")));
        assert!(told
            .iter()
            .any(|s| s
                .starts_with("C1 crashed after committing, before sending its ack (unannounced)")));
        // The quiet first step left the story as it was: nothing told before step 2.
        let mut sim = Simulation::new(
            examples::load("crash-after-commit")
                .map(|mut s| {
                    s.commands[0].unannounced = true;
                    s
                })
                .expect("built in"),
        )
        .expect("valid");
        let mut story = Story::default();
        let step = sim.step().expect("a first step");
        let facts = step.facts.to_vec();
        assert!(facts.iter().all(Fact::arms_unannounced), "{facts:?}");
        story.set_latest(sim.now_us(), &facts);
        assert_eq!(story.record(&sim), News::default());
        assert!(story.told().is_empty() && story.log.is_empty());
    }

    #[test]
    fn the_same_facts_are_told_in_spanish_and_again_in_english() {
        let mut sim = Simulation::new(examples::load("crash-after-commit").expect("built in"))
            .expect("valid");
        let mut story = Story::default();
        for _ in 0..12 {
            let Some(step) = sim.step() else { break };
            let facts = step.facts.to_vec();
            story.set_latest(sim.now_us(), &facts);
            story.record(&sim);
        }
        let told = story.told();
        let en = told.narrate(&sim, Lang::En);
        let es = told.narrate(&sim, Lang::Es);
        assert!(!en.sentences.is_empty() && en.log.len() >= 12, "{en:?}");
        assert_eq!((es.time_s, es.more), (en.time_s, en.more));
        assert_eq!(es.log.len(), en.log.len());
        for (e, s) in en.log.iter().zip(&es.log) {
            assert_eq!((e.step, e.msg), (s.step, s.msg));
            assert_ne!(e.text, s.text, "told in Spanish");
        }
        assert_ne!(en.sentences, es.sentences);
        assert_eq!(told.narrate(&sim, Lang::En), en, "back in English");
    }

    #[test]
    fn slowdowns_are_notable_events() {
        // Four consumers slowed by hand: the events list said "None yet".
        let slowed = |name: &str, command: brokerlab_core::Command| {
            let mut sim = Simulation::new(examples::load(name).expect("built in")).expect("valid");
            let mut story = Story::default();
            let step = sim.command(command).expect("valid");
            let facts = step.facts.to_vec();
            story.set_latest(step.time_us, &facts);
            assert!(story.record(&sim).notable, "{name}");
            story.events.back().map(|n| n.fact)
        };
        let consumer = brokerlab_core::ConsumerId::from_index(0);
        let c = slowed(
            "mm4",
            brokerlab_core::Command::SlowConsumer {
                consumer,
                factor: 4.0,
            },
        );
        assert!(matches!(c, Some(Fact::ConsumerSlowed { .. })), "{c:?}");
        let command = brokerlab_core::Command::SlowDependency {
            dependency: "db".into(),
            factor: 5.0,
            for_s: 3.0,
        };
        let d = slowed("dep-metastable", command);
        assert!(matches!(d, Some(Fact::DependencySlowed { .. })), "{d:?}");
    }

    #[test]
    fn refusals_and_refused_effects_are_notable_events() {
        let refused = |name| {
            notable_facts(name)
                .into_iter()
                .any(|f| matches!(f, Fact::Refused { .. } | Fact::EffectRefused { .. }))
        };
        assert!(refused("backpressure"), "back-pressure refusals");
        assert!(refused("account-42"), "a refused withdrawal");
    }

    #[test]
    fn every_crash_the_chart_marks_is_a_notable_event_and_so_is_its_restart() {
        let seen = |name, wanted: fn(&Fact) -> bool| notable_facts(name).iter().any(wanted);
        assert!(seen("outbox-relay-crash", |f| matches!(
            f,
            Fact::ProducerCrashed { .. }
        )));
        assert!(seen("outbox-relay-crash", |f| matches!(
            f,
            Fact::ProducerRestarted { .. }
        )));
        // (In broker-crash the losses the crash causes follow it in the same step.)
        let trigger = brokerlab_core::Trigger::User;
        assert!(is_notable(&Fact::BrokerCrashed {
            trigger,
            restart_at_us: None
        }));
        assert!(is_notable(&Fact::BrokerRestarted { trigger }));
        assert!(seen("log-consumer-groups", |f| matches!(
            f,
            Fact::MemberJoined { .. }
        )));
    }

    #[test]
    fn a_command_that_finds_nothing_to_act_on_has_its_line_in_the_event_list() {
        let moot = brokerlab_core::step::Moot::RestartConsumerUp {
            consumer: brokerlab_core::ConsumerId::new(0),
        };
        let told = Fact::CommandMoot {
            moot,
            trigger: brokerlab_core::Trigger::Scheduled,
        };
        assert!(is_notable(&told));
        let hidden = Fact::CommandMoot {
            moot,
            trigger: brokerlab_core::Trigger::Unannounced,
        };
        assert!(
            hidden.arms_unannounced(),
            "kept off the list like a hidden fault"
        );
    }

    #[test]
    fn a_step_with_more_facts_than_the_line_shows_never_leaves_out_its_failure() {
        // broker-crash while the broker is down: a request arrives, the message is
        // created and published, and the publish fails. The line shows two of those.
        let mut sim =
            Simulation::new(examples::load("broker-crash").expect("built in")).expect("valid");
        let mut story = Story::default();
        let mut checked = 0;
        while let Some(step) = sim.step() {
            let facts = step.facts.to_vec();
            story.set_latest(sim.now_us(), &facts);
            let failed = facts
                .iter()
                .position(|f| matches!(f, Fact::PublishFailed { .. }));
            let Some(at) = failed.filter(|_| facts.len() > NARRATION_SENTENCES_MAX) else {
                continue;
            };
            let told = story.told();
            assert!(told.latest.contains(&facts[at]), "{facts:?}");
            assert_eq!(told.more, facts.len() - NARRATION_SENTENCES_MAX);
            // In the step's own order.
            let order: Vec<_> = told
                .latest
                .iter()
                .map(|f| facts.iter().position(|g| g == f))
                .collect();
            assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
            checked += 1;
        }
        assert!(
            checked > 0,
            "some step had a failed publish among more facts than shown"
        );
    }
}
