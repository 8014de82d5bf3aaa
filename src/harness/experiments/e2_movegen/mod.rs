//! E2: legal move generation over game positions and perft nodes per second, per backend,
//! with every perft count checked against the published value.
//!
//! The files keep the parts apart: `measure` checks and times every backend (and the peer) on
//! each task into a `Measurement`, `analysis` turns it into series, tables, plots, claims and
//! the numbers the findings quote, and `findings` writes the method and findings paragraphs.

mod analysis;
mod findings;
mod measure;

use super::{Config, Progress};
use crate::harness::results::ExperimentResult;
use measure::Measurement;

pub const TITLE: &str = "Move generation and perft";

/// Measures, then analyses and writes up.
pub fn run(config: &Config, progress: Progress<'_>) -> ExperimentResult {
    let measurement = measure::measure(config, progress);
    result(&measurement)
}

/// The analysis of `m`, and the prose written from it, as E2's result.
fn result(m: &Measurement) -> ExperimentResult {
    let analysis = analysis::analyse(m);
    ExperimentResult {
        wall_seconds: None,
        id: "E2".to_string(),
        title: TITLE.to_string(),
        method: findings::method(m),
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
    use crate::harness::experiments::tests::assert_well_formed;

    #[test]
    fn smoke_run_is_well_formed_and_counts_check() {
        let config = Config {
            backends: vec!["qugiy".to_string(), "bonanza".to_string()],
            ..Config::smoke()
        };
        let experiment = run(&config, &mut |_, _| {});
        assert_well_formed(&experiment);
        assert!(
            experiment.findings.contains("Every perft count matched"),
            "{}",
            experiment.findings
        );
        // Per task and case: the samples and, where the kernel allows software events (not in
        // every container), the task clock that stands in for hardware counters, with its table.
        let cases = 3 * (2 + measure::peer_names().len());
        if crate::harness::measure::Counters::open(&config.counter_events).is_ok() {
            assert_eq!(experiment.series.len(), 2 * cases);
            assert_eq!(experiment.tables.len(), 2);
            assert!(experiment.method.contains("task-clock-ns per op"));
        } else {
            assert_eq!(experiment.series.len(), cases);
            assert!(experiment.method.contains("counters unavailable"));
        }
        #[cfg(feature = "peers")]
        assert!(
            experiment.findings.contains("Against haitaka"),
            "{}",
            experiment.findings
        );
    }
}
