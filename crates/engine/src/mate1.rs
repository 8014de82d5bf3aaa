//! Exact mate-in-1 over any backend: a fast path that judges each checking move from attack
//! sets without making it (seed 002's `mate1ply.c`, completed), and the brute-force reference.
//!
//! Bonanza's routine (seed 002) tries contact drops only and leaves distant checks to its
//! mate-in-3. This one is exact: every checking drop and board move (promotions, discovered
//! and double checks, king moves of our own) is judged by asking whether the defender has
//! (a) a king move to a square we do not attack once our move is made — our attacks counted
//! with the moved piece on its new square, its old square vacated and the defending king
//! lifted off the board, so that a slider's ray runs on through the square the king leaves —,
//! (b) for a single checker, a capture of it by a piece other than the king that is not pinned
//! in the position after the move, or (c) for a distant single checker, an interposition by a
//! board move or by a drop obeying the drop rules (last ranks, 二歩). The mating move must be
//! legal for us (our king safe, evasions only when we are in check); a pawn drop that mates is
//! illegal (打ち歩詰め), so pawn drops are never candidates, while a pawn push may mate.
//!
//! The one case not judged from attack sets: when the only defence left is a pawn drop
//! interposition that itself checks our king, that drop is legal unless it would mate us
//! (打ち歩詰め for the defender); the candidate is then settled by making it on a copy and
//! generating the defender's legal moves. Such positions are rare (the tests build one).

use crate::attack_map::{set_wise_union, Method, SidePieces};
use crate::movegen::MoveList;
use crate::position::{at, KingSafety, Move, Piece, PieceKind, Position, Tables};
use kiki_core::backend::{Backend, Bitboard};
use kiki_core::types::{Color, Square};

/// A checkmating move for the side to move, if one exists (any one of them).
///
/// Fast path: candidate checks are generated directly (drops first, then board moves with
/// their promotion options and discovered checks) and judged from attack sets on a local
/// copy of the occupancy; no `do_move` per candidate.
pub fn mate_in_1<B: Backend>(pos: &Position<B>) -> Option<Move> {
    let solver = Solver::new(pos)?;
    let mut found = None;
    solver.search(false, &mut |mv| {
        found = Some(mv);
        true
    });
    found
}

/// Every checkmating move, by the fast path (for tests: each candidate's verdict is then
/// compared with brute force, not only the first one found).
pub fn mating_moves<B: Backend>(pos: &Position<B>) -> Vec<Move> {
    let mut found = Vec::new();
    if let Some(solver) = Solver::new(pos) {
        solver.search(true, &mut |mv| {
            found.push(mv);
            false
        });
    }
    found
}

/// Every legal checkmating move, by making each legal move (the reference for `mating_moves`).
pub fn mating_moves_brute_force<B: Backend>(pos: &Position<B>) -> Vec<Move> {
    let mut work = pos.clone();
    let mut moves = MoveList::new();
    work.legal_moves(&mut moves);
    moves
        .iter()
        .copied()
        .filter(|&mv| mates_by_make(&mut work, mv))
        .collect()
}

/// The reference: every legal move is made; it mates when the opponent is then in check and
/// has no legal move. Pawn-drop mates never appear, the legal generator excludes them.
pub fn mate_in_1_brute_force<B: Backend>(pos: &Position<B>) -> Option<Move> {
    let mut work = pos.clone();
    let mut moves = MoveList::new();
    work.legal_moves(&mut moves);
    moves
        .iter()
        .copied()
        .find(|&mv| mates_by_make(&mut work, mv))
}

/// Whether `mv` is a legal move in `pos` that checkmates (by making it: the reference test).
pub fn is_mating_move<B: Backend>(pos: &Position<B>, mv: Move) -> bool {
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    moves.contains(mv) && mates_by_make(&mut pos.clone(), mv)
}

/// Makes the (legal) move, asks whether the opponent is in check with no legal move, undoes it.
fn mates_by_make<B: Backend>(pos: &mut Position<B>, mv: Move) -> bool {
    let undo = pos.do_move(mv);
    let mated = pos.in_check() && {
        let mut replies = MoveList::new();
        pos.legal_moves(&mut replies);
        replies.is_empty()
    };
    pos.undo_move(mv, undo);
    mated
}

/// How a candidate was judged.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Verdict {
    Mate,
    Escapes,
    /// Only a checking pawn-drop interposition is left: settled by making the move.
    PawnDropBlockChecks,
}

/// Everything about the position before the move that every candidate needs.
struct Solver<'a, B: Backend> {
    pos: &'a Position<B>,
    backend: &'a B,
    tables: &'static Tables<B>,
    us: Color,
    them: Color,
    /// The defending king.
    king: Square,
    king_mask: B::Bitboard,
    ours: B::Bitboard,
    theirs: B::Bitboard,
    occupied: B::Bitboard,
    /// Piece-kind unions used in attack tests (both colours).
    rook_like: B::Bitboard,
    bishop_like: B::Bitboard,
    king_like: B::Bitboard,
    gold_like: B::Bitboard,
    /// `[kind]`: squares from which a piece of ours of that kind checks the defending king.
    check_squares: [B::Bitboard; PieceKind::COUNT],
    /// Our pieces that alone stand between the defending king and one of our sliders.
    discoverers: B::Bitboard,
    /// Our own king, and what limits our moves: our pieces pinned to it, the enemy pieces
    /// checking it, where a non-king piece may go (everywhere when not in check).
    our_king: Option<Square>,
    our_pinned: B::Bitboard,
    our_checkers: B::Bitboard,
    evasion_targets: B::Bitboard,
    /// Our pieces and the occupancy, canonical, for set-wise flight tests (only then).
    our_pieces: Option<SidePieces>,
    occupied_canonical: u128,
}

impl<'a, B: Backend> Solver<'a, B> {
    fn new(pos: &'a Position<B>) -> Option<Solver<'a, B>> {
        let us = pos.side_to_move();
        let them = us.flip();
        let king = pos.king_square(them)?;
        let backend = pos.backend();
        let tables = pos.tables();
        let occ = pos.occupancy();
        let kind = |k: PieceKind| pos.kind_bb(k);
        let ours = pos.color_bb(us);
        let occupied = pos.occupied();
        let rook_like = kind(PieceKind::Rook) | kind(PieceKind::Dragon);
        let bishop_like = kind(PieceKind::Bishop) | kind(PieceKind::Horse);

        let mut check_squares = [B::Bitboard::empty(); PieceKind::COUNT];
        let gold = backend.gold_attacks(them, king);
        let rook = backend.rook_attacks(occ, king);
        let bishop = backend.bishop_attacks(occ, king);
        let near = backend.king_attacks(king);
        check_squares[PieceKind::Pawn.index()] = backend.pawn_attacks(them, king);
        check_squares[PieceKind::Lance.index()] = backend.lance_attacks(them, occ, king);
        check_squares[PieceKind::Knight.index()] = backend.knight_attacks(them, king);
        check_squares[PieceKind::Silver.index()] = backend.silver_attacks(them, king);
        check_squares[PieceKind::Bishop.index()] = bishop;
        check_squares[PieceKind::Rook.index()] = rook;
        for k in [
            PieceKind::Gold,
            PieceKind::ProPawn,
            PieceKind::ProLance,
            PieceKind::ProKnight,
            PieceKind::ProSilver,
        ] {
            check_squares[k.index()] = gold;
        }
        check_squares[PieceKind::Horse.index()] = bishop | near;
        check_squares[PieceKind::Dragon.index()] = rook | near;

        let mut solver = Solver {
            pos,
            backend,
            tables,
            us,
            them,
            king,
            king_mask: B::Bitboard::square(king),
            ours,
            theirs: pos.color_bb(them),
            occupied,
            rook_like,
            bishop_like,
            king_like: kind(PieceKind::King) | kind(PieceKind::Horse) | kind(PieceKind::Dragon),
            gold_like: pos.gold_movers(),
            check_squares,
            discoverers: B::Bitboard::empty(),
            our_king: pos.king_square(us),
            our_pinned: B::Bitboard::empty(),
            our_checkers: B::Bitboard::empty(),
            evasion_targets: tables.all,
            our_pieces: match pos.king_safety() {
                KingSafety::AttackMap(Method::SetWise(_)) => Some(SidePieces::of(pos, us)),
                _ => None,
            },
            // Only the set-wise flight test reads it (a bit loop on some layouts).
            occupied_canonical: match pos.king_safety() {
                KingSafety::AttackMap(Method::SetWise(_)) => occupied.to_canonical(),
                _ => 0,
            },
        };
        solver.discoverers = solver.pinned_to(king, them, ours, occupied) & ours;
        if let Some(our_king) = solver.our_king {
            solver.our_pinned = solver.pinned_to(our_king, us, solver.theirs, occupied) & ours;
            solver.our_checkers = solver.attackers(our_king, them, solver.theirs, pos.occupancy());
            let mut checkers = solver.our_checkers;
            if let Some(checker) = checkers.pop() {
                solver.evasion_targets = if checkers.is_empty() {
                    tables.between(our_king, checker) | B::Bitboard::square(checker)
                } else {
                    B::Bitboard::empty() // double check: only the king may move
                };
            }
        }
        Some(solver)
    }

    /// Pieces of `by` (restricted to `mask`) attacking `sq` under `occ`, by the kinds of the
    /// position before the move (the mask removes moved and captured pieces).
    #[inline(always)]
    fn attackers(
        &self,
        sq: Square,
        by: Color,
        mask: B::Bitboard,
        occ: &B::Occupancy,
    ) -> B::Bitboard {
        let b = self.backend;
        let p = self.pos;
        let opp = by.flip();
        ((b.pawn_attacks(opp, sq) & p.kind_bb(PieceKind::Pawn))
            | (b.knight_attacks(opp, sq) & p.kind_bb(PieceKind::Knight))
            | (b.silver_attacks(opp, sq) & p.kind_bb(PieceKind::Silver))
            | (b.gold_attacks(opp, sq) & self.gold_like)
            | (b.king_attacks(sq) & self.king_like)
            | (b.rook_attacks(occ, sq) & self.rook_like)
            | (b.bishop_attacks(occ, sq) & self.bishop_like)
            | (b.lance_attacks(opp, occ, sq) & p.kind_bb(PieceKind::Lance)))
            & mask
    }

    /// Whether a piece of `by` in `mask` attacks `sq` under `occ` (step kinds first, early exit).
    #[inline(always)]
    fn is_attacked(&self, sq: Square, by: Color, mask: B::Bitboard, occ: &B::Occupancy) -> bool {
        let b = self.backend;
        let p = self.pos;
        let opp = by.flip();
        let steps = (b.pawn_attacks(opp, sq) & p.kind_bb(PieceKind::Pawn))
            | (b.knight_attacks(opp, sq) & p.kind_bb(PieceKind::Knight))
            | (b.silver_attacks(opp, sq) & p.kind_bb(PieceKind::Silver))
            | (b.gold_attacks(opp, sq) & self.gold_like)
            | (b.king_attacks(sq) & self.king_like);
        if (steps & mask).is_nonempty() {
            return true;
        }
        let rooks = self.rook_like & mask;
        if rooks.is_nonempty() && (b.rook_attacks(occ, sq) & rooks).is_nonempty() {
            return true;
        }
        let bishops = self.bishop_like & mask;
        if bishops.is_nonempty() && (b.bishop_attacks(occ, sq) & bishops).is_nonempty() {
            return true;
        }
        let lances = p.kind_bb(PieceKind::Lance) & mask;
        lances.is_nonempty() && (b.lance_attacks(opp, occ, sq) & lances).is_nonempty()
    }

    /// Pieces (of either colour) that alone stand between the `king_color` king on `king` and
    /// a slider in `snipers_mask` (of the other colour), under `occupied`.
    fn pinned_to(
        &self,
        king: Square,
        king_color: Color,
        snipers_mask: B::Bitboard,
        occupied: B::Bitboard,
    ) -> B::Bitboard {
        let t = self.tables;
        let snipers = ((at(&t.rook_rays, king) & self.rook_like)
            | (at(&t.bishop_rays, king) & self.bishop_like)
            | (at(&t.lance_rays[king_color.index()], king) & self.pos.kind_bb(PieceKind::Lance)))
            & snipers_mask;
        self.lone_blockers(king, snipers, occupied)
    }

    #[inline(always)]
    fn lone_blockers(
        &self,
        king: Square,
        snipers: B::Bitboard,
        occupied: B::Bitboard,
    ) -> B::Bitboard {
        let mut blockers = B::Bitboard::empty();
        for sniper in snipers.squares() {
            let between = self.tables.between(king, sniper) & occupied;
            if between.count() == 1 {
                blockers |= between;
            }
        }
        blockers
    }

    /// Tries every checking move, drops first, and hands each mate to `found`, stopping when
    /// it returns true. `all` also tries drops that cannot mate unless another does.
    fn search(&self, all: bool, found: &mut impl FnMut(Move) -> bool) {
        if !self.search_drops(all, found) {
            self.search_board_moves(found);
        }
    }

    fn settle(&self, verdict: Verdict, mv: Move) -> bool {
        match verdict {
            Verdict::Mate => true,
            Verdict::Escapes => false,
            Verdict::PawnDropBlockChecks => mates_by_make(&mut self.pos.clone(), mv),
        }
    }

    /// Returns true when `found` asked to stop.
    fn search_drops(&self, all: bool, found: &mut impl FnMut(Move) -> bool) -> bool {
        let us = self.us;
        // A drop is legal when we are not in check, or when it interposes against a single
        // distant checker.
        let drop_targets = match self.our_king {
            Some(our_king) if self.our_checkers.is_nonempty() => {
                if self.our_checkers.count() > 1 {
                    return false;
                }
                let mut checkers = self.our_checkers;
                let Some(checker) = checkers.pop() else {
                    return false;
                };
                self.tables.between(our_king, checker)
            }
            _ => self.tables.all,
        };
        let empty = drop_targets.and_not(self.occupied);
        let has = |k: PieceKind| self.pos.hand_count(us, k) > 0;
        let t = self.tables;
        // A rook attacks every square a lance on the same square does, so a lance drop can
        // only mate where a rook drop would: with a rook in hand, lance drops are skipped.
        // Pawn drops are never tried: one that mates is illegal (打ち歩詰め).
        for kind in [
            PieceKind::Rook,
            PieceKind::Bishop,
            PieceKind::Gold,
            PieceKind::Silver,
            PieceKind::Knight,
            PieceKind::Lance,
        ] {
            if !has(kind) || (!all && kind == PieceKind::Lance && has(PieceKind::Rook)) {
                continue;
            }
            let allowed = match kind {
                PieceKind::Knight => empty.and_not(t.last_two_ranks[us.index()]),
                PieceKind::Lance => empty.and_not(t.last_rank[us.index()]),
                _ => empty,
            };
            for to in (allowed & self.check_squares[kind.index()]).squares() {
                let mv = Move::drop(kind, to);
                if self.settle(self.judge(None, to, kind), mv) && found(mv) {
                    return true;
                }
            }
        }
        false
    }

    fn search_board_moves(&self, found: &mut impl FnMut(Move) -> bool) {
        let us = self.us;
        let t = self.tables;
        let occ = self.pos.occupancy();
        let zone = t.promotion_zone[us.index()];
        let in_double_check = self.our_checkers.count() > 1;
        for from in self.ours.squares() {
            let Some(piece) = self.pos.piece_at(from) else {
                continue;
            };
            let kind = piece.kind;
            let discoverer = self.discoverers.contains(from);
            let promotable = kind.can_promote();
            let checking = if discoverer {
                t.all
            } else {
                self.check_squares[kind.index()]
                    | if promotable {
                        self.check_squares[kind.promoted().index()]
                    } else {
                        B::Bitboard::empty()
                    }
            };
            let mut targets = self.pos.attacks_from(piece, from, occ).and_not(self.ours) & checking;
            if targets.is_empty() {
                continue;
            }
            if kind != PieceKind::King {
                if in_double_check {
                    continue;
                }
                targets &= self.evasion_targets;
                if self.our_pinned.contains(from) {
                    if let Some(our_king) = self.our_king {
                        targets &= t.line(our_king, from);
                    }
                }
            }
            for to in targets.squares() {
                if kind == PieceKind::King && !self.our_king_may_go(from, to) {
                    continue;
                }
                let discovered = discoverer && !t.line(self.king, from).contains(to);
                let can_promote = promotable && (zone.contains(to) || zone.contains(from));
                let must_promote = match kind {
                    PieceKind::Pawn | PieceKind::Lance => t.last_rank[us.index()].contains(to),
                    PieceKind::Knight => t.last_two_ranks[us.index()].contains(to),
                    _ => false,
                };
                for promote in [true, false] {
                    if (promote && !can_promote) || (!promote && must_promote) {
                        continue;
                    }
                    let new_kind = if promote { kind.promoted() } else { kind };
                    if !discovered && !self.check_squares[new_kind.index()].contains(to) {
                        continue;
                    }
                    let mv = Move::board(from, to, promote);
                    if self.settle(self.judge(Some(from), to, new_kind), mv) && found(mv) {
                        return;
                    }
                }
            }
        }
    }

    /// Whether our king may step from `from` to `to` (not attacked once it has left `from`).
    fn our_king_may_go(&self, from: Square, to: Square) -> bool {
        let mut occ = self.pos.occupancy().clone();
        self.backend.clear_square(&mut occ, from);
        !self.is_attacked(
            to,
            self.them,
            self.theirs.and_not(B::Bitboard::square(to)),
            &occ,
        )
    }

    /// Every square our pieces other than the moved one attack once a piece has moved from
    /// `from` (or been dropped) to `to`, with the defending king off the board: one whole-side
    /// map for all flight squares at once.
    fn attacked_after(
        &self,
        method: Method,
        from: Option<Square>,
        to: Square,
        ours_others: B::Bitboard,
        occ_kingless: &B::Occupancy,
    ) -> B::Bitboard {
        match method {
            Method::PerPiece => {
                let mut union = B::Bitboard::empty();
                for sq in ours_others.squares() {
                    if let Some(piece) = self.pos.piece_at(sq) {
                        union |= self.pos.attacks_from(piece, sq, occ_kingless);
                    }
                }
                union
            }
            Method::SetWise(level) => {
                let from_bit = from.map_or(0, |f| f.bit());
                let ours = self
                    .our_pieces
                    .unwrap_or_else(|| SidePieces::of(self.pos, self.us));
                let mut pieces = ours.without(from_bit);
                pieces.occupied =
                    ((self.occupied_canonical & !from_bit) | to.bit()) & !self.king.bit();
                B::Bitboard::from_canonical(set_wise_union(&pieces, level))
            }
        }
    }

    /// Judges the (legal for us) move that puts a piece of `kind` on `to`, from `from` or
    /// from hand, without making it.
    fn judge(&self, from: Option<Square>, to: Square, kind: PieceKind) -> Verdict {
        let b = self.backend;
        let t = self.tables;
        let (us, them, king) = (self.us, self.them, self.king);
        let to_mask = B::Bitboard::square(to);
        let from_mask = from.map_or(B::Bitboard::empty(), B::Bitboard::square);
        // Our pieces other than the moved one (their kinds are still those of the position
        // before the move), the defender's pieces less the captured one.
        let ours_others = self.ours.and_not(from_mask);
        let theirs_after = self.theirs.and_not(to_mask);
        let occupied_after = self.occupied.and_not(from_mask) | to_mask;
        let mut occ_after = self.pos.occupancy().clone();
        if !self.occupied.contains(to) {
            b.set_square(&mut occ_after, to);
        }
        if let Some(from) = from {
            b.clear_square(&mut occ_after, from);
        }
        let mut occ_kingless = occ_after.clone();
        b.clear_square(&mut occ_kingless, king);

        let moved = Piece::new(us, kind);
        let moved_attacks = self.pos.attacks_from(moved, to, &occ_kingless);
        let mut checkers = if moved_attacks.contains(king) {
            to_mask
        } else {
            B::Bitboard::empty()
        };
        if from.is_some_and(|f| self.discoverers.contains(f)) {
            checkers |= self.attackers(king, us, ours_others, &occ_after);
        }
        if checkers.is_empty() {
            return Verdict::Escapes; // not even a check
        }

        // (a) King moves: to a square neither the moved piece (seen through the king's old
        // square) nor any other piece of ours attacks once the king has left.
        let flights = b
            .king_attacks(king)
            .and_not(theirs_after)
            .and_not(moved_attacks);
        if flights.is_nonempty() {
            let escapes = match self.pos.king_safety() {
                KingSafety::PerSquare => flights
                    .squares()
                    .any(|flight| !self.is_attacked(flight, us, ours_others, &occ_kingless)),
                KingSafety::AttackMap(method) => flights
                    .and_not(self.attacked_after(method, from, to, ours_others, &occ_kingless))
                    .is_nonempty(),
            };
            if escapes {
                return Verdict::Escapes;
            }
        }
        let mut rest = checkers;
        let Some(checker) = rest.pop() else {
            return Verdict::Escapes;
        };
        if rest.is_nonempty() {
            return Verdict::Mate; // double check: only king moves, and none is safe
        }

        // (b) Captures of the checker by a piece other than the king.
        let defenders = theirs_after.and_not(self.king_mask);
        let capturers = self.attackers(checker, them, defenders, &occ_after);
        let block = t.between(king, checker);
        if capturers.is_empty() && block.is_empty() {
            return Verdict::Mate;
        }
        // Pins in the position after the move: the moved piece may pin, unpin by landing on
        // a pin line, or uncover a slider; a captured piece no longer shields.
        let mut snipers = ((at(&t.rook_rays, king) & self.rook_like)
            | (at(&t.bishop_rays, king) & self.bishop_like)
            | (at(&t.lance_rays[them.index()], king) & self.pos.kind_bb(PieceKind::Lance)))
            & ours_others;
        let moved_snipes = match kind {
            PieceKind::Rook | PieceKind::Dragon => at(&t.rook_rays, king).contains(to),
            PieceKind::Bishop | PieceKind::Horse => at(&t.bishop_rays, king).contains(to),
            PieceKind::Lance => at(&t.lance_rays[them.index()], king).contains(to),
            _ => false,
        };
        if moved_snipes {
            snipers |= to_mask;
        }
        let pinned = self.lone_blockers(king, snipers, occupied_after) & defenders;
        // A pinned piece may still move along its pin line.
        let free = |movers: B::Bitboard, target: Square| {
            movers.and_not(pinned).is_nonempty()
                || (movers & pinned)
                    .squares()
                    .any(|p| t.line(king, p).contains(target))
        };
        if capturers.is_nonempty() && free(capturers, checker) {
            return Verdict::Escapes;
        }
        if block.is_empty() {
            return Verdict::Mate;
        }

        // (c) Interpositions on the squares between king and checker: drops first.
        let hand = |k: PieceKind| self.pos.hand_count(them, k) > 0;
        if hand(PieceKind::Silver)
            || hand(PieceKind::Gold)
            || hand(PieceKind::Bishop)
            || hand(PieceKind::Rook)
            || (hand(PieceKind::Lance) && block.and_not(t.last_rank[them.index()]).is_nonempty())
            || (hand(PieceKind::Knight)
                && block.and_not(t.last_two_ranks[them.index()]).is_nonempty())
        {
            return Verdict::Escapes;
        }
        for square in block.squares() {
            let movers = self.attackers(square, them, defenders, &occ_after);
            if movers.is_nonempty() && free(movers, square) {
                return Verdict::Escapes;
            }
        }
        if hand(PieceKind::Pawn) {
            let their_pawns = self.pos.pieces(them, PieceKind::Pawn).and_not(to_mask);
            let our_king_after = if kind == PieceKind::King {
                Some(to)
            } else {
                self.our_king
            };
            let mut pawn_blocks_check = false;
            for square in block.and_not(t.last_rank[them.index()]).squares() {
                if (their_pawns & at(&t.file_of, square)).is_nonempty() {
                    continue; // 二歩
                }
                let checks_us =
                    our_king_after.is_some_and(|k| b.pawn_attacks(them, square).contains(k));
                if !checks_us {
                    return Verdict::Escapes;
                }
                pawn_blocks_check = true;
            }
            if pawn_blocks_check {
                return Verdict::PawnDropBlockChecks;
            }
        }
        Verdict::Mate
    }
}

/// Game-like positions for tests and benchmarks, as SFEN: seeded random games from the start
/// position with a random share of the pieces (each with probability 10–70 % per game) taken
/// off the board and put in a random side's hand, played with a preference for checks and
/// captures so that positions get tactical. Every position met is kept (a game ends at mate or
/// after 160 plies), so mates in one, positions in check and big hands are all common.
pub fn tactical_positions<B: Backend>(backend: B, seed: u64, count: usize) -> Vec<String> {
    use crate::position::START_SFEN;
    use rand::{RngExt, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let start = Position::from_sfen(backend, START_SFEN).expect("the start SFEN is valid");
    let mut out = Vec::with_capacity(count);
    let mut moves = MoveList::new();
    while out.len() < count {
        // Removing pieces from the start position never leaves a king attacked: no slider
        // there has a line to a king whatever is taken away.
        let share = rng.random_range(0.3..0.9);
        let mut board = [None; 81];
        let mut hands = [[0u8; 7]; 2];
        for sq in Square::all() {
            let piece = start.piece_at(sq);
            match piece {
                Some(p) if p.kind != PieceKind::King && rng.random_bool(share) => {
                    let owner = usize::from(rng.random_bool(0.5));
                    hands[owner][p.kind.unpromoted().index()] += 1;
                }
                _ => board[sq.index()] = piece,
            }
        }
        let side = if rng.random_bool(0.5) {
            Color::Black
        } else {
            Color::White
        };
        let sfen = sfen_of(&board, side, &hands);
        let mut pos = Position::from_sfen(backend, &sfen).expect("a valid start");
        for _ply in 0..60 {
            out.push(pos.to_sfen());
            if out.len() == count {
                break;
            }
            pos.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            let info = pos.check_info();
            let checks: Vec<Move> = match &info {
                Some(info) => moves
                    .iter()
                    .copied()
                    .filter(|&m| pos.gives_check(m, info))
                    .collect(),
                None => Vec::new(),
            };
            let captures: Vec<Move> = moves
                .iter()
                .copied()
                .filter(|m| !m.is_drop() && pos.piece_at(m.to()).is_some())
                .collect();
            // Moves landing within two squares of the enemy king build mating nets.
            let near_king: Vec<Move> = match pos.king_square(pos.side_to_move().flip()) {
                Some(k) => moves
                    .iter()
                    .copied()
                    .filter(|m| {
                        let to = m.to();
                        to.file().abs_diff(k.file()) <= 2 && to.rank().abs_diff(k.rank()) <= 2
                    })
                    .collect(),
                None => Vec::new(),
            };
            let pick =
                |list: &[Move], rng: &mut Xoshiro256PlusPlus| list[rng.random_range(0..list.len())];
            let mv = if !checks.is_empty() && rng.random_bool(0.15) {
                pick(&checks, &mut rng)
            } else if !near_king.is_empty() && rng.random_bool(0.9) {
                pick(&near_king, &mut rng)
            } else if !captures.is_empty() && rng.random_bool(0.5) {
                pick(&captures, &mut rng)
            } else {
                pick(&moves, &mut rng)
            };
            pos.do_move(mv);
        }
    }
    out
}

/// SFEN text of a board, side to move and hands (`[colour][hand index]`), move number 1.
fn sfen_of(board: &[Option<Piece>; 81], side: Color, hands: &[[u8; 7]; 2]) -> String {
    let mut out = String::new();
    for rank in 1..=9u8 {
        let mut empty = 0;
        for file in (1..=9u8).rev() {
            let sq = Square::from_file_rank(file, rank).expect("on the board");
            match board[sq.index()] {
                None => empty += 1,
                Some(piece) => {
                    if empty > 0 {
                        out.push_str(&empty.to_string());
                        empty = 0;
                    }
                    out.push_str(&piece.sfen());
                }
            }
        }
        if empty > 0 {
            out.push_str(&empty.to_string());
        }
        if rank < 9 {
            out.push('/');
        }
    }
    out.push_str(if side == Color::Black { " b " } else { " w " });
    let mut hand = String::new();
    for color in Color::BOTH {
        for kind in PieceKind::HAND {
            let n = hands[color.index()][kind.index()];
            if n > 1 {
                hand.push_str(&n.to_string());
            }
            if n > 0 {
                hand.push_str(&Piece::new(color, kind).sfen());
            }
        }
    }
    if hand.is_empty() {
        hand.push('-');
    }
    out.push_str(&hand);
    out.push_str(" 1");
    out
}
