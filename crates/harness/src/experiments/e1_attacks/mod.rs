//! E1: sliding-attack throughput (independent lookups) and latency (a dependent chain) for
//! every backend × piece × workload.
//!
//! The files keep the parts apart: `measure` times every backend on every workload × piece ×
//! mode into a `Measurement`, `analysis` turns it into series, tables, plots, claims and the
//! numbers the findings quote, and `findings` writes the method and findings paragraphs.

mod analysis;
mod findings;
mod measure;
pub mod summary;

use super::{failed_result, About, Context, Experiment, ExperimentId, Progress};
use crate::invocations::Invocation;
use crate::results::ExperimentResult;
use measure::Measurement;
pub(crate) use measure::{cycled, MakeCase};

pub const TITLE: &str = "Attack throughput and latency";

/// Throughput: independent lookups. Latency: each lookup's input is chosen by the last result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) enum Mode {
    Throughput,
    Latency,
}

impl Mode {
    /// Both modes, in the order every table, plot and paragraph lists them.
    pub(crate) const BOTH: [Mode; 2] = [Mode::Throughput, Mode::Latency];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Mode::Throughput => "throughput",
            Mode::Latency => "latency",
        }
    }
}

/// Measures, then analyses and writes up.
/// E1 in the list of experiments.
pub(crate) struct Attacks;

impl Experiment for Attacks {
    type Measurement = Measurement;
    const ABOUT: About = About {
        id: ExperimentId::E1,
        title: TITLE,
        about: "slider lookups per backend: latency and throughput on random and game-like inputs",
        runs_by_default: true,
    };
    fn measure(
        &self,
        context: &Context<'_>,
        invocation: Invocation,
        progress: Progress<'_>,
    ) -> Measurement {
        measure::measure(context.config, invocation, progress)
    }
    fn analyse(&self, measurements: &[Measurement], context: &Context<'_>) -> ExperimentResult {
        match measure::merge(measurements) {
            Ok(m) => result(&m, context.machine.pext_microcoded()),
            Err(why) => failed_result(ExperimentId::E1, TITLE, &why),
        }
    }
}

/// The analysis of `m`, and the prose written from it, as E1's result (`pext_microcoded`: see
/// [`crate::machine::Machine::pext_microcoded`]).
fn result(m: &Measurement, pext_microcoded: bool) -> ExperimentResult {
    let analysis = analysis::analyse(m);
    ExperimentResult {
        wall_seconds: None,
        id: "E1".to_string(),
        title: TITLE.to_string(),
        method: findings::method(m),
        findings: findings::paragraph(m, &analysis.numbers, pext_microcoded),
        comparisons: analysis.comparisons,
        series: analysis.series,
        tables: analysis.tables,
        plots: analysis.plots,
        summary: analysis.summary,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::tests::assert_well_formed;
    use crate::experiments::Config;
    use crate::workloads::PieceGroup;

    /// Beside every rook and bishop throughput cell, each backend's null lookup ran in the
    /// same rounds (so the two pair round by round), and nowhere else; merging keeps them.
    #[test]
    fn the_null_lookup_runs_beside_the_rook_and_bishop_cells_in_both_modes() {
        let config = Config {
            backends: vec!["dbb".to_string(), "mailbox".to_string()],
            ..Config::smoke()
        };
        let m = measure::measure(
            &config,
            crate::invocations::Invocation::ONLY,
            &mut |_, _| {},
        );
        let expected: usize = m
            .workloads
            .iter()
            .map(|(_, groups)| {
                groups
                    .iter()
                    .filter(|g| matches!(g, PieceGroup::Rook | PieceGroup::Bishop))
                    .count()
            })
            .sum::<usize>()
            * config.backends.len()
            * Mode::BOTH.len();
        assert!(expected > 0);
        assert_eq!(m.null.len(), expected);
        for mode in Mode::BOTH {
            assert!(m.null.iter().any(|n| n.mode == mode), "{mode:?}");
        }
        for null in &m.null {
            assert!(matches!(null.piece, PieceGroup::Rook | PieceGroup::Bishop));
            let cell = m
                .cell(&null.workload, null.piece, null.mode, &null.backend)
                .unwrap();
            assert_eq!(cell.ns.len(), null.ns.len());
            assert!(null.ns.iter().all(|ns| ns.is_finite() && *ns > 0.0));
        }
        assert!(m.cells.iter().all(|c| !c.backend.ends_with("null")));
        let merged = measure::merge(&[m.clone(), m.clone()]).unwrap();
        assert_eq!(merged.null.len(), expected);
        assert_eq!(merged.null[0].ns.len(), 2 * m.null[0].ns.len());
        // The summary's baseline: per workload and mode, one entry per piece and backend.
        let analysis = analysis::analyse(&merged);
        let baseline = &analysis
            .summary
            .iter()
            .find(|(k, _)| k == "null_baseline_ns")
            .expect("null_baseline_ns")
            .1;
        let (workload, _) = &merged.workloads[0];
        for mode in Mode::BOTH {
            let cells = baseline[&workload.name][mode.name()]
                .as_array()
                .unwrap_or_else(|| panic!("{} {}", workload.name, mode.name()));
            assert_eq!(cells.len(), 2 * config.backends.len());
            assert!(cells
                .iter()
                .all(|c| c["ns"].as_f64().is_some_and(|ns| ns > 0.0)));
        }
    }

    #[test]
    fn smoke_run_is_well_formed() {
        let config = Config {
            backends: vec!["magic-plain".to_string(), "dbb".to_string()],
            positions: vec![kiki_engine::position::START_SFEN.to_string()],
            ..Config::smoke()
        };
        let mut last = 0.0;
        let experiment = crate::experiments::tests::run_once(&Attacks, &config, &mut |_, f| {
            assert!(f >= last - 1e-9, "progress went back: {f} < {last}");
            last = f;
        });
        assert_well_formed(&experiment);
        assert_eq!(last, 1.0);
        // 6 workloads (3 uniform, 2 game-like, user) × 6 groups × 2 modes × 2 backends, less
        // any group too thin to time.
        assert!(experiment.series.len() >= 3 * 6 * 2 * 2);
        assert!(experiment
            .series
            .iter()
            .any(|s| s.label("workload") == Some("user")));
        assert!(experiment.findings.contains("Throughput"));
        // Cycles beside ns where the clock could be measured; pext is not in this run.
        let with_cycles = experiment.tables[0]
            .headers
            .iter()
            .any(|h| h.contains("cycles/lookup"));
        if with_cycles {
            assert!(
                experiment.summary.iter().any(|(k, _)| k == "clock_ghz"),
                "{:?}",
                experiment.summary
            );
            assert!(
                experiment.findings.contains("pext was not measured"),
                "{}",
                experiment.findings
            );
            assert_eq!(
                experiment.tables[0].headers.len(),
                2 + 2 * config.backends.len()
            );
        } else {
            assert!(
                experiment
                    .findings
                    .contains("Cycles per lookup are omitted"),
                "{}",
                experiment.findings
            );
        }
    }
}
