//! The search against itself: the same fingerprint on every backend and under every
//! evaluation, incremental evaluations equal to their from-scratch values, known mates.

use super::eval::{from_scratch, EvalKind, EvalTables, Evaluator, KppState, NnueState};
use super::*;
use kiki_core::pages::Pages;
use kiki_core::reference::Reference;
use kiki_variants::registry::{self, BackendVisitor};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

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
    for name in registry::resolve("all").expect("all resolves") {
        let same = Same {
            sfens,
            tables: &material,
            expected: &expected,
        };
        registry::visit(name, same).expect("available backend");
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

#[test]
fn incremental_evaluations_equal_their_values_from_scratch() {
    let nnue = EvalTables::new(EvalKind::Nnue, Pages::Small);
    let kpp = EvalTables::new(EvalKind::Kpp, Pages::Small);
    let (EvalTables::Nnue(nnue), EvalTables::Kpp(kpp)) = (&nnue, &kpp) else {
        unreachable!("built as asked")
    };
    let backend = kiki_variants::dbb::Dbb::new().expect("dbb builds");
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    let mut checked = 0;
    while checked < 100_000 {
        let mut pos = Position::startpos(backend);
        let (mut nnue_state, mut kpp_state) = (NnueState::new(nnue), KppState::new(kpp));
        nnue_state.reset(&pos);
        kpp_state.reset(&pos);
        let mut played = Vec::new();
        for _ in 0..200 {
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            let mv = moves[rng.random_range(0..moves.len())];
            nnue_state.push(&pos, mv);
            kpp_state.push(&pos, mv);
            played.push((mv, pos.do_move(mv)));
            assert_same(&mut nnue_state, &mut kpp_state, &pos, (nnue, kpp));
            checked += 1;
            if !pos.in_check() && checked % 7 == 0 {
                // A null move: the same features, the other side to move.
                nnue_state.push_null();
                kpp_state.push_null();
                pos.do_null_move();
                assert_same(&mut nnue_state, &mut kpp_state, &pos, (nnue, kpp));
                pos.undo_null_move();
                nnue_state.pop();
                kpp_state.pop();
            }
        }
        // Unmake half the game: the states come back with the positions.
        for _ in 0..played.len() / 2 {
            let (mv, undo) = played.pop().expect("played");
            pos.undo_move(mv, undo);
            nnue_state.pop();
            kpp_state.pop();
            assert_same(&mut nnue_state, &mut kpp_state, &pos, (nnue, kpp));
            checked += 1;
        }
    }
}

/// The incremental states against states rebuilt from `pos`: the accumulators and sums
/// themselves (the values after the dense layers saturate too often to show every error).
fn assert_same<B: Backend>(
    nnue_state: &mut NnueState,
    kpp_state: &mut KppState,
    pos: &Position<B>,
    (nnue, kpp): (&eval::NnueWeights, &eval::KppWeights),
) {
    let (mut nnue_fresh, mut kpp_fresh) = (NnueState::new(nnue), KppState::new(kpp));
    nnue_fresh.reset(pos);
    kpp_fresh.reset(pos);
    assert!(
        nnue_state.accumulators() == nnue_fresh.accumulators(),
        "{pos:?}"
    );
    assert_eq!(kpp_state.sums(), kpp_fresh.sums(), "{pos:?}");
    assert_eq!(
        nnue_state.evaluate(pos),
        from_scratch::nnue(nnue, pos),
        "{pos:?}"
    );
    assert_eq!(
        kpp_state.evaluate(pos),
        from_scratch::kpp(kpp, pos),
        "{pos:?}"
    );
}

#[test]
fn mates_in_one_and_three_are_found() {
    let material = EvalTables::new(EvalKind::Material, Pages::Small);
    let mut tt = TranspositionTable::new(1 << 20, Pages::Small);
    // Mate in one: a gold drop on 1b, guarded by the knight on 2c... (mate1's own test).
    let pos = Position::from_sfen(Reference, "8k/9/7GN/9/9/9/9/9/4K4 b G 1").expect("SFEN");
    let outcome = search(&pos, 1, &material, &mut tt);
    assert_eq!(outcome.score, MATE - 1, "{outcome:?}");
    assert_eq!(outcome.best.map(|mv| mv.usi()).as_deref(), Some("G*1b"));
    // Mate in three (from mate1's tactical generator): no mate in one, and after the move the
    // search names, every reply allows a mate in one, by brute force.
    let sfen = "1G1k4l/2r4b1/nG4ppp/9/9/9/PPPPPP3/1B2K4/LNs1s3L w 2G2N4Pr2sl5p 18";
    let mut pos = Position::from_sfen(Reference, sfen).expect("SFEN");
    assert_eq!(crate::mate1::mate_in_1_brute_force(&pos), None);
    let outcome = search(&pos, 3, &material, &mut tt);
    assert_eq!(outcome.score, MATE - 3, "{outcome:?}");
    let first = outcome.best.expect("a mating move");
    pos.do_move(first);
    let mut replies = MoveList::new();
    pos.legal_moves(&mut replies);
    assert!(!replies.is_empty());
    for &reply in replies.iter() {
        let undo = pos.do_move(reply);
        assert!(
            crate::mate1::mate_in_1_brute_force(&pos).is_some(),
            "{first} {reply}"
        );
        pos.undo_move(reply, undo);
    }
}

#[test]
fn a_side_with_no_move_scores_mate_and_a_null_move_restores_the_key() {
    let material = EvalTables::new(EvalKind::Material, Pages::Small);
    let mut tt = TranspositionTable::new(1 << 20, Pages::Small);
    // White's king on 1a is mated (gold 1b, guarded by the pawn on 1c).
    let pos = Position::from_sfen(Reference, "8k/8G/8P/9/9/9/9/9/4K4 w - 1").expect("SFEN");
    let outcome = search(&pos, 2, &material, &mut tt);
    assert_eq!((outcome.best, outcome.score), (None, -MATE));
    let mut pos = Position::startpos(Reference);
    let key = pos.key();
    pos.do_null_move();
    assert_ne!(pos.key(), key);
    assert_eq!(pos.key(), pos.key_from_scratch());
    pos.undo_null_move();
    assert_eq!(
        (pos.key(), pos.to_sfen()),
        (key, Position::startpos(Reference).to_sfen())
    );
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
