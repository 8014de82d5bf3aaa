//! What "without pressure" means: seed 004's backends at P = 0 again, on the main walk's own
//! windows walked once just before they are timed (warmed), and on a long search (few roots
//! searched deep).

use super::chains::{time_into, twin_cases};
use super::reuse::reuse_of;
use super::timing::Warming;
use super::{Measurement, Steps};
use crate::workloads::SearchWorkload;

/// The backends the P = 0 variants time: seed 004's pair, and fancy magic beside it.
pub(crate) const UNPRESSED_BACKENDS: [&str; 3] = ["magic-plain", "magic", "dbb"];

/// The parts' labels.
pub(crate) const WARMED: &str = "warmed";
pub(crate) const LONG_SEARCH: &str = "long search";

/// Times [`UNPRESSED_BACKENDS`] at P = 0 on the main walk with each round's window walked once
/// before it (`window`: the main sweep's, the very nodes its P = 0 rounds walked), then on
/// `long`; and the reuse of their table lines along `long`.
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
        let mut cases = twin_cases(&backends, (walk, pressure), 0);
        if cases.is_empty() {
            steps.done += 1;
            continue;
        }
        time_into(
            m,
            (walk, &mut cases, &mut window),
            (warming, part),
            (part, 0, ("as built", "huge")),
            &mut |f| steps.report(part, f),
        );
        steps.done += 1;
    }
    m.long_workload = long.description.clone();
    m.reuse_long = backends
        .iter()
        .filter_map(|&name| reuse_of(name, long))
        .collect();
}
