//! Each current report against the one of its CPU it replaced, read from git at the commit
//! `superseded.json` lists: whether the verdicts agree and how far the key figures moved — the
//! same CPU model on another host or another day, the test a published verdict has to pass.

use super::{Entry, Retired, Superseded};
use crate::readback::parse_report;
use crate::report::table_markdown;
use crate::results::{ExperimentResult, Report, Table};
use crate::verdicts::{self, num};
use std::path::Path;

/// A current report's predecessor: the retired report, and its results as read from git (or
/// why they could not be read).
pub struct Replacement<'a> {
    pub current: &'a Entry,
    pub retired: &'a Retired,
    pub before: Result<Report, String>,
}

/// The retired report `current` replaced: the newest full one of its CPU, older than it,
/// whose retirement names `current`'s folder, else the newest full one of its CPU older than it.
pub fn predecessor<'a>(current: &Entry, superseded: &'a Superseded) -> Option<&'a Retired> {
    let now = (&current.results.date, current.folder.len(), &current.folder);
    let same_cpu = || {
        superseded.reports.iter().filter(move |r| {
            r.cpu_slug == current.results.cpu_slug
                && r.mode.as_deref() == Some("full")
                && (&r.date, r.folder.len(), &r.folder) < now
        })
    };
    let newest = |list: Vec<&'a Retired>| {
        list.into_iter().max_by(|a, b| {
            (&a.date, a.folder.len(), &a.folder).cmp(&(&b.date, b.folder.len(), &b.folder))
        })
    };
    let named = format!("superseded by {}", current.folder);
    newest(same_cpu().filter(|r| r.why.contains(&named)).collect())
        .or_else(|| newest(same_cpu().collect()))
}

/// `retired`'s `results.json` from the git tree of its commit: `git show
/// <commit>:./<folder>/results.json` run in the reports folder `dir`, else (a `dir` outside the
/// repository, such as a copy of the reports) `git show <commit>:reports/<folder>/results.json`
/// in the working directory's repository.
pub fn read_from_git(dir: &Path, retired: &Retired) -> Result<Report, String> {
    let beside = format!("{}:./{}/results.json", retired.commit, retired.folder);
    let text = git_show(Some(dir), &beside).or_else(|first| {
        let from_root = format!("{}:reports/{}/results.json", retired.commit, retired.folder);
        git_show(None, &from_root).map_err(|_| first)
    })?;
    parse_report(&text).map_err(|e| format!("{beside}: {e}"))
}

/// `git [-C dir] show spec`'s output, or its first line of complaint.
fn git_show(dir: Option<&Path>, spec: &str) -> Result<String, String> {
    let mut command = std::process::Command::new("git");
    if let Some(dir) = dir {
        command.arg("-C").arg(dir);
    }
    let output = command
        .args(["show", spec])
        .output()
        .map_err(|e| format!("git could not run: {e}"))?;
    if !output.status.success() {
        let said = String::from_utf8_lossy(&output.stderr);
        return Err(format!(
            "git show {spec}: {}",
            said.lines().next().unwrap_or("failed")
        ));
    }
    String::from_utf8(output.stdout).map_err(|e| format!("{spec}: {e}"))
}

/// The part of an experiment's verdict two reports of one CPU should share: its decided best
/// backends ("none decided" where no winner is clear) and, for E7 and E11, seed 004's verdict
/// words; `None` for E6, whose verdict is its measured figures (compared as figures).
pub fn outcome(experiment: &ExperimentResult) -> Option<String> {
    let mut parts = Vec::new();
    match experiment.id.as_str() {
        "E6" => return None,
        "E7" => {
            let s: crate::experiments::e7_cache_pressure::summary::Summary =
                experiment.summary_as().ok()?;
            parts.extend(s.seed_004_words().map(|w| format!("seed 004 {w}")));
        }
        "E11" => {
            let s: crate::experiments::e11_search::summary::Summary =
                experiment.summary_as().ok()?;
            parts.extend(
                s.verdict_by_eval
                    .iter()
                    .map(|(eval, verdict)| format!("{eval}: seed 004 {verdict}")),
            );
        }
        _ => {}
    }
    let verdict = verdicts::verdict(experiment).ok()?;
    parts.push(
        verdict
            .best
            .map_or("none decided".into(), |b| format!("best {b}")),
    );
    Some(parts.join("; "))
}

/// A figure the index follows across a CPU's reports: a name, a value and its unit.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    pub name: String,
    pub value: f64,
    pub unit: &'static str,
    /// Whether its change reads as a percentage (not for a difference such as E11's D).
    pub relative: bool,
}

/// The key figures of `report`: E2's peer ratios, E6's level latencies, E7's table-miss
/// costs and E11's rule difference D per evaluation.
pub fn figures(report: &Report) -> Vec<Figure> {
    use crate::experiments::{e11_search, e2_movegen, e6_memory, e7_cache_pressure};
    let mut out = Vec::new();
    let mut push = |name: String, value: f64, unit: &'static str, relative: bool| {
        if value.is_finite() {
            out.push(Figure {
                name,
                value,
                unit,
                relative,
            });
        }
    };
    if let Some(s) = summary::<e2_movegen::summary::Summary>(report, "E2") {
        for r in &s.peer_ratios {
            push(
                format!("E2 {} ÷ best, {}", r.peer, r.task),
                r.ratio,
                "×",
                true,
            );
        }
    }
    if let Some(levels) =
        summary::<e6_memory::summary::Summary>(report, "E6").and_then(|s| s.effective_levels)
    {
        for level in &levels {
            push(format!("E6 {} latency", level.level), level.ns, "ns", true);
        }
    }
    if let Some(costs) =
        summary::<e7_cache_pressure::summary::Summary>(report, "E7").and_then(|s| s.table_miss_cost)
    {
        for (backend, cost) in costs.iter() {
            push(
                format!("E7 table-miss cost, {backend}"),
                cost.ns,
                "ns",
                true,
            );
        }
    }
    if let Some(s) = summary::<e11_search::summary::Summary>(report, "E11") {
        for (eval, _) in s.verdict_by_eval.iter() {
            if let Some(d) = s.rule_difference(eval) {
                push(
                    format!("E11 D (dbb vs magic-plain), {eval}"),
                    d.ns,
                    "ns/node",
                    false,
                );
            }
        }
    }
    out
}

fn summary<T: serde::de::DeserializeOwned>(report: &Report, id: &str) -> Option<T> {
    report.experiment(id)?.summary_as().ok()
}

/// The index's section: per current report with a predecessor, the verdicts side by side
/// (agreeing where their outcomes are the same) and the key figures before and now.
pub fn section(replacements: &[Replacement]) -> String {
    if replacements.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "\n## Each report against the one it replaced\n\nThe same CPU model measured again \
         (another host, or another day): each experiment's verdict beside the replaced \
         report's — they agree where the decided best backends (or that none is decided) and, \
         for E7 and E11, seed 004's verdict words are the same — and the key figures before \
         and now. The replaced \
         report is read from git at the commit listed below.\n",
    );
    for r in replacements {
        out.push_str(&format!(
            "\n### {} replacing `{}` (commit `{}`, measured by `{}`)\n\n",
            r.current.folder, r.retired.folder, r.retired.commit, r.retired.code_commit
        ));
        match &r.before {
            Err(why) => out.push_str(&format!("Not compared: {why}.\n")),
            Ok(before) => out.push_str(&compare(before, &r.current.results)),
        }
    }
    out
}

/// The verdict table and the figure table of `now` against `before`.
pub fn compare(before: &Report, now: &Report) -> String {
    let mut verdict_rows = Vec::new();
    let (mut agree, mut compared) = (0, 0);
    for x in &now.experiments {
        let Some(old) = before.experiment(&x.id) else {
            continue;
        };
        let (was, is) = (outcome(old), outcome(x));
        let same = match (&was, &is) {
            (None, None) => "nothing to compare",
            (a, b) if a == b => "yes",
            _ => "no",
        };
        if same != "nothing to compare" {
            compared += 1;
            agree += usize::from(same == "yes");
        }
        let line = |e: &ExperimentResult| {
            verdicts::verdict(e).map_or_else(|e| format!("not readable: {e}"), |v| v.line)
        };
        verdict_rows.push(vec![x.id.clone(), line(old), line(x), same.to_string()]);
    }
    let mut out = format!(
        "Verdicts agree in {agree} of the {compared} experiments compared (E6 by its figures \
         alone).\n\n"
    );
    out.push_str(&table_markdown(&Table {
        headers: ["experiment", "before", "now", "agree"]
            .map(String::from)
            .to_vec(),
        rows: verdict_rows,
    }));
    let old_figures = figures(before);
    let rows: Vec<Vec<String>> = figures(now)
        .into_iter()
        .filter_map(|f| {
            let old = old_figures.iter().find(|o| o.name == f.name)?;
            let change = f.value - old.value;
            // A percentage only of a figure that is itself a size, not a difference near zero
            // (a control's cost, E11's D), where it would say nothing.
            let relative = if f.relative && old.value.abs() >= 0.1 {
                format!(" ({:+.0} %)", 100.0 * change / old.value.abs())
            } else {
                String::new()
            };
            Some(vec![
                f.name.clone(),
                format!("{} {}", num(old.value), f.unit),
                format!("{} {}", num(f.value), f.unit),
                format!(
                    "{}{} {}{relative}",
                    if change >= 0.0 { "+" } else { "" },
                    num(change),
                    f.unit
                ),
            ])
        })
        .collect();
    if !rows.is_empty() {
        out.push_str("\nKey figures:\n\n");
        out.push_str(&table_markdown(&Table {
            headers: ["figure", "before", "now", "change"]
                .map(String::from)
                .to_vec(),
            rows,
        }));
    }
    out
}
