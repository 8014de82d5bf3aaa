//! E11's measurement as a typed value: its cells, rows of rounds, chunks and what was placed,
//! and the merge of K invocations' measurements into one.

use crate::bench::TablePlacement;
use crate::invocations::union;
use kiki_core::pages::Pages;
use kiki_engine::search::eval::EvalKind;
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
    pub(super) fn pages(self) -> Pages {
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
    /// The ranking cell: every base backend in blocks of their own (rule v5 times only the
    /// rule's entries in the verdict's cells), for `best` and the ranking.
    #[serde(default)]
    pub ranking: bool,
}

impl Cell {
    /// The order cells and rows are kept in: the verdict's before the ranking's, by pages,
    /// evaluation and TT.
    pub(super) fn order(&self) -> (bool, TablePages, EvalKind, usize) {
        (self.ranking, self.pages, self.eval, self.tt_mib)
    }

    /// A cell of the verdict's kind (not the ranking's).
    pub fn new(eval: EvalKind, tt_mib: usize, pages: TablePages) -> Cell {
        Cell {
            eval,
            tt_mib,
            pages,
            ranking: false,
        }
    }
}

/// One timed chunk of a block: a backend's search of a share of the positions after its
/// warm-up, with the thread's CPU time and context switches over it (where the noise lives).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Chunk {
    pub invocation: usize,
    #[serde(with = "eval_name")]
    pub eval: EvalKind,
    pub ranking: bool,
    #[serde(with = "crate::invocations::static_str")]
    pub backend: crate::invocations::StaticStr,
    pub twin: bool,
    pub round: usize,
    /// The step of the block's rotation (the chunk's slot in time inside the round).
    pub step: usize,
    pub nodes: u64,
    pub wall_ns: u64,
    pub thread_cpu_ns: u64,
    pub voluntary_switches: u64,
    pub involuntary_switches: u64,
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
    /// The order rows are kept in: by cell, the twin after its backend, by name.
    pub(super) fn order(&self) -> ((bool, TablePages, EvalKind, usize), bool, &'static str) {
        (self.cell.order(), self.twin, self.backend)
    }

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
    /// The ranking cell ran in every `ranking_every`-th invocation, from the first.
    #[serde(default)]
    pub ranking_every: usize,
    /// The run's order seed every shuffle derives from.
    #[serde(default)]
    pub order_seed: u64,
    /// Per invocation: seconds from the start of measuring to the first timed round (the
    /// evaluations' tables, the TTs, the backends' tables placed, the discarded block), and
    /// the mean seconds of a round on 2 MiB pages: the costs rule v5's sampling is sized by.
    #[serde(default)]
    pub startup_seconds: Vec<f64>,
    #[serde(default)]
    pub round_seconds: Vec<f64>,
    /// Every timed chunk, invocations one after another.
    #[serde(default)]
    pub chunks: Vec<Chunk>,
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
            .filter(|&&c| !self.is_primary(c) && !c.ranking)
            .map(|&c| self.invocations_of(c))
            .max()
            .unwrap_or(0)
    }

    /// Whether `cell` is one of the verdict's (the largest TT, tables on 2 MiB pages), which
    /// every invocation measures.
    pub fn is_primary(&self, cell: Cell) -> bool {
        !cell.ranking && cell.pages == TablePages::Huge && cell.tt_mib == self.largest_tt()
    }

    /// The ranking cell under `eval`, where this run has one.
    pub fn ranking_cell(&self, eval: EvalKind) -> Option<Cell> {
        self.cells
            .iter()
            .copied()
            .find(|c| c.ranking && c.eval == eval)
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
    rows.sort_by_key(Row::order);
    let mut cells = union(parts.iter().map(|p| p.cells.clone()));
    cells.sort_by_key(|c| c.order());
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
        startup_seconds: parts
            .iter()
            .flat_map(|p| p.startup_seconds.clone())
            .collect(),
        round_seconds: parts.iter().flat_map(|p| p.round_seconds.clone()).collect(),
        chunks: parts.iter().flat_map(|p| p.chunks.clone()).collect(),
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
