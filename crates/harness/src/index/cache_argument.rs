//! The cache argument per CPU: each CPU's measured cache levels (E6's `effective_levels`)
//! beside sysfs, and each backend's isolated table-miss cost per lookup at E7's highest
//! pressure (`table_miss_cost`) with E7's controls; a Markdown table and the plot behind it.

use super::Entry;
use crate::experiments::e6_memory::summary::Summary as E6;
use crate::experiments::e7_cache_pressure::summary::Summary as E7;
use crate::report::table_markdown;
use crate::results::{Plot, PlotKind, PlotLine, Point, Table};
use crate::verdicts::num;
use kiki_core::units::compact_bytes;

/// One CPU's column: its report and the two summaries (either may be absent).
struct Column<'a> {
    entry: &'a Entry,
    e6: Option<E6>,
    e7: Option<E7>,
}

fn columns<'a>(entries: &[&'a Entry]) -> Vec<Column<'a>> {
    entries
        .iter()
        .map(|entry| Column {
            entry,
            e6: entry
                .results
                .experiment("E6")
                .and_then(|x| x.summary_as().ok()),
            e7: entry
                .results
                .experiment("E7")
                .and_then(|x| x.summary_as().ok()),
        })
        .filter(|c| {
            c.e6.as_ref().is_some_and(|s| s.effective_levels.is_some())
                || c.e7.as_ref().is_some_and(|s| s.table_miss_cost.is_some())
        })
        .collect()
}

/// The Markdown section and its plot (`cache_argument.svg`), for the current reports; empty
/// where none has E6's levels or E7's table-miss costs.
pub fn cache_argument(entries: &[&Entry]) -> (String, Option<Plot>) {
    let columns = columns(entries);
    if columns.is_empty() {
        return (String::new(), None);
    }
    let backends = backends(&columns);
    let plot = plot(&columns, &backends);
    let has_plot = plot.lines.iter().any(|l| !l.points.is_empty());
    let mut text = String::from(
        "\n## The cache argument per CPU\n\nE6's effective cache levels (knees of its latency \
         curve; sysfs in parentheses) and E7's isolated table-miss cost (each backend against \
         its hot twin, after the highest pressure; 95 % intervals), one column per CPU, with \
         the commit that measured it.\n\n",
    );
    if has_plot {
        text.push_str("![table-miss cost per CPU](cache_argument.svg)\n\n");
    }
    text.push_str(&table_markdown(&table(&columns, &backends)));
    (text, has_plot.then_some(plot))
}

/// Every backend with a table-miss cost, in first-seen order.
fn backends(columns: &[Column]) -> Vec<String> {
    let mut backends: Vec<String> = Vec::new();
    for cost in columns
        .iter()
        .filter_map(|c| c.e7.as_ref()?.table_miss_cost.as_ref())
    {
        for (name, _) in cost.iter() {
            if !backends.iter().any(|b| b == name) {
                backends.push(name.to_string());
            }
        }
    }
    backends
}

fn levels_text(e6: Option<&E6>) -> String {
    let Some(levels) = e6.and_then(|s| s.effective_levels.as_ref()) else {
        return "—".into();
    };
    levels
        .iter()
        .map(|l| {
            let sysfs = l
                .sysfs_bytes
                .map_or("—".into(), |b| compact_bytes(b as f64));
            format!(
                "{} {} at {} ns ({sysfs})",
                l.level,
                compact_bytes(l.bytes as f64),
                num(l.ns)
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn controls_text(e7: &E7) -> (String, String) {
    let negative = e7.negative_controls.as_ref().map_or("—".into(), |c| {
        c.iter()
            .map(|(name, c)| format!("{name}: {}", c.pass))
            .collect::<Vec<_>>()
            .join("; ")
    });
    // Every positive control where the report has several (one per synthetic size), else the
    // single one reports made before had.
    let positive = match (&e7.positive_controls, &e7.positive_control) {
        (Some(list), _) => list
            .iter()
            // By today's rule where the report recorded the interval, as the verdict reads it.
            .map(|p| {
                let pass = p.pass && !p.fails_today();
                format!("{}: {pass}", p.label.as_deref().unwrap_or("?"))
            })
            .collect::<Vec<_>>()
            .join("; "),
        (None, Some(p)) => (p.pass && !p.fails_today()).to_string(),
        (None, None) => "—".into(),
    };
    (negative, positive)
}

fn table(columns: &[Column], backends: &[String]) -> Table {
    let mut table = Table {
        headers: std::iter::once(String::new())
            .chain(columns.iter().map(|c| c.entry.folder.clone()))
            .collect(),
        rows: Vec::new(),
    };
    let mut row = |name: &str, cell: &dyn Fn(&Column) -> String| {
        let cells = std::iter::once(name.to_string()).chain(columns.iter().map(cell));
        table.rows.push(cells.collect());
    };
    let e7 = |c: &Column, f: &dyn Fn(&E7) -> Option<String>| {
        c.e7.as_ref().and_then(f).unwrap_or_else(|| "—".into())
    };
    row("CPU", &|c| c.entry.results.machine.cpu_model.clone());
    row("code (commit)", &|c| {
        c.entry.results.machine.git_commit.chars().take(7).collect()
    });
    row("measured levels (sysfs)", &|c| levels_text(c.e6.as_ref()));
    row("E7 pressure buffer", &|c| {
        e7(c, &|s| {
            s.pressure_max_bytes.map(|b| compact_bytes(b as f64))
        })
    });
    row("E7 pressure reads per node (top)", &|c| {
        e7(c, &|s| s.pressure_reads_max.map(|r| r.to_string()))
    });
    for name in backends {
        row(&format!("{name}: table-miss ns per lookup"), &|c| {
            e7(c, &|s| {
                let v = s.table_miss_cost.as_ref()?.get(name)?;
                Some(format!("{} [{}–{}]", num(v.ns), num(v.low), num(v.high)))
            })
        });
    }
    row("negative controls pass", &|c| {
        e7(c, &|s| Some(controls_text(s).0))
    });
    row("positive controls pass", &|c| {
        e7(c, &|s| Some(controls_text(s).1))
    });
    // The verdict's gist; its text is in the report's E7 section.
    row("seed 004", &|c| e7(c, &|s| s.seed_004_words()));
    table
}

fn plot(columns: &[Column], backends: &[String]) -> Plot {
    let lines = columns
        .iter()
        .filter_map(|c| {
            let costs = c.e7.as_ref()?.table_miss_cost.as_ref()?;
            let points = backends
                .iter()
                .enumerate()
                .filter_map(|(i, name)| {
                    let v = costs.get(name)?;
                    Some(Point {
                        x: i as f64,
                        y: v.ns,
                        y_low: v.low.min(v.ns),
                        y_high: v.high.max(v.ns),
                    })
                })
                .collect();
            Some(PlotLine {
                name: c.entry.folder.clone(),
                points,
            })
        })
        .collect();
    Plot {
        file_stem: "cache_argument".into(),
        title: "Table-miss cost per lookup at E7's highest pressure, per CPU".into(),
        x_label: "backend".into(),
        y_label: "ns per lookup (real − hot twin)".into(),
        log_x: false,
        log_y: false,
        kind: PlotKind::Bar,
        categories: backends.to_vec(),
        markers: Vec::new(),
        lines,
    }
}
