//! What the chart reads from the run on show: the player's run, or the aggregated run's
//! cursor when one is open (see [`crate::model::aggregated`]). The chart calls these
//! instead of the player, so it draws and plays the same way in both modes.

use crate::model::chart_info::{ChartData, CrashMarker, Values};
use crate::model::player::Player;
use crate::state::Lab;

impl Lab {
    /// The chart's input now.
    pub fn chart_data(&self) -> ChartData {
        self.with_aggregated(|a| a.chart_data())
            .unwrap_or_else(|| self.with_player(Player::chart_data))
    }

    /// The chart's values nearest to `t_s`.
    pub fn chart_values_at(&self, t_s: f64) -> Values {
        self.with_aggregated(|a| a.values_at(t_s))
            .unwrap_or_else(|| self.with_player(|p| p.values_at(t_s)))
    }

    /// The chart's values now.
    pub fn chart_values_now(&self) -> Values {
        self.with_aggregated(|a| a.values_now())
            .unwrap_or_else(|| self.with_player(Player::values_now))
    }

    /// The prediction line's value at `t_s`.
    pub fn predicted_at(&self, t_s: f64) -> f64 {
        self.with_aggregated(|a| a.predicted_at(t_s))
            .unwrap_or_else(|| self.with_player(|p| p.predicted_at(t_s)))
    }

    /// The crashes the chart marks (none in an aggregated run: crashes there are rates).
    pub fn crash_markers(&self) -> Vec<CrashMarker> {
        self.with_aggregated(|_| Vec::new())
            .unwrap_or_else(|| self.with_player(|p| p.crash_markers().to_vec()))
    }

    /// The goodput line's last value (only with a dependency, never aggregated).
    pub fn goodput_now(&self) -> Option<f64> {
        self.with_aggregated(|_| None)
            .unwrap_or_else(|| self.with_player(Player::goodput_now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use leptos::prelude::*;

    fn lab() -> (Owner, Lab) {
        crate::state::lab::test_lab("burst")
    }

    #[test]
    fn the_day_example_opens_aggregated_and_plays_its_cursor() {
        let (_owner, lab) = lab();
        lab.load("day-at-a-million");
        assert_eq!(lab.error.get_untracked(), None);
        assert!(lab.aggregated_on.get_untracked());
        assert_eq!(lab.scenario.get_untracked().0, "day-at-a-million");
        assert_eq!(
            lab.base.get_untracked().producers[0]
                .arrivals
                .schedule
                .len(),
            3
        );
        assert_eq!(lab.timeline_end_s.get_untracked(), 86_400.0);
        assert_eq!(lab.crash_target.get_untracked(), None);
        lab.seek(43_200.0);
        let r = lab.readout.get_untracked();
        assert!(r.backlog.abs_diff(2_880_000_000) < 1_000_000, "{r:?}");
        assert_eq!(lab.chart_values_now().backlog, r.backlog);
        assert_eq!(lab.chart_data().backlog.last().map(|p| p.0), Some(43_200.0));
        assert_eq!(
            lab.chart_key.get_untracked().1,
            721,
            "samples 0..=720 drawn"
        );
        lab.step();
        assert_eq!(lab.readout.get_untracked().time_s, 43_260.0);
        lab.back();
        lab.back();
        assert_eq!(lab.readout.get_untracked().time_s, 43_140.0);
        lab.toggle_play();
        lab.tick(16.0);
        lab.tick(100.0);
        assert!(lab.readout.get_untracked().time_s > 43_140.0);
        lab.crash();
        assert_eq!(lab.readout.get_untracked().crashes, 0);
        assert!(lab
            .try_command(brokerlab_core::Command::SetConsumerCount {
                queue: "events".into(),
                count: 2,
            })
            .is_err());
        lab.seek(1e9);
        assert!(lab.readout.get_untracked().finished);
        lab.reset();
        assert_eq!(lab.readout.get_untracked().time_s, 0.0);
        // Another example is message by message again.
        lab.load("burst");
        assert!(!lab.aggregated_on.get_untracked());
        assert_eq!(lab.timeline_end_s.get_untracked(), 181.0);
        assert_eq!(lab.scenario.get_untracked().0, "burst");
    }
}
