//! E4's measuring: the hand pairs, each layout's timed operations, and the clock.

use super::OPS;
use crate::experiments::{Config, Progress};
use crate::invocations::{gather, merge_rows, Invocation};
use crate::measure::{interleaved, Case};
use kiki_engine::hands::{ByteHand, GuardedHand, HandLayout, PackedHand};
use kiki_engine::position::PieceKind;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};
use std::hint::black_box;

const MAX: [u8; 7] = PieceKind::HAND_MAX;

/// One operation's samples for one layout.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct Row {
    #[serde(with = "crate::invocations::static_str")]
    pub op: crate::invocations::StaticStr,
    pub layout: String,
    pub ns: Vec<f64>,
}

/// Everything E4 measured, and the settings the method paragraph reports.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct Measurement {
    /// The hand pairs (as many as every operation does per repetition).
    pub inputs: Inputs,
    /// The seed the pairs were drawn from.
    pub workload_seed: u64,
    /// Samples per cell.
    pub samples: usize,
    /// The practical threshold of the claims.
    pub threshold: f64,
    pub rows: Vec<Row>,
    /// The clock measured after the runs, if it could be.
    pub clock_ghz: Option<f64>,
    /// The process invocations pooled here (1 as measured; K once merged).
    pub invocations: usize,
}

/// K invocations' measurements as one: every row's rounds one invocation after another; the
/// rest (the clock too) from the first.
pub(super) fn merge(parts: &[Measurement]) -> Result<Measurement, String> {
    let first = parts.first().ok_or("nothing measured")?;
    let rows = merge_rows(
        &gather(parts, |p| &p.rows),
        |r| (r.op, r.layout.clone()),
        |into, from| into.ns.extend(&from.ns),
    )?;
    Ok(Measurement {
        rows,
        invocations: parts.len(),
        ..first.clone()
    })
}

impl Measurement {
    /// The row of `layout` on `op`, if it was timed.
    pub fn row(&self, op: &str, layout: &str) -> Option<&Row> {
        self.rows.iter().find(|r| r.op == op && r.layout == layout)
    }
}

/// Pairs where about half the superiority answers are true (`b` drawn below `a`, sometimes
/// one field raised), and per entry a kind that can be added and one that can be removed.
/// A measurement keeps the pairs; the kinds stay in the process that timed them.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct Inputs {
    pub pairs: Vec<([u8; 7], [u8; 7])>,
    #[serde(skip)]
    pub addable: Vec<PieceKind>,
    #[serde(skip)]
    pub removable: Vec<PieceKind>,
}

/// `n` must be a power of two (the dependent chain wraps with a mask).
pub(super) fn inputs(seed: u64, n: usize) -> Inputs {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut pairs = Vec::with_capacity(n);
    let mut addable = Vec::with_capacity(n);
    let mut removable = Vec::with_capacity(n);
    while pairs.len() < n {
        let a: [u8; 7] = std::array::from_fn(|i| rng.random_range(0..=MAX[i]));
        let mut b: [u8; 7] = std::array::from_fn(|i| rng.random_range(0..=a[i]));
        if rng.random_bool(0.5) {
            let i = rng.random_range(0..7usize);
            b[i] = rng.random_range(0..=MAX[i]);
        }
        let below: Vec<usize> = (0..7).filter(|&i| a[i] < MAX[i]).collect();
        let held: Vec<usize> = (0..7).filter(|&i| a[i] > 0).collect();
        if below.is_empty() || held.is_empty() {
            continue;
        }
        addable.push(PieceKind::HAND[below[rng.random_range(0..below.len())]]);
        removable.push(PieceKind::HAND[held[rng.random_range(0..held.len())]]);
        pairs.push((a, b));
    }
    Inputs {
        pairs,
        addable,
        removable,
    }
}

/// The timed body of `op` over layout `H`.
fn case<H: HandLayout + 'static>(op: &'static str, inputs: &Inputs) -> Case<'static> {
    let pairs: Vec<(H, H)> = inputs
        .pairs
        .iter()
        .map(|&(a, b)| (H::from_counts(a), H::from_counts(b)))
        .collect();
    let n = pairs.len();
    let kinds: Vec<PieceKind> = if op == "add" {
        inputs.addable.clone()
    } else {
        inputs.removable.clone()
    };
    Case::new(H::NAME, n as u64, move |reps| {
        let pairs = black_box(&pairs[..]);
        let kinds = black_box(&kinds[..]);
        let mut total = 0u64;
        for _ in 0..reps {
            total += match op {
                "superior" => pairs
                    .iter()
                    .map(|&(a, b)| a.is_superior_or_equal(b) as u64)
                    .sum::<u64>(),
                // The next pair depends on the last answer: the latency of one compare.
                "superior-chain" => {
                    let mut index = 0usize;
                    for _ in 0..n {
                        let (a, b) = pairs[index];
                        index = (index + 1 + a.is_superior_or_equal(b) as usize) & (n - 1);
                    }
                    index as u64
                }
                "count" => pairs
                    .iter()
                    .zip(kinds)
                    .map(|(&(a, _), &kind)| a.count(kind) as u64)
                    .sum::<u64>(),
                // Add (or remove) then read the new count, as a capture or a drop does.
                "add" => pairs
                    .iter()
                    .zip(kinds)
                    .map(|(&(mut a, _), &kind)| {
                        a.add(kind);
                        a.count(kind) as u64
                    })
                    .sum::<u64>(),
                _ => pairs
                    .iter()
                    .zip(kinds)
                    .map(|(&(mut a, _), &kind)| {
                        a.remove(kind);
                        a.count(kind) as u64
                    })
                    .sum::<u64>(),
            };
        }
        total
    })
}

/// Times every operation on the three layouts, each interleaved, then measures the clock.
pub(super) fn measure(
    config: &Config,
    invocation: Invocation,
    progress: Progress<'_>,
) -> Measurement {
    progress("generating hands", 0.0);
    let n = config.pick(256, 4096, 4096);
    let inputs = inputs(config.seed ^ 0xE4, n);
    let sampling = config.sampling();
    let mut rows = Vec::new();
    for (i, &op) in OPS.iter().enumerate() {
        let mut cases = vec![
            case::<PackedHand>(op, &inputs),
            case::<GuardedHand>(op, &inputs),
            case::<ByteHand>(op, &inputs),
        ];
        let results = interleaved(&mut cases, &sampling, invocation, None, &mut |f| {
            progress(op, (i as f64 + f) / OPS.len() as f64)
        });
        rows.extend(results.into_iter().map(|r| Row {
            op,
            layout: r.name,
            ns: r.ns_per_op,
        }));
    }
    progress("measuring the clock", 1.0);
    let clock_ghz = crate::conditions::measure_clock_ghz();
    progress("done", 1.0);
    Measurement {
        inputs,
        workload_seed: config.seed ^ 0xE4,
        samples: sampling.samples,
        threshold: config.threshold,
        rows,
        clock_ghz,
        invocations: 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_valid_for_every_operation() {
        let inputs = inputs(1, 64);
        for ((a, _), (add, remove)) in inputs
            .pairs
            .iter()
            .zip(inputs.addable.iter().zip(&inputs.removable))
        {
            let hand = PackedHand::from_counts(*a);
            assert!(hand.count(*remove) > 0);
            let i = PieceKind::HAND.iter().position(|k| k == add).unwrap();
            assert!(a[i] < MAX[i]);
        }
    }
}
