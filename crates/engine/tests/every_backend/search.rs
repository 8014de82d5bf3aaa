//! The search against itself: the same fingerprint (nodes, best move, score, evaluation
//! checksum) on every registered backend as on the reference, and under every evaluation the
//! same tree with another checksum.

use kiki_core::backend::Backend;
use kiki_core::pages::Pages;
use kiki_core::reference::Reference;
use kiki_engine::position::{Move, Position};
use kiki_engine::search::eval::{EvalKind, EvalTables};
use kiki_engine::search::tt::TranspositionTable;
use kiki_engine::search::{bench, search};
use kiki_variants::registry::BackendVisitor;

/// Each position's (nodes, best move, score) at `depth` under `tables` on `backend`.
fn fingerprints<B: Backend>(
    backend: B,
    sfens: &[&str],
    depth: u32,
    tables: &EvalTables,
) -> Vec<(u64, Option<Move>, i32, u64)> {
    let mut tt = TranspositionTable::new(4 << 20, Pages::Small);
    sfens
        .iter()
        .map(|sfen| {
            let pos = Position::from_sfen(backend, sfen).expect("bench SFEN");
            let outcome = search(&pos, depth, tables, &mut tt);
            (
                outcome.nodes,
                outcome.best,
                outcome.score,
                outcome.eval_checksum,
            )
        })
        .collect()
}

#[test]
fn every_backend_and_evaluation_walks_the_same_tree() {
    let positions = bench::positions();
    let sfens = &positions[..12];
    let material = EvalTables::new(EvalKind::Material, Pages::Small);
    let expected = fingerprints(Reference, sfens, 3, &material);
    assert!(
        expected.iter().map(|f| f.0).sum::<u64>() > 10_000,
        "{expected:?}"
    );
    struct Same<'a> {
        sfens: &'a [&'a str],
        tables: &'a EvalTables,
        expected: &'a [(u64, Option<Move>, i32, u64)],
    }
    impl BackendVisitor for Same<'_> {
        type Output = ();
        fn visit<B: Backend>(self, backend: B) {
            let got = fingerprints(backend, self.sfens, 3, self.tables);
            assert_eq!(got, self.expected, "{}", B::info().name);
        }
    }
    for name in crate::tested_names() {
        let same = Same {
            sfens,
            tables: &material,
            expected: &expected,
        };
        crate::visit_tested(name, same).expect("available backend");
    }
    // Another evaluation: the same nodes, moves and scores, another checksum.
    for kind in [EvalKind::Nnue, EvalKind::Kpp] {
        let tables = EvalTables::new(kind, Pages::Small);
        let got = fingerprints(Reference, &sfens[..4], 3, &tables);
        for (got, expected) in got.iter().zip(&expected) {
            assert_eq!(
                (got.0, got.1, got.2),
                (expected.0, expected.1, expected.2),
                "{kind:?}"
            );
            assert_ne!(got.3, expected.3, "{kind:?}'s values are folded in");
        }
    }
}

/// The bench fingerprint of the first 12 positions at depth 3, as committed: the same at every
/// SIMD level and with `portable` (CI runs this test at each), on every backend (above).
#[test]
fn the_fingerprint_is_the_committed_one_at_this_simd_level() {
    let positions = bench::positions();
    let sfens = &positions[..12];
    let mut seen = Vec::new();
    for kind in EvalKind::ALL {
        let tables = EvalTables::new(kind, Pages::Small);
        let backend = kiki_variants::qugiy::Qugiy::new().expect("qugiy builds");
        let prints = fingerprints(backend, sfens, 3, &tables);
        let nodes: u64 = prints.iter().map(|p| p.0).sum();
        let checksum = prints
            .iter()
            .fold(0u64, |acc, p| acc.rotate_left(9) ^ p.3 ^ p.2 as u64);
        seen.push((kind.name(), nodes, checksum));
    }
    assert_eq!(seen, GOLDEN, "level {}", kiki_core::simd::level());
}

const GOLDEN: [(&str, u64, u64); 3] = [
    ("material", 97_071, 7_298_139_877_123_640_080),
    ("nnue", 97_071, 15_642_885_861_183_769_928),
    ("kpp", 97_071, 17_192_433_546_943_419_745),
];
