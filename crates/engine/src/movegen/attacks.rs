//! Attacks on a square: what a piece attacks, the attackers of a square, checkers, and the
//! pieces that alone block a slider's line to a king.

use crate::position::{at, Piece, PieceKind, Position};
use kiki_core::backend::{Backend, Bitboard};
use kiki_core::types::{Color, Square};

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

    /// Whether `by` attacks `sq` under `occupancy` (cheap step kinds first, early exit). A
    /// slider kind is looked up only when one of its pieces stands on its empty-board rays
    /// from `sq`, which most squares' tests rule out with one table read.
    #[inline(always)]
    pub fn is_attacked_with(&self, sq: Square, by: Color, occupancy: &B::Occupancy) -> bool {
        if self.step_attackers(sq, by).is_nonempty() {
            return true;
        }
        let b = &self.backend;
        let t = self.tables;
        let k = &self.by_kind;
        let theirs = self.by_color[by.index()];
        let rooks = (k[PieceKind::Rook.index()] | k[PieceKind::Dragon.index()]) & theirs;
        if (at(&t.rook_rays, sq) & rooks).is_nonempty()
            && (b.rook_attacks(occupancy, sq) & rooks).is_nonempty()
        {
            return true;
        }
        let bishops = (k[PieceKind::Bishop.index()] | k[PieceKind::Horse.index()]) & theirs;
        if (at(&t.bishop_rays, sq) & bishops).is_nonempty()
            && (b.bishop_attacks(occupancy, sq) & bishops).is_nonempty()
        {
            return true;
        }
        let lances = k[PieceKind::Lance.index()] & theirs;
        (at(&t.lance_rays[by.flip().index()], sq) & lances).is_nonempty()
            && (b.lance_attacks(by.flip(), occupancy, sq) & lances).is_nonempty()
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
    pub(super) fn blockers(
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
}
