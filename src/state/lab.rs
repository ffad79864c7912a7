//! The page's state: one [`Player`] kept outside the reactive graph, a frame counter that
//! is bumped whenever the player changes, and the few signals the controls own (playing,
//! speed, an error). Views read memoised snapshots; controls call the methods below.

use leptos::prelude::*;

use brokerlab_core::compare::{Side, Variant};
use brokerlab_core::import::Note;
use brokerlab_core::lessons::Lang;
use brokerlab_core::{examples, secs_to_us, us_to_secs, Command, MsgId, Scenario, ScenarioError};

use crate::i18n::{self, locale, td_string, Locale};
use crate::model::aggregated::{self, Aggregated};
use crate::model::chart_info::Rho;
use crate::model::flights::{FlightBuffer, Node};
use crate::model::frame_budget::{self, FrameBudget};
use crate::model::interview::Interview;
use crate::model::invariants::Status;
use crate::model::lesson::Guide;
use crate::model::lineage::{Bilingual, Lineage, LineageBuild};
use crate::model::panels::Panel;
use crate::model::player::{Player, SPEEDS, SPEED_DEFAULT};
use crate::model::readout::{Percentiles, Readout};
use crate::model::settings::Settings;
use crate::model::story::Narration;
use crate::model::topology::Topology;
use crate::model::words::{refusal_in, Words};

/// One frame at 60 Hz: the most the first frame after a pause may count for.
const FRAME_MS_NOMINAL: f64 = 1_000.0 / 60.0;

/// Wall-clock time one frame may spend seeking: longer than when playing (nothing else
/// moves meanwhile), still short enough for the page to answer input between frames.
const SEEK_WORK_MS: f64 = 30.0;

/// A budget: true while less than `work_ms` has passed since it was made (always true
/// outside a browser).
fn deadline(work_ms: f64) -> impl FnMut(u64) -> bool {
    #[cfg(target_arch = "wasm32")]
    let performance = window().performance();
    #[cfg(not(target_arch = "wasm32"))]
    let performance: Option<web_sys::Performance> = None;
    let start = performance.as_ref().map_or(0.0, |p| p.now());
    move |_steps| {
        performance
            .as_ref()
            .is_none_or(|p| p.now() - start < work_ms)
    }
}

/// Compare mode's side B, while comparing (see `state/compare.rs`): a second lab over the
/// variant's player, kept at this lab's simulated time.
#[derive(Clone)]
pub struct Compared {
    pub b: Lab,
    /// What B changes.
    pub variant: Variant,
    /// Side A's scenario as it was before comparing (what a compare link names).
    pub original: Scenario,
    /// Where the main stage's commands go.
    pub target: RwSignal<Side>,
    /// Owns B's memos and effects: cleaned up when comparing stops.
    pub owner: Owner,
}

/// A cheap, copyable handle to the page's state.
#[derive(Clone, Copy)]
pub struct Lab {
    player: StoredValue<Player>,
    /// An aggregated run on show (see `model/aggregated.rs`): when present, playing,
    /// seeking and the counters, chart and timeline follow its cursor, and the player
    /// holds the same components at rest.
    aggregated: StoredValue<Option<Aggregated>>,
    /// Whether the run on show is aggregated: its banner and cards show, tokens and
    /// commands do not.
    pub aggregated_on: RwSignal<bool>,
    /// Bumped after every change to the player: what the memos below track.
    frame: RwSignal<u64>,
    pub playing: RwSignal<bool>,
    /// Simulated seconds per wall-clock second.
    pub speed: RwSignal<f64>,
    /// A problem to show to the user (a command the simulation refused).
    pub error: RwSignal<Option<Words>>,
    /// The next frame is the first since play was pressed: its wall time includes the pause.
    resuming: StoredValue<bool>,
    /// The simulation's share of a playing frame, learnt from how long frames take.
    frame_budget: StoredValue<FrameBudget>,
    pub readout: Memo<Readout>,
    pub narration: Memo<Narration>,
    /// (run number, samples taken): the chart redraws when it changes.
    pub chart_key: Memo<(u32, usize)>,
    /// Name of the consumer (or group member) the crash button would crash, if any is up.
    pub crash_target: Memo<Option<String>>,
    /// With no crash target: whether every consumer was stopped by scaling in, none down.
    pub all_stopped: Memo<bool>,
    /// The diagram's snapshot.
    pub topology: Memo<Topology>,
    /// (name, description) of the loaded scenario.
    pub scenario: Memo<(String, String)>,
    /// The loaded scenario, without the user's commands (the editor shows it).
    pub base: Memo<Scenario>,
    /// The open message history, or why it could not be built; `None` when closed.
    pub lineage: RwSignal<Option<Result<Lineage, Bilingual>>>,
    /// A message history being built over the next frames (see [`Lab::open_lineage`]).
    building: StoredValue<Option<LineageBuild>>,
    /// A history is being built: the frame loop runs until it is done.
    pub building_lineage: RwSignal<bool>,
    /// Playing pauses at the step where an invariant first breaks.
    pub pause_on_breach: RwSignal<bool>,
    /// The live invariants.
    pub invariants: Memo<Vec<Status>>,
    /// The components the narrated step involved (their cards are highlighted).
    pub highlighted: Memo<Vec<Node>>,
    /// The loaded scenario's seed.
    pub seed: Memo<u64>,
    /// Latency percentiles (refreshed with the narration).
    pub percentiles: Memo<Percentiles>,
    /// The simulated time a seek in progress is going to (seconds).
    pub seeking: Memo<Option<f64>>,
    /// The end of the timeline scrubber (seconds).
    pub timeline_end_s: Memo<f64>,
    /// The settings in force now (the parameters panel).
    pub settings: Memo<Settings>,
    /// Changes when the fluid prediction changes: the chart redraws at once.
    pub prediction_key: Memo<(u32, u64)>,
    /// The load factor ρ = λ/μ now (over the chart). Read on every frame, not when the
    /// counters change: two scenarios that open with the same counters (the burst and
    /// the day at a million, 20 consumers each) have different rates.
    pub rho: Memo<Rho>,
    /// The side panel on show beside the stage.
    pub panel: RwSignal<Panel>,
    /// The lesson on show, if any (see `state/lesson.rs`).
    pub guide: RwSignal<Option<Guide>>,
    /// The language of the lessons.
    pub lang: RwSignal<Lang>,
    /// Interview mode's checklist, notes and hidden faults (see `state/interview.rs`).
    pub interview: RwSignal<Interview>,
    /// The notes of the import that opened the run on show (see `state/files.rs`); `None`
    /// once dismissed or when another run is opened.
    pub import_notes: RwSignal<Option<Vec<Note>>>,
    /// Compare mode's side B, if comparing.
    pub compare: RwSignal<Option<Compared>>,
}

/// A memo of the player recomputed on every frame.
fn per_frame<T>(
    player: StoredValue<Player>,
    frame: RwSignal<u64>,
    read: impl Fn(&Player) -> T + Send + Sync + 'static,
) -> Memo<T>
where
    T: PartialEq + Send + Sync + 'static,
{
    Memo::new(move |_| {
        frame.track();
        player.with_value(&read)
    })
}

/// A memo recomputed on every frame, of the aggregated run when one is on show, else of
/// the player.
fn per_frame_or<T>(
    (player, aggregated): (StoredValue<Player>, StoredValue<Option<Aggregated>>),
    frame: RwSignal<u64>,
    read: impl Fn(&Player) -> T + Send + Sync + 'static,
    read_aggregated: impl Fn(&Aggregated) -> T + Send + Sync + 'static,
) -> Memo<T>
where
    T: PartialEq + Send + Sync + 'static,
{
    Memo::new(move |_| {
        frame.track();
        aggregated
            .with_value(|a| a.as_ref().map(&read_aggregated))
            .unwrap_or_else(|| player.with_value(&read))
    })
}

/// A memo of the player recomputed only when `key` changes (far less often than the frame:
/// neither recomputed nor its snapshot cloned on every frame).
fn per_key<K, T>(
    player: StoredValue<Player>,
    key: Memo<K>,
    read: impl Fn(&Player) -> T + Send + Sync + 'static,
) -> Memo<T>
where
    K: Clone + PartialEq + Send + Sync + 'static,
    T: PartialEq + Send + Sync + 'static,
{
    Memo::new(move |_| {
        // Read, not just tracked: a memo only signals changes once it is computed.
        let _ = key.get();
        player.with_value(&read)
    })
}

impl Lab {
    /// The locale of the page's messages now (untracked: a message is written once).
    fn locale(&self) -> Locale {
        i18n::locale(self.lang.get_untracked())
    }

    pub fn new(player: Player) -> Self {
        let opening_speed = player.opening_speed();
        let player = StoredValue::new(player);
        let aggregated = StoredValue::new(None::<Aggregated>);
        let both = (player, aggregated);
        let frame = RwSignal::new(0_u64);
        // The keys of what changes only with the narration, and only with the run.
        let told = per_frame(player, frame, |p| (p.run(), p.narration_version()));
        let run = per_frame(player, frame, |p| (p.run(), p.seed()));
        let lang = RwSignal::new(Lang::default());
        Self {
            player,
            aggregated,
            aggregated_on: RwSignal::new(false),
            frame,
            playing: RwSignal::new(false),
            speed: RwSignal::new(opening_speed),
            error: RwSignal::new(None),
            resuming: StoredValue::new(false),
            frame_budget: StoredValue::new(FrameBudget::default()),
            readout: per_frame_or(both, frame, Player::readout, Aggregated::readout),
            // Told in the page's language when shown: a switch re-tells it at once.
            narration: Memo::new(move |_| {
                let _ = told.get();
                let lang = lang.get();
                player.with_value(|p| p.narration(lang))
            }),
            chart_key: per_frame_or(
                both,
                frame,
                |p| (p.run(), p.sample_count()),
                move |a| (player.with_value(Player::run), a.index() + 1),
            ),
            // No crash button in an aggregated run: nothing to crash message by message.
            crash_target: per_frame_or(both, frame, Player::crash_target_name, |_| None),
            all_stopped: per_frame_or(both, frame, Player::all_stopped, |_| false),
            topology: Memo::new(move |previous| {
                frame.track();
                player.with_value(|p| Topology::after(p.sim(), previous))
            }),
            scenario: per_key(player, run, move |p| {
                let name = |s: &Scenario| (s.name.clone(), s.description.clone());
                aggregated
                    .with_value(|a| a.as_ref().map(|a| name(a.scenario())))
                    .unwrap_or_else(|| name(p.scenario()))
            }),
            base: per_key(player, run, move |p| {
                aggregated
                    .with_value(|a| a.as_ref().map(|a| a.scenario().clone()))
                    .unwrap_or_else(|| p.base().clone())
            }),
            lineage: RwSignal::new(None),
            building: StoredValue::new(None),
            building_lineage: RwSignal::new(false),
            pause_on_breach: RwSignal::new(false),
            invariants: per_frame(player, frame, Player::invariants),
            highlighted: per_key(player, told, |p| p.narrated_nodes().to_vec()),
            seed: per_key(player, run, Player::seed),
            percentiles: per_key(player, told, |p| p.percentiles().clone()),
            seeking: per_frame(player, frame, |p| p.seek_target().map(us_to_secs)),
            timeline_end_s: per_frame_or(both, frame, Player::timeline_end_s, Aggregated::end_s),
            settings: per_frame(player, frame, |p| Settings::of(p.sim())),
            prediction_key: per_frame(player, frame, |p| (p.run(), p.prediction_version())),
            rho: per_frame_or(both, frame, Player::rho_now, Aggregated::rho_now),
            panel: RwSignal::new(Panel::default()),
            guide: RwSignal::new(None),
            lang,
            interview: RwSignal::new(Interview::default()),
            import_notes: RwSignal::new(None),
            compare: RwSignal::new(None),
        }
    }

    /// Changes the player (a lesson's checkpoint, a replay) and tells the views.
    /// Changes the player without telling the page (no [`Lab::changed`]): for what
    /// `changed` itself does to it, compare mode's hold.
    pub(crate) fn adjust_player<U>(&self, f: impl FnOnce(&mut Player) -> U) -> Option<U> {
        self.player.try_update_value(f)
    }

    pub fn update_player<U>(&self, f: impl FnOnce(&mut Player) -> U) -> Option<U> {
        let out = self.player.try_update_value(f);
        self.changed();
        out
    }

    /// Plays on (never restarting a finished run, unlike [`Lab::toggle_play`]).
    pub fn play(&self) {
        if !self.playing.get_untracked() {
            self.resuming.set_value(true);
            self.playing.set(true);
        }
    }

    /// Reads the player without tracking anything.
    pub fn with_player<U>(&self, f: impl FnOnce(&Player) -> U) -> U {
        self.player.with_value(f)
    }

    /// Moves the message tokens collected since the last call into `into` (no signal
    /// fires: the overlay polls this on its own animation frames).
    pub fn drain_flights(&self, into: &mut FlightBuffer) {
        self.player.update_value(|p| p.drain_flights(into));
    }

    fn changed(&self) {
        // The one place the clock moves through: side B follows it.
        self.follow_compare();
        self.rewind_lesson();
        self.frame.update(|n| *n = n.wrapping_add(1));
    }

    /// One animation frame: advances the run by `wall_ms` at the current speed.
    pub fn tick(&self, wall_ms: f64) {
        if self.aggregated_on.get_untracked() {
            self.aggregated_frame(wall_ms);
            return;
        }
        if self.building_lineage.get_untracked() {
            self.lineage_frame();
            return;
        }
        if !self.playing.get_untracked() && self.seeking.get_untracked().is_some() {
            self.seek_frame();
            return;
        }
        let resuming = self.resuming.get_value();
        let wall_ms = if resuming {
            self.resuming.set_value(false);
            wall_ms.min(FRAME_MS_NOMINAL)
        } else {
            wall_ms
        };
        // After a pause the interval counts the pause, not the previous frame's work.
        let work_ms = if resuming {
            self.frame_budget.with_value(FrameBudget::work_ms)
        } else {
            self.frame_budget
                .try_update_value(|b| b.next(wall_ms))
                .unwrap_or(frame_budget::WORK_MS_MAX)
        };
        let speed = self.speed.get_untracked();
        let more = deadline(work_ms);
        let pause_on_breach = self.pause_on_breach.get_untracked();
        let Some(advance) = self.player.try_update_value(|p| {
            p.set_pause_on_breach(pause_on_breach);
            p.advance_within(wall_ms, speed, more)
        }) else {
            return;
        };
        self.changed();
        if advance.finished || advance.breached || advance.checkpoint {
            self.playing.set(false);
        }
    }

    /// Play, or pause; at the end of a run, play replays it from its start.
    pub fn toggle_play(&self) {
        if self.playing.get_untracked() {
            self.playing.set(false);
            // Paused: the narration may tell the very latest step.
            self.player.update_value(Player::refresh_narration);
            self.changed();
            return;
        }
        let finished = self.with_aggregated(Aggregated::is_finished);
        if finished.unwrap_or_else(|| self.player.with_value(Player::is_finished)) {
            self.rewind();
        }
        self.resuming.set_value(true);
        self.playing.set(true);
    }

    pub fn set_speed(&self, speed: f64) {
        if SPEEDS.contains(&speed) {
            self.speed.set(speed);
        }
    }

    /// Crashes the first consumer (or else group member) that is up; it restarts a few
    /// seconds later.
    pub fn crash(&self) {
        if self.aggregated_on.get_untracked() {
            return;
        }
        let (to_a, b) = self.command_targets();
        if let Some(b) = b {
            b.crash();
        }
        if !to_a {
            // B's end may have moved: the hold and the timeline follow (see `changed`).
            self.changed();
            return;
        }
        let result = self.player.try_update_value(Player::crash_next);
        if let Some(Err(e)) = result {
            self.refused(e, |l, why| {
                td_string!(l, common.errors.crash_refused, why).to_string()
            });
        }
        self.changed();
    }

    /// Loads a built-in example by name: a new run, paused at its start.
    pub fn load(&self, name: &str) {
        let missing = name.to_string();
        let player = examples::load(name)
            .ok_or_else(|| {
                Words::new(move |lang| {
                    let name = &missing;
                    td_string!(locale(lang), common.errors.no_example, name).to_string()
                })
            })
            .and_then(|s| {
                if aggregated::runs_aggregated(&s) {
                    return self.open_aggregated(s).map(|()| None).map_err(|e| {
                        Words::new(move |lang| {
                            let why = e.text_in(lang);
                            td_string!(locale(lang), common.errors.example_failed, why).to_string()
                        })
                    });
                }
                Player::new(s).map(Some).map_err(|e| {
                    Words::new(move |lang| {
                        let why = e.text_in(lang);
                        td_string!(locale(lang), common.errors.example_failed, why).to_string()
                    })
                })
            });
        match player {
            Ok(opened) => {
                if let Some(player) = opened {
                    self.open_player(player);
                }
                // Hidden faults belonged to the previous scenario's schedule.
                self.take_faults();
            }
            Err(message) => {
                self.playing.set(false);
                self.error.set(Some(message));
                self.changed();
            }
        }
    }

    /// Puts a new run on the page (a loaded example, an edited scenario), paused.
    pub fn open_player(&self, player: Player) {
        self.put_player(player, None);
    }

    /// Puts `scenario` on the page as an aggregated run (computed at once, as flows),
    /// paused at its start, beside a player of the same components at rest.
    pub fn open_aggregated(&self, scenario: Scenario) -> Result<(), ScenarioError> {
        let shown = Aggregated::new(scenario.clone())?;
        let player = Player::new(aggregated::shell(&scenario))?;
        self.put_player(player, Some(shown));
        self.speed.set(SPEED_DEFAULT);
        Ok(())
    }

    /// Computes `scenario` as flows over the player the Lab already holds, which is its
    /// shell: a link to an aggregated scenario starts the Lab with it, so it is not
    /// built a second time as [`Lab::open_aggregated`] would.
    pub fn show_aggregated_on_shell(&self, scenario: Scenario) -> Result<(), ScenarioError> {
        let shown = Aggregated::new(scenario)?;
        self.playing.set(false);
        self.aggregated_on.set(true);
        self.aggregated.set_value(Some(shown));
        self.speed.set(SPEED_DEFAULT);
        self.changed();
        Ok(())
    }

    /// Reads the aggregated run on show, if any.
    pub fn with_aggregated<U>(&self, f: impl FnOnce(&Aggregated) -> U) -> Option<U> {
        self.aggregated.with_value(|a| a.as_ref().map(f))
    }

    /// Moves the aggregated run's cursor (paused), and tells the views.
    fn move_aggregated(&self, f: impl FnOnce(&mut Aggregated)) {
        self.playing.set(false);
        self.aggregated.update_value(|a| {
            if let Some(a) = a {
                f(a);
            }
        });
        self.changed();
    }

    /// One animation frame of an aggregated run: the cursor moves on at the speed.
    fn aggregated_frame(&self, wall_ms: f64) {
        if !self.playing.get_untracked() {
            return;
        }
        let wall_ms = if self.resuming.get_value() {
            self.resuming.set_value(false);
            wall_ms.min(FRAME_MS_NOMINAL)
        } else {
            wall_ms
        };
        let speed = self.speed.get_untracked();
        let finished = self
            .aggregated
            .try_update_value(|a| a.as_mut().is_none_or(|a| a.advance(wall_ms, speed)))
            .unwrap_or(true);
        self.changed();
        if finished {
            self.playing.set(false);
        }
    }

    fn put_player(&self, mut player: Player, aggregated: Option<Aggregated>) {
        self.playing.set(false);
        self.aggregated_on.set(aggregated.is_some());
        self.aggregated.set_value(aggregated);
        // Another run: side B belonged to the previous one.
        self.stop_compare();
        let run = self.player.with_value(Player::run).wrapping_add(1);
        player.set_run(run);
        // A story of a few messages opens slowly enough to see each event.
        self.speed.set(player.opening_speed());
        self.player.set_value(player);
        self.error.set(None);
        self.import_notes.set(None);
        self.close_lineage();
        self.changed();
    }

    /// Says on the page, in one sentence of its language, that the core refused
    /// something: `say` puts the core's reason (`why`) into the sentence.
    pub fn refused(&self, e: ScenarioError, say: fn(Locale, &str) -> String) {
        self.error.set(Some(Words::new(move |lang| {
            say(locale(lang), &refusal_in(&e, lang))
        })));
    }

    /// One step (one event) forward, paused.
    pub fn step(&self) {
        if self.aggregated_on.get_untracked() {
            return self.move_aggregated(|a| a.step(true));
        }
        self.playing.set(false);
        self.player.update_value(|p| {
            p.step_once();
        });
        self.changed();
    }

    /// One step back, paused: the recorded run is re-simulated up to the previous step.
    pub fn back(&self) {
        if self.aggregated_on.get_untracked() {
            return self.move_aggregated(|a| a.step(false));
        }
        self.playing.set(false);
        if let Some(Err(e)) = self.player.try_update_value(Player::step_back) {
            self.refused(e, |l, why| {
                td_string!(l, common.errors.back_failed, why).to_string()
            });
        }
        self.changed();
    }

    /// Gives the simulation a user command (recorded in the run).
    pub fn command(&self, fault: Command) {
        if self.aggregated_on.get_untracked() {
            self.error.set(Some(Words::new(|lang| {
                td_string!(locale(lang), stage.aggregated.disabled).to_string()
            })));
            return;
        }
        let (to_a, b) = self.command_targets();
        if let Some(b) = b {
            b.command(fault.clone());
        }
        if !to_a {
            // B's end may have moved: the hold and the timeline follow (see `changed`).
            self.changed();
            return;
        }
        if let Some(Err(e)) = self.player.try_update_value(|p| p.command(fault)) {
            self.refused(e, |l, why| {
                td_string!(l, common.errors.command_refused, why).to_string()
            });
        }
        self.changed();
    }

    /// Gives the simulation a setting change; a refusal comes back as text (the
    /// parameters panel shows it next to the field) and nothing changes.
    pub fn try_command(&self, fault: Command) -> Result<(), String> {
        if self.aggregated_on.get_untracked() {
            return Err(td_string!(self.locale(), stage.aggregated.disabled).to_string());
        }
        let (to_a, b) = self.command_targets();
        if let Some(b) = b {
            b.try_command(fault.clone())?;
        }
        if !to_a {
            self.changed();
            return Ok(());
        }
        let result = self
            .player
            .try_update_value(|p| p.command(fault))
            .unwrap_or(Ok(()));
        self.changed();
        result.map_err(|e| {
            let why = e.problem_in(self.lang.get_untracked());
            td_string!(self.locale(), common.errors.refused, why).to_string()
        })
    }

    /// The next offered speed up (`faster`) or down; stays at the ends.
    pub fn nudge_speed(&self, faster: bool) {
        let now = self.speed.get_untracked();
        let at = SPEEDS.iter().position(|&s| s == now).unwrap_or(0);
        let next = if faster {
            (at + 1).min(SPEEDS.len() - 1)
        } else {
            at.saturating_sub(1)
        };
        self.speed.set(SPEEDS[next]);
    }

    /// Opens the history of message `msg` up to the current step (the run pauses). It is
    /// rebuilt from the latest snapshot before the message existed, within a frame's
    /// budget at a time: a short one shows at once, a long one over the next frames.
    pub fn open_lineage(&self, msg: MsgId) {
        self.playing.set(false);
        // The history opens in view, whichever panel was showing.
        self.panel.set(Panel::History);
        match self.player.with_value(|p| p.lineage_build(msg)) {
            Ok(build) => {
                self.building.set_value(Some(build));
                self.building_lineage.set(true);
                self.lineage_frame();
            }
            Err(problem) => {
                self.building.set_value(None);
                self.building_lineage.set(false);
                self.lineage.set(Some(Err(problem)));
            }
        }
    }

    /// Closes the history (and stops building one).
    fn close_lineage(&self) {
        self.building.set_value(None);
        self.building_lineage.set(false);
        self.lineage.set(None);
    }

    /// One frame's worth of building the history being opened.
    fn lineage_frame(&self) {
        let more = deadline(SEEK_WORK_MS);
        let done = self
            .building
            .try_update_value(|b| b.as_mut().is_none_or(|b| b.go_on(more)))
            .unwrap_or(true);
        if done {
            let built = self.building.try_update_value(Option::take).flatten();
            self.building_lineage.set(false);
            if let Some(build) = built {
                self.lineage.set(Some(Ok(build.finish())));
            }
        }
    }

    /// Rebuilds the open history up to the current step.
    pub fn refresh_lineage(&self) {
        let open = self
            .lineage
            .with_untracked(|l| l.as_ref().and_then(|l| l.as_ref().ok()).map(|l| l.msg))
            .or_else(|| {
                self.building
                    .with_value(|b| b.as_ref().map(LineageBuild::msg))
            });
        if let Some(msg) = open {
            self.open_lineage(msg);
        }
    }

    /// Seeks to simulated time `t_s` (clamped to the timeline), paused. The recorded run is
    /// re-simulated there, commands included; a long seek goes on over the next frames.
    pub fn seek(&self, t_s: f64) {
        if self.aggregated_on.get_untracked() {
            return self.move_aggregated(|a| a.seek(t_s));
        }
        self.playing.set(false);
        let end_s = self.player.with_value(Player::timeline_end_s);
        let t_s = if t_s.is_finite() {
            t_s.clamp(0.0, end_s)
        } else {
            0.0
        };
        if let Some(Err(e)) = self
            .player
            .try_update_value(|p| p.begin_seek(secs_to_us(t_s)))
        {
            self.refused(e, |l, why| {
                td_string!(l, common.errors.seek_failed, why).to_string()
            });
        }
        self.seek_frame();
    }

    /// One frame's worth of a seek in progress.
    fn seek_frame(&self) {
        let more = deadline(SEEK_WORK_MS);
        self.player.update_value(|p| {
            p.continue_seek(more);
        });
        self.changed();
    }

    /// Starts the run again with seed `seed`, paused (commands are forgotten).
    pub fn set_seed(&self, seed: u64) {
        self.playing.set(false);
        if self.aggregated_on.get_untracked() {
            // Randomness is averaged out: every seed gives the same aggregated run.
            return;
        }
        if self.player.with_value(Player::seed) == seed {
            return;
        }
        match self.player.try_update_value(|p| p.set_seed(seed)) {
            Some(Err(e)) => self.refused(e, |l, why| {
                td_string!(l, common.errors.seed_failed, why).to_string()
            }),
            _ => self.close_lineage(),
        }
        self.changed();
    }

    /// Back to step 0 of the run on show, with the user's crashes and changes still
    /// recorded, so playing on replays them (Replay): only Reset forgets them.
    pub fn rewind(&self) {
        if self.aggregated_on.get_untracked() {
            return self.move_aggregated(|a| a.seek(0.0));
        }
        self.playing.set(false);
        if let Some(Err(e)) = self.player.try_update_value(|p| p.go_to_step(0)) {
            self.refused(e, |l, why| {
                td_string!(l, common.errors.restart_failed, why).to_string()
            });
        }
        self.changed();
    }

    /// Back to the start of the scenario, paused, the user's crashes and changes gone.
    pub fn reset(&self) {
        if self.aggregated_on.get_untracked() {
            return self.move_aggregated(|a| a.seek(0.0));
        }
        self.playing.set(false);
        if let Some(b) = self.variant_lab() {
            b.reset();
        }
        if let Some(Err(e)) = self.player.try_update_value(Player::reset) {
            self.refused(e, |l, why| {
                td_string!(l, common.errors.restart_failed, why).to_string()
            });
        }
        self.changed();
    }
}

/// A lab over the built-in example `name`, under its own reactive owner (keep the owner
/// for as long as the lab is used: dropping it disposes the lab's signals).
#[cfg(test)]
pub(crate) fn test_lab(name: &str) -> (Owner, Lab) {
    let owner = Owner::new();
    owner.set();
    let scenario = examples::load(name).expect("a built-in example");
    (owner, Lab::new(Player::new(scenario).expect("it starts")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::player::SPEED_DEFAULT;
    use brokerlab_core::examples;

    fn lab() -> (Owner, Lab) {
        test_lab("burst")
    }

    #[test]
    fn a_story_of_a_few_messages_opens_slowly_and_the_burst_at_ten_times() {
        let (_owner, lab) = lab();
        assert_eq!(lab.speed.get_untracked(), 10.0, "the burst");
        lab.load("outbox-relay-crash");
        assert_eq!(lab.speed.get_untracked(), 0.25, "11 events in 2.5 s");
        assert_eq!(lab.timeline_end_s.get_untracked(), 2.6, "over at 2.53 s");
        lab.load("burst");
        assert_eq!(lab.speed.get_untracked(), 10.0);
    }

    /// Steps `lab` to the end of its run: (crashes, end time).
    fn step_to_the_end(lab: &Lab) -> (u64, f64) {
        for _ in 0..10_000 {
            if lab.readout.with_untracked(|r| r.finished) {
                break;
            }
            lab.step();
        }
        lab.readout.with_untracked(|r| (r.crashes, r.time_s))
    }

    #[test]
    fn replay_plays_the_run_on_show_again_with_the_users_crash_and_reset_forgets_it() {
        let (_owner, lab) = lab();
        lab.load("crash-after-commit");
        lab.step();
        lab.step();
        lab.crash();
        let with_crash = step_to_the_end(&lab);
        assert_eq!(with_crash.0, 2, "the example's crash and the user's");
        lab.toggle_play();
        assert!(lab.playing.get_untracked());
        assert_eq!(
            lab.readout.get_untracked().step,
            0,
            "replayed from its start"
        );
        assert_eq!(
            step_to_the_end(&lab),
            with_crash,
            "the same run, crash and all"
        );
        lab.reset();
        assert_eq!(step_to_the_end(&lab).0, 1, "Reset forgets the user's crash");
    }

    #[test]
    fn crash_updates_the_readout_and_names_the_next_target() {
        let (_owner, lab) = lab();
        assert_eq!(lab.readout.get_untracked().crashes, 0);
        assert_eq!(
            lab.crash_target.get_untracked().as_deref(),
            Some("worker-1")
        );
        lab.crash();
        let r = lab.readout.get_untracked();
        assert_eq!((r.crashes, r.consumers_up), (1, 19));
        assert_eq!(
            lab.crash_target.get_untracked().as_deref(),
            Some("worker-2")
        );
        assert_eq!(lab.narration.get_untracked().events.len(), 1);
        assert_eq!(lab.error.get_untracked(), None);
    }

    #[test]
    fn the_narration_follows_the_language_at_once_and_back() {
        let (_owner, lab) = lab();
        lab.load("crash-after-commit");
        for _ in 0..8 {
            lab.step();
        }
        let en = lab.narration.get_untracked();
        assert!(!en.sentences.is_empty() && !en.log.is_empty(), "{en:?}");
        lab.lang.set(Lang::Es);
        let es = lab.narration.get_untracked();
        assert_ne!(es.sentences, en.sentences, "{es:?}");
        assert_ne!(es.log[0].text, en.log[0].text);
        assert_eq!(es.log.len(), en.log.len(), "the same facts, re-told");
        lab.lang.set(Lang::En);
        assert_eq!(lab.narration.get_untracked(), en);
    }

    #[test]
    fn play_pauses_and_replays_a_finished_run_from_the_start() {
        let (_owner, lab) = lab();
        lab.toggle_play();
        assert!(lab.playing.get_untracked());
        lab.toggle_play();
        assert!(!lab.playing.get_untracked());
        lab.player
            .update_value(|p| while !p.advance(100.0, 20.0).finished {});
        lab.changed();
        assert!(lab.readout.get_untracked().finished);
        lab.toggle_play();
        assert!(lab.playing.get_untracked());
        let r = lab.readout.get_untracked();
        assert!(!r.finished);
        assert_eq!(r.time_s, 0.0, "replay starts over");
        assert_eq!(
            lab.chart_key.get_untracked(),
            (1, 0),
            "a new run, with no samples yet"
        );
    }

    #[test]
    fn the_load_factor_is_the_scenario_on_show_even_when_the_counters_match() {
        // The burst and the day at a million both open with 20 consumers and nothing
        // done: their counters are equal, and ρ over the chart, recomputed only when the
        // counters changed, kept the burst's 1.50 over the day's 0.75.
        let (_owner, lab) = lab();
        assert_eq!(lab.rho.get_untracked().value(), Some(1.5));
        let counters = lab.readout.get_untracked();
        lab.load("day-at-a-million");
        assert!(lab.aggregated_on.get_untracked());
        assert_eq!(lab.readout.get_untracked(), counters, "the same counters");
        assert_eq!(lab.rho.get_untracked().value(), Some(0.75));
        lab.load("burst");
        assert_eq!(lab.rho.get_untracked().value(), Some(1.5));
    }

    #[test]
    fn only_offered_speeds_are_taken() {
        let (_owner, lab) = lab();
        assert_eq!(lab.speed.get_untracked(), SPEED_DEFAULT);
        lab.set_speed(3.0);
        assert_eq!(lab.speed.get_untracked(), SPEED_DEFAULT);
        lab.set_speed(0.5);
        assert_eq!(lab.speed.get_untracked(), 0.5);
    }

    #[test]
    fn loading_an_example_starts_a_paused_new_run() {
        let (_owner, lab) = lab();
        lab.toggle_play();
        lab.load("crash-after-commit");
        assert!(!lab.playing.get_untracked());
        assert_eq!(lab.scenario.get_untracked().0, "crash-after-commit");
        assert_eq!(lab.readout.get_untracked().step, 0);
        assert_eq!(lab.topology.get_untracked().consumers[0].name, "C1");
        assert_eq!(lab.chart_key.get_untracked(), (1, 0));
        lab.load("no-such-example");
        assert!(lab.error.get_untracked().is_some());
        assert_eq!(lab.scenario.get_untracked().0, "crash-after-commit");
    }

    #[test]
    fn step_and_back_move_one_event_and_restore_the_counters() {
        let (_owner, lab) = lab();
        lab.load("crash-after-commit");
        let mut readouts = vec![lab.readout.get_untracked()];
        for _ in 0..6 {
            lab.step();
            readouts.push(lab.readout.get_untracked());
        }
        let last = &readouts[6];
        assert_eq!(last.step, 6);
        assert_eq!(
            (last.redelivered, last.duplicate_effects),
            (1, 1),
            "{last:?}"
        );
        lab.step();
        assert_eq!(lab.readout.get_untracked().step, 6, "the run is over");
        for k in (0..6).rev() {
            lab.back();
            assert_eq!(lab.readout.get_untracked(), readouts[k], "at step {k}");
        }
        lab.back();
        assert_eq!(
            lab.readout.get_untracked().step,
            0,
            "nothing before the start"
        );
    }

    #[test]
    fn every_example_loads_steps_and_steps_back() {
        let (_owner, lab) = lab();
        for name in examples::names() {
            lab.load(name);
            assert_eq!(lab.scenario.get_untracked().0, name);
            for _ in 0..40 {
                lab.step();
            }
            let at = lab.readout.get_untracked();
            let topology = lab.topology.get_untracked();
            lab.step();
            lab.back();
            if lab.readout.get_untracked().step == at.step {
                assert_eq!(lab.readout.get_untracked(), at, "{name}");
                assert_eq!(lab.topology.get_untracked(), topology, "{name}");
            }
            assert_eq!(lab.error.get_untracked(), None, "{name}");
        }
    }

    #[test]
    fn speed_nudges_stay_within_the_offered_speeds() {
        let (_owner, lab) = lab();
        lab.nudge_speed(true);
        assert_eq!(lab.speed.get_untracked(), 20.0);
        lab.nudge_speed(true);
        assert_eq!(lab.speed.get_untracked(), 20.0);
        for _ in 0..10 {
            lab.nudge_speed(false);
        }
        assert_eq!(lab.speed.get_untracked(), SPEEDS[0]);
    }

    #[test]
    fn a_lineage_opens_pauses_refreshes_and_closes_on_load() {
        let (_owner, lab) = lab();
        lab.load("crash-after-commit");
        for _ in 0..3 {
            lab.step();
        }
        lab.toggle_play();
        lab.open_lineage(MsgId::new(0));
        assert!(!lab.playing.get_untracked());
        let upto = |lab: &Lab| {
            lab.lineage
                .get_untracked()
                .expect("open")
                .expect("built")
                .upto_step
        };
        assert_eq!(upto(&lab), 3);
        lab.step();
        lab.refresh_lineage();
        assert_eq!(upto(&lab), 4);
        lab.load("burst");
        assert_eq!(lab.lineage.get_untracked(), None);
    }

    #[test]
    fn reset_pauses_and_clears_the_run() {
        let (_owner, lab) = lab();
        lab.toggle_play();
        lab.crash();
        lab.reset();
        assert!(!lab.playing.get_untracked());
        let r = lab.readout.get_untracked();
        assert_eq!((r.crashes, r.consumers_up, r.published), (0, 20, 0));
        assert!(lab.narration.get_untracked().events.is_empty());
    }

    #[test]
    fn seeking_pauses_reaches_the_time_and_keeps_the_crash() {
        let (_owner, lab) = lab();
        lab.toggle_play();
        lab.seek(20.0);
        assert!(!lab.playing.get_untracked());
        assert_eq!(
            lab.seeking.get_untracked(),
            None,
            "natively a seek ends at once"
        );
        assert_eq!(lab.readout.get_untracked().time_s, 20.0);
        lab.crash();
        lab.seek(40.0);
        let first = lab.readout.get_untracked();
        assert_eq!(first.crashes, 1);
        lab.seek(5.0);
        assert_eq!(lab.readout.get_untracked().crashes, 0);
        lab.seek(40.0);
        assert_eq!(lab.readout.get_untracked(), first);
        // Out of range and nonsense are clamped.
        lab.seek(1e9);
        assert!(lab.readout.get_untracked().finished);
        let ended = lab.readout.get_untracked().time_s;
        assert_eq!(
            lab.timeline_end_s.get_untracked(),
            (ended * 10.0).ceil() / 10.0
        );
        lab.seek(f64::NAN);
        assert_eq!(lab.readout.get_untracked().time_s, 0.0);
        assert_eq!(lab.error.get_untracked(), None);
    }

    #[test]
    fn a_new_seed_restarts_the_run_and_a_load_shows_the_scenarios_seed() {
        let (_owner, lab) = lab();
        let original = lab.seed.get_untracked();
        lab.load("mm1");
        let mm1 = lab.seed.get_untracked();
        lab.seek(30.0);
        let before = lab.readout.get_untracked();
        lab.set_seed(mm1.wrapping_add(1));
        assert_eq!(lab.seed.get_untracked(), mm1.wrapping_add(1));
        assert_eq!(lab.readout.get_untracked().step, 0, "a new run");
        lab.seek(30.0);
        assert_ne!(
            lab.readout.get_untracked(),
            before,
            "another seed, another run"
        );
        lab.set_seed(mm1);
        lab.seek(30.0);
        assert_eq!(
            lab.readout.get_untracked(),
            before,
            "the same seed, the same run"
        );
        lab.load("burst");
        assert_eq!(lab.seed.get_untracked(), original);
    }

    #[test]
    fn a_setting_applies_shows_refusals_as_text_and_step_back_undoes_it() {
        let (_owner, lab) = lab();
        lab.load("mm1");
        lab.step();
        let key = lab.prediction_key.get_untracked();
        assert_eq!(lab.settings.get_untracked().queues[0].consumers, 1);
        let scale = |count| Command::SetConsumerCount {
            queue: "jobs".into(),
            count,
        };
        assert_eq!(lab.try_command(scale(2)), Ok(()));
        assert_eq!(lab.settings.get_untracked().queues[0].consumers, 2);
        assert_ne!(lab.prediction_key.get_untracked(), key, "the chart redraws");
        let refused = lab.try_command(scale(1_000)).expect_err("over the limit");
        assert!(
            refused.starts_with("The simulation refused it: "),
            "{refused}"
        );
        assert_eq!(
            lab.error.get_untracked(),
            None,
            "shown by the field, not the page"
        );
        assert_eq!(lab.settings.get_untracked().queues[0].consumers, 2);
        lab.back();
        assert_eq!(lab.readout.get_untracked().step, 1);
        assert_eq!(lab.settings.get_untracked().queues[0].consumers, 1);
    }
}
