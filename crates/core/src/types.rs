//! Shared shogi vocabulary: squares in canonical numbering, colours, slider and piece kinds,
//! pieces, moves in USI text, the ray walker and step tables, drawing.

use crate::input::quote_input;
use std::fmt;

/// A board square in canonical numbering: `(file - 1) * 9 + (rank - 1)`, so USI `1a` = 0,
/// `1i` = 8, `2a` = 9, `9i` = 80. Always `< 81`: backends index tables with it unchecked.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Square(u8);

impl Square {
    pub const COUNT: usize = 81;

    /// The square with this canonical index, if it is on the board.
    #[inline(always)]
    pub const fn new(index: u8) -> Option<Square> {
        if index < 81 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// # Safety
    /// `index` must be `< 81`.
    #[inline(always)]
    pub const unsafe fn new_unchecked(index: u8) -> Square {
        debug_assert!(index < 81);
        Square(index)
    }

    /// The square on `file` (1–9) and `rank` (1–9, 1 = `a`).
    #[inline(always)]
    pub const fn from_file_rank(file: u8, rank: u8) -> Option<Square> {
        if file >= 1 && file <= 9 && rank >= 1 && rank <= 9 {
            Some(Square((file - 1) * 9 + (rank - 1)))
        } else {
            None
        }
    }

    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// File 1–9 (USI digit).
    #[inline(always)]
    pub const fn file(self) -> u8 {
        self.0 / 9 + 1
    }

    /// Rank 1–9 (1 = `a`, black's far side).
    #[inline(always)]
    pub const fn rank(self) -> u8 {
        self.0 % 9 + 1
    }

    /// The square `file_delta` files and `rank_delta` ranks away, if on the board.
    #[inline]
    pub const fn offset(self, file_delta: i8, rank_delta: i8) -> Option<Square> {
        let file = self.file() as i8 + file_delta;
        let rank = self.rank() as i8 + rank_delta;
        if file < 1 || file > 9 || rank < 1 || rank > 9 {
            None
        } else {
            Square::from_file_rank(file as u8, rank as u8)
        }
    }

    /// Canonical single-square mask.
    #[inline(always)]
    pub const fn bit(self) -> u128 {
        1u128 << self.0
    }

    pub fn all() -> impl Iterator<Item = Square> {
        (0..81u8).map(Square)
    }

    /// Parses USI notation such as `7g`.
    pub fn parse(text: &str) -> Option<Square> {
        let bytes = text.as_bytes();
        if bytes.len() != 2 {
            return None;
        }
        let file = bytes[0].wrapping_sub(b'0');
        let rank = bytes[1].wrapping_sub(b'a') + 1;
        Square::from_file_rank(file, rank)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file(), (b'a' + self.rank() - 1) as char)
    }
}

/// Side: black (sente, moves first, towards rank `a`) or white (gote).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Color {
    Black = 0,
    White = 1,
}

impl Color {
    pub const BOTH: [Color; 2] = [Color::Black, Color::White];

    #[inline(always)]
    pub const fn flip(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Rank delta of one step forward: black moves towards rank 1.
    #[inline(always)]
    pub const fn forward(self) -> i8 {
        match self {
            Color::Black => -1,
            Color::White => 1,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }
}

/// The sliding attack kinds every backend answers.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Slider {
    Rook,
    Bishop,
    Lance(Color),
    /// Promoted rook: rook lines plus the king's step squares.
    Dragon,
    /// Promoted bishop: bishop lines plus the king's step squares.
    Horse,
}

impl Slider {
    pub const ALL: [Slider; 6] = [
        Slider::Rook,
        Slider::Bishop,
        Slider::Lance(Color::Black),
        Slider::Lance(Color::White),
        Slider::Dragon,
        Slider::Horse,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            Slider::Rook => "rook",
            Slider::Bishop => "bishop",
            Slider::Lance(Color::Black) => "lance-black",
            Slider::Lance(Color::White) => "lance-white",
            Slider::Dragon => "dragon",
            Slider::Horse => "horse",
        }
    }

    pub fn parse(text: &str) -> Option<Slider> {
        Slider::ALL.into_iter().find(|s| s.name() == text)
    }
}

impl fmt::Display for Slider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The stepping attack kinds every backend answers.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Stepper {
    King,
    Gold(Color),
    Silver(Color),
    Knight(Color),
    Pawn(Color),
}

impl Stepper {
    pub const ALL: [Stepper; 9] = [
        Stepper::King,
        Stepper::Gold(Color::Black),
        Stepper::Gold(Color::White),
        Stepper::Silver(Color::Black),
        Stepper::Silver(Color::White),
        Stepper::Knight(Color::Black),
        Stepper::Knight(Color::White),
        Stepper::Pawn(Color::Black),
        Stepper::Pawn(Color::White),
    ];

    pub fn name(self) -> String {
        match self {
            Stepper::King => "king".into(),
            Stepper::Gold(c) => format!("gold-{}", c.name()),
            Stepper::Silver(c) => format!("silver-{}", c.name()),
            Stepper::Knight(c) => format!("knight-{}", c.name()),
            Stepper::Pawn(c) => format!("pawn-{}", c.name()),
        }
    }
}

/// The canonical board of all 81 squares.
pub const ALL_SQUARES: u128 = (1u128 << 81) - 1;

/// The one ray walker: the squares reached from `sq` stepping by `(file_delta, rank_delta)`,
/// up to and including the first square set in `occupancy`, else to the edge; `sq` excluded.
/// With `occupancy` 0 it is the full empty-board ray. A `const fn`, so that backends build their
/// tables from it at compile time.
pub const fn ray(occupancy: u128, sq: Square, file_delta: i8, rank_delta: i8) -> u128 {
    let mut attacks = 0u128;
    let mut current = sq;
    while let Some(next) = current.offset(file_delta, rank_delta) {
        attacks |= next.bit();
        if occupancy & next.bit() != 0 {
            break;
        }
        current = next;
    }
    attacks
}

/// Draws a canonical board as shogi diagrams are drawn: file 9 on the left, rank `a` on top.
/// `mark` chooses the character for each square.
pub fn draw_board(mut mark: impl FnMut(Square) -> char) -> String {
    let mut out = String::from("  9 8 7 6 5 4 3 2 1\n");
    for rank in 1..=9u8 {
        out.push(' ');
        for file in (1..=9u8).rev() {
            let sq = Square::from_file_rank(file, rank).expect("on board");
            out.push(' ');
            out.push(mark(sq));
        }
        out.push(' ');
        out.push((b'a' + rank - 1) as char);
        out.push('\n');
    }
    out
}

/// Draws one canonical bitboard: `x` set, `.` clear.
pub fn draw_bits(bits: u128) -> String {
    draw_board(|sq| if bits & sq.bit() != 0 { 'x' } else { '.' })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_numbering_matches_usi() {
        assert_eq!(Square::parse("1a").unwrap().index(), 0);
        assert_eq!(Square::parse("1i").unwrap().index(), 8);
        assert_eq!(Square::parse("2a").unwrap().index(), 9);
        assert_eq!(Square::parse("9i").unwrap().index(), 80);
        for sq in Square::all() {
            assert_eq!(Square::parse(&sq.to_string()), Some(sq));
        }
        assert_eq!(Square::parse("0a"), None);
        assert_eq!(Square::parse("1j"), None);
    }

    #[test]
    fn rays_stop_at_the_first_blocker_or_the_edge() {
        let sq = |text: &str| Square::parse(text).unwrap();
        let bits = |texts: &[&str]| texts.iter().fold(0, |acc, t| acc | sq(t).bit());
        // 5e towards rank a: 5d 5c 5b 5a on an empty board, 5d 5c with a blocker on 5c.
        assert_eq!(ray(0, sq("5e"), 0, -1), bits(&["5d", "5c", "5b", "5a"]));
        assert_eq!(ray(sq("5c").bit(), sq("5e"), 0, -1), bits(&["5d", "5c"]));
        // A blocker behind the slider or off the ray changes nothing; the edge ends the ray.
        assert_eq!(
            ray(bits(&["5f", "4d"]), sq("5e"), 0, -1),
            ray(0, sq("5e"), 0, -1)
        );
        assert_eq!(ray(0, sq("1a"), -1, -1), 0);
        assert_eq!(
            ray(0, sq("1a"), 1, 1),
            bits(&["2b", "3c", "4d", "5e", "6f", "7g", "8h", "9i"])
        );
    }

    #[test]
    fn offsets_stay_on_board() {
        let sq = Square::parse("1a").unwrap();
        assert_eq!(sq.offset(-1, 0), None);
        assert_eq!(sq.offset(0, -1), None);
        assert_eq!(sq.offset(1, 1), Square::parse("2b"));
    }

    #[test]
    fn moves_in_usi_text() {
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
    }
}

/// Piece kinds. The seven that can be in hand come first (their value is the hand index);
/// a promoted kind is its base kind + 8.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
#[repr(u8)]
pub enum PieceKind {
    Pawn = 0,
    Lance = 1,
    Knight = 2,
    Silver = 3,
    Bishop = 4,
    Rook = 5,
    Gold = 6,
    King = 7,
    ProPawn = 8,
    ProLance = 9,
    ProKnight = 10,
    ProSilver = 11,
    Horse = 12,
    Dragon = 13,
}

impl PieceKind {
    pub const COUNT: usize = 14;
    pub const ALL: [PieceKind; 14] = [
        PieceKind::Pawn,
        PieceKind::Lance,
        PieceKind::Knight,
        PieceKind::Silver,
        PieceKind::Bishop,
        PieceKind::Rook,
        PieceKind::Gold,
        PieceKind::King,
        PieceKind::ProPawn,
        PieceKind::ProLance,
        PieceKind::ProKnight,
        PieceKind::ProSilver,
        PieceKind::Horse,
        PieceKind::Dragon,
    ];
    /// The kinds a hand can hold, in hand-index order.
    pub const HAND: [PieceKind; 7] = [
        PieceKind::Pawn,
        PieceKind::Lance,
        PieceKind::Knight,
        PieceKind::Silver,
        PieceKind::Bishop,
        PieceKind::Rook,
        PieceKind::Gold,
    ];
    /// How many of each hand kind exist in a full set (hand-index order).
    pub const HAND_MAX: [u8; 7] = [18, 4, 4, 4, 2, 2, 4];

    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    #[inline(always)]
    pub const fn can_promote(self) -> bool {
        (self as u8) < 6
    }

    #[inline(always)]
    pub const fn is_promoted(self) -> bool {
        (self as u8) >= 8
    }

    /// The promoted kind (itself for kinds that cannot promote).
    #[inline(always)]
    pub const fn promoted(self) -> PieceKind {
        if self.can_promote() {
            PieceKind::ALL[self as usize + 8]
        } else {
            self
        }
    }

    /// The kind as it goes to hand when captured (kings never are in a legal game; they map
    /// to themselves).
    #[inline(always)]
    pub const fn unpromoted(self) -> PieceKind {
        if self.is_promoted() {
            PieceKind::ALL[self as usize - 8]
        } else {
            self
        }
    }

    /// Upper-case SFEN letter of the base kind.
    pub const fn letter(self) -> char {
        match self.unpromoted() {
            PieceKind::Pawn => 'P',
            PieceKind::Lance => 'L',
            PieceKind::Knight => 'N',
            PieceKind::Silver => 'S',
            PieceKind::Bishop => 'B',
            PieceKind::Rook => 'R',
            PieceKind::Gold => 'G',
            _ => 'K',
        }
    }

    /// The unpromoted kind for an SFEN letter of either case.
    pub fn from_letter(letter: char) -> Option<PieceKind> {
        Some(match letter.to_ascii_uppercase() {
            'P' => PieceKind::Pawn,
            'L' => PieceKind::Lance,
            'N' => PieceKind::Knight,
            'S' => PieceKind::Silver,
            'B' => PieceKind::Bishop,
            'R' => PieceKind::Rook,
            'G' => PieceKind::Gold,
            'K' => PieceKind::King,
            _ => return None,
        })
    }

    /// Index into the hand array, for the seven kinds that can be in hand.
    #[inline(always)]
    pub const fn hand_index(self) -> Option<usize> {
        if (self as u8) < 7 {
            Some(self as usize)
        } else {
            None
        }
    }
}

/// The king's eight steps as (file delta, rank delta), the same for both colours.
pub const KING_STEPS: [(i8, i8); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

/// The rook's four directions as (file delta, rank delta): along the file, then along the rank.
pub const ROOK_DIRECTIONS: [(i8, i8); 4] = [(0, -1), (0, 1), (-1, 0), (1, 0)];
/// The bishop's four diagonal directions as (file delta, rank delta).
pub const BISHOP_DIRECTIONS: [(i8, i8); 4] = [(-1, -1), (1, -1), (-1, 1), (1, 1)];

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
/// drop), promotion in bit 14. `repr(transparent)`: move lists store moves as 16-bit words
/// (the drops' lane stores).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(transparent)]
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

    /// The move whose `raw` is `raw`, if those bits name one (a destination square, an origin
    /// square or hand kind, the promotion bit); used to read moves back from a hash table.
    #[inline]
    pub const fn from_raw(raw: u16) -> Option<Move> {
        let to = raw & 0x7F;
        let origin = (raw >> 7) & 0x7F;
        let drop = origin >= 81;
        if raw >> 15 != 0 || to >= 81 || origin >= 81 + 7 || (drop && raw & Move::PROMOTE != 0) {
            None
        } else {
            Some(Move(raw))
        }
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
