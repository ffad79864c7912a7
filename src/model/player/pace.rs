//! The story's pace, read from a short preview of the run: how long the run that actually
//! happens lasts (the timeline and the chart end there, not at a scenario's idle end time
//! or a one-minute default), and the speed it opens at, so that a story of a few messages
//! plays slowly enough to see each event while a big run keeps the default speed.
//!
//! The run is deterministic, so the preview is the very run the page will play (until the
//! user gives a command). It is cut at [`PREVIEW_STEPS_MAX`] steps: a longer run keeps the
//! fluid model's horizon and the default speed.

use brokerlab_core::{us_to_secs, EndReason, Scenario, Simulation};

use super::{SPEEDS, SPEED_DEFAULT};

/// Steps the preview may take (the biggest short story, backpressure, takes about 3,200).
pub const PREVIEW_STEPS_MAX: u64 = 10_000;
/// A story of at most this many messages is "a few messages": it opens slowly.
pub const FEW_MESSAGES_MAX: usize = 20;
/// Events per wall-clock second a few-message story opens at, at most: about two, so each
/// can be read as it happens.
pub const STEPS_PER_WALL_S: f64 = 2.0;
/// The slowest and the fastest opening speeds of a few-message story.
pub const STORY_SPEED_MIN: f64 = 0.25;
pub const STORY_SPEED_MAX: f64 = 1.0;

/// What the preview found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pace {
    /// When the run ends: its last step when nothing is left to happen (even before the
    /// scenario's end time), or its end time. `None` when the preview did not reach it.
    pub end_s: Option<f64>,
    /// The speed the run opens at.
    pub speed: f64,
}

impl Pace {
    /// Previews `scenario` (a run that does not start is given the defaults).
    pub fn of(scenario: &Scenario) -> Self {
        Preview::start(scenario).pace()
    }
}

/// A preview under way, taken a slice at a time: the page takes its example's preview over
/// two tasks at load, so that neither holds the main thread long.
pub struct Preview {
    /// `None` when the run does not start.
    sim: Option<Simulation>,
    steps: u64,
    /// The run ended, or the preview took all the steps it may.
    done: bool,
}

impl Preview {
    /// A preview of `scenario`, no step taken yet.
    pub fn start(scenario: &Scenario) -> Self {
        let sim = Simulation::new(scenario.clone()).ok();
        let done = sim.is_none();
        Self {
            sim,
            steps: 0,
            done,
        }
    }

    /// Takes up to `most` more steps.
    pub fn advance(&mut self, most: u64) {
        let Some(sim) = &mut self.sim else {
            return;
        };
        let until = self.steps.saturating_add(most).min(PREVIEW_STEPS_MAX);
        while !self.done && self.steps < until {
            if sim.step().is_some() {
                self.steps += 1;
            } else {
                self.done = true;
            }
        }
        self.done |= self.steps >= PREVIEW_STEPS_MAX;
    }

    /// What the preview finds, once it has taken every step it may.
    pub fn pace(mut self) -> Pace {
        self.advance(PREVIEW_STEPS_MAX);
        let Some(sim) = &self.sim else {
            return Pace::default();
        };
        let Some(end_s) = end_of(sim) else {
            return Pace::default();
        };
        let few = sim.messages().len() <= FEW_MESSAGES_MAX;
        Pace {
            end_s: Some(end_s),
            speed: if few {
                story_speed(self.steps as f64 / end_s.max(1e-3))
            } else {
                SPEED_DEFAULT
            },
        }
    }
}

impl Default for Pace {
    fn default() -> Self {
        Self {
            end_s: None,
            speed: SPEED_DEFAULT,
        }
    }
}

/// When a previewed run ends, if it has: nothing left to happen ends it at its last step
/// (the clock stands there); its end time cuts it there.
fn end_of(sim: &Simulation) -> Option<f64> {
    match sim.end_reason()? {
        EndReason::Drained | EndReason::Stalled => Some(us_to_secs(sim.now_us())),
        EndReason::EndTime => sim.scenario().end_s,
        _ => None,
    }
}

/// The fastest offered speed at which `steps_per_s` (events per simulated second) come at
/// most [`STEPS_PER_WALL_S`] a wall-clock second, within the story speeds.
pub fn story_speed(steps_per_s: f64) -> f64 {
    SPEEDS
        .iter()
        .copied()
        .filter(|&s| (STORY_SPEED_MIN..=STORY_SPEED_MAX).contains(&s))
        .rfind(|&s| s * steps_per_s <= STEPS_PER_WALL_S)
        .unwrap_or(STORY_SPEED_MIN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::examples;

    fn pace(name: &str) -> Pace {
        Pace::of(&examples::load(name).expect("built in"))
    }

    #[test]
    fn a_preview_taken_in_slices_finds_what_one_taken_at_once_finds() {
        for name in examples::message_by_message() {
            let scenario = examples::load(name).expect("built in");
            let whole = Pace::of(&scenario);
            for slice in [1, 777, PREVIEW_STEPS_MAX / 2] {
                let mut preview = Preview::start(&scenario);
                for _ in 0..3 {
                    preview.advance(slice);
                }
                assert_eq!(preview.pace(), whole, "{name}, slices of {slice}");
            }
        }
        // The burst goes past the preview's steps: the slices stop there too.
        let mut burst = Preview::start(&examples::load("burst").expect("built in"));
        burst.advance(PREVIEW_STEPS_MAX * 2);
        assert_eq!((burst.steps, burst.done), (PREVIEW_STEPS_MAX, true));
    }

    #[test]
    fn a_few_messages_open_slowly_and_big_runs_keep_the_default() {
        for name in examples::message_by_message() {
            let p = pace(name);
            let messages = {
                let mut sim =
                    Simulation::new(examples::load(name).expect("built in")).expect("valid");
                sim.run_until(brokerlab_core::secs_to_us(p.end_s.unwrap_or(0.0)));
                sim.messages().len()
            };
            if p.end_s.is_some() && messages <= FEW_MESSAGES_MAX {
                assert!(
                    (STORY_SPEED_MIN..=STORY_SPEED_MAX).contains(&p.speed),
                    "{name}: {p:?}"
                );
            } else {
                assert_eq!(p.speed, SPEED_DEFAULT, "{name}: {p:?}");
            }
        }
        assert_eq!(pace("burst").speed, 10.0);
        assert_eq!(pace("mm1").speed, 10.0);
        assert_eq!(pace("crash-after-commit").speed, 1.0, "6 events in 6.5 s");
        assert_eq!(pace("outbox-relay-crash").speed, 0.25, "11 events in 2.5 s");
        assert_eq!(pace("ordering-account").speed, 0.5, "12 events in 4.7 s");
    }

    #[test]
    fn the_run_ends_where_it_drains_or_at_its_end_time() {
        assert_eq!(pace("crash-after-commit").end_s, Some(6.5));
        assert_eq!(pace("short-lease").end_s, Some(12.0), "cut by its end time");
        let pipeline = pace("transactional-pipeline").end_s.expect("short");
        assert!(
            pipeline < 10.0,
            "drains long before its 20 s end: {pipeline}"
        );
        assert_eq!(pace("burst").end_s, None, "longer than the preview");
    }

    #[test]
    fn the_story_speed_shows_about_two_events_a_second() {
        assert_eq!(story_speed(0.5), 1.0);
        assert_eq!(story_speed(2.0), 1.0);
        assert_eq!(story_speed(3.0), 0.5);
        assert_eq!(story_speed(5.0), 0.25);
        assert_eq!(story_speed(100.0), 0.25, "never slower than a quarter");
    }
}
