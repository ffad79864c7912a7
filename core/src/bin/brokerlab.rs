//! `brokerlab`: the headless runner over the same core as the page.
//!
//!   brokerlab run FILE.json [--csv]    run a scenario, print a JSON report (or the series as CSV)
//!   brokerlab trace FILE.json [--max N] [--lang es]  print each step as sentences (first N
//!                                      steps, default 200), in English or Spanish
//!   brokerlab example [NAME]           list the built-in examples, or print one as JSON
//!   brokerlab run --link LINK [--csv]  run what a share link holds (its scenario and commands)
//!   brokerlab run --link LINK --moment [--csv]  the same, stopped at the moment the link shows
//!   brokerlab link NAME [--step N]     print a share link for a built-in example
//!   brokerlab lessons                  list the lessons
//!   brokerlab lesson NAME [--lang es]  play a lesson: each step's question, answer and explanation
//!
//! FILE may be `-` for standard input. Bad input: one line on stderr and exit code 2.
//! A run that stops at the work budget still prints its report (its `end_reason` says
//! which limit) and adds one line on stderr saying so.

use std::io::{BufWriter, Read, Write};
use std::process::ExitCode;

use brokerlab_core::lessons::{self, Lang, LessonRun, Prediction};
use brokerlab_core::text::{escape_controls, one_line};
use brokerlab_core::{aggregate, examples, link, narration, Report, RunMode, Scenario, Simulation};

const USAGE: &str = "usage: brokerlab run FILE.json [--csv] | brokerlab run --link LINK [--moment] [--csv] | brokerlab trace FILE.json [--max N] [--lang en|es] | brokerlab example [NAME] | brokerlab link NAME [--step N] | brokerlab lessons | brokerlab lesson NAME [--lang en|es]";

/// Largest input read: the same 1 MiB the scenario decoder accepts.
const INPUT_BYTES_MAX: u64 = 1 << 20;
/// Most steps `trace` prints: a million lines is already hundreds of megabytes of text.
const TRACE_STEPS_MAX: u64 = 1_000_000;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("brokerlab: {}", one_line(&message));
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["run", file] => report(file, false),
        ["run", file, "--csv"] | ["run", "--csv", file] => report(file, true),
        ["run", "--link", link, flags @ ..] => run_link(link, flags),
        ["link", name] => make_link(name, 0),
        ["link", name, "--step", n] => make_link(
            name,
            n.parse()
                .map_err(|_| format!("--step wants a whole number, got {n:?}"))?,
        ),
        ["lessons"] => print(&lesson_list()),
        ["lesson", name] => play_lesson(name, Lang::En),
        ["lesson", name, "--lang", code] => play_lesson(name, parse_lang(code)?),
        ["trace", file, options @ ..] => {
            let (max, lang) = trace_options(options)?;
            trace(file, max, lang)
        }
        ["example"] => print(
            &examples::names()
                .map(|n| format!("{n}\n"))
                .collect::<String>(),
        ),
        ["example", name] => {
            let json = examples::json(name).ok_or_else(|| {
                let known: Vec<&str> = examples::names().collect();
                format!("no example named {name:?} (known: {})", known.join(", "))
            })?;
            print(json)
        }
        _ => Err(USAGE.to_string()),
    }
}

/// The language whose code is `code`, for `--lang`.
fn parse_lang(code: &str) -> Result<Lang, String> {
    Lang::from_code(code).ok_or_else(|| format!("--lang is en or es, got {code:?}"))
}

/// `trace`'s options, in any order: `--max N` (default 200) and `--lang en|es` (default en).
fn trace_options(options: &[&str]) -> Result<(u64, Lang), String> {
    let (mut max, mut lang) = (200, Lang::En);
    let mut rest = options;
    while let [option, value, tail @ ..] = rest {
        match *option {
            "--max" => max = parse_max(value)?,
            "--lang" => lang = parse_lang(value)?,
            _ => return Err(format!("unknown option {option:?}; {USAGE}")),
        }
        rest = tail;
    }
    match rest {
        [] => Ok((max, lang)),
        [option, ..] => Err(format!("{option:?} wants a value; {USAGE}")),
    }
}

/// `--max N`: a whole number of steps, at most [`TRACE_STEPS_MAX`].
fn parse_max(n: &str) -> Result<u64, String> {
    let max: u64 = n
        .parse()
        .map_err(|_| format!("--max wants a whole number, got {n:?}"))?;
    if max > TRACE_STEPS_MAX {
        return Err(format!("--max is at most {TRACE_STEPS_MAX}, got {max}"));
    }
    Ok(max)
}

/// Writes to standard output; a closed pipe (`| head`) is not an error worth a panic.
fn print(text: &str) -> Result<(), String> {
    let _ = std::io::stdout().write_all(text.as_bytes());
    Ok(())
}

/// Reads at most one byte past the limit, so endless input (`/dev/zero`) is refused
/// without reading it all.
fn read_limited(mut input: impl Read, file: &str) -> Result<String, String> {
    let mut bytes = Vec::new();
    input
        .by_ref()
        .take(INPUT_BYTES_MAX + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {file:?}: {e}"))?;
    if bytes.len() as u64 > INPUT_BYTES_MAX {
        return Err(format!("{file:?} is larger than 1 MiB"));
    }
    String::from_utf8(bytes).map_err(|_| format!("{file:?} is not UTF-8 text"))
}

fn load(file: &str) -> Result<Scenario, String> {
    let text = if file == "-" {
        read_limited(std::io::stdin().lock(), file)?
    } else {
        let f = std::fs::File::open(file).map_err(|e| format!("cannot read {file:?}: {e}"))?;
        read_limited(f, file)?
    };
    Scenario::from_json(&text).map_err(|e| format!("{file:?}: {e}"))
}

fn start(file: &str) -> Result<Simulation, String> {
    Simulation::new(load(file)?).map_err(|e| format!("{file:?}: {e}"))
}

/// `run --link LINK [--moment] [--csv]`: to the end, or (`--moment`) stopped where the
/// link's page was, as JSON or CSV.
fn run_link(link: &str, flags: &[&str]) -> Result<(), String> {
    let csv = flags.contains(&"--csv");
    let moment = flags.contains(&"--moment");
    if let Some(unknown) = flags.iter().find(|f| !matches!(**f, "--csv" | "--moment")) {
        return Err(format!("unknown option {unknown:?}; {USAGE}"));
    }
    let render = |r: &Report| {
        if csv {
            r.series_csv()
        } else {
            r.to_json() + "\n"
        }
    };
    if !moment {
        let shared = link::decode(link).map_err(|e| e.to_string())?;
        return run_scenario(shared.recorded(), "the link's scenario", csv);
    }
    let shared = link::decode(link).map_err(|e| e.to_string())?;
    let sim = shared
        .simulation_at_moment()
        .map_err(|e| format!("the link's scenario: {e}"))?;
    print(&render(&Report::of(&sim)))
}

/// A share link for a built-in example, paused at `step`, with no command given.
fn make_link(name: &str, step: u64) -> Result<(), String> {
    let scenario = examples::load(name).ok_or_else(|| format!("no example named {name:?}"))?;
    let shared = link::Shared {
        scenario,
        example: Some(name.to_string()),
        commands: Vec::new(),
        step,
        at_us: 0,
        view: link::View::default(),
    };
    let text = link::encode(&shared);
    // Decoding checks the step against the limit, as the page will.
    link::decode(&text).map_err(|e| e.to_string())?;
    print(&format!("{text}\n"))
}

/// Runs to the end and prints the report; a budget stop is also said on stderr.
fn report(file: &str, csv: bool) -> Result<(), String> {
    run_scenario(load(file)?, &format!("{file:?}"), csv)
}

/// Runs `scenario` in the mode it resolves to (message by message, or aggregated beyond
/// the work budget) and prints its report as JSON or CSV. An aggregated run says so on
/// stderr too, since the CSV has no room for it.
fn run_scenario(scenario: Scenario, origin: &str, csv: bool) -> Result<(), String> {
    let mode = scenario.run_mode().map_err(|e| format!("{origin}: {e}"))?;
    if mode == RunMode::Aggregated {
        let run = aggregate::run(&scenario).map_err(|e| format!("{origin}: {e}"))?;
        print(&if csv {
            run.series_csv()
        } else {
            run.to_json() + "\n"
        })?;
        eprintln!(
            "brokerlab: {} ({} model steps)",
            one_line(&run.note),
            run.model_steps
        );
        return Ok(());
    }
    let sim = Simulation::new(scenario).map_err(|e| format!("{origin}: {e}"))?;
    report_of(sim, |r| {
        if csv {
            r.series_csv()
        } else {
            r.to_json() + "\n"
        }
    })
}

/// Runs `sim` to the end and prints the report; a budget stop is also said on stderr.
fn report_of(mut sim: Simulation, render: impl Fn(&Report) -> String) -> Result<(), String> {
    sim.run();
    print(&render(&Report::of(&sim)))?;
    if let Some(reason) = sim.end_reason().filter(|r| r.is_budget()) {
        eprintln!(
            "brokerlab: {} after {} steps",
            one_line(reason.describe()),
            sim.steps()
        );
    }
    Ok(())
}

/// Prints each step as it is taken, in `lang` (streamed: memory stays flat however long
/// the run).
fn trace(file: &str, max: u64, lang: Lang) -> Result<(), String> {
    let mut sim = start(file)?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    while sim.steps() < max {
        let Some(step) = sim.step() else { break };
        let (index, t, facts) = (step.index, step.time_us, step.facts.to_vec());
        for fact in &facts {
            let line = escape_controls(&narration::describe(&sim, fact, lang));
            let written = writeln!(out, "{index:>6}  {:>12.6} s  {line}", t as f64 / 1e6);
            if written.is_err() {
                return Ok(()); // the reader went away (`| head`)
            }
        }
    }
    if let Some(reason) = sim.end_reason().filter(|r| r.is_budget()) {
        let _ = writeln!(out, "        {}", reason.describe());
    }
    let _ = out.flush();
    Ok(())
}

/// One line per lesson: its name, its number of steps and its English title.
fn lesson_list() -> String {
    lessons::all()
        .iter()
        .map(|l| format!("{:<22} {} steps  {}\n", l.name, l.steps.len(), l.title.en))
        .collect()
}

/// Plays lesson `name` through its checkpoints, printing each step as the page would
/// show it: what to look at, the question, the right answer, then the explanation with
/// the figure read from the run where it paused.
fn play_lesson(name: &str, lang: Lang) -> Result<(), String> {
    let mut run = LessonRun::open(name).ok_or_else(|| {
        let known: Vec<&str> = lessons::all().iter().map(|l| l.name).collect();
        format!("no lesson named {name:?} (known: {})", known.join(", "))
    })?;
    let mut out = format!(
        "{}\n({}: {})\n",
        run.lesson.title.get(lang),
        label(lang, "scenario", "escenario"),
        run.lesson.scenario
    );
    while let Some(step) = run.current().cloned() {
        let (k, n) = run.progress();
        out += &format!("\n{} {k}/{n}\n", label(lang, "Step", "Paso"));
        let focus: Vec<String> = step.focus.iter().map(|f| f.label(lang)).collect();
        out += &format!("{}: {}\n", label(lang, "Look at", "Mira"), focus.join(", "));
        out += &format!("{}\n", step.question.get(lang));
        if let Prediction::Choices { options, .. } = &step.prediction {
            for (i, option) in options.iter().enumerate() {
                out += &format!("  {}) {}\n", i + 1, option.get(lang));
            }
        }
        out += &format!(
            "{}: {}\n",
            label(lang, "Answer", "Respuesta"),
            step.prediction.correct_answer(lang)
        );
        let played = run.play_step().expect("a current step plays");
        let at = lessons::number(run.sim.now_us() as f64 / 1e6, 2, lang);
        let paused = if played.reached {
            label(lang, "Paused at", "Pausa en")
        } else {
            label(
                lang,
                "The run ended first, at",
                "La ejecución terminó antes, en",
            )
        };
        out += &format!("[{paused} {at} s]\n{}\n", run.explain(played.index, lang));
    }
    print(&out)
}

/// A runner label in the lesson's language.
fn label(lang: Lang, en: &'static str, es: &'static str) -> &'static str {
    lessons::Text::new(en, es).get(lang)
}
