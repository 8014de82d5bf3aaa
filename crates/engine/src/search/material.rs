//! Material values: what the search decides on (every backend and evaluation then walks the
//! same tree), and the most-valuable-victim order of captures.

use crate::hands::HandLayout;
use crate::position::{Move, PieceKind, Position};
use kiki_core::backend::Backend;
use kiki_core::types::{Color, Square};

/// Bonanza's piece values, by `PieceKind` index (a piece in hand is worth its board value).
pub const VALUE: [i32; PieceKind::COUNT] = [
    87, 232, 257, 369, 569, 642, 447, 0, 534, 489, 510, 495, 827, 945,
];

/// The material balance for the side to move (board and hands), from scratch.
pub fn balance<B: Backend>(pos: &Position<B>) -> i32 {
    let mut black = 0;
    for sq in Square::all() {
        if let Some(piece) = pos.piece_at(sq) {
            let value = VALUE[piece.kind.index()];
            black += if piece.color == Color::Black {
                value
            } else {
                -value
            };
        }
    }
    for kind in PieceKind::HAND {
        let value = VALUE[kind.index()];
        black += value * pos.hand(Color::Black).count(kind) as i32;
        black -= value * pos.hand(Color::White).count(kind) as i32;
    }
    match pos.side_to_move() {
        Color::Black => black,
        Color::White => -black,
    }
}

/// What `mv` gains for the side making it: a capture's victim (off the board and into hand,
/// unpromoted) and a promotion.
#[inline]
pub fn gain<B: Backend>(pos: &Position<B>, mv: Move) -> i32 {
    let Some(from) = mv.from() else {
        return 0;
    };
    let mut gain = 0;
    if let Some(victim) = pos.piece_at(mv.to()) {
        gain += VALUE[victim.kind.index()] + VALUE[victim.kind.unpromoted().index()];
    }
    if mv.is_promotion() {
        if let Some(piece) = pos.piece_at(from) {
            gain += VALUE[piece.kind.promoted().index()] - VALUE[piece.kind.index()];
        }
    }
    gain
}
