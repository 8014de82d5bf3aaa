//! `kiki mate1` as a user meets it: the move or `none`, JSON lines, agreement, one-line errors.

use std::process::{Command, Output};

fn kiki(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kiki"))
        .args(args)
        .output()
        .expect("the kiki binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

const KNIGHT_MATE: &str = "7lk/7np/9/9/9/9/9/9/4K4 b N 1";
const PAWN_DROP_ONLY: &str = "8k/9/6NG1/9/9/9/9/9/4K4 b P 1";

#[test]
fn prints_the_mating_move_or_none() {
    let output = kiki(&["mate1", "--sfen", KNIGHT_MATE, "--backend", "qugiy"]);
    assert!(output.status.success());
    assert_eq!(stdout(&output), "N*2c\n");
    let output = kiki(&["mate1", "--sfen", PAWN_DROP_ONLY, "--backend", "dbb"]);
    assert!(output.status.success());
    assert_eq!(stdout(&output), "none\n");
}

#[test]
fn json_lines_on_every_backend_keep_the_sfen_as_given() {
    let output = kiki(&["mate1", "--sfen", KNIGHT_MATE, "--backend", "all", "--json"]);
    assert!(output.status.success());
    let text = stdout(&output);
    let names = kiki_variants::registry::resolve("all").unwrap();
    assert_eq!(text.lines().count(), names.len());
    for (line, name) in text.lines().zip(&names) {
        assert_eq!(
            line,
            format!("{{\"backend\":\"{name}\",\"sfen\":\"{KNIGHT_MATE}\",\"mate\":\"N*2c\"}}")
        );
    }
    let output = kiki(&[
        "mate1",
        "--sfen",
        PAWN_DROP_ONLY,
        "--json",
        "--backend",
        "sqww",
    ]);
    assert_eq!(
        stdout(&output).trim(),
        format!("{{\"backend\":\"sqww\",\"sfen\":\"{PAWN_DROP_ONLY}\",\"mate\":null}}")
    );
}

#[test]
fn positions_file_answers_each_line() {
    let dir = std::env::temp_dir().join(format!("kiki-mate1-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.sfen");
    std::fs::write(
        &good,
        format!("# mates\n{KNIGHT_MATE}\n\n{PAWN_DROP_ONLY}\n"),
    )
    .unwrap();
    let output = kiki(&[
        "mate1",
        "--positions",
        good.to_str().unwrap(),
        "--backend",
        "mailbox",
    ]);
    assert!(output.status.success());
    assert_eq!(stdout(&output), "N*2c\nnone\n");

    let bad = dir.join("bad.sfen");
    std::fs::write(&bad, format!("{KNIGHT_MATE}\nnot an sfen\n")).unwrap();
    let cases: [(&[&str], &str); 5] = [
        (&["mate1", "--positions", bad.to_str().unwrap()], "line 2"),
        (&["mate1", "--sfen", "lnsgkgsnl/9 b - 1"], "bad SFEN"),
        (&["mate1"], "<--sfen <SFEN>|--startpos|--positions <FILE>>"),
        (
            &["mate1", "--sfen", KNIGHT_MATE, "--backend", "nonesuch"],
            "kiki mate1: unknown backend",
        ),
        (&["mate1", "--positions", "/nonexistent/x"], "cannot read"),
    ];
    for (args, expected) in cases {
        let output = kiki(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let text = String::from_utf8_lossy(&output.stderr);
        assert_eq!(text.lines().count(), 1, "{args:?}: {text}");
        assert!(text.contains(expected), "{args:?}: {text}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
