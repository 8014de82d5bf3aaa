//! E12's summary as the index reads it: per pair, the three costs as variant over base.

use serde::Deserialize;
use std::collections::BTreeMap;

/// `{ratio, low, high, invocations, rounds, claim}`; `high` is null when unbounded.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Ratio {
    pub ratio: f64,
    pub low: f64,
    pub high: Option<f64>,
    pub invocations: usize,
    pub rounds: usize,
    pub claim: String,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Pair {
    pub base: String,
    pub variant: String,
    pub factor: String,
    pub table_bytes: [u64; 2],
    pub lookup: Option<Ratio>,
    pub table_miss: Option<Ratio>,
    pub nps: Option<Ratio>,
    /// The other lookup modes and inputs (`latency random-play`, `throughput uniform-25`).
    #[serde(default)]
    pub lookup_by_mode: BTreeMap<String, Option<Ratio>>,
    /// Per cost (`lookup`, `table_miss`, `nps`), why it is not decided here; absent: decided.
    #[serde(default)]
    pub undecided: BTreeMap<String, String>,
    /// The page phase the lookups and table misses were read in (`4k` or `2m`); absent in
    /// reports before the key, whose `lookup_pages` named the phase.
    #[serde(default)]
    pub phase: Option<String>,
    /// The pages the variant side's tables were on in that phase (`4k` or `2m`: the control
    /// family's read `4k` in both); absent in reports before the key.
    #[serde(default)]
    pub lookup_pages: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Controls {
    pub passed: bool,
}

/// The pair the pre-set rule names and the cost it was decided by.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct MattersMost {
    pub variant: String,
    pub cost: String,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Summary {
    pub pairs: Vec<Pair>,
    pub controls: Controls,
    #[serde(default)]
    pub matters_most: Option<MattersMost>,
    /// The pre-set rule's answer in one sentence.
    pub verdict: String,
}

impl Summary {
    /// The verdict as the index prints it: the rule's sentence; where some A/A control failed,
    /// that the costs it gates are not decided (the sentence names which); and the named pair's
    /// other measures, which the verdict does not cover (a layout can be slower in throughput
    /// and faster in latency).
    pub fn verdict_line(&self) -> String {
        let mut line = self.verdict.clone();
        if !self.controls.passed {
            line.push_str(" (not every A/A control passed: the costs they gate are not decided)");
        }
        line.push_str(&self.scope());
        line
    }

    /// ` The same pair's other measures, …: latency random-play ×0.94 [0.91–0.98], …`, or
    /// nothing where no pair is named.
    fn scope(&self) -> String {
        let Some(named) = &self.matters_most else {
            return String::new();
        };
        let Some(pair) = self.pairs.iter().find(|p| p.variant == named.variant) else {
            return String::new();
        };
        let mut measures: Vec<String> = Vec::new();
        if named.cost == "lookup" {
            for (input, ratio) in &pair.lookup_by_mode {
                if let Some(r) = ratio {
                    measures.push(format!("lookups ({input}) {}", r.interval_text()));
                }
            }
        }
        let costs = [
            ("lookup", "lookups", &pair.lookup),
            ("table_miss", "table misses", &pair.table_miss),
            ("nps", "the search", &pair.nps),
        ];
        for (key, words, ratio) in costs {
            if let Some(r) = ratio.as_ref().filter(|_| key != named.cost) {
                let undecided = if pair.undecided.contains_key(key) {
                    ", not decided"
                } else {
                    ""
                };
                measures.push(format!("{words} {}{undecided}", r.interval_text()));
            }
        }
        if measures.is_empty() {
            return String::new();
        }
        format!(
            " Its other measures, which this verdict does not cover: {}.",
            measures.join("; ")
        )
    }
}

impl Ratio {
    /// `×1.02 [0.97–1.06]`.
    pub fn interval_text(&self) -> String {
        let high = self.high.map_or("∞".to_string(), |h| format!("{h:.2}"));
        format!("×{:.2} [{:.2}–{high}]", self.ratio, self.low)
    }
}
