//! What the page saves and opens as files: the scenario with the user's commands (the
//! same JSON the runner reads, `brokerlab run FILE.json`), and the series as CSV (the same
//! columns as `brokerlab run --csv`). Opening a file is checked exactly like a share link:
//! the core migrates and validates it, and a refusal names the field.

use brokerlab_core::series_csv as csv_of;
use brokerlab_core::Scenario;

use crate::i18n::{locale, td_string};
use crate::model::player::Player;
use crate::model::words::Words;

/// The largest file the page reads (the core refuses larger scenario text anyway; the page
/// refuses before reading it into memory).
pub const FILE_BYTES_MAX: f64 = (1 << 20) as f64;

/// The scenario on show with the user's commands so far (each pinned to its step), as a
/// scenario file: opened again, or run by the runner, it replays the same run.
pub fn scenario_file(player: &Player) -> String {
    let mut scenario = player.base().clone();
    scenario.interventions = player.sim().scenario().interventions.clone();
    let json = serde_json::to_string_pretty(&scenario).expect("a scenario always serializes");
    json + "\n"
}

/// A player for a scenario file, paused at its start; the user's commands it holds replay
/// as the run reaches their steps. The error is one sentence for the page (in either
/// language), naming the field the file got wrong.
pub fn open_scenario(text: &str) -> Result<Player, Words> {
    let refused = |e: brokerlab_core::ScenarioError| {
        Words::new(move |lang| {
            let problem = e.text_in(lang);
            td_string!(locale(lang), panels.files.refused, problem).to_string()
        })
    };
    let mut scenario = Scenario::from_json(text).map_err(refused)?;
    let commands = std::mem::take(&mut scenario.interventions);
    let mut player = Player::new(scenario).map_err(refused)?;
    player.replay(commands, 0, 0).map_err(refused)?;
    Ok(player)
}

/// Refuses a file before reading it when it is too large to be a scenario.
pub fn check_size(name: &str, bytes: f64) -> Result<(), Words> {
    if bytes > FILE_BYTES_MAX {
        let name = name.to_string();
        return Err(Words::new(move |lang| {
            td_string!(locale(lang), panels.files.too_large, name = &name).to_string()
        }));
    }
    Ok(())
}

/// The series so far as CSV, in the runner's columns.
pub fn series_csv(player: &Player) -> String {
    csv_of(player.sim().series())
}

/// A file name for the scenario on show: its name (letters, digits and dashes only, so
/// any file system takes it), then `extension`.
pub fn file_name(player: &Player, extension: &str) -> String {
    format!("brokerlab-{}.{extension}", slug(player))
}

/// Like [`file_name`], with `stamp` (a time, a range) after the scenario's name:
/// `brokerlab-burst-0-4s.gif`.
pub fn stamped_name(player: &Player, stamp: &str, extension: &str) -> String {
    format!("brokerlab-{}-{stamp}.{extension}", slug(player))
}

/// The scenario's name as letters, digits and dashes.
fn slug(player: &Player) -> String {
    let name: String = player
        .base()
        .name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .take(60)
        .collect();
    let name = name.trim_matches('-');
    let name = if name.is_empty() { "scenario" } else { name };
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::lessons::Lang;
    use brokerlab_core::{examples, Command, ConsumerId, CrashPoint, Simulation};

    /// The crash-after-commit story with a crash given by the user at step 3, played on.
    fn worked() -> Player {
        let mut player =
            Player::new(examples::load("crash-after-commit").expect("built in")).expect("valid");
        for _ in 0..3 {
            player.step_once();
        }
        player
            .command(Command::CrashConsumer {
                consumer: ConsumerId::new(0),
                point: CrashPoint::AfterCommitBeforeAck,
                restart_after_s: Some(5.0),
            })
            .expect("valid");
        for _ in 0..6 {
            player.step_once();
        }
        player
    }

    #[test]
    fn a_saved_file_opens_at_its_start_and_replays_the_users_commands() {
        let player = worked();
        let text = scenario_file(&player);
        let mut opened = open_scenario(&text).expect("opens");
        assert_eq!(opened.sim().steps(), 0, "paused at the start");
        assert_eq!(
            opened.base(),
            player.base(),
            "the scenario, without the commands"
        );
        while opened.sim().steps() < player.sim().steps() {
            opened.step_once();
        }
        assert_eq!(opened.readout(), player.readout(), "the crash replayed");
        assert_eq!(opened.sim().scenario().interventions.len(), 1);
    }

    #[test]
    fn the_runner_reads_a_saved_file() {
        let player = worked();
        let scenario = Scenario::from_json(&scenario_file(&player)).expect("a scenario file");
        assert_eq!(scenario.interventions.len(), 1);
        let mut sim = Simulation::new(scenario).expect("valid");
        sim.run();
        assert!(
            sim.summary().counters.redelivered >= 1,
            "the crash caused a redelivery"
        );
    }

    #[test]
    fn a_bad_file_is_refused_in_one_sentence_naming_the_field() {
        let mut scenario = examples::load("mm1").expect("built in");
        scenario.queues[0].visibility_timeout_s = -1.0;
        let text = serde_json::to_string(&scenario).expect("serializes");
        let refusal = open_scenario(&text).err().expect("refused");
        let message = refusal.text(Lang::En);
        assert!(
            message.contains("queues[0].visibility_timeout_s"),
            "{message}"
        );
        assert!(message.starts_with("This file could not be opened: "));
        let message = refusal.text(Lang::Es);
        assert!(
            message.starts_with("No se pudo abrir este archivo: queues[0].visibility_timeout_s"),
            "{message}"
        );
        for junk in ["", "{", "[1,2]", "null", "<b>hi</b>"] {
            let message = open_scenario(junk).err().expect("refused").text(Lang::En);
            assert!(!message.contains('\n'), "one line: {message}");
        }
        assert!(check_size("big.json", 2e6).is_err());
        assert!(check_size("small.json", 2e3).is_ok());
        assert_eq!(
            check_size("big.json", 2e6).err().map(|w| w.text(Lang::Es)),
            Some("No se pudo abrir “big.json”: ocupa más de 1 MiB, más de lo que necesita cualquier escenario.".into())
        );
    }

    #[test]
    fn the_csv_has_the_runners_columns_and_one_row_per_sample() {
        let mut player = Player::new(examples::load("mm1").expect("built in")).expect("valid");
        while player.sim().series().len() < 5 {
            player.advance(1_000.0, 10.0);
        }
        let csv = series_csv(&player);
        let mut lines = csv.lines();
        assert_eq!(
            lines.next().map(|h| h.split(',').count()),
            Some(13),
            "the header"
        );
        assert_eq!(lines.count(), player.sim().series().len());
    }

    #[test]
    fn file_names_are_safe() {
        for (name, expected) in [
            ("../My <Queue> é", "brokerlab-my--queue.json"),
            ("???", "brokerlab-scenario.json"),
            ("mm1", "brokerlab-mm1.json"),
        ] {
            let mut scenario = examples::load("mm1").expect("built in");
            scenario.name = name.into();
            let player = Player::new(scenario).expect("valid");
            assert_eq!(file_name(&player, "json"), expected);
        }
    }

    #[test]
    fn stamped_names_put_the_stamp_after_the_scenario() {
        let player = Player::new(examples::load("mm1").expect("built in")).expect("valid");
        assert_eq!(
            stamped_name(&player, "0-4s", "gif"),
            "brokerlab-mm1-0-4s.gif"
        );
    }
}
