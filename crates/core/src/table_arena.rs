//! Where the backends' attack tables live: moved out of their boxes into chunks of whole, aligned
//! 2 MiB pages, packed one after another, so that any table, a small one too, can be put on
//! huge pages by collapsing the pages around it ([`collapse_to_huge_pages`]).
//!
//! Before the arena, each table was a heap allocation of its own (at 16 bytes past a 4 KiB
//! page, glibc's header): only the whole 2 MiB pages inside one could be collapsed, so most of
//! a table under 4 MiB stayed on 4 KiB pages (issue 28, item 6). Each family of backends (a base
//! and its layout variants) has chunks of its own, so that collapsing one family's tables moves
//! no other's (E12 keeps one family on 4 KiB pages as a control); within a family, the tables
//! are packed, each on a cache line of its own, rather than each at a 2 MiB boundary, where
//! all of them would share their cache sets.

use crate::pages::{advise_pages, Pages};
use std::alloc::Layout;
use std::sync::Mutex;

const HUGE_PAGE: usize = 2 << 20;
/// A new chunk's size, unless one table needs more: room for the biggest family's base tables
/// (magic-plain's four of 15.2 MiB) in one chunk. Only the pages written are backed.
const CHUNK: usize = 64 << 20;
/// Every table starts on its own cache line.
const LINE: usize = 64;

/// One family's newest chunk: its free range.
struct Family {
    name: &'static str,
    next: usize,
    end: usize,
}

/// Every chunk (start, end), and each family's free range.
struct Arena {
    chunks: Vec<(usize, usize)>,
    families: Vec<Family>,
}

static ARENA: Mutex<Arena> = Mutex::new(Arena {
    chunks: Vec::new(),
    families: Vec::new(),
});

/// Room for `layout` in `family`'s chunks, in a new one if its newest has too little. A new
/// chunk is advised onto 4 KiB pages (`MADV_NOHUGEPAGE`) before its first write, so that the
/// tables start on 4 KiB pages whatever the machine's THP setting, and the page experiments'
/// 4 KiB phase is what it says; [`collapse_to_huge_pages`] moves them.
fn reserve(family: &'static str, layout: Layout) -> *mut u8 {
    assert!(layout.align() <= HUGE_PAGE, "a table aligned beyond 2 MiB");
    let align = layout.align().max(LINE);
    let mut arena = ARENA
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let index = match arena.families.iter().position(|f| f.name == family) {
        Some(index) => index,
        None => {
            arena.families.push(Family {
                name: family,
                next: 0,
                end: 0,
            });
            arena.families.len() - 1
        }
    };
    let free = &arena.families[index];
    let mut start = free.next.next_multiple_of(align);
    if free.end == 0 || start + layout.size() > free.end {
        let size = layout.size().next_multiple_of(HUGE_PAGE).max(CHUNK);
        let chunk = Layout::from_size_align(size, HUGE_PAGE).expect("a chunk's layout");
        // SAFETY: the layout has a non-zero size. The chunk is never freed: tables live as
        // long as the process.
        let raw = unsafe { std::alloc::alloc(chunk) };
        if raw.is_null() {
            std::alloc::handle_alloc_error(chunk);
        }
        // Refused advice (a kernel without THP) leaves the pages as the kernel gives them.
        let _ = advise_pages(raw, size, Pages::Small);
        arena.chunks.push((raw as usize, raw as usize + size));
        arena.families[index].end = raw as usize + size;
        start = raw as usize;
    }
    arena.families[index].next = start + layout.size();
    start as *mut u8
}

/// Moves `table` into `family`'s chunks of the arena (`family`: the base backend's name), for
/// the rest of the process.
pub fn place<T: Sync + 'static>(family: &'static str, table: Box<T>) -> &'static T {
    let layout = Layout::new::<T>();
    if layout.size() == 0 {
        return Box::leak(table);
    }
    let destination = reserve(family, layout) as *mut T;
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
pub fn place_slice<T: Sync + 'static>(family: &'static str, table: Box<[T]>) -> &'static [T] {
    let layout = Layout::for_value(&*table);
    let len = table.len();
    if layout.size() == 0 {
        return Box::leak(table);
    }
    let destination = reserve(family, layout) as *mut T;
    let source = Box::into_raw(table) as *mut T;
    // SAFETY: as in `place`, for `len` elements.
    unsafe {
        destination.copy_from_nonoverlapping(source, len);
        std::alloc::dealloc(source as *mut u8, layout);
        std::slice::from_raw_parts(destination, len)
    }
}

/// The whole 2 MiB pages that hold `memory`, where `memory` lies in the arena: every such page
/// lies in the chunk, so collapsing them touches nothing but the tables of `memory`'s family.
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

/// Backs `memory` with huge pages now: for a table in the arena, every 2 MiB page that holds a
/// byte of it (they hold only its family's tables); elsewhere the whole 2 MiB pages inside it
/// (`pages::collapse_to_huge_pages`). `Err` says why not.
pub fn collapse_to_huge_pages(memory: &[u8]) -> Result<(), String> {
    match huge_pages_around(memory) {
        // SAFETY: the range lies in an arena chunk, which is never freed.
        Some((start, end)) => unsafe { crate::pages::collapse_range(start, end) },
        None => crate::pages::collapse_to_huge_pages(memory),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_keep_their_values_alignment_and_order() {
        let small = place("test", Box::new([7u64; 1000]));
        let slice = place_slice("test", vec![3u16; 5000].into_boxed_slice());
        let big = place_slice("test", vec![9u8; 40 << 20].into_boxed_slice());
        assert!(small.iter().all(|&v| v == 7));
        assert!(slice.iter().all(|&v| v == 3));
        assert_eq!(big.len(), 40 << 20);
        assert!(big.iter().step_by(4096).all(|&v| v == 9));
        for start in [small.as_ptr() as usize, slice.as_ptr() as usize] {
            assert_eq!(start % LINE, 0);
        }
        // Consecutive tables of a family are packed, not each at a 2 MiB boundary (a family
        // no other test uses, in a fresh chunk).
        let tables: Vec<&[u8]> = (0..10)
            .map(|i| place_slice("packing", vec![i as u8; 1000].into_boxed_slice()))
            .collect();
        assert!(tables
            .iter()
            .all(|t| (t.as_ptr() as usize).is_multiple_of(LINE)));
        assert!(tables.windows(2).all(|pair| {
            pair[1].as_ptr() as usize == (pair[0].as_ptr() as usize + 1000).next_multiple_of(LINE)
        }));
        assert!(tables
            .iter()
            .enumerate()
            .all(|(i, t)| t.iter().all(|&v| v == i as u8)));
    }

    /// A small table in the arena goes onto huge pages with the pages around it.
    #[test]
    fn a_small_arena_table_collapses_whole() {
        let table = place_slice("test", vec![5u8; 300_000].into_boxed_slice());
        if collapse_to_huge_pages(table).is_ok() {
            let start = table.as_ptr() as usize;
            if let Some(bytes) = crate::pages::scan::huge_bytes_in(start, table.len()) {
                assert_eq!(bytes, table.len());
            }
        }
        assert!(table.iter().all(|&v| v == 5));
    }

    /// Two families never share a 2 MiB page: collapsing one's tables moves no other's.
    #[test]
    fn families_keep_to_their_own_chunks() {
        let a = place_slice("family a", vec![1u8; 5000].into_boxed_slice());
        let b = place_slice("family b", vec![2u8; 5000].into_boxed_slice());
        let (a_start, a_end) = huge_pages_around(a).expect("in the arena");
        let (b_start, b_end) = huge_pages_around(b).expect("in the arena");
        assert!(a_end <= b_start || b_end <= a_start);
    }

    #[test]
    fn the_pages_around_a_table_lie_in_its_chunk() {
        let table = place_slice("test", vec![1u8; 100_000].into_boxed_slice());
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
