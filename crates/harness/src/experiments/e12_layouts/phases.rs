//! E12's page phases: which family stays on 4 KiB pages as the phase order's control, the
//! order each process runs the two phases in (alternating, so that a drift within a process
//! cancels in the page pairs), the way back from 2 MiB to 4 KiB pages for a process that runs
//! the 2 MiB phase first, and how a page pair's rounds are paired across the phases.

use crate::experiments::e11_search::TablePages;
use crate::invocations::Invocation;
use crate::registry;
use kiki_core::backend::Backend;
use kiki_core::pages::Pages;
use kiki_variants::registry::BackendVisitor;
use serde::{Deserialize, Serialize};

/// The family (a base and its layout variants) kept on 4 KiB pages in both phases, as the
/// page phases' control. Its tables are the smallest (421 KiB), so it loses the least by not
/// having a page pair; the table arena gives each family chunks of its own, so collapsing the
/// others moves none of its pages. Before 2026-11-29 the control was whichever bases had no
/// whole 2 MiB page inside a table (bonanza's, and in some processes dbb's).
pub(super) const PHASE_CONTROL_FAMILY: &str = "bonanza";

/// Whether `name` is the control family's base or one of its variants.
pub(super) fn in_phase_control(name: &str) -> bool {
    name.strip_prefix(PHASE_CONTROL_FAMILY)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}

pub(super) fn pages_of(pages: TablePages) -> Pages {
    match pages {
        TablePages::Small => Pages::Small,
        TablePages::Huge => Pages::Huge,
    }
}

/// The order one process ran the two page phases in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum PhaseOrder {
    /// The 4 KiB phase first (every process before 2026-12-02).
    #[serde(rename = "4k first")]
    SmallFirst,
    /// The 2 MiB phase first, then the tables split back onto 4 KiB mappings ([`split`]).
    #[serde(rename = "2m first")]
    HugeFirst,
}

impl PhaseOrder {
    /// Alternating by process: even invocations (from 0) run the 4 KiB phase first, odd ones
    /// the 2 MiB phase, so that with K processes ⌈K/2⌉ run one order and ⌊K/2⌋ the other.
    pub fn of(invocation: Invocation) -> PhaseOrder {
        if invocation.index.is_multiple_of(2) {
            PhaseOrder::SmallFirst
        } else {
            PhaseOrder::HugeFirst
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            PhaseOrder::SmallFirst => "4k first",
            PhaseOrder::HugeFirst => "2m first",
        }
    }

    /// The phases in the order they run.
    pub fn phases(self) -> [TablePages; 2] {
        match self {
            PhaseOrder::SmallFirst => [TablePages::Small, TablePages::Huge],
            PhaseOrder::HugeFirst => [TablePages::Huge, TablePages::Small],
        }
    }

    /// +1 where the 2 MiB phase ran second (a page pair's ln(2m / 4k) then reads a drift
    /// within the process as it is), −1 where it ran first.
    pub fn sign(self) -> f64 {
        match self {
            PhaseOrder::SmallFirst => 1.0,
            PhaseOrder::HugeFirst => -1.0,
        }
    }
}

/// One process's rounds of a page pair, paired across the phases: the earlier phase's last
/// rounds with the later phase's first, as many as the shorter side has, so that the paired
/// rounds lie as close in time in either order (the search has 2 rounds on 4 KiB pages and
/// 4 on 2 MiB: the 4 KiB rounds pair with the 2 MiB phase's first two where it ran second,
/// with its last two where it ran first). `huge` and `small` as timed, round by round.
pub(super) fn paired_rounds(
    huge: &[f64],
    small: &[f64],
    order: PhaseOrder,
) -> (Vec<f64>, Vec<f64>) {
    let n = huge.len().min(small.len());
    let (huge, small) = match order {
        PhaseOrder::SmallFirst => (&huge[..n], &small[small.len() - n..]),
        PhaseOrder::HugeFirst => (&huge[huge.len() - n..], &small[..n]),
    };
    (huge.to_vec(), small.to_vec())
}

/// Splits the 2 MiB mappings of `name`'s attack tables back into 4 KiB ones, for a process
/// that ran the 2 MiB phase first: every 2 MiB page of the table arena that holds a byte of
/// them is advised `MADV_NOHUGEPAGE`, and a mapping boundary is made and unmade 4 KiB inside
/// each (`MADV_HUGEPAGE` on one 4 KiB page, then `MADV_NOHUGEPAGE` again), which splits the
/// huge page's mapping into 4 KiB entries, as the kernel splits a huge page that a mapping
/// boundary cuts; the advice keeps khugepaged from collapsing them again. The memory's
/// contents are unchanged; the pages stay physically contiguous (a CPU that coalesces
/// neighbouring 4 KiB translations may still see fewer of them than on pages faulted one by
/// one). `Err` says why not; the 4 KiB phase's page scan says where the tables ended up.
pub(super) fn split(name: &str) -> Result<(), String> {
    struct Split;
    impl BackendVisitor for Split {
        type Output = Result<(), String>;
        fn visit<B: Backend>(self, backend: B) -> Result<(), String> {
            for table in backend.attack_table_memory() {
                if let Some((start, end)) = kiki_core::table_arena::huge_pages_around(table) {
                    // SAFETY: the range lies in an arena chunk, which is never freed.
                    unsafe { split_range(start, end)? };
                }
            }
            Ok(())
        }
    }
    registry::visit(name, Split).map_err(|e| e.to_string())?
}

const HUGE_PAGE: usize = 2 << 20;
const SMALL_PAGE: usize = 4096;

/// # Safety
/// `[start, end)` must be 2 MiB-aligned, allocated memory that stays allocated during the call.
unsafe fn split_range(start: usize, end: usize) -> Result<(), String> {
    #[cfg(target_os = "linux")]
    {
        let advise = |at: usize, len: usize, advice: libc::c_int| {
            // SAFETY: the caller's; neither advice changes the memory's contents.
            match unsafe { libc::madvise(at as *mut libc::c_void, len, advice) } {
                0 => Ok(()),
                _ => Err(format!("madvise: {}", std::io::Error::last_os_error())),
            }
        };
        advise(start, end - start, libc::MADV_NOHUGEPAGE)?;
        for page in (start..end).step_by(HUGE_PAGE) {
            advise(page + SMALL_PAGE, SMALL_PAGE, libc::MADV_HUGEPAGE)?;
            advise(page + SMALL_PAGE, SMALL_PAGE, libc::MADV_NOHUGEPAGE)?;
        }
        Ok(())
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (start, end, HUGE_PAGE, SMALL_PAGE);
        Err("splitting huge pages is a Linux feature".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_phase_control_is_one_family() {
        for name in ["bonanza", "bonanza.entry16", "bonanza.occ-major"] {
            assert!(in_phase_control(name), "{name}");
        }
        for name in ["bonanzas", "dbb", "dbb.computed", "magic-plain"] {
            assert!(!in_phase_control(name), "{name}");
        }
    }

    #[test]
    fn the_orders_alternate_and_pair_the_rounds_nearest_in_time() {
        let orders: Vec<PhaseOrder> = (0..5)
            .map(|i| PhaseOrder::of(Invocation::new(i, 5)))
            .collect();
        let huge_first = orders
            .iter()
            .filter(|o| **o == PhaseOrder::HugeFirst)
            .count();
        assert_eq!(huge_first, 2);
        assert_eq!(orders[0].phases(), [TablePages::Small, TablePages::Huge]);
        // The search: 4 rounds on 2 MiB pages, 2 on 4 KiB.
        let (huge, small) = ([1.0, 2.0, 3.0, 4.0], [5.0, 6.0]);
        assert_eq!(
            paired_rounds(&huge, &small, PhaseOrder::SmallFirst),
            (vec![1.0, 2.0], vec![5.0, 6.0])
        );
        assert_eq!(
            paired_rounds(&huge, &small, PhaseOrder::HugeFirst),
            (vec![3.0, 4.0], vec![5.0, 6.0])
        );
        // Lookups: as many rounds in both phases, paired round by round.
        assert_eq!(
            paired_rounds(&[1.0, 2.0], &[3.0, 4.0], PhaseOrder::HugeFirst),
            (vec![1.0, 2.0], vec![3.0, 4.0])
        );
    }

    /// A table collapsed onto 2 MiB pages goes back onto 4 KiB mappings, its contents kept
    /// (not checked where the kernel refuses the collapse or cannot say); a family of its own,
    /// so that no other test moves its pages meanwhile.
    #[test]
    fn a_collapsed_table_splits_back_onto_small_pages() {
        let table = kiki_core::table_arena::place_slice(
            "e12 split test",
            (0..3 << 20)
                .map(|i| i as u8)
                .collect::<Vec<u8>>()
                .into_boxed_slice(),
        );
        let moved = kiki_core::table_arena::collapse_to_huge_pages(table).is_ok()
            && kiki_core::pages::huge_page_bytes_of(table).is_some_and(|b| b > 0);
        let (start, end) = kiki_core::table_arena::huge_pages_around(table).expect("in the arena");
        // SAFETY: the range lies in an arena chunk, which is never freed.
        let outcome = unsafe { split_range(start, end) };
        if moved {
            outcome.expect("split");
            assert_eq!(kiki_core::pages::huge_page_bytes_of(table), Some(0));
        }
        assert!(table.iter().enumerate().all(|(i, &b)| b == i as u8));
    }
}
