//! A message's lineage: every fact about one message from the first step to the current
//! one, in order, laid out on lanes (producer, broker, consumer, database).
//!
//! The page keeps only the latest facts, so the lineage is rebuilt by re-simulating the
//! recorded run (the scenario plus every user command) up to the current step, keeping
//! only that message's facts. The work is bounded by [`LINEAGE_STEPS_MAX`].

use brokerlab_core::narration::describe;
use brokerlab_core::{us_to_secs, ConsumerId, Fact, MsgId, Simulation};
use leptos::prelude::*;

use crate::readout::seconds;

/// Most steps re-simulated to build a lineage (about a second of work in the browser).
pub const LINEAGE_STEPS_MAX: u64 = 3_000_000;
/// Most facts a lineage lists; later ones are counted, not listed.
pub const LINEAGE_ROWS_MAX: usize = 400;

/// Where a fact happens, left to right on the diagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    Producer,
    Broker,
    Consumer,
    Database,
}

impl Lane {
    pub const ALL: [Lane; 4] = [Lane::Producer, Lane::Broker, Lane::Consumer, Lane::Database];

    pub fn label(self) -> &'static str {
        match self {
            Lane::Producer => "producer",
            Lane::Broker => "broker",
            Lane::Consumer => "consumer",
            Lane::Database => "database",
        }
    }

    /// The lane of a fact.
    pub fn of(fact: &Fact) -> Lane {
        use Fact::*;
        match fact {
            Created { .. }
            | StateCommitted { .. }
            | PublishSent { .. }
            | Throttled { .. }
            | ConfirmTimedOut { .. }
            | Confirmed { .. }
            | ConfirmLost { .. }
            | OutboxMarked { .. }
            | EventNeverPublished { .. }
            | PublishFailed { .. } => Lane::Producer,
            ProcessingStarted { .. }
            | DuplicateSkipped { .. }
            | StaleIgnored { .. }
            | GapWait { .. }
            | HandlerFailed { .. }
            | RetryScheduled { .. }
            | RecordStarted { .. }
            | RecordProcessed { .. }
            | ConsumerCrashed { .. }
            | EmailSent { .. } => Lane::Consumer,
            EffectCommitted { .. } | EffectRefused { .. } | OutputWritten { .. } => Lane::Database,
            _ => Lane::Broker,
        }
    }
}

/// One fact of a lineage, in words.
#[derive(Clone, Debug, PartialEq)]
pub struct LineageRow {
    pub step: u64,
    pub time_s: f64,
    pub lane: Lane,
    pub text: String,
}

/// A message's history up to a step.
#[derive(Clone, Debug, PartialEq)]
pub struct Lineage {
    pub msg: MsgId,
    /// The step the history runs to (the run's current step when it was built).
    pub upto_step: u64,
    pub rows: Vec<LineageRow>,
    /// Facts about the message beyond [`LINEAGE_ROWS_MAX`], not listed.
    pub more: usize,
}

/// Rebuilds the lineage of `msg` by re-simulating `sim`'s recorded run up to its current
/// step. Refuses (with a sentence for the page) runs longer than [`LINEAGE_STEPS_MAX`].
pub fn lineage(sim: &Simulation, msg: MsgId) -> Result<Lineage, String> {
    let target = sim.steps();
    if target > LINEAGE_STEPS_MAX {
        return Err(format!(
            "This run is at step {target}; a history is rebuilt only up to step {LINEAGE_STEPS_MAX}. Reset or pick a shorter run to see #{msg}'s history."
        ));
    }
    let mut replay = Simulation::new(sim.scenario().clone())
        .map_err(|e| format!("The run could not be replayed: {e}"))?;
    let mut kept: Vec<(u64, f64, Fact)> = Vec::new();
    let mut more = 0;
    // The consumer holding the message: its crash belongs to the history.
    let mut holder: Option<ConsumerId> = None;
    while replay.steps() < target {
        let Some(step) = replay.step() else {
            break;
        };
        for fact in step.facts {
            let about = match *fact {
                Fact::Delivered {
                    msg: m, consumer, ..
                } if m == msg => {
                    holder = Some(consumer);
                    true
                }
                Fact::Acked { msg: m, .. } | Fact::LeaseExpired { msg: m, .. } if m == msg => {
                    holder = None;
                    true
                }
                Fact::ConsumerCrashed { consumer, .. } if holder == Some(consumer) => {
                    holder = None;
                    true
                }
                _ => fact.msg() == Some(msg),
            };
            if !about {
                continue;
            }
            if kept.len() < LINEAGE_ROWS_MAX {
                kept.push((step.index, us_to_secs(step.time_us), *fact));
            } else {
                more += 1;
            }
        }
    }
    let rows = kept
        .iter()
        .map(|(step, time_s, fact)| LineageRow {
            step: *step,
            time_s: *time_s,
            lane: Lane::of(fact),
            text: describe(&replay, fact),
        })
        .collect();
    Ok(Lineage {
        msg,
        upto_step: replay.steps(),
        rows,
        more,
    })
}

/// The lineage panel: a sequence of facts on four lanes, or why there is none.
#[component]
pub fn LineagePanel(
    lineage: RwSignal<Option<Result<Lineage, String>>>,
    /// Rebuilds the open lineage up to the current step.
    on_refresh: Callback<()>,
) -> impl IntoView {
    let body = move || {
        lineage.with(|l| match l {
            None => ().into_any(),
            Some(Err(problem)) => {
                let problem = problem.clone();
                view! { <p class="problem" role="alert" data-testid="lineage-problem">{problem}</p> }
                    .into_any()
            }
            Some(Ok(l)) => lineage_view(l).into_any(),
        })
    };
    let title = move || {
        lineage.with(|l| match l {
            Some(Ok(l)) => format!("History of #{} (up to step {})", l.msg, l.upto_step),
            _ => "History of a message".to_string(),
        })
    };
    view! {
        <section class="panel lineage" aria-labelledby="lineage-title" data-testid="lineage"
            hidden=move || lineage.with(Option::is_none)>
            <h2 id="lineage-title" data-testid="lineage-title">{title}</h2>
            <div class="lineage-actions">
                <button type="button" data-testid="lineage-refresh"
                    on:click=move |_| on_refresh.run(())>"Up to now"</button>
                <button type="button" data-testid="lineage-close"
                    on:click=move |_| lineage.set(None)>"Close"</button>
            </div>
            {body}
        </section>
    }
}

fn lineage_view(l: &Lineage) -> impl IntoView {
    let heads = Lane::ALL
        .iter()
        .map(|lane| view! { <span class=format!("lane-head lane-{}", lane.label())>{lane.label()}</span> })
        .collect_view();
    let rows = if l.rows.is_empty() {
        view! { <li class="none">"Nothing has happened to this message yet."</li> }.into_any()
    } else {
        l.rows
            .iter()
            .map(|r| {
                let cells = Lane::ALL
                    .iter()
                    .map(|&lane| {
                        let on = lane == r.lane;
                        let class = if on { "cell on" } else { "cell" };
                        view! { <span class=class>{if on { "●" } else { "" }}</span> }
                    })
                    .collect_view();
                view! {
                    <li data-testid="lineage-row" data-lane=r.lane.label()>
                        <span class="at">{format!("step {} · {}", r.step, seconds(r.time_s))}</span>
                        <span class="cells" aria-hidden="true">{cells}</span>
                        <span class="what"><span class="lane-name">{r.lane.label()}": "</span>{r.text.clone()}</span>
                    </li>
                }
            })
            .collect_view()
            .into_any()
    };
    let more = (l.more > 0).then(|| {
        view! { <p class="more" data-testid="lineage-more">{format!("… and {} later facts not listed.", l.more)}</p> }
    });
    view! {
        <div class="lanes" aria-hidden="true"><span class="at"></span><span class="cells">{heads}</span></div>
        <ol class="sequence" data-testid="lineage-rows" aria-label="Every fact about this message, oldest first">
            {rows}
        </ol>
        {more}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::examples;

    fn run_to_end(name: &str) -> Simulation {
        let mut sim = Simulation::new(examples::load(name).expect("built in")).expect("valid");
        while sim.step().is_some() {}
        sim
    }

    #[test]
    fn crash_after_commit_tells_commit_crash_expiry_redelivery_commit_ack() {
        let sim = run_to_end("crash-after-commit");
        let l = lineage(&sim, 0).expect("short run");
        assert_eq!(l.upto_step, sim.steps());
        let texts: Vec<&str> = l.rows.iter().map(|r| r.text.as_str()).collect();
        let find = |from: usize, pred: &dyn Fn(&LineageRow) -> bool| {
            l.rows[from..]
                .iter()
                .position(pred)
                .map(|i| i + from)
                .unwrap_or_else(|| panic!("missing after {from}: {texts:#?}"))
        };
        let commit = find(0, &|r| r.lane == Lane::Database);
        let crash = find(commit, &|r| r.text.contains("crash"));
        let expiry = find(crash, &|r| r.text.contains("lease"));
        let again = find(expiry, &|r| r.text.contains("attempt 2"));
        let commit2 = find(again, &|r| r.lane == Lane::Database);
        let _ack = find(commit2, &|r| r.text.contains("ack"));
        assert!(l.rows.windows(2).all(|w| w[0].step <= w[1].step));
    }

    #[test]
    fn a_lineage_stops_at_the_current_step_and_ignores_other_messages() {
        let mut sim = Simulation::new(examples::load("burst").expect("built in")).expect("valid");
        for _ in 0..200 {
            sim.step();
        }
        let l = lineage(&sim, 3).expect("short run");
        assert_eq!(l.upto_step, 200);
        assert!(!l.rows.is_empty());
        assert!(l.rows.iter().all(|r| r.step <= 200));
        assert!(l.rows.iter().all(|r| !r.text.contains("#30")));
        let none = lineage(&sim, 999_999).expect("short run");
        assert!(none.rows.is_empty());
    }
}
