//! SquareWithWall (seed 001): rays step a square that carries its own distances to the edges.
//!
//! A `SquareWithWall` is an `i32`: bits 0–7 the canonical square, bit 8 a borrow guard kept at 1
//! (so that a square going below 0 borrows from it, not from the counters), then four 5-bit
//! counters of the squares left before the edge: bits 9–13 to the right (towards file 1),
//! 14–18 up (towards rank a), 19–23 down, 24–28 left. A direction delta adds the square delta
//! and moves one count from one counter to its opposite, so stepping off the board makes a
//! counter go below zero and set its top bit (13, 18, 23 or 28): one AND tells whether the
//! square is still on the board. The occupancy is a plain 81-byte array in canonical order,
//! indexed by the low byte; no padding, the squares stay contiguous (the seed's point).
//!
//! Attacks come back in the canonical `u128`. The canonical bit travels with the walk by a
//! constant shift per step (±1, ±9, ±8, ±10), which is cheaper than `1 << square` for a `u128`.
//! Step attacks are stepped the same way, with the SQWW deltas (no step table).

use kiki_core::backend::CanonicalBitboard;
use kiki_core::backend::{Backend, BackendInfo, TableInfo};
use kiki_core::types::{Color, Square};
use std::mem::size_of;

/// The square's own delta one step towards file 1 (canonical numbering).
const SQ_RIGHT: i32 = -9;
/// The square's own delta one step towards rank a.
const SQ_UP: i32 = -1;

/// One step towards file 1: square −9, right counter −1, left counter +1.
pub const SQWW_RIGHT: i32 = SQ_RIGHT - (1 << 9) + (1 << 24);
/// One step towards rank a: square −1, up counter −1, down counter +1.
pub const SQWW_UP: i32 = SQ_UP - (1 << 14) + (1 << 19);
pub const SQWW_DOWN: i32 = -SQWW_UP;
pub const SQWW_LEFT: i32 = -SQWW_RIGHT;
pub const SQWW_RIGHT_UP: i32 = SQWW_RIGHT + SQWW_UP;
pub const SQWW_RIGHT_DOWN: i32 = SQWW_RIGHT + SQWW_DOWN;
pub const SQWW_LEFT_UP: i32 = SQWW_LEFT + SQWW_UP;
pub const SQWW_LEFT_DOWN: i32 = SQWW_LEFT + SQWW_DOWN;

/// Square 1a: guard bit set, nothing to the right or up, 8 squares down and 8 to the left.
// Written field by field as in the seed, zero fields included.
#[allow(clippy::identity_op)]
pub const SQWW_11: i32 = (1 << 8) | (0 << 9) | (0 << 14) | (8 << 19) | (8 << 24);

/// The top bit of each counter: set once a counter has gone below zero (off the board).
pub const BORROW_MASK: i32 = (1 << 13) | (1 << 18) | (1 << 23) | (1 << 28);

/// Whether a SquareWithWall is on the board.
#[inline(always)]
pub const fn is_ok(sqww: i32) -> bool {
    sqww & BORROW_MASK == 0
}

/// The canonical square index in the low byte (meaningful only when `is_ok`).
#[inline(always)]
pub const fn square_index(sqww: i32) -> usize {
    (sqww & 0xff) as usize
}

const fn build_sqww_table() -> [i32; 81] {
    let mut table = [0i32; 81];
    let mut sq = 0;
    while sq < 81 {
        let file_index = (sq / 9) as i32;
        let rank_index = (sq % 9) as i32;
        table[sq] = SQWW_11 + file_index * SQWW_LEFT + rank_index * SQWW_DOWN;
        sq += 1;
    }
    table
}

/// Canonical square → SquareWithWall; mirrors seed 001's `sqww_table`.
static SQWW_TABLE: [i32; 81] = build_sqww_table();

/// A byte per canonical square: 1 occupied, 0 empty.
#[derive(Clone, PartialEq, Eq)]
pub struct SquareBytes {
    pub cells: [u8; 81],
}

impl std::fmt::Debug for SquareBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let drawing = kiki_core::types::draw_board(|sq| {
            if self.cells[sq.index()] != 0 {
                'o'
            } else {
                '.'
            }
        });
        write!(f, "SquareBytes\n{drawing}")
    }
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

/// One sliding ray: step until off the board, marking each square, stopping after an
/// occupied one. `sqww` and `bit` are the piece's own square.
#[inline(always)]
fn ray<const DELTA: i32, const SHIFT: i32>(occupancy: &SquareBytes, sqww: i32, bit: u128) -> u128 {
    let mut attacks = 0u128;
    let mut sqww = sqww;
    let mut bit = bit;
    loop {
        sqww = sqww.wrapping_add(DELTA);
        bit = shift::<SHIFT>(bit);
        if !is_ok(sqww) {
            break;
        }
        attacks |= bit;
        // SAFETY: `is_ok` holds, so the low byte is an on-board canonical square, < 81.
        if unsafe { *occupancy.cells.get_unchecked(square_index(sqww)) } != 0 {
            break;
        }
    }
    attacks
}

/// One step: the square if it is on the board, else nothing (branch-free).
#[inline(always)]
fn step<const DELTA: i32, const SHIFT: i32>(sqww: i32, bit: u128) -> u128 {
    shift::<SHIFT>(bit) & 0u128.wrapping_sub(is_ok(sqww.wrapping_add(DELTA)) as u128)
}

/// A ray in a direction named by its SQWW delta and canonical shift.
macro_rules! ray {
    ($occupancy:expr, $delta:ident / $shift:expr, $sqww:expr, $bit:expr) => {
        ray::<$delta, { $shift }>($occupancy, $sqww, $bit)
    };
}

/// A step in a direction named by its SQWW delta and canonical shift.
macro_rules! step {
    ($delta:ident / $shift:expr, $sqww:expr, $bit:expr) => {
        step::<$delta, { $shift }>($sqww, $bit)
    };
}

/// Knight jumps: two up or down, one sideways.
const SQWW_KNIGHT_UP_RIGHT: i32 = 2 * SQWW_UP + SQWW_RIGHT;
const SQWW_KNIGHT_UP_LEFT: i32 = 2 * SQWW_UP + SQWW_LEFT;
const SQWW_KNIGHT_DOWN_RIGHT: i32 = 2 * SQWW_DOWN + SQWW_RIGHT;
const SQWW_KNIGHT_DOWN_LEFT: i32 = 2 * SQWW_DOWN + SQWW_LEFT;

/// The SquareWithWall backend (a handle onto its const-built table).
#[derive(Clone, Copy, Debug)]
pub struct Sqww {
    sqww_table: &'static [i32; 81],
}

impl Sqww {
    #[inline(always)]
    fn sqww(&self, sq: Square) -> i32 {
        // SAFETY: `Square` is always < 81 (its invariant), the table has 81 entries.
        unsafe { *self.sqww_table.get_unchecked(sq.index()) }
    }

    #[inline(always)]
    fn rook_rays(occupancy: &SquareBytes, sqww: i32, bit: u128) -> u128 {
        ray!(occupancy, SQWW_UP / -1, sqww, bit)
            | ray!(occupancy, SQWW_DOWN / 1, sqww, bit)
            | ray!(occupancy, SQWW_RIGHT / -9, sqww, bit)
            | ray!(occupancy, SQWW_LEFT / 9, sqww, bit)
    }

    #[inline(always)]
    fn bishop_rays(occupancy: &SquareBytes, sqww: i32, bit: u128) -> u128 {
        ray!(occupancy, SQWW_RIGHT_UP / -10, sqww, bit)
            | ray!(occupancy, SQWW_LEFT_UP / 8, sqww, bit)
            | ray!(occupancy, SQWW_RIGHT_DOWN / -8, sqww, bit)
            | ray!(occupancy, SQWW_LEFT_DOWN / 10, sqww, bit)
    }

    #[inline(always)]
    fn orthogonal_steps(sqww: i32, bit: u128) -> u128 {
        step!(SQWW_UP / -1, sqww, bit)
            | step!(SQWW_DOWN / 1, sqww, bit)
            | step!(SQWW_RIGHT / -9, sqww, bit)
            | step!(SQWW_LEFT / 9, sqww, bit)
    }

    #[inline(always)]
    fn diagonal_steps(sqww: i32, bit: u128) -> u128 {
        step!(SQWW_RIGHT_UP / -10, sqww, bit)
            | step!(SQWW_LEFT_UP / 8, sqww, bit)
            | step!(SQWW_RIGHT_DOWN / -8, sqww, bit)
            | step!(SQWW_LEFT_DOWN / 10, sqww, bit)
    }
}

/// Gathers the low bit of each of the 8 bytes of `word` into an 8-bit mask (byte i → bit i).
#[inline(always)]
const fn byte_flags(word: u64) -> u64 {
    ((word & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

impl Backend for Sqww {
    type Bitboard = CanonicalBitboard;
    type Occupancy = SquareBytes;

    fn info() -> BackendInfo {
        BackendInfo {
            name: "sqww",
            description:
                "Yaneura-ou's SquareWithWall: step each ray with borrow-guarded edge counters",
            layout:
                "occupancy: 81 bytes in canonical order; square: i32 with 5-bit right/up/down/left \
                     counters and borrow bits 13/18/23/28; attacks in the canonical u128",
            needs: &[],
            variant: None,
        }
    }

    fn availability() -> Result<(), String> {
        Ok(())
    }

    fn tables() -> Vec<TableInfo> {
        vec![TableInfo {
            name: "sqww_table",
            shape: "[81] × i32 SquareWithWall".into(),
            bytes: size_of::<[i32; 81]>(),
        }]
    }

    fn simd_path() -> &'static str {
        "scalar"
    }

    fn new() -> Result<Self, String> {
        Ok(Sqww {
            sqww_table: &SQWW_TABLE,
        })
    }

    fn occupancy(&self, canonical: u128) -> SquareBytes {
        let mut cells = [0u8; 81];
        for (index, cell) in cells.iter_mut().enumerate() {
            *cell = ((canonical >> index) & 1) as u8;
        }
        SquareBytes { cells }
    }

    #[inline(always)]
    fn set_square(&self, occupancy: &mut SquareBytes, sq: Square) {
        // SAFETY: `Square` is always < 81 (its invariant), the array has 81 cells.
        unsafe { *occupancy.cells.get_unchecked_mut(sq.index()) = 1 };
    }

    #[inline(always)]
    fn clear_square(&self, occupancy: &mut SquareBytes, sq: Square) {
        // SAFETY: as in `set_square`.
        unsafe { *occupancy.cells.get_unchecked_mut(sq.index()) = 0 };
    }

    /// Gathers the bytes eight at a time: canonical order, so no reshuffling is needed.
    #[inline(always)]
    fn occupied(&self, occupancy: &SquareBytes) -> CanonicalBitboard {
        let mut canonical = 0u128;
        let (chunks, last) = occupancy.cells.split_at(80);
        for (chunk_index, chunk) in chunks.chunks_exact(8).enumerate() {
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(chunk);
            canonical |= (byte_flags(u64::from_le_bytes(bytes)) as u128) << (8 * chunk_index);
        }
        for &cell in last {
            canonical |= ((cell & 1) as u128) << 80;
        }
        CanonicalBitboard(canonical)
    }

    #[inline(always)]
    fn rook_attacks(&self, occupancy: &SquareBytes, sq: Square) -> CanonicalBitboard {
        CanonicalBitboard(Self::rook_rays(occupancy, self.sqww(sq), sq.bit()))
    }

    #[inline(always)]
    fn bishop_attacks(&self, occupancy: &SquareBytes, sq: Square) -> CanonicalBitboard {
        CanonicalBitboard(Self::bishop_rays(occupancy, self.sqww(sq), sq.bit()))
    }

    #[inline(always)]
    fn lance_attacks(
        &self,
        color: Color,
        occupancy: &SquareBytes,
        sq: Square,
    ) -> CanonicalBitboard {
        let (sqww, bit) = (self.sqww(sq), sq.bit());
        CanonicalBitboard(match color {
            Color::Black => ray!(occupancy, SQWW_UP / -1, sqww, bit),
            Color::White => ray!(occupancy, SQWW_DOWN / 1, sqww, bit),
        })
    }

    /// Rook rays plus the diagonal steps (the orthogonal steps are the rays' first squares).
    #[inline(always)]
    fn dragon_attacks(&self, occupancy: &SquareBytes, sq: Square) -> CanonicalBitboard {
        let (sqww, bit) = (self.sqww(sq), sq.bit());
        CanonicalBitboard(Self::rook_rays(occupancy, sqww, bit) | Self::diagonal_steps(sqww, bit))
    }

    /// Bishop rays plus the orthogonal steps.
    #[inline(always)]
    fn horse_attacks(&self, occupancy: &SquareBytes, sq: Square) -> CanonicalBitboard {
        let (sqww, bit) = (self.sqww(sq), sq.bit());
        CanonicalBitboard(
            Self::bishop_rays(occupancy, sqww, bit) | Self::orthogonal_steps(sqww, bit),
        )
    }

    #[inline(always)]
    fn king_attacks(&self, sq: Square) -> CanonicalBitboard {
        let (sqww, bit) = (self.sqww(sq), sq.bit());
        CanonicalBitboard(Self::orthogonal_steps(sqww, bit) | Self::diagonal_steps(sqww, bit))
    }

    #[inline(always)]
    fn gold_attacks(&self, color: Color, sq: Square) -> CanonicalBitboard {
        let (sqww, bit) = (self.sqww(sq), sq.bit());
        let sideways = step!(SQWW_RIGHT / -9, sqww, bit) | step!(SQWW_LEFT / 9, sqww, bit);
        CanonicalBitboard(
            sideways
                | match color {
                    Color::Black => {
                        step!(SQWW_UP / -1, sqww, bit)
                            | step!(SQWW_RIGHT_UP / -10, sqww, bit)
                            | step!(SQWW_LEFT_UP / 8, sqww, bit)
                            | step!(SQWW_DOWN / 1, sqww, bit)
                    }
                    Color::White => {
                        step!(SQWW_DOWN / 1, sqww, bit)
                            | step!(SQWW_RIGHT_DOWN / -8, sqww, bit)
                            | step!(SQWW_LEFT_DOWN / 10, sqww, bit)
                            | step!(SQWW_UP / -1, sqww, bit)
                    }
                },
        )
    }

    #[inline(always)]
    fn silver_attacks(&self, color: Color, sq: Square) -> CanonicalBitboard {
        let (sqww, bit) = (self.sqww(sq), sq.bit());
        let forward = match color {
            Color::Black => step!(SQWW_UP / -1, sqww, bit),
            Color::White => step!(SQWW_DOWN / 1, sqww, bit),
        };
        CanonicalBitboard(forward | Self::diagonal_steps(sqww, bit))
    }

    #[inline(always)]
    fn knight_attacks(&self, color: Color, sq: Square) -> CanonicalBitboard {
        let (sqww, bit) = (self.sqww(sq), sq.bit());
        CanonicalBitboard(match color {
            Color::Black => {
                step!(SQWW_KNIGHT_UP_RIGHT / -11, sqww, bit)
                    | step!(SQWW_KNIGHT_UP_LEFT / 7, sqww, bit)
            }
            Color::White => {
                step!(SQWW_KNIGHT_DOWN_RIGHT / -7, sqww, bit)
                    | step!(SQWW_KNIGHT_DOWN_LEFT / 11, sqww, bit)
            }
        })
    }

    #[inline(always)]
    fn pawn_attacks(&self, color: Color, sq: Square) -> CanonicalBitboard {
        let (sqww, bit) = (self.sqww(sq), sq.bit());
        CanonicalBitboard(match color {
            Color::Black => step!(SQWW_UP / -1, sqww, bit),
            Color::White => step!(SQWW_DOWN / 1, sqww, bit),
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

    /// A SquareWithWall assembled field by field, as the seed's comment lays it out.
    fn fields(square: i32, right: i32, up: i32, down: i32, left: i32) -> i32 {
        square | (1 << 8) | (right << 9) | (up << 14) | (down << 19) | (left << 24)
    }

    #[test]
    fn seed_constants() {
        assert_eq!(SQWW_RIGHT, -9 - 512 + 16_777_216);
        assert_eq!(SQWW_UP, -1 - 16_384 + 524_288);
        assert_eq!(SQWW_11, 0x0840_0100);
        assert_eq!(BORROW_MASK, 0x1084_2000);
    }

    #[test]
    fn table_values_of_corners_and_centre() {
        assert_eq!(SQWW_TABLE[sq("1a").index()], fields(0, 0, 0, 8, 8));
        assert_eq!(SQWW_TABLE[sq("1a").index()], 0x0840_0100);
        assert_eq!(SQWW_TABLE[sq("9i").index()], fields(80, 8, 8, 0, 0));
        assert_eq!(SQWW_TABLE[sq("9i").index()], 0x0002_1150);
        assert_eq!(SQWW_TABLE[sq("5e").index()], fields(40, 4, 4, 4, 4));
        assert_eq!(SQWW_TABLE[sq("5e").index()], 0x0421_0928);
        for s in Square::all() {
            let (file, rank) = (s.file() as i32, s.rank() as i32);
            let expected = fields(s.index() as i32, file - 1, rank - 1, 9 - rank, 9 - file);
            assert_eq!(SQWW_TABLE[s.index()], expected, "{s}");
            assert!(is_ok(expected));
        }
    }

    #[test]
    fn walking_off_each_edge_sets_that_edges_borrow_bit() {
        for s in Square::all() {
            let sqww = SQWW_TABLE[s.index()];
            if s.file() == 1 {
                assert_ne!(sqww.wrapping_add(SQWW_RIGHT) & (1 << 13), 0, "{s} right");
            }
            if s.rank() == 1 {
                assert_ne!(sqww.wrapping_add(SQWW_UP) & (1 << 18), 0, "{s} up");
            }
            if s.rank() == 9 {
                assert_ne!(sqww.wrapping_add(SQWW_DOWN) & (1 << 23), 0, "{s} down");
            }
            if s.file() == 9 {
                assert_ne!(sqww.wrapping_add(SQWW_LEFT) & (1 << 28), 0, "{s} left");
            }
        }
        // Off a side (not a corner) only that side's counter borrows.
        assert_eq!(
            (SQWW_TABLE[sq("1e").index()] + SQWW_RIGHT) & BORROW_MASK,
            1 << 13
        );
        assert_eq!(
            (SQWW_TABLE[sq("5a").index()] + SQWW_UP) & BORROW_MASK,
            1 << 18
        );
        assert_eq!(
            (SQWW_TABLE[sq("5i").index()] + SQWW_DOWN) & BORROW_MASK,
            1 << 23
        );
        assert_eq!(
            (SQWW_TABLE[sq("9e").index()] + SQWW_LEFT) & BORROW_MASK,
            1 << 28
        );
    }

    #[test]
    fn every_delta_agrees_with_square_offset() {
        // (delta, file delta, rank delta): the eight directions and the four knight jumps.
        let deltas = [
            (SQWW_RIGHT, -1, 0),
            (SQWW_LEFT, 1, 0),
            (SQWW_UP, 0, -1),
            (SQWW_DOWN, 0, 1),
            (SQWW_RIGHT_UP, -1, -1),
            (SQWW_RIGHT_DOWN, -1, 1),
            (SQWW_LEFT_UP, 1, -1),
            (SQWW_LEFT_DOWN, 1, 1),
            (SQWW_KNIGHT_UP_RIGHT, -1, -2),
            (SQWW_KNIGHT_UP_LEFT, 1, -2),
            (SQWW_KNIGHT_DOWN_RIGHT, -1, 2),
            (SQWW_KNIGHT_DOWN_LEFT, 1, 2),
        ];
        for s in Square::all() {
            for &(delta, file_delta, rank_delta) in &deltas {
                let moved = SQWW_TABLE[s.index()].wrapping_add(delta);
                match s.offset(file_delta, rank_delta) {
                    // On the board the counters stay exact: the result is the target's entry.
                    Some(target) => assert_eq!(moved, SQWW_TABLE[target.index()], "{s} {delta}"),
                    None => assert!(!is_ok(moved), "{s} {delta}"),
                }
            }
        }
    }

    #[test]
    fn empty_board_rays_match_the_reference() {
        let backend = Sqww::new().unwrap();
        let empty = backend.occupancy(0);
        for s in Square::all() {
            assert_eq!(
                backend.rook_attacks(&empty, s).0,
                reference::rook(0, s),
                "{s}"
            );
            assert_eq!(
                backend.bishop_attacks(&empty, s).0,
                reference::bishop(0, s),
                "{s}"
            );
        }
    }

    #[test]
    fn occupancy_round_trips() {
        let backend = Sqww::new().unwrap();
        let canonical = sq("1a").bit() | sq("9i").bit() | sq("5e").bit();
        let mut occupancy = backend.occupancy(canonical);
        assert_eq!(backend.occupied(&occupancy).0, canonical);
        backend.clear_square(&mut occupancy, sq("9i"));
        backend.set_square(&mut occupancy, sq("8h"));
        assert_eq!(
            backend.occupied(&occupancy).0,
            canonical ^ sq("9i").bit() ^ sq("8h").bit()
        );
        let full = kiki_core::types::ALL_SQUARES;
        assert_eq!(backend.occupied(&backend.occupancy(full)).0, full);
    }

    #[test]
    fn table_bytes_are_exact() {
        assert_eq!(Sqww::table_bytes(), 81 * 4);
    }
}
