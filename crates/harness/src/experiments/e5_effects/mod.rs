//! E5: incremental effect boards (seed 001) — ns per make + unmake per ray stepper (padded
//! mailbox, SquareWithWall, the distance check, qugiy bitboards), every stepper first proved
//! equal to a from-scratch recount after every make and unmake.
//!
//! The files keep the parts apart: `measure` verifies and times the steppers into a
//! `Measurement`, `analysis` turns it into series, the table, the plot and the ratios to sqww,
//! and `findings` writes the method and findings paragraphs.

mod analysis;
mod findings;
mod measure;
pub mod summary;

use super::{failed_result, About, Context, Experiment, ExperimentId, Progress};
use crate::experiments::claims::claims_method;
use crate::invocations::Invocation;
use crate::results::ExperimentResult;
use measure::Measurement;

pub const TITLE: &str = "Effect boards: ray steppers";

/// Measures, then analyses and writes up.
/// E5 in the list of experiments.
pub(crate) struct Effects;

impl Experiment for Effects {
    type Measurement = Measurement;
    const ABOUT: About = About {
        id: ExperimentId::E5,
        title: TITLE,
        about: "incremental effect counts: mailbox against SquareWithWall steppers",
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
            Err(why) => failed_result(ExperimentId::E5, TITLE, &why),
        }
    }
}

/// The analysis of `m`, and the prose written from it, as E5's result.
fn result(m: &Measurement) -> ExperimentResult {
    let analysis = analysis::analyse(m);
    ExperimentResult {
        wall_seconds: None,
        comparisons: analysis.comparisons,
        id: "E5".to_string(),
        title: TITLE.to_string(),
        method: format!(
            "{} {}",
            findings::method(m),
            claims_method(m.threshold, m.invocations)
        ),
        findings: findings::paragraph(m, &analysis.numbers),
        series: analysis.series,
        tables: analysis.tables,
        plots: analysis.plots,
        summary: analysis.summary,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::effects_timing::NAMES;
    use crate::experiments::tests::assert_well_formed;
    use crate::experiments::Config;

    #[test]
    fn smoke_run_is_well_formed_and_verified() {
        let experiment =
            crate::experiments::tests::run_once(&Effects, &Config::smoke(), &mut |_, _| {});
        assert_well_formed(&experiment);
        assert_eq!(experiment.series.len(), NAMES.len());
        assert!(
            experiment.findings.contains("Seed 001's claim"),
            "{}",
            experiment.findings
        );
        assert!(experiment
            .findings
            .contains("matched a from-scratch recount"));
    }
}
