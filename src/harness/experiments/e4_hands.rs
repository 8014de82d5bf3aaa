//! E4: the hand layouts of seed 003 (Bonanza's packed `u32`, the guarded fields, a byte per
//! kind) on the same pre-generated hands: superiority (independent and as a dependent chain),
//! count, add + count and remove + count.

use super::{and_list, point, ranked, series, summarise, Config, Progress};
use crate::hands::{ByteHand, GuardedHand, HandLayout, PackedHand};
use crate::harness::measure::{interleaved, Case};
use crate::harness::results::{ExperimentResult, Plot, PlotKind, PlotLine, Table};
use crate::harness::stats::{format_spread, ratio};
use crate::position::PieceKind;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde_json::Value as Json;
use std::hint::black_box;

pub const TITLE: &str = "Hand layouts";

const LAYOUTS: [&str; 3] = [PackedHand::NAME, GuardedHand::NAME, ByteHand::NAME];
const OPS: [&str; 5] = ["superior", "superior-chain", "count", "add", "remove"];
const MAX: [u8; 7] = PieceKind::HAND_MAX;

/// Pairs where about half the superiority answers are true (`b` drawn below `a`, sometimes
/// one field raised), and per entry a kind that can be added and one that can be removed.
struct Inputs {
    pairs: Vec<([u8; 7], [u8; 7])>,
    addable: Vec<PieceKind>,
    removable: Vec<PieceKind>,
}

/// `n` must be a power of two (the dependent chain wraps with a mask).
fn inputs(seed: u64, n: usize) -> Inputs {
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

struct Row {
    op: &'static str,
    layout: String,
    ns: Vec<f64>,
}

pub fn run(config: &Config, progress: Progress<'_>) -> ExperimentResult {
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
        let results = interleaved(&mut cases, &sampling, None, &mut |f| {
            progress(op, (i as f64 + f) / OPS.len() as f64)
        });
        rows.extend(results.into_iter().map(|r| Row {
            op,
            layout: r.name,
            ns: r.ns_per_op,
        }));
    }
    progress("done", 1.0);
    build(config, n, &inputs, rows)
}

fn build(config: &Config, n: usize, inputs: &Inputs, rows: Vec<Row>) -> ExperimentResult {
    let find = |op: &str, layout: &str| rows.iter().find(|r| r.op == op && r.layout == layout);
    let true_share = inputs
        .pairs
        .iter()
        .filter(|(a, b)| a.iter().zip(b).all(|(x, y)| x >= y))
        .count() as f64
        / n.max(1) as f64;
    let series_out = rows
        .iter()
        .map(|r| {
            series(
                &[("layout", &r.layout), ("operation", r.op)],
                "ns/op",
                r.ns.clone(),
            )
        })
        .collect();
    let mut headers = vec!["layout".to_string()];
    headers.extend(OPS.iter().map(|op| format!("{op}: ns/op")));
    let table_rows = LAYOUTS
        .iter()
        .map(|layout| {
            let mut row = vec![layout.to_string()];
            for op in OPS {
                row.push(match find(op, layout) {
                    Some(r) => format_spread(&summarise(&r.ns)),
                    None => "–".to_string(),
                });
            }
            row
        })
        .collect();
    let lines = LAYOUTS
        .iter()
        .map(|layout| PlotLine {
            name: layout.to_string(),
            points: OPS
                .iter()
                .enumerate()
                .filter_map(|(i, op)| find(op, layout).map(|r| point(i as f64, &summarise(&r.ns))))
                .collect(),
        })
        .collect();
    let plot = Plot {
        file_stem: "e4-hands".to_string(),
        title: "E4 hand layouts: ns per operation".to_string(),
        x_label: "operation".to_string(),
        y_label: "ns per operation (lower is better)".to_string(),
        log_x: false,
        log_y: false,
        kind: PlotKind::Bar,
        categories: OPS.iter().map(|s| s.to_string()).collect(),
        markers: Vec::new(),
        lines,
    };
    let mut findings = Vec::new();
    let mut summary = Vec::new();
    for op in OPS {
        let entries: Vec<(&str, f64)> = LAYOUTS
            .iter()
            .filter_map(|l| find(op, l).map(|r| (*l, summarise(&r.ns).median)))
            .collect();
        let order = ranked(&entries);
        let Some(&(best, best_ns)) = order.first() else {
            continue;
        };
        let others: Vec<String> = order[1..]
            .iter()
            .filter_map(|(l, _)| {
                let r = ratio(&find(op, l)?.ns, &find(op, best)?.ns)?;
                Some(format!("{l} ×{:.2} ({:.2}–{:.2})", r.median, r.min, r.max))
            })
            .collect();
        findings.push(format!(
            "{op}: {best} is fastest at {best_ns:.2} ns; {}.",
            and_list(&others)
        ));
        summary.push((format!("fastest {op}"), Json::from(best)));
    }
    for op in ["superior", "superior-chain"] {
        if let (Some(g), Some(p)) = (find(op, GuardedHand::NAME), find(op, PackedHand::NAME)) {
            if let Some(r) = ratio(&g.ns, &p.ns) {
                let verdict = if r.max < 1.0 {
                    "faster than"
                } else if r.min > 1.0 {
                    "slower than"
                } else {
                    "not clearly different from"
                };
                findings.push(format!(
                    "On {op}, the guarded layout's single subtraction is {verdict} Bonanza's \
                     field-by-field compare (guarded/packed ×{:.2}, {:.2}–{:.2} over paired \
                     rounds).",
                    r.median, r.min, r.max
                ));
            }
        }
    }
    let method = format!(
        "{n} pre-generated hand pairs (seed {:#x}; {:.0} % of them have the first hand at \
         least as good as the second; `b` is drawn below `a` and half the time one field \
         redrawn), each turned into every layout before timing. superior: independent `is_superior_or_equal` over all \
         pairs; superior-chain: the next pair's index depends on the last answer (latency); \
         count, add, remove: one kind per pair (add only below the maximum, remove only a held \
         kind) followed by reading the new count. ns per operation, {} samples with the three \
         layouts interleaved round-robin; cells: median (min–max); ratios paired per round.",
        config.seed ^ 0xE4,
        100.0 * true_share,
        config.sampling().samples,
    );
    ExperimentResult {
        wall_seconds: None,
        id: "E4".to_string(),
        title: TITLE.to_string(),
        method,
        series: series_out,
        tables: vec![Table {
            headers,
            rows: table_rows,
        }],
        plots: vec![plot],
        findings: findings.join(" "),
        summary,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::experiments::tests::assert_well_formed;

    #[test]
    fn smoke_run_is_well_formed() {
        let experiment = run(&Config::smoke(), &mut |_, _| {});
        assert_well_formed(&experiment);
        assert_eq!(experiment.series.len(), OPS.len() * LAYOUTS.len());
    }

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
