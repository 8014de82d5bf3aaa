//! The short pointer chase that measures a latency curve where E6 did not, the shuffled rings
//! and the chase E6 shares, and how far a sweep may go.

use super::CacheLevels;
use crate::machine::Machine;
use crate::measure::thread_cpu_ns;
use crate::stats::median;
use kiki_core::pages::{PageBuffer, Pages};
use kiki_core::units::rounded_bytes;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::hint::black_box;
use std::time::Instant;

impl CacheLevels {
    /// The levels of a short pointer chase on this machine (huge pages, sizes from 4 KiB to
    /// [`sweep_max`], two per doubling, the median of a few short samples each, timed on the
    /// thread's CPU clock where there is one so that time spent descheduled is left out),
    /// found by [`CacheLevels::from_curve`]. About 1.2 s on a busy 2-core Zen 4 VM (a sweep to
    /// 128 MiB), 0.7 s `quick`. It times in the report's own process, before any child invocation.
    pub fn probe(machine: &Machine, quick: bool) -> CacheLevels {
        let (max, _) = sweep_max(machine);
        // Samples long enough (2^15 loads, 50 µs and more) for the clock's own cost to vanish.
        let (samples, sample_loads) = if quick { (5, 1 << 15) } else { (11, 1 << 15) };
        let warm_loads: u64 = if quick { 1 << 17 } else { 1 << 19 };
        let curve: Vec<(usize, f64)> = sizes(max, 2)
            .into_iter()
            .map(|bytes| {
                let buffer = ring(bytes, Pages::Huge, PROBE_SEED ^ bytes as u64);
                let lines = (bytes / LINE).max(2) as u64;
                // Once round the ring (or as far as the warm-up goes) so that a ring that fits
                // a cache is in it.
                let warm = lines.clamp(4096, warm_loads);
                let ns = timed_chase(buffer.as_slice(), warm, sample_loads, samples);
                (bytes, ns)
            })
            .collect();
        CacheLevels::from_curve(&curve, machine, "a short pointer chase")
    }
}

/// The median ns per load of `samples` chases of `loads` loads round the ring `words`, each
/// carrying on where the last stopped, after `warm` untimed loads from its first line; timed
/// on the thread's CPU clock where there is one, so that time spent descheduled is left out.
pub fn timed_chase(words: &[u64], warm: u64, loads: u64, samples: usize) -> f64 {
    let clock = || thread_cpu_ns().unwrap_or_else(|| EPOCH.elapsed().as_nanos() as u64);
    let mut at = black_box(chase(words, warm, 0));
    let ns: Vec<f64> = (0..samples)
        .map(|_| {
            let start = clock();
            at = black_box(chase(words, loads, black_box(at)));
            clock().saturating_sub(start) as f64 / loads as f64
        })
        .collect();
    median(&ns).unwrap_or(f64::NAN)
}

/// The seed of the probe's rings (each ring's is this ^ its size).
const PROBE_SEED: u64 = 0x6c65_7665_6c73; // "levels"

/// The wall clock's zero where the thread has no CPU clock.
static EPOCH: std::sync::LazyLock<Instant> = std::sync::LazyLock::new(Instant::now);

// ---- how far a sweep goes ---------------------------------------------------------------------

/// The largest size a latency or cache-pressure sweep should reach, and a sentence saying why
/// (for the methods): four times the largest data cache the machine lists (sysfs or CPUID),
/// rounded up to a power of two (256 MiB when it lists none), capped by a quarter of
/// `MemAvailable` rounded down to a power of two (256 MiB when that is unknown), and at least
/// 1 MiB.
pub fn sweep_max(machine: &Machine) -> (usize, String) {
    sweep_max_with(machine, mem_available())
}

/// [`sweep_max`] with `available` bytes of free memory (`None`: unknown).
pub fn sweep_max_with(machine: &Machine, available: Option<usize>) -> (usize, String) {
    let largest = machine
        .caches
        .iter()
        .filter(|c| c.kind != "Instruction")
        .max_by_key(|c| c.bytes);
    let (target, why) = match largest {
        Some(cache) => (
            cache.bytes.saturating_mul(4).next_power_of_two(),
            format!(
                "four times the largest cache {} lists (L{}, {}) rounded up to a power of two",
                machine.cache_source,
                cache.level,
                rounded_bytes(cache.bytes as f64)
            ),
        ),
        None => (256 << 20, "256 MiB, as no cache size is known".to_string()),
    };
    let (cap, cap_text) = match available {
        Some(bytes) => {
            let quarter = bytes / 4;
            let cap = if quarter == 0 {
                0
            } else {
                1usize << quarter.ilog2()
            };
            (
                cap,
                format!(
                    "a quarter of MemAvailable ({} of {}) rounded down to a power of two",
                    rounded_bytes(quarter as f64),
                    rounded_bytes(bytes as f64)
                ),
            )
        }
        None => (256 << 20, "256 MiB, as MemAvailable is unknown".to_string()),
    };
    let max = target.min(cap).max(1 << 20);
    let sentence = if target <= cap {
        format!(
            "Sizes reach {}: {why}; the cap, {cap_text}, is not reached.",
            rounded_bytes(max as f64)
        )
    } else {
        format!(
            "Sizes reach {}, capped by {cap_text}, short of {} ({why}).",
            rounded_bytes(max as f64),
            rounded_bytes(target as f64)
        )
    };
    (max, sentence)
}

/// `MemAvailable` from `/proc/meminfo`, in bytes.
pub fn mem_available() -> Option<usize> {
    parse_mem_available(&std::fs::read_to_string("/proc/meminfo").ok()?)
}

/// `MemAvailable` from the text of `/proc/meminfo`, in bytes (parsed by procfs); `None` where
/// the kernel does not say (before 3.14) or the text is not meminfo.
pub fn parse_mem_available(meminfo: &str) -> Option<usize> {
    use procfs_core::FromBufRead;
    let info = procfs_core::Meminfo::from_buf_read(meminfo.as_bytes()).ok()?;
    usize::try_from(info.mem_available?).ok()
}

// ---- the shuffled ring ------------------------------------------------------------------------

/// A cache line: each ring element fills one, its first word the next element's index.
pub const LINE: usize = 64;
pub(super) const WORDS_PER_LINE: usize = LINE / 8;

/// A ring over `bytes / 64` cache lines: word 0 of each line holds the index of the next
/// line, in one cycle through every line (Sattolo's shuffle), so hardware prefetchers cannot
/// guess the next address.
pub fn ring(bytes: usize, pages: Pages, seed: u64) -> PageBuffer {
    let lines = (bytes / LINE).max(2);
    let order = one_cycle(lines, seed);
    let mut buffer = PageBuffer::new(lines * LINE, pages, |_| 0);
    let words = buffer.as_mut_slice();
    for (line, &next) in order.iter().enumerate() {
        // Sattolo's permutation is one cycle: following `order` visits every line once.
        words[line * WORDS_PER_LINE] = next as u64;
    }
    buffer
}

/// The successor of each of `lines` lines in one cycle through them all (Sattolo's shuffle,
/// seeded): [`ring`]'s order, and the order E7's synthetic tables are read in.
pub fn one_cycle(lines: usize, seed: u64) -> Vec<u32> {
    let mut order: Vec<u32> = (0..lines as u32).collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for i in (1..lines).rev() {
        let j = rng.random_range(0..i);
        order.swap(i, j);
    }
    order
}

/// Follows the ring `loads` times from line `from`; returns the line where it stopped (where
/// the next chase carries on).
pub fn chase(words: &[u64], loads: u64, from: u64) -> u64 {
    let mut at = from as usize;
    for _ in 0..loads {
        at = words[at * WORDS_PER_LINE] as usize;
    }
    at as u64
}

/// Buffer sizes: from 4 KiB up to `max`, `per_octave` points per doubling, each a whole number
/// of lines.
pub fn sizes(max: usize, per_octave: u32) -> Vec<usize> {
    let mut out = Vec::new();
    let mut exponent = 12.0f64;
    while 2f64.powf(exponent) <= max as f64 + 0.5 {
        let bytes = (2f64.powf(exponent) as usize) / LINE * LINE;
        if out.last() != Some(&bytes) {
            out.push(bytes);
        }
        exponent += 1.0 / per_octave as f64;
    }
    out
}
