//! Writes a report folder: `report.md`, every plot as SVG and PNG, and `results.json`.
//!
//! The folder is built under a hidden temporary name beside its final place and renamed only
//! when every file is written, so a folder named `<cpu-slug>-<date>` is always complete; an
//! existing report is never overwritten (the new one gets a `-2`, `-3`, … suffix).

use super::plot;
use super::results::{Experiment, Plot, Table, SCHEMA_VERSION};
use crate::json::Json;
use std::fs;
use std::path::{Path, PathBuf};

/// Writes the report for `experiments` into a new folder `out_dir/<slug>-<date>[-N]` and
/// returns its path. `machine_md` is the machine section (Markdown, with its own heading);
/// `machine_json` goes into `results.json` as is. Errors are one line for the user.
pub fn write_report(
    out_dir: &Path,
    slug: &str,
    date: &str,
    machine_md: &str,
    machine_json: Json,
    experiments: &[Experiment],
) -> Result<PathBuf, String> {
    fs::create_dir_all(out_dir)
        .map_err(|e| format!("cannot create output folder {}: {e}", out_dir.display()))?;
    let base = file_safe(&format!("{slug}-{date}"));
    let temp = out_dir.join(format!(".tmp-{base}-{}", std::process::id()));
    if temp.exists() {
        // Left by an earlier run of this same process id that died: never complete, safe to drop.
        fs::remove_dir_all(&temp).map_err(|e| format!("cannot clear {}: {e}", temp.display()))?;
    }
    fs::create_dir(&temp)
        .map_err(|e| format!("cannot write into output folder {}: {e}", out_dir.display()))?;
    let written = write_files(&temp, slug, date, machine_md, machine_json, experiments)
        .and_then(|()| publish(&temp, out_dir, &base));
    if written.is_err() {
        let _ = fs::remove_dir_all(&temp);
    }
    written
}

/// Moves the finished temporary folder to the first free name `base`, `base-2`, `base-3`, ….
fn publish(temp: &Path, out_dir: &Path, base: &str) -> Result<PathBuf, String> {
    for attempt in 1..10_000 {
        let name = if attempt == 1 {
            base.to_string()
        } else {
            format!("{base}-{attempt}")
        };
        let target = out_dir.join(&name);
        if target.exists() {
            continue;
        }
        return fs::rename(temp, &target)
            .map(|()| target.clone())
            .map_err(|e| {
                format!(
                    "cannot rename {} to {}: {e}",
                    temp.display(),
                    target.display()
                )
            });
    }
    Err(format!(
        "{}: no free report folder name for {base}",
        out_dir.display()
    ))
}

fn write_files(
    dir: &Path,
    slug: &str,
    date: &str,
    machine_md: &str,
    machine_json: Json,
    experiments: &[Experiment],
) -> Result<(), String> {
    let stems = plot_stems(experiments);
    for (experiment, stems) in experiments.iter().zip(&stems) {
        for (plot, stem) in experiment.plots.iter().zip(stems) {
            let svg = plot::render_svg(plot)?;
            write(&dir.join(format!("{stem}.svg")), svg.as_bytes())?;
            plot::render_png(plot, &dir.join(format!("{stem}.png")))?;
        }
    }
    let markdown = render_markdown(slug, date, machine_md, experiments, &stems);
    write(&dir.join("report.md"), markdown.as_bytes())?;
    let json = results_json(slug, date, machine_json, experiments);
    write(&dir.join("results.json"), (json.render() + "\n").as_bytes())
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// `results.json`: schema version, machine, the backends' table bytes, and each experiment's
/// raw samples and summary.
pub fn results_json(slug: &str, date: &str, machine: Json, experiments: &[Experiment]) -> Json {
    Json::object([
        ("schema_version", Json::Int(SCHEMA_VERSION.into())),
        ("kiki_version", Json::str(env!("CARGO_PKG_VERSION"))),
        ("cpu_slug", Json::str(slug)),
        ("date", Json::str(date)),
        ("machine", machine),
        ("backends", backends_json()),
        (
            "experiments",
            Json::Array(experiments.iter().map(Experiment::to_json).collect()),
        ),
    ])
}

/// The backends of the binary that wrote the report: name, availability, code path, table bytes.
fn backends_json() -> Json {
    Json::Array(
        crate::registry::summaries()
            .iter()
            .map(|s| {
                Json::object([
                    ("name", Json::str(s.info.name)),
                    ("available", Json::Bool(s.availability.is_ok())),
                    ("simd_path", Json::str(s.simd_path)),
                    ("table_bytes", Json::Int(s.table_bytes as i128)),
                ])
            })
            .collect(),
    )
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
fn plot_stems(experiments: &[Experiment]) -> Vec<Vec<String>> {
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
fn render_markdown(
    slug: &str,
    date: &str,
    machine_md: &str,
    experiments: &[Experiment],
    stems: &[Vec<String>],
) -> String {
    let mut out = format!("# kiki report: {slug}, {date}\n\n");
    out.push_str(
        "Every figure below was measured by `kiki report` on the machine described first; \
         raw samples are in [`results.json`](results.json).\n\n",
    );
    out.push_str(machine_md.trim_end());
    out.push_str("\n\n");
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
    }
    out
}

fn heading(experiment: &Experiment) -> String {
    format!("{} — {}", experiment.id, experiment.title)
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
