//! E12's measuring: every layout variant beside its base in one process, three costs each
//! (lookups as E1 times them, the isolated table-miss cost as E7 times it, a search's time per
//! node as E11 times it), in two page phases: every table on 4 KiB pages, and every table but
//! the control family's collapsed onto 2 MiB pages, the 4 KiB phase first in even processes and
//! the 2 MiB phase first in odd ones (`phases`).

pub(crate) use super::chains::ChainRow;
use super::chains::{ChainSettings, Chains};
pub(super) use super::phases::PHASE_CONTROL_FAMILY;
use super::phases::{in_phase_control, pages_of, split, PhaseOrder};
use crate::bench::BenchRun;
use crate::bench::{place_tables, TablePlacement};
use crate::experiments::e11_search::Block;
use crate::experiments::e11_search::{warm_up_positions, TablePages};
use crate::experiments::e1_attacks::{cycled, MakeCase, Mode};
use crate::experiments::e7_cache_pressure as e7;
use crate::experiments::{Config, Progress};
use crate::invocations::{gather, merge_rows, union, Invocation};
use crate::measure::{interleaved, Case, SampleConfig};
use crate::registry;
use crate::workloads::{self, PieceGroup, Policy};
use kiki_core::backend::LayoutFactor;
use kiki_core::pages::{PageBuffer, Pages};
use kiki_engine::search::bench;
use kiki_engine::search::eval::{EvalKind, EvalTables};
use kiki_engine::search::tt::TranspositionTable;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

/// The lookup inputs E12 times: the headline (E1's throughput mode on random-play positions,
/// every slider kind mixed) first, then the other mode and input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub(crate) enum LookupInput {
    #[serde(rename = "throughput random-play")]
    ThroughputRandomPlay,
    #[serde(rename = "latency random-play")]
    LatencyRandomPlay,
    #[serde(rename = "throughput uniform-25")]
    ThroughputUniform,
}

impl LookupInput {
    pub const ALL: [LookupInput; 3] = [
        LookupInput::ThroughputRandomPlay,
        LookupInput::LatencyRandomPlay,
        LookupInput::ThroughputUniform,
    ];

    pub fn name(self) -> &'static str {
        match self {
            LookupInput::ThroughputRandomPlay => "throughput random-play",
            LookupInput::LatencyRandomPlay => "latency random-play",
            LookupInput::ThroughputUniform => "throughput uniform-25",
        }
    }

    fn mode(self) -> Mode {
        match self {
            LookupInput::LatencyRandomPlay => Mode::Latency,
            _ => Mode::Throughput,
        }
    }
}

/// One (base, variant) pair as registered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Pair {
    #[serde(with = "crate::invocations::static_str")]
    pub base: crate::invocations::StaticStr,
    #[serde(with = "crate::invocations::static_str")]
    pub variant: crate::invocations::StaticStr,
    #[serde(with = "factor_name")]
    pub factor: LayoutFactor,
    /// The variant's value of the factor against the base's, in one line.
    pub change: String,
    /// Exact table bytes: base, variant.
    pub table_bytes: [usize; 2],
}

/// `LayoutFactor` by its name in results.json.
pub(crate) mod factor_name {
    use kiki_core::backend::LayoutFactor;
    use serde::{Deserialize, Deserializer, Serializer};
    const ALL: [LayoutFactor; 6] = [
        LayoutFactor::EntrySize,
        LayoutFactor::CompoundTables,
        LayoutFactor::WordSplit,
        LayoutFactor::LineSplit,
        LayoutFactor::IndexOrder,
        LayoutFactor::Pages,
    ];
    pub fn serialize<S: Serializer>(factor: &LayoutFactor, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(factor.name())
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<LayoutFactor, D::Error> {
        let name = String::deserialize(d)?;
        ALL.into_iter()
            .find(|f| f.name() == name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown layout factor {name}")))
    }
}

/// One backend's lookup samples (ns per lookup, one per round) on one input and page kind.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct LookupRow {
    pub input: LookupInput,
    pub pages: TablePages,
    #[serde(with = "crate::invocations::static_str")]
    pub backend: crate::invocations::StaticStr,
    /// The A/A control's second timing of [`Measurement::twin`].
    pub twin: bool,
    pub ns: Vec<f64>,
}

/// One backend's search samples: ns per node, one per round.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct SearchRow {
    pub pages: TablePages,
    #[serde(with = "crate::invocations::static_str")]
    pub backend: crate::invocations::StaticStr,
    pub twin: bool,
    pub ns_per_node: Vec<f64>,
    /// The 2 MiB phase's page block, timed as the 4 KiB phase's block is (the same bases,
    /// rounds and warm-up) for the page pairs alone (absent before 2026-12-03, when the page
    /// pairs read the variants' block).
    #[serde(default)]
    pub page_block: bool,
}

/// Everything E12 measured, and the settings the method reports.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Measurement {
    pub pairs: Vec<Pair>,
    /// The A/A control: the base with the largest tables, timed a second time as if it were a
    /// variant of itself in every 2 MiB cell (same code, same tables: its ratio must be level).
    #[serde(with = "crate::invocations::static_str::option")]
    pub twin: Option<crate::invocations::StaticStr>,
    /// Pairs or page phases left out, with the reason.
    pub skipped: Vec<String>,
    pub lookups: usize,
    /// The headline lookup input's sampling (`samples`: rounds over all processes).
    pub sampling: SampleConfig,
    /// Rounds over all processes of the other lookup inputs (`lookup_by_mode`).
    #[serde(default)]
    pub mode_rounds: usize,
    pub chain_sampling: SampleConfig,
    /// Pressure reads per node before each node's chains (E7's top count), and the buffer.
    pub pressure_reads: u32,
    pub pressure_bytes: usize,
    pub ns_per_tick: f64,
    pub search_positions: usize,
    pub search_depth: u32,
    /// Search rounds per invocation with the tables on 4 KiB pages, and on 2 MiB pages.
    pub search_rounds: [usize; 2],
    pub tt_mib: usize,
    pub threshold: f64,
    pub seed: u64,
    pub lookup: Vec<LookupRow>,
    pub chains: Vec<ChainRow>,
    pub search: Vec<SearchRow>,
    pub placements: Vec<(String, TablePages, TablePlacement)>,
    /// Each invocation's search order, as run.
    pub orders: Vec<String>,
    /// Each invocation's order of the page phases, one per process in the series' order (absent
    /// before 2026-12-02, when every process ran the 4 KiB phase first).
    #[serde(default)]
    pub phase_orders: Vec<PhaseOrder>,
    /// Fingerprint mismatches and backends that could not run.
    pub errors: Vec<String>,
    pub invocations: usize,
}

impl Measurement {
    pub fn lookup(&self, input: LookupInput, pages: TablePages, entry: Entry) -> Option<&[f64]> {
        self.lookup
            .iter()
            .find(|r| r.input == input && r.pages == pages && (r.backend, r.twin) == entry)
            .map(|r| r.ns.as_slice())
    }

    pub fn chain(&self, pages: TablePages, entry: Entry) -> Option<&ChainRow> {
        self.chains
            .iter()
            .find(|r| r.pages == pages && (r.backend, r.twin) == entry)
    }

    /// The search block's samples the variants are compared in (not the page block).
    pub fn search(&self, pages: TablePages, entry: Entry) -> Option<&[f64]> {
        self.search_in((pages, false), entry)
    }

    /// The samples a page pair reads: the 2 MiB phase's page block, the same block as the
    /// 4 KiB phase's; in reports before it, the variants' block.
    pub fn page_search(&self, pages: TablePages, entry: Entry) -> Option<&[f64]> {
        self.search_in((pages, true), entry)
            .or_else(|| self.search(pages, entry))
    }

    fn search_in(&self, (pages, block): (TablePages, bool), entry: Entry) -> Option<&[f64]> {
        self.search
            .iter()
            .find(|r| (r.pages, r.page_block) == (pages, block) && (r.backend, r.twin) == entry)
            .map(|r| r.ns_per_node.as_slice())
    }

    /// Every timed entry, family by family (a base, then its variants), the A/A twin in the
    /// middle of its family: in a family's rotating order it then follows neither its own base
    /// nor the base's last variant alone.
    pub fn entries(&self) -> Vec<Entry> {
        let mut entries = Vec::new();
        for base in self.bases() {
            let mut family: Vec<Entry> = vec![(base, false)];
            family.extend(
                self.pairs
                    .iter()
                    .filter(|p| p.base == base)
                    .map(|p| (p.variant, false)),
            );
            if self.twin == Some(base) {
                family.insert(family.len().div_ceil(2), (base, true));
            }
            entries.extend(family);
        }
        entries
    }

    /// Per process, the share of `name`'s table bytes on 2 MiB pages in the 2 MiB phase, as
    /// placed; `None` where some process could not tell.
    pub fn huge_shares(&self, name: &str) -> Option<Vec<f64>> {
        self.placements
            .iter()
            .filter(|(n, pages, _)| n == name && *pages == TablePages::Huge)
            .map(|(_, _, placed)| {
                let huge = placed.huge_after?;
                Some(huge as f64 / placed.table_bytes.max(1) as f64)
            })
            .collect::<Option<Vec<f64>>>()
            .filter(|shares| !shares.is_empty())
    }

    /// Whether `name`'s tables moved onto 2 MiB pages in the 2 MiB phase in every process.
    pub fn collapsed(&self, name: &str) -> Option<bool> {
        self.huge_shares(name)
            .map(|shares| shares.iter().all(|&share| share > 0.0))
    }

    /// The pages `name`'s tables were on in `phase`: 4 KiB in the 4 KiB phase; in the 2 MiB
    /// phase, 2 MiB pages where they moved onto them in every process and 4 KiB where not (the
    /// control family, kept there, or a kernel that refused), and the pages asked for where
    /// some process could not tell (`pages_as_asked` is then null).
    pub fn pages_in(&self, name: &str, phase: TablePages) -> TablePages {
        match (phase, self.collapsed(name)) {
            (TablePages::Small, _) | (TablePages::Huge, Some(false)) => TablePages::Small,
            (TablePages::Huge, Some(true)) => TablePages::Huge,
            (TablePages::Huge, None) if in_phase_control(name) => TablePages::Small,
            (TablePages::Huge, None) => TablePages::Huge,
        }
    }

    /// Whether `a`'s and `b`'s tables sat on 2 MiB pages alike in the 2 MiB phase: in every
    /// process their shares of bytes on 2 MiB pages differ by at most [`SAME_PAGES`].
    pub fn pages_agree(&self, a: &str, b: &str) -> Option<bool> {
        Some(shares_agree(&self.huge_shares(a)?, &self.huge_shares(b)?))
    }

    /// How the table-miss chains are timed.
    fn chain_settings(&self) -> ChainSettings {
        ChainSettings {
            reads: self.pressure_reads,
            sampling: self.chain_sampling,
            ns_per_tick: self.ns_per_tick,
        }
    }

    /// The order of the page phases one process ran (the first's, where merged; 4 KiB first
    /// where not recorded).
    pub fn order(&self) -> PhaseOrder {
        self.phase_orders
            .first()
            .copied()
            .unwrap_or(PhaseOrder::SmallFirst)
    }

    /// Per process, the order of its page phases: as recorded, else (before the key) the
    /// 4 KiB phase first in every process.
    pub fn process_orders(&self) -> Vec<PhaseOrder> {
        if self.phase_orders.len() == self.invocations {
            self.phase_orders.clone()
        } else {
            vec![PhaseOrder::SmallFirst; self.invocations]
        }
    }

    /// The bases of the pairs, once each, in registry order.
    pub fn bases(&self) -> Vec<&'static str> {
        let mut bases: Vec<&'static str> = Vec::new();
        for pair in &self.pairs {
            if !bases.contains(&pair.base) {
                bases.push(pair.base);
            }
        }
        bases
    }
}

/// How far two backends' shares of table bytes on 2 MiB pages may differ for their lookups
/// to be compared on 2 MiB pages (`magic` keeps about three quarters there, `magic.split-words`
/// its two word arrays a quarter to a half).
pub const SAME_PAGES: f64 = 0.1;

/// Two backends' per-process shares of table bytes on 2 MiB pages, alike in every process.
fn shares_agree(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= SAME_PAGES)
}

/// A timed entry: a backend, and whether it is the A/A control's second timing.
pub(crate) type Entry = (&'static str, bool);

/// K invocations' measurements as one: rows' rounds one invocation after another.
/// One invocation's rows in the one order every invocation's are merged in: by page kind
/// (4 KiB first), keeping each kind's own order. The phase order alternates by process, so a
/// process that ran 2 MiB first holds its 2 MiB rows first.
fn by_pages<R>(mut parts: Vec<Vec<R>>, pages: impl Fn(&R) -> TablePages) -> Vec<Vec<R>> {
    for part in &mut parts {
        part.sort_by_key(|r| pages(r));
    }
    parts
}

pub(super) fn merge(parts: &[Measurement]) -> Result<Measurement, String> {
    let first = parts.first().ok_or("nothing measured")?;
    let lookup = merge_rows(
        &by_pages(gather(parts, |p| &p.lookup), |r| r.pages),
        |r| (r.input, r.pages, r.backend, r.twin),
        |into, from| into.ns.extend(&from.ns),
    )?;
    let chains = merge_rows(
        &by_pages(gather(parts, |p| &p.chains), |r| r.pages),
        |r| (r.pages, r.backend, r.twin),
        |into, from| {
            into.full.extend(&from.full);
            into.hot.extend(&from.hot);
        },
    )?;
    let search = merge_rows(
        &by_pages(gather(parts, |p| &p.search), |r| r.pages),
        |r| (r.pages, r.page_block, r.backend, r.twin),
        |into, from| into.ns_per_node.extend(&from.ns_per_node),
    )?;
    Ok(Measurement {
        lookup,
        chains,
        search,
        errors: union(parts.iter().map(|p| p.errors.clone())),
        orders: parts.iter().flat_map(|p| p.orders.clone()).collect(),
        phase_orders: parts.iter().map(|p| p.order()).collect(),
        placements: parts.iter().flat_map(|p| p.placements.clone()).collect(),
        invocations: parts.len(),
        ..first.clone()
    })
}

/// The registered (base, variant) pairs whose base the configuration measures (every pair
/// when it names none), with the variants that cannot run here left out and said why.
fn pairs(config: &Config) -> (Vec<Pair>, Vec<String>) {
    let (bases, mut skipped) = config.backend_names();
    let summaries = kiki_variants::registry::summaries();
    let bytes = |name: &str| {
        summaries
            .iter()
            .find(|s| s.info.name == name)
            .map_or(0, |s| s.table_bytes)
    };
    let mut pairs = Vec::new();
    for summary in &summaries {
        let Some(variant) = summary.info.variant else {
            continue;
        };
        if !bases.contains(&variant.base) {
            continue;
        }
        if let Err(reason) = &summary.availability {
            skipped.push(format!("{}: {reason}", summary.info.name));
            continue;
        }
        pairs.push(Pair {
            base: variant.base,
            variant: summary.info.name,
            factor: variant.factor,
            change: variant.change.to_string(),
            table_bytes: [bytes(variant.base), summary.table_bytes],
        });
    }
    (pairs, skipped)
}

/// The sizes of one invocation: search positions, depth, rounds and TT MiB.
fn search_sizes(config: &Config) -> (usize, u32, [usize; 2], usize) {
    let all = bench::positions().len();
    config.pick(
        (4, 1, [2, 2], 2),
        (all, 2, [2, 2], 64),
        (all, 3, [2, SEARCH_ROUNDS_2M], 1024),
    )
}

// Sampling, sized from the variance components of the report of 2026-11-29-9 (Zen 4, two
// cores, K = 5 processes; E12 took 303 s of it) so that E12 stays under 400 s there:
//
// The search on 2 MiB pages. Per round, the log-ratio variant / base has a within-process sd
// of 4.7 % (pooled over the 7 variant pairs and the A/A twin, 2 rounds each); the sd of the
// processes' means of their forward and reverse pair is 2.8 % (pooled), and the between-process
// component estimated from the two is ≈ 0 (pooled σ_b² = −0.0003 ± 0.0003), taken as σ_b = 1 %.
// With p forward/reverse pairs per process: var(process figure) = σ_b² + σ_pair² / p with
// σ_pair² = 0.028² − σ_b² = 0.00069, and the half-width t90(4) · √(var / 5):
//   p = 1 (2 rounds, as before): ±2.6 % (observed ±1.3–3.5 %): level within ±3 % not decidable;
//   p = 2 (4 rounds): ±2.0 % — a ratio within about ±1 % of 1 reads level;
//   p = 3 (6 rounds): ±1.7 %, p = 4: ±1.6 % (the floor from σ_b: ±1.0 %).
// A round costs 578,416 nodes (60 positions, depth 3) × 1.24 µs (the 2 MiB phase's mean ns per
// node) + its chunks' warm-up searches ≈ 0.75 s per entry, 13 entries (5 bases, 7 variants, the
// twin): a pair of rounds 19.5 s per process, 98 s over five. One more pair fits the budget,
// two do not (≈ 490 s), so 4 rounds.
//
// Lookups: a round costs 13 entries × one 2–4 ms sample (2.9 ms mean) per input and phase. The
// headline A/A's 90 % half-width was ±2.1 % at 48 rounds per process (the per-process figure's
// variance 0.000074 + 0.0189 / n); 72 give ±1.75 %, 96 would give ±1.6 %. The other two inputs'
// A/A read ±1.2 % at 48 and keep about ±1.7 % at 24. Headline 240 → 360 rounds in all (+9 s over
// five processes), the others 240 → 120 each (−18 s): −9 s.
//
// Table misses: the twin walks in its base's block (`chains::beside`), which spares its own
// block's two warm-ins per phase (≈ 0.2 s each): −4 s.
//
// E12 then: 303 s + 98 s − 9 s − 4 s ≈ 390 s.
//
// Since 2026-12-03 (the report of 2026-12-02, Xeon, five processes, E12 543 s): the page block.
// The 2 MiB phase times the 4 KiB phase's block again (the 5 bases, 2 rounds, a 5-position
// warm-up) before the variants' block, and the page pairs read it alone: 5 × 2 rounds × 1.14 s
// (578,416 nodes × 1.97 µs there) + the warm-up ≈ 12 s per process, +60 s over five (≈ 603 s).
// Lookups unchanged: there the headline A/A's per-round log-ratio (20 %-winsorised) had an sd of
// 6.9 %, i.e. 0.069² / 72 = 0.000065 per process figure at 72 rounds: t90(4) · √((0.000074 +
// 0.000065) / 5) = ±1.1 %, inside ±1.5 % already. The ±3.5 % read came from between processes
// (the figures' sd 3.7 %, one process at −8.5 %: σ_b² ≈ 0.0013), which rounds do not shrink
// (its floor t90(4) · 0.036 / √5 = ±3.5 % at any count), so no rounds were added.

/// Search rounds per process with the tables on 2 MiB pages (two forward and reverse pairs).
const SEARCH_ROUNDS_2M: usize = 4;

/// Rounds over all processes of the headline lookup input (E1's throughput on random-play).
const HEADLINE_ROUNDS: usize = 360;

/// Rounds over all processes of each other lookup input.
const MODE_ROUNDS: usize = 120;

/// Measures every pair in both page phases, in this process's order ([`PhaseOrder::of`]): with
/// every table on 4 KiB pages, and with every table but the control family's collapsed onto
/// 2 MiB pages (split back onto 4 KiB mappings afterwards where that phase ran first).
pub(super) fn measure(
    config: &Config,
    invocation: Invocation,
    progress: Progress<'_>,
) -> Measurement {
    let (pairs, skipped) = pairs(config);
    let (positions, depth, rounds, tt_mib) = search_sizes(config);
    let levels = e7::levels(config);
    let pressure_bytes = config
        .pick(
            4 << 20,
            (4 * levels.last_level_bytes()).max(32 << 20),
            (4 * levels.last_level_bytes()).max(32 << 20),
        )
        .div_ceil(2 << 20)
        * (2 << 20);
    let twin = pairs
        .iter()
        .max_by_key(|p| p.table_bytes[0])
        .map(|p| p.base);
    let mut m = Measurement {
        pairs,
        twin,
        skipped,
        lookups: config.pick(256, 4096, 16384),
        sampling: lookup_sampling(config),
        mode_rounds: config.pick(3, 14, MODE_ROUNDS),
        chain_sampling: e7::sampling(config),
        pressure_reads: config.pick(16, 256, 512),
        pressure_bytes,
        ns_per_tick: e7::tick_ns(),
        search_positions: positions,
        search_depth: depth,
        search_rounds: rounds,
        tt_mib,
        threshold: config.threshold,
        seed: config.seed,
        lookup: Vec::new(),
        chains: Vec::new(),
        search: Vec::new(),
        placements: Vec::new(),
        orders: Vec::new(),
        phase_orders: vec![PhaseOrder::of(invocation)],
        errors: Vec::new(),
        invocations: 1,
    };
    let everyone = m.entries();
    let phases = PhaseOrder::of(invocation).phases();
    let parts = 3 * phases.len();
    let mut done = 0;
    let mut step = |message: &str, fraction: f64, done: usize| {
        progress(message, (done as f64 + fraction) / parts as f64)
    };
    let (search_tables, mut tt) = search_buffers(tt_mib);
    let pressure = PageBuffer::new(m.pressure_bytes, Pages::Huge, |i| i as u64);
    let chain_workload =
        workloads::search_order(config.seed ^ 0xE12, config.pick(600, 20_000, 100_000));
    let lookup_inputs = lookup_inputs(config, m.lookups);
    let chains = Chains {
        workload: &chain_workload,
        pressure: pressure.as_slice(),
        last_level: levels.last_level_bytes(),
        window: std::cell::Cell::new(None),
    };
    for pages in &phases {
        let names = &everyone;
        for &(name, _) in names.iter().filter(|e| !e.1) {
            // The control family's tables stay on 4 KiB pages in the 2 MiB phase too: what
            // changes for it between the phases is the phase order alone.
            let asked = if in_phase_control(name) {
                Pages::Small
            } else {
                pages_of(*pages)
            };
            // After the 2 MiB phase (a process that ran it first), the collapsed tables'
            // mappings are split back onto 4 KiB pages first; the scan below says whether.
            if !in_phase_control(name)
                && asked == Pages::Small
                && m.placements.iter().any(|p| p.0 == name)
            {
                if let Err(why) = split(name) {
                    m.errors
                        .push(format!("{name}'s tables not split onto 4 KiB pages: {why}"));
                }
            }
            match place_tables(name, asked) {
                Ok(placed) => m.placements.push((name.to_string(), *pages, placed)),
                Err(error) => m.errors.push(error.to_string()),
            }
        }
        let label = format!("tables on {}", pages.name());
        step(&format!("lookups, {label}"), 0.0, done);
        time_lookups(&mut m, (*pages, names), &lookup_inputs, invocation);
        done += 1;
        step(&format!("table-miss chains, {label}"), 0.0, done);
        let (rows, errors) = chains.time((*pages, names), &m.chain_settings(), invocation);
        m.chains.extend(rows);
        m.errors.extend(errors);
        done += 1;
        step(&format!("searches, {label}"), 0.0, done);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(
            config.seed ^ 0xE12 ^ ((invocation.index as u64) << 32) ^ *pages as u64,
        );
        let search = Search {
            sfens: &bench::positions()[..positions]
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>(),
            warm: &warm_up_positions(config),
            depth,
            tables: &search_tables,
        };
        // The page block: the bases alone, the 4 KiB phase's rounds after the same warm-up, in
        // both phases alike; the page pairs read it alone. On 2 MiB pages the variants' block
        // follows: the bases, variants and twin, for the 2 MiB rounds.
        let bases: Vec<Entry> = names
            .iter()
            .copied()
            .filter(|&(name, twin)| !twin && m.pairs.iter().any(|p| p.base == name))
            .collect();
        let huge = *pages == TablePages::Huge;
        let page_block = (&bases[..], rounds[0], huge);
        let blocks = [
            Some(page_block),
            huge.then_some((&names[..], rounds[1], false)),
        ];
        for (entries, n, page_block) in blocks.into_iter().flatten() {
            let at = (*pages, page_block, entries);
            search.time(&mut m, at, (n, invocation), &mut tt, &mut rng);
        }
        done += 1;
    }
    progress("done", 1.0);
    m
}

/// Lookup rounds: the common warm-up, but more and shorter rounds (a family's members alternate
/// every few milliseconds).
fn lookup_sampling(config: &Config) -> SampleConfig {
    SampleConfig {
        // Many short rounds: a round's noise (other tenants' memory traffic) is large against
        // a lookup's few nanoseconds, and rounds cost milliseconds.
        samples: config.pick(3, 14, HEADLINE_ROUNDS),
        min_sample: config.pick(
            std::time::Duration::from_micros(100),
            std::time::Duration::from_millis(1),
            std::time::Duration::from_millis(2),
        ),
        ..config.sampling()
    }
}

/// The nnue evaluation's tables and the TT, both on 2 MiB pages (as E11's verdict cells).
fn search_buffers(tt_mib: usize) -> (EvalTables, TranspositionTable) {
    (
        EvalTables::new(EvalKind::Nnue, Pages::Huge),
        TranspositionTable::new(tt_mib << 20, Pages::Huge),
    )
}

/// Each input's items, cycled to `n` (a power of two): random-play's every slider kind, and
/// uniform occupancies at 25 %.
fn lookup_inputs(config: &Config, n: usize) -> Vec<(LookupInput, Vec<workloads::LookupItem>)> {
    let random_play = workloads::game_like(config.seed ^ 0xE1_0100, Policy::Random, n);
    let random_play = cycled(&random_play.group(PieceGroup::Mixed), n);
    let uniform = workloads::uniform(config.seed ^ 0xE12_0025, 0.25, n, PieceGroup::Mixed);
    let uniform = cycled(&uniform.items, n);
    LookupInput::ALL
        .iter()
        .map(|&input| {
            let items = match input {
                LookupInput::ThroughputUniform => uniform.clone(),
                _ => random_play.clone(),
            };
            (input, items)
        })
        .collect()
}

/// Every entry's lookups on every input, family by family (a base with its variants and the
/// A/A twin), interleaved round by round within the family: a base and its variant are then
/// timed milliseconds apart, so that drift of the machine's speed, which moved whole processes
/// by up to 2× on a shared host, falls on both alike.
fn time_lookups(
    m: &mut Measurement,
    (pages, entries): (TablePages, &[Entry]),
    inputs: &[(LookupInput, Vec<workloads::LookupItem>)],
    invocation: Invocation,
) {
    let base_of = |name: &'static str| {
        m.pairs
            .iter()
            .find(|p| p.variant == name)
            .map_or(name, |p| p.base)
    };
    let mut families: Vec<Vec<Entry>> = Vec::new();
    for &entry in entries {
        match families
            .iter_mut()
            .find(|f| base_of(f[0].0) == base_of(entry.0))
        {
            Some(family) => family.push(entry),
            None => families.push(vec![entry]),
        }
    }
    for (input, items) in inputs {
        for family in &families {
            let mut cases: Vec<Case<'static>> = Vec::new();
            let mut timed: Vec<Entry> = Vec::new();
            for &(name, twin) in family {
                let make = MakeCase {
                    items,
                    group: PieceGroup::Mixed,
                    mode: input.mode(),
                };
                match registry::visit(name, make) {
                    Ok(case) => {
                        cases.push(case);
                        timed.push((name, twin));
                    }
                    Err(error) => m.errors.push(error.to_string()),
                }
            }
            let sampling = match input {
                LookupInput::ThroughputRandomPlay => m.sampling,
                _ => SampleConfig {
                    samples: m.mode_rounds,
                    ..m.sampling
                },
            };
            let results = interleaved(&mut cases, &sampling, invocation, None, &mut |_| {});
            for (result, (backend, twin)) in results.into_iter().zip(timed) {
                m.lookup.push(LookupRow {
                    input: *input,
                    pages,
                    backend,
                    twin,
                    ns: result.ns_per_op,
                });
            }
        }
    }
}

/// The search's inputs: the timed positions, the warm-up ones, the depth and the evaluation.
pub(super) struct Search<'a> {
    pub sfens: &'a [String],
    pub warm: &'a [String],
    pub depth: u32,
    pub tables: &'a EvalTables,
}

impl Search<'_> {
    /// `rounds` blocks, every named backend in each (a fresh shuffled order every forward and
    /// reverse pair of rounds, as E11), after one discarded block; records ns per node and any
    /// fingerprint that differs from the first backend's.
    pub fn time(
        &self,
        m: &mut Measurement,
        (pages, page_block, names): (TablePages, bool, &[Entry]),
        (rounds, invocation): (usize, Invocation),
        tt: &mut TranspositionTable,
        rng: &mut Xoshiro256PlusPlus,
    ) {
        let mut entries = names.to_vec();
        let block = |sfens| Block {
            sfens,
            warm: self.warm,
            depth: self.depth,
            tables: self.tables,
        };
        // Discarded: the first block of a phase runs slow (first use of tables and pages).
        let _ = block(&self.sfens[..self.sfens.len().min(entries.len())]).time(
            &entries,
            tt,
            &mut Vec::new(),
        );
        for round in 0..rounds {
            if round % 2 == 0 {
                entries.shuffle(rng);
                m.orders.push(format!(
                    "invocation {}, tables {}{}, rounds {}–{}: {}",
                    invocation.index + 1,
                    pages.name(),
                    if page_block { " (page block)" } else { "" },
                    round + 1,
                    round + 2,
                    entries
                        .iter()
                        .map(|&(name, twin)| if twin {
                            format!("{name} (A/A twin)")
                        } else {
                            name.to_string()
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            let order: Vec<(&'static str, bool)> = if round % 2 == 0 {
                entries.clone()
            } else {
                entries.iter().rev().copied().collect()
            };
            let runs = block(self.sfens).time(&order, tt, &mut m.errors);
            record(m, (pages, page_block), &order, runs);
        }
    }
}

/// One block's runs as samples, and any backend whose fingerprints differ from the first's.
fn record(
    m: &mut Measurement,
    (pages, page_block): (TablePages, bool),
    order: &[(&'static str, bool)],
    runs: Vec<Option<BenchRun>>,
) {
    let mut reference: Option<(&str, &BenchRun)> = None;
    for (&(backend, twin), run) in order.iter().zip(&runs) {
        let Some(run) = run else { continue };
        let ns = run.seconds * 1e9 / run.nodes.max(1) as f64;
        match m.search.iter_mut().find(|r| {
            (r.pages, r.page_block, r.backend, r.twin) == (pages, page_block, backend, twin)
        }) {
            Some(row) => row.ns_per_node.push(ns),
            None => m.search.push(SearchRow {
                pages,
                backend,
                twin,
                ns_per_node: vec![ns],
                page_block,
            }),
        }
        match reference {
            None => reference = Some((backend, run)),
            Some((first, first_run)) => {
                if let Some(difference) = first_run.difference_text(first, run, backend) {
                    m.errors.push(format!("fingerprints differ {difference}"));
                }
            }
        }
    }
    m.search
        .sort_by_key(|r| (r.pages, r.page_block, r.backend, r.twin));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_land_alike_only_where_every_process_agrees_within_a_tenth() {
        // magic-plain and its entry16 variant: about 89 % on 2 MiB pages in both.
        assert!(shares_agree(&[0.89, 0.88], &[0.89, 0.9]));
        // magic (about 74 %) and magic.split-words (a quarter in one process, a half in another).
        assert!(!shares_agree(&[0.74, 0.74], &[0.25, 0.49]));
        // Neither moved.
        assert!(shares_agree(&[0.0], &[0.0]));
        assert!(!shares_agree(&[0.5], &[0.5, 0.5]));
    }

    /// A process that ran the 2 MiB phase first merges with one that ran 4 KiB first (the
    /// 2026-12-02 report's E12 failed to merge without this).
    #[test]
    fn processes_of_either_phase_order_merge_row_by_row() {
        use TablePages::{Huge, Small};
        let parts = vec![
            vec![(Small, "a"), (Small, "b"), (Huge, "a")],
            vec![(Huge, "a"), (Small, "a"), (Small, "b")],
        ];
        let merged = merge_rows(&by_pages(parts, |r| r.0), |r| *r, |_, _| {}).unwrap();
        assert_eq!(merged, [(Small, "a"), (Small, "b"), (Huge, "a")]);
    }
}
