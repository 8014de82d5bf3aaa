//! E2: legal move generation over game positions and perft nodes per second, per backend,
//! with every perft count checked against the published value.

use super::counter_log::CounterLog;
use super::{
    and_list, per_second_millions, point, ranked, series, summarise, Claims, Config, Progress,
};
use crate::backend::Backend;
use crate::harness::measure::{interleaved, Case, SampleConfig};
use crate::harness::results::{ExperimentResult, Plot, PlotKind, PlotLine, Table};
use crate::harness::stats::{format_spread, ratio};
use crate::harness::workloads::{self, Policy};
use crate::movegen::MoveList;
use crate::perft::perft;
use crate::position::{Position, START_SFEN};
use crate::public_positions::{published_counts, SECOND};
use crate::registry::{self, BackendVisitor};
use serde_json::Value as Json;
use std::hint::black_box;
use std::time::Duration;

pub const TITLE: &str = "Move generation and perft";

/// One timed task: legal move generation over positions, or a perft.
#[derive(Clone, Debug)]
enum Task {
    Movegen(Vec<String>),
    Perft { sfen: &'static str, depth: u32 },
}

struct MakeCase<'a> {
    task: &'a Task,
    /// Checked perft leaves (or moves generated per repetition) of this backend.
    expected: u64,
}

impl BackendVisitor for MakeCase<'_> {
    type Output = Result<(Case<'static>, u64), String>;
    fn visit<B: Backend>(self, backend: B) -> Self::Output {
        let name = B::info().name;
        match self.task {
            Task::Movegen(sfens) => {
                let positions: Vec<Position<B>> = sfens
                    .iter()
                    .map(|s| Position::from_sfen(backend, s).map_err(|e| e.to_string()))
                    .collect::<Result<_, _>>()?;
                let count = positions.len() as u64;
                let mut list = MoveList::new();
                let moves: u64 = positions
                    .iter()
                    .map(|p| {
                        p.legal_moves(&mut list);
                        list.len() as u64
                    })
                    .sum();
                Ok((
                    Case::new(name, count, move |reps| {
                        let mut list = MoveList::new();
                        let mut total = 0u64;
                        for _ in 0..reps {
                            for position in black_box(&positions[..]) {
                                position.legal_moves(&mut list);
                                total += list.len() as u64;
                            }
                        }
                        total
                    }),
                    moves,
                ))
            }
            &Task::Perft { sfen, depth } => {
                let mut position = Position::from_sfen(backend, sfen).map_err(|e| e.to_string())?;
                let nodes = perft(&mut position, depth);
                if nodes != self.expected {
                    return Err(format!(
                        "{name}: perft({depth}) = {nodes}, expected {}",
                        self.expected
                    ));
                }
                Ok((
                    Case::new(name, nodes, move |reps| {
                        let mut total = 0;
                        for _ in 0..reps {
                            total += perft(black_box(&mut position), depth);
                        }
                        total
                    }),
                    nodes,
                ))
            }
        }
    }
}

/// The peer's case for `task` (feature `peers`), its counts checked like a backend's.
#[cfg(feature = "peers")]
fn peer_case(task: &Task, expected: u64) -> Option<Result<(Case<'static>, u64), String>> {
    use crate::peers::haitaka::{PeerBoard, NAME};
    let outcome = match task {
        Task::Movegen(sfens) => sfens
            .iter()
            .map(|s| PeerBoard::from_sfen(s))
            .collect::<Result<Vec<_>, _>>()
            .map(|boards| {
                let moves = boards.iter().map(PeerBoard::legal_move_count).sum();
                let count = boards.len() as u64;
                let case = Case::new(NAME, count, move |reps| {
                    let mut total = 0u64;
                    for _ in 0..reps {
                        for board in black_box(&boards[..]) {
                            total += board.legal_move_count();
                        }
                    }
                    total
                });
                (case, moves)
            }),
        &Task::Perft { sfen, depth } => PeerBoard::from_sfen(sfen).and_then(|board| {
            let nodes = board.perft(depth);
            if nodes != expected {
                return Err(format!(
                    "{NAME}: perft({depth}) = {nodes}, expected {expected}"
                ));
            }
            let case = Case::new(NAME, nodes, move |reps| {
                let mut total = 0;
                for _ in 0..reps {
                    total += black_box(&board).perft(depth);
                }
                total
            });
            Ok((case, nodes))
        }),
    };
    Some(outcome)
}

#[cfg(not(feature = "peers"))]
fn peer_case(_: &Task, _: u64) -> Option<Result<(Case<'static>, u64), String>> {
    None
}

/// The peers' names as the harness shows them (empty without the `peers` feature).
fn peer_names() -> Vec<&'static str> {
    #[cfg(feature = "peers")]
    return vec![crate::peers::haitaka::NAME];
    #[cfg(not(feature = "peers"))]
    Vec::new()
}

struct Row {
    task: String,
    unit: &'static str,
    per_op: &'static str,
    backend: String,
    ns: Vec<f64>,
}

pub fn run(config: &Config, progress: Progress<'_>) -> ExperimentResult {
    let (backends, skipped) = config.backend_names();
    progress("generating positions", 0.0);
    let positions = config.pick(16, 256, 1024);
    let game = workloads::game_like(config.seed ^ 0xE2, Policy::Greedy, positions * 3);
    let mut sfens = game.sfens.clone();
    sfens.truncate(positions);
    let (start_depth, second_depth) = config.pick((3, 2), (4, 3), (5, 4));
    let tasks = [
        (
            "movegen greedy-playout".to_string(),
            Task::Movegen(sfens.clone()),
            0u64,
        ),
        (
            format!("perft start d{start_depth}"),
            Task::Perft {
                sfen: START_SFEN,
                depth: start_depth,
            },
            published_counts(START_SFEN)[start_depth as usize - 1],
        ),
        (
            format!("perft second d{second_depth}"),
            Task::Perft {
                sfen: SECOND,
                depth: second_depth,
            },
            published_counts(SECOND)[second_depth as usize - 1],
        ),
    ];
    let base = config.sampling();
    // Perft calls are long: one call per sample, a handful of samples.
    let perft_sampling = SampleConfig {
        warmup: Duration::ZERO,
        samples: config.pick(2, 3, 5),
        min_sample: Duration::ZERO,
    };
    let mut counter_log = CounterLog::open(&config.counter_events, "op");
    let mut rows = Vec::new();
    let mut errors = Vec::new();
    let mut moves_per_position = 0.0;
    for (t, (task_name, task, expected)) in tasks.iter().enumerate() {
        let message = format!("{task_name} (preparing)");
        progress(&message, t as f64 / tasks.len() as f64);
        let mut cases = Vec::new();
        for name in &backends {
            match registry::visit(
                name,
                MakeCase {
                    task,
                    expected: *expected,
                },
            ) {
                Ok(Ok((case, count))) => {
                    if let Task::Movegen(list) = task {
                        moves_per_position = count as f64 / list.len().max(1) as f64;
                    }
                    cases.push(case);
                }
                Ok(Err(error)) => errors.push(error),
                Err(error) => errors.push(error.to_string()),
            }
        }
        match peer_case(task, *expected) {
            Some(Ok((case, count))) => {
                // The peer must see the same positions: its own move count is a cross-check.
                if let Task::Movegen(list) = task {
                    let theirs = count as f64 / list.len().max(1) as f64;
                    if (theirs - moves_per_position).abs() > 1e-9 && !cases.is_empty() {
                        errors.push(format!(
                            "{}: {theirs:.3} legal moves per position, kiki {moves_per_position:.3}",
                            case.name
                        ));
                    }
                }
                cases.push(case);
            }
            Some(Err(error)) => errors.push(error),
            None => {}
        }
        let sampling = match task {
            Task::Movegen(_) => base,
            Task::Perft { .. } => perft_sampling,
        };
        let results = interleaved(&mut cases, &sampling, counter_log.counters(), &mut |f| {
            progress(task_name, (t as f64 + f) / tasks.len() as f64)
        });
        for result in results {
            counter_log.record(&[("task", task_name)], &result);
            let (unit, per_op) = match task {
                Task::Movegen(_) => ("ns/position", "positions"),
                Task::Perft { .. } => ("ns/node", "nodes"),
            };
            rows.push(Row {
                task: task_name.clone(),
                unit,
                per_op,
                backend: result.name,
                ns: result.ns_per_op,
            });
        }
    }
    progress("done", 1.0);
    build(
        config,
        &backends,
        &peer_names(),
        &skipped,
        &counter_log,
        &sfens,
        moves_per_position,
        rows,
        &errors,
    )
}

#[allow(clippy::too_many_arguments)]
fn build(
    config: &Config,
    backends: &[&'static str],
    peers: &[&'static str],
    skipped: &[String],
    counter_log: &CounterLog,
    sfens: &[String],
    moves_per_position: f64,
    rows: Vec<Row>,
    errors: &[String],
) -> ExperimentResult {
    let tasks: Vec<String> = {
        let mut t: Vec<String> = Vec::new();
        for row in &rows {
            if !t.contains(&row.task) {
                t.push(row.task.clone());
            }
        }
        t
    };
    let find =
        |task: &str, backend: &str| rows.iter().find(|r| r.task == task && r.backend == backend);
    let mut series_out: Vec<_> = rows
        .iter()
        .map(|r| {
            series(
                &[("backend", &r.backend), ("task", &r.task)],
                r.unit,
                r.ns.clone(),
            )
        })
        .collect();
    let mut headers = vec!["backend".to_string()];
    for task in &tasks {
        let per_op = rows
            .iter()
            .find(|r| &r.task == task)
            .map_or("ops", |r| r.per_op);
        headers.push(format!("{task}: M{per_op}/s"));
    }
    // Peers get a row and a bar, but never the "best" title: that ranks kiki's backends.
    let shown: Vec<&str> = backends.iter().chain(peers).copied().collect();
    let table_rows = shown
        .iter()
        .map(|b| {
            let mut row = vec![b.to_string()];
            for task in &tasks {
                row.push(match find(task, b) {
                    Some(r) => format_spread(&summarise(&r.ns).map(per_second_millions)),
                    None => "–".to_string(),
                });
            }
            row
        })
        .collect();
    // Move generation (millions of positions/s) and perft (thousands of millions of nodes/s)
    // differ by two orders of magnitude: each gets its own panel.
    let panel = |prefix: &str, file_stem: &str, title: &str, y_label: &str| {
        let panel_tasks: Vec<&String> = tasks.iter().filter(|t| t.starts_with(prefix)).collect();
        let lines = shown
            .iter()
            .map(|b| PlotLine {
                name: b.to_string(),
                points: panel_tasks
                    .iter()
                    .enumerate()
                    .filter_map(|(i, task)| {
                        find(task, b)
                            .map(|r| point(i as f64, &summarise(&r.ns).map(per_second_millions)))
                    })
                    .collect(),
            })
            .collect();
        Plot {
            file_stem: file_stem.to_string(),
            title: title.to_string(),
            x_label: "task".to_string(),
            y_label: y_label.to_string(),
            log_x: false,
            log_y: false,
            kind: PlotKind::Bar,
            categories: panel_tasks.iter().map(|t| t.to_string()).collect(),
            markers: Vec::new(),
            lines,
        }
    };
    let plots = vec![
        panel(
            "movegen",
            "e2-movegen",
            "E2 legal move generation (positions/s)",
            "million positions / s (higher is better)",
        ),
        panel(
            "perft",
            "e2-perft",
            "E2 perft with bulk counting (nodes/s)",
            "million nodes / s (higher is better)",
        ),
    ];
    series_out.extend(counter_log.series());
    let mut claims = Claims::new(config.threshold);
    let mut findings = Vec::new();
    let mut summary = Vec::new();
    for task in &tasks {
        let entries: Vec<(&str, f64)> = backends
            .iter()
            .filter_map(|b| find(task, b).map(|r| (*b, summarise(&r.ns).median)))
            .collect();
        let order = ranked(&entries);
        if order.len() < 2 {
            continue;
        }
        let best = order[0].0;
        let others: Vec<String> = order[1..]
            .iter()
            .map(|(b, _)| {
                claims.ratio_text(
                    task,
                    (b, &find(task, b).expect("ranked").ns),
                    (best, &find(task, best).expect("ranked").ns),
                )
            })
            .collect();
        findings.push(format!(
            "{task}: {best} is fastest at {:.2} M/s; the others take, per unit of work, {}.",
            per_second_millions(order[0].1),
            and_list(&others)
        ));
        summary.push((format!("best {task}"), Json::from(best)));
        for peer in peers {
            let Some(peer_row) = find(task, peer) else {
                continue;
            };
            // Peer time over best-backend time, paired per round: above 1 means kiki is faster.
            let r = ratio(&peer_row.ns, &find(task, best).expect("ranked").ns).expect("samples");
            let verdict = if r.min > 1.0 {
                format!("{best} is ×{:.2} faster", r.median)
            } else if r.max < 1.0 {
                format!("{best} is ×{:.2} slower", 1.0 / r.median)
            } else {
                "the two are within the noise".to_string()
            };
            findings.push(format!(
                "Against {peer}: {:.2} M/s, {verdict} (peer time ÷ {best} time {:.2}, per round \
                 {:.2}–{:.2}).",
                per_second_millions(summarise(&peer_row.ns).median),
                r.median,
                r.min,
                r.max
            ));
            summary.push((format!("{peer} ÷ best {task}"), Json::from(r.median)));
        }
    }
    if errors.is_empty() {
        findings.push(
            "Every perft count matched the published value on every backend (and peer)."
                .to_string(),
        );
    } else {
        findings.push(format!("Problems: {}.", errors.join("; ")));
    }
    if findings.len() == 1 && rows.is_empty() {
        findings.push("No backend could be measured.".to_string());
    }
    let mut method = format!(
        "Move generation: all legal moves of {} positions from seeded greedy playouts (seed \
         {:#x}; {moves_per_position:.1} legal moves per position on average), {} samples \
         interleaved round-robin. Perft: make/unmake with bulk counting at the last ply from \
         the start position and the GUIDE's second position, each count checked against the \
         published value before timing, one call per sample, backends interleaved \
         round-robin. Rotated backends update every rotated occupancy on each move, and that \
         cost is in these figures. Cells: median (min–max) in millions per second; the \
         findings' ratios are paired per round (time relative to the fastest).",
        sfens.len(),
        config.seed ^ 0xE2,
        config.sampling().samples,
    );
    #[cfg(feature = "peers")]
    if !peers.is_empty() {
        method.push_str(&format!(
            " Peer, interleaved in the same rounds on the same positions and depths: {}; its \
             perft counts are checked too.",
            crate::peers::haitaka::DESCRIPTION
        ));
    }
    method.push_str(&format!(
        " {} (an op is a position for move generation, a node for perft).",
        counter_log.note()
    ));
    if !skipped.is_empty() {
        method.push_str(&format!(" Skipped: {}.", skipped.join("; ")));
    }
    let mut tables = vec![Table {
        headers,
        rows: table_rows,
    }];
    tables.extend(counter_log.table(&["backend", "task"], |_| true));
    let method = format!("{method} {}", super::claims_method(config.threshold));
    ExperimentResult {
        wall_seconds: None,
        comparisons: claims.records,
        id: "E2".to_string(),
        title: TITLE.to_string(),
        method,
        series: series_out,
        tables,
        plots: plots
            .into_iter()
            .filter(|p| !p.categories.is_empty())
            .collect(),
        findings: findings.join(" "),
        summary,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::experiments::tests::assert_well_formed;

    #[test]
    fn smoke_run_is_well_formed_and_counts_check() {
        let config = Config {
            backends: vec!["qugiy".to_string(), "bonanza".to_string()],
            ..Config::smoke()
        };
        let experiment = run(&config, &mut |_, _| {});
        assert_well_formed(&experiment);
        assert!(
            experiment.findings.contains("Every perft count matched"),
            "{}",
            experiment.findings
        );
        // Per task and case: the samples and, where the kernel allows software events (not in
        // every container), the task clock that stands in for hardware counters, with its table.
        let cases = 3 * (2 + peer_names().len());
        if crate::harness::measure::Counters::open(&config.counter_events).is_ok() {
            assert_eq!(experiment.series.len(), 2 * cases);
            assert_eq!(experiment.tables.len(), 2);
            assert!(experiment.method.contains("task-clock-ns per op"));
        } else {
            assert_eq!(experiment.series.len(), cases);
            assert!(experiment.method.contains("counters unavailable"));
        }
        #[cfg(feature = "peers")]
        assert!(
            experiment.findings.contains("Against haitaka"),
            "{}",
            experiment.findings
        );
    }

    #[test]
    fn a_wrong_expected_count_is_reported() {
        let task = Task::Perft {
            sfen: START_SFEN,
            depth: 2,
        };
        let outcome = registry::visit(
            "qugiy",
            MakeCase {
                task: &task,
                expected: 901,
            },
        )
        .unwrap();
        let error = outcome.err().expect("901 is wrong");
        assert!(error.contains("expected 901"), "{error}");
    }
}
