//! The machine's cache levels as measured (effective size and latency of each data cache), which
//! E6 finds from its latency curve and E7 and E8 size their sweeps and geometries from.

use serde::{Deserialize, Serialize};

/// One data-cache level as measured: the largest footprint it still serves, its load latency,
/// and what sysfs/CPUID says its size is (if it says).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EffectiveLevel {
    /// `L1`, `L2`, `L3`, …
    pub level: String,
    /// The effective size: the largest footprint on the level's plateau of the latency curve.
    pub bytes: usize,
    /// The latency of a dependent load on the plateau (ns).
    pub ns: f64,
    /// The size sysfs or CPUID reports for this level, if any.
    pub sysfs_bytes: Option<usize>,
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
        let curve = &self.curve;
        let (Some(first), Some(last)) = (curve.first(), curve.last()) else {
            return self.memory_ns;
        };
        if bytes <= first.0 {
            return first.1;
        }
        if bytes >= last.0 {
            return last.1;
        }
        let x = (bytes as f64).ln();
        for pair in curve.windows(2) {
            let ((b0, ns0), (b1, ns1)) = (pair[0], pair[1]);
            if bytes <= b1 {
                let (x0, x1) = ((b0 as f64).ln(), (b1 as f64).ln());
                let t = if x1 > x0 { (x - x0) / (x1 - x0) } else { 1.0 };
                return ns0 + t * (ns1 - ns0);
            }
        }
        last.1
    }
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
            }],
            memory_ns: 100.0,
            curve: vec![(4096, 1.0), (16384, 3.0)],
            source: "test".into(),
        };
        assert_eq!(levels.latency_at(1), 1.0);
        assert_eq!(levels.latency_at(8192), 2.0);
        assert_eq!(levels.latency_at(1 << 30), 3.0);
        assert_eq!(levels.last_level_bytes(), 32 << 10);
        assert!(levels.level("L1").is_some() && levels.level("L2").is_none());
    }
}
// TEMPORARY (replaced by the levels branch)
pub fn probe(_machine: &crate::harness::machine::Machine, _quick: bool) -> CacheLevels {
    CacheLevels {
        levels: vec![
            EffectiveLevel {
                level: "L1".into(),
                bytes: 32 << 10,
                ns: 1.0,
                sysfs_bytes: None,
            },
            EffectiveLevel {
                level: "L2".into(),
                bytes: 1 << 20,
                ns: 4.0,
                sysfs_bytes: None,
            },
            EffectiveLevel {
                level: "L3".into(),
                bytes: 8 << 20,
                ns: 15.0,
                sysfs_bytes: None,
            },
        ],
        memory_ns: 100.0,
        curve: vec![
            (4096, 1.0),
            (1 << 20, 4.0),
            (8 << 20, 15.0),
            (64 << 20, 100.0),
        ],
        source: "temp".into(),
    }
}
