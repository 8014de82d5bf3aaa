//! E11's measuring: the bench search on every backend, per evaluation, TT size and page kind
//! of the backends' tables, in randomised, alternating blocks; each cell's fingerprint checked.

use super::rule::TWIN;
use crate::bench::{place_tables, run_named, BenchRun, PositionPrint, TablePlacement};
use crate::experiments::{Config, Progress};
use crate::invocations::{union, Invocation};
use kiki_core::pages::Pages;
use kiki_engine::search::bench;
use kiki_engine::search::eval::{EvalKind, EvalTables};
use kiki_engine::search::tt::TranspositionTable;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

/// The pages of the backends' attack tables in a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub(crate) enum TablePages {
    #[serde(rename = "4k")]
    Small,
    #[serde(rename = "2m")]
    Huge,
}

impl TablePages {
    pub fn name(self) -> &'static str {
        match self {
            TablePages::Small => "4k",
            TablePages::Huge => "2m",
        }
    }
    fn pages(self) -> Pages {
        match self {
            TablePages::Small => Pages::Small,
            TablePages::Huge => Pages::Huge,
        }
    }
}

/// `EvalKind` by its name in results.json.
pub(crate) mod eval_name {
    use kiki_engine::search::eval::EvalKind;
    use serde::{Deserialize, Deserializer, Serializer};
    pub fn serialize<S: Serializer>(kind: &EvalKind, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(kind.name())
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<EvalKind, D::Error> {
        let name = String::deserialize(d)?;
        EvalKind::parse(&name).map_err(serde::de::Error::custom)
    }
}

/// Where one cell was measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Cell {
    #[serde(with = "eval_name")]
    pub eval: EvalKind,
    pub tt_mib: usize,
    pub pages: TablePages,
}

/// One backend's samples in one cell: ns per node, one per round (invocations one after
/// another once merged).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Row {
    pub cell: Cell,
    #[serde(with = "crate::invocations::static_str")]
    pub backend: crate::invocations::StaticStr,
    /// The A/A control's second timing of [`TWIN`].
    pub twin: bool,
    pub ns_per_node: Vec<f64>,
    /// The invocations (indices from 0) whose rounds `ns_per_node` holds, one block each in
    /// this order: a full run measures the secondary cells in only some invocations.
    #[serde(default)]
    pub invocations: Vec<usize>,
}

impl Row {
    /// Each invocation's rounds, with its index; `total`: the run's invocations, for a row
    /// that does not list its own (read from an older measurement: every invocation).
    pub fn blocks(&self, total: usize) -> Vec<(usize, Vec<f64>)> {
        let blocks = crate::experiments::blocks(&self.ns_per_node, self.invocation_count(total));
        let indices: Vec<usize> = if self.invocations.is_empty() {
            (0..blocks.len()).collect()
        } else {
            self.invocations.clone()
        };
        indices.into_iter().zip(blocks).collect()
    }

    /// How many invocations measured this row.
    pub fn invocation_count(&self, total: usize) -> usize {
        if self.invocations.is_empty() {
            total
        } else {
            self.invocations.len()
        }
    }
}

/// What one evaluation's search touched, counted in software over the bench.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Traffic {
    #[serde(with = "eval_name")]
    pub eval: EvalKind,
    pub tt_mib: usize,
    pub nodes: u64,
    /// Evaluation table lines (64 B) read, TT buckets (64 B) probed or written.
    pub eval_lines: u64,
    pub tt_accesses: u64,
}

/// Where a buffer's pages ended up: asked-for bytes and huge-page bytes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Placed {
    pub what: String,
    pub bytes: usize,
    pub huge_bytes: Option<usize>,
}

/// Everything E11 measured, and the settings the method reports.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Measurement {
    #[serde(with = "crate::invocations::static_str::vec")]
    pub backends: Vec<&'static str>,
    pub skipped: Vec<String>,
    pub positions: usize,
    pub depth: u32,
    /// Rounds of the verdict's cells per invocation.
    pub rounds: usize,
    /// The secondary cells ran in every `secondary_every`-th invocation, from the first.
    #[serde(default = "every_invocation")]
    pub secondary_every: usize,
    pub threshold: f64,
    pub cells: Vec<Cell>,
    /// Exact bytes of each evaluation's tables.
    pub eval_bytes: Vec<(String, usize)>,
    pub traffic: Vec<Traffic>,
    /// The backends' tables per page kind, the evaluations' tables and the TTs.
    pub table_placements: Vec<(String, TablePages, TablePlacement)>,
    pub buffers: Vec<Placed>,
    /// Each invocation's block order, as run.
    pub orders: Vec<String>,
    pub rows: Vec<Row>,
    /// Fingerprint mismatches and unavailable backends.
    pub errors: Vec<String>,
    pub invocations: usize,
    /// Code layouts the report's invocations cycled through (see [`crate::layouts`]).
    #[serde(default)]
    pub layouts: usize,
}

fn every_invocation() -> usize {
    1
}

impl Measurement {
    /// The row of `backend` (or its twin) in `cell`.
    pub fn row(&self, cell: Cell, backend: &str, twin: bool) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| r.cell == cell && r.backend == backend && r.twin == twin)
    }

    /// The samples of `backend` (or its twin) in `cell`.
    pub fn samples(&self, cell: Cell, backend: &str, twin: bool) -> Option<&[f64]> {
        self.row(cell, backend, twin)
            .map(|r| r.ns_per_node.as_slice())
    }

    /// How many invocations measured `cell` (the most of any of its rows).
    pub fn invocations_of(&self, cell: Cell) -> usize {
        self.rows
            .iter()
            .filter(|r| r.cell == cell)
            .map(|r| r.invocation_count(self.invocations))
            .max()
            .unwrap_or(0)
    }

    /// How many invocations measured the secondary cells (the most of any).
    pub fn secondary_invocations(&self) -> usize {
        self.cells
            .iter()
            .filter(|&&c| !self.is_primary(c))
            .map(|&c| self.invocations_of(c))
            .max()
            .unwrap_or(0)
    }

    /// Whether `cell` is one of the verdict's (the largest TT, tables on 2 MiB pages), which
    /// every invocation measures.
    pub fn is_primary(&self, cell: Cell) -> bool {
        cell.pages == TablePages::Huge && cell.tt_mib == self.largest_tt()
    }

    pub fn largest_tt(&self) -> usize {
        self.cells.iter().map(|c| c.tt_mib).max().unwrap_or(0)
    }
}

/// K invocations' measurements as one: rows' rounds one invocation after another, each row
/// over the invocations that measured it (the verdict's cells must be in every one).
pub(super) fn merge(parts: &[Measurement]) -> Result<Measurement, String> {
    let first = parts.first().ok_or("nothing measured")?;
    let mut rows: Vec<Row> = Vec::new();
    for row in parts.iter().flat_map(|p| &p.rows) {
        let key = |r: &Row| (r.cell, r.backend, r.twin);
        match rows.iter_mut().find(|into| key(into) == key(row)) {
            Some(into) => {
                into.ns_per_node.extend(&row.ns_per_node);
                into.invocations.extend(&row.invocations);
            }
            None => rows.push(row.clone()),
        }
    }
    rows.sort_by_key(|r| (r.cell.pages, r.cell.eval, r.cell.tt_mib, r.twin, r.backend));
    let mut cells = union(parts.iter().map(|p| p.cells.clone()));
    cells.sort_by_key(|c| (c.pages, c.eval, c.tt_mib));
    let merged = Measurement {
        rows,
        cells,
        traffic: first_of_each(parts, |p| &p.traffic, |t| (t.eval, t.tt_mib)),
        table_placements: first_of_each(
            parts,
            |p| &p.table_placements,
            |(backend, pages, _)| (backend.clone(), *pages),
        ),
        errors: union(parts.iter().map(|p| p.errors.clone())),
        orders: parts.iter().flat_map(|p| p.orders.clone()).collect(),
        invocations: parts.len(),
        ..first.clone()
    };
    if let Some(row) = merged
        .rows
        .iter()
        .find(|r| merged.is_primary(r.cell) && r.invocation_count(parts.len()) != parts.len())
    {
        return Err(format!(
            "{} in {} TT {} MiB was measured in {} of {} invocations",
            row.backend,
            row.cell.eval.name(),
            row.cell.tt_mib,
            row.invocation_count(parts.len()),
            parts.len()
        ));
    }
    Ok(merged)
}

/// Per `key`, the first invocation's item that has it: a secondary cell's traffic and the
/// 4 KiB phase's placements come from the first invocation that measured them.
fn first_of_each<T: Clone, K: PartialEq>(
    parts: &[Measurement],
    field: impl Fn(&Measurement) -> &[T],
    key: impl Fn(&T) -> K,
) -> Vec<T> {
    let mut items: Vec<T> = Vec::new();
    for item in parts.iter().flat_map(field) {
        if !items.iter().any(|seen| key(seen) == key(item)) {
            items.push(item.clone());
        }
    }
    items
}

/// A full run measures the secondary cells (the 4 KiB-page phase, the smaller TTs) in every
/// third invocation only, from the first (4 of 10; every second before 2026-11-29): in an
/// invocation that has them they are half of its time, the full report's time budget has no
/// room for more, and the verdict's cells keep every invocation.
const SECONDARY_EVERY: usize = 3;

/// The sizes of one invocation.
struct Sizes {
    positions: usize,
    depth: u32,
    /// Rounds of the verdict's cells (forward and reverse pairs).
    rounds: usize,
    /// Rounds of the other cells in an invocation that measures them, and which invocations
    /// do (every `secondary_every`-th).
    secondary_rounds: usize,
    secondary_every: usize,
    evals: Vec<EvalKind>,
    tt_mib: Vec<usize>,
}

fn sizes(config: &Config) -> Sizes {
    let all = bench::positions().len();
    let quick_evals = vec![EvalKind::Material, EvalKind::Nnue];
    let (positions, depth, rounds, evals, tt_mib) = config.pick(
        (6, 1, 4, EvalKind::ALL.to_vec(), vec![2]),
        (all, 2, 2, quick_evals, vec![64]),
        // One forward and reverse pair of rounds per process: a full run has twice the
        // report's processes (rule version 4), and layout, not rounds, is what varies most.
        (all, 3, 2, EvalKind::ALL.to_vec(), vec![16, 1024]),
    );
    // The secondary cells' figures are secondary: in a full run the budget goes to the
    // verdict's cells.
    let (secondary_rounds, secondary_every) =
        config.pick((rounds, 1), (rounds, 1), (1, SECONDARY_EVERY));
    Sizes {
        positions,
        depth,
        rounds,
        secondary_rounds,
        secondary_every,
        evals,
        tt_mib,
    }
}

/// One invocation: build the evaluations and TTs once, then per page kind of the backends'
/// tables (4 KiB first: a collapse cannot be undone), round by round, every (evaluation, TT)
/// block in this invocation's shuffled order, backends in its shuffled order, reversed every
/// other round (so drift favours none). The secondary cells only in the invocations
/// [`SECONDARY_EVERY`] picks in a full run.
pub(super) fn measure(
    config: &Config,
    invocation: Invocation,
    progress: Progress<'_>,
) -> Measurement {
    let Sizes {
        positions: count,
        depth,
        rounds,
        secondary_rounds,
        secondary_every,
        evals,
        tt_mib: tt_sizes,
    } = sizes(config);
    let sfens: Vec<String> = bench::positions()[..count]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let (backends, skipped) = config.backend_names();
    let secondary = invocation.index.is_multiple_of(secondary_every);
    let mut m = Measurement {
        backends: backends.clone(),
        skipped,
        positions: sfens.len(),
        depth,
        rounds,
        secondary_every,
        ..Measurement::empty(config)
    };
    let tables: Vec<EvalTables> = evals
        .iter()
        .map(|&k| EvalTables::new(k, Pages::Huge))
        .collect();
    let mut tts: Vec<TranspositionTable> = tt_sizes
        .iter()
        .map(|&mib| TranspositionTable::new(mib << 20, Pages::Huge))
        .collect();
    m.buffers = placed_buffers(&evals, &tables, &tts);
    // Searched untimed before each timed run, to refill the caches with the next backend's
    // tables: positions outside the timed set, so that no timed search finds its own TT lines
    // warm.
    let warm = warm_up_positions(config);
    let mut rng =
        Xoshiro256PlusPlus::seed_from_u64(config.seed ^ 0xE11 ^ (invocation.index as u64) << 32);
    let mut entries = shuffled_entries(&backends, &mut rng);
    let largest = tt_sizes.iter().copied().max().unwrap_or(0);
    let phases = [TablePages::Small, TablePages::Huge];
    let mut blocks = shuffled_blocks(
        &phases,
        evals.len(),
        (&tt_sizes, largest),
        secondary,
        &mut rng,
    );
    m.orders
        .push(order_text(invocation, &entries, &blocks, &evals, &tt_sizes));
    // The verdict's cells (largest TT, 2 MiB pages) take every round, the others their own
    // rounds. Every round times every backend.
    let rounds_of = |pages: TablePages, tt: usize| {
        if pages == TablePages::Huge && tt == largest {
            rounds
        } else {
            secondary_rounds
        }
    };
    let total: usize = phases
        .iter()
        .zip(&blocks)
        .flat_map(|(&p, groups)| groups.iter().map(move |&(_, t)| (p, t)))
        .map(|(p, t)| rounds_of(p, tt_sizes[t]))
        .sum::<usize>()
        * entries.len();
    let block = |sfens, e: usize| Block {
        sfens,
        warm: &warm,
        depth,
        tables: &tables[e],
    };
    let mut done = 0;
    for (phase, groups) in phases.iter().zip(blocks.iter_mut()) {
        // An invocation without the secondary cells has no 4 KiB phase at all: neither its
        // tables' placement nor its discarded block.
        if groups.is_empty() {
            continue;
        }
        m.place_tables(&backends, *phase);
        // A discarded block first: the first timed block of a phase ran slow in trials (the
        // process's, the tables' and the pages' first use), so none is timed cold.
        if let Some(&(e, t)) = groups.first() {
            let sfens = &sfens[..sfens.len().min(entries.len())];
            let _ = block(sfens, e).time(&entries, &mut tts[t], &mut Vec::new());
        }
        for round in 0..rounds {
            // A fresh order for each forward and reverse pair of rounds (rule version 3), so
            // that no backend keeps its neighbours through an invocation.
            let timed = groups
                .iter()
                .any(|&(_, t)| round < rounds_of(*phase, tt_sizes[t]));
            if !timed {
                continue;
            }
            if round.is_multiple_of(2) && round > 0 {
                entries.shuffle(&mut rng);
                m.orders.push(format!(
                    "invocation {}, tables {}, rounds {}–{}: {}",
                    invocation.index + 1,
                    phase.name(),
                    round + 1,
                    round + 2,
                    entry_names(&entries).join(", ")
                ));
            }
            // Every other round reversed: the rule pairs each forward round with the next.
            let order: Vec<(&'static str, bool)> = if round.is_multiple_of(2) {
                entries.clone()
            } else {
                entries.iter().rev().copied().collect()
            };
            for &(e, t) in groups.iter() {
                let cell = Cell {
                    eval: evals[e],
                    tt_mib: tt_sizes[t],
                    pages: *phase,
                };
                if round >= rounds_of(*phase, cell.tt_mib) {
                    continue;
                }
                if round == 0 {
                    m.cells.push(cell);
                }
                let message = format!(
                    "{} TT {} MiB, tables on {}",
                    cell.eval.name(),
                    cell.tt_mib,
                    phase.name()
                );
                progress(&message, done as f64 / total.max(1) as f64);
                done += order.len();
                let runs = block(&sfens, e).time(&order, &mut tts[t], &mut m.errors);
                record(&mut m, (cell, invocation), &order, runs);
            }
        }
    }
    m.rows
        .sort_by_key(|r| (r.cell.pages, r.cell.eval, r.cell.tt_mib, r.twin, r.backend));
    m.cells.sort_by_key(|c| (c.pages, c.eval, c.tt_mib));
    m
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

/// The timed entries: every backend and the A/A twin, shuffled.
fn shuffled_entries(
    backends: &[&'static str],
    rng: &mut Xoshiro256PlusPlus,
) -> Vec<(&'static str, bool)> {
    let mut entries: Vec<(&'static str, bool)> = backends.iter().map(|&b| (b, false)).collect();
    if backends.contains(&TWIN) {
        entries.push((TWIN, true));
    }
    entries.shuffle(rng);
    entries
}

/// Per page kind, the (evaluation, TT) blocks in a shuffled order: every pair on 2 MiB
/// pages, the largest TT's alone on 4 KiB pages; without the `secondary` cells, the largest
/// TT's on 2 MiB pages alone.
fn shuffled_blocks(
    phases: &[TablePages],
    evals: usize,
    (tt_sizes, largest): (&[usize], usize),
    secondary: bool,
    rng: &mut Xoshiro256PlusPlus,
) -> Vec<Vec<(usize, usize)>> {
    phases
        .iter()
        .map(|&pages| {
            let primary = |t: usize| pages == TablePages::Huge && tt_sizes[t] == largest;
            let mut groups: Vec<(usize, usize)> = (0..evals)
                .flat_map(|e| (0..tt_sizes.len()).map(move |t| (e, t)))
                .filter(|&(_, t)| {
                    primary(t)
                        || (secondary && (pages == TablePages::Huge || tt_sizes[t] == largest))
                })
                .collect();
            groups.shuffle(rng);
            groups
        })
        .collect()
}

/// One (cell, round) block: every entry searches every position once, in chunks rotated so
/// that each step runs every entry on a different chunk. Each entry's time is spread over the
/// whole block, so drift during it favours none, and no search directly follows another
/// backend's search of the same positions.
pub(crate) struct Block<'a> {
    pub(crate) sfens: &'a [String],
    pub(crate) warm: &'a [String],
    pub(crate) depth: u32,
    pub(crate) tables: &'a EvalTables,
}

impl Block<'_> {
    /// Per entry (in `order`): its runs merged (seconds, nodes, traffic, every position's
    /// fingerprint in position order); `None` for an entry that could not run.
    pub(crate) fn time(
        &self,
        order: &[(&'static str, bool)],
        tt: &mut TranspositionTable,
        errors: &mut Vec<String>,
    ) -> Vec<Option<BenchRun>> {
        let chunks = order.len().max(1);
        let n = self.sfens.len();
        let chunk = |c: usize| (c * n / chunks)..((c + 1) * n / chunks);
        let mut merged: Vec<Option<BenchRun>> = vec![None; order.len()];
        let mut prints: Vec<Vec<Option<PositionPrint>>> = vec![vec![None; n]; order.len()];
        let warm_depth = self.depth.saturating_sub(1).max(1);
        for step in 0..chunks {
            for (slot, &(backend, _)) in order.iter().enumerate() {
                let range = chunk((step + slot) % chunks);
                let timed =
                    run_named(backend, self.warm, warm_depth, self.tables, tt).and_then(|_| {
                        run_named(
                            backend,
                            &self.sfens[range.clone()],
                            self.depth,
                            self.tables,
                            tt,
                        )
                    });
                let run = match timed {
                    Ok(run) => run,
                    Err(error) => {
                        errors.push(error.to_string());
                        continue;
                    }
                };
                for (at, print) in range.zip(&run.positions) {
                    prints[slot][at] = Some(print.clone());
                }
                let total = merged[slot].get_or_insert_with(|| BenchRun {
                    positions: Vec::new(),
                    nodes: 0,
                    seconds: 0.0,
                    eval_lines: 0,
                    tt_accesses: 0,
                });
                total.nodes += run.nodes;
                total.seconds += run.seconds;
                total.eval_lines += run.eval_lines;
                total.tt_accesses += run.tt_accesses;
            }
        }
        for (total, prints) in merged.iter_mut().zip(prints) {
            if let Some(total) = total {
                total.positions = prints.into_iter().flatten().collect();
            }
        }
        merged
    }
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
fn order_text(
    invocation: Invocation,
    entries: &[(&str, bool)],
    blocks: &[Vec<(usize, usize)>],
    evals: &[EvalKind],
    tt_sizes: &[usize],
) -> String {
    let names = entry_names(entries);
    let groups: Vec<String> = blocks
        .iter()
        .zip(["4k", "2m"])
        .map(|(groups, pages)| {
            let list: Vec<String> = groups
                .iter()
                .map(|&(e, t)| format!("{}@{}MiB", evals[e].name(), tt_sizes[t]))
                .collect();
            if list.is_empty() {
                format!("tables {pages}: none in this invocation")
            } else {
                format!("tables {pages}: {}", list.join(", "))
            }
        })
        .collect();
    format!(
        "invocation {}: backends {}; blocks {}",
        invocation.index + 1,
        names.join(", "),
        groups.join("; ")
    )
}
