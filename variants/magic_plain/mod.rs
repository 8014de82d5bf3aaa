//! The magic table seed 004 priced and rejected: a fixed 14-bit index (shift 50) on every
//! square, four tables (rook, dragon, bishop, horse) of `[81][16384]` 12-byte bitboards,
//! 63,700,992 bytes in all, on the split layout.
//!
//! Rook and dragon share one mask and magic, bishop and horse theirs; the dragon and horse
//! tables hold the king step pre-combined, as the seed's pricing implies. Lance = rook table ∩
//! the lance's one-direction ray. Magics are committed in `magics.rs` (found once by
//! `examples/gen_magics.rs` with a fixed seed); the 60.75 MiB are allocated and filled only
//! when this backend is first used.

mod magics;

use crate::shared::magic_search::{
    magic_index, mask_table, ray_table, render_magics, search_magics, sliding_attacks, step_table,
    subsets, Width, BISHOP_DIRECTIONS, GOLD_STEPS, KING_STEPS, KNIGHT_STEPS, PAWN_STEPS,
    ROOK_DIRECTIONS, SILVER_STEPS,
};
use crate::shared::masked::{masked_index, table_bytes, NoPadding};
use crate::shared::split::SplitBitboard;
use kiki_core::backend::{Backend, BackendInfo, Bitboard, TableInfo};
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

impl PackedBitboard {
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

/// One kind's table: `[81][16384]` packed bitboards (15,925,248 bytes).
type PlainTable = [[PackedBitboard; ENTRIES_PER_SQUARE]; 81];

/// The four tables of the seed's count.
struct PlainTables {
    rook: Box<PlainTable>,
    dragon: Box<PlainTable>,
    bishop: Box<PlainTable>,
    horse: Box<PlainTable>,
}

static TABLES: OnceLock<PlainTables> = OnceLock::new();

static ROOK_MASKS: [SplitBitboard; 81] = mask_table(&ROOK_DIRECTIONS);
static BISHOP_MASKS: [SplitBitboard; 81] = mask_table(&BISHOP_DIRECTIONS);

static KING: [SplitBitboard; 81] = step_table(&KING_STEPS, false);
static GOLD: [[SplitBitboard; 81]; 2] = [
    step_table(&GOLD_STEPS, false),
    step_table(&GOLD_STEPS, true),
];
static SILVER: [[SplitBitboard; 81]; 2] = [
    step_table(&SILVER_STEPS, false),
    step_table(&SILVER_STEPS, true),
];
static KNIGHT: [[SplitBitboard; 81]; 2] = [
    step_table(&KNIGHT_STEPS, false),
    step_table(&KNIGHT_STEPS, true),
];
static PAWN: [[SplitBitboard; 81]; 2] = [
    step_table(&PAWN_STEPS, false),
    step_table(&PAWN_STEPS, true),
];
/// The lance's forward ray on an empty board, per colour (black towards rank 1).
static LANCE_RAYS: [[SplitBitboard; 81]; 2] = [ray_table((0, -1)), ray_table((0, 1))];

fn empty_table() -> Box<PlainTable> {
    vec![[PackedBitboard::EMPTY; ENTRIES_PER_SQUARE]; 81]
        .into_boxed_slice()
        .try_into()
        .expect("81 rows")
}

/// Fills a kind's plain and king-combined tables from the committed magics. A destructive
/// collision would be a wrong committed magic, which the tests rule out, so it is asserted.
fn fill(
    masks: &[SplitBitboard; 81],
    magics: &[u64; 81],
    directions: &[(i8, i8)],
) -> (Box<PlainTable>, Box<PlainTable>) {
    let mut plain = empty_table();
    let mut with_king = empty_table();
    for sq in Square::all() {
        let mut filled = vec![false; ENTRIES_PER_SQUARE];
        for subset in subsets(masks[sq.index()]) {
            let index = magic_index(subset, magics[sq.index()], INDEX_BITS);
            let attacks = sliding_attacks(sq, subset, directions);
            let packed = PackedBitboard::pack(attacks);
            assert!(
                !filled[index] || plain[sq.index()][index] == packed,
                "committed magic for {sq} collides"
            );
            filled[index] = true;
            plain[sq.index()][index] = packed;
            with_king[sq.index()][index] = PackedBitboard::pack(attacks | KING[sq.index()]);
        }
    }
    (plain, with_king)
}

fn build() -> PlainTables {
    let (rook, dragon) = fill(&ROOK_MASKS, &ROOK_MAGICS, &ROOK_DIRECTIONS);
    let (bishop, horse) = fill(&BISHOP_MASKS, &BISHOP_MAGICS, &BISHOP_DIRECTIONS);
    PlainTables {
        rook,
        dragon,
        bishop,
        horse,
    }
}

/// The seed-sized magic backend: a handle onto the four 14-bit tables.
#[derive(Clone, Copy)]
pub struct MagicPlain {
    rook: &'static PlainTable,
    dragon: &'static PlainTable,
    bishop: &'static PlainTable,
    horse: &'static PlainTable,
}

#[inline(always)]
fn lookup(
    table: &PlainTable,
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
/// ANDed with `table_mask >> 4` (12-byte entries, rounded up to 16).
#[inline(always)]
fn lookup_masked(
    table: &PlainTable,
    masks: &[SplitBitboard; 81],
    magics: &[u64; 81],
    occupancy: &SplitBitboard,
    sq: Square,
    table_mask: usize,
) -> SplitBitboard {
    let flat = masked_index::<PackedBitboard>(flat_index(masks, magics, occupancy, sq), table_mask);
    // SAFETY: `sq.index() < 81` and `index < 2^14` (a u64 shifted right by 50), so the unmasked
    // flat index is < 81 × 2^14, the flat length; the masked one is at most the unmasked one.
    unsafe { table.as_flattened().get_unchecked(flat) }.widen()
}

/// A step table lookup.
#[inline(always)]
fn step(table: &[SplitBitboard; 81], sq: Square) -> SplitBitboard {
    // SAFETY: `Square` is always < 81.
    unsafe { *table.get_unchecked(sq.index()) }
}

impl std::fmt::Debug for MagicPlain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MagicPlain")
    }
}

impl Backend for MagicPlain {
    type Bitboard = SplitBitboard;
    type Occupancy = SplitBitboard;

    fn info() -> BackendInfo {
        BackendInfo {
            name: "magic-plain",
            description: "the magic table seed 004 priced: fixed 14-bit index (× magic >> 50) on \
                          every square, rook/dragon/bishop/horse tables [81][16384] × 12 B = 60.75 MiB",
            layout: "split 128-bit: low u64 = files 1–7 (bits 0–62), high u64 = files 8–9 (bits 0–17); \
                     table entries packed to 12 B; occupancy = the split bitboard",
            needs: &[],
        }
    }

    fn availability() -> Result<(), String> {
        Ok(())
    }

    fn tables() -> Vec<TableInfo> {
        let bb = size_of::<SplitBitboard>();
        let packed = size_of::<PackedBitboard>();
        let plain = |name: &'static str| TableInfo {
            name,
            shape: format!("[81][{ENTRIES_PER_SQUARE}] × {packed} B packed bitboard"),
            bytes: size_of::<PlainTable>(),
        };
        let small = |name: &'static str, colours: usize| TableInfo {
            name,
            shape: format!("[{colours}][81] × {bb} B bitboard"),
            bytes: colours * size_of::<[SplitBitboard; 81]>(),
        };
        vec![
            plain("rook_attacks"),
            plain("dragon_attacks"),
            plain("bishop_attacks"),
            plain("horse_attacks"),
            small("rook_masks", 1),
            small("bishop_masks", 1),
            TableInfo {
                name: "rook_magics",
                shape: "[81] × 8 B".into(),
                bytes: size_of::<[u64; 81]>(),
            },
            TableInfo {
                name: "bishop_magics",
                shape: "[81] × 8 B".into(),
                bytes: size_of::<[u64; 81]>(),
            },
            small("lance_rays", 2),
            small("king_steps", 1),
            small("gold_steps", 2),
            small("silver_steps", 2),
            small("knight_steps", 2),
            small("pawn_steps", 2),
        ]
    }

    fn simd_path() -> &'static str {
        "scalar (64-bit multiply, shift 50; no SIMD, so `portable` changes nothing)"
    }

    fn new() -> Result<Self, String> {
        let tables = TABLES.get_or_init(build);
        Ok(MagicPlain {
            rook: &tables.rook,
            dragon: &tables.dragon,
            bishop: &tables.bishop,
            horse: &tables.horse,
        })
    }

    #[inline(always)]
    fn occupancy(&self, canonical: u128) -> SplitBitboard {
        SplitBitboard::from_canonical(canonical)
    }

    #[inline(always)]
    fn set_square(&self, occupancy: &mut SplitBitboard, sq: Square) {
        *occupancy |= SplitBitboard::square(sq);
    }

    #[inline(always)]
    fn clear_square(&self, occupancy: &mut SplitBitboard, sq: Square) {
        *occupancy ^= SplitBitboard::square(sq);
    }

    #[inline(always)]
    fn occupied(&self, occupancy: &SplitBitboard) -> SplitBitboard {
        *occupancy
    }

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
        lookup(self.dragon, &ROOK_MASKS, &ROOK_MAGICS, occupancy, sq)
    }

    #[inline(always)]
    fn horse_attacks(&self, occupancy: &SplitBitboard, sq: Square) -> SplitBitboard {
        lookup(self.horse, &BISHOP_MASKS, &BISHOP_MAGICS, occupancy, sq)
    }

    /// The rook, bishop, dragon and horse tables masked (the lance reads the rook table);
    /// lance rays stay real.
    #[inline(always)]
    fn slider_attacks_masked(
        &self,
        slider: Slider,
        occupancy: &SplitBitboard,
        sq: Square,
        table_mask: usize,
    ) -> SplitBitboard {
        match slider {
            Slider::Rook => lookup_masked(
                self.rook,
                &ROOK_MASKS,
                &ROOK_MAGICS,
                occupancy,
                sq,
                table_mask,
            ),
            Slider::Bishop => lookup_masked(
                self.bishop,
                &BISHOP_MASKS,
                &BISHOP_MAGICS,
                occupancy,
                sq,
                table_mask,
            ),
            Slider::Lance(color) => {
                // SAFETY: `Color::index` is 0 or 1.
                let rays = unsafe { LANCE_RAYS.get_unchecked(color.index()) };
                let rook = lookup_masked(
                    self.rook,
                    &ROOK_MASKS,
                    &ROOK_MAGICS,
                    occupancy,
                    sq,
                    table_mask,
                );
                rook & step(rays, sq)
            }
            Slider::Dragon => lookup_masked(
                self.dragon,
                &ROOK_MASKS,
                &ROOK_MAGICS,
                occupancy,
                sq,
                table_mask,
            ),
            Slider::Horse => lookup_masked(
                self.horse,
                &BISHOP_MASKS,
                &BISHOP_MAGICS,
                occupancy,
                sq,
                table_mask,
            ),
        }
    }

    /// `rook_attacks`, `dragon_attacks`, `bishop_attacks` and `horse_attacks`.
    fn attack_table_memory(&self) -> Vec<&'static [u8]> {
        [self.rook, self.dragon, self.bishop, self.horse]
            .into_iter()
            .map(|table| table_bytes(table.as_flattened()))
            .collect()
    }

    /// One element a lookup, in the rook table (the rook and lance), the dragon table, the
    /// bishop table or the horse table, each `[81 × 16384]` of 12-byte entries.
    fn attack_table_offsets(
        &self,
        slider: Slider,
        occupancy: &SplitBitboard,
        sq: Square,
        out: &mut Vec<usize>,
    ) {
        const TABLE: usize = size_of::<PlainTable>();
        let (base, masks, magics) = match slider {
            Slider::Rook | Slider::Lance(_) => (0, &ROOK_MASKS, &ROOK_MAGICS),
            Slider::Dragon => (TABLE, &ROOK_MASKS, &ROOK_MAGICS),
            Slider::Bishop => (2 * TABLE, &BISHOP_MASKS, &BISHOP_MAGICS),
            Slider::Horse => (3 * TABLE, &BISHOP_MASKS, &BISHOP_MAGICS),
        };
        out.push(base + flat_index(masks, magics, occupancy, sq) * size_of::<PackedBitboard>());
    }

    #[inline(always)]
    fn king_attacks(&self, sq: Square) -> SplitBitboard {
        step(&KING, sq)
    }

    #[inline(always)]
    fn gold_attacks(&self, color: Color, sq: Square) -> SplitBitboard {
        // SAFETY: `Color::index` is 0 or 1.
        step(unsafe { GOLD.get_unchecked(color.index()) }, sq)
    }

    #[inline(always)]
    fn silver_attacks(&self, color: Color, sq: Square) -> SplitBitboard {
        // SAFETY: `Color::index` is 0 or 1.
        step(unsafe { SILVER.get_unchecked(color.index()) }, sq)
    }

    #[inline(always)]
    fn knight_attacks(&self, color: Color, sq: Square) -> SplitBitboard {
        // SAFETY: `Color::index` is 0 or 1.
        step(unsafe { KNIGHT.get_unchecked(color.index()) }, sq)
    }

    #[inline(always)]
    fn pawn_attacks(&self, color: Color, sq: Square) -> SplitBitboard {
        // SAFETY: `Color::index` is 0 or 1.
        step(unsafe { PAWN.get_unchecked(color.index()) }, sq)
    }
}

/// Searches 14-bit magics from `MAGIC_SEED` and renders them as the source of `magics.rs`.
pub fn generate_magics_source() -> String {
    let (_, rook) = search_magics(&ROOK_DIRECTIONS, Width::Fixed(INDEX_BITS), MAGIC_SEED);
    let (_, bishop) = search_magics(&BISHOP_DIRECTIONS, Width::Fixed(INDEX_BITS), MAGIC_SEED);
    format!(
        "//! Committed magic numbers for `magic-plain` (fixed 14-bit index, shift 50).\n\
         //! Generated by `cargo run --release --example gen_magics -- magic-plain > \
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
        assert_eq!(size_of::<PlainTable>(), 81 * 16_384 * 12);
        assert_eq!(4 * size_of::<PlainTable>(), 63_700_992);
        let big: usize = MagicPlain::tables().iter().take(4).map(|t| t.bytes).sum();
        assert_eq!(big, 63_700_992);
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
