//! The free-running bracket: the old design, for comparison.

use super::{Measurement, Steps};
use crate::experiments::e7_cache_pressure::{BRACKET_READS, EVAL_ALONE};
use crate::experiments::{convert, fold, lookup, Input, MIXED};
use crate::measure::{interleaved, Case};
use crate::registry;
use crate::workloads::{eval_index, LookupItem, SearchWorkload};
use kiki_core::backend::{Backend, Bitboard};
use kiki_core::pages::{PageBuffer, Pages};
use kiki_core::units::rounded_bytes;
use kiki_variants::registry::BackendVisitor;
use serde::{Deserialize, Serialize};
use std::hint::black_box;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Bracket {
    pub bytes: usize,
    pub case: String,
    pub ns: Vec<f64>,
}

/// The free-running bracket: the old design, lookups interleaved with independent evaluation
/// reads and nothing ordering them, at E = 0 and E = the pressure buffer, minus the reads alone.
pub(super) fn bracket(m: &mut Measurement, workload: &SearchWorkload, steps: &mut Steps<'_>) {
    let count = workload.lookups.len().min(1 << 17);
    let items: Vec<LookupItem> = (0..workload.nodes())
        .flat_map(|node| {
            workload
                .node(node)
                .iter()
                .map(move |&(slider, square)| LookupItem {
                    occupancy: workload.occupancies[node],
                    square,
                    slider,
                })
        })
        .take(count)
        .collect();
    m.bracket_lookups = items.len();
    for bytes in [0, m.pressure_bytes] {
        let message = format!("free-running bracket, E = {}", rounded_bytes(bytes as f64));
        let buffer = (bytes > 0).then(|| PageBuffer::new(bytes, Pages::Huge, |i| i as u64));
        let eval: &[u64] = buffer.as_ref().map_or(&[], |b| b.as_slice());
        let mut cases: Vec<Case<'_>> = m
            .backends
            .iter()
            .filter_map(|name| {
                registry::visit_base(
                    name,
                    MakeBracket {
                        items: &items,
                        eval,
                    },
                )
                .ok()
            })
            .collect();
        cases.push(eval_alone_case(items.len(), eval));
        let results = interleaved(&mut cases, &m.sampling, m.invocation, None, &mut |f| {
            steps.report(&message, f)
        });
        for result in results {
            m.bracket.push(Bracket {
                bytes,
                case: result.name,
                ns: result.ns_per_op,
            });
        }
    }
    steps.done += 1;
}

struct MakeBracket<'a> {
    items: &'a [LookupItem],
    eval: &'a [u64],
}

impl<'a> BackendVisitor for MakeBracket<'a> {
    type Output = Case<'a>;
    fn visit<B: Backend>(self, backend: B) -> Case<'a> {
        free_running_case(backend, convert(&backend, self.items), self.eval)
    }
}

/// One lookup, then `BRACKET_READS` evaluation reads, per input; nothing orders them.
fn free_running_case<B: Backend>(
    backend: B,
    inputs: Vec<Input<B::Occupancy>>,
    eval: &[u64],
) -> Case<'_> {
    let n = inputs.len() as u64;
    let reads = if eval.is_empty() { 0 } else { BRACKET_READS };
    Case::new(B::info().name, n, move |reps| {
        let elements = eval.len();
        let mut counter = 0u64;
        let mut sum = 0u64;
        let mut folded = B::Bitboard::empty();
        for _ in 0..reps {
            for input in black_box(&inputs[..]) {
                folded ^= lookup::<B, MIXED>(&backend, input);
                for _ in 0..reads {
                    sum = sum.wrapping_add(eval[eval_index(counter, elements)]);
                    counter += 1;
                }
            }
        }
        sum ^ fold(folded)
    })
}

/// The evaluation reads alone, over the same number of iterations.
fn eval_alone_case(n: usize, eval: &[u64]) -> Case<'_> {
    let reads = if eval.is_empty() { 0 } else { BRACKET_READS };
    Case::new(EVAL_ALONE, n as u64, move |reps| {
        let elements = eval.len();
        let mut counter = 0u64;
        let mut sum = 0u64;
        for _ in 0..reps {
            for _ in 0..black_box(n) {
                for _ in 0..reads {
                    sum = sum.wrapping_add(eval[eval_index(counter, elements)]);
                    counter += 1;
                }
            }
        }
        sum
    })
}
