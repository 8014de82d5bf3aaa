//! Ray stepper 3: the classic check seed 001 replaces — step the canonical square by its delta
//! and stop once `dist(sq, sq - delta) > 1`, with `dist` the larger of the file and rank
//! differences (max/abs), or "infinite" when either square is off the board.
//!
//! Squares are canonical (`(file − 1) × 9 + (rank − 1)`), so one step right is −9 and one step
//! up is −1; `file_of`/`rank_of` are `/ 9` and `% 9` (the compiler turns both into multiplies).

use super::{Cells, Direction, RayStepper, CELLS, CELL_MASK, EMPTY};
use kiki_core::types::Square;

/// Canonical deltas in `Direction` order (file step 9, rank step 1).
const DELTAS: [i32; 8] = [
    Direction::RightUp.delta(9),
    Direction::Right.delta(9),
    Direction::RightDown.delta(9),
    Direction::Up.delta(9),
    Direction::Down.delta(9),
    Direction::LeftUp.delta(9),
    Direction::Left.delta(9),
    Direction::LeftDown.delta(9),
];

/// Whether a canonical index is on the board.
#[inline(always)]
const fn is_ok(sq: i32) -> bool {
    0 <= sq && sq < 81
}

/// The seed's `dist`: the larger of the file and rank differences, `i32::MAX` when either
/// square is off the board.
#[inline(always)]
pub fn dist(sq1: i32, sq2: i32) -> i32 {
    if !is_ok(sq1) || !is_ok(sq2) {
        i32::MAX
    } else {
        ((sq1 / 9) - (sq2 / 9))
            .abs()
            .max(((sq1 % 9) - (sq2 % 9)).abs())
    }
}

/// The distance check over the 81 canonical cells.
#[derive(Clone, Copy, Debug)]
pub struct DistanceCheck;

impl RayStepper for DistanceCheck {
    const NAME: &'static str = "distance";
    const LAYOUT: &'static str = "81 canonical cells; int square, off board when \
        dist(sq, sq - delta) > 1 (max/abs of file and rank differences)";

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
        let mut sq = sq.index() as i32;
        loop {
            sq += delta;
            if dist(sq, sq - delta) > 1 {
                return EMPTY;
            }
            let code = cells[sq as usize & CELL_MASK];
            if code != EMPTY {
                return code;
            }
        }
    }

    #[inline(always)]
    fn walk(cells: &Cells, counts: &mut Cells, sq: Square, direction: Direction, delta: u8) {
        let step = DELTAS[direction as usize];
        let mut sq = sq.index() as i32;
        loop {
            sq += step;
            if dist(sq, sq - step) > 1 {
                return;
            }
            let cell = sq as usize & CELL_MASK;
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
    fn one_step_leaves_the_board_exactly_at_the_edge() {
        for sq in Square::all() {
            for direction in Direction::ALL {
                let (file, rank) = direction.file_rank_delta();
                let delta = DELTAS[direction as usize];
                let next = sq.index() as i32 + delta;
                let stays = dist(next, next - delta) <= 1;
                match sq.offset(file, rank) {
                    Some(target) => {
                        assert!(stays, "{sq} {direction:?}");
                        assert_eq!(next, target.index() as i32);
                    }
                    None => assert!(!stays, "{sq} {direction:?}"),
                }
            }
        }
    }
}
