//! `kiki report`'s child invocations end to end: K measurements pooled into one result, and a
//! report stopped by a signal while a child measures or E8's valgrind simulates (the child
//! killed and reaped, no scratch left, one line saying so, exit code 130).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Two invocations of E4: every series holds both invocations' rounds, the method says so, and
/// the scratch folder is gone.
#[test]
fn two_invocations_pool_their_rounds() {
    let temp = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_kiki"))
        .args(["report", "--quick", "--invocations", "2", "--only", "E4"])
        .arg("--out")
        .arg(out.path())
        .env("TMPDIR", temp.path())
        .output()
        .expect("the kiki binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let folder = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    let text = std::fs::read_to_string(folder.join("results.json")).unwrap();
    let results: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(results["invocations"], 2);
    let e4 = &results["experiments"][0];
    assert_eq!(e4["id"], "E4");
    let method = e4["method"].as_str().unwrap();
    assert!(
        method.contains("Measured in 2 process invocations"),
        "{method}"
    );
    // Quick sampling takes 7 rounds: 4 per invocation, rounded up.
    for series in e4["series"].as_array().unwrap() {
        assert_eq!(series["samples"].as_array().unwrap().len(), 8, "{series}");
    }
    assert_eq!(std::fs::read_dir(temp.path()).unwrap().count(), 0);
}

/// The processes whose parent is `parent` (from /proc).
#[cfg(target_os = "linux")]
fn children_of(parent: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            // /proc/PID/stat: "pid (comm) state ppid …"; comm may hold spaces and parentheses.
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| {
                    let after = &stat[stat.rfind(')')? + 1..];
                    after.split_whitespace().nth(1)?.parse::<u32>().ok()
                })
                == Some(parent)
        })
        .collect()
}

/// Starts `kiki report ARGS --out OUT` with `TMPDIR` set to `temp`, waits (up to `seconds`)
/// for a child of it that `wanted` accepts, sends the report SIGTERM, and returns the child's
/// pid and the report's output.
#[cfg(target_os = "linux")]
fn interrupt_report(
    args: &[&str],
    temp: &Path,
    out: &Path,
    seconds: u64,
    wanted: impl Fn(u32) -> bool,
) -> (u32, std::process::Output) {
    let report = Command::new(env!("CARGO_BIN_EXE_kiki"))
        .arg("report")
        .args(args)
        .arg("--out")
        .arg(out)
        .env("TMPDIR", temp)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the kiki binary runs");
    let pid = report.id();
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let child = loop {
        if let Some(child) = children_of(pid).into_iter().find(|&c| wanted(c)) {
            break child;
        }
        assert!(Instant::now() < deadline, "no such child started: {args:?}");
        std::thread::sleep(Duration::from_millis(10));
    };
    // SAFETY: signalling our own child process.
    unsafe {
        libc::kill(pid as libc::pid_t, libc::SIGTERM);
    }
    (child, report.wait_with_output().unwrap())
}

/// The names of the entries of `folder`.
#[cfg(target_os = "linux")]
fn entries(folder: &Path) -> Vec<String> {
    std::fs::read_dir(folder)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect()
}

#[cfg(target_os = "linux")]
#[test]
fn sigterm_kills_the_child_and_cleans_the_scratch() {
    let temp = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let args = ["--quick", "--invocations", "2", "--only", "E1"];
    let (child, output) = interrupt_report(&args, temp.path(), out.path(), 60, |_| true);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(
        !Path::new(&format!("/proc/{child}")).exists(),
        "the child {child} survived"
    );
    let left = entries(temp.path());
    assert!(
        !left
            .iter()
            .any(|name| name.starts_with("kiki-invocations-")),
        "scratch left in TMPDIR: {left:?}"
    );
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].starts_with("kiki report: interrupted; "),
        "{stderr}"
    );
    // The first child was still measuring: nothing to keep, and no report was written.
    assert!(
        lines[0].contains("nothing was measured yet, the scratch folder is removed"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0);
}

/// E8 runs valgrind from the report's own process: a stopped report stops it too, and removes
/// E8's scratch folder (its workload and callgrind files).
#[cfg(target_os = "linux")]
#[test]
fn sigterm_during_e8_kills_valgrind_and_removes_its_scratch() {
    if Command::new("valgrind").arg("--version").output().is_err() {
        eprintln!("skipped: valgrind is not installed");
        return;
    }
    let temp = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let is_simulation = |child: u32| {
        std::fs::read(format!("/proc/{child}/cmdline"))
            .is_ok_and(|line| String::from_utf8_lossy(&line).contains("e8-workload"))
    };
    let args = ["--quick", "--invocations", "1", "--only", "E8"];
    let (valgrind, output) = interrupt_report(&args, temp.path(), out.path(), 120, is_simulation);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(
        !Path::new(&format!("/proc/{valgrind}")).exists(),
        "valgrind ({valgrind}) survived the report"
    );
    let left = entries(temp.path());
    assert!(
        !left.iter().any(|name| name.starts_with("kiki-e8-")),
        "E8's scratch left in TMPDIR: {left:?}"
    );
    assert!(stderr.contains("kiki report: interrupted; "), "{stderr}");
}
