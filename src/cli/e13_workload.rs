//! `kiki e13-workload` (hidden): the bench search of one backend under one evaluation, the
//! process E13 runs under valgrind's cache simulation; prints the nodes it searched.

use super::{CliError, Output};
use kiki_harness::experiments::e13_simulated_search::{self as e13, SearchSize};

/// The deepest search a simulation may ask for (valgrind runs it 50–100× slower than native).
const MAX_DEPTH: u64 = 6;
/// The largest TT a simulation may ask for, in MiB (it is zeroed before the search).
const MAX_TT_MIB: u64 = 4096;

pub fn run(args: super::E13WorkloadArgs) -> Result<(), CliError> {
    let out = Output::new("e13-workload");
    // Twice P positions are searched: P warming, P measured.
    let available = e13::bench_positions() as u64 / 2;
    let usage = |text: String| CliError::usage(format!("kiki e13-workload: {text}"));
    if !(1..=available).contains(&args.positions) {
        return Err(usage(format!(
            "--positions wants 1 to {available} (half the bench positions), got {}",
            args.positions
        )));
    }
    if !(1..=MAX_DEPTH).contains(&args.depth) {
        return Err(usage(format!(
            "--depth wants 1 to {MAX_DEPTH}, got {}",
            args.depth
        )));
    }
    if !(1..=MAX_TT_MIB).contains(&args.tt_mib) {
        return Err(usage(format!(
            "--tt-mib wants 1 to {MAX_TT_MIB}, got {}",
            args.tt_mib
        )));
    }
    let size = SearchSize {
        eval: args.eval,
        positions: args.positions as usize,
        depth: args.depth as u32,
        tt_mib: args.tt_mib as usize,
    };
    let totals = e13::run_search_workload(&args.backend, size)
        .map_err(|e| CliError::registry("e13-workload", e))?;
    out.line(e13::workload_line(&args.backend, size, totals))?;
    out.flush()
}

/// The most lines a walk may ask for (each is found by trying random occupancies).
const MAX_WALK_LINES: u64 = 1 << 20;

/// `kiki e13-walk`: the synthetic table walk; prints its lookups and checksum.
pub fn walk(args: super::E13WalkArgs) -> Result<(), CliError> {
    let out = Output::new("e13-walk");
    if !(1..=MAX_WALK_LINES).contains(&args.lines) {
        return Err(CliError::usage(format!(
            "kiki e13-walk: --lines wants 1 to {MAX_WALK_LINES}, got {}",
            args.lines
        )));
    }
    let totals = e13::run_table_walk(&args.backend, args.lines as usize)
        .map_err(|e| CliError::registry("e13-walk", e))?
        .ok_or_else(|| {
            CliError::usage(format!(
                "kiki e13-walk: {} has no {} distinct table lines for rook lookups",
                args.backend, args.lines
            ))
        })?;
    out.line(format!(
        "{} walk lookups {} checksum {:#018x}",
        args.backend, totals.lookups, totals.checksum
    ))?;
    out.flush()
}
