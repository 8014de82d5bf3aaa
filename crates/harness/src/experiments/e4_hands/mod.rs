//! E4: the hand layouts of seed 003 (Bonanza's packed `u32`, the guarded fields, a byte per
//! kind) on the same pre-generated hands: superiority (independent and as a dependent chain),
//! count, add + count and remove + count.
//!
//! The files keep the parts apart: `measure` times every operation on every layout (and the
//! clock) into a `Measurement`, `analysis` turns it into series, tables, the plot, claims and
//! the numbers the findings quote, and `findings` writes the method and findings paragraphs.

mod analysis;
mod findings;
mod measure;
pub mod summary;

use super::{failed_result, About, Context, Experiment, ExperimentId, Progress};
use crate::invocations::Invocation;
use crate::results::ExperimentResult;
use kiki_engine::hands::{ByteHand, GuardedHand, HandLayout, PackedHand};
use measure::Measurement;

pub const TITLE: &str = "Hand layouts";

const LAYOUTS: [&str; 3] = [PackedHand::NAME, GuardedHand::NAME, ByteHand::NAME];
const OPS: [&str; 5] = ["superior", "superior-chain", "count", "add", "remove"];

/// Measures, then analyses and writes up.
/// E4 in the list of experiments.
pub(crate) struct Hands;

impl Experiment for Hands {
    type Measurement = Measurement;
    const ABOUT: About = About {
        id: ExperimentId::E4,
        title: TITLE,
        about: "hand layouts: packed against guarded fields",
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
            Err(why) => failed_result(ExperimentId::E4, TITLE, &why),
        }
    }
}

/// The analysis of `m`, and the prose written from it, as E4's result.
fn result(m: &Measurement) -> ExperimentResult {
    let analysis = analysis::analyse(m);
    ExperimentResult {
        wall_seconds: None,
        id: "E4".to_string(),
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
    use measure::Row;

    #[test]
    fn smoke_run_is_well_formed() {
        let experiment =
            crate::experiments::tests::run_once(&Hands, &Config::smoke(), &mut |_, _| {});
        assert_well_formed(&experiment);
        assert_eq!(experiment.series.len(), OPS.len() * LAYOUTS.len());
    }

    /// A smoke-sized measurement of 64 pairs with these rows and clock.
    fn measurement(rows: Vec<Row>, clock_ghz: Option<f64>) -> Measurement {
        let config = Config::smoke();
        Measurement {
            inputs: measure::inputs(1, 64),
            workload_seed: config.seed ^ 0xE4,
            samples: config.sampling().samples,
            threshold: config.threshold,
            rows,
            clock_ghz,
            invocations: 1,
        }
    }

    /// An independent loop under a cycle per operation is called batched, with the chain as the
    /// per-call cost; without a measured clock nothing is claimed.
    #[test]
    fn sub_cycle_loops_are_reported_as_batched() {
        let rows = || {
            OPS.iter()
                .flat_map(|op| {
                    LAYOUTS.iter().map(move |layout| Row {
                        op,
                        layout: layout.to_string(),
                        ns: vec![if *op == "superior" { 0.2 } else { 3.0 }; 3],
                    })
                })
                .collect::<Vec<_>>()
        };
        let e = result(&measurement(rows(), Some(3.0)));
        assert!(
            e.findings.contains(
                "Below one cycle per operation at the measured 3.00 GHz: superior on packed (0.60)"
            ),
            "{}",
            e.findings
        );
        assert!(
            e.findings.contains("guarded 3.00 ns (9.0 cycles)"),
            "{}",
            e.findings
        );
        assert_eq!(e.tables.len(), 2);
        let unknown = result(&measurement(rows(), None));
        assert!(!unknown.findings.contains("Below one cycle"));
        assert_eq!(unknown.tables.len(), 1);
    }
}
