//! E2's measuring: positions, perft tasks and each backend's (and peer's) checked case.

use crate::backend::Backend;
use crate::harness::experiments::counter_log::CounterLog;
use crate::harness::experiments::{Config, Progress};
use crate::harness::measure::{interleaved, Case, SampleConfig};
use crate::harness::workloads::{self, Policy};
use crate::movegen::MoveList;
use crate::perft::perft;
use crate::position::{Position, START_SFEN};
use crate::public_positions::{published_counts, SECOND};
use crate::registry::{self, BackendVisitor};
use std::hint::black_box;
use std::time::Duration;

/// One timed task's samples for one backend (or peer).
pub(super) struct Row {
    pub task: String,
    /// The series' unit, and what one operation is (for the table's headers).
    pub unit: &'static str,
    pub per_op: &'static str,
    pub backend: String,
    pub ns: Vec<f64>,
}

/// Everything E2 measured, and the settings the method paragraph reports.
pub(super) struct Measurement {
    pub backends: Vec<&'static str>,
    /// The peers timed beside the backends (empty without the `peers` feature).
    pub peers: Vec<&'static str>,
    /// Backends asked for but not measured, with the reason.
    pub skipped: Vec<String>,
    /// The seed of the playouts the positions come from.
    pub workload_seed: u64,
    /// Samples per move-generation cell.
    pub samples: usize,
    /// The practical threshold of the claims.
    pub threshold: f64,
    pub counter_log: CounterLog,
    /// The positions of the move-generation task.
    pub sfens: Vec<String>,
    pub moves_per_position: f64,
    pub rows: Vec<Row>,
    /// Wrong counts, positions that would not load, unknown backends.
    pub errors: Vec<String>,
}

impl Measurement {
    /// The row of `backend` (or a peer) on `task`, if it was timed.
    pub fn row(&self, task: &str, backend: &str) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| r.task == task && r.backend == backend)
    }
}

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
pub(super) fn peer_names() -> Vec<&'static str> {
    #[cfg(feature = "peers")]
    return vec![crate::peers::haitaka::NAME];
    #[cfg(not(feature = "peers"))]
    Vec::new()
}

/// Times move generation and both perfts on every backend and peer, each task interleaved.
pub(super) fn measure(config: &Config, progress: Progress<'_>) -> Measurement {
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
    Measurement {
        backends,
        peers: peer_names(),
        skipped,
        workload_seed: config.seed ^ 0xE2,
        samples: base.samples,
        threshold: config.threshold,
        counter_log,
        sfens,
        moves_per_position,
        rows,
        errors,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
