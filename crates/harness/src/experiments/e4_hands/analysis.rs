//! E4's analysis: series, ns and cycles tables, the plot, claims and the quoted numbers.

use super::measure::Measurement;
use super::{LAYOUTS, OPS};
use crate::experiments::claims::Claims;
use crate::experiments::{interval, interval_point, ranked, series, typical};
use crate::results::{PairRecord, Plot, PlotKind, PlotLine, Series, Table};
use crate::stats::{format_interval, Comparison};
use kiki_engine::hands::{GuardedHand, HandLayout, PackedHand};
use serde_json::Value as Json;

/// Below this many cycles per operation a loop over independent pairs cannot be doing one
/// operation at a time (each takes several instructions): it was vectorised or overlapped.
const BATCHED_BELOW_CYCLES: f64 = 1.0;

/// E4's series, tables, plots, comparisons and summary, and the numbers the findings quote.
pub(super) struct Analysis {
    pub series: Vec<Series>,
    /// ns per operation, then (with a measured clock) cycles per operation.
    pub tables: Vec<Table>,
    pub plots: Vec<Plot>,
    /// Every comparison the findings rest on, in the order they were made.
    pub comparisons: Vec<PairRecord>,
    pub summary: Vec<(String, Json)>,
    pub numbers: Numbers,
}

/// What the method and findings paragraphs quote.
pub(super) struct Numbers {
    /// The share of pairs whose first hand is at least as good as the second.
    pub true_share: f64,
    /// The fastest layout of each operation that ran.
    pub fastest: Vec<Fastest>,
    /// On `superior` and `superior-chain`: the guarded layout's times against the packed one's.
    pub guarded_vs_packed: Vec<(&'static str, Comparison)>,
    /// With a measured clock: (operation, layout, cycles per operation) of each independent
    /// loop under `BATCHED_BELOW_CYCLES`.
    pub batched: Vec<(&'static str, &'static str, f64)>,
    /// With a measured clock: each layout's median ns on the dependent chain.
    pub chain: Vec<(&'static str, f64)>,
}

/// One operation's fastest layout by median, and the others against it.
pub(super) struct Fastest {
    pub op: &'static str,
    pub best: &'static str,
    /// The best's median ns per operation.
    pub best_ns: f64,
    /// Each other layout's time relative to the best, as `Claims::ratio_text` words it.
    pub others: Vec<String>,
}

/// Turns E4's measurement into series, tables, plots, claims and numbers.
pub(super) fn analyse(m: &Measurement) -> Analysis {
    let series = m
        .rows
        .iter()
        .map(|r| {
            series(
                &[("layout", &r.layout), ("operation", r.op)],
                "ns/op",
                r.ns.clone(),
            )
        })
        .collect();
    let mut tables = vec![ns_table(m)];
    if let Some(ghz) = m.clock_ghz {
        tables.push(cycles_table(m, ghz));
    }
    // The claims are made in the order the findings quote them.
    let mut claims = Claims::new(m.threshold, m.invocations);
    let fastest: Vec<Fastest> = OPS
        .into_iter()
        .filter_map(|op| fastest(m, op, &mut claims))
        .collect();
    let guarded_vs_packed = guarded_vs_packed(m, &mut claims);
    let mut summary: Vec<(String, Json)> = fastest
        .iter()
        .map(|f| (format!("fastest {}", f.op), Json::from(f.best)))
        .collect();
    if let Some(ghz) = m.clock_ghz {
        summary.push(("clock_ghz".to_string(), Json::from(ghz)));
    }
    let (batched, chain) = match m.clock_ghz {
        Some(ghz) => (batched(m, ghz), chain(m)),
        None => (Vec::new(), Vec::new()),
    };
    Analysis {
        series,
        tables,
        plots: vec![plot(m)],
        comparisons: claims.records,
        summary,
        numbers: Numbers {
            true_share: true_share(m),
            fastest,
            guarded_vs_packed,
            batched,
            chain,
        },
    }
}

/// The share of pairs where the first hand holds at least as many of every kind.
fn true_share(m: &Measurement) -> f64 {
    let pairs = &m.inputs.pairs;
    pairs
        .iter()
        .filter(|(a, b)| a.iter().zip(b).all(|(x, y)| x >= y))
        .count() as f64
        / pairs.len().max(1) as f64
}

/// A row per layout, a column per operation, in ns per operation.
fn ns_table(m: &Measurement) -> Table {
    let mut headers = vec!["layout".to_string()];
    headers.extend(OPS.iter().map(|op| format!("{op}: ns/op")));
    let rows = LAYOUTS
        .iter()
        .map(|layout| {
            let mut row = vec![layout.to_string()];
            for op in OPS {
                row.push(match m.row(op, layout) {
                    Some(r) => format_interval(&interval(&r.ns, m.invocations)),
                    None => "–".to_string(),
                });
            }
            row
        })
        .collect();
    Table { headers, rows }
}

/// Every median converted to cycles per operation at `ghz`.
fn cycles_table(m: &Measurement, ghz: f64) -> Table {
    let mut headers = vec![format!("layout (cycles/op at {ghz:.2} GHz)")];
    headers.extend(OPS.iter().map(|op| op.to_string()));
    Table {
        headers,
        rows: LAYOUTS
            .iter()
            .map(|layout| {
                let mut row = vec![layout.to_string()];
                row.extend(OPS.iter().map(|op| {
                    m.row(op, layout).map_or("–".to_string(), |r| {
                        format!("{:.2}", typical(&r.ns, m.invocations) * ghz)
                    })
                }));
                row
            })
            .collect(),
    }
}

fn plot(m: &Measurement) -> Plot {
    let lines = LAYOUTS
        .iter()
        .map(|layout| PlotLine {
            name: layout.to_string(),
            points: OPS
                .iter()
                .enumerate()
                .filter_map(|(i, op)| {
                    m.row(op, layout)
                        .map(|r| interval_point(i as f64, &interval(&r.ns, m.invocations)))
                })
                .collect(),
        })
        .collect();
    Plot {
        file_stem: "e4-hands".to_string(),
        title: "E4 hand layouts: ns per operation".to_string(),
        x_label: "operation".to_string(),
        y_label: "ns per operation (lower is better)".to_string(),
        log_x: false,
        log_y: false,
        kind: PlotKind::Bar,
        categories: OPS.iter().map(|s| s.to_string()).collect(),
        markers: Vec::new(),
        lines,
    }
}

/// `op`'s fastest layout by median and the others against it (recorded in `claims`); `None`
/// where no layout ran it.
fn fastest(m: &Measurement, op: &'static str, claims: &mut Claims) -> Option<Fastest> {
    let entries: Vec<(&str, f64)> = LAYOUTS
        .iter()
        .filter_map(|l| m.row(op, l).map(|r| (*l, typical(&r.ns, m.invocations))))
        .collect();
    let order = ranked(&entries);
    let &(best, best_ns) = order.first()?;
    let others = order[1..]
        .iter()
        .filter_map(|(l, _)| {
            Some(claims.ratio_text(op, (l, &m.row(op, l)?.ns), (best, &m.row(op, best)?.ns)))
        })
        .collect();
    Some(Fastest {
        op,
        best,
        best_ns,
        others,
    })
}

/// Seed 003's question on superiority: the guarded layout against Bonanza's packed one
/// (recorded in `claims`).
fn guarded_vs_packed(m: &Measurement, claims: &mut Claims) -> Vec<(&'static str, Comparison)> {
    let mut out = Vec::new();
    for op in ["superior", "superior-chain"] {
        if let (Some(g), Some(p)) = (m.row(op, GuardedHand::NAME), m.row(op, PackedHand::NAME)) {
            if let Some(c) =
                claims.compare(op, (GuardedHand::NAME, &g.ns), (PackedHand::NAME, &p.ns))
            {
                out.push((op, c));
            }
        }
    }
    out
}

/// One call's cost is the chain's; an independent loop faster than a cycle per operation was
/// batched by the compiler, and the findings say so rather than quote it as a call's cost.
fn batched(m: &Measurement, ghz: f64) -> Vec<(&'static str, &'static str, f64)> {
    OPS.iter()
        .filter(|op| **op != "superior-chain")
        .flat_map(|op| LAYOUTS.iter().map(move |l| (*op, *l)))
        .filter_map(|(op, layout)| {
            let cycles = typical(&m.row(op, layout)?.ns, m.invocations) * ghz;
            (cycles < BATCHED_BELOW_CYCLES).then_some((op, layout, cycles))
        })
        .collect()
}

/// Each layout's median ns on the dependent chain: one call's cost.
fn chain(m: &Measurement) -> Vec<(&'static str, f64)> {
    LAYOUTS
        .iter()
        .filter_map(|l| Some((*l, typical(&m.row("superior-chain", l)?.ns, m.invocations))))
        .collect()
}
