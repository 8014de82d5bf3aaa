//! The naive reference: attacks by walking rays square by square over the canonical `u128`.
//! Used only to check the backends; it is written for obviousness, not speed.

use crate::backend::{Backend, BackendInfo, TableInfo};
use crate::types::{ray, Color, Slider, Square, Stepper};
use rand::{Rng, RngExt};

pub use crate::types::{BISHOP_DIRECTIONS, ROOK_DIRECTIONS};

/// Squares one step away in the given directions.
fn steps(sq: Square, directions: &[(i8, i8)]) -> u128 {
    directions
        .iter()
        .filter_map(|&(df, dr)| sq.offset(df, dr))
        .fold(0, |acc, s| acc | s.bit())
}

pub fn rook(occupancy: u128, sq: Square) -> u128 {
    ROOK_DIRECTIONS
        .iter()
        .fold(0, |acc, &(df, dr)| acc | ray(occupancy, sq, df, dr))
}

pub fn bishop(occupancy: u128, sq: Square) -> u128 {
    BISHOP_DIRECTIONS
        .iter()
        .fold(0, |acc, &(df, dr)| acc | ray(occupancy, sq, df, dr))
}

pub fn lance(color: Color, occupancy: u128, sq: Square) -> u128 {
    ray(occupancy, sq, 0, color.forward())
}

pub fn king(sq: Square) -> u128 {
    steps(sq, &crate::types::KING_STEPS)
}

pub fn dragon(occupancy: u128, sq: Square) -> u128 {
    rook(occupancy, sq) | king(sq)
}

pub fn horse(occupancy: u128, sq: Square) -> u128 {
    bishop(occupancy, sq) | king(sq)
}

pub fn gold(color: Color, sq: Square) -> u128 {
    let f = color.forward();
    steps(sq, &[(-1, f), (0, f), (1, f), (-1, 0), (1, 0), (0, -f)])
}

pub fn silver(color: Color, sq: Square) -> u128 {
    let f = color.forward();
    steps(sq, &[(-1, f), (0, f), (1, f), (-1, -f), (1, -f)])
}

pub fn knight(color: Color, sq: Square) -> u128 {
    let f = color.forward();
    steps(sq, &[(-1, 2 * f), (1, 2 * f)])
}

pub fn pawn(color: Color, sq: Square) -> u128 {
    steps(sq, &[(0, color.forward())])
}

pub fn slider(kind: Slider, occupancy: u128, sq: Square) -> u128 {
    match kind {
        Slider::Rook => rook(occupancy, sq),
        Slider::Bishop => bishop(occupancy, sq),
        Slider::Lance(color) => lance(color, occupancy, sq),
        Slider::Dragon => dragon(occupancy, sq),
        Slider::Horse => horse(occupancy, sq),
    }
}

pub fn stepper(kind: Stepper, sq: Square) -> u128 {
    match kind {
        Stepper::King => king(sq),
        Stepper::Gold(color) => gold(color, sq),
        Stepper::Silver(color) => silver(color, sq),
        Stepper::Knight(color) => knight(color, sq),
        Stepper::Pawn(color) => pawn(color, sq),
    }
}

/// The squares of each full line through `sq` for the given direction pair, excluding `sq`.
pub fn line(sq: Square, (file_delta, rank_delta): (i8, i8)) -> u128 {
    ray(0, sq, file_delta, rank_delta) | ray(0, sq, -file_delta, -rank_delta)
}

/// The four lines (file, rank, two diagonals) through `sq`.
pub const LINES: [(i8, i8); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];

pub use crate::backend::CanonicalBitboard;

/// The reference as a backend, so that generic code (tests, the move generator's own checks)
/// can run on it. Not listed among the user-facing backends.
#[derive(Clone, Copy, Debug)]
pub struct Reference;

impl Backend for Reference {
    type Bitboard = CanonicalBitboard;
    type Occupancy = u128;

    fn info() -> BackendInfo {
        BackendInfo {
            name: "reference",
            description: "naive ray walking over the canonical u128 (checking only)",
            layout: "canonical u128, bit (file-1)*9 + (rank-1)",
            needs: &[],
            variant: None,
        }
    }
    fn availability() -> Result<(), String> {
        Ok(())
    }
    fn tables() -> Vec<TableInfo> {
        Vec::new()
    }
    fn simd_path() -> &'static str {
        "scalar"
    }
    fn new() -> Result<Self, String> {
        Ok(Reference)
    }
    fn occupancy(&self, canonical: u128) -> u128 {
        canonical & crate::types::ALL_SQUARES
    }
    fn set_square(&self, occupancy: &mut u128, sq: Square) {
        *occupancy |= sq.bit();
    }
    fn clear_square(&self, occupancy: &mut u128, sq: Square) {
        *occupancy &= !sq.bit();
    }
    fn occupied(&self, occupancy: &u128) -> CanonicalBitboard {
        CanonicalBitboard(*occupancy)
    }
    fn rook_attacks(&self, occupancy: &u128, sq: Square) -> CanonicalBitboard {
        CanonicalBitboard(rook(*occupancy, sq))
    }
    fn bishop_attacks(&self, occupancy: &u128, sq: Square) -> CanonicalBitboard {
        CanonicalBitboard(bishop(*occupancy, sq))
    }
    fn lance_attacks(&self, color: Color, occupancy: &u128, sq: Square) -> CanonicalBitboard {
        CanonicalBitboard(lance(color, *occupancy, sq))
    }
    fn dragon_attacks(&self, occupancy: &u128, sq: Square) -> CanonicalBitboard {
        CanonicalBitboard(dragon(*occupancy, sq))
    }
    fn horse_attacks(&self, occupancy: &u128, sq: Square) -> CanonicalBitboard {
        CanonicalBitboard(horse(*occupancy, sq))
    }
    fn king_attacks(&self, sq: Square) -> CanonicalBitboard {
        CanonicalBitboard(king(sq))
    }
    fn gold_attacks(&self, color: Color, sq: Square) -> CanonicalBitboard {
        CanonicalBitboard(gold(color, sq))
    }
    fn silver_attacks(&self, color: Color, sq: Square) -> CanonicalBitboard {
        CanonicalBitboard(silver(color, sq))
    }
    fn knight_attacks(&self, color: Color, sq: Square) -> CanonicalBitboard {
        CanonicalBitboard(knight(color, sq))
    }
    fn pawn_attacks(&self, color: Color, sq: Square) -> CanonicalBitboard {
        CanonicalBitboard(pawn(color, sq))
    }
}

/// A random occupancy where each square is set with probability `density`.
pub fn random_occupancy(rng: &mut impl Rng, density: f64) -> u128 {
    let mut bits = 0u128;
    for index in 0..81 {
        if rng.random_bool(density) {
            bits |= 1u128 << index;
        }
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(text: &str) -> Square {
        Square::parse(text).unwrap()
    }

    #[test]
    fn empty_board_rook_sees_sixteen_squares() {
        for s in Square::all() {
            assert_eq!(rook(0, s).count_ones(), 16);
        }
    }

    #[test]
    fn blocker_stops_and_is_included() {
        let occupancy = sq("5c").bit();
        let attacks = lance(Color::Black, occupancy, sq("5e"));
        assert_eq!(attacks, sq("5d").bit() | sq("5c").bit());
        assert_eq!(
            lance(Color::White, 0, sq("5g")),
            sq("5h").bit() | sq("5i").bit()
        );
    }

    #[test]
    fn step_patterns() {
        // Black knight on 5e jumps to 4c and 6c; black gold on 5e has six squares.
        assert_eq!(
            knight(Color::Black, sq("5e")),
            sq("4c").bit() | sq("6c").bit()
        );
        assert_eq!(gold(Color::Black, sq("5e")).count_ones(), 6);
        assert!(gold(Color::Black, sq("5e")) & sq("5f").bit() != 0);
        assert!(gold(Color::Black, sq("5e")) & sq("4f").bit() == 0);
        assert_eq!(silver(Color::White, sq("5e")).count_ones(), 5);
        assert!(silver(Color::White, sq("5e")) & sq("5f").bit() != 0);
        assert_eq!(pawn(Color::Black, sq("5a")), 0);
        assert_eq!(knight(Color::White, sq("1h")), 0);
        assert_eq!(king(sq("1a")).count_ones(), 3);
    }

    #[test]
    fn lines_have_expected_lengths() {
        assert_eq!(line(sq("5e"), (0, 1)).count_ones(), 8);
        assert_eq!(line(sq("5e"), (1, 1)).count_ones(), 8);
        assert_eq!(line(sq("1a"), (1, -1)).count_ones(), 0);
    }
}
