//! E7: do big lookup tables lose once an evaluation buffer competes for the cache (seed 004)?
//!
//! E7, the seed's argument (seed 004): each backend's lookups interleaved with random reads
//! of an "evaluation" buffer of growing size E — does a big table lose once the evaluation
//! needs the cache?
//!
//! The files keep the parts apart: `measure` runs the cases and sweeps into a `Measurement`,
//! `analysis` turns it into series, plots, tables and the numbers the findings quote, and
//! `findings` writes the method and findings paragraphs from them.

mod analysis;
mod findings;
mod measure;

pub use measure::eval_sizes;

use super::{Config, Progress};
use crate::harness::results::ExperimentResult;
use measure::Measurement;

pub const TITLE: &str = "Cache pressure: lookups against an evaluation buffer (seed 004)";

/// The label of the case that does the evaluation reads alone.
const EVAL_ALONE: &str = "evaluation alone";
/// The label of the two-thread variant's case without lookups: the evaluation thread's
/// undisturbed rate.
const IDLE: &str = "idle (no lookups)";
/// Evaluation reads per lookup in the main sweeps.
const MAIN_READS: u32 = 4;
/// A lookup whose marginal cost rises above this multiple of its E = 0 cost "loses".
const LOSS_FACTOR: f64 = 1.25;

/// Measures, then analyses and writes up.
pub fn run(config: &Config, progress: Progress<'_>) -> ExperimentResult {
    let measurement = measure::measure(config, progress);
    result(&measurement)
}

/// The analysis of `m`, and the prose written from it, as E7's result.
fn result(m: &Measurement) -> ExperimentResult {
    let analysis = analysis::analyse(m);
    let numbers = &analysis.numbers;
    let verdict = findings::seed_verdict(&numbers.at_max(), numbers.max_e, &analysis::table_bytes);
    ExperimentResult {
        wall_seconds: None,
        comparisons: Vec::new(),
        id: "E7".to_string(),
        title: TITLE.to_string(),
        method: findings::method(m, analysis.has_counter_tables()),
        findings: findings::paragraph(numbers, &verdict),
        summary: analysis::summary(numbers, verdict),
        series: analysis.series,
        tables: analysis.tables,
        plots: analysis.plots,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::experiments::tests::assert_well_formed;

    #[test]
    fn smoke_run_is_well_formed() {
        let config = Config {
            backends: vec!["qugiy".to_string(), "dbb".to_string()],
            ..Config::smoke()
        };
        let experiment = run(&config, &mut |_, _| {});
        assert_well_formed(&experiment);
        assert!(experiment
            .summary
            .iter()
            .any(|(k, _)| k == "loses_from_bytes"));
        assert!(experiment
            .summary
            .iter()
            .any(|(k, _)| k == "seed_004_verdict"));
        assert!(experiment.findings.contains("qugiy"));
    }
}
