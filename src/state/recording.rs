//! What a recording needs from the run: to play on to a frame's time (the tokens fly as
//! when playing, unlike a seek), and where the run is now, to go back there afterwards.

use brokerlab_core::{secs_to_us, us_to_secs};
use leptos::prelude::*;

use crate::i18n::td_string;
use crate::model::player::{Player, FRAME_WALL_MS_MAX};
use crate::state::Lab;

/// The most calls to the player one frame of a recording makes (each takes many steps);
/// a run that cannot get further (its end, a lesson's checkpoint) stops sooner.
const ADVANCES_MAX: usize = 1_000;

impl Lab {
    /// The run's simulated time now, seconds.
    pub fn now_s(&self) -> f64 {
        self.with_player(|p| us_to_secs(p.sim().now_us()))
    }

    /// The run's step now.
    pub fn step_now(&self) -> u64 {
        self.with_player(|p| p.sim().steps())
    }

    /// Back (or on) to step `step`, paused: where a recording found the run.
    pub fn return_to_step(&self, step: u64) {
        self.playing.set(false);
        if let Some(Err(e)) = self.update_player(|p| p.go_to_step(step)) {
            self.refused(e, |l, why| {
                td_string!(l, common.errors.seek_failed, why).to_string()
            });
        }
    }

    /// Plays the run on to simulated time `t_s` (not back), paused; the message tokens of
    /// the way are kept for the overlay, as when playing.
    pub fn play_to(&self, t_s: f64) {
        self.playing.set(false);
        let target = secs_to_us(t_s.max(0.0));
        self.update_player(|p| advance_to(p, target));
    }
}

/// Advances `player` to `target` microseconds, however many frames' worth of steps it takes.
fn advance_to(player: &mut Player, target: u64) {
    for _ in 0..ADVANCES_MAX {
        let now = player.sim().now_us();
        if now >= target || player.is_finished() {
            return;
        }
        // The longest frame the player takes, at the speed that reaches `target` in it.
        let speed = us_to_secs(target - now) * 1_000.0 / FRAME_WALL_MS_MAX;
        player.advance(FRAME_WALL_MS_MAX, speed);
        if player.sim().now_us() == now {
            return; // held (a checkpoint, a breach at this very step)
        }
    }
}

#[cfg(test)]
mod tests {
    use leptos::prelude::*;

    use crate::model::flights::FlightBuffer;

    #[test]
    fn playing_to_a_time_reaches_it_paused_with_tokens_to_show() {
        let (_owner, lab) = crate::state::lab::test_lab("burst");
        lab.toggle_play();
        lab.play_to(2.5);
        assert_eq!(lab.now_s(), 2.5);
        assert!(!lab.playing.get_untracked());
        let mut flights = FlightBuffer::default();
        lab.drain_flights(&mut flights);
        assert!(
            !flights.is_empty(),
            "the burst moves messages in its first seconds"
        );
        // Never back: an earlier time leaves the run where it is.
        lab.play_to(1.0);
        assert_eq!(lab.now_s(), 2.5);
        let steps = lab.step_now();
        lab.play_to(4.0);
        lab.return_to_step(steps);
        // The same step: the clock reads that step's instant, the last event at or
        // before 2.5 s (playing had moved it on to 2.5 s between events).
        assert_eq!(lab.step_now(), steps);
        assert!((2.4..=2.5).contains(&lab.now_s()), "{}", lab.now_s());
    }
}
