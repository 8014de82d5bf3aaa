//! Bonanza's bitboard: three `u32` words of 27 squares each, rank-major from 9a.

use kiki_core::backend::Bitboard;
use kiki_core::types::{Color, Square, ALL_SQUARES};
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

/// Bits of a word that hold squares (27 = 3 lines × 9).
pub const WORD_BITS: u32 = 27;

/// Bonanza index of a canonical square: canonical `(file - 1) * 9 + (rank - 1)`.
pub const fn bonanza_index(canonical: usize) -> usize {
    let file_index = canonical / 9;
    let irank = canonical % 9;
    irank * 9 + (8 - file_index)
}

/// Canonical square index of a Bonanza index.
pub const fn canonical_index(bonanza: usize) -> usize {
    let irank = bonanza / 9;
    let ifile = bonanza % 9;
    (8 - ifile) * 9 + irank
}

/// The single-square bitboard of each canonical square (Bonanza's `abb_mask`): Bonanza square
/// `i` at bit `26 - i % 27` of word `i / 27` (`layout`'s base board; a test checks the two agree).
pub static SQUARE_BITS: [BonanzaBitboard; 81] = {
    let mut table = [BonanzaBitboard::EMPTY; 81];
    let mut sq = 0;
    while sq < 81 {
        let i = bonanza_index(sq);
        let mut words = [0u32; 3];
        words[i / 27] = 1 << (WORD_BITS as usize - 1 - i % 27);
        table[sq] = BonanzaBitboard::new(words);
        sq += 1;
    }
    table
};

/// For `pop`: the canonical square of bit `bit` of word `word`, at index `word * 32 + bit`; entries for
/// bits that hold no square are 0 (never read for a valid bitboard, and still a valid square).
pub static SQUARE_OF_BIT: [u8; 128] = {
    let mut table = [0u8; 128];
    let mut i = 0;
    while i < 81 {
        table[(i / 27) * 32 + (WORD_BITS as usize - 1 - i % 27)] = canonical_index(i) as u8;
        i += 1;
    }
    table
};

const _: () = {
    let mut index = 0;
    while index < 128 {
        assert!(SQUARE_OF_BIT[index] < 81);
        index += 1;
    }
};

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
    fn forward_one(self, color: Color) -> Self {
        // Rank-major words of three ranks, rank `a` in the top bits: a rank forward for black is
        // nine bits up within a word, and the next word's top rank comes down into the bottom.
        const WORD: u32 = 0x7FF_FFFF;
        const LAST_RANK: u32 = 0x1FF;
        let [first, second, third] = self.words;
        let words = match color {
            Color::Black => [
                (first << 9 | second >> 18) & WORD,
                (second << 9 | third >> 18) & WORD,
                (third << 9) & WORD,
            ],
            Color::White => [
                first >> 9,
                second >> 9 | (first & LAST_RANK) << 18,
                third >> 9 | (second & LAST_RANK) << 18,
            ],
        };
        BonanzaBitboard { words }
    }

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
