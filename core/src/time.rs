//! Simulated time: an integer count of microseconds since the run began. Integers keep
//! event order exact and identical on every platform; seconds appear only at the edges
//! (scenario files, reports).

pub type Micros = u64;

pub const US_PER_S: f64 = 1_000_000.0;

/// Seconds to microseconds, rounded to nearest; negative or NaN become 0.
pub fn secs_to_us(s: f64) -> Micros {
    if s.is_nan() || s <= 0.0 {
        0
    } else {
        (s * US_PER_S).round().min(u64::MAX as f64) as Micros
    }
}

pub fn us_to_secs(us: Micros) -> f64 {
    us as f64 / US_PER_S
}
