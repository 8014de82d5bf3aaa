//! The fourth competitor: no ray walking at all — the sliders whose lines pass through a
//! changed square are found with the backend's own attacks, their attack sets are recomputed
//! before and after the occupancy change, and the difference is applied to the counts.
//!
//! Generic over any `Backend` (through the trait only); `kiki effects` runs it on `qugiy`,
//! the fastest table-free backend. Counts are kept per canonical square.

use super::{code_piece, make_move, piece_code, unmake_move, CellEdits, EffectTracker, EMPTY};
use crate::position::{Move, Piece, PieceKind};
use kiki_core::backend::{Backend, Bitboard};
use kiki_core::types::{Color, Square};

/// At most one slider stands first in each of the eight directions from a square.
const MOST_AFFECTED: usize = 8;

/// Effect counts updated from bitboard attack differences.
#[derive(Clone)]
pub struct BitboardEffects<B: Backend> {
    backend: B,
    occupancy: B::Occupancy,
    /// Piece codes per canonical square.
    board: [u8; 81],
    /// Rooks and dragons, bishops and horses, lances of each colour (both colours mixed
    /// where the line is symmetric).
    rook_movers: B::Bitboard,
    bishop_movers: B::Bitboard,
    lances: [B::Bitboard; 2],
    /// `[colour][canonical square]`.
    counts: [[u8; 81]; 2],
    side: Color,
}

impl<B: Backend> BitboardEffects<B> {
    /// Every square the piece `code` on `sq` attacks under the current occupancy.
    #[inline(always)]
    fn attacks(&self, code: u8, sq: Square) -> B::Bitboard {
        let Some(piece) = code_piece(code) else {
            return B::Bitboard::empty();
        };
        let b = &self.backend;
        let occ = &self.occupancy;
        let color = piece.color;
        match piece.kind {
            PieceKind::Pawn => b.pawn_attacks(color, sq),
            PieceKind::Lance => b.lance_attacks(color, occ, sq),
            PieceKind::Knight => b.knight_attacks(color, sq),
            PieceKind::Silver => b.silver_attacks(color, sq),
            PieceKind::Bishop => b.bishop_attacks(occ, sq),
            PieceKind::Rook => b.rook_attacks(occ, sq),
            PieceKind::King => b.king_attacks(sq),
            PieceKind::Horse => b.horse_attacks(occ, sq),
            PieceKind::Dragon => b.dragon_attacks(occ, sq),
            _ => b.gold_attacks(color, sq),
        }
    }

    /// Adds `delta` to the counts of `color` on every square of `squares`.
    #[inline(always)]
    fn add(&mut self, color: usize, squares: B::Bitboard, delta: u8) {
        let counts = &mut self.counts[color];
        for sq in squares.squares() {
            counts[sq.index()] = counts[sq.index()].wrapping_add(delta);
        }
    }

    /// Updates the slider sets for `code` appearing or vanishing on `sq`.
    #[inline(always)]
    fn toggle_slider(&mut self, code: u8, sq: Square) {
        let Some(piece) = code_piece(code) else {
            return;
        };
        let mask = B::Bitboard::square(sq);
        match piece.kind {
            PieceKind::Rook | PieceKind::Dragon => self.rook_movers ^= mask,
            PieceKind::Bishop | PieceKind::Horse => self.bishop_movers ^= mask,
            PieceKind::Lance => self.lances[piece.color.index()] ^= mask,
            _ => {}
        }
    }

    /// The sliders (square, code) whose attack set contains `sq` now.
    #[inline(always)]
    fn sliders_seeing(&self, sq: Square) -> ([(Square, u8); MOST_AFFECTED], usize) {
        let b = &self.backend;
        let occ = &self.occupancy;
        // A black lance sees `sq` from below: the squares a white lance on `sq` would attack.
        let seeing = (b.rook_attacks(occ, sq) & self.rook_movers)
            | (b.bishop_attacks(occ, sq) & self.bishop_movers)
            | (b.lance_attacks(Color::White, occ, sq) & self.lances[Color::Black.index()])
            | (b.lance_attacks(Color::Black, occ, sq) & self.lances[Color::White.index()]);
        let mut found = [(sq, EMPTY); MOST_AFFECTED];
        let mut count = 0;
        for slider in seeing.squares() {
            if count < MOST_AFFECTED {
                found[count] = (slider, self.board[slider.index()]);
                count += 1;
            }
        }
        (found, count)
    }

    /// Changes the occupancy of `sq` (`occupy` true: set) and applies, for every slider that
    /// saw `sq`, the difference between its attacks after and before.
    #[inline(always)]
    fn change_occupancy(&mut self, sq: Square, occupy: bool) {
        let (sliders, count) = self.sliders_seeing(sq);
        let mut before = [B::Bitboard::empty(); MOST_AFFECTED];
        for i in 0..count {
            before[i] = self.attacks(sliders[i].1, sliders[i].0);
        }
        if occupy {
            self.backend.set_square(&mut self.occupancy, sq);
        } else {
            self.backend.clear_square(&mut self.occupancy, sq);
        }
        for i in 0..count {
            let (slider, code) = sliders[i];
            let after = self.attacks(code, slider);
            let color = code_piece(code).map_or(0, |p| p.color.index());
            self.add(color, after.and_not(before[i]), 1);
            self.add(color, before[i].and_not(after), 0xFF);
        }
    }

    fn own_effects(&mut self, sq: Square, code: u8, delta: u8) {
        let color = code_piece(code).map_or(0, |p| p.color.index());
        let attacks = self.attacks(code, sq);
        self.add(color, attacks, delta);
    }
}

impl<B: Backend> CellEdits for BitboardEffects<B> {
    fn lift(&mut self, sq: Square) -> u8 {
        let code = self.board[sq.index()];
        self.own_effects(sq, code, 0xFF);
        self.toggle_slider(code, sq);
        self.board[sq.index()] = EMPTY;
        self.change_occupancy(sq, false);
        code
    }

    fn place(&mut self, sq: Square, code: u8) {
        self.change_occupancy(sq, true);
        self.board[sq.index()] = code;
        self.toggle_slider(code, sq);
        self.own_effects(sq, code, 1);
    }

    fn swap(&mut self, sq: Square, code: u8) -> u8 {
        let old = self.board[sq.index()];
        self.own_effects(sq, old, 0xFF);
        self.toggle_slider(old, sq);
        self.board[sq.index()] = code;
        self.toggle_slider(code, sq);
        self.own_effects(sq, code, 1);
        old
    }

    #[inline(always)]
    fn code_at(&self, sq: Square) -> u8 {
        self.board[sq.index()]
    }

    #[inline(always)]
    fn side_mut(&mut self) -> &mut Color {
        &mut self.side
    }
}

impl<B: Backend> EffectTracker for BitboardEffects<B> {
    fn name() -> &'static str {
        // One competitor per backend; the name says which.
        match B::info().name {
            "qugiy" => "bitboard-qugiy",
            "reference" => "bitboard-reference",
            _ => "bitboard",
        }
    }
    fn layout() -> &'static str {
        "81 canonical counts; sliders through the changed square found and recomputed with \
         the backend's attacks, the before/after difference applied"
    }

    fn from_board(board: &[Option<Piece>; 81], side: Color) -> Result<Self, String> {
        let backend = B::new()?;
        let mut effects = BitboardEffects {
            occupancy: backend.occupancy(0),
            backend,
            board: [EMPTY; 81],
            rook_movers: B::Bitboard::empty(),
            bishop_movers: B::Bitboard::empty(),
            lances: [B::Bitboard::empty(); 2],
            counts: [[0; 81]; 2],
            side,
        };
        for sq in Square::all() {
            if let Some(piece) = board[sq.index()] {
                effects.place(sq, piece_code(piece));
            }
        }
        Ok(effects)
    }

    #[inline]
    fn do_move(&mut self, mv: Move) -> Option<Piece> {
        make_move(self, mv)
    }

    #[inline]
    fn undo_move(&mut self, mv: Move, captured: Option<Piece>) {
        unmake_move(self, mv, captured)
    }

    #[inline(always)]
    fn effect(&self, color: Color, sq: Square) -> u8 {
        self.counts[color.index()][sq.index()]
    }

    fn piece_at(&self, sq: Square) -> Option<Piece> {
        code_piece(self.board[sq.index()])
    }
}
