use super::*;
use crate::machine::Machine;
use crate::report::new_report;
use crate::results::{ExperimentResult, PairRecord, Winner};
use crate::stats::{Claim, Comparison};
use crate::verdicts::{decided, grouped, verdict};
use serde_json::Value;
use std::path::PathBuf;

/// An experiment `id` whose summary is the JSON object `text`.
fn with_summary(id: &str, text: &str) -> ExperimentResult {
    let summary: serde_json::Map<String, Value> = serde_json::from_str(text).unwrap();
    ExperimentResult {
        wall_seconds: None,
        comparisons: Vec::new(),
        id: id.into(),
        title: format!("{id} title"),
        method: String::new(),
        findings: String::new(),
        summary: summary.into_iter().collect(),
        series: Vec::new(),
        tables: Vec::new(),
        plots: Vec::new(),
    }
}

fn pair(cell: &str, a: &str, b: &str, claim: Claim) -> PairRecord {
    PairRecord {
        cell: cell.into(),
        a: a.into(),
        b: b.into(),
        comparison: Comparison {
            ratio: 1.0,
            low: 1.0,
            high: 1.0,
            invocations: 5,
            rounds: 25,
            claim,
        },
    }
}

fn winner(cell: &str, backend: &str) -> Winner {
    Winner {
        cell: cell.into(),
        backend: backend.into(),
    }
}

/// The fixtures: trimmed results.json of two reports once committed (summaries and the
/// comparisons against each cell's winner, floats rounded; no series, tables or plots).
fn fixtures() -> PathBuf {
    Path::new(crate::WORKSPACE_ROOT).join("tests/data/index")
}

fn fixture(folder: &str) -> Entry {
    let results = read_report(&fixtures().join(folder).join("results.json")).unwrap();
    Entry {
        folder: folder.into(),
        results,
    }
}

/// A scratch folder under the system's temporary folder.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kiki-index-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_winner_is_decided_only_where_every_comparison_against_it_claims_slower() {
    let pairs = [
        pair(
            "throughput uniform-10 mixed",
            "mailbox",
            "dbb",
            Claim::Slower,
        ),
        pair(
            "throughput uniform-10 mixed",
            "bonanza",
            "dbb",
            Claim::Level,
        ),
        pair(
            "latency uniform-10 mixed",
            "bonanza",
            "qugiy",
            Claim::Slower,
        ),
        pair("perft start d5", "dbb", "pext", Claim::Slower),
        pair("perft start d5 (leaf list)", "dbb", "pext", Claim::Level),
    ];
    assert!(!decided(&winner("throughput uniform-10", "dbb"), &pairs));
    assert!(decided(&winner("latency uniform-10", "qugiy"), &pairs));
    assert!(decided(&winner("perft start d5", "pext"), &pairs));
    assert!(!decided(
        &winner("perft start d5 (leaf list)", "pext"),
        &pairs
    ));
    // Nothing recorded against the winner: not decided.
    assert!(!decided(&winner("latency uniform-10", "dbb"), &pairs));
    assert!(decided(&winner("", "qugiy"), &pairs[2..3]));
    assert_eq!(crate::verdicts::num(0.37276), "0.373");
    assert_eq!(crate::verdicts::num(-0.006543), "-0.00654");
    assert_eq!(crate::verdicts::num(45.397), "45.4");
    let a = winner("throughput uniform-10", "pext");
    let b = winner("latency uniform-10", "dbb");
    let c = winner("latency uniform-25", "pext");
    assert_eq!(
        grouped(&[&a, &b, &c]),
        "pext (throughput uniform-10, latency uniform-25); dbb (latency uniform-10)"
    );
}

#[test]
fn verdicts_read_the_typed_summaries() {
    let full = fixture("amd-epyc-f25-m17-2026-11-23-7");
    let line = |id: &str| verdict(full.results.experiment(id).unwrap()).unwrap();
    let e1 = line("E1");
    assert_eq!(e1.line, "a clear winner in 3 of 10 cells");
    assert_eq!(
        e1.best.unwrap(),
        "qugiy (latency uniform-10, latency uniform-25, latency uniform-50)"
    );
    let e2 = line("E2");
    assert!(e2.line.contains("haitaka 0.3.2 (peer) takes"), "{e2:?}");
    // Each end of the range names its own task (a task's depth changes between reports).
    let summary: crate::experiments::e2_movegen::summary::Summary =
        full.results.experiment("E2").unwrap().summary_as().unwrap();
    let by_ratio = |a: &&crate::experiments::e2_movegen::summary::PeerRatio,
                    b: &&crate::experiments::e2_movegen::summary::PeerRatio| {
        a.ratio.total_cmp(&b.ratio)
    };
    let low = summary.peer_ratios.iter().min_by(by_ratio).unwrap();
    let high = summary.peer_ratios.iter().max_by(by_ratio).unwrap();
    assert_ne!(low.task, high.task);
    let range = format!(
        "× the chosen backend's time on {}, up to {}× on {} (each task's backend chosen on held-out invocations);",
        low.task,
        crate::verdicts::num(high.ratio),
        high.task
    );
    assert!(e2.line.contains(&range), "{e2:?} lacks {range}");
    assert!(
        e2.line
            .ends_with("list movegen ≥ 1.5× haitaka 0.3.2 (peer): met"),
        "{e2:?}"
    );
    assert!(line("E3").line.contains("brute force takes 14.1–30.9×"));
    // E5 compares every stepper with sqww, none with the winner: not decided.
    let e5 = line("E5");
    assert_eq!(
        e5.line,
        "bitboard-qugiy fastest by median (no comparison recorded against it)"
    );
    assert_eq!(e5.best, None);
    let e6 = line("E6");
    assert!(
        e6.line.starts_with("effective levels L1 32 KiB at 1.67 ns"),
        "{e6:?}"
    );
    assert!(
        e6.line.contains("L3 4 MiB at 15.9 ns (sysfs 32 MiB)"),
        "{e6:?}"
    );
    assert_eq!(e6.best, None);
    let e7 = line("E7");
    // Its ½ L3 positive control failed, and today's rule fails its ½ L2 too (4.83 [2.24–7.43]
    // against 3.23–3.90 ± 25 %): the verdict it printed is read as not decided.
    assert!(
        e7.line
            .starts_with("seed 004 not decided here (failed controls: ½ L3, ½ L2)"),
        "{e7:?}"
    );
    assert!(e7.line.contains("negative controls 3 of 3 pass"), "{e7:?}");
    assert_eq!(e7.best, None);
    assert!(line("E8")
        .line
        .contains("beside an evaluation qugiy in 5 of 5"));
    let e10 = line("E10");
    assert_eq!(
        e10.line,
        "the fastest set-wise method (set-wise/avx512) takes 0.373–0.558× the best per-piece \
         time; faster beyond the threshold in 2 of 2 workloads"
    );
    assert_eq!(
        e10.best.unwrap(),
        "sqww set-wise/avx512 (map+counts (random play), map+counts (greedy playouts))"
    );
    // An old report: E6 without levels, E7 by an earlier design.
    let old = fixture("intel-xeon-f6-m207-2026-11-22-2");
    let line = |id: &str| verdict(old.results.experiment(id).unwrap()).unwrap();
    assert!(line("E6").line.starts_with("latency curve only"));
    assert!(
        line("E7").line.starts_with("seed 004 see the report"),
        "{:?}",
        line("E7")
    );
    // A summary of the wrong shape is an error naming the experiment, not a panic.
    let bad = with_summary("E6", r#"{"effective_levels": 3}"#);
    assert!(verdict(&bad).unwrap_err().starts_with("E6 summary: "));
}

#[test]
fn cache_argument_sets_the_cpus_side_by_side() {
    let e6 = with_summary(
        "E6",
        r#"{"effective_levels": [{"level": "L1", "bytes": 32768, "ns": 1.2, "sysfs_bytes": 32768},
            {"level": "L3", "bytes": 8388608, "ns": 20.5, "sysfs_bytes": 33554432}]}"#,
    );
    let e7 = with_summary(
        "E7",
        r#"{"pressure_max_bytes": 33554432, "pressure_reads_max": 512,
            "table_miss_cost": {"magic-plain": {"ns": 30.5, "low": 28.0, "high": 33.0},
                                "dbb": {"ns": 2.5, "low": 2.0, "high": 3.0}},
            "negative_controls": {"mailbox": {"ns": 0.1, "low": -0.1, "high": 0.2, "pass": true}},
            "positive_control": {"bytes": 33554432, "ns": 80.0, "expected_ns": 78.0, "pass": true},
            "seed_004_verdict": "holds here"}"#,
    );
    let mut machine = Machine::detect();
    machine.cpu_model = "Some CPU".into();
    let entry = Entry {
        folder: "some-cpu".into(),
        results: new_report(machine, vec![e6, e7]),
    };
    let (text, plot) = cache_argument(&[&entry]);
    assert!(text.contains("## The cache argument per CPU"), "{text}");
    assert!(text.contains("L3 8 MiB at 20.5 ns (32 MiB)"), "{text}");
    assert!(
        text.contains("| magic-plain: table-miss ns per lookup | 30.5 [28–33] |"),
        "{text}"
    );
    assert!(text.contains("mailbox: true"), "{text}");
    assert!(text.contains("| seed 004 | holds |"), "{text}");
    let plot = plot.expect("a plot");
    assert_eq!(plot.categories, ["magic-plain", "dbb"]);
    assert_eq!(plot.lines[0].points[1].y, 2.5);
    // Reports without these values add no section.
    let bare = Entry {
        folder: "bare".into(),
        results: new_report(Machine::detect(), vec![with_summary("E1", "{}")]),
    };
    assert_eq!(cache_argument(&[&bare]).0, "");
}

#[test]
fn layouts_set_the_cpus_side_by_side_on_the_same_pairs() {
    let ratio = |r: f64, low: f64, high: &str, claim: &str| {
        format!(
            r#"{{"ratio": {r}, "low": {low}, "high": {high}, "invocations": 5, "rounds": 25, "claim": "{claim}"}}"#
        )
    };
    // The search's record with its reading (reports since the key).
    let read = |r: f64, low: f64, high: &str, claim: &str, reading: &str| {
        format!(
            r#"{{"ratio": {r}, "low": {low}, "high": {high}, "invocations": 5, "rounds": 25, "claim": "{claim}", "reading": "{reading}"}}"#
        )
    };
    let e12 = with_summary(
        "E12",
        &format!(
            r#"{{"pairs": [
                {{"base": "pext", "variant": "pext.file-rank", "factor": "line-split",
                  "table_bytes": [8273920, 548368], "lookup": {},
                  "lookup_by_mode": {{"latency random-play": {}}},
                  "table_miss": null, "nps": {}, "lookup_pages": "4k"}},
                {{"base": "bonanza", "variant": "bonanza.entry16", "factor": "entry-size",
                  "table_bytes": [431360, 215680], "lookup": {}, "lookup_by_mode": {{}},
                  "table_miss": null, "nps": {}, "phase": "2m", "lookup_pages": "4k",
                  "undecided": {{"nps": "not decided: on 2 MiB pages the two sides' tables did not land alike"}}}},
                {{"base": "dbb", "variant": "dbb@2m", "factor": "pages",
                  "table_bytes": [2674688, 2674688], "lookup": null, "lookup_by_mode": {{}},
                  "table_miss": null, "nps": {},
                  "undecided": {{"nps": "a null contrast: its tables stayed on 4 KiB pages"}}}}],
               "controls": {{"passed": false}},
               "matters_most": {{"variant": "pext.file-rank", "cost": "lookup"}},
               "verdict": "The layout factor that matters most on this CPU is line-split."}}"#,
            ratio(1.25, 1.2, "1.3", "slower"),
            ratio(0.94, 0.91, "0.98", "faster"),
            read(0.99, 0.97, "1.01", "level", "level"),
            ratio(1.0, 0.99, "1.01", "level"),
            ratio(1.01, 0.99, "1.02", "level"),
            ratio(0.9, 0.5, "null", "level")
        ),
    );
    let mut machine = Machine::detect();
    machine.cpu_model = "Some CPU".into();
    let entry = Entry {
        folder: "some-cpu".into(),
        results: new_report(machine, vec![e12]),
    };
    // The search's answer first (each variant's reading, a withheld one so named, the
    // half-width derived from the bounds where the record has none), then the factor lookups
    // name, labelled as the secondary figure; not the stored sentence.
    let line = verdict(&entry.results.experiments[0]).unwrap().line;
    assert_eq!(
        line,
        "Search ns/node, variant/base (90 %): level `pext.file-rank` ×0.99 [0.97–1.01]; \
         withheld `bonanza.entry16` ×1.01 [0.99–1.02]; half-width ±2.0 %. Secondary, by \
         lookups (not the search): the layout factor that matters most in lookups is line-split \
         (`pext.file-rank` against `pext`), lookups ×1.25 [1.20–1.30] slower. Withheld: the \
         search of `bonanza.entry16` (on 2 MiB pages the two sides' tables did not land \
         alike). Its other measures, which this verdict does not cover: lookups (latency \
         random-play) ×0.94 [0.91–0.98]."
    );
    let search = line.find("Search ns/node").unwrap();
    let lookups = line.find("matters most in lookups").unwrap();
    assert!(search < lookups, "{line}");
    let text = layouts(&[&entry]);
    assert!(text.contains("## Table layouts, per CPU"), "{text}");
    assert!(
        text.contains(
            "| pext.file-rank vs pext (line-split) | ×1.25 [1.20–1.30] slower (4 KiB) / ×0.99 [0.97–1.01] level |"
        ),
        "{text}"
    );
    // Timed in the 2 MiB phase with its tables on 4 KiB pages (the phase order's control):
    // no "(4 KiB)", which says the lookups were read in the 4 KiB phase.
    assert!(
        text.contains(
            "| bonanza.entry16 vs bonanza (entry-size) | ×1.00 [0.99–1.01] / ×1.01 [0.99–1.02] withheld |"
        ),
        "{text}"
    );
    assert!(
        text.contains("| dbb@2m vs dbb (pages) | — / ×0.90 [0.50–∞] withheld |"),
        "{text}"
    );
    assert!(
        text.contains("Withheld: the search of `bonanza.entry16`"),
        "{text}"
    );
    let bare = Entry {
        folder: "bare".into(),
        results: new_report(Machine::detect(), vec![with_summary("E1", "{}")]),
    };
    assert_eq!(layouts(&[&bare]), "");
}

/// The index of the two fixture reports and a superseded list: one section per CPU, the
/// incomplete one said so, the retired reports with their commits, a CPU with none current.
#[test]
fn the_index_shows_one_current_report_per_cpu_and_the_retired_ones() {
    let dir = scratch("fixtures");
    for folder in [
        "amd-epyc-f25-m17-2026-11-23-7",
        "intel-xeon-f6-m207-2026-11-22-2",
    ] {
        std::fs::create_dir(dir.join(folder)).unwrap();
        std::fs::copy(
            fixtures().join(folder).join("results.json"),
            dir.join(folder).join("results.json"),
        )
        .unwrap();
    }
    // An older report of the AMD CPU, not yet retired.
    let older = dir.join("amd-epyc-f25-m17-2026-11-23-6");
    std::fs::create_dir(&older).unwrap();
    std::fs::copy(
        fixtures().join("amd-epyc-f25-m17-2026-11-23-7/results.json"),
        older.join("results.json"),
    )
    .unwrap();
    std::fs::copy(fixtures().join(SUPERSEDED), dir.join(SUPERSEDED)).unwrap();
    let rebuilt = rebuild(&dir).unwrap();
    assert_eq!((rebuilt.indexed, rebuilt.current), (3, 2));
    assert_eq!(
        rebuilt.stale,
        ["'amd-epyc-f25-m17-2026-11-23-6': superseded by amd-epyc-f25-m17-2026-11-23-7"]
    );
    let index = std::fs::read_to_string(dir.join("README.md")).unwrap();
    for expected in [
        "## AMD EPYC (amd-epyc-f25-m17)",
        "Report [amd-epyc-f25-m17-2026-11-23-7](amd-epyc-f25-m17-2026-11-23-7/report.md): \
         commit `bbdd7c0` (clean), mode `full`, 5 invocations",
        "| [E1 Attack throughput and latency](amd-epyc-f25-m17-2026-11-23-7/report.md#e1--attack-throughput-and-latency) \
         | a clear winner in 3 of 10 cells | qugiy (latency uniform-10, latency uniform-25, latency uniform-50) |",
        "## Intel(R) Xeon(R) Processor (intel-xeon-f6-m207)",
        "Not a complete report: lacks E10, E11, E12, E13.",
        "## The cache argument per CPU",
        "## CPUs without a current report",
        "- AMD EPYC (amd-epyc-f26-m2): `amd-epyc-f26-m2-2026-11-22` at commit `974e50f`",
        "## Superseded reports",
        "| `amd-epyc-f25-m17-2026-11-22` | AMD EPYC | — | E1, E2, E3, E4, E5, E6, E7, E8, E9 | `4451058` |",
    ] {
        assert!(index.contains(expected), "README.md lacks {expected}:\n{index}");
    }
    assert!(
        !index.contains("(amd-epyc-f25-m17-2026-11-23-6/report.md)"),
        "{index}"
    );
    assert!(dir.join("cache_argument.svg").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A valid `results.json` of one experiment on "Good CPU".
fn good() -> String {
    let mut machine = Machine::detect();
    machine.cpu_model = "Good CPU".into();
    let mut report = new_report(machine, vec![with_summary("E1", "{}")]);
    report.date = "2026-01-02".into();
    serde_json::to_string(&report).unwrap()
}

#[test]
fn bad_folders_are_left_out_and_named() {
    let dir = scratch("bad");
    let good = good();
    let folders = [
        ("good-2026-01-02", good.as_str()),
        ("array", "[1, 2]"),
        ("null", "null"),
        (
            "shape",
            r#"{"schema_version": 1, "machine": 7, "experiments": []}"#,
        ),
        (
            "future",
            r#"{"schema_version": 999, "machine": {}, "experiments": []}"#,
        ),
        ("broken", "{broken"),
    ];
    for (folder, text) in folders {
        std::fs::create_dir_all(dir.join(folder)).unwrap();
        std::fs::write(dir.join(folder).join("results.json"), text).unwrap();
    }
    let rebuilt = rebuild(&dir).unwrap();
    assert_eq!(rebuilt.indexed, 1, "{:?}", rebuilt.skipped);
    assert_eq!(
        rebuilt.skipped,
        [
            "'array': results.json is an array, not an object",
            "'broken': results.json is not JSON: key must be a string at line 1 column 2",
            "'future': results.json has schema_version 999, this kiki reads 1, 2 and 3",
            "'null': results.json is null, not an object",
            "'shape': results.json machine is a number, not an object",
        ]
    );
    let index = std::fs::read_to_string(dir.join("README.md")).unwrap();
    assert!(
        index.contains("[good-2026-01-02](good-2026-01-02/report.md)"),
        "{index}"
    );
    for bad in ["array", "null", "shape", "future", "broken"] {
        assert!(!index.contains(&format!("[{bad}]")), "{index}");
    }
    // A superseded.json that does not read is an error, not an empty list.
    std::fs::write(dir.join(SUPERSEDED), "{").unwrap();
    assert!(rebuild(&dir).unwrap_err().contains("superseded.json"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A report analysed before E7's verdict was gated gets a caveat below its findings where a
/// control failed; one analysed after (with `verdict_controls`), or whose controls passed, none.
#[test]
fn an_ungated_e7_verdict_with_a_failed_control_gets_a_caveat() {
    use crate::verdicts::caveat;
    let old = with_summary(
        "E7",
        r#"{"seed_004_verdict": "holds here, …",
            "positive_controls": [{"label": "½ L3", "bytes": 1, "ns": 9.0, "expected_ns": 5.0, "pass": false}]}"#,
    );
    let text = caveat(&old).expect("a caveat");
    assert!(
        text.contains("its ½ L3 control failed") && text.contains("not decided here"),
        "{text}"
    );
    let gated = with_summary(
        "E7",
        r#"{"seed_004_verdict": "is not decided here: …",
            "verdict_controls": {"passed": false, "failed": ["½ L3"]}}"#,
    );
    assert_eq!(caveat(&gated), None);
    let passing = with_summary(
        "E7",
        r#"{"seed_004_verdict": "holds here, …",
            "positive_controls": [{"label": "½ L3", "bytes": 1, "ns": 5.0, "expected_ns": 5.0, "pass": true}]}"#,
    );
    assert_eq!(caveat(&passing), None);
    assert_eq!(caveat(&with_summary("E6", "{}")), None);
    // Gated and passed when analysed, but one positive control's interval reaches 0 (the
    // -27-5 Intel's ½ L2: 10.3 [-0.2–20.7]): today's rule fails it.
    let unresolved = with_summary(
        "E7",
        r#"{"seed_004_verdict": "holds only in part here, …",
            "positive_controls": [
                {"label": "½ L2", "bytes": 1, "ns": 10.26, "low": -0.2, "expected_ns": 6.4, "pass": true},
                {"label": "memory", "bytes": 1, "ns": 139.0, "low": 122.7, "expected_ns": 151.0, "pass": true}],
            "verdict_controls": {"passed": true, "failed": []}}"#,
    );
    let text = caveat(&unresolved).expect("a caveat");
    assert!(
        text.contains("its ½ L2 control does not meet that"),
        "{text}"
    );
    let summary: crate::experiments::e7_cache_pressure::summary::Summary =
        unresolved.summary_as().unwrap();
    assert_eq!(summary.failed_controls(), ["½ L2"]);
    assert!(summary
        .seed_004_words()
        .unwrap()
        .starts_with("not decided here"));
    // Resolved but not inside the band (the -27-6 Intel's mid L2–L3 control, 9.98 [1.60–18.4]
    // against 6.98–22.1 ± 25 %): today's rule fails it too; one inside passes.
    let control = |low: f64, high: f64| {
        serde_json::from_str::<crate::experiments::e7_cache_pressure::summary::PositiveControl>(
            &format!(
                r#"{{"label": "mid L2–L3", "bytes": 1, "ns": 9.98, "low": {low}, "high": {high},
                    "expected_ns": 10.0, "expected_low_ns": 6.98, "expected_high_ns": 22.1,
                    "pass": true}}"#
            ),
        )
        .unwrap()
    };
    assert!(control(1.6, 18.4).fails_today());
    assert!(!control(6.0, 18.4).fails_today());
    // A control the ring beside it judged (since 2026-12-01) was judged by today's rule.
    let mut ringed = control(1.6, 18.4);
    ringed.judged_against = Some("in-process ring".into());
    assert!(!ringed.fails_today());
}

/// The predecessor of a current report is the newest older full report of its CPU that names
/// it as its successor; a later retired report (here the Intel one of 2026-11-23, newer than
/// the Intel fixture) is never one.
#[test]
fn a_report_replaces_the_newest_older_full_report_of_its_cpu() {
    let superseded = read_superseded(&fixtures()).unwrap();
    let amd = fixture("amd-epyc-f25-m17-2026-11-23-7");
    let before = predecessor(&amd, &superseded).expect("the AMD report replaced one");
    assert_eq!(before.folder, "amd-epyc-f25-m17-2026-11-23-6");
    let intel = fixture("intel-xeon-f6-m207-2026-11-22-2");
    assert!(predecessor(&intel, &superseded).is_none());
}

/// The counts of the comparison's first line: (agree, compared, undecided in both).
fn agreement(text: &str) -> (usize, usize, usize) {
    let numbers: Vec<usize> = text
        .lines()
        .next()
        .unwrap()
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    (numbers[0], numbers[1], numbers[2])
}

fn experiment_mut<'a>(report: &'a mut Report, id: &str) -> &'a mut ExperimentResult {
    report.experiments.iter_mut().find(|x| x.id == id).unwrap()
}

fn summary_value<'a>(x: &'a mut ExperimentResult, key: &str) -> &'a mut serde_json::Value {
    &mut x.summary.iter_mut().find(|(k, _)| k == key).unwrap().1
}

/// A report against itself agrees everywhere and moves no figure; against a copy whose E1
/// comparisons are gone (no winner decided) E1 disagrees, and a moved E7 cost shows its change
/// beyond both intervals.
#[test]
fn a_report_is_compared_with_the_one_it_replaced() {
    let now = fixture("amd-epyc-f25-m17-2026-11-23-7").results;
    let same = replaced::compare(&now, &now);
    let (agree, compared, _) = agreement(&same);
    assert!(agree == compared && compared >= 3, "{same}");
    assert!(
        same.contains("| E7 table-miss cost, magic-plain | 45.4 ns (41.3–49.5) |"),
        "{same}"
    );
    assert!(same.contains("| +0 ns (+0 %), within |"), "{same}");
    assert!(same.contains("| E6 L3 size | 4 MiB"), "{same}");
    assert!(!same.contains("| no |"), "{same}");

    let mut before = now.clone();
    experiment_mut(&mut before, "E1").comparisons.clear();
    let cost = summary_value(experiment_mut(&mut before, "E7"), "table_miss_cost");
    for bound in ["ns", "low", "high"] {
        let value = cost["magic-plain"][bound].as_f64().unwrap();
        cost["magic-plain"][bound] = serde_json::json!(value / 2.0);
    }
    let moved = replaced::compare(&before, &now);
    assert_eq!(agreement(&moved), (agree - 1, compared, agreement(&same).2));
    assert!(moved.contains("| no |"), "{moved}");
    assert!(moved.contains("(+100 %), beyond"), "{moved}");
}

/// Two reports that both decide nothing are counted apart, not as agreeing; E2's ratios
/// estimated differently (best chosen on held-out invocations against the same ones) are not
/// compared as figures.
#[test]
fn undecided_verdicts_do_not_agree_and_e2_methods_must_match() {
    let mut before = fixture("amd-epyc-f25-m17-2026-11-23-7").results;
    let (agree, compared, silent) = agreement(&replaced::compare(&before, &before));
    experiment_mut(&mut before, "E1").comparisons.clear();
    let mut now = before.clone();
    let both = replaced::compare(&before, &now);
    assert_eq!(
        agreement(&both),
        (agree - 1, compared - 1, silent + 1),
        "{both}"
    );
    assert!(both.contains("| both undecided |"), "{both}");

    // A summary that cannot be read is named, not counted either way.
    let mut broken = now.clone();
    *summary_value(experiment_mut(&mut broken, "E7"), "table_miss_cost") = serde_json::json!("?");
    let text = replaced::compare(&before, &broken);
    assert!(text.contains("| not compared (E7: "), "{text}");
    assert_eq!(agreement(&text).2, agreement(&both).2 - 1, "{text}");

    // The same figure, held out now: named alike, not compared.
    let e2 = experiment_mut(&mut now, "E2");
    e2.summary.push((
        "vs_peer".into(),
        serde_json::json!({"perft count start d5": {"ratio": 4.2, "low": 3.7, "high": 4.7,
            "invocations": 5, "rounds": 50, "claim": "slower"}}),
    ));
    let text = replaced::compare(&before, &now);
    assert!(
        text.contains(
            "| E2 haitaka 0.3.2 (peer) ÷ best, perft count start d5 | 3.77 × | 4.2 × (3.7–4.7) \
             | not like for like: before, best chosen on the invocations it is estimated on; \
             now, best chosen on held-out invocations |"
        ),
        "{text}"
    );
}

#[test]
fn e2_tasks_are_named_as_the_vs_peer_keys_name_them() {
    for (task, key) in [
        ("perft start d5", "perft count start d5"),
        ("perft second d4 (leaf list)", "perft list second d4"),
        (
            "perft start d5 (leaf count-plain)",
            "like for like, perft count start d5",
        ),
        ("movegen list greedy-playout", "movegen list"),
        ("movegen count greedy-playout", "movegen count"),
    ] {
        assert_eq!(replaced::e2_task_key(task), key);
    }
}

/// The replaced report is read from git at its commit (here a fixture at HEAD, where this is a
/// clone with history); an unknown commit is a one-line reason, not a failure.
#[test]
fn the_replaced_report_reads_back_from_git() {
    let retired = |commit: &str| Retired {
        folder: "amd-epyc-f25-m17-2026-11-23-7".into(),
        cpu_slug: "amd-epyc-f25-m17".into(),
        cpu: "AMD EPYC".into(),
        date: "2026-11-23".into(),
        mode: Some("full".into()),
        experiments: Vec::new(),
        commit: commit.into(),
        code_commit: "bbdd7c0".into(),
        why: String::new(),
    };
    let unknown = read_from_git(&fixtures(), &retired("0000000")).unwrap_err();
    assert!(unknown.contains("git show 0000000:./amd"), "{unknown}");
    assert!(!unknown.contains('\n'), "{unknown}");
    let root = Path::new(crate::WORKSPACE_ROOT);
    if !root.join(".git").exists() {
        eprintln!("no .git beside the sources: reading from git is not checked here");
        return;
    }
    let read = read_from_git(&fixtures(), &retired("HEAD")).unwrap();
    assert_eq!(read.cpu_slug, "amd-epyc-f25-m17");
    assert_eq!(
        read.experiments.len(),
        fixture("amd-epyc-f25-m17-2026-11-23-7")
            .results
            .experiments
            .len()
    );
}

/// E7's index line names the dearest backend's table misses, with its interval, only where
/// the controls passed and that interval lies above the runner-up's; an unplaced last-level
/// control is stated beside the verdict.
#[test]
fn the_dearest_table_misses_need_passing_controls() {
    let summary = |unplaced: &str, controls: &str| {
        with_summary(
            "E7",
            &format!(
                r#"{{"seed_004_verdict": "holds here, …",
                    "table_miss_cost": {{"magic-plain": {{"ns": 30.0, "low": 26.5, "high": 34.0}},
                                        "dbb": {{"ns": 1.0, "low": 0.5, "high": 1.5}}}},
                    "positive_control_unplaced": {unplaced},
                    "verdict_controls": {controls}}}"#
            ),
        )
    };
    let line = |e: ExperimentResult| crate::verdicts::verdict(&e).unwrap().line;
    let passed = line(summary("null", r#"{"passed": true, "failed": []}"#));
    assert!(
        passed.starts_with("seed 004 holds; ")
            && passed.contains("dearest table misses: magic-plain, 30 [26.5–34] ns per lookup"),
        "{passed}"
    );
    // A runner-up whose interval meets the top's: the highest figure, not an order.
    let close = with_summary(
        "E7",
        r#"{"seed_004_verdict": "holds here, …",
            "table_miss_cost": {"magic-plain": {"ns": 30.0, "low": 26.5, "high": 34.0},
                                "magic": {"ns": 25.0, "low": 22.0, "high": 27.0}},
            "positive_control_unplaced": null,
            "verdict_controls": {"passed": true, "failed": []}}"#,
    );
    let close = line(close);
    assert!(
        !close.contains("dearest")
            && close.contains(
                "costliest table misses by point estimate: magic-plain, 30 [26.5–34] ns per \
                 lookup, not ordered against magic (25 [22–27]: the intervals meet)"
            ),
        "{close}"
    );
    let failed = line(summary("null", r#"{"passed": false, "failed": ["½ L2"]}"#));
    assert!(
        !failed.contains("dearest") && failed.contains("not decided here"),
        "{failed}"
    );
    // Since 2026-12-01 an unplaced last-level control is stated, not a veto.
    let unplaced = r#"{"level": "L3", "below": "L2", "plateau_start_bytes": 2097152,
            "plateau_end_bytes": 2965760}"#;
    let stated = line(summary(
        unplaced,
        r#"{"passed": true, "failed": [], "unplaced": ["L3"], "unplaced_withholds": false}"#,
    ));
    assert!(
        stated.starts_with("seed 004 holds (no L3 level characterised here); ")
            && stated.contains("dearest table misses: magic-plain"),
        "{stated}"
    );
    // A report that withheld its verdict for it keeps its words.
    let vetoed = with_summary(
        "E7",
        &format!(
            r#"{{"seed_004_verdict": "is not decided here: no L3 control could be placed (…)",
                "positive_control_unplaced": {unplaced},
                "verdict_controls": {{"passed": false, "failed": ["L3 control (unplaced)"]}}}}"#
        ),
    );
    let vetoed = line(vetoed);
    assert!(
        vetoed.contains("seed 004 not decided here (no L3 control could be placed)"),
        "{vetoed}"
    );
}
