//! The scenario editor's and the schedule's side of the lab: an edited scenario, or one
//! with a fault scheduled or unscheduled, starts a new run paused at its start. A refusal
//! leaves the run on the page as it was.

use brokerlab_core::{Scenario, ScheduledCommand};
use leptos::prelude::{GetUntracked, Update, WithUntracked};

use crate::i18n::{locale, td_string};
use crate::model::player::Player;
use crate::model::scenario_text::{self, TextError};
use crate::model::schedule;
use crate::model::words::refusal_in;
use crate::state::Lab;

impl Lab {
    /// Starts a run of `scenario` from its start, paused (the user's live commands are
    /// not carried over: they belonged to the previous run). `Err` says why not.
    pub fn run_scenario(&self, scenario: Scenario) -> Result<(), String> {
        if crate::model::aggregated::runs_aggregated(&scenario) {
            return self.open_aggregated(scenario).map_err(|e| format!("{e}."));
        }
        let player = Player::new(scenario).map_err(|e| format!("{e}."))?;
        self.open_player(player);
        Ok(())
    }

    /// Applies the editor's text: checked by the core, then run from its start. A refusal
    /// is placed at its line (said in the page's language) and the run stays as it was.
    pub fn apply_scenario_text(&self, text: &str) -> Result<(), TextError> {
        let scenario = scenario_text::check(text, self.lang.get_untracked())?;
        self.run_scenario(scenario)
            .map_err(|message| TextError { line: 1, message })?;
        // A new text makes a new schedule: its unannounced faults are the hidden ones.
        self.take_faults();
        Ok(())
    }

    /// The editor's text for the scenario on the page.
    pub fn scenario_text(&self) -> String {
        // The base memo: an aggregated run's scenario, not its player's components at rest.
        self.base.with_untracked(scenario_text::text_of)
    }

    /// Adds a scheduled command to the scenario and starts it again from its start; says
    /// where in the list it went.
    pub fn schedule(&self, scheduled: ScheduledCommand) -> Result<usize, String> {
        let base = self.scenario_on_show();
        let at = schedule::insert_position(&base, scheduled.at_s);
        let next = schedule::with_added(&base, scheduled);
        next.validate().map_err(|e| {
            let lang = self.lang.get_untracked();
            let problem = refusal_in(&e, lang);
            td_string!(locale(lang), panels.schedule.refused, problem).to_string()
        })?;
        self.run_scenario(next)?;
        // The interview's hidden faults are the schedule's unannounced ones.
        self.take_faults();
        Ok(at)
    }

    /// A new scenario is on show: the interview hides its unannounced faults (none, in
    /// every example) and no other.
    pub fn take_faults(&self) {
        let scenario = self.scenario_on_show();
        self.interview.update(|i| i.take_faults(&scenario));
    }

    /// The scenario on show, without the user's commands: an aggregated run's own, not
    /// the player's stand-in for it (its components at rest, arriving at no rate), which
    /// a fault scheduled on `day-at-a-million` once replaced the day with.
    pub(crate) fn scenario_on_show(&self) -> Scenario {
        self.with_aggregated(|a| a.scenario().clone())
            .unwrap_or_else(|| self.with_player(|p| p.base().clone()))
    }

    /// Removes scheduled command number `index` and starts the scenario again.
    pub fn unschedule(&self, index: usize) -> Result<(), String> {
        let next = schedule::with_removed(&self.scenario_on_show(), index);
        self.run_scenario(next)?;
        self.take_faults();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::{Command, ConsumerId, CrashPoint};
    use leptos::prelude::*;

    fn lab() -> (Owner, Lab) {
        crate::state::lab::test_lab("mm1")
    }

    /// A fault scheduled on an aggregated run (or taken off again) keeps the scenario on
    /// show: it once took the player's stand-in for it, with no arrivals, and the day of
    /// flows became an empty run message by message.
    #[test]
    fn a_fault_scheduled_on_an_aggregated_run_keeps_its_scenario() {
        let (_owner, lab) = lab();
        lab.load("day-at-a-million");
        let before = lab.base.get_untracked();
        let crash = ScheduledCommand {
            at_s: 3_600.0,
            command: Command::CrashBroker {
                restart_after_s: Some(5.0),
            },
            unannounced: true,
        };
        lab.schedule(crash.clone()).expect("taken");
        assert!(lab.aggregated_on.get_untracked(), "still aggregated");
        let after = lab.base.get_untracked();
        assert_eq!(
            after.producers, before.producers,
            "the day's arrivals are kept"
        );
        assert_eq!(after.commands.last(), Some(&crash));
        lab.unschedule(after.commands.len() - 1).expect("taken off");
        assert_eq!(lab.base.get_untracked(), before);
        assert!(lab.aggregated_on.get_untracked());
    }

    #[test]
    fn an_edited_scenario_runs_from_its_start_and_a_refusal_keeps_the_run() {
        let (_owner, lab) = lab();
        for _ in 0..5 {
            lab.step();
        }
        let before = lab.readout.get_untracked();
        let text = lab.scenario_text();
        let bad = text.replace(
            "\"visibility_timeout_s\": 3600.0",
            "\"visibility_timeout_s\": -1.0",
        );
        assert_ne!(bad, text, "the example has that field");
        let e = lab.apply_scenario_text(&bad).expect_err("negative");
        assert!(
            e.message.starts_with("queues[0].visibility_timeout_s"),
            "{e:?}"
        );
        assert_eq!(lab.readout.get_untracked(), before, "the run is kept");
        let good = text.replace(
            "\"visibility_timeout_s\": 3600.0",
            "\"visibility_timeout_s\": 7.0",
        );
        lab.apply_scenario_text(&good).expect("valid");
        assert_eq!(
            lab.readout.get_untracked().step,
            0,
            "a new run, at its start"
        );
        assert_eq!(lab.base.get_untracked().queues[0].visibility_timeout_s, 7.0);
        assert_eq!(lab.settings.get_untracked().queues[0].visibility_s, 7.0);
    }

    #[test]
    fn a_scheduled_crash_happens_at_its_instant_and_can_be_removed() {
        let (_owner, lab) = lab();
        let crash = ScheduledCommand {
            at_s: 12.0,
            command: Command::CrashConsumer {
                consumer: ConsumerId::new(0),
                point: CrashPoint::Now,
                restart_after_s: Some(5.0),
            },
            unannounced: false,
        };
        lab.schedule(crash).expect("valid");
        assert_eq!(lab.base.get_untracked().commands.len(), 1);
        lab.seek(11.9);
        assert_eq!(lab.readout.get_untracked().crashes, 0);
        lab.seek(12.1);
        assert_eq!(lab.readout.get_untracked().crashes, 1);
        let refused = lab.schedule(ScheduledCommand {
            at_s: 1.0,
            command: Command::RestartConsumer {
                consumer: ConsumerId::new(40),
            },
            unannounced: false,
        });
        assert!(refused.is_err());
        assert_eq!(lab.base.get_untracked().commands.len(), 1, "kept as it was");
        lab.unschedule(0).expect("valid");
        assert!(lab.base.get_untracked().commands.is_empty());
        lab.seek(20.0);
        assert_eq!(lab.readout.get_untracked().crashes, 0);
    }
}
