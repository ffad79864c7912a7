//! Long-lived records: the live ones the ring's front passed over, kept packed.
//!
//! They are in id order, in chunks of at most [`CHUNK`]. A chunk keeps its records packed
//! in one byte vector ([`Pack`]), a few bytes each instead of their size in memory. A
//! record read or changed is unpacked once into the chunk's open records and stays open
//! until the chunk is rebuilt: the next walk packs it again, or releases it if finished.
//! So a spilled backlog costs its packed bytes and a start offset per record, and only
//! the records the rules are working on (the oldest of a draining backlog) are whole.
//!
//! A chunk of consecutive ids (a backlog that spills is all live) keeps only its first
//! id; any other keeps its ids beside its records. A released record leaves an empty slot
//! until half of its chunk is empty, then the chunk is squeezed, and an empty chunk goes.

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::OnceLock;

use super::pack::{Pack, Packer, Unpacker};
use super::Held;
use crate::time::Micros;

/// Records per chunk: large enough that the chunks' own vector stays short (a spill of
/// millions is a few hundred chunks), small enough that one is cheap to rebuild. Tests
/// use tiny chunks, so that their few hundred records cross many chunk boundaries.
#[cfg(not(test))]
pub(super) const CHUNK: usize = 4_096;
#[cfg(test)]
pub(super) const CHUNK: usize = 8;

/// The top bit of a slot's start: its record was released.
const RELEASED: u32 = 1 << 31;
/// The next bit: its record was [finished](Pack::finished) when packed.
const FINISHED: u32 = 1 << 30;
/// The rest: where its bytes start.
const OFFSET: u32 = FINISHED - 1;

#[derive(Debug)]
pub(super) struct Spill<T> {
    pub(super) chunks: Vec<Chunk<T>>,
    held: usize,
    /// Records unpacked and not yet packed again, and the chunks they are in.
    opened: Opened,
    /// The chunk the last lookup found: the rules look the same few records up a dozen
    /// times per step, and a backlog is served from its oldest chunk.
    last_found: AtomicUsize,
}

/// Counts of what is opened. Atomic only because lookups through a shared reference
/// open records, and the page keeps its run where values must be `Sync`; nothing runs
/// on two threads.
#[derive(Debug, Default)]
pub(super) struct Opened {
    records: AtomicUsize,
    chunks: AtomicUsize,
}

impl Clone for Opened {
    fn clone(&self) -> Self {
        Self {
            records: AtomicUsize::new(self.records.load(Relaxed)),
            chunks: AtomicUsize::new(self.chunks.load(Relaxed)),
        }
    }
}

impl Opened {
    fn add(&self, records: usize) {
        self.records.fetch_add(records, Relaxed);
    }

    fn sub(&self, records: usize) {
        self.records.fetch_sub(records, Relaxed);
    }

    /// A chunk allocated its open records' cells.
    fn chunk_opened(&self) {
        self.chunks.fetch_add(1, Relaxed);
    }

    /// A chunk let its open records' cells go.
    fn chunk_closed(&self) {
        self.chunks.fetch_sub(1, Relaxed);
    }
}

/// A run of long-lived records in id order. *Dense* while its ids are consecutive from
/// `first` (a spilled backlog: every record passed over was live), with no id list;
/// *sparse* once a gap or a squeeze breaks the run, with `ids` beside the slots.
#[derive(Clone, Debug)]
pub(super) struct Chunk<T> {
    first: usize,
    /// Empty while dense; else ascending, one per slot.
    ids: Vec<usize>,
    /// Where each slot's bytes start in `bytes` (they end where the next slot's start),
    /// with [`RELEASED`] set once its record went, and [`FINISHED`] if it was finished
    /// when packed.
    pub(super) starts: Vec<u32>,
    bytes: Vec<u8>,
    /// The instant the chunk's records' instants are packed from: its first record's.
    epoch_us: Micros,
    /// The records unpacked since the chunk was last rebuilt, by slot (allocated on the
    /// first one; these are the truth for their slots until packed again).
    open: OnceLock<Box<[OnceLock<Box<T>>]>>,
    held: usize,
}

impl<T> Default for Spill<T> {
    fn default() -> Self {
        Self {
            chunks: Vec::new(),
            held: 0,
            opened: Opened::default(),
            last_found: AtomicUsize::new(0),
        }
    }
}

impl<T: Clone> Clone for Spill<T> {
    fn clone(&self) -> Self {
        Self {
            chunks: self.chunks.clone(),
            held: self.held,
            opened: self.opened.clone(),
            last_found: AtomicUsize::new(0),
        }
    }
}

impl<T> Spill<T> {
    pub(super) fn held(&self) -> usize {
        self.held
    }

    /// Records unpacked (read or changed) since their chunk was last rebuilt.
    pub(super) fn opened(&self) -> usize {
        self.opened.records.load(Relaxed)
    }

    /// Slots in the chunks that have opened records: what a walk of those costs.
    pub(super) fn opened_slots(&self) -> usize {
        self.opened.chunks.load(Relaxed) * CHUNK
    }

    /// The chunk and slot `id` would be in.
    fn find(&self, id: usize) -> Option<(usize, usize)> {
        let hint = self.last_found.load(Relaxed);
        let c = match self.chunks.get(hint) {
            Some(chunk) if chunk.id(0) <= id && id <= chunk.last_id() => hint,
            _ => {
                let c = self.chunks.partition_point(|c| c.last_id() < id);
                self.last_found.store(c, Relaxed);
                c
            }
        };
        let slot = self.chunks.get(c)?.position(id)?;
        Some((c, slot))
    }
}

impl<T: Pack> Spill<T> {
    /// Adds `record` with an id above every id held. Out of line: a steady run spills
    /// little, and inlined into the sweep it made the step loop too large to inline.
    #[inline(never)]
    pub(super) fn push(&mut self, id: usize, record: T) {
        debug_assert!(self.chunks.last().is_none_or(|c| c.last_id() < id));
        if self.chunks.last().is_none_or(|c| c.starts.len() == CHUNK) {
            self.chunks.push(Chunk::new(id, record.epoch_us()));
        }
        self.chunks
            .last_mut()
            .expect("just ensured")
            .push(id, &record);
        self.held += 1;
    }

    /// The record `id`, opened (unpacked and kept whole until the next walk). Out of line
    /// (as are the others), so that `Records`' lookups, which call it only for ids below
    /// the ring, stay small enough to inline.
    #[inline(never)]
    pub(super) fn get(&self, id: usize) -> Option<&T> {
        let (c, s) = self.find(id)?;
        self.chunks[c].get(s, &self.opened)
    }

    /// The record `id`, read without opening it (a scan over many records).
    #[inline(never)]
    pub(super) fn peek(&self, id: usize) -> Option<Held<'_, T>> {
        let (c, s) = self.find(id)?;
        self.chunks[c].peek(s)
    }

    #[inline(never)]
    pub(super) fn get_mut(&mut self, id: usize) -> Option<&mut T> {
        let (c, s) = self.find(id)?;
        self.chunks[c].get_mut(s, &self.opened)
    }

    pub(super) fn remove(&mut self, id: usize) -> Option<T> {
        let (c, s) = self.find(id)?;
        let record = self.chunks[c].take(s, &self.opened)?;
        self.held -= 1;
        self.tidy(c, false);
        Some(record)
    }

    /// Releases every record `releasable` accepts, in one pass, and packs again every
    /// record left open; with `only_opened`, in the chunks with open records only.
    pub(super) fn release_where(
        &mut self,
        only_opened: bool,
        mut releasable: impl FnMut(usize, &T) -> bool,
        mut release: impl FnMut(usize, T),
    ) {
        for c in (0..self.chunks.len()).rev() {
            if only_opened && self.chunks[c].open.get().is_none() {
                continue;
            }
            let chunk = &mut self.chunks[c];
            self.held -= chunk.release_where(&self.opened, &mut releasable, &mut release);
            self.tidy(c, true);
        }
    }

    /// Drops chunk `c` if empty, squeezes it if half empty (not the last, which is
    /// still being filled), and with `pack` packs its open records again.
    fn tidy(&mut self, c: usize, pack: bool) {
        let last = c + 1 == self.chunks.len();
        let chunk = &mut self.chunks[c];
        if chunk.held == 0 {
            chunk.close(&self.opened);
            self.chunks.remove(c);
        } else {
            let squeeze = !last && chunk.half_empty();
            if squeeze || pack {
                chunk.rebuild(squeeze, &self.opened);
            }
        }
    }

    /// Held records with their ids, in id order: the open ones as they are, the others
    /// unpacked one at a time (none is opened).
    pub(super) fn iter(&self) -> impl Iterator<Item = (usize, Held<'_, T>)> + Clone + '_ {
        self.chunks
            .iter()
            .flat_map(|c| (0..c.starts.len()).filter_map(move |i| c.peek(i).map(|r| (c.id(i), r))))
    }

    /// Held records with their ids, mutably, in id order (each one opened).
    pub(super) fn iter_mut(&mut self) -> impl Iterator<Item = (usize, &mut T)> + '_ {
        let opened = &self.opened;
        self.chunks.iter_mut().flat_map(move |c| c.open_all(opened))
    }
}

/// A slot's start at `offset`.
fn start_at(offset: usize) -> u32 {
    u32::try_from(offset)
        .ok()
        .filter(|&o| o <= OFFSET)
        .expect("a chunk's records pack into less than 1 GB")
}

fn finished_bit<T: Pack>(record: &T) -> u32 {
    if record.finished() {
        FINISHED
    } else {
        0
    }
}

/// Where `id` is in `ids` (ascending), if there. Starts where `id` would be if the ids
/// were spread evenly between the first and the last, then gallops to it: the live ids
/// a sweep passes over are spread about evenly, so this finds one in a few probes near
/// each other, where a binary search took a dozen scattered ones (a fifth of a burst's
/// run went to it: docs/performance.md, "Long-lived records packed").
fn search_from_guess(ids: &[usize], id: usize) -> Option<usize> {
    let (&lo, &hi) = (ids.first()?, ids.last()?);
    if id < lo || id > hi {
        return None;
    }
    let last = ids.len() - 1;
    // A guess off the mark (a product that saturates) only costs probes.
    let spread = ((id - lo) as u64).saturating_mul(last as u64) / (hi - lo).max(1) as u64;
    let guess = usize::try_from(spread).map_or(last, |g| g.min(last));
    // Gallop away from the guess until `id` is bracketed, then search the bracket.
    let (mut below, mut above) = (guess, guess);
    let mut step = 1;
    if ids[guess] < id {
        while above < last && ids[above] < id {
            below = above;
            above = (above + step).min(last);
            step *= 2;
        }
    } else {
        while below > 0 && ids[below] > id {
            above = below;
            below = below.saturating_sub(step);
            step *= 2;
        }
    }
    ids[below..=above]
        .binary_search(&id)
        .ok()
        .map(|i| below + i)
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
        self.id(self.starts.len().saturating_sub(1))
    }

    /// The slot of `id`, if this chunk has one.
    fn position(&self, id: usize) -> Option<usize> {
        if self.ids.is_empty() {
            id.checked_sub(self.first)
                .filter(|&i| i < self.starts.len())
        } else {
            search_from_guess(&self.ids, id)
        }
    }

    fn released(&self, i: usize) -> bool {
        self.starts[i] & RELEASED != 0
    }

    fn mark_released(&mut self, i: usize) {
        self.starts[i] |= RELEASED;
        self.held -= 1;
    }

    fn half_empty(&self) -> bool {
        self.held * 2 <= self.starts.len()
    }

    /// Slot `i`'s bytes.
    fn bytes_of(&self, i: usize) -> &[u8] {
        let start = (self.starts[i] & OFFSET) as usize;
        let end = self
            .starts
            .get(i + 1)
            .map_or(self.bytes.len(), |&s| (s & OFFSET) as usize);
        &self.bytes[start..end]
    }

    /// Slot `i`'s record if it is open.
    fn open_record(&self, i: usize) -> Option<&T> {
        self.open
            .get()
            .and_then(|cells| cells[i].get())
            .map(|r| &**r)
    }

    /// Forgets the open records (their slots released or packed again).
    fn close(&mut self, opened: &Opened) {
        if let Some(cells) = self.open.take() {
            let n = cells.iter().filter(|c| c.get().is_some()).count();
            opened.sub(n);
            opened.chunk_closed();
        }
    }

    /// Turns a dense chunk sparse: its ids, listed (room for `capacity`).
    fn list_ids(&mut self, capacity: usize) {
        if self.ids.is_empty() {
            self.ids.reserve_exact(capacity);
            self.ids.extend(self.first..self.first + self.starts.len());
        }
    }
}

impl<T: Pack> Chunk<T> {
    fn new(first: usize, epoch_us: Micros) -> Self {
        Self {
            first,
            ids: Vec::new(),
            starts: Vec::with_capacity(CHUNK),
            bytes: Vec::new(),
            epoch_us,
            open: OnceLock::new(),
            held: 0,
        }
    }

    fn push(&mut self, id: usize, record: &T) {
        let dense = self.ids.is_empty();
        if dense && id != self.first + self.starts.len() {
            self.list_ids(CHUNK);
        }
        if !self.ids.is_empty() {
            self.ids.push(id);
        }
        self.starts.push(self.start_here() | finished_bit(record));
        record.pack(id, self.epoch_us, &mut Packer(&mut self.bytes));
        self.held += 1;
        if self.starts.len() == CHUNK {
            // Full: give back the byte vector's room to grow.
            self.bytes.shrink_to_fit();
        }
    }

    fn start_here(&self) -> u32 {
        start_at(self.bytes.len())
    }

    fn unpack(&self, i: usize) -> T {
        let mut from = Unpacker(self.bytes_of(i));
        let record = T::unpack(self.id(i), self.epoch_us, &mut from);
        debug_assert!(from.0.is_empty(), "a record unpacks all it packed");
        record
    }

    /// The open records' cells, allocated for a whole chunk on first use.
    fn cells(&self, opened: &Opened) -> &[OnceLock<Box<T>>] {
        self.open.get_or_init(|| {
            opened.chunk_opened();
            (0..CHUNK).map(|_| OnceLock::new()).collect()
        })
    }

    fn get(&self, i: usize, opened: &Opened) -> Option<&T> {
        if self.released(i) {
            return None;
        }
        let record = self.cells(opened)[i].get_or_init(|| {
            opened.add(1);
            Box::new(self.unpack(i))
        });
        Some(record)
    }

    fn peek(&self, i: usize) -> Option<Held<'_, T>> {
        if self.released(i) {
            return None;
        }
        Some(match self.open_record(i) {
            Some(record) => Held::Open(record),
            None => Held::Unpacked(self.unpack(i)),
        })
    }

    fn get_mut(&mut self, i: usize, opened: &Opened) -> Option<&mut T> {
        if self.released(i) {
            return None;
        }
        let _ = self.cells(opened);
        let fresh = self.open_record(i).is_none().then(|| self.unpack(i));
        let cells = self.open.get_mut().expect("just allocated");
        if let Some(record) = fresh {
            opened.add(1);
            let _ = cells[i].set(Box::new(record));
        }
        cells[i].get_mut().map(|r| &mut **r)
    }

    /// Releases each held record `releasable` accepts through `release`; returns how
    /// many. An open record is asked as it is now; a packed one is unpacked for the
    /// question only if it was finished when packed (nothing changed it since, so an
    /// unfinished one cannot be releasable), and stays packed if kept.
    fn release_where(
        &mut self,
        opened: &Opened,
        releasable: &mut impl FnMut(usize, &T) -> bool,
        release: &mut impl FnMut(usize, T),
    ) -> usize {
        let mut released = 0;
        for i in 0..self.starts.len() {
            if self.released(i) {
                continue;
            }
            let id = self.id(i);
            let record = match self.open_record(i).map(|record| releasable(id, record)) {
                Some(true) => self.take(i, opened).expect("held"),
                Some(false) => continue,
                None if self.starts[i] & FINISHED == 0 => continue,
                None => {
                    let record = self.unpack(i);
                    if !releasable(id, &record) {
                        continue;
                    }
                    self.mark_released(i);
                    record
                }
            };
            released += 1;
            release(id, record);
        }
        released
    }

    /// Releases slot `i`'s record and hands it over.
    fn take(&mut self, i: usize, opened: &Opened) -> Option<T> {
        if self.released(i) {
            return None;
        }
        let open = self
            .open
            .get_mut()
            .and_then(|cells| cells[i].take())
            .map(|r| *r);
        let record = match open {
            Some(record) => {
                opened.sub(1);
                record
            }
            None => self.unpack(i),
        };
        self.mark_released(i);
        Some(record)
    }

    /// Every held record opened, mutably, with its id.
    fn open_all<'a>(
        &'a mut self,
        opened: &Opened,
    ) -> impl Iterator<Item = (usize, &'a mut T)> + 'a {
        for i in 0..self.starts.len() {
            let _ = self.get(i, opened);
        }
        let (first, ids, starts) = (self.first, &self.ids, &self.starts);
        let cells = self.open.get_mut().map_or(&mut [][..], |c| &mut c[..]);
        cells
            .iter_mut()
            .take(starts.len())
            .enumerate()
            .filter_map(move |(i, cell)| cell.get_mut().map(|r| (slot_id(first, ids, i), &mut **r)))
    }

    /// Packs the chunk again: open records from what they are now, the others as they
    /// were; a released record's bytes go, and with `squeeze` its slot and id too (and
    /// the room they took).
    fn rebuild(&mut self, squeeze: bool, opened: &Opened) {
        let cells = self.open.take();
        if cells.is_some() {
            opened.chunk_closed();
        } else if !squeeze {
            return;
        }
        if squeeze {
            self.list_ids(self.starts.len());
        }
        let mut bytes = Vec::with_capacity(self.bytes.len());
        let mut starts = Vec::with_capacity(if squeeze { self.held } else { CHUNK });
        let mut ids = Vec::with_capacity(if squeeze { self.held } else { 0 });
        let mut closed = 0;
        for i in 0..self.starts.len() {
            let start = start_at(bytes.len());
            if self.released(i) {
                if !squeeze {
                    starts.push(start | RELEASED);
                }
                continue;
            }
            let finished = match cells.as_ref().and_then(|c| c[i].get()) {
                Some(record) => {
                    closed += 1;
                    record.pack(self.id(i), self.epoch_us, &mut Packer(&mut bytes));
                    finished_bit(&**record)
                }
                None => {
                    bytes.extend_from_slice(self.bytes_of(i));
                    self.starts[i] & FINISHED
                }
            };
            starts.push(start | finished);
            if squeeze {
                ids.push(self.id(i));
            }
        }
        opened.sub(closed);
        bytes.shrink_to_fit();
        self.bytes = bytes;
        self.starts = starts;
        if squeeze {
            self.ids = ids;
            self.starts.shrink_to_fit();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::search_from_guess;
    use proptest::prelude::*;

    proptest! {
        /// It finds what a binary search finds, however the ids are spread.
        #[test]
        fn a_guessed_search_finds_what_a_binary_search_finds(
            mut ids in proptest::collection::vec(0..10_000usize, 0..300),
            probes in proptest::collection::vec(0..10_100usize, 0..50),
        ) {
            ids.sort_unstable();
            ids.dedup();
            for id in probes.into_iter().chain(ids.iter().copied()) {
                prop_assert_eq!(search_from_guess(&ids, id), ids.binary_search(&id).ok());
            }
        }
    }
}
