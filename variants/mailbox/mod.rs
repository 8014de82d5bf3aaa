//! Wall-padded mailbox: an 11 × 11 board of cell bytes with WALL sentinels; rays step until a non-empty cell.
//!
//! Layout: padded index `p = 11 * file + rank` (file, rank 1–9), so each file is a column of 11
//! cells: rank 0 and rank 10 are walls, files 0 and 10 are wall columns, and the 121 cells sit in
//! a 128-byte array whose last 7 cells are walls too. Why 11 rows and not 10: between two columns
//! there are two wall cells (rank 10 of one file, rank 0 of the next), which is what a knight's
//! two-rank jump needs to land on a wall rather than on the neighbouring file. Why not the classic
//! 16 × 13: nothing here extracts file or rank from a padded index (the canonical bit travels with
//! the walk, see below), so the power-of-two stride buys nothing and would spread the board over
//! 208 bytes instead of 128. Every index is masked with `& 127`, which
//! keeps indexing provably in bounds; the one neighbour outside the grid (a knight jumping from
//! `1a` to padded −1) wraps to cell 127, a wall.
//!
//! Attacks come back in the canonical `u128`. Each ray walks the padded index and the canonical
//! bit in lockstep (padded delta ±1/±11/±10/±12, canonical shift ±1/±9/±8/±10), so no table is
//! read per attacked square; the wall test decides whether a shifted bit is real. Step attacks
//! are stepped the same way, against the empty wall template.

use kiki_core::backend::CanonicalBitboard;
use kiki_core::backend::{Backend, BackendInfo, Bitboard, TableInfo};
use kiki_core::types::{Color, Square};
use std::mem::size_of;

/// A cell with no piece.
pub const EMPTY: u8 = 0;
/// A cell holding a piece (any piece: attacks only need occupancy).
pub const OCCUPIED: u8 = 1;
/// A sentinel cell off the board.
pub const WALL: u8 = 2;

/// Cells in one column: rank 0 (wall), ranks 1–9, rank 10 (wall).
pub const COLUMN: usize = 11;
/// Cells in the padded array (11 × 11 = 121 used, rounded up to a power of two for masking).
pub const CELLS: usize = 128;
/// Mask that keeps any padded index inside the array.
const CELL_MASK: usize = CELLS - 1;

/// The padded board: one byte per cell. Not over-aligned: forcing 64-byte alignment would pad
/// every (square, board) pair a harness stores by 63 bytes, inflating the measured footprint.
#[derive(Clone, PartialEq, Eq)]
#[repr(C)]
pub struct PaddedBoard {
    pub cells: [u8; CELLS],
}

impl std::fmt::Debug for PaddedBoard {
    /// Draws the 11 × 11 grid as a shogi diagram (file 10 column on the left, rank 0 on top).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "PaddedBoard (# wall, o occupied, . empty):")?;
        for rank in 0..COLUMN {
            for file in (0..COLUMN).rev() {
                let mark = match self.cells[(COLUMN * file + rank) & CELL_MASK] {
                    EMPTY => '.',
                    OCCUPIED => 'o',
                    _ => '#',
                };
                write!(f, " {mark}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// Padded index of a canonical square index.
const fn padded_index(canonical: usize) -> usize {
    COLUMN * (canonical / 9 + 1) + canonical % 9 + 1
}

const fn build_padded_of_square() -> [u8; 81] {
    let mut table = [0u8; 81];
    let mut sq = 0;
    while sq < 81 {
        table[sq] = padded_index(sq) as u8;
        sq += 1;
    }
    table
}

const fn build_empty_board() -> PaddedBoard {
    let mut cells = [WALL; CELLS];
    let mut sq = 0;
    while sq < 81 {
        cells[padded_index(sq)] = EMPTY;
        sq += 1;
    }
    PaddedBoard { cells }
}

/// Canonical square → padded index.
static PADDED_OF_SQUARE: [u8; 81] = build_padded_of_square();
/// The empty board with its walls: the template occupancies start from, and the board step
/// attacks are stepped on.
static EMPTY_BOARD: PaddedBoard = build_empty_board();

/// One direction: the padded delta and the canonical shift that move one square the same way.
/// Files count towards the left (file 9), ranks downwards (rank i), as in the canonical numbering.
mod direction {
    pub const UP: (isize, i32) = (-1, -1);
    pub const DOWN: (isize, i32) = (1, 1);
    /// Towards file 1.
    pub const RIGHT: (isize, i32) = (-11, -9);
    /// Towards file 9.
    pub const LEFT: (isize, i32) = (11, 9);
}

/// Moves a canonical bit by a signed constant shift (bits leaving the `u128` are dropped).
#[inline(always)]
const fn shift<const SHIFT: i32>(bit: u128) -> u128 {
    if SHIFT >= 0 {
        bit.wrapping_shl(SHIFT as u32)
    } else {
        bit.wrapping_shr(SHIFT.unsigned_abs())
    }
}

/// The cell at a padded index (masked, so always in bounds).
#[inline(always)]
fn cell(board: &PaddedBoard, padded: usize) -> u8 {
    board.cells[padded & CELL_MASK]
}

/// One sliding ray: every square up to and including the first occupied one, stopping before
/// a wall. `padded` and `bit` are the piece's own square.
#[inline(always)]
fn ray<const DELTA: isize, const SHIFT: i32>(
    board: &PaddedBoard,
    padded: usize,
    bit: u128,
) -> u128 {
    let mut attacks = 0u128;
    let mut padded = padded;
    let mut bit = bit;
    loop {
        padded = padded.wrapping_add_signed(DELTA);
        bit = shift::<SHIFT>(bit);
        let content = cell(board, padded);
        if content == WALL {
            break;
        }
        attacks |= bit;
        if content != EMPTY {
            break;
        }
    }
    attacks
}

/// One step: the square if it is on the board (on the wall template), else nothing.
#[inline(always)]
fn step<const DELTA: isize, const SHIFT: i32>(padded: usize, bit: u128) -> u128 {
    let on_board = cell(&EMPTY_BOARD, padded.wrapping_add_signed(DELTA)) != WALL;
    shift::<SHIFT>(bit) & 0u128.wrapping_sub(on_board as u128)
}

/// A ray along a `(delta, shift)` direction pair.
macro_rules! ray {
    ($board:expr, $dir:expr, $padded:expr, $bit:expr) => {
        ray::<{ $dir.0 }, { $dir.1 }>($board, $padded, $bit)
    };
}

/// A step along a `(delta, shift)` direction pair.
macro_rules! step {
    ($dir:expr, $padded:expr, $bit:expr) => {
        step::<{ $dir.0 }, { $dir.1 }>($padded, $bit)
    };
}

use direction::{DOWN, LEFT, RIGHT, UP};
const UP_RIGHT: (isize, i32) = (UP.0 + RIGHT.0, UP.1 + RIGHT.1);
const UP_LEFT: (isize, i32) = (UP.0 + LEFT.0, UP.1 + LEFT.1);
const DOWN_RIGHT: (isize, i32) = (DOWN.0 + RIGHT.0, DOWN.1 + RIGHT.1);
const DOWN_LEFT: (isize, i32) = (DOWN.0 + LEFT.0, DOWN.1 + LEFT.1);
const UP2_RIGHT: (isize, i32) = (2 * UP.0 + RIGHT.0, 2 * UP.1 + RIGHT.1);
const UP2_LEFT: (isize, i32) = (2 * UP.0 + LEFT.0, 2 * UP.1 + LEFT.1);
const DOWN2_RIGHT: (isize, i32) = (2 * DOWN.0 + RIGHT.0, 2 * DOWN.1 + RIGHT.1);
const DOWN2_LEFT: (isize, i32) = (2 * DOWN.0 + LEFT.0, 2 * DOWN.1 + LEFT.1);

/// The wall-padded mailbox backend (a handle onto its two const-built tables).
#[derive(Clone, Copy, Debug)]
pub struct Mailbox {
    padded_of_square: &'static [u8; 81],
}

impl Mailbox {
    /// The padded index of a square.
    #[inline(always)]
    fn padded(&self, sq: Square) -> usize {
        // SAFETY: `Square` is always < 81 (its invariant), the table has 81 entries.
        unsafe { *self.padded_of_square.get_unchecked(sq.index()) as usize }
    }

    #[inline(always)]
    fn rook_rays(board: &PaddedBoard, padded: usize, bit: u128) -> u128 {
        ray!(board, UP, padded, bit)
            | ray!(board, DOWN, padded, bit)
            | ray!(board, RIGHT, padded, bit)
            | ray!(board, LEFT, padded, bit)
    }

    #[inline(always)]
    fn bishop_rays(board: &PaddedBoard, padded: usize, bit: u128) -> u128 {
        ray!(board, UP_RIGHT, padded, bit)
            | ray!(board, UP_LEFT, padded, bit)
            | ray!(board, DOWN_RIGHT, padded, bit)
            | ray!(board, DOWN_LEFT, padded, bit)
    }

    #[inline(always)]
    fn orthogonal_steps(padded: usize, bit: u128) -> u128 {
        step!(UP, padded, bit)
            | step!(DOWN, padded, bit)
            | step!(RIGHT, padded, bit)
            | step!(LEFT, padded, bit)
    }

    #[inline(always)]
    fn diagonal_steps(padded: usize, bit: u128) -> u128 {
        step!(UP_RIGHT, padded, bit)
            | step!(UP_LEFT, padded, bit)
            | step!(DOWN_RIGHT, padded, bit)
            | step!(DOWN_LEFT, padded, bit)
    }
}

/// Gathers the low bit of each of the 8 bytes of `word` into an 8-bit mask (byte i → bit i).
#[inline(always)]
const fn byte_flags(word: u64) -> u64 {
    ((word & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

impl Backend for Mailbox {
    type Bitboard = CanonicalBitboard;
    type Occupancy = PaddedBoard;

    fn info() -> BackendInfo {
        BackendInfo {
            name: "mailbox",
            description: "wall-padded mailbox: step each ray until a piece or a WALL cell",
            layout: "occupancy: 128-byte array of 11x11 cells (EMPTY/OCCUPIED/WALL), \
                     padded index 11*file + rank; attacks in the canonical u128",
            needs: &[],
            variant: None,
        }
    }

    fn availability() -> Result<(), String> {
        Ok(())
    }

    fn tables() -> Vec<TableInfo> {
        vec![
            TableInfo {
                name: "padded_of_square",
                shape: "[81] × u8 padded index".into(),
                bytes: size_of::<[u8; 81]>(),
            },
            TableInfo {
                name: "empty_board",
                shape: "[128] × u8 cell (wall template)".into(),
                bytes: size_of::<PaddedBoard>(),
            },
        ]
    }

    fn simd_path() -> &'static str {
        "scalar"
    }

    fn new() -> Result<Self, String> {
        Ok(Mailbox {
            padded_of_square: &PADDED_OF_SQUARE,
        })
    }

    fn occupancy(&self, canonical: u128) -> PaddedBoard {
        let mut board = EMPTY_BOARD.clone();
        let mut bits = CanonicalBitboard::from_canonical(canonical);
        while let Some(sq) = bits.pop() {
            board.cells[self.padded(sq) & CELL_MASK] = OCCUPIED;
        }
        board
    }

    #[inline(always)]
    fn set_square(&self, occupancy: &mut PaddedBoard, sq: Square) {
        occupancy.cells[self.padded(sq) & CELL_MASK] = OCCUPIED;
    }

    #[inline(always)]
    fn clear_square(&self, occupancy: &mut PaddedBoard, sq: Square) {
        occupancy.cells[self.padded(sq) & CELL_MASK] = EMPTY;
    }

    /// Gathers the OCCUPIED cells into a padded 128-bit mask, eight bytes at a time, then
    /// closes the two-wall gaps between columns.
    #[inline(always)]
    fn occupied(&self, occupancy: &PaddedBoard) -> CanonicalBitboard {
        let mut padded_mask = 0u128;
        for (chunk_index, chunk) in occupancy.cells.chunks_exact(8).enumerate() {
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(chunk);
            // WALL (2) has bit 0 clear, so only OCCUPIED cells survive the byte gather.
            padded_mask |= (byte_flags(u64::from_le_bytes(bytes)) as u128) << (8 * chunk_index);
        }
        let mut canonical = 0u128;
        let mut file = 1;
        while file <= 9 {
            let column = (padded_mask >> (COLUMN * file + 1)) & 0x1ff;
            canonical |= column << (9 * (file - 1));
            file += 1;
        }
        CanonicalBitboard(canonical)
    }

    #[inline(always)]
    fn rook_attacks(&self, occupancy: &PaddedBoard, sq: Square) -> CanonicalBitboard {
        CanonicalBitboard(Self::rook_rays(occupancy, self.padded(sq), sq.bit()))
    }

    #[inline(always)]
    fn bishop_attacks(&self, occupancy: &PaddedBoard, sq: Square) -> CanonicalBitboard {
        CanonicalBitboard(Self::bishop_rays(occupancy, self.padded(sq), sq.bit()))
    }

    #[inline(always)]
    fn lance_attacks(
        &self,
        color: Color,
        occupancy: &PaddedBoard,
        sq: Square,
    ) -> CanonicalBitboard {
        let (padded, bit) = (self.padded(sq), sq.bit());
        CanonicalBitboard(match color {
            Color::Black => ray!(occupancy, UP, padded, bit),
            Color::White => ray!(occupancy, DOWN, padded, bit),
        })
    }

    /// Rook rays plus the diagonal steps (the orthogonal steps are the rays' first squares).
    #[inline(always)]
    fn dragon_attacks(&self, occupancy: &PaddedBoard, sq: Square) -> CanonicalBitboard {
        let (padded, bit) = (self.padded(sq), sq.bit());
        CanonicalBitboard(
            Self::rook_rays(occupancy, padded, bit) | Self::diagonal_steps(padded, bit),
        )
    }

    /// Bishop rays plus the orthogonal steps.
    #[inline(always)]
    fn horse_attacks(&self, occupancy: &PaddedBoard, sq: Square) -> CanonicalBitboard {
        let (padded, bit) = (self.padded(sq), sq.bit());
        CanonicalBitboard(
            Self::bishop_rays(occupancy, padded, bit) | Self::orthogonal_steps(padded, bit),
        )
    }

    #[inline(always)]
    fn king_attacks(&self, sq: Square) -> CanonicalBitboard {
        let (padded, bit) = (self.padded(sq), sq.bit());
        CanonicalBitboard(Self::orthogonal_steps(padded, bit) | Self::diagonal_steps(padded, bit))
    }

    #[inline(always)]
    fn gold_attacks(&self, color: Color, sq: Square) -> CanonicalBitboard {
        let (padded, bit) = (self.padded(sq), sq.bit());
        let sideways = step!(RIGHT, padded, bit) | step!(LEFT, padded, bit);
        CanonicalBitboard(
            sideways
                | match color {
                    Color::Black => {
                        step!(UP, padded, bit)
                            | step!(UP_RIGHT, padded, bit)
                            | step!(UP_LEFT, padded, bit)
                            | step!(DOWN, padded, bit)
                    }
                    Color::White => {
                        step!(DOWN, padded, bit)
                            | step!(DOWN_RIGHT, padded, bit)
                            | step!(DOWN_LEFT, padded, bit)
                            | step!(UP, padded, bit)
                    }
                },
        )
    }

    #[inline(always)]
    fn silver_attacks(&self, color: Color, sq: Square) -> CanonicalBitboard {
        let (padded, bit) = (self.padded(sq), sq.bit());
        let forward = match color {
            Color::Black => step!(UP, padded, bit),
            Color::White => step!(DOWN, padded, bit),
        };
        CanonicalBitboard(forward | Self::diagonal_steps(padded, bit))
    }

    #[inline(always)]
    fn knight_attacks(&self, color: Color, sq: Square) -> CanonicalBitboard {
        let (padded, bit) = (self.padded(sq), sq.bit());
        CanonicalBitboard(match color {
            Color::Black => step!(UP2_RIGHT, padded, bit) | step!(UP2_LEFT, padded, bit),
            Color::White => step!(DOWN2_RIGHT, padded, bit) | step!(DOWN2_LEFT, padded, bit),
        })
    }

    #[inline(always)]
    fn pawn_attacks(&self, color: Color, sq: Square) -> CanonicalBitboard {
        let (padded, bit) = (self.padded(sq), sq.bit());
        CanonicalBitboard(match color {
            Color::Black => step!(UP, padded, bit),
            Color::White => step!(DOWN, padded, bit),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiki_core::reference;

    fn sq(text: &str) -> Square {
        Square::parse(text).unwrap()
    }

    #[test]
    fn walls_all_round() {
        let cells = &EMPTY_BOARD.cells;
        for index in 0..COLUMN {
            assert_eq!(cells[index], WALL, "file 0 column, cell {index}");
            assert_eq!(
                cells[COLUMN * 10 + index],
                WALL,
                "file 10 column, cell {index}"
            );
            assert_eq!(cells[COLUMN * index], WALL, "rank 0 of column {index}");
            assert_eq!(
                cells[COLUMN * index + 10],
                WALL,
                "rank 10 of column {index}"
            );
        }
        for (index, &cell) in cells.iter().enumerate().skip(COLUMN * COLUMN) {
            assert_eq!(cell, WALL, "spare cell {index}");
        }
        assert_eq!(cells.iter().filter(|&&c| c == EMPTY).count(), 81);
        assert_eq!(cells.iter().filter(|&&c| c == WALL).count(), CELLS - 81);
    }

    #[test]
    fn padded_indices_of_corners_and_centre() {
        assert_eq!(PADDED_OF_SQUARE[sq("1a").index()], 12);
        assert_eq!(PADDED_OF_SQUARE[sq("1i").index()], 20);
        assert_eq!(PADDED_OF_SQUARE[sq("9a").index()], 100);
        assert_eq!(PADDED_OF_SQUARE[sq("9i").index()], 108);
        assert_eq!(PADDED_OF_SQUARE[sq("5e").index()], 60);
        // Every neighbour within a knight's jump of the board stays in the array or wraps to a wall.
        for s in Square::all() {
            let padded = PADDED_OF_SQUARE[s.index()] as isize;
            for delta in [-13, -12, -11, -10, -9, -2, -1, 1, 2, 9, 10, 11, 12, 13] {
                let neighbour = padded + delta;
                assert!((-1..CELLS as isize).contains(&neighbour));
                if neighbour < 0 {
                    assert_eq!(cell(&EMPTY_BOARD, neighbour as usize), WALL);
                }
            }
        }
    }

    #[test]
    fn walls_stop_without_being_attacked() {
        let backend = Mailbox::new().unwrap();
        let empty = backend.occupancy(0);
        for s in Square::all() {
            assert_eq!(
                backend.rook_attacks(&empty, s).0,
                reference::rook(0, s),
                "rook on {s}"
            );
            assert_eq!(
                backend.bishop_attacks(&empty, s).0,
                reference::bishop(0, s),
                "bishop on {s}"
            );
        }
    }

    #[test]
    fn occupancy_round_trips_and_updates_one_cell() {
        let backend = Mailbox::new().unwrap();
        let canonical = sq("1a").bit() | sq("9i").bit() | sq("5e").bit() | sq("8b").bit();
        let mut board = backend.occupancy(canonical);
        assert_eq!(backend.occupied(&board).0, canonical);
        backend.clear_square(&mut board, sq("5e"));
        assert_eq!(board.cells[60], EMPTY);
        backend.set_square(&mut board, sq("5f"));
        assert_eq!(board.cells[61], OCCUPIED);
        assert_eq!(
            backend.occupied(&board).0,
            canonical ^ sq("5e").bit() ^ sq("5f").bit()
        );
        assert_eq!(
            backend
                .occupied(&backend.occupancy(kiki_core::types::ALL_SQUARES))
                .0,
            kiki_core::types::ALL_SQUARES
        );
    }

    #[test]
    fn tables_are_tiny_and_exact() {
        assert_eq!(Mailbox::table_bytes(), 81 + 128);
    }
}
