//! Where the backends' attack tables live: moved out of their boxes into chunks of whole, aligned
//! 2 MiB pages, packed one after another, so that any table, a small one too, can be put on
//! huge pages by collapsing the pages around it (`pages::collapse_to_huge_pages`).
//!
//! Before the arena, each table was a heap allocation of its own: only the whole 2 MiB pages
//! inside one could be collapsed, so tables under 4 MiB stayed on 4 KiB pages (issue 28, item
//! 6). Packing keeps a backend's tables next to each other, as consecutive allocations were,
//! rather than each at a 2 MiB boundary, where all of them would share their cache sets.

use std::alloc::Layout;
use std::sync::Mutex;

const HUGE_PAGE: usize = 2 << 20;
/// A new chunk's size, unless one table needs more: room for every backend's tables but the
/// biggest in a few chunks.
const CHUNK: usize = 16 << 20;
/// Every table starts on its own cache line.
const LINE: usize = 64;

/// The chunks (start, end) and the free range of the newest.
struct Arena {
    chunks: Vec<(usize, usize)>,
    next: usize,
    end: usize,
}

static ARENA: Mutex<Arena> = Mutex::new(Arena {
    chunks: Vec::new(),
    next: 0,
    end: 0,
});

/// Room for `layout` in the arena, in a new chunk if the newest has too little. The memory is
/// left untouched, so the kernel picks its pages at the first write, as it does for the heap.
fn reserve(layout: Layout) -> *mut u8 {
    let align = layout.align().max(LINE);
    let mut arena = ARENA
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut start = arena.next.next_multiple_of(align);
    if arena.chunks.is_empty() || start + layout.size() > arena.end {
        let size = layout.size().next_multiple_of(HUGE_PAGE).max(CHUNK);
        let chunk = Layout::from_size_align(size, HUGE_PAGE).expect("a chunk's layout");
        // SAFETY: the layout has a non-zero size. The chunk is never freed: tables live as
        // long as the process.
        let raw = unsafe { std::alloc::alloc(chunk) };
        if raw.is_null() {
            std::alloc::handle_alloc_error(chunk);
        }
        arena.chunks.push((raw as usize, raw as usize + size));
        arena.end = raw as usize + size;
        start = raw as usize;
    }
    arena.next = start + layout.size();
    start as *mut u8
}

/// Moves `table` into the arena, for the rest of the process.
pub fn place<T: Sync + 'static>(table: Box<T>) -> &'static T {
    let layout = Layout::new::<T>();
    if layout.size() == 0 {
        return Box::leak(table);
    }
    let destination = reserve(layout) as *mut T;
    let source = Box::into_raw(table);
    // SAFETY: `destination` is fresh arena memory, aligned for `T` and `size_of::<T>()` bytes,
    // never handed out again and never freed. Copying the bytes and freeing the box's memory
    // without dropping the value moves it, as moving out of a box does.
    unsafe {
        destination.copy_from_nonoverlapping(source, 1);
        std::alloc::dealloc(source as *mut u8, layout);
        &*destination
    }
}

/// [`place`] for a boxed slice.
pub fn place_slice<T: Sync + 'static>(table: Box<[T]>) -> &'static [T] {
    let layout = Layout::for_value(&*table);
    let len = table.len();
    if layout.size() == 0 {
        return Box::leak(table);
    }
    let destination = reserve(layout) as *mut T;
    let source = Box::into_raw(table) as *mut T;
    // SAFETY: as in `place`, for `len` elements.
    unsafe {
        destination.copy_from_nonoverlapping(source, len);
        std::alloc::dealloc(source as *mut u8, layout);
        std::slice::from_raw_parts(destination, len)
    }
}

/// The whole 2 MiB pages that hold `memory`, where `memory` lies in the arena: every such page
/// lies in the chunk, so collapsing them touches nothing but tables.
pub fn huge_pages_around(memory: &[u8]) -> Option<(usize, usize)> {
    let start = memory.as_ptr() as usize;
    let end = start + memory.len();
    let arena = ARENA
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    arena
        .chunks
        .iter()
        .any(|&(first, last)| first <= start && end <= last && start < end)
        .then(|| {
            (
                start / HUGE_PAGE * HUGE_PAGE,
                end.next_multiple_of(HUGE_PAGE),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_keep_their_values_alignment_and_order() {
        let small = place(Box::new([7u64; 1000]));
        let slice = place_slice(vec![3u16; 5000].into_boxed_slice());
        let big = place_slice(vec![9u8; 40 << 20].into_boxed_slice());
        assert!(small.iter().all(|&v| v == 7));
        assert!(slice.iter().all(|&v| v == 3));
        assert_eq!(big.len(), 40 << 20);
        assert!(big.iter().step_by(4096).all(|&v| v == 9));
        for start in [small.as_ptr() as usize, slice.as_ptr() as usize] {
            assert_eq!(start % LINE, 0);
        }
        // Consecutive tables are packed, not each at a 2 MiB boundary (unless a chunk ended).
        let (a, b) = (small.as_ptr() as usize, slice.as_ptr() as usize);
        assert!(b > a && b - a < 2 * 8000 || b % HUGE_PAGE == 0);
    }

    #[test]
    fn the_pages_around_a_table_lie_in_its_chunk() {
        let table = place_slice(vec![1u8; 100_000].into_boxed_slice());
        let (start, end) = huge_pages_around(table).expect("in the arena");
        assert_eq!(start % HUGE_PAGE, 0);
        assert_eq!(end % HUGE_PAGE, 0);
        assert!(start <= table.as_ptr() as usize);
        assert!(end >= table.as_ptr() as usize + table.len());
        let arena = ARENA.lock().unwrap();
        assert!(arena
            .chunks
            .iter()
            .any(|&(first, last)| first <= start && end <= last));
        drop(arena);
        let elsewhere = vec![0u8; 100_000];
        assert_eq!(huge_pages_around(&elsewhere), None);
    }
}
