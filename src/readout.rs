//! What the page shows about a run at one instant, as plain data, and how numbers are
//! written on the page. The view re-reads a [`Readout`] after every frame; comparing two
//! readouts tells it whether anything on screen must change.

/// The counters and gauges of a run at one instant.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Readout {
    /// Steps taken so far (the index of the latest step).
    pub step: u64,
    pub time_s: f64,
    pub published: u64,
    pub delivered: u64,
    pub redelivered: u64,
    pub acked: u64,
    pub lost: u64,
    pub duplicate_effects: u64,
    pub leases_expired: u64,
    pub backlog: u64,
    pub in_flight: u64,
    pub oldest_age_s: f64,
    pub crashes: u64,
    pub restarts: u64,
    pub broker_crashes: u64,
    pub dead_lettered: u64,
    pub retries_scheduled: u64,
    pub duplicates_skipped: u64,
    pub refused: u64,
    pub dropped: u64,
    pub expired: u64,
    pub redriven: u64,
    pub consumers_up: u32,
    pub consumers_total: u32,
    /// Nothing is left to happen: the run is over.
    pub finished: bool,
    /// Why the run ended, in plain words, when the work budget stopped it (a scenario
    /// that would go on for ever, or multiply without end, is stopped there).
    pub budget_stop: Option<&'static str>,
}

/// A count with thousands separators: `60,123`.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// Seconds with one decimal: `42.3 s`.
pub fn seconds(s: f64) -> String {
    format!("{:.1} s", s.max(0.0))
}

/// A speed factor as the speed menu shows it: `0.1×`, `2×`, `20×`.
pub fn speed(factor: f64) -> String {
    if factor.fract() == 0.0 {
        format!("{factor:.0}×")
    } else {
        format!("{factor}×")
    }
}

/// Axis labels for message counts: `0`, `500`, `20k`, `1.5M`.
pub fn short_count(n: f64) -> String {
    let a = n.abs();
    if a >= 1_000_000.0 {
        trim_zero(format!("{:.1}", n / 1_000_000.0)) + "M"
    } else if a >= 1_000.0 {
        trim_zero(format!("{:.1}", n / 1_000.0)) + "k"
    } else {
        format!("{n:.0}")
    }
}

fn trim_zero(s: String) -> String {
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_have_thousands_separators() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1_000), "1,000");
        assert_eq!(count(60_123), "60,123");
        assert_eq!(count(1_234_567), "1,234,567");
        assert_ne!(count(1_000), "1000");
    }

    #[test]
    fn seconds_have_one_decimal_and_never_go_negative() {
        assert_eq!(seconds(0.0), "0.0 s");
        assert_eq!(seconds(42.26), "42.3 s");
        assert_eq!(seconds(-1.0), "0.0 s");
    }

    #[test]
    fn speeds_read_naturally() {
        assert_eq!(speed(0.1), "0.1×");
        assert_eq!(speed(0.25), "0.25×");
        assert_eq!(speed(2.0), "2×");
        assert_eq!(speed(20.0), "20×");
    }

    #[test]
    fn short_counts_fit_an_axis() {
        assert_eq!(short_count(0.0), "0");
        assert_eq!(short_count(500.0), "500");
        assert_eq!(short_count(20_000.0), "20k");
        assert_eq!(short_count(12_500.0), "12.5k");
        assert_eq!(short_count(1_500_000.0), "1.5M");
    }
}
