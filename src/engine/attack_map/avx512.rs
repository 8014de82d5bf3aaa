//! The AVX-512 set-wise direction fills: four directions (four 128-bit boards) per `zmm`, the
//! 128-bit lane shifts by VBMI2 double-word shifts, the fill steps by `vpternlog`.

use super::{
    Plan, KNIGHT_LEFT, KNIGHT_RIGHT, SLIDE_LEFT, SLIDE_RIGHT, SLOTS, STEP_LEFT, STEP_RIGHT,
};
use std::arch::x86_64::*;

/// Four 128-bit boards from `boards[at..at + 4]`.
#[target_feature(enable = "avx512f")]
#[inline]
fn load(boards: &[u128; SLOTS], at: usize) -> __m512i {
    let four = &boards[at..at + 4];
    // SAFETY: `four` is four u128s, 64 readable bytes; the load is unaligned.
    unsafe { _mm512_loadu_si512(four.as_ptr() as *const __m512i) }
}

/// The 64-bit shift counts of slots `at..at + 4` (each twice), scaled by `times`.
#[target_feature(enable = "avx512f")]
#[inline]
fn counts(plan: &Plan, at: usize, times: u64) -> __m512i {
    let counts = &plan.lane_shifts[2 * at..2 * at + 8];
    // SAFETY: `counts` is eight u64s, 64 readable bytes; the load is unaligned.
    let counts = unsafe { _mm512_loadu_si512(counts.as_ptr() as *const __m512i) };
    scaled(counts, times)
}

/// `counts × times` for `times` in {1, 2, 4}, by shifts (no 64-bit multiply needed).
#[target_feature(enable = "avx512f")]
#[inline]
fn scaled(counts: __m512i, times: u64) -> __m512i {
    match times {
        1 => counts,
        2 => _mm512_slli_epi64::<1>(counts),
        _ => _mm512_slli_epi64::<2>(counts),
    }
}

/// Each 128-bit lane shifted up by its count (< 64): `vpshldvq` shifts the high word with the
/// low word's top bits coming in, and the low word with zeros.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2")]
#[inline]
fn shift_left(x: __m512i, count: __m512i) -> __m512i {
    // [0, low] per 128-bit lane: the word below each word.
    let lower = _mm512_bslli_epi128::<8>(x);
    _mm512_shldv_epi64(x, lower, count)
}

/// Each 128-bit lane shifted down by its count (< 64), by `vpshrdvq`.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2")]
#[inline]
fn shift_right(x: __m512i, count: __m512i) -> __m512i {
    // [high, 0] per 128-bit lane: the word above each word.
    let upper = _mm512_bsrli_epi128::<8>(x);
    _mm512_shrdv_epi64(x, upper, count)
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2")]
#[inline]
fn shift<const LEFT: bool>(x: __m512i, count: __m512i) -> __m512i {
    if LEFT {
        shift_left(x, count)
    } else {
        shift_right(x, count)
    }
}

/// `a | (b & c)` in one `vpternlogq`.
#[target_feature(enable = "avx512f")]
#[inline]
fn or_and(a: __m512i, b: __m512i, c: __m512i) -> __m512i {
    _mm512_ternarylogic_epi64::<0xF8>(a, b, c)
}

/// An occluded fill of four slots at once (see the portable twin).
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2")]
#[inline]
fn slide<const LEFT: bool>(
    plan: &Plan,
    generators: &[u128; SLOTS],
    empty: __m512i,
    at: usize,
) -> __m512i {
    let landing = load(&plan.landings, at);
    let (one, two, four) = (
        counts(plan, at, 1),
        counts(plan, at, 2),
        counts(plan, at, 4),
    );
    let mut reached = load(generators, at);
    let mut open = _mm512_and_si512(empty, landing);
    reached = or_and(reached, open, shift::<LEFT>(reached, one));
    open = _mm512_and_si512(open, shift::<LEFT>(open, one));
    reached = or_and(reached, open, shift::<LEFT>(reached, two));
    open = _mm512_and_si512(open, shift::<LEFT>(open, two));
    reached = or_and(reached, open, shift::<LEFT>(reached, four));
    _mm512_and_si512(shift::<LEFT>(reached, one), landing)
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2")]
#[inline]
fn step<const LEFT: bool>(plan: &Plan, generators: &[u128; SLOTS], at: usize) -> __m512i {
    let moved = shift::<LEFT>(load(generators, at), counts(plan, at, 1));
    _mm512_and_si512(moved, load(&plan.landings, at))
}

#[target_feature(enable = "avx512f")]
#[inline]
fn store(out: &mut [u128; SLOTS], at: usize, value: __m512i) {
    let four = &mut out[at..at + 4];
    // SAFETY: `four` is four u128s, 64 writable bytes; the store is unaligned.
    unsafe { _mm512_storeu_si512(four.as_mut_ptr() as *mut __m512i, value) }
}

/// The 18 direction bitboards, slot order of `generators`.
///
/// # Safety
/// The CPU must have AVX-512 F, BW, VL and VBMI2.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2")]
pub(super) unsafe fn directions(
    plan: &Plan,
    generators: &[u128; SLOTS],
    empty: u128,
) -> [u128; SLOTS] {
    let empty = _mm512_broadcast_i32x4(_mm_set_epi64x((empty >> 64) as i64, empty as i64));
    let mut out = [0u128; SLOTS];
    store(
        &mut out,
        SLIDE_LEFT,
        slide::<true>(plan, generators, empty, SLIDE_LEFT),
    );
    store(
        &mut out,
        SLIDE_RIGHT,
        slide::<false>(plan, generators, empty, SLIDE_RIGHT),
    );
    store(
        &mut out,
        STEP_LEFT,
        step::<true>(plan, generators, STEP_LEFT),
    );
    store(
        &mut out,
        STEP_RIGHT,
        step::<false>(plan, generators, STEP_RIGHT),
    );
    // The two knight jumps go opposite ways: scalar.
    out[KNIGHT_LEFT] =
        (generators[KNIGHT_LEFT] << plan.shifts[KNIGHT_LEFT]) & plan.landings[KNIGHT_LEFT];
    out[KNIGHT_RIGHT] =
        (generators[KNIGHT_RIGHT] >> plan.shifts[KNIGHT_RIGHT]) & plan.landings[KNIGHT_RIGHT];
    out
}
