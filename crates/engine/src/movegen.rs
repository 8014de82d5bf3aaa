//! Legal move generation over any backend: direct (pin masks and check masks, no make/test/
//! unmake per move), with drops, compulsory promotion, 二歩 and 打ち歩詰め; a checks-only
//! generator; `attackers_to` and `in_check`.

use crate::hands::HandLayout;
use crate::position::{at, KingSafety, Move, Piece, PieceKind, Position};
use kiki_core::backend::{Backend, Bitboard};
use kiki_core::types::{Color, Square};
use std::mem::MaybeUninit;

/// A fixed-capacity move list on the stack: no heap allocation, no initialisation cost.
pub struct MoveBuffer<const N: usize> {
    moves: [MaybeUninit<Move>; N],
    len: usize,
}

/// Legal moves: the most any legal shogi position has is 593 (the GUIDE's third position), so
/// 600 always suffices for positions reachable in a game. `push` saturates rather than
/// overflowing, so a nonsense position (say, one where the side not to move is in check)
/// cannot make it write out of bounds.
pub type MoveList = MoveBuffer<600>;

/// Pseudo-legal moves (brute-force checks): moves that leave one's king attacked are kept, so
/// a position with many moves and its king in check can exceed 593. Drops are at most 7 per
/// empty square and board moves at most two per attacked square; 1024 leaves ample room for
/// any position an SFEN can describe (and `push` saturates regardless).
pub type PseudoMoveList = MoveBuffer<1024>;

impl<const N: usize> Default for MoveBuffer<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> MoveBuffer<N> {
    pub const CAPACITY: usize = N;

    #[inline(always)]
    pub fn new() -> Self {
        MoveBuffer {
            moves: [const { MaybeUninit::uninit() }; N],
            len: 0,
        }
    }

    #[inline(always)]
    pub fn push(&mut self, mv: Move) {
        if let Some(slot) = self.moves.get_mut(self.len) {
            *slot = MaybeUninit::new(mv);
            self.len += 1;
        }
    }

    #[inline(always)]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    #[inline(always)]
    pub fn as_slice(&self) -> &[Move] {
        // SAFETY: the first `len` slots were written by `push` (and `len <= N`).
        unsafe { std::slice::from_raw_parts(self.moves.as_ptr() as *const Move, self.len) }
    }

    #[inline(always)]
    fn as_mut_slice(&mut self) -> &mut [Move] {
        // SAFETY: as in `as_slice`.
        unsafe { std::slice::from_raw_parts_mut(self.moves.as_mut_ptr() as *mut Move, self.len) }
    }

    /// Keeps the moves for which `keep` is true, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(Move) -> bool) {
        let mut kept = 0;
        let slice = self.as_mut_slice();
        for i in 0..slice.len() {
            let mv = slice[i];
            if keep(mv) {
                slice[kept] = mv;
                kept += 1;
            }
        }
        self.len = kept;
    }

    pub fn contains(&self, mv: Move) -> bool {
        self.as_slice().contains(&mv)
    }

    /// The moves in USI text, sorted.
    pub fn usi_sorted(&self) -> Vec<String> {
        let mut texts: Vec<String> = self.iter().map(|m| m.to_string()).collect();
        texts.sort();
        texts
    }
}

impl<const N: usize> std::ops::Deref for MoveBuffer<N> {
    type Target = [Move];
    #[inline(always)]
    fn deref(&self) -> &[Move] {
        self.as_slice()
    }
}

/// Where the generator puts its moves: a [`MoveBuffer`] pushes each one, a [`MoveCounter`]
/// only adds them up (popcounts, no move is made). The bulk methods carry the promotion rules
/// so that both see the same sets.
trait MoveSink {
    /// One board move.
    fn board(&mut self, from: Square, to: Square, promote: bool);
    /// Each of `kinds` dropped on each of `squares` (square by square).
    fn drops<BB: Bitboard>(&mut self, kinds: &[PieceKind], squares: BB);
    /// Pieces that never promote: one move to each target.
    fn plain<BB: Bitboard>(&mut self, from: Square, targets: BB);
    /// Silver, bishop, rook: promotion optional when the move starts or ends in the zone.
    fn optional<BB: Bitboard>(&mut self, from: Square, targets: BB, zone: BB);
    /// Pawn, lance, knight: promotion optional in the zone, compulsory in `forced` (a part
    /// of the zone).
    fn forced<BB: Bitboard>(&mut self, from: Square, targets: BB, zone: BB, forced: BB);
    /// Unpinned pawns of `us` stepping onto `targets` (each from the square behind it):
    /// promotion optional in the zone, compulsory in `forced`.
    fn pawn_steps<BB: Bitboard>(&mut self, us: Color, targets: BB, zone: BB, forced: BB);
}

impl<const N: usize> MoveSink for MoveBuffer<N> {
    #[inline(always)]
    fn board(&mut self, from: Square, to: Square, promote: bool) {
        self.push(Move::board(from, to, promote));
    }

    #[inline(always)]
    fn drops<BB: Bitboard>(&mut self, kinds: &[PieceKind], squares: BB) {
        for to in squares.squares() {
            for &kind in kinds {
                self.push(Move::drop(kind, to));
            }
        }
    }

    #[inline(always)]
    fn plain<BB: Bitboard>(&mut self, from: Square, targets: BB) {
        for to in targets.squares() {
            self.push(Move::board(from, to, false));
        }
    }

    #[inline(always)]
    fn optional<BB: Bitboard>(&mut self, from: Square, targets: BB, zone: BB) {
        if zone.contains(from) {
            for to in targets.squares() {
                self.push(Move::board(from, to, true));
                self.push(Move::board(from, to, false));
            }
        } else {
            for to in (targets & zone).squares() {
                self.push(Move::board(from, to, true));
                self.push(Move::board(from, to, false));
            }
            for to in targets.and_not(zone).squares() {
                self.push(Move::board(from, to, false));
            }
        }
    }

    #[inline(always)]
    fn forced<BB: Bitboard>(&mut self, from: Square, targets: BB, zone: BB, forced: BB) {
        for to in targets.squares() {
            if zone.contains(to) {
                self.push(Move::board(from, to, true));
                if !forced.contains(to) {
                    self.push(Move::board(from, to, false));
                }
            } else {
                self.push(Move::board(from, to, false));
            }
        }
    }

    #[inline(always)]
    fn pawn_steps<BB: Bitboard>(&mut self, us: Color, targets: BB, zone: BB, forced: BB) {
        // The pawn stands one rank behind its target: one index up for black, down for white.
        let back: i8 = match us {
            Color::Black => 1,
            Color::White => -1,
        };
        for to in targets.squares() {
            // SAFETY: `to` was reached by one forward step from a square on the board.
            let from = unsafe { Square::new_unchecked((to.index() as i8 + back) as u8) };
            if zone.contains(to) {
                self.push(Move::board(from, to, true));
                if !forced.contains(to) {
                    self.push(Move::board(from, to, false));
                }
            } else {
                self.push(Move::board(from, to, false));
            }
        }
    }
}

/// Counts what a [`MoveBuffer`] would hold, by popcounts of the same target sets.
struct MoveCounter(u64);

impl MoveSink for MoveCounter {
    #[inline(always)]
    fn board(&mut self, _from: Square, _to: Square, _promote: bool) {
        self.0 += 1;
    }

    #[inline(always)]
    fn drops<BB: Bitboard>(&mut self, kinds: &[PieceKind], squares: BB) {
        self.0 += u64::from(squares.count()) * kinds.len() as u64;
    }

    #[inline(always)]
    fn plain<BB: Bitboard>(&mut self, _from: Square, targets: BB) {
        self.0 += u64::from(targets.count());
    }

    #[inline(always)]
    fn optional<BB: Bitboard>(&mut self, from: Square, targets: BB, zone: BB) {
        let promoting = if zone.contains(from) {
            targets
        } else {
            targets & zone
        };
        self.0 += u64::from(targets.count() + promoting.count());
    }

    #[inline(always)]
    fn forced<BB: Bitboard>(&mut self, _from: Square, targets: BB, zone: BB, forced: BB) {
        // One move per target, plus the promotion in the zone where it is not compulsory.
        self.0 += u64::from(targets.count() + (targets & zone).and_not(forced).count());
    }

    #[inline(always)]
    fn pawn_steps<BB: Bitboard>(&mut self, _us: Color, targets: BB, zone: BB, forced: BB) {
        self.0 += u64::from(targets.count() + (targets & zone).and_not(forced).count());
    }
}

/// What decides whether a move gives check: for each kind (after the move), the squares from
/// which it would attack the enemy king, and our pieces whose moving off the line uncovers a
/// slider on that king.
pub struct CheckInfo<B: Backend> {
    king: Square,
    squares: [B::Bitboard; PieceKind::COUNT],
    discoverers: B::Bitboard,
}

/// The side to move of a generator specialised by `BLACK`.
#[inline(always)]
const fn side_to_move<const BLACK: bool>() -> Color {
    if BLACK {
        Color::Black
    } else {
        Color::White
    }
}

/// A placeholder king square where no pin mask will read it.
const ANY_SQUARE: Square = match Square::new(0) {
    Some(sq) => sq,
    None => panic!(),
};

const GOLD_MOVERS: [PieceKind; 5] = [
    PieceKind::Gold,
    PieceKind::ProPawn,
    PieceKind::ProLance,
    PieceKind::ProKnight,
    PieceKind::ProSilver,
];

impl<B: Backend> Position<B> {
    /// The squares a piece on `sq` attacks under `occupancy`.
    #[inline(always)]
    pub fn attacks_from(&self, piece: Piece, sq: Square, occupancy: &B::Occupancy) -> B::Bitboard {
        let b = &self.backend;
        let c = piece.color;
        match piece.kind {
            PieceKind::Pawn => b.pawn_attacks(c, sq),
            PieceKind::Lance => b.lance_attacks(c, occupancy, sq),
            PieceKind::Knight => b.knight_attacks(c, sq),
            PieceKind::Silver => b.silver_attacks(c, sq),
            PieceKind::Gold
            | PieceKind::ProPawn
            | PieceKind::ProLance
            | PieceKind::ProKnight
            | PieceKind::ProSilver => b.gold_attacks(c, sq),
            PieceKind::Bishop => b.bishop_attacks(occupancy, sq),
            PieceKind::Rook => b.rook_attacks(occupancy, sq),
            PieceKind::King => b.king_attacks(sq),
            PieceKind::Horse => b.horse_attacks(occupancy, sq),
            PieceKind::Dragon => b.dragon_attacks(occupancy, sq),
        }
    }

    /// Step attackers of `by` on `sq` (kinds that do not depend on occupancy).
    #[inline(always)]
    fn step_attackers(&self, sq: Square, by: Color) -> B::Bitboard {
        let b = &self.backend;
        let opp = by.flip();
        let k = &self.by_kind;
        ((b.pawn_attacks(opp, sq) & k[PieceKind::Pawn.index()])
            | (b.knight_attacks(opp, sq) & k[PieceKind::Knight.index()])
            | (b.silver_attacks(opp, sq) & k[PieceKind::Silver.index()])
            | (b.gold_attacks(opp, sq) & self.gold_movers())
            | (b.king_attacks(sq)
                & (k[PieceKind::King.index()]
                    | k[PieceKind::Horse.index()]
                    | k[PieceKind::Dragon.index()])))
            & self.by_color[by.index()]
    }

    /// Pieces of `by` attacking `sq` under `occupancy`.
    #[inline(always)]
    pub fn attackers_to_with(
        &self,
        sq: Square,
        by: Color,
        occupancy: &B::Occupancy,
    ) -> B::Bitboard {
        let b = &self.backend;
        let k = &self.by_kind;
        let sliders = (b.rook_attacks(occupancy, sq)
            & (k[PieceKind::Rook.index()] | k[PieceKind::Dragon.index()]))
            | (b.bishop_attacks(occupancy, sq)
                & (k[PieceKind::Bishop.index()] | k[PieceKind::Horse.index()]))
            | (b.lance_attacks(by.flip(), occupancy, sq) & k[PieceKind::Lance.index()]);
        self.step_attackers(sq, by) | (sliders & self.by_color[by.index()])
    }

    /// Pieces of `by` attacking `sq` in this position.
    #[inline(always)]
    pub fn attackers_to(&self, sq: Square, by: Color) -> B::Bitboard {
        self.attackers_to_with(sq, by, &self.occupancy)
    }

    /// Whether `by` attacks `sq` under `occupancy` (cheap step kinds first, early exit).
    #[inline(always)]
    pub fn is_attacked_with(&self, sq: Square, by: Color, occupancy: &B::Occupancy) -> bool {
        if self.step_attackers(sq, by).is_nonempty() {
            return true;
        }
        let b = &self.backend;
        let k = &self.by_kind;
        let theirs = self.by_color[by.index()];
        let rooks = (k[PieceKind::Rook.index()] | k[PieceKind::Dragon.index()]) & theirs;
        if rooks.is_nonempty() && (b.rook_attacks(occupancy, sq) & rooks).is_nonempty() {
            return true;
        }
        let bishops = (k[PieceKind::Bishop.index()] | k[PieceKind::Horse.index()]) & theirs;
        if bishops.is_nonempty() && (b.bishop_attacks(occupancy, sq) & bishops).is_nonempty() {
            return true;
        }
        let lances = k[PieceKind::Lance.index()] & theirs;
        lances.is_nonempty() && (b.lance_attacks(by.flip(), occupancy, sq) & lances).is_nonempty()
    }

    /// Pieces giving check to the side to move (empty when it has no king).
    #[inline]
    pub fn checkers(&self) -> B::Bitboard {
        match self.kings[self.side.index()] {
            Some(ksq) => self.attackers_to(ksq, self.side.flip()),
            None => B::Bitboard::empty(),
        }
    }

    /// Whether the side to move is in check.
    #[inline]
    pub fn in_check(&self) -> bool {
        match self.kings[self.side.index()] {
            Some(ksq) => self.is_attacked_with(ksq, self.side.flip(), &self.occupancy),
            None => false,
        }
    }

    /// Pieces (of either colour) that alone stand between the `king_color` king on `ksq` and
    /// a slider of `slider_color`, under the occupied set `occupied`.
    #[inline(always)]
    fn blockers(
        &self,
        ksq: Square,
        king_color: Color,
        slider_color: Color,
        occupied: B::Bitboard,
    ) -> B::Bitboard {
        let t = self.tables;
        let k = &self.by_kind;
        let snipers = ((at(&t.rook_rays, ksq)
            & (k[PieceKind::Rook.index()] | k[PieceKind::Dragon.index()]))
            | (at(&t.bishop_rays, ksq)
                & (k[PieceKind::Bishop.index()] | k[PieceKind::Horse.index()]))
            | (at(&t.lance_rays[king_color.index()], ksq) & k[PieceKind::Lance.index()]))
            & self.by_color[slider_color.index()];
        let mut blockers = B::Bitboard::empty();
        for sniper in snipers.squares() {
            let between = t.between(ksq, sniper) & occupied;
            if between.count() == 1 {
                blockers |= between;
            }
        }
        blockers
    }

    /// All legal moves into `list` (cleared first).
    // Out of line, as it was when this held the generator's body: as a two-line wrapper it
    // was inlined into every caller, and E2's move generation ran 4-7% slower on most backends.
    #[inline(never)]
    pub fn legal_moves<const N: usize>(&self, list: &mut MoveBuffer<N>) {
        list.clear();
        self.generate(list);
    }

    /// The number of legal moves: equals `legal_moves().len()` (for any legal position),
    /// counted by the same generator without making the moves.
    pub fn legal_move_count(&self) -> u64 {
        let mut counter = MoveCounter(0);
        self.generate(&mut counter);
        counter.0
    }

    /// [`Self::legal_move_count`] for a side to move known not to be in check (perft's parent
    /// knows it from `gives_check`): the generator looks for no checkers.
    pub fn legal_move_count_unchecked(&self) -> u64 {
        let mut counter = MoveCounter(0);
        match self.side {
            Color::Black => self.generate_as::<_, true, true>(&mut counter),
            Color::White => self.generate_as::<_, false, true>(&mut counter),
        }
        counter.0
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

    #[inline(always)]
    fn generate_as<S: MoveSink, const BLACK: bool, const NOT_IN_CHECK: bool>(&self, sink: &mut S) {
        let us = side_to_move::<BLACK>();
        let them = us.flip();
        let t = self.tables;
        let ours = self.by_color[us.index()];
        let occupied = self.occupied();
        let empty = t.all.and_not(occupied);
        let Some(ksq) = self.kings[us.index()] else {
            // No king to keep safe: every move that obeys the other rules is legal.
            self.board_moves::<S, BLACK>(
                sink,
                t.all.and_not(ours),
                B::Bitboard::empty(),
                ANY_SQUARE,
            );
            self.drops::<S, BLACK>(sink, empty);
            return;
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
            // Seen through our king, the map also covers squares behind it on a checking ray.
            let attacked = self.attacked_through(them, ksq, method);
            sink.plain(ksq, king_targets.and_not(attacked));
            let mut rest = checkers;
            match rest.pop() {
                None => {
                    self.board_moves::<S, BLACK>(sink, t.all.and_not(ours), pinned, ksq);
                    self.drops::<S, BLACK>(sink, empty);
                }
                Some(checker) if rest.is_empty() => {
                    let block = t.between(ksq, checker);
                    self.board_moves::<S, BLACK>(
                        sink,
                        block | B::Bitboard::square(checker),
                        pinned,
                        ksq,
                    );
                    self.drops::<S, BLACK>(sink, block);
                }
                Some(_) => {} // double check: only the king moves
            }
            return;
        }
        if checkers.is_empty() {
            // Not in check, so no enemy ray ends on our king: taking it off the board would
            // uncover nothing, and the current occupancy serves for king moves.
            for to in king_targets.squares() {
                if !self.is_attacked_with(to, them, &self.occupancy) {
                    sink.board(ksq, to, false);
                }
            }
            self.board_moves::<S, BLACK>(sink, t.all.and_not(ours), pinned, ksq);
            self.drops::<S, BLACK>(sink, empty);
            return;
        }
        // In check: the king must not step along a checking ray, so test its targets with the
        // king taken off the board.
        let mut without_king = self.occupancy.clone();
        self.backend.clear_square(&mut without_king, ksq);
        for to in king_targets.squares() {
            if !self.is_attacked_with(to, them, &without_king) {
                sink.board(ksq, to, false);
            }
        }
        let mut rest = checkers;
        let Some(checker) = rest.pop() else { return };
        if rest.is_nonempty() {
            return; // double check: only the king moves
        }
        let block = t.between(ksq, checker);
        self.board_moves::<S, BLACK>(sink, block | B::Bitboard::square(checker), pinned, ksq);
        self.drops::<S, BLACK>(sink, block);
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
            let mut allowed = targets.and_not(last);
            for pawn in self.pieces(us, PieceKind::Pawn).squares() {
                allowed = allowed.and_not(at(&t.file_of, pawn));
            }
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
        for kind in [
            PieceKind::Knight,
            PieceKind::Lance,
            PieceKind::Silver,
            PieceKind::Gold,
            PieceKind::Bishop,
            PieceKind::Rook,
        ] {
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

    /// For `gives_check`: `None` when the opponent has no king.
    pub fn check_info(&self) -> Option<CheckInfo<B>> {
        let us = self.side;
        let them = us.flip();
        let king = self.kings[them.index()]?;
        let b = &self.backend;
        let occ = &self.occupancy;
        let mut squares = [B::Bitboard::empty(); PieceKind::COUNT];
        let gold = b.gold_attacks(them, king);
        let rook = b.rook_attacks(occ, king);
        let bishop = b.bishop_attacks(occ, king);
        let near = b.king_attacks(king);
        squares[PieceKind::Pawn.index()] = b.pawn_attacks(them, king);
        squares[PieceKind::Lance.index()] = b.lance_attacks(them, occ, king);
        squares[PieceKind::Knight.index()] = b.knight_attacks(them, king);
        squares[PieceKind::Silver.index()] = b.silver_attacks(them, king);
        squares[PieceKind::Bishop.index()] = bishop;
        squares[PieceKind::Rook.index()] = rook;
        for kind in GOLD_MOVERS {
            squares[kind.index()] = gold;
        }
        squares[PieceKind::Horse.index()] = bishop | near;
        squares[PieceKind::Dragon.index()] = rook | near;
        let discoverers =
            self.blockers(king, them, us, self.occupied()) & self.by_color[us.index()];
        Some(CheckInfo {
            king,
            squares,
            discoverers,
        })
    }

    /// Whether the (legal) move gives check.
    #[inline]
    pub fn gives_check(&self, mv: Move, info: &CheckInfo<B>) -> bool {
        let to = mv.to();
        match mv.from() {
            None => mv
                .drop_kind()
                .is_some_and(|kind| info.squares[kind.index()].contains(to)),
            Some(from) => {
                let Some(piece) = at(&self.board, from) else {
                    return false;
                };
                let kind = if mv.is_promotion() {
                    piece.kind.promoted()
                } else {
                    piece.kind
                };
                info.squares[kind.index()].contains(to)
                    || (info.discoverers.contains(from)
                        && !self.tables.line(info.king, from).contains(to))
            }
        }
    }

    /// The legal moves that give check, into `list` (cleared first). For now this filters the
    /// legal moves with `gives_check` (precomputed check squares and discoverers, no make);
    /// a generator that visits only checking candidates is left for mate-in-1 work.
    pub fn check_moves<const N: usize>(&self, list: &mut MoveBuffer<N>) {
        self.legal_moves(list);
        match self.check_info() {
            Some(info) => list.retain(|mv| self.gives_check(mv, &info)),
            None => list.clear(),
        }
    }
}

impl<B: Backend> Position<B> {
    /// Parses a USI move (`7g7f`, `8h2b+`, `P*5e`) and accepts it only if it is legal here.
    pub fn parse_usi_move(&self, text: &str) -> Result<Move, String> {
        let mv = crate::position::parse_usi_syntax(text)?;
        let mut list = MoveList::new();
        self.legal_moves(&mut list);
        if list.contains(mv) {
            Ok(mv)
        } else {
            Err(format!(
                "{} is not a legal move in {}",
                kiki_core::input::quote_input(text),
                self.to_sfen()
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiki_core::reference::Reference;

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
        for name in kiki_variants::registry::resolve("all").expect("all resolves") {
            let visitor = SameOnBackend {
                sfen,
                expected: &expected,
            };
            kiki_variants::registry::visit(name, visitor).expect("available backend");
        }
        expected
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
        assert!(!has(&legal(crate::position::START_SFEN), "7g7f+"));
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
}
