//! The views: Leptos components that read the [`crate::state::Lab`]'s memos and call its
//! commands. Nothing here decides what the run is; it only shows it.

pub mod aggregated;
pub mod app;
pub mod arrival;
pub mod chart;
pub mod compare;
pub mod controls;
pub mod counters;
pub mod files;
pub mod focus;
pub mod help;
pub mod import_notes;
pub mod interview;
pub mod invariants;
pub mod language;
pub mod lesson;
pub mod lineage;
pub mod logs;
pub mod narration;
pub mod panic_panel;
pub mod parameters;
pub mod record;
pub mod scenario_editor;
pub mod seed;
pub mod share;
pub mod side_panel;
pub mod stage_picture;
pub mod term;
pub mod timeline;
pub mod topology;
pub mod tour;
pub mod type_scale;
pub mod units;
