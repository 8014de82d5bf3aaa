//! The attack-table lines E13's search reads, traced natively: each sliding lookup's table
//! elements as cache lines, for the lookups per node, the distinct lines per 1,000 nodes and
//! their LRU reuse distances (what E7's isolated chain does not reproduce).

use super::workload::{e13_measured_search, SearchSize};
use crate::experiments::e7_cache_pressure::{stack_distances, Reuse};
use crate::registry;
use kiki_core::backend::{Backend, BackendInfo, TableInfo};
use kiki_core::pages::Pages;
use kiki_core::types::{Color, Slider, Square};
use kiki_engine::position::Position;
use kiki_engine::search::bench;
use kiki_engine::search::eval::EvalTables;
use kiki_engine::search::tt::TranspositionTable;
use kiki_variants::registry::BackendVisitor;
use serde::{Deserialize, Serialize};
use std::sync::Mutex;

/// The lines one traced search read, in order.
#[derive(Default)]
struct Trace {
    lines: Vec<u64>,
    lookups: u64,
    offsets: Vec<usize>,
    /// Tracing starts at the measured positions (the warm ones are searched untraced).
    on: bool,
}

/// A backend that answers as `inner` does and logs the attack-table lines of each sliding
/// lookup ([`Backend::attack_table_offsets`]) into `log`. The log is a leaked `Mutex` because a
/// backend is a `Copy + 'static` handle; one leaks per traced search (a few bytes).
#[derive(Clone, Copy)]
struct Traced<B: Backend> {
    inner: B,
    log: &'static Mutex<Trace>,
}

impl<B: Backend> Traced<B> {
    fn record(&self, slider: Slider, occupancy: &B::Occupancy, sq: Square) {
        let mut trace = self.log.lock().unwrap_or_else(|e| e.into_inner());
        if !trace.on {
            return;
        }
        let Trace {
            lines,
            lookups,
            offsets,
            ..
        } = &mut *trace;
        offsets.clear();
        self.inner
            .attack_table_offsets(slider, occupancy, sq, offsets);
        lines.extend(offsets.iter().map(|&o| (o / 64) as u64));
        *lookups += 1;
    }
}

impl<B: Backend> Backend for Traced<B> {
    type Bitboard = B::Bitboard;
    type Occupancy = B::Occupancy;

    fn info() -> BackendInfo {
        B::info()
    }
    fn availability() -> Result<(), String> {
        B::availability()
    }
    fn tables() -> Vec<TableInfo> {
        B::tables()
    }
    fn simd_path() -> &'static str {
        B::simd_path()
    }
    fn new() -> Result<Self, String> {
        Err("a traced backend is made around a built one, not on its own".into())
    }
    fn occupancy(&self, canonical: u128) -> Self::Occupancy {
        self.inner.occupancy(canonical)
    }
    fn set_square(&self, occupancy: &mut Self::Occupancy, sq: Square) {
        self.inner.set_square(occupancy, sq)
    }
    fn clear_square(&self, occupancy: &mut Self::Occupancy, sq: Square) {
        self.inner.clear_square(occupancy, sq)
    }
    fn occupied(&self, occupancy: &Self::Occupancy) -> Self::Bitboard {
        self.inner.occupied(occupancy)
    }
    fn rook_attacks(&self, occupancy: &Self::Occupancy, sq: Square) -> Self::Bitboard {
        self.record(Slider::Rook, occupancy, sq);
        self.inner.rook_attacks(occupancy, sq)
    }
    fn bishop_attacks(&self, occupancy: &Self::Occupancy, sq: Square) -> Self::Bitboard {
        self.record(Slider::Bishop, occupancy, sq);
        self.inner.bishop_attacks(occupancy, sq)
    }
    fn lance_attacks(&self, color: Color, occupancy: &Self::Occupancy, sq: Square) -> B::Bitboard {
        self.record(Slider::Lance(color), occupancy, sq);
        self.inner.lance_attacks(color, occupancy, sq)
    }
    fn dragon_attacks(&self, occupancy: &Self::Occupancy, sq: Square) -> Self::Bitboard {
        self.record(Slider::Dragon, occupancy, sq);
        self.inner.dragon_attacks(occupancy, sq)
    }
    fn horse_attacks(&self, occupancy: &Self::Occupancy, sq: Square) -> Self::Bitboard {
        self.record(Slider::Horse, occupancy, sq);
        self.inner.horse_attacks(occupancy, sq)
    }
    fn king_attacks(&self, sq: Square) -> Self::Bitboard {
        self.inner.king_attacks(sq)
    }
    fn gold_attacks(&self, color: Color, sq: Square) -> Self::Bitboard {
        self.inner.gold_attacks(color, sq)
    }
    fn silver_attacks(&self, color: Color, sq: Square) -> Self::Bitboard {
        self.inner.silver_attacks(color, sq)
    }
    fn knight_attacks(&self, color: Color, sq: Square) -> Self::Bitboard {
        self.inner.knight_attacks(color, sq)
    }
    fn pawn_attacks(&self, color: Color, sq: Square) -> Self::Bitboard {
        self.inner.pawn_attacks(color, sq)
    }
    fn attack_table_memory(&self) -> Vec<&'static [u8]> {
        self.inner.attack_table_memory()
    }
    fn attack_table_offsets(
        &self,
        slider: Slider,
        occupancy: &Self::Occupancy,
        sq: Square,
        out: &mut Vec<usize>,
    ) {
        self.inner.attack_table_offsets(slider, occupancy, sq, out)
    }
}

/// What one backend's traced search read of its attack tables, over the measured positions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableTrace {
    pub backend: String,
    pub nodes: u64,
    pub lookups: u64,
    /// Table lines read (a lookup may read more than one, or none).
    pub reads: u64,
    /// Distinct lines over the whole measured search.
    pub distinct_lines: u64,
    /// The mean over windows of about 1,000 nodes (the lookups of 1,000 nodes at the search's
    /// mean rate) of the distinct lines each window reads.
    pub distinct_lines_per_1000_nodes: f64,
    /// LRU stack distances of the reads, in distinct table lines: `buckets[0]` distance 0,
    /// `buckets[k]` distances in [2^(k-1), 2^k); first reads are `cold`.
    pub cold: u64,
    pub buckets: Vec<u64>,
}

impl TableTrace {
    pub fn lookups_per_node(&self) -> f64 {
        self.lookups as f64 / self.nodes.max(1) as f64
    }

    /// The share of re-reads at an LRU stack distance under `lines` table lines (a cache that
    /// held only the table's lines, `64 · lines` bytes, would serve them).
    pub fn reuse_within(&self, lines: u64) -> f64 {
        let rereads: u64 = self.buckets.iter().sum();
        let near: u64 = self
            .buckets
            .iter()
            .enumerate()
            .filter(|(k, _)| *k == 0 || (1u64 << k) <= lines)
            .map(|(_, n)| n)
            .sum();
        near as f64 / rereads.max(1) as f64
    }
}

/// Traces `size`'s search on the base backend `name`: the same warm positions, then the
/// measured ones traced (as the simulation counts them); `None` for a backend without tables.
pub fn trace_tables(name: &str, size: SearchSize) -> Option<TableTrace> {
    struct Tracing {
        size: SearchSize,
    }
    impl BackendVisitor for Tracing {
        type Output = Option<TableTrace>;
        fn visit<B: Backend>(self, inner: B) -> Option<TableTrace> {
            if inner.attack_table_memory().is_empty() {
                return None;
            }
            let log: &'static Mutex<Trace> = Box::leak(Box::default());
            let backend = Traced { inner, log };
            let positions: Vec<Position<Traced<B>>> = bench::positions()
                .iter()
                .map(|sfen| Position::from_sfen(backend, sfen).expect("the bench positions parse"))
                .collect();
            let tables = EvalTables::new(self.size.eval, Pages::Small);
            let mut tt = TranspositionTable::new(self.size.tt_mib << 20, Pages::Small);
            let (warm, rest) = positions.split_at(self.size.positions.min(positions.len()));
            let measured = &rest[..self.size.positions.min(rest.len())];
            // The warm search untraced, then the measured one traced, on the TT it filled.
            e13_measured_search(warm, &[], self.size.depth, &tables, &mut tt);
            log.lock().unwrap_or_else(|e| e.into_inner()).on = true;
            let totals = e13_measured_search(&[], measured, self.size.depth, &tables, &mut tt);
            let trace = std::mem::take(&mut *log.lock().unwrap_or_else(|e| e.into_inner()));
            let reuse = stack_distances(B::info().name, &trace.lines, trace.lookups);
            Some(figures(&reuse, totals.nodes, &trace))
        }
    }
    registry::visit_base(name, Tracing { size }).ok().flatten()
}

/// The figures of one trace: distinct lines per window of 1,000 nodes' lookups, and the reuse.
fn figures(reuse: &Reuse, nodes: u64, trace: &Trace) -> TableTrace {
    let per_node = trace.lookups as f64 / nodes.max(1) as f64;
    let window = ((1000.0 * per_node).round() as usize).max(1);
    // Lines per lookup vary little; windows are cut on lookups, so every window but the last
    // (left out unless it is the only one) holds 1,000 nodes' worth.
    let reads_per_lookup = trace.lines.len() as f64 / trace.lookups.max(1) as f64;
    let lines_per_window = ((window as f64 * reads_per_lookup).round() as usize).max(1);
    let windows: Vec<usize> = trace
        .lines
        .chunks(lines_per_window)
        .filter(|chunk| chunk.len() == lines_per_window || trace.lines.len() < lines_per_window)
        .map(|chunk| {
            let mut distinct = chunk.to_vec();
            distinct.sort_unstable();
            distinct.dedup();
            distinct.len()
        })
        .collect();
    let per_window = windows.iter().sum::<usize>() as f64 / windows.len().max(1) as f64;
    TableTrace {
        backend: reuse.backend.to_string(),
        nodes,
        lookups: trace.lookups,
        reads: reuse.reads,
        distinct_lines: reuse.distinct_lines as u64,
        distinct_lines_per_1000_nodes: per_window,
        cold: reuse.cold,
        buckets: reuse.buckets.clone(),
    }
}
