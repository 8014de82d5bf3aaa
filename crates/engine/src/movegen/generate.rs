//! The legal move generator: direct (pin masks and check masks, no make/test/unmake per move),
//! with drops, compulsory promotion, 二歩 and 打ち歩詰め, into a list or a counter.

use super::buffer::{MoveBuffer, MoveCounter, MoveSink};
use super::{side_to_move, ANY_SQUARE, HAND_KINDS_BUT_PAWN};
use crate::hands::HandLayout;
use crate::position::{KingSafety, PieceKind, Position};
use kiki_core::backend::{Backend, Bitboard};
use kiki_core::types::{Color, Square};

impl<B: Backend> Position<B> {
    /// All legal moves into `list` (cleared first).
    // Out of line, as it was when this held the generator's body: as a two-line wrapper it
    // was inlined into every caller, and E2's move generation ran 4-7% slower on most backends.
    // The counters and the capture generator below are out of line for the same reason.
    #[inline(never)]
    pub fn legal_moves<const N: usize>(&self, list: &mut MoveBuffer<N>) {
        list.refill(|writer| self.generate(writer));
    }

    /// The number of legal moves: equals `legal_moves().len()` (for any legal position),
    /// counted by the same generator without making the moves.
    #[inline(never)]
    pub fn legal_move_count(&self) -> u64 {
        let mut counter = MoveCounter(0);
        self.generate(&mut counter);
        counter.0
    }

    /// [`Self::legal_move_count`] for a side to move known not to be in check (perft's parent
    /// knows it from `gives_check`): the generator looks for no checkers.
    #[inline(never)]
    pub fn legal_move_count_unchecked(&self) -> u64 {
        let mut counter = MoveCounter(0);
        match self.side {
            Color::Black => self.generate_as::<_, true, true>(&mut counter),
            Color::White => self.generate_as::<_, false, true>(&mut counter),
        }
        counter.0
    }

    /// Quiescence's moves: in check every evasion (as [`Self::legal_moves`]); otherwise only
    /// the legal captures, generated onto enemy pieces without drops or quiet moves, so that a
    /// quiescence node pays for what it searches, as an engine's does.
    #[inline(never)]
    pub fn legal_captures<const N: usize>(&self, list: &mut MoveBuffer<N>) {
        list.refill(|writer| match self.side {
            Color::Black => self.captures_as::<_, true>(writer),
            Color::White => self.captures_as::<_, false>(writer),
        });
    }

    #[inline(always)]
    fn captures_as<S: MoveSink, const BLACK: bool>(&self, sink: &mut S) {
        let us = side_to_move::<BLACK>();
        let them = us.flip();
        let theirs = self.by_color[them.index()];
        let Some(ksq) = self.kings[us.index()] else {
            self.board_moves::<S, BLACK>(sink, theirs, B::Bitboard::empty(), ANY_SQUARE);
            return;
        };
        if self.attackers_to(ksq, them).is_nonempty() {
            self.generate_as::<S, BLACK, false>(sink);
            return;
        }
        // Not in check: as the generator's not-in-check branch, with every target an enemy piece.
        let ours = self.by_color[us.index()];
        let pinned = self.blockers(ksq, us, them, self.occupied()) & ours;
        for to in (self.backend.king_attacks(ksq) & theirs).squares() {
            if !self.is_attacked_with(to, them, &self.occupancy) {
                sink.board(ksq, to, false);
            }
        }
        self.board_moves::<S, BLACK>(sink, theirs, pinned, ksq);
    }

    /// The legal move generator, into any sink.
    #[inline(always)]
    fn generate<S: MoveSink>(&self, sink: &mut S) {
        // The side to move as a constant: its tables, directions and zones fold into the code.
        match self.side {
            Color::Black => self.generate_as::<S, true, false>(sink),
            Color::White => self.generate_as::<S, false, false>(sink),
        }
    }

    // The piece-move loops (`board_moves`, `drops`) are inlined wherever they are called, so
    // each call site is one more copy of them per backend and sink in every binary (most of
    // what the engine costs to build). Three call sites here instead of five: the common case
    // of each king-safety mode (a king, not in check) keeps its own, and every other case (no
    // king, in check) shares the third.
    #[inline(always)]
    fn generate_as<S: MoveSink, const BLACK: bool, const NOT_IN_CHECK: bool>(&self, sink: &mut S) {
        let us = side_to_move::<BLACK>();
        let them = us.flip();
        let t = self.tables;
        let ours = self.by_color[us.index()];
        let occupied = self.occupied();
        let empty = t.all.and_not(occupied);
        let anywhere = t.all.and_not(ours);
        let (board_targets, pinned, ksq, drop_targets) = 'other_cases: {
            let Some(ksq) = self.kings[us.index()] else {
                // No king to keep safe: every move that obeys the other rules is legal.
                break 'other_cases (anywhere, B::Bitboard::empty(), ANY_SQUARE, empty);
            };
            let checkers = if NOT_IN_CHECK {
                B::Bitboard::empty()
            } else {
                self.attackers_to(ksq, them)
            };
            let pinned = self.blockers(ksq, us, them, occupied) & ours;
            let king_targets = self.backend.king_attacks(ksq).and_not(ours);
            if let (KingSafety::AttackMap(method), true) =
                (self.king_safety, king_targets.is_nonempty())
            {
                // Seen through our king, the map also covers squares behind it on a checking
                // ray.
                let attacked = self.attacked_through(them, ksq, method);
                sink.plain(ksq, king_targets.and_not(attacked));
                if checkers.is_empty() {
                    // This mode's common case: a call of its own, as the per-square one has,
                    // so that E10 compares the two modes on the same code shape.
                    self.board_moves::<S, BLACK>(sink, anywhere, pinned, ksq);
                    self.drops::<S, BLACK>(sink, empty);
                    return;
                }
            } else if checkers.is_empty() {
                // Not in check, so no enemy ray ends on our king: taking it off the board
                // would uncover nothing, and the current occupancy serves for king moves.
                for to in king_targets.squares() {
                    if !self.is_attacked_with(to, them, &self.occupancy) {
                        sink.board(ksq, to, false);
                    }
                }
                self.board_moves::<S, BLACK>(sink, anywhere, pinned, ksq);
                self.drops::<S, BLACK>(sink, empty);
                return;
            } else {
                // In check: the king must not step along a checking ray, so test its targets
                // with the king taken off the board.
                let mut without_king = self.occupancy.clone();
                self.backend.clear_square(&mut without_king, ksq);
                for to in king_targets.squares() {
                    if !self.is_attacked_with(to, them, &without_king) {
                        sink.board(ksq, to, false);
                    }
                }
            }
            let mut rest = checkers;
            match rest.pop() {
                None => (anywhere, pinned, ksq, empty),
                Some(checker) if rest.is_empty() => {
                    let block = t.between(ksq, checker);
                    (block | B::Bitboard::square(checker), pinned, ksq, block)
                }
                Some(_) => return, // double check: only the king moves
            }
        };
        self.board_moves::<S, BLACK>(sink, board_targets, pinned, ksq);
        self.drops::<S, BLACK>(sink, drop_targets);
    }

    /// Moves of every piece but the king to `target`; pinned pieces stay on their pin line.
    #[inline(always)]
    fn board_moves<S: MoveSink, const BLACK: bool>(
        &self,
        sink: &mut S,
        target: B::Bitboard,
        pinned: B::Bitboard,
        ksq: Square,
    ) {
        let us = side_to_move::<BLACK>();
        let ui = us.index();
        let t = self.tables;
        let b = &self.backend;
        let occ = &self.occupancy;
        let zone = t.promotion_zone[ui];
        let last = t.last_rank[ui];
        let last_two = t.last_two_ranks[ui];
        // Unpinned pieces move freely; the pinned ones (rare) keep to their pin line, in one
        // loop after the others, so that the common loops test no pin.
        let free = self.by_color[ui].and_not(pinned);
        let free_of = |kind: PieceKind| self.by_kind[kind.index()] & free;

        // Pawns and lances: promotion optional in the zone, compulsory on the last rank. The
        // unpinned pawns step as one set.
        sink.pawn_steps(
            us,
            free_of(PieceKind::Pawn).forward_one(us) & target,
            zone,
            last,
        );
        for from in free_of(PieceKind::Lance).squares() {
            sink.forced(from, b.lance_attacks(us, occ, from) & target, zone, last);
        }
        // Knights: compulsory on the last two ranks.
        for from in free_of(PieceKind::Knight).squares() {
            sink.forced(from, b.knight_attacks(us, from) & target, zone, last_two);
        }
        // Silver, bishop, rook: promotion optional when starting or ending in the zone.
        for from in free_of(PieceKind::Silver).squares() {
            sink.optional(from, b.silver_attacks(us, from) & target, zone);
        }
        for from in free_of(PieceKind::Bishop).squares() {
            sink.optional(from, b.bishop_attacks(occ, from) & target, zone);
        }
        for from in free_of(PieceKind::Rook).squares() {
            sink.optional(from, b.rook_attacks(occ, from) & target, zone);
        }
        // Pieces that never promote.
        for from in (self.gold_movers() & free).squares() {
            sink.plain(from, b.gold_attacks(us, from) & target);
        }
        for from in free_of(PieceKind::Horse).squares() {
            sink.plain(from, b.horse_attacks(occ, from) & target);
        }
        for from in free_of(PieceKind::Dragon).squares() {
            sink.plain(from, b.dragon_attacks(occ, from) & target);
        }
        for from in pinned.squares() {
            let Some(piece) = self.board[from.index()] else {
                continue;
            };
            let targets = self.attacks_from(piece, from, occ) & target & t.line(ksq, from);
            match piece.kind {
                PieceKind::Pawn | PieceKind::Lance => sink.forced(from, targets, zone, last),
                PieceKind::Knight => sink.forced(from, targets, zone, last_two),
                PieceKind::Silver | PieceKind::Bishop | PieceKind::Rook => {
                    sink.optional(from, targets, zone)
                }
                _ => sink.plain(from, targets),
            }
        }
    }

    /// Drops onto `targets` (empty squares), obeying the last-rank rules, 二歩 and 打ち歩詰め.
    #[inline(always)]
    fn drops<S: MoveSink, const BLACK: bool>(&self, sink: &mut S, targets: B::Bitboard) {
        let us = side_to_move::<BLACK>();
        let ui = us.index();
        let hand = self.hands[ui];
        if targets.is_empty() || hand.is_empty() {
            return;
        }
        let t = self.tables;
        let last = t.last_rank[ui];
        let last_two = t.last_two_ranks[ui];

        if hand.has(PieceKind::Pawn) {
            let mut allowed = targets
                .and_not(last)
                .and_not(self.pieces(us, PieceKind::Pawn).file_fill());
            // Only a pawn drop that gives check can be mate; test just that square.
            if let Some(their_king) = self.kings[us.flip().index()] {
                let mut checking = self.backend.pawn_attacks(us.flip(), their_king) & allowed;
                if let Some(sq) = checking.pop() {
                    if self.pawn_drop_mates(sq, their_king) {
                        allowed = allowed.and_not(B::Bitboard::square(sq));
                    }
                }
            }
            sink.drops(&[PieceKind::Pawn], allowed);
        }

        // The other kinds, grouped so that each square is popped once: anywhere beyond the
        // last two ranks, then the second-last rank (no knight), then the last (no knight, lance).
        let mut kinds = [PieceKind::Pawn; 6];
        let mut count = 0;
        for kind in HAND_KINDS_BUT_PAWN {
            if hand.has(kind) {
                kinds[count] = kind;
                count += 1;
            }
        }
        if count == 0 {
            return;
        }
        let has_knight = hand.has(PieceKind::Knight);
        let has_lance = hand.has(PieceKind::Lance);
        let all = &kinds[..count];
        let no_knight = &all[has_knight as usize..];
        let no_knight_lance = &no_knight[has_lance as usize..];
        for (squares, kinds) in [
            (targets.and_not(last_two), all),
            (targets & last_two.and_not(last), no_knight),
            (targets & last, no_knight_lance),
        ] {
            if kinds.is_empty() {
                continue;
            }
            sink.drops(kinds, squares);
        }
    }

    /// Whether our pawn dropped on `sq` (giving check to the enemy king on `their_king`) would
    /// be mate: no enemy piece but the king can take it without exposing its king, and the
    /// king has no safe square (taking the pawn included). It cannot be blocked (adjacent).
    fn pawn_drop_mates(&self, sq: Square, their_king: Square) -> bool {
        let us = self.side;
        let them = us.flip();
        let drop_mask = B::Bitboard::square(sq);
        // Rays ending on `sq` do not depend on whether `sq` is occupied.
        let capturers = self
            .attackers_to(sq, them)
            .and_not(B::Bitboard::square(their_king));
        if capturers.is_nonempty() {
            let pinned = self.blockers(their_king, them, us, self.occupied() | drop_mask)
                & self.by_color[them.index()];
            // A pinned capturer cannot stay on its pin line: `sq` is next to the king.
            if capturers.and_not(pinned).is_nonempty() {
                return false;
            }
        }
        let mut after = self.occupancy.clone();
        self.backend.set_square(&mut after, sq);
        self.backend.clear_square(&mut after, their_king);
        let escapes = self
            .backend
            .king_attacks(their_king)
            .and_not(self.by_color[them.index()]);
        // Our bitboards lack the pawn, but it only attacks the king's own square.
        for to in escapes.squares() {
            if !self.is_attacked_with(to, us, &after) {
                return false;
            }
        }
        true
    }
}
