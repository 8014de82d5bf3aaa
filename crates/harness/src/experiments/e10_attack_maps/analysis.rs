//! E10's analysis: series, tables, plots, claims and the numbers the findings quote.

use super::measure::{
    Measurement, Row, CONTROL, INCREMENTAL, MAPS, MAPS_LATENCY, MAPS_WITHOUT_AVX512, MATE1, PERFT,
    RECOUNT, UNION,
};
use crate::experiments::claims::Claims;
use crate::experiments::{interval, interval_point, series, typical};
use crate::results::{PairRecord, Plot, PlotKind, PlotLine, Series, Table};
use crate::stats::{format_interval, Comparison, Estimate};
use kiki_engine::attack_map::Method;
use kiki_engine::position::KingSafety;
use serde_json::{json, Value as Json};

pub(super) struct Analysis {
    pub series: Vec<Series>,
    pub tables: Vec<Table>,
    pub plots: Vec<Plot>,
    pub comparisons: Vec<PairRecord>,
    pub summary: Vec<(String, Json)>,
    pub numbers: Numbers,
}

/// The fastest cell of some kind: its backend, variant and typical time with its interval.
#[derive(Clone, Debug)]
pub(super) struct Best {
    pub backend: String,
    pub variant: String,
    pub estimate: Estimate,
}

impl Best {
    fn json(&self) -> Json {
        json!({
            "backend": self.backend,
            "variant": self.variant,
            "ns": self.estimate.value,
            "low": self.estimate.low,
            "high": self.estimate.high,
        })
    }
}

/// One map group on one set: the best per-piece cell against the best set-wise cell per level.
pub(super) struct MapVerdict {
    pub group: &'static str,
    pub set: String,
    pub per_piece: Best,
    /// Per level: the best set-wise cell, and its time over the best per-piece cell's.
    pub set_wise: Vec<(Best, Option<Comparison>)>,
}

/// Using an attack map for king safety in one engine task on one backend: time with it over
/// time without (per square).
pub(super) struct EngineEffect {
    pub group: &'static str,
    pub backend: String,
    pub mode: String,
    pub ratio: Comparison,
}

/// From-scratch recounts after every make against the incremental effect boards.
pub(super) struct RecountVerdict {
    pub best_recount: Best,
    pub best_incremental: Best,
    /// The best recount's time over the best incremental board's.
    pub ratio: Option<Comparison>,
    /// The best recount's cell over its own backend's make+unmake without a recount.
    pub over_control: Option<Comparison>,
}

pub(super) struct Numbers {
    /// Every non-AVX-512 map cell with AVX-512 neighbours over itself without them.
    pub neighbour_control: Vec<Comparison>,
    pub maps: Vec<MapVerdict>,
    pub engine: Vec<EngineEffect>,
    pub recount: Option<RecountVerdict>,
}

fn best_of<'a>(rows: impl Iterator<Item = &'a Row>, k: usize) -> Option<(&'a Row, Best)> {
    rows.filter(|r| !r.ns.is_empty())
        .map(|r| (r, typical(&r.ns, k)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(r, _)| {
            (
                r,
                Best {
                    backend: r.backend.clone(),
                    variant: r.variant.clone(),
                    estimate: interval(&r.ns, k),
                },
            )
        })
}

fn map_verdicts(m: &Measurement, claims: &mut Claims) -> Vec<MapVerdict> {
    let mut verdicts = Vec::new();
    for group in [MAPS, MAPS_LATENCY, UNION] {
        for (set, _) in &m.sets {
            let in_cell = |variant: String| {
                m.rows
                    .iter()
                    .filter(move |r| r.group == group && &r.set == set && r.variant == variant)
            };
            let Some((per_piece_row, per_piece)) =
                best_of(in_cell(Method::PerPiece.name()), m.invocations)
            else {
                continue;
            };
            let mut set_wise = Vec::new();
            for method in m.methods.iter().filter(|m| **m != Method::PerPiece) {
                if let Some((row, best)) = best_of(in_cell(method.name()), m.invocations) {
                    let cell = format!("{group} ({set})");
                    let a = format!("{} {}", row.backend, row.variant);
                    let b = format!("{} {}", per_piece_row.backend, per_piece_row.variant);
                    let ratio = claims.compare(&cell, (&a, &row.ns), (&b, &per_piece_row.ns));
                    set_wise.push((best, ratio));
                }
            }
            verdicts.push(MapVerdict {
                group,
                set: set.clone(),
                per_piece,
                set_wise,
            });
        }
    }
    verdicts
}

fn neighbour_control(m: &Measurement, claims: &mut Claims) -> Vec<Comparison> {
    m.rows
        .iter()
        .filter(|r| r.group == MAPS_WITHOUT_AVX512)
        .filter_map(|alone| {
            let with = m.row(MAPS, &alone.set, &alone.backend, &alone.variant)?;
            let name = format!("{} {}", alone.backend, alone.variant);
            claims.compare(
                "avx512 neighbour control",
                (&format!("{name} beside avx512"), &with.ns),
                (&format!("{name} alone"), &alone.ns),
            )
        })
        .collect()
}

fn engine_effects(m: &Measurement, claims: &mut Claims) -> Vec<EngineEffect> {
    let mut effects = Vec::new();
    for group in [PERFT, MATE1] {
        for row in m.rows.iter().filter(|r| r.group == group) {
            if row.variant == KingSafety::PerSquare.name() {
                continue;
            }
            let Some(base) = m.row(group, &row.set, &row.backend, &KingSafety::PerSquare.name())
            else {
                continue;
            };
            let cell = format!("{group} {}", row.backend);
            if let Some(ratio) =
                claims.compare(&cell, (&row.variant, &row.ns), (&base.variant, &base.ns))
            {
                effects.push(EngineEffect {
                    group,
                    backend: row.backend.clone(),
                    mode: row.variant.clone(),
                    ratio,
                });
            }
        }
    }
    effects
}

fn recount_verdict(m: &Measurement, claims: &mut Claims) -> Option<RecountVerdict> {
    let rows = || m.rows.iter().filter(|r| r.group == RECOUNT);
    let (recount_row, best_recount) = best_of(
        rows().filter(|r| r.backend != INCREMENTAL && r.variant != CONTROL),
        m.invocations,
    )?;
    let (incremental_row, best_incremental) =
        best_of(rows().filter(|r| r.backend == INCREMENTAL), m.invocations)?;
    let name = |r: &Row| format!("{} {}", r.backend, r.variant);
    let ratio = claims.compare(
        RECOUNT,
        (&name(recount_row), &recount_row.ns),
        (&name(incremental_row), &incremental_row.ns),
    );
    let over_control = m
        .row(RECOUNT, &recount_row.set, &recount_row.backend, CONTROL)
        .and_then(|control| {
            claims.compare(
                &format!("{RECOUNT} {}", recount_row.backend),
                (&name(recount_row), &recount_row.ns),
                (&name(control), &control.ns),
            )
        });
    Some(RecountVerdict {
        best_recount,
        best_incremental,
        ratio,
        over_control,
    })
}

fn cell_text(row: Option<&Row>, k: usize) -> String {
    match row {
        Some(r) if !r.ns.is_empty() => format_interval(&interval(&r.ns, k)),
        _ => "–".to_string(),
    }
}

fn tables(m: &Measurement) -> Vec<Table> {
    let mut tables = Vec::new();
    for (group, unit) in [
        (MAPS, "ns/position, both colours, throughput"),
        (MAPS_LATENCY, "ns/position, both colours, latency"),
        (UNION, "ns/position, both colours, union only"),
    ] {
        let mut headers = vec!["backend".to_string()];
        for (set, _) in &m.sets {
            for method in &m.methods {
                headers.push(format!("{group} {set}: {} ({unit})", method.name()));
            }
        }
        let rows: Vec<Vec<String>> = m
            .backends
            .iter()
            .map(|b| {
                let mut row = vec![b.to_string()];
                for (set, _) in &m.sets {
                    for method in &m.methods {
                        row.push(cell_text(
                            m.row(group, set, b, &method.name()),
                            m.invocations,
                        ));
                    }
                }
                row
            })
            .collect();
        if !rows.is_empty() {
            tables.push(Table { headers, rows });
        }
    }
    let mut headers = vec!["backend".to_string()];
    for (group, unit) in [(PERFT, "ns/node"), (MATE1, "ns/position")] {
        for mode in &m.modes {
            headers.push(format!("{group}: {} ({unit})", mode.name()));
        }
    }
    let rows: Vec<Vec<String>> = m
        .backends
        .iter()
        .map(|b| {
            let mut row = vec![b.to_string()];
            for (group, set) in [(PERFT, "start position"), (MATE1, "tactical")] {
                for mode in &m.modes {
                    row.push(cell_text(m.row(group, set, b, &mode.name()), m.invocations));
                }
            }
            row
        })
        .collect();
    tables.push(Table { headers, rows });
    let mut headers = vec![
        "backend or effect board".to_string(),
        format!("{CONTROL} (ns/move)"),
    ];
    headers.extend(
        m.methods
            .iter()
            .map(|method| format!("make + recount by {} + unmake (ns/move)", method.name())),
    );
    let mut rows: Vec<Vec<String>> = m
        .backends
        .iter()
        .map(|b| {
            let mut row = vec![
                b.to_string(),
                cell_text(m.row(RECOUNT, "random games", b, CONTROL), m.invocations),
            ];
            for method in &m.methods {
                row.push(cell_text(
                    m.row(RECOUNT, "random games", b, &method.name()),
                    m.invocations,
                ));
            }
            row
        })
        .collect();
    for r in m
        .rows
        .iter()
        .filter(|r| r.group == RECOUNT && r.backend == INCREMENTAL)
    {
        let mut row = vec![
            format!("{INCREMENTAL} {} (make+unmake of the board)", r.variant),
            cell_text(Some(r), m.invocations),
        ];
        row.extend(m.methods.iter().map(|_| "–".to_string()));
        rows.push(row);
    }
    tables.push(Table { headers, rows });
    tables
}

fn bar_plot(
    stem: &str,
    title: &str,
    y_label: &str,
    categories: Vec<String>,
    lines: Vec<PlotLine>,
) -> Plot {
    Plot {
        file_stem: stem.to_string(),
        title: title.to_string(),
        x_label: String::new(),
        y_label: y_label.to_string(),
        log_x: false,
        log_y: true,
        kind: PlotKind::Bar,
        categories,
        markers: Vec::new(),
        lines: lines.into_iter().filter(|l| !l.points.is_empty()).collect(),
    }
}

fn line_over(
    m: &Measurement,
    name: &str,
    cells: &[(String, String, String)],
    backend: &str,
) -> PlotLine {
    PlotLine {
        name: name.to_string(),
        points: cells
            .iter()
            .enumerate()
            .filter_map(|(i, (group, set, variant))| {
                let row = m.row(group, set, backend, variant)?;
                (!row.ns.is_empty())
                    .then(|| interval_point(i as f64, &interval(&row.ns, m.invocations)))
            })
            .collect(),
    }
}

fn plots(m: &Measurement) -> Vec<Plot> {
    let mut plots = Vec::new();
    if let Some((set, _)) = m.sets.first() {
        let cells: Vec<(String, String, String)> = m
            .methods
            .iter()
            .map(|method| (MAPS.to_string(), set.clone(), method.name()))
            .collect();
        plots.push(bar_plot(
            "e10-maps",
            &format!("E10 whole-side maps and counts ({set}): ns per position"),
            "ns per position, both colours (log; lower is better)",
            m.methods.iter().map(|x| x.name()).collect(),
            m.backends
                .iter()
                .map(|b| line_over(m, b, &cells, b))
                .collect(),
        ));
    }
    let cells: Vec<(String, String, String)> = m
        .modes
        .iter()
        .map(|mode| (PERFT.to_string(), "start position".to_string(), mode.name()))
        .collect();
    plots.push(bar_plot(
        "e10-perft",
        "E10 perft with king safety per square or by attack map: ns per node",
        "ns per node (log; lower is better)",
        m.modes.iter().map(|x| x.name()).collect(),
        m.backends
            .iter()
            .map(|b| line_over(m, b, &cells, b))
            .collect(),
    ));
    let mut cells: Vec<(String, String, String)> = vec![(
        RECOUNT.to_string(),
        "random games".to_string(),
        CONTROL.to_string(),
    )];
    cells.extend(
        m.methods
            .iter()
            .map(|x| (RECOUNT.to_string(), "random games".to_string(), x.name())),
    );
    let steppers: Vec<&Row> = m
        .rows
        .iter()
        .filter(|r| r.group == RECOUNT && r.backend == INCREMENTAL)
        .collect();
    cells.extend(
        steppers
            .iter()
            .map(|r| (RECOUNT.to_string(), r.set.clone(), r.variant.clone())),
    );
    let mut lines: Vec<PlotLine> = m
        .backends
        .iter()
        .map(|b| line_over(m, b, &cells, b))
        .collect();
    lines.push(line_over(
        m,
        "incremental effect boards",
        &cells,
        INCREMENTAL,
    ));
    plots.push(bar_plot(
        "e10-recount",
        "E10 effect counts per make+unmake: from scratch against incremental",
        "ns per move (log; lower is better)",
        cells.iter().map(|c| c.2.clone()).collect(),
        lines,
    ));
    plots
}

pub(super) fn analyse(m: &Measurement) -> Analysis {
    let series = m
        .rows
        .iter()
        .map(|r| {
            series(
                &[
                    ("group", r.group),
                    ("set", &r.set),
                    ("backend", &r.backend),
                    ("variant", &r.variant),
                ],
                match r.group {
                    PERFT => "ns/node",
                    RECOUNT => "ns/move",
                    _ => "ns/position",
                },
                r.ns.clone(),
            )
        })
        .collect();
    let mut claims = Claims::new(m.threshold, m.invocations);
    let neighbour_control = neighbour_control(m, &mut claims);
    let maps = map_verdicts(m, &mut claims);
    let engine = engine_effects(m, &mut claims);
    let recount = recount_verdict(m, &mut claims);
    let mut summary: Vec<(String, Json)> = Vec::new();
    summary.push((
        "methods".to_string(),
        Json::from(m.methods.iter().map(|x| x.name()).collect::<Vec<_>>()),
    ));
    for v in &maps {
        summary.push((
            format!("{} ({})", v.group, v.set),
            json!({
                "best_per_piece": v.per_piece.json(),
                "best_set_wise": v.set_wise.iter().map(|(best, ratio)| json!({
                    "best": best.json(),
                    "over_per_piece": ratio.map(|c| json!({"ratio": c.ratio, "low": c.low, "high": c.high, "claim": format!("{:?}", c.claim)})),
                })).collect::<Vec<_>>(),
            }),
        ));
    }
    summary.push((
        "king_safety_by_map".to_string(),
        Json::from(
            engine
                .iter()
                .map(|e| {
                    json!({"task": e.group, "backend": e.backend, "mode": e.mode,
                           "over_per_square": e.ratio.ratio, "low": e.ratio.low, "high": e.ratio.high,
                           "claim": format!("{:?}", e.ratio.claim)})
                })
                .collect::<Vec<_>>(),
        ),
    ));
    if !neighbour_control.is_empty() {
        let level = neighbour_control
            .iter()
            .filter(|c| c.claim == crate::stats::Claim::Level)
            .count();
        summary.push((
            "avx512_neighbour_control".to_string(),
            json!({"cells": neighbour_control.len(), "level": level,
                   "ratios": neighbour_control.iter().map(|c| c.ratio).collect::<Vec<_>>()}),
        ));
    }
    if let Some(r) = &recount {
        summary.push((
            "recount_vs_incremental".to_string(),
            json!({
                "best_recount": r.best_recount.json(),
                "best_incremental": r.best_incremental.json(),
                "ratio": r.ratio.map(|c| json!({"ratio": c.ratio, "low": c.low, "high": c.high})),
                "over_control": r.over_control.map(|c| json!({"ratio": c.ratio, "low": c.low, "high": c.high})),
            }),
        ));
    }
    Analysis {
        series,
        tables: tables(m),
        plots: plots(m),
        comparisons: claims.records,
        summary,
        numbers: Numbers {
            neighbour_control,
            maps,
            engine,
            recount,
        },
    }
}
