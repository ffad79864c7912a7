//! `brokerlab`: the headless runner over the same core as the page.
//!
//!   brokerlab run FILE.json [--csv]    run a scenario, print a JSON report (or the series as CSV)
//!   brokerlab trace FILE.json [--max N] [--lang es]  print each step as sentences (first N
//!                                      steps, default 200), in English or Spanish
//!   brokerlab example [NAME]           list the built-in examples, or print one as JSON
//!   brokerlab run --link LINK [--csv] [--lang es]  run what a share link holds (its scenario
//!                                      and commands); a refused link is said as the page says it
//!   brokerlab run --link LINK --moment [--csv]  the same, stopped at the moment the link shows
//!   brokerlab link NAME [--step N]     print a share link for a built-in example
//!   brokerlab lessons                  list the lessons
//!   brokerlab lesson NAME [--lang es]  play a lesson: each step's question, answer and explanation
//!   brokerlab compare (--example NAME | FILE.json) --set KEY=VALUE ... [--seed N] [--until S]
//!                    [--link]          run the scenario (A) and A with the settings changed (B)
//!                                      in lockstep; print both sides' counters and differences
//!   brokerlab import rabbitmq FILE [--lang es]  a RabbitMQ definitions file as a scenario
//!   brokerlab import kafka FILE [--lang es]     a Kafka description as a scenario: the
//!                                      scenario JSON on stdout, what was ignored or assumed
//!                                      on stderr (one line each)
//!
//! FILE may be `-` for standard input. Bad input: one line on stderr and exit code 2.
//! A run that stops at the work budget still prints its report (its `end_reason` says
//! which limit) and adds one line on stderr saying so. `run` and `trace` say on stderr
//! each scheduled command at or after the scenario's `end_s` (one line each). A trace's last line says why the
//! run ended, or that `--max` cut it first.

use std::io::{BufWriter, Read, Write};
use std::process::ExitCode;

use brokerlab_core::compare::{Change, Comparison, Variant};
use brokerlab_core::lang::number;
use brokerlab_core::lessons::{self, Lang, LessonRun, Prediction};
use brokerlab_core::text::{escape_controls, one_line};
use brokerlab_core::{aggregate, examples, link, narration, Report, RunMode, Scenario, Simulation};

const USAGE: &str = "usage: brokerlab run FILE.json [--csv] | brokerlab run --link LINK [--moment] [--csv] [--lang en|es] | brokerlab trace FILE.json [--max N] [--lang en|es] | brokerlab example [NAME] | brokerlab link NAME [--step N] | brokerlab lessons | brokerlab lesson NAME [--lang en|es] | brokerlab compare (--example NAME | FILE.json) --set KEY=VALUE ... [--seed N] [--until S] [--link] | brokerlab import rabbitmq|kafka FILE [--lang en|es]";

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
        ["compare", options @ ..] => compare(options),
        ["import", kind, file] => import(kind, file, Lang::En),
        ["import", kind, file, "--lang", code] => import(kind, file, parse_lang(code)?),
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

/// A file's text (`-`: standard input), at most 1 MiB of UTF-8.
fn read_file(file: &str) -> Result<String, String> {
    if file == "-" {
        read_limited(std::io::stdin().lock(), file)
    } else {
        let f = std::fs::File::open(file).map_err(|e| format!("cannot read {file:?}: {e}"))?;
        read_limited(f, file)
    }
}

fn load(file: &str) -> Result<Scenario, String> {
    let text = read_file(file)?;
    Scenario::from_json(&text).map_err(|e| format!("{file:?}: {e}"))
}

/// `import rabbitmq|kafka FILE`: the scenario on stdout, each note on its own line on
/// stderr, in `lang`.
fn import(kind: &str, file: &str, lang: Lang) -> Result<(), String> {
    let convert = match kind {
        "rabbitmq" => brokerlab_core::import::rabbitmq::import,
        "kafka" => brokerlab_core::import::kafka::import,
        _ => return Err(format!("import reads rabbitmq or kafka, got {kind:?}")),
    };
    let text = read_file(file)?;
    let imported =
        convert(text.as_bytes()).map_err(|e| format!("{file:?}: {}", e.describe(lang)))?;
    for note in &imported.notes {
        eprintln!("{}", one_line(&note.describe(lang)));
    }
    print(&(imported.scenario.to_json_pretty() + "\n"))
}

/// `compare`'s options: the scenario, the changes, and how far to run.
struct CompareArgs {
    scenario: Scenario,
    example: Option<String>,
    variant: Variant,
    until_s: Option<f64>,
    link: bool,
}

fn compare_args(options: &[&str]) -> Result<CompareArgs, String> {
    let (mut source, mut example, mut seed) = (None, None, None);
    let (mut changes, mut until_s, mut link) = (Vec::new(), None, false);
    let mut rest = options;
    while let [option, tail @ ..] = rest {
        rest = tail;
        if *option == "--link" {
            link = true;
            continue;
        }
        if !option.starts_with("--") {
            source = Some(load(option)?);
            continue;
        }
        let [value, tail @ ..] = rest else {
            return Err(format!("{option:?} wants a value; {USAGE}"));
        };
        rest = tail;
        match *option {
            "--example" => {
                source = Some(
                    examples::load(value).ok_or_else(|| format!("no example named {value:?}"))?,
                );
                example = Some(value.to_string());
            }
            "--set" => changes.push(Change::parse(value).map_err(|e| e.to_string())?),
            "--seed" => {
                seed = Some(
                    value
                        .parse()
                        .map_err(|_| format!("--seed wants a whole number, got {value:?}"))?,
                )
            }
            "--until" => until_s = Some(parse_seconds(value)?),
            _ => return Err(format!("unknown option {option:?}; {USAGE}")),
        }
    }
    let mut scenario =
        source.ok_or_else(|| format!("compare needs --example NAME or a file; {USAGE}"))?;
    if let Some(seed) = seed {
        scenario.seed = seed;
    }
    Ok(CompareArgs {
        scenario,
        example,
        variant: Variant { changes },
        until_s,
        link,
    })
}

/// `--until S`: a time in seconds, within the scenario limits.
fn parse_seconds(value: &str) -> Result<f64, String> {
    match value.parse::<f64>() {
        Ok(s) if (0.0..=brokerlab_core::scenario::limits::TIME_S_MAX).contains(&s) => Ok(s),
        _ => Err(format!("--until wants seconds, got {value:?}")),
    }
}

/// `compare`: both sides to `--until` (or to their end), then the counters side by side.
fn compare(options: &[&str]) -> Result<(), String> {
    let args = compare_args(options)?;
    let mut c =
        Comparison::new(args.scenario.clone(), args.variant.clone()).map_err(|e| e.to_string())?;
    match args.until_s {
        Some(s) => c.advance_to(brokerlab_core::secs_to_us(s)),
        None => c.run(),
    }
    let mut out = String::new();
    let changes: Vec<String> = args
        .variant
        .changes
        .iter()
        .map(|ch| format!("{}={}", ch.path, ch.value))
        .collect();
    out += &format!(
        "A: {} (seed {})\nB: A with {}\n",
        args.scenario.name,
        args.scenario.seed,
        changes.join(", ")
    );
    out += &format!(
        "at {:.3} s\n\n{:<28}{:>12}{:>12}{:>12}\n",
        c.now_us() as f64 / 1e6,
        "counter",
        "A",
        "B",
        "B − A"
    );
    for pair in c.counters().iter().filter(|p| p.a != 0 || p.b != 0) {
        let mark = if pair.a == pair.b {
            String::new()
        } else {
            format!("{:+}", pair.delta())
        };
        out += &format!(
            "{:<28}{:>12}{:>12}{:>12}\n",
            pair.name, pair.a, pair.b, mark
        );
    }
    let (sa, sb) = c.summaries();
    out += &format!(
        "{:<28}{:>12.3}{:>12.3}\n",
        "throughput_per_s", sa.throughput_per_s, sb.throughput_per_s
    );
    if sa.record_throughput_per_s != 0.0 || sb.record_throughput_per_s != 0.0 {
        out += &format!(
            "{:<28}{:>12.3}{:>12.3}\n",
            "record_throughput_per_s", sa.record_throughput_per_s, sb.record_throughput_per_s
        );
    }
    out += &format!(
        "{:<28}{:>12.3}{:>12.3}\n",
        "latency_p95_s", sa.latency_p95_s, sb.latency_p95_s
    );
    let names: Vec<String> = c.differences().into_iter().map(|p| p.name).collect();
    out += &format!(
        "\ndiffering: {}\n",
        if names.is_empty() {
            "none".into()
        } else {
            names.join(", ")
        }
    );
    if args.link {
        let shared = link::SharedComparison::of(&c, args.scenario, args.example);
        out += &format!("{}\n", link::encode_comparison(&shared));
    }
    print(&out)
}

fn start(file: &str) -> Result<Simulation, String> {
    Simulation::new(load(file)?).map_err(|e| format!("{file:?}: {e}"))
}

/// `run --link LINK [--moment] [--csv] [--lang en|es]`: to the end, or (`--moment`)
/// stopped where the link's page was, as JSON or CSV. A link refused is said as the page
/// says it, in `--lang`.
fn run_link(link: &str, flags: &[&str]) -> Result<(), String> {
    let (mut csv, mut moment, mut lang) = (false, false, Lang::En);
    let mut rest = flags.iter();
    while let Some(&flag) = rest.next() {
        match flag {
            "--csv" => csv = true,
            "--moment" => moment = true,
            "--lang" => {
                let code = rest
                    .next()
                    .ok_or_else(|| "--lang wants en or es".to_string())?;
                lang = parse_lang(code)?;
            }
            unknown => return Err(format!("unknown option {unknown:?}; {USAGE}")),
        }
    }
    let render = |r: &Report| {
        if csv {
            r.series_csv()
        } else {
            r.to_json() + "\n"
        }
    };
    let shared = link::decode(link).map_err(|e| link_unreadable(&e.to_string(), lang))?;
    let cannot_start = |e: String| link_cannot_start(&e, lang);
    if !moment {
        return run_scenario_or(shared.recorded(), &cannot_start, csv);
    }
    let sim = shared
        .simulation_at_moment()
        .map_err(|e| cannot_start(e.to_string()))?;
    print(&render(&Report::of(&sim)))
}

/// A link that could not be read, in one sentence as the page says it
/// (`panels.share.unreadable`): "This link could not be opened: …".
fn link_unreadable(problem: &str, lang: Lang) -> String {
    let problem = brokerlab_core::refusal::link_problem_in(problem, lang);
    match lang {
        Lang::En => format!("This link could not be opened: {problem}"),
        Lang::Es => format!("No se pudo abrir este enlace: {problem}"),
    }
}

/// A link whose scenario could not start, as the page says it
/// (`panels.share.cannot_start`).
fn link_cannot_start(problem: &str, lang: Lang) -> String {
    let problem = brokerlab_core::refusal::field_problem_in(problem, lang);
    match lang {
        Lang::En => format!("The link's scenario could not start: {problem}."),
        Lang::Es => format!("El escenario del enlace no pudo arrancar: {problem}."),
    }
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
    run_scenario_or(scenario, &|e| format!("{origin}: {e}"), csv)
}

/// [`run_scenario`], a refusal said by `refused` (given the core's words).
fn run_scenario_or(
    scenario: Scenario,
    refused: &dyn Fn(String) -> String,
    csv: bool,
) -> Result<(), String> {
    say_late_commands(&scenario);
    let mode = scenario.run_mode().map_err(|e| refused(e.to_string()))?;
    if mode == RunMode::Aggregated {
        let run = aggregate::run(&scenario).map_err(|e| refused(e.to_string()))?;
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
    let sim = Simulation::new(scenario).map_err(|e| refused(e.to_string()))?;
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

/// One line on stderr per scheduled command at or after the scenario's end time: one
/// after it never happens, one at it happens with nothing after it to show.
fn say_late_commands(scenario: &Scenario) {
    for late in scenario.late_commands() {
        eprintln!(
            "brokerlab: {}",
            one_line(&scenario.late_command_note(&late))
        );
    }
}

/// Prints each step as it is taken, in `lang` (streamed: memory stays flat however long
/// the run).
fn trace(file: &str, max: u64, lang: Lang) -> Result<(), String> {
    let mut sim = start(file)?;
    say_late_commands(sim.scenario());
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    while sim.steps() < max {
        let Some(step) = sim.step() else { break };
        let (index, t, facts) = (step.index, step.time_us, step.facts.to_vec());
        for fact in &facts {
            let line = escape_controls(&narration::describe(&sim, fact, lang));
            // The instant in the language's decimal way: "1.000000" would read as a
            // million in Spanish.
            let at = format!("{:>12.6}", t as f64 / 1e6).replace('.', &lang.decimal().to_string());
            let written = writeln!(out, "{index:>6}  {at} s  {line}");
            if written.is_err() {
                return Ok(()); // the reader went away (`| head`)
            }
        }
    }
    let _ = writeln!(out, "        {}", trace_end(&sim, max, lang));
    let _ = out.flush();
    Ok(())
}

/// The trace's last line, in `lang`: why the run ended (drained, stalled, its end time,
/// the work budget, the time limit), or, when `--max` cut the trace first, that the run
/// had not ended.
fn trace_end(sim: &Simulation, max: u64, lang: Lang) -> String {
    let steps = format!(
        "{} {}",
        number(sim.steps() as f64, 0, lang),
        if sim.steps() == 1 {
            label(lang, "step", "paso")
        } else {
            label(lang, "steps", "pasos")
        }
    );
    match sim.end_reason() {
        Some(reason) => format!(
            "{} {steps} — {}",
            label(lang, "The run ended after", "La ejecución terminó tras"),
            reason.describe_in(lang)
        ),
        None => format!(
            "{} {steps} (--max {max}); {}",
            label(lang, "The trace was cut after", "La traza se cortó tras"),
            label(
                lang,
                "the run had not ended",
                "la ejecución no había terminado"
            )
        ),
    }
}

/// One line per lesson: its name, its number of steps and its English title.
fn lesson_list() -> String {
    lessons::all()
        .iter()
        .map(|l| format!("{:<22} {} steps  {}\n", l.name, l.steps.len(), l.title.en))
        .collect()
}

/// Plays lesson `name` through its checkpoints, printing each step as the page would
/// show it: what to look at, the question, then, played to its checkpoint, the right
/// answer and the explanation with the figure read from the run where it paused.
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
            // In the order the page shows them.
            for (place, i) in step.prediction.shown_order().into_iter().enumerate() {
                out += &format!("  {}) {}\n", place + 1, options[i].get(lang));
            }
        }
        let played = run.play_step().expect("a current step plays");
        // The figure this run shows where it paused, as the page's verdict tells it (a
        // number question's expected value is only near it).
        out += &format!(
            "{}: {}\n",
            label(lang, "Answer", "Respuesta"),
            step.answer_at(&run.sim, lang)
        );
        // The clock in tenths of a second, as the page's reads; and when the run went
        // quiet before the checkpoint, when its last step was (the page's timeline ends
        // near there, not at the checkpoint).
        let tenths = |s: f64| format!("{s:.1}").replace('.', &lang.decimal().to_string());
        let summary = run.sim.summary();
        let at = tenths(summary.end_s);
        let quiet = if run.sim.is_finished() && summary.last_step_s < summary.end_s {
            let last = tenths(summary.last_step_s);
            format!(
                "; {} {last} s",
                label(lang, "its last step was at", "su último paso fue a los")
            )
        } else {
            String::new()
        };
        let paused = if played.reached {
            label(lang, "Paused at", "Pausa en")
        } else {
            label(
                lang,
                "The run ended first, at",
                "La ejecución terminó antes, en",
            )
        };
        out += &format!(
            "[{paused} {at} s{quiet}]\n{}\n",
            run.explain(played.index, lang)
        );
    }
    print(&out)
}

/// A runner label in the lesson's language.
fn label(lang: Lang, en: &'static str, es: &'static str) -> &'static str {
    lessons::Text::new(en, es).get(lang)
}
