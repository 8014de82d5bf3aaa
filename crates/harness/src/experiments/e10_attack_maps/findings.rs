//! E10's prose: the method and findings paragraphs, from the settings and the numbers.

use super::analysis::{Best, Numbers};
use super::controls::{gated, Conversion};
use super::measure::{Measurement, INCREMENTAL, MAPS, MAPS_LATENCY, MATE1, PERFT, UNION};
use crate::experiments::and_list;
use crate::experiments::claims::{claims_method, level_words, percent};
use crate::experiments::held_out::{self, HeldOut};
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
    same_backend_findings(m, n, &mut findings);
    conversion_findings(m, n, &mut findings);
    aa_findings(m, n, &mut findings);
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

/// The range of a set of ratios across backends and how many each claim went to.
struct Spread {
    low: f64,
    high: f64,
    count: usize,
    faster: usize,
    slower: usize,
    /// Level with the whole interval within the threshold.
    level: usize,
    /// Level, but the interval reaches past the threshold.
    unresolved: usize,
}

impl Spread {
    fn of<'a>(ratios: impl Iterator<Item = &'a Comparison>, threshold: f64) -> Spread {
        let mut spread = Spread {
            low: f64::INFINITY,
            high: f64::NEG_INFINITY,
            count: 0,
            faster: 0,
            slower: 0,
            level: 0,
            unresolved: 0,
        };
        for c in ratios {
            spread.low = spread.low.min(c.ratio);
            spread.high = spread.high.max(c.ratio);
            spread.count += 1;
            match c.claim {
                Claim::Faster => spread.faster += 1,
                Claim::Slower => spread.slower += 1,
                Claim::Level if c.within(threshold) => spread.level += 1,
                Claim::Level => spread.unresolved += 1,
            }
        }
        spread
    }

    /// `×0.62 to ×0.80 {what} across 8 backends (faster on 8, slower on 0, level at ±3 % on 0,
    /// unresolved on 0)`.
    fn text(&self, what: &str, threshold: f64) -> String {
        format!(
            "×{:.2} to ×{:.2} {what} across {} backends (faster on {}, slower on {}, level at \
             ±{} % on {}, unresolved on {})",
            self.low,
            self.high,
            self.count,
            self.faster,
            self.slower,
            percent(threshold),
            self.level,
            self.unresolved
        )
    }

    fn verdict(&self) -> String {
        match (self.faster, self.slower) {
            (0, 0) => "no difference resolved on any backend".to_string(),
            (0, s) => format!("never faster, slower on {s}"),
            (f, 0) => format!("faster on {f}, never slower"),
            _ => "mixed across backends".to_string(),
        }
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
            let spread = Spread::of(
                n.engine
                    .iter()
                    .filter(|e| e.group == group && e.mode == mode)
                    .map(|e| &e.ratio),
                m.threshold,
            );
            findings.push(format!(
                "{group} with king safety by {mode} ({}): {}: {}.",
                if group == PERFT {
                    format!("start position to depth {}", m.perft_depth)
                } else {
                    format!("{} tactical positions", m.mate1_positions)
                },
                spread.text("the per-square time", m.threshold),
                spread.verdict()
            ));
        }
    }
}

/// Per map group and set: each set-wise level's time over the per-piece time within one
/// backend, as a range across backends.
fn same_backend_findings(m: &Measurement, n: &Numbers, findings: &mut Vec<String>) {
    for group in [MAPS, MAPS_LATENCY, UNION] {
        for (set, _) in &m.sets {
            let levels: Vec<String> = m
                .methods
                .iter()
                .filter_map(|&method| {
                    let reach = n.controls.aa_reach(set, m.threshold);
                    let ratios: Vec<Comparison> = n
                        .controls
                        .same_backend
                        .iter()
                        .filter(|s| s.group == group && &s.set == set && s.method == method)
                        .map(|s| gated(s.ratio, reach))
                        .collect();
                    let spread = Spread::of(ratios.iter(), m.threshold);
                    (spread.count > 0).then(|| {
                        format!(
                            "{} {}",
                            method.name(),
                            spread.text("the per-piece time", m.threshold)
                        )
                    })
                })
                .collect();
            if !levels.is_empty() {
                findings.push(format!(
                    "Within one backend ({group}, {set}): {}.",
                    levels.join("; ")
                ));
            }
        }
    }
}

/// Per set: the input conversion alone, in place (each backend's top set-wise cell over the
/// same kernel on inputs converted before the loop), and the kernel-only control.
fn conversion_findings(m: &Measurement, n: &Numbers, findings: &mut Vec<String>) {
    for (set, _) in &m.sets {
        let cells: Vec<&Conversion> = n
            .controls
            .conversion
            .iter()
            .filter(|c| &c.set == set)
            .collect();
        let by_time = |a: &&&Conversion, b: &&&Conversion| a.alone.value.total_cmp(&b.alone.value);
        let (Some(cheapest), Some(dearest)) =
            (cells.iter().min_by(by_time), cells.iter().max_by(by_time))
        else {
            continue;
        };
        let mut text = format!(
            "Input conversion (`SidePieces::of`, both colours, {set}) timed alone: from {} ns on \
             {} to {} ns on {}",
            format_interval(&cheapest.alone),
            cheapest.backend,
            format_interval(&dearest.alone),
            dearest.backend,
        );
        let reach = n.controls.kernel_reach(set, m.threshold);
        let in_place: Vec<Comparison> = cells
            .iter()
            .filter_map(|c| c.in_place.map(|r| gated(r, reach)))
            .collect();
        let in_place = Spread::of(in_place.iter(), m.threshold);
        if in_place.count > 0 {
            text.push_str(&format!(
                "; in place, each backend's {} cell over the same kernel on inputs converted \
                 before the loop: {} (what the conversion adds inside the cell, overlap \
                 included, though the kernel-only cell reads its converted pieces from a buffer \
                 the set-wise cell does not have, which may understate it; the alone figure is a \
                 separate loop, not a part of the cell)",
                cheapest.of.name(),
                in_place.text("the kernel-only time", m.threshold)
            ));
        }
        let kernel: Vec<&Comparison> = n
            .controls
            .kernel
            .iter()
            .filter(|k| &k.set == set)
            .map(|k| &k.ratio)
            .collect();
        if let Some(first) = n.controls.kernel.iter().find(|k| &k.set == set) {
            let within = kernel.iter().filter(|c| c.within(m.threshold)).count();
            let spread = Spread::of(kernel.iter().copied(), m.threshold);
            text.push_str(&format!(
                ". Control: the kernel-only cells run the same code on the same converted \
                 pieces on every backend, so they must come out level with {}'s: ×{:.2} to \
                 ×{:.2}, {within} of {} wholly within ±{} %{}",
                first.against,
                spread.low,
                spread.high,
                kernel.len(),
                percent(m.threshold),
                if within == kernel.len() {
                    " (a pass)".to_string()
                } else {
                    format!(
                        " (not a pass: {} ordered, {} unresolved; identical code on identical \
                         values moved apart by up to {:.0} % here, so the in-place orders that \
                         do not reach past that are withdrawn above)",
                        spread.faster + spread.slower,
                        spread.unresolved,
                        100.0 * reach
                    )
                }
            ));
        }
        findings.push(format!("{text}."));
    }
}

/// The A/A twins: a cell timed twice in the same rounds must come out level.
fn aa_findings(m: &Measurement, n: &Numbers, findings: &mut Vec<String>) {
    for a in &n.controls.aa {
        let bias = 100.0 * (1.0 - a.ratio.low).max(a.ratio.high - 1.0).max(0.0);
        let verdict = if a.ratio.within(m.threshold) {
            format!("within ±{} %, a pass", percent(m.threshold))
        } else if a.ratio.claim != Claim::Level {
            format!(
                "ordered although both cells run the same code: the A/A control failed, so on \
                 this set every order between cells (here and in the other map groups, \
                 conservatively) that does not reach past ±{bias:.0} % is withdrawn"
            )
        } else {
            format!(
                "not a pass: it cannot rule out a bias of up to {bias:.0} % between two cells, \
                 so on this set every order between cells (here and in the other map groups, \
                 conservatively) that does not reach past ±{bias:.0} % is withdrawn"
            )
        };
        findings.push(format!(
            "A/A control ({MAPS}, {}): {} on {} timed as a second cell in the same rounds (the \
             same compiled code, so it tests a cell's place in the round and where its data \
             sits, not code layout), against the first: {}; {verdict}.",
            a.set,
            a.method,
            a.backend,
            ratio_text(&a.ratio, m.threshold)
        ));
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
            "Effect counts per move: recounting both colours from scratch after each make and \
             again after each unmake (best: {}, including that backend's Position make+unmake) \
             against the fastest incremental effect board ({}: its own board's make and unmake \
             with the counts updated both ways, no Position): {versus}{control}. Both sides \
             produce the counts after every make and every unmake; only the recount side \
             carries a Position's make+unmake, so the comparison leans against the recount.",
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
            "AVX-512 neighbour control ({MAPS}, first set only): the other {} cells, timed in \
             rounds without the AVX-512 cells, against themselves in the rounds beside them: \
             ×{low:.2} to ×{high:.2} (intervals {:.2}–{:.2}); {within} lie wholly within \
             ±{} % (a pass), {} are unresolved at that threshold, {} moved. The two kinds of \
             round alternate A B B A (B A A B in odd invocations) and pair by adjacent rounds, \
             so a linear drift cancels; a B round that follows an A round may still start \
             under a clock drop the AVX-512 cells left behind (which would favour a pass), and \
             the other groups and E1's batch cells were not checked. On CPUs with AVX-512 \
             frequency licences (Intel) this is the test that matters; elsewhere it checks that \
             no such effect shows.",
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
         (`SidePieces::of`: the piece sets to the canonical layout, cheapest where the layout is \
         canonical as on mailbox and sqww, a bit loop on bonanza and dbb), the same kernel on \
         every backend; per backend, a conversion-only cell times that conversion alone and a \
         kernel-only cell the top level's kernel on pieces converted before the loop \
         ({MAPS}), and an A/A twin (the first backend's highest set-wise level timed as a second \
         cell in the same rounds) must come out level. Every timed loop folds every bit of both maps. The avx512 \
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
         games), make + both colours' counts from scratch + unmake + the counts again per move on \
         each backend (recounted after each unmake too, as the incremental boards update on \
         both), beside its make+unmake alone and E5's incremental effect boards replaying the same \
         games (their own board's make+unmake with count updates, no Position). {} samples per cell, the cells of each group \
         interleaved round-robin (on the first set, {MAPS}'s rounds alternate A B B A with \
         rounds of its cells without the AVX-512 ones where the CPU has AVX-512, each kind's \
         samples rounded up to even); cells: value [95 % interval].",
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
    let split = HeldOut::of(m.invocations);
    let held_out = held_out::sentence(
        split,
        "Each best cell (per group and set the best per-piece cell and the best set-wise \
         cell of each level, and the best recount and incremental board)",
        "its figures and ratios",
        "its quoted figures and its ratios",
    );
    format!(
        "{method} {held_out} King safety per backend, the AVX-512 neighbour control and the \
         controls within one backend (set-wise over per-piece, the conversion in place, the \
         kernel-only cells across backends, the A/A twin) compare fixed pairs, on all {} invocations. {}",
        m.invocations,
        claims_method(m.threshold, m.invocations)
    )
}
