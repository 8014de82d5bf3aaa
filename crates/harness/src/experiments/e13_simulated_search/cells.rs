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

/// The smallest and the largest last level of the full sweep, which doubles between them.
pub const SWEEP_SMALLEST: usize = 128 << 10;
pub const SWEEP_LARGEST: usize = 32 << 20;

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

/// The full sweep's last levels: every doubling from [`SWEEP_SMALLEST`] to [`SWEEP_LARGEST`],
/// and each of `measured` (E6's effective L2 and L3, sysfs' L3) as a [`sweep_point`], so that
/// the measured levels are points of the curve; smallest first, each once.
pub fn last_level_sweep(measured: &[usize]) -> Vec<usize> {
    let mut sizes: Vec<usize> = std::iter::successors(Some(SWEEP_SMALLEST), |&s| Some(2 * s))
        .take_while(|&s| s <= SWEEP_LARGEST)
        .collect();
    sizes.extend(measured.iter().filter_map(|&bytes| sweep_point(bytes)));
    sizes.sort_unstable();
    sizes.dedup();
    sizes
}

/// Every cell of a run, backend-major: the full grid over [`BACKENDS`], every evaluation and
/// [`last_level_sweep`], or the quick one; sizes valgrind has no geometry for are left out.
pub fn cells(quick: bool, measured: &[usize]) -> Vec<Cell> {
    let (backends, evals, sizes): (&[&'static str], &[EvalKind], Vec<usize>) = if quick {
        (&QUICK_BACKENDS, &QUICK_EVALS, QUICK_LAST_LEVELS.to_vec())
    } else {
        (&BACKENDS, &EvalKind::ALL, last_level_sweep(measured))
    };
    let mut cells = Vec::new();
    for &backend in backends {
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
        assert_eq!(plain.len(), 9);
        assert_eq!(plain.first(), Some(&(128 << 10)));
        assert_eq!(plain.last(), Some(&(32 << 20)));
        // A measured 5.66 MiB effective L3 becomes 5 MiB, a measured 1.8 MiB L2 1.75 MiB; a
        // listed 12 MiB L3 and a 3 MiB one stay as they are (24-way), a 4 MiB one is a point.
        assert_eq!(sweep_point(5_934_940), Some(5 << 20));
        assert_eq!(sweep_point(1_887_437), Some(7 << 18));
        assert_eq!(sweep_point(12 << 20), Some(12 << 20));
        assert_eq!(sweep_point(100), None);
        let measured = last_level_sweep(&[5_934_940, 1_887_437, 12 << 20, 3 << 20, 4 << 20]);
        assert_eq!(measured.len(), 13, "{measured:?}");
        assert!(measured.contains(&(3 << 20)) && measured.contains(&(5 << 20)));
        assert!(measured.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn e13_cells_cover_the_grid() {
        let full = cells(false, &[]);
        assert_eq!(full.len(), 6 * 3 * 9);
        assert!(full
            .iter()
            .any(|c| c.backend == "mailbox" && c.eval == EvalKind::Kpp));
        let quick = cells(true, &[6 << 20]);
        assert_eq!(quick.len(), 3 * 2 * 3);
        assert!(quick.iter().all(|c| c.eval != EvalKind::Kpp));
    }
}
