//! One short verdict per experiment of a report (for the index and the report's top), read from its typed summary, and its best
//! backend where a winner is clearly decided: every comparison its findings recorded against
//! the winner in that cell claims the other side slower, beyond the threshold.

use crate::experiments::{
    e10_attack_maps, e11_search, e12_layouts, e13_simulated_search, e1_attacks, e2_movegen,
    e3_mate1, e4_hands, e5_effects, e6_memory, e7_cache_pressure, e8_simulated_caches,
    e9_isa_levels,
};
use crate::plot::format_tick;
use crate::results::{ExperimentResult, PairRecord, Winner};
use crate::stats::Claim;
use kiki_core::units::compact_bytes;

/// What the index says of one experiment.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// One short line.
    pub line: String,
    /// The decided winners, grouped by backend (`qugiy (latency uniform-10, …)`); `None` where
    /// the experiment ranks nothing or no winner is decided.
    pub best: Option<String>,
}

impl Verdict {
    fn plain(line: String) -> Self {
        Verdict { line, best: None }
    }
}

/// A caveat for below an experiment's stored findings, where a later rule reads its data
/// differently from the text written when it was analysed: E7 reports made before seed 004's
/// verdict was gated on its controls, whose findings print a verdict although a control failed,
/// and those made before a positive control needed an interval that excludes 0.
pub fn caveat(experiment: &ExperimentResult) -> Option<String> {
    if experiment.id != "E7" {
        return None;
    }
    let s: e7_cache_pressure::summary::Summary = experiment.summary_as().ok()?;
    s.seed_004.as_ref()?;
    let failed = s.failed_controls();
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    match &s.verdict_controls {
        // Gated when analysed: only controls today's rule fails and that gate passed.
        Some(gate) => {
            let newly: Vec<String> = failed
                .into_iter()
                .filter(|f| !gate.failed.contains(f))
                .collect();
            (!newly.is_empty()).then(|| {
                let does = if newly.len() == 1 { "does" } else { "do" };
                format!(
                    "**Controls.** This report was analysed before a positive control needed \
                     its whole interval clear of 0 and inside E6's band (±25 %), and its {} \
                     control{} {does} not meet that: by today's rule the verdict in the findings \
                     above is not decided here.",
                    newly.join(", "),
                    plural(newly.len())
                )
            })
        }
        None => (!failed.is_empty()).then(|| {
            format!(
                "**Controls.** This report was analysed before seed 004's verdict was gated on \
                 its controls, and its {} control{} failed: the verdict in the findings above \
                 is not decided here.",
                failed.join(", "),
                plural(failed.len())
            )
        }),
    }
}

/// The verdict on `experiment`, from its summary read as the experiment's `Summary`.
pub fn verdict(experiment: &ExperimentResult) -> Result<Verdict, String> {
    let comparisons = &experiment.comparisons;
    Ok(match experiment.id.as_str() {
        "E1" => {
            let s: e1_attacks::summary::Summary = experiment.summary_as()?;
            ranked(&s.winners, comparisons, "cells", String::new())
        }
        "E2" => e2(experiment.summary_as()?, comparisons),
        "E3" => {
            let s: e3_mate1::summary::Summary = experiment.summary_as()?;
            let extra = s.brute_over_fast.map_or(String::new(), |(low, high)| {
                format!(
                    "; brute force takes {}–{}× the fast path's time",
                    num(low),
                    num(high)
                )
            });
            ranked(&s.winners, comparisons, "cells", extra)
        }
        "E4" => {
            let s: e4_hands::summary::Summary = experiment.summary_as()?;
            ranked(&s.winners, comparisons, "operations", String::new())
        }
        "E5" => {
            let s: e5_effects::summary::Summary = experiment.summary_as()?;
            let winners: Vec<Winner> = s
                .fastest
                .into_iter()
                .map(|backend| Winner {
                    cell: String::new(),
                    backend,
                })
                .collect();
            ranked(&winners, comparisons, "cells", String::new())
        }
        "E6" => e6(experiment.summary_as()?),
        "E7" => e7(experiment.summary_as()?),
        "E8" => e8(experiment.summary_as()?),
        "E9" => e9(experiment.summary_as()?),
        "E10" => e10(experiment.summary_as()?),
        "E11" => e11(experiment.summary_as()?),
        "E12" => e12(experiment.summary_as()?),
        "E13" => e13(experiment.summary_as()?),
        _ => Verdict::plain("see the report".into()),
    })
}

/// A number for a table cell: three significant figures (`1.67`, `0.373`, `-0.00654`).
pub fn num(value: f64) -> String {
    let magnitude = value.abs();
    if magnitude >= 1.0 || magnitude == 0.0 || !value.is_finite() {
        return format_tick(value, false);
    }
    let decimals = (2.0 - magnitude.log10().floor()).clamp(0.0, 8.0) as usize;
    let text = format!("{value:.decimals$}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Whether `winner` is clearly decided in its cell: the comparisons recorded against it there
/// (cell `<cell>` or `<cell> mixed`; any cell where the experiment has one) all claim the
/// other side slower. None recorded: not decided.
pub fn decided(winner: &Winner, comparisons: &[PairRecord]) -> bool {
    let mixed = format!("{} mixed", winner.cell);
    let mut against = comparisons.iter().filter(|c| {
        c.b == winner.backend
            && (winner.cell.is_empty() || c.cell == winner.cell || c.cell == mixed)
    });
    let first = against.next();
    first.is_some_and(|c| c.comparison.claim == Claim::Slower)
        && against.all(|c| c.comparison.claim == Claim::Slower)
}

/// Winners grouped by backend, most cells first: `pext (a, b); dbb (c)`, or `pext (all 3)`.
pub fn grouped(winners: &[&Winner]) -> String {
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for w in winners {
        match groups.iter_mut().find(|(b, _)| *b == w.backend) {
            Some((_, cells)) => cells.push(&w.cell),
            None => groups.push((&w.backend, vec![&w.cell])),
        }
    }
    groups.sort_by_key(|(_, cells)| std::cmp::Reverse(cells.len()));
    groups
        .iter()
        .map(|(backend, cells)| {
            let cells: Vec<&str> = cells.iter().copied().filter(|c| !c.is_empty()).collect();
            if cells.is_empty() {
                backend.to_string()
            } else {
                format!("{backend} ({})", cells.join(", "))
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// An experiment that names a winner per cell: how many are decided, and those as its best.
fn ranked(winners: &[Winner], comparisons: &[PairRecord], cells: &str, extra: String) -> Verdict {
    let decided: Vec<&Winner> = winners.iter().filter(|w| decided(w, comparisons)).collect();
    let line = match (winners.len(), decided.len()) {
        (0, _) => "no winner named".to_string(),
        (1, 1) => "a clear winner".to_string(),
        (1, 0) if comparisons.iter().any(|c| c.b == winners[0].backend) => {
            format!("{} ahead, level with the runner-up", winners[0].backend)
        }
        (1, 0) => format!(
            "{} fastest by median (no comparison recorded against it)",
            winners[0].backend
        ),
        (n, 0) => format!("no clear winner in any of {n} {cells}"),
        (n, d) => format!("a clear winner in {d} of {n} {cells}"),
    };
    Verdict {
        line: line + &extra,
        best: (!decided.is_empty()).then(|| grouped(&decided)),
    }
}

fn e2(s: e2_movegen::summary::Summary, comparisons: &[PairRecord]) -> Verdict {
    let mut extra = String::new();
    // Each end of the range names its task: the tasks (and a task's depth) change between
    // reports, so a range alone would compare unlike things across them.
    let by_ratio = |a: &&e2_movegen::summary::PeerRatio, b: &&e2_movegen::summary::PeerRatio| {
        a.ratio.total_cmp(&b.ratio)
    };
    if let (Some(low), Some(high)) = (
        s.peer_ratios.iter().min_by(by_ratio),
        s.peer_ratios.iter().max_by(by_ratio),
    ) {
        extra.push_str(&format!(
            "; {} takes {}× the chosen backend's time on {}, up to {}× on {} (each task's backend chosen on held-out invocations)",
            low.peer,
            num(low.ratio),
            low.task,
            num(high.ratio),
            high.task
        ));
    }
    if let Some((peer, target)) = &s.target {
        let met = match target {
            e2_movegen::summary::Target::Met => "met",
            e2_movegen::summary::Target::NotMet => "not met",
        };
        extra.push_str(&format!("; list movegen ≥ 1.5× {peer}: {met}"));
    }
    if !s.like_for_like.is_empty() {
        let lows: Vec<String> = s
            .like_for_like
            .iter()
            .map(|(task, c)| format!("{task} ×{} (low {})", num(c.ratio), num(c.low)))
            .collect();
        extra.push_str(&format!(
            "; like for like (no perft shortcuts): {}",
            lows.join(", ")
        ));
    }
    ranked(&s.winners, comparisons, "tasks", extra)
}

fn e6(s: e6_memory::summary::Summary) -> Verdict {
    let Some(levels) = s.effective_levels else {
        return Verdict::plain("latency curve only (made before E6 found its levels)".into());
    };
    let mut parts: Vec<String> = levels
        .iter()
        .map(|l| {
            let sysfs = match l.sysfs_bytes {
                Some(b) if b != l.bytes => format!(" (sysfs {})", compact_bytes(b as f64)),
                _ => String::new(),
            };
            // Where the invocations' curves disagree on the size, the range they span: a
            // table sized to the pooled figure is not served at its latency in all of them.
            let sizes: Vec<usize> = l.bytes_per_invocation.iter().flatten().copied().collect();
            let spread = match (sizes.iter().min(), sizes.iter().max()) {
                (Some(&least), Some(&most)) if least != most => format!(
                    ", {}–{} over the invocations",
                    compact_bytes(least as f64),
                    compact_bytes(most as f64)
                ),
                _ => String::new(),
            };
            format!(
                "{} {} at {} ns{sysfs}{spread}",
                l.level,
                compact_bytes(l.bytes as f64),
                num(l.ns)
            )
        })
        .collect();
    if let Some(ns) = s.memory_ns {
        parts.push(format!("memory {} ns", num(ns)));
    }
    Verdict::plain(format!("effective levels {}", parts.join("; ")))
}

fn e7(s: e7_cache_pressure::summary::Summary) -> Verdict {
    let mut parts = Vec::new();
    // The answer's own sentence where the report has one (what the verdict reads, with its
    // resolution), else the verdict's words.
    if let Some(answer) = &s.answer {
        parts.push(answer.sentence.trim_end_matches('.').to_string());
    } else if let Some(words) = s.seed_004_words() {
        parts.push(format!("seed 004 {words}"));
    }
    // The dearest backend only where the controls the figure rests on passed, with its
    // interval (a cost measured by a method whose controls failed says nothing).
    if let Some(costs) = s
        .table_miss_cost
        .as_ref()
        .filter(|_| s.failed_controls().is_empty())
    {
        parts.extend(dearest_table_misses(costs));
    }
    if let Some(controls) = &s.negative_controls {
        let pass = controls.iter().filter(|(_, c)| c.pass).count();
        parts.push(format!(
            "negative controls {pass} of {} pass",
            controls.0.len()
        ));
    }
    let positives = s
        .positive_controls
        .clone()
        .or_else(|| s.positive_control.clone().map(|p| vec![p]));
    if let Some(list) = positives {
        // By today's rule where the report recorded the control's interval, as the verdict's
        // caveat reads it: a control passed on its point estimate whose interval reaches 0 or
        // leaves E6's band fails (one recorded without an interval keeps its own verdict).
        let pass = list.iter().filter(|p| p.pass && !p.fails_today()).count();
        parts.push(format!("positive controls {pass} of {} pass", list.len()));
    }
    if parts.is_empty() {
        parts.push("see the report".into());
    }
    Verdict::plain(parts.join("; "))
}

/// E7's costliest table misses, with the interval. "Dearest" is a claim of order, made only
/// where that interval lies wholly above the runner-up's (two separate intervals that do not
/// meet: a conservative test); otherwise the line gives the highest figure and says it is not
/// ordered against the runner-up.
fn dearest_table_misses(
    costs: &crate::results::Ordered<e7_cache_pressure::summary::Estimate>,
) -> Option<String> {
    let mut sorted: Vec<_> = costs.iter().collect();
    sorted.sort_by(|a, b| b.1.ns.total_cmp(&a.1.ns));
    let (name, top) = sorted.first()?;
    let figure = format!(
        "{name}, {} [{}–{}] ns per lookup",
        num(top.ns),
        num(top.low),
        num(top.high)
    );
    Some(match sorted.get(1) {
        Some((second, cost)) if top.low <= cost.high => format!(
            "costliest table misses by point estimate: {figure}, not ordered against {second} \
             ({} [{}–{}]: the intervals meet)",
            num(cost.ns),
            num(cost.low),
            num(cost.high)
        ),
        _ => format!("dearest table misses: {figure}"),
    })
}

/// Backends by how many geometries they win: `qugiy in 5 of 5`.
fn geometry_wins(wins: &crate::results::Ordered<String>) -> String {
    let winners: Vec<Winner> = wins
        .iter()
        .map(|(geometry, backend)| Winner {
            cell: geometry.to_string(),
            backend: backend.clone(),
        })
        .collect();
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for w in &winners {
        match counts.iter_mut().find(|(b, _)| *b == w.backend) {
            Some((_, n)) => *n += 1,
            None => counts.push((&w.backend, 1)),
        }
    }
    counts.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    counts
        .iter()
        .map(|(b, n)| format!("{b} in {n} of {}", winners.len()))
        .collect::<Vec<_>>()
        .join(", ")
}

fn e8(s: e8_simulated_caches::summary::Summary) -> Verdict {
    if !s.available {
        return Verdict::plain("not measured (no valgrind)".into());
    }
    let mut line = format!(
        "simulated, fewest estimated cycles per lookup: alone {}",
        geometry_wins(&s.best_backend_per_geometry)
    );
    if !s.best_backend_per_geometry_under_pressure.0.is_empty() {
        line.push_str(&format!(
            "; beside an evaluation {}",
            geometry_wins(&s.best_backend_per_geometry_under_pressure)
        ));
    }
    Verdict::plain(line)
}

fn e9(s: e9_isa_levels::summary::Summary) -> Verdict {
    let native: Vec<String> = s
        .pairs
        .iter()
        .filter(|p| p.builds.starts_with("native_vs_"))
        .map(|p| {
            format!(
                "{} {}: {} faster, {} level, {} slower",
                p.experiment,
                p.builds.replace("_vs_", " over "),
                p.cells[0],
                p.cells[1],
                p.cells[2]
            )
        })
        .collect();
    if native.is_empty() {
        return Verdict::plain("see the report".into());
    }
    Verdict::plain(format!("cells per build pair: {}", native.join("; ")))
}

fn e10(s: e10_attack_maps::summary::Summary) -> Verdict {
    let mut faster = 0;
    let mut ratios: Vec<f64> = Vec::new();
    let mut variants: Vec<&str> = Vec::new();
    let mut best: Vec<Winner> = Vec::new();
    for (workload, w) in &s.workloads {
        let Some(fastest) = w
            .best_set_wise
            .iter()
            .min_by(|a, b| a.over_per_piece.ratio.total_cmp(&b.over_per_piece.ratio))
        else {
            continue;
        };
        let r = &fastest.over_per_piece;
        ratios.push(r.ratio);
        if !variants.contains(&fastest.best.variant.as_str()) {
            variants.push(&fastest.best.variant);
        }
        let winner = match r.claim {
            Claim::Faster => {
                faster += 1;
                Some(format!("{} {}", fastest.best.backend, fastest.best.variant))
            }
            _ if w
                .best_set_wise
                .iter()
                .all(|x| x.over_per_piece.claim == Claim::Slower) =>
            {
                Some(format!("{} per-piece", w.best_per_piece.backend))
            }
            _ => None,
        };
        best.extend(winner.map(|backend| Winner {
            cell: workload.clone(),
            backend,
        }));
    }
    if ratios.is_empty() {
        return Verdict::plain("see the report".into());
    }
    let low = ratios.iter().copied().fold(f64::INFINITY, f64::min);
    let high = ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let line = format!(
        "the fastest set-wise method ({}) takes {}–{}× the best per-piece time; faster beyond \
         the threshold in {faster} of {} workloads",
        variants.join(", "),
        num(low),
        num(high),
        ratios.len()
    );
    let best: Vec<&Winner> = best.iter().collect();
    Verdict {
        line,
        best: (!best.is_empty()).then(|| grouped(&best)),
    }
}

/// E12: the pre-set rule's sentence, marked where an A/A control failed.
fn e12(s: e12_layouts::summary::Summary) -> Verdict {
    Verdict::plain(s.verdict_line())
}

/// E11: the rule's verdict per evaluation with D, the best backend per evaluation where one is
/// decided (not where the summary says "level" or "not separated").
fn e13(s: e13_simulated_search::Summary) -> Verdict {
    if !s.available {
        return Verdict::plain("not measured (no valgrind, or no cell ran)".into());
    }
    let parts: Vec<String> = s
        .verdict_by_eval
        .iter()
        .map(|(eval, verdict)| {
            let priced = s.predicted_d_ns.get(eval).copied().flatten();
            let figure = priced.map_or(String::new(), |r| {
                format!(" (priced D_sim {}–{} ns/node)", num(r.low), num(r.high))
            });
            let knee = match s.knee_bytes.get(eval).copied().flatten() {
                Some(k) => format!(", knee {}", kiki_core::units::rounded_bytes(k as f64)),
                None => ", no knee in the sweep".into(),
            };
            let verdict = verdict.as_deref().unwrap_or("has no verdict");
            format!("{eval}: seed 004 {verdict}{figure}{knee}")
        })
        .collect();
    let at = s.effective_l3_bytes.map_or("no measured L3".into(), |b| {
        kiki_core::units::rounded_bytes(b as f64)
    });
    Verdict::plain(format!("simulated at LL {at}: {}", parts.join("; ")))
}

fn e11(s: e11_search::summary::Summary) -> Verdict {
    let mut parts: Vec<String> = s
        .verdict_by_eval
        .iter()
        .map(|(eval, verdict)| {
            let d = s.rule_difference(eval).map_or(String::new(), |d| {
                format!(
                    " (D {} [{}–{}] ns/node)",
                    num(d.ns),
                    num(d.low),
                    num(d.high)
                )
            });
            format!("{eval}: seed 004 {verdict}{d}")
        })
        .collect();
    if !s.controls.passed {
        parts.push("a control failed".into());
    }
    let best: Vec<String> = s
        .best
        .iter()
        .filter(|(_, b)| !["level", "not separated"].contains(&b.as_str()))
        .map(|(eval, b)| format!("{b} ({eval})"))
        .collect();
    Verdict {
        line: parts.join("; "),
        best: (!best.is_empty()).then(|| best.join(", ")),
    }
}
