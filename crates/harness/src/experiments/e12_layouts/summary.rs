//! E12's summary as the index reads it: per pair, the three costs as variant over base.

use serde::Deserialize;

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
    /// Per cost (`lookup`, `table_miss`, `nps`), why it is not decided here; absent: decided.
    #[serde(default)]
    pub undecided: std::collections::BTreeMap<String, String>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Controls {
    pub passed: bool,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Summary {
    pub pairs: Vec<Pair>,
    pub controls: Controls,
    /// The pre-set rule's answer in one sentence.
    pub verdict: String,
}

impl Summary {
    /// The verdict as the index prints it: the rule's sentence, and where some A/A control
    /// failed, that the costs it gates are not decided (the sentence names which).
    pub fn verdict_line(&self) -> String {
        if self.controls.passed {
            self.verdict.clone()
        } else {
            format!(
                "{} (not every A/A control passed: the costs they gate are not decided)",
                self.verdict
            )
        }
    }
}
