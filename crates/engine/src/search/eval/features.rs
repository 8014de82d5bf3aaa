//! BonaPiece features (YaneuraOu's numbering, shared by the NNUE and KPP evaluations): which
//! feature each non-king piece of a position is, and which features a move removes and adds.
//!
//! Features are numbered from Black's point of view; White's view of the same piece is
//! [`flip`]ped (colours swapped, the board turned 180°), so both views come from one list.

use crate::hands::HandLayout;
use crate::position::{Move, Piece, PieceKind, Position};
use kiki_core::backend::Backend;
use kiki_core::types::{Color, Square};

/// Hand features end here (YaneuraOu's `fe_hand_end`).
pub const HAND_END: usize = 90;
/// Every feature, hand and board (YaneuraOu's `fe_old_end`).
pub const FEATURE_COUNT: usize = 1548;
/// At most this many features are active (every piece but the kings).
pub const MAX_ACTIVE: usize = 38;

/// First hand feature of each hand kind (hand-index order P L N S B R G), `[own, opponent's]`:
/// YaneuraOu's `f_hand_*` / `e_hand_*`. The `n`-th piece in hand (from 0) is `base + n`.
const HAND_BASE: [[u16; 2]; 7] = [
    [1, 20],
    [39, 44],
    [49, 54],
    [59, 64],
    [79, 82],
    [85, 88],
    [69, 74],
];

/// Board feature slot of each piece kind (golds and the promoted minors share one), in
/// YaneuraOu's order: pawn, lance, knight, silver, gold, bishop, horse, rook, dragon.
const BOARD_SLOT: [u16; PieceKind::COUNT] = [0, 1, 2, 3, 5, 7, 4, 0, 4, 4, 4, 4, 6, 8];

/// One feature index (`< FEATURE_COUNT`).
pub type Feature = u16;

/// The feature of `piece` on `sq`, from Black's point of view. Not for kings.
#[inline(always)]
pub fn board_feature(piece: Piece, sq: Square) -> Feature {
    let slot = BOARD_SLOT[piece.kind.index()];
    HAND_END as u16 + (slot * 2 + piece.color.index() as u16) * 81 + sq.index() as u16
}

/// The feature of the `nth` (from 0) `kind` in `owner`'s hand, from Black's point of view.
#[inline(always)]
pub fn hand_feature(owner: Color, kind: PieceKind, nth: u8) -> Feature {
    let hand_index = kind.hand_index().unwrap_or(0);
    HAND_BASE[hand_index][owner.index()] + nth as u16
}

/// The same piece seen from White: colours swapped, the square turned 180°.
pub fn flip(feature: Feature) -> Feature {
    FLIP[feature as usize]
}

static FLIP: [Feature; FEATURE_COUNT] = flip_table();

const fn flip_table() -> [Feature; FEATURE_COUNT] {
    let mut table = [0; FEATURE_COUNT];
    let mut f = 0;
    while f < FEATURE_COUNT {
        table[f] = if f < HAND_END {
            let mut flipped = f as u16;
            let mut k = 0;
            while k < 7 {
                let [own, theirs] = HAND_BASE[k];
                let len = PieceKind::HAND_MAX[k] as u16;
                if f as u16 >= own && (f as u16) < own + len {
                    flipped = theirs + (f as u16 - own);
                } else if f as u16 >= theirs && (f as u16) < theirs + len {
                    flipped = own + (f as u16 - theirs);
                }
                k += 1;
            }
            flipped
        } else {
            let board = f - HAND_END;
            let (pair, sq) = (board / 81, board % 81);
            let (slot, color) = (pair / 2, pair % 2);
            (HAND_END + (slot * 2 + (1 - color)) * 81 + (80 - sq)) as u16
        };
        f += 1;
    }
    table
}

/// The active features of a position, from Black's point of view, in a fixed order (board
/// squares ascending, then hands): the list the incremental updates edit in place.
#[derive(Clone, Copy, Debug)]
pub struct FeatureList {
    pub features: [Feature; MAX_ACTIVE],
    pub len: usize,
}

impl FeatureList {
    pub fn of<B: Backend>(pos: &Position<B>) -> FeatureList {
        let mut list = FeatureList {
            features: [0; MAX_ACTIVE],
            len: 0,
        };
        for sq in Square::all() {
            if let Some(piece) = pos.piece_at(sq) {
                if piece.kind != PieceKind::King {
                    list.push(board_feature(piece, sq));
                }
            }
        }
        for owner in Color::BOTH {
            for kind in PieceKind::HAND {
                for nth in 0..pos.hand(owner).count(kind) {
                    list.push(hand_feature(owner, kind, nth));
                }
            }
        }
        list
    }

    fn push(&mut self, feature: Feature) {
        if self.len < MAX_ACTIVE {
            self.features[self.len] = feature;
            self.len += 1;
        }
    }

    pub fn as_slice(&self) -> &[Feature] {
        &self.features[..self.len]
    }

    /// Applies `change`: each removed feature's slot takes the added one in its place.
    pub fn apply(&mut self, change: &Change) {
        for (&removed, &added) in change.removed().iter().zip(change.added()) {
            if let Some(slot) = self.as_slice().iter().position(|&f| f == removed) {
                self.features[slot] = added;
            }
        }
    }
}

/// What one move does to the features (Black's point of view): up to two removed and two
/// added (the moved piece, and a capture's victim going to hand), and whose king moved.
#[derive(Clone, Copy, Debug, Default)]
pub struct Change {
    removed: [Feature; 2],
    added: [Feature; 2],
    len: usize,
    /// The colour whose king moved: its view is rebuilt, not updated.
    pub king_moved: Option<Color>,
}

impl Change {
    /// The change `mv` makes in `pos` (before it is made; `mv` must be legal there).
    pub fn of<B: Backend>(pos: &Position<B>, mv: Move) -> Change {
        let us = pos.side_to_move();
        let mut change = Change::default();
        let to = mv.to();
        match mv.from() {
            None => {
                let kind = mv.drop_kind().unwrap_or(PieceKind::Pawn);
                let nth = pos.hand(us).count(kind).saturating_sub(1);
                change.push(
                    hand_feature(us, kind, nth),
                    board_feature(Piece::new(us, kind), to),
                );
            }
            Some(from) => {
                let Some(piece) = pos.piece_at(from) else {
                    return change;
                };
                if piece.kind == PieceKind::King {
                    change.king_moved = Some(us);
                } else {
                    let moved = if mv.is_promotion() {
                        Piece::new(us, piece.kind.promoted())
                    } else {
                        piece
                    };
                    change.push(board_feature(piece, from), board_feature(moved, to));
                }
                if let Some(victim) = pos.piece_at(to) {
                    let kind = victim.kind.unpromoted();
                    if kind != PieceKind::King {
                        let nth = pos.hand(us).count(kind);
                        change.push(board_feature(victim, to), hand_feature(us, kind, nth));
                    }
                }
            }
        }
        change
    }

    fn push(&mut self, removed: Feature, added: Feature) {
        self.removed[self.len] = removed;
        self.added[self.len] = added;
        self.len += 1;
    }

    pub fn removed(&self) -> &[Feature] {
        &self.removed[..self.len]
    }

    pub fn added(&self) -> &[Feature] {
        &self.added[..self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flip_is_an_involution_onto_every_feature() {
        let mut seen = vec![false; FEATURE_COUNT];
        for f in 0..FEATURE_COUNT as u16 {
            assert_eq!(flip(flip(f)), f);
            seen[flip(f) as usize] = true;
        }
        // Feature 0 and the unused slots after each hand range map to themselves.
        assert!(seen.iter().all(|&s| s));
        let corner = Square::new(80).unwrap();
        let dragon = |color| board_feature(Piece::new(color, PieceKind::Dragon), corner);
        assert_eq!(dragon(Color::White) as usize, FEATURE_COUNT - 1);
        assert_eq!(flip(dragon(Color::Black)), HAND_END as u16 + 17 * 81);
        assert_eq!(flip(hand_feature(Color::Black, PieceKind::Rook, 1)), 89);
    }
}
