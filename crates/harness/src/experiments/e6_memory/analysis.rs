//! E6's analysis: series, the table, the plot and the latencies the findings quote.

use super::measure::Measurement;
use crate::cache_levels::{CacheLevels, Ramp};
use crate::experiments::claims::Claims;
use crate::experiments::{blocks, interval, interval_point, series};
use crate::results::{PairRecord, Plot, PlotKind, PlotLine, Series, Table};
use crate::stats::{format_interval, format_sig, median, Comparison, Estimate};
use kiki_core::pages::Pages;
use kiki_core::units::rounded_bytes;
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
    /// The cache levels the curve shows.
    pub measured: CacheLevels,
    /// Whether the curve took 4 KiB pages at some size (the kernel granted the huge-page ring
    /// none there).
    pub fallback: bool,
    /// Where the machine's cache list comes from (`sysfs`, `cpuid`, `unknown`).
    pub cache_source: String,
    /// The data caches the machine lists that the curve shows no level for: (level, bytes).
    pub unseen: Vec<(u8, usize)>,
    /// Per measured level, the latency inside it (on the curve's pages).
    pub levels: Vec<InsideLevel>,
    /// At the largest size, the latency on both page sizes.
    pub far: Option<FarMemory>,
    /// (from, to, growth) of each step where the 4 KiB-page latency grows by half or more
    /// across the growth's whole interval.
    pub steps: Vec<(usize, usize, Comparison)>,
    /// The threshold of the claims.
    pub threshold: f64,
    /// The invocations whose curves the levels were found on, one by one.
    pub invocations: usize,
}

/// The latency of a buffer that fits a measured cache level comfortably.
pub(super) struct InsideLevel {
    /// `L1`, `L2`, …
    pub level: String,
    /// The level's effective size, as measured.
    pub effective_bytes: usize,
    /// The buffer measured inside it, and its ns per load.
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

/// Where E6's cache levels come from (`CacheLevels::source`).
pub(super) const SOURCE: &str = "E6's latency curve";

fn pages_name(pages: Pages) -> &'static str {
    match pages {
        Pages::Small => "4 KiB pages (MADV_NOHUGEPAGE)",
        Pages::Huge => "huge pages (MADV_HUGEPAGE)",
    }
}

/// Turns E6's measurement into series, tables, plots and numbers.
pub(super) fn analyse(m: &Measurement) -> Analysis {
    let series: Vec<Series> = m
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
    let measured = CacheLevels::from_invocations(
        &invocation_curves(&series, m.invocations),
        &curve(&series),
        &m.machine,
        SOURCE,
    );
    let mut claims = Claims::new(m.threshold, m.invocations);
    let levels = levels(m, &measured);
    let far = far(m, &mut claims);
    let steps = steps(m, &mut claims);
    // Inside each level: the latency at the buffer `levels` picked (at most half the level's
    // effective size where the sweep has such a size above the level below), and that size.
    let mut summary: Vec<(String, Json)> = levels
        .iter()
        .flat_map(|l| {
            let name = l.level.to_lowercase();
            [
                (format!("{name}_inside_ns"), Json::from(l.ns.value)),
                (format!("{name}_inside_bytes"), Json::from(l.bytes)),
            ]
        })
        .collect();
    summary.push((
        "effective_levels".to_string(),
        serde_json::to_value(&measured.levels).unwrap_or(Json::Null),
    ));
    summary.push(("memory_ns".to_string(), Json::from(measured.memory_ns)));
    // Per size, the least and greatest invocation median: E7's positive controls compare with
    // this range (the parent reads it back, where the invocations are no longer known).
    summary.push((
        "curve_spread".to_string(),
        serde_json::to_value(&measured.curve_spread).unwrap_or(Json::Null),
    ));
    if let Some(far) = &far {
        summary.push(("far_ns_4k".to_string(), Json::from(far.small)));
        summary.push(("far_ns_huge".to_string(), Json::from(far.huge)));
    }
    let unseen = m
        .machine
        .caches
        .iter()
        .filter(|c| c.kind != "Instruction")
        .filter(|c| measured.level(&format!("L{}", c.level)).is_none())
        .map(|c| (c.level, c.bytes))
        .collect();
    Analysis {
        series,
        tables: vec![table(m), levels_table(&measured)],
        plots: vec![plot(m, &measured)],
        summary,
        numbers: Numbers {
            fallback: m.sizes.iter().any(|&b| curve_pages(m, b) == Pages::Small),
            cache_source: m.machine.cache_source.clone(),
            unseen,
            measured,
            levels,
            far,
            steps,
            threshold: m.threshold,
            invocations: m.invocations,
        },
        comparisons: claims.records,
    }
}

/// The pages the levels are found on at `bytes`: huge, unless the kernel granted the huge-page
/// ring none there.
fn curve_pages(m: &Measurement, bytes: usize) -> Pages {
    match m.at(Pages::Huge, bytes).and_then(|p| p.huge_page_bytes) {
        Some(0) => Pages::Small,
        _ => Pages::Huge,
    }
}

/// The series the levels are found on, per size (smallest first): huge pages, or 4 KiB pages
/// where the kernel granted the huge-page ring none (its `huge_page_bytes` label is 0).
fn curve_series(series: &[Series]) -> Vec<(usize, &Series)> {
    let of = |pages: Pages, bytes: &str| {
        series.iter().find(|s| {
            s.label("pages") == Some(pages_name(pages)) && s.label("bytes") == Some(bytes)
        })
    };
    let mut sizes: Vec<usize> = series
        .iter()
        .filter_map(|s| s.label("bytes")?.parse().ok())
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    sizes
        .into_iter()
        .filter_map(|bytes| {
            let key = bytes.to_string();
            let huge = of(Pages::Huge, &key);
            let granted_none = huge.is_some_and(|s| s.label("huge_page_bytes") == Some("0"));
            let chosen = match huge {
                Some(s) if !granted_none => Some(s),
                _ => of(Pages::Small, &key).or(huge),
            };
            Some((bytes, chosen?))
        })
        .collect()
}

/// The median of the finite values of `samples`.
fn finite_median(samples: &[f64]) -> Option<f64> {
    let finite: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite()).collect();
    median(&finite)
}

/// The curve the levels are found on, from E6's series: per size, the median ns per load of
/// all its samples on huge pages, or on 4 KiB pages where the kernel granted the huge-page
/// ring none (its `huge_page_bytes` label is 0); smallest first.
pub(super) fn curve(series: &[Series]) -> Vec<(usize, f64)> {
    curve_series(series)
        .into_iter()
        .filter_map(|(bytes, s)| Some((bytes, finite_median(&s.samples)?)))
        .collect()
}

/// The same curve once per invocation (per size, the median of that invocation's block of
/// samples), in invocation order; one curve when E6 ran in this process alone.
pub(super) fn invocation_curves(series: &[Series], k: usize) -> Vec<Vec<(usize, f64)>> {
    let chosen = curve_series(series);
    let per_size: Vec<(usize, Vec<Vec<f64>>)> = chosen
        .iter()
        .map(|&(bytes, s)| (bytes, blocks(&s.samples, k)))
        .collect();
    let k = per_size.iter().map(|(_, b)| b.len()).max().unwrap_or(0);
    (0..k)
        .map(|i| {
            per_size
                .iter()
                .filter_map(|(bytes, blocks)| Some((*bytes, finite_median(blocks.get(i)?)?)))
                .collect()
        })
        .collect()
}

fn summary_at(m: &Measurement, pages: Pages, bytes: usize) -> Option<Estimate> {
    m.at(pages, bytes).map(|p| interval(&p.ns, m.invocations))
}

fn median_at(m: &Measurement, pages: Pages, bytes: usize) -> Option<f64> {
    summary_at(m, pages, bytes).map(|s| s.value)
}

fn huge_granted(m: &Measurement, pages: Pages, bytes: usize) -> Option<usize> {
    m.at(pages, bytes).and_then(|p| p.huge_page_bytes)
}

/// Both curves over size, with a marker at each measured cache level and at each level the
/// machine lists (one marker where the two agree).
fn plot(m: &Measurement, measured: &CacheLevels) -> Plot {
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
    let source = &m.machine.cache_source;
    let mut markers: Vec<(f64, String)> = Vec::new();
    for level in &measured.levels {
        let size = rounded_bytes(level.bytes as f64);
        markers.push((
            level.bytes as f64,
            if level.sysfs_bytes == Some(level.bytes) {
                format!("{} {size} measured = {source}", level.level)
            } else {
                format!("{} {size} measured", level.level)
            },
        ));
    }
    for cache in m.machine.caches.iter().filter(|c| c.kind != "Instruction") {
        let name = format!("L{}", cache.level);
        if measured.level(&name).map(|l| l.bytes) != Some(cache.bytes) {
            markers.push((
                cache.bytes as f64,
                format!("{name} {} {source}", rounded_bytes(cache.bytes as f64)),
            ));
        }
    }
    markers.sort_by(|a, b| a.0.total_cmp(&b.0));
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

/// A row per measured level: its effective size (the median over invocations), the size each
/// invocation's own curve gave it, whether they agree, and its plateau latency as the median
/// over invocations with their least and greatest.
fn levels_table(measured: &CacheLevels) -> Table {
    let size = |b: &Option<usize>| b.map_or("–".to_string(), |b| rounded_bytes(b as f64));
    Table {
        headers: vec![
            "level".to_string(),
            "effective size, median [least–greatest] over invocations".to_string(),
            "effective size per invocation".to_string(),
            "invocations agree".to_string(),
            "plateau ns/load, median [least–greatest] over invocations".to_string(),
            "step after it: last plateau size (ns) → first size above (ns)".to_string(),
            "sysfs size".to_string(),
        ],
        rows: measured
            .levels
            .iter()
            .map(|l| {
                vec![
                    l.level.clone(),
                    match l.bytes_range() {
                        Some((low, high)) => format!(
                            "{} [{}–{}]",
                            rounded_bytes(l.bytes as f64),
                            rounded_bytes(low as f64),
                            rounded_bytes(high as f64)
                        ),
                        None => rounded_bytes(l.bytes as f64),
                    },
                    l.bytes_per_invocation
                        .iter()
                        .map(size)
                        .collect::<Vec<_>>()
                        .join(", "),
                    if l.invocations_agree() { "yes" } else { "no" }.to_string(),
                    match (l.ns_low, l.ns_high) {
                        (Some(low), Some(high)) => format!(
                            "{} [{}–{}]",
                            format_sig(l.ns),
                            format_sig(low),
                            format_sig(high)
                        ),
                        _ => format_sig(l.ns),
                    },
                    l.ramp.map_or("–".to_string(), |r| ramp_words(&r)),
                    size(&l.sysfs_bytes),
                ]
            })
            .collect(),
    }
}

/// A step of the curve in words: `2.9 MiB (48 ns) → 5.9 MiB (126 ns)`.
pub(super) fn ramp_words(ramp: &Ramp) -> String {
    format!(
        "{} ({} ns) → {} ({} ns)",
        rounded_bytes(ramp.start_bytes as f64),
        format_sig(ramp.start_ns),
        rounded_bytes(ramp.end_bytes as f64),
        format_sig(ramp.end_ns)
    )
}

/// The latency inside each measured cache level: at the largest size that fits half its
/// effective size and misses the level below (at its effective size, if none does), on the
/// pages the curve took there.
fn levels(m: &Measurement, measured: &CacheLevels) -> Vec<InsideLevel> {
    let mut levels = Vec::new();
    let mut below = 0usize;
    for level in &measured.levels {
        let bytes = m
            .sizes
            .iter()
            .copied()
            .rfind(|&b| b <= level.bytes / 2 && b > below)
            .unwrap_or(level.bytes);
        if let Some(ns) = summary_at(m, curve_pages(m, bytes), bytes) {
            levels.push(InsideLevel {
                level: level.level.clone(),
                effective_bytes: level.bytes,
                bytes,
                ns,
            });
        }
        below = level.bytes;
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
