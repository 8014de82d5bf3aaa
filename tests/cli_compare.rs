//! `kiki compare A B` as a user meets it: one-line errors with exit 2 for bad input, one JSON
//! object with a verdict, the answer line, and Ctrl-C's state so far with exit 130.

use std::process::{Command, Output, Stdio};

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
fn bad_input_is_one_line_and_exit_2() {
    let cases: [(&[&str], &str); 6] = [
        (
            &["compare", "dbb", "nonesuch"],
            "unknown backend 'nonesuch'",
        ),
        (&["compare", "dbb", "dbb"], "A and B are both dbb"),
        (&["compare", "all", "dbb"], "name one backend"),
        (
            &["compare", "dbb", "mailbox", "--max-minutes", "0"],
            "above 0",
        ),
        (
            &["compare", "dbb", "mailbox", "--max-minutes", "-2"],
            "above 0",
        ),
        (&["compare", "dbb"], "B"),
    ];
    for (args, says) in cases {
        let output = kiki(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = text(&output.stderr);
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?}");
    }
}

/// A run of seconds (`--smoke`: two positions to depth 1, two rounds a process) prints one
/// JSON object on one line with its verdict, and the same run as text one answer line.
#[test]
fn a_tiny_run_answers_in_one_json_object_and_in_one_line() {
    let args = [
        "compare",
        "dbb",
        "mailbox",
        "--smoke",
        "--eval",
        "material",
        "--max-minutes",
        "0.1",
    ];
    let output = kiki(&[&args[..], &["--json"]].concat());
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let answer: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON object");
    let verdict = answer["verdict"].as_str().expect("a verdict");
    assert!(
        ["faster", "slower", "level", "not resolved"].contains(&verdict),
        "{verdict}"
    );
    assert!(answer["processes"].as_u64().unwrap() >= 2, "{stdout}");
    assert!(["verdict", "cap"].contains(&answer["stopped"].as_str().unwrap()));
    assert_eq!(
        (answer["a"].as_str(), answer["b"].as_str()),
        (Some("dbb"), Some("mailbox"))
    );
    assert!(answer["layout_note"]
        .as_str()
        .unwrap()
        .contains("code-layout"));

    let output = kiki(&args);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let line = text(&output.stdout);
    assert_eq!(line.lines().count(), 1, "{line}");
    assert!(line.starts_with("mailbox over dbb (material): "), "{line}");
    assert!(
        line.contains("90 % repeated interval") && line.contains("A/A"),
        "{line}"
    );
    assert!(
        line.contains("code-layout effects are not averaged"),
        "{line}"
    );
}

/// Ctrl-C in the middle of a process: the child is stopped, the state so far is printed (no
/// process finished here: no interval yet) and the command exits 130.
#[test]
fn ctrl_c_prints_the_state_so_far_and_exits_130() {
    let child = Command::new(env!("CARGO_BIN_EXE_kiki"))
        .args([
            "compare",
            "dbb",
            "mailbox",
            "--eval",
            "material",
            "--max-minutes",
            "5",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the kiki binary runs");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // SAFETY: signalling our own child process.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(
        stdout.contains("(interrupted)") && stdout.contains("not resolved"),
        "{stdout}"
    );
    assert!(text(&output.stderr).contains("kiki compare: interrupted"));
}
