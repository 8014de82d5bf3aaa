//! E11's block order: which blocks a process times, in what shuffled order, and the pairs
//! of processes whose second mirrors the first with dbb and its twin exchanged.

use super::measure::{Cell, Sizes, TablePages};
use super::rule_v7::{NEGATIVE, RULE_PAIR, TWIN};
use crate::invocations::Invocation;
use kiki_engine::search::eval::EvalKind;
use rand::seq::SliceRandom;
use rand_xoshiro::Xoshiro256PlusPlus;

/// One timed block: a cell, its entries in this invocation's shuffled order and its rounds.
pub(super) struct Timed {
    pub(super) cell: Cell,
    pub(super) entries: Vec<(&'static str, bool)>,
    pub(super) rounds: usize,
}

/// Processes run in pairs (2i, 2i + 1), from one order seed: the second draws the first's
/// orders and exchanges dbb and its A/A twin in every block that has both, so each slot,
/// neighbour and round effect falls on both labels alike within a pair and the A/A is
/// unbiased by construction, not only in expectation (the 2026-12-01 run's kpp A/A read
/// −24.7 ± 23.4 ns from slow chunk bursts that happened to land on dbb more often).
pub(super) fn pair_of(invocation: Invocation) -> usize {
    invocation.index / 2
}

/// In the second process of a pair: dbb and its twin exchanged in a block that times both.
pub(super) fn exchange_if_mirrored(invocation: Invocation, entries: &mut [(&'static str, bool)]) {
    let has_twin = entries.iter().any(|&(b, twin)| b == TWIN && twin);
    if invocation.index % 2 == 1 && has_twin {
        for entry in entries.iter_mut().filter(|(b, _)| *b == TWIN) {
            entry.1 = !entry.1;
        }
    }
}

/// The rule's entries among `backends`: dbb, its A/A twin, magic-plain, sqww and mailbox.
fn rule_entries(backends: &[&'static str]) -> Vec<(&'static str, bool)> {
    let mut entries: Vec<(&'static str, bool)> = [RULE_PAIR.0, RULE_PAIR.1, NEGATIVE.0, NEGATIVE.1]
        .into_iter()
        .filter(|b| backends.contains(b))
        .map(|b| (b, false))
        .collect();
    if backends.contains(&TWIN) {
        entries.push((TWIN, true));
    }
    entries
}

/// Per page kind (4 KiB first), this invocation's blocks in a shuffled order: the verdict's
/// cells (every evaluation at the largest TT on 2 MiB pages, the rule's entries), the
/// secondary cells where this invocation has them (the largest TT on 4 KiB pages, the smaller
/// TTs on 2 MiB pages; one round), and the ranking cell where it has it (material and nnue at
/// the largest TT, every base backend). Each block's entries shuffled.
pub(super) fn plan(
    sizes: &Sizes,
    backends: &[&'static str],
    invocation: Invocation,
    rng: &mut Xoshiro256PlusPlus,
) -> Vec<(TablePages, Vec<Timed>)> {
    let largest = sizes.tt_mib.iter().copied().max().unwrap_or(0);
    // By pair, so that both processes of a pair time the same cells (the same draws).
    let picked = |every: usize| every > 0 && pair_of(invocation).is_multiple_of(every);
    let (secondary, ranking) = (picked(sizes.secondary_every), picked(sizes.ranking_every));
    let rule = rule_entries(backends);
    let shuffled = |mut entries: Vec<(&'static str, bool)>, rng: &mut Xoshiro256PlusPlus| {
        entries.shuffle(rng);
        entries
    };
    let mut phases = Vec::new();
    for pages in [TablePages::Small, TablePages::Huge] {
        let mut blocks = Vec::new();
        for &eval in &sizes.evals {
            for &tt_mib in &sizes.tt_mib {
                let primary = pages == TablePages::Huge && tt_mib == largest;
                let secondary_cell = secondary && (pages == TablePages::Huge || tt_mib == largest);
                if primary || secondary_cell {
                    blocks.push(Timed {
                        cell: Cell::new(eval, tt_mib, pages),
                        entries: shuffled(rule.clone(), rng),
                        rounds: if primary { sizes.rounds } else { 1 },
                    });
                }
            }
            let ranked_eval = matches!(eval, EvalKind::Material | EvalKind::Nnue);
            if ranking && pages == TablePages::Huge && ranked_eval {
                let all = backends.iter().map(|&b| (b, false)).collect();
                blocks.push(Timed {
                    cell: Cell {
                        ranking: true,
                        ..Cell::new(eval, largest, pages)
                    },
                    entries: shuffled(all, rng),
                    rounds: sizes.rounds,
                });
            }
        }
        if !blocks.is_empty() {
            blocks.shuffle(rng);
            phases.push((pages, blocks));
        }
    }
    phases
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn sizes(ranking_every: usize) -> Sizes {
        Sizes {
            positions: 6,
            depth: 1,
            rounds: 2,
            secondary_every: 0,
            ranking_every,
            evals: EvalKind::ALL.to_vec(),
            tt_mib: vec![2],
        }
    }

    fn planned(index: usize, seed: u64) -> Vec<(Cell, Vec<(&'static str, bool)>)> {
        let backends = ["dbb", "magic-plain", "sqww", "mailbox", "bonanza"];
        let invocation = Invocation { index, count: 6 };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ (pair_of(invocation) as u64) << 32);
        plan(&sizes(2), &backends, invocation, &mut rng)
            .into_iter()
            .flat_map(|(_, blocks)| blocks)
            .map(|mut b| {
                exchange_if_mirrored(invocation, &mut b.entries);
                (b.cell, b.entries)
            })
            .collect()
    }

    /// The second process of a pair times the first's cells in the first's order, with dbb
    /// and its twin exchanged in the rule's blocks and the ranking cell left as it was.
    #[test]
    fn the_second_of_a_pair_mirrors_the_first() {
        let (first, second) = (planned(0, 7), planned(1, 7));
        assert_eq!(first.len(), second.len());
        let mut exchanged = 0;
        for ((cell, a), (other, b)) in first.iter().zip(&second) {
            assert_eq!(cell, other);
            for (x, y) in a.iter().zip(b) {
                assert_eq!(x.0, y.0);
                if x.0 == TWIN && !cell.ranking {
                    assert_ne!(x.1, y.1);
                    exchanged += 1;
                } else {
                    assert_eq!(x.1, y.1);
                }
            }
        }
        // dbb and its twin in each evaluation's rule block.
        assert_eq!(exchanged, 2 * EvalKind::ALL.len());
        // The ranking cell by pair: pairs 0 and 2 have it, pair 1 not.
        assert!(first.iter().any(|(c, _)| c.ranking));
        assert!(!planned(2, 7).iter().any(|(c, _)| c.ranking));
        assert!(planned(5, 7).iter().any(|(c, _)| c.ranking));
    }
}
