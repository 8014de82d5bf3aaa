//! Bonanza's bitboard: three `u32` words of 27 squares each, rank-major from 9a.

use super::layout::{SQUARE_BITS, SQUARE_OF_BIT};
use crate::backend::Bitboard;
use crate::types::{Square, ALL_SQUARES};
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign};

/// Bonanza's `bitboard_t`: Bonanza square `i = irank * 9 + ifile` (`ifile` 0 is file 9, `irank`
/// 0 is rank `a`) lives in `words[i / 27]` at bit `26 - i % 27`. Bits 27–31 are always clear.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Hash)]
#[repr(C)]
pub struct BonanzaBitboard {
    pub words: [u32; 3],
}

// The whole point of the layout: a bitboard is 12 bytes, as the seed's table sizes assume.
const _: () = assert!(std::mem::size_of::<BonanzaBitboard>() == 12);

impl BonanzaBitboard {
    pub const EMPTY: BonanzaBitboard = BonanzaBitboard { words: [0; 3] };

    #[inline(always)]
    pub const fn new(words: [u32; 3]) -> BonanzaBitboard {
        BonanzaBitboard { words }
    }

    /// `self | other`, usable in `const` table construction.
    #[inline(always)]
    pub const fn union(self, other: BonanzaBitboard) -> BonanzaBitboard {
        let (a, b) = (self.words, other.words);
        BonanzaBitboard::new([a[0] | b[0], a[1] | b[1], a[2] | b[2]])
    }
}

macro_rules! bonanza_binop {
    ($trait:ident, $method:ident, $assign_trait:ident, $assign_method:ident, $op:tt) => {
        impl $trait for BonanzaBitboard {
            type Output = BonanzaBitboard;
            #[inline(always)]
            fn $method(self, rhs: Self) -> Self {
                let (a, b) = (self.words, rhs.words);
                BonanzaBitboard::new([a[0] $op b[0], a[1] $op b[1], a[2] $op b[2]])
            }
        }
        impl $assign_trait for BonanzaBitboard {
            #[inline(always)]
            fn $assign_method(&mut self, rhs: Self) {
                *self = *self $op rhs;
            }
        }
    };
}
bonanza_binop!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bonanza_binop!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bonanza_binop!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

/// The canonical square of the lowest set bit of `word` (which must be nonzero);
/// `word_offset` is 32 times the word's index.
#[inline(always)]
fn square_of_lowest_bit(word: u32, word_offset: usize) -> Square {
    let bit = word.trailing_zeros() as usize;
    let canonical = SQUARE_OF_BIT[(word_offset | bit) & 127];
    // SAFETY: every entry of SQUARE_OF_BIT is < 81 (const assertion in `layout`).
    unsafe { Square::new_unchecked(canonical) }
}

impl Bitboard for BonanzaBitboard {
    #[inline(always)]
    fn empty() -> Self {
        BonanzaBitboard::EMPTY
    }

    fn from_canonical(bits: u128) -> Self {
        let mut rest = bits & ALL_SQUARES;
        let mut board = BonanzaBitboard::EMPTY;
        while rest != 0 {
            let index = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            board |= SQUARE_BITS[index];
        }
        board
    }

    fn to_canonical(self) -> u128 {
        self.squares().fold(0u128, |acc, sq| acc | sq.bit())
    }

    #[inline(always)]
    fn square(sq: Square) -> Self {
        // SAFETY: `Square` is always < 81, the table's length.
        unsafe { *SQUARE_BITS.get_unchecked(sq.index()) }
    }

    #[inline(always)]
    fn and_not(self, other: Self) -> Self {
        let (a, b) = (self.words, other.words);
        BonanzaBitboard::new([a[0] & !b[0], a[1] & !b[1], a[2] & !b[2]])
    }

    #[inline(always)]
    fn is_empty(self) -> bool {
        (self.words[0] | self.words[1] | self.words[2]) == 0
    }

    #[inline(always)]
    fn count(self) -> u32 {
        self.words[0].count_ones() + self.words[1].count_ones() + self.words[2].count_ones()
    }

    /// The lowest set bit of the first nonzero word: ranks `a`–`c` first, and within a word
    /// the highest Bonanza index first (bit 0 is the word's last square).
    #[inline(always)]
    fn pop(&mut self) -> Option<Square> {
        let [first, second, third] = &mut self.words;
        let (word, offset) = if *first != 0 {
            (first, 0)
        } else if *second != 0 {
            (second, 32)
        } else if *third != 0 {
            (third, 64)
        } else {
            return None;
        };
        let sq = square_of_lowest_bit(*word, offset);
        *word &= *word - 1;
        Some(sq)
    }
}
