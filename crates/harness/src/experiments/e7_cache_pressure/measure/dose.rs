//! The dose–response at the top pressure: each backend's table masked to footprints sized
//! from the measured levels.

use super::chains::time_into;
use super::timing::{mask_label, ChainCase, MakeChain, Warming};
use super::{attack_table_bytes, Measurement, Steps};
use crate::cache_levels::CacheLevels;
use crate::experiments::e7_cache_pressure::HOT_MASK;
use crate::registry;
use crate::workloads::SearchWorkload;

/// The dose–response footprints below the full table (byte masks): half the measured L2,
/// half the last level and twice the last level, each rounded down to a power of two (a mask
/// keeps whole low bits), above the hot twin's 4 KiB and without repeats.
pub(in super::super) fn dose_masks(levels: &CacheLevels) -> Vec<usize> {
    let l2 = levels.level("L2").map_or(256 << 10, |l| l.bytes);
    let last = levels.last_level_bytes();
    let mut masks: Vec<usize> = [l2 / 2, last / 2, 2 * last]
        .iter()
        .map(|&bytes| (1usize << (usize::BITS - 1 - bytes.max(1).leading_zeros())) - 1)
        .filter(|&mask| mask > HOT_MASK)
        .collect();
    masks.dedup();
    masks
}

/// The case name of `backend`'s dose–response point at `mask`.
pub(in super::super) fn dose_case(backend: &str, mask: usize) -> String {
    format!("{backend} @ {}", mask_label(mask))
}

/// The dose–response at the top pressure, full tables included, in one sweep of its own: a
/// case per backend and footprint (two masks in one case would share table lines).
pub(super) fn dose_sweep(
    m: &mut Measurement,
    workload: &SearchWorkload,
    pressure: &[u64],
    highest: u32,
    window: &mut Option<usize>,
    steps: &mut Steps<'_>,
) {
    let mut cases: Vec<ChainCase<'_>> = Vec::new();
    for name in &m.backends {
        let table = attack_table_bytes(name);
        let masks: Vec<usize> = m
            .dose_masks
            .iter()
            .copied()
            .filter(|&mask| mask + 1 < table)
            .collect();
        if masks.is_empty() {
            continue;
        }
        for mask in masks.into_iter().chain([usize::MAX]) {
            let made = MakeChain {
                workload,
                pressure,
                reads: highest,
                masks: vec![mask, HOT_MASK],
                stream: cases.len() as u64,
                labels: None,
            };
            if let Ok(mut made) = registry::visit_base(name, made) {
                made.case = dose_case(name, mask);
                cases.push(made);
            }
        }
    }
    if !cases.is_empty() {
        time_into(
            m,
            (workload, &mut cases, window),
            (Warming::Before, "dose"),
            ("dose", highest, ("as built", "huge")),
            &mut |f| steps.report("dose–response", f),
        );
    }
}
