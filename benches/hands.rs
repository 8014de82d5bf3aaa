//! Criterion: the hand layouts of seed 003 (packed, guarded, bytes) on the same pre-generated
//! hands: superiority (independent and chained), count, add + count, remove + count, in
//! operations per second.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kiki_engine::hands::{ByteHand, GuardedHand, HandLayout, PackedHand};
use kiki_engine::position::PieceKind;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::hint::black_box;

const N: usize = 4096;
const MAX: [u8; 7] = PieceKind::HAND_MAX;

/// Pairs where about half the answers are true (`b` drawn below `a`, sometimes one field
/// raised), so a branchy comparison cannot be predicted; plus a hand kind per entry that can
/// be added (below the maximum) and one that can be removed (held), where such kinds exist.
struct Inputs {
    pairs: Vec<([u8; 7], [u8; 7])>,
    addable: Vec<PieceKind>,
    removable: Vec<PieceKind>,
}

fn inputs() -> Inputs {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x4841_4e44_5342);
    let mut pairs = Vec::with_capacity(N);
    let mut addable = Vec::with_capacity(N);
    let mut removable = Vec::with_capacity(N);
    while pairs.len() < N {
        let a: [u8; 7] = std::array::from_fn(|i| rng.random_range(0..=MAX[i]));
        let mut b: [u8; 7] = std::array::from_fn(|i| rng.random_range(0..=a[i]));
        if rng.random_bool(0.5) {
            let i = rng.random_range(0..7usize);
            b[i] = rng.random_range(0..=MAX[i]);
        }
        let below: Vec<usize> = (0..7).filter(|&i| a[i] < MAX[i]).collect();
        let held: Vec<usize> = (0..7).filter(|&i| a[i] > 0).collect();
        if below.is_empty() || held.is_empty() {
            continue;
        }
        addable.push(PieceKind::HAND[below[rng.random_range(0..below.len())]]);
        removable.push(PieceKind::HAND[held[rng.random_range(0..held.len())]]);
        pairs.push((a, b));
    }
    Inputs {
        pairs,
        addable,
        removable,
    }
}

fn bench_layout<H: HandLayout>(criterion: &mut Criterion, inputs: &Inputs) {
    let pairs: Vec<(H, H)> = inputs
        .pairs
        .iter()
        .map(|&(a, b)| (H::from_counts(a), H::from_counts(b)))
        .collect();
    let mut group = criterion.benchmark_group("hands");
    group.throughput(Throughput::Elements(N as u64));
    group.bench_function(format!("superior/{}", H::NAME), |bencher| {
        bencher.iter(|| {
            let pairs = black_box(&pairs);
            pairs
                .iter()
                .map(|&(a, b)| a.is_superior_or_equal(b) as u32)
                .sum::<u32>()
        })
    });
    // The same compares in a dependent chain (the next pair depends on the last answer): no
    // vectorising across pairs, the latency of one compare.
    group.bench_function(format!("superior-chain/{}", H::NAME), |bencher| {
        bencher.iter(|| {
            let pairs = black_box(&pairs);
            let mut index = 0usize;
            for _ in 0..N {
                let (a, b) = pairs[index];
                index = (index + 1 + a.is_superior_or_equal(b) as usize) & (N - 1);
            }
            index
        })
    });
    group.bench_function(format!("count/{}", H::NAME), |bencher| {
        bencher.iter(|| {
            let pairs = black_box(&pairs);
            pairs
                .iter()
                .zip(&inputs.removable)
                .map(|(&(a, _), &kind)| a.count(kind) as u32)
                .sum::<u32>()
        })
    });
    // Add then read the new count, as a capture does before indexing the Zobrist table.
    group.bench_function(format!("add/{}", H::NAME), |bencher| {
        bencher.iter(|| {
            let pairs = black_box(&pairs);
            pairs
                .iter()
                .zip(&inputs.addable)
                .map(|(&(mut a, _), &kind)| {
                    a.add(kind);
                    a.count(kind) as u32
                })
                .sum::<u32>()
        })
    });
    group.bench_function(format!("remove/{}", H::NAME), |bencher| {
        bencher.iter(|| {
            let pairs = black_box(&pairs);
            pairs
                .iter()
                .zip(&inputs.removable)
                .map(|(&(mut a, _), &kind)| {
                    a.remove(kind);
                    a.count(kind) as u32
                })
                .sum::<u32>()
        })
    });
    group.finish();
}

fn hands(criterion: &mut Criterion) {
    let inputs = inputs();
    bench_layout::<PackedHand>(criterion, &inputs);
    bench_layout::<GuardedHand>(criterion, &inputs);
    bench_layout::<ByteHand>(criterion, &inputs);
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(300))
        .measurement_time(std::time::Duration::from_secs(1))
        .sample_size(20);
    targets = hands
}
criterion_main!(benches);
