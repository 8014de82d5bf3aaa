//! Deterministic magic-number search for the split-layout lookup backends (`magic`,
//! `magic-plain`, `pext`), with the ray walking and step tables their lookup tables are built from.
//!
//! Indexing folds the split bitboard into one word, `low | high`: files 1–7 and files 8–9 sit
//! at the same bit positions of their words, so the fold is collision-free only when a
//! relevant-occupancy mask has no bit position used in both words. Every function that folds
//! a mask asserts that first.

use crate::shared::split::{SplitBitboard, HIGH_MASK, LOW_MASK};
use kiki_core::types::{ray, Square};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

pub use kiki_core::types::{BISHOP_DIRECTIONS, ROOK_DIRECTIONS};

/// Step patterns for black as (file delta, rank delta); black moves towards rank 1 (delta −1).
/// White's patterns are the same with the rank delta negated.
pub use kiki_core::types::KING_STEPS;
pub const GOLD_STEPS: [(i8, i8); 6] = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (0, 1)];
pub const SILVER_STEPS: [(i8, i8); 5] = [(-1, -1), (0, -1), (1, -1), (-1, 1), (1, 1)];
pub const KNIGHT_STEPS: [(i8, i8); 2] = [(-1, -2), (1, -2)];
pub const PAWN_STEPS: [(i8, i8); 1] = [(0, -1)];

/// The split bitboard of one square (const twin of `Bitboard::square`).
#[inline(always)]
pub const fn square_bit(sq: Square) -> SplitBitboard {
    SplitBitboard::from_canonical_const(sq.bit())
}

#[inline(always)]
const fn or(a: SplitBitboard, b: SplitBitboard) -> SplitBitboard {
    SplitBitboard::new(a.low | b.low, a.high | b.high)
}

/// The squares a slider on `sq` reaches along `directions` given `occupied` (each ray stops
/// at, and includes, the first occupied square).
pub const fn sliding_attacks(
    sq: Square,
    occupied: SplitBitboard,
    directions: &[(i8, i8)],
) -> SplitBitboard {
    // Only square bits block: bits outside the layout's masks are ignored, as ever.
    let occupancy =
        SplitBitboard::new(occupied.low & LOW_MASK, occupied.high & HIGH_MASK).to_canonical_const();
    let mut attacks = 0u128;
    let mut d = 0;
    while d < directions.len() {
        attacks |= ray(occupancy, sq, directions[d].0, directions[d].1);
        d += 1;
    }
    SplitBitboard::from_canonical_const(attacks)
}

/// The relevant-occupancy mask: each ray without its last (edge) square, since a piece there
/// blocks nothing beyond it.
pub const fn relevant_mask(sq: Square, directions: &[(i8, i8)]) -> SplitBitboard {
    let mut mask = 0u128;
    let mut d = 0;
    while d < directions.len() {
        let (file_delta, rank_delta) = directions[d];
        let full = ray(0, sq, file_delta, rank_delta);
        // Canonical indices run monotonically along a ray (a step moves the index by
        // 9 * file_delta + rank_delta), so the edge square is the ray's highest or lowest bit.
        let edge = if full == 0 {
            0
        } else if 9 * file_delta + rank_delta > 0 {
            1 << (127 - full.leading_zeros())
        } else {
            full & full.wrapping_neg()
        };
        mask |= full & !edge;
        d += 1;
    }
    SplitBitboard::from_canonical_const(mask)
}

/// Step attacks from `sq` for `steps` (black's orientation when `flip_rank` is false).
pub const fn step_attacks(sq: Square, steps: &[(i8, i8)], flip_rank: bool) -> SplitBitboard {
    let mut attacks = SplitBitboard::new(0, 0);
    let mut i = 0;
    while i < steps.len() {
        let (file_delta, rank_delta) = steps[i];
        let rank_delta = if flip_rank { -rank_delta } else { rank_delta };
        if let Some(target) = sq.offset(file_delta, rank_delta) {
            attacks = or(attacks, square_bit(target));
        }
        i += 1;
    }
    attacks
}

/// A per-square step table.
pub const fn step_table(steps: &[(i8, i8)], flip_rank: bool) -> [SplitBitboard; 81] {
    let mut table = [SplitBitboard::new(0, 0); 81];
    let mut i = 0;
    while i < 81 {
        // i < 81, so the square exists.
        let sq = match Square::new(i as u8) {
            Some(sq) => sq,
            None => panic!("square index out of range"),
        };
        table[i] = step_attacks(sq, steps, flip_rank);
        i += 1;
    }
    table
}

/// Per-square masks of the full ray in one direction on an empty board (lance rays).
pub const fn ray_table(direction: (i8, i8)) -> [SplitBitboard; 81] {
    let mut table = [SplitBitboard::new(0, 0); 81];
    let mut i = 0;
    while i < 81 {
        let sq = match Square::new(i as u8) {
            Some(sq) => sq,
            None => panic!("square index out of range"),
        };
        table[i] = sliding_attacks(sq, SplitBitboard::new(0, 0), &[direction]);
        i += 1;
    }
    table
}

/// Per-square relevant-occupancy masks.
pub const fn mask_table(directions: &[(i8, i8)]) -> [SplitBitboard; 81] {
    let mut table = [SplitBitboard::new(0, 0); 81];
    let mut i = 0;
    while i < 81 {
        let sq = match Square::new(i as u8) {
            Some(sq) => sq,
            None => panic!("square index out of range"),
        };
        let mask = relevant_mask(sq, directions);
        assert!(fold_is_collision_free(mask));
        table[i] = mask;
        i += 1;
    }
    table
}

/// Whether `low | high` loses nothing for occupancies inside `mask`.
#[inline(always)]
pub const fn fold_is_collision_free(mask: SplitBitboard) -> bool {
    mask.low & mask.high == 0
}

/// The index bits of a mask: its population count.
#[inline(always)]
pub const fn mask_bits(mask: SplitBitboard) -> u32 {
    mask.low.count_ones() + mask.high.count_ones()
}

/// Sum over the 81 squares of `2^popcount(mask)`: the entries of a minimal (fancy magic or
/// PEXT) table.
pub const fn minimal_entries(directions: &[(i8, i8)]) -> usize {
    let masks = mask_table(directions);
    let mut total = 0usize;
    let mut i = 0;
    while i < 81 {
        total += 1usize << mask_bits(masks[i]);
        i += 1;
    }
    total
}

/// Every subset of `mask`, in the order of their compressed (PEXT) index over the folded mask:
/// the n-th subset yielded is the one `pext(fold, fold(mask))` maps to n.
pub fn subsets(mask: SplitBitboard) -> impl Iterator<Item = SplitBitboard> {
    assert!(
        fold_is_collision_free(mask),
        "relevant-occupancy bits of low and high overlap: {mask:?}"
    );
    let folded = mask.merged();
    let mut next = Some(0u64);
    std::iter::from_fn(move || {
        let subset = next?;
        // Carry-rippler: the next subset in increasing order of the compressed index.
        let following = subset.wrapping_sub(folded) & folded;
        next = (following != 0).then_some(following);
        Some(SplitBitboard::new(subset & mask.low, subset & mask.high))
    })
}

/// The magic index of an occupancy already restricted to its mask.
#[inline(always)]
pub const fn magic_index(masked: SplitBitboard, magic: u64, bits: u32) -> usize {
    (masked.merged().wrapping_mul(magic) >> (64 - bits)) as usize
}

/// Proves that `magic` maps every subset of `mask` to a `bits`-bit index with no destructive
/// collision (two subsets sharing an index must have the same attacks).
pub fn verify_magic(
    mask: SplitBitboard,
    bits: u32,
    magic: u64,
    attack: impl Fn(SplitBitboard) -> SplitBitboard,
) -> Result<(), String> {
    assert!((1..=63).contains(&bits), "index width {bits} out of range");
    let mut seen: Vec<Option<(SplitBitboard, SplitBitboard)>> = vec![None; 1 << bits];
    for subset in subsets(mask) {
        let index = magic_index(subset, magic, bits);
        let attacks = attack(subset);
        match seen[index] {
            None => seen[index] = Some((subset, attacks)),
            Some((other, other_attacks)) if other_attacks != attacks => {
                return Err(format!(
                    "magic {magic:#018x} ({bits} bits) maps {other:?} and {subset:?} to index \
                     {index} with different attacks"
                ))
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// Searches sparse random candidates (`a & b & c`) drawn from `rng` for a magic that maps every
/// subset of `mask` into `bits` bits without destructive collision. Gives up after
/// `max_candidates` candidates.
pub fn find_magic(
    mask: SplitBitboard,
    bits: u32,
    attack: impl Fn(SplitBitboard) -> SplitBitboard,
    rng: &mut Xoshiro256PlusPlus,
    max_candidates: u64,
) -> Option<u64> {
    assert!((1..=63).contains(&bits), "index width {bits} out of range");
    let occupancies: Vec<SplitBitboard> = subsets(mask).collect();
    let attacks: Vec<SplitBitboard> = occupancies.iter().map(|&o| attack(o)).collect();
    let folded_mask = mask.merged();
    // Stamped slots: a slot is filled in this round only if its stamp equals the round number,
    // so the table is never cleared between candidates.
    let mut stamps = vec![0u64; 1 << bits];
    let mut slots = vec![SplitBitboard::new(0, 0); 1 << bits];
    for round in 1..=max_candidates {
        let magic = rng.next_u64() & rng.next_u64() & rng.next_u64();
        // Cheap filter: the mask's product must spread enough bits into the index.
        if (folded_mask.wrapping_mul(magic) >> (64 - bits)).count_ones() < bits.min(6) {
            continue;
        }
        let mut ok = true;
        for (occupancy, &expected) in occupancies.iter().zip(&attacks) {
            let index = magic_index(*occupancy, magic, bits);
            if stamps[index] != round {
                stamps[index] = round;
                slots[index] = expected;
            } else if slots[index] != expected {
                ok = false;
                break;
            }
        }
        if ok {
            return Some(magic);
        }
    }
    None
}

/// Candidates tried per seed before moving to the next seed.
pub const CANDIDATES_PER_SEED: u64 = 10_000_000;

/// The deterministic search for one square: seeds `base_seed ^ (square << 16) ^ (try << 32)`
/// for try = 0, 1, … up to `max_seeds` seeds (`None`: until one yields a magic).
pub fn search_square(
    sq: Square,
    directions: &[(i8, i8)],
    bits: u32,
    base_seed: u64,
    max_seeds: Option<u64>,
) -> Option<u64> {
    let mask = relevant_mask(sq, directions);
    let attack = |occupied| sliding_attacks(sq, occupied, directions);
    (0u64..max_seeds.unwrap_or(u64::MAX)).find_map(|attempt| {
        let seed = base_seed ^ ((sq.index() as u64) << 16) ^ (attempt << 32);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        find_magic(mask, bits, attack, &mut rng, CANDIDATES_PER_SEED)
    })
}

/// How wide each square's index is.
#[derive(Clone, Copy, Debug)]
pub enum Width {
    /// Every square uses this many bits (seed 004's fixed 14).
    Fixed(u32),
    /// The mask's popcount (fancy magic); a square whose search finds nothing within
    /// `max_seeds` seeds gets one bit more, searched without limit.
    Minimal { max_seeds: u64 },
}

/// Index widths and magics for all 81 squares.
pub fn search_magics(
    directions: &[(i8, i8)],
    width: Width,
    base_seed: u64,
) -> ([u32; 81], [u64; 81]) {
    let mut widths = [0u32; 81];
    let mut magics = [0u64; 81];
    for sq in Square::all() {
        let (bits, magic) = match width {
            Width::Fixed(bits) => (bits, search_square(sq, directions, bits, base_seed, None)),
            Width::Minimal { max_seeds } => {
                let bits = mask_bits(relevant_mask(sq, directions));
                match search_square(sq, directions, bits, base_seed, Some(max_seeds)) {
                    Some(magic) => (bits, Some(magic)),
                    None => (
                        bits + 1,
                        search_square(sq, directions, bits + 1, base_seed, None),
                    ),
                }
            }
        };
        widths[sq.index()] = bits;
        magics[sq.index()] = magic.expect("an unbounded search only ends with a magic");
    }
    (widths, magics)
}

/// Renders a `[u32; 81]` table of index widths as Rust source, nine to a line (one file a line).
pub fn render_widths(name: &str, widths: &[u32; 81]) -> String {
    let mut out = format!("#[rustfmt::skip]\npub const {name}: [u32; 81] = [\n");
    for file in widths.chunks(9) {
        let line: Vec<String> = file.iter().map(|w| format!("{w},")).collect();
        out.push_str(&format!("    {}\n", line.join(" ")));
    }
    out.push_str("];\n");
    out
}

/// Renders a `[u64; 81]` constant as Rust source, nine to a line (one file per line).
pub fn render_magics(name: &str, magics: &[u64; 81]) -> String {
    let mut out = format!("#[rustfmt::skip]\npub const {name}: [u64; 81] = [\n");
    for file in magics.chunks(9) {
        for (i, magic) in file.iter().enumerate() {
            out.push_str(if i == 0 { "    " } else { " " });
            out.push_str(&format!("{magic:#018x},"));
        }
        out.push('\n');
    }
    out.push_str("];\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiki_core::reference;

    #[test]
    fn ray_walking_matches_the_reference() {
        let occupied: u128 = 0x1_2345_6789_abcd_ef01_2345_6789;
        let split = SplitBitboard::from_canonical_const(occupied);
        for sq in Square::all() {
            let rook = sliding_attacks(sq, split, &ROOK_DIRECTIONS).to_canonical_const();
            let bishop = sliding_attacks(sq, split, &BISHOP_DIRECTIONS).to_canonical_const();
            assert_eq!(rook, reference::rook(occupied, sq));
            assert_eq!(bishop, reference::bishop(occupied, sq));
        }
    }

    #[test]
    fn masks_fold_without_collision_and_have_the_expected_widths() {
        let rook = mask_table(&ROOK_DIRECTIONS);
        let bishop = mask_table(&BISHOP_DIRECTIONS);
        let rook_bits: Vec<u32> = rook.iter().map(|&m| mask_bits(m)).collect();
        let bishop_bits: Vec<u32> = bishop.iter().map(|&m| mask_bits(m)).collect();
        assert_eq!(rook_bits.iter().min(), Some(&12));
        assert_eq!(rook_bits.iter().max(), Some(&14));
        assert_eq!(bishop_bits.iter().min(), Some(&6));
        assert_eq!(bishop_bits.iter().max(), Some(&12));
        assert_eq!(minimal_entries(&ROOK_DIRECTIONS), 495_616);
        assert_eq!(minimal_entries(&BISHOP_DIRECTIONS), 20_224);
    }

    #[test]
    fn subsets_come_in_compressed_index_order() {
        let mask = relevant_mask(Square::parse("1e").unwrap(), &ROOK_DIRECTIONS);
        let all: Vec<SplitBitboard> = subsets(mask).collect();
        assert_eq!(all.len(), 1 << mask_bits(mask));
        assert_eq!(all[0], SplitBitboard::new(0, 0));
        assert_eq!(*all.last().unwrap(), mask);
        let folded: Vec<u64> = all.iter().map(|s| s.merged()).collect();
        assert!(folded.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn a_bad_magic_is_refuted() {
        let sq = Square::parse("5e").unwrap();
        let mask = relevant_mask(sq, &ROOK_DIRECTIONS);
        let result = verify_magic(mask, 12, 1, |o| sliding_attacks(sq, o, &ROOK_DIRECTIONS));
        assert!(result.is_err());
    }

    #[test]
    fn search_finds_a_verified_magic() {
        let sq = Square::parse("3c").unwrap();
        let mask = relevant_mask(sq, &BISHOP_DIRECTIONS);
        let bits = mask_bits(mask);
        let magic = search_square(sq, &BISHOP_DIRECTIONS, bits, 7, Some(1)).unwrap();
        let attack = |o| sliding_attacks(sq, o, &BISHOP_DIRECTIONS);
        assert_eq!(verify_magic(mask, bits, magic, attack), Ok(()));
    }
}
