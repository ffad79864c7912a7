//! The run's one source of randomness.
//!
//! Draws go through `rand`'s API (`random`, `random_range`) over `Pcg64Mcg` (rand_pcg),
//! whose output stream is documented and stable; both are integer arithmetic, so they
//! are the same natively and in wasm. The exponential is computed here with `libm`, whose
//! results do not depend on the platform's math library: the same seed gives the same run
//! everywhere.

use std::convert::Infallible;

use rand::rand_core::utils::fill_bytes_via_next_word;
use rand::{Rng, RngExt, SeedableRng, TryRng};
use rand_pcg::Pcg64Mcg;

/// How many of the generator's outputs are drawn ahead.
const AHEAD: usize = 32;

/// The run's generator. Its outputs are drawn [`AHEAD`] at a time, each with the
/// logarithm an exponential draw takes of it, computed in one loop: the logarithms do
/// not depend on one another, so the processor works on several at once, where one
/// logarithm per draw made each draw wait for the whole of its division and polynomial
/// (about a tenth of an M/M/1 run, two draws per message). Every draw reads the same
/// outputs in the same order as from the generator itself, and an exponential draw
/// the same logarithm of the same number: the runs are the same, bit for bit. An
/// output taken by another kind of draw leaves its logarithm unused.
#[derive(Clone, Debug)]
pub struct SimRng {
    generator: Pcg64Mcg,
    words: [u64; AHEAD],
    /// `ln(1 − U)` for each of `words`, `U` its uniform draw.
    logs: [f64; AHEAD],
    /// The next of `words` to hand out (`AHEAD`: none left).
    next: usize,
}

/// The uniform draw in [0, 1) that `rand` makes of one generator output (53 bits).
fn uniform_of(word: u64) -> f64 {
    OneWord(Some(word)).random::<f64>()
}

/// A generator that has one output to give: [`uniform_of`] reads it through `rand`'s
/// own conversion, so the ahead-drawn uniforms are exactly what `rand` would make.
struct OneWord(Option<u64>);

impl TryRng for OneWord {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        self.try_next_u64().map(|w| w as u32)
    }

    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(self.0.take().expect("one output only"))
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), Infallible> {
        fill_bytes_via_next_word(dest, || self.try_next_u64())
    }
}

/// As `Pcg64Mcg` itself does it (a 32-bit output is the low half of a 64-bit one), so
/// `rand`'s draws over [`SimRng`] read exactly what they read over the generator.
impl TryRng for SimRng {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        self.try_next_u64().map(|w| w as u32)
    }

    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(self.words[self.take()])
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), Infallible> {
        fill_bytes_via_next_word(dest, || self.try_next_u64())
    }
}

impl SimRng {
    pub fn new(seed: u64) -> Self {
        Self {
            generator: Pcg64Mcg::seed_from_u64(seed),
            words: [0; AHEAD],
            logs: [0.0; AHEAD],
            next: AHEAD,
        }
    }

    /// Stream number `index` of `seed`: a generator of its own, seeded from both through
    /// SplitMix64's finaliser, so neighbouring indices give unrelated streams.
    pub fn stream(seed: u64, index: u64) -> Self {
        let mut z = seed ^ (index.wrapping_add(1)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Self::new(z ^ (z >> 31))
    }

    /// The index of the next output to hand out, drawing ahead when none is left.
    #[inline]
    fn take(&mut self) -> usize {
        if self.next == AHEAD {
            self.draw_ahead();
        }
        self.next += 1;
        self.next - 1
    }

    #[inline(never)]
    fn draw_ahead(&mut self) {
        for (word, log) in self.words.iter_mut().zip(&mut self.logs) {
            *word = self.generator.next_u64();
            *log = libm::log(1.0 - uniform_of(*word));
        }
        self.next = 0;
    }

    /// Uniform in [0, 1), 53 random bits.
    pub fn uniform(&mut self) -> f64 {
        self.random::<f64>()
    }

    /// Exponential with the given mean (inverse transform: −mean·ln(1−U)).
    pub fn exponential(&mut self, mean: f64) -> f64 {
        let i = self.take();
        -mean * self.logs[i]
    }

    /// Uniform integer in [0, n); n must be > 0.
    pub fn below(&mut self, n: u64) -> u64 {
        self.random_range(0..n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_is_stable() {
        // Pinned values: if these change, every saved scenario replays differently.
        let mut r = SimRng::new(42);
        let a: Vec<u64> = (0..3).map(|_| r.next_u64()).collect();
        let mut r2 = SimRng::new(42);
        let b: Vec<u64> = (0..3).map(|_| r2.next_u64()).collect();
        assert_eq!(a, b);
        assert_ne!(SimRng::new(43).next_u64(), a[0]);
    }

    #[test]
    fn streams_differ_from_the_seed_and_each_other() {
        let first = |mut r: SimRng| r.next_u64();
        let main = first(SimRng::new(42));
        let s0 = first(SimRng::stream(42, 0));
        let s1 = first(SimRng::stream(42, 1));
        assert!(main != s0 && s0 != s1 && main != s1);
        assert_eq!(s0, first(SimRng::stream(42, 0)));
    }

    /// Every kind of draw, mixed, reads what it read straight from the generator before
    /// outputs were drawn ahead (across many refills, and an exponential the same bits).
    #[test]
    fn draws_are_those_of_the_generator_itself() {
        let mut ahead = SimRng::new(11);
        let mut plain = Pcg64Mcg::seed_from_u64(11);
        for i in 0..10_000u64 {
            match i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 62 {
                0 | 1 => {
                    let u: f64 = plain.random();
                    let expected = -3.5 * libm::log(1.0 - u);
                    assert_eq!(ahead.exponential(3.5).to_bits(), expected.to_bits());
                }
                2 => assert_eq!(ahead.uniform().to_bits(), plain.random::<f64>().to_bits()),
                _ => {
                    let n = 1 + i % 1_000;
                    assert_eq!(ahead.below(n), plain.random_range(0..n));
                }
            }
        }
    }

    #[test]
    fn exponential_mean_is_right() {
        let mut r = SimRng::new(7);
        let n = 200_000;
        let mean: f64 = (0..n).map(|_| r.exponential(2.0)).sum::<f64>() / n as f64;
        // Standard error = 2/sqrt(n) ≈ 0.0045; allow 5 of them.
        assert!((mean - 2.0).abs() < 0.0225, "mean {mean}");
    }
}
