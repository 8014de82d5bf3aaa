//! E6: the machine's memory latency curve — a pointer chase over a shuffled single-cycle ring,
//! one cache line per element, with 4 KiB pages and with transparent huge pages.
//!
//! The files keep the parts apart: `measure` chases the rings into a `Measurement`,
//! `analysis` turns it into series, the table, the plot and the latencies the findings quote,
//! and `findings` writes the method and findings paragraphs.

mod analysis;
mod findings;
mod measure;
pub mod summary;

use super::{failed_result, About, Context, Experiment, ExperimentId, Progress};
use crate::cache_levels::{CacheLevels, EffectiveLevel};
use crate::experiments::claims::claims_method;
use crate::invocations::Invocation;
use crate::results::{ExperimentResult, Series};
use measure::Measurement;

pub const TITLE: &str = "Memory latency curve";

/// Measures, then analyses and writes up.
/// E6 in the list of experiments.
pub(crate) struct Memory;

impl Experiment for Memory {
    type Measurement = Measurement;
    const ABOUT: About = About {
        id: ExperimentId::E6,
        title: TITLE,
        about: "the memory hierarchy: dependent-load latency over sizes, and each cache level's effective size",
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
    fn analyse(&self, measurements: &[Measurement], _: &Context<'_>) -> ExperimentResult {
        match measure::merge(measurements) {
            Ok(m) => result(&m),
            Err(why) => failed_result(ExperimentId::E6, TITLE, &why),
        }
    }
}

/// The analysis of `m`, and the prose written from it, as E6's result.
fn result(m: &Measurement) -> ExperimentResult {
    let analysis = analysis::analyse(m);
    ExperimentResult {
        wall_seconds: None,
        comparisons: analysis.comparisons,
        id: "E6".to_string(),
        title: TITLE.to_string(),
        method: format!(
            "{} {}",
            findings::method(m),
            claims_method(m.threshold, m.invocations)
        ),
        findings: findings::paragraph(&analysis.numbers),
        series: analysis.series,
        tables: analysis.tables,
        plots: analysis.plots,
        summary: analysis.summary,
    }
}

/// The curve E6's cache levels are found on, from its series: per size, the median ns per
/// load on huge pages (on 4 KiB pages where the kernel granted the huge-page ring none),
/// smallest first. It reads any report's E6 series, old ones included.
pub fn curve(series: &[Series]) -> Vec<(usize, f64)> {
    analysis::curve(series)
}

/// The cache levels E6 measured, read back from its result (its summary's `effective_levels`
/// and `memory_ns`, and the curve from its series); `None` for a result without them (reports
/// made before E6 measured levels).
pub fn levels_from_result(result: &ExperimentResult) -> Option<CacheLevels> {
    let levels: Vec<EffectiveLevel> =
        serde_json::from_value(result.summary_value("effective_levels")?.clone()).ok()?;
    let memory_ns = result
        .summary_value("memory_ns")
        .and_then(|v| v.as_f64())
        .unwrap_or(f64::NAN);
    let pooled = curve(&result.series);
    Some(CacheLevels {
        levels,
        memory_ns,
        // From the summary: E6's analysis knew the invocations; the parent may not.
        curve_spread: result
            .summary_value("curve_spread")
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_default(),
        curve: pooled,
        source: analysis::SOURCE.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache_levels::sizes;
    use crate::experiments::tests::assert_well_formed;
    use crate::experiments::Config;

    #[test]
    fn smoke_run_is_well_formed() {
        let experiment =
            crate::experiments::tests::run_once(&Memory, &Config::smoke(), &mut |_, _| {});
        assert_well_formed(&experiment);
        assert_eq!(experiment.series.len(), 2 * sizes(1 << 20, 1).len());
        let levels = experiment
            .summary_value("effective_levels")
            .expect("effective_levels in the summary");
        assert!(levels.is_array(), "{levels}");
        for level in levels.as_array().unwrap() {
            // One invocation here: its own curve is the pooled one.
            assert_eq!(
                level["bytes_per_invocation"],
                serde_json::json!([level["bytes"]])
            );
            assert_eq!(level["ns_low"], level["ns"]);
        }
        assert!(experiment.tables[1].headers[2].contains("per invocation"));
        let read = levels_from_result(&experiment).expect("levels read back");
        assert_eq!(read.curve.len(), sizes(1 << 20, 1).len());
        assert_eq!(
            serde_json::to_value(&read.levels).unwrap(),
            levels.clone(),
            "the levels read back as written"
        );
        assert!(experiment.method.contains("knee") || experiment.method.contains("plateau"));
        assert!(
            experiment.findings.contains("curve shows"),
            "{}",
            experiment.findings
        );
    }

    #[test]
    fn old_results_have_no_levels_but_a_curve() {
        // E6 of the report amd-epyc-f25-m17-2026-11-22-2 (retired), its huge-page curve.
        let path = std::path::Path::new(crate::WORKSPACE_ROOT)
            .join("tests/data/reports/e6-without-levels-amd-epyc-f25-m17.json");
        let report = crate::readback::read_report(&path).unwrap();
        let e6 = report.experiment("E6").unwrap();
        assert!(levels_from_result(e6).is_none());
        let curve = curve(&e6.series);
        assert_eq!(curve.len(), 33);
        assert_eq!(curve[0].0, 4096);
        assert!(curve.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
