//! E6's prose: the method and findings paragraphs, from the settings and the numbers.

use super::analysis::Numbers;
use super::measure::Measurement;
use crate::harness::experiments::percent;
use crate::harness::stats::{format_interval, Claim};
use crate::units::rounded_bytes;

/// The findings paragraph: the latency inside each cache level, far memory on both page sizes,
/// and the steps of the curve.
pub(super) fn paragraph(n: &Numbers) -> String {
    let mut findings = Vec::new();
    for l in &n.levels {
        findings.push(format!(
            "At {}, half or less of the L{} size detected ({}), a load takes {} ns.",
            rounded_bytes(l.bytes as f64),
            l.level,
            rounded_bytes(l.cache_bytes as f64),
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
                    "the two are level at ±{} % (×{:.2}, {:.2}–{:.2}): no cost of address \
                     translation is resolved",
                    percent(n.threshold),
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
        "No step of the curve grows by more than 50 % across its whole interval between \
         neighbouring sizes."
            .to_string()
    } else {
        format!(
            "The latency grows by more than 50 % across the whole interval at {} — compare \
             with the cache markers.",
            steps.join(", ")
        )
    });
    findings.join(" ")
}

/// The method paragraph: the ring, the sizes, the page sizes, the sampling and the caches.
pub(super) fn method(m: &Measurement) -> String {
    let machine = &m.machine;
    let mut method = format!(
        "A ring of 64-byte lines shuffled into one cycle (Sattolo, seed {:#x} ^ size), each \
         line holding the next line's index: every load depends on the last, and the order \
         defeats prefetchers. Sizes 4 KiB to {}, {} per doubling; each size once with \
         4 KiB pages (MADV_NOHUGEPAGE) and once with transparent huge pages (MADV_HUGEPAGE; \
         system setting `{}`), the two interleaved. Each repetition follows at least the \
         whole ring; {} samples; values with 95 % intervals. Cache markers from {} ({}).",
        m.seed,
        rounded_bytes(*m.sizes.last().unwrap_or(&0) as f64),
        if m.per_octave == 1 {
            "one point"
        } else {
            "two points"
        },
        machine.transparent_huge_pages,
        m.sampling.samples,
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
