//! The portable `u128` twin of the set-wise direction fills.

use super::{
    Plan, KNIGHT_LEFT, KNIGHT_RIGHT, SLIDE_LEFT, SLIDE_RIGHT, SLOTS, STEP_LEFT, STEP_RIGHT,
};

#[inline(always)]
fn left(bits: u128, shift: u32) -> u128 {
    bits << shift
}

#[inline(always)]
fn right(bits: u128, shift: u32) -> u128 {
    bits >> shift
}

/// The squares the sliders in `generator` reach along one direction (an occluded Kogge-Stone
/// fill: three doublings reach 7 squares past the generator, the last shift the 8th).
#[inline(always)]
fn slide(
    generator: u128,
    empty: u128,
    step: u32,
    landing: u128,
    shift: fn(u128, u32) -> u128,
) -> u128 {
    let mut reached = generator;
    let mut open = empty & landing;
    reached |= open & shift(reached, step);
    open &= shift(open, step);
    reached |= open & shift(reached, 2 * step);
    open &= shift(open, 2 * step);
    reached |= open & shift(reached, 4 * step);
    shift(reached, step) & landing
}

/// The 18 direction bitboards, slot order of `generators`.
#[inline]
pub(super) fn directions(plan: &Plan, generators: &[u128; SLOTS], empty: u128) -> [u128; SLOTS] {
    let mut out = [0u128; SLOTS];
    let s = &plan.shifts;
    let l = &plan.landings;
    for i in 0..4 {
        let (a, b) = (SLIDE_LEFT + i, SLIDE_RIGHT + i);
        out[a] = slide(generators[a], empty, s[a], l[a], left);
        out[b] = slide(generators[b], empty, s[b], l[b], right);
        let (c, d) = (STEP_LEFT + i, STEP_RIGHT + i);
        out[c] = left(generators[c], s[c]) & l[c];
        out[d] = right(generators[d], s[d]) & l[d];
    }
    out[KNIGHT_LEFT] = left(generators[KNIGHT_LEFT], s[KNIGHT_LEFT]) & l[KNIGHT_LEFT];
    out[KNIGHT_RIGHT] = right(generators[KNIGHT_RIGHT], s[KNIGHT_RIGHT]) & l[KNIGHT_RIGHT];
    out
}
