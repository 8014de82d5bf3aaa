//! E6's analysis: series, the table, the plot and the latencies the findings quote.

use super::measure::Measurement;
use crate::harness::experiments::{interval, interval_point, series, Claims};
use crate::harness::measure::Pages;
use crate::harness::results::{PairRecord, Plot, PlotKind, PlotLine, Series, Table};
use crate::harness::stats::{format_interval, Comparison, Estimate};
use crate::units::rounded_bytes;
use serde_json::Value as Json;

/// E6's series, tables, plots and summary, and the numbers the findings quote.
pub(super) struct Analysis {
    pub series: Vec<Series>,
    pub tables: Vec<Table>,
    pub plots: Vec<Plot>,
    pub summary: Vec<(String, Json)>,
    pub numbers: Numbers,
    /// The pairs the findings' claims rest on, for `results.json`.
    pub comparisons: Vec<PairRecord>,
}

/// What the findings paragraph quotes.
pub(super) struct Numbers {
    /// Per detected cache level, the latency inside it (4 KiB pages).
    pub levels: Vec<InsideLevel>,
    /// At the largest size, the latency on both page sizes.
    pub far: Option<FarMemory>,
    /// (from, to, growth) of each step where the 4 KiB-page latency grows by half or more
    /// across the growth's whole interval.
    pub steps: Vec<(usize, usize, Comparison)>,
    /// The threshold of the claims.
    pub threshold: f64,
}

/// The latency of a buffer that fits a cache level comfortably.
pub(super) struct InsideLevel {
    pub level: u8,
    /// The level's size, as detected.
    pub cache_bytes: usize,
    /// The buffer measured inside it, and its median ns per load.
    pub bytes: usize,
    pub ns: Estimate,
}

/// The median ns per load at the largest size on 4 KiB and on huge pages.
pub(super) struct FarMemory {
    pub bytes: usize,
    pub small: f64,
    pub huge: f64,
    /// 4 KiB pages' time over huge pages', paired per round.
    pub translation: Option<Comparison>,
    /// The huge-page bytes the kernel granted the huge-page ring, if it says.
    pub huge_granted: Option<usize>,
}

fn pages_name(pages: Pages) -> &'static str {
    match pages {
        Pages::Small => "4 KiB pages (MADV_NOHUGEPAGE)",
        Pages::Huge => "huge pages (MADV_HUGEPAGE)",
    }
}

/// Turns E6's measurement into series, tables, plots and numbers.
pub(super) fn analyse(m: &Measurement) -> Analysis {
    let series = m
        .measured
        .iter()
        .map(|p| {
            series(
                &[
                    ("pages", pages_name(p.pages)),
                    ("bytes", &p.bytes.to_string()),
                    (
                        "huge_page_bytes",
                        &p.huge_page_bytes
                            .map_or("unknown".to_string(), |h| h.to_string()),
                    ),
                ],
                "ns/load",
                p.ns.clone(),
            )
        })
        .collect();
    let mut claims = Claims::new(m.threshold);
    let levels = levels(m);
    let far = far(m, &mut claims);
    let steps = steps(m, &mut claims);
    let mut summary: Vec<(String, Json)> = levels
        .iter()
        .map(|l| (format!("l{}_ns", l.level), Json::from(l.ns.value)))
        .collect();
    if let Some(far) = &far {
        summary.push(("far_ns_4k".to_string(), Json::from(far.small)));
        summary.push(("far_ns_huge".to_string(), Json::from(far.huge)));
    }
    Analysis {
        series,
        tables: vec![table(m)],
        plots: vec![plot(m)],
        summary,
        numbers: Numbers {
            levels,
            far,
            steps,
            threshold: m.threshold,
        },
        comparisons: claims.records,
    }
}

fn summary_at(m: &Measurement, pages: Pages, bytes: usize) -> Option<Estimate> {
    m.at(pages, bytes).map(|p| interval(&p.ns))
}

fn median_at(m: &Measurement, pages: Pages, bytes: usize) -> Option<f64> {
    summary_at(m, pages, bytes).map(|s| s.value)
}

fn huge_granted(m: &Measurement, pages: Pages, bytes: usize) -> Option<usize> {
    m.at(pages, bytes).and_then(|p| p.huge_page_bytes)
}

/// Both curves over size, with a marker at each detected cache level.
fn plot(m: &Measurement) -> Plot {
    let lines = [Pages::Small, Pages::Huge]
        .into_iter()
        .map(|pages| PlotLine {
            name: pages_name(pages).to_string(),
            points: m
                .sizes
                .iter()
                .filter_map(|&b| summary_at(m, pages, b).map(|s| interval_point(b as f64, &s)))
                .collect(),
        })
        .collect();
    let mut markers = Vec::new();
    for level in 1..=3u8 {
        if let Some(bytes) = m.machine.cache_bytes(level) {
            markers.push((
                bytes as f64,
                format!("L{level} {}", rounded_bytes(bytes as f64)),
            ));
        }
    }
    Plot {
        file_stem: "e6-memory-latency".to_string(),
        title: "E6 memory latency: pointer chase over a shuffled ring".to_string(),
        x_label: "buffer size (bytes)".to_string(),
        y_label: "ns per dependent load".to_string(),
        log_x: true,
        log_y: true,
        kind: PlotKind::Line,
        categories: Vec::new(),
        markers,
        lines,
    }
}

/// A row per size: both page sizes' latency and the huge-page bytes granted.
fn table(m: &Measurement) -> Table {
    Table {
        headers: vec![
            "buffer".to_string(),
            "ns/load, 4 KiB pages".to_string(),
            "ns/load, huge pages".to_string(),
            "huge-page bytes granted".to_string(),
        ],
        rows: m
            .sizes
            .iter()
            .map(|&b| {
                vec![
                    rounded_bytes(b as f64),
                    summary_at(m, Pages::Small, b)
                        .map_or("–".to_string(), |s| format_interval(&s)),
                    summary_at(m, Pages::Huge, b)
                        .map_or("–".to_string(), |s| format_interval(&s)),
                    huge_granted(m, Pages::Huge, b)
                        .map_or("unknown".to_string(), |h| rounded_bytes(h as f64)),
                ]
            })
            .collect(),
    }
}

/// The latency inside each detected cache level: at the largest size that fits half the level
/// comfortably (and misses the level below).
fn levels(m: &Measurement) -> Vec<InsideLevel> {
    let largest_below = |limit: f64| m.sizes.iter().copied().rfind(|&b| (b as f64) <= limit);
    let mut levels = Vec::new();
    let mut previous_level_bytes = 0usize;
    for level in 1..=3u8 {
        let Some(cache) = m.machine.cache_bytes(level) else {
            continue;
        };
        if let Some(bytes) = largest_below(cache as f64 / 2.0).filter(|&b| b > previous_level_bytes)
        {
            if let Some(ns) = summary_at(m, Pages::Small, bytes) {
                levels.push(InsideLevel {
                    level,
                    cache_bytes: cache,
                    bytes,
                    ns,
                });
            }
        }
        previous_level_bytes = cache;
    }
    levels
}

/// Far memory: the largest size on both page sizes, where both were measured.
fn far(m: &Measurement, claims: &mut Claims) -> Option<FarMemory> {
    let last = *m.sizes.last().expect("at least one size");
    let (small, huge) = (
        median_at(m, Pages::Small, last)?,
        median_at(m, Pages::Huge, last)?,
    );
    // The two page sizes are interleaved, so their rounds pair.
    let translation = claims.compare(
        &rounded_bytes(last as f64),
        ("4 KiB pages", &m.at(Pages::Small, last)?.ns),
        ("huge pages", &m.at(Pages::Huge, last)?.ns),
    );
    Some(FarMemory {
        bytes: last,
        small,
        huge,
        translation,
        huge_granted: huge_granted(m, Pages::Huge, last),
    })
}

/// The sizes where the 4 KiB-page latency grows by half or more over one step.
fn steps(m: &Measurement, claims: &mut Claims) -> Vec<(usize, usize, Comparison)> {
    let mut steps = Vec::new();
    for pair in m.sizes.windows(2) {
        let (Some(a), Some(b)) = (m.at(Pages::Small, pair[0]), m.at(Pages::Small, pair[1])) else {
            continue;
        };
        let (from, to) = (rounded_bytes(pair[0] as f64), rounded_bytes(pair[1] as f64));
        let Some(growth) = claims.compare(&format!("{from} → {to}"), (&to, &b.ns), (&from, &a.ns))
        else {
            continue;
        };
        if growth.low > STEP {
            steps.push((pair[0], pair[1], growth));
        }
    }
    steps
}

/// A step of the curve counts when its whole interval grows the latency by more than this.
const STEP: f64 = 1.5;
