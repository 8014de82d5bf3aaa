//! `kiki e8-workload` (hidden): E8's fixed lookup workload on one backend, the process that
//! `kiki report` runs under valgrind's cache simulation.

use super::{CliError, Output};
use kiki_harness::experiments::e8_simulated_caches;

/// Bounds that keep the lookup count sane and the evaluation buffer's memory bounded.
const MAX_LOOKUPS: u64 = 1_000_000_000;
const MAX_EVAL_BYTES: u64 = 1 << 40;

pub fn run(args: super::E8WorkloadArgs) -> Result<(), CliError> {
    let out = Output::new("e8-workload");
    if !(1..=MAX_LOOKUPS).contains(&args.lookups) {
        return Err(CliError::usage(format!(
            "kiki e8-workload: --lookups wants 1 to {MAX_LOOKUPS}, got {}",
            args.lookups
        )));
    }
    if args.eval_bytes > MAX_EVAL_BYTES {
        return Err(CliError::usage(format!(
            "kiki e8-workload: --eval-bytes wants at most {MAX_EVAL_BYTES} (1 TiB), got {}",
            args.eval_bytes
        )));
    }
    let (lookups, eval_bytes) = (args.lookups as usize, args.eval_bytes as usize);
    // The evaluation buffer with its alignment slack, asked for up front: an allocation the
    // system refuses is an error here rather than an abort in the middle. The inputs need no
    // more than a chunk's buffers, whatever the lookup count.
    let needed = e8_simulated_caches::eval_allocation(eval_bytes);
    let mut probe: Vec<u8> = Vec::new();
    probe.try_reserve_exact(needed).map_err(|_| {
        CliError::failed(format!(
            "kiki e8-workload: cannot allocate {needed} bytes for the evaluation buffer"
        ))
    })?;
    drop(probe);
    // The inputs: the workload file's (E8's search-order walk) or the uniform ones, read a
    // chunk at a time between the collected calls.
    let mut stream = match &args.workload {
        Some(path) => e8_simulated_caches::InputStream::open(path)
            .map_err(|e| CliError::usage(format!("kiki e8-workload: {e}")))?,
        None => e8_simulated_caches::InputStream::uniform(args.seed),
    };
    let folded = e8_simulated_caches::run_workload(&args.backend, lookups, &mut stream, eval_bytes)
        .map_err(|e| CliError::registry("e8-workload", e))?
        .map_err(|e| CliError::failed(format!("kiki e8-workload: {e}")))?;
    out.line(format_args!(
        "{} {lookups} lookups (evaluation {eval_bytes} B), folded {folded:#x}",
        args.backend
    ))?;
    out.flush()
}
