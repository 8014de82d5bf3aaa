//! Effect boards (利き数): how many pieces of each colour attack each square, kept up to date
//! incrementally across make and unmake, with the long-range part walked ray by ray by one
//! of several interchangeable "ray steppers" (seed 001) or recomputed from bitboards.
//!
//! The board keeps its own mirror of the pieces (a byte code per cell, in the stepper's own
//! cell layout), so it depends on nothing inside `Position`: it is driven by `Move`s alone.
//! Every change is one of three operations, each of which keeps "counts = f(board)" true:
//!
//! * `lift(sq)`: the piece's own attacks are taken away, the cell is emptied, and every slider
//!   whose ray stopped on `sq` now sees past it (its ray is extended from `sq` outwards);
//! * `place(sq, piece)`: the reverse — rays through `sq` are cut, then the piece's own
//!   attacks are added;
//! * `swap(sq, piece)` (a capture, or its undo): the occupancy does not change, so only the
//!   two pieces' own attacks are exchanged.
//!
//! A board move is `lift(from)` then `place(to)` or `swap(to)`; a drop is `place(to)`; unmake
//! runs the inverse operations in reverse order. Because each operation is exact on its own,
//! from/to on one line, captures by sliders along their own ray and promotions need no
//! special case.

pub mod bitboard;
pub mod distance;
pub mod mailbox;
pub mod sqww;

use crate::position::{Move, Piece, PieceKind, Position};
use kiki_core::backend::Backend;
use kiki_core::types::{Color, Square};
use std::marker::PhantomData;
use std::sync::OnceLock;

pub use bitboard::BitboardEffects;
pub use distance::DistanceCheck;
pub use mailbox::PaddedMailbox;
pub use sqww::SquareWithWall;

/// Cells of a board in a stepper's own layout: piece codes, or per-colour effect counts.
/// 128 cells hold both the 81 canonical squares and the 11 × 11 padded board, and let every
/// stepper index with `& 127` so that no bounds check is left in its loop.
pub type Cells = [u8; CELLS];
pub const CELLS: usize = 128;
/// Index mask that keeps every cell index inside `Cells` (no bounds check in the walks).
pub const CELL_MASK: usize = CELLS - 1;

/// An empty cell.
pub const EMPTY: u8 = 0;
/// The sentinel of off-board cells (used only by the padded mailbox).
pub const WALL: u8 = 0xFF;

/// Byte code of a piece: `1 + colour × 14 + kind` (1–28); promotion adds 8, as in `PieceKind`.
#[inline(always)]
pub const fn piece_code(piece: Piece) -> u8 {
    1 + piece.index() as u8
}

/// The piece a code (1–28) stands for.
pub fn code_piece(code: u8) -> Option<Piece> {
    if (1..=28).contains(&code) {
        let index = (code - 1) as usize;
        let color = if index < PieceKind::COUNT {
            Color::Black
        } else {
            Color::White
        };
        Some(Piece::new(color, PieceKind::ALL[index % PieceKind::COUNT]))
    } else {
        None
    }
}

/// The eight ray directions, ordered so that the opposite of `d` is `7 - d`. "Right" is
/// towards file 1, "up" towards rank a (black's forward direction), as in seed 001.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub enum Direction {
    RightUp = 0,
    Right = 1,
    RightDown = 2,
    Up = 3,
    Down = 4,
    LeftUp = 5,
    Left = 6,
    LeftDown = 7,
}

impl Direction {
    pub const ALL: [Direction; 8] = [
        Direction::RightUp,
        Direction::Right,
        Direction::RightDown,
        Direction::Up,
        Direction::Down,
        Direction::LeftUp,
        Direction::Left,
        Direction::LeftDown,
    ];

    /// (file delta, rank delta): right lowers the file, up lowers the rank.
    pub const fn file_rank_delta(self) -> (i8, i8) {
        match self {
            Direction::RightUp => (-1, -1),
            Direction::Right => (-1, 0),
            Direction::RightDown => (-1, 1),
            Direction::Up => (0, -1),
            Direction::Down => (0, 1),
            Direction::LeftUp => (1, -1),
            Direction::Left => (1, 0),
            Direction::LeftDown => (1, 1),
        }
    }

    #[inline(always)]
    pub const fn opposite(self) -> Direction {
        Direction::ALL[7 - self as usize]
    }

    /// The delta of one step in a layout whose file step is `file_step` and rank step 1.
    pub const fn delta(self, file_step: i32) -> i32 {
        let (file, rank) = self.file_rank_delta();
        file as i32 * file_step + rank as i32
    }
}

/// How a long-effect update walks a ray: the board layout and the off-board test. Each
/// stepper lays out the 128 `Cells` its own way; the update algorithm never looks at a cell
/// index except through `cell`.
pub trait RayStepper {
    /// The name users see (`kiki effects`).
    const NAME: &'static str;
    /// One line on the layout and the off-board test.
    const LAYOUT: &'static str;

    /// A board with every square empty (and every wall cell `WALL`, where the layout has any).
    fn empty_cells() -> Cells;
    /// The cell of a canonical square index (`< 81`).
    fn cell_of(canonical: usize) -> usize;
    /// The cell of a square.
    #[inline(always)]
    fn cell(sq: Square) -> usize {
        Self::cell_of(sq.index())
    }
    /// The code of the first piece met walking from `sq` (exclusive) in `direction`; `EMPTY`
    /// (or `WALL`) when the edge comes first.
    fn first_piece(cells: &Cells, sq: Square, direction: Direction) -> u8;
    /// Adds `delta` (wrapping: `0xFF` is −1) to `counts` on every square from `sq` (exclusive)
    /// in `direction` up to and including the first occupied square or the last one on the
    /// board. Writing to wall cells is allowed (their counts mean nothing).
    fn walk(cells: &Cells, counts: &mut Cells, sq: Square, direction: Direction, delta: u8);
}

/// What each piece code does, in tables built once: colour, long directions, step squares.
struct PieceTables {
    /// `[code]`: colour index (0 black, 1 white); WALL and EMPTY read 0 and own no rays.
    color: [u8; 256],
    /// `[code]`: bit `d` set when the piece slides in direction `d`.
    long: [u8; 256],
    /// `[code][square]`: canonical squares the piece attacks by a single step (for the
    /// dragon and horse, their king-like steps; nothing for rooks, bishops, lances).
    steps: Box<[[[u8; 8]; 81]; 29]>,
    step_count: [[u8; 81]; 29],
}

fn piece_tables() -> &'static PieceTables {
    static TABLES: OnceLock<PieceTables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut tables = PieceTables {
            color: [0; 256],
            long: [0; 256],
            steps: Box::new([[[0; 8]; 81]; 29]),
            step_count: [[0; 81]; 29],
        };
        let orthogonal = (1 << Direction::Right as u8)
            | (1 << Direction::Left as u8)
            | (1 << Direction::Up as u8)
            | (1 << Direction::Down as u8);
        let diagonal = (1 << Direction::RightUp as u8)
            | (1 << Direction::RightDown as u8)
            | (1 << Direction::LeftUp as u8)
            | (1 << Direction::LeftDown as u8);
        for code in 1..=28u8 {
            let piece = code_piece(code).expect("codes 1-28 are pieces");
            let color = piece.color;
            tables.color[code as usize] = color.index() as u8;
            tables.long[code as usize] = match piece.kind {
                PieceKind::Rook | PieceKind::Dragon => orthogonal,
                PieceKind::Bishop | PieceKind::Horse => diagonal,
                PieceKind::Lance => match color {
                    Color::Black => 1 << Direction::Up as u8,
                    Color::White => 1 << Direction::Down as u8,
                },
                _ => 0,
            };
            for sq in Square::all() {
                let stepped = short_attacks(piece, sq);
                let mut count = 0;
                for target in Square::all().filter(|t| stepped & t.bit() != 0) {
                    tables.steps[code as usize][sq.index()][count] = target.index() as u8;
                    count += 1;
                }
                tables.step_count[code as usize][sq.index()] = count as u8;
            }
        }
        tables
    })
}

/// The single-step part of a piece's attacks (from the reference).
fn short_attacks(piece: Piece, sq: Square) -> u128 {
    use kiki_core::reference as r;
    let color = piece.color;
    match piece.kind {
        PieceKind::Pawn => r::pawn(color, sq),
        PieceKind::Knight => r::knight(color, sq),
        PieceKind::Silver => r::silver(color, sq),
        PieceKind::Gold
        | PieceKind::ProPawn
        | PieceKind::ProLance
        | PieceKind::ProKnight
        | PieceKind::ProSilver => r::gold(color, sq),
        PieceKind::King => r::king(sq),
        // The king's steps that the lines do not already cover.
        PieceKind::Dragon => r::king(sq) & !r::rook(0, sq),
        PieceKind::Horse => r::king(sq) & !r::bishop(0, sq),
        PieceKind::Lance | PieceKind::Bishop | PieceKind::Rook => 0,
    }
}

/// Every square a piece attacks, from the reference over the canonical occupancy.
pub fn reference_attacks(piece: Piece, sq: Square, occupancy: u128) -> u128 {
    use kiki_core::reference as r;
    let color = piece.color;
    match piece.kind {
        PieceKind::Lance => r::lance(color, occupancy, sq),
        PieceKind::Bishop => r::bishop(occupancy, sq),
        PieceKind::Rook => r::rook(occupancy, sq),
        PieceKind::Horse => r::horse(occupancy, sq),
        PieceKind::Dragon => r::dragon(occupancy, sq),
        _ => short_attacks(piece, sq),
    }
}

/// Effect counts recomputed from scratch for a board (`[colour][canonical square]`): for each
/// piece, its attack set from the reference, counted square by square.
pub fn counts_from_scratch(board: &[Option<Piece>; 81]) -> [[u8; 81]; 2] {
    let occupancy = Square::all()
        .filter(|sq| board[sq.index()].is_some())
        .fold(0u128, |acc, sq| acc | sq.bit());
    let mut counts = [[0u8; 81]; 2];
    for sq in Square::all() {
        if let Some(piece) = board[sq.index()] {
            let attacks = reference_attacks(piece, sq, occupancy);
            for target in Square::all().filter(|t| attacks & t.bit() != 0) {
                counts[piece.color.index()][target.index()] += 1;
            }
        }
    }
    counts
}

/// The board a position shows (for building effect boards and checking them).
pub fn board_of<B: Backend>(pos: &Position<B>) -> [Option<Piece>; 81] {
    let mut board = [None; 81];
    for sq in Square::all() {
        board[sq.index()] = pos.piece_at(sq);
    }
    board
}

/// Anything that keeps effect counts up to date across make and unmake.
pub trait EffectTracker: Sized {
    /// The name users see.
    fn name() -> &'static str;
    /// One line on how it works.
    fn layout() -> &'static str;
    /// A tracker for this board with `side` to move; `Err` when it cannot run here.
    fn from_board(board: &[Option<Piece>; 81], side: Color) -> Result<Self, String>;
    /// Makes `mv` (legal, or at least pseudo-legal) and returns the captured piece.
    fn do_move(&mut self, mv: Move) -> Option<Piece>;
    /// Takes back `mv`, the last move made, which captured `captured`.
    fn undo_move(&mut self, mv: Move, captured: Option<Piece>);
    /// How many pieces of `color` attack `sq`.
    fn effect(&self, color: Color, sq: Square) -> u8;
    /// The piece the tracker's own mirror holds on `sq`.
    fn piece_at(&self, sq: Square) -> Option<Piece>;

    /// A tracker for a position.
    fn from_position<B: Backend>(pos: &Position<B>) -> Result<Self, String> {
        Self::from_board(&board_of(pos), pos.side_to_move())
    }

    /// All counts, `[colour][canonical square]`.
    fn counts(&self) -> [[u8; 81]; 2] {
        let mut counts = [[0u8; 81]; 2];
        for color in Color::BOTH {
            for sq in Square::all() {
                counts[color.index()][sq.index()] = self.effect(color, sq);
            }
        }
        counts
    }
}

/// An effect board whose long effects are walked by the ray stepper `S`.
#[derive(Clone)]
pub struct Effects<S: RayStepper> {
    /// Piece codes in `S`'s layout (`WALL` in its wall cells, if any).
    cells: Cells,
    /// `[colour]`: effect counts in `S`'s layout.
    counts: [Cells; 2],
    side: Color,
    /// Held here so that the hot path reads a plain reference, not the `OnceLock`.
    tables: &'static PieceTables,
    stepper: PhantomData<S>,
}

impl<S: RayStepper> Effects<S> {
    /// Adds `delta` (1 or 0xFF = −1) for every square the piece `code` on `sq` attacks.
    #[inline(always)]
    fn own_effects(&mut self, sq: Square, code: u8, delta: u8) {
        let tables = self.tables;
        let color = tables.color[code as usize] as usize;
        let counts = &mut self.counts[color];
        let count = tables.step_count[code as usize][sq.index()] as usize;
        let steps = &tables.steps[code as usize][sq.index()];
        for &target in &steps[..count.min(8)] {
            let cell = S::cell_of(target as usize) & CELL_MASK;
            counts[cell] = counts[cell].wrapping_add(delta);
        }
        let mut long = tables.long[code as usize];
        while long != 0 {
            let direction = Direction::ALL[long.trailing_zeros() as usize & 7];
            long &= long - 1;
            S::walk(&self.cells, counts, sq, direction, delta);
        }
    }

    /// Extends (`delta` = 1) or cuts (`delta` = 0xFF) every slider ray that passes `sq`.
    #[inline(always)]
    fn rays_through(&mut self, sq: Square, delta: u8) {
        let tables = self.tables;
        for direction in Direction::ALL {
            let behind = S::first_piece(&self.cells, sq, direction.opposite());
            if tables.long[behind as usize] & (1 << direction as u8) != 0 {
                let color = tables.color[behind as usize] as usize;
                S::walk(&self.cells, &mut self.counts[color], sq, direction, delta);
            }
        }
    }
}

/// The three board edits a tracker is built from (each keeps the counts right); making and
/// unmaking a move is the same composition of them for every tracker.
pub(crate) trait CellEdits {
    /// Takes the piece off `sq` and returns its code.
    fn lift(&mut self, sq: Square) -> u8;
    /// Puts the piece `code` on the empty square `sq`.
    fn place(&mut self, sq: Square, code: u8);
    /// Replaces the piece on the occupied `sq` by `code` and returns the old code.
    fn swap(&mut self, sq: Square, code: u8) -> u8;
    /// The code on `sq` (`EMPTY` when none).
    fn code_at(&self, sq: Square) -> u8;
    /// The side to move.
    fn side_mut(&mut self) -> &mut Color;
}

/// Makes `mv` on any tracker from its three edits; returns the captured piece.
#[inline(always)]
pub(crate) fn make_move<T: CellEdits>(tracker: &mut T, mv: Move) -> Option<Piece> {
    let to = mv.to();
    let us = *tracker.side_mut();
    *tracker.side_mut() = us.flip();
    match (mv.from(), mv.drop_kind()) {
        (Some(from), _) => {
            let code = tracker.lift(from);
            let arrived = arriving(code, mv);
            if tracker.code_at(to) == EMPTY {
                tracker.place(to, arrived);
                None
            } else {
                code_piece(tracker.swap(to, arrived))
            }
        }
        (None, Some(kind)) => {
            tracker.place(to, piece_code(Piece::new(us, kind)));
            None
        }
        (None, None) => None,
    }
}

/// Takes back `mv`, the last move made, which captured `captured`.
#[inline(always)]
pub(crate) fn unmake_move<T: CellEdits>(tracker: &mut T, mv: Move, captured: Option<Piece>) {
    let to = mv.to();
    let side = tracker.side_mut();
    *side = side.flip();
    match mv.from() {
        Some(from) => {
            let arrived = match captured {
                Some(victim) => tracker.swap(to, piece_code(victim)),
                None => tracker.lift(to),
            };
            let code = if mv.is_promotion() {
                arrived - 8
            } else {
                arrived
            };
            tracker.place(from, code);
        }
        None => {
            tracker.lift(to);
        }
    }
}

impl<S: RayStepper> CellEdits for Effects<S> {
    #[inline(always)]
    fn lift(&mut self, sq: Square) -> u8 {
        let cell = S::cell(sq) & CELL_MASK;
        let code = self.cells[cell];
        self.own_effects(sq, code, 0xFF);
        self.cells[cell] = EMPTY;
        self.rays_through(sq, 1);
        code
    }

    #[inline(always)]
    fn place(&mut self, sq: Square, code: u8) {
        self.rays_through(sq, 0xFF);
        self.cells[S::cell(sq) & CELL_MASK] = code;
        self.own_effects(sq, code, 1);
    }

    #[inline(always)]
    fn swap(&mut self, sq: Square, code: u8) -> u8 {
        let cell = S::cell(sq) & CELL_MASK;
        let old = self.cells[cell];
        self.own_effects(sq, old, 0xFF);
        self.cells[cell] = code;
        self.own_effects(sq, code, 1);
        old
    }

    #[inline(always)]
    fn code_at(&self, sq: Square) -> u8 {
        self.cells[S::cell(sq) & CELL_MASK]
    }

    #[inline(always)]
    fn side_mut(&mut self) -> &mut Color {
        &mut self.side
    }
}

/// The code a board move leaves on its destination.
#[inline(always)]
fn arriving(code: u8, mv: Move) -> u8 {
    if mv.is_promotion() {
        code + 8
    } else {
        code
    }
}

impl<S: RayStepper> EffectTracker for Effects<S> {
    fn name() -> &'static str {
        S::NAME
    }
    fn layout() -> &'static str {
        S::LAYOUT
    }

    fn from_board(board: &[Option<Piece>; 81], side: Color) -> Result<Self, String> {
        let mut effects = Effects {
            cells: S::empty_cells(),
            counts: [[0; CELLS]; 2],
            side,
            tables: piece_tables(),
            stepper: PhantomData,
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
        self.counts[color.index()][S::cell(sq) & CELL_MASK]
    }

    fn piece_at(&self, sq: Square) -> Option<Piece> {
        code_piece(self.code_at(sq))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_promote_by_eight() {
        for code in 1..=28u8 {
            let piece = code_piece(code).unwrap();
            assert_eq!(piece_code(piece), code);
            if piece.kind.can_promote() {
                let promoted = Piece::new(piece.color, piece.kind.promoted());
                assert_eq!(piece_code(promoted), code + 8);
            }
        }
        assert_eq!(code_piece(EMPTY), None);
        assert_eq!(code_piece(WALL), None);
    }

    #[test]
    fn directions_pair_with_their_opposites() {
        for direction in Direction::ALL {
            let (file, rank) = direction.file_rank_delta();
            assert_eq!(direction.opposite().file_rank_delta(), (-file, -rank));
            assert_eq!(Direction::ALL[direction as usize], direction);
        }
    }

    #[test]
    fn short_and_long_parts_make_the_whole_attack_set() {
        // Long parts walked over an empty board plus the step table give the reference set.
        let tables = piece_tables();
        for code in 1..=28u8 {
            let piece = code_piece(code).unwrap();
            for sq in Square::all() {
                let mut set = 0u128;
                let count = tables.step_count[code as usize][sq.index()] as usize;
                for &t in &tables.steps[code as usize][sq.index()][..count] {
                    set |= 1u128 << t;
                }
                for direction in Direction::ALL {
                    if tables.long[code as usize] & (1 << direction as u8) != 0 {
                        let (file_delta, rank_delta) = direction.file_rank_delta();
                        set |= kiki_core::types::ray(0, sq, file_delta, rank_delta);
                    }
                }
                assert_eq!(set, reference_attacks(piece, sq, 0), "{piece:?} on {sq}");
            }
        }
    }
}
