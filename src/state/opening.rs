//! What the page opens on, in steps the first screen's parts take one task at a time
//! (`Part::Reading`, `Part::Preview`, `Part::PreviewEnd`, `Part::Opening`): the address
//! read, the example's preview taken in two halves, the run built.

use brokerlab_core::link::{Opened, View};
use brokerlab_core::Scenario;

use crate::model::player::{Pace, Player, Preview, PREVIEW_STEPS_MAX};
use crate::model::share::LinkProblem;
use crate::state::share;

/// The scenario the first page plays.
pub const EXAMPLE: &str = "burst";

/// What the address says to open, read but not yet run.
pub struct Reading {
    /// The share link in the address, decoded.
    link: Option<Opened>,
    /// Without a link (or with one that cannot be read), the built-in example.
    example: Option<Scenario>,
    /// The example's preview, as far as it has been taken.
    preview: Option<Preview>,
    /// What was wrong with the link in the address, if anything.
    problem: Option<LinkProblem>,
}

impl Reading {
    /// A share link in the address, decoded; or, without one or with a bad one, the example.
    pub fn from_address() -> Self {
        match share::read_address() {
            Ok(Some(opened)) => Reading {
                link: Some(opened),
                example: None,
                preview: None,
                problem: None,
            },
            Ok(None) => Self::example(None),
            Err(problem) => Self::example(Some(problem)),
        }
    }

    /// The built-in example, opened because of `problem` with the link, if any.
    fn example(problem: Option<LinkProblem>) -> Self {
        Reading {
            link: None,
            example: brokerlab_core::examples::load(EXAMPLE),
            preview: None,
            problem,
        }
    }

    /// Takes half of the example's preview (a link's runs are previewed as they are built).
    pub fn preview_half(&mut self) {
        if let Some(scenario) = &self.example {
            self.preview
                .get_or_insert_with(|| Preview::start(scenario))
                .advance(PREVIEW_STEPS_MAX / 2);
        }
    }
}

/// What the page opens on: a share link's run and view, or the example.
pub struct Opening {
    pub player: Result<Player, String>,
    pub view: Option<View>,
    pub problem: Option<LinkProblem>,
    pub compare: Option<share::CompareOpening>,
    pub aggregated: Option<Scenario>,
}

impl Opening {
    /// Builds what `reading` found; a link that cannot start opens the example and says why.
    pub fn of(reading: Reading) -> Self {
        if let Some(opened) = reading.link {
            return match share::opening_of(opened) {
                Ok(o) => Opening {
                    player: Ok(o.player),
                    view: Some(o.view),
                    problem: o.problem,
                    compare: o.compare,
                    aggregated: o.aggregated,
                },
                Err(problem) => Opening::of(Reading::example(Some(problem))),
            };
        }
        let preview = reading.preview;
        Opening {
            player: reading
                .example
                .ok_or_else(|| format!("the example “{EXAMPLE}” is missing"))
                .and_then(|s| {
                    let pace = preview.map_or_else(|| Pace::of(&s), Preview::pace);
                    Player::with_pace(s, pace).map_err(|e| e.to_string())
                }),
            view: None,
            problem: reading.problem,
            compare: None,
            aggregated: None,
        }
    }
}
