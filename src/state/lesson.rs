//! The lesson on the page, if one is open: its guide (step, predictions, phase) in
//! `Lab::guide`, the language it speaks in `Lab::lang`. Playing a step sets the step's
//! checkpoint on the player, plays at the chosen speed and pauses there; then the
//! explanation shows.

use brokerlab_core::lessons::{Answer, Checkpoint};
use brokerlab_core::link::LessonView;
use leptos::prelude::*;

use crate::i18n::{locale, td_string};
use crate::model::concealed::{chart_concealed, hides_the_verdict, ChartConcealed};
use crate::model::lesson::{Guide, Phase};
use crate::model::player::Player;
use crate::model::words::Words;
use crate::state::Lab;

impl Lab {
    /// What the chart leaves out now: what would read out the answer of the step on
    /// show, while the learner predicts it (nothing without a lesson, and nothing once
    /// "Play and see" is pressed).
    pub fn chart_concealed(&self) -> ChartConcealed {
        self.guide.with(|g| {
            g.as_ref()
                .filter(|g| g.phase == Phase::Predict)
                .map(|g| self.with_player(|p| chart_concealed(p.sim(), g.step())))
                .unwrap_or_default()
        })
    }

    /// Whether the verdict on the load is hidden now: the step on show asks, as a
    /// choice, what the backlog will do (its tooltip must not say it either).
    pub fn verdict_concealed(&self) -> bool {
        self.guide.with(|g| {
            g.as_ref()
                .is_some_and(|g| g.phase == Phase::Predict && hides_the_verdict(g.step()))
        })
    }

    /// Opens lesson `name` at its first step, on a fresh run of its scenario.
    pub fn open_lesson(&self, name: &str) {
        let Some(guide) = Guide::open(name) else {
            let name = name.to_string();
            self.error.set(Some(Words::new(move |lang| {
                td_string!(locale(lang), common.errors.no_lesson, name = &name).to_string()
            })));
            return;
        };
        self.load(guide.lesson.scenario);
        self.update_player(|p| p.set_stop_at(None));
        self.guide.set(Some(guide));
    }

    /// Puts back the lesson a link was showing (its run is already where the link says).
    pub fn restore_lesson(&self, view: &LessonView) {
        let Some(mut guide) = Guide::open(&view.name) else {
            let name = view.name.clone();
            self.error.set(Some(Words::new(move |lang| {
                td_string!(locale(lang), common.errors.lost_lesson, name = &name).to_string()
            })));
            return;
        };
        // A lesson runs on its own example: on another scenario its steps would ask about
        // components and figures that are not there (and the page would close it at once).
        let shown = self.scenario.with_untracked(|(name, _)| name.clone());
        if guide.lesson.scenario != shown {
            let (name, example) = (view.name.clone(), guide.lesson.scenario);
            self.error.set(Some(Words::new(move |lang| {
                td_string!(
                    locale(lang),
                    common.errors.lesson_elsewhere,
                    name = &name,
                    example,
                    shown = &shown
                )
                .to_string()
            })));
            return;
        }
        guide.restore_answers(&view.answers);
        guide.go_to(view.step);
        // The page reveals a step only once it was answered and played to its checkpoint,
        // which the link's run then stands at. A link that says a step is revealed
        // without its answer, or names a step the lesson lacks, was not made by the page:
        // its run need not stand at that checkpoint, and the figures read there would be
        // another moment's. It opens the step to predict.
        let made_here = guide.answered().is_some() && view.step == guide.index;
        if view.revealed && made_here {
            self.with_player(|p| guide.reveal(true, p.sim()));
        }
        self.guide.set(Some(guide));
    }

    /// What a link says of the lesson on show.
    pub fn lesson_view(&self) -> Option<LessonView> {
        self.guide.with_untracked(|g| {
            g.as_ref().map(|g| LessonView {
                name: g.lesson.name.to_string(),
                step: g.index,
                revealed: matches!(g.phase, Phase::Revealed { .. }),
                answers: g.answers_for_link(),
            })
        })
    }

    pub fn close_lesson(&self) {
        self.guide.set(None);
        self.update_player(|p| p.set_stop_at(None));
    }

    /// Takes back the prediction on show (its field no longer holds an answer).
    pub fn forget_lesson_answer(&self) {
        self.guide
            .update(|g| g.as_mut().map_or((), Guide::forget_answer));
    }

    pub fn answer_lesson(&self, answer: Answer) {
        self.guide.update(|g| {
            if let Some(g) = g {
                g.answer(answer);
            }
        });
    }

    /// Plays the run to the step's checkpoint (revealed at once if the run is there).
    pub fn play_lesson_step(&self) {
        let Some(checkpoint) = self.lesson_checkpoint() else {
            return;
        };
        self.guide.update(|g| g.as_mut().map_or((), Guide::play));
        self.update_player(|p| p.set_stop_at(Some(checkpoint)));
        if self.with_player(Player::at_checkpoint) {
            self.reveal_lesson_step();
        } else {
            self.play();
        }
    }

    /// On to the next step (after the reveal).
    pub fn next_lesson_step(&self) {
        self.guide.update(|g| {
            if let Some(g) = g {
                g.next_step();
            }
        });
        self.update_player(|p| p.set_stop_at(None));
    }

    /// Back to the previous step: the run is replayed to the checkpoint before it.
    pub fn previous_lesson_step(&self) {
        let Some((scenario, target, before)) = self.guide.with_untracked(|g| {
            g.as_ref().map(|g| {
                let target = g.index.saturating_sub(1);
                let before: Vec<Checkpoint> = g.lesson.steps[..target]
                    .iter()
                    .map(|s| s.checkpoint)
                    .collect();
                (g.lesson.scenario, target, before)
            })
        }) else {
            return;
        };
        self.load(scenario);
        self.update_player(|p| {
            for checkpoint in before {
                p.run_to(checkpoint);
            }
        });
        self.guide.update(|g| {
            if let Some(g) = g {
                g.go_to(target);
            }
        });
    }

    /// A revealed step whose run was moved back before its checkpoint (a seek, a step
    /// back) asks its question again. Called as the clock moves; the guide is written only
    /// when that happens.
    pub(crate) fn rewind_lesson(&self) {
        let steps = self.with_player(|p| p.sim().steps());
        let rewound = self
            .guide
            .with_untracked(|g| g.as_ref().is_some_and(|g| g.rewound_before_reveal(steps)));
        if rewound {
            self.guide
                .update(|g| g.as_mut().map_or((), |g| g.rewind(steps)));
        }
    }

    fn lesson_checkpoint(&self) -> Option<Checkpoint> {
        self.guide
            .with_untracked(|g| g.as_ref().map(|g| g.step().checkpoint))
    }

    fn reveal_lesson_step(&self) {
        let at_end = self.lesson_checkpoint() == Some(Checkpoint::End);
        // "The end" of a run with an end time is that time, as `brokerlab lesson` says
        // ("Paused at 120.0 s"): a run that drains first stopped wherever the frame
        // caught it after its last step (119.0 s one time, 119.3 s another).
        let end_s = self.with_player(|p| p.sim().scenario().end_s);
        if let Some(end_s) = end_s.filter(|_| at_end) {
            if self.readout.with_untracked(|r| r.time_s) < end_s {
                self.seek(end_s);
            }
        }
        let reached = self.with_player(|p| p.at_checkpoint() || (at_end && p.is_finished()));
        self.update_player(|p| p.set_stop_at(None));
        self.guide.update(|g| {
            if let Some(g) = g {
                self.with_player(|p| g.reveal(reached, p.sim()));
            }
        });
    }

    /// Follows the lesson on show: when playing stops during a step (at its checkpoint,
    /// or at the run's end) the explanation is revealed; a scenario picked by hand closes
    /// the lesson.
    pub fn follow_lessons(&self) {
        let lab = *self;
        Effect::new(move |_| {
            let playing = lab.playing.get();
            let phase = lab.guide.with(|g| g.as_ref().map(|g| g.phase));
            let stopped = || lab.with_player(|p| p.at_checkpoint() || p.is_finished());
            if phase == Some(Phase::Playing) && !playing && stopped() {
                lab.reveal_lesson_step();
            }
        });
        Effect::new(move |_| {
            let name = lab.scenario.with(|(n, _)| n.clone());
            let other = lab
                .guide
                .with_untracked(|g| g.as_ref().is_some_and(|g| g.lesson.scenario != name));
            if other {
                lab.close_lesson();
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::lab::test_lab;
    use brokerlab_core::lessons::Lang;

    fn revealed(lab: Lab) -> Option<bool> {
        lab.guide.with_untracked(|g| {
            g.as_ref()
                .map(|g| matches!(g.phase, Phase::Revealed { .. }))
        })
    }

    #[test]
    fn scrubbing_back_before_the_checkpoint_returns_the_step_to_its_question() {
        let (_owner, lab) = test_lab("mm1");
        lab.open_lesson("retries-and-dlq");
        lab.answer_lesson(Answer::Choice(0));
        lab.play_lesson_step();
        let checkpoint = lab.lesson_checkpoint().expect("a step");
        lab.update_player(|p| p.run_to(checkpoint));
        lab.reveal_lesson_step();
        assert_eq!(revealed(lab), Some(true));
        lab.step();
        assert_eq!(revealed(lab), Some(true), "a step on keeps it");
        lab.seek(0.5);
        assert_eq!(revealed(lab), Some(false), "back to its question");
    }

    /// A step whose checkpoint is the end of a run with an end time is revealed at that
    /// time, as `brokerlab lesson` says, wherever the frame caught the drained run.
    #[test]
    fn the_chart_hides_a_steps_answer_until_play_and_see() {
        let (_owner, lab) = test_lab("mm1");
        assert_eq!(
            lab.chart_concealed(),
            ChartConcealed::default(),
            "no lesson"
        );
        lab.open_lesson("backlog-arithmetic");
        let prediction = ChartConcealed {
            prediction: true,
            ..ChartConcealed::default()
        };
        assert_eq!(lab.chart_concealed(), prediction, "how many wait at 60 s?");
        lab.answer_lesson(Answer::Number(60_000.0));
        lab.play_lesson_step();
        assert_eq!(lab.chart_concealed(), ChartConcealed::default(), "playing");
        let checkpoint = lab.lesson_checkpoint().expect("a step");
        lab.update_player(|p| p.run_to(checkpoint));
        lab.reveal_lesson_step();
        assert_eq!(lab.chart_concealed(), ChartConcealed::default(), "revealed");
        lab.next_lesson_step();
        // How old is the oldest at 60 s, with the run standing at 60 s.
        let age = ChartConcealed {
            oldest_age: true,
            ..prediction
        };
        assert_eq!(lab.chart_concealed(), age);
        lab.seek(30.0);
        assert_eq!(
            lab.chart_concealed(),
            prediction,
            "at 30 s the age drawn is no answer"
        );
    }

    #[test]
    fn the_end_of_a_run_with_an_end_time_is_that_time() {
        let (_owner, lab) = test_lab("mm1");
        lab.open_lesson("poll-interval");
        while lab.lesson_checkpoint() != Some(Checkpoint::End) {
            lab.answer_lesson(Answer::Number(0.0));
            lab.answer_lesson(Answer::Choice(0));
            lab.play_lesson_step();
            let checkpoint = lab.lesson_checkpoint().expect("a step");
            lab.update_player(|p| p.run_to(checkpoint));
            lab.reveal_lesson_step();
            lab.next_lesson_step();
        }
        let end_s = lab
            .with_player(|p| p.sim().scenario().end_s)
            .expect("an end");
        lab.answer_lesson(Answer::Number(0.0));
        lab.play_lesson_step();
        lab.update_player(|p| p.run_to(Checkpoint::End));
        // Drained: a frame stopped it a little before its end time.
        lab.seek(end_s - 1.0);
        lab.reveal_lesson_step();
        assert_eq!(lab.readout.get_untracked().time_s, end_s);
        assert_eq!(revealed(lab), Some(true));
    }

    #[test]
    fn a_link_whose_scenario_is_not_its_lessons_says_so_and_opens_without_it() {
        let (_owner, lab) = test_lab("mm1");
        lab.restore_lesson(&LessonView {
            name: "backlog-arithmetic".into(),
            ..LessonView::default()
        });
        assert_eq!(revealed(lab), None, "no lesson on show");
        let said = lab.error.get_untracked().expect("said");
        assert_eq!(
            said.text(Lang::En),
            "This link's lesson “backlog-arithmetic” runs on the example “burst”, \
             but the link shows “mm1”: its run opened without the lesson."
        );
        assert!(said
            .text(Lang::Es)
            .starts_with("La lección «backlog-arithmetic» de este enlace usa el ejemplo «burst»"));
        // On its own example, it opens with nothing to say.
        let (_owner, lab) = test_lab("burst");
        lab.restore_lesson(&LessonView {
            name: "backlog-arithmetic".into(),
            ..LessonView::default()
        });
        assert_eq!(revealed(lab), Some(false));
        assert!(lab.error.get_untracked().is_none());
    }

    #[test]
    fn a_link_reveals_a_step_only_as_the_page_would_have() {
        let (_owner, lab) = test_lab("transactional-pipeline");
        let view = |step, answers: Vec<Option<f64>>| LessonView {
            name: "exactly-once".into(),
            step,
            revealed: true,
            answers,
        };
        // Answered, at a step the lesson has: revealed, as the page left it.
        lab.restore_lesson(&view(0, vec![Some(1.0)]));
        assert_eq!(revealed(lab), Some(true));
        // Revealed with no answer, or at step 99 (none such): the step opens to predict.
        lab.restore_lesson(&view(0, Vec::new()));
        assert_eq!(revealed(lab), Some(false));
        lab.restore_lesson(&view(99, vec![Some(1.0); 100]));
        assert_eq!(revealed(lab), Some(false));
    }
}
