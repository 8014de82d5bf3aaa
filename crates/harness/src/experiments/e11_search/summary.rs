//! E11's summary as the index reads it: the verdict per evaluation, D for the rule's pair, the
//! controls and the evaluations' footprints.

use serde::Deserialize;
use std::collections::BTreeMap;

/// `{ns, low, high}`.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
pub struct Triple {
    pub ns: f64,
    pub low: f64,
    pub high: f64,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Controls {
    pub passed: bool,
}

/// T: one figure for every evaluation (rule versions up to 4: 3 % of t(dbb) under
/// `material`), or one per evaluation (version 5: 3 % of t(dbb) under each).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Threshold {
    Single(f64),
    ByEval(BTreeMap<String, f64>),
}

impl Threshold {
    /// T under `eval` (NaN where the summary has none).
    pub fn under(&self, eval: &str) -> f64 {
        match self {
            Threshold::Single(t) => *t,
            Threshold::ByEval(by_eval) => by_eval.get(eval).copied().unwrap_or(f64::NAN),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Summary {
    pub verdict: String,
    pub verdict_by_eval: BTreeMap<String, String>,
    pub threshold_ns: Threshold,
    pub rule_commit: String,
    /// Absent before version 4 (whose interval is a trimmed mean; earlier ones Student's t);
    /// from version 5 the intervals are 90 %, before 95 %.
    #[serde(default)]
    pub rule_version: Option<u32>,
    pub eval_bytes: BTreeMap<String, u64>,
    pub controls: Controls,
    /// Evaluation → pair → D (or the plain difference under material).
    pub differences: BTreeMap<String, BTreeMap<String, Triple>>,
    #[serde(default)]
    pub best: BTreeMap<String, String>,
}

impl Summary {
    /// D for `dbb vs magic-plain` under `eval`.
    pub fn rule_difference(&self, eval: &str) -> Option<Triple> {
        self.differences
            .get(eval)?
            .get("dbb vs magic-plain")
            .copied()
    }
}
