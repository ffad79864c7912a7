//! The model: plain data and the functions that build it from a run — no Leptos, no DOM,
//! so all of it is tested natively. Depends on the core and on [`crate::format`] only.

pub mod aftermath;
pub mod aggregated;
pub mod arrival;
pub mod chart_info;
pub mod compare;
pub mod concealed;
pub mod database;
pub mod dependencies;
pub mod dependency_commands;
pub mod files;
pub mod flights;
pub mod fluid;
pub mod frame_budget;
pub mod glossary;
pub mod groups;
pub mod import;
pub mod interview;
pub mod invariants;
pub mod lesson;
pub mod lineage;
pub mod origin;
pub mod panels;
pub mod participants;
pub mod player;
pub mod rail;
pub mod readout;
pub mod recording;
pub mod scenario_text;
pub mod schedule;
pub mod settings;
pub mod share;
pub mod story;
pub mod topology;
pub mod tour;
pub mod words;
