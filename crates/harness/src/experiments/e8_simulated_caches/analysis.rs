//! E8's analysis: tables, plots and findings from the simulated counts.

use super::simulate::{CacheGeometry, SimResult, EDGE_MISSES, OWN_EFFECTIVE, OWN_SYSFS};
use super::workload::*;
use crate::results::{ExperimentResult, Plot, PlotKind, PlotLine, Point, Series, Table};
use kiki_core::units::compact_bytes;
use serde_json::Value as Json;

/// E8's method paragraph (also used where valgrind is missing); `stream` is the search-order
/// workload's description.
pub fn method(lookups: usize, geometries: &[CacheGeometry], stream: &str) -> String {
    let list = geometries
        .iter()
        .map(|g| {
            format!(
                "“{}” simulates I1 {}, D1 {} and LL {}, from {}.",
                g.name,
                g.i1.describe(),
                g.d1.describe(),
                g.ll.describe(),
                g.origin
            )
        })
        .collect::<Vec<_>>()
        .join(" ");
    let has = |label: &str| geometries.iter().any(|g| g.name.starts_with(label));
    let labels = match (has(OWN_EFFECTIVE), has(OWN_SYSFS)) {
        (true, true) => format!(
            " “{OWN_EFFECTIVE}” geometries take the sizes measured as this process's effective \
             ones (on a virtual machine the last level can be a fraction of the listed one), \
             “{OWN_SYSFS}” the sizes sysfs/CPUID lists for the part: the same code on the cache \
             it measurably gets here and on the cache it is listed with."
        ),
        (true, false) => format!(
            " “{OWN_EFFECTIVE}” geometries take the sizes measured as this process's effective \
             ones."
        ),
        (false, true) => format!(" “{OWN_SYSFS}” geometries take the sizes sysfs/CPUID lists."),
        (false, false) => String::new(),
    };
    let list = format!("{list}{labels}");
    let double = 2 * lookups;
    // A chunk's nodes at the search-order walk's 7.9 lookups per node (rounded up, with one
    // split at each end), and their buffers at mailbox's 121-byte occupancy, the largest.
    let nodes = CHUNK_LOOKUPS * 10 / 79 + 2;
    let footprint = compact_bytes((4 * CHUNK_LOOKUPS + 121 * nodes + READ_BUFFER) as f64);
    format!(
        "Each backend runs the same fixed workload — lookups in the search-order walk \
         ({stream}), each node's lookups on that node's occupancy, in node order — generated \
         once per E8 run natively and read from a file by every simulated run, under `valgrind --tool=callgrind --cache-sim=yes --branch-sim=yes` \
         on this kiki binary, collecting only inside `{MEASURED_FUNCTION}` \
         (`--collect-atstart=no --toggle-collect`), so table building and input generation are \
         not counted. Each cell is the difference of two runs of that workload (same allocation, so \
         the same cache state when measuring starts), one measuring its first {lookups} lookups \
         and the other its first {double}: the cost of the stream's second half after its \
         first, with cold misses cancelled — one stream's steady state, so no cell can show \
         more LL than L1 misses beyond the {EDGE_MISSES} or so that the measured function's \
         exit may miss in one run and not the other (checked; a cell that did would be named \
         in the findings). The inputs do not stream through the simulated caches: a run never \
         holds them in memory but reads them {CHUNK_LOOKUPS} lookups at a time, between calls \
         of the collected function, from the file through a {READ_BUFFER}-byte buffer (filled \
         by read(2), whose copies valgrind does not simulate), into the same buffers every \
         time — the chunk's packed lookups, 4 bytes each, and its nodes' occupancies in the \
         backend's own layout (one per node, some {nodes} at the walk's 7.9 lookups per node, \
         16 bytes each for the split bitboards up to 121 for mailbox's padded board). So the \
         inputs' footprint in the simulated caches is those buffers, about {footprint} at most, \
         the same at every lookup count and far below any simulated L1d, as an engine's \
         position stays in its L1; a backend's misses are its tables' (and its code's), not \
         its inputs'. Why: with all {double} inputs in memory, as E8 held them up to the \
         2026-11-29-3 report, some 12 to 20 bytes per lookup, whether the measured half's inputs were still in the LL when \
         read depended on the lookup count, and sqww, which has no tables, missed a 4 MiB LL \
         0.224 times per lookup at 200,000 lookups and 0.001 times at 100,000. The chunks \
         cost every backend alike, per lookup: a call's entry and exit (30 to 40 instructions \
         a call, 0.3 to 0.4 a lookup) and its loop's last branch (0.01 mispredicts). The \
         lookups-alone loop holds nothing but the lookups: the pressure variant's loop, with \
         the evaluation reads, is a function of its own (one function served both up to the \
         2026-11-29-3 report, and the reads' code it carried cost the lookups-alone cells up \
         to 7 instructions per lookup). sqww is the negative control: reading no table, its \
         misses are the inputs' and the code's (see the findings). Geometries are given explicitly. {list} Simulation is \
         deterministic: one run per cell. Estimated cycles per lookup = (Ir + \
         {L1_MISS_CYCLES}·(I1mr + D1mr + D1mw) + {LL_MISS_CYCLES}·(ILmr + DLmr + DLmw)) / \
         lookups — a rough in-order model with no overlap of misses, for ranking, not for \
         predicting wall time; L1 and LL misses are instruction and data together. Branch \
         mispredicts per lookup (Bcm + Bim) come from valgrind's branch simulator, a model of a \
         mid-2000s predictor (16 Ki 2-bit counters indexed by address and recent history for \
         conditional branches, a 512-entry target table for indirect ones); they are reported \
         beside the cycle estimate, not in it. Seed 004's scenario, deterministically: every \
         geometry again with {EVAL_READS} random 8-byte reads of an evaluation buffer twice the \
         LL's size after each lookup, and an evaluation-alone run doing the identical reads — \
         the same number, at the same indices (one hash of the read count), from a buffer \
         aligned to a power of two at least its size so that they fall in the same cache sets \
         whatever the backend's tables did to the heap — over the same input stream, with no \
         lookup. The pressure table isolates the tables' share: each column is the backend's \
         run minus the evaluation-alone run, per lookup (L1 misses, LL misses, estimated \
         cycles), which is what the lookups add, their own misses and the evaluation lines \
         their tables evict; the evaluation's own misses are in the findings. Consecutive nodes \
         differ by a move or an unmake-and-make, so the lookups reuse table lines as a search \
         does, and the lookups-alone cells measure the tables as that walk keeps them; the \
         evaluation is what evicts them."
    )
}

/// The E8 section when valgrind cannot run here.
pub fn unavailable(
    reason: &str,
    lookups: usize,
    geometries: &[CacheGeometry],
    stream: &str,
) -> ExperimentResult {
    ExperimentResult {
        wall_seconds: None,
        comparisons: Vec::new(),
        id: "E8".into(),
        title: TITLE.into(),
        method: method(lookups, geometries, stream),
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
/// valgrind could not run, with why; `stream`: the workload's description).
pub fn experiment(
    all_results: &[SimResult],
    failures: &[String],
    lookups: usize,
    geometries: &[CacheGeometry],
    valgrind: &str,
    stream: &str,
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
    let mut series = plain_series(results);
    let mut tables = vec![plain_table(results, &backends, &geometry_names)];
    let mut plots = if results.is_empty() {
        Vec::new()
    } else {
        plain_plots(results, &backends, &geometry_names)
    };
    let mut findings = Vec::new();
    let mut summary = vec![
        ("available".to_string(), Json::Bool(true)),
        ("valgrind".to_string(), Json::from(valgrind)),
    ];
    let mut best_per_geometry = Vec::new();
    let mut mispredicts_per_geometry = Vec::new();
    for g in &geometry_names {
        let Some(ranking) = Ranking::of(results, g) else {
            continue;
        };
        mispredicts_per_geometry.push((g.clone(), ranking.mispredicts));
        findings.push(ranking.finding);
        best_per_geometry.push((g.clone(), Json::from(ranking.best)));
    }
    if let Some((sentence, control)) = negative_control(results, &geometry_names) {
        findings.push(sentence);
        summary.push(("negative_control".into(), control));
    }
    if let Some(seed_case) = seed_prediction(results, &geometry_names) {
        findings.push(seed_case);
    }
    if let Some(under) = pressure(all_results, &geometry_names) {
        series.extend(under.series);
        tables.push(under.table);
        plots.push(under.plot);
        findings.extend(under.findings);
        summary.push((
            "best_backend_per_geometry_under_pressure".into(),
            Json::Object(under.best.into_iter().collect()),
        ));
        summary.push((
            "evaluation_alone_per_lookup".into(),
            Json::Object(under.evaluation_alone.into_iter().collect()),
        ));
    }
    let inconsistent = inconsistent(results);
    if !inconsistent.is_empty() {
        findings.push(format!(
            "Inconsistent cells, more LL than L1 misses, which one stream cannot give: {}.",
            inconsistent.join("; ")
        ));
    }
    if !failures.is_empty() {
        findings.push(format!("Not simulated: {}.", failures.join("; ")));
    }
    summary.push((
        "best_backend_per_geometry".into(),
        Json::Object(best_per_geometry.into_iter().collect()),
    ));
    summary.push((
        "mispredicts_per_lookup".into(),
        Json::Object(mispredicts_per_geometry.into_iter().collect()),
    ));
    summary.push(("consistent".into(), Json::Bool(inconsistent.is_empty())));
    summary.push(("lookups".into(), Json::from(lookups as u64)));
    ExperimentResult {
        wall_seconds: None,
        comparisons: Vec::new(),
        id: "E8".into(),
        title: TITLE.into(),
        method: method(lookups, geometries, stream),
        series,
        tables,
        plots,
        findings: findings.join(" "),
        summary,
    }
}

/// Every lookups-alone cell's counts per lookup, one series per count.
fn plain_series(results: &[SimResult]) -> Vec<Series> {
    let mut series = Vec::new();
    for r in results {
        let labels = vec![
            ("backend".to_string(), r.backend.clone()),
            ("geometry".to_string(), r.geometry.clone()),
        ];
        for (unit, value) in [
            ("Ir/lookup", r.counts.ir as f64),
            ("L1 misses/lookup", r.counts.l1_misses() as f64),
            ("LL misses/lookup", r.counts.ll_misses() as f64),
            ("branch mispredicts/lookup", r.counts.mispredicts() as f64),
            ("estimated cycles/lookup", r.counts.estimated_cycles()),
        ] {
            series.push(Series {
                labels: labels.clone(),
                unit: unit.into(),
                samples: vec![r.per_lookup(value)],
            });
        }
    }
    series
}

/// The lookups-alone counts per geometry and backend.
fn plain_table(results: &[SimResult], backends: &[String], geometry_names: &[String]) -> Table {
    let find = |b: &str, g: &str| results.iter().find(|r| r.backend == b && r.geometry == g);
    let mut table = Table {
        headers: [
            "backend",
            "geometry",
            "Ir/lookup",
            "L1 misses/lookup",
            "LL misses/lookup",
            "mispredicts/lookup",
            "est. cycles/lookup",
        ]
        .map(String::from)
        .to_vec(),
        rows: Vec::new(),
    };
    for g in geometry_names {
        for b in backends {
            if let Some(r) = find(b, g) {
                table.rows.push(vec![
                    b.clone(),
                    g.clone(),
                    format!("{:.1}", r.per_lookup(r.counts.ir as f64)),
                    format!("{:.3}", r.per_lookup(r.counts.l1_misses() as f64)),
                    format!("{:.3}", r.per_lookup(r.counts.ll_misses() as f64)),
                    format!("{:.3}", r.per_lookup(r.counts.mispredicts() as f64)),
                    format!("{:.1}", r.per_lookup(r.counts.estimated_cycles())),
                ]);
            }
        }
    }
    table
}

/// Estimated cycles and LL misses per lookup, per geometry and backend, as bar plots.
fn plain_plots(results: &[SimResult], backends: &[String], geometry_names: &[String]) -> Vec<Plot> {
    let find = |b: &str, g: &str| results.iter().find(|r| r.backend == b && r.geometry == g);
    let bar_plot =
        |stem: &str, title: &str, y_label: &str, value: &dyn Fn(&SimResult) -> f64| Plot {
            file_stem: stem.into(),
            title: title.into(),
            x_label: "simulated cache geometry".into(),
            y_label: y_label.into(),
            log_x: false,
            log_y: false,
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
        };
    vec![
        bar_plot(
            "e8-estimated-cycles",
            "E8 estimated cycles per lookup (simulated caches)",
            "estimated cycles / lookup",
            &|r| r.per_lookup(r.counts.estimated_cycles()),
        ),
        bar_plot(
            "e8-ll-misses",
            "E8 last-level misses per lookup (simulated caches)",
            "LL misses / lookup",
            &|r| r.per_lookup(r.counts.ll_misses() as f64),
        ),
    ]
}

/// One geometry's backends ranked by estimated cycles: the finding, the mispredicts per
/// backend and the cheapest backend.
struct Ranking {
    finding: String,
    mispredicts: Json,
    best: String,
}

impl Ranking {
    fn of(results: &[SimResult], g: &str) -> Option<Ranking> {
        let mut ranked: Vec<&SimResult> = results.iter().filter(|r| r.geometry == g).collect();
        ranked.sort_by(|a, b| {
            a.counts
                .estimated_cycles()
                .total_cmp(&b.counts.estimated_cycles())
        });
        let (Some(best), Some(worst)) = (ranked.first(), ranked.last()) else {
            return None;
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
        let mispredicts = |r: &SimResult| r.per_lookup(r.counts.mispredicts() as f64);
        let fewest = ranked
            .iter()
            .min_by(|a, b| mispredicts(a).total_cmp(&mispredicts(b)))
            .expect("ranked is not empty");
        let most = ranked
            .iter()
            .max_by(|a, b| mispredicts(a).total_cmp(&mispredicts(b)))
            .expect("ranked is not empty");
        let branch_sentence = format!(
            "simulated branch mispredicts run from {:.3} per lookup ({}) to {:.3} ({})",
            mispredicts(fewest),
            fewest.backend,
            mispredicts(most),
            most.backend
        );
        let finding = format!(
            "With {g}, {} is cheapest at {:.1} estimated cycles per lookup{} and {} dearest at \
             {:.1} ({:.1}×); {ll_sentence}; {branch_sentence}.",
            best.backend,
            cycles(best),
            near(&best.backend, cycles(best), &all),
            worst.backend,
            cycles(worst),
            cycles(worst) / cycles(best).max(1e-9),
        );
        Some(Ranking {
            finding,
            mispredicts: Json::Object(
                ranked
                    .iter()
                    .map(|r| (r.backend.clone(), Json::from(mispredicts(r))))
                    .collect(),
            ),
            best: best.backend.clone(),
        })
    }
}

/// The cells with more LL than L1 misses: one stream's steady state has no more LL than L1
/// misses, so a cell with more is not one.
fn inconsistent(results: &[SimResult]) -> Vec<String> {
    results
        .iter()
        .filter(|r| !r.counts.consistent())
        .map(|r| {
            format!(
                "{} with {} ({:.3} LL against {:.3} L1 misses per lookup)",
                r.backend,
                r.geometry,
                r.per_lookup(r.counts.ll_misses() as f64),
                r.per_lookup(r.counts.l1_misses() as f64)
            )
        })
        .collect()
}

/// The pressure variant, summarised: what each backend's lookups add to the evaluation's own
/// counts (backend run minus the evaluation-alone run, per lookup).
struct Pressure {
    series: Vec<Series>,
    table: Table,
    plot: Plot,
    findings: Vec<String>,
    best: Vec<(String, Json)>,
    /// Per geometry: the evaluation-alone run's own misses and cycles per lookup.
    evaluation_alone: Vec<(String, Json)>,
}

/// One backend under pressure: its run minus the evaluation-alone run, per lookup.
struct Marginal {
    geometry: String,
    backend: String,
    eval_bytes: usize,
    l1: f64,
    ll: f64,
    cycles: f64,
    /// The same lookups' estimated cycles without the evaluation.
    without: Option<f64>,
}

impl Marginal {
    /// How much the evaluation multiplies the lookups' own cost.
    fn growth(&self) -> Option<f64> {
        self.without.map(|w| self.cycles / w.max(1e-9))
    }
}

/// The marginals of every backend under pressure, with the evaluation-alone runs they subtract
/// (per geometry, as summary values and as sentences).
struct Marginals {
    rows: Vec<Marginal>,
    evaluation_alone: Vec<(String, Json)>,
    alone_sentences: Vec<String>,
}

impl Marginals {
    fn of(results: &[SimResult], geometries: &[String]) -> Marginals {
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
        let mut out = Marginals {
            rows: Vec::new(),
            evaluation_alone: Vec::new(),
            alone_sentences: Vec::new(),
        };
        for g in geometries {
            let Some(base) = alone(g) else { continue };
            let base_l1 = base.per_lookup(base.counts.l1_misses() as f64);
            let base_ll = base.per_lookup(base.counts.ll_misses() as f64);
            let base_cycles = base.per_lookup(base.counts.estimated_cycles());
            out.evaluation_alone.push((
                g.clone(),
                serde_json::json!({
                    "eval_bytes": base.eval_bytes,
                    "l1_misses": base_l1,
                    "ll_misses": base_ll,
                    "estimated_cycles": base_cycles,
                }),
            ));
            out.alone_sentences.push(format!(
                "{g}: {base_l1:.3} L1 and {base_ll:.3} LL misses, {base_cycles:.1} estimated cycles"
            ));
            for r in under
                .iter()
                .filter(|r| &r.geometry == g && r.backend != EVAL_ALONE)
            {
                out.rows.push(Marginal {
                    geometry: g.clone(),
                    backend: r.backend.clone(),
                    eval_bytes: r.eval_bytes,
                    l1: r.per_lookup(r.counts.l1_misses() as f64) - base_l1,
                    ll: r.per_lookup(r.counts.ll_misses() as f64) - base_ll,
                    cycles: r.per_lookup(r.counts.estimated_cycles()) - base_cycles,
                    without: plain(&r.backend, g)
                        .map(|p| p.per_lookup(p.counts.estimated_cycles())),
                });
            }
        }
        out
    }
}

fn pressure(results: &[SimResult], geometries: &[String]) -> Option<Pressure> {
    let Marginals {
        rows,
        evaluation_alone,
        alone_sentences,
    } = Marginals::of(results, geometries);
    if rows.is_empty() {
        return None;
    }
    let (series, table) = pressure_series_and_table(&rows);
    let shown: Vec<&String> = geometries
        .iter()
        .filter(|g| rows.iter().any(|r| &r.geometry == *g))
        .collect();
    let mut findings = vec![format!(
        "The evaluation alone ({EVAL_READS} reads per lookup, no lookup), which every pressure \
         row subtracts, costs per lookup — {}.",
        alone_sentences.join("; ")
    )];
    let mut best = Vec::new();
    for g in &shown {
        let Some((sentence, cheapest)) = pressure_finding(&rows, g) else {
            continue;
        };
        findings.push(sentence);
        best.push(cheapest);
    }
    Some(Pressure {
        series,
        table,
        plot: pressure_plot(&rows, &shown),
        findings,
        best,
        evaluation_alone,
    })
}

/// The marginals as series and as a table.
fn pressure_series_and_table(rows: &[Marginal]) -> (Vec<Series>, Table) {
    let mut series = Vec::new();
    let mut table = Table {
        headers: [
            "backend",
            "geometry",
            "evaluation",
            "marginal L1 misses/lookup",
            "marginal LL misses/lookup",
            "marginal est. cycles/lookup",
            "× without evaluation",
        ]
        .map(String::from)
        .to_vec(),
        rows: Vec::new(),
    };
    for r in rows {
        let labels = vec![
            ("backend".to_string(), r.backend.clone()),
            ("geometry".to_string(), r.geometry.clone()),
            ("eval_bytes".to_string(), r.eval_bytes.to_string()),
        ];
        for (unit, value) in [
            ("marginal L1 misses/lookup", r.l1),
            ("marginal LL misses/lookup", r.ll),
            ("marginal estimated cycles/lookup", r.cycles),
        ] {
            series.push(Series {
                labels: labels.clone(),
                unit: unit.into(),
                samples: vec![value],
            });
        }
        table.rows.push(vec![
            r.backend.clone(),
            r.geometry.clone(),
            compact_bytes(r.eval_bytes as f64),
            format!("{:.3}", r.l1),
            format!("{:.3}", r.ll),
            format!("{:.1}", r.cycles),
            r.growth().map_or("–".into(), |g| format!("{g:.2}")),
        ]);
    }
    (series, table)
}

/// The marginal cycles per lookup, per geometry shown and backend, as a bar plot.
fn pressure_plot(rows: &[Marginal], shown: &[&String]) -> Plot {
    let backends = dedup(rows.iter().map(|r| r.backend.clone()));
    Plot {
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
                            .find(|r| &r.geometry == *g && &r.backend == b)
                            .map(|r| Point {
                                x: i as f64,
                                y: r.cycles,
                                y_low: r.cycles,
                                y_high: r.cycles,
                            })
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// Geometry `g` under pressure: who adds the least and the most, who is hurt most relative to
/// its cost alone, and magic-plain's LL misses against dbb's; with the cheapest backend as a
/// summary entry.
fn pressure_finding(rows: &[Marginal], g: &str) -> Option<(String, (String, Json))> {
    let mut ranked: Vec<&Marginal> = rows.iter().filter(|r| r.geometry == g).collect();
    ranked.sort_by(|a, b| a.cycles.total_cmp(&b.cycles));
    let (Some(first), Some(last)) = (ranked.first(), ranked.last()) else {
        return None;
    };
    let grew = |r: &Marginal| {
        r.growth()
            .map_or(String::new(), |g| format!(", ×{g:.2} its cost alone"))
    };
    let added: Vec<(&str, f64)> = ranked
        .iter()
        .map(|r| (r.backend.as_str(), r.cycles))
        .collect();
    let mut sentence = format!(
        "Beside an evaluation of {} ({EVAL_READS} random reads per lookup) with {g}, {} adds \
         the least, {:.1} estimated cycles per lookup{}{}, and {} the most, {:.1}{}",
        compact_bytes(first.eval_bytes as f64),
        first.backend,
        first.cycles,
        grew(first),
        near(&first.backend, first.cycles, &added),
        last.backend,
        last.cycles,
        grew(last),
    );
    // Who the pressure hurts most and least, relative to the same lookups without it.
    let mut growth: Vec<(&str, f64)> = ranked
        .iter()
        .filter_map(|r| r.growth().map(|g| (r.backend.as_str(), g)))
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
    let find = |b: &str| ranked.iter().find(|r| r.backend == b);
    if let (Some(plain_magic), Some(dbb)) = (find("magic-plain"), find("dbb")) {
        sentence.push_str(&format!(
            "; magic-plain adds {:.3} LL misses per lookup to the evaluation's, dbb {:.3}",
            plain_magic.ll, dbb.ll
        ));
    }
    sentence.push('.');
    let best = (
        format!("{g}, evaluation {}", compact_bytes(first.eval_bytes as f64)),
        Json::from(first.backend.clone()),
    );
    Some((sentence, best))
}

/// The negative control: the backend that reads no table at all.
pub const CONTROL: &str = "sqww";

/// Misses per lookup below which the negative control reads as none: its inputs and code stay
/// cached.
const CONTROL_NONE: f64 = 0.005;

/// The negative control's L1 and LL misses per lookup, the most over the geometries: what
/// every backend pays for its inputs and its code, as [`CONTROL`] reads no table. A sentence
/// and, per geometry, its misses as a summary value.
fn negative_control(results: &[SimResult], geometries: &[String]) -> Option<(String, Json)> {
    let cells: Vec<&SimResult> = geometries
        .iter()
        .filter_map(|g| {
            results
                .iter()
                .find(|r| &r.geometry == g && r.backend == CONTROL)
        })
        .collect();
    if cells.is_empty() {
        return None;
    }
    let l1 = |r: &SimResult| r.per_lookup(r.counts.l1_misses() as f64);
    let ll = |r: &SimResult| r.per_lookup(r.counts.ll_misses() as f64);
    let most_l1 = cells.iter().map(|r| l1(r)).fold(0.0, f64::max);
    let most_ll = cells.iter().map(|r| ll(r)).fold(0.0, f64::max);
    let reading = if most_l1 < CONTROL_NONE && most_ll < CONTROL_NONE {
        "its inputs and its code stay cached, so the other backends' misses are their tables'"
    } else {
        "what the inputs and the code cost every backend: read the others' misses net of it"
    };
    let sentence = format!(
        "Negative control: {CONTROL}, which reads no table, misses L1 {most_l1:.3} and LL \
         {most_ll:.3} times per lookup at most over the geometries — {reading}."
    );
    let per_geometry = cells
        .iter()
        .map(|r| {
            (
                r.geometry.clone(),
                serde_json::json!({ "l1_misses": l1(r), "ll_misses": ll(r) }),
            )
        })
        .collect();
    Some((sentence, Json::Object(per_geometry)))
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

/// A short category label for plots: `this CPU (effective): LL = L3 4 MiB` / `2008: LL 12 MiB`.
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
