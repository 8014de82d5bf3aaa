//! Bad input and faults (issue 13): write errors, hostile text, numbers, repeated flags, output
//! folders, the hidden E8 workload, Ctrl-C and report publishing, each as a user meets it.

use crate::common;
use common::TempDir;

use std::process::{Command, Output, Stdio};

fn kiki(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kiki"))
        .args(args)
        .output()
        .expect("the kiki binary runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A one-line error with this exit code, no panic.
fn assert_one_line_error(output: &Output, code: i32, expected: &str, what: &str) {
    let text = stderr(output);
    assert_eq!(output.status.code(), Some(code), "{what}: {text}");
    assert_eq!(text.lines().count(), 1, "{what}: {text}");
    assert!(!text.contains("panicked"), "{what}: {text}");
    assert!(
        text.contains(expected),
        "{what}: expected '{expected}' in {text}"
    );
}

/// Runs kiki with stdout (or stderr) on /dev/full, where every write fails with ENOSPC.
fn kiki_into_full_disk(args: &[&str], stream: &str) -> Output {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full exists on Linux");
    let mut command = Command::new(env!("CARGO_BIN_EXE_kiki"));
    command.args(args);
    if stream == "stdout" {
        command.stdout(full);
    } else {
        command.stderr(full);
    }
    command.output().expect("the kiki binary runs")
}

#[test]
fn write_errors_are_errors_not_panics() {
    for args in [
        &["backends"][..],
        &["backends", "--json"][..],
        &["mate1", "--startpos", "--json"][..],
        &["perft", "--startpos", "--depth", "2", "--json"][..],
        &["completions", "bash"][..],
        &["--help"][..],
    ] {
        let output = kiki_into_full_disk(args, "stdout");
        assert_one_line_error(
            &output,
            1,
            "cannot write to standard output",
            &format!("{args:?}"),
        );
    }
    // With stderr on the full disk the error cannot be told, but it is still exit 2, no abort.
    let output = kiki_into_full_disk(&["perft", "--sfen", "x", "--depth", "1"], "stderr");
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn numbers_are_plain_decimal() {
    for (args, expected) in [
        (
            &["perft", "--startpos", "--depth", "1e1"][..],
            "not a plain decimal number",
        ),
        (&["check", "--samples", "1_000"][..], "not a plain decimal"),
        (&["check", "--samples", "-5"][..], "'-5'"),
        (&["effects", "--moves", "0x10"][..], "not a plain decimal"),
        (
            &["check", "--samples", "18446744073709551616"][..],
            "too large",
        ),
    ] {
        assert_one_line_error(&kiki(args), 2, expected, &format!("{args:?}"));
    }
    // Seeds take 0x as documented.
    let output = kiki(&[
        "check",
        "--backend",
        "sqww",
        "--samples",
        "10",
        "--seed",
        "0x1F",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
}

#[test]
fn repeated_flags_and_typos_are_errors_naming_the_command() {
    assert_one_line_error(
        &kiki(&["perft", "--startpos", "--depth", "3", "--depth", "4"]),
        2,
        "kiki perft: the argument '--depth <D>' cannot be used multiple times",
        "repeated --depth",
    );
    assert_one_line_error(
        &kiki(&["backends", "--json", "--json"]),
        2,
        "kiki backends:",
        "repeated --json",
    );
    assert_one_line_error(
        &kiki(&["perft", "--startpos", "--depht", "3"]),
        2,
        "a similar argument exists: '--depth'",
        "typo",
    );
    assert_one_line_error(
        &kiki(&[
            "perft",
            "--startpos",
            "--depth",
            "1",
            "--backend",
            "nonesuch",
        ]),
        2,
        "kiki perft: unknown backend 'nonesuch'",
        "unknown backend",
    );
}

#[test]
fn help_version_and_completions_exit_0() {
    for args in [
        &["--help"][..],
        &["--version"][..],
        &["perft", "--help"][..],
        &["report", "--help"][..],
        &["help", "check"][..],
        &["completions", "bash"][..],
    ] {
        let output = kiki(args);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(!output.stdout.is_empty(), "{args:?}");
    }
    let help = String::from_utf8_lossy(&kiki(&["--help"]).stdout).into_owned();
    assert!(
        help.contains("130") && help.contains("Exit codes"),
        "{help}"
    );
}

#[test]
fn hostile_input_is_quoted_and_cut() {
    // (A NUL cannot reach an argument; a BEL stands for the other control characters.)
    let escape = "4k4/9/9/9/9/9/9/9/4K4 b - \u{1b}[2J\u{7}";
    let output = kiki(&["mate1", "--sfen", escape]);
    assert_eq!(output.status.code(), Some(2));
    assert!(!output.stderr.contains(&0x1b), "ESC reached the terminal");
    assert!(!output.stderr.contains(&7), "BEL reached the terminal");
    assert!(stderr(&output).contains("\\u{1b}"), "{}", stderr(&output));

    // (One argument is limited to 128 KiB by the kernel; a 1 MB line comes through a file.)
    let huge = "p".repeat(100_000);
    for args in [
        &["perft", "--depth", "1", "--sfen", huge.as_str()][..],
        &["perft", "--startpos", "--depth", huge.as_str()][..],
        &["check", "--backend", huge.as_str()][..],
    ] {
        let output = kiki(args);
        assert_eq!(output.status.code(), Some(2));
        let text = stderr(&output);
        assert_eq!(text.lines().count(), 1);
        assert!(text.len() < 1_000, "a {}-byte error line", text.len());
    }
}

#[test]
fn output_folders_must_be_folders() {
    assert_one_line_error(
        &kiki(&["report", "--quick", "--only", "E4", "--out", ""]),
        2,
        "must not be empty",
        "--out ''",
    );
    assert_one_line_error(
        &kiki(&["report-index", "--dir", ""]),
        2,
        "must not be empty",
        "--dir ''",
    );
    let file = std::env::temp_dir().join(format!("kiki-faults-file-{}", std::process::id()));
    std::fs::write(&file, b"x").unwrap();
    assert_one_line_error(
        &kiki(&[
            "report",
            "--quick",
            "--only",
            "E4",
            "--out",
            file.to_str().unwrap(),
        ]),
        2,
        "is not a folder",
        "--out FILE",
    );
    std::fs::remove_file(&file).unwrap();
}

#[test]
fn e8_workload_bounds_its_inputs() {
    for (args, expected) in [
        (&["--lookups", "1e19"][..], "not a plain decimal"),
        (
            &["--lookups", "18446744073709551615"][..],
            "--lookups wants 1 to",
        ),
        (&["--lookups", "0"][..], "--lookups wants 1 to"),
        (&["--eval-bytes", "1e19"][..], "not a plain decimal"),
        (
            &["--eval-bytes", "18446744073709551615"][..],
            "--eval-bytes wants at most",
        ),
        // The inputs are read a chunk at a time: there is no count of them to give.
        (&["--inputs", "2000"][..], "unexpected argument"),
    ] {
        let mut full = vec!["e8-workload", "--backend", "qugiy"];
        full.extend_from_slice(args);
        assert_one_line_error(&kiki(&full), 2, expected, &format!("{args:?}"));
    }
    let output = kiki(&["e8-workload", "--backend", "qugiy", "--lookups", "1000"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let output = kiki(&[
        "e8-workload",
        "--backend",
        "qugiy",
        "--lookups",
        "0000001000",
        "--eval-bytes",
        "65536",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(String::from_utf8_lossy(&output.stdout).contains("qugiy 1000 lookups"));
}

#[test]
fn e8_workload_rejects_a_missing_or_malformed_workload_file() {
    let dir = std::env::temp_dir().join(format!("kiki-faults-e8w-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.bin");
    std::fs::write(&bad, b"KIKIE8W2\x05\x00").unwrap();
    let missing = dir.join("missing.bin");
    for (file, expected) in [(&missing, "cannot read the workload"), (&bad, "malformed")] {
        let output = kiki(&[
            "e8-workload",
            "--backend",
            "qugiy",
            "--lookups",
            "100",
            "--workload",
            file.to_str().unwrap(),
        ]);
        assert_one_line_error(&output, 2, expected, &file.display().to_string());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_a_long_perft_with_130() {
    let child = Command::new(env!("CARGO_BIN_EXE_kiki"))
        .args([
            "perft",
            "--startpos",
            "--depth",
            "9",
            "--backend",
            "qugiy",
            "--json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the kiki binary runs");
    std::thread::sleep(std::time::Duration::from_millis(700));
    // SAFETY: signalling our own child process.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130));
    assert!(stderr(&output).contains("kiki perft: interrupted"));
    assert!(output.stdout.is_empty(), "nothing half-written");
}

#[test]
fn a_taken_report_name_moves_on_and_keeps_the_data() {
    let temp = TempDir::new("faults-report");
    let dir = temp.0.clone();
    let machine = kiki_harness::machine::Machine::detect();
    let name =
        kiki_harness::report::file_safe(&format!("{}-{}", machine.cpu_slug(), machine.date()));
    // A dangling link holds the report's name (the date could turn at midnight: hold both).
    #[cfg(unix)]
    std::os::unix::fs::symlink("/nonexistent-kiki", dir.join(&name)).unwrap();
    let output = kiki(&[
        "report",
        "--quick",
        "--only",
        "E4",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let folder = String::from_utf8_lossy(&output.stdout)
        .lines()
        .last()
        .unwrap()
        .to_string();
    assert!(folder.ends_with(&format!("{name}-2")), "{folder}");
    assert!(std::path::Path::new(&folder).join("results.json").is_file());
}
