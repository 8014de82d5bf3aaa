//! Code layouts: binaries of one kiki build linked in other function orders, one per invocation.
//!
//! A binary's code layout (which functions share cache lines, pages and branch-predictor
//! slots) is fixed when it is linked, so K invocations of one binary all measure the same
//! layout, and a layout's bias survives every interval over invocations (Mytkowicz et al.,
//! "Producing wrong data without doing anything obviously wrong", 2009). `scripts/report.sh`
//! links the same objects in K orders (lld's `--shuffle-sections`); invocation i runs the i-th.

use serde::{Deserialize, Serialize};
use std::path::Path;
use std::process::Command;

/// One binary the invocations ran, as results.json records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeLayout {
    /// The file's name (not its folder).
    pub file: String,
    /// FNV-1a (64-bit) of the whole file: two layouts are two different hashes.
    pub fnv1a64: String,
}

/// What must agree between the layouts of one build, field by field: compiler, profile,
/// flags, source, lock file.
fn identity_fields() -> [(&'static str, &'static str); 8] {
    [
        ("rustc", env!("KIKI_RUSTC_VERSION")),
        ("profile", env!("KIKI_PROFILE")),
        ("opt-level", env!("KIKI_OPT_LEVEL")),
        ("target", env!("KIKI_TARGET")),
        ("rustflags", env!("KIKI_RUSTFLAGS")),
        ("commit", env!("KIKI_GIT_COMMIT")),
        ("tree", env!("KIKI_GIT_TREE")),
        ("cargo-lock", env!("KIKI_CARGO_LOCK_HASH")),
    ]
}

/// This build's identity, one `field=value` per line (what `kiki report --identity` prints).
pub fn build_identity() -> String {
    identity_fields()
        .iter()
        .map(|(field, value)| format!("{field}={value}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Checks that `path` is this build in some layout (it answers `report --identity` with this
/// binary's identity) and hashes it. `Err` is one line naming the file and the first field
/// that differs.
pub fn check(path: &Path) -> Result<CodeLayout, String> {
    let shown = kiki_core::input::quote_input(&path.display().to_string());
    let output = Command::new(path)
        .args(["report", "--identity"])
        .output()
        .map_err(|e| format!("cannot run {shown}: {e}"))?;
    let theirs = String::from_utf8_lossy(&output.stdout);
    let theirs: Vec<&str> = theirs.lines().collect();
    for (field, ours) in identity_fields() {
        let prefix = format!("{field}=");
        let found = theirs.iter().find_map(|line| line.strip_prefix(&prefix));
        if !output.status.success() || found != Some(ours) {
            return Err(format!(
                "{shown} is not this build in another layout: its {field} is {}, this binary's '{ours}'",
                found.map_or_else(|| "not given".to_string(), kiki_core::input::quote_input)
            ));
        }
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    Ok(CodeLayout {
        file: path
            .file_name()
            .map_or_else(|| shown.clone(), |n| n.to_string_lossy().into_owned()),
        fnv1a64: format!("{:016x}", fnv1a64(&bytes)),
    })
}

fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The report's machine-section line: how many layouts, which invocation ran which.
pub fn describe(layouts: &[CodeLayout]) -> String {
    match layouts {
        [] => "one (this binary's, in every invocation)".to_string(),
        [only] => format!(
            "one (`{}`, fnv1a64 {}, in every invocation)",
            only.file, only.fnv1a64
        ),
        _ => {
            let distinct = {
                let mut hashes: Vec<&str> = layouts.iter().map(|l| l.fnv1a64.as_str()).collect();
                hashes.sort_unstable();
                hashes.dedup();
                hashes.len()
            };
            let list: Vec<String> = layouts
                .iter()
                .enumerate()
                .map(|(i, l)| format!("{}: `{}` ({})", i + 1, l.file, &l.fnv1a64[..8]))
                .collect();
            format!(
                "{} binaries of this build ({distinct} distinct), one link order each; invocation i runs binary i (cycling): {}",
                layouts.len(),
                list.join(", ")
            )
        }
    }
}
