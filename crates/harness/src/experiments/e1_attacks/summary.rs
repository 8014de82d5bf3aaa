//! E1's summary as the index reads it: the best backend per cell (`throughput_best_<workload>`,
//! `latency_best_<workload>`), the clock, and pext's cycles per lookup against their targets.

use crate::results::{Ordered, Winner};
use serde::Deserialize;
use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(from = "Ordered<Value>")]
pub struct Summary {
    /// Cells `throughput <workload>` and `latency <workload>`, in the order written.
    pub winners: Vec<Winner>,
    /// The measured clock (GHz), where cycles per lookup were estimated.
    pub clock_ghz: Option<f64>,
}

impl From<Ordered<Value>> for Summary {
    fn from(summary: Ordered<Value>) -> Self {
        let winners = Winner::all_in(&summary.0, |key| {
            let (kind, workload) = key.split_once("_best_")?;
            Some(format!("{kind} {workload}"))
        });
        Summary {
            winners,
            clock_ghz: summary.get("clock_ghz").and_then(Value::as_f64),
        }
    }
}
