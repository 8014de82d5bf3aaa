//! E1's measuring: the workloads and the timed lookups (independent and chained) per cell.

use super::Mode;
use crate::experiments::counter_log::CounterLog;
use crate::experiments::{
    convert, fold, lookup, Config, Input, Progress, BISHOP, DRAGON, HORSE, LANCE, MIXED, NULL, ROOK,
};
use crate::invocations::{gather, merge_rows, Invocation};
use crate::measure::{interleaved, Case, SampleConfig};
use crate::registry;
use crate::workloads::{self, LookupItem, PieceGroup, Policy, Workload};
use kiki_core::backend::{Backend, Bitboard};
use kiki_variants::registry::BackendVisitor;
use serde::{Deserialize, Serialize};
use std::hint::black_box;
use std::time::Duration;

/// One timed cell: a backend on one workload's piece group in one mode.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct Cell {
    pub workload: String,
    pub piece: PieceGroup,
    pub mode: Mode,
    pub backend: String,
    pub ns: Vec<f64>,
}

/// One batch cell: a backend's lookups of one slider kind over the (occupancy, square) pairs
/// of the game-like random workload, one at a time (`variant` "one at a time") or through
/// `attacks_many_occupancies_at` at a SIMD level (`variant` "batch/<level>").
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct BatchCell {
    pub piece: PieceGroup,
    pub backend: String,
    pub variant: String,
    pub ns: Vec<f64>,
}

/// The variant name of the one-at-a-time loop in the batch runs.
pub(super) const ONE_AT_A_TIME: &str = "one at a time";

/// Everything E1 measured, and the settings the method paragraph reports.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct Measurement {
    #[serde(with = "crate::invocations::static_str::vec")]
    pub backends: Vec<&'static str>,
    /// Backends asked for but not measured, with the reason.
    pub skipped: Vec<String>,
    /// The report's seed, from which every workload's seed is derived.
    pub seed: u64,
    /// Lookups per repetition (each workload is cycled to this many).
    pub lookups: usize,
    pub sampling: SampleConfig,
    /// The practical threshold of the claims.
    pub threshold: f64,
    /// The workloads in report order, each with the piece groups timed on it.
    pub workloads: Vec<(Workload, Vec<PieceGroup>)>,
    pub cells: Vec<Cell>,
    /// The null-lookup baseline: per backend, the loop of the rook and bishop cells (throughput,
    /// and latency since 2026-11-28) with the lookup replaced by [`NULL`], timed in the same
    /// interleaved rounds as those cells (its `piece` and `mode` are the cell's it ran beside).
    /// Empty before 2026-11-28.
    #[serde(default)]
    pub null: Vec<Cell>,
    /// Batch against one at a time (the workload named by `batch_workload`).
    pub batch: Vec<BatchCell>,
    pub batch_workload: String,
    pub counter_log: CounterLog,
    /// Cells without items, or with so few that they repeat.
    pub thin: Vec<String>,
    /// A sentence for the method when the user's positions could not be used (else empty).
    pub user_note: String,
    /// The core clock measured after the runs (`conditions::measure_clock_ghz`), if it could be;
    /// once merged, the median of the invocations' own.
    pub clock_ghz: Option<f64>,
    /// Each invocation's own clock, measured after its runs (absent before 2026-11-27).
    #[serde(default)]
    pub clocks_ghz: Vec<Option<f64>>,
    /// The process invocations pooled here (1 as measured; K once merged).
    pub invocations: usize,
}

/// K invocations' measurements as one: every cell's rounds one invocation after another,
/// counters averaged, the rest (the same in every invocation, or the first's) from the first.
pub(super) fn merge(parts: &[Measurement]) -> Result<Measurement, String> {
    let first = parts.first().ok_or("nothing measured")?;
    let cells = merge_rows(
        &gather(parts, |p| &p.cells),
        |c| (c.workload.clone(), c.piece, c.mode, c.backend.clone()),
        |into, from| into.ns.extend(&from.ns),
    )?;
    let null = merge_rows(
        &gather(parts, |p| &p.null),
        |c| (c.workload.clone(), c.piece, c.mode, c.backend.clone()),
        |into, from| into.ns.extend(&from.ns),
    )?;
    let batch = merge_rows(
        &gather(parts, |p| &p.batch),
        |c| (c.piece, c.backend.clone(), c.variant.clone()),
        |into, from| into.ns.extend(&from.ns),
    )?;
    let logs: Vec<&CounterLog> = parts.iter().map(|p| &p.counter_log).collect();
    let clocks_ghz: Vec<Option<f64>> = parts.iter().flat_map(|p| p.clocks_ghz.clone()).collect();
    let measured: Vec<f64> = clocks_ghz.iter().flatten().copied().collect();
    Ok(Measurement {
        cells,
        null,
        batch,
        clock_ghz: crate::stats::median(&measured).or(first.clock_ghz),
        clocks_ghz,
        counter_log: CounterLog::merge(&logs)?,
        invocations: parts.len(),
        ..first.clone()
    })
}

impl Measurement {
    /// The cell of `backend` on `workload`'s `piece` group in `mode`, if it was timed.
    pub fn cell(
        &self,
        workload: &str,
        piece: PieceGroup,
        mode: Mode,
        backend: &str,
    ) -> Option<&Cell> {
        self.cells.iter().find(|c| {
            c.workload == workload && c.piece == piece && c.mode == mode && c.backend == backend
        })
    }

    /// The null-lookup baseline timed beside `backend`'s throughput cell on `workload`'s
    /// `piece` group, if it was.
    pub fn null_cell(&self, workload: &str, piece: PieceGroup, backend: &str) -> Option<&Cell> {
        self.null.iter().find(|c| {
            c.workload == workload
                && c.piece == piece
                && c.mode == Mode::Throughput
                && c.backend == backend
        })
    }
}

/// Measures every backend on every workload × piece group × mode, interleaved per cell.
pub(super) fn measure(
    config: &Config,
    invocation: Invocation,
    progress: Progress<'_>,
) -> Measurement {
    let (backends, skipped) = config.backend_names();
    let n = config.pick(256, 4096, 16384);
    let common = config.sampling();
    let sampling = SampleConfig {
        // A case's warm-up ends long before its first sample (every other case warms up in
        // between) and the analysis takes each invocation's median, so it only has to
        // calibrate the repetitions and touch the tables: a third of the common warm-up in a
        // full run, for the full report's time budget (docs/report.md).
        warmup: config.pick(common.warmup, common.warmup, Duration::from_millis(10)),
        ..common
    };
    progress("generating workloads", 0.0);
    let (workloads, user_note) = generate_workloads(config, n);
    let mut counter_log = CounterLog::open(&config.counter_events, "lookup");

    let mut cells: Vec<Cell> = Vec::new();
    let mut null: Vec<Cell> = Vec::new();
    let mut thin: Vec<String> = Vec::new();
    let total: usize = workloads.iter().map(|(_, g)| g.len() * 2).sum();
    let mut done = 0;
    for (workload, groups) in &workloads {
        for &group in groups {
            let items: Vec<LookupItem> =
                if workload.name.starts_with("uniform") && group != PieceGroup::Mixed {
                    // Each kind draws its own occupancies from a seed derived from the
                    // workload's, at the workload's density.
                    let seed = workload.seed ^ ((group as u64 + 1) << 16);
                    workloads::uniform(seed, parse_density(&workload.name), n, group).items
                } else {
                    workload.group(group)
                };
            if items.is_empty() {
                thin.push(format!("{} {}: no items", workload.name, group.name()));
                done += 2;
                continue;
            }
            if items.len() < 32 {
                thin.push(format!(
                    "{} {}: only {} distinct items, repeated",
                    workload.name,
                    group.name(),
                    items.len()
                ));
            }
            let items = cycled(&items, n);
            for mode in Mode::BOTH {
                let message = format!("{} {} {}", workload.name, group.name(), mode.name());
                let mut cases: Vec<Case<'static>> = backends
                    .iter()
                    .filter_map(|name| {
                        registry::visit_base(
                            name,
                            MakeCase {
                                items: &items,
                                group,
                                mode,
                            },
                        )
                        .ok()
                    })
                    .collect();
                // Beside the rook and bishop cells (those the cycle targets name), in both
                // modes, each backend's null lookup over the same inputs in the same loop.
                if matches!(group, PieceGroup::Rook | PieceGroup::Bishop) {
                    cases.extend(backends.iter().filter_map(|name| {
                        registry::visit_base(
                            name,
                            MakeNullCase {
                                items: &items,
                                latency: mode == Mode::Latency,
                            },
                        )
                        .ok()
                    }));
                }
                let base = done as f64 / total as f64;
                let results = interleaved(
                    &mut cases,
                    &sampling,
                    invocation,
                    counter_log.counters(),
                    &mut |f| progress(&message, 0.9 * (base + f / total as f64)),
                );
                for result in results {
                    if let Some(backend) = result.name.strip_suffix(NULL_SUFFIX) {
                        null.push(Cell {
                            workload: workload.name.clone(),
                            piece: group,
                            mode,
                            backend: backend.to_string(),
                            ns: result.ns_per_op,
                        });
                        continue;
                    }
                    counter_log.record(
                        &[
                            ("piece", group.name()),
                            ("workload", &workload.name),
                            ("mode", mode.name()),
                        ],
                        &result,
                    );
                    cells.push(Cell {
                        workload: workload.name.clone(),
                        piece: group,
                        mode,
                        backend: result.name,
                        ns: result.ns_per_op,
                    });
                }
                done += 1;
            }
        }
    }
    let (batch, batch_workload) =
        measure_batch(&workloads, &backends, n, (&sampling, invocation), progress);
    progress("measuring the clock", 1.0);
    let clock_ghz = crate::conditions::measure_clock_ghz();
    progress("done", 1.0);
    Measurement {
        backends,
        skipped,
        seed: config.seed,
        lookups: n,
        sampling,
        threshold: config.threshold,
        workloads,
        cells,
        null,
        batch,
        batch_workload,
        counter_log,
        thin,
        user_note,
        clock_ghz,
        clocks_ghz: vec![clock_ghz],
        invocations: 1,
    }
}

/// The workloads E1 times and the piece groups of each: uniform at three densities, the two
/// game-like ones and the user's positions; with a sentence for the method where the user's
/// positions could not be used.
fn generate_workloads(config: &Config, n: usize) -> (Vec<(Workload, Vec<PieceGroup>)>, String) {
    let mut workloads: Vec<(Workload, Vec<PieceGroup>)> = Vec::new();
    let mut groups_all = PieceGroup::KINDS.to_vec();
    groups_all.push(PieceGroup::Mixed);
    for (i, density) in [0.10, 0.25, 0.50].into_iter().enumerate() {
        // One workload per density; each piece group draws its own items from the same seed.
        let seed = config.seed ^ (0xE1_0000 + i as u64);
        let w = workloads::uniform(seed, density, n, PieceGroup::Mixed);
        workloads.push((w, groups_all.clone()));
    }
    for policy in [Policy::Random, Policy::Greedy] {
        let w = workloads::game_like(config.seed ^ 0xE1_0100, policy, n);
        workloads.push((w, groups_all.clone()));
    }
    let mut user_note = String::new();
    if !config.positions.is_empty() {
        match workloads::from_sfens(&config.positions) {
            Ok(w) => workloads.push((w, groups_all.clone())),
            Err(error) => user_note = format!(" User positions were not used: {error}."),
        }
    }
    (workloads, user_note)
}

/// Batch against one at a time: rook and bishop over the game-like random workload's pairs,
/// every batch level beside the plain loop in one interleaved run per kind. Returns the cells
/// and that workload's name (empty where there is none).
fn measure_batch(
    workloads: &[(Workload, Vec<PieceGroup>)],
    backends: &[&'static str],
    n: usize,
    (sampling, invocation): (&SampleConfig, Invocation),
    progress: Progress<'_>,
) -> (Vec<BatchCell>, String) {
    let mut batch = Vec::new();
    let mut batch_workload = String::new();
    if let Some((workload, _)) = workloads.iter().find(|(w, _)| w.name.contains("random")) {
        batch_workload = workload.name.clone();
        for (k, group) in [PieceGroup::Rook, PieceGroup::Bishop]
            .into_iter()
            .enumerate()
        {
            let items = workload.group(group);
            if items.is_empty() {
                continue;
            }
            let items = cycled(&items, n);
            let message = format!("batch {}", group.name());
            let mut cases: Vec<Case<'static>> = Vec::new();
            for name in backends {
                if let Ok(made) = registry::visit_base(
                    name,
                    MakeBatchCases {
                        items: &items,
                        group,
                    },
                ) {
                    cases.extend(made);
                }
            }
            let results = interleaved(&mut cases, sampling, invocation, None, &mut |f| {
                progress(&message, 0.9 + 0.05 * (k as f64 + f))
            });
            for result in results {
                let (backend, variant) = result
                    .name
                    .split_once(' ')
                    .map(|(b, v)| (b.to_string(), v.to_string()))
                    .unwrap_or_default();
                batch.push(BatchCell {
                    piece: group,
                    backend,
                    variant,
                    ns: result.ns_per_op,
                });
            }
        }
    }
    (batch, batch_workload)
}

pub(crate) struct MakeCase<'a> {
    pub(crate) items: &'a [LookupItem],
    pub(crate) group: PieceGroup,
    pub(crate) mode: Mode,
}

impl BackendVisitor for MakeCase<'_> {
    type Output = Case<'static>;
    fn visit<B: Backend>(self, backend: B) -> Case<'static> {
        let inputs = convert(&backend, self.items);
        let latency = self.mode == Mode::Latency;
        match self.group {
            PieceGroup::Rook => make::<B, ROOK>(backend, inputs, latency),
            PieceGroup::Bishop => make::<B, BISHOP>(backend, inputs, latency),
            PieceGroup::Lance => make::<B, LANCE>(backend, inputs, latency),
            PieceGroup::Dragon => make::<B, DRAGON>(backend, inputs, latency),
            PieceGroup::Horse => make::<B, HORSE>(backend, inputs, latency),
            PieceGroup::Mixed => make::<B, MIXED>(backend, inputs, latency),
        }
    }
}

/// The name suffix of a null-lookup case (`pext null`).
const NULL_SUFFIX: &str = " null";

/// A backend's null-lookup case over `items`: the throughput or the latency loop with [`NULL`]
/// in place of the lookup (in the latency loop the next input still depends on its result).
struct MakeNullCase<'a> {
    items: &'a [LookupItem],
    latency: bool,
}

impl BackendVisitor for MakeNullCase<'_> {
    type Output = Case<'static>;
    fn visit<B: Backend>(self, backend: B) -> Case<'static> {
        let inputs = convert(&backend, self.items);
        let mut case = make::<B, NULL>(backend, inputs, self.latency);
        case.name = format!("{}{NULL_SUFFIX}", B::info().name);
        case
    }
}

/// A backend's batch cases for one kind: the plain loop, and `attacks_many_occupancies_at` at
/// every SIMD level this CPU has, over the same pairs.
struct MakeBatchCases<'a> {
    items: &'a [LookupItem],
    group: PieceGroup,
}

impl BackendVisitor for MakeBatchCases<'_> {
    type Output = Vec<Case<'static>>;
    fn visit<B: Backend>(self, backend: B) -> Vec<Case<'static>> {
        let name = B::info().name;
        let inputs = convert(&backend, self.items);
        let slider = match self.group {
            PieceGroup::Bishop => kiki_core::types::Slider::Bishop,
            _ => kiki_core::types::Slider::Rook,
        };
        let n = inputs.len() as u64;
        let mut cases = Vec::new();
        let occupancies: Vec<B::Occupancy> = inputs.iter().map(|i| i.occupancy.clone()).collect();
        let squares: Vec<kiki_core::types::Square> = inputs.iter().map(|i| i.square).collect();
        {
            // One at a time into the same buffer, folded after: the batch's work but the call.
            let (occupancies, squares) = (occupancies.clone(), squares.clone());
            let mut out = vec![B::Bitboard::empty(); squares.len()];
            let bishop = self.group == PieceGroup::Bishop;
            cases.push(Case::new(
                format!("{name} {ONE_AT_A_TIME}"),
                n,
                move |reps| {
                    let mut acc = 0u64;
                    for _ in 0..reps {
                        let occupancies = black_box(&occupancies[..]);
                        for ((o, &sq), occ) in out.iter_mut().zip(&squares).zip(occupancies) {
                            *o = if bishop {
                                backend.bishop_attacks(occ, sq)
                            } else {
                                backend.rook_attacks(occ, sq)
                            };
                        }
                        let folded = out.iter().fold(B::Bitboard::empty(), |a, &b| a ^ b);
                        acc ^= fold(folded);
                    }
                    acc
                },
            ));
        }
        for level in kiki_core::simd::SimdLevel::available() {
            let (occupancies, squares) = (occupancies.clone(), squares.clone());
            let mut out = vec![B::Bitboard::empty(); squares.len()];
            cases.push(Case::new(
                format!("{name} batch/{}", level.name()),
                n,
                move |reps| {
                    let mut acc = 0u64;
                    for _ in 0..reps {
                        backend.attacks_many_occupancies_at(
                            level,
                            slider,
                            black_box(&occupancies),
                            &squares,
                            &mut out,
                        );
                        let folded = out.iter().fold(B::Bitboard::empty(), |a, &b| a ^ b);
                        acc ^= fold(folded);
                    }
                    acc
                },
            ));
        }
        cases
    }
}

/// `inputs.len()` must be a power of two (the latency chain wraps with a mask).
fn make<B: Backend, const G: u8>(
    backend: B,
    inputs: Vec<Input<B::Occupancy>>,
    latency: bool,
) -> Case<'static> {
    let name = B::info().name;
    let n = inputs.len() as u64;
    if !latency {
        return Case::new(name, n, move |reps| {
            let mut acc = 0u64;
            for _ in 0..reps {
                let inputs = black_box(&inputs[..]);
                let mut folded = B::Bitboard::empty();
                for input in inputs {
                    folded ^= lookup::<B, G>(&backend, input);
                }
                acc ^= fold(folded);
            }
            acc
        });
    }
    Case::new(name, n, move |reps| {
        let inputs = black_box(&inputs[..]);
        let mask = inputs.len() - 1;
        let mut index = 0usize;
        let mut acc = 0u64;
        for _ in 0..reps * n {
            // The next input's address depends on this result: no two lookups overlap.
            let count = fold(lookup::<B, G>(&backend, &inputs[index & mask]));
            acc = acc.wrapping_add(count);
            index = index + 1 + (count & 1) as usize;
        }
        acc
    })
}

/// `items` repeated (in order) to exactly `n` entries, `n` a power of two.
pub(crate) fn cycled(items: &[LookupItem], n: usize) -> Vec<LookupItem> {
    items.iter().copied().cycle().take(n).collect()
}

fn parse_density(name: &str) -> f64 {
    name.trim_start_matches("uniform-")
        .parse::<f64>()
        .map(|p| p / 100.0)
        .unwrap_or(0.25)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_chain_and_throughput_fold_agree_with_the_reference() {
        // The folded results are deterministic, so both backends must return the same value.
        let items = cycled(&workloads::uniform(3, 0.3, 64, PieceGroup::Mixed).items, 64);
        let mut values = Vec::new();
        for name in ["magic-plain", "dbb"] {
            for mode in [Mode::Throughput, Mode::Latency] {
                let mut case = registry::visit_base(
                    name,
                    MakeCase {
                        items: &items,
                        group: PieceGroup::Mixed,
                        mode,
                    },
                )
                .unwrap();
                values.push((mode, (case.body)(3)));
            }
        }
        assert_eq!(values[0], values[2]);
        assert_eq!(values[1], values[3]);
    }
}
