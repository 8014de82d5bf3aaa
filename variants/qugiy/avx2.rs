//! The AVX2 qugiy bishop: all four diagonal rays in one pair of 256-bit registers.
//!
//! Safety of the intrinsic calls: this module is compiled only when the build enables AVX2
//! (`cfg(target_feature)`), and `Qugiy::new` refuses a CPU without it.

use super::sse::{join_up_and_down, unpacked_occupancy};
use super::tables::Tables;
use crate::shared::split::SplitBitboard;
use core::arch::x86_64::*;
use kiki_core::types::Square;

/// Both diagonals. Each 128-bit lane holds one unpacked (up ray on the occupancy, down ray on
/// the byte-reversed occupancy) pair; the lanes are folded together before packing back.
#[inline(always)]
pub fn bishop_lines(tables: &Tables, occupied: SplitBitboard, sq: Square) -> SplitBitboard {
    // SAFETY: `Square` is always < 81, the table's length.
    let rays = unsafe { tables.diagonal_rays.get_unchecked(sq.index()) };
    let (occupied_low, occupied_high) = unpacked_occupancy(occupied);
    // SAFETY: AVX2 is enabled in this build (module docs); `DiagonalRays` is
    // `repr(C, align(32))`, so both of its `[u64; 4]` are aligned 32-byte loads.
    let (low, high) = unsafe {
        let mask_low = _mm256_load_si256(rays.low.as_ptr() as *const __m256i);
        let mask_high = _mm256_load_si256(rays.high.as_ptr() as *const __m256i);
        let low = _mm256_and_si256(_mm256_broadcastsi128_si256(occupied_low), mask_low);
        let high = _mm256_and_si256(_mm256_broadcastsi128_si256(occupied_high), mask_high);
        let borrow = _mm256_cmpeq_epi64(low, _mm256_setzero_si256());
        let high_decremented = _mm256_add_epi64(high, borrow);
        let low_decremented = _mm256_add_epi64(low, _mm256_set1_epi64x(-1));
        let low = _mm256_and_si256(_mm256_xor_si256(low, low_decremented), mask_low);
        let high = _mm256_and_si256(_mm256_xor_si256(high, high_decremented), mask_high);
        (
            _mm_or_si128(
                _mm256_castsi256_si128(low),
                _mm256_extracti128_si256::<1>(low),
            ),
            _mm_or_si128(
                _mm256_castsi256_si128(high),
                _mm256_extracti128_si256::<1>(high),
            ),
        )
    };
    join_up_and_down(low, high)
}
