//! `kiki bench` as a user meets it: one line per backend with the same signature, JSON lines
//! with every position's fingerprint, one-line errors with exit 2.

use std::process::{Command, Output};

fn kiki(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kiki"))
        .args(args)
        .output()
        .expect("the kiki binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn every_backend_prints_the_same_signature() {
    let output = kiki(&[
        "bench", "--eval", "material", "--depth", "2", "--tt-mib", "4",
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    let names = kiki_variants::registry::resolve("all").unwrap();
    assert_eq!(stdout.lines().count(), names.len(), "{stdout}");
    let signature = |line: &str| {
        let words: Vec<&str> = line.split_whitespace().collect();
        let at = words
            .iter()
            .position(|&w| w == "signature")
            .expect("a signature");
        (words[at - 1].to_string(), words[at + 1].to_string())
    };
    let first = signature(stdout.lines().next().unwrap());
    for (line, name) in stdout.lines().zip(&names) {
        assert!(line.starts_with(name), "{line}");
        assert_eq!(signature(line), first, "{line}");
    }
}

#[test]
fn json_lines_carry_each_positions_fingerprint() {
    let output = kiki(&[
        "bench",
        "--backend",
        "dbb",
        "--eval",
        "nnue",
        "--depth",
        "2",
        "--tt-mib",
        "4",
        "--json",
        "--table-pages",
        "4k",
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let line: serde_json::Value = serde_json::from_str(text(&output.stdout).trim()).unwrap();
    assert_eq!(line["backend"], "dbb");
    assert_eq!(line["eval"], "nnue");
    assert_eq!(line["tt_mib"], 4);
    assert_eq!(line["depth"], 2);
    let positions = line["positions"].as_array().unwrap();
    assert_eq!(
        positions.len(),
        kiki_engine::search::bench::positions().len()
    );
    let nodes: u64 = positions.iter().map(|p| p["nodes"].as_u64().unwrap()).sum();
    assert_eq!(line["nodes"].as_u64(), Some(nodes));
    for position in positions {
        for key in ["sfen", "best", "score", "eval_checksum"] {
            assert!(!position[key].is_null(), "{key} in {position}");
        }
    }
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    for (args, words) in [
        (vec!["bench", "--eval", "bonanza6"], "unknown evaluation"),
        (vec!["bench", "--backend", "nosuch"], "nosuch"),
        (vec!["bench", "--depth", "four"], "plain decimal"),
        (vec!["bench", "--depth", "0"], "--depth must be 1 to 12"),
        (vec!["bench", "--tt-mib", "0"], "at least 1"),
        (vec!["bench", "--tt-mib", "100000000"], "available"),
        (vec!["bench", "--table-pages", "1g"], "1g"),
    ] {
        let output = kiki(&args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&output.stderr)
        );
        let stderr = text(&output.stderr);
        assert!(stderr.contains(words), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn perft_and_check_place_the_tables_as_asked() {
    for pages in ["4k", "2m"] {
        let output = kiki(&[
            "perft",
            "--startpos",
            "--depth",
            "3",
            "--backend",
            "magic-plain",
            "--table-pages",
            pages,
        ]);
        assert!(output.status.success(), "{}", text(&output.stderr));
        assert!(
            text(&output.stdout).contains(" 25470 "),
            "{}",
            text(&output.stdout)
        );
        let output = kiki(&[
            "check",
            "--backend",
            "pext",
            "--samples",
            "2000",
            "--table-pages",
            pages,
        ]);
        assert!(output.status.success(), "{}", text(&output.stderr));
    }
    let output = kiki(&["perft", "--startpos", "--depth", "1", "--table-pages", "8k"]);
    assert_eq!(output.status.code(), Some(2));
}
