//! `legal_move_count` (the bulk count perft uses at its last ply) equals the length of the
//! list `legal_moves` makes, on every backend and the reference, over seeded tactical
//! game-like positions (random hands, a preference for checks and captures, so evasions and
//! drops are common) and each position's children (which add many positions in check); and
//! lists too short for a position's moves keep its first moves without writing past their end.

use kiki_core::backend::Backend;
use kiki_core::public_positions;
use kiki_engine::mate1::tactical_positions;
use kiki_engine::movegen::{MoveBuffer, MoveList};
use kiki_engine::position::{Position, START_SFEN};
use std::sync::OnceLock;

const SEEDS: [u64; 2] = [0xC0C0_0001, 0xC0C0_0002];
const ROOTS_PER_SEED: usize = 3_000;
/// Random-play games from the start position (hands only from captures): the openings and
/// quiet positions without a hand that the tactical generator, which hands out pieces, rarely
/// gives.
const OPENING_GAMES: usize = 60;
const OPENING_PLIES: usize = 40;

/// Every position of `OPENING_GAMES` seeded random-play games of up to `OPENING_PLIES` plies.
fn openings() -> Vec<String> {
    use rand::{RngExt, SeedableRng};
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(SEEDS[0]);
    let reference = kiki_core::reference::Reference;
    let mut out = Vec::new();
    let mut list = MoveList::new();
    for _ in 0..OPENING_GAMES {
        let mut pos = Position::from_sfen(reference, START_SFEN).unwrap();
        for _ in 0..OPENING_PLIES {
            out.push(pos.to_sfen());
            pos.legal_moves(&mut list);
            if list.is_empty() {
                break;
            }
            pos.do_move(list[rng.random_range(0..list.len())]);
        }
    }
    out
}

/// The positions every backend is checked on: the tactical roots of two seeds and the
/// openings, each followed by every seventh position one legal move away.
fn positions() -> &'static [String] {
    static POSITIONS: OnceLock<Vec<String>> = OnceLock::new();
    POSITIONS.get_or_init(|| {
        let reference = kiki_core::reference::Reference;
        let mut out = Vec::new();
        let mut list = MoveList::new();
        let roots = SEEDS
            .iter()
            .flat_map(|&seed| tactical_positions(reference, seed, ROOTS_PER_SEED))
            .chain(openings());
        for sfen in roots {
            let mut pos = Position::from_sfen(reference, &sfen).unwrap();
            pos.legal_moves(&mut list);
            for &mv in list.iter().step_by(7) {
                let undo = pos.do_move(mv);
                out.push(pos.to_sfen());
                pos.undo_move(mv, undo);
            }
            out.push(sfen);
        }
        out
    })
}

fn count_equals_list_length<B: Backend>() {
    let Ok(backend) = B::new() else {
        assert!(B::availability().is_err());
        return;
    };
    let (mut in_check, mut with_hand, mut in_check_with_hand) = (0, 0, 0);
    let mut without_hand = 0;
    let mut list = MoveList::new();
    for sfen in positions() {
        let pos = Position::from_sfen(backend, sfen).expect("valid SFEN");
        pos.legal_moves(&mut list);
        assert_eq!(
            pos.legal_move_count(),
            list.len() as u64,
            "{} on {sfen}",
            B::info().name
        );
        let hand = sfen.split(' ').nth(2).is_some_and(|h| h != "-");
        in_check += pos.in_check() as usize;
        with_hand += hand as usize;
        in_check_with_hand += (pos.in_check() && hand) as usize;
        without_hand += !hand as usize;
    }
    // The workload covers what the count must get right: evasions, and drops.
    let total = positions().len();
    assert!(total >= 5_000, "{total} positions");
    assert!(in_check >= 500, "{in_check} of {total} in check");
    assert!(
        with_hand >= 2_000,
        "{with_hand} of {total} with pieces in hand"
    );
    assert!(
        in_check_with_hand >= 200,
        "{in_check_with_hand} in check with a hand"
    );
    assert!(
        without_hand >= 1_000,
        "{without_hand} of {total} without a hand"
    );
}

/// `legal_moves` into a list of capacity `N` keeps the first `N` moves of the full list, in its
/// order: the generator's writer saturates (the drops' eight-lane stores included, which take
/// the per-move path near the end), as `push` does.
fn keeps_the_first_moves<const N: usize, B: Backend>(pos: &Position<B>, full: &MoveList) {
    let mut short = MoveBuffer::<N>::new();
    pos.legal_moves(&mut short);
    let kept = N.min(full.len());
    assert_eq!(
        short.as_slice(),
        &full.as_slice()[..kept],
        "{} into {N} slots: {}",
        B::info().name,
        pos.to_sfen()
    );
}

/// The four public positions, each with its full list, for the short-list tests.
fn public_lists<B: Backend>(backend: B) -> Vec<(Position<B>, MoveList)> {
    let lists: Vec<_> = [
        public_positions::START,
        public_positions::SECOND,
        public_positions::THIRD,
        public_positions::MIDDLE_GAME,
    ]
    .into_iter()
    .map(|sfen| {
        let pos = Position::from_sfen(backend, sfen).expect("valid SFEN");
        let mut full = MoveList::new();
        pos.legal_moves(&mut full);
        (pos, full)
    })
    .collect();
    // The third position's 593 moves overflow the shorter lists mid-drop.
    assert_eq!(lists.iter().map(|(_, full)| full.len()).max(), Some(593));
    lists
}

/// One capacity on every backend, 590, which fills up in the third position's drops (the
/// eight-lane stores near the list's end). Each capacity instantiates the whole generator once
/// more per backend (`legal_moves` is generic in it): six capacities on every backend cost
/// this binary 7.6 MB of code and about 100 s of its build. The reference takes six
/// (`short_lists_of_every_size_keep_the_first_moves`); saturation is the writer's, the same
/// code on every backend.
fn short_lists_keep_the_first_moves<B: Backend>() {
    let Ok(backend) = B::new() else {
        return;
    };
    for (pos, full) in public_lists(backend) {
        keeps_the_first_moves::<590, B>(&pos, &full);
    }
}

/// On the reference, lists that fill up at the first move, late in the start position, in the
/// middle of the other positions' board moves, in the drops, and never.
#[test]
fn short_lists_of_every_size_keep_the_first_moves() {
    use kiki_core::reference::Reference;
    let backend = Reference::new().expect("the reference is always available");
    for (pos, full) in public_lists(backend) {
        keeps_the_first_moves::<1, Reference>(&pos, &full);
        keeps_the_first_moves::<7, Reference>(&pos, &full);
        keeps_the_first_moves::<29, Reference>(&pos, &full);
        keeps_the_first_moves::<200, Reference>(&pos, &full);
        keeps_the_first_moves::<590, Reference>(&pos, &full);
        keeps_the_first_moves::<1024, Reference>(&pos, &full);
    }
}

macro_rules! move_count_tests {
    ($($name:literal $module:ident => $backend:ty),* $(,)?) => {$(
        mod $module {
            #[test]
            fn count_equals_list_length() {
                super::count_equals_list_length::<$backend>();
            }

            #[test]
            fn short_lists_keep_the_first_moves() {
                super::short_lists_keep_the_first_moves::<$backend>();
            }
        }
    )*};
}

move_count_tests! {
    "reference" reference => kiki_core::reference::Reference,
}
for_each_tested!(move_count_tests);
