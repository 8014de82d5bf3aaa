//! Finding the levels in a latency curve: the knees (runs of steep growth) cut it into
//! plateaus, and every plateau but the last is a level.

use super::{curve_spread, CacheLevels, EffectiveLevel, Ramp};
use crate::machine::Machine;
use crate::stats::median;

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
     number, so it is always a measured size), given with the least and the greatest of those \
     sizes (for K independent invocations the range holds the sizes' median with probability \
     at least 1 − 2^(1−K), 94 % for five; sizes are discrete, so ties only raise it); its \
     latency is the median of their plateau latencies with \
     their least and greatest, and memory's latency the median of their tails. The step after \
     a level runs from the last size of its plateau to the first of the next plateau (or of \
     memory); over invocations, from the median of their starts to the median of their ends, \
     each at the pooled curve's latency. The later experiments size from the median.";

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
                    ramp: Some(Ramp {
                        start_bytes: points[here.last].0,
                        start_ns: points[here.last].1,
                        end_bytes: points[next.first].0,
                        end_ns: points[next.first].1,
                    }),
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
                let ramps: Vec<Option<Ramp>> =
                    found.iter().map(|l| l.and_then(|l| l.ramp)).collect();
                let pooled_ramp = pooled_ramp(&ramps, &pooled);
                EffectiveLevel {
                    sysfs_bytes: machine.cache_bytes(i as u8 + 1),
                    level: name,
                    bytes: sizes[(sizes.len() - 1) / 2],
                    ns: median(&ns).unwrap_or(f64::NAN),
                    bytes_per_invocation: found.iter().map(|l| l.map(|l| l.bytes)).collect(),
                    ns_low: ns.iter().copied().reduce(f64::min),
                    ns_high: ns.iter().copied().reduce(f64::max),
                    ramp: pooled_ramp,
                    ramps_per_invocation: ramps,
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
}

/// The step after a level over invocations: the lower median of their starts and of their
/// ends (each a measured size), at the pooled curve's latency; `None` where no invocation
/// shows the step.
fn pooled_ramp(ramps: &[Option<Ramp>], pooled: &CacheLevels) -> Option<Ramp> {
    let lower_median = |mut sizes: Vec<usize>| {
        sizes.sort_unstable();
        sizes.get(sizes.len().checked_sub(1)? / 2).copied()
    };
    let start_bytes = lower_median(ramps.iter().flatten().map(|r| r.start_bytes).collect())?;
    let end_bytes = lower_median(ramps.iter().flatten().map(|r| r.end_bytes).collect())?;
    Some(Ramp {
        start_bytes,
        start_ns: pooled.latency_at(start_bytes),
        end_bytes,
        end_ns: pooled.latency_at(end_bytes),
    })
}
