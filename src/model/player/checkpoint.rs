//! Playing to a lesson's checkpoint: while one is set, playing stops at the step that
//! meets it (the first redelivery, the backlog empty again…) and the clock does not run
//! past its instant; a lesson's earlier steps are replayed to theirs at once.

use brokerlab_core::lessons::{Checkpoint, Happening};
use brokerlab_core::Micros;

use super::Player;

impl Player {
    /// Playing stops at `checkpoint` (or never, with `None`).
    pub fn set_stop_at(&mut self, checkpoint: Option<Checkpoint>) {
        self.stop_at = checkpoint;
        self.checkpoint_hit = false;
    }

    /// Playing stopped at the checkpoint set, or the run stands at it already (its
    /// instant or its end).
    pub fn at_checkpoint(&self) -> bool {
        self.checkpoint_hit || self.checkpoint_met_at_rest()
    }

    /// The happening the checkpoint set waits for, whose facts the narration says first.
    pub(super) fn awaited(&self) -> Option<Happening> {
        match self.stop_at {
            Some(Checkpoint::Next(kind)) => Some(kind),
            _ => None,
        }
    }

    /// The instant playing must not pass: the checkpoint's, if it has one.
    pub(super) fn stop_deadline(&self) -> Micros {
        self.stop_at
            .and_then(|c| c.deadline_us())
            .unwrap_or(Micros::MAX)
    }

    /// A checkpoint at an instant is still ahead (and the work budget allows going on):
    /// the run is not over, even if nothing is left to happen before it.
    pub(super) fn before_checkpoint_instant(&self) -> bool {
        let deadline = self.stop_at.and_then(|c| c.deadline_us());
        deadline.is_some_and(|at| at > self.sim.now_us()) && self.budget_stop().is_none()
    }

    /// The step just taken meets the checkpoint.
    pub(super) fn checkpoint_met(&self) -> bool {
        self.stop_at
            .is_some_and(|c| c.met_by(&self.sim, &self.story.latest))
    }

    /// The run at rest (between frames) stands at a checkpoint of an instant or of the
    /// end. A checkpoint of a happening is met only by a step taken towards it: the latest
    /// facts may be those of the previous checkpoint.
    pub(super) fn checkpoint_met_at_rest(&self) -> bool {
        self.stop_at.is_some_and(|c| {
            matches!(c, Checkpoint::At { .. } | Checkpoint::End) && c.met_by(&self.sim, &[])
        })
    }

    /// Plays to `checkpoint` at once, as [`Checkpoint::play`] does for the runner (a step
    /// first, then the check), keeping the story and snapshots. True when it was
    /// reached; false when the run ended first (its work budget bounds every run).
    pub fn run_to(&mut self, checkpoint: Checkpoint) -> bool {
        let deadline = checkpoint.deadline_us().unwrap_or(Micros::MAX);
        let mut met = false;
        while !met && self.sim.next_step_time().is_some_and(|at| at <= deadline) {
            if !self.take_step() {
                break;
            }
            met = !matches!(checkpoint, Checkpoint::At { .. } | Checkpoint::End)
                && checkpoint.met_by(&self.sim, &self.story.latest);
        }
        // As the runner does: an instant is reached even in a quiet run, and the end is
        // the run's end time when it has one.
        match checkpoint {
            Checkpoint::At { .. } => {
                self.sim.run_until(deadline);
            }
            Checkpoint::End => self.sim.run(),
            _ => {}
        }
        self.note_time();
        // Re-simulating is not movement to show.
        self.flights.clear();
        self.refresh_narration();
        met || checkpoint.met_by(&self.sim, &[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::examples;
    use brokerlab_core::lessons::{self, Happening};

    fn player(name: &str) -> Player {
        Player::new(examples::load(name).expect("built in")).expect("valid")
    }

    #[test]
    fn playing_stops_at_an_instant_and_not_past_it() {
        let mut p = player("burst");
        p.set_stop_at(Some(Checkpoint::At { s: 12.5 }));
        let mut stopped = false;
        for _ in 0..400 {
            let a = p.advance(100.0, 10.0);
            if a.checkpoint {
                stopped = true;
                break;
            }
        }
        assert!(stopped);
        assert_eq!(p.sim().now_us(), 12_500_000);
        p.set_stop_at(None);
        p.advance(100.0, 10.0);
        assert!(p.sim().now_us() > 12_500_000, "free to go on once cleared");
    }

    #[test]
    fn stopping_at_an_instant_after_fast_play_narrates_the_step_it_stopped_at() {
        // At 20× a frame covers far more steps than the narration's refresh pace: the
        // stop must refresh it, or the narration and the event log tell a step from
        // seconds before (52.3 s where the run stood at 60 s).
        let mut p = player("burst");
        p.set_stop_at(Some(Checkpoint::At { s: 60.0 }));
        let mut stopped = false;
        for _ in 0..2_000 {
            if p.advance(40.0, 20.0).checkpoint {
                stopped = true;
                break;
            }
        }
        assert!(stopped);
        let told = p.narration(brokerlab_core::lessons::Lang::En);
        assert_eq!(told.log.first().map(|l| l.step), Some(p.sim().steps()));
        let last_step_s = told.time_s;
        assert!(last_step_s > 59.9 && last_step_s <= 60.0, "{last_step_s}");
    }

    #[test]
    fn a_quiet_run_plays_on_to_a_checkpoint_at_an_instant() {
        let lesson = lessons::find("queue-vs-topic").expect("a lesson");
        let mut p = player(lesson.scenario);
        let checkpoint = lesson.steps[0].checkpoint;
        assert_eq!(checkpoint, Checkpoint::At { s: 12.0 });
        p.set_stop_at(Some(checkpoint));
        let mut stopped = false;
        for _ in 0..2_000 {
            let a = p.advance(50.0, 10.0);
            assert!(
                !a.finished || a.checkpoint,
                "not over before the checkpoint"
            );
            if a.checkpoint {
                stopped = true;
                break;
            }
        }
        assert!(stopped);
        assert_eq!(p.sim().now_us(), 12_000_000);
        assert!(p.at_checkpoint());
    }

    #[test]
    fn playing_stops_at_the_step_of_the_first_redelivery() {
        let mut p = player("crash-after-commit");
        p.set_stop_at(Some(Checkpoint::Next(Happening::Redelivery)));
        let mut stop = None;
        for _ in 0..2_000 {
            let a = p.advance(50.0, 1.0);
            if a.checkpoint {
                stop = Some(p.sim().steps());
                break;
            }
        }
        let stop = stop.expect("the redelivery comes");
        // The runner's way to the same checkpoint stops at the same step.
        let mut sim = examples::load("crash-after-commit")
            .map(|s| brokerlab_core::Simulation::new(s).expect("valid"))
            .expect("built in");
        assert!(Checkpoint::Next(Happening::Redelivery).play(&mut sim));
        assert_eq!(sim.steps(), stop);
    }

    #[test]
    fn the_narration_at_a_lessons_checkpoint_tells_what_it_waited_for() {
        // exactly-once's first step stops at the step where a member crashes with a
        // record processed in its open transaction: three facts or more, of which the
        // abort is not one the line would otherwise pick.
        let mut waited = 0;
        for lesson in lessons::all() {
            let mut p = player(lesson.scenario);
            for step in &lesson.steps {
                p.set_stop_at(Some(step.checkpoint));
                p.run_to(step.checkpoint);
                let Checkpoint::Next(kind) = step.checkpoint else {
                    continue;
                };
                waited += 1;
                let told = p.story.told_with_key(p.awaited());
                assert!(
                    told.said().iter().any(|f| kind.matches(f)),
                    "{}: {kind:?} not told in {:?}",
                    lesson.name,
                    told.said()
                );
            }
        }
        assert!(waited >= 15, "{waited}");
        let lesson = lessons::find("exactly-once").expect("a lesson");
        let mut p = player(lesson.scenario);
        let checkpoint = lesson.steps[0].checkpoint;
        assert_eq!(checkpoint, Checkpoint::Next(Happening::TransactionAborted));
        p.set_stop_at(Some(checkpoint));
        p.run_to(checkpoint);
        let line = p
            .narration(brokerlab_core::lessons::Lang::En)
            .sentences
            .join(" ");
        assert!(line.contains("abort"), "{line}");
        assert!(
            !p.story
                .told()
                .said()
                .iter()
                .any(|f| Happening::TransactionAborted.matches(f)),
            "without the key the abort is left out, so the test can fail"
        );
    }

    #[test]
    fn a_lessons_checkpoints_replayed_at_once_match_the_runners() {
        for lesson in lessons::all() {
            let mut p = player(lesson.scenario);
            let mut sim = lesson.simulation();
            for (i, step) in lesson.steps.iter().enumerate() {
                let reached = p.run_to(step.checkpoint);
                let core = step.checkpoint.play(&mut sim);
                assert_eq!(
                    reached,
                    core,
                    "{} {i}: page at {} step {}, core at {} step {}",
                    lesson.name,
                    p.sim().now_us(),
                    p.sim().steps(),
                    sim.now_us(),
                    sim.steps()
                );
                assert_eq!(p.sim().steps(), sim.steps(), "{} step {i}", lesson.name);
                assert_eq!(p.sim().now_us(), sim.now_us(), "{} step {i}", lesson.name);
            }
        }
    }
}
