//! E12's page pairs: a base's 2 MiB phase against its 4 KiB phase in one process, per cost,
//! pooled over the processes with each one's phase order (`readings::page_ratio90`), and the
//! drift between the phases that the phase order's control reads.

use super::analysis::{differences, per_process, Compared, Cost};
use super::measure::{Entry, LookupInput, Measurement, SAME_PAGES};
use super::readings::{page_ratio90, Figure, Ratio90};
use crate::experiments::e11_search::TablePages;
use kiki_core::backend::LayoutFactor;

/// A figure per cost.
type PerCost = Vec<(Cost, Option<Ratio90>)>;

/// A base's tables on 2 MiB pages against 4 KiB (`BASE@2m`, factor `pages`).
pub(super) fn page_pair(m: &Measurement, base: &'static str) -> Compared {
    let bytes = m
        .pairs
        .iter()
        .find(|p| p.base == base)
        .map_or(0, |p| p.table_bytes[0]);
    let (costs, drift) = compare_pages(m, (base, false));
    let input = |input| cross(m, (input, base), Figure::TrimmedLogRatio);
    Compared {
        base: base.to_string(),
        variant: format!("{base}@2m"),
        factor: LayoutFactor::Pages,
        change: "tables on 2 MiB pages against 4 KiB pages".to_string(),
        table_bytes: [bytes, bytes],
        costs,
        lookup_by_mode: LookupInput::ALL[1..]
            .iter()
            .map(|&i| (i, input(Series::Lookup(i)).0))
            .collect(),
        pages_as_asked: m.collapsed(base),
        phase: TablePages::Huge,
        lookup_pages: m.pages_in(base, TablePages::Huge),
        drift,
        small_as_asked: back_on_small_pages(m, base),
    }
}

/// Which series of an entry a page pair compares across the phases.
#[derive(Clone, Copy)]
enum Series {
    Lookup(LookupInput),
    TableMiss,
    Search,
}

/// An entry's series in one phase, as samples (table misses: full chain less hot twin).
fn series_of(m: &Measurement, series: Series, pages: TablePages, entry: Entry) -> Option<Vec<f64>> {
    match series {
        Series::Lookup(input) => m.lookup(input, pages, entry).map(<[f64]>::to_vec),
        Series::TableMiss => m.chain(pages, entry).map(|c| differences(&c.full, &c.hot)),
        Series::Search => m.page_search(pages, entry).map(<[f64]>::to_vec),
    }
}

/// A page pair's series, the 2 MiB phase over the 4 KiB one, with each process's phase order
/// (`readings::page_ratio90`): the page effect and the drift between the phases.
fn cross(
    m: &Measurement,
    (series, base): (Series, &'static str),
    figure: Figure,
) -> (Option<Ratio90>, Option<Ratio90>) {
    let k = m.invocations;
    let split = |pages| per_process(&series_of(m, series, pages, (base, false))?, k);
    match (split(TablePages::Huge), split(TablePages::Small)) {
        (Some(huge), Some(small)) => page_ratio90(&huge, &small, figure, &m.process_orders()),
        _ => (None, None),
    }
}

/// A base's page pair per cost, and per cost its drift between the phases.
fn compare_pages(m: &Measurement, entry: Entry) -> (PerCost, PerCost) {
    let headline = Series::Lookup(LookupInput::ThroughputRandomPlay);
    [
        (Cost::Lookup, headline, Figure::TrimmedLogRatio),
        (Cost::TableMiss, Series::TableMiss, Figure::RatioOfMeans),
        (Cost::Search, Series::Search, Figure::MeanLogRatio),
    ]
    .into_iter()
    .map(|(cost, series, figure)| {
        let (effect, drift) = cross(m, (series, entry.0), figure);
        ((cost, effect), (cost, drift))
    })
    .unzip()
}

/// Whether `name`'s tables were on 4 KiB pages in the 4 KiB phase of every process (at most
/// [`SAME_PAGES`] of their bytes on 2 MiB pages); `None` where some process could not tell.
fn back_on_small_pages(m: &Measurement, name: &str) -> Option<bool> {
    let shares: Option<Vec<f64>> = m
        .placements
        .iter()
        .filter(|(n, pages, _)| n == name && *pages == TablePages::Small)
        .map(|(_, _, placed)| Some(placed.huge_after? as f64 / placed.table_bytes.max(1) as f64))
        .collect();
    shares
        .filter(|s| !s.is_empty())
        .map(|s| s.iter().all(|&share| share <= SAME_PAGES))
}

#[cfg(test)]
mod tests {
    use super::super::analysis::{analyse, tests::measured};
    use super::super::measure::{LookupRow, SearchRow};
    use super::super::phases::PhaseOrder;
    use super::*;

    /// Four processes, the phase order alternating, every series drifting 2 % per round slot
    /// within a process: `dbb`'s tables ×0.8 on 2 MiB pages, the control family's unchanged.
    /// Lookups (3 rounds a phase) and the search (2 rounds on 4 KiB pages, 4 on 2 MiB, so the
    /// 2 MiB side's rounds nearest the 4 KiB phase pair up) read the page effect alone, and
    /// the control its drift, later phase over earlier; the summary records the orders.
    #[test]
    fn the_page_pairs_pair_the_phases_whichever_order_a_process_ran() {
        let orders = [
            PhaseOrder::SmallFirst,
            PhaseOrder::HugeFirst,
            PhaseOrder::SmallFirst,
            PhaseOrder::HugeFirst,
        ];
        let drift = 0.02;
        // Zero-sum within each order, so that each order's mean is the effect exactly.
        let spread = [0.01, 0.005, -0.01, -0.005];
        let series = |name: &str, pages: TablePages, rounds: [usize; 2]| -> Vec<f64> {
            let mut out = Vec::new();
            for (i, order) in orders.iter().enumerate() {
                let first = order.phases()[0] == pages;
                let before = if first {
                    0
                } else {
                    rounds[order.phases()[0] as usize]
                };
                let effect = match (name, pages) {
                    ("dbb", TablePages::Huge) => 0.8f64.ln() + spread[i],
                    (_, TablePages::Huge) => spread[i] / 2.0,
                    _ => 0.0,
                };
                let n = rounds[pages as usize];
                out.extend(
                    (0..n)
                        .map(|r| (10.0 + i as f64) * (effect + drift * (before + r) as f64).exp()),
                );
            }
            out
        };
        let mut m = measured();
        m.invocations = orders.len();
        m.phase_orders = orders.to_vec();
        for row in &mut m.lookup {
            row.ns = series(row.backend, row.pages, [3, 3]);
        }
        m.lookup
            .retain(|r: &LookupRow| ["dbb", "bonanza"].contains(&r.backend));
        for backend in ["dbb", "bonanza"] {
            for pages in [TablePages::Small, TablePages::Huge] {
                m.search.push(SearchRow {
                    pages,
                    backend,
                    twin: false,
                    ns_per_node: series(backend, pages, [2, 4]),
                    page_block: false,
                });
            }
        }
        let numbers = analyse(&m).numbers;
        let pair = |v: &str| numbers.pairs.iter().find(|p| p.variant == v).unwrap();
        for cost in [Cost::Lookup, Cost::Search] {
            let effect = pair("dbb@2m").cost(cost).expect("dbb's page pair");
            assert!(
                (effect.log - 0.8f64.ln()).abs() < 1e-12,
                "{cost:?} {effect:?}"
            );
            let control = pair("bonanza@2m").cost(cost).expect("the control");
            assert!(control.log.abs() < 1e-12, "{cost:?} {control:?}");
            let slots = if cost == Cost::Lookup { 3.0 } else { 2.0 };
            let (_, read) = numbers.phase_drift(cost).expect("the control's drift");
            assert!(
                (read.log - drift * slots).abs() < 1e-12,
                "{cost:?} {read:?}"
            );
        }
        assert_eq!(numbers.phase_control(Cost::Lookup), Some(true));
        let controls = super::super::controls_json(&m, &numbers);
        assert_eq!(
            controls["phase_orders"],
            serde_json::json!(["4k first", "2m first", "4k first", "2m first"])
        );
        assert!(
            controls["phase_drift"]["lookup"]["drift"]["ratio"]
                .as_f64()
                .unwrap()
                > 1.05
        );
    }

    /// The page pairs read the 2 MiB phase's page block, the same bases for the same rounds as
    /// the 4 KiB phase's block: a variants' block that holds more entries and runs 8 % slower
    /// as a whole (the 2026-12-02 report's control read 5–9 %) moves neither the page pair nor
    /// the control; a report without the page block (before it) reads the variants' block.
    #[test]
    fn a_phase_with_more_entries_leaves_the_page_pairs_alone() {
        let with = |content: f64, page_block: bool| {
            let mut m = measured();
            m.invocations = 2;
            m.phase_orders = vec![PhaseOrder::SmallFirst, PhaseOrder::HugeFirst];
            m.lookup.clear();
            for (backend, effect) in [("dbb", 0.8f64), ("bonanza", 1.0)] {
                let small = vec![10.0, 10.4, 12.0, 12.2];
                let huge: Vec<f64> = small.iter().map(|x| x * effect).collect();
                let row = |pages, ns_per_node, page_block| SearchRow {
                    pages,
                    backend,
                    twin: false,
                    ns_per_node,
                    page_block,
                };
                let variants: Vec<f64> = [&huge[..2], &huge[..2], &huge[2..], &huge[2..]]
                    .concat()
                    .iter()
                    .map(|x| x * content)
                    .collect();
                m.search.push(row(TablePages::Small, small, false));
                m.search.push(row(TablePages::Huge, variants, false));
                if page_block {
                    m.search.push(row(TablePages::Huge, huge, true));
                }
            }
            let numbers = analyse(&m).numbers;
            let read = |v: &str| {
                let pair = numbers.pairs.iter().find(|p| p.variant == v).unwrap();
                pair.cost(Cost::Search).expect("a page pair").log
            };
            (read("dbb@2m"), read("bonanza@2m"))
        };
        for content in [1.0, 1.08] {
            let (dbb, control) = with(content, true);
            assert!((dbb - 0.8f64.ln()).abs() < 1e-12, "{content}: {dbb}");
            assert!(control.abs() < 1e-12, "{content}: {control}");
        }
        let (dbb, control) = with(1.08, false);
        assert!((dbb - (0.8f64 * 1.08).ln()).abs() < 1e-12, "{dbb}");
        assert!((control - 1.08f64.ln()).abs() < 1e-12, "{control}");
    }
}
