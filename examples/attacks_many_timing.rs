//! A rough timing of qugiy's batch lookups against one-at-a-time lookups (not a measurement of
//! record: one process, wall clock, best of a few runs; E1 is where batches will be measured).
//!
//! `cargo run --release --features probes --example attacks_many_timing`: about 1M lookups per figure, for rook,
//! bishop, dragon and horse, under one occupancy per 81 squares and as (occupancy, square)
//! pairs, one at a time and batched at every SIMD level this build and CPU can run (below
//! `avx512`, a batch is the one-at-a-time loop).

use kiki_core::backend::Backend;
use kiki_core::simd::SimdLevel;
use kiki_core::types::ALL_SQUARES;
use kiki_core::types::{Slider, Square};
use kiki_variants::qugiy::Qugiy;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Occupancies per run: 81 squares each, about 1M lookups in all.
const OCCUPANCIES: usize = 12_346;
const RUNS: usize = 21;
/// Pairs per batch, and batches per run (about 1M lookups).
const PAIRS: usize = 4_096;
const PAIR_ROUNDS: usize = 256;

/// The fastest of `RUNS` runs of `run`, in nanoseconds per lookup.
fn best_ns_per_lookup(lookups: usize, mut run: impl FnMut()) -> f64 {
    let mut best = Duration::MAX;
    for _ in 0..RUNS {
        let start = Instant::now();
        run();
        best = best.min(start.elapsed());
    }
    best.as_secs_f64() * 1e9 / lookups as f64
}

fn main() {
    let qugiy = Qugiy::new().expect("qugiy runs on this CPU");
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x7131_0001);
    let canonicals: Vec<u128> = (0..OCCUPANCIES)
        .map(|_| rng.random::<u128>() & rng.random::<u128>() & ALL_SQUARES)
        .collect();
    let occupancies: Vec<_> = canonicals.iter().map(|&c| qugiy.occupancy(c)).collect();
    let squares: Vec<Square> = Square::all().collect();
    // The pairs: random occupancies with random squares, few enough to stay in L2 (inputs and
    // outputs 36 B a pair), so that memory traffic does not hide the lookups; run repeatedly.
    let pair_occupancies: Vec<_> = (0..PAIRS)
        .map(|_| occupancies[rng.random_range(0..OCCUPANCIES)])
        .collect();
    let pair_squares: Vec<Square> = (0..PAIRS)
        .map(|_| Square::new(rng.random_range(0..81)).expect("< 81"))
        .collect();
    let lookups = OCCUPANCIES * 81;
    let pair_lookups = PAIRS * PAIR_ROUNDS;
    let mut out = vec![qugiy.rook_attacks(&occupancies[0], squares[0]); 81];
    let mut pair_out = vec![out[0]; PAIRS];
    println!(
        "qugiy ({} one at a time), {lookups} lookups per line, ns per lookup (rough)",
        Qugiy::simd_path()
    );
    for slider in [Slider::Rook, Slider::Bishop, Slider::Dragon, Slider::Horse] {
        let one_at_a_time = best_ns_per_lookup(lookups, || {
            for occupancy in black_box(&occupancies) {
                for (out, &sq) in out.iter_mut().zip(&squares) {
                    *out = qugiy.slider_attacks(slider, occupancy, sq);
                }
                black_box(&mut out);
            }
        });
        let pairs_one_at_a_time = best_ns_per_lookup(pair_lookups, || {
            for _ in 0..PAIR_ROUNDS {
                let pairs = black_box(&pair_occupancies).iter().zip(&pair_squares);
                for (out, (occupancy, &sq)) in pair_out.iter_mut().zip(pairs) {
                    *out = qugiy.slider_attacks(slider, occupancy, sq);
                }
                black_box(&mut pair_out);
            }
        });
        print!("{slider:>6}: one at a time {one_at_a_time:5.2}, pairs {pairs_one_at_a_time:5.2}");
        for level in SimdLevel::available() {
            let batch = best_ns_per_lookup(lookups, || {
                for occupancy in black_box(&occupancies) {
                    qugiy.attacks_many_at(level, slider, occupancy, &squares, &mut out);
                    black_box(&mut out);
                }
            });
            let pairs = best_ns_per_lookup(pair_lookups, || {
                for _ in 0..PAIR_ROUNDS {
                    qugiy.attacks_many_occupancies_at(
                        level,
                        slider,
                        black_box(&pair_occupancies),
                        &pair_squares,
                        &mut pair_out,
                    );
                    black_box(&mut pair_out);
                }
            });
            print!(" | {level} batch {batch:5.2}, pairs {pairs:5.2}");
        }
        println!();
    }
}
