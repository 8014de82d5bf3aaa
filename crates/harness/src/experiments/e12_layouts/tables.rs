//! E12's tables, series and per-family plots: the pairs' readings, every entry's own figures.

use super::analysis::{differences, family, ratio_text, Cost, Numbers};
use super::measure::{Entry, LookupInput, Measurement};
use crate::bench::TablePlacement;
use crate::experiments::e11_search::TablePages;
use crate::experiments::{interval, interval_linear, interval_point, series};
use crate::results::{Plot, PlotKind, PlotLine, Series, Table};
use crate::stats::{format_interval, Estimate};
use kiki_core::units::rounded_bytes;

pub(super) fn pairs_table(numbers: &Numbers) -> Table {
    let mut rows = Vec::new();
    for pair in &numbers.pairs {
        let mut row = vec![
            format!("{} vs {}", pair.variant, pair.base),
            pair.factor.name().to_string(),
            format!(
                "{} → {}",
                rounded_bytes(pair.table_bytes[0] as f64),
                rounded_bytes(pair.table_bytes[1] as f64)
            ),
        ];
        row.extend(
            Cost::ALL
                .iter()
                .map(|&c| ratio_text(pair.cost(c), numbers.reading(pair, c), numbers.threshold)),
        );
        // The other lookup inputs are withheld with the headline's lookups.
        let judged = numbers.withheld(pair, Cost::Lookup).is_none();
        row.extend(pair.lookup_by_mode.iter().map(|(_, r)| {
            let reading = r.map(|r| r.reading(numbers.threshold, judged));
            ratio_text(*r, reading, numbers.threshold)
        }));
        rows.push(row);
    }
    let mut headers = vec![
        "pair (90 % intervals)".to_string(),
        "factor".to_string(),
        // Every table the backend owns (`Backend::tables`, as `kiki backends` prints them);
        // the entries table's page column counts the attack tables alone.
        "table bytes (every table)".to_string(),
        "lookup (throughput, random-play)".to_string(),
        "table miss (top pressure)".to_string(),
        "search (nnue, ns/node)".to_string(),
    ];
    headers.extend(
        LookupInput::ALL[1..]
            .iter()
            .map(|i| format!("lookup ({})", i.name())),
    );
    Table { headers, rows }
}

/// Every timed entry's own figures: ns per lookup, the table-miss cost, ns per node, and how
/// many of its attack-table bytes (`Backend::attack_table_memory`: the tables in the table
/// arena, which move between the pages; not the per-square masks, shifts and step tables that
/// the pairs table's every-table bytes also count) sat on 2 MiB pages, as the page scan read.
pub(super) fn entries_table(m: &Measurement, k: usize) -> Table {
    let mut rows = Vec::new();
    let mut entries: Vec<(TablePages, Entry)> = m
        .search
        .iter()
        .map(|r| (r.pages, (r.backend, r.twin)))
        .collect();
    for r in &m.lookup {
        if !entries.contains(&(r.pages, (r.backend, r.twin))) {
            entries.push((r.pages, (r.backend, r.twin)));
        }
    }
    for (pages, entry) in entries {
        let text = |e: Option<Estimate>| e.map_or("—".to_string(), |e| format_interval(&e));
        let lookup = m
            .lookup(LookupInput::ThroughputRandomPlay, pages, entry)
            .map(|s| interval(s, k));
        let miss = m
            .chain(pages, entry)
            .map(|c| interval_linear(&differences(&c.full, &c.hot), k));
        let search = m.search(pages, entry).map(|s| interval(s, k));
        let placed: Vec<&TablePlacement> = m
            .placements
            .iter()
            .filter(|(n, p, _)| n == entry.0 && *p == pages)
            .map(|(_, _, placed)| placed)
            .collect();
        let huge: Option<Vec<usize>> = placed.iter().map(|p| p.huge_after).collect();
        let placed = match (placed.first(), huge) {
            (None, _) => "—".to_string(),
            (Some(_), None) => "not known".to_string(),
            (Some(first), Some(huge)) => {
                let (low, high) = (huge.iter().min(), huge.iter().max());
                let range = match (low, high) {
                    (Some(l), Some(h)) if l != h => {
                        format!("{}–{}", rounded_bytes(*l as f64), rounded_bytes(*h as f64))
                    }
                    (Some(l), _) => rounded_bytes(*l as f64),
                    _ => "—".to_string(),
                };
                let all = every_table_bytes(m, entry.0)
                    .filter(|&all| all != first.table_bytes)
                    .map_or(String::new(), |all| {
                        format!(" ({} with every table)", rounded_bytes(all as f64))
                    });
                format!(
                    "{range} of {}{all}",
                    rounded_bytes(first.table_bytes as f64)
                )
            }
        };
        rows.push(vec![
            entry_name(entry),
            pages.name().to_string(),
            placed,
            text(lookup),
            text(miss),
            text(search),
        ]);
    }
    Table {
        headers: vec![
            "backend".to_string(),
            "table pages".to_string(),
            "attack-table bytes on 2 MiB pages".to_string(),
            "ns/lookup".to_string(),
            "table miss, ns/lookup".to_string(),
            "ns/node".to_string(),
        ],
        rows,
    }
}

/// `name`'s bytes of every table it owns, as the pairs record them (`Backend::tables`).
fn every_table_bytes(m: &Measurement, name: &str) -> Option<usize> {
    m.pairs.iter().find_map(|p| {
        if p.variant == name {
            Some(p.table_bytes[1])
        } else {
            (p.base == name).then_some(p.table_bytes[0])
        }
    })
}

pub(super) fn entry_name((name, twin): Entry) -> String {
    if twin {
        format!("{name} (A/A twin)")
    } else {
        name.to_string()
    }
}

pub(super) fn all_series(m: &Measurement) -> Vec<Series> {
    let mut out = Vec::new();
    for r in &m.lookup {
        let name = entry_name((r.backend, r.twin));
        out.push(series(
            &[
                ("backend", &name),
                ("table_pages", r.pages.name()),
                ("input", r.input.name()),
            ],
            "ns/lookup",
            r.ns.clone(),
        ));
    }
    for r in &m.chains {
        let name = entry_name((r.backend, r.twin));
        for (mask, samples) in [("full", &r.full), ("hot twin", &r.hot)] {
            out.push(series(
                &[
                    ("backend", &name),
                    ("table_pages", r.pages.name()),
                    ("chain", mask),
                ],
                "ns/lookup",
                samples.clone(),
            ));
        }
    }
    for r in &m.search {
        let name = entry_name((r.backend, r.twin));
        let mut labels = vec![("backend", name.as_str()), ("table_pages", r.pages.name())];
        if r.page_block {
            // The 2 MiB phase's page block, the page pairs' own (the 4 KiB phase's block's twin).
            labels.push(("block", "page pairs"));
        }
        out.push(series(&labels, "ns/node", r.ns_per_node.clone()));
    }
    out
}

/// Per family: ns per lookup and ns per node against table bytes, one labelled point per
/// member (tables on 2 MiB pages).
pub(super) fn family_plots(m: &Measurement, k: usize) -> Vec<Plot> {
    let mut plots = Vec::new();
    for base in m.bases() {
        for (cost, unit) in [
            (Cost::Lookup, "ns per lookup"),
            (Cost::Search, "ns per node"),
        ] {
            let lines: Vec<PlotLine> = family(m, base)
                .into_iter()
                .filter_map(|(name, bytes)| {
                    let entry = (name, false);
                    let samples = match cost {
                        Cost::Search => m.search(TablePages::Huge, entry)?,
                        _ => {
                            m.lookup(LookupInput::ThroughputRandomPlay, TablePages::Huge, entry)?
                        }
                    };
                    Some(PlotLine {
                        name: name.to_string(),
                        points: vec![interval_point(bytes as f64, &interval(samples, k))],
                    })
                })
                .collect();
            if lines.is_empty() {
                continue;
            }
            plots.push(Plot {
                file_stem: format!("e12_{}_{base}", cost.name()),
                title: format!("E12 {base}: {unit} against table bytes (2 MiB pages)"),
                x_label: "table bytes".to_string(),
                y_label: unit.to_string(),
                log_x: true,
                log_y: false,
                kind: PlotKind::Line,
                categories: Vec::new(),
                markers: Vec::new(),
                lines,
            });
        }
    }
    plots
}
