//! Property tests: SFEN round trips on positions from legal play, and no panic from any input
//! a user or a file can hand to the SFEN parser, the positions reader or the report readers.

use crate::common;
use common::TempDir;

use kiki_core::backend::Bitboard;
use kiki_core::input::{positions_from_bytes, quote_input};
use kiki_core::reference::Reference;
use kiki_engine::movegen::MoveList;
use kiki_engine::position::{Position, START_SFEN};
use kiki_harness::experiments::e9_isa_levels::{self, IsaRun};
use kiki_harness::index::rebuild;
use kiki_harness::readback::{parse_report, read_report};
use kiki_harness::results::{ExperimentResult, Series};
use proptest::prelude::*;
use serde_json::Value as Json;

/// The start position for the drops-heavy games: bare kings, most of a set in hand.
const HANDS_SFEN: &str = "4k4/9/9/9/9/9/9/9/4K4 b RB2G2S2N2L9Prb2g2s2n2l9p 1";

/// Plays `choices` from `sfen`: each choice picks a legal move (modulo their number); with
/// `prefer_drops`, a drop whenever there is one. Stops early at a mate.
fn play(sfen: &str, choices: &[u16], prefer_drops: bool) -> Position<Reference> {
    let mut pos = Position::from_sfen(Reference, sfen).unwrap();
    let mut list = MoveList::new();
    for &choice in choices {
        pos.legal_moves(&mut list);
        let mut moves: Vec<_> = list.as_slice().to_vec();
        if prefer_drops && moves.iter().any(|m| m.is_drop()) {
            moves.retain(|m| m.is_drop());
        }
        if moves.is_empty() {
            break;
        }
        pos.do_move(moves[choice as usize % moves.len()]);
    }
    pos
}

/// parse(write(pos)) is pos: the same SFEN, key, side, every square and both hands, and the
/// text is a fixed point.
fn assert_round_trip(pos: &Position<Reference>) -> Result<(), TestCaseError> {
    let sfen = pos.to_sfen();
    let parsed = Position::from_sfen(Reference, &sfen)
        .map_err(|e| TestCaseError::fail(format!("{sfen}: {e}")))?;
    prop_assert_eq!(parsed.to_sfen(), sfen.clone());
    prop_assert_eq!(parsed.key(), pos.key());
    prop_assert_eq!(parsed.key(), parsed.key_from_scratch());
    prop_assert_eq!(parsed.side_to_move(), pos.side_to_move());
    for sq in kiki_core::types::Square::all() {
        prop_assert_eq!(parsed.piece_at(sq), pos.piece_at(sq));
    }
    for color in kiki_core::types::Color::BOTH {
        prop_assert_eq!(parsed.hand(color), pos.hand(color));
    }
    let again = Position::from_sfen(Reference, &parsed.to_sfen()).unwrap();
    prop_assert_eq!(again.to_sfen(), sfen);
    Ok(())
}

/// Whatever `from_sfen` accepts writes back to an SFEN it accepts again, unchanged, and
/// leaves no king of the side not to move attacked.
fn check_accepted(text: &str) -> Result<(), TestCaseError> {
    if let Ok(pos) = Position::from_sfen(Reference, text) {
        assert_round_trip(&pos)?;
        let side = pos.side_to_move();
        if let Some(king) = pos.king_square(side.flip()) {
            prop_assert!(pos.attackers_to(king, side).is_empty(), "{}", text);
        }
    }
    Ok(())
}

/// Every message quotes the input, so none may carry a raw control character or grow with it.
fn check_error_is_tame(text: &str) -> Result<(), TestCaseError> {
    if let Err(error) = Position::from_sfen(Reference, text) {
        let message = error.to_string();
        prop_assert!(!message.chars().any(char::is_control), "{:?}", message);
        prop_assert!(message.chars().count() < 1200, "{}", message.len());
    }
    Ok(())
}

const SFEN_ALPHABET: &[char] = &[
    'l', 'n', 's', 'g', 'k', 'b', 'r', 'p', 'L', 'N', 'S', 'G', 'K', 'B', 'R', 'P', '+', '0', '1',
    '2', '3', '4', '5', '6', '7', '8', '9', '/', ' ', 'b', 'w', '-',
];

fn sfen_char() -> impl Strategy<Value = char> {
    prop::sample::select(SFEN_ALPHABET)
}

/// SFEN-shaped text: nine rows of board letters and digits, a side, a hand and a number, so
/// that the parser gets past the field split and deep into the rows.
fn sfen_like() -> impl Strategy<Value = String> {
    (
        prop::collection::vec("[lnsgkbrpLNSGKBRP+1-9]{0,11}", 7..=10),
        "[bw]",
        "-|[RBGSNLPrbgsnlp0-9]{1,8}",
        "[0-9]{0,3}",
    )
        .prop_map(|(rows, side, hand, number)| format!("{} {side} {hand} {number}", rows.join("/")))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn sfen_round_trips_after_legal_play(choices in prop::collection::vec(any::<u16>(), 0..150)) {
        assert_round_trip(&play(START_SFEN, &choices, false))?;
    }

    #[test]
    fn sfen_round_trips_after_drops(choices in prop::collection::vec(any::<u16>(), 0..60)) {
        assert_round_trip(&play(HANDS_SFEN, &choices, true))?;
    }

    #[test]
    fn tactical_positions_round_trip(seed in any::<u64>()) {
        for sfen in kiki_engine::mate1::tactical_positions(Reference, seed, 8) {
            let pos = Position::from_sfen(Reference, &sfen)
                .map_err(|e| TestCaseError::fail(format!("{sfen}: {e}")))?;
            assert_round_trip(&pos)?;
        }
    }

    #[test]
    fn arbitrary_text_never_panics_the_sfen_parser(text in any::<String>()) {
        check_accepted(&text)?;
        check_error_is_tame(&text)?;
    }

    #[test]
    fn arbitrary_bytes_never_panic_the_readers(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let text = String::from_utf8_lossy(&bytes);
        check_accepted(&text)?;
        check_error_is_tame(&text)?;
        match positions_from_bytes(&bytes, "fuzz") {
            Ok(lines) => {
                for (number, line) in lines {
                    prop_assert!(number >= 1);
                    prop_assert!(!line.is_empty() && !line.starts_with('#'));
                    check_accepted(&line)?;
                }
            }
            Err(error) => {
                prop_assert!(error.starts_with("'fuzz': "), "{}", error);
                prop_assert_eq!(error.lines().count(), 1);
            }
        }
    }

    #[test]
    fn sfen_alphabet_soup_never_panics(chars in prop::collection::vec(sfen_char(), 0..120)) {
        let text: String = chars.into_iter().collect();
        check_accepted(&text)?;
        check_error_is_tame(&text)?;
    }

    #[test]
    fn sfen_shaped_text_never_panics(text in sfen_like()) {
        check_accepted(&text)?;
        check_error_is_tame(&text)?;
    }

    /// One-character edits of positions from legal play: the parser's deepest checks (counts,
    /// nifu, kings, a waiting king in check) are reached often.
    #[test]
    fn edited_legal_positions_never_panic(
        choices in prop::collection::vec(any::<u16>(), 0..80),
        edits in prop::collection::vec((any::<prop::sample::Index>(), sfen_char()), 1..4),
    ) {
        let mut chars: Vec<char> = play(START_SFEN, &choices, false).to_sfen().chars().collect();
        for (at, ch) in edits {
            let i = at.index(chars.len());
            chars[i] = ch;
        }
        let text: String = chars.into_iter().collect();
        check_accepted(&text)?;
        check_error_is_tame(&text)?;
    }

    #[test]
    fn quote_input_is_bounded_and_free_of_control_characters(text in any::<String>()) {
        let quoted = quote_input(&text);
        prop_assert!(quoted.starts_with('\''));
        prop_assert!(!quoted.chars().any(char::is_control), "{:?}", quoted);
        // Each shown character escapes to at most `\u{10ffff}` (10 characters).
        prop_assert!(quoted.chars().count() <= 120 * 10 + 60);
    }
}

/// The key names of a real `results.json`, so generated objects often look like one.
const RESULT_KEYS: &[&str] = &[
    "schema_version",
    "machine",
    "experiments",
    "id",
    "summary",
    "tables",
    "series",
    "labels",
    "unit",
    "samples",
    "backend",
    "backends",
    "name",
    "table_bytes",
    "cpu_model",
    "family",
    "model",
    "caches",
    "level",
    "bytes",
    "type",
    "date",
    "best",
    "fastest_x",
    "throughput_best_a",
    "best_backend_per_geometry",
    "E1",
    "E7",
    "E9",
];

fn json_key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(RESULT_KEYS).prop_map(str::to_string),
        1 => any::<String>(),
    ]
}

fn json_value() -> impl Strategy<Value = Json> {
    let leaf = prop_oneof![
        Just(Json::Null),
        any::<bool>().prop_map(Json::Bool),
        any::<i64>().prop_map(Json::from),
        (-3i64..3).prop_map(Json::from),
        any::<f64>().prop_map(Json::from),
        any::<String>().prop_map(Json::String),
        prop::sample::select(RESULT_KEYS).prop_map(Json::from),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Json::Array),
            prop::collection::vec((json_key(), inner), 0..6)
                .prop_map(|fields| Json::Object(fields.into_iter().collect())),
        ]
    })
}

/// A `results.json` that passes the shape checks but carries arbitrary values everywhere else,
/// so the typed reader and the index renderer meet odd shapes.
fn valid_shaped_results() -> impl Strategy<Value = Json> {
    (
        prop::collection::vec((json_key(), json_value()), 0..4),
        prop::collection::vec(
            (
                prop::sample::select(&["E1", "E2", "E7", "E9", "x"][..]),
                prop::collection::vec((json_key(), json_value()), 0..4),
            ),
            0..4,
        ),
        prop::collection::vec((json_key(), json_value()), 0..3),
        1u32..=2,
    )
        .prop_map(|(machine, experiments, extra, version)| {
            let experiments = experiments
                .into_iter()
                .map(|(id, mut fields)| {
                    fields.push(("id".to_string(), Json::from(id)));
                    Json::Object(fields.into_iter().collect())
                })
                .collect();
            let mut fields = extra;
            fields.extend([
                ("schema_version".to_string(), Json::from(version)),
                (
                    "machine".to_string(),
                    Json::Object(machine.into_iter().collect()),
                ),
                ("experiments".to_string(), Json::Array(experiments)),
            ]);
            Json::Object(fields.into_iter().collect())
        })
}

/// Writes `texts` as report folders under `dir` and rebuilds the index: no panic, and exactly
/// the folders whose text reads back are indexed.
fn index_folders(dir: &TempDir, texts: &[String]) -> Result<(), TestCaseError> {
    for entry in std::fs::read_dir(&dir.0).unwrap() {
        let entry = entry.unwrap();
        if entry.path().is_dir() {
            std::fs::remove_dir_all(entry.path()).unwrap();
        }
    }
    let mut valid = 0;
    for (i, text) in texts.iter().enumerate() {
        let folder = dir.0.join(format!("r{i}"));
        std::fs::create_dir(&folder).unwrap();
        let path = folder.join("results.json");
        std::fs::write(&path, text).unwrap();
        if read_report(&path).is_ok() {
            valid += 1;
        }
    }
    let rebuilt = rebuild(&dir.0).map_err(TestCaseError::fail)?;
    prop_assert_eq!(rebuilt.indexed, valid);
    prop_assert_eq!(rebuilt.skipped.len(), texts.len() - valid);
    for reason in &rebuilt.skipped {
        prop_assert_eq!(reason.lines().count(), 1);
    }
    Ok(())
}

/// A series with arbitrary labels, unit and samples (NaN and infinities included).
fn any_series() -> impl Strategy<Value = Series> {
    (
        prop::collection::vec(
            (
                prop::sample::select(&["backend", "piece", "x"][..]),
                prop::sample::select(&["qugiy", "dbb", "rook", ""][..]),
            ),
            0..3,
        ),
        prop::sample::select(&["ns/lookup", "Mlookups/s", ""][..]),
        prop::collection::vec(any::<f64>(), 0..4),
    )
        .prop_map(|(labels, unit, samples)| Series {
            labels: labels
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            unit: unit.to_string(),
            samples,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn results_reader_never_panics_on_text(text in any::<String>()) {
        let _ = parse_report(&text);
    }

    #[test]
    fn results_reader_never_panics_on_any_json(value in json_value()) {
        let text = value.to_string();
        let _ = parse_report(&text);
        // Damaged documents are refused or read, never a panic.
        for cut in [text.len() / 3, text.len() / 2, text.len().saturating_sub(1)] {
            if text.is_char_boundary(cut) {
                let _ = parse_report(&text[..cut]);
            }
        }
    }

    #[test]
    fn report_index_never_panics_on_any_json(
        values in prop::collection::vec(json_value(), 0..3),
        shaped in prop::collection::vec(valid_shaped_results(), 0..3),
        text in any::<String>(),
    ) {
        let dir = TempDir::new("index");
        let mut texts: Vec<String> = values.iter().chain(&shaped).map(Json::to_string).collect();
        texts.push(text);
        index_folders(&dir, &texts)?;
    }

    /// E9 folds whatever series the builds' reports hold.
    #[test]
    fn e9_never_panics_on_any_series(
        runs in prop::collection::vec((prop::sample::select(&["x86-64-portable", "x86-64", "x86-64-v3", "native"][..]),
            prop::collection::vec(any_series(), 0..4)), 0..4),
    ) {
        let runs: Vec<IsaRun> = runs
            .into_iter()
            .map(|(level, series)| IsaRun {
                level: level.to_string(),
                results: vec![ExperimentResult {
                    wall_seconds: None,
                    comparisons: Vec::new(),
                    id: "E1".into(),
                    title: String::new(),
                    method: String::new(),
                    findings: String::new(),
                    summary: Vec::new(),
                    series,
                    tables: Vec::new(),
                    plots: Vec::new(),
                }],
            })
            .collect();
        let _ = e9_isa_levels::experiment(&runs, 0.03);
    }
}
