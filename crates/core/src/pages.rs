//! Page-aware allocation: buffers on 4 KiB or 2 MiB pages, the collapse of the backends' tables
//! (in the table arena) onto 2 MiB pages, and what the kernel granted, read by its page scan or
//! from `/proc/self/smaps`.

/// Which pages a buffer asks the kernel for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pages {
    /// `madvise(MADV_NOHUGEPAGE)`: 4 KiB pages even where THP is `always`.
    Small,
    /// `madvise(MADV_HUGEPAGE)`: transparent 2 MiB pages where THP is `always` or `madvise`.
    Huge,
}

const HUGE_PAGE: usize = 2 << 20;

/// A zeroed, 2 MiB-aligned buffer of `u64`, advised for small or huge pages before it is
/// first touched (the kernel decides the page size at the first write).
pub struct PageBuffer {
    ptr: *mut u64,
    len: usize,
    layout: std::alloc::Layout,
    /// `Err` with the reason when `madvise` failed (the buffer still works).
    pub advice: Result<(), String>,
}

// SAFETY: the buffer owns its allocation exclusively; sharing `&PageBuffer` only reads.
unsafe impl Send for PageBuffer {}
unsafe impl Sync for PageBuffer {}

/// Asks the kernel for small or huge pages for `size` bytes at the page-aligned `raw`.
pub(crate) fn advise_pages(raw: *mut u8, size: usize, pages: Pages) -> Result<(), String> {
    #[cfg(target_os = "linux")]
    {
        let advice = match pages {
            Pages::Small => libc::MADV_NOHUGEPAGE,
            Pages::Huge => libc::MADV_HUGEPAGE,
        };
        // SAFETY: `raw` is page-aligned and `size` bytes long, owned by the caller.
        if unsafe { libc::madvise(raw.cast(), size, advice) } == 0 {
            Ok(())
        } else {
            Err(format!("madvise: {}", std::io::Error::last_os_error()))
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (raw, size, pages);
        Err("madvise: transparent huge pages are a Linux feature".to_string())
    }
}

impl PageBuffer {
    /// A buffer of `bytes` (rounded up to a whole number of 2 MiB pages in the allocation,
    /// `bytes / 8` elements visible), filled by `fill(index)`.
    pub fn new(bytes: usize, pages: Pages, fill: impl Fn(usize) -> u64) -> PageBuffer {
        let len = (bytes / 8).max(1);
        let size = (len * 8).div_ceil(HUGE_PAGE) * HUGE_PAGE;
        let layout =
            std::alloc::Layout::from_size_align(size, HUGE_PAGE).expect("a valid buffer layout");
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { std::alloc::alloc(layout) };
        if raw.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        let advice = advise_pages(raw, size, pages);
        let ptr = raw as *mut u64;
        for i in 0..len {
            // SAFETY: i < len <= size / 8.
            unsafe { ptr.add(i).write(fill(i)) };
        }
        PageBuffer {
            ptr,
            len,
            layout,
            advice,
        }
    }

    pub fn as_slice(&self) -> &[u64] {
        // SAFETY: `len` elements were initialised in `new`.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [u64] {
        // SAFETY: as above, and `&mut self` is exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }

    /// Bytes of this buffer backed by transparent huge pages, from `/proc/self/smaps`
    /// (`None` where the file cannot be read).
    pub fn huge_page_bytes(&self) -> Option<usize> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        anon_huge_bytes_in(&smaps, self.ptr as usize, self.layout.size())
    }
}

impl Drop for PageBuffer {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { std::alloc::dealloc(self.ptr as *mut u8, self.layout) };
    }
}

/// Bytes of `memory` backed by transparent huge pages: exactly, from the kernel's page-table
/// scan (`PAGEMAP_SCAN`, Linux 6.7+); else from `/proc/self/smaps`, summed over the mappings
/// `memory` overlaps (a whole mapping's count: the table arena's chunks hold many tables), at
/// most `memory`'s length; `None` where neither can be read.
pub fn huge_page_bytes_of(memory: &[u8]) -> Option<usize> {
    let (start, len) = (memory.as_ptr() as usize, memory.len());
    if let Some(bytes) = scan::huge_bytes_in(start, len) {
        return Some(bytes);
    }
    let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
    anon_huge_bytes_in(&smaps, start, len).map(|bytes| bytes.min(len))
}

/// The kernel's page-table scan of `/proc/self/pagemap` (`PAGEMAP_SCAN`): which pages of a
/// range are PMD-mapped huge pages, with no privilege needed.
pub(crate) mod scan {
    /// `struct pm_scan_arg` of `linux/fs.h`.
    #[repr(C)]
    struct ScanArguments {
        size: u64,
        flags: u64,
        start: u64,
        end: u64,
        walk_end: u64,
        vec: u64,
        vec_len: u64,
        max_pages: u64,
        category_inverted: u64,
        category_mask: u64,
        category_anyof_mask: u64,
        return_mask: u64,
    }

    /// `struct page_region`.
    #[repr(C)]
    #[derive(Clone, Copy, Default)]
    struct Region {
        start: u64,
        end: u64,
        categories: u64,
    }

    /// `PAGE_IS_HUGE`.
    const HUGE: u64 = 1 << 6;
    /// `_IOWR('f', 16, struct pm_scan_arg)`.
    const PAGEMAP_SCAN: u64 = (3 << 30)
        | ((std::mem::size_of::<ScanArguments>() as u64) << 16)
        | ((b'f' as u64) << 8)
        | 16;

    /// Bytes of `[start, start + len)` on huge pages; `None` where the kernel has no scan.
    pub(crate) fn huge_bytes_in(start: usize, len: usize) -> Option<usize> {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            const PAGE: usize = 4096;
            let file = std::fs::File::open("/proc/self/pagemap").ok()?;
            let (first, end) = (start / PAGE * PAGE, (start + len).next_multiple_of(PAGE));
            let mut regions = [Region::default(); 64];
            let mut total = 0usize;
            let mut from = first;
            while from < end {
                let mut arguments = ScanArguments {
                    size: std::mem::size_of::<ScanArguments>() as u64,
                    flags: 0,
                    start: from as u64,
                    end: end as u64,
                    walk_end: 0,
                    vec: regions.as_mut_ptr() as u64,
                    vec_len: regions.len() as u64,
                    max_pages: 0,
                    category_inverted: 0,
                    category_mask: HUGE,
                    category_anyof_mask: 0,
                    return_mask: HUGE,
                };
                // SAFETY: `arguments` and `regions` outlive the call; the kernel writes at most
                // `vec_len` regions and the arguments' `walk_end`.
                let found = unsafe {
                    libc::ioctl(
                        file.as_raw_fd(),
                        PAGEMAP_SCAN as _,
                        &mut arguments as *mut ScanArguments,
                    )
                };
                if found < 0 {
                    return None;
                }
                for region in &regions[..found as usize] {
                    let (a, b) = (region.start as usize, region.end as usize);
                    total += b.min(start + len).saturating_sub(a.max(start));
                }
                let walked = arguments.walk_end as usize;
                if walked <= from {
                    return None;
                }
                from = walked;
            }
            Some(total)
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (start, len);
            None
        }
    }
}

/// Asks the kernel to keep the 4 KiB pages inside `memory` small (`MADV_NOHUGEPAGE`): huge
/// pages already there stay until the kernel splits them; `Err` says why not.
pub fn advise_small_pages(memory: &[u8]) -> Result<(), String> {
    const SMALL_PAGE: usize = 4096;
    let start = (memory.as_ptr() as usize).next_multiple_of(SMALL_PAGE);
    let end = (memory.as_ptr() as usize + memory.len()) / SMALL_PAGE * SMALL_PAGE;
    if end <= start {
        return Err("no whole 4 KiB page inside the table".to_string());
    }
    advise_pages(start as *mut u8, end - start, Pages::Small)
}

/// Asks the kernel to back the whole 2 MiB pages inside `memory` with huge pages now
/// (`MADV_HUGEPAGE`, then `MADV_COLLAPSE`, Linux 6.1+); the memory's contents are unchanged.
/// `Err` says why not (too small, an old kernel, memory that is not anonymous). For a table in
/// the table arena, `table_arena::collapse_to_huge_pages` collapses every page around it.
pub fn collapse_to_huge_pages(memory: &[u8]) -> Result<(), String> {
    let start = (memory.as_ptr() as usize).next_multiple_of(HUGE_PAGE);
    let end = (memory.as_ptr() as usize + memory.len()) / HUGE_PAGE * HUGE_PAGE;
    if end <= start {
        return Err("no whole 2 MiB page inside the table".to_string());
    }
    // SAFETY: [start, end) lies inside `memory`, borrowed, so allocated.
    unsafe { collapse_range(start, end) }
}

/// `MADV_HUGEPAGE`, then `MADV_COLLAPSE`, on the 2 MiB-aligned `[start, end)`.
///
/// # Safety
/// `[start, end)` must be allocated memory that stays allocated during the call.
pub(crate) unsafe fn collapse_range(start: usize, end: usize) -> Result<(), String> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        for advice in [libc::MADV_HUGEPAGE, libc::MADV_COLLAPSE] {
            // SAFETY: the caller's; neither advice changes the memory's contents.
            if unsafe { libc::madvise(start as *mut libc::c_void, end - start, advice) } != 0 {
                let name = if advice == libc::MADV_HUGEPAGE {
                    "MADV_HUGEPAGE"
                } else {
                    "MADV_COLLAPSE"
                };
                return Err(format!("{name}: {}", std::io::Error::last_os_error()));
            }
        }
        Ok(())
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        let _ = (start, end);
        Err("MADV_COLLAPSE is a Linux feature".to_string())
    }
}

/// Sums `AnonHugePages` over the mappings of `smaps` text that overlap `[start, start+len)`.
pub fn anon_huge_bytes_in(smaps: &str, start: usize, len: usize) -> Option<usize> {
    let end = start + len;
    let mut inside = false;
    let mut total = 0usize;
    let mut seen = false;
    for line in smaps.lines() {
        let first = line.split_whitespace().next().unwrap_or("");
        if let Some((a, b)) = first.split_once('-') {
            if let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16)) {
                inside = a < end && b > start;
                seen |= inside;
                continue;
            }
        }
        if inside {
            if let Some(rest) = line.strip_prefix("AnonHugePages:") {
                let kb: usize = rest.trim().trim_end_matches("kB").trim().parse().ok()?;
                total += kb * 1024;
            }
        }
    }
    seen.then_some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_buffer_is_filled_and_aligned() {
        for pages in [Pages::Small, Pages::Huge] {
            let buffer = PageBuffer::new(3 << 20, pages, |i| i as u64 * 3);
            let slice = buffer.as_slice();
            assert_eq!(slice.len(), (3 << 20) / 8);
            assert_eq!(slice[1000], 3000);
            assert_eq!(slice.as_ptr() as usize % HUGE_PAGE, 0);
            assert!(buffer.huge_page_bytes().is_some());
            if pages == Pages::Small && buffer.advice.is_ok() {
                assert_eq!(buffer.huge_page_bytes(), Some(0));
            }
        }
    }

    /// The page-table scan and the collapse agree: a buffer kept on small pages has no huge
    /// bytes; one the kernel collapsed has all of its whole 2 MiB pages on huge pages, and a
    /// part of it counts only its own bytes. Where the kernel lacks the scan or the collapse
    /// (older than 6.7 or 6.1), that step is skipped.
    #[test]
    fn the_page_scan_counts_huge_bytes_exactly() {
        let small = PageBuffer::new(4 << 20, Pages::Small, |i| i as u64);
        let small_bytes =
            unsafe { std::slice::from_raw_parts(small.as_slice().as_ptr() as *const u8, 4 << 20) };
        if small.advice.is_ok() {
            if let Some(bytes) = scan::huge_bytes_in(small_bytes.as_ptr() as usize, 4 << 20) {
                assert_eq!(bytes, 0);
            }
        }
        let huge = PageBuffer::new(4 << 20, Pages::Small, |i| i as u64);
        let huge_bytes =
            unsafe { std::slice::from_raw_parts(huge.as_slice().as_ptr() as *const u8, 4 << 20) };
        if collapse_to_huge_pages(huge_bytes).is_ok() {
            let start = huge_bytes.as_ptr() as usize;
            if let Some(bytes) = scan::huge_bytes_in(start, 4 << 20) {
                assert_eq!(bytes, 4 << 20);
                assert_eq!(scan::huge_bytes_in(start + 4096, 10_000), Some(10_000));
                assert_eq!(huge_page_bytes_of(&huge_bytes[100..300]), Some(200));
            }
        }
    }

    #[test]
    fn smaps_parsing_sums_overlapping_mappings() {
        let smaps = "\
7f0000000000-7f0000400000 rw-p 00000000 00:00 0
Size:               4096 kB
AnonHugePages:      2048 kB
7f0000400000-7f0000600000 rw-p 00000000 00:00 0
AnonHugePages:      2048 kB
7f1000000000-7f1000200000 rw-p 00000000 00:00 0
AnonHugePages:      2048 kB
";
        assert_eq!(
            anon_huge_bytes_in(smaps, 0x7f00_0000_0000, 0x60_0000),
            Some(4 << 20)
        );
        assert_eq!(anon_huge_bytes_in(smaps, 0x1000, 0x1000), None);
    }
}
