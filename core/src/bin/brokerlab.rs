//! `brokerlab`: the headless runner over the same core as the page.
//!
//!   brokerlab run FILE.json [--csv]    run a scenario, print a JSON report (or the series as CSV)
//!   brokerlab trace FILE.json [--max N] print each step as a sentence (first N steps, default 200)
//!   brokerlab example [NAME]           list the built-in examples, or print one as JSON
//!
//! FILE may be `-` for standard input. Bad input: one line on stderr and exit code 2.

use std::io::{Read, Write};
use std::process::ExitCode;

use brokerlab_core::{examples, narration, Report, Scenario, Simulation};

const USAGE: &str = "usage: brokerlab run FILE.json [--csv] | brokerlab trace FILE.json [--max N] | brokerlab example [NAME]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(out) => {
            // A closed pipe (`| head`) is not an error worth a panic.
            let _ = std::io::stdout().write_all(out.as_bytes());
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("brokerlab: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String]) -> Result<String, String> {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["run", file] => Ok(Report::of(&simulate(file)?).to_json() + "\n"),
        ["run", file, "--csv"] | ["run", "--csv", file] => {
            Ok(Report::of(&simulate(file)?).series_csv())
        }
        ["trace", file] => trace(file, 200),
        ["trace", file, "--max", n] => {
            let max = n
                .parse()
                .map_err(|_| format!("--max wants a whole number, got {n:?}"))?;
            trace(file, max)
        }
        ["example"] => Ok(examples::names().map(|n| format!("{n}\n")).collect()),
        ["example", name] => examples::json(name).map(str::to_string).ok_or_else(|| {
            let known: Vec<&str> = examples::names().collect();
            format!("no example named {name:?} (known: {})", known.join(", "))
        }),
        _ => Err(USAGE.to_string()),
    }
}

fn load(file: &str) -> Result<Scenario, String> {
    let mut text = String::new();
    if file == "-" {
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
    } else {
        text = std::fs::read_to_string(file).map_err(|e| format!("cannot read {file}: {e}"))?;
    }
    Scenario::from_json(&text).map_err(|e| format!("{file}: {e}"))
}

fn simulate(file: &str) -> Result<Simulation, String> {
    let mut sim = Simulation::new(load(file)?).map_err(|e| format!("{file}: {e}"))?;
    sim.run();
    Ok(sim)
}

fn trace(file: &str, max: u64) -> Result<String, String> {
    let mut sim = Simulation::new(load(file)?).map_err(|e| format!("{file}: {e}"))?;
    let mut out = String::new();
    while sim.steps() < max {
        let Some(step) = sim.step() else { break };
        let (index, t, facts) = (step.index, step.time_us, step.facts.to_vec());
        for fact in &facts {
            out.push_str(&format!(
                "{index:>6}  {:>12.6} s  {}\n",
                t as f64 / 1e6,
                narration::describe(&sim, fact)
            ));
        }
    }
    Ok(out)
}
