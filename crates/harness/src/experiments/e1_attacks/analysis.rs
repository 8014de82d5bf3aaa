//! E1's analysis: series, tables, plots, claims and the numbers the findings quote.

use super::measure::{BatchCell, Cell, Measurement, ONE_AT_A_TIME};
use super::Mode;
use crate::experiments::claims::Claims;
use crate::experiments::{
    blocks, interval, interval_point, per_second_millions, ranked, series, summarise, typical,
    INTERVAL_SEED,
};
use crate::results::{PairRecord, Plot, PlotKind, PlotLine, Series, Table};
use crate::stats::{estimate_linear, format_interval, Claim, Comparison, Estimate, Summary};
use crate::workloads::PieceGroup;
use serde_json::Value as Json;

/// E1's series, tables, plots, comparisons and summary, and the numbers the findings quote.
pub(super) struct Analysis<'a> {
    pub series: Vec<Series>,
    /// One table per mode, then the counter tables.
    pub tables: Vec<Table>,
    pub plots: Vec<Plot>,
    /// Every comparison the findings rest on, in the order they were made.
    pub comparisons: Vec<PairRecord>,
    pub summary: Vec<(String, Json)>,
    pub numbers: Numbers<'a>,
}

/// What the findings paragraph quotes.
pub(super) struct Numbers<'a> {
    /// Per mode, the fastest backend of each workload's mixed cell (where two or more ran).
    pub leaders: Vec<(Mode, Vec<Leader>)>,
    /// Per workload, what mixing the kinds costs by itself (ns, median over backends).
    pub mixing: Vec<(String, f64)>,
    /// Per mode, the cells each backend clearly won.
    pub wins: Vec<Wins>,
    /// The cell with the largest spread, and its MAD relative to its median.
    pub noisiest: Option<(f64, &'a Cell)>,
    /// Batch levels against the plain loop, per backend and kind.
    pub batch: Vec<BatchGain>,
    /// With a measured clock: pext's throughput cycles per lookup, per kind in
    /// `CYCLE_TARGETS`, on every workload it was timed on.
    pub pext_cycles: Vec<KindCycles>,
}

/// The backend, kinds and targets (cycles per lookup, throughput) the issue names.
pub(super) const CYCLE_BACKEND: &str = "pext";
pub(super) const CYCLE_TARGETS: [(PieceGroup, f64); 2] =
    [(PieceGroup::Rook, 2.5), (PieceGroup::Bishop, 2.0)];

/// One kind's cycles per lookup against its target, per workload.
pub(super) struct KindCycles {
    pub piece: PieceGroup,
    pub target: f64,
    /// (workload, cycles per lookup with its interval).
    pub cells: Vec<(String, Estimate)>,
    /// Per workload where the null lookup ran beside the cell: the null loop's cycles per
    /// lookup, and the cell's net of it (the per-round difference), each with its interval.
    pub net: Vec<NetCycles>,
}

/// A cell's cycles per lookup net of the null-lookup loop timed in the same rounds.
pub(super) struct NetCycles {
    pub workload: String,
    /// The null loop's cycles per lookup (the loop, the input stream, the fold).
    pub null: Estimate,
    /// The cell's cycles minus the null loop's, round by round.
    pub net: Estimate,
}

/// Each sample in cycles: each invocation's ns × that invocation's own clock where every one
/// was measured, else ns × the median clock; `None` without a clock.
fn in_cycles(ns: &[f64], m: &Measurement) -> Option<Vec<f64>> {
    let k = m.invocations;
    let own: Option<Vec<f64>> = m.clocks_ghz.iter().copied().collect();
    match own {
        Some(clocks) if clocks.len() == k && k > 0 && ns.len().is_multiple_of(k) => {
            let per = (ns.len() / k).max(1);
            Some(
                ns.iter()
                    .enumerate()
                    .map(|(i, x)| x * clocks[i / per])
                    .collect(),
            )
        }
        _ => m.clock_ghz.map(|ghz| ns.iter().map(|x| x * ghz).collect()),
    }
}

/// Cycles per lookup with its interval (see [`in_cycles`]).
fn cycles(ns: &[f64], m: &Measurement) -> Option<Estimate> {
    Some(interval(&in_cycles(ns, m)?, m.invocations))
}

/// `cell`'s cycles net of `null`'s, taken round by round (both timed in the same interleaved
/// rounds), and the null's own. The net takes the gross figure's estimator (the geometric mean
/// of the invocations' medians, the same bootstrap draws) wherever every invocation's median
/// difference is positive, so that it can never exceed the gross figure: a round whose
/// difference is zero or negative (noise) counts as the smallest positive difference measured,
/// which leaves every positive median as it is and only widens the interval. Only where an
/// invocation's median is not positive (a lookup no dearer than the loop around it) is the
/// arithmetic mean taken.
fn net_cycles(cell: &Cell, null: &Cell, m: &Measurement) -> Option<NetCycles> {
    if cell.ns.len() != null.ns.len() {
        return None;
    }
    let (gross, baseline) = (in_cycles(&cell.ns, m)?, in_cycles(&null.ns, m)?);
    let differences: Vec<f64> = gross.iter().zip(&baseline).map(|(a, b)| a - b).collect();
    let k = m.invocations;
    let medians_positive = blocks(&differences, k).iter().all(|b| {
        let finite: Vec<f64> = b.iter().copied().filter(|d| d.is_finite()).collect();
        Summary::of(&finite).is_some_and(|s| s.median > 0.0)
    });
    let net = if medians_positive {
        // The floor is the smallest positive difference measured, not the least positive
        // number: a logarithm of -708 drawn into the geometric estimator's resamples blew its
        // interval up (the -11-29-3 report printed 0.000 to 8e45 cycles).
        let floor = differences
            .iter()
            .copied()
            .filter(|d| d.is_finite() && *d > 0.0)
            .fold(f64::INFINITY, f64::min);
        let floored: Vec<f64> = differences
            .iter()
            .map(|&d| if d.is_finite() { d.max(floor) } else { d })
            .collect();
        interval(&floored, k)
    } else {
        estimate_linear(&blocks(&differences, k), INTERVAL_SEED)?
    };
    Some(NetCycles {
        workload: cell.workload.clone(),
        null: interval(&baseline, k),
        net,
    })
}

/// The clock the cycles come from, for headers and sentences: `2.67 GHz`, or `each invocation's
/// own clock, 2.57–2.87 GHz`.
pub(super) fn clock_words(m: &Measurement) -> Option<String> {
    let ghz = m.clock_ghz?;
    let own: Vec<f64> = m.clocks_ghz.iter().flatten().copied().collect();
    let (low, high) = own
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &x| {
            (l.min(x), h.max(x))
        });
    Some(
        if own.len() == m.invocations
            && own.len() > 1
            && format!("{low:.2}") != format!("{high:.2}")
        {
            format!("each invocation's own clock, {low:.2}–{high:.2} GHz")
        } else {
            format!("{ghz:.2} GHz")
        },
    )
}

/// The targets: on every workload, pext's throughput cycles per lookup for each kind.
fn pext_cycles(m: &Measurement) -> Vec<KindCycles> {
    if !m.backends.contains(&CYCLE_BACKEND) {
        return Vec::new();
    }
    CYCLE_TARGETS
        .iter()
        .map(|&(piece, target)| {
            let timed: Vec<(&str, &Cell)> = workload_names(m)
                .into_iter()
                .filter_map(|w| Some((w, m.cell(w, piece, Mode::Throughput, CYCLE_BACKEND)?)))
                .collect();
            KindCycles {
                piece,
                target,
                cells: timed
                    .iter()
                    .filter_map(|(w, cell)| Some((w.to_string(), cycles(&cell.ns, m)?)))
                    .collect(),
                net: timed
                    .iter()
                    .filter_map(|(w, cell)| {
                        net_cycles(cell, m.null_cell(w, piece, CYCLE_BACKEND)?, m)
                    })
                    .collect(),
            }
        })
        .filter(|k| !k.cells.is_empty())
        .collect()
}

/// The null-lookup loop's ns per lookup, per workload and mode: `{workload: {mode: [{piece,
/// backend, ns, low, high}]}}`, each with its interval over every invocation.
fn null_baseline(m: &Measurement) -> Json {
    let mut by_workload = serde_json::Map::new();
    for workload in workload_names(m) {
        let mut by_mode = serde_json::Map::new();
        for mode in Mode::BOTH {
            let cells: Vec<Json> = m
                .null
                .iter()
                .filter(|c| c.workload == workload && c.mode == mode)
                .map(|c| {
                    let e = interval(&c.ns, m.invocations);
                    serde_json::json!({"piece": c.piece.name(), "backend": c.backend,
                                       "ns": e.value, "low": e.low, "high": e.high})
                })
                .collect();
            if !cells.is_empty() {
                by_mode.insert(mode.name().to_string(), Json::from(cells));
            }
        }
        if !by_mode.is_empty() {
            by_workload.insert(workload.to_string(), Json::Object(by_mode));
        }
    }
    Json::Object(by_workload)
}

/// The fastest backend of one workload's mixed cell, against the runner-up and the slowest.
pub(super) struct Leader {
    pub workload: String,
    pub best: &'static str,
    /// The best's median ns per lookup.
    pub best_ns: f64,
    pub second: &'static str,
    /// The runner-up's times against the best's (`None`: no paired samples).
    pub against_second: Option<Comparison>,
    pub worst: &'static str,
    /// The slowest's time over the best's, median of the paired ratios (NaN without pairs).
    /// The slowest's time over the fastest's.
    pub gap: Option<Comparison>,
}

/// How many workload × piece cells each backend won clearly in one mode.
pub(super) struct Wins {
    pub mode: Mode,
    /// Per backend its clear wins, most first.
    pub counts: Vec<(&'static str, usize)>,
    /// Cells with at least one backend timed.
    pub total: usize,
    /// Cells whose runner-up was within the threshold of the fastest.
    pub ties: usize,
}

impl Wins {
    /// The backend that won more cells than any other, if one did.
    pub fn winner(&self) -> Option<&'static str> {
        let counts = &self.counts;
        (self.total > 0 && counts[0].1 > 0 && counts.get(1).is_none_or(|w| w.1 < counts[0].1))
            .then_some(counts[0].0)
    }
}

/// Turns E1's measurement into series, tables, plots, claims and numbers.
pub(super) fn analyse(m: &Measurement) -> Analysis<'_> {
    let mut series = raw_series(&m.cells);
    // The null-lookup loop's samples, each labelled with the cell it ran beside.
    series.extend(raw_series(&m.null).into_iter().map(|mut s| {
        s.labels.push(("lookup".to_string(), "null".to_string()));
        s
    }));
    series.extend(m.counter_log.series());
    series.extend(m.batch.iter().map(|c| {
        crate::experiments::series(
            &[
                ("backend", &c.backend),
                ("piece", c.piece.name()),
                ("workload", &m.batch_workload),
                ("mode", &c.variant),
            ],
            "ns/lookup",
            c.ns.clone(),
        )
    }));
    let mut tables: Vec<Table> = Mode::BOTH.iter().map(|&mode| table(m, mode)).collect();
    if let Some(batch) = batch_table(m) {
        tables.push(batch);
    }
    // Counters, where the machine has them: per backend, the mean over the throughput cells.
    tables.extend(m.counter_log.table(&["backend"], |label| {
        label("mode").as_deref() == Some(Mode::Throughput.name())
    }));
    let plots = Mode::BOTH.iter().flat_map(|&mode| plots(m, mode)).collect();
    // The claims are made in the order the findings quote them: leaders, then wins.
    let mut claims = Claims::new(m.threshold, m.invocations);
    let leaders: Vec<(Mode, Vec<Leader>)> = Mode::BOTH
        .iter()
        .map(|&mode| (mode, leaders(m, mode, &mut claims)))
        .collect();
    let wins = Mode::BOTH
        .iter()
        .map(|&mode| wins(m, mode, &mut claims))
        .collect();
    let batch = batch_gains(m, &mut claims);
    let mut summary: Vec<(String, Json)> = leaders
        .iter()
        .flat_map(|(mode, leaders)| {
            leaders.iter().map(move |l| {
                (
                    format!("{}_best_{}", mode.name(), l.workload),
                    Json::from(l.best),
                )
            })
        })
        .collect();
    summary.push(("counters".to_string(), Json::from(m.counter_log.note())));
    let pext_cycles = pext_cycles(m);
    if let Some(ghz) = m.clock_ghz {
        summary.push(("clock_ghz".to_string(), Json::from(ghz)));
        summary.push((
            "clocks_ghz".to_string(),
            serde_json::to_value(&m.clocks_ghz).unwrap_or(Json::Null),
        ));
    }
    summary.push(("null_baseline_ns".to_string(), null_baseline(m)));
    for kind in &pext_cycles {
        // Per workload the median cycles per lookup with its interval, and the target.
        let cells: serde_json::Map<String, Json> = kind
            .cells
            .iter()
            .map(|(w, e)| {
                let mut cell =
                    serde_json::json!({"cycles": e.value, "low": e.low, "high": e.high});
                if let Some(n) = kind.net.iter().find(|n| &n.workload == w) {
                    cell["null"] =
                        serde_json::json!({"cycles": n.null.value, "low": n.null.low, "high": n.null.high});
                    cell["net"] =
                        serde_json::json!({"cycles": n.net.value, "low": n.net.low, "high": n.net.high});
                }
                (w.clone(), cell)
            })
            .collect();
        summary.push((
            format!(
                "{CYCLE_BACKEND}_throughput_cycles_per_lookup_{}",
                kind.piece.name()
            ),
            serde_json::json!({"target": kind.target, "workloads": cells}),
        ));
    }
    Analysis {
        series,
        tables,
        plots,
        comparisons: claims.records,
        summary,
        numbers: Numbers {
            leaders,
            mixing: mixing(m),
            wins,
            noisiest: noisiest(&m.cells),
            batch,
            pext_cycles,
        },
    }
}

/// A batch level against the plain loop on one backend and kind (paired per round).
pub(super) struct BatchGain {
    pub backend: String,
    pub piece: &'static str,
    pub variant: String,
    /// The batch's time over the loop's.
    pub ratio: Comparison,
}

fn batch_gains(m: &Measurement, claims: &mut Claims) -> Vec<BatchGain> {
    let mut gains = Vec::new();
    for cell in m.batch.iter().filter(|c| c.variant != ONE_AT_A_TIME) {
        let Some(base) = m.batch.iter().find(|b| {
            b.backend == cell.backend && b.piece == cell.piece && b.variant == ONE_AT_A_TIME
        }) else {
            continue;
        };
        let label = format!("batch {} {}", cell.backend, cell.piece.name());
        if let Some(ratio) =
            claims.compare(&label, (&cell.variant, &cell.ns), (ONE_AT_A_TIME, &base.ns))
        {
            gains.push(BatchGain {
                backend: cell.backend.clone(),
                piece: cell.piece.name(),
                variant: cell.variant.clone(),
                ratio,
            });
        }
    }
    gains
}

/// Batch against one at a time: a row per backend and kind, a column per variant.
fn batch_table(m: &Measurement) -> Option<Table> {
    let mut variants: Vec<&str> = Vec::new();
    for c in &m.batch {
        if !variants.contains(&c.variant.as_str()) {
            variants.push(&c.variant);
        }
    }
    if variants.is_empty() {
        return None;
    }
    let mut headers = vec!["backend".to_string(), "piece".to_string()];
    for v in &variants {
        headers.push(format!("{v} ns/lookup ({})", m.batch_workload));
        if let Some(clock) = clock_words(m) {
            headers.push(format!(
                "{v} cycles/lookup at {clock} ({})",
                m.batch_workload
            ));
        }
    }
    let mut rows = Vec::new();
    for backend in &m.backends {
        for piece in [PieceGroup::Rook, PieceGroup::Bishop] {
            let cells: Vec<Option<&BatchCell>> = variants
                .iter()
                .map(|v| {
                    m.batch
                        .iter()
                        .find(|c| c.backend == *backend && c.piece == piece && c.variant == *v)
                })
                .collect();
            if cells.iter().all(|c| c.is_none()) {
                continue;
            }
            let mut row = vec![backend.to_string(), piece.name().to_string()];
            for c in &cells {
                let timed = c.filter(|c| !c.ns.is_empty());
                row.push(timed.map_or("–".to_string(), |c| {
                    format_interval(&interval(&c.ns, m.invocations))
                }));
                if m.clock_ghz.is_some() {
                    row.push(
                        timed
                            .and_then(|c| cycles(&c.ns, m))
                            .map_or("–".to_string(), |e| format_interval(&e)),
                    );
                }
            }
            rows.push(row);
        }
    }
    Some(Table { headers, rows })
}

fn workload_names(m: &Measurement) -> Vec<&str> {
    m.workloads.iter().map(|(w, _)| w.name.as_str()).collect()
}

/// Every cell's samples as a raw series.
fn raw_series(cells: &[Cell]) -> Vec<Series> {
    cells
        .iter()
        .map(|c| {
            series(
                &[
                    ("backend", &c.backend),
                    ("piece", c.piece.name()),
                    ("workload", &c.workload),
                    ("mode", c.mode.name()),
                ],
                "ns/lookup",
                c.ns.clone(),
            )
        })
        .collect()
}

/// One mode's table: a row per (workload, piece), a column per backend.
fn table(m: &Measurement, mode: Mode) -> Table {
    let mut headers = vec!["workload".to_string(), "piece".to_string()];
    for b in &m.backends {
        headers.push(format!("{b} ns/lookup ({})", mode.name()));
        if let Some(clock) = clock_words(m) {
            headers.push(format!("{b} cycles/lookup at {clock} ({})", mode.name()));
        }
    }
    let mut rows = Vec::new();
    for (workload, groups) in &m.workloads {
        for &group in groups {
            if m.cell(&workload.name, group, mode, m.backends[0]).is_none() {
                continue;
            }
            let mut row = vec![workload.name.clone(), group.name().to_string()];
            for backend in &m.backends {
                let cell = m.cell(&workload.name, group, mode, backend);
                row.push(match cell {
                    Some(c) => format_interval(&interval(&c.ns, m.invocations)),
                    None => "–".to_string(),
                });
                if m.clock_ghz.is_some() {
                    row.push(
                        cell.and_then(|c| cycles(&c.ns, m))
                            .map_or("–".to_string(), |e| format_interval(&e)),
                    );
                }
            }
            rows.push(row);
        }
    }
    Table { headers, rows }
}

/// Throughput plots in million lookups per second, latency plots in ns.
fn plotted(mode: Mode, ns: f64) -> f64 {
    match mode {
        Mode::Throughput => per_second_millions(ns),
        Mode::Latency => ns,
    }
}

fn y_label(mode: Mode) -> &'static str {
    match mode {
        Mode::Throughput => "million lookups / s (higher is better)",
        Mode::Latency => "ns per dependent lookup (lower is better)",
    }
}

/// A bar plot of `lines` over `categories`.
fn bar_plot(
    file_stem: String,
    title: String,
    x_label: &str,
    mode: Mode,
    categories: Vec<String>,
    lines: Vec<PlotLine>,
) -> Plot {
    Plot {
        file_stem,
        title,
        x_label: x_label.to_string(),
        y_label: y_label(mode).to_string(),
        log_x: false,
        log_y: false,
        kind: PlotKind::Bar,
        categories,
        markers: Vec::new(),
        lines,
    }
}

/// One mode's plots: per workload (each kind on its own, the headline), per piece (uniform
/// 25 %), and per workload with the kinds mixed.
fn plots(m: &Measurement, mode: Mode) -> Vec<Plot> {
    let workload_names = workload_names(m);
    let categories: Vec<String> = workload_names.iter().map(|s| s.to_string()).collect();
    // The headline: per workload, each slider kind timed on its own (the mean of the
    // single-kind cells, each kind weighted alike), so the lookups are compared and not the
    // dispatch on a randomly drawn kind.
    let single_kind: Vec<PlotLine> = m
        .backends
        .iter()
        .map(|backend| PlotLine {
            name: backend.to_string(),
            points: workload_names
                .iter()
                .enumerate()
                .filter_map(|(i, w)| {
                    let kinds: Vec<&[f64]> = PieceGroup::KINDS
                        .iter()
                        .filter_map(|&g| m.cell(w, g, mode, backend))
                        .map(|c| c.ns.as_slice())
                        .collect();
                    let rounds = kinds.iter().map(|k| k.len()).min()?;
                    if kinds.is_empty() || kinds.iter().any(|k| k.len() != rounds) {
                        return None;
                    }
                    // Round r of every kind belongs to the same invocation: the per-round mean
                    // over kinds keeps the blocks the interval resamples.
                    let grouped: Vec<f64> = (0..rounds)
                        .map(|r| kinds.iter().map(|k| k[r]).sum::<f64>() / kinds.len() as f64)
                        .collect();
                    Some(interval_point(
                        i as f64,
                        &interval(&grouped, m.invocations).map(|ns| plotted(mode, ns)),
                    ))
                })
                .collect(),
        })
        .collect();
    let by_piece: Vec<PlotLine> = m
        .backends
        .iter()
        .map(|backend| PlotLine {
            name: backend.to_string(),
            points: PieceGroup::KINDS
                .iter()
                .enumerate()
                .filter_map(|(i, &g)| {
                    m.cell("uniform-25", g, mode, backend).map(|c| {
                        interval_point(
                            i as f64,
                            &interval(&c.ns, m.invocations).map(|ns| plotted(mode, ns)),
                        )
                    })
                })
                .collect(),
        })
        .collect();
    let by_workload: Vec<PlotLine> = m
        .backends
        .iter()
        .map(|backend| PlotLine {
            name: backend.to_string(),
            points: workload_names
                .iter()
                .enumerate()
                .filter_map(|(i, w)| {
                    m.cell(w, PieceGroup::Mixed, mode, backend).map(|c| {
                        interval_point(
                            i as f64,
                            &interval(&c.ns, m.invocations).map(|ns| plotted(mode, ns)),
                        )
                    })
                })
                .collect(),
        })
        .collect();
    vec![
        bar_plot(
            format!("e1-{}-by-workload-single-kind", mode.name()),
            format!(
                "E1 attack {} by workload (each slider kind on its own, mean over kinds)",
                mode.name()
            ),
            "workload",
            mode,
            categories.clone(),
            single_kind,
        ),
        bar_plot(
            format!("e1-{}-by-piece", mode.name()),
            format!(
                "E1 attack {} by piece (uniform occupancy, 25 %)",
                mode.name()
            ),
            "piece",
            mode,
            PieceGroup::KINDS
                .iter()
                .map(|g| g.name().to_string())
                .collect(),
            by_piece,
        ),
        bar_plot(
            format!("e1-{}-by-workload", mode.name()),
            format!(
                "E1 attack {} by workload, secondary view: slider kinds mixed at random per \
                 lookup (includes the kind dispatch's mispredicts)",
                mode.name()
            ),
            "workload",
            mode,
            categories,
            by_workload,
        ),
    ]
}

/// Per workload with two or more backends on its mixed cell: the fastest by median, against
/// the runner-up (recorded in `claims`) and the slowest.
fn leaders(m: &Measurement, mode: Mode, claims: &mut Claims) -> Vec<Leader> {
    let mut leaders = Vec::new();
    for w in workload_names(m) {
        let entries: Vec<(&str, f64)> = m
            .backends
            .iter()
            .filter_map(|b| {
                m.cell(w, PieceGroup::Mixed, mode, b)
                    .map(|c| (*b, typical(&c.ns, m.invocations)))
            })
            .collect();
        let order = ranked(&entries);
        if order.len() < 2 {
            continue;
        }
        let best = order[0].0;
        let second = order[1].0;
        let worst = order[order.len() - 1].0;
        let ns = |b: &str| &m.cell(w, PieceGroup::Mixed, mode, b).expect("ranked").ns;
        let cell = format!("{} {w} mixed", mode.name());
        let gap = claims.compare(&cell, (worst, ns(worst)), (best, ns(best)));
        let against_second = claims.compare(&cell, (second, ns(second)), (best, ns(best)));
        leaders.push(Leader {
            workload: w.to_string(),
            best,
            best_ns: order[0].1,
            second,
            against_second,
            worst,
            gap,
        });
    }
    leaders
}

/// What mixing the kinds costs by itself: mixed cells against the mean of the same
/// workload's single-kind cells, per backend, then the median over backends.
fn mixing(m: &Measurement) -> Vec<(String, f64)> {
    let mut mixing = Vec::new();
    for (workload, groups) in &m.workloads {
        if !groups.contains(&PieceGroup::Mixed) {
            continue;
        }
        let mut extra: Vec<f64> = Vec::new();
        for backend in &m.backends {
            let median_of = |group| {
                m.cell(&workload.name, group, Mode::Throughput, backend)
                    .map(|c| typical(&c.ns, m.invocations))
            };
            let singles: Vec<f64> = groups
                .iter()
                .filter(|g| **g != PieceGroup::Mixed)
                .filter_map(|&g| median_of(g))
                .collect();
            if let (Some(mixed), false) = (median_of(PieceGroup::Mixed), singles.is_empty()) {
                extra.push(mixed - singles.iter().sum::<f64>() / singles.len() as f64);
            }
        }
        if let Some(summary) = Summary::of(&extra) {
            mixing.push((workload.name.clone(), summary.median));
        }
    }
    mixing
}

/// Who wins most cells in `mode`. A cell is won only when its fastest is ahead of the
/// runner-up beyond the threshold (recorded in `claims`); otherwise it is a tie between them.
fn wins(m: &Measurement, mode: Mode, claims: &mut Claims) -> Wins {
    let mut counts: Vec<(&'static str, usize)> = m.backends.iter().map(|b| (*b, 0)).collect();
    let (mut total, mut ties) = (0, 0);
    for (workload, groups) in &m.workloads {
        for &group in groups {
            let mut ranked_cells: Vec<&Cell> = m
                .backends
                .iter()
                .filter_map(|b| m.cell(&workload.name, group, mode, b))
                .collect();
            ranked_cells.sort_by(|a, b| {
                typical(&a.ns, m.invocations).total_cmp(&typical(&b.ns, m.invocations))
            });
            let Some(best) = ranked_cells.first() else {
                continue;
            };
            total += 1;
            let clear = ranked_cells.get(1).is_none_or(|second| {
                let cell = format!("{} {} {}", mode.name(), workload.name, group.name());
                claims
                    .compare(
                        &cell,
                        (&second.backend, &second.ns),
                        (&best.backend, &best.ns),
                    )
                    .is_some_and(|c| c.claim == Claim::Slower)
            });
            if !clear {
                ties += 1;
            } else if let Some(w) = counts.iter_mut().find(|(b, _)| *b == best.backend) {
                w.1 += 1;
            }
        }
    }
    counts.sort_by_key(|w| std::cmp::Reverse(w.1));
    Wins {
        mode,
        counts,
        total,
        ties,
    }
}

/// The cell with the largest MAD relative to its median.
fn noisiest(cells: &[Cell]) -> Option<(f64, &Cell)> {
    cells
        .iter()
        .map(|c| (summarise(&c.ns).relative_mad(), c))
        .max_by(|a, b| a.0.total_cmp(&b.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::Config;
    use crate::invocations::Invocation;

    /// Two invocations at 2 and 3 GHz: each one's rounds are converted at its own clock, and
    /// the sentence names the range.
    #[test]
    fn each_invocation_converts_at_its_own_clock() {
        let config = Config {
            backends: vec!["dbb".to_string()],
            ..Config::smoke()
        };
        let one = super::super::measure::measure(&config, Invocation::ONLY, &mut |_, _| {});
        let clocked = |ghz: f64| {
            let mut part = one.clone();
            part.clock_ghz = Some(ghz);
            part.clocks_ghz = vec![Some(ghz)];
            for cell in &mut part.cells {
                cell.ns = vec![1.0; cell.ns.len()];
            }
            part
        };
        let m = super::super::measure::merge(&[clocked(2.0), clocked(3.0)]).unwrap();
        assert_eq!(m.clocks_ghz, vec![Some(2.0), Some(3.0)]);
        let cell = &m.cells[0];
        let e = cycles(&cell.ns, &m).expect("clocks measured");
        // Half the rounds at 2 cycles, half at 3: the geometric mean of the invocations'.
        assert!((e.value - 6f64.sqrt()).abs() < 1e-9, "{e:?}");
        assert_eq!(
            clock_words(&m).unwrap(),
            "each invocation's own clock, 2.00–3.00 GHz"
        );
        // Net of the null loop, round by round at each invocation's clock: a cell of 1 ns
        // beside a null of 0.25 ns nets 0.75 ns, 1.5 cycles at 2 GHz and 2.25 at 3 GHz.
        let with_null = |ghz: f64| {
            let mut part = clocked(ghz);
            for null in &mut part.null {
                null.ns = vec![0.25; null.ns.len()];
            }
            part
        };
        let m = super::super::measure::merge(&[with_null(2.0), with_null(3.0)]).unwrap();
        let null = &m.null[0];
        let cell = m
            .cell(&null.workload, null.piece, null.mode, &null.backend)
            .unwrap();
        let net = net_cycles(cell, null, &m).unwrap();
        // The gross figure's estimator: the geometric mean of the invocations' medians.
        assert!(
            (net.net.value - (1.5f64 * 2.25).sqrt()).abs() < 1e-9,
            "{:?}",
            net.net
        );
        assert!(net.net.low <= net.net.value && net.net.value <= net.net.high);
        assert!((net.null.value - (0.5f64 * 0.75).sqrt()).abs() < 1e-9);

        // Invocations far apart (as microcoded PEXT's are, ×2.4 between them) and rounds that
        // vary: with a positive null loop the net figure stays under the gross one (a
        // different estimator for the two put it above). Its interval may reach higher: a
        // difference is the less certain of the two.
        let skewed = |ghz: f64, scale: f64| {
            let mut part = clocked(ghz);
            for cell in &mut part.cells {
                let n = cell.ns.len();
                cell.ns = (0..n)
                    .map(|i| scale * (1.0 + 0.3 * (i % 5) as f64))
                    .collect();
            }
            for null in &mut part.null {
                let n = null.ns.len();
                null.ns = (0..n).map(|i| 0.05 + 0.01 * (i % 3) as f64).collect();
            }
            part
        };
        let m =
            super::super::measure::merge(&[skewed(2.0, 1.0), skewed(2.1, 2.4), skewed(1.9, 1.1)])
                .unwrap();
        for null in &m.null {
            let cell = m
                .cell(&null.workload, null.piece, null.mode, &null.backend)
                .unwrap();
            let gross = cycles(&cell.ns, &m).unwrap();
            let net = net_cycles(cell, null, &m).unwrap().net;
            assert!(
                net.value < gross.value && net.low <= net.value && net.value <= net.high,
                "net {net:?} against gross {gross:?}"
            );
        }
        // One noisy round whose null loop took longer than the lookup: the net figure keeps
        // the gross figure's estimator and stays under it (the arithmetic mean of invocations
        // ×2.4 apart lies above their geometric mean, which the gross figure takes).
        let mut noisy = m.clone();
        for null in &mut noisy.null {
            null.ns[0] = 1_000.0;
        }
        for null in &noisy.null {
            let cell = noisy
                .cell(&null.workload, null.piece, null.mode, &null.backend)
                .unwrap();
            let gross = cycles(&cell.ns, &noisy).unwrap();
            let net = net_cycles(cell, null, &noisy).unwrap().net;
            assert!(
                net.value < gross.value,
                "net {net:?} against gross {gross:?}"
            );
            // The floored round does not blow the interval up.
            assert!(
                net.low > 0.0 && net.high.is_finite() && net.high < 2.0 * gross.high,
                "net {net:?} against gross {gross:?}"
            );
        }
    }
}
