//! E3's summary as the index reads it: the fastest backend per cell (`fastest fast mate`,
//! `fastest fast no-mate`) and the range of brute force's time over the fast path's.

use crate::results::{Ordered, Winner};
use serde::Deserialize;
use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(from = "Ordered<Value>")]
pub struct Summary {
    /// Cells `fast mate` and `fast no-mate`.
    pub winners: Vec<Winner>,
    /// `brute/fast low` and `brute/fast high`: the lowest and highest ratio over backends.
    pub brute_over_fast: Option<(f64, f64)>,
}

impl From<Ordered<Value>> for Summary {
    fn from(summary: Ordered<Value>) -> Self {
        let number = |key: &str| summary.get(key).and_then(Value::as_f64);
        Summary {
            winners: Winner::all_in(&summary.0, |key| {
                key.strip_prefix("fastest ").map(String::from)
            }),
            brute_over_fast: number("brute/fast low").zip(number("brute/fast high")),
        }
    }
}
