//! E5's measuring: the games, the recount check and the timed make + unmake replays.

use crate::effects_timing::{self, verify_all, workload, Samples};
use crate::experiments::{Config, Progress};
use crate::invocations::{gather, merge_rows, Invocation};
use serde::{Deserialize, Serialize};

/// Everything E5 measured, and the settings the method paragraph reports.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct Measurement {
    /// The seed of the games.
    pub workload_seed: u64,
    pub moves: usize,
    /// Samples per stepper.
    pub samples: usize,
    /// Games the moves came from (0 when not measured).
    pub games: usize,
    /// Comparisons with the from-scratch recount (0 when not measured).
    pub recount_comparisons: usize,
    /// Per stepper its samples, in the order `effects_timing` times them.
    pub results: Vec<Samples>,
    /// The practical threshold of a claim (`--threshold`).
    pub threshold: f64,
    /// Why nothing was measured, if so.
    pub error: Option<String>,
    /// The process invocations pooled here (1 as measured; K once merged).
    pub invocations: usize,
}

/// K invocations' measurements as one: every stepper's rounds one invocation after another;
/// an error of any; the rest from the first.
pub(super) fn merge(parts: &[Measurement]) -> Result<Measurement, String> {
    let first = parts.first().ok_or("nothing measured")?;
    let error = parts.iter().find_map(|p| p.error.clone());
    let results = if error.is_some() {
        Vec::new()
    } else {
        merge_rows(
            &gather(parts, |p| &p.results),
            |r| r.name,
            |into, from| into.ns_per_update.extend(&from.ns_per_update),
        )?
    };
    Ok(Measurement {
        results,
        error,
        invocations: parts.len(),
        ..first.clone()
    })
}

/// Verifies every stepper, then times them (in `effects_timing`, on the thread clock).
pub(super) fn measure(
    config: &Config,
    invocation: Invocation,
    progress: Progress<'_>,
) -> Measurement {
    let seed = config.seed ^ 0xE5;
    let moves = config.pick(400, 20_000, 100_000);
    let samples = config.pick(3, 9, 15);
    progress("generating games", 0.0);
    let outcome = workload(moves, seed).and_then(|w| {
        progress("verifying against a from-scratch recount", 0.2);
        let verified = verify_all(&w)?;
        progress("timing make + unmake", 0.5);
        let results = time_steppers(&w, samples, invocation)?;
        Ok((w.games.len(), verified.comparisons, results))
    });
    progress("done", 1.0);
    let (games, recount_comparisons, results, error) = match outcome {
        Ok((games, comparisons, results)) => (games, comparisons, results, None),
        Err(why) => (0, 0, Vec::new(), Some(why)),
    };
    Measurement {
        workload_seed: seed,
        moves,
        samples,
        games,
        recount_comparisons,
        results,
        threshold: config.threshold,
        error,
        invocations: 1,
    }
}

/// Times the steppers (this invocation's share of the rounds), each stepper's samples in the
/// order `effects_timing` lists them.
fn time_steppers(
    workload: &effects_timing::Workload,
    samples: usize,
    invocation: Invocation,
) -> Result<Vec<Samples>, String> {
    let measured = effects_timing::measure(workload, invocation.rounds(samples))?;
    let mut steppers = effects_timing::steppers(samples);
    for stepper in &mut steppers {
        let result = measured
            .iter()
            .find(|r| r.name == stepper.name)
            .ok_or_else(|| format!("no samples of {} were taken", stepper.name))?;
        stepper.ns_per_update = result.ns_per_update.clone();
    }
    Ok(steppers)
}
