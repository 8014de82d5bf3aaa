//! The 128-bit qugiy kernels (SSSE3 byte shuffle, SSE4.1 64-bit compare); the AVX2 path uses
//! them too, for everything but the bishop.
//!
//! Two 128-bit numbers are kept "unpacked": one register holds both low words, another both
//! high words. Then a 128-bit decrement of both is two 64-bit adds: `low - 1`, and
//! `high - 1` exactly where `low == 0` (the borrow, from `_mm_cmpeq_epi64`).
//!
//! Safety of the intrinsic calls: this module is compiled only when the build enables SSSE3
//! and SSE4.1 (`cfg(target_feature)`), and `Qugiy::new` refuses a CPU without them.

use super::tables::Tables;
use crate::shared::split::SplitBitboard;
use core::arch::x86_64::*;
use kiki_core::types::Square;

#[inline(always)]
pub fn to_xmm(bits: SplitBitboard) -> __m128i {
    // SAFETY: both are 16 plain bytes, every pattern valid; `SplitBitboard` is
    // `repr(C)` {low, high}, so `low` is lane 0.
    unsafe { core::mem::transmute::<SplitBitboard, __m128i>(bits) }
}

#[inline(always)]
pub fn from_xmm(bits: __m128i) -> SplitBitboard {
    // SAFETY: as in `to_xmm`.
    unsafe { core::mem::transmute::<__m128i, SplitBitboard>(bits) }
}

/// Reverses the 16 bytes: a ray whose squares lie in distinct bytes then runs the other way.
#[inline(always)]
pub fn byte_reverse(bits: __m128i) -> __m128i {
    // SAFETY: SSSE3 is enabled in this build (module docs).
    unsafe {
        _mm_shuffle_epi8(
            bits,
            _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
        )
    }
}

/// Loads a 16-byte-aligned pair of words from a table.
#[inline(always)]
pub fn load_pair(words: &[u64; 2]) -> __m128i {
    // SAFETY: 16 readable bytes; the only pairs loaded are `RankRays`' fields, and
    // `RankRays` is `repr(C, align(16))` with 16-byte fields.
    unsafe { _mm_load_si128(words.as_ptr() as *const __m128i) }
}

/// Loads the 16-byte-aligned pair `words[2 * HALF .. 2 * HALF + 2]` of a four-word table row.
#[inline(always)]
pub fn load_half<const HALF: usize>(words: &[u64; 4]) -> __m128i {
    const { assert!(HALF < 2) };
    // SAFETY: `HALF < 2` (checked at compile time), so the 16 bytes lie inside the row, at a
    // 16-byte offset of the 32-byte-aligned `DiagonalRays`.
    unsafe { _mm_load_si128(words.as_ptr().add(2 * HALF) as *const __m128i) }
}

/// The decrement trick on two unpacked 128-bit numbers at once: for each, the ray squares up to
/// and including the nearest blocker (the whole ray when nothing blocks).
#[inline(always)]
pub fn up_rays(
    low: __m128i,
    high: __m128i,
    mask_low: __m128i,
    mask_high: __m128i,
) -> (__m128i, __m128i) {
    // SAFETY: SSE2 and SSE4.1 are enabled in this build (module docs).
    unsafe {
        let low = _mm_and_si128(low, mask_low);
        let high = _mm_and_si128(high, mask_high);
        let high_decremented = _mm_add_epi64(high, _mm_cmpeq_epi64(low, _mm_setzero_si128()));
        let low_decremented = _mm_add_epi64(low, _mm_set1_epi64x(-1));
        (
            _mm_and_si128(_mm_xor_si128(low, low_decremented), mask_low),
            _mm_and_si128(_mm_xor_si128(high, high_decremented), mask_high),
        )
    }
}

/// The occupancy and its byte reversal, unpacked: (both low words, both high words).
#[inline(always)]
pub fn unpacked_occupancy(occupied: SplitBitboard) -> (__m128i, __m128i) {
    let occupied = to_xmm(occupied);
    let reversed = byte_reverse(occupied);
    // SAFETY: SSE2 is enabled in this build (module docs).
    unsafe {
        (
            _mm_unpacklo_epi64(occupied, reversed),
            _mm_unpackhi_epi64(occupied, reversed),
        )
    }
}

/// Packs the unpacked (up ray, byte-reversed down ray) results back and joins them.
#[inline(always)]
pub fn join_up_and_down(low: __m128i, high: __m128i) -> SplitBitboard {
    // SAFETY: SSE2 is enabled in this build (module docs).
    unsafe {
        let up = _mm_unpacklo_epi64(low, high);
        let down = byte_reverse(_mm_unpackhi_epi64(low, high));
        from_xmm(_mm_or_si128(up, down))
    }
}

/// The rank through `sq`, both ways: one unpacked pair (occupancy, reversed occupancy).
#[inline(always)]
pub fn rank_lines(tables: &Tables, occupied: SplitBitboard, sq: Square) -> SplitBitboard {
    // SAFETY: `Square` is always < 81, the table's length.
    let rays = unsafe { tables.rank_rays.get_unchecked(sq.index()) };
    let (occupied_low, occupied_high) = unpacked_occupancy(occupied);
    let (low, high) = up_rays(
        occupied_low,
        occupied_high,
        load_pair(&rays.low),
        load_pair(&rays.high),
    );
    join_up_and_down(low, high)
}

/// Both diagonals as two unpacked pairs, joined before packing back.
#[cfg_attr(target_feature = "avx2", allow(dead_code))]
#[inline(always)]
pub fn bishop_lines(tables: &Tables, occupied: SplitBitboard, sq: Square) -> SplitBitboard {
    // SAFETY: `Square` is always < 81, the table's length.
    let rays = unsafe { tables.diagonal_rays.get_unchecked(sq.index()) };
    let (occupied_low, occupied_high) = unpacked_occupancy(occupied);
    let (low_a, high_a) = up_rays(
        occupied_low,
        occupied_high,
        load_half::<0>(&rays.low),
        load_half::<0>(&rays.high),
    );
    let (low_b, high_b) = up_rays(
        occupied_low,
        occupied_high,
        load_half::<1>(&rays.low),
        load_half::<1>(&rays.high),
    );
    // SAFETY: SSE2 is enabled in this build (module docs).
    let (low, high) = unsafe { (_mm_or_si128(low_a, low_b), _mm_or_si128(high_a, high_b)) };
    join_up_and_down(low, high)
}

/// A file ray towards rank 9 (up the bit order; `mask` is the white lance's ray). A file never
/// straddles the two words, so each word's own decrement suffices: no borrow needed.
#[inline(always)]
pub fn file_up(occupied: SplitBitboard, mask: SplitBitboard) -> SplitBitboard {
    let mask = to_xmm(mask);
    // SAFETY: SSE2 is enabled in this build (module docs).
    unsafe {
        let blockers = _mm_and_si128(to_xmm(occupied), mask);
        let below = _mm_add_epi64(blockers, _mm_set1_epi64x(-1));
        from_xmm(_mm_and_si128(_mm_xor_si128(blockers, below), mask))
    }
}
