//! Share links: the exact situation on screen — the scenario (a built-in by name, or the
//! whole scenario inline), its seed, every command the user gave with the step it came
//! after, the step on show, and how the page showed it — in one URL-safe string.
//!
//! The string is `v1.` followed by the deflated JSON in URL-safe base64 (no padding). The
//! version comes first so that a link of every earlier version keeps opening: a future
//! version adds its own arm to [`decode`] and upgrades older documents to it.
//!
//! A link is untrusted input. Decoding never panics and stops early: a link longer than
//! [`LINK_CHARS_MAX`] is refused before decoding, the inflated document is capped at
//! [`DOC_BYTES_MAX`] (a zip bomb stops there), the JSON is parsed strictly, and the
//! scenario with the link's commands is validated like a scenario file.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::{Deserialize, Serialize};

use crate::compare::{Comparison, Variant};
use crate::examples;
use crate::scenario::{Intervention, Scenario, ScenarioError};
use crate::sim::Simulation;

/// The version this build writes.
pub const LINK_VERSION: u32 = 1;
/// Longest link text accepted (the part after `#s=`): far above any real link, far below
/// what would make decoding slow.
pub const LINK_CHARS_MAX: usize = 64 * 1024;
/// Largest inflated document accepted.
pub const DOC_BYTES_MAX: usize = 1 << 20;
/// Furthest step a link may point at: the page re-simulates up to it when it opens.
pub const LINK_STEP_MAX: u64 = 2_000_000;

/// What a link holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Shared {
    /// The scenario as loaded (without the user's commands), seed included.
    pub scenario: Scenario,
    /// The built-in example it is, if it is one (then the link names it instead of
    /// carrying it).
    pub example: Option<String>,
    /// The commands the user gave, in order, each with the step it came after.
    pub commands: Vec<Intervention>,
    /// The step on show.
    pub step: u64,
    /// The simulated instant on show, in µs: past the step's own time when the run was
    /// paused while playing (the clock runs between events). 0: the step's time.
    pub at_us: u64,
    /// How the page showed it; the simulation ignores this.
    pub view: View,
}

/// The page's side of a link: nothing here changes the run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct View {
    /// Simulated seconds per second.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speed: Option<f64>,
    /// The side panel on show (its key, e.g. `history`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub panel: Option<String>,
    /// The message whose history is open.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub msg: Option<u64>,
    /// The lesson on show, and where in it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lesson: Option<LessonView>,
    /// The language of the page (`en`, `es`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    /// The interview on show: its checklist, notes and hidden faults.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interview: Option<InterviewView>,
}

/// An interview in a link: per question of the review, whether it was covered and the
/// interviewer's note; which scheduled commands are hidden, and whether they were revealed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct InterviewView {
    pub done: Vec<bool>,
    pub notes: Vec<String>,
    /// Indices into the scenario's scheduled `commands`.
    pub hidden: Vec<usize>,
    pub revealed: bool,
}

/// Where a lesson stands in a link.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LessonView {
    /// The lesson's name ([`crate::lessons::find`]).
    pub name: String,
    /// The step on show (0-based).
    pub step: usize,
    /// Its explanation is shown (the run stands at its checkpoint).
    pub revealed: bool,
    /// The learner's predictions, per step: a choice's index or the number typed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub answers: Vec<Option<f64>>,
}

/// Why a link could not be opened: one sentence for the page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkError(pub String);

impl std::fmt::Display for LinkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn refuse(why: impl Into<String>) -> LinkError {
    LinkError(why.into())
}

/// The JSON document inside a version 1 link.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct DocV1 {
    /// A built-in example's name, or absent when `scenario` carries the scenario.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    example: Option<String>,
    /// The seed of a built-in example (an inline scenario carries its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
    /// The whole scenario, when it is not a built-in one (any scenario file version).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scenario: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    commands: Vec<Intervention>,
    #[serde(default)]
    step: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    at_us: u64,
    #[serde(default)]
    view: View,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The link text for `shared` (what goes after `#s=`).
pub fn encode(shared: &Shared) -> String {
    let (seed, scenario) = scenario_parts(&shared.scenario, &shared.example);
    let doc = DocV1 {
        example: shared.example.clone(),
        seed,
        scenario,
        commands: shared.commands.clone(),
        step: shared.step,
        at_us: shared.at_us,
        view: shared.view.clone(),
    };
    pack(LINK_VERSION, &doc)
}

/// Opens link text (the part after `#s=`, or a whole address holding it). Never panics.
pub fn decode(text: &str) -> Result<Shared, LinkError> {
    let text = checked_link_part(text)?;
    match text.split_once('.') {
        Some(("v1", body)) => decode_v1(body),
        Some(("v2", _)) => Err(refuse(
            "This link compares two runs side by side: it opens in compare mode.",
        )),
        Some((v, _)) if is_later_format(v) => Err(refuse(format!(
            "The link was made by a newer Broker Lab (format {}); this one reads formats {LINK_VERSION} and {COMPARE_LINK_VERSION}.",
            crate::text::escape_controls(&v.chars().take(12).collect::<String>())
        ))),
        Some((v, _)) if v.starts_with('v') => Err(refuse(format!(
            "This is not a Broker Lab link: its format version ({}) is not one Broker Lab has made.",
            crate::text::escape_controls(&v.chars().take(12).collect::<String>())
        ))),
        _ => Err(refuse("This is not a Broker Lab link: it has no format version.")),
    }
}

/// Whether `v` (the text before the link's first dot) names a format after the ones this
/// build reads: `v` and a number above them. `v0` or `vx` was never a format.
fn is_later_format(v: &str) -> bool {
    v.strip_prefix('v')
        .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|n| n.parse::<u64>().ok())
        .is_some_and(|n| n > u64::from(COMPARE_LINK_VERSION))
}

/// The link text inside an address: what follows `#s=` (or `s=` in a query), else the
/// text itself.
fn link_part(text: &str) -> &str {
    let text = text.trim();
    for marker in ["#s=", "?s=", "&s="] {
        if let Some(at) = text.rfind(marker) {
            let rest = &text[at + marker.len()..];
            return rest.split(['&', '#']).next().unwrap_or(rest);
        }
    }
    // The bare link text (what the page reads after `#s=`): a parameter someone appended
    // (`&t=30`, say) is not part of it. Neither character is in a link's alphabet.
    text.split(['&', '#']).next().unwrap_or(text)
}

fn decode_v1(body: &str) -> Result<Shared, LinkError> {
    shared_of(unpack_doc(body)?)
}

/// How a link names its scenario: a built-in example by name and seed, or else the whole
/// scenario.
fn scenario_parts(
    scenario: &Scenario,
    example: &Option<String>,
) -> (Option<u64>, Option<serde_json::Value>) {
    match example {
        Some(_) => (Some(scenario.seed), None),
        None => (
            None,
            Some(serde_json::to_value(scenario).expect("a scenario always serializes")),
        ),
    }
}

/// `v<version>.` then the document as JSON, deflated, in URL-safe base64: the packing
/// every link version shares (only the document changes between versions).
fn pack(version: u32, doc: &impl Serialize) -> String {
    let json = serde_json::to_vec(doc).expect("a link document always serializes");
    let packed = miniz_oxide::deflate::compress_to_vec(&json, 9);
    format!("v{version}.{}", URL_SAFE_NO_PAD.encode(packed))
}

/// The link text inside `text`, refused before any work when it is longer than a link
/// can be.
fn checked_link_part(text: &str) -> Result<&str, LinkError> {
    let text = link_part(text);
    if text.len() > LINK_CHARS_MAX {
        return Err(refuse(format!(
            "The link is too long ({} characters; at most {LINK_CHARS_MAX}).",
            text.len()
        )));
    }
    Ok(text)
}

/// A link's document of any version, from its packed body: parsed, then decoded the one
/// way every typed document is ([`crate::decode`]). A value that does not fit is refused
/// for its field ("step: invalid type: …"), as a scenario's are.
fn unpack_doc<T: serde::de::DeserializeOwned>(body: &str) -> Result<T, LinkError> {
    // serde echoes what it met: shown escaped (`decode` escapes its own words).
    let invalid = |e: String| refuse(format!("The link's content is not valid: {e}."));
    let json = unpack(body)?;
    let parse = || serde_json::from_slice::<serde_json::Value>(&json);
    let doc = parse().map_err(|e| invalid(crate::text::escape_controls(&e.to_string())))?;
    crate::decode::decode(doc).map_err(|words| {
        // The refused document was spent decoding: read again to find the field.
        let path = parse()
            .map(|doc| crate::decode::failing_path::<T>(&doc, &words))
            .unwrap_or_default();
        // An unknown field's words name it already.
        let named = words.starts_with(&format!("unknown field `{path}`"));
        invalid(match path.is_empty() || named {
            true => words,
            false => format!("{path}: {words}"),
        })
    })
}

/// The JSON inside a link's body: base64, then inflated within [`DOC_BYTES_MAX`].
fn unpack(body: &str) -> Result<Vec<u8>, LinkError> {
    let packed = URL_SAFE_NO_PAD.decode(body).map_err(|_| {
        refuse("The link is damaged: it is not valid URL-safe base64 (was it cut short?).")
    })?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, DOC_BYTES_MAX).map_err(
        |e| match e.status {
            miniz_oxide::inflate::TINFLStatus::HasMoreOutput => refuse(format!(
                "The link unpacks to more than {} MiB: refused.",
                DOC_BYTES_MAX >> 20
            )),
            _ => refuse("The link is damaged: its compressed data is broken (was it cut short?)."),
        },
    )?;
    Ok(json)
}

/// Checks a document and builds what it describes.
fn shared_of(doc: DocV1) -> Result<Shared, LinkError> {
    let (mut scenario, example) = load_scenario(doc.example, doc.seed, doc.scenario)?;
    unannounce_hidden(&mut scenario, &doc.view)?;
    if doc.step > LINK_STEP_MAX {
        return Err(refuse(format!(
            "The link points at step {}, past the last step a link may show ({LINK_STEP_MAX}).",
            doc.step
        )));
    }
    check_commands(&scenario, &doc.commands).map_err(scenario_error)?;
    Ok(Shared {
        scenario,
        example,
        commands: doc.commands,
        step: doc.step,
        at_us: doc.at_us,
        view: doc.view,
    })
}

/// An interview's hidden faults strike unannounced. Links made before scheduled commands
/// could say so themselves only list them in the interview: they are marked here. A link
/// that hides a command its scenario does not schedule was not made by the page (or was
/// edited by hand): refused, rather than opened with a fault the candidate never meets.
fn unannounce_hidden(scenario: &mut Scenario, view: &View) -> Result<(), LinkError> {
    let hidden = view.interview.iter().flat_map(|i| &i.hidden);
    for &index in hidden {
        let scheduled = scenario.commands.len();
        let Some(command) = scenario.commands.get_mut(index) else {
            return Err(refuse(format!(
                "The link hides scheduled fault {}, but its scenario schedules only {}.",
                index.saturating_add(1),
                scheduled
            )));
        };
        command.unannounced = true;
    }
    Ok(())
}

fn scenario_error(e: ScenarioError) -> LinkError {
    refuse(format!("The link's scenario is not valid: {e}."))
}

/// A link's scenario: a built-in one by name (with the link's seed), or the one it carries.
fn load_scenario(
    example: Option<String>,
    seed: Option<u64>,
    inline: Option<serde_json::Value>,
) -> Result<(Scenario, Option<String>), LinkError> {
    match (example, inline) {
        (Some(name), None) => {
            let mut s = examples::load(&name).ok_or_else(|| {
                refuse(format!(
                    "The link names a scenario this Broker Lab does not have: “{}”.",
                    crate::text::escape_controls(&name.chars().take(60).collect::<String>())
                ))
            })?;
            if let Some(seed) = seed {
                s.seed = seed;
            }
            Ok((s, Some(name)))
        }
        (None, Some(value)) => {
            let text = value.to_string();
            Ok((Scenario::from_json(&text).map_err(scenario_error)?, None))
        }
        _ => Err(refuse(
            "The link must name a built-in scenario or carry one, not both or neither.",
        )),
    }
}

/// The link's commands must be valid for its scenario, in step order.
fn check_commands(scenario: &Scenario, commands: &[Intervention]) -> Result<(), ScenarioError> {
    if commands
        .windows(2)
        .any(|w| w[1].after_step < w[0].after_step)
    {
        return Err(ScenarioError {
            field: "commands".into(),
            problem: "are not in step order".into(),
        });
    }
    let mut with = scenario.clone();
    with.interventions = commands.to_vec();
    with.validate()
}

impl Shared {
    /// The scenario with the user's commands, as the simulation replays it.
    pub fn recorded(&self) -> Scenario {
        let mut s = self.scenario.clone();
        s.interventions = self.commands.clone();
        s
    }

    /// The run at the moment the link shows: its commands replayed up to its step, then
    /// the clock on to its instant when no event falls before it (a run paused while
    /// playing). The page puts its player at the same moment, so the series so far are
    /// the same on both sides.
    pub fn simulation_at_moment(&self) -> Result<Simulation, ScenarioError> {
        let mut sim = Simulation::new(self.recorded())?;
        while sim.steps() < self.step && sim.step().is_some() {}
        let quiet = sim.next_step_time().is_none_or(|next| next > self.at_us);
        if sim.steps() == self.step && self.at_us > sim.now_us() && quiet {
            sim.run_until(self.at_us);
        }
        Ok(sim)
    }
}

// ----- compare links ---------------------------------------------------------------------

/// The version compare links are written in: `v2.` holds two runs of one scenario, side
/// A as loaded and side B as A with a variant, each with its own commands. Version 1
/// links (one run) keep opening with [`decode`]; [`open`] opens either.
pub const COMPARE_LINK_VERSION: u32 = 2;

/// What a compare link holds.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedComparison {
    /// Side A's scenario as loaded (without commands), seed included.
    pub scenario: Scenario,
    /// The built-in example side A is, if it is one.
    pub example: Option<String>,
    /// What side B changes.
    pub variant: Variant,
    /// The commands each side was given, each with the step (of that side) it came after.
    pub commands_a: Vec<Intervention>,
    pub commands_b: Vec<Intervention>,
    /// The shared clock on show, in µs.
    pub at_us: u64,
    pub view: View,
}

/// The JSON document inside a version 2 link.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct DocV2 {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    example: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scenario: Option<serde_json::Value>,
    variant: Variant,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    commands_a: Vec<Intervention>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    commands_b: Vec<Intervention>,
    #[serde(default, skip_serializing_if = "is_zero")]
    at_us: u64,
    #[serde(default)]
    view: View,
}

/// A link of either kind.
#[derive(Clone, Debug, PartialEq)]
pub enum Opened {
    Single(Shared),
    Compare(SharedComparison),
}

/// Opens a link of any version. Never panics.
pub fn open(text: &str) -> Result<Opened, LinkError> {
    if link_part(text).starts_with("v2.") {
        decode_comparison(text).map(Opened::Compare)
    } else {
        decode(text).map(Opened::Single)
    }
}

/// The link text for a comparison.
pub fn encode_comparison(shared: &SharedComparison) -> String {
    let (seed, scenario) = scenario_parts(&shared.scenario, &shared.example);
    let doc = DocV2 {
        example: shared.example.clone(),
        seed,
        scenario,
        variant: shared.variant.clone(),
        commands_a: shared.commands_a.clone(),
        commands_b: shared.commands_b.clone(),
        at_us: shared.at_us,
        view: shared.view.clone(),
    };
    pack(COMPARE_LINK_VERSION, &doc)
}

/// Opens a compare link (the part after `#s=`, or a whole address holding it).
pub fn decode_comparison(text: &str) -> Result<SharedComparison, LinkError> {
    let text = checked_link_part(text)?;
    let Some(body) = text.strip_prefix("v2.") else {
        return Err(refuse("This is not a compare link (format 2)."));
    };
    let doc: DocV2 = unpack_doc(body)?;
    let (mut scenario, example) = load_scenario(doc.example, doc.seed, doc.scenario)?;
    unannounce_hidden(&mut scenario, &doc.view)?;
    let b = doc.variant.apply(&scenario).map_err(scenario_error)?;
    crate::compare::check_same_inputs(&scenario, &b).map_err(scenario_error)?;
    check_commands(&scenario, &doc.commands_a).map_err(scenario_error)?;
    check_commands(&b, &doc.commands_b).map_err(scenario_error)?;
    Ok(SharedComparison {
        scenario,
        example,
        variant: doc.variant,
        commands_a: doc.commands_a,
        commands_b: doc.commands_b,
        at_us: doc.at_us,
        view: doc.view,
    })
}

impl SharedComparison {
    /// Both runs at the link's instant: each side's commands replayed, the shared clock
    /// moved to `at_us`.
    pub fn comparison_at_moment(&self) -> Result<Comparison, ScenarioError> {
        let mut c = Comparison::with_commands(
            self.scenario.clone(),
            self.variant.clone(),
            self.commands_a.clone(),
            self.commands_b.clone(),
        )?;
        c.advance_to(self.at_us);
        Ok(c)
    }

    /// What a comparison shows now, as a link's content.
    pub fn of(comparison: &Comparison, scenario: Scenario, example: Option<String>) -> Self {
        let (commands_a, commands_b) = comparison.commands();
        SharedComparison {
            scenario,
            example,
            variant: comparison.variant().clone(),
            commands_a,
            commands_b,
            at_us: comparison.now_us(),
            view: View::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn burst() -> Shared {
        Shared {
            scenario: examples::load("burst").expect("built in"),
            example: Some("burst".into()),
            commands: Vec::new(),
            step: 4_210,
            at_us: 0,
            view: View {
                speed: Some(10.0),
                panel: Some("counters".into()),
                msg: None,
                ..View::default()
            },
        }
    }

    #[test]
    fn a_link_round_trips() {
        let shared = burst();
        let text = encode(&shared);
        assert!(text.starts_with("v1."), "{text}");
        assert_eq!(decode(&text), Ok(shared.clone()));
        let inline = Shared {
            example: None,
            ..shared
        };
        assert_eq!(decode(&encode(&inline)), Ok(inline));
    }

    #[test]
    fn an_interviews_hidden_faults_open_unannounced_even_from_an_older_link() {
        // Links made before commands said `unannounced` list the hidden ones only in the
        // interview.
        let mut scenario = examples::load("crash-after-commit").expect("built in");
        let mut restart = scenario.commands[0].clone();
        restart.at_s = 5.0;
        scenario.commands.push(restart);
        let old = Shared {
            scenario,
            example: None,
            commands: Vec::new(),
            step: 0,
            at_us: 0,
            view: View {
                interview: Some(InterviewView {
                    hidden: vec![1],
                    ..InterviewView::default()
                }),
                ..View::default()
            },
        };
        assert!(old.scenario.commands.iter().all(|c| !c.unannounced));
        // One that hides a command the scenario does not have is refused in a sentence.
        let mut hostile = old.clone();
        hostile.view.interview = Some(InterviewView {
            hidden: vec![1, 99],
            ..InterviewView::default()
        });
        assert_eq!(
            decode(&encode(&hostile)).expect_err("no command 100").0,
            "The link hides scheduled fault 100, but its scenario schedules only 2."
        );
        let opened = decode(&encode(&old)).expect("opens");
        let marks: Vec<bool> = opened
            .scenario
            .commands
            .iter()
            .map(|c| c.unannounced)
            .collect();
        assert_eq!(marks, [false, true]);
        // Opened again, the link says the same.
        assert_eq!(decode(&encode(&opened)), Ok(opened));
    }

    #[test]
    fn a_built_in_scenario_makes_a_short_link() {
        let text = encode(&burst());
        assert!(text.len() < 120, "{} characters: {text}", text.len());
    }

    #[test]
    fn the_link_is_found_inside_an_address() {
        let text = encode(&burst());
        let address = format!("https://example.org/brokerlab/#s={text}");
        assert_eq!(decode(&address), decode(&text));
        assert_eq!(decode(&format!("{address}&x=1")), decode(&text));
        // The page hands over what follows `#s=`, appended parameters included.
        assert_eq!(decode(&format!("{text}&t=30")), decode(&text));
        assert_eq!(decode(&format!("{text}#top")), decode(&text));
    }

    #[test]
    fn bad_links_are_refused_in_one_sentence() {
        let good = encode(&burst());
        let cases = [
            String::new(),
            "hello".into(),
            "v9.abc".into(),
            "v1.***".into(),
            good[..good.len() / 2].to_string(),
            "v1.".to_string() + &"A".repeat(LINK_CHARS_MAX),
        ];
        for bad in cases {
            let e = decode(&bad).expect_err(&bad);
            assert!(e.0.ends_with('.') && !e.0.contains('\n'), "{e}");
        }
    }

    fn pack(json: &str) -> String {
        let packed = miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9);
        format!("v1.{}", URL_SAFE_NO_PAD.encode(packed))
    }

    #[test]
    fn a_zip_bomb_stops_at_the_limit() {
        let bomb = format!(
            "{{\"example\":\"burst\",\"x\":\"{}\"}}",
            " ".repeat(8 << 20)
        );
        let link = pack(&bomb);
        assert!(
            link.len() < LINK_CHARS_MAX,
            "small enough to get past the length check"
        );
        assert!(decode(&link).expect_err("refused").0.contains("MiB"));
    }

    #[test]
    fn a_valid_envelope_with_an_invalid_scenario_is_refused() {
        for json in [
            r#"{"example":"no-such-thing"}"#,
            r#"{"example":"<img src=x onerror=alert(1)>"}"#,
            r#"{"example":"burst","scenario":{}}"#,
            r#"{}"#,
            r#"{"scenario":{"name":"<b>x</b>"}}"#,
            r#"{"example":"burst","step":99999999999}"#,
            r#"{"example":"burst","unknown":1}"#,
            r#"[1,2,3]"#,
        ] {
            let e = decode(&pack(json)).expect_err(json);
            assert!(e.0.ends_with('.') && !e.0.contains('\n'), "{json}: {e}");
        }
    }

    /// A value of the link's own document that does not fit is refused for its field,
    /// named in plain words on the page; a whole number too large for it is said to be
    /// too large (JSON reads it as a float, which is never shown).
    #[test]
    fn a_bad_value_in_a_link_names_its_field() {
        use crate::lessons::Lang;
        use crate::refusal::link_problem_in;
        let refused = |json: &str| decode(&pack(json)).expect_err(json).0;
        let e = refused(r#"{"example":"burst","step":"abc"}"#);
        assert_eq!(
            e,
            "The link's content is not valid: step: invalid type: string \"abc\", expected u64."
        );
        assert_eq!(
            link_problem_in(&e, Lang::En),
            "The link's content is not valid: the step it shows (step) must be a whole number, 0 or more, not the text \"abc\"."
        );
        assert_eq!(
            link_problem_in(&e, Lang::Es),
            "El contenido del enlace no es válido: el paso que muestra (step) debe ser un número entero, 0 o más, no el texto \"abc\"."
        );
        let e = refused(r#"{"example":"burst","seed":1180591620717411303424}"#);
        assert!(e.contains("seed: "), "{e}");
        assert_eq!(
            link_problem_in(&e, Lang::En),
            "The link's content is not valid: the seed (seed) is too large (at most 18,446,744,073,709,551,615)."
        );
        assert_eq!(
            link_problem_in(&e, Lang::Es),
            "El contenido del enlace no es válido: la semilla (seed) es demasiado grande (como mucho 18.446.744.073.709.551.615)."
        );
        // Written as JavaScript writes 2^70: the same.
        let e = refused(r#"{"example":"burst","seed":1.1805916207174113e+21}"#);
        assert!(link_problem_in(&e, Lang::En)
            .ends_with("is too large (at most 18,446,744,073,709,551,615)."));
        // Deeper in: the path, after the field's plain words.
        let e = refused(r#"{"example":"burst","view":{"speed":"fast"}}"#);
        assert_eq!(
            link_problem_in(&e, Lang::En),
            "The link's content is not valid: in the page's view, view.speed must be a number, not the text \"fast\"."
        );
        let e = refused(r#"{"example":"burst","at_us":-4}"#);
        assert_eq!(
            link_problem_in(&e, Lang::En),
            "The link's content is not valid: the instant it shows (at_us) must be a whole number, 0 or more, not -4."
        );
        // An unknown field names itself; no float and no Rust type in any sentence.
        let e = refused(r#"{"example":"burst","unknown":1}"#);
        assert!(
            e.starts_with("The link's content is not valid: unknown field `unknown`"),
            "{e}"
        );
        for json in [
            r#"{"example":"burst","step":1e30}"#,
            r#"{"example":"burst","step":-1}"#,
            r#"{"example":"burst","commands":[{"after_step":"x"}]}"#,
            r#"{"example":"burst","view":{"lesson":{"step":99999999999999999999999}}}"#,
        ] {
            for lang in Lang::ALL {
                let said = link_problem_in(&refused(json), lang);
                for jargon in ["u64", "usize", "floating point", "e30", "e+"] {
                    assert!(!said.contains(jargon), "{json}: {said}");
                }
            }
        }
    }

    #[test]
    fn a_command_the_scenario_cannot_take_is_refused() {
        let mut shared = burst();
        shared.commands.push(Intervention {
            after_step: 10,
            at_us: 0,
            command: crate::Command::RestartConsumer {
                consumer: crate::ConsumerId::new(9_999),
            },
        });
        let e = decode(&encode(&shared)).expect_err("no consumer 9999");
        assert!(e.0.starts_with("The link's scenario is not valid:"), "{e}");
    }

    fn inbox_comparison() -> SharedComparison {
        let variant = Variant {
            changes: vec![crate::compare::Change::parse("consumers.*.idempotency=none").unwrap()],
        };
        SharedComparison {
            scenario: examples::load("inbox-vs-check").expect("built in"),
            example: Some("inbox-vs-check".into()),
            variant,
            commands_a: vec![Intervention {
                after_step: 3,
                at_us: 1_000,
                command: crate::Command::CrashBroker {
                    restart_after_s: Some(1.0),
                },
            }],
            commands_b: Vec::new(),
            at_us: 2_500_000,
            view: View::default(),
        }
    }

    #[test]
    fn a_compare_link_round_trips_and_opens_as_a_comparison() {
        let shared = inbox_comparison();
        let text = encode_comparison(&shared);
        assert!(text.starts_with("v2."), "{text}");
        assert_eq!(decode_comparison(&text), Ok(shared.clone()));
        assert_eq!(open(&text), Ok(Opened::Compare(shared.clone())));
        let inline = SharedComparison {
            example: None,
            ..shared
        };
        assert_eq!(decode_comparison(&encode_comparison(&inline)), Ok(inline));
        // A one-run reader says what the link is instead of failing obscurely.
        assert!(decode(&text).expect_err("v2").0.contains("compare mode"));
        // A later format is refused naming both this page reads (it said "reads format
        // 1", and the page opens compare links too), in either language.
        let later = open("v9.abc").expect_err("a later format");
        assert_eq!(
            later.0,
            "The link was made by a newer Broker Lab (format v9); this one reads formats 1 and 2."
        );
        assert_eq!(
            crate::refusal::link_problem_in(&later.0, crate::lessons::Lang::Es),
            "El enlace se hizo con un Broker Lab más reciente (formato v9); este lee los formatos 1 y 2."
        );
        // `v0`, `v1x` or `vx` was never a format: not "made by a newer Broker Lab".
        for text in ["v0.abc", "vx.abc", "v1x.abc", "v-3.abc"] {
            let never = open(text).expect_err("never a format");
            let v = text.split_once('.').unwrap().0;
            assert_eq!(
                never.0,
                format!("This is not a Broker Lab link: its format version ({v}) is not one Broker Lab has made.")
            );
            assert!(
                crate::refusal::link_problem_in(&never.0, crate::lessons::Lang::Es)
                    .starts_with("Esto no es un enlace de Broker Lab: la versión de su formato")
            );
        }
        // And a version 1 link opens through `open` as before.
        let v1 = encode(&burst());
        assert_eq!(open(&v1), Ok(Opened::Single(burst())));
    }

    #[test]
    fn a_compare_link_replays_both_sides_to_its_moment() {
        let shared = inbox_comparison();
        let c = shared.comparison_at_moment().expect("valid");
        assert_eq!(c.now_us(), shared.at_us);
        let (a, b) = c.commands();
        assert_eq!(
            (a, b),
            (shared.commands_a.clone(), shared.commands_b.clone())
        );
        let again = SharedComparison::of(&c, shared.scenario.clone(), shared.example.clone());
        assert_eq!(decode_comparison(&encode_comparison(&again)), Ok(again));
    }

    #[test]
    fn a_compare_link_with_a_bad_variant_is_refused_in_one_sentence() {
        let mut shared = inbox_comparison();
        shared.variant.changes[0].value = serde_json::Value::from("sometimes");
        let e = decode_comparison(&encode_comparison(&shared)).expect_err("bad value");
        assert!(e.0.ends_with('.') && !e.0.contains('\n'), "{e}");
        shared.variant.changes[0] = crate::compare::Change::parse("seed=9").unwrap();
        let e = decode_comparison(&encode_comparison(&shared)).expect_err("another seed");
        assert!(e.0.contains("seed"), "{e}");
    }

    #[test]
    fn the_checked_in_version_1_link_still_opens() {
        // Made by this build's encoder for burst, seed 7, step 4,210, no commands.
        let v1 = include_str!("../tests/links/v1-burst.txt").trim();
        let shared = decode(v1).expect("opens");
        assert_eq!(shared.example.as_deref(), Some("burst"));
        assert_eq!(shared.step, 4_210);
        assert_eq!(shared.scenario.seed, 7);
    }
}
