//! Criterion: perft from the start position and the second public position on every backend,
//! in nodes per second (make/unmake, legal generation), in both leaf conventions: bulk counting
//! at the last ply (`perft`, group `perft`) and every last-ply move built into a list
//! (`perft_leaf(…, Leaf::List)`, group `perft-leaf-list`).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kiki_core::backend::Backend;
use kiki_core::public_positions::{published_counts, SECOND, START};
use kiki_engine::perft::{perft_leaf, Leaf};
use kiki_engine::position::Position;
use kiki_variants::registry::{self, BackendVisitor};
use std::hint::black_box;

/// (label, SFEN, depth): depths chosen so that one iteration is tens of ms.
const CASES: [(&str, &str, u32); 2] = [("startpos-d4", START, 4), ("second-d3", SECOND, 3)];

struct Bench<'a> {
    criterion: &'a mut Criterion,
}

impl BackendVisitor for Bench<'_> {
    type Output = ();
    fn visit<B: Backend>(self, backend: B) {
        for (group_name, leaf) in [("perft", Leaf::Count), ("perft-leaf-list", Leaf::List)] {
            let mut group = self.criterion.benchmark_group(group_name);
            for (label, sfen, depth) in CASES {
                let nodes = published_counts(sfen)[depth as usize - 1];
                let mut pos = Position::from_sfen(backend, sfen).expect("valid SFEN");
                group.throughput(Throughput::Elements(nodes));
                group.bench_function(BenchmarkId::new(B::info().name, label), |bencher| {
                    bencher.iter(|| {
                        let counted = perft_leaf(&mut pos, black_box(depth), leaf);
                        assert_eq!(counted, nodes);
                        counted
                    })
                });
            }
            group.finish();
        }
    }
}

fn movegen(criterion: &mut Criterion) {
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
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(3))
        .sample_size(15);
    targets = movegen
}
criterion_main!(benches);
