//! Reads JSON back (the `results.json` of earlier reports) into `crate::json::Json`.
//!
//! A small recursive-descent parser for RFC 8259 JSON: enough for the files kiki writes and for
//! hand-edited ones; numbers without a fraction or exponent become `Json::Int`.

use crate::json::Json;

/// How deep arrays and objects may nest before the input is refused (guards the stack).
const MAX_DEPTH: usize = 256;

impl Json {
    /// Parses one JSON document; the error names the byte offset and what was expected.
    pub fn parse(text: &str) -> Result<Json, String> {
        let mut parser = Parser {
            bytes: text.as_bytes(),
            at: 0,
        };
        parser.skip_space();
        let value = parser.value(0)?;
        parser.skip_space();
        if parser.at != parser.bytes.len() {
            return Err(parser.error("end of input"));
        }
        Ok(value)
    }

    /// The field `key` of an object (the last one, if repeated).
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(fields) => fields.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Any number as `f64`.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Int(i) => Some(*i as f64),
            Json::Float(f) => Some(*f),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&[(String, Json)]> {
        match self {
            Json::Object(fields) => Some(fields),
            _ => None,
        }
    }
}

struct Parser<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn error(&self, expected: &str) -> String {
        match self.bytes.get(self.at) {
            Some(&b) => format!(
                "JSON: expected {expected} at byte {}, found '{}'",
                self.at,
                (b as char).escape_default()
            ),
            None => format!(
                "JSON: expected {expected} at byte {}, found end of input",
                self.at
            ),
        }
    }

    fn skip_space(&mut self) {
        while matches!(self.bytes.get(self.at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        if self.bytes.get(self.at) == Some(&byte) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn literal(&mut self, word: &str, value: Json) -> Result<Json, String> {
        if self.bytes[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            Ok(value)
        } else {
            Err(self.error(word))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, String> {
        if depth > MAX_DEPTH {
            return Err(format!(
                "JSON: nested deeper than {MAX_DEPTH} at byte {}",
                self.at
            ));
        }
        match self.bytes.get(self.at) {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => self.string().map(Json::Str),
            Some(b't') => self.literal("true", Json::Bool(true)),
            Some(b'f') => self.literal("false", Json::Bool(false)),
            Some(b'n') => self.literal("null", Json::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.error("a value")),
        }
    }

    fn array(&mut self, depth: usize) -> Result<Json, String> {
        self.at += 1;
        let mut items = Vec::new();
        self.skip_space();
        if self.eat(b']') {
            return Ok(Json::Array(items));
        }
        loop {
            self.skip_space();
            items.push(self.value(depth + 1)?);
            self.skip_space();
            if self.eat(b']') {
                return Ok(Json::Array(items));
            }
            if !self.eat(b',') {
                return Err(self.error("',' or ']'"));
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Json, String> {
        self.at += 1;
        let mut fields = Vec::new();
        self.skip_space();
        if self.eat(b'}') {
            return Ok(Json::Object(fields));
        }
        loop {
            self.skip_space();
            if self.bytes.get(self.at) != Some(&b'"') {
                return Err(self.error("a string key"));
            }
            let key = self.string()?;
            self.skip_space();
            if !self.eat(b':') {
                return Err(self.error("':'"));
            }
            self.skip_space();
            let value = self.value(depth + 1)?;
            fields.push((key, value));
            self.skip_space();
            if self.eat(b'}') {
                return Ok(Json::Object(fields));
            }
            if !self.eat(b',') {
                return Err(self.error("',' or '}'"));
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let digits = self
            .bytes
            .get(self.at..self.at + 4)
            .and_then(|d| std::str::from_utf8(d).ok())
            .and_then(|d| u32::from_str_radix(d, 16).ok())
            .ok_or_else(|| self.error("four hex digits"))?;
        self.at += 4;
        Ok(digits)
    }

    fn string(&mut self) -> Result<String, String> {
        self.at += 1; // the opening quote
        let mut out = String::new();
        loop {
            let start = self.at;
            while let Some(&b) = self.bytes.get(self.at) {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.at += 1;
            }
            // The input is a &str and we stop only on ASCII bytes, so this slice is valid UTF-8.
            out.push_str(std::str::from_utf8(&self.bytes[start..self.at]).expect("UTF-8 slice"));
            match self.bytes.get(self.at) {
                Some(b'"') => {
                    self.at += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.at += 1;
                    let escape = self.bytes.get(self.at).copied();
                    self.at += 1;
                    match escape {
                        Some(b'"') => out.push('"'),
                        Some(b'\\') => out.push('\\'),
                        Some(b'/') => out.push('/'),
                        Some(b'b') => out.push('\u{8}'),
                        Some(b'f') => out.push('\u{c}'),
                        Some(b'n') => out.push('\n'),
                        Some(b'r') => out.push('\r'),
                        Some(b't') => out.push('\t'),
                        Some(b'u') => out.push(self.unicode_escape()?),
                        _ => {
                            self.at -= 1;
                            return Err(self.error("an escape character"));
                        }
                    }
                }
                _ => return Err(self.error("'\"' closing the string")),
            }
        }
    }

    /// `\uXXXX`, joining a UTF-16 surrogate pair into one character.
    fn unicode_escape(&mut self) -> Result<char, String> {
        let first = self.hex4()?;
        let code = if (0xd800..0xdc00).contains(&first) {
            if !(self.eat(b'\\') && self.eat(b'u')) {
                return Err(self.error("a low surrogate \\u escape"));
            }
            let second = self.hex4()?;
            if !(0xdc00..0xe000).contains(&second) {
                return Err(format!("JSON: bad low surrogate before byte {}", self.at));
            }
            0x10000 + ((first - 0xd800) << 10) + (second - 0xdc00)
        } else {
            first
        };
        char::from_u32(code).ok_or_else(|| format!("JSON: bad \\u escape before byte {}", self.at))
    }

    fn number(&mut self) -> Result<Json, String> {
        let start = self.at;
        self.eat(b'-');
        let digits = |p: &mut Self| {
            let from = p.at;
            while matches!(p.bytes.get(p.at), Some(b'0'..=b'9')) {
                p.at += 1;
            }
            p.at - from
        };
        let leading_zero = self.bytes.get(self.at) == Some(&b'0');
        let integer_digits = digits(self);
        if integer_digits == 0 || (leading_zero && integer_digits > 1) {
            self.at = start;
            return Err(self.error("a number"));
        }
        let mut is_float = false;
        if self.eat(b'.') {
            is_float = true;
            if digits(self) == 0 {
                return Err(self.error("digits after '.'"));
            }
        }
        if self.eat(b'e') || self.eat(b'E') {
            is_float = true;
            if !self.eat(b'+') {
                self.eat(b'-');
            }
            if digits(self) == 0 {
                return Err(self.error("exponent digits"));
            }
        }
        let text = std::str::from_utf8(&self.bytes[start..self.at]).expect("ASCII digits");
        if !is_float {
            if let Ok(i) = text.parse::<i128>() {
                return Ok(Json::Int(i));
            }
        }
        text.parse::<f64>()
            .map(Json::Float)
            .map_err(|_| format!("JSON: bad number '{text}' at byte {start}"))
    }
}

#[cfg(test)]
mod tests {
    use crate::json::Json;

    #[test]
    fn parses_what_the_writer_writes() {
        let value = Json::object([
            ("name", Json::str("a\"b\\c\n\t\u{1} 利き")),
            ("n", Json::Int(-3)),
            ("big", Json::Int(1 << 100)),
            ("x", Json::Float(0.5)),
            ("tiny", Json::Float(1.25e-7)),
            ("ok", Json::Bool(true)),
            ("no", Json::Bool(false)),
            (
                "list",
                Json::Array(vec![Json::Null, Json::Int(1), Json::Array(vec![])]),
            ),
            ("empty", Json::object(Vec::<(String, Json)>::new())),
        ]);
        assert_eq!(Json::parse(&value.render()).unwrap(), value);
    }

    #[test]
    fn parses_spacing_escapes_and_exponents() {
        let text =
            " { \"a\" : [ 1 , 2.0 , -0 , 1e3 , 2E-2 ] ,\n \"s\" : \"\\u00e9\\ud83d\\ude00\\/\" } ";
        let value = Json::parse(text).unwrap();
        let list = value.get("a").unwrap().as_array().unwrap();
        assert_eq!(list[0], Json::Int(1));
        assert_eq!(list[1], Json::Float(2.0));
        assert_eq!(list[2], Json::Int(0));
        assert_eq!(list[3].as_f64(), Some(1000.0));
        assert_eq!(list[4].as_f64(), Some(0.02));
        assert_eq!(value.get("s").unwrap().as_str(), Some("é😀/"));
        assert_eq!(value.get("missing"), None);
    }

    #[test]
    fn rejects_malformed_input_with_a_position() {
        for (text, expected) in [
            ("", "a value"),
            ("[1,]", "a value"),
            ("{\"a\" 1}", "':'"),
            ("{\"a\":1,}", "a string key"),
            ("[1 2]", "',' or ']'"),
            ("\"open", "closing the string"),
            ("01", "a number"),
            ("1.", "digits after '.'"),
            ("1e", "exponent digits"),
            ("tru", "true"),
            ("\"\\x\"", "an escape character"),
            ("\"\\ud800\"", "low surrogate"),
            ("[] []", "end of input"),
            ("\"a\nb\"", "closing the string"),
        ] {
            let error = Json::parse(text).unwrap_err();
            assert!(error.contains(expected), "{text:?}: {error}");
            assert!(error.contains("byte"), "{text:?}: {error}");
        }
        let deep = "[".repeat(1000);
        assert!(Json::parse(&deep).unwrap_err().contains("nested deeper"));
    }
}
