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
    /// The A/A control: the biggest table's full chain against itself, per pressure.
    pub aa_control: Option<AaControl>,
    /// Whether the controls the verdict stands on passed, and which failed (absent from
    /// reports made before the verdict was gated on them).
    pub verdict_controls: Option<VerdictControls>,
    /// The last-level control left out where E6's plateau for it is under one doubling wide
    /// (absent from reports made before 2026-11-28).
    pub positive_control_unplaced: Option<Unplaced>,
    /// Seed 004's argument as this machine decides it.
    #[serde(rename = "seed_004_verdict")]
    pub seed_004: Option<SeedVerdict>,
    /// The answer in one sentence (absent before 2026-12-01).
    pub answer: Option<Answer>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Answer {
    pub sentence: String,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct AaControl {
    pub backend: String,
    pub points: Vec<AaPoint>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct AaPoint {
    pub pressure_reads: u64,
    pub pass: bool,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Unplaced {
    pub level: String,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct VerdictControls {
    pub passed: bool,
    pub failed: Vec<String>,
    /// Whether an unplaced last-level control withholds the verdict: `false` since
    /// 2026-12-01; absent, as in the reports before, it did.
    #[serde(default)]
    pub unplaced_withholds: Option<bool>,
}

impl Summary {
    /// The controls that failed: as the report recorded them, or, for a report made before
    /// the verdict was gated, by the same rule from the controls' own `pass` (every positive
    /// control, every negative control, the A/A control at every pressure); either way with
    /// the positive controls today's rule fails ([`PositiveControl::fails_today`]).
    pub fn failed_controls(&self) -> Vec<String> {
        let positives = match &self.positive_controls {
            Some(list) => list.clone(),
            None => self.positive_control.iter().cloned().collect(),
        };
        let label = |p: &PositiveControl| p.label.clone().unwrap_or_else(|| "positive".into());
        // Today's rule also fails a positive control whose interval reaches 0 or leaves E6's
        // band; reports made before 2026-11-27 passed those on their point estimate.
        let unresolved: Vec<String> = positives
            .iter()
            .filter(|p| p.fails_today())
            .map(label)
            .collect();
        if let Some(controls) = &self.verdict_controls {
            // An unplaced control is listed in `failed` (reports since -11-29-6) and has its own
            // words (`positive_control_unplaced`): not a failed measurement here.
            let unplaced = self
                .positive_control_unplaced
                .as_ref()
                .map(|u| super::analysis::verdict::unplaced_name(&u.level));
            let mut failed: Vec<String> = controls
                .failed
                .iter()
                .filter(|name| Some(*name) != unplaced.as_ref())
                .cloned()
                .collect();
            failed.extend(
                unresolved
                    .into_iter()
                    .filter(|l| !controls.failed.contains(l)),
            );
            return failed;
        }
        let mut failed: Vec<String> = positives.iter().filter(|p| !p.pass).map(label).collect();
        failed.extend(unresolved);
        if positives.is_empty() && self.positive_controls_pass == Some(false) {
            failed.push("positive".into());
        }
        if let Some(negative) = &self.negative_controls {
            failed.extend(
                negative
                    .iter()
                    .filter(|(_, c)| !c.pass)
                    .map(|(name, _)| name.to_string()),
            );
        }
        if let Some(aa) = &self.aa_control {
            failed.extend(
                aa.points
                    .iter()
                    .filter(|p| !p.pass)
                    .map(|p| format!("A/A {} at P = {}", aa.backend, p.pressure_reads)),
            );
        }
        failed
    }

    /// Seed 004's outcome in a few words, gated on the controls: where one failed, "not
    /// decided here" and which (reports made before the gate printed a verdict regardless). An
    /// unplaced last-level control is stated beside the verdict (since 2026-12-01; the reports
    /// before withheld the verdict for it, and keep their words).
    pub fn seed_004_words(&self) -> Option<String> {
        let verdict = self.seed_004.as_ref()?;
        if verdict.outcome == SeedOutcome::NotMeasured {
            return Some(verdict.outcome.words().to_string());
        }
        let failed = self.failed_controls();
        let unplaced = self.positive_control_unplaced.as_ref();
        // Whether the report's own gate withheld the verdict for the unplaced control.
        let vetoed = unplaced.is_some()
            && self
                .verdict_controls
                .as_ref()
                .and_then(|c| c.unplaced_withholds)
                .unwrap_or(true);
        if failed.is_empty() {
            return Some(match unplaced {
                Some(u) if vetoed => {
                    format!("not decided here (no {} control could be placed)", u.level)
                }
                Some(u) => format!(
                    "{} (no {} level characterised here)",
                    verdict.outcome.words(),
                    u.level
                ),
                None => verdict.outcome.words().to_string(),
            });
        }
        // Both reasons where the report's gate held both (a referee on -11-29-8, whose line
        // named ½ L2 alone).
        let unplaced = unplaced.filter(|_| vetoed).map_or(String::new(), |u| {
            format!("; no {} control could be placed", u.level)
        });
        Some(format!(
            "not decided here (failed control{}: {}{unplaced})",
            if failed.len() == 1 { "" } else { "s" },
            failed.join(", ")
        ))
    }
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
    /// The interval at P = 0 (absent from the single control of earlier reports).
    #[serde(default)]
    pub low: Option<f64>,
    #[serde(default)]
    pub high: Option<f64>,
    pub expected_ns: f64,
    /// E6's range at its size (absent from the earliest reports).
    #[serde(default, rename = "expected_low_ns")]
    pub expected_low: Option<f64>,
    #[serde(default, rename = "expected_high_ns")]
    pub expected_high: Option<f64>,
    /// `in-process ring` where a ring of its size timed beside it judged it (since
    /// 2026-12-01), `E6` where E6's band did (absent before).
    #[serde(default)]
    pub judged_against: Option<String>,
    /// Its test against the ring (since 2026-12-02; absent before, when the whole 95 %
    /// interval of the paired difference had to lie within ±25 % of the ring's cost).
    #[serde(default)]
    pub ring_test: Option<RingTest>,
    pub pass: bool,
}

/// A positive control's test against its ring, in ns per read (the analysis's `RingTest`):
/// bounds are null where there was no interval.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct RingTest {
    pub value: Option<f64>,
    pub low: Option<f64>,
    pub high: Option<f64>,
    pub p: f64,
    pub p_raw: f64,
    pub half_width: Option<f64>,
    pub threshold: Option<f64>,
    pub failed: bool,
}

impl PositiveControl {
    /// Whether today's rule fails a control its report passed (reports made before
    /// 2026-11-27 passed a control on its point estimate): an interval that reaches 0, or one
    /// not inside E6's range widened by the tolerance, where the report recorded them. A
    /// control its ring judged was judged by today's rule.
    pub fn fails_today(&self) -> bool {
        if self.judged_against.as_deref() == Some("in-process ring") {
            return false;
        }
        let Some(low) = self.low.filter(|_| self.pass) else {
            return false;
        };
        if low <= 0.0 {
            return true;
        }
        let tolerance = super::POSITIVE_TOLERANCE;
        match (self.high, self.expected_low, self.expected_high) {
            (Some(high), Some(band_low), Some(band_high)) => {
                low < band_low * (1.0 - tolerance) || high > band_high * (1.0 + tolerance)
            }
            _ => false,
        }
    }
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
    /// A control failed (the gate names which).
    NotDecided,
    /// Worded by an earlier design of E7.
    Other,
}

impl SeedOutcome {
    /// Whether the branch decides the question (holds, in part, half, or not): "not shown at
    /// this resolution", "not measured", "not decided" and older wordings do not.
    pub fn decides(self) -> bool {
        matches!(
            self,
            SeedOutcome::Holds
                | SeedOutcome::HoldsInPart
                | SeedOutcome::HalfShown
                | SeedOutcome::DoesNotHold
        )
    }

    /// A few words for the index.
    pub fn words(self) -> &'static str {
        match self {
            SeedOutcome::Holds => "holds",
            SeedOutcome::HoldsInPart => "holds only in part",
            SeedOutcome::HalfShown => "is only half shown",
            SeedOutcome::NotShown => "is not shown at this resolution",
            SeedOutcome::DoesNotHold => "does not hold",
            SeedOutcome::NotMeasured => "not measured",
            SeedOutcome::NotDecided => "not decided here",
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
            ("is not decided here", SeedOutcome::NotDecided),
        ]
        .into_iter()
        .find(|(start, _)| text.starts_with(start))
        .map_or(SeedOutcome::Other, |(_, outcome)| outcome);
        SeedVerdict { outcome, text }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(json: &str) -> Summary {
        serde_json::from_str(json).unwrap()
    }

    /// A positive control of a report made before the ring test has none; one made since
    /// reads its 90 % interval, p-values, half-width and threshold.
    #[test]
    fn the_ring_test_is_read_where_recorded() {
        let old: PositiveControl = serde_json::from_str(
            r#"{"label": "½ L2", "bytes": 1, "ns": 7.0, "expected_ns": 3.3, "pass": true,
                "judged_against": "in-process ring",
                "ring_difference": {"ns": 0.2, "low": -0.3, "high": 0.7}}"#,
        )
        .unwrap();
        assert_eq!(old.ring_test, None);
        let new: PositiveControl = serde_json::from_str(
            r#"{"label": "½ L2", "bytes": 1, "ns": 7.0, "expected_ns": 3.3, "pass": false,
                "judged_against": "in-process ring",
                "ring_test": {"value": 1.2, "low": 0.4, "high": 2.0, "interval": 0.9,
                              "p": 0.012, "p_raw": 0.006, "half_width": 0.8,
                              "threshold": 1.7, "failed": true, "degrees": 9}}"#,
        )
        .unwrap();
        let test = new.ring_test.clone().unwrap();
        assert!(test.failed && test.p == 0.012 && test.threshold == Some(1.7));
        assert!(
            !new.fails_today(),
            "a ring-judged control keeps its report's verdict"
        );
    }

    /// The index gates a verdict on its controls, also for reports made before the analysis
    /// did: a failed positive or negative control reads "not decided here" and names it.
    #[test]
    fn seed_004_words_are_gated_on_the_controls() {
        let gated = r#"{"seed_004_verdict": "is not decided here: the ½ L3 control failed (…)",
                "verdict_controls": {"passed": false, "failed": ["½ L3"]}}"#;
        let outcome = summary(gated).seed_004.unwrap().outcome;
        assert_eq!(outcome, SeedOutcome::NotDecided);
        for (json, words) in [
            (
                r#"{"seed_004_verdict": "holds only in part here, …",
                "positive_controls": [{"label": "½ L2", "bytes": 1, "ns": 5.0, "expected_ns": 5.0, "pass": true}],
                "negative_controls": {"mailbox": {"ns": 0.0, "low": -0.1, "high": 0.1, "pass": true}}}"#,
                "holds only in part",
            ),
            (
                r#"{"seed_004_verdict": "holds only in part here, …",
                "positive_controls": [{"label": "½ L3", "bytes": 1, "ns": 9.0, "expected_ns": 5.0, "pass": false}],
                "negative_controls": {"mailbox": {"ns": 0.5, "low": 0.4, "high": 0.6, "pass": false}}}"#,
                "not decided here (failed controls: ½ L3, mailbox)",
            ),
            (
                r#"{"seed_004_verdict": "holds here, …",
                "positive_controls": [],
                "positive_controls_pass": false,
                "aa_control": {"backend": "magic-plain", "points": [
                    {"pressure_reads": 0, "pass": true}, {"pressure_reads": 512, "pass": false}]}}"#,
                "not decided here (failed controls: positive, A/A magic-plain at P = 512)",
            ),
            (gated, "not decided here (failed control: ½ L3)"),
            // -11-29-8: a failed control and an unplaced one: the line names both.
            (
                r#"{"seed_004_verdict": "is not decided here: the ½ L2 control failed (…)",
                "verdict_controls": {"passed": false, "failed": ["½ L2", "L3 control (unplaced)"]},
                "positive_control_unplaced": {"level": "L3"}}"#,
                "not decided here (failed control: ½ L2; no L3 control could be placed)",
            ),
            // The -11-28-2 Zen 1: two failed controls and an unplaced one, not listed as failed
            // then, which withheld the verdict too.
            (
                r#"{"seed_004_verdict": "is not decided here: the ½ L2 control failed (…)",
                "verdict_controls": {"passed": false, "failed": ["½ L2", "memory"], "unplaced": ["L3"]},
                "positive_control_unplaced": {"level": "L3"}}"#,
                "not decided here (failed controls: ½ L2, memory; no L3 control could be placed)",
            ),
            // Since 2026-12-01 an unplaced control is stated beside a verdict it does not veto.
            (
                r#"{"seed_004_verdict": "holds here, …",
                "verdict_controls": {"passed": true, "failed": [], "unplaced": ["L3"],
                                     "unplaced_withholds": false},
                "positive_control_unplaced": {"level": "L3"}}"#,
                "holds (no L3 level characterised here)",
            ),
            (
                r#"{"seed_004_verdict": "is not decided here: the ½ L2 control failed (…)",
                "verdict_controls": {"passed": false, "failed": ["½ L2"], "unplaced": ["L3"],
                                     "unplaced_withholds": false},
                "positive_control_unplaced": {"level": "L3"}}"#,
                "not decided here (failed control: ½ L2)",
            ),
        ] {
            assert_eq!(summary(json).seed_004_words().unwrap(), words, "{json}");
        }
    }
}
