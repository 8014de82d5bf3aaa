//! The AVX-512 qugiy batch: rook, bishop, dragon and horse attacks of four squares at once.
//!
//! Each 128-bit lane of a zmm register holds one square's split bitboard (low word, high word),
//! so one register holds one ray (or the occupancy) of four squares. The decrement trick then
//! runs lane-wise: every low word is decremented, and a lane's high word exactly where its low
//! word is zero (the borrow, found by moving each low word up into its lane's high qword and
//! comparing with zero, which gives the mask of the qwords a masked subtraction decrements).
//! Byte reversal is `vpshufb`, which already works within 128-bit lanes.
//!
//! The masks come from qugiy's own tables, so the batch needs no table of its own: the four
//! squares' rows are loaded whole and rearranged in registers into one register per ray.
//!
//! These functions are compiled for AVX-512 F, BW, VL and VBMI2 whatever the build targets
//! (`#[target_feature]`), and are called only after `SimdLevel::Avx512.is_available()` says this
//! CPU has all four.

use super::tables::{StepTable, Tables};
use crate::shared::split::SplitBitboard;
use core::arch::x86_64::*;
use kiki_core::types::{Color, Square};

/// The slider kinds with a batch kernel (the lance goes through the one-at-a-time path).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    Rook,
    Bishop,
    /// Rook lines plus the king's step squares.
    Dragon,
    /// Bishop lines plus the king's step squares.
    Horse,
}

/// How many squares one kernel call handles: one per 128-bit lane.
pub const LANES: usize = 4;

/// The `vpshufb` pattern that reverses the 16 bytes of every 128-bit lane (qword 0 of a lane
/// takes bytes 15..8, qword 1 bytes 7..0).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2")]
fn byte_reverse(bits: __m512i) -> __m512i {
    const LOW: i64 = 0x0809_0A0B_0C0D_0E0F;
    const HIGH: i64 = 0x0001_0203_0405_0607;
    let pattern = _mm512_set_epi64(HIGH, LOW, HIGH, LOW, HIGH, LOW, HIGH, LOW);
    _mm512_shuffle_epi8(bits, pattern)
}

/// The decrement trick on four 128-bit lanes: in each, the squares of `mask` (a ray running up
/// the bit order, possibly across the word boundary) up to and including the nearest blocker.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2")]
fn up_rays(occupied: __m512i, mask: __m512i) -> __m512i {
    let blockers = _mm512_and_si512(occupied, mask);
    // Each lane's low word moved into its high qword, zero in its low qword: the compare then
    // selects every low qword (always decremented) and the high qwords that borrow.
    let low_words_up = _mm512_maskz_shuffle_epi32::<_MM_PERM_BADC>(0xCCCC, blockers);
    let decremented = _mm512_cmpeq_epi64_mask(low_words_up, _mm512_setzero_si512());
    let below = _mm512_mask_sub_epi64(blockers, decremented, blockers, _mm512_set1_epi64(1));
    // (blockers ^ below) & mask
    _mm512_ternarylogic_epi64::<0x28>(blockers, below, mask)
}

/// A file ray towards rank 9 (the white lance's ray, up the bit order). A file never straddles
/// the two words, so each qword's own decrement suffices: no borrow.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2")]
fn file_up(occupied: __m512i, mask: __m512i) -> __m512i {
    let blockers = _mm512_and_si512(occupied, mask);
    let below = _mm512_sub_epi64(blockers, _mm512_set1_epi64(1));
    // (blockers ^ below) & mask
    _mm512_ternarylogic_epi64::<0x28>(blockers, below, mask)
}

/// A file ray towards rank 1 (the black lance's ray, down the bit order): its nearest blocker is
/// the highest one. The one-at-a-time path counts leading zeros, which AVX-512 F/BW/VL/VBMI2
/// cannot do per qword (that is AVX-512 CD); instead every blocker is smeared down the 8 bits a
/// file ray can span, and the ray keeps what no blocker lies above.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2")]
fn file_down(occupied: __m512i, mask: __m512i) -> __m512i {
    let blockers = _mm512_and_si512(occupied, mask);
    // Bits 1 and 2 below each blocker, then 1 to 4, then (with the shift by 4 in the last
    // step) 1 to 8: every ray square beyond the nearest blocker.
    let near = _mm512_or_si512(
        _mm512_srli_epi64::<1>(blockers),
        _mm512_srli_epi64::<2>(blockers),
    );
    let shadow = _mm512_or_si512(near, _mm512_srli_epi64::<2>(near));
    // mask & !(shadow | shadow >> 4)
    _mm512_ternarylogic_epi64::<0x10>(mask, shadow, _mm512_srli_epi64::<4>(shadow))
}

/// One split bitboard per square from a per-square table, square `i` in lane `i`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2")]
fn per_lane(table: &StepTable, squares: &[Square; LANES]) -> __m512i {
    let bits = _mm512_castsi128_si512(entry(table, squares[0]));
    let bits = _mm512_inserti32x4::<1>(bits, entry(table, squares[1]));
    let bits = _mm512_inserti32x4::<2>(bits, entry(table, squares[2]));
    _mm512_inserti32x4::<3>(bits, entry(table, squares[3]))
}

/// Square `sq`'s entry of a per-square table.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2")]
fn entry(table: &StepTable, sq: Square) -> __m128i {
    // SAFETY: `Square` is always < 81, the table's length; each element is a 16-byte-aligned
    // `SplitBitboard` (`repr(C, align(16))`, low word first), so one aligned 128-bit load
    // whose qword 0 is the low word.
    unsafe { _mm_load_si128(table.get_unchecked(sq.index()) as *const SplitBitboard as *const _) }
}

/// Square `sq`'s two rank rays, as stored: low[0], low[1], high[0], high[1].
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2")]
fn rank_row(tables: &Tables, sq: Square) -> __m256i {
    // SAFETY: `Square` is always < 81, the table's length; a `RankRays` row is 32 readable
    // bytes (`repr(C)`: `low: [u64; 2]`, then `high: [u64; 2]`), read unaligned.
    unsafe {
        _mm256_loadu_si256(tables.rank_rays.get_unchecked(sq.index()) as *const _ as *const _)
    }
}

/// Square `sq`'s four diagonal rays, as stored: low[0..4], high[0..4].
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2")]
fn diagonal_row(tables: &Tables, sq: Square) -> __m512i {
    // SAFETY: `Square` is always < 81, the table's length; a `DiagonalRays` row is 64 readable
    // bytes (`repr(C)`: `low: [u64; 4]`, then `high: [u64; 4]`), read unaligned.
    unsafe {
        _mm512_loadu_si512(tables.diagonal_rays.get_unchecked(sq.index()) as *const _ as *const _)
    }
}

/// Rook lines of four squares: `occupied` and `reversed` (its lane-wise byte reversal) hold
/// square `i`'s occupancy in lane `i`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2")]
fn rook_lines(
    tables: &Tables,
    occupied: __m512i,
    reversed: __m512i,
    squares: &[Square; LANES],
) -> __m512i {
    let first = _mm512_inserti64x4::<1>(
        _mm512_castsi256_si512(rank_row(tables, squares[0])),
        rank_row(tables, squares[1]),
    );
    let second = _mm512_inserti64x4::<1>(
        _mm512_castsi256_si512(rank_row(tables, squares[2])),
        rank_row(tables, squares[3]),
    );
    // Qwords of `first`: square 0's low[0], low[1], high[0], high[1], then square 1's; of
    // `second` (indices 8..16), squares 2 and 3. Ray 0 (towards file 9) is the pair
    // (low[0], high[0]); ray 1 (towards file 1, stored byte-reversed) is (low[1], high[1]).
    let towards_file_9 =
        _mm512_permutex2var_epi64(first, _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0), second);
    let towards_file_1 =
        _mm512_permutex2var_epi64(first, _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1), second);
    let black_lance = per_lane(&tables.lance_rays[Color::Black.index()], squares);
    let white_lance = per_lane(&tables.lance_rays[Color::White.index()], squares);
    let up = _mm512_ternarylogic_epi64::<0xFE>(
        up_rays(occupied, towards_file_9),
        file_up(occupied, white_lance),
        file_down(occupied, black_lance),
    );
    _mm512_or_si512(up, byte_reverse(up_rays(reversed, towards_file_1)))
}

/// Bishop lines of four squares, occupancies as in [`rook_lines`].
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2")]
fn bishop_lines(
    tables: &Tables,
    occupied: __m512i,
    reversed: __m512i,
    squares: &[Square; LANES],
) -> __m512i {
    let rows = [
        diagonal_row(tables, squares[0]),
        diagonal_row(tables, squares[1]),
        diagonal_row(tables, squares[2]),
        diagonal_row(tables, squares[3]),
    ];
    // A row's qwords are low[0..4], high[0..4]; ray `r` of it is the pair (low[r], high[r]).
    // First two rows at a time: rays 0 and 1 (or 2 and 3) of both squares, one per lane ...
    let rays_01 = _mm512_set_epi64(13, 9, 12, 8, 5, 1, 4, 0);
    let rays_23 = _mm512_set_epi64(15, 11, 14, 10, 7, 3, 6, 2);
    let squares_01_rays_01 = _mm512_permutex2var_epi64(rows[0], rays_01, rows[1]);
    let squares_01_rays_23 = _mm512_permutex2var_epi64(rows[0], rays_23, rows[1]);
    let squares_23_rays_01 = _mm512_permutex2var_epi64(rows[2], rays_01, rows[3]);
    let squares_23_rays_23 = _mm512_permutex2var_epi64(rows[2], rays_23, rows[3]);
    // ... then one register per ray, square `i` in lane `i` (lanes 0 and 2 of each source hold
    // the even ray, lanes 1 and 3 the odd one).
    const EVEN: i32 = 0b10_00_10_00;
    const ODD: i32 = 0b11_01_11_01;
    let ray_0 = _mm512_shuffle_i64x2::<EVEN>(squares_01_rays_01, squares_23_rays_01);
    let ray_1 = _mm512_shuffle_i64x2::<ODD>(squares_01_rays_01, squares_23_rays_01);
    let ray_2 = _mm512_shuffle_i64x2::<EVEN>(squares_01_rays_23, squares_23_rays_23);
    let ray_3 = _mm512_shuffle_i64x2::<ODD>(squares_01_rays_23, squares_23_rays_23);
    // Rays 0 and 2 run up the bit order; rays 1 and 3 run down and are stored byte-reversed,
    // so they read the reversed occupancy and their union is reversed back.
    let down = _mm512_or_si512(up_rays(reversed, ray_1), up_rays(reversed, ray_3));
    _mm512_ternarylogic_epi64::<0xFE>(
        up_rays(occupied, ray_0),
        up_rays(occupied, ray_2),
        byte_reverse(down),
    )
}

/// The attacks of four squares, occupancies as in [`rook_lines`]. The kind is a constant
/// (`Kind as u8`), so that each batch loop is compiled for one kind with its kernel inlined:
/// a kernel left out of line passes its zmm arguments through memory.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2")]
fn four<const KIND: u8>(
    tables: &Tables,
    occupied: __m512i,
    reversed: __m512i,
    squares: &[Square; LANES],
) -> __m512i {
    const ROOK: u8 = Kind::Rook as u8;
    const BISHOP: u8 = Kind::Bishop as u8;
    const DRAGON: u8 = Kind::Dragon as u8;
    match KIND {
        ROOK => rook_lines(tables, occupied, reversed, squares),
        BISHOP => bishop_lines(tables, occupied, reversed, squares),
        DRAGON => _mm512_or_si512(
            rook_lines(tables, occupied, reversed, squares),
            per_lane(&tables.king, squares),
        ),
        _ => _mm512_or_si512(
            bishop_lines(tables, occupied, reversed, squares),
            per_lane(&tables.king, squares),
        ),
    }
}

/// Stores four split bitboards, lane `i` to `out[i]`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2")]
fn store(out: &mut [SplitBitboard; LANES], bits: __m512i) {
    // SAFETY: four `SplitBitboard`s are 64 contiguous writable bytes (`repr(C)`, low word
    // first, as the lanes hold them).
    unsafe { _mm512_storeu_si512(out.as_mut_ptr() as *mut _, bits) }
}

/// `out[i]` = attacks from `squares[i]` under `occupied`, for the leading multiple of four
/// squares; returns how many it computed (the caller does the rest one at a time). The slices
/// must have the same length.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2")]
pub fn attacks_many(
    tables: &Tables,
    kind: Kind,
    occupied: SplitBitboard,
    squares: &[Square],
    out: &mut [SplitBitboard],
) -> usize {
    debug_assert_eq!(squares.len(), out.len());
    match kind {
        Kind::Rook => one_occupancy::<{ Kind::Rook as u8 }>(tables, occupied, squares, out),
        Kind::Bishop => one_occupancy::<{ Kind::Bishop as u8 }>(tables, occupied, squares, out),
        Kind::Dragon => one_occupancy::<{ Kind::Dragon as u8 }>(tables, occupied, squares, out),
        Kind::Horse => one_occupancy::<{ Kind::Horse as u8 }>(tables, occupied, squares, out),
    }
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2")]
fn one_occupancy<const KIND: u8>(
    tables: &Tables,
    occupied: SplitBitboard,
    squares: &[Square],
    out: &mut [SplitBitboard],
) -> usize {
    // SAFETY: `SplitBitboard` is 16 plain bytes, `repr(C)` {low, high}, like an `__m128i`
    // whose qword 0 is the low word.
    let occupied = unsafe { core::mem::transmute::<SplitBitboard, __m128i>(occupied) };
    let occupied = _mm512_broadcast_i32x4(occupied);
    let reversed = byte_reverse(occupied);
    let (square_chunks, _) = squares.as_chunks::<LANES>();
    let (out_chunks, _) = out.as_chunks_mut::<LANES>();
    let mut done = 0;
    for (squares, out) in square_chunks.iter().zip(out_chunks) {
        store(out, four::<KIND>(tables, occupied, reversed, squares));
        done += LANES;
    }
    done
}

/// `out[i]` = attacks from `squares[i]` under `occupancies[i]`, for the leading multiple of
/// four pairs; returns how many it computed. The slices must have the same length.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2")]
pub fn attacks_many_occupancies(
    tables: &Tables,
    kind: Kind,
    occupancies: &[SplitBitboard],
    squares: &[Square],
    out: &mut [SplitBitboard],
) -> usize {
    debug_assert!(squares.len() == occupancies.len() && squares.len() == out.len());
    match kind {
        Kind::Rook => pairs::<{ Kind::Rook as u8 }>(tables, occupancies, squares, out),
        Kind::Bishop => pairs::<{ Kind::Bishop as u8 }>(tables, occupancies, squares, out),
        Kind::Dragon => pairs::<{ Kind::Dragon as u8 }>(tables, occupancies, squares, out),
        Kind::Horse => pairs::<{ Kind::Horse as u8 }>(tables, occupancies, squares, out),
    }
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2")]
fn pairs<const KIND: u8>(
    tables: &Tables,
    occupancies: &[SplitBitboard],
    squares: &[Square],
    out: &mut [SplitBitboard],
) -> usize {
    let (square_chunks, _) = squares.as_chunks::<LANES>();
    let (occupancy_chunks, _) = occupancies.as_chunks::<LANES>();
    let (out_chunks, _) = out.as_chunks_mut::<LANES>();
    let mut done = 0;
    for ((squares, occupancies), out) in square_chunks.iter().zip(occupancy_chunks).zip(out_chunks)
    {
        // SAFETY: four `SplitBitboard`s are 64 contiguous readable bytes, lane `i` = `[i]`.
        let occupied = unsafe { _mm512_loadu_si512(occupancies.as_ptr() as *const _) };
        store(
            out,
            four::<KIND>(tables, occupied, byte_reverse(occupied), squares),
        );
        done += LANES;
    }
    done
}
