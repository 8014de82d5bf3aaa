//! E12's answer, method and findings paragraphs, and the pre-set rule that names the layout
//! factor that matters most on this CPU.

use super::analysis::{
    control_width_text, half_width_text, precise_text, ratio_text, Compared, Cost, Numbers,
};
use super::measure::Measurement;
use super::phases::PhaseOrder;
use super::readings::Ratio90;
use super::summary::{edge_text, search_headline, SearchFigure, SECONDARY};
use crate::answers::Reading;
use crate::experiments::and_list;
use crate::experiments::claims::percent;
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
        "E12 holds the algorithm fixed and changes one table-layout factor: {} (table bytes: \
         every table a backend owns, as `kiki backends` prints them; the entries table's page \
         column counts the attack tables alone, those in the table arena that move between \
         the pages, not the per-square masks and step tables). Every process measures \
         everything in two phases, one with every table on 4 KiB pages, one after asking for \
         every table but the control family's ({control}'s, kept on 4 KiB pages) to be \
         collapsed onto 2 MiB pages (the tables live in kiki's table arena of whole 2 MiB \
         pages, a family's in chunks of its own, so a small table moves with the pages around \
         it and no other family's; the entries table says where each landed, as the kernel's \
         page scan reads it); {}. Lookups and chains time every backend \
         in both phases, the search only the bases on 4 KiB pages. Three costs per backend: \
         lookups as E1 times them ({} inputs cycled, every slider kind mixed, each family — a \
         base, its variants and the A/A twin — interleaved round by round, so that a base and \
         its variant are timed milliseconds apart; the headline is throughput on random-play \
         positions, {} rounds in all per page phase, and latency on them and throughput on \
         uniform 25 % occupancies, {} rounds each, are `lookup_by_mode`); the isolated \
         table-miss cost as E7 times it (dependent chains after {} pressure reads per node \
         through a {} buffer, the full table's chain less its hot twin's, the same code with \
         the table masked to one page; each backend in a block of its own, the A/A twin in its \
         base's block, slice by slice beside it one window ahead, so that the two are timed \
         microseconds apart and each window's lines are evicted by the time the other walks \
         it; compared as a ratio of the two sides' per-process means, since one round's \
         difference can be zero); and time per node of E11's bench search ({} positions, depth {}, the nnue evaluation, a {} MiB TT, both on 2 MiB \
         pages; {} rounds per process with the tables on 4 KiB pages and {} on 2 MiB, in a \
         shuffled order reversed every other round, after one discarded block; every \
         backend's fingerprints checked against the first's). A ratio is variant over base \
         (below 1: the variant is faster). Page pairs (`BASE@2m`) compare a base on 2 MiB \
         pages with itself on 4 KiB pages, round by round across the two phases of one \
         process, and pool the processes as a two-period crossover with the phase order as \
         its block: the page effect is the mean of the two orders' mean log-ratios, the drift \
         between the phases (later over earlier) half their difference, each interval from \
         the pooled within-order variance, so that a drift linear in time within a process \
         cancels (where one order ran alone, the processes are pooled as one group and the \
         drift stays in); a page pair is read only where its base's tables moved (and were \
         back on 4 KiB pages in every 4 KiB phase) and \
         every base whose tables did not move (the phase order's control: {control}, kept on \
         4 KiB pages in both phases by design, its own page pair a null contrast) passes its \
         test between the phases; the chains walk the same window of nodes in both \
         phases, and a page pair's search pairs the earlier phase's last rounds with the \
         later phase's first, as close in time in either order. The A/A \
         control times {twin} (the base with the largest tables) twice in every cell, as if \
         it were its own variant. Every control (the A/A per cost, the phase order's per \
         cost) is tested for a ratio other than 1: a two-sided t-test of its log-ratio, Holm's \
         correction over the run's controls; it fails where its adjusted p < 0.05 (a bias), \
         and a failed control withholds the readings it gates and is named beside them; a \
         control that shows no bias bounds them instead (the rule of bounds): each reading it \
         gates is read at ±ln(1 + {} %) on its own 90 % interval widened by the control's \
         interval on each side, so a wide control is the run's resolution; where a variant's and its base's tables did not land alike on 2 MiB \
         pages (in some process their shares of table bytes there differ by more than a \
         tenth), its lookup and table-miss ratios are read from the 4 KiB phase (both on 4 KiB \
         pages there) and its search is withheld. The factor that matters most is fixed before the data: among \
         the layout variants whose search reads faster or slower, the one furthest from 1; \
         where none does, lookups decide the same way. The answer leads with the search, each \
         layout variant's reading there, since a layout that moves lookups need not move the \
         search; the factor lookups name follows as the secondary figure. {}",
        and_list(&pairs),
        orders_text(m),
        m.lookups,
        m.sampling.samples,
        m.mode_rounds,
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

/// Which processes ran which page phase first, and how the 2 MiB phase is undone where it
/// ran first.
fn orders_text(m: &Measurement) -> String {
    let orders = m.process_orders();
    let numbered = |order: PhaseOrder| -> Vec<String> {
        (1..=orders.len())
            .filter(|&i| orders[i - 1] == order)
            .map(|i| i.to_string())
            .collect()
    };
    let (small, huge) = (
        numbered(PhaseOrder::SmallFirst),
        numbered(PhaseOrder::HugeFirst),
    );
    if huge.is_empty() {
        return "every process ran the 4 KiB phase first (a collapse was not undone then)"
            .to_string();
    }
    format!(
        "the order alternates by process, recorded per process in the summary's \
         `controls.phase_orders`: process {} ran the 4 KiB phase first, process {} the 2 MiB \
         phase first, its collapsed tables then split back onto 4 KiB mappings (a mapping \
         boundary made and unmade inside each 2 MiB page, `MADV_NOHUGEPAGE` against a new \
         collapse; the memory stays physically contiguous)",
        and_list(&small),
        and_list(&huge)
    )
}

/// How a ratio, its interval and its reading come from the rounds: one figure per process,
/// then the processes (with one process, its rounds).
fn claims(threshold: f64, processes: usize, search: usize) -> String {
    let t = percent(threshold);
    let edge = format!("ln {}", 1.0 + threshold);
    let reading = format!(
        "A pair reads from its two-sided 90 % interval [L, U] of ln(variant / base) against \
         ±ln(1 + {t} %): faster where U < −{edge} (the ratio's upper bound below {}), slower \
         where L > {edge} (its lower bound above {}), level where both lie strictly inside, \
         not resolved where the interval reaches across a bound, withheld where a control it \
         is gated on failed; the interval's own width vetoes nothing. A bound that would \
         print as an edge does at two places is printed to as many more as tell the two \
         apart.",
        edge_text(1.0 / (1.0 + threshold)),
        edge_text(1.0 + threshold)
    );
    if processes < 2 {
        return format!(
            "With one process, a ratio is the exponential of the mean of its rounds' paired \
             log-ratios (table misses: per round, the log of the ratio of the two sides' \
             differences), its 90 % interval Student's t over the rounds, which knows nothing of \
             what changes between processes. {reading}"
        );
    }
    format!(
        "Each process reduces a pair's rounds to one figure: the mean of its paired per-round \
         log-ratios with the lowest and highest fifth cut (from five rounds on, so that one \
         disturbed round of a few milliseconds does not move it; the search's {search} rounds \
         per process on 2 MiB pages are averaged uncut, forward and reverse alike, which \
         cancels a backend's slot in the order), and for table misses the log of the ratio of \
         each side's trimmed mean difference. A ratio is the exponential of Yuen's trimmed \
         mean of the {processes} processes' figures (a tenth trimmed at each end: none of five), \
         its 90 % interval Student's t over them: where the tables and the code land changes \
         from process to process and moves a ratio more than the rounds' noise, so the process \
         is the unit (a series that does not split evenly into the processes is not compared). \
         The A/A twin is its base timed twice, the same code and the same tables, so its \
         interval holds the timing's noise alone, not where code or tables landed; each \
         variant's own interval holds those. {reading}"
    )
}

/// The layout variant whose `cost` reads faster or slower and lies furthest from 1 (the
/// pre-set rule), if any; page pairs are not layout variants of one build and do not compete.
pub(super) fn matters_most(numbers: &Numbers, cost: Cost) -> Option<(&Compared, Ratio90)> {
    numbers
        .pairs
        .iter()
        .filter(|p| !p.is_page_pair())
        .filter(|p| {
            matches!(
                numbers.reading(p, cost),
                Some(Reading::Faster | Reading::Slower)
            )
        })
        .filter_map(|p| p.cost(cost).map(|c| (p, c)))
        .max_by(|a, b| a.1.log.abs().total_cmp(&b.1.log.abs()))
}

/// The findings: the answer first, then the errors, the controls, every pair and the
/// pre-set rule's secondary figure.
pub(super) fn paragraph(m: &Measurement, numbers: &Numbers) -> String {
    let mut out = vec![verdict(numbers)];
    if !m.errors.is_empty() {
        out.push(format!(
            "Errors: {} (the figures of those backends are not to be trusted).",
            m.errors.join("; ")
        ));
    }
    if !m.skipped.is_empty() {
        out.push(format!("Not measured: {}.", m.skipped.join("; ")));
    }
    out.extend(drift_sentence(m, numbers));
    out.push(controls_sentence(m, numbers));
    for pair in &numbers.pairs {
        let costs: Vec<String> = Cost::ALL
            .iter()
            .map(|&cost| {
                let text = ratio_text(
                    pair.cost(cost),
                    numbers.reading(pair, cost),
                    numbers.threshold,
                );
                match (pair.cost(cost), numbers.withheld(pair, cost)) {
                    (Some(_), Some(why)) => format!("{} {text}: {why}", cost.words()),
                    (Some(c), None) => {
                        format!("{} {text}, {}", cost.words(), half_width_text(&c))
                    }
                    (None, _) => format!("{} {text}", cost.words()),
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
    out.push(secondary(numbers));
    let pareto: Vec<String> = numbers
        .pareto
        .iter()
        .filter(|(_, cost, _)| *cost == Cost::Search && numbers.control_passed(Cost::Search))
        .map(|(base, _, set)| format!("{base}: {}", set.join(", ")))
        .collect();
    if !pareto.is_empty() {
        out.push(format!(
            "Per family, the layouts no other member beats on both table bytes and search \
             time (fewer bytes and a time read level within the threshold, or a time read \
             faster): {}.",
            pareto.join("; ")
        ));
    }
    out.join(" ")
}

/// The drift between the page phases as the phase order's control reads it, per cost with its
/// interval, and what it gates; `None` where no base stayed on 4 KiB pages.
fn drift_sentence(m: &Measurement, numbers: &Numbers) -> Option<String> {
    let threshold = numbers.threshold;
    let mut control = None;
    let figures: Vec<String> = Cost::ALL
        .iter()
        .filter_map(|&cost| {
            let (pair, drift) = numbers.phase_drift(cost)?;
            control = Some(pair.variant.clone());
            let change = (drift.ratio() - 1.0) * 100.0;
            Some(format!(
                "{} ×{} ({change:+.1} %)",
                cost.words(),
                precise_text(&drift, 3, threshold)
            ))
        })
        .collect();
    let control = control?;
    let orders = m.process_orders();
    let both = orders.contains(&PhaseOrder::SmallFirst) && orders.contains(&PhaseOrder::HugeFirst);
    let cancel = if both {
        "the processes alternate the phase order, so a drift linear in time cancels in the \
         page pairs' estimates and the control tests what is left"
    } else {
        "every process ran the phases in one order, so this drift is in every page pair's \
         estimate as if it were a page effect"
    };
    let withheld: Vec<String> = Cost::ALL
        .iter()
        .filter(|&&c| numbers.phase_control(c) == Some(false))
        .map(|c| c.words().to_string())
        .collect();
    let gated = if withheld.is_empty() {
        String::new()
    } else {
        format!(
            "; the page pairs are withheld in {} (the control failed there)",
            and_list(&withheld)
        )
    };
    Some(format!(
        "Drift between the page phases, later phase over earlier, read on the phase order's \
         control (`{control}`, whose tables stay on 4 KiB pages in both phases; 90 %): {} — \
         {cancel}{gated}.",
        and_list(&figures)
    ))
}

/// Every control with its figure, half-width and adjusted p, and what a failed one withholds.
fn controls_sentence(m: &Measurement, numbers: &Numbers) -> String {
    let Some(twin) = m.twin else {
        return "No A/A control ran (no pair was measured), so every reading is withheld."
            .to_string();
    };
    let ratio_of = |cost: Cost, phase_pair: &Option<String>| -> Option<Ratio90> {
        match phase_pair {
            None => numbers.controls.iter().find(|c| c.0 == cost)?.1,
            Some(variant) => numbers
                .pairs
                .iter()
                .find(|p| &p.variant == variant)?
                .cost(cost),
        }
    };
    let parts: Vec<String> = numbers
        .tests
        .iter()
        .map(|row| {
            let figure = ratio_of(row.cost, &row.phase_pair).map_or("—".to_string(), |r| {
                format!(
                    "×{} ({})",
                    precise_text(&r, 3, numbers.threshold),
                    control_width_text(&r, numbers.threshold)
                )
            });
            let verdict = if row.test.failed { "failed" } else { "passed" };
            format!(
                "{} {figure}, adjusted p = {:.3}: {verdict}",
                row.test.name, row.test.p
            )
        })
        .collect();
    let failed: Vec<String> = numbers
        .tests
        .iter()
        .filter_map(|row| row.test.why())
        .collect();
    let missing: Vec<&str> = numbers
        .controls
        .iter()
        .filter(|c| c.1.is_none())
        .map(|c| c.0.words())
        .collect();
    let mut text = format!(
        "The controls (`{twin}`'s A/A twin and the phase-order control, {} in all, Holm's \
         correction over them; a control fails and withholds what it gates only at adjusted \
         p < 0.05, a bias; otherwise its 90 % interval bounds the bias it could hide, and every \
         reading it gates is read on its own interval widened by as much, against \
         ln(1 + {} %) = ±{} %: the rule of bounds): {}.",
        numbers.tests.len(),
        percent(numbers.threshold),
        edge_text((1.0 + numbers.threshold).ln() * 100.0),
        and_list(&parts)
    );
    if !missing.is_empty() {
        text.push_str(&format!(
            " No A/A estimate in {}: those readings are withheld.",
            missing.join(" and ")
        ));
    }
    if !failed.is_empty() {
        text.push_str(&format!(
            " Withheld for that: {} (each gated reading names its control).",
            failed.join("; ")
        ));
    }
    text
}

/// The pre-set rule's answer beyond the search: the factor that matters most by the search
/// where it names one, else by lookups, labelled as the secondary figure.
fn secondary(numbers: &Numbers) -> String {
    let threshold = percent(numbers.threshold);
    if let Some((pair, c)) = matters_most(numbers, Cost::Search) {
        return format!(
            "The layout factor that matters most on this CPU, by {}, is {} ({} against {}): the \
             search {}. Layout variants level with their base within ±{threshold} % in the \
             search (the page pairs, which compare one table on two page sizes, apart): {}.",
            Cost::Search.measure(),
            pair.factor.name(),
            pair.variant,
            pair.base,
            ratio_text(
                Some(c),
                numbers.reading(pair, Cost::Search),
                numbers.threshold
            ),
            level_variants(numbers, Cost::Search)
        );
    }
    if let Some((pair, c)) = matters_most(numbers, Cost::Lookup) {
        return format!(
            "{SECONDARY}: the layout factor that matters most on this CPU, by {}, is {} ({} \
             against {}): lookups {}. Layout variants level with their base within \
             ±{threshold} % in lookups (the page pairs apart): {}.",
            Cost::Lookup.measure(),
            pair.factor.name(),
            pair.variant,
            pair.base,
            ratio_text(
                Some(c),
                numbers.reading(pair, Cost::Lookup),
                numbers.threshold
            ),
            level_variants(numbers, Cost::Lookup)
        );
    }
    if !numbers.control_passed(Cost::Lookup) {
        return format!(
            "{SECONDARY}: withheld (their A/A control failed): which layout factor matters \
             most is not named."
        );
    }
    format!(
        "{SECONDARY}: no layout variant reads faster or slower beyond ±{threshold} %; level \
         within ±{threshold} % in lookups: {}, the others not resolved or withheld.",
        level_variants(numbers, Cost::Lookup)
    )
}

/// E12's answer: the search's reading per layout variant, in one sentence
/// ([`search_headline`], as the index reads it back from the summary).
pub(super) fn verdict(numbers: &Numbers) -> String {
    search_headline(&search_figures(numbers))
}

/// Every layout variant's search figure as the answer names it (page pairs apart), as the
/// summary records it, so that the findings and the index read alike.
fn search_figures(numbers: &Numbers) -> Vec<SearchFigure> {
    numbers
        .pairs
        .iter()
        .filter(|p| !p.is_page_pair())
        .map(|p| {
            let ratio = p.cost(Cost::Search).map(|c| {
                super::summary_ratio(&c, numbers.reading(p, Cost::Search), numbers.threshold)
            });
            let withheld = numbers.withheld(p, Cost::Search);
            SearchFigure::new(&p.variant, ratio.as_ref(), withheld.as_deref())
        })
        .collect()
}

/// The layout variants whose `cost` reads level, or `none`.
fn level_variants(numbers: &Numbers, cost: Cost) -> String {
    let names: Vec<String> = numbers
        .pairs
        .iter()
        .filter(|p| !p.is_page_pair() && numbers.reading(p, cost) == Some(Reading::Level))
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
    use super::super::analysis::{aa_name, bound_pairs, Compared, ControlRow, Cost, Numbers};
    use super::super::summary::{Summary, ANSWER_WORDS};
    use super::*;
    use crate::answers::{t90, test_controls_for_bias};
    use crate::experiments::e11_search::TablePages;
    use kiki_core::backend::LayoutFactor;

    /// A ratio with its 90 % half-width `hw` (log scale) over five processes.
    fn at(ratio: f64, hw: f64) -> Ratio90 {
        Ratio90 {
            log: ratio.ln(),
            standard_error: hw / t90(4),
            degrees: 4,
            invocations: 5,
            rounds: 20,
            reach: (0.0, 0.0),
        }
    }

    fn variant((base, variant): (&str, &str), lookup: Ratio90, search: Ratio90) -> Compared {
        Compared {
            base: base.into(),
            variant: variant.into(),
            factor: LayoutFactor::EntrySize,
            change: "one factor".into(),
            table_bytes: [1 << 20, 1 << 19],
            costs: vec![
                (Cost::Lookup, Some(lookup)),
                (Cost::TableMiss, None),
                (Cost::Search, Some(search)),
            ],
            lookup_by_mode: Vec::new(),
            pages_as_asked: Some(true),
            phase: TablePages::Huge,
            lookup_pages: TablePages::Huge,
            drift: Vec::new(),
            small_as_asked: None,
        }
    }

    /// The seven layout variants of 2026-11-29-9 at their search ratios, with half-widths of
    /// about 2 %, and A/A controls given by `aa` per cost.
    fn seven(aa: Ratio90) -> Numbers {
        let searches = [
            ("bonanza", "bonanza.entry16", 0.985),
            ("bonanza", "bonanza.occ-major", 1.006),
            ("dbb", "dbb.computed", 1.005),
            ("magic", "magic.split-words", 1.011),
            ("magic-plain", "magic-plain.entry16", 0.996),
            ("magic-plain", "magic-plain.computed", 1.040),
            ("pext", "pext.file-rank", 1.013),
        ];
        let mut pairs: Vec<Compared> = searches
            .iter()
            .map(|&(b, v, r)| variant((b, v), at(1.3, 0.05), at(r, 0.02)))
            .collect();
        let controls: Vec<(Cost, Option<Ratio90>)> =
            Cost::ALL.iter().map(|&c| (c, Some(aa))).collect();
        let estimates: Vec<_> = controls
            .iter()
            .map(|(c, r)| r.expect("an A/A").control(aa_name(*c)))
            .collect();
        let tests: Vec<ControlRow> = test_controls_for_bias(&estimates)
            .into_iter()
            .zip(Cost::ALL)
            .map(|(test, cost)| ControlRow {
                cost,
                phase_pair: None,
                test,
            })
            .collect();
        bound_pairs(&mut pairs, &tests);
        Numbers {
            threshold: 0.03,
            pairs,
            controls,
            tests,
            pareto: Vec::new(),
        }
    }

    /// The answer: one sentence of at most 40 words, the variants grouped by their reading,
    /// each with its ratio and interval, then the half-widths.
    #[test]
    fn the_answer_is_one_sentence_of_at_most_forty_words() {
        let numbers = seven(at(1.0, 0.001));
        let answer = verdict(&numbers);
        assert!(
            answer.split_whitespace().count() <= ANSWER_WORDS,
            "{answer}"
        );
        assert_eq!(
            answer,
            "Search ns/node, variant/base (90 %): level `bonanza.occ-major` ×1.01 [0.99–1.027], \
             `dbb.computed` ×1.00 [0.98–1.026], `magic-plain.entry16` ×1.00 [0.98–1.02]; not \
             resolved `bonanza.entry16` ×0.98 [0.96–1.01], `magic.split-words` ×1.01 \
             [0.99–1.032], `magic-plain.computed` ×1.04 [1.02–1.06], `pext.file-rank` ×1.01 \
             [0.99–1.034]; half-width ±2.1 %."
        );
    }

    /// A biased search A/A (narrow, off 1) withholds every search reading and the answer says
    /// so, naming the control; the lookups, whose A/A passed, still read.
    #[test]
    fn a_biased_control_withholds_its_costs_readings_and_is_named() {
        let mut numbers = seven(at(1.0, 0.01));
        let biased = at(1.02, 0.005);
        numbers.controls[2].1 = Some(biased);
        let estimates: Vec<_> = numbers
            .controls
            .iter()
            .map(|(c, r)| r.unwrap().control(aa_name(*c)))
            .collect();
        for (row, test) in numbers
            .tests
            .iter_mut()
            .zip(test_controls_for_bias(&estimates))
        {
            row.test = test;
        }
        assert!(!numbers.control_passed(Cost::Search));
        let pair = &numbers.pairs[0];
        assert_eq!(numbers.reading(pair, Cost::Search), Some(Reading::Withheld));
        assert_eq!(numbers.reading(pair, Cost::Lookup), Some(Reading::Slower));
        let why = numbers.withheld(pair, Cost::Search).expect("withheld");
        assert!(
            why.starts_with("the search A/A control shows bias"),
            "{why}"
        );
        let answer = verdict(&numbers);
        assert!(
            answer.starts_with("Search ns/node, variant/base (90 %): withheld `bonanza.entry16`"),
            "{answer}"
        );
        assert!(
            answer.ends_with("`pext.file-rank` ×1.01 [0.98–1.04]."),
            "{answer}"
        );
    }

    /// A wide A/A that is centred withholds nothing (the rule of bounds): it widens every
    /// reading it gates by what it leaves unexcluded, so a variant level inside ±2 % on its
    /// own reads `not resolved` beside a ±4 % control, and its resolution says so.
    #[test]
    fn a_control_wider_than_the_threshold_bounds_instead_of_withholding() {
        let numbers = seven(at(1.0, 0.04));
        let test = numbers.aa(Cost::Search).expect("tested");
        assert!(!test.failed && test.p >= 0.05, "{test:?}");
        let pair = &numbers.pairs[2];
        assert!(numbers.withheld(pair, Cost::Search).is_none());
        assert_eq!(
            numbers.reading(pair, Cost::Search),
            Some(Reading::NotResolved)
        );
        let search = pair.cost(Cost::Search).expect("measured");
        assert!((search.resolution() - 0.06).abs() < 1e-9, "{search:?}");
        assert!((search.high().ln() - (1.005f64.ln() + 0.06)).abs() < 1e-9);
        // A narrow A/A leaves the same pair level.
        let narrow = seven(at(1.0, 0.001));
        let pair = &narrow.pairs[2];
        assert_eq!(narrow.reading(pair, Cost::Search), Some(Reading::Level));
    }

    /// The index's line, read back from the summary as results.json holds it, opens with the
    /// findings' answer.
    #[test]
    fn the_index_line_opens_with_the_same_answer() {
        let numbers = seven(at(1.0, 0.01));
        let pairs: Vec<serde_json::Value> = numbers
            .pairs
            .iter()
            .map(|p| super::super::pair_json(p, &numbers, numbers.threshold))
            .collect();
        let summary = serde_json::json!({
            "pairs": pairs,
            "controls": {"passed": true},
            "matters_most": {"variant": "magic-plain.computed", "factor": "entry-size", "cost": "lookup"},
            "verdict": verdict(&numbers),
        });
        let summary: Summary = serde_json::from_value(summary).unwrap();
        let line = summary.verdict_line();
        assert!(line.starts_with(&verdict(&numbers)), "{line}");
        assert!(
            line.contains("Secondary, by lookups (not the search)"),
            "{line}"
        );
        assert!(
            summary.search_claims().is_empty(),
            "{:?}",
            summary.search_claims()
        );
    }
}
