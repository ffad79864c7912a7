//! A global allocator that counts the heap bytes held now and at most, for the memory
//! test (`tests/memory.rs`) and the memory example (`examples/memory.rs`). A directory
//! module, so cargo does not take it for a test binary of its own.
//!
//! Install it in the binary that includes this module:
//! `#[global_allocator] static ALLOCATOR: counting::Counting = counting::Counting;`

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting the bytes held now and at most.
pub struct Counting;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed to the system allocator unchanged; only counters move.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = NOW.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        NOW.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

/// Heap bytes `work` left held at its end and held at most while it ran (both counted
/// from what was held before it), with its result.
pub fn measure<T>(work: impl FnOnce() -> T) -> (T, usize, usize) {
    let before = NOW.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let result = work();
    let end = NOW.load(Ordering::Relaxed).saturating_sub(before);
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(before);
    (result, end, peak)
}
