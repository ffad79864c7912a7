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

pub(crate) fn check_text(field: &str, s: &str, max: usize) -> Result<(), ScenarioError> {
    if s.chars().count() > max {
        return Err(err(field, format!("is longer than {max} characters")));
    }
    Ok(())
}

pub(crate) fn check_len<T>(field: &str, v: &[T], max: usize) -> Result<(), ScenarioError> {
    if v.len() > max {
        return Err(err(field, format!("at most {max} entries")));
    }
    Ok(())
}
