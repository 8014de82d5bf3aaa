//! Timing machinery: warm-up, repeated samples with backends interleaved round-robin, CPU
//! pinning, page-aligned buffers with a huge-page choice, and hardware counters where present.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// How long to warm up and how many samples of what length to take.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SampleConfig {
    /// Warm-up per case before any sample (also used to calibrate the repetitions).
    pub warmup: Duration,
    /// Samples per case.
    pub samples: usize,
    /// The shortest a single sample may be: repetitions are chosen to reach it, so that the
    /// timer's resolution and the loop's start-up are negligible.
    pub min_sample: Duration,
}

/// One thing to time. `body(reps)` runs the workload `reps` times over its pre-generated
/// inputs and returns a value folded from every result (passed to `black_box`, so nothing can
/// be optimised away).
pub struct Case<'a> {
    pub name: String,
    /// Operations (lookups, nodes, loads) one repetition performs.
    pub ops_per_rep: u64,
    pub body: Box<dyn FnMut(u64) -> u64 + 'a>,
}

impl<'a> Case<'a> {
    pub fn new(
        name: impl Into<String>,
        ops_per_rep: u64,
        body: impl FnMut(u64) -> u64 + 'a,
    ) -> Case<'a> {
        Case {
            name: name.into(),
            ops_per_rep: ops_per_rep.max(1),
            body: Box::new(body),
        }
    }
}

/// What the interleaved sampler measured for one case.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseResult {
    pub name: String,
    /// Nanoseconds per operation, one value per sample, in the order taken.
    pub ns_per_op: Vec<f64>,
    /// Hardware counter totals per operation over all samples (empty without counters).
    pub counters_per_op: Vec<(String, f64)>,
}

/// Times `body(reps)` once, in nanoseconds.
pub fn time_ns(body: &mut dyn FnMut(u64) -> u64, reps: u64) -> f64 {
    let start = Instant::now();
    black_box(body(black_box(reps)));
    start.elapsed().as_nanos() as f64
}

/// Warms `case` up for `config.warmup` and returns the repetitions that make one call last at
/// least `config.min_sample`.
pub fn calibrate(case: &mut Case<'_>, config: &SampleConfig) -> u64 {
    let mut reps = 1u64;
    let min = config.min_sample.as_nanos() as f64;
    let deadline = Instant::now() + config.warmup;
    let mut took = time_ns(&mut case.body, reps);
    // Double until one call is long enough, and keep going until the warm-up has passed.
    while took < min || Instant::now() < deadline {
        if took < min {
            reps = reps.saturating_mul(2);
        }
        took = time_ns(&mut case.body, reps);
    }
    reps
}

/// Warms every case up, calibrates its repetitions, then takes `config.samples` rounds; in
/// each round every case is sampled once, round-robin, starting one case later each round so
/// that no case always follows the same neighbour. Counters (if given) are read around every
/// sample. `progress` gets the fraction of rounds done.
pub fn interleaved(
    cases: &mut [Case<'_>],
    config: &SampleConfig,
    mut counters: Option<&mut Counters>,
    progress: &mut dyn FnMut(f64),
) -> Vec<CaseResult> {
    let n = cases.len();
    let reps: Vec<u64> = cases.iter_mut().map(|c| calibrate(c, config)).collect();
    let mut samples = vec![Vec::with_capacity(config.samples); n];
    let mut totals: Vec<Vec<u64>> = vec![Vec::new(); n];
    for round in 0..config.samples {
        for k in 0..n {
            let i = (round + k) % n;
            let case = &mut cases[i];
            if let Some(c) = counters.as_deref_mut() {
                c.start();
            }
            let ns = time_ns(&mut case.body, reps[i]);
            if let Some(c) = counters.as_deref_mut() {
                let values = c.stop();
                let total = &mut totals[i];
                total.resize(values.len(), 0);
                for (t, v) in total.iter_mut().zip(values) {
                    *t += v;
                }
            }
            samples[i].push(ns / (reps[i] * case.ops_per_rep) as f64);
        }
        progress((round + 1) as f64 / config.samples.max(1) as f64);
    }
    let names: Vec<String> = counters
        .as_deref()
        .map(|c| c.names().iter().map(|s| s.to_string()).collect())
        .unwrap_or_default();
    cases
        .iter()
        .zip(samples)
        .zip(totals)
        .zip(reps)
        .map(|(((case, ns_per_op), total), reps)| {
            let ops = (reps * case.ops_per_rep * config.samples as u64).max(1) as f64;
            CaseResult {
                name: case.name.clone(),
                ns_per_op,
                counters_per_op: names
                    .iter()
                    .zip(&total)
                    .map(|(name, &t)| (name.clone(), t as f64 / ops))
                    .collect(),
            }
        })
        .collect()
}

// ---- CPU pinning -------------------------------------------------------------------------

extern "C" {
    fn sched_setaffinity(pid: i32, cpusetsize: usize, mask: *const u64) -> i32;
    fn madvise(addr: *mut u8, length: usize, advice: i32) -> i32;
    fn syscall(number: i64, ...) -> i64;
    fn ioctl(fd: i32, request: u64, ...) -> i32;
    fn read(fd: i32, buf: *mut u8, count: usize) -> isize;
    fn close(fd: i32) -> i32;
}

/// Pins the calling thread to `cpu`. `Err` says why it could not (the caller carries on
/// unpinned and says so).
pub fn pin_to_cpu(cpu: usize) -> Result<(), String> {
    if !cfg!(target_os = "linux") {
        return Err("CPU pinning is only implemented on Linux".to_string());
    }
    const WORDS: usize = 16; // a 1024-CPU cpu_set_t
    if cpu >= WORDS * 64 {
        return Err(format!("CPU {cpu} is beyond the 1024 a cpu_set_t holds"));
    }
    let mut mask = [0u64; WORDS];
    mask[cpu / 64] |= 1 << (cpu % 64);
    // SAFETY: the mask is a valid cpu_set_t of the size passed; pid 0 is the calling thread.
    let rc = unsafe { sched_setaffinity(0, std::mem::size_of_val(&mask), mask.as_ptr()) };
    if rc == 0 {
        Ok(())
    } else {
        Err(format!(
            "could not pin to CPU {cpu}: {}",
            std::io::Error::last_os_error()
        ))
    }
}

/// Lets the calling thread run on CPUs `0..cpus` again (after a temporary pin).
pub fn unpin(cpus: usize) {
    let mut mask = [0u64; 16];
    for cpu in 0..cpus.min(1024) {
        mask[cpu / 64] |= 1 << (cpu % 64);
    }
    // SAFETY: as in `pin_to_cpu`; failure leaves the thread pinned, which is harmless.
    unsafe { sched_setaffinity(0, std::mem::size_of_val(&mask), mask.as_ptr()) };
}

// ---- page-aligned buffers ----------------------------------------------------------------

/// Which pages a buffer asks the kernel for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pages {
    /// `madvise(MADV_NOHUGEPAGE)`: 4 KiB pages even where THP is `always`.
    Small,
    /// `madvise(MADV_HUGEPAGE)`: transparent 2 MiB pages where THP is `always` or `madvise`.
    Huge,
}

const MADV_HUGEPAGE: i32 = 14;
const MADV_NOHUGEPAGE: i32 = 15;
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
        let advice_code = match pages {
            Pages::Small => MADV_NOHUGEPAGE,
            Pages::Huge => MADV_HUGEPAGE,
        };
        // SAFETY: `raw` is 2 MiB-aligned (so page-aligned) and `size` bytes long.
        let advice = if unsafe { madvise(raw, size, advice_code) } == 0 {
            Ok(())
        } else {
            Err(format!("madvise: {}", std::io::Error::last_os_error()))
        };
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

// ---- hardware counters -------------------------------------------------------------------

/// A hardware event `perf_event_open` can count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    Cycles,
    Instructions,
    /// Last-level cache misses (the kernel's generic `cache-misses`).
    CacheMisses,
    L1dReadMisses,
    DtlbReadMisses,
    /// The kernel's software task clock (ns): no PMU needed, so the counter path can be
    /// exercised on machines without hardware counters (tests, `--quick` smoke runs).
    TaskClock,
}

impl Event {
    pub const DEFAULT: [Event; 5] = [
        Event::Cycles,
        Event::Instructions,
        Event::L1dReadMisses,
        Event::CacheMisses,
        Event::DtlbReadMisses,
    ];

    /// Every event `--counters` accepts.
    pub const ALL: [Event; 6] = [
        Event::Cycles,
        Event::Instructions,
        Event::L1dReadMisses,
        Event::CacheMisses,
        Event::DtlbReadMisses,
        Event::TaskClock,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Event::Cycles => "cycles",
            Event::Instructions => "instructions",
            Event::CacheMisses => "llc-misses",
            Event::L1dReadMisses => "l1d-read-misses",
            Event::DtlbReadMisses => "dtlb-read-misses",
            Event::TaskClock => "task-clock-ns",
        }
    }

    /// `(type, config)` of `perf_event_attr`.
    fn encoding(self) -> (u32, u64) {
        const HARDWARE: u32 = 0;
        const SOFTWARE: u32 = 1;
        const HW_CACHE: u32 = 3;
        // cache id | (op read = 0) << 8 | (result miss = 1) << 16
        let cache_read_miss = |id: u64| id | (1 << 16);
        match self {
            Event::Cycles => (HARDWARE, 0),
            Event::Instructions => (HARDWARE, 1),
            Event::CacheMisses => (HARDWARE, 3),
            Event::L1dReadMisses => (HW_CACHE, cache_read_miss(0)),
            Event::DtlbReadMisses => (HW_CACHE, cache_read_miss(3)),
            Event::TaskClock => (SOFTWARE, 1),
        }
    }
}

const SYS_PERF_EVENT_OPEN: i64 = 298; // x86_64
const PERF_EVENT_IOC_ENABLE: u64 = 0x2400;
const PERF_EVENT_IOC_DISABLE: u64 = 0x2401;
const PERF_EVENT_IOC_RESET: u64 = 0x2403;

/// Open hardware counters for the calling thread (user space only).
pub struct Counters {
    events: Vec<Event>,
    names: Vec<&'static str>,
    fds: Vec<i32>,
}

impl Counters {
    /// Opens every event, or says why the machine has none: "counters unavailable: <reason>".
    pub fn open(events: &[Event]) -> Result<Counters, String> {
        if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
            return Err(
                "counters unavailable: perf_event_open is wired for Linux x86-64 only".to_string(),
            );
        }
        let mut counters = Counters {
            events: Vec::new(),
            names: Vec::new(),
            fds: Vec::new(),
        };
        for &event in events {
            match open_event(event) {
                Ok(fd) => {
                    counters.events.push(event);
                    counters.names.push(event.name());
                    counters.fds.push(fd);
                }
                Err(reason) => {
                    return Err(format!(
                        "counters unavailable: perf_event_open({}) failed: {reason}",
                        event.name()
                    ))
                }
            }
        }
        Ok(counters)
    }

    pub fn events(&self) -> &[Event] {
        &self.events
    }

    pub fn names(&self) -> &[&'static str] {
        &self.names
    }

    /// Resets and enables every counter.
    pub fn start(&mut self) {
        for &fd in &self.fds {
            // SAFETY: fd is an open perf event; these ioctls take no pointer argument.
            unsafe {
                ioctl(fd, PERF_EVENT_IOC_RESET, 0);
                ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
            }
        }
    }

    /// Disables every counter and returns the counts since `start`.
    pub fn stop(&mut self) -> Vec<u64> {
        self.fds
            .iter()
            .map(|&fd| {
                let mut value = 0u64;
                // SAFETY: fd is an open perf event; `value` is 8 writable bytes.
                unsafe {
                    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
                    if read(fd, &mut value as *mut u64 as *mut u8, 8) != 8 {
                        value = 0;
                    }
                }
                value
            })
            .collect()
    }
}

impl Drop for Counters {
    fn drop(&mut self) {
        for &fd in &self.fds {
            // SAFETY: we own the descriptor.
            unsafe { close(fd) };
        }
    }
}

fn open_event(event: Event) -> Result<i32, String> {
    let (kind, config) = event.encoding();
    // perf_event_attr, 128 bytes (PERF_ATTR_SIZE_VER8), zeroed except: type (bytes 0..4),
    // size (4..8), config (8..16) and the flag word (40..48).
    let mut attr = [0u64; 16];
    attr[0] = kind as u64 | (128u64 << 32);
    attr[1] = config;
    const DISABLED: u64 = 1 << 0;
    const EXCLUDE_KERNEL: u64 = 1 << 5;
    const EXCLUDE_HV: u64 = 1 << 6;
    attr[5] = DISABLED | EXCLUDE_KERNEL | EXCLUDE_HV;
    // SAFETY: perf_event_open(attr, pid = 0 (this thread), cpu = -1 (any), group = -1,
    // flags = 0); `attr` is a valid, fully initialised 128-byte attribute block.
    let fd = unsafe { syscall(SYS_PERF_EVENT_OPEN, attr.as_ptr(), 0i32, -1i32, -1i32, 0u64) };
    if fd < 0 {
        let error = std::io::Error::last_os_error();
        let hint = match error.raw_os_error() {
            Some(2) | Some(95) => " (no PMU exposed: typical of a virtual machine)",
            Some(1) | Some(13) => " (not permitted: see /proc/sys/kernel/perf_event_paranoid)",
            _ => "",
        };
        Err(format!("{error}{hint}"))
    } else {
        Ok(fd as i32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interleaved_samples_every_case_and_scales_by_ops() {
        let mut order = Vec::new();
        let log = std::cell::RefCell::new(&mut order);
        let mut cases = vec![
            Case::new("a", 10, |reps| {
                log.borrow_mut().push('a');
                (0..reps * 10).fold(0u64, |acc, x| acc ^ black_box(x))
            }),
            Case::new("b", 10, |reps| {
                log.borrow_mut().push('b');
                (0..reps * 10).fold(1u64, |acc, x| acc.wrapping_add(black_box(x)))
            }),
        ];
        let config = SampleConfig {
            warmup: Duration::from_millis(1),
            samples: 4,
            min_sample: Duration::from_micros(20),
        };
        let mut fractions = Vec::new();
        let results = interleaved(&mut cases, &config, None, &mut |f| fractions.push(f));
        drop(cases);
        assert_eq!(results.len(), 2);
        for r in &results {
            assert_eq!(r.ns_per_op.len(), 4);
            assert!(r.ns_per_op.iter().all(|&x| x > 0.0 && x.is_finite()));
            assert!(r.counters_per_op.is_empty());
        }
        assert_eq!(fractions, vec![0.25, 0.5, 0.75, 1.0]);
        // The sampled calls (after warm-up) alternate, starting one later each round.
        let tail: String = order[order.len() - 8..].iter().collect();
        assert_eq!(tail, "abbaabba");
    }

    #[test]
    fn counters_either_count_or_say_why_not() {
        match Counters::open(&Event::DEFAULT) {
            Ok(mut counters) => {
                counters.start();
                black_box((0..100_000u64).fold(0, |a, x| a ^ black_box(x)));
                let values = counters.stop();
                assert_eq!(values.len(), Event::DEFAULT.len());
                assert!(values[1] > 100_000, "instructions {}", values[1]);
            }
            Err(reason) => assert!(reason.starts_with("counters unavailable: "), "{reason}"),
        }
        // A machine without a CPU PMU (this VM) must take the fallback path.
        if !std::path::Path::new("/sys/bus/event_source/devices/cpu").exists() {
            let reason = Counters::open(&[Event::Cycles])
                .err()
                .expect("no PMU, no counters");
            assert!(reason.contains("cycles"), "{reason}");
        }
    }

    #[test]
    fn pinning_to_a_missing_cpu_is_an_error_not_a_panic() {
        assert!(pin_to_cpu(5000).is_err());
        // CPU 1023 exists in the mask but not on this machine: the kernel refuses.
        assert!(pin_to_cpu(1023).is_err());
    }

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
