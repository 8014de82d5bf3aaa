//! `reports/README.md`, the index of the published reports: one current report per CPU (the
//! newest complete one: mode `full`, every default experiment), each experiment's verdict in a
//! line with its best backend where a winner is clearly decided, the cache argument across
//! CPUs, each report against the one it replaced (read from git), and the retired reports with
//! the commit that holds each (`superseded.json`, data kept beside the reports).

mod cache_argument;
mod layouts;
mod replaced;
mod search_argument;

pub use cache_argument::cache_argument;
pub use layouts::layouts;
pub use replaced::{predecessor, read_from_git, Replacement};
pub use search_argument::search_argument;

use crate::readback::read_report;
use crate::report::{section_anchor, table_markdown};
use crate::results::{Report, Table};
use crate::verdicts;
use kiki_core::input::quote_input;
use kiki_core::units::compact_bytes;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The retired reports' list, kept as `superseded.json` beside the reports.
pub const SUPERSEDED: &str = "superseded.json";

/// One report folder whose `results.json` read back (`read_report`).
pub struct Entry {
    pub folder: String,
    pub results: Report,
}

/// `superseded.json`: every report folder retired from `reports/`, with the commit whose tree
/// still holds it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Superseded {
    pub about: String,
    pub reports: Vec<Retired>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Retired {
    pub folder: String,
    pub cpu_slug: String,
    pub cpu: String,
    pub date: String,
    /// `full` or `quick`; `None` for reports made before the mode was recorded.
    pub mode: Option<String>,
    pub experiments: Vec<String>,
    /// The commit that added the folder (`git show <commit>:reports/<folder>/report.md`).
    pub commit: String,
    /// The commit of the code that measured it.
    pub code_commit: String,
    pub why: String,
}

/// The experiments a complete report has: those `kiki report` runs by default.
pub fn default_experiments() -> Vec<&'static str> {
    crate::experiments::CATALOGUE
        .iter()
        .filter(|e| e.runs_by_default)
        .map(|e| e.id.as_str())
        .collect()
}

/// Why `report` is not a complete report (mode `full`, every default experiment), if it is not.
pub fn incomplete(report: &Report) -> Option<String> {
    let mut why = Vec::new();
    if report.mode != "full" {
        why.push(if report.mode.is_empty() {
            format!("mode not recorded (schema {})", report.schema_version)
        } else {
            format!("mode {}", report.mode)
        });
    }
    let missing: Vec<&str> = default_experiments()
        .into_iter()
        .filter(|id| report.experiment(id).is_none())
        .collect();
    if !missing.is_empty() {
        why.push(format!("lacks {}", missing.join(", ")));
    }
    (!why.is_empty()).then(|| why.join("; "))
}

/// A folder's place in time: its date, then its `-N` suffix (none is 1).
fn order_key(entry: &Entry) -> (String, u32) {
    let base = format!("{}-{}", entry.results.cpu_slug, entry.results.date);
    let n = entry
        .folder
        .strip_prefix(&base)
        .and_then(|rest| rest.strip_prefix('-'))
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    (entry.results.date.clone(), n)
}

/// The current report per CPU (newest complete, else newest), in CPU order, and the folders
/// that should be retired beside them, each with why.
fn choose(entries: &[Entry]) -> (Vec<&Entry>, Vec<(String, String)>) {
    let mut slugs: Vec<&str> = entries
        .iter()
        .map(|e| e.results.cpu_slug.as_str())
        .collect();
    slugs.sort_unstable();
    slugs.dedup();
    let mut current = Vec::new();
    let mut stale = Vec::new();
    for slug in slugs {
        let mut same: Vec<&Entry> = entries
            .iter()
            .filter(|e| e.results.cpu_slug == slug)
            .collect();
        same.sort_by_key(|e| order_key(e));
        let chosen = same
            .iter()
            .rev()
            .find(|e| incomplete(&e.results).is_none())
            .or(same.last())
            .copied()
            .expect("one entry per slug");
        for e in same.iter().filter(|e| e.folder != chosen.folder) {
            stale.push((e.folder.clone(), format!("superseded by {}", chosen.folder)));
        }
        current.push(chosen);
    }
    (current, stale)
}

/// One CPU's section: its report's header line and a table of verdicts.
fn cpu_section(entry: &Entry) -> String {
    let r = &entry.results;
    let m = &r.machine;
    let link = format!("[{0}]({0}/report.md)", entry.folder);
    let caches: Vec<String> = m
        .caches
        .iter()
        .filter(|c| c.kind != "Instruction")
        .map(|c| format!("L{} {}", c.level, compact_bytes(c.bytes as f64)))
        .collect();
    let mut out = format!("\n## {} ({})\n\n", m.cpu_model, r.cpu_slug);
    out.push_str(&format!(
        "Report {link}: commit `{}` ({}), mode `{}`, {} invocation{} per timing experiment{}, \
         {}; CPUID family {} model {}{}.\n\n",
        m.git_commit.chars().take(7).collect::<String>(),
        m.git_tree,
        if r.mode.is_empty() { "—" } else { &r.mode },
        r.invocations,
        if r.invocations == 1 { "" } else { "s" },
        r.other_invocations(),
        r.date,
        m.family,
        m.model,
        if caches.is_empty() {
            String::new()
        } else {
            format!("; caches {}", caches.join(", "))
        },
    ));
    if let Some(why) = incomplete(r) {
        out.push_str(&format!("Not a complete report: {why}.\n\n"));
    }
    let mut table = Table {
        headers: ["experiment", "verdict", "best (clearly decided)"]
            .map(String::from)
            .to_vec(),
        rows: Vec::new(),
    };
    for x in &r.experiments {
        // A summary this kiki cannot read is said in its row, not a failed index.
        let verdict = verdicts::verdict(x).unwrap_or_else(|e| verdicts::Verdict {
            line: format!("summary not readable: {e}"),
            best: None,
        });
        table.rows.push(vec![
            format!(
                "[{} {}]({}/report.md#{})",
                x.id,
                x.title,
                entry.folder,
                section_anchor(x)
            ),
            verdict.line,
            verdict.best.unwrap_or_else(|| "—".into()),
        ]);
    }
    out.push_str(&table_markdown(&table));
    out
}

fn superseded_section(superseded: &Superseded, current: &[&Entry]) -> String {
    let mut out = String::new();
    let orphans: Vec<&Retired> = {
        let mut newest: Vec<&Retired> = Vec::new();
        for r in superseded
            .reports
            .iter()
            .filter(|r| !current.iter().any(|c| c.results.cpu_slug == r.cpu_slug))
        {
            match newest.iter_mut().find(|n| n.cpu_slug == r.cpu_slug) {
                Some(n)
                    if (n.date.as_str(), n.folder.len(), n.folder.as_str())
                        < (r.date.as_str(), r.folder.len(), r.folder.as_str()) =>
                {
                    *n = r
                }
                Some(_) => {}
                None => newest.push(r),
            }
        }
        newest
    };
    if !orphans.is_empty() {
        out.push_str("\n## CPUs without a current report\n\nNo complete report of these CPUs is published; their newest one is retired below:\n\n");
        for r in orphans {
            out.push_str(&format!(
                "- {} ({}): `{}` at commit `{}` ({})\n",
                r.cpu, r.cpu_slug, r.folder, r.commit, r.why
            ));
        }
    }
    if superseded.reports.is_empty() {
        return out;
    }
    out.push_str(
        "\n## Superseded reports\n\nRetired from this folder; each is whole in the tree of its \
         commit (`git show <commit>:reports/<folder>/report.md`). Listed in `superseded.json`.\n\n",
    );
    let mut table = Table {
        headers: [
            "report",
            "CPU",
            "mode",
            "experiments",
            "commit",
            "measured by",
            "why retired",
        ]
        .map(String::from)
        .to_vec(),
        rows: Vec::new(),
    };
    for r in &superseded.reports {
        table.rows.push(vec![
            format!("`{}`", r.folder),
            r.cpu.clone(),
            r.mode.clone().unwrap_or_else(|| "—".into()),
            r.experiments.join(", "),
            format!("`{}`", r.commit),
            format!("`{}`", r.code_commit),
            r.why.clone(),
        ]);
    }
    out.push_str(&table_markdown(&table));
    out
}

/// The whole `README.md` for the current reports, each against the report it replaced, and
/// the retired ones.
pub fn render(current: &[&Entry], superseded: &Superseded, replacements: &[Replacement]) -> String {
    let mut out = String::from(
        "# kiki reports\n\nOne current report per CPU: the newest complete one (`kiki report` in \
         full mode, with every default experiment; E9 optional). Older and incomplete reports are \
         retired from this folder and kept by git (see [Superseded reports](#superseded-reports)). \
         This page is rebuilt by `kiki report-index` from each folder's `results.json` and \
         `superseded.json`; do not edit it by hand.\n\nEach verdict is one line; its experiment \
         links to the section of the report that says how. A best backend is named only where \
         every comparison recorded against the winner claims the other side slower beyond the \
         report's threshold.\n",
    );
    if current.is_empty() {
        out.push_str("\nNo current reports: run `kiki report`.\n");
    }
    for entry in current {
        out.push_str(&cpu_section(entry));
    }
    out.push_str(&search_argument(current).0);
    out.push_str(&layouts(current));
    out.push_str(&cache_argument(current).0);
    out.push_str(&replaced::section(replacements));
    out.push_str(&superseded_section(superseded, current));
    out
}

/// What `rebuild` did: how many folders read back, how many of them are current (one per
/// CPU), each one it skipped with the reason (`'folder': why`), and each folder that should be
/// retired (`'folder': why`).
#[derive(Debug, Default)]
pub struct Rebuilt {
    pub indexed: usize,
    pub current: usize,
    pub skipped: Vec<String>,
    pub stale: Vec<String>,
}

/// Reads `dir/superseded.json`; none is an empty list.
pub fn read_superseded(dir: &Path) -> Result<Superseded, String> {
    let path = dir.join(SUPERSEDED);
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Superseded::default()),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// Reads every report folder under `dir` (hidden and temporary folders skipped), indexes those
/// whose `results.json` reads back (`read_report` checks its shape and schema) and writes
/// `dir/README.md` (and `dir/cache_argument.svg` where there is a plot). A folder that fails is
/// left out and reported in `skipped`; only a `dir` that cannot be listed, a bad
/// `superseded.json` or a file that cannot be written is an error.
pub fn rebuild(dir: &Path) -> Result<Rebuilt, String> {
    let listing =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut entries = Vec::new();
    let mut skipped = Vec::new();
    for item in listing {
        let item = item.map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        let folder = item.file_name().to_string_lossy().into_owned();
        let path = item.path().join("results.json");
        if folder.starts_with('.') || !item.path().is_dir() || !path.exists() {
            continue;
        }
        match read_report(&path) {
            Ok(results) => entries.push(Entry { folder, results }),
            Err(reason) => skipped.push(format!("{}: {reason}", quote_input(&folder))),
        }
    }
    // Listing order depends on the file system; messages should not.
    skipped.sort();
    let superseded = read_superseded(dir)?;
    let (current, stale) = choose(&entries);
    let replacements: Vec<Replacement> = current
        .iter()
        .filter_map(|&entry| {
            let retired = predecessor(entry, &superseded)?;
            Some(Replacement {
                current: entry,
                retired,
                before: read_from_git(dir, retired),
            })
        })
        .collect();
    let text = render(&current, &superseded, &replacements);
    write_plot(dir, "cache_argument.svg", cache_argument(&current).1)?;
    write_plot(dir, "search_argument.svg", search_argument(&current).1)?;
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
        current: current.len(),
        skipped,
        stale: stale
            .into_iter()
            .map(|(folder, why)| format!("{}: {why}", quote_input(&folder)))
            .collect(),
    })
}

/// Writes `dir/name` from `plot`, or removes it where there is none (a plot of reports no
/// longer current is not left behind).
fn write_plot(dir: &Path, name: &str, plot: Option<crate::results::Plot>) -> Result<(), String> {
    let path = dir.join(name);
    match plot {
        Some(plot) => {
            let svg = crate::plot::render_svg(&plot)?;
            std::fs::write(&path, svg).map_err(|e| format!("cannot write {}: {e}", path.display()))
        }
        None => {
            let _ = std::fs::remove_file(&path);
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests;
