//! Criterion: every backend × slider kind over pre-generated random (square, occupancy) pairs
//! at three densities, in lookups per second.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kiki_core::backend::{Backend, Bitboard};
use kiki_core::reference::random_occupancy;
use kiki_core::types::{Slider, Square};
use kiki_variants::registry::{self, BackendVisitor};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::hint::black_box;

const PAIRS: usize = 4096;
const DENSITIES: [f64; 3] = [0.10, 0.25, 0.50];

struct Bench<'a> {
    criterion: &'a mut Criterion,
}

impl BackendVisitor for Bench<'_> {
    type Output = ();
    fn visit<B: Backend>(self, backend: B) {
        let name = B::info().name;
        // The portable build gets its own group so that its results sit beside the SIMD ones.
        let prefix = if cfg!(feature = "portable") {
            "attacks-portable"
        } else {
            "attacks"
        };
        let mut group = self.criterion.benchmark_group(format!("{prefix}/{name}"));
        group.throughput(Throughput::Elements(PAIRS as u64));
        for density in DENSITIES {
            // Same seed for every backend: identical inputs, generated outside the timing.
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x0A77_AC45 ^ density.to_bits());
            let inputs: Vec<(Square, B::Occupancy)> = (0..PAIRS)
                .map(|_| {
                    let bits = random_occupancy(&mut rng, density);
                    let sq = Square::new(rng.random_range(0..81)).unwrap();
                    (sq, backend.occupancy(bits))
                })
                .collect();
            for slider in Slider::ALL {
                let id = BenchmarkId::new(slider.name(), format!("d{:.0}", density * 100.0));
                group.bench_function(id, |bencher| {
                    bencher.iter(|| {
                        let mut folded = B::Bitboard::empty();
                        for (sq, occupancy) in &inputs {
                            folded ^= backend.slider_attacks(slider, black_box(occupancy), *sq);
                        }
                        black_box(folded)
                    })
                });
            }
        }
        group.finish();
    }
}

fn attacks(criterion: &mut Criterion) {
    for name in registry::resolve("all").expect("the registry resolves 'all'") {
        registry::visit(
            name,
            Bench {
                criterion: &mut *criterion,
            },
        )
        .expect("available backend");
    }
}

criterion_group! {
    name = benches;
    // 18 benchmarks a backend, 270 with the layout variants: short but repeated samples keep a
    // full run near seven minutes (filter by name, e.g. `-- magic-plain`, for one family).
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(300))
        .measurement_time(std::time::Duration::from_millis(1200))
        .sample_size(30);
    targets = attacks
}
criterion_main!(benches);
