//! Effect boards: every tracker's incremental counts equal a from-scratch recount after every
//! make and every unmake of 100,000+ seeded random-game moves (run with `--release`).

use kiki_core::reference::Reference;
use kiki_core::types::Square;
use kiki_engine::effects::{
    BitboardEffects, DistanceCheck, EffectTracker, Effects, PaddedMailbox, SquareWithWall,
};
use kiki_engine::position::{Move, Position};
use kiki_harness::effects_timing::{verify, verify_all, workload, Workload};
use kiki_variants::qugiy::Qugiy;

#[test]
fn every_tracker_matches_a_recount_over_100k_moves() {
    let workload = workload(100_000, 0xEFFEC7).expect("workload");
    assert_eq!(workload.moves, 100_000);
    let verified = verify_all(&workload).unwrap_or_else(|why| panic!("{why}"));
    // One comparison per make, per unmake, and per game start.
    assert_eq!(verified.comparisons, 2 * 100_000 + workload.games.len());
}

#[test]
fn a_second_seed_and_the_reference_backend_agree_too() {
    let workload = workload(20_000, 12345).expect("workload");
    verify::<Effects<SquareWithWall>>(&workload).unwrap_or_else(|why| panic!("{why}"));
    verify::<BitboardEffects<Reference>>(&workload).unwrap_or_else(|why| panic!("{why}"));
}

/// A hand-made game with the special cases of the update: a slider captures along its own
/// ray, a lance moves along its own line and promotes, drops cut rays, the rook moves along
/// its rank (behind the pawn that cut it) and then up its file to promote.
#[test]
fn sliders_moving_along_their_own_lines() {
    let sfen = "4k4/9/9/9/4r4/9/9/9/L3R3K b BLP 1";
    // Rook takes rook along its own file; lance slides up its file and promotes; a bishop
    // drop cuts the rook's file; a pawn drop cuts its rank; the rook slides along both lines.
    let texts = [
        "5i5e", "5a4a", "9i9b+", "4a4b", "B*5d", "4b3a", "P*4e", "3a2b", "5e6e", "2b1c", "6e6a+",
    ];
    let start = Position::from_sfen(Reference, sfen).expect("valid SFEN");
    let mut pos = start.clone();
    let mut moves: Vec<Move> = Vec::new();
    for text in texts {
        let mv = pos.parse_usi_move(text).expect("legal");
        pos.do_move(mv);
        moves.push(mv);
    }
    let workload = Workload {
        seed: 0,
        games: vec![kiki_harness::effects_timing::Game {
            start: Box::leak(sfen.to_string().into_boxed_str()),
            moves,
        }],
        moves: texts.len(),
    };
    verify::<Effects<PaddedMailbox>>(&workload).unwrap_or_else(|why| panic!("{why}"));
    verify::<Effects<SquareWithWall>>(&workload).unwrap_or_else(|why| panic!("{why}"));
    verify::<Effects<DistanceCheck>>(&workload).unwrap_or_else(|why| panic!("{why}"));
    verify::<BitboardEffects<Qugiy>>(&workload).unwrap_or_else(|why| panic!("{why}"));

    // Spot values on the start position: the rook on 5e and the one on 5i see each other.
    let effects = Effects::<SquareWithWall>::from_position(&start).expect("tracker");
    let sq = |text| Square::parse(text).expect("square");
    assert_eq!(effects.effect(kiki_core::types::Color::White, sq("5i")), 1);
    assert_eq!(effects.effect(kiki_core::types::Color::Black, sq("5e")), 1);
    assert_eq!(effects.effect(kiki_core::types::Color::Black, sq("5d")), 0);
    // The lance on 9i sees up the whole file.
    assert_eq!(effects.effect(kiki_core::types::Color::Black, sq("9a")), 1);
}
