//! E11's method and findings paragraphs, and its one-line verdict.

use super::analysis::{Cost, Numbers, Separation};
use super::measure::{Measurement, TablePages};
use super::RULE_COMMIT;
use crate::experiments::and_list;
use crate::experiments::claims::percent;
use crate::stats::{format_interval, format_sig};
use kiki_core::units::rounded_bytes;
use kiki_engine::search::eval::EvalKind;

pub(super) fn method(m: &Measurement) -> String {
    let evals: Vec<String> = m
        .eval_bytes
        .iter()
        .filter(|(name, _)| m.cells.iter().any(|c| c.eval.name() == name))
        .map(|(name, bytes)| format!("`{name}` ({bytes} B of tables)"))
        .collect();
    format!(
        "Each backend searches {} bench positions (`kiki bench`'s self-play set) to depth {}: \
         iterative-deepening PVS with quiescence, a TT of one-line buckets, null-move pruning \
         and a mate-in-1 probe. The search decides on material; the evaluation ({}) is updated \
         incrementally at every node and folded into a checksum, so every backend walks the \
         same tree (fingerprints checked). Time per node is wall time over nodes. D = \
         (t(magic-plain) − t(dbb)) under an evaluation − the same under `material`, paired per \
         round. The rule (`rule_v8.rs`, version {}, committed in {} before its first run): \
         each process's D is divided by that process's own t(dbb) under the evaluation, so T is \
         exactly {} % of a node; the unit is the pair of mirrored processes (below); D's \
         estimate is Yuen's trimmed mean over the pairs' means (a tenth trimmed at each end), \
         its interval two-sided 90 % [L, U], widened by what its evaluation's controls leave \
         unexcluded to the bounded interval [L − max(c_U, 0), U − min(c_L, 0)] (each control's \
         90 % interval [c_L, c_U], the widest on each side: the rule of bounds); \
         `holds` where its lower bound > +T, `does not hold` where its upper bound < +T, else \
         `not resolved`; `withheld` where a control shows bias. Every D and T is quoted in ns per node at one reference t(dbb), \
         the trimmed mean of the processes' (which moves no verdict). The controls (dbb against its own second \
         timing, the A/A; sqww against mailbox, the negative control) each test for a \
         difference from 0 (a Holm-adjusted p < 0.05 fails and withholds); a wide control \
         vetoes nothing, it widens the verdict's interval. The verdict's cells (TT {} MiB, every table on 2 MiB pages) time dbb, its \
         twin, magic-plain, sqww and mailbox, {} rounds per process (one forward, one reverse, \
         in an order shuffled per pair of processes from the run's order seed {:#x}: the second \
         of a pair runs the first's orders with dbb and its twin exchanged, so slot, neighbour \
         and round effects cancel in the A/A by construction); the ranking cell \
         times every base backend under material and nnue in {} of the {} processes; {}. \
         Each block is split into chunks rotated over the entries, each after an untimed \
         warm-up search; every chunk's wall time, thread CPU time and context switches are in \
         the summary's `chunks`. {}",
        m.positions,
        m.depth,
        and_list(&evals),
        super::rule_v8::VERSION,
        &RULE_COMMIT[..12],
        percent(super::rule_v8::THRESHOLD_SHARE),
        m.largest_tt(),
        m.rounds,
        m.order_seed,
        m.cells
            .iter()
            .find(|c| c.ranking)
            .map_or(0, |&c| m.invocations_of(c)),
        m.invocations,
        secondary_words(m),
        if m.layouts > 1 {
            format!(
                "The processes cycle through {} code layouts of one build.",
                m.layouts
            )
        } else {
            "Every process ran one code layout.".to_string()
        },
    )
}

/// Which invocations measured the secondary cells (4 KiB table pages, smaller TTs).
fn secondary_words(m: &Measurement) -> String {
    let measured = m.secondary_invocations();
    if measured == 0 {
        return "the 4 KiB-page phase and smaller TTs are not measured in this mode (E12 \
                measures page effects)"
            .to_string();
    }
    let rounds = m
        .rows
        .iter()
        .find(|r| !m.is_primary(r.cell) && !r.cell.ranking)
        .map_or(0, |r| {
            r.ns_per_node.len() / r.invocation_count(m.invocations).max(1)
        });
    format!(
        "the secondary cells (4 KiB table pages, smaller TTs) {rounds} round{} in {measured} of \
         the {} processes",
        if rounds == 1 { "" } else { "s" },
        m.invocations
    )
}

/// The answer in one sentence of at most 40 words (the summary's `verdict`): per evaluation the
/// verdict word, D with the bounded 90 % interval the verdict reads (rule v8), its half-width
/// (the run's resolution) and T; the unbounded interval and the margin are in the differences.
pub(super) fn verdict_line(n: &Numbers) -> String {
    if n.verdicts.is_empty() {
        return "Seed 004 in a search: not resolved, no evaluation with tables was measured"
            .to_string();
    }
    if !n.controls_passed {
        let failed = if n.failed_controls.is_empty() {
            "a cell's fingerprints differed or a backend was missing".to_string()
        } else {
            n.failed_controls.join("; ")
        };
        return format!("Seed 004 in a search: withheld, a control failed ({failed})");
    }
    let parts: Vec<String> = n
        .verdicts
        .iter()
        .map(|(eval, verdict)| match n.rule_difference(*eval) {
            Some(d) => {
                let bounded = n.bounded(d);
                format!(
                    "{} {}, D {} [{}, {}] ns/node (resolution ±{}, T {})",
                    eval.name(),
                    verdict.words(),
                    format_sig(d.estimate.value),
                    format_sig(bounded.low),
                    format_sig(bounded.high),
                    format_sig(bounded.half_width()),
                    format_sig(n.threshold(*eval)),
                )
            }
            None => format!("{} {}", eval.name(), verdict.words()),
        })
        .collect();
    format!(
        "Seed 004 in a search (magic-plain − dbb, 90 %, bounded by its controls): {}",
        parts.join("; ")
    )
}

pub(super) fn paragraph(m: &Measurement, n: &Numbers) -> String {
    let mut text = vec![format!("{}.", verdict_line(n))];
    text.extend(fastest_lines(m, n));
    if !m.errors.is_empty() {
        text.push(format!("Problems: {}.", m.errors.join("; ")));
    }
    text.push(controls_line(n));
    let raw: Vec<String> = n
        .verdicts
        .iter()
        .filter_map(|(eval, _)| n.rule_difference(*eval))
        .filter_map(|d| {
            let r = d.raw?;
            // Bounded by its own control (the rule of bounds), as D is by its controls.
            let bounds = n.raw_control(d.eval).map_or(String::new(), |t| {
                let (low, high) = crate::answers::bounded(r.low, r.high, &[t]);
                format!(
                    ", bounded by its A/A [{}–{}]",
                    format_sig(low),
                    format_sig(high)
                )
            });
            let figure = format!(
                "{} [{}–{}]{bounds}",
                format_sig(r.value),
                format_sig(r.low),
                format_sig(r.high)
            );
            // Its own control: the A/A under the evaluation alone, judged as every control.
            let control = n.raw_control(d.eval).map_or(String::new(), |t| {
                format!(
                    ", its A/A {} ±{} (p {:.3}, Holm p {:.2})",
                    format_sig(t.value),
                    format_sig(t.half_width),
                    t.p_raw,
                    t.p
                )
            });
            Some(match n.raw_control(d.eval) {
                Some(t) if t.failed => format!(
                    "{} withheld ({figure}{control}: {})",
                    d.eval.name(),
                    t.why().unwrap_or_default()
                ),
                _ => format!("{} {figure}{control}", d.eval.name()),
            })
        })
        .collect();
    if !raw.is_empty() {
        text.push(format!(
            "What an engine on the evaluation pays, magic-plain − dbb without material's \
             difference taken out (ns per node, 90 %; withheld where its A/A, dbb against its \
             twin under the evaluation alone, fails as a control): {}.",
            raw.join("; ")
        ));
    }
    text.push(noise_line(m, n));
    let moved: Vec<String> = n
        .differences
        .iter()
        .filter(|d| {
            d.eval != EvalKind::Material
                && (d.first.as_str(), d.second.as_str()) != super::analysis::RULE_PAIR
        })
        .map(|d| {
            format!(
                "{} vs {} under {} {} ({})",
                d.first,
                d.second,
                d.eval.name(),
                format_interval(&d.estimate),
                n.reading(d).words()
            )
        })
        .collect();
    if !moved.is_empty() {
        text.push(format!(
            "D of the other pairs, ns per node: {}.",
            moved.join("; ")
        ));
    }
    for (eval, values) in &n.ns_per_node {
        let list: Vec<String> = values
            .iter()
            .map(|(b, ns)| format!("{b} {}", format_sig(*ns)))
            .collect();
        text.push(format!(
            "ns per node under {}: {}.",
            eval.name(),
            list.join(", ")
        ));
    }
    text.extend(cost_lines(m, n));
    let traffic: Vec<String> = m
        .traffic
        .iter()
        .filter(|t| t.tt_mib == m.largest_tt())
        .map(|t| {
            let per = |x: u64| x as f64 * 64.0 / t.nodes.max(1) as f64;
            format!(
                "{}: {} B of evaluation tables and {} B of TT per node",
                t.eval.name(),
                format_sig(per(t.eval_lines)),
                format_sig(per(t.tt_accesses))
            )
        })
        .collect();
    text.push(format!(
        "Cache lines reached per node (counted accesses × 64 B, an upper bound on traffic): {}.",
        traffic.join("; ")
    ));
    text.push(pages_granted(m));
    text.join(" ")
}

/// The controls as the rule judged them.
fn controls_line(n: &Numbers) -> String {
    let list: Vec<String> = n
        .controls
        .iter()
        .map(|(_, _, t)| {
            format!(
                "{} {} ±{} (p {:.3}, Holm p {:.2}{})",
                t.name,
                format_sig(t.value),
                format_sig(t.half_width),
                t.p_raw,
                t.p,
                if t.failed { ", failed" } else { "" }
            )
        })
        .collect();
    format!(
        "Controls ({}; each withholds the run's verdicts only where it shows bias, at \
         Holm-adjusted p < 0.05, and otherwise bounds its evaluation's D by its 90 % interval): \
         {}.",
        if n.controls_passed {
            "passed"
        } else {
            "FAILED"
        },
        list.join("; ")
    )
}

/// Where the rule's D's noise lives: the sd of a round about its process's mean and of the
/// processes' means, per evaluation, and the half-width the run reached.
fn noise_line(m: &Measurement, n: &Numbers) -> String {
    let list: Vec<String> = n
        .verdicts
        .iter()
        .filter_map(|(eval, _)| n.rule_difference(*eval))
        .map(|d| {
            let between = if d.components.between_truncated {
                "≤ 0 (truncated to 0)".to_string()
            } else {
                format!("{} ns", format_sig(d.components.between_ns))
            };
            format!(
                "{}: within {} ns, between {between}, forward − reverse {} ns; half-width ±{} \
                 over {} pairs of processes",
                d.eval.name(),
                format_sig(d.components.within_ns),
                format_sig(d.components.order_effect_ns),
                format_sig(d.interval.half_width()),
                d.invocation_means.len().div_ceil(2)
            )
        })
        .collect();
    let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len().max(1) as f64;
    format!(
        "Where D's noise lives (sd of a round within its process, from forward − reverse about \
         its mean, since the pair means cancel the order's effect; and between processes' true \
         means): {}. A process spent {} s before its first timed round and {} s a round.",
        list.join("; "),
        format_sig(mean(&m.startup_seconds)),
        format_sig(mean(&m.round_seconds))
    )
}

/// The secondary cells' costs where measured: 4 KiB table pages and the smaller TT.
fn cost_lines(m: &Measurement, n: &Numbers) -> Vec<String> {
    let mut lines = Vec::new();
    let list = |costs: &[Cost]| -> Vec<String> {
        costs
            .iter()
            .map(|c| {
                format!(
                    "{} under {} {}",
                    c.backend,
                    c.eval.name(),
                    format_interval(&c.estimate)
                )
            })
            .collect()
    };
    if !n.page_costs.is_empty() {
        lines.push(format!(
            "What 4 KiB table pages cost against 2 MiB pages, ns per node, net of the table-free \
             backends' change between the phases (the 4 KiB phase runs first; one round in each \
             of {}: indicative only): {}.",
            over_invocations(m, &n.page_costs),
            list(&n.page_costs).join("; ")
        ));
    }
    if !n.tt_costs.is_empty() {
        lines.push(format!(
            "What the largest TT costs against the smallest, ns per node (the first round of \
             both in each of {}): {}.",
            over_invocations(m, &n.tt_costs),
            list(&n.tt_costs).join("; ")
        ));
    }
    lines
}

/// The invocations `costs`' intervals are over, in words: "5 of the 10 invocations" (every
/// count, where they differ).
fn over_invocations(m: &Measurement, costs: &[Cost]) -> String {
    let mut counts: Vec<usize> = costs.iter().map(|c| c.invocations).collect();
    counts.sort_unstable();
    counts.dedup();
    let counts: Vec<String> = counts.iter().map(usize::to_string).collect();
    let counts = if counts.is_empty() {
        "0".to_string()
    } else {
        counts.join(" or ")
    };
    let noun = if m.invocations == 1 {
        "invocation"
    } else {
        "invocations"
    };
    format!("{counts} of the {} {noun}", m.invocations)
}

/// Per evaluation, the fastest backend and how far it is separated from the next (no claim
/// where a control failed).
fn fastest_lines(m: &Measurement, n: &Numbers) -> Vec<String> {
    let mut lines = Vec::new();
    for (eval, best, separation) in &n.best {
        let eval = eval.name();
        if !n.controls_passed {
            // A failed control withholds every order and every "level", as it does the verdict.
            let (Separation::Decided(figures)
            | Separation::Level(figures)
            | Separation::NotSeparated(figures)) = separation;
            lines.push(format!(
                "Fastest under {eval}: no claim, a control failed ({best} first by its typical \
                 time; {figures})."
            ));
            continue;
        }
        lines.push(match separation {
            Separation::Decided(margin) => format!("Fastest under {eval}: {best} ({margin})."),
            Separation::Level(ratio) => format!(
                "Fastest under {eval}: {best} by its typical time, level with the next ({ratio}, \
                 inside ±{} %: either serves).",
                percent(m.threshold)
            ),
            Separation::NotSeparated(ratio) => format!(
                "Fastest under {eval}: {best} by its typical time, not separated from the next \
                 ({ratio} reaches across ±{} %).",
                percent(m.threshold)
            ),
        });
    }
    lines
}

/// The run's resolution: the widest half-width of the rule's bounded interval (nnue, kpp),
/// ns per node (NaN: no interval).
pub(super) fn resolution_ns(n: &Numbers) -> f64 {
    n.verdicts
        .iter()
        .filter_map(|(eval, _)| n.rule_difference(*eval))
        .map(|d| n.bounded(d).half_width())
        .fold(f64::NAN, f64::max)
}

/// What the kernel granted (its page scan, else `/proc/self/smaps`) in the first invocation:
/// the TTs' and the evaluations' huge-page bytes, and every backend's attack tables after the
/// collapse to 2 MiB pages (each table of any size: the table arena moves a small table with
/// the 2 MiB page around it).
fn pages_granted(m: &Measurement) -> String {
    let share = |huge: Option<usize>, bytes: usize| match huge {
        Some(huge) => format!("{} % on 2 MiB pages", (100 * huge / bytes.max(1)).min(100)),
        None => "pages unknown".to_string(),
    };
    let buffers: Vec<String> = m
        .buffers
        .iter()
        .map(|b| format!("{} {}", b.what, share(b.huge_bytes, b.bytes)))
        .collect();
    let tables: Vec<String> = m
        .table_placements
        .iter()
        .filter(|(_, pages, p)| *pages == TablePages::Huge && p.table_bytes > 0)
        .map(|(backend, _, p)| {
            let bytes = rounded_bytes(p.table_bytes as f64);
            match &p.outcome {
                Ok(()) => format!("{backend} ({bytes}) {}", share(p.huge_after, p.table_bytes)),
                Err(why) => format!("{backend} ({bytes}) not collapsed ({why})"),
            }
        })
        .collect();
    format!(
        "Pages granted (first invocation): {}; backends' attack tables after the collapse: {}.",
        buffers.join(", "),
        if tables.is_empty() {
            "none".to_string()
        } else {
            tables.join(", ")
        }
    )
}

#[cfg(test)]
mod tests {
    use super::super::measure::Placed;
    use super::*;
    use crate::bench::TablePlacement;

    fn placed(
        table_bytes: usize,
        huge_after: usize,
        outcome: Result<(), String>,
    ) -> TablePlacement {
        TablePlacement {
            table_bytes,
            huge_before: Some(0),
            huge_after: Some(huge_after),
            outcome,
        }
    }

    /// Every table backend's tables moved in the 2 MiB phase are named, a small one too; a
    /// backend without tables and the 4 KiB phase are not.
    #[test]
    fn pages_granted_names_every_table_moved_to_2_mib_pages() {
        let huge = TablePages::Huge;
        let m = Measurement {
            backends: vec!["dbb", "magic-plain", "qugiy", "mailbox"],
            skipped: Vec::new(),
            positions: 1,
            depth: 1,
            rounds: 2,
            secondary_every: 1,
            ranking_every: 1,
            order_seed: 0,
            startup_seconds: Vec::new(),
            round_seconds: Vec::new(),
            chunks: Vec::new(),
            threshold: 0.03,
            cells: Vec::new(),
            eval_bytes: Vec::new(),
            traffic: Vec::new(),
            table_placements: vec![
                ("dbb".into(), TablePages::Small, placed(5 << 19, 0, Ok(()))),
                ("dbb".into(), huge, placed(5 << 19, 5 << 19, Ok(()))),
                (
                    "magic-plain".into(),
                    huge,
                    placed(700 << 10, 700 << 10, Ok(())),
                ),
                (
                    "qugiy".into(),
                    huge,
                    placed(6 << 10, 0, Err("EINVAL".into())),
                ),
                ("mailbox".into(), huge, placed(0, 0, Ok(()))),
            ],
            buffers: vec![Placed {
                what: "TT 16 MiB".into(),
                bytes: 16 << 20,
                huge_bytes: Some(16 << 20),
            }],
            orders: Vec::new(),
            rows: Vec::new(),
            errors: Vec::new(),
            invocations: 1,
            layouts: 1,
        };
        let text = pages_granted(&m);
        assert_eq!(
            text,
            format!(
                "Pages granted (first invocation): TT 16 MiB 100 % on 2 MiB pages; backends' \
                 attack tables after the collapse: dbb ({}) 100 % on 2 MiB pages, magic-plain \
                 ({}) 100 % on 2 MiB pages, qugiy ({}) not collapsed (EINVAL).",
                rounded_bytes((5 << 19) as f64),
                rounded_bytes((700 << 10) as f64),
                rounded_bytes((6 << 10) as f64)
            )
        );
    }
}
