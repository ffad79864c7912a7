//! The page's state: the [`Lab`] (the stored player, the memos the views read, the
//! commands they call), the page tools, and the keyboard shortcuts. Depends on the model,
//! never on the views.

mod aggregated;
pub mod arrival;
pub mod compare;
pub mod files;
pub mod lab;
pub mod lesson;
pub mod opening;
pub mod recording;
mod scenario_edit;
pub mod share;
pub mod shortcuts;
pub mod tools;
pub mod tour;

pub use lab::Lab;
pub use tools::Tools;
pub use tour::TourState;
