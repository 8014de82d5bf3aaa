//! The bench positions (from game-like play) and their generator: fixed positions a fixed-depth
//! search fingerprints, like Stockfish's and YaneuraOu's `bench`.

use super::eval::{EvalKind, EvalTables};
use super::tt::TranspositionTable;
use crate::movegen::MoveList;
use crate::position::Position;
use kiki_core::backend::Backend;
use kiki_core::pages::Pages;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The depth `kiki bench` searches to: fixed (never adapted to the machine), deep enough that
/// one backend's bench is over a million nodes.
pub const DEFAULT_DEPTH: u32 = 4;

/// The seed `generate` made the committed positions with.
pub const SEED: u64 = 0x6B69_6B69_6265_6E63;
/// How many positions `generate` made.
pub const COUNT: usize = 60;

/// The committed bench positions, one SFEN a line (made by `generate(SEED, COUNT)`).
pub fn positions() -> Vec<&'static str> {
    include_str!("bench_positions.txt")
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect()
}

/// Positions from self-play: each move the best of a depth-3 search (seven moves in eight) or
/// a random legal move, so games stay varied; one position kept every 7 plies from ply 12 to
/// 150, at most 8 per game.
pub fn generate<B: Backend>(backend: B, seed: u64, count: usize) -> Vec<String> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let tables = EvalTables::new(EvalKind::Material, Pages::Small);
    let mut tt = TranspositionTable::new(1 << 20, Pages::Small);
    let mut found = Vec::new();
    while found.len() < count {
        let mut pos = Position::startpos(backend);
        let mut kept = 0;
        for ply in 0..150 {
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            if moves.is_empty() || kept == 8 || found.len() == count {
                break;
            }
            if ply >= 12 && ply % 7 == 5 && !pos.in_check() {
                found.push(pos.to_sfen());
                kept += 1;
            }
            let mv = if rng.random_range(0..8) == 0 {
                moves[rng.random_range(0..moves.len())]
            } else {
                super::search(&pos, 3, &tables, &mut tt)
                    .best
                    .unwrap_or(moves[0])
            };
            pos.do_move(mv);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiki_core::backend::Backend;
    use kiki_variants::dbb::Dbb;

    #[test]
    fn the_committed_positions_are_what_the_generator_makes() {
        let generated = generate(Dbb::new().expect("dbb builds"), SEED, COUNT);
        if std::env::var_os("KIKI_PRINT_BENCH_POSITIONS").is_some() {
            println!("{}", generated.join("\n"));
        }
        let committed = positions();
        assert_eq!(committed.len(), COUNT);
        assert_eq!(committed, generated);
    }
}
