//! A shogi position over any backend: the `Position` struct, its accessors and its display.
//!
//! Beside it: SFEN in and out (`sfen`), make/unmake (`make`), the Zobrist keys (`zobrist`) and
//! the per-backend tables (`tables`). Pieces and moves are vocabulary (`kiki_core::types`),
//! re-exported here under their old paths.

mod king_safety;
mod make;
mod sfen;
mod tables;
mod zobrist;

pub use kiki_core::types::{parse_usi_syntax, Move, Piece, PieceKind};
pub use king_safety::{KingSafety, Method};
pub use make::Undo;
pub use sfen::{SfenError, START_SFEN};
pub use tables::Tables;
pub use zobrist::Zobrist;

use crate::hands::HandLayout;
use kiki_core::backend::{Backend, Bitboard};
use kiki_core::types::{Color, Square};
use std::fmt;

/// Reads `table[sq]` without a bounds check.
#[inline(always)]
pub(crate) fn at<T: Copy>(table: &[T; 81], sq: Square) -> T {
    // SAFETY: `Square` is always < 81 (its invariant), the array's length.
    unsafe { *table.get_unchecked(sq.index()) }
}

/// The hand layout positions store (`crate::hands`); chosen by measuring perft.
pub type Hand = crate::hands::ByteHand;

/// A shogi position over backend `B`.
#[derive(Clone)]
pub struct Position<B: Backend> {
    pub(crate) backend: B,
    pub(crate) tables: &'static Tables<B>,
    zobrist: &'static Zobrist,
    pub(crate) board: [Option<Piece>; 81],
    pub(crate) by_color: [B::Bitboard; 2],
    pub(crate) by_kind: [B::Bitboard; PieceKind::COUNT],
    pub(crate) occupancy: B::Occupancy,
    /// `[colour]`, in the layout measured fastest for perft (README, "Hands").
    pub(crate) hands: [Hand; 2],
    pub(crate) kings: [Option<Square>; 2],
    pub(crate) side: Color,
    move_number: u32,
    key: u64,
    /// How king safety is decided (king moves in `movegen`, flight squares in `mate1`).
    pub(crate) king_safety: KingSafety,
}

impl<B: Backend> fmt::Debug for Position<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", self.to_sfen())
    }
}

impl<B: Backend> fmt::Display for Position<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let board = kiki_core::types::draw_board(|sq| match self.board[sq.index()] {
            None => '.',
            Some(p) => {
                let c = if p.kind.is_promoted() {
                    // One character per square: t = tokin, h = horse, d = dragon, o = other
                    // promoted minor.
                    match p.kind {
                        PieceKind::ProPawn => 't',
                        PieceKind::Horse => 'h',
                        PieceKind::Dragon => 'd',
                        _ => 'o',
                    }
                } else {
                    p.kind.letter().to_ascii_lowercase()
                };
                if p.color == Color::Black {
                    c.to_ascii_uppercase()
                } else {
                    c
                }
            }
        });
        write!(f, "{board}{}", self.to_sfen())
    }
}

impl<B: Backend> Position<B> {
    fn empty(backend: B) -> Position<B> {
        Position {
            occupancy: backend.occupancy(0),
            backend,
            tables: Tables::<B>::get(),
            zobrist: zobrist::keys(),
            board: [None; 81],
            by_color: [B::Bitboard::empty(); 2],
            by_kind: [B::Bitboard::empty(); PieceKind::COUNT],
            hands: [Hand::EMPTY; 2],
            kings: [None; 2],
            side: Color::Black,
            move_number: 1,
            key: 0,
            king_safety: KingSafety::PerSquare,
        }
    }

    // ---- accessors ----

    /// How king moves and flight squares are tested from now on (the position's moves and
    /// counts do not change; only the speed does).
    pub fn set_king_safety(&mut self, king_safety: KingSafety) {
        self.king_safety = king_safety;
    }
    #[inline(always)]
    pub fn king_safety(&self) -> KingSafety {
        self.king_safety
    }

    #[inline(always)]
    pub fn backend(&self) -> &B {
        &self.backend
    }
    #[inline(always)]
    pub fn tables(&self) -> &'static Tables<B> {
        self.tables
    }
    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side
    }
    #[inline(always)]
    pub fn move_number(&self) -> u32 {
        self.move_number
    }
    #[inline(always)]
    pub fn key(&self) -> u64 {
        self.key
    }
    /// The key recomputed from scratch (tests compare it with the incremental one).
    pub fn key_from_scratch(&self) -> u64 {
        self.compute_key()
    }
    #[inline(always)]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        at(&self.board, sq)
    }
    #[inline(always)]
    pub fn king_square(&self, color: Color) -> Option<Square> {
        self.kings[color.index()]
    }
    /// `color`'s hand (counts, `has`, superiority: `crate::hands::HandLayout`).
    #[inline(always)]
    pub fn hand(&self, color: Color) -> Hand {
        self.hands[color.index()]
    }
    /// How many of a hand kind `color` holds (0 for kinds that cannot be in hand).
    #[inline(always)]
    pub fn hand_count(&self, color: Color, kind: PieceKind) -> u8 {
        kind.hand_index()
            .map_or(0, |_| self.hands[color.index()].count(kind))
    }
    #[inline(always)]
    pub fn occupancy(&self) -> &B::Occupancy {
        &self.occupancy
    }
    #[inline(always)]
    pub fn color_bb(&self, color: Color) -> B::Bitboard {
        self.by_color[color.index()]
    }
    #[inline(always)]
    pub fn occupied(&self) -> B::Bitboard {
        self.by_color[0] | self.by_color[1]
    }
    #[inline(always)]
    pub fn kind_bb(&self, kind: PieceKind) -> B::Bitboard {
        self.by_kind[kind.index()]
    }
    #[inline(always)]
    pub fn pieces(&self, color: Color, kind: PieceKind) -> B::Bitboard {
        self.by_kind[kind.index()] & self.by_color[color.index()]
    }
    /// Gold and the four pieces that move like it once promoted.
    #[inline(always)]
    pub fn gold_movers(&self) -> B::Bitboard {
        self.by_kind[PieceKind::Gold.index()]
            | self.by_kind[PieceKind::ProPawn.index()]
            | self.by_kind[PieceKind::ProLance.index()]
            | self.by_kind[PieceKind::ProKnight.index()]
            | self.by_kind[PieceKind::ProSilver.index()]
    }

    // ---- incremental updates ----

    #[inline(always)]
    fn put_piece(&mut self, piece: Piece, sq: Square) {
        let mask = B::Bitboard::square(sq);
        self.board[sq.index()] = Some(piece);
        self.by_color[piece.color.index()] ^= mask;
        self.by_kind[piece.kind.index()] ^= mask;
        self.backend.set_square(&mut self.occupancy, sq);
        if piece.kind == PieceKind::King {
            self.kings[piece.color.index()] = Some(sq);
        }
    }
}
