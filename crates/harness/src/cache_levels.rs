//! The machine's cache levels as measured (effective size and latency of each data cache), which
//! E6 finds from its latency curve and E7 and E8 size their sweeps and geometries from.
//!
//! sysfs and CPUID say what the hardware has; on a virtual machine (or under cache partitioning)
//! a thread may get much less of the last level. The levels here come from the knees of a
//! dependent-load latency curve instead: E6's own, or a short pointer chase
//! ([`CacheLevels::probe`]) over the same shuffled rings ([`ring`], [`chase`]).

use crate::machine::Machine;
use crate::measure::thread_cpu_ns;
use crate::stats::median;
use kiki_core::pages::{PageBuffer, Pages};
use kiki_core::units::rounded_bytes;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};
use std::hint::black_box;
use std::time::Instant;

/// One data-cache level as measured: the largest footprint it still serves, its load latency,
/// and what sysfs/CPUID says its size is (if it says); where the level was found on several
/// invocations' curves one by one ([`CacheLevels::from_invocations`]), what each one gave.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EffectiveLevel {
    /// `L1`, `L2`, `L3`, …
    pub level: String,
    /// The effective size: the largest footprint on the level's plateau of the latency curve.
    pub bytes: usize,
    /// The latency of a dependent load on the plateau (ns).
    pub ns: f64,
    /// The size sysfs or CPUID reports for this level, if any.
    pub sysfs_bytes: Option<usize>,
    /// The effective size each invocation's own curve gives this level, in invocation order
    /// (`None` for an invocation whose curve shows fewer levels); empty for levels found on a
    /// single curve (and in reports made before E6 found them per invocation).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bytes_per_invocation: Vec<Option<usize>>,
    /// The least and the greatest plateau latency over the invocations that show the level
    /// (ns); absent for levels found on a single curve.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ns_low: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ns_high: Option<f64>,
}

impl EffectiveLevel {
    /// Whether every invocation's curve gave this level the same effective size (true for a
    /// level found on a single curve).
    pub fn invocations_agree(&self) -> bool {
        self.bytes_per_invocation
            .windows(2)
            .all(|pair| pair[0] == pair[1])
    }

    /// The spread of the per-invocation sizes, most frequent first (ties: smaller first), as
    /// `(size, invocations)`, with `None` for invocations that showed no such level.
    pub fn size_counts(&self) -> Vec<(Option<usize>, usize)> {
        let mut counts: Vec<(Option<usize>, usize)> = Vec::new();
        for &bytes in &self.bytes_per_invocation {
            match counts.iter_mut().find(|(b, _)| *b == bytes) {
                Some((_, n)) => *n += 1,
                None => counts.push((bytes, 1)),
            }
        }
        counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        counts
    }
}

/// Every data-cache level as measured, and memory beyond them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CacheLevels {
    /// Smallest first.
    pub levels: Vec<EffectiveLevel>,
    /// The latency of a dependent load beyond the last level (ns).
    pub memory_ns: f64,
    /// The measured curve the levels come from: `(bytes, ns per load)`, smallest first
    /// (huge pages where the kernel granted them).
    pub curve: Vec<(usize, f64)>,
    /// Per size of `curve`, the least and the greatest of the invocations' medians (empty for
    /// a curve from one process): how far the curve itself moves between processes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub curve_spread: Vec<(usize, f64, f64)>,
    /// Where the levels come from, for the methods: "E6's latency curve" or "a short pointer
    /// chase".
    pub source: String,
}

impl CacheLevels {
    /// The effective size of the last level (the largest measured level).
    pub fn last_level_bytes(&self) -> usize {
        self.levels.last().map_or(8 << 20, |l| l.bytes)
    }

    /// The measured level called `name` (`L1`, `L2`, …).
    pub fn level(&self, name: &str) -> Option<&EffectiveLevel> {
        self.levels.iter().find(|l| l.level == name)
    }

    /// The curve's latency at `bytes`, interpolated linearly in log size between measured
    /// points (and held flat beyond the ends); `memory_ns` when there is no curve.
    pub fn latency_at(&self, bytes: usize) -> f64 {
        interpolate(&self.curve, bytes).unwrap_or(self.memory_ns)
    }

    /// The least and the greatest latency the invocations' curves give at `bytes` (each
    /// interpolated as [`CacheLevels::latency_at`]); both the pooled curve's where there is no
    /// spread (a curve from one process).
    pub fn latency_range_at(&self, bytes: usize) -> (f64, f64) {
        let pooled = self.latency_at(bytes);
        let low: Vec<(usize, f64)> = self.curve_spread.iter().map(|p| (p.0, p.1)).collect();
        let high: Vec<(usize, f64)> = self.curve_spread.iter().map(|p| (p.0, p.2)).collect();
        match (interpolate(&low, bytes), interpolate(&high, bytes)) {
            (Some(l), Some(h)) => (l.min(pooled), h.max(pooled)),
            _ => (pooled, pooled),
        }
    }
}

/// Per size of `pooled`, the least and the greatest of `curves`' values there (sizes no curve
/// has are left out); empty with fewer than two curves.
pub fn curve_spread(
    curves: &[Vec<(usize, f64)>],
    pooled: &[(usize, f64)],
) -> Vec<(usize, f64, f64)> {
    if curves.len() < 2 {
        return Vec::new();
    }
    pooled
        .iter()
        .filter_map(|&(bytes, _)| {
            let at: Vec<f64> = curves
                .iter()
                .filter_map(|c| c.iter().find(|p| p.0 == bytes).map(|p| p.1))
                .filter(|ns| ns.is_finite())
                .collect();
            Some((
                bytes,
                at.iter().copied().reduce(f64::min)?,
                at.iter().copied().reduce(f64::max)?,
            ))
        })
        .collect()
}

/// `curve`'s value at `bytes`, linear in log size between points and flat beyond the ends;
/// `None` for an empty curve.
fn interpolate(curve: &[(usize, f64)], bytes: usize) -> Option<f64> {
    {
        let (Some(first), Some(last)) = (curve.first(), curve.last()) else {
            return None;
        };
        if bytes <= first.0 {
            return Some(first.1);
        }
        if bytes >= last.0 {
            return Some(last.1);
        }
        let x = (bytes as f64).ln();
        for pair in curve.windows(2) {
            let ((b0, ns0), (b1, ns1)) = (pair[0], pair[1]);
            if bytes <= b1 {
                let (x0, x1) = ((b0 as f64).ln(), (b1 as f64).ln());
                let t = if x1 > x0 { (x - x0) / (x1 - x0) } else { 1.0 };
                return Some(ns0 + t * (ns1 - ns0));
            }
        }
        Some(last.1)
    }
}

// ---- finding the levels from a latency curve ------------------------------------------------

/// An interval of the curve is part of a step when its latency grows faster than this per
/// doubling of size.
pub const STEEP_PER_DOUBLING: f64 = 1.5;

/// Two neighbouring plateaus are two levels only when their median latencies are at least
/// this far apart; closer ones (with whatever lies between them) are merged into one. A level
/// also reaches no size slower than this times its plateau's latency.
pub const LEVEL_RATIO: f64 = 2.0;

/// The fewest points a plateau has: a single point between two steps is part of the step.
pub const MIN_PLATEAU_POINTS: usize = 2;

/// The knee rule of [`CacheLevels::from_curve`], as the method paragraphs quote it.
pub const KNEE_RULE: &str = "The curve of median ns per load against size is cut at every run \
     of neighbouring sizes whose latency climbs faster than ×1.5 per doubling of size; the runs \
     of two or more sizes between the cuts are plateaus, neighbouring plateaus less than ×2 \
     apart in median latency are merged, inside a cut two or more neighbouring sizes within ×2 of \
     each other and more than ×2 from the plateaus on both sides make a plateau too, and every \
     plateau but the last (the tail: memory) is a cache level, L1 first, with its plateau's \
     median latency. A level's effective size is the \
     largest size before the next plateau whose latency is below both the geometric mean of the \
     two plateaus' medians and twice its own.";

/// How [`CacheLevels::from_invocations`] combines the invocations' levels, as the method
/// paragraphs quote it.
pub const PER_INVOCATION_RULE: &str = "The rule runs on each invocation's own curve (per size, \
     that invocation's median); levels are matched by their order (L1 the first on every \
     curve). The levels reported are those more than half the invocations show (the lower \
     median of the per-invocation level counts); a level's effective size is the median of the \
     sizes the invocations that show it give it (the lower of the two middle ones for an even \
     number, so it is always a measured size), its latency the median of their plateau \
     latencies with their least and greatest, and memory's latency the median of their tails.";

/// A plateau of the curve: points `first..=last`, and their median latency.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Plateau {
    first: usize,
    last: usize,
    ns: f64,
}

/// The median latency of `points[first..=last]`.
fn median_ns(points: &[(usize, f64)], first: usize, last: usize) -> f64 {
    let ns: Vec<f64> = points[first..=last].iter().map(|p| p.1).collect();
    median(&ns).unwrap_or(f64::NAN)
}

/// The plateaus of a curve sorted by size with finite positive latencies (see [`KNEE_RULE`]):
/// the last one is the tail. A curve that ends inside a step has its tail made of the points
/// after the last plateau, at their highest latency, when that is a level ratio above it.
fn plateaus(points: &[(usize, f64)]) -> Vec<Plateau> {
    let n = points.len();
    if n == 0 {
        return Vec::new();
    }
    let steep = |i: usize| {
        let ((b0, ns0), (b1, ns1)) = (points[i], points[i + 1]);
        (ns1 / ns0).ln() > STEEP_PER_DOUBLING.ln() * (b1 as f64 / b0 as f64).log2()
    };
    // Runs of points joined by intervals that are not steep.
    let mut runs = vec![(0usize, 0usize)];
    for i in 0..n - 1 {
        if steep(i) {
            runs.push((i + 1, i + 1));
        } else if let Some(run) = runs.last_mut() {
            run.1 = i + 1;
        }
    }
    let mut spans: Vec<(usize, usize)> = runs
        .into_iter()
        .filter(|&(first, last)| last + 1 - first >= MIN_PLATEAU_POINTS)
        .collect();
    // Merge the closest neighbours (in latency) first, until all are a level ratio apart.
    loop {
        let closest = spans
            .windows(2)
            .enumerate()
            .map(|(k, pair)| {
                let low = median_ns(points, pair[0].0, pair[0].1);
                let high = median_ns(points, pair[1].0, pair[1].1);
                (k, high / low)
            })
            .filter(|&(_, ratio)| ratio < LEVEL_RATIO)
            .min_by(|a, b| a.1.total_cmp(&b.1));
        let Some((k, _)) = closest else { break };
        let merged = (spans[k].0, spans[k + 1].1);
        spans.splice(k..k + 2, [merged]);
    }
    // A level squeezed into a ramp: inside the step between two plateaus, the longest run of
    // two or more neighbouring sizes within a level ratio of each other and more than one from
    // both plateaus.
    let mut with_hidden = Vec::with_capacity(spans.len());
    for (k, &span) in spans.iter().enumerate() {
        with_hidden.push(span);
        if let Some(&next) = spans.get(k + 1) {
            let low = median_ns(points, span.0, span.1) * LEVEL_RATIO;
            let high = median_ns(points, next.0, next.1) / LEVEL_RATIO;
            if let Some(hidden) = hidden_plateau(points, span.1 + 1, next.0, low, high) {
                with_hidden.push(hidden);
            }
        }
    }
    let mut plateaus: Vec<Plateau> = with_hidden
        .into_iter()
        .map(|(first, last)| Plateau {
            first,
            last,
            ns: median_ns(points, first, last),
        })
        .collect();
    let after = plateaus.last().map_or(0, |p| p.last + 1);
    if after < n {
        let highest = points[after..].iter().map(|p| p.1).fold(0.0, f64::max);
        let climbs = plateaus
            .last()
            .is_none_or(|p| highest >= p.ns * LEVEL_RATIO);
        if climbs {
            plateaus.push(Plateau {
                first: after,
                last: n - 1,
                ns: highest,
            });
        }
    }
    plateaus
}

/// The longest run of two or more neighbouring points of `points[from..to]` with latencies
/// strictly between `low` and `high` and within a level ratio of each other, as `(first, last)`.
fn hidden_plateau(
    points: &[(usize, f64)],
    from: usize,
    to: usize,
    low: f64,
    high: f64,
) -> Option<(usize, usize)> {
    let inside = |i: usize| points[i].1 > low && points[i].1 < high;
    let mut best: Option<(usize, usize)> = None;
    let mut first = from;
    while first < to {
        if !inside(first) {
            first += 1;
            continue;
        }
        let (mut last, mut least, mut most) = (first, points[first].1, points[first].1);
        while last + 1 < to && inside(last + 1) {
            let ns = points[last + 1].1;
            if most.max(ns) / least.min(ns) >= LEVEL_RATIO {
                break;
            }
            (least, most) = (least.min(ns), most.max(ns));
            last += 1;
        }
        if last > first && best.is_none_or(|(f, l)| last - first > l - f) {
            best = Some((first, last));
        }
        first = last + 1;
    }
    best
}

impl CacheLevels {
    /// The cache levels a latency curve shows: `curve` is `(bytes, ns per load)`, one point
    /// per size (any order; non-finite or non-positive latencies are left out).
    ///
    /// The curve (median ns per load against size, both on log scales) is cut at every run of
    /// sizes whose latency climbs faster than ×1.5 per doubling; the runs of two or more sizes
    /// between the cuts are plateaus, neighbours less than ×2 apart are merged, two or more
    /// sizes inside a cut within ×2 of each other and more than ×2 from the plateaus on both
    /// sides make a plateau too (a level squeezed into a ramp), and every plateau but the last
    /// (the tail: memory) is a level, whose effective size is the largest
    /// size before the next plateau with a latency below both the geometric mean of the two
    /// plateaus' medians and twice its own ([`KNEE_RULE`] is the same rule for the methods).
    ///
    /// Levels are named `L1`, `L2`, … in order and carry `machine`'s size of the cache of the
    /// same level, where it lists one. A curve with fewer steps than the machine lists levels
    /// gives the levels it shows (so a missing `L3` means the curve shows no third level); a
    /// flat curve gives none, and `memory_ns` is then its median (or, for a curve that never
    /// levels off, its highest latency).
    pub fn from_curve(curve: &[(usize, f64)], machine: &Machine, source: &str) -> CacheLevels {
        let mut points: Vec<(usize, f64)> = curve
            .iter()
            .copied()
            .filter(|&(bytes, ns)| bytes > 0 && ns.is_finite() && ns > 0.0)
            .collect();
        points.sort_by_key(|p| p.0);
        points.dedup_by_key(|p| p.0);
        let plateaus = plateaus(&points);
        let levels = plateaus
            .windows(2)
            .zip(1u8..)
            .map(|(pair, level)| {
                let (here, next) = (pair[0], pair[1]);
                let boundary = (here.ns * next.ns).sqrt().min(here.ns * LEVEL_RATIO);
                let bytes = points[here.first..next.first]
                    .iter()
                    .filter(|p| p.1 < boundary)
                    .map(|p| p.0)
                    .max()
                    .unwrap_or(points[here.last].0);
                EffectiveLevel {
                    level: format!("L{level}"),
                    bytes,
                    ns: here.ns,
                    sysfs_bytes: machine.cache_bytes(level),
                    ..EffectiveLevel::default()
                }
            })
            .collect();
        let memory_ns = plateaus
            .last()
            .map(|p| p.ns)
            .or_else(|| points.last().map(|p| p.1))
            .unwrap_or(f64::NAN);
        CacheLevels {
            levels,
            memory_ns,
            curve: points,
            curve_spread: Vec::new(),
            source: source.to_string(),
        }
    }

    /// The cache levels of K invocations' curves of the same sizes (`curves`, one per
    /// invocation, each point that invocation's median), the knee rule applied to each curve
    /// on its own ([`CacheLevels::from_curve`]): [`PER_INVOCATION_RULE`] says how they are
    /// combined. `pooled` (all invocations' samples together, per size) is kept as the curve
    /// that [`CacheLevels::latency_at`] reads. With no curves, the levels of `pooled`.
    pub fn from_invocations(
        curves: &[Vec<(usize, f64)>],
        pooled: &[(usize, f64)],
        machine: &Machine,
        source: &str,
    ) -> CacheLevels {
        let pooled = CacheLevels::from_curve(pooled, machine, source);
        if curves.is_empty() {
            return pooled;
        }
        let each: Vec<CacheLevels> = curves
            .iter()
            .map(|curve| CacheLevels::from_curve(curve, machine, source))
            .collect();
        let mut counts: Vec<usize> = each.iter().map(|c| c.levels.len()).collect();
        counts.sort_unstable();
        let shown = counts[(counts.len() - 1) / 2];
        let levels = (0..shown)
            .map(|i| {
                let found: Vec<Option<&EffectiveLevel>> =
                    each.iter().map(|c| c.levels.get(i)).collect();
                let mut sizes: Vec<usize> = found.iter().flatten().map(|l| l.bytes).collect();
                sizes.sort_unstable();
                let ns: Vec<f64> = found.iter().flatten().map(|l| l.ns).collect();
                let name = format!("L{}", i + 1);
                EffectiveLevel {
                    sysfs_bytes: machine.cache_bytes(i as u8 + 1),
                    level: name,
                    bytes: sizes[(sizes.len() - 1) / 2],
                    ns: median(&ns).unwrap_or(f64::NAN),
                    bytes_per_invocation: found.iter().map(|l| l.map(|l| l.bytes)).collect(),
                    ns_low: ns.iter().copied().reduce(f64::min),
                    ns_high: ns.iter().copied().reduce(f64::max),
                }
            })
            .collect();
        let memory: Vec<f64> = each
            .iter()
            .map(|c| c.memory_ns)
            .filter(|ns| ns.is_finite())
            .collect();
        let curve_spread = curve_spread(curves, &pooled.curve);
        CacheLevels {
            levels,
            memory_ns: median(&memory).unwrap_or(pooled.memory_ns),
            curve: pooled.curve,
            curve_spread,
            source: source.to_string(),
        }
    }

    /// The levels of a short pointer chase on this machine (huge pages, sizes from 4 KiB to
    /// [`sweep_max`], two per doubling, the median of a few short samples each, timed on the
    /// thread's CPU clock where there is one so that time spent descheduled is left out),
    /// found by [`CacheLevels::from_curve`]. About 1.2 s on a busy 2-core Zen 4 VM (a sweep to
    /// 128 MiB), 0.7 s `quick`. It times live, outside the invocations' recording and replay.
    pub fn probe(machine: &Machine, quick: bool) -> CacheLevels {
        let (max, _) = sweep_max(machine);
        // Samples long enough (2^15 loads, 50 µs and more) for the clock's own cost to vanish.
        let (samples, sample_loads) = if quick { (5, 1 << 15) } else { (11, 1 << 15) };
        let warm_loads: u64 = if quick { 1 << 17 } else { 1 << 19 };
        let clock = || thread_cpu_ns().unwrap_or_else(|| EPOCH.elapsed().as_nanos() as u64);
        let curve: Vec<(usize, f64)> = sizes(max, 2)
            .into_iter()
            .map(|bytes| {
                let buffer = ring(bytes, Pages::Huge, PROBE_SEED ^ bytes as u64);
                let words = buffer.as_slice();
                let lines = (bytes / LINE).max(2) as u64;
                // Once round the ring (or as far as the warm-up goes) so that a ring that fits
                // a cache is in it, then samples that carry on from where the last stopped.
                let mut at = chase(words, lines.clamp(4096, warm_loads), 0);
                let loads = sample_loads;
                let ns: Vec<f64> = (0..samples)
                    .map(|_| {
                        let start = clock();
                        at = black_box(chase(words, loads, black_box(at)));
                        clock().saturating_sub(start) as f64 / loads as f64
                    })
                    .collect();
                (bytes, median(&ns).unwrap_or(f64::NAN))
            })
            .collect();
        CacheLevels::from_curve(&curve, machine, "a short pointer chase")
    }
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

/// `MemAvailable` from the text of `/proc/meminfo`, in bytes.
pub fn parse_mem_available(meminfo: &str) -> Option<usize> {
    let line = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))?;
    let kib: usize = line.trim().trim_end_matches("kB").trim().parse().ok()?;
    kib.checked_mul(1024)
}

// ---- the shuffled ring ------------------------------------------------------------------------

/// A cache line: each ring element fills one, its first word the next element's index.
pub const LINE: usize = 64;
const WORDS_PER_LINE: usize = LINE / 8;

/// A ring over `bytes / 64` cache lines: word 0 of each line holds the index of the next
/// line, in one cycle through every line (Sattolo's shuffle), so hardware prefetchers cannot
/// guess the next address.
pub fn ring(bytes: usize, pages: Pages, seed: u64) -> PageBuffer {
    let lines = (bytes / LINE).max(2);
    let mut order: Vec<u32> = (0..lines as u32).collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for i in (1..lines).rev() {
        let j = rng.random_range(0..i);
        order.swap(i, j);
    }
    let mut buffer = PageBuffer::new(lines * LINE, pages, |_| 0);
    let words = buffer.as_mut_slice();
    for (line, &next) in order.iter().enumerate() {
        // Sattolo's permutation is one cycle: following `order` visits every line once.
        words[line * WORDS_PER_LINE] = next as u64;
    }
    buffer
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_interpolates_in_log_size() {
        let levels = CacheLevels {
            levels: vec![EffectiveLevel {
                level: "L1".into(),
                bytes: 32 << 10,
                ns: 1.0,
                sysfs_bytes: Some(32 << 10),
                ..EffectiveLevel::default()
            }],
            memory_ns: 100.0,
            curve: vec![(4096, 1.0), (16384, 3.0)],
            curve_spread: Vec::new(),
            source: "test".into(),
        };
        assert_eq!(levels.latency_at(1), 1.0);
        assert_eq!(levels.latency_at(8192), 2.0);
        assert_eq!(levels.latency_at(1 << 30), 3.0);
        assert_eq!(levels.last_level_bytes(), 32 << 10);
        // No spread: the range is the pooled curve's value; with one, the invocations' least
        // and greatest, interpolated the same way.
        assert_eq!(levels.latency_range_at(8192), (2.0, 2.0));
        let spread = CacheLevels {
            curve_spread: vec![(4096, 0.5, 1.5), (16384, 2.0, 5.0)],
            ..levels.clone()
        };
        assert_eq!(spread.latency_range_at(8192), (1.25, 3.25));
        assert_eq!(
            curve_spread(
                &[vec![(4096, 1.0)], vec![(4096, 3.0), (16384, 2.0)]],
                &[(4096, 2.0), (16384, 2.0)]
            ),
            vec![(4096, 1.0, 3.0), (16384, 2.0, 2.0)]
        );
        assert!(levels.level("L1").is_some() && levels.level("L2").is_none());
    }

    use crate::machine::Cache;
    use std::path::Path;

    const KIB: usize = 1 << 10;
    const MIB: usize = 1 << 20;

    /// This machine with the data caches `sizes` (L1, L2, …) as sysfs would list them.
    fn machine_with(sizes: &[usize]) -> Machine {
        let mut machine = Machine::detect();
        machine.cache_source = "sysfs".into();
        machine.caches = sizes
            .iter()
            .zip(1u8..)
            .map(|(&bytes, level)| Cache {
                level,
                kind: if level == 1 { "Data" } else { "Unified" }.into(),
                bytes,
                line_bytes: 64,
                ways: 8,
                shared_cpus: String::new(),
            })
            .collect();
        machine
    }

    /// A staircase over E6's full sizes: `steps` are (largest size, ns) of each level, then
    /// `memory_ns` beyond the last.
    fn staircase(steps: &[(usize, f64)], memory_ns: f64) -> Vec<(usize, f64)> {
        sizes(256 * MIB, 2)
            .into_iter()
            .map(|bytes| {
                let ns = steps
                    .iter()
                    .find(|&&(top, _)| bytes <= top)
                    .map_or(memory_ns, |s| s.1);
                (bytes, ns)
            })
            .collect()
    }

    fn summary(levels: &CacheLevels) -> Vec<(String, usize)> {
        levels
            .levels
            .iter()
            .map(|l| (l.level.clone(), l.bytes))
            .collect()
    }

    #[test]
    fn a_clean_staircase_gives_its_three_levels() {
        let machine = machine_with(&[32 * KIB, MIB, 32 * MIB]);
        let curve = staircase(&[(32 * KIB, 1.5), (512 * KIB, 4.5), (8 * MIB, 15.0)], 120.0);
        let levels = CacheLevels::from_curve(&curve, &machine, "test");
        assert_eq!(
            summary(&levels),
            vec![
                ("L1".to_string(), 32 * KIB),
                ("L2".to_string(), 512 * KIB),
                ("L3".to_string(), 8 * MIB)
            ]
        );
        assert_eq!(levels.levels[0].ns, 1.5);
        assert_eq!(levels.levels[2].ns, 15.0);
        assert_eq!(levels.levels[1].sysfs_bytes, Some(MIB));
        assert_eq!(levels.levels[2].sysfs_bytes, Some(32 * MIB));
        assert_eq!(levels.memory_ns, 120.0);
        assert_eq!(levels.last_level_bytes(), 8 * MIB);
        assert_eq!(levels.curve.len(), curve.len());
        assert_eq!(levels.source, "test");
    }

    #[test]
    fn levels_per_invocation_take_the_median_size_and_the_latency_spread() {
        let machine = machine_with(&[32 * KIB, MIB, 32 * MIB]);
        // Five invocations: L3 ends at 4 MiB in three, at 8 MiB in two; one shows no L3
        // at all in a sixth, which is outvoted.
        let at =
            |l3: usize, ns: f64| staircase(&[(32 * KIB, 1.5), (512 * KIB, 4.5), (l3, ns)], 120.0);
        let curves = vec![
            at(4 * MIB, 15.0),
            at(8 * MIB, 16.0),
            at(4 * MIB, 14.0),
            at(8 * MIB, 15.5),
            at(4 * MIB, 15.0),
            staircase(&[(32 * KIB, 1.5), (512 * KIB, 4.5)], 120.0),
        ];
        let pooled = at(4 * MIB, 15.0);
        let levels = CacheLevels::from_invocations(&curves, &pooled, &machine, "test");
        assert_eq!(
            summary(&levels),
            [
                ("L1".into(), 32 * KIB),
                ("L2".into(), 512 * KIB),
                ("L3".into(), 4 * MIB)
            ]
        );
        let l3 = levels.level("L3").unwrap();
        assert_eq!(
            l3.bytes_per_invocation,
            [4, 8, 4, 8, 4]
                .map(|m| Some(m * MIB))
                .into_iter()
                .chain([None])
                .collect::<Vec<_>>()
        );
        assert!(!l3.invocations_agree() && levels.levels[0].invocations_agree());
        assert_eq!(
            l3.size_counts(),
            [(Some(4 * MIB), 3), (Some(8 * MIB), 2), (None, 1)]
        );
        assert_eq!(
            (l3.ns, l3.ns_low, l3.ns_high),
            (15.0, Some(14.0), Some(16.0))
        );
        assert_eq!(l3.sysfs_bytes, Some(32 * MIB));
        assert_eq!(levels.memory_ns, 120.0);
        assert_eq!(levels.curve, pooled);
        // An even count takes the lower of the two middle sizes.
        let two = CacheLevels::from_invocations(&curves[..2], &pooled, &machine, "test");
        assert_eq!(two.level("L3").unwrap().bytes, 4 * MIB);
        // Read back from JSON without the per-invocation fields (older reports).
        let old: EffectiveLevel = serde_json::from_str(
            r#"{"level": "L1", "bytes": 4096, "ns": 1.0, "sysfs_bytes": null}"#,
        )
        .unwrap();
        assert!(old.bytes_per_invocation.is_empty() && old.ns_low.is_none());
        let single = CacheLevels::from_curve(&pooled, &machine, "test");
        let json = serde_json::to_value(&single.levels[0]).unwrap();
        assert!(json.get("bytes_per_invocation").is_none(), "{json}");
    }

    #[test]
    fn a_noisy_curve_with_ramps_and_spikes_gives_the_same_levels() {
        let machine = machine_with(&[32 * KIB, MIB, 32 * MIB]);
        let mut curve = staircase(&[(32 * KIB, 1.5), (512 * KIB, 4.5), (8 * MIB, 15.0)], 120.0);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        for point in &mut curve {
            point.1 *= rng.random_range(0.85..1.18); // ±15 % noise on every point
        }
        let at = |curve: &mut Vec<(usize, f64)>, bytes: usize, ns: f64| {
            curve.iter_mut().find(|p| p.0 == bytes).unwrap().1 = ns;
        };
        // Ramps between the levels, as on a VM, and one spike on the L2 plateau.
        at(&mut curve, 741440, 6.5);
        at(&mut curve, MIB, 9.0);
        at(&mut curve, 11863232, 25.0);
        at(&mut curve, 131072, 7.0);
        curve.push((3 * MIB, f64::NAN)); // a failed point is left out
        let levels = CacheLevels::from_curve(&curve, &machine, "test");
        assert_eq!(
            summary(&levels),
            vec![
                ("L1".to_string(), 32 * KIB),
                ("L2".to_string(), 741440),
                ("L3".to_string(), 11863232)
            ]
        );
        assert!((100.0..140.0).contains(&levels.memory_ns));
    }

    #[test]
    fn a_level_the_curve_never_shows_is_left_out() {
        // sysfs lists a 32 MiB L3, but the curve goes from L2 straight to memory.
        let machine = machine_with(&[32 * KIB, MIB, 32 * MIB]);
        let curve = staircase(&[(32 * KIB, 1.5), (MIB, 4.5)], 90.0);
        let levels = CacheLevels::from_curve(&curve, &machine, "test");
        assert_eq!(
            summary(&levels),
            vec![("L1".to_string(), 32 * KIB), ("L2".to_string(), MIB)]
        );
        assert!(levels.level("L3").is_none());
        assert_eq!(levels.levels[1].sysfs_bytes, Some(MIB));
        assert_eq!(levels.memory_ns, 90.0);
    }

    #[test]
    fn a_level_squeezed_into_a_ramp_is_found_and_a_steep_ramp_is_no_level() {
        // L2 at 4.5 ns to 512 KiB, then a climb to memory through an L3 squeezed by neighbours
        // (no two sizes level, but three within ×2 of each other and far from both sides).
        let machine = machine_with(&[32 * KIB, MIB, 32 * MIB]);
        let ramp = |ns: [f64; 4]| {
            let mut curve = staircase(&[(32 * KIB, 1.5), (512 * KIB, 4.5)], 150.0);
            for (bytes, ns) in [741440, MIB, 1482880, 2 * MIB].into_iter().zip(ns) {
                curve.iter_mut().find(|p| p.0 == bytes).unwrap().1 = ns;
            }
            CacheLevels::from_curve(&curve, &machine, "test")
        };
        let squeezed = ramp([7.0, 10.0, 14.0, 19.0]);
        assert_eq!(
            summary(&squeezed),
            vec![
                ("L1".to_string(), 32 * KIB),
                ("L2".to_string(), 741440),
                ("L3".to_string(), 2 * MIB)
            ]
        );
        assert_eq!(squeezed.levels[2].ns, 14.0);
        // A ramp that keeps climbing by ×2 and more is a step: and L2 does not stretch up it
        // (it stops where the latency passes twice its own).
        let steep = ramp([7.0, 12.0, 30.0, 60.0]);
        assert_eq!(
            summary(&steep),
            vec![("L1".to_string(), 32 * KIB), ("L2".to_string(), 741440)]
        );
    }

    #[test]
    fn flat_curves_and_curves_that_end_in_a_step() {
        let machine = machine_with(&[32 * KIB]);
        let flat: Vec<(usize, f64)> = sizes(MIB, 2).into_iter().map(|b| (b, 2.0)).collect();
        let levels = CacheLevels::from_curve(&flat, &machine, "test");
        assert!(levels.levels.is_empty());
        assert_eq!(levels.memory_ns, 2.0);
        // A sweep that stops partway up the last step: the tail stands for memory.
        let mut rising = staircase(&[(32 * KIB, 1.5)], 5.0);
        rising.retain(|p| p.0 <= 128 * KIB);
        rising.push((256 * KIB, 20.0));
        let levels = CacheLevels::from_curve(&rising, &machine, "test");
        assert_eq!(
            summary(&levels),
            vec![("L1".to_string(), 32 * KIB), ("L2".to_string(), 128 * KIB)]
        );
        assert_eq!(levels.memory_ns, 20.0);
        let empty = CacheLevels::from_curve(&[], &machine, "test");
        assert!(empty.levels.is_empty() && empty.memory_ns.is_nan());
    }

    /// The E6 curve of a report once committed (its huge-page series, kept in tests/data), and
    /// the levels found from it.
    fn committed(cpu: &str) -> CacheLevels {
        let path = Path::new(crate::WORKSPACE_ROOT)
            .join(format!("tests/data/reports/e6-without-levels-{cpu}.json"));
        let report = crate::report::read_report(&path).unwrap();
        let e6 = report.experiment("E6").unwrap();
        let curve = crate::experiments::e6_memory::curve(&e6.series);
        CacheLevels::from_curve(&curve, &report.machine, "E6's latency curve")
    }

    #[test]
    fn committed_vm_curves_give_their_effective_last_levels() {
        // Zen 4 VM: sysfs says L3 32 MiB, the curve is DRAM-like from about 11 MiB.
        let amd = committed("amd-epyc-f25-m17"); // amd-epyc-f25-m17-2026-11-22-2
        assert_eq!(amd.levels.len(), 3, "{amd:?}");
        assert_eq!(amd.levels[0].bytes, 32 * KIB);
        assert_eq!(amd.levels[2].sysfs_bytes, Some(32 * MIB));
        let last = amd.last_level_bytes();
        assert!((5 * MIB..=8 * MIB).contains(&last), "AMD last level {last}");
        assert!((100.0..200.0).contains(&amd.memory_ns));
        // Xeon VM: sysfs says L3 300 MiB; on huge pages 5.66 MiB is already mostly DRAM (its
        // median is 110 ns against 46 ns on the L3 plateau), on 4 KiB pages it is 8 MiB.
        let intel = committed("intel-xeon-f6-m207"); // intel-xeon-f6-m207-2026-11-22-2
        assert_eq!(intel.levels.len(), 3, "{intel:?}");
        assert_eq!(intel.levels[0].bytes, 32 * KIB);
        assert_eq!(intel.levels[2].sysfs_bytes, Some(300 * MIB));
        let last = intel.last_level_bytes();
        assert!(
            (4 * MIB..=8 * MIB).contains(&last),
            "Intel last level {last}"
        );
        assert!(intel.levels[2].ns > 30.0 && intel.memory_ns > 100.0);
    }

    #[test]
    fn the_sweep_reaches_four_times_the_last_level_within_a_quarter_of_free_memory() {
        let machine = machine_with(&[32 * KIB, MIB, 32 * MIB]);
        let (max, why) = sweep_max_with(&machine, Some(22 << 30));
        assert_eq!(max, 128 * MIB);
        assert!(
            why.contains("L3, 32 MiB") && why.contains("not reached"),
            "{why}"
        );
        let (max, why) = sweep_max_with(&machine, Some(300 * MIB));
        assert_eq!(max, 64 * MIB, "a quarter of 300 MiB, rounded down");
        assert!(why.contains("capped"), "{why}");
        assert_eq!(sweep_max_with(&machine, None).0, 128 * MIB);
        let xeon = machine_with(&[48 * KIB, 2 * MIB, 300 * MIB]);
        assert_eq!(sweep_max_with(&xeon, Some(64 << 30)).0, 2 << 30);
        assert_eq!(sweep_max_with(&xeon, None).0, 256 * MIB);
        let bare = machine_with(&[]);
        assert_eq!(sweep_max_with(&bare, Some(64 << 30)).0, 256 * MIB);
        assert_eq!(sweep_max_with(&bare, Some(0)).0, MIB, "never below 1 MiB");
    }

    #[test]
    fn mem_available_is_read_in_bytes() {
        let meminfo = "MemTotal:       24684096 kB\nMemFree: 1 kB\nMemAvailable:   22936336 kB\n";
        assert_eq!(parse_mem_available(meminfo), Some(22936336 * 1024));
        assert_eq!(parse_mem_available("MemTotal: 5 kB\n"), None);
    }

    #[test]
    fn ring_is_one_cycle_through_every_line() {
        let buffer = ring(64 * 1000, Pages::Small, 5);
        let words = buffer.as_slice();
        let mut seen = vec![false; 1000];
        let mut at = 0usize;
        for _ in 0..1000 {
            assert!(!seen[at], "line {at} visited twice");
            seen[at] = true;
            at = words[at * WORDS_PER_LINE] as usize;
        }
        assert_eq!(at, 0);
        assert!(seen.iter().all(|&s| s));
        assert_eq!(chase(words, 1000, 0), 0);
        // A chase carries on where the last stopped.
        let half = chase(words, 500, 0);
        assert_eq!(chase(words, 500, half), 0);
    }

    #[test]
    fn sizes_are_log_spaced_and_line_aligned() {
        assert_eq!(sizes(32 << 10, 1), vec![4096, 8192, 16384, 32768]);
        let two = sizes(16 << 10, 2);
        assert_eq!(two.len(), 5);
        assert!(two.iter().all(|b| b % 64 == 0));
        assert_eq!(two[1], 5760); // 4096 × √2 rounded down to a whole line
        assert_eq!(sizes(128 << 20, 2).last(), Some(&(128 << 20)));
    }

    /// A probe on this machine, timed (run by hand: `--ignored --nocapture`).
    #[test]
    #[ignore]
    fn probe_this_machine() {
        let machine = Machine::detect();
        for quick in [true, false] {
            let start = Instant::now();
            let levels = CacheLevels::probe(&machine, quick);
            println!(
                "quick {quick}: {:.1} s, {:?}, memory {:.1} ns",
                start.elapsed().as_secs_f64(),
                levels
                    .levels
                    .iter()
                    .map(|l| (l.level.clone(), rounded_bytes(l.bytes as f64), l.ns))
                    .collect::<Vec<_>>(),
                levels.memory_ns
            );
            println!("{:?}", levels.curve);
        }
    }
}
