//! Where a layout variant's lookup cost against its base comes from: throughput lookups (E1's
//! mode: independent lookups folded together) over working sets from a few L1 lines to beyond
//! the last-level cache. A gap that stays when the inputs are few is instructions; a gap that
//! grows with the working set is the lines and pages a lookup touches (a probe, not a measurement
//! of record: one process, paired rounds, medians; E12 is the measurement).
//!
//! `cargo run --release --features probes --example layout_residency -- magic magic.split-words [KIND]` prints,
//! per working set, each backend's median ns per lookup and the median and range of the
//! per-round ratio (second over first). KIND (`rook`, `bishop`, …) fixes the slider kind; without
//! it every input draws one, as E12 does, and beyond a few hundred inputs the kind's branch is no
//! longer predicted, which then dominates both sides.

use kiki_core::backend::{Backend, Bitboard};
use kiki_core::reference::random_occupancy;
use kiki_core::types::{Slider, Square};
use kiki_variants::registry::{self, BackendVisitor};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::hint::black_box;
use std::time::Instant;

/// Distinct inputs per working set: a handful of lines, then up to beyond any L3 seen.
const WORKING_SETS: [usize; 6] = [16, 256, 4_096, 65_536, 1 << 20, 1 << 22];
/// Lookups timed per backend per round (the inputs cycled).
const LOOKUPS: usize = 1 << 22;
/// Paired rounds per working set, the order of the two backends alternating.
const ROUNDS: usize = 15;

/// One input: a square, a canonical occupancy (density 25 %) and a slider kind.
type Input = (Square, u128, Slider);

/// Builds a timing closure for one backend over the given inputs: `run(lookups)` returns
/// seconds.
struct Timer<'a> {
    inputs: &'a [Input],
}

impl BackendVisitor for Timer<'_> {
    type Output = Box<dyn FnMut(usize) -> f64>;
    fn visit<B: Backend>(self, backend: B) -> Self::Output {
        let converted: Vec<(Square, B::Occupancy, Slider)> = self
            .inputs
            .iter()
            .map(|&(sq, bits, slider)| (sq, backend.occupancy(bits), slider))
            .collect();
        Box::new(move |lookups| {
            let start = Instant::now();
            let mut folded = B::Bitboard::empty();
            let mut done = 0;
            while done < lookups {
                for (sq, occupancy, slider) in &converted {
                    folded ^= backend.slider_attacks(*slider, black_box(occupancy), *sq);
                }
                done += converted.len();
            }
            black_box(folded);
            start.elapsed().as_secs_f64() / done as f64
        })
    }
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    let names: Vec<String> = std::env::args().skip(1).collect();
    let (first, second, kind) = match names.as_slice() {
        [first, second] => (first, second, None),
        [first, second, kind] => match Slider::parse(kind) {
            Some(slider) => (first, second, Some(slider)),
            None => {
                eprintln!("layout_residency: unknown slider kind '{kind}'");
                std::process::exit(2);
            }
        },
        _ => {
            eprintln!(
                "usage: layout_residency BASE VARIANT [KIND] (e.g. magic magic.split-words rook)"
            );
            std::process::exit(2);
        }
    };
    println!("working set | {first} ns | {second} ns | ratio median [min–max of {ROUNDS} rounds]");
    for &count in &WORKING_SETS {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x1A70_0000 ^ count as u64);
        let inputs: Vec<Input> = (0..count)
            .map(|_| {
                let bits = random_occupancy(&mut rng, 0.25);
                let sq = Square::new(rng.random_range(0..81)).unwrap();
                let slider =
                    kind.unwrap_or_else(|| Slider::ALL[rng.random_range(0..Slider::ALL.len())]);
                (sq, bits, slider)
            })
            .collect();
        let mut timers = Vec::new();
        for name in [first, second] {
            match registry::visit(name, Timer { inputs: &inputs }) {
                Ok(timer) => timers.push(timer),
                Err(error) => {
                    eprintln!("layout_residency: {name}: {error:?}");
                    std::process::exit(2);
                }
            }
        }
        // One untimed pass each, so that both start from their own warm state.
        for timer in &mut timers {
            timer(LOOKUPS);
        }
        let (mut base, mut variant, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..ROUNDS {
            let (a, b) = if round % 2 == 0 {
                let a = timers[0](LOOKUPS);
                (a, timers[1](LOOKUPS))
            } else {
                let b = timers[1](LOOKUPS);
                (timers[0](LOOKUPS), b)
            };
            base.push(a * 1e9);
            variant.push(b * 1e9);
            ratios.push(b / a);
        }
        let low = ratios.iter().copied().fold(f64::INFINITY, f64::min);
        let high = ratios.iter().copied().fold(0.0, f64::max);
        println!(
            "{count:>11} | {:.3} | {:.3} | ×{:.3} [{low:.3}–{high:.3}]",
            median(&mut base),
            median(&mut variant),
            median(&mut ratios)
        );
    }
}
