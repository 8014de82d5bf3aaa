//! E3's analysis: series, the table, the plot, claims and the numbers the findings quote.

use super::measure::Measurement;
use super::TASKS;
use crate::experiments::claims::Claims;
use crate::experiments::{interval, interval_point, ranked, series, typical};
use crate::results::{PairRecord, Plot, PlotKind, PlotLine, Series, Table};
use crate::stats::{format_interval, Comparison};
use serde_json::Value as Json;

/// E3's series, tables, plots, comparisons and summary, and the numbers the findings quote.
pub(super) struct Analysis {
    pub series: Vec<Series>,
    pub tables: Vec<Table>,
    pub plots: Vec<Plot>,
    /// Every comparison the findings rest on, in the order they were made.
    pub comparisons: Vec<PairRecord>,
    pub summary: Vec<(String, Json)>,
    pub numbers: Numbers,
}

/// What the findings paragraph quotes.
pub(super) struct Numbers {
    /// The fastest backend of each fast-path task that ran.
    pub fastest: Vec<Fastest>,
    /// Per backend and set, brute force's time over the fast path's.
    pub speedups: Vec<Speedup>,
    /// The lowest and highest median of `speedups` (`None` without any).
    pub speedup_range: Option<(f64, f64)>,
}

/// One task's fastest backend by median, and the others against it.
pub(super) struct Fastest {
    pub task: &'static str,
    pub best: &'static str,
    /// The best's median ns per position.
    pub best_ns: f64,
    /// Each other backend's time relative to the best, as `Claims::ratio_text` words it.
    pub others: Vec<String>,
}

/// Brute force's time over the fast path's for one backend on one set (every pairing).
pub(super) struct Speedup {
    pub backend: &'static str,
    pub set: &'static str,
    /// Brute force's time over the fast path's, paired per round.
    pub ratio: Comparison,
}

/// Turns E3's measurement into series, tables, plots, claims and numbers.
pub(super) fn analyse(m: &Measurement) -> Analysis {
    let tasks: Vec<&str> = TASKS
        .iter()
        .map(|t| t.0)
        .filter(|t| m.rows.iter().any(|r| r.task == *t))
        .collect();
    let series = m
        .rows
        .iter()
        .map(|r| {
            series(
                &[("backend", &r.backend), ("task", r.task)],
                "ns/position",
                r.ns.clone(),
            )
        })
        .collect();
    let mut claims = Claims::new(m.threshold, m.invocations);
    let fastest: Vec<Fastest> = ["fast mate", "fast no-mate"]
        .into_iter()
        .filter_map(|task| fastest(m, task, &mut claims))
        .collect();
    let speedups = speedups(m, &mut claims);
    let speedup_range = (!speedups.is_empty()).then(|| {
        let low = speedups
            .iter()
            .map(|s| s.ratio.ratio)
            .fold(f64::INFINITY, f64::min);
        let high = speedups
            .iter()
            .map(|s| s.ratio.ratio)
            .fold(f64::NEG_INFINITY, f64::max);
        (low, high)
    });
    let mut summary: Vec<(String, Json)> = fastest
        .iter()
        .map(|f| (format!("fastest {}", f.task), Json::from(f.best)))
        .collect();
    if let Some((low, high)) = speedup_range {
        summary.push(("brute/fast low".to_string(), Json::from(low)));
        summary.push(("brute/fast high".to_string(), Json::from(high)));
    }
    Analysis {
        series,
        tables: vec![table(m, &tasks)],
        plots: vec![plot(m, &tasks)],
        comparisons: claims.records,
        summary,
        numbers: Numbers {
            fastest,
            speedups,
            speedup_range,
        },
    }
}

/// A row per backend, a column per task, in ns per position.
fn table(m: &Measurement, tasks: &[&str]) -> Table {
    let mut headers = vec!["backend".to_string()];
    headers.extend(tasks.iter().map(|t| format!("{t}: ns/position")));
    let rows = m
        .backends
        .iter()
        .map(|b| {
            let mut row = vec![b.to_string()];
            for task in tasks {
                row.push(match m.row(task, b) {
                    Some(r) => format_interval(&interval(&r.ns, m.invocations)),
                    None => "–".to_string(),
                });
            }
            row
        })
        .collect();
    Table { headers, rows }
}

/// A bar per backend and task, on a log axis (brute force is orders of magnitude slower).
fn plot(m: &Measurement, tasks: &[&str]) -> Plot {
    let lines = m
        .backends
        .iter()
        .map(|b| PlotLine {
            name: b.to_string(),
            points: tasks
                .iter()
                .enumerate()
                .filter_map(|(i, task)| {
                    m.row(task, b)
                        .map(|r| interval_point(i as f64, &interval(&r.ns, m.invocations)))
                })
                .collect(),
        })
        .filter(|line| !line.points.is_empty())
        .collect();
    Plot {
        file_stem: "e3-mate1".to_string(),
        title: "E3 mate in one: ns per position".to_string(),
        x_label: "solver and position set".to_string(),
        y_label: "ns per position (log; lower is better)".to_string(),
        log_x: false,
        log_y: true,
        kind: PlotKind::Bar,
        categories: tasks.iter().map(|t| t.to_string()).collect(),
        markers: Vec::new(),
        lines,
    }
}

/// `task`'s fastest backend by median and the others against it (recorded in `claims`);
/// `None` where no backend ran it.
fn fastest(m: &Measurement, task: &'static str, claims: &mut Claims) -> Option<Fastest> {
    let entries: Vec<(&str, f64)> = m
        .backends
        .iter()
        .filter_map(|b| m.row(task, b).map(|r| (*b, typical(&r.ns, m.invocations))))
        .collect();
    let order = ranked(&entries);
    let &(best, best_ns) = order.first()?;
    let others = order[1..]
        .iter()
        .filter_map(|(b, _)| {
            Some(claims.ratio_text(
                task,
                (b, &m.row(task, b)?.ns),
                (best, &m.row(task, best)?.ns),
            ))
        })
        .collect();
    Some(Fastest {
        task,
        best,
        best_ns,
        others,
    })
}

/// Per backend and set where both solvers ran: brute force's time over the fast path's.
fn speedups(m: &Measurement, claims: &mut Claims) -> Vec<Speedup> {
    let mut speedups = Vec::new();
    for &backend in &m.backends {
        for (set, fast, brute) in [
            ("mate", "fast mate", "brute mate"),
            ("no-mate", "fast no-mate", "brute no-mate"),
        ] {
            if let (Some(f), Some(r)) = (m.row(fast, backend), m.row(brute, backend)) {
                let cell = format!("{backend} {set}");
                if let Some(ratio) = claims.compare(&cell, (brute, &r.ns), (fast, &f.ns)) {
                    speedups.push(Speedup {
                        backend,
                        set,
                        ratio,
                    });
                }
            }
        }
    }
    speedups
}
