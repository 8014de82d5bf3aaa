//! Seed 004 in a search per CPU: each CPU's E11 verdict per evaluation and D for `dbb vs
//! magic-plain` against the evaluation's footprint; a Markdown table and the plot behind it.

use super::Entry;
use crate::experiments::e11_search::summary::Summary as E11;
use crate::report::table_markdown;
use crate::results::{Plot, PlotKind, PlotLine, Point, Table};
use crate::verdicts::num;
use kiki_core::units::compact_bytes;

/// The evaluations with tables, in footprint order.
const EVALS: [&str; 2] = ["nnue", "kpp"];

fn columns<'a>(entries: &[&'a Entry]) -> Vec<(&'a Entry, E11)> {
    entries
        .iter()
        .filter_map(|entry| {
            let summary = entry.results.experiment("E11")?.summary_as().ok()?;
            Some((*entry, summary))
        })
        .collect()
}

fn label(summary: &E11, eval: &str) -> String {
    match summary.eval_bytes.get(eval) {
        Some(&bytes) => format!("{eval} ({})", compact_bytes(bytes as f64)),
        None => eval.to_string(),
    }
}

/// The Markdown section and its plot (`search_argument.svg`); empty where no current report
/// has E11.
pub fn search_argument(entries: &[&Entry]) -> (String, Option<Plot>) {
    let columns = columns(entries);
    if columns.is_empty() {
        return (String::new(), None);
    }
    let mut text = String::from(
        "\n## Seed 004 in a search, per CPU\n\nE11: D = (t(magic-plain) − t(dbb)) under an \
         evaluation − the same under `material`, in ns per node of a fixed-depth search at the \
         largest TT with every table on 2 MiB pages (90 % intervals from rule version 5, 95 % \
         before), the pre-registered verdict, and the controls; one column per CPU.\n\n![D per evaluation footprint, per \
         CPU](search_argument.svg)\n\n",
    );
    let mut table = Table {
        headers: std::iter::once(String::new())
            .chain(columns.iter().map(|(e, _)| e.folder.clone()))
            .collect(),
        rows: Vec::new(),
    };
    let mut row = |name: String, cell: &dyn Fn(&E11) -> String| {
        let cells = columns.iter().map(|(_, s)| cell(s));
        table
            .rows
            .push(std::iter::once(name).chain(cells).collect());
    };
    row("CPU".into(), &|_| String::new());
    for eval in EVALS {
        row(format!("{eval}: D, ns/node"), &|s| {
            s.rule_difference(eval).map_or("—".into(), |d| {
                format!("{} [{}–{}]", num(d.ns), num(d.low), num(d.high))
            })
        });
        row(format!("{eval}: seed 004"), &|s| {
            s.verdict_by_eval
                .get(eval)
                .cloned()
                .unwrap_or_else(|| "—".into())
        });
    }
    row("T, ns/node (nnue; kpp)".into(), &|s| {
        format!(
            "{}; {}",
            num(s.threshold_ns.under("nnue")),
            num(s.threshold_ns.under("kpp"))
        )
    });
    row("controls pass".into(), &|s| s.controls.passed.to_string());
    row("rule commit".into(), &|s| {
        s.rule_commit.chars().take(7).collect()
    });
    // Intervals from different rule versions are different estimators: say which.
    row(
        "rule version (D's interval)".into(),
        &|s| match s.rule_version {
            Some(v) if v >= 6 => format!(
                "{v} (shares of each process's own t(dbb), trimmed mean over processes, 90 %)"
            ),
            Some(v) if v == 5 => format!("{v} (trimmed mean over processes, 90 %)"),
            Some(v) if v == 4 => format!("{v} (trimmed mean over processes, 95 %)"),
            Some(v) => format!("{v} (Student's t over invocations)"),
            None => "before 4 (Student's t over invocations)".into(),
        },
    );
    // The CPU names, filled in after the closure borrowed the columns.
    for (cell, (entry, _)) in table.rows[0].iter_mut().skip(1).zip(&columns) {
        *cell = entry.results.machine.cpu_model.clone();
    }
    text.push_str(&table_markdown(&table));
    (text, Some(plot(&columns)))
}

fn plot(columns: &[(&Entry, E11)]) -> Plot {
    let categories = columns
        .first()
        .map(|(_, s)| EVALS.iter().map(|e| label(s, e)).collect())
        .unwrap_or_default();
    let lines = columns
        .iter()
        .map(|(entry, s)| PlotLine {
            name: entry.folder.clone(),
            points: EVALS
                .iter()
                .enumerate()
                .filter_map(|(i, eval)| {
                    let d = s.rule_difference(eval)?;
                    Some(Point {
                        x: i as f64,
                        y: d.ns,
                        y_low: d.low.min(d.ns),
                        y_high: d.high.max(d.ns),
                    })
                })
                .collect(),
        })
        .collect();
    Plot {
        file_stem: "search_argument".into(),
        title: "D (dbb vs magic-plain) per evaluation, per CPU".into(),
        x_label: "evaluation (table bytes)".into(),
        y_label: "D, ns per node (above 0: magic-plain loses more)".into(),
        log_x: false,
        log_y: false,
        kind: PlotKind::Bar,
        categories,
        markers: Vec::new(),
        lines,
    }
}
