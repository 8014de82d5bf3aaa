//! Fancy magic bitboards on the split layout: per-square masks, magics and shifts (index width =
//! mask popcount) into one shared attack table per kind, Apery/YaneuraOu style.
//!
//! The magics in `magics.rs` were found once by `examples/gen_magics.rs` (fixed seed) and are
//! committed with each square's index width; the attack tables are filled from them on first
//! use, never searched at start-up. The width is the mask's popcount except on 2i and 6i, where
//! the search (like Apery's, which widens the same two squares) finds no 13-bit magic for the
//! `low | high` fold within its budget and takes 14 bits: 512,000 rook entries instead of the
//! minimal 495,616 (the `pext` backend has the minimal count).
//! Dragon = rook | king step, horse = bishop | king step, lance = rook attacks ∩ the lance's
//! one-direction ray (no lance table). Its layout variant `magic.split-words` (`MagicLayout`)
//! keeps each table's low and high words in two parallel arrays.

mod magics;
mod store;

use crate::shared::magic_search::{
    magic_index, mask_bits, mask_table, render_magics, render_widths, search_magics,
    sliding_attacks, subsets, Width, BISHOP_DIRECTIONS, ROOK_DIRECTIONS,
};
use crate::shared::split::SplitBitboard;
use crate::shared::split_steps::{
    split_occupancy_and_steps, step, step_table_infos, KING, LANCE_RAYS,
};
use kiki_core::backend::{Backend, BackendInfo, LayoutFactor, LayoutVariant, TableInfo};
use kiki_core::types::{Color, Slider, Square};
use std::mem::size_of;
use std::sync::OnceLock;

pub use magics::{BISHOP_BITS, BISHOP_MAGICS, ROOK_BITS, ROOK_MAGICS};
pub use store::{AttackStore, Records, Words};

/// The fixed seed the committed magics were searched with.
pub const MAGIC_SEED: u64 = 0x6b69_6b69_6d61_6769;

/// Seeds (of `CANDIDATES_PER_SEED` candidates each) the generator tries at a square's minimal
/// width before widening it by one bit.
pub const MINIMAL_WIDTH_SEEDS: u64 = 3;

const fn entries(widths: &[u32; 81]) -> usize {
    let mut total = 0;
    let mut i = 0;
    while i < 81 {
        total += 1usize << widths[i];
        i += 1;
    }
    total
}

/// Rook table entries: the sum over squares of 2^width, 12–14 bits a square (512,000).
pub const ROOK_ENTRIES: usize = entries(&ROOK_BITS);
/// Bishop table entries: 6–12 bits a square (20,224).
pub const BISHOP_ENTRIES: usize = entries(&BISHOP_BITS);

/// How one square indexes its kind's shared attack table.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct SquareMagic {
    pub mask: SplitBitboard,
    pub magic: u64,
    /// `64 - bits`.
    pub shift: u32,
    /// Where this square's `2^bits` entries start in the shared table.
    pub offset: u32,
}

const fn square_magics(
    directions: &[(i8, i8)],
    widths: &[u32; 81],
    magics: &[u64; 81],
) -> [SquareMagic; 81] {
    let masks = mask_table(directions);
    let mut table = [SquareMagic {
        mask: SplitBitboard::new(0, 0),
        magic: 0,
        shift: 0,
        offset: 0,
    }; 81];
    let mut offset = 0usize;
    let mut i = 0;
    while i < 81 {
        let bits = widths[i];
        // A width below the popcount would lose information; one above only wastes entries.
        assert!(bits >= mask_bits(masks[i]) && bits <= 14);
        table[i] = SquareMagic {
            mask: masks[i],
            magic: magics[i],
            shift: 64 - bits,
            offset: offset as u32,
        };
        offset += 1 << bits;
        i += 1;
    }
    table
}

static ROOK_SQUARES: [SquareMagic; 81] = square_magics(&ROOK_DIRECTIONS, &ROOK_BITS, &ROOK_MAGICS);
static BISHOP_SQUARES: [SquareMagic; 81] =
    square_magics(&BISHOP_DIRECTIONS, &BISHOP_BITS, &BISHOP_MAGICS);

/// A table layout of this one implementation: how the shared tables hold their entries.
pub trait MagicLayout: Copy + Send + Sync + 'static {
    type Store: AttackStore;
    const NAME: &'static str;
    const VARIANT: Option<LayoutVariant>;
    /// This layout's (rook, bishop) tables, built once per process.
    fn cells() -> &'static (OnceLock<Self::Store>, OnceLock<Self::Store>);
}

/// Today's layout: 16-byte records (the base backend).
#[derive(Clone, Copy, Debug)]
pub struct RecordLayout;
/// The two words of every entry in two parallel arrays.
#[derive(Clone, Copy, Debug)]
pub struct SplitWords;

macro_rules! magic_layout {
    ($layout:ty, $store:ty, $name:literal, $variant:expr) => {
        impl MagicLayout for $layout {
            type Store = $store;
            const NAME: &'static str = $name;
            const VARIANT: Option<LayoutVariant> = $variant;
            fn cells() -> &'static (OnceLock<$store>, OnceLock<$store>) {
                static TABLES: (OnceLock<$store>, OnceLock<$store>) =
                    (OnceLock::new(), OnceLock::new());
                &TABLES
            }
        }
    };
}

magic_layout!(RecordLayout, Records, "magic", None);
magic_layout!(
    SplitWords,
    Words,
    "magic.split-words",
    Some(LayoutVariant {
        base: "magic",
        factor: LayoutFactor::WordSplit,
        change: "each table's low and high words in two parallel u64 arrays (two lines a \
                 lookup) against one array of 16 B entries (one line)",
    })
);

/// Fancy magic on 16-byte records.
pub type Magic = MagicOf<RecordLayout>;
/// `magic.split-words`.
pub type MagicSplitWords = MagicOf<SplitWords>;

/// Fills a shared attack table of `entries` entries from the committed magics; a destructive
/// collision would be a wrong committed magic, which the tests rule out, so it is asserted
/// rather than handled.
fn fill(
    squares: &[SquareMagic; 81],
    directions: &[(i8, i8)],
    entries: usize,
) -> Vec<SplitBitboard> {
    let mut table = vec![SplitBitboard::new(0, 0); entries];
    for sq in Square::all() {
        let entry = &squares[sq.index()];
        let bits = 64 - entry.shift;
        let mut filled = vec![false; 1 << bits];
        for subset in subsets(entry.mask) {
            let index = magic_index(subset, entry.magic, bits);
            let attacks = sliding_attacks(sq, subset, directions);
            let slot = &mut table[entry.offset as usize + index];
            assert!(
                !filled[index] || *slot == attacks,
                "committed magic for {sq} collides"
            );
            filled[index] = true;
            *slot = attacks;
        }
    }
    table
}

/// The fancy magic backend on layout `L`: a handle onto the shared attack tables.
pub struct MagicOf<L: MagicLayout> {
    rook_table: &'static L::Store,
    bishop_table: &'static L::Store,
}

impl<L: MagicLayout> Clone for MagicOf<L> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<L: MagicLayout> Copy for MagicOf<L> {}

impl<L: MagicLayout> MagicOf<L> {
    #[inline(always)]
    fn lookup(
        table: &L::Store,
        squares: &[SquareMagic; 81],
        occupancy: &SplitBitboard,
        sq: Square,
    ) -> SplitBitboard {
        // SAFETY: the product shifted right by 64 - bits is < 2^bits, and each square's
        // 2^bits entries starting at `offset` lie inside the table (offsets are the running
        // sum of 2^bits, which totals the entry count).
        unsafe { table.get(Self::index(squares, occupancy, sq)) }
    }

    /// The element index `lookup` reads (shared by the hot twin and the offsets).
    #[inline(always)]
    fn index(squares: &[SquareMagic; 81], occupancy: &SplitBitboard, sq: Square) -> usize {
        // SAFETY: `Square` is always < 81.
        let entry = unsafe { squares.get_unchecked(sq.index()) };
        let folded = (*occupancy & entry.mask).merged();
        entry.offset as usize + (folded.wrapping_mul(entry.magic) >> entry.shift) as usize
    }

    /// `lookup`'s hot twin: the same index, ANDed with `table_mask >> s` in each array.
    #[inline(always)]
    fn lookup_masked(
        table: &L::Store,
        squares: &[SquareMagic; 81],
        occupancy: &SplitBitboard,
        sq: Square,
        table_mask: usize,
    ) -> SplitBitboard {
        // SAFETY: the index is in bounds as in `lookup`; the store only lowers it.
        unsafe { table.get_masked(Self::index(squares, occupancy, sq), table_mask) }
    }

    #[inline(always)]
    fn rook_masked(
        &self,
        occupancy: &SplitBitboard,
        sq: Square,
        table_mask: usize,
    ) -> SplitBitboard {
        Self::lookup_masked(self.rook_table, &ROOK_SQUARES, occupancy, sq, table_mask)
    }

    #[inline(always)]
    fn bishop_masked(
        &self,
        occupancy: &SplitBitboard,
        sq: Square,
        table_mask: usize,
    ) -> SplitBitboard {
        Self::lookup_masked(
            self.bishop_table,
            &BISHOP_SQUARES,
            occupancy,
            sq,
            table_mask,
        )
    }
}

impl<L: MagicLayout> std::fmt::Debug for MagicOf<L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(L::NAME)
    }
}

impl<L: MagicLayout> Backend for MagicOf<L> {
    type Bitboard = SplitBitboard;
    type Occupancy = SplitBitboard;

    fn info() -> BackendInfo {
        BackendInfo {
            name: L::NAME,
            description: if L::VARIANT.is_none() {
                "fancy magic bitboards: (occ & mask) folded low|high, × magic >> (64 - bits), \
                 12–14 bits a rook square (2i, 6i widened to 14), 6–12 a bishop square, one \
                 shared table per kind"
            } else {
                "magic with each shared table's low and high words in two parallel u64 arrays"
            },
            layout:
                "split 128-bit: low u64 = files 1–7 (bits 0–62), high u64 = files 8–9 (bits 0–17); \
                     occupancy = the split bitboard",
            needs: &[],
            variant: L::VARIANT,
        }
    }

    fn availability() -> Result<(), String> {
        Ok(())
    }

    fn tables() -> Vec<TableInfo> {
        let rook = ("rook_attacks", "rook_attacks_low", "rook_attacks_high");
        let bishop = (
            "bishop_attacks",
            "bishop_attacks_low",
            "bishop_attacks_high",
        );
        let mut tables = L::Store::infos(rook, ROOK_ENTRIES);
        tables.extend(L::Store::infos(bishop, BISHOP_ENTRIES));
        tables.extend([
            TableInfo {
                name: "rook_magics",
                shape: format!(
                    "[81] × {} B (mask, magic, shift, offset)",
                    size_of::<SquareMagic>()
                ),
                bytes: size_of::<[SquareMagic; 81]>(),
            },
            TableInfo {
                name: "bishop_magics",
                shape: format!(
                    "[81] × {} B (mask, magic, shift, offset)",
                    size_of::<SquareMagic>()
                ),
                bytes: size_of::<[SquareMagic; 81]>(),
            },
        ]);
        tables.extend(step_table_infos());
        tables
    }

    fn simd_path() -> &'static str {
        "scalar (64-bit multiply-shift index; no SIMD, so `portable` changes nothing)"
    }

    fn new() -> Result<Self, String> {
        let (rook, bishop) = L::cells();
        Ok(MagicOf {
            rook_table: rook.get_or_init(|| {
                L::Store::from_records(fill(&ROOK_SQUARES, &ROOK_DIRECTIONS, ROOK_ENTRIES))
            }),
            bishop_table: bishop.get_or_init(|| {
                L::Store::from_records(fill(&BISHOP_SQUARES, &BISHOP_DIRECTIONS, BISHOP_ENTRIES))
            }),
        })
    }

    split_occupancy_and_steps!();

    #[inline(always)]
    fn rook_attacks(&self, occupancy: &SplitBitboard, sq: Square) -> SplitBitboard {
        Self::lookup(self.rook_table, &ROOK_SQUARES, occupancy, sq)
    }

    #[inline(always)]
    fn bishop_attacks(&self, occupancy: &SplitBitboard, sq: Square) -> SplitBitboard {
        Self::lookup(self.bishop_table, &BISHOP_SQUARES, occupancy, sq)
    }

    #[inline(always)]
    fn lance_attacks(&self, color: Color, occupancy: &SplitBitboard, sq: Square) -> SplitBitboard {
        // SAFETY: `Color::index` is 0 or 1.
        let rays = unsafe { LANCE_RAYS.get_unchecked(color.index()) };
        self.rook_attacks(occupancy, sq) & step(rays, sq)
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
                self.rook_masked(occupancy, sq, table_mask) & step(rays, sq)
            }
            Slider::Dragon => self.rook_masked(occupancy, sq, table_mask) | step(&KING, sq),
            Slider::Horse => self.bishop_masked(occupancy, sq, table_mask) | step(&KING, sq),
        }
    }

    /// `rook_attacks` and `bishop_attacks` (each as one array, or as its low and high words).
    fn attack_table_memory(&self) -> Vec<&'static [u8]> {
        let mut memory = self.rook_table.memory();
        memory.extend(self.bishop_table.memory());
        memory
    }

    /// One element a lookup (two with split words): the rook table for the rook, lance and
    /// dragon, the bishop table (after the rook table) for the bishop and horse.
    fn attack_table_offsets(
        &self,
        slider: Slider,
        occupancy: &SplitBitboard,
        sq: Square,
        out: &mut Vec<usize>,
    ) {
        match slider {
            Slider::Rook | Slider::Lance(_) | Slider::Dragon => {
                let index = Self::index(&ROOK_SQUARES, occupancy, sq);
                self.rook_table.offsets(index, 0, out);
            }
            Slider::Bishop | Slider::Horse => {
                let rook_bytes = ROOK_ENTRIES * size_of::<SplitBitboard>();
                let index = Self::index(&BISHOP_SQUARES, occupancy, sq);
                self.bishop_table.offsets(index, rook_bytes, out);
            }
        }
    }
}

/// Searches the magics from `MAGIC_SEED` (each square's width is its mask's popcount unless
/// `MINIMAL_WIDTH_SEEDS` seeds find nothing) and renders them as the source of `magics.rs`.
pub fn generate_magics_source() -> String {
    let width = Width::Minimal {
        max_seeds: MINIMAL_WIDTH_SEEDS,
    };
    let (rook_bits, rook) = search_magics(&ROOK_DIRECTIONS, width, MAGIC_SEED);
    let (bishop_bits, bishop) = search_magics(&BISHOP_DIRECTIONS, width, MAGIC_SEED);
    format!(
        "//! Committed fancy magic numbers and index widths for `magic`.\n\
         //! Generated by `cargo run --release --features probes --example gen_magics -- magic > \
         variants/magic/magics.rs`\n\
         //! from seed {MAGIC_SEED:#x}; do not edit by hand.\n\n{}\n{}\n{}\n{}",
        render_widths("ROOK_BITS", &rook_bits),
        render_magics("ROOK_MAGICS", &rook),
        render_widths("BISHOP_BITS", &bishop_bits),
        render_magics("BISHOP_MAGICS", &bishop)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shared::magic_search::{relevant_mask, verify_magic};

    #[test]
    fn entry_counts_and_bytes_are_exact() {
        // Minimal everywhere but 2i and 6i (14 bits instead of 13): 495,616 + 2 × 8,192.
        let widened: Vec<String> = Square::all()
            .filter(|sq| ROOK_BITS[sq.index()] != mask_bits(ROOK_SQUARES[sq.index()].mask))
            .map(|sq| sq.to_string())
            .collect();
        assert_eq!(widened, ["2i", "6i"]);
        assert!((0..81).all(|i| BISHOP_BITS[i] == mask_bits(BISHOP_SQUARES[i].mask)));
        assert_eq!(ROOK_ENTRIES, 512_000);
        assert_eq!(BISHOP_ENTRIES, 20_224);
        for tables in [Magic::tables(), MagicSplitWords::tables()] {
            let bytes = |kind: &str| -> usize {
                tables
                    .iter()
                    .filter(|t| t.name.starts_with(kind))
                    .map(|t| t.bytes)
                    .sum()
            };
            assert_eq!(bytes("rook_attacks"), 512_000 * 16);
            assert_eq!(bytes("bishop_attacks"), 20_224 * 16);
        }
        assert_eq!(Magic::table_bytes(), MagicSplitWords::table_bytes());
        let last = &ROOK_SQUARES[80];
        assert_eq!(
            last.offset as usize + (1 << (64 - last.shift)),
            ROOK_ENTRIES
        );
        let last = &BISHOP_SQUARES[80];
        assert_eq!(
            last.offset as usize + (1 << (64 - last.shift)),
            BISHOP_ENTRIES
        );
    }

    #[test]
    fn every_committed_magic_is_collision_free() {
        for sq in Square::all() {
            for (directions, widths, magics) in [
                (&ROOK_DIRECTIONS, &ROOK_BITS, &ROOK_MAGICS),
                (&BISHOP_DIRECTIONS, &BISHOP_BITS, &BISHOP_MAGICS),
            ] {
                let mask = relevant_mask(sq, directions);
                let attack = |o| sliding_attacks(sq, o, directions);
                let result = verify_magic(mask, widths[sq.index()], magics[sq.index()], attack);
                assert_eq!(result, Ok(()), "square {sq}");
            }
        }
    }

    #[test]
    #[ignore = "re-runs the whole magic search (seconds to minutes); run with --ignored"]
    fn the_generator_reproduces_the_committed_magics() {
        let committed = include_str!("magics.rs");
        assert_eq!(generate_magics_source(), committed);
    }
}
