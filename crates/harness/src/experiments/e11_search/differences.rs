//! E11's summary `differences`: per evaluation and pair, the rule's interval, its reading, the
//! raw difference with its own control, and the margin.

use super::analysis::Numbers;
use super::rule_v8::RULE_PAIR;
use crate::answers::{ControlTest, Reading};
use kiki_engine::search::eval::EvalKind;
use serde_json::{Map, Value as Json};

/// One pair's record in the summary's `differences`.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct DifferenceRecord {
    pub ns: f64,
    /// L and U: the rule's 90 % interval (the names v4's readers know, and v5's).
    pub low: f64,
    pub high: f64,
    pub lower_bound_ns: f64,
    pub upper_bound_ns: f64,
    pub half_width_ns: f64,
    pub invocations: usize,
    pub rounds: usize,
    /// The pair's reading at its evaluation's T: faster, slower, level, not resolved or
    /// withheld.
    pub claim: Reading,
    /// Under nnue and kpp: the difference under the evaluation alone, `{ns, low, high}` (90 %),
    /// material's not taken out. Absent before v7 and under material.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<RawDifference>,
    /// The interval the reading reads (rule v8): [L, U] widened by what its evaluation's
    /// controls leave unexcluded, and its half-width (the run's resolution). Absent before v8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounded_low_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounded_high_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution_ns: Option<f64>,
    /// The rule's pair under nnue and kpp: how far the deciding bound lies beyond T (rule v6;
    /// negative: by how much it did not decide; on the bounded interval from v8). Absent
    /// before v6 and for other pairs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin_ns: Option<f64>,
}

/// A difference under one evaluation alone, ns per node with its 90 % interval.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct RawDifference {
    pub ns: f64,
    pub low: f64,
    pub high: f64,
    /// Its control, the A/A under the evaluation alone (for the rule's pair; absent before
    /// 2026-12-02), and whether the figure is withheld because it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aa: Option<ControlTest>,
    #[serde(default)]
    pub withheld: bool,
    /// The figure widened by its A/A (the rule of bounds, rule v8); absent before v8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounded_low: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounded_high: Option<f64>,
}

/// The summary's `differences`: evaluation → pair → record.
pub(super) fn differences_json(n: &Numbers) -> Json {
    let mut by_eval = Map::new();
    for d in &n.differences {
        let entry = by_eval
            .entry(d.eval.name().to_string())
            .or_insert_with(|| Json::Object(Map::new()));
        let bounded = n.bounded(d);
        let record = DifferenceRecord {
            ns: d.interval.value,
            low: d.interval.low,
            high: d.interval.high,
            lower_bound_ns: d.interval.low,
            upper_bound_ns: d.interval.high,
            half_width_ns: d.interval.half_width(),
            invocations: d.invocation_means.len(),
            rounds: d.rounds,
            claim: n.reading(d),
            raw: d.raw.map(|r| {
                let aa = ((d.first.as_str(), d.second.as_str()) == RULE_PAIR)
                    .then(|| n.raw_control(d.eval).cloned())
                    .flatten();
                let (bounded_low, bounded_high) = match &aa {
                    Some(t) => crate::answers::bounded(r.low, r.high, &[t]),
                    None => (r.low, r.high),
                };
                RawDifference {
                    ns: r.value,
                    low: r.low,
                    high: r.high,
                    withheld: aa.as_ref().is_some_and(|t| t.failed),
                    aa,
                    bounded_low: Some(bounded_low),
                    bounded_high: Some(bounded_high),
                }
            }),
            bounded_low_ns: Some(bounded.low),
            bounded_high_ns: Some(bounded.high),
            resolution_ns: Some(bounded.half_width()),
            margin_ns: ((d.first.as_str(), d.second.as_str()) == RULE_PAIR
                && d.eval != EvalKind::Material)
                .then(|| n.margin(d)),
        };
        entry[format!("{} vs {}", d.first, d.second)] =
            serde_json::to_value(record).unwrap_or(Json::Null);
    }
    Json::Object(by_eval)
}
