//! The search's own checks: incremental evaluations equal to their from-scratch values, known
//! mates. (The search against itself on every backend and evaluation, and the committed
//! fingerprint at each SIMD level, are in kiki-engine's `every_backend` test binary.)

use super::eval::{from_scratch, EvalKind, EvalTables, Evaluator, KppState, NnueState};
use super::*;
use kiki_core::pages::Pages;
use kiki_core::reference::Reference;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

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
