//! E1: sliding-attack throughput (independent lookups) and latency (a dependent chain) for
//! every backend × piece × workload.

use super::counter_log::CounterLog;
use super::{
    and_list, convert, fold, lookup, per_second_millions, percent, point, ranked, series,
    summarise, Claims, Config, Input, Progress, BISHOP, DRAGON, HORSE, LANCE, MIXED, ROOK,
};
use crate::backend::{Backend, Bitboard};
use crate::harness::measure::{interleaved, Case};
use crate::harness::results::{ExperimentResult, Plot, PlotKind, PlotLine, Series, Table};
use crate::harness::stats::{format_spread, ratio};
use crate::harness::stats::{Claim, Summary};
use crate::harness::workloads::{self, LookupItem, PieceGroup, Policy, Workload};
use crate::registry::{self, BackendVisitor};
use serde_json::Value as Json;
use std::hint::black_box;

pub const TITLE: &str = "Attack throughput and latency";

/// Throughput: independent lookups. Latency: each lookup's input is chosen by the last result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Throughput,
    Latency,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Throughput => "throughput",
            Mode::Latency => "latency",
        }
    }
}

struct MakeCase<'a> {
    items: &'a [LookupItem],
    group: PieceGroup,
    mode: Mode,
}

impl BackendVisitor for MakeCase<'_> {
    type Output = Case<'static>;
    fn visit<B: Backend>(self, backend: B) -> Case<'static> {
        let inputs = convert(&backend, self.items);
        let latency = self.mode == Mode::Latency;
        match self.group {
            PieceGroup::Rook => make::<B, ROOK>(backend, inputs, latency),
            PieceGroup::Bishop => make::<B, BISHOP>(backend, inputs, latency),
            PieceGroup::Lance => make::<B, LANCE>(backend, inputs, latency),
            PieceGroup::Dragon => make::<B, DRAGON>(backend, inputs, latency),
            PieceGroup::Horse => make::<B, HORSE>(backend, inputs, latency),
            PieceGroup::Mixed => make::<B, MIXED>(backend, inputs, latency),
        }
    }
}

/// `inputs.len()` must be a power of two (the latency chain wraps with a mask).
fn make<B: Backend, const G: u8>(
    backend: B,
    inputs: Vec<Input<B::Occupancy>>,
    latency: bool,
) -> Case<'static> {
    let name = B::info().name;
    let n = inputs.len() as u64;
    if !latency {
        return Case::new(name, n, move |reps| {
            let mut acc = 0u64;
            for _ in 0..reps {
                let inputs = black_box(&inputs[..]);
                let mut folded = B::Bitboard::empty();
                for input in inputs {
                    folded ^= lookup::<B, G>(&backend, input);
                }
                acc ^= fold(folded);
            }
            acc
        });
    }
    Case::new(name, n, move |reps| {
        let inputs = black_box(&inputs[..]);
        let mask = inputs.len() - 1;
        let mut index = 0usize;
        let mut acc = 0u64;
        for _ in 0..reps * n {
            // The next input's address depends on this result: no two lookups overlap.
            let count = fold(lookup::<B, G>(&backend, &inputs[index & mask]));
            acc = acc.wrapping_add(count);
            index = index + 1 + (count & 1) as usize;
        }
        acc
    })
}

/// `items` repeated (in order) to exactly `n` entries, `n` a power of two.
fn cycled(items: &[LookupItem], n: usize) -> Vec<LookupItem> {
    items.iter().copied().cycle().take(n).collect()
}

struct Cell {
    workload: String,
    piece: PieceGroup,
    mode: Mode,
    backend: String,
    ns: Vec<f64>,
}

pub fn run(config: &Config, progress: Progress<'_>) -> ExperimentResult {
    let (backends, skipped) = config.backend_names();
    let n = config.pick(256, 4096, 16384);
    let sampling = config.sampling();
    progress("generating workloads", 0.0);
    let mut workloads: Vec<(Workload, Vec<PieceGroup>)> = Vec::new();
    let mut groups_all = PieceGroup::KINDS.to_vec();
    groups_all.push(PieceGroup::Mixed);
    for (i, density) in [0.10, 0.25, 0.50].into_iter().enumerate() {
        // One workload per density; each piece group draws its own items from the same seed.
        let seed = config.seed ^ (0xE1_0000 + i as u64);
        let w = workloads::uniform(seed, density, n, PieceGroup::Mixed);
        workloads.push((w, groups_all.clone()));
    }
    for policy in [Policy::Random, Policy::Greedy] {
        let w = workloads::game_like(config.seed ^ 0xE1_0100, policy, n);
        workloads.push((w, groups_all.clone()));
    }
    let mut user_note = String::new();
    if !config.positions.is_empty() {
        match workloads::from_sfens(&config.positions) {
            Ok(w) => workloads.push((w, groups_all.clone())),
            Err(error) => user_note = format!(" User positions were not used: {error}."),
        }
    }
    let mut counter_log = CounterLog::open(&config.counter_events, "lookup");

    let mut cells: Vec<Cell> = Vec::new();
    let mut thin: Vec<String> = Vec::new();
    let total: usize = workloads.iter().map(|(_, g)| g.len() * 2).sum();
    let mut done = 0;
    for (workload, groups) in &workloads {
        for &group in groups {
            let items: Vec<LookupItem> =
                if workload.name.starts_with("uniform") && group != PieceGroup::Mixed {
                    // Each kind draws its own occupancies from a seed derived from the
                    // workload's, at the workload's density.
                    let seed = workload.seed ^ ((group as u64 + 1) << 16);
                    workloads::uniform(seed, parse_density(&workload.name), n, group).items
                } else {
                    workload.group(group)
                };
            if items.is_empty() {
                thin.push(format!("{} {}: no items", workload.name, group.name()));
                done += 2;
                continue;
            }
            if items.len() < 32 {
                thin.push(format!(
                    "{} {}: only {} distinct items, repeated",
                    workload.name,
                    group.name(),
                    items.len()
                ));
            }
            let items = cycled(&items, n);
            for mode in [Mode::Throughput, Mode::Latency] {
                let message = format!("{} {} {}", workload.name, group.name(), mode.name());
                let mut cases: Vec<Case<'static>> = backends
                    .iter()
                    .filter_map(|name| {
                        registry::visit(
                            name,
                            MakeCase {
                                items: &items,
                                group,
                                mode,
                            },
                        )
                        .ok()
                    })
                    .collect();
                let base = done as f64 / total as f64;
                let results =
                    interleaved(&mut cases, &sampling, counter_log.counters(), &mut |f| {
                        progress(&message, base + f / total as f64)
                    });
                for result in results {
                    counter_log.record(
                        &[
                            ("piece", group.name()),
                            ("workload", &workload.name),
                            ("mode", mode.name()),
                        ],
                        &result,
                    );
                    cells.push(Cell {
                        workload: workload.name.clone(),
                        piece: group,
                        mode,
                        backend: result.name,
                        ns: result.ns_per_op,
                    });
                }
                done += 1;
            }
        }
    }
    progress("done", 1.0);
    build(
        config,
        &backends,
        &skipped,
        &workloads,
        cells,
        &counter_log,
        &thin,
        &user_note,
    )
}

fn parse_density(name: &str) -> f64 {
    name.trim_start_matches("uniform-")
        .parse::<f64>()
        .map(|p| p / 100.0)
        .unwrap_or(0.25)
}

#[allow(clippy::too_many_arguments)]
fn build(
    config: &Config,
    backends: &[&'static str],
    skipped: &[String],
    workloads: &[(Workload, Vec<PieceGroup>)],
    cells: Vec<Cell>,
    counter_log: &CounterLog,
    thin: &[String],
    user_note: &str,
) -> ExperimentResult {
    let find = |workload: &str, piece: PieceGroup, mode: Mode, backend: &str| {
        cells.iter().find(|c| {
            c.workload == workload && c.piece == piece && c.mode == mode && c.backend == backend
        })
    };
    let workload_names: Vec<&str> = workloads.iter().map(|(w, _)| w.name.as_str()).collect();
    let mut series_out: Vec<Series> = cells
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
        .collect();
    series_out.extend(counter_log.series());

    // Tables: one per mode, a row per (workload, piece), a column per backend.
    let mut tables = Vec::new();
    for mode in [Mode::Throughput, Mode::Latency] {
        let mut headers = vec!["workload".to_string(), "piece".to_string()];
        headers.extend(
            backends
                .iter()
                .map(|b| format!("{b} ns/lookup ({})", mode.name())),
        );
        let mut rows = Vec::new();
        for (workload, groups) in workloads {
            for &group in groups {
                if find(&workload.name, group, mode, backends[0]).is_none() {
                    continue;
                }
                let mut row = vec![workload.name.clone(), group.name().to_string()];
                for backend in backends {
                    row.push(match find(&workload.name, group, mode, backend) {
                        Some(c) => format_spread(&summarise(&c.ns)),
                        None => "–".to_string(),
                    });
                }
                rows.push(row);
            }
        }
        tables.push(Table { headers, rows });
    }
    // Counters, where the machine has them: per backend, the mean over the throughput cells.
    tables.extend(counter_log.table(&["backend"], |label| {
        label("mode").as_deref() == Some(Mode::Throughput.name())
    }));

    // Plots: per workload (mixed kinds) and per piece (uniform 25 %), for each mode.
    let mut plots = Vec::new();
    for mode in [Mode::Throughput, Mode::Latency] {
        let to_y = |ns: f64| match mode {
            Mode::Throughput => per_second_millions(ns),
            Mode::Latency => ns,
        };
        let y_label = match mode {
            Mode::Throughput => "million lookups / s (higher is better)",
            Mode::Latency => "ns per dependent lookup (lower is better)",
        };
        // The headline: per workload, each slider kind timed on its own (the mean of the
        // single-kind cells, each kind weighted alike), so the lookups are compared and not the
        // dispatch on a randomly drawn kind.
        let single_kind: Vec<PlotLine> = backends
            .iter()
            .map(|backend| PlotLine {
                name: backend.to_string(),
                points: workload_names
                    .iter()
                    .enumerate()
                    .filter_map(|(i, w)| {
                        let kinds: Vec<Summary> = PieceGroup::KINDS
                            .iter()
                            .filter_map(|&g| find(w, g, mode, backend))
                            .map(|c| summarise(&c.ns))
                            .collect();
                        if kinds.is_empty() {
                            return None;
                        }
                        let mean = |f: &dyn Fn(&Summary) -> f64| {
                            kinds.iter().map(f).sum::<f64>() / kinds.len() as f64
                        };
                        let grouped = Summary {
                            count: kinds.len(),
                            median: mean(&|k| k.median),
                            min: mean(&|k| k.min),
                            max: mean(&|k| k.max),
                            mad: mean(&|k| k.mad),
                        };
                        Some(point(i as f64, &grouped.map(to_y)))
                    })
                    .collect(),
            })
            .collect();
        plots.push(Plot {
            file_stem: format!("e1-{}-by-workload-single-kind", mode.name()),
            title: format!(
                "E1 attack {} by workload (each slider kind on its own, mean over kinds)",
                mode.name()
            ),
            x_label: "workload".to_string(),
            y_label: y_label.to_string(),
            log_x: false,
            log_y: false,
            kind: PlotKind::Bar,
            categories: workload_names.iter().map(|s| s.to_string()).collect(),
            markers: Vec::new(),
            lines: single_kind,
        });
        let by_piece: Vec<PlotLine> = backends
            .iter()
            .map(|backend| PlotLine {
                name: backend.to_string(),
                points: PieceGroup::KINDS
                    .iter()
                    .enumerate()
                    .filter_map(|(i, &g)| {
                        find("uniform-25", g, mode, backend)
                            .map(|c| point(i as f64, &summarise(&c.ns).map(to_y)))
                    })
                    .collect(),
            })
            .collect();
        plots.push(Plot {
            file_stem: format!("e1-{}-by-piece", mode.name()),
            title: format!(
                "E1 attack {} by piece (uniform occupancy, 25 %)",
                mode.name()
            ),
            x_label: "piece".to_string(),
            y_label: y_label.to_string(),
            log_x: false,
            log_y: false,
            kind: PlotKind::Bar,
            categories: PieceGroup::KINDS
                .iter()
                .map(|g| g.name().to_string())
                .collect(),
            markers: Vec::new(),
            lines: by_piece,
        });
        let by_workload: Vec<PlotLine> = backends
            .iter()
            .map(|backend| PlotLine {
                name: backend.to_string(),
                points: workload_names
                    .iter()
                    .enumerate()
                    .filter_map(|(i, w)| {
                        find(w, PieceGroup::Mixed, mode, backend)
                            .map(|c| point(i as f64, &summarise(&c.ns).map(to_y)))
                    })
                    .collect(),
            })
            .collect();
        plots.push(Plot {
            file_stem: format!("e1-{}-by-workload", mode.name()),
            title: format!(
                "E1 attack {} by workload, secondary view: slider kinds mixed at random per \
                 lookup (includes the kind dispatch's mispredicts)",
                mode.name()
            ),
            x_label: "workload".to_string(),
            y_label: y_label.to_string(),
            log_x: false,
            log_y: false,
            kind: PlotKind::Bar,
            categories: workload_names.iter().map(|s| s.to_string()).collect(),
            markers: Vec::new(),
            lines: by_workload,
        });
    }

    // Findings, from the medians.
    let mut claims = Claims::new(config.threshold);
    let mut findings = Vec::new();
    let mut summary = Vec::new();
    for mode in [Mode::Throughput, Mode::Latency] {
        let mut leaders = Vec::new();
        for w in &workload_names {
            let entries: Vec<(&str, f64)> = backends
                .iter()
                .filter_map(|b| {
                    find(w, PieceGroup::Mixed, mode, b).map(|c| (*b, summarise(&c.ns).median))
                })
                .collect();
            let order = ranked(&entries);
            if order.len() < 2 {
                continue;
            }
            let best = order[0].0;
            let second = order[1].0;
            let worst = order[order.len() - 1].0;
            let ns = |b: &str| &find(w, PieceGroup::Mixed, mode, b).expect("ranked").ns;
            let gap = ratio(ns(worst), ns(best))
                .map(|r| r.median)
                .unwrap_or(f64::NAN);
            let cell = format!("{} {w} mixed", mode.name());
            let against_second = match claims.compare(&cell, (second, ns(second)), (best, ns(best)))
            {
                Some(c) if c.claim == Claim::Slower => format!(
                    "ahead of {second} by ×{:.2} ({:.2}–{:.2})",
                    c.ratio, c.low, c.high
                ),
                Some(c) => format!(
                    "level with {second} at ±{} % (×{:.2}, {:.2}–{:.2})",
                    percent(config.threshold),
                    c.ratio,
                    c.low,
                    c.high
                ),
                None => format!("{second} not comparable"),
            };
            leaders.push(format!(
                "{w}: {best} {:.2} ns, {against_second}, and {worst} by ×{gap:.1}",
                order[0].1,
            ));
            summary.push((format!("{}_best_{w}", mode.name()), Json::from(best)));
        }
        if !leaders.is_empty() {
            findings.push(format!(
                "{} (mixed slider kinds, median ns per lookup): {}.",
                match mode {
                    Mode::Throughput => "Throughput",
                    Mode::Latency => "Latency",
                },
                leaders.join("; ")
            ));
        }
    }
    // What mixing the kinds costs by itself: mixed cells against the mean of the same
    // workload's single-kind cells, per backend, then the median over backends.
    let mut mixing = Vec::new();
    for (workload, groups) in workloads {
        if !groups.contains(&PieceGroup::Mixed) {
            continue;
        }
        let mut extra: Vec<f64> = Vec::new();
        for backend in backends {
            let median_of = |group| {
                find(&workload.name, group, Mode::Throughput, backend)
                    .map(|c| summarise(&c.ns).median)
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
        if let Some(summary) = crate::harness::stats::Summary::of(&extra) {
            mixing.push(format!("{} {:+.2} ns", workload.name, summary.median));
        }
    }
    if !mixing.is_empty() {
        findings.push(format!(
            "Mixing the slider kinds costs by itself (throughput; a mixed cell minus the mean of \
             the same workload's single-kind cells, median over backends): {}. In the uniform \
             workloads each lookup's kind is drawn at random, so the dispatch on the kind cannot \
             be predicted and those mixed cells carry a branch-misprediction cost on top of the \
             lookup; game positions list their sliders in a steadier order. The single-kind \
             cells compare the lookups themselves.",
            and_list(&mixing)
        ));
    }
    // Who wins most cells per mode, and whether the two modes agree.
    let mut winners_by_mode = Vec::new();
    for mode in [Mode::Throughput, Mode::Latency] {
        // A cell is won only when its fastest is ahead of the runner-up beyond the threshold;
        // otherwise it is a tie between them.
        let mut wins: Vec<(&str, usize)> = backends.iter().map(|b| (*b, 0)).collect();
        let (mut total, mut ties) = (0, 0);
        for (workload, groups) in workloads {
            for &group in groups {
                let mut ranked_cells: Vec<&Cell> = backends
                    .iter()
                    .filter_map(|b| find(&workload.name, group, mode, b))
                    .collect();
                ranked_cells
                    .sort_by(|a, b| summarise(&a.ns).median.total_cmp(&summarise(&b.ns).median));
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
                } else if let Some(w) = wins.iter_mut().find(|(b, _)| *b == best.backend) {
                    w.1 += 1;
                }
            }
        }
        wins.sort_by_key(|w| std::cmp::Reverse(w.1));
        let mut text: Vec<String> = wins
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(b, n)| format!("{b} {n}"))
            .collect();
        if ties > 0 {
            text.push(format!(
                "{ties} ties (the runner-up within ±{} %)",
                percent(config.threshold)
            ));
        }
        if total > 0 {
            findings.push(format!(
                "Clearly fastest in {} of {total} workload × piece cells ({}): {}.",
                mode.name(),
                mode.name(),
                and_list(&text)
            ));
            // A mode has a winner only when one backend wins more cells than any other.
            if wins[0].1 > 0 && wins.get(1).is_none_or(|w| w.1 < wins[0].1) {
                winners_by_mode.push(wins[0].0);
            }
        }
    }
    if winners_by_mode.len() == 2 && winners_by_mode[0] != winners_by_mode[1] {
        findings.push(format!(
            "Throughput and latency disagree: {} wins most throughput cells but {} most \
             latency cells — independent lookups let a long computation overlap, a dependent \
             chain exposes its full latency.",
            winners_by_mode[0], winners_by_mode[1]
        ));
    }
    let noisiest = cells
        .iter()
        .map(|c| (summarise(&c.ns).relative_mad(), c))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    if let Some((mad, cell)) = noisiest {
        findings.push(format!(
            "Largest spread: {} {} {} {} with a MAD of {:.1} % of its median{}.",
            cell.backend,
            cell.workload,
            cell.piece.name(),
            cell.mode.name(),
            mad * 100.0,
            if mad > 0.05 {
                " — rankings closer than that are not reliable on this machine"
            } else {
                ""
            }
        ));
    }
    if !thin.is_empty() {
        findings.push(format!("Thin cells: {}.", thin.join("; ")));
    }
    let mut method = format!(
        "Every backend answers the same pre-generated lookups (seed {:#x}): {}. Each workload \
         is cycled to {} lookups per repetition and converted to each backend's occupancy \
         layout before timing. Throughput: independent lookups, results folded by XOR into \
         black_box. Latency: a dependent chain, the next input's index advanced by 1 + (the \
         popcount of this result & 1), so each lookup waits for the last (the chain adds an L1 \
         load and a popcount per step, the same for every backend). Backends are interleaved \
         round-robin: {} samples of at least {:?} each after {:?} of warm-up; cells show the \
         median with min–max. {}{}.",
        config.seed,
        workloads
            .iter()
            .map(|(w, _)| w.description.clone())
            .collect::<Vec<_>>()
            .join("; "),
        config.pick(256, 4096, 16384),
        config.sampling().samples,
        config.sampling().min_sample,
        config.sampling().warmup,
        counter_log.note(),
        if counter_log.series().is_empty() {
            ""
        } else {
            " (the counter table: per backend, the mean over the throughput cells)"
        }
    );
    method.push_str(user_note);
    if !skipped.is_empty() {
        method.push_str(&format!(" Skipped: {}.", skipped.join("; ")));
    }
    summary.push(("counters".to_string(), Json::from(counter_log.note())));
    let method = format!("{method} {}", super::claims_method(config.threshold));
    ExperimentResult {
        wall_seconds: None,
        comparisons: claims.records,
        id: "E1".to_string(),
        title: TITLE.to_string(),
        method,
        series: series_out,
        tables,
        plots,
        findings: findings.join(" "),
        summary,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::experiments::tests::assert_well_formed;

    #[test]
    fn smoke_run_is_well_formed() {
        let config = Config {
            backends: vec!["qugiy".to_string(), "dbb".to_string()],
            positions: vec![crate::position::START_SFEN.to_string()],
            ..Config::smoke()
        };
        let mut last = 0.0;
        let experiment = run(&config, &mut |_, f| {
            assert!(f >= last - 1e-9, "progress went back: {f} < {last}");
            last = f;
        });
        assert_well_formed(&experiment);
        assert_eq!(last, 1.0);
        // 6 workloads (3 uniform, 2 game-like, user) × 6 groups × 2 modes × 2 backends, less
        // any group too thin to time.
        assert!(experiment.series.len() >= 3 * 6 * 2 * 2);
        assert!(experiment
            .series
            .iter()
            .any(|s| s.label("workload") == Some("user")));
        assert!(experiment.findings.contains("Throughput"));
    }

    #[test]
    fn latency_chain_and_throughput_fold_agree_with_the_reference() {
        // The folded results are deterministic, so both backends must return the same value.
        let items = cycled(&workloads::uniform(3, 0.3, 64, PieceGroup::Mixed).items, 64);
        let mut values = Vec::new();
        for name in ["qugiy", "dbb"] {
            for mode in [Mode::Throughput, Mode::Latency] {
                let mut case = registry::visit(
                    name,
                    MakeCase {
                        items: &items,
                        group: PieceGroup::Mixed,
                        mode,
                    },
                )
                .unwrap();
                values.push((mode, (case.body)(3)));
            }
        }
        assert_eq!(values[0], values[2]);
        assert_eq!(values[1], values[3]);
    }
}
