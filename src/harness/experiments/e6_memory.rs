//! E6: the machine's memory latency curve — a pointer chase over a shuffled single-cycle ring,
//! one cache line per element, with 4 KiB pages and with transparent huge pages.

use super::{point, series, summarise, Config, Progress};
use crate::harness::machine::Machine;
use crate::harness::measure::{interleaved, Case, PageBuffer, Pages, SampleConfig};
use crate::harness::results::{ExperimentResult, Plot, PlotKind, PlotLine, Table};
use crate::harness::stats::format_spread;
use crate::units::rounded_bytes;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde_json::Value as Json;
use std::time::Duration;

pub const TITLE: &str = "Memory latency curve";

const LINE: usize = 64;
const WORDS_PER_LINE: usize = LINE / 8;

/// A ring over `bytes / 64` cache lines: word 0 of each line holds the index of the next
/// line, in one cycle through every line (Sattolo's shuffle), so hardware prefetchers cannot
/// guess the next address.
pub fn ring(bytes: usize, pages: Pages, seed: u64) -> PageBuffer {
    let lines = (bytes / LINE).max(2);
    let mut order: Vec<u32> = (0..lines as u32).collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for i in (1..lines).rev() {
        let j = rng.random_range(0..i);
        order.swap(i, j);
    }
    let mut buffer = PageBuffer::new(lines * LINE, pages, |_| 0);
    let words = buffer.as_mut_slice();
    for (line, &next) in order.iter().enumerate() {
        // Sattolo's permutation is one cycle: following `order` visits every line once.
        words[line * WORDS_PER_LINE] = next as u64;
    }
    buffer
}

/// Follows the ring `loads` times from line 0; returns where it stopped.
fn chase(words: &[u64], loads: u64) -> u64 {
    let mut at = 0usize;
    for _ in 0..loads {
        at = words[at * WORDS_PER_LINE] as usize;
    }
    at as u64
}

/// Buffer sizes: from 4 KiB up to `max`, `per_octave` points per doubling.
pub fn sizes(max: usize, per_octave: u32) -> Vec<usize> {
    let mut out = Vec::new();
    let mut exponent = 12.0f64;
    while 2f64.powf(exponent) <= max as f64 + 0.5 {
        let bytes = (2f64.powf(exponent) as usize) / LINE * LINE;
        if out.last() != Some(&bytes) {
            out.push(bytes);
        }
        exponent += 1.0 / per_octave as f64;
    }
    out
}

pub fn run(config: &Config, progress: Progress<'_>) -> ExperimentResult {
    let machine = Machine::detect();
    let max = config.pick(1 << 20, 64 << 20, 256 << 20);
    let per_octave = config.pick(1, 1, 2);
    let sizes = sizes(max, per_octave);
    let sampling = SampleConfig {
        warmup: config.pick(
            Duration::from_micros(200),
            Duration::from_millis(2),
            Duration::from_millis(10),
        ),
        samples: config.pick(3, 5, 9),
        min_sample: config.pick(
            Duration::from_micros(200),
            Duration::from_millis(3),
            Duration::from_millis(20),
        ),
    };
    let mut measured: Vec<(Pages, usize, Vec<f64>, Option<usize>)> = Vec::new();
    let mut advice_errors = Vec::new();
    for (i, &bytes) in sizes.iter().enumerate() {
        let message = format!("pointer chase {}", rounded_bytes(bytes as f64));
        // Both page sizes live side by side and are interleaved round-robin.
        let rings: Vec<(Pages, PageBuffer)> = [Pages::Small, Pages::Huge]
            .into_iter()
            .map(|pages| (pages, ring(bytes, pages, config.seed ^ bytes as u64)))
            .collect();
        for (pages, buffer) in &rings {
            if let Err(error) = &buffer.advice {
                advice_errors.push(format!(
                    "{pages:?} {}: {error}",
                    rounded_bytes(bytes as f64)
                ));
            }
        }
        let huge: Vec<Option<usize>> = rings.iter().map(|(_, b)| b.huge_page_bytes()).collect();
        // Enough loads per repetition to go round the ring at least once.
        let loads = (bytes / LINE).max(4096) as u64;
        let mut cases: Vec<Case<'_>> = rings
            .iter()
            .map(|(pages, buffer)| {
                let words = buffer.as_slice();
                Case::new(format!("{pages:?}"), loads, move |reps| {
                    chase(words, reps * loads)
                })
            })
            .collect();
        let base = i as f64 / sizes.len() as f64;
        let results = interleaved(&mut cases, &sampling, None, &mut |f| {
            progress(&message, base + f / sizes.len() as f64)
        });
        for ((result, (pages, _)), huge_bytes) in results.into_iter().zip(&rings).zip(huge) {
            measured.push((*pages, bytes, result.ns_per_op, huge_bytes));
        }
    }
    progress("done", 1.0);
    build(config, &machine, &sizes, measured, &advice_errors)
}

fn pages_name(pages: Pages) -> &'static str {
    match pages {
        Pages::Small => "4 KiB pages (MADV_NOHUGEPAGE)",
        Pages::Huge => "huge pages (MADV_HUGEPAGE)",
    }
}

fn build(
    config: &Config,
    machine: &Machine,
    sizes: &[usize],
    measured: Vec<(Pages, usize, Vec<f64>, Option<usize>)>,
    advice_errors: &[String],
) -> ExperimentResult {
    let series_out = measured
        .iter()
        .map(|(pages, bytes, ns, huge)| {
            series(
                &[
                    ("pages", pages_name(*pages)),
                    ("bytes", &bytes.to_string()),
                    (
                        "huge_page_bytes",
                        &huge.map_or("unknown".to_string(), |h| h.to_string()),
                    ),
                ],
                "ns/load",
                ns.clone(),
            )
        })
        .collect();
    let get = |pages: Pages, bytes: usize| {
        measured
            .iter()
            .find(|m| m.0 == pages && m.1 == bytes)
            .map(|m| summarise(&m.2))
    };
    let lines = [Pages::Small, Pages::Huge]
        .into_iter()
        .map(|pages| PlotLine {
            name: pages_name(pages).to_string(),
            points: sizes
                .iter()
                .filter_map(|&b| get(pages, b).map(|s| point(b as f64, &s)))
                .collect(),
        })
        .collect();
    let mut markers = Vec::new();
    for level in 1..=3u8 {
        if let Some(bytes) = machine.cache_bytes(level) {
            markers.push((
                bytes as f64,
                format!("L{level} {}", rounded_bytes(bytes as f64)),
            ));
        }
    }
    let plot = Plot {
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
    };
    let huge_of = |pages: Pages, bytes: usize| {
        measured
            .iter()
            .find(|m| m.0 == pages && m.1 == bytes)
            .and_then(|m| m.3)
    };
    let table = Table {
        headers: vec![
            "buffer".to_string(),
            "ns/load, 4 KiB pages".to_string(),
            "ns/load, huge pages".to_string(),
            "huge-page bytes granted".to_string(),
        ],
        rows: sizes
            .iter()
            .map(|&b| {
                vec![
                    rounded_bytes(b as f64),
                    get(Pages::Small, b).map_or("–".to_string(), |s| format_spread(&s)),
                    get(Pages::Huge, b).map_or("–".to_string(), |s| format_spread(&s)),
                    huge_of(Pages::Huge, b)
                        .map_or("unknown".to_string(), |h| rounded_bytes(h as f64)),
                ]
            })
            .collect(),
    };
    // Findings: the latency inside each detected cache level, and the big jumps.
    let median_at = |pages: Pages, bytes: usize| get(pages, bytes).map(|s| s.median);
    let largest_below = |limit: f64| sizes.iter().copied().rfind(|&b| (b as f64) <= limit);
    let mut findings = Vec::new();
    let mut summary = Vec::new();
    let mut previous_level_bytes = 0usize;
    for level in 1..=3u8 {
        let Some(cache) = machine.cache_bytes(level) else {
            continue;
        };
        // A buffer at half the level's size fits it comfortably (and misses the level below).
        if let Some(bytes) = largest_below(cache as f64 / 2.0).filter(|&b| b > previous_level_bytes)
        {
            if let Some(ns) = median_at(Pages::Small, bytes) {
                findings.push(format!(
                    "Inside L{level} ({} detected) a load takes {ns:.2} ns (at {}).",
                    rounded_bytes(cache as f64),
                    rounded_bytes(bytes as f64)
                ));
                summary.push((format!("l{level}_ns"), Json::from(ns)));
            }
        }
        previous_level_bytes = cache;
    }
    let last = *sizes.last().expect("at least one size");
    if let (Some(small), Some(huge)) = (median_at(Pages::Small, last), median_at(Pages::Huge, last))
    {
        findings.push(format!(
            "At {} a load takes {small:.1} ns with 4 KiB pages and {huge:.1} ns with huge \
             pages ({}), so {} of the far-memory latency is address translation.",
            rounded_bytes(last as f64),
            match huge_of(Pages::Huge, last) {
                Some(h) if h > 0 =>
                    format!("{} of the ring in huge pages", rounded_bytes(h as f64)),
                Some(_) => "the kernel granted no huge pages".to_string(),
                None => "huge-page use unknown".to_string(),
            },
            if small > huge {
                format!("about {:.0} %", (small - huge) / small * 100.0)
            } else {
                "none".to_string()
            }
        ));
        summary.push(("far_ns_4k".to_string(), Json::from(small)));
        summary.push(("far_ns_huge".to_string(), Json::from(huge)));
    }
    // Steps: the sizes where the 4 KiB-page latency grows by half or more over one step.
    let mut steps = Vec::new();
    for pair in sizes.windows(2) {
        if let (Some(a), Some(b)) = (
            median_at(Pages::Small, pair[0]),
            median_at(Pages::Small, pair[1]),
        ) {
            if b > 1.5 * a {
                steps.push(format!(
                    "{} → {} (×{:.1})",
                    rounded_bytes(pair[0] as f64),
                    rounded_bytes(pair[1] as f64),
                    b / a
                ));
            }
        }
    }
    findings.push(if steps.is_empty() {
        "No step of the curve grows by 50 % or more between neighbouring sizes.".to_string()
    } else {
        format!(
            "The curve climbs most at {} — compare with the cache markers.",
            steps.join(", ")
        )
    });
    let mut method = format!(
        "A ring of 64-byte lines shuffled into one cycle (Sattolo, seed {:#x} ^ size), each \
         line holding the next line's index: every load depends on the last, and the order \
         defeats prefetchers. Sizes 4 KiB to {}, {} per doubling; each size once with \
         4 KiB pages (MADV_NOHUGEPAGE) and once with transparent huge pages (MADV_HUGEPAGE; \
         system setting `{}`), the two interleaved. Each repetition follows at least the \
         whole ring; {} samples; median with min–max. Cache markers from {} ({}).",
        config.seed,
        rounded_bytes(*sizes.last().unwrap_or(&0) as f64),
        if config.pick(1, 1, 2) == 1 {
            "one point"
        } else {
            "two points"
        },
        machine.transparent_huge_pages,
        config.pick(3, 5, 9),
        machine.cache_source,
        machine
            .caches
            .iter()
            .filter(|c| c.kind != "Instruction")
            .map(|c| format!("L{} {}", c.level, rounded_bytes(c.bytes as f64)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if !advice_errors.is_empty() {
        method.push_str(&format!(" madvise failed: {}.", advice_errors.join("; ")));
    }
    ExperimentResult {
        wall_seconds: None,
        comparisons: Vec::new(),
        id: "E6".to_string(),
        title: TITLE.to_string(),
        method,
        series: series_out,
        tables: vec![table],
        plots: vec![plot],
        findings: findings.join(" "),
        summary,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::experiments::tests::assert_well_formed;

    #[test]
    fn ring_is_one_cycle_through_every_line() {
        let buffer = ring(64 * 1000, Pages::Small, 5);
        let words = buffer.as_slice();
        let mut seen = vec![false; 1000];
        let mut at = 0usize;
        for _ in 0..1000 {
            assert!(!seen[at], "line {at} visited twice");
            seen[at] = true;
            at = words[at * WORDS_PER_LINE] as usize;
        }
        assert_eq!(at, 0);
        assert!(seen.iter().all(|&s| s));
        assert_eq!(chase(words, 1000), 0);
    }

    #[test]
    fn sizes_are_log_spaced_and_line_aligned() {
        assert_eq!(sizes(32 << 10, 1), vec![4096, 8192, 16384, 32768]);
        let two = sizes(16 << 10, 2);
        assert_eq!(two.len(), 5);
        assert!(two.iter().all(|b| b % 64 == 0));
        assert_eq!(two[1], 5760); // 4096 × √2 rounded down to a whole line
    }

    #[test]
    fn smoke_run_is_well_formed() {
        let experiment = run(&Config::smoke(), &mut |_, _| {});
        assert_well_formed(&experiment);
        assert_eq!(experiment.series.len(), 2 * sizes(1 << 20, 1).len());
    }
}
