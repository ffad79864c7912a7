//! Brings the first screen's parts onto the page one by one ([`Part`]): each in a task of
//! its own, started by a zero-delay timeout once the previous part is mounted, so the
//! browser can paint and take input between them.

use gloo_timers::callback::Timeout;
use leptos::prelude::*;

use crate::model::arrival::Part;

/// Which parts of the first screen are on the page.
#[derive(Clone, Copy)]
pub struct Arrival {
    arrived: RwSignal<Part>,
}

impl Arrival {
    /// The first part (an empty frame) now; the others in the tasks that follow.
    pub fn begin() -> Self {
        let arrival = Self {
            arrived: RwSignal::new(Part::ORDER[0]),
        };
        arrival.schedule_next();
        arrival
    }

    /// Whether `part` is on the page (tracked).
    pub fn has(self, part: Part) -> bool {
        self.arrived.get() >= part
    }

    /// Whether the whole first screen is on the page (tracked).
    pub fn complete(self) -> bool {
        self.arrived.get().is_last()
    }

    /// Runs `step` once, in the task where `part` arrives.
    pub fn on(self, part: Part, step: impl Fn() + 'static) {
        Effect::new(move |done: Option<bool>| {
            if done == Some(true) {
                return true;
            }
            // Tracked until the part comes; never again after.
            let due = self.has(part);
            if due {
                step();
            }
            due
        });
    }

    /// Mounts the next part in a task of its own. The views it brings are built when the
    /// signal changes, in that same task (Leptos runs its effects in microtasks).
    fn schedule_next(self) {
        Timeout::new(0, move || {
            // The page may be gone (a test's page dropped): then nothing is left to bring.
            let Some(next) = self.arrived.try_get_untracked().and_then(Part::next) else {
                return;
            };
            mark(next);
            self.arrived.set(next);
            if !next.is_last() {
                self.schedule_next();
            }
        })
        .forget();
    }
}

/// Names the task that brings `part` in the browser's performance timeline ("part
/// Topology"), so a trace of the load says which task is which part
/// (`tests/e2e/perf/load-tasks.mjs`).
fn mark(part: Part) {
    if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
        // Only a measurement: a browser that refuses the mark loses nothing else.
        let _ = performance.mark(&format!("part {part:?}"));
    }
}
