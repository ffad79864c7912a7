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

/// An instant that may not have come yet (a copy's first delivery, its lease's end, its
/// completion), stored in 8 bytes where an `Option<Micros>` takes 16: `Micros::MAX` stands
/// for "not yet". Run times stay below the scenario limit `limits::TIME_S_MAX` (ten years
/// in µs, about 2^48), so no real instant is ever that value. Records keep one per copy,
/// which is why the saving matters (docs/performance.md, "Bytes per live message").
///
/// Reads go through [`When::get`] (an `Option<Micros>`); `expect`, `is_some` and `is_none`
/// read like `Option`'s. It serializes as an `Option<Micros>` (a number or `null`).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct When(Micros);

impl When {
    /// Not yet.
    pub const NEVER: When = When(Micros::MAX);

    /// The instant `us`. `Micros::MAX` itself cannot be stored: it becomes one µs
    /// earlier (5·10^5 years into a run, beyond every limit).
    #[inline]
    pub const fn at(us: Micros) -> When {
        if us == Micros::MAX {
            When(Micros::MAX - 1)
        } else {
            When(us)
        }
    }

    /// The instant, if it came.
    #[inline]
    pub const fn get(self) -> Option<Micros> {
        if self.0 == Micros::MAX {
            None
        } else {
            Some(self.0)
        }
    }

    #[inline]
    pub const fn is_some(self) -> bool {
        self.0 != Micros::MAX
    }

    #[inline]
    pub const fn is_none(self) -> bool {
        self.0 == Micros::MAX
    }

    /// The instant; panics with `msg` if it has not come (as `Option::expect`).
    #[track_caller]
    pub fn expect(self, msg: &str) -> Micros {
        self.get().expect(msg)
    }
}

impl Default for When {
    fn default() -> Self {
        When::NEVER
    }
}

impl From<Option<Micros>> for When {
    #[inline]
    fn from(us: Option<Micros>) -> Self {
        us.map_or(When::NEVER, When::at)
    }
}

impl From<When> for Option<Micros> {
    #[inline]
    fn from(w: When) -> Self {
        w.get()
    }
}

/// Prints as the `Option<Micros>` it stands for (`Some(5)`, `None`).
impl std::fmt::Debug for When {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

impl serde::Serialize for When {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.get().serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn when_is_an_option_of_an_instant_in_8_bytes() {
        assert_eq!(std::mem::size_of::<When>(), 8);
        assert_eq!(When::NEVER.get(), None);
        assert_eq!(When::default(), When::NEVER);
        assert_eq!(When::at(0).get(), Some(0));
        assert_eq!(When::at(Micros::MAX).get(), Some(Micros::MAX - 1));
        assert_eq!(When::from(Some(7)).expect("set"), 7);
        assert_eq!(Option::<Micros>::from(When::from(None)), None);
        assert_eq!(serde_json::to_string(&When::at(5)).unwrap(), "5");
        assert_eq!(serde_json::to_string(&When::NEVER).unwrap(), "null");
        assert_eq!(format!("{:?}", When::at(5)), "Some(5)");
    }
}
