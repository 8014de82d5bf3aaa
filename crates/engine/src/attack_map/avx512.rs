//! The AVX-512 set-wise direction fills: four directions (four 128-bit boards) per `zmm`, the
//! 128-bit lane shifts by VBMI2 double-word shifts, the fill steps by `vpternlog`.

use super::{
    Plan, SideAttacks, KNIGHT_LEFT, KNIGHT_RIGHT, SLIDE_LEFT, SLIDE_RIGHT, SLOTS, STEP_LEFT,
    STEP_RIGHT,
};
use std::arch::x86_64::*;

/// Four 128-bit boards from `boards[at..at + 4]`, for tables (read-only, long stored).
#[target_feature(enable = "avx512f")]
#[inline]
fn load(boards: &[u128; SLOTS], at: usize) -> __m512i {
    let four = &boards[at..at + 4];
    // SAFETY: `four` is four u128s, 64 readable bytes; the load is unaligned.
    unsafe { _mm512_loadu_si512(four.as_ptr() as *const __m512i) }
}

/// Four 128-bit boards built from 64-bit words, for values just computed: a 64-byte load of
/// what was just stored as 8-byte words cannot be forwarded from the stores and stalls.
#[target_feature(enable = "avx512f")]
#[inline]
fn gather_words(boards: &[u128; SLOTS], at: usize) -> __m512i {
    let word = |i: usize, high: bool| {
        let board = boards[at + i];
        (if high { board >> 64 } else { board }) as u64 as i64
    };
    _mm512_set_epi64(
        word(3, true),
        word(3, false),
        word(2, true),
        word(2, false),
        word(1, true),
        word(1, false),
        word(0, true),
        word(0, false),
    )
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
    let mut reached = gather_words(generators, at);
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
    let moved = shift::<LEFT>(gather_words(generators, at), counts(plan, at, 1));
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

/// The four direction vectors and the knights' two boards (as a fifth vector), in registers.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2")]
#[inline]
fn direction_vectors(plan: &Plan, generators: &[u128; SLOTS], empty: u128) -> [__m512i; 5] {
    let empty = _mm512_broadcast_i32x4(_mm_set_epi64x((empty >> 64) as i64, empty as i64));
    let knight_left =
        (generators[KNIGHT_LEFT] << plan.shifts[KNIGHT_LEFT]) & plan.landings[KNIGHT_LEFT];
    let knight_right =
        (generators[KNIGHT_RIGHT] >> plan.shifts[KNIGHT_RIGHT]) & plan.landings[KNIGHT_RIGHT];
    [
        slide::<true>(plan, generators, empty, SLIDE_LEFT),
        slide::<false>(plan, generators, empty, SLIDE_RIGHT),
        step::<true>(plan, generators, STEP_LEFT),
        step::<false>(plan, generators, STEP_RIGHT),
        _mm512_set_epi64(
            0,
            0,
            0,
            0,
            (knight_right >> 64) as i64,
            knight_right as i64,
            (knight_left >> 64) as i64,
            knight_left as i64,
        ),
    ]
}

/// Full adder on bit planes by two `vpternlogq`: (a ^ b ^ c, majority).
#[target_feature(enable = "avx512f")]
#[inline]
fn full_add(a: __m512i, b: __m512i, c: __m512i) -> (__m512i, __m512i) {
    (
        _mm512_ternarylogic_epi64::<0x96>(a, b, c),
        _mm512_ternarylogic_epi64::<0xE8>(a, b, c),
    )
}

#[target_feature(enable = "avx512f,avx512vl")]
#[inline]
fn full_add_256(a: __m256i, b: __m256i, c: __m256i) -> (__m256i, __m256i) {
    (
        _mm256_ternarylogic_epi64::<0x96>(a, b, c),
        _mm256_ternarylogic_epi64::<0xE8>(a, b, c),
    )
}

#[target_feature(enable = "avx512f,avx512vl")]
#[inline]
fn full_add_128(a: __m128i, b: __m128i, c: __m128i) -> (__m128i, __m128i) {
    (
        _mm_ternarylogic_epi64::<0x96>(a, b, c),
        _mm_ternarylogic_epi64::<0xE8>(a, b, c),
    )
}

#[target_feature(enable = "avx512f")]
#[inline]
fn high_half(x: __m512i) -> __m256i {
    _mm512_extracti64x4_epi64::<1>(x)
}

#[target_feature(enable = "avx2")]
#[inline]
fn to_u128(x: __m128i) -> u128 {
    let low = _mm_cvtsi128_si64(x) as u64 as u128;
    let high = _mm_extract_epi64::<1>(x) as u64 as u128;
    low | (high << 64)
}

/// Union and counts without leaving the registers: a carry-save adder over the five vectors
/// lane by lane (at most 5 per lane: 3 planes), then the four lanes added pairwise (4, then 5
/// planes). Storing 18 boards and reloading them as 128-bit words would stall on forwarding.
///
/// # Safety
/// The CPU must have AVX-512 F, BW, VL and VBMI2.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2")]
pub(super) unsafe fn side_attacks(
    plan: &Plan,
    generators: &[u128; SLOTS],
    empty: u128,
) -> SideAttacks {
    let [slide_left, slide_right, step_left, step_right, knights] =
        direction_vectors(plan, generators, empty);
    let union = _mm512_or_si512(
        _mm512_ternarylogic_epi64::<0xFE>(slide_left, slide_right, step_left),
        _mm512_or_si512(step_right, knights),
    );
    let (partial, carry_a) = full_add(slide_left, slide_right, step_left);
    let (ones, carry_b) = full_add(partial, step_right, knights);
    let twos = _mm512_xor_si512(carry_a, carry_b);
    let fours = _mm512_and_si512(carry_a, carry_b);
    // Lanes 0-1 plus lanes 2-3: 3-bit numbers into 4 bits.
    let low_high = |x: __m512i| (_mm512_castsi512_si256(x), high_half(x));
    let (o0, o1) = low_high(ones);
    let (t0, t1) = low_high(twos);
    let (f0, f1) = low_high(fours);
    let bit0 = _mm256_xor_si256(o0, o1);
    let carry = _mm256_and_si256(o0, o1);
    let (bit1, carry) = full_add_256(t0, t1, carry);
    let (bit2, bit3) = full_add_256(f0, f1, carry);
    // Lane 0 plus lane 1: 4-bit numbers into 5 bits.
    let halves = |x: __m256i| (_mm256_castsi256_si128(x), _mm256_extracti128_si256::<1>(x));
    let (a0, b0) = halves(bit0);
    let (a1, b1) = halves(bit1);
    let (a2, b2) = halves(bit2);
    let (a3, b3) = halves(bit3);
    let plane0 = _mm_xor_si128(a0, b0);
    let carry = _mm_and_si128(a0, b0);
    let (plane1, carry) = full_add_128(a1, b1, carry);
    let (plane2, carry) = full_add_128(a2, b2, carry);
    let (plane3, plane4) = full_add_128(a3, b3, carry);
    let union = _mm256_or_si256(_mm512_castsi512_si256(union), high_half(union));
    let union = _mm_or_si128(
        _mm256_castsi256_si128(union),
        _mm256_extracti128_si256::<1>(union),
    );
    SideAttacks {
        union: to_u128(union),
        planes: [
            to_u128(plane0),
            to_u128(plane1),
            to_u128(plane2),
            to_u128(plane3),
            to_u128(plane4),
        ],
    }
}

/// The union alone (no counts), in registers until the end.
///
/// # Safety
/// The CPU must have AVX-512 F, BW, VL and VBMI2.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2")]
pub(super) unsafe fn union(plan: &Plan, generators: &[u128; SLOTS], empty: u128) -> u128 {
    let [slide_left, slide_right, step_left, step_right, knights] =
        direction_vectors(plan, generators, empty);
    let union = _mm512_or_si512(
        _mm512_ternarylogic_epi64::<0xFE>(slide_left, slide_right, step_left),
        _mm512_or_si512(step_right, knights),
    );
    let union = _mm256_or_si256(_mm512_castsi512_si256(union), high_half(union));
    to_u128(_mm_or_si128(
        _mm256_castsi256_si128(union),
        _mm256_extracti128_si256::<1>(union),
    ))
}
