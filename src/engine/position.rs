//! A shogi position over any backend: board, bitboards, occupancy, hands, Zobrist key, SFEN,
//! compact moves in USI text, and make/unmake.
//!
//! Make/unmake versus copy-make, timed with perft (best of five, interleaved,
//! `tests/perft.rs::make_unmake_vs_copy_make`), start position depth 5 / second position
//! depth 4: qugiy 122 / 921 ms vs 111 / 928 ms, dbb 129 / 906 ms vs 123 / 916 ms, bonanza
//! 116 / 1750 ms vs 120 / 1750 ms — a tie within this shared 2-core machine's noise, since bulk
//! counting makes leaf generation dominate. We use make/unmake (`do_move` / `undo_move`): its
//! cost stays a handful of incremental updates, while a copy grows with the backend's occupancy
//! (rotated backends keep several copies) on top of the ~600 B position.

use crate::backend::{Backend, Bitboard};
use crate::engine::hands::HandLayout;
use crate::input::{non_ascii_whitespace, quote_input};
use crate::types::{ray, Color, Square};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, OnceLock};

pub use crate::types::PieceKind;

/// A coloured piece.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Piece {
    pub color: Color,
    pub kind: PieceKind,
}

impl Piece {
    #[inline(always)]
    pub const fn new(color: Color, kind: PieceKind) -> Piece {
        Piece { color, kind }
    }

    /// `0..28`: colour-major index (Zobrist tables).
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.color.index() * PieceKind::COUNT + self.kind.index()
    }

    /// SFEN text: `+p`, `K`, ...
    pub fn sfen(self) -> String {
        let letter = match self.color {
            Color::Black => self.kind.letter(),
            Color::White => self.kind.letter().to_ascii_lowercase(),
        };
        if self.kind.is_promoted() {
            format!("+{letter}")
        } else {
            letter.to_string()
        }
    }
}

/// A move in 16 bits: destination in bits 0–6, origin in bits 7–13 (`81 + hand index` for a
/// drop), promotion in bit 14.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move(u16);

impl Move {
    const PROMOTE: u16 = 1 << 14;

    #[inline(always)]
    pub const fn board(from: Square, to: Square, promote: bool) -> Move {
        Move(
            to.index() as u16
                | (from.index() as u16) << 7
                | if promote { Move::PROMOTE } else { 0 },
        )
    }

    /// A drop of `kind`, which must be one of the seven hand kinds.
    #[inline(always)]
    pub const fn drop(kind: PieceKind, to: Square) -> Move {
        Move(to.index() as u16 | (81 + kind as u16) << 7)
    }

    #[inline(always)]
    pub const fn raw(self) -> u16 {
        self.0
    }

    #[inline(always)]
    pub fn to(self) -> Square {
        // SAFETY: every constructor stores a `Square` (< 81) in the low 7 bits.
        unsafe { Square::new_unchecked((self.0 & 0x7F) as u8) }
    }

    #[inline(always)]
    pub const fn is_drop(self) -> bool {
        (self.0 >> 7) & 0x7F >= 81
    }

    /// The origin square of a board move; `None` for a drop.
    #[inline(always)]
    pub fn from(self) -> Option<Square> {
        Square::new(((self.0 >> 7) & 0x7F) as u8)
    }

    /// The dropped kind of a drop; `None` for a board move.
    #[inline(always)]
    pub fn drop_kind(self) -> Option<PieceKind> {
        let code = ((self.0 >> 7) & 0x7F) as usize;
        if code >= 81 {
            PieceKind::HAND.get(code - 81).copied()
        } else {
            None
        }
    }

    #[inline(always)]
    pub const fn is_promotion(self) -> bool {
        self.0 & Move::PROMOTE != 0
    }

    /// USI text: `7g7f`, `8h2b+`, `P*5e`.
    pub fn usi(self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.from(), self.drop_kind()) {
            (Some(from), _) => write!(
                f,
                "{from}{}{}",
                self.to(),
                if self.is_promotion() { "+" } else { "" }
            ),
            (None, Some(kind)) => write!(f, "{}*{}", kind.letter(), self.to()),
            (None, None) => f.write_str("????"),
        }
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Move({self})")
    }
}

/// What `undo_move` needs to take a move back.
#[derive(Clone, Copy, Debug)]
pub struct Undo {
    captured: Option<Piece>,
    key: u64,
}

/// Why an SFEN was rejected: what is wrong and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SfenError {
    pub message: String,
}

impl SfenError {
    fn new(message: impl Into<String>) -> SfenError {
        SfenError {
            message: message.into(),
        }
    }
}

impl fmt::Display for SfenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad SFEN: {}", self.message)
    }
}

impl std::error::Error for SfenError {}

/// The start position.
pub const START_SFEN: &str = crate::public_positions::START;

/// Fixed-seed Zobrist keys (non-generic, shared by all backends).
pub struct Zobrist {
    pub board: [[u64; 81]; 28],
    /// `[colour][hand index][count]`.
    pub hand: [[[u64; 19]; 7]; 2],
    pub side: u64,
}

fn zobrist() -> &'static Zobrist {
    static KEYS: OnceLock<Zobrist> = OnceLock::new();
    KEYS.get_or_init(|| {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x4B49_4B49_5A4F_4252);
        let mut keys = Zobrist {
            board: [[0; 81]; 28],
            hand: [[[0; 19]; 7]; 2],
            side: 0,
        };
        for row in keys.board.iter_mut() {
            for key in row.iter_mut() {
                *key = rng.next_u64();
            }
        }
        for color in keys.hand.iter_mut() {
            for kind in color.iter_mut() {
                // Count 0 keeps key 0 so that an empty hand contributes nothing.
                for key in kind.iter_mut().skip(1) {
                    *key = rng.next_u64();
                }
            }
        }
        keys.side = rng.next_u64();
        keys
    })
}

/// Masks and geometry the generator needs, in the backend's bitboard type. Built once per
/// process and backend type from canonical bits (our own ray walking, not the reference).
pub struct Tables<B: Backend> {
    /// `[a * 81 + b]`: squares strictly between `a` and `b` when they share a line, else empty.
    between: Box<[B::Bitboard]>,
    /// `[a * 81 + b]`: the whole board line through `a` and `b` when they share one, else empty.
    line: Box<[B::Bitboard]>,
    /// Empty-board rook, bishop and lance (`[colour]`) lines from each square.
    pub(crate) rook_rays: [B::Bitboard; 81],
    pub(crate) bishop_rays: [B::Bitboard; 81],
    pub(crate) lance_rays: [[B::Bitboard; 81]; 2],
    /// Each file (index `file - 1`).
    pub(crate) files: [B::Bitboard; 9],
    /// The file of each square (so the hot path indexes by `Square`).
    pub(crate) file_of: [B::Bitboard; 81],
    /// `[colour]`: the three ranks where that side promotes.
    pub(crate) promotion_zone: [B::Bitboard; 2],
    /// `[colour]`: the farthest rank (pawns and lances must promote there).
    pub(crate) last_rank: [B::Bitboard; 2],
    /// `[colour]`: the farthest two ranks (knights must promote there).
    pub(crate) last_two_ranks: [B::Bitboard; 2],
    pub(crate) all: B::Bitboard,
}

const DIRECTIONS: [(i8, i8); 8] = [
    (0, -1),
    (0, 1),
    (-1, 0),
    (1, 0),
    (-1, -1),
    (1, -1),
    (-1, 1),
    (1, 1),
];

fn rank_mask(ranks: impl Fn(u8) -> bool) -> u128 {
    Square::all()
        .filter(|sq| ranks(sq.rank()))
        .fold(0, |acc, sq| acc | sq.bit())
}

impl<B: Backend> Tables<B> {
    fn build() -> Tables<B> {
        let conv = B::Bitboard::from_canonical;
        let mut between = vec![B::Bitboard::empty(); 81 * 81];
        let mut line = vec![B::Bitboard::empty(); 81 * 81];
        for a in Square::all() {
            for &(df, dr) in &DIRECTIONS {
                let whole_line = conv(ray(0, a, df, dr) | ray(0, a, -df, -dr) | a.bit());
                let mut beyond = ray(0, a, df, dr);
                while beyond != 0 {
                    let b = beyond.trailing_zeros() as usize;
                    beyond &= beyond - 1;
                    // The ray from `a` with `b` as its blocker, less `b`.
                    between[a.index() * 81 + b] = conv(ray(1 << b, a, df, dr) & !(1 << b));
                    line[a.index() * 81 + b] = whole_line;
                }
            }
        }
        let rays = |dirs: &[(i8, i8)], sq: Square| {
            conv(
                dirs.iter()
                    .fold(0, |acc, &(df, dr)| acc | ray(0, sq, df, dr)),
            )
        };
        let rook_rays =
            std::array::from_fn(|i| rays(&DIRECTIONS[..4], Square::all().nth(i).unwrap()));
        let bishop_rays =
            std::array::from_fn(|i| rays(&DIRECTIONS[4..], Square::all().nth(i).unwrap()));
        let lance_rays = std::array::from_fn(|c| {
            let color = Color::BOTH[c];
            std::array::from_fn(|i| rays(&[(0, color.forward())], Square::all().nth(i).unwrap()))
        });
        let files: [B::Bitboard; 9] = std::array::from_fn(|f| {
            conv(
                Square::all()
                    .filter(|sq| sq.file() as usize == f + 1)
                    .fold(0, |acc, sq| acc | sq.bit()),
            )
        });
        let file_of = std::array::from_fn(|i| files[i / 9]);
        Tables {
            file_of,
            between: between.into_boxed_slice(),
            line: line.into_boxed_slice(),
            rook_rays,
            bishop_rays,
            lance_rays,
            files,
            promotion_zone: [conv(rank_mask(|r| r <= 3)), conv(rank_mask(|r| r >= 7))],
            last_rank: [conv(rank_mask(|r| r == 1)), conv(rank_mask(|r| r == 9))],
            last_two_ranks: [conv(rank_mask(|r| r <= 2)), conv(rank_mask(|r| r >= 8))],
            all: conv(crate::types::ALL_SQUARES),
        }
    }

    /// The tables for backend type `B`, built on first use. Rust has no generic statics, so
    /// they live in a process-wide map keyed by type (looked up once per position built,
    /// never on the hot path: positions keep the `&'static`).
    pub fn get() -> &'static Tables<B> {
        type Map = HashMap<TypeId, &'static (dyn Any + Send + Sync)>;
        static CACHE: OnceLock<Mutex<Map>> = OnceLock::new();
        let mut map = CACHE
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let entry = map
            .entry(TypeId::of::<B>())
            .or_insert_with(|| Box::leak(Box::new(Tables::<B>::build())));
        entry
            .downcast_ref::<Tables<B>>()
            .expect("the map is keyed by the tables' own type")
    }

    #[inline(always)]
    pub fn between(&self, a: Square, b: Square) -> B::Bitboard {
        // SAFETY: `Square` is always < 81, so `a * 81 + b < 6561`, the table's length.
        unsafe { *self.between.get_unchecked(a.index() * 81 + b.index()) }
    }

    #[inline(always)]
    pub fn line(&self, a: Square, b: Square) -> B::Bitboard {
        // SAFETY: as in `between`.
        unsafe { *self.line.get_unchecked(a.index() * 81 + b.index()) }
    }
}

/// Reads `table[sq]` without a bounds check.
#[inline(always)]
pub(crate) fn at<T: Copy>(table: &[T; 81], sq: Square) -> T {
    // SAFETY: `Square` is always < 81 (its invariant), the array's length.
    unsafe { *table.get_unchecked(sq.index()) }
}

/// The hand layout positions store (`crate::engine::hands`); chosen by measuring perft.
pub type Hand = crate::engine::hands::ByteHand;

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
}

impl<B: Backend> fmt::Debug for Position<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", self.to_sfen())
    }
}

impl<B: Backend> fmt::Display for Position<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let board = crate::types::draw_board(|sq| match self.board[sq.index()] {
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

fn count_prefix(count: u8) -> String {
    if count > 1 {
        count.to_string()
    } else {
        String::new()
    }
}

impl<B: Backend> Position<B> {
    fn empty(backend: B) -> Position<B> {
        Position {
            occupancy: backend.occupancy(0),
            backend,
            tables: Tables::<B>::get(),
            zobrist: zobrist(),
            board: [None; 81],
            by_color: [B::Bitboard::empty(); 2],
            by_kind: [B::Bitboard::empty(); PieceKind::COUNT],
            hands: [Hand::EMPTY; 2],
            kings: [None; 2],
            side: Color::Black,
            move_number: 1,
            key: 0,
        }
    }

    /// The start position.
    pub fn startpos(backend: B) -> Position<B> {
        Position::from_sfen(backend, START_SFEN).expect("the start SFEN is valid")
    }

    /// Parses an SFEN (`<board> <side> <hand> [<move number>]`, an optional leading `sfen`
    /// word). Rejects, with what and where: bad rows, unknown letters, `+` on a kind that
    /// cannot promote, more pieces of a kind than a set has, two kings of a colour, pieces
    /// that could never move again (pawn/lance on the last rank, knight on the last two),
    /// two unpromoted pawns of one colour on a file (二歩 cannot arise in a legal game, so
    /// such a position is rejected rather than generated from), bad hand syntax or counts,
    /// a bad side or move number, and a side not to move whose king is in check. A missing
    /// king is allowed.
    pub fn from_sfen(backend: B, sfen: &str) -> Result<Position<B>, SfenError> {
        // Fields are separated by ASCII whitespace only: an NBSP or U+3000 that looks like a
        // space is more likely a copy-paste accident than intent.
        if let Some(space) = non_ascii_whitespace(sfen) {
            return Err(SfenError::new(format!(
                "non-ASCII whitespace U+{:04X} is not a field separator, in {}",
                space as u32,
                quote_input(sfen)
            )));
        }
        let mut fields: Vec<&str> = sfen.split_ascii_whitespace().collect();
        if fields.first() == Some(&"sfen") {
            fields.remove(0);
        }
        if fields.len() < 3 || fields.len() > 4 {
            return Err(SfenError::new(format!(
                "expected 3 or 4 fields (board, side, hand, move number), found {} in {}",
                fields.len(),
                quote_input(sfen)
            )));
        }
        let mut pos = Position::empty(backend);
        pos.parse_board(fields[0])?;
        pos.side = match fields[1] {
            "b" => Color::Black,
            "w" => Color::White,
            other => {
                return Err(SfenError::new(format!(
                    "side to move must be 'b' or 'w', found {}",
                    quote_input(other)
                )))
            }
        };
        pos.parse_hands(fields[2])?;
        if let Some(number) = fields.get(3) {
            pos.move_number = match number.parse::<u32>() {
                Ok(n) if n >= 1 && number.bytes().all(|b| b.is_ascii_digit()) => n,
                _ => {
                    return Err(SfenError::new(format!(
                        "move number must be a positive integer, found {}",
                        quote_input(number)
                    )))
                }
            };
        }
        pos.check_counts()?;
        pos.check_waiting_king_safe()?;
        pos.key = pos.compute_key();
        Ok(pos)
    }

    /// The side not to move may not be in check: the side to move could take its king, which
    /// no legal game reaches, and perft would count the capture.
    fn check_waiting_king_safe(&self) -> Result<(), SfenError> {
        let waiting = self.side.flip();
        let Some(king) = self.kings[waiting.index()] else {
            return Ok(());
        };
        let mut attackers = self.attackers_to(king, self.side);
        let Some(from) = attackers.pop() else {
            return Ok(());
        };
        let attacker = self.board[from.index()].map_or_else(|| "a piece".into(), Piece::sfen);
        Err(SfenError::new(format!(
            "the side not to move ({}) is in check: its king on {king} is attacked by {attacker} \
             on {from}",
            waiting.name()
        )))
    }

    fn parse_board(&mut self, text: &str) -> Result<(), SfenError> {
        let rows: Vec<&str> = text.split('/').collect();
        if rows.len() != 9 {
            return Err(SfenError::new(format!(
                "board {} has {} rows, expected 9",
                quote_input(text),
                rows.len()
            )));
        }
        for (row_index, row) in rows.iter().enumerate() {
            let rank = row_index as u8 + 1;
            let rank_char = (b'a' + row_index as u8) as char;
            let mut filled: u8 = 0; // squares of this row described so far (from file 9)
            let mut promoted = false;
            let mut last_was_digit = false;
            let row_name = || format!("row {rank} (rank {rank_char}) {}", quote_input(row));
            for (column, ch) in row.chars().enumerate() {
                // Built only for an error: a row may be long, and this runs per character.
                let at = || format!("{}, character {}", row_name(), column + 1);
                if promoted && !ch.is_ascii_alphabetic() {
                    return Err(SfenError::new(format!(
                        "'+' not followed by a piece letter at {}",
                        at()
                    )));
                }
                if let Some(digit) = ch.to_digit(10) {
                    if digit == 0 || last_was_digit {
                        return Err(SfenError::new(format!(
                            "bad empty-square count '{ch}' at {} (1-9, not two digits in a row)",
                            at()
                        )));
                    }
                    filled += digit as u8;
                    if filled > 9 {
                        return Err(SfenError::new(format!(
                            "row longer than 9 squares at {}",
                            at()
                        )));
                    }
                    last_was_digit = true;
                    continue;
                }
                last_was_digit = false;
                if ch == '+' {
                    promoted = true;
                    continue;
                }
                let kind = PieceKind::from_letter(ch).ok_or_else(|| {
                    SfenError::new(format!(
                        "unknown piece letter {} at {}",
                        quote_input(&ch.to_string()),
                        at()
                    ))
                })?;
                let color = if ch.is_ascii_uppercase() {
                    Color::Black
                } else {
                    Color::White
                };
                let kind = if promoted {
                    if !kind.can_promote() {
                        return Err(SfenError::new(format!(
                            "'+{ch}': that piece cannot promote, at {}",
                            at()
                        )));
                    }
                    kind.promoted()
                } else {
                    kind
                };
                promoted = false;
                if filled >= 9 {
                    return Err(SfenError::new(format!(
                        "row longer than 9 squares at {}",
                        at()
                    )));
                }
                let file = 9 - filled;
                filled += 1;
                let sq = Square::from_file_rank(file, rank).expect("file and rank are 1-9");
                // Ranks counted from the piece's own far side: 1 = last rank.
                let far_rank = if color == Color::Black {
                    rank
                } else {
                    10 - rank
                };
                let stuck = match kind {
                    PieceKind::Pawn | PieceKind::Lance => far_rank == 1,
                    PieceKind::Knight => far_rank <= 2,
                    _ => false,
                };
                if stuck {
                    return Err(SfenError::new(format!(
                        "{} on {sq} could never move again, at {}",
                        Piece::new(color, kind).sfen(),
                        at()
                    )));
                }
                if kind == PieceKind::King {
                    if let Some(other) = self.kings[color.index()] {
                        return Err(SfenError::new(format!(
                            "two {} kings ({other} and {sq}), at {}",
                            color.name(),
                            at()
                        )));
                    }
                }
                if kind == PieceKind::Pawn
                    && (self.pieces(color, PieceKind::Pawn) & self.tables.files[file as usize - 1])
                        .is_nonempty()
                {
                    return Err(SfenError::new(format!(
                        "two unpromoted {} pawns on file {file} (nifu), at {}",
                        color.name(),
                        at()
                    )));
                }
                self.put_piece(Piece::new(color, kind), sq);
            }
            if promoted {
                return Err(SfenError::new(format!("'+' at the end of {}", row_name())));
            }
            if filled != 9 {
                return Err(SfenError::new(format!(
                    "{} describes {filled} squares, expected 9",
                    row_name()
                )));
            }
        }
        Ok(())
    }

    fn parse_hands(&mut self, text: &str) -> Result<(), SfenError> {
        if text == "-" {
            return Ok(());
        }
        let mut seen = [[false; 7]; 2];
        let mut counts = [[0u8; 7]; 2];
        let mut count: Option<u32> = None;
        for (column, ch) in text.chars().enumerate() {
            let at = || format!("hand {}, character {}", quote_input(text), column + 1);
            if let Some(digit) = ch.to_digit(10) {
                let next = count.unwrap_or(0) * 10 + digit;
                if next == 0 || next > 18 {
                    return Err(SfenError::new(format!("bad hand count at {} (1-18)", at())));
                }
                count = Some(next);
                continue;
            }
            let kind = PieceKind::from_letter(ch).ok_or_else(|| {
                SfenError::new(format!(
                    "unknown hand letter {} at {}",
                    quote_input(&ch.to_string()),
                    at()
                ))
            })?;
            let hand_index = kind
                .hand_index()
                .ok_or_else(|| SfenError::new(format!("a king cannot be in hand, at {}", at())))?;
            let color = if ch.is_ascii_uppercase() {
                Color::Black
            } else {
                Color::White
            };
            if seen[color.index()][hand_index] {
                return Err(SfenError::new(format!("'{ch}' given twice, at {}", at())));
            }
            seen[color.index()][hand_index] = true;
            let n = count.take().unwrap_or(1);
            if n > PieceKind::HAND_MAX[hand_index] as u32 {
                return Err(SfenError::new(format!(
                    "{n} of '{ch}' in hand, more than the {} a set has, at {}",
                    PieceKind::HAND_MAX[hand_index],
                    at()
                )));
            }
            counts[color.index()][hand_index] = n as u8;
        }
        if count.is_some() {
            return Err(SfenError::new(format!(
                "hand {} ends with a count and no piece letter",
                quote_input(text)
            )));
        }
        self.hands = counts.map(Hand::from_counts);
        Ok(())
    }

    /// Board plus hands may not hold more of a kind than a set has.
    fn check_counts(&self) -> Result<(), SfenError> {
        for (hand_index, &kind) in PieceKind::HAND.iter().enumerate() {
            let on_board = self.by_kind[kind.index()].count()
                + if kind.can_promote() {
                    self.by_kind[kind.promoted().index()].count()
                } else {
                    0
                };
            let total =
                on_board + self.hands[0].count(kind) as u32 + self.hands[1].count(kind) as u32;
            if total > PieceKind::HAND_MAX[hand_index] as u32 {
                return Err(SfenError::new(format!(
                    "{total} pieces of kind '{}' on board and in hand, a set has {}",
                    kind.letter(),
                    PieceKind::HAND_MAX[hand_index]
                )));
            }
        }
        Ok(())
    }

    fn compute_key(&self) -> u64 {
        let mut key = 0;
        for sq in Square::all() {
            if let Some(piece) = self.board[sq.index()] {
                key ^= self.zobrist.board[piece.index()][sq.index()];
            }
        }
        for color in Color::BOTH {
            for hand_index in 0..7 {
                key ^= self.zobrist.hand[color.index()][hand_index]
                    [self.hands[color.index()].count(PieceKind::HAND[hand_index]) as usize];
            }
        }
        if self.side == Color::White {
            key ^= self.zobrist.side;
        }
        key
    }

    /// The SFEN text, in canonical form (hands in the order R B G S N L P, black first).
    pub fn to_sfen(&self) -> String {
        let mut out = String::new();
        for rank in 1..=9u8 {
            let mut empty = 0;
            for file in (1..=9u8).rev() {
                let sq = Square::from_file_rank(file, rank).expect("on board");
                match self.board[sq.index()] {
                    None => empty += 1,
                    Some(piece) => {
                        if empty > 0 {
                            out.push_str(&empty.to_string());
                            empty = 0;
                        }
                        out.push_str(&piece.sfen());
                    }
                }
            }
            if empty > 0 {
                out.push_str(&empty.to_string());
            }
            if rank < 9 {
                out.push('/');
            }
        }
        out.push_str(if self.side == Color::Black {
            " b "
        } else {
            " w "
        });
        let mut hand = String::new();
        const ORDER: [PieceKind; 7] = [
            PieceKind::Rook,
            PieceKind::Bishop,
            PieceKind::Gold,
            PieceKind::Silver,
            PieceKind::Knight,
            PieceKind::Lance,
            PieceKind::Pawn,
        ];
        for color in Color::BOTH {
            for kind in ORDER {
                let count = self.hands[color.index()].count(kind);
                if count > 0 {
                    hand.push_str(&count_prefix(count));
                    hand.push_str(&Piece::new(color, kind).sfen());
                }
            }
        }
        if hand.is_empty() {
            hand.push('-');
        }
        out.push_str(&hand);
        out.push_str(&format!(" {}", self.move_number));
        out
    }

    // ---- accessors ----

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
    /// `color`'s hand (counts, `has`, superiority: `crate::engine::hands::HandLayout`).
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

    /// Does the move, which must be legal (or at least pseudo-legal: a piece of the side to
    /// move on `from`, or the kind in hand), and returns what `undo_move` needs.
    #[inline]
    pub fn do_move(&mut self, mv: Move) -> Undo {
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
                key ^= z.hand[us.index()][kind.index()][(hand.count(kind) as usize).min(18)];
                hand.remove(kind);
                key ^= z.hand[us.index()][kind.index()][(hand.count(kind) as usize).min(18)];
                let piece = Piece::new(us, kind);
                self.board[to.index()] = Some(piece);
                self.by_color[us.index()] ^= to_mask;
                self.by_kind[kind.index()] ^= to_mask;
                self.backend.set_square(&mut self.occupancy, to);
                key ^= z.board[piece.index()][to.index()];
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
                    key ^= z.board[victim.index()][to.index()];
                    if let Some(hand_index) = victim.kind.unpromoted().hand_index() {
                        let kind = PieceKind::HAND[hand_index];
                        let hand = &mut self.hands[us.index()];
                        key ^= z.hand[us.index()][hand_index][(hand.count(kind) as usize).min(18)];
                        hand.add(kind);
                        key ^= z.hand[us.index()][hand_index][(hand.count(kind) as usize).min(18)];
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
                key ^= z.board[piece.index()][from.index()] ^ z.board[moved.index()][to.index()];
                if piece.kind == PieceKind::King {
                    self.kings[us.index()] = Some(to);
                }
                captured
            }
        };
        self.key = key;
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
}

/// The move a USI text names, without checking it against any position.
pub fn parse_usi_syntax(text: &str) -> Result<Move, String> {
    let bad = || {
        format!(
            "{} is not a USI move (7g7f, 8h2b+, P*5e)",
            quote_input(text)
        )
    };
    let bytes = text.as_bytes();
    if bytes.len() == 4 && bytes[1] == b'*' {
        let kind = PieceKind::from_letter(bytes[0] as char)
            .filter(|k| k.hand_index().is_some() && (bytes[0] as char).is_ascii_uppercase())
            .ok_or_else(bad)?;
        let to = Square::parse(&text[2..4]).ok_or_else(bad)?;
        return Ok(Move::drop(kind, to));
    }
    if !text.is_ascii() || !(bytes.len() == 4 || (bytes.len() == 5 && bytes[4] == b'+')) {
        return Err(bad());
    }
    let from = Square::parse(&text[0..2]).ok_or_else(bad)?;
    let to = Square::parse(&text[2..4]).ok_or_else(bad)?;
    if from == to {
        return Err(bad());
    }
    Ok(Move::board(from, to, bytes.len() == 5))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::Reference;

    fn parse(sfen: &str) -> Result<Position<Reference>, SfenError> {
        Position::from_sfen(Reference, sfen)
    }

    #[test]
    fn sfen_round_trips_exactly() {
        for sfen in [
            START_SFEN,
            crate::public_positions::SECOND,
            crate::public_positions::THIRD,
            "8k/9/9/9/9/9/9/9/9 w 2R2B4G4S4N4L18P 123",
            "+l+n+s+b+r+p3/9/9/9/9/9/9/9/4K4 b - 7",
            "9/9/9/9/9/9/9/9/9 b - 1",
            // The side to move may be in check; a blocked slider gives no check.
            "4k4/9/9/9/9/9/9/4l4/4K4 b - 1",
            "4k4/4p4/9/9/9/9/9/9/4L4 b - 1",
        ] {
            let pos = parse(sfen).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(pos.to_sfen(), sfen);
            assert_eq!(pos.key(), pos.key_from_scratch());
        }
        // The optional `sfen` word and a missing move number.
        assert_eq!(
            parse(&format!("sfen {START_SFEN}")).unwrap().to_sfen(),
            START_SFEN
        );
        assert_eq!(
            parse("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b -")
                .unwrap()
                .to_sfen(),
            START_SFEN
        );
    }

    #[test]
    fn bad_sfen_is_an_error_that_says_what_and_where() {
        let cases: &[(&str, &str)] = &[
            (
                "lnsgkgsnl/1r5b1/pppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
                "row 3",
            ),
            (
                "lnsgkgsnl/1r5b1/pppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
                "longer",
            ),
            (
                "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1 b - 1",
                "8 rows",
            ),
            (
                "lnsgkgsnl/1r5b1/ppppxpppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
                "'x'",
            ),
            (
                "lnsgkgsnl/1r5b1/ppp0ppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
                "count",
            ),
            (
                "lnsgkgsnl/1r5b1/ppppppppp/54/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
                "two digits",
            ),
            (
                "lnsg+kgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
                "cannot promote",
            ),
            (
                "lnsg+gksnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
                "cannot promote",
            ),
            (
                "lnsgkgsn+/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
                "'+'",
            ),
            ("4k4/9/9/9/9/9/9/9/4K3+ b - 1", "'+'"),
            ("P3k4/9/9/9/9/9/9/9/4K4 b - 1", "never move"),
            ("L3k4/9/9/9/9/9/9/9/4K4 b - 1", "never move"),
            ("4k4/N8/9/9/9/9/9/9/4K4 b - 1", "never move"),
            ("4k4/9/9/9/9/9/9/9/p3K4 b - 1", "never move"),
            ("4k4/9/9/9/9/9/9/n8/4K4 b - 1", "never move"),
            ("4k4/9/9/9/9/9/9/9/3KK4 b - 1", "two black kings"),
            ("4k3k/9/9/9/9/9/9/9/4K4 b - 1", "two white kings"),
            ("4k4/4P4/9/9/9/9/4P4/9/4K4 b - 1", "nifu"),
            ("4k4/9/9/9/9/9/9/9/4K4 b 3B 1", "more than"),
            ("4k4/9/9/9/9/9/9/9/4K4 b 19P 1", "count"),
            ("4k4/9/9/9/9/9/9/9/4K4 b 0P 1", "count"),
            ("4k4/9/9/9/9/9/9/9/4K4 b 2 1", "ends with a count"),
            ("4k4/9/9/9/9/9/9/9/4K4 b K 1", "king"),
            ("4k4/9/9/9/9/9/9/9/4K4 b X 1", "'X'"),
            ("4k4/9/9/9/9/9/9/9/4K4 b PP 1", "twice"),
            ("4k4/9/9/9/9/9/9/9/4K4 b +P 1", "'+'"),
            ("4k4/9/9/9/9/9/9/9/4K4 b B2b 1", "kind 'B'"),
            ("4k4/B8/B8/9/9/9/9/9/4K4 b b 1", "kind 'B'"),
            ("4k4/9/9/9/9/9/9/9/4K4 x - 1", "side"),
            ("4k4/9/9/9/9/9/9/9/4K4 b - 0", "move number"),
            ("4k4/9/9/9/9/9/9/9/4K4 b - x", "move number"),
            ("4k4/9/9/9/9/9/9/9/4K4 b - 1 extra", "fields"),
            (
                "4k4/4R4/9/9/9/9/9/9/4K4 b - 1",
                "the side not to move (white) is in check: its king on 5a is attacked by R on 5b",
            ),
            (
                "9/9/9/9/4k4/4K4/9/9/9 b - 1",
                "(white) is in check: its king on 5e is attacked by K on 5f",
            ),
            (
                "9/9/9/9/4k4/4K4/9/9/9 w - 1",
                "(black) is in check: its king on 5f is attacked by k on 5e",
            ),
            ("4k4/9/9/9/8+b/9/9/9/4K4 w - 1", "attacked by +b on 1e"),
            ("4k4/9/9/9/9/9/9/9/4L4 b - 1", "attacked by L on 5i"),
            ("4k4/9/9/9/9/9/9/9/4K4", "fields"),
            ("", "fields"),
        ];
        for (sfen, needle) in cases {
            match parse(sfen) {
                Ok(_) => panic!("accepted bad SFEN {sfen}"),
                Err(e) => assert!(
                    e.to_string().contains(needle),
                    "{sfen}: message '{e}' lacks '{needle}'"
                ),
            }
        }
        // Every single-character corruption of a valid SFEN is handled without a panic.
        let sfen = crate::public_positions::SECOND;
        for i in 0..sfen.len() {
            for replacement in ["", "+", "9", "1", "k", "P", "/", " ", "0", "\u{e9}"] {
                let mutated = format!("{}{replacement}{}", &sfen[..i], &sfen[i + 1..]);
                if let Ok(pos) = parse(&mutated) {
                    assert_eq!(parse(&pos.to_sfen()).unwrap().to_sfen(), pos.to_sfen());
                }
            }
        }
    }

    #[test]
    fn error_messages_quote_and_bound_the_input() {
        let huge = "G".repeat(1 << 20);
        for sfen in [
            format!("{START_SFEN} {huge}"),
            format!("4k4/9/9/9/{huge}/9/9/9/4K4 b - 1"),
            format!("4k4/9/9/9/9/9/9/9/4K4 {huge} - 1"),
            format!("4k4/9/9/9/9/9/9/9/4K4 b - {huge}"),
            format!("4k4/9/9/9/9/9/9/9/4K4 b 2{huge} 1"),
            format!("{huge}/9/9 b - 1"),
        ] {
            let error = parse(&sfen).unwrap_err().to_string();
            assert!(error.len() < 600, "{} bytes: {error}", error.len());
            assert!(error.contains("characters, first 120 shown)"), "{error}");
        }
        let error = parse("4k4/9/9/9/9/9/9/9/4K\u{1b}[2J4 b - 1").unwrap_err();
        let error = error.to_string();
        assert!(error.contains(r"unknown piece letter '\u{1b}'"), "{error}");
        assert!(
            !error.contains('\u{1b}') && !error.contains('\0'),
            "{error}"
        );
        let error = parse("4k4/9/9/9/9/9/9/9/4K4 b - 1\0").unwrap_err();
        assert!(error.to_string().contains(r"'1\0'"), "{error}");
        // Whitespace that only looks like a space does not separate fields.
        for (sfen, code) in [
            ("4k4/9/9/9/9/9/9/9/4K4\u{3000}b - 1", "U+3000"),
            ("4k4/9/9/9/9/9/9/9/4K4 b\u{a0}- 1", "U+00A0"),
            ("4k4/9/9/9/9/9/9/9/4K4 b - 1\u{2003}", "U+2003"),
        ] {
            let error = parse(sfen).unwrap_err().to_string();
            assert!(
                error.contains(&format!(
                    "non-ASCII whitespace {code} is not a field separator"
                )),
                "{error}"
            );
        }
        assert!(parse("  4k4/9/9/9/9/9/9/9/4K4\tb \n - 1\r\n").is_ok());
    }

    #[test]
    fn moves_in_usi_and_make_unmake_restore_everything() {
        let mv = Move::board(
            Square::parse("8h").unwrap(),
            Square::parse("2b").unwrap(),
            true,
        );
        assert_eq!(mv.to_string(), "8h2b+");
        assert_eq!(parse_usi_syntax("8h2b+"), Ok(mv));
        let drop = Move::drop(PieceKind::Pawn, Square::parse("5e").unwrap());
        assert_eq!(drop.to_string(), "P*5e");
        assert_eq!(parse_usi_syntax("P*5e"), Ok(drop));
        assert!(drop.is_drop() && drop.from().is_none());
        assert!(parse_usi_syntax("K*5e").is_err() && parse_usi_syntax("p*5e").is_err());
        assert!(parse_usi_syntax("7g7g").is_err() && parse_usi_syntax("7g7f=").is_err());

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
            pos.do_move(mv);
            assert_eq!(pos.to_sfen(), after_sfen);
        }
        assert_eq!(
            pos.to_sfen(),
            "lnsgkg1nl/1r5s1/pppppp1pp/6p2/5B3/2P6/PP1PPPPPP/7R1/LNSGKGSNL w b 6"
        );
    }
}
