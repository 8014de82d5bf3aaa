//! E12's method and findings paragraphs, and the pre-set rule that names the layout factor
//! that matters most on this CPU.

use super::analysis::{ratio_text, Compared, Cost, Numbers};
use super::measure::Measurement;
use crate::experiments::{and_list, claims_method, percent};
use crate::stats::{Claim, Comparison};
use kiki_core::units::rounded_bytes;

pub(super) fn method(m: &Measurement) -> String {
    let pairs: Vec<String> = m
        .pairs
        .iter()
        .map(|p| {
            format!(
                "`{}` against `{}` ({}: {}; {} against {})",
                p.variant,
                p.base,
                p.factor.name(),
                p.change,
                rounded_bytes(p.table_bytes[1] as f64),
                rounded_bytes(p.table_bytes[0] as f64)
            )
        })
        .collect();
    let twin = m
        .twin
        .map_or("no backend".to_string(), |t| format!("`{t}`"));
    format!(
        "E12 holds the algorithm fixed and changes one table-layout factor: {}. Every \
         invocation measures in one process, first the bases with their tables on 4 KiB \
         pages, then (after collapsing every table onto 2 MiB pages, which cannot be undone \
         in a process) bases and variants together. Three costs per backend: lookups as E1 \
         times them ({} inputs cycled, every slider kind mixed, each family — a base, its \
         variants and the A/A twin — interleaved round by round, so that a base and its \
         variant are timed milliseconds apart; the headline is throughput on random-play positions, and latency on \
         them and throughput on uniform 25 % occupancies are `lookup_by_mode`); the isolated \
         table-miss cost as E7 times it (dependent chains after {} pressure reads per node \
         through a {} buffer, the full table's chain less its hot twin's, the same code with \
         the table masked to one page; compared as a ratio of the two means, since one \
         round's difference can be zero); and time per node of E11's bench search ({} \
         positions, depth {}, the nnue evaluation, a {} MiB TT, both on 2 MiB pages; {} \
         rounds per invocation with the tables on 4 KiB pages and {} on 2 MiB, in a shuffled order reversed every other round, after one \
         discarded block; every backend's fingerprints checked against the first's). A ratio \
         is variant over base (below 1: the variant is faster). Page pairs (`BASE@2m`) \
         compare a base on 2 MiB pages with itself on 4 KiB pages, round by round across the \
         two phases of one process: the 4 KiB phase always runs first, so drift within a \
         process is not randomised for them. The A/A control times {twin} (the base with the \
         largest tables) twice in every 2 MiB cell, as if it were its own variant: a cost \
         whose A/A ratio is not level at ±{} % is not decided here. The factor that matters \
         most is fixed before the data: among the pairs whose search ratio is claimed \
         (interval wholly beyond the threshold), the one furthest from 1; where none is, \
         lookups decide the same way. {}",
        and_list(&pairs),
        m.lookups,
        m.pressure_reads,
        rounded_bytes(m.pressure_bytes as f64),
        m.search_positions,
        m.search_depth,
        m.tt_mib,
        m.search_rounds[0],
        m.search_rounds[1],
        percent(m.threshold),
        claims_method(m.threshold, m.invocations)
    )
}

/// The pair whose `cost` ratio is claimed and furthest from 1 (the pre-set rule), if any.
pub(super) fn matters_most(numbers: &Numbers, cost: Cost) -> Option<(&Compared, Comparison)> {
    if !numbers.control_passed(cost) {
        return None;
    }
    numbers
        .pairs
        .iter()
        .filter_map(|p| p.cost(cost).map(|c| (p, c)))
        .filter(|(_, c)| c.claim != Claim::Level)
        .max_by(|a, b| a.1.ratio.ln().abs().total_cmp(&b.1.ratio.ln().abs()))
}

pub(super) fn paragraph(m: &Measurement, numbers: &Numbers) -> String {
    let mut out = Vec::new();
    if !m.errors.is_empty() {
        out.push(format!(
            "Errors: {} (the figures of those backends are not to be trusted).",
            m.errors.join("; ")
        ));
    }
    if !m.skipped.is_empty() {
        out.push(format!("Not measured: {}.", m.skipped.join("; ")));
    }
    out.push(controls_sentence(m, numbers));
    for pair in &numbers.pairs {
        let costs: Vec<String> = Cost::ALL
            .iter()
            .map(|&cost| {
                let text = if numbers.control_passed(cost) {
                    ratio_text(pair.cost(cost))
                } else {
                    "not decided (A/A control failed)".to_string()
                };
                format!("{} {text}", cost.words())
            })
            .collect();
        out.push(format!(
            "`{}` against `{}` ({}): {}.",
            pair.variant,
            pair.base,
            pair.change,
            and_list(&costs)
        ));
    }
    out.push(verdict(numbers));
    let pareto: Vec<String> = numbers
        .pareto
        .iter()
        .filter(|(_, cost, _)| *cost == Cost::Search)
        .map(|(base, _, set)| format!("{base}: {}", set.join(", ")))
        .collect();
    if !pareto.is_empty() {
        out.push(format!(
            "Per family, the layouts no other member beats on both table bytes and search \
             time (fewer bytes and a level time, or a time claimed faster): {}.",
            pareto.join("; ")
        ));
    }
    out.join(" ")
}

fn controls_sentence(m: &Measurement, numbers: &Numbers) -> String {
    let Some(twin) = m.twin else {
        return "No A/A control ran (no pair was measured).".to_string();
    };
    let parts: Vec<String> = numbers
        .controls
        .iter()
        .map(|(cost, c)| format!("{} {}", cost.words(), ratio_text(*c)))
        .collect();
    let failed: Vec<&str> = Cost::ALL
        .iter()
        .filter(|&&c| !numbers.control_passed(c))
        .map(|c| c.words())
        .collect();
    if failed.is_empty() {
        format!(
            "The A/A control (`{twin}` against itself) is level in every cost: {}.",
            and_list(&parts)
        )
    } else {
        format!(
            "The A/A control (`{twin}` against itself) fails for {}: {}; claims about {} are \
             not decided here.",
            failed.join(" and "),
            and_list(&parts),
            failed.join(" and ")
        )
    }
}

/// The sentence that names the factor that matters most, by the rule in the method.
pub(super) fn verdict(numbers: &Numbers) -> String {
    for cost in [Cost::Search, Cost::Lookup] {
        if let Some((pair, c)) = matters_most(numbers, cost) {
            let level: Vec<String> = numbers
                .pairs
                .iter()
                .filter(|p| p.cost(cost).is_some_and(|c| c.claim == Claim::Level))
                .map(|p| format!("`{}`", p.variant))
                .collect();
            let lead = if cost == Cost::Search {
                String::new()
            } else {
                format!(
                    "No layout factor moves the search beyond ±{} % here. ",
                    percent(numbers.threshold)
                )
            };
            return format!(
                "{lead}The layout factor that matters most on this CPU is {} ({} against {}): \
                 {} {}. Level at the threshold in {}: {}.",
                pair.factor.name(),
                pair.variant,
                pair.base,
                cost.words(),
                ratio_text(Some(c)),
                cost.words(),
                if level.is_empty() {
                    "none".to_string()
                } else {
                    and_list(&level)
                }
            );
        }
    }
    if !numbers.control_passed(Cost::Search) || !numbers.control_passed(Cost::Lookup) {
        return "Which layout factor matters most is not decided here: an A/A control failed."
            .to_string();
    }
    format!(
        "No layout factor moves lookups or the search beyond ±{} % on this CPU.",
        percent(numbers.threshold)
    )
}
