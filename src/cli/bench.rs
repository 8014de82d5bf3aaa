//! `kiki bench`: the fixed-depth search over the bench positions on one or every backend, its
//! fingerprint and nodes per second.

use super::perft::read_positions_file;
use super::{resolve_backends, CliError, Output};
use kiki_core::pages::Pages;
use kiki_engine::search::bench;
use kiki_engine::search::eval::EvalTables;
use kiki_engine::search::tt::TranspositionTable;
use kiki_harness::bench::{run_named, BenchRun};
use serde_json::json;

const MAX_DEPTH: u64 = 12;

/// A 64-bit signature of the fingerprints (nodes, best move, score per position), FNV-1a.
fn signature(run: &BenchRun) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for print in &run.positions {
        let text = format!("{} {} {};", print.nodes, print.best, print.score);
        for byte in text.bytes() {
            hash = (hash ^ byte as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    hash
}

pub fn run(args: super::BenchArgs) -> Result<(), CliError> {
    let out = Output::new("bench");
    if args.depth == 0 || args.depth > MAX_DEPTH {
        return Err(CliError::usage(format!(
            "kiki bench: --depth must be 1 to {MAX_DEPTH}, got {}",
            args.depth
        )));
    }
    let names = resolve_backends("bench", &args.backend)?;
    let sfens: Vec<String> = match &args.positions {
        Some(path) => read_positions_file("bench", path)?,
        None => bench::positions().into_iter().map(String::from).collect(),
    };
    let tt_bytes = check_memory(&args)?;
    super::interrupt::install("bench");
    let tables = EvalTables::new(args.eval, Pages::Huge);
    let mut tt = TranspositionTable::new(tt_bytes, Pages::Huge);
    let mut first: Option<(&str, BenchRun)> = None;
    for &name in &names {
        super::place_tables("bench", name, Some(args.table_pages))?;
        let run = run_named(name, &sfens, args.depth as u32, &tables, &mut tt)
            .map_err(|e| CliError::registry("bench", e))?;
        if args.json {
            out.line(json!({
                "backend": name,
                "eval": args.eval.name(),
                "tt_mib": tt.bytes() >> 20,
                "depth": args.depth,
                "nodes": run.nodes,
                "nps": run.nps().round(),
                "seconds": run.seconds,
                "positions": run.positions,
            }))?;
        } else {
            out.line(format_args!(
                "{name:<12} {} depth {}  nodes {:>10}  signature {:016x}  {:>7.3} s  {:>9.0} nodes/s",
                args.eval.name(),
                args.depth,
                run.nodes,
                signature(&run),
                run.seconds,
                run.nps()
            ))?;
        }
        match &first {
            None => first = Some((name, run)),
            Some((first_name, first_run)) => {
                if let Some(difference) = first_run.difference_text(first_name, &run, name) {
                    out.flush()?;
                    return Err(CliError::failed(format!(
                        "kiki bench: fingerprints differ {difference}"
                    )));
                }
            }
        }
    }
    out.flush()?;
    Ok(())
}

/// The TT's bytes, once they and the evaluation's tables are known to fit in `MemAvailable`.
fn check_memory(args: &super::BenchArgs) -> Result<usize, CliError> {
    let mib = args.tt_mib;
    if mib == 0 {
        return Err(CliError::usage("kiki bench: --tt-mib must be at least 1"));
    }
    let tt_bytes = mib
        .checked_mul(1 << 20)
        .and_then(|b| usize::try_from(b).ok())
        .ok_or_else(|| CliError::usage(format!("kiki bench: --tt-mib {mib} is too large")))?;
    let needed = tt_bytes.saturating_add(args.eval.table_bytes());
    if let Some(available) = kiki_harness::cache_levels::mem_available() {
        if needed > available {
            return Err(CliError::usage(format!(
                "kiki bench: --tt-mib {mib} with the {} tables needs {} MiB, but only {} MiB are available",
                args.eval.name(),
                needed >> 20,
                available >> 20
            )));
        }
    }
    Ok(tt_bytes)
}
