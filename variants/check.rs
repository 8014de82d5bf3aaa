//! The differential check: every backend against the naive reference, on exhaustive line
//! patterns, random occupancies, step attacks and incremental occupancy updates.

use kiki_core::backend::{Backend, Bitboard};
use kiki_core::reference;
use kiki_core::reference::random_occupancy;
use kiki_core::types::{
    draw_board, ray, Slider, Square, Stepper, ALL_SQUARES, BISHOP_DIRECTIONS, ROOK_DIRECTIONS,
};
use rand::{Rng, RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::fmt;

/// Densities the random check cycles through.
pub const DENSITIES: [f64; 4] = [0.10, 0.25, 0.50, 0.75];

/// One disagreement with the reference, with everything needed to reproduce it.
#[derive(Clone, Debug)]
pub struct Mismatch {
    pub backend: &'static str,
    pub context: String,
    pub square: Square,
    pub piece: String,
    pub occupancy: u128,
    pub expected: u128,
    pub got: u128,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "MISMATCH backend={} piece={} square={} ({}) occupancy={:#x}",
            self.backend, self.piece, self.square, self.context, self.occupancy
        )?;
        writeln!(f, "occupancy (o = occupied, @ = the piece's square):")?;
        let occupancy = self.occupancy;
        let square = self.square;
        f.write_str(&draw_board(|s| {
            if s == square {
                '@'
            } else if occupancy & s.bit() != 0 {
                'o'
            } else {
                '.'
            }
        }))?;
        writeln!(f, "expected (reference):")?;
        f.write_str(&kiki_core::types::draw_bits(self.expected))?;
        writeln!(f, "got ({}):", self.backend)?;
        f.write_str(&kiki_core::types::draw_bits(self.got))
    }
}

/// What a passing check covered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckReport {
    pub bitboard_checks: u64,
    pub step_lookups: u64,
    pub pattern_lookups: u64,
    pub random_pairs: u64,
    pub random_lookups: u64,
    pub incremental_updates: u64,
}

impl fmt::Display for CheckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} bitboard-op checks, {} step lookups, {} exhaustive line-pattern lookups, \
             {} random (square, occupancy) pairs ({} lookups), {} incremental set/clear updates",
            self.bitboard_checks,
            self.step_lookups,
            self.pattern_lookups,
            self.random_pairs,
            self.random_lookups,
            self.incremental_updates
        )
    }
}

type CheckResult<T> = Result<T, Box<Mismatch>>;

/// Compares one answer; strings are built only for a mismatch (the check runs 10^9 of these).
fn compare<B: Backend>(
    context: &str,
    square: Square,
    piece: &str,
    occupancy: u128,
    expected: u128,
    got: B::Bitboard,
) -> CheckResult<()> {
    let got = got.to_canonical();
    if got == expected {
        Ok(())
    } else {
        Err(Box::new(Mismatch {
            backend: B::info().name,
            context: context.to_string(),
            square,
            piece: piece.to_string(),
            occupancy,
            expected,
            got,
        }))
    }
}

fn check_slider<B: Backend>(
    backend: &B,
    context: &str,
    slider: Slider,
    occupancy_bits: u128,
    occupancy: &B::Occupancy,
    sq: Square,
) -> CheckResult<()> {
    compare::<B>(
        context,
        sq,
        slider.name(),
        occupancy_bits,
        reference::slider(slider, occupancy_bits, sq),
        backend.slider_attacks(slider, occupancy, sq),
    )
}

/// The bitboard operations agree with the canonical `u128`.
pub fn check_bitboard_ops<B: Backend>(seed: u64, rounds: u64) -> CheckResult<u64> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut checks = 0u64;
    let fail = |context: &str, expected: u128, got: u128| {
        Box::new(Mismatch {
            backend: B::info().name,
            context: context.to_string(),
            square: Square::new(0).unwrap(),
            piece: "bitboard".into(),
            occupancy: 0,
            expected,
            got,
        })
    };
    for sq in Square::all() {
        let single = B::Bitboard::square(sq).to_canonical();
        if single != sq.bit() {
            return Err(fail("square()", sq.bit(), single));
        }
        checks += 1;
    }
    for round in 0..rounds {
        let density = DENSITIES[(round % 4) as usize];
        let a = random_occupancy(&mut rng, density);
        let b = random_occupancy(&mut rng, density);
        let (x, y) = (
            B::Bitboard::from_canonical(a),
            B::Bitboard::from_canonical(b),
        );
        let cases = [
            ("roundtrip", a, x.to_canonical()),
            ("and", a & b, (x & y).to_canonical()),
            ("or", a | b, (x | y).to_canonical()),
            ("xor", a ^ b, (x ^ y).to_canonical()),
            ("and_not", a & !b, x.and_not(y).to_canonical()),
            ("count", a.count_ones() as u128, x.count() as u128),
            ("is_empty", (a == 0) as u128, x.is_empty() as u128),
            (
                "squares",
                a,
                x.squares().fold(0u128, |acc, s| acc | s.bit()),
            ),
            (
                "squares count",
                a.count_ones() as u128,
                x.squares().count() as u128,
            ),
            (
                "from_canonical ignores bits above 80",
                a,
                B::Bitboard::from_canonical(a | !ALL_SQUARES).to_canonical(),
            ),
        ];
        for (context, expected, got) in cases {
            if expected != got {
                return Err(fail(context, expected, got));
            }
            checks += 1;
        }
        let sq = Square::new(rng.random_range(0..81)).unwrap();
        if x.contains(sq) != (a & sq.bit() != 0) {
            return Err(fail("contains", a & sq.bit(), 0));
        }
        checks += 1;
    }
    let mut mutable = B::Bitboard::empty();
    mutable |= B::Bitboard::from_canonical(5);
    mutable &= B::Bitboard::from_canonical(4);
    mutable ^= B::Bitboard::from_canonical(6);
    if mutable.to_canonical() != 2 {
        return Err(fail("assign operators", 2, mutable.to_canonical()));
    }
    Ok(checks + 1)
}

/// Step attacks on all 81 squares.
pub fn check_steps<B: Backend>(backend: &B) -> CheckResult<u64> {
    let mut lookups = 0;
    for sq in Square::all() {
        for stepper in Stepper::ALL {
            compare::<B>(
                "step attacks",
                sq,
                &stepper.name(),
                0,
                reference::stepper(stepper, sq),
                backend.stepper_attacks(stepper, sq),
            )?;
            lookups += 1;
        }
    }
    Ok(lookups)
}

/// The squares of the full line through `sq` in `direction` (including `sq`), its two end
/// squares, and the inner squares other than `sq` itself.
fn line_parts(sq: Square, direction: (i8, i8)) -> (u128, u128) {
    let full = reference::line(sq, direction) | sq.bit();
    let low = full & full.wrapping_neg();
    let high = 1u128 << (127 - full.leading_zeros());
    let ends = low | high;
    (ends, full & !ends & !sq.bit())
}

/// Every pattern of the inner squares of each line through every square, for every slider,
/// with the end squares in all four states, on an otherwise empty and on a random background.
pub fn check_line_patterns<B: Backend>(backend: &B, seed: u64) -> CheckResult<u64> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x11AE_5EED);
    let mut lookups = 0;
    for sq in Square::all() {
        for slider in Slider::ALL {
            let lines: &[(i8, i8)] = match slider {
                Slider::Rook | Slider::Dragon => &reference::LINES[0..2],
                Slider::Bishop | Slider::Horse => &reference::LINES[2..4],
                Slider::Lance(_) => &reference::LINES[0..1],
            };
            for &direction in lines {
                let (ends, inner) = line_parts(sq, direction);
                let line_bits = ends | inner | sq.bit();
                let mut subset = 0u128;
                loop {
                    let background = random_occupancy(&mut rng, 0.5) & !line_bits;
                    let mut end_state = 0u128;
                    loop {
                        for extra in [0, background] {
                            let bits = subset | end_state | extra;
                            let occupancy = backend.occupancy(bits);
                            check_slider(backend, "line pattern", slider, bits, &occupancy, sq)?;
                            lookups += 1;
                        }
                        end_state = end_state.wrapping_sub(ends) & ends;
                        if end_state == 0 {
                            break;
                        }
                    }
                    subset = subset.wrapping_sub(inner) & inner;
                    if subset == 0 {
                        break;
                    }
                }
            }
        }
    }
    Ok(lookups)
}

/// The incremental check runs one update per 20 random pairs, up to this many (each update
/// probes twelve lookups against the naive walker and a rebuilt occupancy).
pub const MAX_INCREMENTAL_UPDATES: u64 = 5_000_000;

/// Random pairs are drawn in blocks of this many, each block from its own seeded stream, so
/// that the same pairs are checked whatever the number of threads (a multiple of
/// `SQUARES_PER_OCCUPANCY`, so that no occupancy straddles two blocks).
pub const RANDOM_BLOCK: u64 = 9 << 13;

/// `pairs` random (square, occupancy) pairs cycling through `DENSITIES`, every slider each.
pub fn check_random<B: Backend>(backend: &B, pairs: u64, seed: u64) -> CheckResult<u64> {
    check_random_parallel(backend, pairs, seed, 1, &|_| {})
}

/// The random pairs' answer key: the classical ray-mask method (the first blocker on each ray
/// found by one bit scan), built from the naive walker's (`types::ray`) empty-board rays and proven
/// equal to that walker on every blocker pattern of every ray of every square (tests below). It is
/// an order of magnitude faster than the walker, which is what lets `kiki check` run 10^9 pairs;
/// the exhaustive line patterns and the incremental updates keep the naive walker itself.
pub struct RayOracle {
    /// `[square][direction]`: the squares of the ray on an empty board.
    rays: [[u128; 8]; 81],
    /// `[square]`: the king's step squares (dragon and horse add them).
    king: [u128; 81],
}

/// The eight directions: the rook's four, then the bishop's four.
const ORACLE_DIRECTIONS: [(i8, i8); 8] = [
    ROOK_DIRECTIONS[0],
    ROOK_DIRECTIONS[1],
    ROOK_DIRECTIONS[2],
    ROOK_DIRECTIONS[3],
    BISHOP_DIRECTIONS[0],
    BISHOP_DIRECTIONS[1],
    BISHOP_DIRECTIONS[2],
    BISHOP_DIRECTIONS[3],
];

impl RayOracle {
    pub fn new() -> RayOracle {
        let mut rays = [[0u128; 8]; 81];
        let mut king = [0u128; 81];
        for sq in Square::all() {
            for (direction, &delta) in ORACLE_DIRECTIONS.iter().enumerate() {
                rays[sq.index()][direction] = ray(0, sq, delta.0, delta.1);
            }
            king[sq.index()] = reference::king(sq);
        }
        RayOracle { rays, king }
    }

    /// The ray from `sq` in direction `direction` (an index of the eight), up to and including
    /// the first piece.
    #[inline]
    pub fn ray(&self, occupancy: u128, sq: Square, direction: usize) -> u128 {
        let ray = self.rays[sq.index()][direction];
        let blockers = ray & occupancy;
        if blockers == 0 {
            return ray;
        }
        let (file_delta, rank_delta) = ORACLE_DIRECTIONS[direction];
        // Canonical index = (file - 1) * 9 + (rank - 1): a step moves it by 9 df + dr.
        if 9 * file_delta + rank_delta > 0 {
            // Up the bit order: the first piece is the lowest set bit; keep the ray up to it.
            let first = blockers.trailing_zeros();
            ray & ((2u128 << first) - 1)
        } else {
            // Down the bit order: the first piece is the highest set bit; keep it and above.
            let first = 127 - blockers.leading_zeros();
            ray & !((1u128 << first) - 1)
        }
    }

    fn rays(&self, occupancy: u128, sq: Square, directions: std::ops::Range<usize>) -> u128 {
        directions.fold(0, |acc, d| acc | self.ray(occupancy, sq, d))
    }

    /// The same answer as `reference::slider`.
    pub fn slider(&self, kind: Slider, occupancy: u128, sq: Square) -> u128 {
        match kind {
            Slider::Rook => self.rays(occupancy, sq, 0..4),
            Slider::Bishop => self.rays(occupancy, sq, 4..8),
            Slider::Lance(color) => {
                let forward = (0, color.forward());
                let direction = ORACLE_DIRECTIONS
                    .iter()
                    .position(|&d| d == forward)
                    .expect("forward is a rook direction");
                self.ray(occupancy, sq, direction)
            }
            Slider::Dragon => self.rays(occupancy, sq, 0..4) | self.king[sq.index()],
            Slider::Horse => self.rays(occupancy, sq, 4..8) | self.king[sq.index()],
        }
    }
}

impl Default for RayOracle {
    fn default() -> RayOracle {
        RayOracle::new()
    }
}

/// Squares checked per random occupancy: converting an occupancy into a backend's layout costs
/// more than its lookups, so each one is used for several pairs.
pub const SQUARES_PER_OCCUPANCY: u64 = 9;

/// A random occupancy with each square occupied with probability `threshold / 256`: one byte
/// of randomness per square (11 draws instead of 81).
fn byte_occupancy(rng: &mut impl Rng, threshold: u8) -> u128 {
    let mut bits = 0u128;
    let mut square = 0;
    while square < 81 {
        let word = rng.next_u64();
        for byte in word.to_le_bytes() {
            if square == 81 {
                break;
            }
            if byte < threshold {
                bits |= 1u128 << square;
            }
            square += 1;
        }
    }
    bits
}

/// The random pairs `first_pair..first_pair + count` (one block's worth at most).
fn check_random_block<B: Backend>(
    backend: &B,
    oracle: &RayOracle,
    first_pair: u64,
    count: u64,
    seed: u64,
) -> CheckResult<()> {
    let block = first_pair / RANDOM_BLOCK;
    let mut rng =
        Xoshiro256PlusPlus::seed_from_u64(seed ^ block.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut pair = first_pair;
    let end = first_pair + count;
    while pair < end {
        let occupancy_number = pair / SQUARES_PER_OCCUPANCY;
        let density = DENSITIES[(occupancy_number % DENSITIES.len() as u64) as usize];
        let threshold = (density * 256.0).round() as u8;
        let bits = byte_occupancy(&mut rng, threshold);
        let occupancy = backend.occupancy(bits);
        for _ in 0..SQUARES_PER_OCCUPANCY.min(end - pair) {
            let sq = Square::new(rng.random_range(0..81)).unwrap();
            for slider in Slider::ALL {
                compare::<B>(
                    "random pair",
                    sq,
                    slider.name(),
                    bits,
                    oracle.slider(slider, bits, sq),
                    backend.slider_attacks(slider, &occupancy, sq),
                )
                .map_err(|mut mismatch| {
                    mismatch.context = format!(
                        "random pair {pair}, density {:.3}",
                        f64::from(threshold) / 256.0
                    );
                    mismatch
                })?;
            }
            pair += 1;
        }
    }
    Ok(())
}

/// The random pairs on `threads` threads; `progress` hears the pairs done so far (from any
/// thread). On mismatches, the one with the lowest pair number is returned, so the answer does
/// not depend on the thread count.
pub fn check_random_parallel<B: Backend>(
    backend: &B,
    pairs: u64,
    seed: u64,
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> CheckResult<u64> {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::Mutex;
    let next_block = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let first_mismatch: Mutex<Option<(u64, Box<Mismatch>)>> = Mutex::new(None);
    let blocks = pairs.div_ceil(RANDOM_BLOCK);
    let oracle = RayOracle::new();
    let worker = || {
        while !stop.load(Ordering::Relaxed) {
            let block = next_block.fetch_add(1, Ordering::Relaxed);
            if block >= blocks {
                break;
            }
            let first = block * RANDOM_BLOCK;
            let count = RANDOM_BLOCK.min(pairs - first);
            if let Err(mismatch) = check_random_block(backend, &oracle, first, count, seed) {
                let mut slot = first_mismatch.lock().unwrap_or_else(|e| e.into_inner());
                if slot.as_ref().is_none_or(|(at, _)| *at > block) {
                    *slot = Some((block, mismatch));
                }
                stop.store(true, Ordering::Relaxed);
                break;
            }
            progress(done.fetch_add(count, Ordering::Relaxed) + count);
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..threads.max(1) {
            scope.spawn(worker);
        }
        worker();
    });
    match first_mismatch
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
    {
        Some((_, mismatch)) => Err(mismatch),
        None => Ok(pairs * Slider::ALL.len() as u64),
    }
}

/// Random sequences of set/clear: the incrementally updated occupancy answers exactly like
/// one rebuilt from scratch (and like the reference).
pub fn check_incremental<B: Backend>(backend: &B, updates: u64, seed: u64) -> CheckResult<u64> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x1C4E_3E47);
    let mut bits = random_occupancy(&mut rng, 0.5);
    let mut occupancy = backend.occupancy(bits);
    for update in 0..updates {
        // Restart now and then so that sparse and dense boards are both visited.
        if update % 4096 == 0 {
            let density = DENSITIES[((update / 4096) % 4) as usize];
            bits = random_occupancy(&mut rng, density);
            occupancy = backend.occupancy(bits);
        }
        let sq = Square::new(rng.random_range(0..81)).unwrap();
        if bits & sq.bit() != 0 {
            backend.clear_square(&mut occupancy, sq);
            bits &= !sq.bit();
        } else {
            backend.set_square(&mut occupancy, sq);
            bits |= sq.bit();
        }
        let context = || format!("after incremental update {update} ({sq} toggled)");
        let with_context = |mut mismatch: Box<Mismatch>| {
            mismatch.context = format!("{}: {}", context(), mismatch.context);
            mismatch
        };
        compare::<B>(
            "incremental",
            sq,
            "occupied()",
            bits,
            bits,
            backend.occupied(&occupancy),
        )
        .map_err(with_context)?;
        let rebuilt = backend.occupancy(bits);
        for _ in 0..2 {
            let probe = Square::new(rng.random_range(0..81)).unwrap();
            for slider in Slider::ALL {
                check_slider(backend, "incremental", slider, bits, &occupancy, probe)
                    .map_err(with_context)?;
                let from_scratch = backend.slider_attacks(slider, &rebuilt, probe);
                compare::<B>(
                    "rebuilt from scratch",
                    probe,
                    slider.name(),
                    bits,
                    from_scratch.to_canonical(),
                    backend.slider_attacks(slider, &occupancy, probe),
                )
                .map_err(with_context)?;
            }
        }
    }
    Ok(updates)
}

/// The whole differential check for one backend.
pub fn check_backend<B: Backend>(backend: &B, pairs: u64, seed: u64) -> CheckResult<CheckReport> {
    check_backend_parallel(backend, pairs, seed, 1, &|_| {})
}

/// The whole check with the random pairs on `threads` threads, reporting pairs done.
pub fn check_backend_parallel<B: Backend>(
    backend: &B,
    pairs: u64,
    seed: u64,
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> CheckResult<CheckReport> {
    let bitboard_checks = check_bitboard_ops::<B>(seed, 2_000)?;
    let step_lookups = check_steps(backend)?;
    let pattern_lookups = check_line_patterns(backend, seed)?;
    let random_lookups = check_random_parallel(backend, pairs, seed, threads, progress)?;
    let incremental_updates = check_incremental(
        backend,
        (pairs / 20).clamp(1_000, MAX_INCREMENTAL_UPDATES),
        seed,
    )?;
    Ok(CheckReport {
        bitboard_checks,
        step_lookups,
        pattern_lookups,
        random_pairs: pairs,
        random_lookups,
        incremental_updates,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiki_core::reference::Reference;

    #[test]
    fn line_parts_of_a_corner_and_the_centre() {
        let corner = Square::parse("1a").unwrap();
        let (ends, inner) = line_parts(corner, (0, 1));
        assert_eq!(ends, corner.bit() | Square::parse("1i").unwrap().bit());
        assert_eq!(inner.count_ones(), 7);
        let centre = Square::parse("5e").unwrap();
        let (ends, inner) = line_parts(centre, (1, 1));
        assert_eq!(ends.count_ones(), 2);
        assert_eq!(inner.count_ones(), 6);
    }

    #[test]
    fn the_oracle_equals_the_naive_walker_on_every_blocker_pattern_of_every_ray() {
        let oracle = RayOracle::new();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let mut patterns = 0u64;
        for sq in Square::all() {
            for (direction, &delta) in ORACLE_DIRECTIONS.iter().enumerate() {
                let full_ray = ray(0, sq, delta.0, delta.1);
                // Every subset of the ray's squares, on an empty and on a random background.
                let mut subset = 0u128;
                loop {
                    for background in [0, random_occupancy(&mut rng, 0.5) & !full_ray] {
                        let occupancy = subset | background;
                        assert_eq!(
                            oracle.ray(occupancy, sq, direction),
                            ray(occupancy, sq, delta.0, delta.1),
                            "square {sq}, direction {delta:?}, occupancy {occupancy:#x}"
                        );
                        patterns += 1;
                    }
                    subset = subset.wrapping_sub(full_ray) & full_ray;
                    if subset == 0 {
                        break;
                    }
                }
            }
        }
        assert!(patterns > 20_000, "{patterns}");
        for _ in 0..20_000 {
            let occupancy = random_occupancy(&mut rng, 0.3);
            let sq = Square::new(rng.random_range(0..81)).unwrap();
            for slider in Slider::ALL {
                assert_eq!(
                    oracle.slider(slider, occupancy, sq),
                    reference::slider(slider, occupancy, sq),
                    "{} on {sq}",
                    slider.name()
                );
            }
        }
    }

    #[test]
    fn byte_occupancies_have_the_asked_density() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        for (threshold, expected) in [(26u8, 0.1016), (64, 0.25), (128, 0.5), (192, 0.75)] {
            let set: u32 = (0..4_000)
                .map(|_| byte_occupancy(&mut rng, threshold).count_ones())
                .sum();
            let density = f64::from(set) / (4_000.0 * 81.0);
            assert!((density - expected).abs() < 0.01, "{threshold}: {density}");
            assert_eq!(byte_occupancy(&mut rng, threshold) >> 81, 0);
        }
    }

    #[test]
    fn every_pair_is_checked_once_on_several_threads() {
        use crate::sqww::Sqww;
        let backend = Sqww::new().unwrap();
        let done = std::sync::atomic::AtomicU64::new(0);
        let progress = |n: u64| {
            done.fetch_max(n, std::sync::atomic::Ordering::Relaxed);
        };
        let pairs = 3 * RANDOM_BLOCK + 5;
        assert_eq!(
            check_random_parallel(&backend, pairs, 9, 3, &progress).unwrap(),
            pairs * 6
        );
        assert_eq!(done.into_inner(), pairs);
    }

    #[test]
    fn reference_passes_its_own_check() {
        let report = check_backend(&Reference, 2_000, 7).unwrap();
        assert_eq!(report.random_lookups, 12_000);
        assert!(report.pattern_lookups > 100_000);
    }

    #[test]
    fn mismatch_draws_the_board() {
        let text = Mismatch {
            backend: "x",
            context: "test".into(),
            square: Square::parse("5e").unwrap(),
            piece: "rook".into(),
            occupancy: Square::parse("5c").unwrap().bit(),
            expected: 1,
            got: 2,
        }
        .to_string();
        assert!(text.contains("square=5e"));
        assert!(text.contains('@'));
        assert_eq!(text.matches(" a\n").count(), 3);
    }
}
