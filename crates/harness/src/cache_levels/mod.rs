//! The machine's cache levels as measured (effective size and latency of each data cache), which
//! E6 finds from its latency curve and E7 and E8 size their sweeps and geometries from.
//!
//! sysfs and CPUID say what the hardware has; on a virtual machine (or under cache partitioning)
//! a thread may get much less of the last level. The levels here come from the knees of a
//! dependent-load latency curve instead: E6's own, or a short pointer chase
//! ([`CacheLevels::probe`]) over the same shuffled rings ([`ring`], [`chase`]).
//!
//! The files keep the parts apart: this one the levels and the curve they were read from,
//! `knees` the rule that finds the levels in a latency curve, `probe` the pointer chase that
//! measures one and how far a sweep may go.

mod knees;
mod probe;

pub use knees::{
    KNEE_RULE, LEVEL_RATIO, MIN_PLATEAU_POINTS, PER_INVOCATION_RULE, STEEP_PER_DOUBLING,
};
pub use probe::{
    chase, mem_available, one_cycle, parse_mem_available, ring, sizes, sweep_max, sweep_max_with,
    timed_chase, LINE,
};

use serde::{Deserialize, Serialize};

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
    /// The step from this level to the next one (or to memory): on a single curve, that
    /// curve's; over invocations, the median start and the median end of theirs, each at the
    /// pooled curve's latency. Absent in reports made before E6 measured it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ramp: Option<Ramp>,
    /// Each invocation's own step after this level, in invocation order (`None` for an
    /// invocation whose curve shows no such level); empty for a level found on one curve.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ramps_per_invocation: Vec<Option<Ramp>>,
}

/// The step of a latency curve between two plateaus: where the lower plateau ends and where
/// the upper one begins, each a measured size with its latency. A level whose step spans
/// several doublings is a ramp, not a cliff: its effective size then depends on where the
/// knee rule cuts it, and a table sized inside the ramp is served partly by each level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Ramp {
    /// The last size on the lower plateau.
    pub start_bytes: usize,
    /// The curve's latency there (ns per load).
    pub start_ns: f64,
    /// The first size on the upper plateau.
    pub end_bytes: usize,
    /// The curve's latency there (ns per load).
    pub end_ns: f64,
}

impl Ramp {
    /// How many doublings of size the step spans.
    pub fn doublings(&self) -> f64 {
        (self.end_bytes as f64 / self.start_bytes.max(1) as f64).log2()
    }
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

    /// The least and the greatest effective size the invocations give this level, `None`
    /// for a level found on a single curve. With K invocations the range holds the median
    /// of the sizes' distribution with probability 1 − 2^(1−K) ([`range_coverage`]).
    pub fn bytes_range(&self) -> Option<(usize, usize)> {
        let sizes = self.bytes_per_invocation.iter().flatten();
        Some((*sizes.clone().min()?, *sizes.max()?))
    }
}

/// The least chance that the least and the greatest of `k` independent draws enclose the
/// median of their distribution (1 − 2^(1−k), exact for a continuous one; ties only raise it):
/// 94 % for five invocations.
pub fn range_coverage(k: usize) -> f64 {
    if k < 2 {
        return 0.0;
    }
    1.0 - 0.5f64.powi(k as i32 - 1)
}

/// Every data-cache level as measured, and memory beyond them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CacheLevels {
    /// Smallest first.
    pub levels: Vec<EffectiveLevel>,
    /// The latency of a dependent load beyond the last level (ns; NaN, written `null`, where
    /// unknown).
    #[serde(with = "crate::invocations::nan")]
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

#[cfg(test)]
mod tests {
    use super::probe::WORDS_PER_LINE;
    use super::*;
    use crate::machine::Machine;
    use kiki_core::pages::Pages;
    use kiki_core::units::rounded_bytes;
    use rand::{RngExt, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;
    use std::time::Instant;

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
        // The range over the invocations that show L3, and the step to memory: each curve's
        // from its last L3 size to the next size measured, pooled by the lower medians.
        assert_eq!(l3.bytes_range(), Some((4 * MIB, 8 * MIB)));
        assert!((range_coverage(5) - 0.9375).abs() < 1e-12 && range_coverage(1) == 0.0);
        let next = |bytes: usize| {
            sizes(256 * MIB, 2)
                .into_iter()
                .find(|&s| s > bytes)
                .unwrap()
        };
        let starts: Vec<Option<usize>> = l3
            .ramps_per_invocation
            .iter()
            .map(|r| r.map(|r| r.start_bytes))
            .collect();
        assert_eq!(starts, l3.bytes_per_invocation);
        let ramp = l3.ramp.unwrap();
        assert_eq!((ramp.start_bytes, ramp.end_bytes), (4 * MIB, next(4 * MIB)));
        assert_eq!((ramp.start_ns, ramp.end_ns), (15.0, 120.0));
        assert!((ramp.doublings() - 0.5).abs() < 0.01, "{ramp:?}");
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
        let report = crate::readback::read_report(&path).unwrap();
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
        // The fields every kernel writes, as one wrote them (MemAvailable since 3.14).
        let common = "MemTotal:       24684096 kB\nMemFree:        17525380 kB\n\
                      Buffers:           15092 kB\nCached:          5128488 kB\n\
                      SwapCached:            0 kB\nActive:          2116140 kB\n\
                      Inactive:        4558464 kB\nSwapTotal:             0 kB\n\
                      SwapFree:              0 kB\nDirty:            113860 kB\n\
                      Writeback:             0 kB\nMapped:           273724 kB\n\
                      Slab:             238480 kB\nCommitted_AS:    3473104 kB\n\
                      VmallocTotal:   34359738367 kB\nVmallocUsed:       35456 kB\n\
                      VmallocChunk:          0 kB\nHugePages_Total:       0\n";
        let meminfo = format!("{common}MemAvailable:   22936336 kB\n");
        assert_eq!(parse_mem_available(&meminfo), Some(22936336 * 1024));
        assert_eq!(parse_mem_available(common), None, "a kernel before 3.14");
        assert_eq!(parse_mem_available("MemTotal: 5 kB\n"), None);
        if let Ok(text) = std::fs::read_to_string("/proc/meminfo") {
            assert!(parse_mem_available(&text).is_some(), "this machine's own");
        }
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
