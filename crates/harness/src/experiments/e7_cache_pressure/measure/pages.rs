//! The table pages: the sweep's tables advised onto 4 KiB pages, and the table-page split (the
//! backends' tables on 4 KiB pages, then collapsed to huge pages).

use super::chains::{synthetic_chain, time_into, twin_cases};
use super::ring::SyntheticTable;
use super::timing::{Walk, Warming};
use super::{attack_table_bytes, Measurement, Steps};
use crate::workloads::SearchWorkload;
use kiki_core::pages::{PageBuffer, Pages};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct TablePages {
    #[serde(with = "crate::invocations::static_str")]
    pub backend: crate::invocations::StaticStr,
    pub table_bytes: usize,
    pub huge_before: Option<usize>,
    pub huge_after: Option<usize>,
    pub collapse: Result<(), String>,
}

/// The page split's phase-order control: its case name.
pub(crate) const PHASE_CONTROL: &str = "synthetic (4 KiB pages in both phases)";

/// The phase-order control's table: a synthetic table on 4 KiB pages in both phases of the
/// split, read by the same chain in each, so that its change between the phases is the phase
/// order's (drift, warm-up), none of it the pages'.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct PhaseControl {
    pub bytes: usize,
    /// Its huge-page bytes after the second phase (merged: the most of any invocation): 0 where
    /// it stayed on 4 KiB pages as meant.
    pub huge_after: Option<usize>,
}

/// The phase control's size: the largest positive control below the pressure buffer. At the
/// top pressure its reads miss far beyond L2 (about 86 ns a read for half L2 on a Zen 4 VM): a
/// noisy control, which seldom shows the phase order level.
fn phase_control_bytes(m: &Measurement) -> Option<usize> {
    m.synthetic
        .iter()
        .filter(|(label, _)| label != super::ONE_PAGE)
        .map(|&(_, bytes)| bytes)
        .filter(|&bytes| bytes < m.pressure_bytes)
        .max()
}

/// Every measured backend with attack tables advised onto 4 KiB pages before the sweep (the
/// verdict says which pages it is for on any THP setting), and what the kernel then had.
pub(super) fn on_small_pages(backends: &[&'static str]) -> Vec<TablePages> {
    backends
        .iter()
        .copied()
        .filter(|&name| attack_table_bytes(name) > 0)
        .filter_map(|name| {
            let placed = crate::bench::place_tables(name, Pages::Small).ok()?;
            Some(TablePages {
                backend: name,
                table_bytes: placed.table_bytes,
                huge_before: placed.huge_before,
                huge_after: placed.huge_after,
                collapse: placed.outcome,
            })
        })
        .collect()
}

/// Every backend with attack tables (real and hot twin) at the highest pressure, its tables on
/// 4 KiB pages (as advised before the sweep), then collapsed into 2 MiB pages (`MADV_COLLAPSE`;
/// checked by the kernel's page scan), each against pressure on 4 KiB and on huge pages. Last,
/// because a collapse cannot be undone in this process.
pub(super) fn table_pages(
    m: &mut Measurement,
    workload: &SearchWorkload,
    pressure_huge: &PageBuffer,
    steps: &mut Steps<'_>,
) {
    let with_tables: Vec<&'static str> = m
        .backends
        .iter()
        .copied()
        .filter(|&name| attack_table_bytes(name) > 0)
        .collect();
    if with_tables.is_empty() {
        m.notes
            .push("table-page split skipped: no measured backend has attack tables".into());
        steps.done += 1;
        return;
    }
    let reads = m.pressure_reads.last().copied().unwrap_or(0).max(1);
    let small_pressure = PageBuffer::new(m.pressure_bytes, Pages::Small, |i| i as u64);
    let control = phase_control_bytes(m).map(|bytes| SyntheticTable::new(bytes, Pages::Small));
    // One window for all four variants: round r walks the same nodes in each.
    let mut window = None;
    for (phase, tables) in [(0, "4k"), (1, "huge")] {
        if phase == 1 {
            for &name in &with_tables {
                let (before, after, collapse) = collapse(name);
                m.table_pages.push(TablePages {
                    backend: name,
                    table_bytes: attack_table_bytes(name),
                    huge_before: before,
                    huge_after: after,
                    collapse,
                });
            }
        }
        for (pressure_pages, buffer) in [("4k", &small_pressure), ("huge", pressure_huge)] {
            // Every backend visits (its attack tables were counted): stream i is backend i's.
            let mut cases = twin_cases(&with_tables, (workload, buffer.as_slice()), reads);
            if let Some(table) = &control {
                let walk = Walk {
                    workload,
                    pressure: buffer.as_slice(),
                    reads,
                    stream: with_tables.len() as u64,
                };
                cases.push(synthetic_chain(PHASE_CONTROL.into(), table, walk));
            }
            let message = format!("tables on {tables} pages, pressure on {pressure_pages} pages");
            let label = format!("pages: tables {tables}, pressure {pressure_pages}");
            time_into(
                m,
                (workload, &mut cases, &mut window),
                (Warming::Before, &label),
                ("pages", reads, (tables, pressure_pages)),
                &mut |f| steps.report(&message, f),
            );
        }
    }
    m.phase_control = control.map(|table| PhaseControl {
        bytes: table.buffer.as_slice().len() * 8,
        huge_after: table.huge_page_bytes(),
    });
    steps.done += 1;
}

/// [`collapse_tables`], the reason a kernel refused said on this process's standard error
/// only (the measurement names the refusal alone, the same in every invocation).
fn collapse(name: &str) -> (Option<usize>, Option<usize>, Result<(), String>) {
    let (before, after, outcome) = collapse_tables(name);
    let outcome = outcome.map_err(|why| {
        eprintln!("kiki: E7: {name}'s tables not collapsed to huge pages: {why}");
        "the kernel refused MADV_COLLAPSE for some of them".to_string()
    });
    (before, after, outcome)
}

/// Collapses `name`'s attack tables into huge pages: the huge-page bytes before and after, and
/// whether the kernel agreed.
fn collapse_tables(name: &str) -> (Option<usize>, Option<usize>, Result<(), String>) {
    match crate::bench::place_tables(name, Pages::Huge) {
        Ok(placed) => (placed.huge_before, placed.huge_after, placed.outcome),
        Err(_) => (None, None, Err("unavailable".into())),
    }
}
