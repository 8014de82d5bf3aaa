//! The survival probe: timed reloads of a node's table lines after P pressure reads.

use super::calibration::{calibration, table_lines, Reloads};
use super::timing::{load_byte, pressure_sum, tick_ns, ticks, Walk};
use super::{attack_table_bytes, Measurement, Steps};
use crate::experiments::fold;
use crate::registry;
use crate::workloads::SearchWorkload;
use kiki_core::backend::Backend;
use kiki_variants::registry::BackendVisitor;
use std::hint::black_box;

/// Pressure counts of the survival probe: 0, 8, 32, … by fours, up to the first count whose
/// reads insert at least 4× the effective last level (P × 64 B): the lines then in memory.
pub(in super::super) fn survival_reads(smoke: bool, last_level_bytes: usize) -> Vec<u32> {
    if smoke {
        return vec![0, 8, 32];
    }
    // 8 × 4^k: the chain sweep's counts (0, 8, 32, 128, 512) and on.
    let mut reads = vec![0u32, 8];
    while (*reads.last().unwrap_or(&8) as usize) * 64 < 4 * last_level_bytes {
        reads.push(reads.last().unwrap_or(&8).saturating_mul(4));
    }
    reads
}

/// Nodes the survival probe reloads per pressure count in one invocation: fewer at the largest
/// counts, whose pressure phase dominates the time.
fn survival_nodes(smoke: bool, reads: u32) -> usize {
    match (smoke, reads) {
        (true, _) => 50,
        (false, r) if r > 16_384 => 100,
        _ => 400,
    }
}

/// The survival probe on the backend with the largest attack tables: its calibration, then per
/// node its lookups once, P pressure reads, and one timed load of each table line they read.
pub(super) fn survival(
    m: &mut Measurement,
    workload: &SearchWorkload,
    pressure: &[u64],
    steps: &mut Steps<'_>,
) {
    let biggest = m
        .backends
        .iter()
        .map(|&name| (name, attack_table_bytes(name)))
        .filter(|&(_, bytes)| bytes > 0)
        .max_by_key(|&(_, bytes)| bytes);
    let Some((name, _)) = biggest else {
        m.notes
            .push("survival probe skipped: no measured backend has attack tables".into());
        steps.done += 1;
        return;
    };
    m.survival_backend = Some(name);
    let smoke = m.sampling.samples <= 3;
    steps.report("survival probe, calibration", 0.0);
    m.calibration = calibration(name, &m.levels, if smoke { 50 } else { 300 }, m.invocation);
    for reads in survival_reads(smoke, m.levels.last_level_bytes()) {
        steps.report(&format!("survival probe, {reads} pressure reads"), 0.0);
        let probe = Probe {
            workload,
            pressure,
            reads,
            nodes: survival_nodes(smoke, reads),
            offset: m.invocation.index,
        };
        let mut cases = registry::visit_base(name, probe).unwrap_or_default();
        let reloads = if cases.len() == 1 {
            let (_, ns, invocation) = cases.remove(0);
            Reloads { ns, invocation }
        } else {
            Reloads::default()
        };
        m.survival.push((reads, reloads));
    }
    steps.done += 1;
}

/// The survival probe's visitor: `nodes` nodes from this invocation's own starting point.
struct Probe<'a> {
    workload: &'a SearchWorkload,
    pressure: &'a [u64],
    reads: u32,
    nodes: usize,
    /// This invocation's index: its own starting point.
    offset: usize,
}

impl BackendVisitor for Probe<'_> {
    type Output = Vec<(String, Vec<f64>, Vec<f64>)>;
    fn visit<B: Backend>(self, backend: B) -> Self::Output {
        let ns_per_tick = tick_ns();
        let zero = black_box(0u64);
        let offset = self.offset;
        let walk = Walk {
            workload: self.workload,
            pressure: self.pressure,
            reads: self.reads,
            stream: 0,
        };
        let memory = backend.attack_table_memory();
        let all = self.workload.nodes();
        let (mut offsets, mut lines) = (Vec::new(), Vec::new());
        let mut ns = Vec::new();
        for k in 0..self.nodes {
            let node = (offset * 7919 + k * 131) % all;
            let occupancy = backend.occupancy(self.workload.occupancies[node]);
            offsets.clear();
            for &(slider, square) in self.workload.node(node) {
                backend.attack_table_offsets(slider, &occupancy, square, &mut offsets);
            }
            table_lines(&memory, &offsets, &mut lines);
            let mut warm = 0u64;
            for &(slider, square) in self.workload.node(node) {
                warm ^= fold(backend.slider_attacks(slider, &occupancy, square));
            }
            let mut link = pressure_sum(&walk, node, warm & zero) & zero;
            for &line in &lines {
                // `link` is zero: the address is unchanged, but waits for the previous load.
                let address = line.wrapping_add(link as usize);
                let before = ticks();
                // SAFETY: `address` is `line`, a byte of a live attack table.
                let value = black_box(unsafe { load_byte(address) });
                let after = ticks();
                link = value & zero;
                ns.push(after.saturating_sub(before) as f64 * ns_per_tick);
            }
        }
        let invocation = vec![offset as f64; ns.len()];
        vec![(B::info().name.to_string(), ns, invocation)]
    }
}
