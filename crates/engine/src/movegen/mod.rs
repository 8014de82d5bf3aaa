//! Legal move generation over any backend: direct (pin masks and check masks, no make/test/
//! unmake per move), with drops, compulsory promotion, 二歩 and 打ち歩詰め; a checks-only
//! generator; `attackers_to` and `in_check`.
//!
//! The files keep the concerns apart: `buffer` (the move lists and the sinks the generator
//! writes into), `attacks` (attackers of a square, checkers, pin blockers), `generate` (the
//! legal move generator: board moves, drops and their rules), `checks` (whether a move gives
//! check, and the checking moves) and `usi` (a USI move accepted only if legal).

mod attacks;
mod buffer;
mod checks;
mod generate;
mod usi;

pub use buffer::{MoveBuffer, MoveList, PseudoMoveList};
pub use checks::CheckInfo;

use crate::position::PieceKind;
use kiki_core::types::{Color, Square};

/// The side to move of a generator specialised by `BLACK`.
#[inline(always)]
const fn side_to_move<const BLACK: bool>() -> Color {
    if BLACK {
        Color::Black
    } else {
        Color::White
    }
}

/// A placeholder king square where no pin mask will read it.
const ANY_SQUARE: Square = match Square::new(0) {
    Some(sq) => sq,
    None => panic!(),
};

const GOLD_MOVERS: [PieceKind; 5] = [
    PieceKind::Gold,
    PieceKind::ProPawn,
    PieceKind::ProLance,
    PieceKind::ProKnight,
    PieceKind::ProSilver,
];

/// The hand kinds other than the pawn, in the order drops are generated (the pawn's drops,
/// with their own rules, come first in a call of their own).
const HAND_KINDS_BUT_PAWN: [PieceKind; 6] = [
    PieceKind::Knight,
    PieceKind::Lance,
    PieceKind::Silver,
    PieceKind::Gold,
    PieceKind::Bishop,
    PieceKind::Rook,
];
