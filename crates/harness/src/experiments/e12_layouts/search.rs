//! E12's search blocks: every named entry searches the bench positions, round by round in a
//! shuffled order (forward and reverse), after one discarded warm-up block.

use super::measure::{Entry, Measurement, SearchRow};
use crate::bench::BenchRun;
use crate::experiments::e11_search::{Block, TablePages};
use crate::invocations::Invocation;
use kiki_engine::search::eval::EvalTables;
use kiki_engine::search::tt::TranspositionTable;
use rand::seq::SliceRandom;
use rand_xoshiro::Xoshiro256PlusPlus;

/// The search's inputs: the timed positions, the warm-up ones, the depth and the evaluation.
pub(super) struct Search<'a> {
    pub sfens: &'a [String],
    pub warm: &'a [String],
    pub depth: u32,
    pub tables: &'a EvalTables,
}

impl Search<'_> {
    /// `rounds` blocks, every named backend in each (a fresh shuffled order every forward and
    /// reverse pair of rounds, as E11), after one discarded block; records ns per node and any
    /// fingerprint that differs from the first backend's.
    pub fn time(
        &self,
        m: &mut Measurement,
        (pages, page_block, names): (TablePages, bool, &[Entry]),
        (rounds, invocation): (usize, Invocation),
        tt: &mut TranspositionTable,
        rng: &mut Xoshiro256PlusPlus,
    ) {
        let mut entries = names.to_vec();
        let block = |sfens| Block {
            sfens,
            warm: self.warm,
            depth: self.depth,
            tables: self.tables,
        };
        // Discarded: the first block of a phase runs slow (first use of tables and pages).
        let _ = block(&self.sfens[..self.sfens.len().min(entries.len())]).time(
            &entries,
            tt,
            &mut Vec::new(),
        );
        for round in 0..rounds {
            if round % 2 == 0 {
                entries.shuffle(rng);
                m.orders.push(format!(
                    "invocation {}, tables {}{}, rounds {}–{}: {}",
                    invocation.index + 1,
                    pages.name(),
                    if page_block { " (page block)" } else { "" },
                    round + 1,
                    round + 2,
                    entries
                        .iter()
                        .map(|&(name, twin)| if twin {
                            format!("{name} (A/A twin)")
                        } else {
                            name.to_string()
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            let order: Vec<(&'static str, bool)> = if round % 2 == 0 {
                entries.clone()
            } else {
                entries.iter().rev().copied().collect()
            };
            let runs = block(self.sfens).time(&order, tt, &mut m.errors);
            record(m, (pages, page_block), &order, runs);
        }
    }
}

/// One block's runs as samples, and any backend whose fingerprints differ from the first's.
fn record(
    m: &mut Measurement,
    (pages, page_block): (TablePages, bool),
    order: &[(&'static str, bool)],
    runs: Vec<Option<BenchRun>>,
) {
    let mut reference: Option<(&str, &BenchRun)> = None;
    for (&(backend, twin), run) in order.iter().zip(&runs) {
        let Some(run) = run else { continue };
        let ns = run.seconds * 1e9 / run.nodes.max(1) as f64;
        match m.search.iter_mut().find(|r| {
            (r.pages, r.page_block, r.backend, r.twin) == (pages, page_block, backend, twin)
        }) {
            Some(row) => row.ns_per_node.push(ns),
            None => m.search.push(SearchRow {
                pages,
                backend,
                twin,
                ns_per_node: vec![ns],
                page_block,
            }),
        }
        match reference {
            None => reference = Some((backend, run)),
            Some((first, first_run)) => {
                if let Some(difference) = first_run.difference_text(first, run, backend) {
                    m.errors.push(format!("fingerprints differ {difference}"));
                }
            }
        }
    }
    m.search
        .sort_by_key(|r| (r.pages, r.page_block, r.backend, r.twin));
}
