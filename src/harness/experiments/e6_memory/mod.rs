//! E6: the machine's memory latency curve — a pointer chase over a shuffled single-cycle ring,
//! one cache line per element, with 4 KiB pages and with transparent huge pages.
//!
//! The files keep the parts apart: `measure` chases the rings into a `Measurement`,
//! `analysis` turns it into series, the table, the plot and the latencies the findings quote,
//! and `findings` writes the method and findings paragraphs.

mod analysis;
mod findings;
mod measure;

pub use measure::{ring, sizes};

use super::{claims_method, Config, Progress};
use crate::harness::results::ExperimentResult;
use measure::Measurement;

pub const TITLE: &str = "Memory latency curve";

/// Measures, then analyses and writes up.
pub fn run(config: &Config, progress: Progress<'_>) -> ExperimentResult {
    let measurement = measure::measure(config, progress);
    result(&measurement)
}

/// The analysis of `m`, and the prose written from it, as E6's result.
fn result(m: &Measurement) -> ExperimentResult {
    let analysis = analysis::analyse(m);
    ExperimentResult {
        wall_seconds: None,
        comparisons: analysis.comparisons,
        id: "E6".to_string(),
        title: TITLE.to_string(),
        method: format!("{} {}", findings::method(m), claims_method(m.threshold)),
        findings: findings::paragraph(&analysis.numbers),
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
    fn smoke_run_is_well_formed() {
        let experiment = run(&Config::smoke(), &mut |_, _| {});
        assert_well_formed(&experiment);
        assert_eq!(experiment.series.len(), 2 * sizes(1 << 20, 1).len());
    }
}
// TEMPORARY
pub fn levels_from_result(
    _r: &ExperimentResult,
) -> Option<crate::harness::cache_levels::CacheLevels> {
    None
}
