//! E11: what each backend costs a node of an engine's search, under evaluations of real size
//! (none, HalfKP-shaped NNUE, KPP), TTs of 16 MiB and 1 GiB, and the backends' tables on 4 KiB
//! and 2 MiB pages — seed 004's argument, end to end.
//!
//! `measure` runs the bench search per cell in randomised alternating blocks, `analysis` gives
//! ns per node, the paired differences D and the controls, `rule` is the pre-registered
//! decision rule, `findings` writes the prose, `summary` is what the index reads.

mod analysis;
mod block;
mod components;
mod differences;
mod findings;
mod measure;
mod measurement;
/// `EvalKind` by its name in results.json (E13's cells are written so too).
pub(crate) use measurement::eval_name;
pub mod rule;
pub mod rule_v5;
pub mod rule_v6;
pub mod rule_v7;
pub mod rule_v8;
pub mod summary;

use super::{failed_result, About, Config, Context, Experiment, ExperimentId, Progress};
use crate::invocations::Invocation;
use crate::results::ExperimentResult;
use analysis::{triple, Numbers};
use differences::differences_json;

use kiki_engine::search::eval::EvalKind;
use measure::Measurement;
pub(crate) use measure::{warm_up_positions, Block, TablePages};
use serde_json::{json, Map, Value as Json};

pub const TITLE: &str = "Seed 004 in a search: ns per node per backend and evaluation";

/// The commit that holds rule version 4 (`rule.rs`), as the reports of version 4 name it.
pub const RULE_V4_COMMIT: &str = "54afcd0d0331ba1b96b4d57b46aa2719f4a62005";

/// The commit that holds rule version 5 (`rule_v5.rs`), as the reports of version 5 name it;
/// v6 reuses its pieces.
pub const RULE_V5_COMMIT: &str = "e0d47349f51b8a4c91fed078032ba0e9077a90cb";

/// The commit that holds rule version 6 (`rule_v6.rs`), as its one report names it; v7
/// reuses its pieces.
pub const RULE_V6_COMMIT: &str = "1c3502f762cfa3bb065610402a7c99f7d420187c";

/// The commit that holds rule version 7 (`rule_v7.rs`), as its reports name it; v8 reuses
/// its pieces.
pub const RULE_V7_COMMIT: &str = "09b7fce6f112e83682c856ed97c5eeea41761e83";

/// The commit that holds the decision rule E11 runs (`rule_v8.rs`): committed before its
/// first run.
pub const RULE_COMMIT: &str = "391a41761efead06a89dd10eeacb1add0bc02ca4";

/// E11's processes per report invocation in a full run (see [`Search`]'s `invocations`): rule
/// v7's sampling (pairs of processes are the unit; two rounds each).
pub const PROCESSES_PER_INVOCATION: usize = 4;

/// E11 in the list of experiments.
pub(crate) struct Search;

impl Experiment for Search {
    type Measurement = Measurement;
    const ABOUT: About = About {
        id: ExperimentId::E11,
        title: TITLE,
        about: "a fixed-depth engine search per backend under material, NNUE and KPP evaluations",
        runs_by_default: true,
    };
    /// Four times the report's K in a full run: rule v5 sizes its sample in processes of two
    /// rounds each (the arithmetic is in `rule_v6.rs` and `rule_v7.rs`).
    fn invocations(&self, report: usize, config: &Config) -> usize {
        if report > 1 && !config.quick && !config.smoke {
            report * PROCESSES_PER_INVOCATION
        } else {
            report
        }
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
            Err(why) => failed_result(ExperimentId::E11, TITLE, &why),
        }
    }
}

fn result(m: &Measurement) -> ExperimentResult {
    let analysis = analysis::analyse(m);
    ExperimentResult {
        wall_seconds: None,
        id: "E11".to_string(),
        title: TITLE.to_string(),
        method: findings::method(m),
        findings: findings::paragraph(m, &analysis.numbers),
        comparisons: analysis.comparisons,
        series: analysis.series,
        tables: analysis.tables,
        plots: analysis.plots,
        summary: summary_of(m, &analysis.numbers),
    }
}

/// The keys other tools read (documented in docs/report.md).
fn summary_of(m: &Measurement, n: &Numbers) -> Vec<(String, Json)> {
    let by_eval = |list: &[analysis::Difference], kind: &str| -> Json {
        Json::Object(
            list.iter()
                .map(|d| {
                    let mut record = triple(&d.estimate);
                    if let Some((_, _, test)) = n
                        .controls
                        .iter()
                        .find(|(e, k, _)| *e == d.eval && *k == kind)
                    {
                        record["p"] = json!(test.p);
                        record["p_raw"] = json!(test.p_raw);
                        record["half_width_ns"] = json!(test.half_width);
                        record["failed"] = json!(test.failed);
                    }
                    (d.eval.name().to_string(), record)
                })
                .collect::<Map<String, Json>>(),
        )
    };
    let verdicts: Map<String, Json> = n
        .verdicts
        .iter()
        .map(|(e, v)| (e.name().to_string(), json!(v.words())))
        .collect();
    let thresholds: Map<String, Json> = n
        .thresholds
        .iter()
        .map(|(e, t)| (e.name().to_string(), json!(t)))
        .collect();
    let references: Map<String, Json> = n
        .references
        .iter()
        .map(|(e, t)| (e.name().to_string(), json!(t)))
        .collect();
    let eval_bytes: Map<String, Json> = m
        .eval_bytes
        .iter()
        .map(|(name, bytes)| (name.clone(), json!(bytes)))
        .collect();
    let bytes_per_node: Map<String, Json> = m
        .traffic
        .iter()
        .filter(|t| t.tt_mib == m.largest_tt())
        .map(|t| {
            let per = |x: u64| x as f64 * 64.0 / t.nodes.max(1) as f64;
            (
                t.eval.name().to_string(),
                json!({"eval": per(t.eval_lines), "tt": per(t.tt_accesses)}),
            )
        })
        .collect();
    let best: Map<String, Json> = n
        .best
        .iter()
        .map(|(e, b, separation)| (e.name().to_string(), json!(separation.summary(b))))
        .collect();
    let components: Map<String, Json> = n
        .verdicts
        .iter()
        .filter_map(|(e, _)| n.rule_difference(*e))
        .map(|d| (d.eval.name().to_string(), json!(d.components)))
        .collect();
    vec![
        ("verdict".into(), json!(findings::verdict_line(n))),
        ("verdict_by_eval".into(), Json::Object(verdicts)),
        ("threshold_ns".into(), Json::Object(thresholds)),
        ("reference_ns".into(), Json::Object(references)),
        (
            "threshold_pct".into(),
            json!(rule_v8::THRESHOLD_SHARE * 100.0),
        ),
        ("rule_commit".into(), json!(RULE_COMMIT)),
        ("rule_version".into(), json!(rule_v8::VERSION)),
        ("eval_bytes".into(), Json::Object(eval_bytes)),
        ("bytes_per_node".into(), Json::Object(bytes_per_node)),
        (
            "controls".into(),
            json!({"aa": by_eval(&n.aa, "aa"), "negative": by_eval(&n.negative, "negative"), "passed": n.controls_passed}),
        ),
        ("differences".into(), differences_json(n)),
        ("best".into(), Json::Object(best)),
        ("resolution_ns".into(), json!(findings::resolution_ns(n))),
        ("variance_components".into(), Json::Object(components)),
        ("startup_seconds".into(), json!(m.startup_seconds)),
        ("round_seconds".into(), json!(m.round_seconds)),
        ("layouts".into(), json!(m.layouts)),
        ("tt_mib".into(), json!(m.largest_tt())),
        (
            "secondary_invocations".into(),
            json!(m.secondary_invocations()),
        ),
        (
            "order_seed".into(),
            json!({"seed": m.order_seed, "seed_hex": format!("{:#018x}", m.order_seed)}),
        ),
        ("orders".into(), json!(m.orders)),
        ("chunks".into(), json!(m.chunks)),
        ("material_eval".into(), json!(EvalKind::Material.name())),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::tests::{assert_as_committed, assert_well_formed};
    use crate::experiments::Config;

    /// The rules are pre-registered: v4's `rule.rs` as its commit holds it (the reports of v4
    /// name it), v5's `rule_v5.rs` as its commit holds it (v6 reuses it), and v6's
    /// `rule_v6.rs` as its commit holds it, v7's `rule_v7.rs` as its commit holds it, and v8's
    /// `rule_v8.rs` as RULE_COMMIT holds it.
    #[test]
    fn the_rule_is_as_its_commit_holds_it() {
        let folder = "crates/harness/src/experiments/e11_search";
        assert_as_committed(&format!("{folder}/rule.rs"), RULE_V4_COMMIT);
        assert_as_committed(&format!("{folder}/rule_v5.rs"), RULE_V5_COMMIT);
        assert_as_committed(&format!("{folder}/rule_v6.rs"), RULE_V6_COMMIT);
        assert_as_committed(&format!("{folder}/rule_v7.rs"), RULE_V7_COMMIT);
        assert_as_committed(&format!("{folder}/rule_v8.rs"), RULE_COMMIT);
    }

    #[test]
    fn a_full_report_runs_four_times_its_invocations_of_e11_and_others_as_asked() {
        use crate::experiments::DynExperiment;
        let full = Config::full();
        assert_eq!(DynExperiment::invocations(&Search, 5, &full), 20);
        assert_eq!(DynExperiment::invocations(&Search, 1, &full), 1);
        assert_eq!(DynExperiment::invocations(&Search, 2, &Config::quick()), 2);
        let e5 = crate::experiments::e5_effects::Effects;
        assert_eq!(DynExperiment::invocations(&e5, 5, &full), 5);
        // E2 and E10 add the invocations that choose their best cells.
        let e10 = crate::experiments::e10_attack_maps::AttackMaps;
        assert_eq!(DynExperiment::invocations(&e10, 5, &full), 7);
    }

    /// One invocation's measurement of `rows` in `cells` (backends dbb, sqww and mailbox).
    fn part(cells: Vec<measure::Cell>, rows: Vec<measure::Row>) -> Measurement {
        Measurement {
            backends: vec!["dbb", "sqww", "mailbox"],
            skipped: Vec::new(),
            positions: 1,
            depth: 1,
            rounds: 2,
            secondary_every: 2,
            ranking_every: 1,
            order_seed: 0,
            startup_seconds: Vec::new(),
            round_seconds: Vec::new(),
            chunks: Vec::new(),
            threshold: 0.03,
            cells,
            eval_bytes: Vec::new(),
            traffic: Vec::new(),
            table_placements: Vec::new(),
            buffers: Vec::new(),
            orders: Vec::new(),
            rows,
            errors: Vec::new(),
            invocations: 1,
            layouts: 1,
        }
    }

    /// The raw difference (what an engine pays) has its own control: where dbb's twin reads
    /// 20 ns a node slower than dbb under material and under nnue alike, D's A/A passes (the
    /// offset cancels) but the raw A/A shows the bias, and the raw figure is withheld.
    #[test]
    fn a_biased_raw_aa_withholds_the_raw_figure_not_the_verdict() {
        use measure::{Cell, Row};
        let cells =
            [EvalKind::Material, EvalKind::Nnue].map(|e| Cell::new(e, 1024, TablePages::Huge));
        let noise = |index: usize, k: usize| ((index * 7 + k * 3) % 5) as f64 - 2.0;
        let parts: Vec<Measurement> = (0..8)
            .map(|index| {
                let mut rows = Vec::new();
                for (c, &cell) in cells.iter().enumerate() {
                    let base = 1000.0 + 10.0 * index as f64;
                    let entries = [
                        ("dbb", false, base),
                        ("dbb", true, base + 20.0 + noise(index, c)),
                        ("magic-plain", false, base + 5.0 + noise(index, 2 + c)),
                        ("sqww", false, base + 50.0 + noise(index, 4 + c)),
                        ("mailbox", false, base + 50.0 + noise(index, 6 + c)),
                    ];
                    for (backend, twin, ns) in entries {
                        rows.push(Row {
                            cell,
                            backend,
                            twin,
                            ns_per_node: vec![ns, ns + 1.0],
                            invocations: vec![index],
                        });
                    }
                }
                let mut part = part(cells.to_vec(), rows);
                part.backends = vec!["dbb", "magic-plain", "sqww", "mailbox"];
                part
            })
            .collect();
        let m = measure::merge(&parts).expect("merges");
        let experiment = result(&m);
        let raw =
            &experiment.summary_value("differences").unwrap()["nnue"]["dbb vs magic-plain"]["raw"];
        assert_eq!(raw["withheld"], json!(true), "{raw}");
        assert_eq!(raw["aa"]["failed"], json!(true), "{raw}");
        assert_eq!(
            experiment.summary_value("controls").unwrap()["aa"]["nnue"]["failed"],
            json!(false)
        );
        assert!(
            experiment.findings.contains("nnue withheld ("),
            "{}",
            experiment.findings
        );
    }

    /// A secondary cell measured in invocations 0 and 2 of 4 is analysed over those two,
    /// each paired with the verdict's cell of the same invocation, and the table, the method
    /// and the summary say how many invocations it had; a verdict's cell missing from an
    /// invocation is an error.
    #[test]
    fn a_secondary_cell_in_some_invocations_is_analysed_over_those() {
        use crate::experiments::{interval, interval_linear};
        use crate::stats::format_interval;
        use measure::{Cell, Row};
        let top = Cell::new(EvalKind::Material, 1024, TablePages::Huge);
        let small = Cell::new(EvalKind::Material, 1024, TablePages::Small);
        // ns per node on 2 MiB pages: 10 + the invocation's index. On 4 KiB pages the
        // table-free backends take 1 more (the drift between the phases), dbb 2 + the index.
        let measured = |index: usize, with_top: bool| {
            let secondary = index.is_multiple_of(2);
            let mut rows = Vec::new();
            for backend in ["dbb", "sqww", "mailbox"] {
                let row = |cell, ns: f64| Row {
                    cell,
                    backend,
                    twin: false,
                    ns_per_node: vec![ns, ns + 0.5],
                    invocations: vec![index],
                };
                let base = 10.0 + index as f64;
                if with_top {
                    rows.push(row(top, base));
                }
                if secondary {
                    let extra = if backend == "dbb" {
                        2.0 + index as f64
                    } else {
                        1.0
                    };
                    rows.push(row(small, base + extra));
                }
            }
            let cells = if secondary {
                vec![small, top]
            } else {
                vec![top]
            };
            part(cells, rows)
        };
        let parts: Vec<Measurement> = (0..4).map(|i| measured(i, true)).collect();
        let m = measure::merge(&parts).expect("merges");
        assert_eq!((m.invocations_of(small), m.invocations_of(top)), (2, 4));
        let experiment = result(&m);
        // dbb's page cost net of the drift: 1 in invocation 0, 3 in invocation 2.
        let pages = &experiment.tables[2];
        let dbb = pages.rows.iter().find(|r| r[0].starts_with("dbb")).unwrap();
        assert_eq!(dbb[3], "2", "{dbb:?}");
        assert_eq!(dbb[2], format_interval(&interval_linear(&[1.0, 3.0], 2)));
        let times = &experiment.tables[0];
        let column = times
            .headers
            .iter()
            .position(|h| h.contains("tables 4k"))
            .unwrap();
        assert!(
            times.headers[column].ends_with("(2 of 4 invocations)"),
            "{:?}",
            times.headers
        );
        assert!(!times
            .headers
            .iter()
            .any(|h| h.contains("2m") && h.contains(" of ")));
        let dbb_small = m.samples(small, "dbb", false).unwrap();
        assert_eq!(
            times.rows[0][column],
            format_interval(&interval(dbb_small, 2))
        );
        assert!(
            experiment.method.contains("in 2 of the 4 processes"),
            "{}",
            experiment.method
        );
        assert_eq!(
            experiment.summary_value("secondary_invocations"),
            Some(&json!(2))
        );
        let mut parts = parts;
        parts[1] = measured(1, false);
        assert!(measure::merge(&parts).is_err());
    }

    #[test]
    fn smoke_run_is_well_formed_with_every_summary_key() {
        let config = Config {
            backends: ["dbb", "magic-plain", "sqww", "mailbox"]
                .map(String::from)
                .to_vec(),
            ..Config::smoke()
        };
        let experiment = crate::experiments::tests::run_once(&Search, &config, &mut |_, _| {});
        assert_well_formed(&experiment);
        let keys: Vec<&str> = experiment.summary.iter().map(|(k, _)| k.as_str()).collect();
        for key in [
            "verdict",
            "verdict_by_eval",
            "threshold_ns",
            "rule_commit",
            "rule_version",
            "eval_bytes",
            "bytes_per_node",
            "controls",
            "differences",
            "resolution_ns",
            "reference_ns",
            "layouts",
        ] {
            assert!(keys.contains(&key), "{key} missing from {keys:?}");
        }
        let summary = |key: &str| {
            experiment
                .summary
                .iter()
                .find(|(k, _)| k == key)
                .unwrap()
                .1
                .clone()
        };
        assert_eq!(
            summary("eval_bytes")["kpp"],
            json!(EvalKind::Kpp.table_bytes())
        );
        // One invocation: D has a value, but the rule's interval (over invocations) has no
        // bounds, and nothing is decided.
        let d = &summary("differences")["nnue"]["dbb vs magic-plain"];
        assert!(d["ns"].is_number() && d["low"].is_null(), "{d}");
        // One process: no control has an interval, so the controls fail (nothing bounds).
        assert_eq!(summary("verdict_by_eval")["nnue"], json!("withheld"));
        assert_eq!(summary("rule_version"), json!(8));
        assert!(summary("reference_ns")["nnue"].is_number());
        assert_eq!(summary("controls")["passed"], json!(false));
        assert!(summary("threshold_ns")["nnue"].is_number());
        assert!(summary("chunks").as_array().is_some_and(|c| !c.is_empty()));
        let d = &summary("differences")["nnue"]["dbb vs magic-plain"];
        assert!(
            d["half_width_ns"].is_null() || d["half_width_ns"].is_number(),
            "{d}"
        );
        assert!(
            experiment
                .findings
                .starts_with("Seed 004 in a search: withheld"),
            "{}",
            experiment.findings
        );
        assert!(
            !experiment.findings.contains("fingerprints differ"),
            "{}",
            experiment.findings
        );
    }
}
