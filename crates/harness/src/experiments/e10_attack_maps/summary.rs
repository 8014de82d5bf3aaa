//! E10's summary as the index reads it: per workload (`map+counts (random play)`, …), the best
//! per-piece backend and, per set-wise method, its best backend and its time over the
//! per-piece best with the claim that ratio supports.

use crate::results::Ordered;
use crate::stats::Claim;
use serde::Deserialize;
use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(from = "Ordered<Value>")]
pub struct Summary {
    /// The methods compared (`per-piece`, `set-wise/portable`, …).
    pub methods: Vec<String>,
    /// Every workload key whose value has this shape, in order.
    pub workloads: Vec<(String, Workload)>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Workload {
    pub best_per_piece: Timed,
    pub best_set_wise: Vec<SetWise>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Timed {
    pub backend: String,
    pub variant: String,
    pub ns: f64,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct SetWise {
    pub best: Timed,
    pub over_per_piece: Ratio,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Ratio {
    pub ratio: f64,
    pub low: f64,
    pub high: f64,
    /// Written capitalised (`Faster`) by E10.
    #[serde(deserialize_with = "claim")]
    pub claim: Claim,
}

fn claim<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Claim, D::Error> {
    let text = String::deserialize(deserializer)?;
    match text.to_ascii_lowercase().as_str() {
        "faster" => Ok(Claim::Faster),
        "slower" => Ok(Claim::Slower),
        "level" => Ok(Claim::Level),
        _ => Err(serde::de::Error::custom(format!("unknown claim {text:?}"))),
    }
}

impl From<Ordered<Value>> for Summary {
    fn from(summary: Ordered<Value>) -> Self {
        let methods = summary
            .get("methods")
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_default();
        let workloads = summary
            .iter()
            .filter_map(|(key, value)| {
                let workload = serde_json::from_value(value.clone()).ok()?;
                Some((key.to_string(), workload))
            })
            .collect();
        Summary { methods, workloads }
    }
}
