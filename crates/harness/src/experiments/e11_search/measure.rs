//! E11's measuring: the bench search on every backend, per evaluation, TT size and page kind
//! of the backends' tables, in randomised, alternating blocks; each cell's fingerprint checked.

pub(crate) use super::block::Block;
pub(super) use super::measurement::merge;
pub(crate) use super::measurement::{Cell, Chunk, Measurement, Placed, Row, TablePages, Traffic};

use super::rule_v8::ROUNDS_PER_PROCESS;
use super::rule_v8::{NEGATIVE, RULE_PAIR, TWIN};
use crate::bench::{place_tables, BenchRun};
use crate::experiments::{Config, Progress};
use crate::invocations::Invocation;
use kiki_core::pages::Pages;
use kiki_engine::search::bench;
use kiki_engine::search::eval::{EvalKind, EvalTables};
use kiki_engine::search::tt::TranspositionTable;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// The sizes of one invocation.
pub(super) struct Sizes {
    pub(super) positions: usize,
    pub(super) depth: u32,
    /// Rounds of the verdict's cells (forward and reverse pairs; rule v5's
    /// [`ROUNDS_PER_PROCESS`] in a full run).
    pub(super) rounds: usize,
    /// Which invocations measure the secondary cells (the 4 KiB-page phase, the smaller TTs):
    /// every `secondary_every`-th from the first; 0: none (a full run under rule v5, whose
    /// budget goes to processes).
    pub(super) secondary_every: usize,
    /// Which invocations measure the ranking cell: every `ranking_every`-th from the first.
    pub(super) ranking_every: usize,
    pub(super) evals: Vec<EvalKind>,
    pub(super) tt_mib: Vec<usize>,
}

/// A full run's ranking cell (every base backend under material and nnue) runs in every
/// second process: the verdict's cells take about 12 s of a process, the ranking cell about
/// as much again, and the ranking needs less resolution than the rule (see `rule_v7.rs`; v8 keeps its sampling).
const RANKING_EVERY: usize = 2;

fn sizes(config: &Config) -> Sizes {
    let all = bench::positions().len();
    let quick_evals = vec![EvalKind::Material, EvalKind::Nnue];
    let (positions, depth, rounds, evals, tt_mib) = config.pick(
        (6, 1, 4, EvalKind::ALL.to_vec(), vec![2]),
        (all, 2, 2, quick_evals, vec![64]),
        (
            all,
            3,
            ROUNDS_PER_PROCESS,
            EvalKind::ALL.to_vec(),
            vec![1024],
        ),
    );
    let (secondary_every, ranking_every) = config.pick((1, 1), (1, 1), (0, RANKING_EVERY));
    Sizes {
        positions,
        depth,
        rounds,
        secondary_every,
        ranking_every,
        evals,
        tt_mib,
    }
}

/// What every block of one invocation shares.
struct Shared<'a> {
    warm: &'a [String],
    depth: u32,
    evals: &'a [EvalKind],
    tables: &'a [EvalTables],
}

/// One invocation: build the evaluations and TTs once, then per page kind of the backends'
/// tables (4 KiB first: a collapse cannot be undone), round by round, every block in this
/// invocation's shuffled order, entries in their shuffled order, shuffled afresh for each
/// forward and reverse pair of rounds and reversed in the second (so drift favours none).
/// The verdict's cells time rule v5's entries; the ranking cell every base backend.
pub(super) fn measure(
    config: &Config,
    invocation: Invocation,
    progress: Progress<'_>,
) -> Measurement {
    // The start-up rule v5's sampling is sized by: the evaluations' tables, the TTs, the
    // tables placed and the discarded block (the binary's own start is the parent's to see).
    let started = std::time::Instant::now();
    let sizes = sizes(config);
    let sfens: Vec<String> = bench::positions()[..sizes.positions]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let (backends, skipped) = config.backend_names();
    let mut m = Measurement {
        backends: backends.clone(),
        skipped,
        positions: sfens.len(),
        depth: sizes.depth,
        rounds: sizes.rounds,
        secondary_every: sizes.secondary_every,
        ranking_every: sizes.ranking_every,
        order_seed: config.order_seed.value,
        ..Measurement::empty(config)
    };
    let tables: Vec<EvalTables> = sizes
        .evals
        .iter()
        .map(|&k| EvalTables::new(k, Pages::Huge))
        .collect();
    let mut tts: Vec<TranspositionTable> = sizes
        .tt_mib
        .iter()
        .map(|&mib| TranspositionTable::new(mib << 20, Pages::Huge))
        .collect();
    m.buffers = placed_buffers(&sizes.evals, &tables, &tts);
    // Searched untimed before each timed run, to refill the caches with the next backend's
    // tables: positions outside the timed set, so that no timed search finds its own TT lines
    // warm.
    let warm = warm_up_positions(config);
    // Seeded from the run's order seed (drawn per run by the report's parent, or given with
    // `--order-seed`), so no order × slot interaction repeats from run to run.
    // Both processes of a pair draw from one seed: the second's orders are the first's.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(
        config.order_seed.value ^ 0xE11 ^ (pair_of(invocation) as u64) << 32,
    );
    let mut phases = plan(&sizes, &backends, invocation, &mut rng);
    for (_, blocks) in &mut phases {
        for b in blocks.iter_mut() {
            exchange_if_mirrored(invocation, &mut b.entries);
        }
    }
    m.orders.push(order_text(invocation, &phases));
    let total: usize = phases
        .iter()
        .flat_map(|(_, blocks)| blocks)
        .map(|b| b.rounds * b.entries.len())
        .sum();
    let shared = Shared {
        warm: &warm,
        depth: sizes.depth,
        evals: &sizes.evals,
        tables: &tables,
    };
    let mut done = 0;
    for (phase, mut blocks) in phases {
        m.place_tables(&backends, phase);
        // A discarded block first: the first timed block of a phase ran slow in trials (the
        // process's, the tables' and the pages' first use), so none is timed cold.
        if let Some(first) = blocks.first() {
            let eval = eval_index(&shared, first.cell.eval);
            let sfens = &sfens[..sfens.len().min(first.entries.len())];
            let tt = tt_index(&sizes.tt_mib, first.cell.tt_mib);
            let _ = block(&shared, sfens, eval).time(&first.entries, &mut tts[tt], &mut Vec::new());
        }
        if m.startup_seconds.is_empty() {
            m.startup_seconds.push(started.elapsed().as_secs_f64());
        }
        let rounds = blocks.iter().map(|b| b.rounds).max().unwrap_or(0);
        let round_started = std::time::Instant::now();
        for round in 0..rounds {
            for b in blocks.iter_mut().filter(|b| round < b.rounds) {
                // A fresh order for each forward and reverse pair of rounds (rule version 3),
                // so that no backend keeps its neighbours through an invocation.
                if round.is_multiple_of(2) && round > 0 {
                    b.entries.shuffle(&mut rng);
                    exchange_if_mirrored(invocation, &mut b.entries);
                    m.orders.push(format!(
                        "invocation {}, {}, rounds {}–{}: {}",
                        invocation.index + 1,
                        cell_words(b.cell),
                        round + 1,
                        round + 2,
                        entry_names(&b.entries).join(", ")
                    ));
                }
                let order: Vec<(&'static str, bool)> = if round.is_multiple_of(2) {
                    b.entries.clone()
                } else {
                    b.entries.iter().rev().copied().collect()
                };
                if round == 0 {
                    m.cells.push(b.cell);
                }
                progress(&cell_words(b.cell), done as f64 / total.max(1) as f64);
                done += order.len();
                let eval = eval_index(&shared, b.cell.eval);
                let tt = tt_index(&sizes.tt_mib, b.cell.tt_mib);
                let mut timings = Vec::new();
                let runs = block(&shared, &sfens, eval).time_chunks(
                    &order,
                    &mut tts[tt],
                    &mut m.errors,
                    &mut timings,
                );
                m.chunks.extend(timings.into_iter().map(|t| Chunk {
                    invocation: invocation.index,
                    eval: b.cell.eval,
                    ranking: b.cell.ranking,
                    backend: order[t.slot].0,
                    twin: order[t.slot].1,
                    round,
                    step: t.step,
                    nodes: t.nodes,
                    wall_ns: t.wall_ns,
                    thread_cpu_ns: t.thread_cpu_ns,
                    voluntary_switches: t.voluntary_switches,
                    involuntary_switches: t.involuntary_switches,
                }));
                record(&mut m, (b.cell, invocation), &order, runs);
            }
        }
        if phase == TablePages::Huge && rounds > 0 {
            m.round_seconds
                .push(round_started.elapsed().as_secs_f64() / rounds as f64);
        }
    }
    m.rows.sort_by_key(Row::order);
    m.cells.sort_by_key(|c| c.order());
    m
}

fn block<'a>(shared: &Shared<'a>, sfens: &'a [String], eval: usize) -> Block<'a> {
    Block {
        sfens,
        warm: shared.warm,
        depth: shared.depth,
        tables: &shared.tables[eval],
    }
}

fn eval_index(shared: &Shared<'_>, eval: EvalKind) -> usize {
    shared.evals.iter().position(|&e| e == eval).unwrap_or(0)
}

fn tt_index(sizes: &[usize], mib: usize) -> usize {
    sizes.iter().position(|&s| s == mib).unwrap_or(0)
}

fn cell_words(cell: Cell) -> String {
    format!(
        "{} TT {} MiB, tables on {}{}",
        cell.eval.name(),
        cell.tt_mib,
        cell.pages.name(),
        if cell.ranking { " (ranking)" } else { "" }
    )
}

impl Measurement {
    /// Each backend's tables placed on `phase`'s pages (what was granted, or why not).
    fn place_tables(&mut self, backends: &[&'static str], phase: TablePages) {
        for &backend in backends {
            match place_tables(backend, phase.pages()) {
                Ok(placed) => self
                    .table_placements
                    .push((backend.to_string(), phase, placed)),
                Err(e) => self.errors.push(e.to_string()),
            }
        }
    }

    /// One invocation's measurement before anything is measured: the configuration's facts,
    /// every list empty.
    fn empty(config: &Config) -> Self {
        Measurement {
            backends: Vec::new(),
            skipped: Vec::new(),
            positions: 0,
            depth: 0,
            rounds: 0,
            secondary_every: 1,
            threshold: config.threshold,
            cells: Vec::new(),
            eval_bytes: EvalKind::ALL
                .iter()
                .map(|k| (k.name().to_string(), k.table_bytes()))
                .collect(),
            traffic: Vec::new(),
            table_placements: Vec::new(),
            buffers: Vec::new(),
            orders: Vec::new(),
            rows: Vec::new(),
            errors: Vec::new(),
            invocations: 1,
            layouts: config.layouts,
            ranking_every: 1,
            order_seed: config.order_seed.value,
            startup_seconds: Vec::new(),
            round_seconds: Vec::new(),
            chunks: Vec::new(),
        }
    }
}

/// The evaluations' and TTs' buffers, as placed (how much of each is on 2 MiB pages).
fn placed_buffers(
    evals: &[EvalKind],
    tables: &[EvalTables],
    tts: &[TranspositionTable],
) -> Vec<Placed> {
    let mut placed = Vec::new();
    for (kind, table) in evals.iter().zip(tables) {
        let buffers = table.buffers();
        for (i, buffer) in buffers.iter().enumerate() {
            placed.push(Placed {
                what: if buffers.len() > 1 {
                    format!("{} tables ({} of {})", kind.name(), i + 1, buffers.len())
                } else {
                    format!("{} tables", kind.name())
                },
                bytes: buffer.as_slice().len() * 8,
                huge_bytes: buffer.huge_page_bytes(),
            });
        }
    }
    for tt in tts {
        placed.push(Placed {
            what: format!("TT {} MiB", tt.bytes() >> 20),
            bytes: tt.bytes(),
            huge_bytes: tt.memory().huge_page_bytes(),
        });
    }
    placed
}

/// Records one block's runs as samples, its traffic once per (evaluation, TT), and any entry
/// whose fingerprints differ from the first entry's.
fn record(
    m: &mut Measurement,
    (cell, invocation): (Cell, Invocation),
    order: &[(&'static str, bool)],
    runs: Vec<Option<BenchRun>>,
) {
    let mut reference: Option<(&str, &BenchRun)> = None;
    for (&(backend, twin), run) in order.iter().zip(&runs) {
        let Some(run) = run else { continue };
        let ns = run.seconds * 1e9 / run.nodes.max(1) as f64;
        let row = m
            .rows
            .iter_mut()
            .find(|r| r.cell == cell && r.backend == backend && r.twin == twin);
        match row {
            Some(row) => row.ns_per_node.push(ns),
            None => m.rows.push(Row {
                cell,
                backend,
                twin,
                ns_per_node: vec![ns],
                invocations: vec![invocation.index],
            }),
        }
        if !m
            .traffic
            .iter()
            .any(|x| x.eval == cell.eval && x.tt_mib == cell.tt_mib)
        {
            m.traffic.push(Traffic {
                eval: cell.eval,
                tt_mib: cell.tt_mib,
                nodes: run.nodes,
                eval_lines: run.eval_lines,
                tt_accesses: run.tt_accesses,
            });
        }
        match reference {
            None => reference = Some((backend, run)),
            Some((first, first_run)) => {
                if let Some(difference) = first_run.difference_text(first, run, backend) {
                    m.errors.push(format!(
                        "fingerprints differ ({} TT {} MiB) {difference}",
                        cell.eval.name(),
                        cell.tt_mib
                    ));
                }
            }
        }
    }
}

/// Positions outside the bench set (self-play from another seed), for the warm-ups.
pub(crate) fn warm_up_positions(config: &Config) -> Vec<String> {
    let count = if config.smoke { 1 } else { 2 };
    use kiki_core::backend::Backend;
    match kiki_variants::mailbox::Mailbox::new() {
        Ok(backend) => bench::generate(backend, bench::SEED ^ 0x5741_524D, count),
        Err(_) => vec![kiki_engine::position::START_SFEN.to_string()],
    }
}

/// The entries' names, the twin marked.
fn entry_names(entries: &[(&str, bool)]) -> Vec<String> {
    entries
        .iter()
        .map(|(b, twin)| {
            if *twin {
                format!("{b} (A/A twin)")
            } else {
                b.to_string()
            }
        })
        .collect()
}

/// The invocation's order in words (recorded: the method says the order was randomised).
fn order_text(invocation: Invocation, phases: &[(TablePages, Vec<Timed>)]) -> String {
    let blocks: Vec<String> = phases
        .iter()
        .flat_map(|(_, blocks)| blocks)
        .map(|b| {
            format!(
                "{} [{}]",
                cell_words(b.cell),
                entry_names(&b.entries).join(", ")
            )
        })
        .collect();
    format!(
        "invocation {}: blocks {}",
        invocation.index + 1,
        blocks.join("; ")
    )
}

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
mod order_tests {
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
