//! Mate-in-1: the fast path against brute force on 100,000 seeded game-like positions per
//! backend, and hand-made positions for each rule it must get right, on every backend (run
//! with `--release`).

use kiki::mate1::{
    is_mating_move, mate_in_1, mate_in_1_brute_force, mating_moves, mating_moves_brute_force,
    tactical_positions,
};
use kiki::position::Position;
use kiki::variants::mailbox::Mailbox;
use kiki::{Backend, Bitboard};
use std::sync::OnceLock;

const POSITIONS: usize = 100_000;
const SEED: u64 = 0x6D61_7465_315F_6B69;
/// Every how many positions the full sets of mating moves are compared.
const ALL_MATES_EVERY: usize = 1;

/// The seeded positions, generated once (on the mailbox backend) and shared by every backend.
fn positions() -> &'static [String] {
    static POSITIONS_CELL: OnceLock<Vec<String>> = OnceLock::new();
    POSITIONS_CELL.get_or_init(|| {
        tactical_positions(
            Mailbox::new().expect("mailbox always runs"),
            SEED,
            POSITIONS,
        )
    })
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
    for sfen in positions() {
        let pos = Position::from_sfen(backend, sfen).expect("generated SFENs are valid");
        let fast = mate_in_1(&pos);
        let brute = mate_in_1_brute_force(&pos);
        assert_eq!(
            fast.is_some(),
            brute.is_some(),
            "{name}: fast {fast:?}, brute force {brute:?} in {sfen}"
        );
        if let Some(mv) = fast {
            assert!(
                is_mating_move(&pos, mv),
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
            let mut brute_all = mating_moves_brute_force(&pos);
            fast_all.sort();
            brute_all.sort();
            assert_eq!(fast_all, brute_all, "{name}: all mates in {sfen}");
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

/// Hand-made positions, one per rule: (what it tests, SFEN, every mating move in USI, sorted).
/// Black is to move in all of them; the white king stands in the corner 1a unless noted.
const HAND_MADE: &[(&str, &str, &[&str])] = &[
    (
        "contact drop defended by a gold on the board",
        "8k/9/7G1/9/9/9/9/9/4K4 b G 1",
        &["G*1b", "G*2b"],
    ),
    (
        "the king captures an undefended checker",
        "8k/9/9/9/9/9/9/9/4K4 b G 1",
        &[],
    ),
    (
        "a pawn drop that would mate is illegal (uchifuzume)",
        "8k/9/6NG1/9/9/9/9/9/4K4 b P 1",
        &[],
    ),
    (
        "a pawn push that mates is fine, so are a promotion and a gold move",
        "8k/9/6NGP/9/9/9/9/9/4K4 b - 1",
        &["1c1b", "1c1b+", "2c1b"],
    ),
    (
        "only the promoted pawn covers the flight square 2a",
        "8k/9/7GP/9/9/9/9/9/4K4 b - 1",
        &["1c1b+", "2c1b"],
    ),
    (
        "distant rook checks, nothing can interpose",
        "7lk/7p1/9/9/9/9/9/9/4K4 b R 1",
        &["R*1c", "R*1d", "R*1e", "R*1f", "R*1g", "R*1h", "R*1i"],
    ),
    (
        "distant rook checks, a gold interposes by a board move",
        "7sk/7g1/9/9/9/9/9/9/4K4 b R 1",
        &[],
    ),
    (
        "distant rook checks, a gold interposes by a drop",
        "7lk/7p1/9/9/9/9/9/9/4K4 b Rg 1",
        &[],
    ),
    (
        "distant rook checks, a pawn interposes by a drop",
        "7lk/7p1/9/9/9/9/9/9/4K4 b Rp 1",
        &[],
    ),
    (
        "distant rook checks, a pawn drop would be nifu (white pawn on 1h)",
        "7lk/7p1/9/9/9/9/9/8p/4K4 b Rp 1",
        &["R*1c", "R*1d", "R*1e", "R*1f", "R*1g"],
    ),
    (
        "rank check on white's last rank: no lance, knight or pawn drop there (king 1i)",
        "K8/9/9/9/9/9/6S2/8p/8k b Rlnp 1",
        &["R*3i", "R*4i", "R*5i", "R*6i", "R*7i", "R*8i", "R*9i"],
    ),
    (
        "the same with a gold in white's hand: it interposes",
        "K8/9/9/9/9/9/6S2/8p/8k b Rg 1",
        &[],
    ),
    (
        "a knight check is never blockable and needs no defender",
        "7lk/7np/9/9/9/9/9/9/4K4 b N 1",
        &["N*2c"],
    ),
    (
        "x-ray: the king (on 1b) cannot step back along the rook's line to 1a",
        "7l1/7pk/9/6G2/9/9/9/9/4K4 b R 1",
        &["R*1d", "R*1e", "R*1f", "R*1g", "R*1h", "R*1i"],
    ),
    (
        "the only capturer of the checker is pinned (bishop 4d pins the gold 2b)",
        "8k/7g1/9/5B1N1/9/9/9/9/4K4 b G 1",
        &["G*1b"],
    ),
    (
        "without the pin the gold captures",
        "8k/7g1/9/7N1/9/9/9/9/4K4 b G 1",
        &[],
    ),
    (
        "the moving knight uncovers the lance, pinning the silver that would capture",
        "8k/6G1s/8N/8L/9/9/9/9/4K4 b - 1",
        &["1c2a+"],
    ),
    (
        "double check (knight and uncovered lance): only king moves answer",
        "8k/6Sg1/8N/8L/9/9/9/9/4K4 b - 1",
        &["1c2a+"],
    ),
    (
        "the same knight check without the lance: the gold captures",
        "8k/6Sg1/8N/9/9/9/9/9/4K4 b - 1",
        &[],
    ),
    (
        "discovered check: the silver steps off the rook's file",
        "7lk/7p1/9/9/8S/9/9/9/4K3R b - 1",
        &["1e2d", "1e2f"],
    ),
    (
        "our gold is pinned to our king (2e) by the lance 2a; a pinned piece still guards",
        "7lk/9/7GP/9/7K1/9/9/9/9 b - 1",
        &["1c1b", "1c1b+"],
    ),
    (
        "we are in check: the obvious G*1b is no evasion",
        "8k/9/7G1/9/4r4/9/9/9/4K4 b G 1",
        &[],
    ),
    (
        "we are in check (knight 1g): capturing the checker mates",
        "7lk/7p1/9/9/9/9/R7n/9/7K1 b - 1",
        &["9g1g"],
    ),
    (
        "B*4d, B*5e: the only interposition is a pawn drop on 3c that checks our king on \
         3d (legal: our king takes it), settled by making the move; B*3c mates (2b is nifu)",
        "8k/8l/8N/6K2/9/9/4pp1p1/9/9 b Bp 1",
        &["B*3c"],
    ),
];

fn hand_made<B: Backend>() {
    let Ok(backend) = B::new() else { return };
    let name = B::info().name;
    for (what, sfen, expected) in HAND_MADE {
        let pos = Position::from_sfen(backend, sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"));
        let texts = |moves: Vec<kiki::position::Move>| {
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
                expected.contains(&mv.to_string().as_str()),
                "{name}: {mv} for {what}: {sfen}"
            ),
            None => assert!(expected.is_empty(), "{name}: no mate found: {what}: {sfen}"),
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
        }
    )*};
}

kiki::for_each_backend!(mate1_tests);
