//! What the split-layout backends (`magic`, `magic-plain`, `pext` and their layout variants)
//! share beyond the bitboard: the occupancy (the split bitboard itself), the step tables, the
//! lance rays, and the `Backend` methods that read them.

use crate::shared::magic_search::{
    ray_table, step_table, GOLD_STEPS, KING_STEPS, KNIGHT_STEPS, PAWN_STEPS, SILVER_STEPS,
};
use crate::shared::split::SplitBitboard;
use kiki_core::backend::TableInfo;
use kiki_core::types::{Color, Square};
use std::mem::size_of;

pub static KING: [SplitBitboard; 81] = step_table(&KING_STEPS, false);
pub static GOLD: [[SplitBitboard; 81]; 2] = [
    step_table(&GOLD_STEPS, false),
    step_table(&GOLD_STEPS, true),
];
pub static SILVER: [[SplitBitboard; 81]; 2] = [
    step_table(&SILVER_STEPS, false),
    step_table(&SILVER_STEPS, true),
];
pub static KNIGHT: [[SplitBitboard; 81]; 2] = [
    step_table(&KNIGHT_STEPS, false),
    step_table(&KNIGHT_STEPS, true),
];
pub static PAWN: [[SplitBitboard; 81]; 2] = [
    step_table(&PAWN_STEPS, false),
    step_table(&PAWN_STEPS, true),
];
/// The lance's forward ray on an empty board, per colour (black towards rank 1).
pub static LANCE_RAYS: [[SplitBitboard; 81]; 2] = [ray_table((0, -1)), ray_table((0, 1))];

/// A per-square table lookup.
#[inline(always)]
pub fn step(table: &[SplitBitboard; 81], sq: Square) -> SplitBitboard {
    // SAFETY: `Square` is always < 81.
    unsafe { *table.get_unchecked(sq.index()) }
}

/// A `[colour][square]` table lookup.
#[inline(always)]
pub fn by_color(table: &[[SplitBitboard; 81]; 2], color: Color, sq: Square) -> SplitBitboard {
    // SAFETY: `Color::index` is 0 or 1.
    step(unsafe { table.get_unchecked(color.index()) }, sq)
}

/// The step tables and lance rays as `kiki backends` lists them (after the sliding tables).
pub fn step_table_infos() -> Vec<TableInfo> {
    let bb = size_of::<SplitBitboard>();
    let steps = |name: &'static str, colours: usize| TableInfo {
        name,
        shape: format!("[{colours}][81] × {bb} B bitboard"),
        bytes: colours * size_of::<[SplitBitboard; 81]>(),
    };
    vec![
        steps("lance_rays", 2),
        steps("king_steps", 1),
        steps("gold_steps", 2),
        steps("silver_steps", 2),
        steps("knight_steps", 2),
        steps("pawn_steps", 2),
    ]
}

/// Expands, inside an `impl Backend` whose bitboard and occupancy are `SplitBitboard`, the
/// methods every split-layout backend shares: the occupancy and the step attacks.
macro_rules! split_occupancy_and_steps {
    () => {
        #[inline(always)]
        fn occupancy(&self, canonical: u128) -> SplitBitboard {
            <SplitBitboard as kiki_core::backend::Bitboard>::from_canonical(canonical)
        }

        #[inline(always)]
        fn set_square(&self, occupancy: &mut SplitBitboard, sq: Square) {
            *occupancy |= <SplitBitboard as kiki_core::backend::Bitboard>::square(sq);
        }

        #[inline(always)]
        fn clear_square(&self, occupancy: &mut SplitBitboard, sq: Square) {
            *occupancy ^= <SplitBitboard as kiki_core::backend::Bitboard>::square(sq);
        }

        #[inline(always)]
        fn occupied(&self, occupancy: &SplitBitboard) -> SplitBitboard {
            *occupancy
        }

        #[inline(always)]
        fn king_attacks(&self, sq: Square) -> SplitBitboard {
            $crate::shared::split_steps::step(&$crate::shared::split_steps::KING, sq)
        }

        #[inline(always)]
        fn gold_attacks(&self, color: Color, sq: Square) -> SplitBitboard {
            $crate::shared::split_steps::by_color(&$crate::shared::split_steps::GOLD, color, sq)
        }

        #[inline(always)]
        fn silver_attacks(&self, color: Color, sq: Square) -> SplitBitboard {
            $crate::shared::split_steps::by_color(&$crate::shared::split_steps::SILVER, color, sq)
        }

        #[inline(always)]
        fn knight_attacks(&self, color: Color, sq: Square) -> SplitBitboard {
            $crate::shared::split_steps::by_color(&$crate::shared::split_steps::KNIGHT, color, sq)
        }

        #[inline(always)]
        fn pawn_attacks(&self, color: Color, sq: Square) -> SplitBitboard {
            $crate::shared::split_steps::by_color(&$crate::shared::split_steps::PAWN, color, sq)
        }
    };
}
pub(crate) use split_occupancy_and_steps;
