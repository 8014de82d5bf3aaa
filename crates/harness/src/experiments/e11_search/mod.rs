//! E11: what each backend costs a node of an engine's search, under evaluations of real size
//! (none, HalfKP-shaped NNUE, KPP), TTs of 16 MiB and 1 GiB, and the backends' tables on 4 KiB
//! and 2 MiB pages — seed 004's argument, end to end.
//!
//! `measure` runs the bench search per cell in randomised alternating blocks, `analysis` gives
//! ns per node, the paired differences D and the controls, `rule` is the pre-registered
//! decision rule, `findings` writes the prose, `summary` is what the index reads.

mod analysis;
mod findings;
mod measure;
pub mod rule;
pub mod summary;

use super::{failed_result, About, Config, Context, Experiment, ExperimentId, Progress};
use crate::invocations::Invocation;
use crate::results::ExperimentResult;
use analysis::{differences_json, triple, Numbers};
use kiki_engine::search::eval::EvalKind;
use measure::Measurement;
pub(crate) use measure::{warm_up_positions, Block, TablePages};
use serde_json::{json, Map, Value as Json};

pub const TITLE: &str = "Seed 004 in a search: ns per node per backend and evaluation";

/// The commit that holds the decision rule (`rule.rs`) as every E11 run uses it: committed
/// before the first E11 run.
pub const RULE_COMMIT: &str = "54afcd0d0331ba1b96b4d57b46aa2719f4a62005";

/// E11's processes per report invocation in a full run (see [`Search`]'s `invocations`).
pub const PROCESSES_PER_INVOCATION: usize = 2;

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
    /// Twice the report's K in a full run: the spread between invocations is mostly code
    /// layout (rule version 4), which only more processes, each in its own layout, average;
    /// each process takes fewer rounds, so E11's time stays about the same.
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

/// The keys other tools read (see the README's results.json section).
fn summary_of(m: &Measurement, n: &Numbers) -> Vec<(String, Json)> {
    let by_eval = |list: &[analysis::Difference]| -> Json {
        Json::Object(
            list.iter()
                .map(|d| (d.eval.name().to_string(), triple(&d.estimate)))
                .collect::<Map<String, Json>>(),
        )
    };
    let verdicts: Map<String, Json> = n
        .verdicts
        .iter()
        .map(|(e, v)| (e.name().to_string(), json!(v.words())))
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
    vec![
        ("verdict".into(), json!(findings::verdict_line(n))),
        ("verdict_by_eval".into(), Json::Object(verdicts)),
        ("threshold_ns".into(), json!(n.threshold_ns)),
        ("rule_commit".into(), json!(RULE_COMMIT)),
        ("rule_version".into(), json!(rule::VERSION)),
        ("eval_bytes".into(), Json::Object(eval_bytes)),
        ("bytes_per_node".into(), Json::Object(bytes_per_node)),
        (
            "controls".into(),
            json!({"aa": by_eval(&n.aa), "negative": by_eval(&n.negative), "passed": n.controls_passed}),
        ),
        ("differences".into(), differences_json(n, m.invocations)),
        ("best".into(), Json::Object(best)),
        ("resolution_ns".into(), json!(findings::resolution_ns(n))),
        ("layouts".into(), json!(m.layouts)),
        ("tt_mib".into(), json!(m.largest_tt())),
        (
            "secondary_invocations".into(),
            json!(m.secondary_invocations()),
        ),
        ("orders".into(), json!(m.orders)),
        ("material_eval".into(), json!(EvalKind::Material.name())),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::tests::assert_well_formed;
    use crate::experiments::Config;

    /// The rule is pre-registered: `rule.rs` is as RULE_COMMIT holds it. Checked wherever the
    /// repository's history is at hand (a clone, CI); a source tree without `.git` says so.
    #[test]
    fn the_rule_is_as_its_commit_holds_it() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
        if !std::path::Path::new(root).join(".git").exists() {
            eprintln!("no .git beside the sources: the rule's commit is not checked here");
            return;
        }
        if std::path::Path::new(root).join(".git/shallow").exists() {
            eprintln!("a shallow clone: the rule's commit may be missing, not checked here");
            return;
        }
        let path = "crates/harness/src/experiments/e11_search/rule.rs";
        let committed = std::process::Command::new("git")
            .args(["-C", root, "show", &format!("{RULE_COMMIT}:{path}")])
            .output()
            .expect("git runs");
        assert!(
            committed.status.success(),
            "{RULE_COMMIT} is not in this clone's history"
        );
        let now = std::fs::read(std::path::Path::new(root).join(path)).expect("rule.rs reads");
        assert!(
            committed.stdout == now,
            "rule.rs differs from {RULE_COMMIT}: a changed rule is a new version with its own commit"
        );
    }

    #[test]
    fn a_full_report_runs_twice_its_invocations_of_e11_and_others_as_asked() {
        use crate::experiments::DynExperiment;
        let full = Config::full();
        assert_eq!(DynExperiment::invocations(&Search, 5, &full), 10);
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

    /// A secondary cell measured in invocations 0 and 2 of 4 is analysed over those two,
    /// each paired with the verdict's cell of the same invocation, and the table, the method
    /// and the summary say how many invocations it had; a verdict's cell missing from an
    /// invocation is an error.
    #[test]
    fn a_secondary_cell_in_some_invocations_is_analysed_over_those() {
        use crate::experiments::{interval, interval_linear};
        use crate::stats::format_interval;
        use measure::{Cell, Row};
        let top = Cell {
            eval: EvalKind::Material,
            tt_mib: 1024,
            pages: TablePages::Huge,
        };
        let small = Cell {
            pages: TablePages::Small,
            ..top
        };
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
            experiment.method.contains("(2 of the 4)"),
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
        assert_eq!(
            summary("verdict_by_eval")["nnue"],
            json!("not decided here")
        );
        let verdict = summary("verdict_by_eval")["nnue"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(
            ["holds", "does not hold", "not resolved", "not decided here"]
                .contains(&verdict.as_str()),
            "{verdict}"
        );
        assert!(
            experiment.findings.contains("Verdict:"),
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
