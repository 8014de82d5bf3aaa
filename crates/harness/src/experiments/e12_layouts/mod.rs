//! E12: table layouts with the algorithm held fixed — each layout variant against its base
//! (and each base's tables on 2 MiB against 4 KiB pages) in lookups, table misses and a
//! search's time per node.
//!
//! `measure` times every pair in one process per invocation, `analysis` turns the rounds into
//! paired ratios, tables and per-family plots, and `findings` writes the method, the findings
//! and the pre-set rule's answer (the factor that matters most on this CPU).

mod analysis;
mod chains;
mod findings;
mod measure;
mod phases;
mod readings;
pub mod summary;
mod tables;

use super::{failed_result, About, Context, Experiment, ExperimentId, Progress};
use crate::answers::Reading;
use crate::invocations::Invocation;
use crate::results::ExperimentResult;
use analysis::{Compared, Cost, Numbers};
use measure::Measurement;
use readings::Ratio90;
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
        series: tables::all_series(m),
        tables: vec![
            tables::pairs_table(&analysis.numbers),
            tables::entries_table(m, m.invocations),
        ],
        plots: tables::family_plots(m, m.invocations),
        summary: summary(m, &analysis.numbers),
    }
}

/// `{ratio, low, high, invocations, rounds, claim, reading, half_width, threshold,
/// log_threshold, resolution}` (the 90 % interval widened by the controls that gate it, the rule
/// of bounds; `half_width` the pair's own on the log scale, `resolution` the widened one), or
/// null. `claim` is the (widened) interval's reading whether or not a control withholds it,
/// by the test the reading makes: its log
/// bounds against ±`log_threshold` = ln(1 + T) (`faster`, `slower`, `level` only where the
/// whole interval lies inside, else `not resolved`); `reading` what the run reads (`withheld`
/// where a control failed); `threshold` the T itself (0.03), whose ratio edges 1 / (1 + T)
/// and 1 + T are the same test.
fn record(r: Option<Ratio90>, reading: Option<Reading>, threshold: f64) -> Json {
    match r {
        None => Json::Null,
        Some(r) => json!({
            "ratio": r.ratio(),
            "low": r.low(),
            "high": r.high(),
            "invocations": r.invocations,
            "rounds": r.rounds,
            "claim": r.reading(threshold, true).words(),
            "reading": reading.map(Reading::words),
            "half_width": r.half_width(),
            "resolution": r.resolution(),
            "threshold": threshold,
            "log_threshold": (1.0 + threshold).ln(),
        }),
    }
}

/// A ratio as the summary's record reads it back (the findings and the index read alike).
fn summary_ratio(r: &Ratio90, reading: Option<Reading>, threshold: f64) -> summary::Ratio {
    serde_json::from_value(record(Some(*r), reading, threshold))
        .expect("a ratio record reads back as the summary's ratio")
}

fn pair_json(pair: &Compared, numbers: &Numbers, threshold: f64) -> Json {
    let lookup_judged = numbers.withheld(pair, Cost::Lookup).is_none();
    let by_mode: Map<String, Json> = pair
        .lookup_by_mode
        .iter()
        .map(|(input, r)| {
            let reading = r.map(|r| r.reading(threshold, lookup_judged));
            (input.name().to_string(), record(*r, reading, threshold))
        })
        .collect();
    let cost = |c: Cost| record(pair.cost(c), numbers.reading(pair, c), threshold);
    json!({
        "base": pair.base,
        "variant": pair.variant,
        "factor": pair.factor.name(),
        "table_bytes": pair.table_bytes,
        "lookup": cost(Cost::Lookup),
        "lookup_by_mode": by_mode,
        "table_miss": cost(Cost::TableMiss),
        "nps": cost(Cost::Search),
        "pages_as_asked": pair.pages_as_asked,
        "phase": pair.phase.name(),
        "lookup_pages": pair.lookup_pages.name(),
        "undecided": Cost::ALL
            .iter()
            .filter_map(|&c| numbers.withheld(pair, c).map(|why| (c.name().to_string(), json!(why))))
            .collect::<Map<String, Json>>(),
    })
}

/// The run's controls: per cost the A/A record (its own reading), whether the phase order's
/// control passed, and every bias test.
fn controls_json(m: &Measurement, numbers: &Numbers) -> Json {
    let threshold = m.threshold;
    let aa: Map<String, Json> = numbers
        .controls
        .iter()
        .map(|(cost, r)| {
            let reading = r.map(|r| r.reading(threshold, true));
            (cost.name().to_string(), record(*r, reading, threshold))
        })
        .collect();
    let phase: Map<String, Json> = Cost::ALL
        .iter()
        .map(|&c| (c.name().to_string(), json!(numbers.phase_control(c))))
        .collect();
    let tests: Vec<Json> = numbers
        .tests
        .iter()
        .map(|row| {
            json!({
                "name": row.test.name,
                "cost": row.cost.name(),
                "control": row.phase_pair.as_ref().map_or("aa", |_| "phase order"),
                "pair": row.phase_pair,
                "log_ratio": row.test.value,
                "half_width": row.test.half_width,
                "p_raw": row.test.p_raw,
                "p": row.test.p,
                "failed": row.test.failed,
                "why": row.test.why(),
            })
        })
        .collect();
    // Per cost, the drift between the phases (later over earlier) on the phase order's
    // control, the figure its test reads.
    let drift: Map<String, Json> = Cost::ALL
        .iter()
        .filter_map(|&c| {
            let (pair, drift) = numbers.phase_drift(c)?;
            let record = record(Some(drift), None, threshold);
            Some((
                c.name().to_string(),
                json!({"pair": pair.variant, "drift": record}),
            ))
        })
        .collect();
    json!({
        "passed": numbers.all_passed(),
        "twin": m.twin,
        "aa": aa,
        "page_phases": phase,
        "phase_orders": m.process_orders().iter().map(|o| o.name()).collect::<Vec<_>>(),
        "phase_drift": drift,
        "tests": tests,
    })
}

fn summary(m: &Measurement, numbers: &Numbers) -> Vec<(String, Json)> {
    let threshold = m.threshold;
    let most = [Cost::Search, Cost::Lookup]
        .into_iter()
        .find_map(|cost| findings::matters_most(numbers, cost).map(|found| (cost, found)))
        .map_or(Json::Null, |(cost, (pair, r))| {
            json!({
                "variant": pair.variant,
                "factor": pair.factor.name(),
                "cost": cost.name(),
                "record": record(Some(r), numbers.reading(pair, cost), threshold),
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
        ("controls".to_string(), controls_json(m, numbers)),
        ("matters_most".to_string(), most),
        ("verdict".to_string(), json!(findings::verdict(numbers))),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::tests::assert_well_formed;
    use crate::experiments::Config;

    /// A record's `claim` is the interval's reading against ±ln 1.03, the test the reading
    /// makes, with the controls left out: the 2026-12-02 report's A/A [0.947, 1.017] is `not
    /// resolved`, not `level`; only an interval wholly inside reads `level`. The record keeps
    /// T and stores ln(1 + T), and reads back as the summary's ratio, as old records do.
    #[test]
    fn a_record_claims_level_only_inside_the_threshold() {
        let at = |low: f64, high: f64| Ratio90 {
            log: (low * high).ln() / 2.0,
            standard_error: (high / low).ln() / 2.0 / crate::answers::t90(4),
            degrees: 4,
            invocations: 5,
            rounds: 10,
            reach: (0.0, 0.0),
        };
        let claim = |r: Ratio90, reading| record(Some(r), reading, 0.03)["claim"].clone();
        assert_eq!(claim(at(0.947, 1.017), None), "not resolved");
        assert_eq!(
            claim(at(0.947, 1.017), Some(Reading::Withheld)),
            "not resolved"
        );
        assert_eq!(claim(at(0.98, 1.02), Some(Reading::Withheld)), "level");
        assert_eq!(claim(at(1.04, 1.1), None), "slower");
        assert_eq!(claim(at(0.9, 0.95), None), "faster");
        let r = record(Some(at(0.98, 1.02)), Some(Reading::Level), 0.03);
        assert_eq!(r["threshold"], 0.03);
        assert!((r["log_threshold"].as_f64().unwrap() - 1.03f64.ln()).abs() < 1e-15);
        let back = summary_ratio(&at(0.947, 1.017), None, 0.03);
        assert_eq!(back.claim, "not resolved");
        let old: summary::Ratio = serde_json::from_str(
            r#"{"ratio": 0.98, "low": 0.947, "high": 1.017, "invocations": 5, "rounds": 10,
                "claim": "level", "reading": "not resolved", "half_width": 0.036,
                "threshold": 0.03}"#,
        )
        .expect("a 2026-12-02 record reads back");
        assert_eq!(old.reading.as_deref(), Some("not resolved"));
    }

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
        // The answer heads the findings, at most 40 words, and every reading is a word of
        // `answers::Reading`, a withheld one with its reason.
        assert!(experiment.findings.starts_with(&summary.verdict));
        assert!(summary.verdict.split_whitespace().count() <= summary::ANSWER_WORDS);
        let words = ["faster", "slower", "level", "not resolved", "withheld"];
        for pair in &summary.pairs {
            for (key, ratio) in [("lookup", &pair.lookup), ("nps", &pair.nps)] {
                let reading = ratio.as_ref().and_then(|r| r.reading.as_deref());
                assert!(reading.is_some_and(|r| words.contains(&r)), "{pair:?}");
                assert_eq!(
                    reading == Some("withheld"),
                    pair.undecided.contains_key(key)
                );
            }
        }
        // One process: the A/A per cost is tested (Holm over the controls), the twin's chains
        // walked in its base's block as rows of their own.
        let tests = experiment.summary_value("controls").unwrap()["tests"]
            .as_array()
            .unwrap();
        assert!(
            tests.iter().filter(|t| t["control"] == "aa").count() >= 2,
            "{tests:?}"
        );
        assert!(tests
            .iter()
            .all(|t| t["p"].as_f64().unwrap() >= t["p_raw"].as_f64().unwrap()));
    }
    /// A process that runs the 2 MiB phase first (an odd invocation) records its order, splits
    /// the collapsed tables back for the 4 KiB phase without an error, and times both phases
    /// (where the tables land is the phase module's test, in a family of its own: the smoke
    /// run above may place dbb's meanwhile).
    #[test]
    fn an_odd_process_runs_the_2m_phase_first() {
        use crate::experiments::e11_search::TablePages;
        let config = Config {
            backends: vec!["dbb".to_string()],
            ..Config::smoke()
        };
        let m = measure::measure(&config, Invocation::new(1, 2), &mut |_, _| {});
        assert_eq!(m.phase_orders, [phases::PhaseOrder::HugeFirst]);
        assert!(
            !m.errors.iter().any(|e| e.contains("split")),
            "{:?}",
            m.errors
        );
        for pages in [TablePages::Small, TablePages::Huge] {
            assert!(m.search(pages, ("dbb", false)).is_some(), "{pages:?}");
            assert!(m.placements.iter().any(|p| p.0 == "dbb" && p.1 == pages));
        }
        // The 2 MiB phase's page block has the 4 KiB phase's rounds, apart from its own.
        let small = m.search(TablePages::Small, ("dbb", false)).unwrap().len();
        let page = m.page_search(TablePages::Huge, ("dbb", false)).unwrap();
        assert_eq!(page.len(), small);
        assert!(m
            .search
            .iter()
            .any(|r| r.pages == TablePages::Huge && r.page_block));
        let numbers = analysis::analyse(&m).numbers;
        let page = numbers.pairs.iter().find(|p| p.variant == "dbb@2m");
        assert!(page.is_some_and(|p| p.cost(Cost::Lookup).is_some()));
    }
}
