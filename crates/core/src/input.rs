//! Untrusted text from users and files: quoting it safely into messages, and reading
//! positions files with bounded memory.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// How many characters of an input `quote_input` shows before cutting it short.
pub const QUOTE_MAX_CHARS: usize = 120;

/// The longest line a positions file may have, in bytes (without its line end). An SFEN is
/// about 100 bytes; the cap keeps a file without line ends (`/dev/zero`) from filling memory.
pub const MAX_LINE_BYTES: usize = 4096;

/// The most lines (comments and blank lines included) a positions file may have.
pub const MAX_LINES: usize = 10_000_000;

/// The most positions a positions file may hold (about 100 MB of SFEN text).
pub const MAX_POSITIONS: usize = 1_000_000;

/// `text` in single quotes for an error message: control and other non-printing characters
/// (and whitespace other than the ASCII space, `'` and `\`) escaped Rust-style as `\u{1b}`,
/// `\n`, `\'`, so nothing reaches the terminal raw; ordinary non-ASCII letters such as 歩 stay
/// readable. Longer inputs are cut to their first 120 characters, followed by `…` and the total
/// length: `'lnsg…' (1048576 characters, first 120 shown)`.
pub fn quote_input(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(4 * QUOTE_MAX_CHARS) + 2);
    out.push('\'');
    for (shown, ch) in text.chars().enumerate() {
        if shown == QUOTE_MAX_CHARS {
            out.push_str(&format!(
                "…' ({} characters, first {QUOTE_MAX_CHARS} shown)",
                text.chars().count()
            ));
            return out;
        }
        push_escaped(&mut out, ch);
    }
    out.push('\'');
    out
}

fn push_escaped(out: &mut String, ch: char) {
    match ch {
        ' ' | '"' => out.push(ch),
        // escape_debug leaves some whitespace (NBSP, U+3000) as is: it would look like a space.
        _ if ch.is_whitespace() && !matches!(ch, '\t' | '\n' | '\r') => {
            out.push_str(&format!("\\u{{{:x}}}", ch as u32))
        }
        _ => out.extend(ch.escape_debug()),
    }
}

/// The first whitespace character in `text` that is not ASCII (NBSP, U+3000, …), which SFEN
/// and positions files do not take as a separator.
pub fn non_ascii_whitespace(text: &str) -> Option<char> {
    text.chars().find(|c| c.is_whitespace() && !c.is_ascii())
}

/// Reads a positions file: one SFEN a line, blank lines and `#` comments skipped. Returns
/// (line number, trimmed text) for each position, unvalidated: the caller parses the SFEN.
/// Reading is bounded (`MAX_LINE_BYTES`, `MAX_LINES`, `MAX_POSITIONS`), so a device or a
/// huge file ends with an error instead of exhausting memory. Errors are one line and start
/// with the quoted path.
pub fn read_positions_file(path: &Path) -> Result<Vec<(usize, String)>, String> {
    let origin = path.to_string_lossy();
    let file = std::fs::File::open(path)
        .map_err(|error| format!("{}: cannot read: {error}", quote_input(&origin)))?;
    positions_from_reader(BufReader::new(file), &origin)
}

/// The rules of `read_positions_file` over bytes in memory; `origin` names them in errors.
/// A UTF-8 byte order mark at the very start is skipped; invalid UTF-8, non-ASCII whitespace
/// and over-long lines are errors naming the line.
pub fn positions_from_bytes(bytes: &[u8], origin: &str) -> Result<Vec<(usize, String)>, String> {
    positions_from_reader(bytes, origin)
}

fn positions_from_reader<R: BufRead>(
    mut reader: R,
    origin: &str,
) -> Result<Vec<(usize, String)>, String> {
    let fail = |message: String| format!("{}: {message}", quote_input(origin));
    let mut positions = Vec::new();
    let mut line = Vec::new();
    for number in 1.. {
        if number > MAX_LINES {
            return Err(fail(format!("more than {MAX_LINES} lines")));
        }
        line.clear();
        // One byte past the cap tells an over-long line from one exactly at the cap.
        let read = (&mut reader)
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)
            .map_err(|error| fail(format!("line {number}: cannot read: {error}")))?;
        if read == 0 {
            break;
        }
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        if line.len() > MAX_LINE_BYTES {
            return Err(fail(format!(
                "line {number}: longer than {MAX_LINE_BYTES} bytes"
            )));
        }
        let mut bytes = &line[..];
        if number == 1 {
            bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        }
        let text = std::str::from_utf8(bytes).map_err(|error| {
            fail(format!(
                "line {number}: invalid UTF-8 at byte {}",
                error.valid_up_to() + 1
            ))
        })?;
        if let Some(space) = non_ascii_whitespace(text) {
            return Err(fail(format!(
                "line {number}: non-ASCII whitespace U+{:04X} is not a field separator",
                space as u32
            )));
        }
        let text = text.trim_ascii();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        if positions.len() == MAX_POSITIONS {
            return Err(fail(format!(
                "line {number}: more than {MAX_POSITIONS} positions"
            )));
        }
        positions.push((number, text.to_string()));
    }
    Ok(positions)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quote_input_escapes_and_truncates() {
        assert_eq!(quote_input("lnsg 歩"), "'lnsg 歩'");
        assert_eq!(quote_input(""), "''");
        assert_eq!(quote_input("a\u{1b}[2Jb\0"), r"'a\u{1b}[2Jb\0'");
        assert_eq!(quote_input("x\ny\t"), r"'x\ny\t'");
        assert_eq!(quote_input("it's"), r"'it\'s'");
        assert_eq!(quote_input("a\u{3000}b\u{a0}"), r"'a\u{3000}b\u{a0}'");
        // Bidirectional overrides and zero-width characters would hide or reorder text.
        assert_eq!(quote_input("\u{202e}\u{200b}"), r"'\u{202e}\u{200b}'");
        let long = "p".repeat(1 << 20);
        let quoted = quote_input(&long);
        assert_eq!(
            quoted,
            format!(
                "'{}…' (1048576 characters, first 120 shown)",
                "p".repeat(120)
            )
        );
        let exact = "歩".repeat(120);
        assert_eq!(quote_input(&exact), format!("'{exact}'"));
    }

    #[test]
    fn positions_are_read_line_by_line_with_comments_and_a_bom() {
        let text = b"\xEF\xBB\xBF# first\n\n  4k4/9/9/9/9/9/9/9/4K4 b - 1 \r\n#x\nsecond b - 1";
        assert_eq!(
            positions_from_bytes(text, "f").unwrap(),
            vec![
                (3, "4k4/9/9/9/9/9/9/9/4K4 b - 1".to_string()),
                (5, "second b - 1".to_string())
            ]
        );
        assert_eq!(positions_from_bytes(b"", "f").unwrap(), vec![]);
        // A byte order mark later on is not skipped: the SFEN parser will reject it.
        let later = positions_from_bytes(b"a\n\xEF\xBB\xBFb", "f").unwrap();
        assert_eq!(later[1].1, "\u{feff}b");
    }

    #[test]
    fn bad_files_are_one_line_errors_naming_the_line() {
        let cases: &[(&[u8], &str)] = &[
            (b"ok\n\xFFbad\n", "'f': line 2: invalid UTF-8 at byte 1"),
            (
                "a\nb\n4k4\u{3000}b - 1".as_bytes(),
                "'f': line 3: non-ASCII whitespace U+3000 is not a field separator",
            ),
            (
                "4k4/9/9/9/9/9/9/9/4K4\u{a0}b - 1".as_bytes(),
                "'f': line 1: non-ASCII whitespace U+00A0 is not a field separator",
            ),
        ];
        for (bytes, expected) in cases {
            assert_eq!(positions_from_bytes(bytes, "f").unwrap_err(), *expected);
        }
        let long = vec![b'p'; MAX_LINE_BYTES + 1];
        assert_eq!(
            positions_from_bytes(&long, "f").unwrap_err(),
            "'f': line 1: longer than 4096 bytes"
        );
        let mut at_cap = vec![b'p'; MAX_LINE_BYTES];
        at_cap.push(b'\n');
        assert_eq!(positions_from_bytes(&at_cap, "f").unwrap()[0].0, 1);
        let error = positions_from_bytes(b"\xFF", "a\u{1b}b").unwrap_err();
        assert!(error.starts_with(r"'a\u{1b}b': "), "{error}");
    }

    #[cfg(unix)]
    #[test]
    fn reading_a_device_or_missing_file_ends_with_an_error() {
        let error = read_positions_file(Path::new("/dev/zero")).unwrap_err();
        assert_eq!(error, "'/dev/zero': line 1: longer than 4096 bytes");
        let error = read_positions_file(Path::new("/nonexistent/x")).unwrap_err();
        assert!(
            error.starts_with("'/nonexistent/x': cannot read: "),
            "{error}"
        );
        assert_eq!(error.lines().count(), 1);
    }
}
