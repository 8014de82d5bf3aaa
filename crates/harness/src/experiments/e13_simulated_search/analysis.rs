//! E13's analysis: per-node counts, D_sim over the sweep, its price, the knee and the rule's
//! verdict, checked against E11's measured D and E7's prediction; the summary as a typed value.

use super::measure::{CellCounts, Measurement, RULE_PAIR};
use super::per_file::Part;
use super::reference::{memory_minus_last_level_ns, Interval};
use super::rule::{self, Priced, Verdict};
use super::trace::TableTrace;
use kiki_engine::search::eval::EvalKind;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The commit that holds `rule.rs` as this build applies it (committed before E13's first
/// full run).
pub const RULE_COMMIT: &str = "71f013838dc063f7aa193afb86b7ec4bbfcbb29b";
pub const RULE_VERSION: u32 = 1;

/// The evaluations with a D (under `material` D_sim is zero by construction).
pub const D_EVALS: [EvalKind; 2] = [EvalKind::Nnue, EvalKind::Kpp];

/// The summary's `misses_per_node` record: per node of the measured positions.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PerNode {
    pub refs: f64,
    pub l1: f64,
    pub ll: f64,
    pub attack_tables: f64,
    pub eval: f64,
    pub tt: f64,
    pub other: f64,
}

impl PerNode {
    pub fn of(cell: &CellCounts) -> PerNode {
        let per = |count: i64| count as f64 / cell.nodes.max(1) as f64;
        let ll = |part: Part| per(cell.part(part).ll_misses());
        PerNode {
            refs: per(cell.totals.references()),
            l1: per(cell.totals.l1_misses()),
            ll: per(cell.totals.ll_misses()),
            attack_tables: ll(Part::AttackTables),
            eval: ll(Part::Eval),
            tt: ll(Part::Tt),
            other: ll(Part::Other),
        }
    }
}

/// The prices of one last-level miss at hand (ns), each named.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Prices {
    /// E6's memory latency less its last level's.
    pub memory_minus_l3_ns: Option<f64>,
    /// E7's in-situ table-miss cost of magic-plain (per lookup, at its top pressure).
    pub e7_in_situ_ns: Option<f64>,
}

impl Prices {
    fn list(&self) -> Vec<f64> {
        [self.memory_minus_l3_ns, self.e7_in_situ_ns]
            .into_iter()
            .flatten()
            .collect()
    }
}

/// `{misses, ns_low, ns_high}` of the summary's `d_sim`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct DSim {
    pub misses: f64,
    pub ns_low: Option<f64>,
    pub ns_high: Option<f64>,
}

/// `{low, high}`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Range {
    pub low: f64,
    pub high: f64,
}

/// Whether each prediction lies in E11's measured interval (`None`: no E11, or no prediction).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Consistent {
    pub e13: Option<bool>,
    pub e7: Option<bool>,
}

/// One evaluation's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalAnswer {
    pub eval: &'static str,
    pub threshold_ns: f64,
    /// `E11` or `E13's native timing`.
    pub threshold_source: &'static str,
    pub priced: Option<Priced>,
    pub verdict: Option<Verdict>,
    /// The verdicts at the smallest and the largest L3 E6's invocations saw.
    pub verdict_range: Vec<(usize, Verdict)>,
    pub knee_bytes: Option<usize>,
    pub sensitive: bool,
    /// E7's isolated magic-plain − dbb per lookup (with its interval) times the lookups per
    /// node.
    pub e7_predicted: Option<Interval>,
    pub e11_d: Option<Interval>,
    pub consistent: Consistent,
}

/// Everything E13 concludes, from its one measurement.
pub struct Analysis<'m> {
    pub m: &'m Measurement,
    pub prices: Prices,
    /// The effective L3's sweep point, and the invocations' least and greatest.
    pub l3: Option<usize>,
    pub l3_range: Vec<usize>,
    pub answers: Vec<EvalAnswer>,
}

impl<'m> Analysis<'m> {
    pub fn of(m: &'m Measurement) -> Analysis<'m> {
        let prices = Prices {
            memory_minus_l3_ns: memory_minus_last_level_ns(m.cache_levels.as_ref()),
            e7_in_situ_ns: m.reference.e7.as_ref().map(|e7| e7.magic_plain_ns),
        };
        let point = |name: &str| m.levels.iter().find(|l| l.name == name).map(|l| l.point);
        let l3 = point("E6 L3");
        let l3_range: Vec<usize> = ["E6 L3 (smallest invocation)", "E6 L3 (largest invocation)"]
            .into_iter()
            .filter_map(point)
            .collect();
        let mut analysis = Analysis {
            m,
            prices,
            l3,
            l3_range,
            answers: Vec::new(),
        };
        analysis.answers = D_EVALS
            .into_iter()
            .filter(|&eval| m.cells.iter().any(|c| c.eval == eval))
            .map(|eval| analysis.answer(eval))
            .collect();
        analysis
    }

    /// Per node in one cell.
    pub fn per_node(&self, backend: &str, eval: EvalKind, ll: usize) -> Option<PerNode> {
        self.m.cell(backend, eval, ll).map(PerNode::of)
    }

    /// `backend`'s extra last-level misses per node against dbb's, in one cell's search.
    pub fn extra(&self, backend: &str, eval: EvalKind, ll: usize) -> Option<f64> {
        Some(self.per_node(backend, eval, ll)?.ll - self.per_node("dbb", eval, ll)?.ll)
    }

    /// D_sim at one last level, in misses per node.
    pub fn d_sim_misses(&self, eval: EvalKind, ll: usize) -> Option<f64> {
        let [dbb, magic_plain] = RULE_PAIR;
        let ll_of = |backend: &str, eval| self.per_node(backend, eval, ll).map(|p| p.ll);
        Some(rule::d_sim(
            ll_of(magic_plain, eval)?,
            ll_of(dbb, eval)?,
            ll_of(magic_plain, EvalKind::Material)?,
            ll_of(dbb, EvalKind::Material)?,
        ))
    }

    pub fn d_sim(&self, eval: EvalKind, ll: usize) -> Option<DSim> {
        let misses = self.d_sim_misses(eval, ll)?;
        let priced = rule::price(misses, &self.prices.list());
        Some(DSim {
            misses,
            ns_low: priced.map(|p| p.ns_low),
            ns_high: priced.map(|p| p.ns_high),
        })
    }

    fn priced(&self, eval: EvalKind, ll: usize) -> Option<Priced> {
        rule::price(self.d_sim_misses(eval, ll)?, &self.prices.list())
    }

    /// T under `eval`: E11's where it ran, else 3 % of E13's native t(dbb).
    fn threshold(&self, eval: EvalKind) -> Option<(f64, &'static str)> {
        if let Some(e11) = self.m.reference.e11_under(eval.name()) {
            return Some((e11.threshold_ns, "E11"));
        }
        let native = self.m.native.iter().find(|n| n.eval == eval)?;
        Some((0.03 * native.dbb_ns, "E13's native timing"))
    }

    /// `backend`'s traced table lines (traced under one evaluation: every evaluation and every
    /// backend walks the same tree).
    pub fn trace(&self, backend: &str) -> Option<&TableTrace> {
        self.m
            .traces
            .iter()
            .map(|t| &t.trace)
            .find(|t| t.backend == backend)
    }

    /// Lookups per node of the search (the same under every evaluation and backend).
    pub fn lookups_per_node(&self) -> Option<f64> {
        self.m.traces.first().map(|t| t.trace.lookups_per_node())
    }

    fn answer(&self, eval: EvalKind) -> EvalAnswer {
        let (threshold_ns, threshold_source) = self.threshold(eval).unwrap_or((f64::NAN, "none"));
        let priced = self.l3.and_then(|l3| self.priced(eval, l3));
        let verdict = priced
            .filter(|_| threshold_ns.is_finite())
            .map(|p| rule::verdict(&p, threshold_ns));
        let verdict_range = self
            .l3_range
            .iter()
            .filter_map(|&ll| Some((ll, rule::verdict(&self.priced(eval, ll)?, threshold_ns))))
            .collect();
        let sweep: Vec<(usize, Priced)> = self
            .m
            .sizes()
            .into_iter()
            .filter_map(|ll| Some((ll, self.priced(eval, ll)?)))
            .collect();
        let knee_bytes = rule::knee(&sweep, threshold_ns);
        let e7_predicted = self
            .m
            .reference
            .e7
            .as_ref()
            .zip(self.lookups_per_node())
            .map(|(e7, lookups)| Interval {
                ns: e7.difference.ns * lookups,
                low: e7.difference.low * lookups,
                high: e7.difference.high * lookups,
            });
        let e11_d = self.m.reference.e11_under(eval.name()).map(|e| e.d);
        // A prediction is consistent where E11's interval meets its range: some value in it is
        // a D E11 does not exclude. E13's range is its two prices, E7's its own interval.
        let meets = |d: Interval, low: f64, high: f64| low <= d.high && d.low <= high;
        let consistent = Consistent {
            e13: e11_d
                .zip(priced)
                .map(|(d, p)| meets(d, p.ns_low, p.ns_high)),
            e7: e11_d
                .zip(e7_predicted)
                .map(|(d, x)| meets(d, x.low, x.high)),
        };
        EvalAnswer {
            eval: eval.name(),
            threshold_ns,
            threshold_source,
            priced,
            verdict,
            verdict_range,
            knee_bytes,
            sensitive: self.l3.is_some_and(|l3| rule::sensitive(knee_bytes, l3)),
            e7_predicted,
            e11_d,
            consistent,
        }
    }
}

/// E13's summary: the keys other tools read (docs/report.md), written and read by serde (the
/// first screen reads it back as this type).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub available: bool,
    pub rule_commit: String,
    pub rule_version: u32,
    pub effective_l3_bytes: Option<usize>,
    pub threshold_ns: BTreeMap<String, f64>,
    pub prices: Prices,
    pub verdict_by_eval: BTreeMap<String, Option<String>>,
    pub knee_bytes: BTreeMap<String, Option<usize>>,
    pub sensitive: BTreeMap<String, bool>,
    pub misses_per_node: BTreeMap<String, BTreeMap<String, BTreeMap<String, PerNode>>>,
    pub d_sim: BTreeMap<String, BTreeMap<String, DSim>>,
    pub predicted_d_ns: BTreeMap<String, Option<Range>>,
    pub e7_predicted_d_ns: BTreeMap<String, Option<f64>>,
    /// E7's prediction's interval (its magic-plain − dbb interval times the lookups a node).
    #[serde(default)]
    pub e7_predicted_d_range: BTreeMap<String, Option<Range>>,
    pub e11_consistent: BTreeMap<String, Consistent>,
    pub lookups_per_node: BTreeMap<String, Option<f64>>,
    pub positions: usize,
    pub depth: u32,
    pub tt_mib: usize,
    pub simulation_seconds: f64,
    pub failures: Vec<String>,
}

impl Analysis<'_> {
    /// One figure per evaluation with a D, keyed by its name.
    fn by_eval<T>(&self, figure: impl Fn(&EvalAnswer) -> T) -> BTreeMap<String, T> {
        self.answers
            .iter()
            .map(|a| (a.eval.to_string(), figure(a)))
            .collect()
    }

    pub fn summary(&self) -> Summary {
        let m = self.m;
        let mut misses_per_node: BTreeMap<String, BTreeMap<String, BTreeMap<String, PerNode>>> =
            BTreeMap::new();
        for cell in &m.cells {
            misses_per_node
                .entry(cell.backend.clone())
                .or_default()
                .entry(cell.eval.name().to_string())
                .or_default()
                .insert(cell.ll_bytes.to_string(), PerNode::of(cell));
        }
        let d_sim = self
            .answers
            .iter()
            .map(|a| {
                let eval = EvalKind::parse(a.eval).expect("an evaluation's own name");
                let by_size = m
                    .sizes()
                    .into_iter()
                    .filter_map(|ll| Some((ll.to_string(), self.d_sim(eval, ll)?)))
                    .collect();
                (a.eval.to_string(), by_size)
            })
            .collect();
        Summary {
            available: m.unavailable.is_none() && !m.cells.is_empty(),
            rule_commit: RULE_COMMIT.to_string(),
            rule_version: RULE_VERSION,
            effective_l3_bytes: self.l3,
            threshold_ns: self.by_eval(|a| a.threshold_ns),
            prices: self.prices.clone(),
            verdict_by_eval: self.by_eval(|a| a.verdict.map(|v| v.words().to_string())),
            knee_bytes: self.by_eval(|a| a.knee_bytes),
            sensitive: self.by_eval(|a| a.sensitive),
            misses_per_node,
            d_sim,
            predicted_d_ns: self.by_eval(|a| {
                a.priced.map(|p| Range {
                    low: p.ns_low,
                    high: p.ns_high,
                })
            }),
            e7_predicted_d_ns: self.by_eval(|a| a.e7_predicted.map(|x| x.ns)),
            e7_predicted_d_range: self.by_eval(|a| {
                a.e7_predicted.map(|x| Range {
                    low: x.low,
                    high: x.high,
                })
            }),
            e11_consistent: self.by_eval(|a| a.consistent),
            lookups_per_node: m
                .evals()
                .into_iter()
                .map(|e| (e.name().to_string(), self.lookups_per_node()))
                .collect(),
            positions: m.positions,
            depth: m.depth,
            tt_mib: m.tt_mib,
            simulation_seconds: m.simulation_seconds,
            failures: m.failures.clone(),
        }
    }
}
