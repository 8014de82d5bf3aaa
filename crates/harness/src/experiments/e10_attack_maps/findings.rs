//! E10's prose: the method and findings paragraphs, from the settings and the numbers.

use super::analysis::{Best, Numbers};
use super::measure::{Measurement, INCREMENTAL, MAPS, MATE1, PERFT};
use crate::experiments::and_list;
use crate::experiments::claims::{claims_method, level_words, percent};
use crate::stats::{format_interval, Claim, Comparison};

fn best_text(best: &Best) -> String {
    if best.backend == INCREMENTAL {
        return format!(
            "{INCREMENTAL} {}, {} ns",
            best.variant,
            format_interval(&best.estimate)
        );
    }
    format!(
        "{} on {}, {} ns",
        best.variant,
        best.backend,
        format_interval(&best.estimate)
    )
}

/// `×0.62 (0.60–0.64), faster` and the like, for `a`'s time over `b`'s.
fn ratio_text(c: &Comparison, threshold: f64) -> String {
    let word = match c.claim {
        Claim::Faster => "faster".to_string(),
        Claim::Slower => "slower".to_string(),
        Claim::Level => level_words(c, threshold),
    };
    format!("×{:.2} ({:.2}–{:.2}), {word}", c.ratio, c.low, c.high)
}

/// The findings: the maps, king safety in perft and mate1, the effect recount, the AVX-512
/// neighbour control and the verification.
pub(super) fn paragraph(m: &Measurement, n: &Numbers) -> String {
    let mut findings = Vec::new();
    map_findings(m, n, &mut findings);
    engine_findings(m, n, &mut findings);
    recount_finding(m, n, &mut findings);
    neighbour_finding(m, n, &mut findings);
    if m.errors.is_empty() {
        findings.push(format!(
            "Before timing, every method's maps and counts equalled the per-piece ones on all {} \
             position-backend pairs (both colours), and on the first 50 random-play positions a naive per-square count \
             on the reference; perft counts and mate answers with every king-safety mode equalled the \
             per-square ones.",
            m.verified_positions
        ));
    } else {
        findings.push(format!("Problems: {}.", m.errors.join("; ")));
    }
    findings.join(" ")
}

/// Per map group: the best per-piece map against the best set-wise ones.
fn map_findings(m: &Measurement, n: &Numbers, findings: &mut Vec<String>) {
    for v in &n.maps {
        let set_wise: Vec<String> = v
            .set_wise
            .iter()
            .map(|(best, ratio)| match ratio {
                Some(c) => format!(
                    "{}: ×{:.2} ({:.2}–{:.2}) the per-piece time ({})",
                    best_text(best),
                    c.ratio,
                    c.low,
                    c.high,
                    match c.claim {
                        Claim::Faster => "faster".to_string(),
                        Claim::Slower => "slower".to_string(),
                        Claim::Level => level_words(c, m.threshold),
                    }
                ),
                None => format!("{} (no paired samples)", best_text(best)),
            })
            .collect();
        findings.push(format!(
            "{} ({}): the best per-piece map is {}; the best set-wise maps: {}.",
            v.group,
            v.set,
            best_text(&v.per_piece),
            and_list(&set_wise)
        ));
    }
}

/// Per engine group and king-safety mode: the range of per-square ratios across backends.
fn engine_findings(m: &Measurement, n: &Numbers, findings: &mut Vec<String>) {
    for group in [PERFT, MATE1] {
        let mut modes: Vec<&str> = Vec::new();
        for e in n.engine.iter().filter(|e| e.group == group) {
            if !modes.contains(&e.mode.as_str()) {
                modes.push(&e.mode);
            }
        }
        for mode in modes {
            let effects: Vec<_> = n
                .engine
                .iter()
                .filter(|e| e.group == group && e.mode == mode)
                .collect();
            let count = |claim: Claim| effects.iter().filter(|e| e.ratio.claim == claim).count();
            let level = effects
                .iter()
                .filter(|e| e.ratio.claim == Claim::Level && e.ratio.within(m.threshold))
                .count();
            let low = effects
                .iter()
                .map(|e| e.ratio.ratio)
                .fold(f64::INFINITY, f64::min);
            let high = effects
                .iter()
                .map(|e| e.ratio.ratio)
                .fold(f64::NEG_INFINITY, f64::max);
            let (faster, slower) = (count(Claim::Faster), count(Claim::Slower));
            let verdict = match (faster, slower) {
                (0, 0) => "no difference resolved on any backend".to_string(),
                (0, s) => format!("never faster, slower on {s}"),
                (f, 0) => format!("faster on {f}, never slower"),
                _ => "mixed across backends".to_string(),
            };
            findings.push(format!(
                "{group} with king safety by {mode} ({}): ×{low:.2} to ×{high:.2} the per-square \
                 time across {} backends (faster on {}, slower on {}, level at ±{} % on {}, \
                 unresolved on {}): {verdict}.",
                if group == PERFT {
                    format!("start position to depth {}", m.perft_depth)
                } else {
                    format!("{} tactical positions", m.mate1_positions)
                },
                effects.len(),
                count(Claim::Faster),
                count(Claim::Slower),
                percent(m.threshold),
                level,
                count(Claim::Level) - level
            ));
        }
    }
}

/// The effect counts' recount against the fastest incremental effect board.
fn recount_finding(m: &Measurement, n: &Numbers, findings: &mut Vec<String>) {
    if let Some(r) = &n.recount {
        let versus = r.ratio.map_or("no paired samples".to_string(), |c| {
            ratio_text(&c, m.threshold)
        });
        let control = r.over_control.map_or(String::new(), |c| {
            format!(
                "; on {} the recount makes make+unmake ×{:.2} ({:.2}–{:.2}) as slow",
                r.best_recount.backend, c.ratio, c.low, c.high
            )
        });
        findings.push(format!(
            "Effect counts per move: recounting both colours from scratch after each make (best: \
             {}, including that backend's Position make+unmake) against the fastest incremental \
             effect board ({}: its own board's make and unmake with the counts updated both ways, \
             no Position): {versus}{control}. Only the recount side carries a Position's \
             make+unmake, so the comparison leans against the recount; the recount is not \
             repeated on unmake (the parent's counts would be restored from a stack, not timed).",
            best_text(&r.best_recount),
            best_text(&r.best_incremental),
        ));
    }
}

/// The AVX-512 neighbour control: the other cells timed again without the AVX-512 cells.
fn neighbour_finding(m: &Measurement, n: &Numbers, findings: &mut Vec<String>) {
    if !n.neighbour_control.is_empty() {
        let level = n
            .neighbour_control
            .iter()
            .filter(|c| c.claim == Claim::Level)
            .count();
        let low = n
            .neighbour_control
            .iter()
            .map(|c| c.ratio)
            .fold(f64::INFINITY, f64::min);
        let high = n
            .neighbour_control
            .iter()
            .map(|c| c.ratio)
            .fold(f64::NEG_INFINITY, f64::max);
        let widest = n
            .neighbour_control
            .iter()
            .map(|c| (c.low, c.high))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |a, b| {
                (a.0.min(b.0), a.1.max(b.1))
            });
        let within = n
            .neighbour_control
            .iter()
            .filter(|c| c.within(m.threshold))
            .count();
        findings.push(format!(
            "AVX-512 neighbour control ({MAPS}, first set only): the other {} cells, timed again \
             in a separate run without the AVX-512 cells, against themselves beside them: \
             ×{low:.2} to ×{high:.2} (intervals {:.2}–{:.2}); {within} lie wholly within \
             ±{} % (a pass), {} are unresolved at that threshold, {} moved. The two runs are \
             separate, so drift between them is not cancelled; the other groups and E1's batch \
             cells were not checked. AMD Zen 4 keeps its clock for 512-bit code, so a pass \
             here says nothing about Intel's AVX-512 frequency licences.",
            n.neighbour_control.len(),
            widest.0,
            widest.1,
            percent(m.threshold),
            level - within,
            n.neighbour_control.len() - level,
        ));
    }
}

pub(super) fn method(m: &Measurement) -> String {
    let sets: Vec<String> = m.sets.iter().map(|(n, c)| format!("{n} ({c})")).collect();
    let mut method = format!(
        "Whole-side attack maps (the union of one colour's attacks) and per-square attack counts \
         (bit-sliced, 5 planes), for both colours of each position, by {}. Per piece: one \
         backend lookup per piece, each added into the bit planes in the backend's layout, then \
         the union and 5 planes converted to the canonical layout (a bit loop on bonanza and \
         dbb). \
         Set-wise: the colour's pieces converted to the canonical board, then per direction an \
         occluded Kogge-Stone fill over all its sliders (8 directions) or one shift of all its \
         steppers (10 offsets), each a 0/1 count, summed by a carry-save adder tree; the level \
         names the code of the fills (portable u128, AVX2 two directions per ymm, AVX-512 four \
         per zmm with VBMI2 double shifts); set-wise timings include the input conversion \
         (`SidePieces::of`, free on mailbox and sqww, a bit loop on bonanza and dbb), the same \
         kernel on every backend. Every timed loop folds every bit of both maps. The avx512 \
         level needs AVX-512 F/BW/VL and VBMI2 (Intel Ice Lake and later, AMD Zen 4 and \
         later); Zen 4 runs 512-bit operations as two 256-bit halves and keeps its clock, so \
         on Intel parts with full-width 512-bit units and AVX-512 frequency licences the \
         avx512-against-avx2 gaps may differ. Position sets (seed {:#x}): {}. \"{MAPS}\" times \
         independent positions (throughput), \"map+counts latency\" chains them (the next \
         position's index depends on one bit of this one's maps), \"map only\" computes the unions alone. \
         Engine use: perft of the start position to depth {} and the mate-in-1 fast path on \
         {} tactical positions, with king moves (movegen) and flight squares (mate1) tested per \
         square or by one attack map (seen through the king). Recount: random games from E5's \
         generator (uniform legal moves, a capture half the time; {} moves, not E5's own \
         games), make + both colours' counts from scratch + unmake per move on each backend, \
         beside its make+unmake alone and E5's incremental effect boards replaying the same \
         games (their own board's make+unmake with count updates, no Position). {} samples per cell, the cells of each group \
         interleaved round-robin; cells: value [95 % interval].",
        and_list(&m.methods.iter().map(|x| x.name()).collect::<Vec<_>>()),
        m.seed,
        and_list(&sets),
        m.perft_depth,
        m.mate1_positions,
        m.recount_moves,
        m.samples,
    );
    if !m.skipped.is_empty() {
        method.push_str(&format!(" Skipped: {}.", m.skipped.join("; ")));
    }
    format!("{method} {}", claims_method(m.threshold, m.invocations))
}
