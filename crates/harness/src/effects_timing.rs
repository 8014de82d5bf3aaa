//! The effects workload (seeded random games), the proof that every tracker's incremental
//! counts equal a from-scratch recomputation after every make and unmake, and the
//! round-robin timing of make + unmake updates shared by `kiki effects` and the bench.

use crate::measure::thread_cpu_ns;
use kiki_core::backend::Backend;
use kiki_core::reference::Reference;
use kiki_core::types::{Color, Square};
use kiki_engine::effects::{
    board_of, counts_from_scratch, BitboardEffects, DistanceCheck, EffectTracker, Effects,
    PaddedMailbox, SquareWithWall,
};
use kiki_engine::movegen::MoveList;
use kiki_engine::position::{Move, Piece, Position, START_SFEN};
use kiki_variants::qugiy::Qugiy;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};
use std::hint::black_box;
use std::time::Instant;

/// Game starts, rotated: the start position and the GUIDE's other two perft positions, and a
/// middle game with sliders on open lines.
pub const STARTS: [&str; 4] = [
    START_SFEN,
    kiki_core::public_positions::SECOND,
    kiki_core::public_positions::THIRD,
    kiki_core::public_positions::MIDDLE_GAME,
];

/// Plies per game at most: long enough for promotions and many drops, short enough that
/// the workload mixes all four starts.
pub const MAX_PLIES: usize = 200;

/// One random legal game: replayed as make on every move, then unmake in reverse.
#[derive(Clone, Debug)]
pub struct Game {
    pub start: &'static str,
    pub moves: Vec<Move>,
}

/// The pre-generated move sequence every tracker replays.
#[derive(Clone, Debug)]
pub struct Workload {
    pub seed: u64,
    pub games: Vec<Game>,
    /// Moves in all games (each is one make and one unmake).
    pub moves: usize,
}

/// Random legal games totalling `moves` moves from `seed`: uniform among legal moves, but a
/// capture half the time when one exists (more exchanges, more sliders opening lines).
pub fn workload(moves: usize, seed: u64) -> Result<Workload, String> {
    let backend = <Qugiy as Backend>::new()?;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut games = Vec::new();
    let mut total = 0;
    let mut list = MoveList::new();
    while total < moves {
        let start = STARTS[games.len() % STARTS.len()];
        let mut pos = Position::from_sfen(backend, start).map_err(|e| e.to_string())?;
        let mut game = Game {
            start,
            moves: Vec::new(),
        };
        while game.moves.len() < MAX_PLIES && total < moves {
            list.clear();
            pos.legal_moves(&mut list);
            if list.is_empty() {
                break;
            }
            let captures: Vec<Move> = list
                .iter()
                .copied()
                .filter(|mv| mv.from().is_some() && pos.piece_at(mv.to()).is_some())
                .collect();
            let mv = if !captures.is_empty() && rng.random_bool(0.5) {
                captures[rng.random_range(0..captures.len())]
            } else {
                list[rng.random_range(0..list.len())]
            };
            pos.do_move(mv);
            game.moves.push(mv);
            total += 1;
        }
        games.push(game);
    }
    Ok(Workload {
        seed,
        games,
        moves: total,
    })
}

/// What a verification covered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verified {
    pub moves: usize,
    /// Positions compared (every make and every unmake, plus each game's start).
    pub comparisons: usize,
}

/// Compares a tracker with the position it should mirror; `Err` says where they differ.
fn compare<T: EffectTracker>(
    tracker: &T,
    board: &[Option<Piece>; 81],
    expected: &[[u8; 81]; 2],
) -> Result<(), String> {
    for sq in Square::all() {
        if tracker.piece_at(sq) != board[sq.index()] {
            return Err(format!(
                "mirror holds {:?} on {sq}, the position {:?}",
                tracker.piece_at(sq),
                board[sq.index()]
            ));
        }
        for color in Color::BOTH {
            let got = tracker.effect(color, sq);
            let want = expected[color.index()][sq.index()];
            if got != want {
                return Err(format!(
                    "{} effect on {sq}: incremental {got}, from scratch {want}",
                    color.name()
                ));
            }
        }
    }
    Ok(())
}

/// Replays the workload on `T` beside a reference position: after every make and every
/// unmake, the tracker's counts must equal counts recomputed from scratch (reference attacks
/// over the canonical occupancy), its mirror the position's board, and the captured piece it
/// reports the one the position lost.
pub fn verify<T: EffectTracker>(workload: &Workload) -> Result<Verified, String> {
    let mut comparisons = 0;
    for (index, game) in workload.games.iter().enumerate() {
        let mut pos = Position::from_sfen(Reference, game.start).map_err(|e| e.to_string())?;
        let mut tracker = T::from_position(&pos)?;
        let mut check = |pos: &Position<Reference>, tracker: &T, when: &str| {
            let board = board_of(pos);
            comparisons += 1;
            compare(tracker, &board, &counts_from_scratch(&board)).map_err(|why| {
                format!(
                    "{}: game {index} (seed {}), {when}: {why}; position {}",
                    T::name(),
                    workload.seed,
                    pos.to_sfen()
                )
            })
        };
        check(&pos, &tracker, "at the start")?;
        let mut undos = Vec::with_capacity(game.moves.len());
        for (ply, &mv) in game.moves.iter().enumerate() {
            let lost = pos.piece_at(mv.to());
            let undo = pos.do_move(mv);
            let captured = tracker.do_move(mv);
            if captured != lost {
                return Err(format!(
                    "{}: game {index}, make {mv} at ply {ply}: tracker captured {captured:?}, \
                     the position lost {lost:?}",
                    T::name()
                ));
            }
            check(&pos, &tracker, &format!("after make {mv} at ply {ply}"))?;
            undos.push((undo, captured));
        }
        for (ply, (&mv, (undo, captured))) in game.moves.iter().zip(undos).enumerate().rev() {
            pos.undo_move(mv, undo);
            tracker.undo_move(mv, captured);
            check(&pos, &tracker, &format!("after unmake {mv} at ply {ply}"))?;
        }
    }
    Ok(Verified {
        moves: workload.moves,
        comparisons,
    })
}

/// The competitors, in display order.
pub const NAMES: [&str; 4] = ["mailbox", "sqww", "distance", "bitboard-qugiy"];

/// Verifies every competitor on the workload (each covers the same comparisons).
pub fn verify_all(workload: &Workload) -> Result<Verified, String> {
    verify::<Effects<PaddedMailbox>>(workload)?;
    verify::<Effects<SquareWithWall>>(workload)?;
    verify::<Effects<DistanceCheck>>(workload)?;
    verify::<BitboardEffects<Qugiy>>(workload)
}

/// Timed samples of one competitor.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Samples {
    #[serde(with = "crate::invocations::static_str")]
    pub name: crate::invocations::StaticStr,
    #[serde(with = "crate::invocations::static_str")]
    pub layout: crate::invocations::StaticStr,
    /// Nanoseconds per make + unmake update, one per sample.
    pub ns_per_update: Vec<f64>,
}

impl Samples {
    /// The median update time; NaN when there are no samples.
    pub fn median(&self) -> f64 {
        crate::stats::median(&self.ns_per_update).unwrap_or(f64::NAN)
    }
    pub fn min(&self) -> f64 {
        self.ns_per_update
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min)
    }
    pub fn max(&self) -> f64 {
        self.ns_per_update
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max)
    }
}

/// A tracker per game, ready to replay the workload any number of times (each replay makes
/// every move of a game and unmakes them all, which brings the tracker back to the start).
pub struct Replayer<'a, T: EffectTracker> {
    workload: &'a Workload,
    trackers: Vec<T>,
    captured: Vec<Option<Piece>>,
}

impl<'a, T: EffectTracker> Replayer<'a, T> {
    pub fn new(workload: &'a Workload) -> Result<Self, String> {
        let mut trackers = Vec::with_capacity(workload.games.len());
        for game in &workload.games {
            let pos = Position::from_sfen(Reference, game.start).map_err(|e| e.to_string())?;
            trackers.push(T::from_position(&pos)?);
        }
        Ok(Replayer {
            workload,
            trackers,
            captured: Vec::with_capacity(MAX_PLIES),
        })
    }

    /// Makes and unmakes every move of the workload once; returns a fold of effect counts
    /// read along the way (so that nothing can be optimised out).
    #[inline(never)]
    pub fn replay(&mut self) -> u64 {
        let mut fold = 0u64;
        for (game, tracker) in self.workload.games.iter().zip(self.trackers.iter_mut()) {
            self.captured.clear();
            for &mv in &game.moves {
                self.captured.push(tracker.do_move(black_box(mv)));
                fold += tracker.effect(Color::Black, mv.to()) as u64;
            }
            for (&mv, &captured) in game.moves.iter().rev().zip(self.captured.iter().rev()) {
                tracker.undo_move(black_box(mv), captured);
            }
            fold +=
                tracker.effect(Color::White, game.moves.first().map_or(START, |m| m.to())) as u64;
        }
        black_box(fold)
    }
}

const START: Square = match Square::new(40) {
    Some(sq) => sq,
    None => panic!(),
};

/// Which clock the samples were taken with.
pub fn clock_name() -> &'static str {
    if thread_cpu_ns().is_some() {
        "thread CPU time (CLOCK_THREAD_CPUTIME_ID)"
    } else {
        "wall time"
    }
}

/// Runs `work` and returns the ns it took on `clock_name`'s clock.
fn timed(work: impl FnOnce() -> u64) -> f64 {
    match thread_cpu_ns() {
        Some(started) => {
            black_box(work());
            thread_cpu_ns().map_or(f64::NAN, |ended| ended.saturating_sub(started) as f64)
        }
        None => {
            let started = Instant::now();
            black_box(work());
            started.elapsed().as_nanos() as f64
        }
    }
}

/// Times every competitor: `samples` rounds after one warm-up round, the competitors
/// interleaved round-robin (the order rotating each round), each sample one full replay of
/// the workload; reports ns per make + unmake.
pub fn measure(workload: &Workload, samples: usize) -> Result<Vec<Samples>, String> {
    let mut mailbox = Replayer::<Effects<PaddedMailbox>>::new(workload)?;
    let mut sqww = Replayer::<Effects<SquareWithWall>>::new(workload)?;
    let mut distance = Replayer::<Effects<DistanceCheck>>::new(workload)?;
    let mut bitboard = Replayer::<BitboardEffects<Qugiy>>::new(workload)?;
    let mut results = steppers(samples);
    let updates = workload.moves.max(1) as f64;
    for round in 0..=samples {
        for turn in 0..results.len() {
            let which = (round + turn) % results.len();
            let ns = timed(|| match which {
                0 => mailbox.replay(),
                1 => sqww.replay(),
                2 => distance.replay(),
                _ => bitboard.replay(),
            }) / updates;
            // Round 0 warms caches and branch predictors and is not kept.
            if round > 0 {
                results[which].ns_per_update.push(ns);
            }
        }
    }
    Ok(results)
}

/// Every stepper, in `NAMES` order, with room for `samples` samples and none taken.
pub fn steppers(samples: usize) -> Vec<Samples> {
    vec![
        samples_of::<Effects<PaddedMailbox>>(samples),
        samples_of::<Effects<SquareWithWall>>(samples),
        samples_of::<Effects<DistanceCheck>>(samples),
        samples_of::<BitboardEffects<Qugiy>>(samples),
    ]
}

fn samples_of<T: EffectTracker>(samples: usize) -> Samples {
    Samples {
        name: T::name(),
        layout: T::layout(),
        ns_per_update: Vec::with_capacity(samples),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        let median = |values: &[f64]| {
            Samples {
                name: "",
                layout: "",
                ns_per_update: values.to_vec(),
            }
            .median()
        };
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn workload_is_reproducible_and_sized() {
        let a = workload(1000, 7).unwrap();
        let b = workload(1000, 7).unwrap();
        assert_eq!(a.moves, 1000);
        assert_eq!(a.games.iter().map(|g| g.moves.len()).sum::<usize>(), 1000);
        assert_eq!(
            a.games.iter().map(|g| g.moves.clone()).collect::<Vec<_>>(),
            b.games.iter().map(|g| g.moves.clone()).collect::<Vec<_>>()
        );
    }
}
