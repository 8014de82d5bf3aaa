//! E3: mate-in-1 per backend — the fast path (attack sets, no make per candidate) against the
//! brute-force reference (make every legal move, generate the replies), on seeded tactical
//! positions with and without a mate in one.
//!
//! The files keep the parts apart: `measure` checks and times both solvers on both position
//! sets into a `Measurement`, `analysis` turns it into series, the table, the plot, claims and
//! the numbers the findings quote, and `findings` writes the method and findings paragraphs.

mod analysis;
mod findings;
mod measure;
pub mod summary;

use super::{failed_result, About, Context, Experiment, ExperimentId, Progress};
use crate::invocations::Invocation;
use crate::results::ExperimentResult;
use measure::Measurement;

pub const TITLE: &str = "Mate in one: fast path against brute force";

/// The four timed tasks, in table order: (name, solver is brute force, set has a mate).
const TASKS: [(&str, bool, bool); 4] = [
    ("fast mate", false, true),
    ("fast no-mate", false, false),
    ("brute mate", true, true),
    ("brute no-mate", true, false),
];

/// Measures, then analyses and writes up.
/// E3 in the list of experiments.
pub(crate) struct Mate1;

impl Experiment for Mate1 {
    type Measurement = Measurement;
    const ABOUT: About = About {
        id: ExperimentId::E3,
        title: TITLE,
        about: "mate-in-1 per backend, against brute force over the same positions",
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
            Err(why) => failed_result(ExperimentId::E3, TITLE, &why),
        }
    }
}

/// The analysis of `m`, and the prose written from it, as E3's result.
fn result(m: &Measurement) -> ExperimentResult {
    let analysis = analysis::analyse(m);
    ExperimentResult {
        wall_seconds: None,
        id: "E3".to_string(),
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
    fn smoke_run_is_well_formed_and_answers_agree() {
        let config = Config {
            backends: vec!["dbb".to_string(), "magic-plain".to_string()],
            ..Config::smoke()
        };
        let experiment = crate::experiments::tests::run_once(&Mate1, &config, &mut |_, _| {});
        assert_well_formed(&experiment);
        assert!(
            experiment.findings.contains("agreed with the set labels"),
            "{}",
            experiment.findings
        );
        assert_eq!(experiment.series.len(), 4 * 2);
    }
}
