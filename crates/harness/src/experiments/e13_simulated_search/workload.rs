//! E13's workload: the bench search of one backend under one evaluation, the process valgrind
//! simulates (the hidden `kiki e13-workload`), with the whole search inside one collected function.

use super::instrumentation::{start_instrumentation, stop_instrumentation};
use crate::registry;
use kiki_core::backend::Backend;
use kiki_core::pages::Pages;
use kiki_engine::position::Position;
use kiki_engine::search::bench;
use kiki_engine::search::eval::{EvalKind, EvalTables};
use kiki_engine::search::search;
use kiki_engine::search::tt::TranspositionTable;
use kiki_variants::registry::{BackendVisitor, RegistryError};

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

/// What one simulated search is: the evaluation, how many bench positions (the first ones),
/// how deep, and the TT's size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchSize {
    pub eval: EvalKind,
    pub positions: usize,
    pub depth: u32,
    pub tt_mib: usize,
}

/// What a search workload did: nodes searched, and every position's fingerprint folded (so that
/// the search cannot be optimised away and two runs can be seen to have searched alike).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchTotals {
    pub nodes: u64,
    pub checksum: u64,
}

/// The collected region: `positions` searched one after the other to `depth` with `tables`'
/// evaluation and one TT, as `kiki bench` does. Never inlined, so that valgrind switches
/// collection on at its entry and off at its exit; the backend's tables, the evaluation's
/// tables, the TT and the positions are built before it is called.
#[inline(never)]
pub fn e13_measured_search<B: Backend>(
    positions: &[Position<B>],
    depth: u32,
    tables: &EvalTables,
    tt: &mut TranspositionTable,
) -> SearchTotals {
    let mut totals = SearchTotals {
        nodes: 0,
        checksum: 0,
    };
    for position in positions {
        let outcome = search(position, depth, tables, tt);
        totals.nodes += outcome.nodes;
        totals.checksum = totals.checksum.rotate_left(5)
            ^ outcome.eval_checksum
            ^ ((outcome.score as u64) << 32)
            ^ outcome.nodes;
    }
    totals
}

/// Builds everything the search needs on one backend, then runs [`e13_measured_search`].
struct SearchVisitor {
    size: SearchSize,
}

impl BackendVisitor for SearchVisitor {
    type Output = SearchTotals;
    fn visit<B: Backend>(self, backend: B) -> SearchTotals {
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
        let searched = &positions[..self.size.positions.min(positions.len())];
        // Under `--instr-atstart=no` everything before runs uninstrumented (valgrind's JIT
        // alone, several times faster): the tables' construction costs the simulation nothing.
        start_instrumentation();
        let totals = e13_measured_search(
            std::hint::black_box(searched),
            self.size.depth,
            &tables,
            &mut tt,
        );
        stop_instrumentation();
        std::hint::black_box(totals)
    }
}

/// The bench positions a search workload can take: its `positions` is at most this.
pub fn bench_positions() -> usize {
    bench::positions().len()
}

/// Runs the search workload of `size` on the backend called `name` (layout variants too).
pub fn run_search_workload(name: &str, size: SearchSize) -> Result<SearchTotals, RegistryError> {
    registry::visit(name, SearchVisitor { size })
}

/// The line `kiki e13-workload` prints, which [`parse_workload_line`] reads back.
pub fn workload_line(name: &str, size: SearchSize, totals: SearchTotals) -> String {
    format!(
        "{name} {} positions {} depth {} tt {} MiB nodes {} checksum {:#018x}",
        size.eval.name(),
        size.positions,
        size.depth,
        size.tt_mib,
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
    let nodes = after("nodes")?
        .parse()
        .map_err(|_| format!("the search workload's node count is not a number: '{line}'"))?;
    let checksum = after("checksum")?;
    let checksum = u64::from_str_radix(checksum.trim_start_matches("0x"), 16)
        .map_err(|_| format!("the search workload's checksum is not hexadecimal: '{line}'"))?;
    Ok(SearchTotals { nodes, checksum })
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
        assert!(one.nodes > 0);
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
        assert!(parse_workload_line("mailbox nodes x checksum 0x1").is_err());
    }
}
