//! Make and unmake: `do_move`, `undo_move` and the `Undo` that takes a move back.
//!
//! Make/unmake versus copy-make: `kiki perft --make unmake|copy` walks the same tree both ways
//! (the README's perft section has the figures). We use make/unmake (`do_move` / `undo_move`):
//! its cost stays a handful of incremental updates, while a copy grows with the backend's
//! occupancy (rotated backends keep several copies) on top of the ~600 B position.

use super::Position;
use crate::hands::HandLayout;
use kiki_core::backend::{Backend, Bitboard};
use kiki_core::types::{Move, Piece, PieceKind};

/// What `undo_move` needs to take a move back.
#[derive(Clone, Copy, Debug)]
pub struct Undo {
    captured: Option<Piece>,
    key: u64,
}

impl<B: Backend> Position<B> {
    /// Does the move, which must be legal (or at least pseudo-legal: a piece of the side to
    /// move on `from`, or the kind in hand), and returns what `undo_move` needs.
    #[inline]
    pub fn do_move(&mut self, mv: Move) -> Undo {
        self.make::<true>(mv)
    }

    /// `do_move` without the Zobrist key's update, for a caller that reads no key before the
    /// `undo_move` (perft's last ply's parents, which only count); `undo_move` restores it.
    #[inline]
    pub fn do_move_unkeyed(&mut self, mv: Move) -> Undo {
        self.make::<false>(mv)
    }

    #[inline(always)]
    fn make<const KEYED: bool>(&mut self, mv: Move) -> Undo {
        let us = self.side;
        let z = self.zobrist;
        let undo = Undo {
            captured: None,
            key: self.key,
        };
        let to = mv.to();
        let to_mask = B::Bitboard::square(to);
        let mut key = self.key ^ z.side;
        let captured = match mv.from() {
            None => {
                let kind = mv.drop_kind().unwrap_or(PieceKind::Pawn);
                let hand = &mut self.hands[us.index()];
                if KEYED {
                    key ^= z.hand[us.index()][kind.index()][(hand.count(kind) as usize).min(18)];
                }
                hand.remove(kind);
                if KEYED {
                    key ^= z.hand[us.index()][kind.index()][(hand.count(kind) as usize).min(18)];
                }
                let piece = Piece::new(us, kind);
                self.board[to.index()] = Some(piece);
                self.by_color[us.index()] ^= to_mask;
                self.by_kind[kind.index()] ^= to_mask;
                self.backend.set_square(&mut self.occupancy, to);
                if KEYED {
                    key ^= z.board[piece.index()][to.index()];
                }
                None
            }
            Some(from) => {
                let Some(piece) = self.board[from.index()] else {
                    // Not pseudo-legal: leave the position as it was.
                    return undo;
                };
                let from_mask = B::Bitboard::square(from);
                let captured = self.board[to.index()];
                if let Some(victim) = captured {
                    self.by_color[victim.color.index()] ^= to_mask;
                    self.by_kind[victim.kind.index()] ^= to_mask;
                    if KEYED {
                        key ^= z.board[victim.index()][to.index()];
                    }
                    if let Some(hand_index) = victim.kind.unpromoted().hand_index() {
                        let kind = PieceKind::HAND[hand_index];
                        let hand = &mut self.hands[us.index()];
                        if KEYED {
                            key ^=
                                z.hand[us.index()][hand_index][(hand.count(kind) as usize).min(18)];
                        }
                        hand.add(kind);
                        if KEYED {
                            key ^=
                                z.hand[us.index()][hand_index][(hand.count(kind) as usize).min(18)];
                        }
                    } else {
                        // A king "captured" in an illegal position: it just leaves the board.
                        self.kings[victim.color.index()] = None;
                    }
                } else {
                    self.backend.set_square(&mut self.occupancy, to);
                }
                self.backend.clear_square(&mut self.occupancy, from);
                let moved = if mv.is_promotion() {
                    Piece::new(us, piece.kind.promoted())
                } else {
                    piece
                };
                self.board[from.index()] = None;
                self.board[to.index()] = Some(moved);
                self.by_color[us.index()] ^= from_mask | to_mask;
                self.by_kind[piece.kind.index()] ^= from_mask;
                self.by_kind[moved.kind.index()] ^= to_mask;
                if KEYED {
                    key ^=
                        z.board[piece.index()][from.index()] ^ z.board[moved.index()][to.index()];
                }
                if piece.kind == PieceKind::King {
                    self.kings[us.index()] = Some(to);
                }
                captured
            }
        };
        if KEYED {
            self.key = key;
        }
        self.side = us.flip();
        self.move_number += 1;
        Undo { captured, ..undo }
    }

    /// Takes back `mv`, which must be the last move done, with the `Undo` it returned.
    #[inline]
    pub fn undo_move(&mut self, mv: Move, undo: Undo) {
        let us = self.side.flip();
        let to = mv.to();
        let to_mask = B::Bitboard::square(to);
        match mv.from() {
            None => {
                let kind = mv.drop_kind().unwrap_or(PieceKind::Pawn);
                self.hands[us.index()].add(kind);
                self.board[to.index()] = None;
                self.by_color[us.index()] ^= to_mask;
                self.by_kind[kind.index()] ^= to_mask;
                self.backend.clear_square(&mut self.occupancy, to);
            }
            Some(from) => {
                let Some(moved) = self.board[to.index()] else {
                    return;
                };
                if moved.color != us {
                    // `do_move` refused this move; nothing to take back.
                    return;
                }
                let from_mask = B::Bitboard::square(from);
                let piece = if mv.is_promotion() {
                    Piece::new(us, moved.kind.unpromoted())
                } else {
                    moved
                };
                self.board[from.index()] = Some(piece);
                self.board[to.index()] = undo.captured;
                self.by_color[us.index()] ^= from_mask | to_mask;
                self.by_kind[moved.kind.index()] ^= to_mask;
                self.by_kind[piece.kind.index()] ^= from_mask;
                self.backend.set_square(&mut self.occupancy, from);
                if piece.kind == PieceKind::King {
                    self.kings[us.index()] = Some(from);
                }
                match undo.captured {
                    Some(victim) => {
                        self.by_color[victim.color.index()] ^= to_mask;
                        self.by_kind[victim.kind.index()] ^= to_mask;
                        match victim.kind.unpromoted().hand_index() {
                            Some(hand_index) => {
                                self.hands[us.index()].remove(PieceKind::HAND[hand_index])
                            }
                            None => self.kings[victim.color.index()] = Some(to),
                        }
                    }
                    None => self.backend.clear_square(&mut self.occupancy, to),
                }
            }
        }
        self.key = undo.key;
        self.side = us;
        self.move_number -= 1;
    }

    /// Passes the turn (a search's null move): the side and the key change, nothing else.
    /// The caller must not be in check; `undo_null_move` takes it back.
    #[inline]
    pub fn do_null_move(&mut self) {
        self.key ^= self.zobrist.side;
        self.side = self.side.flip();
        self.move_number += 1;
    }

    /// Takes back `do_null_move`.
    #[inline]
    pub fn undo_null_move(&mut self) {
        self.do_null_move();
        self.move_number -= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiki_core::reference::Reference;

    #[test]
    fn make_unmake_restore_everything() {
        let mut pos = Position::startpos(Reference);
        for text in ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e"] {
            let mv = pos.parse_usi_move(text).unwrap();
            let before = pos.clone();
            let undo = pos.do_move(mv);
            assert_eq!(pos.key(), pos.key_from_scratch(), "{text}");
            let after_sfen = pos.to_sfen();
            pos.undo_move(mv, undo);
            assert_eq!(pos.to_sfen(), before.to_sfen());
            assert_eq!(pos.key(), before.key());
            assert_eq!(pos.occupancy(), before.occupancy());
            let undo = pos.do_move_unkeyed(mv);
            assert_eq!(pos.to_sfen(), after_sfen, "{text} unkeyed");
            assert_eq!(pos.key(), before.key(), "{text}: the key is left alone");
            pos.undo_move(mv, undo);
            assert_eq!(pos.to_sfen(), before.to_sfen());
            assert_eq!(pos.key(), before.key());
            pos.do_move(mv);
            assert_eq!(pos.to_sfen(), after_sfen);
        }
        assert_eq!(
            pos.to_sfen(),
            "lnsgkg1nl/1r5s1/pppppp1pp/6p2/5B3/2P6/PP1PPPPPP/7R1/LNSGKGSNL w b 6"
        );
    }
}
