//! E2: legal move generation over game positions and perft nodes per second, per backend and
//! peer, each in two conventions (moves built into a list, or only counted), with every perft
//! count checked against the published value.
//!
//! The files keep the parts apart: `measure` checks and times every backend (and the peer) on
//! each task into a `Measurement`, `analysis` turns it into series, tables, plots, claims and
//! the numbers the findings quote, and `findings` writes the method and findings paragraphs.

mod analysis;
mod findings;
mod measure;
pub mod summary;

use super::{failed_result, About, Context, Experiment, ExperimentId, Progress};
use crate::invocations::Invocation;
use crate::results::ExperimentResult;
use measure::Measurement;

pub const TITLE: &str = "Move generation and perft";

/// Measures, then analyses and writes up.
/// E2 in the list of experiments.
pub(crate) struct Movegen;

impl Experiment for Movegen {
    type Measurement = Measurement;
    const ABOUT: About = About {
        id: ExperimentId::E2,
        title: TITLE,
        about: "legal move generation and perft per backend, beside the peer engine haitaka",
        runs_by_default: true,
    };
    /// The report's K estimate, and one or two invocations more choose each task's best
    /// backend (held out from the estimate): a full report's 5 become 7.
    fn invocations(&self, report: usize, _: &super::Config) -> usize {
        report + analysis::extra_invocations(report)
    }
    fn measure(
        &self,
        context: &Context<'_>,
        invocation: Invocation,
        progress: Progress<'_>,
    ) -> Measurement {
        measure::measure(context.config, invocation, progress)
    }
    fn analyse(&self, measurements: &[Measurement], _: &Context<'_>) -> ExperimentResult {
        match measure::merge(measurements) {
            Ok(m) => result(&m),
            Err(why) => failed_result(ExperimentId::E2, TITLE, &why),
        }
    }
}

/// The analysis of `m`, and the prose written from it, as E2's result.
fn result(m: &Measurement) -> ExperimentResult {
    let analysis = analysis::analyse(m);
    ExperimentResult {
        wall_seconds: None,
        id: "E2".to_string(),
        title: TITLE.to_string(),
        method: findings::method(m, &analysis.numbers),
        findings: findings::paragraph(m, &analysis.numbers),
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

    #[test]
    fn smoke_run_is_well_formed_and_counts_check() {
        let config = Config {
            backends: vec!["dbb".to_string(), "magic-plain".to_string()],
            ..Config::smoke()
        };
        let experiment = crate::experiments::tests::run_once(&Movegen, &config, &mut |_, _| {});
        assert_well_formed(&experiment);
        assert!(
            experiment.findings.contains("Every perft count matched"),
            "{}",
            experiment.findings
        );
        // Eight tasks (move generation and two perfts, each as list and count, and the perfts'
        // count without shortcuts) × (two backends
        // and the peers), per case the samples and, where the kernel allows software events
        // (not in every container), the task clock that stands in for hardware counters, with
        // its table.
        let tasks = [
            "movegen list greedy-playout",
            "movegen count greedy-playout",
            "perft start d3",
            "perft second d2",
            "perft start d3 (leaf list)",
            "perft second d2 (leaf list)",
            "perft start d3 (leaf count-plain)",
            "perft second d2 (leaf count-plain)",
        ];
        for task in tasks {
            assert!(
                experiment
                    .series
                    .iter()
                    .any(|s| s.label("task") == Some(task)),
                "no series for {task}"
            );
        }
        let cases = tasks.len() * (2 + measure::peer_names().len());
        if crate::measure::Counters::open(&config.counter_events).is_ok() {
            assert_eq!(experiment.series.len(), 2 * cases);
            assert_eq!(experiment.tables.len(), 2);
            assert!(experiment.method.contains("task-clock-ns per op"));
        } else {
            assert_eq!(experiment.series.len(), cases);
            assert!(experiment.method.contains("counters unavailable"));
        }
        #[cfg(feature = "peers")]
        for needle in [
            "Against haitaka",
            "count-only perft: start position ×",
            "list-leaf perft: start position ×",
            "list convention: move generation ×",
            "count-only perft without perft's shortcuts (like for like): start position ×",
            "count convention: move generation ×",
            "Target, kiki's list move generation at least ×1.5 the speed of haitaka",
        ] {
            assert!(
                experiment.findings.contains(needle),
                "{needle}: {}",
                experiment.findings
            );
        }
        assert!(experiment.method.contains("three leaf conventions"));
        assert!(experiment
            .method
            .contains("too few invocations to hold any out"));
        #[cfg(feature = "peers")]
        {
            let summary: summary::Summary = experiment.summary_as().unwrap();
            let keys = |records: &[(String, crate::stats::Comparison)]| -> Vec<String> {
                records.iter().map(|(k, _)| k.clone()).collect()
            };
            assert_eq!(
                keys(&summary.vs_peer),
                [
                    "movegen list",
                    "movegen count",
                    "perft count start d3",
                    "perft count second d2",
                    "perft list start d3",
                    "perft list second d2"
                ]
            );
            assert_eq!(
                keys(&summary.like_for_like),
                ["perft count start d3", "perft count second d2"]
            );
            for (task, c) in summary.vs_peer.iter().chain(&summary.like_for_like) {
                assert!(c.low <= c.ratio && c.ratio <= c.high, "{task}: {c:?}");
                assert_eq!(c.invocations, 1, "{task}");
            }
        }
    }

    /// A full report's 5 invocations become 7: two choose each task's best backend.
    #[test]
    fn a_full_report_runs_seven_invocations() {
        assert_eq!(
            Movegen.invocations(5, &crate::experiments::Config::full()),
            7
        );
    }
}
