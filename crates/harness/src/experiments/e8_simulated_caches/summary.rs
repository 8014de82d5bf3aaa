//! E8's summary as the index reads it: whether valgrind ran, and the backend with the fewest
//! estimated cycles per lookup under each simulated cache geometry, alone and beside an
//! evaluation. Simulated counts are deterministic: a winner here is a count, not a timing.

use crate::results::Ordered;
use serde::Deserialize;

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Summary {
    pub available: bool,
    /// Geometry → backend, the lookups alone.
    pub best_backend_per_geometry: Ordered<String>,
    /// Geometry (with its evaluation size) → backend, beside the evaluation.
    pub best_backend_per_geometry_under_pressure: Ordered<String>,
}
