//! E2's measuring: positions, perft tasks and each backend's (and peer's) checked case.

use crate::experiments::counter_log::CounterLog;
use crate::experiments::{Config, Progress};
use crate::invocations::{gather, merge_rows, union, Invocation};
use crate::measure::{interleaved, Case, SampleConfig};
use crate::registry;
use crate::workloads::{self, Policy};
use kiki_core::backend::Backend;
use kiki_core::public_positions::{published_counts, SECOND};
use kiki_engine::movegen::MoveList;
use kiki_engine::perft::{perft_leaf, Leaf};
use kiki_engine::position::{Position, START_SFEN};
use kiki_variants::registry::BackendVisitor;
use serde::{Deserialize, Serialize};
use std::cell::Cell;
use std::hint::black_box;
use std::rc::Rc;
use std::time::Duration;

/// One timed task's samples for one backend (or peer).
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct Row {
    pub task: String,
    /// What the task times: "movegen", or the perft position ("start", "second").
    #[serde(with = "crate::invocations::static_str")]
    pub subject: crate::invocations::StaticStr,
    /// The convention: moves built into a list and the list counted, or only counted (for
    /// perft, at the last ply).
    #[serde(with = "LeafName")]
    pub leaf: Leaf,
    /// The series' unit, and what one operation is (for the table's headers).
    #[serde(with = "crate::invocations::static_str")]
    pub unit: crate::invocations::StaticStr,
    #[serde(with = "crate::invocations::static_str")]
    pub per_op: crate::invocations::StaticStr,
    pub backend: String,
    pub ns: Vec<f64>,
}

/// [`Leaf`] in a measurement.
#[derive(Serialize, Deserialize)]
#[serde(remote = "Leaf")]
enum LeafName {
    Count,
    CountPlain,
    List,
}

/// Everything E2 measured, and the settings the method paragraph reports.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct Measurement {
    #[serde(with = "crate::invocations::static_str::vec")]
    pub backends: Vec<&'static str>,
    /// The peers timed beside the backends (empty without the `peers` feature).
    #[serde(with = "crate::invocations::static_str::vec")]
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
    /// The process invocations pooled here (1 as measured; K once merged).
    pub invocations: usize,
}

/// K invocations' measurements as one: every row's rounds one invocation after another,
/// counters averaged, errors of any; the rest from the first.
pub(super) fn merge(parts: &[Measurement]) -> Result<Measurement, String> {
    let first = parts.first().ok_or("nothing measured")?;
    let rows = merge_rows(
        &gather(parts, |p| &p.rows),
        |r| (r.task.clone(), r.backend.clone()),
        |into, from| into.ns.extend(&from.ns),
    )?;
    let logs: Vec<&CounterLog> = parts.iter().map(|p| &p.counter_log).collect();
    Ok(Measurement {
        rows,
        counter_log: CounterLog::merge(&logs)?,
        errors: union(parts.iter().map(|p| p.errors.clone())),
        invocations: parts.len(),
        ..first.clone()
    })
}

impl Measurement {
    /// The row of `backend` (or a peer) on `task`, if it was timed.
    pub fn row(&self, task: &str, backend: &str) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| r.task == task && r.backend == backend)
    }
}

/// The second position's perft depth in `leaf`'s convention: the list-leaf walk one ply
/// shallower than the others (never below 2), because at the full run's d4 (517 million
/// nodes) it took 44 % of E2's timed perft (88 of 199 s on a Zen 4, 244 of 511 s on a Zen 1)
/// and the report's time budget had no room for it; its figure is per node, so it stays
/// comparable with the peer's at the same depth.
fn list_depth(leaf: Leaf, depth: u32) -> u32 {
    match leaf {
        Leaf::List => depth.saturating_sub(1).max(2),
        Leaf::Count | Leaf::CountPlain => depth,
    }
}

/// One timed task: legal move generation over positions, or a perft, in one convention.
#[derive(Clone, Debug)]
enum Task {
    Movegen {
        sfens: Vec<String>,
        leaf: Leaf,
    },
    Perft {
        sfen: &'static str,
        depth: u32,
        leaf: Leaf,
    },
}

impl Task {
    fn leaf(&self) -> Leaf {
        match *self {
            Task::Movegen { leaf, .. } | Task::Perft { leaf, .. } => leaf,
        }
    }
}

/// A perft case's count on its timed calls: every call must give the published count at the
/// timed depth; a call that did not leaves its count here, and the case is dropped and named
/// after timing (the counts at one depth less are checked before it, in the untimed call
/// that warms its tables).
#[derive(Clone, Default)]
struct Miscount(Rc<Cell<Option<u64>>>);

impl Miscount {
    /// The body of a perft case: `run` once per repetition, each count checked against
    /// `expected`.
    fn checked(&self, expected: u64, mut run: impl FnMut() -> u64) -> impl FnMut(u64) -> u64 {
        let seen = self.0.clone();
        move |reps| {
            let mut total = 0;
            for _ in 0..reps {
                let nodes = run();
                if nodes != expected {
                    seen.set(Some(nodes));
                }
                total += nodes;
            }
            total
        }
    }

    fn miscounted(&self) -> Option<u64> {
        self.0.get()
    }
}

/// A perft at one depth less than timed (at least 1): its published count, the depth, and
/// the error words where `nodes` is not it.
fn check_warm(who: &str, sfen: &str, depth: u32, leaf: Leaf, nodes: u64) -> Result<(), String> {
    let expected = published_counts(sfen)[depth as usize - 1];
    if nodes == expected {
        Ok(())
    } else {
        Err(format!(
            "{who}: perft({depth}, leaf {}) = {nodes}, expected {expected}",
            leaf.name()
        ))
    }
}

/// The untimed warm-up perft's depth: one less than the timed one (a thirtieth of its work or
/// so, over the same tables), at least 1.
fn warm_depth(depth: u32) -> u32 {
    depth.saturating_sub(1).max(1)
}

struct MakeCase<'a> {
    task: &'a Task,
    /// Checked perft leaves (or moves generated per repetition) of this backend.
    expected: u64,
}

impl BackendVisitor for MakeCase<'_> {
    type Output = Result<(Case<'static>, u64, Miscount), String>;
    fn visit<B: Backend>(self, backend: B) -> Self::Output {
        let name = B::info().name;
        match self.task {
            Task::Movegen { sfens, leaf } => {
                let positions: Vec<Position<B>> = sfens
                    .iter()
                    .map(|s| Position::from_sfen(backend, s).map_err(|e| e.to_string()))
                    .collect::<Result<_, _>>()?;
                let count = positions.len() as u64;
                let mut list = MoveList::new();
                let moves: u64 = positions
                    .iter()
                    .map(|p| match leaf {
                        Leaf::List => {
                            p.legal_moves(&mut list);
                            list.len() as u64
                        }
                        Leaf::Count | Leaf::CountPlain => p.legal_move_count(),
                    })
                    .sum();
                let case = match leaf {
                    Leaf::List => Case::new(name, count, move |reps| {
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
                    Leaf::Count | Leaf::CountPlain => Case::new(name, count, move |reps| {
                        let mut total = 0u64;
                        for _ in 0..reps {
                            for position in black_box(&positions[..]) {
                                total += position.legal_move_count();
                            }
                        }
                        total
                    }),
                };
                Ok((case, moves, Miscount::default()))
            }
            &Task::Perft { sfen, depth, leaf } => {
                let mut position = Position::from_sfen(backend, sfen).map_err(|e| e.to_string())?;
                let warm = warm_depth(depth);
                check_warm(
                    name,
                    sfen,
                    warm,
                    leaf,
                    perft_leaf(&mut position, warm, leaf),
                )?;
                let miscount = Miscount::default();
                let body = miscount.checked(self.expected, move || {
                    perft_leaf(black_box(&mut position), depth, leaf)
                });
                Ok((
                    Case::new(name, self.expected, body),
                    self.expected,
                    miscount,
                ))
            }
        }
    }
}

/// The peer's case for `task` (feature `peers`), its counts checked like a backend's.
#[cfg(feature = "peers")]
fn peer_case(task: &Task, expected: u64) -> Option<Result<(Case<'static>, u64, Miscount), String>> {
    use crate::peers::haitaka::{PeerBoard, PeerMoveList, NAME};
    let outcome = match *task {
        Task::Movegen { ref sfens, leaf } => sfens
            .iter()
            .map(|s| PeerBoard::from_sfen(s))
            .collect::<Result<Vec<_>, _>>()
            .map(|boards| {
                let mut list = PeerMoveList::new();
                let moves = boards
                    .iter()
                    .map(|board| match leaf {
                        Leaf::List => {
                            board.legal_moves_into(&mut list);
                            list.len() as u64
                        }
                        Leaf::Count | Leaf::CountPlain => board.legal_move_count(),
                    })
                    .sum();
                let count = boards.len() as u64;
                let case = match leaf {
                    Leaf::List => Case::new(NAME, count, move |reps| {
                        let mut list = PeerMoveList::new();
                        let mut total = 0u64;
                        for _ in 0..reps {
                            for board in black_box(&boards[..]) {
                                board.legal_moves_into(&mut list);
                                total += list.len() as u64;
                            }
                        }
                        total
                    }),
                    Leaf::Count | Leaf::CountPlain => Case::new(NAME, count, move |reps| {
                        let mut total = 0u64;
                        for _ in 0..reps {
                            for board in black_box(&boards[..]) {
                                total += board.legal_move_count();
                            }
                        }
                        total
                    }),
                };
                (case, moves, Miscount::default())
            }),
        Task::Perft { sfen, depth, leaf } => PeerBoard::from_sfen(sfen).and_then(|board| {
            // The peer's bulk count takes no perft shortcut: the same walk for both counts.
            let run = move |board: &PeerBoard| match leaf {
                Leaf::Count | Leaf::CountPlain => board.perft(depth),
                Leaf::List => board.perft_list(depth),
            };
            let warm = warm_depth(depth);
            let warm_nodes = match leaf {
                Leaf::Count | Leaf::CountPlain => board.perft(warm),
                Leaf::List => board.perft_list(warm),
            };
            check_warm(NAME, sfen, warm, leaf, warm_nodes)?;
            let miscount = Miscount::default();
            let body = miscount.checked(expected, move || run(black_box(&board)));
            Ok((Case::new(NAME, expected, body), expected, miscount))
        }),
    };
    Some(outcome)
}

#[cfg(not(feature = "peers"))]
fn peer_case(_: &Task, _: u64) -> Option<Result<(Case<'static>, u64, Miscount), String>> {
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
pub(super) fn measure(
    config: &Config,
    invocation: Invocation,
    progress: Progress<'_>,
) -> Measurement {
    let (backends, skipped) = config.backend_names();
    progress("generating positions", 0.0);
    let positions = config.pick(16, 256, 1024);
    let game = workloads::game_like(config.seed ^ 0xE2, Policy::Greedy, positions * 3);
    let mut sfens = game.sfens.clone();
    sfens.truncate(positions);
    let (start_depth, second_depth) = config.pick((3, 2), (4, 3), (5, 4));
    let mut tasks = Vec::new();
    for leaf in [Leaf::List, Leaf::Count] {
        tasks.push((
            format!("movegen {} greedy-playout", leaf.name()),
            "movegen",
            Task::Movegen {
                sfens: sfens.clone(),
                leaf,
            },
            0u64,
        ));
    }
    // Count-only perft first (the names of earlier reports), then the list-leaf twins, then
    // the count walk without perft's shortcuts (like for like with the peer's).
    for leaf in [Leaf::Count, Leaf::List, Leaf::CountPlain] {
        let suffix = match leaf {
            Leaf::Count => "",
            Leaf::List => " (leaf list)",
            Leaf::CountPlain => " (leaf count-plain)",
        };
        for (subject, sfen, depth) in [
            ("start", START_SFEN, start_depth),
            ("second", SECOND, list_depth(leaf, second_depth)),
        ] {
            tasks.push((
                format!("perft {subject} d{depth}{suffix}"),
                subject,
                Task::Perft { sfen, depth, leaf },
                published_counts(sfen)[depth as usize - 1],
            ));
        }
    }
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
    // Every program's moves over the positions, in both conventions, must be one number:
    // the first case's count is the reference the others are checked against.
    let mut reference_moves: Option<(String, u64)> = None;
    for (t, (task_name, subject, task, expected)) in tasks.iter().enumerate() {
        let message = format!("{task_name} (preparing)");
        progress(&message, t as f64 / tasks.len() as f64);
        let mut made = Vec::new();
        for name in &backends {
            match registry::visit_base(
                name,
                MakeCase {
                    task,
                    expected: *expected,
                },
            ) {
                Ok(outcome) => made.push(outcome),
                Err(error) => errors.push(error.to_string()),
            }
        }
        made.extend(peer_case(task, *expected));
        let mut cases = Vec::new();
        let mut miscounts = Vec::new();
        for outcome in made {
            match outcome {
                Ok((case, count, miscount)) => {
                    if matches!(task, Task::Movegen { .. }) {
                        let who = format!("{} ({} convention)", case.name, task.leaf().name());
                        match &reference_moves {
                            None => reference_moves = Some((who, count)),
                            Some((first, moves)) if *moves != count => errors.push(format!(
                                "{who}: {count} legal moves over the positions, {first}: {moves}"
                            )),
                            Some(_) => {}
                        }
                    }
                    cases.push(case);
                    miscounts.push(miscount);
                }
                Err(error) => errors.push(error),
            }
        }
        let sampling = match task {
            Task::Movegen { .. } => base,
            Task::Perft { .. } => perft_sampling,
        };
        let results = interleaved(
            &mut cases,
            &sampling,
            invocation,
            counter_log.counters(),
            &mut |f| progress(task_name, (t as f64 + f) / tasks.len() as f64),
        );
        for (result, miscount) in results.into_iter().zip(&miscounts) {
            if let Some(nodes) = miscount.miscounted() {
                errors.push(format!(
                    "{}: {task_name} counted {nodes} in a timed call, expected {expected}",
                    result.name
                ));
                continue;
            }
            counter_log.record(&[("task", task_name)], &result);
            let (unit, per_op) = match task {
                Task::Movegen { .. } => ("ns/position", "positions"),
                Task::Perft { .. } => ("ns/node", "nodes"),
            };
            rows.push(Row {
                task: task_name.clone(),
                subject,
                leaf: task.leaf(),
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
        moves_per_position: reference_moves
            .map_or(0.0, |(_, moves)| moves as f64 / sfens.len().max(1) as f64),
        sfens,
        rows,
        errors,
        invocations: 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only the list-leaf walk of the second position is made shallower, and never below 2.
    #[test]
    fn the_list_leaf_walk_alone_is_one_ply_shallower() {
        assert_eq!(list_depth(Leaf::List, 4), 3);
        assert_eq!(list_depth(Leaf::List, 2), 2);
        assert_eq!(list_depth(Leaf::Count, 4), 4);
        assert_eq!(list_depth(Leaf::CountPlain, 4), 4);
    }

    /// A timed call whose count is not the expected one leaves its count for the measurement
    /// to name (the case is then dropped); the untimed call's count at one depth less is checked
    /// against the published one before any timing.
    #[test]
    fn a_wrong_count_is_reported() {
        for leaf in [Leaf::Count, Leaf::List] {
            let task = Task::Perft {
                sfen: START_SFEN,
                depth: 2,
                leaf,
            };
            let (mut case, _, miscount) = registry::visit_base(
                "dbb",
                MakeCase {
                    task: &task,
                    expected: 901,
                },
            )
            .unwrap()
            .unwrap();
            assert_eq!(miscount.miscounted(), None, "nothing timed yet");
            assert_eq!((case.body)(1), 900);
            assert_eq!(miscount.miscounted(), Some(900));
            #[cfg(feature = "peers")]
            {
                let (mut case, _, miscount) = peer_case(&task, 901).unwrap().unwrap();
                (case.body)(1);
                assert_eq!(miscount.miscounted(), Some(900));
            }
            let (mut case, _, miscount) = registry::visit_base(
                "dbb",
                MakeCase {
                    task: &task,
                    expected: 900,
                },
            )
            .unwrap()
            .unwrap();
            assert_eq!((case.body)(2), 1800);
            assert_eq!(miscount.miscounted(), None);
        }
        let error = check_warm("dbb", START_SFEN, 1, Leaf::Count, 31).unwrap_err();
        assert!(
            error.contains("perft(1, leaf count) = 31, expected 30"),
            "{error}"
        );
        assert_eq!(warm_depth(5), 4);
        assert_eq!(warm_depth(1), 1);
    }

    #[test]
    fn both_conventions_count_the_same_moves_in_kiki_and_the_peer() {
        let sfens = vec![START_SFEN.to_string(), SECOND.to_string()];
        let mut counts = Vec::new();
        for leaf in [Leaf::List, Leaf::Count] {
            let task = Task::Movegen {
                sfens: sfens.clone(),
                leaf,
            };
            let (mut case, moves, _) = registry::visit_base(
                "dbb",
                MakeCase {
                    task: &task,
                    expected: 0,
                },
            )
            .unwrap()
            .unwrap();
            assert_eq!((case.body)(2), 2 * moves);
            counts.push(moves);
            if let Some(outcome) = peer_case(&task, 0) {
                let (mut case, moves, _) = outcome.unwrap();
                assert_eq!((case.body)(2), 2 * moves);
                counts.push(moves);
            }
        }
        assert!(counts.iter().all(|&c| c == counts[0]), "{counts:?}");
    }
}
