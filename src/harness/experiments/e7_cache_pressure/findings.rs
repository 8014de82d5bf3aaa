//! E7's method and findings paragraphs, written from the measurement and its analysis.

use super::analysis::{
    calibration_coincide, calibration_placement, lru_bytes, per_lookup, survival_bounds, Numbers,
};
use super::measure::{Measurement, SURVIVAL_LEVELS};
use super::{HOT_MASK, NEGATIVE_BOUND_NS, POSITIVE_TOLERANCE};
use crate::harness::experiments::{and_list, claims_method};
use crate::harness::stats::{format_interval, format_sig};
use crate::units::rounded_bytes;

pub(super) fn method(m: &Measurement) -> String {
    let levels = m
        .levels
        .levels
        .iter()
        .map(|l| {
            format!(
                "{} {} at {} ns",
                l.level,
                rounded_bytes(l.bytes as f64),
                format_sig(l.ns)
            )
        })
        .collect::<Vec<_>>();
    let huge = match m.pressure_huge {
        Some(bytes) => format!("{} of it on huge pages", rounded_bytes(bytes as f64)),
        None => "huge pages unknown".to_string(),
    };
    let mut text = format!(
        "Sizes come from the measured cache levels ({}; from {}), not from sysfs. Workload: {}. \
         Per node: P random reads of a {} pressure buffer ({huge}; 4× the effective last level \
         or more), each backend reading its own random stream, then every slider lookup of the \
         node as one dependent chain, timed alone between serialising time stamps \
         (`lfence; rdtscp; lfence`, ticks converted at {} ns each as measured against the \
         monotonic clock), so the pressure phase is outside every timing; the pressure sum \
         also feeds the chain's first square and the chain's result the next node's pressure \
         indices, both ANDed with a zero the compiler cannot see. Each backend's node runs its \
         chain once with the real tables and once as its hot twin — the same monomorphised \
         lookup with each attack-table index ANDed with a run-time mask that keeps the reads \
         within the first {} of each table (per-square metadata stays real) — the two taking \
         turns at going first; the table-miss cost is T(backend) − T(hot twin) in ns per \
         lookup, paired per round. Each case runs in a block of its own, so that no case is \
         timed among another case's tables or pressure lines: an untimed warm-in walk first \
         ({} lookups per line of the table footprint it reads, up to twice the last level, or \
         {} × the minimum sample time, whichever ends first), then all its rounds back to back, \
         each round the next window of nodes in slices of 32, keeping the slices' trimmed \
         mean; every case walks the same windows, and the case order rotates between \
         invocations. P sweeps {} \
         reads per node (fixed counts: what a node's reads insert, P × 64 B, is set against \
         a table line's reuse distance in nodes, not against a cache size). Controls: mailbox \
         and sqww (tables within one page) must show a cost within ±{NEGATIVE_BOUND_NS} ns; \
         an A/A control times {}'s full-table chain twice per node, as if it were its own \
         twin (the same turn-taking), and must resolve no difference (its interval includes \
         0); \
         synthetic tables of {} read at random in the same chain must each cost E6's latency \
         at their size minus the latency at 4 KiB at P = 0, within ±{:.0} % of the range E6's \
         invocations span there (a probed curve has no range: its own value). Dose–response: \
         at the top P, masks of {} (half the measured L2, half and twice the last level, \
         rounded down to powers of two) and the full table, all in one sweep. {} \
         Table pages: the backends with ≥ 4 MiB of attack tables on the 4 KiB pages the \
         allocator gave them, then collapsed to 2 MiB pages (`MADV_COLLAPSE`, checked in \
         /proc/self/smaps; measured last since it cannot be undone in the process), each \
         against pressure on 4 KiB and on huge pages, at the top P. Reuse: each backend's own \
         attack-table reads along the whole walk (`attack_table_offsets`, no pressure), their \
         LRU stack distances (Bennett–Kruskal with a Fenwick tree) bucketed by powers of two, \
         giving the misses of a fully associative LRU cache of any size (rounded down to \
         64 × 2^j bytes), reported per lookup of the walk (a lookup may read several table \
         lines). Bracket: the former \
         free-running design ({} lookups, {} evaluation reads per lookup with nothing ordering \
         them, at E = 0 and E = {}), marginal cost = T(backend) − T(reads alone).",
        and_list(&levels),
        m.levels.source,
        m.workload,
        rounded_bytes(m.pressure_bytes as f64),
        format_sig(m.ns_per_tick),
        rounded_bytes((HOT_MASK + 1) as f64),
        super::measure::WARM_IN_READS_PER_LINE,
        super::measure::WARM_IN_SAMPLES,
        m.pressure_reads
            .iter()
            .map(|r| r.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        m.aa_backend.unwrap_or("no backend"),
        and_list(
            &m.synthetic
                .iter()
                .map(|(label, bytes)| format!("{} ({label})", rounded_bytes(*bytes as f64)))
                .collect::<Vec<_>>()
        ),
        POSITIVE_TOLERANCE * 100.0,
        and_list(
            &m.dose_masks
                .iter()
                .map(|mask| rounded_bytes((mask + 1) as f64))
                .collect::<Vec<_>>()
        ),
        survival_method(m),
        m.bracket_lookups,
        super::BRACKET_READS,
        rounded_bytes(m.pressure_bytes as f64),
    );
    for note in m.notes.iter().chain(&m.skipped) {
        text.push(' ');
        text.push_str(note);
        text.push('.');
    }
    text.push_str(&format!(
        " Seed 004's verdict is decided, as fixed before measuring, by the isolated table-miss \
         cost: magic-plain's minus dbb's at the top P, and that gap's growth from P = 0, both \
         paired per round; the whole chains' time ratios and their change are reported beside \
         it. The survival classes count only when the hot twin's own reloads at P = 0 (L1 by \
         construction) classify as at least {:.0} % L1.",
        super::analysis::SURVIVAL_NULL_L1 * 100.0
    ));
    text.push(' ');
    text.push_str(&claims_method(m.threshold));
    text
}

/// The survival probe and its calibration, for the method paragraph.
fn survival_method(m: &Measurement) -> String {
    let Some(backend) = m.survival_backend else {
        return "Survival probe: not run.".to_string();
    };
    let mut text = format!(
        "Survival probe ({backend}): per node the lookups once, P pressure reads, then each \
         lookup timed alone (`lfence; rdtscp; lfence`); its extra time over the hot twin's \
         median reload at P = 0 (the same lookup with all its lines in L1) classifies the line \
         as L1 / L2 / LL / memory."
    );
    if let Some(c) = &m.calibration {
        let bounds = survival_bounds(c);
        let placement = calibration_placement(c);
        text.push_str(&format!(
            " The classes are calibrated with the same wrapper around a single load: {} loads \
             per level, each of a different random line of a {} buffer, the line placed in L1 \
             ({}), in L2 ({}), in the LL ({}) or in memory ({}), the levels taking turns; \
             medians {} / {} / {} / {} ns, and the bounds are the midpoints between \
             neighbouring medians minus the L1 median: {} / {} / {} ns of extra time. The time \
             stamp advances in steps of {} ns here (the greatest common divisor of the timed \
             loads' ticks). The calibration passes its self-check when its medians increase \
             strictly from L1 to memory.",
            c.samples,
            rounded_bytes(c.target_bytes as f64),
            placement[0],
            placement[1],
            placement[2],
            placement[3],
            format_sig(c.medians[0]),
            format_sig(c.medians[1]),
            format_sig(c.medians[2]),
            format_sig(c.medians[3]),
            format_sig(bounds[0]),
            format_sig(bounds[1]),
            format_sig(bounds[2]),
            format_sig(c.step_ns),
        ));
    }
    text
}

pub(super) fn paragraph(m: &Measurement, n: &Numbers) -> String {
    let mut out = Vec::new();
    let top = n.top_reads;
    let inserted = rounded_bytes(top as f64 * 64.0);
    // Costs at the top pressure, largest first.
    let mut at_top: Vec<(&str, usize, f64, String)> = n
        .costs
        .iter()
        .filter_map(|(name, bytes, points)| {
            points
                .iter()
                .find(|(r, _)| *r == top)
                .map(|(_, e)| (name.as_str(), *bytes, e.value, format_interval(e)))
        })
        .collect();
    at_top.sort_by(|a, b| b.2.total_cmp(&a.2));
    if !at_top.is_empty() {
        out.push(format!(
            "After {top} pressure reads per node (≈ {inserted} inserted), the table misses cost \
             per lookup: {}.",
            and_list(
                &at_top
                    .iter()
                    .map(|(name, bytes, _, text)| if *bytes == 0 {
                        format!("{name} {text} ns (no attack table to mask)")
                    } else {
                        format!(
                            "{name} {text} ns ({} of tables)",
                            rounded_bytes(*bytes as f64)
                        )
                    })
                    .collect::<Vec<_>>()
            )
        ));
    }
    out.push(format!("Seed 004's argument {}.", n.verdict.text));
    if let Some(p) = n.verdict.pairs.iter().find(|p| p.backend == "magic") {
        if let (Some(zero), Some(top_c), Some(change)) = (&p.unpressed, &p.at_top, &p.ratio_change)
        {
            out.push(format!(
                "Fancy magic against dbb: ×{:.2} [{:.2}–{:.2}] their time without pressure, \
                 ×{:.2} [{:.2}–{:.2}] after {top} reads per node, a change of ×{:.2} \
                 [{:.2}–{:.2}] paired per round{}.",
                zero.ratio,
                zero.low,
                zero.high,
                top_c.ratio,
                top_c.low,
                top_c.high,
                change.value,
                change.low,
                change.high,
                p.difference.as_ref().map_or(String::new(), |d| format!(
                    "; its table misses cost {} ns more per lookup than dbb's",
                    format_interval(d)
                ))
            ));
        }
    }
    let failed: Vec<String> = n
        .negative
        .iter()
        .filter(|(_, _, pass)| !pass)
        .map(|(name, e, _)| format!("{name} ({} ns)", format_interval(e)))
        .collect();
    if n.negative.is_empty() {
        out.push("No negative control was measured (mailbox, sqww not selected).".into());
    } else if failed.is_empty() {
        out.push(format!(
            "The negative controls pass: {} stay within ±{NEGATIVE_BOUND_NS} ns.",
            and_list(
                &n.negative
                    .iter()
                    .map(|(name, e, _)| format!("{name} {} ns", format_interval(e)))
                    .collect::<Vec<_>>()
            )
        ));
    } else {
        out.push(format!(
            "**A NEGATIVE CONTROL FAILS: {} lie outside ±{NEGATIVE_BOUND_NS} ns although their \
             tables fit one page — the costs above are not isolated on this run.**",
            and_list(&failed)
        ));
    }
    if let Some((name, points)) = &n.aa {
        let failed: Vec<String> = points
            .iter()
            .filter(|(_, _, pass)| !pass)
            .map(|(r, e, _)| format!("{} ns at P = {r}", format_interval(e)))
            .collect();
        let bound = points
            .iter()
            .map(|(_, e, _)| e.low.abs().max(e.high.abs()))
            .fold(0.0, f64::max);
        if failed.is_empty() {
            out.push(format!(
                "The A/A control passes: {name}'s full chain timed against itself resolves no \
                 bias at any pressure (every interval includes 0; the widest bounds a bias of \
                 the turn-taking to ±{} ns per lookup).",
                format_sig(bound)
            ));
        } else {
            out.push(format!(
                "**THE A/A CONTROL FAILS: {name}'s full chain against itself gives {}: the \
                 turn-taking biases the costs above by that much.**",
                and_list(&failed)
            ));
        }
    }
    for p in &n.positive {
        let size = format!("{} ({})", rounded_bytes(p.bytes as f64), p.label);
        out.push(if p.pass {
            format!(
                "The positive control at {size} passes: {} ns per read at P = 0, E6's curve says \
                 {} ns ({}–{} over its invocations).",
                format_interval(&p.at_zero),
                format_sig(p.expected),
                format_sig(p.expected_low),
                format_sig(p.expected_high)
            )
        } else {
            format!(
                "**THE POSITIVE CONTROL AT {size} FAILS: {} ns per read at P = 0 where E6's curve \
                 says {} ns ({}–{} over its invocations, ±{:.0} %).**",
                format_interval(&p.at_zero),
                format_sig(p.expected),
                format_sig(p.expected_low),
                format_sig(p.expected_high),
                POSITIVE_TOLERANCE * 100.0
            )
        });
    }
    let growth: Vec<String> = n
        .positive
        .iter()
        .filter_map(|p| {
            let top_e = p.by_pressure.iter().find(|(r, _)| *r == top)?;
            Some(format!(
                "{} ({}) from {} to {} ns",
                rounded_bytes(p.bytes as f64),
                p.label,
                format_sig(p.at_zero.value),
                format_sig(top_e.1.value)
            ))
        })
        .collect();
    if !growth.is_empty() && top > 0 {
        out.push(format!(
            "Pressure also changes what one miss costs, with no backend involved: the synthetic \
             tables' cost per read goes {} from P = 0 to P = {top}; a table's cost under pressure \
             mixes where its lines are with that.",
            and_list(&growth)
        ));
    }
    for (name, points) in &n.dose {
        out.push(format!(
            "{name}'s cost by the footprint it reads (one sweep at P = {top}, each footprint \
             a case of its own): {}.",
            and_list(
                &points
                    .iter()
                    .map(|(b, e)| format!(
                        "{} ns at {}",
                        format_interval(e),
                        rounded_bytes(*b as f64)
                    ))
                    .collect::<Vec<_>>()
            )
        ));
    }
    if let Some(last_level) = m.levels.levels.last() {
        let described: Vec<String> = m
            .reuse
            .iter()
            .map(|r| {
                format!(
                    "{} {} ({}; {} misses per lookup, {} of them cold)",
                    r.backend,
                    r.distinct_lines,
                    rounded_bytes(r.distinct_lines as f64 * 64.0),
                    per_lookup(r.misses_per_lookup(last_level.bytes)),
                    per_lookup(r.cold_per_lookup())
                )
            })
            .collect();
        if !described.is_empty() {
            out.push(format!(
                "Along the walk, with no pressure at all, the tables' distinct lines and the \
                 table-line misses per lookup of a fully associative LRU cache the size of the \
                 measured {} ({}, read as {}): {}; the cold misses are the first reads of each \
                 line, which no cache size removes.",
                last_level.level,
                rounded_bytes(last_level.bytes as f64),
                rounded_bytes(lru_bytes(last_level.bytes) as f64),
                and_list(&described)
            ));
        }
    }
    if let (Some(first), Some(last), Some(c)) =
        (n.survival.first(), n.survival.last(), &m.calibration)
    {
        let coincide = calibration_coincide(c);
        let null_fails = n
            .survival_null
            .filter(|null| null[0] < super::analysis::SURVIVAL_NULL_L1);
        if let (true, Some(null)) = (coincide.is_empty(), null_fails) {
            out.push(format!(
                "**The survival classes are not resolved on this machine**: the calibration's \
                 medians grow level by level, but the hot twin's own reloads at P = 0, whose \
                 lines are in L1 by construction, classify as only {:.0} % L1 ({:.0} % L2, \
                 {:.0} % LL, {:.0} % memory; at least {:.0} % L1 is required), so the classes \
                 overlap and the survival table's fractions are not findings.",
                null[0] * 100.0,
                null[1] * 100.0,
                null[2] * 100.0,
                null[3] * 100.0,
                super::analysis::SURVIVAL_NULL_L1 * 100.0
            ));
        } else if coincide.is_empty() {
            out.push(format!(
                "Survival ({}, classes calibrated by single loads at L1 {} / L2 {} / LL {} / \
                 memory {} ns): right after the node's own lookups {:.0} % of its reloads hit \
                 L1; after {} pressure reads {:.0} % hit L1, {:.0} % L2, {:.0} % the last level \
                 and {:.0} % go to memory.",
                m.survival_backend.unwrap_or("?"),
                format_sig(c.medians[0]),
                format_sig(c.medians[1]),
                format_sig(c.medians[2]),
                format_sig(c.medians[3]),
                first.1[0] * 100.0,
                last.0,
                last.1[0] * 100.0,
                last.1[1] * 100.0,
                last.1[2] * 100.0,
                last.1[3] * 100.0
            ));
        } else {
            let index = |name: &str| SURVIVAL_LEVELS.iter().position(|l| *l == name);
            let level = |name: &str| {
                format!(
                    "{name} {} ns",
                    format_sig(c.medians[index(name).unwrap_or(0)])
                )
            };
            // The pointer chase's latency of a level (memory beyond the last).
            let chased = |name: &str| match index(name) {
                Some(3) => Some(m.levels.memory_ns),
                Some(2) => m.levels.levels.last().map(|l| l.ns),
                Some(i) => m.levels.levels.get(i).map(|l| l.ns),
                None => None,
            };
            let why: Vec<String> = coincide
                .iter()
                .filter_map(|(a, b)| {
                    let (ns_a, ns_b) = (chased(a)?, chased(b)?);
                    (c.step_ns >= (ns_b - ns_a).abs()).then(|| {
                        format!(
                            "{a} and {b} are {} ns apart in the pointer chase",
                            format_sig((ns_b - ns_a).abs())
                        )
                    })
                })
                .collect();
            let clock = if why.is_empty() {
                String::new()
            } else {
                format!(
                    "; the time stamp advances in steps of {} ns here, while {}, so one timed \
                     load cannot tell them apart",
                    format_sig(c.step_ns),
                    and_list(&why)
                )
            };
            out.push(format!(
                "**The survival classes are not resolved on this machine**: the calibration's \
                 single loads do not grow level by level ({}: {}{clock}), so a reload's time \
                 cannot say which of those levels served it, and the survival table's \
                 fractions are not findings.",
                and_list(
                    &coincide
                        .iter()
                        .map(|(a, b)| format!("{a} and {b} coincide"))
                        .collect::<Vec<_>>()
                ),
                and_list(
                    &coincide
                        .iter()
                        .map(|(a, b)| format!("{} against {}", level(a), level(b)))
                        .collect::<Vec<_>>()
                )
            ));
        }
    }
    for split in &n.pages {
        let name = &split.backend;
        out.push(match &split.error {
            Some(e) => format!("{name}'s tables could not be collapsed to huge pages ({e})."),
            None => format!(
                "{name}'s table misses cost {} ns with its tables on 4 KiB pages and {} ns on \
                 2 MiB pages ({} of its tables collapsed; measured one after the other, so \
                 these are values, not a paired claim).",
                format_interval(&split.small),
                format_interval(&split.huge),
                split
                    .after
                    .map_or("an unknown share".into(), |b| rounded_bytes(b as f64))
            ),
        });
    }
    if !n.bracket.is_empty() {
        let growth = |name: &str| {
            n.bracket
                .iter()
                .find(|(b, a, _)| b == name && a.value > 0.0)
                .map(|(_, a, b)| b.value / a.value)
        };
        let tables: Vec<f64> = n
            .bracket
            .iter()
            .filter(|(name, _, _)| super::measure::attack_table_bytes(name) > 0)
            .filter_map(|(name, _, _)| growth(name))
            .collect();
        let controls: Vec<String> = super::NEGATIVE_CONTROLS
            .iter()
            .filter_map(|name| growth(name).map(|g| format!("{name} ×{g:.2}")))
            .collect();
        let (lo, hi) = tables
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), r| {
                (l.min(*r), h.max(*r))
            });
        if lo.is_finite() && !controls.is_empty() {
            out.push(format!(
                "In the free-running bracket (no dependency, no timing per node) the backends \
                 with tables see their marginal cost grow ×{lo:.2} to ×{hi:.2} from E = 0 to \
                 E = {}, and the backends without tables to miss grow too ({}): growth in that \
                 design does not isolate table misses, which is why it cannot decide the \
                 question (its ratios are values, not claims).",
                rounded_bytes(m.pressure_bytes as f64),
                and_list(&controls)
            ));
        }
    }
    out.join(" ")
}
