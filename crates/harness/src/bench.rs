//! The search bench: each position searched to a fixed depth on one backend, timed, with its
//! fingerprint (shared by `kiki bench` and E11), and the backends' tables placed on chosen pages.

use crate::registry;
use kiki_core::backend::Backend;
use kiki_core::pages::{huge_page_bytes_of, Pages};
use kiki_core::table_arena::collapse_to_huge_pages;
use kiki_engine::position::Position;
use kiki_engine::search::eval::EvalTables;
use kiki_engine::search::tt::TranspositionTable;
use kiki_engine::search::{search, Outcome};
use kiki_variants::registry::{BackendVisitor, RegistryError};
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// One position's fingerprint: what a search found, the same on every backend.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PositionPrint {
    pub sfen: String,
    pub nodes: u64,
    /// The best move in USI (`none` when the side to move has no move).
    pub best: String,
    pub score: i32,
    pub eval_checksum: u64,
}

/// One backend's bench over a list of positions.
#[derive(Clone, Debug)]
pub struct BenchRun {
    pub positions: Vec<PositionPrint>,
    pub nodes: u64,
    pub seconds: f64,
    /// Evaluation table lines (64 B) read, and TT buckets (64 B) probed or written.
    pub eval_lines: u64,
    pub tt_accesses: u64,
}

impl BenchRun {
    pub fn nps(&self) -> f64 {
        self.nodes as f64 / self.seconds.max(1e-9)
    }

    /// The first position where `other` found something else, with both answers.
    pub fn first_difference<'a>(
        &'a self,
        other: &'a BenchRun,
    ) -> Option<(&'a PositionPrint, &'a PositionPrint)> {
        self.positions
            .iter()
            .zip(&other.positions)
            .find(|(a, b)| a != b)
    }

    /// Where `other` (`other_name`'s run) first found something else than this run (`name`'s):
    /// `at SFEN: NAME nodes N best MOVE score S, OTHER nodes N best MOVE score S`.
    pub fn difference_text(
        &self,
        name: &str,
        other: &BenchRun,
        other_name: &str,
    ) -> Option<String> {
        let (a, b) = self.first_difference(other)?;
        Some(format!(
            "at {}: {name} nodes {} best {} score {}, {other_name} nodes {} best {} score {}",
            a.sfen, a.nodes, a.best, a.score, b.nodes, b.best, b.score
        ))
    }
}

/// Searches every position of `sfens` (valid SFEN) to `depth` on `backend`.
pub fn run<B: Backend>(
    backend: B,
    sfens: &[String],
    depth: u32,
    tables: &EvalTables,
    tt: &mut TranspositionTable,
) -> BenchRun {
    let positions: Vec<Position<B>> = sfens
        .iter()
        .map(|sfen| Position::from_sfen(backend, sfen).expect("validated SFEN"))
        .collect();
    let start = Instant::now();
    let outcomes: Vec<Outcome> = positions
        .iter()
        .map(|pos| search(pos, depth, tables, tt))
        .collect();
    let seconds = start.elapsed().as_secs_f64();
    BenchRun {
        nodes: outcomes.iter().map(|o| o.nodes).sum(),
        eval_lines: outcomes.iter().map(|o| o.eval_lines).sum(),
        tt_accesses: outcomes.iter().map(|o| o.tt_accesses).sum(),
        positions: sfens
            .iter()
            .zip(&outcomes)
            .map(|(sfen, o)| PositionPrint {
                sfen: sfen.clone(),
                nodes: o.nodes,
                best: o.best.map_or_else(|| "none".to_string(), |mv| mv.usi()),
                score: o.score,
                eval_checksum: o.eval_checksum,
            })
            .collect(),
        seconds,
    }
}

/// [`run`] on the backend called `name`.
pub fn run_named(
    name: &str,
    sfens: &[String],
    depth: u32,
    tables: &EvalTables,
    tt: &mut TranspositionTable,
) -> Result<BenchRun, RegistryError> {
    struct Run<'a> {
        sfens: &'a [String],
        depth: u32,
        tables: &'a EvalTables,
        tt: &'a mut TranspositionTable,
    }
    impl BackendVisitor for Run<'_> {
        type Output = BenchRun;
        fn visit<B: Backend>(self, backend: B) -> BenchRun {
            run(backend, self.sfens, self.depth, self.tables, self.tt)
        }
    }
    registry::visit(
        name,
        Run {
            sfens,
            depth,
            tables,
            tt,
        },
    )
}

/// Where a backend's attack tables ended up.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TablePlacement {
    pub table_bytes: usize,
    /// Huge-page bytes of the tables before and after (`pages::huge_page_bytes_of`).
    pub huge_before: Option<usize>,
    pub huge_after: Option<usize>,
    /// `Err` says why the kernel did not place them as asked.
    pub outcome: Result<(), String>,
}

/// Places `name`'s attack tables (built now if they were not) on `pages`: 2 MiB pages by
/// `MADV_COLLAPSE` of every 2 MiB page of the table arena that holds a byte of them, or 4 KiB
/// pages by `MADV_NOHUGEPAGE` (the arena starts on small pages where THP is `madvise`); the
/// huge-page bytes read back by the kernel's page scan. Per process: a collapse cannot be
/// undone.
pub fn place_tables(name: &str, pages: Pages) -> Result<TablePlacement, RegistryError> {
    struct Place(Pages);
    impl BackendVisitor for Place {
        type Output = TablePlacement;
        fn visit<B: Backend>(self, backend: B) -> TablePlacement {
            let memory = backend.attack_table_memory();
            let huge = |memory: &[&[u8]]| {
                memory
                    .iter()
                    .map(|t| huge_page_bytes_of(t))
                    .try_fold(0usize, |total, b| b.map(|b| total + b))
            };
            let huge_before = huge(&memory);
            let outcomes: Vec<Result<(), String>> = memory
                .iter()
                .map(|table| match self.0 {
                    Pages::Huge => collapse_to_huge_pages(table),
                    Pages::Small => kiki_core::pages::advise_small_pages(table),
                })
                .collect();
            // Huge pages: every table must have moved (each lies in the table arena, so each
            // has 2 MiB pages around it), or the placement failed. Small pages: a table under
            // one whole 4 KiB page cannot be advised alone (the arena's chunks start on small
            // pages anyway), so the placement fails only when no table could be advised.
            let first_error = || outcomes.iter().find_map(|o| o.clone().err());
            let outcome = match self.0 {
                Pages::Huge => first_error().map_or(Ok(()), Err),
                Pages::Small if outcomes.iter().any(Result::is_ok) || outcomes.is_empty() => Ok(()),
                Pages::Small => first_error().map_or(Ok(()), Err),
            };
            TablePlacement {
                table_bytes: memory.iter().map(|t| t.len()).sum(),
                huge_before,
                huge_after: huge(&memory),
                outcome,
            }
        }
    }
    registry::visit(name, Place(pages))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every backend with attack tables, small ones included (dbb's 2.5 MiB, of which at most
    /// one whole 2 MiB page lay inside its heap allocation before the table arena), gets all
    /// of their bytes onto 2 MiB pages where the kernel collapses them (not checked where it
    /// cannot, or cannot say).
    #[test]
    fn every_table_backend_goes_wholly_onto_huge_pages() {
        for name in registry::resolve_bases("all").expect("every base backend") {
            let placed = place_tables(name, Pages::Huge).expect("a registered backend");
            if placed.outcome.is_ok() && placed.huge_after.is_some() {
                assert_eq!(placed.huge_after, Some(placed.table_bytes), "{name}");
            }
        }
    }
}
