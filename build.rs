//! Generates the page's `i18n` module from the translation files under `locales/`:
//! one folder per language, one JSON file per namespace (a part of the page). Keys and
//! their `{{ arguments }}` are checked when the app compiles; `tests/locales.rs` checks
//! that both languages hold the same keys with the same arguments.

use leptos_i18n_build::{Config, ParseOptions, TranslationsInfos};
use std::error::Error;
use std::path::PathBuf;

/// The parts of the page, each with its own file in every language.
const NAMESPACES: [&str; 5] = ["common", "stage", "panels", "story", "teach"];

fn main() -> Result<(), Box<dyn Error>> {
    println!("cargo::rerun-if-changed=build.rs");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?);
    let cfg = Config::new("en")?
        .add_locale("es")?
        .add_namespaces(NAMESPACES)?
        // Arguments in texts built outside views (`td_string!`): messages, the canvas.
        .parse_options(ParseOptions::new().interpolate_display(true));
    let infos = TranslationsInfos::parse(cfg)?;
    infos.emit_diagnostics();
    infos.rerun_if_locales_changed();
    infos.generate_i18n_module(out.join("i18n"))?;
    Ok(())
}
