//! Live invariants: properties of the run checked after every step, the step and message
//! where each first broke, and the panel that shows them.

use brokerlab_core::{us_to_secs, Fact, Micros, MsgId, Simulation};
use leptos::prelude::*;

use crate::readout::seconds;

/// The properties the panel shows, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Property {
    NoMessageLost,
    EffectOnce,
    PartitionOwnedOnce,
}

impl Property {
    pub const ALL: [Property; 3] = [
        Property::NoMessageLost,
        Property::EffectOnce,
        Property::PartitionOwnedOnce,
    ];

    /// Stable key for test ids.
    pub fn key(self) -> &'static str {
        match self {
            Property::NoMessageLost => "no-loss",
            Property::EffectOnce => "effect-once",
            Property::PartitionOwnedOnce => "partition-owner",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Property::NoMessageLost => "No message lost",
            Property::EffectOnce => "Each effect applied once",
            Property::PartitionOwnedOnce => "No partition owned twice",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Where a property first broke.
#[derive(Clone, Debug, PartialEq)]
pub struct Breach {
    pub step: u64,
    pub time_s: f64,
    /// The message the breaking fact is about, if any.
    pub msg: Option<MsgId>,
}

/// First breaches of one run, kept as the run steps.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Watch {
    first: [Option<Breach>; 3],
}

impl Watch {
    /// Looks at one step's facts; true if a property broke for the first time.
    pub fn observe(&mut self, step: u64, at_us: Micros, facts: &[Fact]) -> bool {
        let mut new = false;
        for fact in facts {
            let broke = match *fact {
                Fact::MessageLost { .. } => Some(Property::NoMessageLost),
                Fact::RecordsSkipped { .. } => Some(Property::NoMessageLost),
                Fact::EffectCommitted { applied, .. } if applied > 1 => Some(Property::EffectOnce),
                _ => None,
            };
            let Some(property) = broke else {
                continue;
            };
            let slot = &mut self.first[property.index()];
            if slot.is_none() {
                *slot = Some(Breach {
                    step,
                    time_s: us_to_secs(at_us),
                    msg: fact.msg(),
                });
                new = true;
            }
        }
        new
    }

    pub fn first(&self, property: Property) -> Option<&Breach> {
        self.first[property.index()].as_ref()
    }
}

/// One property as the panel shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Status {
    pub property: Property,
    pub holds: bool,
    pub detail: String,
    pub msg: Option<MsgId>,
}

/// The properties evaluated on the run's current state, with where each first broke.
pub fn statuses(sim: &Simulation, watch: &Watch) -> Vec<Status> {
    let c = sim.counters();
    Property::ALL
        .iter()
        .map(|&property| {
            let breach = watch.first(property);
            let (holds, detail) = match property {
                Property::NoMessageLost => (
                    c.lost == 0 && c.records_skipped == 0,
                    format!("{} lost, {} records skipped", c.lost, c.records_skipped),
                ),
                Property::EffectOnce => (
                    c.duplicate_effects == 0,
                    format!("{} duplicate effects", c.duplicate_effects),
                ),
                Property::PartitionOwnedOnce => {
                    let owned: usize = (0..sim.group_count())
                        .map(|g| {
                            sim.group_partitions(g)
                                .iter()
                                .filter(|p| p.owner.is_some())
                                .count()
                        })
                        .sum();
                    (
                        true,
                        if sim.group_count() == 0 {
                            "no partitioned log in this scenario".to_string()
                        } else {
                            format!(
                                "{owned} partitions owned, each by one member (by construction)"
                            )
                        },
                    )
                }
            };
            let detail = match breach {
                Some(b) => format!(
                    "{detail}; first broke at step {} ({})",
                    b.step,
                    seconds(b.time_s)
                ),
                None => detail,
            };
            Status {
                property,
                holds,
                detail,
                msg: breach.and_then(|b| b.msg),
            }
        })
        .collect()
}

/// The invariants panel, with the "pause when one breaks" option.
#[component]
pub fn InvariantsPanel(
    statuses: Memo<Vec<Status>>,
    pause_on_breach: RwSignal<bool>,
    /// Opens a message's history.
    on_msg: Callback<MsgId>,
) -> impl IntoView {
    let rows = move || {
        statuses
            .get()
            .into_iter()
            .map(|s| {
                let key = s.property.key();
                let verdict = if s.holds { "✓ holds" } else { "✗ broken" };
                let class = if s.holds { "holds" } else { "broken" };
                let msg = s.msg.map(|m| {
                    view! {
                        <button type="button" class="msg" data-testid=format!("invariant-{key}-msg")
                            title="Show this message's history"
                            on:click=move |_| on_msg.run(m)>{format!("#{m}")}</button>
                    }
                });
                view! {
                    <li class=class data-testid=format!("invariant-{key}")>
                        <span class="verdict" data-testid=format!("invariant-{key}-verdict")>{verdict}</span>
                        " "<strong>{s.property.title()}</strong>
                        <span class="detail">" — " {s.detail} " " {msg}</span>
                    </li>
                }
            })
            .collect_view()
    };
    view! {
        <section class="panel invariants" aria-labelledby="invariants-title" data-testid="invariants">
            <h2 id="invariants-title">"Invariants"</h2>
            <label class="option">
                <input type="checkbox" data-testid="invariants-pause"
                    prop:checked=move || pause_on_breach.get()
                    on:change=move |ev| pause_on_breach.set(event_target_checked(&ev)) />
                " Pause when one breaks"
            </label>
            <ul>{rows}</ul>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::examples;

    #[test]
    fn crash_after_commit_breaks_effect_once_at_the_duplicate_on_message_0() {
        let mut sim =
            Simulation::new(examples::load("crash-after-commit").expect("built in")).expect("ok");
        let mut watch = Watch::default();
        let mut broke_at = None;
        while let Some(step) = sim.step() {
            let (index, at, facts) = (step.index, step.time_us, step.facts.to_vec());
            if watch.observe(index, at, &facts) && broke_at.is_none() {
                broke_at = Some(index);
            }
        }
        assert_eq!(broke_at, Some(6));
        let s = statuses(&sim, &watch);
        let once = &s[Property::EffectOnce.index()];
        assert!(!once.holds);
        assert_eq!(once.msg, Some(0));
        assert!(
            once.detail.contains("first broke at step 6"),
            "{}",
            once.detail
        );
        assert!(s[Property::NoMessageLost.index()].holds);
        assert!(s[Property::PartitionOwnedOnce.index()].holds);
    }
}
