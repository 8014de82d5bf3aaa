//! Ray stepper 1: the wall-padded mailbox — an 11 × 11 board (one ring of `WALL` cells around
//! the 9 × 9) in which a ray stops at the first non-empty cell, wall or piece, with one test.
//!
//! Cell of file `f`, rank `r` (both 1–9) is `f × 11 + r`: one step right (towards file 1) is
//! −11, one step up is −1; a slider steps one cell at a time, so a single ring of walls is
//! enough (cells 0–120 of the 128). As the seed notes, counts may be written to wall cells
//! (they are never read), so the walk needs no separate wall test: `piece != EMPTY` covers it.

use super::{Cells, Direction, RayStepper, CELLS, CELL_MASK, EMPTY, WALL};
use kiki_core::types::Square;

/// Cells per padded file (column), walls included.
pub const COLUMN: usize = 11;

/// Padded deltas in `Direction` order (file step 11, rank step 1).
const DELTAS: [isize; 8] = [
    Direction::RightUp.delta(COLUMN as i32) as isize,
    Direction::Right.delta(COLUMN as i32) as isize,
    Direction::RightDown.delta(COLUMN as i32) as isize,
    Direction::Up.delta(COLUMN as i32) as isize,
    Direction::Down.delta(COLUMN as i32) as isize,
    Direction::LeftUp.delta(COLUMN as i32) as isize,
    Direction::Left.delta(COLUMN as i32) as isize,
    Direction::LeftDown.delta(COLUMN as i32) as isize,
];

/// Canonical square → padded cell (indexed with `& 127`, so sized 128).
static PADDED: [u8; CELLS] = {
    let mut table = [0u8; CELLS];
    let mut sq = 0;
    while sq < 81 {
        table[sq] = ((sq / 9 + 1) * COLUMN + sq % 9 + 1) as u8;
        sq += 1;
    }
    table
};

/// Every on-board cell `EMPTY`, every other cell `WALL`.
static EMPTY_BOARD: Cells = {
    let mut cells = [WALL; CELLS];
    let mut sq = 0;
    while sq < 81 {
        cells[PADDED[sq] as usize] = EMPTY;
        sq += 1;
    }
    cells
};

/// The 11 × 11 wall-padded mailbox.
#[derive(Clone, Copy, Debug)]
pub struct PaddedMailbox;

impl RayStepper for PaddedMailbox {
    const NAME: &'static str = "mailbox";
    const LAYOUT: &'static str = "11x11 padded cells (one ring of WALL), cell = file*11 + rank; \
        a ray stops at the first non-empty cell, wall included";

    fn empty_cells() -> Cells {
        EMPTY_BOARD
    }

    #[inline(always)]
    fn cell_of(canonical: usize) -> usize {
        PADDED[canonical & CELL_MASK] as usize
    }

    #[inline(always)]
    fn first_piece(cells: &Cells, sq: Square, direction: Direction) -> u8 {
        let delta = DELTAS[direction as usize];
        let mut cell = Self::cell(sq);
        loop {
            cell = cell.wrapping_add_signed(delta);
            let code = cells[cell & CELL_MASK];
            if code != EMPTY {
                return code;
            }
        }
    }

    #[inline(always)]
    fn walk(cells: &Cells, counts: &mut Cells, sq: Square, direction: Direction, delta: u8) {
        let step = DELTAS[direction as usize];
        let mut cell = Self::cell(sq);
        loop {
            cell = cell.wrapping_add_signed(step) & CELL_MASK;
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
    fn one_step_hits_a_wall_exactly_at_the_edge() {
        for sq in Square::all() {
            assert_eq!(EMPTY_BOARD[PaddedMailbox::cell(sq)], EMPTY);
            for direction in Direction::ALL {
                let (file, rank) = direction.file_rank_delta();
                let next = PaddedMailbox::cell(sq).wrapping_add_signed(DELTAS[direction as usize]);
                assert!(next < COLUMN * COLUMN);
                match sq.offset(file, rank) {
                    Some(target) => assert_eq!(next, PaddedMailbox::cell(target)),
                    None => assert_eq!(EMPTY_BOARD[next], WALL, "{sq} {direction:?}"),
                }
            }
        }
        let on_board = EMPTY_BOARD.iter().filter(|&&c| c == EMPTY).count();
        assert_eq!(on_board, 81);
    }
}
