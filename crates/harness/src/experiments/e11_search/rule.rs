//! E11's pre-registered decision rule: whether seed 004 holds end to end in a search, decided
//! from D's interval, the threshold and the controls. Committed before the first full E11 run
//! and not changed after it (the summary's `rule_commit` names the commit; the method says so).
//!
//! Version 3. Version 1 (c01a1a96d3d3) decided on an interval over single rounds; its full
//! run (report amd-epyc-f25-m17-2026-11-26) failed both controls by width, a backend's slot in
//! the block order moving it by up to ±37 ns per node. Version 2 (a3e4d7f11253) paired each
//! forward round with the reverse one after it and timed only the rule's entries in its later
//! rounds; its full run (report amd-epyc-f25-m17-2026-11-26-2) failed its controls again, and
//! its referee found that the smaller blocks of the later rounds moved D by more than the
//! threshold, that the negative control came out positive in every invocation under `kpp`
//! (sqww ran before mailbox in all five: the order was shuffled once per invocation), and
//! that a bootstrap of medians of three samples widened the intervals about threefold.
//! Version 3, fixed before any run of it: every round times every backend; the order is
//! shuffled afresh for each forward and reverse pair of rounds; D's sample is the mean of the
//! pair's two per-round D's ([`pair_means`]); D's interval is Student's t over the
//! invocations' means of their samples ([`interval_over_invocations`]).

use serde::{Deserialize, Serialize};

/// The rule's version (see the module's head).
pub const VERSION: u32 = 3;

/// The pair the rule decides on, (first, second): D = t(second) − t(first).
pub const RULE_PAIR: (&str, &str) = ("dbb", "magic-plain");
/// The A/A control: this backend against its own second timing (its twin, its own block).
pub const TWIN: &str = "dbb";
/// The negative control: no tables to miss on either side.
pub const NEGATIVE: (&str, &str) = ("sqww", "mailbox");

/// The samples D is estimated from: per invocation, rounds alternate forward and reverse
/// backend order, and each (forward, reverse) pair of per-round differences gives one sample,
/// their mean, so that a backend's slot in the order cancels. An odd last round is dropped.
pub fn pair_means(per_round: &[f64]) -> Vec<f64> {
    per_round
        .chunks_exact(2)
        .map(|pair| (pair[0] + pair[1]) / 2.0)
        .collect()
}

/// D's estimate and 95 % interval from `samples[i]`, invocation `i`'s samples: the mean over
/// invocations of each one's mean, ± Student's t (K − 1 degrees of freedom) times the standard
/// error of those K means. The invocation is the unit: what changes between processes (the
/// pages the tables got, the environment's size) is in the interval. NaN bounds with fewer
/// than two invocations.
pub fn interval_over_invocations(samples: &[Vec<f64>], t95: impl Fn(usize) -> f64) -> Interval {
    let means: Vec<f64> = samples
        .iter()
        .filter(|s| !s.is_empty())
        .map(|s| s.iter().sum::<f64>() / s.len() as f64)
        .collect();
    let k = means.len();
    let value = if k == 0 {
        f64::NAN
    } else {
        means.iter().sum::<f64>() / k as f64
    };
    if k < 2 {
        return Interval {
            value,
            low: f64::NAN,
            high: f64::NAN,
        };
    }
    let variance = means.iter().map(|m| (m - value).powi(2)).sum::<f64>() / (k - 1) as f64;
    let half = t95(k - 1) * (variance / k as f64).sqrt();
    Interval {
        value,
        low: value - half,
        high: value + half,
    }
}

/// What the rule says for one evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// D's whole interval lies above the threshold: the table-heavy backend loses more time
    /// per node under this evaluation than under `material`, by more than the threshold.
    #[serde(rename = "holds")]
    Holds,
    /// D's whole interval lies inside ±threshold.
    #[serde(rename = "does not hold")]
    DoesNotHold,
    /// Neither: the interval reaches across a threshold.
    #[serde(rename = "not resolved")]
    NotResolved,
    /// A control failed: nothing is decided on this run.
    #[serde(rename = "not decided here")]
    NotDecidedHere,
}

impl Verdict {
    pub fn words(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::DoesNotHold => "does not hold",
            Verdict::NotResolved => "not resolved",
            Verdict::NotDecidedHere => "not decided here",
        }
    }
}

/// An interval in ns per node: the estimate and its 95 % bounds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

impl Interval {
    /// Whether the whole interval lies strictly inside ±`threshold`.
    pub fn inside(&self, threshold: f64) -> bool {
        self.low > -threshold && self.high < threshold
    }
}

/// The rule, for one evaluation (`nnue` or `kpp`): `d` is D for `dbb vs magic-plain` at the
/// largest TT with every table on 2 MiB pages, D = (t(magic-plain) − t(dbb)) under the
/// evaluation − the same under `material`, in ns per node; `threshold_ns` is 3 % of t(dbb)
/// under `material` (or `--threshold`); `controls_passed` says whether the A/A and the negative
/// control came out inside ±threshold under every evaluation.
///
/// * a failed control: "not decided here", whatever D says;
/// * D's whole interval above `threshold_ns`: "holds";
/// * D's whole interval inside ±`threshold_ns`: "does not hold";
/// * otherwise: "not resolved".
pub fn decide(d: Interval, threshold_ns: f64, controls_passed: bool) -> Verdict {
    let no_threshold = threshold_ns.is_nan() || threshold_ns <= 0.0;
    if !controls_passed || no_threshold || !d.low.is_finite() || !d.high.is_finite() {
        return Verdict::NotDecidedHere;
    }
    if d.low > threshold_ns {
        Verdict::Holds
    } else if d.inside(threshold_ns) {
        Verdict::DoesNotHold
    } else {
        Verdict::NotResolved
    }
}

/// Whether the controls pass: every control interval (A/A and negative, under every
/// evaluation) lies inside ±`threshold_ns`.
pub fn controls_pass(controls: &[Interval], threshold_ns: f64) -> bool {
    !controls.is_empty() && controls.iter().all(|c| c.inside(threshold_ns))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(low: f64, high: f64) -> Interval {
        Interval {
            value: (low + high) / 2.0,
            low,
            high,
        }
    }

    #[test]
    fn the_rule_reads_the_interval_against_the_threshold() {
        assert_eq!(decide(d(12.0, 20.0), 10.0, true), Verdict::Holds);
        assert_eq!(decide(d(-4.0, 6.0), 10.0, true), Verdict::DoesNotHold);
        assert_eq!(decide(d(5.0, 15.0), 10.0, true), Verdict::NotResolved);
        assert_eq!(decide(d(-15.0, -5.0), 10.0, true), Verdict::NotResolved);
        // A boundary is not "beyond": an interval touching the threshold is not resolved.
        assert_eq!(decide(d(10.0, 15.0), 10.0, true), Verdict::NotResolved);
        assert_eq!(decide(d(-4.0, 10.0), 10.0, true), Verdict::NotResolved);
    }

    #[test]
    fn a_failed_control_or_a_missing_number_decides_nothing() {
        assert_eq!(decide(d(12.0, 20.0), 10.0, false), Verdict::NotDecidedHere);
        assert_eq!(
            decide(d(f64::NAN, 20.0), 10.0, true),
            Verdict::NotDecidedHere
        );
        assert_eq!(decide(d(12.0, 20.0), 0.0, true), Verdict::NotDecidedHere);
        assert!(controls_pass(&[d(-1.0, 1.0), d(-2.0, 3.0)], 5.0));
        assert!(!controls_pass(&[d(-1.0, 1.0), d(-2.0, 6.0)], 5.0));
        assert!(!controls_pass(&[], 5.0));
    }

    #[test]
    fn forward_and_reverse_rounds_pair_up() {
        assert_eq!(pair_means(&[10.0, -6.0, 3.0, 5.0, 99.0]), vec![2.0, 4.0]);
        assert!(pair_means(&[1.0]).is_empty());
    }

    #[test]
    fn the_interval_is_students_t_over_invocation_means() {
        // Means 1, 3, 5: mean 3, sd 2, standard error 2/sqrt(3); t stands in as 4.
        let i = interval_over_invocations(&[vec![0.0, 2.0], vec![3.0], vec![5.0, 5.0]], |_| 4.0);
        let half = 4.0 * 2.0 / 3f64.sqrt();
        assert!((i.value - 3.0).abs() < 1e-12);
        assert!((i.low - (3.0 - half)).abs() < 1e-12 && (i.high - (3.0 + half)).abs() < 1e-12);
        assert!(interval_over_invocations(&[vec![1.0, 2.0]], |_| 4.0)
            .low
            .is_nan());
    }

    #[test]
    fn verdicts_serialise_as_the_words_the_index_reads() {
        for verdict in [
            Verdict::Holds,
            Verdict::DoesNotHold,
            Verdict::NotResolved,
            Verdict::NotDecidedHere,
        ] {
            let json = serde_json::to_string(&verdict).unwrap();
            assert_eq!(json, format!("\"{}\"", verdict.words()));
        }
    }
}
