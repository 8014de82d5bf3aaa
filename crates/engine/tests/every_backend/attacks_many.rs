//! The batch lookups (`Backend::attacks_many*`) equal the one-at-a-time lookups and the naive
//! reference, on every backend and at every SIMD level this build and CPU can run, for every
//! slider kind over random occupancies and all 81 squares (run with `--release`).
//!
//! Batch lengths include ones that are not multiples of four (0, 1, 3, 5, 81), so that the
//! AVX-512 path's four-square groups and its one-at-a-time remainder are both exercised.

use kiki_core::backend::{Backend, Bitboard};
use kiki_core::reference;
use kiki_core::simd::{self, SimdLevel};
use kiki_core::types::ALL_SQUARES;
use kiki_core::types::{Slider, Square};
use kiki_variants::registry::BackendVisitor;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::panic::{catch_unwind, AssertUnwindSafe};

const OCCUPANCIES: usize = 500;
const LENGTHS: [usize; 5] = [0, 1, 3, 5, 81];

/// Random canonical occupancies at densities of about 25, 50 and 75 %, and the empty and full
/// boards.
fn occupancies(seed: u64) -> Vec<u128> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut all = vec![0, ALL_SQUARES];
    while all.len() < OCCUPANCIES {
        let (a, b): (u128, u128) = (rng.random(), rng.random());
        let bits = match all.len() % 3 {
            0 => a & b,
            1 => a,
            _ => a | b,
        };
        all.push(bits & ALL_SQUARES);
    }
    all
}

/// What an output slot holds before the batch writes it: no slider attacks every square, so a
/// slot the batch forgot cannot pass for an answer.
fn unwritten<B: Backend>() -> B::Bitboard {
    B::Bitboard::from_canonical(ALL_SQUARES)
}

/// Checks one batch's outputs against the one-at-a-time lookup and the reference, and that the
/// slots around the batch were left alone.
#[allow(clippy::too_many_arguments)]
fn check_outputs<B: Backend>(
    backend: B,
    context: &str,
    slider: Slider,
    canonicals: &[u128],
    occupancies: &[B::Occupancy],
    squares: &[Square],
    buffer: &[B::Bitboard],
    start: usize,
) {
    let name = B::info().name;
    for (i, &got) in buffer.iter().enumerate() {
        if !(start..start + squares.len()).contains(&i) {
            assert_eq!(
                got,
                unwritten::<B>(),
                "{name} {context}: slot {i} outside the batch"
            );
            continue;
        }
        let (k, sq) = (i - start, squares[i - start]);
        let one = backend.slider_attacks(slider, &occupancies[k], sq);
        let expected = reference::slider(slider, canonicals[k], sq);
        let detail = || format!("{name} {context}: {slider} on {sq}, {:#x}", canonicals[k]);
        assert_eq!(got, one, "one at a time, {}", detail());
        assert_eq!(got.to_canonical(), expected, "reference, {}", detail());
    }
}

/// Every slider kind over `OCCUPANCIES` occupancies at every available level, each occupancy
/// with all 81 squares in a fresh random order, cut into batches of every length in `LENGTHS`
/// (placed at varying offsets of a larger output buffer).
#[derive(Clone, Copy)]
struct OneOccupancy;

impl BackendVisitor for OneOccupancy {
    type Output = usize;
    fn visit<B: Backend>(self, backend: B) -> usize {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0xBA7C_0001);
        let mut squares: Vec<Square> = Square::all().collect();
        let mut compared = 0;
        for level in SimdLevel::available() {
            for canonical in occupancies(0xBA7C_0002) {
                let occupancy = backend.occupancy(canonical);
                squares.shuffle(&mut rng);
                for slider in Slider::ALL {
                    for length in LENGTHS {
                        let first = rng.random_range(0..=squares.len() - length);
                        let batch = &squares[first..first + length];
                        let start = rng.random_range(0..4);
                        let mut buffer = vec![unwritten::<B>(); start + length + 3];
                        backend.attacks_many_at(
                            level,
                            slider,
                            &occupancy,
                            batch,
                            &mut buffer[start..start + length],
                        );
                        check_outputs(
                            backend,
                            &format!("attacks_many_at({level}), length {length}"),
                            slider,
                            &vec![canonical; length],
                            &vec![occupancy.clone(); length],
                            batch,
                            &buffer,
                            start,
                        );
                        compared += length;
                    }
                }
            }
        }
        compared
    }
}

/// Every slider kind over pairs of (random occupancy, random square) at every available level,
/// in batches of every length in `LENGTHS` and one longer than the board.
#[derive(Clone, Copy)]
struct ManyOccupancies;

impl BackendVisitor for ManyOccupancies {
    type Output = usize;
    fn visit<B: Backend>(self, backend: B) -> usize {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0xBA7C_0003);
        let pool = occupancies(0xBA7C_0004);
        let mut compared = 0;
        for level in SimdLevel::available() {
            for _round in 0..OCCUPANCIES / 10 {
                for slider in Slider::ALL {
                    for length in LENGTHS.into_iter().chain([83]) {
                        let canonicals: Vec<u128> = (0..length)
                            .map(|_| pool[rng.random_range(0..pool.len())])
                            .collect();
                        let occupancies: Vec<B::Occupancy> =
                            canonicals.iter().map(|&c| backend.occupancy(c)).collect();
                        let squares: Vec<Square> = (0..length)
                            .map(|_| Square::new(rng.random_range(0..81)).expect("< 81"))
                            .collect();
                        let start = rng.random_range(0..4);
                        let mut buffer = vec![unwritten::<B>(); start + length + 3];
                        backend.attacks_many_occupancies_at(
                            level,
                            slider,
                            &occupancies,
                            &squares,
                            &mut buffer[start..start + length],
                        );
                        check_outputs(
                            backend,
                            &format!("attacks_many_occupancies_at({level}), length {length}"),
                            slider,
                            &canonicals,
                            &occupancies,
                            &squares,
                            &buffer,
                            start,
                        );
                        compared += length;
                    }
                }
            }
        }
        compared
    }
}

/// The level-less entry points run at `simd::level()` and give the same answers.
#[derive(Clone, Copy)]
struct LevelLess;

impl BackendVisitor for LevelLess {
    type Output = ();
    fn visit<B: Backend>(self, backend: B) {
        let squares: Vec<Square> = Square::all().collect();
        for canonical in occupancies(0xBA7C_0005).into_iter().take(30) {
            let occupancy = backend.occupancy(canonical);
            let occupancies = vec![occupancy.clone(); squares.len()];
            for slider in Slider::ALL {
                let mut at_level = vec![unwritten::<B>(); squares.len()];
                backend.attacks_many_at(simd::level(), slider, &occupancy, &squares, &mut at_level);
                let mut many = vec![unwritten::<B>(); squares.len()];
                backend.attacks_many(slider, &occupancy, &squares, &mut many);
                let mut pairs = vec![unwritten::<B>(); squares.len()];
                backend.attacks_many_occupancies(slider, &occupancies, &squares, &mut pairs);
                assert_eq!(many, at_level, "{} {slider}", B::info().name);
                assert_eq!(pairs, at_level, "{} {slider}", B::info().name);
                check_outputs(
                    backend,
                    "attacks_many",
                    slider,
                    &vec![canonical; squares.len()],
                    &occupancies,
                    &squares,
                    &many,
                    0,
                );
            }
        }
    }
}

/// Mismatched lengths and levels this build or CPU cannot run are refused (a panic), never
/// computed: the vector paths rely on both checks.
#[derive(Clone, Copy)]
struct Refusals;

impl BackendVisitor for Refusals {
    type Output = usize;
    fn visit<B: Backend>(self, backend: B) -> usize {
        let name = B::info().name;
        let occupancy = backend.occupancy(0);
        let squares: Vec<Square> = Square::all().take(8).collect();
        let occupancies = vec![occupancy.clone(); 8];
        let panics = |what: &str, call: &mut dyn FnMut()| {
            let refused = catch_unwind(AssertUnwindSafe(call)).is_err();
            assert!(refused, "{name}: {what} was not refused");
        };
        let mut refused = 0;
        for level in SimdLevel::ALL {
            if !level.is_available() {
                let mut out = vec![unwritten::<B>(); 8];
                panics(&format!("unavailable level {level}"), &mut || {
                    backend.attacks_many_at(level, Slider::Rook, &occupancy, &squares, &mut out)
                });
                panics(&format!("unavailable level {level} (pairs)"), &mut || {
                    let out = &mut out;
                    backend.attacks_many_occupancies_at(
                        level,
                        Slider::Rook,
                        &occupancies,
                        &squares,
                        out,
                    )
                });
                refused += 2;
                continue;
            }
            for (occupancy_count, out_count) in [(8, 7), (8, 9), (7, 8), (9, 8)] {
                let mut out = vec![unwritten::<B>(); out_count];
                if occupancy_count == 8 {
                    panics(&format!("{out_count} outputs for 8 squares"), &mut || {
                        backend.attacks_many_at(level, Slider::Rook, &occupancy, &squares, &mut out)
                    });
                    refused += 1;
                }
                let mut out = vec![unwritten::<B>(); out_count];
                let occupancies = vec![occupancy.clone(); occupancy_count];
                panics(
                    &format!("{occupancy_count} occupancies, {out_count} outputs, 8 squares"),
                    &mut || {
                        backend.attacks_many_occupancies_at(
                            level,
                            Slider::Bishop,
                            &occupancies,
                            &squares,
                            &mut out,
                        )
                    },
                );
                refused += 1;
            }
        }
        refused
    }
}

/// Runs `visitor` on every backend this build and CPU can run, which must be all of them but
/// those that need instructions this CPU lacks.
fn on_every_backend<V: BackendVisitor + Copy>(visitor: V) -> Vec<(&'static str, V::Output)> {
    let names = crate::tested_names();
    assert!(names.len() >= 5, "{names:?}");
    names
        .into_iter()
        .map(|name| (name, crate::visit_tested(name, visitor).expect("available")))
        .collect()
}

#[test]
fn attacks_many_matches_one_at_a_time_and_the_reference() {
    for (name, compared) in on_every_backend(OneOccupancy) {
        let levels = SimdLevel::available().len();
        assert_eq!(compared, levels * OCCUPANCIES * 6 * 90, "{name}");
        eprintln!("{name}: {compared} batch lookups at {levels} levels agree");
    }
}

#[test]
fn attacks_many_occupancies_matches_one_at_a_time_and_the_reference() {
    for (name, compared) in on_every_backend(ManyOccupancies) {
        let levels = SimdLevel::available().len();
        assert_eq!(compared, levels * OCCUPANCIES / 10 * 6 * 173, "{name}");
        eprintln!("{name}: {compared} paired batch lookups at {levels} levels agree");
    }
}

#[test]
fn level_less_batches_run_at_the_current_level() {
    on_every_backend(LevelLess);
}

#[test]
fn mismatched_lengths_and_unavailable_levels_are_refused() {
    for (name, refused) in on_every_backend(Refusals) {
        assert!(refused >= 6, "{name}: {refused}");
    }
}
