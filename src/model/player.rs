//! The player: a [`Simulation`] plus what the page needs to play it in real time —
//! advancing by wall-clock time at a chosen speed within a per-frame budget, user commands,
//! narration of recent steps, and plain-data snapshots for the view. It holds no signals,
//! so it is tested natively; the page keeps one in a stored value, outside the reactive
//! graph, and reads snapshots from it.

use brokerlab_core::{
    secs_to_us, us_to_secs, Command, ConsumerId, CrashPoint, EndReason, GroupId, Intervention,
    MemberCrashPoint, MemberId, Micros, Scenario, ScenarioError, Simulation,
};

use brokerlab_core::lessons::{Checkpoint, Lang};

use super::capacity;
use super::chart_info::{self, ChartData, CrashMarker, Rho, Values};
use super::flights::{flight_of, touched, FlightBuffer, Node};
use super::fluid;
use super::invariants::{statuses, Status};
use super::readout::{Percentiles, Readout};
use super::story::{Narration, Story, Told};

mod checkpoint;
mod pace;
mod seek;
pub use pace::{Pace, Preview, PREVIEW_STEPS_MAX};
pub use seek::{SNAPSHOTS_MAX, SNAPSHOT_BYTES_MAX, SNAPSHOT_EVERY_STEPS, SNAPSHOT_ONE_BYTES_MAX};

/// Simulated seconds per wall-clock second the page offers.
pub const SPEEDS: &[f64] = &[0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0];
/// 10×: the 180 s burst plays in 18 s.
pub const SPEED_DEFAULT: f64 = 10.0;
/// A frame never advances by more wall time than this (after a stall or a hidden tab the
/// run resumes where it was rather than jumping ahead).
pub const FRAME_WALL_MS_MAX: f64 = 100.0;
/// Most steps one frame may take, so a frame stays short even at high speed; when the
/// budget runs out, simulated time simply falls behind the wall clock.
pub const FRAME_STEPS_MAX: u64 = 40_000;
/// How often (in steps) a frame asks whether it may take more.
pub const BUDGET_CHECK_EVERY: u64 = 256;
/// A crashed consumer comes back after this long.
pub const RESTART_AFTER_S: f64 = 5.0;
/// The narration line changes at most this often, so a person can read it.
pub const NARRATION_EVERY_MS: f64 = 700.0;
/// Where the timeline and the chart end: when the run ends, if its preview got there;
/// else the fluid model's horizon.
fn horizon_of(scenario: &Scenario, pace: Pace) -> f64 {
    pace.end_s
        .unwrap_or_else(|| fluid::horizon_s(scenario))
        .max(1.0)
}

/// What the crash button crashes: a queue consumer, or a member of a log consumer group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CrashTarget {
    Consumer(ConsumerId),
    Member { group: GroupId, member: MemberId },
}

/// What one frame did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Advance {
    pub steps: u64,
    /// The frame's step budget ran out before simulated time reached its target.
    pub behind: bool,
    /// Nothing is left to happen.
    pub finished: bool,
    /// The frame stopped at a step where a property first broke (pause-on-breach is on).
    pub breached: bool,
    /// The frame stopped at the checkpoint set with [`Player::set_stop_at`].
    pub checkpoint: bool,
}

pub struct Player {
    /// The scenario as loaded: a reset starts from it again.
    base: Scenario,
    sim: Simulation,
    /// Bumped at each reset, so the view knows a new run began.
    run: u32,
    /// Bumped whenever the prediction changes, so the chart redraws at once.
    prediction_version: u64,
    /// How long the run lasts and the speed it opens at (from a preview of the run, taken
    /// again after each user command).
    pace: Pace,
    /// Where the loaded scenario's run ends, without user commands (the load's preview).
    loaded_end_s: Option<f64>,
    /// Where the timeline and the chart end: the run's end when the preview found it,
    /// else the fluid model's horizon.
    horizon_s: f64,
    /// What has been told about the run so far (a snapshot keeps it with the simulation).
    story: Story,
    /// What the narration shows as last refreshed (told in the page's language when
    /// shown), and wall time since then.
    told: Told,
    narration_age_ms: f64,
    /// Bumped whenever the narration (and with it the highlighted nodes and percentiles)
    /// is refreshed or cleared: the views re-read those only then, not on every frame.
    narration_version: u64,
    /// A notable event arrived since the last refresh: show it at once.
    events_changed: bool,
    /// Playing stops at the step where a property first breaks.
    pause_on_breach: bool,
    /// A property broke for the first time in the latest step.
    breached_now: bool,
    /// Playing stops at this checkpoint (a lesson's step), and the clock not past its
    /// instant.
    stop_at: Option<Checkpoint>,
    /// Playing stopped at that checkpoint.
    checkpoint_hit: bool,
    /// Message tokens of the steps taken since the view last drained them.
    flights: FlightBuffer,
    /// The clock last moved by a jump (a seek, a replay to a step), not by playing or
    /// stepping: nothing travelled, so a run following this one shows no tokens either.
    jumped: bool,
    /// The components the narrated step involved.
    narrated_nodes: Vec<Node>,
    /// Snapshots of the run that seeking and stepping back start from.
    snapshots: seek::Snapshots,
    /// Where a seek in progress is going.
    seek_target: Option<Micros>,
    /// The furthest simulated time this run has reached.
    furthest_us: Micros,
    /// Compare mode's hold: the clock goes on to this instant even once the run has
    /// nothing left to do, so the side that ends first waits, quiet, for the other's end
    /// (0: no hold).
    held_open_until_us: Micros,
    /// Latency percentiles, refreshed with the narration (they sort every settled message).
    percentiles: Percentiles,
}

impl Player {
    pub fn new(scenario: Scenario) -> Result<Self, ScenarioError> {
        let pace = Pace::of(&scenario);
        Self::with_pace(scenario, pace)
    }

    /// A player for `scenario` whose preview, `pace`, was taken already (`Pace::of`, or a
    /// `Preview` taken in slices: the page takes its example's over two tasks at load).
    pub fn with_pace(scenario: Scenario, pace: Pace) -> Result<Self, ScenarioError> {
        let sim = Simulation::new(scenario.clone())?;
        let horizon_s = horizon_of(&scenario, pace);
        let mut player = Self {
            base: scenario,
            sim,
            run: 0,
            prediction_version: 0,
            pace,
            loaded_end_s: pace.end_s,
            horizon_s,
            story: Story::default(),
            told: Told::default(),
            narration_age_ms: 0.0,
            narration_version: 0,
            events_changed: false,
            pause_on_breach: false,
            breached_now: false,
            stop_at: None,
            checkpoint_hit: false,
            flights: FlightBuffer::default(),
            jumped: false,
            narrated_nodes: Vec::new(),
            snapshots: seek::Snapshots::default(),
            seek_target: None,
            furthest_us: 0,
            held_open_until_us: 0,
            percentiles: Percentiles::default(),
        };
        player.restart_prediction();
        Ok(player)
    }

    /// The prediction for a run at its start: the scenario's arrivals and capacity.
    fn restart_prediction(&mut self) {
        self.story.start_prediction(&self.sim);
        self.prediction_version = self.prediction_version.wrapping_add(1);
    }

    /// Changes whenever the prediction line changes (a setting changed, step back, reset).
    pub fn prediction_version(&self) -> u64 {
        self.prediction_version
    }

    /// The fluid backlog the prediction expects at `t_s`.
    pub fn predicted_at(&self, t_s: f64) -> f64 {
        fluid::curve_at(
            &fluid::fluid_curve(&self.story.lambda, &self.story.mu, t_s),
            t_s,
        )
    }

    pub fn sim(&self) -> &Simulation {
        &self.sim
    }

    pub fn scenario(&self) -> &Scenario {
        &self.base
    }

    pub fn run(&self) -> u32 {
        self.run
    }

    /// The scenario as loaded, without the user's commands.
    pub fn base(&self) -> &Scenario {
        &self.base
    }

    /// Replays `commands` (the user's, each after its step), stops at `step`, and lets the
    /// clock run on to `at_us` if no event falls before it (a run paused while playing):
    /// how a share link puts the run back where it was. The scenario refuses invalid
    /// commands.
    pub fn replay(
        &mut self,
        commands: Vec<Intervention>,
        step: u64,
        at_us: Micros,
    ) -> Result<(), ScenarioError> {
        let mut recorded = self.base.clone();
        recorded.interventions = commands;
        self.sim = Simulation::new(recorded)?;
        self.forget_story();
        self.snapshots.clear();
        self.furthest_us = 0;
        // The load's preview knew the run without these commands.
        self.pace.end_s = self.loaded_end_s;
        self.find_end_again();
        self.go_to_step(step)?;
        let quiet_until = self.sim.next_step_time().is_none_or(|next| next > at_us);
        if at_us > self.sim.now_us() && quiet_until && self.sim.steps() == step {
            self.settle_at(at_us);
            self.note_time();
        }
        Ok(())
    }

    /// Numbers this player's run (a newly loaded scenario continues the page's count, so
    /// the chart knows to start over).
    pub fn set_run(&mut self, run: u32) {
        self.run = run;
    }

    /// Nothing is left to happen (the run ends at its last step, even before its end time:
    /// the idle rest is not played), or its end time is reached; or the work budget
    /// stopped the run (its clock stays at its last step, short of the end time).
    pub fn is_finished(&self) -> bool {
        if self.before_checkpoint_instant() || self.held_open() {
            return false;
        }
        let end_reached = self
            .sim
            .scenario()
            .end_s
            .is_none_or(|end| self.sim.now_us() >= secs_to_us(end));
        self.budget_stop().is_some() || self.drained() || (self.sim.is_finished() && end_reached)
    }

    /// Keeps the run going, in quiet time, up to `until_us` once it has nothing left to do
    /// (compare mode: the side that ends first waits for the other; 0 lifts the hold).
    pub fn hold_open_until(&mut self, until_us: Micros) {
        self.held_open_until_us = until_us;
    }

    /// Where the preview found the run's end (a story short enough for one), with the
    /// commands given so far; `None` for a run too long to preview.
    pub fn found_end_us(&self) -> Option<Micros> {
        self.pace.end_s.map(secs_to_us)
    }

    /// The hold keeps the clock going (and the work budget allows it).
    fn held_open(&self) -> bool {
        self.held_open_until_us > self.sim.now_us() && self.budget_stop().is_none()
    }

    /// No event is left: nothing more can happen unless the user gives a command
    /// (whether work is left or not).
    fn drained(&self) -> bool {
        matches!(
            self.sim.end_reason(),
            Some(EndReason::Drained | EndReason::Stalled)
        )
    }

    /// The speed the run opens at: slow for a story of a few messages, so each event can
    /// be seen; the default for a big run.
    pub fn opening_speed(&self) -> f64 {
        self.pace.speed
    }

    /// Brings the clock to `target` once no step is due before it: the same ending for
    /// playing and seeking. A drained run stays at its last step (with no end time it
    /// takes its final sample there), unless a lesson's checkpoint waits at `target`; a
    /// run whose end time is reached closes there.
    fn settle_at(&mut self, target: Micros) {
        let end_us = self.sim.scenario().end_s.map(secs_to_us);
        if self.stop_deadline() < Micros::MAX {
            // A lesson's checkpoint at an instant is reached even in a quiet run: the
            // clock goes on towards it (never past it: `target` is capped there).
            self.sim.run_until(target);
        } else if self.drained() {
            // A held run's clock goes on, quiet, as far as its hold.
            let held = target.min(self.held_open_until_us);
            if held > self.sim.now_us() && self.budget_stop().is_none() {
                self.sim.run_until(held);
            }
            if end_us.is_none() {
                self.sim.run();
            }
        } else if self.sim.is_finished() && end_us.is_none_or(|end| target >= end) {
            self.sim.run();
        } else {
            self.sim.run_until(target);
        }
    }

    /// Advances the run by `wall_ms` of real time at `speed` simulated seconds per second,
    /// taking at most [`FRAME_STEPS_MAX`] steps.
    pub fn advance(&mut self, wall_ms: f64, speed: f64) -> Advance {
        self.advance_within(wall_ms, speed, |_| true)
    }

    /// Like [`Player::advance`], and every [`BUDGET_CHECK_EVERY`] steps asks `more(steps)`
    /// whether the frame may go on (the page passes a wall-clock deadline).
    pub fn advance_within(
        &mut self,
        wall_ms: f64,
        speed: f64,
        mut more: impl FnMut(u64) -> bool,
    ) -> Advance {
        let wall_ms = if wall_ms.is_finite() {
            wall_ms.clamp(0.0, FRAME_WALL_MS_MAX)
        } else {
            0.0
        };
        let speed = if speed.is_finite() {
            speed.max(0.0)
        } else {
            0.0
        };
        let target = self
            .sim
            .now_us()
            .saturating_add(secs_to_us(wall_ms / 1_000.0 * speed))
            .min(self.stop_deadline());
        self.seek_target = None;
        self.jumped = false;
        let mut steps = 0;
        self.breached_now = false;
        while steps < FRAME_STEPS_MAX && self.sim.next_step_time().is_some_and(|at| at <= target) {
            if steps > 0 && steps % BUDGET_CHECK_EVERY == 0 && !more(steps) {
                break;
            }
            if !self.take_step() {
                break;
            }
            steps += 1;
            let breached = self.pause_on_breach && self.breached_now;
            let checkpoint = self.checkpoint_met();
            if breached || checkpoint {
                self.checkpoint_hit |= checkpoint;
                // Stop at that very step: the clock stays at its time.
                self.refresh_narration();
                return Advance {
                    steps,
                    behind: false,
                    finished: false,
                    breached,
                    checkpoint,
                };
            }
        }
        let behind = self.sim.next_step_time().is_some_and(|at| at <= target);
        if !behind {
            self.settle_at(target);
        }
        self.note_time();
        self.narration_age_ms += wall_ms;
        let finished = self.is_finished();
        let checkpoint = !behind && self.checkpoint_met_at_rest();
        self.checkpoint_hit |= checkpoint;
        // Where playing stops (the end, a lesson's checkpoint) the narration tells the
        // step it stopped at, not one from up to a second of play before.
        let first = self.told.is_empty() && !self.story.latest.is_empty();
        let stops = finished || checkpoint;
        if first || stops || self.events_changed || self.narration_age_ms >= NARRATION_EVERY_MS {
            self.refresh_narration();
        }
        Advance {
            steps,
            behind,
            finished,
            breached: false,
            checkpoint,
        }
    }

    /// One step; records its facts for the narration. False when nothing was left.
    fn take_step(&mut self) -> bool {
        let Some(step) = self.sim.step() else {
            return false;
        };
        self.story.set_latest(step.time_us, step.facts);
        self.record();
        self.note_time();
        self.keep_snapshot();
        true
    }

    /// Tells the story the step just taken, and keeps its message movements for the
    /// token overlay.
    fn record(&mut self) {
        let news = self.story.record(&self.sim);
        self.breached_now |= news.breached;
        self.events_changed |= news.notable;
        if news.prediction_changed {
            self.prediction_version = self.prediction_version.wrapping_add(1);
        }
        for fact in &self.story.latest {
            if let Some(flight) = flight_of(&self.sim, fact) {
                self.flights.push(flight);
            }
        }
    }

    /// Hands the flights collected since the last call to `into` (whose old contents are
    /// dropped), keeping both buffers' memory.
    pub fn drain_flights(&mut self, into: &mut FlightBuffer) {
        into.clear();
        std::mem::swap(&mut self.flights, into);
    }

    /// Whether the clock last moved by a jump (a seek, a replay to a step) rather than by
    /// playing or stepping.
    pub fn jumped(&self) -> bool {
        self.jumped
    }

    /// Forgets the tokens of the steps taken since the view last drained them (a run
    /// that followed a jump made none to show).
    pub fn drop_flights(&mut self) {
        self.flights.clear();
    }

    /// The components the narrated step involved (their cards are highlighted).
    pub fn narrated_nodes(&self) -> &[Node] {
        &self.narrated_nodes
    }

    /// Takes one step (one event) and tells it at once. False when nothing was left.
    pub fn step_once(&mut self) -> bool {
        self.seek_target = None;
        self.jumped = false;
        let stepped = self.take_step();
        if stepped {
            self.refresh_narration();
        }
        stepped
    }

    /// Goes back one step by re-simulating the recorded run (the scenario plus every command
    /// given so far) up to the step before the current one. False at the start.
    pub fn step_back(&mut self) -> Result<bool, ScenarioError> {
        let Some(target) = self.sim.steps().checked_sub(1) else {
            return Ok(false);
        };
        self.go_to_step(target)?;
        Ok(true)
    }

    /// Clears what was told about the run (latest step, events, log).
    fn forget_story(&mut self) {
        self.story = Story::default();
        self.told = Told::default();
        self.narration_version = self.narration_version.wrapping_add(1);
        self.narration_age_ms = 0.0;
        self.events_changed = false;
        self.breached_now = false;
        self.flights.clear();
        self.narrated_nodes.clear();
        self.percentiles = Percentiles::default();
        self.restart_prediction();
    }

    /// What the crash button would crash: the first queue consumer that is up, else the
    /// first log group member that is up (members are consumers too).
    pub fn crash_target(&self) -> Option<CrashTarget> {
        let sim = &self.sim;
        let consumer = sim
            .consumer_ids()
            .find(|&c| sim.consumer(c).is_some_and(|v| v.up))
            .map(CrashTarget::Consumer);
        consumer.or_else(|| {
            sim.group_ids().find_map(|group| {
                (0..sim.group_members(group).1)
                    .find(|&m| sim.group_member(group, m).is_some_and(|v| v.up))
                    .map(|member| CrashTarget::Member { group, member })
            })
        })
    }

    /// Whether, with nothing up to crash, nothing is down either: every consumer was
    /// stopped by scaling in (or there is none) and no group member is down. The crash
    /// button then says no consumer is running, not that all are down.
    pub fn all_stopped(&self) -> bool {
        let sim = &self.sim;
        let member_down = sim.group_ids().any(|g| {
            (0..sim.group_members(g).1).any(|m| sim.group_member(g, m).is_some_and(|v| !v.up))
        });
        self.crash_target().is_none()
            && !member_down
            && sim
                .consumer_ids()
                .all(|c| sim.consumer(c).is_none_or(|v| v.stopped))
    }

    /// The name of what the crash button would crash, if anything is up.
    pub fn crash_target_name(&self) -> Option<String> {
        match self.crash_target()? {
            CrashTarget::Consumer(c) => self.sim.consumer(c).map(|v| v.name),
            CrashTarget::Member { group, member } => Some(self.sim.member_name(group, member)),
        }
    }

    /// Crashes the crash button's target now, with a restart [`RESTART_AFTER_S`] later.
    /// Returns what crashed (nothing if everything is down).
    pub fn crash_next(&mut self) -> Result<Option<CrashTarget>, ScenarioError> {
        let Some(target) = self.crash_target() else {
            return Ok(None);
        };
        let restart_after_s = Some(RESTART_AFTER_S);
        self.command(match target {
            CrashTarget::Consumer(consumer) => Command::CrashConsumer {
                consumer,
                point: CrashPoint::Now,
                restart_after_s,
            },
            CrashTarget::Member { group, member } => Command::CrashMember {
                group,
                member,
                point: MemberCrashPoint::Now,
                restart_after_s,
            },
        })?;
        Ok(Some(target))
    }

    /// Gives the simulation a user command now (recorded, so step back replays it) and
    /// tells the step it made.
    pub fn command(&mut self, fault: Command) -> Result<(), ScenarioError> {
        self.seek_target = None;
        let step = self.sim.command(fault)?;
        // The run's future changed: snapshots of the old one would replay without it.
        self.snapshots.clear();
        self.story.set_latest(step.time_us, step.facts);
        self.record();
        self.refresh_narration();
        self.find_end_again();
        Ok(())
    }

    /// A command changed the run's future, and with it where the run ends: a crash
    /// brings a redelivery after the story's old end, a setting changed at 0 s may end
    /// it sooner or later. A short story's end (found by the preview at load) is found
    /// again by a preview of the run with the commands given so far, so the timeline,
    /// the chart and the End key reach the run that now happens. The speed stays as the
    /// user set it. A run too long for a preview keeps the fluid model's horizon, which
    /// the scrubber stretches as the run goes further.
    fn find_end_again(&mut self) {
        if self.pace.end_s.is_none() {
            return;
        }
        self.pace.end_s = Pace::of(self.sim.scenario()).end_s;
        self.horizon_s = horizon_of(&self.base, self.pace);
    }

    /// Starts the run again from the loaded scenario (user commands are forgotten).
    pub fn reset(&mut self) -> Result<(), ScenarioError> {
        self.sim = Simulation::new(self.base.clone())?;
        self.run = self.run.wrapping_add(1);
        self.pace.end_s = self.loaded_end_s;
        self.horizon_s = horizon_of(&self.base, self.pace);
        self.forget_story();
        self.snapshots.clear();
        self.seek_target = None;
        self.furthest_us = 0;
        Ok(())
    }

    /// The seed of the loaded scenario.
    pub fn seed(&self) -> u64 {
        self.base.seed
    }

    /// Starts the run again with another seed (user commands are forgotten). A seed the
    /// scenario refuses leaves the current run as it was.
    pub fn set_seed(&mut self, seed: u64) -> Result<(), ScenarioError> {
        let previous = std::mem::replace(&mut self.base.seed, seed);
        let result = self.reset();
        if result.is_err() {
            self.base.seed = previous;
        } else {
            // Another seed is another run: it may end elsewhere.
            self.pace = Pace::of(&self.base);
            self.loaded_end_s = self.pace.end_s;
            self.horizon_s = horizon_of(&self.base, self.pace);
        }
        result
    }

    /// Latency percentiles as of the latest narration refresh.
    pub fn percentiles(&self) -> &Percentiles {
        &self.percentiles
    }

    /// Brings the narration up to the latest step now (when the run pauses, say).
    pub fn refresh_narration(&mut self) {
        self.narration_age_ms = 0.0;
        self.events_changed = false;
        self.narrated_nodes.clear();
        for fact in &self.story.latest {
            touched(&self.sim, fact, &mut self.narrated_nodes);
        }
        self.told = self.story.told_with_key(self.awaited());
        self.narration_version = self.narration_version.wrapping_add(1);
        self.percentiles = Percentiles::of(&self.sim);
    }

    /// Playing stops at the step where a property first breaks (when `on`).
    pub fn set_pause_on_breach(&mut self, on: bool) {
        self.pause_on_breach = on;
    }

    /// The live invariants on the current state, with where each first broke.
    pub fn invariants(&self) -> Vec<Status> {
        statuses(&self.sim, &self.story.watch)
    }

    /// Changes whenever [`Player::narration`], [`Player::narrated_nodes`] or
    /// [`Player::percentiles`] may have changed.
    pub fn narration_version(&self) -> u64 {
        self.narration_version
    }

    /// The narration as last refreshed, in `lang` (told now: a language switch shows at
    /// once what was already narrated in the other language).
    pub fn narration(&self, lang: Lang) -> Narration {
        self.told.narrate(&self.sim, lang)
    }

    pub fn readout(&self) -> Readout {
        let sim = &self.sim;
        let c = sim.counters();
        // Members of consumer groups are consumers too: a log-only run has no other.
        let (members_up, members) = sim
            .group_ids()
            .map(|g| sim.group_members(g))
            .fold((0, 0), |(u, n), (gu, gn)| (u + gu, n + gn));
        let consumers_total = sim.consumer_count() + members;
        let consumers_up = sim
            .consumer_ids()
            .filter(|&i| sim.consumer(i).is_some_and(|v| v.up))
            .count() as u32
            + members_up;
        Readout {
            step: sim.steps(),
            time_s: us_to_secs(sim.now_us()),
            dead_lettered: c.dead_lettered,
            retries_scheduled: c.retries_scheduled,
            duplicates_skipped: c.duplicates_skipped,
            refused: c.refused,
            requests_refused: c.requests_refused,
            dropped: c.dropped,
            expired: c.expired,
            redriven: c.redriven,
            dead_letters_lost: c.dead_letters_lost,
            broker_crashes: c.broker_crashes,
            // Stored in a queue, or appended to a log: both are published.
            published: c.published + c.appended,
            delivered: c.delivered,
            redelivered: c.redelivered,
            acked: c.acked,
            done_without_ack: c.done_without_ack,
            retry_waiting: sim.retry_waiting(),
            lost: c.lost,
            lost_before_stored: c.lost_before_stored,
            duplicate_effects: c.duplicate_effects,
            leases_expired: c.leases_expired,
            backlog: chart_info::backlog_now(sim),
            in_flight: sim.in_flight(),
            oldest_age_s: us_to_secs(sim.oldest_age_us()),
            // Every crash the chart marks: consumers, group members, producers (or their
            // relays) and the broker.
            crashes: c.crashes + c.member_crashes + c.producer_crashes + c.broker_crashes,
            restarts: c.restarts,
            consumers_up,
            consumers_total,
            records_processed: c.records_processed,
            offsets_committed: c.offsets_committed,
            records_skipped: c.records_skipped,
            taken_for_duplicates: c.taken_for_duplicates,
            never_published: c.never_published,
            queue_consumers: sim.consumer_count() > 0,
            log_groups: sim.group_ids().next().is_some(),
            finished: self.is_finished(),
            budget_stop: self.budget_stop(),
            stalled: self.sim.end_reason() == Some(EndReason::Stalled),
        }
    }

    /// Why the run stopped, in plain words, if the work budget stopped it.
    pub fn budget_stop(&self) -> Option<&'static str> {
        self.sim
            .end_reason()
            .filter(|r| r.is_budget())
            .map(|r| r.describe())
    }

    /// Samples taken so far: the chart only changes when this (or the run) changes.
    pub fn sample_count(&self) -> usize {
        self.sim.series().len()
    }

    pub fn chart_data(&self) -> ChartData {
        let now_s = us_to_secs(self.sim.now_us());
        let series = self.sim.series();
        let line = |value: fn(&brokerlab_core::Sample) -> f64| -> Vec<(f64, f64)> {
            series.iter().map(|s| (s.t_s, value(s))).collect()
        };
        ChartData {
            backlog: line(|s| chart_info::sample_backlog(s) as f64),
            variant_backlog: Vec::new(),
            in_flight: line(|s| s.in_flight as f64),
            dead_lettered: line(|s| s.dead_lettered as f64),
            oldest_age_s: line(|s| s.oldest_age_s),
            goodput: self.flow_line(|f| f.goodput_per_s),
            throughput: self.flow_line(|f| f.throughput_per_s),
            crashes: self.story.crashes.clone(),
            prediction: self.prediction_curve(),
            x_max_s: self.horizon_s.max(now_s),
            now_s,
            concealed: Default::default(),
        }
    }

    /// A flow rate per sample, for scenarios whose consumers call a dependency (elsewhere
    /// goodput is simply the consumers' rate, already seen in the backlog's slope).
    fn flow_line(&self, value: fn(&brokerlab_core::FlowSample) -> f64) -> Vec<(f64, f64)> {
        if self.sim.dependency_count() == 0 {
            return Vec::new();
        }
        let series = self.sim.series();
        series
            .iter()
            .zip(self.sim.flow_series())
            .map(|(s, f)| (s.t_s, value(f)))
            .collect()
    }

    /// Goodput at the last sample, for scenarios with a dependency: what the chart's
    /// goodput line ends at.
    pub fn goodput_now(&self) -> Option<f64> {
        self.flow_line(|f| f.goodput_per_s).last().map(|&(_, g)| g)
    }

    /// The crashes the chart marks, in time order.
    pub fn crash_markers(&self) -> &[CrashMarker] {
        &self.story.crashes
    }

    /// The chart's values now (live, not the last sample).
    pub fn values_now(&self) -> Values {
        chart_info::live_values(&self.sim, &self.prediction_curve())
    }

    /// The chart's values nearest to time `t_s` (a sample, or now).
    pub fn values_at(&self, t_s: f64) -> Values {
        let curve = self.prediction_curve();
        let now = chart_info::live_values(&self.sim, &curve);
        chart_info::values_at(self.sim.series(), &curve, now, t_s)
    }

    /// The fluid prediction up to the chart's end (or now, if later).
    fn prediction_curve(&self) -> Vec<(f64, f64)> {
        let now_s = us_to_secs(self.sim.now_us());
        fluid::fluid_curve(
            &self.story.lambda,
            &self.story.mu,
            self.horizon_s.max(now_s),
        )
    }

    /// The load factor λ/μ at the current time, with the settings in force now (μ as the
    /// prediction has it, so the line and the dashed curve agree), and any dependency in
    /// trouble now.
    pub fn rho_now(&self) -> Rho {
        let t_s = us_to_secs(self.sim.now_us());
        Rho {
            lambda: fluid::value_at(&self.story.lambda, t_s),
            mu: fluid::value_at(&self.story.mu, t_s),
            has_consumers: !self.base.consumers.is_empty() || !self.base.groups.is_empty(),
            limit: self.story.limit_at(t_s),
            strain: capacity::strain(&self.sim),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::capacity::Limit;
    use crate::model::fluid::Load;
    use crate::model::settings::{forecast_with, Settings};
    use crate::model::story::NARRATION_SENTENCES_MAX;
    use brokerlab_core::{examples, MsgId, ProducerId};
    use brokerlab_core::{ConsumerId, GroupId};

    #[test]
    fn the_counters_on_the_page_add_up_to_what_was_published() {
        // The README's identity, read from the counters the page shows (queues only: a
        // log's records are not copies). broker-crash ends with one copy done without an
        // ack, the dependency examples hold copies waiting to retry.
        let mut seen = (0, 0);
        for name in examples::names() {
            let scenario = examples::load(name).expect("built in");
            if !scenario.groups.is_empty() {
                continue;
            }
            // An aggregated example has no per-message run to read.
            let Ok(mut p) = Player::new(scenario) else {
                continue;
            };
            for _ in 0..40 {
                for _ in 0..500 {
                    if !p.step_once() {
                        break;
                    }
                }
                let r = p.readout();
                let accounted = r.acked
                    + r.done_without_ack
                    + r.lost
                    + (r.dead_lettered - r.redriven - r.dead_letters_lost)
                    + r.expired
                    + r.dropped
                    + r.backlog
                    + r.in_flight
                    + r.retry_waiting;
                assert_eq!(r.published, accounted, "{name} at step {}: {r:?}", r.step);
                seen.0 += u64::from(r.done_without_ack > 0);
                seen.1 += u64::from(r.retry_waiting > 0);
            }
        }
        assert!(
            seen.0 > 0 && seen.1 > 0,
            "both new counters are reached: {seen:?}"
        );
    }

    #[test]
    fn a_log_only_run_counts_records_processed_not_deliveries() {
        // log-consumer-groups has groups and no queue consumer: its work shows as
        // records processed and offsets committed; mm1 is the other way round.
        let run = |name: &str| {
            let mut p = Player::new(examples::load(name).expect("built in")).expect("valid");
            for _ in 0..5_000 {
                if !p.step_once() {
                    break;
                }
            }
            p.readout()
        };
        let log = run("log-consumer-groups");
        assert!(log.log_groups && !log.queue_consumers, "{log:?}");
        assert!(
            log.records_processed > 0 && log.offsets_committed > 0,
            "{log:?}"
        );
        assert_eq!((log.delivered, log.acked), (0, 0));
        // Retention deletes records a slow group never read: they are lost for good,
        // as the invariant says, not "Lost 0".
        let retention = run("log-retention");
        assert!(retention.records_skipped > 0, "{retention:?}");
        assert_eq!(retention.lost_for_good(), retention.records_skipped);
        let queue = run("mm1");
        assert!(queue.queue_consumers && !queue.log_groups, "{queue:?}");
        assert_eq!(queue.records_processed, 0);
        assert!(queue.delivered > 0);
    }

    #[test]
    fn pause_on_breach_stops_playing_at_the_first_duplicate() {
        let mut p = burst();
        p.command(Command::CrashConsumer {
            consumer: ConsumerId::new(0),
            point: CrashPoint::AfterCommitBeforeAck,
            restart_after_s: Some(1.0),
        })
        .expect("valid");
        p.set_pause_on_breach(true);
        let mut stopped = None;
        for _ in 0..20_000 {
            let a = p.advance(16.0, 20.0);
            if a.breached {
                stopped = Some(a);
                break;
            }
            assert!(!a.finished, "the run ended with no breach");
        }
        assert!(stopped.is_some());
        assert!(!p.is_finished(), "stopped mid-run");
        assert_eq!(p.readout().duplicate_effects, 1, "at the first duplicate");
        let once = &p.invariants()[1];
        assert!(!once.holds);
        assert!(once.msg.is_some());
        // Playing on does not stop again for the same property.
        let a = p.advance(16.0, 20.0);
        assert!(!a.breached);
    }

    #[test]
    fn a_run_stopped_by_the_work_budget_says_so_and_stops_playing() {
        // The default budget is ten million steps; a small one shows the same path.
        let mut p = burst();
        let budget = brokerlab_core::Budget {
            steps_max: 2_000,
            ..brokerlab_core::Budget::default()
        };
        p.sim = Simulation::with_budget(p.base.clone(), budget).expect("valid");
        assert_eq!(p.readout().budget_stop, None);
        play(&mut p, 2.0, 20.0);
        assert!(p.is_finished(), "a budget stop ends the run");
        let r = p.readout();
        assert!(r.finished);
        assert_eq!(
            r.budget_stop,
            Some("stopped at the work budget: too many steps")
        );
        assert_eq!(r.step, 2_000);
        // Playing on changes nothing: the page stays on the last step, responsive.
        play(&mut p, 1.0, 20.0);
        assert_eq!(p.readout().step, 2_000);
        assert!(!p.step_once(), "no step past the budget");
    }

    #[test]
    fn a_log_only_run_counts_its_appends_as_published_and_its_members_as_consumers() {
        let mut p =
            Player::new(examples::load("log-consumer-groups").expect("built in")).expect("valid");
        play(&mut p, 2.0, 1.0);
        let r = p.readout();
        let c = p.sim().counters();
        assert_eq!(p.sim().consumer_count(), 0, "no queue consumers");
        assert!(c.appended > 0);
        assert_eq!(r.published, c.published + c.appended);
        let members: u32 = p
            .sim()
            .group_ids()
            .map(|g| p.sim().group_members(g).1)
            .sum();
        assert!(members > 0);
        assert_eq!(r.consumers_total, members);
        assert!(r.consumers_up > 0 && r.consumers_up <= members);
    }

    fn burst() -> Player {
        Player::new(examples::load("burst").expect("built in")).expect("valid")
    }

    /// Plays `wall_s` seconds of frames of 16 ms.
    fn play(p: &mut Player, wall_s: f64, speed: f64) {
        for _ in 0..(wall_s * 1_000.0 / 16.0).round() as u32 {
            p.advance(16.0, speed);
        }
    }

    #[test]
    fn advancing_moves_simulated_time_by_wall_time_times_speed() {
        let mut p = burst();
        assert_eq!(p.readout().time_s, 0.0);
        let a = p.advance(50.0, 10.0);
        assert!(!a.behind && !a.finished);
        assert!(
            a.steps > 0,
            "half a simulated second of a 3,000/s burst makes steps"
        );
        assert_eq!(p.sim().now_us(), 500_000);
        p.advance(50.0, 0.1);
        assert_eq!(p.sim().now_us(), 505_000);
        p.advance(50.0, 0.0);
        assert_eq!(p.sim().now_us(), 505_000, "speed 0 stands still");
    }

    #[test]
    fn a_long_frame_is_capped_and_bad_input_is_ignored() {
        let mut p = burst();
        p.advance(5_000.0, 1.0);
        assert_eq!(p.sim().now_us(), secs_to_us(FRAME_WALL_MS_MAX / 1_000.0));
        let before = p.sim().now_us();
        p.advance(f64::NAN, 1.0);
        p.advance(-10.0, 1.0);
        p.advance(16.0, f64::INFINITY);
        assert_eq!(p.sim().now_us(), before);
    }

    #[test]
    fn the_step_budget_bounds_a_frame_and_time_falls_behind() {
        let mut p = burst();
        // 100 ms at 1,000× would be 100 simulated seconds: far more than one frame's budget.
        let a = p.advance(100.0, 1_000.0);
        assert_eq!(a.steps, FRAME_STEPS_MAX);
        assert!(a.behind);
        assert!(p.sim().now_us() < secs_to_us(100.0));
        assert!(p.sim().now_us() > 0);
    }

    #[test]
    fn a_frame_stops_when_its_budget_says_so() {
        let mut p = burst();
        let mut asked = Vec::new();
        let a = p.advance_within(100.0, 20.0, |steps| {
            asked.push(steps);
            steps < 3 * BUDGET_CHECK_EVERY
        });
        assert_eq!(a.steps, 3 * BUDGET_CHECK_EVERY);
        assert!(
            a.behind,
            "2 simulated seconds of the burst are far more than 768 steps"
        );
        assert_eq!(
            asked,
            [
                BUDGET_CHECK_EVERY,
                2 * BUDGET_CHECK_EVERY,
                3 * BUDGET_CHECK_EVERY
            ]
        );
        // The next frame goes on from there.
        let before = p.sim().steps();
        p.advance_within(16.0, 1.0, |_| true);
        assert!(p.sim().steps() > before);
    }

    #[test]
    fn the_burst_builds_a_backlog_that_the_readout_shows() {
        let mut p = burst();
        play(&mut p, 2.0, 10.0); // 20 simulated seconds
        let r = p.readout();
        assert!((r.time_s - 20.0).abs() < 0.1, "{r:?}");
        assert!(
            r.published > 55_000 && r.published < 65_000,
            "about 3,000/s: {r:?}"
        );
        // Growing by about 1,000 per second.
        assert!(r.backlog > 15_000 && r.backlog < 25_000, "{r:?}");
        assert!(r.oldest_age_s > 5.0, "{r:?}");
        assert_eq!(
            r.published,
            r.backlog + r.in_flight + r.acked,
            "every message is accounted for"
        );
        assert_eq!((r.consumers_up, r.consumers_total), (20, 20));
        assert_eq!(
            (r.crashes, r.redelivered, r.lost, r.duplicate_effects),
            (0, 0, 0, 0)
        );
        assert!(!r.finished);
        assert_eq!(p.sample_count(), 20);
    }

    #[test]
    fn a_crash_is_counted_then_restarted_then_redelivered() {
        let mut p = burst();
        play(&mut p, 0.5, 10.0);
        assert_eq!(
            p.crash_target(),
            Some(CrashTarget::Consumer(ConsumerId::new(0)))
        );
        assert_eq!(
            p.crash_next(),
            Ok(Some(CrashTarget::Consumer(ConsumerId::new(0))))
        );
        let r = p.readout();
        assert_eq!((r.crashes, r.consumers_up), (1, 19));
        assert_eq!(
            p.crash_target(),
            Some(CrashTarget::Consumer(ConsumerId::new(1))),
            "the next press crashes the next consumer"
        );
        assert!(
            p.narration(Lang::En).sentences[0].contains("crashed"),
            "{:?}",
            p.narration(Lang::En)
        );
        assert_eq!(p.narration(Lang::En).events.len(), 1);
        // The restart comes 5 s later; the message it held comes back when its 30 s lease ends.
        play(&mut p, 0.6, 10.0);
        let r = p.readout();
        assert_eq!((r.restarts, r.consumers_up), (1, 20));
        assert_eq!(r.redelivered, 0);
        play(&mut p, 2.6, 10.0);
        let r = p.readout();
        assert_eq!(r.leases_expired, 1, "{r:?}");
        assert_eq!(r.redelivered, 1, "{r:?}");
        let narration = p.narration(Lang::En);
        let events: Vec<&str> = narration.events.iter().map(|e| e.text.as_str()).collect();
        assert!(events.iter().any(|t| t.contains("lease")), "{events:?}");
        assert!(events.iter().any(|t| t.contains("restarted")), "{events:?}");
    }

    #[test]
    fn the_crash_is_recorded_so_a_replay_reproduces_the_run() {
        let mut p = burst();
        play(&mut p, 0.3, 10.0);
        p.crash_next().expect("a valid command");
        play(&mut p, 0.3, 10.0);
        let recorded = p.sim().scenario().clone();
        assert_eq!(recorded.interventions.len(), 1);
        let mut replay = Simulation::new(recorded).expect("valid");
        replay.run_until(p.sim().now_us());
        assert_eq!(replay.counters(), p.sim().counters());
        assert_eq!(replay.backlog(), p.sim().backlog());
    }

    #[test]
    fn when_every_consumer_is_down_the_crash_button_does_nothing() {
        let mut p = burst();
        for i in 0..20 {
            assert_eq!(
                p.crash_next(),
                Ok(Some(CrashTarget::Consumer(ConsumerId::new(i))))
            );
        }
        assert_eq!(p.crash_target(), None);
        assert!(!p.all_stopped(), "all are down, crashed");
        assert_eq!(p.crash_next(), Ok(None));
        assert_eq!(p.readout().crashes, 20);
        assert_eq!(p.readout().consumers_up, 0);
    }

    /// An event a dual write committed and never published is lost for good: the Lost
    /// tile counts it, and so does a tile of its own under More.
    #[test]
    fn an_event_never_published_counts_as_lost() {
        let mut p =
            Player::new(examples::load("outbox-vs-dual-write").expect("built in")).expect("valid");
        p.seek_to(u64::MAX).expect("seek");
        let r = p.readout();
        assert!(r.never_published > 0);
        assert_eq!(r.never_published, p.sim().counters().never_published);
        assert_eq!(
            r.lost_for_good(),
            r.lost + r.lost_before_stored + r.records_skipped + r.never_published
        );
        assert_eq!(r.taken_for_duplicates, 0);
    }

    /// Scaled in to no consumer, nothing crashed: the crash button has nothing to crash
    /// and says no consumer runs, not that all are down.
    #[test]
    fn consumers_scaled_in_to_none_are_stopped_not_down() {
        let mut p = Player::new(examples::load("mm4").expect("built in")).expect("valid");
        play(&mut p, 0.5, 10.0);
        assert!(!p.all_stopped());
        p.command(Command::SetConsumerCount {
            queue: p.base().queues[0].name.clone(),
            count: 0,
        })
        .expect("valid");
        play(&mut p, 20.0, 10.0);
        assert_eq!(p.crash_target(), None);
        assert_eq!(p.readout().crashes, 0);
        assert!(p.all_stopped());
    }

    #[test]
    fn on_a_log_the_crash_button_crashes_live_group_members() {
        let mut p =
            Player::new(examples::load("log-consumer-groups").expect("built in")).expect("valid");
        play(&mut p, 0.5, 10.0);
        let members = p.readout().consumers_total;
        assert_eq!(members, 3, "two ledger members and one analytics member");
        let first = CrashTarget::Member {
            group: GroupId::new(0),
            member: 0,
        };
        assert_eq!(p.crash_target(), Some(first));
        assert_eq!(
            p.crash_target_name().as_deref(),
            Some(p.sim().member_name(GroupId::new(0), 0).as_str())
        );
        for n in 1..=members {
            assert!(p.crash_next().expect("valid").is_some());
            assert_eq!(p.readout().consumers_up, members - n);
            assert_eq!(p.crash_markers().len() as u32, n);
        }
        assert_eq!(p.crash_target(), None, "every member is down");
        assert_eq!(p.crash_next(), Ok(None));
        // They come back RESTART_AFTER_S later.
        play(&mut p, 0.6, 10.0);
        assert_eq!(p.readout().consumers_up, members);
    }

    #[test]
    fn a_run_ends_its_timeline_where_it_ends() {
        // The burst (no end time, too long to preview) drains at about 180 s: played to
        // its end, the timeline read "180.0 s / 181.0 s". A run with an end time ends its
        // range there (dep-retry-storm read "60.0 s / 61.0 s").
        let mut p = Player::new(examples::load("burst").expect("built in")).expect("valid");
        assert_eq!(p.found_end_us(), None);
        p.seek_to(secs_to_us(400.0)).expect("valid");
        assert!(p.is_finished());
        let now = p.readout().time_s;
        assert_eq!(p.timeline_end_s(), (now * 10.0).ceil() / 10.0);
        p.seek_to(secs_to_us(100.0)).expect("valid");
        assert_eq!(
            p.timeline_end_s(),
            (now * 10.0).ceil() / 10.0,
            "kept once found"
        );
        let storm = Player::new(examples::load("dep-retry-storm").expect("built in"));
        assert_eq!(storm.expect("valid").timeline_end_s(), 60.0);
    }

    #[test]
    fn the_timeline_covers_the_run_that_happens() {
        let p =
            Player::new(examples::load("crash-after-commit").expect("built in")).expect("valid");
        assert_eq!(p.timeline_end_s(), 6.5, "all is over at 6.5 s, not 61 s");
        // A run that drains long before its end time finishes where it drains, and the
        // timeline and the chart end there too.
        let mut p = Player::new(examples::load("transactional-pipeline").expect("built in"))
            .expect("valid");
        let end = p.timeline_end_s();
        assert!(end < 10.0, "drains at 8.5 s, not at its 20 s end: {end}");
        while !p.advance(100.0, 1.0).finished {}
        let t = p.readout().time_s;
        assert!(
            t <= end && t > end - 0.1,
            "finished at {t}, the timeline ends at {end}"
        );
        assert_eq!(p.chart_data().x_max_s, t);
        // Seeking past the end stops where playing stopped.
        let mut sought = Player::new(examples::load("transactional-pipeline").expect("built in"))
            .expect("valid");
        sought.seek_to(secs_to_us(15.0)).expect("valid");
        assert!(sought.is_finished());
        assert_eq!(sought.readout(), p.readout());
    }

    #[test]
    fn a_command_that_moves_the_end_of_a_story_moves_the_timeline_end_with_it() {
        // ack-after-commit is over at 6.5 s; a consumer crashed early redelivers later.
        let load = || Player::new(examples::load("ack-after-commit").expect("built in"));
        let mut p = load().expect("valid");
        let before = p.timeline_end_s();
        for _ in 0..3 {
            assert!(p.step_once());
        }
        assert!(p.crash_next().expect("valid").is_some());
        let mut full = Simulation::new(p.sim().scenario().clone()).expect("valid");
        full.run();
        let end_s = us_to_secs(full.now_us());
        assert!(
            end_s > before,
            "the crash makes the run longer: {end_s} against {before}"
        );
        assert_eq!(p.timeline_end_s(), (end_s * 10.0).ceil() / 10.0);
        // The End key (a seek to the timeline's end) reaches the run's real end.
        p.seek_to(secs_to_us(p.timeline_end_s())).expect("valid");
        assert!(p.is_finished());
        assert_eq!(p.sim().steps(), full.steps());
        // The same run restored from its commands (a share link) ends there too.
        let commands = p.sim().scenario().interventions.clone();
        let mut linked = load().expect("valid");
        linked
            .replay(commands, p.sim().steps(), p.sim().now_us())
            .expect("valid");
        assert_eq!(linked.readout(), p.readout());
        assert_eq!(linked.timeline_end_s(), p.timeline_end_s());
        // A reset forgets the commands, and the story ends where it did.
        p.reset().expect("valid");
        assert_eq!(p.timeline_end_s(), before);
    }

    #[test]
    fn a_crash_whose_lease_runs_out_after_the_end_says_so_on_its_card() {
        // mm1 holds a message under a 3,600 s lease; cut at 90 s, it never comes back.
        let mut scenario = examples::load("mm1").expect("built in");
        scenario.end_s = Some(90.0);
        let mut p = Player::new(scenario).expect("valid");
        while p.readout().time_s < 20.0 || p.readout().in_flight == 0 {
            p.advance(100.0, 10.0);
        }
        p.crash_next().expect("valid");
        let card = p.narration(Lang::En).events[0].text.clone();
        assert!(card.contains("crashed"), "{card}");
        assert!(
            card.contains("The lease on the message it held would run out at t = ")
                && card.contains("after the run ends at 90.0 s"),
            "{card}"
        );
    }

    #[test]
    fn reset_starts_over_and_forgets_commands() {
        let mut p = burst();
        play(&mut p, 0.5, 10.0);
        p.crash_next().expect("valid");
        p.reset().expect("valid");
        assert_eq!(p.run(), 1);
        assert_eq!(
            p.readout(),
            Player::new(p.scenario().clone()).expect("valid").readout()
        );
        assert!(p.sim().scenario().interventions.is_empty());
        assert_eq!(p.narration(Lang::En), Narration::default());
        assert_eq!(p.sample_count(), 0);
    }

    #[test]
    fn narration_changes_at_a_readable_pace() {
        let mut p = burst();
        p.advance(16.0, 0.0);
        assert!(
            p.narration(Lang::En).sentences.is_empty(),
            "nothing happened yet"
        );
        p.advance(16.0, 1.0);
        let first = p.narration(Lang::En);
        assert!(
            !first.sentences.is_empty(),
            "the first step is told at once"
        );
        p.advance(16.0, 1.0);
        assert_eq!(
            p.narration(Lang::En),
            first,
            "16 ms later the line has not moved"
        );
        play(&mut p, 1.0, 1.0);
        let n = p.narration(Lang::En);
        assert_ne!(n, first, "a second later it has");
        assert!(!n.sentences.is_empty());
        assert!(n.sentences.len() <= NARRATION_SENTENCES_MAX);
        assert!(n.time_s > 0.0);
        p.advance(16.0, 1.0);
        assert_eq!(
            p.narration(Lang::En),
            n,
            "16 ms later the line has not moved"
        );
    }

    #[test]
    fn the_whole_burst_drains_and_finishes() {
        let mut p = burst();
        let mut frames = 0;
        while !p.advance(100.0, 20.0).finished {
            frames += 1;
            assert!(frames < 2_000, "the burst ends near 180 s");
        }
        let r = p.readout();
        assert!(r.finished);
        assert_eq!(
            p.narration(Lang::En).time_s,
            r.time_s,
            "the narration tells the very last step"
        );
        assert_eq!(r.backlog, 0);
        assert_eq!(r.in_flight, 0);
        assert_eq!(r.acked, r.published);
        assert!(r.time_s > 179.0 && r.time_s < 181.0, "{r:?}");
        let chart = p.chart_data();
        let peak = chart.backlog.iter().map(|&(_, b)| b).fold(0.0, f64::max);
        assert!(
            peak > 50_000.0 && peak < 70_000.0,
            "about 60,000 at 60 s: {peak}"
        );
        assert_eq!(chart.x_max_s, 180.0_f64.max(chart.now_s));
    }

    #[test]
    fn crash_markers_are_collected_and_rebuilt_when_stepping_back() {
        let mut p = burst();
        play(&mut p, 0.3, 10.0);
        assert!(p.crash_markers().is_empty());
        p.crash_next().expect("valid");
        let at = p.readout().time_s;
        let crash_step = p.sim().steps();
        play(&mut p, 0.3, 10.0);
        p.command(Command::CrashConsumer {
            consumer: ConsumerId::new(4),
            point: CrashPoint::Now,
            restart_after_s: None,
        })
        .expect("valid");
        let markers = p.crash_markers().to_vec();
        assert_eq!(markers.len(), 2);
        assert_eq!(markers[0].t_s, at);
        assert_eq!(markers[0].label, "worker-1 ✕");
        assert_eq!(markers[1].label, "worker-5 ✕");
        assert_eq!(p.chart_data().crashes, markers);
        // Stepping back re-simulates the run: the same crashes, at the same times.
        p.step_back().expect("valid");
        assert_eq!(
            p.crash_markers(),
            &markers[..1],
            "back before the second crash"
        );
        play(&mut p, 0.1, 10.0);
        assert_eq!(p.crash_markers(), &markers[..], "replayed again");
        p.go_to_step(crash_step).expect("valid");
        assert_eq!(p.crash_markers(), &markers[..1]);
        p.go_to_step(crash_step - 1).expect("valid");
        assert!(p.crash_markers().is_empty(), "before the first crash");
        p.reset().expect("valid");
        assert!(p.crash_markers().is_empty());
    }

    #[test]
    fn scheduled_crashes_of_the_broker_are_marked_too() {
        let mut p = Player::new(examples::load("broker-crash").expect("built in")).expect("valid");
        while !p.advance(100.0, 20.0).finished {}
        let labels: Vec<&str> = p.crash_markers().iter().map(|m| m.label.as_str()).collect();
        assert!(labels.contains(&"broker ✕"), "{labels:?}");
        assert_eq!(
            p.crash_markers()
                .iter()
                .filter(|m| m.label == "broker ✕")
                .count() as u64,
            p.sim().counters().broker_crashes
        );
    }

    #[test]
    fn the_crashes_counter_counts_every_crash_the_chart_marks() {
        for name in [
            "outbox-relay-crash",
            "broker-crash",
            "dual-write-crash",
            "crash-after-commit",
        ] {
            let mut p = Player::new(examples::load(name).expect("built in")).expect("valid");
            while !p.advance(100.0, 20.0).finished {}
            assert!(!p.crash_markers().is_empty(), "{name} has a crash");
            assert_eq!(
                p.readout().crashes,
                p.crash_markers().len() as u64,
                "{name}: {:?}",
                p.crash_markers()
            );
        }
        let mut p =
            Player::new(examples::load("outbox-relay-crash").expect("built in")).expect("valid");
        while !p.advance(100.0, 20.0).finished {}
        assert_eq!(p.crash_markers()[0].label, "order-service relay ✕");
    }

    #[test]
    fn slowing_the_consumers_lowers_mu_and_the_prediction_grows() {
        // mm4 at ρ = 0.9: slowed four times, four consumers of 1 s finish 1/s, not 4/s.
        // The ρ line kept saying "stable" (μ = 4/s) while the backlog climbed.
        let mut p = Player::new(examples::load("mm4").expect("built in")).expect("valid");
        while p.readout().time_s < 5.0 {
            p.advance(100.0, 20.0);
        }
        assert_eq!(p.rho_now().load(), Some(Load::Drains));
        let consumers: Vec<ConsumerId> = p.sim().consumer_ids().collect();
        assert_eq!(consumers.len(), 4);
        for &consumer in &consumers {
            p.command(Command::SlowConsumer {
                consumer,
                factor: 4.0,
            })
            .expect("valid");
        }
        let rho = p.rho_now();
        assert!((rho.mu - 1.0).abs() < 1e-9, "{}", rho.mu);
        assert_eq!(rho.load(), Some(Load::Grows));
        let curve = p.prediction_curve();
        let (t_end, last) = *curve.last().expect("a curve");
        assert!(
            last > 2.0 * (t_end - 5.0),
            "the dashed line climbs at λ − μ = 2.6/s: {curve:?}"
        );
        // Back to speed, back to 4/s.
        for &consumer in &consumers {
            p.command(Command::SlowConsumer {
                consumer,
                factor: 1.0,
            })
            .expect("valid");
        }
        assert!((p.rho_now().mu - 4.0).abs() < 1e-9);
        assert_eq!(p.rho_now().load(), Some(Load::Drains));
    }

    #[test]
    fn rho_follows_the_rate_schedule_and_values_match_the_readout() {
        let mut p = burst();
        let rho = p.rho_now();
        assert_eq!((rho.lambda, rho.mu), (3_000.0, 2_000.0));
        assert_eq!(rho.value_text(Lang::En), "1.50");
        while p.readout().time_s < 61.0 {
            p.advance(100.0, 20.0);
        }
        assert_eq!(
            p.rho_now().value_text(Lang::En),
            "0.50",
            "1,000/s after 60 s"
        );
        let now = p.values_now();
        let r = p.readout();
        assert_eq!(
            (now.t_s, now.backlog, now.in_flight),
            (r.time_s, r.backlog, r.in_flight)
        );
        assert_eq!(now.oldest_age_s, r.oldest_age_s);
        assert_eq!(p.values_at(1e9), now, "right of the samples: now");
        let then = p.values_at(30.2);
        assert_eq!(then.t_s, 30.0);
        assert_eq!(then.predicted, 30_000.0);
        let sample = p.sim().series()[30];
        assert_eq!(
            (then.backlog, then.in_flight),
            (sample.backlog, sample.in_flight)
        );
    }

    #[test]
    fn log_groups_take_part_in_the_backlog_rho_and_the_prediction() {
        let mut p =
            Player::new(examples::load("log-consumer-groups").expect("built in")).expect("valid");
        // 8 appends a second, read by two groups; ledger: 2 members at 0.2 s, analytics:
        // 1 member at 0.05 s.
        let rho = p.rho_now();
        assert_eq!((rho.lambda, rho.mu), (16.0, 30.0));
        let en = brokerlab_core::lessons::Lang::En;
        assert_eq!(rho.rates_text(en), "λ = 16/s arriving, μ = 30/s capacity");
        assert!(rho.hint(en).starts_with("ρ < 1"), "{}", rho.hint(en));
        let mut peak = 0;
        while p.readout().time_s < 25.0 {
            p.advance(100.0, 10.0);
            let lag: u64 = p
                .sim()
                .group_ids()
                .flat_map(|g| p.sim().group_partitions(g))
                .map(|part| part.lag)
                .sum();
            assert_eq!(
                p.readout().backlog,
                lag,
                "a log's backlog is its groups' lag"
            );
            assert_eq!(p.values_now().backlog, lag);
            peak = peak.max(lag);
        }
        assert!(peak > 0, "the hot partition lags now and then");
        let chart = p.chart_data();
        let sampled: Vec<f64> = p.sim().series().iter().map(|s| s.lag as f64).collect();
        let drawn: Vec<f64> = chart.backlog.iter().map(|&(_, b)| b).collect();
        assert_eq!(drawn, sampled);
        assert!(
            chart.prediction.iter().all(|&(_, q)| q == 0.0),
            "ρ < 1: the prediction stays at zero, as the backlog does: {:?}",
            chart.prediction
        );
        // The third ledger member joined at 20 s: 15/s for the ledger from then on.
        assert_eq!(p.rho_now().mu, 35.0);
    }

    /// A built-in example's player, sought to `t_s` (its end when later).
    fn at(name: &str, t_s: f64) -> Player {
        let mut p = Player::new(examples::load(name).expect("built in")).expect("valid");
        p.seek_to(brokerlab_core::secs_to_us(t_s)).expect("seeks");
        p
    }

    #[test]
    fn a_retry_storm_is_never_called_stable_and_its_mu_is_the_database_s_capacity() {
        // The teacher's report: at the end of dep-retry-storm the line read "ρ = 0.00 …
        // ✓ ρ < 1: stable; the consumers keep up (λ = 70/s arriving, μ = 50,000/s
        // capacity)": a hundred handler slots at 2 ms, in front of a database that serves
        // 10 requests at once in 0.1 s, while 3,315 messages waited and every call failed.
        let (en, es) = (Lang::En, Lang::Es);
        let start = at("dep-retry-storm", 0.0).rho_now();
        assert_eq!(
            (start.lambda, start.mu),
            (70.0, 100.0),
            "the database's 10 / 0.1 s"
        );
        assert_eq!(start.limit, Limit::Dependency("db".into()));
        assert_eq!(
            start.rates_text(en),
            "λ = 70/s arriving, μ = 100/s capacity, limited by db"
        );
        assert_eq!(
            start.rates_text(es),
            "λ = 70/s de llegadas, μ = 100/s de capacidad, limitada por db"
        );
        // At half speed (10 s to 13 s) the database serves 50/s: ρ > 1, and the dashed
        // prediction rises with the line.
        let slow = at("dep-retry-storm", 11.0);
        assert_eq!(slow.rho_now().mu, 50.0);
        assert_eq!(slow.rho_now().load(), Some(Load::Grows));
        assert!(
            slow.predicted_at(13.0) > 50.0,
            "{}",
            slow.predicted_at(13.0)
        );

        let end = at("dep-retry-storm", 60.0);
        assert!(end.readout().backlog > 3_000, "{:?}", end.readout());
        let rho = end.rho_now();
        assert_eq!((rho.mu, rho.value_text(en).as_str()), (100.0, "0.70"));
        assert_eq!(rho.limit, Limit::Dependency("db".into()));
        assert!(rho.strained(), "{rho:?}");
        let hint = rho.hint(en);
        assert!(
            hint.starts_with("ρ < 1, but the dependency db is overloaded: retries included"),
            "{hint}"
        );
        assert!(
            !hint.contains("stable") && !hint.contains("keep up"),
            "{hint}"
        );
        assert!(hint.contains("more than the 100/s it can serve"), "{hint}");
        let hint_es = rho.hint(es);
        assert!(
            hint_es.starts_with("ρ < 1, pero la dependencia db está sobrecargada"),
            "{hint_es}"
        );
        assert!(!hint_es.contains("estable"), "{hint_es}");
        // The parameters' forecast gives the same verdict.
        let settings = Settings::of(end.sim());
        assert_eq!(settings.mu, 100.0);
        for lang in [en, es] {
            let forecast = forecast_with(&settings, rho.strain.as_ref(), lang);
            assert!(forecast.contains(&rho.hint(lang)), "{forecast}");
        }
        let forecast = forecast_with(&settings, rho.strain.as_ref(), es);
        assert!(
            forecast.starts_with(
                "Llegadas λ = 70 mensajes/s, capacidad μ = 100 mensajes/s, limitada por db \
                 (carga ρ = 0,70). ρ < 1, pero la dependencia db está sobrecargada"
            ),
            "{forecast}"
        );
    }

    #[test]
    fn no_dependency_example_reads_stable_while_it_collapses() {
        // Each dep-* example at several instants: where the line says "stable", nothing
        // has piled up; where a backlog has piled up, the line warns (ρ > 1, or a
        // dependency overloaded or failing). And μ is never above what the database serves.
        let stable =
            |rho: &Rho| matches!(rho.load(), Some(Load::Drains | Load::Idle)) && !rho.strained();
        let mut warned = 0;
        for name in examples::names().filter(|n| n.starts_with("dep-")) {
            let scenario = examples::load(name).expect("built in");
            let db = &scenario.dependencies[0];
            let served = f64::from(db.concurrency) / db.service.mean_s();
            let mut p = Player::new(scenario.clone()).expect("valid");
            for t_s in [5.0, 12.0, 14.0, 16.0, 20.0, 25.0, 30.0, 40.0, 60.0] {
                p.seek_to(brokerlab_core::secs_to_us(t_s)).expect("seeks");
                let (rho, backlog) = (p.rho_now(), p.readout().backlog);
                let hint = rho.hint(Lang::En);
                assert!(rho.mu <= served + 1e-9, "{name} at {t_s} s: {rho:?}");
                if stable(&rho) {
                    assert!(backlog < 50, "{name} at {t_s} s: {backlog} waiting, {hint}");
                    assert!(hint.contains("stable"), "{hint}");
                } else {
                    assert!(!hint.contains("stable"), "{name} at {t_s} s: {hint}");
                    warned += 1;
                }
                if backlog > 500 {
                    assert!(
                        !stable(&rho),
                        "{name} at {t_s} s: {backlog} waiting, {hint}"
                    );
                }
            }
        }
        assert!(warned > 20, "{warned}");
        // The collapses the report named: dep-metastable and dep-scale-out at 40 s.
        let metastable = at("dep-metastable", 40.0).rho_now();
        assert!(metastable.strained(), "{metastable:?}");
        assert_eq!(metastable.mu, 100.0);
        // dep-scale-out: 10 slots each waiting 0.028 s for the database (0.001 s of their
        // own) finish 345/s, under the 400/s arriving; scaled to 50 slots at 20 s, each
        // request takes 0.01 × (1 + 0.2 × 49) = 0.108 s, past the callers' 0.1 s timeout.
        let before = at("dep-scale-out", 10.0).rho_now();
        assert!((before.mu - 10.0 / 0.029).abs() < 1e-6, "{before:?}");
        assert_eq!(before.limit, Limit::Consumers);
        assert_eq!(before.load(), Some(Load::Grows));
        let after = at("dep-scale-out", 40.0);
        let rho = after.rho_now();
        assert_eq!((rho.mu, rho.value_text(Lang::En).as_str()), (0.0, "∞"));
        assert_eq!(rho.limit, Limit::TooLate("db".into()));
        assert_eq!(
            rho.rates_text(Lang::En),
            "λ = 400/s arriving, μ = 0/s capacity: the dependency db answers after its \
             callers have given up waiting"
        );
        assert!(rho.hint(Lang::Es).starts_with("ρ > 1: "));
        assert_eq!(
            forecast_with(&Settings::of(after.sim()), rho.strain.as_ref(), Lang::En),
            "Arrivals λ = 400 msg/s, capacity μ = 0 msg/s: the dependency db answers after \
             its callers have given up waiting; nothing is finished, so the backlog grows by \
             every arrival."
        );
        // The prediction grows at the full arrival rate from 20 s on, as the run does.
        let grown = after.predicted_at(40.0) - after.predicted_at(20.0);
        assert!((grown - 8_000.0).abs() < 1e-6, "{grown}");
    }

    #[test]
    fn a_slowdown_commanded_on_the_database_lowers_mu_until_it_ends() {
        let mut p = at("dep-breaker", 30.0);
        assert_eq!(p.rho_now().mu, 100.0);
        p.command(Command::SlowDependency {
            dependency: "db".into(),
            factor: 4.0,
            for_s: 5.0,
        })
        .expect("valid");
        assert_eq!(p.rho_now().mu, 25.0);
        assert_eq!(p.rho_now().load(), Some(Load::Grows));
        assert_eq!(fluid::value_at(&p.story.mu, 36.0), 100.0, "back after 5 s");
        assert_eq!(
            fluid::value_at(&p.story.mu, 11.0),
            50.0,
            "the planned slowdown"
        );
    }

    #[test]
    fn a_log_scenarios_readout_and_chart_show_the_age_of_what_its_groups_lag_behind() {
        // log-retention: no queue, a slow group 25 records behind; the oldest age is that
        // of the group's oldest uncommitted record (before: 0 s on the page).
        let mut p = Player::new(examples::load("log-retention").expect("built in")).expect("valid");
        play(&mut p, 1.0, 10.0); // 10 simulated seconds
        let r = p.readout();
        assert!(r.backlog >= 20, "{r:?}");
        assert!(r.oldest_age_s >= 4.0 && r.oldest_age_s <= 6.0, "{r:?}");
        let chart = p.chart_data();
        assert!(
            chart.oldest_age_s.iter().any(|&(_, age)| age >= 4.0),
            "{:?}",
            chart.oldest_age_s
        );
    }

    #[test]
    fn chart_data_follows_the_samples() {
        let mut p = burst();
        play(&mut p, 1.0, 10.0);
        let chart = p.chart_data();
        assert_eq!(chart.backlog.len(), p.sample_count());
        assert_eq!(chart.backlog[0], (0.0, 0.0));
        for line in [&chart.in_flight, &chart.dead_lettered, &chart.oldest_age_s] {
            assert_eq!(line.len(), chart.backlog.len());
        }
        let last = p.sim().series().last().copied().expect("sampled");
        assert_eq!(
            chart.oldest_age_s.last(),
            Some(&(last.t_s, last.oldest_age_s))
        );
        assert_eq!(
            chart.in_flight.last(),
            Some(&(last.t_s, last.in_flight as f64))
        );
        assert!(chart.backlog.windows(2).all(|w| w[1].0 > w[0].0));
        assert_eq!(chart.x_max_s, 180.0);
        assert!(!chart.prediction.is_empty());
    }
    #[test]
    fn steps_collect_their_flights_for_the_view_which_drains_them() {
        use crate::model::flights::{Kind, TOKENS_MAX};
        let mut p =
            Player::new(examples::load("crash-after-commit").expect("built in")).expect("valid");
        let mut drained = FlightBuffer::default();
        let mut kinds = Vec::new();
        while p.step_once() {
            p.drain_flights(&mut drained);
            kinds.extend(drained.flights.iter().map(|f| f.kind));
            p.drain_flights(&mut drained);
            assert!(drained.is_empty(), "a drain takes everything");
        }
        assert!(kinds.contains(&Kind::Redeliver), "{kinds:?}");
        assert!(kinds.contains(&Kind::Duplicate), "{kinds:?}");
        // Stepping back re-simulates: no movement to show.
        p.step_back().expect("valid");
        p.drain_flights(&mut drained);
        assert!(drained.is_empty());

        // A fast frame of the burst keeps a bounded number one by one and counts the rest.
        let mut p = burst();
        p.advance(100.0, 20.0);
        p.drain_flights(&mut drained);
        assert_eq!(drained.flights.len(), TOKENS_MAX);
        assert!(drained.overflow.total() > 1_000, "{}", drained.len());
    }

    #[test]
    fn the_narrated_step_names_the_components_it_touched() {
        let mut p = burst();
        play(&mut p, 0.2, 1.0);
        p.crash_next().expect("valid");
        assert_eq!(p.narrated_nodes(), [Node::Consumer(ConsumerId::new(0))]);
        p.reset().expect("valid");
        assert!(p.narrated_nodes().is_empty());
    }

    #[test]
    fn pause_on_breach_stops_playing_at_the_first_out_of_order_effect() {
        let mut p =
            Player::new(examples::load("ordering-account").expect("built in")).expect("valid");
        p.set_pause_on_breach(true);
        let mut breached = false;
        for _ in 0..20_000 {
            let a = p.advance(16.0, 1.0);
            if a.breached {
                breached = true;
                break;
            }
            assert!(!a.finished, "the run ended with no breach");
        }
        assert!(breached);
        assert_eq!(p.sim().steps(), 8, "at the late deposit, mid-run");
        assert!(!p.is_finished());
        let order = &p.invariants()[crate::model::invariants::Property::KeyOrderKept as usize];
        assert!(!order.holds);
        assert_eq!(order.msg, Some(MsgId::new(0)));
    }

    #[test]
    fn a_setting_change_redraws_the_prediction_from_now_and_step_back_restores_it() {
        let mut p = Player::new(examples::load("mm1").expect("built in")).expect("valid");
        while p.sim().now_us() < secs_to_us(10.0) {
            p.step_once();
        }
        let t0 = us_to_secs(p.sim().now_us());
        let before = p.chart_data().prediction;
        let version = p.prediction_version();
        assert!(before.iter().all(|&(_, q)| q == 0.0), "ρ = 0.9: {before:?}");
        let fault = crate::model::settings::arrivals_command(
            p.sim(),
            ProducerId::new(0),
            brokerlab_core::ArrivalProcess::Poisson,
            3.0,
        );
        p.command(fault).expect("valid");
        assert_ne!(p.prediction_version(), version, "the chart must redraw");
        let after = p.chart_data().prediction;
        let at = |t: f64| fluid::curve_at(&after, t);
        assert_eq!(at(t0), 0.0, "the past is unchanged");
        // λ = 3 against μ = 1: +2 per second from the change on.
        assert!((at(t0 + 20.0) - 40.0).abs() < 1e-6, "{after:?}");
        assert!((p.predicted_at(t0 + 10.0) - 20.0).abs() < 1e-6);
        // Two consumers: μ = 2, so +1 per second from then on.
        p.command(Command::SetConsumerCount {
            queue: "jobs".into(),
            count: 2,
        })
        .expect("valid");
        assert!((p.predicted_at(t0 + 20.0) - 20.0).abs() < 1e-6);
        // Back before both changes: the prediction is the scenario's again.
        p.step_back().expect("valid");
        p.step_back().expect("valid");
        assert_eq!(p.chart_data().prediction, before);
        p.reset().expect("valid");
        assert_eq!(p.predicted_at(30.0), 0.0);
    }

    #[test]
    fn a_history_starts_from_a_snapshot_before_its_message_and_equals_a_full_replay() {
        let mut p = burst();
        play(&mut p, 3.0, 20.0);
        let first = p.snapshot_steps()[0].0;
        // Back to a little after the first snapshot; the latest message was created after
        // it, so the build need not replay anything before the snapshot.
        p.go_to_step(first + 5_000).expect("replays");
        let msg = p.sim().messages().len() as u64 - 1;
        let mut build = p.lineage_build(MsgId::new(msg)).expect("builds");
        assert!(build.from_step() >= first, "started from a snapshot");
        // Chunked: a budget that says no after the first chunk stops it part way.
        assert!(!build.go_on(|_| false), "one chunk is not the whole replay");
        while !build.go_on(|_| true) {}
        let chunked = build.finish();
        let full = crate::model::lineage::lineage(p.sim(), MsgId::new(msg)).expect("builds");
        assert_eq!(chunked, full);
        assert!(!full.rows.is_empty());
    }
}
