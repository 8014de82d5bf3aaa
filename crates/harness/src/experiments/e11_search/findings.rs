//! E11's method and findings paragraphs, and its one-line verdict.

use super::analysis::{reads_as, Cost, Numbers, Separation, RULE_PAIR};
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
    let tts: Vec<String> = {
        let mut sizes: Vec<usize> = m.cells.iter().map(|c| c.tt_mib).collect();
        sizes.sort_unstable();
        sizes.dedup();
        sizes.iter().map(|s| format!("{s} MiB")).collect()
    };
    format!(
        "Each backend searches {} bench positions (self-play, `kiki bench`'s) to depth {}: \
         iterative-deepening PVS with quiescence, a transposition table of one-line buckets, \
         TT move / MVV-LVA / killers / history ordering with canonical tie-breaks, null-move \
         pruning and a mate-in-1 probe at interior nodes. The search decides on material; \
         the evaluation ({}) is updated incrementally and computed at every node, its value \
         stored in the TT and folded into a checksum, so every backend and evaluation walks \
         the same tree (each cell's fingerprints are checked against the first backend's). \
         Weights are random from a fixed seed: which rows a position touches does not depend \
         on their values. TTs of {}; the evaluations' tables and the TTs are asked for 2 MiB \
         pages, the backends' tables are measured on 4 KiB pages (largest TT only) and then \
         collapsed to 2 MiB pages, the small ones too (they live in a table arena of whole \
         2 MiB pages; before 2026-11-29 only the whole 2 MiB pages inside a table moved), in \
         that order in every invocation: a collapse cannot be undone. Each invocation shuffles the backends (with an A/A twin of dbb, timed as \
         one more entry of every block) and the (evaluation, TT) blocks, seeded and recorded; every other \
         round reverses the backend order. Time per node is the bench's wall time over its \
         nodes. D for a pair `A vs B` = (t(B) − t(A)) under an evaluation − the same under \
         `material`, paired per round: the evaluation's own time cancels. The decision rule \
         (`rule.rs`, version {}, committed in {} before this code's first full E11 run and \
         unchanged since): at the largest TT with every table on 2 MiB pages, seed 004 holds \
         for an evaluation when D(dbb vs magic-plain)'s whole interval lies above the \
         threshold ({} % of t(dbb) under `material`), does not hold when it lies inside \
         ±threshold, else is not resolved; if the A/A control (every evaluation) or the \
         negative control `sqww vs mailbox` (D under nnue and kpp) reaches outside \
         ±threshold, nothing is decided. The rule also fixes the sample: each forward round \
         and the reverse round after it give one D, their mean, so that a backend's slot in \
         the order cancels, and the order is shuffled afresh for each such pair; the interval \
         is Yuen's trimmed mean over the invocations' means of those samples (a tenth of them \
         trimmed at each end, so that one disturbed process among ten does not decide; \
         Student's t below ten invocations; the invocation is the unit), not the bootstrap \
         over invocations then rounds that the other claims use. The A/A twin is the same \
         code copy timed twice (a control of timing noise: rustc merges identical code, so a \
         second copy cannot be had unchanged); the negative control, two table-free copies \
         placed apart, is the one code layout moves. A full report runs E11 in twice its \
         invocations, each process in its own code layout where the report has as many. \
         The threshold's estimate (3 % of the geometric mean over invocations of each \
         one's median t(dbb) under `material`) lives in `analysis.rs`. The verdict's cells \
         (largest TT, 2 MiB pages) take {} rounds per invocation, every backend in each; the \
         others (the 4 KiB-page phase and the smaller TTs) {}. Under `material` the negative control's plain \
         difference is the two backends' own speeds and is no control. Every block is split into \
         chunks rotated over the backends, each timed chunk after an untimed warm-up search of \
         positions outside the set, and a discarded block opens each phase. Bytes \
         per node are counted in software: evaluation table lines (64 B) read and TT buckets \
         probed or written, over the nodes.",
        m.positions,
        m.depth,
        and_list(&evals),
        and_list(&tts),
        super::rule::VERSION,
        &RULE_COMMIT[..12],
        percent(m.threshold),
        m.rounds,
        secondary_words(m),
    )
}

/// Which invocations measured the secondary cells, and how many rounds each.
fn secondary_words(m: &Measurement) -> String {
    let rounds = m
        .rows
        .iter()
        .find(|r| !m.is_primary(r.cell))
        .map_or(0, |r| {
            r.ns_per_node.len() / r.invocation_count(m.invocations).max(1)
        });
    let rounds = if rounds == 1 {
        "one round".to_string()
    } else {
        format!("{rounds} rounds")
    };
    if m.secondary_every <= 1 {
        return format!("{rounds} per invocation");
    }
    let measured = m.secondary_invocations();
    format!(
        "{rounds} in every {} invocation from the first ({measured} of the {}), to keep \
         E11 in its time budget; their intervals are over those invocations alone",
        ordinal(m.secondary_every),
        m.invocations
    )
}

/// "second", "third", …: the invocations the secondary cells skip between them.
fn ordinal(n: usize) -> String {
    match n {
        2 => "second".to_string(),
        3 => "third".to_string(),
        _ => format!("{n}th"),
    }
}

/// The one-line verdict (the summary's `verdict`).
pub(super) fn verdict_line(n: &Numbers) -> String {
    if n.verdicts.is_empty() {
        return "not decided here: no evaluation with tables was measured".to_string();
    }
    if !n.controls_passed {
        let failed = if n.failed_controls.is_empty() {
            "a cell's fingerprints differed or a backend was missing".to_string()
        } else {
            n.failed_controls.join("; ")
        };
        return format!("not decided here: a control failed ({failed})");
    }
    let parts: Vec<String> =
        n.verdicts
            .iter()
            .map(|(eval, verdict)| {
                let d = n.differences.iter().find(|d| {
                    d.eval == *eval && (d.first.as_str(), d.second.as_str()) == RULE_PAIR
                });
                let value = d.map_or("–".to_string(), |d| format_interval(&d.estimate));
                format!(
                    "under {} seed 004 {} (D {value} ns/node)",
                    eval.name(),
                    verdict.words()
                )
            })
            .collect();
    format!(
        "{} (threshold ±{} ns/node, dbb vs magic-plain)",
        parts.join("; "),
        format_sig(n.threshold_ns)
    )
}

pub(super) fn paragraph(m: &Measurement, n: &Numbers) -> String {
    let mut text = vec![format!("Verdict: {}.", verdict_line(n))];
    if !m.errors.is_empty() {
        text.push(format!("Problems: {}.", m.errors.join("; ")));
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
    text.extend(fastest_lines(m, n));
    let moved: Vec<String> = n
        .differences
        .iter()
        .filter(|d| d.eval != EvalKind::Material)
        .map(|d| {
            format!(
                "{} vs {} under {}: {} ({})",
                d.first,
                d.second,
                d.eval.name(),
                format_interval(&d.estimate),
                reads_as(&d.estimate, n.threshold_ns)
            )
        })
        .collect();
    if !moved.is_empty() {
        text.push(format!("D in ns per node: {}.", moved.join("; ")));
    }
    let against_twin: Vec<String> = n
        .rule_against_twin
        .iter()
        .map(|d| format!("{} {}", d.eval.name(), format_interval(&d.estimate)))
        .collect();
    if !against_twin.is_empty() {
        text.push(format!(
            "The rule's D with dbb's second timing (the A/A twin, the same code) in dbb's place: \
             {}; where it and D differ in sign, D's sign is the timing's, not the backend's.",
            against_twin.join("; ")
        ));
    }
    let aa: Vec<String> =
        n.aa.iter()
            .map(|d| (d, ""))
            .chain(n.negative.iter().map(|d| {
                let note = if d.eval == EvalKind::Material {
                    " (the two backends' own speeds: no control)"
                } else {
                    ""
                };
                (d, note)
            }))
            .map(|(d, note)| {
                format!(
                    "{} vs {} under {} {}{note}",
                    d.first,
                    d.second,
                    d.eval.name(),
                    format_interval(&d.estimate)
                )
            })
            .collect();
    text.push(format!(
        "Controls ({}): {}.",
        if n.controls_passed {
            "passed"
        } else {
            "FAILED"
        },
        aa.join("; ")
    ));
    text.push(resolution(m, n));
    let pages: Vec<String> = n
        .page_costs
        .iter()
        .map(|c| {
            let reads = reads_as(&c.estimate, n.threshold_ns);
            format!(
                "{} under {} {} ({reads})",
                c.backend,
                c.eval.name(),
                format_interval(&c.estimate)
            )
        })
        .collect();
    text.push(format!(
        "What 4 KiB table pages cost against 2 MiB pages, ns per node, net of the table-free \
         backends' change between the two phases (the 4 KiB phase always runs first; one round \
         in each of {}, so these intervals are wide and indicative only): {}.",
        over_invocations(m, &n.page_costs),
        if pages.is_empty() {
            "not measured".to_string()
        } else {
            pages.join("; ")
        }
    ));
    if !n.tt_costs.is_empty() {
        let sizes: Vec<usize> = m.cells.iter().map(|c| c.tt_mib).collect();
        let (small, large) = (
            sizes.iter().min().copied().unwrap_or(0),
            sizes.iter().max().copied().unwrap_or(0),
        );
        let costs: Vec<String> = n
            .tt_costs
            .iter()
            .map(|c| {
                format!(
                    "{} under {} {}",
                    c.backend,
                    c.eval.name(),
                    format_interval(&c.estimate)
                )
            })
            .collect();
        text.push(format!(
            "What a {large} MiB TT costs against {small} MiB, ns per node (the first round of \
             both in each of {}, tables on 2 MiB pages): {}.",
            over_invocations(m, &n.tt_costs),
            costs.join("; ")
        ));
    }
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
                "Fastest under {eval}: level ({ratio}, inside ±{} %).",
                percent(m.threshold)
            ),
            Separation::NotSeparated(ratio) => format!(
                "Fastest under {eval}: not separated ({ratio} reaches across ±{} %).",
                percent(m.threshold)
            ),
        });
    }
    lines
}

/// How far the controls' intervals reach from zero, ns per node (NaN: no bounds): the A/A
/// alone, and the A/A with the negative control (what `resolution_ns` in the summary holds).
fn reach(controls: &mut dyn Iterator<Item = &super::analysis::Difference>) -> f64 {
    controls
        .map(|d| d.estimate.low.abs().max(d.estimate.high.abs()))
        .fold(f64::NAN, f64::max)
}

/// The farthest any control's interval reaches from zero, ns per node (NaN: no bounds).
pub(super) fn resolution_ns(n: &Numbers) -> f64 {
    reach(
        &mut n
            .aa
            .iter()
            .chain(n.negative.iter().filter(|d| d.eval != EvalKind::Material)),
    )
}

/// What this run can resolve: how far each control's interval reaches from zero (the rule
/// passes the controls only inside ±threshold), and what the intervals hold of code layout.
/// The A/A twin times its backend's own code copy again, so its spread is noise that layout
/// does not explain; the negative control's two backends are two code copies.
fn resolution(m: &Measurement, n: &Numbers) -> String {
    let aa = reach(&mut n.aa.iter());
    let negative = reach(&mut n.negative.iter().filter(|d| d.eval != EvalKind::Material));
    let layouts = if m.layouts > 1 {
        format!(
            "the {} invocations ran {} code layouts of one build (function order only: the \
             `.text` sections shuffled at link time; data placement and alignment not varied), \
             so these intervals include the variation between those layouts",
            m.invocations, m.layouts
        )
    } else {
        "every invocation ran one code layout, so a layout's bias (which can move a backend \
         by several ns per node) is in no interval and can pass for an effect"
            .to_string()
    };
    if aa.is_nan() || negative.is_nan() {
        return format!(
            "Resolution: none stated (the controls have no interval with fewer than two \
             invocations); {layouts}."
        );
    }
    format!(
        "Resolution: against a threshold of ±{} ns per node, the A/A control's intervals \
         reach {} ns from zero (one code copy timed twice: noise that layout does not \
         explain) and the negative control's {} ns (two code copies); {layouts}.{}",
        format_sig(n.threshold_ns),
        format_sig(aa),
        format_sig(negative),
        same_code_differences(n)
    ) + &half_widths(n)
}

/// The intervals' half-widths: what the run resolves, apart from where each is centred.
fn half_widths(n: &Numbers) -> String {
    let list = |ds: &mut dyn Iterator<Item = &super::analysis::Difference>| -> String {
        ds.map(|d| {
            format!(
                "{} ±{}",
                d.eval.name(),
                format_sig((d.estimate.high - d.estimate.low) / 2.0)
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
    };
    let rule_d = list(&mut n.differences.iter().filter(|d| {
        d.eval != EvalKind::Material && (d.first.as_str(), d.second.as_str()) == RULE_PAIR
    }));
    let aa = list(&mut n.aa.iter());
    let negative = list(&mut n.negative.iter().filter(|d| d.eval != EvalKind::Material));
    if rule_d.is_empty() || aa.is_empty() {
        return String::new();
    }
    format!(
        " Half-widths (what the run resolves): the rule's D {rule_d}; the A/A {aa}; the \
         negative control {negative}; \"holds\" needs D's estimate above the threshold by at \
         least its half-width, and a passing control an estimate within the threshold less \
         its half-width."
    )
}

/// The A/A intervals that exclude zero, said plainly: one code copy timed twice differed, by
/// more or less than the rule's D under the same evaluation.
fn same_code_differences(n: &Numbers) -> String {
    n.aa.iter()
        .filter(|d| d.estimate.low > 0.0 || d.estimate.high < 0.0)
        .map(|d| {
            let rule_d = n
                .differences
                .iter()
                .find(|x| x.eval == d.eval && (x.first.as_str(), x.second.as_str()) == RULE_PAIR);
            let against = match rule_d {
                Some(x) if d.estimate.value.abs() > x.estimate.value.abs() => format!(
                    ", more than the rule's D under {} ({})",
                    d.eval.name(),
                    format_sig(x.estimate.value)
                ),
                Some(x) => format!(
                    " (the rule's D under {}: {})",
                    d.eval.name(),
                    format_sig(x.estimate.value)
                ),
                None => String::new(),
            };
            format!(
                " Under {} the A/A excludes zero: one code copy timed twice differed by {} \
                 ns per node{against}; a same-code difference this size is timing noise this \
                 run cannot tell from an effect (no mechanism found in the code: both timings \
                 take the same path).",
                d.eval.name(),
                format_interval(&d.estimate)
            )
        })
        .collect()
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
