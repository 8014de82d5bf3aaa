//! Checks: whether a move gives check (precomputed check squares and discoverers, no make),
//! and the legal moves that give check.

use super::buffer::MoveBuffer;
use super::GOLD_MOVERS;
use crate::position::{at, Move, PieceKind, Position};
use kiki_core::backend::{Backend, Bitboard};
use kiki_core::types::Square;

/// What decides whether a move gives check: for each kind (after the move), the squares from
/// which it would attack the enemy king, and our pieces whose moving off the line uncovers a
/// slider on that king.
pub struct CheckInfo<B: Backend> {
    king: Square,
    squares: [B::Bitboard; PieceKind::COUNT],
    discoverers: B::Bitboard,
}

impl<B: Backend> Position<B> {
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
