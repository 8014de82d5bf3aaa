//! The AVX2 set-wise direction fills: two directions (two 128-bit boards) per `ymm`.

use super::{
    Plan, SideAttacks, KNIGHT_LEFT, KNIGHT_RIGHT, SLIDE_LEFT, SLIDE_RIGHT, SLOTS, STEP_LEFT,
    STEP_RIGHT,
};
use std::arch::x86_64::*;

/// Two 128-bit boards from `boards[at..at + 2]`.
#[target_feature(enable = "avx2")]
#[inline]
fn load(boards: &[u128; SLOTS], at: usize) -> __m256i {
    let pair = &boards[at..at + 2];
    // SAFETY: `pair` is two u128s, 32 readable bytes; the load is unaligned.
    unsafe { _mm256_loadu_si256(pair.as_ptr() as *const __m256i) }
}

/// Two 128-bit boards built from 64-bit words, for values just computed: a 32-byte load of
/// what was just stored as 8-byte words cannot be forwarded from the stores and stalls.
#[target_feature(enable = "avx2")]
#[inline]
fn gather_words(boards: &[u128; SLOTS], at: usize) -> __m256i {
    let word = |i: usize, high: bool| {
        let board = boards[at + i];
        (if high { board >> 64 } else { board }) as u64 as i64
    };
    _mm256_set_epi64x(word(1, true), word(1, false), word(0, true), word(0, false))
}

/// The 64-bit shift counts of slots `at` and `at + 1`, scaled by `times`, and 64 minus them.
#[target_feature(enable = "avx2")]
#[inline]
fn counts(plan: &Plan, at: usize, times: u64) -> (__m256i, __m256i) {
    let s = &plan.lane_shifts[2 * at..2 * at + 4];
    let (a, b) = (s[0] * times, s[2] * times);
    // Little-endian lanes: (low word, high word) of slot `at`, then of slot `at + 1`.
    let count = _mm256_set_epi64x(b as i64, b as i64, a as i64, a as i64);
    let inverse = _mm256_sub_epi64(_mm256_set1_epi64x(64), count);
    (count, inverse)
}

/// Each 128-bit lane shifted up by its count (< 64): the low word's top bits carry into the high.
#[target_feature(enable = "avx2")]
#[inline]
fn shift_left(x: __m256i, (count, inverse): (__m256i, __m256i)) -> __m256i {
    // [0, low] per 128-bit lane: what carries into each word from the word below.
    let lower = _mm256_slli_si256::<8>(x);
    _mm256_or_si256(
        _mm256_sllv_epi64(x, count),
        _mm256_srlv_epi64(lower, inverse),
    )
}

/// Each 128-bit lane shifted down by its count (< 64).
#[target_feature(enable = "avx2")]
#[inline]
fn shift_right(x: __m256i, (count, inverse): (__m256i, __m256i)) -> __m256i {
    let upper = _mm256_srli_si256::<8>(x);
    _mm256_or_si256(
        _mm256_srlv_epi64(x, count),
        _mm256_sllv_epi64(upper, inverse),
    )
}

/// An occluded fill of two slots at once (see the portable twin).
#[target_feature(enable = "avx2")]
#[inline]
fn slide<const LEFT: bool>(
    plan: &Plan,
    generators: &[u128; SLOTS],
    empty: __m256i,
    at: usize,
) -> __m256i {
    let shift = |x, counts| {
        if LEFT {
            shift_left(x, counts)
        } else {
            shift_right(x, counts)
        }
    };
    let landing = load(&plan.landings, at);
    let (one, two, four) = (
        counts(plan, at, 1),
        counts(plan, at, 2),
        counts(plan, at, 4),
    );
    let mut reached = gather_words(generators, at);
    let mut open = _mm256_and_si256(empty, landing);
    reached = _mm256_or_si256(reached, _mm256_and_si256(open, shift(reached, one)));
    open = _mm256_and_si256(open, shift(open, one));
    reached = _mm256_or_si256(reached, _mm256_and_si256(open, shift(reached, two)));
    open = _mm256_and_si256(open, shift(open, two));
    reached = _mm256_or_si256(reached, _mm256_and_si256(open, shift(reached, four)));
    _mm256_and_si256(shift(reached, one), landing)
}

#[target_feature(enable = "avx2")]
#[inline]
fn step<const LEFT: bool>(plan: &Plan, generators: &[u128; SLOTS], at: usize) -> __m256i {
    let moved = if LEFT {
        shift_left(gather_words(generators, at), counts(plan, at, 1))
    } else {
        shift_right(gather_words(generators, at), counts(plan, at, 1))
    };
    _mm256_and_si256(moved, load(&plan.landings, at))
}

#[target_feature(enable = "avx2")]
#[inline]
fn store(out: &mut [u128; SLOTS], at: usize, value: __m256i) {
    let pair = &mut out[at..at + 2];
    // SAFETY: `pair` is two u128s, 32 writable bytes; the store is unaligned.
    unsafe { _mm256_storeu_si256(pair.as_mut_ptr() as *mut __m256i, value) }
}

/// The 18 direction bitboards, slot order of `generators`.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn directions(
    plan: &Plan,
    generators: &[u128; SLOTS],
    empty: u128,
) -> [u128; SLOTS] {
    let empty = _mm256_broadcastsi128_si256(_mm_set_epi64x((empty >> 64) as i64, empty as i64));
    let mut out = [0u128; SLOTS];
    for at in [SLIDE_LEFT, SLIDE_LEFT + 2] {
        store(&mut out, at, slide::<true>(plan, generators, empty, at));
    }
    for at in [SLIDE_RIGHT, SLIDE_RIGHT + 2] {
        store(&mut out, at, slide::<false>(plan, generators, empty, at));
    }
    for at in [STEP_LEFT, STEP_LEFT + 2] {
        store(&mut out, at, step::<true>(plan, generators, at));
    }
    for at in [STEP_RIGHT, STEP_RIGHT + 2] {
        store(&mut out, at, step::<false>(plan, generators, at));
    }
    // The two knight jumps go opposite ways: scalar.
    out[KNIGHT_LEFT] =
        (generators[KNIGHT_LEFT] << plan.shifts[KNIGHT_LEFT]) & plan.landings[KNIGHT_LEFT];
    out[KNIGHT_RIGHT] =
        (generators[KNIGHT_RIGHT] >> plan.shifts[KNIGHT_RIGHT]) & plan.landings[KNIGHT_RIGHT];
    out
}

/// Full adder on bit planes: (a ^ b ^ c, majority).
#[target_feature(enable = "avx2")]
#[inline]
fn full_add(a: __m256i, b: __m256i, c: __m256i) -> (__m256i, __m256i) {
    let partial = _mm256_xor_si256(a, b);
    (
        _mm256_xor_si256(partial, c),
        _mm256_or_si256(_mm256_and_si256(a, b), _mm256_and_si256(partial, c)),
    )
}

#[target_feature(enable = "avx2")]
#[inline]
fn full_add_128(a: __m128i, b: __m128i, c: __m128i) -> (__m128i, __m128i) {
    let partial = _mm_xor_si128(a, b);
    (
        _mm_xor_si128(partial, c),
        _mm_or_si128(_mm_and_si128(a, b), _mm_and_si128(partial, c)),
    )
}

#[target_feature(enable = "avx2")]
#[inline]
fn to_u128(x: __m128i) -> u128 {
    let low = _mm_cvtsi128_si64(x) as u64 as u128;
    let high = _mm_extract_epi64::<1>(x) as u64 as u128;
    low | (high << 64)
}

/// The eight direction pairs and the knights' pair, in registers.
#[target_feature(enable = "avx2")]
#[inline]
fn direction_vectors(plan: &Plan, generators: &[u128; SLOTS], empty: u128) -> [__m256i; 9] {
    let empty = _mm256_broadcastsi128_si256(_mm_set_epi64x((empty >> 64) as i64, empty as i64));
    let knight_left =
        (generators[KNIGHT_LEFT] << plan.shifts[KNIGHT_LEFT]) & plan.landings[KNIGHT_LEFT];
    let knight_right =
        (generators[KNIGHT_RIGHT] >> plan.shifts[KNIGHT_RIGHT]) & plan.landings[KNIGHT_RIGHT];
    [
        slide::<true>(plan, generators, empty, SLIDE_LEFT),
        slide::<true>(plan, generators, empty, SLIDE_LEFT + 2),
        slide::<false>(plan, generators, empty, SLIDE_RIGHT),
        slide::<false>(plan, generators, empty, SLIDE_RIGHT + 2),
        step::<true>(plan, generators, STEP_LEFT),
        step::<true>(plan, generators, STEP_LEFT + 2),
        step::<false>(plan, generators, STEP_RIGHT),
        step::<false>(plan, generators, STEP_RIGHT + 2),
        _mm256_set_epi64x(
            (knight_right >> 64) as i64,
            knight_right as i64,
            (knight_left >> 64) as i64,
            knight_left as i64,
        ),
    ]
}

/// Union and counts without leaving the registers: a carry-save adder over the nine pairs
/// lane by lane (at most 9 per lane: 4 planes), then the two lanes added (5 planes).
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn side_attacks(
    plan: &Plan,
    generators: &[u128; SLOTS],
    empty: u128,
) -> SideAttacks {
    let d = direction_vectors(plan, generators, empty);
    let union = d[1..].iter().fold(d[0], |acc, &x| _mm256_or_si256(acc, x));
    let (s1, c1) = full_add(d[0], d[1], d[2]);
    let (s2, c2) = full_add(d[3], d[4], d[5]);
    let (s3, c3) = full_add(d[6], d[7], d[8]);
    let (ones, c4) = full_add(s1, s2, s3);
    let (t, e1) = full_add(c1, c2, c3);
    let twos = _mm256_xor_si256(t, c4);
    let e2 = _mm256_and_si256(t, c4);
    let fours = _mm256_xor_si256(e1, e2);
    let eights = _mm256_and_si256(e1, e2);
    let halves = |x: __m256i| (_mm256_castsi256_si128(x), _mm256_extracti128_si256::<1>(x));
    let (a0, b0) = halves(ones);
    let (a1, b1) = halves(twos);
    let (a2, b2) = halves(fours);
    let (a3, b3) = halves(eights);
    let plane0 = _mm_xor_si128(a0, b0);
    let carry = _mm_and_si128(a0, b0);
    let (plane1, carry) = full_add_128(a1, b1, carry);
    let (plane2, carry) = full_add_128(a2, b2, carry);
    let (plane3, plane4) = full_add_128(a3, b3, carry);
    let (u0, u1) = halves(union);
    SideAttacks {
        union: to_u128(_mm_or_si128(u0, u1)),
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
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn union(plan: &Plan, generators: &[u128; SLOTS], empty: u128) -> u128 {
    let d = direction_vectors(plan, generators, empty);
    let union = d[1..].iter().fold(d[0], |acc, &x| _mm256_or_si256(acc, x));
    to_u128(_mm_or_si128(
        _mm256_castsi256_si128(union),
        _mm256_extracti128_si256::<1>(union),
    ))
}
