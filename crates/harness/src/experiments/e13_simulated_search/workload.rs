//! E13's workload: the bench search of one backend under one evaluation, the process valgrind
//! simulates (the hidden `kiki e13-workload`), with the whole search inside one collected function.

use super::instrumentation::{start_instrumentation, stop_instrumentation, zero_stats};
use crate::registry;
use kiki_core::backend::{Backend, Bitboard};
use kiki_core::pages::Pages;
use kiki_core::types::{Slider, Square};
use kiki_engine::position::Position;
use kiki_engine::search::bench;
use kiki_engine::search::eval::{EvalKind, EvalTables};
use kiki_engine::search::search;
use kiki_engine::search::tt::TranspositionTable;
use kiki_variants::registry::{BackendVisitor, RegistryError};
use serde::{Deserialize, Serialize};
use std::hint::black_box;

/// The function valgrind collects in (its name is matched with wildcards around it): the
/// search and everything it calls, nothing built before it.
pub const MEASURED_FUNCTION: &str = "e13_measured_search";

/// The SIMD level the workload runs at under valgrind: valgrind 3.19 cannot run AVX-512, so
/// every simulated search runs the AVX2 paths, whatever the CPU has.
pub const SIMULATED_SIMD: &str = "avx2";

/// The search's depth in plies, as E11 times it in a full run.
pub const DEFAULT_DEPTH: u32 = 3;

/// The TT's MiB in a simulated search: big enough that the search's TT traffic is spread over
/// more lines than any simulated last level holds, small enough to zero quickly under valgrind.
pub const DEFAULT_TT_MIB: usize = 64;

/// What one simulated search is: the evaluation, how many bench positions are measured, how
/// deep, and the TT's size. The workload searches twice as many positions: the first
/// `positions` warm the simulated caches and the TT, and are not counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchSize {
    #[serde(with = "crate::experiments::e11_search::eval_name")]
    pub eval: EvalKind,
    pub positions: usize,
    pub depth: u32,
    pub tt_mib: usize,
}

/// What a search workload did: nodes of the measured positions and of the warming ones before
/// them, and every position's fingerprint folded (so that the search cannot be optimised away
/// and two runs can be seen to have searched alike).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchTotals {
    pub nodes: u64,
    pub warm_nodes: u64,
    pub checksum: u64,
}

/// One position after another to `depth`, with one TT, as `kiki bench` searches them.
fn search_all<B: Backend>(
    positions: &[Position<B>],
    depth: u32,
    tables: &EvalTables,
    tt: &mut TranspositionTable,
    checksum: &mut u64,
) -> u64 {
    let mut nodes = 0;
    for position in positions {
        let outcome = search(position, depth, tables, tt);
        nodes += outcome.nodes;
        *checksum = checksum.rotate_left(5)
            ^ outcome.eval_checksum
            ^ ((outcome.score as u64) << 32)
            ^ outcome.nodes;
    }
    nodes
}

/// The collected region: the `warm` positions, then callgrind's costs zeroed, then the
/// `measured` ones, with `tables`' evaluation and one TT throughout. What callgrind writes is
/// the measured search alone, on caches (and a TT) the warm one filled: the cold misses of the
/// first touch of code, tables and TT fall in the warm part. Never inlined, so that valgrind
/// switches collection on at its entry and off at its exit; the backend's tables, the
/// evaluation's tables, the TT and the positions are built before it is called.
#[inline(never)]
pub fn e13_measured_search<B: Backend>(
    warm: &[Position<B>],
    measured: &[Position<B>],
    depth: u32,
    tables: &EvalTables,
    tt: &mut TranspositionTable,
) -> SearchTotals {
    let mut checksum = 0;
    let warm_nodes = search_all(warm, depth, tables, tt, &mut checksum);
    zero_stats();
    let nodes = search_all(measured, depth, tables, tt, &mut checksum);
    SearchTotals {
        nodes,
        warm_nodes,
        checksum,
    }
}

/// Builds everything the search needs on one backend, then runs [`e13_measured_search`]
/// (`timed`: natively, the warm positions first and the measured ones timed after them).
struct SearchVisitor {
    size: SearchSize,
    timed: bool,
}

impl BackendVisitor for SearchVisitor {
    type Output = (SearchTotals, f64);
    fn visit<B: Backend>(self, backend: B) -> (SearchTotals, f64) {
        // Every bench position is built whatever the count searched, so that runs of different
        // sizes allocate alike and their simulated caches see the same addresses.
        let positions: Vec<Position<B>> = bench::positions()
            .iter()
            .map(|sfen| Position::from_sfen(backend, sfen).expect("the bench positions parse"))
            .collect();
        // Small pages: valgrind does not model pages, and asking the kernel to collapse them
        // costs a start-up under valgrind for nothing.
        let tables = EvalTables::new(self.size.eval, Pages::Small);
        let mut tt = TranspositionTable::new(self.size.tt_mib << 20, Pages::Small);
        let (warm, rest) = positions.split_at(self.size.positions.min(positions.len()));
        let measured = &rest[..self.size.positions.min(rest.len())];
        let depth = self.size.depth;
        if self.timed {
            let warmed = e13_measured_search(warm, &[], depth, &tables, &mut tt);
            let started = std::time::Instant::now();
            let totals = e13_measured_search(&[], black_box(measured), depth, &tables, &mut tt);
            let seconds = started.elapsed().as_secs_f64();
            let totals = SearchTotals {
                warm_nodes: warmed.warm_nodes,
                ..totals
            };
            return (black_box(totals), seconds);
        }
        // Under `--instr-atstart=no` everything before runs uninstrumented (valgrind's JIT
        // alone, several times faster): the tables' construction costs the simulation nothing.
        start_instrumentation();
        let totals = e13_measured_search(
            black_box(warm),
            black_box(measured),
            depth,
            &tables,
            &mut tt,
        );
        stop_instrumentation();
        (black_box(totals), 0.0)
    }
}

/// The synthetic walk's collected region: one rook lookup per entry of `walk`, each reading a
/// table line no other entry reads (the attribution's test: its attack-table misses are known).
/// Its name extends [`MEASURED_FUNCTION`], so that callgrind's toggle collects it too.
#[inline(never)]
pub fn e13_measured_search_of_a_table_walk<B: Backend>(
    backend: &B,
    walk: &[(B::Occupancy, Square)],
) -> u64 {
    let mut fold = 0u64;
    for (occupancy, square) in walk {
        let attacks = backend.rook_attacks(occupancy, *square);
        fold = fold.rotate_left(7) ^ attacks.to_canonical() as u64;
    }
    fold
}

/// The synthetic walk of `lines` lookups on one backend: rook lookups on random occupancies, each
/// kept only where it reads a table line no earlier one read ([`Backend::attack_table_offsets`]),
/// so that from empty caches every kept lookup misses exactly once in every level.
struct WalkVisitor {
    lines: usize,
}

/// What the walk did: its lookups (as many as distinct table lines) and a fold of the attacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WalkTotals {
    pub lookups: u64,
    pub checksum: u64,
}

impl BackendVisitor for WalkVisitor {
    type Output = Option<WalkTotals>;
    fn visit<B: Backend>(self, backend: B) -> Option<WalkTotals> {
        use rand::SeedableRng;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(0xe13);
        let mut seen = std::collections::HashSet::new();
        let mut walk = Vec::with_capacity(self.lines);
        let mut offsets = Vec::new();
        let squares: Vec<Square> = Square::all().collect();
        // A table too small for this many distinct lines gives up after a bounded search.
        for _ in 0..self.lines.saturating_mul(64) {
            if walk.len() == self.lines {
                break;
            }
            let square = squares[walk.len() % squares.len()];
            let occupancy =
                backend.occupancy(kiki_core::reference::random_occupancy(&mut rng, 0.3));
            offsets.clear();
            backend.attack_table_offsets(Slider::Rook, &occupancy, square, &mut offsets);
            let lines: Vec<usize> = offsets.iter().map(|o| o / 64).collect();
            if !lines.is_empty() && lines.iter().all(|line| !seen.contains(line)) {
                seen.extend(lines);
                walk.push((occupancy, square));
            }
        }
        if walk.len() < self.lines {
            return None;
        }
        start_instrumentation();
        let checksum = e13_measured_search_of_a_table_walk(&backend, black_box(&walk));
        stop_instrumentation();
        Some(WalkTotals {
            lookups: walk.len() as u64,
            checksum: black_box(checksum),
        })
    }
}

/// Runs the synthetic walk of `lines` distinct table lines on `name`; `None` where its tables
/// hold fewer lines a rook lookup reads, or it has none.
pub fn run_table_walk(name: &str, lines: usize) -> Result<Option<WalkTotals>, RegistryError> {
    registry::visit(name, WalkVisitor { lines })
}

/// The bench positions a search workload can take: its `positions` is at most half of this.
pub fn bench_positions() -> usize {
    bench::positions().len()
}

/// Runs the search workload of `size` on the backend called `name` (layout variants too).
pub fn run_search_workload(name: &str, size: SearchSize) -> Result<SearchTotals, RegistryError> {
    registry::visit(name, SearchVisitor { size, timed: false }).map(|(totals, _)| totals)
}

/// Runs the search workload of `size` natively on `name`, the measured positions timed
/// (seconds) after the warm ones.
pub fn time_search(name: &str, size: SearchSize) -> Result<(SearchTotals, f64), RegistryError> {
    registry::visit(name, SearchVisitor { size, timed: true })
}

/// The line `kiki e13-workload` prints, which [`parse_workload_line`] reads back.
pub fn workload_line(name: &str, size: SearchSize, totals: SearchTotals) -> String {
    format!(
        "{name} {} positions {} depth {} tt {} MiB warm {} nodes {} checksum {:#018x}",
        size.eval.name(),
        size.positions,
        size.depth,
        size.tt_mib,
        totals.warm_nodes,
        totals.nodes,
        totals.checksum
    )
}

/// The nodes and checksum of a [`workload_line`] (the last line of the workload's stdout).
pub fn parse_workload_line(text: &str) -> Result<SearchTotals, String> {
    let line = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .ok_or("the search workload printed nothing")?;
    let words: Vec<&str> = line.split_whitespace().collect();
    let after = |key: &str| -> Result<&str, String> {
        words
            .iter()
            .position(|w| *w == key)
            .and_then(|i| words.get(i + 1).copied())
            .ok_or_else(|| format!("the search workload's line has no {key}: '{line}'"))
    };
    let count = |key: &str| -> Result<u64, String> {
        after(key)?
            .parse()
            .map_err(|_| format!("the search workload's {key} count is not a number: '{line}'"))
    };
    let (nodes, warm_nodes) = (count("nodes")?, count("warm")?);
    let checksum = after("checksum")?;
    let checksum = u64::from_str_radix(checksum.trim_start_matches("0x"), 16)
        .map_err(|_| format!("the search workload's checksum is not hexadecimal: '{line}'"))?;
    Ok(SearchTotals {
        nodes,
        warm_nodes,
        checksum,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn e13_workload_searches_the_first_positions_and_its_line_reads_back() {
        let size = SearchSize {
            eval: EvalKind::Material,
            positions: 2,
            depth: 1,
            tt_mib: 1,
        };
        let one = run_search_workload("mailbox", size).expect("mailbox runs");
        let again = run_search_workload("dbb", size).expect("dbb runs");
        assert!(one.nodes > 0 && one.warm_nodes > 0);
        // Every backend walks the same tree.
        assert_eq!(one, again);
        let more = run_search_workload(
            "mailbox",
            SearchSize {
                positions: 4,
                ..size
            },
        )
        .expect("mailbox runs");
        assert!(more.nodes > one.nodes);
        let line = workload_line("mailbox", size, one);
        assert_eq!(parse_workload_line(&format!("{line}\n")), Ok(one));
        assert!(parse_workload_line("").is_err());
        assert!(parse_workload_line("mailbox warm 1 nodes x checksum 0x1").is_err());
        assert!(parse_workload_line("mailbox nodes 1 checksum 0x1").is_err());
    }
}
