//! How long a failed attempt waits before the next one: one rule for queue consumers and
//! consumer groups alike.

use crate::rng::SimRng;
use crate::scenario::{Jitter, RetryPolicy};
use crate::time::{secs_to_us, Micros};

/// Exponential backoff with jitter: base × 2^(failures−1), capped, then jittered.
pub(super) fn delay_us(p: &RetryPolicy, failures: u32, rng: &mut SimRng) -> Micros {
    // The exponent stops at 60: past that the cap has long taken over.
    let exp = (p.backoff_base_s * 2f64.powi(failures.saturating_sub(1).min(60) as i32))
        .min(p.backoff_cap_s);
    let delay_s = match p.jitter {
        Jitter::None => exp,
        Jitter::Full => rng.uniform() * exp,
        Jitter::Equal => exp / 2.0 + rng.uniform() * exp / 2.0,
    };
    secs_to_us(delay_s)
}
