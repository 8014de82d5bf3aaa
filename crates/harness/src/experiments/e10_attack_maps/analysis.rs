//! E10's analysis: series, tables, plots, claims and the numbers the findings quote.

use super::controls::{gated, record, Controls};
use super::measure::{
    Measurement, Row, CONTROL, CONVERSION, INCREMENTAL, KERNEL_ONLY, MAPS, MAPS_LATENCY,
    MAPS_WITHOUT_AVX512, MATE1, PERFT, RECOUNT, UNION,
};
use crate::experiments::claims::{reading, Claims};
use crate::experiments::held_out::{self, HeldOut};
use crate::experiments::{interval, interval_point, series};
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

/// The fastest cell of some kind, chosen on the choosing invocations: its backend, variant,
/// the typical time that chose it, and its time with its interval over the estimating ones.
#[derive(Clone, Debug)]
pub(super) struct Best {
    pub backend: String,
    pub variant: String,
    /// The typical time over the choosing invocations (carries the winner's luck).
    pub chosen_ns: f64,
    /// Whether the estimate comes from invocations the choice did not see.
    pub held_out: bool,
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
            "chosen_ns": self.chosen_ns,
            "held_out": self.held_out,
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
    /// Within one backend: set-wise over per-piece, the conversion alone, the A/A twin.
    pub controls: Controls,
}

/// The best row of `pool`, chosen on the choosing invocations of `split`, and its figures
/// over the estimating ones (all of them where the pool does not split by invocation).
fn best_of<'a>(pool: &[&'a Row], split: HeldOut, invocations: usize) -> Option<(&'a Row, Best)> {
    let chosen = held_out::choose(pool, |r| r.ns.as_slice(), split, invocations)?;
    let (estimating, k) = &chosen.parts.estimating;
    let best = Best {
        backend: chosen.row.backend.clone(),
        variant: chosen.row.variant.clone(),
        chosen_ns: chosen.chosen_ns,
        held_out: chosen.parts.held_out,
        estimate: interval(estimating, *k),
    };
    Some((chosen.row, best))
}

/// `a`'s time over `b`'s, paired per round, on the estimating invocations when `held_out` (a
/// row among them was chosen on the others) and both rows split by invocation; on all of them
/// otherwise.
fn compare_held_out(
    claims: &mut Claims,
    cell: &str,
    (a_name, a): (&str, &Row),
    (b_name, b): (&str, &Row),
    held_out: bool,
    (split, invocations): (HeldOut, usize),
) -> Option<Comparison> {
    let held_out = held_out && split.splits_all([a.ns.as_slice(), b.ns.as_slice()]);
    let a_ns = split.parts(&a.ns, held_out, invocations).estimating.0;
    let b_ns = split.parts(&b.ns, held_out, invocations).estimating.0;
    claims.with_invocations(split.claims_k(held_out, invocations), |claims| {
        claims.compare(cell, (a_name, &a_ns), (b_name, &b_ns))
    })
}

/// Per map group and set: the best per-piece cell and, per set-wise level, the best cell and
/// its time over the per-piece best (each best chosen apart from the rounds its ratio uses).
///
/// An order inside a failed A/A control's reach on that set is withdrawn (see [`gated`]).
fn map_verdicts(
    m: &Measurement,
    (split, controls): (HeldOut, &Controls),
    claims: &mut Claims,
) -> Vec<MapVerdict> {
    let mut verdicts = Vec::new();
    for group in [MAPS, MAPS_LATENCY, UNION] {
        for (set, _) in &m.sets {
            let pool = |variant: String| -> Vec<&Row> {
                m.rows
                    .iter()
                    .filter(|r| r.group == group && &r.set == set && r.variant == variant)
                    .collect()
            };
            let Some((per_piece_row, per_piece)) =
                best_of(&pool(Method::PerPiece.name()), split, m.invocations)
            else {
                continue;
            };
            let mut set_wise = Vec::new();
            for method in m.methods.iter().filter(|m| **m != Method::PerPiece) {
                if let Some((row, best)) = best_of(&pool(method.name()), split, m.invocations) {
                    let cell = format!("{group} ({set})");
                    let a = format!("{} {}", row.backend, row.variant);
                    let b = format!("{} {}", per_piece_row.backend, per_piece_row.variant);
                    let ratio = compare_held_out(
                        claims,
                        &cell,
                        (&a, row),
                        (&b, per_piece_row),
                        best.held_out && per_piece.held_out,
                        (split, m.invocations),
                    )
                    .map(|c| gated(c, controls.aa_reach(set, m.threshold)));
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

fn recount_verdict(m: &Measurement, split: HeldOut, claims: &mut Claims) -> Option<RecountVerdict> {
    let rows = |incremental: bool| -> Vec<&Row> {
        m.rows
            .iter()
            .filter(|r| r.group == RECOUNT && r.variant != CONTROL)
            .filter(|r| (r.backend == INCREMENTAL) == incremental)
            .collect()
    };
    let (recount_row, best_recount) = best_of(&rows(false), split, m.invocations)?;
    let (incremental_row, best_incremental) = best_of(&rows(true), split, m.invocations)?;
    let name = |r: &Row| format!("{} {}", r.backend, r.variant);
    let ratio = compare_held_out(
        claims,
        RECOUNT,
        (&name(recount_row), recount_row),
        (&name(incremental_row), incremental_row),
        best_recount.held_out && best_incremental.held_out,
        (split, m.invocations),
    );
    // The control is fixed once the recount's backend is chosen: it is compared on the rounds
    // the chosen recount is estimated on.
    let over_control = m
        .row(RECOUNT, &recount_row.set, &recount_row.backend, CONTROL)
        .and_then(|control| {
            compare_held_out(
                claims,
                &format!("{RECOUNT} {}", recount_row.backend),
                (&name(recount_row), recount_row),
                (&name(control), control),
                best_recount.held_out,
                (split, m.invocations),
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
        // MAPS adds the conversion-only and kernel-only cells after the methods.
        let extra = m
            .methods
            .last()
            .filter(|_| group == MAPS)
            .map(|top| {
                [
                    CONVERSION.to_string(),
                    format!("{} {KERNEL_ONLY}", top.name()),
                ]
            })
            .into_iter()
            .flatten();
        let variants: Vec<String> = m.methods.iter().map(|x| x.name()).chain(extra).collect();
        let mut headers = vec!["backend".to_string()];
        for (set, _) in &m.sets {
            for variant in &variants {
                headers.push(format!("{group} {set}: {variant} ({unit})"));
            }
        }
        let rows: Vec<Vec<String>> = m
            .backends
            .iter()
            .map(|b| {
                let mut row = vec![b.to_string()];
                for (set, _) in &m.sets {
                    for variant in &variants {
                        row.push(cell_text(m.row(group, set, b, variant), m.invocations));
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
    headers.extend(m.methods.iter().map(|method| {
        format!(
            "make + recount by {m} + unmake + recount (ns/move)",
            m = method.name()
        )
    }));
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
        "E10 effect counts after every make and unmake: from scratch against incremental",
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
    // Fixed pairs (the neighbour control, king safety per backend) pool every invocation;
    // each "best" cell is chosen on the first invocations and estimated on the rest.
    let split = HeldOut::of(m.invocations);
    let mut claims = Claims::new(m.threshold, m.invocations);
    let neighbour_control = neighbour_control(m, &mut claims);
    let controls = Controls::of(m, &mut claims);
    let maps = map_verdicts(m, (split, &controls), &mut claims);
    let engine = engine_effects(m, &mut claims);
    let recount = recount_verdict(m, split, &mut claims);
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
                    "over_per_piece": ratio.map(|c| record(&c, m.threshold)),
                })).collect::<Vec<_>>(),
                "same_backend": controls.same_backend_json(v.group, &v.set, m.threshold),
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
                           "claim": format!("{:?}", e.ratio.claim),
                           "reading": reading(&e.ratio, m.threshold)})
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
                   "ratios": neighbour_control.iter().map(|c| c.ratio).collect::<Vec<_>>(),
                   "lows": neighbour_control.iter().map(|c| c.low).collect::<Vec<_>>(),
                   "highs": neighbour_control.iter().map(|c| c.high).collect::<Vec<_>>(),
                   "schedule": "ABBA by round"}),
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
                "accounting": "recount after make and after unmake",
            }),
        ));
    }
    summary.extend(controls.summary(m.threshold));
    summary.push((
        "held_out".to_string(),
        json!({"select": split.select, "estimate": split.estimate, "choosing": "last"}),
    ));
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
            controls,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiki_core::simd::SimdLevel;

    const SET_WISE: Method = Method::SetWise(SimdLevel::Portable);

    fn row(group: &'static str, backend: &str, variant: &str, ns: Vec<f64>) -> Row {
        Row {
            group,
            set: "s".into(),
            backend: backend.into(),
            variant: variant.into(),
            ns,
        }
    }

    /// Backends `a` and `b` on one set over `invocations` invocations, with these rows.
    fn measured(rows: Vec<Row>, invocations: usize) -> Measurement {
        Measurement {
            backends: vec!["a", "b"],
            skipped: Vec::new(),
            methods: vec![Method::PerPiece, SET_WISE],
            modes: Vec::new(),
            sets: vec![("s".into(), 10)],
            seed: 0,
            perft_depth: 0,
            mate1_positions: 0,
            recount_moves: 0,
            samples: 2,
            threshold: 0.03,
            verified_positions: 0,
            rows,
            errors: Vec::new(),
            invocations,
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    /// Three invocations of two rounds: `a`'s set-wise cell is fast only in the last
    /// (choosing) invocation, so it is chosen, and its figure and its ratio against the best
    /// per-piece cell come from the other two invocations alone.
    #[test]
    fn the_best_set_wise_is_chosen_on_invocations_its_ratio_does_not_use() {
        let m = measured(
            vec![
                row(MAPS, "a", &Method::PerPiece.name(), vec![2.0; 6]),
                row(MAPS, "b", &Method::PerPiece.name(), vec![2.2; 6]),
                row(
                    MAPS,
                    "a",
                    &SET_WISE.name(),
                    vec![1.5, 1.5, 1.5, 1.5, 1.0, 1.0],
                ),
                row(MAPS, "b", &SET_WISE.name(), vec![1.2; 6]),
            ],
            3,
        );
        let analysis = analyse(&m);
        let verdict = &analysis.numbers.maps[0];
        assert_eq!(verdict.per_piece.backend, "a");
        let (best, ratio) = &verdict.set_wise[0];
        assert_eq!(best.backend, "a");
        assert!(best.held_out);
        assert!(close(best.chosen_ns, 1.0), "{best:?}");
        assert!(close(best.estimate.value, 1.5), "{best:?}");
        let ratio = ratio.expect("a ratio");
        assert!(close(ratio.ratio, 0.75), "{ratio:?}");
        assert_eq!(ratio.invocations, 2);
        let summary = &analysis
            .summary
            .iter()
            .find(|(k, _)| k == "map+counts (s)")
            .expect("the workload")
            .1;
        assert_eq!(summary["best_set_wise"][0]["best"]["held_out"], true);
        assert_eq!(summary["best_set_wise"][0]["best"]["chosen_ns"], 1.0);
        let split = &analysis
            .summary
            .iter()
            .find(|(k, _)| k == "held_out")
            .expect("held_out")
            .1;
        assert_eq!(split["select"], 1);
        assert_eq!(split["estimate"], 2);
    }

    /// The best recount and the best incremental board are chosen on the last invocation;
    /// their ratio, and the recount over its own backend's make+unmake, on the other two.
    #[test]
    fn the_best_recount_is_chosen_on_invocations_its_ratios_do_not_use() {
        let recount = |backend: &str, ns: Vec<f64>| row(RECOUNT, backend, &SET_WISE.name(), ns);
        let m = measured(
            vec![
                row(RECOUNT, "a", CONTROL, vec![1.0; 6]),
                recount("a", vec![5.0, 5.0, 5.0, 5.0, 3.0, 3.0]),
                recount("b", vec![4.0; 6]),
                row(RECOUNT, INCREMENTAL, "board one", vec![2.0; 6]),
                row(RECOUNT, INCREMENTAL, "board two", vec![2.5; 6]),
            ],
            3,
        );
        let analysis = analyse(&m);
        let r = analysis.numbers.recount.expect("a recount verdict");
        assert_eq!(r.best_recount.backend, "a");
        assert!(close(r.best_recount.chosen_ns, 3.0));
        assert!(close(r.best_recount.estimate.value, 5.0));
        assert_eq!(r.best_incremental.variant, "board one");
        let ratio = r.ratio.expect("recount over incremental");
        assert!(close(ratio.ratio, 2.5), "{ratio:?}");
        assert_eq!(ratio.invocations, 2);
        let over_control = r.over_control.expect("recount over its control");
        assert!(close(over_control.ratio, 5.0), "{over_control:?}");
        assert_eq!(over_control.invocations, 2);
    }

    /// Below three invocations nothing is held out: the best is chosen and estimated on the
    /// same rounds, and says so.
    #[test]
    fn two_invocations_choose_and_estimate_on_the_same_rounds() {
        let m = measured(
            vec![
                row(MAPS, "a", &Method::PerPiece.name(), vec![2.0; 4]),
                row(MAPS, "a", &SET_WISE.name(), vec![1.0; 4]),
            ],
            2,
        );
        let analysis = analyse(&m);
        let (best, ratio) = &analysis.numbers.maps[0].set_wise[0];
        assert!(!best.held_out);
        assert_eq!(ratio.expect("a ratio").invocations, 2);
    }

    /// Within one backend: `a`'s set-wise cell takes half its per-piece time (faster), `b`'s
    /// the same (level); the A/A twin equals its original (level, within the threshold); the
    /// conversion alone takes 0.25, and `a`'s set-wise cell is ×1.25 its kernel-only cell;
    /// the two backends' kernel-only cells are level.
    #[test]
    fn the_controls_within_one_backend() {
        use super::super::measure::{AA_TWIN, CONVERSION, KERNEL_ONLY};
        let noisy = |x: f64| vec![x, x * 1.001, x * 0.999, x, x * 1.001, x * 0.999];
        let m = measured(
            vec![
                row(MAPS, "a", &Method::PerPiece.name(), noisy(2.0)),
                row(MAPS, "a", &SET_WISE.name(), noisy(1.0)),
                row(MAPS, "b", &Method::PerPiece.name(), noisy(1.0)),
                row(MAPS, "b", &SET_WISE.name(), noisy(1.0)),
                row(MAPS, "a", CONVERSION, noisy(0.25)),
                row(
                    MAPS,
                    "a",
                    &format!("{} {KERNEL_ONLY}", SET_WISE.name()),
                    noisy(0.8),
                ),
                row(
                    MAPS,
                    "b",
                    &format!("{} {KERNEL_ONLY}", SET_WISE.name()),
                    noisy(0.8),
                ),
                row(
                    MAPS,
                    "a",
                    &format!("{} {AA_TWIN}", SET_WISE.name()),
                    noisy(1.0),
                ),
            ],
            3,
        );
        let analysis = analyse(&m);
        let controls = &analysis.numbers.controls;
        let ratio = |backend: &str| {
            controls
                .same_backend
                .iter()
                .find(|s| s.group == MAPS && s.backend == backend)
                .expect("a same-backend ratio")
                .ratio
        };
        assert!(close(ratio("a").ratio, 0.5), "{:?}", ratio("a"));
        assert_eq!(ratio("a").claim, crate::stats::Claim::Faster);
        assert!(close(ratio("b").ratio, 1.0), "{:?}", ratio("b"));
        assert_eq!(ratio("b").claim, crate::stats::Claim::Level);
        assert_eq!(
            ratio("a").invocations,
            3,
            "fixed pairs pool every invocation"
        );
        let aa = &controls.aa[0];
        assert_eq!(
            (aa.backend.as_str(), aa.method.clone()),
            ("a", SET_WISE.name())
        );
        assert!(aa.ratio.within(m.threshold), "{:?}", aa.ratio);
        let conversion = &controls.conversion[0];
        assert!(
            (conversion.alone.value - 0.25).abs() < 1e-3,
            "{:?}",
            conversion.alone
        );
        let in_place = conversion.in_place.expect("set-wise over kernel-only");
        assert!(close(in_place.ratio, 1.25), "{in_place:?}");
        let kernel = &controls.kernel[0];
        assert_eq!(
            (kernel.backend.as_str(), kernel.against.as_str()),
            ("b", "a")
        );
        assert!(kernel.ratio.within(m.threshold), "{:?}", kernel.ratio);
        let key = |k: &str| {
            analysis
                .summary
                .iter()
                .find(|(key, _)| key == k)
                .unwrap_or_else(|| panic!("{k}"))
                .1
                .clone()
        };
        assert_eq!(
            key("map+counts (s)")["same_backend"]
                .as_array()
                .map(Vec::len),
            Some(2)
        );
        assert_eq!(key("aa_control")[0]["within_threshold"], true);
        assert_eq!(key("aa_control")[0]["reading"], "level");
        let same_backend = &key("map+counts (s)")["same_backend"];
        assert_eq!(same_backend[0]["reading"], "faster", "a's set-wise cell");
        assert_eq!(same_backend[1]["reading"], "level", "b's set-wise cell");
        assert_eq!(
            key("conversion_only")[0]["in_place"]["reading"],
            "slower",
            "set-wise over kernel-only"
        );
        assert_eq!(key("conversion_only")[0]["backend"], "a");
        assert_eq!(key("kernel_only_control")[0]["within_threshold"], true);
        // Neither new cell can be chosen as a best cell.
        assert_eq!(analysis.numbers.maps[0].set_wise.len(), 1);
        assert_ne!(analysis.numbers.maps[0].set_wise[0].0.variant, CONVERSION);
    }

    /// A failed A/A control withdraws the orders inside its reach: the twin swings ±30 % from
    /// round to round, so `a`'s set-wise cell at 0.9 of its per-piece time (faster at ±3 %
    /// without the control) reads as unresolved, in the best set-wise verdict and in the
    /// same-backend entry alike.
    #[test]
    fn a_failed_aa_control_withdraws_orders_inside_its_reach() {
        use super::super::measure::AA_TWIN;
        let swing = vec![0.7, 1.0 / 0.7, 0.7, 1.0 / 0.7, 0.7, 1.0 / 0.7];
        let m = measured(
            vec![
                row(MAPS, "a", &Method::PerPiece.name(), vec![1.0; 6]),
                row(MAPS, "a", &SET_WISE.name(), vec![0.9; 6]),
                row(MAPS, "a", &format!("{} {AA_TWIN}", SET_WISE.name()), swing),
            ],
            3,
        );
        let analysis = analyse(&m);
        let reach = analysis.numbers.controls.aa_reach("s", m.threshold);
        assert!(reach > 0.1, "{reach}");
        let same = &analysis.numbers.controls.same_backend[0].ratio;
        assert_eq!(same.claim, crate::stats::Claim::Faster, "the raw claim");
        let ratio = analysis.numbers.maps[0].set_wise[0].1.expect("a ratio");
        assert!(close(ratio.ratio, 0.9), "{ratio:?}");
        assert_eq!(ratio.claim, crate::stats::Claim::Level, "withdrawn");
        let workload = &analysis
            .summary
            .iter()
            .find(|(k, _)| k == "map+counts (s)")
            .expect("the workload")
            .1;
        assert_eq!(workload["same_backend"][0]["claim"], "Level");
        assert_eq!(workload["same_backend"][0]["reading"], "withdrawn");
        let over_per_piece = &workload["best_set_wise"][0]["over_per_piece"];
        assert_eq!(over_per_piece["claim"], "Level");
        assert_eq!(over_per_piece["reading"], "withdrawn");
        let findings = super::super::findings::paragraph(&m, &analysis.numbers);
        assert!(findings.contains("is withdrawn"), "{findings}");
    }
}
