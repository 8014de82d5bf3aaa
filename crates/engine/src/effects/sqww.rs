//! Ray stepper 2: seed 001's SquareWithWall — the square carries its distances to the edges,
//! and leaving the board borrows into a guard bit, so one AND is the off-board test.
//!
//! Bit layout exactly as in the seed: bits 0–7 the canonical square, bit 8 a borrow guard kept
//! at 1, then four 5-bit counters of the squares left before the edge: bits 9–13 to the right
//! (towards file 1), 14–18 up (towards rank a), 19–23 down, 24–28 left. One step right is
//! square −9, one step up is −1 (canonical numbering). A direction delta adds the square delta
//! and moves one count from a counter to its opposite; a counter that goes below zero sets
//! its top bit (13, 18, 23, 28), and `is_ok` is `(sqww & BORROW_MASK) == 0`. The board stays
//! the 81 contiguous canonical squares: no padding, no wall cells.

use super::{Cells, Direction, RayStepper, CELLS, CELL_MASK, EMPTY};
use kiki_core::types::Square;

/// The square's own delta one step towards file 1.
const SQ_RIGHT: i32 = -9;
/// The square's own delta one step towards rank a.
const SQ_UP: i32 = -1;

pub const SQWW_RIGHT: i32 = SQ_RIGHT - (1 << 9) + (1 << 24);
pub const SQWW_UP: i32 = SQ_UP - (1 << 14) + (1 << 19);
pub const SQWW_DOWN: i32 = -SQWW_UP;
pub const SQWW_LEFT: i32 = -SQWW_RIGHT;
pub const SQWW_RIGHT_UP: i32 = SQWW_RIGHT + SQWW_UP;
pub const SQWW_RIGHT_DOWN: i32 = SQWW_RIGHT + SQWW_DOWN;
pub const SQWW_LEFT_UP: i32 = SQWW_LEFT + SQWW_UP;
pub const SQWW_LEFT_DOWN: i32 = SQWW_LEFT + SQWW_DOWN;

/// Square 1a: guard bit set, 0 squares to the right and up, 8 down and 8 to the left.
// Written field by field as in the seed, zero fields included.
#[allow(clippy::identity_op)]
pub const SQWW_11: i32 = 0 | (1 << 8) | (0 << 9) | (0 << 14) | (8 << 19) | (8 << 24);

/// The top bit of each counter: set once a counter has gone below zero.
pub const BORROW_MASK: i32 = (1 << 13) | (1 << 18) | (1 << 23) | (1 << 28);

/// SQWW deltas in `Direction` order.
const DELTAS: [i32; 8] = [
    SQWW_RIGHT_UP,
    SQWW_RIGHT,
    SQWW_RIGHT_DOWN,
    SQWW_UP,
    SQWW_DOWN,
    SQWW_LEFT_UP,
    SQWW_LEFT,
    SQWW_LEFT_DOWN,
];

/// Canonical square → SquareWithWall, as the seed's `init()` builds it.
pub static SQWW_TABLE: [i32; 81] = {
    let mut table = [0i32; 81];
    let mut sq = 0;
    while sq < 81 {
        let file_index = (sq / 9) as i32;
        let rank_index = (sq % 9) as i32;
        table[sq] = SQWW_11 + file_index * SQWW_LEFT + rank_index * SQWW_DOWN;
        sq += 1;
    }
    table
};

/// On the board: no counter has borrowed.
#[inline(always)]
pub const fn is_ok(sqww: i32) -> bool {
    sqww & BORROW_MASK == 0
}

/// The canonical square in the low byte (meaningful when `is_ok`).
#[inline(always)]
pub const fn to_sq(sqww: i32) -> usize {
    (sqww & 0xff) as usize
}

/// SquareWithWall over the 81 canonical cells.
#[derive(Clone, Copy, Debug)]
pub struct SquareWithWall;

impl RayStepper for SquareWithWall {
    const NAME: &'static str = "sqww";
    const LAYOUT: &'static str = "81 canonical cells; i32 square with edge counters, \
        off board when (sqww & BORROW_MASK) != 0 (seed 001)";

    fn empty_cells() -> Cells {
        [EMPTY; CELLS]
    }

    #[inline(always)]
    fn cell_of(canonical: usize) -> usize {
        canonical
    }

    #[inline(always)]
    fn first_piece(cells: &Cells, sq: Square, direction: Direction) -> u8 {
        let delta = DELTAS[direction as usize];
        let mut sqww = SQWW_TABLE[sq.index()];
        loop {
            sqww = sqww.wrapping_add(delta);
            if !is_ok(sqww) {
                return EMPTY;
            }
            let code = cells[to_sq(sqww) & CELL_MASK];
            if code != EMPTY {
                return code;
            }
        }
    }

    #[inline(always)]
    fn walk(cells: &Cells, counts: &mut Cells, sq: Square, direction: Direction, delta: u8) {
        let step = DELTAS[direction as usize];
        let mut sqww = SQWW_TABLE[sq.index()];
        loop {
            sqww = sqww.wrapping_add(step);
            if !is_ok(sqww) {
                return;
            }
            let cell = to_sq(sqww) & CELL_MASK;
            counts[cell] = counts[cell].wrapping_add(delta);
            if cells[cell] != EMPTY {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_count_the_squares_to_each_edge() {
        for sq in Square::all() {
            let sqww = SQWW_TABLE[sq.index()];
            assert!(is_ok(sqww));
            assert_eq!(to_sq(sqww), sq.index());
            assert_eq!(sqww & (1 << 8), 1 << 8, "guard bit");
            let field = |shift: u32| (sqww >> shift) & 0x1f;
            assert_eq!(field(9), sq.file() as i32 - 1, "right of {sq}");
            assert_eq!(field(14), sq.rank() as i32 - 1, "up of {sq}");
            assert_eq!(field(19), 9 - sq.rank() as i32, "down of {sq}");
            assert_eq!(field(24), 9 - sq.file() as i32, "left of {sq}");
        }
    }

    #[test]
    fn one_step_is_off_board_exactly_at_the_edge() {
        for sq in Square::all() {
            for direction in Direction::ALL {
                let (file, rank) = direction.file_rank_delta();
                let next = SQWW_TABLE[sq.index()].wrapping_add(DELTAS[direction as usize]);
                match sq.offset(file, rank) {
                    Some(target) => {
                        assert!(is_ok(next), "{sq} {direction:?}");
                        assert_eq!(next, SQWW_TABLE[target.index()], "{sq} {direction:?}");
                    }
                    None => assert!(!is_ok(next), "{sq} {direction:?}"),
                }
            }
        }
    }
}
