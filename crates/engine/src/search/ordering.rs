//! Move ordering: the TT move, captures by most valuable victim then least valuable attacker,
//! two killers per ply, then quiet moves by history. Every tie breaks by the move's canonical
//! key (its 16-bit encoding, the same on every backend), so the order never depends on the
//! order a backend's bit layout produced the moves in.

use super::material::VALUE;
use crate::position::{Move, Position};
use kiki_core::backend::Backend;

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
    /// Sorts `moves` best first: by score, then by canonical key.
    pub fn order<B: Backend>(
        &self,
        pos: &Position<B>,
        moves: &mut [Move],
        tt_move: Option<Move>,
        ply: usize,
    ) {
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
        moves.sort_unstable_by_key(|&mv| (std::cmp::Reverse(score(mv)), mv.raw()));
    }

    /// Quiescence's moves: the TT move first, then most valuable victim, least valuable
    /// attacker, canonical key.
    pub fn order_captures<B: Backend>(
        pos: &Position<B>,
        moves: &mut [Move],
        tt_move: Option<Move>,
    ) {
        let key = |mv: Move| {
            let victim = pos.piece_at(mv.to()).map_or(0, |p| VALUE[p.kind.index()]);
            let attacker = mv.from().and_then(|from| pos.piece_at(from));
            let attacker = attacker.map_or(0, |p| VALUE[p.kind.index()]);
            (
                Some(mv) != tt_move,
                std::cmp::Reverse(victim),
                attacker,
                mv.raw(),
            )
        };
        moves.sort_unstable_by_key(|&mv| key(mv));
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

/// A move's origin: its square, or 81 + the dropped kind's hand index.
#[inline(always)]
fn origin(mv: Move) -> usize {
    ((mv.raw() >> 7) & 0x7F) as usize
}
