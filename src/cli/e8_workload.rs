//! `kiki e8-workload` (hidden): E8's fixed lookup workload on one backend, the process that
//! `kiki report` runs under valgrind's cache simulation.

use super::{CliError, Options};
use crate::harness::e8;

pub fn run(args: &[String]) -> Result<(), CliError> {
    let options = Options::parse(
        "e8-workload",
        args,
        &[],
        &["--backend", "--lookups", "--seed", "--eval-bytes"],
    )?;
    let backend = options
        .value("--backend")
        .ok_or_else(|| CliError::usage("kiki e8-workload: --backend NAME is required"))?;
    let lookups = options.number("--lookups", 100_000)? as usize;
    let seed = options.number("--seed", e8::WORKLOAD_SEED)?;
    let eval_bytes = options.number("--eval-bytes", 0)? as usize;
    let folded = e8::run_workload(backend, lookups, seed, eval_bytes)?;
    println!("{backend} {lookups} lookups (evaluation {eval_bytes} B), folded {folded:#x}");
    Ok(())
}
