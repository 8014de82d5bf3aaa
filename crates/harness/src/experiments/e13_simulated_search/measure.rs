//! E13's measurement: every cell simulated under callgrind, two at a time, the attack-table
//! lines of dbb's and magic-plain's searches traced natively, and t(dbb) timed natively where
//! E11 did not measure it.

use super::cells::{cells, sweep_point, Cell};
use super::per_file::{DataEvents, FileCounts, Part};
use super::reference::Reference;
use super::simulate::{simulate_search, Geometry, SteadySearch};
use super::trace::{trace_tables, TableTrace};
use super::workload::{time_search, SearchSize, DEFAULT_DEPTH, DEFAULT_TT_MIB};
use crate::cache_levels::CacheLevels;
use crate::experiments::e8_simulated_caches::{valgrind_version, Simulator};
use crate::experiments::Progress;
use crate::machine::Machine;
use kiki_engine::search::eval::EvalKind;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Measured positions per cell (as many warm them first): a full run's, a quick run's, and the
/// tests'. Sized so that the full grid fits E13's six minutes on a 2-core Zen 4 (see
/// [`SEARCH_ARITHMETIC`]).
pub const FULL_POSITIONS: usize = 4;
pub const QUICK_POSITIONS: usize = 2;
pub const SMOKE_POSITIONS: usize = 1;

// How the search per cell was sized, from costs measured on the Zen 4 (2026-12-03, callgrind
// 3.19 with the cache simulation, one cell at a time, the release build):
// - 4 positions warm and 4 are counted: 17,042 and 47,775 nodes at depth 3 (6 and 6 would be
//   45,408 and 51,663; 2 and 2, 3,259 and 13,783);
// - a cell then costs about 2.2 s under material, 9 s under nnue and 12 s under kpp (6 and 6:
//   3.0, 11.8 and 16.1 s; valgrind's start-up and the uninstrumented building included), so
//   about 23 s per backend and last level over the three evaluations;
// - the rule's pair at 6 + up to 5 measured sizes, 506 s; bonanza, magic and pext at E6's L2
//   and L3, 138 s; mailbox at two sizes, 46 s: 690 s of simulation, two at a time on the two
//   cores, about 5.8 minutes, inside issue 58's six. Every backend at every size and 10^5 nodes
//   a cell would take about 15 minutes.
// - The quick run: 2 and 2 positions, three backends, two evaluations, three sizes: 18 cells of
//   1.5–4 s, about 25 s.

/// The pair the rule compares, and the backends whose table lines are traced.
pub const RULE_PAIR: [&str; 2] = ["dbb", "magic-plain"];

/// A level measured on this machine, as a point of the sweep (marked on the plots).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MarkedLevel {
    /// `E6 L2`, `E6 L3`, `sysfs L3`, `E6 L3 (smallest invocation)`, …
    pub name: String,
    pub bytes: usize,
    /// The sweep's last level standing for it ([`sweep_point`]).
    pub point: usize,
}

/// One cell's counts over its measured positions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellCounts {
    pub backend: String,
    #[serde(with = "crate::experiments::e11_search::eval_name")]
    pub eval: EvalKind,
    pub ll_bytes: usize,
    pub ll_ways: usize,
    pub nodes: u64,
    pub warm_nodes: u64,
    pub checksum: u64,
    pub totals: DataEvents,
    /// Per part, in [`Part::ALL`]'s order.
    pub parts: Vec<DataEvents>,
    /// What inlined std code issued, charged to the workspace file it was inlined into.
    pub from_std: DataEvents,
    /// The files of the part `other` that missed the last level most, most first (at most
    /// [`OTHER_FILES_KEPT`]): what that part is made of.
    #[serde(default)]
    pub other_files: Vec<FileMisses>,
}

/// How many of a cell's `other` files it keeps.
pub const OTHER_FILES_KEPT: usize = 4;

/// One source file's last-level data misses in a cell's measured search.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileMisses {
    /// The path as the line table names it, shortened to the workspace or `library/` path.
    pub file: String,
    pub ll_misses: i64,
}

/// `path` from its workspace folder (`crates/`, `variants/`) or the toolchain's `library/` on,
/// else its file name (libc's `memset-vec-unaligned-erms.S`), so that a report does not carry
/// the build machine's folders.
fn short_path(path: &str) -> String {
    ["crates/", "variants/", "library/"]
        .iter()
        .filter_map(|folder| path.find(folder))
        .min()
        .map_or_else(
            || path.rsplit('/').next().unwrap_or(path).to_string(),
            |at| path[at..].to_string(),
        )
}

/// The files of part `other` with the most last-level misses, most first.
fn other_files(counts: &FileCounts) -> Vec<FileMisses> {
    let mut files: Vec<FileMisses> = counts
        .by_file
        .iter()
        .filter(|(file, _)| Part::of_file(file) == Part::Other)
        .map(|(file, events)| FileMisses {
            file: short_path(file),
            ll_misses: events.ll_misses(),
        })
        .filter(|f| f.ll_misses > 0)
        .collect();
    files.sort_by(|a, b| b.ll_misses.cmp(&a.ll_misses).then(a.file.cmp(&b.file)));
    files.truncate(OTHER_FILES_KEPT);
    files
}

impl CellCounts {
    fn of(cell: &Cell, geometry: &Geometry, run: &SteadySearch) -> CellCounts {
        let parts = run.counts.by_part();
        CellCounts {
            backend: cell.backend.to_string(),
            eval: cell.eval,
            ll_bytes: cell.ll_bytes,
            ll_ways: geometry.ll.ways,
            nodes: run.nodes,
            warm_nodes: run.warm_nodes,
            checksum: run.checksum,
            totals: run.counts.totals,
            parts: Part::ALL.iter().map(|&p| parts.get(p)).collect(),
            from_std: run.counts.from_std,
            other_files: other_files(&run.counts),
        }
    }

    pub fn part(&self, part: Part) -> DataEvents {
        self.parts.get(part as usize).copied().unwrap_or_default()
    }
}

/// t(dbb) timed natively under one evaluation (ns per node of the measured positions, the best
/// of three runs): the threshold's base where E11 did not run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NativeTime {
    #[serde(with = "crate::experiments::e11_search::eval_name")]
    pub eval: EvalKind,
    pub dbb_ns: f64,
}

/// The traced table lines of one backend under one evaluation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvalTrace {
    #[serde(with = "crate::experiments::e11_search::eval_name")]
    pub eval: EvalKind,
    pub trace: TableTrace,
}

/// E13's one measurement (it runs once, in the report's process).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    /// `valgrind-3.19.0`; `None` where it could not run (then `unavailable` says why).
    pub valgrind: Option<String>,
    pub unavailable: Option<String>,
    pub quick: bool,
    pub positions: usize,
    pub depth: u32,
    pub tt_mib: usize,
    pub levels: Vec<MarkedLevel>,
    pub cache_levels: Option<CacheLevels>,
    pub cells: Vec<CellCounts>,
    pub failures: Vec<String>,
    pub traces: Vec<EvalTrace>,
    pub native: Vec<NativeTime>,
    pub reference: Reference,
    /// Wall seconds of the simulations.
    pub simulation_seconds: f64,
}

impl Measurement {
    pub fn cell(&self, backend: &str, eval: EvalKind, ll_bytes: usize) -> Option<&CellCounts> {
        self.cells
            .iter()
            .find(|c| c.backend == backend && c.eval == eval && c.ll_bytes == ll_bytes)
    }

    /// The last levels simulated, smallest first.
    pub fn sizes(&self) -> Vec<usize> {
        let mut sizes: Vec<usize> = self.cells.iter().map(|c| c.ll_bytes).collect();
        sizes.sort_unstable();
        sizes.dedup();
        sizes
    }

    pub fn evals(&self) -> Vec<EvalKind> {
        EvalKind::ALL
            .into_iter()
            .filter(|&e| self.cells.iter().any(|c| c.eval == e))
            .collect()
    }
}

/// The levels this machine measured, named, each with its sweep point: E6's effective L2 and
/// L3 (and the smallest and largest L3 its invocations saw), and sysfs' L3.
pub fn marked_levels(machine: &Machine, levels: Option<&CacheLevels>) -> Vec<MarkedLevel> {
    let mut marked = Vec::new();
    let mut mark = |name: String, bytes: usize| {
        if let Some(point) = sweep_point(bytes) {
            if !marked.iter().any(|m: &MarkedLevel| m.name == name) {
                marked.push(MarkedLevel { name, bytes, point });
            }
        }
    };
    if let Some(levels) = levels {
        for level in levels.levels.iter().filter(|l| l.level != "L1") {
            mark(format!("E6 {}", level.level), level.bytes);
        }
        if let Some(last) = levels.levels.last().filter(|l| l.level != "L1") {
            let seen: Vec<usize> = last
                .bytes_per_invocation
                .iter()
                .flatten()
                .copied()
                .collect();
            if let (Some(&least), Some(&most)) = (seen.iter().min(), seen.iter().max()) {
                if least != last.bytes {
                    mark(format!("E6 {} (smallest invocation)", last.level), least);
                }
                if most != last.bytes {
                    mark(format!("E6 {} (largest invocation)", last.level), most);
                }
            }
        }
    }
    if let Some(l3) = machine
        .caches
        .iter()
        .filter(|c| c.kind != "Instruction")
        .max_by_key(|c| c.level)
    {
        mark(format!("sysfs L{}", l3.level), l3.bytes);
    }
    marked
}

/// What a run simulates: the cells, and the search each cell runs.
pub struct Plan {
    pub cells: Vec<Cell>,
    pub positions: usize,
    pub quick: bool,
}

impl Plan {
    pub fn new(quick: bool, smoke: bool, levels: &[MarkedLevel]) -> Plan {
        let measured: Vec<usize> = levels.iter().map(|l| l.bytes).collect();
        let level = |name: &str| levels.iter().find(|l| l.name == name).map(|l| l.bytes);
        let positions = if smoke {
            SMOKE_POSITIONS
        } else if quick {
            QUICK_POSITIONS
        } else {
            FULL_POSITIONS
        };
        Plan {
            cells: cells(quick, &measured, level("E6 L2"), level("E6 L3")),
            positions,
            quick,
        }
    }

    pub fn size(&self, eval: EvalKind) -> SearchSize {
        SearchSize {
            eval,
            positions: self.positions,
            depth: DEFAULT_DEPTH,
            tt_mib: DEFAULT_TT_MIB,
        }
    }
}

/// Runs every cell of `plan` under callgrind, two at a time (or one per core), and the native
/// traces and timings. `exe` is this very binary.
pub fn measure(
    exe: &Path,
    plan: &Plan,
    simulator: Simulator<'_>,
    progress: Progress<'_>,
) -> (Vec<CellCounts>, Vec<String>, f64) {
    let started = std::time::Instant::now();
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, plan.cells.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (sender, receiver) = std::sync::mpsc::channel();
    let mut outcomes: Vec<Option<Result<CellCounts, String>>> = vec![None; plan.cells.len()];
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let (sender, next) = (sender.clone(), &next);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(cell) = plan.cells.get(i) else {
                    break;
                };
                let outcome = Geometry::with_last_level(cell.ll_bytes)
                    .ok_or_else(|| format!("valgrind has no {} B last level", cell.ll_bytes))
                    .and_then(|geometry| {
                        let size = plan.size(cell.eval);
                        simulate_search(exe, cell.backend, size, &geometry, simulator)
                            .map(|run| CellCounts::of(cell, &geometry, &run))
                    });
                if sender.send((i, outcome)).is_err() {
                    break;
                }
            });
        }
        drop(sender);
        for (done, (i, outcome)) in receiver.iter().enumerate() {
            let cell = &plan.cells[i];
            progress(
                &format!(
                    "valgrind {} {} at LL {}",
                    cell.backend,
                    cell.eval.name(),
                    kiki_core::units::compact_bytes(cell.ll_bytes as f64)
                ),
                (done + 1) as f64 / plan.cells.len().max(1) as f64,
            );
            outcomes[i] = Some(outcome);
        }
    });
    let mut counts = Vec::new();
    let mut failures = Vec::new();
    for (cell, outcome) in plan.cells.iter().zip(outcomes) {
        match outcome.unwrap_or_else(|| Err("not run".into())) {
            Ok(c) => counts.push(c),
            Err(why) => failures.push(format!(
                "{} {} at LL {} B: {why}",
                cell.backend,
                cell.eval.name(),
                cell.ll_bytes
            )),
        }
    }
    (counts, failures, started.elapsed().as_secs_f64())
}

/// The native part: the rule pair's traced table lines, under the first evaluation the plan
/// runs (every evaluation walks the same tree, `kiki_engine::search::eval`, so the lookups are
/// the same under each), and t(dbb) under each evaluation (the best of three timings).
pub fn native(plan: &Plan) -> (Vec<EvalTrace>, Vec<NativeTime>) {
    let mut evals: Vec<EvalKind> = plan.cells.iter().map(|c| c.eval).collect();
    evals.sort();
    evals.dedup();
    let mut traces = Vec::new();
    let mut native = Vec::new();
    for (i, &eval) in evals.iter().enumerate() {
        let size = plan.size(eval);
        for backend in RULE_PAIR.into_iter().filter(|_| i == 0) {
            if let Some(trace) = trace_tables(backend, size) {
                traces.push(EvalTrace { eval, trace });
            }
        }
        let best = (0..3)
            .filter_map(|_| time_search("dbb", size).ok())
            .filter(|(totals, _)| totals.nodes > 0)
            .map(|(totals, seconds)| 1e9 * seconds / totals.nodes as f64)
            .fold(f64::INFINITY, f64::min);
        if best.is_finite() {
            native.push(NativeTime { eval, dbb_ns: best });
        }
    }
    (traces, native)
}

/// The measurement of a run that could not simulate: why, with what was planned.
pub fn unavailable(why: String, plan: &Plan, levels: Vec<MarkedLevel>) -> Measurement {
    Measurement {
        valgrind: valgrind_version(),
        unavailable: Some(why),
        quick: plan.quick,
        positions: plan.positions,
        depth: DEFAULT_DEPTH,
        tt_mib: DEFAULT_TT_MIB,
        levels,
        cache_levels: None,
        cells: Vec::new(),
        failures: Vec::new(),
        traces: Vec::new(),
        native: Vec::new(),
        reference: Reference::default(),
        simulation_seconds: 0.0,
    }
}
