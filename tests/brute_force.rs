//! The legal generator against a brute-force filter, over seeded random games (run with
//! `--release`): at every position, pseudo-legal moves (written here independently, square by
//! square) are made and kept when the mover's king is not attacked, a pawn drop is dropped when
//! it mates, and the result must equal `legal_moves` as a set. The checks-only generator is
//! compared with "legal and the opponent is in check afterwards", and the incremental Zobrist
//! key with one computed from scratch.

use kiki_core::backend::Bitboard;
use kiki_core::reference::Reference;
use kiki_core::types::{Color, Square};
use kiki_engine::movegen::{MoveList, PseudoMoveList};
use kiki_engine::position::{Move, Piece, PieceKind, Position, START_SFEN};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const POSITIONS: usize = 300_000;

/// Rank counted from `color`'s far side (1 = last rank).
fn far_rank(color: Color, sq: Square) -> u8 {
    match color {
        Color::Black => sq.rank(),
        Color::White => 10 - sq.rank(),
    }
}

/// Every move obeying piece movement, promotion rules, last-rank drop rules and 二歩, but
/// ignoring one's own king and 打ち歩詰め.
fn pseudo_legal(pos: &Position<Reference>, list: &mut PseudoMoveList) {
    list.clear();
    let us = pos.side_to_move();
    for from in Square::all() {
        let Some(piece) = pos.piece_at(from) else {
            continue;
        };
        if piece.color != us {
            continue;
        }
        let targets = pos
            .attacks_from(piece, from, pos.occupancy())
            .and_not(pos.color_bb(us));
        for to in targets.squares() {
            let promotable =
                piece.kind.can_promote() && (far_rank(us, from) <= 3 || far_rank(us, to) <= 3);
            let forced = match piece.kind {
                PieceKind::Pawn | PieceKind::Lance => far_rank(us, to) == 1,
                PieceKind::Knight => far_rank(us, to) <= 2,
                _ => false,
            };
            if promotable {
                list.push(Move::board(from, to, true));
            }
            if !forced {
                list.push(Move::board(from, to, false));
            }
        }
    }
    for to in Square::all() {
        if pos.piece_at(to).is_some() {
            continue;
        }
        for kind in PieceKind::HAND {
            if pos.hand_count(us, kind) == 0 {
                continue;
            }
            let ok = match kind {
                PieceKind::Pawn => {
                    far_rank(us, to) > 1
                        && (1..=9).all(|rank| {
                            let sq = Square::from_file_rank(to.file(), rank).unwrap();
                            pos.piece_at(sq) != Some(Piece::new(us, PieceKind::Pawn))
                        })
                }
                PieceKind::Lance => far_rank(us, to) > 1,
                PieceKind::Knight => far_rank(us, to) > 2,
                _ => true,
            };
            if ok {
                list.push(Move::drop(kind, to));
            }
        }
    }
}

/// Whether the side that just moved left its own king attacked.
fn mover_king_attacked(pos: &Position<Reference>) -> bool {
    let mover = pos.side_to_move().flip();
    pos.king_square(mover)
        .is_some_and(|k| pos.attackers_to(k, pos.side_to_move()).is_nonempty())
}

/// Whether the side to move has any move that does not leave its king attacked.
fn has_escape(pos: &mut Position<Reference>) -> bool {
    let mut list = PseudoMoveList::new();
    pseudo_legal(pos, &mut list);
    list.iter().any(|&mv| {
        let undo = pos.do_move(mv);
        let ok = !mover_king_attacked(pos);
        pos.undo_move(mv, undo);
        ok
    })
}

fn brute_force_legal(pos: &mut Position<Reference>) -> (Vec<Move>, Vec<Move>) {
    let mut pseudo = PseudoMoveList::new();
    pseudo_legal(pos, &mut pseudo);
    let mut legal = Vec::new();
    let mut checks = Vec::new();
    for &mv in pseudo.iter() {
        let undo = pos.do_move(mv);
        let mut ok = !mover_king_attacked(pos);
        let gives_check = pos.in_check();
        if ok && gives_check && mv.drop_kind() == Some(PieceKind::Pawn) && !has_escape(pos) {
            ok = false; // 打ち歩詰め
        }
        pos.undo_move(mv, undo);
        if ok {
            legal.push(mv);
            if gives_check {
                checks.push(mv);
            }
        }
    }
    legal.sort();
    checks.sort();
    (legal, checks)
}

#[test]
fn legal_moves_match_brute_force_over_random_games() {
    let starts = [
        START_SFEN,
        kiki_core::public_positions::SECOND,
        kiki_core::public_positions::THIRD,
        "4k4/9/9/9/9/9/9/9/4K4 b RBGSNLPrbgsnlp 1",
        kiki_core::public_positions::MIDDLE_GAME,
    ];
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x6B69_6B69_6D6F_7665);
    let mut positions = 0usize;
    let mut moves_compared = 0usize;
    let mut checks_seen = 0usize;
    let mut pawn_drop_mates = 0usize;
    let mut game = 0usize;
    while positions < POSITIONS {
        let mut pos = Position::from_sfen(Reference, starts[game % starts.len()])
            .unwrap_or_else(|e| panic!("{e}"));
        game += 1;
        for _ply in 0..256 {
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            let mut ours: Vec<Move> = list.to_vec();
            ours.sort();
            let (brute, brute_checks) = brute_force_legal(&mut pos);
            if ours != brute {
                let missing: Vec<_> = brute.iter().filter(|m| !ours.contains(m)).collect();
                let extra: Vec<_> = ours.iter().filter(|m| !brute.contains(m)).collect();
                panic!("{}\nmissing {missing:?}\nextra {extra:?}", pos.to_sfen());
            }
            let mut checks = MoveList::new();
            pos.check_moves(&mut checks);
            let mut checks: Vec<Move> = checks.to_vec();
            checks.sort();
            assert_eq!(checks, brute_checks, "checks in {}", pos.to_sfen());
            assert_eq!(
                pos.key(),
                pos.key_from_scratch(),
                "key in {}",
                pos.to_sfen()
            );
            assert_eq!(pos.in_check(), pos.checkers().is_nonempty());
            if positions.is_multiple_of(997) {
                let again = Position::from_sfen(Reference, &pos.to_sfen()).unwrap();
                assert_eq!(again.to_sfen(), pos.to_sfen());
                assert_eq!(again.key(), pos.key());
            }
            positions += 1;
            moves_compared += ours.len();
            if pos.in_check() {
                checks_seen += 1;
            }
            // Pawn drops that the generator removed as mates.
            let mut pseudo = PseudoMoveList::new();
            pseudo_legal(&pos, &mut pseudo);
            pawn_drop_mates += pseudo
                .iter()
                .filter(|m| m.drop_kind() == Some(PieceKind::Pawn) && !list.contains(**m))
                .filter(|&&m| {
                    let undo = pos.do_move(m);
                    let self_safe = !mover_king_attacked(&pos);
                    pos.undo_move(m, undo);
                    self_safe
                })
                .count();
            if ours.is_empty() {
                break;
            }
            // Prefer checks half the time: more evasions, pins and pawn-drop mates.
            let mv = if !checks.is_empty() && rng.random_bool(0.5) {
                checks[rng.random_range(0..checks.len())]
            } else {
                ours[rng.random_range(0..ours.len())]
            };
            let before = pos.to_sfen();
            let undo = pos.do_move(mv);
            if rng.random_bool(0.01) {
                pos.undo_move(mv, undo);
                assert_eq!(pos.to_sfen(), before);
                pos.do_move(mv);
            }
        }
    }
    eprintln!(
        "{positions} positions in {game} games, {moves_compared} legal moves compared, \
         {checks_seen} in check, {pawn_drop_mates} pawn-drop mates rejected"
    );
    assert!(pawn_drop_mates > 0, "the games should meet some 打ち歩詰め");
}
