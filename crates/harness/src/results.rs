//! The report's data model: what every experiment hands to the renderer and to `results.json`.
//!
//! Experiments measure and fill these structures; the renderer (plots, `report.md`) only reads
//! them, and `results.json` is these structures serialised, so `kiki render` can rebuild the
//! report from it alone. Keeping raw samples here is what lets reports from different machines be
//! merged and re-plotted later.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Bumped whenever the shape of `results.json` changes. Version 1 (the reports written before
/// serde) had no tables, plots or machine section text: such reports can be indexed, not
/// re-rendered. Version 2 added them; version 3 added the mode, the invocations, the run
/// conditions, each experiment's wall time and compared pairs (all optional when reading, so a
/// version-2 report reads and re-renders as it was published).
pub const SCHEMA_VERSION: u32 = 3;

/// The schema versions this build reads (for the index).
pub const READABLE_SCHEMAS: [u32; 3] = [1, 2, 3];

/// The schema versions this build can re-render (`kiki render`).
pub const RENDERABLE_SCHEMAS: [u32; 2] = [2, 3];

/// One measured series: the raw samples of one quantity under one set of labels.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// What was measured under which conditions, e.g. `[("backend","qugiy"),("piece","rook")]`
    /// (a JSON object in `results.json`, in this order).
    #[serde(with = "ordered_map")]
    pub labels: Vec<(String, String)>,
    /// The quantity and its unit, e.g. `"ns/lookup"`, `"Mnodes/s"`.
    pub unit: String,
    /// Every raw sample, in the order taken (a failed sample is NaN, `null` in JSON).
    #[serde(with = "floats")]
    pub samples: Vec<f64>,
}

impl Series {
    pub fn label(&self, key: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// A table for `report.md`: already-formatted cells.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Table {
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// How a plot's points are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlotKind {
    /// Lines with markers over a numeric x axis (sweeps).
    Line,
    /// Grouped bars over categories (x values are category indices into `categories`).
    Bar,
    /// One bar per category, each line a segment stacked on the ones before it (parts of a
    /// whole; x values as [`PlotKind::Bar`]'s, y values non-negative).
    StackedBar,
}

impl PlotKind {
    /// Whether the x axis is categories (grouped or stacked bars).
    pub fn is_bars(self) -> bool {
        matches!(self, PlotKind::Bar | PlotKind::StackedBar)
    }
}

/// One point: x, the median y, and the spread shown as an error bar (min and max, or MAD).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    #[serde(with = "float")]
    pub x: f64,
    #[serde(with = "float")]
    pub y: f64,
    #[serde(with = "float")]
    pub y_low: f64,
    #[serde(with = "float")]
    pub y_high: f64,
}

/// One line (or one bar colour) of a plot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlotLine {
    pub name: String,
    pub points: Vec<Point>,
}

/// A plot to render as `<file_stem>.svg` and `<file_stem>.png`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plot {
    pub file_stem: String,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub log_x: bool,
    pub log_y: bool,
    pub kind: PlotKind,
    /// Category names for `PlotKind::Bar` (x = index); empty for line plots.
    pub categories: Vec<String>,
    /// Vertical markers (e.g. cache sizes on a sweep): (x, label), a `[x, "label"]` pair in JSON.
    pub markers: Vec<(f64, String)>,
    pub lines: Vec<PlotLine>,
}

/// One experiment's complete result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExperimentResult {
    /// `E1` … `E10`.
    pub id: String,
    pub title: String,
    /// What it measures and how (method, inputs, seeds), for the report.
    pub method: String,
    /// The findings paragraph, computed from the data (never canned text).
    pub findings: String,
    /// Experiment-specific derived values for the index (e.g. E7 crossover points), in order.
    #[serde(with = "ordered_map")]
    pub summary: Vec<(String, Value)>,
    pub series: Vec<Series>,
    /// Absent from schema-1 reports.
    #[serde(default)]
    pub tables: Vec<Table>,
    /// Absent from schema-1 reports.
    #[serde(default)]
    pub plots: Vec<Plot>,
    /// How long it ran (absent from schema-1 reports).
    #[serde(default)]
    pub wall_seconds: Option<f64>,
    /// Every paired comparison its findings state, with its interval and claim.
    #[serde(default)]
    pub comparisons: Vec<PairRecord>,
}

/// One compared pair of a report's findings: in cell `cell`, `a`'s time against `b`'s.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairRecord {
    pub cell: String,
    pub a: String,
    pub b: String,
    /// `{ratio, low, high, invocations, rounds, claim}`.
    #[serde(flatten)]
    pub comparison: crate::stats::Comparison,
}

impl ExperimentResult {
    /// The summary value under `key`.
    pub fn summary_value(&self, key: &str) -> Option<&Value> {
        self.summary.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The summary read as its experiment's typed `Summary` (for the index); an error names the
    /// experiment and what did not fit.
    pub fn summary_as<T: serde::de::DeserializeOwned>(&self) -> Result<T, String> {
        let object: serde_json::Map<String, Value> = self.summary.iter().cloned().collect();
        serde_json::from_value(Value::Object(object))
            .map_err(|e| format!("{} summary: {e}", self.id))
    }
}

/// A JSON object read in its written order, as `(key, value)` pairs.
#[derive(Clone, Debug, PartialEq)]
pub struct Ordered<V>(pub Vec<(String, V)>);

impl<V> Default for Ordered<V> {
    fn default() -> Self {
        Ordered(Vec::new())
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for Ordered<V> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        ordered_map::deserialize(deserializer).map(Ordered)
    }
}

impl<V> Ordered<V> {
    pub fn get(&self, key: &str) -> Option<&V> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &V)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }
}

/// A summary's named winner: in cell `cell` (`throughput uniform-10`, `perft start d5`, or
/// empty where the experiment has one cell), `backend` had the best median.
#[derive(Clone, Debug, PartialEq)]
pub struct Winner {
    pub cell: String,
    pub backend: String,
}

impl Winner {
    /// Every winner of a summary whose key `cell_of` turns into a cell, in order.
    pub fn all_in(
        summary: &[(String, Value)],
        cell_of: impl Fn(&str) -> Option<String>,
    ) -> Vec<Self> {
        summary
            .iter()
            .filter_map(|(key, value)| {
                Some(Winner {
                    cell: cell_of(key)?,
                    backend: value.as_str()?.to_string(),
                })
            })
            .collect()
    }
}

/// One backend of the binary that wrote a report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BackendEntry {
    pub name: String,
    pub available: bool,
    pub simd_path: String,
    pub table_bytes: u64,
}

/// A whole report: what `results.json` holds and `report.md` is rendered from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub schema_version: u32,
    pub kiki_version: String,
    pub cpu_slug: String,
    pub date: String,
    pub machine: crate::machine::Machine,
    /// `full` or `quick` (empty in schema-1 reports).
    #[serde(default)]
    pub mode: String,
    /// Process invocations each timing experiment (E1–E7, E10, E11) ran in: its series hold that many
    /// consecutive blocks of rounds, one per invocation (1 in older reports).
    #[serde(default = "one")]
    pub invocations: usize,
    /// The timing experiments that ran another number of processes than `invocations` (E11
    /// runs twice as many in a full report); empty in older reports.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub invocations_by_experiment: std::collections::BTreeMap<String, usize>,
    /// The binaries the invocations ran, one code layout each (invocation i runs the i-th,
    /// cycling); empty: every invocation ran the parent's own binary (older reports too).
    #[serde(default)]
    pub layouts: Vec<crate::layouts::CodeLayout>,
    /// Steal, load and the measured clock over the run (absent from schema-1 reports).
    #[serde(default)]
    pub conditions: Option<crate::conditions::RunConditions>,
    pub backends: Vec<BackendEntry>,
    pub experiments: Vec<ExperimentResult>,
}

impl Report {
    /// `" (E11: 10)"`: the experiments that ran another number of processes, or nothing.
    pub fn other_invocations(&self) -> String {
        if self.invocations_by_experiment.is_empty() {
            return String::new();
        }
        let list: Vec<String> = self
            .invocations_by_experiment
            .iter()
            .map(|(id, count)| format!("{id}: {count}"))
            .collect();
        format!(" ({})", list.join(", "))
    }
}

impl Report {
    /// The experiment with this id.
    pub fn experiment(&self, id: &str) -> Option<&ExperimentResult> {
        self.experiments.iter().find(|e| e.id == id)
    }
}

fn one() -> usize {
    1
}

/// `[(key, value), …]` as a JSON object, keeping its order both ways.
mod ordered_map {
    use serde::de::{MapAccess, Visitor};
    use serde::ser::SerializeMap;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::fmt;
    use std::marker::PhantomData;

    pub fn serialize<S: Serializer, V: Serialize>(
        pairs: &[(String, V)],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(pairs.len()))?;
        for (key, value) in pairs {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }

    pub fn deserialize<'de, D: Deserializer<'de>, V: Deserialize<'de>>(
        deserializer: D,
    ) -> Result<Vec<(String, V)>, D::Error> {
        struct Pairs<V>(PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for Pairs<V> {
            type Value = Vec<(String, V)>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut pairs = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    pairs.push(entry);
                }
                Ok(pairs)
            }
        }
        deserializer.deserialize_map(Pairs(PhantomData))
    }
}

/// An `f64` that may be NaN or infinite: written as `null` (JSON has no such numbers), read
/// back as NaN.
mod float {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
        if value.is_finite() {
            serializer.serialize_f64(*value)
        } else {
            serializer.serialize_none()
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
        Ok(Option::<f64>::deserialize(deserializer)?.unwrap_or(f64::NAN))
    }
}

/// A list of [`float`]s.
mod floats {
    use serde::ser::SerializeSeq;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(values: &[f64], serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(values.len()))?;
        for value in values {
            seq.serialize_element(&value.is_finite().then_some(*value))?;
        }
        seq.end()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<f64>, D::Error> {
        let values = Vec::<Option<f64>>::deserialize(deserializer)?;
        Ok(values.into_iter().map(|v| v.unwrap_or(f64::NAN)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_finite_samples_and_label_order_survive_a_round_trip() {
        let series = Series {
            labels: vec![("z".into(), "1".into()), ("a".into(), "2".into())],
            unit: "ns".into(),
            samples: vec![1.5, f64::NAN, 0.1 + 0.2, f64::INFINITY],
        };
        let text = serde_json::to_string(&series).unwrap();
        assert_eq!(
            text,
            r#"{"labels":{"z":"1","a":"2"},"unit":"ns","samples":[1.5,null,0.30000000000000004,null]}"#
        );
        let back: Series = serde_json::from_str(&text).unwrap();
        assert_eq!(back.labels, series.labels);
        assert_eq!(back.samples[0], 1.5);
        assert!(back.samples[1].is_nan() && back.samples[3].is_nan());
        assert_eq!(back.samples[2], 0.1 + 0.2, "floats read back bit for bit");
    }
}
