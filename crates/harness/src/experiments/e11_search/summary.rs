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

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Summary {
    pub verdict: String,
    pub verdict_by_eval: BTreeMap<String, String>,
    pub threshold_ns: f64,
    pub rule_commit: String,
    /// Absent before version 4 (whose interval is a trimmed mean; earlier ones Student's t).
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
