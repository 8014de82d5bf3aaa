//! Bonanza's rotated bitboards (seed 000): 7-bit line lookups on rotated occupancies.
//!
//! The occupancy is kept four times (base, rotated 90°, 45° and −45°) so that every line through
//! a square — rank, file, both diagonals — is 9 consecutive bits of one `u32`; shifting and
//! masking with `0x7f` leaves the 7 squares between the board's edges (a square on the edge
//! blocks nothing beyond it), which index a `[81][128]` table of precomputed attacks.

mod bitboard;
mod layout;
#[cfg(test)]
mod tests;

pub use bitboard::BonanzaBitboard;
pub use layout::RotatedBoards;

use crate::shared::masked::{masked_index, table_bytes, NoPadding};
use kiki_core::backend::{Backend, BackendInfo, TableInfo};
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

/// Attacks along one kind of line, per square and inner-square pattern.
type LineTable = [[BonanzaBitboard; PATTERNS]; 81];
/// Rank attacks: a rank lies in one word, so one `u32` per entry suffices.
type RankTable = [[u32; PATTERNS]; 81];

/// The four sliding tables, built once per process.
struct SlidingTables {
    /// The seed's `abb_file_attacks`.
    file: Box<LineTable>,
    /// The seed's `ai_rook_attacks_r0`.
    rank: Box<RankTable>,
    /// The seed's `abb_bishop_attacks_rl45`.
    rl45: Box<LineTable>,
    /// The seed's `abb_bishop_attacks_rr45`.
    rr45: Box<LineTable>,
}

static SLIDING_TABLES: OnceLock<SlidingTables> = OnceLock::new();

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

/// A `[81][128]` table on the heap (414 KB in all is too much for a test thread's stack).
fn per_square_and_pattern<T: Copy + std::fmt::Debug>(
    entry: impl Fn(Square, usize) -> T,
) -> Box<[[T; PATTERNS]; 81]> {
    let rows: Vec<[T; PATTERNS]> = Square::all()
        .map(|sq| std::array::from_fn(|pattern| entry(sq, pattern)))
        .collect();
    rows.into_boxed_slice()
        .try_into()
        .expect("one row per square")
}

fn build_sliding_tables() -> SlidingTables {
    SlidingTables {
        file: per_square_and_pattern(|sq, p| line_attacks(Rotation::Rl90, sq, p)),
        rank: per_square_and_pattern(|sq, p| {
            let (word, _) = slide_of(Rotation::Base, sq);
            line_attacks(Rotation::Base, sq, p).words[word]
        }),
        rl45: per_square_and_pattern(|sq, p| line_attacks(Rotation::Rl45, sq, p)),
        rr45: per_square_and_pattern(|sq, p| line_attacks(Rotation::Rr45, sq, p)),
    }
}

/// Handle onto the tables: the sliding tables built once per process, the rest `static`.
#[derive(Clone, Copy)]
pub struct Bonanza {
    file: &'static LineTable,
    rank: &'static RankTable,
    rl45: &'static LineTable,
    rr45: &'static LineTable,
}

impl std::fmt::Debug for Bonanza {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Bonanza")
    }
}

/// The 7-bit inner-square pattern of the line stored at `word` of `board`, shifted by `shift`.
#[inline(always)]
fn inner_pattern(board: &BonanzaBitboard, word: u8, shift: u8) -> usize {
    // SAFETY: every word index in SLIDE is < 3 (const assertion in `layout`).
    let bits = unsafe { *board.words.get_unchecked(word as usize) };
    ((bits >> shift) & 0x7f) as usize
}

impl Bonanza {
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
        // SAFETY: `Square` is always < 81; `pattern` is masked to 7 bits.
        let row = unsafe { self.file.get_unchecked(sq.index()) };
        row[pattern]
    }

    /// The seed's `AttackRank`: one `u32`, placed in the rank's word.
    #[inline(always)]
    fn rank_attacks(&self, occupancy: &RotatedBoards, sq: Square) -> BonanzaBitboard {
        let slide = Self::slide(sq);
        let pattern = inner_pattern(&occupancy.occupied, slide.rank_word, slide.rank_shift);
        // SAFETY: `Square` is always < 81; `pattern` is masked to 7 bits.
        let rank = unsafe { self.rank.get_unchecked(sq.index()) }[pattern];
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
            self.rl45.get_unchecked(sq.index())[rl45] | self.rr45.get_unchecked(sq.index())[rr45]
        }
    }
}

/// The flat index `sq × 128 + pattern` of a `[81][128]` table's entry.
#[inline(always)]
fn flat_index(sq: Square, pattern: usize) -> usize {
    sq.index() * PATTERNS + pattern
}

/// A `[81][128]` table's hot-twin lookup (of the flat index `flat_index(sq, pattern)`): the table seen flat, its index `sq × 128 + pattern`
/// ANDed with `table_mask >> s` (`2^s` = `T`'s size rounded up: 16 for bitboards, 4 for `u32`).
#[inline(always)]
fn masked_entry<T: Copy>(table: &[[T; PATTERNS]; 81], index: usize, table_mask: usize) -> T {
    let index = masked_index::<T>(index, table_mask);
    // SAFETY: `sq.index() < 81` and `pattern < 128` (masked to 7 bits), so the unmasked index is
    // < 81 × 128, the flat length; the masked one is at most the unmasked one.
    unsafe { *table.as_flattened().get_unchecked(index) }
}

/// The flat indices the line lookups read (shared by the hot twin and the offsets), and the hot
/// twin of the sliding lookups: every line table's index masked, `aslide` and the occupancy
/// read as in the real lookups.
impl Bonanza {
    #[inline(always)]
    fn file_index(occupancy: &RotatedBoards, sq: Square) -> usize {
        let slide = Self::slide(sq);
        let pattern = inner_pattern(&occupancy.occupied_rl90, slide.file_word, slide.file_shift);
        flat_index(sq, pattern)
    }

    #[inline(always)]
    fn rank_index(occupancy: &RotatedBoards, sq: Square) -> usize {
        let slide = Self::slide(sq);
        let pattern = inner_pattern(&occupancy.occupied, slide.rank_word, slide.rank_shift);
        flat_index(sq, pattern)
    }

    #[inline(always)]
    fn rl45_index(occupancy: &RotatedBoards, sq: Square) -> usize {
        let slide = Self::slide(sq);
        let pattern = inner_pattern(&occupancy.occupied_rl45, slide.rl45_word, slide.rl45_shift);
        flat_index(sq, pattern)
    }

    #[inline(always)]
    fn rr45_index(occupancy: &RotatedBoards, sq: Square) -> usize {
        let slide = Self::slide(sq);
        let pattern = inner_pattern(&occupancy.occupied_rr45, slide.rr45_word, slide.rr45_shift);
        flat_index(sq, pattern)
    }

    #[inline(always)]
    fn file_attacks_masked(
        &self,
        occupancy: &RotatedBoards,
        sq: Square,
        table_mask: usize,
    ) -> BonanzaBitboard {
        masked_entry(self.file, Self::file_index(occupancy, sq), table_mask)
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
        masked_entry(self.rl45, Self::rl45_index(occupancy, sq), table_mask)
            | masked_entry(self.rr45, Self::rr45_index(occupancy, sq), table_mask)
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

impl Backend for Bonanza {
    type Bitboard = BonanzaBitboard;
    type Occupancy = RotatedBoards;

    fn info() -> BackendInfo {
        BackendInfo {
            name: "bonanza",
            description: "Bonanza's rotated bitboards: 7-bit lookups on rotated occupancies \
                          (seed 000)",
            layout: "3 × u32, rank-major from 9a, 27 squares a word (Bonanza square i at word \
                     i/27, bit 26 - i%27); occupancy also kept rotated 90°, 45° and -45°, \
                     three u32 each",
            needs: &[],
        }
    }

    fn availability() -> Result<(), String> {
        Ok(())
    }

    fn tables() -> Vec<TableInfo> {
        let line = "[81][128] × 12 B bitboard";
        let per_square = "[81] × 12 B bitboard";
        let per_color = "[2][81] × 12 B bitboard";
        vec![
            TableInfo {
                name: "abb_file_attacks",
                shape: line.into(),
                bytes: size_of::<LineTable>(),
            },
            TableInfo {
                name: "ai_rook_attacks_r0",
                shape: "[81][128] × u32".into(),
                bytes: size_of::<RankTable>(),
            },
            TableInfo {
                name: "abb_bishop_attacks_rl45",
                shape: line.into(),
                bytes: size_of::<LineTable>(),
            },
            TableInfo {
                name: "abb_bishop_attacks_rr45",
                shape: line.into(),
                bytes: size_of::<LineTable>(),
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
        let tables = SLIDING_TABLES.get_or_init(build_sliding_tables);
        Ok(Bonanza {
            file: &tables.file,
            rank: &tables.rank,
            rl45: &tables.rl45,
            rr45: &tables.rr45,
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
            table_bytes(self.file.as_flattened()),
            table_bytes(self.rank.as_flattened()),
            table_bytes(self.rl45.as_flattened()),
            table_bytes(self.rr45.as_flattened()),
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
        const LINE: usize = size_of::<LineTable>();
        const RANK: usize = size_of::<RankTable>();
        const ELEMENT: usize = size_of::<BonanzaBitboard>();
        let file = || Self::file_index(occupancy, sq) * ELEMENT;
        let rank = || LINE + Self::rank_index(occupancy, sq) * size_of::<u32>();
        let rl45 = || LINE + RANK + Self::rl45_index(occupancy, sq) * ELEMENT;
        let rr45 = || 2 * LINE + RANK + Self::rr45_index(occupancy, sq) * ELEMENT;
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
