//! The shared timing core: the chain bodies, the chain cases, their timing and the time
//! stamps.

use crate::experiments::e7_cache_pressure::HOT_MASK;
use crate::experiments::fold;
use crate::invocations::Invocation;
use crate::measure::{current_cpu, time_ns, SampleConfig};
use crate::workloads::{eval_index, SearchWorkload};
use kiki_core::backend::Backend;
use kiki_core::types::Square;
use kiki_core::units::rounded_bytes;
use kiki_variants::registry::BackendVisitor;
use serde::{Deserialize, Serialize};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// One chain case at one point: which part of the experiment, the pressure reads per node,
/// the case (backend or `synthetic`), the mask label, the table and pressure pages, and ns per
/// lookup per round.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Chain {
    #[serde(with = "crate::invocations::static_str")]
    pub part: crate::invocations::StaticStr,
    pub reads: u32,
    pub case: String,
    pub mask: String,
    #[serde(with = "crate::invocations::static_str")]
    pub tables: crate::invocations::StaticStr,
    #[serde(with = "crate::invocations::static_str")]
    pub pressure: crate::invocations::StaticStr,
    /// Per round, the slices' trimmed mean (the fastest and slowest tenth left out).
    pub ns: Vec<f64>,
    /// Per round, the slices' plain mean: the slow tail (cold misses, and interrupts) kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ns_mean: Vec<f64>,
}

/// A mask of a table footprint: its label and the byte mask (`usize::MAX` for the whole table).
pub(in super::super) fn mask_label(mask: usize) -> String {
    if mask == usize::MAX {
        "full".to_string()
    } else {
        rounded_bytes((mask + 1) as f64)
    }
}

/// The nodes and lookups a chain case walks, with the pressure buffer it reads.
pub(super) struct Walk<'a> {
    pub(super) workload: &'a SearchWorkload,
    pub(super) pressure: &'a [u64],
    pub(super) reads: u32,
    /// Each case's own pressure stream: cases alternate within ~100 µs, and a case that read
    /// the addresses another case just read would find them cached instead of inserting them.
    pub(super) stream: u64,
}

/// P reads of the pressure buffer for node `node`, their indices salted value-neutrally by
/// `salt` (the previous chain's result ANDed with zero): the reads cannot start before the
/// previous node's lookups finish. Each case reads its own stream of random addresses.
#[inline(always)]
pub(super) fn pressure_sum(walk: &Walk<'_>, node: usize, salt: u64) -> u64 {
    let len = walk.pressure.len();
    let first = (walk.stream << 40) + node as u64 * walk.reads as u64;
    let mut sum = 0u64;
    for read in 0..walk.reads as u64 {
        sum = sum.wrapping_add(walk.pressure[eval_index((first + read) ^ salt, len)]);
    }
    sum
}

/// A chain body over nodes `start..start + count` (wrapping): per node, P pressure reads, then
/// the node's lookups as one dependent chain once per mask, each timed alone between
/// serialising time stamps, the masks taking turns at going first ([`first_turn`]). Adds each
/// mask's ticks to `ticks`.
fn chain_body<'a, B: Backend>(
    backend: B,
    occupancies: Vec<B::Occupancy>,
    walk: Walk<'a>,
    masks: Vec<usize>,
) -> impl FnMut(usize, usize, &mut [u64]) -> u64 + 'a {
    // The settling pass always runs as the hot twin, also for the A/A control (two full-table
    // chains): a full-table settle would leave both of its chains' lines cached.
    let settle = HOT_MASK;
    let zero = black_box(0u64);
    move |start, count, ticks_out| {
        let nodes = occupancies.len();
        let mut link = 0u64;
        let mut checksum = 0u64;
        for k in 0..count {
            let node = (start + k) % nodes;
            let sum = pressure_sum(&walk, node, link & zero);
            link = sum & zero;
            let occupancy = &occupancies[node];
            // An untimed settling pass as the hot twin: the per-square metadata, the code and
            // the branch history are then warm for every timed chain alike, and no timed chain
            // starts while the pressure phase's traffic is still draining.
            for &(slider, square) in walk.workload.node(node) {
                // SAFETY: as below.
                let square = unsafe { Square::new_unchecked(square.index() as u8 ^ link as u8) };
                link =
                    fold(backend.slider_attacks_masked(slider, occupancy, square, settle)) & zero;
            }
            for turn in 0..masks.len() {
                let which = (turn + first_turn(node)) % masks.len();
                let table_mask = masks[which];
                let before = ticks();
                for &(slider, square) in walk.workload.node(node) {
                    // SAFETY: `link` is a value ANDed with zero: the index is the square's own.
                    let square =
                        unsafe { Square::new_unchecked(square.index() as u8 ^ link as u8) };
                    let attacks =
                        backend.slider_attacks_masked(slider, occupancy, square, table_mask);
                    let folded = fold(attacks);
                    checksum = checksum.wrapping_add(folded);
                    link = folded & zero;
                }
                ticks_out[which] += ticks().wrapping_sub(before);
            }
        }
        checksum
    }
}

/// Which mask a node times first: a hash of the node, not its parity, because the chain that
/// runs first after the pressure phase pays a little more as P grows, and node parity in the
/// depth-first order correlates with its cost (alternating by parity gave the identical-code
/// negative controls ±1 ns at 256 pressure reads).
#[inline(always)]
pub(super) fn first_turn(node: usize) -> usize {
    (eval_index(node as u64, 1 << 16) >> 7) & 0xFF
}

/// The positive control's body, shaped like [`chain_body`]: a table of known size read one
/// line per lookup of the node in the order `visit` lists its lines (one cycle through them
/// all, carried on across nodes), each index salted by the previous read. Each mask keeps its
/// own place in the order; the untimed settling pass reads as the hot twin.
pub(super) fn synthetic_body<'a>(
    (table, visit): (&'a [u64], &'a [u32]),
    walk: Walk<'a>,
    masks: Vec<usize>,
) -> impl FnMut(usize, usize, &mut [u64]) -> u64 + 'a {
    let zero = black_box(0u64);
    // One place per mask, and the settling pass's after them.
    let mut places = vec![0usize; masks.len() + 1];
    let settle = HOT_MASK >> 3;
    move |start, count, ticks_out| {
        let nodes = walk.workload.nodes();
        let mut link = 0u64;
        let mut checksum = 0u64;
        for k in 0..count {
            let node = (start + k) % nodes;
            let sum = pressure_sum(&walk, node, link & zero);
            link = sum & zero;
            let lookups = walk.workload.node(node).len();
            let place = &mut places[masks.len()];
            for _ in 0..lookups {
                let index = (next_line(visit, place) ^ link as usize) & settle;
                link = table[index] & zero;
            }
            for turn in 0..masks.len() {
                let which = (turn + first_turn(node)) % masks.len();
                let element_mask = masks[which] >> 3;
                let place = &mut places[which];
                let before = ticks();
                for _ in 0..lookups {
                    let index = (next_line(visit, place) ^ link as usize) & element_mask;
                    let value = table[index];
                    checksum = checksum.wrapping_add(value);
                    link = value & zero;
                }
                ticks_out[which] += ticks().wrapping_sub(before);
            }
        }
        checksum
    }
}

/// The first word of the line at `place` in `visit`, and `place` moved on (wrapping).
#[inline(always)]
fn next_line(visit: &[u32], place: &mut usize) -> usize {
    let line = visit[*place] as usize;
    *place = if *place + 1 == visit.len() {
        0
    } else {
        *place + 1
    };
    line * (crate::cache_levels::LINE / 8)
}

/// One chain case: a backend (or the synthetic table) with its masks, and its body over a
/// window of nodes.
pub(crate) struct ChainCase<'a> {
    pub(crate) case: String,
    pub(crate) masks: Vec<String>,
    /// The table bytes its widest mask reads (what its warm-in must bring into the caches).
    pub(crate) footprint: usize,
    pub(crate) body: ChainBody<'a>,
}

/// A chain case's body: `(first node, nodes, ticks per mask) -> checksum`.
type ChainBody<'a> = Box<dyn FnMut(usize, usize, &mut [u64]) -> u64 + 'a>;

pub(crate) struct MakeChain<'a> {
    pub(crate) workload: &'a SearchWorkload,
    pub(crate) pressure: &'a [u64],
    pub(crate) reads: u32,
    pub(crate) masks: Vec<usize>,
    /// The case's own pressure stream.
    pub(crate) stream: u64,
    /// Labels for the masks where they are not the masks' own (the A/A control's).
    pub(crate) labels: Option<Vec<String>>,
}

impl<'a> BackendVisitor for MakeChain<'a> {
    type Output = ChainCase<'a>;
    fn visit<B: Backend>(self, backend: B) -> ChainCase<'a> {
        let occupancies: Vec<B::Occupancy> = self
            .workload
            .occupancies
            .iter()
            .map(|&o| backend.occupancy(o))
            .collect();
        let table: usize = backend.attack_table_memory().iter().map(|t| t.len()).sum();
        let widest = self.masks.iter().copied().max().unwrap_or(0);
        ChainCase {
            footprint: table.min(widest.saturating_add(1)),
            case: B::info().name.to_string(),
            masks: self
                .labels
                .unwrap_or_else(|| self.masks.iter().map(|&m| mask_label(m)).collect()),
            body: Box::new(chain_body(
                backend,
                occupancies,
                Walk {
                    workload: self.workload,
                    pressure: self.pressure,
                    reads: self.reads,
                    stream: self.stream,
                },
                self.masks,
            )),
        }
    }
}

/// Lookups in nodes `start..start + count` (wrapping).
fn lookups_in(workload: &SearchWorkload, start: usize, count: usize) -> usize {
    (0..count)
        .map(|k| workload.node((start + k) % workload.nodes()).len())
        .sum()
}

/// Nodes per slice: a case's window is timed slice by slice, and the slices' trimmed mean is
/// the round's value, so that a slice an interrupt hit does not move it.
const SLICE_NODES: usize = 32;

/// The warm-in before a case's rounds: lookups enough to read this many times the lines of
/// its footprint (capped at twice the last level: beyond it the lines miss anyway) ...
pub(in super::super) const WARM_IN_READS_PER_LINE: usize = 4;
/// ... or this many times `min_sample` of walking, whichever comes first (under pressure the
/// caches turn over within a few nodes, so the state is steady long before).
pub(in super::super) const WARM_IN_SAMPLES: u32 = 10;

/// What a case's rounds find in the caches: what the block's warm-in before them left, or
/// also their own window, walked once untimed just before it is timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Warming {
    Before,
    EachWindow,
}

/// One timed series (a case with one mask): ns per lookup per round, as the slices' trimmed
/// mean and as their plain mean.
#[derive(Clone, Debug)]
pub(crate) struct TimedSeries {
    pub ns: Vec<f64>,
    pub ns_mean: Vec<f64>,
}

/// The order one call of [`time_chains`] timed its cases' blocks in: the invocation, the
/// call's label (`chain P=512`, `dose`, …) and the cases of the first pass (the second pass
/// takes them in reverse).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct BlockOrder {
    pub invocation: usize,
    pub label: String,
    pub cases: Vec<String>,
    /// Every block as it ran (both passes) and the CPUs it started and ended on (absent before
    /// 2026-11-29-3).
    #[serde(default)]
    pub cpus: Vec<BlockCpu>,
}

/// Where one block ran: its pass (0 or 1), its case, and the CPU at its start (before the
/// warm-in) and at its end (`None` where the kernel does not say).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct BlockCpu {
    pub pass: usize,
    pub case: String,
    pub start: Option<usize>,
    pub end: Option<usize>,
}

/// The order seed of every report before seeds were drawn per run (the summary's `order.seed`
/// then), and of a configuration that names none: E12's chain blocks keep it.
pub(crate) const FIXED_ORDER_SEED: u64 = 0xcbf2_9ce4_8422_2325;

/// The seed every E7 order derives from (the summary's `order.seed`): drawn once per run by
/// the report's process, or given (`kiki report --order-seed`), and handed to every child
/// invocation in the configuration; [`shuffled`] derives each call's and invocation's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderSeed {
    pub value: u64,
    pub source: SeedSource,
}

/// Where a run's [`OrderSeed`] came from (the summary's `order.seed_source`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeedSource {
    /// Drawn afresh by the report's process.
    Drawn,
    /// Given by the user, or by a configuration built without drawing one.
    Given,
}

impl SeedSource {
    pub fn name(self) -> &'static str {
        match self {
            SeedSource::Drawn => "drawn",
            SeedSource::Given => "given",
        }
    }
}

impl OrderSeed {
    /// A seed the user gave, to reproduce a run's orders.
    pub fn given(value: u64) -> OrderSeed {
        OrderSeed {
            value,
            source: SeedSource::Given,
        }
    }

    /// A seed drawn afresh: from the operating system's random source, else (where it fails)
    /// from the system clock and the process id.
    pub fn draw() -> OrderSeed {
        use rand::TryRng;
        let value = rand::rngs::SysRng.try_next_u64().unwrap_or_else(|_| {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            let mixed = nanos ^ (u64::from(std::process::id()) << 32);
            // SplitMix64's finaliser, so that close clock readings give unrelated seeds.
            let mut z = mixed.wrapping_add(0x9e37_79b9_7f4a_7c15);
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        });
        OrderSeed {
            value,
            source: SeedSource::Drawn,
        }
    }
}

impl Default for OrderSeed {
    /// The fixed seed of the reports before per-run seeds, as given.
    fn default() -> OrderSeed {
        OrderSeed::given(FIXED_ORDER_SEED)
    }
}

/// A shuffle of `0..n` seeded from `seed` for invocation `index` and the call labelled
/// `label`: each invocation and each call its own order, the same on every run with the same
/// seed and configuration.
pub(crate) fn shuffled(seed: u64, n: usize, index: usize, label: &str) -> Vec<usize> {
    use rand::{RngExt, SeedableRng};
    // FNV-1a from the order seed over the label, then the invocation: a seed per (call,
    // invocation).
    let mut seed: u64 = seed;
    for byte in label.bytes().chain((index as u64).to_le_bytes()) {
        seed = (seed ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
    }
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        order.swap(i, rng.random_range(0..=i));
    }
    order
}

/// The window (nodes per round) at which the slowest of `cases` lasts `min_sample`: one slice,
/// doubled until it does (or the workload ends).
pub(crate) fn find_window(
    workload: &SearchWorkload,
    cases: &mut [ChainCase<'_>],
    sampling: &SampleConfig,
) -> usize {
    let nodes = workload.nodes();
    let mut window = SLICE_NODES.min(nodes).max(1);
    loop {
        if slowest_window_ns(cases, window) >= sampling.min_sample.as_nanos() as f64
            || window >= nodes
        {
            return window;
        }
        window = (window * 2).min(nodes);
    }
}

/// The longest any of `cases` takes to walk `window` nodes from the first.
fn slowest_window_ns(cases: &mut [ChainCase<'_>], window: usize) -> f64 {
    cases
        .iter_mut()
        .map(|c| {
            let mut ticks = vec![0u64; c.masks.len()];
            time_ns(&mut |_| (c.body)(0, window, &mut ticks), 1)
        })
        .fold(0.0, f64::max)
}

/// Times chain cases, each in a block of its own: an untimed warm-in walk that brings the
/// case's own table lines into the caches as far as its reuse keeps them (see the constants
/// above), then its rounds back to back, each round the next window of nodes slice by slice,
/// the same windows for every case (when cases alternated slice by slice, each case's "no
/// pressure" point carried the others' table and pressure traffic). The blocks run in two
/// passes: the first half of the rounds in a seeded shuffled order ([`shuffled`] of `label`),
/// the second half in reverse, so that a drift over the call favours no case. Returns per case
/// and mask the rounds' [`TimedSeries`], and the first pass's order. Each invocation times its
/// own share of the rounds; [`merge`](fn@super::merge) pools them.
///
/// `window_nodes`, where `Some`, is used as given (so that calls at other pressure counts walk
/// the same nodes in each round); where `None`, [`find_window`] sizes it and it is stored. With
/// [`Warming::EachWindow`] each round first walks its own window once untimed (the walk's first
/// reads of a line then no longer in the time).
#[allow(clippy::too_many_arguments)]
pub(crate) fn time_chains(
    workload: &SearchWorkload,
    cases: &mut [ChainCase<'_>],
    sampling: &SampleConfig,
    (ns_per_tick, last_level): (f64, usize),
    window_nodes: &mut Option<usize>,
    (invocation, warming): (Invocation, Warming),
    (order_seed, label): (u64, &str),
    progress: &mut dyn FnMut(f64),
) -> (Vec<TimedSeries>, BlockOrder) {
    let nodes = workload.nodes();
    let slice = SLICE_NODES.min(nodes);
    let warm_until = Instant::now() + sampling.warmup;
    let window = match *window_nodes {
        Some(given) => given.clamp(1, nodes.max(1)),
        None => find_window(workload, cases, sampling),
    };
    *window_nodes = Some(window);
    // Every case walked at the window until the warm-up time has passed.
    loop {
        slowest_window_ns(cases, window);
        if Instant::now() >= warm_until {
            break;
        }
    }
    let rounds = invocation.rounds(sampling.samples);
    let n = cases.len();
    let per_node = workload.lookups.len() as f64 / nodes.max(1) as f64;
    let mut ns: Vec<Vec<Vec<f64>>> = cases
        .iter()
        .map(|c| vec![Vec::new(); c.masks.len()])
        .collect();
    let mut ns_mean = ns.clone();
    // Invocations start at different nodes: together they cover more of the workload.
    let first_start = (invocation.index * rounds * window) % nodes;
    let order = shuffled(order_seed, n, invocation.index, label);
    let half = rounds.div_ceil(2);
    let passes = [
        (order.clone(), 0..half),
        (
            order.iter().rev().copied().collect::<Vec<usize>>(),
            half..rounds,
        ),
    ];
    let mut blocks_done = 0;
    let mut cpus = Vec::new();
    for (pass, (pass_order, pass_rounds)) in passes.into_iter().enumerate() {
        if pass_rounds.is_empty() {
            continue;
        }
        for &i in &pass_order {
            let start_cpu = current_cpu();
            let case = &mut cases[i];
            let lines = case.footprint.min(2 * last_level) / 64;
            let warm_nodes =
                ((WARM_IN_READS_PER_LINE * lines) as f64 / per_node.max(1.0)).ceil() as usize;
            let warm_nodes = warm_nodes.clamp(window, nodes);
            let deadline = Instant::now() + sampling.min_sample * WARM_IN_SAMPLES;
            let mut scratch = vec![0u64; case.masks.len()];
            let first_round = pass_rounds.start;
            // The warm-in walks the nodes just before the block's first window.
            let block_start = (first_start + first_round * window) % nodes;
            for first in (0..warm_nodes).step_by(slice) {
                let at = (block_start + 2 * nodes - warm_nodes + first) % nodes;
                black_box((case.body)(at, slice.min(warm_nodes - first), &mut scratch));
                if Instant::now() >= deadline {
                    break;
                }
            }
            for round in pass_rounds.clone() {
                let start = (first_start + round * window) % nodes;
                if warming == Warming::EachWindow {
                    for first in (0..window).step_by(slice) {
                        let at = (start + first) % nodes;
                        black_box((case.body)(at, slice.min(window - first), &mut scratch));
                    }
                }
                let mut per_slice: Vec<Vec<f64>> = vec![Vec::new(); case.masks.len()];
                for first in (0..window).step_by(slice) {
                    let count = slice.min(window - first);
                    let at = (start + first) % nodes;
                    let lookups = lookups_in(workload, at, count).max(1) as f64;
                    let mut ticks = vec![0u64; case.masks.len()];
                    black_box((case.body)(at, count, &mut ticks));
                    for (mask, t) in ticks.iter().enumerate() {
                        per_slice[mask].push(*t as f64 * ns_per_tick / lookups);
                    }
                }
                // The slices' mean with the fastest and slowest tenth left out: a slice that
                // an interrupt or another process hit is dropped, and the rest are all used.
                // The plain mean beside it keeps the slow tail a search pays too.
                for (mask, times) in per_slice.iter_mut().enumerate() {
                    ns_mean[i][mask].push(times.iter().sum::<f64>() / times.len().max(1) as f64);
                    ns[i][mask].push(trimmed_mean(times));
                }
            }
            cpus.push(BlockCpu {
                pass,
                case: case.case.clone(),
                start: start_cpu,
                end: current_cpu(),
            });
            blocks_done += pass_rounds.len();
            progress(blocks_done as f64 / (n * rounds).max(1) as f64);
        }
    }
    let measured: Vec<TimedSeries> = ns
        .into_iter()
        .flatten()
        .zip(ns_mean.into_iter().flatten())
        .map(|(ns, ns_mean)| TimedSeries { ns, ns_mean })
        .collect();
    let block_order = BlockOrder {
        invocation: invocation.index,
        label: label.to_string(),
        cases: order.iter().map(|&i| cases[i].case.clone()).collect(),
        cpus,
    };
    (measured, block_order)
}

/// The mean of `values` without their lowest and highest tenth (sorts `values`).
fn trimmed_mean(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let cut = values.len() / 10;
    let kept = &values[cut..values.len() - cut];
    kept.iter().sum::<f64>() / kept.len().max(1) as f64
}

/// One byte load the compiler keeps: the probe's and the calibration's timed load.
///
/// # Safety
/// `address` must point to a live, readable byte.
#[inline(always)]
pub(super) unsafe fn load_byte(address: *const u8) -> u64 {
    // SAFETY: the caller's contract.
    unsafe { std::ptr::read_volatile(address) as u64 }
}

/// A serialised time stamp: `lfence; rdtscp; lfence` on x86-64 (ticks of the invariant TSC),
/// nanoseconds of a monotonic clock elsewhere.
#[inline(always)]
pub(super) fn ticks() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        let mut aux = 0u32;
        // SAFETY: `lfence` and `rdtscp` have no memory effects; every x86-64 CPU kiki runs
        // backends on has them.
        unsafe {
            std::arch::x86_64::_mm_lfence();
            let t = std::arch::x86_64::__rdtscp(&mut aux);
            std::arch::x86_64::_mm_lfence();
            t
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        use std::sync::OnceLock;
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_nanos() as u64
    }
}

/// Nanoseconds per tick of [`ticks`], measured against the monotonic clock over 20 ms.
pub(crate) fn tick_ns() -> f64 {
    let (t0, c0) = (Instant::now(), ticks());
    while t0.elapsed() < Duration::from_millis(20) {
        std::hint::spin_loop();
    }
    let (elapsed, c1) = (t0.elapsed().as_nanos() as f64, ticks());
    elapsed / (c1.saturating_sub(c0).max(1)) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trimmed_mean_drops_the_outer_tenths() {
        let mut values: Vec<f64> = (1..=20).map(f64::from).collect();
        values[0] = 1000.0;
        // Sorted: 2..=20, 1000; the lowest (2) and highest (1000) tenth go.
        assert_eq!(
            trimmed_mean(&mut values),
            (3..=20).sum::<i32>() as f64 / 18.0
        );
    }

    /// Every block order is a permutation, the same for the same seed, call and invocation,
    /// not the same for every invocation or call. The run's seed decides every order: the same
    /// seed gives the same orders (a run given the seed of another reproduces its orders),
    /// another seed other orders; a drawn seed says so, a given one too, and the default is
    /// the fixed seed of the earlier reports.
    #[test]
    fn the_order_seed_decides_the_orders() {
        let seed = FIXED_ORDER_SEED;
        for n in [0, 1, 2, 7, 12] {
            let mut order = shuffled(seed, n, 3, "chain P=512");
            assert_eq!(order, shuffled(seed, n, 3, "chain P=512"));
            order.sort_unstable();
            assert_eq!(order, (0..n).collect::<Vec<_>>());
        }
        let orders: Vec<Vec<usize>> = (0..5).map(|i| shuffled(seed, 12, i, "chain P=0")).collect();
        assert!(orders.windows(2).any(|w| w[0] != w[1]), "{orders:?}");
        assert_ne!(
            shuffled(seed, 12, 0, "chain P=0"),
            shuffled(seed, 12, 0, "chain P=8")
        );
        let orders = |seed: u64| -> Vec<Vec<usize>> {
            (0..5)
                .flat_map(|i| {
                    ["pressure counts", "chain P=0", "dose"]
                        .map(|label| shuffled(seed, 12, i, label))
                })
                .collect()
        };
        let seed = 0x1234_5678_9abc_def0;
        assert_eq!(orders(seed), orders(seed));
        assert_ne!(orders(seed), orders(seed + 1));
        assert_ne!(orders(seed), orders(FIXED_ORDER_SEED));
        // Every single order differs somewhere between two seeds, not just one of them.
        let (a, b) = (orders(1), orders(2));
        assert!(
            a.iter().zip(&b).filter(|(x, y)| x != y).count() > a.len() / 2,
            "{a:?} {b:?}"
        );
        assert_eq!(OrderSeed::given(7).source, SeedSource::Given);
        assert_eq!(OrderSeed::given(7).value, 7);
        assert_eq!(OrderSeed::default(), OrderSeed::given(FIXED_ORDER_SEED));
        let drawn = [OrderSeed::draw(), OrderSeed::draw()];
        assert!(drawn.iter().all(|d| d.source == SeedSource::Drawn));
        assert_ne!(drawn[0].value, drawn[1].value, "two draws gave one seed");
        // As the configuration carries it to the child invocations.
        let json = serde_json::to_string(&OrderSeed::given(u64::MAX)).unwrap();
        assert_eq!(json, r#"{"value":18446744073709551615,"source":"given"}"#);
        assert_eq!(
            serde_json::from_str::<OrderSeed>(&json).unwrap(),
            OrderSeed::given(u64::MAX)
        );
    }

    /// Blocks run in two passes, the second in the reverse order of the first, each case's
    /// rounds split between them; every case records every round, and the first pass's order
    /// is the one returned.
    #[test]
    fn blocks_run_forward_then_in_reverse() {
        use std::cell::RefCell;
        let workload = crate::workloads::search_order(7, 64);
        let log: RefCell<Vec<(usize, usize, usize)>> = RefCell::new(Vec::new());
        let mut cases: Vec<ChainCase<'_>> = (0..4)
            .map(|c| ChainCase {
                case: format!("case {c}"),
                masks: vec!["full".into()],
                footprint: 64,
                body: Box::new({
                    let log = &log;
                    move |at: usize, count: usize, ticks: &mut [u64]| {
                        ticks[0] = 1;
                        log.borrow_mut().push((c, at, count));
                        0u64
                    }
                }) as ChainBody<'_>,
            })
            .collect();
        let sampling = SampleConfig {
            warmup: Duration::ZERO,
            samples: 6,
            min_sample: Duration::ZERO,
        };
        let mut window = Some(SLICE_NODES);
        let (results, order) = time_chains(
            &workload,
            &mut cases,
            &sampling,
            (1.0, 1 << 20),
            &mut window,
            (Invocation::ONLY, Warming::Before),
            (FIXED_ORDER_SEED, "test"),
            &mut |_| {},
        );
        assert!(
            results
                .iter()
                .all(|r| r.ns.len() == 6 && r.ns_mean.len() == 6),
            "{results:?}"
        );
        let first: Vec<usize> = shuffled(FIXED_ORDER_SEED, 4, 0, "test");
        assert_eq!(
            order.cases,
            first
                .iter()
                .map(|c| format!("case {c}"))
                .collect::<Vec<_>>()
        );
        // The calls in the order they ran: the warm-up walks every case once (the given
        // window, no warm-up time), then each block is one warm-in slice and its three rounds
        // (a window of one slice each), the blocks forward and then reversed.
        let log = log.borrow();
        assert_eq!(log.len(), 4 + 8 * 4, "{log:?}");
        let blocks: Vec<usize> = log[4..]
            .chunks(4)
            .map(|block| {
                assert!(block.iter().all(|call| call.0 == block[0].0), "{block:?}");
                block[0].0
            })
            .collect();
        let mut expected = first.clone();
        expected.extend(first.iter().rev());
        assert_eq!(blocks, expected);
        // Every block's CPU recorded as it ran, passes and cases in that order.
        let ran: Vec<(usize, String)> = order
            .cpus
            .iter()
            .map(|b| (b.pass, b.case.clone()))
            .collect();
        let expected: Vec<(usize, String)> = expected
            .iter()
            .enumerate()
            .map(|(k, c)| (k / 4, format!("case {c}")))
            .collect();
        assert_eq!(ran, expected);
        assert!(order
            .cpus
            .iter()
            .all(|b| b.start.is_some() && b.end.is_some()));
    }
}
