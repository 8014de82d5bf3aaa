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
    pub checksum: u64,
    pub counts: FileCounts,
}

/// The steady state of a search: the run of `2P` positions less the run of the first `P`, so
/// that the cold misses of the first touch of code, tables and TT, and the measured function's
/// entry and exit, cancel (as E8's `long.minus(&short)` does for its lookups).
#[derive(Clone, Debug, PartialEq)]
pub struct SteadySearch {
    pub size: SearchSize,
    /// Nodes of the second `P` positions (the difference of the two runs' nodes).
    pub nodes: u64,
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

/// The steady state of `size`'s search on `backend` under `geometry`: two runs, of
/// `size.positions` and of twice as many (the first ones again and as many more), differenced.
/// Both runs build every bench position, the same tables and the same TT, and their command
/// lines have the same length, so they allocate alike and the second run's first half repeats
/// the first run exactly.
pub fn simulate_search(
    exe: &Path,
    backend: &str,
    size: SearchSize,
    geometry: &Geometry,
    simulator: Simulator<'_>,
) -> Result<SteadySearch, String> {
    let longer = SearchSize {
        positions: 2 * size.positions,
        ..size
    };
    if longer.positions > bench_positions() {
        return Err(format!(
            "{} positions and twice as many asked for, but there are {} bench positions",
            size.positions,
            bench_positions()
        ));
    }
    let short = simulate_search_once(exe, backend, size, geometry, simulator)?;
    let long = simulate_search_once(exe, backend, longer, geometry, simulator)?;
    if long.nodes <= short.nodes {
        return Err(format!(
            "{backend}: {} positions searched {} nodes, no more than the first {}'s {}",
            longer.positions, long.nodes, size.positions, short.nodes
        ));
    }
    Ok(SteadySearch {
        size,
        nodes: long.nodes - short.nodes,
        counts: long.counts.minus(&short.counts),
    })
}

/// The command line of one simulated search: callgrind with the cache simulation, the geometry
/// given in full, collection only inside [`MEASURED_FUNCTION`], per-line counts (which carry
/// inlined code's own files as `fi=`/`fe=` where the binary has line tables), the workload at
/// [`SIMULATED_SIMD`] with the position count zero-padded to ten digits.
pub fn callgrind_command(
    exe: &Path,
    backend: &str,
    size: SearchSize,
    geometry: &Geometry,
    out_file: &Path,
) -> Command {
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
        .args(["e13-workload", "--backend", backend])
        .args(["--eval", size.eval.name()])
        .args(["--positions", &format!("{:010}", size.positions)])
        .args(["--depth", &size.depth.to_string()])
        .args(["--tt-mib", &size.tt_mib.to_string()])
        .args(["--simd", SIMULATED_SIMD]);
    command
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
    let folder = tempfile::Builder::new()
        .prefix("run-")
        .tempdir_in(simulator.scratch)
        .map_err(|e| format!("cannot create a folder for callgrind's output: {e}"))?;
    let out_file = folder.path().join("callgrind.out");
    let command = callgrind_command(exe, backend, size, geometry, &out_file);
    let output = simulator.watch.output(command)?;
    let text = std::fs::read_to_string(&out_file);
    let _ = std::fs::remove_file(&out_file);
    let cell = format!(
        "{backend} {} at LL {}",
        size.eval.name(),
        geometry.ll.describe()
    );
    if !output.status.success() {
        let last = crate::last_line(&output.stderr);
        return Err(format!(
            "valgrind failed on {cell} ({}): {last}",
            output.status
        ));
    }
    let totals = parse_workload_line(&String::from_utf8_lossy(&output.stdout))?;
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
    Ok(SearchRun {
        nodes: totals.nodes,
        checksum: totals.checksum,
        counts,
    })
}
