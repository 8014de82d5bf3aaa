//! E11's timed block: every entry searches every position once, in chunks rotated over the
//! entries, each chunk's wall time, thread CPU time and context switches recorded (E12 times
//! its search the same way).

use crate::bench::{run_named, BenchRun, PositionPrint};
use kiki_engine::search::eval::EvalTables;
use kiki_engine::search::tt::TranspositionTable;

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

/// One timed chunk as [`Block::time_chunks`] saw it: its entry's slot in the order, its step.
pub(crate) struct ChunkTiming {
    pub slot: usize,
    pub step: usize,
    pub nodes: u64,
    pub wall_ns: u64,
    pub thread_cpu_ns: u64,
    pub voluntary_switches: u64,
    pub involuntary_switches: u64,
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
        self.time_chunks(order, tt, errors, &mut Vec::new())
    }

    /// [`Block::time`], with each timed chunk's wall time, thread CPU time and context
    /// switches pushed to `timings`.
    pub(crate) fn time_chunks(
        &self,
        order: &[(&'static str, bool)],
        tt: &mut TranspositionTable,
        errors: &mut Vec<String>,
        timings: &mut Vec<ChunkTiming>,
    ) -> Vec<Option<BenchRun>> {
        use crate::measure::{thread_context_switches, thread_cpu_ns};
        let chunks = order.len().max(1);
        let n = self.sfens.len();
        let chunk = |c: usize| (c * n / chunks)..((c + 1) * n / chunks);
        let mut merged: Vec<Option<BenchRun>> = vec![None; order.len()];
        let mut prints: Vec<Vec<Option<PositionPrint>>> = vec![vec![None; n]; order.len()];
        let warm_depth = self.depth.saturating_sub(1).max(1);
        for step in 0..chunks {
            for (slot, &(backend, _)) in order.iter().enumerate() {
                let range = chunk((step + slot) % chunks);
                let warmed = run_named(backend, self.warm, warm_depth, self.tables, tt);
                let (cpu_before, switches_before) = (thread_cpu_ns(), thread_context_switches());
                let timed = warmed.and_then(|_| {
                    run_named(
                        backend,
                        &self.sfens[range.clone()],
                        self.depth,
                        self.tables,
                        tt,
                    )
                });
                let (cpu_after, switches_after) = (thread_cpu_ns(), thread_context_switches());
                let run = match timed {
                    Ok(run) => run,
                    Err(error) => {
                        errors.push(error.to_string());
                        continue;
                    }
                };
                let (voluntary, involuntary) = match (switches_before, switches_after) {
                    (Some((v0, i0)), Some((v1, i1))) => (v1 - v0, i1 - i0),
                    _ => (0, 0),
                };
                timings.push(ChunkTiming {
                    slot,
                    step,
                    nodes: run.nodes,
                    wall_ns: (run.seconds * 1e9) as u64,
                    thread_cpu_ns: cpu_after.zip(cpu_before).map_or(0, |(a, b)| a - b),
                    voluntary_switches: voluntary,
                    involuntary_switches: involuntary,
                });
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
