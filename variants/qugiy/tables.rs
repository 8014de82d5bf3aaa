//! The qugiy backend's small mask tables, built by `const` evaluation (no start-up cost).
//!
//! Every slider table holds masks in the split layout seen as one 128-bit number
//! (`low | high << 64`). A ray that runs towards lower bits is stored byte-reversed, so that the
//! decrement trick (which finds the lowest blocker) finds its nearest blocker.

use crate::shared::split::SplitBitboard;
use kiki_core::types::{ray, Color, Square};

/// The four diagonal rays of one square, "unpacked" for the SIMD kernels: `low[i]` and
/// `high[i]` are the two words of ray `i`. Rays 0 and 2 run up the bit order (file + 1, rank ± 1);
/// rays 1 and 3 run down (file − 1, rank ∓ 1) and are stored byte-reversed. One 32-byte half
/// is one AVX2 register.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
pub struct DiagonalRays {
    pub low: [u64; 4],
    pub high: [u64; 4],
}

/// The two rank rays of one square, unpacked like [`DiagonalRays`]: ray 0 runs up the bit
/// order (towards file 9), ray 1 down (towards file 1) and is stored byte-reversed.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(16))]
pub struct RankRays {
    pub low: [u64; 2],
    pub high: [u64; 2],
}

pub type DiagonalTable = [DiagonalRays; Square::COUNT];
pub type RankTable = [RankRays; Square::COUNT];
/// Per colour: `[Black]` = the file ray towards rank 1 (down the bit order), `[White]` = towards
/// rank 9 (up the bit order). Together they are the rook's file.
pub type LanceTable = [[SplitBitboard; Square::COUNT]; 2];
pub type StepTable = [SplitBitboard; Square::COUNT];
pub type ColorStepTable = [StepTable; 2];

/// Everything the backend owns.
pub struct Tables {
    pub diagonal_rays: DiagonalTable,
    pub rank_rays: RankTable,
    pub lance_rays: LanceTable,
    pub king: StepTable,
    pub gold: ColorStepTable,
    pub silver: ColorStepTable,
    pub knight: ColorStepTable,
    pub pawn: ColorStepTable,
}

/// Built at compile time.
pub static TABLES: Tables = build();

/// The split layout as one 128-bit number: `low | high << 64`.
#[inline(always)]
pub const fn as_u128(bits: SplitBitboard) -> u128 {
    bits.low as u128 | (bits.high as u128) << 64
}

const fn square(index: usize) -> Square {
    match Square::new(index as u8) {
        Some(sq) => sq,
        None => panic!("square index out of range"),
    }
}

/// A ray as a 128-bit split-layout number, byte-reversed when it runs down the bit order.
const fn split_ray(sq: Square, file_delta: i8, rank_delta: i8, reversed: bool) -> u128 {
    let bits = as_u128(SplitBitboard::from_canonical_const(ray(
        0, sq, file_delta, rank_delta,
    )));
    if reversed {
        bits.swap_bytes()
    } else {
        bits
    }
}

/// The canonical squares one step away in each of `steps`.
const fn steps(sq: Square, steps: &[(i8, i8)]) -> SplitBitboard {
    let mut bits = 0u128;
    let mut i = 0;
    while i < steps.len() {
        if let Some(target) = sq.offset(steps[i].0, steps[i].1) {
            bits |= target.bit();
        }
        i += 1;
    }
    SplitBitboard::from_canonical_const(bits)
}

const fn build() -> Tables {
    let empty = SplitBitboard::new(0, 0);
    let mut tables = Tables {
        diagonal_rays: [DiagonalRays {
            low: [0; 4],
            high: [0; 4],
        }; Square::COUNT],
        rank_rays: [RankRays {
            low: [0; 2],
            high: [0; 2],
        }; Square::COUNT],
        lance_rays: [[empty; Square::COUNT]; 2],
        king: [empty; Square::COUNT],
        gold: [[empty; Square::COUNT]; 2],
        silver: [[empty; Square::COUNT]; 2],
        knight: [[empty; Square::COUNT]; 2],
        pawn: [[empty; Square::COUNT]; 2],
    };
    let mut index = 0;
    while index < Square::COUNT {
        let sq = square(index);
        // (file delta, rank delta, stored reversed): the order the kernels expect.
        let diagonals = [
            split_ray(sq, 1, 1, false),
            split_ray(sq, -1, -1, true),
            split_ray(sq, 1, -1, false),
            split_ray(sq, -1, 1, true),
        ];
        let mut i = 0;
        while i < 4 {
            tables.diagonal_rays[index].low[i] = diagonals[i] as u64;
            tables.diagonal_rays[index].high[i] = (diagonals[i] >> 64) as u64;
            i += 1;
        }
        let ranks = [split_ray(sq, 1, 0, false), split_ray(sq, -1, 0, true)];
        let mut i = 0;
        while i < 2 {
            tables.rank_rays[index].low[i] = ranks[i] as u64;
            tables.rank_rays[index].high[i] = (ranks[i] >> 64) as u64;
            i += 1;
        }
        let mut c = 0;
        while c < 2 {
            let color = if c == 0 { Color::Black } else { Color::White };
            let f = color.forward();
            tables.lance_rays[c][index] = SplitBitboard::from_canonical_const(ray(0, sq, 0, f));
            tables.gold[c][index] = steps(sq, &[(0, f), (1, f), (-1, f), (1, 0), (-1, 0), (0, -f)]);
            tables.silver[c][index] = steps(sq, &[(0, f), (1, f), (-1, f), (1, -f), (-1, -f)]);
            tables.knight[c][index] = steps(sq, &[(1, 2 * f), (-1, 2 * f)]);
            tables.pawn[c][index] = steps(sq, &[(0, f)]);
            c += 1;
        }
        tables.king[index] = steps(
            sq,
            &[
                (0, 1),
                (0, -1),
                (1, 0),
                (-1, 0),
                (1, 1),
                (1, -1),
                (-1, 1),
                (-1, -1),
            ],
        );
        index += 1;
    }
    tables
}
