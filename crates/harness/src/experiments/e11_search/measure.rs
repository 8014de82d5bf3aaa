//! E11's measuring: the bench search on every backend, per evaluation, TT size and page kind
//! of the backends' tables, in randomised, alternating blocks; each cell's fingerprint checked.

use crate::bench::{place_tables, run_named, TablePlacement};
use crate::experiments::{Config, Progress};
use crate::invocations::{gather, merge_rows, union, Invocation};
use kiki_core::pages::Pages;
use kiki_engine::search::bench;
use kiki_engine::search::eval::{EvalKind, EvalTables};
use kiki_engine::search::tt::TranspositionTable;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

/// The A/A control's second timing of one backend (same code, timed as another block).
pub(crate) const TWIN: &str = "dbb";

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
    pub rounds: usize,
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
}

impl Measurement {
    /// The samples of `backend` (or its twin) in `cell`.
    pub fn samples(&self, cell: Cell, backend: &str, twin: bool) -> Option<&[f64]> {
        self.rows
            .iter()
            .find(|r| r.cell == cell && r.backend == backend && r.twin == twin)
            .map(|r| r.ns_per_node.as_slice())
    }

    pub fn largest_tt(&self) -> usize {
        self.cells.iter().map(|c| c.tt_mib).max().unwrap_or(0)
    }
}

/// K invocations' measurements as one: rows' rounds one invocation after another.
pub(super) fn merge(parts: &[Measurement]) -> Result<Measurement, String> {
    let first = parts.first().ok_or("nothing measured")?;
    let rows = merge_rows(
        &gather(parts, |p| &p.rows),
        |r| (r.cell, r.backend, r.twin),
        |into, from| into.ns_per_node.extend(&from.ns_per_node),
    )?;
    Ok(Measurement {
        rows,
        errors: union(parts.iter().map(|p| p.errors.clone())),
        orders: parts.iter().flat_map(|p| p.orders.clone()).collect(),
        invocations: parts.len(),
        ..first.clone()
    })
}

/// The sizes of a run: (positions, depth, rounds per invocation, evaluations, TT sizes in MiB).
fn sizes(config: &Config) -> (usize, u32, usize, Vec<EvalKind>, Vec<usize>) {
    let all = bench::positions().len();
    let quick_evals = vec![EvalKind::Material, EvalKind::Nnue];
    config.pick(
        (6, 1, 2, EvalKind::ALL.to_vec(), vec![2]),
        (all, 2, 2, quick_evals, vec![64]),
        (all, 3, 2, EvalKind::ALL.to_vec(), vec![16, 1024]),
    )
}

/// One invocation: build the evaluations and TTs once, then per page kind of the backends'
/// tables (4 KiB first: a collapse cannot be undone), round by round, every (evaluation, TT)
/// block in this invocation's shuffled order, backends in its shuffled order, reversed every
/// other round (so drift favours none).
pub(super) fn measure(
    config: &Config,
    invocation: Invocation,
    progress: Progress<'_>,
) -> Measurement {
    let (count, depth, rounds, evals, tt_sizes) = sizes(config);
    let sfens: Vec<String> = bench::positions()[..count]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let (backends, skipped) = config.backend_names();
    let mut m = Measurement {
        backends: backends.clone(),
        skipped,
        positions: sfens.len(),
        depth,
        rounds,
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
    };
    let tables: Vec<EvalTables> = evals
        .iter()
        .map(|&k| EvalTables::new(k, Pages::Huge))
        .collect();
    let mut tts: Vec<TranspositionTable> = tt_sizes
        .iter()
        .map(|&mib| TranspositionTable::new(mib << 20, Pages::Huge))
        .collect();
    for (kind, table) in evals.iter().zip(&tables) {
        for buffer in table.buffers() {
            m.buffers.push(Placed {
                what: format!("{} tables", kind.name()),
                bytes: buffer.as_slice().len() * 8,
                huge_bytes: buffer.huge_page_bytes(),
            });
        }
    }
    for tt in &tts {
        m.buffers.push(Placed {
            what: format!("TT {} MiB", tt.bytes() >> 20),
            bytes: tt.bytes(),
            huge_bytes: tt.memory().huge_page_bytes(),
        });
    }
    let mut rng =
        Xoshiro256PlusPlus::seed_from_u64(config.seed ^ 0xE11 ^ (invocation.index as u64) << 32);
    // The timed entries: every backend, and the A/A twin right after the others.
    let mut entries: Vec<(&'static str, bool)> = backends.iter().map(|&b| (b, false)).collect();
    if backends.contains(&TWIN) {
        entries.push((TWIN, true));
    }
    entries.shuffle(&mut rng);
    let largest = tt_sizes.iter().copied().max().unwrap_or(0);
    let phases = [TablePages::Small, TablePages::Huge];
    let mut blocks: Vec<Vec<(usize, usize)>> = phases
        .iter()
        .map(|&pages| {
            let mut groups: Vec<(usize, usize)> = (0..evals.len())
                .flat_map(|e| (0..tt_sizes.len()).map(move |t| (e, t)))
                .filter(|&(_, t)| pages == TablePages::Huge || tt_sizes[t] == largest)
                .collect();
            groups.shuffle(&mut rng);
            groups
        })
        .collect();
    m.orders
        .push(order_text(invocation, &entries, &blocks, &evals, &tt_sizes));
    let total: usize = blocks.iter().map(|g| g.len()).sum::<usize>() * rounds * entries.len();
    let mut done = 0;
    for (phase, groups) in phases.iter().zip(blocks.iter_mut()) {
        for &backend in &backends {
            match place_tables(backend, phase.pages()) {
                Ok(placed) => m
                    .table_placements
                    .push((backend.to_string(), *phase, placed)),
                Err(e) => m.errors.push(e.to_string()),
            }
        }
        for round in 0..rounds {
            for &(e, t) in groups.iter() {
                let cell = Cell {
                    eval: evals[e],
                    tt_mib: tt_sizes[t],
                    pages: *phase,
                };
                if round == 0 {
                    m.cells.push(cell);
                    // Warm-up, untimed: the first backend over a few positions.
                    let warm = &sfens[..sfens.len().min(4)];
                    let _ = run_named(entries[0].0, warm, depth, &tables[e], &mut tts[t]);
                }
                let order: Vec<(&'static str, bool)> = if round % 2 == 0 {
                    entries.clone()
                } else {
                    entries.iter().rev().copied().collect()
                };
                let mut reference: Option<(&str, crate::bench::BenchRun)> = None;
                for (backend, twin) in order {
                    progress(
                        &format!(
                            "{} TT {} MiB, tables on {}: {backend}",
                            cell.eval.name(),
                            cell.tt_mib,
                            phase.name()
                        ),
                        done as f64 / total.max(1) as f64,
                    );
                    done += 1;
                    let run = match run_named(backend, &sfens, depth, &tables[e], &mut tts[t]) {
                        Ok(run) => run,
                        Err(error) => {
                            m.errors.push(error.to_string());
                            continue;
                        }
                    };
                    let ns = run.seconds * 1e9 / run.nodes.max(1) as f64;
                    match m
                        .rows
                        .iter_mut()
                        .find(|r| r.cell == cell && r.backend == backend && r.twin == twin)
                    {
                        Some(row) => row.ns_per_node.push(ns),
                        None => m.rows.push(Row {
                            cell,
                            backend,
                            twin,
                            ns_per_node: vec![ns],
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
                    match &reference {
                        None => reference = Some((backend, run)),
                        Some((first, first_run)) => {
                            if let Some((a, b)) = first_run.first_difference(&run) {
                                m.errors.push(format!(
                                    "fingerprints differ at {} ({} TT {} MiB): {first} nodes {} best {}, {backend} nodes {} best {}",
                                    a.sfen, cell.eval.name(), cell.tt_mib, a.nodes, a.best, b.nodes, b.best
                                ));
                            }
                        }
                    }
                }
            }
        }
    }
    m.rows
        .sort_by_key(|r| (r.cell.pages, r.cell.eval, r.cell.tt_mib, r.twin, r.backend));
    m.cells.sort_by_key(|c| (c.pages, c.eval, c.tt_mib));
    m
}

/// The invocation's order in words (recorded: the method says the order was randomised).
fn order_text(
    invocation: Invocation,
    entries: &[(&str, bool)],
    blocks: &[Vec<(usize, usize)>],
    evals: &[EvalKind],
    tt_sizes: &[usize],
) -> String {
    let names: Vec<String> = entries
        .iter()
        .map(|(b, twin)| {
            if *twin {
                format!("{b} (A/A twin)")
            } else {
                b.to_string()
            }
        })
        .collect();
    let groups: Vec<String> = blocks
        .iter()
        .zip(["4k", "2m"])
        .map(|(groups, pages)| {
            let list: Vec<String> = groups
                .iter()
                .map(|&(e, t)| format!("{}@{}MiB", evals[e].name(), tt_sizes[t]))
                .collect();
            format!("tables {pages}: {}", list.join(", "))
        })
        .collect();
    format!(
        "invocation {}: backends {}; blocks {}",
        invocation.index + 1,
        names.join(", "),
        groups.join("; ")
    )
}
