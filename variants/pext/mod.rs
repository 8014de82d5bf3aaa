//! PEXT bitboards on the split layout: BMI2 `pext((occ & mask).low | (occ & mask).high, mask)`
//! indexes minimal per-square tables (2^popcount(mask) entries a square, one shared table per
//! kind).
//!
//! There is no portable twin: emulating `pext` in software would measure something else, so a
//! CPU without BMI2 gets `availability() == Err` and `new()` fails. The `portable` feature
//! therefore does not change this backend (`magic` is its portable counterpart, same layout and
//! folding). Built with `target_feature = "bmi2"` (the default x86-64-v3 build) the intrinsic is
//! inlined; otherwise `new()` checks the CPU at run time and lookups call a
//! `#[target_feature(enable = "bmi2")]` function. Dragon = rook | king step, horse = bishop |
//! king step, lance = rook attacks ∩ the lance's one-direction ray. Its layout variant
//! `pext.file-rank` (`PextLayout`) builds the rook attack from a file table and a rank table.

use crate::shared::magic_search::{
    mask_bits, mask_table, minimal_entries, sliding_attacks, subsets, BISHOP_DIRECTIONS,
    ROOK_DIRECTIONS,
};
use crate::shared::masked::{masked_index, table_bytes};
use crate::shared::split::SplitBitboard;
use crate::shared::split_steps::{
    split_occupancy_and_steps, step, step_table_infos, KING, LANCE_RAYS,
};
use kiki_core::backend::{Backend, BackendInfo, LayoutFactor, LayoutVariant, TableInfo};
use kiki_core::table_arena::place;
use kiki_core::types::{Color, Slider, Square};
use std::mem::size_of;
use std::sync::OnceLock;

/// Rook table entries: the sum over squares of 2^popcount(mask) (495,616).
pub const ROOK_ENTRIES: usize = minimal_entries(&ROOK_DIRECTIONS);
/// Bishop table entries (20,224).
pub const BISHOP_ENTRIES: usize = minimal_entries(&BISHOP_DIRECTIONS);
/// The file's two directions and the rank's: the rook's, split by line.
const FILE_DIRECTIONS: [(i8, i8); 2] = [(0, -1), (0, 1)];
const RANK_DIRECTIONS: [(i8, i8); 2] = [(-1, 0), (1, 0)];
/// File table entries of `pext.file-rank` (6,336: 2^6 or 2^7 a square).
pub const FILE_ENTRIES: usize = minimal_entries(&FILE_DIRECTIONS);
/// Rank table entries of `pext.file-rank` (6,336).
pub const RANK_ENTRIES: usize = minimal_entries(&RANK_DIRECTIONS);

/// How one square indexes its kind's shared attack table.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct SquarePext {
    /// The relevant-occupancy mask, applied per word before folding (a bit of one word can sit
    /// where the other word's mask has a bit).
    pub mask: SplitBitboard,
    /// `mask.low | mask.high`: the `pext` selector.
    pub folded_mask: u64,
    /// Where this square's entries start in the shared table.
    pub offset: u64,
}

const fn square_pexts(directions: &[(i8, i8)]) -> [SquarePext; 81] {
    let masks = mask_table(directions);
    let mut table = [SquarePext {
        mask: SplitBitboard::new(0, 0),
        folded_mask: 0,
        offset: 0,
    }; 81];
    let mut offset = 0usize;
    let mut i = 0;
    while i < 81 {
        table[i] = SquarePext {
            mask: masks[i],
            folded_mask: masks[i].merged(),
            offset: offset as u64,
        };
        offset += 1 << mask_bits(masks[i]);
        i += 1;
    }
    table
}

static ROOK_SQUARES: [SquarePext; 81] = square_pexts(&ROOK_DIRECTIONS);
static BISHOP_SQUARES: [SquarePext; 81] = square_pexts(&BISHOP_DIRECTIONS);
static FILE_SQUARES: [SquarePext; 81] = square_pexts(&FILE_DIRECTIONS);
static RANK_SQUARES: [SquarePext; 81] = square_pexts(&RANK_DIRECTIONS);

type RookTable = [SplitBitboard; ROOK_ENTRIES];
type BishopTable = [SplitBitboard; BISHOP_ENTRIES];
type FileTable = [SplitBitboard; FILE_ENTRIES];
type RankTable = [SplitBitboard; RANK_ENTRIES];

static ROOK_TABLE: OnceLock<&'static RookTable> = OnceLock::new();
static BISHOP_TABLE: OnceLock<&'static BishopTable> = OnceLock::new();
static FILE_TABLE: OnceLock<&'static FileTable> = OnceLock::new();
static RANK_TABLE: OnceLock<&'static RankTable> = OnceLock::new();

/// A table layout of this one implementation: the rook's one minimal table, or a file table
/// and a rank table whose union is the rook attack.
pub trait PextLayout: Copy + Send + Sync + 'static {
    /// The rook from a file and a rank lookup.
    const LINE_SPLIT: bool;
    const NAME: &'static str;
    const VARIANT: Option<LayoutVariant>;
}

/// One minimal rook table (the base backend).
#[derive(Clone, Copy, Debug)]
pub struct OneRookTable;
/// A file table and a rank table.
#[derive(Clone, Copy, Debug)]
pub struct FileRank;

impl PextLayout for OneRookTable {
    const LINE_SPLIT: bool = false;
    const NAME: &'static str = "pext";
    const VARIANT: Option<LayoutVariant> = None;
}

impl PextLayout for FileRank {
    const LINE_SPLIT: bool = true;
    const NAME: &'static str = "pext.file-rank";
    const VARIANT: Option<LayoutVariant> = Some(LayoutVariant {
        base: "pext",
        factor: LayoutFactor::LineSplit,
        change: "the rook attack as a file lookup ∪ a rank lookup (two minimal tables, 198 KiB) \
                 against one minimal rook table (7.56 MiB); the lance reads the file table",
    });
}

/// PEXT with one rook table.
pub type Pext = PextOf<OneRookTable>;
/// `pext.file-rank`.
pub type PextFileRank = PextOf<FileRank>;

/// Fills a shared table. `subsets` yields a mask's subsets in order of their compressed
/// index, so the n-th subset is the entry `pext` selects as n: no software pext is needed.
fn fill<const N: usize>(
    squares: &[SquarePext; 81],
    directions: &[(i8, i8)],
) -> Box<[SplitBitboard; N]> {
    let mut table: Box<[SplitBitboard; N]> = vec![SplitBitboard::new(0, 0); N]
        .into_boxed_slice()
        .try_into()
        .unwrap_or_else(|_| unreachable!("length N"));
    for sq in Square::all() {
        let entry = &squares[sq.index()];
        for (index, subset) in subsets(entry.mask).enumerate() {
            table[entry.offset as usize + index] = sliding_attacks(sq, subset, directions);
        }
    }
    table
}

/// Proof that this CPU has BMI2, held by every `Pext` handle: only `new()` makes one, after
/// checking. Off x86-64 it is uninhabited, so no handle can exist there.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
struct Bmi2(());

#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy, Debug)]
enum Bmi2 {}

impl Bmi2 {
    fn detect() -> Result<Bmi2, String> {
        #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
        {
            Ok(Bmi2(()))
        }
        #[cfg(all(target_arch = "x86_64", not(target_feature = "bmi2")))]
        {
            if std::arch::is_x86_feature_detected!("bmi2") {
                Ok(Bmi2(()))
            } else {
                Err("CPU lacks BMI2 (pext)".to_string())
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Err("CPU lacks BMI2 (pext)".to_string())
        }
    }

    /// `pext(value, mask)`: the bits of `value` selected by `mask`, packed to the bottom.
    #[inline(always)]
    fn pext(self, value: u64, mask: u64) -> u64 {
        #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
        {
            // SAFETY: this build enables BMI2 for every function.
            unsafe { std::arch::x86_64::_pext_u64(value, mask) }
        }
        #[cfg(all(target_arch = "x86_64", not(target_feature = "bmi2")))]
        {
            // SAFETY: `self` exists only if `detect` found BMI2 on this CPU.
            unsafe { pext_dispatched(value, mask) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (value, mask);
            match self {}
        }
    }
}

/// The run-time dispatched `pext`, for builds without BMI2 enabled at compile time.
#[cfg(all(target_arch = "x86_64", not(target_feature = "bmi2")))]
#[target_feature(enable = "bmi2")]
fn pext_dispatched(value: u64, mask: u64) -> u64 {
    std::arch::x86_64::_pext_u64(value, mask)
}

/// The PEXT backend on layout `L`: a handle onto the shared attack tables. With
/// `LINE_SPLIT`, `rook_table` is empty and never read; without, `file_table` and `rank_table`.
pub struct PextOf<L: PextLayout> {
    rook_table: &'static [SplitBitboard],
    file_table: &'static [SplitBitboard],
    rank_table: &'static [SplitBitboard],
    bishop_table: &'static BishopTable,
    bmi2: Bmi2,
    layout: std::marker::PhantomData<L>,
}

impl<L: PextLayout> Clone for PextOf<L> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<L: PextLayout> Copy for PextOf<L> {}

impl<L: PextLayout> std::fmt::Debug for PextOf<L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(L::NAME)
    }
}

impl<L: PextLayout> PextOf<L> {
    #[inline(always)]
    fn lookup(
        self,
        table: &[SplitBitboard],
        squares: &[SquarePext; 81],
        occupancy: &SplitBitboard,
        sq: Square,
    ) -> SplitBitboard {
        // SAFETY: `Square` is always < 81.
        let entry = unsafe { squares.get_unchecked(sq.index()) };
        let folded = (*occupancy & entry.mask).merged();
        let index = entry.offset as usize + self.bmi2.pext(folded, entry.folded_mask) as usize;
        // SAFETY: pext over a mask of `bits` bits is < 2^bits, and each square's 2^bits entries
        // starting at `offset` lie inside the table (offsets are the running sum, totalling N).
        unsafe { *table.get_unchecked(index) }
    }

    /// The element index `lookup` reads (shared by the hot twin and the offsets).
    #[inline(always)]
    fn index(self, squares: &[SquarePext; 81], occupancy: &SplitBitboard, sq: Square) -> usize {
        // SAFETY: `Square` is always < 81.
        let entry = unsafe { squares.get_unchecked(sq.index()) };
        let folded = (*occupancy & entry.mask).merged();
        entry.offset as usize + self.bmi2.pext(folded, entry.folded_mask) as usize
    }

    /// `lookup`'s hot twin: the same index, ANDed with `table_mask >> 4` (16-byte entries).
    #[inline(always)]
    fn lookup_masked(
        self,
        table: &[SplitBitboard],
        squares: &[SquarePext; 81],
        occupancy: &SplitBitboard,
        sq: Square,
        table_mask: usize,
    ) -> SplitBitboard {
        let index = masked_index::<SplitBitboard>(self.index(squares, occupancy, sq), table_mask);
        // SAFETY: the masked index is at most the unmasked one (the AND only clears bits), which
        // is < N as in `lookup`.
        unsafe { *table.get_unchecked(index) }
    }

    #[inline(always)]
    fn rook_masked(
        self,
        occupancy: &SplitBitboard,
        sq: Square,
        table_mask: usize,
    ) -> SplitBitboard {
        if L::LINE_SPLIT {
            self.file_masked(occupancy, sq, table_mask)
                | self.lookup_masked(self.rank_table, &RANK_SQUARES, occupancy, sq, table_mask)
        } else {
            self.lookup_masked(self.rook_table, &ROOK_SQUARES, occupancy, sq, table_mask)
        }
    }

    /// The file lookup's hot twin (line-split layout only).
    #[inline(always)]
    fn file_masked(
        self,
        occupancy: &SplitBitboard,
        sq: Square,
        table_mask: usize,
    ) -> SplitBitboard {
        self.lookup_masked(self.file_table, &FILE_SQUARES, occupancy, sq, table_mask)
    }

    /// The lance's lookup: the rook attack, or with split lines the file attack alone.
    #[inline(always)]
    fn lance_line(self, occupancy: &SplitBitboard, sq: Square, table_mask: usize) -> SplitBitboard {
        if L::LINE_SPLIT {
            self.file_masked(occupancy, sq, table_mask)
        } else {
            self.rook_masked(occupancy, sq, table_mask)
        }
    }

    #[inline(always)]
    fn bishop_masked(
        self,
        occupancy: &SplitBitboard,
        sq: Square,
        table_mask: usize,
    ) -> SplitBitboard {
        self.lookup_masked(
            self.bishop_table,
            &BISHOP_SQUARES,
            occupancy,
            sq,
            table_mask,
        )
    }
}

impl<L: PextLayout> Backend for PextOf<L> {
    type Bitboard = SplitBitboard;
    type Occupancy = SplitBitboard;

    fn info() -> BackendInfo {
        BackendInfo {
            name: L::NAME,
            description: if L::LINE_SPLIT {
                "pext with the rook attack from a file table and a rank table (minimal, \
                 2^popcount(mask) entries a square each)"
            } else {
                "BMI2 pext of the folded occupancy (low | high) into minimal tables \
                 (2^popcount(mask) entries a square); pext is microcoded and slow on AMD Zen 1/2"
            },
            layout:
                "split 128-bit: low u64 = files 1–7 (bits 0–62), high u64 = files 8–9 (bits 0–17); \
                     occupancy = the split bitboard",
            needs: &["bmi2"],
            variant: L::VARIANT,
        }
    }

    fn availability() -> Result<(), String> {
        Bmi2::detect().map(|_| ())
    }

    fn tables() -> Vec<TableInfo> {
        let bb = size_of::<SplitBitboard>();
        let per_square = format!(
            "[81] × {} B (mask, folded mask, offset)",
            size_of::<SquarePext>()
        );
        let shared = |name: &'static str, entries: usize| TableInfo {
            name,
            shape: format!("[{entries}] × {bb} B bitboard (shared, per-square offsets)"),
            bytes: entries * bb,
        };
        let masks = |name: &'static str| TableInfo {
            name,
            shape: per_square.clone(),
            bytes: size_of::<[SquarePext; 81]>(),
        };
        let mut tables = if L::LINE_SPLIT {
            vec![
                shared("file_attacks", FILE_ENTRIES),
                shared("rank_attacks", RANK_ENTRIES),
            ]
        } else {
            vec![shared("rook_attacks", ROOK_ENTRIES)]
        };
        tables.push(shared("bishop_attacks", BISHOP_ENTRIES));
        if L::LINE_SPLIT {
            tables.extend([masks("file_masks"), masks("rank_masks")]);
        } else {
            tables.push(masks("rook_masks"));
        }
        tables.push(masks("bishop_masks"));
        tables.extend([]);
        tables.extend(step_table_infos());
        tables
    }

    fn simd_path() -> &'static str {
        #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
        {
            "bmi2 (compiled in; `portable` does not change it)"
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
        {
            if Bmi2::detect().is_ok() {
                "bmi2 (run-time dispatched)"
            } else {
                "unavailable: CPU lacks BMI2 (pext)"
            }
        }
    }

    fn new() -> Result<Self, String> {
        let bmi2 = Bmi2::detect()?;
        let (rook_table, file_table, rank_table): (&[_], &[_], &[_]) = if L::LINE_SPLIT {
            (
                &[],
                *FILE_TABLE.get_or_init(|| place("pext", fill(&FILE_SQUARES, &FILE_DIRECTIONS))),
                *RANK_TABLE.get_or_init(|| place("pext", fill(&RANK_SQUARES, &RANK_DIRECTIONS))),
            )
        } else {
            let rook =
                ROOK_TABLE.get_or_init(|| place("pext", fill(&ROOK_SQUARES, &ROOK_DIRECTIONS)));
            (*rook, &[], &[])
        };
        Ok(PextOf {
            rook_table,
            file_table,
            rank_table,
            bishop_table: BISHOP_TABLE
                .get_or_init(|| place("pext", fill(&BISHOP_SQUARES, &BISHOP_DIRECTIONS))),
            bmi2,
            layout: std::marker::PhantomData,
        })
    }

    split_occupancy_and_steps!();

    #[inline(always)]
    fn rook_attacks(&self, occupancy: &SplitBitboard, sq: Square) -> SplitBitboard {
        if L::LINE_SPLIT {
            self.lookup(self.file_table, &FILE_SQUARES, occupancy, sq)
                | self.lookup(self.rank_table, &RANK_SQUARES, occupancy, sq)
        } else {
            self.lookup(self.rook_table, &ROOK_SQUARES, occupancy, sq)
        }
    }

    #[inline(always)]
    fn bishop_attacks(&self, occupancy: &SplitBitboard, sq: Square) -> SplitBitboard {
        self.lookup(self.bishop_table, &BISHOP_SQUARES, occupancy, sq)
    }

    #[inline(always)]
    fn lance_attacks(&self, color: Color, occupancy: &SplitBitboard, sq: Square) -> SplitBitboard {
        // SAFETY: `Color::index` is 0 or 1.
        let rays = unsafe { LANCE_RAYS.get_unchecked(color.index()) };
        let line = if L::LINE_SPLIT {
            self.lookup(self.file_table, &FILE_SQUARES, occupancy, sq)
        } else {
            self.rook_attacks(occupancy, sq)
        };
        line & step(rays, sq)
    }

    #[inline(always)]
    fn dragon_attacks(&self, occupancy: &SplitBitboard, sq: Square) -> SplitBitboard {
        self.rook_attacks(occupancy, sq) | step(&KING, sq)
    }

    #[inline(always)]
    fn horse_attacks(&self, occupancy: &SplitBitboard, sq: Square) -> SplitBitboard {
        self.bishop_attacks(occupancy, sq) | step(&KING, sq)
    }

    /// The rook and bishop tables masked; lance rays and king steps stay real.
    #[inline(always)]
    fn slider_attacks_masked(
        &self,
        slider: Slider,
        occupancy: &SplitBitboard,
        sq: Square,
        table_mask: usize,
    ) -> SplitBitboard {
        match slider {
            Slider::Rook => self.rook_masked(occupancy, sq, table_mask),
            Slider::Bishop => self.bishop_masked(occupancy, sq, table_mask),
            Slider::Lance(color) => {
                // SAFETY: `Color::index` is 0 or 1.
                let rays = unsafe { LANCE_RAYS.get_unchecked(color.index()) };
                self.lance_line(occupancy, sq, table_mask) & step(rays, sq)
            }
            Slider::Dragon => self.rook_masked(occupancy, sq, table_mask) | step(&KING, sq),
            Slider::Horse => self.bishop_masked(occupancy, sq, table_mask) | step(&KING, sq),
        }
    }

    /// `rook_attacks` (or `file_attacks` and `rank_attacks`) and `bishop_attacks`.
    fn attack_table_memory(&self) -> Vec<&'static [u8]> {
        let mut memory = if L::LINE_SPLIT {
            vec![table_bytes(self.file_table), table_bytes(self.rank_table)]
        } else {
            vec![table_bytes(self.rook_table)]
        };
        memory.push(table_bytes(self.bishop_table));
        memory
    }

    /// One element a lookup: the rook table for the rook, lance and dragon, the bishop table
    /// (after the rook table) for the bishop and horse; with split lines, the file and the
    /// rank table for the rook and dragon, the file table for the lance.
    fn attack_table_offsets(
        &self,
        slider: Slider,
        occupancy: &SplitBitboard,
        sq: Square,
        out: &mut Vec<usize>,
    ) {
        const ELEMENT: usize = size_of::<SplitBitboard>();
        let bishop_base = if L::LINE_SPLIT {
            size_of::<FileTable>() + size_of::<RankTable>()
        } else {
            size_of::<RookTable>()
        };
        let file = || self.index(&FILE_SQUARES, occupancy, sq) * ELEMENT;
        let rank = || size_of::<FileTable>() + self.index(&RANK_SQUARES, occupancy, sq) * ELEMENT;
        match slider {
            Slider::Rook | Slider::Dragon if L::LINE_SPLIT => out.extend([file(), rank()]),
            Slider::Lance(_) if L::LINE_SPLIT => out.push(file()),
            Slider::Rook | Slider::Lance(_) | Slider::Dragon => {
                out.push(self.index(&ROOK_SQUARES, occupancy, sq) * ELEMENT);
            }
            Slider::Bishop | Slider::Horse => {
                out.push(bishop_base + self.index(&BISHOP_SQUARES, occupancy, sq) * ELEMENT);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_rank_tables_are_minimal_and_their_fold_is_collision_free() {
        // 2^7 entries on the 18 squares of a line's end, 2^6 on the others, per line kind.
        assert_eq!(FILE_ENTRIES, 18 * 128 + 63 * 64);
        assert_eq!(RANK_ENTRIES, 18 * 128 + 63 * 64);
        assert_eq!(size_of::<FileTable>() + size_of::<RankTable>(), 202_752);
        for squares in [&FILE_SQUARES, &RANK_SQUARES] {
            assert!(squares
                .iter()
                .all(|s| crate::shared::magic_search::fold_is_collision_free(s.mask)));
        }
        let split: usize = PextFileRank::tables()
            .iter()
            .filter(|t| t.name.ends_with("_attacks"))
            .map(|t| t.bytes)
            .sum();
        assert_eq!(split, 202_752 + size_of::<BishopTable>());
    }

    #[test]
    fn entry_counts_and_bytes_are_exact() {
        assert_eq!(ROOK_ENTRIES, 495_616);
        assert_eq!(BISHOP_ENTRIES, 20_224);
        assert_eq!(size_of::<RookTable>() + size_of::<BishopTable>(), 8_253_440);
        let last = &ROOK_SQUARES[80];
        assert_eq!(
            last.offset as usize + (1 << mask_bits(last.mask)),
            ROOK_ENTRIES
        );
        let last = &BISHOP_SQUARES[80];
        assert_eq!(
            last.offset as usize + (1 << mask_bits(last.mask)),
            BISHOP_ENTRIES
        );
    }

    #[test]
    fn simd_path_names_the_build() {
        let path = Pext::simd_path();
        if cfg!(all(target_arch = "x86_64", target_feature = "bmi2")) {
            assert!(path.starts_with("bmi2 (compiled in"), "{path}");
        } else if Pext::availability().is_ok() {
            assert_eq!(path, "bmi2 (run-time dispatched)");
        } else {
            assert_eq!(path, "unavailable: CPU lacks BMI2 (pext)");
        }
    }

    #[test]
    fn unavailable_only_without_bmi2() {
        #[cfg(target_arch = "x86_64")]
        assert_eq!(
            Pext::availability().is_ok(),
            std::arch::is_x86_feature_detected!("bmi2")
        );
        assert_eq!(Pext::new().is_ok(), Pext::availability().is_ok());
    }
}
