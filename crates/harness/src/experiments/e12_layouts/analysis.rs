//! E12's analysis: per (base, variant) pair and per page pair, the three costs as variant over
//! base with intervals and claims, the A/A control, the tables and the per-family plots.

use super::measure::{Entry, LookupInput, Measurement, Pair};
use crate::bench::TablePlacement;
use crate::experiments::claims::CLAIM_SEED;
use crate::experiments::e11_search::TablePages;
use crate::experiments::{blocks, interval, interval_linear, interval_point, series};
use crate::results::{PairRecord, Plot, PlotKind, PlotLine, Series, Table};
use crate::stats::{
    compare_differences_invocations, compare_invocations, format_interval, Claim, Comparison,
    Estimate,
};
use kiki_core::backend::LayoutFactor;
use kiki_core::units::rounded_bytes;

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
    pub costs: Vec<(Cost, Option<Comparison>)>,
    /// The other lookup inputs and modes.
    pub lookup_by_mode: Vec<(LookupInput, Option<Comparison>)>,
    /// For a variant pair: whether both sides' tables sit on the same page kind in the 2 MiB
    /// phase (the control family stays on 4 KiB pages; a kernel may refuse a collapse). For a
    /// page pair: whether the base's tables moved onto 2 MiB pages at all. `None`: not known.
    pub pages_as_asked: Option<bool>,
    /// The page phase its lookup and table-miss ratios come from (the variant's side).
    pub phase: TablePages,
    /// The pages the variant side's tables were on in that phase ([`Measurement::pages_in`]):
    /// 4 KiB for the control family in both phases, although it is timed in the 2 MiB one.
    pub lookup_pages: TablePages,
}

impl Compared {
    pub fn is_page_pair(&self) -> bool {
        self.factor == LayoutFactor::Pages
    }
}

impl Compared {
    pub fn cost(&self, cost: Cost) -> Option<Comparison> {
        self.costs.iter().find(|c| c.0 == cost).and_then(|c| c.1)
    }
}

/// What the findings and the summary quote.
pub(super) struct Numbers {
    pub threshold: f64,
    pub pairs: Vec<Compared>,
    /// The A/A control per cost (the twin over its base, same code and tables).
    pub controls: Vec<(Cost, Option<Comparison>)>,
    /// Per family (base), the members no other member of the family beats on both table bytes
    /// and search time (claims at the threshold), and the same for lookups.
    pub pareto: Vec<(String, Cost, Vec<String>)>,
}

impl Numbers {
    /// A cost's A/A control passes when its whole interval lies within ±threshold: the run
    /// resolves a same-code difference to less than the threshold.
    pub fn control_passed(&self, cost: Cost) -> bool {
        self.controls
            .iter()
            .find(|c| c.0 == cost)
            .is_some_and(|c| c.1.is_some_and(|x| x.within(self.threshold)))
    }

    /// The page phases' control for a cost: every base whose tables did not move onto 2 MiB
    /// pages (the control family, `measure::PHASE_CONTROL_FAMILY`, kept on 4 KiB pages) must
    /// come out within ±threshold between the two phases, since only the phase changed for it.
    /// `None` where no base stayed put.
    pub fn phase_control(&self, cost: Cost) -> Option<bool> {
        let unmoved: Vec<&Compared> = self
            .pairs
            .iter()
            .filter(|p| p.is_page_pair() && p.pages_as_asked == Some(false))
            .collect();
        (!unmoved.is_empty()).then(|| {
            unmoved
                .iter()
                .all(|p| p.cost(cost).is_some_and(|c| c.within(self.threshold)))
        })
    }

    /// Why a pair's cost is not decided here, if it is not.
    pub fn undecided(&self, pair: &Compared, cost: Cost) -> Option<String> {
        if !self.control_passed(cost) {
            return Some(
                "not decided: the A/A control's interval reaches beyond the threshold".into(),
            );
        }
        if pair.is_page_pair() {
            return match (pair.pages_as_asked, self.phase_control(cost)) {
                (Some(false), _) => {
                    Some("a null contrast: its tables stayed on 4 KiB pages".into())
                }
                (None, _) => Some("not decided: where its tables landed is not known".into()),
                (_, None) => Some(
                    "not decided: no base stayed on 4 KiB pages to control the phase order".into(),
                ),
                (_, Some(false)) => Some(
                    "not decided: a base whose tables did not move is not shown level \
                     between the phases (the phase order's control)"
                        .into(),
                ),
                _ => None,
            };
        }
        match (pair.pages_as_asked, cost) {
            (Some(false), Cost::Search) => {
                Some("not decided: on 2 MiB pages the two sides' tables did not land alike".into())
            }
            _ => None,
        }
    }
}

pub(super) struct Analysis {
    pub series: Vec<Series>,
    pub tables: Vec<Table>,
    pub plots: Vec<Plot>,
    pub comparisons: Vec<PairRecord>,
    pub numbers: Numbers,
}

pub(super) fn analyse(m: &Measurement) -> Analysis {
    let k = m.invocations;
    let mut pairs: Vec<Compared> = m.pairs.iter().map(|p| variant_pair(m, p)).collect();
    pairs.extend(m.bases().into_iter().map(|b| page_pair(m, b)));
    let controls = match m.twin {
        Some(twin) => compare_entries(m, TablePages::Huge, (twin, true), (twin, false)),
        None => Cost::ALL.iter().map(|&c| (c, None)).collect(),
    };
    let mut comparisons = Vec::new();
    for pair in &pairs {
        for (cost, comparison) in &pair.costs {
            push_record(&mut comparisons, cost.name(), pair, comparison);
        }
        for (input, comparison) in &pair.lookup_by_mode {
            push_record(&mut comparisons, input.name(), pair, comparison);
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
        pareto,
    };
    Analysis {
        series: all_series(m),
        tables: vec![pairs_table(&numbers), entries_table(m, k)],
        plots: family_plots(m, k),
        comparisons,
        numbers,
    }
}

fn push_record(
    records: &mut Vec<PairRecord>,
    cell: &str,
    pair: &Compared,
    comparison: &Option<Comparison>,
) {
    // results.json holds finite numbers only: an unbounded interval stays in the summary.
    if let Some(c) = comparison.filter(|c| c.low.is_finite() && c.high.is_finite()) {
        records.push(PairRecord {
            cell: format!("{cell}, {}", pair.factor.name()),
            a: pair.variant.clone(),
            b: pair.base.clone(),
            comparison: c,
        });
    }
}

/// The three costs of `a` over `b`, both timed in the same rounds on `pages`.
fn compare_entries(
    m: &Measurement,
    pages: TablePages,
    a: Entry,
    b: Entry,
) -> Vec<(Cost, Option<Comparison>)> {
    compare_across(m, (pages, a), (pages, b))
}

/// The three costs of `a` over `b`, each at its own page kind (a page pair compares a base
/// with itself across the two phases of one process, round by round).
fn compare_across(
    m: &Measurement,
    a: (TablePages, Entry),
    b: (TablePages, Entry),
) -> Vec<(Cost, Option<Comparison>)> {
    let k = m.invocations;
    let ratio = |x: Option<&[f64]>, y: Option<&[f64]>| {
        compare_invocations(
            &per_process(x?, k)?,
            &per_process(y?, k)?,
            m.threshold,
            CLAIM_SEED,
        )
    };
    let input = LookupInput::ThroughputRandomPlay;
    let lookup = ratio(m.lookup(input, a.0, a.1), m.lookup(input, b.0, b.1));
    let miss = (|| {
        let (x, y) = (m.chain(a.0, a.1)?, m.chain(b.0, b.1)?);
        compare_differences_invocations(
            &per_process(&differences(&x.full, &x.hot), k)?,
            &per_process(&differences(&y.full, &y.hot), k)?,
            m.threshold,
            CLAIM_SEED,
        )
    })();
    let search = ratio(m.search(a.0, a.1), m.search(b.0, b.1));
    vec![
        (Cost::Lookup, lookup),
        (Cost::TableMiss, miss),
        (Cost::Search, search),
    ]
}

/// A series split into its `k` processes' rounds; `None` when it does not split evenly (a
/// round that failed somewhere), since pooling the rounds as one process would take them for
/// independent units and pair them across processes.
fn per_process(samples: &[f64], k: usize) -> Option<Vec<Vec<f64>>> {
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
) -> Vec<(LookupInput, Option<Comparison>)> {
    let k = m.invocations;
    LookupInput::ALL[1..]
        .iter()
        .map(|&input| {
            let x = m.lookup(input, a.0, a.1);
            let y = m.lookup(input, b.0, b.1);
            let c = x.zip(y).and_then(|(x, y)| {
                compare_invocations(
                    &per_process(x, k)?,
                    &per_process(y, k)?,
                    m.threshold,
                    CLAIM_SEED,
                )
            });
            (input, c)
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
    }
}

fn page_pair(m: &Measurement, base: &'static str) -> Compared {
    let a = (TablePages::Huge, (base, false));
    let b = (TablePages::Small, (base, false));
    let bytes = m
        .pairs
        .iter()
        .find(|p| p.base == base)
        .map_or(0, |p| p.table_bytes[0]);
    Compared {
        base: base.to_string(),
        variant: format!("{base}@2m"),
        factor: LayoutFactor::Pages,
        change: "tables on 2 MiB pages against 4 KiB pages".to_string(),
        table_bytes: [bytes, bytes],
        costs: compare_across(m, a, b),
        lookup_by_mode: lookup_by_mode(m, a, b),
        pages_as_asked: m.collapsed(base),
        phase: TablePages::Huge,
        lookup_pages: m.pages_in(base, TablePages::Huge),
    }
}

/// A family's members (base and its variants) with their table bytes.
fn family(m: &Measurement, base: &'static str) -> Vec<(&'static str, usize)> {
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
/// claimed faster (interval wholly beyond the threshold), or fewer bytes and an equivalent
/// cost (interval wholly within it).
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
                let c = compare_entries(m, pages, (other, false), (name, false))
                    .into_iter()
                    .find(|c| c.0 == cost)
                    .and_then(|c| c.1);
                match c {
                    Some(c) if c.claim == Claim::Faster => true,
                    Some(c) => other_bytes < bytes && c.within(m.threshold),
                    None => false,
                }
            })
        })
        .map(|(name, _)| name.to_string())
        .collect()
}

/// `×1.23 (1.20–1.26, slower)`; `level` where the whole interval lies within the threshold,
/// `unresolved` where it reaches past it without lying wholly beyond.
pub(super) fn ratio_text(c: Option<Comparison>, threshold: f64) -> String {
    match c {
        None => "—".to_string(),
        Some(c) => {
            let claim = match c.claim {
                Claim::Level if c.within(threshold) => "level",
                Claim::Level => "unresolved",
                Claim::Faster => "faster",
                Claim::Slower => "slower",
            };
            ratio_words(&c, claim)
        }
    }
}

/// `×1.23 (1.20–1.26, WORDS)`.
fn ratio_words(c: &Comparison, words: &str) -> String {
    format!("×{:.2} ({}, {words})", c.ratio, bounds_text(c, 2))
}

/// `×1.23 (1.20–1.26)`: a ratio whose cost is not decided here, with no claim word.
pub(super) fn interval_text(c: &Comparison) -> String {
    format!("×{:.2} ({})", c.ratio, bounds_text(c, 2))
}

/// `1.20–1.26` to `decimals` places (an unbounded end as ∞).
pub(super) fn bounds_text(c: &Comparison, decimals: usize) -> String {
    let high = if c.high.is_finite() {
        format!("{:.*}", decimals, c.high)
    } else {
        "∞".to_string()
    };
    format!("{:.*}–{high}", decimals, c.low)
}

/// [`ratio_text`], or where the cost is not decided here, the ratio and interval marked so
/// instead of a claim.
fn cell_text(c: Option<Comparison>, decided: bool, threshold: f64) -> String {
    match c {
        Some(c) if !decided => ratio_words(&c, "not decided"),
        c => ratio_text(c, threshold),
    }
}

fn pairs_table(numbers: &Numbers) -> Table {
    let mut rows = Vec::new();
    for pair in &numbers.pairs {
        let mut row = vec![
            format!("{} vs {}", pair.variant, pair.base),
            pair.factor.name().to_string(),
            format!(
                "{} → {}",
                rounded_bytes(pair.table_bytes[0] as f64),
                rounded_bytes(pair.table_bytes[1] as f64)
            ),
        ];
        let decided = |cost| numbers.undecided(pair, cost).is_none();
        row.extend(
            Cost::ALL
                .iter()
                .map(|&c| cell_text(pair.cost(c), decided(c), numbers.threshold)),
        );
        row.extend(
            pair.lookup_by_mode
                .iter()
                .map(|(_, c)| cell_text(*c, decided(Cost::Lookup), numbers.threshold)),
        );
        rows.push(row);
    }
    let mut headers = vec![
        "pair".to_string(),
        "factor".to_string(),
        "table bytes".to_string(),
        "lookup (throughput, random-play)".to_string(),
        "table miss (top pressure)".to_string(),
        "search (nnue, ns/node)".to_string(),
    ];
    headers.extend(
        LookupInput::ALL[1..]
            .iter()
            .map(|i| format!("lookup ({})", i.name())),
    );
    Table { headers, rows }
}

/// Every timed entry's own figures: ns per lookup, the table-miss cost, ns per node.
fn entries_table(m: &Measurement, k: usize) -> Table {
    let mut rows = Vec::new();
    let mut entries: Vec<(TablePages, Entry)> = m
        .search
        .iter()
        .map(|r| (r.pages, (r.backend, r.twin)))
        .collect();
    for r in &m.lookup {
        if !entries.contains(&(r.pages, (r.backend, r.twin))) {
            entries.push((r.pages, (r.backend, r.twin)));
        }
    }
    for (pages, entry) in entries {
        let text = |e: Option<Estimate>| e.map_or("—".to_string(), |e| format_interval(&e));
        let lookup = m
            .lookup(LookupInput::ThroughputRandomPlay, pages, entry)
            .map(|s| interval(s, k));
        let miss = m
            .chain(pages, entry)
            .map(|c| interval_linear(&differences(&c.full, &c.hot), k));
        let search = m.search(pages, entry).map(|s| interval(s, k));
        let placed: Vec<&TablePlacement> = m
            .placements
            .iter()
            .filter(|(n, p, _)| n == entry.0 && *p == pages)
            .map(|(_, _, placed)| placed)
            .collect();
        let huge: Option<Vec<usize>> = placed.iter().map(|p| p.huge_after).collect();
        let placed = match (placed.first(), huge) {
            (None, _) => "—".to_string(),
            (Some(_), None) => "not known".to_string(),
            (Some(first), Some(huge)) => {
                let (low, high) = (huge.iter().min(), huge.iter().max());
                let range = match (low, high) {
                    (Some(l), Some(h)) if l != h => {
                        format!("{}–{}", rounded_bytes(*l as f64), rounded_bytes(*h as f64))
                    }
                    (Some(l), _) => rounded_bytes(*l as f64),
                    _ => "—".to_string(),
                };
                format!("{range} of {}", rounded_bytes(first.table_bytes as f64))
            }
        };
        rows.push(vec![
            entry_name(entry),
            pages.name().to_string(),
            placed,
            text(lookup),
            text(miss),
            text(search),
        ]);
    }
    Table {
        headers: vec![
            "backend".to_string(),
            "table pages".to_string(),
            "on 2 MiB pages".to_string(),
            "ns/lookup".to_string(),
            "table miss, ns/lookup".to_string(),
            "ns/node".to_string(),
        ],
        rows,
    }
}

pub(super) fn entry_name((name, twin): Entry) -> String {
    if twin {
        format!("{name} (A/A twin)")
    } else {
        name.to_string()
    }
}

fn all_series(m: &Measurement) -> Vec<Series> {
    let mut out = Vec::new();
    for r in &m.lookup {
        let name = entry_name((r.backend, r.twin));
        out.push(series(
            &[
                ("backend", &name),
                ("table_pages", r.pages.name()),
                ("input", r.input.name()),
            ],
            "ns/lookup",
            r.ns.clone(),
        ));
    }
    for r in &m.chains {
        let name = entry_name((r.backend, r.twin));
        for (mask, samples) in [("full", &r.full), ("hot twin", &r.hot)] {
            out.push(series(
                &[
                    ("backend", &name),
                    ("table_pages", r.pages.name()),
                    ("chain", mask),
                ],
                "ns/lookup",
                samples.clone(),
            ));
        }
    }
    for r in &m.search {
        let name = entry_name((r.backend, r.twin));
        out.push(series(
            &[("backend", &name), ("table_pages", r.pages.name())],
            "ns/node",
            r.ns_per_node.clone(),
        ));
    }
    out
}

/// Per family: ns per lookup and ns per node against table bytes, one labelled point per
/// member (tables on 2 MiB pages).
fn family_plots(m: &Measurement, k: usize) -> Vec<Plot> {
    let mut plots = Vec::new();
    for base in m.bases() {
        for (cost, unit) in [
            (Cost::Lookup, "ns per lookup"),
            (Cost::Search, "ns per node"),
        ] {
            let lines: Vec<PlotLine> = family(m, base)
                .into_iter()
                .filter_map(|(name, bytes)| {
                    let entry = (name, false);
                    let samples = match cost {
                        Cost::Search => m.search(TablePages::Huge, entry)?,
                        _ => {
                            m.lookup(LookupInput::ThroughputRandomPlay, TablePages::Huge, entry)?
                        }
                    };
                    Some(PlotLine {
                        name: name.to_string(),
                        points: vec![interval_point(bytes as f64, &interval(samples, k))],
                    })
                })
                .collect();
            if lines.is_empty() {
                continue;
            }
            plots.push(Plot {
                file_stem: format!("e12_{}_{base}", cost.name()),
                title: format!("E12 {base}: {unit} against table bytes (2 MiB pages)"),
                x_label: "table bytes".to_string(),
                y_label: unit.to_string(),
                log_x: true,
                log_y: false,
                kind: PlotKind::Line,
                categories: Vec::new(),
                markers: Vec::new(),
                lines,
            });
        }
    }
    plots
}

#[cfg(test)]
mod tests {
    use super::super::measure::LookupRow;
    use super::*;
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
    fn measured() -> Measurement {
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
        assert!((ratio.ratio - 0.8).abs() < 1e-9, "{ratio:?}");
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
