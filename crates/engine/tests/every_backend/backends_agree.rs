//! Every backend plays the same seeded random games as the reference, in lockstep through
//! make/unmake, and must produce the same legal moves, checking moves, check state, key and
//! whole-side attack maps (union and counts, by every method at every SIMD level this CPU has,
//! also seen through the enemy king) at every position (100,000+ positions; run with
//! `--release`).

use kiki_core::backend::{Backend, Bitboard};
use kiki_core::public_positions;
use kiki_core::reference::Reference;
use kiki_core::types::ALL_SQUARES;
use kiki_core::types::{Color, Square};
use kiki_engine::attack_map::{Method, SideAttacks};
use kiki_engine::movegen::MoveList;
use kiki_engine::position::{KingSafety, Move, Position, START_SFEN};
use kiki_variants::registry::BackendVisitor;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const POSITIONS: usize = 100_000;
const COLORS: [Color; 2] = [Color::Black, Color::White];
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
    /// Per colour: the naive attack counts, under the occupancy and with the enemy king (the
    /// other colour's) taken off the board.
    counts: [[u8; 81]; 2],
    counts_through_king: [[u8; 81]; 2],
}

/// Attack counts by walking every piece's naive reference attacks, square by square.
fn naive_counts(pos: &Position<Reference>, color: Color, occupancy: u128) -> [u8; 81] {
    use kiki_core::reference as r;
    use kiki_engine::position::PieceKind;
    let mut counts = [0u8; 81];
    for sq in Square::all() {
        let Some(piece) = pos.piece_at(sq) else {
            continue;
        };
        if piece.color != color {
            continue;
        }
        let attacks = match piece.kind {
            PieceKind::Pawn => r::pawn(color, sq),
            PieceKind::Lance => r::lance(color, occupancy, sq),
            PieceKind::Knight => r::knight(color, sq),
            PieceKind::Silver => r::silver(color, sq),
            PieceKind::Bishop => r::bishop(occupancy, sq),
            PieceKind::Rook => r::rook(occupancy, sq),
            PieceKind::King => r::king(sq),
            PieceKind::Horse => r::horse(occupancy, sq),
            PieceKind::Dragon => r::dragon(occupancy, sq),
            _ => r::gold(color, sq),
        };
        for target in Square::all() {
            counts[target.index()] += (attacks & target.bit() != 0) as u8;
        }
    }
    counts
}

fn union_of(counts: &[u8; 81]) -> u128 {
    Square::all()
        .filter(|sq| counts[sq.index()] > 0)
        .fold(0, |acc, sq| acc | sq.bit())
}

/// `attacks` says exactly what `counts` says.
fn assert_same(attacks: &SideAttacks, counts: &[u8; 81], what: &dyn Fn() -> String) {
    assert_eq!(attacks.union, union_of(counts), "union, {}", what());
    assert_eq!(&attacks.counts(), counts, "counts, {}", what());
    assert_eq!(
        attacks.union & !ALL_SQUARES,
        0,
        "bits off the board, {}",
        what()
    );
}

struct Game {
    start: &'static str,
    moves: Vec<Move>,
    seen: Vec<Seen>,
}

/// The moves, check state and key at `pos`: what every backend must reproduce.
fn moves_and_key<B: Backend>(pos: &Position<B>) -> (Vec<Move>, Vec<Move>, bool, u64) {
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    let mut legal = list.to_vec();
    legal.sort();
    let mut checks = MoveList::new();
    pos.check_moves(&mut checks);
    let mut checks = checks.to_vec();
    checks.sort();
    (legal, checks, pos.in_check(), pos.key())
}

/// What the reference sees, naive attack counts included (computed once, not per backend).
fn observe(pos: &Position<Reference>) -> Seen {
    let (legal, checks, in_check, key) = moves_and_key(pos);
    let occupied = pos.occupied().to_canonical();
    let through = |color: Color| match pos.king_square(color.flip()) {
        Some(king) => occupied & !king.bit(),
        None => occupied,
    };
    Seen {
        legal,
        checks,
        in_check,
        key,
        counts: COLORS.map(|c| naive_counts(pos, c, occupied)),
        counts_through_king: COLORS.map(|c| naive_counts(pos, c, through(c))),
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
        let methods = Method::available();
        for game in self.games {
            let mut pos = Position::from_sfen(backend, game.start).expect("valid SFEN");
            for (ply, seen) in game.seen.iter().enumerate() {
                let (legal, checks, in_check, key) = moves_and_key(&pos);
                let context =
                    || format!("{name} at ply {ply} of {}: {}", game.start, pos.to_sfen());
                assert_eq!(legal, seen.legal, "legal moves, {}", context());
                assert_eq!(checks, seen.checks, "checking moves, {}", context());
                assert_eq!(in_check, seen.in_check, "check state, {}", context());
                assert_eq!(key, seen.key, "key, {}", context());
                for &method in &methods {
                    let mut with_map = pos.clone();
                    with_map.set_king_safety(KingSafety::AttackMap(method));
                    let mut list = MoveList::new();
                    with_map.legal_moves(&mut list);
                    let mut legal = list.to_vec();
                    legal.sort();
                    assert_eq!(
                        legal,
                        seen.legal,
                        "legal moves by {}, {}",
                        method.name(),
                        context()
                    );
                    assert_eq!(with_map.legal_move_count(), legal.len() as u64);
                }
                for color in COLORS {
                    for &method in &methods {
                        let what = || format!("{} for {color:?}, {}", method.name(), context());
                        let attacks = pos.side_attacks(color, method);
                        assert_same(&attacks, &seen.counts[color.index()], &what);
                        if let Some(king) = pos.king_square(color.flip()) {
                            let attacks = pos.side_attacks_through(color, king, method);
                            let what = || format!("{} through the king", what());
                            assert_same(&attacks, &seen.counts_through_king[color.index()], &what);
                        }
                    }
                }
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
    let names = crate::tested_names();
    assert!(names.len() >= 5);
    for name in names {
        let compared = crate::visit_tested(name, Replay { games: &games }).expect("available");
        assert!(compared >= POSITIONS, "{name}: {compared}");
        eprintln!("{name}: {compared} positions agree with the reference");
    }
    let methods: Vec<String> = Method::available().iter().map(|m| m.name()).collect();
    eprintln!("attack maps checked by: {}", methods.join(", "));
    if !cfg!(feature = "portable") {
        // Every SIMD level this CPU has was among them (the portable build has only the twin).
        for level in kiki_core::simd::SimdLevel::available() {
            assert!(Method::available().contains(&Method::SetWise(level)));
        }
    }
}
