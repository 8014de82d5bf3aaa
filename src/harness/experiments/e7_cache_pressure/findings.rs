//! E7's prose: the method paragraph, the findings paragraph and the seed's verdict, written from
//! the analysis's numbers.

use super::analysis::{AtMax, BackendCosts, Numbers};
use super::measure::Measurement;
use super::{LOSS_FACTOR, MAIN_READS};
use crate::harness::experiments::and_list;
use crate::units::rounded_bytes;

/// The findings paragraph: per backend, then the noise, the crossovers, the seed's verdict, the
/// reads-per-lookup and the two-thread variants.
pub(super) fn paragraph(n: &Numbers, verdict: &str) -> String {
    let mut findings: Vec<String> = n
        .backends
        .iter()
        .filter_map(|b| backend_text(b, n.max_e))
        .collect();
    if n.unresolved > 0 {
        findings.push(format!(
            "{} of {} marginal costs have a 95 % interval wider than their \
             value: there the evaluation's own variation swamps the lookup, and a crossover \
             read from them is not reliable (rerun on a quiet machine, or with more samples).",
            n.unresolved, n.points
        ));
    }
    if let Some((_, first)) = n.leaders.first() {
        let changes: Vec<String> = n.leaders[1..]
            .iter()
            .map(|(bytes, b)| format!("{b} from E = {}", rounded_bytes(*bytes as f64)))
            .collect();
        findings.push(if changes.is_empty() {
            format!("By point value (not a claim), {first} has the cheapest lookups at every E.")
        } else {
            format!(
                "By point value (not a claim; see the intervals in the plot), the cheapest \
                 lookups belong to {first} at E = 0, then {} (crossover points).",
                and_list(&changes)
            )
        });
    }
    // The seed's prediction: magic-plain's 60.75 MiB falls behind DBB's small tables.
    findings.push(verdict.to_string());
    // Reads per lookup: does the verdict depend on memory-level parallelism?
    let mlp: Vec<String> = n
        .reads
        .iter()
        .map(|(b, one, sixteen)| format!("{b} {one:.2} → {sixteen:.2} ns"))
        .collect();
    if !mlp.is_empty() {
        findings.push(format!(
            "From 1 to 16 evaluation reads per lookup at E = {}, the marginal lookup cost goes: \
             {} (a cost that falls means the lookups' work hides behind evaluation misses; one \
             that rises means the lookups wait behind them or lose their table lines).",
            rounded_bytes(n.widest as f64),
            and_list(&mlp)
        ));
    }
    if let Some(thread) = &n.thread {
        let hits: Vec<String> = thread
            .change
            .iter()
            .map(|(b, change)| format!("{b} {:+.0} %", change * 100.0))
            .collect();
        findings.push(format!(
            "With the evaluation on the other CPU (E = {}), its read rate beside each backend's \
             lookups, against its rate beside an idle loop ({:.1} M reads/s): {}.",
            rounded_bytes(n.widest as f64),
            thread.idle * 1e3,
            and_list(&hits)
        ));
    }
    findings.join(" ")
}

/// One backend's costs at E = 0 and the largest E, and where it loses on each page size;
/// nothing where either 4 KiB cost is missing.
fn backend_text(b: &BackendCosts, max_e: usize) -> Option<String> {
    let (base, last) = (b.small.base?, b.small.last?);
    let small = match b.small.loses_from {
        Some(from) => format!(
            "; it loses (its whole interval above {LOSS_FACTOR}× the top of its E = 0 \
             interval, for good) from E = {}",
            rounded_bytes(from as f64)
        ),
        None => format!(
            "; it is not shown to stay above {LOSS_FACTOR}× its E = 0 cost (whole intervals)"
        ),
    };
    let huge = match (b.huge.loses_from, b.huge.last) {
        (Some(from), Some(h)) => format!(
            "; with huge pages it loses from E = {} ({} at the largest E)",
            rounded_bytes(from as f64),
            cost_text(h, base)
        ),
        (None, Some(h)) => format!(
            "; with huge pages it is not shown to lose ({} at the largest E)",
            cost_text(h, base)
        ),
        _ => String::new(),
    };
    Some(format!(
        "{} ({} of tables): {:.2} ns per lookup at E = 0, {} at E = {}{small}{huge}.",
        b.backend,
        rounded_bytes(b.table_bytes as f64),
        base,
        cost_text(last, base),
        rounded_bytes(max_e as f64),
    ))
}

/// A marginal cost for the findings: `3.10 ns (×1.7)`, or, when the lookups disappeared behind
/// the evaluation's misses, says so.
fn cost_text(cost: f64, base: f64) -> String {
    if cost <= 0.0 {
        format!("no measurable cost ({cost:.2} ns: hidden behind the evaluation's misses or noise)")
    } else {
        format!("{cost:.2} ns (×{:.2})", cost / base.max(1e-3))
    }
}

/// The method paragraph: the workload, the sweeps and variants as run, the notes, and what the
/// counters counted (`counter_tables`: whether the report shows counter tables).
pub(super) fn method(m: &Measurement, counter_tables: bool) -> String {
    let max_e = *m.sizes.last().unwrap_or(&0);
    let table_pages = match m.machine.transparent_huge_pages.as_str() {
        "always" => "may be backed by huge pages wherever the kernel finds 2 MiB-aligned room (THP `always`)",
        "madvise" => "stay on 4 KiB pages, since nothing advises them (THP `madvise`)",
        "never" => "are on 4 KiB pages (THP `never`)",
        _ => "use whatever pages the kernel chose (THP setting unknown)",
    };
    let granted: Vec<String> = m
        .huge_granted
        .iter()
        .filter(|(b, _)| *b >= 4 << 20)
        .map(|(b, h)| {
            format!(
                "{}: {}",
                rounded_bytes(*b as f64),
                h.map_or("unknown".into(), |h| rounded_bytes(h as f64))
            )
        })
        .collect();
    let (eval_cpu, main_cpu) = (m.eval_cpu, m.main_cpu);
    let mut method = format!(
        "Each iteration does one sliding lookup (the mixed slider kinds of {} lookups from greedy-playout \
         positions, seed {:#x}, identical for every backend) and then {MAIN_READS} random 8-byte \
         reads of an evaluation buffer of E bytes (addresses from a counter hash, the same for \
         every backend); a case doing the evaluation reads alone runs beside the backends, \
         all interleaved round-robin ({} samples, ≥ {:?} each). The marginal cost of a lookup \
         is (backend − evaluation alone) per iteration, paired by round; points show it with \
         its 95 % interval. E = 0 and then {} to {}, once on 4 KiB pages (MADV_NOHUGEPAGE) and once \
         on huge pages (MADV_HUGEPAGE; huge-page bytes granted: {}). The backends' own tables \
         are allocated by the backends and {table_pages}. Variants: 1 and 16 reads per lookup \
         at E in {}; and the evaluation reads in a loop on a second thread pinned to CPU \
         {eval_cpu} (shared L3 only where the caches say so) while the lookups run alone on CPU \
         {main_cpu}. \"Loses from\": the smallest E from which the marginal cost stays above \
         {LOSS_FACTOR}× its E = 0 cost.",
        m.lookups,
        m.workload_seed,
        m.sampling.samples,
        m.sampling.min_sample,
        rounded_bytes(*m.sizes.get(1).unwrap_or(&0) as f64),
        rounded_bytes(max_e as f64),
        if granted.is_empty() { "not measured".to_string() } else { granted.join(", ") },
        m.subset.iter().map(|b| rounded_bytes(*b as f64)).collect::<Vec<_>>().join(", "),
    );
    for note in m.notes.iter().chain(&m.skipped) {
        method.push_str(&format!(" {note}."));
    }
    method.push_str(&format!(" {}", m.counter_log.note()));
    method.push_str(if counter_tables {
        " (tables: 4 KiB pages at E = 0 and the variants' sizes; every E and the huge-page \
         sweep are in results.json)."
    } else {
        "."
    });
    method
}

/// Words on whether `magic-plain` behaves as seed 004 predicted: that its 60.75 MiB of tables
/// fall behind DBB's small tables once an evaluation competes for the cache. A difference only
/// counts where the two backends' 95 % intervals at the largest E do not overlap, so the verdict
/// does not flip with run-to-run noise.
pub(super) fn seed_verdict(
    at_max: &[AtMax<'_>],
    max_e: usize,
    table_bytes: &dyn Fn(&str) -> usize,
) -> String {
    let get = |name: &str| at_max.iter().find(|a| a.backend == name).copied();
    let Some(plain) = get("magic-plain") else {
        let biggest = at_max
            .iter()
            .max_by_key(|a| table_bytes(a.backend))
            .map(|a| {
                format!(
                    " Among the backends measured, {} has the largest tables ({}) and went from \
                     {:.2} to {:.2} ns.",
                    a.backend,
                    rounded_bytes(table_bytes(a.backend) as f64),
                    a.base,
                    a.last
                )
            })
            .unwrap_or_default();
        return format!(
            "magic-plain (the seed's 60.75 MiB table) is not registered in this build, so the \
             seed's prediction was not tested here.{biggest}"
        );
    };
    let Some(dbb) = get("dbb") else {
        return format!(
            "magic-plain went from {:.2} to {:.2} ns per lookup, but dbb (the seed's choice) was \
             not measured, so there is nothing to compare it with.",
            plain.base, plain.last
        );
    };
    // Ordering of two intervals: clearly above, clearly below, or overlapping.
    let compare = |low_a: f64, high_a: f64, low_b: f64, high_b: f64| {
        if low_a > high_b {
            std::cmp::Ordering::Greater
        } else if high_a < low_b {
            std::cmp::Ordering::Less
        } else {
            std::cmp::Ordering::Equal
        }
    };
    use std::cmp::Ordering::{Equal, Greater, Less};
    let slower = compare(plain.last_low, plain.last_high, dbb.last_low, dbb.last_high);
    let growth = |a: AtMax<'_>| {
        let base = a.base.max(1e-3);
        (a.last_low / base, a.last / base, a.last_high / base)
    };
    let (plain_low, plain_growth, plain_high) = growth(plain);
    let (dbb_low, dbb_growth, dbb_high) = growth(dbb);
    let hurt = compare(plain_low, plain_high, dbb_low, dbb_high);
    let verdict = match (slower, hurt) {
        (Greater, Greater) => "holds on this machine".to_string(),
        (Greater, other) => format!(
            "holds only in part: magic-plain is slower than dbb at the largest E, but {}",
            if other == Equal {
                "the pressure hurts the two alike (their ranges overlap)"
            } else {
                "the pressure hurts it less than dbb"
            }
        ),
        (Equal, Greater) => "holds only in part: magic-plain suffers more from the pressure, but \
                             at the largest E the two are level within their 95 % intervals"
            .to_string(),
        (Equal, _) => "is not shown at this resolution: at the largest E the two are level within \
                       their 95 % intervals, and magic-plain is not shown to be hurt more by the \
                       pressure"
            .to_string(),
        (Less, _) => {
            "does not hold on this machine: magic-plain is faster than dbb at the largest E"
                .to_string()
        }
    };
    format!(
        "Seed 004's prediction (magic-plain's 60.75 MiB of tables lose to DBB once an evaluation \
         fills the cache) {verdict}: at E = 0 magic-plain costs {:.2} ns and dbb {:.2} ns per \
         lookup; at E = {} magic-plain {:.2} ns ({:.2}–{:.2}, ×{plain_growth:.2}) and dbb {:.2} \
         ns ({:.2}–{:.2}, ×{dbb_growth:.2}).",
        plain.base,
        dbb.base,
        rounded_bytes(max_e as f64),
        plain.last,
        plain.last_low,
        plain.last_high,
        dbb.last,
        dbb.last_low,
        dbb.last_high,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_words_follow_the_numbers() {
        let tb = |_: &str| 0usize;
        let at = |backend, base, low, last, high| AtMax {
            backend,
            base,
            last,
            last_low: low,
            last_high: high,
        };
        let verdict =
            |plain: AtMax<'static>, dbb: AtMax<'static>| seed_verdict(&[plain, dbb], 1 << 27, &tb);
        let holds = verdict(
            at("magic-plain", 2.0, 8.5, 9.0, 9.5),
            at("dbb", 2.5, 2.8, 3.0, 3.2),
        );
        assert!(holds.contains("holds on this machine"), "{holds}");
        let not = verdict(
            at("magic-plain", 2.0, 2.1, 2.2, 2.3),
            at("dbb", 2.5, 2.8, 3.0, 3.2),
        );
        assert!(not.contains("faster than dbb"), "{not}");
        // Slower, but the growth ranges overlap (the case that flipped between two full runs).
        let alike = verdict(
            at("magic-plain", 3.27, 26.0, 28.74, 31.0),
            at("dbb", 2.41, 19.0, 20.64, 23.0),
        );
        assert!(alike.contains("hurts the two alike"), "{alike}");
        let level = verdict(
            at("magic-plain", 2.0, 8.0, 9.0, 10.0),
            at("dbb", 2.5, 7.0, 8.0, 9.5),
        );
        assert!(
            level.contains("level within their 95 % intervals"),
            "{level}"
        );
        let absent = seed_verdict(&[at("dbb", 2.5, 2.8, 3.0, 3.2)], 1 << 27, &tb);
        assert!(absent.contains("not registered"), "{absent}");
    }
}
