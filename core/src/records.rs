//! Records numbered in creation order (messages, copies) that are released once finished.
//!
//! Ids are handed out from 0 and never reused. The newest ids sit in a ring whose front
//! moves forward; when the ring grows past its window, the records at its front are
//! either released (finished and referenced by nothing) or, if still live, moved to a
//! small ordered map of long-lived records (a copy parked in a dead-letter queue, a
//! message whose confirm never came). Memory is therefore the window plus what is live,
//! whatever the length of the run.
//!
//! Indexing by id (`records[id]`) reads a held record and panics on a released one, so a
//! rule that still needed a record it had let go fails loudly instead of reading garbage.
//!
//! The ring is a plain vector whose front is cut off in one move per sweep, not a
//! `VecDeque`: the rules look records up a few dozen times per message, and a lookup in a
//! vector is one subtraction and one bounds check, without the deque's wrap-around.

#[derive(Clone, Debug)]
pub struct Records<T> {
    /// Id of the ring's front.
    base: usize,
    /// Ids `base..base + ring.len()`; `None` once released.
    ring: Vec<Option<T>>,
    /// Live records older than `base`.
    spill: Spill<T>,
    /// Records the ring's front passed over since the long-lived ones were last walked.
    passed_since_walk: usize,
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

    /// Adds a record; returns its id.
    pub fn push(&mut self, record: T) -> usize {
        self.ring.push(Some(record));
        self.len() - 1
    }

    /// The record `id`, unless it was released (or never existed). Inlined, like the
    /// indexing below: the rules look records up many times per step.
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

    /// Held records with their ids, in id order.
    pub fn iter_with_ids(&self) -> impl Iterator<Item = (usize, &T)> + Clone + '_ {
        let ring = self.ring.iter().enumerate();
        let base = self.base;
        self.spill
            .iter()
            .chain(ring.filter_map(move |(i, r)| r.as_ref().map(|r| (base + i, r))))
    }

    /// Held records, in id order.
    pub fn iter(&self) -> impl Iterator<Item = &T> + Clone + '_ {
        self.iter_with_ids().map(|(_, r)| r)
    }

    /// Held records, mutably, in id order.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> + '_ {
        self.iter_mut_with_ids().map(|(_, r)| r)
    }

    /// Held records with their ids, mutably, in id order.
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

    /// Releases the record `id` now (finished and referenced by nothing).
    pub fn release(&mut self, id: usize) -> Option<T> {
        match id.checked_sub(self.base) {
            Some(i) => self.ring.get_mut(i)?.take(),
            None => self.spill.remove(id),
        }
    }

    /// Releases, through `release`, each long-lived record that `releasable` says may go
    /// (one pass in id order, no lookups).
    pub fn release_spilled(
        &mut self,
        releasable: impl FnMut(usize, &T) -> bool,
        release: impl FnMut(usize, T),
    ) {
        self.passed_since_walk = 0;
        self.spill.release_where(releasable, release);
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

    /// Drops the ring's first `n` slots (all empty) in one move.
    fn cut_front(&mut self, n: usize) {
        self.ring.drain(..n);
        self.base += n;
    }
}

/// Live records that left the ring, in id order, in chunks of at most [`CHUNK`]. A chunk
/// of consecutive ids (a backlog that spills is all live) keeps only its first id; any
/// other keeps its ids beside its records. A released record leaves an empty slot until
/// half of its chunk is empty, then the chunk is squeezed (and shrunk), and an empty
/// chunk goes. So a spilled backlog costs its records' own size (an ordered map's nodes,
/// half full when filled in order, took about 1.9 times), and a scattered long-lived
/// record its slot and its id, with no reallocation of the whole spill as it grows
/// (which would hold it twice for a moment).
#[derive(Clone, Debug)]
struct Spill<T> {
    chunks: Vec<Chunk<T>>,
    held: usize,
}

/// Records per chunk: large enough that the chunks' own vector stays short (a spill of
/// millions is a few hundred chunks), small enough that one is cheap to squeeze. Tests
/// use tiny chunks, so that their few hundred records cross many chunk boundaries.
#[cfg(not(test))]
const CHUNK: usize = 4_096;
#[cfg(test)]
const CHUNK: usize = 8;

/// A run of long-lived records in id order. *Dense* while its ids are consecutive from
/// `first` (a spilled backlog: every record passed over was live), with no id list;
/// *sparse* once a gap or a squeeze breaks the run, with `ids` beside `slots`.
#[derive(Clone, Debug)]
struct Chunk<T> {
    first: usize,
    /// Empty while dense; else ascending, one per slot.
    ids: Vec<usize>,
    slots: Vec<Option<T>>,
    held: usize,
}

impl<T> Default for Spill<T> {
    fn default() -> Self {
        Self {
            chunks: Vec::new(),
            held: 0,
        }
    }
}

impl<T> Spill<T> {
    fn held(&self) -> usize {
        self.held
    }

    /// Adds `record` with an id above every id held. Out of line: a steady run spills
    /// little, and inlined into the sweep it made the step loop too large to inline.
    #[inline(never)]
    fn push(&mut self, id: usize, record: T) {
        debug_assert!(self.chunks.last().is_none_or(|c| c.last_id() < id));
        if self.chunks.last().is_none_or(|c| c.slots.len() == CHUNK) {
            self.chunks.push(Chunk {
                first: id,
                ids: Vec::new(),
                slots: Vec::with_capacity(CHUNK),
                held: 0,
            });
        }
        self.chunks
            .last_mut()
            .expect("just ensured")
            .push(id, record);
        self.held += 1;
    }

    /// The chunk and slot `id` would be in.
    fn find(&self, id: usize) -> Option<(usize, usize)> {
        let c = self.chunks.partition_point(|c| c.last_id() < id);
        let slot = self.chunks.get(c)?.position(id)?;
        Some((c, slot))
    }

    /// Out of line (as is `get_mut`), so that `Records`' lookups, which call it only for
    /// ids below the ring, stay small enough to inline.
    #[inline(never)]
    fn get(&self, id: usize) -> Option<&T> {
        let (c, s) = self.find(id)?;
        self.chunks[c].slots[s].as_ref()
    }

    #[inline(never)]
    fn get_mut(&mut self, id: usize) -> Option<&mut T> {
        let (c, s) = self.find(id)?;
        self.chunks[c].slots[s].as_mut()
    }

    fn remove(&mut self, id: usize) -> Option<T> {
        let (c, s) = self.find(id)?;
        let record = self.chunks[c].slots[s].take()?;
        self.chunks[c].held -= 1;
        self.held -= 1;
        self.tidy(c);
        Some(record)
    }

    /// Releases every record `releasable` accepts, in one pass.
    fn release_where(
        &mut self,
        mut releasable: impl FnMut(usize, &T) -> bool,
        mut release: impl FnMut(usize, T),
    ) {
        for c in (0..self.chunks.len()).rev() {
            let chunk = &mut self.chunks[c];
            let (first, ids) = (chunk.first, &chunk.ids);
            for (i, slot) in chunk.slots.iter_mut().enumerate() {
                let id = slot_id(first, ids, i);
                if slot.as_ref().is_some_and(|r| releasable(id, r)) {
                    let record = slot.take().expect("checked");
                    chunk.held -= 1;
                    self.held -= 1;
                    release(id, record);
                }
            }
            self.tidy(c);
        }
    }

    /// Drops chunk `c` if empty, squeezes it if half empty (not the last, which is
    /// still being filled).
    fn tidy(&mut self, c: usize) {
        let last = c + 1 == self.chunks.len();
        let chunk = &mut self.chunks[c];
        if chunk.held == 0 {
            self.chunks.remove(c);
        } else if !last && chunk.held * 2 <= chunk.slots.len() {
            chunk.squeeze();
        }
    }

    fn iter(&self) -> impl Iterator<Item = (usize, &T)> + Clone + '_ {
        self.chunks.iter().flat_map(|c| {
            c.slots
                .iter()
                .enumerate()
                .filter_map(|(i, r)| r.as_ref().map(|r| (c.id(i), r)))
        })
    }

    fn iter_mut(&mut self) -> impl Iterator<Item = (usize, &mut T)> + '_ {
        self.chunks.iter_mut().flat_map(|c| {
            let (first, ids) = (c.first, &c.ids);
            c.slots.iter_mut().enumerate().filter_map(move |(i, r)| {
                let id = slot_id(first, ids, i);
                r.as_mut().map(|r| (id, r))
            })
        })
    }
}

/// The id of slot `i` of a chunk starting at `first` with this id list (empty while
/// dense). A free function so that loops holding a chunk's slots mutably can call it.
fn slot_id(first: usize, ids: &[usize], i: usize) -> usize {
    ids.get(i).map_or(first + i, |&id| id)
}

impl<T> Chunk<T> {
    /// The id of slot `i`.
    fn id(&self, i: usize) -> usize {
        slot_id(self.first, &self.ids, i)
    }

    fn last_id(&self) -> usize {
        self.id(self.slots.len().saturating_sub(1))
    }

    /// The slot of `id`, if this chunk has one.
    fn position(&self, id: usize) -> Option<usize> {
        if self.ids.is_empty() {
            id.checked_sub(self.first).filter(|&i| i < self.slots.len())
        } else {
            self.ids.binary_search(&id).ok()
        }
    }

    fn push(&mut self, id: usize, record: T) {
        let dense = self.ids.is_empty();
        if dense && id != self.first + self.slots.len() {
            self.list_ids(CHUNK);
        }
        if !self.ids.is_empty() {
            self.ids.push(id);
        }
        self.slots.push(Some(record));
        self.held += 1;
    }

    /// Turns a dense chunk sparse: its ids, listed (room for `capacity`).
    fn list_ids(&mut self, capacity: usize) {
        if self.ids.is_empty() {
            self.ids.reserve_exact(capacity);
            self.ids.extend(self.first..self.first + self.slots.len());
        }
    }

    /// Removes the empty slots and gives back the room they took.
    fn squeeze(&mut self) {
        self.list_ids(self.slots.len());
        let mut keep = self.slots.iter().map(Option::is_some);
        self.ids
            .retain(|_| keep.next().expect("as many ids as slots"));
        self.slots.retain(Option::is_some);
        self.ids.shrink_to_fit();
        self.slots.shrink_to_fit();
    }
}

impl<'a, T> IntoIterator for &'a Records<T> {
    type Item = &'a T;
    type IntoIter = Box<dyn Iterator<Item = &'a T> + 'a>;
    /// Held records, in id order.
    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

impl<T> std::ops::Index<usize> for Records<T> {
    type Output = T;
    #[inline]
    fn index(&self, id: usize) -> &T {
        self.get(id).unwrap_or_else(|| released(id))
    }
}

impl<T> std::ops::IndexMut<usize> for Records<T> {
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
            r.iter().copied().collect::<Vec<_>>(),
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
        assert_eq!(r.spill.chunks[0].slots.len(), CHUNK / 2);
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
