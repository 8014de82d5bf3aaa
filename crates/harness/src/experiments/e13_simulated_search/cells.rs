//! E13's cells as issue 58 sets them: which backends, evaluations and last-level sizes a full
//! and a quick run simulate (the plan only; nothing here runs valgrind).

use super::simulate::Geometry;
use kiki_engine::search::eval::EvalKind;

/// The table backends, then mailbox, the table-free reference (its attack-table misses must
/// come out zero).
pub const BACKENDS: [&str; 6] = ["bonanza", "dbb", "magic", "magic-plain", "pext", "mailbox"];

/// The quick run's backends: the pair E11's rule compares and the reference.
pub const QUICK_BACKENDS: [&str; 3] = ["dbb", "magic-plain", "mailbox"];

/// The quick run's evaluations.
pub const QUICK_EVALS: [EvalKind; 2] = [EvalKind::Material, EvalKind::Nnue];

/// The quick run's last levels: where the pilot's misses per node moved most (256 KiB to
/// 4 MiB under nnue).
pub const QUICK_LAST_LEVELS: [usize; 3] = [256 << 10, 1 << 20, 4 << 20];

/// The full sweep's fixed last levels, 128 KiB to 32 MiB: six sizes, densest where the knee
/// of a 64 MB table would fall on the CPUs seen (the measured levels are added to them).
pub const SWEEP_SIZES: [usize; 6] = [128 << 10, 512 << 10, 1 << 20, 2 << 20, 8 << 20, 32 << 20];
pub const SWEEP_SMALLEST: usize = SWEEP_SIZES[0];
pub const SWEEP_LARGEST: usize = SWEEP_SIZES[5];

/// The backends simulated at every size of the full sweep (the rule's pair); the others are
/// simulated at the measured levels only (see [`cells`]).
pub const SWEPT_BACKENDS: [&str; 2] = ["dbb", "magic-plain"];

/// One simulated cell: a backend's search under an evaluation with a last level of `ll_bytes`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    pub backend: &'static str,
    pub eval: EvalKind,
    pub ll_bytes: usize,
}

/// A measured level as a point of the sweep: its size rounded down to three significant bits
/// (`m · 2^k`, m from 4 to 7: at most 12.5 % below it, 5.66 MiB becomes 5 MiB), at the
/// associativity valgrind needs for it ([`Geometry::with_last_level`]: 5 MiB is 20-way).
pub fn sweep_point(bytes: usize) -> Option<usize> {
    if bytes < 4 << 10 {
        return None;
    }
    let shift = bytes.ilog2() - 2;
    let rounded = (bytes >> shift) << shift;
    Geometry::with_last_level(rounded).map(|geometry| geometry.ll.bytes)
}

/// The full sweep's last levels: [`SWEEP_SIZES`], and each of `measured` (E6's effective L2 and
/// L3, the smallest and largest L3 of its invocations, sysfs' L3) as a [`sweep_point`], so that
/// the measured levels are points of the curve; smallest first, each once.
pub fn last_level_sweep(measured: &[usize]) -> Vec<usize> {
    let mut sizes: Vec<usize> = SWEEP_SIZES.to_vec();
    sizes.extend(measured.iter().filter_map(|&bytes| sweep_point(bytes)));
    sizes.sort_unstable();
    sizes.dedup();
    sizes
}

/// The quick run's last levels: [`QUICK_LAST_LEVELS`], the largest replaced by the measured
/// L3's sweep point where there is one (so that the quick run reads the rule there too).
pub fn quick_sizes(l3: Option<usize>) -> Vec<usize> {
    let mut sizes = QUICK_LAST_LEVELS.to_vec();
    if let Some(point) = l3.and_then(sweep_point) {
        sizes.pop();
        sizes.push(point);
        sizes.sort_unstable();
        sizes.dedup();
    }
    sizes
}

/// Every cell of a run, backend-major, in [`BACKENDS`]' order. The full run: dbb and
/// magic-plain (the rule's pair) at every size of [`last_level_sweep`] of the `measured`
/// levels, bonanza, magic and pext at E6's effective L2 and L3, and mailbox (the table-free
/// reference) at the smallest size and the L3, under every evaluation — the rule's cells first,
/// the others only where the report's time allows (a full grid at issue 58's 10^5 nodes a cell
/// would take about 15 minutes of a 2-core Zen 4, see `measure::SEARCH_ARITHMETIC`). The quick
/// run: [`QUICK_BACKENDS`] under [`QUICK_EVALS`] at [`quick_sizes`]. Sizes valgrind has no
/// geometry for are left out.
pub fn cells(quick: bool, measured: &[usize], l2: Option<usize>, l3: Option<usize>) -> Vec<Cell> {
    let (l2, l3) = (l2.and_then(sweep_point), l3.and_then(sweep_point));
    let sizes_of = |backend: &str| -> Vec<usize> {
        if quick {
            return if QUICK_BACKENDS.contains(&backend) {
                quick_sizes(l3)
            } else {
                Vec::new()
            };
        }
        if SWEPT_BACKENDS.contains(&backend) {
            last_level_sweep(measured)
        } else if backend == "mailbox" {
            [Some(SWEEP_SMALLEST), l3].into_iter().flatten().collect()
        } else {
            [l2, l3].into_iter().flatten().collect()
        }
    };
    let evals: &[EvalKind] = if quick { &QUICK_EVALS } else { &EvalKind::ALL };
    let mut cells = Vec::new();
    for &backend in &BACKENDS {
        let mut sizes = sizes_of(backend);
        sizes.sort_unstable();
        sizes.dedup();
        for &eval in evals {
            for &ll_bytes in &sizes {
                if Geometry::with_last_level(ll_bytes).is_some() {
                    cells.push(Cell {
                        backend,
                        eval,
                        ll_bytes,
                    });
                }
            }
        }
    }
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn e13_sweep_doubles_and_places_the_measured_levels() {
        let plain = last_level_sweep(&[]);
        assert_eq!(plain.len(), 6);
        assert_eq!(plain.first(), Some(&(128 << 10)));
        assert_eq!(plain.last(), Some(&(32 << 20)));
        // A measured 5.66 MiB effective L3 becomes 5 MiB, a measured 1.8 MiB L2 1.75 MiB; a
        // listed 12 MiB L3 and a 3 MiB one stay as they are (24-way), a 4 MiB one is a point.
        assert_eq!(sweep_point(5_934_940), Some(5 << 20));
        assert_eq!(sweep_point(1_887_437), Some(7 << 18));
        assert_eq!(sweep_point(12 << 20), Some(12 << 20));
        assert_eq!(sweep_point(100), None);
        let measured = last_level_sweep(&[5_934_940, 1_887_437, 12 << 20, 3 << 20, 4 << 20]);
        assert_eq!(measured.len(), 11, "{measured:?}");
        assert!(measured.contains(&(3 << 20)) && measured.contains(&(5 << 20)));
        assert!(measured.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn e13_cells_cover_the_grid() {
        let full = cells(false, &[], None, None);
        // Without measured levels: the pair at the six sizes, mailbox at the smallest.
        assert_eq!(full.len(), (2 * 6 + 1) * 3);
        assert!(full
            .iter()
            .any(|c| c.backend == "mailbox" && c.eval == EvalKind::Kpp));
        let (l2, l3) = (1 << 20, 5_934_940);
        let measured = cells(false, &[l2, l3], Some(l2), Some(l3));
        // The pair at seven sizes (5 MiB joins), mailbox at two, bonanza, magic and pext at two.
        assert_eq!(measured.len(), (2 * 7 + 2 + 3 * 2) * 3);
        assert!(measured
            .iter()
            .any(|c| c.backend == "pext" && c.ll_bytes == 5 << 20));
        let quick = cells(true, &[6 << 20], None, Some(6 << 20));
        assert_eq!(quick.len(), 3 * 2 * 3);
        assert_eq!(quick_sizes(Some(6 << 20)), [256 << 10, 1 << 20, 6 << 20]);
        assert_eq!(quick_sizes(None), QUICK_LAST_LEVELS);
        assert!(quick.iter().all(|c| c.eval != EvalKind::Kpp));
    }
}
