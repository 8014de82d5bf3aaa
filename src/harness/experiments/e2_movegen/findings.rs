//! E2's prose: the method and findings paragraphs, from the settings and the numbers.

use super::analysis::{Fastest, Numbers};
use super::measure::Measurement;
use crate::harness::experiments::{and_list, claims_method, per_second_millions, percent};
use crate::harness::stats::Claim;

/// The findings paragraph: per task its fastest backend and the peer against it, then whether
/// every count checked.
pub(super) fn paragraph(m: &Measurement, n: &Numbers) -> String {
    let mut findings = Vec::new();
    for fastest in &n.tasks {
        findings.extend(task_texts(fastest, m.threshold));
    }
    if m.errors.is_empty() {
        findings.push(
            "Every perft count matched the published value on every backend (and peer)."
                .to_string(),
        );
    } else {
        findings.push(format!("Problems: {}.", m.errors.join("; ")));
    }
    if findings.len() == 1 && m.rows.is_empty() {
        findings.push("No backend could be measured.".to_string());
    }
    findings.join(" ")
}

/// The sentence on a task's fastest backend, then one per peer.
fn task_texts(f: &Fastest, threshold: f64) -> Vec<String> {
    let (task, best) = (&f.task, f.best);
    let mut texts = vec![format!(
        "{task}: {best} has the best median, {:.2} M/s; the others take, per unit of work, {}.",
        per_second_millions(f.best_ns),
        and_list(&f.others)
    )];
    for p in &f.peers {
        let r = &p.ratio;
        let verdict = match r.claim {
            Claim::Slower => format!("{best} is ×{:.2} faster", r.ratio),
            Claim::Faster => format!("{best} is ×{:.2} slower", 1.0 / r.ratio),
            Claim::Level => format!("the two are level at ±{} %", percent(threshold)),
        };
        texts.push(format!(
            "Against {}: {:.2} M/s, {verdict} (peer time ÷ {best} time ×{:.2}, 95 % interval \
             {:.2}–{:.2}).",
            p.peer,
            per_second_millions(p.ns),
            r.ratio,
            r.low,
            r.high
        ));
    }
    texts
}

/// The method paragraph: the positions, perft, the peer, the counters and the claims.
pub(super) fn method(m: &Measurement) -> String {
    let mut method = format!(
        "Move generation: all legal moves of {} positions from seeded greedy playouts (seed \
         {:#x}; {:.1} legal moves per position on average), {} samples \
         interleaved round-robin. Perft: make/unmake with bulk counting at the last ply from \
         the start position and the GUIDE's second position, each count checked against the \
         published value before timing, one call per sample, backends interleaved \
         round-robin. Rotated backends update every rotated occupancy on each move, and that \
         cost is in these figures. Cells: millions per second with 95 % intervals; the \
         findings' ratios are paired per round (time relative to the fastest).",
        m.sfens.len(),
        m.workload_seed,
        m.moves_per_position,
        m.samples,
    );
    #[cfg(feature = "peers")]
    if !m.peers.is_empty() {
        method.push_str(&format!(
            " Peer, interleaved in the same rounds on the same positions and depths: {}; its \
             perft counts are checked too.",
            crate::peers::haitaka::DESCRIPTION
        ));
    }
    method.push_str(&format!(
        " {} (an op is a position for move generation, a node for perft).",
        m.counter_log.note()
    ));
    if !m.skipped.is_empty() {
        method.push_str(&format!(" Skipped: {}.", m.skipped.join("; ")));
    }
    format!("{method} {}", claims_method(m.threshold))
}
