//! Qugiy (`qugiy`): Yaneura-ou's table-free sliding attacks — per-ray masks and a decrement.
//!
//! For a ray running up the bit order, `b = occupied & ray; (b ^ (b - 1)) & ray` keeps the ray
//! up to its nearest blocker (the lowest set bit). A ray running down is turned around by byte
//! reversal, which works where every step moves a square by at least 8 bits (ranks: 9, 10 at
//! the word boundary; diagonals: 8 or 10, 9 or 11 there), so that each square sits in its own
//! byte. The file ray towards rank 1 moves one bit a step and cannot be byte-reversed: its
//! nearest blocker is the highest one, found by a leading-zero count.
//!
//! Paths: AVX2 (the bishop's four rays at once), SSSE3+SSE4.1 (two rays at once), and the
//! portable `u128` twin, chosen at compile time. The batch lookups (`attacks_many*`) add an
//! AVX-512 path for rook, bishop, dragon and horse, four squares at once, chosen at run time
//! when the SIMD level is `avx512`; at other levels they loop over the one-at-a-time lookup.

// The twin is compiled in every build; where a SIMD path is chosen only the tests use it.
#[cfg_attr(
    all(
        target_arch = "x86_64",
        target_feature = "ssse3",
        target_feature = "sse4.1",
        not(feature = "portable")
    ),
    allow(dead_code)
)]
mod portable;
mod tables;

// Compiled for AVX-512 by `#[target_feature]` whatever the build targets; chosen at run time.
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
mod avx512;

#[cfg(all(
    target_arch = "x86_64",
    target_feature = "ssse3",
    target_feature = "sse4.1",
    not(feature = "portable")
))]
mod sse;

#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    not(feature = "portable")
))]
mod avx2;

#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    not(feature = "portable")
))]
use {
    avx2::bishop_lines,
    sse::{file_up, rank_lines},
};

#[cfg(all(
    target_arch = "x86_64",
    target_feature = "ssse3",
    target_feature = "sse4.1",
    not(target_feature = "avx2"),
    not(feature = "portable")
))]
use sse::{bishop_lines, file_up, rank_lines};

#[cfg(not(all(
    target_arch = "x86_64",
    target_feature = "ssse3",
    target_feature = "sse4.1",
    not(feature = "portable")
)))]
use portable::{bishop_lines, file_up, rank_lines};

use crate::shared::split::SplitBitboard;
use kiki_core::backend::{check_batch, Backend, BackendInfo, Bitboard, TableInfo};
use kiki_core::simd::SimdLevel;
use kiki_core::types::{Color, Slider, Square};
use std::mem::size_of;
use tables::{ColorStepTable, DiagonalTable, LanceTable, RankTable, StepTable, Tables, TABLES};

/// Which kernels this build compiled in, and what they need from the CPU.
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    not(feature = "portable")
))]
mod path {
    pub const NAME: &str = "avx2";
    pub const NEEDS: &[&str] = &["avx2"];
    pub fn available() -> bool {
        std::arch::is_x86_feature_detected!("avx2")
    }
}
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "ssse3",
    target_feature = "sse4.1",
    not(target_feature = "avx2"),
    not(feature = "portable")
))]
mod path {
    pub const NAME: &str = "ssse3+sse4.1";
    pub const NEEDS: &[&str] = &["ssse3", "sse4.1"];
    pub fn available() -> bool {
        std::arch::is_x86_feature_detected!("ssse3")
            && std::arch::is_x86_feature_detected!("sse4.1")
    }
}
#[cfg(not(all(
    target_arch = "x86_64",
    target_feature = "ssse3",
    target_feature = "sse4.1",
    not(feature = "portable")
)))]
mod path {
    pub const NAME: &str = "portable u128";
    pub const NEEDS: &[&str] = &[];
    pub fn available() -> bool {
        true
    }
}

/// A file ray towards rank 1 (down the bit order; `mask` is the black lance's ray). Its nearest
/// blocker is the highest set bit. A file lies in one word, so folding the two words together
/// keeps it whole and needs one leading-zero count.
#[inline(always)]
fn file_down(occupied: SplitBitboard, mask: SplitBitboard) -> SplitBitboard {
    let ray = mask.low | mask.high;
    let blockers = (occupied.low & mask.low) | (occupied.high & mask.high);
    // `| 1`: with no blocker the "nearest" is bit 0, which keeps the whole ray; it also keeps
    // the leading-zero count (lzcnt) at most 63, so neither the subtraction nor the shift
    // can overflow.
    let nearest = 63 - (blockers | 1).leading_zeros();
    let reach = ray & (u64::MAX << nearest);
    SplitBitboard::new(reach & mask.low, reach & mask.high)
}

/// The backend handle: a reference to the compile-time tables.
#[derive(Clone, Copy)]
pub struct Qugiy {
    tables: &'static Tables,
}

impl Qugiy {
    #[inline(always)]
    fn lance_ray(&self, color: Color, sq: Square) -> SplitBitboard {
        // SAFETY: `color.index()` is 0 or 1 and `Square` is always < 81: both in range.
        unsafe {
            *self
                .tables
                .lance_rays
                .get_unchecked(color.index())
                .get_unchecked(sq.index())
        }
    }

    #[inline(always)]
    fn step(table: &StepTable, sq: Square) -> SplitBitboard {
        // SAFETY: `Square` is always < 81, the table's length.
        unsafe { *table.get_unchecked(sq.index()) }
    }

    #[inline(always)]
    fn color_step(table: &ColorStepTable, color: Color, sq: Square) -> SplitBitboard {
        // SAFETY: `color.index()` is 0 or 1 and `Square` is always < 81: both in range.
        unsafe { *table.get_unchecked(color.index()).get_unchecked(sq.index()) }
    }

    /// The slider's batch kernel at `level`, if there is one: only AVX-512 has any, and the
    /// lance has none (one ray, already cheap one at a time).
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    #[inline]
    fn avx512_kind(level: SimdLevel, slider: Slider) -> Option<avx512::Kind> {
        if level != SimdLevel::Avx512 {
            return None;
        }
        match slider {
            Slider::Rook => Some(avx512::Kind::Rook),
            Slider::Bishop => Some(avx512::Kind::Bishop),
            Slider::Dragon => Some(avx512::Kind::Dragon),
            Slider::Horse => Some(avx512::Kind::Horse),
            Slider::Lance(_) => None,
        }
    }

    /// The leading squares the batch kernel of `level` computes under one occupancy; returns
    /// how many (0 without a kernel). `level` must be available (`check_batch`).
    #[inline]
    fn attacks_many_vector(
        &self,
        level: SimdLevel,
        slider: Slider,
        occupancy: SplitBitboard,
        squares: &[Square],
        out: &mut [SplitBitboard],
    ) -> usize {
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        if let Some(kind) = Self::avx512_kind(level, slider) {
            // SAFETY: the level is `Avx512` and available (the caller's `check_batch`), so this
            // CPU has AVX-512 F, BW, VL and VBMI2, all the kernel is compiled for.
            return unsafe { avx512::attacks_many(self.tables, kind, occupancy, squares, out) };
        }
        // No kernel for this level or slider (and none at all in a portable build, where the
        // arguments would otherwise be unused).
        let _ = (level, slider, occupancy, squares, out);
        0
    }

    /// As [`Qugiy::attacks_many_vector`], one occupancy per square.
    #[inline]
    fn attacks_many_occupancies_vector(
        &self,
        level: SimdLevel,
        slider: Slider,
        occupancies: &[SplitBitboard],
        squares: &[Square],
        out: &mut [SplitBitboard],
    ) -> usize {
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        if let Some(kind) = Self::avx512_kind(level, slider) {
            // SAFETY: as in `attacks_many_vector`.
            return unsafe {
                avx512::attacks_many_occupancies(self.tables, kind, occupancies, squares, out)
            };
        }
        // No kernel for this level or slider (and none at all in a portable build, where the
        // arguments would otherwise be unused).
        let _ = (level, slider, occupancies, squares, out);
        0
    }
}

impl Backend for Qugiy {
    type Bitboard = SplitBitboard;
    type Occupancy = SplitBitboard;

    fn info() -> BackendInfo {
        BackendInfo {
            name: "qugiy",
            description: "Yaneura-ou's table-free method: per-ray masks, the decrement trick, \
                          byte reversal for rays running down, lzcnt for the file towards rank 1",
            layout: "split 128-bit (files 1-7 = bits 0-62 of word 0, files 8-9 = bits 0-17 \
                     of word 1); occupancy = that bitboard",
            needs: path::NEEDS,
            variant: None,
        }
    }

    fn availability() -> Result<(), String> {
        if path::available() {
            Ok(())
        } else {
            Err(format!(
                "built for {} (not on this CPU); rebuild with --features portable",
                path::NAME
            ))
        }
    }

    fn tables() -> Vec<TableInfo> {
        let masks = |name: &'static str, shape: &str, bytes: usize| TableInfo {
            name,
            shape: shape.to_string(),
            bytes,
        };
        vec![
            masks(
                "diagonal_rays",
                "[81] × 4 rays × 16 B (unpacked lo/hi words; 2 byte-reversed)",
                size_of::<DiagonalTable>(),
            ),
            masks(
                "rank_rays",
                "[81] × 2 rays × 16 B (unpacked lo/hi words; 1 byte-reversed)",
                size_of::<RankTable>(),
            ),
            masks(
                "lance_rays",
                "[2][81] × 16 B bitboard (file rays; both = rook file)",
                size_of::<LanceTable>(),
            ),
            masks("king", "[81] × 16 B bitboard", size_of::<StepTable>()),
            masks(
                "gold",
                "[2][81] × 16 B bitboard",
                size_of::<ColorStepTable>(),
            ),
            masks(
                "silver",
                "[2][81] × 16 B bitboard",
                size_of::<ColorStepTable>(),
            ),
            masks(
                "knight",
                "[2][81] × 16 B bitboard",
                size_of::<ColorStepTable>(),
            ),
            masks(
                "pawn",
                "[2][81] × 16 B bitboard",
                size_of::<ColorStepTable>(),
            ),
        ]
    }

    fn simd_path() -> &'static str {
        path::NAME
    }

    fn new() -> Result<Self, String> {
        Self::availability()?;
        Ok(Qugiy { tables: &TABLES })
    }

    fn occupancy(&self, canonical: u128) -> SplitBitboard {
        SplitBitboard::from_canonical(canonical)
    }

    #[inline(always)]
    fn set_square(&self, occupancy: &mut SplitBitboard, sq: Square) {
        *occupancy ^= SplitBitboard::square(sq);
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
        let occupied = *occupancy;
        file_down(occupied, self.lance_ray(Color::Black, sq))
            | file_up(occupied, self.lance_ray(Color::White, sq))
            | rank_lines(self.tables, occupied, sq)
    }

    #[inline(always)]
    fn bishop_attacks(&self, occupancy: &SplitBitboard, sq: Square) -> SplitBitboard {
        bishop_lines(self.tables, *occupancy, sq)
    }

    #[inline(always)]
    fn lance_attacks(&self, color: Color, occupancy: &SplitBitboard, sq: Square) -> SplitBitboard {
        let ray = self.lance_ray(color, sq);
        match color {
            Color::Black => file_down(*occupancy, ray),
            Color::White => file_up(*occupancy, ray),
        }
    }

    #[inline(always)]
    fn dragon_attacks(&self, occupancy: &SplitBitboard, sq: Square) -> SplitBitboard {
        self.rook_attacks(occupancy, sq) | self.king_attacks(sq)
    }

    #[inline(always)]
    fn horse_attacks(&self, occupancy: &SplitBitboard, sq: Square) -> SplitBitboard {
        self.bishop_attacks(occupancy, sq) | self.king_attacks(sq)
    }

    /// AVX-512 kernels for rook, bishop, dragon and horse at `SimdLevel::Avx512`, four squares
    /// at a time; the remaining squares (and every other level and slider) one at a time.
    #[inline]
    fn attacks_many_at(
        &self,
        level: SimdLevel,
        slider: Slider,
        occupancy: &SplitBitboard,
        squares: &[Square],
        out: &mut [SplitBitboard],
    ) {
        check_batch(level, squares.len(), squares.len(), out.len());
        let done = self.attacks_many_vector(level, slider, *occupancy, squares, out);
        for (out, &sq) in out[done..].iter_mut().zip(&squares[done..]) {
            *out = self.slider_attacks(slider, occupancy, sq);
        }
    }

    /// As [`Qugiy::attacks_many_at`], one occupancy per square.
    #[inline]
    fn attacks_many_occupancies_at(
        &self,
        level: SimdLevel,
        slider: Slider,
        occupancies: &[SplitBitboard],
        squares: &[Square],
        out: &mut [SplitBitboard],
    ) {
        check_batch(level, squares.len(), occupancies.len(), out.len());
        let done = self.attacks_many_occupancies_vector(level, slider, occupancies, squares, out);
        let rest = out[done..].iter_mut().zip(&squares[done..]);
        for ((out, &sq), occupancy) in rest.zip(&occupancies[done..]) {
            *out = self.slider_attacks(slider, occupancy, sq);
        }
    }

    #[inline(always)]
    fn king_attacks(&self, sq: Square) -> SplitBitboard {
        Self::step(&self.tables.king, sq)
    }

    #[inline(always)]
    fn gold_attacks(&self, color: Color, sq: Square) -> SplitBitboard {
        Self::color_step(&self.tables.gold, color, sq)
    }

    #[inline(always)]
    fn silver_attacks(&self, color: Color, sq: Square) -> SplitBitboard {
        Self::color_step(&self.tables.silver, color, sq)
    }

    #[inline(always)]
    fn knight_attacks(&self, color: Color, sq: Square) -> SplitBitboard {
        Self::color_step(&self.tables.knight, color, sq)
    }

    #[inline(always)]
    fn pawn_attacks(&self, color: Color, sq: Square) -> SplitBitboard {
        Self::color_step(&self.tables.pawn, color, sq)
    }
}

#[cfg(test)]
mod tests {
    use super::portable::from_u128;
    use super::tables::as_u128;
    use super::*;
    use kiki_core::reference;
    use kiki_core::reference::random_occupancy;
    use rand::{RngExt, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// The byte reversal's precondition: every square of a byte-reversed ray has a byte to
    /// itself (checked on the stored, reversed masks; reversal keeps bytes whole).
    #[test]
    fn reversed_rays_have_one_square_per_byte() {
        for sq in Square::all() {
            let diagonal = &TABLES.diagonal_rays[sq.index()];
            let rank = &TABLES.rank_rays[sq.index()];
            let reversed = [
                (diagonal.low[1], diagonal.high[1]),
                (diagonal.low[3], diagonal.high[3]),
                (rank.low[1], rank.high[1]),
            ];
            for (low, high) in reversed {
                for byte in (low as u128 | (high as u128) << 64).to_le_bytes() {
                    assert!(byte.count_ones() <= 1, "{sq}: two ray squares share a byte");
                }
            }
        }
    }

    #[test]
    fn masks_are_the_reference_rays() {
        let empty = SplitBitboard::new(0, 0);
        for sq in Square::all() {
            let diagonal = &TABLES.diagonal_rays[sq.index()];
            let bishop = (0..4).fold(0u128, |acc, i| {
                let bits = diagonal.low[i] as u128 | (diagonal.high[i] as u128) << 64;
                let bits = if i % 2 == 1 { bits.swap_bytes() } else { bits };
                acc | from_u128(bits).to_canonical()
            });
            assert_eq!(bishop, reference::bishop(0, sq), "{sq}");
            let file = TABLES.lance_rays[0][sq.index()] | TABLES.lance_rays[1][sq.index()];
            let rank = rank_lines(&TABLES, empty, sq);
            assert_eq!((file | rank).to_canonical(), reference::rook(0, sq), "{sq}");
        }
    }

    /// The compiled kernels against the portable twin and the reference, in one build.
    #[test]
    fn compiled_kernels_match_the_portable_twin() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x9_1417);
        for round in 0..20_000u32 {
            let bits = random_occupancy(&mut rng, [0.1, 0.3, 0.6, 0.9][round as usize % 4]);
            let occupied = SplitBitboard::from_canonical(bits);
            let sq = Square::new(rng.random_range(0..81)).unwrap();
            let white = TABLES.lance_rays[1][sq.index()];
            assert_eq!(
                bishop_lines(&TABLES, occupied, sq),
                portable::bishop_lines(&TABLES, occupied, sq)
            );
            assert_eq!(
                rank_lines(&TABLES, occupied, sq),
                portable::rank_lines(&TABLES, occupied, sq)
            );
            assert_eq!(file_up(occupied, white), portable::file_up(occupied, white));
            assert_eq!(
                bishop_lines(&TABLES, occupied, sq).to_canonical(),
                reference::bishop(bits, sq)
            );
        }
    }

    #[test]
    fn file_down_stops_at_the_nearest_blocker() {
        let sq = Square::parse("8e").unwrap();
        let mask = TABLES.lance_rays[Color::Black.index()][sq.index()];
        let blockers = Square::parse("8b").unwrap().bit() | Square::parse("8c").unwrap().bit();
        let got = file_down(SplitBitboard::from_canonical(blockers), mask).to_canonical();
        let expected = Square::parse("8c").unwrap().bit() | Square::parse("8d").unwrap().bit();
        assert_eq!(got, expected);
        assert_eq!(
            as_u128(file_down(SplitBitboard::new(0, 0), mask)),
            as_u128(mask)
        );
    }

    #[test]
    fn table_bytes_are_counted() {
        assert_eq!(
            Qugiy::table_bytes(),
            5_184 + 2_592 + 2_592 + 1_296 + 4 * 2_592
        );
    }
}
