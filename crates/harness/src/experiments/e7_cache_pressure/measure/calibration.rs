//! The survival classes' calibration: single timed loads of table lines placed in each level.

use super::attack_table_bytes;
use super::timing::{load_byte, tick_ns, ticks};
use crate::cache_levels::CacheLevels;
use crate::experiments::typical;
use crate::invocations::Invocation;
use crate::registry;
use kiki_core::backend::Backend;
use kiki_core::pages::{PageBuffer, Pages};
use kiki_variants::registry::BackendVisitor;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};
use std::hint::black_box;

/// Untimed rounds before the calibration keeps samples (code, branches, TLB warm).
const CALIBRATION_WARMUP: usize = 8;

/// The survival classes' calibration: single loads of the probed backend's own table lines
/// placed in each level, timed with the probe's own wrapper ([`ticks`] around one load), and
/// how they were placed.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Calibration {
    /// Per level, in [`SURVIVAL_LEVELS`]' order, every timed load (over all invocations).
    pub loads: [Reloads; 4],
    /// The median ns of one timed load per level.
    #[serde(with = "crate::invocations::nan::seq")]
    pub medians: [f64; 4],
    /// Timed loads per level, over all invocations.
    pub samples: usize,
    /// Bytes read after loading the line to push it out of L1 into L2 (2× the effective L1).
    pub l2_evict_bytes: usize,
    /// Bytes read after loading the line to push it out of L2 into the LL (2× the effective L2).
    pub ll_evict_bytes: usize,
    /// Bytes read to push the line out of every level where there is no `clflush` (4× the
    /// effective LL); `None` on x86-64, where it is flushed.
    pub memory_evict_bytes: Option<usize>,
    /// The attack-table bytes the calibration's lines are drawn from (the probed backend's).
    pub target_bytes: usize,
    /// The time stamp's step in ns: the greatest common divisor of the timed loads' tick
    /// counts (the smallest over invocations). A coarse counter (AMD's advances 10 ns at a
    /// time) blurs levels closer than one step.
    #[serde(with = "crate::invocations::nan")]
    pub step_ns: f64,
}

/// The calibration of `backend`'s table lines, sized from the measured levels: `per_level` timed
/// loads per level in this invocation. `None` when the backend could not be visited.
pub(super) fn calibration(
    backend: &'static str,
    levels: &CacheLevels,
    per_level: usize,
    invocation: Invocation,
) -> Option<Calibration> {
    let l1 = levels.levels.first().map_or(32 << 10, |l| l.bytes);
    let l2 = levels.levels.get(1).map_or(16 * l1, |l| l.bytes);
    let ll = levels.last_level_bytes();
    let mut plan = Calibration {
        loads: Default::default(),
        medians: [f64::NAN; 4],
        samples: 0,
        l2_evict_bytes: 2 * l1,
        ll_evict_bytes: 2 * l2,
        memory_evict_bytes: (!cfg!(target_arch = "x86_64")).then_some(4 * ll),
        target_bytes: attack_table_bytes(backend),
        step_ns: f64::NAN,
    };
    let calibrate = Calibrate {
        plan: &plan,
        per_level,
        offset: invocation.index,
    };
    let cases = registry::visit_base(backend, calibrate).unwrap_or_default();
    let complete = cases.len() == SURVIVAL_LEVELS.len() + 1
        && cases.iter().zip(SURVIVAL_LEVELS).all(|(c, l)| c.0 == l)
        && cases[SURVIVAL_LEVELS.len()].0 == CLOCK_STEP;
    if !complete {
        return None;
    }
    plan.samples = cases[0].1.len();
    for (i, (_, ns, invocation)) in cases.iter().take(4).enumerate() {
        plan.medians[i] = typical(ns, 1);
        plan.loads[i] = Reloads {
            ns: ns.clone(),
            invocation: invocation.clone(),
        };
    }
    let steps = cases[SURVIVAL_LEVELS.len()].1.iter().copied();
    plan.step_ns = steps.fold(f64::INFINITY, f64::min);
    Some(plan)
}

/// The calibration's case that carries the time stamp's step.
const CLOCK_STEP: &str = "clock step";

/// The calibration's visitor: its timed loads on the backend's own attack tables.
struct Calibrate<'a> {
    plan: &'a Calibration,
    per_level: usize,
    /// This invocation's index: its own random lines.
    offset: usize,
}

impl BackendVisitor for Calibrate<'_> {
    type Output = Vec<(String, Vec<f64>, Vec<f64>)>;
    /// Per sample, for each level in turn, a fresh random line of the backend's attack tables
    /// placed there (see [`Calibration`]), then loaded once between two [`ticks`], as the probe
    /// loads it. Per level, ns per load and the invocation; last, [`CLOCK_STEP`] in ns.
    fn visit<B: Backend>(self, backend: B) -> Self::Output {
        let plan = self.plan;
        let ns_per_tick = tick_ns();
        let memory = backend.attack_table_memory();
        let total: usize = memory.iter().map(|t| t.len()).sum();
        let evict_bytes = plan
            .l2_evict_bytes
            .max(plan.ll_evict_bytes)
            .max(plan.memory_evict_bytes.unwrap_or(0));
        let evict = PageBuffer::new(evict_bytes, Pages::Huge, |i| i as u64);
        let evict = evict.as_slice();
        let offset = self.offset;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0xCA1B ^ offset as u64);
        let mut ns = vec![Vec::with_capacity(self.per_level); SURVIVAL_LEVELS.len()];
        let mut step = 0u64;
        let mut lines = Vec::new();
        for sample in 0..CALIBRATION_WARMUP + self.per_level {
            for (level, out) in ns.iter_mut().enumerate() {
                table_lines(&memory, &[rng.random_range(0..total.max(1))], &mut lines);
                let Some(&line) = lines.first() else {
                    continue;
                };
                // SAFETY (all loads below): `line` is a byte of a live attack table.
                let placed = unsafe {
                    match level {
                        0 => load_byte(line),
                        1 => load_byte(line) ^ read_lines(evict, plan.l2_evict_bytes),
                        2 => load_byte(line) ^ read_lines(evict, plan.ll_evict_bytes),
                        _ => to_memory(line, evict, plan.memory_evict_bytes),
                    }
                };
                let link = black_box(placed) & black_box(0);
                let address = line.wrapping_add(link as usize);
                let before = ticks();
                let value = black_box(unsafe { load_byte(address) });
                let after = ticks();
                black_box(value);
                if sample >= CALIBRATION_WARMUP {
                    let ticks = after.saturating_sub(before);
                    step = gcd(step, ticks);
                    out.push(ticks as f64 * ns_per_tick);
                }
            }
        }
        let mut cases: Vec<(String, Vec<f64>, Vec<f64>)> = SURVIVAL_LEVELS
            .iter()
            .zip(ns)
            .map(|(level, ns)| {
                let invocation = vec![offset as f64; ns.len()];
                (level.to_string(), ns, invocation)
            })
            .collect();
        cases.push((
            CLOCK_STEP.to_string(),
            vec![step.max(1) as f64 * ns_per_tick],
            Vec::new(),
        ));
        cases
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// One load per line of the first `bytes` of `buffer`, in order; their sum.
fn read_lines(buffer: &[u64], bytes: usize) -> u64 {
    let words = (bytes / 8).min(buffer.len());
    buffer[..words]
        .iter()
        .step_by(8)
        .fold(0u64, |sum, &w| sum.wrapping_add(w))
}

/// Pushes the line at `line` out of every cache level: `clflush` and `mfence` on x86-64, a read
/// of `evict_bytes` of `evict` elsewhere.
#[allow(unused_variables)]
fn to_memory(line: *const u8, evict: &[u64], evict_bytes: Option<usize>) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `line` points into a live table; SSE2 (clflush, mfence) is part of x86-64.
        unsafe {
            std::arch::x86_64::_mm_clflush(line);
            std::arch::x86_64::_mm_mfence();
        }
        0
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        read_lines(evict, evict_bytes.unwrap_or(0))
    }
}

/// Timed single loads, ns each, and the invocation that timed each one (for resampling).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Reloads {
    pub ns: Vec<f64>,
    pub invocation: Vec<f64>,
}

impl Reloads {
    /// Another invocation's reloads after these.
    pub(super) fn extend(&mut self, other: &Reloads) {
        self.ns.extend(&other.ns);
        self.invocation.extend(&other.invocation);
    }
}

/// The byte address of every attack-table line `offsets` name, in first-read order, once each:
/// `offsets` index the concatenation of `memory` (as [`Backend::attack_table_offsets`] says).
pub(super) fn table_lines(memory: &[&'static [u8]], offsets: &[usize], out: &mut Vec<*const u8>) {
    out.clear();
    for &offset in offsets {
        let mut rest = offset;
        for table in memory {
            if rest < table.len() {
                let address = table[rest..].as_ptr();
                let line = address as usize >> 6;
                if !out.iter().any(|&seen| seen as usize >> 6 == line) {
                    out.push(address);
                }
                break;
            }
            rest -= table.len();
        }
    }
}

/// The classes a survival reload falls into, in order; also the calibration's cases.
pub(in super::super) const SURVIVAL_LEVELS: [&str; 4] = ["L1", "L2", "LL", "memory"];
