//! How long one frame may spend simulating while the page plays. A frame is one task on
//! the page's main thread: the simulation's share, then the views' updates, layout and
//! paint. The views' share varies a lot (a frame in which the event log, the narration
//! and the chart's axes all change costs several quiet ones), so the simulation's share
//! adapts to what the frames cost: it halves after a frame that came later than the
//! long-task line, and grows back a little with each frame that did not. Simulated time
//! falls a little behind during heavy stretches instead of the page stalling.

/// The browser's definition of a long task: what the page must not block for.
pub const LONG_TASK_MS: f64 = 50.0;
/// The simulation's share of a frame when frames are cheap.
pub const WORK_MS_MAX: f64 = 10.0;
/// The least it gets, so a heavy stretch still moves on.
pub const WORK_MS_MIN: f64 = 4.0;
/// What a short frame gives back: from the least to the most in twelve short frames
/// (a fifth of a second at 60 Hz).
const GROW_MS: f64 = 0.5;

/// The simulation's share of the next frame, learnt from the frames so far.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameBudget {
    work_ms: f64,
}

impl Default for FrameBudget {
    fn default() -> Self {
        Self {
            work_ms: WORK_MS_MAX,
        }
    }
}

impl FrameBudget {
    /// The share for the frame that begins `interval_ms` after the previous one began
    /// (what `requestAnimationFrame` reports). A frame that ran long shows as a long
    /// interval; an unreadable interval changes nothing.
    pub fn next(&mut self, interval_ms: f64) -> f64 {
        if interval_ms.is_finite() && interval_ms >= 0.0 {
            self.work_ms = if interval_ms > LONG_TASK_MS {
                (self.work_ms / 2.0).max(WORK_MS_MIN)
            } else {
                (self.work_ms + GROW_MS).min(WORK_MS_MAX)
            };
        }
        self.work_ms
    }

    /// The share now, without learning from a frame (the first frame after a pause: its
    /// interval counts the pause, not the work).
    pub fn work_ms(&self) -> f64 {
        self.work_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cheap_frames_keep_the_whole_share() {
        let mut b = FrameBudget::default();
        for _ in 0..100 {
            assert_eq!(b.next(16.7), WORK_MS_MAX);
        }
    }

    #[test]
    fn a_long_frame_halves_the_share_down_to_the_least_and_short_ones_give_it_back() {
        let mut b = FrameBudget::default();
        assert_eq!(b.next(80.0), WORK_MS_MAX / 2.0);
        assert_eq!(b.next(60.0), (WORK_MS_MAX / 4.0).max(WORK_MS_MIN));
        for _ in 0..10 {
            b.next(120.0);
        }
        assert_eq!(b.work_ms(), WORK_MS_MIN, "never below the least");
        let frames_back = ((WORK_MS_MAX - WORK_MS_MIN) / GROW_MS).ceil() as usize;
        for _ in 0..frames_back - 1 {
            assert!(b.next(33.0) < WORK_MS_MAX);
        }
        assert_eq!(b.next(33.0), WORK_MS_MAX);
    }

    #[test]
    fn the_line_is_the_long_task_line_and_nonsense_changes_nothing() {
        let mut b = FrameBudget::default();
        b.next(LONG_TASK_MS);
        assert_eq!(b.work_ms(), WORK_MS_MAX, "exactly 50 ms is not a long task");
        b.next(LONG_TASK_MS + 0.1);
        assert_eq!(b.work_ms(), WORK_MS_MAX / 2.0);
        for nonsense in [f64::NAN, f64::INFINITY, -5.0] {
            assert_eq!(b.next(nonsense), WORK_MS_MAX / 2.0);
        }
    }
}
