//! E3's measuring: the position sets and both solvers' checked, timed cases per backend.

use super::TASKS;
use crate::experiments::{Config, Progress};
use crate::invocations::{gather, merge_rows, union, Invocation};
use crate::measure::{interleaved, Case};
use crate::registry;
use kiki_core::backend::Backend;
use kiki_engine::mate1::{mate_in_1, mate_in_1_brute_force, tactical_positions};
use kiki_engine::position::Position;
use kiki_variants::mailbox::Mailbox;
use kiki_variants::registry::BackendVisitor;
use serde::{Deserialize, Serialize};
use std::hint::black_box;

/// One task's samples for one backend.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct Row {
    #[serde(with = "crate::invocations::static_str")]
    pub task: crate::invocations::StaticStr,
    pub backend: String,
    pub ns: Vec<f64>,
}

/// Everything E3 measured, and the settings the method paragraph reports.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct Measurement {
    #[serde(with = "crate::invocations::static_str::vec")]
    pub backends: Vec<&'static str>,
    /// Backends asked for but not measured, with the reason.
    pub skipped: Vec<String>,
    /// The seed of the tactical games the positions come from.
    pub workload_seed: u64,
    /// Positions with a mate in one, and without.
    pub set_sizes: (usize, usize),
    /// Samples per cell.
    pub samples: usize,
    /// The practical threshold of the claims.
    pub threshold: f64,
    pub rows: Vec<Row>,
    /// Wrong answers, empty sets, unknown backends.
    pub errors: Vec<String>,
    /// The process invocations pooled here (1 as measured; K once merged).
    pub invocations: usize,
}

/// K invocations' measurements as one: every row's rounds one invocation after another, errors
/// of any; the rest from the first.
pub(super) fn merge(parts: &[Measurement]) -> Result<Measurement, String> {
    let first = parts.first().ok_or("nothing measured")?;
    let rows = merge_rows(
        &gather(parts, |p| &p.rows),
        |r| (r.task, r.backend.clone()),
        |into, from| into.ns.extend(&from.ns),
    )?;
    Ok(Measurement {
        rows,
        errors: union(parts.iter().map(|p| p.errors.clone())),
        invocations: parts.len(),
        ..first.clone()
    })
}

impl Measurement {
    /// The row of `backend` on `task`, if it was timed.
    pub fn row(&self, task: &str, backend: &str) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| r.task == task && r.backend == backend)
    }
}

/// (with a mate, without): SFENs split by the brute-force answer on the mailbox backend.
fn sets(seed: u64, per_set: usize) -> Result<(Vec<String>, Vec<String>), String> {
    let backend = Mailbox::new()?;
    let (mut mates, mut quiet) = (Vec::new(), Vec::new());
    for sfen in tactical_positions(backend, seed, 20 * per_set) {
        let pos = Position::from_sfen(backend, &sfen).map_err(|e| e.to_string())?;
        let set = if mate_in_1_brute_force(&pos).is_some() {
            &mut mates
        } else {
            &mut quiet
        };
        if set.len() < per_set {
            set.push(sfen);
        }
        if mates.len() == per_set && quiet.len() == per_set {
            break;
        }
    }
    Ok((mates, quiet))
}

struct MakeCase<'a> {
    sfens: &'a [String],
    brute: bool,
    has_mate: bool,
}

impl BackendVisitor for MakeCase<'_> {
    type Output = Result<Case<'static>, String>;
    fn visit<B: Backend>(self, backend: B) -> Self::Output {
        let name = B::info().name;
        let positions: Vec<Position<B>> = self
            .sfens
            .iter()
            .map(|s| Position::from_sfen(backend, s).map_err(|e| e.to_string()))
            .collect::<Result<_, _>>()?;
        // Every answer checked against the set's label before timing.
        for (pos, sfen) in positions.iter().zip(self.sfens) {
            let found = if self.brute {
                mate_in_1_brute_force(pos)
            } else {
                mate_in_1(pos)
            };
            if found.is_some() != self.has_mate {
                return Err(format!(
                    "{name}: {} says {} on {sfen}",
                    if self.brute {
                        "brute force"
                    } else {
                        "fast path"
                    },
                    if found.is_some() { "mate" } else { "no mate" }
                ));
            }
        }
        let count = positions.len() as u64;
        let brute = self.brute;
        Ok(Case::new(name, count, move |reps| {
            let mut total = 0u64;
            for _ in 0..reps {
                for pos in black_box(&positions[..]) {
                    let found = if brute {
                        mate_in_1_brute_force(pos)
                    } else {
                        mate_in_1(pos)
                    };
                    total += found.is_some() as u64;
                }
            }
            total
        }))
    }
}

/// Times both solvers on both sets for every backend, each task interleaved.
pub(super) fn measure(
    config: &Config,
    invocation: Invocation,
    progress: Progress<'_>,
) -> Measurement {
    let (backends, skipped) = config.backend_names();
    progress("generating positions", 0.0);
    let seed = config.seed ^ 0xE3;
    let per_set = config.pick(6, 100, 200);
    let (mates, quiet) = sets(seed, per_set).unwrap_or_default();
    let sampling = config.sampling();
    let mut rows = Vec::new();
    let mut errors = Vec::new();
    for (t, &(task, brute, has_mate)) in TASKS.iter().enumerate() {
        progress(
            &format!("{task} (preparing)"),
            t as f64 / TASKS.len() as f64,
        );
        // Both solvers over the same positions, so that their ratio compares like with like.
        let sfens = if has_mate { &mates[..] } else { &quiet[..] };
        if sfens.is_empty() {
            errors.push(format!("{task}: no positions were generated"));
            continue;
        }
        let mut cases = Vec::new();
        for name in &backends {
            match registry::visit_base(
                name,
                MakeCase {
                    sfens,
                    brute,
                    has_mate,
                },
            ) {
                Ok(Ok(case)) => cases.push(case),
                Ok(Err(error)) => errors.push(error),
                Err(error) => errors.push(error.to_string()),
            }
        }
        let results = interleaved(&mut cases, &sampling, invocation, None, &mut |f| {
            progress(task, (t as f64 + f) / TASKS.len() as f64)
        });
        for result in results {
            rows.push(Row {
                task,
                backend: result.name,
                ns: result.ns_per_op,
            });
        }
    }
    progress("done", 1.0);
    Measurement {
        backends,
        skipped,
        workload_seed: seed,
        set_sizes: (mates.len(), quiet.len()),
        samples: sampling.samples,
        threshold: config.threshold,
        rows,
        errors,
        invocations: 1,
    }
}
