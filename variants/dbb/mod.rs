//! The DBB rotated backend of seed 004: byte-indexed `[81][256]` tables, pre-combined ones too.
//!
//! Ranks are read from the base DBB (one byte of a 32-bit word: the rank's 7 inner squares and
//! its own file-9 end square, which never matters); files and both diagonal directions from
//! rotated occupancies, one `u64` each, holding only the inner squares of their lines. Every
//! read is `(word >> shift) as u8`: the byte's spare bits belong to an end square or a
//! neighbouring line, and each table's entries ignore them (so no mask is needed).
//! Its layout variant `dbb.computed` (`DbbLayout`) computes lance, dragon and horse from the
//! plain line tables, the lance rays and the king steps instead of reading pre-combined tables.

mod bitboard;
mod tables;

#[cfg(test)]
mod tests;

pub use bitboard::DbbBitboard;
pub use tables::{Compounds, Computed, DbbOccupancy, DbbTables, PreCombined, Slide};

use crate::shared::masked::{masked_index, table_bytes, NoPadding};
use kiki_core::backend::{Backend, BackendInfo, Bitboard, LayoutFactor, LayoutVariant, TableInfo};
use kiki_core::types::{Color, Slider, Square};
use std::mem::size_of;
use std::sync::OnceLock;
use tables::{LineTable, SquareTable};

// SAFETY: `repr(C, align(16))` around `[u64; 2]`: 16 bytes, all of them the words'.
unsafe impl NoPadding for DbbBitboard {}
const _: () = assert!(size_of::<DbbBitboard>() == 16);

/// A table layout of this one implementation: how lance, dragon and horse get their attacks.
pub trait DbbLayout: Compounds {
    /// Lance, dragon and horse read pre-combined tables.
    const PRE_COMBINED: bool;
    const NAME: &'static str;
    const VARIANT: Option<LayoutVariant>;
    /// This layout's tables, built once per process.
    fn cell() -> &'static OnceLock<&'static DbbTables<Self>>;
    /// The lance's attacks for the file byte; `table_mask` as in the hot twin (`None`: real).
    fn lance(
        tables: &DbbTables<Self>,
        color: Color,
        sq: Square,
        byte: u8,
        table_mask: Option<usize>,
    ) -> DbbBitboard;
    /// The dragon's file part: the file attacks and the king's steps.
    fn file_king(
        tables: &DbbTables<Self>,
        sq: Square,
        byte: u8,
        table_mask: Option<usize>,
    ) -> DbbBitboard;
    /// The horse's diag1 part: the diag1 attacks and the king's steps.
    fn diag1_king(
        tables: &DbbTables<Self>,
        sq: Square,
        byte: u8,
        table_mask: Option<usize>,
    ) -> DbbBitboard;
    /// The compound tables' memory after `file_attacks` and after `diag1_attacks`.
    #[allow(clippy::type_complexity)]
    fn compound_memory(
        tables: &'static DbbTables<Self>,
    ) -> (Vec<&'static [u8]>, Vec<&'static [u8]>);
    /// The compound tables as `kiki backends` lists them.
    fn compound_infos() -> Vec<TableInfo>;
}

/// A line table read for the real lookup (`None`) or the hot twin (`Some(mask)`); the option
/// is a constant wherever this is inlined, so the real path has no AND.
#[inline(always)]
fn line_read(table: &LineTable, sq: Square, byte: u8, table_mask: Option<usize>) -> DbbBitboard {
    match table_mask {
        None => line_lookup(table, sq, byte),
        Some(mask) => line_lookup_masked(table, sq, byte, mask),
    }
}

impl DbbLayout for PreCombined {
    const PRE_COMBINED: bool = true;
    const NAME: &'static str = "dbb";
    const VARIANT: Option<LayoutVariant> = None;
    fn cell() -> &'static OnceLock<&'static DbbTables<Self>> {
        static TABLES: OnceLock<&'static DbbTables<PreCombined>> = OnceLock::new();
        &TABLES
    }
    #[inline(always)]
    fn lance(
        tables: &DbbTables<Self>,
        color: Color,
        sq: Square,
        byte: u8,
        table_mask: Option<usize>,
    ) -> DbbBitboard {
        let table = &tables.file_compounds.lance_attacks[color.index() & 1];
        line_read(table, sq, byte, table_mask)
    }
    #[inline(always)]
    fn file_king(
        tables: &DbbTables<Self>,
        sq: Square,
        byte: u8,
        table_mask: Option<usize>,
    ) -> DbbBitboard {
        line_read(
            &tables.file_compounds.file_king_attacks,
            sq,
            byte,
            table_mask,
        )
    }
    #[inline(always)]
    fn diag1_king(
        tables: &DbbTables<Self>,
        sq: Square,
        byte: u8,
        table_mask: Option<usize>,
    ) -> DbbBitboard {
        line_read(&tables.diag1_compound, sq, byte, table_mask)
    }
    fn compound_memory(
        tables: &'static DbbTables<Self>,
    ) -> (Vec<&'static [u8]>, Vec<&'static [u8]>) {
        let file = &tables.file_compounds;
        (
            [
                &file.lance_attacks[0],
                &file.lance_attacks[1],
                &file.file_king_attacks,
            ]
            .into_iter()
            .map(|table| table_bytes(table.as_flattened()))
            .collect(),
            vec![table_bytes(tables.diag1_compound.as_flattened())],
        )
    }
    fn compound_infos() -> Vec<TableInfo> {
        vec![
            line_table_info("adbb_file_minus_attacks (black lance)"),
            line_table_info("adbb_file_plus_attacks (white lance)"),
            line_table_info("adbb_file_king_attacks (dragon)"),
            line_table_info("adbb_diag1_king_attacks (horse)"),
        ]
    }
}

impl DbbLayout for Computed {
    const PRE_COMBINED: bool = false;
    const NAME: &'static str = "dbb.computed";
    const VARIANT: Option<LayoutVariant> = Some(LayoutVariant {
        base: "dbb",
        factor: LayoutFactor::CompoundTables,
        change: "lance, dragon and horse computed from the file, rank and diagonal tables, the \
                 lance rays and the king steps (4 line tables, 1.27 MiB) against seed 004's \
                 pre-combined tables (8 line tables, 2.53 MiB)",
    });
    fn cell() -> &'static OnceLock<&'static DbbTables<Self>> {
        static TABLES: OnceLock<&'static DbbTables<Computed>> = OnceLock::new();
        &TABLES
    }
    #[inline(always)]
    fn lance(
        tables: &DbbTables<Self>,
        color: Color,
        sq: Square,
        byte: u8,
        table_mask: Option<usize>,
    ) -> DbbBitboard {
        let ray = at(&tables.file_compounds[color.index() & 1], sq);
        line_read(&tables.file_attacks, sq, byte, table_mask) & *ray
    }
    #[inline(always)]
    fn file_king(
        tables: &DbbTables<Self>,
        sq: Square,
        byte: u8,
        table_mask: Option<usize>,
    ) -> DbbBitboard {
        line_read(&tables.file_attacks, sq, byte, table_mask) | *at(&tables.king, sq)
    }
    #[inline(always)]
    fn diag1_king(
        tables: &DbbTables<Self>,
        sq: Square,
        byte: u8,
        table_mask: Option<usize>,
    ) -> DbbBitboard {
        line_read(&tables.diag1_attacks, sq, byte, table_mask) | *at(&tables.king, sq)
    }
    fn compound_memory(_: &'static DbbTables<Self>) -> (Vec<&'static [u8]>, Vec<&'static [u8]>) {
        (Vec::new(), Vec::new())
    }
    fn compound_infos() -> Vec<TableInfo> {
        vec![square_table_info("lance rays", 2)]
    }
}

/// DBB on seed 004's layout.
pub type Dbb = DbbOf<PreCombined>;
/// `dbb.computed`.
pub type DbbComputed = DbbOf<Computed>;

/// A handle onto the tables of layout `L`, built once per process.
pub struct DbbOf<L: DbbLayout> {
    tables: &'static DbbTables<L>,
}

impl<L: DbbLayout> Clone for DbbOf<L> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<L: DbbLayout> Copy for DbbOf<L> {}

impl<L: DbbLayout> std::fmt::Debug for DbbOf<L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(L::NAME)
    }
}

impl<C: Compounds> std::fmt::Debug for DbbTables<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DbbTables")
    }
}

/// The entry of a per-square table.
#[inline(always)]
fn at<T>(table: &[T; 81], sq: Square) -> &T {
    // SAFETY: `Square` guarantees `index() < 81`, the table's length.
    unsafe { table.get_unchecked(sq.index()) }
}

/// The entry of a line table for the byte read from the occupancy (`u8` indexes `[_; 256]`).
#[inline(always)]
fn line_lookup(table: &LineTable, sq: Square, byte: u8) -> DbbBitboard {
    at(table, sq)[byte as usize]
}

/// The flat index `sq × 256 + byte` of a line table's entry (shared by the hot twin and the
/// offsets).
#[inline(always)]
fn line_index(sq: Square, byte: u8) -> usize {
    sq.index() * 256 + byte as usize
}

/// `line_lookup`'s hot twin: the table seen flat (`[81 × 256]`), its index `sq × 256 + byte`
/// ANDed with `table_mask >> 4` (16-byte entries).
#[inline(always)]
fn line_lookup_masked(table: &LineTable, sq: Square, byte: u8, table_mask: usize) -> DbbBitboard {
    let index = masked_index::<DbbBitboard>(line_index(sq, byte), table_mask);
    // SAFETY: `sq.index() < 81` and `byte < 256`, so the unmasked index is < 81 × 256, the flat
    // length; the masked one is at most the unmasked one.
    unsafe { *table.as_flattened().get_unchecked(index) }
}

/// The line byte at `shift` of a rotated occupancy (the shift is always `< 64`).
#[inline(always)]
fn line_byte(rotated: u64, shift: u8) -> u8 {
    (rotated >> (shift & 63)) as u8
}

impl<L: DbbLayout> DbbOf<L> {
    #[inline(always)]
    fn slide(&self, sq: Square) -> Slide {
        *at(&self.tables.slide, sq)
    }

    /// Seed 004's `AttackRank`: the rank byte is `(occupied.p32[ir0] >> sr0) & 0xff`, read here
    /// from the `u64` that holds word `ir0`.
    #[inline(always)]
    fn rank_attacks(&self, occupancy: &DbbOccupancy, sq: Square) -> DbbBitboard {
        let slide = self.slide(sq);
        let word = occupancy.occupied.0[(slide.rank_word & 1) as usize];
        line_lookup(
            &self.tables.rank_attacks,
            sq,
            line_byte(word, slide.rank_shift),
        )
    }

    #[inline(always)]
    fn file_byte(&self, occupancy: &DbbOccupancy, sq: Square) -> u8 {
        line_byte(occupancy.occupied_rr90, self.slide(sq).file_shift)
    }

    #[inline(always)]
    fn diag1_byte(&self, occupancy: &DbbOccupancy, sq: Square) -> u8 {
        line_byte(occupancy.occupied_rr45, self.slide(sq).diag1_shift)
    }

    #[inline(always)]
    fn diag2_attacks(&self, occupancy: &DbbOccupancy, sq: Square) -> DbbBitboard {
        let byte = line_byte(occupancy.occupied_rl45, self.slide(sq).diag2_shift);
        line_lookup(&self.tables.diag2_attacks, sq, byte)
    }

    /// The rank byte `rank_attacks` reads (shared by the hot twin and the offsets).
    #[inline(always)]
    fn rank_byte(&self, occupancy: &DbbOccupancy, sq: Square) -> u8 {
        let slide = self.slide(sq);
        let word = occupancy.occupied.0[(slide.rank_word & 1) as usize];
        line_byte(word, slide.rank_shift)
    }

    /// The diag2 byte `diag2_attacks` reads (shared by the hot twin and the offsets).
    #[inline(always)]
    fn diag2_byte(&self, occupancy: &DbbOccupancy, sq: Square) -> u8 {
        line_byte(occupancy.occupied_rl45, self.slide(sq).diag2_shift)
    }

    /// `rank_attacks`'s hot twin.
    #[inline(always)]
    fn rank_attacks_masked(
        &self,
        occupancy: &DbbOccupancy,
        sq: Square,
        table_mask: usize,
    ) -> DbbBitboard {
        let byte = self.rank_byte(occupancy, sq);
        line_lookup_masked(&self.tables.rank_attacks, sq, byte, table_mask)
    }

    /// `diag2_attacks`'s hot twin.
    #[inline(always)]
    fn diag2_attacks_masked(
        &self,
        occupancy: &DbbOccupancy,
        sq: Square,
        table_mask: usize,
    ) -> DbbBitboard {
        let byte = self.diag2_byte(occupancy, sq);
        line_lookup_masked(&self.tables.diag2_attacks, sq, byte, table_mask)
    }

    /// The tables (built on first use), for tests and tools that inspect the layout.
    pub fn tables(&self) -> &'static DbbTables<L> {
        self.tables
    }
}

fn line_table_info(name: &'static str) -> TableInfo {
    TableInfo {
        name,
        shape: "[81][256] × 16 B DBB".into(),
        bytes: size_of::<LineTable>(),
    }
}

fn square_table_info(name: &'static str, colors: usize) -> TableInfo {
    TableInfo {
        name,
        shape: if colors == 1 {
            "[81] × 16 B DBB".into()
        } else {
            format!("[{colors}][81] × 16 B DBB")
        },
        bytes: colors * size_of::<SquareTable>(),
    }
}

impl<L: DbbLayout> Backend for DbbOf<L> {
    type Bitboard = DbbBitboard;
    type Occupancy = DbbOccupancy;

    fn info() -> BackendInfo {
        BackendInfo {
            name: L::NAME,
            description: if L::PRE_COMBINED {
                "seed 004's DBB: byte-indexed [81][256] rotated-line tables, pre-combined \
                 lance/dragon/horse tables"
            } else {
                "dbb with lance, dragon and horse computed from the plain line tables at lookup"
            },
            layout: "DBB: Bonanza rank-major, square irank*9+ifile (ifile 0 = file 9) in 32-bit \
                     word i/27 at bit 26-i%27, words 0-1 = u64 0, word 2 = u64 1 (word 3 spare); \
                     ranks read as bytes of the base DBB; files (rr90) and diagonals (rr45, rl45) \
                     each in one u64 of inner squares (63, 49 and 49 bits)",
            needs: &[],
            variant: L::VARIANT,
        }
    }

    fn availability() -> Result<(), String> {
        Ok(())
    }

    fn tables() -> Vec<TableInfo> {
        let compounds = L::compound_infos();
        let (lances_and_dragon, horse) = if L::PRE_COMBINED {
            (compounds[..3].to_vec(), compounds[3..].to_vec())
        } else {
            (Vec::new(), Vec::new())
        };
        let mut tables = vec![
            line_table_info("adbb_rank_attacks"),
            line_table_info("adbb_file_attacks"),
        ];
        tables.extend(lances_and_dragon);
        tables.push(line_table_info("adbb_diag1_attacks"));
        tables.extend(horse);
        tables.push(line_table_info("adbb_diag2_attacks"));
        if !L::PRE_COMBINED {
            tables.extend(compounds);
        }
        tables.extend([
            TableInfo {
                name: "aslide (read word and shifts)",
                shape: "[81] × 8 B".into(),
                bytes: size_of::<[Slide; 81]>(),
            },
            TableInfo {
                name: "square occupancy masks (set/clear)",
                shape: format!("[81] × {} B", size_of::<DbbOccupancy>()),
                bytes: size_of::<[DbbOccupancy; 81]>(),
            },
            square_table_info("king steps", 1),
            square_table_info("gold steps", 2),
            square_table_info("silver steps", 2),
            square_table_info("knight steps", 2),
            square_table_info("pawn steps", 2),
            TableInfo {
                name: "square masks (const)",
                shape: "[81] × 16 B DBB".into(),
                bytes: size_of::<[DbbBitboard; 81]>(),
            },
            TableInfo {
                name: "bit to square (const)",
                shape: "[128] × 1 B".into(),
                bytes: size_of::<[u8; 128]>(),
            },
        ]);
        tables
    }

    fn simd_path() -> &'static str {
        "scalar (u64 halves; no explicit SIMD)"
    }

    fn new() -> Result<Self, String> {
        Ok(DbbOf {
            tables: L::cell()
                .get_or_init(|| kiki_core::table_arena::place("dbb", tables::build::<L>())),
        })
    }

    fn occupancy(&self, canonical: u128) -> DbbOccupancy {
        let mut occupancy = DbbOccupancy::default();
        for sq in Square::all().filter(|sq| canonical & sq.bit() != 0) {
            self.set_square(&mut occupancy, sq);
        }
        occupancy
    }

    #[inline(always)]
    fn set_square(&self, occupancy: &mut DbbOccupancy, sq: Square) {
        let mask = at(&self.tables.square_occupancy, sq);
        occupancy.occupied |= mask.occupied;
        occupancy.occupied_rr90 |= mask.occupied_rr90;
        occupancy.occupied_rr45 |= mask.occupied_rr45;
        occupancy.occupied_rl45 |= mask.occupied_rl45;
    }

    #[inline(always)]
    fn clear_square(&self, occupancy: &mut DbbOccupancy, sq: Square) {
        let mask = at(&self.tables.square_occupancy, sq);
        occupancy.occupied = occupancy.occupied.and_not(mask.occupied);
        occupancy.occupied_rr90 &= !mask.occupied_rr90;
        occupancy.occupied_rr45 &= !mask.occupied_rr45;
        occupancy.occupied_rl45 &= !mask.occupied_rl45;
    }

    #[inline(always)]
    fn occupied(&self, occupancy: &DbbOccupancy) -> DbbBitboard {
        occupancy.occupied
    }

    /// Seed 004's `AttackRook`: `AttackFile | AttackRank`.
    #[inline(always)]
    fn rook_attacks(&self, occupancy: &DbbOccupancy, sq: Square) -> DbbBitboard {
        let file = line_lookup(&self.tables.file_attacks, sq, self.file_byte(occupancy, sq));
        file | self.rank_attacks(occupancy, sq)
    }

    /// Seed 004's `AttackBishop`: `AttackDiag1 | AttackDiag2`.
    #[inline(always)]
    fn bishop_attacks(&self, occupancy: &DbbOccupancy, sq: Square) -> DbbBitboard {
        let diag1 = line_lookup(
            &self.tables.diag1_attacks,
            sq,
            self.diag1_byte(occupancy, sq),
        );
        diag1 | self.diag2_attacks(occupancy, sq)
    }

    /// Seed 004's `AttackBLance` / `AttackWLance`: one lookup in the colour's table (or the
    /// file attacks ∩ the ray).
    #[inline(always)]
    fn lance_attacks(&self, color: Color, occupancy: &DbbOccupancy, sq: Square) -> DbbBitboard {
        L::lance(self.tables, color, sq, self.file_byte(occupancy, sq), None)
    }

    /// Seed 004's `AttackDragon`: `AttackFileKing | AttackRank`.
    #[inline(always)]
    fn dragon_attacks(&self, occupancy: &DbbOccupancy, sq: Square) -> DbbBitboard {
        let file_king = L::file_king(self.tables, sq, self.file_byte(occupancy, sq), None);
        file_king | self.rank_attacks(occupancy, sq)
    }

    /// Seed 004's `AttackHorse`: `AttackDiag1King | AttackDiag2`.
    #[inline(always)]
    fn horse_attacks(&self, occupancy: &DbbOccupancy, sq: Square) -> DbbBitboard {
        let diag1_king = L::diag1_king(self.tables, sq, self.diag1_byte(occupancy, sq), None);
        diag1_king | self.diag2_attacks(occupancy, sq)
    }

    /// Every `[81][256]` line table masked (the lance's, dragon's and horse's pre-combined ones
    /// too); `aslide`, the lance rays and the king steps stay real.
    #[inline(always)]
    fn slider_attacks_masked(
        &self,
        slider: Slider,
        occupancy: &DbbOccupancy,
        sq: Square,
        table_mask: usize,
    ) -> DbbBitboard {
        let tables = self.tables;
        match slider {
            Slider::Rook => {
                let byte = self.file_byte(occupancy, sq);
                line_lookup_masked(&tables.file_attacks, sq, byte, table_mask)
                    | self.rank_attacks_masked(occupancy, sq, table_mask)
            }
            Slider::Bishop => {
                let byte = self.diag1_byte(occupancy, sq);
                line_lookup_masked(&tables.diag1_attacks, sq, byte, table_mask)
                    | self.diag2_attacks_masked(occupancy, sq, table_mask)
            }
            Slider::Lance(color) => {
                let byte = self.file_byte(occupancy, sq);
                L::lance(tables, color, sq, byte, Some(table_mask))
            }
            Slider::Dragon => {
                let byte = self.file_byte(occupancy, sq);
                L::file_king(tables, sq, byte, Some(table_mask))
                    | self.rank_attacks_masked(occupancy, sq, table_mask)
            }
            Slider::Horse => {
                let byte = self.diag1_byte(occupancy, sq);
                L::diag1_king(tables, sq, byte, Some(table_mask))
                    | self.diag2_attacks_masked(occupancy, sq, table_mask)
            }
        }
    }

    /// The eight `[81][256]` line tables (four where the compounds are computed), in
    /// `tables()` order.
    fn attack_table_memory(&self) -> Vec<&'static [u8]> {
        let tables = self.tables;
        let line = |table: &'static LineTable| table_bytes(table.as_flattened());
        let (after_file, after_diag1) = L::compound_memory(tables);
        let mut memory = vec![line(&tables.rank_attacks), line(&tables.file_attacks)];
        memory.extend(after_file);
        memory.push(line(&tables.diag1_attacks));
        memory.extend(after_diag1);
        memory.push(line(&tables.diag2_attacks));
        memory
    }

    /// Two elements for the rook (file, rank), bishop (diag1, diag2), dragon (file-king, rank)
    /// and horse (diag1-king, diag2), one for the lance (its colour's table); table `t` of
    /// `attack_table_memory` starts at `t × size_of::<LineTable>()`.
    fn attack_table_offsets(
        &self,
        slider: Slider,
        occupancy: &DbbOccupancy,
        sq: Square,
        out: &mut Vec<usize>,
    ) {
        // Positions in `attack_table_memory`; with computed compounds the lance and the dragon
        // read the file table, the horse the diag1 table.
        const RANK: usize = 0;
        const FILE: usize = 1;
        let (lance, file_king, diag1, diag1_king, diag2) = if L::PRE_COMBINED {
            (2, 4, 5, 6, 7)
        } else {
            (FILE, FILE, 2, 2, 3)
        };
        let at = |table: usize, byte: u8| {
            table * size_of::<LineTable>() + line_index(sq, byte) * size_of::<DbbBitboard>()
        };
        let rank = || at(RANK, self.rank_byte(occupancy, sq));
        let diag2 = || at(diag2, self.diag2_byte(occupancy, sq));
        match slider {
            Slider::Rook => out.extend([at(FILE, self.file_byte(occupancy, sq)), rank()]),
            Slider::Bishop => out.extend([at(diag1, self.diag1_byte(occupancy, sq)), diag2()]),
            Slider::Lance(color) => {
                let table = if L::PRE_COMBINED {
                    lance + (color.index() & 1)
                } else {
                    lance
                };
                out.push(at(table, self.file_byte(occupancy, sq)));
            }
            Slider::Dragon => out.extend([at(file_king, self.file_byte(occupancy, sq)), rank()]),
            Slider::Horse => {
                out.extend([at(diag1_king, self.diag1_byte(occupancy, sq)), diag2()]);
            }
        }
    }

    #[inline(always)]
    fn king_attacks(&self, sq: Square) -> DbbBitboard {
        *at(&self.tables.king, sq)
    }

    #[inline(always)]
    fn gold_attacks(&self, color: Color, sq: Square) -> DbbBitboard {
        *at(&self.tables.gold[color.index() & 1], sq)
    }

    #[inline(always)]
    fn silver_attacks(&self, color: Color, sq: Square) -> DbbBitboard {
        *at(&self.tables.silver[color.index() & 1], sq)
    }

    #[inline(always)]
    fn knight_attacks(&self, color: Color, sq: Square) -> DbbBitboard {
        *at(&self.tables.knight[color.index() & 1], sq)
    }

    #[inline(always)]
    fn pawn_attacks(&self, color: Color, sq: Square) -> DbbBitboard {
        *at(&self.tables.pawn[color.index() & 1], sq)
    }
}
