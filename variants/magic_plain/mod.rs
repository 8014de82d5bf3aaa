//! The magic table seed 004 priced and rejected: a fixed 14-bit index (shift 50) on every
//! square, four tables (rook, dragon, bishop, horse) of `[81][16384]` 12-byte bitboards,
//! 63,700,992 bytes in all, on the split layout.
//!
//! Rook and dragon share one mask and magic, bishop and horse theirs; the dragon and horse
//! tables hold the king step pre-combined, as the seed's pricing implies. Lance = rook table ∩
//! the lance's one-direction ray. Magics are committed in `magics.rs` (found once by
//! `examples/gen_magics.rs` with a fixed seed); the 60.75 MiB are allocated and filled only
//! when this backend is first used. Its layout variants (`PlainLayout`) change one factor
//! each: 16-byte aligned entries, or two tables with dragon and horse computed at lookup.

mod magics;

use crate::shared::magic_search::{
    magic_index, mask_table, render_magics, search_magics, sliding_attacks, subsets, Width,
    BISHOP_DIRECTIONS, ROOK_DIRECTIONS,
};
use crate::shared::masked::{masked_index, table_bytes, NoPadding};
use crate::shared::split::{SplitBitboard, SplitEntry};
use crate::shared::split_steps::{
    split_occupancy_and_steps, step, step_table_infos, KING, LANCE_RAYS,
};
use kiki_core::backend::{Backend, BackendInfo, LayoutFactor, LayoutVariant, TableInfo};
use kiki_core::table_arena::place;
use kiki_core::types::{Color, Slider, Square};
use std::mem::size_of;
use std::sync::OnceLock;

pub use magics::{BISHOP_MAGICS, ROOK_MAGICS};

/// The fixed seed the committed magics were searched with.
pub const MAGIC_SEED: u64 = 0x6b69_6b69_706c_6169;

/// The index width on every square, as in the seed: 2^14 entries a square.
pub const INDEX_BITS: u32 = 14;
/// `64 - INDEX_BITS`.
pub const SHIFT: u32 = 64 - INDEX_BITS;
const ENTRIES_PER_SQUARE: usize = 1 << INDEX_BITS;

/// A bitboard packed into 12 bytes, the size seed 004 counted: files 1–7 in `low`, files 8–9
/// (18 bits) in `high`. Widened to a `SplitBitboard` on load.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, packed)]
pub struct PackedBitboard {
    low: u64,
    high: u32,
}

impl SplitEntry for PackedBitboard {
    const EMPTY: PackedBitboard = PackedBitboard { low: 0, high: 0 };

    #[inline(always)]
    fn pack(bb: SplitBitboard) -> PackedBitboard {
        PackedBitboard {
            low: bb.low,
            high: bb.high as u32,
        }
    }

    #[inline(always)]
    fn widen(self) -> SplitBitboard {
        SplitBitboard::new(self.low, self.high as u64)
    }
}

// SAFETY: `repr(C, packed)` with a `u64` and a `u32`: 12 bytes, all of them the fields'.
unsafe impl NoPadding for PackedBitboard {}

/// One kind's table: `[81][16384]` entries (15,925,248 bytes at 12 B).
type PlainTable<E> = [[E; ENTRIES_PER_SQUARE]; 81];

/// A table layout of this one implementation: the entry type, and whether dragon and horse
/// read king-combined tables of their own (the seed's four tables) or are computed from the
/// rook and bishop tables and the king step at lookup (two tables).
pub trait PlainLayout: Copy + Send + Sync + 'static {
    type Entry: SplitEntry;
    /// Dragon and horse have pre-combined tables.
    const COMBINED: bool;
    const NAME: &'static str;
    const VARIANT: Option<LayoutVariant>;
    /// This layout's tables, built once per process.
    fn cell() -> &'static OnceLock<PlainTables<Self::Entry>>;
}

/// The seed's layout: four tables of 12-byte packed entries (the base backend).
#[derive(Clone, Copy, Debug)]
pub struct SeedLayout;
/// 16-byte aligned entries, four tables.
#[derive(Clone, Copy, Debug)]
pub struct Entry16;
/// 12-byte entries, two tables: dragon and horse computed at lookup.
#[derive(Clone, Copy, Debug)]
pub struct Computed;

macro_rules! plain_layout {
    ($layout:ty, $entry:ty, $combined:expr, $name:literal, $variant:expr) => {
        impl PlainLayout for $layout {
            type Entry = $entry;
            const COMBINED: bool = $combined;
            const NAME: &'static str = $name;
            const VARIANT: Option<LayoutVariant> = $variant;
            fn cell() -> &'static OnceLock<PlainTables<$entry>> {
                static TABLES: OnceLock<PlainTables<$entry>> = OnceLock::new();
                &TABLES
            }
        }
    };
}

plain_layout!(SeedLayout, PackedBitboard, true, "magic-plain", None);
plain_layout!(
    Entry16,
    SplitBitboard,
    true,
    "magic-plain.entry16",
    Some(LayoutVariant {
        base: "magic-plain",
        factor: LayoutFactor::EntrySize,
        change:
            "16 B aligned entries (a line holds 4) against 12 B packed (5.3 a line, some split \
                 across two lines)",
    })
);
plain_layout!(
    Computed,
    PackedBitboard,
    false,
    "magic-plain.computed",
    Some(LayoutVariant {
        base: "magic-plain",
        factor: LayoutFactor::CompoundTables,
        change: "two tables (rook, bishop); dragon and horse computed as slider ∪ king step at \
                 lookup, against four with dragon and horse pre-combined",
    })
);

/// The seed-sized magic backend on the seed's layout.
pub type MagicPlain = MagicPlainOf<SeedLayout>;
/// `magic-plain.entry16`.
pub type MagicPlainEntry16 = MagicPlainOf<Entry16>;
/// `magic-plain.computed`.
pub type MagicPlainComputed = MagicPlainOf<Computed>;

/// One kind's table while it is filled, on the heap.
type BoxedTable<E> = Box<PlainTable<E>>;
/// One kind's table once built, in the table arena.
type PlacedTable<E> = &'static PlainTable<E>;

/// The tables of one layout: rook and bishop always; dragon and horse where `COMBINED`.
pub struct PlainTables<E: 'static> {
    rook: PlacedTable<E>,
    bishop: PlacedTable<E>,
    /// Dragon and horse.
    king_combined: Option<(PlacedTable<E>, PlacedTable<E>)>,
}

static ROOK_MASKS: [SplitBitboard; 81] = mask_table(&ROOK_DIRECTIONS);
static BISHOP_MASKS: [SplitBitboard; 81] = mask_table(&BISHOP_DIRECTIONS);

fn empty_table<E: SplitEntry>() -> Box<PlainTable<E>> {
    vec![[E::EMPTY; ENTRIES_PER_SQUARE]; 81]
        .into_boxed_slice()
        .try_into()
        .unwrap_or_else(|_| unreachable!("81 rows"))
}

/// Fills a kind's plain table, and its king-combined one when `combined`, from the committed
/// magics. A destructive collision would be a wrong committed magic, which the tests rule
/// out, so it is asserted.
fn fill<E: SplitEntry>(
    masks: &[SplitBitboard; 81],
    magics: &[u64; 81],
    directions: &[(i8, i8)],
    combined: bool,
) -> (BoxedTable<E>, Option<BoxedTable<E>>) {
    let mut plain = empty_table::<E>();
    let mut with_king = combined.then(empty_table::<E>);
    for sq in Square::all() {
        let mut filled = vec![false; ENTRIES_PER_SQUARE];
        for subset in subsets(masks[sq.index()]) {
            let index = magic_index(subset, magics[sq.index()], INDEX_BITS);
            let attacks = sliding_attacks(sq, subset, directions);
            let packed = E::pack(attacks);
            assert!(
                !filled[index] || plain[sq.index()][index] == packed,
                "committed magic for {sq} collides"
            );
            filled[index] = true;
            plain[sq.index()][index] = packed;
            if let Some(with_king) = with_king.as_mut() {
                with_king[sq.index()][index] = E::pack(attacks | KING[sq.index()]);
            }
        }
    }
    (plain, with_king)
}

fn build<E: SplitEntry>(combined: bool) -> PlainTables<E> {
    let (rook, dragon) = fill(&ROOK_MASKS, &ROOK_MAGICS, &ROOK_DIRECTIONS, combined);
    let (bishop, horse) = fill(&BISHOP_MASKS, &BISHOP_MAGICS, &BISHOP_DIRECTIONS, combined);
    PlainTables {
        rook: place("magic-plain", rook),
        bishop: place("magic-plain", bishop),
        king_combined: dragon
            .zip(horse)
            .map(|(dragon, horse)| (place("magic-plain", dragon), place("magic-plain", horse))),
    }
}

/// The seed-sized magic backend on layout `L`: a handle onto its tables. Without combined
/// tables, `dragon` and `horse` point at the rook and bishop tables and are never read as such.
pub struct MagicPlainOf<L: PlainLayout> {
    rook: &'static PlainTable<L::Entry>,
    dragon: &'static PlainTable<L::Entry>,
    bishop: &'static PlainTable<L::Entry>,
    horse: &'static PlainTable<L::Entry>,
}

impl<L: PlainLayout> Clone for MagicPlainOf<L> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<L: PlainLayout> Copy for MagicPlainOf<L> {}

#[inline(always)]
fn lookup<E: SplitEntry>(
    table: &PlainTable<E>,
    masks: &[SplitBitboard; 81],
    magics: &[u64; 81],
    occupancy: &SplitBitboard,
    sq: Square,
) -> SplitBitboard {
    // SAFETY: `Square` is always < 81.
    let (mask, magic, row) = unsafe {
        (
            *masks.get_unchecked(sq.index()),
            *magics.get_unchecked(sq.index()),
            table.get_unchecked(sq.index()),
        )
    };
    let index = ((*occupancy & mask).merged().wrapping_mul(magic) >> SHIFT) as usize;
    // SAFETY: a u64 shifted right by 50 is < 2^14 = the row length.
    unsafe { row.get_unchecked(index) }.widen()
}

/// The index `lookup` reads in the table seen flat (`[81 × 16384]`): `sq × 16384 + index`
/// (shared by the hot twin and the offsets).
#[inline(always)]
fn flat_index(
    masks: &[SplitBitboard; 81],
    magics: &[u64; 81],
    occupancy: &SplitBitboard,
    sq: Square,
) -> usize {
    // SAFETY: `Square` is always < 81.
    let (mask, magic) = unsafe {
        (
            *masks.get_unchecked(sq.index()),
            *magics.get_unchecked(sq.index()),
        )
    };
    let index = ((*occupancy & mask).merged().wrapping_mul(magic) >> SHIFT) as usize;
    sq.index() * ENTRIES_PER_SQUARE + index
}

/// `lookup`'s hot twin: the table seen flat (`[81 × 16384]`), its index `sq × 16384 + index`
/// ANDed with `table_mask >> 4` (12-byte entries rounded up to 16, or 16-byte entries).
#[inline(always)]
fn lookup_masked<E: SplitEntry>(
    table: &PlainTable<E>,
    masks: &[SplitBitboard; 81],
    magics: &[u64; 81],
    occupancy: &SplitBitboard,
    sq: Square,
    table_mask: usize,
) -> SplitBitboard {
    let flat = masked_index::<E>(flat_index(masks, magics, occupancy, sq), table_mask);
    // SAFETY: `sq.index() < 81` and `index < 2^14` (a u64 shifted right by 50), so the unmasked
    // flat index is < 81 × 2^14, the flat length; the masked one is at most the unmasked one.
    unsafe { table.as_flattened().get_unchecked(flat) }.widen()
}

impl<L: PlainLayout> std::fmt::Debug for MagicPlainOf<L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(L::NAME)
    }
}

impl<L: PlainLayout> MagicPlainOf<L> {
    /// The hot twin of the rook (or lance) lookup through `table`, masked with `table_mask`.
    #[inline(always)]
    fn rook_in(
        &self,
        table: &PlainTable<L::Entry>,
        occupancy: &SplitBitboard,
        sq: Square,
        table_mask: usize,
    ) -> SplitBitboard {
        lookup_masked(table, &ROOK_MASKS, &ROOK_MAGICS, occupancy, sq, table_mask)
    }

    #[inline(always)]
    fn bishop_in(
        &self,
        table: &PlainTable<L::Entry>,
        occupancy: &SplitBitboard,
        sq: Square,
        table_mask: usize,
    ) -> SplitBitboard {
        lookup_masked(
            table,
            &BISHOP_MASKS,
            &BISHOP_MAGICS,
            occupancy,
            sq,
            table_mask,
        )
    }
}

impl<L: PlainLayout> Backend for MagicPlainOf<L> {
    type Bitboard = SplitBitboard;
    type Occupancy = SplitBitboard;

    fn info() -> BackendInfo {
        let (description, layout) = if L::VARIANT.is_none() {
            (
                "the magic table seed 004 priced: fixed 14-bit index (× magic >> 50) on every \
                 square, rook/dragon/bishop/horse tables [81][16384] × 12 B = 60.75 MiB",
                "split 128-bit: low u64 = files 1–7 (bits 0–62), high u64 = files 8–9 (bits \
                 0–17); table entries packed to 12 B; occupancy = the split bitboard",
            )
        } else if L::COMBINED {
            (
                "magic-plain with 16 B aligned entries: rook/dragon/bishop/horse tables \
                 [81][16384] × 16 B = 81 MiB",
                "split 128-bit as magic-plain; table entries the 16 B aligned bitboard",
            )
        } else {
            (
                "magic-plain with two tables: rook and bishop [81][16384] × 12 B = 30.4 MiB; \
                 dragon and horse = slider ∪ king step at lookup",
                "split 128-bit as magic-plain; table entries packed to 12 B",
            )
        };
        BackendInfo {
            name: L::NAME,
            description,
            layout,
            needs: &[],
            variant: L::VARIANT,
        }
    }

    fn availability() -> Result<(), String> {
        Ok(())
    }

    fn tables() -> Vec<TableInfo> {
        let bb = size_of::<SplitBitboard>();
        let entry = size_of::<L::Entry>();
        let kind = if entry == bb {
            "aligned bitboard"
        } else {
            "packed bitboard"
        };
        let plain = |name: &'static str| TableInfo {
            name,
            shape: format!("[81][{ENTRIES_PER_SQUARE}] × {entry} B {kind}"),
            bytes: size_of::<PlainTable<L::Entry>>(),
        };
        let masks = |name: &'static str| TableInfo {
            name,
            shape: format!("[81] × {bb} B bitboard"),
            bytes: size_of::<[SplitBitboard; 81]>(),
        };
        let magics = |name: &'static str| TableInfo {
            name,
            shape: "[81] × 8 B".into(),
            bytes: size_of::<[u64; 81]>(),
        };
        let mut tables = vec![plain("rook_attacks")];
        if L::COMBINED {
            tables.push(plain("dragon_attacks"));
        }
        tables.push(plain("bishop_attacks"));
        if L::COMBINED {
            tables.push(plain("horse_attacks"));
        }
        tables.extend([
            masks("rook_masks"),
            masks("bishop_masks"),
            magics("rook_magics"),
            magics("bishop_magics"),
        ]);
        tables.extend(step_table_infos());
        tables
    }

    fn simd_path() -> &'static str {
        "scalar (64-bit multiply, shift 50; no SIMD, so `portable` changes nothing)"
    }

    fn new() -> Result<Self, String> {
        let tables = L::cell().get_or_init(|| build(L::COMBINED));
        let (dragon, horse) = tables.king_combined.unwrap_or((tables.rook, tables.bishop));
        Ok(MagicPlainOf {
            rook: tables.rook,
            dragon,
            bishop: tables.bishop,
            horse,
        })
    }

    split_occupancy_and_steps!();

    #[inline(always)]
    fn rook_attacks(&self, occupancy: &SplitBitboard, sq: Square) -> SplitBitboard {
        lookup(self.rook, &ROOK_MASKS, &ROOK_MAGICS, occupancy, sq)
    }

    #[inline(always)]
    fn bishop_attacks(&self, occupancy: &SplitBitboard, sq: Square) -> SplitBitboard {
        lookup(self.bishop, &BISHOP_MASKS, &BISHOP_MAGICS, occupancy, sq)
    }

    #[inline(always)]
    fn lance_attacks(&self, color: Color, occupancy: &SplitBitboard, sq: Square) -> SplitBitboard {
        // SAFETY: `Color::index` is 0 or 1.
        let rays = unsafe { LANCE_RAYS.get_unchecked(color.index()) };
        self.rook_attacks(occupancy, sq) & step(rays, sq)
    }

    #[inline(always)]
    fn dragon_attacks(&self, occupancy: &SplitBitboard, sq: Square) -> SplitBitboard {
        if L::COMBINED {
            lookup(self.dragon, &ROOK_MASKS, &ROOK_MAGICS, occupancy, sq)
        } else {
            self.rook_attacks(occupancy, sq) | step(&KING, sq)
        }
    }

    #[inline(always)]
    fn horse_attacks(&self, occupancy: &SplitBitboard, sq: Square) -> SplitBitboard {
        if L::COMBINED {
            lookup(self.horse, &BISHOP_MASKS, &BISHOP_MAGICS, occupancy, sq)
        } else {
            self.bishop_attacks(occupancy, sq) | step(&KING, sq)
        }
    }

    /// The rook, bishop, dragon and horse tables masked (the lance reads the rook table; a
    /// computed dragon or horse the rook or bishop table); lance rays and king steps stay real.
    #[inline(always)]
    fn slider_attacks_masked(
        &self,
        slider: Slider,
        occupancy: &SplitBitboard,
        sq: Square,
        table_mask: usize,
    ) -> SplitBitboard {
        match slider {
            Slider::Rook => self.rook_in(self.rook, occupancy, sq, table_mask),
            Slider::Bishop => self.bishop_in(self.bishop, occupancy, sq, table_mask),
            Slider::Lance(color) => {
                // SAFETY: `Color::index` is 0 or 1.
                let rays = unsafe { LANCE_RAYS.get_unchecked(color.index()) };
                self.rook_in(self.rook, occupancy, sq, table_mask) & step(rays, sq)
            }
            Slider::Dragon if L::COMBINED => self.rook_in(self.dragon, occupancy, sq, table_mask),
            Slider::Dragon => self.rook_in(self.rook, occupancy, sq, table_mask) | step(&KING, sq),
            Slider::Horse if L::COMBINED => self.bishop_in(self.horse, occupancy, sq, table_mask),
            Slider::Horse => {
                self.bishop_in(self.bishop, occupancy, sq, table_mask) | step(&KING, sq)
            }
        }
    }

    /// `rook_attacks`, `dragon_attacks`, `bishop_attacks` and `horse_attacks` (the two in the
    /// middle only with combined tables), in `tables()` order.
    fn attack_table_memory(&self) -> Vec<&'static [u8]> {
        let tables: Vec<&'static PlainTable<L::Entry>> = if L::COMBINED {
            vec![self.rook, self.dragon, self.bishop, self.horse]
        } else {
            vec![self.rook, self.bishop]
        };
        tables
            .into_iter()
            .map(|table| table_bytes(table.as_flattened()))
            .collect()
    }

    /// One element a lookup, in the table the lookup reads, each `[81 × 16384]` entries.
    fn attack_table_offsets(
        &self,
        slider: Slider,
        occupancy: &SplitBitboard,
        sq: Square,
        out: &mut Vec<usize>,
    ) {
        let table = size_of::<PlainTable<L::Entry>>();
        // Position of each table in `attack_table_memory`'s order.
        let (slot, masks, magics) = match slider {
            Slider::Rook | Slider::Lance(_) => (0, &ROOK_MASKS, &ROOK_MAGICS),
            Slider::Dragon if L::COMBINED => (1, &ROOK_MASKS, &ROOK_MAGICS),
            Slider::Dragon => (0, &ROOK_MASKS, &ROOK_MAGICS),
            Slider::Bishop if L::COMBINED => (2, &BISHOP_MASKS, &BISHOP_MAGICS),
            Slider::Bishop => (1, &BISHOP_MASKS, &BISHOP_MAGICS),
            Slider::Horse if L::COMBINED => (3, &BISHOP_MASKS, &BISHOP_MAGICS),
            Slider::Horse => (1, &BISHOP_MASKS, &BISHOP_MAGICS),
        };
        let index = flat_index(masks, magics, occupancy, sq);
        out.push(slot * table + index * size_of::<L::Entry>());
    }
}

/// Searches 14-bit magics from `MAGIC_SEED` and renders them as the source of `magics.rs`.
pub fn generate_magics_source() -> String {
    let (_, rook) = search_magics(&ROOK_DIRECTIONS, Width::Fixed(INDEX_BITS), MAGIC_SEED);
    let (_, bishop) = search_magics(&BISHOP_DIRECTIONS, Width::Fixed(INDEX_BITS), MAGIC_SEED);
    format!(
        "//! Committed magic numbers for `magic-plain` (fixed 14-bit index, shift 50).\n\
         //! Generated by `cargo run --release --features probes --example gen_magics -- magic-plain > \
         variants/magic_plain/magics.rs`\n\
         //! from seed {MAGIC_SEED:#x}; do not edit by hand.\n\n{}\n{}",
        render_magics("ROOK_MAGICS", &rook),
        render_magics("BISHOP_MAGICS", &bishop)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shared::magic_search::verify_magic;

    #[test]
    fn table_bytes_match_the_seed() {
        assert_eq!(size_of::<PackedBitboard>(), 12);
        assert_eq!(size_of::<PlainTable<PackedBitboard>>(), 81 * 16_384 * 12);
        assert_eq!(4 * size_of::<PlainTable<PackedBitboard>>(), 63_700_992);
        let big: usize = MagicPlain::tables().iter().take(4).map(|t| t.bytes).sum();
        assert_eq!(big, 63_700_992);
    }

    #[test]
    fn variants_count_their_tables_exactly() {
        let attack_bytes = |tables: Vec<TableInfo>| -> usize {
            tables
                .iter()
                .filter(|t| t.name.ends_with("_attacks"))
                .map(|t| t.bytes)
                .sum()
        };
        assert_eq!(
            attack_bytes(MagicPlainEntry16::tables()),
            4 * 81 * 16_384 * 16
        );
        assert_eq!(
            attack_bytes(MagicPlainComputed::tables()),
            2 * 81 * 16_384 * 12
        );
        let small = MagicPlain::table_bytes() - 63_700_992;
        assert_eq!(MagicPlainComputed::table_bytes(), 31_850_496 + small);
        // The byte views cover exactly the counted attack tables.
        let computed = MagicPlainComputed::new().unwrap();
        let viewed: usize = computed.attack_table_memory().iter().map(|t| t.len()).sum();
        assert_eq!(viewed, 31_850_496);
    }

    #[test]
    fn every_committed_magic_is_collision_free() {
        for sq in Square::all() {
            for (directions, masks, magics) in [
                (&ROOK_DIRECTIONS, &ROOK_MASKS, &ROOK_MAGICS),
                (&BISHOP_DIRECTIONS, &BISHOP_MASKS, &BISHOP_MAGICS),
            ] {
                let attack = |o| sliding_attacks(sq, o, directions);
                let result =
                    verify_magic(masks[sq.index()], INDEX_BITS, magics[sq.index()], attack);
                assert_eq!(result, Ok(()), "square {sq}");
            }
        }
    }

    #[test]
    fn the_generator_reproduces_the_committed_magics() {
        let committed = include_str!("magics.rs");
        assert_eq!(generate_magics_source(), committed);
    }
}
