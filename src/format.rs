//! How numbers and times are written on the page: counts, seconds, speeds, latencies.

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

/// A latency for the panel: milliseconds under a second, else seconds.
pub fn latency(s: f64) -> String {
    if !s.is_finite() || s <= 0.0 {
        "0 ms".to_string()
    } else if s < 1.0 {
        format!("{:.0} ms", s * 1_000.0)
    } else {
        format!("{s:.2} s")
    }
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

    #[test]
    fn latencies_read_in_milliseconds_or_seconds() {
        assert_eq!(latency(0.0), "0 ms");
        assert_eq!(latency(0.0123), "12 ms");
        assert_eq!(latency(1.5), "1.50 s");
        assert_eq!(latency(f64::NAN), "0 ms");
    }
}
