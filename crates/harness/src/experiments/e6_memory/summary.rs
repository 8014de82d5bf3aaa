//! E6's summary as the index reads it: the effective cache levels (`effective_levels`, absent
//! from reports made before E6 found them) and the latency past the last level.

use crate::cache_levels::EffectiveLevel;
use serde::Deserialize;

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Summary {
    /// The knees of the latency curve, smallest level first.
    #[serde(default)]
    pub effective_levels: Option<Vec<EffectiveLevel>>,
    /// The load latency past the last level (ns).
    #[serde(default)]
    pub memory_ns: Option<f64>,
}
