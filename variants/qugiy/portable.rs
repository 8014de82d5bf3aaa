//! The portable twin of the qugiy kernels: plain `u128` arithmetic (a decrement borrows from
//! the low word into the high one by itself; `swap_bytes` is the byte reversal).
//!
//! Always compiled, so that the unit tests can hold the SIMD kernels against it in one build.

use super::tables::{as_u128, Tables};
use crate::shared::split::SplitBitboard;
use kiki_core::types::Square;

/// The decrement trick: the ray squares up to and including the nearest blocker, for a ray that
/// runs up the bit order (`mask`); the whole ray when nothing blocks (`0 - 1` sets every bit).
#[inline(always)]
fn up_ray(occupied: u128, mask: u128) -> u128 {
    let blockers = occupied & mask;
    (blockers ^ blockers.wrapping_sub(1)) & mask
}

/// The inverse of `tables::as_u128`.
#[inline(always)]
pub fn from_u128(bits: u128) -> SplitBitboard {
    SplitBitboard::new(bits as u64, (bits >> 64) as u64)
}

#[inline(always)]
fn pair(low: u64, high: u64) -> u128 {
    low as u128 | (high as u128) << 64
}

/// Both diagonals: rays 0 and 2 straight, rays 1 and 3 on the byte-reversed occupancy.
#[inline(always)]
pub fn bishop_lines(tables: &Tables, occupied: SplitBitboard, sq: Square) -> SplitBitboard {
    // SAFETY: `Square` is always < 81, the table's length.
    let rays = unsafe { tables.diagonal_rays.get_unchecked(sq.index()) };
    let occupied = as_u128(occupied);
    let reversed = occupied.swap_bytes();
    let up = up_ray(occupied, pair(rays.low[0], rays.high[0]))
        | up_ray(occupied, pair(rays.low[2], rays.high[2]));
    let down = up_ray(reversed, pair(rays.low[1], rays.high[1]))
        | up_ray(reversed, pair(rays.low[3], rays.high[3]));
    from_u128(up | down.swap_bytes())
}

/// The rank through `sq`, both ways.
#[inline(always)]
pub fn rank_lines(tables: &Tables, occupied: SplitBitboard, sq: Square) -> SplitBitboard {
    // SAFETY: `Square` is always < 81, the table's length.
    let rays = unsafe { tables.rank_rays.get_unchecked(sq.index()) };
    let occupied = as_u128(occupied);
    let up = up_ray(occupied, pair(rays.low[0], rays.high[0]));
    let down = up_ray(occupied.swap_bytes(), pair(rays.low[1], rays.high[1]));
    from_u128(up | down.swap_bytes())
}

/// A file ray towards rank 9 (up the bit order): `mask` is the white lance's ray.
#[inline(always)]
pub fn file_up(occupied: SplitBitboard, mask: SplitBitboard) -> SplitBitboard {
    from_u128(up_ray(as_u128(occupied), as_u128(mask)))
}
