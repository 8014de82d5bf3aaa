//! E12's method and findings paragraphs, and the pre-set rule that names the layout factor
//! that matters most on this CPU.

use super::analysis::{bounds_text, interval_text, ratio_text, Compared, Cost, Numbers};
use super::measure::Measurement;
use crate::experiments::and_list;
use crate::experiments::claims::{claims_method, percent};
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
    let control = format!("`{}`", super::measure::PHASE_CONTROL_FAMILY);
    format!(
        "E12 holds the algorithm fixed and changes one table-layout factor: {}. Every \
         process measures everything, first with every table on 4 KiB pages, then \
         after asking for every table but the control family's ({control}'s, kept on 4 KiB \
         pages) to be collapsed onto 2 MiB pages (which cannot be undone in a process; the \
         tables live in kiki's table arena of whole 2 MiB pages, a family's in chunks of its \
         own, so a small table moves with the pages around it and no other family's; the \
         entries table says where each landed, as the kernel's page scan reads it). Lookups and chains time every backend \
         in both phases, the search only the bases on 4 KiB pages. Three costs per backend: \
         lookups as E1 times them ({} inputs cycled, every slider kind mixed, each family — a \
         base, its variants and the A/A twin — interleaved round by round, so that a base and \
         its variant are timed milliseconds apart; the headline is throughput on random-play \
         positions, and latency on them and throughput on uniform 25 % occupancies are \
         `lookup_by_mode`); the isolated table-miss cost as E7 times it (dependent chains \
         after {} pressure reads per node through a {} buffer, the full table's chain less its \
         hot twin's, the same code with the table masked to one page; compared as a ratio of \
         the two sides' per-process means, since one round's difference can be zero); and time per node of E11's \
         bench search ({} positions, depth {}, the nnue evaluation, a {} MiB TT, both on 2 MiB \
         pages; {} rounds per process with the tables on 4 KiB pages and {} on 2 MiB, in a \
         shuffled order reversed every other round, after one discarded block; every \
         backend's fingerprints checked against the first's). A ratio is variant over base \
         (below 1: the variant is faster). Page pairs (`BASE@2m`) compare a base on 2 MiB \
         pages with itself on 4 KiB pages, round by round across the two phases of one \
         process: the 4 KiB phase always runs first, so drift within a process is not \
         randomised for them; a page pair is decided only where its base's tables moved and \
         every base whose tables did not move (the phase order's control: {control}, kept on \
         4 KiB pages in both phases by design, its own page pair a null contrast) comes out \
         within the threshold between the phases; the chains walk the same window of nodes in both \
         phases, and a page pair's search pairs each invocation's first rounds. The A/A \
         control times {twin} (the base with the largest tables) twice in every cell, as if \
         it were its own variant: a cost whose A/A interval reaches beyond ±{} % is not \
         decided here; where a variant's and its base's tables did not land alike on 2 MiB \
         pages (in some process their shares of table bytes there differ by more than a \
         tenth), its lookup and table-miss ratios are read from the 4 KiB phase (both on 4 KiB \
         pages there) and its search is not decided. The factor that matters most is fixed before the data: among the decided \
         layout variants whose search ratio is claimed (interval wholly beyond the \
         threshold), the one furthest from 1; where none is, lookups decide the same way. {}",
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
        claims(m.threshold, m.invocations, m.search_rounds[1])
    )
}

/// How a ratio and its interval come from the rounds: one figure per process, then the
/// processes (with one process, the rounds as in every timed experiment).
fn claims(threshold: f64, processes: usize, search: usize) -> String {
    if processes < 2 {
        return claims_method(threshold, processes);
    }
    format!(
        "Each process reduces a pair's rounds to one figure: the mean of its paired per-round \
         log-ratios with the lowest and highest fifth cut (from five rounds on, so that one \
         disturbed round of a few milliseconds does not move it; the search's {search} rounds \
         per process are fewer and are simply averaged, forward and reverse alike, which \
         cancels a steady drift), and for table misses each side's trimmed mean difference. \
         So a figure is the cost in rounds free of the heaviest disturbances: a layout that \
         suffers more from other tenants' memory traffic than its base shows that only in \
         the rounds cut. A ratio is the geometric mean of the {processes} processes' figures \
         (table misses: the ratio of the sides' means), with a 95 % interval from a seeded \
         bootstrap over the processes, widened to Student's t over them: where the tables and \
         the code land changes from process to process and moves a ratio more than the \
         rounds' noise, so the process is the unit (a series that does not split evenly into \
         the processes is not compared). The A/A twin is its base timed twice, the same code \
         and the same tables, so its interval holds the timing's noise alone, not where code \
         or tables landed; each variant's own interval holds those. An order is stated only when the whole interval \
         lies beyond ±{t} %; otherwise the two are level where the whole interval lies within \
         ±{t} %, and unresolved where it reaches past it.",
        t = percent(threshold)
    )
}

/// The layout variant whose `cost` ratio is claimed and decided and furthest from 1 (the
/// pre-set rule), if any; page pairs are not layout variants of one build and do not compete.
pub(super) fn matters_most(numbers: &Numbers, cost: Cost) -> Option<(&Compared, Comparison)> {
    numbers
        .pairs
        .iter()
        .filter(|p| !p.is_page_pair() && numbers.undecided(p, cost).is_none())
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
                // An undecided cost gets its ratio and interval but no claim word.
                match (pair.cost(cost), numbers.undecided(pair, cost)) {
                    (Some(c), Some(why)) => {
                        format!("{} {}, {why}", cost.words(), interval_text(&c))
                    }
                    (c, _) => format!("{} {}", cost.words(), ratio_text(c, numbers.threshold)),
                }
            })
            .collect();
        let pages = if !pair.is_page_pair() && pair.pages_as_asked == Some(false) {
            " (lookups and table misses on 4 KiB pages, where both sides' tables sit)"
        } else {
            ""
        };
        out.push(format!(
            "`{}` against `{}` ({}){pages}: {}.",
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
        .filter(|(_, cost, _)| *cost == Cost::Search && numbers.control_passed(Cost::Search))
        .map(|(base, _, set)| format!("{base}: {}", set.join(", ")))
        .collect();
    if !pareto.is_empty() {
        out.push(format!(
            "Per family, the layouts no other member beats on both table bytes and search \
             time (fewer bytes and a time equivalent within the threshold, or a time claimed \
             faster): {}.",
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
        .map(|(cost, c)| format!("{} {}", cost.words(), control_text(*c, numbers.threshold)))
        .collect();
    let failed: Vec<&str> = Cost::ALL
        .iter()
        .filter(|&&c| !numbers.control_passed(c))
        .map(|c| c.words())
        .collect();
    let threshold = percent(numbers.threshold);
    if failed.is_empty() {
        format!(
            "The A/A control (`{twin}` against itself) lies within ±{threshold} % in every cost: {}.",
            and_list(&parts)
        )
    } else {
        format!(
            "The A/A control (`{twin}` against itself): {}; its interval reaches beyond \
             ±{threshold} % for {}, so no claim about {} is decided here (the run does not \
             resolve a same-code difference that small).",
            and_list(&parts),
            failed.join(" and "),
            failed.join(" and ")
        )
    }
}

/// An A/A control's ratio to three places, since two would round an interval end just beyond
/// the threshold (0.968 against ±3 %) onto it, and whether it lies within the threshold.
fn control_text(c: Option<Comparison>, threshold: f64) -> String {
    match c {
        None => "—".to_string(),
        Some(c) => {
            let place = if c.within(threshold) {
                "within"
            } else {
                "reaching beyond"
            };
            format!(
                "×{:.3} ({}, {place} ±{} %)",
                c.ratio,
                bounds_text(&c, 3),
                percent(threshold)
            )
        }
    }
}

/// The sentence that names the factor that matters most, by the rule in the method.
pub(super) fn verdict(numbers: &Numbers) -> String {
    let threshold = percent(numbers.threshold);
    let search_lead = if numbers.control_passed(Cost::Search) {
        format!("No layout variant's effect on the search is claimed beyond ±{threshold} % here. ")
    } else {
        format!(
            "The search is not decided here (its A/A control's interval reaches beyond \
             ±{threshold} %). "
        )
    };
    for cost in [Cost::Search, Cost::Lookup] {
        if let Some((pair, c)) = matters_most(numbers, cost) {
            let equivalent = equivalent_variants(numbers, cost);
            let lead = if cost == Cost::Search {
                ""
            } else {
                search_lead.as_str()
            };
            return format!(
                "{lead}The layout factor that matters most on this CPU, by {}, is {} ({} \
                 against {}): {} {}. Layout variants equivalent to their base within ±{threshold} % in \
                 {} (the page pairs, which compare one table on two page sizes, apart): {}.",
                cost.measure(),
                pair.factor.name(),
                pair.variant,
                pair.base,
                cost.words(),
                ratio_text(Some(c), numbers.threshold),
                cost.words(),
                equivalent
            );
        }
    }
    if !numbers.control_passed(Cost::Lookup) {
        return format!(
            "{search_lead}Lookups are not decided here either (their A/A control's interval \
             reaches beyond ±{threshold} %): which layout factor matters most is not decided."
        );
    }
    format!(
        "{search_lead}No layout variant's effect on lookups is claimed beyond ±{threshold} % \
         either; equivalent within ±{threshold} % in lookups: {}, the others undecided.",
        equivalent_variants(numbers, Cost::Lookup)
    )
}

/// The layout variants whose `cost` interval lies wholly within the threshold, or `none`.
fn equivalent_variants(numbers: &Numbers, cost: Cost) -> String {
    let names: Vec<String> = numbers
        .pairs
        .iter()
        .filter(|p| !p.is_page_pair() && numbers.undecided(p, cost).is_none())
        .filter(|p| p.cost(cost).is_some_and(|c| c.within(numbers.threshold)))
        .map(|p| format!("`{}`", p.variant))
        .collect();
    if names.is_empty() {
        "none".to_string()
    } else {
        and_list(&names)
    }
}
