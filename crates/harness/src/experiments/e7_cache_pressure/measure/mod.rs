//! E7's measuring: the isolated table-miss cost (dependent chains after pressure, against each
//! backend's hot twin), its controls (with the rings beside the positive ones), the
//! dose–response, the survival probe, the table-page split and the free-running bracket, all
//! into a [`Measurement`].

mod bracket;
mod calibration;
mod chains;
mod merge;
mod pages;
mod reuse;
mod ring;
mod survival;
pub(super) mod timing;
mod unpressed;
pub(crate) use unpressed::{LONG_SEARCH, UNPRESSED_BACKENDS, WARMED};

pub(crate) use bracket::Bracket;
pub(super) use calibration::SURVIVAL_LEVELS;
pub(crate) use calibration::{Calibration, Reloads};
pub(crate) use chains::Unplaced;
pub(super) use chains::{
    aa_case, synthetic_case, synthetic_sizes, unplaced_control, AA_SECOND, ONE_PAGE,
};
pub(super) use chains::{dose_case, dose_masks};
pub(super) use merge::merge;
pub(crate) use pages::{PhaseControl, TablePages, PHASE_CONTROL};
pub(crate) use reuse::{stack_distances, Reuse};
pub(super) use ring::{has_ring, ring_case};
pub(crate) use timing::{
    find_window, tick_ns, time_chains, BlockOrder, Chain, ChainCase, MakeChain, Warming,
    FIXED_ORDER_SEED,
};
pub(super) use timing::{mask_label, WARM_IN_READS_PER_LINE, WARM_IN_SAMPLES};
pub use timing::{OrderSeed, SeedSource};

use crate::cache_levels::CacheLevels;
use crate::experiments::{Config, Progress};
use crate::invocations::Invocation;
use crate::measure::SampleConfig;
use crate::registry;
use crate::workloads::{self};
use bracket::bracket;
use chains::chain_sweep;
use kiki_core::backend::Backend;
use kiki_core::pages::{PageBuffer, Pages};
use kiki_variants::registry::BackendVisitor;
use pages::table_pages;
use reuse::reuse_of;
use serde::{Deserialize, Serialize};
use std::time::Duration;
use survival::survival;

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
    /// The synthetic tables' huge-page bytes as granted (in `synthetic`'s order), and the
    /// rings' (each control's ring, then the one-page ring); merged, the least of any process.
    /// Absent before 2026-12-02.
    #[serde(default)]
    pub synthetic_huge: Vec<Option<usize>>,
    #[serde(default)]
    pub ring_huge: Vec<Option<usize>>,
    /// Pressure reads per node of the chain sweep, 0 first.
    pub pressure_reads: Vec<u32>,
    /// Nanoseconds per time-stamp tick (measured against the monotonic clock).
    pub ns_per_tick: f64,
    pub sampling: SampleConfig,
    /// The positive controls' synthetic tables: what each is sized after (half the measured
    /// L2, half the last level, the pressure buffer in memory) and its bytes.
    pub synthetic: Vec<(String, usize)>,
    /// The last-level control left out, where E6's plateau for it is under one doubling wide
    /// (absent before 2026-11-28, when such a control was placed and run).
    #[serde(default)]
    pub unplaced: Option<Unplaced>,
    /// The dose–response's byte masks below the full table, sized from the measured levels.
    pub dose_masks: Vec<usize>,
    /// The A/A control's backend (the one with the largest attack tables): its full-table chain
    /// timed twice per node, as if it were its own twin.
    #[serde(with = "crate::invocations::static_str::option")]
    pub aa_backend: Option<crate::invocations::StaticStr>,
    /// Every chain point: per round, ns per lookup.
    pub chains: Vec<Chain>,
    /// Per invocation, the order its chain sweep took the pressure counts in (seeded, shuffled
    /// per invocation; reports before 2026-11-27 swept the top count first, then upwards).
    #[serde(default)]
    pub pressure_orders: Vec<Vec<u32>>,
    /// Per invocation and timing call, the order of its cases' blocks in the first pass (the
    /// second pass reverses it).
    #[serde(default)]
    pub block_orders: Vec<BlockOrder>,
    /// The run's order seed, every shuffle's (the same in every invocation of a run).
    #[serde(default)]
    pub order_seed: OrderSeed,
    /// The survival probe's backend, and per pressure count the timed reloads of the node's
    /// table lines (ns each).
    #[serde(with = "crate::invocations::static_str::option")]
    pub survival_backend: Option<crate::invocations::StaticStr>,
    pub survival: Vec<(u32, Reloads)>,
    /// The survival classes' calibration (with the probe).
    pub calibration: Option<Calibration>,
    /// The pages the sweep's tables were on, per backend with attack tables, once advised onto
    /// 4 KiB pages (`collapse`: the advice's outcome). Absent before 2026-11-29.
    #[serde(default)]
    pub sweep_pages: Vec<TablePages>,
    /// The table-page split: per backend, huge-page bytes of its attack tables before and
    /// after collapsing them (and the attack-table bytes).
    pub table_pages: Vec<TablePages>,
    /// The split's phase-order control: a synthetic table on 4 KiB pages in both phases
    /// (absent before 2026-11-29, when nothing controlled the phase order).
    #[serde(default)]
    pub phase_control: Option<PhaseControl>,
    /// Per backend with attack tables: the reuse of its table lines along the workload.
    pub reuse: Vec<Reuse>,
    /// The long search the P = 0 variants also walk (few roots, deep), and the reuse of its
    /// backends' table lines along it (absent before 2026-11-27).
    #[serde(default)]
    pub long_workload: String,
    #[serde(default)]
    pub reuse_long: Vec<Reuse>,
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

pub(crate) fn sampling(config: &Config) -> SampleConfig {
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
pub(super) struct Steps<'a> {
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

/// Measures everything E7 reports, the table-page split last (it cannot be undone in this
/// process).
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
    let long = workloads::search_shaped(config.seed ^ 0xE7, nodes, workloads::SearchShape::LONG);
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
    let unplaced = unplaced_control(&levels);
    let dose = dose_masks(&levels);
    let mut m = Measurement {
        workload: workload.description.clone(),
        backends,
        skipped,
        levels,
        pressure_bytes,
        pressure_huge: None,
        synthetic_huge: Vec::new(),
        ring_huge: Vec::new(),
        pressure_reads,
        ns_per_tick,
        sampling: sampling(config),
        synthetic,
        unplaced,
        dose_masks: dose,
        aa_backend: None,
        chains: Vec::new(),
        pressure_orders: Vec::new(),
        block_orders: Vec::new(),
        order_seed: config.order_seed,
        survival_backend: None,
        survival: Vec::new(),
        calibration: None,
        sweep_pages: Vec::new(),
        table_pages: Vec::new(),
        phase_control: None,
        reuse: Vec::new(),
        long_workload: String::new(),
        reuse_long: Vec::new(),
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
    let synthetic: Vec<ring::SyntheticTable> = m
        .synthetic
        .iter()
        .map(|(_, bytes)| ring::SyntheticTable::new(*bytes, Pages::Huge))
        .collect();
    let rings = ring::Rings::new(&m.synthetic);
    m.synthetic_huge = synthetic.iter().map(|t| t.huge_page_bytes()).collect();
    m.ring_huge = rings.huge_page_bytes();
    let total = m.pressure_reads.len() + 6;
    let mut steps = Steps {
        progress,
        done: 0,
        total,
    };
    m.sweep_pages = pages::on_small_pages(&m.backends);
    let window = chain_sweep(
        &mut m,
        &workload,
        (pressure.as_slice(), &synthetic, &rings),
        &mut steps,
    );
    drop(rings);
    unpressed::unpressed(
        &mut m,
        (&workload, &long),
        pressure.as_slice(),
        window,
        &mut steps,
    );
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

/// A backend's attack-table bytes (what the mask applies to); 0 where it has none.
pub(super) fn attack_table_bytes(name: &str) -> usize {
    struct Bytes;
    impl BackendVisitor for Bytes {
        type Output = usize;
        fn visit<B: Backend>(self, backend: B) -> usize {
            backend.attack_table_memory().iter().map(|t| t.len()).sum()
        }
    }
    registry::visit_base(name, Bytes).unwrap_or(0)
}
