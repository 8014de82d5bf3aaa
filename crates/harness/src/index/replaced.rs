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

/// The part of an experiment's verdict two reports of one CPU should share, and whether any
/// of it is decided.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// Its decided best backends ("none decided" where no winner is clear) and, for E2 its
    /// list target, for E7 and E11 seed 004's verdict words, for E8 its simulated winners.
    pub words: String,
    /// Whether any part decides something: two reports that both decide nothing do not agree,
    /// they are both silent.
    pub decided: bool,
}

/// What the index compares of one experiment of two reports.
#[derive(Clone, Debug, PartialEq)]
pub enum Compared {
    /// Its verdict is its measured figures (E6): compared in the figure table.
    Figures,
    /// Its summary could not be read.
    Unreadable(String),
    Outcome(Outcome),
}

/// `experiment`'s [`Compared`].
pub fn outcome(experiment: &ExperimentResult) -> Compared {
    use crate::experiments::{
        e11_search, e12_layouts, e13_simulated_search, e2_movegen, e7_cache_pressure,
    };
    // Each part with whether it decides something.
    let mut parts: Vec<(String, bool)> = Vec::new();
    let unreadable = |e: String| Compared::Unreadable(format!("{}: {e}", experiment.id));
    match experiment.id.as_str() {
        "E6" => return Compared::Figures,
        "E2" => {
            let s: e2_movegen::summary::Summary = match experiment.summary_as() {
                Ok(s) => s,
                Err(e) => return unreadable(e),
            };
            parts.extend(s.target.map(|(peer, target)| {
                let met = target == e2_movegen::summary::Target::Met;
                let words = if met { "met" } else { "not met" };
                (format!("list target against {peer} {words}"), true)
            }));
        }
        "E7" => {
            let s: e7_cache_pressure::summary::Summary = match experiment.summary_as() {
                Ok(s) => s,
                Err(e) => return unreadable(e),
            };
            if let (Some(words), Some(verdict)) = (s.seed_004_words(), &s.seed_004) {
                // Gated: a failed control reads "not decided here" whatever the branch.
                let gated = s.failed_controls().is_empty();
                parts.push((
                    format!("seed 004 {words}"),
                    gated && verdict.outcome.decides(),
                ));
            }
        }
        "E12" => {
            // The search first, as the verdict leads with it: the layout variants whose
            // search reads faster or slower; then the pre-set rule's answer, the layout
            // factor that matters most, or none named.
            let s: e12_layouts::summary::Summary = match experiment.summary_as() {
                Ok(s) => s,
                Err(e) => return unreadable(e),
            };
            let claims = s.search_claims();
            parts.push(if claims.is_empty() {
                (
                    "in the search no layout variant reads faster or slower".into(),
                    false,
                )
            } else {
                (format!("in the search {}", claims.join(", ")), true)
            });
            parts.push(match &s.matters_most {
                Some(m) => (format!("matters most: {} by {}", m.variant, m.cost), true),
                None => ("no layout factor decided".into(), false),
            });
        }
        "E8" => {
            // A simulation: deterministic, so its winners are decided and compared as words.
            match verdicts::verdict(experiment) {
                Ok(v) => parts.push((v.line, true)),
                Err(e) => return unreadable(e),
            }
        }
        "E11" => {
            let s: e11_search::summary::Summary = match experiment.summary_as() {
                Ok(s) => s,
                Err(e) => return unreadable(e),
            };
            parts.extend(s.verdict_by_eval.iter().map(|(eval, verdict)| {
                let decided = matches!(verdict.as_str(), "holds" | "does not hold");
                (format!("{eval}: seed 004 {verdict}"), decided)
            }));
        }
        "E13" => {
            // A simulation under a fixed rule: its two words always decide.
            let s: e13_simulated_search::Summary = match experiment.summary_as() {
                Ok(s) => s,
                Err(e) => return unreadable(e),
            };
            parts.extend(s.verdict_by_eval.iter().map(|(eval, verdict)| {
                let words = verdict.as_deref().unwrap_or("has no verdict");
                (
                    format!("{eval}: simulated seed 004 {words}"),
                    verdict.is_some(),
                )
            }));
        }
        _ => {}
    }
    let verdict = match verdicts::verdict(experiment) {
        Ok(v) => v,
        Err(e) => return unreadable(e),
    };
    parts.push(match verdict.best {
        Some(best) => (format!("best {best}"), true),
        None => ("none decided".into(), false),
    });
    Compared::Outcome(Outcome {
        words: parts
            .iter()
            .map(|(words, _)| words.as_str())
            .collect::<Vec<_>>()
            .join("; "),
        decided: parts.iter().any(|(_, decided)| *decided),
    })
}

/// A figure the index follows across a CPU's reports: a name, a value, its interval and unit.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    pub name: String,
    pub value: f64,
    /// Its 95 % interval (E2, E7, E11) or its range over the invocations (E6); `None` where
    /// the report recorded none (E2 before its held-out records).
    pub interval: Option<(f64, f64)>,
    pub unit: &'static str,
    /// Whether its change reads as a percentage (not for a difference such as E11's D).
    pub relative: bool,
    /// How it was estimated, where reports differ in that: E2's best backend chosen on
    /// invocations held out from the ratio's, or on the same ones (which favours the best).
    pub method: Option<&'static str>,
}

/// E2's two ways of estimating "peer ÷ best" (see [`Figure::method`]).
const E2_HELD_OUT: &str = "best chosen on held-out invocations";
const E2_SAME_INVOCATIONS: &str = "best chosen on the invocations it is estimated on";

/// An E2 task named as the `vs_peer` keys name it (`perft count start d5`, `movegen list`),
/// from the task names of reports before those keys (`perft start d5 (leaf list)`,
/// `movegen list greedy-playout`); the count walk without shortcuts is `like for like`.
pub(crate) fn e2_task_key(task: &str) -> String {
    let (base, leaf) = match task.split_once(" (leaf ") {
        Some((base, leaf)) => (base, leaf.trim_end_matches(')')),
        None => (task, "count"),
    };
    let words: Vec<&str> = base.split_whitespace().collect();
    match words.as_slice() {
        ["movegen", convention, ..] => format!("movegen {convention}"),
        ["perft", subject, depth] => match leaf {
            "count-plain" => format!("like for like, perft count {subject} {depth}"),
            leaf => format!("perft {leaf} {subject} {depth}"),
        },
        _ => task.to_string(),
    }
}

/// The key figures of `report`: E2's peer ratios, E6's level latencies, E7's table-miss
/// costs and E11's rule difference D per evaluation.
pub fn figures(report: &Report) -> Vec<Figure> {
    use crate::experiments::{e11_search, e2_movegen, e6_memory, e7_cache_pressure};
    let mut out = Vec::new();
    let mut push = |name: String, value: f64, interval: Option<(f64, f64)>, unit, relative| {
        if value.is_finite() {
            let method = name.starts_with("E2 ").then_some(E2_SAME_INVOCATIONS);
            out.push(Figure {
                name,
                value,
                interval,
                unit,
                relative,
                method,
            });
        }
    };
    if let Some(s) = summary::<e2_movegen::summary::Summary>(report, "E2") {
        let peer = s.peer_ratios.first().map_or("peer", |r| r.peer.as_str());
        if s.vs_peer.is_empty() {
            for r in &s.peer_ratios {
                let name = format!("E2 {} ÷ best, {}", r.peer, e2_task_key(&r.task));
                push(name, r.ratio, None, "×", true);
            }
        } else {
            let like_for_like = s
                .like_for_like
                .iter()
                .map(|(task, c)| (format!("like for like, {task}"), c));
            for (task, c) in s
                .vs_peer
                .iter()
                .map(|(t, c)| (t.clone(), c))
                .chain(like_for_like)
            {
                let name = format!("E2 {peer} ÷ best, {task}");
                push(name, c.ratio, Some((c.low, c.high)), "×", true);
            }
        }
    }
    if let Some(levels) =
        summary::<e6_memory::summary::Summary>(report, "E6").and_then(|s| s.effective_levels)
    {
        for level in &levels {
            let range = level.ns_low.zip(level.ns_high);
            push(
                format!("E6 {} latency", level.level),
                level.ns,
                range,
                "ns",
                true,
            );
        }
        // The sizes too: E7's controls and E8's geometries are sized from them.
        let mib = |bytes: usize| bytes as f64 / (1 << 20) as f64;
        for level in &levels {
            let sizes: Vec<usize> = level
                .bytes_per_invocation
                .iter()
                .flatten()
                .copied()
                .collect();
            let range = sizes
                .iter()
                .min()
                .zip(sizes.iter().max())
                .map(|(&low, &high)| (mib(low), mib(high)));
            let name = format!("E6 {} size", level.level);
            push(name, mib(level.bytes), range, "MiB", true);
        }
    }
    if let Some(costs) =
        summary::<e7_cache_pressure::summary::Summary>(report, "E7").and_then(|s| s.table_miss_cost)
    {
        for (backend, cost) in costs.iter() {
            let name = format!("E7 table-miss cost, {backend}");
            push(name, cost.ns, Some((cost.low, cost.high)), "ns", true);
        }
    }
    if let Some(s) = summary::<e11_search::summary::Summary>(report, "E11") {
        for (eval, _) in s.verdict_by_eval.iter() {
            if let Some(d) = s.rule_difference(eval) {
                let name = format!("E11 D (dbb vs magic-plain), {eval}");
                push(name, d.ns, Some((d.low, d.high)), "ns/node", false);
            }
        }
    }
    // E2's held-out records (reports since 2026-11-27) say so.
    if summary::<e2_movegen::summary::Summary>(report, "E2").is_some_and(|s| !s.vs_peer.is_empty())
    {
        for f in out.iter_mut().filter(|f| f.method.is_some()) {
            f.method = Some(E2_HELD_OUT);
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
         for E7 and E11, seed 004's verdict words are the same, and two reports that both \
         decide nothing are counted apart, not as agreeing — and the key figures before and \
         now with their intervals. The replaced report is read from git at the commit listed \
         below.\n",
    );
    for r in replacements {
        out.push_str(&format!(
            "\n### {} replacing `{}` (commit `{}`, measured by `{}`)\n\n",
            r.current.folder, r.retired.folder, r.retired.commit, r.retired.code_commit
        ));
        out.push_str(&code_note(
            &r.retired.code_commit,
            &r.current.results.machine.git_commit,
        ));
        out.push_str(&retired_note(&r.retired.why));
        match &r.before {
            Err(why) => out.push_str(&format!("Not compared: {why}.\n")),
            Ok(before) => out.push_str(&compare(before, &r.current.results)),
        }
    }
    out
}

/// Where the two reports were measured by different code, a line that says so: a figure may
/// move with the code as well as with the host (empty where the commits are the same).
fn code_note(before: &str, now: &str) -> String {
    let short = |commit: &str| commit.chars().take(7).collect::<String>();
    if before.is_empty() || now.is_empty() || short(before) == short(now) {
        return String::new();
    }
    let (before, now) = (short(before), short(now));
    format!(
        "Measured by other code (`{before}` then, `{now}` now; `git log {before}..{now}` lists \
         the changes): a verdict or a figure may have moved with the code as well as with the \
         host, and only what the changes did not touch compares the hosts.\n\n"
    )
}

/// The retired report's own reason, beside the comparison: it names what moved besides the
/// host (other code, other workloads), which the figures alone cannot show.
fn retired_note(why: &str) -> String {
    if why.trim().is_empty() {
        return String::new();
    }
    format!("Why the earlier report was retired (`superseded.json`): {why}\n\n")
}

/// The verdict table and the figure table of `now` against `before`.
pub fn compare(before: &Report, now: &Report) -> String {
    let mut verdict_rows = Vec::new();
    let (mut agree, mut compared, mut silent) = (0, 0, 0);
    for x in &now.experiments {
        let Some(old) = before.experiment(&x.id) else {
            continue;
        };
        let same = match (outcome(old), outcome(x)) {
            (Compared::Figures, Compared::Figures) => "by its figures (below)".to_string(),
            (Compared::Unreadable(why), _) | (_, Compared::Unreadable(why)) => {
                format!("not compared ({why})")
            }
            (Compared::Outcome(a), Compared::Outcome(b)) if !a.decided && !b.decided => {
                silent += 1;
                "both undecided".to_string()
            }
            (a, b) => {
                compared += 1;
                if a == b {
                    agree += 1;
                    "yes".to_string()
                } else {
                    "no".to_string()
                }
            }
        };
        let line = |e: &ExperimentResult| {
            verdicts::verdict(e).map_or_else(|e| format!("not readable: {e}"), |v| v.line)
        };
        verdict_rows.push(vec![x.id.clone(), line(old), line(x), same]);
    }
    let mut out = format!(
        "Verdicts agree in {agree} of the {compared} experiments that decide something in \
         either report; {silent} decide nothing in both (no winner decided, a failed \
         control or an unresolved interval: no test of agreement); E6 is compared by its \
         figures alone.\n\n"
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
            Some(vec![
                f.name.clone(),
                figure_text(old),
                figure_text(&f),
                change_text(old, &f),
            ])
        })
        .collect();
    if !rows.is_empty() {
        out.push_str(
            "\nKey figures, with their 95 % intervals (E6: the range over the invocations). A \
             change is \"beyond\" where each value lies outside the other's interval, \
             \"partly\" where one does:\n\n",
        );
        out.push_str(&table_markdown(&Table {
            headers: ["figure", "before", "now", "change"]
                .map(String::from)
                .to_vec(),
            rows,
        }));
    }
    out
}

/// A figure's value, unit and interval.
fn figure_text(f: &Figure) -> String {
    match f.interval {
        Some((low, high)) => format!("{} {} ({}–{})", num(f.value), f.unit, num(low), num(high)),
        None => format!("{} {}", num(f.value), f.unit),
    }
}

/// How far `now` moved from `before`: the change, as a percentage of a size, and whether it
/// lies beyond both intervals; for figures estimated differently, only that they do not
/// compare.
fn change_text(before: &Figure, now: &Figure) -> String {
    if before.method != now.method {
        return format!(
            "not like for like: before, {}; now, {}",
            before.method.unwrap_or("unknown"),
            now.method.unwrap_or("unknown")
        );
    }
    let change = now.value - before.value;
    // A percentage only of a figure that is itself a size, not a difference near zero (a
    // control's cost, E11's D), where it would say nothing.
    let relative = if now.relative && before.value.abs() >= 0.1 {
        format!(" ({:+.0} %)", 100.0 * change / before.value.abs())
    } else {
        String::new()
    };
    let outside =
        |value: f64, f: &Figure| f.interval.map(|(low, high)| value < low || value > high);
    let beyond = match (outside(now.value, before), outside(before.value, now)) {
        (Some(true), Some(true)) => ", beyond",
        (Some(false), Some(false)) => ", within",
        (Some(_), Some(_)) => ", partly",
        _ => "",
    };
    format!(
        "{}{} {}{relative}{beyond}",
        if change >= 0.0 { "+" } else { "" },
        num(change),
        now.unit
    )
}

#[cfg(test)]
mod code_note_tests {
    use super::code_note;

    #[test]
    fn a_replacement_by_other_code_says_so() {
        let note = code_note("bcf94a2", "170c799efb2203eb2237f04b72c7871c3e4a4459");
        assert!(note.contains("`bcf94a2` then, `170c799` now"), "{note}");
        assert!(note.contains("git log bcf94a2..170c799"), "{note}");
        assert_eq!(
            code_note("170c799", "170c799efb2203eb2237f04b72c7871c3e4a4459"),
            ""
        );
        assert_eq!(code_note("", "170c799"), "");
    }

    #[test]
    fn a_replacement_quotes_why_the_earlier_report_was_retired() {
        let note = super::retired_note("seeded workloads are other positions");
        assert!(
            note.contains("seeded workloads are other positions"),
            "{note}"
        );
        assert_eq!(super::retired_note("  "), "");
    }
}
