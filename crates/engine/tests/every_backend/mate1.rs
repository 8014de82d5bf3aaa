//! Mate-in-1: the fast path against brute force on 100,000 seeded game-like positions per
//! backend, and hand-made positions for each rule it must get right, on every backend (run
//! with `--release`). The brute force (make every legal move, then look for a reply) runs once,
//! on the naive reference backend, and is the oracle every backend's fast path must match.

use kiki_core::backend::{Backend, Bitboard};
use kiki_core::reference::Reference;
use kiki_engine::attack_map::Method;
use kiki_engine::mate1::{
    is_mating_move, mate_in_1, mate_in_1_brute_force, mating_moves, mating_moves_brute_force,
    tactical_positions,
};
use kiki_engine::position::{KingSafety, Move, Position};
use kiki_variants::mailbox::Mailbox;
use std::sync::OnceLock;

const POSITIONS: usize = 100_000;
const SEED: u64 = 0x6D61_7465_315F_6B69;
/// Every how many positions the full sets of mating moves are compared.
const ALL_MATES_EVERY: usize = 1;

/// The seeded positions, generated once (on the mailbox backend) and shared by every backend.
fn positions() -> &'static [String] {
    &oracle().sfens
}

/// The positions and, for each, every mating move by brute force on the reference, sorted.
struct Oracle {
    sfens: Vec<String>,
    mates: Vec<Vec<Move>>,
}

fn oracle() -> &'static Oracle {
    static ORACLE: OnceLock<Oracle> = OnceLock::new();
    ORACLE.get_or_init(|| {
        let sfens = generated_positions();
        let mates = sfens
            .iter()
            .enumerate()
            .map(|(index, sfen)| {
                let pos = Position::from_sfen(Reference, sfen).expect("generated SFENs are valid");
                let mut mates = mating_moves_brute_force(&pos);
                // The first-mate brute force (E3 times it) is the first of the full set's.
                if index % 8 == 0 {
                    assert_eq!(
                        mate_in_1_brute_force(&pos),
                        mates.first().copied(),
                        "{sfen}"
                    );
                }
                mates.sort();
                mates
            })
            .collect();
        Oracle { sfens, mates }
    })
}

fn generated_positions() -> Vec<String> {
    tactical_positions(
        Mailbox::new().expect("mailbox always runs"),
        SEED,
        POSITIONS,
    )
}

fn agrees_with_brute_force<B: Backend>() {
    let Ok(backend) = B::new() else {
        assert!(B::availability().is_err());
        return;
    };
    let name = B::info().name;
    let (mut mates, mut in_check, mut with_hands) = (0usize, 0usize, 0usize);
    // Kinds of mates met: [drop, promotion, discovered, double check, distant, while in check].
    let mut kinds = [0usize; 6];
    let (mut checked, mut all_mates_checked, mut all_mates_found) = (0usize, 0usize, 0usize);
    let oracle = oracle();
    for (sfen, brute_all) in oracle.sfens.iter().zip(&oracle.mates) {
        let pos = Position::from_sfen(backend, sfen).expect("generated SFENs are valid");
        let fast = mate_in_1(&pos);
        assert_eq!(
            fast.is_some(),
            !brute_all.is_empty(),
            "{name}: fast {fast:?}, brute force {brute_all:?} in {sfen}"
        );
        if let Some(mv) = fast {
            assert!(
                brute_all.binary_search(&mv).is_ok() && is_mating_move(&pos, mv),
                "{name}: {mv} does not mate in {sfen}"
            );
            mates += 1;
            let mut after = pos.clone();
            after.do_move(mv);
            let checkers = after.checkers();
            let king = after.king_square(after.side_to_move()).expect("mated king");
            let distant = checkers
                .squares()
                .any(|c| c.file().abs_diff(king.file()) > 1 || c.rank().abs_diff(king.rank()) > 1);
            for (count, hit) in kinds.iter_mut().zip([
                mv.is_drop(),
                mv.is_promotion(),
                !checkers.contains(mv.to()),
                checkers.count() > 1,
                distant,
                pos.in_check(),
            ]) {
                *count += usize::from(hit);
            }
        }
        // Every candidate's verdict, not only the first mate: on a share of the positions
        // (every `ALL_MATES_EVERY`-th), the full sets of mating moves must agree.
        if all_mates_checked * ALL_MATES_EVERY <= checked {
            let mut fast_all = mating_moves(&pos);
            fast_all.sort();
            assert_eq!(&fast_all, brute_all, "{name}: all mates in {sfen}");
            all_mates_checked += 1;
            all_mates_found += fast_all.len();
        }
        checked += 1;
        in_check += usize::from(pos.in_check());
        with_hands += usize::from(!sfen.contains(" - "));
    }
    eprintln!(
        "{name}: {} positions, {mates} with a mate in 1 (drops {}, promotions {}, discovered {}, \
         double checks {}, distant checkers {}, mating while in check {}), {in_check} in check, \
         {with_hands} with pieces in hand; all mating moves compared on {all_mates_checked} \
         positions ({all_mates_found} mating moves)",
        positions().len(),
        kinds[0],
        kinds[1],
        kinds[2],
        kinds[3],
        kinds[4],
        kinds[5]
    );
    assert!(mates * 10 >= positions().len(), "too few mates: {mates}");
}

/// The hand-made positions of `crates/engine/tests/data/mate1_rules.txt`, one per rule: (what it tests, SFEN,
/// every mating move in USI, sorted). Black is to move in all of them; the white king stands in
/// the corner 1a unless noted.
fn hand_made_positions() -> Vec<(String, String, Vec<String>)> {
    include_str!("../data/mate1_rules.txt")
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let fields: Vec<&str> = line.split('|').map(str::trim).collect();
            assert_eq!(fields.len(), 3, "mate1_rules.txt: {line}");
            let moves = match fields[2] {
                "-" => Vec::new(),
                list => list.split_whitespace().map(str::to_string).collect(),
            };
            (fields[0].to_string(), fields[1].to_string(), moves)
        })
        .collect()
}

fn hand_made<B: Backend>() {
    let Ok(backend) = B::new() else { return };
    let name = B::info().name;
    let positions = hand_made_positions();
    assert!(positions.len() >= 24, "the rules file lost positions");
    for (what, sfen, expected) in &positions {
        let pos = Position::from_sfen(backend, sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"));
        let texts = |moves: Vec<kiki_engine::position::Move>| {
            let mut texts: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
            texts.sort();
            texts
        };
        assert_eq!(
            texts(mating_moves_brute_force(&pos)),
            *expected,
            "{name}, brute force: {what}: {sfen}"
        );
        assert_eq!(
            texts(mating_moves(&pos)),
            *expected,
            "{name}, fast path: {what}: {sfen}"
        );
        match mate_in_1(&pos) {
            Some(mv) => assert!(
                expected.contains(&mv.to_string()),
                "{name}: {mv} for {what}: {sfen}"
            ),
            None => assert!(expected.is_empty(), "{name}: no mate found: {what}: {sfen}"),
        }
    }
}

/// Flight squares tested with one attack map per move (every method and SIMD level) find the
/// same mates as the per-square tests.
fn attack_map_flights_agree<B: Backend>() {
    let Ok(backend) = B::new() else { return };
    let name = B::info().name;
    for sfen in positions().iter().step_by(4) {
        let pos = Position::from_sfen(backend, sfen).expect("generated SFENs are valid");
        let mut expected = mating_moves(&pos);
        expected.sort();
        for method in Method::available() {
            let mut with_map = pos.clone();
            with_map.set_king_safety(KingSafety::AttackMap(method));
            let mut found = mating_moves(&with_map);
            found.sort();
            assert_eq!(found, expected, "{name} with {}: {sfen}", method.name());
            assert_eq!(mate_in_1(&with_map).is_some(), !expected.is_empty());
        }
    }
}

macro_rules! mate1_tests {
    ($($name:literal $module:ident => $backend:ty),* $(,)?) => {$(
        mod $module {
            use super::*;
            type B = $backend;

            #[test]
            fn fast_path_agrees_with_brute_force() {
                agrees_with_brute_force::<B>();
            }

            #[test]
            fn hand_made_positions() {
                hand_made::<B>();
            }

            #[test]
            fn attack_map_flights_find_the_same_mates() {
                attack_map_flights_agree::<B>();
            }
        }
    )*};
}

for_each_tested!(mate1_tests);
