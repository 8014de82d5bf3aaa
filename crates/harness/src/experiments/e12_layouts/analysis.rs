//! E12's analysis: per (base, variant) pair and per page pair, the three costs as variant over
//! base with 90 % intervals and readings, and the controls' bias tests.

use super::measure::SAME_PAGES;
use super::measure::{Entry, LookupInput, Measurement, Pair};
use super::readings::page_ratio90;
use super::readings::{ratio90, Figure, Ratio90};
use super::summary::{beside_edges, ratio_edges};
use crate::answers::{test_controls_for_bias, ControlEstimate, ControlTest, Reading};
use crate::experiments::blocks;
use crate::experiments::e11_search::TablePages;
use crate::results::PairRecord;
use kiki_core::backend::LayoutFactor;

/// The three costs E12 compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Cost {
    /// ns per lookup (E1's throughput mode on random-play positions, unless said).
    Lookup,
    /// The isolated table-miss cost at the top pressure: full-table chain less hot twin.
    TableMiss,
    /// ns per node of the nnue search at the largest TT.
    Search,
}

impl Cost {
    pub const ALL: [Cost; 3] = [Cost::Lookup, Cost::TableMiss, Cost::Search];

    pub fn name(self) -> &'static str {
        match self {
            Cost::Lookup => "lookup",
            Cost::TableMiss => "table_miss",
            Cost::Search => "nps",
        }
    }

    pub fn words(self) -> &'static str {
        match self {
            Cost::Lookup => "lookups",
            Cost::TableMiss => "table misses",
            Cost::Search => "the search",
        }
    }

    /// The cost as an adjective (`the search A/A control`).
    pub fn label(self) -> &'static str {
        match self {
            Cost::Lookup => "lookups",
            Cost::TableMiss => "table-miss",
            Cost::Search => "search",
        }
    }

    /// What the cost measures exactly, as a verdict names it.
    pub fn measure(self) -> &'static str {
        match self {
            Cost::Lookup => "throughput lookups on random-play positions",
            Cost::TableMiss => "the isolated table-miss cost at the top pressure",
            Cost::Search => "the nnue search's time per node",
        }
    }
}

/// One compared pair: a layout variant against its base, or a base's tables on 2 MiB pages
/// against 4 KiB (`variant` = `BASE@2m`, factor `pages`).
#[derive(Clone, Debug)]
pub(super) struct Compared {
    pub base: String,
    pub variant: String,
    pub factor: LayoutFactor,
    pub change: String,
    pub table_bytes: [usize; 2],
    /// Per cost: variant over base.
    pub costs: Vec<(Cost, Option<Ratio90>)>,
    /// The other lookup inputs and modes.
    pub lookup_by_mode: Vec<(LookupInput, Option<Ratio90>)>,
    /// For a variant pair: whether both sides' tables sit on the same page kind in the 2 MiB
    /// phase (the control family stays on 4 KiB pages; a kernel may refuse a collapse). For a
    /// page pair: whether the base's tables moved onto 2 MiB pages at all. `None`: not known.
    pub pages_as_asked: Option<bool>,
    /// The page phase its lookup and table-miss ratios come from (the variant's side).
    pub phase: TablePages,
    /// The pages the variant side's tables were on in that phase ([`Measurement::pages_in`]):
    /// 4 KiB for the control family in both phases, although it is timed in the 2 MiB one.
    pub lookup_pages: TablePages,
    /// For a page pair, per cost: the drift between the two phases within a process, later
    /// phase over earlier (`readings::page_ratio90`); empty for a variant pair.
    pub drift: Vec<(Cost, Option<Ratio90>)>,
    /// For a page pair: whether its tables were on 4 KiB pages in every process's 4 KiB phase
    /// (split back after the 2 MiB phase where that ran first). `None`: not known.
    pub small_as_asked: Option<bool>,
}

impl Compared {
    pub fn is_page_pair(&self) -> bool {
        self.factor == LayoutFactor::Pages
    }
}

impl Compared {
    pub fn cost(&self, cost: Cost) -> Option<Ratio90> {
        self.costs.iter().find(|c| c.0 == cost).and_then(|c| c.1)
    }

    /// A page pair's drift between the phases in `cost` (later over earlier).
    pub fn drift(&self, cost: Cost) -> Option<Ratio90> {
        self.drift.iter().find(|c| c.0 == cost).and_then(|c| c.1)
    }
}

/// What the findings and the summary quote.
pub(super) struct Numbers {
    pub threshold: f64,
    pub pairs: Vec<Compared>,
    /// The A/A control per cost (the twin over its base, same code and tables).
    pub controls: Vec<(Cost, Option<Ratio90>)>,
    /// Every control of the run as tested (Holm's correction over all of them).
    pub tests: Vec<ControlRow>,
    /// Per family (base), the members no other member of the family beats on both table bytes
    /// and search time (readings at the threshold), and the same for lookups.
    pub pareto: Vec<(String, Cost, Vec<String>)>,
}

/// One of the run's controls: the cost it gates, which control it is, and its bias test.
#[derive(Clone, Debug)]
pub(super) struct ControlRow {
    pub cost: Cost,
    /// `None` for the A/A twin; the page pair (`bonanza@2m`) of a base whose tables did not
    /// move, for the phase order's control.
    pub phase_pair: Option<String>,
    pub test: ControlTest,
}

impl Numbers {
    /// The A/A control of `cost` as tested, if it was timed.
    pub fn aa(&self, cost: Cost) -> Option<&ControlTest> {
        self.tests
            .iter()
            .find(|r| r.cost == cost && r.phase_pair.is_none())
            .map(|r| &r.test)
    }

    /// A cost's A/A control passes when it shows no bias (Holm-adjusted p ≥ 0.05); a wide one
    /// widens the readings it gates instead (the rule of bounds).
    pub fn control_passed(&self, cost: Cost) -> bool {
        self.aa(cost).is_some_and(|t| !t.failed)
    }

    /// Every control of the run passed (and every cost had its A/A control).
    pub fn all_passed(&self) -> bool {
        Cost::ALL.iter().all(|&c| self.control_passed(c))
            && self.tests.iter().all(|r| !r.test.failed)
    }

    /// The page phases' control for a cost: every base whose tables did not move onto 2 MiB
    /// pages (the control family, `measure::PHASE_CONTROL_FAMILY`, kept on 4 KiB pages) is
    /// tested for a difference between the two phases, since only the phase changed for it.
    /// `None` where no base stayed put; `Some(false)` where one failed or has no estimate.
    pub fn phase_control(&self, cost: Cost) -> Option<bool> {
        let unmoved: Vec<&Compared> = self.unmoved().collect();
        (!unmoved.is_empty()).then(|| {
            unmoved
                .iter()
                .all(|p| self.phase_test(p, cost).is_some_and(|t| !t.failed))
        })
    }

    fn unmoved(&self) -> impl Iterator<Item = &Compared> {
        self.pairs
            .iter()
            .filter(|p| p.is_page_pair() && p.pages_as_asked == Some(false))
    }

    fn phase_test(&self, pair: &Compared, cost: Cost) -> Option<&ControlTest> {
        self.tests
            .iter()
            .find(|r| r.cost == cost && r.phase_pair.as_deref() == Some(pair.variant.as_str()))
            .map(|r| &r.test)
    }

    /// Why a pair's reading of `cost` is withheld, if it is: a failed control (named), or a
    /// pair this run cannot compare fairly.
    pub fn withheld(&self, pair: &Compared, cost: Cost) -> Option<String> {
        match self.aa(cost) {
            None => return Some(format!("{} has no estimate", aa_name(cost))),
            Some(test) if test.failed => return test.why(),
            Some(_) => {}
        }
        if pair.is_page_pair() {
            return match pair.pages_as_asked {
                Some(false) => Some(
                    "a null contrast: its tables stayed on 4 KiB pages (the phase order's \
                     control)"
                        .into(),
                ),
                None => Some("where its tables landed is not known".into()),
                Some(true) if pair.small_as_asked == Some(false) => Some(
                    "its tables were not back on 4 KiB pages in some process's 4 KiB phase".into(),
                ),
                Some(true) => self.phase_order_failure(cost),
            };
        }
        match (pair.pages_as_asked, cost) {
            (Some(false), Cost::Search) => {
                Some("on 2 MiB pages the two sides' tables did not land alike".into())
            }
            _ => None,
        }
    }

    /// Why the phase order's control withholds the page pairs' `cost`, if it does.
    fn phase_order_failure(&self, cost: Cost) -> Option<String> {
        let unmoved: Vec<&Compared> = self.unmoved().collect();
        if unmoved.is_empty() {
            return Some("no base stayed on 4 KiB pages to control the phase order".into());
        }
        unmoved.iter().find_map(|p| match self.phase_test(p, cost) {
            None => Some(format!(
                "the {} phase-order control (`{}`) has no estimate",
                cost.label(),
                p.variant
            )),
            Some(test) => test.why().map(|why| {
                let figure = p.cost(cost).map_or(String::new(), |r| {
                    format!(" (the control ×{})", precise_text(&r, 3, self.threshold))
                });
                format!("{why}{figure}")
            }),
        })
    }

    /// The phase order's control of `cost` (the first base whose tables did not move) with
    /// its drift between the phases, later over earlier.
    pub fn phase_drift(&self, cost: Cost) -> Option<(&Compared, Ratio90)> {
        self.unmoved().find_map(|p| p.drift(cost).map(|d| (p, d)))
    }

    /// A pair's reading of `cost` (`None` where it has no estimate).
    pub fn reading(&self, pair: &Compared, cost: Cost) -> Option<Reading> {
        let judged = self.withheld(pair, cost).is_none();
        pair.cost(cost).map(|c| c.reading(self.threshold, judged))
    }
}

/// The pairs' records for results.json and the figures the findings quote.
pub(super) struct Analysis {
    pub comparisons: Vec<PairRecord>,
    pub numbers: Numbers,
}

pub(super) fn analyse(m: &Measurement) -> Analysis {
    let mut pairs: Vec<Compared> = m.pairs.iter().map(|p| variant_pair(m, p)).collect();
    pairs.extend(m.bases().into_iter().map(|b| page_pair(m, b)));
    let controls = match m.twin {
        Some(twin) => compare_entries(m, TablePages::Huge, (twin, true), (twin, false)),
        None => Cost::ALL.iter().map(|&c| (c, None)).collect(),
    };
    // The controls are tested first, then every pair is bounded by them, so that the records
    // below, the findings and the summary read the same (bounded) intervals.
    let tests = test_all(&pairs, &controls);
    bound_pairs(&mut pairs, &tests);
    let mut comparisons = Vec::new();
    for pair in &pairs {
        for (cost, ratio) in &pair.costs {
            push_record(&mut comparisons, (cost.name(), m.threshold), pair, ratio);
        }
        for (input, ratio) in &pair.lookup_by_mode {
            push_record(&mut comparisons, (input.name(), m.threshold), pair, ratio);
        }
    }
    let pareto = m
        .bases()
        .into_iter()
        .flat_map(|base| {
            [Cost::Lookup, Cost::Search]
                .map(|cost| (base.to_string(), cost, pareto_set(m, base, cost)))
        })
        .collect();
    let numbers = Numbers {
        threshold: m.threshold,
        pairs,
        controls,
        tests,
        pareto,
    };
    Analysis {
        comparisons,
        numbers,
    }
}

/// The A/A control of `cost` as its test names it (`the search A/A control`).
pub(super) fn aa_name(cost: Cost) -> String {
    format!("the {} A/A control", cost.label())
}

/// Every pair's readings bounded by the controls that gate them (the rule of bounds): a
/// variant pair's cost by that cost's A/A, a page pair's (whose tables moved) also by the
/// phase-order controls of that cost; lookups by input by the lookup A/A. The unmoved page
/// pairs are controls themselves and stay as measured.
pub(super) fn bound_pairs(pairs: &mut [Compared], tests: &[ControlRow]) {
    let gating = |cost: Cost, page_pair: bool| -> Vec<&ControlTest> {
        tests
            .iter()
            .filter(|r| r.cost == cost && (r.phase_pair.is_none() || page_pair))
            .map(|r| &r.test)
            .collect()
    };
    for pair in pairs.iter_mut() {
        let page_pair = pair.is_page_pair();
        if page_pair && pair.pages_as_asked == Some(false) {
            continue;
        }
        for (cost, ratio) in pair.costs.iter_mut() {
            *ratio = ratio.map(|r| r.bounded_by(&gating(*cost, page_pair)));
        }
        let lookup = gating(Cost::Lookup, page_pair);
        for (_, ratio) in pair.lookup_by_mode.iter_mut() {
            *ratio = ratio.map(|r| r.bounded_by(&lookup));
        }
    }
}

/// The run's controls, each tested for a difference of its log-ratio from 0 with Holm's
/// correction over all of them (the rule of bounds: a control fails only where it shows bias;
/// a wide one widens the readings it gates, [`bound_pairs`]): the A/A twin per cost, and per
/// cost the page pair of every base whose tables did not move (the phase order's control).
fn test_all(pairs: &[Compared], aa: &[(Cost, Option<Ratio90>)]) -> Vec<ControlRow> {
    let mut rows: Vec<(Cost, Option<String>, ControlEstimate)> = Vec::new();
    for (cost, ratio) in aa {
        if let Some(r) = ratio {
            rows.push((*cost, None, r.control(aa_name(*cost))));
        }
    }
    let unmoved = pairs
        .iter()
        .filter(|p| p.is_page_pair() && p.pages_as_asked == Some(false));
    for pair in unmoved {
        for (cost, ratio) in &pair.costs {
            if let Some(r) = ratio {
                let name = format!(
                    "the {} phase-order control (`{}`)",
                    cost.label(),
                    pair.variant
                );
                rows.push((*cost, Some(pair.variant.clone()), r.control(name)));
            }
        }
    }
    let estimates: Vec<ControlEstimate> = rows.iter().map(|r| r.2.clone()).collect();
    rows.into_iter()
        .zip(test_controls_for_bias(&estimates))
        .map(|((cost, phase_pair, _), test)| ControlRow {
            cost,
            phase_pair,
            test,
        })
        .collect()
}

fn push_record(
    records: &mut Vec<PairRecord>,
    (cell, threshold): (&str, f64),
    pair: &Compared,
    ratio: &Option<Ratio90>,
) {
    if let Some(r) = ratio {
        records.push(PairRecord {
            cell: format!("{cell}, {}", pair.factor.name()),
            a: pair.variant.clone(),
            b: pair.base.clone(),
            comparison: r.comparison(threshold),
        });
    }
}

/// The three costs of `a` over `b`, both timed in the same rounds on `pages`.
fn compare_entries(
    m: &Measurement,
    pages: TablePages,
    a: Entry,
    b: Entry,
) -> Vec<(Cost, Option<Ratio90>)> {
    compare_across(m, (pages, a), (pages, b))
}

/// The three costs of `a` over `b`, each at its own page kind (a page pair compares a base
/// with itself across the two phases of one process, round by round).
fn compare_across(
    m: &Measurement,
    a: (TablePages, Entry),
    b: (TablePages, Entry),
) -> Vec<(Cost, Option<Ratio90>)> {
    let k = m.invocations;
    let ratio = |x: Option<&[f64]>, y: Option<&[f64]>, figure| {
        ratio90(&per_process(x?, k)?, &per_process(y?, k)?, figure)
    };
    let input = LookupInput::ThroughputRandomPlay;
    let lookup = ratio(
        m.lookup(input, a.0, a.1),
        m.lookup(input, b.0, b.1),
        Figure::TrimmedLogRatio,
    );
    let (x, y) = (m.chain(a.0, a.1), m.chain(b.0, b.1));
    let (x, y) = (
        x.map(|c| differences(&c.full, &c.hot)),
        y.map(|c| differences(&c.full, &c.hot)),
    );
    let miss = ratio(x.as_deref(), y.as_deref(), Figure::RatioOfMeans);
    let search = ratio(m.search(a.0, a.1), m.search(b.0, b.1), Figure::MeanLogRatio);
    vec![
        (Cost::Lookup, lookup),
        (Cost::TableMiss, miss),
        (Cost::Search, search),
    ]
}

/// A series split into its `k` processes' rounds; `None` when it does not split evenly (a
/// round that failed somewhere), since pooling the rounds as one process would take them for
/// independent units and pair them across processes.
pub(super) fn per_process(samples: &[f64], k: usize) -> Option<Vec<Vec<f64>>> {
    let split = blocks(samples, k);
    (k <= 1 || split.len() == k).then_some(split)
}

pub(super) fn differences(full: &[f64], hot: &[f64]) -> Vec<f64> {
    full.iter().zip(hot).map(|(f, h)| f - h).collect()
}

fn lookup_by_mode(
    m: &Measurement,
    a: (TablePages, Entry),
    b: (TablePages, Entry),
) -> Vec<(LookupInput, Option<Ratio90>)> {
    let k = m.invocations;
    LookupInput::ALL[1..]
        .iter()
        .map(|&input| {
            let x = m.lookup(input, a.0, a.1);
            let y = m.lookup(input, b.0, b.1);
            let r = x.zip(y).and_then(|(x, y)| {
                ratio90(
                    &per_process(x, k)?,
                    &per_process(y, k)?,
                    Figure::TrimmedLogRatio,
                )
            });
            (input, r)
        })
        .collect()
}

/// A variant against its base on 2 MiB pages; where the two sides' tables landed on
/// different page kinds there (one too small to move, or moved in a different share), lookups and table misses are read from
/// the 4 KiB phase instead, where both sit on 4 KiB pages, and the search is not decided.
fn variant_pair(m: &Measurement, pair: &Pair) -> Compared {
    let pages_agree = m.pages_agree(pair.base, pair.variant);
    let mut costs = compare_across(
        m,
        (TablePages::Huge, (pair.variant, false)),
        (TablePages::Huge, (pair.base, false)),
    );
    let mut pages = TablePages::Huge;
    if pages_agree == Some(false) {
        pages = TablePages::Small;
        let small = compare_across(
            m,
            (pages, (pair.variant, false)),
            (pages, (pair.base, false)),
        );
        for ((cost, c), (_, small)) in costs.iter_mut().zip(small) {
            if *cost != Cost::Search {
                *c = small;
            }
        }
    }
    let a = (pages, (pair.variant, false));
    let b = (pages, (pair.base, false));
    Compared {
        base: pair.base.to_string(),
        variant: pair.variant.to_string(),
        factor: pair.factor,
        change: pair.change.clone(),
        table_bytes: pair.table_bytes,
        costs,
        lookup_by_mode: lookup_by_mode(m, a, b),
        pages_as_asked: pages_agree,
        phase: pages,
        lookup_pages: m.pages_in(pair.variant, pages),
        drift: Vec::new(),
        small_as_asked: None,
    }
}

/// A family's members (base and its variants) with their table bytes.
pub(super) fn family(m: &Measurement, base: &'static str) -> Vec<(&'static str, usize)> {
    let mut members = Vec::new();
    for pair in m.pairs.iter().filter(|p| p.base == base) {
        if members.is_empty() {
            members.push((base, pair.table_bytes[0]));
        }
        members.push((pair.variant, pair.table_bytes[1]));
    }
    members
}

/// The family's members that no other member beats: fewer or equal table bytes and a cost
/// read faster, or fewer bytes and a cost read level (within ±threshold).
fn pareto_set(m: &Measurement, base: &'static str, cost: Cost) -> Vec<String> {
    let members = family(m, base);
    let pages = TablePages::Huge;
    members
        .iter()
        .filter(|&&(name, bytes)| {
            !members.iter().any(|&(other, other_bytes)| {
                if other == name || other_bytes > bytes {
                    return false;
                }
                let reading = compare_entries(m, pages, (other, false), (name, false))
                    .into_iter()
                    .find(|c| c.0 == cost)
                    .and_then(|c| c.1)
                    .map(|r| r.reading(m.threshold, true));
                match reading {
                    Some(Reading::Faster) => true,
                    Some(Reading::Level) => other_bytes < bytes,
                    _ => false,
                }
            })
        })
        .map(|(name, _)| name.to_string())
        .collect()
}

/// `×1.23 (1.20–1.26, slower)`: the ratio, its 90 % interval and the reading's words; a
/// ratio or bound that would print as a reading edge does gets the digits that tell it from
/// the edge
/// (`×0.99 (0.9706–1.01, not resolved)`: [`beside_edges`]).
pub(super) fn ratio_text(r: Option<Ratio90>, reading: Option<Reading>, threshold: f64) -> String {
    match (r, reading) {
        (Some(r), Some(reading)) => {
            format!(
                "×{} ({}, {})",
                ratio_value_text(&r, 2, threshold),
                bounds_text(&r, 2, threshold),
                reading.words()
            )
        }
        (Some(r), None) => format!(
            "×{} ({})",
            ratio_value_text(&r, 2, threshold),
            bounds_text(&r, 2, threshold)
        ),
        (None, _) => "—".to_string(),
    }
}

/// `0.922 [0.887–0.960]`: the ratio to `decimals` places, its bounds as [`bounds_text`].
pub(super) fn precise_text(r: &Ratio90, decimals: usize, threshold: f64) -> String {
    format!(
        "{} [{}]",
        ratio_value_text(r, decimals, threshold),
        bounds_text(r, decimals, threshold)
    )
}

/// The ratio to `decimals` places, or to more where it would print as a reading edge does
/// (`1.031` beside 1.03).
fn ratio_value_text(r: &Ratio90, decimals: usize, threshold: f64) -> String {
    beside_edges(r.ratio(), decimals, &ratio_edges(threshold))
}

/// `1.20–1.26` to `decimals` places, each bound to more where it would print as one of the
/// reading edges 1 / (1 + T) and 1 + T does.
pub(super) fn bounds_text(r: &Ratio90, decimals: usize, threshold: f64) -> String {
    let edges = ratio_edges(threshold);
    format!(
        "{}–{}",
        beside_edges(r.low(), decimals, &edges),
        beside_edges(r.high(), decimals, &edges)
    )
}

/// A ratio's resolution (its bounded interval's half-width on the log scale) as a percentage
/// (`±2.1 %`).
pub(super) fn half_width_text(r: &Ratio90) -> String {
    format!("±{:.1} %", r.resolution() * 100.0)
}

/// A control's half-width as [`half_width_text`], to more places where it would print as the
/// width's limit ln(1 + T) does (`±2.96 %` against ±2.95588 %).
pub(super) fn control_width_text(r: &Ratio90, threshold: f64) -> String {
    let limit = [(1.0 + threshold).ln() * 100.0];
    format!("±{} %", beside_edges(r.half_width() * 100.0, 1, &limit))
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::measure::LookupRow;
    use super::*;
    use crate::bench::TablePlacement;
    use crate::measure::SampleConfig;
    use std::time::Duration;

    /// Three processes' lookups of `name` on `phase`, two rounds each: `ns` in every round.
    fn lookups(name: &'static str, phase: TablePages, ns: f64) -> LookupRow {
        LookupRow {
            input: LookupInput::ThroughputRandomPlay,
            pages: phase,
            backend: name,
            twin: false,
            ns: vec![ns, ns * 1.01, ns * 0.99, ns, ns * 1.02, ns * 0.98],
        }
    }

    /// `name`'s placement in `phase`, with `share` of its bytes on 2 MiB pages afterwards.
    fn placed(name: &str, phase: TablePages, share: f64) -> (String, TablePages, TablePlacement) {
        let table_bytes = 1 << 20;
        let placement = TablePlacement {
            table_bytes,
            huge_before: Some(0),
            huge_after: Some((share * table_bytes as f64) as usize),
            outcome: Ok(()),
        };
        (name.to_string(), phase, placement)
    }

    fn pair(base: &'static str, variant: &'static str) -> Pair {
        Pair {
            base,
            variant,
            factor: LayoutFactor::EntrySize,
            change: "entries halved".into(),
            table_bytes: [1 << 20, 1 << 19],
        }
    }

    /// Three families: `bonanza` (the phase order's control, kept on 4 KiB pages in both
    /// phases), `dbb` (moved onto 2 MiB pages alike) and `magic` (its variant kept a different
    /// share there, so its lookups are read from the 4 KiB phase).
    pub(in super::super) fn measured() -> Measurement {
        let sampling = SampleConfig {
            warmup: Duration::ZERO,
            samples: 2,
            min_sample: Duration::ZERO,
        };
        let names = [
            ("bonanza", 0.0),
            ("bonanza.entry16", 0.0),
            ("dbb", 1.0),
            ("dbb.entry16", 1.0),
            ("magic", 0.74),
            ("magic.entry16", 0.3),
        ];
        let mut lookup = Vec::new();
        let mut placements = Vec::new();
        for (name, share) in names {
            for phase in [TablePages::Small, TablePages::Huge] {
                // The control family's time does not change between the phases; dbb's does.
                let ns = match (name, phase) {
                    ("dbb" | "dbb.entry16", TablePages::Huge) => 8.0,
                    _ => 10.0,
                };
                lookup.push(lookups(name, phase, ns));
                let share = if phase == TablePages::Huge {
                    share
                } else {
                    0.0
                };
                placements.push(placed(name, phase, share));
            }
        }
        Measurement {
            pairs: vec![
                pair("bonanza", "bonanza.entry16"),
                pair("dbb", "dbb.entry16"),
                pair("magic", "magic.entry16"),
            ],
            twin: None,
            skipped: Vec::new(),
            lookups: 1,
            sampling,
            mode_rounds: 2,
            chain_sampling: sampling,
            pressure_reads: 1,
            pressure_bytes: 1,
            ns_per_tick: 1.0,
            search_positions: 1,
            search_depth: 1,
            search_rounds: [2, 2],
            tt_mib: 1,
            threshold: 0.03,
            seed: 0,
            lookup,
            chains: Vec::new(),
            search: Vec::new(),
            placements,
            orders: Vec::new(),
            phase_orders: Vec::new(),
            errors: Vec::new(),
            invocations: 3,
        }
    }

    /// `lookup_pages` names the pages the tables were on, `phase` the phase they were timed
    /// in: the control family reads 4 KiB in the 2 MiB phase, its variant pair and its page
    /// pair alike, and its page pair still controls the phase order.
    #[test]
    fn lookup_pages_name_the_pages_and_phase_the_phase() {
        let analysis = analyse(&measured());
        let numbers = &analysis.numbers;
        let read = |variant: &str| {
            let p = numbers
                .pairs
                .iter()
                .find(|p| p.variant == variant)
                .unwrap_or_else(|| panic!("{variant}"));
            (p.phase.name(), p.lookup_pages.name(), p.pages_as_asked)
        };
        assert_eq!(read("bonanza.entry16"), ("2m", "4k", Some(true)));
        assert_eq!(read("bonanza@2m"), ("2m", "4k", Some(false)));
        assert_eq!(read("dbb.entry16"), ("2m", "2m", Some(true)));
        assert_eq!(read("dbb@2m"), ("2m", "2m", Some(true)));
        assert_eq!(read("magic.entry16"), ("4k", "4k", Some(false)));
        assert_eq!(read("magic@2m"), ("2m", "2m", Some(true)));
        // The page pairs still pair the 2 MiB phase with the 4 KiB one: dbb's lookups ×0.8,
        // the control family's level, so the phase order's control passes.
        let dbb = numbers
            .pairs
            .iter()
            .find(|p| p.variant == "dbb@2m")
            .unwrap();
        let ratio = dbb.cost(Cost::Lookup).expect("dbb's page pair");
        assert!((ratio.ratio() - 0.8).abs() < 1e-9, "{ratio:?}");
        assert_eq!(numbers.phase_control(Cost::Lookup), Some(true));
        let bonanza = numbers
            .pairs
            .iter()
            .find(|p| p.variant == "bonanza@2m")
            .unwrap();
        let json = super::super::pair_json(bonanza, numbers, 0.03);
        assert_eq!(
            (&json["phase"], &json["lookup_pages"]),
            (&"2m".into(), &"4k".into())
        );
    }
}

/// A figure per cost.
type PerCost = Vec<(Cost, Option<Ratio90>)>;

/// A base's tables on 2 MiB pages against 4 KiB (`BASE@2m`, factor `pages`).
pub(super) fn page_pair(m: &Measurement, base: &'static str) -> Compared {
    let bytes = m
        .pairs
        .iter()
        .find(|p| p.base == base)
        .map_or(0, |p| p.table_bytes[0]);
    let (costs, drift) = compare_pages(m, (base, false));
    let input = |input| cross(m, (input, base), Figure::TrimmedLogRatio);
    Compared {
        base: base.to_string(),
        variant: format!("{base}@2m"),
        factor: LayoutFactor::Pages,
        change: "tables on 2 MiB pages against 4 KiB pages".to_string(),
        table_bytes: [bytes, bytes],
        costs,
        lookup_by_mode: LookupInput::ALL[1..]
            .iter()
            .map(|&i| (i, input(Series::Lookup(i)).0))
            .collect(),
        pages_as_asked: m.collapsed(base),
        phase: TablePages::Huge,
        lookup_pages: m.pages_in(base, TablePages::Huge),
        drift,
        small_as_asked: back_on_small_pages(m, base),
    }
}

/// Which series of an entry a page pair compares across the phases.
#[derive(Clone, Copy)]
enum Series {
    Lookup(LookupInput),
    TableMiss,
    Search,
}

/// An entry's series in one phase, as samples (table misses: full chain less hot twin).
fn series_of(m: &Measurement, series: Series, pages: TablePages, entry: Entry) -> Option<Vec<f64>> {
    match series {
        Series::Lookup(input) => m.lookup(input, pages, entry).map(<[f64]>::to_vec),
        Series::TableMiss => m.chain(pages, entry).map(|c| differences(&c.full, &c.hot)),
        Series::Search => m.page_search(pages, entry).map(<[f64]>::to_vec),
    }
}

/// A page pair's series, the 2 MiB phase over the 4 KiB one, with each process's phase order
/// (`readings::page_ratio90`): the page effect and the drift between the phases.
fn cross(
    m: &Measurement,
    (series, base): (Series, &'static str),
    figure: Figure,
) -> (Option<Ratio90>, Option<Ratio90>) {
    let k = m.invocations;
    let split = |pages| per_process(&series_of(m, series, pages, (base, false))?, k);
    match (split(TablePages::Huge), split(TablePages::Small)) {
        (Some(huge), Some(small)) => page_ratio90(&huge, &small, figure, &m.process_orders()),
        _ => (None, None),
    }
}

/// A base's page pair per cost, and per cost its drift between the phases.
fn compare_pages(m: &Measurement, entry: Entry) -> (PerCost, PerCost) {
    let headline = Series::Lookup(LookupInput::ThroughputRandomPlay);
    [
        (Cost::Lookup, headline, Figure::TrimmedLogRatio),
        (Cost::TableMiss, Series::TableMiss, Figure::RatioOfMeans),
        (Cost::Search, Series::Search, Figure::MeanLogRatio),
    ]
    .into_iter()
    .map(|(cost, series, figure)| {
        let (effect, drift) = cross(m, (series, entry.0), figure);
        ((cost, effect), (cost, drift))
    })
    .unzip()
}

/// Whether `name`'s tables were on 4 KiB pages in the 4 KiB phase of every process (at most
/// [`SAME_PAGES`] of their bytes on 2 MiB pages); `None` where some process could not tell.
fn back_on_small_pages(m: &Measurement, name: &str) -> Option<bool> {
    let shares: Option<Vec<f64>> = m
        .placements
        .iter()
        .filter(|(n, pages, _)| n == name && *pages == TablePages::Small)
        .map(|(_, _, placed)| Some(placed.huge_after? as f64 / placed.table_bytes.max(1) as f64))
        .collect();
    shares
        .filter(|s| !s.is_empty())
        .map(|s| s.iter().all(|&share| share <= SAME_PAGES))
}

#[cfg(test)]
mod page_pairs_tests {
    use super::super::measure::{LookupRow, SearchRow};
    use super::super::phases::PhaseOrder;
    use super::*;
    use super::{analyse, tests::measured};

    /// Four processes, the phase order alternating, every series drifting 2 % per round slot
    /// within a process: `dbb`'s tables ×0.8 on 2 MiB pages, the control family's unchanged.
    /// Lookups (3 rounds a phase) and the search (2 rounds on 4 KiB pages, 4 on 2 MiB, so the
    /// 2 MiB side's rounds nearest the 4 KiB phase pair up) read the page effect alone, and
    /// the control its drift, later phase over earlier; the summary records the orders.
    #[test]
    fn the_page_pairs_pair_the_phases_whichever_order_a_process_ran() {
        let orders = [
            PhaseOrder::SmallFirst,
            PhaseOrder::HugeFirst,
            PhaseOrder::SmallFirst,
            PhaseOrder::HugeFirst,
        ];
        let drift = 0.02;
        // Zero-sum within each order, so that each order's mean is the effect exactly.
        let spread = [0.01, 0.005, -0.01, -0.005];
        let series = |name: &str, pages: TablePages, rounds: [usize; 2]| -> Vec<f64> {
            let mut out = Vec::new();
            for (i, order) in orders.iter().enumerate() {
                let first = order.phases()[0] == pages;
                let before = if first {
                    0
                } else {
                    rounds[order.phases()[0] as usize]
                };
                let effect = match (name, pages) {
                    ("dbb", TablePages::Huge) => 0.8f64.ln() + spread[i],
                    (_, TablePages::Huge) => spread[i] / 2.0,
                    _ => 0.0,
                };
                let n = rounds[pages as usize];
                out.extend(
                    (0..n)
                        .map(|r| (10.0 + i as f64) * (effect + drift * (before + r) as f64).exp()),
                );
            }
            out
        };
        let mut m = measured();
        m.invocations = orders.len();
        m.phase_orders = orders.to_vec();
        for row in &mut m.lookup {
            row.ns = series(row.backend, row.pages, [3, 3]);
        }
        m.lookup
            .retain(|r: &LookupRow| ["dbb", "bonanza"].contains(&r.backend));
        for backend in ["dbb", "bonanza"] {
            for pages in [TablePages::Small, TablePages::Huge] {
                m.search.push(SearchRow {
                    pages,
                    backend,
                    twin: false,
                    ns_per_node: series(backend, pages, [2, 4]),
                    page_block: false,
                });
            }
        }
        let numbers = analyse(&m).numbers;
        let pair = |v: &str| numbers.pairs.iter().find(|p| p.variant == v).unwrap();
        for cost in [Cost::Lookup, Cost::Search] {
            let effect = pair("dbb@2m").cost(cost).expect("dbb's page pair");
            assert!(
                (effect.log - 0.8f64.ln()).abs() < 1e-12,
                "{cost:?} {effect:?}"
            );
            let control = pair("bonanza@2m").cost(cost).expect("the control");
            assert!(control.log.abs() < 1e-12, "{cost:?} {control:?}");
            let slots = if cost == Cost::Lookup { 3.0 } else { 2.0 };
            let (_, read) = numbers.phase_drift(cost).expect("the control's drift");
            assert!(
                (read.log - drift * slots).abs() < 1e-12,
                "{cost:?} {read:?}"
            );
        }
        assert_eq!(numbers.phase_control(Cost::Lookup), Some(true));
        let controls = super::super::controls_json(&m, &numbers);
        assert_eq!(
            controls["phase_orders"],
            serde_json::json!(["4k first", "2m first", "4k first", "2m first"])
        );
        assert!(
            controls["phase_drift"]["lookup"]["drift"]["ratio"]
                .as_f64()
                .unwrap()
                > 1.05
        );
    }

    /// The page pairs read the 2 MiB phase's page block, the same bases for the same rounds as
    /// the 4 KiB phase's block: a variants' block that holds more entries and runs 8 % slower
    /// as a whole (the 2026-12-02 report's control read 5–9 %) moves neither the page pair nor
    /// the control; a report without the page block (before it) reads the variants' block.
    #[test]
    fn a_phase_with_more_entries_leaves_the_page_pairs_alone() {
        let with = |content: f64, page_block: bool| {
            let mut m = measured();
            m.invocations = 2;
            m.phase_orders = vec![PhaseOrder::SmallFirst, PhaseOrder::HugeFirst];
            m.lookup.clear();
            for (backend, effect) in [("dbb", 0.8f64), ("bonanza", 1.0)] {
                let small = vec![10.0, 10.4, 12.0, 12.2];
                let huge: Vec<f64> = small.iter().map(|x| x * effect).collect();
                let row = |pages, ns_per_node, page_block| SearchRow {
                    pages,
                    backend,
                    twin: false,
                    ns_per_node,
                    page_block,
                };
                let variants: Vec<f64> = [&huge[..2], &huge[..2], &huge[2..], &huge[2..]]
                    .concat()
                    .iter()
                    .map(|x| x * content)
                    .collect();
                m.search.push(row(TablePages::Small, small, false));
                m.search.push(row(TablePages::Huge, variants, false));
                if page_block {
                    m.search.push(row(TablePages::Huge, huge, true));
                }
            }
            let numbers = analyse(&m).numbers;
            let read = |v: &str| {
                let pair = numbers.pairs.iter().find(|p| p.variant == v).unwrap();
                pair.cost(Cost::Search).expect("a page pair").log
            };
            (read("dbb@2m"), read("bonanza@2m"))
        };
        for content in [1.0, 1.08] {
            let (dbb, control) = with(content, true);
            assert!((dbb - 0.8f64.ln()).abs() < 1e-12, "{content}: {dbb}");
            assert!(control.abs() < 1e-12, "{content}: {control}");
        }
        let (dbb, control) = with(1.08, false);
        assert!((dbb - (0.8f64 * 1.08).ln()).abs() < 1e-12, "{dbb}");
        assert!((control - 1.08f64.ln()).abs() < 1e-12, "{control}");
    }
}
