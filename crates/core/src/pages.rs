//! Page-aware allocation: buffers on 4 KiB or 2 MiB pages, and what the kernel granted, read
//! from `/proc/self/smaps` (used by the harness today; the engine and backends can place tables).

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
fn advise_pages(raw: *mut u8, size: usize, pages: Pages) -> Result<(), String> {
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

/// Bytes of `memory` backed by transparent huge pages, from `/proc/self/smaps` (summed over the
/// mappings it overlaps; `None` where the file cannot be read).
pub fn huge_page_bytes_of(memory: &[u8]) -> Option<usize> {
    let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
    anon_huge_bytes_in(&smaps, memory.as_ptr() as usize, memory.len())
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
/// `Err` says why not (too small, an old kernel, memory that is not anonymous).
pub fn collapse_to_huge_pages(memory: &[u8]) -> Result<(), String> {
    let start = (memory.as_ptr() as usize).next_multiple_of(HUGE_PAGE);
    let end = (memory.as_ptr() as usize + memory.len()) / HUGE_PAGE * HUGE_PAGE;
    if end <= start {
        return Err("no whole 2 MiB page inside the table".to_string());
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        for advice in [libc::MADV_HUGEPAGE, libc::MADV_COLLAPSE] {
            // SAFETY: [start, end) lies inside `memory`, which stays allocated; neither advice
            // changes its contents.
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
