//! The first screen arrives in parts, one per task of the browser's event loop. Opening
//! the scenario and mounting the whole page in one go held the main thread for 0.3–0.7 s
//! at load (issue 14's budget is no task over 50 ms): the browser could not paint, and a
//! click waited. The run is built first, then the header and the controls, so the page
//! can be read and used at once; each later part is mounted in a task of its own, a few
//! milliseconds apart. Each part is meant to stay under 50 ms on a 2-core machine; what
//! each takes is in docs/performance.md ("The first screen in parts").

/// A part of the first screen, in the order the parts arrive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Part {
    /// Nothing but a line saying the page is loading (the task that started the module).
    Frame,
    /// The address read: a share link decoded, or the built-in example's scenario.
    Reading,
    /// The first half of the example's preview taken (its first steps, for its pace).
    Preview,
    /// The rest of the preview taken.
    PreviewEnd,
    /// Its run built (a share link may hold two, to compare): still nothing new on screen.
    Opening,
    /// The page's state set up around the run (the `Lab`, the address followed, the
    /// keyboard): still nothing new on screen.
    State,
    /// The header's brand, language and scenario picker.
    Header,
    /// The header's buttons: sharing, files, the page's tools.
    Tools,
    /// The transport (controls and timeline), the notes above the stage and the latest
    /// step in words: what a user reads and reaches for first.
    Controls,
    /// The topology with its tokens (or the aggregated run's stage).
    Topology,
    /// The backlog chart's frame, legend and empty canvases.
    Chart,
    /// The chart's first drawing (its axes, labels and lines): a task of its own, the
    /// chart's part and its drawing together came near 50 ms.
    Drawing,
    /// The side area's tabs and the panel on show (the counters at load).
    Side,
    /// The story panel (kept mounted, hidden, from here on).
    Story,
    /// The footer, the help dialog and the tour: nothing on the first screen needs them.
    Rest,
    /// The consumer cards folded under a crowded lane's summary (more than
    /// [`MANY_CONSUMERS`](crate::model::topology::MANY_CONSUMERS)): hidden until asked
    /// for, so they come last. Twenty cards are most of the topology's elements, which
    /// made its part the longest of the load.
    Cards,
}

impl Part {
    /// Every part, in the order they arrive.
    pub const ORDER: [Part; 16] = [
        Part::Frame,
        Part::Reading,
        Part::Preview,
        Part::PreviewEnd,
        Part::Opening,
        Part::State,
        Part::Header,
        Part::Tools,
        Part::Controls,
        Part::Topology,
        Part::Chart,
        Part::Drawing,
        Part::Side,
        Part::Story,
        Part::Rest,
        Part::Cards,
    ];

    /// The part that arrives after this one; `None` after the last.
    pub fn next(self) -> Option<Part> {
        let at = Self::ORDER.iter().position(|p| *p == self)?;
        Self::ORDER.get(at + 1).copied()
    }

    /// Whether the whole first screen is on the page once `self` has arrived.
    pub fn is_last(self) -> bool {
        self.next().is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parts_arrive_once_each_in_order_the_run_before_the_header_and_controls() {
        let mut seen = vec![Part::ORDER[0]];
        while let Some(next) = seen.last().and_then(|p| p.next()) {
            seen.push(next);
        }
        assert_eq!(seen, Part::ORDER);
        let run = [
            Part::Frame,
            Part::Reading,
            Part::Preview,
            Part::PreviewEnd,
            Part::Opening,
            Part::State,
        ];
        assert_eq!(seen[..6], run, "the run is built before anything is shown");
        assert_eq!(seen[6..9], [Part::Header, Part::Tools, Part::Controls]);
        assert!(
            seen.windows(2).all(|w| w[0] < w[1]),
            "in the declared order"
        );
        assert!(seen.last().is_some_and(|p| p.is_last()));
        assert!(!Part::Chart.is_last());
    }
}
