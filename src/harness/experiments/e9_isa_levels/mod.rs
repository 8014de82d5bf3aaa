//! E9: E1 and E2 again from kiki built for other instruction-set levels, each build run in its
//! own process, folded into one experiment.
//!
//! Measuring (this file) builds kiki with cargo in the source tree it was built from and runs
//! `kiki report --only E1,E2` with each build; `analysis` matches the series across builds and
//! writes the tables, plots and findings. It needs cargo and that source tree, so `kiki report`
//! runs it only when asked (`--with E9` or `--only E9`), as `scripts/report.sh` does.

mod analysis;

pub use analysis::{experiment, IsaRun, TITLE};

use super::{Context, Experiment, Progress};
use crate::harness::report::read_report;
use crate::harness::results::ExperimentResult;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The experiments each build runs.
pub const SOURCE_EXPERIMENTS: &str = "E1,E2";
/// The level the others are compared with: the default build (`.cargo/config.toml`).
pub const REFERENCE_LEVEL: &str = "x86-64-v3";

/// One build: its level name, the `RUSTFLAGS` it is built with (`None`: the default of
/// `.cargo/config.toml`) and its cargo features.
struct Level {
    name: &'static str,
    rustflags: Option<&'static str>,
    features: &'static [&'static str],
}

const LEVELS: [Level; 3] = [
    Level {
        name: "x86-64",
        rustflags: Some("-C target-cpu=x86-64"),
        features: &["portable"],
    },
    Level {
        name: REFERENCE_LEVEL,
        rustflags: None,
        features: &[],
    },
    Level {
        name: "native",
        rustflags: Some("-C target-cpu=native"),
        features: &[],
    },
];

/// E9 in the list of experiments.
pub struct IsaLevels;

impl Experiment for IsaLevels {
    fn id(&self) -> &'static str {
        "E9"
    }
    fn title(&self) -> &'static str {
        TITLE
    }
    fn about(&self) -> &'static str {
        "E1 and E2 from builds for x86-64 (portable), x86-64-v3 and native (needs cargo and \
         kiki's source tree; runs only when named)"
    }
    fn runs_by_default(&self) -> bool {
        false
    }
    fn replayable(&self) -> bool {
        false
    }
    fn run(&self, context: &Context<'_>, progress: Progress<'_>) -> ExperimentResult {
        match runs(context, progress) {
            Ok(runs) => experiment(&runs, REFERENCE_LEVEL),
            Err(reason) => unavailable(&reason),
        }
    }
}

/// E9 when it cannot build or run here.
fn unavailable(reason: &str) -> ExperimentResult {
    let mut result = experiment(&[], REFERENCE_LEVEL);
    result.findings =
        format!("Not measured on this machine: {reason}. The other experiments are unaffected.");
    result
}

/// Whether this binary is itself the reference build: compiled for x86-64-v3 (AVX2, BMI2) with
/// the SIMD paths on. Then its own runs stand for that level and one build is saved.
fn this_binary_is_the_reference() -> bool {
    cfg!(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "bmi2",
        not(target_feature = "avx512f"),
        not(feature = "portable")
    ))
}

/// Builds each level (or reuses this binary for the reference) and runs its E1 and E2.
fn runs(context: &Context<'_>, progress: Progress<'_>) -> Result<Vec<IsaRun>, String> {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"));
    if !source.join("Cargo.toml").is_file() {
        return Err(format!(
            "kiki's source tree ({}) is not here to build from",
            source.display()
        ));
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let scratch = std::env::temp_dir().join(format!("kiki-e9-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)
        .map_err(|e| format!("cannot create {}: {e}", scratch.display()))?;
    let steps = (2 * LEVELS.len()) as f64;
    let mut runs = Vec::new();
    for (index, level) in LEVELS.iter().enumerate() {
        progress(
            &format!("building kiki for {}", level.name),
            (2 * index) as f64 / steps,
        );
        let binary = if level.rustflags.is_none() && this_binary_is_the_reference() {
            std::env::current_exe().map_err(|e| format!("cannot locate the kiki binary: {e}"))?
        } else {
            build(&cargo, source, level)?
        };
        progress(
            &format!("{}: kiki report --only {SOURCE_EXPERIMENTS}", level.name),
            (2 * index + 1) as f64 / steps,
        );
        let folder = run_build(&binary, context, &scratch.join(level.name))?;
        let report = read_report(&folder.join("results.json"))?;
        runs.push(IsaRun {
            level: level.name.to_string(),
            results: report.experiments,
        });
    }
    // The builds' data now lives in E9's series; their temporary reports can go.
    let _ = std::fs::remove_dir_all(&scratch);
    progress("done", 1.0);
    Ok(runs)
}

/// `cargo build --release --bin kiki` for one level into `target/isa-<level>`; the binary.
fn build(cargo: &std::ffi::OsStr, source: &Path, level: &Level) -> Result<PathBuf, String> {
    let target_dir = source.join("target").join(format!("isa-{}", level.name));
    let mut command = Command::new(cargo);
    command
        .current_dir(source)
        .args([
            "build",
            "--release",
            "--quiet",
            "--bin",
            "kiki",
            "--target-dir",
        ])
        .arg(&target_dir);
    if !level.features.is_empty() {
        command.arg("--features").arg(level.features.join(","));
    }
    match level.rustflags {
        Some(flags) => command.env("RUSTFLAGS", flags),
        None => command.env_remove("RUSTFLAGS"),
    };
    let output = command
        .output()
        .map_err(|e| format!("cannot run cargo to build the {} level: {e}", level.name))?;
    if !output.status.success() {
        let last = crate::harness::last_line(&output.stderr);
        return Err(format!(
            "cargo build for the {} level failed ({}): {last}",
            level.name, output.status
        ));
    }
    Ok(target_dir.join("release").join("kiki"))
}

/// Runs `binary report --only E1,E2` with this report's settings; the folder it wrote.
fn run_build(binary: &Path, context: &Context<'_>, out: &Path) -> Result<PathBuf, String> {
    let config = context.config;
    let mut command = Command::new(binary);
    command
        .args(["report", "--only", SOURCE_EXPERIMENTS, "--out"])
        .arg(out)
        .arg("--counters")
        .arg(if config.counter_events.is_empty() {
            "none".to_string()
        } else {
            config
                .counter_events
                .iter()
                .map(|e| e.name())
                .collect::<Vec<_>>()
                .join(",")
        });
    if config.quick {
        command.arg("--quick");
    }
    if let Some(cpu) = config.pin_cpu {
        command.arg("--pin").arg(cpu.to_string());
    }
    let output = command
        .output()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        let last = crate::harness::last_line(&output.stderr);
        return Err(format!(
            "{} failed ({}): {last}",
            binary.display(),
            output.status
        ));
    }
    let folder = stdout
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    if folder.is_empty() {
        return Err(format!("{} wrote no report folder", binary.display()));
    }
    Ok(PathBuf::from(folder))
}
