//! `kiki effects`: proves the incremental effect boards against a from-scratch recomputation
//! over seeded random games, then times make + unmake per ray stepper, interleaved.

use super::{CliError, Output};
use kiki_harness::effects_timing::{clock_name, measure, verify_all, workload};
use serde_json::{json, Value as Json};

/// Upper bounds that keep the workload's memory and run time sane.
const MAX_MOVES: u64 = 20_000_000;
const MAX_SAMPLES: u64 = 1_000;

pub fn run(args: super::EffectsArgs) -> Result<(), CliError> {
    let out = Output::new("effects");
    let (moves, seed, samples) = (args.moves, args.seed, args.samples);
    if !(1..=MAX_MOVES).contains(&moves) {
        return Err(CliError::usage(format!(
            "kiki effects: --moves wants 1 to {MAX_MOVES}, got {moves}"
        )));
    }
    if !(1..=MAX_SAMPLES).contains(&samples) {
        return Err(CliError::usage(format!(
            "kiki effects: --samples wants 1 to {MAX_SAMPLES}, got {samples}"
        )));
    }
    let json = args.json;

    let workload = workload(moves as usize, seed).map_err(|why| CliError {
        message: format!("kiki effects: cannot build the workload: {why}"),
        code: 1,
    })?;
    let verified = verify_all(&workload).map_err(|why| CliError {
        message: format!("kiki effects: incremental counts disagree: {why}"),
        code: 1,
    })?;
    if !json {
        out.line(format_args!(
            "verified: {} moves in {} games (seed {seed}), {} comparisons per tracker \
             (every make and unmake) against a from-scratch recomputation",
            verified.moves,
            workload.games.len(),
            verified.comparisons
        ))?;
    }
    let results = measure(&workload, samples as usize).map_err(|why| CliError {
        message: format!("kiki effects: {why}"),
        code: 1,
    })?;
    if json {
        let list: Vec<Json> = results
            .iter()
            .map(|r| {
                json!({
                    "stepper": r.name,
                    "layout": r.layout,
                    "moves": workload.moves,
                    "games": workload.games.len(),
                    "seed": seed,
                    "verified_comparisons": verified.comparisons,
                    "unit": "ns per make+unmake",
                    "clock": clock_name(),
                    "median": r.median(),
                    "min": r.min(),
                    "max": r.max(),
                    "samples": r.ns_per_update,
                })
            })
            .collect();
        out.line(Json::Array(list))?;
    } else {
        let baseline = results
            .iter()
            .find(|r| r.name == "sqww")
            .map_or(f64::NAN, |r| r.median());
        out.line(format_args!(
            "ns per make+unmake, median (min-max) of {samples} interleaved samples \
             ({}); ratio to sqww",
            clock_name()
        ))?;
        for r in &results {
            out.line(format_args!(
                "{:<16} {:>8.1} ns ({:.1}-{:.1})  x{:.2}  {}",
                r.name,
                r.median(),
                r.min(),
                r.max(),
                r.median() / baseline,
                r.layout
            ))?;
        }
    }
    out.flush()
}
