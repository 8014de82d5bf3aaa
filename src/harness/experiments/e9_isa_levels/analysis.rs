//! E9's analysis: the same measurements (E1 and E2) from binaries built for different
//! instruction-set levels, folded into one experiment.
//!
//! Each run is a `results.json`; series are matched across runs by their labels and unit, so
//! every comparison is like for like. Per backend, the geometric mean over matched series of
//! each run's median, relative to the reference level, says what the instruction set buys.

use crate::harness::results::{ExperimentResult, Plot, PlotKind, PlotLine, Point, Series, Table};
use serde_json::Value as Json;
use std::collections::BTreeMap;

pub const TITLE: &str = "instruction-set levels (the same experiments per build)";

/// One build's run: its level name (`x86-64`, `x86-64-v3`, `native`) and the experiments of
/// its `results.json`.
pub struct IsaRun {
    pub level: String,
    pub results: Vec<ExperimentResult>,
}

/// One series of a run: which experiment, its labels and unit, and its median.
#[derive(Clone, Debug)]
struct Measured {
    experiment: String,
    backend: String,
    key: String,
    unit: String,
    samples: Vec<f64>,
}

/// The median of the finite samples (a run may hold a failed, infinite or NaN, sample).
fn median(samples: &[f64]) -> Option<f64> {
    let finite: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite()).collect();
    crate::harness::stats::median(&finite)
}

/// Rates (`…/s`) are better higher; anything else (`ns/lookup`) lower.
fn higher_is_better(unit: &str) -> bool {
    unit.ends_with("/s")
}

fn measured(results: &[ExperimentResult]) -> Vec<Measured> {
    let mut out = Vec::new();
    for experiment in results.iter().filter(|e| e.id != "E9") {
        for series in &experiment.series {
            let Some(backend) = series.label("backend") else {
                continue;
            };
            let key = series
                .labels
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(",");
            out.push(Measured {
                experiment: experiment.id.clone(),
                backend: backend.to_string(),
                key,
                unit: series.unit.clone(),
                samples: series.samples.clone(),
            });
        }
    }
    out
}

/// Folds the runs into E9. `reference` is the level the others are compared with (the default
/// build, `x86-64-v3`); when it is missing the first run is the reference.
pub fn experiment(runs: &[IsaRun], reference: &str) -> ExperimentResult {
    let reference_index = runs.iter().position(|r| r.level == reference).unwrap_or(0);
    let per_run: Vec<Vec<Measured>> = runs.iter().map(|r| measured(&r.results)).collect();
    let levels: Vec<String> = runs.iter().map(|r| r.level.clone()).collect();
    // No runs at all is not an error here: the experiment then says nothing was compared.
    let reference_level = levels.get(reference_index).cloned().unwrap_or_default();
    // (experiment, backend) → per level: log-speedups over matched series.
    let mut speedups: BTreeMap<(String, String), Vec<Vec<f64>>> = BTreeMap::new();
    let mut series_out = Vec::new();
    if let Some(reference_series) = per_run.get(reference_index) {
        for base in reference_series {
            let Some(base_median) = median(&base.samples).filter(|m| *m > 0.0) else {
                continue;
            };
            let entry = speedups
                .entry((base.experiment.clone(), base.backend.clone()))
                .or_insert_with(|| vec![Vec::new(); runs.len()]);
            for (level, run) in per_run.iter().enumerate() {
                let Some(other) = run.iter().find(|m| {
                    m.experiment == base.experiment && m.key == base.key && m.unit == base.unit
                }) else {
                    continue;
                };
                let Some(other_median) = median(&other.samples).filter(|m| *m > 0.0) else {
                    continue;
                };
                let ratio = if higher_is_better(&base.unit) {
                    other_median / base_median
                } else {
                    base_median / other_median
                };
                entry[level].push(ratio.ln());
                let mut labels = vec![
                    ("isa".to_string(), levels[level].clone()),
                    ("source".to_string(), base.experiment.clone()),
                ];
                labels.extend(
                    base.key
                        .split(',')
                        .filter_map(|kv| kv.split_once('='))
                        .map(|(k, v)| (k.to_string(), v.to_string())),
                );
                series_out.push(Series {
                    labels,
                    unit: base.unit.clone(),
                    samples: other.samples.clone(),
                });
            }
        }
    }
    let geomean = |logs: &[f64]| {
        (!logs.is_empty()).then(|| (logs.iter().sum::<f64>() / logs.len() as f64).exp())
    };
    let mut table = Table {
        headers: std::iter::once("experiment".to_string())
            .chain(std::iter::once("backend".to_string()))
            .chain(
                levels
                    .iter()
                    .map(|l| format!("{l} speed vs {reference_level}")),
            )
            .collect(),
        rows: Vec::new(),
    };
    let mut plots = Vec::new();
    let mut findings = Vec::new();
    let mut summary = Vec::new();
    let sources: Vec<String> =
        speedups
            .keys()
            .map(|(e, _)| e.clone())
            .fold(Vec::new(), |mut v, e| {
                if !v.contains(&e) {
                    v.push(e);
                }
                v
            });
    for source in sources.iter().map(String::as_str) {
        let rows: Vec<(&String, Vec<Option<f64>>)> = speedups
            .iter()
            .filter(|((experiment, _), _)| experiment == source)
            .map(|((_, backend), per_level)| {
                (
                    backend,
                    per_level.iter().map(|logs| geomean(logs)).collect(),
                )
            })
            .collect();
        if rows.is_empty() {
            continue;
        }
        for (backend, values) in &rows {
            let mut row = vec![source.to_string(), (*backend).clone()];
            row.extend(
                values
                    .iter()
                    .map(|v| v.map(|x| format!("{x:.3}")).unwrap_or_else(|| "—".into())),
            );
            table.rows.push(row);
        }
        plots.push(Plot {
            file_stem: format!("e9-{}", source.to_lowercase()),
            title: format!(
                "E9 {source} speed per instruction-set level (relative to {})",
                reference_level
            ),
            x_label: "build".into(),
            y_label: "speed relative to the default build (geometric mean)".into(),
            log_x: false,
            log_y: false,
            kind: PlotKind::Bar,
            categories: levels.clone(),
            markers: Vec::new(),
            lines: rows
                .iter()
                .map(|(backend, values)| PlotLine {
                    name: (*backend).clone(),
                    points: values
                        .iter()
                        .enumerate()
                        .filter_map(|(i, v)| {
                            v.map(|y| Point {
                                x: i as f64,
                                y,
                                y_low: y,
                                y_high: y,
                            })
                        })
                        .collect(),
                })
                .collect(),
        });
        for (level_index, level) in levels.iter().enumerate() {
            if level_index == reference_index {
                continue;
            }
            let mut by_backend: Vec<(&String, f64)> = rows
                .iter()
                .filter_map(|(b, v)| v[level_index].map(|x| (*b, x)))
                .collect();
            if by_backend.is_empty() {
                continue;
            }
            by_backend.sort_by(|a, b| a.1.total_cmp(&b.1));
            let (slowest, fastest) = (by_backend[0], by_backend[by_backend.len() - 1]);
            findings.push(format!(
                "{source} built for {level}: from {:.2}× ({}) to {:.2}× ({}) the speed of the {} build.",
                slowest.1, slowest.0, fastest.1, fastest.0, reference_level
            ));
            summary.push((
                format!("{source}_{level}_range"),
                Json::from(vec![slowest.1, fastest.1]),
            ));
        }
    }
    if findings.is_empty() {
        findings.push(
            "Fewer than two builds had matching series, so nothing could be compared.".into(),
        );
    }
    ExperimentResult {
        wall_seconds: None,
        comparisons: Vec::new(),
        id: "E9".into(),
        title: TITLE.into(),
        method: format!(
            "{} {} run by separate binaries built for {} (each build in its own process). Every \
             series with the same labels and unit is matched across builds; each build's median \
             is divided by the {} build's (inverted for times, so > 1 is always faster), and the \
             ratios are combined per backend by geometric mean. Raw samples of every build are \
             kept under the `isa` label.",
            if sources.is_empty() {
                "The experiments".to_string()
            } else {
                sources.join(" and ")
            },
            if sources.len() == 1 { "was" } else { "were" },
            levels.join(", "),
            reference_level
        ),
        series: series_out,
        tables: vec![table],
        plots,
        findings: findings.join(" "),
        summary,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::results::ExperimentResult as E;

    fn run(level: &str, scale: f64) -> IsaRun {
        let series = |backend: &str, unit: &str, value: f64| Series {
            labels: vec![
                ("backend".into(), backend.into()),
                ("piece".into(), "rook".into()),
            ],
            unit: unit.into(),
            samples: vec![value * 0.9, value, value * 1.1],
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
        let e9 = experiment(&[], "x86-64-v3");
        assert!(
            e9.findings.starts_with("Fewer than two builds"),
            "{}",
            e9.findings
        );
        assert!(e9.series.is_empty() && e9.plots.is_empty());
    }

    #[test]
    fn speedups_relative_to_the_default_build() {
        let runs = [
            run("x86-64", 0.5),
            run("x86-64-v3", 1.0),
            run("native", 1.25),
        ];
        let e = experiment(&runs, "x86-64-v3");
        assert_eq!(e.tables[0].rows.len(), 2);
        let qugiy = e.tables[0].rows.iter().find(|r| r[1] == "qugiy").unwrap();
        assert_eq!(qugiy[2..], ["0.500", "1.000", "1.250"]);
        let dbb = e.tables[0].rows.iter().find(|r| r[1] == "dbb").unwrap();
        assert_eq!(dbb[2..], ["0.500", "1.000", "1.250"], "times are inverted");
        assert_eq!(e.plots.len(), 1);
        assert!(
            e.findings.contains("built for x86-64: from 0.50×"),
            "{}",
            e.findings
        );
        assert_eq!(e.series.len(), 6);
        let none = experiment(&[run("x86-64", 1.0)], "x86-64-v3");
        assert_eq!(none.tables[0].rows.len(), 2);
        assert!(none.findings.contains("nothing could be compared"));
    }
}
