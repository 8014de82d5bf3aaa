//! E13's measuring: the search workload run under valgrind callgrind's cache simulation with
//! the geometry explicit, read per source file, and two search sizes differenced.

use super::per_file::{parse_per_file, FileCounts, Part};
use super::workload::{
    bench_positions, parse_workload_line, SearchSize, MEASURED_FUNCTION, SIMULATED_SIMD,
};
use crate::experiments::e8_simulated_caches::{CacheSpec, Simulator};
use std::path::Path;
use std::process::Command;

/// The caches of one simulation: instruction L1, data L1 and the last level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub i1: CacheSpec,
    pub d1: CacheSpec,
    pub ll: CacheSpec,
}

/// Ways of the simulated last level before valgrind's power-of-two set count adjusts them.
pub const LAST_LEVEL_WAYS: usize = 16;

impl Geometry {
    /// 32 KiB 8-way first levels with 64-byte lines (this Zen 4's, and E8's 2008-class ones)
    /// under a last level of `ll_bytes`, 16-way where valgrind's set count allows
    /// ([`CacheSpec::for_valgrind`]); `None` where valgrind has no such cache.
    pub fn with_last_level(ll_bytes: usize) -> Option<Geometry> {
        let l1 = CacheSpec::for_valgrind(32 << 10, 8, 64)?;
        Some(Geometry {
            i1: l1,
            d1: l1,
            ll: CacheSpec::for_valgrind(ll_bytes, LAST_LEVEL_WAYS, 64)?,
        })
    }
}

/// How far two runs of one cell may differ in any one event count (Ir, Dr, Dw, D1mr, D1mw,
/// DLmr, DLmw over the collected search): as E8's edge allowance, a few lines touched once at
/// the measured function's exit. The workload is deterministic under valgrind (the same
/// binary, command line and environment, valgrind's own address-space layout), so runs are
/// expected to repeat exactly; `tests/e13_simulation.rs` checks it.
pub const REPEATED_RUN_TOLERANCE: i64 = 16;

/// The share of instructions charged to unnamed files (`???`) beyond which a run is refused:
/// its binary has no line tables, so no miss can be placed.
pub const MAX_UNKNOWN_FILE_SHARE: f64 = 0.5;

/// What a refused run's error says (the release profile has no debug information; E13 needs
/// `-C debuginfo=line-tables-only`, which leaves the code as it is).
pub const NO_LINE_TABLES: &str = "the binary has no line tables";

/// One simulated search: what the workload printed and callgrind's counts per source file.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchRun {
    pub nodes: u64,
    pub warm_nodes: u64,
    pub checksum: u64,
    pub counts: FileCounts,
}

/// The steady state of a search: callgrind's counts over the measured `P` positions, which the
/// first `P` searched before them on the same simulated caches and TT (their costs zeroed by a
/// client request), so that the cold misses of the first touch of code, tables and TT fall
/// outside it. As E8's `long.minus(&short)` does for its lookups, at two thirds of the cost of
/// differencing a run of `2P` positions and one of `P`, which counts the same positions on the
/// same warm state.
#[derive(Clone, Debug, PartialEq)]
pub struct SteadySearch {
    pub size: SearchSize,
    /// Nodes of the measured positions.
    pub nodes: u64,
    /// Nodes of the warming positions before them.
    pub warm_nodes: u64,
    pub checksum: u64,
    pub counts: FileCounts,
}

/// Per node of a steady-state search: data references, first-level and last-level data
/// misses, and the last-level misses split by part (the summary's `misses_per_node` record).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PerNode {
    pub refs: f64,
    pub l1: f64,
    pub ll: f64,
    pub attack_tables: f64,
    pub eval: f64,
    pub tt: f64,
    pub other: f64,
}

impl SteadySearch {
    pub fn per_node(&self) -> PerNode {
        let nodes = self.nodes.max(1) as f64;
        let per = |count: i64| count as f64 / nodes;
        let parts = self.counts.by_part();
        let ll_of = |part: Part| per(parts.get(part).ll_misses());
        PerNode {
            refs: per(self.counts.totals.references()),
            l1: per(self.counts.totals.l1_misses()),
            ll: per(self.counts.totals.ll_misses()),
            attack_tables: ll_of(Part::AttackTables),
            eval: ll_of(Part::Eval),
            tt: ll_of(Part::Tt),
            other: ll_of(Part::Other),
        }
    }
}

/// The steady state of `size`'s search on `backend` under `geometry`: one run of twice
/// `size.positions` positions, the second half counted ([`SteadySearch`]).
pub fn simulate_search(
    exe: &Path,
    backend: &str,
    size: SearchSize,
    geometry: &Geometry,
    simulator: Simulator<'_>,
) -> Result<SteadySearch, String> {
    if 2 * size.positions > bench_positions() {
        return Err(format!(
            "{} positions measured after as many warming ones asked for, but there are {} \
             bench positions",
            size.positions,
            bench_positions()
        ));
    }
    let run = simulate_search_once(exe, backend, size, geometry, simulator)?;
    if run.nodes == 0 {
        return Err(format!(
            "{backend}: the measured positions searched no nodes"
        ));
    }
    Ok(SteadySearch {
        size,
        nodes: run.nodes,
        warm_nodes: run.warm_nodes,
        checksum: run.checksum,
        counts: run.counts,
    })
}

/// Callgrind with the cache simulation and the geometry given in full, instrumenting only from
/// the workload's request and collecting only inside [`MEASURED_FUNCTION`] (and the functions
/// its name starts), per-line counts (which carry inlined code's own files as `fi=`/`fe=` where
/// the binary has line tables), running `exe` with `args`.
fn valgrind_command(exe: &Path, geometry: &Geometry, out_file: &Path, args: &[String]) -> Command {
    let mut command = Command::new("valgrind");
    command
        // A KIKI_SIMD=avx512 inherited from the report would make the workload refuse to start
        // under valgrind, whose CPUID hides AVX-512; the level is given explicitly instead.
        .env_remove(kiki_core::simd::ENV_VAR)
        .arg("--tool=callgrind")
        .arg("--cache-sim=yes")
        // Instrumented only from the workload's request at the search (the building before it
        // runs uninstrumented), and collected only inside the measured function.
        .arg("--instr-atstart=no")
        .arg("--collect-atstart=no")
        .arg(format!("--toggle-collect=*{MEASURED_FUNCTION}*"))
        .arg("--dump-line=yes")
        .arg("--dump-instr=no")
        .arg(format!("--I1={}", geometry.i1.valgrind_arg()))
        .arg(format!("--D1={}", geometry.d1.valgrind_arg()))
        .arg(format!("--LL={}", geometry.ll.valgrind_arg()))
        .arg(format!("--callgrind-out-file={}", out_file.display()))
        .arg(exe)
        .args(args)
        .args(["--simd", SIMULATED_SIMD]);
    command
}

/// The command line of one simulated search: the workload at [`SIMULATED_SIMD`].
pub fn callgrind_command(
    exe: &Path,
    backend: &str,
    size: SearchSize,
    geometry: &Geometry,
    out_file: &Path,
) -> Command {
    let args = [
        "e13-workload",
        "--backend",
        backend,
        "--eval",
        size.eval.name(),
        "--positions",
        &size.positions.to_string(),
        "--depth",
        &size.depth.to_string(),
        "--tt-mib",
        &size.tt_mib.to_string(),
    ]
    .map(String::from);
    valgrind_command(exe, geometry, out_file, &args)
}

/// Runs `command` (which writes `out_file`) and reads callgrind's counts per file, refusing a
/// run that collected nothing or whose binary has no line tables; with the workload's stdout.
fn run_callgrind(
    command: Command,
    out_file: &Path,
    cell: &str,
    simulator: Simulator<'_>,
) -> Result<(String, FileCounts), String> {
    let output = simulator.watch.output(command)?;
    let text = std::fs::read_to_string(out_file);
    let _ = std::fs::remove_file(out_file);
    if !output.status.success() {
        let last = crate::last_line(&output.stderr);
        return Err(format!(
            "valgrind failed on {cell} ({}): {last}",
            output.status
        ));
    }
    let text = text.map_err(|e| format!("callgrind wrote no output for {cell}: {e}"))?;
    let counts = parse_per_file(&text).map_err(|e| format!("{cell}: {e}"))?;
    if counts.totals.ir == 0 {
        return Err(format!(
            "callgrind collected nothing in {MEASURED_FUNCTION} for {cell}"
        ));
    }
    let unknown = counts.unknown_file_share();
    if unknown > MAX_UNKNOWN_FILE_SHARE {
        return Err(format!(
            "{:.0} % of {cell}'s instructions have no source file: {NO_LINE_TABLES} (build it \
             with CARGO_PROFILE_RELEASE_DEBUG=line-tables-only)",
            100.0 * unknown
        ));
    }
    Ok((String::from_utf8_lossy(&output.stdout).into_owned(), counts))
}

/// A folder of its own under the simulator's scratch folder (runs go side by side).
fn run_folder(simulator: Simulator<'_>) -> Result<tempfile::TempDir, String> {
    tempfile::Builder::new()
        .prefix("run-")
        .tempdir_in(simulator.scratch)
        .map_err(|e| format!("cannot create a folder for callgrind's output: {e}"))
}

/// The synthetic table walk of `lines` distinct lines on `backend` under `geometry`: its
/// lookups and callgrind's counts per file (the attribution's test).
pub fn simulate_walk(
    exe: &Path,
    backend: &str,
    lines: usize,
    geometry: &Geometry,
    simulator: Simulator<'_>,
) -> Result<(u64, FileCounts), String> {
    let folder = run_folder(simulator)?;
    let out_file = folder.path().join("callgrind.out");
    let args = [
        "e13-walk",
        "--backend",
        backend,
        "--lines",
        &lines.to_string(),
    ]
    .map(String::from);
    let command = valgrind_command(exe, geometry, &out_file, &args);
    let cell = format!("{backend}'s walk of {lines} lines");
    let (stdout, counts) = run_callgrind(command, &out_file, &cell, simulator)?;
    let lookups = stdout
        .split_whitespace()
        .skip_while(|w| *w != "lookups")
        .nth(1)
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| format!("{cell}: no lookup count in '{}'", stdout.trim()))?;
    Ok((lookups, counts))
}

/// Runs `size`'s search on `backend` under callgrind with `geometry` once, in a folder of its
/// own under the simulator's scratch folder (runs go side by side).
pub fn simulate_search_once(
    exe: &Path,
    backend: &str,
    size: SearchSize,
    geometry: &Geometry,
    simulator: Simulator<'_>,
) -> Result<SearchRun, String> {
    let folder = run_folder(simulator)?;
    let out_file = folder.path().join("callgrind.out");
    let command = callgrind_command(exe, backend, size, geometry, &out_file);
    let cell = format!(
        "{backend} {} at LL {}",
        size.eval.name(),
        geometry.ll.describe()
    );
    let (stdout, counts) = run_callgrind(command, &out_file, &cell, simulator)?;
    let totals = parse_workload_line(&stdout)?;
    Ok(SearchRun {
        nodes: totals.nodes,
        warm_nodes: totals.warm_nodes,
        checksum: totals.checksum,
        counts,
    })
}
