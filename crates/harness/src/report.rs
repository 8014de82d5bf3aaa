//! Writes a report folder (`results.json`, then `report.md` and every plot as SVG and PNG), and
//! re-renders one from its `results.json` alone (`readback` reads one back).
//!
//! The folder is built under a hidden temporary name beside its final place and published only
//! when every file is written, so a folder named `<cpu-slug>-<date>` is always complete. Publishing
//! claims the name atomically (it fails if the name exists, whatever it is: a folder, a file or a
//! dangling link) and moves on to `-2`, `-3`, …; an existing report is never overwritten, and
//! measured data is never deleted: where writing or publishing fails, the temporary folder stays
//! and the error names it.

use super::machine::Machine;
use super::plot;
use super::readback::{list, read_report};
use super::results::{
    BackendEntry, ExperimentResult, Plot, Report, Table, RENDERABLE_SCHEMAS, SCHEMA_VERSION,
};
use serde_json::Value;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The report of `experiments` measured on `machine` by this binary (whose backends it lists),
/// with no mode or run conditions recorded (the caller sets them).
pub fn new_report(machine: Machine, experiments: Vec<ExperimentResult>) -> Report {
    Report {
        schema_version: SCHEMA_VERSION,
        kiki_version: env!("CARGO_PKG_VERSION").to_string(),
        cpu_slug: machine.cpu_slug(),
        date: machine.date().to_string(),
        machine,
        mode: String::new(),
        invocations: 1,
        invocations_by_experiment: Default::default(),
        layouts: Vec::new(),
        conditions: None,
        backends: backends(),
        experiments,
    }
}

/// Writes `report` into a new folder `out_dir/<slug>-<date>[-N]` and returns its path. Errors
/// are one line for the user.
pub fn write_report(out_dir: &Path, report: &Report) -> Result<PathBuf, String> {
    fs::create_dir_all(out_dir)
        .map_err(|e| format!("cannot create output folder {}: {e}", out_dir.display()))?;
    let base = file_safe(&format!("{}-{}", report.cpu_slug, report.date));
    let temp = claim_temp_folder(out_dir, &base)?;
    write_files(&temp, report).map_err(|e| {
        format!(
            "{e}; what was written is kept in {} (results.json first)",
            temp.display()
        )
    })?;
    publish_folder(&temp, out_dir, &base)
}

/// A new, empty hidden folder `out_dir/.tmp-<base>-<pid>[-N]`, created (never reused).
fn claim_temp_folder(out_dir: &Path, base: &str) -> Result<PathBuf, String> {
    let pid = std::process::id();
    for attempt in 0..1_000 {
        let temp = out_dir.join(format!(".tmp-{base}-{pid}-{attempt}"));
        match fs::create_dir(&temp) {
            Ok(()) => return Ok(temp),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(format!(
                    "cannot write into output folder {}: {e}",
                    out_dir.display()
                ))
            }
        }
    }
    Err(format!(
        "cannot create a temporary folder in {}: 1000 names taken",
        out_dir.display()
    ))
}

/// How many names (`base`, `base-2`, …) publishing tries before it gives up.
const PUBLISH_ATTEMPTS: usize = 10_000;

/// Moves the finished folder `temp` to the first free name `base`, `base-2`, `base-3`, … in
/// `out_dir`, claiming each name atomically, so reports finishing together never lose one.
/// On failure `temp` stays where it is and the error says so.
pub fn publish_folder(temp: &Path, out_dir: &Path, base: &str) -> Result<PathBuf, String> {
    let retired = retired_folders(out_dir);
    let mut last_error = None;
    for attempt in 1..=PUBLISH_ATTEMPTS {
        let name = if attempt == 1 {
            base.to_string()
        } else {
            format!("{base}-{attempt}")
        };
        // A retired report's name stays its own: the index and readers of superseded.json
        // would take a new folder of that name for the old one.
        if retired.contains(&name) {
            continue;
        }
        let target = out_dir.join(&name);
        match rename_no_replace(temp, &target) {
            Ok(()) => return Ok(target),
            // Taken (by a folder, a file or a link): the next name.
            Err(e) if is_taken(&e) => continue,
            Err(e) => {
                last_error = Some(format!("cannot move it to {}: {e}", target.display()));
                break;
            }
        }
    }
    let why = last_error.unwrap_or_else(|| format!("{PUBLISH_ATTEMPTS} names are taken"));
    Err(format!(
        "the report is complete but could not be published ({why}); it is kept in {}",
        temp.display()
    ))
}

/// The folder names `out_dir/superseded.json` lists as retired (none when it is missing or
/// unreadable: `kiki report-index` reports a bad file itself).
fn retired_folders(out_dir: &Path) -> Vec<String> {
    let Ok(text) = fs::read_to_string(out_dir.join("superseded.json")) else {
        return Vec::new();
    };
    let Ok(json) = serde_json::from_str::<Value>(&text) else {
        return Vec::new();
    };
    json["reports"]
        .as_array()
        .map(|reports| {
            reports
                .iter()
                .filter_map(|r| r["folder"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn is_taken(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::AlreadyExists | io::ErrorKind::DirectoryNotEmpty
    ) || error.raw_os_error() == Some(libc_enotempty())
}

fn libc_enotempty() -> i32 {
    #[cfg(unix)]
    {
        libc::ENOTEMPTY
    }
    #[cfg(not(unix))]
    {
        -1
    }
}

/// Renames `from` to `to` only if `to` does not exist, atomically: `renameat2` with
/// `RENAME_NOREPLACE` on Linux; elsewhere (or on a file system without it) the name is claimed
/// by creating an empty folder, which the rename then replaces.
fn rename_no_replace(from: &Path, to: &Path) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::ffi::CString;
        use std::os::unix::ffi::OsStrExt;
        let from_c = CString::new(from.as_os_str().as_bytes())?;
        let to_c = CString::new(to.as_os_str().as_bytes())?;
        // SAFETY: two valid NUL-terminated paths relative to the current directory.
        let status = unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                from_c.as_ptr(),
                libc::AT_FDCWD,
                to_c.as_ptr(),
                libc::RENAME_NOREPLACE,
            )
        };
        if status == 0 {
            return Ok(());
        }
        let error = io::Error::last_os_error();
        if !matches!(
            error.raw_os_error(),
            Some(libc::EINVAL) | Some(libc::ENOSYS)
        ) {
            return Err(error);
        }
    }
    // Claim the name with a folder creation (fails if anything has it), then replace the empty
    // folder by the report.
    fs::create_dir(to)?;
    fs::rename(from, to).inspect_err(|_| {
        let _ = fs::remove_dir(to);
    })
}

/// Writes `results.json` (the measured data) first, then `report.md` and the plots.
fn write_files(dir: &Path, report: &Report) -> Result<(), String> {
    let json =
        serde_json::to_string(report).map_err(|e| format!("cannot serialise results.json: {e}"))?;
    write(&dir.join("results.json"), (json + "\n").as_bytes())?;
    render_into(dir, report)
}

/// Writes `report.md` and every plot of `report` into `dir`, each file through a temporary name
/// and a rename, so a failure leaves the earlier file whole.
pub fn render_into(dir: &Path, report: &Report) -> Result<(), String> {
    let stems = plot_stems(&report.experiments);
    for (experiment, stems) in report.experiments.iter().zip(&stems) {
        for (plot, stem) in experiment.plots.iter().zip(stems) {
            let svg = plot::render_svg(plot)?;
            write(&dir.join(format!("{stem}.svg")), svg.as_bytes())?;
            let png = dir.join(format!("{stem}.png"));
            let temp = temp_name(&png);
            plot::render_png(plot, &temp)
                .and_then(|()| rename(&temp, &png))
                .inspect_err(|_| {
                    let _ = fs::remove_file(&temp);
                })?;
        }
    }
    write(
        &dir.join("report.md"),
        render_markdown(report, &stems).as_bytes(),
    )
}

/// `kiki render DIR`: rewrites `DIR/report.md` and the plots from `DIR/results.json`.
pub fn rerender(dir: &Path) -> Result<(), String> {
    let report = read_report(&dir.join("results.json"))?;
    if !RENDERABLE_SCHEMAS.contains(&report.schema_version) {
        return Err(format!(
            "results.json has schema_version {}, which holds no tables or plots; only versions \
             {} can be re-rendered (the folder is left as it is)",
            report.schema_version,
            list(&RENDERABLE_SCHEMAS)
        ));
    }
    render_into(dir, &report)
}

/// `dir/.tmp-<pid>-<name>`: hidden, and with the same extension (the PNG encoder goes by it).
fn temp_name(path: &Path) -> PathBuf {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    path.with_file_name(format!(".tmp-{}-{name}", std::process::id()))
}

fn rename(from: &Path, to: &Path) -> Result<(), String> {
    fs::rename(from, to).map_err(|e| format!("cannot write {}: {e}", to.display()))
}

/// Writes `path` whole or not at all (a temporary file renamed over it).
fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let temp = temp_name(path);
    fs::write(&temp, bytes)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
        .and_then(|()| rename(&temp, path))
        .inspect_err(|_| {
            let _ = fs::remove_file(&temp);
        })
}

/// The base backends of this binary (what E1–E11 measure): name, availability, code path,
/// table bytes.
fn backends() -> Vec<BackendEntry> {
    kiki_variants::registry::summaries()
        .iter()
        .filter(|s| s.info.variant.is_none())
        .map(|s| BackendEntry {
            name: s.info.name.to_string(),
            available: s.availability.is_ok(),
            simd_path: s.simd_path.to_string(),
            table_bytes: s.table_bytes as u64,
        })
        .collect()
}

/// Keeps `[A-Za-z0-9._-]`, turning anything else into `-` (file names must be portable).
pub fn file_safe(text: &str) -> String {
    let cleaned: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    let cleaned = cleaned.trim_start_matches('.').to_string();
    if cleaned.is_empty() {
        "report".to_string()
    } else {
        cleaned
    }
}

/// One unique, file-safe stem per plot (a repeated stem gets `-2`, `-3`, …).
fn plot_stems(experiments: &[ExperimentResult]) -> Vec<Vec<String>> {
    let mut used: Vec<String> = Vec::new();
    experiments
        .iter()
        .map(|experiment| {
            experiment
                .plots
                .iter()
                .map(|plot| {
                    let base = file_safe(&plot.file_stem);
                    let mut stem = base.clone();
                    let mut n = 2;
                    while used.contains(&stem) || stem == "report" || stem == "results" {
                        stem = format!("{base}-{n}");
                        n += 1;
                    }
                    used.push(stem.clone());
                    stem
                })
                .collect()
        })
        .collect()
}

/// The whole `report.md`.
fn render_markdown(report: &Report, stems: &[Vec<String>]) -> String {
    let experiments = &report.experiments;
    let mut out = format!("# kiki report: {}, {}\n\n", report.cpu_slug, report.date);
    out.push_str(
        "Every figure below was measured by `kiki report` on the machine described first; \
         raw samples are in [`results.json`](results.json).\n\n",
    );
    out.push_str(report.machine.markdown().trim_end());
    out.push('\n');
    if !report.mode.is_empty() {
        out.push_str(&format!(
            "| Mode | `{}`, {} process invocation{} per timing experiment{} |\n",
            report.mode,
            report.invocations,
            if report.invocations == 1 { "" } else { "s" },
            report.other_invocations()
        ));
        if report.invocations > 1 {
            out.push_str(&format!(
                "| Code layouts | {} |\n",
                crate::layouts::describe(&report.layouts).replace('|', "\\|")
            ));
        }
    }
    for (key, value) in report.conditions.iter().flat_map(|c| c.rows()) {
        out.push_str(&format!("| {key} | {} |\n", value.replace('|', "\\|")));
    }
    out.push('\n');
    out.push_str(&what_this_cpu_says(experiments));
    if !experiments.is_empty() {
        out.push_str("## Experiments\n\n");
        for experiment in experiments {
            out.push_str(&format!(
                "- [{} — {}](#{})\n",
                experiment.id,
                experiment.title,
                anchor(&heading(experiment))
            ));
        }
        out.push('\n');
    }
    for (experiment, stems) in experiments.iter().zip(stems) {
        out.push_str(&format!("## {}\n\n", heading(experiment)));
        if let Some(seconds) = experiment.wall_seconds {
            out.push_str(&format!("*Measured in {seconds:.0} s.*\n\n"));
        }
        if !experiment.method.trim().is_empty() {
            out.push_str(&format!("**Method.** {}\n\n", experiment.method.trim()));
        }
        for (plot, stem) in experiment.plots.iter().zip(stems) {
            out.push_str(&plot_markdown(plot, stem));
        }
        for table in &experiment.tables {
            out.push_str(&table_markdown(table));
        }
        if !experiment.findings.trim().is_empty() {
            out.push_str(&format!("**Findings.** {}\n\n", experiment.findings.trim()));
        }
        if let Some(caveat) = crate::verdicts::caveat(experiment) {
            out.push_str(&format!("{caveat}\n\n"));
        }
    }
    out
}

/// The report's answer first: E11's verdict and fastest backends, then one line from each
/// other experiment (the index's verdict lines). Empty without E11, as in reports made before
/// it, which must re-render unchanged.
/// What an engine on each evaluation pays (E11 from v7): the raw difference per evaluation,
/// bounded by its own A/A where the report has the bounds (v8), as the first screen's clause.
fn paid_words(by_eval: &serde_json::Map<String, Value>) -> String {
    let paid: Vec<String> = by_eval
        .iter()
        .filter_map(|(eval, pairs)| {
            let raw = pairs.get("dbb vs magic-plain")?.get("raw")?;
            let number = |key: &str| raw.get(key).and_then(Value::as_f64);
            let bounded = match (number("bounded_low"), number("bounded_high")) {
                (Some(low), Some(high)) => {
                    format!(", bounded by its A/A [{low:.1}–{high:.1}]")
                }
                _ => String::new(),
            };
            Some(format!(
                "{eval} {:.1} [{:.1}–{:.1}]{bounded}",
                number("ns")?,
                number("low")?,
                number("high")?
            ))
        })
        .collect();
    if paid.is_empty() {
        String::new()
    } else {
        format!(
            "; what an engine on the evaluation pays (the difference under it alone, \
             material's not taken out): {}",
            paid.join("; ")
        )
    }
}

/// How many backends E11's ns-per-node table times in `cell` (`kpp TT 1024 MiB`): its ranking
/// column where the cell has one, else its verdict column; the A/A twin not counted.
fn ranked_backends(search: &ExperimentResult, cell: &str) -> Option<usize> {
    let table = search.tables.iter().find(|t| {
        t.headers
            .iter()
            .any(|h| h.ends_with("ns/node") || h.contains("ns/node ("))
    })?;
    let columns: Vec<usize> = (0..table.headers.len())
        .filter(|&i| table.headers[i].starts_with(&format!("{cell},")))
        .collect();
    let column = columns
        .iter()
        .copied()
        .find(|&i| table.headers[i].contains("(ranking)"))
        .or(columns.first().copied())?;
    Some(
        table
            .rows
            .iter()
            .filter(|row| !row[0].contains("(A/A twin)"))
            .filter(|row| row.get(column).is_some_and(|v| v != "–" && !v.is_empty()))
            .count(),
    )
}

fn what_this_cpu_says(experiments: &[ExperimentResult]) -> String {
    let Some(search) = experiments.iter().find(|e| e.id == "E11") else {
        return String::new();
    };
    let mut out = String::from("## What this CPU says\n\n");
    let summary = |key: &str| {
        search
            .summary
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    };
    // Whether E11's controls passed: the figures below are claims only where they did.
    let controls_passed = summary("controls")
        .and_then(|c| c.get("passed"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if let Some(verdict) = summary("verdict").and_then(Value::as_str) {
        out.push_str(&format!(
            "- **In a search ([E11](#{})):** {verdict}.\n",
            anchor(&heading(search))
        ));
    }
    if let Some(Value::Object(by_eval)) = summary("differences") {
        let list: Vec<String> = by_eval
            .iter()
            .filter_map(|(eval, pairs)| {
                let d = pairs.get("dbb vs magic-plain")?;
                let number = |key: &str| d.get(key).and_then(Value::as_f64).unwrap_or(f64::NAN);
                let kind = if eval == "material" {
                    "plain difference"
                } else {
                    "D"
                };
                // Rule v8's bounded interval, what the verdict reads (absent before v8).
                let bounded = if d.get("bounded_low_ns").is_some() {
                    format!(
                        ", bounded by its controls [{:.1}–{:.1}]",
                        number("bounded_low_ns"),
                        number("bounded_high_ns")
                    )
                } else {
                    String::new()
                };
                Some(format!(
                    "{eval} ({kind}) {:.1} [{:.1}–{:.1}]{bounded}",
                    number("ns"),
                    number("low"),
                    number("high")
                ))
            })
            .collect();
        if !list.is_empty() {
            let reading = if controls_passed {
                "the controls passed"
            } else {
                "the controls failed, so these are figures, not a verdict"
            };
            // The same-code A/A beside D: an effect smaller than it is not the backend's.
            let aa = aa_figures(summary("controls").and_then(|c| c.get("aa")));
            let aa = if aa.is_empty() {
                String::new()
            } else {
                format!(
                    "; dbb against itself (the A/A, the same code timed twice): {}",
                    aa.join("; ")
                )
            };
            // Rule version 5 reads 90 % intervals; the versions before, 95 %.
            let confidence = match summary("rule_version").and_then(Value::as_u64) {
                Some(v) if v >= 5 => "90 %",
                _ => "95 %",
            };
            let paid = paid_words(by_eval);
            out.push_str(&format!(
                "- **What magic-plain costs against dbb per node** (ns, {confidence}; D = the \
                 difference under an evaluation minus the same under `material`, what seed \
                 004 is about; {reading}): {}{paid}{aa}.\n",
                list.join("; ")
            ));
        }
    }
    // The fastest backend per evaluation, from the comparison E11 recorded between the two
    // fastest (the same in reports made before the summary's `best` said "not separated").
    // A failed control withholds the order and the "level" alike, as it does the verdict.
    let fastest: Vec<String> = search
        .comparisons
        .iter()
        .map(|record| {
            let c = &record.comparison;
            let ratio = format!("×{:.3} [{:.3}–{:.3}]", c.ratio, c.low, c.high);
            // How many backends the cell ranks: the ranking cell times every base backend, a
            // verdict cell only the rule's five.
            let among = match ranked_backends(search, &record.cell) {
                Some(n) => format!(" (of {n} backends timed there)"),
                None => String::new(),
            };
            // The summary's `best` says "level" where the interval lies inside the threshold.
            let eval = record.cell.split(' ').next().unwrap_or_default();
            let level = summary("best")
                .and_then(|b| b.get(eval))
                .and_then(Value::as_str)
                == Some("level");
            if !controls_passed {
                format!(
                    "{}{among}: {} takes {ratio} {}'s time",
                    record.cell, record.a, record.b
                )
            } else if c.claim == crate::stats::Claim::Slower {
                format!(
                    "{}{among}: {} ({} takes {ratio} its time)",
                    record.cell, record.b, record.a
                )
            } else if level {
                format!(
                    "{}{among}: {} and {} level, inside the threshold ({ratio})",
                    record.cell, record.b, record.a
                )
            } else {
                format!(
                    "{}{among}: {} and {} not separated beyond the threshold ({ratio})",
                    record.cell, record.b, record.a
                )
            }
        })
        .collect();
    if !fastest.is_empty() && controls_passed {
        out.push_str(&format!(
            "- **Fastest backend per node** (2 MiB pages): {}.\n",
            fastest.join("; ")
        ));
    } else if !fastest.is_empty() {
        out.push_str(&format!(
            "- **The two fastest backends per node** (2 MiB pages; a control failed, so these \
             are figures, not a claim): {}.\n",
            fastest.join("; ")
        ));
    }
    for experiment in experiments.iter().filter(|e| e.id != "E11") {
        let line = crate::verdicts::verdict(experiment)
            .map_or_else(|e| format!("(verdict unreadable: {e})"), |v| v.line);
        out.push_str(&format!(
            "- [{}](#{}): {line}\n",
            experiment.id,
            anchor(&heading(experiment))
        ));
    }
    out.push('\n');
    out
}

fn heading(experiment: &ExperimentResult) -> String {
    format!("{} — {}", experiment.id, experiment.title)
}

/// The anchor of an experiment's section in report.md (`e7--cache-pressure…`, without `#`).
pub fn section_anchor(experiment: &ExperimentResult) -> String {
    anchor(&heading(experiment))
}

/// The anchor GitHub gives a heading: lower case, spaces to `-`, punctuation dropped.
fn anchor(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn plot_markdown(plot: &Plot, stem: &str) -> String {
    let alt = plot.title.replace(['[', ']'], "");
    format!("![{alt}]({stem}.png)\n\n[{alt} (SVG)]({stem}.svg)\n\n")
}

/// A Markdown table; `|` inside a cell is escaped and line breaks become spaces.
pub fn table_markdown(table: &Table) -> String {
    if table.headers.is_empty() {
        return String::new();
    }
    let cell = |text: &str| text.replace('|', "\\|").replace(['\n', '\r'], " ");
    let row = |cells: &mut dyn Iterator<Item = String>| {
        let mut line = String::from("|");
        for c in cells {
            line.push(' ');
            line.push_str(&c);
            line.push_str(" |");
        }
        line.push('\n');
        line
    };
    let columns = table.headers.len();
    let mut out = row(&mut table.headers.iter().map(|h| cell(h)));
    out.push_str(&row(&mut (0..columns).map(|_| "---".to_string())));
    for cells in &table.rows {
        let padded = (0..columns).map(|i| cells.get(i).map(|c| cell(c)).unwrap_or_default());
        out.push_str(&row(&mut padded.into_iter()));
    }
    out.push('\n');
    out
}

/// Each evaluation's A/A as the headline quotes it, `nnue 2.1 [-11.4–15.5] (p 0.780, Holm
/// 1.00)`: its p beside it, since an interval that excludes 0 can pass the rule's test (Holm
/// over the run's controls), and the reader sees by how much.
fn aa_figures(aa: Option<&Value>) -> Vec<String> {
    let Some(Value::Object(by_eval)) = aa else {
        return Vec::new();
    };
    by_eval
        .iter()
        .map(|(eval, d)| {
            let number = |key: &str| d.get(key).and_then(Value::as_f64).unwrap_or(f64::NAN);
            let p = match (d.get("p_raw"), d.get("p")) {
                (Some(_), Some(_)) => {
                    format!(" (p {:.3}, Holm {:.2})", number("p_raw"), number("p"))
                }
                _ => String::new(),
            };
            format!(
                "{eval} {:.1} [{:.1}–{:.1}]{p}",
                number("ns"),
                number("low"),
                number("high")
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::readback::parse_report;

    /// E11's line on the fastest backend claims an order or a "level" only where its controls
    /// passed; otherwise it gives the figures and says they are no claim, as the verdict does.
    #[test]
    fn the_fastest_search_backend_is_claimed_only_under_passing_controls() {
        let search = |passed: bool| -> ExperimentResult {
            serde_json::from_value(serde_json::json!({
                "id": "E11", "title": "Seed 004 in a search", "method": "", "findings": "",
                "series": [],
                "summary": {
                    "verdict": "v",
                    "controls": {"passed": passed, "aa": {}, "negative": {}},
                    "best": {"nnue": "level", "kpp": "pext"},
                },
                "comparisons": [
                    {"cell": "nnue TT 1024 MiB", "a": "dbb", "b": "pext", "ratio": 1.004,
                     "low": 0.989, "high": 1.019, "invocations": 10, "rounds": 20,
                     "claim": "level"},
                    {"cell": "kpp TT 1024 MiB", "a": "magic", "b": "pext", "ratio": 1.05,
                     "low": 1.04, "high": 1.06, "invocations": 10, "rounds": 20,
                     "claim": "slower"},
                ],
            }))
            .expect("a valid E11 result")
        };
        let passed = what_this_cpu_says(&[search(true)]);
        assert!(passed.contains("**Fastest backend per node**"), "{passed}");
        assert!(
            passed.contains("pext and dbb level, inside the threshold"),
            "{passed}"
        );
        assert!(passed.contains("pext (magic takes ×1.050"), "{passed}");
        let failed = what_this_cpu_says(&[search(false)]);
        assert!(!failed.contains("Fastest backend"), "{failed}");
        assert!(
            !failed.contains("level") && !failed.contains("its time)"),
            "{failed}"
        );
        assert!(
            failed.contains("a control failed, so these are figures, not a claim"),
            "{failed}"
        );
        assert!(failed.contains("nnue TT 1024 MiB: dbb takes ×1.004 [0.989–1.019] pext's time"));
    }

    #[test]
    fn a_bad_results_json_is_named_in_one_line() {
        let cases = [
            ("[]", "results.json is an array, not an object"),
            ("null", "results.json is null, not an object"),
            ("{}", "results.json has no schema_version"),
            (
                r#"{"schema_version": 999, "machine": {}, "experiments": []}"#,
                "results.json has schema_version 999, this kiki reads 1, 2 and 3",
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
            assert_eq!(parse_report(text).unwrap_err(), expected, "{text}");
        }
        let missing =
            parse_report(r#"{"schema_version": 2, "machine": {}, "experiments": [{"id": "E1"}]}"#)
                .unwrap_err();
        assert!(
            missing.starts_with("results.json: missing field"),
            "{missing}"
        );
    }

    #[test]
    fn anchors_and_tables() {
        assert_eq!(
            anchor("E7 — cache pressure (the seed's argument)"),
            "e7--cache-pressure-the-seeds-argument"
        );
        let table = Table {
            headers: vec!["backend".into(), "a|b".into()],
            rows: vec![vec!["qugiy".into(), "1\n2".into()], vec!["short".into()]],
        };
        assert_eq!(
            table_markdown(&table),
            "| backend | a\\|b |\n| --- | --- |\n| qugiy | 1 2 |\n| short |  |\n\n"
        );
        assert_eq!(file_safe("amd epyc/7B13"), "amd-epyc-7B13");
        assert_eq!(file_safe("..hidden"), "hidden");
    }

    /// A scratch folder under the system's temporary folder, removed at the end.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("kiki-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn publishing_from_many_threads_loses_no_report() {
        let out = scratch("publish-race");
        const REPORTS: usize = 24;
        let temps: Vec<PathBuf> = (0..REPORTS)
            .map(|i| {
                let temp = out.join(format!(".tmp-{i}"));
                fs::create_dir(&temp).unwrap();
                fs::write(temp.join("results.json"), i.to_string()).unwrap();
                temp
            })
            .collect();
        // An existing report and a dangling link hold the first two names.
        fs::create_dir(out.join("cpu-2026-11-22")).unwrap();
        fs::write(out.join("cpu-2026-11-22").join("results.json"), "old").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("/nonexistent-kiki", out.join("cpu-2026-11-22-2")).unwrap();
        let published: Vec<PathBuf> = std::thread::scope(|scope| {
            let handles: Vec<_> = temps
                .iter()
                .map(|temp| scope.spawn(|| publish_folder(temp, &out, "cpu-2026-11-22").unwrap()))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut seen: Vec<String> = published
            .iter()
            .map(|dir| fs::read_to_string(dir.join("results.json")).unwrap())
            .collect();
        seen.sort_by_key(|text| text.parse::<usize>().unwrap());
        let expected: Vec<String> = (0..REPORTS).map(|i| i.to_string()).collect();
        assert_eq!(seen, expected, "every prepared report is published once");
        assert_eq!(
            fs::read_to_string(out.join("cpu-2026-11-22").join("results.json")).unwrap(),
            "old",
            "the existing report is untouched"
        );
        assert!(!published.contains(&out.join("cpu-2026-11-22")));
        assert!(!published.contains(&out.join("cpu-2026-11-22-2")));
        fs::remove_dir_all(&out).unwrap();
    }

    #[test]
    fn a_failed_publish_keeps_the_measured_data() {
        let out = scratch("publish-fail");
        let temp = out.join(".tmp-x");
        fs::create_dir(&temp).unwrap();
        fs::write(temp.join("results.json"), "data").unwrap();
        // The target's parent does not exist: every rename fails with a real error.
        let error = publish_folder(&temp, &out.join("missing"), "cpu").unwrap_err();
        assert!(error.contains("kept in"), "{error}");
        assert_eq!(
            fs::read_to_string(temp.join("results.json")).unwrap(),
            "data"
        );
        fs::remove_dir_all(&out).unwrap();
    }

    /// A schema-1 report (the retired amd-epyc-f26-m2-2026-11-22, every list cut to three
    /// entries) still reads back, as the index and `kiki render` need of old results.
    #[test]
    fn a_schema_1_report_reads_back() {
        let path = Path::new(crate::WORKSPACE_ROOT)
            .join("tests/data/reports/schema-1-amd-epyc-f26-m2.json");
        let report = read_report(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(report.schema_version, 1);
        assert_eq!(report.experiments.len(), 9);
        assert!(report.experiments.iter().all(|e| !e.findings.is_empty()));
    }
}
