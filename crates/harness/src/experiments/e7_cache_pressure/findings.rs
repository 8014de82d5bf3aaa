//! E7's method and findings paragraphs, written from the measurement and its analysis.

use super::analysis::{calibration_placement, lru_bytes, per_lookup, survival_resolved, Numbers};
use super::measure::Measurement;
use super::survival::{HELD_OUT_MIN, MERGE_BELOW_TV, NULL_FIRST_CLASS};
use super::{HOT_MASK, NEGATIVE_BOUND_NS, POSITIVE_TOLERANCE};

/// The share of the memory-sized synthetic table's cost that the half-last-level one must reach
/// at the top pressure for the top to count as evicting.
const TOP_EVICTS_SHARE: f64 = 0.8;
use crate::experiments::{and_list, claims_method};
use crate::stats::{format_interval, format_sig};
use kiki_core::units::rounded_bytes;

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
         mean; every case and every pressure count walks the same windows (sized at the top \
         P, measured first, so that its slowest case's window lasts the minimum sample time), \
         so a round's values pair node for node across cases and counts, and the case order \
         rotates between invocations. P sweeps {} \
         reads per node (fixed counts: what a node's reads insert, P × 64 B, is set against \
         a table line's reuse distance in nodes, not against a cache size). Controls: mailbox \
         and sqww (tables within one page, which ignore the mask) and a synthetic table of \
         one page (4 KiB, read whole by the real chain and by its twin alike: the masked path \
         with nothing to miss) must show a cost within ±{NEGATIVE_BOUND_NS} ns; \
         an A/A control times {}'s full-table chain twice per node, as if it were its own \
         twin (the same turn-taking: it tests that taking turns biases neither side, not the \
         misses, since the second chain finds the first one's lines), and must resolve no \
         difference (its interval includes 0); \
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
                .filter(|(label, _)| label != super::measure::ONE_PAGE)
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
    text.push_str(
        " Seed 004's verdict is decided, as fixed before measuring, by the isolated table-miss \
         cost: magic-plain's minus dbb's at the top P, and that gap's growth from P = 0, both \
         paired per round; the seed's \"loses\" also needs magic-plain's whole chain slower than \
         dbb's at the top P (the ratio's interval beyond the threshold), and the whole chains' \
         ratio change is reported beside it.",
    );
    text.push(' ');
    text.push_str(&claims_method(m.threshold, m.invocations));
    text
}

/// The survival probe and its calibration, for the method paragraph.
fn survival_method(m: &Measurement) -> String {
    let Some(backend) = m.survival_backend else {
        return "Survival probe: not run.".to_string();
    };
    let mut text = format!(
        "Survival probe ({backend}): per node its lookups once (bringing their table lines in), \
         P pressure reads (P = 0, then 8 × 4^k up to the first count that inserts 4× the \
         effective last level), then one timed load of each distinct table line the lookups \
         read (named by `attack_table_offsets`): a single byte load between serialising time \
         stamps (`lfence; rdtscp; lfence`), each waiting on the one before."
    );
    if let Some(c) = &m.calibration {
        let placement = calibration_placement(c);
        text.push_str(&format!(
            " Its calibration times the same load with the same wrapper: {} loads per level, \
             each of a different random line of {backend}'s own attack tables ({}), the line \
             placed in L1 ({}), in L2 ({}), in the LL ({}) or in memory ({}), the levels taking \
             turns; medians {} / {} / {} / {} ns. The time stamp advances in steps of {} ns \
             here (the greatest common divisor of the timed loads' ticks), so levels closer \
             than a step read mostly the same. Where the lines are is therefore estimated over \
             all of a count's loads, not load by load: the fractions are the mixture weights \
             under which the calibrated levels' load-time distributions (binned at the step, \
             everything from the LL–memory midpoint in one bin) best explain the probe's loads \
             (maximum likelihood, by EM), with 95 % intervals from a bootstrap over \
             invocations, then loads, calibration and probe resampled together. From L1 up, \
             each level joins the class before it when its distribution lies within a total \
             variation of {MERGE_BELOW_TV} of that class's pooled distribution (a load's time \
             cannot tell them apart); the table gives each level's distance to the next alone. \
             The probe's lines were read once, one node before: a line the walk reuses often \
             can fare differently under a replacement policy that is not LRU. The fractions are \
             findings when each class's held-out calibration loads (the odd ones, estimated \
             with distributions from the even ones) come out at least {:.0} % as that class, \
             and when at P = 0, whose lines were read just before (in L1 by construction), at \
             least {:.0} % come out in the first class.",
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
            format_sig(c.step_ns),
            HELD_OUT_MIN * 100.0,
            NULL_FIRST_CLASS * 100.0,
        ));
    }
    text
}

/// The survival finding: where the lines are at P = 0, at the chain sweep's top P and at the
/// largest P, or why the classes are not findings here.
fn survival_paragraph(m: &Measurement, n: &Numbers) -> Option<String> {
    let classes = n.survival_classes.as_ref()?;
    let first = n.survival.first()?;
    let last = n.survival.last()?;
    let backend = m.survival_backend.unwrap_or("?");
    let names: Vec<String> = (0..classes.members.len())
        .map(|k| classes.name(k))
        .collect();
    let merged: Vec<String> = classes
        .members
        .iter()
        .enumerate()
        .filter(|(_, levels)| levels.len() > 1)
        .map(|(k, levels)| {
            let distances: Vec<String> = levels
                .windows(2)
                .map(|pair| format!("{:.2}", classes.neighbour_tv[pair[0]]))
                .collect();
            format!(
                "{} are one class here: their timed loads differ by a total variation of only {}",
                names[k],
                distances.join(" and ")
            )
        })
        .collect();
    let merged = if merged.is_empty() {
        String::new()
    } else {
        format!(
            " ({}, with the time stamp's {} ns step)",
            and_list(&merged),
            format_sig(m.calibration.as_ref().map_or(f64::NAN, |c| c.step_ns))
        )
    };
    let at = |f: &super::survival::Fractions| -> String {
        and_list(
            &(0..f.share.len())
                .map(|k| {
                    format!(
                        "{:.0} % [{:.0}–{:.0}] {}",
                        f.share[k] * 100.0,
                        f.low[k] * 100.0,
                        f.high[k] * 100.0,
                        if k + 1 == f.share.len() && names[k] == "memory" {
                            "in memory".to_string()
                        } else {
                            format!("in {}", names[k])
                        }
                    )
                })
                .collect::<Vec<_>>(),
        )
    };
    if !survival_resolved(n) {
        let failing: Vec<String> = classes
            .held_out
            .iter()
            .enumerate()
            .filter(|(_, &share)| share.is_nan() || share < HELD_OUT_MIN)
            .map(|(k, share)| {
                format!(
                    "{}'s held-out loads come out only {:.0} % as {}",
                    names[k],
                    share * 100.0,
                    names[k]
                )
            })
            .collect();
        let null = first.share.first().copied().unwrap_or(f64::NAN);
        let mut why = failing;
        if first.reads == 0 && (null.is_nan() || null < NULL_FIRST_CLASS) {
            why.push(format!(
                "at P = 0, with every line just read, only {:.0} % come out in {}",
                null * 100.0,
                names[0]
            ));
        }
        return Some(format!(
            "**The survival fractions are not findings on this machine**: {} (at least {:.0} % \
             is required){merged}.",
            and_list(&why),
            HELD_OUT_MIN.min(NULL_FIRST_CLASS) * 100.0
        ));
    }
    let mut text = format!(
        "Survival of {backend}'s table lines (classes {}{merged}): right after the node's own \
         lookups {}",
        names.join(" / "),
        at(first)
    );
    if let Some(mid) = n
        .survival
        .iter()
        .find(|f| f.reads == n.top_reads && f.reads > 0)
    {
        text.push_str(&format!(
            "; after {} pressure reads (≈ {} inserted, the top of the chain sweep) {}",
            mid.reads,
            rounded_bytes(mid.reads as f64 * 64.0),
            at(mid)
        ));
    }
    text.push_str(&format!(
        "; after {} reads (≈ {} inserted) {}.",
        last.reads,
        rounded_bytes(last.reads as f64 * 64.0),
        at(last)
    ));
    let memory = names.len() - 1;
    if let Some(half) = n.survival.iter().find(|f| f.share[memory] >= 0.5) {
        text.push_str(&format!(
            " Half the lines or more are in {} from {} reads per node (≈ {} inserted) on.",
            names[memory],
            half.reads,
            rounded_bytes(half.reads as f64 * 64.0)
        ));
    }
    Some(text)
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
             per lookup (listed by value; an order between two is claimed only below): {}.",
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
    // Is the top pressure high on this CPU? A table of half the last level, read at random,
    // should cost about what a table in memory costs once the top P's reads come between its
    // reads; where it does not, the last level still holds much of it, and the top P
    // understates what a search with a bigger evaluation would do.
    let at_top = |p: &super::analysis::Positive| {
        p.by_pressure
            .iter()
            .find(|(r, _)| *r == top)
            .map(|(_, e)| e.value)
    };
    let last_level = m.levels.levels.last().map(|l| format!("½ {}", l.level));
    let half_ll = n
        .positive
        .iter()
        .find(|p| Some(&p.label) == last_level.as_ref());
    let memory = n.positive.iter().find(|p| p.label == "memory");
    if let (Some(half), Some(memory), true) = (half_ll, memory, top > 0) {
        if let (Some(h), Some(mem)) = (at_top(half), at_top(memory)) {
            let share = h / mem;
            let measured = format!(
                "after {top} reads per node the synthetic table of {} ({}) costs {} ns per read, \
                 {:.0} % of the memory-sized one's {} ns (at least {:.0} % is asked)",
                rounded_bytes(half.bytes as f64),
                half.label,
                format_sig(h),
                share * 100.0,
                format_sig(mem),
                TOP_EVICTS_SHARE * 100.0
            );
            out.push(if share >= TOP_EVICTS_SHARE {
                format!("The top pressure evicts on this CPU: {measured}.")
            } else {
                format!(
                    "**The top pressure does not evict on this CPU**: {measured}, so much of a \
                     table that size stays in the last level, and the costs above understate \
                     what a bigger evaluation would do."
                )
            });
        }
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
    if let Some(text) = survival_paragraph(m, n) {
        out.push(text);
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
