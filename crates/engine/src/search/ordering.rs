//! Move ordering: the TT move, captures by most valuable victim then least valuable attacker,
//! two killers per ply, then quiet moves by history. Every tie breaks by the move's canonical
//! key (its 16-bit encoding, the same on every backend), so the order never depends on the
//! order a backend's bit layout produced the moves in.

use super::material::VALUE;
use crate::movegen::MoveList;
use crate::position::{Move, Position};
use kiki_core::backend::Backend;
use std::mem::MaybeUninit;

/// Deepest ply the tables hold.
pub const MAX_PLY: usize = 128;
/// Origins a history entry tells apart: 81 squares and 7 hand kinds.
const ORIGINS: usize = 81 + 7;

/// The per-search heuristics (new for each position: a fingerprint depends on the position
/// alone).
pub struct Heuristics {
    killers: [[Option<Move>; 2]; MAX_PLY],
    /// `[side][origin][destination]`.
    history: Vec<[[i32; 81]; ORIGINS]>,
}

impl Default for Heuristics {
    fn default() -> Heuristics {
        Heuristics {
            killers: [[None; 2]; MAX_PLY],
            history: vec![[[0; 81]; ORIGINS]; 2],
        }
    }
}

const TT_MOVE: i64 = 1 << 40;
const CAPTURE: i64 = 1 << 36;
const KILLER: i64 = 1 << 34;

impl Heuristics {
    /// `moves` best first: by score, then by canonical key (`keys` holds the keys).
    pub fn order<'k, B: Backend>(
        &self,
        pos: &Position<B>,
        moves: &MoveList,
        tt_move: Option<Move>,
        ply: usize,
        keys: &'k mut KeyBuffer,
    ) -> Picker<'k> {
        let side = pos.side_to_move().index();
        let killers = self.killers.get(ply).copied().unwrap_or([None; 2]);
        let score = |mv: Move| -> i64 {
            if Some(mv) == tt_move {
                return TT_MOVE;
            }
            if let Some(victim) = pos.piece_at(mv.to()) {
                let attacker = mv.from().and_then(|from| pos.piece_at(from));
                let attacker = attacker.map_or(0, |p| VALUE[p.kind.index()]);
                return CAPTURE + VALUE[victim.kind.index()] as i64 * 4096 - attacker as i64;
            }
            if Some(mv) == killers[0] {
                return KILLER + 1;
            }
            if Some(mv) == killers[1] {
                return KILLER;
            }
            self.history[side][origin(mv)][mv.to().index()] as i64
        };
        // Scores lie in 0..=TT_MOVE: best first is the ascending order of TT_MOVE - score.
        Picker::new(keys, moves, |mv| {
            ((TT_MOVE - score(mv)) as u64) << 16 | mv.raw() as u64
        })
    }

    /// Quiescence's moves: the TT move first, then most valuable victim, least valuable
    /// attacker, canonical key.
    pub fn order_captures<'k, B: Backend>(
        pos: &Position<B>,
        moves: &MoveList,
        tt_move: Option<Move>,
        keys: &'k mut KeyBuffer,
    ) -> Picker<'k> {
        // (not the TT move, the largest value - victim, attacker, key), each in its own bits.
        Picker::new(keys, moves, |mv| {
            let victim = pos.piece_at(mv.to()).map_or(0, |p| VALUE[p.kind.index()]);
            let attacker = mv.from().and_then(|from| pos.piece_at(from));
            let attacker = attacker.map_or(0, |p| VALUE[p.kind.index()]);
            ((Some(mv) != tt_move) as u64) << 40
                | ((VALUE_LIMIT - 1 - victim) as u64) << 28
                | (attacker as u64) << 16
                | mv.raw() as u64
        })
    }

    /// A quiet move that caused a beta cutoff at `ply`, `depth` plies from the horizon.
    pub fn reward<B: Backend>(&mut self, pos: &Position<B>, mv: Move, ply: usize, depth: i32) {
        if let Some(killers) = self.killers.get_mut(ply) {
            if killers[0] != Some(mv) {
                killers[1] = killers[0];
                killers[0] = Some(mv);
            }
        }
        let side = pos.side_to_move().index();
        let entry = &mut self.history[side][origin(mv)][mv.to().index()];
        *entry = (*entry + depth * depth).min(1 << 20);
    }
}

/// Piece values fit in 12 bits, as the capture key packs them.
const VALUE_LIMIT: i32 = 1 << 12;
const _: () = {
    let mut kind = 0;
    while kind < VALUE.len() {
        assert!(VALUE[kind] >= 0 && VALUE[kind] < VALUE_LIMIT);
        kind += 1;
    }
};

/// Moves handed out best first. Each move's key is computed once, up front (sorting by a key
/// function called in every comparison was most of a material-only search's instructions); the
/// first moves are then picked one at a time, as engines do, since most nodes that cut off do
/// so on one of them, and a node that goes on sorts what is left. The order is the keys'
/// ascending order whichever way it is produced, since keys are distinct.
pub struct Picker<'k> {
    /// Each key holds the move's 16-bit encoding in its low 16 bits, so the move is read back
    /// from its key.
    keys: &'k mut [u64],
    next: usize,
}

/// A move list's capacity: a picker holds a key for every move of any `MoveList`.
const MOVE_CAPACITY: usize = MoveList::CAPACITY;

/// Moves picked one at a time (a scan of the rest each) before the rest is sorted.
const PICKS_BEFORE_SORT: usize = 3;

/// Room for a node's move keys, declared where the moves are searched: a picker that owned
/// it was copied (4.8 KB) on its way out of the ordering function.
pub struct KeyBuffer([MaybeUninit<u64>; MOVE_CAPACITY]);

impl KeyBuffer {
    /// Uninitialised: zeroing 4.8 KB at every node cost more than ordering the moves.
    #[inline(always)]
    pub fn new() -> KeyBuffer {
        KeyBuffer([MaybeUninit::uninit(); MOVE_CAPACITY])
    }
}

impl Default for KeyBuffer {
    fn default() -> KeyBuffer {
        KeyBuffer::new()
    }
}

impl<'k> Picker<'k> {
    #[inline(always)]
    fn new(buffer: &'k mut KeyBuffer, moves: &MoveList, key: impl Fn(Move) -> u64) -> Picker<'k> {
        let len = moves.len();
        for (slot, &mv) in buffer.0.iter_mut().zip(moves.iter()) {
            slot.write(key(mv));
        }
        let written = &mut buffer.0[..len];
        // SAFETY: the loop above wrote the first `len` slots (`len` is at most the buffer's
        // length, which is `MoveList`'s capacity), and `MaybeUninit<u64>` has
        // `u64`'s layout.
        let keys = unsafe { &mut *(written as *mut [MaybeUninit<u64>] as *mut [u64]) };
        Picker { keys, next: 0 }
    }

    /// The next best move, `None` after the last.
    #[inline]
    #[allow(clippy::should_implement_trait)] // an iterator would be moved into the loop
    pub fn next(&mut self) -> Option<Move> {
        let next = self.next;
        let keys = &mut *self.keys;
        if next == keys.len() {
            return None;
        }
        match next.cmp(&PICKS_BEFORE_SORT) {
            std::cmp::Ordering::Less => {
                let mut best = next;
                for index in next + 1..keys.len() {
                    if keys[index] < keys[best] {
                        best = index;
                    }
                }
                keys.swap(next, best);
            }
            std::cmp::Ordering::Equal => keys[next..].sort_unstable(),
            std::cmp::Ordering::Greater => {}
        }
        self.next += 1;
        Some(Move::from_raw(keys[next] as u16).expect("a key's low 16 bits are a move's encoding"))
    }
}

/// A move's origin: its square, or 81 + the dropped kind's hand index.
#[inline(always)]
fn origin(mv: Move) -> usize {
    ((mv.raw() >> 7) & 0x7F) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiki_core::reference::Reference;
    use rand::{RngExt, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// The orders as first written: a comparison sort on the score tuples. The pickers must
    /// hand the moves out in exactly these orders (the search's fingerprints depend on the order).
    fn by_tuples(
        heuristics: &Heuristics,
        pos: &Position<Reference>,
        moves: &mut [Move],
        tt_move: Option<Move>,
        ply: usize,
    ) {
        let side = pos.side_to_move().index();
        let killers = heuristics.killers[ply];
        let value = |sq| pos.piece_at(sq).map_or(0, |p| VALUE[p.kind.index()]);
        let attacker = |mv: Move| mv.from().map_or(0, value);
        moves.sort_unstable_by_key(|&mv| {
            let score = if Some(mv) == tt_move {
                TT_MOVE
            } else if pos.piece_at(mv.to()).is_some() {
                CAPTURE + value(mv.to()) as i64 * 4096 - attacker(mv) as i64
            } else if Some(mv) == killers[0] {
                KILLER + 1
            } else if Some(mv) == killers[1] {
                KILLER
            } else {
                heuristics.history[side][origin(mv)][mv.to().index()] as i64
            };
            (std::cmp::Reverse(score), mv.raw())
        });
    }

    #[test]
    fn pickers_order_as_the_score_tuples() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let (mut positions, mut in_check) = (0, 0);
        // Capture lists with the TT move in them, and long enough to be sorted after the picks.
        let (mut tt_in_captures, mut sorted_captures) = (0, 0);
        for _game in 0..40 {
            let mut pos = Position::startpos(Reference);
            let mut heuristics = Heuristics::default();
            for ply in 0..120 {
                let mut moves = MoveList::new();
                pos.legal_moves(&mut moves);
                if moves.is_empty() {
                    break;
                }
                let pick = |rng: &mut Xoshiro256PlusPlus| moves[rng.random_range(0..moves.len())];
                for _ in 0..3 {
                    let mv = pick(&mut rng);
                    heuristics.reward(&pos, mv, ply % MAX_PLY, rng.random_range(1..9));
                }
                let tt_move = rng.random_bool(0.5).then(|| pick(&mut rng));
                let mut tuples = moves.as_slice().to_vec();
                let mut keys = KeyBuffer::new();
                let mut picker = heuristics.order(&pos, &moves, tt_move, ply % MAX_PLY, &mut keys);
                let packed: Vec<Move> = std::iter::from_fn(|| picker.next()).collect();
                by_tuples(&heuristics, &pos, &mut tuples, tt_move, ply % MAX_PLY);
                assert_eq!(packed, tuples, "{pos:?}");

                // Quiescence's order, on its own moves (quiet evasions in check included).
                let mut captures = MoveList::new();
                pos.legal_captures(&mut captures);
                let mut keys = KeyBuffer::new();
                tt_in_captures += tt_move.is_some_and(|mv| captures.contains(mv)) as usize;
                sorted_captures += (captures.len() > PICKS_BEFORE_SORT) as usize;
                let mut picker = Heuristics::order_captures(&pos, &captures, tt_move, &mut keys);
                let packed: Vec<Move> = std::iter::from_fn(|| picker.next()).collect();
                let value = |sq| pos.piece_at(sq).map_or(0, |p| VALUE[p.kind.index()]);
                captures.as_mut_slice().sort_unstable_by_key(|&mv| {
                    (
                        Some(mv) != tt_move,
                        std::cmp::Reverse(value(mv.to())),
                        mv.from().map_or(0, value),
                        mv.raw(),
                    )
                });
                assert_eq!(packed, captures.as_slice(), "{pos:?}");
                positions += 1;
                in_check += pos.in_check() as usize;
                pos.do_move(pick(&mut rng));
            }
        }
        assert!(
            positions > 2_000 && in_check > 20 && tt_in_captures > 20 && sorted_captures > 20,
            "{positions} positions, {in_check} in check, {tt_in_captures} capture lists with \
             the TT move, {sorted_captures} longer than the picks"
        );
    }

    /// The picker alone: random distinct keys over lists of 0 to 10 moves (either side of
    /// the picks) come out in ascending order, each move once.
    #[test]
    fn a_picker_hands_out_every_move_once_in_key_order() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
        let mut moves = MoveList::new();
        Position::startpos(Reference).legal_moves(&mut moves);
        for trial in 0..2_000 {
            let len = trial % 11;
            let mut list = MoveList::new();
            for &mv in &moves.as_slice()[..len] {
                list.push(mv);
            }
            let high: Vec<u64> = (0..len).map(|_| rng.random_range(0..1u64 << 20)).collect();
            let key = |mv: Move| {
                let index = list.iter().position(|&m| m == mv).expect("a listed move");
                high[index] << 16 | mv.raw() as u64
            };
            let mut expected: Vec<Move> = list.as_slice().to_vec();
            expected.sort_unstable_by_key(|&mv| key(mv));
            let mut keys = KeyBuffer::new();
            let mut picker = Picker::new(&mut keys, &list, key);
            let got: Vec<Move> = std::iter::from_fn(|| picker.next()).collect();
            assert_eq!(got, expected, "{len} moves");
        }
    }
}
