//! `kiki report-index`: rebuilds `reports/README.md` — every report folder, and the CPUs side
//! by side from their `results.json` (best backend per experiment, table bytes, E7 crossovers).

use super::{CliError, Output};
use kiki_core::input::quote_input;
use kiki_core::units::{compact_bytes, exact_bytes};
use kiki_harness::report::{read_report, table_markdown};
use kiki_harness::results::{ExperimentResult, Plot, PlotKind, PlotLine, Point, Report, Table};
use serde_json::Value;
use std::path::Path;

/// One report folder whose `results.json` read back (`read_report`).
struct Entry {
    folder: String,
    results: Report,
}

/// A summary value in one table cell.
fn compact(value: &Value) -> String {
    match value {
        Value::Null => "—".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) if n.is_f64() => {
            kiki_harness::plot::format_tick(n.as_f64().unwrap_or(f64::NAN), false)
        }
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(compact).collect::<Vec<_>>().join(", "),
        Value::Object(fields) => fields
            .iter()
            .map(|(k, v)| format!("{k}: {}", compact(v)))
            .collect::<Vec<_>>()
            .join("; "),
    }
}

/// The best backend of one experiment, from the winners its own `summary` names (keys such as
/// `best …`, `fastest …`, `throughput_best_…`, or an object `best_…` of label → backend), grouped
/// by backend: `pext (throughput uniform-10, …); dbb (…)`. Experiments that rank no backends
/// (E6, E7, E9) name none here: their rows elsewhere in the index say what they found.
fn best_backend(experiment: &ExperimentResult) -> Option<String> {
    let summary = &experiment.summary;
    let is_winner_key = |key: &str| {
        let key = key.to_ascii_lowercase();
        key.starts_with("best") || key.starts_with("fastest") || key.contains("_best_")
    };
    // The label says which cell a winner is for: the key without the word "best"/"fastest".
    let label = |key: &str| {
        key.replace("_best_", " ")
            .replace("best_backend_per_", "")
            .trim_start_matches("best")
            .trim_start_matches("fastest")
            .trim_matches(|c: char| c == '_' || c == ' ')
            .to_string()
    };
    let mut winners: Vec<(String, String)> = Vec::new();
    for (key, value) in summary.iter().filter(|(k, _)| is_winner_key(k)) {
        match value {
            Value::String(backend) => winners.push((backend.clone(), label(key))),
            Value::Object(cells) => {
                for (cell, backend) in cells {
                    if let Some(backend) = backend.as_str() {
                        winners.push((backend.to_string(), cell.clone()));
                    }
                }
            }
            _ => {}
        }
    }
    if winners.is_empty() {
        return None;
    }
    // Backends in order of how many cells they win, then by first appearance.
    let mut grouped: Vec<(String, Vec<String>)> = Vec::new();
    for (backend, cell) in winners {
        match grouped.iter_mut().find(|(b, _)| *b == backend) {
            Some((_, cells)) => cells.push(cell),
            None => grouped.push((backend, vec![cell])),
        }
    }
    grouped.sort_by_key(|(_, cells)| std::cmp::Reverse(cells.len()));
    let total: usize = grouped.iter().map(|(_, cells)| cells.len()).sum();
    Some(
        grouped
            .iter()
            .map(|(backend, cells)| {
                let cells: Vec<&str> = cells
                    .iter()
                    .map(String::as_str)
                    .filter(|c| !c.is_empty())
                    .collect();
                if cells.is_empty() {
                    backend.clone()
                } else if cells.len() == total && total > 1 {
                    format!("{backend} (all {total})")
                } else {
                    format!("{backend} ({})", cells.join(", "))
                }
            })
            .collect::<Vec<_>>()
            .join("; "),
    )
}

fn caches(entry: &Entry) -> String {
    let caches = &entry.results.machine.caches;
    if caches.is_empty() {
        return "—".into();
    }
    caches
        .iter()
        .filter(|c| c.kind != "Instruction")
        .map(|c| format!("L{} {}", c.level, compact_bytes(c.bytes as f64)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Renders the whole `README.md` for the report folders found.
fn render(entries: &[Entry]) -> String {
    let mut out = String::from(
        "# kiki reports\n\nOne folder per machine and date, written by `kiki report` \
         (`scripts/report.sh` adds E9). This page is rebuilt by `kiki report-index` from each \
         folder's `results.json`; do not edit it by hand.\n\n## Reports\n\n",
    );
    let mut list = Table {
        headers: ["report", "CPU", "date", "experiments"]
            .map(String::from)
            .to_vec(),
        rows: Vec::new(),
    };
    for entry in entries {
        let experiments = entry
            .results
            .experiments
            .iter()
            .map(|e| e.id.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        list.rows.push(vec![
            format!("[{0}]({0}/report.md)", entry.folder),
            entry.results.machine.cpu_model.clone(),
            entry.results.date.clone(),
            experiments,
        ]);
    }
    if entries.is_empty() {
        out.push_str("No reports yet: run `kiki report`.\n");
        return out;
    }
    out.push_str(&table_markdown(&list));

    // Every entry read back, so every one is readable.
    let readable: Vec<&Entry> = entries.iter().collect();
    let headers: Vec<String> = std::iter::once(String::new())
        .chain(readable.iter().map(|e| e.folder.clone()))
        .collect();
    let mut side = Table {
        headers: headers.clone(),
        rows: Vec::new(),
    };
    let row = |name: &str, cell: &dyn Fn(&Entry) -> String| {
        std::iter::once(name.to_string())
            .chain(readable.iter().map(|e| cell(e)))
            .collect::<Vec<_>>()
    };
    side.rows
        .push(row("CPU", &|e| e.results.machine.cpu_model.clone()));
    side.rows.push(row("CPUID family/model", &|e| {
        format!("{}/{}", e.results.machine.family, e.results.machine.model)
    }));
    side.rows.push(row("caches", &caches));
    let mut ids: Vec<String> = Vec::new();
    for e in &readable {
        for x in &e.results.experiments {
            if !ids.contains(&x.id) {
                ids.push(x.id.clone());
            }
        }
    }
    ids.sort_by_key(|id| {
        id.trim_start_matches('E')
            .parse::<u32>()
            .unwrap_or(u32::MAX)
    });
    // E9 compares builds, not backends: it has no "best backend".
    for id in ids.iter().filter(|id| id.as_str() != "E9") {
        side.rows.push(row(&format!("{id} best"), &|e| {
            e.results
                .experiment(id)
                .and_then(best_backend)
                .unwrap_or_else(|| "—".into())
        }));
    }
    out.push_str("\n## CPUs side by side\n\n");
    out.push_str(&table_markdown(&side));

    let mut backends: Vec<String> = Vec::new();
    for e in &readable {
        for b in &e.results.backends {
            if !backends.contains(&b.name) {
                backends.push(b.name.clone());
            }
        }
    }
    if !backends.is_empty() {
        let mut bytes = Table {
            headers: headers.clone(),
            rows: Vec::new(),
        };
        bytes.headers[0] = "backend table bytes".into();
        for name in &backends {
            bytes.rows.push(row(name, &|e| {
                e.results
                    .backends
                    .iter()
                    .find(|b| &b.name == name)
                    .map(|b| exact_bytes(b.table_bytes as usize))
                    .unwrap_or_else(|| "—".into())
            }));
        }
        out.push_str("\n## Table bytes\n\n");
        out.push_str(&table_markdown(&bytes));
    }

    let mut keys: Vec<String> = Vec::new();
    for e in &readable {
        for (k, _) in e
            .results
            .experiment("E7")
            .map(|x| x.summary.as_slice())
            .unwrap_or_default()
            .iter()
            // Structured values (issue 10's) have their own section below.
            .filter(|(_, v)| !v.is_object() && !v.is_array())
        {
            if !keys.contains(k) {
                keys.push(k.clone());
            }
        }
    }
    if !keys.is_empty() {
        let mut crossovers = Table {
            headers,
            rows: Vec::new(),
        };
        crossovers.headers[0] = "E7 summary".into();
        for key in &keys {
            crossovers.rows.push(row(key, &|e| {
                e.results
                    .experiment("E7")
                    .and_then(|x| x.summary_value(key))
                    .map(|value| match value.as_f64() {
                        // Buffer sizes read better in binary units.
                        Some(bytes) if key.contains("bytes") => compact_bytes(bytes),
                        _ => compact(value),
                    })
                    .unwrap_or_else(|| "—".into())
            }));
        }
        out.push_str("\n## E7 cache pressure: summary values\n\n");
        out.push_str(&table_markdown(&crossovers));
    }
    out.push_str(&cache_argument(&readable).0);
    out
}

/// The cache argument per CPU (reports with E6's `effective_levels` or E7's `table_miss_cost`):
/// each CPU's measured cache levels beside sysfs, and each backend's isolated table-miss cost
/// per lookup at E7's highest pressure; the Markdown section and the plot behind it.
fn cache_argument(entries: &[&Entry]) -> (String, Option<Plot>) {
    let levels = |e: &Entry| {
        e.results
            .experiment("E6")
            .and_then(|x| x.summary_value("effective_levels"))
            .and_then(|v| v.as_array().cloned())
    };
    let costs = |e: &Entry| {
        e.results
            .experiment("E7")
            .and_then(|x| x.summary_value("table_miss_cost"))
            .and_then(|v| v.as_object().cloned())
    };
    let candidates: Vec<&Entry> = entries
        .iter()
        .copied()
        .filter(|e| levels(e).is_some() || costs(e).is_some())
        .collect();
    // One column per CPU: its latest report (entries come in folder order, a CPU's later runs
    // after its earlier ones); earlier runs measured with earlier E6/E7 designs would set two
    // designs side by side as if they were two CPUs.
    let with: Vec<&Entry> = candidates
        .iter()
        .enumerate()
        .filter(|(i, e)| {
            !candidates[i + 1..]
                .iter()
                .any(|later| later.results.cpu_slug == e.results.cpu_slug)
        })
        .map(|(_, e)| *e)
        .collect();
    let left_out: Vec<String> = candidates
        .iter()
        .filter(|e| !with.iter().any(|w| w.folder == e.folder))
        .map(|e| format!("[{0}]({0}/report.md)", e.folder))
        .collect();
    if with.is_empty() {
        return (String::new(), None);
    }
    let mut table = Table {
        headers: std::iter::once(String::new())
            .chain(with.iter().map(|e| e.folder.clone()))
            .collect(),
        rows: Vec::new(),
    };
    let row = |name: &str, cell: &dyn Fn(&Entry) -> String| {
        std::iter::once(name.to_string())
            .chain(with.iter().map(|e| cell(e)))
            .collect::<Vec<_>>()
    };
    table
        .rows
        .push(row("CPU", &|e| e.results.machine.cpu_model.clone()));
    table.rows.push(row("code (commit)", &|e| {
        e.results.machine.git_commit.chars().take(7).collect()
    }));
    table.rows.push(row("measured levels (sysfs)", &|e| {
        levels(e).map_or("—".into(), |list| {
            list.iter()
                .map(|l| {
                    let bytes = |v: &Value| v.as_f64().map_or("?".into(), compact_bytes);
                    format!(
                        "{} {} at {} ns ({})",
                        l["level"].as_str().unwrap_or("?"),
                        bytes(&l["bytes"]),
                        compact(&l["ns"]),
                        if l["sysfs_bytes"].is_null() {
                            "—".into()
                        } else {
                            bytes(&l["sysfs_bytes"])
                        }
                    )
                })
                .collect::<Vec<_>>()
                .join("; ")
        })
    }));
    let top = |e: &Entry, key: &str| {
        e.results
            .experiment("E7")
            .and_then(|x| x.summary_value(key))
            .map_or("—".into(), |v| match v.as_f64() {
                Some(bytes) if key.contains("bytes") => compact_bytes(bytes),
                _ => compact(v),
            })
    };
    table
        .rows
        .push(row("E7 pressure buffer", &|e| top(e, "pressure_max_bytes")));
    table
        .rows
        .push(row("E7 pressure reads per node (top)", &|e| {
            top(e, "pressure_reads_max")
        }));
    let mut backends: Vec<String> = Vec::new();
    for e in &with {
        for name in costs(e)
            .map(|c| c.keys().cloned().collect::<Vec<_>>())
            .unwrap_or_default()
        {
            if !backends.contains(&name) {
                backends.push(name);
            }
        }
    }
    let cost_text = |v: &Value| {
        format!(
            "{} [{}–{}]",
            compact(&v["ns"]),
            compact(&v["low"]),
            compact(&v["high"])
        )
    };
    for name in &backends {
        table
            .rows
            .push(row(&format!("{name}: table-miss ns per lookup"), &|e| {
                costs(e)
                    .and_then(|c| c.get(name).cloned())
                    .map_or("—".into(), |v| cost_text(&v))
            }));
    }
    table.rows.push(row("negative controls pass", &|e| {
        e.results
            .experiment("E7")
            .and_then(|x| x.summary_value("negative_controls"))
            .and_then(|v| v.as_object().cloned())
            .map_or("—".into(), |c| {
                c.iter()
                    .map(|(k, v)| format!("{k}: {}", compact(&v["pass"])))
                    .collect::<Vec<_>>()
                    .join("; ")
            })
    }));
    // Every positive control where the report has several (one per synthetic size), else the
    // single one reports made before had.
    table.rows.push(row("positive controls pass", &|e| {
        let e7 = e.results.experiment("E7");
        if let Some(list) = e7
            .and_then(|x| x.summary_value("positive_controls"))
            .and_then(|v| v.as_array().cloned())
        {
            return list
                .iter()
                .map(|p| {
                    let label = p["label"].as_str().unwrap_or("?");
                    format!("{label}: {}", compact(&p["pass"]))
                })
                .collect::<Vec<_>>()
                .join("; ");
        }
        e7.and_then(|x| x.summary_value("positive_control"))
            .map_or("—".into(), |v| compact(&v["pass"]))
    }));
    table
        .rows
        .push(row("seed 004", &|e| top(e, "seed_004_verdict")));
    let plot = Plot {
        file_stem: "cache_argument".into(),
        title: "Table-miss cost per lookup at E7's highest pressure, per CPU".into(),
        x_label: "backend".into(),
        y_label: "ns per lookup (real − hot twin)".into(),
        log_x: false,
        log_y: false,
        kind: PlotKind::Bar,
        categories: backends.clone(),
        markers: Vec::new(),
        lines: with
            .iter()
            .filter_map(|e| {
                let costs = costs(e)?;
                Some(PlotLine {
                    name: e.folder.clone(),
                    points: backends
                        .iter()
                        .enumerate()
                        .filter_map(|(i, name)| {
                            let v = costs.get(name)?;
                            let (y, low, high) =
                                (v["ns"].as_f64()?, v["low"].as_f64()?, v["high"].as_f64()?);
                            Some(Point {
                                x: i as f64,
                                y,
                                y_low: low.min(y),
                                y_high: high.max(y),
                            })
                        })
                        .collect(),
                })
            })
            .collect(),
    };
    let has_plot = plot.lines.iter().any(|l| !l.points.is_empty());
    let mut text = String::from(
        "\n## The cache argument per CPU\n\nE6's effective cache levels (knees of its latency \
         curve; sysfs in parentheses) and E7's isolated table-miss cost (each backend against \
         its hot twin, after the highest pressure; 95 % intervals), one column per CPU: its \
         latest report, with the commit that measured it (a column measured with older code \
         can differ in design, not only in CPU).\n\n",
    );
    if !left_out.is_empty() {
        text.push_str(&format!(
            "Earlier reports of the same CPUs, left out here: {}.\n\n",
            left_out.join(", ")
        ));
    }
    if has_plot {
        text.push_str("![table-miss cost per CPU](cache_argument.svg)\n\n");
    }
    text.push_str(&table_markdown(&table));
    (text, has_plot.then_some(plot))
}

/// What `rebuild` did: how many folders it indexed, and each one it skipped with the reason
/// (`'folder': why`).
#[derive(Debug, Default)]
pub struct Rebuilt {
    pub indexed: usize,
    pub skipped: Vec<String>,
}

/// Reads every report folder under `dir` (hidden and temporary folders skipped), indexes those
/// whose `results.json` reads back (`read_report`, which checks its shape and schema), and writes `dir/README.md`. A
/// folder that fails is left out of the index and reported in `skipped`; only a `dir` that
/// cannot be listed or a README that cannot be written is an error.
pub fn rebuild(dir: &Path) -> Result<Rebuilt, String> {
    let listing =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut entries = Vec::new();
    let mut skipped = Vec::new();
    for item in listing {
        let item = item.map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        let folder = item.file_name().to_string_lossy().into_owned();
        if folder.starts_with('.') || !item.path().is_dir() {
            continue;
        }
        let path = item.path().join("results.json");
        if !path.exists() {
            continue;
        }
        match read_report(&path) {
            Ok(results) => entries.push(Entry { folder, results }),
            Err(reason) => skipped.push(format!("{}: {reason}", quote_input(&folder))),
        }
    }
    // Listing order depends on the file system; messages should not.
    skipped.sort();
    entries.sort_by(|a, b| a.folder.cmp(&b.folder));
    let text = render(&entries);
    let readable: Vec<&Entry> = entries.iter().collect();
    if let (_, Some(plot)) = cache_argument(&readable) {
        let svg = kiki_harness::plot::render_svg(&plot)?;
        std::fs::write(dir.join("cache_argument.svg"), svg).map_err(|e| {
            format!(
                "cannot write {}: {e}",
                dir.join("cache_argument.svg").display()
            )
        })?;
    }
    let temp = dir.join(format!(".README.md.tmp-{}", std::process::id()));
    let target = dir.join("README.md");
    std::fs::write(&temp, text)
        .and_then(|()| std::fs::rename(&temp, &target))
        .map_err(|e| {
            let _ = std::fs::remove_file(&temp);
            format!("cannot write {}: {e}", target.display())
        })?;
    Ok(Rebuilt {
        indexed: entries.len(),
        skipped,
    })
}

pub fn run(dir: &Path) -> Result<(), CliError> {
    let out = Output::new("report-index");
    let rebuilt = rebuild(dir).map_err(|message| CliError {
        message: format!("kiki report-index: {message}"),
        code: 1,
    })?;
    for reason in &rebuilt.skipped {
        super::warn(format!("kiki report-index: {reason}"));
    }
    out.line(format_args!(
        "{}: {} report folder(s)",
        dir.join("README.md").display(),
        rebuilt.indexed
    ))?;
    out.flush()?;
    if !rebuilt.skipped.is_empty() {
        return Err(CliError::failed(format!(
            "kiki report-index: {} report folder(s) left out of the index, see above",
            rebuilt.skipped.len()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiki_harness::machine::Machine;
    use kiki_harness::report::new_report;

    /// An experiment whose summary is the JSON object `text`.
    fn with_summary(text: &str) -> ExperimentResult {
        let summary: serde_json::Map<String, Value> = serde_json::from_str(text).unwrap();
        ExperimentResult {
            wall_seconds: None,
            comparisons: Vec::new(),
            id: "E1".into(),
            title: String::new(),
            method: String::new(),
            findings: String::new(),
            summary: summary.into_iter().collect(),
            series: Vec::new(),
            tables: Vec::new(),
            plots: Vec::new(),
        }
    }

    #[test]
    fn best_backend_groups_the_summary_winners() {
        let experiment = with_summary(
            r#"{"throughput_best_uniform-10": "pext",
                "throughput_best_random-play": "dbb", "latency_best_uniform-10": "pext",
                "counters": "counters unavailable", "haitaka ÷ best perft": 1.2}"#,
        );
        assert_eq!(
            best_backend(&experiment).unwrap(),
            "pext (throughput uniform-10, latency uniform-10); dbb (throughput random-play)"
        );
        let per_geometry =
            with_summary(r#"{"best_backend_per_geometry": {"L2": "pext", "L3": "pext"}}"#);
        assert_eq!(best_backend(&per_geometry).unwrap(), "pext (all 2)");
        let e2 = with_summary(r#"{"best perft start d5": "pext"}"#);
        assert_eq!(best_backend(&e2).unwrap(), "pext (perft start d5)");
        let none = with_summary(r#"{"l1_inside_ns": 1.4}"#);
        assert_eq!(best_backend(&none), None);
    }

    #[test]
    fn cache_argument_sets_the_cpus_side_by_side() {
        let mut e6 = with_summary(
            r#"{"effective_levels": [{"level": "L1", "bytes": 32768, "ns": 1.2, "sysfs_bytes": 32768},
                {"level": "L3", "bytes": 8388608, "ns": 20.5, "sysfs_bytes": 33554432}]}"#,
        );
        e6.id = "E6".into();
        let mut e7 = with_summary(
            r#"{"pressure_max_bytes": 33554432, "pressure_reads_max": 512,
                "table_miss_cost": {"magic-plain": {"ns": 30.5, "low": 28.0, "high": 33.0},
                                    "dbb": {"ns": 2.5, "low": 2.0, "high": 3.0}},
                "negative_controls": {"mailbox": {"ns": 0.1, "low": -0.1, "high": 0.2, "pass": true}},
                "positive_control": {"bytes": 33554432, "ns": 80.0, "expected_ns": 78.0, "pass": true},
                "seed_004_verdict": "holds here"}"#,
        );
        e7.id = "E7".into();
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
        assert!(text.contains("| seed 004 | holds here |"), "{text}");
        let plot = plot.expect("a plot");
        assert_eq!(plot.categories, ["magic-plain", "dbb"]);
        assert_eq!(plot.lines[0].points[1].y, 2.5);
        // Reports without these values add no section.
        let bare = Entry {
            folder: "bare".into(),
            results: new_report(Machine::detect(), vec![with_summary("{}")]),
        };
        assert_eq!(cache_argument(&[&bare]).0, "");
    }

    /// A valid `results.json` of one experiment on "Good CPU".
    fn good() -> String {
        let mut machine = Machine::detect();
        machine.cpu_model = "Good CPU".into();
        let mut report = new_report(machine, vec![with_summary("{}")]);
        report.date = "2026-01-02".into();
        serde_json::to_string(&report).unwrap()
    }

    #[test]
    fn bad_folders_are_left_out_and_make_the_index_fail() {
        let dir = std::env::temp_dir().join(format!("kiki-report-index-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
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
        let error = run(&dir).unwrap_err();
        assert_eq!(error.code, 1);
        assert_eq!(
            error.message,
            "kiki report-index: 5 report folder(s) left out of the index, see above"
        );
        let index = std::fs::read_to_string(dir.join("README.md")).unwrap();
        assert!(
            index.contains("[good-2026-01-02](good-2026-01-02/report.md) | Good CPU"),
            "{index}"
        );
        for bad in ["array", "null", "shape", "future", "broken"] {
            assert!(!index.contains(&format!("[{bad}]")), "{index}");
        }
        for (folder, _) in &folders[1..] {
            std::fs::remove_dir_all(dir.join(folder)).unwrap();
        }
        assert!(run(&dir).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
