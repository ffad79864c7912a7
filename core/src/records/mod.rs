//! Records numbered in creation order (messages, copies) that are released once finished.
//!
//! Ids are handed out from 0 and never reused. The newest ids sit in a ring whose front
//! moves forward; when the ring grows past its window, the records at its front are
//! either released (finished and referenced by nothing) or, if still live, moved to the
//! long-lived records (a copy parked in a dead-letter queue, a message whose confirm
//! never came, every message of a growing backlog), which are kept packed ([`spill`]).
//! Memory is therefore the window plus what is live, whatever the length of the run, and
//! what is live costs its packed size.
//!
//! Indexing by id (`records[id]`) reads a held record and panics on a released one, so a
//! rule that still needed a record it had let go fails loudly instead of reading garbage.
//!
//! The ring is a plain vector whose front is cut off in one move per sweep, not a
//! `VecDeque`: the rules look records up a few dozen times per message, and a lookup in a
//! vector is one subtraction and one bounds check, without the deque's wrap-around.

pub mod pack;
mod spill;

pub use pack::Pack;
use spill::Spill;

#[derive(Clone, Debug)]
pub struct Records<T> {
    /// Id of the ring's front.
    base: usize,
    /// Ids `base..base + ring.len()`; `None` once released.
    ring: Vec<Option<T>>,
    /// Live records older than `base`, packed.
    spill: Spill<T>,
    /// Records the ring's front passed over since the long-lived ones were last walked.
    passed_since_walk: usize,
}

/// A held record as a scan reads it: in place, or unpacked for the reader (a long-lived
/// record nobody opened stays packed). Reads like a `&T`.
pub enum Held<'a, T> {
    Open(&'a T),
    Unpacked(T),
}

impl<T> std::ops::Deref for Held<'_, T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        match self {
            Held::Open(record) => record,
            Held::Unpacked(record) => record,
        }
    }
}

impl<T> Default for Records<T> {
    fn default() -> Self {
        Self {
            base: 0,
            ring: Vec::new(),
            spill: Spill::default(),
            passed_since_walk: 0,
        }
    }
}

/// Long-lived records opened (unpacked to be read or changed) that make a walk of their
/// chunks due, ring or no ring: a backlog draining with nothing new arriving opens its
/// oldest records one by one, and they are packed again (or released, once finished)
/// soon rather than left whole until the next full walk.
const OPENED_WALK_MIN: usize = 1_024;

impl<T> Records<T> {
    /// How many ids were handed out (released records included): the next id.
    pub fn len(&self) -> usize {
        self.base + self.ring.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Records held now (not released).
    pub fn held(&self) -> usize {
        self.spill.held() + self.ring.iter().filter(|r| r.is_some()).count()
    }

    /// Ids in the ring, released or not (the recent window plus what came since).
    pub fn ring_len(&self) -> usize {
        self.ring.len()
    }

    /// Records moved out of the ring because they were still live.
    pub fn spilled(&self) -> usize {
        self.spill.held()
    }

    /// Long-lived records unpacked since their last walk.
    pub fn opened(&self) -> usize {
        self.spill.opened()
    }

    /// Adds a record; returns its id.
    pub fn push(&mut self, record: T) -> usize {
        self.ring.push(Some(record));
        self.len() - 1
    }

    /// Whether the ring's front is due to move: the ring holds more than `window` ids
    /// beyond the window, and more again by a quarter of `work`, what else the sweep
    /// visits each time (the caller's tables of what is still referenced), so that this
    /// costs at most four visits per record pushed. The long-lived records are walked on
    /// a cadence of their own ([`Records::spill_walk_due`]): a growing backlog, all live,
    /// is no reason to keep a quarter of it gathered in the ring (it was: 180 bytes per
    /// live message instead of 157).
    pub fn sweep_due(&self, window: usize, work: usize) -> bool {
        self.ring.len() >= 2 * window.max(1) + work / 4
    }

    /// Whether the long-lived records are due to be walked for release: once the ring's
    /// front has passed over a quarter as many records as there are long-lived ones
    /// (again at most four visits per record pushed).
    pub fn spill_walk_due(&self) -> bool {
        4 * self.passed_since_walk >= self.spill.held()
    }

    /// Whether the chunks with opened records are due to be walked: at least
    /// [`OPENED_WALK_MIN`] are open, a sixteenth of those chunks' slots, and a sixteenth
    /// of `work`, what else the walk visits (the caller's tables of what is still
    /// referenced, gathered anew for each walk), so that the walk costs at most sixteen
    /// visits per record opened, however much is referenced. Without `work`, a slow
    /// group draining a long log (which opens its records one by one) gathered every
    /// retained record's message each 1,024 deliveries: quadratic in the log's length.
    pub fn opened_walk_due(&self, work: usize) -> bool {
        let opened = self.spill.opened();
        opened >= OPENED_WALK_MIN.max(work / 16) && 16 * opened >= self.spill.opened_slots()
    }

    /// Drops the ring's first `n` slots (all empty) in one move.
    fn cut_front(&mut self, n: usize) {
        self.ring.drain(..n);
        self.base += n;
    }
}

impl<T: Pack> Records<T> {
    /// The record `id`, unless it was released (or never existed). Inlined, like the
    /// indexing below: the rules look records up many times per step. A long-lived
    /// record is opened (unpacked, and kept whole until the next walk).
    /// An id below `base` wraps around to a huge index, so one bounds check tells the
    /// ring's ids from the others.
    #[inline]
    pub fn get(&self, id: usize) -> Option<&T> {
        match self.ring.get(id.wrapping_sub(self.base)) {
            Some(slot) => slot.as_ref(),
            None if id < self.base => self.spill.get(id),
            None => None,
        }
    }

    #[inline]
    pub fn get_mut(&mut self, id: usize) -> Option<&mut T> {
        match self.ring.get_mut(id.wrapping_sub(self.base)) {
            Some(slot) => slot.as_mut(),
            None if id < self.base => self.spill.get_mut(id),
            None => None,
        }
    }

    /// The record `id` read without opening it: for scans over many records (a
    /// long-lived one is unpacked for the reader and stays packed).
    pub fn peek(&self, id: usize) -> Option<Held<'_, T>> {
        match self.ring.get(id.wrapping_sub(self.base)) {
            Some(slot) => slot.as_ref().map(Held::Open),
            None if id < self.base => self.spill.peek(id),
            None => None,
        }
    }

    /// Held records with their ids, in id order (long-lived ones unpacked one at a
    /// time, not opened).
    pub fn iter_with_ids(&self) -> impl Iterator<Item = (usize, Held<'_, T>)> + Clone + '_ {
        let ring = self.ring.iter().enumerate();
        let base = self.base;
        self.spill
            .iter()
            .chain(ring.filter_map(move |(i, r)| r.as_ref().map(|r| (base + i, Held::Open(r)))))
    }

    /// Held records, in id order.
    pub fn iter(&self) -> impl Iterator<Item = Held<'_, T>> + Clone + '_ {
        self.iter_with_ids().map(|(_, r)| r)
    }

    /// Held records, mutably, in id order (long-lived ones opened).
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> + '_ {
        self.iter_mut_with_ids().map(|(_, r)| r)
    }

    /// Held records with their ids, mutably, in id order (long-lived ones opened).
    pub fn iter_mut_with_ids(&mut self) -> impl Iterator<Item = (usize, &mut T)> + '_ {
        let base = self.base;
        let ring = self.ring.iter_mut().enumerate();
        self.spill
            .iter_mut()
            .chain(ring.filter_map(move |(i, r)| r.as_mut().map(|r| (base + i, r))))
    }

    /// Ids of held records, in id order.
    pub fn ids(&self) -> Vec<usize> {
        self.iter_with_ids().map(|(id, _)| id).collect()
    }

    /// Releases the record `id` now (finished and referenced by nothing).
    pub fn release(&mut self, id: usize) -> Option<T> {
        match id.checked_sub(self.base) {
            Some(i) => self.ring.get_mut(i)?.take(),
            None => self.spill.remove(id),
        }
    }

    /// Releases, through `release`, each long-lived record that `releasable` says may go
    /// (one pass in id order, no lookups), and packs again those left open.
    pub fn release_spilled(
        &mut self,
        releasable: impl FnMut(usize, &T) -> bool,
        release: impl FnMut(usize, T),
    ) {
        self.passed_since_walk = 0;
        self.spill.release_where(false, releasable, release);
    }

    /// As [`Records::release_spilled`], in the chunks with opened records only.
    pub fn release_opened(
        &mut self,
        releasable: impl FnMut(usize, &T) -> bool,
        release: impl FnMut(usize, T),
    ) {
        self.spill.release_where(true, releasable, release);
    }

    /// Moves the ring's front up to `keep` ids before its end: each record passed over is
    /// released through `release` if `releasable` says so, or kept as long-lived.
    pub fn advance(
        &mut self,
        keep: usize,
        mut releasable: impl FnMut(usize, &T) -> bool,
        mut release: impl FnMut(usize, T),
    ) {
        let passed = self.ring.len().saturating_sub(keep);
        self.passed_since_walk += passed;
        for (i, slot) in self.ring[..passed].iter_mut().enumerate() {
            let id = self.base + i;
            if let Some(record) = slot.take() {
                if releasable(id, &record) {
                    release(id, record);
                } else {
                    self.spill.push(id, record);
                }
            }
        }
        // Released slots at the front hold nothing: let them go too.
        let empty = self.ring[passed..]
            .iter()
            .take_while(|r| r.is_none())
            .count();
        self.cut_front(passed + empty);
    }
}

impl<'a, T: Pack> IntoIterator for &'a Records<T> {
    type Item = Held<'a, T>;
    type IntoIter = Box<dyn Iterator<Item = Held<'a, T>> + 'a>;
    /// Held records, in id order.
    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

impl<T: Pack> std::ops::Index<usize> for Records<T> {
    type Output = T;
    #[inline]
    fn index(&self, id: usize) -> &T {
        self.get(id).unwrap_or_else(|| released(id))
    }
}

impl<T: Pack> std::ops::IndexMut<usize> for Records<T> {
    #[inline]
    fn index_mut(&mut self, id: usize) -> &mut T {
        self.get_mut(id).unwrap_or_else(|| released(id))
    }
}

/// Out of line, so the lookups above stay small enough to inline.
#[cold]
#[inline(never)]
fn released(id: usize) -> ! {
    panic!("record {id} was released (or never existed)")
}

#[cfg(test)]
mod tests {
    use super::spill::CHUNK;
    use super::*;

    #[test]
    fn ids_count_from_zero_and_survive_release() {
        let mut r = Records::default();
        for i in 0..10 {
            assert_eq!(r.push(i * 10), i);
        }
        // Release the even ids, keep the odd ones as long-lived.
        r.advance(2, |id, _| id % 2 == 0, |_, _| {});
        assert_eq!(r.len(), 10);
        assert_eq!(r.ring_len(), 2);
        assert_eq!(r.get(4), None);
        assert_eq!(r.get(5), Some(&50));
        assert_eq!(r[9], 90);
        assert_eq!(r.held(), 6);
        assert_eq!(r.ids(), vec![1, 3, 5, 7, 8, 9]);
        assert_eq!(r.release(5), Some(50));
        let spilled: Vec<usize> = r.spill.iter().map(|(id, _)| id).collect();
        assert_eq!(spilled, vec![1, 3, 7]);
        assert_eq!(r.push(100), 10);
        assert_eq!(
            r.iter().map(|v| *v).collect::<Vec<_>>(),
            vec![10, 30, 70, 80, 90, 100]
        );
    }

    #[test]
    fn a_spilled_chunk_is_squeezed_when_half_empty_and_dropped_when_empty() {
        let mut r = Records::default();
        let n = 3 * CHUNK;
        for i in 0..n {
            r.push(i);
        }
        // Everything is still live: all of it spills, in three chunks.
        r.advance(0, |_, _| false, |_, _| {});
        assert_eq!((r.spilled(), r.spill.chunks.len()), (n, 3));
        // Half of the first chunk goes: it is squeezed to the other half.
        for id in (0..CHUNK).step_by(2) {
            assert_eq!(r.release(id), Some(id));
        }
        assert_eq!(r.spill.chunks[0].starts.len(), CHUNK / 2);
        assert_eq!(r.get(1), Some(&1));
        assert_eq!(r.get(2), None);
        // The second chunk goes entirely, in one pass.
        r.release_spilled(|id, _| (CHUNK..2 * CHUNK).contains(&id), |_, _| {});
        assert_eq!(r.spill.chunks.len(), 2);
        assert_eq!(r.spilled(), CHUNK / 2 + CHUNK);
        assert_eq!(r.get(2 * CHUNK), Some(&(2 * CHUNK)));
        assert_eq!(r.ids().len(), r.held());
    }

    #[test]
    fn a_growing_backlog_keeps_the_ring_short_and_walks_its_long_lived_records_seldom() {
        let mut r = Records::default();
        let window = 10;
        let mut walks = 0;
        // All live (a growing backlog): every sweep spills what the ring passes over.
        for i in 0..4_000 {
            r.push(i);
            if r.sweep_due(window, 0) {
                if r.spill_walk_due() {
                    walks += 1;
                    r.release_spilled(|_, _| false, |_, _| {});
                }
                r.advance(window, |_, _| false, |_, _| {});
            }
            // The ring never gathers more than twice the window, however much is live.
            assert!(r.ring_len() <= 2 * window, "ring of {}", r.ring_len());
        }
        // Each walk visits every long-lived record: it waits until a quarter as many
        // have been passed over, so walks thin out as the backlog grows (a walk per
        // sweep would be 400 here, and quadratic in the backlog).
        assert!((10..=60).contains(&walks), "{walks} walks");
        assert_eq!(r.held(), 4_000);
    }

    #[test]
    fn a_sweep_waits_for_a_quarter_of_what_it_last_visited_besides_the_records() {
        let mut r = Records::default();
        for i in 0..29 {
            r.push(i);
        }
        assert!(
            !r.sweep_due(10, 40),
            "20 for the window and 10 for the work"
        );
        r.push(29);
        assert!(r.sweep_due(10, 40));
        assert!(r.sweep_due(10, 0));
    }

    use proptest::prelude::*;

    /// What a caller can do to the records.
    #[derive(Clone, Debug)]
    enum Op {
        Push,
        /// Advance keeping this many, releasing ids divisible by the divisor (none with
        /// a divisor of 4: a run of consecutive live records spills whole).
        Advance(usize, usize),
        Release(usize),
        ReleaseSpilled(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            6 => Just(Op::Push),
            1 => (0..8usize, 1..5usize).prop_map(|(k, d)| Op::Advance(k, d)),
            2 => (0..400usize).prop_map(Op::Release),
            1 => (1..4usize).prop_map(Op::ReleaseSpilled),
        ]
    }

    proptest! {
        /// Whatever is pushed, passed over, spilled and released, the records held are
        /// those of a plain ordered map given the same orders.
        #[test]
        fn records_hold_what_an_ordered_map_holds(ops in proptest::collection::vec(op(), 0..600)) {
            let mut r = Records::default();
            let mut model = std::collections::BTreeMap::new();
            for op in ops {
                match op {
                    Op::Push => {
                        let id = r.push(r.len() * 7);
                        model.insert(id, id * 7);
                    }
                    Op::Advance(keep, d) => r.advance(keep, |id, _| d < 4 && id % d == 0, |id, v| {
                        assert_eq!(model.remove(&id), Some(v));
                    }),
                    Op::Release(id) => prop_assert_eq!(r.release(id), model.remove(&id)),
                    Op::ReleaseSpilled(d) => r.release_spilled(|id, _| id % d == 0, |id, v| {
                        assert_eq!(model.remove(&id), Some(v));
                    }),
                }
                prop_assert_eq!(r.held(), model.len());
                let held: Vec<_> = r.iter_with_ids().map(|(id, v)| (id, *v)).collect();
                let expected: Vec<_> = model.iter().map(|(&id, &v)| (id, v)).collect();
                prop_assert_eq!(held, expected);
                for id in 0..r.len() + 2 {
                    prop_assert_eq!(r.get(id), model.get(&id));
                }
            }
        }
    }

    /// A record for the tests below that is finished while even (so that walks pass
    /// over packed odd ones without unpacking them).
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Rec(usize);

    impl Pack for Rec {
        fn epoch_us(&self) -> crate::Micros {
            1_000_000
        }

        fn pack(&self, id: usize, epoch_us: crate::Micros, out: &mut pack::Packer) {
            out.instant(epoch_us + self.0 as u64, epoch_us);
            out.i64(id as i64 - self.0 as i64);
        }

        fn unpack(id: usize, epoch_us: crate::Micros, from: &mut pack::Unpacker) -> Self {
            let v = (from.instant(epoch_us) - epoch_us) as usize;
            assert_eq!(from.i64(), id as i64 - v as i64, "packed as record {id}");
            Rec(v)
        }

        fn finished(&self) -> bool {
            self.0.is_multiple_of(2)
        }
    }

    /// What a caller can do to records that are read and changed while long-lived.
    #[derive(Clone, Debug)]
    enum Use {
        Push,
        Advance(usize),
        Release(usize),
        Walk(usize),
        Read(usize),
        Peek(usize),
        Change(usize),
    }

    fn usage() -> impl Strategy<Value = Use> {
        prop_oneof![
            6 => Just(Use::Push),
            1 => (0..8usize).prop_map(Use::Advance),
            1 => (0..400usize).prop_map(Use::Release),
            1 => (1..4usize).prop_map(Use::Walk),
            3 => (0..400usize).prop_map(Use::Read),
            2 => (0..400usize).prop_map(Use::Peek),
            3 => (0..400usize).prop_map(Use::Change),
        ]
    }

    proptest! {
        /// Long-lived records read (opened), peeked and changed between walks hold what
        /// a plain ordered map holds; a walk releases only finished ones, including
        /// records packed unfinished and finished since, and leaves none open.
        #[test]
        fn packed_records_read_and_changed_hold_what_an_ordered_map_holds(
            uses in proptest::collection::vec(usage(), 0..600),
        ) {
            let mut r = Records::default();
            let mut model = std::collections::BTreeMap::new();
            let releasable = |d: usize| move |id: usize, v: &Rec| v.finished() && id.is_multiple_of(d);
            for u in uses {
                match u {
                    Use::Push => {
                        let id = r.push(Rec(r.len()));
                        model.insert(id, Rec(id));
                    }
                    Use::Advance(keep) => r.advance(keep, releasable(3), |id, v| {
                        assert_eq!(model.remove(&id), Some(v));
                    }),
                    Use::Release(id) => prop_assert_eq!(r.release(id), model.remove(&id)),
                    Use::Walk(d) => {
                        r.release_spilled(releasable(d), |id, v| {
                            assert_eq!(model.remove(&id), Some(v));
                        });
                        prop_assert_eq!(r.opened(), 0);
                        for (&id, v) in &model {
                            prop_assert!(id >= r.base || !(v.finished() && id.is_multiple_of(d)));
                        }
                    }
                    Use::Read(id) => prop_assert_eq!(r.get(id), model.get(&id)),
                    Use::Peek(id) => {
                        let opened = r.opened();
                        prop_assert_eq!(r.peek(id).map(|v| *v), model.get(&id).copied());
                        prop_assert_eq!(r.opened(), opened, "a peek opens nothing");
                    }
                    Use::Change(id) => {
                        if let Some(v) = r.get_mut(id) {
                            v.0 += 1;
                        }
                        if let Some(v) = model.get_mut(&id) {
                            v.0 += 1;
                        }
                    }
                }
                prop_assert_eq!(r.held(), model.len());
                prop_assert!(r.opened() <= r.spilled());
                let held: Vec<_> = r.iter_with_ids().map(|(id, v)| (id, *v)).collect();
                let expected: Vec<_> = model.iter().map(|(&id, &v)| (id, v)).collect();
                prop_assert_eq!(held, expected);
            }
        }
    }

    #[test]
    fn a_long_lived_record_read_is_opened_until_the_next_walk_and_a_peek_opens_none() {
        let mut r = Records::default();
        for i in 0..3 * CHUNK {
            r.push(Rec(2 * i + 1));
        }
        r.advance(0, |_, _| false, |_, _| {});
        assert_eq!((r.spilled(), r.opened()), (3 * CHUNK, 0));
        assert_eq!(r.peek(5).map(|v| *v), Some(Rec(11)));
        assert_eq!(r.opened(), 0);
        assert_eq!(r.get(5), Some(&Rec(11)));
        assert_eq!(r.get(5), Some(&Rec(11)));
        r[6].0 += 1;
        assert_eq!(r.opened(), 2, "each record is opened once");
        // The walk packs them again, changed: record 6 is now finished and goes.
        let mut gone = Vec::new();
        r.release_spilled(|_, v| v.finished(), |id, v| gone.push((id, v)));
        assert_eq!((gone, r.opened()), (vec![(6, Rec(14))], 0));
        assert_eq!(r.peek(6).map(|v| *v), None);
        assert_eq!(r.peek(5).map(|v| *v), Some(Rec(11)));
    }

    #[test]
    fn a_walk_of_opened_records_waits_for_a_sixteenth_of_what_else_it_visits() {
        let mut r = Records::default();
        for i in 0..4 * OPENED_WALK_MIN {
            r.push(Rec(2 * i + 1));
        }
        r.advance(0, |_, _| false, |_, _| {});
        for id in 0..2 * OPENED_WALK_MIN {
            let _ = r.get(id);
            let opened = id + 1;
            assert_eq!(r.opened_walk_due(0), opened >= OPENED_WALK_MIN);
            // 32,768 referenced: due at 2,048 opened, not at 1,024.
            let work = 32 * OPENED_WALK_MIN;
            assert_eq!(r.opened_walk_due(work), opened >= 2 * OPENED_WALK_MIN);
        }
    }

    #[test]
    #[should_panic(expected = "record 0 was released")]
    fn a_released_record_is_not_read() {
        let mut r = Records::default();
        r.push(1);
        r.push(2);
        r.advance(1, |_, _| true, |_, _| {});
        let _ = r[0];
    }
}
