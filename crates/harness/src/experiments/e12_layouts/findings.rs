//! E12's method and findings paragraphs, and the pre-set rule that names the layout factor
//! that matters most on this CPU.

use super::analysis::{bounds_text, interval_text, ratio_text, Compared, Cost, Numbers};
use super::measure::Measurement;
use super::summary::{search_headline, Ratio, SearchFigure, SECONDARY};
use crate::experiments::and_list;
use crate::experiments::claims::{claims_method, percent, reading};
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
         threshold), the one furthest from 1; where none is, lookups decide the same way. The \
         verdict leads with the search, each layout variant's ratio there and which are \
         decided, since a layout that moves lookups need not move the search; the factor \
         lookups name follows as the secondary figure. {}",
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

/// The verdict, by the rule in the method: first the search, each layout variant's time per
/// node over its base's, saying which are decided (the figure a user of the search feels,
/// whatever lookups say); then the factor that matters most — by the search where it names
/// one, else by lookups, labelled as the secondary figure.
pub(super) fn verdict(numbers: &Numbers) -> String {
    let threshold = percent(numbers.threshold);
    let headline = format!("{}.", search_headline(&search_figures(numbers)));
    if let Some((pair, c)) = matters_most(numbers, Cost::Search) {
        return format!(
            "{headline} The layout factor that matters most on this CPU, by {}, is {} ({} \
             against {}): the search {}. Layout variants equivalent to their base within \
             ±{threshold} % in the search (the page pairs, which compare one table on two page \
             sizes, apart): {}.",
            Cost::Search.measure(),
            pair.factor.name(),
            pair.variant,
            pair.base,
            ratio_text(Some(c), numbers.threshold),
            equivalent_variants(numbers, Cost::Search)
        );
    }
    if let Some((pair, c)) = matters_most(numbers, Cost::Lookup) {
        return format!(
            "{headline} {SECONDARY}: the layout factor that matters most on this CPU, by {}, is \
             {} ({} against {}): lookups {}. Layout variants equivalent to their base within \
             ±{threshold} % in lookups (the page pairs, which compare one table on two page \
             sizes, apart): {}.",
            Cost::Lookup.measure(),
            pair.factor.name(),
            pair.variant,
            pair.base,
            ratio_text(Some(c), numbers.threshold),
            equivalent_variants(numbers, Cost::Lookup)
        );
    }
    if !numbers.control_passed(Cost::Lookup) {
        return format!(
            "{headline} {SECONDARY}: not decided (their A/A control's interval reaches beyond \
             ±{threshold} %): which layout factor matters most is not decided."
        );
    }
    format!(
        "{headline} {SECONDARY}: no layout variant's effect is claimed beyond ±{threshold} %; \
         equivalent within ±{threshold} % in lookups: {}, the others undecided.",
        equivalent_variants(numbers, Cost::Lookup)
    )
}

/// Every layout variant's search figure as the headline names it (page pairs apart), as the
/// summary records it, so that the findings and the index read alike.
fn search_figures(numbers: &Numbers) -> Vec<SearchFigure> {
    numbers
        .pairs
        .iter()
        .filter(|p| !p.is_page_pair())
        .map(|p| {
            let ratio = p
                .cost(Cost::Search)
                .map(|c| summary_ratio(&c, numbers.threshold));
            let undecided = numbers.undecided(p, Cost::Search);
            SearchFigure::new(&p.variant, ratio.as_ref(), undecided.as_deref())
        })
        .collect()
}

/// A comparison as the summary's record reads it back.
fn summary_ratio(c: &Comparison, threshold: f64) -> Ratio {
    Ratio {
        ratio: c.ratio,
        low: c.low,
        high: c.high.is_finite().then_some(c.high),
        invocations: c.invocations,
        rounds: c.rounds,
        claim: match c.claim {
            Claim::Faster => "faster",
            Claim::Slower => "slower",
            Claim::Level => "level",
        }
        .to_string(),
        reading: Some(reading(c, threshold).to_string()),
    }
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

#[cfg(test)]
mod tests {
    use super::super::analysis::{Compared, Cost, Numbers};
    use super::super::summary::Summary;
    use super::*;
    use crate::experiments::e11_search::TablePages;
    use kiki_core::backend::LayoutFactor;

    fn at(ratio: f64, low: f64, high: f64) -> Comparison {
        let claim = if low > 1.03 {
            Claim::Slower
        } else if high < 0.97 {
            Claim::Faster
        } else {
            Claim::Level
        };
        Comparison {
            ratio,
            low,
            high,
            invocations: 5,
            rounds: 50,
            claim,
        }
    }

    fn variant(
        (base, variant, factor): (&str, &str, LayoutFactor),
        lookup: Comparison,
        search: Comparison,
        pages_as_asked: bool,
    ) -> Compared {
        Compared {
            base: base.into(),
            variant: variant.into(),
            factor,
            change: "one factor".into(),
            table_bytes: [1 << 20, 1 << 19],
            costs: vec![
                (Cost::Lookup, Some(lookup)),
                (Cost::TableMiss, None),
                (Cost::Search, Some(search)),
            ],
            lookup_by_mode: Vec::new(),
            pages_as_asked: Some(pages_as_asked),
            phase: TablePages::Huge,
            lookup_pages: TablePages::Huge,
        }
    }

    /// The referee's case: lookups name line-split (×1.24) while the search reads ×1.00, and
    /// only that variant's search is decided (the other's tables did not land alike).
    fn referee_case() -> Numbers {
        let level = at(1.0, 0.99, 1.01);
        Numbers {
            threshold: 0.03,
            pairs: vec![
                variant(
                    ("pext", "pext.file-rank", LayoutFactor::LineSplit),
                    at(1.24, 1.05, 1.47),
                    at(1.0, 0.99, 1.01),
                    true,
                ),
                variant(
                    ("magic", "magic.split-words", LayoutFactor::WordSplit),
                    at(1.1, 1.06, 1.15),
                    at(1.01, 0.97, 1.05),
                    false,
                ),
            ],
            controls: Cost::ALL.iter().map(|&c| (c, Some(level))).collect(),
            pareto: Vec::new(),
        }
    }

    const HEADLINE: &str = "In the search (the nnue search's time per node, variant over \
        base): `pext.file-rank` ×1.00 [0.99–1.01] level, the only variant whose search is judged (its controls passed); not \
        judged (on 2 MiB pages the two sides' tables did not land alike): `magic.split-words` ×1.01 \
        [0.97–1.05].";

    /// The verdict leads with the search figure; the factor lookups name follows, labelled as
    /// the secondary figure.
    #[test]
    fn the_verdict_leads_with_the_search_and_lookups_follow_as_secondary() {
        let numbers = referee_case();
        let text = verdict(&numbers);
        assert!(text.starts_with(HEADLINE), "{text}");
        let secondary = text
            .find("Secondary, by lookups (not the search):")
            .expect("a secondary figure");
        assert!(
            text[secondary..].contains(
                "is line-split (pext.file-rank against pext): lookups ×1.24 (1.05–1.47, slower)"
            ),
            "{text}"
        );
        assert!(!text[..secondary].contains("line-split"), "{text}");
    }

    /// The index's line, read back from the summary as results.json holds it, has the same
    /// headline as the findings, then the lookups, then the named pair's other measures.
    #[test]
    fn the_index_line_reads_the_same_search_figure_first() {
        let numbers = referee_case();
        let pairs: Vec<serde_json::Value> = numbers
            .pairs
            .iter()
            .map(|p| super::super::pair_json(p, &numbers, numbers.threshold))
            .collect();
        let summary = serde_json::json!({
            "pairs": pairs,
            "controls": {"passed": true},
            "matters_most": {"variant": "pext.file-rank", "factor": "line-split", "cost": "lookup"},
            "verdict": verdict(&numbers),
        });
        let summary: Summary = serde_json::from_value(summary).unwrap();
        let line = summary.verdict_line();
        assert_eq!(
            line,
            format!(
                "{HEADLINE} Secondary, by lookups (not the search): the layout factor that \
                 matters most in lookups is line-split (`pext.file-rank` against `pext`), \
                 lookups ×1.24 [1.05–1.47] slower."
            )
        );
    }

    /// No variant decided in the search (a failed A/A control): the headline says so and
    /// still gives every variant's ratio; a failed lookup control leaves the factor unnamed.
    #[test]
    fn an_undecided_search_still_heads_the_verdict_with_every_ratio() {
        let mut numbers = referee_case();
        for control in numbers.controls.iter_mut() {
            control.1 = Some(at(1.0, 0.95, 1.06));
        }
        let text = verdict(&numbers);
        assert!(
            text.starts_with(
                "In the search (the nnue search's time per node, variant over base): no layout \
                 variant's search is judged (the A/A control's interval reaches beyond the threshold): \
                 `pext.file-rank` ×1.00 [0.99–1.01], `magic.split-words` ×1.01 [0.97–1.05]. \
                 Secondary, by lookups (not the search): not decided"
            ),
            "{text}"
        );
    }
}
