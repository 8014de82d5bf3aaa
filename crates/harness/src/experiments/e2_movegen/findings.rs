//! E2's prose: the method and findings paragraphs, from the settings and the numbers.

use super::analysis::{Fastest, HeldOut, Numbers, Target, LIST_TARGET};
use super::measure::Measurement;
use crate::experiments::claims::{claims_method, level_words};
use crate::experiments::{and_list, per_second_millions};
use crate::stats::Claim;
use kiki_engine::perft::Leaf;

/// The findings paragraph: per task its fastest backend and the peer against it, then whether
/// every count checked.
pub(super) fn paragraph(m: &Measurement, n: &Numbers) -> String {
    let mut findings = Vec::new();
    for fastest in &n.tasks {
        findings.extend(task_texts(fastest, m.threshold));
    }
    findings.extend(peer_summary(m, n));
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

/// Per peer, the best backend's speed-up over it in each convention, then whether kiki's list
/// generation reaches the target; nothing without a peer comparison.
fn peer_summary(m: &Measurement, n: &Numbers) -> Vec<String> {
    let mut texts = Vec::new();
    for &peer in &m.peers {
        let ratio = |subject: &str, leaf: Leaf| -> Option<String> {
            let f = n.peers_on(subject, leaf)?;
            let r = &f.peers.iter().find(|p| p.peer == peer)?.ratio;
            Some(format!(
                "{} ×{:.2} ({:.2}–{:.2})",
                match subject {
                    "movegen" => "move generation".to_string(),
                    position => format!("{position} position"),
                },
                r.ratio,
                r.low,
                r.high
            ))
        };
        let group = |label: &str, parts: Vec<Option<String>>| -> Option<String> {
            let parts: Vec<String> = parts.into_iter().flatten().collect();
            (!parts.is_empty()).then(|| format!("{label}: {}", and_list(&parts)))
        };
        let groups: Vec<String> = [
            group(
                "count-only perft",
                vec![ratio("start", Leaf::Count), ratio("second", Leaf::Count)],
            ),
            group(
                "count-only perft without perft's shortcuts (like for like)",
                vec![
                    ratio("start", Leaf::CountPlain),
                    ratio("second", Leaf::CountPlain),
                ],
            ),
            group(
                "list-leaf perft",
                vec![ratio("start", Leaf::List), ratio("second", Leaf::List)],
            ),
            group("list convention", vec![ratio("movegen", Leaf::List)]),
            group("count convention", vec![ratio("movegen", Leaf::Count)]),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !groups.is_empty() {
            texts.push(format!(
                "Kiki's best backend per task against {peer}, as peer time ÷ kiki time (above 1 \
                 means kiki is faster; 95 % intervals): {}.",
                groups.join("; ")
            ));
        }
    }
    if let Some((f, peer, target)) = n.list_target() {
        let r = &peer.ratio;
        let verdict = match target {
            Target::Met => format!("met: the interval's lower end {:.2} is at least", r.low),
            Target::Missed => format!("not met: the interval's upper end {:.2} is below", r.high),
            Target::Undecided => format!(
                "not shown: the interval {:.2}–{:.2} straddles",
                r.low, r.high
            ),
        };
        texts.push(format!(
            "Target, kiki's list move generation at least ×{LIST_TARGET} the speed of {} in \
             the same convention: {verdict} ×{LIST_TARGET} ({} ×{:.2} on {}).",
            peer.peer, f.best, r.ratio, f.task
        ));
    }
    texts
}

/// The sentence on a task's fastest backend, then one per peer.
fn task_texts(f: &Fastest, threshold: f64) -> Vec<String> {
    let (task, best) = (&f.task, f.best);
    let speed = if f.held_out {
        format!(
            "has the best typical time over the choosing invocations ({:.2} M/s), and runs \
             at {:.2} M/s over the estimating ones",
            per_second_millions(f.chosen_ns),
            per_second_millions(f.best_ns)
        )
    } else {
        format!(
            "has the best typical time, {:.2} M/s",
            per_second_millions(f.best_ns)
        )
    };
    let mut texts = vec![format!(
        "{task}: {best} {speed}; the others take, per unit of work, {}.",
        and_list(&f.others)
    )];
    for p in &f.peers {
        let r = &p.ratio;
        let verdict = match r.claim {
            Claim::Slower => format!("{best} is ×{:.2} faster", r.ratio),
            Claim::Faster => format!("{best} is ×{:.2} slower", 1.0 / r.ratio),
            Claim::Level => format!("the two are {}", level_words(r, threshold)),
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
pub(super) fn method(m: &Measurement, n: &Numbers) -> String {
    let mut method = format!(
        "Move generation: all legal moves of {} positions from seeded greedy playouts (seed \
         {:#x}; {:.1} legal moves per position on average), {} samples \
         interleaved round-robin, in two conventions: list (`movegen list`: kiki's \
         `Position::legal_moves` fills a reused `MoveList`, the peer pushes every move of each \
         generated `PieceMoves` into a reused `Vec`, and the list's length is counted) and \
         count (`movegen count`: kiki's `Position::legal_move_count`, the peer's \
         `PieceMoves::len` summed, no move built); every program's total over the positions \
         is checked to be the same in both conventions. Perft: make/unmake from the start \
         position and the GUIDE's second position, in three leaf conventions: count-only (bulk \
         counting at the last ply, as above, with two shortcuts only a perft can take: the \
         last ply's parents make their moves without updating the Zobrist key, since no child \
         reads it, and a child reached by a move that gives no check skips the checker \
         search), count-only without those shortcuts (`(leaf count-plain)`: a keyed make and \
         the checker search at every node, as an engine's search pays them and as the peer's \
         `perft_bulk` does; the like-for-like comparison with the peer's count) and list \
         (`(leaf list)`: every move of each last-ply parent built into a list and the list \
         counted, with a keyed make and the checker search at every node — kiki's \
         `perft_leaf(…, Leaf::List)`, the peer's `perft_list`; on the second position one ply \
         shallower than the other conventions, since 2026-11-29, for the report's time \
         budget), each count checked against \
         the published value (one depth less in an untimed call before the samples, which \
         also warms the tables, and the timed depth on every timed call: a case that \
         miscounts is dropped and named), one call per sample and no calibrating call, \
         backends interleaved round-robin. Rotated backends update every rotated occupancy on each move, and that \
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
    // A task with a row that does not split by invocation chooses and estimates on all of
    // them, and its claims pool all of them: name those tasks.
    let pooled: Vec<String> = n
        .tasks
        .iter()
        .filter(|f| !f.held_out && n.split.select > 0)
        .map(|f| f.task.clone())
        .collect();
    let pooled = if pooled.is_empty() {
        String::new()
    } else {
        format!(
            " Not held out (a row's rounds do not split by invocation): {}, whose best backend \
             is chosen and whose ratios are estimated on all {} invocations.",
            and_list(&pooled),
            m.invocations
        )
    };
    format!(
        "{method} {}{pooled} {}",
        held_out_sentence(n.split),
        claims_method(m.threshold, n.split.estimate)
    )
}

/// How the best backend was chosen apart from the rounds its ratios rest on.
fn held_out_sentence(split: HeldOut) -> String {
    crate::experiments::held_out::sentence(
        split,
        "Each task's best backend",
        "its ratios",
        "its ratios against the other backends and the peer",
    )
}
