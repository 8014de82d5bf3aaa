//! Criterion: make + unmake of a fixed random-game move sequence on every effect tracker
//! (mailbox, sqww, distance, bitboard-qugiy), in updates per second; the workload is the one
//! `kiki effects` uses, verified against a from-scratch recount before anything is timed.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kiki_engine::effects::{
    BitboardEffects, DistanceCheck, EffectTracker, Effects, PaddedMailbox, SquareWithWall,
};
use kiki_harness::effects_timing::{verify, workload, Replayer, Workload};
use kiki_variants::qugiy::Qugiy;

/// Moves per iteration (each made and unmade): a few ms per iteration.
const MOVES: usize = 20_000;
const SEED: u64 = 0xEFFEC7;

fn bench_one<T: EffectTracker>(criterion: &mut Criterion, workload: &Workload) {
    verify::<T>(workload).unwrap_or_else(|why| panic!("{why}"));
    let mut replayer = Replayer::<T>::new(workload).expect("tracker");
    let mut group = criterion.benchmark_group("effects");
    group.throughput(Throughput::Elements(workload.moves as u64));
    group.bench_function(T::name(), |bencher| bencher.iter(|| replayer.replay()));
    group.finish();
}

fn effects(criterion: &mut Criterion) {
    let workload = workload(MOVES, SEED).expect("workload");
    bench_one::<Effects<PaddedMailbox>>(criterion, &workload);
    bench_one::<Effects<SquareWithWall>>(criterion, &workload);
    bench_one::<Effects<DistanceCheck>>(criterion, &workload);
    bench_one::<BitboardEffects<Qugiy>>(criterion, &workload);
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2))
        .sample_size(20);
    targets = effects
}
criterion_main!(benches);
