//! E7's measuring: the isolated table-miss cost (dependent chains after pressure, against each
//! backend's hot twin), its controls, the dose–response, the survival probe, the table-page
//! split and the free-running bracket, all into a [`Measurement`].

use super::{BRACKET_READS, EVAL_ALONE, HOT_MASK};
use crate::cache_levels::CacheLevels;
use crate::experiments::{convert, fold, lookup, typical, Config, Input, Progress, MIXED};
use crate::invocations::{gather, merge_rows, union, Invocation};
use crate::measure::{interleaved, time_ns, Case, SampleConfig};
use crate::workloads::{self, eval_index, LookupItem, SearchWorkload};
use kiki_core::backend::{Backend, Bitboard};
use kiki_core::pages::{collapse_to_huge_pages, huge_page_bytes_of, PageBuffer, Pages};
use kiki_core::types::Square;
use kiki_core::units::rounded_bytes;
use kiki_variants::registry::{self, BackendVisitor};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Everything E7 measured, and the settings the method paragraph reports.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct Measurement {
    #[serde(with = "crate::invocations::static_str::vec")]
    pub backends: Vec<&'static str>,
    /// Backends asked for but not measured, with the reason.
    pub skipped: Vec<String>,
    /// The cache levels the sizes come from (E6's, or a short pointer chase's).
    pub levels: CacheLevels,
    pub workload: String,
    /// The pressure buffer (huge pages): its bytes, and the huge-page bytes granted.
    pub pressure_bytes: usize,
    pub pressure_huge: Option<usize>,
    /// Pressure reads per node of the chain sweep, 0 first.
    pub pressure_reads: Vec<u32>,
    /// Nanoseconds per time-stamp tick (measured against the monotonic clock).
    pub ns_per_tick: f64,
    pub sampling: SampleConfig,
    /// The positive controls' synthetic tables: what each is sized after (half the measured
    /// L2, half the last level, the pressure buffer in memory) and its bytes.
    pub synthetic: Vec<(String, usize)>,
    /// The dose–response's byte masks below the full table, sized from the measured levels.
    pub dose_masks: Vec<usize>,
    /// The A/A control's backend (the one with the largest attack tables): its full-table chain
    /// timed twice per node, as if it were its own twin.
    #[serde(with = "crate::invocations::static_str::option")]
    pub aa_backend: Option<crate::invocations::StaticStr>,
    /// Every chain point: per round, ns per lookup.
    pub chains: Vec<Chain>,
    /// The survival probe's backend, and per pressure count the timed reloads of the node's
    /// table lines (ns each).
    #[serde(with = "crate::invocations::static_str::option")]
    pub survival_backend: Option<crate::invocations::StaticStr>,
    pub survival: Vec<(u32, Reloads)>,
    /// The survival classes' calibration (with the probe).
    pub calibration: Option<Calibration>,
    /// The table-page split: per backend, huge-page bytes of its attack tables before and
    /// after collapsing them (and the attack-table bytes).
    pub table_pages: Vec<TablePages>,
    /// Per backend with attack tables: the reuse of its table lines along the workload.
    pub reuse: Vec<Reuse>,
    /// The free-running bracket: ns per iteration at E = 0 and E = pressure bytes.
    pub bracket: Vec<Bracket>,
    pub bracket_lookups: usize,
    /// Sentences for the method paragraph (failed `madvise`, skipped parts).
    pub notes: Vec<String>,
    pub threshold: f64,
    /// Which invocation measured (the first, once merged).
    pub invocation: Invocation,
    /// The process invocations pooled here (1 as measured; K once merged).
    pub invocations: usize,
}

/// K invocations' measurements as one: every chain's, reload's, calibration load's and
/// bracket's rounds one invocation after another; the pressure buffer's and the calibration's
/// grants and steps the least of any; a collapse refused if any kernel refused it (the bytes the
/// first's); every note; the rest from the first.
pub(super) fn merge(parts: &[Measurement]) -> Result<Measurement, String> {
    let first = parts.first().ok_or("nothing measured")?;
    let chains = merge_rows(
        &gather(parts, |p| &p.chains),
        |c| {
            (
                c.part,
                c.reads,
                c.case.clone(),
                c.mask.clone(),
                c.tables,
                c.pressure,
            )
        },
        |into, from| into.ns.extend(&from.ns),
    )?;
    let survival = merge_rows(
        &gather(parts, |p| &p.survival),
        |(reads, _)| *reads,
        |(_, into), (_, from)| into.extend(from),
    )?;
    let table_pages = merge_rows(
        &gather(parts, |p| &p.table_pages),
        |t| t.backend,
        |into, from| {
            if into.collapse.is_ok() {
                into.collapse = from.collapse.clone();
            }
        },
    )?;
    let bracket = merge_rows(
        &gather(parts, |p| &p.bracket),
        |b| (b.bytes, b.case.clone()),
        |into, from| into.ns.extend(&from.ns),
    )?;
    let least = |grants: Vec<Option<usize>>| -> Option<usize> {
        grants
            .into_iter()
            .try_fold(usize::MAX, |a, b| Some(a.min(b?)))
    };
    let calibration = parts
        .iter()
        .map(|p| p.calibration.clone())
        .collect::<Option<Vec<Calibration>>>()
        .map(|all| {
            let mut merged = all[0].clone();
            for other in &all[1..] {
                for (into, from) in merged.loads.iter_mut().zip(&other.loads) {
                    into.extend(from);
                }
                merged.step_ns = merged.step_ns.min(other.step_ns);
            }
            merged.samples = merged.loads[0].ns.len();
            for (median, loads) in merged.medians.iter_mut().zip(&merged.loads) {
                *median = typical(&loads.ns, parts.len());
            }
            merged
        });
    Ok(Measurement {
        chains,
        survival,
        calibration,
        table_pages,
        bracket,
        pressure_huge: least(parts.iter().map(|p| p.pressure_huge).collect()),
        notes: union(parts.iter().map(|p| p.notes.clone())),
        invocations: parts.len(),
        ..first.clone()
    })
}

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
    pub ns: Vec<f64>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct TablePages {
    #[serde(with = "crate::invocations::static_str")]
    pub backend: crate::invocations::StaticStr,
    pub table_bytes: usize,
    pub huge_before: Option<usize>,
    pub huge_after: Option<usize>,
    pub collapse: Result<(), String>,
}

/// The reuse of one backend's attack-table lines along the search-order walk (its own table
/// reads only, in order): how many lookups read them, how many distinct lines it touches and the
/// LRU stack distance of every read, bucketed by powers of two, from which the misses of any
/// fully associative LRU cache of 64 × 2^j bytes follow.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Reuse {
    #[serde(with = "crate::invocations::static_str")]
    pub backend: crate::invocations::StaticStr,
    /// Lookups along the walk (a lookup may read more than one table line, or none).
    pub lookups: u64,
    pub reads: u64,
    /// First reads of a line (misses in any cache).
    pub cold: u64,
    pub distinct_lines: usize,
    /// `buckets[0]`: distance 0 (the line read last); `buckets[k]`: distances in
    /// [2^(k-1), 2^k) distinct lines.
    pub buckets: Vec<u64>,
}

impl Reuse {
    /// The misses of a fully associative LRU cache of `bytes` (rounded down to 64 × 2^j): the
    /// cold ones and the reuses at a stack distance of that many lines or more.
    pub fn misses(&self, bytes: usize) -> u64 {
        let lines = (bytes / 64).max(1);
        let j = usize::BITS - 1 - lines.leading_zeros();
        let far: u64 = self.buckets.iter().skip(j as usize + 1).sum();
        self.cold + far
    }

    /// [`Reuse::misses`] per lookup of the walk.
    pub fn misses_per_lookup(&self, bytes: usize) -> f64 {
        self.misses(bytes) as f64 / self.lookups.max(1) as f64
    }

    /// The cold misses per lookup: what a cache of any size still misses.
    pub fn cold_per_lookup(&self) -> f64 {
        self.cold as f64 / self.lookups.max(1) as f64
    }
}

/// The reuse of `name`'s attack-table lines along `workload` (nothing timed: the same in every
/// process).
fn reuse_of(name: &'static str, workload: &SearchWorkload) -> Option<Reuse> {
    struct Lines<'w>(&'w SearchWorkload);
    impl BackendVisitor for Lines<'_> {
        type Output = (Vec<u64>, u64);
        fn visit<B: Backend>(self, backend: B) -> (Vec<u64>, u64) {
            let mut lines = Vec::new();
            let mut offsets = Vec::new();
            let mut lookups = 0u64;
            for node in 0..self.0.nodes() {
                let occupancy = backend.occupancy(self.0.occupancies[node]);
                for &(slider, square) in self.0.node(node) {
                    offsets.clear();
                    backend.attack_table_offsets(slider, &occupancy, square, &mut offsets);
                    lines.extend(offsets.iter().map(|&o| (o / 64) as u64));
                    lookups += 1;
                }
            }
            (lines, lookups)
        }
    }
    let (lines, lookups) = registry::visit(name, Lines(workload)).ok()?;
    if lines.is_empty() {
        return None;
    }
    Some(stack_distances(name, &lines, lookups))
}

/// LRU stack distances of `lines` (Bennett and Kruskal's method: a Fenwick tree over access
/// times marks each line's latest access; a reuse's distance is the marks since its last one),
/// for a walk of `lookups` lookups.
fn stack_distances(backend: &'static str, lines: &[u64], lookups: u64) -> Reuse {
    let n = lines.len();
    let mut tree = vec![0u32; n + 1];
    let add = |tree: &mut Vec<u32>, at: usize, delta: i32| {
        let mut i = at + 1;
        while i <= n {
            tree[i] = (tree[i] as i64 + delta as i64) as u32;
            i += i & i.wrapping_neg();
        }
    };
    let prefix = |tree: &Vec<u32>, at: usize| {
        // Marks at times 0..at.
        let (mut i, mut total) = (at, 0u64);
        while i > 0 {
            total += tree[i] as u64;
            i -= i & i.wrapping_neg();
        }
        total
    };
    let mut last: std::collections::HashMap<u64, usize> = std::collections::HashMap::new();
    let mut buckets = vec![0u64; 40];
    let mut cold = 0u64;
    for (time, &line) in lines.iter().enumerate() {
        match last.insert(line, time) {
            Some(before) => {
                let distance = prefix(&tree, time) - prefix(&tree, before + 1);
                let bucket = (u64::BITS - distance.leading_zeros()) as usize;
                buckets[bucket.min(39)] += 1;
                add(&mut tree, before, -1);
            }
            None => cold += 1,
        }
        add(&mut tree, time, 1);
    }
    Reuse {
        backend,
        lookups,
        reads: n as u64,
        cold,
        distinct_lines: last.len(),
        buckets,
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Bracket {
    pub bytes: usize,
    pub case: String,
    pub ns: Vec<f64>,
}

/// A mask of a table footprint: its label and the byte mask (`usize::MAX` for the whole table).
pub(super) fn mask_label(mask: usize) -> String {
    if mask == usize::MAX {
        "full".to_string()
    } else {
        rounded_bytes((mask + 1) as f64)
    }
}

/// The dose–response footprints below the full table (byte masks): half the measured L2,
/// half the last level and twice the last level, each rounded down to a power of two (a mask
/// keeps whole low bits), above the hot twin's 4 KiB and without repeats.
pub(super) fn dose_masks(levels: &CacheLevels) -> Vec<usize> {
    let l2 = levels.level("L2").map_or(256 << 10, |l| l.bytes);
    let last = levels.last_level_bytes();
    let mut masks: Vec<usize> = [l2 / 2, last / 2, 2 * last]
        .iter()
        .map(|&bytes| (1usize << (usize::BITS - 1 - bytes.max(1).leading_zeros())) - 1)
        .filter(|&mask| mask > HOT_MASK)
        .collect();
    masks.dedup();
    masks
}

/// The label of the synthetic table of one page: the negative control that runs the masked
/// path (mailbox and sqww ignore the mask).
pub(super) const ONE_PAGE: &str = "one page";

/// The synthetic tables' sizes: one page (a negative control), then the positive controls':
/// half the measured L2, half the last level (where that
/// differs), and `memory_bytes` (the pressure buffer's size, 4× the last level or more).
pub(super) fn synthetic_sizes(levels: &CacheLevels, memory_bytes: usize) -> Vec<(String, usize)> {
    // First the masked negative control: one page, read whole by the real chain and by its
    // twin alike, so any cost it shows is the method's, not a miss's.
    let mut sizes = vec![(ONE_PAGE.to_string(), HOT_MASK + 1)];
    if let Some(l2) = levels.level("L2") {
        sizes.push(("½ L2".to_string(), l2.bytes / 2));
    }
    let last = levels.levels.last();
    if let Some(last) = last.filter(|l| l.level != "L2" && l.level != "L1") {
        sizes.push((format!("½ {}", last.level), last.bytes / 2));
    }
    sizes.push(("memory".to_string(), memory_bytes));
    sizes
}

/// The case name of a positive control's synthetic table.
pub(super) fn synthetic_case(label: &str) -> String {
    format!("{} ({label})", super::SYNTHETIC)
}

/// The case name of the A/A control on `backend`, and its second mask's label.
pub(super) fn aa_case(backend: &str) -> String {
    format!("{backend} A/A")
}
pub(super) const AA_SECOND: &str = "full, again";

/// The nodes and lookups a chain case walks, with the pressure buffer it reads.
struct Walk<'a> {
    workload: &'a SearchWorkload,
    pressure: &'a [u64],
    reads: u32,
    /// Each case's own pressure stream: cases alternate within ~100 µs, and a case that read
    /// the addresses another case just read would find them cached instead of inserting them.
    stream: u64,
}

/// P reads of the pressure buffer for node `node`, their indices salted value-neutrally by
/// `salt` (the previous chain's result ANDed with zero): the reads cannot start before the
/// previous node's lookups finish. Each case reads its own stream of random addresses.
#[inline(always)]
fn pressure_sum(walk: &Walk<'_>, node: usize, salt: u64) -> u64 {
    let len = walk.pressure.len();
    let first = (walk.stream << 40) + node as u64 * walk.reads as u64;
    let mut sum = 0u64;
    for read in 0..walk.reads as u64 {
        sum = sum.wrapping_add(walk.pressure[eval_index((first + read) ^ salt, len)]);
    }
    sum
}

/// A chain body over nodes `start..start + count` (wrapping): per node, P pressure reads, then
/// the node's lookups as one dependent chain once per mask, each chain timed alone between
/// serialising time stamps (so the pressure phase is outside every timing) and the masks taking
/// turns at going first (whichever runs first finds the per-square metadata colder). Adds each
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
/// depth-first order correlates with what a node costs (measured: alternating by parity gave
/// the identical-code negative controls ±1 ns at 256 pressure reads, its sign flipping with the
/// parity rule).
#[inline(always)]
fn first_turn(node: usize) -> usize {
    (eval_index(node as u64, 1 << 16) >> 7) & 0xFF
}

/// The positive control's body, shaped like [`chain_body`]: a table of known size read at
/// random, one read per lookup of the node, each index salted by the previous read.
fn synthetic_body<'a>(
    table: &'a [u64],
    walk: Walk<'a>,
    masks: Vec<usize>,
) -> impl FnMut(usize, usize, &mut [u64]) -> u64 + 'a {
    let zero = black_box(0u64);
    move |start, count, ticks_out| {
        let nodes = walk.workload.nodes();
        let mut link = 0u64;
        let mut checksum = 0u64;
        for k in 0..count {
            let node = (start + k) % nodes;
            let sum = pressure_sum(&walk, node, link & zero);
            link = sum & zero;
            let first = walk.workload.starts[node] as u64;
            let settle = HOT_MASK >> 3;
            for j in 0..walk.workload.node(node).len() as u64 {
                link = table[eval_index((first + j) ^ link, table.len()) & settle] & zero;
            }
            for turn in 0..masks.len() {
                let which = (turn + first_turn(node)) % masks.len();
                let element_mask = masks[which] >> 3;
                let before = ticks();
                for j in 0..walk.workload.node(node).len() as u64 {
                    let index = eval_index((first + j) ^ link, table.len()) & element_mask;
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

/// One chain case: a backend (or the synthetic table) with its masks, and its body over a
/// window of nodes.
struct ChainCase<'a> {
    case: String,
    masks: Vec<String>,
    /// The table bytes its widest mask reads (what its warm-in must bring into the caches).
    footprint: usize,
    body: ChainBody<'a>,
}

/// A chain case's body: `(first node, nodes, ticks per mask) -> checksum`.
type ChainBody<'a> = Box<dyn FnMut(usize, usize, &mut [u64]) -> u64 + 'a>;

struct MakeChain<'a> {
    workload: &'a SearchWorkload,
    pressure: &'a [u64],
    reads: u32,
    masks: Vec<usize>,
    /// The case's own pressure stream.
    stream: u64,
    /// Labels for the masks where they are not the masks' own (the A/A control's).
    labels: Option<Vec<String>>,
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
pub(super) const WARM_IN_READS_PER_LINE: usize = 4;
/// ... or this many times `min_sample` of walking, whichever comes first (under pressure the
/// caches turn over within a few nodes, so the state is steady long before).
pub(super) const WARM_IN_SAMPLES: u32 = 10;

/// Times chain cases, each in a block of its own: an untimed warm-in walk that brings the
/// case's own table lines into the caches as far as its reuse keeps them (see the constants
/// above), then all its rounds back to back. A round walks a window of nodes slice by slice
/// (the next window in the next round, so no sample repeats a node until the workload wraps),
/// and every case walks the same windows. No case is timed among another case's tables or
/// pressure lines: when cases alternated slice by slice, each case's "no pressure" point
/// carried the other cases' table and pressure traffic, and a short warm-in left a table that
/// fits the cache half cold. The case order rotates from invocation to invocation. Inside a
/// case every node's chain is timed per mask (see [`chain_body`]). Returns per case and mask,
/// per round, the trimmed mean over the window's slices of ns per lookup. Each invocation
/// times its own share of the rounds; [`merge`] pools them.
///
/// `window` is the window in nodes: when `Some`, it is used as given (so that calls at other
/// pressure counts walk the very same nodes in each round, and a round's values pair across
/// them); when `None`, it is sized so that the slowest case's window lasts `min_sample`, and
/// stored there (when measuring live).
fn time_chains(
    workload: &SearchWorkload,
    cases: &mut [ChainCase<'_>],
    sampling: &SampleConfig,
    (ns_per_tick, last_level): (f64, usize),
    window_nodes: &mut Option<usize>,
    invocation: Invocation,
    progress: &mut dyn FnMut(f64),
) -> Vec<(String, Vec<f64>, Vec<f64>)> {
    let names: Vec<String> = cases
        .iter()
        .flat_map(|c| {
            c.masks
                .iter()
                .map(move |mask| format!("{} [{mask}]", c.case))
        })
        .collect();
    let measured = {
        let nodes = workload.nodes();
        let slice = SLICE_NODES.min(nodes);
        // Window: as given, or enough slices that the slowest case's window lasts
        // `min_sample`.
        let given = *window_nodes;
        let mut window = given.unwrap_or(slice).clamp(1, nodes.max(1));
        let warm_until = Instant::now() + sampling.warmup;
        loop {
            let slowest = cases
                .iter_mut()
                .map(|c| {
                    let mut ticks = vec![0u64; c.masks.len()];
                    time_ns(&mut |_| (c.body)(0, window, &mut ticks), 1)
                })
                .fold(0.0, f64::max);
            if given.is_some()
                || slowest >= sampling.min_sample.as_nanos() as f64
                || window >= nodes
            {
                if Instant::now() >= warm_until {
                    break;
                }
            } else {
                window = (window * 2).min(nodes);
            }
        }
        *window_nodes = Some(window);
        let offset = invocation.index;
        let rounds = invocation.rounds(sampling.samples);
        let n = cases.len();
        let per_node = workload.lookups.len() as f64 / nodes.max(1) as f64;
        let mut ns: Vec<Vec<Vec<f64>>> = cases
            .iter()
            .map(|c| vec![Vec::new(); c.masks.len()])
            .collect();
        // Invocations start at different nodes: together they cover more of the workload.
        let first_start = (offset * rounds * window) % nodes;
        for k in 0..n {
            let i = (k + offset) % n;
            let case = &mut cases[i];
            let lines = case.footprint.min(2 * last_level) / 64;
            let warm_nodes =
                ((WARM_IN_READS_PER_LINE * lines) as f64 / per_node.max(1.0)).ceil() as usize;
            let warm_nodes = warm_nodes.clamp(window, nodes);
            let deadline = Instant::now() + sampling.min_sample * WARM_IN_SAMPLES;
            let mut scratch = vec![0u64; case.masks.len()];
            for first in (0..warm_nodes).step_by(slice) {
                let at = (first_start + 2 * nodes - warm_nodes + first) % nodes;
                black_box((case.body)(at, slice.min(warm_nodes - first), &mut scratch));
                if Instant::now() >= deadline {
                    break;
                }
            }
            let mut start = first_start;
            for round in 0..rounds {
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
                for (mask, times) in per_slice.iter_mut().enumerate() {
                    ns[i][mask].push(trimmed_mean(times));
                }
                start = (start + window) % nodes;
                progress((k * rounds + round + 1) as f64 / (n * rounds) as f64);
            }
        }
        names
            .iter()
            .cloned()
            .zip(ns.into_iter().flatten())
            .map(|(name, ns)| (name, ns, Vec::new()))
            .collect::<Vec<_>>()
    };
    debug_assert!(measured.iter().zip(&names).all(|(r, n)| &r.0 == n));
    measured
}

/// The mean of `values` without their lowest and highest tenth (sorts `values`).
fn trimmed_mean(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let cut = values.len() / 10;
    let kept = &values[cut..values.len() - cut];
    kept.iter().sum::<f64>() / kept.len().max(1) as f64
}

/// Stores `results` (per case and mask, in `cases`' order) as chain points.
fn push_chains(
    m: &mut Measurement,
    cases: &[ChainCase<'_>],
    results: Vec<(String, Vec<f64>, Vec<f64>)>,
    part: &'static str,
    reads: u32,
    (tables, pressure): (&'static str, &'static str),
) {
    let labels = cases.iter().flat_map(|c| {
        c.masks
            .iter()
            .map(move |mask| (c.case.clone(), mask.clone()))
    });
    for ((case, mask), (_, ns, _)) in labels.zip(results) {
        m.chains.push(Chain {
            part,
            reads,
            case,
            mask,
            tables,
            pressure,
            ns,
        });
    }
}

fn sampling(config: &Config) -> SampleConfig {
    config.pick(
        SampleConfig {
            warmup: Duration::from_micros(200),
            samples: 3,
            min_sample: Duration::from_micros(200),
        },
        SampleConfig {
            warmup: Duration::from_millis(5),
            samples: 8,
            min_sample: Duration::from_millis(3),
        },
        SampleConfig {
            warmup: Duration::from_millis(20),
            samples: 60,
            min_sample: Duration::from_millis(20),
        },
    )
}

/// Progress over the parts: part `done` of `total`.
struct Steps<'a> {
    progress: Progress<'a>,
    done: usize,
    total: usize,
}

impl Steps<'_> {
    fn report(&mut self, message: &str, fraction: f64) {
        let base = self.done as f64 / self.total as f64;
        (self.progress)(message, base + fraction / self.total as f64);
    }
}

/// Measures everything E7 reports: the chain sweep over pressure (with the positive control and
/// the dose–response at the highest pressure), the survival probe, the free-running bracket and,
/// last because it cannot be undone in this process, the table-page split.
pub(super) fn measure(
    config: &Config,
    levels: CacheLevels,
    invocation: Invocation,
    progress: Progress<'_>,
) -> Measurement {
    let (backends, skipped) = config.backend_names();
    progress("generating the search-order workload", 0.0);
    let nodes = config.pick(600, 20_000, 100_000);
    let workload = workloads::search_order(config.seed ^ 0xE7, nodes);
    let last_level = levels.last_level_bytes();
    // At least 4× the effective last level, in whole huge pages.
    let pressure_bytes = config
        .pick(
            4 << 20,
            (4 * last_level).max(32 << 20),
            (4 * last_level).max(32 << 20),
        )
        .div_ceil(2 << 20)
        * (2 << 20);
    let pressure_reads: Vec<u32> =
        config.pick(vec![0, 16], vec![0, 32, 256], vec![0, 8, 32, 128, 512]);
    let ns_per_tick = tick_ns();
    let synthetic = synthetic_sizes(&levels, pressure_bytes);
    let dose = dose_masks(&levels);
    let mut m = Measurement {
        workload: workload.description.clone(),
        backends,
        skipped,
        levels,
        pressure_bytes,
        pressure_huge: None,
        pressure_reads,
        ns_per_tick,
        sampling: sampling(config),
        synthetic,
        dose_masks: dose,
        aa_backend: None,
        chains: Vec::new(),
        survival_backend: None,
        survival: Vec::new(),
        calibration: None,
        table_pages: Vec::new(),
        reuse: Vec::new(),
        bracket: Vec::new(),
        bracket_lookups: 0,
        notes: Vec::new(),
        threshold: config.threshold,
        invocation,
        invocations: 1,
    };
    let pressure = PageBuffer::new(pressure_bytes, Pages::Huge, |i| i as u64);
    if let Err(error) = &pressure.advice {
        m.notes
            .push(format!("madvise for the pressure buffer failed: {error}"));
    }
    // What the kernel granted this process (merged: the smallest grant of any).
    m.pressure_huge = pressure.huge_page_bytes();
    let synthetic: Vec<PageBuffer> = m
        .synthetic
        .iter()
        .map(|(_, bytes)| PageBuffer::new(*bytes, Pages::Huge, |i| i as u64 * 0x9E37))
        .collect();
    let total = m.pressure_reads.len() + 4;
    let mut steps = Steps {
        progress,
        done: 0,
        total,
    };
    let tables: Vec<&[u64]> = synthetic.iter().map(PageBuffer::as_slice).collect();
    chain_sweep(&mut m, &workload, pressure.as_slice(), &tables, &mut steps);
    drop(tables);
    survival(&mut m, &workload, pressure.as_slice(), &mut steps);
    m.reuse = m
        .backends
        .iter()
        .filter_map(|&name| reuse_of(name, &workload))
        .collect();
    bracket(&mut m, &workload, &mut steps);
    drop(synthetic);
    table_pages(&mut m, &workload, &pressure, &mut steps);
    (steps.progress)("done", 1.0);
    m
}

/// Every backend (full table and hot twin), the synthetic tables and the A/A control at every
/// pressure; then, at the highest pressure, the dose–response.
fn chain_sweep(
    m: &mut Measurement,
    workload: &SearchWorkload,
    pressure: &[u64],
    synthetic: &[&[u64]],
    steps: &mut Steps<'_>,
) {
    let highest = m.pressure_reads.last().copied().unwrap_or(0);
    m.aa_backend = m
        .backends
        .iter()
        .copied()
        .map(|name| (name, attack_table_bytes(name)))
        .filter(|&(_, bytes)| bytes > HOT_MASK + 1)
        .max_by_key(|&(_, bytes)| bytes)
        .map(|(name, _)| name);
    // The top count first: its window (the smallest, since the untimed pressure phase dominates
    // a node there) is then used at every count, so that round r walks the same nodes at every
    // P and the changes from P = 0 pair node for node.
    let mut window = None;
    let mut order = m.pressure_reads.clone();
    order.sort_by_key(|&reads| std::cmp::Reverse(reads == highest));
    for reads in order {
        let mut cases: Vec<ChainCase<'_>> = Vec::new();
        for name in &m.backends {
            let made = MakeChain {
                workload,
                pressure,
                reads,
                masks: vec![usize::MAX, HOT_MASK],
                stream: cases.len() as u64,
                labels: None,
            };
            if let Ok(made) = registry::visit(name, made) {
                cases.push(made);
            }
        }
        if let Some(name) = m.aa_backend {
            let made = MakeChain {
                workload,
                pressure,
                reads,
                masks: vec![usize::MAX, usize::MAX],
                stream: cases.len() as u64,
                labels: Some(vec![mask_label(usize::MAX), AA_SECOND.to_string()]),
            };
            if let Ok(mut made) = registry::visit(name, made) {
                made.case = aa_case(name);
                cases.push(made);
            }
        }
        for ((label, _), table) in m.synthetic.iter().zip(synthetic) {
            let masks = vec![usize::MAX, HOT_MASK];
            cases.push(ChainCase {
                footprint: table.len() * 8,
                case: synthetic_case(label),
                masks: masks.iter().map(|&mask| mask_label(mask)).collect(),
                body: Box::new(synthetic_body(
                    table,
                    Walk {
                        workload,
                        pressure,
                        reads,
                        stream: cases.len() as u64,
                    },
                    masks,
                )),
            });
        }
        let message = format!("{reads} pressure reads per node");
        let results = time_chains(
            workload,
            &mut cases,
            &m.sampling,
            (m.ns_per_tick, m.levels.last_level_bytes()),
            &mut window,
            m.invocation,
            &mut |f| steps.report(&message, f),
        );
        push_chains(m, &cases, results, "chain", reads, ("as built", "huge"));
        steps.done += 1;
    }
    // The dose–response at the top pressure, full tables included, in one sweep of its own: a
    // case per backend and footprint (two masks of one backend in one case would share table
    // lines: an index below the smaller mask reads the same line under both).
    let mut cases: Vec<ChainCase<'_>> = Vec::new();
    for name in &m.backends {
        let table = attack_table_bytes(name);
        let masks: Vec<usize> = m
            .dose_masks
            .iter()
            .copied()
            .filter(|&mask| mask + 1 < table)
            .collect();
        if masks.is_empty() {
            continue;
        }
        for mask in masks.into_iter().chain([usize::MAX]) {
            let made = MakeChain {
                workload,
                pressure,
                reads: highest,
                masks: vec![mask, HOT_MASK],
                stream: cases.len() as u64,
                labels: None,
            };
            if let Ok(mut made) = registry::visit(name, made) {
                made.case = dose_case(name, mask);
                cases.push(made);
            }
        }
    }
    if !cases.is_empty() {
        let results = time_chains(
            workload,
            &mut cases,
            &m.sampling,
            (m.ns_per_tick, m.levels.last_level_bytes()),
            &mut window,
            m.invocation,
            &mut |f| steps.report("dose–response", f),
        );
        push_chains(m, &cases, results, "dose", highest, ("as built", "huge"));
    }
    steps.done += 1;
}

/// The case name of `backend`'s dose–response point at `mask`.
pub(super) fn dose_case(backend: &str, mask: usize) -> String {
    format!("{backend} @ {}", mask_label(mask))
}

/// A backend's attack-table bytes (what the mask applies to); 0 where it has none.
pub(super) fn attack_table_bytes(name: &str) -> usize {
    struct Bytes;
    impl BackendVisitor for Bytes {
        type Output = usize;
        fn visit<B: Backend>(self, backend: B) -> usize {
            backend.attack_table_memory().iter().map(|t| t.len()).sum()
        }
    }
    registry::visit(name, Bytes).unwrap_or(0)
}

/// Pressure counts of the survival probe: 0, 8, 32, … by fours, up to the first count whose
/// reads insert at least 4× the effective last level (P × 64 B), so that the last counts leave
/// the node's lines nowhere but in memory on any CPU.
pub(super) fn survival_reads(smoke: bool, last_level_bytes: usize) -> Vec<u32> {
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

/// The survival probe on the backend with the largest attack tables: first its calibration
/// (single timed loads of its own table lines placed in each level), then per node its lookups
/// once (to bring their lines in), P pressure reads, then one timed load of each table line the
/// lookups read, with the calibration's own wrapper.
fn survival(
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
        let mut cases = registry::visit(name, probe).unwrap_or_default();
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

/// Timed single loads, ns each, and the invocation that timed each one (for resampling).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Reloads {
    pub ns: Vec<f64>,
    pub invocation: Vec<f64>,
}

impl Reloads {
    /// Another invocation's reloads after these.
    fn extend(&mut self, other: &Reloads) {
        self.ns.extend(&other.ns);
        self.invocation.extend(&other.invocation);
    }
}

/// The byte address of every attack-table line `offsets` name, in first-read order, once each:
/// `offsets` index the concatenation of `memory` (as [`Backend::attack_table_offsets`] says).
fn table_lines(memory: &[&'static [u8]], offsets: &[usize], out: &mut Vec<*const u8>) {
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

/// The classes a survival reload falls into, in order; also the calibration's cases.
pub(super) const SURVIVAL_LEVELS: [&str; 4] = ["L1", "L2", "LL", "memory"];

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

/// The calibration of `backend`'s table lines, its sizes from the measured levels (never
/// sysfs): `per_level` timed loads per level in this invocation (pooled over the invocations
/// by [`merge`]). `None` when the backend could not be visited.
fn calibration(
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
    let cases = registry::visit(backend, calibrate).unwrap_or_default();
    match cases {
        cases
            if cases.len() == SURVIVAL_LEVELS.len() + 1
                && cases.iter().zip(SURVIVAL_LEVELS).all(|(c, l)| c.0 == l)
                && cases[SURVIVAL_LEVELS.len()].0 == CLOCK_STEP =>
        {
            plan.samples = cases[0].1.len();
            for (i, (_, ns, invocation)) in cases.iter().take(4).enumerate() {
                plan.medians[i] = typical(ns, 1);
                plan.loads[i] = Reloads {
                    ns: ns.clone(),
                    invocation: invocation.clone(),
                };
            }
            plan.step_ns = cases[SURVIVAL_LEVELS.len()]
                .1
                .iter()
                .copied()
                .fold(f64::INFINITY, f64::min);
            Some(plan)
        }
        _ => None,
    }
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
    /// placed there (loaded just before; loaded, then 2× L1 read; loaded, then 2× L2 read;
    /// flushed, or 4× the LL read), then loaded once between two [`ticks`], as the probe loads
    /// it. Per level (named as in [`SURVIVAL_LEVELS`]), ns per load and the invocation; last,
    /// [`CLOCK_STEP`] with the greatest common divisor of the loads' tick counts, in ns.
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

/// One byte load the compiler keeps: the probe's and the calibration's timed load.
///
/// # Safety
/// `address` must point to a live, readable byte.
#[inline(always)]
unsafe fn load_byte(address: *const u8) -> u64 {
    // SAFETY: the caller's contract.
    unsafe { std::ptr::read_volatile(address) as u64 }
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

/// A serialised time stamp: `lfence; rdtscp; lfence` on x86-64 (ticks of the invariant TSC),
/// nanoseconds of a monotonic clock elsewhere.
#[inline(always)]
fn ticks() -> u64 {
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
fn tick_ns() -> f64 {
    let (t0, c0) = (Instant::now(), ticks());
    while t0.elapsed() < Duration::from_millis(20) {
        std::hint::spin_loop();
    }
    let (elapsed, c1) = (t0.elapsed().as_nanos() as f64, ticks());
    elapsed / (c1.saturating_sub(c0).max(1)) as f64
}

/// The free-running bracket: the old design, lookups interleaved with independent evaluation
/// reads and nothing ordering them, at E = 0 and E = the pressure buffer, minus the reads alone.
fn bracket(m: &mut Measurement, workload: &SearchWorkload, steps: &mut Steps<'_>) {
    let count = workload.lookups.len().min(1 << 17);
    let items: Vec<LookupItem> = (0..workload.nodes())
        .flat_map(|node| {
            workload
                .node(node)
                .iter()
                .map(move |&(slider, square)| LookupItem {
                    occupancy: workload.occupancies[node],
                    square,
                    slider,
                })
        })
        .take(count)
        .collect();
    m.bracket_lookups = items.len();
    for bytes in [0, m.pressure_bytes] {
        let message = format!("free-running bracket, E = {}", rounded_bytes(bytes as f64));
        let buffer = (bytes > 0).then(|| PageBuffer::new(bytes, Pages::Huge, |i| i as u64));
        let eval: &[u64] = buffer.as_ref().map_or(&[], |b| b.as_slice());
        let mut cases: Vec<Case<'_>> = m
            .backends
            .iter()
            .filter_map(|name| {
                registry::visit(
                    name,
                    MakeBracket {
                        items: &items,
                        eval,
                    },
                )
                .ok()
            })
            .collect();
        cases.push(eval_alone_case(items.len(), eval));
        let results = interleaved(&mut cases, &m.sampling, m.invocation, None, &mut |f| {
            steps.report(&message, f)
        });
        for result in results {
            m.bracket.push(Bracket {
                bytes,
                case: result.name,
                ns: result.ns_per_op,
            });
        }
    }
    steps.done += 1;
}

struct MakeBracket<'a> {
    items: &'a [LookupItem],
    eval: &'a [u64],
}

impl<'a> BackendVisitor for MakeBracket<'a> {
    type Output = Case<'a>;
    fn visit<B: Backend>(self, backend: B) -> Case<'a> {
        free_running_case(backend, convert(&backend, self.items), self.eval)
    }
}

/// One lookup, then `BRACKET_READS` evaluation reads, per input; nothing orders them.
fn free_running_case<B: Backend>(
    backend: B,
    inputs: Vec<Input<B::Occupancy>>,
    eval: &[u64],
) -> Case<'_> {
    let n = inputs.len() as u64;
    let reads = if eval.is_empty() { 0 } else { BRACKET_READS };
    Case::new(B::info().name, n, move |reps| {
        let elements = eval.len();
        let mut counter = 0u64;
        let mut sum = 0u64;
        let mut folded = B::Bitboard::empty();
        for _ in 0..reps {
            for input in black_box(&inputs[..]) {
                folded ^= lookup::<B, MIXED>(&backend, input);
                for _ in 0..reads {
                    sum = sum.wrapping_add(eval[eval_index(counter, elements)]);
                    counter += 1;
                }
            }
        }
        sum ^ fold(folded)
    })
}

/// The evaluation reads alone, over the same number of iterations.
fn eval_alone_case(n: usize, eval: &[u64]) -> Case<'_> {
    let reads = if eval.is_empty() { 0 } else { BRACKET_READS };
    Case::new(EVAL_ALONE, n as u64, move |reps| {
        let elements = eval.len();
        let mut counter = 0u64;
        let mut sum = 0u64;
        for _ in 0..reps {
            for _ in 0..black_box(n) {
                for _ in 0..reads {
                    sum = sum.wrapping_add(eval[eval_index(counter, elements)]);
                    counter += 1;
                }
            }
        }
        sum
    })
}

/// The backends' own tables on 4 KiB pages (as the allocator gave them: THP `madvise` leaves
/// heap tables on small pages), then collapsed into 2 MiB pages (`MADV_COLLAPSE`, checked in
/// `/proc/self/smaps`), each against pressure on 4 KiB and on huge pages, at the highest
/// pressure; real and hot twin. Last, because a collapse cannot be undone in this process.
fn table_pages(
    m: &mut Measurement,
    workload: &SearchWorkload,
    pressure_huge: &PageBuffer,
    steps: &mut Steps<'_>,
) {
    let big: Vec<&'static str> = m
        .backends
        .iter()
        .copied()
        .filter(|&name| attack_table_bytes(name) >= (4 << 20))
        .collect();
    if big.is_empty() {
        m.notes.push(
            "table-page split skipped: no measured backend has 4 MiB of attack tables".into(),
        );
        steps.done += 1;
        return;
    }
    let reads = m.pressure_reads.last().copied().unwrap_or(0).max(1);
    let small_pressure = PageBuffer::new(m.pressure_bytes, Pages::Small, |i| i as u64);
    // One window for all four variants: round r walks the same nodes in each.
    let mut window = None;
    for (phase, tables) in [(0, "4k"), (1, "huge")] {
        if phase == 1 {
            for &name in &big {
                let (before, after, collapse) = collapse(name);
                m.table_pages.push(TablePages {
                    backend: name,
                    table_bytes: attack_table_bytes(name),
                    huge_before: before,
                    huge_after: after,
                    collapse,
                });
            }
        }
        for (pressure_pages, buffer) in [("4k", &small_pressure), ("huge", pressure_huge)] {
            let mut cases: Vec<ChainCase<'_>> = Vec::new();
            for (&name, stream) in big.iter().zip(0u64..) {
                let made = MakeChain {
                    workload,
                    pressure: buffer.as_slice(),
                    reads,
                    masks: vec![usize::MAX, HOT_MASK],
                    stream,
                    labels: None,
                };
                if let Ok(made) = registry::visit(name, made) {
                    cases.push(made);
                }
            }
            let message = format!("tables on {tables} pages, pressure on {pressure_pages} pages");
            let results = time_chains(
                workload,
                &mut cases,
                &m.sampling,
                (m.ns_per_tick, m.levels.last_level_bytes()),
                &mut window,
                m.invocation,
                &mut |f| steps.report(&message, f),
            );
            push_chains(m, &cases, results, "pages", reads, (tables, pressure_pages));
        }
    }
    steps.done += 1;
}

/// [`collapse_tables`], the reason a kernel refused said on this process's standard error
/// only (the measurement names the refusal alone, the same in every invocation).
fn collapse(name: &str) -> (Option<usize>, Option<usize>, Result<(), String>) {
    let (before, after, outcome) = collapse_tables(name);
    let outcome = outcome.map_err(|why| {
        eprintln!("kiki: E7: {name}'s tables not collapsed to huge pages: {why}");
        "the kernel refused MADV_COLLAPSE (or the tables are smaller than one aligned 2 MiB page)"
            .to_string()
    });
    (before, after, outcome)
}

/// Collapses `name`'s attack tables into huge pages: the huge-page bytes before and after, and
/// whether the kernel agreed.
fn collapse_tables(name: &str) -> (Option<usize>, Option<usize>, Result<(), String>) {
    struct Collapse;
    impl BackendVisitor for Collapse {
        type Output = (Option<usize>, Option<usize>, Result<(), String>);
        fn visit<B: Backend>(self, backend: B) -> Self::Output {
            let memory = backend.attack_table_memory();
            let huge = |memory: &[&[u8]]| {
                memory
                    .iter()
                    .map(|t| huge_page_bytes_of(t))
                    .try_fold(0usize, |total, b| b.map(|b| total + b))
            };
            let before = huge(&memory);
            // Tables smaller than one aligned huge page stay as they are; the collapse fails
            // only when no table could be collapsed.
            let outcomes: Vec<Result<(), String>> =
                memory.iter().map(|t| collapse_to_huge_pages(t)).collect();
            let collapse = if outcomes.iter().any(Result::is_ok) {
                Ok(())
            } else {
                outcomes
                    .into_iter()
                    .find_map(Result::err)
                    .map_or(Ok(()), Err)
            };
            (before, huge(&memory), collapse)
        }
    }
    registry::visit(name, Collapse).unwrap_or((None, None, Err("unavailable".into())))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines 1 2 1 3 2 1 read by 4 lookups: three first reads, then distances 1, 2, 2 (LRU by
    /// hand).
    #[test]
    fn stack_distances_count_distinct_lines_between_reuses() {
        let reuse = stack_distances("test", &[1, 2, 1, 3, 2, 1], 4);
        assert_eq!((reuse.reads, reuse.cold, reuse.distinct_lines), (6, 3, 3));
        assert_eq!(reuse.lookups, 4);
        assert_eq!(&reuse.buckets[..4], [0, 1, 2, 0]);
        assert_eq!(reuse.misses(64), 6);
        assert_eq!(reuse.misses(128), 5);
        assert_eq!(reuse.misses(256), 3);
        assert_eq!(reuse.misses(200), 5); // rounded down to 128 bytes
        assert_eq!(reuse.misses_per_lookup(256), 0.75);
        assert_eq!(reuse.cold_per_lookup(), 0.75);
    }

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
}
