//! The HalfKP-shaped NNUE evaluation (YaneuraOu's classic `halfkp_256x2-32-32`): a feature
//! transformer of 81 king squares × 1,548 BonaPieces → 256 int16 per view (≈ 64 MB), an
//! accumulator per ply updated by the rows a move changes (a king move rebuilds its side's
//! view from its ≈ 38 rows), then a dense 512 → 32 → 32 → 1 net.
//!
//! The dense layers' dot products run at the process's SIMD level (AVX-512, AVX2, or the
//! portable twin), in exact integer arithmetic: every level gives the same value.

use super::features::{flip, Change, Feature, FeatureList, FEATURE_COUNT};
use super::{small_weights, Evaluator};
use crate::position::{Move, Position};
use kiki_core::backend::Backend;
use kiki_core::pages::{PageBuffer, Pages};
use kiki_core::simd::SimdLevel;
use kiki_core::types::Color;

/// Accumulator width per view.
pub const HALF: usize = 256;
const HIDDEN: usize = 32;
const ROW_BYTES: usize = HALF * 2;
const TRANSFORMER_BYTES: usize = 81 * FEATURE_COUNT * ROW_BYTES;
/// Every table's bytes: the transformer and its biases, then the dense layers.
pub const TABLE_BYTES: usize = TRANSFORMER_BYTES
    + HALF * 2
    + (HIDDEN * 2 * HALF + HIDDEN * HIDDEN + HIDDEN) * 2
    + (HIDDEN * 2 + 1) * 4;

const SEED: u64 = 0x4E4E_5545_6B69_6B69;

pub struct NnueWeights {
    /// `[own king square][feature][HALF]` int16, from the view's own side.
    pub(super) transformer: PageBuffer,
    transformer_bias: [i16; HALF],
    /// `[HIDDEN][2 * HALF]`, then `[HIDDEN][HIDDEN]`, then `[HIDDEN]`: small, cache-resident.
    hidden1: Vec<i16>,
    hidden1_bias: [i32; HIDDEN],
    hidden2: Vec<i16>,
    hidden2_bias: [i32; HIDDEN],
    output: Vec<i16>,
    output_bias: i32,
}

impl NnueWeights {
    pub fn new(pages: Pages) -> NnueWeights {
        let small = |seed: u64, len: usize| -> Vec<i16> {
            (0..len)
                .map(|i| (small_weights(seed, i / 4) >> (16 * (i % 4))) as u16 as i16)
                .collect()
        };
        let bias = |seed: u64, i: usize| (small_weights(seed, i) as u16 as i16) as i32 * 64;
        let transformer_bias = small(SEED + 1, HALF);
        NnueWeights {
            transformer: PageBuffer::new(TRANSFORMER_BYTES, pages, |i| small_weights(SEED, i)),
            transformer_bias: std::array::from_fn(|i| transformer_bias[i]),
            hidden1: small(SEED + 2, HIDDEN * 2 * HALF),
            hidden1_bias: std::array::from_fn(|i| bias(SEED + 3, i)),
            hidden2: small(SEED + 4, HIDDEN * HIDDEN),
            hidden2_bias: std::array::from_fn(|i| bias(SEED + 5, i)),
            output: small(SEED + 6, HIDDEN),
            output_bias: bias(SEED + 7, 0),
        }
    }

    #[inline(always)]
    fn row(&self, king: usize, feature: Feature) -> &[i16; HALF] {
        let words = self.transformer.as_slice();
        let start = (king * FEATURE_COUNT + feature as usize) * (HALF / 4);
        let row = &words[start..start + HALF / 4];
        // SAFETY: 64 u64 words are 256 i16 (same bytes, i16 needs less alignment).
        unsafe { &*(row.as_ptr() as *const [i16; HALF]) }
    }
}

/// One ply's accumulators and what they were built from.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Ply {
    /// `[view]`: Black's view, then White's (features flipped, king square turned).
    accumulators: [[i16; HALF]; 2],
    list: FeatureList,
    /// Each view's own king square, as that view sees it.
    kings: [usize; 2],
}

pub struct NnueState<'w> {
    weights: &'w NnueWeights,
    stack: Vec<Ply>,
    level: SimdLevel,
    lines: u64,
}

impl<'w> NnueState<'w> {
    pub fn new(weights: &'w NnueWeights) -> NnueState<'w> {
        NnueState {
            weights,
            stack: Vec::with_capacity(256),
            level: kiki_core::simd::level(),
            lines: 0,
        }
    }

    /// The current position's accumulators (for tests against a rebuild).
    #[cfg(test)]
    pub(crate) fn accumulators(&self) -> [[i16; HALF]; 2] {
        self.stack
            .last()
            .map_or([[0; HALF]; 2], |ply| ply.accumulators)
    }

    /// Builds `view`'s accumulator from every active feature.
    fn refresh(&mut self, ply: &mut Ply, view: usize) {
        let mut accumulator = self.weights.transformer_bias;
        for &feature in ply.list.as_slice() {
            let feature = if view == 0 { feature } else { flip(feature) };
            add_row(&mut accumulator, self.weights.row(ply.kings[view], feature));
        }
        self.lines += (ply.list.len * ROW_BYTES / 64) as u64;
        ply.accumulators[view] = accumulator;
    }

    /// The 512 clipped inputs, the side to move's view first.
    fn inputs(&self, side: Color) -> [i16; 2 * HALF] {
        let top = self.stack.last().expect("reset before evaluate");
        let own = side.index();
        let mut inputs = [0i16; 2 * HALF];
        for (half, view) in [own, 1 - own].into_iter().enumerate() {
            for (input, &value) in inputs[half * HALF..(half + 1) * HALF]
                .iter_mut()
                .zip(&top.accumulators[view])
            {
                *input = value.clamp(0, 127);
            }
        }
        inputs
    }
}

fn king_views<B: Backend>(pos: &Position<B>) -> [usize; 2] {
    let square = |color| pos.king_square(color).map_or(0, |sq| sq.index());
    [square(Color::Black), 80 - square(Color::White)]
}

#[inline(always)]
fn add_row(accumulator: &mut [i16; HALF], row: &[i16; HALF]) {
    for (a, &r) in accumulator.iter_mut().zip(row) {
        *a = a.wrapping_add(r);
    }
}

#[inline(always)]
fn sub_row(accumulator: &mut [i16; HALF], row: &[i16; HALF]) {
    for (a, &r) in accumulator.iter_mut().zip(row) {
        *a = a.wrapping_sub(r);
    }
}

impl Evaluator for NnueState<'_> {
    fn reset<B: Backend>(&mut self, pos: &Position<B>) {
        self.stack.clear();
        let mut ply = Ply {
            accumulators: [[0; HALF]; 2],
            list: FeatureList::of(pos),
            kings: king_views(pos),
        };
        self.refresh(&mut ply, 0);
        self.refresh(&mut ply, 1);
        self.stack.push(ply);
    }

    fn push<B: Backend>(&mut self, pos: &Position<B>, mv: Move) {
        let change = Change::of(pos, mv);
        let mut ply = *self.stack.last().expect("reset before push");
        ply.list.apply(&change);
        if let Some(color) = change.king_moved {
            let to = mv.to().index();
            ply.kings[color.index()] = if color == Color::Black { to } else { 80 - to };
        }
        for view in 0..2 {
            if change.king_moved.map(Color::index) == Some(view) {
                self.refresh(&mut ply, view);
                continue;
            }
            let king = ply.kings[view];
            let see = |f: Feature| if view == 0 { f } else { flip(f) };
            for &removed in change.removed() {
                sub_row(
                    &mut ply.accumulators[view],
                    self.weights.row(king, see(removed)),
                );
            }
            for &added in change.added() {
                add_row(
                    &mut ply.accumulators[view],
                    self.weights.row(king, see(added)),
                );
            }
            let rows = change.removed().len() + change.added().len();
            self.lines += (rows * ROW_BYTES / 64) as u64;
        }
        self.stack.push(ply);
    }

    fn push_null(&mut self) {
        let ply = *self.stack.last().expect("reset before push");
        self.stack.push(ply);
    }

    fn pop(&mut self) {
        self.stack.pop();
    }

    fn evaluate<B: Backend>(&mut self, pos: &Position<B>) -> i32 {
        let weights = self.weights;
        let inputs = self.inputs(pos.side_to_move());
        let mut hidden1 = [0i16; HIDDEN];
        for (j, out) in hidden1.iter_mut().enumerate() {
            let row = &weights.hidden1[j * 2 * HALF..(j + 1) * 2 * HALF];
            let sum = dot(self.level, &inputs, row) + weights.hidden1_bias[j];
            *out = (sum >> 6).clamp(0, 127) as i16;
        }
        let mut hidden2 = [0i16; HIDDEN];
        for (j, out) in hidden2.iter_mut().enumerate() {
            let row = &weights.hidden2[j * HIDDEN..(j + 1) * HIDDEN];
            let sum = dot(self.level, &hidden1, row) + weights.hidden2_bias[j];
            *out = (sum >> 6).clamp(0, 127) as i16;
        }
        (dot(self.level, &hidden2, &weights.output) + weights.output_bias) >> 4
    }

    fn lines_read(&self) -> u64 {
        self.lines
    }
}

/// Σ a[i]·b[i] over int16 inputs whose products and sums fit in i32 (inputs 0..127, weights
/// −64..63): exact at every level. Lengths are multiples of 32.
#[inline]
fn dot(level: SimdLevel, a: &[i16], b: &[i16]) -> i32 {
    debug_assert_eq!(a.len(), b.len());
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    {
        if level == SimdLevel::Avx512 {
            // SAFETY: the level is only ever set to AVX-512 where the CPU has it.
            return unsafe { dot_avx512(a, b) };
        }
        if level == SimdLevel::Avx2 {
            // SAFETY: as above, for AVX2.
            return unsafe { dot_avx2(a, b) };
        }
    }
    let _ = level;
    dot_portable(a, b)
}

/// The portable twin.
fn dot_portable(a: &[i16], b: &[i16]) -> i32 {
    a.iter().zip(b).map(|(&x, &y)| x as i32 * y as i32).sum()
}

#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
#[target_feature(enable = "avx2")]
fn dot_avx2(a: &[i16], b: &[i16]) -> i32 {
    use std::arch::x86_64::*;
    let mut sum = _mm256_setzero_si256();
    for (x, y) in a.chunks_exact(16).zip(b.chunks_exact(16)) {
        // SAFETY: each chunk is 16 readable i16 (32 bytes); the loads are unaligned.
        let (x, y) = unsafe {
            (
                _mm256_loadu_si256(x.as_ptr() as *const __m256i),
                _mm256_loadu_si256(y.as_ptr() as *const __m256i),
            )
        };
        sum = _mm256_add_epi32(sum, _mm256_madd_epi16(x, y));
    }
    let half = _mm_add_epi32(
        _mm256_castsi256_si128(sum),
        _mm256_extracti128_si256(sum, 1),
    );
    let quarter = _mm_add_epi32(half, _mm_shuffle_epi32(half, 0b01_00_11_10));
    let eighth = _mm_add_epi32(quarter, _mm_shuffle_epi32(quarter, 0b10_11_00_01));
    _mm_cvtsi128_si32(eighth)
}

#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
#[target_feature(enable = "avx512f,avx512bw")]
fn dot_avx512(a: &[i16], b: &[i16]) -> i32 {
    use std::arch::x86_64::*;
    let mut sum = _mm512_setzero_si512();
    for (x, y) in a.chunks_exact(32).zip(b.chunks_exact(32)) {
        // SAFETY: each chunk is 32 readable i16 (64 bytes); the loads are unaligned.
        let (x, y) = unsafe {
            (
                _mm512_loadu_si512(x.as_ptr() as *const __m512i),
                _mm512_loadu_si512(y.as_ptr() as *const __m512i),
            )
        };
        sum = _mm512_add_epi32(sum, _mm512_madd_epi16(x, y));
    }
    _mm512_reduce_add_epi32(sum)
}

/// The value from scratch (every view rebuilt), for tests of the incremental updates.
pub fn evaluate_from_scratch<B: Backend>(weights: &NnueWeights, pos: &Position<B>) -> i32 {
    let mut state = NnueState::new(weights);
    state.reset(pos);
    state.evaluate(pos)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_level_computes_the_same_dot_product() {
        let a: Vec<i16> = (0..512).map(|i| (i * 37 % 128) as i16).collect();
        let b: Vec<i16> = (0..512).map(|i| (i * 11 % 128) as i16 - 64).collect();
        let expected = dot_portable(&a, &b);
        for level in SimdLevel::available() {
            assert_eq!(dot(level, &a, &b), expected, "{level}");
        }
    }

    #[test]
    fn table_bytes_are_the_buffers_and_the_small_layers() {
        assert_eq!(TRANSFORMER_BYTES, 64_198_656);
        assert_eq!(TABLE_BYTES, 64_198_656 + 512 + 34_880 + 260);
    }
}
