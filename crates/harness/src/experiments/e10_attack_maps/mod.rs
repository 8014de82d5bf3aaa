//! E10: whole-side attack maps and effect counts — per piece against set-wise at every SIMD
//! level, on game-like positions; their use for king safety in perft and mate-in-1; and
//! from-scratch recounts against E5's incremental effect boards.
//!
//! The files keep the parts apart: `measure` checks and times every group into a
//! `Measurement`, `analysis` turns it into series, tables, plots, claims and numbers (with
//! `controls`, the comparisons within one backend), and `findings` writes the method and
//! findings paragraphs.

mod analysis;
mod controls;
mod findings;
mod measure;
pub mod summary;

use super::{failed_result, About, Context, Experiment, ExperimentId, Progress};
use crate::invocations::Invocation;
use crate::results::ExperimentResult;
use measure::Measurement;

pub const TITLE: &str = "Whole-side attack maps and counts: per piece against set-wise SIMD";

/// Measures, then analyses and writes up.
/// E10 in the list of experiments.
pub(crate) struct AttackMaps;

impl Experiment for AttackMaps {
    type Measurement = Measurement;
    const ABOUT: About = About {
        id: ExperimentId::E10,
        title: TITLE,
        about: "whole-side attack maps and counts: per piece against set-wise SIMD fills, king safety by map, recounts against incremental boards",
        runs_by_default: true,
    };
    /// The report's K estimate, and one or two invocations more choose each best cell (held
    /// out from the estimate): a full report's 5 become 7.
    fn invocations(&self, report: usize, _: &super::Config) -> usize {
        report + super::held_out::extra_invocations(report)
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
            Err(why) => failed_result(ExperimentId::E10, TITLE, &why),
        }
    }
}

fn result(m: &Measurement) -> ExperimentResult {
    let analysis = analysis::analyse(m);
    ExperimentResult {
        wall_seconds: None,
        id: "E10".to_string(),
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
    use crate::experiments::tests::assert_well_formed;
    use crate::experiments::Config;

    #[test]
    fn smoke_run_is_well_formed_and_verified() {
        let experiment =
            crate::experiments::tests::run_once(&AttackMaps, &Config::smoke(), &mut |_, _| {});
        assert_well_formed(&experiment);
        assert!(
            experiment.findings.contains("equalled the per-piece ones"),
            "{}",
            experiment.findings
        );
        assert!(experiment.findings.contains("best per-piece map"));
        assert!(experiment.findings.contains("perft with king safety"));
        assert!(experiment.findings.contains("incremental effect board"));
        // The controls within one backend: a conversion-only series per backend, one A/A twin,
        // and their summary keys.
        let label = |s: &'_ crate::results::Series, key: &str| -> String {
            s.labels
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        let variants: Vec<String> = experiment
            .series
            .iter()
            .filter(|s| label(s, "group") == measure::MAPS)
            .map(|s| label(s, "variant"))
            .collect();
        let (backends, _) = Config::smoke().backend_names();
        let conversions = variants
            .iter()
            .filter(|v| *v == measure::CONVERSION)
            .count();
        assert_eq!(conversions, 2 * backends.len(), "per backend and set");
        assert_eq!(
            variants
                .iter()
                .filter(|v| v.ends_with(measure::AA_TWIN))
                .count(),
            2,
            "one per set"
        );
        let keys: Vec<&str> = experiment.summary.iter().map(|(k, _)| k.as_str()).collect();
        for key in ["aa_control", "conversion_only", "held_out"] {
            assert!(keys.contains(&key), "{key} in {keys:?}");
        }
        assert!(experiment.findings.contains("A/A control"));
        assert!(experiment.findings.contains("Within one backend"));
    }
}
