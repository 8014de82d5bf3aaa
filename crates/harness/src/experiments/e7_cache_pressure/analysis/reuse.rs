//! The reuse analysis: each backend's attack-table reads along the walk with no pressure, their
//! LRU stack distances and what they give an LRU cache of any size; its series, table, plot,
//! summary value and sentence. Nothing here is timed, so it reads the measurement directly.

use super::{level_markers, per_lookup};
use crate::experiments::e7_cache_pressure::measure::Measurement;
use crate::experiments::{and_list, series};
use crate::results::{Plot, PlotKind, PlotLine, Point, Series, Table};
use kiki_core::units::rounded_bytes;
use serde_json::{json, Map, Value as Json};

/// The cache sizes the reuse table reads the misses per lookup at: each measured level, and the
/// 2008-class caches seed 004 had in mind (E8's: 4 and 12 MiB).
fn sizes(m: &Measurement) -> Vec<(String, usize)> {
    let mut sizes: Vec<(String, usize)> = m
        .levels
        .levels
        .iter()
        .map(|l| {
            let (bytes, lru) = (rounded_bytes(l.bytes as f64), lru_bytes(l.bytes) as f64);
            (
                format!("{} {bytes} (as {})", l.level, rounded_bytes(lru)),
                l.bytes,
            )
        })
        .collect();
    sizes.push(("2008 LL 4 MiB".into(), 4 << 20));
    sizes.push(("2008 LL 12 MiB (as 8 MiB)".into(), 12 << 20));
    sizes
}

/// The LRU size misses are read at: `bytes` rounded down to 64 × 2^j (see `Reuse`).
fn lru_bytes(bytes: usize) -> usize {
    let lines = (bytes / 64).max(1);
    64 << (usize::BITS - 1 - lines.leading_zeros())
}

/// Per backend, the stack-distance histogram (bucket k: distances below 2^k lines), then the
/// cold reads: not timed.
pub fn raw_series(m: &Measurement) -> Vec<Series> {
    m.reuse
        .iter()
        .map(|r| {
            let mut counts: Vec<f64> = r.buckets.iter().map(|&c| c as f64).collect();
            counts.push(r.cold as f64);
            series(
                &[("part", "reuse"), ("case", r.backend)],
                "table reads per stack-distance bucket",
                counts,
            )
        })
        .collect()
}

pub fn plot(m: &Measurement) -> Option<Plot> {
    if m.reuse.is_empty() {
        return None;
    }
    let sizes: Vec<usize> = (9..=26).map(|j| 64usize << j).collect();
    Some(Plot {
        file_stem: "e7_reuse".into(),
        title: "Table lines' reuse along the search-order walk: an LRU cache's misses per lookup"
            .into(),
        x_label: "fully associative LRU cache size".into(),
        y_label: "table-line misses per lookup".into(),
        log_x: true,
        log_y: false,
        kind: PlotKind::Line,
        categories: Vec::new(),
        markers: level_markers(m),
        lines: m
            .reuse
            .iter()
            .map(|r| PlotLine {
                name: r.backend.to_string(),
                points: sizes
                    .iter()
                    .map(|&bytes| {
                        let y = r.misses_per_lookup(bytes);
                        Point {
                            x: bytes as f64,
                            y,
                            y_low: y,
                            y_high: y,
                        }
                    })
                    .collect(),
            })
            .collect(),
    })
}

pub fn table(m: &Measurement) -> Option<Table> {
    if m.reuse.is_empty() {
        return None;
    }
    let sizes = sizes(m);
    let mut reuse = Table {
        headers: vec![
            "backend".into(),
            "lookups".into(),
            "table reads".into(),
            "distinct lines".into(),
            "cold misses per lookup".into(),
        ],
        rows: Vec::new(),
    };
    reuse.headers.extend(
        sizes
            .iter()
            .map(|(label, _)| format!("misses per lookup, {label}")),
    );
    for r in &m.reuse {
        let mut row = vec![
            r.backend.to_string(),
            r.lookups.to_string(),
            r.reads.to_string(),
            format!(
                "{} ({})",
                r.distinct_lines,
                rounded_bytes(r.distinct_lines as f64 * 64.0)
            ),
            per_lookup(r.cold_per_lookup()),
        ];
        row.extend(
            sizes
                .iter()
                .map(|(_, bytes)| per_lookup(r.misses_per_lookup(*bytes))),
        );
        reuse.rows.push(row);
    }
    Some(reuse)
}

/// Misses per lookup keyed by the LRU size they are read at ("4 MiB"); two sizes rounding down
/// to the same LRU size give the same value.
pub fn summary(m: &Measurement) -> Json {
    let mut reuse = Map::new();
    for r in &m.reuse {
        let per_size: Map<String, Json> = sizes(m)
            .iter()
            .map(|(_, bytes)| {
                (
                    rounded_bytes(lru_bytes(*bytes) as f64),
                    json!(r.misses_per_lookup(*bytes)),
                )
            })
            .collect();
        reuse.insert(
            r.backend.to_string(),
            json!({
                "lookups": r.lookups,
                "reads": r.reads,
                "distinct_lines": r.distinct_lines,
                "cold": r.cold,
                "misses_per_lookup": per_size,
            }),
        );
    }
    Json::Object(reuse)
}

/// The tables' distinct lines and an LRU cache's misses at the measured last level's size.
pub fn sentence(m: &Measurement) -> Option<String> {
    let last_level = m.levels.levels.last()?;
    let described: Vec<String> = m
        .reuse
        .iter()
        .map(|r| {
            format!(
                "{} {} ({}; {} misses per lookup, {} of them cold)",
                r.backend,
                r.distinct_lines,
                rounded_bytes(r.distinct_lines as f64 * 64.0),
                per_lookup(r.misses_per_lookup(last_level.bytes)),
                per_lookup(r.cold_per_lookup())
            )
        })
        .collect();
    if described.is_empty() {
        return None;
    }
    Some(format!(
        "Along the walk, with no pressure at all, the tables' distinct lines and the table-line \
         misses per lookup of a fully associative LRU cache the size of the measured {} ({}, \
         read as {}): {}; the cold misses are the first reads of each line, which no cache size \
         removes.",
        last_level.level,
        rounded_bytes(last_level.bytes as f64),
        rounded_bytes(lru_bytes(last_level.bytes) as f64),
        and_list(&described)
    ))
}
