//! `kiki report-index`: rebuilds `reports/README.md` — every report folder, and the CPUs side
//! by side from their `results.json` (best backend per experiment, table bytes, E7 crossovers).

use super::{CliError, Output};
use crate::harness::report::table_markdown;
use crate::harness::results::{Table, SCHEMA_VERSION};
use crate::input::quote_input;
use crate::json::Json;
use crate::units::{compact_bytes, exact_bytes};
use std::path::Path;

/// One report folder whose `results.json` passed `validate_results`.
struct Entry {
    folder: String,
    results: Json,
}

impl Entry {
    fn machine(&self, key: &str) -> Option<&Json> {
        self.results.get("machine")?.get(key)
    }

    fn experiment(&self, id: &str) -> Option<&Json> {
        self.results
            .get("experiments")?
            .as_array()?
            .iter()
            .find(|e| e.get("id").and_then(Json::as_str) == Some(id))
    }
}

/// A summary value in one table cell.
fn compact(value: &Json) -> String {
    match value {
        Json::Null => "—".into(),
        Json::Bool(b) => b.to_string(),
        Json::Int(i) => i.to_string(),
        Json::Float(f) => crate::harness::plot::format_tick(*f, false),
        Json::Str(s) => s.clone(),
        Json::Array(items) => items.iter().map(compact).collect::<Vec<_>>().join(", "),
        Json::Object(fields) => fields
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
fn best_backend(experiment: &Json) -> Option<String> {
    let summary = experiment.get("summary")?.as_object()?;
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
            Json::Str(backend) => winners.push((backend.clone(), label(key))),
            Json::Object(cells) => {
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
    let Some(list) = entry.machine("caches").and_then(Json::as_array) else {
        return "—".into();
    };
    list.iter()
        .filter(|c| c.get("type").and_then(Json::as_str) != Some("Instruction"))
        .filter_map(|c| {
            let level = c.get("level")?.as_f64()?;
            let bytes = c.get("bytes")?.as_f64()?;
            Some(format!("L{level} {}", compact_bytes(bytes)))
        })
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
            .get("experiments")
            .and_then(Json::as_array)
            .unwrap_or_default()
            .iter()
            .filter_map(|e| e.get("id").and_then(Json::as_str))
            .collect::<Vec<_>>()
            .join(", ");
        list.rows.push(vec![
            format!("[{0}]({0}/report.md)", entry.folder),
            entry
                .machine("cpu_model")
                .map(compact)
                .unwrap_or_else(|| "—".into()),
            entry
                .results
                .get("date")
                .map(compact)
                .unwrap_or_else(|| "—".into()),
            experiments,
        ]);
    }
    if entries.is_empty() {
        out.push_str("No reports yet: run `kiki report`.\n");
        return out;
    }
    out.push_str(&table_markdown(&list));

    // Every entry passed validate_results, so every one is readable.
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
    side.rows.push(row("CPU", &|e| {
        e.machine("cpu_model").map(compact).unwrap_or_default()
    }));
    side.rows.push(row(
        "CPUID family/model",
        &|e| match (e.machine("family"), e.machine("model")) {
            (Some(f), Some(m)) => format!("{}/{}", compact(f), compact(m)),
            _ => "—".into(),
        },
    ));
    side.rows.push(row("caches", &caches));
    let mut ids: Vec<String> = Vec::new();
    for e in &readable {
        for x in e
            .results
            .get("experiments")
            .and_then(Json::as_array)
            .unwrap_or_default()
        {
            if let Some(id) = x.get("id").and_then(Json::as_str) {
                if !ids.iter().any(|i| i == id) {
                    ids.push(id.to_string());
                }
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
            e.experiment(id)
                .and_then(best_backend)
                .unwrap_or_else(|| "—".into())
        }));
    }
    out.push_str("\n## CPUs side by side\n\n");
    out.push_str(&table_markdown(&side));

    let mut backends: Vec<String> = Vec::new();
    for e in &readable {
        for b in e
            .results
            .get("backends")
            .and_then(Json::as_array)
            .unwrap_or_default()
        {
            if let Some(name) = b.get("name").and_then(Json::as_str) {
                if !backends.iter().any(|x| x == name) {
                    backends.push(name.to_string());
                }
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
                    .get("backends")
                    .and_then(Json::as_array)
                    .and_then(|list| {
                        list.iter()
                            .find(|b| b.get("name").and_then(Json::as_str) == Some(name))
                    })
                    .and_then(|b| b.get("table_bytes"))
                    .and_then(Json::as_f64)
                    .map(|n| exact_bytes(n as usize))
                    .unwrap_or_else(|| "—".into())
            }));
        }
        out.push_str("\n## Table bytes\n\n");
        out.push_str(&table_markdown(&bytes));
    }

    let mut keys: Vec<String> = Vec::new();
    for e in &readable {
        for (k, _) in e
            .experiment("E7")
            .and_then(|x| x.get("summary"))
            .and_then(Json::as_object)
            .unwrap_or_default()
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
                e.experiment("E7")
                    .and_then(|x| x.get("summary"))
                    .and_then(|s| s.get(key))
                    .map(|value| match value.as_f64() {
                        // Buffer sizes read better in binary units.
                        Some(bytes) if key.contains("bytes") => compact_bytes(bytes),
                        _ => compact(value),
                    })
                    .unwrap_or_else(|| "—".into())
            }));
        }
        out.push_str("\n## E7 cache pressure: crossover points\n\n");
        out.push_str(&table_markdown(&crossovers));
    }
    out
}

fn json_kind(json: &Json) -> &'static str {
    match json {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Int(_) | Json::Float(_) => "a number",
        Json::Str(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

/// Whether `json` has the shape of a `results.json` this kiki can index: an object whose
/// `schema_version` is `SCHEMA_VERSION` (every committed report carries 1), with a `machine`
/// object and an `experiments` array of objects that each have a string `id`. The error says
/// what is wrong, in one line.
pub fn validate_results(json: &Json) -> Result<(), String> {
    if !matches!(json, Json::Object(_)) {
        return Err(format!(
            "results.json is {}, not an object",
            json_kind(json)
        ));
    }
    match json.get("schema_version") {
        None => return Err("results.json has no schema_version".into()),
        Some(version) => match version.as_f64() {
            Some(number) if number == f64::from(SCHEMA_VERSION) => {}
            Some(_) => {
                return Err(format!(
                    "results.json has schema_version {}, this kiki reads {SCHEMA_VERSION}",
                    compact(version)
                ))
            }
            None => {
                return Err(format!(
                    "results.json schema_version is {}, not a number",
                    json_kind(version)
                ))
            }
        },
    }
    match json.get("machine") {
        Some(Json::Object(_)) => {}
        Some(other) => {
            return Err(format!(
                "results.json machine is {}, not an object",
                json_kind(other)
            ))
        }
        None => return Err("results.json has no machine".into()),
    }
    let experiments = match json.get("experiments") {
        Some(Json::Array(items)) => items,
        Some(other) => {
            return Err(format!(
                "results.json experiments is {}, not an array",
                json_kind(other)
            ))
        }
        None => return Err("results.json has no experiments".into()),
    };
    for (index, experiment) in experiments.iter().enumerate() {
        if !matches!(experiment, Json::Object(_)) {
            return Err(format!(
                "results.json experiments[{index}] is {}, not an object",
                json_kind(experiment)
            ));
        }
        if experiment.get("id").and_then(Json::as_str).is_none() {
            return Err(format!(
                "results.json experiments[{index}] has no string id"
            ));
        }
    }
    Ok(())
}

/// Reads, parses and validates one `results.json`; the error says why the folder cannot be
/// indexed, in one line.
pub fn read_results(path: &Path) -> Result<Json, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("cannot read results.json: {e}"))?;
    let json = Json::parse(&text).map_err(|e| format!("results.json: {e}"))?;
    validate_results(&json)?;
    Ok(json)
}

/// What `rebuild` did: how many folders it indexed, and each one it skipped with the reason
/// (`'folder': why`).
#[derive(Debug, Default)]
pub struct Rebuilt {
    pub indexed: usize,
    pub skipped: Vec<String>,
}

/// Reads every report folder under `dir` (hidden and temporary folders skipped), indexes those
/// whose `results.json` reads and validates (`read_results`), and writes `dir/README.md`. A
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
        match read_results(&path) {
            Ok(results) => entries.push(Entry { folder, results }),
            Err(reason) => skipped.push(format!("{}: {reason}", quote_input(&folder))),
        }
    }
    // Listing order depends on the file system; messages should not.
    skipped.sort();
    entries.sort_by(|a, b| a.folder.cmp(&b.folder));
    let text = render(&entries);
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

    #[test]
    fn best_backend_groups_the_summary_winners() {
        let experiment = Json::parse(
            r#"{"summary": {"throughput_best_uniform-10": "pext",
                "throughput_best_random-play": "dbb", "latency_best_uniform-10": "pext",
                "counters": "counters unavailable", "haitaka ÷ best perft": 1.2}}"#,
        )
        .unwrap();
        assert_eq!(
            best_backend(&experiment).unwrap(),
            "pext (throughput uniform-10, latency uniform-10); dbb (throughput random-play)"
        );
        let per_geometry = Json::parse(
            r#"{"summary": {"best_backend_per_geometry": {"L2": "pext", "L3": "pext"}}}"#,
        )
        .unwrap();
        assert_eq!(best_backend(&per_geometry).unwrap(), "pext (all 2)");
        let e2 = Json::parse(r#"{"summary": {"best perft start d5": "pext"}}"#).unwrap();
        assert_eq!(best_backend(&e2).unwrap(), "pext (perft start d5)");
        let none = Json::parse(r#"{"summary": {"l1_ns": 1.4}}"#).unwrap();
        assert_eq!(best_backend(&none), None);
    }

    const GOOD: &str = r#"{"schema_version": 1, "date": "2026-01-02",
        "machine": {"cpu_model": "Good CPU"}, "experiments": [{"id": "E1"}]}"#;

    #[test]
    fn validate_results_names_what_is_wrong() {
        assert_eq!(validate_results(&Json::parse(GOOD).unwrap()), Ok(()));
        let cases = [
            ("[]", "results.json is an array, not an object"),
            ("null", "results.json is null, not an object"),
            ("{}", "results.json has no schema_version"),
            (
                r#"{"schema_version": 999, "machine": {}, "experiments": []}"#,
                "results.json has schema_version 999, this kiki reads 1",
            ),
            (
                r#"{"schema_version": "1", "machine": {}, "experiments": []}"#,
                "results.json schema_version is a string, not a number",
            ),
            (
                r#"{"schema_version": 1, "experiments": []}"#,
                "results.json has no machine",
            ),
            (
                r#"{"schema_version": 1, "machine": [], "experiments": []}"#,
                "results.json machine is an array, not an object",
            ),
            (
                r#"{"schema_version": 1, "machine": {}, "experiments": {}}"#,
                "results.json experiments is an object, not an array",
            ),
            (
                r#"{"schema_version": 1, "machine": {}, "experiments": [{"id": "E1"}, 3]}"#,
                "results.json experiments[1] is a number, not an object",
            ),
            (
                r#"{"schema_version": 1, "machine": {}, "experiments": [{"id": 1}]}"#,
                "results.json experiments[0] has no string id",
            ),
        ];
        for (text, expected) in cases {
            let json = Json::parse(text).unwrap();
            assert_eq!(validate_results(&json), Err(expected.to_string()), "{text}");
        }
    }

    #[test]
    fn bad_folders_are_left_out_and_make_the_index_fail() {
        let dir = std::env::temp_dir().join(format!("kiki-report-index-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let folders = [
            ("good-2026-01-02", GOOD),
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
        assert_eq!(rebuilt.indexed, 1);
        assert_eq!(
            rebuilt.skipped,
            [
                "'array': results.json is an array, not an object",
                "'broken': results.json: JSON: expected a string key at byte 1, found 'b'",
                "'future': results.json has schema_version 999, this kiki reads 1",
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
