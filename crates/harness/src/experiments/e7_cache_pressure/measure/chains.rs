//! The chain sweep over the pressure counts (every backend against its hot twin, the synthetic
//! tables and the A/A control), and the cases and timing call E7's other sweeps share.

use super::ring::{Rings, SyntheticTable};
use super::timing::{
    find_window, mask_label, shuffled, synthetic_body, time_chains, Chain, ChainCase, MakeChain,
    Walk, Warming,
};
use super::{attack_table_bytes, Measurement, Steps};
use crate::cache_levels::{CacheLevels, EffectiveLevel};
use crate::experiments::e7_cache_pressure::HOT_MASK;
use crate::registry;
use crate::workloads::SearchWorkload;
use kiki_core::units::rounded_bytes;
use serde::{Deserialize, Serialize};

/// The label of the synthetic table of one page: the negative control that runs the masked
/// path (mailbox and sqww ignore the mask).
pub(in super::super) const ONE_PAGE: &str = "one page";

/// A last-level positive control that could not be placed: the last level's plateau is under
/// one doubling wide, so no table size lies both beyond the lower level's reach and inside the
/// last level with room for the walk's own data beside it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Unplaced {
    /// The last level (`L3`) and the one below it (`L2`).
    pub level: String,
    pub below: String,
    /// The plateau: the end of the step after `below`, and the last level's size.
    pub plateau_start_bytes: usize,
    pub plateau_end_bytes: usize,
}

impl Unplaced {
    /// `724 KiB–1 MiB, under one doubling wide`, or why it is empty.
    pub(crate) fn plateau_words(&self) -> String {
        let (start, end) = (
            rounded_bytes(self.plateau_start_bytes as f64),
            rounded_bytes(self.plateau_end_bytes as f64),
        );
        if self.plateau_start_bytes <= self.plateau_end_bytes {
            format!("{start}–{end}, under one doubling wide")
        } else {
            format!(
                "empty: the step after {} ends as late as {start} and the step after {} starts \
                 as early as {end}",
                self.below, self.level
            )
        }
    }
}

/// The plateau a last-level control must lie on and the level below it, in every invocation:
/// from the latest of the lower level's sizes and the ends of the step after it (pooled and per
/// invocation), to the earliest of the last level's sizes and the starts of the step after it
/// (the last size on its plateau), each bounded by the two levels' pooled sizes, so that an
/// invocation with no plateau between them empties it rather than being left out: E6's
/// invocations disagree by half a doubling or more, and a control off the plateau in some of
/// them spills there. Empty where its start lies beyond its end; `None` without a level above L2.
fn last_plateau(levels: &CacheLevels) -> Option<(&EffectiveLevel, &EffectiveLevel, usize, usize)> {
    let n = levels.levels.len();
    let last = levels.levels.last()?;
    if n < 2 || last.level == "L2" || last.level == "L1" {
        return None;
    }
    let below = &levels.levels[n - 2];
    // Not `clamp`, which panics should E6 ever order the two levels the other way round.
    let bound = |bytes: usize| bytes.max(below.bytes).min(last.bytes);
    let start = below
        .ramps_per_invocation
        .iter()
        .flatten()
        .chain(&below.ramp)
        .map(|r| r.end_bytes)
        .chain(below.bytes_per_invocation.iter().flatten().copied())
        .map(bound)
        .fold(below.bytes, usize::max);
    let end = last
        .ramps_per_invocation
        .iter()
        .flatten()
        .chain(&last.ramp)
        .map(|r| r.start_bytes)
        .chain(last.bytes_per_invocation.iter().flatten().copied())
        .map(bound)
        .fold(last.bytes, usize::min);
    Some((below, last, start, end))
}

/// The synthetic tables' sizes: one page (a negative control), then the positive controls':
/// half the measured L2, for the last level (where that differs) half of it where that lies on
/// its plateau ([`last_plateau`]) at or above the plateau's geometric middle, else the middle,
/// and `memory_bytes` (the pressure buffer's size). A plateau under one doubling wide places no
/// last-level control ([`unplaced_control`]).
pub(in super::super) fn synthetic_sizes(
    levels: &CacheLevels,
    memory_bytes: usize,
) -> Vec<(String, usize)> {
    // The masked negative control: read whole by the real chain and its twin alike.
    let mut sizes = vec![(ONE_PAGE.to_string(), HOT_MASK + 1)];
    if let Some(l2) = levels.level("L2") {
        sizes.push(("½ L2".to_string(), l2.bytes / 2));
    }
    if let Some((below, last, plateau_start, plateau_end)) = last_plateau(levels) {
        // Half would test L2 again where L3 ends barely above it, and a size inside a long
        // ramp after L2 is served partly by L2 (the tests name the machines).
        let half = last.bytes / 2;
        let middle = ((plateau_start as f64) * (plateau_end as f64)).sqrt() as usize;
        if unplaced_control(levels).is_some() {
            // No size is both clear of the level below and inside this one.
        } else if half >= middle && half <= plateau_end {
            sizes.push((format!("½ {}", last.level), half));
        } else {
            sizes.push((format!("mid {}–{}", below.level, last.level), middle));
        }
    }
    sizes.push(("memory".to_string(), memory_bytes));
    sizes
}

/// The last-level control's plateau ([`last_plateau`]) where it is under one doubling wide: it
/// holds at most two of E6's sizes, and a table there spills to memory in some invocations (the
/// -28 Zen 1's 1 MiB control, 12–30 ns against 14 expected).
pub(in super::super) fn unplaced_control(levels: &CacheLevels) -> Option<Unplaced> {
    let (below, last, plateau_start, plateau_end) = last_plateau(levels)?;
    (plateau_end < 2 * plateau_start).then(|| Unplaced {
        level: last.level.clone(),
        below: below.level.clone(),
        plateau_start_bytes: plateau_start,
        plateau_end_bytes: plateau_end,
    })
}

/// The case name of a positive control's synthetic table.
pub(in super::super) fn synthetic_case(label: &str) -> String {
    format!("{} ({label})", super::super::SYNTHETIC)
}

/// The case name of the A/A control on `backend`, and its second mask's label.
pub(in super::super) fn aa_case(backend: &str) -> String {
    format!("{backend} A/A")
}
pub(in super::super) const AA_SECOND: &str = "full, again";

/// Every backend (full table and hot twin), the synthetic tables and the A/A control at every
/// pressure; then, at the highest pressure, the dose–response. Returns the window (nodes per
/// round) every count walked.
pub(super) fn chain_sweep(
    m: &mut Measurement,
    workload: &SearchWorkload,
    (pressure, synthetic, rings): (&[u64], &[SyntheticTable], &Rings),
    steps: &mut Steps<'_>,
) -> Option<usize> {
    let highest = m.pressure_reads.last().copied().unwrap_or(0);
    m.aa_backend = m
        .backends
        .iter()
        .copied()
        .map(|name| (name, attack_table_bytes(name)))
        .filter(|&(_, bytes)| bytes > HOT_MASK + 1)
        .max_by_key(|&(_, bytes)| bytes)
        .map(|name| name.0);
    // The window is sized at the top count before the sweep (the smallest there, since the
    // untimed pressure phase dominates a node), and then used at every count, so that round r
    // walks the same nodes at every P and the changes from P = 0 pair node for node; the counts
    // themselves are swept in a seeded order of their own per invocation.
    let mut window = Some(find_window(
        workload,
        &mut chain_cases(m, workload, (pressure, synthetic, rings), highest),
        &m.sampling,
    ));
    let order: Vec<u32> = shuffled(
        m.order_seed.value,
        m.pressure_reads.len(),
        m.invocation.index,
        "pressure counts",
    )
    .into_iter()
    .map(|i| m.pressure_reads[i])
    .collect();
    m.pressure_orders.push(order.clone());
    let first_row = m.chains.len();
    for reads in order {
        let mut cases = chain_cases(m, workload, (pressure, synthetic, rings), reads);
        let message = format!("{reads} pressure reads per node");
        time_into(
            m,
            (workload, &mut cases, &mut window),
            (Warming::Before, &format!("chain P={reads}")),
            ("chain", reads, ("as built", "huge")),
            &mut |f| steps.report(&message, f),
        );
        drop(cases);
        steps.done += 1;
    }
    // The rows in the counts' own order, whatever order measured them: merging invocations
    // pairs their rows one by one.
    let position = |reads: u32| m.pressure_reads.iter().position(|&r| r == reads);
    let mut rows = m.chains.split_off(first_row);
    rows.sort_by_key(|row| position(row.reads));
    m.chains.extend(rows);
    let swept = window;
    dose_sweep(m, workload, pressure, highest, &mut window, steps);
    steps.done += 1;
    swept
}

/// The chain sweep's cases at `reads` pressure reads per node: every backend against its hot
/// twin, the A/A control, the synthetic tables, and at P = 0 (where the positive controls are
/// judged) the rings beside them.
fn chain_cases<'a>(
    m: &Measurement,
    workload: &'a SearchWorkload,
    (pressure, synthetic, rings): (&'a [u64], &'a [SyntheticTable], &'a Rings),
    reads: u32,
) -> Vec<ChainCase<'a>> {
    let mut cases = twin_cases(&m.backends, (workload, pressure), reads);
    if let Some(name) = m.aa_backend {
        let made = MakeChain {
            workload,
            pressure,
            reads,
            masks: vec![usize::MAX, usize::MAX],
            stream: cases.len() as u64,
            labels: Some(vec![mask_label(usize::MAX), AA_SECOND.to_string()]),
        };
        if let Ok(mut made) = registry::visit_base(name, made) {
            made.case = aa_case(name);
            cases.push(made);
        }
    }
    for ((label, _), table) in m.synthetic.iter().zip(synthetic) {
        let walk = Walk {
            workload,
            pressure,
            reads,
            stream: cases.len() as u64,
        };
        cases.push(synthetic_chain(synthetic_case(label), table, walk));
    }
    if reads == 0 {
        let walk = Walk {
            workload,
            pressure,
            reads,
            stream: 0,
        };
        let first_stream = cases.len() as u64;
        cases.extend(rings.cases(walk, first_stream));
    }
    cases
}

/// Each of `names` (full tables and hot twin) at `reads`, its pressure stream its place among
/// those visited.
pub(super) fn twin_cases<'a>(
    names: &[&'static str],
    (workload, pressure): (&'a SearchWorkload, &'a [u64]),
    reads: u32,
) -> Vec<ChainCase<'a>> {
    let mut cases = Vec::new();
    for name in names {
        let made = MakeChain {
            workload,
            pressure,
            reads,
            masks: vec![usize::MAX, HOT_MASK],
            stream: cases.len() as u64,
            labels: None,
        };
        if let Ok(made) = registry::visit_base(name, made) {
            cases.push(made);
        }
    }
    cases
}

/// A synthetic table's case named `case` (full table and hot twin, [`synthetic_body`]).
pub(super) fn synthetic_chain<'a>(
    case: String,
    table: &'a SyntheticTable,
    walk: Walk<'a>,
) -> ChainCase<'a> {
    let masks = vec![usize::MAX, HOT_MASK];
    let words = table.buffer.as_slice();
    ChainCase {
        footprint: words.len() * 8,
        case,
        masks: masks.iter().map(|&mask| mask_label(mask)).collect(),
        body: Box::new(synthetic_body((words, &table.visit), walk, masks)),
    }
}

/// [`time_chains`] at `m`'s settings, the call labelled `label`; its block order and its
/// results (per case and mask) stored in `m`, as chains of `part` at `reads` with their tables
/// and pressure on the pages named.
pub(super) fn time_into(
    m: &mut Measurement,
    (workload, cases, window): (&SearchWorkload, &mut [ChainCase<'_>], &mut Option<usize>),
    (warming, label): (Warming, &str),
    (part, reads, (tables, pressure)): (&'static str, u32, (&'static str, &'static str)),
    progress: &mut dyn FnMut(f64),
) {
    let (results, block_order) = time_chains(
        workload,
        cases,
        &m.sampling,
        (m.ns_per_tick, m.levels.last_level_bytes()),
        window,
        (m.invocation, warming),
        (m.order_seed.value, label),
        progress,
    );
    m.block_orders.push(block_order);
    let labels = cases.iter().flat_map(|c| {
        c.masks
            .iter()
            .map(move |mask| (c.case.clone(), mask.clone()))
    });
    for ((case, mask), timed) in labels.zip(results) {
        m.chains.push(Chain {
            part,
            reads,
            case,
            mask,
            tables,
            pressure,
            ns: timed.ns,
            ns_mean: timed.ns_mean,
        });
    }
}

/// The dose–response footprints below the full table (byte masks): half the measured L2,
/// half the last level and twice the last level, each rounded down to a power of two (a mask
/// keeps whole low bits), above the hot twin's 4 KiB and without repeats.
pub(in super::super) fn dose_masks(levels: &CacheLevels) -> Vec<usize> {
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

/// The case name of `backend`'s dose–response point at `mask`.
pub(in super::super) fn dose_case(backend: &str, mask: usize) -> String {
    format!("{backend} @ {}", mask_label(mask))
}

/// The dose–response at the top pressure, full tables included, in one sweep of its own: a
/// case per backend and footprint (two masks in one case would share table lines).
pub(super) fn dose_sweep(
    m: &mut Measurement,
    workload: &SearchWorkload,
    pressure: &[u64],
    highest: u32,
    window: &mut Option<usize>,
    steps: &mut Steps<'_>,
) {
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
            if let Ok(mut made) = registry::visit_base(name, made) {
                made.case = dose_case(name, mask);
                cases.push(made);
            }
        }
    }
    if !cases.is_empty() {
        time_into(
            m,
            (workload, &mut cases, window),
            (Warming::Before, "dose"),
            ("dose", highest, ("as built", "huge")),
            &mut |f| steps.report("dose–response", f),
        );
    }
}
