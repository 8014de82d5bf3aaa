//! E4's prose: the method and findings paragraphs, from the settings and the numbers.

use super::analysis::Numbers;
use super::measure::Measurement;
use crate::experiments::and_list;
use crate::experiments::claims::{claims_method, level_words};
use crate::stats::Claim;

/// The findings paragraph: the fastest layout per operation, guarded against packed on
/// superiority, and the loops that were batched.
pub(super) fn paragraph(m: &Measurement, n: &Numbers) -> String {
    let mut findings = Vec::new();
    for f in &n.fastest {
        findings.push(format!(
            "{}: {} has the best typical time, {:.2} ns; {}.",
            f.op,
            f.best,
            f.best_ns,
            and_list(&f.others)
        ));
    }
    for (op, c) in &n.guarded_vs_packed {
        let verdict = match c.claim {
            Claim::Faster => "faster than".to_string(),
            Claim::Slower => "slower than".to_string(),
            Claim::Level => format!("{} against", level_words(c, m.threshold)),
        };
        findings.push(format!(
            "On {op}, the guarded layout's single subtraction is {verdict} Bonanza's \
             field-by-field compare (guarded/packed ×{:.2}, {:.2}–{:.2}).",
            c.ratio, c.low, c.high
        ));
    }
    if let Some(ghz) = m.clock_ghz {
        if !n.batched.is_empty() {
            let batched: Vec<String> = n
                .batched
                .iter()
                .map(|(op, layout, cycles)| format!("{op} on {layout} ({cycles:.2})"))
                .collect();
            let chain: Vec<String> = n
                .chain
                .iter()
                .map(|(l, ns)| format!("{l} {ns:.2} ns ({:.1} cycles)", ns * ghz))
                .collect();
            findings.push(format!(
                "Below one cycle per operation at the measured {ghz:.2} GHz: {}. Each operation \
                 takes several instructions, so these loops were vectorised or overlapped across \
                 pairs by the compiler: they are throughput over a batch, not the cost of one \
                 call. One call's cost is the dependent chain's: {}.",
                and_list(&batched),
                and_list(&chain)
            ));
        }
    }
    findings.join(" ")
}

/// The method paragraph: the pairs, the operations, the sampling, the cycles and the claims.
pub(super) fn method(m: &Measurement, n: &Numbers) -> String {
    let method = format!(
        "{} pre-generated hand pairs (seed {:#x}; {:.0} % of them have the first hand at \
         least as good as the second; `b` is drawn below `a` and half the time one field \
         redrawn), each turned into every layout before timing. superior: independent `is_superior_or_equal` over all \
         pairs; superior-chain: the next pair's index depends on the last answer (latency); \
         count, add, remove: one kind per pair (add only below the maximum, remove only a held \
         kind) followed by reading the new count. ns per operation, {} samples with the three \
         layouts interleaved round-robin; cells: value [95 % interval]; ratios paired per round. The \
         loops over independent pairs are plain iterator sums the compiler may vectorise; the \
         second table converts every median to cycles per operation at the clock measured by a \
         chain of dependent adds, and an operation under one cycle is reported as batched. The \
         chain, where each pair waits for the last answer, is the per-call figure.",
        m.inputs.pairs.len(),
        m.workload_seed,
        100.0 * n.true_share,
        m.samples,
    );
    format!("{method} {}", claims_method(m.threshold, m.invocations))
}
