//! E5's measuring: the games, the recount check and the timed make + unmake replays.

use crate::effects_timing::{self, verify_all, workload, Samples};
use crate::experiments::{Config, Progress};
use crate::invocations;

/// Everything E5 measured, and the settings the method paragraph reports.
pub(super) struct Measurement {
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
}

/// Verifies every stepper, then times them (in `effects_timing`, on the thread clock).
pub(super) fn measure(config: &Config, progress: Progress<'_>) -> Measurement {
    let seed = config.seed ^ 0xE5;
    let moves = config.pick(400, 20_000, 100_000);
    let samples = config.pick(3, 9, 15);
    progress("generating games", 0.0);
    let outcome = workload(moves, seed).and_then(|w| {
        progress("verifying against a from-scratch recount", 0.2);
        let verified = verify_all(&w)?;
        progress("timing make + unmake", 0.5);
        let results = timed(&w, samples)?;
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
    }
}

/// Times the steppers through the invocation session: live (this invocation's share of the
/// rounds), or replayed from every invocation's recording, each stepper's samples in
/// invocation order.
fn timed(workload: &effects_timing::Workload, samples: usize) -> Result<Vec<Samples>, String> {
    // A failed measurement is recorded as one entry named by its error, so that replaying
    // says why instead of merging nothing.
    const FAILED: &str = "failed: ";
    let rounds = invocations::rounds(samples);
    let recorded = invocations::timed(|| match effects_timing::measure(workload, rounds) {
        Ok(results) => results
            .into_iter()
            .map(|r| (r.name.to_string(), r.ns_per_update, Vec::new()))
            .collect(),
        Err(why) => vec![(format!("{FAILED}{why}"), Vec::new(), Vec::new())],
    })?;
    if let Some((why, _, _)) = recorded.iter().find(|(n, _, _)| n.starts_with(FAILED)) {
        return Err(why[FAILED.len()..].to_string());
    }
    let mut steppers = effects_timing::steppers(samples);
    for stepper in &mut steppers {
        let (_, ns, _) = recorded
            .iter()
            .find(|(name, _, _)| name == stepper.name)
            .ok_or_else(|| format!("no samples of {} were recorded", stepper.name))?;
        stepper.ns_per_update = ns.clone();
    }
    Ok(steppers)
}
