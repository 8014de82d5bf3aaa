//! The move generator's rules (打ち歩詰め, 二歩, compulsory promotion, drops on the last ranks,
//! pins, checks and evasions) and quiescence's capture generator, each on the reference and then
//! on every registered backend, which must generate exactly the same moves. (Moved here from the
//! engine's unit tests, so that the move generator is built for every backend in one test binary.)

use kiki_core::backend::{Backend, Bitboard};
use kiki_core::reference::Reference;
use kiki_engine::movegen::MoveList;
use kiki_engine::position::Position;

fn pos(sfen: &str) -> Position<Reference> {
    Position::from_sfen(Reference, sfen).unwrap_or_else(|e| panic!("{e}"))
}

/// The legal moves on the reference, after checking that every available backend
/// generates exactly the same list (and counts as many): each rule test below runs on
/// every backend.
fn legal(sfen: &str) -> Vec<String> {
    let mut list = MoveList::new();
    pos(sfen).legal_moves(&mut list);
    let expected = list.usi_sorted();
    struct SameOnBackend<'a> {
        sfen: &'a str,
        expected: &'a [String],
    }
    impl kiki_variants::registry::BackendVisitor for SameOnBackend<'_> {
        type Output = ();
        fn visit<B: Backend>(self, backend: B) {
            let position = Position::from_sfen(backend, self.sfen).expect("valid SFEN");
            let mut list = MoveList::new();
            position.legal_moves(&mut list);
            assert_eq!(position.legal_move_count(), list.len() as u64);
            assert_eq!(
                list.usi_sorted(),
                self.expected,
                "{} on {}",
                B::info().name,
                self.sfen
            );
        }
    }
    for name in crate::tested_names() {
        let visitor = SameOnBackend {
            sfen,
            expected: &expected,
        };
        crate::visit_tested(name, visitor).expect("available backend");
    }
    expected
}

/// Quiescence's generator against the full one filtered, on every backend, over random
/// games (checks, pins and promotions included): the same set of moves.
#[test]
fn legal_captures_are_the_legal_moves_that_capture_or_every_evasion() {
    use rand::{RngExt, SeedableRng};
    struct Walk;
    impl kiki_variants::registry::BackendVisitor for Walk {
        type Output = usize;
        fn visit<B: Backend>(self, backend: B) -> usize {
            let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(29);
            let mut checked = 0;
            for _ in 0..40 {
                let mut position = Position::startpos(backend);
                for _ in 0..160 {
                    let (mut all, mut captures) = (MoveList::new(), MoveList::new());
                    position.legal_moves(&mut all);
                    position.legal_captures(&mut captures);
                    if !position.in_check() {
                        all.retain(|mv| !mv.is_drop() && position.piece_at(mv.to()).is_some());
                    }
                    assert_eq!(
                        captures.usi_sorted(),
                        all.usi_sorted(),
                        "{} on {}",
                        B::info().name,
                        position.to_sfen()
                    );
                    checked += 1;
                    let mut moves = MoveList::new();
                    position.legal_moves(&mut moves);
                    if moves.is_empty() {
                        break;
                    }
                    // Captures half the time, so that games reach open, tactical boards.
                    let pick = if !captures.is_empty() && rng.random_bool(0.5) {
                        captures[rng.random_range(0..captures.len())]
                    } else {
                        moves[rng.random_range(0..moves.len())]
                    };
                    position.do_move(pick);
                }
            }
            checked
        }
    }
    for name in crate::tested_names() {
        let checked = crate::visit_tested(name, Walk).expect("available backend");
        assert!(checked > 2_000, "{name}: {checked} positions");
    }
}

fn has(moves: &[String], mv: &str) -> bool {
    moves.iter().any(|m| m == mv)
}

#[test]
fn pawn_drop_mate_is_illegal_but_other_mates_and_checks_are_not() {
    // King 1a boxed in: 2a by the knight, 2b and 1b by the gold on 2c.
    let mate = "8k/9/6NG1/9/9/9/9/9/4K4 b GP 1";
    let moves = legal(mate);
    assert!(!has(&moves, "P*1b"), "uchifuzume must be illegal");
    assert!(has(&moves, "P*5e"));
    assert!(has(&moves, "G*1b"), "a gold drop that mates is legal");
    // Without the knight the king escapes to 2a: the checking drop is legal.
    assert!(has(&legal("8k/9/7G1/9/9/9/9/9/4K4 b P 1"), "P*1b"));
    // A defender can take the pawn: legal...
    assert!(has(&legal("7gk/9/6NG1/9/9/9/9/9/4K4 b P 1"), "P*1b"));
    // ...unless that defender is pinned to its king.
    assert!(!has(&legal("R6gk/9/6NG1/9/9/9/9/9/4K4 b P 1"), "P*1b"));
    // The king may take the pawn when nothing guards it.
    assert!(has(&legal("8k/9/6N2/9/9/9/9/9/4K4 b P 1"), "P*1b"));
    // Same rule for white (mirror image).
    let white = "4k4/9/9/9/9/9/1gn6/9/K8 w p 1";
    assert!(!has(&legal(white), "P*9h"));
    // A pawn that mates by moving (not dropping) is fine.
    let push_mate = "8k/9/6NGP/9/9/9/9/9/4K4 b - 1";
    assert!(has(&legal(push_mate), "1c1b"));
    assert!(has(&legal(push_mate), "1c1b+"));
}

#[test]
fn no_second_unpromoted_pawn_on_a_file() {
    let moves = legal("4k4/9/9/9/9/9/4P4/9/4K4 b P 1");
    let pawn_drops: Vec<_> = moves.iter().filter(|m| m.starts_with("P*")).collect();
    // 8 files (not 5) × ranks b-i, none occupied there.
    assert_eq!(pawn_drops.len(), 64);
    assert!(pawn_drops.iter().all(|m| !m.starts_with("P*5")));
    // A promoted pawn does not count.
    let moves = legal("4k4/9/9/9/9/9/4+P4/9/4K4 b P 1");
    assert!(has(&moves, "P*5e"));
    // Rejected as a position, too.
    assert!(Position::from_sfen(Reference, "4k4/9/4P4/9/9/9/4P4/9/4K4 b - 1").is_err());
}

#[test]
fn compulsory_and_optional_promotion() {
    let moves = legal("4k4/6P2/7L1/5N3/3N5/9/9/9/4K4 b - 1");
    // Pawn to the last rank: promotion only.
    assert!(has(&moves, "3b3a+") && !has(&moves, "3b3a"));
    // Lance: 2b either way, 2a promotion only.
    assert!(has(&moves, "2c2b+") && has(&moves, "2c2b"));
    assert!(has(&moves, "2c2a+") && !has(&moves, "2c2a"));
    // Knight from 4d to rank b: promotion only; from 6e to rank c: either.
    assert!(!has(&moves, "4d3b+"), "own pawn on 3b");
    assert!(has(&moves, "4d5b+") && !has(&moves, "4d5b"));
    assert!(has(&moves, "6e5c+") && has(&moves, "6e5c"));
    assert!(has(&moves, "6e7c+") && has(&moves, "6e7c"));
    // Moving out of the zone may promote (silver 3b to 4c, then 4c to 4d).
    let moves = legal("4k4/9/5S3/9/9/9/9/9/4K4 b - 1");
    assert!(has(&moves, "4c3d+") && has(&moves, "4c3d"));
    // Outside the zone, no promotion.
    assert!(!has(&legal(kiki_engine::position::START_SFEN), "7g7f+"));
    // White promotes in ranks g-i.
    let moves = legal("4k4/9/9/9/9/9/9/2p6/4K4 w - 1");
    assert!(has(&moves, "7h7i+") && !has(&moves, "7h7i"));
}

#[test]
fn drops_respect_the_last_ranks() {
    let moves = legal("9/9/9/9/4k4/9/9/9/4K4 b LNPS 1");
    for rank in ['a'] {
        for file in 1..=9 {
            assert!(!has(&moves, &format!("P*{file}{rank}")));
            assert!(!has(&moves, &format!("L*{file}{rank}")));
            assert!(has(&moves, &format!("S*{file}{rank}")));
        }
    }
    for rank in ['a', 'b'] {
        for file in 1..=9 {
            assert!(!has(&moves, &format!("N*{file}{rank}")));
        }
    }
    assert!(has(&moves, "L*1b") && has(&moves, "N*1c") && has(&moves, "P*1b"));
    // White: the mirror ranks.
    let moves = legal("9/9/9/9/4k4/9/9/9/4K4 w lnp 1");
    assert!(!has(&moves, "p*1i") && !has(&moves, "P*1i"));
    assert!(!moves.iter().any(|m| m.ends_with('i') && m.contains('*')));
    assert!(!moves
        .iter()
        .any(|m| m.starts_with("N*") && m.ends_with('h')));
    assert!(has(&moves, "L*1h") && has(&moves, "N*1g"));
}

#[test]
fn pinned_pieces_stay_on_their_line() {
    // Black gold 5f pinned on the file by the rook on 5a; bishop 3g pinned by the horse 1e.
    let moves = legal("4r4/k8/9/9/8+b/4G4/6B2/9/4K4 b - 1");
    let gold: Vec<_> = moves.iter().filter(|m| m.starts_with("5f")).collect();
    assert_eq!(
        gold,
        ["5f5e", "5f5g"],
        "the pinned gold only moves along the file"
    );
    let bishop: Vec<_> = moves.iter().filter(|m| m.starts_with("3g")).collect();
    assert_eq!(
        bishop,
        ["3g1e", "3g2f", "3g4h"],
        "the pinned bishop stays on the diagonal"
    );
    // A lance pins too (white lance 5a... black gold 5h, black king 5i).
    let moves = legal("4l4/9/9/9/9/9/9/4G4/4K4 b - 1");
    assert!(moves
        .iter()
        .filter(|m| m.starts_with("5h"))
        .all(|m| m.starts_with("5h5")));
}

#[test]
fn double_check_allows_only_king_moves() {
    // Rook on 5a and bishop on 1e both check the king on 5i... via discovered check setup.
    let sfen = "4r4/9/9/9/8b/9/9/9/4K4 b G 1";
    let p = pos(sfen);
    assert_eq!(p.checkers().count(), 2);
    let moves = legal(sfen);
    assert!(moves.iter().all(|m| m.starts_with("5i")), "{moves:?}");
    // The king may not step back along the rook's file or the bishop's diagonal.
    assert!(!has(&moves, "5i5h") && !has(&moves, "5i4h"));
    assert!(has(&moves, "5i4i") && has(&moves, "5i6i") && has(&moves, "5i6h"));
}

#[test]
fn single_check_evasions() {
    // Rook check on the file: block (move or drop), capture, or step aside.
    let sfen = "4r4/9/9/9/9/9/9/2G6/4K4 b S 1";
    let moves = legal(sfen);
    assert!(has(&moves, "S*5e") && !has(&moves, "7h6h"));
    assert!(!has(&moves, "5i5h"), "not along the checking ray");
    assert!(has(&moves, "5i4h") && has(&moves, "5i6h"));
    assert!(
        moves
            .iter()
            .all(|m| m.starts_with("5i") || m.starts_with("S*5")),
        "{moves:?}"
    );
    // Adjacent checks cannot be blocked by a drop.
    let moves = legal("9/9/9/9/9/9/9/4g4/4K4 b S 1");
    assert!(moves.iter().all(|m| m.starts_with("5i")));
    assert!(has(&moves, "5i5h"), "the unprotected gold can be taken");
}

#[test]
fn discovered_check_and_exposure() {
    // Moving the black silver off the file uncovers the rook on 5i's check on 5a.
    let sfen = "4k4/9/9/9/4S4/9/9/9/K3R4 b - 1";
    let p = pos(sfen);
    let info = p.check_info().unwrap();
    let mut list = MoveList::new();
    p.legal_moves(&mut list);
    for &mv in list.iter() {
        let mut after = p.clone();
        after.do_move(mv);
        assert_eq!(p.gives_check(mv, &info), after.in_check(), "{mv}");
    }
    let mut checks = MoveList::new();
    p.check_moves(&mut checks);
    let checks = checks.usi_sorted();
    assert!(has(&checks, "5e4d") && has(&checks, "5e6d") && !has(&checks, "5e5d"));
    // The same silver in front of its own king, attacked by a white rook: cannot leave.
    let moves = legal("4r4/9/9/9/4S4/9/9/9/4K4 b - 1");
    assert!(moves
        .iter()
        .filter(|m| m.starts_with("5e"))
        .all(|m| m.starts_with("5e5")));
}

#[test]
fn no_king_and_usi_parsing() {
    let p = pos("9/9/9/9/4k4/9/9/9/9 b P 1");
    let mut list = MoveList::new();
    p.legal_moves(&mut list);
    // 80 empty squares less the 9 of rank a; P*5f checks but the king escapes.
    assert_eq!(list.len(), 71);
    let start = Position::startpos(Reference);
    assert!(start.parse_usi_move("7g7f").is_ok());
    assert!(start.parse_usi_move("7g7e").is_err());
    assert!(start.parse_usi_move("P*5e").is_err());
    assert!(start.parse_usi_move("xyz").is_err());
    let third = pos(kiki_core::public_positions::THIRD);
    for text in ["P*5e", "9a9b+", "9a9b", "5c1g+"] {
        let mv = third.parse_usi_move(text).unwrap();
        assert_eq!(mv.to_string(), text);
    }
}
