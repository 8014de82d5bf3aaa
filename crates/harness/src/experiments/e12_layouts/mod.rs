//! E12: table layouts with the algorithm held fixed — each layout variant against its base
//! (and each base's tables on 2 MiB against 4 KiB pages) in lookups, table misses and a
//! search's time per node.
//!
//! `measure` times every pair in one process per invocation, `analysis` turns the rounds into
//! paired ratios, tables and per-family plots, and `findings` writes the method, the findings
//! and the pre-set rule's answer (the factor that matters most on this CPU).

mod analysis;
mod readings;
mod tables;
mod findings;
mod measure;
pub mod summary;

use super::{failed_result, About, Context, Experiment, ExperimentId, Progress};
use crate::invocations::Invocation;
use crate::results::ExperimentResult;
use crate::stats::Comparison;
use analysis::{Compared, Cost, Numbers};
use measure::Measurement;
use serde_json::{json, Map, Value as Json};

pub const TITLE: &str = "Table layouts: each layout variant against its base";

/// E12 in the list of experiments.
pub(crate) struct Layouts;

impl Experiment for Layouts {
    type Measurement = Measurement;
    const ABOUT: About = About {
        id: ExperimentId::E12,
        title: TITLE,
        about: "table layouts: each variant against its base (and 2 MiB against 4 KiB pages) in \
             lookups, table misses and a search",
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
            Ok(m) if !m.pairs.is_empty() => result(&m),
            Ok(_) => failed_result(
                ExperimentId::E12,
                TITLE,
                "no layout variant's base was among the backends measured",
            ),
            Err(why) => failed_result(ExperimentId::E12, TITLE, &why),
        }
    }
}

fn result(m: &Measurement) -> ExperimentResult {
    let analysis = analysis::analyse(m);
    ExperimentResult {
        wall_seconds: None,
        id: "E12".to_string(),
        title: TITLE.to_string(),
        method: findings::method(m),
        findings: findings::paragraph(m, &analysis.numbers),
        comparisons: analysis.comparisons,
        series: analysis.series,
        tables: analysis.tables,
        plots: analysis.plots,
        summary: summary(m, &analysis.numbers),
    }
}

/// `{ratio, low, high, invocations, rounds, claim, reading}` (an unbounded bound is null), or
/// null; `reading` tells level, unresolved and withdrawn apart at `threshold`.
fn record(c: Option<Comparison>, threshold: f64) -> Json {
    match c {
        None => Json::Null,
        Some(c) => json!({
            "ratio": c.ratio,
            "low": c.low,
            "high": if c.high.is_finite() { json!(c.high) } else { Json::Null },
            "invocations": c.invocations,
            "rounds": c.rounds,
            "claim": serde_json::to_value(c.claim).unwrap_or(Json::Null),
            "reading": crate::experiments::claims::reading(&c, threshold),
        }),
    }
}

fn pair_json(pair: &Compared, numbers: &Numbers, threshold: f64) -> Json {
    let by_mode: Map<String, Json> = pair
        .lookup_by_mode
        .iter()
        .map(|(input, c)| (input.name().to_string(), record(*c, threshold)))
        .collect();
    json!({
        "base": pair.base,
        "variant": pair.variant,
        "factor": pair.factor.name(),
        "table_bytes": pair.table_bytes,
        "lookup": record(pair.cost(Cost::Lookup), threshold),
        "lookup_by_mode": by_mode,
        "table_miss": record(pair.cost(Cost::TableMiss), threshold),
        "nps": record(pair.cost(Cost::Search), threshold),
        "pages_as_asked": pair.pages_as_asked,
        "phase": pair.phase.name(),
        "lookup_pages": pair.lookup_pages.name(),
        "undecided": Cost::ALL
            .iter()
            .filter_map(|&c| numbers.undecided(pair, c).map(|why| (c.name().to_string(), json!(why))))
            .collect::<Map<String, Json>>(),
    })
}

fn summary(m: &Measurement, numbers: &Numbers) -> Vec<(String, Json)> {
    let threshold = m.threshold;
    let controls: Map<String, Json> = numbers
        .controls
        .iter()
        .map(|(cost, c)| (cost.name().to_string(), record(*c, threshold)))
        .collect();
    let passed = Cost::ALL.iter().all(|&c| numbers.control_passed(c));
    let phase: Map<String, Json> = Cost::ALL
        .iter()
        .map(|&c| (c.name().to_string(), json!(numbers.phase_control(c))))
        .collect();
    let most = [Cost::Search, Cost::Lookup]
        .into_iter()
        .find_map(|cost| findings::matters_most(numbers, cost).map(|found| (cost, found)))
        .map_or(Json::Null, |(cost, (pair, c))| {
            json!({
                "variant": pair.variant,
                "factor": pair.factor.name(),
                "cost": cost.name(),
                "record": record(Some(c), m.threshold),
            })
        });
    vec![
        (
            "pairs".to_string(),
            Json::Array(
                numbers
                    .pairs
                    .iter()
                    .map(|p| pair_json(p, numbers, threshold))
                    .collect(),
            ),
        ),
        (
            "controls".to_string(),
            json!({ "passed": passed, "twin": m.twin, "aa": controls, "page_phases": phase }),
        ),
        ("matters_most".to_string(), most),
        ("verdict".to_string(), json!(findings::verdict(numbers))),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::tests::assert_well_formed;
    use crate::experiments::Config;

    #[test]
    fn smoke_run_is_well_formed() {
        let config = Config {
            backends: vec!["dbb".to_string(), "mailbox".to_string()],
            ..Config::smoke()
        };
        let experiment = crate::experiments::tests::run_once(&Layouts, &config, &mut |_, _| {});
        assert_well_formed(&experiment);
        // dbb's variant and its page pair; mailbox has none.
        let summary: summary::Summary = experiment.summary_as().unwrap();
        let names: Vec<&str> = summary.pairs.iter().map(|p| p.variant.as_str()).collect();
        assert_eq!(names, ["dbb.computed", "dbb@2m"]);
        for pair in &summary.pairs {
            assert_eq!(pair.base, "dbb");
            let lookup = pair.lookup.as_ref().expect("every pair has a lookup ratio");
            assert!(lookup.low <= lookup.ratio && lookup.ratio > 0.0, "{pair:?}");
            assert!(pair.nps.is_some(), "{pair:?}");
        }
        assert_eq!(summary.pairs[0].factor, "compound-tables");
        assert_eq!(summary.pairs[1].factor, "pages");
        // The page pair is timed in the 2 MiB phase, whichever pages its tables got.
        assert_eq!(summary.pairs[1].phase.as_deref(), Some("2m"));
        assert!(
            matches!(summary.pairs[1].lookup_pages.as_deref(), Some("4k" | "2m")),
            "{:?}",
            summary.pairs[1]
        );
        assert!(
            !experiment.findings.contains("fingerprints differ"),
            "{}",
            experiment.findings
        );
        assert!(experiment.findings.contains("A/A control"));
    }
}
