//! E9: E1 and E2 again from kiki built for other instruction-set levels, each build run in its
//! own process, folded into one experiment.
//!
//! Measuring (this file) builds kiki with cargo in the source tree it was built from, one build
//! per level the CPU can run, and runs `kiki report --only E1,E2 --quick` with each build in
//! interleaved slots; `analysis` matches the series across builds, compares builds one factor
//! apart cell by cell, and writes the tables, plots and findings. It needs cargo and that source tree, so `kiki report`
//! runs it only when asked (`--with E9` or `--only E9`), as `scripts/report.sh` does.

mod analysis;
pub mod summary;

pub use analysis::{experiment, IsaRun, TITLE};

use super::{About, Context, Experiment, ExperimentId, Placement, Progress};
use crate::invocations::Invocation;
use crate::readback::read_report;
use crate::results::ExperimentResult;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The experiments each build runs.
pub const SOURCE_EXPERIMENTS: &str = "E1,E2";
/// The level the others are compared with: the default build (`.cargo/config.toml`).
pub const REFERENCE_LEVEL: &str = "x86-64-v3";

/// One build: its level name, the `RUSTFLAGS` it is built with (`None`: the default of
/// `.cargo/config.toml`), its cargo features, and the CPU features it needs to run.
struct Level {
    name: &'static str,
    rustflags: Option<&'static str>,
    features: &'static [&'static str],
    needs: fn() -> Result<(), String>,
}

fn runs_anywhere() -> Result<(), String> {
    Ok(())
}

/// `Err` naming what the CPU lacks of `features` (name, present).
fn missing(features: &[(&str, bool)]) -> Result<(), String> {
    let lacking: Vec<&str> = features
        .iter()
        .filter(|(_, present)| !present)
        .map(|(name, _)| *name)
        .collect();
    if lacking.is_empty() {
        Ok(())
    } else {
        Err(format!("this CPU lacks {}", lacking.join(", ")))
    }
}

/// x86-64-v3 needs AVX2, BMI1/2, FMA, F16C, LZCNT and MOVBE; a binary built for it would die
/// of an illegal instruction on a CPU without them.
fn needs_v3() -> Result<(), String> {
    #[cfg(target_arch = "x86_64")]
    {
        missing(&[
            ("avx2", std::arch::is_x86_feature_detected!("avx2")),
            ("bmi1", std::arch::is_x86_feature_detected!("bmi1")),
            ("bmi2", std::arch::is_x86_feature_detected!("bmi2")),
            ("fma", std::arch::is_x86_feature_detected!("fma")),
            ("f16c", std::arch::is_x86_feature_detected!("f16c")),
            ("lzcnt", std::arch::is_x86_feature_detected!("lzcnt")),
            ("movbe", std::arch::is_x86_feature_detected!("movbe")),
        ])
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Err("not an x86-64 CPU".to_string())
    }
}

/// x86-64-v4 needs v3 and AVX-512 (F, BW, CD, DQ, VL). Under valgrind CPUID hides AVX-512, so
/// the level is skipped there by the same check.
fn needs_avx512() -> Result<(), String> {
    needs_v3()?;
    #[cfg(target_arch = "x86_64")]
    {
        missing(&[
            ("avx512f", std::arch::is_x86_feature_detected!("avx512f")),
            ("avx512bw", std::arch::is_x86_feature_detected!("avx512bw")),
            ("avx512cd", std::arch::is_x86_feature_detected!("avx512cd")),
            ("avx512dq", std::arch::is_x86_feature_detected!("avx512dq")),
            ("avx512vl", std::arch::is_x86_feature_detected!("avx512vl")),
        ])
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Err("not an x86-64 CPU".to_string())
    }
}

/// The builds, one factor apart from their neighbours (the steps are in `analysis`): the
/// baseline with and without `portable` (a negative control: no backend changes path there),
/// v3 with the portable twins (the instruction set alone), v3 (its SIMD paths), v4 (AVX-512)
/// and this CPU's own level.
const LEVELS: [Level; 6] = [
    Level {
        name: "x86-64-portable",
        rustflags: Some("-C target-cpu=x86-64"),
        features: &["portable"],
        needs: runs_anywhere,
    },
    Level {
        name: "x86-64",
        rustflags: Some("-C target-cpu=x86-64"),
        features: &[],
        needs: runs_anywhere,
    },
    Level {
        name: "x86-64-v3-portable",
        rustflags: Some("-C target-cpu=x86-64-v3"),
        features: &["portable"],
        needs: needs_v3,
    },
    Level {
        name: REFERENCE_LEVEL,
        rustflags: None,
        features: &[],
        needs: needs_v3,
    },
    Level {
        name: "x86-64-v4",
        rustflags: Some("-C target-cpu=x86-64-v4"),
        features: &[],
        needs: needs_avx512,
    },
    Level {
        name: "native",
        rustflags: Some("-C target-cpu=native"),
        features: &[],
        needs: runs_anywhere,
    },
];

/// E9 in the list of experiments.
pub struct IsaLevels;

impl Experiment for IsaLevels {
    /// Measured and analysed at once, in the report's process: its result.
    type Measurement = ExperimentResult;
    const ABOUT: About = About {
        id: ExperimentId::E9,
        title: TITLE,
        about: "E1 and E2 from builds one factor apart: x86-64 with and without `portable`, x86-64-v3 \
             with and without it, x86-64-v4 (where the CPU has AVX-512) and native (needs cargo and \
             kiki's source tree; runs only when named)",
        runs_by_default: false,
    };
    fn placement(&self) -> Placement {
        Placement::Parent
    }
    fn analyse(&self, measurements: &[ExperimentResult], _: &Context<'_>) -> ExperimentResult {
        measurements[0].clone()
    }
    fn measure(
        &self,
        context: &Context<'_>,
        _: Invocation,
        progress: Progress<'_>,
    ) -> ExperimentResult {
        match runs(context, progress) {
            Ok((runs, skipped, gathers)) => {
                let mut result = experiment(&runs, context.config.threshold);
                add_gathers(&mut result, &gathers);
                for (level, reason) in skipped {
                    let sentence = format!(" The {level} build was skipped: {reason}.");
                    result.method.push_str(&sentence);
                    result.findings.push_str(&sentence);
                }
                result
            }
            Err(reason) => unavailable(&reason),
        }
    }
}

/// E9 when it cannot build or run here.
fn unavailable(reason: &str) -> ExperimentResult {
    let mut result = experiment(&[], super::DEFAULT_THRESHOLD);
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

/// Counts the vector gather instructions (`vpgatherqq`, `vgatherdps`, …) in a binary with
/// `objdump -d`: a loop of independent table lookups that the compiler vectorised reads its
/// tables through them.
fn gathers(binary: &Path) -> Result<usize, String> {
    let output = Command::new("objdump")
        .args(["-d", "--no-show-raw-insn"])
        .arg(binary)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("objdump is not available ({e})"))?;
    if !output.status.success() {
        return Err(format!(
            "objdump failed: {}",
            crate::last_line(&output.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_once(":\t"))
        .filter_map(|(_, instruction)| instruction.split_whitespace().next())
        .filter(|mnemonic| mnemonic.starts_with('v') && mnemonic.contains("gather"))
        .count())
}

/// The gather counts as a table and a sentence of the method.
fn add_gathers(result: &mut ExperimentResult, gathers: &[(&'static str, Result<usize, String>)]) {
    if gathers.is_empty() {
        return;
    }
    result.tables.push(crate::results::Table {
        headers: vec![
            "build".to_string(),
            "vector gather instructions in the binary".to_string(),
        ],
        rows: gathers
            .iter()
            .map(|(level, count)| {
                vec![
                    level.to_string(),
                    match count {
                        Ok(n) => n.to_string(),
                        Err(why) => format!("not counted: {why}"),
                    },
                ]
            })
            .collect(),
    });
    result.method.push_str(
        " Each build's vector gather instructions are counted with objdump: where a build has \
         them and its base has none, the compiler has vectorised loops of independent lookups \
         (E1's throughput loops can be, its latency chains cannot, which the counts per mode \
         tell apart).",
    );
}

/// Process slots per build: each build runs E1 and E2 once per slot, the builds interleaved
/// within a slot, so that a slow spell of the machine touches every build alike.
fn slots(config: &super::Config) -> usize {
    config.pick(1, 2, 5)
}

/// Every build's runs, the levels skipped with the reason, and each build's gather count.
type Runs = (
    Vec<IsaRun>,
    Vec<(&'static str, String)>,
    Vec<(&'static str, Result<usize, String>)>,
);

/// Builds each level the CPU can run (reusing this binary for the reference), then runs every
/// build's E1 and E2 in interleaved slots; the runs, and the levels skipped with the reason.
fn runs(context: &Context<'_>, progress: Progress<'_>) -> Result<Runs, String> {
    let source = Path::new(crate::WORKSPACE_ROOT);
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
    // Removed below, and by the watch should the report be stopped on the way.
    context.watch.also_remove(&scratch);
    let slots = slots(context.config);
    let steps = (LEVELS.len() * (1 + slots)) as f64;
    let mut done = 0.0;
    let mut skipped = Vec::new();
    let mut binaries: Vec<(&'static str, PathBuf)> = Vec::new();
    for level in &LEVELS {
        if let Err(reason) = (level.needs)() {
            skipped.push((level.name, reason));
            continue;
        }
        progress(&format!("building kiki for {}", level.name), done / steps);
        done += 1.0;
        let binary = if level.rustflags.is_none() && this_binary_is_the_reference() {
            std::env::current_exe().map_err(|e| format!("cannot locate the kiki binary: {e}"))?
        } else {
            build(&cargo, source, level, context.watch)?
        };
        binaries.push((level.name, binary));
    }
    let mut runs = Vec::new();
    for slot in 0..slots {
        // Each slot starts the round of builds at a different one.
        for offset in 0..binaries.len() {
            let (name, binary) = &binaries[(slot + offset) % binaries.len()];
            progress(
                &format!(
                    "{name}: kiki report --only {SOURCE_EXPERIMENTS} (slot {} of {slots})",
                    slot + 1
                ),
                done / steps,
            );
            done += 1.0;
            let out = scratch.join(format!("{name}-{slot}"));
            let folder = run_build(binary, context, &out, slot)?;
            let report = read_report(&folder.join("results.json"))?;
            runs.push(IsaRun {
                level: name.to_string(),
                results: report.experiments,
            });
        }
    }
    // The builds' data now lives in E9's series; their temporary reports can go.
    let _ = std::fs::remove_dir_all(&scratch);
    context.watch.forget(&scratch);
    progress("counting gather instructions", done / steps);
    let gathers = binaries
        .iter()
        .map(|(name, binary)| (*name, gathers(binary)))
        .collect();
    progress("done", 1.0);
    Ok((runs, skipped, gathers))
}

/// `cargo build --release --bin kiki` for one level into `target/isa-<level>`, started
/// through `watch` (a stopped report stops it); the binary.
fn build(
    cargo: &std::ffi::OsStr,
    source: &Path,
    level: &Level,
    watch: &crate::watch::Watch,
) -> Result<PathBuf, String> {
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
    let output = watch
        .output(command)
        .map_err(|e| format!("cannot run cargo to build the {} level: {e}", level.name))?;
    if !output.status.success() {
        let last = crate::last_line(&output.stderr);
        return Err(format!(
            "cargo build for the {} level failed ({}): {last}",
            level.name, output.status
        ));
    }
    Ok(target_dir.join("release").join("kiki"))
}

/// Runs `binary report --only E1,E2 --quick --invocations 1` (one process per slot; the
/// slots are E9's invocations) with this report's counters and pinning, and an environment
/// whose size depends on the slot; the folder it wrote.
fn run_build(
    binary: &Path,
    context: &Context<'_>,
    out: &Path,
    slot: usize,
) -> Result<PathBuf, String> {
    let config = context.config;
    let mut command = Command::new(binary);
    command
        .args([
            "report",
            "--only",
            SOURCE_EXPERIMENTS,
            "--quick",
            "--invocations",
            "1",
            "--out",
        ])
        .arg(out)
        // Slots differ in environment size, as the report's own invocations do.
        .env("KIKI_ENVIRONMENT_PADDING", "x".repeat(1 + 977 * slot))
        // Each build runs at the SIMD level its own build and this CPU give it (the `portable`
        // builds refuse any other): a KIKI_SIMD from the report is not passed on.
        .env_remove(kiki_core::simd::ENV_VAR)
        .stdin(std::process::Stdio::null())
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
    if let Some(cpu) = config.pin_cpu {
        command.arg("--pin").arg(cpu.to_string());
    }
    let output = context
        .watch
        .output(command)
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        let last = crate::last_line(&output.stderr);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gathers_say_why_they_were_not_counted() {
        let missing = gathers(Path::new("/nonexistent/kiki")).unwrap_err();
        assert!(missing.contains("objdump"), "{missing}");
        let mut result = experiment(&[], 0.03);
        let tables = result.tables.len();
        add_gathers(
            &mut result,
            &[("x86-64", Ok(0)), ("native", Err("objdump failed".into()))],
        );
        assert_eq!(result.tables.len(), tables + 1);
        let last = result.tables.last().unwrap();
        assert_eq!(last.rows[0], ["x86-64", "0"]);
        assert_eq!(last.rows[1][1], "not counted: objdump failed");
        assert!(result.method.contains("objdump"));
    }
}
