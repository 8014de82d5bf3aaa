//! The chain sweep over the pressure counts: every backend against its hot twin, the
//! synthetic tables (the controls) and the A/A control.

use super::dose::dose_sweep;
use super::ring::Rings;
use super::timing::{
    find_window, mask_label, push_chains, shuffled, synthetic_body, time_chains, ChainCase,
    MakeChain, Walk, Warming,
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

/// A last-level positive control that could not be placed: the last level's plateau, from
/// where E6's step after the level below it ends to the last level's size, is under one
/// doubling wide, so no table size lies both beyond the lower level's reach and inside the last
/// level with room for the walk's own data beside it.
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
/// invocation with no plateau between them empties it rather than being left out. E6's
/// invocations disagree by half a doubling or more (the -28 Zen 1: the step after L2 ended at
/// 724 KiB in four and 1 MiB in one, the step after L3 started at 1.41 MiB in three and 1 MiB in
/// two), and a control off the plateau in some of them spills there. The plateau is empty where
/// its start lies beyond its end. `None` without a last level above L2.
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
/// half the measured L2, for the last level (where that differs) half of it or the geometric
/// middle of its plateau ([`last_plateau`]), and `memory_bytes` (the pressure
/// buffer's size, 4× the last level or more). A plateau under one doubling wide places no
/// last-level control ([`unplaced_control`]).
pub(in super::super) fn synthetic_sizes(
    levels: &CacheLevels,
    memory_bytes: usize,
) -> Vec<(String, usize)> {
    // First the masked negative control: one page, read whole by the real chain and by its
    // twin alike, so any cost it shows is the method's, not a miss's.
    let mut sizes = vec![(ONE_PAGE.to_string(), HOT_MASK + 1)];
    if let Some(l2) = levels.level("L2") {
        sizes.push(("½ L2".to_string(), l2.bytes / 2));
    }
    if let Some((below, last, plateau_start, plateau_end)) = last_plateau(levels) {
        // Half the last level where it lies on the plateau at or above its geometric middle,
        // else the middle: E6's L3 can end barely above L2, where half would test L2 again, and
        // the step after L2 can be a ramp several doublings long, where a table is served partly
        // by L2 (the Intel 6/207 of -27-7: L2 1 MiB, its step ending at 2 MiB, L3 2,965,760 B =
        // 2.83 MiB).
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

/// The last-level control's plateau ([`last_plateau`]) where it is under one doubling wide: E6
/// resolves sizes to half a doubling, so it holds at most two measured sizes, and a table there
/// with the walk's data beside it spills to memory in some invocations and not in others (the
/// -28 Zen 1's 1 MiB control, 12–30 ns against 14 expected, on a pooled plateau of 724 KiB–1.41
/// MiB that the invocations narrow to 1 MiB–1 MiB).
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
    (pressure, synthetic, rings): (&[u64], &[&[u64]], &Rings),
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
        let (results, block_order) = time_chains(
            workload,
            &mut cases,
            &m.sampling,
            (m.ns_per_tick, m.levels.last_level_bytes()),
            &mut window,
            (m.invocation, Warming::Before),
            (m.order_seed.value, &format!("chain P={reads}")),
            &mut |f| steps.report(&message, f),
        );
        m.block_orders.push(block_order);
        push_chains(m, &cases, results, "chain", reads, ("as built", "huge"));
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
    (pressure, synthetic, rings): (&'a [u64], &[&'a [u64]], &'a Rings),
    reads: u32,
) -> Vec<ChainCase<'a>> {
    let mut cases: Vec<ChainCase<'a>> = Vec::new();
    for name in &m.backends {
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
