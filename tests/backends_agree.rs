//! Every backend plays the same seeded random games as the reference, in lockstep through
//! make/unmake, and must produce the same legal moves, checking moves, check state and key at
//! every position (100,000+ positions; run with `--release`).

use kiki::movegen::MoveList;
use kiki::position::{Move, Position, START_SFEN};
use kiki::public_positions;
use kiki::reference::Reference;
use kiki::registry::{self, BackendVisitor};
use kiki::Backend;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const POSITIONS: usize = 100_000;
const STARTS: [&str; 4] = [
    START_SFEN,
    public_positions::SECOND,
    public_positions::THIRD,
    public_positions::MIDDLE_GAME,
];

/// What the reference saw at one position.
struct Seen {
    legal: Vec<Move>,
    checks: Vec<Move>,
    in_check: bool,
    key: u64,
}

struct Game {
    start: &'static str,
    moves: Vec<Move>,
    seen: Vec<Seen>,
}

fn observe<B: Backend>(pos: &Position<B>) -> Seen {
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    let mut legal = list.to_vec();
    legal.sort();
    let mut checks = MoveList::new();
    pos.check_moves(&mut checks);
    let mut checks = checks.to_vec();
    checks.sort();
    Seen {
        legal,
        checks,
        in_check: pos.in_check(),
        key: pos.key(),
    }
}

fn reference_games() -> Vec<Game> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0xA9EE_0001);
    let mut games = Vec::new();
    let mut positions = 0;
    while positions < POSITIONS {
        let start = STARTS[games.len() % STARTS.len()];
        let mut pos = Position::from_sfen(Reference, start).expect("valid SFEN");
        let mut game = Game {
            start,
            moves: Vec::new(),
            seen: Vec::new(),
        };
        for _ply in 0..200 {
            let seen = observe(&pos);
            positions += 1;
            if seen.legal.is_empty() {
                game.seen.push(seen);
                break;
            }
            // Checks half the time: more evasions, pins and pawn-drop questions.
            let mv = if !seen.checks.is_empty() && rng.random_bool(0.5) {
                seen.checks[rng.random_range(0..seen.checks.len())]
            } else {
                seen.legal[rng.random_range(0..seen.legal.len())]
            };
            game.seen.push(seen);
            game.moves.push(mv);
            pos.do_move(mv);
        }
        games.push(game);
    }
    games
}

struct Replay<'a> {
    games: &'a [Game],
}

impl BackendVisitor for Replay<'_> {
    type Output = usize;
    fn visit<B: Backend>(self, backend: B) -> usize {
        let name = B::info().name;
        let mut compared = 0;
        for game in self.games {
            let mut pos = Position::from_sfen(backend, game.start).expect("valid SFEN");
            for (ply, seen) in game.seen.iter().enumerate() {
                let ours = observe(&pos);
                let context =
                    || format!("{name} at ply {ply} of {}: {}", game.start, pos.to_sfen());
                assert_eq!(ours.legal, seen.legal, "legal moves, {}", context());
                assert_eq!(ours.checks, seen.checks, "checking moves, {}", context());
                assert_eq!(ours.in_check, seen.in_check, "check state, {}", context());
                assert_eq!(ours.key, seen.key, "key, {}", context());
                compared += 1;
                if let Some(&mv) = game.moves.get(ply) {
                    pos.do_move(mv);
                }
            }
        }
        compared
    }
}

#[test]
fn every_backend_agrees_with_the_reference_over_random_games() {
    let games = reference_games();
    let names = registry::resolve("all").expect("all resolves");
    assert!(names.len() >= 5);
    for name in names {
        let compared = registry::visit(name, Replay { games: &games }).expect("available");
        assert!(compared >= POSITIONS, "{name}: {compared}");
        eprintln!("{name}: {compared} positions agree with the reference");
    }
}
