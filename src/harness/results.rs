//! The report's data model: what every experiment hands to the renderer and to `results.json`.
//!
//! Experiments measure and fill these structures; the renderer (plots, `report.md`,
//! `results.json`) only reads them. Keeping raw samples here is what lets reports from different
//! machines be merged and re-plotted later.

use crate::json::Json;

/// Bumped whenever the shape of `results.json` changes.
pub const SCHEMA_VERSION: u32 = 1;

/// One measured series: the raw samples of one quantity under one set of labels.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// What was measured under which conditions, e.g. `[("backend","qugiy"),("piece","rook")]`.
    pub labels: Vec<(String, String)>,
    /// The quantity and its unit, e.g. `"ns/lookup"`, `"Mnodes/s"`.
    pub unit: String,
    /// Every raw sample, in the order taken.
    pub samples: Vec<f64>,
}

impl Series {
    pub fn label(&self, key: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    pub fn to_json(&self) -> Json {
        Json::object([
            (
                "labels",
                Json::object(
                    self.labels
                        .iter()
                        .map(|(k, v)| (k.clone(), Json::str(v.clone()))),
                ),
            ),
            ("unit", Json::str(self.unit.clone())),
            (
                "samples",
                Json::Array(self.samples.iter().map(|&x| Json::Float(x)).collect()),
            ),
        ])
    }
}

/// A table for `report.md`: already-formatted cells.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// How a plot's points are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlotKind {
    /// Lines with markers over a numeric x axis (sweeps).
    Line,
    /// Grouped bars over categories (x values are category indices into `categories`).
    Bar,
}

/// One point: x, the median y, and the spread shown as an error bar (min and max, or MAD).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
    pub y_low: f64,
    pub y_high: f64,
}

/// One line (or one bar colour) of a plot.
#[derive(Clone, Debug, PartialEq)]
pub struct PlotLine {
    pub name: String,
    pub points: Vec<Point>,
}

/// A plot to render as `<file_stem>.svg` and `<file_stem>.png`.
#[derive(Clone, Debug, PartialEq)]
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
    /// Vertical markers (e.g. cache sizes on a sweep): (x, label).
    pub markers: Vec<(f64, String)>,
    pub lines: Vec<PlotLine>,
}

/// One experiment's complete result.
#[derive(Clone, Debug, PartialEq)]
pub struct Experiment {
    /// `E1` … `E9`.
    pub id: String,
    pub title: String,
    /// What it measures and how (method, inputs, seeds), for the report.
    pub method: String,
    pub series: Vec<Series>,
    pub tables: Vec<Table>,
    pub plots: Vec<Plot>,
    /// The findings paragraph, computed from the data (never canned text).
    pub findings: String,
    /// Experiment-specific derived values for the index (e.g. E7 crossover points).
    pub summary: Vec<(String, Json)>,
}

impl Experiment {
    pub fn to_json(&self) -> Json {
        Json::object([
            ("id", Json::str(self.id.clone())),
            ("title", Json::str(self.title.clone())),
            ("method", Json::str(self.method.clone())),
            ("findings", Json::str(self.findings.clone())),
            ("summary", Json::object(self.summary.iter().cloned())),
            (
                "series",
                Json::Array(self.series.iter().map(Series::to_json).collect()),
            ),
        ])
    }
}
