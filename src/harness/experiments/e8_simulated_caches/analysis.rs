//! E8's analysis: tables, plots and findings from the simulated counts.

use super::simulate::{CacheGeometry, SimResult};
use super::workload::*;
use crate::harness::results::{ExperimentResult, Plot, PlotKind, PlotLine, Point, Series, Table};
use crate::units::compact_bytes;
use serde_json::Value as Json;

/// E8's method paragraph (also used where valgrind is missing).
pub fn method(lookups: usize, geometries: &[CacheGeometry]) -> String {
    let list = geometries
        .iter()
        .map(|g| {
            format!(
                "{} (I1 {}, D1 {}, LL {})",
                g.name,
                g.i1.describe(),
                g.d1.describe(),
                g.ll.describe()
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    let double = 2 * lookups;
    format!(
        "Each backend runs the same fixed workload — {lookups} lookups over {OCCUPANCIES} random \
         occupancies (p = {DENSITY}), uniform random squares and all six slider kinds, seed \
         {WORKLOAD_SEED:#x} — under `valgrind --tool=callgrind --cache-sim=yes` on this kiki \
         binary, collecting only inside `{MEASURED_FUNCTION}` (`--collect-atstart=no \
         --toggle-collect`), so table building and input generation are not counted; each cell is the difference of \
         a run of {lookups} and one of {double} lookups (the shorter run is the longer one's first \
         half), so cold misses cancel and the counts are steady-state. The packed inputs, 4 bytes \
         a lookup, stream through D1 at 1/16 miss per lookup for every backend alike. Geometries \
         are given explicitly ({list}; valgrind needs a power-of-two set count, so associativity \
         is adjusted where needed). Simulation is deterministic: one run per cell. Estimated \
         cycles per lookup = (Ir + {L1_MISS_CYCLES}·(I1mr + D1mr + D1mw) + \
         {LL_MISS_CYCLES}·(ILmr + DLmr + DLmw)) / lookups — a rough in-order model with no \
         overlap of misses, for ranking, not for predicting wall time. Seed 004's scenario, \
         deterministically: every geometry again with {EVAL_READS} random 8-byte reads of an \
         evaluation buffer twice the LL's size after each lookup, and a run doing those reads \
         alone over the same inputs; a backend's marginal cost under pressure is its run minus \
         that one, per lookup. With only {OCCUPANCIES} occupancies the lookups alone touch a \
         small part of any table (at most {OCCUPANCIES} × 81 × 6 slider entries), so the \
         lookups-alone cells measure warm tables; the evaluation is what evicts them."
    )
}

/// The E8 section when valgrind cannot run here.
pub fn unavailable(reason: &str, lookups: usize, geometries: &[CacheGeometry]) -> ExperimentResult {
    ExperimentResult {
        wall_seconds: None,
        comparisons: Vec::new(),
        id: "E8".into(),
        title: TITLE.into(),
        method: method(lookups, geometries),
        series: Vec::new(),
        tables: Vec::new(),
        plots: Vec::new(),
        findings: format!(
            "Not measured on this machine: {reason}. The other experiments are unaffected."
        ),
        summary: vec![
            ("available".into(), Json::Bool(false)),
            ("reason".into(), Json::from(reason)),
        ],
    }
}

pub const TITLE: &str = "simulated caches (valgrind callgrind)";

/// Builds the E8 experiment from simulated results (`failures`: backend/geometry pairs that
/// valgrind could not run, with why).
pub fn experiment(
    all_results: &[SimResult],
    failures: &[String],
    lookups: usize,
    geometries: &[CacheGeometry],
    valgrind: &str,
) -> ExperimentResult {
    // Lookups alone here; the pressure variant is summarised by `pressure` below.
    let plain: Vec<SimResult> = all_results
        .iter()
        .filter(|r| r.eval_bytes == 0)
        .cloned()
        .collect();
    let results = &plain[..];
    let backends: Vec<String> = dedup(results.iter().map(|r| r.backend.clone()));
    let geometry_names: Vec<String> = geometries.iter().map(|g| g.name.clone()).collect();
    let find = |b: &str, g: &str| results.iter().find(|r| r.backend == b && r.geometry == g);
    let mut series = Vec::new();
    for r in results {
        let labels = vec![
            ("backend".to_string(), r.backend.clone()),
            ("geometry".to_string(), r.geometry.clone()),
        ];
        for (unit, value) in [
            ("Ir/lookup", r.counts.ir as f64),
            ("D1 misses/lookup", (r.counts.d1mr + r.counts.d1mw) as f64),
            ("LL misses/lookup", r.counts.ll_misses() as f64),
            ("estimated cycles/lookup", r.counts.estimated_cycles()),
        ] {
            series.push(Series {
                labels: labels.clone(),
                unit: unit.into(),
                samples: vec![r.per_lookup(value)],
            });
        }
    }
    let mut table = Table {
        headers: [
            "backend",
            "geometry",
            "Ir/lookup",
            "D1 misses/lookup",
            "LL misses/lookup",
            "est. cycles/lookup",
        ]
        .map(String::from)
        .to_vec(),
        rows: Vec::new(),
    };
    for g in &geometry_names {
        for b in &backends {
            if let Some(r) = find(b, g) {
                table.rows.push(vec![
                    b.clone(),
                    g.clone(),
                    format!("{:.1}", r.per_lookup(r.counts.ir as f64)),
                    format!(
                        "{:.3}",
                        r.per_lookup((r.counts.d1mr + r.counts.d1mw) as f64)
                    ),
                    format!("{:.3}", r.per_lookup(r.counts.ll_misses() as f64)),
                    format!("{:.1}", r.per_lookup(r.counts.estimated_cycles())),
                ]);
            }
        }
    }
    let bar_plot =
        |stem: &str, title: &str, y_label: &str, value: &dyn Fn(&SimResult) -> f64, log_y: bool| {
            Plot {
                file_stem: stem.into(),
                title: title.into(),
                x_label: "simulated cache geometry".into(),
                y_label: y_label.into(),
                log_x: false,
                log_y,
                kind: PlotKind::Bar,
                categories: geometry_names.iter().map(|g| short_geometry(g)).collect(),
                markers: Vec::new(),
                lines: backends
                    .iter()
                    .map(|b| PlotLine {
                        name: b.clone(),
                        points: geometry_names
                            .iter()
                            .enumerate()
                            .filter_map(|(i, g)| find(b, g).map(|r| (i, value(r))))
                            .map(|(i, y)| Point {
                                x: i as f64,
                                y,
                                y_low: y,
                                y_high: y,
                            })
                            .collect(),
                    })
                    .collect(),
            }
        };
    let plots = if results.is_empty() {
        Vec::new()
    } else {
        vec![
            bar_plot(
                "e8-estimated-cycles",
                "E8 estimated cycles per lookup (simulated caches)",
                "estimated cycles / lookup",
                &|r| r.per_lookup(r.counts.estimated_cycles()),
                false,
            ),
            bar_plot(
                "e8-ll-misses",
                "E8 last-level misses per lookup (simulated caches)",
                "LL misses / lookup",
                &|r| r.per_lookup(r.counts.ll_misses() as f64),
                false,
            ),
        ]
    };
    let mut findings = Vec::new();
    let mut summary = vec![
        ("available".to_string(), Json::Bool(true)),
        ("valgrind".to_string(), Json::from(valgrind)),
    ];
    let mut best_per_geometry = Vec::new();
    for g in &geometry_names {
        let mut ranked: Vec<&SimResult> = results.iter().filter(|r| &r.geometry == g).collect();
        ranked.sort_by(|a, b| {
            a.counts
                .estimated_cycles()
                .total_cmp(&b.counts.estimated_cycles())
        });
        let (Some(best), Some(worst)) = (ranked.first(), ranked.last()) else {
            continue;
        };
        let cycles = |r: &SimResult| r.per_lookup(r.counts.estimated_cycles());
        let most_ll = ranked
            .iter()
            .max_by(|a, b| a.counts.ll_misses().cmp(&b.counts.ll_misses()))
            .expect("ranked is not empty");
        let most_ll_rate = most_ll.per_lookup(most_ll.counts.ll_misses() as f64);
        let ll_sentence = if most_ll_rate >= 0.01 {
            format!(
                "{} misses the last level most often, {most_ll_rate:.3} times per lookup",
                most_ll.backend
            )
        } else {
            "no backend misses the last level as often as once per 100 lookups".to_string()
        };
        let all: Vec<(&str, f64)> = ranked
            .iter()
            .map(|r| (r.backend.as_str(), cycles(r)))
            .collect();
        findings.push(format!(
            "With {g}, {} is cheapest at {:.1} estimated cycles per lookup{} and {} dearest at \
             {:.1} ({:.1}×); {ll_sentence}.",
            best.backend,
            cycles(best),
            near(&best.backend, cycles(best), &all),
            worst.backend,
            cycles(worst),
            cycles(worst) / cycles(best).max(1e-9),
        ));
        best_per_geometry.push((g.clone(), Json::from(best.backend.clone())));
    }
    if let Some(seed_case) = seed_prediction(results, &geometry_names) {
        findings.push(seed_case);
    }
    let mut tables = vec![table];
    let mut plots = plots;
    if let Some(under) = pressure(all_results, &geometry_names) {
        series.extend(under.series);
        tables.push(under.table);
        plots.push(under.plot);
        findings.extend(under.findings);
        summary.push((
            "best_backend_per_geometry_under_pressure".into(),
            Json::Object(under.best.into_iter().collect()),
        ));
    }
    if !failures.is_empty() {
        findings.push(format!("Not simulated: {}.", failures.join("; ")));
    }
    summary.push((
        "best_backend_per_geometry".into(),
        Json::Object(best_per_geometry.into_iter().collect()),
    ));
    summary.push(("lookups".into(), Json::from(lookups as u64)));
    ExperimentResult {
        wall_seconds: None,
        comparisons: Vec::new(),
        id: "E8".into(),
        title: TITLE.into(),
        method: method(lookups, geometries),
        series,
        tables,
        plots,
        findings: findings.join(" "),
        summary,
    }
}

/// The pressure variant, summarised: what each backend's lookups add to the evaluation's own
/// counts (backend run minus the evaluation-alone run, per lookup).
struct Pressure {
    series: Vec<Series>,
    table: Table,
    plot: Plot,
    findings: Vec<String>,
    best: Vec<(String, Json)>,
}

fn pressure(results: &[SimResult], geometries: &[String]) -> Option<Pressure> {
    let under: Vec<&SimResult> = results.iter().filter(|r| r.eval_bytes > 0).collect();
    let alone = |g: &str| {
        under
            .iter()
            .find(|r| r.geometry == g && r.backend == EVAL_ALONE)
    };
    let plain = |b: &str, g: &str| {
        results
            .iter()
            .find(|r| r.eval_bytes == 0 && r.backend == b && r.geometry == g)
    };
    // (geometry, backend, eval bytes, marginal LL misses, marginal cycles, cycles alone)
    let mut rows: Vec<(String, String, usize, f64, f64, Option<f64>)> = Vec::new();
    for g in geometries {
        let Some(base) = alone(g) else { continue };
        for r in under
            .iter()
            .filter(|r| &r.geometry == g && r.backend != EVAL_ALONE)
        {
            let ll = r.per_lookup(r.counts.ll_misses() as f64)
                - base.per_lookup(base.counts.ll_misses() as f64);
            let cycles = r.per_lookup(r.counts.estimated_cycles())
                - base.per_lookup(base.counts.estimated_cycles());
            let without = plain(&r.backend, g).map(|p| p.per_lookup(p.counts.estimated_cycles()));
            rows.push((
                g.clone(),
                r.backend.clone(),
                r.eval_bytes,
                ll,
                cycles,
                without,
            ));
        }
    }
    if rows.is_empty() {
        return None;
    }
    let mut series = Vec::new();
    let mut table = Table {
        headers: [
            "backend",
            "geometry",
            "evaluation",
            "marginal LL misses/lookup",
            "marginal est. cycles/lookup",
            "× without evaluation",
        ]
        .map(String::from)
        .to_vec(),
        rows: Vec::new(),
    };
    for (g, b, bytes, ll, cycles, without) in &rows {
        let labels = vec![
            ("backend".to_string(), b.clone()),
            ("geometry".to_string(), g.clone()),
            ("eval_bytes".to_string(), bytes.to_string()),
        ];
        for (unit, value) in [
            ("marginal LL misses/lookup", *ll),
            ("marginal estimated cycles/lookup", *cycles),
        ] {
            series.push(Series {
                labels: labels.clone(),
                unit: unit.into(),
                samples: vec![value],
            });
        }
        table.rows.push(vec![
            b.clone(),
            g.clone(),
            compact_bytes(*bytes as f64),
            format!("{ll:.3}"),
            format!("{cycles:.1}"),
            without.map_or("–".into(), |w| format!("{:.2}", cycles / w.max(1e-9))),
        ]);
    }
    let backends = dedup(rows.iter().map(|r| r.1.clone()));
    let shown: Vec<&String> = geometries
        .iter()
        .filter(|g| rows.iter().any(|r| &r.0 == *g))
        .collect();
    let plot = Plot {
        file_stem: "e8-pressure-cycles".into(),
        title: "E8 marginal cycles per lookup beside an evaluation of 2 × LL".into(),
        x_label: "simulated cache geometry".into(),
        y_label: "estimated cycles / lookup (minus evaluation alone)".into(),
        log_x: false,
        log_y: false,
        kind: PlotKind::Bar,
        categories: shown.iter().map(|g| short_geometry(g)).collect(),
        markers: Vec::new(),
        lines: backends
            .iter()
            .map(|b| PlotLine {
                name: b.clone(),
                points: shown
                    .iter()
                    .enumerate()
                    .filter_map(|(i, g)| {
                        rows.iter()
                            .find(|r| &r.0 == *g && &r.1 == b)
                            .map(|r| Point {
                                x: i as f64,
                                y: r.4,
                                y_low: r.4,
                                y_high: r.4,
                            })
                    })
                    .collect(),
            })
            .collect(),
    };
    let mut findings = Vec::new();
    let mut best = Vec::new();
    for g in &shown {
        let mut ranked: Vec<_> = rows.iter().filter(|r| &r.0 == *g).collect();
        ranked.sort_by(|a, b| a.4.total_cmp(&b.4));
        let (Some(first), Some(last)) = (ranked.first(), ranked.last()) else {
            continue;
        };
        let grew = |r: &(String, String, usize, f64, f64, Option<f64>)| {
            r.5.map_or(String::new(), |w| {
                format!(", ×{:.2} its cost alone", r.4 / w.max(1e-9))
            })
        };
        let added: Vec<(&str, f64)> = ranked.iter().map(|r| (r.1.as_str(), r.4)).collect();
        let mut sentence = format!(
            "Beside an evaluation of {} ({EVAL_READS} random reads per lookup) with {g}, {} adds \
             the least, {:.1} estimated cycles per lookup{}{}, and {} the most, {:.1}{}",
            compact_bytes(first.2 as f64),
            first.1,
            first.4,
            grew(first),
            near(&first.1, first.4, &added),
            last.1,
            last.4,
            grew(last),
        );
        // Who the pressure hurts most and least, relative to the same lookups without it.
        let mut growth: Vec<(&str, f64)> = ranked
            .iter()
            .filter_map(|r| r.5.map(|w| (r.1.as_str(), r.4 / w.max(1e-9))))
            .collect();
        growth.sort_by(|a, b| a.1.total_cmp(&b.1));
        if let (Some(least), Some(most)) = (growth.first(), growth.last()) {
            sentence.push_str(&format!(
                "; relative to its cost without the evaluation, {} is hurt most (×{:.2}{}) and {} \
                 least (×{:.2}{})",
                most.0,
                most.1,
                near(most.0, most.1, &growth),
                least.0,
                least.1,
                near(least.0, least.1, &growth)
            ));
        }
        let find = |b: &str| ranked.iter().find(|r| r.1 == b);
        if let (Some(plain_magic), Some(dbb)) = (find("magic-plain"), find("dbb")) {
            sentence.push_str(&format!(
                "; magic-plain adds {:.3} LL misses per lookup to the evaluation's, dbb {:.3}",
                plain_magic.3, dbb.3
            ));
        }
        sentence.push('.');
        findings.push(sentence);
        best.push((
            format!("{g}, evaluation {}", compact_bytes(first.2 as f64)),
            Json::from(first.1.clone()),
        ));
    }
    Some(Pressure {
        series,
        table,
        plot,
        findings,
        best,
    })
}

/// What the data says about seed 004's claim for `magic-plain` (60.75 MiB of tables) against the
/// 2008-class caches: its LL miss rate there, next to the smallest-table backend's.
fn seed_prediction(results: &[SimResult], geometries: &[String]) -> Option<String> {
    let classic: Vec<&String> = geometries
        .iter()
        .filter(|g| g.starts_with("2008"))
        .collect();
    let mut parts = Vec::new();
    for g in classic {
        let plain = results
            .iter()
            .find(|r| &r.geometry == g && r.backend == "magic-plain")?;
        let best = results.iter().filter(|r| &r.geometry == g).min_by(|a, b| {
            a.counts
                .estimated_cycles()
                .total_cmp(&b.counts.estimated_cycles())
        })?;
        parts.push(format!(
            "{g}: magic-plain {:.3} LL misses and {:.1} cycles per lookup against {:.1} for {}",
            plain.per_lookup(plain.counts.ll_misses() as f64),
            plain.per_lookup(plain.counts.estimated_cycles()),
            best.per_lookup(best.counts.estimated_cycles()),
            best.backend
        ));
    }
    (!parts.is_empty()).then(|| {
        format!(
            "Seed 004's case, the 60.75 MiB table on a 2008-class cache — {}.",
            parts.join("; ")
        )
    })
}

/// A short category label for plots: `this CPU, LL=L3 32 MiB` / `2008, LL 12 MiB`.
fn short_geometry(name: &str) -> String {
    match name.split_once(": ") {
        Some((who, rest)) => {
            let ll = rest.split(", ").last().unwrap_or(rest);
            format!("{}: {ll}", who.trim_end_matches("-class"))
        }
        None => name.to_string(),
    }
}

fn dedup(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

/// The model's estimates are exact for its counts but rest on its cycle weights: an order
/// within this fraction is called out as one the weights could turn.
const NEAR: f64 = 0.03;

/// `" (within 3 % of it: a, b; …)"` naming the other entries within [`NEAR`] of `value`, or "".
fn near(name: &str, value: f64, entries: &[(&str, f64)]) -> String {
    let close: Vec<String> = entries
        .iter()
        .filter(|(n, v)| *n != name && (v / value - 1.0).abs() <= NEAR)
        .map(|(n, _)| n.to_string())
        .collect();
    if close.is_empty() {
        String::new()
    } else {
        format!(
            " (within {:.0} % of it: {}; the model's weights could reorder them)",
            NEAR * 100.0,
            close.join(", ")
        )
    }
}
