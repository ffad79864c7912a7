//! Seeking and stepping back: the recorded run (the scenario plus the user's commands) is
//! re-simulated up to a target — from the nearest earlier snapshot when one is kept, from
//! the start otherwise — so the result is exactly the state a straight run reaches.
//! Seeking can go on across several frames, each within its own budget, so a long run
//! never blocks the page.

use brokerlab_core::{us_to_secs, Micros, MsgId, ScenarioError, Simulation};

use super::{horizon_of, Player, BUDGET_CHECK_EVERY};
use crate::model::lineage::{replay_failed, Bilingual, LineageBuild};
use crate::model::story::Story;

/// What one lockstep follow counts for in the narration's pace (one frame at 60 Hz).
const FOLLOW_FRAME_MS: f64 = 1_000.0 / 60.0;

/// A snapshot is kept every this many steps at first; the spacing doubles whenever the
/// snapshots would exceed their bounds, so they stay few and spread over the whole run.
pub const SNAPSHOT_EVERY_STEPS: u64 = 16_384;
/// Most snapshots kept at once.
pub const SNAPSHOTS_MAX: usize = 6;
/// Rough memory the snapshots may hold together (a late snapshot of the 300,000-message
/// burst alone holds about 55 MB; the latest snapshot is kept even when over).
pub const SNAPSHOT_BYTES_MAX: usize = 64 << 20;
/// The largest run a snapshot copies (by [`approx_bytes`]): a copy is one uninterruptible
/// piece of work, and copies of the burst near its peak backlog were among the longest
/// main-thread tasks while playing in the browser (docs/performance.md). A larger run is
/// not copied; seeking back there re-simulates from an earlier snapshot, in budgeted
/// frames, like any seek.
pub const SNAPSHOT_ONE_BYTES_MAX: usize = 8 << 20;

/// The run at one step, with what the page had told about it by then.
#[derive(Clone)]
pub(super) struct Snapshot {
    sim: Simulation,
    story: Story,
    bytes: usize,
}

/// Snapshots of the recorded run, sorted by step. Every one belongs to the run as it is
/// recorded now: a new user command changes the run's future, so it clears them.
#[derive(Clone)]
pub(super) struct Snapshots {
    kept: Vec<Snapshot>,
    every: u64,
}

impl Default for Snapshots {
    fn default() -> Self {
        Self {
            kept: Vec::new(),
            every: SNAPSHOT_EVERY_STEPS,
        }
    }
}

impl Snapshots {
    pub(super) fn clear(&mut self) {
        *self = Self::default();
    }

    fn bytes(&self) -> usize {
        self.kept.iter().map(|s| s.bytes).sum()
    }

    /// The latest snapshot that `pick` accepts.
    fn latest_where(&self, pick: impl Fn(&Simulation) -> bool) -> Option<&Snapshot> {
        self.kept.iter().rev().find(|s| pick(&s.sim))
    }
}

/// A rough size of a run in memory: its held messages and copies dominate (finished
/// ones are released; the histograms and the series are bounded).
fn approx_bytes(sim: &Simulation) -> usize {
    let slots = |ring: usize, spilled: usize| ring + 2 * spilled;
    4_096
        + std::mem::size_of::<brokerlab_core::Message>()
            * slots(sim.messages().ring_len(), sim.messages().spilled())
        + std::mem::size_of::<brokerlab_core::MessageCopy>()
            * slots(sim.copies().ring_len(), sim.copies().spilled())
}

impl Player {
    /// Keeps a snapshot when the run reaches the next multiple of the spacing (called
    /// after every step).
    pub(super) fn keep_snapshot(&mut self) {
        let step = self.sim.steps();
        let every = self.snapshots.every;
        if step == 0 || !step.is_multiple_of(every) {
            return;
        }
        let bytes = approx_bytes(&self.sim);
        if bytes > SNAPSHOT_ONE_BYTES_MAX {
            return;
        }
        let at = match self
            .snapshots
            .kept
            .binary_search_by_key(&step, |s| s.sim.steps())
        {
            Ok(_) => return,
            Err(at) => at,
        };
        let snapshot = Snapshot {
            sim: self.sim.clone(),
            story: self.story.clone(),
            bytes,
        };
        let kept = &mut self.snapshots;
        kept.kept.insert(at, snapshot);
        // Too many: keep every other one and double the spacing.
        while kept.kept.len() > SNAPSHOTS_MAX {
            kept.every = kept.every.saturating_mul(2);
            let every = kept.every;
            kept.kept.retain(|s| s.sim.steps().is_multiple_of(every));
        }
        // Too large: drop the earliest (the start of a run is the quickest to re-simulate),
        // but keep the latest even if it alone is over.
        while kept.kept.len() > 1 && kept.bytes() > SNAPSHOT_BYTES_MAX {
            kept.kept.remove(0);
        }
    }

    /// Snapshots kept now, as (step, simulated time): for tests and the curious.
    pub fn snapshot_steps(&self) -> Vec<(u64, Micros)> {
        self.snapshots
            .kept
            .iter()
            .map(|s| (s.sim.steps(), s.sim.now_us()))
            .collect()
    }

    /// Starts again from `snapshot` (a copy: the snapshot stays for next time).
    fn restore(&mut self, snapshot: Snapshot) {
        self.forget_story();
        self.sim = snapshot.sim;
        self.story = snapshot.story;
        self.prediction_version = self.prediction_version.wrapping_add(1);
        self.run = self.run.wrapping_add(1);
    }

    /// Moves to the best place to re-simulate from, given that the state wanted is the
    /// first one where `reached` holds: the current state if it has not got there yet and
    /// no snapshot is closer, else the latest snapshot before it, else the start.
    fn rewind_for(&mut self, before: impl Fn(&Simulation) -> bool) -> Result<(), ScenarioError> {
        let current = before(&self.sim).then(|| self.sim.steps());
        let snapshot = self.snapshots.latest_where(&before);
        match (current, snapshot) {
            (Some(now), Some(s)) if now >= s.sim.steps() => {}
            (Some(_), None) => {}
            (_, Some(s)) => {
                let s = s.clone();
                self.restore(s);
            }
            (None, None) => {
                let recorded = self.sim.scenario().clone();
                self.sim = Simulation::new(recorded)?;
                self.run = self.run.wrapping_add(1);
                self.forget_story();
            }
        }
        Ok(())
    }

    /// Re-simulates the recorded run up to step `target` (from a snapshot if one is kept
    /// at or before it).
    pub fn go_to_step(&mut self, target: u64) -> Result<(), ScenarioError> {
        self.seek_target = None;
        self.rewind_for(|sim| sim.steps() <= target)?;
        while self.sim.steps() < target && self.take_step() {}
        // Re-simulating is not movement to show.
        self.flights.clear();
        self.jumped = true;
        self.refresh_narration();
        Ok(())
    }

    /// Starts seeking to simulated time `target_us`: the run pauses there once
    /// [`Player::continue_seek`] says it is done.
    pub fn begin_seek(&mut self, target_us: Micros) -> Result<(), ScenarioError> {
        self.seek_target = None;
        // A state already past the target (or at it with steps still due then) cannot be
        // continued: the target is reached only by stepping from an earlier state.
        self.rewind_for(|sim| sim.now_us() <= target_us)?;
        self.seek_target = Some(target_us);
        self.jumped = true;
        Ok(())
    }

    /// Starts building the history of message `msg` up to the current step, from the
    /// latest snapshot taken before the message existed (or from the start): the replay
    /// skips what cannot concern it, and goes on in chunks ([`LineageBuild::go_on`]).
    pub fn lineage_build(&self, msg: MsgId) -> Result<LineageBuild, Bilingual> {
        let target = self.sim.steps();
        let before =
            |sim: &Simulation| sim.steps() <= target && sim.messages().len() <= msg.index();
        let start = match self.snapshots.latest_where(before) {
            Some(s) => s.sim.clone(),
            None => Simulation::new(self.sim.scenario().clone()).map_err(|e| replay_failed(&e))?,
        };
        LineageBuild::start(start, target, msg)
    }

    /// Where a seek in progress is going.
    pub fn seek_target(&self) -> Option<Micros> {
        self.seek_target
    }

    /// Stops a seek in progress where it got to (a valid state of the run).
    pub fn cancel_seek(&mut self) {
        if self.seek_target.take().is_some() {
            self.refresh_narration();
        }
    }

    /// Goes on seeking; every [`BUDGET_CHECK_EVERY`] steps asks `more(steps)` whether it
    /// may go on. True once the target is reached (or no seek was in progress).
    pub fn continue_seek(&mut self, mut more: impl FnMut(u64) -> bool) -> bool {
        let Some(target) = self.seek_target else {
            return true;
        };
        let mut steps = 0_u64;
        while self.sim.next_step_time().is_some_and(|at| at <= target) {
            if steps > 0 && steps.is_multiple_of(BUDGET_CHECK_EVERY) && !more(steps) {
                self.flights.clear(); // a seek jumps: nothing travels
                return false;
            }
            if !self.take_step() {
                break;
            }
            steps += 1;
        }
        // The same ending as playing up to that time.
        self.settle_at(target);
        self.seek_target = None;
        self.flights.clear();
        self.note_time();
        self.refresh_narration();
        true
    }

    /// Seeks to `target_us` in one go (tests, and short runs).
    pub fn seek_to(&mut self, target_us: Micros) -> Result<(), ScenarioError> {
        self.begin_seek(target_us)?;
        while !self.continue_seek(|_| true) {}
        Ok(())
    }

    /// Follows another run's clock to `target_us` (compare mode's side B): forward by
    /// stepping, with its tokens kept for the overlay and the narration refreshed at the
    /// playing pace; back by seeking.
    pub fn follow_to(&mut self, target_us: Micros) -> Result<(), ScenarioError> {
        if target_us < self.sim.now_us() {
            return self.seek_to(target_us);
        }
        self.seek_target = None;
        while self.sim.next_step_time().is_some_and(|at| at <= target_us) {
            if !self.take_step() {
                break;
            }
        }
        self.settle_at(target_us);
        self.note_time();
        // Called once a frame: refreshed as often as a playing run is.
        self.narration_age_ms += FOLLOW_FRAME_MS;
        if self.events_changed || self.narration_age_ms >= super::NARRATION_EVERY_MS {
            self.refresh_narration();
        }
        Ok(())
    }

    /// Remembers how far the run has been.
    pub(super) fn note_time(&mut self) {
        self.furthest_us = self.furthest_us.max(self.sim.now_us());
        // A run too long to preview has found its end once it gets there: the timeline
        // and the chart end where it ended (the burst's 180.0 s, not "of 181.0 s").
        let at_furthest = self.sim.now_us() == self.furthest_us;
        if self.pace.end_s.is_none() && at_furthest && self.is_finished() {
            self.pace.end_s = Some(us_to_secs(self.furthest_us));
            self.horizon_s = horizon_of(&self.base, self.pace);
        }
    }

    /// The end of the scrubber's range. When the preview found where the run ends (and it
    /// got no further), there, rounded up to the scrubber's tenth of a second. Otherwise the
    /// run's expected horizon, or further if it got further, plus half a second, in whole
    /// seconds: a run that ends just after its predicted end (a drain at 180.007 s) is
    /// still within reach. A run with an end time never passes it: the range ends there.
    pub fn timeline_end_s(&self) -> f64 {
        let furthest = us_to_secs(self.furthest_us);
        let held = us_to_secs(self.held_open_until_us);
        let end_time = self.sim.scenario().end_s;
        let end = match self.pace.end_s.map(|end| end.max(held)).or(end_time) {
            Some(end) if furthest <= end => (end * 10.0).ceil() / 10.0,
            _ => (self.horizon_s.max(furthest) + 0.5).ceil(),
        };
        if end.is_finite() {
            end.max(1.0)
        } else {
            1.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::{examples, secs_to_us, Command, ConsumerId, CrashPoint};

    fn player(name: &str) -> Player {
        Player::new(examples::load(name).expect("built in")).expect("valid")
    }

    /// Everything the page shows about a state, and the run's own summary.
    fn state(p: &Player) -> impl PartialEq + std::fmt::Debug {
        let sim = p.sim();
        (
            sim.steps(),
            sim.now_us(),
            sim.summary(),
            sim.series().to_vec(),
            p.readout(),
            p.narration(brokerlab_core::lessons::Lang::En),
            p.invariants(),
            p.crash_markers().to_vec(),
            p.chart_data().prediction,
        )
    }

    /// A straight run of the recorded scenario to `t_us`, as playing would get there.
    fn straight(p: &Player, t_us: Micros) -> Player {
        let mut q = Player::new(p.sim().scenario().clone()).expect("valid");
        q.seek_to(t_us).expect("valid");
        q
    }

    #[test]
    fn snapshots_are_kept_and_stay_within_their_bounds() {
        let mut p = player("burst");
        p.seek_to(secs_to_us(200.0)).expect("valid");
        assert!(p.is_finished());
        let kept = p.snapshot_steps();
        assert!(!kept.is_empty() && kept.len() <= SNAPSHOTS_MAX, "{kept:?}");
        assert!(kept.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(kept.len() == 1 || p.snapshots.bytes() <= SNAPSHOT_BYTES_MAX);
        assert!(
            kept.last().is_some_and(|&(s, _)| s > p.sim().steps() / 2),
            "a snapshot in the second half of the run: {kept:?}"
        );
        assert!(kept
            .iter()
            .all(|&(s, _)| s.is_multiple_of(p.snapshots.every)));
        assert!(
            p.snapshots
                .kept
                .iter()
                .all(|s| s.bytes <= SNAPSHOT_ONE_BYTES_MAX),
            "no snapshot copies a run larger than one frame can copy"
        );
    }

    #[test]
    fn a_run_too_large_to_copy_in_a_frame_gets_no_snapshot_and_seeks_back_exactly() {
        let mut p = player("burst");
        let mut largest = 0;
        while p.sim().now_us() < secs_to_us(120.0) && p.take_step() {
            largest = largest.max(approx_bytes(p.sim()));
        }
        assert!(
            largest > SNAPSHOT_ONE_BYTES_MAX,
            "the burst's backlog grows past the cap: {largest}"
        );
        assert!(p
            .snapshots
            .kept
            .iter()
            .all(|s| s.bytes <= SNAPSHOT_ONE_BYTES_MAX));
        // Back into the large part of the run: re-simulated from an earlier snapshot.
        let target = secs_to_us(100.0);
        p.seek_to(target).expect("valid");
        let q = straight(&p, target);
        assert_eq!(state(&p), state(&q));
    }

    #[test]
    fn seeking_back_and_forth_via_snapshots_equals_a_straight_run() {
        let mut p = player("burst");
        let t = secs_to_us(70.0);
        p.seek_to(t).expect("valid");
        let first = state(&p);
        assert!(
            !p.snapshot_steps().is_empty(),
            "70 s of the burst pass a snapshot"
        );
        assert_eq!(first, state(&straight(&p, t)));
        // Back, forward past it, and back to it again: from snapshots each time.
        p.seek_to(secs_to_us(12.3)).expect("valid");
        assert_eq!(state(&p), state(&straight(&p, secs_to_us(12.3))));
        p.seek_to(secs_to_us(150.0)).expect("valid");
        p.seek_to(t).expect("valid");
        assert_eq!(state(&p), first);
        assert_eq!(p.readout().time_s, 70.0);
    }

    #[test]
    fn stepping_back_via_a_snapshot_equals_a_straight_run_after_a_crash() {
        let mut p = player("burst");
        p.seek_to(secs_to_us(3.0)).expect("valid");
        p.command(Command::CrashConsumer {
            consumer: ConsumerId::new(3),
            point: CrashPoint::Now,
            restart_after_s: Some(2.0),
        })
        .expect("valid");
        assert!(
            p.snapshot_steps().is_empty(),
            "a command clears the snapshots"
        );
        // A setting too: the prediction's capacity changes from here on.
        p.command(Command::SetConsumerCount {
            queue: p.sim().scenario().queues[0].name.clone(),
            count: 30,
        })
        .expect("valid");
        // Early in the burst: its backlog is still small enough to snapshot.
        p.seek_to(secs_to_us(9.0)).expect("valid");
        assert!(!p.snapshot_steps().is_empty());
        let at = p.sim().steps();
        p.step_back().expect("valid");
        assert_eq!(p.sim().steps(), at - 1);
        // A straight run of the recorded scenario, step by step, to the same step.
        let mut q = Player::new(p.sim().scenario().clone()).expect("valid");
        q.go_to_step(at - 1).expect("valid");
        assert!(q.snapshot_steps().len() <= SNAPSHOTS_MAX);
        let mut r = Player::new(p.sim().scenario().clone()).expect("valid");
        while r.sim().steps() < at - 1 && r.take_step() {}
        r.refresh_narration();
        assert_eq!(state(&p), state(&r));
        assert_eq!(state(&q), state(&r));
        assert_eq!(p.readout().crashes, 1, "the crash is still in the run");
        // Scrubbing back before the crash and forward again replays it.
        p.seek_to(secs_to_us(2.0)).expect("valid");
        assert_eq!(p.readout().crashes, 0);
        p.seek_to(secs_to_us(60.0)).expect("valid");
        assert_eq!(p.readout().crashes, 1);
        assert_eq!(state(&p), state(&straight(&p, secs_to_us(60.0))));
    }

    #[test]
    fn seeking_equals_playing_to_the_same_time() {
        let mut played = player("burst");
        for _ in 0..200 {
            played.advance(16.0, 5.0);
        }
        played.refresh_narration();
        let t = played.sim().now_us();
        let mut sought = player("burst");
        sought.seek_to(secs_to_us(100.0)).expect("valid");
        sought.seek_to(t).expect("valid");
        assert_eq!(sought.sim().summary(), played.sim().summary());
        assert_eq!(sought.readout(), played.readout());
        assert_eq!(sought.sim().series(), played.sim().series());
    }

    #[test]
    fn a_seek_in_chunks_gets_where_one_go_gets() {
        let mut p = player("burst");
        let end = secs_to_us(p.timeline_end_s());
        assert_eq!(end, secs_to_us(181.0));
        p.begin_seek(end).expect("valid");
        let mut chunks = 0;
        while !p.continue_seek(|steps| steps < 10_000) {
            chunks += 1;
            assert!(p.seek_target().is_some());
            assert!(p.sim().now_us() <= end);
        }
        assert!(chunks > 10, "the burst takes many chunks: {chunks}");
        assert_eq!(p.seek_target(), None);
        assert!(p.is_finished());
        let q = straight(&p, end);
        assert_eq!(state(&p), state(&q));
        assert!(p.readout().time_s > 180.0 && p.readout().time_s < 181.0);
        // Reached, the end is where the run ended, and stays there.
        let ended = (p.readout().time_s * 10.0).ceil() / 10.0;
        assert_eq!(p.timeline_end_s(), ended);
        p.seek_to(secs_to_us(50.0)).expect("valid");
        assert_eq!(p.timeline_end_s(), ended, "the end stays put once reached");
    }

    #[test]
    fn seeking_a_short_run_past_its_end_stops_at_its_last_step() {
        let mut p = player("crash-after-commit");
        p.seek_to(secs_to_us(1_000.0)).expect("valid");
        assert!(p.is_finished());
        let mut q = player("crash-after-commit");
        while q.step_once() {}
        q.advance(16.0, 1.0);
        assert_eq!(p.readout(), q.readout());
        // Time 0 is after the steps at 0 s, as playing to 0 s would be.
        p.seek_to(0).expect("valid");
        assert_eq!(state(&p), state(&straight(&p, 0)));
        assert!(p.timeline_end_s() >= 1.0);
    }
}
