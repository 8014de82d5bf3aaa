//! The DBB bitboard of seed 004: Bonanza's rank-major layout (three 27-bit words) in 128 bits.
//!
//! Bonanza numbers a square `i = irank * 9 + ifile` (irank 0 = rank a, ifile 0 = file 9). The
//! square lives in 32-bit word `i / 27` at bit `26 - i % 27`, so each word holds three whole
//! ranks, the topmost at bits 18–26 and file 9 at each rank's highest bit. Words 0 and 1 are the
//! low and high halves of `u64` 0, word 2 is the low half of `u64` 1, and word 3 is spare (always
//! zero). Bitwise operations work on the two `u64` halves.

use kiki_core::backend::Bitboard;
use kiki_core::types::{Color, Square, ALL_SQUARES};
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign};

/// Seed 004's `DBB`: `p64[0]` = words 0–1 (ranks a–f), `p64[1]` = word 2 (ranks g–i) and the
/// spare word 3.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Hash)]
#[repr(C, align(16))]
pub struct DbbBitboard(pub [u64; 2]);

/// Bonanza's square index of a canonical square index: `irank * 9 + ifile`, ifile 0 = file 9.
pub const fn bonanza_index(canonical: usize) -> usize {
    let ifile = 8 - canonical / 9;
    let irank = canonical % 9;
    irank * 9 + ifile
}

/// The bit (0..128, counting `p64[0]` first) that holds a canonical square.
pub const fn dbb_bit(canonical: usize) -> usize {
    let i = bonanza_index(canonical);
    (i / 27) * 32 + 26 - i % 27
}

const fn build_square_masks() -> [DbbBitboard; 81] {
    let mut masks = [DbbBitboard([0, 0]); 81];
    let mut index = 0;
    while index < 81 {
        let bit = dbb_bit(index);
        masks[index].0[bit / 64] = 1 << (bit % 64);
        index += 1;
    }
    masks
}

const fn build_bit_to_square() -> [u8; 128] {
    // Bits that hold no square map to 0; they are never set, so `pop` never reads them.
    let mut squares = [0u8; 128];
    let mut index = 0;
    while index < 81 {
        squares[dbb_bit(index)] = index as u8;
        index += 1;
    }
    squares
}

/// The single-square DBB of each canonical square (const-evaluated).
pub static SQUARE_MASKS: [DbbBitboard; 81] = build_square_masks();
/// The canonical square held by each DBB bit (const-evaluated; every entry `< 81`).
pub static BIT_TO_SQUARE: [u8; 128] = build_bit_to_square();

impl DbbBitboard {
    pub const EMPTY: DbbBitboard = DbbBitboard([0, 0]);

    /// Seed 004's `p32[word]`: the 32-bit word `word` (0..4) of the DBB.
    #[inline(always)]
    pub const fn p32(self, word: usize) -> u32 {
        (self.0[(word >> 1) & 1] >> ((word & 1) * 32)) as u32
    }
}

macro_rules! dbb_binop {
    ($trait:ident, $method:ident, $assign_trait:ident, $assign_method:ident, $op:tt) => {
        impl $trait for DbbBitboard {
            type Output = DbbBitboard;
            #[inline(always)]
            fn $method(self, rhs: Self) -> Self {
                DbbBitboard([self.0[0] $op rhs.0[0], self.0[1] $op rhs.0[1]])
            }
        }
        impl $assign_trait for DbbBitboard {
            #[inline(always)]
            fn $assign_method(&mut self, rhs: Self) {
                self.0[0] = self.0[0] $op rhs.0[0];
                self.0[1] = self.0[1] $op rhs.0[1];
            }
        }
    };
}
dbb_binop!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
dbb_binop!(BitOr, bitor, BitOrAssign, bitor_assign, |);
dbb_binop!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

/// The canonical square of a DBB bit.
#[inline(always)]
fn square_of_bit(bit: u32) -> Square {
    // SAFETY: the index is masked to `< 128`, the table's length, and every entry of
    // `BIT_TO_SQUARE` is a canonical index `< 81`, `Square`'s invariant.
    unsafe { Square::new_unchecked(*BIT_TO_SQUARE.get_unchecked((bit & 127) as usize)) }
}

/// Each 27-bit word's bits, at bits 0, 32 and 64 of the pair read as one `u128`.
const WORD_BITS: u128 = 0x7FF_FFFF | (0x7FF_FFFF << 32) | (0x7FF_FFFF << 64);
/// Each word's lowest rank of three (bits 0-8: its last rank towards rank `i`).
const WORD_LAST_RANK: u128 = 0x1FF | (0x1FF << 32) | (0x1FF << 64);
/// Each word's top rank of three (bits 18-26: its first rank towards rank `a`).
const WORD_FIRST_RANK: u128 = WORD_LAST_RANK << 18;

impl Bitboard for DbbBitboard {
    #[inline(always)]
    fn forward_one(self, color: Color) -> Self {
        // Rank-major words of three ranks, rank `a` in the top bits: a rank forward for black is
        // nine bits up within a word, and the next word's top rank comes down into the bottom.
        let bits = self.0[0] as u128 | (self.0[1] as u128) << 64;
        let moved = match color {
            // Masked before the shift so that no bit crosses into the next word's place.
            Color::Black => {
                (bits & WORD_BITS & !WORD_FIRST_RANK) << 9 | (bits >> 50 & WORD_LAST_RANK)
            }
            Color::White => {
                ((bits & WORD_BITS & !WORD_LAST_RANK) >> 9 | (bits & WORD_LAST_RANK) << 50)
                    & WORD_BITS
            }
        };
        DbbBitboard([moved as u64, (moved >> 64) as u64])
    }

    #[inline(always)]
    fn empty() -> Self {
        DbbBitboard::EMPTY
    }

    fn from_canonical(bits: u128) -> Self {
        let mut bits = bits & ALL_SQUARES;
        let mut out = DbbBitboard::EMPTY;
        while bits != 0 {
            let index = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            out |= SQUARE_MASKS[index];
        }
        out
    }

    fn to_canonical(self) -> u128 {
        self.squares().fold(0u128, |acc, sq| acc | sq.bit())
    }

    #[inline(always)]
    fn square(sq: Square) -> Self {
        // SAFETY: `Square` guarantees `index() < 81`, the table's length.
        unsafe { *SQUARE_MASKS.get_unchecked(sq.index()) }
    }

    #[inline(always)]
    fn and_not(self, other: Self) -> Self {
        DbbBitboard([self.0[0] & !other.0[0], self.0[1] & !other.0[1]])
    }

    #[inline(always)]
    fn is_empty(self) -> bool {
        (self.0[0] | self.0[1]) == 0
    }

    #[inline(always)]
    fn count(self) -> u32 {
        self.0[0].count_ones() + self.0[1].count_ones()
    }

    #[inline(always)]
    fn file_fill(self) -> Self {
        // Rank-major: OR the nine ranks (three per 27-bit word) into one, then copy it back
        // to every rank.
        const WORD: u64 = (1 << 27) - 1;
        let words = (self.0[0] & WORD) | (self.0[0] >> 32) | (self.0[1] & WORD);
        let files = (words | words >> 9 | words >> 18) & 0x1FF;
        let word = files * (1 | 1 << 9 | 1 << 18);
        DbbBitboard([word | word << 32, word])
    }

    #[inline(always)]
    fn for_each_square(self, mut visit: impl FnMut(Square)) {
        let [mut low, mut high] = self.0;
        while low != 0 {
            visit(square_of_bit(low.trailing_zeros()));
            low &= low - 1;
        }
        while high != 0 {
            visit(square_of_bit(64 + high.trailing_zeros()));
            high &= high - 1;
        }
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<Square> {
        let [low, high] = self.0;
        if low != 0 {
            self.0[0] = low & (low - 1);
            Some(square_of_bit(low.trailing_zeros()))
        } else if high != 0 {
            self.0[1] = high & (high - 1);
            Some(square_of_bit(64 + high.trailing_zeros()))
        } else {
            None
        }
    }
}
