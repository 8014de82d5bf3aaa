//! What E13 takes from the experiments that ran before it in the same report: E6's latencies
//! and levels (through the configuration's cache levels), E7's isolated table-miss cost and
//! E11's measured difference and threshold, each read from its summary into a typed value.

use crate::cache_levels::CacheLevels;
use crate::results::ExperimentResult;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A figure and its interval (ns).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub ns: f64,
    pub low: f64,
    pub high: f64,
}

impl Interval {
    pub fn contains(&self, x: f64) -> bool {
        self.low <= x && x <= self.high
    }

    pub fn half_width(&self) -> f64 {
        (self.high - self.low) / 2.0
    }
}

/// E7's isolated chain at its top pressure: each backend's table-miss cost per lookup (real
/// minus hot twin) and the verdict's magic-plain − dbb difference.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct E7Costs {
    pub magic_plain_ns: f64,
    pub dbb_ns: f64,
    /// magic-plain − dbb per lookup, bounded by its controls where E7 bounded it.
    pub difference: Interval,
    /// The evaluation reads per node between lookups (E7's pressure).
    pub pressure_reads: u64,
}

/// E11's measurement under one evaluation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct E11Eval {
    pub eval: String,
    /// t(dbb), ns per node.
    pub dbb_ns: f64,
    /// The rule's threshold T: 3 % of t(dbb).
    pub threshold_ns: f64,
    /// D (magic-plain − dbb under the evaluation, less the same under material) bounded by its
    /// controls, as E11's verdict reads it.
    pub d: Interval,
}

/// Everything E13 takes from earlier experiments of its report (each part `None` or empty
/// where that experiment did not run or its summary lacks the figure).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    pub e7: Option<E7Costs>,
    pub e11: Vec<E11Eval>,
}

impl Reference {
    /// Reads E7's and E11's figures from `results` (any order, others ignored).
    pub fn from_results(results: &[ExperimentResult]) -> Reference {
        let find = |id: &str| results.iter().find(|r| r.id == id);
        Reference {
            e7: find("E7").and_then(e7_costs),
            e11: find("E11").map(e11_evals).unwrap_or_default(),
        }
    }

    pub fn e11_under(&self, eval: &str) -> Option<&E11Eval> {
        self.e11.iter().find(|e| e.eval == eval)
    }
}

#[derive(Deserialize)]
struct E7Fields {
    table_miss_cost: BTreeMap<String, Interval>,
    pressure_reads_max: u64,
    answer: E7Answer,
}

#[derive(Deserialize)]
struct E7Answer {
    bounded_ns: Option<Interval>,
    magic_plain_minus_dbb_ns: Option<Interval>,
}

fn e7_costs(result: &ExperimentResult) -> Option<E7Costs> {
    let fields: E7Fields = result.summary_as().ok()?;
    let cost = |name: &str| fields.table_miss_cost.get(name).map(|c| c.ns);
    Some(E7Costs {
        magic_plain_ns: cost("magic-plain")?,
        dbb_ns: cost("dbb")?,
        difference: fields
            .answer
            .bounded_ns
            .or(fields.answer.magic_plain_minus_dbb_ns)?,
        pressure_reads: fields.pressure_reads_max,
    })
}

#[derive(Deserialize)]
struct E11Fields {
    reference_ns: BTreeMap<String, f64>,
    threshold_ns: BTreeMap<String, f64>,
    differences: BTreeMap<String, BTreeMap<String, E11Difference>>,
}

#[derive(Deserialize)]
struct E11Difference {
    ns: f64,
    low: f64,
    high: f64,
    bounded_low_ns: Option<f64>,
    bounded_high_ns: Option<f64>,
}

fn e11_evals(result: &ExperimentResult) -> Vec<E11Eval> {
    let Ok(fields) = result.summary_as::<E11Fields>() else {
        return Vec::new();
    };
    ["nnue", "kpp"]
        .into_iter()
        .filter_map(|eval| {
            let d = fields.differences.get(eval)?.get("dbb vs magic-plain")?;
            Some(E11Eval {
                eval: eval.to_string(),
                dbb_ns: *fields.reference_ns.get(eval)?,
                threshold_ns: *fields.threshold_ns.get(eval)?,
                d: Interval {
                    ns: d.ns,
                    low: d.bounded_low_ns.unwrap_or(d.low),
                    high: d.bounded_high_ns.unwrap_or(d.high),
                },
            })
        })
        .collect()
}

/// E6's price of one last-level miss: its memory latency less its L3 (last level's) latency,
/// what a load pays for missing the last level; `None` without both.
pub fn memory_minus_last_level_ns(levels: Option<&CacheLevels>) -> Option<f64> {
    let levels = levels?;
    let last = levels.levels.last()?;
    let price = levels.memory_ns - last.ns;
    (price.is_finite() && price > 0.0).then_some(price)
}
