//! Bonanza's rotated bitboards (seed 000): 7-bit line lookups on rotated occupancies.
//!
//! The occupancy is kept four times (base, rotated 90°, 45° and −45°) so that every line through
//! a square — rank, file, both diagonals — is 9 consecutive bits of one `u32`; shifting and
//! masking with `0x7f` leaves the 7 squares between the board's edges (a square on the edge
//! blocks nothing beyond it), which index a `[81][128]` table of precomputed attacks.
//! Its layout variants (`LineLayout`) change one factor each: 16-byte padded entries, or the
//! line tables occupancy-major (`[128][81]`).

mod bitboard;
mod layout;
#[cfg(test)]
mod tests;

pub use bitboard::BonanzaBitboard;
pub use layout::RotatedBoards;

use crate::shared::masked::{masked_index, table_bytes, NoPadding};
use kiki_core::backend::{Backend, BackendInfo, LayoutFactor, LayoutVariant, TableInfo};
use kiki_core::types::{ray, Color, Slider, Square, ALL_SQUARES};
use layout::{
    canonical_position, Rotation, Slide, GOLD_ATTACKS, KING_ATTACKS, KNIGHT_ATTACKS, LANCE_RAYS,
    PAWN_ATTACKS, ROTATED_MASKS, SILVER_ATTACKS, SLIDE,
};
use std::mem::size_of;
use std::sync::OnceLock;

// SAFETY: `repr(C)` around `[u32; 3]`: 12 bytes, all of them the words'.
unsafe impl NoPadding for BonanzaBitboard {}

/// Patterns of a line's 7 inner squares.
const PATTERNS: usize = 128;
/// Entries of a line table: one per square and pattern.
const ENTRIES: usize = 81 * PATTERNS;

/// Attacks along one kind of line, per square and inner-square pattern, flat in the layout's
/// index order (the seed's `[81][128]`, or `[128][81]`).
type LineTable<E> = [E; ENTRIES];
/// Rank attacks: a rank lies in one word, so one `u32` per entry suffices.
type RankTable = [u32; ENTRIES];

/// The four sliding tables of one layout, built once per process.
pub struct SlidingTables<E: 'static> {
    /// The seed's `abb_file_attacks`.
    file: &'static LineTable<E>,
    /// The seed's `ai_rook_attacks_r0`.
    rank: &'static RankTable,
    /// The seed's `abb_bishop_attacks_rl45`.
    rl45: &'static LineTable<E>,
    /// The seed's `abb_bishop_attacks_rr45`.
    rr45: &'static LineTable<E>,
}

/// How a line table stores a bitboard: the seed's 12 bytes, or padded to 16.
pub trait LineEntry: NoPadding + std::fmt::Debug + Send + Sync {
    fn store(bb: BonanzaBitboard) -> Self;
    fn load(self) -> BonanzaBitboard;
}

impl LineEntry for BonanzaBitboard {
    #[inline(always)]
    fn store(bb: BonanzaBitboard) -> Self {
        bb
    }
    #[inline(always)]
    fn load(self) -> BonanzaBitboard {
        self
    }
}

/// A bitboard padded to 16 bytes and aligned to 16, so that no entry straddles two lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(16))]
pub struct PaddedBitboard {
    words: [u32; 3],
    /// Always 0: explicit, so that every byte is initialised.
    pad: u32,
}

// SAFETY: `repr(C)`, four `u32` fields, 16 bytes, all of them the fields'.
unsafe impl NoPadding for PaddedBitboard {}
const _: () = assert!(size_of::<PaddedBitboard>() == 16);

impl LineEntry for PaddedBitboard {
    #[inline(always)]
    fn store(bb: BonanzaBitboard) -> Self {
        PaddedBitboard {
            words: bb.words,
            pad: 0,
        }
    }
    #[inline(always)]
    fn load(self) -> BonanzaBitboard {
        BonanzaBitboard::new(self.words)
    }
}

/// A table layout of this one implementation: the line tables' entry type and index order.
pub trait LineLayout: Copy + Send + Sync + 'static {
    type Entry: LineEntry;
    /// `[128][81]` (pattern-major) instead of the seed's `[81][128]`.
    const OCCUPANCY_MAJOR: bool;
    const NAME: &'static str;
    const VARIANT: Option<LayoutVariant>;
    /// This layout's tables, built once per process.
    fn cell() -> &'static OnceLock<SlidingTables<Self::Entry>>;

    /// The flat index of (`sq`, `pattern`) in every table of this layout.
    #[inline(always)]
    fn flat_index(sq: Square, pattern: usize) -> usize {
        if Self::OCCUPANCY_MAJOR {
            pattern * 81 + sq.index()
        } else {
            sq.index() * PATTERNS + pattern
        }
    }
}

/// The seed's layout: `[81][128]` of 12-byte bitboards (the base backend).
#[derive(Clone, Copy, Debug)]
pub struct SeedLayout;
/// 16-byte padded entries, square-major.
#[derive(Clone, Copy, Debug)]
pub struct Entry16;
/// 12-byte entries, occupancy-major `[128][81]`.
#[derive(Clone, Copy, Debug)]
pub struct OccupancyMajor;

macro_rules! line_layout {
    ($layout:ty, $entry:ty, $occupancy_major:expr, $name:literal, $variant:expr) => {
        impl LineLayout for $layout {
            type Entry = $entry;
            const OCCUPANCY_MAJOR: bool = $occupancy_major;
            const NAME: &'static str = $name;
            const VARIANT: Option<LayoutVariant> = $variant;
            fn cell() -> &'static OnceLock<SlidingTables<$entry>> {
                static TABLES: OnceLock<SlidingTables<$entry>> = OnceLock::new();
                &TABLES
            }
        }
    };
}

line_layout!(SeedLayout, BonanzaBitboard, false, "bonanza", None);
line_layout!(
    Entry16,
    PaddedBitboard,
    false,
    "bonanza.entry16",
    Some(LayoutVariant {
        base: "bonanza",
        factor: LayoutFactor::EntrySize,
        change: "file and diagonal tables of 16 B padded entries against 12 B",
    })
);
line_layout!(
    OccupancyMajor,
    BonanzaBitboard,
    true,
    "bonanza.occ-major",
    Some(LayoutVariant {
        base: "bonanza",
        factor: LayoutFactor::IndexOrder,
        change: "occupancy-major [128][81] against square-major [81][128]: entries that share a \
                 line are the same pattern on neighbouring squares, not one square's patterns",
    })
);

/// Bonanza on the seed's layout.
pub type Bonanza = BonanzaOf<SeedLayout>;
/// `bonanza.entry16`.
pub type BonanzaEntry16 = BonanzaOf<Entry16>;
/// `bonanza.occ-major`.
pub type BonanzaOccMajor = BonanzaOf<OccupancyMajor>;

/// (word, shift) of `sq`'s line in `rotation`, from the seed's `aslide`.
fn slide_of(rotation: Rotation, sq: Square) -> (usize, u32) {
    let slide = SLIDE[sq.index()];
    let (word, shift) = match rotation {
        Rotation::Base => (slide.rank_word, slide.rank_shift),
        Rotation::Rl90 => (slide.file_word, slide.file_shift),
        Rotation::Rl45 => (slide.rl45_word, slide.rl45_shift),
        Rotation::Rr45 => (slide.rr45_word, slide.rr45_shift),
    };
    (word as usize, shift as u32)
}

/// The line directions (file delta, rank delta) each rotated board serves.
fn line_directions(rotation: Rotation) -> [(i8, i8); 2] {
    match rotation {
        Rotation::Base => [(-1, 0), (1, 0)],
        Rotation::Rl90 => [(0, -1), (0, 1)],
        // irank − ifile constant: one rank down is one file to the left (ifile + 1 = file − 1).
        Rotation::Rl45 => [(-1, 1), (1, -1)],
        // irank + ifile constant.
        Rotation::Rr45 => [(1, 1), (-1, -1)],
    }
}

/// Attacks of a slider on `sq` along `rotation`'s line when the line's inner squares are
/// occupied as `pattern` says, read through the same bit positions the lookup reads: walk
/// each way until the edge or a square whose bit, after the shift, is set in `pattern`.
fn line_attacks(rotation: Rotation, sq: Square, pattern: usize) -> BonanzaBitboard {
    let (word, shift) = slide_of(rotation, sq);
    let blocks = |target: Square| {
        let position = canonical_position(rotation, target.index());
        let along = position.bit as i64 - shift as i64;
        position.word == word && (0..7).contains(&along) && (pattern >> along) & 1 != 0
    };
    let occupancy = Square::all()
        .filter(|&target| blocks(target))
        .fold(0, |acc, target| acc | target.bit());
    let attacks = line_directions(rotation)
        .iter()
        .fold(0, |acc, &(df, dr)| acc | ray(occupancy, sq, df, dr));
    layout::from_canonical(attacks)
}

/// A flat table of layout `L`, built on the heap (414 KB in all is too much for a test thread's
/// stack) and moved into the table arena, each entry placed at `L::flat_index`.
fn per_square_and_pattern<L: LineLayout, T: Copy + Sync + 'static>(
    entry: impl Fn(Square, usize) -> T,
) -> &'static [T; ENTRIES] {
    let mut flat = vec![entry(Square::all().next().expect("81 squares"), 0); ENTRIES];
    for sq in Square::all() {
        for pattern in 0..PATTERNS {
            flat[L::flat_index(sq, pattern)] = entry(sq, pattern);
        }
    }
    let flat: Box<[T; ENTRIES]> = flat
        .into_boxed_slice()
        .try_into()
        .unwrap_or_else(|_| unreachable!("81 × 128 entries"));
    kiki_core::table_arena::place("bonanza", flat)
}

fn build_sliding_tables<L: LineLayout>() -> SlidingTables<L::Entry> {
    let line = |rotation| {
        per_square_and_pattern::<L, _>(move |sq, p| L::Entry::store(line_attacks(rotation, sq, p)))
    };
    SlidingTables {
        file: line(Rotation::Rl90),
        rank: per_square_and_pattern::<L, _>(|sq, p| {
            let (word, _) = slide_of(Rotation::Base, sq);
            line_attacks(Rotation::Base, sq, p).words[word]
        }),
        rl45: line(Rotation::Rl45),
        rr45: line(Rotation::Rr45),
    }
}

/// Handle onto the tables of layout `L`: the sliding tables built once per process, the rest
/// `static`.
pub struct BonanzaOf<L: LineLayout> {
    file: &'static LineTable<L::Entry>,
    rank: &'static RankTable,
    rl45: &'static LineTable<L::Entry>,
    rr45: &'static LineTable<L::Entry>,
}

impl<L: LineLayout> Clone for BonanzaOf<L> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<L: LineLayout> Copy for BonanzaOf<L> {}

impl<L: LineLayout> std::fmt::Debug for BonanzaOf<L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(L::NAME)
    }
}

/// The 7-bit inner-square pattern of the line stored at `word` of `board`, shifted by `shift`.
#[inline(always)]
fn inner_pattern(board: &BonanzaBitboard, word: u8, shift: u8) -> usize {
    // SAFETY: every word index in SLIDE is < 3 (const assertion in `layout`).
    let bits = unsafe { *board.words.get_unchecked(word as usize) };
    ((bits >> shift) & 0x7f) as usize
}

impl<L: LineLayout> BonanzaOf<L> {
    #[inline(always)]
    fn slide(sq: Square) -> Slide {
        // SAFETY: `Square` is always < 81, the table's length.
        unsafe { *SLIDE.get_unchecked(sq.index()) }
    }

    /// The seed's `AttackFile`: up and down the file.
    #[inline(always)]
    fn file_attacks(&self, occupancy: &RotatedBoards, sq: Square) -> BonanzaBitboard {
        let slide = Self::slide(sq);
        let pattern = inner_pattern(&occupancy.occupied_rl90, slide.file_word, slide.file_shift);
        // SAFETY: `Square` is always < 81 and `pattern` is masked to 7 bits, so the flat index
        // is < 81 × 128 in either order.
        unsafe { self.file.get_unchecked(L::flat_index(sq, pattern)) }.load()
    }

    /// The seed's `AttackRank`: one `u32`, placed in the rank's word.
    #[inline(always)]
    fn rank_attacks(&self, occupancy: &RotatedBoards, sq: Square) -> BonanzaBitboard {
        let slide = Self::slide(sq);
        let pattern = inner_pattern(&occupancy.occupied, slide.rank_word, slide.rank_shift);
        // SAFETY: `Square` is always < 81; `pattern` is masked to 7 bits.
        let rank = unsafe { *self.rank.get_unchecked(L::flat_index(sq, pattern)) };
        // Branch-free placement: keep `rank` only in word `rank_word`.
        let keep = |word: u8| rank & 0u32.wrapping_sub((slide.rank_word == word) as u32);
        BonanzaBitboard::new([keep(0), keep(1), keep(2)])
    }

    #[inline(always)]
    fn diagonal_attacks(&self, occupancy: &RotatedBoards, sq: Square) -> BonanzaBitboard {
        let slide = Self::slide(sq);
        let rl45 = inner_pattern(&occupancy.occupied_rl45, slide.rl45_word, slide.rl45_shift);
        let rr45 = inner_pattern(&occupancy.occupied_rr45, slide.rr45_word, slide.rr45_shift);
        // SAFETY: `Square` is always < 81; both patterns are masked to 7 bits.
        unsafe {
            self.rl45.get_unchecked(L::flat_index(sq, rl45)).load()
                | self.rr45.get_unchecked(L::flat_index(sq, rr45)).load()
        }
    }
}

/// A flat table's hot-twin lookup of the flat index `L::flat_index(sq, pattern)`, ANDed with
/// `table_mask >> s` (`2^s` = `T`'s size rounded up: 16 for bitboards, 4 for `u32`).
#[inline(always)]
fn masked_entry<T: Copy>(table: &[T; ENTRIES], index: usize, table_mask: usize) -> T {
    let index = masked_index::<T>(index, table_mask);
    // SAFETY: `sq.index() < 81` and `pattern < 128` (masked to 7 bits), so the unmasked index is
    // < 81 × 128, the flat length; the masked one is at most the unmasked one.
    unsafe { *table.get_unchecked(index) }
}

/// The flat indices the line lookups read (shared by the hot twin and the offsets), and the hot
/// twin of the sliding lookups: every line table's index masked, `aslide` and the occupancy
/// read as in the real lookups.
impl<L: LineLayout> BonanzaOf<L> {
    #[inline(always)]
    fn file_index(occupancy: &RotatedBoards, sq: Square) -> usize {
        let slide = Self::slide(sq);
        let pattern = inner_pattern(&occupancy.occupied_rl90, slide.file_word, slide.file_shift);
        L::flat_index(sq, pattern)
    }

    #[inline(always)]
    fn rank_index(occupancy: &RotatedBoards, sq: Square) -> usize {
        let slide = Self::slide(sq);
        let pattern = inner_pattern(&occupancy.occupied, slide.rank_word, slide.rank_shift);
        L::flat_index(sq, pattern)
    }

    #[inline(always)]
    fn rl45_index(occupancy: &RotatedBoards, sq: Square) -> usize {
        let slide = Self::slide(sq);
        let pattern = inner_pattern(&occupancy.occupied_rl45, slide.rl45_word, slide.rl45_shift);
        L::flat_index(sq, pattern)
    }

    #[inline(always)]
    fn rr45_index(occupancy: &RotatedBoards, sq: Square) -> usize {
        let slide = Self::slide(sq);
        let pattern = inner_pattern(&occupancy.occupied_rr45, slide.rr45_word, slide.rr45_shift);
        L::flat_index(sq, pattern)
    }

    #[inline(always)]
    fn file_attacks_masked(
        &self,
        occupancy: &RotatedBoards,
        sq: Square,
        table_mask: usize,
    ) -> BonanzaBitboard {
        masked_entry(self.file, Self::file_index(occupancy, sq), table_mask).load()
    }

    #[inline(always)]
    fn rank_attacks_masked(
        &self,
        occupancy: &RotatedBoards,
        sq: Square,
        table_mask: usize,
    ) -> BonanzaBitboard {
        let slide = Self::slide(sq);
        let rank = masked_entry(self.rank, Self::rank_index(occupancy, sq), table_mask);
        let keep = |word: u8| rank & 0u32.wrapping_sub((slide.rank_word == word) as u32);
        BonanzaBitboard::new([keep(0), keep(1), keep(2)])
    }

    #[inline(always)]
    fn diagonal_attacks_masked(
        &self,
        occupancy: &RotatedBoards,
        sq: Square,
        table_mask: usize,
    ) -> BonanzaBitboard {
        masked_entry(self.rl45, Self::rl45_index(occupancy, sq), table_mask).load()
            | masked_entry(self.rr45, Self::rr45_index(occupancy, sq), table_mask).load()
    }

    #[inline(always)]
    fn rook_attacks_masked(
        &self,
        occupancy: &RotatedBoards,
        sq: Square,
        table_mask: usize,
    ) -> BonanzaBitboard {
        self.file_attacks_masked(occupancy, sq, table_mask)
            | self.rank_attacks_masked(occupancy, sq, table_mask)
    }
}

/// A per-square table lookup.
#[inline(always)]
fn at(table: &[BonanzaBitboard; 81], sq: Square) -> BonanzaBitboard {
    // SAFETY: `Square` is always < 81, the table's length.
    unsafe { *table.get_unchecked(sq.index()) }
}

/// A `[colour][square]` table lookup.
#[inline(always)]
fn by_color(table: &[[BonanzaBitboard; 81]; 2], color: Color, sq: Square) -> BonanzaBitboard {
    at(&table[color.index() & 1], sq)
}

impl<L: LineLayout> Backend for BonanzaOf<L> {
    type Bitboard = BonanzaBitboard;
    type Occupancy = RotatedBoards;

    fn info() -> BackendInfo {
        BackendInfo {
            name: L::NAME,
            description: match (size_of::<L::Entry>(), L::OCCUPANCY_MAJOR) {
                (12, false) => {
                    "Bonanza's rotated bitboards: 7-bit lookups on rotated occupancies (seed 000)"
                }
                (_, false) => "bonanza with the file and diagonal tables' entries padded to 16 B",
                _ => "bonanza with every line table occupancy-major, [128][81]",
            },
            layout: "3 × u32, rank-major from 9a, 27 squares a word (Bonanza square i at word \
                     i/27, bit 26 - i%27); occupancy also kept rotated 90°, 45° and -45°, \
                     three u32 each",
            needs: &[],
            variant: L::VARIANT,
        }
    }

    fn availability() -> Result<(), String> {
        Ok(())
    }

    fn tables() -> Vec<TableInfo> {
        let order = if L::OCCUPANCY_MAJOR {
            "[128][81]"
        } else {
            "[81][128]"
        };
        let line = format!(
            "{order} × {} B bitboard{}",
            size_of::<L::Entry>(),
            if size_of::<L::Entry>() == 16 {
                " (padded)"
            } else {
                ""
            }
        );
        let per_square = "[81] × 12 B bitboard";
        let per_color = "[2][81] × 12 B bitboard";
        vec![
            TableInfo {
                name: "abb_file_attacks",
                shape: line.clone(),
                bytes: size_of::<LineTable<L::Entry>>(),
            },
            TableInfo {
                name: "ai_rook_attacks_r0",
                shape: format!("{order} × u32"),
                bytes: size_of::<RankTable>(),
            },
            TableInfo {
                name: "abb_bishop_attacks_rl45",
                shape: line.clone(),
                bytes: size_of::<LineTable<L::Entry>>(),
            },
            TableInfo {
                name: "abb_bishop_attacks_rr45",
                shape: line,
                bytes: size_of::<LineTable<L::Entry>>(),
            },
            TableInfo {
                name: "aslide",
                shape: "[81] × 8 B (word, shift) ×4".into(),
                bytes: size_of::<[Slide; 81]>(),
            },
            TableInfo {
                name: "square_masks",
                shape: per_square.into(),
                bytes: size_of::<[BonanzaBitboard; 81]>(),
            },
            TableInfo {
                name: "occupancy_masks",
                shape: "[81] × 48 B (4 bitboards: base, rl90, rl45, rr45)".into(),
                bytes: size_of::<[RotatedBoards; 81]>(),
            },
            TableInfo {
                name: "square_of_bit",
                shape: "[128] × u8".into(),
                bytes: size_of::<[u8; 128]>(),
            },
            TableInfo {
                name: "abb_minus_rays",
                shape: per_square.into(),
                bytes: size_of::<[BonanzaBitboard; 81]>(),
            },
            TableInfo {
                name: "abb_plus_rays",
                shape: per_square.into(),
                bytes: size_of::<[BonanzaBitboard; 81]>(),
            },
            TableInfo {
                name: "king_attacks",
                shape: per_square.into(),
                bytes: size_of::<[BonanzaBitboard; 81]>(),
            },
            TableInfo {
                name: "gold_attacks",
                shape: per_color.into(),
                bytes: size_of::<[[BonanzaBitboard; 81]; 2]>(),
            },
            TableInfo {
                name: "silver_attacks",
                shape: per_color.into(),
                bytes: size_of::<[[BonanzaBitboard; 81]; 2]>(),
            },
            TableInfo {
                name: "knight_attacks",
                shape: per_color.into(),
                bytes: size_of::<[[BonanzaBitboard; 81]; 2]>(),
            },
            TableInfo {
                name: "pawn_attacks",
                shape: per_color.into(),
                bytes: size_of::<[[BonanzaBitboard; 81]; 2]>(),
            },
        ]
    }

    fn simd_path() -> &'static str {
        "scalar (three u32 words; no SIMD path)"
    }

    fn new() -> Result<Self, String> {
        let tables = L::cell().get_or_init(build_sliding_tables::<L>);
        Ok(BonanzaOf {
            file: tables.file,
            rank: tables.rank,
            rl45: tables.rl45,
            rr45: tables.rr45,
        })
    }

    fn occupancy(&self, canonical: u128) -> RotatedBoards {
        let mut occupancy = RotatedBoards::EMPTY;
        let mut rest = canonical & ALL_SQUARES;
        while rest != 0 {
            let index = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            occupancy.insert(&ROTATED_MASKS[index]);
        }
        occupancy
    }

    #[inline(always)]
    fn set_square(&self, occupancy: &mut RotatedBoards, sq: Square) {
        // SAFETY: `Square` is always < 81, the table's length.
        occupancy.insert(unsafe { ROTATED_MASKS.get_unchecked(sq.index()) });
    }

    #[inline(always)]
    fn clear_square(&self, occupancy: &mut RotatedBoards, sq: Square) {
        // SAFETY: `Square` is always < 81, the table's length.
        occupancy.remove(unsafe { ROTATED_MASKS.get_unchecked(sq.index()) });
    }

    #[inline(always)]
    fn occupied(&self, occupancy: &RotatedBoards) -> BonanzaBitboard {
        occupancy.occupied
    }

    #[inline(always)]
    fn rook_attacks(&self, occupancy: &RotatedBoards, sq: Square) -> BonanzaBitboard {
        self.file_attacks(occupancy, sq) | self.rank_attacks(occupancy, sq)
    }

    #[inline(always)]
    fn bishop_attacks(&self, occupancy: &RotatedBoards, sq: Square) -> BonanzaBitboard {
        self.diagonal_attacks(occupancy, sq)
    }

    /// The seed's `AttackBLance`/`AttackWLance`: the file attacks cut to one direction.
    #[inline(always)]
    fn lance_attacks(
        &self,
        color: Color,
        occupancy: &RotatedBoards,
        sq: Square,
    ) -> BonanzaBitboard {
        by_color(&LANCE_RAYS, color, sq) & self.file_attacks(occupancy, sq)
    }

    #[inline(always)]
    fn dragon_attacks(&self, occupancy: &RotatedBoards, sq: Square) -> BonanzaBitboard {
        self.rook_attacks(occupancy, sq) | at(&KING_ATTACKS, sq)
    }

    #[inline(always)]
    fn horse_attacks(&self, occupancy: &RotatedBoards, sq: Square) -> BonanzaBitboard {
        self.diagonal_attacks(occupancy, sq) | at(&KING_ATTACKS, sq)
    }

    /// The file, rank, rl45 and rr45 tables masked; lance rays and king steps stay real.
    #[inline(always)]
    fn slider_attacks_masked(
        &self,
        slider: Slider,
        occupancy: &RotatedBoards,
        sq: Square,
        table_mask: usize,
    ) -> BonanzaBitboard {
        match slider {
            Slider::Rook => self.rook_attacks_masked(occupancy, sq, table_mask),
            Slider::Bishop => self.diagonal_attacks_masked(occupancy, sq, table_mask),
            Slider::Lance(color) => {
                by_color(&LANCE_RAYS, color, sq)
                    & self.file_attacks_masked(occupancy, sq, table_mask)
            }
            Slider::Dragon => {
                self.rook_attacks_masked(occupancy, sq, table_mask) | at(&KING_ATTACKS, sq)
            }
            Slider::Horse => {
                self.diagonal_attacks_masked(occupancy, sq, table_mask) | at(&KING_ATTACKS, sq)
            }
        }
    }

    /// `abb_file_attacks`, `ai_rook_attacks_r0`, `abb_bishop_attacks_rl45` and `_rr45`.
    fn attack_table_memory(&self) -> Vec<&'static [u8]> {
        vec![
            table_bytes(self.file),
            table_bytes(self.rank),
            table_bytes(self.rl45),
            table_bytes(self.rr45),
        ]
    }

    /// Two elements for the rook and dragon (file, then rank), two for the bishop and horse
    /// (rl45, then rr45), one for the lance (file); the tables in `attack_table_memory` order.
    fn attack_table_offsets(
        &self,
        slider: Slider,
        occupancy: &RotatedBoards,
        sq: Square,
        out: &mut Vec<usize>,
    ) {
        let line = size_of::<LineTable<L::Entry>>();
        const RANK: usize = size_of::<RankTable>();
        let element = size_of::<L::Entry>();
        let file = || Self::file_index(occupancy, sq) * element;
        let rank = || line + Self::rank_index(occupancy, sq) * size_of::<u32>();
        let rl45 = || line + RANK + Self::rl45_index(occupancy, sq) * element;
        let rr45 = || 2 * line + RANK + Self::rr45_index(occupancy, sq) * element;
        match slider {
            Slider::Rook | Slider::Dragon => out.extend([file(), rank()]),
            Slider::Bishop | Slider::Horse => out.extend([rl45(), rr45()]),
            Slider::Lance(_) => out.push(file()),
        }
    }

    #[inline(always)]
    fn king_attacks(&self, sq: Square) -> BonanzaBitboard {
        at(&KING_ATTACKS, sq)
    }

    #[inline(always)]
    fn gold_attacks(&self, color: Color, sq: Square) -> BonanzaBitboard {
        by_color(&GOLD_ATTACKS, color, sq)
    }

    #[inline(always)]
    fn silver_attacks(&self, color: Color, sq: Square) -> BonanzaBitboard {
        by_color(&SILVER_ATTACKS, color, sq)
    }

    #[inline(always)]
    fn knight_attacks(&self, color: Color, sq: Square) -> BonanzaBitboard {
        by_color(&KNIGHT_ATTACKS, color, sq)
    }

    #[inline(always)]
    fn pawn_attacks(&self, color: Color, sq: Square) -> BonanzaBitboard {
        by_color(&PAWN_ATTACKS, color, sq)
    }
}
