//! E8's workload as gungraun (iai-callgrind) library benchmarks: instruction and simulated
//! cache counts per backend under callgrind, on the 2008-class geometry seed 004 argued about.
//!
//! Needs valgrind and the runner at the library's exact version:
//! `cargo install gungraun-runner --version 0.20.0`, then `cargo bench --bench cache_sim`.

use gungraun::{
    library_benchmark, library_benchmark_group, main, Callgrind, LibraryBenchmarkConfig,
};
use kiki_core::backend::{Backend, Bitboard};
use kiki_harness::experiments::e8_simulated_caches;
use std::hint::black_box;

/// Lookups per benchmark run (the same inputs as `kiki report`'s E8, fewer of them).
const LOOKUPS: usize = 20_000;

/// A built backend with its inputs already in its own occupancy layout; `None` where the
/// backend cannot run on this CPU.
struct Prepared<B: Backend> {
    backend: B,
    occupancies: Vec<B::Occupancy>,
    packed: Vec<u32>,
}

fn prepare<B: Backend>() -> Option<Prepared<B>> {
    let backend = B::new().ok()?;
    let e8_simulated_caches::Inputs {
        occupancies: canonical,
        packed,
        ..
    } = e8_simulated_caches::inputs(LOOKUPS, e8_simulated_caches::WORKLOAD_SEED);
    let occupancies = canonical
        .iter()
        .map(|&bits| backend.occupancy(bits))
        .collect();
    Some(Prepared {
        backend,
        occupancies,
        packed,
    })
}

fn lookups<B: Backend>(prepared: Option<Prepared<B>>) -> u128 {
    prepared.map_or(0, |p| {
        e8_simulated_caches::e8_measured_lookups(p.backend, &p.occupancies, black_box(&p.packed))
            .to_canonical()
    })
}

macro_rules! cache_sim_benches {
    ($($name:literal $module:ident => $backend:ty),* $(,)?) => {
        $(
            #[library_benchmark]
            #[bench::lookups(prepare::<$backend>())]
            fn $module(prepared: Option<Prepared<$backend>>) -> u128 {
                black_box(lookups(prepared))
            }
        )*

        library_benchmark_group!(
            name = cache_sim,
            // Explicit geometry (auto-detection is wrong on some VMs): 32 KiB L1s and a 12 MiB
            // LL, 24-way so that valgrind gets a power-of-two set count.
            config = LibraryBenchmarkConfig::default().tool(Callgrind::with_args([
                "cache-sim=yes",
                "I1=32768,8,64",
                "D1=32768,8,64",
                "LL=12582912,24,64",
            ])),
            benchmarks = [$($module),*]
        );
    };
}

kiki_variants::for_each_backend!(cache_sim_benches);

main!(library_benchmark_groups = cache_sim);
