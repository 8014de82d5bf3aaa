//! E11's analysis: ns per node per cell, the differences D with their intervals, the
//! controls, the rule's verdicts, page and TT costs, the best backend per evaluation.

use super::components::{components, Components};
use super::measure::{Cell, Measurement, TablePages};
pub(super) use super::rule_v8::RULE_PAIR;
use super::rule_v8::{self as rule, Interval, Verdict, NEGATIVE, TWIN};
use crate::answers::{ControlTest, Reading};
use crate::experiments::claims::Claims;
use crate::experiments::{
    blocks, interval, interval_linear, interval_point, ranked, series, typical,
};
use crate::results::{PairRecord, Plot, PlotKind, PlotLine, Series, Table};
use crate::stats::{format_interval, format_sig, Claim, Estimate};
use kiki_engine::search::eval::EvalKind;
use serde_json::{json, Value as Json};

/// The pairs whose D the report gives: (first, second), D = t(second) − t(first).
pub(super) const PAIRS: [(&str, &str); 5] = [
    ("dbb", "magic-plain"),
    ("dbb", "magic"),
    ("dbb", "pext"),
    ("bonanza", "magic"),
    ("bonanza", "pext"),
];

/// One difference in ns per node with its interval.
#[derive(Clone, Debug)]
pub(super) struct Difference {
    pub eval: EvalKind,
    pub first: String,
    pub second: String,
    /// The rule's 90 % interval over its units.
    pub interval: Interval,
    /// Under nnue and kpp: t(second) − t(first) under the evaluation alone (material's
    /// difference not taken out), by the same estimator: what an engine on it pays.
    pub raw: Option<Interval>,
    /// The per-round differences' noise within and between processes.
    pub components: Components,
    pub estimate: Estimate,
    pub rounds: usize,
    /// Each invocation's mean sample (the rule's unit): where a control fails, whether it is
    /// the spread within processes or between them.
    pub invocation_means: Vec<f64>,
}

pub(super) struct Analysis {
    pub series: Vec<Series>,
    pub tables: Vec<Table>,
    pub plots: Vec<Plot>,
    pub comparisons: Vec<PairRecord>,
    pub numbers: Numbers,
}

/// What the findings and the summary quote.
pub(super) struct Numbers {
    /// T per evaluation: the rule's share of t(dbb) under it, in ns per node at the
    /// reference t(dbb) ([`rule::reference_ns`]).
    pub thresholds: Vec<(EvalKind, f64)>,
    /// Per evaluation: the reference t(dbb) every D is quoted at, ns per node.
    pub references: Vec<(EvalKind, f64)>,
    /// D (nnue, kpp) or the plain difference (material) for each pair.
    pub differences: Vec<Difference>,
    pub aa: Vec<Difference>,
    pub negative: Vec<Difference>,
    /// Every control as the rule judged it (v8: a bias test, Holm; no width gate), with its
    /// evaluation and kind (`aa` or `negative`).
    pub controls: Vec<(EvalKind, &'static str, ControlTest)>,
    pub controls_passed: bool,
    /// The failed controls, in words.
    pub failed_controls: Vec<String>,
    pub verdicts: Vec<(EvalKind, Verdict)>,
    /// Per evaluation (nnue, kpp): the control of the raw difference (what an engine pays),
    /// the A/A under the evaluation alone, judged as every control is (Holm over these): the
    /// raw figure is withheld where it fails.
    pub raw_controls: Vec<(EvalKind, ControlTest)>,
    /// Per evaluation: the fastest backend and how far the next one is.
    pub best: Vec<(EvalKind, String, Separation)>,
    /// Per evaluation at the ranking cell (or the top cell): (backend, ns per node).
    pub ns_per_node: Vec<(EvalKind, Vec<(String, f64)>)>,
    /// Per backend and evaluation: t(4 KiB tables) − t(2 MiB tables), ns per node.
    pub page_costs: Vec<Cost>,
    /// Per evaluation, for the rule's pair: t(largest TT) − t(smallest TT), ns per node.
    pub tt_costs: Vec<Cost>,
}

impl Numbers {
    /// T under `eval` (NaN where t(dbb) was not measured).
    pub fn threshold(&self, eval: EvalKind) -> f64 {
        self.thresholds
            .iter()
            .find(|(e, _)| *e == eval)
            .map_or(f64::NAN, |&(_, t)| t)
    }

    /// The rule's D (or the plain difference under material) for the rule's pair.
    pub fn rule_difference(&self, eval: EvalKind) -> Option<&Difference> {
        self.differences
            .iter()
            .find(|d| d.eval == eval && (d.first.as_str(), d.second.as_str()) == RULE_PAIR)
    }

    /// The raw difference's control under `eval` (the A/A under the evaluation alone).
    pub fn raw_control(&self, eval: EvalKind) -> Option<&ControlTest> {
        self.raw_controls
            .iter()
            .find(|(e, _)| *e == eval)
            .map(|(_, t)| t)
    }

    /// The controls that bound `eval`'s differences (rule v8): its A/A, and under nnue and
    /// kpp its negative control.
    pub fn bounding_controls(&self, eval: EvalKind) -> Vec<&ControlTest> {
        self.controls
            .iter()
            .filter(|(e, _, _)| *e == eval)
            .map(|(_, _, t)| t)
            .collect()
    }

    /// `d`'s interval widened by its evaluation's controls (rule v8's bounded interval).
    pub fn bounded(&self, d: &Difference) -> Interval {
        rule::bounded(&d.interval, &self.bounding_controls(d.eval))
    }

    /// How far the rule's deciding bound lies beyond T for `d`, ns per node (rule v6's
    /// margin on v8's bounded interval).
    pub fn margin(&self, d: &Difference) -> f64 {
        rule::margin(&self.bounded(d), self.threshold(d.eval))
    }

    /// How a difference's bounded interval reads at its evaluation's T, withheld where a
    /// control failed.
    pub fn reading(&self, d: &Difference) -> Reading {
        let bounded = self.bounded(d);
        Reading::of(
            bounded.low,
            bounded.high,
            self.threshold(d.eval),
            self.controls_passed,
        )
    }
}

/// A secondary cell against a verdict's cell, one value per invocation that measured both.
#[derive(Clone, Debug)]
pub(super) struct Cost {
    pub backend: String,
    pub eval: EvalKind,
    pub estimate: Estimate,
    /// The invocations the interval is over.
    pub invocations: usize,
}

impl Cost {
    /// Over one value per invocation, each its own block.
    fn over_invocations(backend: String, eval: EvalKind, values: &[(usize, f64)]) -> Cost {
        let values: Vec<f64> = values.iter().map(|&(_, v)| v).collect();
        Cost {
            backend,
            eval,
            estimate: interval_linear(&values, values.len()),
            invocations: values.len(),
        }
    }
}

/// Per invocation that measured both (its index): `a`'s first round there less `b`'s.
fn first_rounds_less(
    m: &Measurement,
    (a, a_backend): (Cell, &str),
    (b, b_backend): (Cell, &str),
) -> Option<Vec<(usize, f64)>> {
    let firsts = |cell: Cell, backend: &str| -> Option<Vec<(usize, f64)>> {
        let row = m.row(cell, backend, false)?;
        Some(
            row.blocks(m.invocations)
                .into_iter()
                .filter_map(|(i, block)| Some((i, *block.first()?)))
                .collect(),
        )
    };
    let (a, b) = (firsts(a, a_backend)?, firsts(b, b_backend)?);
    Some(paired_by_invocation(&a, &b, |x, y| x - y))
}

/// `f(a, b)` for every invocation in both lists.
fn paired_by_invocation(
    a: &[(usize, f64)],
    b: &[(usize, f64)],
    f: impl Fn(f64, f64) -> f64,
) -> Vec<(usize, f64)> {
    a.iter()
        .filter_map(|&(i, x)| {
            let &(_, y) = b.iter().find(|(j, _)| *j == i)?;
            Some((i, f(x, y)))
        })
        .collect()
}

fn estimate_of(i: Interval) -> Estimate {
    Estimate {
        value: i.value,
        low: i.low,
        high: i.high,
    }
}

/// Per invocation, per round both entries ran: t(second) − t(first) in `cell`, minus the
/// same in `base` when given (D); then the rule's sample, the mean of each forward and reverse
/// pair of rounds. Invocations one after another, each with as many samples.
fn paired(
    m: &Measurement,
    cell: Cell,
    base: Option<Cell>,
    (first, first_twin): (&str, bool),
    (second, second_twin): (&str, bool),
) -> Option<(Vec<f64>, Vec<Vec<f64>>)> {
    let k = m.invocations;
    // Per invocation: the per-round differences (rounds both sides ran).
    let diff = |cell: Cell| -> Option<Vec<Vec<f64>>> {
        let a = blocks(m.samples(cell, first, first_twin)?, k);
        let b = blocks(m.samples(cell, second, second_twin)?, k);
        (a.len() == b.len()).then(|| {
            a.iter()
                .zip(&b)
                .map(|(a, b)| a.iter().zip(b).map(|(a, b)| b - a).collect())
                .collect()
        })
    };
    let here = diff(cell)?;
    let per_round: Vec<Vec<f64>> = match base {
        None => here,
        Some(base) => {
            let there = diff(base)?;
            if there.len() != here.len() {
                return None;
            }
            here.iter()
                .zip(&there)
                .map(|(h, t)| h.iter().zip(t).map(|(h, t)| h - t).collect())
                .collect()
        }
    };
    // Rule v6: each process's differences as shares of its own t(dbb) under the cell's
    // evaluation, quoted in ns at the reference.
    let own = process_references(m, cell)?;
    if own.len() != per_round.len() {
        return None;
    }
    let reference = rule::reference_ns(&own);
    let per_round: Vec<Vec<f64>> = per_round
        .iter()
        .zip(&own)
        .map(|(rounds, &own)| rule::in_reference_ns(rounds, own, reference))
        .collect();
    let samples: Vec<Vec<f64>> = per_round.iter().map(|r| rule::pair_means(r)).collect();
    let per_invocation = samples.first()?.len();
    (per_invocation > 0 && samples.iter().all(|s| s.len() == per_invocation))
        .then(|| (samples.concat(), per_round))
}

/// Per process: the rule's t(dbb) in `cell` (the mean of dbb's rounds there).
fn process_references(m: &Measurement, cell: Cell) -> Option<Vec<f64>> {
    let rounds = m.samples(cell, TWIN, false)?;
    Some(
        blocks(rounds, m.invocations)
            .iter()
            .map(|r| rule::process_reference(r))
            .collect(),
    )
}

fn difference(
    m: &Measurement,
    eval: EvalKind,
    top: (usize, TablePages),
    first: (&str, bool),
    second: (&str, bool),
) -> Option<Difference> {
    let cell = Cell::new(eval, top.0, top.1);
    let base = (eval != EvalKind::Material).then_some(Cell::new(EvalKind::Material, top.0, top.1));
    let (samples, per_round) = paired(m, cell, base, first, second)?;
    let per_invocation = blocks(&samples, m.invocations);
    let name = |(b, twin): (&str, bool)| {
        if twin {
            format!("{b} (twin)")
        } else {
            b.to_string()
        }
    };
    let interval = rule::interval_over_units(&per_invocation);
    // What an engine on this evaluation pays: the same difference without material's taken out.
    let raw = base
        .and_then(|_| paired(m, cell, None, first, second))
        .map(|(raw, _)| rule::interval_over_units(&blocks(&raw, m.invocations)));
    Some(Difference {
        eval,
        first: name(first),
        second: name(second),
        interval,
        raw,
        components: components(&per_round),
        estimate: estimate_of(interval),
        // Each sample is a forward and reverse pair of rounds.
        rounds: samples.len() * 2,
        invocation_means: per_invocation
            .iter()
            .filter(|b| !b.is_empty())
            .map(|b| b.iter().sum::<f64>() / b.len() as f64)
            .collect(),
    })
}

pub(super) fn analyse(m: &Measurement) -> Analysis {
    let evals: Vec<EvalKind> = EvalKind::ALL
        .into_iter()
        .filter(|e| m.cells.iter().any(|c| c.eval == *e))
        .collect();
    let top = (m.largest_tt(), TablePages::Huge);
    let top_cell = |eval| Cell::new(eval, top.0, top.1);
    let series = m
        .rows
        .iter()
        .map(|r| {
            let backend = if r.twin {
                format!("{} (twin)", r.backend)
            } else {
                r.backend.to_string()
            };
            series(
                &[
                    ("backend", &backend),
                    ("eval", r.cell.eval.name()),
                    ("tt_mib", &r.cell.tt_mib.to_string()),
                    ("table_pages", r.cell.pages.name()),
                ],
                "ns/node",
                r.ns_per_node.clone(),
            )
        })
        .collect();
    let references: Vec<(EvalKind, f64)> = evals
        .iter()
        .map(|&eval| {
            let own = process_references(m, top_cell(eval)).unwrap_or_default();
            (eval, rule::reference_ns(&own))
        })
        .collect();
    // T is the rule's share, not the command line's `--threshold` (that one judges the ranking).
    let thresholds: Vec<(EvalKind, f64)> = references
        .iter()
        .map(|&(eval, reference)| (eval, rule::threshold_ns(reference)))
        .collect();
    let threshold = |eval: EvalKind| {
        thresholds
            .iter()
            .find(|(e, _)| *e == eval)
            .map_or(f64::NAN, |&(_, t)| t)
    };
    let mut differences = Vec::new();
    let mut aa = Vec::new();
    let mut negative = Vec::new();
    for &eval in &evals {
        for (first, second) in PAIRS {
            differences.extend(difference(m, eval, top, (first, false), (second, false)));
        }
        aa.extend(difference(m, eval, top, (TWIN, false), (TWIN, true)));
        negative.extend(difference(
            m,
            eval,
            top,
            (NEGATIVE.0, false),
            (NEGATIVE.1, false),
        ));
    }
    let controls = judged_controls(&aa, &negative);
    let raw_controls = raw_controls(&aa);
    let failed_controls: Vec<String> = controls.iter().filter_map(|(_, _, t)| t.why()).collect();
    let controls_passed = !controls.is_empty() && failed_controls.is_empty() && m.errors.is_empty();
    let verdicts = evals
        .iter()
        .filter(|&&e| e != EvalKind::Material)
        .map(|&eval| {
            let d = differences
                .iter()
                .find(|d| d.eval == eval && (d.first.as_str(), d.second.as_str()) == RULE_PAIR);
            let bounding: Vec<&ControlTest> = controls
                .iter()
                .filter(|(e, _, _)| *e == eval)
                .map(|(_, _, t)| t)
                .collect();
            let verdict = d.map_or(Verdict::NotResolved, |d| {
                let bounded = rule::bounded(&d.interval, &bounding);
                rule::decide(&bounded, threshold(eval), controls_passed)
            });
            let verdict = if controls_passed {
                verdict
            } else {
                Verdict::Withheld
            };
            (eval, verdict)
        })
        .collect();
    let ranked_invocations = evals
        .first()
        .and_then(|&e| m.ranking_cell(e))
        .map_or(m.invocations, |c| m.invocations_of(c));
    let mut claims = Claims::new(m.threshold, ranked_invocations);
    let ranked_cell = |eval| m.ranking_cell(eval).unwrap_or(top_cell(eval));
    let best = evals
        .iter()
        .filter_map(|&e| best_backend(m, ranked_cell(e), &mut claims))
        .collect();
    let ns_per_node = evals
        .iter()
        .map(|&e| {
            let values = m
                .backends
                .iter()
                .filter_map(|&b| {
                    m.samples(ranked_cell(e), b, false)
                        .map(|s| (b.to_string(), typical(s, m.invocations_of(ranked_cell(e)))))
                })
                .collect();
            (e, values)
        })
        .collect();
    let page_costs = page_costs(m, &evals, top.0);
    let tt_costs = tt_costs(m, &evals);
    let numbers = Numbers {
        thresholds,
        references,
        differences,
        aa,
        negative,
        controls,
        controls_passed,
        failed_controls,
        verdicts,
        raw_controls,
        best,
        ns_per_node,
        page_costs,
        tt_costs,
    };
    Analysis {
        series,
        tables: vec![
            time_table(m, &evals),
            difference_table(&numbers),
            page_table(&numbers),
        ],
        plots: vec![plot(m, &evals, ranked_cell)],
        comparisons: claims.records,
        numbers,
    }
}

/// The raw differences' controls: each evaluation's A/A under the evaluation alone (material's
/// not taken out), judged as every control is (for bias), Holm over these.
fn raw_controls(aa: &[Difference]) -> Vec<(EvalKind, ControlTest)> {
    let raw_aa: Vec<(EvalKind, Interval)> =
        aa.iter().filter_map(|d| Some((d.eval, d.raw?))).collect();
    let names: Vec<(String, Interval)> = raw_aa
        .iter()
        .map(|(eval, i)| (format!("dbb vs dbb (twin) under {} alone", eval.name()), *i))
        .collect();
    let tests = rule::judge_controls(&names);
    raw_aa.iter().map(|(eval, _)| *eval).zip(tests).collect()
}

/// The controls as rule v8 judges them (v5's set, for bias alone): the A/A under every
/// evaluation, the negative control's D under nnue and kpp (under material its plain
/// difference is the two mailboxes' own speeds, no control), Holm over all of them.
fn judged_controls(
    aa: &[Difference],
    negative: &[Difference],
) -> Vec<(EvalKind, &'static str, ControlTest)> {
    let named: Vec<(&'static str, &Difference)> = aa
        .iter()
        .map(|d| ("aa", d))
        .chain(
            negative
                .iter()
                .filter(|d| d.eval != EvalKind::Material)
                .map(|d| ("negative", d)),
        )
        .collect();
    let judged = rule::judge_controls(
        &named
            .iter()
            .map(|(_, d)| {
                let what = format!("{} vs {} under {}", d.first, d.second, d.eval.name());
                (what, d.interval)
            })
            .collect::<Vec<_>>(),
    );
    named
        .iter()
        .zip(judged)
        .map(|((kind, d), test)| (d.eval, *kind, test))
        .collect()
}

/// The fastest backend in `cell` and its margin over the next one (`None` margin: level).
fn best_backend(
    m: &Measurement,
    cell: Cell,
    claims: &mut Claims,
) -> Option<(EvalKind, String, Separation)> {
    let entries: Vec<(&str, f64)> = m
        .backends
        .iter()
        .filter_map(|&b| {
            m.samples(cell, b, false)
                .map(|s| (b, typical(s, m.invocations_of(cell))))
        })
        .collect();
    let order = ranked(&entries);
    let (best, _) = *order.first()?;
    let (next, _) = *order.get(1)?;
    let label = format!("{} TT {} MiB", cell.eval.name(), cell.tt_mib);
    let c = claims.compare(
        &label,
        (next, m.samples(cell, next, false)?),
        (best, m.samples(cell, best, false)?),
    )?;
    let ratio = format!("×{:.3} [{:.3}–{:.3}]", c.ratio, c.low, c.high);
    let separation = if c.claim == Claim::Slower {
        Separation::Decided(format!("{next} takes {ratio} its time"))
    } else if c.within(m.threshold) {
        Separation::Level(format!("{next} against {best} {ratio}"))
    } else {
        Separation::NotSeparated(format!("{next} against {best} {ratio}"))
    };
    Some((cell.eval, best.to_string(), separation))
}

/// How far the fastest backend is from the next: decided beyond the threshold, level (the
/// whole interval inside ±threshold), or not separated (the interval reaches across it).
pub(super) enum Separation {
    Decided(String),
    Level(String),
    NotSeparated(String),
}

impl Separation {
    /// What the summary's `best` says: the backend, `level` or `not separated`.
    pub fn summary(&self, best: &str) -> String {
        match self {
            Separation::Decided(_) => best.to_string(),
            Separation::Level(_) => "level".to_string(),
            Separation::NotSeparated(_) => "not separated".to_string(),
        }
    }
}

/// Per backend and evaluation at the largest TT: t(4 KiB tables) − t(2 MiB tables), per
/// invocation that measured the 4 KiB phase (its first round of each; that phase always runs
/// first), minus the same for the table-free backends (the mean of `sqww` and `mailbox`, whose
/// pages cannot matter): what drift between the two phases moved is taken out.
fn page_costs(m: &Measurement, evals: &[EvalKind], tt_mib: usize) -> Vec<Cost> {
    let contrast = |backend: &str, eval: EvalKind| {
        let cell = |pages| Cell::new(eval, tt_mib, pages);
        first_rounds_less(
            m,
            (cell(TablePages::Small), backend),
            (cell(TablePages::Huge), backend),
        )
    };
    let mut costs = Vec::new();
    for &eval in evals {
        let drift = match (contrast(NEGATIVE.0, eval), contrast(NEGATIVE.1, eval)) {
            (Some(a), Some(b)) => paired_by_invocation(&a, &b, |a, b| (a + b) / 2.0),
            _ => continue,
        };
        for &backend in &m.backends {
            if backend == NEGATIVE.0 || backend == NEGATIVE.1 {
                continue;
            }
            let Some(raw) = contrast(backend, eval) else {
                continue;
            };
            let adjusted = paired_by_invocation(&raw, &drift, |r, d| r - d);
            // A backend whose tables got no 2 MiB page compares 4 KiB with 4 KiB: a null contrast.
            let collapsed = m.table_placements.iter().any(|(b, pages, placed)| {
                b == backend
                    && *pages == TablePages::Huge
                    && placed.outcome.is_ok()
                    && placed.huge_after.unwrap_or(0) > 0
            });
            let name = if collapsed {
                backend.to_string()
            } else {
                format!("{backend} (no table on 2 MiB pages: a null contrast)")
            };
            costs.push(Cost::over_invocations(name, eval, &adjusted));
        }
    }
    costs
}

/// For the rule's pair per evaluation: t(largest TT) − t(smallest TT) on 2 MiB table pages,
/// each invocation's first round of both (one value per invocation that measured both).
fn tt_costs(m: &Measurement, evals: &[EvalKind]) -> Vec<Cost> {
    let smallest = m.cells.iter().map(|c| c.tt_mib).min().unwrap_or(0);
    let largest = m.largest_tt();
    if smallest == largest {
        return Vec::new();
    }
    let mut costs = Vec::new();
    for &eval in evals {
        for backend in [RULE_PAIR.0, RULE_PAIR.1] {
            let cell = |tt_mib| Cell::new(eval, tt_mib, TablePages::Huge);
            let Some(values) =
                first_rounds_less(m, (cell(largest), backend), (cell(smallest), backend))
            else {
                continue;
            };
            if !values.is_empty() {
                costs.push(Cost::over_invocations(backend.to_string(), eval, &values));
            }
        }
    }
    costs
}

/// A row per backend, a column per cell, in ns per node.
fn time_table(m: &Measurement, evals: &[EvalKind]) -> Table {
    let cells: Vec<Cell> = evals
        .iter()
        .flat_map(|&e| m.cells.iter().copied().filter(move |c| c.eval == e))
        .collect();
    let mut headers = vec!["backend".to_string()];
    headers.extend(cells.iter().map(|&c| {
        let over = m.invocations_of(c);
        let some = if over < m.invocations {
            format!(" ({over} of {} invocations)", m.invocations)
        } else {
            String::new()
        };
        format!(
            "{} TT {} MiB, tables {}{}: ns/node{some}",
            c.eval.name(),
            c.tt_mib,
            c.pages.name(),
            if c.ranking { " (ranking)" } else { "" }
        )
    }));
    let mut names: Vec<(&str, bool)> = m.backends.iter().map(|&b| (b, false)).collect();
    names.push((TWIN, true));
    let rows = names
        .iter()
        .filter(|(b, twin)| cells.iter().any(|&c| m.samples(c, b, *twin).is_some()))
        .map(|&(b, twin)| {
            let mut row = vec![if twin {
                format!("{b} (A/A twin)")
            } else {
                b.to_string()
            }];
            row.extend(cells.iter().map(|&c| {
                m.row(c, b, twin).map_or("–".to_string(), |r| {
                    format_interval(&interval(&r.ns_per_node, r.invocation_count(m.invocations)))
                })
            }));
            row
        })
        .collect();
    Table { headers, rows }
}

/// D per pair and evaluation (the plain difference under material), and the controls.
fn difference_table(n: &Numbers) -> Table {
    let headers = [
        "pair",
        "evaluation",
        "ns per node [90 %]",
        "half-width, ns",
        "bounded by its controls (what the reading reads), ns",
        "T, ns",
        "rounds (the interval's unit: pairs of processes)",
        "reads as (two-sided, as `kiki compare` reads; the verdict is one-sided)",
    ]
    .map(String::from)
    .to_vec();
    let control = |d: &Difference| {
        n.controls.iter().find(|(e, _, t)| {
            *e == d.eval && t.name == format!("{} vs {} under {}", d.first, d.second, d.eval.name())
        })
    };
    let rows = n
        .differences
        .iter()
        .map(|d| (d, ""))
        .chain(n.aa.iter().map(|d| (d, " (A/A control)")))
        .chain(n.negative.iter().map(|d| (d, " (negative control)")))
        .map(|(d, role)| {
            let reads = match control(d) {
                Some((_, _, test)) if test.failed => {
                    format!("failed ({})", test.why().unwrap_or_default())
                }
                Some((_, _, test)) => format!("passed (Holm p = {:.2})", test.p),
                None if role.is_empty() => n.reading(d).words().to_string(),
                None => "no control under material".to_string(),
            };
            vec![
                format!("{} vs {}{role}", d.first, d.second),
                if d.eval == EvalKind::Material {
                    "material (plain difference)".to_string()
                } else {
                    format!("{} (D)", d.eval.name())
                },
                format_interval(&d.estimate),
                format_sig(d.interval.half_width()),
                // Controls are not bounded; a pair's reading reads its bounded interval.
                if role.is_empty() {
                    let b = n.bounded(d);
                    format!(
                        "[{}–{}] (±{})",
                        format_sig(b.low),
                        format_sig(b.high),
                        format_sig(b.half_width())
                    )
                } else {
                    "—".to_string()
                },
                format_sig(n.threshold(d.eval)),
                format!(
                    "{} ({} processes, {} pairs)",
                    d.rounds,
                    d.invocation_means.len(),
                    d.invocation_means.len().div_ceil(2)
                ),
                reads,
            ]
        })
        .collect();
    Table { headers, rows }
}

fn page_table(n: &Numbers) -> Table {
    let headers = [
        "backend",
        "evaluation",
        "t(4 KiB tables) − t(2 MiB tables), ns/node [95 %]",
        "invocations",
    ]
    .map(String::from)
    .to_vec();
    let rows = n
        .page_costs
        .iter()
        .map(|c| {
            vec![
                c.backend.clone(),
                c.eval.name().to_string(),
                format_interval(&c.estimate),
                c.invocations.to_string(),
            ]
        })
        .collect();
    Table { headers, rows }
}

/// A bar per backend and evaluation at the top cell.
fn plot(m: &Measurement, evals: &[EvalKind], top_cell: impl Fn(EvalKind) -> Cell) -> Plot {
    let lines = m
        .backends
        .iter()
        .map(|&b| PlotLine {
            name: b.to_string(),
            points: evals
                .iter()
                .enumerate()
                .filter_map(|(i, &e)| {
                    m.samples(top_cell(e), b, false).map(|s| {
                        let over = m.invocations_of(top_cell(e));
                        interval_point(i as f64, &interval(s, over))
                    })
                })
                .collect(),
        })
        .filter(|l| !l.points.is_empty())
        .collect();
    Plot {
        file_stem: "e11-search".to_string(),
        title: format!(
            "E11 search: ns per node (TT {} MiB, tables on 2 MiB pages)",
            m.largest_tt()
        ),
        x_label: "evaluation".to_string(),
        y_label: "ns per node (lower is better)".to_string(),
        log_x: false,
        log_y: false,
        kind: PlotKind::Bar,
        categories: evals.iter().map(|e| e.name().to_string()).collect(),
        markers: Vec::new(),
        lines,
    }
}

/// `{ns, low, high}`.
pub(super) fn triple(e: &Estimate) -> Json {
    json!({"ns": e.value, "low": e.low, "high": e.high})
}
