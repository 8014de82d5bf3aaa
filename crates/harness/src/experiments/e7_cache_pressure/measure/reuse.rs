//! The reuse of each backend's table lines along the walk (nothing timed).

use crate::registry;
use crate::workloads::SearchWorkload;
use kiki_core::backend::Backend;
use kiki_variants::registry::BackendVisitor;
use serde::{Deserialize, Serialize};

/// The reuse of one backend's attack-table lines along the search-order walk: its lookups, the
/// distinct lines and every read's LRU stack distance bucketed by powers of two (the misses of
/// any fully associative LRU cache of 64 × 2^j bytes follow).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Reuse {
    #[serde(with = "crate::invocations::static_str")]
    pub backend: crate::invocations::StaticStr,
    /// Lookups along the walk (a lookup may read more than one table line, or none).
    pub lookups: u64,
    pub reads: u64,
    /// First reads of a line (misses in any cache).
    pub cold: u64,
    pub distinct_lines: usize,
    /// `buckets[0]`: distance 0 (the line read last); `buckets[k]`: distances in
    /// [2^(k-1), 2^k) distinct lines.
    pub buckets: Vec<u64>,
}

impl Reuse {
    /// The misses of a fully associative LRU cache of `bytes` (rounded down to 64 × 2^j): the
    /// cold ones and the reuses at a stack distance of that many lines or more.
    pub fn misses(&self, bytes: usize) -> u64 {
        let lines = (bytes / 64).max(1);
        let j = usize::BITS - 1 - lines.leading_zeros();
        let far: u64 = self.buckets.iter().skip(j as usize + 1).sum();
        self.cold + far
    }

    /// [`Reuse::misses`] per lookup of the walk.
    pub fn misses_per_lookup(&self, bytes: usize) -> f64 {
        self.misses(bytes) as f64 / self.lookups.max(1) as f64
    }

    /// The cold misses per lookup: what a cache of any size still misses.
    pub fn cold_per_lookup(&self) -> f64 {
        self.cold as f64 / self.lookups.max(1) as f64
    }
}

/// The reuse of `name`'s attack-table lines along `workload` (nothing timed: the same in every
/// process).
pub(super) fn reuse_of(name: &'static str, workload: &SearchWorkload) -> Option<Reuse> {
    struct Lines<'w>(&'w SearchWorkload);
    impl BackendVisitor for Lines<'_> {
        type Output = (Vec<u64>, u64);
        fn visit<B: Backend>(self, backend: B) -> (Vec<u64>, u64) {
            let mut lines = Vec::new();
            let mut offsets = Vec::new();
            let mut lookups = 0u64;
            for node in 0..self.0.nodes() {
                let occupancy = backend.occupancy(self.0.occupancies[node]);
                for &(slider, square) in self.0.node(node) {
                    offsets.clear();
                    backend.attack_table_offsets(slider, &occupancy, square, &mut offsets);
                    lines.extend(offsets.iter().map(|&o| (o / 64) as u64));
                    lookups += 1;
                }
            }
            (lines, lookups)
        }
    }
    let (lines, lookups) = registry::visit_base(name, Lines(workload)).ok()?;
    if lines.is_empty() {
        return None;
    }
    Some(stack_distances(name, &lines, lookups))
}

/// LRU stack distances of `lines` (Bennett and Kruskal's method: a Fenwick tree over access
/// times marks each line's latest access; a reuse's distance is the marks since its last one),
/// for a walk of `lookups` lookups.
pub(crate) fn stack_distances(backend: &'static str, lines: &[u64], lookups: u64) -> Reuse {
    let n = lines.len();
    let mut tree = vec![0u32; n + 1];
    let add = |tree: &mut Vec<u32>, at: usize, delta: i32| {
        let mut i = at + 1;
        while i <= n {
            tree[i] = (tree[i] as i64 + delta as i64) as u32;
            i += i & i.wrapping_neg();
        }
    };
    let prefix = |tree: &Vec<u32>, at: usize| {
        // Marks at times 0..at.
        let (mut i, mut total) = (at, 0u64);
        while i > 0 {
            total += tree[i] as u64;
            i -= i & i.wrapping_neg();
        }
        total
    };
    let mut last: std::collections::HashMap<u64, usize> = std::collections::HashMap::new();
    let mut buckets = vec![0u64; 40];
    let mut cold = 0u64;
    for (time, &line) in lines.iter().enumerate() {
        match last.insert(line, time) {
            Some(before) => {
                let distance = prefix(&tree, time) - prefix(&tree, before + 1);
                let bucket = (u64::BITS - distance.leading_zeros()) as usize;
                buckets[bucket.min(39)] += 1;
                add(&mut tree, before, -1);
            }
            None => cold += 1,
        }
        add(&mut tree, time, 1);
    }
    Reuse {
        backend,
        lookups,
        reads: n as u64,
        cold,
        distinct_lines: last.len(),
        buckets,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines 1 2 1 3 2 1 read by 4 lookups: three first reads, then distances 1, 2, 2 (LRU by
    /// hand).
    #[test]
    fn stack_distances_count_distinct_lines_between_reuses() {
        let reuse = stack_distances("test", &[1, 2, 1, 3, 2, 1], 4);
        assert_eq!((reuse.reads, reuse.cold, reuse.distinct_lines), (6, 3, 3));
        assert_eq!(reuse.lookups, 4);
        assert_eq!(&reuse.buckets[..4], [0, 1, 2, 0]);
        assert_eq!(reuse.misses(64), 6);
        assert_eq!(reuse.misses(128), 5);
        assert_eq!(reuse.misses(256), 3);
        assert_eq!(reuse.misses(200), 5); // rounded down to 128 bytes
        assert_eq!(reuse.misses_per_lookup(256), 0.75);
        assert_eq!(reuse.cold_per_lookup(), 0.75);
    }
}
