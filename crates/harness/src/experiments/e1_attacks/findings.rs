//! E1's prose: the method and findings paragraphs, from the settings and the numbers.

use super::analysis::{KindCycles, Leader, Numbers, Wins, CYCLE_BACKEND, CYCLE_TARGETS};
use super::measure::Measurement;
use super::Mode;
use crate::experiments::and_list;
use crate::experiments::claims::{claims_method, level_words, percent};
use crate::stats::{format_sig, Claim, Estimate};

/// The findings paragraph: the leaders per mode, the cost of mixing kinds, the wins per mode
/// (and whether the modes disagree), the largest spread and the thin cells.
pub(super) fn paragraph(m: &Measurement, n: &Numbers<'_>, pext_microcoded: bool) -> String {
    let mut findings = Vec::new();
    for (mode, leaders) in &n.leaders {
        if !leaders.is_empty() {
            let texts: Vec<String> = leaders
                .iter()
                .map(|l| leader_text(l, m.threshold))
                .collect();
            findings.push(format!(
                "{} (mixed slider kinds, median ns per lookup): {}.",
                match mode {
                    Mode::Throughput => "Throughput",
                    Mode::Latency => "Latency",
                },
                texts.join("; ")
            ));
        }
    }
    findings.push(cycles_text(m, n, pext_microcoded));
    if !n.batch.is_empty() {
        let faster: Vec<String> = n
            .batch
            .iter()
            .filter(|g| g.ratio.claim == Claim::Faster)
            .map(|g| {
                format!(
                    "{} {} {} ×{:.2} ({:.2}–{:.2})",
                    g.backend, g.piece, g.variant, g.ratio.ratio, g.ratio.low, g.ratio.high
                )
            })
            .collect();
        let slower = n
            .batch
            .iter()
            .filter(|g| g.ratio.claim == Claim::Slower)
            .count();
        let level = n
            .batch
            .iter()
            .filter(|g| g.ratio.claim == Claim::Level && g.ratio.within(m.threshold))
            .count();
        let unresolved = n.batch.len() - faster.len() - slower - level;
        findings.push(format!(
            "Batch lookups (`attacks_many_occupancies_at`, {} pairs, rook and bishop, throughput) \
             against the same pairs one at a time into the same buffer, per backend and SIMD \
             level: faster in {} of {} cells{}; level at ±{} % in {level}, unresolved in \
             {unresolved}, slower in {slower}. Only qugiy \
             has a batch kernel (AVX-512, four squares per zmm, needing F/BW/VL and VBMI2); every \
             other cell, qugiy's portable and avx2 ones included, runs the one-at-a-time lookups \
             behind the call and is a negative control whose difference is the call's own \
             overhead.",
            m.batch_workload,
            faster.len(),
            n.batch.len(),
            if faster.is_empty() {
                String::new()
            } else {
                format!(" ({})", faster.join(", "))
            },
            percent(m.threshold),
        ));
    }
    if !n.mixing.is_empty() {
        let mixing: Vec<String> = n
            .mixing
            .iter()
            .map(|(workload, extra)| format!("{workload} {extra:+.2} ns"))
            .collect();
        findings.push(format!(
            "Mixing the slider kinds costs by itself (throughput; a mixed cell minus the mean of \
             the same workload's single-kind cells, median over backends): {}. In the uniform \
             workloads each lookup's kind is drawn at random, so the dispatch on the kind cannot \
             be predicted and those mixed cells carry a branch-misprediction cost on top of the \
             lookup; game positions list their sliders in a steadier order. The single-kind \
             cells compare the lookups themselves.",
            and_list(&mixing)
        ));
    }
    findings.extend(n.wins.iter().filter_map(|w| wins_text(w, m.threshold)));
    let winners: Vec<&str> = n.wins.iter().filter_map(Wins::winner).collect();
    if winners.len() == 2 && winners[0] != winners[1] {
        findings.push(format!(
            "Throughput and latency disagree: {} wins the most of the clearly decided \
             throughput cells but {} the most of the latency ones — independent lookups let a \
             long computation overlap, a dependent chain exposes its full latency.",
            winners[0], winners[1]
        ));
    }
    if let Some((mad, cell)) = n.noisiest {
        findings.push(format!(
            "Largest spread within a cell: {} {} {} {}, a MAD of {:.1} % of its median{}.",
            cell.backend,
            cell.workload,
            cell.piece.name(),
            cell.mode.name(),
            mad * 100.0,
            if mad > 0.05 {
                " — its comparisons rest on wide intervals (the claims above account for the \
                 spread)"
            } else {
                ""
            }
        ));
    }
    if !m.thin.is_empty() {
        findings.push(format!("Thin cells: {}.", m.thin.join("; ")));
    }
    findings.join(" ")
}

/// The cycle targets: pext's rook and bishop cycles per lookup in throughput, per
/// workload with intervals, against the targets; or why there are no cycles.
fn cycles_text(m: &Measurement, n: &Numbers<'_>, pext_microcoded: bool) -> String {
    let targets = CYCLE_TARGETS
        .iter()
        .map(|(piece, target)| format!("{} ≤ {target}", piece.name()))
        .collect::<Vec<_>>()
        .join(", ");
    let Some(clock) = super::analysis::clock_words(m) else {
        return format!(
            "Cycles per lookup are omitted: the clock could not be measured here (the \
             dependent-add and dependent-multiply chains disagree, or this is not x86-64), so \
             the issue's targets ({targets} cycles per throughput lookup for {CYCLE_BACKEND}) \
             are not checked."
        );
    };
    if n.pext_cycles.is_empty() {
        return format!(
            "At the measured {clock}: {CYCLE_BACKEND} was not measured, so the issue's \
             targets ({targets} cycles per throughput lookup) are not checked."
        );
    }
    let kinds: Vec<String> = n.pext_cycles.iter().map(kind_cycles_text).collect();
    let net_words = if n.pext_cycles.iter().any(|k| !k.net.is_empty()) {
        " The net figures are approximate: the null loop's work overlaps the lookup's in an \
         out-of-order core, which biases them low, and a null loop the compiler makes cheaper \
         than the lookup's (its XOR can be vectorised) biases them high."
    } else {
        ""
    };
    let microcode_words = if pext_microcoded {
        format!(
            " PEXT is microcoded on this CPU (AMD and Hygon before Zen 3: tens to hundreds of \
             cycles an instruction, more the more bits its mask has), \
             so the targets, set for a one-instruction PEXT, measure its microcode here, not \
             {CYCLE_BACKEND}'s table layout."
        )
    } else {
        String::new()
    };
    format!(
        "Cycles per lookup (ns × {clock} by a dependent-add chain, intervals scaled \
         alike), {CYCLE_BACKEND} in throughput against the issue's targets ({targets} \
         cycles; met where the whole interval is at or under the target, missed where it lies \
         above): {}.{net_words}{microcode_words}",
        kinds.join("; ")
    )
}

/// `rook: uniform-10 1.9 (1.8–2.0), …; target met on 3 of 6 workloads, missed on …`, then
/// the same net of the null-lookup loop where it ran.
fn kind_cycles_text(k: &KindCycles) -> String {
    let mut text = format!("{} {}", k.piece.name(), judged(&k.cells, k.target));
    if !k.net.is_empty() {
        let null: Vec<(String, Estimate)> =
            k.net.iter().map(|n| (n.workload.clone(), n.null)).collect();
        let net: Vec<(String, Estimate)> =
            k.net.iter().map(|n| (n.workload.clone(), n.net)).collect();
        text.push_str(&format!(
            "; net of the null-lookup loop (the same loop over the same inputs with no attack \
             computed: {}): {}",
            cycle_cells(&null).join(", "),
            judged(&net, k.target)
        ));
    }
    text
}

/// Each workload's cycles with its interval: `uniform-10 1.9 (1.8–2.0)`.
fn cycle_cells(cells: &[(String, Estimate)]) -> Vec<String> {
    cells
        .iter()
        .map(|(w, e)| {
            if e.low.is_finite() && e.high.is_finite() {
                format!(
                    "{w} {} ({}–{})",
                    format_sig(e.value),
                    format_sig(e.low),
                    format_sig(e.high)
                )
            } else {
                format!("{w} {} (one sample)", format_sig(e.value))
            }
        })
        .collect()
}

/// Workloads' cycles and whether each meets `target`: met where the whole interval is at or
/// under it, missed where it lies above.
fn judged(cells: &[(String, Estimate)], target: f64) -> String {
    let met: Vec<&str> = cells
        .iter()
        .filter(|(_, e)| e.high <= target)
        .map(|(w, _)| w.as_str())
        .collect();
    let missed: Vec<&str> = cells
        .iter()
        .filter(|(_, e)| e.low > target)
        .map(|(w, _)| w.as_str())
        .collect();
    let total = cells.len();
    let undecided = total - met.len() - missed.len();
    let verdict = if met.len() == total {
        format!("≤ {target} met on all {total} workloads")
    } else if missed.len() == total {
        format!("≤ {target} missed on all {total} workloads")
    } else {
        let mut parts = vec![format!("met on {} of {total} workloads", met.len())];
        if !missed.is_empty() {
            parts.push(format!("missed on {}", missed.join(", ")));
        }
        if undecided > 0 {
            parts.push(format!("undecided (interval straddles it) on {undecided}"));
        }
        format!("≤ {target} {}", parts.join(", "))
    };
    format!("{}; {verdict}", cycle_cells(cells).join(", "))
}

/// `workload: best 1.23 ns, ahead of second by ×1.10 (…), and worst by ×2.0`.
fn leader_text(l: &Leader, threshold: f64) -> String {
    let second = l.second;
    let against_second = match l.against_second {
        Some(c) if c.claim == Claim::Slower => format!(
            "ahead of {second} by ×{:.2} ({:.2}–{:.2})",
            c.ratio, c.low, c.high
        ),
        Some(c) => format!(
            "{} with {second} (×{:.2}, {:.2}–{:.2})",
            level_words(&c, threshold),
            c.ratio,
            c.low,
            c.high
        ),
        None => format!("{second} not comparable"),
    };
    let against_worst = match &l.gap {
        Some(c) if c.claim == Claim::Slower => {
            format!(
                "ahead of {} by ×{:.1} ({:.1}–{:.1})",
                l.worst, c.ratio, c.low, c.high
            )
        }
        Some(c) => format!(
            "even {} is {} (×{:.2}, {:.2}–{:.2})",
            l.worst,
            level_words(c, threshold),
            c.ratio,
            c.low,
            c.high
        ),
        None => format!("{} not comparable", l.worst),
    };
    format!(
        "{}: {} {:.2} ns, {against_second}, and {against_worst}",
        l.workload, l.best, l.best_ns
    )
}

/// The clear wins of one mode, the ties counted apart; nothing where no cell was timed.
fn wins_text(w: &Wins, threshold: f64) -> Option<String> {
    if w.total == 0 {
        return None;
    }
    let mut text: Vec<String> = w
        .counts
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(b, n)| format!("{b} {n}"))
        .collect();
    if w.ties > 0 {
        text.push(format!(
            "{} ties (the fastest not separable from the runner-up at ±{} %)",
            w.ties,
            percent(threshold)
        ));
    }
    Some(format!(
        "Clearly fastest in {} of {} workload × piece cells: {}.",
        w.mode.name(),
        w.total,
        and_list(&text)
    ))
}

/// The method paragraph: the workloads, both modes, the sampling, the counters and the claims.
pub(super) fn method(m: &Measurement) -> String {
    let mut method = format!(
        "Every backend answers the same pre-generated lookups (seed {:#x}): {}. Each workload \
         is cycled to {} lookups per repetition and converted to each backend's occupancy \
         layout before timing. Throughput: independent lookups, results folded by XOR into \
         black_box. Latency: a dependent chain, the next input's index advanced by 1 + (the \
         popcount of this result & 1), so each lookup waits for the last (the chain adds an L1 \
         load and a popcount per step, the same for every backend). Backends are interleaved \
         round-robin: {} samples of at least {:?} each after {:?} of warm-up per case (which also calibrates its repetitions; the \
         samples begin once every case has warmed up); cells show the \
         value with its 95 % interval. {} {}{}.",
        m.seed,
        m.workloads
            .iter()
            .map(|(w, _)| w.description.clone())
            .collect::<Vec<_>>()
            .join("; "),
        m.lookups,
        m.sampling.samples,
        m.sampling.min_sample,
        m.sampling.warmup,
        match super::analysis::clock_words(m) {
            Some(clock) => format!(
                "Cycles per lookup are ns per lookup × the core clock ({clock}), which each \
                 invocation measures after its own runs by a chain of dependent adds (checked \
                 against dependent multiplies), each invocation's rounds converted at its own \
                 clock where every invocation measured one (else all at their median); the \
                 interval scales alike, and the clock is assumed steady over an invocation's \
                 runs. A cell's cycles include the loop around the lookup: the input stream \
                 and the fold. Beside every rook and bishop cell, in both modes, each \
                 backend's null lookup (the occupancy's own bitboard, `occupied()`, with the \
                 square's bit flipped, no attack computed; in latency the next input still \
                 depends on its result) runs the same loop over the same inputs in the same \
                 rounds (the summary's `null_baseline_ns`, per workload, mode, kind and \
                 backend). On mailbox and sqww `occupied()` gathers a byte board into a \
                 bitboard, work their lookups do not do, so their null overstates the loop; the cycle targets are judged \
                 on the throughput cells as they are and net of it (round by round, with the \
                 gross figure's estimator while every invocation's median difference is \
                 positive)."
            ),
            None => "The core clock could not be measured, so no cycles per lookup are given."
                .to_string(),
        },
        m.counter_log.note(),
        if m.counter_log.series().is_empty() {
            ""
        } else {
            " (the counter table: per backend, the mean over the throughput cells)"
        }
    );
    method.push_str(&m.user_note);
    if !m.skipped.is_empty() {
        method.push_str(&format!(" Skipped: {}.", m.skipped.join("; ")));
    }
    format!("{method} {}", claims_method(m.threshold, m.invocations))
}

#[cfg(test)]
mod tests {
    use super::super::analysis::NetCycles;
    use super::*;
    use crate::workloads::PieceGroup;

    fn estimate(value: f64, low: f64, high: f64) -> Estimate {
        Estimate { value, low, high }
    }

    #[test]
    fn cycle_targets_are_judged_from_the_interval() {
        let kind = KindCycles {
            piece: PieceGroup::Rook,
            target: 2.5,
            cells: vec![
                ("uniform-10".to_string(), estimate(2.0, 1.9, 2.1)),
                ("uniform-25".to_string(), estimate(2.6, 2.4, 2.8)),
                ("random-play".to_string(), estimate(3.0, 2.9, 3.1)),
            ],
            net: Vec::new(),
        };
        let text = kind_cycles_text(&kind);
        assert!(text.starts_with("rook uniform-10 2"), "{text}");
        assert!(
            text.contains("≤ 2.5 met on 1 of 3 workloads, missed on random-play, undecided"),
            "{text}"
        );
        let all_met = KindCycles {
            piece: PieceGroup::Bishop,
            target: 2.0,
            cells: vec![("uniform-10".to_string(), estimate(1.5, 1.4, 1.6))],
            net: vec![NetCycles {
                workload: "uniform-10".to_string(),
                null: estimate(0.6, 0.5, 0.7),
                net: estimate(0.9, 0.8, 1.0),
            }],
        };
        let text = kind_cycles_text(&all_met);
        assert!(text.contains("≤ 2 met on all 1 workloads"), "{text}");
        assert!(
            text.contains(
                "no attack computed: uniform-10 0.600 (0.500–0.700)): uniform-10 0.900 \
                 (0.800–1.000); ≤ 2 met"
            ),
            "{text}"
        );
        assert!(!kind_cycles_text(&kind).contains("null-lookup"));
    }
}
