//! The differential check: every backend against the naive reference, on exhaustive line
//! patterns, random occupancies, step attacks and incremental occupancy updates.

use crate::backend::{Backend, Bitboard};
use crate::reference;
use crate::types::{draw_board, Slider, Square, Stepper, ALL_SQUARES};
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
        f.write_str(&crate::types::draw_bits(self.expected))?;
        writeln!(f, "got ({}):", self.backend)?;
        f.write_str(&crate::types::draw_bits(self.got))
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

/// A random occupancy where each square is set with probability `density`.
pub fn random_occupancy(rng: &mut impl Rng, density: f64) -> u128 {
    let mut bits = 0u128;
    for index in 0..81 {
        if rng.random_bool(density) {
            bits |= 1u128 << index;
        }
    }
    bits
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

/// Random pairs are drawn in blocks of this many, each block from its own seeded stream, so
/// that the same pairs are checked whatever the number of threads.
pub const RANDOM_BLOCK: u64 = 1 << 16;

/// `pairs` random (square, occupancy) pairs cycling through `DENSITIES`, every slider each.
pub fn check_random<B: Backend>(backend: &B, pairs: u64, seed: u64) -> CheckResult<u64> {
    check_random_parallel(backend, pairs, seed, 1, &|_| {})
}

/// The random pairs of blocks `first_pair..first_pair + count` (one block's worth at most).
fn check_random_block<B: Backend>(
    backend: &B,
    first_pair: u64,
    count: u64,
    seed: u64,
) -> CheckResult<()> {
    let block = first_pair / RANDOM_BLOCK;
    let mut rng =
        Xoshiro256PlusPlus::seed_from_u64(seed ^ block.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    for pair in first_pair..first_pair + count {
        let density = DENSITIES[(pair % DENSITIES.len() as u64) as usize];
        let bits = random_occupancy(&mut rng, density);
        let sq = Square::new(rng.random_range(0..81)).unwrap();
        let occupancy = backend.occupancy(bits);
        for slider in Slider::ALL {
            check_slider(backend, "random pair", slider, bits, &occupancy, sq).map_err(
                |mut mismatch| {
                    mismatch.context = format!("random pair {pair}, density {density}");
                    mismatch
                },
            )?;
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
    let worker = || {
        while !stop.load(Ordering::Relaxed) {
            let block = next_block.fetch_add(1, Ordering::Relaxed);
            if block >= blocks {
                break;
            }
            let first = block * RANDOM_BLOCK;
            let count = RANDOM_BLOCK.min(pairs - first);
            if let Err(mismatch) = check_random_block(backend, first, count, seed) {
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
    let incremental_updates = check_incremental(backend, (pairs / 20).max(1_000), seed)?;
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
    use crate::reference::Reference;

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
