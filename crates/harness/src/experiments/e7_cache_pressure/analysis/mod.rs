//! E7's analysis, one module per sub-study (each module says which), each owning its numbers,
//! tables, plots, summary values and sentences; [`analyse`] composes them in the report's order.

pub(super) mod answer;
pub(super) mod bracket;
pub(super) mod chains;
pub(super) mod dose;
pub(super) mod estimator;
pub(super) mod pages;
pub(super) mod positive;
pub(super) mod reuse;
pub(super) mod ring_test;
pub(super) mod survival;
pub(super) mod unpressed;
pub(super) mod verdict;

use super::measure::{mask_label, Chain, Measurement};
use super::HOT_MASK;
use crate::experiments::claims::Claims;
use crate::experiments::{interval_linear, series};
use crate::results::{Plot, Series, Table};
use crate::stats::Estimate;
use serde_json::{json, Value as Json};

/// The backend every contender is set against.
const REFERENCE: &str = "dbb";

/// E7's series, plots, tables, summary and claims, and the numbers the findings quote.
pub(super) struct Analysis {
    pub series: Vec<Series>,
    pub plots: Vec<Plot>,
    pub tables: Vec<Table>,
    pub summary: Vec<(String, Json)>,
    pub claims: Claims,
    pub numbers: Numbers,
}

/// What the findings quote: each sub-study's numbers.
pub(super) struct Numbers {
    /// Pressure reads per node at the top of the sweep.
    pub top_reads: u32,
    pub chains: chains::Chains,
    pub dose: dose::Dose,
    pub survival: survival::Survival,
    pub pages: pages::Pages,
    pub bracket: bracket::Brackets,
    pub verdict: verdict::Verdict,
    /// The verdict from the other estimator.
    pub estimators: estimator::Estimators,
    /// P = 0 on the other walks.
    pub unpressed: unpressed::Unpressed,
}

/// The part of the sweep a chain was timed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    /// The main sweep over the pressure counts.
    Chain,
    /// The dose–response at the top pressure.
    Dose,
    /// The table-page split.
    Pages,
    /// P = 0 with each window walked once before it is timed.
    Warmed,
    /// P = 0 on the long search.
    LongSearch,
}

impl Part {
    fn label(self) -> &'static str {
        match self {
            Part::Chain => "chain",
            Part::Dose => "dose",
            Part::Pages => "pages",
            Part::Warmed => super::measure::WARMED,
            Part::LongSearch => super::measure::LONG_SEARCH,
        }
    }
}

/// The pages a buffer lies on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PageSize {
    /// 4 KiB pages.
    Small,
    /// 2 MiB pages.
    Huge,
}

impl PageSize {
    fn label(self) -> &'static str {
        match self {
            PageSize::Small => "4k",
            PageSize::Huge => "huge",
        }
    }
}

/// Where a chain's attack tables lay: as built (in the main sweep: advised onto 4 KiB pages
/// since 2026-11-29), or on pages of one size (the page split).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tables {
    AsBuilt,
    On(PageSize),
}

impl Tables {
    fn label(self) -> &'static str {
        match self {
            Tables::AsBuilt => "as built",
            Tables::On(pages) => pages.label(),
        }
    }
}

/// The footprint a chain's lookups read: the whole tables, the hot twin's first 4 KiB, a dose
/// mask, or the whole tables again (the A/A control's second chain).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mask {
    Full,
    Hot,
    Bytes(usize),
    Again,
}

impl Mask {
    fn label(self) -> String {
        match self {
            Mask::Full => mask_label(usize::MAX),
            Mask::Hot => mask_label(HOT_MASK),
            Mask::Bytes(mask) => mask_label(mask),
            Mask::Again => super::measure::AA_SECOND.to_string(),
        }
    }
}

/// One timed case: the part of the sweep, its pressure count, its name, and its pages.
#[derive(Clone, Copy)]
struct Case<'a> {
    part: Part,
    reads: u32,
    case: &'a str,
    tables: Tables,
    pressure: PageSize,
}

impl<'a> Case<'a> {
    /// `case` in the main sweep at `reads` (tables as built, pressure on huge pages).
    fn chain(reads: u32, case: &'a str) -> Self {
        Case {
            part: Part::Chain,
            reads,
            case,
            tables: Tables::AsBuilt,
            pressure: PageSize::Huge,
        }
    }

    /// `case` in the table-page split at `reads` (at least 1), its tables and pressure on
    /// `tables` and `pressure` pages.
    fn split(reads: u32, case: &'a str, tables: PageSize, pressure: PageSize) -> Self {
        Case {
            part: Part::Pages,
            tables: Tables::On(tables),
            pressure,
            ..Case::chain(reads.max(1), case)
        }
    }

    /// The chain of this case with `mask`.
    fn find(self, chains: &[Chain], mask: Mask) -> Option<&Chain> {
        let (part, tables, pressure, mask) = (
            self.part.label(),
            self.tables.label(),
            self.pressure.label(),
            mask.label(),
        );
        chains.iter().find(|c| {
            c.part == part
                && c.reads == self.reads
                && c.case == self.case
                && c.mask == mask
                && c.tables == tables
                && c.pressure == pressure
        })
    }

    /// Per round: the chain with `mask` minus the one with `twin`.
    fn rounds(self, chains: &[Chain], mask: Mask, twin: Mask) -> Option<Vec<f64>> {
        paired(&self.find(chains, mask)?.ns, &self.find(chains, twin)?.ns)
    }

    /// The table-miss cost: the chain with `mask` minus its hot twin, per round, ns per lookup.
    fn cost(self, (chains, k): (&[Chain], usize), mask: Mask) -> Option<Estimate> {
        interval(&self.rounds(chains, mask, Mask::Hot)?, k)
    }
}

/// Per round: `a[r] − b[r]`, where both were measured over the same rounds.
fn paired(a: &[f64], b: &[f64]) -> Option<Vec<f64>> {
    (a.len() == b.len() && !a.is_empty()).then(|| a.iter().zip(b).map(|(x, y)| x - y).collect())
}

/// The interval of per-round values pooled from `k` invocations, `None` where there is none.
fn interval(rounds: &[f64], k: usize) -> Option<Estimate> {
    let e = interval_linear(rounds, k);
    (!e.value.is_nan()).then_some(e)
}

/// Per-round table-miss cost of `case` in the main sweep at `reads`.
fn cost_rounds(m: &Measurement, reads: u32, case: &str) -> Option<Vec<f64>> {
    Case::chain(reads, case).rounds(&m.chains, Mask::Full, Mask::Hot)
}

/// The table-miss cost of `case` in the main sweep at `reads`.
fn cost(m: &Measurement, reads: u32, case: &str) -> Option<Estimate> {
    Case::chain(reads, case).cost((&m.chains, m.invocations), Mask::Full)
}

/// The whole-table chain's per-round times of `case` in the main sweep at `reads`.
fn chain_ns<'a>(m: &'a Measurement, reads: u32, case: &str) -> Option<&'a [f64]> {
    Some(&Case::chain(reads, case).find(&m.chains, Mask::Full)?.ns)
}

/// Misses per lookup to three significant digits (`0.0123`, `1.50`, `12.3`).
pub(super) fn per_lookup(x: f64) -> String {
    if !x.is_finite() || x <= 0.0 {
        return format!("{x}");
    }
    let decimals = (2 - x.log10().floor() as i32).max(0) as usize;
    format!("{x:.decimals$}")
}

/// The measured cache levels as plot markers.
fn level_markers(m: &Measurement) -> Vec<(f64, String)> {
    m.levels
        .levels
        .iter()
        .map(|l| (l.bytes as f64, format!("{} (measured)", l.level)))
        .collect()
}

fn yes_no(pass: bool) -> String {
    if pass { "yes" } else { "**no**" }.to_string()
}

fn estimate_json(e: &Estimate) -> Json {
    json!({"ns": e.value, "low": e.low, "high": e.high})
}

/// [`estimate_json`] with the pressure count it was measured at.
fn estimate_at(e: &Estimate, reads: u32) -> Json {
    let mut value = estimate_json(e);
    value["pressure_reads"] = json!(reads);
    value
}

#[cfg(test)]
fn estimate(value: f64, low: f64, high: f64) -> Estimate {
    Estimate { value, low, high }
}

/// Every timed chain as a series, whatever part of the sweep it belongs to.
fn chain_series(m: &Measurement) -> Vec<Series> {
    m.chains
        .iter()
        .map(|c| {
            let reads = c.reads.to_string();
            series(
                &[
                    ("part", c.part),
                    ("case", &c.case),
                    ("mask", &c.mask),
                    ("pressure_reads", &reads),
                    ("tables", c.tables),
                    ("pressure_pages", c.pressure),
                ],
                "ns/lookup",
                c.ns.clone(),
            )
        })
        .collect()
}

pub(super) fn analyse(m: &Measurement) -> Analysis {
    let top_reads = m.pressure_reads.last().copied().unwrap_or(0);
    let mut claims = Claims::new(m.threshold, m.invocations);
    let chains = chains::Chains::of(m, top_reads);
    let dose = dose::Dose::of(m, top_reads);
    let survival = survival::Survival::of(m);
    let pages = pages::Pages::of(m, top_reads, &mut claims);
    let bracket = bracket::Brackets::of(m);
    let controls = (chains.failed_controls(), chains.bias_bounds());
    let verdict = verdict::Verdict::of(m, top_reads, &pages, &dose, controls.clone(), &mut claims);
    let estimators = estimator::Estimators::of(m, top_reads, controls);
    let unpressed = unpressed::Unpressed::of(m);

    let mut series = chain_series(m);
    series.extend(survival::raw_series(m));
    series.extend(reuse::raw_series(m));
    series.extend(bracket::raw_series(m));

    let mut plots = vec![chains.plot(m)];
    plots.extend(dose.plot(m, top_reads));
    plots.extend(reuse::plot(m));
    plots.extend(survival.plot(m));
    plots.extend(bracket.plot(m));

    let mut tables = chains.tables(m, top_reads).to_vec();
    tables.extend(dose.table(m));
    tables.extend(reuse::table(m));
    tables.extend(survival.tables(m));
    tables.extend(pages.table());
    tables.extend(unpressed.table(m));
    tables.extend(bracket.table(m));

    let mut summary: Vec<(String, Json)> = vec![
        // The pressure buffer's bytes (what the reads are drawn from), and what the top count's
        // reads insert per node.
        ("pressure_max_bytes".into(), json!(m.pressure_bytes)),
        (
            "pressure_inserted_bytes_per_node_max".into(),
            json!(top_reads as u64 * 64),
        ),
        ("pressure_reads_max".into(), json!(top_reads)),
        (
            "last_level_bytes".into(),
            json!(m.levels.last_level_bytes()),
        ),
    ];
    summary.extend(chains.summary(top_reads));
    summary.extend(survival.summary(m));
    summary.push(("table_pages".into(), pages.summary(top_reads)));
    summary.push(("table_pages_phase_control".into(), pages.phase_summary()));
    summary.push(("sweep_pages".into(), pages::sweep_summary(m)));
    summary.push(("reuse".into(), reuse::summary(m)));
    // Each invocation's order: its pressure counts, and per timing call its cases' blocks.
    summary.push((
        "orders".into(),
        json!({"pressure": m.pressure_orders, "blocks": m.block_orders}),
    ));
    summary.push(("order".into(), order_summary(m)));
    summary.extend(verdict.summary());
    summary.push((
        "answer".into(),
        answer::summary(&verdict, &chains.positive, top_reads),
    ));
    summary.push(("estimator".into(), estimators.summary(&verdict)));
    summary.push(("unpressed".into(), unpressed.summary()));

    Analysis {
        series,
        plots,
        tables,
        summary,
        claims,
        numbers: Numbers {
            top_reads,
            chains,
            dose,
            survival,
            pages,
            bracket,
            verdict,
            estimators,
            unpressed,
        },
    }
}

/// The summary's `order` (science-hardening item 3): randomised, from which seed, and per
/// invocation the order its sweep took the pressure counts in and each timing call's block
/// order (first pass; the second reverses it), CPUs left to `orders.blocks`.
fn order_summary(m: &Measurement) -> Json {
    let mut invocations: Vec<usize> = m.block_orders.iter().map(|o| o.invocation).collect();
    invocations.sort_unstable();
    invocations.dedup();
    let per_invocation: Vec<Json> = invocations
        .iter()
        .enumerate()
        .map(|(position, &invocation)| {
            let blocks: Vec<Json> = m
                .block_orders
                .iter()
                .filter(|o| o.invocation == invocation)
                .map(|o| json!({"label": o.label, "cases": o.cases}))
                .collect();
            json!({
                "invocation": invocation,
                "pressure": m.pressure_orders.get(position),
                "blocks": blocks,
            })
        })
        .collect();
    json!({
        "randomised": true,
        "seed": m.order_seed.value,
        // The seed may exceed 2^53: readers that hold JSON numbers as doubles lose its last digits.
        "seed_hex": format!("{:#018x}", m.order_seed.value),
        // Drawn for this run, or given (`--order-seed`) to reproduce one.
        "seed_source": m.order_seed.source.name(),
        "per_invocation": per_invocation,
    })
}
