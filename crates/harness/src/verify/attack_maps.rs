//! The attack-map part of `kiki check`: whole-side attack maps and per-square counts
//! (`Position::side_attacks`, `Position::side_attacks_through`) by every method this build and
//! CPU can run, against naive counts built from the reference's per-piece attacks, over
//! seeded random games.
//!
//! The games are played once by the reference (the same for every backend); each backend
//! replays them through make/unmake, so its incrementally kept occupancy is what the maps read.

use kiki_core::backend::Backend;
use kiki_core::public_positions;
use kiki_core::reference::{self, Reference};
use kiki_core::simd::SimdLevel;
use kiki_core::types::{draw_bits, draw_board, Color, Square, ALL_SQUARES};
use kiki_engine::attack_map::{Method, SideAttacks};
use kiki_engine::movegen::MoveList;
use kiki_engine::position::{Move, PieceKind, Position, START_SFEN};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::fmt;

/// Positions the check walks (a few thousand: each is compared at every level, both colours,
/// with and without the enemy king, in well under a second per backend).
pub const POSITIONS: usize = 4_000;

/// The longest game; a game also ends at a position without legal moves.
pub const MAX_PLIES: usize = 150;

/// The positions the games start from, in turn.
pub const STARTS: [&str; 4] = [
    START_SFEN,
    public_positions::SECOND,
    public_positions::THIRD,
    public_positions::MIDDLE_GAME,
];

/// One seeded random game: where it starts and the moves played.
#[derive(Clone, Debug)]
pub struct Game {
    pub start: &'static str,
    pub moves: Vec<Move>,
}

impl Game {
    /// The positions the game visits: the start and one after each move.
    pub fn positions(&self) -> usize {
        self.moves.len() + 1
    }
}

/// Random games played by the reference from [`STARTS`] in turn until they visit `positions`
/// positions; a checking move half the time when there is one (more checks, pins and
/// evasions, where seeing through the king matters).
pub fn random_games(positions: usize, seed: u64) -> Vec<Game> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0xA77A_C4ED_3A95);
    let mut games = Vec::new();
    let mut visited = 0;
    while visited < positions {
        let start = STARTS[games.len() % STARTS.len()];
        let mut pos = Position::from_sfen(Reference, start).expect("the starts are valid SFEN");
        let mut moves = Vec::new();
        visited += 1;
        while moves.len() < MAX_PLIES && visited < positions {
            let mut legal = MoveList::new();
            pos.legal_moves(&mut legal);
            if legal.as_slice().is_empty() {
                break;
            }
            let mut checks = MoveList::new();
            pos.check_moves(&mut checks);
            let pick =
                |list: &[Move], rng: &mut Xoshiro256PlusPlus| list[rng.random_range(0..list.len())];
            let mv = if !checks.as_slice().is_empty() && rng.random_bool(0.5) {
                pick(checks.as_slice(), &mut rng)
            } else {
                pick(legal.as_slice(), &mut rng)
            };
            pos.do_move(mv);
            moves.push(mv);
            visited += 1;
        }
        games.push(Game { start, moves });
    }
    games
}

/// Per-square attack counts of `color` in `pos` under `occupancy` (canonical), by walking every
/// piece's naive reference attacks square by square.
pub fn naive_counts<B: Backend>(pos: &Position<B>, color: Color, occupancy: u128) -> [u8; 81] {
    use reference as r;
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
            // Gold and the promoted minor pieces.
            _ => r::gold(color, sq),
        };
        for target in Square::all() {
            counts[target.index()] += u8::from(attacks & target.bit() != 0);
        }
    }
    counts
}

/// The squares with a count above zero.
fn union_of(counts: &[u8; 81]) -> u128 {
    Square::all()
        .filter(|sq| counts[sq.index()] > 0)
        .fold(0, |acc, sq| acc | sq.bit())
}

/// One attack map that disagrees with the naive counts, with everything needed to reproduce it.
#[derive(Clone, Debug)]
pub struct AttackMapMismatch {
    pub backend: &'static str,
    pub method: Method,
    pub color: Color,
    /// The square seen through (the enemy king), for `side_attacks_through`.
    pub through: Option<Square>,
    pub start: &'static str,
    pub ply: usize,
    /// The position drawn, with its SFEN.
    pub board: String,
    pub expected: [u8; 81],
    pub got: SideAttacks,
}

/// A count as one character: `.` for none, then 1–9, then a, b, … for 10 and up.
fn count_char(count: u8) -> char {
    match count {
        0 => '.',
        n => char::from_digit(u32::from(n), 36).unwrap_or('?'),
    }
}

impl fmt::Display for AttackMapMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let through = match self.through {
            Some(sq) => format!(", through the enemy king on {sq}"),
            None => String::new(),
        };
        writeln!(
            f,
            "MISMATCH backend={} attack map of {} by {}{through} at ply {} of the game from {}",
            self.backend,
            self.color.name(),
            self.method.name(),
            self.ply,
            self.start
        )?;
        writeln!(f, "position (upper case black, lower case white):")?;
        writeln!(f, "{}", self.board)?;
        let expected_union = union_of(&self.expected);
        if self.got.union != expected_union {
            writeln!(f, "union expected (naive reference):")?;
            f.write_str(&draw_bits(expected_union))?;
            writeln!(f, "union got ({}, {}):", self.backend, self.method.name())?;
            f.write_str(&draw_bits(self.got.union))?;
        }
        let got = self.got.counts();
        writeln!(f, "counts expected (naive reference; . = 0, a = 10):")?;
        f.write_str(&draw_board(|sq| count_char(self.expected[sq.index()])))?;
        writeln!(f, "counts got ({}, {}):", self.backend, self.method.name())?;
        f.write_str(&draw_board(|sq| count_char(got[sq.index()])))
    }
}

/// What a passing attack-map check covered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttackMapReport {
    pub games: usize,
    pub positions: usize,
    /// Attack maps compared (union and every count each).
    pub maps: u64,
    pub methods: Vec<Method>,
}

impl AttackMapReport {
    /// The SIMD levels the set-wise maps ran at.
    pub fn levels(&self) -> Vec<SimdLevel> {
        self.methods
            .iter()
            .filter_map(|method| match method {
                Method::SetWise(level) => Some(*level),
                Method::PerPiece => None,
            })
            .collect()
    }
}

impl fmt::Display for AttackMapReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let methods: Vec<String> = self.methods.iter().map(|m| m.name()).collect();
        let levels: Vec<&str> = self.levels().into_iter().map(SimdLevel::name).collect();
        write!(
            f,
            "{} attack maps (union and counts, both colours, also through the enemy king) at {} \
             positions of {} seeded random games, by {}; SIMD levels covered: {}",
            self.maps,
            self.positions,
            self.games,
            methods.join(", "),
            if levels.is_empty() {
                "none".to_string()
            } else {
                levels.join(", ")
            }
        )
    }
}

/// Replays `games` on `backend` and compares, at every position, both colours' attack maps by
/// every method in `methods`, under the occupancy and through the enemy king, with the naive
/// counts; the first disagreement is returned.
pub fn check_attack_maps<B: Backend>(
    backend: &B,
    games: &[Game],
    methods: &[Method],
) -> Result<AttackMapReport, Box<AttackMapMismatch>> {
    let mut positions = 0;
    let mut maps = 0u64;
    for game in games {
        let mut pos = Position::from_sfen(*backend, game.start).expect("the starts are valid SFEN");
        for ply in 0..game.positions() {
            if ply > 0 {
                pos.do_move(game.moves[ply - 1]);
            }
            let occupied = kiki_core::backend::Bitboard::to_canonical(pos.occupied());
            for color in Color::BOTH {
                let king = pos.king_square(color.flip());
                let plain = naive_counts(&pos, color, occupied);
                let seen_through =
                    king.map(|king| (king, naive_counts(&pos, color, occupied & !king.bit())));
                for &method in methods {
                    let mut compare =
                        |got: SideAttacks, expected: &[u8; 81], through: Option<Square>| {
                            maps += 1;
                            let agrees = got.union == union_of(expected)
                                && got.union & !ALL_SQUARES == 0
                                && got.counts() == *expected
                                && got.planes.iter().all(|plane| plane & !ALL_SQUARES == 0);
                            if agrees {
                                Ok(())
                            } else {
                                Err(Box::new(AttackMapMismatch {
                                    backend: B::info().name,
                                    method,
                                    color,
                                    through,
                                    start: game.start,
                                    ply,
                                    board: pos.to_string(),
                                    expected: *expected,
                                    got,
                                }))
                            }
                        };
                    compare(pos.side_attacks(color, method), &plain, None)?;
                    if let Some((king, counts)) = &seen_through {
                        compare(
                            pos.side_attacks_through(color, *king, method),
                            counts,
                            Some(*king),
                        )?;
                    }
                }
            }
            positions += 1;
        }
    }
    Ok(AttackMapReport {
        games: games.len(),
        positions,
        maps,
        methods: methods.to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_games_visit_the_asked_positions_from_every_start() {
        let games = random_games(700, 1);
        assert_eq!(games.iter().map(Game::positions).sum::<usize>(), 700);
        for (index, game) in games.iter().enumerate() {
            assert_eq!(game.start, STARTS[index % STARTS.len()]);
        }
        assert!(games.len() >= STARTS.len(), "{}", games.len());
        // Seeded: the same games again.
        let again = random_games(700, 1);
        assert!(games.iter().zip(&again).all(|(a, b)| a.moves == b.moves));
    }

    #[test]
    fn the_reference_passes_at_every_level_and_the_line_names_them() {
        let games = random_games(300, 2);
        let methods = Method::available();
        let report = check_attack_maps(&Reference, &games, &methods).unwrap();
        assert_eq!(report.positions, 300);
        // Two colours, two maps each (the kings are always on the board here), every method.
        assert_eq!(report.maps, 300 * 2 * 2 * methods.len() as u64);
        assert_eq!(report.levels(), SimdLevel::available());
        let line = report.to_string();
        for level in SimdLevel::available() {
            assert!(line.contains(level.name()), "{line}");
        }
    }

    #[test]
    fn a_wrong_count_is_a_mismatch_that_draws_the_board() {
        let pos = Position::startpos(Reference);
        let occupied = kiki_core::backend::Bitboard::to_canonical(pos.occupied());
        let mut expected = naive_counts(&pos, Color::Black, occupied);
        let got = pos.side_attacks(Color::Black, Method::PerPiece);
        assert_eq!(got.counts(), expected);
        expected[40] += 11;
        let text = AttackMapMismatch {
            backend: "reference",
            method: Method::SetWise(SimdLevel::Portable),
            color: Color::Black,
            through: Some(Square::parse("5a").unwrap()),
            start: START_SFEN,
            ply: 3,
            board: pos.to_string(),
            expected,
            got,
        }
        .to_string();
        assert!(
            text.starts_with(
                "MISMATCH backend=reference attack map of black by set-wise/portable, through \
                 the enemy king on 5a at ply 3"
            ),
            "{text}"
        );
        // Square 40 (5e) now expects 11: drawn as 'b', and the union differs there.
        assert!(text.contains("union expected"), "{text}");
        let start = text.find("counts expected").unwrap();
        let end = text.find("counts got").unwrap();
        assert!(text[start..end].contains(" . b . "), "{text}");
        assert!(text.contains("counts got"), "{text}");
        assert!(text.contains(START_SFEN), "{text}");
    }
}
