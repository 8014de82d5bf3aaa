//! Records the compiler version, build profile and git state for the report's machine section.

use std::path::Path;
use std::process::Command;

/// The workspace root, from this crate's folder (`crates/harness`).
const ROOT: &str = "../..";

fn run(program: &str, args: &[&str]) -> Option<String> {
    // GIT_OPTIONAL_LOCKS=0: `git status` must not refresh and rewrite .git/index, which this
    // script watches; otherwise every cargo command reruns it and rebuilds the harness and
    // everything above it (each CI step rebuilt them).
    let output = Command::new(program)
        .args(args)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
}

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let version = run(&rustc, &["-V"]).unwrap_or_else(|| "unknown".to_string());
    let commit = run("git", &["rev-parse", "HEAD"]).unwrap_or_else(|| "unknown".to_string());
    let dirty = match run("git", &["status", "--porcelain", "--untracked-files=no"]) {
        Some(changes) if changes.is_empty() => "clean",
        Some(_) => "dirty",
        None => "unknown",
    };
    // FNV-1a (64-bit) of Cargo.lock: which dependency versions went into this binary.
    let lock_hash = std::fs::read(format!("{ROOT}/Cargo.lock"))
        .ok()
        .map(|bytes| {
            let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
                (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
            });
            format!("fnv1a64:{hash:016x}")
        });
    let rustflags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let env = |key: &str| std::env::var(key).unwrap_or_else(|_| "unknown".to_string());
    println!("cargo:rustc-env=KIKI_RUSTC_VERSION={version}");
    println!("cargo:rustc-env=KIKI_GIT_COMMIT={commit}");
    println!("cargo:rustc-env=KIKI_GIT_TREE={dirty}");
    println!(
        "cargo:rustc-env=KIKI_CARGO_LOCK_HASH={}",
        lock_hash.unwrap_or_else(|| "no Cargo.lock".to_string())
    );
    println!("cargo:rustc-env=KIKI_PROFILE={}", env("PROFILE"));
    println!("cargo:rustc-env=KIKI_OPT_LEVEL={}", env("OPT_LEVEL"));
    println!("cargo:rustc-env=KIKI_TARGET={}", env("TARGET"));
    println!(
        "cargo:rustc-env=KIKI_RUSTFLAGS={}",
        rustflags.replace('\x1f', " ")
    );
    // Rerun when the commit, the index or the sources change (so the dirty flag follows them).
    for path in [
        ".git/HEAD",
        ".git/index",
        "Cargo.lock",
        "src",
        "crates",
        "variants",
    ] {
        let path = format!("{ROOT}/{path}");
        if Path::new(&path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    if let Some(reference) = std::fs::read_to_string(format!("{ROOT}/.git/HEAD"))
        .ok()
        .and_then(|head| head.strip_prefix("ref: ").map(|r| r.trim().to_string()))
    {
        let path = format!("{ROOT}/.git/{reference}");
        if Path::new(&path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
}
