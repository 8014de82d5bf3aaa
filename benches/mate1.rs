//! Criterion: mate-in-1 per backend, the fast path (attack sets, no make) against brute force
//! (make every legal move, generate the replies), on 200 positions with a mate in 1 and 200
//! without, drawn from the same seeded tactical games for every backend.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kiki_core::backend::Backend;
use kiki_engine::mate1::{mate_in_1, mate_in_1_brute_force, tactical_positions};
use kiki_engine::position::Position;
use kiki_variants::mailbox::Mailbox;
use kiki_variants::registry::{self, BackendVisitor};
use std::hint::black_box;

const PER_SET: usize = 200;
const SEED: u64 = 0x6265_6E63_685F_6D31;

/// (with a mate, without): SFENs, split by the brute-force answer, generated once.
fn sets() -> (Vec<String>, Vec<String>) {
    let backend = Mailbox::new().expect("mailbox always runs");
    let (mut mates, mut quiet) = (Vec::new(), Vec::new());
    for sfen in tactical_positions(backend, SEED, 20 * PER_SET) {
        let pos = Position::from_sfen(backend, &sfen).expect("generated SFENs are valid");
        let set = if mate_in_1_brute_force(&pos).is_some() {
            &mut mates
        } else {
            &mut quiet
        };
        if set.len() < PER_SET {
            set.push(sfen);
        }
    }
    assert_eq!((mates.len(), quiet.len()), (PER_SET, PER_SET));
    (mates, quiet)
}

struct Bench<'a> {
    criterion: &'a mut Criterion,
    sets: &'a (Vec<String>, Vec<String>),
}

impl BackendVisitor for Bench<'_> {
    type Output = ();
    fn visit<B: Backend>(self, backend: B) {
        let name = B::info().name;
        let mut group = self.criterion.benchmark_group(format!("mate1/{name}"));
        for (label, sfens) in [("mate", &self.sets.0), ("no-mate", &self.sets.1)] {
            let positions: Vec<Position<B>> = sfens
                .iter()
                .map(|s| Position::from_sfen(backend, s).expect("valid SFEN"))
                .collect();
            group.throughput(Throughput::Elements(positions.len() as u64));
            group.bench_function(BenchmarkId::new("fast", label), |bencher| {
                bencher.iter(|| {
                    positions
                        .iter()
                        .filter(|p| mate_in_1(black_box(p)).is_some())
                        .count()
                })
            });
            group.bench_function(BenchmarkId::new("brute", label), |bencher| {
                bencher.iter(|| {
                    positions
                        .iter()
                        .filter(|p| mate_in_1_brute_force(black_box(p)).is_some())
                        .count()
                })
            });
        }
        group.finish();
    }
}

fn mate1(criterion: &mut Criterion) {
    let sets = sets();
    for name in registry::resolve("all").expect("the registry resolves 'all'") {
        registry::visit(
            name,
            Bench {
                criterion: &mut *criterion,
                sets: &sets,
            },
        )
        .expect("available backend");
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2))
        .sample_size(15);
    targets = mate1
}
criterion_main!(benches);
