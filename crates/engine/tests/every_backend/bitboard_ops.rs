//! Bitboard operations that layouts override, against their canonical meaning on every backend's
//! bitboard type: `forward_one` (a whole set's pawn step, both colours), `contains`,
//! `file_fill` (the files a set touches, whole) and `for_each_square`, over random sets (dense
//! and sparse), the empty and full boards and every single square.

use kiki_core::backend::{Backend, Bitboard};
use kiki_core::types::Square;
use kiki_core::types::{Color, ALL_SQUARES};
use kiki_variants::registry::BackendVisitor;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The canonical answer: each square's step one rank towards `color`'s far side, if any.
fn stepped(bits: u128, color: Color) -> u128 {
    let rank_delta = match color {
        Color::Black => -1,
        Color::White => 1,
    };
    Square::all()
        .filter(|sq| bits >> sq.index() & 1 == 1)
        .filter_map(|sq| sq.offset(0, rank_delta))
        .fold(0, |acc, to| acc | 1 << to.index())
}

/// The canonical answer: every square on a file that holds a square of `bits`.
fn filled(bits: u128) -> u128 {
    Square::all()
        .filter(|sq| bits >> (sq.index() / 9 * 9) & 0x1FF != 0)
        .fold(0, |acc, sq| acc | 1 << sq.index())
}

struct Check;

impl BackendVisitor for Check {
    type Output = ();
    fn visit<B: Backend>(self, _backend: B) {
        let name = B::info().name;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x5EED);
        let mut sets: Vec<u128> = vec![0, ALL_SQUARES];
        sets.extend(Square::all().map(|sq| 1u128 << sq.index()));
        for _ in 0..2000 {
            sets.push(rng.random::<u128>() & ALL_SQUARES);
            // About five squares: most files empty, as a side's pawns leave them.
            let sparse = (0..4).fold(ALL_SQUARES, |acc, _| acc & rng.random::<u128>());
            sets.push(sparse);
        }
        for bits in sets {
            let board = B::Bitboard::from_canonical(bits);
            for sq in Square::all() {
                assert_eq!(
                    board.contains(sq),
                    bits >> sq.index() & 1 == 1,
                    "{name}: contains({sq:?}) of {bits:#x}"
                );
            }
            assert_eq!(
                board.file_fill().to_canonical(),
                filled(bits),
                "{name}: file_fill of {bits:#x}"
            );
            let mut visited = Vec::new();
            board.for_each_square(|sq| visited.push(sq));
            assert_eq!(
                visited,
                board.squares().collect::<Vec<_>>(),
                "{name}: for_each_square of {bits:#x}"
            );
            for color in [Color::Black, Color::White] {
                let got = B::Bitboard::from_canonical(bits).forward_one(color);
                assert_eq!(
                    got.to_canonical(),
                    stepped(bits, color),
                    "{name}: forward_one({color:?}) of {bits:#x}"
                );
            }
        }
    }
}

#[test]
fn overridden_operations_match_their_meaning_on_every_backend() {
    for name in crate::tested_names() {
        crate::visit_tested(name, Check).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}
