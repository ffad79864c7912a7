//! The side panels beside the stage: which ones exist, what their tabs say, and which one
//! a page event opens. The stage (topology, chart) never moves; these open beside it.

use brokerlab_core::lessons::Lang;

use crate::i18n::{locale, td_string};

/// When a panel's content is mounted (see `Panel::mounting`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mounting {
    /// From the page's first frame.
    Always,
    /// From the first time its tab is shown, and kept (hidden) after.
    OnceShown,
    /// Only while its tab is on show.
    WhileShown,
}

/// One panel of the side area, shown one at a time under its tab.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Panel {
    /// What the run has done and holds, and latency percentiles.
    #[default]
    Counters,
    /// Notable events and the event log.
    Story,
    /// Rates, service times and the other settings, editable while the run plays.
    Parameters,
    /// The scenario's JSON, editable, and its scheduled faults.
    Scenario,
    /// The live properties (no loss, no duplicate effect, …).
    Invariants,
    /// One message's history as a sequence diagram.
    History,
    /// Partitioned logs and their consumer groups.
    Logs,
    /// Interview mode: the review's ten questions with notes, and hidden faults.
    Interview,
}

impl Panel {
    /// Every panel, in tab order.
    pub const ALL: [Panel; 8] = [
        Panel::Counters,
        Panel::Story,
        Panel::Parameters,
        Panel::Scenario,
        Panel::Invariants,
        Panel::History,
        Panel::Logs,
        Panel::Interview,
    ];

    /// The tab's text.
    pub fn label(self, lang: Lang) -> String {
        let l = locale(lang);
        match self {
            Panel::Counters => td_string!(l, panels.tabs.counters),
            Panel::Story => td_string!(l, panels.tabs.story),
            Panel::Parameters => td_string!(l, panels.tabs.parameters),
            Panel::Scenario => td_string!(l, panels.tabs.scenario),
            Panel::Invariants => td_string!(l, panels.tabs.invariants),
            Panel::History => td_string!(l, panels.tabs.history),
            Panel::Logs => td_string!(l, panels.tabs.logs),
            Panel::Interview => td_string!(l, panels.tabs.interview),
        }
        .to_string()
    }

    /// A stable name for ids and test hooks (`tab-counters`, `panel-counters`).
    pub fn key(self) -> &'static str {
        match self {
            Panel::Counters => "counters",
            Panel::Story => "story",
            Panel::Parameters => "parameters",
            Panel::Scenario => "scenario",
            Panel::Invariants => "invariants",
            Panel::History => "history",
            Panel::Logs => "logs",
            Panel::Interview => "interview",
        }
    }

    /// Whether the tab is offered: the logs panel only when the scenario has a log.
    pub fn offered(self, has_logs: bool) -> bool {
        self != Panel::Logs || has_logs
    }

    /// When the panel's content is in the page. The counters (the panel on show at load)
    /// and the story (the narration is the page's running account; its event log already
    /// skips rebuilding while hidden) are always there. A panel holding what the user typed
    /// or chose in it (a half-edited scenario, a field's error) keeps it only while mounted,
    /// so those stay once opened. The rest show only what the lab holds and are mounted only
    /// while on show: the page mounts two panels at load instead of eight, and a playing
    /// run does not update the invariants, the logs or a history nobody sees.
    pub fn mounting(self) -> Mounting {
        match self {
            Panel::Counters | Panel::Story => Mounting::Always,
            Panel::Parameters | Panel::Scenario | Panel::Interview => Mounting::OnceShown,
            Panel::Invariants | Panel::History | Panel::Logs => Mounting::WhileShown,
        }
    }

    /// Whether the panel's content is mounted now, given whether it is on show and whether
    /// it was mounted a moment ago.
    pub fn mounted(self, shown: bool, was_mounted: bool) -> bool {
        match self.mounting() {
            Mounting::Always => true,
            Mounting::OnceShown => shown || was_mounted,
            Mounting::WhileShown => shown,
        }
    }

    /// The tab `by` places after (or before) this one among the offered tabs, wrapping
    /// around: what the arrow keys do on the tab strip.
    pub fn next(self, by: i32, has_logs: bool) -> Panel {
        let offered: Vec<Panel> = Self::ALL
            .into_iter()
            .filter(|p| p.offered(has_logs))
            .collect();
        let at = offered.iter().position(|&p| p == self).unwrap_or(0) as i32;
        let n = offered.len() as i32;
        offered[(at + by).rem_euclid(n) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_labels_are_unique() {
        let mut keys: Vec<_> = Panel::ALL.iter().map(|p| p.key()).collect();
        let mut labels: Vec<_> = Panel::ALL.iter().map(|p| p.label(Lang::En)).collect();
        keys.sort_unstable();
        keys.dedup();
        labels.sort_unstable();
        labels.dedup();
        assert_eq!(keys.len(), Panel::ALL.len());
        assert_eq!(labels.len(), Panel::ALL.len());
    }

    #[test]
    fn the_tabs_are_named_in_spanish_too() {
        assert_eq!(Panel::Counters.label(Lang::En), "Counters");
        assert_eq!(Panel::Counters.label(Lang::Es), "Contadores");
        assert_eq!(Panel::Story.label(Lang::Es), "Eventos");
    }

    #[test]
    fn arrows_wrap_around_the_offered_tabs() {
        assert_eq!(Panel::Counters.next(1, false), Panel::Story);
        assert_eq!(Panel::Counters.next(-1, false), Panel::Interview);
        assert_eq!(Panel::Parameters.next(1, false), Panel::Scenario);
        assert_eq!(Panel::History.next(1, false), Panel::Interview);
        assert_eq!(Panel::History.next(1, true), Panel::Logs);
        assert_eq!(Panel::Logs.next(1, true), Panel::Interview);
        assert_eq!(Panel::Interview.next(1, true), Panel::Counters);
    }

    #[test]
    fn the_invariants_logs_and_history_are_mounted_only_while_on_show() {
        // Shown, then hidden: whether each panel's content is still in the page.
        let kept: Vec<_> = Panel::ALL
            .into_iter()
            .filter(|p| p.mounted(false, p.mounted(true, false)))
            .collect();
        assert_eq!(
            kept,
            [
                Panel::Counters,
                Panel::Story,
                Panel::Parameters,
                Panel::Scenario,
                Panel::Interview
            ]
        );
        // Before any tab is chosen: the counters and the story.
        let at_load: Vec<_> = Panel::ALL
            .into_iter()
            .filter(|p| p.mounted(false, false))
            .collect();
        assert_eq!(at_load, [Panel::Counters, Panel::Story]);
        assert!(Panel::ALL.into_iter().all(|p| p.mounted(true, false)));
    }

    #[test]
    fn the_logs_tab_is_offered_only_with_a_log() {
        assert!(!Panel::Logs.offered(false));
        assert!(Panel::Logs.offered(true));
        assert!(Panel::ALL
            .iter()
            .filter(|&&p| p != Panel::Logs)
            .all(|p| p.offered(false)));
    }
}
