//! The move lists (fixed capacity, on the stack) and the sinks the generator writes into: a
//! list's writer stores each move, a counter only adds them up.

use crate::position::{Move, PieceKind};
use kiki_core::backend::Bitboard;
use kiki_core::types::{Color, Square};
use std::marker::PhantomData;
use std::mem::MaybeUninit;

/// A fixed-capacity move list on the stack: no heap allocation, no initialisation cost. The
/// moves come last (`repr(C)`), so that a test can guard the memory just past them.
#[repr(C)]
pub struct MoveBuffer<const N: usize> {
    len: usize,
    moves: [MaybeUninit<Move>; N],
}

/// Legal moves: the most any legal shogi position has is 593 (the GUIDE's third position), so
/// 600 always suffices for positions reachable in a game. `push` and the generator's
/// `ListWriter` saturate rather than overflowing, so a nonsense position (say, one where the
/// side not to move is in check) cannot make them write out of bounds.
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
        // SAFETY: the first `len` slots were written by `push` or a `ListWriter` (and
        // `len <= N`).
        unsafe { std::slice::from_raw_parts(self.moves.as_ptr() as *const Move, self.len) }
    }

    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
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

/// Where the generator puts its moves: a [`MoveBuffer`]'s writer stores each one, a [`MoveCounter`]
/// only adds them up (popcounts, no move is made). The bulk methods carry the promotion rules
/// so that both see the same sets.
pub(super) trait MoveSink {
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

impl<const N: usize> MoveBuffer<N> {
    /// Refills the list through a [`ListWriter`]: `fill` writes the moves, and the length is
    /// set once at the end.
    #[inline(always)]
    pub(super) fn refill<'a>(&'a mut self, fill: impl FnOnce(&mut ListWriter<'a>)) {
        let base = self.moves.as_mut_ptr() as *mut Move;
        let mut writer = ListWriter {
            next: base,
            // SAFETY: one past the end of the array.
            end: unsafe { base.add(N) },
            _list: PhantomData,
        };
        fill(&mut writer);
        // SAFETY: `next` stays within `base..=end`, the same allocation.
        self.len = unsafe { writer.next.offset_from(base) } as usize;
    }
}

/// The generator's sink for a [`MoveBuffer`]: a write cursor and the list's end, both locals of
/// the generating function, so that a move costs one store and one increment in registers
/// (a `push` on the list's own `len` reloaded and stored it at every move). Like `push`, it
/// saturates at the capacity.
pub(super) struct ListWriter<'a> {
    next: *mut Move,
    end: *mut Move,
    _list: PhantomData<&'a mut [MaybeUninit<Move>]>,
}

/// The most kinds one `drops` call writes: the six hand kinds other than the pawn (the pawn's
/// drops come in a call of their own), rounded up to the eight lanes of two words.
const DROP_LANES: usize = 8;
// The lane stores write `Move`s as the 16-bit halves of little-endian words.
const _: () = assert!(std::mem::size_of::<Move>() == 2);
const _: () = assert!(cfg!(target_endian = "little"));
/// Square 0, whose index is 0 in a move's code.
const SQUARE_0: Square = match Square::new(0) {
    Some(sq) => sq,
    None => panic!(),
};

impl ListWriter<'_> {
    /// Free slots from the cursor to the list's end.
    #[inline(always)]
    fn room(&self) -> usize {
        // SAFETY: both point into the same array, `next <= end`.
        unsafe { self.end.offset_from(self.next) as usize }
    }

    #[inline(always)]
    fn put(&mut self, mv: Move) {
        if self.next < self.end {
            // SAFETY: `next` is below `end`, inside the list's array; the slots it passes
            // over are written here, so the list's first `len` slots are initialised.
            unsafe {
                self.next.write(mv);
                self.next = self.next.add(1);
            }
        }
    }

    /// Moves onto `targets`, each from `origin(to)`: promotion compulsory in `forced`, optional
    /// elsewhere in `zone`, none outside it; the rules split the targets set-wise, so that no
    /// loop tests a square. Needs `forced` inside `zone` (a square outside it would be written
    /// twice).
    #[inline(always)]
    fn promoting<BB: Bitboard>(
        &mut self,
        origin: impl Fn(Square) -> Square,
        targets: BB,
        zone: BB,
        forced: BB,
    ) {
        debug_assert!(forced.and_not(zone).is_empty());
        (targets & forced).for_each_square(|to| self.put(Move::board(origin(to), to, true)));
        (targets & zone.and_not(forced)).for_each_square(|to| {
            self.put(Move::board(origin(to), to, true));
            self.put(Move::board(origin(to), to, false));
        });
        targets
            .and_not(zone)
            .for_each_square(|to| self.put(Move::board(origin(to), to, false)));
    }
}

impl MoveSink for ListWriter<'_> {
    #[inline(always)]
    fn board(&mut self, from: Square, to: Square, promote: bool) {
        self.put(Move::board(from, to, promote));
    }

    // A square's drops differ only in the kind's code: each kind's move without its square
    // sits in one of eight 16-bit lanes, and a square's moves are those lanes ORed with the
    // square, stored as two words at once (the list moves on by the number of kinds; the lanes
    // beyond are overwritten later or lie past the list's end).
    #[inline(always)]
    fn drops<BB: Bitboard>(&mut self, kinds: &[PieceKind], squares: BB) {
        // The lane stores' room check rests on this (one compare per call).
        assert!(kinds.len() <= DROP_LANES, "more drop kinds than lanes");
        if let [kind] = kinds {
            // One kind (the pawn's own call, whose slice is a constant, or a hand of one
            // other kind): one move a square, a plain store.
            squares.for_each_square(|to| self.put(Move::drop(*kind, to)));
            return;
        }
        let mut lanes = [0u64; 2];
        for (lane, &kind) in kinds.iter().enumerate().take(DROP_LANES) {
            lanes[lane / 4] |= u64::from(Move::drop(kind, SQUARE_0).raw()) << (16 * (lane % 4));
        }
        let count = kinds.len();
        // Room for every square's eight lanes, checked once for the whole set (a little more
        // than the moves need); a list too full for that takes the per-move checked path.
        if self.room() >= squares.count() as usize * DROP_LANES {
            squares.for_each_square(|to| {
                // Square 0's code is 0, so ORing the square into every lane makes each move.
                let square = to.index() as u64 * 0x0001_0001_0001_0001;
                // SAFETY: with `n` squares and at most eight kinds, eight slots remain from
                // `next` for this square and each after it (the check above), so the two
                // unaligned 8-byte stores stay in the array; every lane holds a valid move
                // code, and those past `count` lie beyond the list's length.
                unsafe {
                    let words = self.next as *mut u64;
                    words.write_unaligned(lanes[0] | square);
                    words.add(1).write_unaligned(lanes[1] | square);
                    self.next = self.next.add(count);
                }
            });
        } else {
            squares.for_each_square(|to| {
                for &kind in kinds {
                    self.put(Move::drop(kind, to));
                }
            });
        }
    }

    #[inline(always)]
    fn plain<BB: Bitboard>(&mut self, from: Square, targets: BB) {
        targets.for_each_square(|to| self.put(Move::board(from, to, false)));
    }

    // The promotion rules split the targets set-wise, so that no loop tests a square.
    #[inline(always)]
    fn optional<BB: Bitboard>(&mut self, from: Square, targets: BB, zone: BB) {
        let both = if zone.contains(from) {
            targets
        } else {
            targets & zone
        };
        both.for_each_square(|to| {
            self.put(Move::board(from, to, true));
            self.put(Move::board(from, to, false));
        });
        targets
            .and_not(both)
            .for_each_square(|to| self.put(Move::board(from, to, false)));
    }

    #[inline(always)]
    fn forced<BB: Bitboard>(&mut self, from: Square, targets: BB, zone: BB, forced: BB) {
        self.promoting(|_| from, targets, zone, forced);
    }

    #[inline(always)]
    fn pawn_steps<BB: Bitboard>(&mut self, us: Color, targets: BB, zone: BB, forced: BB) {
        // The pawn stands one rank behind its target: one index up for black, down for white.
        let back: i8 = match us {
            Color::Black => 1,
            Color::White => -1,
        };
        // SAFETY: `to` was reached by one forward step from a square on the board.
        let from = |to: Square| unsafe { Square::new_unchecked((to.index() as i8 + back) as u8) };
        self.promoting(from, targets, zone, forced);
    }
}

/// Counts what a [`MoveBuffer`] would hold, by popcounts of the same target sets.
pub(super) struct MoveCounter(pub(super) u64);

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

#[cfg(test)]
mod tests {
    use super::*;
    use kiki_core::backend::CanonicalBitboard;

    /// A list with a guard band right after its moves (`repr(C)` on both).
    #[repr(C)]
    struct Guarded {
        list: MoveBuffer<16>,
        guard: [u16; 16],
    }

    const GUARD: u16 = 0xA5A5;

    /// The writer stores drops as eight lanes at a time: with the list filled to every level,
    /// one to three target squares and one to six kinds, nothing lands past the list (the
    /// guard band is untouched), and the list holds the moves that fit, in order.
    #[test]
    fn the_writer_never_writes_past_the_list() {
        let square = |index| Square::new(index).expect("a square");
        let kinds = crate::movegen::HAND_KINDS_BUT_PAWN;
        let sets: [&[u8]; 3] = [&[40], &[3, 70], &[0, 44, 80]];
        for filled in 0..=16 {
            for targets in sets {
                let set = targets.iter().fold(0u128, |acc, &index| acc | 1 << index);
                for count in 1..=kinds.len() {
                    let mut guarded = Guarded {
                        list: MoveBuffer::new(),
                        guard: [GUARD; 16],
                    };
                    let filler = Move::board(square(10), square(11), false);
                    guarded.list.refill(|writer| {
                        for _ in 0..filled {
                            writer.board(square(10), square(11), false);
                        }
                        writer.drops(&kinds[..count], CanonicalBitboard(set));
                    });
                    assert_eq!(
                        guarded.guard, [GUARD; 16],
                        "{filled} + {targets:?} x {count}"
                    );
                    let mut expected = vec![filler; filled];
                    for &index in targets {
                        for &kind in &kinds[..count] {
                            expected.push(Move::drop(kind, square(index)));
                        }
                    }
                    expected.truncate(16);
                    assert_eq!(
                        guarded.list.as_slice(),
                        expected,
                        "{filled} + {targets:?} x {count}"
                    );
                }
            }
        }
    }
}
