//! E6's prose: the method and findings paragraphs, from the settings and the numbers.

use super::analysis::{ramp_words, Numbers};
use super::measure::{Measurement, MAX_LOADS_PER_REPETITION, MIN_LOADS_PER_REPETITION};
use crate::cache_levels::{EffectiveLevel, Ramp, KNEE_RULE, PER_INVOCATION_RULE};
use crate::experiments::claims::level_words;
use crate::stats::{format_interval, format_sig, Claim};
use kiki_core::units::rounded_bytes;

/// The findings paragraph: the cache levels the curve shows beside those the machine lists,
/// the latency inside each, far memory on both page sizes, and the steps of the curve.
pub(super) fn paragraph(n: &Numbers) -> String {
    let mut findings = vec![measured_levels(n)];
    for l in &n.levels {
        findings.push(format!(
            "At {}, {} the measured {}, a load takes {} ns.",
            rounded_bytes(l.bytes as f64),
            if l.bytes <= l.effective_bytes / 2 {
                "half or less of"
            } else {
                "the whole of"
            },
            l.level,
            format_interval(&l.ns),
        ));
    }
    if let Some(far) = &n.far {
        let (small, huge) = (far.small, far.huge);
        findings.push(format!(
            "At {} a load takes {small:.1} ns with 4 KiB pages and {huge:.1} ns with huge \
             pages ({}); {}.",
            rounded_bytes(far.bytes as f64),
            match far.huge_granted {
                Some(h) if h > 0 =>
                    format!("{} of the ring in huge pages", rounded_bytes(h as f64)),
                Some(_) => "the kernel granted no huge pages".to_string(),
                None => "huge-page use unknown".to_string(),
            },
            match &far.translation {
                Some(c) if c.claim == Claim::Slower => format!(
                    "4 KiB pages take ×{:.2} ({:.2}–{:.2}) the huge-page time, so about {:.0} % \
                     ({:.0}–{:.0} %) of the far-memory latency is address translation",
                    c.ratio,
                    c.low,
                    c.high,
                    (1.0 - 1.0 / c.ratio) * 100.0,
                    (1.0 - 1.0 / c.low) * 100.0,
                    (1.0 - 1.0 / c.high) * 100.0
                ),
                Some(c) if c.claim == Claim::Faster => format!(
                    "huge pages are slower here (×{:.2}, {:.2}–{:.2}), so nothing is measured \
                     of address translation",
                    1.0 / c.ratio,
                    1.0 / c.high,
                    1.0 / c.low
                ),
                Some(c) => format!(
                    "the two are {} (×{:.2}, {:.2}–{:.2}): no cost of address translation \
                     is resolved",
                    level_words(c, n.threshold),
                    c.ratio,
                    c.low,
                    c.high
                ),
                None => "the two were not paired".to_string(),
            }
        ));
    }
    let steps: Vec<String> = n
        .steps
        .iter()
        .map(|(from, to, growth)| {
            format!(
                "{} → {} (×{:.1}, {:.1}–{:.1})",
                rounded_bytes(*from as f64),
                rounded_bytes(*to as f64),
                growth.ratio,
                growth.low,
                growth.high
            )
        })
        .collect();
    findings.push(if steps.is_empty() {
        "No step of the 4 KiB-page curve grows by more than 50 % across its whole interval \
         between neighbouring sizes."
            .to_string()
    } else {
        format!(
            "On the 4 KiB-page curve the latency grows by more than 50 % across the whole \
             interval at {} — compare with the cache markers.",
            steps.join(", ")
        )
    });
    findings.join(" ")
}

/// The sentence on the levels the curve shows: each one's effective size beside the size the
/// machine lists, the listed levels it does not show, and memory beyond them.
fn measured_levels(n: &Numbers) -> String {
    let curve = if n.fallback {
        "The huge-page curve (4 KiB pages where the kernel granted no huge pages)"
    } else {
        "The huge-page curve"
    };
    let source = &n.cache_source;
    let levels = &n.measured.levels;
    let mut text = if levels.is_empty() {
        format!("{curve} shows no cache level: it has no step between two plateaus.")
    } else {
        let each: Vec<String> = levels
            .iter()
            .map(|l| {
                format!(
                    "{} serves up to {}{} at {} ns{} ({})",
                    l.level,
                    rounded_bytes(l.bytes as f64),
                    match l.bytes_range() {
                        Some((low, high)) if low != high => {
                            format!(" ({} over the invocations)", size_range(low, high))
                        }
                        _ => String::new(),
                    },
                    format_sig(l.ns),
                    match (l.ns_low, l.ns_high) {
                        (Some(low), Some(high)) if n.invocations > 1 => format!(
                            ", {}–{} over the invocations",
                            format_sig(low),
                            format_sig(high)
                        ),
                        _ => String::new(),
                    },
                    match l.sysfs_bytes {
                        Some(listed) => format!("{source}: {}", rounded_bytes(listed as f64)),
                        None => format!("{source} lists no L{}", &l.level[1..]),
                    }
                )
            })
            .collect();
        format!(
            "{curve} shows {}{} cache level{}: {}; beyond {}, a load takes {:.1} ns.",
            if n.invocations > 1 {
                format!(
                    "(the median over its {} invocations, each curve taken on its own) ",
                    n.invocations
                )
            } else {
                String::new()
            },
            levels.len(),
            if levels.len() == 1 { "" } else { "s" },
            each.join(", "),
            if levels.len() == 1 { "it" } else { "them" },
            n.measured.memory_ns
        )
    };
    if n.invocations > 1 && !levels.is_empty() {
        text.push(' ');
        text.push_str(&spread(n));
    }
    if let Some(steps) = steps(levels) {
        text.push(' ');
        text.push_str(&steps);
    }
    if !n.unseen.is_empty() {
        let unseen: Vec<String> = n
            .unseen
            .iter()
            .map(|(level, bytes)| format!("L{level} ({})", rounded_bytes(*bytes as f64)))
            .collect();
        text.push_str(&format!(
            " {source} also lists {}, which the curve shows no level for.",
            unseen.join(", ")
        ));
    }
    text
}

/// The sentence on the steps after the levels: where each starts and ends, and which span
/// more than one doubling of size (ramps, where a table is served partly by each side);
/// `None` without a step.
fn steps(levels: &[EffectiveLevel]) -> Option<String> {
    let each: Vec<String> = levels
        .iter()
        .filter_map(|l| {
            let ramp = l.ramp?;
            let per_invocation: Vec<&Ramp> = l.ramps_per_invocation.iter().flatten().collect();
            let spread = match (
                per_invocation.iter().map(|r| r.start_bytes).min(),
                per_invocation.iter().map(|r| r.start_bytes).max(),
                per_invocation.iter().map(|r| r.end_bytes).min(),
                per_invocation.iter().map(|r| r.end_bytes).max(),
            ) {
                (Some(start_low), Some(start_high), Some(end_low), Some(end_high))
                    if start_low != start_high || end_low != end_high =>
                {
                    format!(
                        "; over the invocations it starts at {} and ends at {}",
                        size_range(start_low, start_high),
                        size_range(end_low, end_high)
                    )
                }
                _ => String::new(),
            };
            Some(format!(
                "after {}, {}{} ({} over {:.1} doublings)",
                l.level,
                ramp_words(&ramp),
                spread,
                if ramp.doublings() > 1.0 {
                    "a ramp"
                } else {
                    "a cliff"
                },
                ramp.doublings()
            ))
        })
        .collect();
    if each.is_empty() {
        return None;
    }
    Some(format!(
        "The steps from each level to the next (the last size on its plateau → the first on \
         the next, each the median over the invocations taken on its own; sizes are measured \
         half a doubling apart, so a step is known to that resolution; a ramp spans more than \
         one doubling, and a table sized inside it is served partly by each side): {}.",
        each.join("; ")
    ))
}

/// `1 MiB–1.41 MiB`, or `1 MiB` where the two are the same.
fn size_range(low: usize, high: usize) -> String {
    if low == high {
        rounded_bytes(low as f64)
    } else {
        format!(
            "{}–{}",
            rounded_bytes(low as f64),
            rounded_bytes(high as f64)
        )
    }
}

/// The sentence on how the invocations' own curves spread the levels' effective sizes:
/// `L3: 4 MiB in 3 of 5 invocations, 8 MiB in 2`, and the levels on which all agree.
fn spread(n: &Numbers) -> String {
    let k = n.invocations;
    let levels = &n.measured.levels;
    let agreed: Vec<&str> = levels
        .iter()
        .filter(|l| l.invocations_agree())
        .map(|l| l.level.as_str())
        .collect();
    let differing: Vec<String> = levels
        .iter()
        .filter(|l| !l.invocations_agree())
        .map(|l| {
            let counts: Vec<String> = l
                .size_counts()
                .into_iter()
                .enumerate()
                .map(|(i, (bytes, count))| {
                    let what =
                        bytes.map_or("no such level".to_string(), |b| rounded_bytes(b as f64));
                    if i == 0 {
                        format!("{what} in {count} of {k} invocations")
                    } else {
                        format!("{what} in {count}")
                    }
                })
                .collect();
            format!("{}: {}", l.level, counts.join(", "))
        })
        .collect();
    if differing.is_empty() {
        return format!("All {k} invocations' curves give every level the same effective size.");
    }
    let mut text = format!(
        "The invocations' own curves differ on the effective size — {} (the size above is \
         their median, one of the sizes measured)",
        differing.join("; ")
    );
    if !agreed.is_empty() {
        let all = if k == 2 {
            "both".to_string()
        } else {
            format!("all {k}")
        };
        text.push_str(&format!("; on {} {all} agree", agreed.join(" and ")));
    }
    text.push('.');
    text
}

/// The method paragraph: the ring, the sizes, the page sizes, the sampling, the knee rule and
/// the caches.
pub(super) fn method(m: &Measurement) -> String {
    let machine = &m.machine;
    let invocations = m.invocations;
    let mut method = format!(
        "A ring of 64-byte lines shuffled into one cycle (Sattolo, seed {:#x} ^ size), each \
         line holding the next line's index: every load depends on the last, and the order \
         defeats prefetchers. Sizes from 4 KiB, {} per doubling. {} Each size once with \
         4 KiB pages (MADV_NOHUGEPAGE) and once with transparent huge pages (MADV_HUGEPAGE; \
         system setting `{}`), the two interleaved. Each repetition carries on round the ring \
         from where the last stopped, for as many loads as the ring has lines but at least {} \
         and at most {}, so the footprint is always the whole ring; {} samples; values with 95 % intervals. \
         Cache levels are found on the huge-page curve (4 KiB pages at sizes where the kernel \
         granted the huge-page ring none). {} {} Here {} invocation{}. Cache markers: the \
         measured levels, and the sizes {} lists ({}).",
        m.seed,
        if m.per_octave == 1 {
            "one point"
        } else {
            "two points"
        },
        m.sweep,
        machine.transparent_huge_pages,
        MIN_LOADS_PER_REPETITION,
        MAX_LOADS_PER_REPETITION,
        m.sampling.samples,
        KNEE_RULE,
        PER_INVOCATION_RULE,
        invocations,
        if invocations == 1 { "" } else { "s" },
        machine.cache_source,
        machine
            .caches
            .iter()
            .filter(|c| c.kind != "Instruction")
            .map(|c| format!("L{} {}", c.level, rounded_bytes(c.bytes as f64)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if !m.advice_errors.is_empty() {
        method.push_str(&format!(" madvise failed: {}.", m.advice_errors.join("; ")));
    }
    method
}
