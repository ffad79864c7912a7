//! Records kept packed in bytes while long-lived.
//!
//! A growing backlog keeps every message and copy it holds for as long as it grows, and
//! most of their fields are small numbers or still at their defaults (no delivery yet, no
//! failure, no holder). Packed as variable-length integers, with instants as distances
//! from an instant near them, a waiting message and its copy take about 40 bytes instead
//! of the 144 their records take in memory (docs/performance.md, "Long-lived records
//! packed"). Packing loses nothing: `unpack(pack(r)) == r` for every record, which the
//! property tests of each record type check.

use crate::time::Micros;

/// A record that can be packed into bytes and read back whole.
pub trait Pack: Sized {
    /// An instant near which the record's own instants lie (a message's creation, a
    /// copy's storing): a chunk of records packs their instants as distances from its
    /// first record's, which are small.
    fn epoch_us(&self) -> Micros;

    /// Appends the record `id` to `out`, its instants as distances from `epoch_us`.
    fn pack(&self, id: usize, epoch_us: Micros, out: &mut Packer);

    /// Reads back what [`Pack::pack`] wrote for the record `id` with the same epoch.
    fn unpack(id: usize, epoch_us: Micros, from: &mut Unpacker) -> Self;

    /// Whether the record itself no longer keeps it (only something else referring to
    /// it could): a copy whose fate is final, a message settled with its producer whose
    /// copies are gone. Whoever releases records must release none that is not
    /// finished: a walk over long-lived records passes over a packed one that was not
    /// finished when packed without unpacking it (nothing changed it since).
    fn finished(&self) -> bool;
}

/// Writes numbers as LEB128 (seven bits a byte, small numbers in one byte).
pub struct Packer<'a>(pub(crate) &'a mut Vec<u8>);

impl Packer<'_> {
    pub fn u64(&mut self, mut n: u64) {
        while n >= 0x80 {
            self.0.push((n as u8) | 0x80);
            n >>= 7;
        }
        self.0.push(n as u8);
    }

    pub fn u32(&mut self, n: u32) {
        self.u64(u64::from(n));
    }

    pub fn u8(&mut self, n: u8) {
        self.0.push(n);
    }

    /// A signed number, zigzagged so that small magnitudes of either sign are short.
    pub fn i64(&mut self, n: i64) {
        self.u64(((n << 1) ^ (n >> 63)) as u64);
    }

    /// The instant `us` as its (wrapping) distance from `from`: exact for every pair.
    pub fn instant(&mut self, us: Micros, from: Micros) {
        self.i64(us.wrapping_sub(from) as i64);
    }
}

/// Reads what a [`Packer`] wrote, in the same order.
pub struct Unpacker<'a>(pub(crate) &'a [u8]);

impl Unpacker<'_> {
    /// # Panics
    /// On bytes no [`Packer`] wrote (the records' own bytes are never anything else).
    pub fn u64(&mut self) -> u64 {
        let mut n = 0u64;
        let mut shift = 0;
        loop {
            let (&b, rest) = self.0.split_first().expect("a packed record ends here");
            self.0 = rest;
            n |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return n;
            }
            shift += 7;
        }
    }

    pub fn u32(&mut self) -> u32 {
        u32::try_from(self.u64()).expect("packed from a u32")
    }

    pub fn u8(&mut self) -> u8 {
        let (&b, rest) = self.0.split_first().expect("a packed record ends here");
        self.0 = rest;
        b
    }

    pub fn i64(&mut self) -> i64 {
        let z = self.u64();
        ((z >> 1) as i64) ^ -((z & 1) as i64)
    }

    pub fn instant(&mut self, from: Micros) -> Micros {
        from.wrapping_add(self.i64() as u64)
    }
}

/// Plain numbers (the records' own tests use them), packed as themselves.
#[cfg(test)]
impl Pack for usize {
    fn epoch_us(&self) -> Micros {
        0
    }

    fn pack(&self, _: usize, _: Micros, out: &mut Packer) {
        out.u64(*self as u64);
    }

    fn unpack(_: usize, _: Micros, from: &mut Unpacker) -> Self {
        from.u64() as usize
    }

    fn finished(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn numbers_and_instants_read_back_as_written(
            a in any::<u64>(), b in any::<i64>(), c in any::<u32>(), d in any::<u8>(),
            t in any::<u64>(), epoch in any::<u64>(),
        ) {
            let mut bytes = Vec::new();
            let mut p = Packer(&mut bytes);
            p.u64(a);
            p.i64(b);
            p.u32(c);
            p.u8(d);
            p.instant(t, epoch);
            let mut u = Unpacker(&bytes);
            prop_assert_eq!(u.u64(), a);
            prop_assert_eq!(u.i64(), b);
            prop_assert_eq!(u.u32(), c);
            prop_assert_eq!(u.u8(), d);
            prop_assert_eq!(u.instant(epoch), t);
            prop_assert!(u.0.is_empty());
        }
    }

    #[test]
    fn small_numbers_take_a_byte_and_near_instants_a_few() {
        let mut bytes = Vec::new();
        let mut p = Packer(&mut bytes);
        p.u64(127);
        p.i64(-64);
        assert_eq!(bytes.len(), 2);
        let mut p = Packer(&mut bytes);
        // Four seconds after the epoch, in µs: 22 bits, four bytes.
        p.instant(1_000_000_004_000_000, 1_000_000_000_000_000);
        assert_eq!(bytes.len(), 6);
    }
}
