//! E3's prose: the method and findings paragraphs, from the settings and the numbers.

use super::analysis::Numbers;
use super::measure::Measurement;
use crate::experiments::and_list;
use crate::experiments::claims::claims_method;
use crate::stats::Claim;

/// The findings paragraph: the fastest fast path per set, brute force against it, and whether
/// every answer agreed with the set labels.
pub(super) fn paragraph(m: &Measurement, n: &Numbers) -> String {
    let mut findings = Vec::new();
    for f in &n.fastest {
        let rest = if f.others.is_empty() {
            String::new()
        } else {
            format!("; relative to it, {}", and_list(&f.others))
        };
        findings.push(format!(
            "{}: {} has the best typical time, {:.0} ns per position{rest}.",
            f.task, f.best, f.best_ns
        ));
    }
    if let Some((low, high)) = n.speedup_range {
        let parts: Vec<String> = n
            .speedups
            .iter()
            .map(|s| {
                let c = &s.ratio;
                let level = match c.claim {
                    Claim::Level if c.within(m.threshold) => ", level",
                    Claim::Level => ", unresolved",
                    _ => "",
                };
                format!(
                    "{} {} ×{:.1} ({:.1}–{:.1}{level})",
                    s.backend, s.set, c.ratio, c.low, c.high
                )
            })
            .collect();
        findings.push(format!(
            "Brute force takes ×{low:.1} to ×{high:.1} the fast path's time per position \
             (paired per round, with 95 % intervals): {}.",
            and_list(&parts)
        ));
    }
    if m.errors.is_empty() {
        findings.push(
            "Every backend's fast path and brute force agreed with the set labels on every \
             position."
                .to_string(),
        );
    } else {
        findings.push(format!("Problems: {}.", m.errors.join("; ")));
    }
    if m.rows.is_empty() {
        findings.push("No backend could be measured.".to_string());
    }
    findings.join(" ")
}

/// The method paragraph: the position sets, the check, the sampling and the claims.
pub(super) fn method(m: &Measurement) -> String {
    let mut method = format!(
        "Positions from seeded tactical games (`mate1::tactical_positions`, seed {:#x}), split \
         by the brute-force answer on the mailbox backend into {} with a mate in one and {} \
         without; the fast path and brute force both run over all of them, the same positions. \
         Every backend's answer is checked against the label before timing. ns per position, \
         {} samples with backends interleaved round-robin; cells: value [95 % interval]. \
         The brute/fast ratios pair the two by round (separate interleaved runs over the same \
         positions, round r of each in the same invocation).",
        m.workload_seed, m.set_sizes.0, m.set_sizes.1, m.samples,
    );
    if !m.skipped.is_empty() {
        method.push_str(&format!(" Skipped: {}.", m.skipped.join("; ")));
    }
    format!("{method} {}", claims_method(m.threshold, m.invocations))
}
