//! What "without pressure" means: seed 004's backends at P = 0 again, on the main walk's own
//! windows walked once just before they are timed (warmed), and on a long search (few roots
//! searched deep).

use super::reuse::reuse_of;
use super::timing::{push_chains, time_chains, ChainCase, MakeChain, Warming};
use super::{Measurement, Steps};
use crate::experiments::e7_cache_pressure::HOT_MASK;
use crate::registry;
use crate::workloads::SearchWorkload;

/// The backends the P = 0 variants time: seed 004's pair, and fancy magic beside it.
pub(crate) const UNPRESSED_BACKENDS: [&str; 3] = ["magic-plain", "magic", "dbb"];

/// The parts' labels.
pub(crate) const WARMED: &str = "warmed";
pub(crate) const LONG_SEARCH: &str = "long search";

/// Times [`UNPRESSED_BACKENDS`] (full table and hot twin) at P = 0 on the main walk with each
/// round's window walked once before it (`window`: the main sweep's, so the rounds walk the
/// very nodes the sweep's P = 0 rounds walked), then on `long`; and the reuse of their table
/// lines along `long`.
pub(super) fn unpressed(
    m: &mut Measurement,
    (main, long): (&SearchWorkload, &SearchWorkload),
    pressure: &[u64],
    window: Option<usize>,
    steps: &mut Steps<'_>,
) {
    let backends: Vec<&'static str> = UNPRESSED_BACKENDS
        .iter()
        .copied()
        .filter(|name| m.backends.contains(name))
        .collect();
    for (part, walk, warming, mut window) in [
        (WARMED, main, Warming::EachWindow, window),
        (LONG_SEARCH, long, Warming::Before, None),
    ] {
        let mut cases: Vec<ChainCase<'_>> = Vec::new();
        for name in &backends {
            let made = MakeChain {
                workload: walk,
                pressure,
                reads: 0,
                masks: vec![usize::MAX, HOT_MASK],
                stream: cases.len() as u64,
                labels: None,
            };
            if let Ok(made) = registry::visit_base(name, made) {
                cases.push(made);
            }
        }
        if cases.is_empty() {
            steps.done += 1;
            continue;
        }
        let (results, block_order) = time_chains(
            walk,
            &mut cases,
            &m.sampling,
            (m.ns_per_tick, m.levels.last_level_bytes()),
            &mut window,
            (m.invocation, warming),
            (m.order_seed.value, part),
            &mut |f| steps.report(part, f),
        );
        m.block_orders.push(block_order);
        push_chains(m, &cases, results, part, 0, ("as built", "huge"));
        steps.done += 1;
    }
    m.long_workload = long.description.clone();
    m.reuse_long = backends
        .iter()
        .filter_map(|&name| reuse_of(name, long))
        .collect();
}
