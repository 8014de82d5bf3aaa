//! E9's summary as the index reads it: per experiment it reran (E1, E2) and pair of builds
//! (`<a>_vs_<b>`), the range of `a`'s time over `b`'s across cells (`…_range`) and how many
//! cells are faster, level and slower (`…_cells`).

use crate::results::Ordered;
use serde::Deserialize;
use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(from = "Ordered<Value>")]
pub struct Summary {
    pub pairs: Vec<BuildPair>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct BuildPair {
    /// `E1` or `E2`.
    pub experiment: String,
    /// `native_vs_x86-64-v3`: the first build's time over the second's.
    pub builds: String,
    /// Cells where the first build is faster, level, slower.
    pub cells: [u64; 3],
}

impl From<Ordered<Value>> for Summary {
    fn from(summary: Ordered<Value>) -> Self {
        let pairs = summary
            .iter()
            .filter_map(|(key, value)| {
                let (experiment, rest) = key.split_once('_')?;
                let builds = rest.strip_suffix("_cells")?;
                let cells: [u64; 3] = serde_json::from_value(value.clone()).ok()?;
                Some(BuildPair {
                    experiment: experiment.to_string(),
                    builds: builds.to_string(),
                    cells,
                })
            })
            .collect();
        Summary { pairs }
    }
}
