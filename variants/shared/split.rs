//! The Apery/YaneuraOu split 128-bit bitboard, shared by the backends that use that layout.
//!
//! Word 0 holds files 1–7 (canonical squares 0–62 at bits 0–62, bit 63 unused); word 1 holds
//! files 8–9 (canonical squares 63–80 at bits 0–17). No file straddles the two words, which is
//! what makes `lo | hi` a collision-free fold for magic indexing.

use kiki_core::backend::Bitboard;
use kiki_core::backend::{fill_nine_bit_fields_u64, RANK_A, RANK_I};
use kiki_core::types::{Color, Square};
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign};

/// Mask of the used bits of word 0 (files 1–7).
pub const LOW_MASK: u64 = (1u64 << 63) - 1;
/// Mask of the used bits of word 1 (files 8–9).
pub const HIGH_MASK: u64 = (1u64 << 18) - 1;

#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Hash)]
#[repr(C, align(16))]
pub struct SplitBitboard {
    /// Files 1–7.
    pub low: u64,
    /// Files 8–9.
    pub high: u64,
}

impl SplitBitboard {
    #[inline(always)]
    pub const fn new(low: u64, high: u64) -> SplitBitboard {
        SplitBitboard { low, high }
    }

    /// `low | high`: the fold used by magic and PEXT indexing.
    #[inline(always)]
    pub const fn merged(self) -> u64 {
        self.low | self.high
    }

    #[inline(always)]
    pub const fn from_canonical_const(bits: u128) -> SplitBitboard {
        SplitBitboard {
            low: bits as u64 & LOW_MASK,
            high: (bits >> 63) as u64 & HIGH_MASK,
        }
    }

    #[inline(always)]
    pub const fn to_canonical_const(self) -> u128 {
        self.low as u128 | ((self.high as u128) << 63)
    }
}

// SAFETY: two `u64` fields, `repr(C, align(16))`: 16 bytes, all of them the fields'.
unsafe impl crate::shared::masked::NoPadding for SplitBitboard {}
const _: () = assert!(std::mem::size_of::<SplitBitboard>() == 16);

/// How an attack table stores a `SplitBitboard` (packed, or as it is) and reads it back: the
/// entry-size factor of the split-layout backends' tables.
pub trait SplitEntry:
    crate::shared::masked::NoPadding + PartialEq + std::fmt::Debug + Send + Sync
{
    /// The empty board, as stored.
    const EMPTY: Self;
    fn pack(bb: SplitBitboard) -> Self;
    fn widen(self) -> SplitBitboard;
}

/// 16-byte aligned entries: the bitboard as it is.
impl SplitEntry for SplitBitboard {
    const EMPTY: SplitBitboard = SplitBitboard::new(0, 0);
    #[inline(always)]
    fn pack(bb: SplitBitboard) -> SplitBitboard {
        bb
    }
    #[inline(always)]
    fn widen(self) -> SplitBitboard {
        self
    }
}

macro_rules! split_binop {
    ($trait:ident, $method:ident, $assign_trait:ident, $assign_method:ident, $op:tt) => {
        impl $trait for SplitBitboard {
            type Output = SplitBitboard;
            #[inline(always)]
            fn $method(self, rhs: Self) -> Self {
                SplitBitboard::new(self.low $op rhs.low, self.high $op rhs.high)
            }
        }
        impl $assign_trait for SplitBitboard {
            #[inline(always)]
            fn $assign_method(&mut self, rhs: Self) {
                self.low = self.low $op rhs.low;
                self.high = self.high $op rhs.high;
            }
        }
    };
}
split_binop!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
split_binop!(BitOr, bitor, BitOrAssign, bitor_assign, |);
split_binop!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Bitboard for SplitBitboard {
    #[inline(always)]
    fn empty() -> Self {
        SplitBitboard::new(0, 0)
    }
    #[inline(always)]
    fn from_canonical(bits: u128) -> Self {
        SplitBitboard::from_canonical_const(bits)
    }
    #[inline(always)]
    fn to_canonical(self) -> u128 {
        self.to_canonical_const()
    }
    #[inline(always)]
    fn square(sq: Square) -> Self {
        let index = sq.index();
        if index < 63 {
            SplitBitboard::new(1 << index, 0)
        } else {
            SplitBitboard::new(0, 1 << (index - 63))
        }
    }
    #[inline(always)]
    fn and_not(self, other: Self) -> Self {
        SplitBitboard::new(self.low & !other.low, self.high & !other.high)
    }
    #[inline(always)]
    fn is_empty(self) -> bool {
        (self.low | self.high) == 0
    }
    #[inline(always)]
    fn count(self) -> u32 {
        self.low.count_ones() + self.high.count_ones()
    }
    #[inline(always)]
    fn contains(self, sq: Square) -> bool {
        // One word and one bit test, with no mask built (a select, not a branch).
        let index = sq.index();
        let (word, bit) = if index < 63 {
            (self.low, index)
        } else {
            (self.high, index - 63)
        };
        word >> bit & 1 != 0
    }
    #[inline(always)]
    fn file_fill(self) -> Self {
        // Files are nine consecutive bits and none straddles the words: seven below, two above.
        SplitBitboard::new(
            fill_nine_bit_fields_u64(self.low, 7),
            fill_nine_bit_fields_u64(self.high, 2),
        )
    }
    #[inline(always)]
    fn forward_one(self, color: Color) -> Self {
        // Ranks are consecutive bits within a file, and a file never straddles the two words.
        let low_a = RANK_A as u64 & (u64::MAX >> 1);
        let high_a = (RANK_A >> 63) as u64;
        let low_i = RANK_I as u64 & (u64::MAX >> 1);
        let high_i = (RANK_I >> 63) as u64;
        match color {
            Color::Black => {
                SplitBitboard::new((self.low & !low_a) >> 1, (self.high & !high_a) >> 1)
            }
            Color::White => {
                SplitBitboard::new((self.low & !low_i) << 1, (self.high & !high_i) << 1)
            }
        }
    }
    #[inline(always)]
    fn for_each_square(self, mut visit: impl FnMut(Square)) {
        let mut low = self.low;
        while low != 0 {
            // index <= 63 < 81, so this is always `Some` and the check folds away.
            if let Some(sq) = Square::new(low.trailing_zeros() as u8) {
                visit(sq);
            }
            low &= low - 1;
        }
        let mut high = self.high;
        while high != 0 {
            // At most 80 for a bitboard that keeps to its 18 bits; the check stays (it is
            // not proved) and costs a compare a square on files 8 and 9.
            if let Some(sq) = Square::new(63 + high.trailing_zeros() as u8) {
                visit(sq);
            }
            high &= high - 1;
        }
    }
    #[inline(always)]
    fn pop(&mut self) -> Option<Square> {
        if self.low != 0 {
            let index = self.low.trailing_zeros();
            self.low &= self.low - 1;
            // index <= 63 < 81, so this is always `Some` and the check folds away.
            Square::new(index as u8)
        } else if self.high != 0 {
            let index = self.high.trailing_zeros();
            self.high &= self.high - 1;
            Square::new(63 + index as u8)
        } else {
            None
        }
    }
}
