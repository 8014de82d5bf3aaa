//! The GUIDE's public perft positions and their published counts, from one data file, and the
//! middle game the random-game tests and the effects timing also start from.
//!
//! `tests/data/public_perft.sfen` is embedded, so tests, benches, the harness and
//! `scripts/peer-perft.sh` all read the same positions and counts. The SFENs are constants
//! (parsed by a `const fn`), so they can sit in constant arrays such as game starts.

/// The data file: `name | SFEN | count at depth 1, 2, ...` a line, `#` comments.
pub const DATA: &str = include_str!("../../../tests/data/public_perft.sfen");

/// The start position.
pub const START: &str = sfen_of("start");
/// The GUIDE's second position: a middle game, white to move, with pieces in hand.
pub const SECOND: &str = sfen_of("second");
/// The GUIDE's third position: sliders on open lines, many drops.
pub const THIRD: &str = sfen_of("third");

/// A middle game with sliders on open lines, black to move with a gold in hand: a game start
/// for the random-game tests and the effects timing. Not one of the GUIDE's perft positions
/// (no published counts), so not in the data file.
pub const MIDDLE_GAME: &str =
    "ln1g3nl/1ks2r3/1pppp1bpp/p3spp2/9/P1P1P1P1P/1PSP1PNP1/1BK1GS2R/LN1G4L b G 1";

/// The published perft counts of one of the positions above, depth 1 first.
///
/// # Panics
/// If `sfen` is not a line of the data file.
pub fn published_counts(sfen: &str) -> Vec<u64> {
    lines()
        .find(|fields| fields[1] == sfen)
        .unwrap_or_else(|| panic!("{sfen}: not in tests/data/public_perft.sfen"))[2]
        .split_ascii_whitespace()
        .map(|n| n.parse().expect("a count in tests/data/public_perft.sfen"))
        .collect()
}

/// The data lines, each split into its three trimmed fields.
pub fn lines() -> impl Iterator<Item = [&'static str; 3]> {
    DATA.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let mut fields = line.split('|').map(str::trim);
            let mut next = || fields.next().expect("three fields a line");
            [next(), next(), next()]
        })
}

/// The SFEN of the line named `name`, found at compile time (a `const fn` cannot use
/// `str::lines`, hence the byte loops).
const fn sfen_of(name: &str) -> &'static str {
    let data = DATA.as_bytes();
    let name = name.as_bytes();
    let mut start = 0;
    while start < data.len() {
        let mut end = start;
        while end < data.len() && data[end] != b'\n' {
            end += 1;
        }
        let line = data.split_at(end).0.split_at(start).1;
        if is_named(line, name) {
            // Between the first and the second `|`, trimmed of spaces.
            let mut from = name.len();
            while from < line.len() && line[from] != b'|' {
                from += 1;
            }
            from += 1;
            let mut to = from;
            while to < line.len() && line[to] != b'|' {
                to += 1;
            }
            while from < to && line[from] == b' ' {
                from += 1;
            }
            while to > from && line[to - 1] == b' ' {
                to -= 1;
            }
            let sfen = line.split_at(to).0.split_at(from).1;
            return match std::str::from_utf8(sfen) {
                Ok(text) => text,
                Err(_) => panic!("tests/data/public_perft.sfen is not UTF-8"),
            };
        }
        start = end + 1;
    }
    panic!("a position named in src/public_positions.rs is missing from its data file");
}

/// Whether `line` starts with `name` followed by a space or `|`.
const fn is_named(line: &[u8], name: &[u8]) -> bool {
    if line.len() <= name.len() {
        return false;
    }
    let mut i = 0;
    while i < name.len() {
        if line[i] != name[i] {
            return false;
        }
        i += 1;
    }
    line[name.len()] == b' ' || line[name.len()] == b'|'
}
