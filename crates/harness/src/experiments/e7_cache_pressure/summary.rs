//! E7's summary as the index reads it. The keys are public (results.json): the pressure's
//! size, each backend's isolated table-miss cost at the top pressure, the controls, the
//! survival fractions, the table-page split and seed 004's verdict. Every field is optional:
//! reports made by earlier designs of E7 lack some.

use crate::results::Ordered;
use serde::Deserialize;

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Summary {
    /// The largest evaluation buffer the pressure draws from (bytes).
    pub pressure_max_bytes: Option<u64>,
    /// The top pressure: evaluation reads per node.
    pub pressure_reads_max: Option<u64>,
    /// Per backend: its table-miss cost per lookup (real minus hot twin) at the top pressure.
    pub table_miss_cost: Option<Ordered<Estimate>>,
    /// Backends without tables (and a one-page synthetic table): their cost must be nil.
    pub negative_controls: Option<Ordered<Control>>,
    /// The single positive control of earlier reports (a synthetic table of known latency).
    pub positive_control: Option<PositiveControl>,
    /// One positive control per synthetic size.
    pub positive_controls: Option<Vec<PositiveControl>>,
    pub positive_controls_pass: Option<bool>,
    /// Per pressure count, the share of table loads served by each class of levels.
    pub survival: Option<Vec<SurvivalPoint>>,
    /// Per backend with tables: its cost on 4 KiB and on huge pages.
    pub table_pages: Option<Ordered<PageSplit>>,
    /// Seed 004's argument as this machine decides it.
    #[serde(rename = "seed_004_verdict")]
    pub seed_004: Option<SeedVerdict>,
}

/// A cost per lookup (ns) and its 95 % interval.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Estimate {
    pub ns: f64,
    pub low: f64,
    pub high: f64,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Control {
    pub ns: f64,
    pub low: f64,
    pub high: f64,
    pub pass: bool,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct PositiveControl {
    /// `½ L2`, `½ LL`, `memory` (absent from the single control of earlier reports).
    #[serde(default)]
    pub label: Option<String>,
    pub bytes: u64,
    pub ns: f64,
    pub expected_ns: f64,
    pub pass: bool,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct SurvivalPoint {
    pub pressure_reads: u64,
    pub classes: Vec<SurvivalClass>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct SurvivalClass {
    /// `L1 or L2`, `LL`, `memory`, …
    pub class: String,
    pub fraction: f64,
    pub low: f64,
    pub high: f64,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct PageSplit {
    pub small_ns: f64,
    pub huge_ns: f64,
}

/// The verdict's text, and which way it goes (the branch its first words name).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(from = "String")]
pub struct SeedVerdict {
    pub outcome: SeedOutcome,
    pub text: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeedOutcome {
    Holds,
    HoldsInPart,
    HalfShown,
    NotShown,
    DoesNotHold,
    NotMeasured,
    /// Worded by an earlier design of E7.
    Other,
}

impl SeedOutcome {
    /// A few words for the index.
    pub fn words(self) -> &'static str {
        match self {
            SeedOutcome::Holds => "holds",
            SeedOutcome::HoldsInPart => "holds only in part",
            SeedOutcome::HalfShown => "is only half shown",
            SeedOutcome::NotShown => "is not shown at this resolution",
            SeedOutcome::DoesNotHold => "does not hold",
            SeedOutcome::NotMeasured => "not measured",
            SeedOutcome::Other => "see the report",
        }
    }
}

impl From<String> for SeedVerdict {
    fn from(text: String) -> Self {
        let outcome = [
            ("holds only in part", SeedOutcome::HoldsInPart),
            ("holds here", SeedOutcome::Holds),
            ("is only half shown", SeedOutcome::HalfShown),
            ("is not shown", SeedOutcome::NotShown),
            ("is not what this machine shows", SeedOutcome::DoesNotHold),
            ("does not hold", SeedOutcome::DoesNotHold),
            ("not measured", SeedOutcome::NotMeasured),
        ]
        .into_iter()
        .find(|(start, _)| text.starts_with(start))
        .map_or(SeedOutcome::Other, |(_, outcome)| outcome);
        SeedVerdict { outcome, text }
    }
}
