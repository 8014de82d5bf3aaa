//! SFEN in and out: parsing with errors that say what and where, formatting, the start position.

use super::{Hand, Position};
use crate::hands::HandLayout;
use kiki_core::backend::{Backend, Bitboard};
use kiki_core::input::{non_ascii_whitespace, quote_input};
use kiki_core::types::{Color, Piece, PieceKind, Square};
use std::fmt;

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
pub const START_SFEN: &str = kiki_core::public_positions::START;

fn count_prefix(count: u8) -> String {
    if count > 1 {
        count.to_string()
    } else {
        String::new()
    }
}

impl<B: Backend> Position<B> {
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
        // The text is parsed and checked once, for every backend, by code that is not
        // generic: only placing the pieces and the one check that needs attacks are.
        let parsed = ParsedSfen::parse(sfen)?;
        let mut pos = Position::empty(backend);
        for sq in Square::all() {
            if let Some(piece) = parsed.board[sq.index()] {
                pos.put_piece(piece, sq);
            }
        }
        pos.side = parsed.side;
        pos.hands = parsed.hands.map(Hand::from_counts);
        pos.move_number = parsed.move_number;
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
}

/// An SFEN's contents, parsed and checked for everything that needs no attacks: the same for
/// every backend, so compiled once rather than once per backend.
struct ParsedSfen {
    board: [Option<Piece>; 81],
    side: Color,
    /// `[colour][hand index]` piece counts.
    hands: [[u8; 7]; 2],
    move_number: u32,
    kings: [Option<Square>; 2],
    /// `[colour]`: bit `file` set where that colour has an unpromoted pawn (二歩).
    pawn_files: [u16; 2],
}

impl ParsedSfen {
    fn parse(sfen: &str) -> Result<ParsedSfen, SfenError> {
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
        let mut parsed = ParsedSfen {
            board: [None; 81],
            side: Color::Black,
            hands: [[0; 7]; 2],
            move_number: 1,
            kings: [None; 2],
            pawn_files: [0; 2],
        };
        parsed.parse_board(fields[0])?;
        parsed.side = match fields[1] {
            "b" => Color::Black,
            "w" => Color::White,
            other => {
                return Err(SfenError::new(format!(
                    "side to move must be 'b' or 'w', found {}",
                    quote_input(other)
                )))
            }
        };
        parsed.parse_hands(fields[2])?;
        if let Some(number) = fields.get(3) {
            parsed.move_number = match number.parse::<u32>() {
                Ok(n) if n >= 1 && number.bytes().all(|b| b.is_ascii_digit()) => n,
                _ => {
                    return Err(SfenError::new(format!(
                        "move number must be a positive integer, found {}",
                        quote_input(number)
                    )))
                }
            };
        }
        parsed.check_counts()?;
        Ok(parsed)
    }

    fn put(&mut self, piece: Piece, sq: Square) {
        self.board[sq.index()] = Some(piece);
        match piece.kind {
            PieceKind::King => self.kings[piece.color.index()] = Some(sq),
            PieceKind::Pawn => self.pawn_files[piece.color.index()] |= 1 << sq.file(),
            _ => {}
        }
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
                if kind == PieceKind::Pawn && self.pawn_files[color.index()] & (1 << file) != 0 {
                    return Err(SfenError::new(format!(
                        "two unpromoted {} pawns on file {file} (nifu), at {}",
                        color.name(),
                        at()
                    )));
                }
                self.put(Piece::new(color, kind), sq);
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
        self.hands = counts;
        Ok(())
    }

    /// Board plus hands may not hold more of a kind than a set has.
    fn check_counts(&self) -> Result<(), SfenError> {
        for (hand_index, &kind) in PieceKind::HAND.iter().enumerate() {
            let on_board = self
                .board
                .iter()
                .flatten()
                .filter(|piece| {
                    piece.kind == kind || (kind.can_promote() && piece.kind == kind.promoted())
                })
                .count() as u32;
            let total =
                on_board + self.hands[0][hand_index] as u32 + self.hands[1][hand_index] as u32;
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
}

impl<B: Backend> Position<B> {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiki_core::reference::Reference;

    fn parse(sfen: &str) -> Result<Position<Reference>, SfenError> {
        Position::from_sfen(Reference, sfen)
    }

    #[test]
    fn sfen_round_trips_exactly() {
        for sfen in [
            START_SFEN,
            kiki_core::public_positions::SECOND,
            kiki_core::public_positions::THIRD,
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
        let sfen = kiki_core::public_positions::SECOND;
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
}
