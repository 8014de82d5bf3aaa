//! E4's summary as the index reads it: the fastest hand layout per operation
//! (`fastest <operation>`).

use crate::results::{Ordered, Winner};
use serde::Deserialize;
use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(from = "Ordered<Value>")]
pub struct Summary {
    /// Cells are operations (`superior`, `count`, …); the winners are layouts, not backends.
    pub winners: Vec<Winner>,
}

impl From<Ordered<Value>> for Summary {
    fn from(summary: Ordered<Value>) -> Self {
        Summary {
            winners: Winner::all_in(&summary.0, |key| {
                key.strip_prefix("fastest ").map(String::from)
            }),
        }
    }
}
