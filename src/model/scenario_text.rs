//! The scenario editor's text: the JSON of a scenario, checked by the core, and a refusal
//! placed at the line it is about. The core names the field at fault as a path
//! (`queues[0].visibility_timeout_s`, and for a value of the wrong type, an unknown field
//! or variant, `seed` or `consumers[0].prefetch`) or, for text that is not valid JSON, a
//! line and a column; this module finds that line in the text the user typed, so the
//! editor can mark it and say the sentence beside it.

use brokerlab_core::lessons::Lang;
use brokerlab_core::{Scenario, ScenarioError};

use crate::i18n::{locale, td_string};

/// Why the editor's text was refused, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextError {
    /// The line (1-based) the problem is about.
    pub line: usize,
    /// One sentence, for the page (plain text: it may echo names the user typed).
    pub message: String,
}

/// The editor's starting text for a scenario: pretty JSON, without the user's commands
/// (those belong to the run, not to the scenario).
pub fn text_of(scenario: &Scenario) -> String {
    let mut base = scenario.clone();
    base.interventions.clear();
    base.to_json_pretty()
}

/// Parses and validates the editor's text with the core; a refusal comes back placed,
/// its sentence in `lang`.
pub fn check(text: &str, lang: Lang) -> Result<Scenario, TextError> {
    Scenario::from_json(text).map_err(|e| place(text, &e, lang))
}

/// Puts a refusal of `text` at its line, with its sentence.
pub fn place(text: &str, e: &ScenarioError, lang: Lang) -> TextError {
    let line = if e.field == "scenario" {
        serde_line(&e.problem)
            .or_else(|| named_line(text, &e.problem))
            .unwrap_or(1)
    } else {
        field_line(text, &e.field).unwrap_or(1)
    };
    TextError {
        line,
        message: sentence(e, lang),
    }
}

/// The refusal as one sentence: the field, then what is wrong with it (the core's words).
fn sentence(e: &ScenarioError, lang: Lang) -> String {
    let problem = e.problem_in(lang);
    let problem = problem.trim_end_matches('.');
    if e.field == "scenario" {
        td_string!(locale(lang), panels.editor.scenario_problem, problem).to_string()
    } else {
        format!("{}: {problem}.", e.field)
    }
}

/// The line serde names in an error message ("… at line 12 column 5").
pub fn serde_line(problem: &str) -> Option<usize> {
    let at = problem.rfind(" at line ")?;
    let rest = &problem[at + " at line ".len()..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok().filter(|&n| n > 0)
}

/// Where the name serde quotes in a problem is written: an unknown field's key
/// (`` unknown field `prefech` ``), or an unknown variant or a string of the wrong kind as
/// a value (`` unknown variant `sometimes` ``, `invalid type: string "two"`). The core
/// names the field of such a problem (its `failing_path`), so this is only for one it
/// could not place (then the problem is about the whole scenario). A problem that quotes
/// nothing, or a missing field (whose name is written in the objects that have it), is
/// not placed.
fn named_line(text: &str, problem: &str) -> Option<usize> {
    if problem.contains("missing field") {
        return None;
    }
    let key = problem.contains("unknown field");
    let start = problem.find(['`', '"'])?;
    let quote = problem[start..].chars().next()?;
    let name = &problem[start + 1..];
    let name = &name[..name.find(quote)?];
    let needle = format!("\"{name}\"");
    let at = text.match_indices(&needle).map(|(at, _)| at).find(|&at| {
        let after = text[at + needle.len()..].trim_start();
        after.starts_with(':') == key
    })?;
    Some(1 + text[..at].matches('\n').count())
}

/// One step of a field path: a key of an object or an index in an array.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

/// `queues[0].retry.max_attempts` → Key queues, Index 0, Key retry, Key max_attempts.
fn steps(path: &str) -> Vec<Step> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (key, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !key.is_empty() {
            out.push(Step::Key(key.to_string()));
        }
        while let Some(close) = rest.find(']') {
            if let Ok(i) = rest[1..close].parse() {
                out.push(Step::Index(i));
            }
            rest = &rest[close + 1..];
        }
    }
    out
}

/// The line (1-based) where the field at `path` is written in `text`: its key, or its
/// element in an array. A field that is not written (it has its default) is placed at the
/// nearest enclosing one that is. `None` when the text is not JSON.
pub fn field_line(text: &str, path: &str) -> Option<usize> {
    let mut scan = Scanner::new(text);
    scan.skip_space();
    let mut line = scan.line();
    for step in steps(path) {
        match scan.enter(&step) {
            Some(at) => line = at,
            None => break,
        }
    }
    Some(line)
}

/// A small reader over JSON text that keeps track of lines, enough to walk down a path
/// (strings with escapes, nested values); it gives up quietly on text that is not JSON.
struct Scanner<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Scanner<'a> {
    fn new(text: &'a str) -> Self {
        Self {
            bytes: text.as_bytes(),
            at: 0,
        }
    }

    /// The line of the current position.
    fn line(&self) -> usize {
        1 + self.bytes[..self.at]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    /// Expects `b` (after blanks) and steps over it.
    fn eat(&mut self, b: u8) -> Option<()> {
        self.skip_space();
        (self.peek()? == b).then(|| self.at += 1)
    }

    /// Reads a string (the position is at its opening quote) and returns it unescaped
    /// enough to compare keys (escapes are kept as written).
    fn string(&mut self) -> Option<String> {
        self.eat(b'"')?;
        let start = self.at;
        loop {
            match self.peek()? {
                b'\\' => self.at += 2,
                b'"' => break,
                _ => self.at += 1,
            }
        }
        let s = std::str::from_utf8(self.bytes.get(start..self.at)?).ok()?;
        self.at += 1;
        Some(s.to_string())
    }

    /// Steps over one value of any kind.
    fn skip_value(&mut self) -> Option<()> {
        self.skip_space();
        match self.peek()? {
            b'"' => self.string().map(|_| ()),
            b'{' | b'[' => self.skip_nested(),
            _ => {
                while self
                    .peek()
                    .is_some_and(|b| !matches!(b, b',' | b'}' | b']') && !b.is_ascii_whitespace())
                {
                    self.at += 1;
                }
                Some(())
            }
        }
    }

    /// Steps over an object or array, strings inside included.
    fn skip_nested(&mut self) -> Option<()> {
        let mut depth = 0usize;
        loop {
            match self.peek()? {
                b'"' => {
                    self.string()?;
                    continue;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        self.at += 1;
                        return Some(());
                    }
                }
                _ => {}
            }
            self.at += 1;
        }
    }

    /// Moves into the value `step` names inside the current value and returns the line
    /// it is written on; the position is then at that value.
    fn enter(&mut self, step: &Step) -> Option<usize> {
        let start = self.at;
        let found = match step {
            Step::Key(key) => self.enter_key(key),
            Step::Index(i) => self.enter_index(*i),
        };
        if found.is_none() {
            self.at = start;
        }
        found
    }

    /// In an object: the value of `key`. An enum written as `{"variant": {…}}` (the
    /// core's commands) is looked through: a key missing here is looked for inside the
    /// only entry.
    fn enter_key(&mut self, key: &str) -> Option<usize> {
        let object = self.at;
        self.eat(b'{')?;
        let mut entries = 0;
        let mut only = None;
        loop {
            self.skip_space();
            if self.peek()? == b'}' {
                break;
            }
            let line = self.line();
            let name = self.string()?;
            self.eat(b':')?;
            self.skip_space();
            if name == key {
                return Some(line);
            }
            entries += 1;
            only = Some(self.at);
            self.skip_value()?;
            self.skip_space();
            if self.peek()? == b',' {
                self.at += 1;
            }
        }
        match (entries, only) {
            (1, Some(inner)) if self.bytes.get(inner) == Some(&b'{') => {
                self.at = inner;
                self.enter_key(key)
            }
            _ => {
                self.at = object;
                None
            }
        }
    }

    /// In an array: element `i`.
    fn enter_index(&mut self, i: usize) -> Option<usize> {
        self.eat(b'[')?;
        for _ in 0..i {
            self.skip_value()?;
            self.eat(b',')?;
        }
        self.skip_space();
        if self.peek()? == b']' {
            return None;
        }
        Some(self.line())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::examples;

    fn account_42() -> String {
        text_of(&examples::load("account-42").expect("built in"))
    }

    /// The 1-based line of the first line of `text` that contains `needle`.
    fn line_of(text: &str, needle: &str) -> usize {
        1 + text
            .lines()
            .position(|l| l.contains(needle))
            .expect("present")
    }

    #[test]
    fn the_text_of_a_scenario_reads_back_as_the_same_scenario() {
        for name in examples::names() {
            let scenario = examples::load(name).expect("built in");
            assert_eq!(check(&text_of(&scenario), Lang::En), Ok(scenario), "{name}");
        }
    }

    #[test]
    fn an_invalid_value_is_placed_at_its_field() {
        let text = account_42().replace(
            "\"visibility_timeout_s\": 30.0",
            "\"visibility_timeout_s\": -4.0",
        );
        let e = check(&text, Lang::En).expect_err("negative lease");
        assert_eq!(e.line, line_of(&text, "visibility_timeout_s"));
        assert!(
            e.message
                .starts_with("queues[0].visibility_timeout_s: must be"),
            "{}",
            e.message
        );
        assert!(e.message.ends_with('.'), "one sentence: {}", e.message);
    }

    #[test]
    fn a_field_deep_in_an_array_is_found_among_its_siblings() {
        let text = account_42();
        let at = field_line(&text, "producers[0].script[1].op").expect("json");
        assert_eq!(at, line_of(&text, "\"withdraw\"") - 1);
        let retry = field_line(&text, "consumers[0].retry.max_attempts").expect("json");
        assert_eq!(retry, line_of(&text, "\"max_attempts\""));
        // Not written (a default): the nearest enclosing field that is.
        let absent = field_line(&text, "consumers[0].batch_size").expect("json");
        assert_eq!(absent, line_of(&text, "\"consumers\"") + 1);
    }

    #[test]
    fn a_command_is_looked_through_its_variant() {
        let mut s = examples::load("mm1").expect("built in");
        s.commands.push(brokerlab_core::ScheduledCommand {
            at_s: 3.0,
            command: brokerlab_core::Command::CrashConsumer {
                consumer: brokerlab_core::ConsumerId::new(7),
                point: brokerlab_core::CrashPoint::Now,
                restart_after_s: None,
            },
            unannounced: false,
        });
        let text = s.to_json_pretty();
        let e = check(&text, Lang::En).expect_err("no consumer 7");
        assert_eq!(e.line, line_of(&text, "\"consumer\": 7"));
        assert!(
            e.message.contains("there is no consumer 7"),
            "{}",
            e.message
        );
    }

    #[test]
    fn broken_json_and_unknown_fields_name_their_line() {
        let text = account_42().replacen("\"seed\": 2,", "\"seed\": 2", 1);
        let e = check(&text, Lang::En).expect_err("a comma is missing");
        assert_eq!(e.line, line_of(&text, "\"seed\": 2") + 1);
        assert!(
            e.message.starts_with("The scenario is not valid"),
            "{}",
            e.message
        );
        let es = check(&text, Lang::Es).expect_err("a comma is missing");
        assert_eq!(es.line, e.line);
        assert!(
            es.message.starts_with(
                "Escenario no válido: no es un escenario JSON válido: se esperaba `,` o `}` en la línea"
            ),
            "{}",
            es.message
        );
        let text = account_42().replace("\"prefetch\": 2", "\"prefech\": 2");
        let e = check(&text, Lang::En).expect_err("a typo");
        assert_eq!(e.line, line_of(&text, "prefech"));
        assert!(
            e.message.contains("unknown field `prefech`"),
            "{}",
            e.message
        );
        // An unknown variant and a value of the wrong kind are placed where they are
        // written; a key of the same name elsewhere is not the place.
        let text = account_42().replacen("\"after_commit\"", "\"sometimes\"", 1);
        let e = check(&text, Lang::En).expect_err("no such ack mode");
        assert_eq!(e.line, line_of(&text, "\"sometimes\""));
        assert!(
            e.message.contains("unknown variant `sometimes`"),
            "{}",
            e.message
        );
        let text = account_42().replace("\"prefetch\": 2", "\"prefetch\": \"two\"");
        let e = check(&text, Lang::En).expect_err("a string for a number");
        assert_eq!(e.line, line_of(&text, "\"two\""));
        assert!(
            e.message
                .contains("invalid type: the text \"two\", expected a whole number"),
            "{}",
            e.message
        );
        assert_eq!(
            named_line("{\n\"a\": \"x\",\n\"x\": 1\n}", "unknown field `x`"),
            Some(3)
        );
        assert_eq!(
            named_line("{\n\"x\": 1,\n\"a\": \"x\"\n}", "unknown variant `x`"),
            Some(3)
        );
        assert_eq!(named_line("{\"a\": 1}", "missing field `a`"), None);
        assert_eq!(named_line("{\"a\": 1}", "expected a number"), None);
    }

    #[test]
    fn a_value_of_the_wrong_type_is_placed_at_its_field_and_named() {
        let seed_line = line_of(&account_42(), "\"seed\"");
        for (value, en, es) in [
            (
                "null",
                "seed: invalid type: null, expected a whole number, 0 or more.",
                "seed: tipo no válido: null; se esperaba un número entero, 0 o más.",
            ),
            (
                "1.5",
                "seed: invalid type: 1.5, expected a whole number, 0 or more.",
                "seed: tipo no válido: 1,5; se esperaba un número entero, 0 o más.",
            ),
        ] {
            let text = account_42().replacen("\"seed\": 2", &format!("\"seed\": {value}"), 1);
            let e = check(&text, Lang::En).expect_err("not a seed");
            assert_eq!(
                e,
                TextError {
                    line: seed_line,
                    message: en.to_string()
                }
            );
            let e = check(&text, Lang::Es).expect_err("not a seed");
            assert_eq!(
                e,
                TextError {
                    line: seed_line,
                    message: es.to_string()
                }
            );
        }
        // Nested, and in an array's second element (a line of its own).
        let text = account_42().replace("\"withdraw\": 50", "\"withdraw\": \"fifty\"");
        let e = check(&text, Lang::Es).expect_err("an amount in words");
        assert_eq!(e.line, line_of(&text, "\"fifty\""));
        assert!(
            e.message.starts_with(
                "producers[0].script[1].op.withdraw: tipo no válido: el texto \"fifty\""
            ),
            "{}",
            e.message
        );
        let text = account_42().replace("\"max_attempts\": 5", "\"max_attempts\": [5]");
        let e = check(&text, Lang::En).expect_err("a list for a number");
        assert_eq!(e.line, line_of(&text, "\"max_attempts\""));
        assert_eq!(
            e.message,
            "consumers[0].retry.max_attempts: invalid type: a list, expected a whole number, 0 or more."
        );
        // The same kind of fault written twice: the first one decoded is the one named.
        let text = account_42()
            .replace("\"prefetch\": 2", "\"prefetch\": null")
            .replace("\"concurrency\": 2", "\"concurrency\": null");
        let e = check(&text, Lang::En).expect_err("two nulls");
        assert!(
            e.message.starts_with("consumers[0].concurrency: "),
            "{}",
            e.message
        );
        assert_eq!(e.line, line_of(&text, "\"concurrency\""));
    }

    #[test]
    fn text_that_is_not_json_is_placed_somewhere_without_panicking() {
        for text in [
            "",
            "{",
            "[1,",
            "\"",
            "{\"queues\": [",
            "{\"a\": \"\\",
            "nul",
        ] {
            let e = check(text, Lang::En).expect_err("not a scenario");
            assert!(e.line >= 1, "{text:?}");
            let _ = field_line(text, "queues[3].name");
        }
        assert_eq!(serde_line("expected value at line 12 column 3"), Some(12));
        assert_eq!(serde_line("no line"), None);
    }
}
