//! The one trait every sliding-attack backend implements, and the bitboard trait it returns.
//!
//! Everything here is statically dispatched: a move generator written against `B: Backend`
//! is monomorphised per backend, so the trait costs nothing on the hot path.

use crate::simd::SimdLevel;
use crate::types::{Color, Slider, Square, Stepper};
use std::fmt::Debug;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign};

/// A backend's own bitboard type. Bits are in the backend's layout; squares come and go in
/// canonical numbering.
pub trait Bitboard:
    Copy
    + Eq
    + Debug
    + Send
    + Sync
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + BitAndAssign
    + BitOrAssign
    + BitXorAssign
    + 'static
{
    /// No squares.
    fn empty() -> Self;
    /// Converts from the canonical `u128` (bit `Square::index`). Bits above 80 are ignored.
    fn from_canonical(bits: u128) -> Self;
    /// Converts to the canonical `u128`.
    fn to_canonical(self) -> u128;
    /// The single-square mask.
    fn square(sq: Square) -> Self;
    /// `self & !other`.
    fn and_not(self, other: Self) -> Self;
    fn is_empty(self) -> bool;
    /// Population count.
    fn count(self) -> u32;
    /// Removes and returns the square of the lowest set bit in the backend's own bit order.
    fn pop(&mut self) -> Option<Square>;

    #[inline(always)]
    fn is_nonempty(self) -> bool {
        !self.is_empty()
    }

    #[inline(always)]
    fn contains(self, sq: Square) -> bool {
        (self & Self::square(sq)).is_nonempty()
    }

    /// Iterates the set squares (in the backend's bit order).
    #[inline(always)]
    fn squares(self) -> Squares<Self> {
        Squares(self)
    }

    /// Calls `visit` on each set square (in the backend's bit order): what `squares` does,
    /// for loops that need no early exit. Layouts of several words override it with one
    /// plain loop per word, which tests no word index per square.
    #[inline(always)]
    fn for_each_square(self, mut visit: impl FnMut(Square)) {
        for sq in self.squares() {
            visit(sq);
        }
    }

    /// Every file that holds a square of `self`, whole: from a side's pawns, the files it
    /// may not drop a pawn on (二歩). The default goes through the canonical layout; layouts
    /// with a cheaper fold override it.
    #[inline(always)]
    fn file_fill(self) -> Self {
        Self::from_canonical(fill_nine_bit_fields(self.to_canonical(), 9))
    }

    /// Every square moved one rank towards `color`'s far side (a pawn's step, applied to a
    /// whole set); squares on that side's last rank fall off. The default walks the squares;
    /// layouts whose ranks are consecutive bits within a file override it with a shift.
    #[inline(always)]
    fn forward_one(self, color: Color) -> Self {
        let rank_delta = match color {
            Color::Black => -1,
            Color::White => 1,
        };
        let mut moved = Self::empty();
        for sq in self.squares() {
            if let Some(to) = sq.offset(0, rank_delta) {
                moved |= Self::square(to);
            }
        }
        moved
    }
}

/// Iterator over the squares of a bitboard.
pub struct Squares<B: Bitboard>(B);

impl<B: Bitboard> Iterator for Squares<B> {
    type Item = Square;
    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        self.0.pop()
    }
}

/// One table a backend owns, sized exactly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableInfo {
    /// The table's name (the seed's name where the table mirrors one of the seed's).
    pub name: &'static str,
    /// Its shape and element type, e.g. `[81][128] × 12 B bitboard`.
    pub shape: String,
    /// Bytes it occupies in memory.
    pub bytes: usize,
}

/// Static facts about a backend, known without building it.
#[derive(Clone, Debug)]
pub struct BackendInfo {
    /// The name users type.
    pub name: &'static str,
    /// One line saying what it is.
    pub description: &'static str,
    /// How its bitboard and occupancy are laid out.
    pub layout: &'static str,
    /// Special instructions it needs to run at all (e.g. `bmi2`); empty when none.
    pub needs: &'static [&'static str],
    /// For a layout variant, the base backend and the one layout factor it changes; `None` for
    /// a base backend.
    pub variant: Option<LayoutVariant>,
}

/// The one table-layout factor a layout variant changes against its base backend, with the
/// algorithm held fixed (E12 measures each pair).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LayoutFactor {
    /// Bytes per table entry (padded and aligned against packed).
    EntrySize,
    /// Compound pieces (lance, dragon, horse) from their own pre-combined tables, or computed
    /// from the plain tables and the steps at lookup.
    CompoundTables,
    /// A 128-bit entry as one record, or its two words in two parallel arrays.
    WordSplit,
    /// A slider's attack from one table over its whole relevant occupancy, or as the union of
    /// smaller per-line tables.
    LineSplit,
    /// Which index varies fastest: square-major or occupancy-major.
    IndexOrder,
    /// The tables on 4 KiB or 2 MiB pages (E12 only; no backend is registered for it).
    Pages,
}

impl LayoutFactor {
    /// The name `kiki backends --json` and `results.json` give the factor.
    pub const fn name(self) -> &'static str {
        match self {
            LayoutFactor::EntrySize => "entry-size",
            LayoutFactor::CompoundTables => "compound-tables",
            LayoutFactor::WordSplit => "word-split",
            LayoutFactor::LineSplit => "line-split",
            LayoutFactor::IndexOrder => "index-order",
            LayoutFactor::Pages => "pages",
        }
    }
}

/// What makes a backend a layout variant: its base and the factor it changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayoutVariant {
    /// The base backend's name.
    pub base: &'static str,
    pub factor: LayoutFactor,
    /// One line: the variant's value of the factor against the base's.
    pub change: &'static str,
}

/// A sliding-attack backend. Implementations are small `Copy` handles onto tables that are
/// built once per process.
pub trait Backend: Copy + Send + Sync + 'static {
    type Bitboard: Bitboard;
    /// The occupancy state sliding lookups read (for rotated backends: every rotated copy).
    type Occupancy: Clone + Debug + Send + Sync;

    /// Name, description, layout, needs.
    fn info() -> BackendInfo;
    /// Whether this CPU and build can run the backend; `Err` says why not.
    fn availability() -> Result<(), String>;
    /// Every table the backend owns, counted exactly (also when not yet built).
    fn tables() -> Vec<TableInfo>;
    /// Which code path (SIMD level or special instruction) this build and CPU use.
    fn simd_path() -> &'static str;
    /// A handle, building the tables on first use. `Err` when unavailable.
    fn new() -> Result<Self, String>;

    /// Occupancy state built from a canonical occupancy.
    fn occupancy(&self, canonical: u128) -> Self::Occupancy;
    /// Incrementally marks `sq` occupied (it must be empty).
    fn set_square(&self, occupancy: &mut Self::Occupancy, sq: Square);
    /// Incrementally marks `sq` empty (it must be occupied).
    fn clear_square(&self, occupancy: &mut Self::Occupancy, sq: Square);
    /// The occupied squares as a bitboard.
    fn occupied(&self, occupancy: &Self::Occupancy) -> Self::Bitboard;

    fn rook_attacks(&self, occupancy: &Self::Occupancy, sq: Square) -> Self::Bitboard;
    fn bishop_attacks(&self, occupancy: &Self::Occupancy, sq: Square) -> Self::Bitboard;
    fn lance_attacks(
        &self,
        color: Color,
        occupancy: &Self::Occupancy,
        sq: Square,
    ) -> Self::Bitboard;
    fn dragon_attacks(&self, occupancy: &Self::Occupancy, sq: Square) -> Self::Bitboard;
    fn horse_attacks(&self, occupancy: &Self::Occupancy, sq: Square) -> Self::Bitboard;

    fn king_attacks(&self, sq: Square) -> Self::Bitboard;
    fn gold_attacks(&self, color: Color, sq: Square) -> Self::Bitboard;
    fn silver_attacks(&self, color: Color, sq: Square) -> Self::Bitboard;
    fn knight_attacks(&self, color: Color, sq: Square) -> Self::Bitboard;
    fn pawn_attacks(&self, color: Color, sq: Square) -> Self::Bitboard;

    /// Total bytes of all tables.
    fn table_bytes() -> usize {
        Self::tables().iter().map(|t| t.bytes).sum()
    }

    /// Sliding attacks with every *attack-table* index ANDed with a run-time mask: the "hot
    /// twin" of E7, which runs the same monomorphised code as the real lookup but reads only the
    /// first `table_mask + 1` bytes of each attack table, so the difference in time between the
    /// two is what the table's cache misses cost.
    ///
    /// `table_mask` is a byte mask, `2^k - 1` (or `usize::MAX` for the real lookup): each attack
    /// table's element index is ANDed with `table_mask >> s`, where `2^s` is the table's element
    /// size rounded up to a power of two. Per-square metadata (masks, magics, shifts, offsets,
    /// rays) stays real. With `usize::MAX` the result equals [`Backend::slider_attacks`]; with a
    /// smaller mask it is some bitboard of the table, not the attacks. Backends without attack
    /// tables keep this default, which ignores the mask.
    #[inline(always)]
    fn slider_attacks_masked(
        &self,
        slider: Slider,
        occupancy: &Self::Occupancy,
        sq: Square,
        table_mask: usize,
    ) -> Self::Bitboard {
        let _ = table_mask;
        self.slider_attacks(slider, occupancy, sq)
    }

    /// The memory of the attack tables that [`Backend::slider_attacks_masked`] masks, as built
    /// (for the page-size and footprint experiments); empty for backends without such tables.
    fn attack_table_memory(&self) -> Vec<&'static [u8]> {
        Vec::new()
    }

    /// The byte offsets of the attack-table elements a sliding lookup reads, into the
    /// concatenation of [`Backend::attack_table_memory`] in its order (for reuse-distance
    /// analysis: offset / 64 names the cache line, per backend); appended to `out`. Empty for
    /// backends without attack tables. Per-square metadata is not included.
    ///
    /// The elements are those [`Backend::slider_attacks`] (and [`Backend::slider_attacks_masked`]
    /// with `usize::MAX`) reads, in the order it reads them, each as
    /// `table_base + index * size_of::<Element>()`, where `table_base` is the sum of the byte
    /// lengths of the tables before it in `attack_table_memory`.
    fn attack_table_offsets(
        &self,
        slider: Slider,
        occupancy: &Self::Occupancy,
        sq: Square,
        out: &mut Vec<usize>,
    ) {
        let _ = (slider, occupancy, sq, out);
    }

    /// Sliding attacks by kind (for harness code that loops over kinds).
    #[inline(always)]
    fn slider_attacks(
        &self,
        slider: Slider,
        occupancy: &Self::Occupancy,
        sq: Square,
    ) -> Self::Bitboard {
        match slider {
            Slider::Rook => self.rook_attacks(occupancy, sq),
            Slider::Bishop => self.bishop_attacks(occupancy, sq),
            Slider::Lance(color) => self.lance_attacks(color, occupancy, sq),
            Slider::Dragon => self.dragon_attacks(occupancy, sq),
            Slider::Horse => self.horse_attacks(occupancy, sq),
        }
    }

    /// Batch lookup: `out[i]` = the `slider`'s attacks from `squares[i]` under one occupancy,
    /// at the SIMD level in force ([`crate::simd::level`], read once per call).
    ///
    /// Panics unless `out.len() == squares.len()`.
    #[inline]
    fn attacks_many(
        &self,
        slider: Slider,
        occupancy: &Self::Occupancy,
        squares: &[Square],
        out: &mut [Self::Bitboard],
    ) {
        self.attacks_many_at(crate::simd::level(), slider, occupancy, squares, out);
    }

    /// [`Backend::attacks_many`] at an explicit SIMD level, so that every level can be run and
    /// compared in one process without forcing the global one. A backend without a batch path
    /// for `level` loops over [`Backend::slider_attacks`] (the default), so the result is the
    /// same at every level.
    ///
    /// Panics unless `out.len() == squares.len()` and `level` is available on this build and CPU
    /// ([`SimdLevel::is_available`]).
    #[inline]
    fn attacks_many_at(
        &self,
        level: SimdLevel,
        slider: Slider,
        occupancy: &Self::Occupancy,
        squares: &[Square],
        out: &mut [Self::Bitboard],
    ) {
        check_batch(level, squares.len(), squares.len(), out.len());
        for (out, &sq) in out.iter_mut().zip(squares) {
            *out = self.slider_attacks(slider, occupancy, sq);
        }
    }

    /// Batch lookup over pairs: `out[i]` = the `slider`'s attacks from `squares[i]` under
    /// `occupancies[i]`, at the SIMD level in force ([`crate::simd::level`], read once per call).
    ///
    /// Panics unless the three slices have the same length.
    #[inline]
    fn attacks_many_occupancies(
        &self,
        slider: Slider,
        occupancies: &[Self::Occupancy],
        squares: &[Square],
        out: &mut [Self::Bitboard],
    ) {
        self.attacks_many_occupancies_at(crate::simd::level(), slider, occupancies, squares, out);
    }

    /// [`Backend::attacks_many_occupancies`] at an explicit SIMD level (see
    /// [`Backend::attacks_many_at`]).
    ///
    /// Panics unless the three slices have the same length and `level` is available on this
    /// build and CPU ([`SimdLevel::is_available`]).
    #[inline]
    fn attacks_many_occupancies_at(
        &self,
        level: SimdLevel,
        slider: Slider,
        occupancies: &[Self::Occupancy],
        squares: &[Square],
        out: &mut [Self::Bitboard],
    ) {
        check_batch(level, squares.len(), occupancies.len(), out.len());
        // The kind is matched once, outside the loop: each loop calls one lookup.
        let pairs = out.iter_mut().zip(squares).zip(occupancies);
        match slider {
            Slider::Rook => pairs.for_each(|((o, &sq), occ)| *o = self.rook_attacks(occ, sq)),
            Slider::Bishop => pairs.for_each(|((o, &sq), occ)| *o = self.bishop_attacks(occ, sq)),
            Slider::Dragon => pairs.for_each(|((o, &sq), occ)| *o = self.dragon_attacks(occ, sq)),
            Slider::Horse => pairs.for_each(|((o, &sq), occ)| *o = self.horse_attacks(occ, sq)),
            Slider::Lance(color) => {
                pairs.for_each(|((o, &sq), occ)| *o = self.lance_attacks(color, occ, sq))
            }
        }
    }

    /// Step attacks by kind.
    #[inline(always)]
    fn stepper_attacks(&self, stepper: Stepper, sq: Square) -> Self::Bitboard {
        match stepper {
            Stepper::King => self.king_attacks(sq),
            Stepper::Gold(color) => self.gold_attacks(color, sq),
            Stepper::Silver(color) => self.silver_attacks(color, sq),
            Stepper::Knight(color) => self.knight_attacks(color, sq),
            Stepper::Pawn(color) => self.pawn_attacks(color, sq),
        }
    }
}

/// The preconditions of the batch lookups, checked once per call: as many occupancies (one
/// shared occupancy counts as `squares`) and outputs as squares, and a SIMD level this build and
/// CPU can run. Backends that override a batch lookup call it first, so that their vector paths
/// may rely on both.
#[inline]
pub fn check_batch(level: SimdLevel, squares: usize, occupancies: usize, out: usize) {
    assert!(
        squares == occupancies && squares == out,
        "batch lookup: {squares} squares, {occupancies} occupancies, {out} outputs"
    );
    assert!(
        level.is_available(),
        "batch lookup: SIMD level {level} is not available on this build and CPU"
    );
}

/// A bitboard in canonical numbering: bit `Square::index` of a `u128`. Backends whose
/// attacks are returned canonically (the steppers) use it as their bitboard type.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Hash)]
pub struct CanonicalBitboard(pub u128);

macro_rules! canonical_binop {
    ($trait:ident, $method:ident, $assign_trait:ident, $assign_method:ident, $op:tt) => {
        impl $trait for CanonicalBitboard {
            type Output = CanonicalBitboard;
            #[inline(always)]
            fn $method(self, rhs: Self) -> Self {
                CanonicalBitboard(self.0 $op rhs.0)
            }
        }
        impl $assign_trait for CanonicalBitboard {
            #[inline(always)]
            fn $assign_method(&mut self, rhs: Self) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}
canonical_binop!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
canonical_binop!(BitOr, bitor, BitOrAssign, bitor_assign, |);
canonical_binop!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Bitboard for CanonicalBitboard {
    #[inline(always)]
    fn empty() -> Self {
        CanonicalBitboard(0)
    }
    #[inline(always)]
    fn from_canonical(bits: u128) -> Self {
        CanonicalBitboard(bits & crate::types::ALL_SQUARES)
    }
    #[inline(always)]
    fn to_canonical(self) -> u128 {
        self.0
    }
    #[inline(always)]
    fn square(sq: Square) -> Self {
        CanonicalBitboard(sq.bit())
    }
    #[inline(always)]
    fn and_not(self, other: Self) -> Self {
        CanonicalBitboard(self.0 & !other.0)
    }
    #[inline(always)]
    fn is_empty(self) -> bool {
        self.0 == 0
    }
    #[inline(always)]
    fn count(self) -> u32 {
        self.0.count_ones()
    }
    #[inline(always)]
    fn pop(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let index = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Square::new(index)
    }
    #[inline(always)]
    fn file_fill(self) -> Self {
        CanonicalBitboard(fill_nine_bit_fields(self.0, 9))
    }
    #[inline(always)]
    fn forward_one(self, color: Color) -> Self {
        // Ranks are consecutive bits within a file: one rank forward is one bit.
        match color {
            Color::Black => CanonicalBitboard((self.0 & !RANK_A) >> 1),
            Color::White => CanonicalBitboard((self.0 & !RANK_I) << 1),
        }
    }
}

macro_rules! fill_nine_bit_fields {
    ($(#[$doc:meta])* $name:ident, $word:ty) => {
        $(#[$doc])*
        #[inline(always)]
        pub const fn $name(bits: $word, fields: u32) -> $word {
            let mut first: $word = 0;
            let mut k = 0;
            while k < fields {
                first |= 1 << (9 * k);
                k += 1;
            }
            let low_eight = first * 0xFF;
            let any = (((bits & low_eight) + low_eight) | bits) & first << 8;
            (any >> 8) * 0x1FF
        }
    };
}
fill_nine_bit_fields!(
    /// Each of the `fields` 9-bit fields at the bottom of `bits` (files, in a file-major
    /// layout) set whole where it has any bit set, without a loop: adding 255 to a field's low
    /// eight bits carries into its ninth exactly when they are not all zero, and a field's
    /// ninth bit, moved to its first and multiplied by 511, fills that field alone.
    fill_nine_bit_fields,
    u128
);
fill_nine_bit_fields!(
    /// [`fill_nine_bit_fields`] on one 64-bit word (at most seven fields).
    fill_nine_bit_fields_u64,
    u64
);

/// Canonical rank `a` (rank 1, black's far side) and rank `i` (rank 9).
pub const RANK_A: u128 = rank_mask(0);
pub const RANK_I: u128 = rank_mask(8);

const fn rank_mask(rank_index: u32) -> u128 {
    let mut mask = 0u128;
    let mut file = 0;
    while file < 9 {
        mask |= 1 << (file * 9 + rank_index);
        file += 1;
    }
    mask
}
