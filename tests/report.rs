//! The report writer and its commands: every file written, plots non-empty, results.json
//! readable, nothing overwritten or left half-written, clear errors, and the index.

use crate::common;
use common::TempDir;

use kiki_harness::machine::{Cache, Machine};
use kiki_harness::readback::read_report;
use kiki_harness::report::{new_report, write_report};
use kiki_harness::results::{
    ExperimentResult, Plot, PlotKind, PlotLine, Point, Report, Series, Table, SCHEMA_VERSION,
};
use kiki_harness::stats::Claim;
use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn kiki(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kiki"))
        .args(args)
        .output()
        .expect("the kiki binary runs")
}

fn point(x: f64, y: f64) -> Point {
    Point {
        x,
        y,
        y_low: y * 0.95,
        y_high: y * 1.04,
    }
}

/// An E1-like bar experiment and an E7-like sweep, with raw samples and summaries.
fn experiments(fast: &str, crossover: f64) -> Vec<ExperimentResult> {
    let backends = ["bonanza", "qugiy", "magic-plain"];
    let series = backends
        .iter()
        .enumerate()
        .map(|(i, b)| Series {
            labels: vec![
                ("backend".into(), b.to_string()),
                ("piece".into(), "rook".into()),
            ],
            unit: "Mlookups/s".into(),
            samples: (0..5)
                .map(|k| if *b == fast { 500.0 } else { 100.0 + i as f64 } + k as f64)
                .collect(),
        })
        .collect();
    let e1 = ExperimentResult {
        wall_seconds: None,
        comparisons: Vec::new(),
        id: "E1".into(),
        title: "attack throughput".into(),
        method: "Independent lookups, 5 samples.".into(),
        series,
        tables: vec![Table {
            headers: vec!["backend".into(), "Mlookups/s".into()],
            rows: backends
                .iter()
                .map(|b| vec![b.to_string(), "1".into()])
                .collect(),
        }],
        plots: vec![Plot {
            file_stem: "e1-throughput".into(),
            title: "E1 throughput".into(),
            x_label: "piece".into(),
            y_label: "Mlookups/s".into(),
            log_x: false,
            log_y: false,
            kind: PlotKind::Bar,
            categories: vec!["rook".into(), "bishop".into()],
            markers: Vec::new(),
            lines: backends
                .iter()
                .enumerate()
                .map(|(i, b)| PlotLine {
                    name: b.to_string(),
                    points: vec![point(0.0, 100.0 + i as f64), point(1.0, 90.0 + i as f64)],
                })
                .collect(),
        }],
        findings: format!("{fast} is fastest."),
        summary: vec![("throughput_best_uniform-25".into(), Json::from(fast))],
    };
    let e7 = ExperimentResult {
        wall_seconds: None,
        comparisons: Vec::new(),
        id: "E7".into(),
        title: "cache pressure".into(),
        method: "Lookups interleaved with evaluation reads.".into(),
        series: Vec::new(),
        tables: Vec::new(),
        plots: vec![Plot {
            file_stem: "e7-lookup-rate".into(),
            title: "E7 lookup rate".into(),
            x_label: "evaluation buffer (bytes)".into(),
            y_label: "Mlookups/s".into(),
            log_x: true,
            log_y: false,
            kind: PlotKind::Line,
            categories: Vec::new(),
            markers: vec![(32768.0, "L1d".into()), (1048576.0, "L2".into())],
            lines: backends
                .iter()
                .map(|b| PlotLine {
                    name: b.to_string(),
                    points: (0..8)
                        .map(|k| point(16384.0 * 4f64.powi(k), 100.0 - 5.0 * k as f64))
                        .collect(),
                })
                .collect(),
        }],
        findings: "magic-plain loses from 16 MiB.".into(),
        summary: vec![(
            "crossover_magic-plain_vs_qugiy_bytes".into(),
            Json::from(crossover),
        )],
    };
    vec![e1, e7]
}

/// This machine, renamed to `cpu`, with one 1 MiB L2.
fn machine(cpu: &str) -> Machine {
    let mut machine = Machine::detect();
    machine.cpu_model = cpu.into();
    machine.date_utc = "2026-01-02T03:04:05Z".into();
    machine.caches = vec![Cache {
        level: 2,
        kind: "Unified".into(),
        bytes: 1 << 20,
        line_bytes: 64,
        ways: 16,
        shared_cpus: String::new(),
    }];
    machine
}

fn write(dir: &Path, slug: &str, cpu: &str, fast: &str, crossover: f64) -> Result<PathBuf, String> {
    let mut report = new_report(machine(cpu), experiments(fast, crossover));
    report.cpu_slug = slug.into();
    write_report(dir, &report)
}

fn no_temporary_folders(dir: &Path) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!name.starts_with(".tmp"), "left behind: {name}");
    }
}

#[test]
fn report_folder_has_every_file_and_readable_results() {
    let temp = TempDir::new("report-files");
    let folder = write(&temp.0, "test-cpu-f25-m1", "Test CPU", "qugiy", 16e6).unwrap();
    assert_eq!(folder, temp.0.join("test-cpu-f25-m1-2026-01-02"));
    for stem in ["e1-throughput", "e7-lookup-rate"] {
        let svg = std::fs::read_to_string(folder.join(format!("{stem}.svg"))).unwrap();
        assert!(svg.starts_with("<svg") && svg.len() > 2000, "{stem}.svg");
        assert!(svg.contains("magic-plain"), "{stem}.svg has the legend");
        let png = std::fs::read(folder.join(format!("{stem}.png"))).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{stem}.png");
        assert!(png.len() > 5000, "{stem}.png is {} bytes", png.len());
    }
    let markdown = std::fs::read_to_string(folder.join("report.md")).unwrap();
    let machine_at = markdown.find("## Machine").unwrap();
    let e1_at = markdown.find("## E1 — attack throughput").unwrap();
    assert!(machine_at < e1_at, "machine section first");
    for expected in [
        "![E1 throughput](e1-throughput.png)",
        "(e7-lookup-rate.svg)",
        "**Method.** Independent lookups",
        "| backend | Mlookups/s |",
        "**Findings.** qugiy is fastest.",
        "## E7 — cache pressure",
    ] {
        assert!(markdown.contains(expected), "report.md lacks {expected}");
    }
    let results = read_report(&folder.join("results.json")).unwrap();
    assert_eq!(results.schema_version, SCHEMA_VERSION);
    assert_eq!(results.machine.cpu_model, "Test CPU");
    assert_eq!(results.experiments.len(), 2);
    assert_eq!(
        results.experiments[0].series[1].samples,
        [500.0, 501.0, 502.0, 503.0, 504.0],
        "raw samples survive the round trip"
    );
    assert_eq!(
        results.experiments,
        experiments("qugiy", 16e6),
        "every experiment reads back equal, tables and plots included"
    );
    let backends = &results.backends;
    assert_eq!(backends.len(), kiki_variants::registry::BASE_NAMES.len());
    no_temporary_folders(&temp.0);
}

#[test]
fn existing_reports_are_never_overwritten() {
    let temp = TempDir::new("report-suffix");
    let first = write(&temp.0, "cpu", "First", "qugiy", 1.0).unwrap();
    let marker = first.join("results.json");
    let before = std::fs::read(&marker).unwrap();
    let second = write(&temp.0, "cpu", "Second", "bonanza", 2.0).unwrap();
    let third = write(&temp.0, "cpu", "Third", "bonanza", 3.0).unwrap();
    assert_eq!(second, temp.0.join("cpu-2026-01-02-2"));
    assert_eq!(third, temp.0.join("cpu-2026-01-02-3"));
    assert_eq!(
        std::fs::read(&marker).unwrap(),
        before,
        "first report untouched"
    );
    let text = std::fs::read_to_string(second.join("results.json")).unwrap();
    assert!(text.contains("Second"));
    no_temporary_folders(&temp.0);
}

#[test]
fn unwritable_output_is_an_error_and_leaves_nothing() {
    let temp = TempDir::new("report-unwritable");
    let file = temp.0.join("a-file");
    std::fs::write(&file, b"not a folder").unwrap();
    let error = write(&file.join("reports"), "cpu", "X", "qugiy", 1.0).unwrap_err();
    assert!(error.contains("cannot create output folder"), "{error}");
    assert_eq!(error.lines().count(), 1);
    let error = write(&file, "cpu", "X", "qugiy", 1.0).unwrap_err();
    assert!(error.contains("a-file"), "{error}");
    no_temporary_folders(&temp.0);

    let output = kiki(&[
        "report",
        "--only",
        "E8",
        "--out",
        file.join("sub").to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8_lossy(&output.stderr);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains("cannot write to output folder"), "{text}");
}

#[test]
fn report_rejects_unknown_experiments_and_bad_positions() {
    let output = kiki(&[
        "report",
        "--only",
        "E8,E99",
        "--out",
        "/nonexistent-never-created",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let text = String::from_utf8_lossy(&output.stderr);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(
        text.contains("unknown experiment 'E99'") && text.contains("E8"),
        "{text}"
    );

    let temp = TempDir::new("report-positions");
    let positions = temp.0.join("positions.sfen");
    std::fs::write(
        &positions,
        "# start\nlnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\nnot an sfen\n",
    )
    .unwrap();
    let output = kiki(&[
        "report",
        "--positions",
        positions.to_str().unwrap(),
        "--out",
        temp.0.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let text = String::from_utf8_lossy(&output.stderr);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains("line 3"), "{text}");
    assert_eq!(
        std::fs::read_dir(&temp.0).unwrap().count(),
        1,
        "nothing written besides the input"
    );
}

/// E8 in a quick report (checked on the every-experiment report, so that CI runs the valgrind
/// simulations once): per geometry, every available backend alone and beside the evaluation, its
/// plots and table columns; or the line saying it was not measured.
/// E13's quick smoke: dbb, magic-plain and mailbox under material and nnue at three last levels,
/// the parts of every cell summing to its last-level misses, mailbox with (almost) no
/// attack-table misses, and a verdict under nnue at the measured L3; or one line saying why not.
fn quick_e13_section(results: &Report) {
    let e13 = results
        .experiments
        .iter()
        .find(|e| e.id == "E13")
        .expect("E13 in the quick report");
    if e13.summary_value("available") != Some(&Json::Bool(true)) {
        assert!(
            e13.findings.starts_with("Not measured on this machine: "),
            "{}",
            e13.findings
        );
        return;
    }
    let summary: kiki_harness::experiments::e13_simulated_search::Summary =
        e13.summary_as().expect("E13's summary reads as its type");
    for backend in ["dbb", "magic-plain", "mailbox"] {
        let by_eval = &summary.misses_per_node[backend];
        for eval in ["material", "nnue"] {
            assert_eq!(
                by_eval[eval].len(),
                3,
                "{backend} {eval}: {:?}",
                by_eval[eval]
            );
            for (ll, cell) in &by_eval[eval] {
                let parts = cell.attack_tables + cell.eval + cell.tt + cell.other;
                assert!((parts - cell.ll).abs() < 1e-9, "{backend} {eval}: {cell:?}");
                // Mailbox has no tables: its backend's code reads only the position's own board,
                // which misses a 256 KiB last level (0.026 a node under nnue in a 2026-12-03
                // run) but not one of 1 MiB or more (0.0001).
                if backend == "mailbox" && ll.parse::<usize>().unwrap() >= 1 << 20 {
                    assert!(cell.attack_tables.abs() < 0.01, "mailbox at {ll}: {cell:?}");
                }
            }
        }
    }
    if summary.effective_l3_bytes.is_some() {
        assert!(summary.verdict_by_eval["nnue"].is_some(), "{summary:?}");
    }
}

fn quick_e8_section(results: &Report, markdown: &str, folder: &Path) {
    assert!(markdown.contains("## E8 — simulated caches"));
    let e8 = results
        .experiments
        .iter()
        .find(|e| e.id == "E8")
        .expect("E8 in the quick report");
    let available = e8.summary_value("available") == Some(&Json::Bool(true));
    if available {
        // Quick mode keeps this CPU's effective last level and, where sysfs lists a
        // different one, this CPU's sysfs geometry: per geometry, every available backend
        // simulated alone (five units each) and beside the evaluation (three marginal units
        // each, the baseline subtracted).
        let series = &e8.series;
        let mut geometries: Vec<&str> = series.iter().filter_map(|s| s.label("geometry")).collect();
        geometries.sort_unstable();
        geometries.dedup();
        assert!(
            geometries.len() == 1 || geometries.len() == 2,
            "{geometries:?}"
        );
        assert!(
            geometries
                .iter()
                .all(|g| g.starts_with("this CPU (effective): ")
                    || g.starts_with("this CPU (sysfs): ")
                    || g.starts_with("2008-class")),
            "{geometries:?}"
        );
        if geometries.len() == 2 {
            assert!(
                geometries[0].starts_with("this CPU (effective)"),
                "{geometries:?}"
            );
            assert!(
                geometries[1].starts_with("this CPU (sysfs)"),
                "{geometries:?}"
            );
        }
        let backends = kiki_variants::registry::resolve_bases("all").unwrap();
        assert_eq!(series.len(), geometries.len() * backends.len() * (5 + 3));
        assert_eq!(e8.summary_value("consistent"), Some(&Json::Bool(true)));
        assert!(markdown.contains("mispredicts/lookup"));
        for name in ["e8-estimated-cycles", "e8-ll-misses", "e8-pressure-cycles"] {
            let png = std::fs::read(folder.join(format!("{name}.png"))).unwrap();
            assert_eq!(&png[..4], b"\x89PNG");
        }
        assert!(markdown.contains("est. cycles/lookup"));
        assert!(markdown.contains("marginal LL misses/lookup"));
        assert!(markdown.contains("Beside an evaluation of"), "{markdown}");
    } else {
        assert!(
            markdown.contains("Not measured on this machine"),
            "{markdown}"
        );
    }
}

#[test]
fn report_index_puts_one_report_per_cpu() {
    let temp = TempDir::new("report-index");
    write(
        &temp.0,
        "alpha-f25-m1",
        "Alpha CPU",
        "qugiy",
        16.0 * 1048576.0,
    )
    .unwrap();
    write(
        &temp.0,
        "beta-f6-m85",
        "Beta CPU",
        "bonanza",
        4.0 * 1048576.0,
    )
    .unwrap();
    std::fs::create_dir(temp.0.join(".tmp-unfinished")).unwrap();
    let output = kiki(&["report-index", "--dir", temp.0.to_str().unwrap()]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let index = std::fs::read_to_string(temp.0.join("README.md")).unwrap();
    for expected in [
        "## Alpha CPU (alpha-f25-m1)",
        "Report [alpha-f25-m1-2026-01-02](alpha-f25-m1-2026-01-02/report.md)",
        "## Beta CPU (beta-f6-m85)",
        "[beta-f6-m85-2026-01-02](beta-f6-m85-2026-01-02/report.md)",
        "Not a complete report: mode not recorded (schema 3); lacks E2",
        // No comparison recorded against the winner: named in the verdict, not as best.
        "| qugiy fastest by median (no comparison recorded against it) | — |",
    ] {
        assert!(
            index.contains(expected),
            "README.md lacks {expected}:\n{index}"
        );
    }
    assert!(!index.contains("unfinished"));

    // A second report of the same CPU: the newer is current, the older named on stderr.
    write(&temp.0, "alpha-f25-m1", "Alpha CPU", "dbb", 1.0).unwrap();
    let output = kiki(&["report-index", "--dir", temp.0.to_str().unwrap()]);
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("'alpha-f25-m1-2026-01-02': superseded by alpha-f25-m1-2026-01-02-2"),
        "{stderr}"
    );
    let index = std::fs::read_to_string(temp.0.join("README.md")).unwrap();
    assert!(
        index.contains("(alpha-f25-m1-2026-01-02-2/report.md)"),
        "{index}"
    );
    assert!(
        !index.contains("(alpha-f25-m1-2026-01-02/report.md)"),
        "{index}"
    );

    std::fs::write(
        temp.0.join("beta-f6-m85-2026-01-02/results.json"),
        "{broken",
    )
    .unwrap();
    // A folder that cannot be indexed is left out, named on stderr, and fails the command.
    let output = kiki(&["report-index", "--dir", temp.0.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("kiki report-index: 'beta-f6-m85-2026-01-02': results.json is not JSON:"),
        "{stderr}"
    );
    assert!(
        stderr.contains("kiki report-index: 1 report folder(s) left out of the index, see above"),
        "{stderr}"
    );
    let index = std::fs::read_to_string(temp.0.join("README.md")).unwrap();
    assert!(!index.contains("beta-f6-m85"), "{index}");
    assert!(index.contains("## Alpha CPU"), "{index}");

    let output = kiki(&[
        "report-index",
        "--dir",
        temp.0.join("missing").to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1));
}

/// The whole `kiki report --quick` on this machine, every experiment: every file the report
/// links is there and non-empty, every plot comes as SVG and PNG, results.json carries every
/// experiment with raw samples.
#[test]
#[ignore = "a quick report end to end: over 20 s"]
fn quick_report_of_every_experiment_is_complete() {
    let temp = TempDir::new("report-quick");
    let output = kiki(&["report", "--quick", "--out", temp.0.to_str().unwrap()]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let folder = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    let markdown = std::fs::read_to_string(folder.join("report.md")).unwrap();
    let results = read_report(&folder.join("results.json")).unwrap();
    let ids: Vec<&str> = results.experiments.iter().map(|e| e.id.as_str()).collect();
    for experiment in &kiki_harness::experiments::CATALOGUE {
        let id = experiment.id.as_str();
        if !experiment.runs_by_default {
            assert!(!ids.contains(&id), "{id} runs only when named");
            continue;
        }
        assert!(ids.contains(&id), "{id} missing from {ids:?}");
        assert!(markdown.contains(&format!("## {id} ")), "{id} section");
    }
    for experiment in &results.experiments {
        assert!(!experiment.findings.trim().is_empty());
        // Every recorded claim agrees with its interval and the default ±3 % threshold.
        for record in &experiment.comparisons {
            let c = &record.comparison;
            assert!(c.low <= c.ratio && c.ratio <= c.high, "{record:?}");
            let expected = if c.high < 1.0 / 1.03 {
                Claim::Faster
            } else if c.low > 1.03 {
                Claim::Slower
            } else {
                Claim::Level
            };
            assert_eq!(c.claim, expected, "{record:?}");
        }
    }
    for id in ["E1", "E2", "E3", "E4"] {
        let e = results.experiments.iter().find(|e| e.id == id).unwrap();
        assert!(!e.comparisons.is_empty(), "{id} records its comparisons");
        assert!(
            e.method.contains("beyond ±3 %"),
            "{id} says how claims are made"
        );
    }
    // Issue 10's measurements, each present in the summaries other tools read.
    issue_10_summaries(&results);
    quick_e8_section(&results, &markdown, &folder);
    quick_e13_section(&results);

    // Every linked file exists and is non-empty; plots come in both formats.
    let mut plots = 0;
    for link in markdown.split("](").skip(1) {
        let target = link.split(')').next().unwrap();
        if target.starts_with('#') || target.contains("://") {
            continue;
        }
        let bytes = std::fs::read(folder.join(target)).unwrap_or_else(|e| panic!("{target}: {e}"));
        assert!(!bytes.is_empty(), "{target} is empty");
        if let Some(stem) = target.strip_suffix(".png") {
            assert_eq!(&bytes[..4], b"\x89PNG", "{target}");
            let svg = std::fs::read_to_string(folder.join(format!("{stem}.svg"))).unwrap();
            assert!(svg.contains("<svg") && svg.len() > 1000, "{stem}.svg");
            plots += 1;
        }
    }
    assert!(plots >= 8, "only {plots} plots");
    no_temporary_folders(&temp.0);
    rerendered_report_is_identical(&folder);
}

/// The summary value `key` of experiment `id` in `results`.
fn summary_of(results: &Report, id: &str, key: &str) -> Json {
    results
        .experiments
        .iter()
        .find(|e| e.id == id)
        .and_then(|e| e.summary_value(key))
        .cloned()
        .unwrap_or_else(|| panic!("{id} summary lacks {key}"))
}

/// E6's levels and E7's table-miss costs, controls and verdict in a quick report's summaries.
fn issue_10_summaries(results: &Report) {
    let summary = |id: &str, key: &str| summary_of(results, id, key);
    let levels = summary("E6", "effective_levels");
    let levels = levels.as_array().expect("a list of levels");
    assert!(!levels.is_empty());
    for level in levels {
        assert!(level["bytes"].as_u64().unwrap() >= 4096, "{level}");
        assert!(level["ns"].as_f64().unwrap() > 0.0, "{level}");
        // The knee rule ran on each invocation's own curve: one size per invocation (null
        // where that invocation's curve shows no such level), and the latency's spread.
        let per = level["bytes_per_invocation"]
            .as_array()
            .unwrap_or_else(|| panic!("bytes_per_invocation in {level}"));
        assert_eq!(per.len(), results.invocations.max(1), "{level}");
        assert!(
            per.iter().any(|b| b.as_u64() == level["bytes"].as_u64()),
            "{level}"
        );
        let (low, high) = (level["ns_low"].as_f64(), level["ns_high"].as_f64());
        let ns = level["ns"].as_f64();
        assert!(low <= ns && ns <= high && low.is_some(), "{level}");
    }
    let last_level = levels.last().unwrap()["bytes"].as_u64().unwrap();
    let e7 = results.experiments.iter().find(|e| e.id == "E7").unwrap();
    assert!(
        e7.method.contains("E6's latency curve"),
        "E7 sizes itself from E6's levels: {}",
        e7.method
    );
    assert!(summary("E7", "pressure_max_bytes").as_u64().unwrap() >= 4 * last_level);
    let costs = summary("E7", "table_miss_cost");
    for backend in ["magic-plain", "dbb", "mailbox", "sqww"] {
        let cost = &costs[backend];
        assert!(cost["ns"].is_number(), "{backend}: {cost}");
        assert!(
            cost["low"].as_f64() <= cost["high"].as_f64(),
            "{backend}: {cost}"
        );
    }
    let negative = summary("E7", "negative_controls");
    for backend in ["mailbox", "sqww"] {
        assert!(negative[backend]["pass"].is_boolean(), "{negative}");
    }
    let positive = summary("E7", "positive_control");
    assert!(
        positive["expected_ns"].as_f64().unwrap() > 0.0,
        "{positive}"
    );
    assert!(positive["pass"].is_boolean(), "{positive}");
    // A positive control per synthetic size (half L2, half the last level, memory), each with
    // its cost at every pressure.
    let positives = summary("E7", "positive_controls");
    let positives = positives.as_array().expect("a list of positive controls");
    assert!(positives.len() >= 2, "{positives:?}");
    for p in positives {
        assert!(
            p["expected_ns"].is_number() && p["pass"].is_boolean(),
            "{p}"
        );
        assert!(
            p["expected_low_ns"].as_f64() <= p["expected_ns"].as_f64()
                && p["expected_ns"].as_f64() <= p["expected_high_ns"].as_f64(),
            "{p}"
        );
        assert!(!p["by_pressure"].as_array().unwrap().is_empty(), "{p}");
    }
    let aa = summary("E7", "aa_control");
    assert_eq!(aa["backend"], "magic-plain", "{aa}");
    for point in aa["points"].as_array().unwrap() {
        assert!(
            point["ns"].is_number() && point["pass"].is_boolean(),
            "{point}"
        );
    }
    let pairs = summary("E7", "against_dbb");
    assert!(
        pairs["magic-plain_vs_dbb"]["ratio_change"]["ratio"].is_number(),
        "{pairs}"
    );
    assert!(costs["magic-plain"]["pressure_reads"].as_u64().is_some());
    e7_survival_reuse_and_pages(results);
}

/// E7's survival fractions and their calibration, the reuse per backend and the table pages.
fn e7_survival_reuse_and_pages(results: &Report) {
    let summary = |id: &str, key: &str| summary_of(results, id, key);
    // The survival fractions: per pressure count, per class (levels merged where a load's time
    // cannot tell them apart), shares summing to 1 within their intervals; each level's own key
    // holds its class's share, or null where it is merged.
    let survival = summary("E7", "survival");
    let calibration = summary("E7", "survival_calibration");
    let classes = calibration["classes"].as_array().expect("classes");
    for point in survival.as_array().unwrap() {
        let fractions = point["classes"].as_array().expect("classes per point");
        assert_eq!(fractions.len(), classes.len(), "{point}");
        let total: f64 = fractions
            .iter()
            .map(|c| c["fraction"].as_f64().unwrap())
            .sum();
        assert!((total - 1.0).abs() < 1e-6, "{point}");
        for c in fractions {
            let (f, low, high) = (
                c["fraction"].as_f64().unwrap(),
                c["low"].as_f64().unwrap(),
                c["high"].as_f64().unwrap(),
            );
            assert!(low <= f + 1e-9 && f <= high + 1e-9, "{point}");
        }
        let levels = ["l1", "l2", "ll", "memory"];
        assert!(levels
            .iter()
            .all(|k| point[*k].is_number() || point[*k].is_null()));
        assert!(point["loads"].as_u64().unwrap() > 0, "{point}");
    }
    assert!(!survival.as_array().unwrap().is_empty());
    assert!(summary("E7", "survival_resolved").is_boolean());
    // The survival classes' calibration: four positive medians, the distances between
    // neighbouring levels and each class's held-out check.
    for key in ["l1_ns", "l2_ns", "ll_ns", "memory_ns", "clock_step_ns"] {
        assert!(
            calibration[key].as_f64().unwrap() > 0.0,
            "{key}: {calibration}"
        );
    }
    let distances = calibration["neighbour_total_variation"]
        .as_array()
        .expect("tv");
    assert_eq!(distances.len(), 3, "{calibration}");
    assert_eq!(
        calibration["held_out"].as_array().unwrap().len(),
        classes.len(),
        "{calibration}"
    );
    assert!(calibration["held_out_pass"].is_boolean(), "{calibration}");
    // What the top pressure count inserts per node, beside the buffer it draws from; the
    // masked negative control beside mailbox and sqww.
    assert!(
        summary("E7", "pressure_inserted_bytes_per_node_max")
            .as_u64()
            .unwrap()
            > 0
    );
    assert!(summary("E7", "negative_controls")["synthetic (one page)"]["pass"].is_boolean());
    // The reuse per backend with tables: its lookups, and misses per lookup keyed by size.
    let reuse = summary("E7", "reuse");
    let reuse = reuse.as_object().expect("reuse per backend");
    assert!(reuse.contains_key("magic-plain"), "{reuse:?}");
    for (backend, value) in reuse {
        assert!(value["lookups"].as_u64().unwrap() > 0, "{backend}: {value}");
        assert!(value["cold"].as_u64().is_some(), "{backend}: {value}");
        let per_size = value["misses_per_lookup"].as_object().unwrap();
        assert!(
            per_size
                .keys()
                .all(|k| k.ends_with("iB") || k.ends_with(" B")),
            "{backend}: {value}"
        );
    }
    let pages = summary("E7", "table_pages");
    assert!(pages["magic-plain"]["small_ns"].is_number(), "{pages}");
    assert!(pages["magic-plain"]["huge_ns"].is_number(), "{pages}");
    assert!(
        pages["magic-plain"]["huge_low"].as_f64() <= pages["magic-plain"]["huge_high"].as_f64(),
        "{pages}"
    );
    assert!(summary("E7", "seed_004_verdict").is_string());
    // The answer in one sentence heads E7's findings.
    let answer = summary("E7", "answer");
    let e7 = results.experiments.iter().find(|e| e.id == "E7").unwrap();
    assert!(
        e7.findings
            .starts_with(answer["sentence"].as_str().unwrap()),
        "{answer}"
    );
}

/// `kiki render` on a copy of a report folder rewrites report.md byte for byte and every plot,
/// from results.json alone (report.md and the plots deleted first), leaving results.json as it
/// was.
fn rerendered_report_is_identical(folder: &Path) {
    let copy = folder.with_file_name("rendered-copy");
    std::fs::create_dir(&copy).unwrap();
    std::fs::copy(folder.join("results.json"), copy.join("results.json")).unwrap();
    let output = kiki(&["render", copy.to_str().unwrap()]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut files = 0;
    for entry in std::fs::read_dir(folder).unwrap() {
        let name = entry.unwrap().file_name();
        let original = std::fs::read(folder.join(&name)).unwrap();
        let rendered = std::fs::read(copy.join(&name))
            .unwrap_or_else(|e| panic!("render did not write {name:?}: {e}"));
        assert!(original == rendered, "{name:?} differs after render");
        files += 1;
    }
    assert!(files > 10);
    let listing = |dir: &Path| {
        let mut names: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        names
    };
    assert_eq!(listing(folder), listing(&copy), "no file more, none less");
}

/// Every report committed in `reports/` re-renders from its results.json alone, byte for byte:
/// report.md and every plot (SVG and PNG), no file more, none less; and the index
/// (`reports/README.md`) is what `kiki report-index` writes from them. Reads `reports/`, so it
/// is ignored by default (`cargo test --release --test integration -- --ignored`); it passes on the
/// committed reports, all of them renderable (schema 2 or later; older ones are retired).
#[test]
#[ignore]
fn committed_reports_re_render_identically() {
    let reports = Path::new(env!("CARGO_MANIFEST_DIR")).join("reports");
    let temp = TempDir::new("committed");
    let mut rendered = 0;
    for entry in std::fs::read_dir(&reports).unwrap() {
        let folder = entry.unwrap().path();
        if !folder.join("results.json").exists() {
            continue;
        }
        let name = folder.file_name().unwrap().to_owned();
        let copy = temp.0.join(&name);
        std::fs::create_dir(&copy).unwrap();
        std::fs::copy(folder.join("results.json"), copy.join("results.json")).unwrap();
        let output = kiki(&["render", copy.to_str().unwrap()]);
        assert!(
            output.status.success(),
            "{name:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let listing = |dir: &Path| {
            let mut names: Vec<_> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            names.sort();
            names
        };
        assert_eq!(listing(&folder), listing(&copy), "{name:?}: the same files");
        for file in listing(&folder) {
            assert!(
                std::fs::read(folder.join(&file)).unwrap()
                    == std::fs::read(copy.join(&file)).unwrap(),
                "{name:?}: {file:?} differs when re-rendered"
            );
        }
        rendered += 1;
    }
    assert!(rendered > 0, "no committed report");
    // The index, rebuilt beside copies of the reports and superseded.json, is the committed one.
    std::fs::copy(
        reports.join("superseded.json"),
        temp.0.join("superseded.json"),
    )
    .unwrap();
    let output = kiki(&["report-index", "--dir", temp.0.to_str().unwrap()]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for file in ["README.md", "cache_argument.svg"] {
        assert!(
            std::fs::read(reports.join(file)).unwrap() == std::fs::read(temp.0.join(file)).unwrap(),
            "reports/{file} is not what `kiki report-index` writes"
        );
    }
}

#[test]
fn report_layouts_are_this_build_or_a_one_line_error() {
    let kiki_path = Path::new(env!("CARGO_BIN_EXE_kiki"));
    let layout = kiki_harness::layouts::check(kiki_path).expect("the kiki binary is this build");
    assert_eq!(layout.file, "kiki");
    assert_eq!(layout.fnv1a64.len(), 16, "{layout:?}");
    let described = kiki_harness::layouts::describe(&[layout.clone(), layout]);
    assert!(
        described.starts_with("2 binaries of this build (1 distinct)"),
        "{described}"
    );

    let identity = kiki(&["report", "--identity"]);
    let text = String::from_utf8_lossy(&identity.stdout);
    assert!(identity.status.success());
    assert_eq!(text.lines().count(), 8, "{text}");
    assert!(text.lines().any(|l| l.starts_with("commit=")), "{text}");

    let temp = TempDir::new("report-layouts");
    for (layouts, says) in [
        (
            "/bin/true",
            "is not this build in another layout: its rustc is not given",
        ),
        ("/nonexistent-kiki", "cannot run '/nonexistent-kiki'"),
        (",", "--layouts needs at least one binary"),
    ] {
        let output = kiki(&[
            "report",
            "--only",
            "E11",
            "--layouts",
            layouts,
            "--out",
            temp.0.to_str().unwrap(),
        ]);
        assert_eq!(output.status.code(), Some(2), "{layouts}");
        let text = String::from_utf8_lossy(&output.stderr);
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(text.contains(says), "{layouts}: {text}");
    }
    assert_eq!(std::fs::read_dir(&temp.0).unwrap().count(), 0);
}

#[test]
fn a_new_report_never_takes_a_retired_reports_name() {
    let temp = TempDir::new("report-retired-name");
    std::fs::write(
        temp.0.join("superseded.json"),
        r#"{"about": "", "reports": [{"folder": "test-cpu-f25-m1-2026-01-02"}, {"folder": "test-cpu-f25-m1-2026-01-02-2"}]}"#,
    )
    .unwrap();
    let folder = write(&temp.0, "test-cpu-f25-m1", "Test CPU", "qugiy", 16e6).unwrap();
    assert_eq!(folder, temp.0.join("test-cpu-f25-m1-2026-01-02-3"));
    no_temporary_folders(&temp.0);
}
