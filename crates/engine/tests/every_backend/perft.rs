//! Perft of the GUIDE's public positions on every backend and the reference (run with
//! `--release`): start position to depth 5, the second position to depth 3, the third to
//! depth 2; deeper values as ignored tests. Positions and published counts come from
//! `tests/data/public_perft.sfen`.

use kiki_core::backend::Backend;
use kiki_core::public_positions::{published_counts, SECOND, START, THIRD};
use kiki_engine::attack_map::Method;
use kiki_engine::perft::{divide, divide_leaf, perft, perft_leaf, Leaf};
use kiki_engine::position::{KingSafety, Position};

/// Checks perft to each depth in `expected` (depth 1 first), and that the position, its key
/// and its occupancy are restored afterwards.
fn check<B: Backend>(sfen: &str, expected: &[u64]) {
    let Ok(backend) = B::new() else {
        assert!(B::availability().is_err());
        return;
    };
    let mut pos = Position::from_sfen(backend, sfen).expect("valid SFEN");
    let key = pos.key();
    for (depth, &want) in expected.iter().enumerate() {
        let depth = depth as u32 + 1;
        let got = perft(&mut pos, depth);
        assert_eq!(
            got,
            want,
            "{}: perft depth {depth} of {sfen}",
            B::info().name
        );
        assert_eq!(pos.to_sfen(), sfen);
        assert_eq!(pos.key(), key);
    }
}

fn divide_sums_to_perft<B: Backend>() {
    let Ok(backend) = B::new() else { return };
    let mut pos = Position::startpos(backend);
    let rows = divide(&mut pos, 2);
    assert_eq!(rows.len(), 30);
    assert!(rows.windows(2).all(|w| w[0].0 < w[1].0));
    assert_eq!(rows.iter().map(|r| r.1).sum::<u64>(), 900);
    assert!(rows.iter().any(|r| r.0 == "7g7f" && r.1 == 30));
}

/// Perft that builds every leaf move (`Leaf::List`), and bulk counting without perft's
/// shortcuts (`Leaf::CountPlain`), give the published counts, and divide with the list the
/// same rows as with bulk counting.
fn list_leaves_agree<B: Backend>() {
    let Ok(backend) = B::new() else { return };
    for (sfen, depth) in [(START, 4), (SECOND, 3), (THIRD, 2)] {
        let mut pos = Position::from_sfen(backend, sfen).expect("valid SFEN");
        let want = published_counts(sfen)[depth as usize - 1];
        for leaf in [Leaf::List, Leaf::CountPlain] {
            assert_eq!(
                perft_leaf(&mut pos, depth, leaf),
                want,
                "{}: {} perft depth {depth} of {sfen}",
                B::info().name,
                leaf.name()
            );
            assert_eq!(pos.to_sfen(), sfen);
        }
    }
    let mut pos = Position::startpos(backend);
    assert_eq!(divide_leaf(&mut pos, 3, Leaf::List), divide(&mut pos, 3));
}

/// Every king-safety method (the other colour's attack map instead of per-square tests, by
/// every method at every SIMD level) counts the published numbers.
fn king_safety_agrees<B: Backend>() {
    let Ok(backend) = B::new() else { return };
    for method in Method::available() {
        for (sfen, depth) in [(START, 4), (SECOND, 3), (THIRD, 2)] {
            let mut pos = Position::from_sfen(backend, sfen).expect("valid SFEN");
            pos.set_king_safety(KingSafety::AttackMap(method));
            let want = published_counts(sfen)[depth as usize - 1];
            for leaf in [Leaf::Count, Leaf::CountPlain, Leaf::List] {
                assert_eq!(
                    perft_leaf(&mut pos, depth, leaf),
                    want,
                    "{} with {}: perft depth {depth} of {sfen}",
                    B::info().name,
                    method.name()
                );
            }
        }
    }
}

macro_rules! perft_tests {
    ($($name:literal $module:ident => $backend:ty),* $(,)?) => {$(
        mod $module {
            use super::*;
            type B = $backend;

            #[test]
            fn start_position_to_depth_5() {
                check::<B>(START, &published_counts(START)[..5]);
            }

            #[test]
            fn second_position_to_depth_3() {
                check::<B>(SECOND, &published_counts(SECOND)[..3]);
            }

            #[test]
            fn third_position_to_depth_2() {
                check::<B>(THIRD, &published_counts(THIRD)[..2]);
            }

            #[test]
            fn divide() {
                divide_sums_to_perft::<B>();
            }

            #[test]
            fn list_leaves_count_the_same() {
                list_leaves_agree::<B>();
            }

            #[test]
            fn attack_map_king_safety_counts_the_same() {
                king_safety_agrees::<B>();
            }

            #[test]
            #[ignore = "tens of seconds per backend"]
            fn deeper_public_values() {
                let backend = B::new().expect("available");
                let mut pos = Position::from_sfen(backend, SECOND).unwrap();
                assert_eq!(perft(&mut pos, 4), published_counts(SECOND)[3]);
                let mut pos = Position::from_sfen(backend, THIRD).unwrap();
                assert_eq!(perft(&mut pos, 3), published_counts(THIRD)[2]);
            }
        }
    )*};
}

perft_tests! {
    "reference" reference => kiki_core::reference::Reference,
}
for_each_tested!(perft_tests);

/// Copy-make (`kiki perft --make copy`) counts what make/unmake counts, in both leaf
/// conventions, on every backend.
#[test]
fn copy_make_counts_what_make_unmake_counts() {
    use kiki_engine::perft::{perft_with, Leaf, Make};
    struct Compare;
    impl kiki_variants::registry::BackendVisitor for Compare {
        type Output = ();
        fn visit<B: Backend>(self, backend: B) {
            for (sfen, depth) in [(START, 3), (SECOND, 2)] {
                let mut pos = Position::from_sfen(backend, sfen).unwrap();
                let expected = perft(&mut pos, depth);
                for leaf in [Leaf::Count, Leaf::CountPlain, Leaf::List] {
                    for make in [Make::Unmake, Make::Copy] {
                        assert_eq!(
                            perft_with(&mut pos, depth, leaf, make),
                            expected,
                            "{} {sfen} d{depth} {leaf:?} {make:?}",
                            B::info().name
                        );
                    }
                }
            }
        }
    }
    for name in kiki_variants::registry::resolve("all").unwrap() {
        kiki_variants::registry::visit(name, Compare).unwrap();
    }
}
