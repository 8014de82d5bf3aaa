//! E9's analysis: E1 and E2 from binaries built for different instruction-set levels, compared
//! one factor at a time, cell by cell, with intervals across process slots.
//!
//! Each run is one build's `results.json` from one slot; a build has one run per slot. Series
//! are matched across builds by their labels and unit, so every comparison is like for like.
//! A step compares two builds one factor apart (the portable twins against run-time-detected
//! paths, then one instruction-set level against the next) per cell and, per backend, as a
//! geometric mean over its cells; every ratio has a 95 % interval and a claim at the threshold.

use crate::experiments::claims::percent;
use crate::results::{
    ExperimentResult, PairRecord, Plot, PlotKind, PlotLine, Point, Series, Table,
};
use crate::stats::{compare_slots, Claim, Comparison, SlotPair};
use serde_json::Value as Json;
use std::collections::BTreeMap;

pub const TITLE: &str = "instruction-set levels (the same experiments per build)";

/// The seed of every E9 interval: the same data always gives the same interval.
const SEED: u64 = 0xE9_0001;

/// Per-cell changes listed per step.
const LARGEST: usize = 5;

/// One build's run in one slot: its level name (`x86-64`, `x86-64-v3`, `native`, …) and the
/// experiments of its `results.json`. A level with several runs has one per slot, in order.
pub struct IsaRun {
    pub level: String,
    pub results: Vec<ExperimentResult>,
}

/// Two builds one factor apart: `level` against `base`, and what differs between them. A
/// control step changes no backend's code path, so every cell it claims is a false claim.
struct Step {
    level: &'static str,
    base: &'static str,
    factor: &'static str,
    control: bool,
}

/// Every step E9 knows, in the order the report lists them; a step runs where both builds did.
const STEPS: [Step; 6] = [
    Step {
        level: "x86-64",
        base: "x86-64-portable",
        factor: "the negative control: at the baseline level `portable` changes no backend's \
                 path (qugiy's SIMD needs SSSE3 at compile time, pext dispatches BMI2 at run time \
                 in both builds)",
        control: true,
    },
    Step {
        level: "x86-64-v3-portable",
        base: "x86-64-portable",
        factor: "what the compiler makes of AVX2, BMI1/2, POPCNT and LZCNT with the portable \
                 twins (pext's PEXT inlined instead of called through its run-time check)",
        control: false,
    },
    Step {
        level: "x86-64-v3",
        base: "x86-64-v3-portable",
        factor: "the explicit SIMD paths (qugiy's AVX2) against their portable twins, at the \
                 default level",
        control: false,
    },
    Step {
        level: "x86-64-v4",
        base: "x86-64-v3",
        factor: "AVX-512 at compile time",
        control: false,
    },
    Step {
        level: "native",
        base: "x86-64-v3",
        factor: "everything this CPU has, at compile time, with its own tuning",
        control: false,
    },
    Step {
        level: "native",
        base: "x86-64-v4",
        factor: "this CPU's own tuning and any feature beyond v4, AVX-512 on both sides",
        control: false,
    },
];

/// A control step claiming more than this share of its cells says the intervals are too narrow.
const CONTROL_CLAIMS_WARNING: f64 = 0.05;

/// The control's widest per-backend excursion from 1 (as a fraction: 0.05 for ×0.95–×1.05).
fn noise_floor(control: &StepResult) -> f64 {
    control
        .per_backend
        .iter()
        .map(|(_, c)| (c.low.ln().abs()).max(c.high.ln().abs()))
        .fold(0.0, f64::max)
        .exp()
        - 1.0
}

impl Step {
    fn name(&self) -> String {
        format!("{} vs {}", self.level, self.base)
    }
}

/// A series matched across builds: which experiment and backend, its other labels, and whether
/// it is a rate (higher is better) or a time.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct CellKey {
    experiment: String,
    backend: String,
    labels: Vec<(String, String)>,
    unit: String,
}

impl CellKey {
    fn label(&self, key: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    fn describe(&self) -> String {
        let labels: Vec<String> = self
            .labels
            .iter()
            .filter(|(k, _)| k != "backend")
            .map(|(_, v)| v.clone())
            .collect();
        format!(
            "{} {} {} ({})",
            self.experiment,
            self.backend,
            labels.join(" "),
            self.unit
        )
    }
}

/// Rates (`…/s`) are better higher; times (`ns/…`, `s`) lower; anything else is not compared.
fn as_time(unit: &str) -> Option<fn(f64) -> f64> {
    if unit.ends_with("/s") {
        Some(|rate| 1.0 / rate)
    } else if unit.starts_with("ns") || unit == "s" {
        Some(|time| time)
    } else {
        None
    }
}

/// Per level, per cell: one block of samples per slot, in slot order.
type Blocks = BTreeMap<CellKey, Vec<Vec<f64>>>;

fn blocks(runs: &[IsaRun], level: &str) -> Blocks {
    let mut out: Blocks = BTreeMap::new();
    for run in runs.iter().filter(|r| r.level == level) {
        for experiment in run.results.iter().filter(|e| e.id != "E9") {
            for series in &experiment.series {
                let Some(backend) = series.label("backend") else {
                    continue;
                };
                // E1's null-lookup loop is a baseline for its cells, not a cell of its own.
                if as_time(&series.unit).is_none() || series.label("lookup") == Some("null") {
                    continue;
                }
                let key = CellKey {
                    experiment: experiment.id.clone(),
                    backend: backend.to_string(),
                    labels: series.labels.clone(),
                    unit: series.unit.clone(),
                };
                out.entry(key).or_default().push(series.samples.clone());
            }
        }
    }
    out
}

/// Each sample as a time (rates inverted), so that a ratio below 1 is always faster.
fn times(key: &CellKey, slots: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let to_time = as_time(&key.unit).unwrap_or(|x| x);
    slots
        .iter()
        .map(|s| s.iter().map(|&x| to_time(x)).collect())
        .collect()
}

/// The speed of `level` relative to `base` (> 1: faster) with its interval, from a time ratio.
fn speed(c: &Comparison) -> (f64, f64, f64) {
    (1.0 / c.ratio, 1.0 / c.high, 1.0 / c.low)
}

/// `×1.250 [1.200–1.300] faster`: the speed with its interval and its claim at `threshold`
/// (level only where the whole interval lies inside it, else unresolved).
fn speed_text(c: &Comparison, threshold: f64) -> String {
    let (s, low, high) = speed(c);
    let claim = match c.claim {
        Claim::Faster => "faster",
        Claim::Slower => "slower",
        Claim::Level if c.within(threshold) => "level",
        Claim::Level => "unresolved",
    };
    format!("×{s:.3} [{low:.3}–{high:.3}] {claim}")
}

/// One step's results for one source experiment.
struct StepResult {
    /// Per backend: the geometric mean over its cells.
    per_backend: Vec<(String, Comparison)>,
    /// Per cell, in key order.
    per_cell: Vec<(CellKey, Comparison)>,
    /// The threshold the per-backend claims were made at.
    backend_threshold: f64,
}

impl StepResult {
    /// Cells faster, level and slower at the threshold.
    fn counts(&self) -> (usize, usize, usize) {
        self.counts_where(|_| true)
    }

    /// As [`StepResult::counts`] over the cells `keep` selects.
    fn counts_where(&self, keep: impl Fn(&CellKey) -> bool) -> (usize, usize, usize) {
        let count = |claim: Claim| {
            self.per_cell
                .iter()
                .filter(|(k, c)| keep(k) && c.claim == claim)
                .count()
        };
        (
            count(Claim::Faster),
            count(Claim::Level),
            count(Claim::Slower),
        )
    }

    /// The cells that changed beyond the threshold, largest change first.
    fn changed(&self) -> Vec<&(CellKey, Comparison)> {
        let mut changed: Vec<&(CellKey, Comparison)> = self
            .per_cell
            .iter()
            .filter(|(_, c)| c.claim != Claim::Level)
            .collect();
        // Ranked by the interval's bound nearest 1: the change the data guarantee, so that a
        // noisy cell with a wide interval does not outrank a clear one.
        let guaranteed = |c: &Comparison| c.low.ln().max(-c.high.ln());
        changed.sort_by(|a, b| guaranteed(&b.1).total_cmp(&guaranteed(&a.1)));
        changed
    }
}

/// `level` against `base` for `source`'s cells: each cell claimed at `threshold`, each
/// backend's geometric mean at `backend_threshold` (the control's noise floor, where wider).
fn step_result(
    source: &str,
    level: &Blocks,
    base: &Blocks,
    threshold: f64,
    backend_threshold: f64,
) -> Option<StepResult> {
    let mut per_cell = Vec::new();
    let mut by_backend: BTreeMap<String, Vec<SlotPair>> = BTreeMap::new();
    for (key, base_slots) in base.iter().filter(|(k, _)| k.experiment == source) {
        let Some(level_slots) = level.get(key) else {
            continue;
        };
        let pair = (times(key, level_slots), times(key, base_slots));
        if let Some(c) = compare_slots(std::slice::from_ref(&pair), threshold, SEED) {
            per_cell.push((key.clone(), c));
            by_backend
                .entry(key.backend.clone())
                .or_default()
                .push(pair);
        }
    }
    let per_backend: Vec<(String, Comparison)> = by_backend
        .into_iter()
        .filter_map(|(backend, cells)| {
            Some((backend, compare_slots(&cells, backend_threshold, SEED)?))
        })
        .collect();
    (!per_cell.is_empty()).then_some(StepResult {
        per_backend,
        per_cell,
        backend_threshold,
    })
}

/// Folds the runs into E9: every step whose two builds both ran, at `threshold`.
pub fn experiment(runs: &[IsaRun], threshold: f64) -> ExperimentResult {
    let mut levels: Vec<String> = Vec::new();
    for run in runs {
        if !levels.contains(&run.level) {
            levels.push(run.level.clone());
        }
    }
    let slots = levels
        .iter()
        .map(|l| runs.iter().filter(|r| &r.level == l).count())
        .max()
        .unwrap_or(0);
    let per_level: BTreeMap<&str, Blocks> = levels
        .iter()
        .map(|l| (l.as_str(), blocks(runs, l)))
        .collect();
    let sources: Vec<String> = {
        let mut s: Vec<String> = per_level
            .values()
            .flat_map(|b| b.keys().map(|k| k.experiment.clone()))
            .collect();
        s.sort();
        s.dedup();
        s
    };
    let steps: Vec<&Step> = STEPS
        .iter()
        .filter(|s| per_level.contains_key(s.level) && per_level.contains_key(s.base))
        .collect();

    let mut fold = Fold::new(&steps);
    for source in &sources {
        fold.source(source, &steps, &per_level, threshold);
    }
    let Fold {
        backend_table,
        count_table,
        largest_table,
        comparisons,
        plots,
        mut findings,
        summary,
    } = fold;
    if findings.is_empty() {
        findings.push(
            "Fewer than two builds one step apart had matching series, so nothing could be \
             compared."
                .into(),
        );
    }
    let mut tables = vec![backend_table, count_table];
    if !largest_table.rows.is_empty() {
        tables.push(largest_table);
    }
    ExperimentResult {
        wall_seconds: None,
        comparisons,
        id: "E9".into(),
        title: TITLE.into(),
        method: method(&levels, &steps, &sources, slots, threshold),
        series: raw_series(&levels, &per_level),
        tables,
        plots: plots.into_iter().filter(|p| !p.lines.is_empty()).collect(),
        findings: findings.join(" "),
        summary,
    }
}

/// Raw samples of every build, one block per slot, under the `isa` label.
fn raw_series(levels: &[String], per_level: &BTreeMap<&str, Blocks>) -> Vec<Series> {
    let mut series = Vec::new();
    for level in levels {
        for (key, slot_samples) in &per_level[level.as_str()] {
            let mut labels = vec![
                ("isa".to_string(), level.clone()),
                ("source".to_string(), key.experiment.clone()),
            ];
            labels.extend(key.labels.iter().cloned());
            series.push(Series {
                labels,
                unit: key.unit.clone(),
                samples: slot_samples.concat(),
            });
        }
    }
    series
}

/// E9's tables, claims, plots, findings and summary, filled source by source, step by step.
struct Fold {
    /// Per source and backend: each step's speed.
    backend_table: Table,
    /// Per step and source (and E1's mode): cells faster, level and slower.
    count_table: Table,
    /// Per step: the cells that changed most.
    largest_table: Table,
    comparisons: Vec<PairRecord>,
    plots: Vec<Plot>,
    findings: Vec<String>,
    summary: Vec<(String, Json)>,
}

fn headers(names: &[&str]) -> Vec<String> {
    names.iter().map(|h| h.to_string()).collect()
}

impl Fold {
    fn new(steps: &[&Step]) -> Fold {
        let mut backend_headers = headers(&["experiment", "backend"]);
        backend_headers.extend(steps.iter().map(|s| format!("{} speed", s.name())));
        let table = |headers: Vec<String>| Table {
            headers,
            rows: Vec::new(),
        };
        Fold {
            backend_table: table(backend_headers),
            count_table: table(headers(&[
                "step",
                "experiment",
                "cells faster",
                "cells level",
                "cells slower",
            ])),
            largest_table: table(headers(&["step", "cell", "speed [95 % interval] claim"])),
            comparisons: Vec::new(),
            plots: Vec::new(),
            findings: Vec::new(),
            summary: Vec::new(),
        }
    }

    /// Every step of `source`: its backends' rows, its plot, and each step's cells.
    fn source(
        &mut self,
        source: &str,
        steps: &[&Step],
        per_level: &BTreeMap<&str, Blocks>,
        threshold: f64,
    ) {
        // The control first: two builds of the same code differ only in layout (each build is
        // linked once), and its widest per-backend interval is the floor below which no other
        // step's per-backend change can be told from layout.
        let control = steps.iter().find(|s| s.control).and_then(|s| {
            step_result(
                source,
                &per_level[s.level],
                &per_level[s.base],
                threshold,
                threshold,
            )
        });
        let floor = control
            .as_ref()
            .map(|c| noise_floor(c).max(threshold))
            .unwrap_or(threshold);
        let results: Vec<Option<StepResult>> = steps
            .iter()
            .map(|s| {
                let backend_threshold = if s.control { threshold } else { floor };
                step_result(
                    source,
                    &per_level[s.level],
                    &per_level[s.base],
                    threshold,
                    backend_threshold,
                )
            })
            .collect();
        let mut backends: Vec<String> = results
            .iter()
            .flatten()
            .flat_map(|r| r.per_backend.iter().map(|(b, _)| b.clone()))
            .collect();
        backends.sort();
        backends.dedup();
        for backend in &backends {
            let mut row = vec![source.to_string(), backend.clone()];
            for result in &results {
                row.push(
                    result
                        .as_ref()
                        .and_then(|r| {
                            let (_, c) = r.per_backend.iter().find(|(b, _)| b == backend)?;
                            Some(speed_text(c, r.backend_threshold))
                        })
                        .unwrap_or_else(|| "—".into()),
                );
            }
            self.backend_table.rows.push(row);
        }
        let mut lines: Vec<PlotLine> = backends
            .iter()
            .map(|b| PlotLine {
                name: b.clone(),
                points: Vec::new(),
            })
            .collect();
        for (index, (step, result)) in steps.iter().zip(&results).enumerate() {
            if let Some(result) = result {
                self.step(source, (index, step), result, threshold, &mut lines);
            }
        }
        if !steps.is_empty() {
            self.plots.push(Plot {
                file_stem: format!("e9-{}", source.to_lowercase()),
                title: format!("E9 {source}: speed gained by each build step, per backend"),
                x_label: "step".into(),
                y_label: "speed ratio (geometric mean of the cells, 95 % interval)".into(),
                log_x: false,
                log_y: false,
                kind: PlotKind::Bar,
                categories: steps.iter().map(|s| s.name()).collect(),
                markers: Vec::new(),
                lines: lines.into_iter().filter(|l| !l.points.is_empty()).collect(),
            });
        }
    }

    /// One step of `source` (the `index`-th): its backends' points and claims, its counts, its
    /// largest changes, its cells' claims, its finding and its summary values.
    fn step(
        &mut self,
        source: &str,
        (index, step): (usize, &Step),
        result: &StepResult,
        threshold: f64,
        lines: &mut [PlotLine],
    ) {
        for (backend, c) in &result.per_backend {
            let (y, y_low, y_high) = speed(c);
            if let Some(line) = lines.iter_mut().find(|l| &l.name == backend) {
                line.points.push(Point {
                    x: index as f64,
                    y,
                    y_low: y_low.min(y),
                    y_high: y_high.max(y),
                });
            }
            self.comparisons.push(PairRecord {
                cell: format!("{source} {backend} (geometric mean of its cells)"),
                a: step.level.to_string(),
                b: step.base.to_string(),
                comparison: *c,
            });
        }
        self.count_rows(source, step, result);
        for (key, c) in result.changed().iter().take(LARGEST) {
            self.largest_table.rows.push(vec![
                step.name(),
                key.describe(),
                speed_text(c, threshold),
            ]);
        }
        for (key, c) in &result.per_cell {
            self.comparisons.push(PairRecord {
                cell: key.describe(),
                a: step.level.to_string(),
                b: step.base.to_string(),
                comparison: *c,
            });
        }
        self.findings
            .push(step_finding(step, source, result, threshold));
        let speeds: Vec<f64> = result.per_backend.iter().map(|(_, c)| speed(c).0).collect();
        if let (Some(lo), Some(hi)) = (
            speeds.iter().copied().reduce(f64::min),
            speeds.iter().copied().reduce(f64::max),
        ) {
            self.summary.push((
                format!("{source}_{}_vs_{}_range", step.level, step.base),
                Json::from(vec![lo, hi]),
            ));
        }
        let (faster, level, slower) = result.counts();
        self.summary.push((
            format!("{source}_{}_vs_{}_cells", step.level, step.base),
            Json::from(vec![faster, level, slower]),
        ));
    }

    /// The step's counts of cells faster, level and slower: per mode where E1's cells have
    /// several (a latency chain cannot be vectorised across lookups, a throughput loop can, so
    /// a change only in throughput cells points at the compiler), else one row.
    fn count_rows(&mut self, source: &str, step: &Step, result: &StepResult) {
        let modes: Vec<String> = {
            let mut m: Vec<String> = result
                .per_cell
                .iter()
                .filter_map(|(k, _)| k.label("mode").map(str::to_string))
                .collect();
            m.sort();
            m.dedup();
            m
        };
        if modes.len() > 1 {
            for mode in &modes {
                let (f, l, s) = result.counts_where(|k| k.label("mode") == Some(mode));
                self.count_table.rows.push(vec![
                    step.name(),
                    format!("{source} {mode}"),
                    f.to_string(),
                    l.to_string(),
                    s.to_string(),
                ]);
            }
        } else {
            let (faster, level, slower) = result.counts();
            self.count_table.rows.push(vec![
                step.name(),
                source.to_string(),
                faster.to_string(),
                level.to_string(),
                slower.to_string(),
            ]);
        }
    }
}

fn step_finding(step: &Step, source: &str, result: &StepResult, threshold: f64) -> String {
    let (faster, level, slower) = result.counts();
    let mut by_speed: Vec<&(String, Comparison)> = result.per_backend.iter().collect();
    by_speed.sort_by(|a, b| speed(&a.1).0.total_cmp(&speed(&b.1).0));
    let describe = |(backend, c): &(String, Comparison)| {
        format!("{backend} {}", speed_text(c, result.backend_threshold))
    };
    let range = match (by_speed.first(), by_speed.last()) {
        (Some(low), Some(high)) if by_speed.len() > 1 => {
            format!(
                "per backend (geometric mean of its cells) from {} to {}",
                describe(low),
                describe(high)
            )
        }
        (Some(only), _) => format!("for {}", describe(only)),
        _ => String::new(),
    };
    let largest = result
        .changed()
        .first()
        .map(|(key, c)| {
            format!(
                "; the largest change: {} {}",
                key.describe(),
                speed_text(c, threshold)
            )
        })
        .unwrap_or_default();
    let cells = result.per_cell.len();
    if step.control {
        let claimed = faster + slower;
        let share = claimed as f64 / cells.max(1) as f64;
        let backends_claimed: Vec<String> = result
            .per_backend
            .iter()
            .filter(|(_, c)| c.claim != Claim::Level)
            .map(|(b, c)| format!("{b} {}", speed_text(c, result.backend_threshold)))
            .collect();
        let backends = if backends_claimed.is_empty() {
            "no backend's geometric mean is claimed (the control passes at the backend level)"
                .to_string()
        } else {
            format!(
                "the control fails at the backend level: {} (the same code, linked into two \
                 binaries, differs by layout alone)",
                backends_claimed.join(", ")
            )
        };
        let cells_verdict = if share > CONTROL_CLAIMS_WARNING {
            format!(
                "more than {:.0} %, so per-cell claims here are not to be trusted one by one",
                CONTROL_CLAIMS_WARNING * 100.0
            )
        } else {
            "under 5 %, yet every such claim is false: read single cells with care".to_string()
        };
        return format!(
            "{source}, {} ({}): {backends}; {claimed} of {cells} cells ({:.1} %) are claimed \
             beyond ±{} %, {cells_verdict}{largest}. The other steps claim a backend's geometric \
             mean only beyond ±{} %, the widest excursion of this control's per-backend \
             intervals (or the threshold, if wider).",
            step.name(),
            step.factor,
            share * 100.0,
            percent(threshold),
            percent((noise_floor(result) * 1000.0).round() / 1000.0),
        );
    }
    format!(
        "{source}, {} ({}): {range} (claimed beyond ±{} %); of {cells} cells {faster} are faster \
         beyond ±{} %, {slower} slower and {level} level{largest}.",
        step.name(),
        step.factor,
        percent((result.backend_threshold * 1000.0).round() / 1000.0),
        percent(threshold),
    )
}

fn method(
    levels: &[String],
    steps: &[&Step],
    sources: &[String],
    slots: usize,
    threshold: f64,
) -> String {
    let steps_text = steps
        .iter()
        .map(|s| format!("{} ({})", s.name(), s.factor))
        .collect::<Vec<_>>()
        .join("; ");
    format!(
        "{} {} run at --quick sizes by separate binaries built for {} ({} process slot{} per \
         build: within a slot every build runs once, the order rotating from slot to slot, each \
         slot with its own environment size). Series with the same labels and unit are matched \
         across builds and compared step by step, one factor at a time: {}. Per cell the speed \
         ratio is exp(mean ln base − mean ln build) over the slots' rounds (rates are inverted \
         to times first); per backend, the geometric mean of its cells. Each has a 95 % interval \
         from a seeded hierarchical bootstrap (slots, shared by all cells, then each build's \
         rounds within them), and a step is called faster or slower only when the interval lies \
         wholly beyond ±{} % (a backend's geometric mean, in the first table, only beyond the \
         negative control's noise floor where that is wider; the findings give it). Raw samples of every build are kept under the `isa` label, one \
         block of rounds per slot.",
        if sources.is_empty() {
            "The experiments".to_string()
        } else {
            sources.join(" and ")
        },
        if sources.len() == 1 { "was" } else { "were" },
        if levels.is_empty() {
            "no level".to_string()
        } else {
            levels.join(", ")
        },
        slots,
        if slots == 1 { "" } else { "s" },
        if steps_text.is_empty() {
            "none ran".to_string()
        } else {
            steps_text
        },
        percent(threshold)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::ExperimentResult as E;

    /// One slot's run: a rate for qugiy and a time for dbb, `scale` times faster than 1.
    fn run(level: &str, scale: f64, wobble: f64) -> IsaRun {
        let series = |backend: &str, unit: &str, value: f64| Series {
            labels: vec![
                ("backend".into(), backend.into()),
                ("piece".into(), "rook".into()),
            ],
            unit: unit.into(),
            samples: vec![value * 0.99, value * wobble, value * 1.01],
        };
        let e1 = E {
            wall_seconds: None,
            comparisons: Vec::new(),
            id: "E1".into(),
            title: "t".into(),
            method: String::new(),
            series: vec![
                series("qugiy", "Mlookups/s", 100.0 * scale),
                series("dbb", "ns/lookup", 5.0 / scale),
                series("dbb", "instructions/lookup", 9.0),
            ],
            tables: Vec::new(),
            plots: Vec::new(),
            findings: String::new(),
            summary: Vec::new(),
        };
        IsaRun {
            level: level.into(),
            results: vec![e1],
        }
    }

    #[test]
    fn no_runs_fold_into_an_experiment_that_compares_nothing() {
        let e9 = experiment(&[], 0.03);
        assert!(
            e9.findings.starts_with("Fewer than two builds"),
            "{}",
            e9.findings
        );
        assert!(e9.series.is_empty() && e9.plots.is_empty());
    }

    #[test]
    fn steps_compare_neighbouring_builds_cell_by_cell() {
        let mut runs = Vec::new();
        for slot in 0..3 {
            let wobble = 1.0 + 0.002 * slot as f64;
            runs.push(run("x86-64-portable", 0.5, wobble));
            runs.push(run("x86-64", 0.5, wobble));
            runs.push(run("x86-64-v3-portable", 0.8, wobble));
            runs.push(run("x86-64-v3", 1.0, wobble));
            runs.push(run("native", 1.25, wobble));
        }
        let e = experiment(&runs, 0.03);
        let names: Vec<String> = e.tables[0].headers.clone();
        assert_eq!(
            names[2..],
            [
                "x86-64 vs x86-64-portable speed",
                "x86-64-v3-portable vs x86-64-portable speed",
                "x86-64-v3 vs x86-64-v3-portable speed",
                "native vs x86-64-v3 speed"
            ],
            "v4 did not run, so its step is left out"
        );
        let qugiy = e.tables[0].rows.iter().find(|r| r[1] == "qugiy").unwrap();
        assert!(qugiy[2].starts_with("×1.000") && qugiy[2].ends_with("level"));
        assert!(qugiy[3].starts_with("×1.600") && qugiy[3].ends_with("faster"));
        assert!(qugiy[4].starts_with("×1.250") && qugiy[4].ends_with("faster"));
        assert!(qugiy[5].starts_with("×1.250") && qugiy[5].ends_with("faster"));
        let dbb = e.tables[0].rows.iter().find(|r| r[1] == "dbb").unwrap();
        assert!(dbb[3].starts_with("×1.600"), "times are inverted: {dbb:?}");
        // Counts per step: the negative control (same code path twice) is level everywhere.
        assert_eq!(e.tables[1].rows[0][2..], ["0", "2", "0"]);
        assert_eq!(e.tables[1].rows[1][2..], ["2", "0", "0"]);
        assert!(
            e.findings.contains("0 of 2 cells (0.0 %) are claimed"),
            "{}",
            e.findings
        );
        // Two cells per step, per backend geomeans recorded beside them.
        assert_eq!(e.comparisons.len(), 4 * (2 + 2));
        assert!(
            e.findings.contains("x86-64-v3 vs x86-64-v3-portable"),
            "{}",
            e.findings
        );
        // Raw samples: one series per level and cell, three slots' blocks each.
        assert_eq!(e.series.len(), 5 * 2);
        assert!(e.series.iter().all(|s| s.samples.len() == 9));
        assert_eq!(e.plots.len(), 1);
        for line in &e.plots[0].lines {
            assert!(line
                .points
                .iter()
                .all(|p| p.y_low <= p.y && p.y <= p.y_high));
        }
        let none = experiment(&[run("x86-64", 1.0, 1.0)], 0.03);
        assert!(none.findings.contains("nothing could be compared"));
    }
}
