//! The page's state: one [`Player`] kept outside the reactive graph, a frame counter that
//! is bumped whenever the player changes, and the few signals the controls own (playing,
//! speed, an error). Views read memoised snapshots; controls call the methods below.

use leptos::prelude::*;

use crate::player::{Narration, Player, SPEEDS, SPEED_DEFAULT};
use crate::readout::Readout;

/// One frame at 60 Hz: the most the first frame after a pause may count for.
const FRAME_MS_NOMINAL: f64 = 1_000.0 / 60.0;

/// Wall-clock time one frame may spend simulating, so a frame stays well inside the
/// 50 ms responsiveness budget even on a slow machine (the rest of the frame renders).
const FRAME_WORK_MS: f64 = 10.0;

/// A budget for one frame: true while less than [`FRAME_WORK_MS`] has passed since it was made.
fn frame_deadline() -> impl FnMut(u64) -> bool {
    let performance = window().performance();
    let start = performance.as_ref().map_or(0.0, |p| p.now());
    move |_steps| {
        performance
            .as_ref()
            .is_none_or(|p| p.now() - start < FRAME_WORK_MS)
    }
}

/// A cheap, copyable handle to the page's state.
#[derive(Clone, Copy)]
pub struct Lab {
    player: StoredValue<Player>,
    /// Bumped after every change to the player: what the memos below track.
    frame: RwSignal<u64>,
    pub playing: RwSignal<bool>,
    /// Simulated seconds per wall-clock second.
    pub speed: RwSignal<f64>,
    /// A problem to show to the user (a command the simulation refused).
    pub error: RwSignal<Option<String>>,
    /// The next frame is the first since play was pressed: its wall time includes the pause.
    resuming: StoredValue<bool>,
    pub readout: Memo<Readout>,
    pub narration: Memo<Narration>,
    /// (run number, samples taken): the chart redraws when it changes.
    pub chart_key: Memo<(u32, usize)>,
    /// Name of the consumer the crash button would crash, if any is up.
    pub crash_target: Memo<Option<String>>,
}

impl Lab {
    pub fn new(player: Player) -> Self {
        let player = StoredValue::new(player);
        let frame = RwSignal::new(0_u64);
        Self {
            player,
            frame,
            playing: RwSignal::new(false),
            speed: RwSignal::new(SPEED_DEFAULT),
            error: RwSignal::new(None),
            resuming: StoredValue::new(false),
            readout: Memo::new(move |_| {
                frame.track();
                player.with_value(Player::readout)
            }),
            narration: Memo::new(move |_| {
                frame.track();
                player.with_value(|p| p.narration().clone())
            }),
            chart_key: Memo::new(move |_| {
                frame.track();
                player.with_value(|p| (p.run(), p.sample_count()))
            }),
            crash_target: Memo::new(move |_| {
                frame.track();
                player.with_value(|p| {
                    p.crash_target()
                        .and_then(|c| p.sim().consumer(c))
                        .map(|v| v.name)
                })
            }),
        }
    }

    /// Reads the player without tracking anything.
    pub fn with_player<U>(&self, f: impl FnOnce(&Player) -> U) -> U {
        self.player.with_value(f)
    }

    fn changed(&self) {
        self.frame.update(|n| *n = n.wrapping_add(1));
    }

    /// One animation frame: advances the run by `wall_ms` at the current speed.
    pub fn tick(&self, wall_ms: f64) {
        let wall_ms = if self.resuming.get_value() {
            self.resuming.set_value(false);
            wall_ms.min(FRAME_MS_NOMINAL)
        } else {
            wall_ms
        };
        let speed = self.speed.get_untracked();
        let more = frame_deadline();
        let Some(advance) = self
            .player
            .try_update_value(|p| p.advance_within(wall_ms, speed, more))
        else {
            return;
        };
        self.changed();
        if advance.finished {
            self.playing.set(false);
        }
    }

    /// Play, or pause; at the end of a run, play starts it again.
    pub fn toggle_play(&self) {
        if self.playing.get_untracked() {
            self.playing.set(false);
            // Paused: the narration may tell the very latest step.
            self.player.update_value(Player::refresh_narration);
            self.changed();
            return;
        }
        if self.player.with_value(Player::is_finished) {
            self.reset();
        }
        self.resuming.set_value(true);
        self.playing.set(true);
    }

    pub fn set_speed(&self, speed: f64) {
        if SPEEDS.contains(&speed) {
            self.speed.set(speed);
        }
    }

    /// Crashes the first consumer that is up (it restarts a few seconds later).
    pub fn crash(&self) {
        let result = self.player.try_update_value(Player::crash_consumer);
        if let Some(Err(e)) = result {
            self.error
                .set(Some(format!("The simulation refused the crash: {e}")));
        }
        self.changed();
    }

    /// Back to the start of the scenario, paused.
    pub fn reset(&self) {
        self.playing.set(false);
        if let Some(Err(e)) = self.player.try_update_value(Player::reset) {
            self.error
                .set(Some(format!("The scenario could not restart: {e}")));
        }
        self.changed();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::examples;

    /// A lab under its own reactive owner (dropped with the test).
    fn lab() -> (Owner, Lab) {
        let owner = Owner::new();
        owner.set();
        let player = Player::new(examples::load("burst").expect("built in")).expect("valid");
        (owner, Lab::new(player))
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
    fn only_offered_speeds_are_taken() {
        let (_owner, lab) = lab();
        assert_eq!(lab.speed.get_untracked(), SPEED_DEFAULT);
        lab.set_speed(3.0);
        assert_eq!(lab.speed.get_untracked(), SPEED_DEFAULT);
        lab.set_speed(0.5);
        assert_eq!(lab.speed.get_untracked(), 0.5);
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
}
