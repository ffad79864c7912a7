//! The side area beside the stage: one tab per panel (counters, events, parameters,
//! scenario, invariants, a message's history, logs), one panel on show at a time, so opening one never
//! pushes the topology or the chart off screen. A WAI-ARIA tab list: arrow keys, Home and
//! End move between tabs.

use leptos::prelude::*;

use crate::i18n::{t, t_string, use_i18n};
use crate::model::arrival::Part;
use crate::model::panels::Panel;
use crate::state::arrival::Arrival;
use crate::state::{Lab, Tools};
use crate::ui::arrival::Arriving;
use crate::ui::counters::Counters;
use crate::ui::focus::focus_id;
use crate::ui::interview::InterviewPanel;
use crate::ui::invariants::InvariantsPanel;
use crate::ui::lineage::LineagePanel;
use crate::ui::logs::LogsView;
use crate::ui::narration::{EventLog, NarrationPanel};
use crate::ui::parameters::ParametersPanel;
use crate::ui::scenario_editor::ScenarioPanel;

/// Whether the loaded scenario has a partitioned log (the logs tab is offered only then).
fn has_logs(lab: Lab) -> bool {
    lab.topology.with(|t| !t.logs.logs.is_empty())
}

/// Moves the focus to the tab of `panel` (after the keyboard chose it).
fn focus_tab(panel: Panel) {
    focus_id(&format!("tab-{}", panel.key()));
}

#[component]
fn Tab(lab: Lab, panel: Panel) -> impl IntoView {
    let selected = move || lab.panel.get() == panel;
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let logs = has_logs(lab);
        let to = match ev.key().as_str() {
            "ArrowRight" | "ArrowDown" => panel.next(1, logs),
            "ArrowLeft" | "ArrowUp" => panel.next(-1, logs),
            "Home" => Panel::ALL[0],
            "End" => Panel::ALL[0].next(-1, logs),
            _ => return,
        };
        ev.prevent_default();
        lab.panel.set(to);
        focus_tab(to);
    };
    view! {
        <button type="button" role="tab" class="tab" id=format!("tab-{}", panel.key())
            data-testid=format!("tab-{}", panel.key())
            aria-controls=format!("panel-{}", panel.key())
            aria-selected=move || selected().to_string()
            tabindex=move || if selected() { "0" } else { "-1" }
            hidden=move || !panel.offered(has_logs(lab))
            on:click=move |_| lab.panel.set(panel)
            on:keydown=on_key>
            {move || panel.label(lab.lang.get())}
        </button>
    }
}

/// The panel under one tab. Its content is in the page as `Panel::mounting` says: most are
/// mounted only while on show, so a playing run does not update panels nobody sees.
#[component]
fn TabPanel(lab: Lab, panel: Panel, children: ChildrenFn) -> impl IntoView {
    let shown = Memo::new(move |_| lab.panel.get() == panel);
    let mounted = Memo::new(move |before: Option<&bool>| {
        panel.mounted(shown.get(), before.copied().unwrap_or(false))
    });
    view! {
        <div role="tabpanel" class="tab-panel" id=format!("panel-{}", panel.key())
            data-testid=format!("panel-{}", panel.key())
            aria-labelledby=format!("tab-{}", panel.key())
            hidden=move || !shown.get()>
            {move || mounted.get().then(|| children())}
        </div>
    }
}

/// What the history tab says while no message is chosen.
#[component]
fn HistoryHint(lab: Lab) -> impl IntoView {
    let i18n = use_i18n();
    view! {
        <p class="hint" data-testid="history-hint" hidden=move || lab.lineage.with(Option::is_some)>
            {t!(i18n, panels.tabs.history_hint)}
        </p>
    }
}

#[component]
pub fn SidePanel(lab: Lab, tools: Tools, arrival: Arrival) -> impl IntoView {
    // A scenario without a log closes the logs tab if it was open.
    Effect::new(move |_| {
        if !lab.panel.get().offered(has_logs(lab)) {
            lab.panel.set(Panel::default());
        }
    });
    let open = Callback::new(move |m| lab.open_lineage(m));
    let i18n = use_i18n();
    let panels_label = move || t_string!(i18n, panels.tabs.aria_label);
    let tabs = Panel::ALL
        .into_iter()
        .map(|panel| view! { <Tab lab panel /> })
        .collect_view();
    view! {
        <aside class="side" aria-label=panels_label data-testid="side">
            <div class="side-head">
                <div class="tabs" role="tablist" aria-label=panels_label>{tabs}</div>
                <button type="button" class="small present" data-testid="present"
                    on:click=move |_| tools.toggle_presenting()
                    title=move || t_string!(i18n, panels.tabs.present_title)>
                    {t!(i18n, panels.tabs.present)}
                </button>
            </div>
            <TabPanel lab panel=Panel::Counters>
                <Counters readout=lab.readout percentiles=lab.percentiles
                    aggregated=Signal::derive(move || lab.aggregated_on.get()) />
            </TabPanel>
            <TabPanel lab panel=Panel::Story>
                <Arriving arrival part=Part::Story>
                    <NarrationPanel narration=lab.narration />
                    <EventLog narration=lab.narration on_msg=open
                        scenario=Signal::derive(move || lab.base.with(|s| s.name.clone()))
                        shown=Signal::derive(move || lab.panel.get() == Panel::Story) />
                </Arriving>
            </TabPanel>
            <TabPanel lab panel=Panel::Parameters>
                <ParametersPanel lab />
            </TabPanel>
            <TabPanel lab panel=Panel::Scenario>
                <ScenarioPanel lab />
            </TabPanel>
            <TabPanel lab panel=Panel::Invariants>
                <InvariantsPanel statuses=lab.invariants pause_on_breach=lab.pause_on_breach on_msg=open
                    side_a=Signal::derive(move || lab.compare.with(Option::is_some)) />
            </TabPanel>
            <TabPanel lab panel=Panel::History>
                <HistoryHint lab />
                <LineagePanel lineage=lab.lineage on_refresh=Callback::new(move |()| lab.refresh_lineage()) />
            </TabPanel>
            <TabPanel lab panel=Panel::Logs>
                <LogsView lab />
            </TabPanel>
            <TabPanel lab panel=Panel::Interview>
                <InterviewPanel lab />
            </TabPanel>
        </aside>
    }
}
