//! Three representations of one side's hand (seed 003) behind one trait: Bonanza's packed `u32`,
//! the same fields with a guard bit above each, and a byte per piece kind.
//!
//! Every layout answers the same questions — how many of a kind, add one, remove one, and
//! whether one hand is at least as good as another for every kind (superiority, used for
//! pruning) — so the tests can prove them equal and the bench can price them side by side.
//! Counts convert to and from `[u8; 7]` in hand-index order (`PieceKind::HAND`: P L N S B R G).

use kiki_core::types::PieceKind;
use std::fmt;

/// One side's hand. `kind` arguments must be one of the seven hand kinds (`PieceKind::HAND`);
/// counts must stay within a full set (`PieceKind::HAND_MAX`): `add` is only called below the
/// maximum, `remove` only on a kind that is held. Outside that contract the result is
/// unspecified but never a panic (the arithmetic wraps).
pub trait HandLayout: Copy + Eq + fmt::Debug {
    /// Short name for benches and reports.
    const NAME: &'static str;
    /// The empty hand.
    const EMPTY: Self;
    /// The hand holding `counts[i]` of `PieceKind::HAND[i]`.
    fn from_counts(counts: [u8; 7]) -> Self;
    /// The counts in hand-index order.
    fn to_counts(self) -> [u8; 7];
    /// How many of `kind` the hand holds.
    fn count(self, kind: PieceKind) -> u8;
    /// Whether the hand holds at least one `kind`.
    fn has(self, kind: PieceKind) -> bool;
    /// Whether the hand holds nothing.
    fn is_empty(self) -> bool;
    /// One more `kind`.
    fn add(&mut self, kind: PieceKind);
    /// One `kind` fewer.
    fn remove(&mut self, kind: PieceKind);
    /// Whether `self` holds at least as many as `other` of every kind.
    fn is_superior_or_equal(self, other: Self) -> bool;
}

/// `kind.index() & 7`: hand kinds are 0–6, so the mask changes nothing for them and lets every
/// per-kind table have 8 entries without a bounds check.
#[inline(always)]
const fn slot(kind: PieceKind) -> usize {
    kind.index() & 7
}

/// Per-kind tables for a packed layout, indexed by `slot(kind)` (slot 7, the king, is empty).
struct Fields {
    shift: [u32; 8],
    mask: [u32; 8],
    /// One piece of the kind: the field's lowest bit (0 for slot 7).
    unit: [u32; 8],
}

impl Fields {
    /// `widths` and `shifts` in hand-index order (P L N S B R G).
    const fn new(shifts: [u32; 7], widths: [u32; 7]) -> Fields {
        let mut shift = [0; 8];
        let mut mask = [0; 8];
        let mut unit = [0; 8];
        let mut i = 0;
        while i < 7 {
            shift[i] = shifts[i];
            mask[i] = ((1 << widths[i]) - 1) << shifts[i];
            unit[i] = 1 << shifts[i];
            // Each field must hold a full set.
            assert!((PieceKind::HAND_MAX[i] as u32) < (1 << widths[i]));
            i += 1;
        }
        Fields { shift, mask, unit }
    }
}

// ---------------------------------------------------------------------------------------------

/// The `HandLayout` methods that only read and write the `u32` fields described by
/// `Self::FIELDS`: identical for the packed and the guarded layout, which differ in where the
/// fields sit and in how they compare.
macro_rules! u32_field_methods {
    () => {
        #[inline(always)]
        fn from_counts(counts: [u8; 7]) -> Self {
            let mut bits = 0;
            for (i, &n) in counts.iter().enumerate() {
                bits |= (n as u32) << Self::FIELDS.shift[i];
            }
            Self(bits)
        }
        #[inline(always)]
        fn to_counts(self) -> [u8; 7] {
            std::array::from_fn(|i| self.count(PieceKind::HAND[i]))
        }
        #[inline(always)]
        fn count(self, kind: PieceKind) -> u8 {
            let s = slot(kind);
            ((self.0 & Self::FIELDS.mask[s]) >> Self::FIELDS.shift[s]) as u8
        }
        #[inline(always)]
        fn has(self, kind: PieceKind) -> bool {
            self.0 & Self::FIELDS.mask[slot(kind)] != 0
        }
        #[inline(always)]
        fn is_empty(self) -> bool {
            self.0 == 0
        }
        #[inline(always)]
        fn add(&mut self, kind: PieceKind) {
            self.0 = self.0.wrapping_add(Self::FIELDS.unit[slot(kind)]);
        }
        #[inline(always)]
        fn remove(&mut self, kind: PieceKind) {
            self.0 = self.0.wrapping_sub(Self::FIELDS.unit[slot(kind)]);
        }
    };
}

/// Bonanza's hand (`shogi.h`, seed 003), fields from the low bit up:
///
/// ```text
/// xxxxxxxx xxxxxxxx xxx11111  pawn    bits  0–4
/// xxxxxxxx xxxxxxxx 111xxxxx  lance   bits  5–7
/// xxxxxxxx xxxxx111 xxxxxxxx  knight  bits  8–10
/// xxxxxxxx xx111xxx xxxxxxxx  silver  bits 11–13
/// xxxxxxx1 11xxxxxx xxxxxxxx  gold    bits 14–16
/// xxxxx11x xxxxxxxx xxxxxxxx  bishop  bits 17–18
/// xxx11xxx xxxxxxxx xxxxxxxx  rook    bits 19–20
/// ```
///
/// Fields touch, so superiority needs one compare per field (as Bonanza's `is_hand_eq_supe`):
/// masking without shifting keeps the order of each field's values.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct PackedHand(pub u32);

impl PackedHand {
    // Hand-index order: P L N S B R G.
    const FIELDS: Fields = Fields::new([0, 5, 8, 11, 17, 19, 14], [5, 3, 3, 3, 2, 2, 3]);
    pub const PAWN: u32 = 0x0000_001f;
    pub const LANCE: u32 = 0x0000_00e0;
    pub const KNIGHT: u32 = 0x0000_0700;
    pub const SILVER: u32 = 0x0000_3800;
    pub const GOLD: u32 = 0x0001_c000;
    pub const BISHOP: u32 = 0x0006_0000;
    pub const ROOK: u32 = 0x0018_0000;
}

impl HandLayout for PackedHand {
    const NAME: &'static str = "packed";
    const EMPTY: Self = PackedHand(0);

    u32_field_methods!();
    #[inline(always)]
    fn is_superior_or_equal(self, other: Self) -> bool {
        let (a, b) = (self.0, other.0);
        // `&` rather than `&&`: seven flag computations, no short-circuit branches.
        ((a & Self::PAWN) >= (b & Self::PAWN))
            & ((a & Self::LANCE) >= (b & Self::LANCE))
            & ((a & Self::KNIGHT) >= (b & Self::KNIGHT))
            & ((a & Self::SILVER) >= (b & Self::SILVER))
            & ((a & Self::GOLD) >= (b & Self::GOLD))
            & ((a & Self::BISHOP) >= (b & Self::BISHOP))
            & ((a & Self::ROOK) >= (b & Self::ROOK))
    }
}

// ---------------------------------------------------------------------------------------------

/// Bonanza's fields in Bonanza's order, each with a guard bit above it (28 bits in all), as
/// seed 003 proposes:
///
/// ```text
/// pawn bits 0–4 (guard 5), lance 6–8 (9), knight 10–12 (13), silver 14–16 (17),
/// gold 18–20 (21), bishop 22–23 (24), rook 25–26 (27)
/// ```
///
/// Superiority is one subtraction: `((a - b) & BORROW_MASK) == 0`. Why it is exact, given that
/// **every guard bit holds 0 in both hands** and every count fits its field:
/// - if `a ≥ b` in every field, no field subtraction borrows, so nothing ever reaches a guard:
///   every guard of `a - b` is 0;
/// - otherwise take the lowest field where `a < b`. Every field below it subtracted without a
///   borrow, so it receives none; `a_k - b_k < 0` then borrows through the (zero) guard bit of
///   `a`, which comes out as 1 (the field-plus-guard result is `2^(w+1) + a_k - b_k`, between
///   `2^w + 1` and `2^(w+1) - 1`, so bit `w` is set). Whatever the borrow does to the fields
///   above, that guard is already set, so the test fails, as it must.
///
/// The guard bits stay 0 as long as `add` never overflows a field (counts ≤ `HAND_MAX`, which
/// fit) and `remove` is only called on a kind that is held.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct GuardedHand(pub u32);

impl GuardedHand {
    // Hand-index order: P L N S B R G.
    const FIELDS: Fields = Fields::new([0, 6, 10, 14, 22, 25, 18], [5, 3, 3, 3, 2, 2, 3]);
    /// The seven guard bits: 5, 9, 13, 17, 21, 24, 27.
    pub const BORROW_MASK: u32 =
        (1 << 5) | (1 << 9) | (1 << 13) | (1 << 17) | (1 << 21) | (1 << 24) | (1 << 27);
}

impl HandLayout for GuardedHand {
    const NAME: &'static str = "guarded";
    const EMPTY: Self = GuardedHand(0);

    u32_field_methods!();
    #[inline(always)]
    fn is_superior_or_equal(self, other: Self) -> bool {
        self.0.wrapping_sub(other.0) & Self::BORROW_MASK == 0
    }
}

// ---------------------------------------------------------------------------------------------

/// One byte per kind, in hand-index order (P L N S B R G, byte 7 always 0); aligned so that the
/// eight bytes load as one `u64`.
///
/// Superiority is SWAR over the eight bytes: set the top bit of every byte of `a`, subtract `b`,
/// and check that every top bit survived. Each byte of `a | 0x80` is `128 + a_k` and each `b_k`
/// is at most 127 (a count is at most 18), so `128 + a_k - b_k` lies in 1..=255: no byte ever
/// borrows from its neighbour, and its top bit stays set exactly when `a_k ≥ b_k`. Because no
/// borrow crosses a byte, the test does not depend on byte order.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
#[repr(C, align(8))]
pub struct ByteHand(pub [u8; 8]);

impl ByteHand {
    const HIGH: u64 = 0x8080_8080_8080_8080;
}

impl HandLayout for ByteHand {
    const NAME: &'static str = "bytes";
    const EMPTY: Self = ByteHand([0; 8]);

    #[inline(always)]
    fn from_counts(counts: [u8; 7]) -> Self {
        let mut bytes = [0; 8];
        bytes[..7].copy_from_slice(&counts);
        ByteHand(bytes)
    }
    #[inline(always)]
    fn to_counts(self) -> [u8; 7] {
        std::array::from_fn(|i| self.0[i])
    }
    #[inline(always)]
    fn count(self, kind: PieceKind) -> u8 {
        self.0[slot(kind)]
    }
    #[inline(always)]
    fn has(self, kind: PieceKind) -> bool {
        self.0[slot(kind)] != 0
    }
    #[inline(always)]
    fn is_empty(self) -> bool {
        u64::from_ne_bytes(self.0) == 0
    }
    #[inline(always)]
    fn add(&mut self, kind: PieceKind) {
        let s = slot(kind);
        self.0[s] = self.0[s].wrapping_add(1);
    }
    #[inline(always)]
    fn remove(&mut self, kind: PieceKind) {
        let s = slot(kind);
        self.0[s] = self.0[s].wrapping_sub(1);
    }
    #[inline(always)]
    fn is_superior_or_equal(self, other: Self) -> bool {
        let a = u64::from_ne_bytes(self.0) | Self::HIGH;
        let b = u64::from_ne_bytes(other.0);
        a.wrapping_sub(b) & Self::HIGH == Self::HIGH
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_masks_are_the_seed_layout() {
        // The masks Bonanza's IsHand* macros use (seed 003 quotes pawn, lance and rook).
        assert_eq!(PackedHand::PAWN, 0x000_001f);
        assert_eq!(PackedHand::LANCE, 0x000_00e0);
        assert_eq!(PackedHand::ROOK, 0x018_0000);
        for (i, mask) in [
            PackedHand::PAWN,
            PackedHand::LANCE,
            PackedHand::KNIGHT,
            PackedHand::SILVER,
            PackedHand::BISHOP,
            PackedHand::ROOK,
            PackedHand::GOLD,
        ]
        .into_iter()
        .enumerate()
        {
            assert_eq!(PackedHand::FIELDS.mask[i], mask, "field {i}");
        }
        // The fields tile bits 0–20 without overlap.
        let all = PackedHand::FIELDS.mask.iter().fold(0, |acc, m| {
            assert_eq!(acc & m, 0);
            acc | m
        });
        assert_eq!(all, (1 << 21) - 1);
    }

    #[test]
    fn guarded_fields_and_guards_tile_28_bits() {
        let fields = GuardedHand::FIELDS.mask.iter().fold(0, |acc, m| {
            assert_eq!(acc & m, 0);
            acc | m
        });
        assert_eq!(fields & GuardedHand::BORROW_MASK, 0);
        assert_eq!(fields | GuardedHand::BORROW_MASK, (1 << 28) - 1);
        // Each guard sits directly above one field.
        for (i, &mask) in GuardedHand::FIELDS.mask[..7].iter().enumerate() {
            let guard = mask + (mask & mask.wrapping_neg());
            assert_eq!(guard & GuardedHand::BORROW_MASK, guard, "field {i}");
            assert_eq!(guard.count_ones(), 1);
        }
    }
}
