//! Why a scenario is refused, and the checks of a single value that say so.

/// Why a scenario cannot be run: the field (as a path) and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub field: String,
    pub problem: String,
}

impl std::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.problem)
    }
}

impl std::error::Error for ScenarioError {}

pub(crate) fn err(field: impl Into<String>, problem: impl Into<String>) -> ScenarioError {
    ScenarioError {
        field: field.into(),
        problem: problem.into(),
    }
}

pub(crate) fn check_range(field: &str, v: f64, min: f64, max: f64) -> Result<(), ScenarioError> {
    if !v.is_finite() {
        return Err(err(field, "must be a finite number"));
    }
    if v < min || v > max {
        let (min, max, v) = (quoted(min), quoted(max), quoted(v));
        return Err(err(
            field,
            format!("must be between {min} and {max} (got {v})"),
        ));
    }
    Ok(())
}

/// A number as a refusal quotes it: as written for everyday sizes, in exponent form for
/// huge or tiny ones (`1e308`, not 309 digits running off the page).
fn quoted(v: f64) -> String {
    let a = v.abs();
    if a != 0.0 && !(1e-6..1e15).contains(&a) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

pub(crate) fn check_count(field: &str, v: u64, min: u64, max: u64) -> Result<(), ScenarioError> {
    if v < min || v > max {
        return Err(err(
            field,
            format!("must be between {min} and {max} (got {v})"),
        ));
    }
    Ok(())
}

/// A name or key: at most `max` characters, on one line, none of them invisible controls.
pub(crate) fn check_text(field: &str, s: &str, max: usize) -> Result<(), ScenarioError> {
    check_prose(field, s, max)?;
    match s.chars().find(|c| c.is_control()) {
        Some(c) => Err(invisible(field, c)),
        None => Ok(()),
    }
}

/// A text of several lines (a description): at most `max` characters, with line breaks
/// and tabs but no other control character. Bidirectional overrides and isolates are
/// refused too: in a name shown on the page they would reverse the text after it (a
/// shared link could make a card read as another).
pub(crate) fn check_prose(field: &str, s: &str, max: usize) -> Result<(), ScenarioError> {
    if s.chars().count() > max {
        return Err(err(field, format!("is longer than {max} characters")));
    }
    let hidden = |c: char| {
        (c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
            || matches!(c, '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    };
    match s.chars().find(|&c| hidden(c)) {
        Some(c) => Err(invisible(field, c)),
        None => Ok(()),
    }
}

fn invisible(field: &str, c: char) -> ScenarioError {
    err(
        field,
        format!(
            "contains an invisible control character (U+{:04X})",
            u32::from(c)
        ),
    )
}

pub(crate) fn check_len<T>(field: &str, v: &[T], max: usize) -> Result<(), ScenarioError> {
    if v.len() > max {
        return Err(err(field, format!("at most {max} entries")));
    }
    Ok(())
}
