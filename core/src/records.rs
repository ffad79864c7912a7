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

use std::collections::BTreeMap;

#[derive(Clone, Debug)]
pub struct Records<T> {
    /// Id of the ring's front.
    base: usize,
    /// Ids `base..base + ring.len()`; `None` once released.
    ring: Vec<Option<T>>,
    /// Live records older than `base`.
    spill: BTreeMap<usize, T>,
}

impl<T> Default for Records<T> {
    fn default() -> Self {
        Self {
            base: 0,
            ring: Vec::new(),
            spill: BTreeMap::new(),
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
        self.spill.len() + self.ring.iter().filter(|r| r.is_some()).count()
    }

    /// Ids in the ring, released or not (the recent window plus what came since).
    pub fn ring_len(&self) -> usize {
        self.ring.len()
    }

    /// Records moved out of the ring because they were still live.
    pub fn spilled(&self) -> usize {
        self.spill.len()
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
            None if id < self.base => self.spill.get(&id),
            None => None,
        }
    }

    #[inline]
    pub fn get_mut(&mut self, id: usize) -> Option<&mut T> {
        match self.ring.get_mut(id.wrapping_sub(self.base)) {
            Some(slot) => slot.as_mut(),
            None if id < self.base => self.spill.get_mut(&id),
            None => None,
        }
    }

    /// Held records with their ids, in id order.
    pub fn iter_with_ids(&self) -> impl Iterator<Item = (usize, &T)> + Clone + '_ {
        let ring = self.ring.iter().enumerate();
        let base = self.base;
        self.spill
            .iter()
            .map(|(&id, r)| (id, r))
            .chain(ring.filter_map(move |(i, r)| r.as_ref().map(|r| (base + i, r))))
    }

    /// Held records, in id order.
    pub fn iter(&self) -> impl Iterator<Item = &T> + Clone + '_ {
        self.iter_with_ids().map(|(_, r)| r)
    }

    /// Held records, mutably, in id order.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> + '_ {
        self.spill
            .values_mut()
            .chain(self.ring.iter_mut().filter_map(Option::as_mut))
    }

    /// Held records with their ids, mutably, in id order.
    pub fn iter_mut_with_ids(&mut self) -> impl Iterator<Item = (usize, &mut T)> + '_ {
        let base = self.base;
        let ring = self.ring.iter_mut().enumerate();
        self.spill
            .iter_mut()
            .map(|(&id, r)| (id, r))
            .chain(ring.filter_map(move |(i, r)| r.as_mut().map(|r| (base + i, r))))
    }

    /// Ids of held records, in id order.
    pub fn ids(&self) -> Vec<usize> {
        self.iter_with_ids().map(|(id, _)| id).collect()
    }

    /// Whether a sweep is due: the ring holds more than `window` ids beyond the window,
    /// and at least as many as there are long-lived records (so the sweeps' cost, which
    /// visits those, stays proportional to the records pushed).
    pub fn sweep_due(&self, window: usize) -> bool {
        self.ring.len() >= 2 * window.max(1) + self.spill.len()
    }

    /// Releases the record `id` now (finished and referenced by nothing).
    pub fn release(&mut self, id: usize) -> Option<T> {
        match id.checked_sub(self.base) {
            Some(i) => self.ring.get_mut(i)?.take(),
            None => self.spill.remove(&id),
        }
    }

    /// Ids of long-lived records (outside the ring).
    pub fn spilled_ids(&self) -> Vec<usize> {
        self.spill.keys().copied().collect()
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
        for (i, slot) in self.ring[..passed].iter_mut().enumerate() {
            let id = self.base + i;
            if let Some(record) = slot.take() {
                if releasable(id, &record) {
                    release(id, record);
                } else {
                    self.spill.insert(id, record);
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
        assert_eq!(r.spilled_ids(), vec![1, 3, 7]);
        assert_eq!(r.push(100), 10);
        assert_eq!(
            r.iter().copied().collect::<Vec<_>>(),
            vec![10, 30, 70, 80, 90, 100]
        );
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
